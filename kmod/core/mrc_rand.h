/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_rand.h - deterministic per-connection pseudo-random generator.
 *
 * The engine never asks the platform for randomness: every connection owns a
 * splitmix64 state seeded by the host (mrc_conn_cfg.seed). Two engines built
 * from the same seed make the same choices, which is what makes the unit
 * tests and the simulator reproducible. splitmix64 is not cryptographic; the
 * values it produces only spread load (EV entropy, rotation order).
 */
#ifndef MRC_RAND_H
#define MRC_RAND_H

#include "mrc_platform.h"

struct mrc_rng {
	u64 state;
};

static inline void mrc_rng_seed(struct mrc_rng *r, u64 seed)
{
	r->state = seed;
}

static inline u64 mrc_rng_u64(struct mrc_rng *r)
{
	u64 z;

	r->state += 0x9E3779B97F4A7C15ULL;
	z = r->state;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static inline u32 mrc_rng_u32(struct mrc_rng *r)
{
	return (u32)(mrc_rng_u64(r) >> 32);
}

/* Uniform in [0, n) without division (Lemire's multiply-shift); n > 0. */
static inline u32 mrc_rng_below(struct mrc_rng *r, u32 n)
{
	return (u32)(((u64)mrc_rng_u32(r) * n) >> 32);
}

#endif /* MRC_RAND_H */
