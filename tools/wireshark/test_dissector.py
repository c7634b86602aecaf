#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Known-answer test of tools/wireshark/mrc.lua under tshark.

Writes pcaps of hand-assembled MRC 1.0 packets (the byte tables of
Documentation/networking/mrc-wire.rst, ICRCs from scripts/mrc_icrc.py) in
plain IPv6/UDP and in SRv6 (outer IPv6 + SRH + inner IPv6) and checks that
mrc_capture_check.py accepts them with every field as written, then that it
rejects each of: a broken ICRC, an undefined ERTH operation, a truncated
SETH, a wrong SETH header type, a data packet that is not ECN-capable. Exits 1 on the first mismatch.
"""
import ipaddress
import os
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "scripts"))
import mrc_icrc  # noqa: E402

SRC = ipaddress.IPv6Address("fd00::1").packed
DST = ipaddress.IPv6Address("fd00::2").packed
OUTER_S = ipaddress.IPv6Address("2001:db8:1::1").packed
SEGS = [ipaddress.IPv6Address(a).packed for a in ("fc00:1::e", "fc00:2::d6")]

PKTS = [  # (name, MRC bytes BTH..pad, without the ICRC)
    ("write", "CB30FFFF0000000790000010 00010002 00640001 0000000000000000 00000000"
              "00000005 DEADBEEF 68656C6C6F000000"),
    ("sack", "DC00FFFF0000000700000000 10A2FFFE89ABCDEF11112222 00 00FFFE 3A 40 FFFD"
             "8000000000000001 4321 7FFF D5 123456"),
    ("nack", "DD00FFFF0000000700000005 20 00 0B 7E 00010002 0102 0304 00 000001 F1 00 A5A5"),
    ("probe", "DE00FFFF0000000700000000 30 00 00 5C CAFE 0000 0A0B 0C0D 0E0F 8001"),
    ("connreq", "D800FFFF0000000200000102 4F 83 00 10 00000000 00000000 0A0B 0001"
                "1234 5678 0000AB 00 000000 00 0007 0000 123456 00 00100000"),
    ("connresp", "D900FFFF0000000200000102 50 30 00 10 5678 1234 0000CD 00 0000AB 00 0009"
                 "0007 654321 00 00100000 0A0B 000000000000"),
    ("portstatus", "D800FFFF0000000200000005 40 00 00 00 000000FF 00000000 1357 0001"),
]


def frame(mrc_hex, sport, srh=False, icrc_xor=0, data_ecn=0x02):
    mrc = bytes.fromhex(mrc_hex.replace(" ", ""))
    crc = mrc_icrc.icrc_ip6(SRC, DST, sport, 4791, mrc) ^ icrc_xor
    mrc += mrc_icrc.wire(crc)
    udp = struct.pack(">HHHH", sport, 4791, 8 + len(mrc), 0) + mrc
    flow = 0x02345  # EV bits 31-16 = 0x2345: plane 0x23
    if 0xC6 <= mrc[0] <= 0xCB:
        flow |= data_ecn << 20  # data is ECT(0), inner and outer
    ip6 = struct.pack(">IHBB", 0x60000000 | flow, len(udp), 17, 64) + SRC + DST + udp
    if srh:
        n = len(SEGS)
        sh = struct.pack(">BBBBBBH", 41, 2 * n, 4, n - 1, n - 1, 0, 0)
        sh += b"".join(reversed(SEGS))
        ip6 = struct.pack(">IHBB", 0x60000000 | flow, len(sh) + len(ip6), 43, 64) + \
            OUTER_S + SEGS[0] + sh + ip6
    return b"\x02" * 6 + b"\x04" * 6 + b"\x86\xdd" + ip6


def write_pcap(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for i, fr in enumerate(frames):
            f.write(struct.pack("<IIII", i, 0, len(fr), len(fr)) + fr)


def check(pcap, need, expect_ok):
    r = subprocess.run([sys.executable, os.path.join(HERE, "mrc_capture_check.py"), "--need",
                        need, pcap], capture_output=True, text=True)
    print(r.stdout.strip())
    if (r.returncode == 0) != expect_ok:
        print(f"FAIL: {pcap}: expected {'pass' if expect_ok else 'rejection'}", r.stderr)
        sys.exit(1)


def fields(pcap, names):
    cmd = ["tshark", "-n", "-o", "udp.try_heuristic_first:TRUE",
           "-X", "lua_script:" + os.path.join(HERE, "mrc.lua"), "-r", pcap,
           "-T", "fields", "-E", "separator=\t", "-E", "occurrence=f"]
    for n in names:
        cmd += ["-e", n]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def main():
    d = tempfile.mkdtemp(prefix="mrc-ws-")
    good = os.path.join(d, "good.pcap")
    # source port 4307 belongs to another protocol in Wireshark's port table
    frames = [frame(h, 4307 if i == 0 else 0xC123 + i) for i, (_, h) in enumerate(PKTS)]
    # the same packets through SRv6; the data packet is the next PSN
    frames += [frame(h.replace("90000010", "90000011"), 0xD000 + i, srh=True)
               for i, (_, h) in enumerate(PKTS)]
    write_pcap(good, frames)
    check(good, "data,sack,nack,probe,erth,eeth", True)
    # field values as written in the byte tables
    want = {
        "mrc.kind": ["data", "sack", "nack", "probe", "erth", "eeth", "erth"],
        "mrc.sack.sack_offset": ["", "-3", "", "", "", "", ""],
        "mrc.sack.m": ["", "1", "", "", "", "", ""],
        "mrc.nack.reason": ["", "", "0x0b", "", "", "", ""],
        "mrc.probe.id": ["", "", "", "51966", "", "", ""],
        "mrc.hs.kind": ["", "", "", "", "0x10", "0x10", ""],
        "mrc.hs.src_qpn": ["", "", "", "", "0x0000ab", "0x0000cd", ""],
        "mrc.ep.port_mask": ["", "", "", "", "0x00000000", "", "0x000000ff"],
        "mrc.cc.restore_cwnd": ["", "True", "", "", "", "", ""],
    }
    names = list(want)
    rows = fields(good, names + ["mrc.encap"])
    for i, row in enumerate(rows):
        for j, n in enumerate(names):
            w = want[n][i % len(PKTS)]
            if row[j] != w and not (w == "True" and row[j] == "1"):
                print(f"FAIL: frame {i + 1} {n} = {row[j]!r}, want {w!r}")
                sys.exit(1)
        enc = row[len(names)]
        if (i >= len(PKTS)) != enc.startswith("SRv6 SRH"):
            print(f"FAIL: frame {i + 1} encapsulation {enc!r}")
            sys.exit(1)
    print("dissector: field values as written (plain and SRH-encapsulated)")
    bad = {
        "icrc": [frame(PKTS[1][1], 0xC200, icrc_xor=1)],
        "erth_op2": [frame(PKTS[6][1].replace("40 00 00 00", "40 02 00 00"), 0xC201)],
        "sack_trunc": [frame(PKTS[1][1][:-6], 0xC202)],
        "seth_type": [frame(PKTS[1][1].replace("10A2FFFE", "20A2FFFE"), 0xC203)],
        "data_not_ect": [frame(PKTS[0][1], 0xC204, data_ecn=0)],
    }
    for name, frs in bad.items():
        p = os.path.join(d, name + ".pcap")
        write_pcap(p, frs)
        check(p, "", False)
    print("dissector: every broken packet rejected")
    return 0


if __name__ == "__main__":
    sys.exit(main())
