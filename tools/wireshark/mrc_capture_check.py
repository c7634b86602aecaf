#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Decode an MRC capture with tshark and our dissector, and judge it.

  mrc_capture_check.py [--need KIND,KIND...] [--need-icrc KIND,...] [--min N]
                       [--check-sacks] [--sender ADDR] CAPTURE.pcap

Every UDP/4791 packet must decode as MRC (mrc.kind present), with no
malformed packet and no expert error of the dissector, every ICRC valid (the
dissector's Lua CRC and, independently, scripts/mrc_icrc.py, which reads
every MRC packet itself, reassembling fragments, and must read as many as
tshark; one mismatch fails; --need-icrc names its packet kinds that must
be among them), with --check-sacks every SACK's public SETH offsets
matching the data PSNs it acknowledges (scripts/mrc_icrc.py), the data PSNs
of every QP complete (no PSN missing between the first and the last seen),
the first transmissions of the data --sender sent (the capture host's own)
in order per QP (reordering of up to REORDER PSNs is tolerated: two CPUs
may hand packets of one connection to the devices concurrently), data
ECN-capable in every IPv6 header (ECT(0), or CE if a switch marked it) and
control packets Not-ECT, and each
header kind in --need seen at least once. Prints a one-line summary and the
counts per kind; exits 1 on any failure.
"""
import argparse
import collections
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import mrc_icrc  # noqa: E402

FIELDS = ["frame.number", "udp.dstport", "mrc.kind", "mrc.icrc.ok", "mrc.bth.destqp",
          "mrc.bth.psn", "mrc.bth.rtx", "_ws.malformed", "_ws.expert.severity",
          "_ws.expert.message", "mrc.encap", "ipv6.src", "ipv6.tclass.ecn", "mrc.ep.op"]
REORDER = 512
MASK = 0xFFFFFF


def tshark_rows(pcap):
    cmd = ["tshark", "-n", "-o", "udp.try_heuristic_first:TRUE",
           "-X", "lua_script:" + os.path.join(HERE, "mrc.lua"), "-r", pcap,
           "-Y", "udp.port == 4791", "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=|"]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True)
    if "Lua" in out.stderr and "rror" in out.stderr:
        raise SystemExit("tshark: Lua error: " + out.stderr.strip())
    for line in out.stdout.splitlines():
        cols = line.split("\t")
        cols += [""] * (len(FIELDS) - len(cols))
        yield dict(zip(FIELDS, cols))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--need", default="data,sack", help="header kinds that must appear")
    ap.add_argument("--need-icrc", default="", help="kinds of scripts/mrc_icrc.py "
                    "(data-rtx, flowcell-last, ...) whose ICRC must be checked")
    ap.add_argument("--check-sacks", action="store_true", help="every SACK must match "
                    "data of the capture (a capture of whole connections)")
    ap.add_argument("--min", type=int, default=1, help="fewest MRC packets")
    ap.add_argument("--sender", default="", help="inner source address of the capture host")
    ap.add_argument("pcap")
    a = ap.parse_args()

    kinds = collections.Counter()
    errors = []
    last_psn = {}
    psns = collections.defaultdict(set)
    reordered = 0
    n = 0
    for r in tshark_rows(a.pcap):
        n += 1
        fr = r["frame.number"]
        if not r["mrc.kind"]:
            errors.append(f"frame {fr}: not decoded as MRC")
            continue
        kinds[r["mrc.kind"]] += 1
        # Endpoint packets of op EV_PROBE (1) as kinds of their own.
        if r["mrc.kind"] in ("erth", "eeth") and r["mrc.ep.op"] == "1":
            kinds[r["mrc.kind"] + "-ev-probe"] += 1
        if r["_ws.malformed"]:
            errors.append(f"frame {fr}: malformed")
        sev = [s for s in r["_ws.expert.severity"].split("|") if s]
        msgs = r["_ws.expert.message"].split("|")
        for s, m in zip(sev, msgs):
            # 8388608 = PI_ERROR, 6291456 = PI_WARN
            if int(s, 0) >= 6291456 and ("MRC" in m or "ICRC" in m or "Reserved" in m or
                                         "malformed" in m.lower()):
                errors.append(f"frame {fr}: {m}")
        if r["mrc.icrc.ok"] not in ("True", "1"):
            errors.append(f"frame {fr}: ICRC not valid ({r['mrc.icrc.ok']!r})")
        ecn = [int(e, 0) for e in r["ipv6.tclass.ecn"].split("|") if e]
        if r["mrc.kind"] == "data" and (not ecn or any(e not in (2, 3) for e in ecn)):
            errors.append(f"frame {fr}: data not ECT(0)/CE: ECN {ecn}")
        if r["mrc.kind"] != "data" and any(e != 0 for e in ecn):
            errors.append(f"frame {fr}: {r['mrc.kind']} not Not-ECT: ECN {ecn}")
        if r["mrc.kind"] == "data":
            qp = r["mrc.bth.destqp"]
            psn = int(r["mrc.bth.psn"])
            psns[qp].add(psn)
            src = r["ipv6.src"].split("|")[-1]
            if r["mrc.bth.rtx"] in ("False", "0") and (not a.sender or src == a.sender):
                # signed distance to the highest PSN sent so far
                if qp in last_psn:
                    d = ((psn - last_psn[qp] + (1 << 23)) & MASK) - (1 << 23)
                    if d <= 0:
                        reordered += 1
                    if d <= -REORDER or d == 0:
                        errors.append(f"frame {fr}: QP {qp} first transmission of PSN {psn} "
                                      f"after {last_psn[qp]}")
                    if d > 0:
                        last_psn[qp] = psn
                else:
                    last_psn[qp] = psn
    for qp, s in psns.items():
        first = next(iter(s))
        rel = sorted(((p - first + (1 << 23)) & MASK) - (1 << 23) for p in s)
        missing = rel[-1] - rel[0] + 1 - len(rel)
        if missing:
            errors.append(f"QP {qp}: {missing} PSNs missing between the first and last seen")
    if n < a.min:
        errors.append(f"only {n} MRC packets (want >= {a.min})")
    for k in [k for k in a.need.split(",") if k]:
        if not kinds[k]:
            errors.append(f"no {k} packet")
    # The independent check: every MRC packet's ICRC by the RoCEv2 rule over
    # the headers it was captured with, counted per kind (opcode, rtx, the
    # segments of flowcells and their last ones, encapsulation, fragments),
    # and every SACK read with the public SETH offsets.
    rep = {}
    rc = mrc_icrc.check_pcap(a.pcap, report=rep)
    if rc:
        errors.append("scripts/mrc_icrc.py: %d of %d packets with a wrong ICRC, "
                      "%d other errors" % (sum(1 for p in rep["packets"] if not p.ok),
                                            len(rep["packets"]), len(rep["errors"])))
    if len(rep["packets"]) != n:
        errors.append(f"scripts/mrc_icrc.py read {len(rep['packets'])} MRC packets, "
                      f"tshark {n}")
    if a.check_sacks and rep["sack_errors"]:
        errors.append(f"{len(rep['sack_errors'])} of {rep['sacks']} SACKs do not match "
                      "the data they acknowledge (public SETH offsets)")
    for k in [k for k in a.need_icrc.split(",") if k]:
        if not rep["kinds"][k]:
            errors.append(f"no {k} packet for the ICRC check")
    print(f"capture: {n} MRC packets, " +
          ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())) +
          f", {len(psns)} data QPs, {reordered} first transmissions reordered, "
          f"{len(errors)} errors")
    for e in errors[:20]:
        print("  " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
