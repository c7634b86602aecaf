/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_platform.h - the only file of the protocol engine that knows where it runs.
 *
 * Every file under kmod/core/ includes this header and nothing else from the
 * outside world: no kernel header, no libc header. The engine never touches
 * sockets, skbs, timers or clocks; time is passed in by the caller and
 * randomness comes from a per-connection PRNG seeded by the host. What is left
 * for the host to supply is fixed-width types, memory, memcpy/memset, a log
 * hook, a CRC-32 and a counter that connections share, provided here for
 * two hosts:
 *
 *  - the kernel (mrc.ko), selected by __KERNEL__;
 *  - userspace (unit tests, fuzzers, simulator), everything else.
 */
#ifndef MRC_PLATFORM_H
#define MRC_PLATFORM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/printk.h>
#include <linux/math64.h>
#include <linux/crc32.h>
#include <linux/atomic.h>

/*
 * The engine allocates only in mrc_conn_create(), for arrays of up to tens
 * of KiB. In process context (@may_sleep) kvzalloc(): it may wait for
 * reclaim and falls back to vmalloc() instead of failing when no
 * physically contiguous block of that order is free. In softirq an atomic
 * kzalloc(), which can fail under fragmentation (the caller fails cleanly).
 */
static inline void *mrc_plat_zalloc(size_t size, bool may_sleep)
{
	if (may_sleep)
		return kvzalloc(size, GFP_KERNEL);
	return kzalloc(size, GFP_ATOMIC | __GFP_NOWARN);
}

/* Either kind: kvfree() tells them apart. */
static inline void mrc_plat_free(void *p)
{
	kvfree(p);
}

#define mrc_plat_log(fmt, ...) pr_debug("mrc core: " fmt, ##__VA_ARGS__)

/* 64-bit division that also links on 32-bit kernels; @b != 0. */
static inline u64 mrc_div64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

/*
 * CRC-32 (IEEE 802.3, reflected) without pre- or post-inversion: the
 * kernel's crc32_le(), which the ICRC feeds with its own running state.
 */
static inline u32 mrc_plat_crc32_le(u32 state, const u8 *p, u32 len)
{
	return crc32_le(state, p, len);
}

/*
 * A counter shared by the connections of one host (mrc_cc_share.c): they
 * run under their own locks, so the count is atomic; nothing is ordered
 * by it, so relaxed operations do.
 */
struct mrc_plat_atomic {
	atomic_t v;
};

static inline int mrc_plat_atomic_inc_return(struct mrc_plat_atomic *a)
{
	return atomic_inc_return_relaxed(&a->v);
}

static inline void mrc_plat_atomic_dec(struct mrc_plat_atomic *a)
{
	atomic_dec(&a->v);
}

static inline int mrc_plat_atomic_read(const struct mrc_plat_atomic *a)
{
	return atomic_read(&a->v);
}

#else /* userspace */

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* The kernel's fixed-width names, from the compiler's own type macros. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT8_TYPE__ s8;
typedef __INT16_TYPE__ s16;
typedef __INT32_TYPE__ s32;
typedef __INT64_TYPE__ s64;

/* Userspace never minds the context. */
static inline void *mrc_plat_zalloc(size_t size, bool may_sleep)
{
	(void)may_sleep;
	return calloc(1, size);
}

static inline void mrc_plat_free(void *p)
{
	free(p);
}

/* Quiet by default: the tests assert on state and events, not on log text. */
#define mrc_plat_log(fmt, ...) do { } while (0)

/* 64-bit division (the kernel branch uses div64_u64); @b != 0. */
static inline u64 mrc_div64(u64 a, u64 b)
{
	return a / b;
}

/*
 * CRC-32 (IEEE 802.3, reflected) without pre- or post-inversion, from
 * zlib: crc32() inverts on entry and on exit, so undo both. @len != 0
 * (zlib answers a NULL buffer with its initial value).
 */
static inline u32 mrc_plat_crc32_le(u32 state, const u8 *p, u32 len)
{
	return ~(u32)crc32(~state & 0xffffffffu, p, len);
}

/* A counter shared by the connections of one host (mrc_cc_share.c). */
struct mrc_plat_atomic {
	int v;
};

static inline int mrc_plat_atomic_inc_return(struct mrc_plat_atomic *a)
{
	return __atomic_add_fetch(&a->v, 1, __ATOMIC_RELAXED);
}

static inline void mrc_plat_atomic_dec(struct mrc_plat_atomic *a)
{
	__atomic_sub_fetch(&a->v, 1, __ATOMIC_RELAXED);
}

static inline int mrc_plat_atomic_read(const struct mrc_plat_atomic *a)
{
	return __atomic_load_n(&a->v, __ATOMIC_RELAXED);
}

#endif /* __KERNEL__ */

#define mrc_memcpy(d, s, n) memcpy((d), (s), (n))
#define mrc_memset(d, c, n) memset((d), (c), (n))

#endif /* MRC_PLATFORM_H */
