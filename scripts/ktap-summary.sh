#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Count a kselftest KTAP log: prints "PASS FAIL SKIP" for the top-level test
# lines ("ok N ...", "ok N ... # SKIP", "not ok N ..."). A plan ("1..N") that
# promises more results than were printed counts the missing ones as failed:
# a runner that died half-way must not look green.
# Usage: ktap-summary.sh LOG
set -euo pipefail
log=$1
awk '
/^1\.\.[0-9]+$/          { plan += substr($0, 4) }
/^ok [0-9]+ .*# SKIP/    { skip++; next }
/^ok [0-9]+ /            { pass++; next }
/^not ok [0-9]+ /        { fail++; next }
END {
	missing = plan - pass - fail - skip
	if (missing > 0)
		fail += missing
	printf "%d %d %d\n", pass, fail, skip
}' "$log"
