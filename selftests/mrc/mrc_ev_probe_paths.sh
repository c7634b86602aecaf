#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our own EV probes (issue 14 item 5, kmod/mrc_ev_probe.c, mrcctl probe) on
# the emulated fabric: 4 planes x 2 spines, srh routes, hA probes hB.
#  - healthy: 4 EVs on each of the 8 paths, all 32 answered, in path order,
#    each with a round-trip time; each spine's SID counted exactly the 4
#    probes of its path (the answers all come back over the peer's first
#    path, plane 0 spine 0: +32 there); counters EvProbesSent and
#    EvProbesReplied +32 on hA, EvProbesAnswered +32 on hB; exit status 0;
#  - spine 0 of plane 1 cut from hB's leaf: the 4 probes of that path (2)
#    lost, the other 28 answered, exit status 4; 4 runs waiting on it at
#    once, a fifth refused (EBUSY);
#  - hA's NIC port of plane 3 down: that plane's probes not sent (ENETDOWN),
#    the others as before;
#  - bad requests refused with their extack (evs 17, timeout 0, a multicast
#    peer), exit status 1, nothing sent.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
command -v jq >/dev/null || { log "jq missing"; exit $ksft_fail; }
cleanup() {
	pkill -f "mrc_sock_helper listen 82" 2>/dev/null
	fabric_destroy
	rm -rf "$out"
}
trap cleanup EXIT

fabric_create || exit $ksft_fail
mrc_fabric_up srh || exit $ksft_fail
HB=${FAB_HADDR[hB]}
counter() { fabric_exec "$1" awk -v k="$2" '$1 == k { print $2 }' /proc/net/mrc; }

# hB answers from its MRC UDP port, which its first listener opens.
fabric_exec hB ./mrc_sock_helper listen 82 >"$out/lst" 2>&1 &
sleep 0.5
expect_eq "hB listening" "ready 82" "$(cat "$out/lst")"

# probe NAME ARGS...: mrcctl -j probe on hA; sets rc and the JSON in NAME.json
probe() {
	local name=$1
	shift
	mrcctl hA -j probe "$HB" "$@" >"$out/$name.json" 2>"$out/$name.err"
	rc=$?
	log "$name: exit $rc, $(jq -c '{sent, answered, rtt_us_min_avg_max:
		([.probes[].rtt_ns // empty] | if length > 0 then [min, add / length, max] |
		map(. / 1000 | floor) else [] end)}' "$out/$name.json" 2>/dev/null)"
}
# n NAME JQ-FILTER: how many probes of NAME match
n() { jq "[.probes[] | select($2)] | length" "$out/$1.json"; }

# The paths are listed plane by plane, spine by spine: path = plane x 2 + spine.
sids() { fabric_sid_counts "${FAB_SPINES[@]}" | sort; }
# sid_delta NODE: packets its SIDs counted between the sid0 and sid1 snapshots
sid_delta() {
	awk -v n="$1" 'NR == FNR { if ($1 == n) b[$2] = $3; next }
		$1 == n { d += $3 - b[$2] } END { print d + 0 }' "$out/sid0" "$out/sid1"
}
sids >"$out/sid0"
s0=$(counter hA EvProbesSent) r0=$(counter hA EvProbesReplied) a0=$(counter hB EvProbesAnswered)
probe ok evs 4
sids >"$out/sid1"
expect_eq "healthy: exit status" 0 "$rc"
expect_eq "healthy: probes sent" 32 "$(jq .sent "$out/ok.json")"
expect_eq "healthy: probes answered" 32 "$(jq .answered "$out/ok.json")"
expect_eq "healthy: each with an rtt" 32 "$(n ok '.rtt_ns > 0')"
expect_eq "healthy: in path order, 4 each" \
	"0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7" \
	"$(jq -r '[.probes[].path] | map(tostring) | join(" ")' "$out/ok.json")"
expect_eq "healthy: plane = path / 2" 32 "$(n ok '.plane == ((.path / 2) | floor)')"
expect_eq "healthy: 32 distinct EVs" 32 "$(jq '[.probes[].ev] | unique | length' "$out/ok.json")"
expect_eq "healthy: no source port below 1024" 0 "$(n ok '.sport < 1024')"
expect_eq "hA EvProbesSent" 32 $(($(counter hA EvProbesSent) - s0))
expect_eq "hA EvProbesReplied" 32 $(($(counter hA EvProbesReplied) - r0))
expect_eq "hB EvProbesAnswered" 32 $(($(counter hB EvProbesAnswered) - a0))
# Every probe crossed its own path's spine, the answers plane 0 spine 0.
for sp in "${FAB_SPINES[@]}"; do
	sp=${sp#"$FAB_PREFIX"}
	want=4
	[ "$sp" = sp-p0-s0 ] && want=36
	expect_eq "healthy: SID packets at $sp" "$want" "$(sid_delta "$sp")"
done

# A spine cut from hB's leaf: the probes of its path are lost, only those.
fabric_link_set 1 0 hB down || check "cut sp-p1-s0" false
probe cut evs 4 timeout 500
expect_eq "cut: exit status" 4 "$rc"
expect_eq "cut: answered" 28 "$(jq .answered "$out/cut.json")"
expect_eq "cut: lost, all on path 2" "2 2 2 2" \
	"$(jq -r '[.probes[] | select(.rtt_ns == null) | .path] | map(tostring) | join(" ")' "$out/cut.json")"
# Runs in flight are bounded: 4 wait out their timeout on the cut path, a
# fifth is refused.
pids=()
for i in 1 2 3 4; do
	mrcctl hA probe "$HB" evs 1 timeout 3000 >/dev/null 2>&1 &
	pids+=($!)
done
sleep 1
mrcctl hA probe "$HB" evs 1 >/dev/null 2>"$out/busy.err"
expect_eq "a fifth run in flight: exit status" 1 "$?"
check "a fifth run in flight: extack ($(cat "$out/busy.err"))" \
	grep -q "too many EV probe runs in flight" "$out/busy.err"
rcs=""
for p in "${pids[@]}"; do wait "$p"; rcs+="$? "; done
expect_eq "the 4 runs each lost their cut-path probe" "4 4 4 4 " "$rcs"
fabric_link_set 1 0 hB up || check "restore sp-p1-s0" false

# hA's port of plane 3 down: its probes are not sent, the rest answered.
fabric_hostlink_set hA 3 down || check "plane 3 port down" false
for ((i = 0; i < 50; i++)); do
	fabric_ip hA link show pl3 | grep -q NO-CARRIER && break
	sleep 0.1
done
probe down evs 2
expect_eq "plane down: exit status" 4 "$rc"
expect_eq "plane down: not sent on plane 3" 4 "$(n down '.plane == 3 and .error == "Network is down"')"
expect_eq "plane down: the other planes answered" 12 "$(jq .answered "$out/down.json")"
fabric_hostlink_set hA 3 up || check "plane 3 port up" false

# Bad requests: refused with the attribute named, nothing sent.
s0=$(counter hA EvProbesSent)
for bad in "evs 17|probe-evs out of range" "timeout 0|probe-timeout-ms out of range"; do
	# shellcheck disable=SC2086  # "evs 17": two words
	probe bad ${bad%%|*}
	expect_eq "${bad%%|*}: exit status" 1 "$rc"
	check "${bad%%|*}: extack ($(cat "$out/bad.err"))" grep -q "${bad#*|}" "$out/bad.err"
done
mrcctl hA probe ff02::1 >/dev/null 2>"$out/mc.err"
expect_eq "multicast peer: exit status" 1 "$?"
check "multicast peer: extack ($(cat "$out/mc.err"))" grep -q "unicast" "$out/mc.err"
expect_eq "bad requests sent nothing" 0 $(($(counter hA EvProbesSent) - s0))
finish
