#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rig's canary: misbehaves on request so that scripts/vm/selfcheck.sh can
# prove that the rig turns each kind of breakage into a failed run. It is not
# in the kselftest list; only the self-check runs it.
#   fail   exit like a failing test
#   warn   load a test module whose init hits WARN()
#   panic  crash the kernel (sysrq c)
#   hang   never return
case "${1:-}" in
fail)	echo "# canary: failing on purpose"; exit 1 ;;
warn)	insmod "/mrc/build/rigmod${MRC_SFX:-}/mrc_rig_canary.ko"; exit 0 ;;
panic)	echo c >/proc/sysrq-trigger; sleep 30; exit 0 ;;
hang)	while :; do sleep 60; done ;;
*)	echo "usage: $0 fail|warn|panic|hang"; exit 2 ;;
esac
