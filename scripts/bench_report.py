#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Assemble the report of `make bench` from build/bench/raw.

Reads the mrcperf reports the guest wrote (raw/SCENARIO-COLUMN.json, with
.planes and .events beside them) and meta.json, and writes:

  results.json  every report, plus derived figures per cell (capacity,
                fraction of it, failure phases, MRC's header ceiling), the
                failover timeline's summary (tracefs, raw/silent-mrc.trace),
                in the schema of Documentation/networking/mrc-bench.schema.json
  results.txt   the side-by-side table (also printed)
  *.dat, *.gp   gnuplot inputs of the plots (bench.sh runs gnuplot)

Cells that BENCH_CELLS left out (meta.json cells_skipped) are reported as
{"ok": false, "error": "not run", "skipped": true}, "not run" in the table.

The fi_pingpong cell (raw/fi_pingpong-EP-SIZE-COL.json, written by the
guest from fi_pingpong's output, not mrcperf reports) goes to results.json's
fi_pingpong: "EP-SIZE" -> column (tcp: libfabric's tcp provider, mrc: our
provider mrc) -> the runs' figures and their median, min and max.

  bench_report.py RAW_DIR OUT_DIR [--schema FILE] [--smoke]

--schema validates results.json (python3-jsonschema). --smoke also checks
that every scenario and column is present, that every cell of the
scenarios without a failure in them succeeded, and that every shaped cell
has a payload per shaper byte in (0, 1); the exit status says so.
"""
import argparse
import json
import os
import re
import statistics
import sys

BULK_COLS = ["tcp", "tcpx4", "mptcp", "mrc", "mrc-usid", "mrc-fo0"]
LAT_COLS = ["tcp", "mptcp", "mrc-ip", "mrc"]
COL_TITLE = {
    "tcp": "tcp (1 path)",
    "tcpx4": "tcp x4 (1/plane)",
    "mptcp": "mptcp (4 subflows)",
    "mrc": "mrc (srh, sprayed)",
    "mrc-usid": "mrc (usid, sprayed)",
    "mrc-fo0": "mrc (srh, failover=0)",
    "mrc-ip": "mrc (plain IPv6)",
}
# Scenarios with an mrc-usid column (bench-guest.sh's usid_scenarios).
USID_SCENARIOS = ["unshaped", "shaped", "gray", "silent", "planedown"]
# Scenarios with an mrc-fo0 column: the SRH route with net.mrc.failover=0,
# the engine's failover rules off, in the same boot (bench-guest.sh's
# fo0_scenarios): what the rules buy, and what they cost at random loss.
FO0_SCENARIOS = ["shaped", "loss0.1", "loss1", "gray", "silent", "planedown"]
# BENCH_CELLS names (bench-guest.sh's all_cells) of the scenarios that are
# not cells of their own name.
CELL_OF = {"telemetry-detached": "telemetry", "telemetry-attached": "telemetry",
           "burst1-unshaped": "burst1", "burst1-shaped": "burst1"}
# The recovery window: goodput must hold 80 % of the target over this many
# seconds of consecutive bins (Documentation/networking/mrc-bench.rst).
RECOVER_WINDOW_S = 0.05
# MRC's wire layout (kmod/mrc_output.c mrc_encap_len(), kmod/mrc_conn_k.c
# mrc_mtu_for(), kmod/core/mrc_wire.h): bytes in front of the inner IPv6
# header per encapsulation (srh: outer IPv6 + SRH of 4 SIDs; usid: outer
# IPv6 only), the per-packet headers behind it (IPv6 40, UDP 8, BTH 12,
# METH 4, TSETH 4, RETH 16, ICRC 4), and what mrc_mtu_for() reserves
# (IPv6, UDP, the largest header stack with ImmDt, ICRC, 3 for padding).
MRC_ENCAP_LEN = {"mrc": 40 + 8 + 4 * 16, "mrc-usid": 40}
MRC_PKT_HDRS = 40 + 8 + 12 + 4 + 4 + 16 + 4
MRC_MTU_RESERVE = 40 + 8 + (12 + 4 + 4 + 16 + 4) + 4 + 3
ETH_HDR = 14
# Scenarios whose every cell must succeed in the smoke run: no failure is
# injected into them, so a failed cell is a broken transport or tool.
MUST_SUCCEED = ["unshaped", "shaped", "loss0.1", "loss1", "pingpong", "rpc",
                "burst1-unshaped", "burst1-shaped"]
# Failure scenarios: a transport may legitimately stall there (TCP whose
# only path crossed the cut link), so a failed cell is a result.
SERIES = ["silent", "planedown"]
# The fi_pingpong cell (bench-guest.sh's fi_pingpong_cell): libfabric's
# fi_pingpong between hA and hB over libfabric's own tcp provider (column
# tcp: hB's plane-0 address, one path) and over our provider mrc (column
# mrc: AF_MRC over the SRH route, sprayed); MSG endpoints and RDM through
# ofi_rxm; 64 B for latency (usec/xfer), 1 MiB for bandwidth (MB/sec).
FI_ROWS = [("msg", 64), ("msg", 1048576), ("rdm", 64), ("rdm", 1048576)]
FI_COLS = ["tcp", "mrc"]
FI_COL_TITLE = {"tcp": "tcp (libfabric tcp)", "mrc": "mrc (libfabric mrc)"}


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


def cell_of(sc):
    """The BENCH_CELLS name that runs scenario sc."""
    if sc.startswith("unshaped-j") or sc.startswith("shaped-j"):
        return "jumbo"
    return CELL_OF.get(sc, sc)


def skipped(meta, sc):
    return cell_of(sc) in (meta.get("cells_skipped") or [])


def bulk_cols(sc):
    return [c for c in BULK_COLS if (c != "mrc-usid" or sc in USID_SCENARIOS) and
            (c != "mrc-fo0" or sc in FO0_SCENARIOS)]


def scenarios(meta):
    bulk = ["unshaped", "shaped", "loss0.1", "loss1", "gray"]
    j = meta.get("jumbo_mtu", 0)
    if j:
        bulk += ["unshaped-j%d" % j, "shaped-j%d" % j]
    out = {s: bulk_cols(s) for s in bulk}
    out.update({s: bulk_cols(s) for s in SERIES})
    out.update({s: LAT_COLS for s in ["pingpong", "rpc"]})
    out["loaded"] = ["tcp", "mptcp", "mrc"]
    if meta.get("telemetry") == "measured" or skipped(meta, "telemetry-detached"):
        out["telemetry-detached"] = ["mrc"]
        out["telemetry-attached"] = ["mrc"]
    if meta.get("burst1") == "measured" or skipped(meta, "burst1-unshaped"):
        out["burst1-unshaped"] = ["mrc"]
        out["burst1-shaped"] = ["mrc"]
    return out


def mrc_header_ceiling(col, mtu, msg):
    """Payload over the bytes on the wire (Ethernet frames, as tbf counts
    them) of one msg-byte message of MRC over the route of col at mtu:
    full packets of mrc_mtu_for()'s payload, then the rest."""
    enc = MRC_ENCAP_LEN.get(col)
    if enc is None or not msg:
        return None
    pay = (mtu - enc - MRC_MTU_RESERVE) & ~3
    over = ETH_HDR + enc + MRC_PKT_HDRS
    full, rest = divmod(msg, pay)
    wire = full * (pay + over) + (rest + over if rest else 0)
    return msg / wire


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

    # Before: from 1 s after the start (the ramp left out) when the failure
    # comes later than 2 s, else from the start, to the failure.
    lo = 1.0 if down > 2.0 else 0.0
    before = mean([m for t, m in bins if t - width >= lo - 1e-9 and t <= down + 1e-9])
    # Bins wholly inside the outage (t_s is a bin's end).
    during_bins = [(t, m) for t, m in bins if t - width >= down - 1e-9 and t <= up + 1e-9]
    during = mean([m for _, m in during_bins])
    after = mean([m for t, m in bins if t - width >= up + 1.0])
    rate = meta["rate_per_plane_mbps"]
    left = rate * (meta["planes"] - 1) if sc == "planedown" else rate * meta["planes"]
    # Recovery: from the failure to the END of the first window of
    # consecutive bins, RECOVER_WINDOW_S long, wholly inside the outage,
    # whose mean goodput is at least 80 % of min(rate before, capacity
    # left); one lucky bin cannot fake it. The first single bin at 80 % is
    # kept beside it (recover_first_bin_s, the definition before 10 ms bins).
    target = 0.8 * min(before, left) if before > 0 else None
    k = max(1, int(round(RECOVER_WINDOW_S / width)))
    recover = first_bin = None
    if target:
        for t, m in during_bins:
            if m >= target:
                first_bin = round(t - down, 3)
                break
        for i in range(len(during_bins) - k + 1):
            if mean([m for _, m in during_bins[i:i + k]]) >= target:
                recover = round(during_bins[i + k - 1][0] - down, 3)
                break
    # Time near zero: the outage cut into consecutive windows of the same
    # 50 ms from the failure on; those whose mean is below 10 % of the rate
    # before. Single 10 ms bins are often 0 while the client waits for a
    # CPU under TCG, and the next bin holds their bytes.
    near_zero = sum(k * width for i in range(0, len(during_bins) - k + 1, k)
                    if before > 0 and mean([m for _, m in during_bins[i:i + k]]) < 0.1 * before)
    return {
        "down_s": round(down, 3),
        "down_done_s": round((ev["down_done"] - start) / 1000.0, 3) if "down_done" in ev else None,
        "up_s": round(up, 3),
        "bin_s": round(width, 4),
        "recover_window_s": round(k * width, 4),
        "recover_target_mbps": target,
        "before_mbps": before,
        "during_mbps": during,
        "after_mbps": after,
        "capacity_left_mbps": left,
        "during_fraction_of_capacity_left": during / left if left else None,
        "during_fraction_of_before": during / before if before > 0 else None,
        "recover_s": recover,
        "recover_first_bin_s": first_bin,
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
            if skipped(meta, sc):
                tests.setdefault(sc, {})[col] = {
                    "ok": False, "error": "not run", "skipped": True,
                    "derived": {"capacity_mbps": capacity(meta, sc, col)}}
                continue
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
            if col in MRC_ENCAP_LEN and cap and cell.get("mode") == "bulk":
                mtu = meta.get("jumbo_mtu") if sc.endswith("-j%s" % meta.get("jumbo_mtu")) \
                    else meta.get("mtu", 1500)
                size = (cell.get("params") or {}).get("size")
                hc = mrc_header_ceiling(col, mtu, size) if isinstance(size, int) else None
                if hc is not None:
                    derived["header_ceiling"] = hc
            if sc in SERIES and cell.get("ok"):
                try:
                    derived["phases"] = phases(cell, meta, sc)
                except (TypeError, KeyError, ValueError):
                    derived["phases"] = None  # malformed series: the schema says why
            cell["derived"] = derived
            tests.setdefault(sc, {})[col] = cell
    return {"meta": meta, "tests": tests, "fi_pingpong": assemble_fi(raw, meta)}


def fi_key(ep, size):
    return "%s-%d" % (ep, size)


def fi_spread(xs):
    return {"count": len(xs), "median": statistics.median(xs), "min": min(xs),
            "max": max(xs), "mean": statistics.fmean(xs)}


def assemble_fi(raw, meta):
    """results.json's fi_pingpong: one cell per row (endpoint, size) and
    column, from raw/fi_pingpong-EP-SIZE-COL.json; a cell with ok true has
    every run's figures and their spread, any other says why (never a
    figure)."""
    out = {}
    for ep, size in FI_ROWS:
        for col in FI_COLS:
            if skipped(meta, "fi_pingpong"):
                cell = {"ok": False, "error": "not run", "skipped": True}
            else:
                path = os.path.join(raw, "fi_pingpong-%s-%d-%s.json" % (ep, size, col))
                cell = load_json(path) if os.path.exists(path) else {"ok": False, "error": "not run"}
                if not isinstance(cell, dict):
                    cell = {"ok": False, "error": "report is not a JSON object"}
            if cell.get("ok"):
                runs = cell.get("runs") or []
                try:
                    cell["summary"] = {k: fi_spread([float(r[k]) for r in runs])
                                       for k in ("usec_per_xfer", "mb_per_s")}
                except (KeyError, TypeError, ValueError, statistics.StatisticsError) as e:
                    cell = dict(cell, ok=False, error="unusable runs in the report: %s" % e)
                    cell.pop("summary", None)
            elif not isinstance(cell.get("error"), str):
                cell["error"] = "no result"
            out.setdefault(fi_key(ep, size), {})[col] = cell
    return out


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
    if cell.get("skipped"):
        return "not run"
    return "failed: " + str(cell.get("error", "no result"))[:40]


def table(res):
    meta, tests = res["meta"], res["tests"]
    rows = []

    def row(name, sc, cols, fn):
        r = [name]
        for c in BULK_COLS if cols is None else cols:
            cell = tests.get(sc, {}).get(c)
            if cell is None:
                r.append("n/a" if c in scenarios(meta).get(sc, BULK_COLS) else "")
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

    def ceiling(cell):
        v = cell["derived"].get("header_ceiling")
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
            row("  MRC header ceiling (64 KiB msgs)", sc, None, ceiling)
            row("  bytes per plane", sc, None, planes)
    j = meta.get("jumbo_mtu", 0)
    if j:
        row("MTU %d unshaped, Mbit/s" % j, "unshaped-j%d" % j, None, gp)
        row("  CPU-us per MB", "unshaped-j%d" % j, None, sd)
        row("MTU %d shaped, Mbit/s" % j, "shaped-j%d" % j, None, gp)
        row("  of %g Mbit/s" % agg, "shaped-j%d" % j, None, frac)
        row("  payload per byte through tbf", "shaped-j%d" % j, None, ppb)
        row("  MRC header ceiling (64 KiB msgs)", "shaped-j%d" % j, None, ceiling)
    for sc, title in [("silent", "silent spine cut (carrier up)"),
                      ("planedown", "plane 0 down (carrier loss)")]:
        def ph(cell, k):
            p = cell["derived"].get("phases")
            return "-" if not p else p[k]
        row(title + ": before/during/after", sc, None,
            lambda c: "%s / %s / %s" % (f1(ph(c, "before_mbps")), f1(ph(c, "during_mbps")),
                                        f1(ph(c, "after_mbps"))))
        row("  during / before", sc, None,
            lambda c: "-" if ph(c, "during_fraction_of_before") in (None, "-")
            else "%.2f" % ph(c, "during_fraction_of_before"))
        row("  during, of capacity left", sc, None,
            lambda c: "-" if ph(c, "during_fraction_of_capacity_left") in (None, "-")
            else "%.0f%% of %g" % (100 * ph(c, "during_fraction_of_capacity_left"),
                                    ph(c, "capacity_left_mbps")))
        # Issue 48's measure: the rate during the outage against the same
        # column's clean shaped rate (median) scaled to the capacity left,
        # so that the header ceiling of each encapsulation cancels out.
        r = ["  during, of clean shaped scaled"]
        for col in BULK_COLS:
            cell = tests.get(sc, {}).get(col)
            clean = tests.get("shaped", {}).get(col)
            cs = (clean or {}).get("summary", {}).get("goodput_mbps") or {}
            d = ph(cell, "during_mbps") if cell and cell.get("ok") else None
            left = ph(cell, "capacity_left_mbps") if cell and cell.get("ok") else None
            if d in (None, "-") or left in (None, "-") or not cs.get("median"):
                r.append("" if cell is None else "-")
            else:
                r.append("%.2f" % (d / (cs["median"] * left / agg)))
        rows.append(r)

        def rec(c, k):
            v = ph(c, k)
            return "never" if v is None else "-" if v == "-" else "%.3f" % v
        row("  recovered: 80% held 50 ms, s", sc, None, lambda c: rec(c, "recover_s"))
        row("  first bin at 80% / near 0, s", sc, None,
            lambda c: "%s / %s" % (rec(c, "recover_first_bin_s"), ph(c, "near_zero_s")))
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
    fi = res.get("fi_pingpong") or {}
    fi_run = fi and not skipped(meta, "fi_pingpong")
    fim = meta.get("fi_pingpong") or {}
    rows.append(["fi_pingpong (libfabric%s)%s" % (
        " %s" % fim["libfabric"] if fim.get("libfabric") else "",
        ", %s / %s iterations" % (fim["iterations_64"], fim["iterations_1m"])
        if "iterations_64" in fim and "iterations_1m" in fim else "")] +
        [FI_COL_TITLE[c] for c in FI_COLS])
    for ep, size in FI_ROWS:
        key = "usec_per_xfer" if size == 64 else "mb_per_s"
        r = ["fi_pingpong %s %s, %s" % (
            "msg" if ep == "msg" else "rdm (ofi_rxm)",
            "64 B" if size == 64 else "1 MiB", "usec/xfer" if size == 64 else "MB/s")]
        for col in FI_COLS:
            cell = fi.get(fi_key(ep, size), {}).get(col)
            if cell is None:
                r.append("n/a")
            elif not cell.get("ok"):
                r.append(failed(cell))
            else:
                sm = cell["summary"][key]
                r.append("%.1f (%.1f-%.1f)" % (sm["median"], sm["min"], sm["max"])
                         if sm["count"] > 1 else "%.1f" % sm["median"])
        rows.append(r)
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

    ncol = max(len(r) for r in rows)
    w = [max(len(r[i]) for r in rows if i < len(r)) for i in range(ncol)]
    bin_s = next((c["derived"]["phases"]["bin_s"] for sc in SERIES
                  for c in tests.get(sc, {}).values()
                  if (c.get("derived") or {}).get("phases")), None)
    lines = [
        "MRC benchmark (%s profile): 2 hosts x 4 planes x 2 spines, tbf %s per plane "
        "uplink, MTU %d%s, %s under QEMU TCG, %d vCPUs; %d run(s) per cell, %gs each after "
        "%gs warm-up; median (min-max)" % (
            meta["profile"], meta["rate_per_plane"], meta["mtu"],
            " and %d" % j if j else "", meta["kernel"], meta["cpus"], meta["repeat"],
            meta["duration_s"], meta["omit_s"]),
        "mrc: " + (meta["mrc_unavailable"] or "AF_MRC over an mrcctl SRH route, 4 planes x 2 spines") +
        "; mrc-usid: " + (meta.get("mrc_usid_unavailable") or
                          "the same over the uSID route (outer IPv6 only, no SRH)"),
        "MRC header ceiling: payload over the frame bytes tbf counts, 64 KiB messages at the "
        "MTU: srh %.3f, usid %.3f at %d" % (
            mrc_header_ceiling("mrc", meta["mtu"], 65536),
            mrc_header_ceiling("mrc-usid", meta["mtu"], 65536), meta["mtu"]),
        "failure series: %s bins; recovered = failure to the end of the first %g ms of "
        "consecutive bins averaging >= 80%% of min(before, capacity left)" % (
            "%g ms" % (1000 * bin_s) if bin_s else "-", 1000 * RECOVER_WINDOW_S),
        "CPU-us per MB: busy CPU time of the whole guest (both ends, forwarding) per MB moved",
        "SACKs per MB: the MRC sender's MRC_INFO mi_rx_sacks over the bytes it sent",
    ]
    if fi_run:
        lines.append(
            "fi_pingpong (libfabric-bin): usec/xfer = its time / (2 x iterations), half a round "
            "trip; MB/s = the bytes of both directions / its time (10^6 B/s); tcp: libfabric's "
            "tcp provider to hB's plane-0 address (1 path); mrc: provider mrc (lib/fi_mrc) over "
            "AF_MRC, SRH route, sprayed; rdm: ofi_rxm over each; %s s in the guest" %
            fim.get("seconds", "?"))
    lines.append("")
    for r in rows:
        lines.append(" | ".join(r[i].ljust(w[i]) for i in range(len(r))).rstrip())
    fails = ["  %s %s, %s: %s" % (ep, "64 B" if size == 64 else "1 MiB", col, cell.get("error"))
             for ep, size in FI_ROWS for col, cell in fi.get(fi_key(ep, size), {}).items()
             if not cell.get("ok") and not cell.get("skipped")]
    if fails and fi_run:
        lines += ["", "fi_pingpong failures, in full:"] + fails
    if meta.get("cells_skipped"):
        lines += ["", "not run (BENCH_CELLS): " + ", ".join(meta["cells_skipped"])]
    tl = res.get("timeline", {}).get("silent")
    if tl:
        lines += ["", "failover timeline (MRC srh, silent cut): %s; %s" % (
            tl.get("svg"), tl.get("summary", ""))]
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
                for t, m, avg in smoothed(cell["intervals"]):
                    f.write("%g %g %g\n" % (t, m, avg))
            cols.append(c)
        if not cols:
            continue
        ph = next((res["tests"][sc][c]["derived"]["phases"] for c in cols
                   if res["tests"][sc][c]["derived"].get("phases")), None)
        gp = ["set terminal svg size 900,480 dynamic font 'sans,12'",
              "set output '%s'" % os.path.join(out, sc + ".svg"),
              "set title '%s'" % title,
              "set xlabel 'time (s)'; set ylabel 'goodput (Mbit/s, %s)'" % smooth_label(
                  res["tests"][sc][cols[0]]["intervals"]),
              "set yrange [0:*]; set grid; set key outside right top"]
        if ph:
            gp.append("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb 'red'" %
                      (ph["down_s"], ph["down_s"]))
            gp.append("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb 'dark-green'" %
                      (ph["up_s"], ph["up_s"]))
        gp.append("plot " + ", ".join(
            "'%s' using 1:3 with lines lw 2 title '%s'" %
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
    path = timeline_plot(res, out)
    if path:
        scripts.append(path)
    return scripts


def smoothed(intervals):
    """(t, Mbit/s of the bin, mean of the RECOVER_WINDOW_S ending there)."""
    iv = [(s["t_s"], s["mbps"]) for s in intervals]
    width = iv[1][0] - iv[0][0] if len(iv) > 1 else 0.2
    k = max(1, int(round(RECOVER_WINDOW_S / width)))
    out = []
    for i, (t, m) in enumerate(iv):
        w = [x for _, x in iv[max(0, i - k + 1):i + 1]]
        out.append((t, m, sum(w) / len(w)))
    return out


def smooth_label(intervals):
    width = intervals[1]["t_s"] - intervals[0]["t_s"] if len(intervals) > 1 else 0.2
    k = max(1, int(round(RECOVER_WINDOW_S / width)))
    if k == 1:
        return "%g ms bins" % round(1000 * width, 3)
    return "mean of %g ms, %g ms bins" % (round(1000 * k * width, 3), round(1000 * width, 3))


# ---- the failover timeline: the mrc:* tracepoints of one MRC silent run.
TRACE_LINE = re.compile(r"\s(\d+\.\d+):\s+(\w+):\s(.*)$")
EV_STATES = ["good", "skip", "assumed_bad", "denied"]


def parse_trace(path):
    """[(t_trace_s, event, fields dict, text)] of a tracefs trace file."""
    evs = []
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("#"):
                continue
            m = TRACE_LINE.search(line)
            if not m:
                continue
            ts, name, text = float(m.group(1)), m.group(2), m.group(3)
            fields = dict(kv.split("=", 1) for kv in text.split() if "=" in kv)
            evs.append((ts, name, fields, text))
    return evs


def timeline(raw, res, sc="silent", col="mrc"):
    """The timeline of raw/SC-COL.trace on mrcperf's clock (seconds since its
    start_unix_ms): per-bin timeouts and probes, EVs per state over time
    (final counts from MRC_INFO, walked back through the transitions), and
    a few derived times. None without a usable trace."""
    path = os.path.join(raw, "%s-%s.trace" % (sc, col))
    cell = res["tests"].get(sc, {}).get(col, {})
    if not os.path.exists(path) or not cell.get("ok"):
        return None
    evs = parse_trace(path)
    sync = [(ts, int(text.split()[1])) for ts, name, _, text in evs
            if name == "tracing_mark_write" and text.startswith("bench_sync ")]
    start = cell.get("result", {}).get("start_unix_ms")
    tl = {"trace": os.path.relpath(path, os.path.dirname(raw)), "events": {}, "usable": False}
    try:
        with open(path + ".stats") as f:
            stats = f.read()
        tl["overrun"] = sum(int(x.split(":")[1]) for x in stats.split() if x.startswith("overrun:"))
    except (OSError, ValueError, IndexError):
        pass
    if not sync or start is None:
        tl["error"] = "no bench_sync marker or no start time"
        return tl
    off = sync[0][1] / 1e9 - sync[0][0] - start / 1000.0   # trace ts -> mrcperf t
    for _, name, _, _ in evs:
        if name.startswith("mrc_"):
            tl["events"][name] = tl["events"].get(name, 0) + 1
    info = cell.get("transport_info", {})
    final = {"good": info.get("ev_good"), "skip": info.get("ev_skip"),
             "assumed_bad": info.get("ev_bad"), "denied": 0}
    trans = []
    for ts, name, fl, text in evs:
        if name != "mrc_ev_state":
            continue
        m = re.search(r"\s(\w+)->(\w+)\s", " " + text + " ")
        if m and m.group(1) in EV_STATES and m.group(2) in EV_STATES:
            trans.append((ts + off, m.group(1), m.group(2), fl.get("cause", "")))
    net = dict.fromkeys(EV_STATES, 0)
    for _, a, b, _ in trans:
        net[a] -= 1
        net[b] += 1
    if None in final.values():
        # No MRC_INFO: assume every EV GOOD at the start, as many as needed.
        init = dict.fromkeys(EV_STATES, 0)
        cur = dict.fromkeys(EV_STATES, 0)
        for _, a, b, _ in trans:
            cur[a] -= 1
            cur[b] += 1
            init[a] = max(init[a], -cur[a])
        tl["ev_counts_from"] = "transitions only (no MRC_INFO EV counts)"
    else:
        init = {k: final[k] - net[k] for k in EV_STATES}
        tl["ev_counts_from"] = "MRC_INFO's final counts walked back through the transitions"
    tl["ev_initial"] = init
    tl["ev_total"] = sum(init.values())
    tl["ev_final"] = final
    down = up = None
    for ts, name, _, text in evs:
        if name == "tracing_mark_write":
            w = text.split()
            if w[0] == "bench_down" and len(w) > 1:
                down = int(w[1]) / 1e9 - start / 1000.0
            elif w[0] == "bench_up" and len(w) > 1:
                up = int(w[1]) / 1e9 - start / 1000.0
    ph = cell.get("derived", {}).get("phases") or {}
    down = ph.get("down_s", down)
    up = ph.get("up_s", up)
    tl["down_s"], tl["up_s"] = down, up
    rtos = sorted(ts + off for ts, name, _, _ in evs if name == "mrc_rto")
    probes = sorted(ts + off for ts, name, _, text in evs
                    if name == "mrc_probe" and " sent " in " %s " % text)
    tl["rto_times"] = rtos
    tl["probe_times"] = probes
    # The window as the RTT samples saw it (bytes at each sample).
    tl["cwnd"] = [(ts + off, int(fl["cwnd"]), int(fl.get("inflight", 0)))
                  for ts, name, fl, _ in evs if name == "mrc_rtt" and "cwnd" in fl]
    tl["transitions"] = trans
    if down is not None:
        bad = [t for t, _, b, _ in trans if b == "assumed_bad" and t >= down]
        tl["first_assumed_bad_after_down_s"] = round(bad[0] - down, 4) if bad else None
        tl["timeouts_before_first_assumed_bad"] = (
            sum(1 for t in rtos if down <= t < bad[0]) if bad else None)
        win = [t for t in rtos if down <= t < (up if up is not None else 1e9)]
        tl["timeouts_during"] = len(win)
        tl["last_timeout_after_down_s"] = round(win[-1] - down, 4) if win else None
        cur = dict(init)
        peak, peak_t = 0, None
        for t, a, b, _ in trans:
            cur[a] -= 1
            cur[b] += 1
            if down <= t and (up is None or t < up) and cur["assumed_bad"] > peak:
                peak, peak_t = cur["assumed_bad"], t
        tl["assumed_bad_peak"] = peak
        tl["assumed_bad_peak_after_down_s"] = round(peak_t - down, 4) if peak_t else None
    tl["usable"] = True
    return tl


def write_timeline(raw, res, out):
    """results.json's timeline.silent (without the per-event lists) and the
    .dat files timeline_plot() draws."""
    tl = timeline(raw, res)
    if not tl:
        return
    top = os.path.dirname(os.path.dirname(os.path.abspath(out)))
    tl["svg"] = os.path.relpath(os.path.join(os.path.abspath(out), "timeline-silent.svg"), top)
    if tl["usable"]:
        cell = res["tests"]["silent"]["mrc"]
        iv = cell.get("intervals") or []
        width = iv[1]["t_s"] - iv[0]["t_s"] if len(iv) > 1 else 0.01
        tl["bin_s"] = round(width, 4)
        with open(os.path.join(out, "timeline-goodput.dat"), "w") as f:
            for t, m, avg in smoothed(iv):
                f.write("%g %g %g\n" % (t, m, avg))
        cur = dict(tl["ev_initial"])
        with open(os.path.join(out, "timeline-evs.dat"), "w") as f:
            f.write("0 %s\n" % " ".join(str(cur[k]) for k in EV_STATES))
            for t, a, b, _ in tl["transitions"]:
                cur[a] -= 1
                cur[b] += 1
                f.write("%.6f %s\n" % (t, " ".join(str(cur[k]) for k in EV_STATES)))
            f.write("%g %s\n" % (res["meta"].get("series_s", 12),
                                  " ".join(str(cur[k]) for k in EV_STATES)))
        n = int(round(res["meta"].get("series_s", 12) / width)) + 1
        cnt = [[0, 0] for _ in range(n)]
        for j, key in enumerate(("rto_times", "probe_times")):
            for t in tl[key]:
                i = int(t // width)
                if 0 <= i < n:
                    cnt[i][j] += 1
        with open(os.path.join(out, "timeline-timeouts.dat"), "w") as f:
            for i, (r, p) in enumerate(cnt):
                f.write("%g %d %d\n" % ((i + 0.5) * width, r, p))
        # cwnd and bytes in flight per bin: the mean of the RTT samples in
        # it (KiB), and the window's reaction per phase of the outage.
        acc = [[0, 0, 0] for _ in range(n)]
        for t, w, fl in tl["cwnd"]:
            i = int(t // width)
            if 0 <= i < n:
                acc[i][0] += w
                acc[i][1] += fl
                acc[i][2] += 1
        with open(os.path.join(out, "timeline-cwnd.dat"), "w") as f:
            for i, (w, fl, k) in enumerate(acc):
                if k:
                    f.write("%g %.1f %.1f\n" % ((i + 0.5) * width, w / k / 1024, fl / k / 1024))
        tl["cwnd_samples"] = len(tl["cwnd"])
        tl["cwnd_kib"] = cwnd_phases(tl)
        tl["summary"] = (
            "%d EVs; after the cut: first ASSUMED_BAD at %s s, %s timeouts before it, "
            "%s timeouts during the outage (last at %s s), at most %s EVs ASSUMED_BAD" % (
                tl["ev_total"], tl.get("first_assumed_bad_after_down_s"),
                tl.get("timeouts_before_first_assumed_bad"), tl.get("timeouts_during"),
                tl.get("last_timeout_after_down_s"), tl.get("assumed_bad_peak")))
        if tl.get("cwnd_kib"):
            c = tl["cwnd_kib"]
            tl["summary"] += ("; cwnd (KiB, mean of the RTT samples) before %s, first 100 ms "
                              "of the outage %s, rest of it %s, after the repair %s" % (
                                  c["before"], c["first_100ms"], c["rest_of_outage"], c["after"]))
    # The tracing's cost, roughly: the traced run's rate before the cut
    # against the untraced MRC planedown run's before its failure (same
    # series, same boot; another run, so within the runs' spread).
    pt = (res["tests"]["silent"]["mrc"].get("derived") or {}).get("phases") or {}
    pu = (res["tests"].get("planedown", {}).get("mrc", {}).get("derived") or {}).get("phases") or {}
    if pt.get("before_mbps") and pu.get("before_mbps"):
        tl["before_mbps_traced"] = pt["before_mbps"]
        tl["before_mbps_untraced_planedown"] = pu["before_mbps"]
    tl["events_per_s"] = round(sum(tl["events"].values()) / res["meta"].get("series_s", 12), 1)
    for k in ("rto_times", "probe_times", "transitions", "cwnd"):
        tl.pop(k, None)
    res["timeline"] = {"silent": tl}


def cwnd_phases(tl):
    """Mean cwnd (KiB) of the RTT samples before the cut, in the outage's
    first 100 ms, in the rest of the outage and after the repair: how the
    window took the failure, per phase."""
    down, up = tl.get("down_s"), tl.get("up_s")
    if down is None:
        return None
    end = up if up is not None else 1e9
    spans = {"before": (0, down), "first_100ms": (down, min(down + 0.1, end)),
             "rest_of_outage": (down + 0.1, end), "after": (end, 1e9)}
    out = {}
    for k, (a, b) in spans.items():
        v = [w for t, w, _ in tl["cwnd"] if a <= t < b]
        out[k] = round(sum(v) / len(v) / 1024, 1) if v else None
    return out


def timeline_plot(res, out):
    tl = res.get("timeline", {}).get("silent")
    if not tl or not tl.get("usable"):
        return None
    d = lambda n: os.path.join(out, n)
    ms = 1000 * tl["bin_s"]
    cw = tl.get("cwnd_samples")
    gp = ["set terminal svg size 900,%d dynamic font 'sans,12'" % (1050 if cw else 800),
          "set output '%s'" % d("timeline-silent.svg"),
          "set multiplot layout %d,1 title 'MRC (srh) failover: spine 0 of plane 0 cut from hB "
          "(silent), tracefs mrc:* of hA'" % (4 if cw else 3),
          "set grid; set key outside right top; set xrange [0:%g]" % res["meta"].get("series_s", 12),
          "set lmargin 10; set rmargin 28"]
    for k, c in (("down_s", "red"), ("up_s", "dark-green")):
        if tl.get(k) is not None:
            gp.append("set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lc rgb '%s'" %
                      (tl[k], tl[k], c))
    gp += ["set ylabel 'goodput (Mbit/s)'; set yrange [0:*]",
           "plot '%s' using 1:2 with steps lc rgb '#b0b0b0' title 'per %g ms', "
           "'' using 1:3 with lines lw 2 lc rgb 'blue' title 'mean of %g ms'" % (
               d("timeline-goodput.dat"), ms, 1000 * RECOVER_WINDOW_S),
           "set ylabel 'EVs'; set yrange [0:%d]" % (tl["ev_total"] + 1),
           "plot '%s' using 1:2 with steps lw 2 title 'GOOD', '' using 1:3 with steps lw 2 "
           "title 'SKIP', '' using 1:4 with steps lw 2 title 'ASSUMED\\_BAD'%s" % (
               d("timeline-evs.dat"),
               ", '' using 1:5 with steps lw 2 title 'DENIED'"
               if tl["ev_initial"].get("denied") or tl.get("ev_final", {}).get("denied") else ""),
           "set ylabel 'per %g ms'; set yrange [0:*]" % ms,
           "plot '%s' using 1:2 with impulses lw 2 lc rgb 'red' title 'timeouts (mrc\\_rto)', "
           "'' using 1:3 with impulses lc rgb 'dark-green' title 'probes sent (mrc\\_probe)'" %
           d("timeline-timeouts.dat")]
    if cw:
        gp += ["set ylabel 'KiB'; set yrange [0:*]",
               "plot '%s' using 1:2 with steps lw 2 lc rgb 'purple' title 'cwnd (mrc\\_rtt)', "
               "'' using 1:3 with steps lc rgb 'orange' title 'in flight'" % d("timeline-cwnd.dat")]
    gp.insert(len(gp) - 1, "set xlabel 'time (s)'")
    gp += ["unset multiplot"]
    path = d("timeline-silent.gp")
    with open(path, "w") as f:
        f.write("\n".join(gp) + "\n")
    return path


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
    for k, cols in (res.get("fi_pingpong") or {}).items():
        for c, cell in cols.items():
            if cell.get("error") == "not run":
                probs.append("fi_pingpong %s/%s: not run" % (k, c))
            elif not cell.get("ok"):
                probs.append("fi_pingpong %s/%s: failed: %s" % (k, c, cell.get("error")))
    meta = res["meta"]
    sil = res["tests"].get("silent", {}).get("mrc", {})
    tl = res.get("timeline", {}).get("silent") or {}
    if meta.get("series_trace") == 1 and sil.get("ok") and not tl.get("usable"):
        probs.append("silent/mrc: no failover timeline (%s)" %
                     tl.get("error", "no raw/silent-mrc.trace"))
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
    write_timeline(a.raw, res, a.out)
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
