#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Flowcells leave as segmentation-offload datagrams and arrive whole, on
# every encapsulation. On the emulated fabric (mrc_fabric_lib.sh: 2 hosts x
# 4 planes x 2 spines), per encapsulation (srh, usid, none), one transfer
# with the EV profile's default burst and one with burst 1:
#
#  - digests equal both ways (mrc_xfer), every message delivered;
#  - skbs per MRC packet on hA's sending side: the skbs its four plane
#    devices transmitted against the packets mrc.ko sent (TxPackets of
#    hA's /proc/net/mrc, which counts every MRC packet of a flowcell):
#    flowcells at most 0.6 (a burst of 32 is one skb; SACKs, the reverse
#    direction's acknowledgements, stay one skb each), burst 1 at least
#    0.9 (every packet its own skb);
#  - flowcells arrive whole: the skbs hB's plane devices received against
#    the MRC packets hB processed (RxPackets, one per packet of a
#    flowcell walked at gso_size): flowcells at most 0.6, burst 1 at
#    least 0.9;
#  - and reach mrc.ko whole, not cut into an skb per packet by UDP: hB's
#    RxFlowcells (GSO skbs taken apart in place) at least one per 64
#    packets hA sent (half the flowcells the default burst of 32 makes),
#    none with burst 1;
#  - flowcells go from their message's own pages (mrc_tx_skb.c, laid out
#    as on the wire at sendmsg()): hA's TxFlowcellsInPlace above 0 and at
#    least half of hB's RxFlowcells (retransmissions are copied), 0 with
#    burst 1; one more srh transfer with net.mrc.tx_in_place 0 sends none
#    in place and copies them into frag pages of hA's ring (how many of
#    those were filled again, TxFragPagesReused, is logged: it depends on
#    how soon hB's reader lets go of them);
#  - messages are sent in the pages of hA's completed ones, not fresh
#    zeroed pages (mrc_mem.c), as far as the code guarantees it whatever
#    the timing. A message completes in send order
#    (mrc_req_poll_completion()) and its socket then keeps up to 32 of its
#    pages (mrc_mem_tx_pages_keep()); a send takes as many kept pages as it
#    spans and finds free, counted in TxPagesReused
#    (mrc_mem_tx_pages_reuse(), mrc_mb_pages_in()); and hA's client sends
#    only while its messages queued stay below SO_SNDBUF (mrc_poll()),
#    128 KiB at first (net.mrc.wmem[1]), grown as messages complete to at
#    most 4 MiB (wmem[2], mrc_sndbuf_grow()). A kept page is free at once
#    unless a flowcell went from it in place (mrc_mb_wire_frags()): hB
#    then holds it until its reader copies the payload out, and no counter
#    of hA's bounds when. So in the transfers with none in place
#    (TxFlowcellsInPlace 0: burst 1, and tx_in_place 0) TxPagesReused is
#    at least 55: the fewest pages any order of completions and sends can
#    reuse with this test's messages (mrc_xfer -s 22: 40 of 1 to 953,152
#    bytes, 6,684,144 in all), computed over every order with each
#    message's pages and charge as mrc_mb_alloc_tx() and mrc_mb_size() make
#    them, flat or in the wire layout of any packet size, and with a
#    send's look at the cache made before the completions its admission
#    waited for (mrc_poll() reads the queue without the lock). The worst
#    order, pages flat, reuses message 1's 23 pages, kept before send 3
#    (messages 1 and 2 overflow 128 KiB), in sends 4 and 6, and 32 of
#    message 2's, kept before send 24 (messages 2 to 23 weigh more than
#    4 MiB), in send 24. A send refused after it took pages frees them,
#    counted all the same: that never lowers the count.
#    Judged with the default traffic (MRC_FC_MSGS, MRC_FC_MAX unset) and
#    net.mrc.wmem at most its defaults, and below net.mrc.mem[0] (logged),
#    where kept pages are given back instead (mrc_mem_account.sh judges
#    that side). With flowcells in place the count is logged, not judged:
#    3.4-23 % of the pages' worth sent was measured there (15-27 % with
#    flowcells copied), and the ratio judged until issue 52 (a sixteenth,
#    loosened to a sixty-fourth after failures under TCG) held only as
#    long as hB's reader kept up; what matters there, that no page an skb
#    still holds is handed to a new message, the digests judge (hB's
#    reader would copy the new bytes);
#  - payloads stay in the skb they arrived in until the reader copies
#    them (mrc_msg.c): hB's RxHeld above 0 and at least ten times its
#    RxCopied (payloads placed by copying). Against all of hB's
#    RxPackets this was "at least half" until 2026-11-27: duplicates are
#    neither held nor copied, and the debug kernel's guest, slow enough to
#    retransmit half of what it sends packet by packet, held every
#    payload (5,201 held, 0 copied) and still failed it (10,702 received);
#  - flowcells are processed on the CPU that reads their socket, not in
#    the softirq of the CPU they arrived on (mrc_steer.c): the server is
#    pinned to CPU 0, the client to CPU 1, and hB's RxSteered is above 0
#    with flowcells, 0 with burst 1 (a datagram of one packet is never
#    handed over) and 0 in one more srh transfer with
#    net.mrc.rx_steer_min_bytes 0 (steering off); the floor is in bytes:
#    flowcells of 6 packets (7,680 to 8,772 bytes) are steered with a
#    floor of 6,000 and not with the default 10,240;
#  - the receiver processed every packet all the same: hB's RxPackets at
#    least hA's TxPackets minus a tenth, and minus what the fabric's
#    devices dropped (fabric_drops, skbs, at the packets per skb hA sent:
#    a stalled guest overflows the switches' queues, as a 6.1 run of
#    2026-11-29 did with 969 of 8,727 packets, and hB's devices received
#    exactly as many skbs as hB processed packets; SACKs dropped on their
#    way back make the bound looser); what is lost on the way is
#    retransmitted and counted again (timing, check_timed), and found no
#    ICRC
#    wrong (RxBadIcrc unchanged: each segment of a flowcell carries the
#    ICRC of its own pseudo-header, UDP length included, which hB
#    recomputes).
#
# One more srh transfer with flowcells goes through a shaper: tbf on hA's
# uplinks (20 Mbit/s each, a 32 KB bucket) cuts a GSO skb longer than its
# bucket into packets. Flowcells are autosized to a millisecond of one
# plane's share of the connection's rate (net.mrc.tx_burst_autosize_us,
# kmod/core/mrc_conn.c): hA's TxFlowcellsAutosized above 0, and every
# flowcell check above holds. With net.mrc.tx_burst_autosize_us 0
# (MRC_FC_AUTOSIZE_US=0 in the environment) the counter stays 0 and that
# check fails (the other flowcell checks still hold there: this test's
# flowcells are 4 packets on average, window- and message-bound, and tbf
# cuts only the longer ones; 0.54 skb per packet against 0.31 in one run).
#
# Last, one srh transfer on a fabric of MTU 9000 behind the same shaper:
# its flowcells of 9,000-byte packets autosized too (TxFlowcellsAutosized
# above 0; the floor is 2 packets there, not 8: mrc_conn_burst_autosize()).
#
# One more srh transfer with flowcells has its ICRCs computed in turn by
# the crypto API's "crc32" driver and by crc32_le (module parameter icrc
# switched every 100 ms, mrc_lib.sh): each implementation's packets
# checked by the other, RxBadIcrc unchanged.
#
# The ratios are logged next to the goodput of each run.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

N=${MRC_FC_MSGS:-40}
MAX=${MRC_FC_MAX:-1048576}
out=$(mktemp -d)
port=7400

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; exit $ksft_fail; }
trap 'icrc_alternate_stop; fabric_destroy; rm -rf "$out"' EXIT

# counter HOST NAME: one /proc/net/mrc counter of a fabric host
counter() { fabric_exec "$1" cat /proc/net/mrc | awk -v k="$2" '$1 == k { print $2 }'; }
# dev_stat HOST tx|rx: skbs through the host's plane devices, summed
dev_stat() {
	local p s=0
	for ((p = 0; p < FAB_NPLANES; p++)); do
		s=$((s + $(fabric_exec "$1" cat "/sys/class/net/pl$p/statistics/$2_packets")))
	done
	echo "$s"
}
# ratio A B: A / B with three decimals
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b ? a / b : 0 }'; }
# le X Y / ge X Y: numeric comparisons of decimals
le() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x <= y) }'; }
ge() { awk -v x="$1" -v y="$2" 'BEGIN { exit !(x >= y) }'; }

fabric_create || exit $ksft_fail
# MRC_FC_AUTOSIZE_US=0 shows the shaped run fail without autosizing.
[ -n "${MRC_FC_AUTOSIZE_US:-}" ] &&
	fabric_exec hA sysctl -qw net.mrc.tx_burst_autosize_us="$MRC_FC_AUTOSIZE_US"
HB=${FAB_HADDR[hB]}
mrc_fabric_planes || exit $ksft_fail
# The module's default burst (uapi MRC_EV_BURST_DEFAULT), run and restored.
# In the collection's run with per-packet spraying (MRC_KO_PARAMS
# ev_burst=1) profile 0 has burst 1: flowcells get the uapi's default.
def_burst=$(mrcctl hA -j profile show id 0 | grep -o '"burst":[0-9]*' | cut -d: -f2)
if [ "$def_burst" = 1 ]; then
	def_burst=$(mrc_uapi_burst_default)
	log "profile 0 sprays per packet (ev_burst=1): flowcells of ${def_burst:-?} (uapi)"
fi
check "the default burst is a flowcell (${def_burst:-none} > 1)" [ "${def_burst:-0}" -gt 1 ]

# TxPagesReused's floor with no flowcell in place (see the header): 55 pages
# for mrc_xfer -s 22's 40 messages of up to 1 MiB, with SO_SNDBUF at most
# 128 KiB at first and 4 MiB grown (larger ones let more be queued before
# a message completes, other traffic has other messages): else logged.
read -r _ wmem_def wmem_max <<<"$(sysctl -n net.mrc.wmem 2>/dev/null)"
reuse_min=
if [ "$N" = 40 ] && [ "$MAX" = 1048576 ] && [ -n "$wmem_max" ] &&
	[ "$wmem_def" -le 131072 ] && [ "$wmem_max" -le 4194304 ]; then
	reuse_min=55
else
	log "TxPagesReused not judged: its floor is derived for 40 messages of up" \
		"to 1 MiB (have $N of up to $MAX) and net.mrc.wmem[1..2] at most" \
		"131072 4194304 (have ${wmem_def:-?} ${wmem_max:-?})"
fi
log "net.mrc.mem[0]: $(sysctl -n net.mrc.mem 2>/dev/null | awk '{ print $1 }') pages" \
	"(above it a completed message's pages are given back, not kept)"

# run MODE BURST [RCVBUF]: one transfer; checks as described above
run() {
	local mode=$1 burst=$2 name="$1-burst$2${3:+-rcvbuf$3}${run_tag:-}" h rc src spid
	local d0 d1 i0 i1 skbs pkts rx rskbs txr rxr f0 f1 fc k0 k1 held
	local c0 c1 copied tx0 tx1 p0 p1 r0 r1 s0 s1 steered w0 w1 inplace
	local x0 x1 lost z0 z1 pages
	for h in hA hB; do
		mrcctl "$h" profile set id 0 burst "$burst" >/dev/null ||
			{ check "$name: profile burst $burst" false; return; }
	done
	port=$((port + 1))
	tx0=$(dev_stat hA tx) p0=$(counter hA TxPackets)
	d0=$(dev_stat hB rx) r0=$(counter hB RxPackets) i0=$(counter hB RxBadIcrc)
	f0=$(counter hB RxFlowcells) k0=$(counter hB RxHeld) c0=$(counter hB RxCopied)
	u0=$(counter hA TxPagesReused) g0=$(counter hA TxFragPagesReused)
	s0=$(counter hB RxSteered) w0=$(counter hA TxFlowcellsInPlace)
	x0=$(fabric_drops) z0=$(counter hA TxFlowcellsAutosized)
	fabric_exec hB taskset -c 0 ./mrc_xfer -l -p "$port" -n "$N" -M "$MAX" -s 11 ${3:+--rcvbuf $3} \
		>"$out/$name.srv" 2>"$out/$name.srv.err" &
	spid=$!
	sleep 0.3
	fabric_exec hA taskset -c 1 timeout 300 ./mrc_xfer -c "$HB" -p "$port" -n "$N" -M "$MAX" -s 22 \
		>"$out/$name.cli" 2>"$out/$name.cli.err"
	rc=$?
	[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	tx1=$(dev_stat hA tx) p1=$(counter hA TxPackets)
	d1=$(dev_stat hB rx) r1=$(counter hB RxPackets) i1=$(counter hB RxBadIcrc)
	f1=$(counter hB RxFlowcells) k1=$(counter hB RxHeld) c1=$(counter hB RxCopied)
	u1=$(counter hA TxPagesReused) g1=$(counter hA TxFragPagesReused)
	s1=$(counter hB RxSteered) steered=$((s1 - s0))
	w1=$(counter hA TxFlowcellsInPlace) inplace=$((w1 - w0))
	x1=$(fabric_drops) z1=$(counter hA TxFlowcellsAutosized)
	xfer_verdict "$name" "$out" "$rc" "$src"
	skbs=$((tx1 - tx0)) pkts=$((p1 - p0)) rskbs=$((d1 - d0)) rx=$((r1 - r0))
	txr=$(ratio "$skbs" "$pkts") rxr=$(ratio "$rskbs" "$rx") fc=$((f1 - f0))
	held=$((k1 - k0)) copied=$((c1 - c0)) reused=$((u1 - u0)) fragre=$((g1 - g0))
	lost=$(((x1 - x0) * pkts / (skbs ? skbs : 1)))
	sent=$(awk '$1 == "tx" { print $4 }' "$out/$name.cli")
	pages=$((${sent:-0} / 4096))
	log "$name: hA sent $pkts MRC packets in $skbs skbs ($txr)," \
		"hB received $rx in $rskbs ($rxr), $fc flowcells whole," \
		"$held payloads held in their skb, $copied copied;" \
		"$reused pages reused for $pages pages' worth sent ($(ratio "$reused" "$pages"))," \
		"$fragre frag pages filled again, $inplace flowcells sent in place," \
		"$steered flowcells steered, $((z1 - z0)) autosized;" \
		"the fabric dropped $((x1 - x0)) skbs;" \
		"$(grep rate "$out/$name.cli")"
	check "$name: packets sent ($pkts >= $N)" [ "$pkts" -ge "$N" ]
	if [ "$inplace" != 0 ]; then
		# hB holds what went in place until its reader copies it out.
		log "$name: $reused pages reused with $inplace flowcells in place," \
			"measured, not judged (hB's reader's timing)"
	elif [ -n "$reuse_min" ]; then
		check "$name: messages sent in pages of completed ones, none in place ($reused TxPagesReused >= $reuse_min, the fewest any timing allows)" \
			[ "$reused" -ge "$reuse_min" ]
	fi
	if [ "$burst" = 1 ]; then
		check "$name: one skb per packet sent ($txr >= 0.9)" ge "$txr" 0.9
		check "$name: one skb per packet received ($rxr >= 0.9)" ge "$rxr" 0.9
		check "$name: no flowcell received ($fc RxFlowcells)" [ "$fc" = 0 ]
		check "$name: no frag page without a flowcell ($fragre TxFragPagesReused)" \
			[ "$fragre" = 0 ]
		check "$name: no flowcell, none in place ($inplace TxFlowcellsInPlace)" \
			[ "$inplace" = 0 ]
	elif [ "$copy_tx" ]; then
		check "$name: no flowcell in place with tx_in_place 0 ($inplace TxFlowcellsInPlace)" \
			[ "$inplace" = 0 ]
		# Not judged: a frag page is filled again only if the ring
		# comes back to it after the receiver let go of it, and hB
		# holds each payload in its skb until the reader copies it.
		# A CI run of 2026-11-29 on a slow host found all 1,631 pages'
		# worth still held each time (0 filled again; 289 message
		# pages reused, which are looked for, not taken in turn).
		log "$name: $fragre frag pages filled again (TxFragPagesReused)"
	else
		check "$name: flowcells sent from their message's pages ($inplace TxFlowcellsInPlace > 0, >= $fc RxFlowcells / 2)" \
			[ "$inplace" -gt 0 -a "$((inplace * 2))" -ge "$fc" ]
	fi
	if [ "$burst" != 1 ]; then
		check "$name: flowcells, not packets, sent ($txr <= 0.6)" le "$txr" 0.6
		check "$name: flowcells arrive whole ($rxr <= 0.6)" le "$rxr" 0.6
		check "$name: mrc.ko takes them whole ($fc RxFlowcells >= $pkts / 64)" \
			[ "$((fc * 64))" -ge "$pkts" ]
	fi
	if [ "$burst" = 1 ] || [ "$steer_off" ]; then
		check "$name: nothing handed to another CPU (${steer_off:+$steer_off, }$steered RxSteered)" \
			[ "$steered" = 0 ]
	else
		check "$name: flowcells processed on the reader's CPU ($steered RxSteered > 0)" \
			[ "$steered" -gt 0 ]
	fi
	if [ -n "$3" ]; then
		check "$name: payloads held within the charge ($held > 0)" [ "$held" -gt 0 ]
		check "$name: the rest copied past it ($copied > 0)" [ "$copied" -gt 0 ]
		return
	fi
	# Payloads past the receive buffer's charge are copied by design (the
	# rcvbuf run above): a reader that falls behind under TCG makes some
	# (none-burst1 157 and usid-burst1 471 of some 5,000 in CI runs).
	# Mostly held is the claim; all copied, or none held, the regression.
	check "$name: payloads held in their skb, not copied ($held held >= 2 x $copied copied, > 0)" \
		[ "$held" -gt 0 -a "$held" -ge "$((2 * copied))" ]
	check_timed "$name: the receiver processed every packet ($rx >= 0.9 x ($pkts - $lost lost in the fabric))" \
		[ "$((rx * 10))" -ge "$(((pkts - lost) * 9))" ]
	check "$name: every ICRC right ($((i1 - i0)) RxBadIcrc)" [ "$i1" = "$i0" ]
	if [ "${shaped:-}" ]; then
		check "$name: flowcells autosized to the shaped rate ($((z1 - z0)) TxFlowcellsAutosized > 0)" \
			[ "$((z1 - z0))" -gt 0 ]
	fi
}

for mode in srh usid none; do
	if [ "$mode" = none ]; then
		# Plain IPv6 needs the host addresses routed in every plane:
		# the leaves' ECMP over the spines, as in mrc_fabric_xfer.sh.
		mrc_fabric_plain_routes || { check "none: plain routes" false; continue; }
	fi
	mrc_fabric_routes "$mode" || exit $ksft_fail
	run "$mode" "$def_burst"
	run "$mode" 1
	if [ "$mode" = srh ]; then
		run "$mode" 1 1048576
		# Steering off: every flowcell processed where it arrived.
		steer_min=$(fabric_exec hB sysctl -n net.mrc.rx_steer_min_bytes)
		fabric_exec hB sysctl -qw net.mrc.rx_steer_min_bytes=0 ||
			check "net.mrc.rx_steer_min_bytes 0" false
		steer_off="steering off" run_tag=-nosteer run "$mode" "$def_burst"
		# The floor counts bytes: 6 packets are under the default,
		# over 6,000.
		fabric_exec hB sysctl -qw net.mrc.rx_steer_min_bytes="$steer_min"
		steer_off="under the floor" run_tag=-floor"$steer_min" run "$mode" 6
		fabric_exec hB sysctl -qw net.mrc.rx_steer_min_bytes=6000 ||
			check "net.mrc.rx_steer_min_bytes 6000" false
		run_tag=-floor6000 run "$mode" 6
		fabric_exec hB sysctl -qw net.mrc.rx_steer_min_bytes="$steer_min"
		# Every flowcell copied into frag pages.
		fabric_exec hA sysctl -qw net.mrc.tx_in_place=0 ||
			check "net.mrc.tx_in_place 0" false
		copy_tx=1 run_tag=-copied run "$mode" "$def_burst"
		fabric_exec hA sysctl -qw net.mrc.tx_in_place=1
		# Flowcells whose ICRCs the crypto driver and crc32_le compute
		# in turn, every 100 ms, each checked by whichever runs then.
		if icrc_alternate_start; then
			run_tag=-icrc-alternating run "$mode" "$def_burst"
			icrc_alternate_stop
		else
			check "icrc=crypto: a crypto \"crc32\" driver" false
		fi
		# Through a shaper: the flowcell checks of run() (hA's devices
		# send fewer skbs than packets, hB's receive them whole) hold
		# only if flowcells fit tbf's bucket, i.e. if autosizing cut
		# them to a millisecond of the connection's rate. Steering's
		# floor at 6,000 bytes: the autosized flowcells of 8 packets
		# (MRC_BURST_AUTOSIZE_MIN) are steered too.
		fabric_tbf --host hA 20mbit 32kb 20ms || check "tbf on hA's uplinks" false
		fabric_exec hB sysctl -qw net.mrc.rx_steer_min_bytes=6000
		shaped=1 run_tag=-shaped run "$mode" "$def_burst"
		fabric_exec hB sysctl -qw net.mrc.rx_steer_min_bytes="$steer_min"
		fabric_tbf --host hA clear
	fi
done
for h in hA hB; do mrcctl "$h" profile set id 0 burst "$def_burst" >/dev/null; done

# Jumbo frames: at MTU 9000 a flowcell holds 6 packets (mrc_burst_max()),
# which a floor of 8 packets would never cut; the floor is 2 there
# (12,000 bytes' worth, at least 2: mrc_conn_burst_autosize()). One srh
# transfer on a fabric of MTU 9000 behind the same shaper: digests equal,
# hA's TxFlowcellsAutosized above 0 (0 with the floor of 8: seen).
fabric_destroy
FAB_MTU=9000 fabric_create || exit $ksft_fail
[ -n "${MRC_FC_AUTOSIZE_US:-}" ] &&
	fabric_exec hA sysctl -qw net.mrc.tx_burst_autosize_us="$MRC_FC_AUTOSIZE_US"
mrc_fabric_planes || exit $ksft_fail
mrc_fabric_routes srh || exit $ksft_fail
# New namespaces: profile 0 takes the module's ev_burst again (1 in a
# burst-1 collection, which would leave nothing to autosize).
for h in hA hB; do
	mrcctl "$h" profile set id 0 burst "$def_burst" >/dev/null ||
		check "$h: profile burst $def_burst (MTU 9000)" false
done
fabric_tbf --host hA 20mbit 32kb 20ms || check "tbf on hA's uplinks (MTU 9000)" false
name=srh-j9000-shaped port=$((port + 1))
tx0=$(dev_stat hA tx) p0=$(counter hA TxPackets) z0=$(counter hA TxFlowcellsAutosized)
fabric_exec hB ./mrc_xfer -l -p "$port" -n "$N" -M "$MAX" -s 11 >"$out/$name.srv" 2>"$out/$name.srv.err" &
spid=$!
sleep 0.3
fabric_exec hA timeout 300 ./mrc_xfer -c "$HB" -p "$port" -n "$N" -M "$MAX" -s 22 \
	>"$out/$name.cli" 2>"$out/$name.cli.err"
rc=$?
[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
wait "$spid"
src=$?
tx1=$(dev_stat hA tx) p1=$(counter hA TxPackets) z1=$(counter hA TxFlowcellsAutosized)
xfer_verdict "$name" "$out" "$rc" "$src"
log "$name: hA sent $((p1 - p0)) MRC packets in $((tx1 - tx0)) skbs," \
	"$((z1 - z0)) flowcells autosized; $(grep rate "$out/$name.cli")"
check "$name: flowcells of 9,000-byte packets autosized to the shaped rate ($((z1 - z0)) TxFlowcellsAutosized > 0)" \
	[ "$((z1 - z0))" -gt 0 ]

finish
