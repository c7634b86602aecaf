#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A receiver that stops reading, and a peer that vanishes (issue 13):
#
#  1. stall: the server stops reading for 10 s after 20 messages while the
#     client keeps sending 1 MiB-class messages, far more than the server's
#     receive buffer. The receiver refuses new messages (NACK NO_RESOURCE);
#     the client must hold its window and send one probe per back-off delay
#     (16.8 ms doubling to ~1.07 s: about 15 in 10 s). Bound: at most 60
#     data packets from the client over 8 s of the stall, where the old
#     behaviour re-sent the whole window every 16.8 ms (over 10,000 packets
#     per second). Nothing is lost (SHA-256 both ways) and the transfer
#     completes once the reader is back.
#  2. vanish: net.mrc.progress_timeout_ms=2000 in the client's namespace;
#     mid-transfer every packet between the hosts is dropped (netem loss
#     100% both ways, carriers up). The client must fail with ETIMEDOUT
#     within 2 s (+ 3 s margin) of the cut, and its namespace must hold no
#     connection once it has exited. An out-of-range value is refused.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)
STALL_MS=10000
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrcs-a mrcs0 fd00:6d72:5::1/64 mrcs-b mrcs1 fd00:6d72:5::2/64 || exit $ksft_fail
now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }
# info_tx FILE: data packets sent so far (the client's MRC_INFO file)
info_tx() { sed -n 's/.*"tx_pkts":\([0-9]*\),"n_planes".*/\1/p' "$1" 2>/dev/null; }
# wait_for FILE TEXT SECS: until FILE contains TEXT
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# ---- 1. a reader that sleeps 10 s
ip netns exec mrcs-b ./mrc_xfer -l -p 7200 -n 300 -M 1048576 -s 5 --stall "20:$STALL_MS" \
	>"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.5
ip netns exec mrcs-a timeout 300 ./mrc_xfer -c fd00:6d72:5::2 -p 7200 -n 300 -M 1048576 -s 6 \
	--info-file "$out/cinfo" >"$out/cli" 2>"$out/cli.err" &
cpid=$!
if wait_for "$out/srv.err" "stall begin" 60; then
	sleep 1	# the refusals of the first window arrive
	a=$(info_tx "$out/cinfo") ta=$(now_ms)
	sleep 6
	b=$(info_tx "$out/cinfo") tb=$(now_ms)
	stalled=$((b - a))
	log "client data packets during $((tb - ta)) ms of the stall: $stalled ($a -> $b)"
	check "stall: the client sends a trickle, not a storm ($stalled <= 60 packets in 6 s)" \
		[ -n "$a" -a -n "$b" -a "$stalled" -le 60 ]
	check "stall: the reader is still asleep at the end of the window" \
		bash -c "! grep -q 'stall end' '$out/srv.err'"
else
	check "stall: the server stalled ($(cat "$out/srv.err"))" false
fi
wait "$cpid"
crc=$?
wait "$spid"
src=$?
check "stall: client completed ($(tail -n 1 "$out/cli.err"))" [ "$crc" = 0 ]
check "stall: server completed ($(tail -n 1 "$out/srv.err"))" [ "$src" = 0 ]
expect_eq "stall: client->server digest" \
	"$(awk '$1 == "tx" { print $2, $3 }' "$out/cli")" \
	"$(awk '$1 == "rx" { print $2, $3 }' "$out/srv")"
expect_eq "stall: server->client digest" \
	"$(awk '$1 == "tx" { print $2, $3 }' "$out/srv")" \
	"$(awk '$1 == "rx" { print $2, $3 }' "$out/cli")"
log "stall: $(grep rate "$out/cli")"

# ---- 2. a peer that vanishes
check "sysctl: progress_timeout_ms below 100 refused" \
	bash -c '! ip netns exec mrcs-a sysctl -qw net.mrc.progress_timeout_ms=5 2>/dev/null'
expect_eq "sysctl: default" 10000 \
	"$(ip netns exec mrcs-a cat /proc/sys/net/mrc/progress_timeout_ms)"
ip netns exec mrcs-a sysctl -qw net.mrc.progress_timeout_ms=2000
expect_eq "sysctl: per namespace (the other keeps its own)" 10000 \
	"$(ip netns exec mrcs-b cat /proc/sys/net/mrc/progress_timeout_ms)"
ip netns exec mrcs-b ./mrc_xfer -l -p 7201 -n 100000 -M 1048576 -s 7 \
	>"$out/srv2" 2>"$out/srv2.err" &
spid=$!
sleep 0.5
ip netns exec mrcs-a timeout 120 ./mrc_xfer -c fd00:6d72:5::2 -p 7201 -n 100000 -M 1048576 -s 8 \
	>"$out/cli2" 2>"$out/cli2.err" &
cpid=$!
sleep 1.5
ip -n mrcs-a link show mrcs0 >/dev/null && kill -0 "$cpid" 2>/dev/null
check "vanish: the transfer is running before the cut" [ $? = 0 ]
ip netns exec mrcs-a tc qdisc add dev mrcs0 root netem loss 100%
ip netns exec mrcs-b tc qdisc add dev mrcs1 root netem loss 100%
tcut=$(now_ms)
wait "$cpid"
crc=$?
tfail=$(now_ms)
log "vanish: client exit $crc $((tfail - tcut)) ms after the cut: $(tail -n 1 "$out/cli2.err")"
check "vanish: the client failed" [ "$crc" != 0 ]
check "vanish: with ETIMEDOUT" grep -q "Connection timed out" "$out/cli2.err"
check "vanish: within 2 s + 3 s of the cut ($((tfail - tcut)) ms)" [ $((tfail - tcut)) -le 5000 ]
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
sleep 0.5
expect_eq "vanish: no connection left in the client's namespace" 0 \
	"$(proc_counter Connections mrcs-a)"
finish
