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
if [ -x "$sim" ]; then
	echo "=== 1. engine in the simulator: 4 planes x 4 paths, path 1/2 blackholed at 2 ms"
	"$sim" --planes 4 --paths 4 --messages 200 --size-min 4096 --size-max 262144 \
		--blackhole 1/2@2 --seed 7
fi

echo
echo "=== 2. mrc.ko in the test VM (QEMU, Debian 6.1 kernel)"
bash scripts/vm/run.sh --name demo --timeout 300 -- bash /mrc/scripts/demo-guest.sh
