#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections through the "mrc" generic netlink family: during a transfer
# between two namespaces (veth), "mrcctl -j conn show" and "path show" list
# the connection with its addresses, state and every EV (more EVs than one
# dump message carries, so the parts must merge); the qpn filter selects it
# alone; per-plane sums equal the sums over the EVs of the same snapshot;
# at a quiet point the client's memory figures pin no message, agree with
# MRC_INFO's and make whole pages;
# "mrcctl -j monitor" reports conn-up and conn-down for it; "mrcctl -j stats"
# carries the /proc/net/mrc counters.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

M=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
[ -x "$M" ] || { log "mrcctl not built at $M (make userspace)"; exit $ksft_fail; }
mrc_loaded || mrc_insmod || { log "cannot load $MRC_KO"; exit $ksft_fail; }
out=$(mktemp -d)
trap 'rm -rf "$out"; mrc_cleanup' EXIT

netns_add mrcd-a && netns_add mrcd-b || exit $ksft_fail
ip link add name mrcd0 netns mrcd-a type veth peer name mrcd1 netns mrcd-b
ip -n mrcd-a addr add fd00:6d72:8::1/64 dev mrcd0 nodad
ip -n mrcd-b addr add fd00:6d72:8::2/64 dev mrcd1 nodad
ip -n mrcd-a link set dev mrcd0 up
ip -n mrcd-b link set dev mrcd1 up

expect_eq "no connection yet" "[]" "$("$M" -n mrcd-a -j conn show)"
"$M" -n mrcd-a -j monitor >"$out/mon" 2>&1 &
monpid=$!
sleep 0.3

ip netns exec mrcd-b ./mrc_xfer -l -p 7200 -n 300 -M 200000 -s 1 --info-json \
	--hold "$out/go" >"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.5
ip netns exec mrcd-a ./mrc_xfer -c fd00:6d72:8::2 -p 7200 -n 300 -M 200000 -s 2 \
	--info-json --hold "$out/go" >"$out/cli" 2>"$out/cli.err" &
cpid=$!
# During the transfer: wait (bounded) until the connection is established,
# the VM may be slow to run the client.
for _ in $(seq 100); do
	"$M" -n mrcd-a -j conn show | grep -q '"state":"established"' && break
	sleep 0.1
done
"$M" -n mrcd-a -j conn show >"$out/live.conn"
"$M" -n mrcd-a -j path show >"$out/live.path"
"$M" -n mrcd-a conn show >"$out/live.txt"
check "live: one connection, established" \
	[ "$(grep -o '"state":"established"' "$out/live.conn" | wc -l)" = 1 ]
check "live: the peer's address and service" \
	grep -q '"peer":"fd00:6d72:8::2","peer_service":7200' "$out/live.conn"
nevs=$(sed -nE 's/.*"n_evs":([0-9]+).*/\1/p' "$out/live.path")
expect_eq "live: EV count (default set)" 128 "$nevs"
expect_eq "live: every EV listed once (dump parts merged)" "$nevs" \
	"$(grep -o '{"index":[0-9]*,' "$out/live.path" | sort -u | wc -l)"
expect_eq "live: EV states are known" 0 \
	"$(grep -o '"state":"[a-z_]*","active"' "$out/live.path" |
		grep -cvE '"(good|skip|assumed_bad|denied)"')"
check "live: data went out on the EVs" \
	[ "$(grep -o '"sent":[1-9][0-9]*' "$out/live.path" | wc -l)" -gt 1 ]
check "live: text output" grep -q "^conn qpn .* state established" "$out/live.txt"

# Quiet point: both sides acknowledged everything, connections still open.
for _ in $(seq 1 600); do
	grep -q '^info ' "$out/cli" && grep -q '^info ' "$out/srv" && break
	sleep 0.1
done
q=$(sed -nE 's/^info .*"qpn":([0-9]+),.*/\1/p' "$out/cli")
"$M" -n mrcd-a -j path show qpn "$q" >"$out/q.path"
check "qpn filter: that connection ($q)" grep -q "^\[{\"qpn\":$q," "$out/q.path"
expect_eq "qpn filter: only it" 1 "$(grep -o '"peer_qpn"' "$out/q.path" | wc -l)"
expect_eq "qpn filter: unknown QPN" "[]" "$("$M" -n mrcd-a -j conn show qpn 1)"
ev_sent=$(sed 's/"paths":/\n/' "$out/q.path" | tail -1 | grep -o '"sent":[0-9]*' | cut -d: -f2 |
	awk '{ s += $1 } END { print s + 0 }')
plane_sent=$(sed 's/"paths":/\n/' "$out/q.path" | head -1 | grep -o '"sent":[0-9]*' | cut -d: -f2 |
	awk '{ s += $1 } END { print s + 0 }')
expect_eq "plane summary = sum over its EVs (sent)" "$ev_sent" "$plane_sent"
expect_eq "conn dump timeouts = MRC_INFO" \
	"$(sed -nE 's/^info .*"timeouts":([0-9]+).*/\1/p' "$out/cli")" \
	"$(sed -nE 's/.*"retransmits":[0-9]+,"timeouts":([0-9]+),.*/\1/p' "$out/q.path")"
expect_eq "conn dump data packets = MRC_INFO" \
	"$(sed -nE 's/^info .*"tx_pkts":([0-9]+).*/\1/p' "$out/cli")" \
	"$(sed -nE 's/.*"tx_pkts":([0-9]+),.*/\1/p' "$out/q.path")"
# What the client pins there (the memory fields, MRC_INFO version 8):
# every message read and every one of its own acknowledged, so no
# message; its kept and frag pages stay charged, the same in both.
expect_eq "conn dump: no message pinned at the quiet point (rmem_alloc wmem_queued)" "0 0" \
	"$(sed -nE 's/.*"rmem_alloc":([0-9]+),.*"wmem_queued":([0-9]+),.*/\1 \2/p' "$out/q.path")"
expect_eq "conn dump mem_charged = MRC_INFO" \
	"$(sed -nE 's/^info .*"mem_charged":([0-9]+).*/\1/p' "$out/cli")" \
	"$(sed -nE 's/.*"mem_charged":([0-9]+),.*/\1/p' "$out/q.path")"
pinned=$(sed -nE 's/.*"mem_charged":([0-9]+),"fwd_alloc":([0-9]+),.*/\1 + \2/p' "$out/q.path")
check "conn dump: the client pins whole pages ($pinned)" [ $(((${pinned:-1}) % 4096)) = 0 ]
touch "$out/go"
wait $cpid
check "client exit ($(head -c 200 "$out/cli.err"))" [ $? = 0 ]
wait $spid
check "server exit ($(head -c 200 "$out/srv.err"))" [ $? = 0 ]
for _ in $(seq 1 50); do
	[ "$("$M" -n mrcd-a -j conn show)" = "[]" ] && break
	sleep 0.1
done
expect_eq "closed: no connection left" "[]" "$("$M" -n mrcd-a -j conn show)"

# The datapath counters of /proc/net/mrc are in the netlink stats too, one
# attribute each: after the transfer, with nothing in flight, both agree.
declare -A nlkey=([RxPackets]=rx_pkts [TxPackets]=tx_pkts [RxDuplicate]=rx_duplicate
	[RxUnknownQpn]=rx_unknown_qpn [RxStale]=rx_stale [ConnEstablished]=conn_established
	[ConnClosed]=conn_closed [ConnectRequests]=connect_requests
	[ConnectResponses]=connect_responses [RxBadSrh]=rx_bad_srh [TimerStalls]=timer_stalls)
for _ in $(seq 1 50); do
	[ "$("$M" -n mrcd-b -j conn show)" = "[]" ] && break
	sleep 0.1
done
sleep 0.2
"$M" -n mrcd-b -j stats >"$out/stats.json"
for c in "${!nlkey[@]}"; do
	expect_eq "stats: ${nlkey[$c]} = /proc/net/mrc $c" "$(proc_counter "$c" mrcd-b)" \
		"$(sed -nE "s/.*\"${nlkey[$c]}\":([0-9]+).*/\1/p" "$out/stats.json")"
done
check "stats: the peer's packets were counted" \
	[ "$(sed -nE 's/.*"rx_pkts":([0-9]+).*/\1/p' "$out/stats.json")" -gt 300 ]
sleep 0.3
kill -INT $monpid 2>/dev/null
wait $monpid
check "monitor: conn-up for $q" grep -q "^{\"event\":\"conn-up\",\"qpn\":$q," "$out/mon"
check "monitor: conn-down for $q (closed, error 0)" \
	grep -q "^{\"event\":\"conn-down\",\"qpn\":$q,.*\"error\":0}" "$out/mon"

# QPNs and connection ids are the datapath's demux keys: neither the dump nor
# the events are for unprivileged users (mrcctl exit 1 = kernel refused).
nobody() { ip netns exec mrcd-a setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
nobody "$M" -j conn show >"$out/np.conn" 2>&1
expect_eq "unprivileged conn show is refused" 1 "$?"
check "unprivileged conn show says EPERM" grep -q "Operation not permitted" "$out/np.conn"
timeout 2 ip netns exec mrcd-a setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$M" -j monitor >"$out/np.mon" 2>&1
expect_eq "unprivileged monitor is refused" 1 "$?"
check "unprivileged monitor says EPERM" grep -q "Operation not permitted" "$out/np.mon"

finish
