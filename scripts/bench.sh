#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: MRC side by side with TCP, TCP x planes and MPTCP on the
# emulated fabric. One VM boot runs scripts/bench-guest.sh (raw results on
# the share, under build/bench/raw); scripts/bench_report.py then assembles
# build/bench/results.json (validated against
# Documentation/networking/mrc-bench.schema.json), prints the table (also
# build/bench/results.txt) and gnuplot draws build/bench/{silent,planedown,
# cost,timeline-silent}.svg. Never a pass/fail test of the figures: a transport that fails
# shows as failed with its reason; the exit status says whether a valid
# report was produced (and, with --smoke, whether every scenario ran).
#
#   make bench                      # 5 repeats per cell (~25-40 min under TCG)
#   BENCH_QUICK=1 make bench        # one repeat, shorter runs
#   BENCH_RATE=100mbit make bench   # another per-plane rate
#   BENCH_CELLS=shaped,silent,planedown,gray make bench
#                                   # only these cells (the others: "not run")
#   BENCH_CELLS=fi_pingpong BENCH_REPEAT=3 bash scripts/bench.sh
#                                   # fi_pingpong, libfabric tcp against mrc
#   bash scripts/bench.sh --smoke   # every scenario once, tiny (make check)
#   bash scripts/bench.sh --no-vm   # re-assemble from an existing raw/
#   bash scripts/bench.sh --profile # make bench-profile: perf in the guest
#                                   # (build/bench-profile/profile-*.txt)
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
vm=1 smoke=0
for a in "$@"; do
	case $a in
	--no-vm) vm=0 ;;
	--smoke) smoke=1 ;;
	--profile)
		# One boot, the bench's fabric, perf around one unshaped bulk
		# run and one pingpong per column; the flat profiles and the
		# pingpong's events per round trip are the result, no table.
		mkdir -p "$top/build/bench-profile"
		env="BENCH_OUT=/mrc/build/bench-profile BENCH_PROFILE=1 "
		for v in BENCH_DURATION BENCH_PROFILE_COLS BENCH_PROFILE_HZ BENCH_PROFILE_TOP \
			BENCH_PROFILE_CALLERS BENCH_PROFILE_PINGS; do
			[ -n "${!v:-}" ] && env+="$v='${!v}' "
		done
		rm -f "$top"/build/bench-profile/profile-*.txt
		bash "$top/scripts/vm/run.sh" --name bench-profile --timeout 1200 -- \
			"${env}bash /mrc/scripts/bench-guest.sh" || exit 1
		# A profile is a report only if the run moved data and perf
		# resolved the transport's own kernel symbols (mrc.ko's from
		# /proc/kallsyms): tcp_*, mptcp_*, mrc_* among the hot ones.
		bad=0
		# profile_has FILE WHAT RE1 RE2: the report FILE matches both
		# extended regexps, or says which WHAT it lacks.
		profile_has() {
			if grep -Eq "$3" "$1" 2>/dev/null && grep -Eq "$4" "$1"; then
				echo "bench-profile: $1"
			else
				echo "bench-profile: no $2 in $1" >&2
				bad=1
			fi
		}
		for c in ${BENCH_PROFILE_COLS:-tcp mptcp mrc}; do
			profile_has "$top/build/bench-profile/profile-$c.txt" \
				"profile with its goodput and ${c}_* symbols" \
				'"goodput_mbps":[1-9]' "\[k\] ${c}_"
			# The pingpong's: round trips made, and the kernel's
			# events counted per round trip.
			profile_has "$top/build/bench-profile/profile-pingpong-$c.txt" \
				"pingpong round trips or wakeups per round trip" \
				'"round_trips":[1-9]' 'sched:sched_wakeup .*/rt'
		done
		exit "$bad"
		;;
	*) echo "usage: bench.sh [--no-vm] [--smoke] [--profile]" >&2; exit 2 ;;
	esac
done
# Refuse an unknown cell before booting (the guest script knows the list).
BENCH_CELLS=${BENCH_CELLS:-all} bash "$top/scripts/bench-guest.sh" --check-cells || exit 2
out=$top/build/bench
((smoke)) && out=$top/build/bench-smoke
raw=$out/raw

mkdir -p "$out"
if ((vm)); then
	env="BENCH_OUT=/mrc/${out#"$top"/} "
	((smoke)) && env+="BENCH_SMOKE=1 "
	for v in BENCH_RATE BENCH_REPEAT BENCH_DURATION BENCH_OMIT BENCH_DELAY_MS BENCH_JUMBO \
		BENCH_PINGS BENCH_SERIES BENCH_FAIL_AT BENCH_RESTORE_AT BENCH_QUICK BENCH_CELLS BENCH_FO0 \
		BENCH_SERIES_BIN BENCH_SERIES_ACK BENCH_TRACE BENCH_FI_ITERS BENCH_FI_BW_ITERS; do
		[ -n "${!v:-}" ] && env+="$v='${!v}' "
	done
	timeout=5400
	((smoke)) && timeout=900
	bash "$top/scripts/vm/run.sh" --name "bench$( ((smoke)) && echo -smoke)" \
		--timeout "$timeout" -- "${env}bash /mrc/scripts/bench-guest.sh"
	vmrc=$?
	((vmrc == 0)) || echo "bench: the VM run ended with status $vmrc (see build/vm/logs/); reporting what was measured"
fi
[ -f "$raw/meta.json" ] || { echo "bench: no $raw/meta.json: the guest part did not finish" >&2; exit 1; }

args=("$raw" "$out" --schema "$top/Documentation/networking/mrc-bench.schema.json")
((smoke)) && args+=(--smoke)
python3 "$top/scripts/bench_report.py" "${args[@]}"
rc=$?

if ! command -v gnuplot >/dev/null; then
	echo "bench: gnuplot not installed (make deps): no plots"
else
	while read -r gp; do
		[ -n "$gp" ] || continue
		gnuplot "$gp" && echo "bench: plot ${gp%.gp}.svg"
	done <"$out/plots.list"
fi
exit "$rc"
