#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assemble the report of `make bench` from build/bench/raw.

Reads the mrcperf reports the guest wrote (raw/SCENARIO-COLUMN.json, with
.planes and .events beside them) and meta.json, and writes:

  results.json  every report, plus derived figures per cell (capacity,
                fraction of it, failure phases), in the schema of
                Documentation/networking/mrc-bench.schema.json
  results.txt   the side-by-side table (also printed)
  *.dat, *.gp   gnuplot inputs of the plots (bench.sh runs gnuplot)

  bench_report.py RAW_DIR OUT_DIR [--schema FILE] [--smoke]

--schema validates results.json (python3-jsonschema). --smoke also checks
that every scenario and column is present, that every cell of the
scenarios without a failure in them succeeded, and that every shaped cell
has a payload per shaper byte in (0, 1); the exit status says so.
"""
import argparse
import json
import os
import statistics
import sys

BULK_COLS = ["tcp", "tcpx4", "mptcp", "mrc"]
LAT_COLS = ["tcp", "mptcp", "mrc-ip", "mrc"]
COL_TITLE = {
    "tcp": "tcp (1 path)",
    "tcpx4": "tcp x4 (1/plane)",
    "mptcp": "mptcp (4 subflows)",
    "mrc": "mrc (srh, sprayed)",
    "mrc-ip": "mrc (plain IPv6)",
}
# Scenarios whose every cell must succeed in the smoke run: no failure is
# injected into them, so a failed cell is a broken transport or tool.
MUST_SUCCEED = ["unshaped", "shaped", "loss0.1", "loss1", "pingpong", "rpc",
                "burst1-unshaped", "burst1-shaped"]
# Failure scenarios: a transport may legitimately stall there (TCP whose
# only path crossed the cut link), so a failed cell is a result.
SERIES = ["silent", "planedown"]


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        return {"ok": False, "error": "unreadable report %s: %s" % (os.path.basename(path), e)}


def read_events(path):
    ev = {}
    try:
        with open(path) as f:
            for line in f:
                k, v = line.split()
                ev[k] = int(v)
    except (OSError, ValueError):
        pass
    return ev


def scenarios(meta):
    bulk = ["unshaped", "shaped", "loss0.1", "loss1", "gray"]
    j = meta.get("jumbo_mtu", 0)
    if j:
        bulk += ["unshaped-j%d" % j, "shaped-j%d" % j]
    out = {s: BULK_COLS for s in bulk}
    out.update({s: BULK_COLS for s in SERIES})
    out.update({s: LAT_COLS for s in ["pingpong", "rpc"]})
    out["loaded"] = ["tcp", "mptcp", "mrc"]
    if meta.get("telemetry") == "measured":
        out["telemetry-detached"] = ["mrc"]
        out["telemetry-attached"] = ["mrc"]
    if meta.get("burst1") == "measured":
        out["burst1-unshaped"] = ["mrc"]
        out["burst1-shaped"] = ["mrc"]
    return out


def capacity(meta, sc, col):
    """Goodput the fabric allows a cell, Mbit/s; None when CPU-bound."""
    r = meta["rate_per_plane_mbps"] * meta["planes"]
    if sc.startswith("unshaped") or sc.startswith("telemetry") or sc == "burst1-unshaped":
        return None
    if sc in ("pingpong", "rpc", "loaded"):
        return None
    return r


def phases(cell, meta, sc):
    """Failure series: before / during / after, recovery, time near zero."""
    iv = cell.get("intervals") or []
    start = cell.get("result", {}).get("start_unix_ms")
    ev = cell.get("events", {})
    if not iv or start is None or "down" not in ev or "up" not in ev:
        return None
    down = (ev["down"] - start) / 1000.0
    up = (ev["up"] - start) / 1000.0
    bins = [(s["t_s"], s["mbps"]) for s in iv]
    width = bins[1][0] - bins[0][0] if len(bins) > 1 else 0.2

    def mean(xs):
        return statistics.fmean(xs) if xs else 0.0

    before = mean([m for t, m in bins if t <= down])
    during_bins = [(t, m) for t, m in bins if t - width >= down and t <= up]
    during = mean([m for _, m in during_bins])
    after = mean([m for t, m in bins if t - width >= up + 1.0])
    rate = meta["rate_per_plane_mbps"]
    left = rate * (meta["planes"] - 1) if sc == "planedown" else rate * meta["planes"]
    # Time to recover: from the failure to the first bin back at 80 % of the
    # rate before it (capped by what the fabric still allows).
    target = 0.8 * min(before, left) if before > 0 else None
    recover = None
    if target:
        for t, m in during_bins:
            if m >= target:
                recover = round(t - down, 3)
                break
    near_zero = sum(width for _, m in during_bins if before > 0 and m < 0.1 * before)
    return {
        "down_s": round(down, 3),
        "up_s": round(up, 3),
        "before_mbps": before,
        "during_mbps": during,
        "after_mbps": after,
        "capacity_left_mbps": left,
        "during_fraction_of_capacity_left": during / left if left else None,
        "recover_s": recover,
        "near_zero_s": round(near_zero, 3),
    }


def payload_per_shaper_byte(cell):
    """Payload the server received over the bytes hA's shapers sent (every
    frame, headers included) for the whole client run, warm-up and repeats
    included: what the headers and retransmissions leave of the wire."""
    wire = cell.get("shaper_tx_bytes")
    if not cell.get("ok") or not wire or wire <= 0:
        return None
    runs = cell.get("runs") or [cell]
    try:
        payload = sum(r["result"]["server_bytes"] for r in runs)
    except (KeyError, TypeError):
        return None
    return payload / wire


def assemble(raw, meta):
    tests = {}
    for sc, cols in scenarios(meta).items():
        for col in cols:
            base = os.path.join(raw, "%s-%s" % (sc, col))
            if not os.path.exists(base + ".json"):
                cell = {"ok": False, "error": "not run"}
            else:
                cell = load_json(base + ".json")
                if not isinstance(cell, dict):
                    cell = {"ok": False, "error": "report is not a JSON object"}
            try:
                with open(base + ".planes") as f:
                    cell["plane_tx_bytes"] = [int(x) for x in f.read().split()]
            except (OSError, ValueError):
                pass
            try:
                with open(base + ".shaper") as f:
                    cell["shaper_tx_bytes"] = int(f.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass
            ev = read_events(base + ".events")
            if ev:
                cell["events"] = ev
            cap = capacity(meta, sc, col)
            res = cell.get("result", {})
            derived = {"capacity_mbps": cap}
            g = res.get("goodput_mbps") if isinstance(res, dict) else None
            if cell.get("ok") and cap and isinstance(g, (int, float)):
                derived["fraction_of_capacity"] = g / cap
            ppb = payload_per_shaper_byte(cell)
            if ppb is not None:
                derived["payload_per_shaper_byte"] = ppb
            if sc in SERIES and cell.get("ok"):
                try:
                    derived["phases"] = phases(cell, meta, sc)
                except (TypeError, KeyError, ValueError):
                    derived["phases"] = None  # malformed series: the schema says why
            cell["derived"] = derived
            tests.setdefault(sc, {})[col] = cell
    return {"meta": meta, "tests": tests}


def f1(x):
    return "-" if x is None else "%.1f" % x


def spread(cell, key, fmt="%.1f"):
    """'median (min-max)' of a figure over the repeats, or the one value."""
    s = cell.get("summary", {}).get(key)
    if s and s.get("count", 0) > 1:
        return (fmt + " (" + fmt + "-" + fmt + ")") % (s["median"], s["min"], s["max"])
    if key == "service_demand_us_per_mb":
        v = cell.get("cpu", {}).get(key)
    else:
        v = cell.get("result", {}).get(key)
    return "-" if v is None else fmt % v


def failed(cell):
    return "failed: " + str(cell.get("error", "no result"))[:40]


def table(res):
    meta, tests = res["meta"], res["tests"]
    rows = []

    def row(name, sc, cols, fn):
        r = [name]
        for c in BULK_COLS if cols is None else cols:
            cell = tests.get(sc, {}).get(c)
            if cell is None:
                r.append("n/a")
            elif not cell.get("ok"):
                r.append(failed(cell))
            else:
                r.append(fn(cell))
        rows.append(r)

    def frac(cell):
        v = cell["derived"].get("fraction_of_capacity")
        return "-" if v is None else "%.0f%%" % (100 * v)

    def ppb(cell):
        v = cell["derived"].get("payload_per_shaper_byte")
        return "-" if v is None else "%.3f" % v

    def planes(cell):
        b = cell.get("plane_tx_bytes") or []
        s = sum(b)
        if not s:
            return "-"
        return "/".join("%d" % round(100 * x / s) for x in b) + "%"

    def gp(cell):
        return spread(cell, "goodput_mbps")

    def sd(cell):
        return spread(cell, "service_demand_us_per_mb", "%.0f")

    def sacks(cell):
        # MRC_INFO v5 of the median run: the SACKs its sender took over the
        # whole connection, per MB it sent (the warm-up included in both;
        # bench-profile counted TCP's ACKs at 16.3 per MB, 2026-11-30)
        got = cell.get("transport_info", {}).get("rx_sacks")
        mb = cell.get("result", {}).get("bytes_sent", 0) / 1e6
        return "-" if got is None or not mb else "%.1f" % (got / mb)

    def util(cell):
        cpu = cell.get("cpu", {})
        if not cpu.get("valid"):
            return "-"
        return "%.0f%% (busiest %.0f%%)" % (100 * cpu["utilisation"],
                                            100 * cpu["busiest_cpu_utilisation"])

    rate = meta["rate_per_plane_mbps"]
    agg = rate * meta["planes"]
    head = ["scenario"] + [COL_TITLE[c] for c in BULK_COLS]
    rows.append(head)
    for sc, title in [("unshaped", "unshaped (CPU-bound), Mbit/s"),
                      ("shaped", "shaped %g x 4 Mbit/s, Mbit/s" % rate),
                      ("loss0.1", "0.1%% loss, +%gms/hop, Mbit/s" % meta["loss_delay_ms_per_hop"]),
                      ("loss1", "1%% loss, +%gms/hop, Mbit/s" % meta["loss_delay_ms_per_hop"]),
                      ("gray", "gray: 1 spine drops 15%, Mbit/s")]:
        row(title, sc, None, gp)
        if sc == "unshaped":
            row("  CPU-us per MB", sc, None, sd)
            row("  CPU utilisation", sc, None, util)
            row("  SACKs per MB (MRC)", sc, None, sacks)
        else:
            row("  of %g Mbit/s" % agg, sc, None, frac)
            row("  CPU-us per MB", sc, None, sd)
        if sc == "shaped":
            row("  payload per byte through tbf", sc, None, ppb)
            row("  bytes per plane", sc, None, planes)
    j = meta.get("jumbo_mtu", 0)
    if j:
        row("MTU %d unshaped, Mbit/s" % j, "unshaped-j%d" % j, None, gp)
        row("  CPU-us per MB", "unshaped-j%d" % j, None, sd)
        row("MTU %d shaped, Mbit/s" % j, "shaped-j%d" % j, None, gp)
        row("  of %g Mbit/s" % agg, "shaped-j%d" % j, None, frac)
        row("  payload per byte through tbf", "shaped-j%d" % j, None, ppb)
    for sc, title in [("silent", "silent spine cut (carrier up)"),
                      ("planedown", "plane 0 down (carrier loss)")]:
        def ph(cell, k):
            p = cell["derived"].get("phases")
            return "-" if not p else p[k]
        row(title + ": before/during/after", sc, None,
            lambda c: "%s / %s / %s" % (f1(ph(c, "before_mbps")), f1(ph(c, "during_mbps")),
                                        f1(ph(c, "after_mbps"))))
        row("  during, of capacity left", sc, None,
            lambda c: "-" if ph(c, "during_fraction_of_capacity_left") in (None, "-")
            else "%.0f%% of %g" % (100 * ph(c, "during_fraction_of_capacity_left"),
                                    ph(c, "capacity_left_mbps")))
        row("  time to 80% / time near 0, s", sc, None,
            lambda c: "%s / %s" % ("never" if ph(c, "recover_s") is None else ph(c, "recover_s"),
                                   ph(c, "near_zero_s")))
    rows.append(["latency"] + [COL_TITLE[c] for c in LAT_COLS])
    lat = lambda k: (lambda c: "%.0f" % c["result"]["latency_us"][k])
    row("pingpong 64 B p50 us", "pingpong", LAT_COLS, lat("p50"))
    row("  p99 / p99.9 us", "pingpong", LAT_COLS,
        lambda c: "%.0f / %.0f" % (c["result"]["latency_us"]["p99"],
                                   c["result"]["latency_us"]["p999"]))
    row("  samples (median run)", "pingpong", LAT_COLS,
        lambda c: str(c["result"]["latency_us"]["count"]))
    row("rpc 256/4096 B x8, req/s", "rpc", LAT_COLS, lambda c: spread(c, "round_trips_per_s"))
    row("  p50 / p99 us", "rpc", LAT_COLS,
        lambda c: "%.0f / %.0f" % (c["result"]["latency_us"]["p50"],
                                   c["result"]["latency_us"]["p99"]))
    row("pingpong beside bulk (shaped), p50/p99 us", "loaded", LAT_COLS,
        lambda c: "%.0f / %.0f" % (c["result"]["latency_us"]["p50"],
                                   c["result"]["latency_us"]["p99"]))
    if meta.get("telemetry") == "measured":
        d = tests["telemetry-detached"]["mrc"]
        a = tests["telemetry-attached"]["mrc"]
        if d.get("ok") and a.get("ok"):
            rows.append(["telemetry detached -> attached", "", "", "",
                         "%s -> %s Mbit/s" % (gp(d), gp(a))])
    else:
        rows.append(["telemetry overhead", "", "", "", meta.get("telemetry", "")])
    # MRC 1.0's per-packet spraying (EV profile burst 1) beside the default
    # flowcells of the same boot: what spec-exact spraying costs.
    if meta.get("burst1") == "measured":
        bdef = {sc: tests.get(sc, {}).get("mrc", {}) for sc in ("unshaped", "shaped")}
        b1 = {sc: tests.get("burst1-" + sc, {}).get("mrc", {}) for sc in ("unshaped", "shaped")}

        def both(fn, sc):
            return "%s -> %s" % (fn(bdef[sc]) if bdef[sc].get("ok") else "failed",
                                 fn(b1[sc]) if b1[sc].get("ok") else failed(b1[sc]))
        label = "burst %s -> 1 (per-packet), unshaped Mbit/s" % (meta.get("burst") or "default")
        rows.append([label, "", "", "", both(gp, "unshaped")])
        rows.append(["  CPU-us per MB", "", "", "", both(sd, "unshaped")])
        rows.append(["  shaped, of %g Mbit/s" % agg, "", "", "", both(frac, "shaped")])
    else:
        rows.append(["burst 1 (per-packet spraying)", "", "", "", meta.get("burst1", "not measured")])

    w = [max(len(r[i]) for r in rows if i < len(r)) for i in range(5)]
    lines = [
        "MRC benchmark (%s profile): 2 hosts x 4 planes x 2 spines, tbf %s per plane "
        "uplink, MTU %d%s, %s under QEMU TCG, %d vCPUs; %d run(s) per cell, %gs each after "
        "%gs warm-up; median (min-max)" % (
            meta["profile"], meta["rate_per_plane"], meta["mtu"],
            " and %d" % j if j else "", meta["kernel"], meta["cpus"], meta["repeat"],
            meta["duration_s"], meta["omit_s"]),
        "mrc: " + (meta["mrc_unavailable"] or "AF_MRC over an mrcctl SRH route, 4 planes x 2 spines"),
        "CPU-us per MB: busy CPU time of the whole guest (both ends, forwarding) per MB moved",
        "SACKs per MB: the MRC sender's MRC_INFO mi_rx_sacks over the bytes it sent",
        "",
    ]
    for r in rows:
        lines.append(" | ".join(r[i].ljust(w[i]) for i in range(len(r))).rstrip())
    lines += ["", "bench time %s s; every figure in build/bench/results.json" %
              meta.get("bench_seconds")]
    return "\n".join(lines) + "\n"


def plots(res, out):
    """gnuplot inputs: one time series per failure scenario, one bar chart."""
    scripts = []
    for sc, title in [("silent", "spine 0 of plane 0 cut from hB (silent, carriers up)"),
                      ("planedown", "plane 0 down (carrier loss)")]:
        cols = []
        for c in BULK_COLS:
            cell = res["tests"].get(sc, {}).get(c, {})
            if not cell.get("ok") or not cell.get("intervals"):
                continue
            with open(os.path.join(out, "%s-%s.dat" % (sc, c)), "w") as f:
                for s in cell["intervals"]:
                    f.write("%g %g\n" % (s["t_s"], s["mbps"]))
            cols.append(c)
        if not cols:
            continue
        ph = next((res["tests"][sc][c]["derived"]["phases"] for c in cols
                   if res["tests"][sc][c]["derived"].get("phases")), None)
        gp = ["set terminal svg size 900,480 dynamic font 'sans,12'",
              "set output '%s'" % os.path.join(out, sc + ".svg"),
              "set title '%s'" % title,
              "set xlabel 'time (s)'; set ylabel 'goodput (Mbit/s, 200 ms bins)'",
              "set yrange [0:*]; set grid; set key outside right top"]
        if ph:
            gp.append("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb 'red'" %
                      (ph["down_s"], ph["down_s"]))
            gp.append("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb 'dark-green'" %
                      (ph["up_s"], ph["up_s"]))
        gp.append("plot " + ", ".join(
            "'%s' using 1:2 with lines lw 2 title '%s'" %
            (os.path.join(out, "%s-%s.dat" % (sc, c)), COL_TITLE[c]) for c in cols))
        path = os.path.join(out, sc + ".gp")
        with open(path, "w") as f:
            f.write("\n".join(gp) + "\n")
        scripts.append(path)
    # Goodput and CPU per transport, unshaped and shaped.
    with open(os.path.join(out, "cost.dat"), "w") as f:
        f.write("transport unshaped_mbps shaped_mbps unshaped_us_per_mb\n")
        for c in BULK_COLS:
            vals = []
            for sc in ("unshaped", "shaped"):
                cell = res["tests"].get("unshaped" if sc == "unshaped" else "shaped", {}).get(c, {})
                vals.append(cell.get("result", {}).get("goodput_mbps", 0) if cell.get("ok") else 0)
            cell = res["tests"].get("unshaped", {}).get(c, {})
            sdv = cell.get("cpu", {}).get("service_demand_us_per_mb", 0) if cell.get("ok") else 0
            f.write('"%s" %g %g %g\n' % (COL_TITLE[c], vals[0], vals[1], sdv))
    gp = ["set terminal svg size 900,480 dynamic font 'sans,12'",
          "set output '%s'" % os.path.join(out, "cost.svg"),
          "set multiplot layout 1,2",
          "set style data histograms; set style fill solid 0.8 border -1",
          "set boxwidth 0.8; set grid ytics; set yrange [0:*]; set xtics rotate by -20",
          "set title 'goodput (Mbit/s)'",
          "plot '%s' using 2:xtic(1) title 'unshaped', '' using 3 title 'shaped'" %
          os.path.join(out, "cost.dat"),
          "set title 'CPU-us per MB, unshaped (lower is better)'",
          "plot '%s' using 4:xtic(1) title 'service demand' lc rgb 'dark-red'" %
          os.path.join(out, "cost.dat"),
          "unset multiplot"]
    path = os.path.join(out, "cost.gp")
    with open(path, "w") as f:
        f.write("\n".join(gp) + "\n")
    scripts.append(path)
    return scripts


def smoke_problems(res):
    probs = []
    for sc, cols in scenarios(res["meta"]).items():
        for c in cols:
            cell = res["tests"].get(sc, {}).get(c)
            if cell is None or cell.get("error") == "not run":
                probs.append("%s/%s: not run" % (sc, c))
            elif sc in MUST_SUCCEED and not cell.get("ok"):
                probs.append("%s/%s: failed: %s" % (sc, c, cell.get("error")))
            elif cell.get("ok") and not cell.get("cpu", {}).get("valid"):
                probs.append("%s/%s: no CPU figures" % (sc, c))
            elif (cell.get("ok") and sc.startswith("shaped") and
                  not 0 < (cell["derived"].get("payload_per_shaper_byte") or 0) < 1):
                # Headers keep it below 1; above, the shapers' count missed
                # frames (a GSO skb counted once, a qdisc bypassed).
                probs.append("%s/%s: no payload per shaper byte (%s)" %
                             (sc, c, cell["derived"].get("payload_per_shaper_byte")))
    meta = res["meta"]
    if not meta.get("mrc_unavailable") and meta.get("burst1") != "measured":
        probs.append("burst1: %s" % meta.get("burst1", "not in meta.json"))
    return probs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("raw")
    ap.add_argument("out")
    ap.add_argument("--schema")
    ap.add_argument("--smoke", action="store_true")
    a = ap.parse_args()
    meta = load_json(os.path.join(a.raw, "meta.json"))
    if "rate_per_plane_mbps" not in meta:
        print("bench: no usable meta.json in %s" % a.raw, file=sys.stderr)
        return 1
    res = assemble(a.raw, meta)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(res, f, indent=1, sort_keys=True)
    rc = 0
    if a.schema:
        import jsonschema
        with open(a.schema) as f:
            schema = json.load(f)
        try:
            jsonschema.validate(res, schema)
            print("bench: results.json matches %s" % os.path.basename(a.schema))
        except jsonschema.ValidationError as e:
            print("bench: results.json does not match the schema: %s at %s" %
                  (e.message, "/".join(str(p) for p in e.absolute_path)), file=sys.stderr)
            return 1
    text = table(res)
    with open(os.path.join(a.out, "results.txt"), "w") as f:
        f.write(text)
    sys.stdout.write(text)
    with open(os.path.join(a.out, "plots.list"), "w") as f:
        f.write("\n".join(plots(res, a.out)) + "\n")
    if a.smoke:
        probs = smoke_problems(res)
        for p in probs:
            print("bench smoke: " + p, file=sys.stderr)
        if probs:
            rc = 1
        else:
            print("bench smoke: every scenario and column present, every clean cell ok")
    return rc


if __name__ == "__main__":
    sys.exit(main())
