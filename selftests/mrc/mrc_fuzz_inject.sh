#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile input while a connection is live: a transfer runs between two
# namespaces while mrc_inject sends 2 x 8,000 malformed MRC packets at the
# receiver - from the peer's own address (so they pass the source check and
# reach QPN demux, the engine's window and connection-id checks) and from a
# second address (wrong source). The transfer must complete intact (SHA-256
# both ways), every class of bad input must show in its /proc/net/mrc drop
# counter, and the kernel must not splat (the rig checks dmesg).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

N=${MRC_FUZZ_MSGS:-300}
MAX=${MRC_FUZZ_MAX:-1048576}
COUNT=${MRC_FUZZ_COUNT:-8000}
out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

netns_add mrcf-a && netns_add mrcf-b || exit $ksft_fail
ip link add name mrcf0 netns mrcf-a type veth peer name mrcf1 netns mrcf-b
ip -n mrcf-a addr add fd00:6d72:2::1/64 dev mrcf0 nodad
ip -n mrcf-a addr add fd00:6d72:2::3/64 dev mrcf0 nodad
ip -n mrcf-b addr add fd00:6d72:2::2/64 dev mrcf1 nodad
ip -n mrcf-a link set dev mrcf0 up
ip -n mrcf-b link set dev mrcf1 up

declare -A before
for c in RxTruncated RxBadIcrc RxBadOpcode RxBadHeader RxUnknownQpn RxWrongSource \
	 RxOutOfWindow RxStale RxBadHandshake ConnFailed; do
	before[$c]=$(proc_counter "$c" mrcf-b)
done

ip netns exec mrcf-b ./mrc_xfer -l -p 7100 -n "$N" -M "$MAX" -s 5 -q "$out/qpn" \
	>"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.5
ip netns exec mrcf-a timeout 600 ./mrc_xfer -c fd00:6d72:2::2 -p 7100 -n "$N" -M "$MAX" \
	-s 6 >"$out/cli" 2>"$out/cli.err" &
cpid=$!
for _ in $(seq 50); do
	[ -s "$out/qpn" ] && break
	sleep 0.1
done
eval "$(cat "$out/qpn")"
log "live connection: server QPN $qpn, cack $cack"

ip netns exec mrcf-a ./mrc_inject -d fd00:6d72:2::2 -q "$qpn" -c "$cack" -n "$COUNT" \
	-b fd00:6d72:2::1 -s 1 | sed 's/^/# peer source: /'
ip netns exec mrcf-a ./mrc_inject -d fd00:6d72:2::2 -q "$qpn" -c "$cack" -n "$COUNT" \
	-b fd00:6d72:2::3 -s 2 | sed 's/^/# other source: /'

wait "$cpid"
crc=$?
wait "$spid"
src=$?
check "client completed ($(cat "$out/cli.err"))" [ "$crc" = 0 ]
check "server completed ($(cat "$out/srv.err"))" [ "$src" = 0 ]
expect_eq "client->server digest" \
	"$(awk '$1 == "tx" { print $2, $3 }' "$out/cli")" \
	"$(awk '$1 == "rx" { print $2, $3 }' "$out/srv")"
expect_eq "server->client digest" \
	"$(awk '$1 == "tx" { print $2, $3 }' "$out/srv")" \
	"$(awk '$1 == "rx" { print $2, $3 }' "$out/cli")"
log "transfer: $(grep rate "$out/cli")"

rose() {
	local c=$1 now
	now=$(proc_counter "$c" mrcf-b)
	check "$c rose (${before[$c]} -> $now)" [ "$now" -gt "${before[$c]}" ]
}
for c in RxTruncated RxBadIcrc RxBadOpcode RxUnknownQpn RxWrongSource \
	 RxOutOfWindow RxStale RxBadHandshake; do
	rose "$c"
done
expect_eq "no connection failed" "${before[ConnFailed]}" "$(proc_counter ConnFailed mrcf-b)"
ip netns exec mrcf-b cat /proc/net/mrc | sed -n '/^Rx/p' | tr '\n' ' ' | sed 's/^/# /'
echo

finish
