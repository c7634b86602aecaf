/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AF_MRC number is a load-time module parameter: every test takes it
 * from libmrc (lib/mrc), which reads it from sysfs instead of trusting the
 * default, as applications do.
 */
#ifndef MRC_SELFTEST_FAMILY_H
#define MRC_SELFTEST_FAMILY_H

#include <linux/mrc.h>
#include <libmrc.h>

#endif
