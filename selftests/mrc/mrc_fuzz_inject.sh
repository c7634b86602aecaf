#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile input while a connection is live: a transfer runs between two
# namespaces (and the connection stays open after it until the injection
# is over) while mrc_inject sends malformed packets at the receiver:
#
#  - 2,250 raw IPv6 packets with a segment routing header in front of UDP
#    (mrc_inject -S, ten kinds): SRHs with no segments left that are
#    malformed (first_segment vs hdrlen, segments[0] not the destination,
#    bad TLVs, a routing type other than 4) must be dropped by mrc.ko in
#    RxBadSrh; truncated SRHs and SRHs with segments left are the IPv6
#    stack's (Ip6InHdrErrors, Ip6InTruncatedPkts, Ip6InAddrErrors:
#    forwarding is off); valid inline SRHs - as sent, or after the
#    receiver's own SRv6 processing - must pass and reach QPN demux
#    (RxUnknownQpn, their QPN is bogus). Every one of these counters must
#    move by exactly what was sent.
#  - 2 x 8,000 malformed MRC packets over plain UDP, from the peer's own
#    address (so they pass the source check and reach QPN demux, the
#    engine's window and connection-id checks) and from a second address
#    (wrong source): every class shows in its /proc/net/mrc drop counter.
#  - 2 x 16 forged port-status updates and answers from the client's
#    addresses with random tokens: all ignored (PortStatusUnmatched), none
#    applied.
#
# The transfer must complete intact (SHA-256 both ways) and the kernel must
# not splat (the rig checks dmesg).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

N=${MRC_FUZZ_MSGS:-300}
MAX=${MRC_FUZZ_MAX:-1048576}
COUNT=${MRC_FUZZ_COUNT:-8000}
SRH_COUNT=${MRC_FUZZ_SRH_COUNT:-2250}
out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
backlog=$(cat /proc/sys/net/core/netdev_max_backlog)
trap 'echo "$backlog" >/proc/sys/net/core/netdev_max_backlog; rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrcf-a mrcf0 "fd00:6d72:2::1/64 fd00:6d72:2::3/64" \
	mrcf-b mrcf1 fd00:6d72:2::2/64 || exit $ksft_fail
# The receiver accepts SRv6 (else the IPv6 stack drops every SRH packet
# silently) and is a host, not a router.
for f in all/seg6_enabled mrcf1/seg6_enabled; do
	ip netns exec mrcf-b sh -c "echo 1 >/proc/sys/net/ipv6/conf/$f" || exit $ksft_fail
done
ip netns exec mrcf-b sh -c 'echo 0 >/proc/sys/net/ipv6/conf/all/forwarding' ||
	exit $ksft_fail

declare -A before
for c in RxTruncated RxBadIcrc RxBadOpcode RxBadHeader RxUnknownQpn RxWrongSource \
	 RxOutOfWindow RxStale RxBadHandshake ConnFailed; do
	before[$c]=$(proc_counter "$c" mrcf-b)
done

# Both ends keep the connection open after the transfer until "release"
# exists (at most 60 s): however fast the transfer, the injected packets
# always meet a live connection, and none is taken for a late packet of a
# closed one.
ip netns exec mrcf-b ./mrc_xfer -l -p 7100 -n "$N" -M "$MAX" -s 5 -q "$out/qpn" \
	--hold "$out/release" >"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.5
ip netns exec mrcf-a timeout 600 ./mrc_xfer -c fd00:6d72:2::2 -p 7100 -n "$N" -M "$MAX" \
	-s 6 --hold "$out/release" >"$out/cli" 2>"$out/cli.err" &
cpid=$!
for _ in $(seq 50); do
	[ -s "$out/qpn" ] && break
	sleep 0.1
done
eval "$(cat "$out/qpn")"
log "live connection: server QPN $qpn, cack $cack"

# Bad (and good) SRHs first, while the transfer is surely running: nothing
# else moves these counters then, so each must rise by exactly what its
# kinds of packets account for. The transfer alone overflows the default
# 1,000-packet backlog of the CPUs under TCG (softnet_stat drops), which
# would drop some of these packets before IPv6 sees them: the backlog is
# raised for this phase so that none is lost.
srh_cnt=(RxBadSrh RxUnknownQpn Ip6InHdrErrors Ip6InTruncatedPkts Ip6InAddrErrors)
declare -A srh0 srh1 srh_want
# srh_read ARRAY: the counters of the receiver now
srh_read() {
	local -n a=$1
	local c
	for c in "${srh_cnt[@]}"; do
		case $c in
		Rx*) a[$c]=$(proc_counter "$c" mrcf-b) ;;
		*) a[$c]=$(snmp6_counter "$c" mrcf-b) ;;
		esac
	done
}
# softnet_drops: packets the CPUs' backlogs dropped so far (all namespaces)
softnet_drops() {
	local n=0 a b rest
	while read -r a b rest; do n=$((n + 16#$b)); done </proc/net/softnet_stat
	echo "$n"
}
echo 20000 >/proc/sys/net/core/netdev_max_backlog
drops0=$(softnet_drops)
srh_read srh0
srh_out=$(ip netns exec mrcf-a ./mrc_inject -S -d fd00:6d72:2::2 -q "$qpn" -n "$SRH_COUNT" \
	-b fd00:6d72:2::3 -f fd00:6d72:2::99 -s 3)
srh_rc=$?
log "SRH injection: $srh_out"
check "SRH injector exit ($srh_rc)" [ "$srh_rc" = 0 ]
check "connection still open after the SRH injection" kill -0 "$cpid" "$spid"
log "transfer $( [ -s "$out/cli" ] && echo finished || echo "still running") after the SRH injection"
# srh_sent KIND...: packets of these kinds the injector reports
srh_sent() {
	echo "$srh_out" | awk -v kinds=" $* " '
		{ for (i = 2; i < NF; i++) if (index(kinds, " " $i " ")) n += $(i + 1) }
		END { print n + 0 }'
}
srh_want=([RxBadSrh]="badfirst badlast badtlv badtype" [RxUnknownQpn]="valid loop"
	[Ip6InHdrErrors]="trunc segleft" [Ip6InTruncatedPkts]=cut [Ip6InAddrErrors]=fwd)
# Wait for the backlog to drain: until every counter reached its target,
# or none moved for a second (20 s at most).
prev= still=0
for _ in $(seq 100); do
	srh_read srh1
	settled=1 now=
	for c in "${srh_cnt[@]}"; do
		# shellcheck disable=SC2086 # a list of kinds
		(( srh1[$c] - srh0[$c] >= $(srh_sent ${srh_want[$c]}) )) || settled=0
		now+=" ${srh1[$c]}"
	done
	((settled)) && break
	if [ "$now" = "$prev" ]; then
		((++still >= 5)) && break
	else
		still=0
	fi
	prev=$now
	sleep 0.2
done
sleep 0.2
srh_read srh1
log "backlog drops while it was raised: $(($(softnet_drops) - drops0))"
echo "$backlog" >/proc/sys/net/core/netdev_max_backlog
srh_total=$(srh_sent badfirst badlast badtlv trunc cut segleft fwd valid loop badtype)
check "at least 2,000 SRH packets ($srh_total)" [ "$srh_total" -ge 2000 ]
expect_eq "every SRH packet counted by kind" "$SRH_COUNT" "$srh_total"
for c in "${srh_cnt[@]}"; do
	# shellcheck disable=SC2086
	expect_eq "$c rose by the SRH kinds ${srh_want[$c]} (${srh0[$c]} -> ${srh1[$c]})" \
		"$(srh_sent ${srh_want[$c]})" "$((srh1[$c] - srh0[$c]))"
done

icrc0=$(proc_counter RxBadIcrc mrcf-b)
inj1=$(ip netns exec mrcf-a ./mrc_inject -d fd00:6d72:2::2 -q "$qpn" -c "$cack" -n "$COUNT" \
	-b fd00:6d72:2::1 -s 1)
echo "# peer source: $inj1"
inj2=$(ip netns exec mrcf-a ./mrc_inject -d fd00:6d72:2::2 -q "$qpn" -c "$cack" -n "$COUNT" \
	-b fd00:6d72:2::3 -s 2)
echo "# other source: $inj2"
# Forged port-status updates and answers from both of the client
# namespace's addresses (one is the peer's): each names its connection by
# a random token (a real one is 1 in 65,536), so none may be taken for the
# live connection's.
psu0=$(proc_counter PortStatusUnmatched mrcf-b) psr0=$(proc_counter RxPortStatus mrcf-b)
for a in 1 3; do
	echo "# from ::$a: $(ip netns exec mrcf-a ./mrc_inject -P -d fd00:6d72:2::2 \
		-b fd00:6d72:2::$a -n 16 -s $((a + 2)))"
done
expect_eq "forged port-status traffic: all 32 ignored (PortStatusUnmatched)" 32 \
	"$(($(proc_counter PortStatusUnmatched mrcf-b) - psu0))"
expect_eq "forged port-status updates: none applied (RxPortStatus)" "$psr0" \
	"$(proc_counter RxPortStatus mrcf-b)"
check "connection still open after the UDP injection" kill -0 "$cpid" "$spid"
log "transfer $( [ -s "$out/cli" ] && echo finished || echo "still running") at the end of the injection"
touch "$out/release"

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
# Half of the packets to a QPN nobody owns carry a broken ICRC: they must
# be dropped as RxUnknownQpn before any CRC is computed, so RxBadIcrc rises
# by the packets to the live QPN with a broken ICRC alone (fewer if the
# backlog dropped some), never by the others.
icrc_sent=$(printf '%s\n%s\n' "$inj1" "$inj2" |
	awk '{ for (i = 1; i < NF; i++) if ($i == "badicrc") n += $(i + 1) } END { print n + 0 }')
icrc_seen=$(($(proc_counter RxBadIcrc mrcf-b) - icrc0))
check "RxBadIcrc rose by at most the live-QPN bad ICRCs ($icrc_seen of $icrc_sent)" \
	[ "$icrc_seen" -gt 0 -a "$icrc_seen" -le "$icrc_sent" ]
expect_eq "no connection failed" "${before[ConnFailed]}" "$(proc_counter ConnFailed mrcf-b)"
expect_eq "RxBadSrh: nothing but the bad SRHs (plain UDP, live traffic)" \
	"${srh1[RxBadSrh]}" "$(proc_counter RxBadSrh mrcf-b)"
ip netns exec mrcf-b cat /proc/net/mrc | sed -n '/^Rx/p' | tr '\n' ' ' | sed 's/^/# /'
echo

finish
