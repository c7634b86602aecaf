#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrcperf works end to end: bulk and pingpong for ~2 s each between two
# namespaces over a veth pair, over TCP, MPTCP and (when mrc.ko is loaded)
# AF_MRC. For every run: both ends exit 0, both JSON reports parse, the
# figures are non-zero (CPU accounting included), and the message counts of
# client and server agree.
# A functional test of the tool, not a benchmark: no rate is asserted.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

perf=${MRC_TOP:-/mrc}/build/cmake/tools/mrcperf/mrcperf
out=$(mktemp -d)
[ -x "$perf" ] || { log "no $perf (make userspace)"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

netns_add mrcp-a && netns_add mrcp-b || exit $ksft_fail
ip link add name mrcp0 netns mrcp-a type veth peer name mrcp1 netns mrcp-b
ip -n mrcp-a addr add fd00:6d72:9::1/64 dev mrcp0 nodad
ip -n mrcp-b addr add fd00:6d72:9::2/64 dev mrcp1 nodad
ip -n mrcp-a link set dev mrcp0 up
ip -n mrcp-b link set dev mrcp1 up

# jget FILE PATH: one value of a JSON report (mrcperf json: no jq in the VM).
jget() { "$perf" json "$1" "$2" 2>/dev/null; }
positive() { awk -v x="$1" 'BEGIN { exit !(x + 0 > 0) }'; }

# smoke TRANSPORT MODE PORT ARGS...
smoke() {
	local t=$1 mode=$2 port=$3 name="$1-$2" rc src spid
	shift 3
	ip netns exec mrcp-b "$perf" server --transport "$t" -p "$port" --once --json -q \
		>"$out/$name.srv" 2>"$out/$name.srv.err" &
	spid=$!
	ip netns exec mrcp-a timeout 60 "$perf" "$mode" --transport "$t" -c fd00:6d72:9::2 -p "$port" \
		--json -q "$@" >"$out/$name.cli" 2>"$out/$name.cli.err"
	rc=$?
	wait "$spid"
	src=$?
	check "$name: client exit 0 ($(head -c 200 "$out/$name.cli.err"))" [ "$rc" = 0 ]
	check "$name: server exit 0 ($(head -c 200 "$out/$name.srv.err"))" [ "$src" = 0 ]
	check "$name: client JSON well-formed" "$perf" json "$out/$name.cli"
	check "$name: server JSON well-formed" "$perf" json "$out/$name.srv"
	expect_eq "$name: client ok" true "$(jget "$out/$name.cli" ok)"
	expect_eq "$name: server ok" true "$(jget "$out/$name.srv" ok)"
	expect_eq "$name: transport in the report" "$t" "$(jget "$out/$name.cli" transport)"
	local sent srv_msgs srv_bytes
	sent=$(jget "$out/$name.cli" result.msgs_sent)
	srv_msgs=$(jget "$out/$name.srv" result.msgs)
	srv_bytes=$(jget "$out/$name.srv" result.bytes)
	check "$name: messages sent ($sent)" positive "$sent"
	expect_eq "$name: server received what the client sent" "$sent" "$srv_msgs"
	expect_eq "$name: client saw the server's count" "$srv_msgs" \
		"$(jget "$out/$name.cli" result.server_msgs)"
	expect_eq "$name: bytes agree" "$(jget "$out/$name.cli" result.bytes_sent)" "$srv_bytes"
	check "$name: goodput > 0" positive "$(jget "$out/$name.cli" result.goodput_mbps)"
	expect_eq "$name: CPU accounted" true "$(jget "$out/$name.cli" cpu.valid)"
	check "$name: service demand > 0" positive \
		"$(jget "$out/$name.cli" cpu.service_demand_us_per_mb)"
	check "$name: busy CPU time counted" positive \
		"$(jget "$out/$name.cli" cpu.busy_s)"
	if [ "$mode" = pingpong ]; then
		expect_eq "$name: one response per request" "$sent" \
			"$(jget "$out/$name.cli" result.round_trips)"
		check "$name: latency p50 > 0" positive "$(jget "$out/$name.cli" result.latency_us.p50)"
		check "$name: latency p999 > 0" positive "$(jget "$out/$name.cli" result.latency_us.p999)"
	else
		check "$name: intervals recorded" positive \
			"$(jget "$out/$name.cli" intervals.0.t_s)"
	fi
	log "$name: $(jget "$out/$name.cli" result.goodput_mbps) Mbit/s," \
		"$sent msgs, p50 $(jget "$out/$name.cli" result.latency_us.p50) us," \
		"$(jget "$out/$name.cli" cpu.service_demand_us_per_mb) CPU-us/MB"
}

transports="tcp mptcp"
if mrc_loaded; then
	transports+=" mrc"
else
	log "mrc.ko not loaded: AF_MRC not tested"
fi
port=7400
for t in $transports; do
	smoke "$t" bulk $port -t 2 -l 16k --window 16 -i 0.5
	smoke "$t" pingpong $((port + 1)) -t 2
	port=$((port + 2))
done

# mrcperf tells apart a missing module (exit 3) when there is none.
if ! mrc_loaded; then
	"$perf" bulk --mrc -c ::1 -k 1 -q >/dev/null 2>&1
	expect_eq "AF_MRC unavailable: exit 3" 3 $?
fi

finish
