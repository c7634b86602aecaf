/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The AF_MRC number is a load-time module parameter: every test reads it from
 * sysfs instead of trusting the default.
 */
#ifndef MRC_SELFTEST_FAMILY_H
#define MRC_SELFTEST_FAMILY_H

#include <stdio.h>
#include <linux/mrc.h>

static inline int mrc_family(void)
{
	FILE *f = fopen(MRC_FAMILY_SYSFS, "r");
	int fam = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &fam) != 1)
		fam = -1;
	fclose(f);
	return fam;
}

#endif
