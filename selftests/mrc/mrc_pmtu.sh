#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Path MTU drops mid-transfer (issue 13): the link between spine sp-p0-s0
# and hB's leaf of plane 0 shrinks from 1500 to 1280 bytes, both ends, while
# hA and hB move data both ways over the SRv6 fabric. The routers at either
# end of the link drop larger packets and answer ICMPv6 Packet Too Big to
# the sender's outer address, quoting the packet. Each encapsulation (srh,
# usid: the quote is IPv6-in-IPv6, caught by mrc.ko's tunnel6 handler;
# none: caught by the UDP socket) must lower the connection's MTU for new
# packets and resend the too-big packets in flight at once, fragmented,
# without blaming their EVs. Before, nothing read the error: the big
# packets of every path through the link were black-holed while the small
# probes passed, so the EVs through it went bad, came back and went bad
# again, one timeout at a time.
#
# Evidence per encapsulation, judged: digests both ways; for each side
# whose router sent it a Packet Too Big (Icmp6OutPktTooBigs of the link's
# end its packets enter), PktTooBig counted and its MTU (MRC_INFO) below
# its starting value and small enough that a packet fits 1280 bytes with
# the encapsulation. A side sent none only if none of its packets crossed
# the link too big after the change: once, on 6.12 with ev_burst=1 and
# 721 stalled timer passes, hB's 16 EVs through the link had all gone
# ASSUMED_BAD on the frames the link dropped silently while its ends
# changed MTU, and it sent nothing big there again; that side's MTU is
# logged then. Over the three encapsulations, each side must have been sent
# one and applied one, and PmtuRetransmits > 0 (over both sides); and no
# packet too big for the link once the MTU
# dropped (the link's routers' Icmp6OutPktTooBigs stand still from 2 s to
# 4 s after the change; timing, check_timed: a guest stalled for 2 s
# before the first report arrived would fail it).
#
# Measured, not judged: timeouts per plane since the change, and EVs bad
# at the end. They guarded "no path blamed" with bounds loosened after
# each flaky run; the spread has three causes, found from traces
# (mrc_rto, mrc_pkt_sent) and counters over 18 runs on 6.1 and 6.12:
#  - the guest stalls under TCG, and a stall times out what one EV had in
#    flight, a flowcell's worth at once, on any plane: [1,12,0,0] and
#    [1,0,45,0] on links that never changed, up to [496,556,575,613];
#    no counter tells such a stall from a path's fault (TimerStalls moves
#    by 130-200 in every run), so no bound on them can be derived;
#  - a real cause on plane 0, fixed: the router forwards a flowcell as one
#    segmentation-offload datagram and drops it whole with one Packet Too
#    Big, and the flowcell's short last packet, small enough for the new
#    MTU, was not resent with the big ones: one timeout per dropped
#    flowcell (mrc_req_set_mtu() resends it now; BurstTest.
#    PathMtuDropResendsAFlowcellsShortLastPacket);
#  - frames the link refuses silently while its two ends change MTU one
#    after the other (0 to 10 per run, silent_drops()), logged: each may
#    cost a timeout.
# What the engine guarantees about blame (a packet dropped for its size is
# resent without EV penalty, window cut or retry budget) is judged in
# ctest (ReqTest.PathMtuDropCutsTheRestSmallerAndResendsBigPacketsWithoutBlame).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

ENCAPS=${MRC_PMTU_ENCAPS:-srh usid none}
NARROW=1280
out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'fabric_destroy; rm -rf "$out"' EXIT

fabric_create || exit $ksft_fail
mrc_fabric_planes || exit $ksft_fail
mrc_fabric_plain_routes || exit $ksft_fail	# for none
HB=${FAB_HADDR[hB]}

counter() { fabric_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/mrc; }
# jinfo SIDE KEY: from that side's MRC_INFO file
jinfo() { jq -r "$2" "$out/$1.info" 2>/dev/null; }
# plane_delta BEFORE AFTER: the established connection's timeouts per plane
# between two "mrcctl -j conn show" dumps, as a JSON array
plane_delta() {
	jq -nc --slurpfile a "$1" --slurpfile b "$2" '
	    def t(d): [d[0][] | select(.state == "established") | .planes[] | .timeouts];
	    [t($a), t($b)] | transpose | map(.[1] - (.[0] // 0))' 2>/dev/null || echo "?"
}
# The ICMPv6 Packet Too Big messages a node sent (nstat's absolute value).
# ptb_router HOST: the end of the narrowed link that answers HOST's packets
# (each direction's packets enter the link at the far end from the other
# host: hA's at the spine, hB's at hB's leaf).
ptb_router() { [ "$1" = hA ] && echo sp-p0-s0 || echo t0b-p0; }
ptb_sent() {
	fabric_exec "$1" awk '$1 == "Icmp6OutPktTooBigs" { print $2 }' /proc/net/snmp6
}
# link_mtu MTU: both ends of the sp-p0-s0 <-> hB leaf (plane 0) link.
link_mtu() {
	ip -n "${FAB_PREFIX}sp-p0-s0" link set dev t0b mtu "$1" &&
		ip -n "${FAB_PREFIX}t0b-p0" link set dev up0 mtu "$1"
}
# silent_drops: frames the narrowed link's veth pair dropped, as the
# senders' tx dropped. A veth refuses a frame above its own MTU coming from
# its peer without a Packet Too Big (is_skb_forwardable()); the two ends
# cannot change their MTU at once, so between link_mtu's two commands the
# end still at 1500 sends frames the other refuses. The same count takes
# frames the receiving CPU's backlog had no room for (netif_rx(), a stalled
# guest: 33 in one run after both ends were narrow), so it is logged, not
# judged.
silent_drops() {
	local a b
	a=$(fabric_ip sp-p0-s0 -s -j link show dev t0b | jq '.[0].stats64.tx.dropped')
	b=$(fabric_ip t0b-p0 -s -j link show dev up0 | jq '.[0].stats64.tx.dropped')
	echo $((a + b))
}

run() {
	local e=$1 port=$2 spid cpid crc src m0a m0b ma mb h p r a b t s bad enc rtx
	local ptb0 ptb1 ptb2 sd0 sd1 sd2 i st to
	local -A to0 sent
	rm -f "$out/go"
	mrc_fabric_routes "$e" || { check "$e: routes" false; return; }
	link_mtu 1500
	ptb0=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
	for h in hA hB; do
		to0[$h]=$(ptb_sent "$(ptb_router $h)")
	done
	for h in hA hB; do
		eval "p0_$h=\$(counter $h PktTooBig) r0_$h=\$(counter $h PmtuRetransmits)"
		eval "i0_$h=\$(counter $h PktTooBigIgnored) st0_$h=\$(counter $h TimerStalls)"
	done
	fabric_exec hB timeout 200 ./mrc_xfer -l -p "$port" -n 6000 -M 65536 -s 61 \
		--info-file "$out/srv.info" --hold "$out/go" \
		>"$out/$e.srv" 2>"$out/$e.srv.err" &
	spid=$!
	sleep 0.3
	fabric_exec hA timeout 200 ./mrc_xfer -c "$HB" -p "$port" -n 6000 -M 65536 -s 62 \
		--info-file "$out/cli.info" --hold "$out/go" \
		>"$out/$e.cli" 2>"$out/$e.cli.err" &
	cpid=$!
	sleep 1
	m0a=$(jinfo cli .mtu) m0b=$(jinfo srv .mtu)
	check "$e: the transfer is running when the link shrinks" kill -0 "$cpid" ||
		{ kill "$spid"; wait; return; }
	mrcctl hA -j conn show >"$out/cli.conn0" 2>&1
	mrcctl hB -j conn show >"$out/srv.conn0" 2>&1
	sd0=$(silent_drops)
	link_mtu "$NARROW"
	sd1=$(silent_drops)
	sleep 2
	ptb1=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
	sleep 2
	ptb2=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
	# Both ends print their result, then hold the connection open for the
	# per-plane dump until $out/go exists.
	for _ in $(seq 1900); do
		grep -qs '^rate' "$out/$e.cli" && grep -qs '^rate' "$out/$e.srv" && break
		kill -0 "$cpid" 2>/dev/null || break
		sleep 0.1
	done
	mrcctl hA -j conn show >"$out/cli.conn" 2>&1
	mrcctl hB -j conn show >"$out/srv.conn" 2>&1
	touch "$out/go"
	wait "$cpid"
	crc=$?
	wait "$spid"
	src=$?
	xfer_verdict "$e" "$out" "$crc" "$src"
	ma=$(jinfo cli .mtu) mb=$(jinfo srv .mtu)
	# An inner packet fits the narrow link with the outer headers.
	case $e in
	srh) enc=$((40 + 8 + 16 * 2)) ;;	# at least 2 SIDs
	usid) enc=40 ;;
	none) enc=0 ;;
	esac
	log "$e: MTU hA $m0a -> $ma, hB $m0b -> $mb;" \
		"Packet Too Big sent by the link's routers: $ptb0 before, $ptb1 at +2 s, $ptb2 at +4 s"
	# ICMPv6 Packet Too Big is outside icmpv6's rate mask: one per
	# dropped datagram (a flowcell forwarded whole is one).
	sd2=$(silent_drops)
	log "$e: frames the link's veths dropped: $((sd1 - sd0)) while its ends changed MTU, $((sd2 - sd1)) after" \
		"(measured: the count also takes a stalled guest's backlog overflow)"
	rtx=0
	for h in hA hB; do
		eval "p=\$((\$(counter $h PktTooBig) - p0_$h)) r=\$((\$(counter $h PmtuRetransmits) - r0_$h))"
		eval "i=\$((\$(counter $h PktTooBigIgnored) - i0_$h)) st=\$((\$(counter $h TimerStalls) - st0_$h))"
		to=$(($(ptb_sent "$(ptb_router $h)") - ${to0[$h]}))
		log "$e: $h PktTooBig +$p, PmtuRetransmits +$r, PktTooBigIgnored +$i, TimerStalls +$st;" \
			"Packet Too Big sent to it: $to"
		sent[$h]=$to
		if [ "$to" -ge 1 ]; then
			check "$e: $h applied a Packet Too Big" [ "$p" -ge 1 ]
		else
			log "$e: $h sent nothing too big through the link (its router sent no" \
				"Packet Too Big): its MTU is not judged in this encapsulation"
		fi
		ptb_to[$h]=$((${ptb_to[$h]:-0} + to))
		ptb_applied[$h]=$((${ptb_applied[$h]:-0} + p))
		rtx=$((rtx + r))
	done
	# Per run it may be 0: the packets dropped before the report may have
	# been inferred lost, resent and acknowledged by the time it arrives
	# (seen under TCG: none, both sides 0 with 6 drops); over the three
	# encapsulations it is not.
	log "$e: too-big packets in flight resent at once: $rtx"
	rtx_all=$((rtx_all + rtx))
	for s in cli srv; do
		a=$(jinfo $s .mtu) t=$(($(jinfo $s .timeouts || echo 999) - $(jinfo $s .spurious_timeouts || echo 0)))
		bad=$(jinfo $s '[.planes[].bad] | add')
		[ $s = cli ] && b=$m0a || b=$m0b
		log "$e: $s timeouts $t genuine, lost inferred $(jinfo $s .lost_inferred), EVs bad $bad"
		[ $s = cli ] && h=hA || h=hB
		if [ "${sent[$h]}" -ge 1 ]; then
			check "$e: $s MTU lowered ($b -> $a)" [ "$a" -lt "$b" ]
			check "$e: $s packets fit $NARROW bytes ($a + 95 + $enc)" \
				[ "$((a + 95 + enc))" -le "$NARROW" ]
		fi
		log "$e: $s timeouts per plane since the change:" \
			"$(plane_delta "$out/$s.conn0" "$out/$s.conn")" \
			"(measured: a stalled guest times out whole flowcells on any plane)"
		log "$e: $s EVs bad at the end: $bad (measured: silence is failure, and a stall is silence)"
	done
	check_timed "$e: no packet too big for the link once the MTU dropped ($ptb1 -> $ptb2)" \
		[ "$ptb2" = "$ptb1" ]
}

port=7600
rtx_all=0
declare -A ptb_to ptb_applied
for e in $ENCAPS; do
	run "$e" "$port"
	port=$((port + 1))
done
check "too-big packets in flight resent at once, over $ENCAPS ($rtx_all)" [ "$rtx_all" -ge 1 ]
for h in hA hB; do
	check "$h was sent a Packet Too Big and applied one, over $ENCAPS (${ptb_to[$h]} sent, ${ptb_applied[$h]} applied)" \
		[ "${ptb_to[$h]}" -ge 1 -a "${ptb_applied[$h]}" -ge 1 ]
done
finish
