#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, the README's main job: show what the project does today.
#   1. the protocol engine in the packet-level simulator: one connection
#      sprayed over 4 planes x 4 paths, a path blackholed mid-transfer,
#      detected and routed around; per-plane counters before/after;
#   2. the test VM: Debian's 6.1 kernel boots, mrc.ko is loaded with insmod,
#      AF_MRC sockets are created in several network namespaces, and the
#      per-namespace counters show them.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"

sim=build/cmake/tools/sim/mrcsim
echo "=== 1. the protocol engine in the packet-level simulator"
echo "    one connection, 4 planes x 4 paths at 100 Gbit/s, 300 messages of 4-256 KiB;"
echo "    path 2 of plane 1 silently blackholes 40 us into the transfer"
out=$("$sim" --planes 4 --paths 4 --messages 300 --size-min 4096 --size-max 262144 \
	--rate-gbps 100 --delay-us 2 --rto-exp 7 --blackhole 1:2@40 --seed 7 --per-path --events)
jq -r '"result: \(.result.why), \(.run.endpoints[1].delivered) messages delivered, " +
	"\(.run.endpoints[1].delivered_bad) damaged, goodput \(.run.goodput_Bps * 8 / 1e9 | floor) Gbit/s, " +
	"\(.run.endpoints[0].eng_timeouts) timeouts"' <<<"$out"
echo "data packets per path (sender -> receiver):"
jq -r '["plane","path","sent","delivered","blackholed"],
	(.run.paths[] | select(.dir == "a2b") |
	 [.plane, .path, .c.offered_data, .c.delivered, .c.dropped_blackhole]) | @tsv' <<<"$out" |
	column -t
echo "entropy values declared dead (GOOD -> ASSUMED_BAD) and replaced from the same plane:"
jq -r '[.ev_events[] | select(.new == "assumed_bad")] |
	"  \(length) EVs, all on plane(s) \([.[].plane] | unique | map(tostring) | join(",")), " +
	"first at \(.[0].t / 1000 | floor) us"' <<<"$out"
echo
echo "=== 2. mrc.ko in the test VM (QEMU, Debian 6.1 kernel)"
bash scripts/vm/run.sh --name demo --timeout 300 -- bash /mrc/scripts/demo-guest.sh
