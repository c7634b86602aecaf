// SPDX-License-Identifier: GPL-2.0
/*
 * Test-only module for the rig self-check: its init hits WARN() and fails,
 * so the self-check can prove that a kernel warning fails a VM run even when
 * the command that caused it exits 0. Never loaded by the real tests.
 */
#include <linux/module.h>

static int __init mrc_rig_canary_init(void)
{
	WARN(1, "mrc rig canary: deliberate warning for the rig self-check\n");
	return -EAGAIN;
}

module_init(mrc_rig_canary_init);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mrc selftest rig canary (deliberate WARN)");
