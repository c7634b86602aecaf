/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_clock.h - the clock of every engine call.
 *
 * Inline and in a header of its own: a dozen host files read the clock,
 * and none of them should depend on the connection code for it.
 */
#ifndef MRC_CLOCK_H
#define MRC_CLOCK_H

#include <linux/timekeeping.h>

/**
 * mrc_now() - the engine's clock
 *
 * Return: CLOCK_MONOTONIC in ns (the clock of the connection hrtimers).
 */
static inline u64 mrc_now(void)
{
	return ktime_get_ns();
}

#endif /* MRC_CLOCK_H */
