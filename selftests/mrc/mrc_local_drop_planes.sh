#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Local drops on several planes at once: every host uplink of the fabric
# (2 hosts x 4 planes) is shaped by the bench's shaped-cell tbf (about
# 157 KB of queue each), and the connection keeps a fixed window of 512 KiB
# in flight, which never shrinks for a refusal. Flowcells land on the
# planes unevenly (one queue full while another is empty), so every
# plane's queue refuses packets now and then, and a SACK's drain meets full
# queues on several planes in one mrc_xmit_queue() call.
#
# A refused packet is reported to the engine, which resends it at once on a
# plane with room; the reported planes are closed for a while. Before, each
# report reopened the planes an earlier report of the same call had closed:
# the engine resent on them, the resends were refused (or dropped untried)
# and reported, and so on, for as long as the queues stayed full: a CPU
# stuck in softirq (watchdog: soft lockup, mrc_build_pkt() under
# mrc_conn_local_drops() under mrc_xmit_queue()), the transfer never done.
#
# Evidence: the transfer completes (300 s bound) with digests equal both
# ways, hA's TxLocalDrops shows that every plane's queue refused (each
# plane's qdisc dropped packets, hA counted at least as many), and the
# guest log has no soft lockup (the VM runner fails on any BUG:). Each
# plane's refusals are timing (check_timed): a slower guest fills no queue.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh
. ./mrc_fabric_lib.sh
. ./mrc_fabric_mrc.sh

N=${MRC_LDP_MSGS:-150}
MAX=4194304
out=$(mktemp -d)
port=7210

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; exit $ksft_fail; }
trap 'fabric_destroy; rm -rf "$out"' EXIT

fabric_create 2 4 || exit $ksft_fail
mrc_fabric_up srh || exit $ksft_fail
for h in hA hB; do
	mrcctl "$h" profile set id 0 cc-algo fixed max-wnd 3000 init-wnd 3000 >/dev/null ||
		{ check "profile: fixed window of 512 KiB on $h" false; exit $ksft_fail; }
done
# 50 Mbit/s per plane, a 32 KB bucket (a flowcell fits: refused whole),
# 20 ms of queue: about 157 KB per plane (the bench's shaped cell).
fabric_tbf 50mbit 32kb 20ms || exit $ksft_fail

nsA=$(fabric_ns hA)
d0=$(proc_counter TxLocalDrops "$nsA")
fabric_exec hB ./mrc_xfer -l -p "$port" -n "$N" -M "$MAX" -s 11 \
	>"$out/planes.srv" 2>"$out/planes.srv.err" &
spid=$!
sleep 0.3
fabric_exec hA timeout 300 ./mrc_xfer -c "${FAB_HADDR[hB]}" -p "$port" -n "$N" -M "$MAX" \
	-s 22 >"$out/planes.cli" 2>"$out/planes.cli.err"
rc=$?
[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
wait "$spid"
xfer_verdict planes "$out" "$rc" $?

drops=$(($(proc_counter TxLocalDrops "$nsA") - d0))
total=0
for p in 0 1 2 3; do
	q=$(fabric_exec hA tc -s -j qdisc show dev "pl$p" | jq '[.[] | select(.kind == "tbf")][0].drops')
	log "plane $p: the qdisc refused ${q:-?}"
	# Filling a 50 Mbit/s queue takes a guest that sends faster than
	# that: Debian's kernels do, the debug kernel's (22 Mbit/s in all)
	# hardly refused a packet.
	check_timed "plane $p: its queue refused packets (${q:-0} >= 5)" [ "${q:-0}" -ge 5 ]
	total=$((total + ${q:-0}))
done
log "TxLocalDrops $drops, qdisc drops $total; $(grep rate "$out/planes.cli")"
check "every refusal reported ($drops >= $total)" [ "$drops" -ge "$total" ]

finish
