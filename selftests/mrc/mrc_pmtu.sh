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
# Evidence per encapsulation: digests both ways; PktTooBig counted in both
# namespaces (both directions cross the link); PmtuRetransmits > 0 (the two
# together); each side's MTU (MRC_INFO) below its starting value and small
# enough that a packet fits 1280 bytes with the encapsulation; no EV
# ASSUMED_BAD at the end; genuine (not spurious) timeouts per side at most
# 8 plus the packets the link's routers dropped as too big (a packet sent
# before its sender learned the new MTU may be lost to the drop and time
# out; under TCG's timing that was 24 once, with every EV good at the end:
# a timeout with no drop behind it would be a path blamed for nothing);
# no packet too big for the link once the MTU dropped (the link's routers'
# Icmp6OutPktTooBigs stand still from 2 s to 4 s after the change).
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
# The ICMPv6 Packet Too Big messages a node sent (nstat's absolute value).
ptb_sent() {
	fabric_exec "$1" awk '$1 == "Icmp6OutPktTooBigs" { print $2 }' /proc/net/snmp6
}
# link_mtu MTU: both ends of the sp-p0-s0 <-> hB leaf (plane 0) link.
link_mtu() {
	ip -n "${FAB_PREFIX}sp-p0-s0" link set dev t0b mtu "$1" &&
		ip -n "${FAB_PREFIX}t0b-p0" link set dev up0 mtu "$1"
}

run() {
	local e=$1 port=$2 spid cpid crc src m0a m0b ma mb h p r a b t s bad enc rtx
	local ptb0 ptb1 ptb2 drops
	mrc_fabric_routes "$e" || { check "$e: routes" false; return; }
	link_mtu 1500
	ptb0=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
	for h in hA hB; do
		eval "p0_$h=\$(counter $h PktTooBig) r0_$h=\$(counter $h PmtuRetransmits)"
	done
	fabric_exec hB timeout 200 ./mrc_xfer -l -p "$port" -n 6000 -M 65536 -s 61 \
		--info-file "$out/srv.info" >"$out/$e.srv" 2>"$out/$e.srv.err" &
	spid=$!
	sleep 0.3
	fabric_exec hA timeout 200 ./mrc_xfer -c "$HB" -p "$port" -n 6000 -M 65536 -s 62 \
		--info-file "$out/cli.info" >"$out/$e.cli" 2>"$out/$e.cli.err" &
	cpid=$!
	sleep 1
	m0a=$(jinfo cli .mtu) m0b=$(jinfo srv .mtu)
	check "$e: the transfer is running when the link shrinks" kill -0 "$cpid" ||
		{ kill "$spid"; wait; return; }
	link_mtu "$NARROW"
	sleep 2
	ptb1=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
	sleep 2
	ptb2=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
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
	# ICMPv6 Packet Too Big is outside icmpv6's rate mask: one per drop.
	drops=$((ptb2 - ptb0))
	rtx=0
	for h in hA hB; do
		eval "p=\$((\$(counter $h PktTooBig) - p0_$h)) r=\$((\$(counter $h PmtuRetransmits) - r0_$h))"
		log "$e: $h PktTooBig +$p, PmtuRetransmits +$r, PktTooBigIgnored $(counter $h PktTooBigIgnored)"
		check "$e: $h applied a Packet Too Big" [ "$p" -ge 1 ]
		rtx=$((rtx + r))
	done
	# Per side it may be 0: the packets dropped before the report may have
	# been resent and acknowledged by the time it arrives (seen under TCG).
	check "$e: too-big packets in flight resent at once ($rtx)" [ "$rtx" -ge 1 ]
	for s in cli srv; do
		a=$(jinfo $s .mtu) t=$(($(jinfo $s .timeouts || echo 999) - $(jinfo $s .spurious_timeouts || echo 0)))
		bad=$(jinfo $s '[.planes[].bad] | add')
		[ $s = cli ] && b=$m0a || b=$m0b
		log "$e: $s timeouts $t genuine, lost inferred $(jinfo $s .lost_inferred), EVs bad $bad"
		check "$e: $s MTU lowered ($b -> $a)" [ "$a" -lt "$b" ]
		check "$e: $s packets fit $NARROW bytes ($a + 95 + $enc)" \
			[ "$((a + 95 + enc))" -le "$NARROW" ]
		check "$e: $s no path blamed: genuine timeouts $t <= 8 + $drops dropped" \
			[ "$t" -le $((8 + drops)) ]
		check "$e: $s no EV ASSUMED_BAD at the end ($bad)" [ "$bad" = 0 ]
	done
	check "$e: no packet too big for the link once the MTU dropped ($ptb1 -> $ptb2)" \
		[ "$ptb2" = "$ptb1" ]
}

port=7600
for e in $ENCAPS; do
	run "$e" "$port"
	port=$((port + 1))
done
finish
