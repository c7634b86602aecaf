#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ECN marks from a congested spine steer MRC away from it (issue 14). Two
# hosts over the SRv6 fabric (srh, every plane and spine). Spine sp-p1-s0
# marks, on its port towards hB's leaf, 90% of what it forwards (netem
# "loss 90% ecn": ECN-capable packets get CE, the others are dropped).
# MRC data leaves ECT(0), inner and outer, so the marks land on the outer
# header; Linux's SRv6 decapsulation (End.DT6, 6.1) throws that header
# away with its mark, so:
#  1. without help, hB never sees CE and hA keeps sending data through
#     sp-p1-s0 nearly as much as through sp-p1-s1 (ratio of hA's data
#     packets per EV on the two paths, from its per-EV counters, above 0.75;
#     runs measured 0.85 to 1.02);
#  2. with ebpf/mrc_ecn_decap.bpf.o at tc ingress of hB's plane devices (it
#     copies an outer CE into the inner header before the decapsulation),
#     hB's SACKs say SKIP_ONCE for the marked EVs, hA passes them over, and
#     the marked spine's share falls (ratio below 0.7 and at least 0.15
#     below the first run's) while the transfer completes intact.
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
check "spine sp-p1-s0 marks towards hB" \
	fabric_exec sp-p1-s0 tc qdisc replace dev t0b root netem loss 90% ecn

# sent_on PLANE SPINE: data packets hA's connection to hB sent per EV it
# used on that path (mrcctl path show; an EV's spine is its entropy %
# FAB_NSPINES, mrc_fabric_up lists spine 0, then 1, for every plane). Per
# EV, because the active EVs of a plane need not split evenly between its
# spines (24 of 32 chosen at random).
sent_on() {
	jq -r --argjson p "$1" --argjson s "$2" --argjson ns "$FAB_NSPINES" \
		'[.[0].paths[] | select(.plane == $p and ((.ev % 16777216) % $ns) == $s and
		  .sent > 0) | .sent] | if length > 0 then add / length | floor else 0 end' \
		"$out/paths.json"
}

# run NAME PORT: one transfer both ways, the client held open at the end;
# sets RATIO to hA's data packets on the marked path (plane 1, spine 0) over
# those on its plane sibling (plane 1, spine 1)
run() {
	local a b crc src i
	rm -f "$out/release"
	fabric_exec hB timeout 200 ./mrc_xfer -l -p "$2" -n 600 -M 262144 -s 51 \
		>"$out/$1.srv" 2>"$out/$1.srv.err" &
	spid=$!
	sleep 0.3
	fabric_exec hA timeout 200 ./mrc_xfer -c "$HB" -p "$2" -n 600 -M 262144 -s 52 \
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
	a=$(sent_on 1 0) b=$(sent_on 1 1)
	RATIO=$(awk -v a="${a:-0}" -v b="${b:-0}" 'BEGIN { printf "%.3f", b ? a / b : 0 }')
	log "$1: hA's data packets per EV on the marked path $a, on its sibling $b: ratio $RATIO, $(grep rate "$out/$1.cli")"
}

run plain 7500
r1=$RATIO
check "without CE at the receiver the marked spine keeps most of its share ($r1 > 0.75)" \
	awk -v r="$r1" 'BEGIN { exit !(r > 0.75) }'

for p in 0 1 2 3; do
	fabric_exec hB tc qdisc replace dev "pl$p" clsact &&
		fabric_exec hB tc filter replace dev "pl$p" ingress bpf direct-action \
			obj "$BPF_OBJ" sec tc ||
		{ log "FAIL: attach $BPF_OBJ on hB pl$p"; exit $ksft_fail; }
done
run decap 7501
r2=$RATIO
check "with CE copied inward the marked spine's share falls ($r2 < 0.7)" \
	awk -v r="$r2" 'BEGIN { exit !(r < 0.7) }'
check "by at least 0.15 ($r1 -> $r2)" awk -v a="$r1" -v b="$r2" 'BEGIN { exit !(a - b >= 0.15) }'
finish
