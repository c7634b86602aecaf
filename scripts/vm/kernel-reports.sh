# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/vm/run.sh and scripts/debug/check.sh: the extended
# regular expression of a kernel report in a guest's console or dmesg. Any
# match fails a run (run.sh); check-debug also finds where the first one
# is, to tell a report of the kernel's own boot from one after ours ran.
# "Oops:" catches the reports that name no BUG (an unclaimed int3).
# shellcheck disable=SC2034
mrc_kernel_reports='BUG:|WARNING:|Oops:|Call Trace|RIP:|unreferenced object|Kernel panic|general protection fault|UBSAN:|ODEBUG:'
