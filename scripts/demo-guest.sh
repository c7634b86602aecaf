#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest half of make demo (run by scripts/vm/run.sh with mrc.ko loaded):
# an emulated fabric of 2 hosts x 4 planes x 2 spines whose switches are
# Linux's own SRv6 (End with next-csid), planes and uSID routes configured
# with mrcctl, one AF_MRC connection sprayed over every plane and spine,
# a spine link cut in the middle of the transfer, and the per-plane /
# per-path state before, during and after, from the module (mrcctl) and
# from the eBPF telemetry (mrcstat).
set -uo pipefail
cd /mrc/build/ksft/mrc || exit 1
# shellcheck source=/dev/null
source ./mrc_lib.sh
# shellcheck source=/dev/null
source ./mrc_fabric_lib.sh

M=/mrc/build/cmake/tools/mrcctl/mrcctl
S=/mrc/build/cmake/tools/mrcstat/mrcstat
out=$(mktemp -d)
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
on() { local h=$1; shift; fabric_exec "$h" "$@"; }
# Per-plane EV states of the client's connection, from the module.
states() {
	on hA "$M" -j path show | tr '{' '\n' | sed -n \
		's/.*"plane":\([0-9]*\),"state":"\([a-z_]*\)".*/plane \1 \2/p' |
		sort | uniq -c | awk '{ printf "  plane %s: %3d %s\n", $3, $1, $4 }'
}
# Data packets that crossed each spine (the spines' own SID counters).
spines() {
	local p s n line=""
	for ((p = 0; p < 4; p++)); do
		for ((s = 0; s < 2; s++)); do
			n=$(fabric_sid_count "sp-p$p-s$s" usid)
			line+=$(printf ' p%d/s%d:%6s' "$p" "$s" "$n")
		done
		((p == 1)) && line+=$'\n'
	done
	echo "$line"
}

say "fabric: 2 hosts x 4 planes x 2 spines, SRv6 switches (network namespaces)"
fabric_create || exit 1
echo "  set up in ${FAB_SETUP_MS} ms"
HB=${FAB_HADDR[hB]}

say "mrcctl: planes and a uSID route over 4 planes x 2 spines on both hosts"
for h in hA hB; do
	o=hB; [ "$h" = hB ] && o=hA
	args=()
	for ((p = 0; p < 4; p++)); do
		on "$h" "$M" plane add id "$p" dev "pl$p" addr "${FAB_ADDR[$h,$p]}" || exit 1
		for ((s = 0; s < 2; s++)); do
			fabric_path_usid -v v "$h" "$o" "$p" "$s"
			args+=(plane "$p" usid "$v")
		done
	done
	on "$h" "$M" route add "${FAB_HADDR[$o]}/128" encap usid "${args[@]}" || exit 1
done
on hA "$M" plane show
on hA "$M" route show

say "telemetry: mrcstat attach (eBPF on the mrc:* tracepoints)"
"$S" attach || exit 1

say "transfer: 600 messages of 1 B - 1 MiB each way, SHA-256 digests"
on hB ./mrc_xfer -l -p 7000 -n 600 -M 1048576 -s 11 --linger 10 >"$out/srv" 2>&1 &
srv=$!
sleep 0.5
on hA ./mrc_xfer -c "$HB" -p 7000 -n 600 -M 1048576 -s 22 --linger 10 >"$out/cli" 2>&1 &
cli=$!
sleep 2
say "before the failure: EV states per plane (mrcctl path show)"
states
echo "  packets through each spine so far (SID counters):"
spines

say "failure: the link between spine 1 of plane 1 and hB's leaf goes down"
fabric_link_set 1 1 hB down
sleep 3
say "after detection: the EVs through that spine are assumed_bad"
states
echo "  packets through each spine (p1/s1 stops rising but for probes):"
spines
say "mrcstat: per-plane / per-path view from the eBPF maps"
"$S" show -c 1 --no-color --no-evs 2>&1 | head -n 40

say "repair: the link comes back; probes bring its EVs back to good"
fabric_link_set 1 1 hB up
sleep 3
states

wait "$cli"
crc=$?
wait "$srv"
echo
echo "client: $(tr '\n' ' ' <"$out/cli")"
echo "server: $(tr '\n' ' ' <"$out/srv")"
tx_c=$(awk '$1 == "tx" { print $2 }' "$out/cli")
rx_s=$(awk '$1 == "rx" { print $2 }' "$out/srv")
tx_s=$(awk '$1 == "tx" { print $2 }' "$out/srv")
rx_c=$(awk '$1 == "rx" { print $2 }' "$out/cli")
if ((crc == 0)) && [ -n "$tx_c" ] && [ "$tx_c" = "$rx_s" ] && [ "$tx_s" = "$rx_c" ]; then
	echo "digests match both ways: every message arrived intact, in order"
else
	echo "TRANSFER FAILED"
	exit 1
fi

say "paths events streamed by mrcstat (last ones)"
"$S" events -j -c 5 -t 1 2>/dev/null | tail -n 5
"$S" detach
fabric_destroy
rm -rf "$out"
