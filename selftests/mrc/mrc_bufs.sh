#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Socket buffers start within the host's limits and grow when they, not
# the application, limit a connection (issue 12: "defaults within
# rmem_max/wmem_max"; kmod/mrc_mem.c):
#  - a new socket's SO_RCVBUF and SO_SNDBUF are net.mrc.rmem[1] and
#    net.mrc.wmem[1] (128 KiB), within net.core.rmem_max and wmem_max;
#  - 300 messages of up to 256 KiB each way between two namespaces: both
#    ends' buffers grew (RcvbufGrown, SndbufGrown, and each socket's own
#    SO_RCVBUF and SO_SNDBUF above where they started), none beyond
#    net.mrc.rmem[2] and wmem[2]; digests equal;
#  - the same with SO_RCVBUF set on the server (256 KiB asked, the kernel
#    doubles it): its receive buffer stays what was set, and the transfer
#    still completes (the next message in order is always admitted);
#  - net.mrc.rmem refuses a value below SOCK_MIN_RCVBUF.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
cleanup() {
	rm -rf "$out"
	mrc_cleanup
}
trap cleanup EXIT

read -r rmin rdef rmax < /proc/sys/net/mrc/rmem || exit $ksft_fail
read -r wmin wdef wmax < /proc/sys/net/mrc/wmem || exit $ksft_fail
log "net.mrc.rmem $rmin $rdef $rmax, net.mrc.wmem $wmin $wdef $wmax"
check "rmem[1] within rmem_max" [ "$rdef" -le "$(cat /proc/sys/net/core/rmem_max)" ]
check "wmem[1] within wmem_max" [ "$wdef" -le "$(cat /proc/sys/net/core/wmem_max)" ]
veth_pair buA bua0 "fd00:3c::2/64" buB bub0 "fd00:3c::1/64" || exit $ksft_fail


# xfer NAME [SERVER ARGS...]: 300 messages of up to 256 KiB each way
xfer() {
	local name=$1 port=$((port + 1)) crc src spid
	shift
	ip netns exec buB ./mrc_xfer -l -p "$port" -n 300 -M 262144 -s 3 "$@" \
		>"$out/$name.srv" 2>"$out/$name.srv.err" &
	spid=$!
	sleep 0.3
	ip netns exec buA timeout 120 ./mrc_xfer -c fd00:3c::1 -p "$port" -n 300 -M 262144 -s 4 \
		>"$out/$name.cli" 2>"$out/$name.cli.err"
	crc=$?
	wait "$spid"
	src=$?
	check "$name: client exit ($crc: $(cat "$out/$name.cli.err"))" [ "$crc" = 0 ]
	check "$name: server exit ($src: $(cat "$out/$name.srv.err"))" [ "$src" = 0 ]
	expect_digests "$name" "$out/$name.cli" "$out/$name.srv"
	log "$name: client $(grep bufs "$out/$name.cli" | tr '\n' ' ')"
	log "$name: server $(grep bufs "$out/$name.srv" | tr '\n' ' ')"
}
# buf FILE WHEN rcv|snd
buf() { awk -v w="$2" -v k="$3" '$1 == "bufs" && $2 == w { for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }' "$1"; }
grown() { echo $(($(proc_counter "$1" buA) + $(proc_counter "$1" buB))); }

port=7600
rg0=$(grown RcvbufGrown) sg0=$(grown SndbufGrown)
xfer auto
rg=$(($(grown RcvbufGrown) - rg0)) sg=$(($(grown SndbufGrown) - sg0))
log "auto: RcvbufGrown +$rg, SndbufGrown +$sg"
for f in cli srv; do
	expect_eq "auto: $f starts at rmem[1]" "$rdef" "$(buf "$out/auto.$f" start rcv)"
	expect_eq "auto: $f starts at wmem[1]" "$wdef" "$(buf "$out/auto.$f" start snd)"
	r=$(buf "$out/auto.$f" end rcv) s=$(buf "$out/auto.$f" end snd)
	check "auto: $f receive buffer grew, within rmem[2] ($rdef < $r <= $rmax)" \
		[ "$r" -gt "$rdef" ] && [ "$r" -le "$rmax" ]
	check "auto: $f send buffer grew, within wmem[2] ($wdef < $s <= $wmax)" \
		[ "$s" -gt "$wdef" ] && [ "$s" -le "$wmax" ]
done
check "auto: receive buffers grown ($rg)" [ "$rg" -gt 0 ]
check "auto: send buffers grown ($sg)" [ "$sg" -gt 0 ]

xfer locked --rcvbuf 262144
# setsockopt() caps the value at rmem_max and doubles it.
rmax_core=$(cat /proc/sys/net/core/rmem_max)
want=$((2 * (262144 < rmax_core ? 262144 : rmax_core)))
expect_eq "locked: the server's SO_RCVBUF stays what was set" "$want" \
	"$(buf "$out/locked.srv" end rcv)"

refused() { ! sysctl -q -w "$1" 2>/dev/null; }
check "rmem below SOCK_MIN_RCVBUF refused" refused net.mrc.rmem="1 $rdef $rmax"
expect_eq "and left as it was" "$rmin $rdef $rmax" "$(sysctl -n net.mrc.rmem | tr -s '\t ' '  ')"
finish
