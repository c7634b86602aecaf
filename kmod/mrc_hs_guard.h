/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_hs_guard.h - what a connect request may cost a namespace before its
 * sender proved it receives at its address: nothing but a stateless answer
 * (a cookie), and answers to unproven sources only at a bounded rate.
 * See mrc_hs_guard.c.
 */
#ifndef MRC_HS_GUARD_H
#define MRC_HS_GUARD_H

#include <linux/in6.h>
#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "core/mrc_wire.h"

/* net.mrc.handshake_answer_rate: default and bounds (answers per second). */
#define MRC_HS_ANSWER_RATE_DEF	10000
#define MRC_HS_ANSWER_RATE_MAX	1000000

/* Cookie answers a connecting socket follows before it gives up on them. */
#define MRC_HS_COOKIE_ECHOES	4

/* Buckets of destination /64 prefixes (a hash of the prefix picks one). */
#define MRC_HS_PREFIX_BUCKETS	64

/**
 * struct mrc_hs_bucket - a token bucket
 * @stamp_ns: when @tokens was last refilled (CLOCK_MONOTONIC; 0: never,
 *	the bucket is full)
 * @tokens: answers it still allows now
 */
struct mrc_hs_bucket {
	u64 stamp_ns;
	u32 tokens;
};

/**
 * struct mrc_hs_guard - a namespace's handshake guard (in struct mrc_net)
 * @key: cookie and bucket-hash key, random per namespace, never changes
 * @lock: protects @all and @prefix (BH-safe: taken in softirq)
 * @all: every answer to an unproven source: @rate per second, bursts of
 *	@rate / 10
 * @prefix: answers to destination /64 prefixes, each bucket @rate / 10
 *	per second, bursts of @rate / 100; a hash of the prefix picks two
 *	and the fuller one pays, so that a flood spoofing one prefix takes
 *	at most a fifth of @all and other clients are still answered
 * @rate: net.mrc.handshake_answer_rate: answers per second to sources that
 *	have not proven they receive (rejects, cookie answers, repeated
 *	accepts); 0 = unlimited. Read with READ_ONCE() (sysctl writes it)
 */
struct mrc_hs_guard {
	siphash_key_t key;
	spinlock_t lock;	/* see above */
	struct mrc_hs_bucket all;
	struct mrc_hs_bucket prefix[MRC_HS_PREFIX_BUCKETS];
	int rate;
};

void mrc_hs_guard_init(struct mrc_hs_guard *g);
bool mrc_hs_answer_allowed(struct mrc_hs_guard *g, const struct in6_addr *to);
void mrc_hs_cookie_make(const struct mrc_hs_guard *g,
			const struct in6_addr *saddr,
			const struct in6_addr *daddr,
			const struct mrc_ep *req, u32 *qpn, u16 *conn);
bool mrc_hs_cookie_ok(const struct mrc_hs_guard *g,
		      const struct in6_addr *saddr,
		      const struct in6_addr *daddr, const struct mrc_ep *req);

/* Does this connect request echo a cookie at all? */
static inline bool mrc_hs_has_cookie(const struct mrc_ep *req)
{
	return req->conn.dst_qpn || req->conn.dst_conn;
}

#endif /* MRC_HS_GUARD_H */
