#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ECN marks from a congested spine steer MRC away from it (issue 14). Two
# hosts over the SRv6 fabric (srh, every plane and spine). Spine sp-p1-s0
# marks, on its port towards hB's leaf, 90% of the ECN-capable packets it
# forwards (netem "loss 90% ecn" behind a filter on the ECN bits).
# MRC data leaves ECT(0), inner and outer, so the marks land on the outer
# header; Linux's SRv6 decapsulation (End.DT6, 6.1) throws that header
# away with its mark, so:
#  1. without help, hB never sees CE: hA's per-EV counters show no SACK
#     with an ECN verdict for any EV (and hA's per-EV data share of the
#     marked path stays near its sibling's: runs measured 0.74 to 1.33);
#  2. with ebpf/mrc_ecn_decap.bpf.o at tc ingress of hB's plane devices (it
#     copies an outer CE into the inner header before the decapsulation),
#     hB's SACKs say SKIP_ONCE for the EVs of the marked path (at least 20
#     such verdicts, none for any other EV; runs measured about 1,100), hA
#     passes those EVs over and their share falls below 0.8 of the
#     sibling's (runs measured 0.40 to 0.64) while the transfer completes
#     intact;
#  3. real congestion instead of random marks: the same port shaped to
#     RED_RATE (htb) with a RED queue in ECN mode behind it (marks ECT
#     packets once the average queue passes RED_MIN bytes; no netem): the
#     queue the sprayed traffic builds there gets hA's data packets marked
#     (RED's own "marked" count > 0; a run measured 209), hB's SACKs judge
#     that path's EVs and no other (at least one verdict: see below; 541
#     and 17 measured); how far hA moves its packets off the congested
#     spine is logged, not judged (0.44 with 209 marks, 0.81 with 84: the
#     marks are the host's speed), the transfer intact. RED drops what it cannot mark:
#     the packets that are not ECN-capable, here hA's SACKs and control
#     packets of the hB->hA direction (control class, Not-ECT; "early"
#     drops, 1,449 in that run), which a fabric would queue in a class of
#     their own (mrc_dscp.sh); never data (queue-full drops 0).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

BPF_OBJ=${MRC_TOP:-/mrc}/build/cmake/ebpf/mrc_ecn_decap.bpf.o
out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -r "$BPF_OBJ" ] || { log "FAIL: $BPF_OBJ not built"; exit $ksft_fail; }
trap 'fabric_destroy; rm -rf "$out"' EXIT

fabric_create || exit $ksft_fail
mrc_fabric_up srh || exit $ksft_fail
HB=${FAB_HADDR[hB]}
# Only ECN-capable packets go through the marking netem (a prio band chosen
# by the traffic class's ECN bits): a plain "netem loss 90% ecn" on the port
# would also drop 90% of neighbour discovery on that link and blackhole the
# path now and then, which costs it its share whatever ECN does.
sp_tc() { fabric_exec sp-p1-s0 tc "$@"; }
mark_ecn_capable() {
	sp_tc qdisc replace dev t0b root handle 1: prio bands 2 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
		sp_tc qdisc replace dev t0b parent 1:2 handle 20: netem loss 90% ecn &&
		sp_tc filter replace dev t0b parent 1: protocol ipv6 prio 1 \
			u32 match ip6 priority 0x02 0x03 flowid 1:2 &&
		sp_tc filter replace dev t0b parent 1: protocol ipv6 prio 2 \
			u32 match ip6 priority 0x01 0x03 flowid 1:2
}
check "spine sp-p1-s0 marks ECN-capable packets towards hB" mark_ecn_capable

# per_ev KEY PLANE SPINE [other]: from hA's EVs to hB (mrcctl path show; an
# EV's spine is its entropy % FAB_NSPINES, mrc_fabric_up lists spine 0, then
# 1, for every plane): "sent" gives data packets per EV used on that path
# (per EV, as the active EVs of a plane need not split evenly between its
# spines), "ecn" the SACKs that came back with an ECN verdict for the EVs
# of that path, or with "other" for every other EV
per_ev() {
	jq -r --arg k "$1" --argjson p "$2" --argjson s "$3" --arg o "${4:-}" \
		--argjson ns "$FAB_NSPINES" '
		[.[0].paths[] | ((.plane == $p and ((.ev % 16777216) % $ns) == $s)) as $on |
		 select(if $o == "other" then ($on | not) else $on end)] |
		if $k == "sent" then
			[.[] | select(.sent > 0) | .sent] |
			if length > 0 then add / length | floor else 0 end
		else [.[] | .ecn] | add end' "$out/paths.json"
}

# run NAME PORT: one transfer both ways, the client held open at the end;
# sets RATIO to hA's data packets on the marked path (plane 1, spine 0) over
# those on its plane sibling (plane 1, spine 1)
run() {
	local a b crc src i
	rm -f "$out/release"
	fabric_exec hB timeout 200 ./mrc_xfer -l -p "$2" -n 900 -M 262144 -s 51 \
		>"$out/$1.srv" 2>"$out/$1.srv.err" &
	spid=$!
	sleep 0.3
	fabric_exec hA timeout 200 ./mrc_xfer -c "$HB" -p "$2" -n 900 -M 262144 -s 52 \
		--hold "$out/release" >"$out/$1.cli" 2>"$out/$1.cli.err" &
	cpid=$!
	wait "$spid"
	src=$?
	for ((i = 0; i < 100; i++)); do
		grep -q "^rx" "$out/$1.cli" 2>/dev/null && break
		sleep 0.1
	done
	mrcctl hA -j path show >"$out/paths.json" 2>"$out/paths.err"
	touch "$out/release"
	wait "$cpid"
	crc=$?
	xfer_verdict "$1" "$out" "$crc" "$src"
	a=$(per_ev sent 1 0) b=$(per_ev sent 1 1)
	ECN_ON=$(per_ev ecn 1 0) ECN_ELSE=$(per_ev ecn 1 0 other)
	RATIO=$(awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	log "$1: hA's data packets per EV on the marked path $a, on its sibling $b: ratio $RATIO, $(grep rate "$out/$1.cli")"
	log "$1: SACKs with an ECN verdict: $ECN_ON for the marked path's EVs, $ECN_ELSE for the others"
}

run plain 7500
r1=$RATIO
check "without help no CE reaches hB: no ECN verdict for any EV ($ECN_ON, $ECN_ELSE)" \
	[ "$ECN_ON" = 0 -a "$ECN_ELSE" = 0 ]

for p in 0 1 2 3; do
	fabric_exec hB tc qdisc replace dev "pl$p" clsact &&
		fabric_exec hB tc filter replace dev "pl$p" ingress bpf direct-action \
			obj "$BPF_OBJ" sec tc ||
		{ log "FAIL: attach $BPF_OBJ on hB pl$p"; exit $ksft_fail; }
done
run decap 7501
r2=$RATIO
check "with CE copied inward hB judges the marked path's EVs ($ECN_ON verdicts)" \
	[ "$ECN_ON" -ge 20 ]
check "and only those ($ECN_ELSE verdicts for the other EVs)" [ "$ECN_ELSE" = 0 ]
check "hA passes them over: their share falls below 0.8 of the sibling's ($r1 -> $r2)" \
	awk -v b="$r2" 'BEGIN { exit !(b < 0.8) }'

# Round 3: a queue, not a coin. A path's share of the spraying is about an
# eighth of what hA sends (4 planes x 2 spines), well above RED_RATE under
# TCG, so a standing queue builds at the shaped port.
RED_RATE=${MRC_ECN_RED_RATE:-4mbit}
RED_MIN=${MRC_ECN_RED_MIN:-12000}
red_queue() {
	sp_tc qdisc del dev t0b root 2>/dev/null
	sp_tc qdisc replace dev t0b root handle 1: htb default 1 &&
		sp_tc class replace dev t0b parent 1: classid 1:1 htb rate "$RED_RATE" \
			burst 15k &&
		sp_tc qdisc replace dev t0b parent 1:1 handle 10: red limit 400000 \
			min "$RED_MIN" max $((RED_MIN * 3)) avpkt 1500 burst $((RED_MIN / 1000)) \
			probability 0.2 bandwidth "$RED_RATE" ecn
}
# red_stat KEY: from the RED queue's statistics (marked, early, pdrop)
red_stat() {
	sp_tc -s qdisc show dev t0b parent 1:1 |
		awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
check "spine sp-p1-s0's port towards hB: htb $RED_RATE, RED with ECN" red_queue
run red 7502
r3=$RATIO
m=$(red_stat marked) e=$(red_stat early) d=$(red_stat pdrop)
log "red: RED marked ${m:-?}, early drops ${e:-?}, queue-full drops ${d:-?}"
check "RED marked the queue's packets CE (${m:-?})" [ "${m:-0}" -gt 0 ]
# A standing queue needs the path's share above RED_RATE: about 20 Mbit/s
# on Debian's kernels, 1.3 on the debug kernel's guest (10 Mbit/s in all),
# where RED marked 52 packets and the share did not move (1.075). How much
# congestion there is, and so how far hA moves, is the host's speed.
# What the code guarantees: hB echoes a CE mark in the SACK of the marked
# packet's 64-PSN chunk and asks for that SACK at once (resp_note() and
# mrc_resp_on_data(): the SACK's EV sticks to the marked packet, a CE sets
# sack_now), so a mark that reaches hB gives at least one verdict for the
# marked path's EVs. There is no proportion to judge: marks that hB takes
# in one batch (GRO) or whose chunks' SACKs merge (resp_merge_covered())
# give one verdict, while RED counts marked skbs, and a forwarded
# segmentation-offload skb carries a flowcell's packets, each echoed. How
# many marks there are is the host's speed (the queue only stands while
# the path's share exceeds RED_RATE): 209 marks gave 541 verdicts with
# flowcells; with ev_burst=1 on 6.12, 242 gave 242 and 71 gave 71, and one
# run moved off the spine so fast that RED marked 17 and hB judged 17,
# which failed the bound of 20 this check once had. Seen failing with the
# decapsulation program detached before this round: 0 verdicts for 1,335
# marks.
log "red: verdicts per RED mark $(awk -v v="$ECN_ON" -v m="${m:-0}" 'BEGIN { printf "%.2f", m ? v / m : 0 }')"
check "hB judges the congested path's EVs ($ECN_ON verdicts for ${m:-?} marks)" \
	[ "${m:-0}" -gt 0 -a "$ECN_ON" -ge 1 ]
check "and only those ($ECN_ELSE verdicts for the other EVs)" [ "$ECN_ELSE" = 0 ]
# How far hA moves off the spine follows from how many marks there were,
# which is the host's speed (above): on 6.12 with ev_burst=1, 84 marks
# left a share of 0.809, 242 moved it further. The move itself is judged
# in the decap round, where every packet of the path is marked; here it
# is measured.
log "red: the congested spine's share against its sibling's: $r3 (plain $r1; measured, not judged)"
finish
