#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The run of `make check-debug`: the whole mrc selftest collection in one
# boot of the debug kernel (build/kabi-debug.mk, built by build-kernel.sh),
# then a kmemleak scan of what the run left behind. It fails on any failed
# test and on any report in the guest log: KASAN, lockdep, UBSAN, debug
# objects, reference trackers, kmemleak's "unreferenced object", or any
# other BUG/WARNING/Call Trace (scripts/vm/run.sh judges the log).
#
# Arguments, if any, name the tests to run instead of the whole collection
# (make check-debug T="mrc_pmtu.sh mrc_orphans.sh"): a failure found by a
# full run can be rerun alone, with the same timeouts and kmemleak scan.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
export MRC_KABI_MK="$top/build/kabi-debug.mk"
[ -f "$MRC_KABI_MK" ] || { echo "check-debug: no debug kernel (run make check-debug)" >&2; exit 2; }
# KASAN's shadow is an eighth of memory, kmemleak keeps a record per object.
export MRC_VM_MEM=${MRC_VM_MEM:-3072}
# KASAN and lockdep make the guest several times slower: each test gets
# three times its own timeout (selftests/mrc/settings), the boot 4 hours.
job=$(cat <<'EOT'
kml=/sys/kernel/debug/kmemleak
[ -w $kml ] || { echo "check-debug: kmemleak is not running"; exit 1; }
# What boot left unreferenced is not ours to judge: forget it.
echo clear >$kml
# Bounds that hold at Debian's kernel's speed are printed, not judged
# (check_timed in selftests/mrc/mrc_lib.sh): this guest is 4-5x slower.
export MRC_TIMING_JUDGED=0
# 6.1's runner has no timeout override: run a copy with its settings scaled.
cp -a /mrc/build/ksft /tmp/ksft
t=$(sed -n 's/^timeout=//p' /tmp/ksft/mrc/settings)
sed -i "s/^timeout=.*/timeout=$((3 * t))/" /tmp/ksft/mrc/settings
# 6.1's runner exits 0 whatever its tests did: their "not ok" lines count.
cd /tmp/ksft && ./run_kselftest.sh $sel | tee /tmp/ksft.out
rc=${PIPESTATUS[0]}
grep -q '^not ok' /tmp/ksft.out && rc=1
# An object must stay unreferenced across scans older than its minimum age
# (5 s) before kmemleak reports it; RCU frees must have run.
sleep 10
echo scan >$kml
sleep 10
echo scan >$kml
leaks=$(grep -c '^unreferenced object' $kml || true)
echo "check-debug: kmemleak reports: $leaks"
cat $kml
[ -r /proc/lockdep_stats ] && grep -E 'lock-classes|direct dependencies|dependency chains|debug_locks' /proc/lockdep_stats
# Lockdep stops after its first report (or when its tables overflow).
grep -qE '^ *debug_locks: *1' /proc/lockdep_stats 2>/dev/null ||
	{ echo "check-debug: lockdep turned itself off (debug_locks 0)"; rc=1; }
exit $rc
EOT
)
sel=
for t in "$@"; do
	[[ $t =~ ^mrc_[a-z0-9_]+\.sh$ ]] || { echo "check-debug: not a test name: $t" >&2; exit 2; }
	sel="$sel -t mrc:$t"
done
job="sel='$sel'"$'\n'"$job"
# A report the kernel makes during its own boot, before the guest's init
# has run a line of ours (seen once in about eight boots: KASAN
# wild-memory-access in handle_edge_irq under identify_cpu(), an interrupt
# of QEMU's taken during CPU setup) is not this module's, but it turns
# lockdep off for the whole run: that boot cannot judge us. It is printed
# and the guest booted again, at most twice; a report after "MRC-GUEST:
# up", or in all three boots, fails as any other.
log="$top/build/vm/logs/debug-selftests/console.log"
. "$top/scripts/vm/kernel-reports.sh"
start=$(date +%s)
for boot in 1 2 3; do
	set +e
	bash "$top/scripts/vm/run.sh" --name debug-selftests --timeout 14400 -- "$job"
	rc=$?
	set -e
	[ "$rc" = 90 ] || break
	up=$(grep -n -m1 '^MRC-GUEST: up' "$log" | cut -d: -f1)
	first=$(grep -En -m1 "$mrc_kernel_reports" "$log" | cut -d: -f1)
	[ -n "$up" ] && [ -n "$first" ] && [ "$first" -lt "$up" ] || break
	echo "check-debug: boot $boot: the kernel reported during its own boot," \
		"before the guest ran any of ours (lockdep is off for that run):"
	sed -n "${first},$((first + 3))p" "$log"
	cp "$log" "${log%.log}-boot$boot.log"
	[ "$boot" = 3 ] && echo "check-debug: three boots in a row did; failing"
done
echo "check-debug: $(( ($(date +%s) - start) / 60 )) min, exit $rc"
exit $rc
