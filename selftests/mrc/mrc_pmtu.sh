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
# namespaces (both directions cross the link); PmtuRetransmits > 0 (over
# both sides and every encapsulation); each side's MTU (MRC_INFO) below
# its starting value and small enough that a packet fits 1280 bytes with
# the encapsulation; no EV
# ASSUMED_BAD at the end; per side, plane 0 (the one with the narrow link)
# not singled out by timeouts: its timeouts at most 5/4 of the worst other
# plane's plus 8 plus the packets the link's routers dropped as too big if
# the link went quiet after them (a packet sent before its sender learned
# the new MTU may be lost to the drop and time out; without the handler the
# link drops for good, plane 0 had 49-188 timeouts against 0-130 on the
# worst other plane). Per plane, not in total: under TCG a stalled guest times
# out packets on every plane alike (19 and 24 genuine timeouts per side
# were seen with two drops and every EV good at the end), while a
# black-holed link times out plane 0's alone (9-42 per side before the
# handler). When another plane has more than 32 timeouts of its own the
# guest stalled and the comparison is logged, not judged, and so are
# the EVs bad at the end (a stall demotes EVs on every plane). The counts come from "mrcctl -j conn show" while both ends hold
# the finished connection open (mrc_xfer --hold). And no packet too big
# for the link once the MTU dropped (the link's routers'
# Icmp6OutPktTooBigs stand still from 2 s to 4 s after the change). Those
# two and no EV bad at the end are timing (check_timed): on the debug
# kernel every plane times out hundreds of packets under the 16.8 ms RTO,
# an EV may be bad when the dump is taken, and a late packet may still hit
# the link after 2 s.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

ENCAPS=${MRC_PMTU_ENCAPS:-srh usid none}
NARROW=1280
# Timeouts on a plane without the narrow link beyond which the guest, not
# the link, is what timed packets out.
STALL_TIMEOUTS=32
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
# plane_timeouts SIDE SELECT AGG: timeouts of the established connection's
# planes that SELECT (a jq condition on .id) keeps, summed or maxed by AGG.
plane_timeouts() {
	jq "[.[] | select(.state == \"established\") | .planes[] |
	    select($2) | .timeouts] | $3 // -1" "$out/$1.conn" 2>/dev/null || echo -1
}
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
	local ptb0 ptb1 ptb2 drops p0 po
	rm -f "$out/go"
	mrc_fabric_routes "$e" || { check "$e: routes" false; return; }
	link_mtu 1500
	ptb0=$(($(ptb_sent "sp-p0-s0") + $(ptb_sent t0b-p0)))
	for h in hA hB; do
		eval "p0_$h=\$(counter $h PktTooBig) r0_$h=\$(counter $h PmtuRetransmits)"
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
	link_mtu "$NARROW"
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
	# ICMPv6 Packet Too Big is outside icmpv6's rate mask: one per drop.
	# Drops are excused timeouts only while the link goes quiet after them
	# (a packet sent before its sender learned the MTU); a link that keeps
	# dropping is the failure itself and excuses nothing.
	drops=0
	[ "$ptb2" = "$ptb1" ] && drops=$((ptb2 - ptb0))
	rtx=0
	for h in hA hB; do
		eval "p=\$((\$(counter $h PktTooBig) - p0_$h)) r=\$((\$(counter $h PmtuRetransmits) - r0_$h))"
		log "$e: $h PktTooBig +$p, PmtuRetransmits +$r, PktTooBigIgnored $(counter $h PktTooBigIgnored)"
		check "$e: $h applied a Packet Too Big" [ "$p" -ge 1 ]
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
		check "$e: $s MTU lowered ($b -> $a)" [ "$a" -lt "$b" ]
		check "$e: $s packets fit $NARROW bytes ($a + 95 + $enc)" \
			[ "$((a + 95 + enc))" -le "$NARROW" ]
		p0=$(plane_timeouts $s '.id == 0' add)
		po=$(plane_timeouts $s '.id != 0' max)
		log "$e: $s per-plane timeouts:" \
			"$(jq -c '[.[] | select(.state == "established") | .planes[] | .timeouts]' \
				"$out/$s.conn" 2>/dev/null)"
		check "$e: $s per-plane counters dumped ($p0, $po)" [ "$((p0 >= 0 && po >= 0))" = 1 ]
		# Other planes timing out by the dozen is a guest stall, not the
		# link (seen on 6.12 in CI: [143,69,75,97], 354 timeouts, every
		# EV good at the end): per-plane counts are then noise, logged.
		# A link still black-holing is caught regardless: its routers
		# keep sending Packet Too Big (the last check of the round).
		# A path is blamed by timeouts that were not proven spurious: with
		# no more of those in all than the excused ones, the per-plane
		# counts (which include the spurious) blame nothing (seen on 6.12
		# in CI: none, srv [56,8,1,15] with 0 genuine).
		# The same stall demotes EVs on every plane for a while (silence is
		# failure): seen on 6.12 with ev_burst=1 in CI, none, cli [600,
		# 604,563,566] timeouts and 2 EVs bad at the dump. Then the bad
		# EVs at the end are logged too; the Packet Too Big standstill
		# below still catches a link that black-holes.
		if [ "$po" -le "$STALL_TIMEOUTS" ] || [ "$t" -le $((8 + drops)) ]; then
			check_timed "$e: $s no path blamed: $t genuine timeouts <= 8 + $drops dropped, or plane 0's $p0 <= that + 5/4 of another plane's most $po" \
				unblamed "$t" "$p0" "$po" "$drops"
			check_timed "$e: $s no EV ASSUMED_BAD at the end ($bad)" [ "$bad" = 0 ]
		else
			log "$e: $s plane 0's timeouts $p0 and $bad EVs bad at the end not judged: another plane timed out $po (> $STALL_TIMEOUTS), the guest stalled"
		fi
	done
	check_timed "$e: no packet too big for the link once the MTU dropped ($ptb1 -> $ptb2)" \
		[ "$ptb2" = "$ptb1" ]
}

# unblamed GENUINE P0 PO DROPS: no more genuine timeouts than the excused
# (8 + the drops), or plane 0 timed out no more than the excused plus 5/4 of
# another plane's most
unblamed() {
	[ "$1" -le $((8 + $4)) ] || [ "$2" -le $((8 + $4 + $3 + $3 / 4)) ]
}

port=7600
rtx_all=0
for e in $ENCAPS; do
	run "$e" "$port"
	port=$((port + 1))
done
check "too-big packets in flight resent at once, over $ENCAPS ($rtx_all)" [ "$rtx_all" -ge 1 ]
finish
