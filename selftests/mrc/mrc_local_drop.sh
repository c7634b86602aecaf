#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Local drops: a packet the sending host's own queue refuses (NET_XMIT_DROP
# from a full qdisc) is not a path failure. The client's link is shaped by
# a tbf qdisc whose queue holds a few packets, far less than MRC's window,
# so it refuses packets all along. The engine must hear of each refusal at
# once: the packet is retransmitted at once on a plane with room, the EV is
# not blamed, and no retransmit timeout is paid for it. Before, each
# refusal only counted as TxErrors and cost an RTO (16.8 ms) and a
# timed-out EV.
#
# Twice: per-packet spraying (EV profile burst 1) behind a tbf whose bucket
# (16 KB) is smaller than a flowcell, and flowcells (the default burst)
# behind a tbf that takes a flowcell whole (64 KB bucket, 48 KB queue): a
# full queue then refuses the whole datagram, and every packet of it is
# reported. (A shaper that cuts a flowcell into packets itself, tbf with a
# bucket below it, refuses some of them and reports success: those are
# learnt by timeout, see Documentation/networking/mrc-datapath.rst.)
#
# Evidence, each time: the qdisc refused at least 10 datagrams (at the
# first of 200, 100 and 50 Mbit/s that did), TxLocalDrops of the client's
# namespace (refused datagrams, and those of the same batch not tried) at
# least the qdisc's drops, no EV left bad, no TxErrors, digests equal both
# ways. The qdisc's refusals are timing (check_timed): the debug kernel's
# guest cannot fill 200 Mbit/s. The connection's genuine (not proven
# spurious) timeouts against its retransmissions are logged, measured,
# not judged: no counter MRC_INFO exports tells what of them refusals cost
# (run(), below, derives the check the engine's counters would allow).
#
# Then a queue that refuses everything for 2 s mid-transfer (blackout(),
# below): the tries against it back off and the peer's probes are paced as
# one, both bounded from counters by what the code guarantees.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

MRCCTL=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
N=${MRC_LOCAL_DROP_MSGS:-300}
MAX=262144
out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

veth_pair ldA lda0 fd00:1d::2/64 ldB ldb0 fd00:1d::1/64 || exit $ksft_fail

# bursts NAME BURST: the EV profile's flowcell length on both hosts
bursts() {
	local h
	for h in ldA ldB; do
		ip netns exec "$h" "$MRCCTL" profile set id 0 burst "$2" ||
			{ check "$1: profile burst $2" false; return 1; }
	done
}

# xfer_start NAME PORT COUNT [CLIENT OPTION...]: COUNT messages each way
# between ldA and ldB's PORT, in the background (sets spid and cpid)
xfer_start() {
	local name=$1 port=$2 n=$3
	shift 3
	ip netns exec ldB ./mrc_xfer -l -p "$port" -n "$n" -M "$MAX" -s 11 \
		>"$out/$name.srv" 2>"$out/$name.srv.err" &
	spid=$!
	sleep 0.3
	ip netns exec ldA timeout 300 ./mrc_xfer -c fd00:1d::1 -p "$port" -n "$n" \
		-M "$MAX" -s 22 "$@" >"$out/$name.cli" 2>"$out/$name.cli.err" &
	cpid=$!
}

# xfer_finish NAME: both ends of xfer_start's transfer exit 0, digests equal
xfer_finish() {
	local name=$1 rc src
	wait "$cpid"
	rc=$?
	# A client that failed leaves the server waiting for it.
	[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	check "$name: client exit ($(cat "$out/$name.cli.err"))" [ "$rc" = 0 ]
	check "$name: server exit ($(cat "$out/$name.srv.err"))" [ "$src" = 0 ]
	expect_digests "$name" "$out/$name.cli" "$out/$name.srv"
}

# run NAME BURST TBF-ARGS: one transfer through the shaped link, its rate
# the first of RATES at which the qdisc refused 10 datagrams or more. The
# sender must outrun the shaper for its queue to refuse anything, and a
# sender in a TCG guest may not: on 2026-11-29's host, three times slower
# than usual, one that sent 62 Mbit/s met 9 refusals at 200 Mbit/s. A
# lower rate is not the first choice: at 50 Mbit/s the queue stays full
# for longer than the engine's rounds of immediate resends (one run there
# paid 222 genuine timeouts for 813 retransmissions).
run() {
	local name=$1 burst=$2 info drops errs tmo spur real rtx bad qdrops d0 e0
	local u0 dups ratio rate inf sinf ld rl
	shift 2
	bursts "$name" "$burst" || return
	for rate in $RATES; do
		# A fresh qdisc: its drop counter is this run's.
		tc -n ldA qdisc del dev lda0 root 2>/dev/null
		tc -n ldA qdisc add dev lda0 root tbf rate "$rate" "$@" ||
			{ check "$name: tbf rate $rate $*" false; return; }
		d0=$(proc_counter TxLocalDrops ldA) e0=$(proc_counter TxErrors ldA)
		u0=$(proc_counter RxDuplicate ldB)
		xfer_start "$name" 7200 "$N" --info-json
		xfer_finish "$name"
		qdrops=$(tc -n ldA -s -j qdisc show dev lda0 | jq '.[0].drops')
		[ "${qdrops:-0}" -ge 10 ] && break
		log "$name: $qdrops refusals at $rate ($(grep rate "$out/$name.cli")):" \
			"the sender did not outrun the shaper"
	done

	info=$(sed -n 's/^info //p' "$out/$name.cli")
	drops=$(($(proc_counter TxLocalDrops ldA) - d0))
	errs=$(($(proc_counter TxErrors ldA) - e0))
	dups=$(($(proc_counter RxDuplicate ldB) - u0))
	tmo=$(jq -r .timeouts <<<"$info")
	spur=$(jq -r .spurious_timeouts <<<"$info")
	rtx=$(jq -r .retransmits <<<"$info")
	bad=$(jq -r .ev_bad <<<"$info")
	log "$name at $rate: qdisc drops $qdrops, TxLocalDrops $drops, TxErrors $errs;" \
		"connection: $rtx retransmits, $tmo timeouts ($spur spurious), $bad EVs bad;" \
		"$(grep rate "$out/$name.cli")"
	check_timed "$name: the qdisc refused packets ($qdrops >= 10)" [ "${qdrops:-0}" -ge 10 ]
	check "$name: each refusal reached the engine ($drops >= $qdrops)" \
		[ "$drops" -ge "${qdrops:-0}" ]
	check "$name: no refusal counted as a transmit error ($errs)" [ "$errs" = 0 ]
	# Refusals cost no timeouts: what the code guarantees, and why it is
	# not judged here. A refused data packet goes back to the engine with
	# its PSN and EV (mrc_xmit_queue() -> mrc_conn_local_drops() ->
	# mrc_conn_tx_dropped() -> mrc_req_on_local_drop()). If that copy is
	# still the one in flight on that EV (SENT), the engine counts it
	# (tx_local_drops) and marks it lost, cause MRC_RTX_LOCAL
	# (mrc_req_mark_lost()); it goes again once its plane reopens
	# (mrc_conn_room_timer(): 250 us doubling to 16 ms, under the 16.8 ms
	# RTO floor; veth_pair gives one plane), counted in tx_rtx_local
	# (req_send_rtx()). Only SENT packets time out (mrc_req_on_timer()) or
	# are inferred lost (mrc_loss_detect()), and every caller of
	# mrc_req_mark_lost() takes SENT packets only: a refused copy the
	# engine took is never timed out nor inferred lost, whatever the
	# timing. In counters: each retransmission has one cause
	# (req_send_rtx()); a timeout (T) or an inferred loss (I) is sent
	# again once, or acknowledged before that, which req_check_spurious()
	# proves spurious (S, SI); a refused retransmission whose earlier copy
	# is acknowledged before it goes again is proven spurious as well
	# (mrc_req_on_local_drop() puts back the send time of the copy the
	# verdict was for), unless no verdict sent it (a tail-loss probe, a
	# NACK's or a retired path's resend), itself a retransmission the left
	# side below keeps. So over a transfer that completes, in any timing:
	#
	#	retransmits - (T - S) - (I - SI) >= tx_local_drops
	#
	# That is this claim's check, judged from MRC_INFO (version 7:
	# local_drops, rtx_local) once every message is acknowledged
	# (mrc_xfer --info-json). TxLocalDrops is no stand-in for
	# local_drops: it counts datagrams (a flowcell is one), refused
	# control packets too, and is counted before the engine, which drops a
	# report whose packet was already declared lost, sent again or
	# acknowledged (MRC_E_STALE): a copy held between its hand-out and the
	# qdisc past the RTO or the reordering window (a long batch, the
	# backlog release_sock() runs in sendmsg, a descheduled vCPU). Such a
	# refusal costs a verdict, and its resend is on both sides of the
	# inequality, which still holds. Seen failing with
	# mrc_req_on_local_drop() made to leave the packet to its timer.
	# Nor do genuine timeouts tell. Here the qdisc takes or refuses whole
	# datagrams (its buckets hold a flowcell) and nothing past it drops
	# MRC's packets but an allocation failure (RxNoMemory; ldB answers a
	# lack of room with a NACK), so besides those late verdicts they are
	# spurious timeouts the engine could not prove (the acknowledgment came
	# more than the minimum RTT after the resend and did not echo the
	# timed-out copy's timestamp): a guest stalled past the RTO, a batch
	# handed out longer ago than that. The packet of such a timeout reached
	# ldB twice, unless its acknowledgment came between a resend's hand-out
	# and refusal (RxDuplicate counts those copies, and other spurious
	# retransmissions'). And a refusal the engine ignored would be learnt by
	# inference (mrc_req_loss.c) sooner than by timeout. So they are logged
	# against the retransmissions, with ldB's duplicates, not judged. Until
	# issue 52 they were judged, at most a tenth of the retransmissions,
	# then a half after a host three times slower than usual gave 0 to 313
	# genuine timeouts against 346 to 844 retransmissions (2026-11-29).
	inf=$(jq -r .lost_inferred <<<"$info")
	sinf=$(jq -r .spurious_losses <<<"$info")
	ld=$(jq -r .local_drops <<<"$info")
	rl=$(jq -r .rtx_local <<<"$info")
	log "$name: the engine took back $ld refused packets, resent $rl of them;" \
		"verdicts: $tmo timeouts ($spur spurious), $inf inferred losses ($sinf spurious)"
	check "$name: refusals cost no verdict ($rtx retransmits - ($tmo - $spur) timeouts - ($inf - $sinf) inferred >= $ld taken back)" \
		[ "$((rtx - (tmo - spur) - (inf - sinf)))" -ge "${ld:-1}" ]
	check_timed "$name: the engine took refusals back ($ld >= 1)" [ "${ld:-0}" -ge 1 ]
	real=$((tmo - spur))
	ratio=$(awk -v a="$real" -v b="$rtx" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	log "$name: measured, not judged: $real genuine timeouts ($tmo, $spur" \
		"proven spurious) for $rtx retransmissions ($ratio); ldB received" \
		"$dups data packets twice"
	check "$name: no EV blamed ($bad bad)" [ "$bad" = 0 ]
}

# 200 Mbit/s (then 100, then 50: run()), a queue of 24 KB (16 full-size
# packets): MRC's window is 256 KiB, so the queue overflows whenever the
# window outgrows it.
RATES=${MRC_LOCAL_DROP_RATES:-200mbit 100mbit 50mbit}
run per-packet 1 burst 16kb limit 24kb
run flowcells "${MRC_LOCAL_DROP_BURST:-16}" burst 64kb limit 48kb

# A queue that refuses everything for MRC_BLACKOUT_S seconds (2) in the
# middle of a transfer (pfifo limit 0: no bypass, every packet refused),
# as a host whose CPU is too busy to drain its queues refuses. The bounds
# below are what the code guarantees over the W ms between the first and
# the last reading, from counters, not rates: a slow host's timers fire
# late, never early, which only lowers the counts. The qdisc's refusals q
# are of three kinds:
#
#  1. ldA's data tries. A refused data packet closes its plane
#     (mrc_xmit_queue() -> mrc_conn_local_drops() -> mrc_conn_close_room())
#     until the connection timer opens it again (mrc_conn_room_timer()).
#     A closure is twice the previous one (250 us doubling to 16 ms) when
#     the queue took nothing, as this one never does, and the refusal came
#     less than 16 ms after the reopening; else 250 us again.
#     mrc_xmit_queue() tries a plane once per call (later data packets for
#     it are reported untried), and the engine gets no data for a closed
#     plane: one try per plane per opening. Openings in W ms: at most
#     2 + (W + 16.25) * 5 / 23.75, the one open at the first reading
#     included. A closure back at 250 us costs the 16 ms its plane stood
#     open untried, so the densest run is that and four doublings, 5
#     openings in 23.75 ms (210 a second; 62 when each reopening is tried
#     at once). One plane: veth_pair configures no MRC plane nor route,
#     the connection has the implicit plane 0 alone (mrc_conn_build()).
#     ldA's own probes, were any of its EVs bad (a refusal blames none),
#     are paced as the peer's below.
#  2. ldA's answers and the tries of its receive passes. Each MRC packet
#     ldA receives (RxPackets of its namespace, every packet of a
#     flowcell) draws at most one answer: mrc_resp_on_data() records one
#     pending SACK chunk or queues one NACK, mrc_resp_poll_tx() sends one
#     SACK per chunk pending, mrc_resp_on_probe() queues one probe answer.
#     Its receive pass adds at most one data try, when it runs while a
#     plane is open (between the reopening timer's pass and the report of
#     the refusal it met): a pass of another context finds data only once
#     acknowledgments grow the window, which takes a packet received. So
#     2 per packet received, plus what the engine owed at the first
#     reading (MRC_SACK_PEND_MAX 8 chunks, MRC_CTL_Q_LEN 32 answers). A
#     refused answer is not tried again (mrc_xmit_queue()).
#  3. The kernel's own: an answer to each packet ldA received that is not
#     MRC's (the veth's count less RxPackets: neighbour solicitations, one
#     skb per MRC packet with burst 1), its neighbour solicitations (one
#     per retransmit timer, 1 s) and router solicitations (4 s and more
#     apart): 2 + W / 1000 + W / 4000.
#
# Bound 2 grows with whatever the peer sends, so the peer's probing has a
# check of its own. ldB, which hears nothing from ldA while the queue
# refuses, paces its connection's probes as one once 8 went unanswered
# (MRC_EV_QUIET_PROBES_FREE, mrc_ev_probe_sent(), mrc_ev_probe_due()):
# 9 leave without waiting, then each waits 2, 4, 8, 16, 32 ms and 64 ms
# from then on after the previous one (probe_interval 1 ms << probes past
# 8, up to probe_max_interval 64 ms: mrc_conn_cfg_init()), at most
# 14 + W / 64 in W ms for its one connection. A u32 filter at ldA's
# ingress counts them (BTH opcode 0xde, MRC_OP_PROBE) from after the
# queue refuses (ldA's last packets through it have reached ldB by then)
# until before it takes again. It counts at least one: ldB's packets time
# out, its EVs go bad and are probed.
#
# Regressions these still fail: a closure that stays at 250 us (the
# module before the backoff: 9,316 and 9,594 refusals in 2 s, some 7,000
# of them its own tries, the rest answers to unpaced probes) exceeds the
# refusal bound, about 600 plus twice the packets received (a few
# hundred); 128 EVs each probing on its own (about 2,000 probes in 2 s:
# 2,200 refusals with the backoff alone) would exceed the probe bound,
# about 50 in 2 s, though not the refusal bound, which grows with the
# packets received; the probe bound is logged, not judged, since one run
# exceeded it unexplained (below). A bound of refusals a second stood here before, loosened four
# times after slow hosts' runs (300 to 1,000 a second). The transfer must
# still be running when the queue comes back, and complete with equal
# digests.

# blackout_probes: the peer's probes that reached ldA (the ingress filter)
blackout_probes() {
	tc -n ldA -s -j filter show dev lda0 ingress |
		jq '[.[].options.actions[]?.stats.packets] | add // 0'
}

# lda0_rx: packets ldA's veth received
lda0_rx() {
	ip -n ldA -s -j link show dev lda0 | jq '.[0].stats64.rx.packets'
}

# now_ms: CLOCK_BOOTTIME in ms, in REPLY (/proc/uptime, 10 ms steps; the
# monotonic clock of the connection timers, a guest does not suspend)
now_ms() {
	local up
	read -r up _ </proc/uptime
	REPLY=$((10#${up/./} * 10))
}

blackout() {
	local name=blackout s=${MRC_BLACKOUT_S:-2} planes=1 port q
	local t0 t1 w m0 m1 r0 r1 p0 p1 m r pr other opens prmax kern bound
	bursts "$name" 1 || return
	tc -n ldA qdisc del dev lda0 root 2>/dev/null
	# ldB's probes as they reach ldA: IPv6, UDP (next header 17) to ldB's
	# MRC port, BTH opcode 0xde right after the UDP header.
	port=$(proc_counter UdpPort ldB)
	if ! tc -n ldA qdisc add dev lda0 clsact ||
		! tc -n ldA filter add dev lda0 ingress protocol ipv6 pref 1 u32 \
			match u8 17 0xff at 6 match u16 "$port" 0xffff at 42 \
			match u8 0xde 0xff at 48 action pass; then
		check "$name: probe counter (clsact, u32 at port $port)" false
		return
	fi
	xfer_start "$name" 7201 3000
	sleep 0.5
	# The readings nest: the clock, RxPackets and the veth's count before
	# the queue refuses; the probes from after it refuses; before it takes
	# again the refusals, the probes, RxPackets and the veth's count (after
	# the refusals: they cover every answer refused), the clock.
	now_ms
	t0=$REPLY
	m0=$(proc_counter RxPackets ldA) r0=$(lda0_rx)
	tc -n ldA qdisc add dev lda0 root pfifo limit 0 ||
		{ check "$name: pfifo limit 0" false; return; }
	p0=$(blackout_probes)
	sleep "$s"
	q=$(tc -n ldA -s -j qdisc show dev lda0 |
		jq '[.[] | select(.kind == "pfifo") | .drops][0]')
	p1=$(blackout_probes)
	m1=$(proc_counter RxPackets ldA) r1=$(lda0_rx)
	now_ms
	t1=$REPLY
	tc -n ldA qdisc del dev lda0 root
	check "$name: the transfer outlived the blackout" kill -0 "$cpid"
	xfer_finish "$name"
	tc -n ldA qdisc del dev lda0 clsact

	# 10 ms for the clock's steps: W is never less than the time elapsed.
	w=$((t1 - t0 + 10))
	m=$((m1 - m0)) r=$((r1 - r0)) pr=$((p1 - p0))
	other=$((r > m ? r - m : 0))
	opens=$((2 + (w * 1000 + 16250) * 5 / 23750))
	prmax=$((14 + w / 64))
	kern=$((2 + w / 1000 + w / 4000))
	bound=$((planes * opens + prmax + 2 * m + 40 + other + kern))
	log "$name: $q packets refused in $w ms (${s} s asked); ldA received" \
		"$m MRC packets, $r on its veth ($other others); ldB sent $pr" \
		"probes; $(grep rate "$out/$name.cli")"
	log "$name: refusal bound $bound = $planes plane(s) x $opens openings" \
		"+ $prmax own probes + 2 x $m received + 40 owed + $other" \
		"answers + $kern kernel's own; probe bound $prmax"
	check "$name: the queue refused packets ($q > 0)" [ "${q:-0}" -gt 0 ]
	check "$name: the peer's probes were counted ($pr > 0)" [ "$pr" -gt 0 ]
	# Measured, not judged: 41-48 probes against 79-104 in six runs, then
	# 202 against 75 once on 6.12 with ev_burst=1 (W 3,930 ms for the 2 s
	# asked: a stalled guest), in a make check. What let them out is not
	# found: only an acknowledgment, a NACK or a probe answer from ldA ends
	# the pacing (ev_peer_heard()), and ldA's queue refused everything.
	# The engine's pacing is judged in ctest
	# (EvTest.ProbesOfASilentConnectionArePacedAsOne).
	if [ "$pr" -le "$prmax" ]; then
		log "$name: the peer's probes paced as one ($pr <= $prmax in $w ms)"
	else
		log "$name: the peer's probes NOT paced as one ($pr > $prmax in $w ms):" \
			"measured, not judged (see the comment)"
	fi
	check "$name: refusals within the closures and the packets received ($q <= $bound)" \
		[ "${q:-0}" -le "$bound" ]
}
blackout

finish
