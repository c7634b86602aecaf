#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR MIT
"""Reference implementation of the MRC/RoCEv2 ICRC, independent of the C codec.

Written from the RoCEv2 rule (IBTA Annex A17; Linux rdma_rxe, rxe_icrc.c),
not from mrc.ko: CRC-32 (crc32_le, seed ~0, final inversion; zlib.crc32 is
that function) over eight 0xff bytes (the masked LRH), the IP header that
carries the UDP header as it is on the wire (IPv6: traffic class, flow label
and hop limit set to ones, payload length, next header and addresses as
they are; IPv4: TOS, TTL and header checksum set to ones), the UDP header
with checksum 0xffff, the BTH with byte 4 set to 0xff, and every byte after
the BTH up to the ICRC; stored least significant byte first. Under SRv6
(IPv6 in IPv6, with or without a routing header) the covered header is the
inner one. A fragmented packet is checked once reassembled, with the header
reassembly gives it (as a receiver's UDP sees it).

  mrc_icrc.py noip HEX            ICRC of MRC bytes (BTH..pad) with no IP
  mrc_icrc.py ip6 SRC DST SPORT DPORT HEX
                                  ICRC of MRC bytes in an unfragmented
                                  IPv6/UDP datagram with no extension header
  mrc_icrc.py pcap [--list] FILE  verify every MRC packet of a capture, counts
                                  per packet kind (--list: one line a packet)
  mrc_icrc.py selftest            the known answers below

Known answers (selftest): a bit-by-bit CRC-32 written from the definition
(reflected polynomial 0xedb88320) agrees with zlib on the standard check
value and on rdma_rxe's LRH state 0xdebb20e3; the ICRC of a RoCEv2 CNP
captured from a Mellanox ConnectX-4 Lx (IPv4, published as a regression
vector in scapy's test/contrib/roce.uts) is reproduced byte for byte; the
IPv6 masking is checked field by field.
"""
import collections
import ipaddress
import struct
import sys
import zlib

UDP_PORT = 4791

OPCODES = {0xC6: "data", 0xC7: "data", 0xC8: "data", 0xC9: "data",
           0xCA: "data", 0xCB: "data", 0xD1: "ack", 0xD8: "erth",
           0xD9: "eeth", 0xDC: "sack", 0xDD: "nack", 0xDE: "probe"}
DATA_LAST = (0xC8, 0xC9, 0xCA, 0xCB)


def crc32_bitwise(data: bytes, crc: int = 0xFFFFFFFF) -> int:
    """CRC-32 state (no final inversion) from the definition, bit by bit."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc


def mask_ip6(hdr: bytes) -> bytes:
    """An IPv6 header (40 bytes) as the ICRC covers it."""
    b = bytearray(hdr[:40])
    b[0] = (b[0] & 0xF0) | 0x0F  # traffic class, high nibble
    b[1] = b[2] = b[3] = 0xFF    # traffic class low nibble, flow label
    b[7] = 0xFF                  # hop limit
    return bytes(b)


def mask_ip4(hdr: bytes) -> bytes:
    """An IPv4 header (20 bytes) as the ICRC covers it."""
    b = bytearray(hdr[:20])
    b[1] = 0xFF                  # TOS
    b[8] = 0xFF                  # TTL
    b[10] = b[11] = 0xFF         # header checksum
    return bytes(b)


def mask_udp(udp: bytes) -> bytes:
    b = bytearray(udp[:8])
    b[6] = b[7] = 0xFF
    return bytes(b)


def _mask_bth(mrc: bytes) -> bytes:
    b = bytearray(mrc)
    if len(b) > 4:
        b[4] = 0xFF
    return bytes(b)


def icrc(ip_masked: bytes, udp: bytes, mrc: bytes) -> int:
    """ICRC of BTH..pad (@mrc) behind the IP header @ip_masked and UDP @udp."""
    return zlib.crc32(b"\xff" * 8 + ip_masked + mask_udp(udp) + _mask_bth(mrc))


def icrc_noip(mrc: bytes) -> int:
    """ICRC of BTH..pad when no IP header carries the packet (masked LRH only)."""
    return zlib.crc32(b"\xff" * 8 + _mask_bth(mrc))


def icrc_ip6(src: bytes, dst: bytes, sport: int, dport: int, mrc: bytes) -> int:
    """ICRC of BTH..pad in an unfragmented IPv6/UDP datagram, no ext. header."""
    ulen = 8 + len(mrc) + 4
    ip6 = b"\x60\x00\x00\x00" + struct.pack(">HBB", ulen, 17, 64) + src + dst
    udp = struct.pack(">HHHH", sport, dport, ulen, 0)
    return icrc(mask_ip6(ip6), udp, mrc)


def wire(crc: int) -> bytes:
    """The four ICRC bytes as they go on the wire (least significant first)."""
    return struct.pack("<I", crc)


# A RoCEv2 CNP (IPv4) captured from a ConnectX-4 Lx, its ICRC at the end
# (scapy, test/contrib/roce.uts, "RoCE CNP captured on ConnectX-4 Lx").
CX4_CNP = bytes.fromhex(
    "e41d2dab2bc27cfe90643b32080045c2"
    "003c718c400040119161 0a0011010a00"
    "12010000 12b70028 0000 8100ffff4000"
    "0118 0000000000000000000000000000"
    "000000000000 82fd002a")


def selftest() -> int:
    ok = True

    def expect(what, got, want):
        nonlocal ok
        if got != want:
            ok = False
            print(f"selftest: {what}: got {got!r}, want {want!r}")

    expect("CRC-32 check value", crc32_bitwise(b"123456789") ^ 0xFFFFFFFF, 0xCBF43926)
    expect("zlib is crc32_le(~0) + inversion", zlib.crc32(b"123456789"), 0xCBF43926)
    expect("LRH state (rdma_rxe)", crc32_bitwise(b"\xff" * 8), 0xDEBB20E3)
    # The hardware vector, through icrc() and through the bitwise CRC.
    f = CX4_CNP
    ip, udp, mrc = f[14:34], f[34:42], f[42:-4]
    expect("ConnectX-4 Lx CNP ICRC", wire(icrc(mask_ip4(ip), udp, mrc)), f[-4:])
    bits = crc32_bitwise(b"\xff" * 8 + mask_ip4(ip) + mask_udp(udp) + _mask_bth(mrc))
    expect("ConnectX-4 Lx CNP ICRC (bitwise)", wire(bits ^ 0xFFFFFFFF), f[-4:])
    # IPv6 masking: version kept, traffic class / flow label / hop limit ones,
    # payload length, next header and addresses kept.
    h = bytes.fromhex("6a1abcde0040113f") + bytes(range(32))
    expect("IPv6 mask", mask_ip6(h),
           bytes.fromhex("6fffffff004011ff") + bytes(range(32)))
    # An MRC-sized IPv6 vector: the same bytes by hand, bitwise.
    src = ipaddress.IPv6Address("fd00::1").packed
    dst = ipaddress.IPv6Address("fd00::2").packed
    mrc = bytes.fromhex("dc0000000000002a000000010102030405060708")
    ulen = 8 + len(mrc) + 4
    hand = (b"\xff" * 8 + b"\x6f\xff\xff\xff" + struct.pack(">HBB", ulen, 17, 0xFF) +
            src + dst + struct.pack(">HHHH", 0xC123, UDP_PORT, ulen, 0xFFFF) +
            mrc[:4] + b"\xff" + mrc[5:])
    expect("IPv6 ICRC", icrc_ip6(src, dst, 0xC123, UDP_PORT, mrc),
           crc32_bitwise(hand) ^ 0xFFFFFFFF)
    print("mrc_icrc selftest: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


class Pkt:
    """One MRC packet of a capture (reassembled if it came in fragments)."""

    def __init__(self, frame_no, ip_masked, ip_raw, udp, mrc, encap, frag):
        self.frame = frame_no
        self.ip_raw = ip_raw
        self.udp = udp
        self.mrc = mrc
        self.encap = encap
        self.frag = frag
        self.ok = len(mrc) >= 16 and \
            wire(icrc(ip_masked, udp, mrc[:-4])) == mrc[-4:]

    def superframe(self):
        """If this wrong-ICRC datagram is a segmentation-offload super-frame
        (several MRC data packets behind one UDP header, as a host capture
        shows a flowcell before the device cuts it), the length of its first
        packet when that one carries a right ICRC at that length, else 0."""
        m = self.mrc
        if OPCODES.get(m[0]) != "data" or len(m) < 64:
            return 0
        nxt = ((_psn(self) + 1) & 0xFFFFFF).to_bytes(3, "big")
        for ln in range(16, len(m) - 16, 4):
            if m[ln + 9:ln + 12] != nxt or m[ln + 5:ln + 8] != m[5:8]:
                continue
            ulen = 8 + ln
            hdr = bytearray(self.ip_raw)
            hdr[4:6] = struct.pack(">H", ulen)
            udp = self.udp[:4] + struct.pack(">H", ulen) + self.udp[6:8]
            if wire(icrc(mask_ip6(hdr), udp, m[:ln - 4])) == m[ln - 4:ln]:
                return ln
        return 0

    def kinds(self):
        """The kinds this packet counts under (first one: its opcode's)."""
        op = self.mrc[0]
        k = OPCODES.get(op, f"op-{op:#04x}")
        out = [k]
        if k == "data":
            if self.mrc[8] & 0x20:
                out.append("data-rtx")
            if op in DATA_LAST:
                out.append("data-last")
            if (self.mrc[1] >> 4) & 3:
                out.append("data-pad")
        # ERTH op: byte 1 bits 1-0; EETH op: byte 1 bits 5-4 (1: EV_PROBE)
        if k == "erth" and len(self.mrc) > 14 and self.mrc[13] & 3 == 1:
            out.append("erth-ev-probe")
        if k == "eeth" and len(self.mrc) > 14 and (self.mrc[13] >> 4) & 3 == 1:
            out.append("eeth-ev-probe")
        if self.frag:
            out.append("fragmented")
        out.append("encap-" + self.encap)
        return out


def _frames(path: str):
    """(frame number, link-layer payload offset, bytes) of a pcap file."""
    data = open(path, "rb").read()
    if len(data) < 24:
        raise SystemExit(f"{path}: not a pcap file")
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        end = "<"
    elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
        end = ">"
    else:
        raise SystemExit(f"{path}: not a pcap file (pcapng is not read)")
    linktype = struct.unpack(end + "I", data[20:24])[0] & 0xFFFF
    l2 = {1: 14, 101: 0, 113: 16, 276: 20}.get(linktype)
    if l2 is None:
        raise SystemExit(f"unsupported link type {linktype}")
    pos, no = 24, 0
    while pos + 16 <= len(data):
        incl, orig = struct.unpack(end + "II", data[pos + 8:pos + 16])
        no += 1
        yield no, l2, data[pos + 16:pos + 16 + incl], incl < orig
        pos += 16 + incl


def _walk(frame: bytes, off: int):
    """Walk IPv6 (and IPv6 in IPv6, extension headers) to the transport.

    Returns (inner IPv6 header offset, next header, its offset, encap,
    fragment header offset or None), or None if no IPv6.
    """
    ip, encap, fragoff = None, "plain", None
    outer_srh = False
    while off + 40 <= len(frame) and frame[off] >> 4 == 6:
        if ip is not None:
            encap = "srh" if outer_srh else "usid"
        ip, fragoff = off, None
        nh = frame[off + 6]
        off += 40
        while nh in (0, 43, 44, 60):
            if off + 8 > len(frame):
                return None
            if nh == 43:
                outer_srh = True
            if nh == 44:
                fragoff = off
                nh, hlen = frame[off], 8
            else:
                nh, hlen = frame[off], (frame[off + 1] + 1) * 8
            off += hlen
            if fragoff is not None:
                break
        if nh == 41 and fragoff is None:
            continue
        return ip, nh, off, encap, fragoff
    return None


def packets(path: str, errors: list):
    """Every MRC packet (UDP port 4791) of a capture, fragments reassembled."""
    frags = {}
    done = set()
    for no, l2, frame, trunc in _frames(path):
        hit = _walk(frame, l2)
        if not hit:
            continue
        ip, nh, off, encap, fragoff = hit
        if fragoff is not None:
            fo = struct.unpack(">H", frame[fragoff + 2:fragoff + 4])[0]
            ident = frame[fragoff + 4:fragoff + 8]
            key = (frame[ip + 8:ip + 40], ident)
            plen = struct.unpack(">H", frame[ip + 4:ip + 6])[0]
            body = frame[off:ip + 40 + plen]
            if trunc:
                errors.append(f"frame {no}: fragment truncated by the capture")
                continue
            if (key, fo & ~7) in done:
                continue  # the same fragment seen on another interface
            st = frags.setdefault(key, {"parts": {}, "last": None, "first": no})
            st["parts"][fo & ~7] = (body, frame[fragoff], frame[ip:ip + 40])
            if not fo & 1:
                st["last"] = (fo & ~7) + len(body)
            if st["last"] is None:
                continue
            buf, pos = b"", 0
            for o in sorted(st["parts"]):
                if o != pos:
                    break
                buf += st["parts"][o][0]
                pos += len(st["parts"][o][0])
            if pos != st["last"]:
                continue
            done.update((key, o) for o in st["parts"])
            first = st["parts"][0]
            del frags[key]
            if first[1] != 17:
                continue
            hdr = bytearray(first[2])
            hdr[4:6] = struct.pack(">H", len(buf))
            hdr[6] = 17
            udp, payload = buf[:8], buf[8:]
            if struct.unpack(">H", udp[2:4])[0] != UDP_PORT:
                continue
            ulen = struct.unpack(">H", udp[4:6])[0]
            if ulen != len(buf):
                errors.append(f"frame {no}: reassembled UDP length {ulen} != {len(buf)}")
                continue
            yield Pkt(no, mask_ip6(hdr), bytes(hdr), udp, payload, encap, True)
            continue
        if nh != 17 or off + 8 > len(frame):
            continue
        udp = frame[off:off + 8]
        sport, dport, ulen = struct.unpack(">HHH", udp[:6])
        if dport != UDP_PORT and sport != UDP_PORT:
            continue
        if dport != UDP_PORT:
            continue
        plen = struct.unpack(">H", frame[ip + 4:ip + 6])[0]
        if trunc or off + ulen > len(frame):
            errors.append(f"frame {no}: MRC packet truncated by the capture")
            continue
        if ip + 40 + plen != off + ulen:
            # A segmentation-offload super-frame (or a broken length): the
            # packets in it cannot be told apart, so none is checked.
            errors.append(f"frame {no}: IPv6 payload length {plen} does not end "
                          f"with the UDP datagram of {ulen} (GSO super-frame?)")
            continue
        yield Pkt(no, mask_ip6(frame[ip:ip + 40]), frame[ip:ip + 40], udp,
                  frame[off + 8:off + ulen], encap, False)
    for key, st in frags.items():
        errors.append(f"frame {st['first']}: fragments never completed")


def _psn(p):
    return int.from_bytes(p.mrc[9:12], "big")


def _ev(p):
    """The EV a packet travels on: flow label bits 15-0, UDP source port."""
    return (int.from_bytes(p.ip_raw[2:4], "big") << 16) | \
        int.from_bytes(p.udp[0:2], "big")


def flowcells(pkts):
    """Label data packets sent in flowcells (runs of consecutive PSNs on one
    EV, one after the other in the capture, of one sender and QP):
    flowcell-seg for each, flowcell-last for the last of a run,
    flowcell-last-short when that one is shorter than the run's first (the
    segment a pseudo-header computed for full segments would get wrong)."""
    labels = collections.defaultdict(list)
    runs = {}
    for i, p in enumerate(pkts):
        if p.mrc[0] not in OPCODES or OPCODES[p.mrc[0]] != "data":
            continue
        key = (p.ip_raw[8:24], p.mrc[5:8])
        r = runs.get(key)
        if r and _psn(p) == (_psn(pkts[r[-1]]) + 1) & 0xFFFFFF and \
                _ev(p) == _ev(pkts[r[-1]]):
            r.append(i)
            continue
        if r:
            _close_run(pkts, r, labels)
        runs[key] = [i]
    for r in runs.values():
        _close_run(pkts, r, labels)
    return labels


def _close_run(pkts, r, labels):
    if len(r) < 2:
        return
    for i in r:
        labels[i].append("flowcell-seg")
    labels[r[-1]].append("flowcell-last")
    if len(pkts[r[-1]].mrc) < len(pkts[r[0]].mrc):
        labels[r[-1]].append("flowcell-last-short")


def _s16(b):
    return int.from_bytes(b, "big", signed=True)


def check_sacks(pkts):
    """Read every SACK with the public SETH offsets (shared design
    WIRE-MRC1.md) and match it with the data PSNs it acknowledges: the
    cumulative ack, the ack PSN (cack_psn + ack_psn_offset, signed; pr = 0)
    on the echoed EV, and every bit of the bitmap (base cack_psn +
    sack_offset, signed) must be data the peer sent on that connection
    before the SACK. Returns (SACKs read, probe answers, [(frame, why)])."""
    # (data source, destination) -> PSN -> EVs; BTH.DestQP (a QPN) does not
    # name the SETH's connection ids, so connections are told apart by their
    # addresses (one connection per pair in the capture test).
    seen = collections.defaultdict(dict)
    # Each connection's lowest PSN in the whole capture (serial order): a
    # cumulative ack of the PSN before it means nothing received in order
    # yet. Not the first one captured, nor the lowest before the SACK: over
    # several planes the first packets may reach the wire after later ones,
    # or only as retransmissions (a plane still resolving its next hop
    # drops what it queued meanwhile).
    first = {}
    for p in pkts:
        if OPCODES.get(p.mrc[0]) == "data":
            key = (p.ip_raw[8:24], p.ip_raw[24:40])
            if key not in first or ((_psn(p) - first[key]) & 0xFFFFFF) >= 1 << 23:
                first[key] = _psn(p)
    n = npr = 0
    bad = []
    for p in pkts:
        kind = OPCODES.get(p.mrc[0])
        if kind == "data":
            key = (p.ip_raw[8:24], p.ip_raw[24:40])
            # A super-frame's packets follow its first at one length each.
            seg = 0 if p.ok else p.superframe()
            for i in range((len(p.mrc) + seg - 1) // seg if seg else 1):
                seen[key].setdefault((_psn(p) + i) & 0xFFFFFF, set()).add(_ev(p))
            continue
        if kind != "sack" or len(p.mrc) < 12 + 36 + 4:
            continue
        h = p.mrc[12:48]
        n += 1
        key = (p.ip_raw[24:40], p.ip_raw[8:24])
        got = seen.get(key, {})
        cack = int.from_bytes(h[13:16], "big")
        if h[1] & 0x02:
            npr += 1  # a probe answer: ack_psn_offset is the probe id
        else:
            ack = (cack + _s16(h[2:4])) & 0xFFFFFF
            ev = int.from_bytes(h[4:8], "big")
            if ack not in got:
                bad.append((p.frame, f"ack PSN {ack} (cack {cack} + {_s16(h[2:4])}) "
                            "never sent"))
            elif ev not in got[ack]:
                bad.append((p.frame, f"ack PSN {ack} (cack {cack} + {_s16(h[2:4])}) "
                            f"not sent on the echoed EV {ev:#x}"))
        # cack may be the PSN before the first one sent: nothing received yet.
        if got and cack not in got and (cack + 1) & 0xFFFFFF != first[key]:
            bad.append((p.frame, f"cack PSN {cack} never sent"))
        base = (cack + _s16(h[18:20])) & 0xFFFFFF
        bm = int.from_bytes(h[20:28], "big")
        miss = [i for i in range(64) if bm >> i & 1 and (base + i) & 0xFFFFFF not in got]
        if miss:
            bad.append((p.frame, f"bitmap base {base} (cack {cack} + {_s16(h[18:20])}): "
                        f"bits {miss[:4]} never sent"))
    return n, npr, bad


def check_pcap(path: str, listing: bool = False, report=None) -> int:
    """Verify every UDP/4791 packet of a pcap; print counts per kind.

    @report, if given, is a dict filled with "kinds" (Counter of packets per
    kind), "bad" (Counter of mismatches per kind), "errors" (list) and
    "packets" (list of Pkt).
    """
    errors = []
    kinds, bad = collections.Counter(), collections.Counter()
    pkts = list(packets(path, errors))
    fc = flowcells(pkts)
    for i, p in enumerate(pkts):
        ks = p.kinds() + fc.get(i, [])
        for k in ks:
            kinds[k] += 1
            if not p.ok:
                bad[k] += 1
        if not p.ok and p.superframe():
            ks.append("gso-superframe")
            errors.append(f"frame {p.frame}: a segmentation-offload super-frame of "
                          f"{len(p.mrc)} bytes (first packet {p.superframe()} bytes "
                          "with a right ICRC): its packets cannot be checked")
        elif not p.ok:
            errors.append(f"frame {p.frame}: ICRC {p.mrc[-4:].hex()} wrong for "
                          f"{'/'.join(ks)} (want "
                          f"{wire(icrc(mask_ip6(p.ip_raw), p.udp, p.mrc[:-4])).hex()})")
        if listing:
            print(f"{p.frame} {'ok ' if p.ok else 'BAD'} {' '.join(ks)} len {len(p.mrc)}")
    n = len(pkts)
    nbad = sum(1 for p in pkts if not p.ok)
    nsack, npr, sbad = check_sacks(pkts)
    print(f"mrc_icrc: {nsack} SACKs read with the public SETH offsets "
          f"({npr} probe answers), {len(sbad)} not matching the data they "
          "acknowledge")
    for fr, why in sbad[:10]:
        print(f"  frame {fr}: SACK {why}")
    print(f"mrc_icrc: {n} MRC packets, {nbad} ICRC errors, "
          f"{len(errors) - nbad} other errors")
    print("mrc_icrc: per kind (packets/ICRC errors): " +
          ", ".join(f"{k} {kinds[k]}/{bad[k]}" for k in sorted(kinds)))
    for e in errors[:20]:
        print("  " + e)
    if report is not None:
        report.update(kinds=kinds, bad=bad, errors=errors, packets=pkts,
                      sacks=nsack, sack_errors=sbad)
    return 1 if errors or not n else 0


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
    if len(argv) in (3, 4) and argv[1] == "pcap":
        return check_pcap(argv[-1], listing=argv[2] == "--list")
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
