#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Reproduce the MRC paper's fabric experiments with mrcfabric and plot them.

    fabric_plots.py MRCFABRIC OUTDIR

Runs every scenario (deterministic: same seed, same figures), writes one SVG
per experiment into OUTDIR and prints the figures as an RST table on stdout.
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


def run(tool, *args):
    out = subprocess.run([tool, *BASE, *args], capture_output=True, text=True, check=False)
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

    def line(self, pts, label, i):
        c = COLOURS[i % len(COLOURS)]
        path = " ".join(f"{self.px(x):.1f},{self.py(y):.1f}" for x, y in pts)
        self.add(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"/>')
        for x, y in pts:
            self.add(f'<circle cx="{self.px(x):.1f}" cy="{self.py(y):.1f}" r="3" fill="{c}"/>')
        self.legend.append((label, c))

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
        for i, (label, c) in enumerate(self.legend):
            y = self.T + 14 + 16 * i
            x = self.W - self.R - 190
            self.add(f'<rect x="{x}" y="{y - 9}" width="12" height="10" fill="{c}"/>')
            self.text(x + 18, y, label)
        body = "\n".join(self.parts)
        Path(path).write_text(
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.W}" height="{self.H}" '
            f'font-family="sans-serif">\n{body}\n</svg>\n')


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    tool, out = sys.argv[1], Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    rows = []
    one = ["--pattern", "incast", "--incast", "0", "--msgs", "64"]  # one flow, 64 MiB

    # 1. Loss sweep: share of the loss-free goodput kept. (The single-path
    # baseline recovers selectively too, so it is not RoCE under loss: it
    # is left out of this plot rather than shown flattering RoCE.)
    losses = [0, 0.001, 0.002, 0.005, 0.01]
    mrc = []
    mrc_line = run(tool, *one)["goodput_gbps"]["min"]
    base_line = run(tool, *one, "--single-path")["goodput_gbps"]["min"]
    for p in losses:
        r = run(tool, *one, "--loss", str(p))
        m = r["goodput_gbps"]["min"]
        mrc.append(100 * m / mrc_line)
        rows.append((f"loss {p * 100:g} %", f"{m:.0f} Gb/s ({mrc[-1]:.0f} % kept)",
                     f"{r['lost']} lost, {r['timeouts']} timeouts"))
    s = Svg("Goodput under random loss (one flow, 8 x 100G)", "loss per T0-T1 link (%)",
            "% of loss-free goodput", 1.0, 100)
    s.line([(p * 100, v) for p, v in zip(losses, mrc)], "MRC, 8 planes, SRv6", 0)
    s.xticks([(p * 100, f"{p * 100:g}") for p in losses])
    s.save(out / "loss.svg")

    # 2. One NIC port of eight down at 50 us, announced and silent.
    ok = run(tool, *one)
    ann = run(tool, *one, "--fail", "nic:3:31@50")
    sil = run(tool, *one, "--fail", "nic:3:31@50:silent")
    kept = [100 * r["goodput_gbps"]["min"] / ok["goodput_gbps"]["min"] for r in (ann, sil)]
    rows.append(("NIC port 1 of 8 down", f"announced {kept[0]:.1f} % kept, "
                 f"{ann['timeouts']} timeouts", f"silent {kept[1]:.1f} % kept, "
                 f"{sil['timeouts']} timeouts"))

    # 2b. A gray path: one T0-T1 link of host 31's T0 loses 20 %.
    gray = run(tool, *one, "--link-loss", "0:7:1:0.2")
    rows.append(("one path losing 20 %", f"{100 * gray['goodput_gbps']['min'] / mrc_line:.1f} %"
                 " kept", f"{gray['lost']} packets lost, {gray['timeouts']} timeouts"))

    # 3. Fabric failures under a permutation: a T0-T1 link, a whole T1.
    perm = ["--pattern", "permutation", "--msgs", "16"]
    p_ok = run(tool, *perm)
    p_link = run(tool, *perm, "--fail", "link:0:0:0@20")
    p_t1 = run(tool, *perm, "--fail", "t1:0:0@20")
    p_dead = run(tool, *perm, "--fail", "t1:0:0@0")
    rows.append(("startup with a dead T1 (plane 0)",
                 f"{p_dead['drops'] / p_dead['flows']:.1f} packets lost per QP",
                 f"slowest flow {p_dead['goodput_gbps']['min']:.0f} Gb/s, "
                 f"{p_dead['timeouts']} timeouts"))
    for name, r in (("T0-T1 link down", p_link), ("T1 switch down", p_t1)):
        rows.append((name, f"slowest flow {r['goodput_gbps']['min']:.0f} Gb/s "
                     f"(none: {p_ok['goodput_gbps']['min']:.0f})",
                     f"median {r['goodput_gbps']['median']:.0f}, {r['timeouts']} timeouts"))
    s = Svg("Failures: share of goodput kept", "", "% of the failure-free run", 4, 100)
    s.bars([("NIC port (ann.)", [kept[0]]), ("NIC port (silent)", [kept[1]]),
            ("T0-T1 link", [100 * p_link["goodput_gbps"]["min"] / p_ok["goodput_gbps"]["min"]]),
            ("T1 switch", [100 * p_t1["goodput_gbps"]["min"] / p_ok["goodput_gbps"]["min"]])],
           ["slowest affected flow"])
    s.save(out / "failures.svg")

    # 4. Permutation: every flow's goodput, sorted.
    series = [("MRC, SRv6 paths", []), ("MRC, ECMP-hashed EVs", ["--routing", "ecmp"]),
              ("one hashed path x 8 (RoCE-like)", ["--single-path"])]
    s = Svg("Permutation, 32 hosts: every flow's share", "flows, slowest first",
            "% of its line rate", 32, 125)
    for i, (name, extra) in enumerate(series):
        r = run(tool, *perm, *extra)
        vals = sorted(r["flow_gbps"])
        ref = mrc_line if "--single-path" not in extra else base_line
        pts = [(k + 1, 100 * v / ref) for k, v in enumerate(vals)]
        s.line(pts, name, i)
        rows.append((f"permutation, {name}", f"slowest {pts[0][1]:.0f} %",
                     f"median {pts[len(pts) // 2][1]:.0f} % of line (Jain "
                     f"{r['goodput_gbps']['jain']:.3f})"))
    s.save(out / "permutation.svg")

    # 5. 7 -> 1 incast and a victim; N -> 1 fairness.
    solo = run(tool, "--pattern", "incast", "--incast", "0", "--msgs", "32")["victim_gbps"]
    ns = [1, 2, 4, 7, 15]
    victim, fair = [], []
    for n in ns:
        r = run(tool, "--pattern", "incast", "--incast", str(n), "--msgs", "32")
        victim.append(100 * r["victim_gbps"] / solo)
        fair.append(r["incast_jain"] if n > 1 else 1.0)
        rows.append((f"{n} -> 1 incast", f"victim {r['victim_gbps']:.0f} Gb/s "
                     f"({victim[-1]:.0f} % of alone)", f"senders' Jain {fair[-1]:.3f}"))
    s = Svg("N -> 1 incast next to a victim flow", "incast senders N", "%", 16, 125)
    s.line([(n, v) for n, v in zip(ns, victim)], "victim goodput, % of alone", 0)
    s.line([(n, 100 * f) for n, f in zip(ns, fair)], "senders' Jain index x 100", 1)
    s.xticks([(n, str(n)) for n in ns])
    s.save(out / "incast.svg")

    width = max(len(c) for r in rows for c in r)
    sep = " ".join(["=" * width] * 3)
    print(sep)
    print(" ".join(c.ljust(width) for c in ("experiment", "result", "detail")).rstrip())
    print(sep)
    for r in rows:
        print(" ".join(c.ljust(width) for c in r).rstrip())
    print(sep)


if __name__ == "__main__":
    main()
