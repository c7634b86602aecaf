#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of "make bench" (scripts/bench.sh boots the VM with it):
# one emulated fabric of 2 hosts x 4 planes, tbf-shaped per plane, and
# mrcperf over MRC, TCP (one plane) and MPTCP (one subflow per plane) side
# by side: goodput clean and at 1% loss, a time series across a plane
# failure, small-message latency, request/response, and telemetry overhead.
# Raw results land in $BENCH_OUT/raw (on the share); the host assembles
# results.json, the table and the plot. A transport that fails is recorded
# with its reason and the run goes on.
#
# Knobs (environment): BENCH_RATE (per plane, default 50mbit), BENCH_DURATION
# (bulk seconds, default 10), BENCH_FAIL_AT / BENCH_RESTORE_AT / BENCH_SERIES
# (plane-failure time series, default 4 / 8 / 12 s), BENCH_TRANSPORTS.
set -u

top=${MRC_TOP:-/mrc}
out=${BENCH_OUT:-$top/build/bench}
raw=$out/raw
perf=$top/build/cmake/tools/mrcperf/mrcperf
mrcctl=$top/build/cmake/tools/mrcctl/mrcctl
mrcstat=$top/build/cmake/tools/mrcstat/mrcstat
rate=${BENCH_RATE:-50mbit}
dur=${BENCH_DURATION:-10}
fail_at=${BENCH_FAIL_AT:-4}
restore_at=${BENCH_RESTORE_AT:-8}
series=${BENCH_SERIES:-12}
transports=(${BENCH_TRANSPORTS:-tcp mptcp mrc})
declare -A port=([tcp]=7001 [mptcp]=7002 [mrc]=7003)
declare -A dst=() why=()

log() { echo "bench: $*"; }
now_ms() { local t; t=$(date +%s%N); echo $((t / 1000000)); }

mkdir -p "$raw"
rm -f "$raw"/*
[ -x "$perf" ] || { log "no $perf (make userspace)"; exit 1; }

. "$top/selftests/mrc/mrc_fabric_lib.sh"
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	fabric_destroy
}
trap cleanup EXIT

FAB_NSPINES=${BENCH_SPINES:-2}
fabric_create 2 4 || { log "fabric_create failed"; exit 1; }
log "fabric: 2 hosts x 4 planes x $FAB_NSPINES spines in $FAB_SETUP_MS ms"
HA=$(fabric_ns hA)
HB=$(fabric_ns hB)
inA() { ip netns exec "$HA" "$@"; }
inB() { ip netns exec "$HB" "$@"; }

# ---- MPTCP: the server announces its plane 1..3 addresses (signal); the
# client accepts them and opens one subflow to each, from the address the
# routing table picks, i.e. the one of the same plane. (Client "subflow"
# endpoints would connect to the server's plane-0 address and so leave on
# plane 0 whatever their source address: the fabric routes by destination.)
for ns in "$HA" "$HB"; do
	ip -n "$ns" mptcp limits set subflow 4 add_addr_accepted 4
	ip netns exec "$ns" sysctl -qw net.mptcp.enabled=1
done
for p in 1 2 3; do
	ip -n "$HB" mptcp endpoint add "${FAB_ADDR[hB,$p]}" dev "pl$p" signal
done

# ---- MRC: planes and a route over the 4 planes (SRH paths) if mrcctl is
# built; whether the datapath sprays over them is probed below.
mrc_ok=0
if [ -d /sys/module/mrc ]; then
	mrc_ok=1
	if [ -x "$mrcctl" ]; then
		for h in hA hB; do
			o=hB
			[ $h = hB ] && o=hA
			for p in 0 1 2 3; do
				"$mrcctl" -n "$(fabric_ns $h)" plane add id "$p" dev "pl$p" \
					addr "${FAB_ADDR[$h,$p]}" up >>"$raw/mrcctl.log" 2>&1
			done
			args=()
			for p in 0 1 2 3; do
				args+=(plane "$p" segs "$(fabric_path_segs $h $o $p 0)")
			done
			"$mrcctl" -n "$(fabric_ns $h)" route add "${FAB_HADDR[$o]}/128" encap srh \
				"${args[@]}" >>"$raw/mrcctl.log" 2>&1
		done
	fi
else
	why[mrc]="mrc.ko not loaded"
fi

# ---- servers on hB, one per transport, for the whole run.
for t in "${transports[@]}"; do
	[ $t = mrc ] && ((!mrc_ok)) && continue
	inB "$perf" server -t "$t" -p "${port[$t]}" -q --json \
		>"$raw/server-$t.jsonl" 2>"$raw/server-$t.err" &
done
sleep 1
dst[tcp]=${FAB_ADDR[hB,0]}
dst[mptcp]=${FAB_ADDR[hB,0]}
mrc_path="n/a"
if ((mrc_ok)); then
	# Spraying over the planes needs the datapath to use the mrcctl route
	# towards hB's host address; otherwise MRC takes the plain IPv6 route to
	# hB's plane-0 address like TCP.
	if inA timeout 20 "$perf" pingpong -t mrc -c "${FAB_HADDR[hB]}" -p "${port[mrc]}" -n 20 \
		-q --json --connect-timeout 3 >"$raw/probe-mrc-planes.json" 2>&1; then
		dst[mrc]=${FAB_HADDR[hB]}
		mrc_path="host address ${FAB_HADDR[hB]} via the mrcctl route (4 planes)"
	elif inA timeout 20 "$perf" pingpong -t mrc -c "${FAB_ADDR[hB,0]}" -p "${port[mrc]}" -n 20 \
		-q --json --connect-timeout 3 >"$raw/probe-mrc-plane0.json" 2>&1; then
		dst[mrc]=${FAB_ADDR[hB,0]}
		mrc_path="plane-0 address ${FAB_ADDR[hB,0]} (IPv6 route; the datapath does not take the mrcctl route to ${FAB_HADDR[hB]})"
	else
		why[mrc]="AF_MRC connect/pingpong between the hosts failed: $(tail -n 1 "$raw/probe-mrc-plane0.json" | cut -c1-200)"
	fi
fi
log "mrc path: $mrc_path ${why[mrc]:-}"

# Bytes sent by hA on each plane uplink (device counters).
plane_bytes_ns() { inA bash -c 'for p in 0 1 2 3; do cat /sys/class/net/pl$p/statistics/tx_bytes; done' | tr '\n' ' '; }

# run NAME TRANSPORT MODE ARGS...: one client run on hA.
run() {
	local name=$1 t=$2 mode=$3 f rc b0 b1
	shift 3
	f=$raw/$name-$t
	if [ -n "${why[$t]:-}" ]; then
		printf '{"ok":false,"error":"%s"}\n' "${why[$t]//\"/\'}" >"$f.json"
		return
	fi
	b0=$(plane_bytes_ns)
	inA timeout 120 "$perf" "$mode" -t "$t" -c "${dst[$t]}" -p "${port[$t]}" --json \
		--label "$name" "$@" >"$f.json" 2>"$f.err"
	rc=$?
	b1=$(plane_bytes_ns)
	paste -d' ' <(tr ' ' '\n' <<<"$b0") <(tr ' ' '\n' <<<"$b1") |
		awk 'NF == 2 { printf "%s%d", n++ ? " " : "", $2 - $1 } END { print "" }' >"$f.planes"
	if [ ! -s "$f.json" ]; then
		printf '{"ok":false,"error":"mrcperf exit %s: %s"}\n' "$rc" \
			"$(tail -n 1 "$f.err" | tr '"' "'" | cut -c1-200)" >"$f.json"
	fi
	log "$name $t: rc=$rc $(grep -o '"goodput_mbps":[0-9.]*' "$f.json" | head -n 1) planes: $(cat "$f.planes")"
}

# ---- 1. calibration, unshaped: what the emulated CPU can push through the
# fabric. The shaped rate must stay well below it for the network to be the
# bottleneck.
t0=$(now_ms)
run calib tcp bulk -d 5 -s 64k -w 64 -q
run calib mptcp bulk -d 5 -s 64k -w 64 -q
[ -n "${dst[mrc]:-}" ] && run calib mrc bulk -d 5 -s 64k -w 64 -q

# ---- telemetry overhead (unshaped, MRC): detached vs attached.
telemetry="not measured: telemetry not built"
if [ -z "${dst[mrc]:-}" ]; then
	[ -x "$mrcstat" ] && telemetry="not measured: AF_MRC did not run"
elif [ -x "$mrcstat" ]; then
	run telemetry-detached mrc bulk -d 5 -s 64k -w 64 -q
	run telemetry-detached-pp mrc pingpong -n 1000 -q
	if "$mrcstat" attach >"$raw/mrcstat-attach.log" 2>&1; then
		run telemetry-attached mrc bulk -d 5 -s 64k -w 64 -q
		run telemetry-attached-pp mrc pingpong -n 1000 -q
		"$mrcstat" show -j >"$raw/mrcstat-show.json" 2>&1
		"$mrcstat" detach >>"$raw/mrcstat-attach.log" 2>&1
		telemetry=measured
	else
		telemetry="not measured: mrcstat attach failed: $(tail -n 1 "$raw/mrcstat-attach.log" | tr '"' "'")"
	fi
fi

# ---- 2. shaped: tbf on every host uplink, both hosts.
fabric_tbf "$rate" 32kb 20ms || log "fabric_tbf failed"
for t in "${transports[@]}"; do run clean "$t" bulk -d "$dur" -s 64k -w 64 -q; done

# ---- 3. 1% loss on every path (netem on the spine ports: exactly one
# lossy hop per path and direction, all planes).
fabric_netem --spines loss 1% || log "fabric_netem failed"
for t in "${transports[@]}"; do run loss1 "$t" bulk -d "$dur" -s 64k -w 64 -q; done
fabric_netem --spines clear

# ---- 4. plane 0 fails mid-run and comes back: throughput every 100 ms.
# Plane 0 carries TCP's only path, MPTCP's first subflow and (without
# spraying) MRC's path.
for t in "${transports[@]}"; do
	(
		# t=0 is mrcperf's start (start_unix_ms); allow for its start-up.
		sleep "$fail_at"
		echo "down $(now_ms)" >"$raw/planefail-$t.events"
		fabric_plane_set 0 down
		echo "down_done $(now_ms)" >>"$raw/planefail-$t.events"
		sleep $((restore_at - fail_at))
		echo "up $(now_ms)" >>"$raw/planefail-$t.events"
		fabric_plane_set 0 up
		echo "up_done $(now_ms)" >>"$raw/planefail-$t.events"
	) &
	evp=$!
	run planefail "$t" bulk -d "$series" -s 16k -w 64 --ack-every 4 -i 100 -q
	wait "$evp"
	sleep 1
done

# ---- 5. small-message latency and request/response.
for t in "${transports[@]}"; do run pingpong "$t" pingpong -n 2000 -s 64 -q; done
for t in "${transports[@]}"; do
	run rpc "$t" rpc -d 5 --req-size 256 --resp-size 4096 --concurrency 8 -q
done

{
	printf '{"rate_per_plane":"%s","planes":4,"hosts":2,"spines":%d,' "$rate" "$FAB_NSPINES"
	printf '"duration_s":%s,"fabric_setup_ms":%s,' "$dur" "$FAB_SETUP_MS"
	printf '"plane_fail_at_s":%s,"plane_restore_at_s":%s,"series_s":%s,' \
		"$fail_at" "$restore_at" "$series"
	printf '"kernel":"%s","cpus":%s,' "$(uname -r)" "$(nproc)"
	printf '"mrc_path":"%s","mrc_unavailable":"%s","telemetry":"%s",' \
		"$mrc_path" "${why[mrc]:-}" "$telemetry"
	printf '"bench_seconds":%s,' $((($(now_ms) - t0) / 1000))
	printf '"mptcp":"server signal endpoints %s; limits subflow 4 add_addr_accepted 4 on both hosts"}\n' \
		"$(echo "${FAB_ADDR[hB,1]} ${FAB_ADDR[hB,2]} ${FAB_ADDR[hB,3]}")"
} >"$raw/meta.json"
inA ip mptcp limits >"$raw/mptcp-limits.txt" 2>&1
inB ip mptcp endpoint show >"$raw/mptcp-endpoints.txt" 2>&1
inA tc -s qdisc show >"$raw/tc-hA.txt" 2>&1
cat /proc/net/mrc >"$raw/proc-net-mrc.txt" 2>/dev/null
log "done in $((($(now_ms) - t0) / 1000)) s"
exit 0
