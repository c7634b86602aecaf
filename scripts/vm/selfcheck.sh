#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rig's self-check: a rig that cannot fail proves nothing. Boot the guest
# once per kind of breakage and require that each run fails, and fails for
# the right reason:
#   fail   a selftest that fails       -> KTAP "not ok", counted as failed
#   warn   a kernel WARN, command ok   -> run.sh exit 90 "kernel splat"
#   panic  a kernel crash              -> run.sh exit 90 (panic splat) or 91
#   hang   a test that never returns   -> run.sh exit 91 "guest hung"
# Prints one line per case and "selfcheck: N passed, N failed" last.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
pass=0 fail=0
verdict() { # verdict CASE OK? DETAIL
	if (($2)); then
		pass=$((pass + 1)); echo "selfcheck: ok: $1 ($3)"
	else
		fail=$((fail + 1)); echo "selfcheck: NOT OK: $1 ($3)"
	fi
}

# The canary runs under the real kselftest runner next to a real test.
ksft_job() {
	echo "cd /mrc/build/ksft && BASE_DIR=\$PWD && . ./kselftest/runner.sh &&" \
		"cd mrc && KSELFTEST_RIG_CANARY_SH_ARGS=$1 run_many ./mrc_socket_test ./rig_canary.sh"
}

bash scripts/vm/run.sh --name selfcheck-fail --timeout 300 -- "$(ksft_job fail)" >/dev/null 2>&1
read -r p f s < <(bash scripts/ktap-summary.sh build/vm/logs/selfcheck-fail/console.log)
verdict "failing test counted" "$((f == 1 && p == 1))" "ktap pass=$p fail=$f"

bash scripts/vm/run.sh --name selfcheck-warn --timeout 300 -- "$(ksft_job warn)" >/tmp/mrc-sc.$$ 2>&1
rc=$?
verdict "kernel WARN fails the run" \
	"$((rc == 90))" "rc=$rc, $(grep -c 'kernel splat' /tmp/mrc-sc.$$) splat report"

bash scripts/vm/run.sh --name selfcheck-panic --timeout 300 -- "$(ksft_job panic)" >/tmp/mrc-sc.$$ 2>&1
rc=$?
verdict "kernel panic fails the run" "$((rc == 90 || rc == 91))" "rc=$rc"

bash scripts/vm/run.sh --name selfcheck-hang --timeout 60 -- "$(ksft_job hang)" >/tmp/mrc-sc.$$ 2>&1
rc=$?
verdict "hang fails the run" "$((rc == 91))" "rc=$rc, $(grep -c 'guest hung' /tmp/mrc-sc.$$) hang report"
rm -f /tmp/mrc-sc.$$

echo "selfcheck: $pass passed, $fail failed"
((fail == 0))
