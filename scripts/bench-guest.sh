#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of "make bench" (scripts/bench.sh boots the VM with it):
# an emulated fabric of 2 hosts x 4 planes x 2 spines and mrcperf over four
# transports side by side, in the same boot, on the same fabric and MTU:
#
#   tcp     one TCP connection to hB's plane-0 address (one path)
#   tcpx4   one TCP connection per plane (mrcperf --per-plane), what AI
#           collective libraries do with one NIC per plane
#   mptcp   MPTCP, one subflow per plane (hB signals its plane 1..3 addresses)
#   mrc     AF_MRC over an mrcctl SRH route: 4 planes x 2 spines, sprayed
#   mrc-usid  the same over the uSID route (encap usid: an outer IPv6 header
#           whose destination is the uSID container, no SRH), in the
#           unshaped, shaped, gray, silent and planedown cells
#   mrc-fo0 the SRH route with net.mrc.failover=0 on both hosts (the engine
#           before its failover rules), in the shaped, loss, gray, silent
#           and planedown cells: before and after in one boot
#   mrc-ip  AF_MRC to hB's plane-0 address over plain IPv6, the same
#           encapsulation as tcp (latency scenarios only)
#
# Scenarios (Documentation/networking/mrc-bench.rst has the method):
#   unshaped, shaped (tbf per plane), loss0.1 / loss1 (netem loss + delay on
#   every spine port), gray (one spine of plane 0 drops 15%), silent (the link
#   between plane 0's spine 0 and hB cut mid-run, every host carrier up),
#   planedown (plane 0 loses carrier mid-run), pingpong, rpc, loaded (pingpong
#   beside a bulk flow of the same transport), unshaped/shaped again at a
#   jumbo MTU, and MRC alone with EV profile burst 1 (per-packet spraying)
#   unshaped and shaped (burst1-unshaped, burst1-shaped); fi_pingpong:
#   libfabric's fi_pingpong over its own tcp provider and over ours, mrc
#   (lib/fi_mrc), MSG and RDM (ofi_rxm) endpoints, 64 B and 1 MiB.
# Each bulk/latency cell is one mrcperf run with --repeat (median, spread,
# CPU service demand). Raw results land in $BENCH_OUT/raw (on the share);
# the host assembles results.json, the table and the plots. A transport
# that fails is recorded with its reason and the run goes on.
#
# Knobs (environment): BENCH_RATE (tbf per plane, default 50mbit),
# BENCH_REPEAT (5), BENCH_DURATION (bulk seconds per run, 5), BENCH_OMIT (1),
# BENCH_DELAY_MS (netem delay per spine port in the loss scenarios, 2.5),
# BENCH_JUMBO (jumbo MTU, 9000; 0 = none), BENCH_PINGS (pingpong round trips,
# 10000), BENCH_SERIES / BENCH_FAIL_AT / BENCH_RESTORE_AT (failure time
# series, 12 / 4 / 8 s), BENCH_SERIES_BIN (their bin, 0.01 s),
# BENCH_SERIES_ACK (messages per acknowledgement in them, 4),
# BENCH_TRACE (1: the mrc:* tracepoints of the MRC silent run, the failover
# timeline; 0: none), BENCH_FI_ITERS / BENCH_FI_BW_ITERS (fi_pingpong
# iterations at 64 B / 1 MiB, 1000 / 20). BENCH_QUICK=1: one repeat, shorter runs.
# BENCH_SMOKE=1: every scenario once at a tiny size (the make check smoke).
# BENCH_CELLS: the cells to run, comma separated (default all; "bash
# bench-guest.sh --check-cells" only checks the list): unshaped telemetry
# burst1 pingpong rpc fi_pingpong shaped loaded loss0.1 loss1 gray silent
# planedown jumbo. The fabric, its shapers and the MRC probe are set up whatever the
# choice; a cell left out is reported as "not run" (meta.json cells_skipped).
set -u

all_cells=(unshaped telemetry burst1 pingpong rpc fi_pingpong shaped loaded loss0.1 loss1 gray silent
	planedown jumbo)
declare -A want_cell=()
if [ "${BENCH_CELLS:-all}" = all ]; then
	for c in "${all_cells[@]}"; do want_cell[$c]=1; done
else
	IFS=, read -ra sel <<<"${BENCH_CELLS// /}"
	for c in "${sel[@]}"; do
		[ -n "$c" ] || continue
		if [[ " ${all_cells[*]} " != *" $c "* ]]; then
			echo "bench: BENCH_CELLS: no cell '$c' (cells: ${all_cells[*]})" >&2
			exit 2
		fi
		want_cell[$c]=1
	done
	((${#want_cell[@]})) || { echo "bench: BENCH_CELLS selects no cell" >&2; exit 2; }
fi
[ "${1:-}" = --check-cells ] && exit 0
want() { [ -n "${want_cell[$1]:-}" ]; }

top=${MRC_TOP:-/mrc}
out=${BENCH_OUT:-$top/build/bench}
raw=$out/raw
perf=$top/build/cmake/tools/mrcperf/mrcperf
mrcctl=$top/build/cmake/tools/mrcctl/mrcctl
mrcstat=$top/build/cmake/tools/mrcstat/mrcstat

profile=full
rate=${BENCH_RATE:-50mbit}
repeat=${BENCH_REPEAT:-5}
dur=${BENCH_DURATION:-5}
omit=${BENCH_OMIT:-1}
pings=${BENCH_PINGS:-10000}
rpc_dur=5
series=${BENCH_SERIES:-12}
fail_at=${BENCH_FAIL_AT:-4}
restore_at=${BENCH_RESTORE_AT:-8}
jumbo=${BENCH_JUMBO:-9000}
delay_ms=${BENCH_DELAY_MS:-2.5}
series_bin=${BENCH_SERIES_BIN:-0.01}
series_ack=${BENCH_SERIES_ACK:-4}
trace=1
[ "${BENCH_TRACE:-1}" = 0 ] && trace=0
fi_iters=1000 fi_bw_iters=20
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	profile=quick repeat=1 dur=3 pings=2000 rpc_dur=3 fi_iters=500 fi_bw_iters=10
fi
if [ "${BENCH_SMOKE:-0}" = 1 ]; then
	profile=smoke repeat=1 dur=1 omit=0 pings=100 rpc_dur=1 series=3 fail_at=1 restore_at=2
	fi_iters=20 fi_bw_iters=2
fi
fi_iters=${BENCH_FI_ITERS:-$fi_iters}
fi_bw_iters=${BENCH_FI_BW_ITERS:-$fi_bw_iters}
omit_args=()
[ "$omit" != 0 ] && omit_args=(-O "$omit")

log() { echo "bench: $*"; }
now_ms() { local t; t=$(date +%s%N); echo $((t / 1000000)); }
# stamp NAME FILE: "NAME <unix ms>" appended to FILE, with no fork (bash's
# EPOCHREALTIME): a forked date took up to hundreds of ms in a loaded guest.
stamp() { local t=${EPOCHREALTIME/./}; echo "$1 $((t / 1000))" >>"$2"; }

mkdir -p "$raw"
rm -f "$raw"/*
[ -x "$perf" ] || { log "no $perf (make userspace)"; exit 1; }

. "$top/selftests/mrc/mrc_fabric_lib.sh"
servers=()
stop_servers() {
	local p
	for p in "${servers[@]}"; do kill "$p" 2>/dev/null; done
	wait "${servers[@]}" 2>/dev/null
	servers=()
}
cleanup() {
	local p
	for p in $(jobs -p); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	fabric_destroy
}
trap cleanup EXIT

declare -A port=([tcp]=7001 [mptcp]=7002 [mrc]=7003)
declare -A why=()
mrc_ok=0
[ -d /sys/module/mrc ] && mrc_ok=1 || why[mrc]="mrc.ko not loaded"
[ -x "$mrcctl" ] || { why[mrc]="mrcctl not built"; mrc_ok=0; }

inA() { ip netns exec "$HA" "$@"; }
inB() { ip netns exec "$HB" "$@"; }

# mrc_routes srh|usid: both hosts' MRC route to the other's host address,
# over 4 planes x 2 spines (spine 0, then 1, in each plane), as an SRH of 4
# SIDs or as a uSID container (mrc_fabric_mrc.sh's mrc_fabric_routes). The
# mrc-usid column swaps the route to usid around its runs and back.
mrc_routes() {
	local h o p s v args
	for h in hA hB; do
		o=hB
		[ $h = hB ] && o=hA
		args=()
		for p in 0 1 2 3; do
			for s in 0 1; do
				fabric_path_segs -v v "$h" "$o" "$p" "$s" "$1"
				if [ "$1" = usid ]; then args+=(plane "$p" usid "$v"); else args+=(plane "$p" segs "$v"); fi
			done
		done
		"$mrcctl" -n "$(fabric_ns $h)" route replace "${FAB_HADDR[$o]}/128" encap "$1" \
			"${args[@]}" >>"$raw/mrcctl.log" 2>&1 || return 1
	done
}

# setup MTU: fabric, MPTCP endpoints, MRC planes and route, one server per
# transport on hB. Everything a scenario needs, for one MTU.
setup() {
	local mtu=$1 h o p s v args
	FAB_MTU=$mtu FAB_NSPINES=2 fabric_create 2 4 || { log "fabric_create failed"; return 1; }
	HA=$(fabric_ns hA) HB=$(fabric_ns hB)
	log "fabric: 2 hosts x 4 planes x 2 spines, MTU $mtu, in $FAB_SETUP_MS ms"
	# MPTCP: hB announces its plane 1..3 addresses; hA opens one subflow
	# to each, from the address the routing table picks (the same plane).
	for ns in "$HA" "$HB"; do
		ip -n "$ns" mptcp limits set subflow 4 add_addr_accepted 4
		ip netns exec "$ns" sysctl -qw net.mptcp.enabled=1
	done
	for p in 1 2 3; do
		ip -n "$HB" mptcp endpoint add "${FAB_ADDR[hB,$p]}" dev "pl$p" signal
	done
	# MRC: 4 planes and an SRH route over 4 planes x 2 spines (8 paths).
	if ((mrc_ok)); then
		for h in hA hB; do
			for p in 0 1 2 3; do
				"$mrcctl" -n "$(fabric_ns $h)" plane add id "$p" dev "pl$p" \
					addr "${FAB_ADDR[$h,$p]}" up >>"$raw/mrcctl.log" 2>&1
			done
		done
		mrc_routes srh || why[mrc]="mrcctl route add failed: $(tail -n 1 "$raw/mrcctl.log")"
	fi
	for t in tcp mptcp mrc; do
		[ $t = mrc ] && ((!mrc_ok)) && continue
		inB "$perf" server --transport "$t" -p "${port[$t]}" -q --json \
			>>"$raw/server-$t.jsonl" 2>>"$raw/server-$t.err" &
		servers+=($!)
	done
	sleep 1
}

teardown() {
	stop_servers
	fabric_destroy
}

# Bytes sent by hA on each plane uplink (device counters).
plane_bytes() { inA bash -c 'for p in 0 1 2 3; do cat /sys/class/net/pl$p/statistics/tx_bytes; done' | tr '\n' ' '; }
# Bytes the tbf shapers of hA's uplinks sent (0 without one): every
# frame's bytes, headers of each segment of a GSO skb included, which the
# devices' own tx_bytes count once per skb. Printed with %.0f: mawk prints
# a sum above 2^31 as 2.32095e+09, which bash's arithmetic refuses (the
# full bench of 84cc5ec lost every cell after the shaped MRC one to it).
shaper_bytes() {
	inA bash -c 'for p in 0 1 2 3; do tc -s qdisc show dev pl$p; done' |
		awk '$1 == "qdisc" { tbf = $2 == "tbf" } tbf && $1 == "Sent" { s += $2 } END { printf "%.0f\n", s }'
}

# target COLUMN: mrcperf arguments that pick the transport and addresses.
target() {
	local a
	case $1 in
	tcp) echo "--tcp -c ${FAB_ADDR[hB,0]} -p ${port[tcp]}" ;;
	tcpx4)
		a="${FAB_ADDR[hB,0]},${FAB_ADDR[hB,1]},${FAB_ADDR[hB,2]},${FAB_ADDR[hB,3]}"
		echo "--tcp -c $a --per-plane -p ${port[tcp]}"
		;;
	mptcp) echo "--mptcp -c ${FAB_ADDR[hB,0]} -p ${port[mptcp]}" ;;
	mrc | mrc-usid | mrc-fo0) echo "--mrc -c ${FAB_HADDR[hB]} -p ${port[mrc]}" ;;
	mrc-ip) echo "--mrc -c ${FAB_ADDR[hB,0]} -p ${port[mrc]}" ;;
	esac
}

# run NAME COLUMN MODE ARGS...: one mrcperf client (all its repeats) on hA;
# raw/NAME-COLUMN.json is its report, .planes the per-plane bytes,
# .shaper the bytes through the shapers (bench_report.py: payload per byte).
run() {
	local name=$1 col=$2 mode=$3 f rc b0 b1 s0 s1 tr
	shift 3
	f=$raw/$name-$col
	tr=${col%%-*}
	[ "$tr" = tcpx4 ] && tr=tcp
	[ -n "${why[$col]:-}" ] && tr=$col
	if [ -n "${why[$tr]:-}" ]; then
		printf '{"ok":false,"error":"%s"}\n' "${why[$tr]//\"/\'}" >"$f.json"
		return
	fi
	if [ "$col" = mrc-usid ] && ! mrc_routes usid; then
		printf '{"ok":false,"error":"mrcctl route replace encap usid failed: %s"}\n' \
			"$(tail -n 1 "$raw/mrcctl.log" | tr '"' "'" | cut -c1-150)" >"$f.json"
		mrc_routes srh
		return
	fi
	[ "$col" = mrc-fo0 ] && mrc_failover "${BENCH_FO0:-0}"
	b0=$(plane_bytes)
	s0=$(shaper_bytes)
	# shellcheck disable=SC2046 # target's words
	inA timeout 600 "$perf" "$mode" $(target "$col") --json --label "$name" -q \
		--connect-timeout 5 "$@" >"$f.json" 2>"$f.err"
	rc=$?
	b1=$(plane_bytes)
	s1=$(shaper_bytes)
	echo $((s1 - s0)) >"$f.shaper"
	paste -d' ' <(tr ' ' '\n' <<<"$b0") <(tr ' ' '\n' <<<"$b1") |
		awk 'NF == 2 { printf "%s%.0f", n++ ? " " : "", $2 - $1 } END { print "" }' >"$f.planes"
	[ "$col" = mrc-usid ] && { mrc_routes srh || log "restoring the SRH route failed"; }
	[ "$col" = mrc-fo0 ] && mrc_failover "$failover_was"
	if [ ! -s "$f.json" ]; then
		printf '{"ok":false,"error":"mrcperf exit %s: %s"}\n' "$rc" \
			"$(tail -n 1 "$f.err" | tr '"' "'" | cut -c1-200)" >"$f.json"
	fi
	log "$name $col: rc=$rc $(grep -o '"goodput_mbps":[0-9.]*' "$f.json" | head -n 1)" \
		"$(grep -o '"service_demand_us_per_mb":[0-9.]*' "$f.json" | head -n 1) planes: $(cat "$f.planes")"
}

bulk_cols=(tcp tcpx4 mptcp mrc)
lat_cols=(tcp mptcp mrc-ip mrc)
# The scenarios with an mrc-usid column besides the SRH one.
usid_scenarios=" unshaped shaped gray silent planedown "
# The scenarios with an mrc-fo0 column: the SRH route again with both
# hosts' net.mrc.failover at 0 (each EV judged alone, every loss cutting
# the window: the engine before its failover rules), read when each run's
# connections are built; the namespaces' value comes back after the run.
fo0_scenarios=" shaped loss0.1 loss1 gray silent planedown "
# BENCH_FO0=N runs that column with net.mrc.failover=N instead (one rule
# off against all of them, in one boot).
failover_was=$(cat /proc/sys/net/mrc/failover 2>/dev/null || echo 31)
mrc_failover() { # mrc_failover N: net.mrc.failover of both hosts
	inA sysctl -qw net.mrc.failover="$1" && inB sysctl -qw net.mrc.failover="$1" ||
		log "net.mrc.failover=$1 failed"
}
cols_of() { # cols_of NAME: the bulk columns of scenario NAME
	echo "${bulk_cols[@]}"
	[[ $usid_scenarios == *" $1 "* ]] && echo mrc-usid
	[[ $fo0_scenarios == *" $1 "* ]] && echo mrc-fo0
}
bulk() { # bulk NAME: every bulk column, repeated, warm-up omitted
	local c
	for c in $(cols_of "$1"); do
		run "$1" "$c" bulk -t "$((dur + omit))" "${omit_args[@]}" --repeat "$repeat" \
			-l 64k --window 64
	done
}

# The failover timeline: the mrc:* tracepoints of hA's connection (filter
# on hA's namespace inode) during one run, into the ring buffer of tracefs
# (trace clock mono; markers tie it to the wall clock: "bench_sync NS" at
# the start, "bench_down"/"bench_up" at the failure and the repair).
# mrc_pkt_sent and mrc_ack_rcvd fire per packet and are left off; the
# state changes, timeouts and probes are a few thousand in a run, the RTT
# samples (one per SACK, carrying cwnd and the bytes in flight) a few
# thousand a second: 16 MiB of buffer per CPU holds a run's.
T=/sys/kernel/tracing
trace_events="mrc_ev_state mrc_rto mrc_plane_state mrc_conn_state mrc_probe mrc_rtt"
trace_mark() { [ -w "$T/trace_marker" ] && echo "$*" >"$T/trace_marker"; }
trace_start() {
	local e ino
	[ -d "$T/events/mrc" ] || mount -t tracefs nodev "$T" 2>/dev/null
	[ -d "$T/events/mrc" ] || { log "trace: no $T/events/mrc"; return 1; }
	ino=$(stat -L -c %i "/run/netns/$HA" 2>/dev/null) || { log "trace: no inode of $HA"; return 1; }
	echo 0 >"$T/tracing_on"
	echo >"$T/trace"
	echo mono >"$T/trace_clock"
	echo 16384 >"$T/buffer_size_kb"
	echo 0 >"$T/events/enable"
	for e in $trace_events; do
		echo "netns == $ino" >"$T/events/mrc/$e/filter" || return 1
		echo 1 >"$T/events/mrc/$e/enable" || return 1
	done
	echo 1 >"$T/tracing_on"
	trace_mark "bench_sync ${EPOCHREALTIME/./}000 netns=$ino"
}
trace_stop() { # trace_stop FILE: the buffer into FILE, overruns into FILE.stats
	local e c
	trace_mark "bench_sync ${EPOCHREALTIME/./}000"
	echo 0 >"$T/tracing_on"
	cat "$T/trace" >"$1"
	for c in "$T"/per_cpu/cpu*; do
		echo "${c##*/} $(grep -E '^(entries|overrun|dropped events):' "$c/stats" | tr -d ' ' | tr '\n' ' ')"
	done >"$1.stats"
	for e in $trace_events; do
		echo 0 >"$T/events/mrc/$e/enable"
		echo 0 >"$T/events/mrc/$e/filter"
	done
	echo >"$T/trace"
	echo 1408 >"$T/buffer_size_kb"
}

# series NAME ACTION-DOWN ACTION-UP NODES: a goodput time series per bulk column
# (series_bin bins, 10 ms by default; 16 KiB messages acknowledged every
# series_ack, 4: a 10 ms bin moves in steps of 52 Mbit/s, the 50 ms windows
# of the recovery time in steps of 10.5), the failure
# applied at fail_at (through fail_open NODES) and undone at restore_at.
# The MRC (SRH) run of the silent scenario also records the failover
# timeline (trace_start).
series() {
	local name=$1 down=$2 up=$3 nodes=$4 c evp traced
	for c in $(cols_of "$name"); do
		# shellcheck disable=SC2086 # the node list
		fail_open $nodes || log "fail_open $nodes failed"
		traced=0
		if [ "$name" = silent ] && [ "$c" = mrc ] && [ "$trace" = 1 ] &&
			[ -z "${why[mrc]:-}" ]; then
			trace_start && traced=1
		fi
		rm -f "$raw/$name-$c.events" "$raw/$name-$c.err"
		(
			# t=0 is mrcperf's start (start_unix_ms): count from its
			# spawn (run's redirection creates .err), not from before
			# run's counters and route swaps (1-2 s in a loaded guest).
			for ((i = 0; i < 1500; i++)); do
				[ -e "$raw/$name-$c.err" ] && break
				sleep 0.02
			done
			sleep "$fail_at"
			stamp down "$raw/$name-$c.events"
			((traced)) && trace_mark "bench_down ${EPOCHREALTIME/./}000"
			$down
			stamp down_done "$raw/$name-$c.events"
			sleep $((restore_at - fail_at))
			stamp up "$raw/$name-$c.events"
			((traced)) && trace_mark "bench_up ${EPOCHREALTIME/./}000"
			$up
			stamp up_done "$raw/$name-$c.events"
		) &
		evp=$!
		run "$name" "$c" bulk -t "$series" -l 16k --window 64 --ack-every "$series_ack" -i "$series_bin"
		wait "$evp"
		fail_close
		((traced)) && trace_stop "$raw/$name-$c.trace"
		sleep 1
	done
}

# A failure is one write: before each run of a series, an "ip -batch" per
# node it touches runs in the node's namespace reading a FIFO (fail_open),
# and the failure writes its "link set ... down" lines there (fail_send),
# the commands of fabric_link_set / fabric_plane_set ... down. The events
# file's "down" is then the cut within a process wake-up; an ip process
# started at the failure took 0.2-1.5 s in a loaded TCG guest before its
# netlink request (down_done - down), which the recovery time counted.
# The FIFOs live in the guest's own /tmp: the 9p share refuses to open
# special files ("broken or compromised client").
fail_fds=() fail_pids=() fail_dir=
fail_open() { # fail_open NODE...
	local n f fd
	[ -n "$fail_dir" ] || fail_dir=$(mktemp -d /tmp/bench-fail.XXXXXX) || return 1
	for n in "$@"; do
		f=$fail_dir/$n
		rm -f "$f"
		mkfifo "$f" || return 1
		ip -n "$FAB_PREFIX$n" -force -batch "$f" >>"$raw/fail-ip.log" 2>&1 &
		fail_pids+=($!)
		# Read-write: the open does not wait for the reader.
		exec {fd}<>"$f"
		fail_fds+=("$n:$fd")
	done
}
fail_send() { # fail_send NODE IP-COMMAND; 1: no batch open for NODE
	local e
	for e in "${fail_fds[@]}"; do
		[ "${e%%:*}" = "$1" ] && { echo "$2" >&"${e#*:}"; return; }
	done
	return 1
}
fail_close() {
	local e fd
	for e in "${fail_fds[@]}"; do
		fd=${e#*:}
		exec {fd}>&-
		rm -f "$fail_dir/${e%%:*}"
	done
	# Their lines ran seconds ago; no batch is left waiting for a writer.
	# (Never a bare "wait": it would wait for the servers.)
	if ((${#fail_pids[@]})); then
		kill "${fail_pids[@]}" 2>/dev/null
		wait "${fail_pids[@]}" 2>/dev/null
	fi
	fail_fds=() fail_pids=()
}
spine_nodes="sp-p0-s0"
# Without the batches (fail_open failed: logged), the fabric's own commands.
spine_cut() { fail_send sp-p0-s0 "link set dev t0b down" || fabric_link_set 0 0 hB down; }
spine_fix() { fabric_link_set 0 0 hB up; }
plane_nodes="t0a-p0 t0b-p0 sp-p0-s0 sp-p0-s1"
plane_down() {
	((${#fail_fds[@]} == 4)) || { fabric_plane_set 0 down; return; }
	fail_send t0a-p0 "link set dev dn down"
	fail_send t0b-p0 "link set dev dn down"
	fail_send sp-p0-s0 "link set dev t0a down"
	fail_send sp-p0-s0 "link set dev t0b down"
	fail_send sp-p0-s1 "link set dev t0a down"
	fail_send sp-p0-s1 "link set dev t0b down"
}
plane_up() { fabric_plane_set 0 up; }
# The gray spine: plane 0, spine 0 drops 15% of what it forwards, both ways.
gray_on() {
	local ns
	ns=$FAB_PREFIX$(fabric_spine_name 0 0)
	ip netns exec "$ns" tc qdisc replace dev t0a root netem loss 15%
	ip netns exec "$ns" tc qdisc replace dev t0b root netem loss 15%
}
gray_off() {
	local ns
	ns=$FAB_PREFIX$(fabric_spine_name 0 0)
	ip netns exec "$ns" tc qdisc del dev t0a root
	ip netns exec "$ns" tc qdisc del dev t0b root
}

t0=$(now_ms)
setup 1500 || exit 1
# Does AF_MRC take the mrcctl route? Without it every mrc cell fails.
if ((mrc_ok)) && [ -z "${why[mrc]:-}" ]; then
	inA timeout 30 "$perf" pingpong $(target mrc) -k 20 -q --json --connect-timeout 5 \
		>"$raw/probe-mrc.json" 2>&1 ||
		why[mrc]="AF_MRC pingpong over the mrcctl route failed: $(tail -n 1 "$raw/probe-mrc.json" | tr '"' "'" | cut -c1-150)"
fi
log "mrc: ${why[mrc]:-sprayed over the mrcctl SRH route, 4 planes x 2 spines}"
# And over the uSID route (the mrc-usid column).
if ((mrc_ok)) && [ -z "${why[mrc]:-}" ]; then
	if ! mrc_routes usid; then
		why[mrc-usid]="mrcctl route replace encap usid failed: $(tail -n 1 "$raw/mrcctl.log" | tr '"' "'")"
	else
		# shellcheck disable=SC2046 # target's words
		inA timeout 30 "$perf" pingpong $(target mrc-usid) -k 20 -q --json --connect-timeout 5 \
			>"$raw/probe-mrc-usid.json" 2>&1 ||
			why[mrc-usid]="AF_MRC pingpong over the uSID route failed: $(tail -n 1 "$raw/probe-mrc-usid.json" | tr '"' "'" | cut -c1-150)"
	fi
	mrc_routes srh || why[mrc]="restoring the SRH route failed: $(tail -n 1 "$raw/mrcctl.log")"
	log "mrc-usid: ${why[mrc-usid]:-sprayed over the mrcctl uSID route}"
fi

# Counters of both hosts, one "NAME VALUE" a line: each interface's skbs
# (tx/rx packets: a GSO skb counts once) and, where mrc.ko is loaded, every
# per-netns MRC counter.
profile_counters() {
	local h ns
	for h in hA hB; do
		ns=$(fabric_ns "$h")
		ip -n "$ns" -s -j link show | jq -r --arg h "$h" \
			'.[] | select(.ifname != "lo") |
			 "\($h).\(.ifname).tx_skbs \(.stats64.tx.packets)",
			 "\($h).\(.ifname).rx_skbs \(.stats64.rx.packets)"'
		"$mrcctl" -n "$ns" stats 2>/dev/null | sed "s/^/$h.mrc./"
	done
}

# The counters that moved between two profile_counters files, with the
# change per MB of @3 bytes moved.
profile_counter_deltas() {
	awk -v bytes="${3:-0}" 'NR == FNR { before[$1] = $2; next }
		{ d = $2 - before[$1]; if (d <= 0) next
		  if (bytes > 0) printf "  %-44s %12.0f  %10.1f/MB\n", $1, d, d / (bytes / 1e6)
		  else printf "  %-44s %12.0f\n", $1, d }' "$1" "$2"
}

# The flat profile of perf data @1: by symbol (self, then with callees), and
# who calls the hottest leaves (copies, zeroing, CRC, allocation, the clock):
# the call chains of each of the top self symbols but the idle loop.
profile_report() {
	local data=$1
	echo "## by symbol (self)"
	perf report -i "$data" --stdio --no-children --sort sym -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n "${BENCH_PROFILE_TOP:-45}"
	echo "## by symbol (with callees)"
	perf report -i "$data" --stdio --children --sort sym -g none 2>/dev/null |
		grep -v '^#' | grep -v '^$' | head -n "${BENCH_PROFILE_TOP:-45}"
	echo "## callers of the top symbols"
	perf report -i "$data" --stdio --no-children --sort sym -g none 2>/dev/null |
		awk '$1 ~ /%$/ && $3 != "native_safe_halt" { print $3 }' |
		head -n "${BENCH_PROFILE_CALLERS:-8}" |
		while read -r sym; do
			perf report -i "$data" --stdio --no-children --sort sym \
				--symbols="$sym" -g caller,0.5,callee,function,percent \
				--max-stack 12 2>/dev/null | grep -v '^#' | grep -v '^$' |
				head -n 60
		done
}

# ---- BENCH_PROFILE=1 (make bench-profile): where the cycles go. perf samples
# every CPU of the guest (software clock: TCG has no PMU) while one unshaped
# bulk run of a column moves data; the report is the flat profile by symbol
# (module symbols from /proc/kallsyms) and by object.
profile_cell() {
	local col=$1 data=$raw/perf-$1.data rep=$out/profile-$1.txt
	# perf runs the client: every CPU is sampled from the client's start
	# to its end (connect, the run, the report), nothing before or after.
	# shellcheck disable=SC2046 # target's words
	echo "# mrcperf server pids: $(pgrep -d, -f 'mrcperf server')" >"$rep.pids"
	profile_counters >"$raw/counters-$col.before"
	perf record -q -e cpu-clock -F "${BENCH_PROFILE_HZ:-499}" -a -g -o "$data" -- \
		ip netns exec "$HA" "$perf" bulk $(target "$col") --json -q --connect-timeout 5 \
		-t "$dur" -l 64k --window 64 >"$raw/profile-$col.json" 2>"$raw/perf-$col.err"
	profile_counters >"$raw/counters-$col.after"
	{
		echo "# $col: unshaped bulk, $dur s, perf cpu-clock at ${BENCH_PROFILE_HZ:-499} Hz, all CPUs"
		cat "$rep.pids"
		rm -f "$rep.pids"
		grep -o '"goodput_mbps":[0-9.]*' "$raw/profile-$col.json" | head -n 1
		grep -o '"service_demand_us_per_mb":[0-9.]*' "$raw/profile-$col.json" | head -n 1
		# Samples are evenly spread over the CPUs; the idle loop's share
		# of each says how busy it was (the transport's work on one CPU
		# or on both).
		# What the cycles were spent on: skbs (a GSO skb counts once)
		# and MRC packets per MB, the per-packet costs' denominators.
		echo "## skbs and packets during the run (deltas; per MB of goodput)"
		profile_counter_deltas "$raw/counters-$col.before" "$raw/counters-$col.after" \
			"$(grep -o '"measured_bytes":[0-9]*' "$raw/profile-$col.json" | head -n 1 | cut -d: -f2)"
		echo "## idle (native_safe_halt) by CPU, of all samples"
		perf report -i "$data" --stdio --no-children --sort cpu,sym -g none 2>/dev/null |
			grep -E '^ +[0-9.]+% +[0-9]+ +\[k\] native_safe_halt'
		echo "## by CPU and task (pid; softirq work counts for the task it interrupted)"
		perf report -i "$data" --stdio --no-children --sort cpu,pid -g none 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 12
		echo "## by object"
		perf report -i "$data" --stdio --no-children --sort dso 2>/dev/null |
			grep -v '^#' | grep -v '^$' | head -n 15
		profile_report "$data"
	} >"$rep"
	log "profile $col: $rep"
}
# ---- BENCH_PROFILE=1, pingpong: what one 64-byte round trip costs. Three
# pingpong runs per column: under perf stat, counting the kernel's own
# tracepoints on every CPU (wakeups, context switches, timer arms, softirq
# passes by vector, workqueue items, lock contention, packets handed to a
# device anywhere in the fabric, system calls), with the hosts' skb and
# MRC counters around it, each count divided by the run's round trips;
# traced (hrtimers by callback, MRC's packets as sent); under perf record
# (the flat profile of a round trip).
pp_events="sched:sched_wakeup sched:sched_switch timer:hrtimer_start timer:timer_start
	irq:softirq_raise workqueue:workqueue_execute_start lock:contention_begin
	net:net_dev_xmit net:netif_receive_skb raw_syscalls:sys_enter"
profile_pingpong_cell() {
	local col=$1 rep=$out/profile-pingpong-$1.txt n=${BENCH_PROFILE_PINGS:-2000}
	local ev evs=() js=$raw/profile-pingpong-$1.json rt
	for ev in $pp_events; do
		[ -d "/sys/kernel/tracing/events/${ev/://}" ] && evs+=(-e "$ev")
	done
	# Run 1, the counts: perf stat, the hosts' counters, /proc/softirqs.
	profile_counters >"$raw/counters-pp-$col.before"
	cat /proc/softirqs >"$raw/softirqs-pp-$col.before"
	# shellcheck disable=SC2046 # target's words
	perf stat -a -x, "${evs[@]}" -o "$raw/perfstat-pp-$col.csv" -- \
		ip netns exec "$HA" "$perf" pingpong $(target "$col") --json -q --connect-timeout 5 \
		-k "$n" -l 64 >"$js" 2>"$raw/perfstat-pp-$col.err"
	cat /proc/softirqs >"$raw/softirqs-pp-$col.after"
	profile_counters >"$raw/counters-pp-$col.after"
	rt=$(grep -o '"count":[0-9]*' "$js" | tail -n 1 | cut -d: -f2)
	# Run 2, traced: which hrtimers a round trip arms and fires (their
	# callbacks) and MRC's packets as sent, into the ring buffer (8 MiB per
	# CPU). Tracing slows the guest several times over: its timings are
	# not the pingpong's, its counts are.
	echo 0 >"$T/tracing_on"
	echo 8192 >"$T/buffer_size_kb"
	echo >"$T/trace"
	echo 1 >"$T/events/timer/hrtimer_start/enable"
	echo 1 >"$T/events/timer/hrtimer_expire_entry/enable"
	[ -d "$T/events/mrc/mrc_pkt_sent" ] && echo 1 >"$T/events/mrc/mrc_pkt_sent/enable"
	echo 1 >"$T/tracing_on"
	# shellcheck disable=SC2046 # target's words
	ip netns exec "$HA" "$perf" pingpong $(target "$col") --json -q --connect-timeout 5 \
		-k "$n" -l 64 >"$raw/profile-pingpong-trace-$col.json" 2>>"$raw/perfstat-pp-$col.err"
	echo 0 >"$T/tracing_on"
	echo 0 >"$T/events/timer/hrtimer_start/enable"
	echo 0 >"$T/events/timer/hrtimer_expire_entry/enable"
	[ -d "$T/events/mrc/mrc_pkt_sent" ] && echo 0 >"$T/events/mrc/mrc_pkt_sent/enable"
	cat "$T/trace" >"$raw/hrtimers-pp-$col.txt"
	echo >"$T/trace"
	# Run 3: where the cycles go.
	# shellcheck disable=SC2046 # target's words
	perf record -q -e cpu-clock -F "${BENCH_PROFILE_HZ:-499}" -a -g -o "$raw/perf-pp-$col.data" -- \
		ip netns exec "$HA" "$perf" pingpong $(target "$col") --json -q --connect-timeout 5 \
		-k "$n" -l 64 >"$raw/profile-pingpong-rec-$col.json" 2>>"$raw/perfstat-pp-$col.err"
	{
		echo "# $col: pingpong 64 B, $n round trips, perf stat of tracepoints on all CPUs"
		echo "\"round_trips\":${rt:-0}"
		grep -o '"p50":[0-9.]*' "$js" | head -n 1
		echo "## per round trip: kernel events (perf stat, all CPUs)"
		awk -F, -v rt="${rt:-0}" '$1 ~ /^[0-9]+$/ && rt > 0 {
			printf "  %-44s %12d  %8.2f/rt\n", $3, $1, $1 / rt }' \
			"$raw/perfstat-pp-$col.csv"
		echo "## per round trip: softirq passes by vector (/proc/softirqs, all CPUs)"
		awk -v rt="${rt:-0}" 'NR == FNR { s = 0; for (i = 2; i <= NF; i++) s += $i
			before[$1] = s; next }
			$1 ~ /:$/ { s = 0; for (i = 2; i <= NF; i++) s += $i; d = s - before[$1]
			if (d > 0 && rt > 0) printf "  %-44s %12d  %8.2f/rt\n", $1, d, d / rt }' \
			"$raw/softirqs-pp-$col.before" "$raw/softirqs-pp-$col.after"
		echo "## per round trip: skbs by interface and MRC counters (deltas)"
		profile_counter_deltas "$raw/counters-pp-$col.before" "$raw/counters-pp-$col.after" |
			awk -v rt="${rt:-0}" 'rt > 0 { printf "  %-44s %12d  %8.2f/rt\n", $1, $2, $2 / rt }'
		echo "# a second run, traced (slowed several times over: its counts hold, not its timings)"
		grep -o '"p50":[0-9.]*' "$raw/profile-pingpong-trace-$col.json" | head -n 1
		echo "## per round trip: hrtimers started and expired, by callback (traced run)"
		awk -v rt="${rt:-0}" 'match($0, /(hrtimer_start|hrtimer_expire_entry):.*function=[^ ]+/) {
			e = substr($0, RSTART, RLENGTH); sub(/:.*function=/, " ", e); n[e]++ }
			END { for (e in n) if (rt > 0)
				printf "  %-44s %12d  %8.2f/rt\n", e, n[e], n[e] / rt }' \
			"$raw/hrtimers-pp-$col.txt" | sort -k3 -rn
		# MRC: a host's turnaround, from the SACK it sends for a request
		# (at its arrival) to the data it sends next (the reply).
		echo "## MRC only: from a host's SACK to its next data packet, us (traced run)"
		awk 'match($0, / [0-9]+\.[0-9]+: mrc_pkt_sent: netns=[0-9]+ .* kind=[a-z]+/) {
			split(substr($0, RSTART, RLENGTH), f, /[ :=]+/)
			t = f[2]; ns = f[5]; k = f[length(f)]
			if (k == "sack" && !(ns in since)) since[ns] = t
			else if (k == "data" && (ns in since)) {
				printf "%.1f\n", (t - since[ns]) * 1e6; delete since[ns] } }' \
			"$raw/hrtimers-pp-$col.txt" | sort -n | awk '{ d[NR] = $1 }
			END { if (NR) printf "  sack-to-data gaps %d: p10 %.0f p50 %.0f p90 %.0f\n",
				NR, d[int(NR / 10) + 1], d[int(NR / 2) + 1], d[int(NR * 9 / 10) + 1] }'
		echo "# the profile below: a third run of $n round trips under perf record"
		grep -o '"p50":[0-9.]*' "$raw/profile-pingpong-rec-$col.json" | head -n 1
		profile_report "$raw/perf-pp-$col.data"
	} >"$rep"
	log "profile pingpong $col: $rep"
}
if [ "${BENCH_PROFILE:-0}" = 1 ]; then
	echo 0 >/proc/sys/kernel/kptr_restrict
	echo -1 >/proc/sys/kernel/perf_event_paranoid
	# The pingpongs first: a bulk run's connections still drain and
	# close for seconds after it (MRC's pingpong right after its bulk
	# run measured 7.6 ms at p50, 0.66 ms a minute later).
	for c in ${BENCH_PROFILE_COLS:-tcp mptcp mrc}; do profile_pingpong_cell "$c"; done
	for c in ${BENCH_PROFILE_COLS:-tcp mptcp mrc}; do profile_cell "$c"; done
	teardown
	exit 0
fi

# ---- unshaped: what the emulated CPU can push, and what it costs.
want unshaped && bulk unshaped

# ---- telemetry overhead (unshaped, MRC): detached vs attached.
telemetry="not measured: mrcstat not built"
if ! want telemetry; then
	telemetry="not run (BENCH_CELLS)"
elif [ -n "${why[mrc]:-}" ]; then
	telemetry="not measured: AF_MRC did not run"
elif [ -x "$mrcstat" ]; then
	run telemetry-detached mrc bulk -t "$dur" -l 64k --window 64 --repeat "$repeat"
	if "$mrcstat" attach >"$raw/mrcstat-attach.log" 2>&1; then
		run telemetry-attached mrc bulk -t "$dur" -l 64k --window 64 --repeat "$repeat"
		"$mrcstat" show -j >"$raw/mrcstat-show.json" 2>&1
		"$mrcstat" detach >>"$raw/mrcstat-attach.log" 2>&1
		telemetry=measured
	else
		telemetry="not measured: mrcstat attach failed: $(tail -n 1 "$raw/mrcstat-attach.log" | tr '"' "'")"
	fi
fi

# ---- per-packet spraying: MRC with EV profile burst 1 (every packet on its
# own EV pick, MRC 1.0's spraying exactly) beside the default flowcells,
# unshaped here and shaped below: what spec-exact spraying costs.
# mrc_burst N: profile 0's burst in both hosts' namespaces (its previous
# value kept in burst_was for the restore).
burst_was=
mrc_burst() {
	local h rc=0
	for h in "$HA" "$HB"; do
		[ -n "$burst_was" ] || burst_was=$("$mrcctl" -n "$h" -j profile show id 0 |
			grep -o '"burst":[0-9]*' | cut -d: -f2)
		"$mrcctl" -n "$h" profile set id 0 burst "$1" >>"$raw/mrcctl.log" 2>&1 || rc=1
	done
	return $rc
}
burst1="not measured: AF_MRC did not run"
if ! want burst1; then
	burst1="not run (BENCH_CELLS)"
elif [ -z "${why[mrc]:-}" ]; then
	if mrc_burst 1; then
		run burst1-unshaped mrc bulk -t "$((dur + omit))" "${omit_args[@]}" --repeat "$repeat" \
			-l 64k --window 64
		burst1=measured
	else
		burst1="not measured: mrcctl profile set burst 1 failed: $(tail -n 1 "$raw/mrcctl.log" | tr '"' "'")"
	fi
	mrc_burst "${burst_was:-32}" || log "restoring the burst failed"
fi

# ---- latency, unshaped: 64 B pingpong and rpc, every column.
want pingpong && for c in "${lat_cols[@]}"; do
	run pingpong "$c" pingpong -k "$pings" -l 64 --repeat "$repeat"
done
want rpc && for c in "${lat_cols[@]}"; do
	run rpc "$c" rpc -t "$rpc_dur" --req-size 256 --resp-size 4096 --concurrency 8 \
		--repeat "$repeat"
done

# ---- fi_pingpong (issue 51): libfabric's own fi_pingpong (libfabric-bin)
# between hA and hB over libfabric's tcp provider (column tcp, to hB's
# plane-0 address: one path, as the tcp column) and over our provider mrc
# (column mrc, lib/fi_mrc over AF_MRC to hB's host address: the mrcctl SRH
# route, sprayed, as the mrc column), MSG endpoints and RDM ones (ofi_rxm
# over each), 64 B (latency: usec/xfer, half a round trip) and 1 MiB
# (bandwidth: MB/sec, both directions' bytes over the time), each run
# repeated $repeat times. fi_pingpong's control channel is TCP to hB's
# plane-0 address in both columns; its fabric addresses are what each
# provider names for itself (fi_getinfo() with no node):
#  - tcp: the addresses of FI_TCP_IFACE=pl0, the first one first. The
#    fabric gives each host's pl0 the link-local fe80::1 (the leaf's
#    permanent neighbour; every host has the same one), which the tcp
#    provider lists before the plane address, and a peer cannot reach it:
#    the hosts' fe80::1 is taken off pl0 for the tcp runs and put back
#    after them (the fabric's routes and neighbours do not use it).
#  - mrc: FI_MRC_ADDR, each host's own host address.
# Raw: fi_pingpong-EP-SIZE-COL.json per row and column (the runs' figures,
# or ok false and why), .N.cli / .N.srv each run's output, fi_info-*.txt.
fidir=$top/build/cmake/lib/fi_mrc
fi_timeout=180
fi_port=47600
fi_seconds=0
fi_version=
declare -A fi_why=()
fi_envA=() fi_envB=()
# fi_esc TEXT: TEXT made safe inside a JSON string (quotes, backslashes and
# control characters out), at most 200 characters.
fi_esc() { printf '%s' "$1" | tr '"\\\t\r\n' "''   " | tr -d '\000-\037' | cut -c1-200; }
# fi_ll HOST add|del: HOST's link-local fe80::1 on pl0 (see above).
fi_ll() {
	local ns
	ns=$(fabric_ns "$1")
	if [ "$2" = del ]; then
		ip -n "$ns" address del fe80::1/64 dev pl0 2>>"$raw/fi_pingpong-ll.log"
	else
		ip -n "$ns" address replace fe80::1/64 dev pl0 nodad 2>>"$raw/fi_pingpong-ll.log"
	fi
}
# fi_check COL EP: does hB's libfabric offer the provider for EP, with the
# address the column is meant to use first? Else fi_why[COL,EP] says why.
fi_check() {
	local col=$1 ep=$2 prov=$1 want f first rc
	[ "$ep" = rdm ] && prov="$col;ofi_rxm"
	want=${FAB_ADDR[hB,0]}
	[ "$col" = mrc ] && want=${FAB_HADDR[hB]}
	f=$raw/fi_info-$col-$ep.txt
	inB env "${fi_envB[@]}" timeout 60 fi_info -p "$prov" -t "FI_EP_${ep^^}" \
		-a FI_SOCKADDR_IN6 -v >"$f" 2>&1
	rc=$?
	if ((rc)); then
		fi_why[$col,$ep]="provider '$prov' not offered for FI_EP_${ep^^}: fi_info -p exit $rc: $(tail -n 1 "$f")"
		return
	fi
	first=$(awk '$1 == "src_addr:" { print $2; exit }' "$f")
	[[ $first == *"[$want]"* ]] ||
		fi_why[$col,$ep]="provider '$prov' names ${first:-no address} first on hB, not [$want]"
}
# fi_run COL EP SIZE ITERS N: run N of one fi_pingpong server on hB and its
# client on hA; fi_res="USEC_PER_XFER MB_PER_S SECONDS" of the client's
# result line, or returns 1 with fi_err the reason.
fi_run() {
	local col=$1 ep=$2 size=$3 iters=$4 n=$5 prov=$1 f srv rc src i line
	[ "$ep" = rdm ] && prov="$col;ofi_rxm"
	f=$raw/fi_pingpong-$ep-$size-$col.$n
	fi_port=$((fi_port + 1))
	fi_res='' fi_err=''
	inB env "${fi_envB[@]}" timeout "$fi_timeout" fi_pingpong -6 -B "$fi_port" \
		-p "$prov" -e "$ep" -S "$size" -I "$iters" >"$f.srv" 2>&1 &
	srv=$!
	for ((i = 0; i < 100; i++)); do
		inB ss -Hltn "sport = :$fi_port" 2>/dev/null | grep -q . && break
		sleep 0.1
	done
	inA env "${fi_envA[@]}" timeout "$fi_timeout" fi_pingpong -6 -P "$fi_port" \
		-p "$prov" -e "$ep" -S "$size" -I "$iters" "${FAB_ADDR[hB,0]}" >"$f.cli" 2>&1
	rc=$?
	# A client that failed can leave its server waiting: give it 5 s.
	if ((rc)); then
		for ((i = 0; i < 50; i++)); do kill -0 "$srv" 2>/dev/null || break; sleep 0.1; done
		kill "$srv" 2>/dev/null
	fi
	wait "$srv"
	src=$?
	if ((rc == 124)); then
		fi_err="fi_pingpong client timed out after $fi_timeout s: $(tail -n 1 "$f.cli")"
	elif ((rc)); then
		fi_err="fi_pingpong client exit $rc: $(tail -n 1 "$f.cli")"
	elif ((src)); then
		fi_err="fi_pingpong server exit $src: $(tail -n 1 "$f.srv")"
	fi
	[ -z "$fi_err" ] || return 1
	# bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
	line=$(awk '$1 ~ /^[0-9.]+[kmg]?$/ && NF == 8 && $5 ~ /s$/ { l = $7 " " $6 " " $5 }
		END { sub(/s$/, "", l); print l }' "$f.cli")
	if [[ ! $line =~ ^[0-9.]+\ [0-9.]+\ [0-9.]+$ ]]; then
		fi_err="no result line in fi_pingpong's output: $(tail -n 1 "$f.cli")"
		[ -s "$f.cli" ] || fi_err+="(none: a size above the provider's max_msg_size runs nothing)"
		return 1
	fi
	fi_res=$line
}
# fi_row COL EP SIZE ITERS: every run of one row and column into
# raw/fi_pingpong-EP-SIZE-COL.json; the first failure ends the row (ok false,
# with the reason: never a figure).
fi_row() {
	local col=$1 ep=$2 size=$3 iters=$4 prov=$1 r runs="" err=${fi_why[$1,$2]:-} u m t
	[ "$ep" = rdm ] && prov="$col;ofi_rxm"
	if [ -z "$err" ]; then
		for ((r = 1; r <= repeat; r++)); do
			if ! fi_run "$col" "$ep" "$size" "$iters" "$r"; then
				err="run $r of $repeat: $fi_err"
				break
			fi
			read -r u m t <<<"$fi_res"
			runs+="${runs:+,}{\"usec_per_xfer\":$u,\"mb_per_s\":$m,\"seconds\":$t}"
		done
	fi
	{
		printf '{"tool":"fi_pingpong","provider":"%s","endpoint":"%s","size":%s,' \
			"$prov" "$ep" "$size"
		printf '"iterations":%s,"repeat":%s,"runs":[%s],' "$iters" "$repeat" "$runs"
		if [ -n "$err" ]; then
			printf '"ok":false,"error":"%s"}\n' "$(fi_esc "$err")"
		else
			printf '"ok":true}\n'
		fi
	} >"$raw/fi_pingpong-$ep-$size-$col.json"
	log "fi_pingpong $ep $size $col: ${err:-$runs}"
}
fi_pingpong_cell() {
	local t0c col ep size it why_all="" h
	t0c=$(now_ms)
	for h in fi_pingpong fi_info; do
		command -v "$h" >/dev/null || why_all="no $h in the guest (libfabric-bin, scripts/vm/mkinitramfs.sh)"
	done
	[ -n "$why_all" ] || fi_version=$(fi_info --version 2>/dev/null | awk '$1 == "libfabric:" { print $2 }')
	for col in tcp mrc; do
		fi_envA=() fi_envB=()
		if [ -n "$why_all" ]; then
			fi_why[$col,msg]=$why_all fi_why[$col,rdm]=$why_all
		elif [ $col = tcp ]; then
			fi_envA=(FI_TCP_IFACE=pl0) fi_envB=(FI_TCP_IFACE=pl0)
			if ! fi_info -l 2>/dev/null | grep -qx 'tcp:'; then
				fi_why[tcp,msg]="fi_info -l does not list the tcp provider"
				fi_why[tcp,rdm]=${fi_why[tcp,msg]}
			elif ! fi_ll hA del || ! fi_ll hB del; then
				fi_why[tcp,msg]="could not take fe80::1 off the hosts' pl0: $(tail -n 1 "$raw/fi_pingpong-ll.log")"
				fi_why[tcp,rdm]=${fi_why[tcp,msg]}
			fi
		elif [ -n "${why[mrc]:-}" ]; then
			fi_why[mrc,msg]="AF_MRC did not run: ${why[mrc]}"
			fi_why[mrc,rdm]=${fi_why[mrc,msg]}
		elif [ ! -e "$fidir/libmrc-fi.so" ]; then
			fi_why[mrc,msg]="no $fidir/libmrc-fi.so (cmake --build build/cmake)"
			fi_why[mrc,rdm]=${fi_why[mrc,msg]}
		else
			fi_envA=(FI_PROVIDER_PATH="$fidir" FI_MRC_ADDR="${FAB_HADDR[hA]}")
			fi_envB=(FI_PROVIDER_PATH="$fidir" FI_MRC_ADDR="${FAB_HADDR[hB]}")
		fi
		for ep in msg rdm; do
			[ -n "${fi_why[$col,$ep]:-}" ] || fi_check "$col" "$ep"
			for size in 64 1048576; do
				it=$fi_iters
				[ "$size" = 64 ] || it=$fi_bw_iters
				fi_row "$col" "$ep" "$size" "$it"
			done
		done
		if [ $col = tcp ] && [ -z "$why_all" ]; then
			fi_ll hA add || log "fi_pingpong: putting fe80::1 back on hA's pl0 failed"
			fi_ll hB add || log "fi_pingpong: putting fe80::1 back on hB's pl0 failed"
		fi
	done
	fi_seconds=$((($(now_ms) - t0c) / 1000))
	log "fi_pingpong: $fi_seconds s"
}
want fi_pingpong && fi_pingpong_cell

# ---- shaped: tbf on every host uplink; the bottleneck is the fabric.
fabric_tbf "$rate" 32kb 20ms || log "fabric_tbf failed"
want shaped && bulk shaped
if [ "$burst1" = measured ]; then
	if mrc_burst 1; then
		run burst1-shaped mrc bulk -t "$((dur + omit))" "${omit_args[@]}" --repeat "$repeat" \
			-l 64k --window 64
	else
		burst1="not measured (shaped): mrcctl profile set burst 1 failed"
	fi
	mrc_burst "${burst_was:-32}" || log "restoring the burst failed"
fi

# ---- latency under load: pingpong beside a bulk flow of the same transport
# to the same server (mrcperf --load: its figures are in result.load).
want loaded && for c in "${lat_cols[@]}"; do
	[ "$c" = mrc-ip ] && continue
	run loaded "$c" pingpong -t "$((rpc_dur + omit))" "${omit_args[@]}" -l 64 --load 1
done

# ---- random loss on every path, with delay so that loss recovery matters:
# netem on every spine port (one per path and direction) adds delay_ms each
# way, so a plane's RTT is at least 2 x delay_ms.
for l in 0.1 1; do
	want "loss$l" || continue
	fabric_netem --spines delay "${delay_ms}ms" loss "$l%" || log "fabric_netem failed"
	bulk "loss$l"
	fabric_netem --spines clear
done

# ---- gray failure: one spine of plane 0 drops 15% both ways.
if want gray; then
	gray_on
	bulk gray
	gray_off
fi

# ---- silent failure: the plane-0 spine-0 link to hB is cut; every host
# carrier stays up, nothing tells the hosts.
want silent && series silent spine_cut spine_fix "$spine_nodes"
# ---- plane down: plane 0 loses carrier on both hosts (announced locally).
want planedown && series planedown plane_down plane_up "$plane_nodes"

inA ip mptcp limits >"$raw/mptcp-limits.txt" 2>&1
inB ip mptcp endpoint show >"$raw/mptcp-endpoints.txt" 2>&1
inA tc -s qdisc show >"$raw/tc-hA.txt" 2>&1
cat /proc/net/mrc >"$raw/proc-net-mrc-1500.txt" 2>/dev/null
teardown

# ---- jumbo MTU: unshaped and shaped again.
if [ "$jumbo" != 0 ] && want jumbo; then
	if setup "$jumbo"; then
		bulk "unshaped-j$jumbo"
		fabric_tbf "$rate" 64kb 20ms || log "fabric_tbf failed"
		bulk "shaped-j$jumbo"
		cat /proc/net/mrc >"$raw/proc-net-mrc-$jumbo.txt" 2>/dev/null
		teardown
	fi
fi

rate_mbps=$(awk -v r="$rate" 'BEGIN { n = r + 0; u = tolower(r); sub(/^[0-9.]+/, "", u)
	if (u == "gbit") n *= 1000; else if (u == "kbit") n /= 1000; print n }')
{
	printf '{"profile":"%s","rate_per_plane":"%s","rate_per_plane_mbps":%s,' \
		"$profile" "$rate" "$rate_mbps"
	printf '"planes":4,"hosts":2,"spines":2,"mtu":1500,"jumbo_mtu":%s,' "$jumbo"
	printf '"repeat":%s,"duration_s":%s,"omit_s":%s,"pingpong_round_trips":%s,' \
		"$repeat" "$dur" "$omit" "$pings"
	printf '"loss_delay_ms_per_hop":%s,' "$delay_ms"
	printf '"series_s":%s,"fail_at_s":%s,"restore_at_s":%s,"series_bin_s":%s,' "$series" \
		"$fail_at" "$restore_at" "$series_bin"
	run_l="" skip_l=""
	for c in "${all_cells[@]}"; do
		if want "$c"; then run_l+="${run_l:+,}\"$c\""; else skip_l+="${skip_l:+,}\"$c\""; fi
	done
	printf '"cells_run":[%s],"cells_skipped":[%s],' "$run_l" "$skip_l"
	printf '"mrc_usid_unavailable":"%s","series_trace":%s,"series_ack_every":%s,' \
		"${why[mrc-usid]:-}" "$trace" "$series_ack"
	printf '"kernel":"%s","cpus":%s,' "$(uname -r)" "$(nproc)"
	printf '"mrc_unavailable":"%s","telemetry":"%s","burst1":"%s",' "${why[mrc]:-}" \
		"$telemetry" "$burst1"
	# The EV profile's default burst, as the module reported it.
	printf '"burst":%s,' "${burst_was:-null}"
	printf '"fi_pingpong":{"iterations_64":%s,"iterations_1m":%s,"seconds":%s,"libfabric":"%s"},' \
		"$fi_iters" "$fi_bw_iters" "${fi_seconds:-0}" "${fi_version:-}"
	printf '"bench_seconds":%s}\n' $((($(now_ms) - t0) / 1000))
} >"$raw/meta.json"
log "done in $((($(now_ms) - t0) / 1000)) s"
exit 0
