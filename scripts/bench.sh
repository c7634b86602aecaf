#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: MRC side by side with TCP and MPTCP on the emulated fabric.
# One VM boot runs scripts/bench-guest.sh (raw results on the share, under
# build/bench/raw); this script then assembles build/bench/results.json,
# prints the table (also build/bench/results.txt) and plots
# build/bench/plane-failure.svg. Never a pass/fail test: a transport that
# fails shows as failed with its reason; the exit status only says whether a
# report could be produced.
#
#   make bench                      # defaults
#   BENCH_RATE=100mbit make bench   # per-plane tbf rate
#   bash scripts/bench.sh --no-vm   # re-assemble from an existing raw/
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/bench
raw=$out/raw
vm=1
[ "${1:-}" = --no-vm ] && vm=0

mkdir -p "$out"
if ((vm)); then
	env=""
	for v in BENCH_RATE BENCH_DURATION BENCH_FAIL_AT BENCH_RESTORE_AT BENCH_SERIES \
		BENCH_TRANSPORTS BENCH_SPINES; do
		[ -n "${!v:-}" ] && env+="$v='${!v}' "
	done
	bash "$top/scripts/vm/run.sh" --name bench --timeout 3000 -- \
		"${env}bash /mrc/scripts/bench-guest.sh"
	vmrc=$?
	((vmrc == 0)) || echo "bench: the VM run ended with status $vmrc (see build/vm/logs/bench/); reporting what was measured"
fi
[ -f "$raw/meta.json" ] || { echo "bench: no $raw/meta.json: the guest part did not finish" >&2; exit 1; }

# ---- results.json -----------------------------------------------------------
transports=(tcp mptcp mrc)
scenarios=(calib clean loss1 planefail pingpong rpc telemetry-detached telemetry-attached
	telemetry-detached-pp telemetry-attached-pp)
start_of() { jq -r '.result.start_unix_ms // empty' "$raw/planefail-$1.json" 2>/dev/null; }
event_of() { sed -n "s/^$2 //p" "$raw/planefail-$1.events" 2>/dev/null; }
{
	for sc in "${scenarios[@]}"; do
		for t in "${transports[@]}"; do
			f=$raw/$sc-$t.json
			[ -f "$f" ] || continue
			planes=$(cat "$raw/$sc-$t.planes" 2>/dev/null)
			ev='{}'
			if [ "$sc" = planefail ] && [ -n "$(start_of "$t")" ]; then
				s=$(start_of "$t") d=$(event_of "$t" down) u=$(event_of "$t" up)
				dd=$(event_of "$t" down_done) ud=$(event_of "$t" up_done)
				ev=$(printf '{"plane_down_s":%s,"plane_down_done_s":%s,"plane_up_s":%s,"plane_up_done_s":%s}' \
					"$(((${d:-$s} - s)))e-3" "$(((${dd:-$s} - s)))e-3" \
					"$(((${u:-$s} - s)))e-3" "$(((${ud:-$s} - s)))e-3")
			fi
			if ! jq -e 'type == "object"' "$f" >/dev/null 2>&1; then
				printf '{"ok":false,"error":"mrcperf output is not JSON: %s"}' \
					"$(head -c 150 "$f" | tr -d '"\\\n')" >"$f"
			fi
			jq -c --arg sc "$sc" --arg t "$t" --arg planes "$planes" --argjson ev "$ev" \
				'{($sc): {($t): (. + {plane_tx_bytes: ($planes | split(" ") |
				 map(select(length > 0) | tonumber))} + $ev)}}' "$f"
		done
	done
} | jq -s --slurpfile meta "$raw/meta.json" \
	'{meta: $meta[0], tests: (reduce .[] as $x ({}; . * $x))}' >"$out/results.json"

# ---- the table --------------------------------------------------------------
jq -r -f /dev/stdin "$out/results.json" >"$out/results.txt" <<'JQ'
def f1: if . == null then "-" else (. * 10 | round / 10 | tostring) end;
def fail: "failed: " + ((.error // "no result") | .[0:60]);
def ok: . != null and .ok == true;
def get($sc; $t): .tests[$sc][$t];
# share of the plane uplink bytes: "4 planes 25/25/25/25%"
def planes: (.plane_tx_bytes // []) as $b | ($b | add // 0) as $s |
  if $s == 0 then "-" else
  "\([$b[] | select(. > $s / 20)] | length) planes " +
  ([$b[] | (. * 100 / $s | round | tostring)] | join("/")) + "%" end;
def cell($sc; $t; f): get($sc; $t) as $r |
  if $r == null then "not run" elif ($r | ok) then ($r | f) else ($r | fail) end;
def avg(a): if (a | length) == 0 then null else (a | add / length) end;
def phases:
  (.plane_down_s // 4) as $d | (.plane_up_s // 8) as $u | (.intervals // []) as $iv |
  [avg([$iv[] | select(.t_s <= $d) | .mbps]), avg([$iv[] | select(.t_s > $d + 0.1 and .t_s <= $u) | .mbps]),
   avg([$iv[] | select(.t_s > $u + 1) | .mbps])] | map(f1) | join(" / ");
def row($name; $sc; f): [$name] + [("tcp", "mptcp", "mrc") as $t | cell($sc; $t; f)];
.meta as $m |
"MRC benchmark: 2 hosts x 4 planes (\($m.spines) spines), tbf \($m.rate_per_plane) per plane uplink, Debian \($m.kernel) under QEMU TCG, \($m.cpus) vCPUs",
"tcp: one connection on plane 0 | mptcp: \($m.mptcp) | mrc: \(if $m.mrc_unavailable != "" then $m.mrc_unavailable else $m.mrc_path end)",
"bottleneck check: shaped limit \($m.rate_per_plane) per plane; unshaped goodput tcp \(.tests.calib.tcp.result.goodput_mbps | f1), mptcp \(.tests.calib.mptcp.result.goodput_mbps | f1), mrc \(.tests.calib.mrc.result.goodput_mbps | f1) Mbit/s: a transport is network-bound only where its unshaped figure is well above what the shaped fabric gives it",
"",
( [ ["test", "tcp (1 path, plane 0)", "mptcp (4 subflows)", "mrc"],
    row("unshaped goodput (CPU limit), Mbit/s"; "calib"; .result.goodput_mbps | f1),
    row("goodput clean, Mbit/s"; "clean"; .result.goodput_mbps | f1),
    row("  planes used (bytes share)"; "clean"; planes),
    row("goodput 1% loss, Mbit/s"; "loss1"; .result.goodput_mbps | f1),
    row("plane 0 down: before/during/after, Mbit/s"; "planefail"; phases),
    row("  whole series, Mbit/s"; "planefail"; .result.goodput_mbps | f1),
    row("pingpong 64 B p50 us"; "pingpong"; .result.latency_us.p50 | f1),
    row("pingpong 64 B p99 / p999 us"; "pingpong"; "\(.result.latency_us.p99 | f1) / \(.result.latency_us.p999 | f1)"),
    row("rpc 256/4096 B x8: req/s"; "rpc"; .result.round_trips_per_s | f1),
    row("rpc p50 / p99 us"; "rpc"; "\(.result.latency_us.p50 | f1) / \(.result.latency_us.p99 | f1)"),
    (["telemetry overhead (attached vs detached)", "n/a", "n/a",
      (if $m.telemetry != "measured" then $m.telemetry else
        (.tests["telemetry-detached"].mrc.result.goodput_mbps) as $a |
        (.tests["telemetry-attached"].mrc.result.goodput_mbps) as $b |
        (.tests["telemetry-detached-pp"].mrc.result.latency_us.p50) as $c |
        (.tests["telemetry-attached-pp"].mrc.result.latency_us.p50) as $e |
        if $a == null or $b == null then "failed: " + ([.tests | to_entries[] | select(.key | startswith("telemetry")) | .value.mrc.error // empty] | first // "?" | .[0:60]) else
        "\($a | f1) -> \($b | f1) Mbit/s, p50 \($c | f1) -> \($e | f1) us" end end)])
  ] | .[] | "\(.[0] | .[0:44] | . + " " * (44 - length)) | \(.[1] | . + " " * ([24 - length, 0] | max)) | \(.[2] | . + " " * ([24 - length, 0] | max)) | \(.[3])" ),
"",
"bench time \($m.bench_seconds) s; raw results in build/bench/raw, all figures in build/bench/results.json"
JQ
cat "$out/results.txt"

# ---- the plot ---------------------------------------------------------------
plot_args=()
for t in "${transports[@]}"; do
	jq -r --arg t "$t" '.tests.planefail[$t] | select(.ok == true) | .intervals[] |
		"\(.t_s) \(.mbps)"' "$out/results.json" >"$out/plane-failure-$t.dat" 2>/dev/null
	[ -s "$out/plane-failure-$t.dat" ] && plot_args+=("$t")
done
if ! command -v gnuplot >/dev/null; then
	echo "bench: gnuplot not installed (make deps): no plot"
elif ((${#plot_args[@]} == 0)); then
	echo "bench: no plane-failure series to plot"
else
	down=$(jq -r '[.tests.planefail[] | .plane_down_s // empty] | first // 4' "$out/results.json")
	up=$(jq -r '[.tests.planefail[] | .plane_up_s // empty] | first // 8' "$out/results.json")
	rate=$(jq -r .meta.rate_per_plane "$out/results.json")
	{
		echo "set terminal svg size 900,480 dynamic font 'sans,12'"
		echo "set output '$out/plane-failure.svg'"
		echo "set title 'Plane 0 down at ${down} s, up at ${up} s (4 planes, tbf $rate each)'"
		echo "set xlabel 'time (s)'; set ylabel 'goodput (Mbit/s, 100 ms bins)'"
		echo "set yrange [0:*]; set grid; set key outside right top"
		echo "set arrow from $down, graph 0 to $down, graph 1 nohead dt 2 lc rgb 'red'"
		echo "set arrow from $up, graph 0 to $up, graph 1 nohead dt 2 lc rgb 'dark-green'"
		printf 'plot '
		sep=""
		for t in "${plot_args[@]}"; do
			printf "%s'%s' using 1:2 with lines lw 2 title '%s'" "$sep" "$out/plane-failure-$t.dat" "$t"
			sep=", "
		done
		echo
	} >"$out/plane-failure.gp"
	gnuplot "$out/plane-failure.gp" && echo "bench: plot in build/bench/plane-failure.svg"
fi
exit 0
