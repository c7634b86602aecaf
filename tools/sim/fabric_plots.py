#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Reproduce the MRC paper's fabric experiments with mrcfabric and plot them.

    fabric_plots.py MRCFABRIC OUTDIR [SEEDS]

Runs every scenario once per seed (1..SEEDS, default 5; deterministic: the
same seeds give the same figures), writes one SVG
per experiment into OUTDIR and prints the figures as an RST table on stdout,
next to the paper's; then runs every scenario again with UEC's NSCC
(--cc uec) and prints a second table, the two controllers side by side.
Standard library only: the SVG is drawn by hand, so the plots regenerate on a
machine with nothing but Debian's python3. `make sim-plots` calls it.
"""
import json
import subprocess
import sys
from pathlib import Path

# The fabric every experiment uses unless it says otherwise: 32 hosts x 8
# planes of 100G ports, 4 hosts per T0, 4 T1 per plane, 500 ns per hop,
# trimming above 64 KiB, RED marking 32-64 KiB.
BASE = ["--hosts", "32", "--planes", "8", "--trim-kb", "64", "--ecn-kb", "32:64"]
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd"]
PAPER_COLOUR = "#555"

# What the MRC paper ("Resilient AI Supercomputer Networking using MRC and
# SRv6", arXiv 2605.04333; ../shared/design/PROTOCOL.md section 8) reports
# for the same experiment, by table row; rows it has no figure for say so.
PAPER = {
    "loss 0.1 %": "near line rate; RoCEv2 collapses",
    "loss 1 %": "about a third of line rate",
    "NIC port 1 of 8 down": "87.5 % (7 of 8 ports left)",
    "NIC port 1 of 8 down: the dip": "routes around failures in microseconds",
    "T0-T1 link down": "1/256 of a T0's uplinks; link flaps: no measurable effect",
    "T1 switch down": "4 T1 reboots in a 75k-GPU job: recovered in seconds",
    "permutation, MRC, SRv6 paths": "~390 of 400 Gb/s per flow (97.5 %)",
    "permutation, one hashed path x 8 (RoCE-like)": "ECMP collisions halve some flows",
    "7 -> 1 incast": "victim flows untouched (100 %)",
    "ring all-reduce 32 MiB, SRv6 paths": "1 MRC connection beats 16 RoCE ones",
}
SEEDS = 5  # every scenario runs once per seed; tables give mean [min-max]
CC = []  # mrcfabric's controller for this pass (empty: its default, nscc)


def run(tool, *args):
    out = subprocess.run([tool, *BASE, *CC, *args], capture_output=True, text=True,
                         check=False)
    if out.returncode not in (0, 1) or not out.stdout:
        sys.exit(f"mrcfabric {' '.join(args)} failed: {out.stderr}")
    return json.loads(out.stdout)


class Svg:
    """A chart: title, axes with ticks, series of lines or bars, a legend."""

    W, H, L, R, T, B = 560, 340, 64, 16, 36, 52

    def __init__(self, title, xlabel, ylabel, xmax, ymax, xmin=0.0, ymin=0.0):
        self.parts = []
        self.xmin, self.xmax, self.ymin, self.ymax = xmin, xmax, ymin, ymax
        self.legend = []
        w, h = self.W, self.H
        self.add(f'<rect width="{w}" height="{h}" fill="white"/>')
        self.text(w / 2, 22, title, size=14, anchor="middle", weight="bold")
        self.text(w / 2, h - 10, xlabel, anchor="middle")
        self.add(f'<text transform="translate(16,{h / 2}) rotate(-90)" '
                 f'text-anchor="middle" font-size="12">{ylabel}</text>')
        for i in range(6):
            y = ymin + (ymax - ymin) * i / 5
            py = self.py(y)
            self.add(f'<line x1="{self.L}" y1="{py}" x2="{w - self.R}" y2="{py}" '
                     'stroke="#ddd"/>')
            self.text(self.L - 6, py + 4, f"{y:g}", anchor="end")
        self.add(f'<rect x="{self.L}" y="{self.T}" width="{w - self.L - self.R}" '
                 f'height="{h - self.T - self.B}" fill="none" stroke="black"/>')

    def add(self, s):
        self.parts.append(s)

    def text(self, x, y, s, size=11, anchor="start", weight="normal"):
        self.add(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                 f'text-anchor="{anchor}" font-weight="{weight}">{s}</text>')

    def px(self, x):
        span = self.W - self.L - self.R
        return self.L + span * (x - self.xmin) / (self.xmax - self.xmin)

    def py(self, y):
        span = self.H - self.T - self.B
        return self.H - self.B - span * (y - self.ymin) / (self.ymax - self.ymin)

    def xticks(self, ticks):
        for x, label in ticks:
            self.text(self.px(x), self.H - self.B + 16, label, anchor="middle")

    def line(self, pts, label, i, spread=None):
        """pts: [(x, y)]; spread: [(lo, hi)] per point, drawn as a bar."""
        c = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{self.px(x):.1f},{self.py(y):.1f}" for x, y in pts)
        self.add(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for k, (x, y) in enumerate(pts):
            self.add(f'<circle cx="{self.px(x):.1f}" cy="{self.py(y):.1f}" r="3" fill="{c}"/>')
            if spread:
                lo, hi = spread[k]
                self.add(f'<line x1="{self.px(x):.1f}" y1="{self.py(lo):.1f}" '
                         f'x2="{self.px(x):.1f}" y2="{self.py(hi):.1f}" stroke="{c}"/>')
        self.legend.append((label, c))

    def ref(self, y, label):
        """A dashed horizontal line at @y: a figure the paper reports."""
        self.add(f'<line x1="{self.L}" y1="{self.py(y):.1f}" x2="{self.W - self.R}" '
                 f'y2="{self.py(y):.1f}" stroke="{PAPER_COLOUR}" stroke-dasharray="6,4"/>')
        self.legend.append((label, PAPER_COLOUR))

    def marks(self, pts, label):
        """Hollow squares at @pts: figures the paper reports."""
        for x, y in pts:
            self.add(f'<rect x="{self.px(x) - 5:.1f}" y="{self.py(y) - 5:.1f}" width="10" '
                     f'height="10" fill="none" stroke="{PAPER_COLOUR}" stroke-width="2"/>')
        self.legend.append((label, PAPER_COLOUR))

    def bars(self, groups, labels):
        """groups: [(name, [v per label])], bars side by side per group."""
        n, k = len(groups), len(labels)
        slot = (self.xmax - self.xmin) / n
        width = slot * 0.8 / k
        for g, (name, vals) in enumerate(groups):
            x0 = self.xmin + g * slot + slot * 0.1
            for j, v in enumerate(vals):
                c = COLOURS[j % len(COLOURS)]
                left, right = self.px(x0 + j * width), self.px(x0 + (j + 1) * width)
                top = self.py(v)
                self.add(f'<rect x="{left:.1f}" y="{top:.1f}" width="{right - left - 1:.1f}" '
                         f'height="{self.py(self.ymin) - top:.1f}" fill="{c}"/>')
                self.text((left + right) / 2, top - 3, f"{v:.0f}", size=9, anchor="middle")
            self.text(self.px(self.xmin + (g + 0.5) * slot), self.H - self.B + 16, name,
                      anchor="middle")
        for j, label in enumerate(labels):
            self.legend.append((label, COLOURS[j % len(COLOURS)]))

    def save(self, path):
        """Write the chart to @path (None: a pass that draws nothing)."""
        if path is None:
            return
        for i, (label, c) in enumerate(self.legend):
            y = self.T + 14 + 16 * i
            x = self.W - self.R - 190
            self.add(f'<rect x="{x}" y="{y - 9}" width="12" height="10" fill="{c}"/>')
            self.text(x + 18, y, label)
        body = "\n".join(self.parts)
        Path(path).write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.W}" height="{self.H}" '
            f'font-family="sans-serif">\n{body}\n</svg>\n')


def runs(tool, *args):
    """The scenario once per seed."""
    return [run(tool, "--seed", str(seed), *args) for seed in range(1, SEEDS + 1)]


def spread(vals, digits=0):
    """mean [min-max] of per-seed values."""
    m = sum(vals) / len(vals)
    return f"{m:.{digits}f} [{min(vals):.{digits}f}-{max(vals):.{digits}f}]"


def mean(vals):
    return sum(vals) / len(vals)


def slowest(rs):
    return [r["goodput_gbps"]["min"] for r in rs]


def experiments(tool, out):
    """Every experiment once per seed; charts into @out (None: none).
    Returns the table rows (experiment, result, detail)."""
    rows = []
    one = ["--pattern", "incast", "--incast", "0", "--msgs", "64"]  # one flow, 64 MiB
    solo = slowest(runs(tool, *one))

    def kept(rs):
        return [100 * g / b for g, b in zip(slowest(rs), solo)]

    # 1. Loss sweep: share of the loss-free goodput kept, MRC against the
    # RoCE-like baseline (one hashed 100G path, go-back-N, fabric_rc.h).
    losses = [0, 0.001, 0.002, 0.005, 0.01]
    roce_alone = slowest(runs(tool, *one, "--roce"))
    pts, bars, rpts, rbars = [], [], [], []
    for p in losses:
        rs = runs(tool, *one, "--loss", str(p))
        rr = runs(tool, *one, "--roce", "--loss", str(p))
        k = kept(rs)
        kr = [100 * g / b for g, b in zip(slowest(rr), roce_alone)]
        pts.append((p * 100, mean(k)))
        bars.append((min(k), max(k)))
        rpts.append((p * 100, mean(kr)))
        rbars.append((min(kr), max(kr)))
        rows.append((f"loss {p * 100:g} %", f"MRC {spread(k)} % kept, "
                     f"{sum(r['timeouts'] for r in rs)} timeouts",
                     f"RoCE-like {spread(kr)} % kept, {sum(r['timeouts'] for r in rr)} timeouts"))
    s = Svg("Goodput under random loss (one flow)", "loss per T0-T1 link (%)",
            "% of loss-free goodput", 1.0, 100)
    s.line(pts, "MRC, 8 x 100G, SRv6", 0, bars)
    s.line(rpts, "RoCE-like: 1 path, go-back-N", 1, rbars)
    s.marks([(0.1, 100), (1.0, 100 / 3)], "paper: MRC at 0.1 % and 1 %")
    s.xticks([(p * 100, f"{p * 100:g}") for p in losses])
    s.save(out and out / "loss.svg")

    # 2. One NIC port of eight down at 50 us, announced and silent; a gray
    # path (one T0-T1 link of host 31's T0 losing 20 %).
    ann = runs(tool, *one, "--fail", "nic:3:31@50")
    sil = runs(tool, *one, "--fail", "nic:3:31@50:silent")
    gray = runs(tool, *one, "--link-loss", "0:7:1:0.2")
    rows.append(("NIC port 1 of 8 down", f"announced {spread(kept(ann), 1)} % kept",
                 f"silent {spread(kept(sil), 1)} % kept, "
                 f"{sum(r['timeouts'] for r in ann + sil)} timeouts"))
    def dip(rs):
        worst = spread([100 * r["settle"]["min_gbps"] / r["settle"]["before_gbps"] for r in rs])
        return (f"worst 5 us {worst} % of before, settled in "
                f"{spread([r['settle']['settle_us'] for r in rs], 1)} us")

    rows.append(("NIC port 1 of 8 down: the dip", f"announced: {dip(ann)}", f"silent: {dip(sil)}"))
    rows.append(("one path losing 20 %", f"{spread(kept(gray), 1)} % kept",
                 f"{spread([r['lost'] for r in gray])} packets lost, "
                 f"{sum(r['timeouts'] for r in gray)} timeouts"))

    # 3. Fabric failures under a permutation: a dead T1 from the start, a
    # T0-T1 link, a whole T1 or a whole T0 (announced by its hosts' NICs,
    # whose links go dark, or silent) failing at 20 us.
    perm = ["--pattern", "permutation", "--msgs", "16"]
    p_ok = runs(tool, *perm)
    p_dead = runs(tool, *perm, "--fail", "t1:0:0@0")
    p_link = runs(tool, *perm, "--fail", "link:0:0:0@20")
    p_t1 = runs(tool, *perm, "--fail", "t1:0:0@20")
    p_t0 = runs(tool, *perm, "--fail", "t0:0:0@20")
    p_t0s = runs(tool, *perm, "--fail", "t0:0:0@20:silent")
    # Startup with dead spines: the packets each QP loses before its EVs on
    # them are retired, with 1 to 3 of plane 0's 4 T1s dead from the start.
    dead = {1: p_dead}
    for n in (2, 3):
        fails = [w for k in range(n) for w in ("--fail", f"t1:0:{k}@0")]
        dead[n] = runs(tool, *perm, *fails)
    pts, bars = [], []
    for n, rs in dead.items():
        lost = [r["drops"] / r["flows"] for r in rs]
        pts.append((n, mean(lost)))
        bars.append((min(lost), max(lost)))
        what = "a dead T1" if n == 1 else f"{n} dead T1s"
        rows.append((f"startup with {what} (plane 0)", f"{spread(lost, 1)} packets lost per QP",
                     f"{sum(r['timeouts'] for r in rs)} timeouts"))
    top = max(hi for _, hi in bars)
    s = Svg("Startup with dead spines: loss before the EVs are retired", "dead T1s of plane 0's 4",
            "packets lost per QP", 3.5, 10 * (int(top * 1.3) // 10 + 1), xmin=0.5)
    s.line(pts, "MRC, SRv6 paths, 32 hosts", 0, bars)
    s.xticks([(n, str(n)) for n in dead])
    s.save(out and out / "startup.svg")

    def perm_kept(rs):
        return [100 * g / b for g, b in zip(slowest(rs), slowest(p_ok))]

    for name, rs in (("T0-T1 link down", p_link), ("T1 switch down", p_t1),
                     ("T0 switch down, announced", p_t0), ("T0 switch down, silent", p_t0s)):
        rows.append((name, f"slowest flow {spread(perm_kept(rs))} % of no failure",
                     f"{sum(r['timeouts'] for r in rs)} timeouts"))
    s = Svg("Failures: share of goodput kept", "", "% of the failure-free run", 4, 100)
    # Seven groups in 480 px: names of at most 10 characters.
    s.bars([("NIC, ann.", [mean(kept(ann))]), ("NIC, sil.", [mean(kept(sil))]),
            ("path 20 %", [mean(kept(gray))]),
            ("T0-T1 link", [mean(perm_kept(p_link))]), ("T1", [mean(perm_kept(p_t1))]),
            ("T0, ann.", [mean(perm_kept(p_t0))]), ("T0, silent", [mean(perm_kept(p_t0s))])],
           ["slowest affected flow (mean of seeds)"])
    s.ref(87.5, "paper: a NIC port of 8 down")
    s.save(out and out / "failures.svg")

    # 4. Permutation: every flow's goodput, sorted (seed 1 plotted).
    base_line = mean(slowest(runs(tool, *one, "--single-path")))
    series = [("MRC, SRv6 paths", []), ("MRC, ECMP-hashed EVs", ["--routing", "ecmp"]),
              ("one hashed path x 8 (RoCE-like)", ["--single-path"])]
    s = Svg("Permutation, 32 hosts: every flow's share", "flows, slowest first",
            "% of its line rate", 32, 125)
    for i, (name, extra) in enumerate(series):
        rs = p_ok if not extra else runs(tool, *perm, *extra)
        ref = mean(solo) if "--single-path" not in extra else base_line
        vals = sorted(rs[0]["flow_gbps"])
        s.line([(k + 1, 100 * v / ref) for k, v in enumerate(vals)], name, i)
        rows.append((f"permutation, {name}",
                     f"slowest {spread([100 * g / ref for g in slowest(rs)])} %",
                     f"median {spread([100 * r['goodput_gbps']['median'] / ref for r in rs])}"
                     f" % of line"))
    s.ref(97.5, "paper: MRC, ~390 of 400 Gb/s")
    s.save(out and out / "permutation.svg")

    # 5. N -> 1 incast next to a victim; the senders' fairness, with the
    # default controller (nscc) and UEC's NSCC (uec).
    inc = ["--pattern", "incast", "--msgs", "32"]
    alone = runs(tool, *inc, "--incast", "0")
    ns = [1, 2, 4, 7, 15]
    lines = {k: ([], []) for k in ("victim", "steady", "nscc", "uec")}
    for n in ns:
        rs = runs(tool, *inc, "--incast", str(n))
        ru = runs(tool, *inc, "--incast", str(n), "--cc", "uec")
        victim = [100 * r["victim_gbps"] / a["victim_gbps"] for r, a in zip(rs, alone)]
        steady = [100 * r["victim_steady_gbps"] / a["victim_steady_gbps"]
                  for r, a in zip(rs, alone)]
        fair = [r["incast_jain"] if n > 1 else 1.0 for r in rs]
        fair_u = [r["incast_jain"] if n > 1 else 1.0 for r in ru]
        for key, vals in (("victim", victim), ("steady", steady), ("nscc", fair),
                          ("uec", fair_u)):
            scale = 1 if key in ("victim", "steady") else 100
            lines[key][0].append((n, scale * mean(vals)))
            lines[key][1].append((scale * min(vals), scale * max(vals)))
        rows.append((f"{n} -> 1 incast", f"victim {spread(victim)} % of alone "
                     f"(from 100 us: {spread(steady)} %)",
                     f"senders' Jain {spread(fair, 3)} (uec {spread(fair_u, 3)})"))
    s = Svg("N -> 1 incast next to a victim flow", "incast senders N", "%", 16, 125)
    s.line(lines["steady"][0], "victim from 100 us, % of alone", 0, lines["steady"][1])
    s.line(lines["victim"][0], "victim whole run, % of alone", 3, lines["victim"][1])
    s.line(lines["nscc"][0], "senders' Jain x 100 (nscc)", 1, lines["nscc"][1])
    s.line(lines["uec"][0], "senders' Jain x 100 (uec)", 2, lines["uec"][1])
    s.marks([(7, 100)], "paper: 7 -> 1 victim untouched")
    s.xticks([(n, str(n)) for n in ns])
    s.save(out and out / "incast.svg")

    # 6. The two controllers where they differ: ECMP-hashed EVs.
    for cc in ("nscc", "uec"):
        rs = runs(tool, *perm, "--routing", "ecmp", "--cc", cc)
        rows.append((f"permutation, ECMP EVs, {cc}",
                     f"slowest {spread([100 * g / mean(solo) for g in slowest(rs)])} %",
                     f"median {spread([100 * r['goodput_gbps']['median'] / mean(solo) for r in rs])}"
                     " % of line"))

    # 7. Collectives and open-loop traffic. All-to-all: every host sends
    # 256 KiB to each of the 31 others at once; its rate is each host's
    # 31 x 256 KiB over the time the last byte took, against the line (one
    # flow alone). The engines' initial window (1.5 BDP, the default) is the
    # lever: 31 first windows at once overflow every receiver's downlinks.
    a2a = ["--pattern", "alltoall", "--msg-kb", "256", "--msgs", "1"]
    a2a_bits = 31 * 256 * 1024 * 8

    def a2a_pct(rs):
        return [100 * a2a_bits / r["completion_us"] / 1e3 / mean(solo) for r in rs]

    groups = []
    for name, extra in (("SRv6 paths", []), ("ECMP EVs", ["--routing", "ecmp"]),
                        ("one path", ["--single-path"]),
                        ("SRv6, 64 KiB 1st wnd", ["--init-wnd-kb", "64"])):
        rs = runs(tool, *a2a, *extra)
        v = a2a_pct(rs)
        groups.append((name, mean(v)))
        rows.append((f"all-to-all 256 KiB, {name}", f"{spread(v)} % of line per host",
                     f"{spread([r['trims'] for r in rs])} trims, "
                     f"{sum(r['timeouts'] for r in rs)} timeouts"))
    # Ring all-reduce of 32 MiB per host over a ring whose every hop
    # crosses the spines: NCCL's bus bandwidth against the line.
    ring = ["--pattern", "ring", "--msg-kb", str(32 * 1024)]
    for name, extra in (("SRv6 paths", []), ("ECMP EVs", ["--routing", "ecmp"]),
                        ("one path", ["--single-path"])):
        rs = runs(tool, *ring, *extra)
        v = [100 * r["busbw_gbps"] / mean(solo) for r in rs]
        groups.append((f"ring, {name}", mean(v)))
        rows.append((f"ring all-reduce 32 MiB, {name}", f"bus bandwidth {spread(v)} % of line",
                     f"{sum(r['timeouts'] for r in rs)} timeouts"))
    s = Svg("Collectives, 32 hosts x 8 planes", "", "% of line rate per host", 7, 100)
    short = {"SRv6 paths": "SRv6", "ECMP EVs": "ECMP", "one path": "1 path",
             "SRv6, 64 KiB 1st wnd": "64K wnd"}
    s.bars([(("ring " if n.startswith("ring, ") else "a2a ") + short[n.removeprefix("ring, ")],
             [v]) for n, v in groups], ["all-to-all 256 KiB / ring all-reduce (mean of seeds)"])
    s.save(out and out / "collectives.svg")
    # Open loop: 64 KiB messages to random hosts, Poisson arrivals at a share
    # of each host's line rate for 200 us; completion time over the
    # message's alone on an idle fabric (line rate + 4 hops).
    loads = [0.2, 0.4, 0.6, 0.8]
    p50, p99 = ([], []), ([], [])
    for load in loads:
        rs = runs(tool, "--pattern", "openloop", "--msg-kb", "64", "--load", str(load),
                  "--duration-us", "200")
        for acc, key in ((p50, "p50"), (p99, "p99")):
            v = [r["slowdown"][key] for r in rs]
            acc[0].append((load * 100, mean(v)))
            acc[1].append((min(v), max(v)))
        rows.append((f"open loop 64 KiB, load {load * 100:.0f} %",
                     f"slowdown p50 {spread([r['slowdown']['p50'] for r in rs], 1)}, "
                     f"p99 {spread([r['slowdown']['p99'] for r in rs], 1)}",
                     f"{sum(r['timeouts'] for r in rs)} timeouts"))
    s = Svg("Open-loop 64 KiB messages: completion time", "offered load (% of line)",
            "x the message alone", 100, 12)
    s.line(p50[0], "median", 0, p50[1])
    s.line(p99[0], "99th percentile", 1, p99[1])
    s.xticks([(x * 100, f"{x * 100:.0f}") for x in loads])
    s.save(out and out / "openloop.svg")

    return rows


def table(header, rows):
    """Print @rows under @header as an RST simple table."""
    widths = [max(len(r[k]) for r in [header] + rows) for k in range(len(header))]
    sep = " ".join("=" * w for w in widths)
    print(sep)
    print(" ".join(c.ljust(w) for c, w in zip(header, widths)).rstrip())
    print(sep)
    for r in rows:
        print(" ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
    print(sep)


def main():
    global SEEDS, CC
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    tool, out = sys.argv[1], Path(sys.argv[2])
    if len(sys.argv) == 4:
        SEEDS = int(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    rows = experiments(tool, out)
    missing = set(PAPER) - {r[0] for r in rows}
    if missing:
        sys.exit(f"fabric_plots: no row for the paper's {sorted(missing)}")
    print(f"{SEEDS} seeds each: mean [min-max]")
    print()
    table(("experiment", "result", "detail", "the paper"),
          [r + (PAPER.get(r[0], "-"),) for r in rows])
    # The same experiments with UEC's NSCC: where each controller earns its
    # place. Rows that name their controller are the same in both passes.
    CC = ["--cc", "uec"]
    uec = {r[0]: r for r in experiments(tool, None)}
    print()
    table(("experiment", "nscc (the default)", "uec"),
          [(r[0], r[1], uec[r[0]][1]) for r in rows
           if not r[0].endswith((", nscc", ", uec"))])


if __name__ == "__main__":
    main()
