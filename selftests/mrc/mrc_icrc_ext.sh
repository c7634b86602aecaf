#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The receiver accepts RoCEv2-correct ICRCs and its own (issue 52). RoCEv2
# covers the IPv6 header in front of UDP as it is, payload length and next
# header included; mrc.ko's senders never put an extension header there,
# so their pseudo-header (UDP length, next header 17) is that header. While
# a connection is live, packets to its QPN with a PSN far outside its
# window (so the engine drops them after the ICRC, RxOutOfWindow, and
# nothing changes) are sent from an ordinary UDP socket, ICRCs computed by
# scripts/mrc_icrc.py (independent of mrc.ko), N of each:
#  - plain    no extension header, the RoCEv2 ICRC: accepted;
#  - dstopt   a destination options header in front of UDP, the ICRC over
#             the header as it is (payload length with the 8-byte header,
#             next header 60): accepted;
#  - dstmrc   the same header, the ICRC mrc.ko would send (UDP length, 17):
#             accepted;
#  - dstbad   the same header, a wrong ICRC: rejected, each one.
# RxBadIcrc of the receiver must rise by exactly N (the dstbad ones).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

N=20
TOP=${MRC_TOP:-/mrc}
out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'touch "$out/release"; rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrce-a mrce0 fd00:6d72:5::1/64 mrce-b mrce1 fd00:6d72:5::2/64 || exit $ksft_fail

ip netns exec mrce-b ./mrc_xfer -l -p 7500 -n 4 -M 65536 -s 5 -q "$out/qpn" \
	--hold "$out/release" >"$out/srv" 2>"$out/srv.err" &
sleep 0.5
ip netns exec mrce-a timeout 120 ./mrc_xfer -c fd00:6d72:5::2 -p 7500 -n 4 -M 65536 \
	-s 6 --hold "$out/release" >"$out/cli" 2>"$out/cli.err" &
for _ in $(seq 100); do
	[ -s "$out/qpn" ] && break
	sleep 0.1
done
[ -s "$out/qpn" ] || { log "FAIL: no live connection"; exit $ksft_fail; }
eval "$(cat "$out/qpn")"
log "live connection: server QPN $qpn, cack $cack"

bad0=$(proc_counter RxBadIcrc mrce-b)
oow0=$(proc_counter RxOutOfWindow mrce-b)
ip netns exec mrce-a python3 - "$TOP/scripts" "$qpn" "$cack" "$N" >"$out/inj" 2>&1 <<'EOF'
import socket, struct, sys
sys.path.insert(0, sys.argv[1])
import mrc_icrc as m

qpn, cack, n = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
SRC, DST, SPORT = "fd00:6d72:5::1", "fd00:6d72:5::2", 0xC0DE
src = socket.inet_pton(socket.AF_INET6, SRC)
dst = socket.inet_pton(socket.AF_INET6, DST)
# destination options: next header (the kernel's), length 0, PadN of 4
DSTOPT = bytes([0, 0, 1, 4, 0, 0, 0, 0])
IPV6_DSTOPTS = getattr(socket, "IPV6_DSTOPTS", 59)


def pkt(i):
    psn = (cack + (1 << 22) + i) & 0xFFFFFF
    bth = bytes([0xCA, 0x00, 0xFF, 0xFF, 0]) + qpn.to_bytes(3, "big") + \
        b"\x00" + psn.to_bytes(3, "big")
    meth = struct.pack(">HH", 1, 2)
    payload = bytes(range(8))
    reth = struct.pack(">QII", 0, 0, len(payload))
    return bth + meth + reth + payload


def icrc_for(mrc, ext):
    ulen = 8 + len(mrc) + 4
    hdr = b"\x60\x00\x00\x00" + struct.pack(">HBB", ext + ulen, 60 if ext else 17, 64) + src + dst
    udp = struct.pack(">HHHH", SPORT, 4791, ulen, 0)
    return m.wire(m.icrc(m.mask_ip6(hdr), udp, mrc))


plain = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
plain.bind((SRC, SPORT))
for i in range(n):
    mrc = pkt(i)
    plain.sendto(mrc + icrc_for(mrc, 0), (DST, 4791))
plain.setsockopt(socket.IPPROTO_IPV6, IPV6_DSTOPTS, DSTOPT)
for i in range(n):
    mrc = pkt(n + i)
    plain.sendto(mrc + icrc_for(mrc, 8), (DST, 4791))      # dstopt
    mrc = pkt(2 * n + i)
    plain.sendto(mrc + icrc_for(mrc, 0), (DST, 4791))      # dstmrc
    mrc = pkt(3 * n + i)
    bad = bytearray(icrc_for(mrc, 8))
    bad[0] ^= 1
    plain.sendto(mrc + bytes(bad), (DST, 4791))            # dstbad
print(f"sent {4 * n}: plain {n} dstopt {n} dstmrc {n} dstbad {n}")
EOF
rc=$?
log "injector: $(cat "$out/inj")"
check "injector exit ($rc)" [ "$rc" = 0 ]
# the receiver's softirq is done with them when every one is counted
for _ in $(seq 50); do
	bad1=$(proc_counter RxBadIcrc mrce-b)
	oow1=$(proc_counter RxOutOfWindow mrce-b)
	(((bad1 - bad0) + (oow1 - oow0) >= 4 * N)) && break
	sleep 0.1
done
log "RxBadIcrc +$((bad1 - bad0)), RxOutOfWindow +$((oow1 - oow0))"
expect_eq "only the wrong ICRCs rejected (RxBadIcrc)" "$N" "$((bad1 - bad0))"
expect_eq "the right ones passed the ICRC (RxOutOfWindow)" "$((3 * N))" "$((oow1 - oow0))"
touch "$out/release"
wait
finish
