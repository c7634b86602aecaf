#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The project's test command (make check; .ci/run calls exactly that):
#   1. lint: checkpatch --strict on kmod/ and clang-format on the C++;
#   2. ctest: engine unit tests (plain and ASan/UBSan), simulator scenarios,
#      fuzz smoke runs, uapi layout tests;
#   3. the install path: the .debs build, install here, DKMS compiles the
#      module against the installed headers (scripts/check_packages.sh);
#      the guest's autoload test loads the module DKMS built;
#   4. the kselftest collection inside the QEMU guest, KTAP streamed; a kernel
#      splat, a panic or a hang fails the run whatever the tests said;
#   5. the wire capture the VM run left (mrc_wire_capture.sh), decoded on
#      the host by tshark with tools/wireshark/mrc.lua and judged by
#      tools/wireshark/mrc_capture_check.py (the ICRC of every packet by
#      scripts/mrc_icrc.py, after its known-answer selftest);
#   6. the same kselftest collection on the matrix's second kernel, Debian
#      12's 6.12 (module built against its headers, its own VM image), with
#      mrc.ko ev_burst=1: every test with per-packet spraying there, as
#      every test with the default flowcells on 6.1 (issue 12);
#   7. two guests, two kernels: 6.1 and 6.12 in separate VMs joined by
#      socket netdevs, a transfer, a silent cut and a port down between
#      them, the wire between them judged (scripts/vm/pair.sh);
#   8. the bench smoke: every make bench scenario once at a tiny size, its
#      results.json validated against the documented schema (not the figures);
#   9. the bench profile smoke: make bench-profile for 1 s (perf in the
#      guest resolves tcp_* and mrc.ko's mrc_* symbols);
#  10. the rig self-check: deliberately broken runs must each fail.
# Ends with one line "N passed, N failed[, N skipped]"; exit status 1 if any
# failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
rig_selfcheck=1
[ "${1:-}" = --no-rig-selfcheck ] && rig_selfcheck=0
# Every step but the 6.12 one is on 6.1, whatever KERNEL= make was given.
export MRC_KABI_MK="$top/build/kabi.mk"

pass=0 fail=0 skip=0
failed_names=() failed_details=()
tally() { # tally NAME PASS FAIL SKIP
	pass=$((pass + $2)) fail=$((fail + $3)) skip=$((skip + $4))
	((${3})) && failed_names+=("$1")
	echo "check: $1: $2 passed, $3 failed, $4 skipped"
}

echo "== lint"
if bash scripts/lint.sh; then tally lint 1 0 0; else tally lint 0 1 0; fi

echo "== ctest"
junit="$top/build/ctest-junit.xml"
rm -f "$junit"
ctest --test-dir build/cmake --output-on-failure -j2 --output-junit "$junit"
if [ -f "$junit" ]; then
	# first occurrence of NAME="N" (the <testsuite> attributes, one per line)
	attr() { grep -oE "(^|[[:space:]])$1=\"[0-9]+\"" "$junit" | head -n 1 | grep -oE '[0-9]+'; }
	total=$(attr tests) cfail=$(attr failures) cskip=$(attr skipped)
	cdisabled=$(attr disabled)
	tally ctest $((total - cfail - cskip - ${cdisabled:-0})) "$cfail" $((cskip + ${cdisabled:-0}))
else
	tally ctest 0 1 0
fi

echo "== packages"
if bash scripts/check_packages.sh >build/packages.log 2>&1; then
	tally packages 1 0 0
else
	grep -E '^(FAIL|packages):' build/packages.log
	tally packages 0 1 0
fi

# vm_selftests NAME LOGNAME EV_BURST: the whole collection in the guest of
# $MRC_KABI_MK, tallied from its KTAP. The collection takes about 11
# minutes on the usual host and took 22 on 2026-11-29's, three times
# slower, past run.sh's default of 15: it gets 30 (both kernels' runs and
# the rest of CI still fit 90 on such a host). mrc.ko's ev_burst must
# still be EV_BURST after the last test: a test that reloaded the module
# without $MRC_KO_PARAMS would have left the rest of the collection with
# another burst than the run claims (one more failure if so).
vm_selftests() {
	local kp kf ks vmrc burst
	bash scripts/vm/run.sh --name "$2" --timeout 1800 -- \
		'cd /mrc/build/ksft && ./run_kselftest.sh
		echo "mrc ev_burst after the collection:" \
			"$(cat /sys/module/mrc/parameters/ev_burst 2>/dev/null || echo none)"'
	vmrc=$?
	read -r kp kf ks < <(bash scripts/ktap-summary.sh "build/vm/logs/$2/console.log")
	if ((vmrc != 0 && kf == 0)); then
		# Every test said ok but the run itself failed (splat, panic, hang).
		kf=1
	fi
	burst=$(sed -n 's/^mrc ev_burst after the collection: \([0-9a-z]*\).*/\1/p' \
		"build/vm/logs/$2/console.log" | tail -n 1)
	if [ "$burst" != "$3" ]; then
		kf=$((kf + 1))
		failed_details+=("$1: mrc.ko ev_burst after the collection: ${burst:-not printed}, not $3")
	fi
	tally "$1" "$kp" "$kf" "$ks"
	vm_failed_tests "$1" "build/vm/logs/$2/console.log"
	if ((vmrc != 0)); then
		vm_kernel_report "$1" "build/vm/logs/$2"
	fi
}

# vm_kernel_report NAME LOGDIR: the guest's first kernel report, in two
# lines kept for the end of the output: the test that was running and the
# report's first line, then where it hit and the functions on its stack.
# The console has what a panic printed; a report below the console's
# loglevel (a WARNING) is only in the guest's dmesg.txt.
# CI shows only the output's tail, and a clean clone's console log goes
# with it: a panic seen once (6.12, 2026-11-29, in slab allocation in an
# interrupt) left its last lines of registers and nothing to go on.
vm_kernel_report() {
	local line log found=""
	. "$top/scripts/vm/kernel-reports.sh"
	for log in "$2/console.log" "$2/dmesg.txt"; do
		[ -f "$log" ] && grep -Eq "$mrc_kernel_reports" "$log" && { found=$log; break; }
	done
	[ -n "$found" ] || return 0	# a hang: the KTAP lines say where
	while IFS= read -r line; do
		failed_details+=("$1: $line")
	done < <(awk -v re="$mrc_kernel_reports" '
		{ sub(/\r$/, ""); l = $0; sub(/^\[ *[0-9.]+\] /, "", l) }
		/^# selftests: / && !found { test = $0; sub(/^# selftests: [^:]*: /, "", test) }
		!found && l ~ re { found = 1; first = l; next }
		!found { next }
		/---\[ end trace|Kernel Offset:/ { exit }
		l ~ /^RIP: 0010:/ && !rip { rip = l; sub(/^RIP: 0010:/, "", rip); sub(/ .*/, "", rip) }
		l ~ /^ *\? / { next }
		match(l, /[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x[0-9a-f]+( \[[a-z_]+\])?/) && n < 16 {
			f = substr(l, RSTART, RLENGTH); sub(/\+0x[^ ]*/, "", f)
			stack = stack (n++ ? " < " : "") f
		}
		END {
			if (!found) exit
			print "kernel report during " (test ? test : "the run") ": " first
			print "kernel report at " (rip ? rip : "?") "; stack: " (stack ? stack : "?")
		}' "$found" | cut -c 1-400)
}

# vm_failed_tests NAME LOG: each test of the collection that failed and the
# checks it failed, kept for the end of the output: CI shows its tail, and a
# count alone says nothing of which test failed or why.
vm_failed_tests() {
	local line
	while IFS= read -r line; do
		failed_details+=("$1: $line")
	done < <(awk '
		/^# # FAIL: /             { sub(/^# # FAIL: /, ""); why = why (why ? "; " : "") $0 }
		/^# selftests: /          { why = "" }
		/^not ok [0-9]+ /         { sub(/^not ok [0-9]+ selftests: [^:]*: /, "")
		                            print $0 (why ? " -- " why : ""); why = "" }
	' "$2" | cut -c 1-400)
}

echo "== VM selftests"
vm_selftests "VM selftests" selftests 32

echo "== wire capture"
# mrc_wire_capture.sh (in the VM run above) left a capture of the fabric;
# decode it with tshark and our dissector here, where tshark runs.
cap=build/captures/mrc_wire_capture.pcap
sender=$(sed -n 's/^sender //p' "$cap.meta" 2>/dev/null)
# The independent ICRC checker proves itself first on its known answers
# (a ConnectX-4 Lx RoCEv2 packet among them), then checks every packet.
if python3 scripts/mrc_icrc.py selftest &&
	[ -s "$cap" ] && [ -n "$sender" ] &&
	python3 tools/wireshark/mrc_capture_check.py --min 500 --sender "$sender" --check-sacks \
		--need data,sack,nack,probe,erth,eeth,erth-ev-probe,eeth-ev-probe \
		--need-icrc data-rtx,data-last,data-pad,flowcell-seg,flowcell-last,flowcell-last-short \
		"$cap"; then
	tally "wire capture" 1 0 0
else
	tally "wire capture" 0 1 0
fi

echo "== VM selftests (6.12)"
if make -s kmod initramfs KERNEL=6.12 >build/kmod-6.12.log 2>&1; then
	MRC_KABI_MK="$top/build/kabi-6.12.mk" MRC_KO_PARAMS=ev_burst=1 \
		vm_selftests "VM selftests 6.12 (ev_burst=1)" selftests-6.12 1
else
	tail -n 30 build/kmod-6.12.log
	tally "VM selftests 6.12 (ev_burst=1)" 0 1 0
fi

# Two guests, two kernels (issue 51): 6.1 and 6.12 as separate QEMU VMs
# joined by socket netdevs, each its own mrc.ko (built by the steps above).
echo "== two guests (6.1 + 6.12)"
bash scripts/vm/pair.sh | tee build/pair.log
read -r pp pf <<<"$(sed -n 's/^pair: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' build/pair.log)"
tally "two guests (6.1 + 6.12)" "${pp:-0}" "${pf:-1}" 0
while IFS= read -r line; do
	failed_details+=("two guests: $line")
done < <(sed -n 's/^pair: \(a: \|b: \)\?\(# \)\?FAIL: //p' build/pair.log | cut -c 1-300)

echo "== bench smoke"
if bash scripts/bench.sh --smoke >build/bench-smoke.log 2>&1; then
	tally "bench smoke" 1 0 0
else
	tail -n 30 build/bench-smoke.log
	tally "bench smoke" 0 1 0
fi

# make bench-profile at a tiny size: perf in the guest still resolves the
# transports' symbols (mrc.ko's included), the report is complete.
echo "== bench profile smoke"
if BENCH_DURATION=1 BENCH_PROFILE_PINGS=200 BENCH_PROFILE_COLS="tcp mrc" \
	bash scripts/bench.sh --profile >build/bench-profile-smoke.log 2>&1; then
	tally "bench profile smoke" 1 0 0
else
	tail -n 30 build/bench-profile-smoke.log
	tally "bench profile smoke" 0 1 0
fi

if ((rig_selfcheck)); then
	echo "== rig self-check"
	bash scripts/vm/selfcheck.sh | tee build/selfcheck.log
	read -r sp sf <<<"$(sed -n 's/^selfcheck: \([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' build/selfcheck.log)"
	tally "rig self-check" "${sp:-0}" "${sf:-1}" 0
fi

for d in "${failed_details[@]}"; do
	echo "check: failed test: $d"
done
((fail)) && echo "check: failed: ${failed_names[*]}"
if ((skip)); then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
((fail == 0))
