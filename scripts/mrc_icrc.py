#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Reference implementation of the MRC/RoCEv2 ICRC, independent of the C codec.

Written from the rule (IBTA Annex A17, as Documentation/networking/mrc-wire.rst
states it), with nothing but zlib.crc32: the CRC-32 of eight 0xff bytes (the
masked LRH), the IPv6 header in front of UDP with traffic class, flow label and
hop limit set to ones, the UDP header with checksum 0xffff, the BTH with byte 4
set to 0xff, and the rest of the packet up to the ICRC; stored least
significant byte first. Where RoCEv2 is silent the pseudo IPv6 header says
payload length = UDP length and next header = 17 (MRC's documented choice).

  mrc_icrc.py noip HEX            ICRC of MRC bytes (BTH..pad) with no IP
  mrc_icrc.py ip6 SRC DST SPORT DPORT HEX
  mrc_icrc.py pcap FILE           verify every MRC packet of a capture
"""
import ipaddress
import struct
import sys
import zlib


def _mask_bth(mrc: bytes) -> bytes:
    b = bytearray(mrc)
    if len(b) > 4:
        b[4] = 0xFF
    return bytes(b)


def icrc_noip(mrc: bytes) -> int:
    """ICRC of BTH..pad when no IP header carries the packet (masked LRH only)."""
    return zlib.crc32(b"\xff" * 8 + _mask_bth(mrc))


def icrc_ip6(src: bytes, dst: bytes, sport: int, dport: int, mrc: bytes) -> int:
    """ICRC of BTH..pad carried in IPv6/UDP (addresses 16 bytes each)."""
    ulen = 8 + len(mrc) + 4
    ip6 = b"\x6f\xff\xff\xff" + struct.pack(">HBB", ulen, 17, 0xFF) + src + dst
    udp = struct.pack(">HHHH", sport, dport, ulen, 0xFFFF)
    return zlib.crc32(b"\xff" * 8 + ip6 + udp + _mask_bth(mrc))


def wire(crc: int) -> bytes:
    """The four ICRC bytes as they go on the wire (least significant first)."""
    return struct.pack("<I", crc)


def _udp_in_ipv6(frame: bytes, off: int):
    """Walk IPv6 (and IPv6-in-IPv6, routing headers) to UDP/4791.

    Returns (inner IPv6 header offset, UDP offset) or None.
    """
    ip = None
    while off + 40 <= len(frame) and frame[off] >> 4 == 6:
        ip = off
        nh = frame[off + 6]
        off += 40
        while nh in (0, 43, 60):  # hop-by-hop, routing, destination options
            if off + 2 > len(frame):
                return None
            nh, hlen = frame[off], (frame[off + 1] + 1) * 8
            off += hlen
        if nh == 41:  # IPv6 in IPv6 (SRv6 H.Encaps): the inner header counts
            continue
        if nh == 17 and off + 8 <= len(frame):
            return ip, off
        return None
    return None


def check_pcap(path: str) -> int:
    """Verify every UDP/4791 packet of a pcap (Ethernet or Linux cooked)."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit(f"{path}: not a little-endian pcap file")
    linktype = struct.unpack("<I", data[20:24])[0]
    pos, n, bad = 24, 0, 0
    while pos + 16 <= len(data):
        incl = struct.unpack("<I", data[pos + 8:pos + 12])[0]
        frame = data[pos + 16:pos + 16 + incl]
        pos += 16 + incl
        l2 = {1: 14, 113: 16, 276: 20}.get(linktype)
        if l2 is None:
            raise SystemExit(f"unsupported link type {linktype}")
        hit = _udp_in_ipv6(frame, l2)
        if not hit:
            continue
        ip, u = hit
        sport, dport, ulen = struct.unpack(">HHH", frame[u:u + 6])
        if dport != 4791 or u + ulen > len(frame):
            continue
        mrc = frame[u + 8:u + ulen]
        n += 1
        got = mrc[-4:]
        want = wire(icrc_ip6(frame[ip + 8:ip + 24], frame[ip + 24:ip + 40],
                             sport, dport, mrc[:-4]))
        if got != want:
            bad += 1
    print(f"mrc_icrc: {n} MRC packets, {bad} ICRC errors")
    return 1 if bad or not n else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "noip":
        print(f"{icrc_noip(bytes.fromhex(argv[2])):08x}")
        return 0
    if len(argv) == 7 and argv[1] == "ip6":
        src = ipaddress.IPv6Address(argv[2]).packed
        dst = ipaddress.IPv6Address(argv[3]).packed
        crc = icrc_ip6(src, dst, int(argv[4], 0), int(argv[5], 0),
                       bytes.fromhex(argv[6]))
        print(f"{crc:08x}")
        return 0
    if len(argv) == 3 and argv[1] == "pcap":
        return check_pcap(argv[2])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
