#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_MRC over the emulated multi-plane SRv6 fabric (mrc_fabric_lib.sh:
# 2 hosts x 4 planes x 2 spines). Planes 0..3 and a route to the peer are
# configured with mrcctl on both hosts; mrc.ko then sprays every connection
# over all planes and paths and encapsulates itself (srh, usid, none).
#
#  integrity  per encapsulation: N messages (1 B .. MAX, log-uniform) each
#             way, SHA-256 equal; the SID counters show the mode (srh: the
#             full SIDs count, usid: the uSIDs, none: neither, but the
#             spines' ports do)
#  spraying   per spine (srh and usid SID counters, none: port counters):
#             every plane and spine within +-25% of an even share (none: the
#             spine is the fabric's ECMP hash: +-60% per spine)
#  failover   a spine link down mid-transfer: the transfer completes; per
#             "mrcctl -j path show" in hA's namespace (JSON, parsed with jq;
#             an EV's plane and spine follow from its value, see the
#             section) hA's EVs through that link go ASSUMED_BAD and no EV
#             of another path is (SKIP allowed); the spine stops carrying
#             data (its counter then rises by probes only, bounded by the
#             bad EVs' probe rate); the plane keeps its share of the
#             packets, though it has 16 EVs left against 24 (MRC_INFO,
#             net.mrc.failover 16); link up: within 10 s mrcctl shows those
#             EVs good again and no ASSUMED_BAD EV on either host, and a new
#             transfer uses the spine again. MRC_INFO's counts are logged.
#  plane down under tbf: a plane's host ports down mid-transfer: completes;
#             then 3 rounds of a transfer on the 3 planes left (nothing
#             sent on the dead one) and one with the plane back (used
#             again): summed 3-plane goodput >= 0.8 x 3/4 of the 4-plane
#  admin down mrcctl plane set id 2 down on both hosts mid-transfer: nothing
#             more is sent on plane 2 (MRC_INFO), up: it is used again
#  loss       netem 5% loss + reordering + duplication on every path:
#             integrity holds; the client finds losses before their timeout
#             (MRC_INFO lost_inferred > 0)
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

N=${MRC_FX_MSGS:-100}
MAX=${MRC_FX_MAX:-1048576}
# Plane down under tbf, per host port: 4 x 10 Mbit/s each way stays well
# below what the TCG guest forwards through the fabric (~100-150 Mbit/s of
# MRC), so tbf, not the CPU, is the bottleneck of every run; PD_ROUNDS
# pairs of runs of PD_N messages (~6 s each) average out the guest's stalls. Measured 3-plane / clean
# ratios on this rig: 10mbit 0.74-1.0, 20mbit 0.56-1.07, 40mbit 0.67-1.02
# (CPU-bound).
RATE=${MRC_FX_RATE:-10mbit}
PD_N=${MRC_FX_PD_MSGS:-150}
PD_ROUNDS=${MRC_FX_PD_ROUNDS:-3}
out=$(mktemp -d)
port=7200
t_start=${EPOCHREALTIME/./}

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; exit $ksft_fail; }
trap 'drain_conns; fabric_destroy; rm -rf "$out"' EXIT

ms_now() { echo $((${EPOCHREALTIME/./} / 1000)); }
timing() { log "time: $1 at $(((${EPOCHREALTIME/./} - t_start) / 1000)) ms"; }
# all COND...: run each quoted test, true if all are
all() { local c; for c in "$@"; do eval "$c" || return 1; done; }

# conn_count HOST: connections (sockets holding a QPN) of a host
conn_count() {
	fabric_exec "$1" cat /proc/net/mrc 2>/dev/null | awk '$1 == "Connections" { print $2 }'
}

# Closed connections linger until their last messages are acknowledged;
# wait for that before the fabric goes, or they retry into the void (and
# keep mrc.ko busy) until their retry budget runs out.
drain_conns() {
	local i h n
	[ -n "${FAB_HOSTS[*]:-}" ] || return 0
	for ((i = 0; i < 100; i++)); do
		n=0
		for h in hA hB; do n=$((n + $(conn_count "$h"))); done
		((n == 0)) && return 0
		sleep 0.2
	done
	log "connections still open after 20 s: $n"
}

fail_count() {
	fabric_exec "$1" cat /proc/net/mrc | awk '$1 == "ConnFailed" { print $2 }'
}

fabric_create || exit $ksft_fail
timing "fabric up (set-up ${FAB_SETUP_MS} ms)"
# MRC_FO=N: both hosts' net.mrc.failover (default: the module's, 31), to
# see the failover checks fail with a rule off (MRC_FO=0 make vm-test ...).
if [ -n "${MRC_FO:-}" ]; then
	for h in hA hB; do fabric_exec $h sysctl -qw net.mrc.failover="$MRC_FO" || exit $ksft_fail; done
	log "net.mrc.failover=$MRC_FO on both hosts"
fi
HA=${FAB_HADDR[hA]}
HB=${FAB_HADDR[hB]}

mrc_fabric_planes || exit $ksft_fail

# Counters: "node key packets" lines; SID routes plus the spines' ports.
snap() {
	local f=$1 sp d pids=()
	fabric_sid_counts >"$f.sid"
	for sp in "${FAB_SPINES[@]}"; do
		for d in t0a t0b; do
			ip netns exec "$FAB_PREFIX$sp" cat "/sys/class/net/$d/statistics/rx_packets" \
				>"$f.$sp.$d" 2>/dev/null &
			pids+=($!)
		done
	done
	wait "${pids[@]}"
	for sp in "${FAB_SPINES[@]}"; do
		for d in t0a t0b; do
			echo "$sp port-$d $(cat "$f.$sp.$d")"
		done
	done >"$f.port"
	cat "$f.sid" "$f.port" >"$f"
}

# delta BEFORE AFTER: "node key delta" for every counter
delta() {
	awk 'NR == FNR { b[$1 " " $2] = $3; next } { print $1, $2, $3 - b[$1 " " $2] }' "$1" "$2"
}

# sum DELTAFILE NODE_REGEX KEY_REGEX
sum() { awk -v n="$2" -v k="$3" '$1 ~ n && $2 ~ k { s += $3 } END { print s + 0 }' "$1"; }

# xfer_start NAME N [extra mrc_xfer options]: server on hB, client on hA
xfer_start() {
	local name=$1 n=$2
	shift 2
	port=$((port + 1))
	rm -f "$out/$name".*
	fabric_exec hB ./mrc_xfer -l -p "$port" -n "$n" -M "$MAX" -s 11 \
		--info-file "$out/$name.srv.info" "$@" >"$out/$name.srv" 2>"$out/$name.srv.err" &
	XS_PID=$!
	sleep 0.3
	fabric_exec hA timeout 300 ./mrc_xfer -c "$HB" -p "$port" -n "$n" -M "$MAX" -s 22 \
		--info-file "$out/$name.cli.info" "$@" >"$out/$name.cli" 2>"$out/$name.cli.err" &
	XC_PID=$!
	XT0=$(ms_now)
}

# xfer_check NAME N: wait for both ends, compare digests
xfer_check() {
	local name=$1 n=$2 rc src
	wait "$XC_PID"
	rc=$?
	wait "$XS_PID"
	src=$?
	xfer_verdict "$name" "$out" "$rc" "$src"
	expect_eq "$name: messages each way" "$n" \
		"$(awk '$1 == "rx" { print $3 }' "$out/$name.cli")"
	log "$name: $(grep rate "$out/$name.cli"), $(awk '$1 == "tx" { print $4 }' "$out/$name.cli") B out"
}

# rate NAME: the client's tx+rx goodput in Mbit/s
rate() { awk '$1 == "rate" { print $2 }' "$out/$1.cli"; }

# info_get NAME SIDE KEY: a field of the last MRC_INFO JSON written
info_get() {
	sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p" "$out/$1.$2.info" 2>/dev/null
}

# plane_tx NAME SIDE P: packets the connection sent on plane P (MRC_INFO)
plane_tx() {
	sed 's/.*"planes":\[//' "$out/$1.$2.info" 2>/dev/null |
		awk -F'"tx_pkts":' -v i=$(($3 + 2)) '{ split($i, a, ","); print a[1] + 0 }'
}

# spray_check MODE DELTAFILE NODEKEY_REGEX [SPINE_PCT]: every plane within
# +-25% of an even share, every spine within +-SPINE_PCT (default 25)
spray_check() {
	local mode=$1 f=$2 key=$3 pct=${4:-25} sp v tot even p bad=0 line=""
	tot=$(sum "$f" '^sp-' "$key")
	even=$((tot / ${#FAB_SPINES[@]}))
	for sp in "${FAB_SPINES[@]}"; do
		v=$(sum "$f" "^$sp\$" "$key")
		line+=" $sp=$v"
		((v * 100 < even * (100 - pct) || v * 100 > even * (100 + pct))) && bad=1
	done
	for ((p = 0; p < FAB_NPLANES; p++)); do
		v=$(sum "$f" "^sp-p$p-" "$key")
		((v * 4 < even * FAB_NSPINES * 3 || v * 4 > even * FAB_NSPINES * 5)) && bad=1
	done
	log "$mode spraying: total $tot even $even:$line"
	check "$mode: every plane within +-25%, every spine within +-$pct% of an even share" \
		all '[ "$bad" = 0 ]' '[ "$even" -gt 0 ]'
}

# ---- integrity and spraying per encapsulation ----
mrc_fabric_plain_routes || { log "FAIL: plain routes"; exit $ksft_fail; }
for mode in srh usid none; do
	t0=$(ms_now)
	mrc_fabric_routes "$mode" || exit $ksft_fail
	snap "$out/b.$mode"
	xfer_start "$mode" "$N"
	xfer_check "$mode" "$N"
	snap "$out/a.$mode"
	delta "$out/b.$mode" "$out/a.$mode" >"$out/d.$mode"
	srh=$(sum "$out/d.$mode" . '^fc00:')
	usid=$(sum "$out/d.$mode" . '^fcbb:')
	port_pk=$(sum "$out/d.$mode" '^sp-' '^port-')
	log "$mode: SID packets srh $srh usid $usid, spine port packets $port_pk"
	case $mode in
	srh)
		check "srh: full SIDs counted, no uSID" all '[ "$srh" -gt "$N" ]' '[ "$usid" -lt 10 ]'
		spray_check srh "$out/d.$mode" '^fc00:'
		;;
	usid)
		check "usid: uSIDs counted, no full SID" all '[ "$usid" -gt "$N" ]' '[ "$srh" -lt 10 ]'
		spray_check usid "$out/d.$mode" '^fcbb:'
		;;
	none)
		check "none: no SID counted, the spines forwarded" \
			all '[ "$((srh + usid))" -lt 10 ]' '[ "$port_pk" -gt "$N" ]'
		# The spine is the leaves' ECMP hash of the flow label, not
		# the module's choice: the 24 active EVs of a plane split
		# binomially over 2 spines (sd of a share 10%, i.e. 20% of an
		# even share), and the sender does not use them equally: +-40%
		# (2 sd) failed about one run in ten, +-60% (3 sd) is the bound.
		spray_check none "$out/d.$mode" '^port-' 60
		;;
	esac
	timing "$mode integrity ($(($(ms_now) - t0)) ms)"
done
# ConnFailed is logged, not asserted: a peer that received everything and
# closes (RESET) before its last SACK reaches us fails our connection with
# ECONNRESET although every message arrived (close semantics of
# mrc_hs_close(); the transfers' digests above are what counts).
log "failed connections after integrity: hA $(fail_count hA) hB $(fail_count hB)"
drain_conns
check "every connection closed" [ "$(($(conn_count hA) + $(conn_count hB)))" = 0 ]

# ---- failover: spine 0 of plane 1 loses its link to hB's leaf ----
# The evidence is the per-EV state mrcctl reports ("mrcctl -j path show", the
# conn-get dump): every EV of the connection with its index, value, plane and
# state. Which path an EV takes is the datapath's rule (mrc_mp_xmit()): its
# plane is the value's top byte, bits 31-24 (the "plane" field; planes 0..3
# all exist and are all on the route, so the engine's plane index is the
# plane id), its path is number (ev & 0xffffff) % (paths of that plane) of
# the plane's paths in route order, and mrc_fabric_routes lists spine 0, spine 1
# for every plane: the EV's spine is (ev & 0xffffff) % FAB_NSPINES.
FO_PLANE=1 FO_SPINE=0

# ev_states HOST FILE: "index plane spine state" per EV of HOST's connection
# to the other host, from mrcctl -j path show parsed by jq; false unless
# there is exactly one such connection and every EV's plane is its value's
# top byte (the mapping above). FILE.json and FILE.err are kept.
ev_states() {
	local o=hB
	[ "$1" = hB ] && o=hA
	mrcctl "$1" -j path show 2>"$2.err" >"$2.json" &&
		jq -r --arg peer "${FAB_HADDR[$o]}" --argjson ns "$FAB_NSPINES" '
		[.[] | select(.peer == $peer)] |
		if length != 1 then error("\(length) connections to \($peer)") else .[0] end |
		.paths[] |
		if .plane != (.ev / 16777216 | floor) then error("EV \(.index): plane \(.plane), value \(.ev)") else . end |
		"\(.index) \(.plane) \((.ev % 16777216) % $ns) \(.state)"' \
		"$2.json" >"$2" 2>>"$2.err"
}

# ev_count FILE STATE [PLANE SPINE]: EVs of FILE in STATE (on that path)
ev_count() {
	awk -v st="$2" -v p="${3:-}" -v s="${4:-}" \
		'$4 == st && (p == "" || ($2 == p && $3 == s)) { n++ } END { print n + 0 }' "$1"
}

# ev_count_other FILE STATE PLANE SPINE: EVs of FILE in STATE on other paths
ev_count_other() {
	awk -v st="$2" -v p="$3" -v s="$4" \
		'$4 == st && !($2 == p && $3 == s) { n++ } END { print n + 0 }' "$1"
}

command -v jq >/dev/null || { log "FAIL: no jq in the guest (scripts/vm/mkinitramfs.sh)"; exit $ksft_fail; }
mrc_fabric_routes srh || exit $ksft_fail
t0=$(ms_now)
hold=$out/fo.hold
evs=$out/fo.evs
# 3N messages: N take 3-5 s here, and the evidence must be taken while the
# transfer runs (checked below).
FO_N=$((N * 3))
xfer_start fo "$FO_N" --linger 60 --hold "$hold"
for ((i = 0; i < 50; i++)); do
	[ -s "$out/fo.cli.info" ] && [ "$(info_get fo cli state)" = 3 ] && break
	sleep 0.1
done
sleep 0.5
if ev_states hA "$evs.before"; then
	log "failover: before: $(ev_count "$evs.before" good) good, $(ev_count "$evs.before" skip) skip, $(ev_count "$evs.before" assumed_bad) assumed_bad of $(wc -l <"$evs.before") EVs, $(awk -v p=$FO_PLANE -v s=$FO_SPINE '$2 == p && $3 == s' "$evs.before" | wc -l) on p$FO_PLANE/s$FO_SPINE"
else
	log "failover: no EV states before the failure: $(head -c 300 "$evs.before.err")"
fi
fabric_link_set $FO_PLANE $FO_SPINE hB down
t_down=$(ms_now)
# Detection: the first snapshot with an ASSUMED_BAD EV on the dead link.
dead=0 t_det="" polls=0 running=0
while (($(ms_now) - t_down < 10000)); do
	polls=$((polls + 1))
	running=0
	grep -q '^rate' "$out/fo.cli" || running=1
	if ev_states hA "$evs.det"; then
		dead=$(ev_count "$evs.det" assumed_bad $FO_PLANE $FO_SPINE)
		((dead > 0)) && { t_det=$(ms_now); break; }
	fi
	sleep 0.1
done
check "failover: mrcctl shows EVs through the dead link ASSUMED_BAD ($dead after $((${t_det:-$(ms_now)} - t_down)) ms, $polls polls; MRC_INFO ev_bad $(info_get fo cli ev_bad); $(head -c 200 "$evs.det.err"))" \
	[ -n "$t_det" ]
check "failover: the evidence was taken during the transfer" [ "$running" = 1 ]
# Then the ASSUMED_BAD EVs must be that link's and no other path's (SKIP is
# allowed anywhere). A spurious timeout (TCG: an RTT spike above the RTO)
# puts a healthy EV there too, until its late ACK or probe comes back: up
# to 10 snapshots 0.3 s apart are taken until one holds no other; each
# must still hold the dead link's (they cannot come back while it is down).
snaps="" only=0
: >"$evs.bad"
if [ -n "$t_det" ]; then
	cp "$evs.det" "$evs.bad"
	for ((i = 0; i < 10; i++)); do
		((i)) && { sleep 0.3; ev_states hA "$evs.bad" || continue; }
		dead=$(ev_count "$evs.bad" assumed_bad $FO_PLANE $FO_SPINE)
		other=$(ev_count_other "$evs.bad" assumed_bad $FO_PLANE $FO_SPINE)
		snaps+=" $dead/$other"
		((dead == 0)) && break
		((other == 0)) && { only=1; break; }
	done
fi
log "failover: ASSUMED_BAD EVs on the dead link/elsewhere per snapshot:$snaps (skip: $(ev_count "$evs.bad" skip))"
check "failover: every ASSUMED_BAD EV of hA is on p$FO_PLANE/s$FO_SPINE, the dead link (dead/elsewhere:$snaps)" \
	[ "$only" = 1 ]
sleep 0.5
c1=$(fabric_sid_count sp-p1-s0 srh 1)
sleep 1
c2=$(fabric_sid_count sp-p1-s0 srh 1)
bad=0
ev_states hA "$evs.probe" && bad=$(ev_count "$evs.probe" assumed_bad)
# Probes of the bad EVs still reach the spine (at most one per EV per
# probe interval, >= 1 ms doubling to 64 ms); data does not.
log "failover: spine p1-s0 SID count $c1 -> $c2 over 1 s with $bad bad EVs (probes only)"
check "failover: the dead spine carries no data (delta $((c2 - c1)) <= probes)" \
	[ "$((c2 - c1))" -le "$((bad * 40 + 20))" ]
while (($(ms_now) - t_down < 120000)); do
	grep -q '^rate' "$out/fo.cli" && grep -q '^rate' "$out/fo.srv" && break
	sleep 0.2
done
log "failover: transfer done, MRC_INFO client $(cat "$out/fo.cli.info")"
# net.mrc.failover 16 (MRC_FO_BALANCE; Documentation/networking/mrc.rst):
# planes share the window by their bytes in flight. With the dead path
# retired, plane FO_PLANE keeps the other path's 16 EVs where every other
# plane has 24 (the profile's 24 active of 32); by EV count alone it gets
# 16/24 of a share for the rest of the transfer (the cut comes ~1 s into
# 9-15 s). The rule passes over a plane holding more than the least loaded
# one plus two MTUs plus an eighth of the mean, so with every plane's
# round trip alike plane FO_PLANE gets at least its EV share, and more the
# more the others hold: at the others' cap it holds 29x / (33x + 64 MTU)
# of their bytes, x its own (0.71 at 8 MTUs, 0.83 at 32, 29/33 = 0.88 for a
# large x), and more when they stay below the cap.
# This guest is CPU-bound and its window and bytes in flight vary from run
# to run, so what the rule adds here is measured, not judged: 0.84, 0.88,
# 0.89, 0.90 (twice) and 0.95 over six runs of 6.12 with ev_burst=1,
# against 0.73 with the rule off (MRC_FO=15). It was judged at 0.85 until
# a run of 0.838 on an idle host (make check of 4ad3550): a bound between
# two observations, not one the code guarantees. The rule is judged where
# the window is known: EvBalanceTest.PlaneThatLostAPathKeepsItsShare
# (>= 0.97 of the others' share with it, < 0.75 without). Judged here: the
# plane keeps at least its EV share over the whole transfer (a plane
# passed over for good, or its surviving path retired too, falls below).
fo_p=$(plane_tx fo cli $FO_PLANE)
fo_o=0
for p in 0 1 2 3; do
	[ "$p" = "$FO_PLANE" ] || fo_o=$((fo_o + $(plane_tx fo cli $p)))
done
fo_act=$(jq -r ".planes[$FO_PLANE].active" "$out/fo.cli.info" 2>/dev/null)
fo_act_o=$(jq -r ".planes[$(((FO_PLANE + 1) % 4))].active" "$out/fo.cli.info" 2>/dev/null)
log "failover: plane $FO_PLANE carried $fo_p packets against $((fo_o / 3)) a plane on the others, ratio $(awk -v a="$fo_p" -v b="$fo_o" 'BEGIN { printf "%.3f", b ? 3 * a / b : 0 }') (EV share $fo_act/$fo_act_o)"
check "failover: plane $FO_PLANE kept at least its EV share with a path retired (tx_pkts $fo_p against $((fo_o / 3)) a plane, $fo_act against $fo_act_o active EVs)" \
	[ "${fo_act:-0}" -gt 0 -a "$((fo_p * 3 * ${fo_act_o:-0}))" -ge "$((fo_o * ${fo_act:-99}))" ]
# net.mrc.failover (Documentation/networking/mrc.rst, "Failover: paths,
# not EVs"): two silent EVs of the dead link's path retire the whole path
# (by the time of the snapshots above every EV of it is ASSUMED_BAD either
# way: the EVs judged alone die one by one), which only MRC_INFO tells.
# Seen failing with MRC_FO=0: paths_retired 0. With ev_burst=1 each of the
# dead path's 16 EVs lost one packet within a rotation and the gray rule
# held the dead path as gray (paths_retired 0, cwnd_cuts_spared 23: CI of
# 812e957); a gray verdict on a path that delivered nothing since its
# first loss is a dead one now
# (EvGrayTest.DeadPathFoundByItsLossesIsRetiredDead).
check "failover: MRC_INFO counts the retired path (paths_retired $(info_get fo cli paths_retired), paths_gray $(info_get fo cli paths_gray), rtx_path $(info_get fo cli rtx_path), cwnd_cuts_spared $(info_get fo cli cwnd_cuts_spared))" \
	[ "$(info_get fo cli paths_retired)" -ge 1 ]
log "failover: hA /proc/net/mrc: $(fabric_exec hA cat /proc/net/mrc | awk '$1 ~ /^(TxPackets|TxNoRoute|ConnFailed)$/' | tr '\n' ' ')"
# The dead link's EVs just before it comes back: probes must restore them.
ev_states hA "$evs.down" || : >"$evs.down"
awk -v p=$FO_PLANE -v s=$FO_SPINE '$4 == "assumed_bad" && $2 == p && $3 == s { print $1 }' \
	"$evs.down" >"$evs.idx"
nbad=$(wc -l <"$evs.idx")
fabric_link_set $FO_PLANE $FO_SPINE hB up
t_up=$(ms_now)
# Restored: each of them GOOD again (or SKIP: usable), and, the connection
# idle now (no spurious timeouts), no ASSUMED_BAD EV left on either host.
restored=0 left="?" badA="?" badB="?"
while (($(ms_now) - t_up < 10000)); do
	if ev_states hA "$evs.up" && ev_states hB "$evs.upB"; then
		left=$(awk 'NR == FNR { want[$1] = 1; next }
			($1 in want) && $4 != "good" && $4 != "skip" { n++ }
			END { print n + 0 }' "$evs.idx" "$evs.up")
		badA=$(ev_count "$evs.up" assumed_bad)
		badB=$(ev_count "$evs.upB" assumed_bad)
		((left == 0 && badA == 0 && badB == 0)) && { restored=1; break; }
	fi
	sleep 0.1
done
log "failover: after link up: MRC_INFO ev_bad client $(info_get fo cli ev_bad) server $(info_get fo srv ev_bad)"
check "failover: probes restored the $nbad EVs of the dead link within $(($(ms_now) - t_up)) ms (mrcctl: $left of them not good, ASSUMED_BAD hA $badA hB $badB)" \
	all '[ "$restored" = 1 ]' '[ "$nbad" -gt 0 ]'
touch "$hold"
xfer_check fo "$FO_N"
# The restored spine carries data again: more than an eighth of what the
# plane's other spine carries in the same transfer (a dead one carries
# none). Not yet its full share: while it was dead, other EVs took its
# EVs' places in the active rotation (24 of 32 per plane). Counted in skbs
# (a flowcell is one, a SACK one), so a bound in packets would move with
# the burst length and SACK coalescing; the other spine's count moves too.
# Seen on 2026-11-29: +334 skbs against p1-s1's +327, and a run of +88
# that failed the bound this replaced (more than N = 100).
c1=$(fabric_sid_count sp-p1-s0 srh 1)
o1=$(fabric_sid_count sp-p1-s1 srh 1)
xfer_start fo2 $((N / 2))
xfer_check fo2 $((N / 2))
c2=$(fabric_sid_count sp-p1-s0 srh 1)
o2=$(fabric_sid_count sp-p1-s1 srh 1)
check "failover: a new transfer uses spine p1-s0 again (+$((c2 - c1)) skbs, p1-s1 +$((o2 - o1)))" \
	all '[ "$((o2 - o1))" -gt 0 ]' '[ "$((8 * (c2 - c1)))" -gt "$((o2 - o1))" ]'

timing "failover ($(($(ms_now) - t0)) ms)"

# ---- plane down under tbf ----
# The issue's target: with P planes, losing one leaves >= 0.8 x (P-1)/P of
# the clean goodput (0.6 for 4 planes). The tbf rate keeps the fabric, not
# the emulated CPU, the bottleneck of every run. A TCG guest stalls now and
# then (tens of ms), and a run that meets a burst of stalls loses a third of
# its goodput to timeouts; so the ratio is taken over PD_ROUNDS alternating
# pairs of runs (4 planes, then 3), sum against sum.
t0=$(ms_now)
fabric_tbf "$RATE" || exit $ksft_fail
xfer_start pd "$PD_N"
sleep 1
fabric_plane_set 3 down
xfer_check pd "$PD_N"
for h in hA hB; do
	check "plane down: the module saw it on $h" \
		[ "$(mrcctl "$h" plane show | awk '$2 == 3' | grep -c 'oper down')" = 1 ]
done
sum_clean=0 sum_three=0 rates=""
for ((r = 0; r < PD_ROUNDS; r++)); do
	xfer_start three$r "$PD_N"
	xfer_check three$r "$PD_N"
	expect_eq "plane down: round $r sent nothing on the dead plane" 0 "$(plane_tx three$r cli 3)"
	fabric_plane_set 3 up
	sleep 1
	xfer_start clean$r "$PD_N"
	xfer_check clean$r "$PD_N"
	check "plane up: round $r used plane 3 again" [ "$(plane_tx clean$r cli 3)" -gt 0 ]
	((r + 1 < PD_ROUNDS)) && fabric_plane_set 3 down && sleep 0.5
	sum_clean=$(awk -v a="$sum_clean" -v b="$(rate clean$r)" 'BEGIN { print a + b }')
	sum_three=$(awk -v a="$sum_three" -v b="$(rate three$r)" 'BEGIN { print a + b }')
	rates+=" $(rate clean$r)/$(rate three$r)"
done
ratio=$(awk -v a="$sum_three" -v b="$sum_clean" 'BEGIN { printf "%.2f", a / b }')
log "plane down: 4-plane/3-plane goodput per round (Mbit/s):$rates;" \
	"ratio $ratio (tbf $RATE per port)"
check "plane down: 3-plane goodput >= 0.8 x 3/4 of clean (ratio $ratio)" \
	awk -v r="$ratio" 'BEGIN { exit !(r >= 0.6) }'
fabric_tbf clear
drain_conns
log "failed connections after plane down: hA $(fail_count hA) hB $(fail_count hB)"
check "every connection closed" [ "$(($(conn_count hA) + $(conn_count hB)))" = 0 ]
timing "plane down ($(($(ms_now) - t0)) ms)"

# ---- plane admin down (mrcctl) mid-transfer ----
t0=$(ms_now)
xfer_start adm "$N"
for ((i = 0; i < 50; i++)); do
	[ "$(info_get adm cli state)" = 3 ] && break
	sleep 0.1
done
mrcctl hA plane set id 2 down >/dev/null
mrcctl hB plane set id 2 down >/dev/null
sleep 0.5
a1=$(plane_tx adm cli 2)
sleep 1
a2=$(plane_tx adm cli 2)
check "admin down: nothing sent on plane 2 ($a1 -> $a2)" [ "$a1" = "$a2" ]
mrcctl hA plane set id 2 up >/dev/null
mrcctl hB plane set id 2 up >/dev/null
sleep 1
a3=$(plane_tx adm cli 2)
xfer_check adm "$N"
if grep -q '^rate' "$out/adm.cli" && [ "$a3" = "$a2" ]; then
	log "admin up: the transfer ended before plane 2 was used again"
else
	check "admin up: plane 2 used again ($a2 -> $(plane_tx adm cli 2))" \
		[ "$(plane_tx adm cli 2)" -gt "$a2" ]
fi
drain_conns
timing "admin down ($(($(ms_now) - t0)) ms)"

# ---- loss, reordering, duplication on every path ----
# netem on the spines' egress: one lossy hop per path and direction, so every
# path loses 5% each way (netem on all three hops of a path would make it
# ~14% each way).
t0=$(ms_now)
fabric_netem --spines loss 5% duplicate 2% delay 1ms 1ms reorder 10% || exit $ksft_fail
xfer_start loss $((N / 2))
xfer_check loss $((N / 2))
# Losses are found from later deliveries (mrc-loss-detection), not by a
# 16.8 ms retransmit timeout each; netem's 1 ms jitter reorders far beyond
# the paths' own spread, so some inferences are spurious and widen the window.
li=$(info_get loss cli lost_inferred)
log "loss: client found ${li:-?} losses before their timeout" \
	"($(info_get loss cli spurious_losses) spurious), $(info_get loss cli timeouts) timeouts," \
	"$(info_get loss cli tlp_probes) tail-loss probes, $(info_get loss cli retransmits) retransmits"
check "loss: losses found before their timeout (${li:-none})" [ "${li:-0}" -gt 0 ]
drain_conns
fabric_netem clear
# Not asserted: when every ACK of a message is lost and the peer, done,
# closes, the sender's connection ends with ECONNRESET (close semantics).
log "loss: failed connections hA $(fail_count hA) hB $(fail_count hB)"
check "every connection closed" [ "$(($(conn_count hA) + $(conn_count hB)))" = 0 ]
timing "loss ($(($(ms_now) - t0)) ms)"

finish
