#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The emulated SRv6 fabric (mrc_fabric_lib.sh) works, proven with Linux's own
# seg6 encap on the hosts and the per-SID counters of the switches, without
# the MRC module:
#   - none mode (plain IPv6) delivers on every plane;
#   - every (plane, spine) path delivers in srh mode (SRH, 4 SIDs), usid mode
#     (IPv6-in-IPv6, outer DA = uSID container, no SRH) and usid-srh (the
#     container in a one-SID SRH), and went through exactly the intended
#     spine: every SID counter of the fabric equals its expected count (each
#     spine counts its own path's requests and replies, nothing else);
#   - a downed spine link blackholes exactly the paths through it, the
#     counters behind the cut stop, and the link comes back;
#   - a downed plane kills only that plane (hosts see NO-CARRIER), a downed
#     host port only that host's plane, and both come back;
#   - the netem and tbf helpers apply (RTT, scoped loss, shaped throughput).
# Forks and execs (50-100 ms) are slow under TCG: helpers use -v, not $(), and
# independent pings run in parallel.
source ./mrc_lib.sh
source ./mrc_fabric_lib.sh

[ "$(id -u)" = 0 ] || { log "SKIP: needs root"; exit $ksft_fail; }
ip route help 2>&1 | grep -q next-csid || { log "SKIP: ip lacks seg6local next-csid"; exit $ksft_fail; }

NP=$FAB_NPLANES	# 4 unless set in the environment
NS=$FAB_NSPINES	# 2 unless set in the environment
K=3		# pings per path
MODES=(none srh usid usid-srh)
t_start=$(_fab_now_ms)
phase() { log "--- $* (at $(($(_fab_now_ms) - t_start)) ms)"; }
trap fabric_destroy EXIT

if ! fabric_create 2 "$NP" "$NS"; then
	log "FAIL: fabric_create"
	exit $ksft_fail
fi
log "fabric: 2 hosts x $NP planes x $NS spines, ${#FAB_NODES[@]} namespaces, set-up ${FAB_SETUP_MS} ms ($FAB_SETUP_DETAIL)"
expect_eq "namespaces" $((2 + 2 * NP + NP * NS)) "$(ip netns list | grep -c "^$FAB_PREFIX")"
fabric_usid -v sid sp-p0-s1
fabric_sid_prefix -v pfx "$sid"
out=$(fabric_ip sp-p0-s1 -6 route show exact "$pfx")
log "sp-p0-s1 uSID route: $out"
check "uSID End with next-csid on sp-p0-s1" grep -q 'action End .*flavors next-csid lblen 32 nflen 16' <<<"$out"
fabric_sid -v sid hB 0
fabric_sid_prefix -v pfx "$sid"
out=$(fabric_ip hB -6 route show exact "$pfx")
check "End.DT6 table local on hB" grep -q 'action End.DT6 table local' <<<"$out"
fabric_path_segs -v out hA hB 1 1 srh
expect_eq "path srh hA->hB p1 s1" "fc00:1201::,fc00:1301::,fc00:1202::,fc00:1102::" "$out"
fabric_path_usid -v out hA hB 1 1
expect_eq "path usid hA->hB p1 s1" "fcbb:bbbb:1201:1301:1202:1102::" "$out"

# Per-path test addresses fd00:<mode>:<plane>:<spine>::<host> on each host's
# sid device, each routed to the peer over its own path: one ping exercises
# one (mode, plane, spine) path in both directions.
paddr() { printf -v "$1" 'fd00:%x:%x:%x::%x' "$2" "$3" "$4" "${FAB_HNUM[$5]}"; }	# VAR M P S HOST
for h in hA hB; do
	peer=hB
	[ $h = hB ] && peer=hA
	b=""
	for m in 1 2 3; do
		for ((p = 0; p < NP; p++)); do
			for ((s = 0; s < NS; s++)); do
				paddr a1 $m $p $s $h
				paddr a2 $m $p $s $peer
				fabric_route_line -v line $h $peer $p $s "${MODES[m]}" "$a2"
				b+="address add $a1/128 dev sid nodad"$'\n'"$line"$'\n'
			done
		done
	done
	check "path routes on $h" ip -6 -n "$FAB_PREFIX$h" -batch - <<<"$b"
done

# ping_paths SPEC...: pings from hA to hB, all at once; SPEC is
# "ok|fail MODE PLANE SPINE" (MODE 0: none, to hB's plane address). ok: K
# pings must all be answered; fail: 2 pings 0.2 s apart, none answered after
# 1 s. Sets TXS[MODE PLANE SPINE] = pings sent.
declare -A TXS
ping_paths() {
	local spec want m p s a1 a2 i=0 tmp out opt what pids=()
	tmp=$(mktemp -d)
	for spec in "$@"; do
		read -r want m p s <<<"$spec"
		if ((m == 0)); then
			a1=${FAB_ADDR[hA,$p]} a2=${FAB_ADDR[hB,$p]}
		else
			paddr a1 "$m" "$p" "$s" hA
			paddr a2 "$m" "$p" "$s" hB
		fi
		opt=(-A -c "$K" -w 5)
		[ "$want" = fail ] && opt=(-c 2 -i 0.2)
		ip netns exec "${FAB_PREFIX}hA" ping -6 -q -W 1 "${opt[@]}" -I "$a1" "$a2" >"$tmp/$i" 2>&1 &
		pids+=($!)
		i=$((i + 1))
	done
	wait "${pids[@]}"
	i=0
	for spec in "$@"; do
		read -r want m p s <<<"$spec"
		out=""
		read -r -d '' out <"$tmp/$i"
		i=$((i + 1))
		TX=0 RX=0
		[[ $out =~ ([0-9]+)\ packets\ transmitted,\ ([0-9]+)\ packets\ received ]] &&
			TX=${BASH_REMATCH[1]} RX=${BASH_REMATCH[2]}
		TXS["$m $p $s"]=$TX
		what="${MODES[m]} p$p s$s"
		((m == 0)) && what="none p$p"
		if [ "$want" = ok ]; then
			expect_eq "$what delivers" "$K/$K" "$RX/$TX"
		else
			expect_eq "$what blackholed" "0/2" "$RX/$TX"
		fi
	done
	rm -rf "$tmp"
}
# all_paths MODE [FAIL-PLANE [FAIL-SPINE]]: the specs of every path of MODE,
# "fail" for those of FAIL-PLANE (through FAIL-SPINE if given)
all_paths() {
	local p s w
	SPECS=()
	for ((p = 0; p < NP; p++)); do
		for ((s = 0; s < NS; s++)); do
			w=ok
			[ "$p" = "${2:-}" ] && { [ -z "${3:-}" ] || [ "$s" = "$3" ]; } && w=fail
			[ "$1" = 0 ] && ((s > 0)) && continue	# none: one per plane
			SPECS+=("$w $1 $p $s")
		done
	done
}

# SID counter snapshots: c0 (before), c1 (after), exp (expected deltas),
# keyed "node prefix".
declare -A c0 c1 exp
snap() {	# snap ARRAY [NODE...]
	local -n _m=$1
	local n pfx c
	shift
	_m=()
	while read -r n pfx c; do _m["$n $pfx"]=$c; done < <(fabric_sid_counts "$@")
}
# key VAR KIND NODE [PLANE]: the key of NODE's own sid/usid route
key() {
	local sid pfx
	fabric_$2 -v sid "$3" $4 && fabric_sid_prefix -v pfx "$sid" || return 1
	printf -v "$1" '%s %s' "$3" "$pfx"
}
addexp() {	# KIND NODE PLANE N
	local k
	key k "$1" "$2" "$3"
	exp[$k]=$((${exp[$k]:-0} + $4))
}
# expect_paths MODE...: exp = the SID deltas of K pings over every path of
# each MODE (1 srh: full SIDs, 2 usid and 3 usid-srh: uSIDs)
expect_paths() {
	local kind k p s h x m
	exp=()
	for k in "${!c0[@]}"; do exp[$k]=0; done
	for m in "$@"; do
		kind=usid
		[ "$m" = 1 ] && kind=sid
		for ((p = 0; p < NP; p++)); do
			for ((s = 0; s < NS; s++)); do
				addexp $kind sp-p$p-s$s "" $((2 * K))	# request and reply
				for h in hA hB; do
					x=${h#h}
					# first hop out, last but one in
					addexp $kind "t0${x,,}-p$p" "" $((2 * K))
					addexp $kind $h $p $K	# End.DT6
				done
			done
		done
	done
}
# check_deltas WHAT: c1 - c0 == exp for every SID route; then c0 = c1
check_deltas() {
	local k d bad="" n=0 spines=""
	for k in "${!exp[@]}"; do
		n=$((n + 1))
		[ -n "${c1[$k]:-}" ] || { bad+=" [$k missing]"; continue; }
		d=$((${c1[$k]} - ${c0[$k]:-0}))
		[ "$d" = "${exp[$k]}" ] || bad+=" [$k +$d want +${exp[$k]}]"
		[[ $k == sp-p0-* ]] && spines+=" ${k%% *} ${k#* }:+$d"
	done
	log "$1:$spines"
	expect_eq "$1: all $n SID counters as expected" "" "$bad"
	for k in "${!c1[@]}"; do c0[$k]=${c1[$k]}; done
}

phase "none mode, every path in every SRv6 mode"
snap c0
expect_eq "SID routes counted" $(((2 * NP + 2 * NP + NP * NS) * 2)) "${#c0[@]}"
# srh and usid paths use disjoint SID routes: one round, one snapshot
specs=()
for m in 0 1 2; do all_paths $m; specs+=("${SPECS[@]}"); done
ping_paths "${specs[@]}"
snap c1
expect_paths 1 2
check_deltas "srh and usid (none counted nothing)"
all_paths 3
ping_paths "${SPECS[@]}"
snap c1
expect_paths 3
check_deltas "usid-srh"

key k sid sp-p0-s1
expect_eq "fabric_sid_count agrees with the snapshot (sp-p0-s1 srh)" "${c0[$k]}" \
	"$(fabric_sid_count sp-p0-s1 srh)"
key k usid hB $((NP - 1))
expect_eq "fabric_sid_count agrees with the snapshot (hB usid plane $((NP - 1)))" "${c0[$k]}" \
	"$(fabric_sid_count hB usid $((NP - 1)))"

phase "one spine link down"
LP=$((1 % NP))
SB=$((NS - 1))	# the sibling spine
check "link p$LP s0 - hB's leaf down" fabric_link_set $LP 0 hB down
all_paths 1 $LP 0
specs=("${SPECS[@]}")
all_paths 2 $LP 0
ping_paths "${specs[@]}" "${SPECS[@]}"
cut=("sp-p$LP-s0" "sp-p$LP-s$SB" "t0b-p$LP")
snap c1 "${cut[@]}" hB
for kind in sid usid; do
	key k0 $kind sp-p$LP-s0
	key k1 $kind sp-p$LP-s$SB
	key k2 $kind t0b-p$LP
	key k3 $kind hB $LP
	m=1
	[ $kind = usid ] && m=2
	for k in "$k0" "$k1" "$k2" "$k3"; do log "link down: $k +$((${c1[$k]} - ${c0[$k]}))"; done
	# the requests reach the cut spine, nothing passes the cut
	expect_eq "link down, ${MODES[m]}: cut spine counts the requests" "${TXS["$m $LP 0"]}" \
		$((${c1[$k0]} - ${c0[$k0]}))
	expect_eq "link down, ${MODES[m]}: hB's leaf counts only the sibling spine's path" \
		$((2 * K * (NS - 1))) $((${c1[$k2]} - ${c0[$k2]}))
	expect_eq "link down, ${MODES[m]}: hB End.DT6 counts only the sibling spine's path" \
		$((K * (NS - 1))) $((${c1[$k3]} - ${c0[$k3]}))
	((NS > 1)) && expect_eq "link down, ${MODES[m]}: sibling spine counts its own path" \
		$((2 * K)) $((${c1[$k1]} - ${c0[$k1]}))
done
for k in "${!c1[@]}"; do c0[$k]=${c1[$k]}; done
check "link p$LP s0 - hB's leaf up" fabric_link_set $LP 0 hB up
ping_paths "ok 1 $LP 0" "ok 2 $LP 0"
snap c1 "${cut[@]}" hB
key k0 sid sp-p$LP-s0
key k1 sid sp-p$LP-s$SB
key k2 usid t0b-p$LP
expect_eq "link up: the spine counts requests and replies again" $((2 * K)) $((${c1[$k0]} - ${c0[$k0]}))
expect_eq "link up: hB's leaf counts again" $((2 * K)) $((${c1[$k2]} - ${c0[$k2]}))
expect_eq "link up: sibling spine saw none of it" 0 $((${c1[$k1]} - ${c0[$k1]}))

phase "one plane down"
DP=$((2 % NP))
check "plane $DP down" fabric_plane_set $DP down
out=$(fabric_ip hA link show dev pl$DP; fabric_ip hA link show dev pl$(((DP + 1) % NP)))
check "hA pl$DP has no carrier, pl$(((DP + 1) % NP)) has" test "$(grep -c NO-CARRIER <<<"$out")" = 1
specs=()
for m in 0 1 2; do all_paths $m $DP; specs+=("${SPECS[@]}"); done
ping_paths "${specs[@]}"
check "plane $DP up" fabric_plane_set $DP up
ping_paths "ok 0 $DP 0" "ok 1 $DP 0" "ok 2 $DP $SB" "ok 3 $DP 0"

phase "one host port down"
HP=$((NP - 1))
check "hA's port of plane $HP down" fabric_hostlink_set hA $HP down
check "hA pl$HP has no carrier" grep -q NO-CARRIER <<<"$(fabric_ip hA link show dev pl$HP)"
ping_paths "fail 0 $HP 0" "fail 1 $HP $SB" "fail 2 $HP 0" "ok 0 0 0" "ok 2 0 $SB"
check "hA's port of plane $HP up" fabric_hostlink_set hA $HP up
ping_paths "ok 0 $HP 0" "ok 1 $HP $SB" "ok 2 $HP 0"

phase "netem"
rtt() {	# average RTT in whole ms of srh p0 s0
	local out a1 a2
	paddr a1 1 0 0 hA
	paddr a2 1 0 0 hB
	out=$(ip netns exec "${FAB_PREFIX}hA" ping -6 -q -c 3 -i 0.2 -W 2 -I "$a1" "$a2" 2>&1)
	RTT=99999
	[[ $out =~ min/avg/max\ =\ [0-9.]+/([0-9]+) ]] && RTT=${BASH_REMATCH[1]}
}
check "netem delay 5ms on every switch port" fabric_netem delay 5ms
check "netem on a spine port" grep -q 'netem.*delay 5ms' <<<"$(tc -n "${FAB_PREFIX}sp-p0-s0" qdisc show dev t0a)"
rtt
log "srh p0 s0 RTT with 6 x 5 ms netem: $RTT ms"
check "RTT >= 30 ms" test "$RTT" -ge 30 -a "$RTT" -lt 1000
check "netem loss 100% on plane 0's spines only" fabric_netem --spines --plane 0 loss 100%
ping_paths "fail 1 0 0" "ok 1 $((1 % NP)) 0"
check "netem reorder/duplicate accepted" fabric_netem --spines --plane $((NP - 1)) delay 1ms reorder 25% 50% duplicate 1%
check "netem reorder/duplicate on a spine of plane $((NP - 1))" grep -q 'reorder 25%.*duplicate 1%\|duplicate 1%.*reorder 25%' \
	<<<"$(tc -n "${FAB_PREFIX}sp-p$((NP - 1))-s0" qdisc show dev t0b)"
check "netem clear" fabric_netem clear
out=$(tc -n "${FAB_PREFIX}sp-p0-s0" qdisc show; tc -n "${FAB_PREFIX}t0a-p0" qdisc show)
check "no netem left" test "$(grep -c netem <<<"$out")" = 0
ping_paths "ok 1 0 0"
rtt
check "RTT back under 30 ms ($RTT)" test "$RTT" -lt 30

phase "tbf"
iperf_mbit() {	# SECONDS: TCP rate hA -> hB, none mode, plane 0
	local out
	ip netns exec "${FAB_PREFIX}hB" timeout 15 iperf3 -s -1 -B "${FAB_ADDR[hB,0]}" >/dev/null 2>&1 &
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ip netns exec "${FAB_PREFIX}hB" ss -ltn 2>/dev/null | grep -q ':5201 ' && break
		sleep 0.2
	done
	out=$(ip netns exec "${FAB_PREFIX}hA" timeout 20 iperf3 -c "${FAB_ADDR[hB,0]}" -B "${FAB_ADDR[hA,0]}" -t "$1" -f m 2>&1)
	wait
	MBIT=0
	[[ $out =~ \ ([0-9]+)(\.[0-9]+)?\ Mbits/sec[\ ]+receiver ]] && MBIT=${BASH_REMATCH[1]}
}
iperf_mbit 1
free=$MBIT
check "tbf 20mbit on every host uplink" fabric_tbf 20mbit
check "tbf on hB pl$((NP - 1))" grep -q 'tbf.*rate 20Mbit' <<<"$(tc -n "${FAB_PREFIX}hB" qdisc show dev pl$((NP - 1)))"
iperf_mbit 1
shaped=$MBIT
log "TCP hA->hB plane 0: unshaped $free Mbit/s, tbf 20mbit $shaped Mbit/s"
check "shaped rate within 8..21 Mbit/s" test "$shaped" -ge 8 -a "$shaped" -le 21
check "unshaped rate at least 3x the shaped one" test "$free" -ge $((3 * shaped))
check "tbf clear" fabric_tbf clear

t=$(_fab_now_ms)
fabric_destroy
log "teardown $(($(_fab_now_ms) - t)) ms; whole test $(($(_fab_now_ms) - t_start)) ms (set-up ${FAB_SETUP_MS} ms)"
expect_eq "no fabric namespace left" 0 "$(ip netns list | grep -c "^$FAB_PREFIX")"
finish
