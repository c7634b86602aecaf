#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A connection's timer fires only when something is due (issue 12: "hrtimers
# re-armed only when the deadline moves"; kmod/mrc_conn_k.c, mrc_arm()).
# A pingpong leaves nothing in flight between round trips: every message is
# acknowledged before the reply comes. A retransmission or tail-loss-probe
# deadline left queued then fires for nothing, a timer interrupt and a pass
# over the connection per message (before the fix: 1.2-1.5 per round trip,
# both ends together). Over 2,000 round trips of 64 bytes between two
# namespaces:
#  - every round trip completes (mrcperf pingpong, exit 0);
#  - the expiries that found nothing due (TimerIdle, both namespaces) stay
#    below one per 20 round trips;
#  - nothing was resent for want of a timer: the packets both ends sent
#    stay within 4 per round trip (request, its SACK, reply, its SACK) plus
#    1 % and the handshake (RTO and tail-loss probes still fire when due:
#    mrc_stall_timeout.sh, mrc_fabric_xfer.sh).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

perf=${MRC_TOP:-/mrc}/build/cmake/tools/mrcperf/mrcperf
out=$(mktemp -d)
[ -x "$perf" ] || { log "no $perf (make userspace)"; exit $ksft_fail; }
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

rts=2000
veth_pair mrcti-a mrcti0 "fd00:6d72:a::1/64" mrcti-b mrcti1 "fd00:6d72:a::2/64" ||
	exit $ksft_fail

jget() { "$perf" json "$1" "$2" 2>/dev/null; }
total() { # total COUNTER: the sum over both namespaces
	echo $(($(proc_counter "$1" mrcti-a) + $(proc_counter "$1" mrcti-b)))
}

idle0=$(total TimerIdle)
tx0=$(total TxPackets)
ip netns exec mrcti-b "$perf" server --mrc -p 7500 --once --json -q \
	>"$out/srv" 2>"$out/srv.err" &
spid=$!
ip netns exec mrcti-a timeout 120 "$perf" pingpong --mrc -c fd00:6d72:a::2 -p 7500 \
	-k "$rts" -l 64 --connect-timeout 10 --json -q >"$out/cli" 2>"$out/cli.err"
rc=$?
wait "$spid"
check "pingpong exit 0 ($(head -c 200 "$out/cli.err"))" [ "$rc" = 0 ]
expect_eq "every round trip completed" "$rts" "$(jget "$out/cli" result.round_trips)"
idle=$(($(total TimerIdle) - idle0))
tx=$(($(total TxPackets) - tx0))
log "$rts round trips: TimerIdle +$idle, TxPackets +$tx," \
	"p50 $(jget "$out/cli" result.latency_us.p50) us"
check "timer expiries with nothing due: $idle < $((rts / 20))" [ "$idle" -lt $((rts / 20)) ]
check "packets sent: $tx <= $((4 * rts + rts / 100 + 10))" [ "$tx" -le $((4 * rts + rts / 100 + 10)) ]

finish
