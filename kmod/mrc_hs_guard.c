// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_hs_guard.c - connect requests that cost nothing until the client
 * proved it is reachable, and answers to unproven sources at a bounded rate.
 *
 * A connect request without a cookie gets a stateless answer (status
 * MRC_EP_ST_RETRY) carrying a 40-bit cookie in src_qpn (24 bits) and
 * src_conn (16 bits); the client sends its request again with the cookie in
 * dst_qpn and dst_conn, and only a request whose cookie verifies creates a
 * child socket. As TCP's SYN cookies, the cookie is a keyed hash (SipHash,
 * a random key per namespace) of everything the request says and of both
 * addresses, so a spoofed source never sees it and a flood of requests
 * allocates nothing. Its top 4 bits are a time slot (64 s): a cookie is
 * good in its slot and the next one, 64 to 128 s, longer than the client's
 * whole connect schedule (mrc_timer_fn(): 8 tries in about 6 s).
 *
 * Every answer to a source that has not proven it receives (a reject, a
 * cookie answer, a repeated accept) takes a token from the namespace's
 * bucket (net.mrc.handshake_answer_rate per second, bursts of a tenth of
 * that) and one from a bucket of its destination's /64 prefix (each a
 * tenth of the rate, bursts of a hundredth; of the prefix's two, the
 * fuller). A flood of spoofed requests therefore makes the host send at
 * most the rate in packets per second, and a fifth of it towards any one
 * prefix; a flood spoofing one prefix leaves four fifths of the answers to
 * everybody else. A legitimate client
 * whose answer was not sent retransmits its request (100 ms, doubling). A
 * flood spoofing sources across many prefixes can still take the whole
 * rate: it delays other clients' connects (until a retransmission is
 * answered), it cannot make them allocate anything.
 */
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "mrc_hs_guard.h"

#define MRC_HS_SLOT_SHIFT	6	/* seconds per cookie slot: 64 */
#define MRC_HS_SLOT_MASK	0xfu	/* slot bits carried in the cookie */
#define MRC_HS_MAC_BITS		36

/**
 * mrc_hs_guard_init() - a namespace's guard: fresh key, full buckets
 * @g: the guard
 */
void mrc_hs_guard_init(struct mrc_hs_guard *g)
{
	memset(g, 0, sizeof(*g));
	get_random_bytes(&g->key, sizeof(g->key));
	spin_lock_init(&g->lock);
	g->rate = MRC_HS_ANSWER_RATE_DEF;
}

/* Refill @b for @rate per second up to @burst at @now. @g->lock held. */
static void mrc_hs_refill(struct mrc_hs_bucket *b, u32 rate, u32 burst,
			  u64 now)
{
	u64 add;

	if (!b->stamp_ns || now - b->stamp_ns >= NSEC_PER_SEC) {
		b->tokens = burst;
		b->stamp_ns = now;
		return;
	}
	add = div_u64((now - b->stamp_ns) * rate, NSEC_PER_SEC);
	if (add) {
		b->tokens = min_t(u64, (u64)b->tokens + add, burst);
		/* Keep the remainder: 999 ns at 1/us is not lost. */
		b->stamp_ns += div_u64(add * NSEC_PER_SEC, rate);
	}
	if (b->tokens > burst)
		b->tokens = burst;	/* the rate was lowered */
}

/**
 * mrc_hs_answer_allowed() - may the namespace answer one more unproven
 * source now?
 * @g: the guard
 * @to: where the answer goes (the request's source)
 *
 * Both the namespace's bucket and that of @to's /64 must allow it.
 *
 * Context: any (softirq: the receive path); takes @g->lock.
 * Return: true if a token was taken from both (or the rate is unlimited).
 */
bool mrc_hs_answer_allowed(struct mrc_hs_guard *g, const struct in6_addr *to)
{
	u32 rate = READ_ONCE(g->rate);
	u32 prate = max(rate / 10, 1u), pburst = max(rate / 100, 1u);
	struct mrc_hs_bucket *p, *q;
	u64 now, h;
	bool ok;

	if (!rate)
		return true;
	/*
	 * Two buckets per prefix, the fuller one pays: a client's prefix
	 * shares both with a flooded one with odds of 2 in 64^2, not 1 in 64.
	 */
	h = siphash(to->s6_addr, 8, &g->key);
	p = &g->prefix[(u32)h % MRC_HS_PREFIX_BUCKETS];
	q = &g->prefix[(u32)(h >> 32) % MRC_HS_PREFIX_BUCKETS];
	spin_lock_bh(&g->lock);
	now = ktime_get_ns();
	mrc_hs_refill(&g->all, rate, max(rate / 10, 1u), now);
	mrc_hs_refill(p, prate, pburst, now);
	mrc_hs_refill(q, prate, pburst, now);
	if (q->tokens > p->tokens)
		p = q;
	ok = g->all.tokens && p->tokens;
	if (ok) {
		g->all.tokens--;
		p->tokens--;
	}
	spin_unlock_bh(&g->lock);
	return ok;
}

/* The keyed hash of a request in time slot @slot (4 bits). */
static u64 mrc_hs_mac(const struct mrc_hs_guard *g,
		      const struct in6_addr *saddr,
		      const struct in6_addr *daddr, const struct mrc_ep *req,
		      u32 slot)
{
	const struct mrc_ep_conn *c = &req->conn;
	struct {
		struct in6_addr saddr, daddr;
		u32 src_qpn, init_psn, max_msg_len, slot;
		u16 src_conn, src_service, dst_service, token;
	} in;

	/* No padding in the layout above; zeroed all the same. */
	memset(&in, 0, sizeof(in));
	in.saddr = *saddr;
	in.daddr = *daddr;
	in.src_qpn = c->src_qpn;
	in.init_psn = c->init_psn;
	in.max_msg_len = c->max_msg_len;
	in.slot = slot;
	in.src_conn = c->src_conn;
	in.src_service = c->src_service;
	in.dst_service = c->dst_service;
	in.token = req->token;
	return siphash(&in, sizeof(in), &g->key);
}

static u32 mrc_hs_slot_now(void)
{
	return (u32)(ktime_get_seconds() >> MRC_HS_SLOT_SHIFT) &
	       MRC_HS_SLOT_MASK;
}

/* Cookie of a request in @slot: slot in bits 39-36, the MAC below. */
static u64 mrc_hs_cookie(const struct mrc_hs_guard *g,
			 const struct in6_addr *saddr,
			 const struct in6_addr *daddr, const struct mrc_ep *req,
			 u32 slot)
{
	u64 mac = mrc_hs_mac(g, saddr, daddr, req, slot) &
		  (BIT_ULL(MRC_HS_MAC_BITS) - 1);

	/* Bit 0 set: a cookie is never all zero (that means "none"). */
	return (u64)slot << MRC_HS_MAC_BITS | mac | 1;
}

/**
 * mrc_hs_cookie_make() - the cookie a request gets in its RETRY answer
 * @g: the guard
 * @saddr: the request's source (the client)
 * @daddr: its destination (us)
 * @req: the request
 * @qpn: set to the cookie's top 24 bits (the answer's src_qpn)
 * @conn: set to its low 16 bits (the answer's src_conn)
 */
void mrc_hs_cookie_make(const struct mrc_hs_guard *g,
			const struct in6_addr *saddr,
			const struct in6_addr *daddr,
			const struct mrc_ep *req, u32 *qpn, u16 *conn)
{
	u64 ck = mrc_hs_cookie(g, saddr, daddr, req, mrc_hs_slot_now());

	*qpn = (u32)(ck >> 16) & MRC_QPN_MASK;
	*conn = (u16)ck;
}

/**
 * mrc_hs_cookie_ok() - does a request echo a cookie we made for it, in
 * this time slot or the previous one?
 * @g: the guard
 * @saddr: the request's source
 * @daddr: its destination
 * @req: the request (dst_qpn, dst_conn: the echoed cookie)
 *
 * Return: true if it does (false when it echoes none).
 */
bool mrc_hs_cookie_ok(const struct mrc_hs_guard *g,
		      const struct in6_addr *saddr,
		      const struct in6_addr *daddr, const struct mrc_ep *req)
{
	u64 got = (u64)req->conn.dst_qpn << 16 | req->conn.dst_conn;
	u32 slot = (u32)(got >> MRC_HS_MAC_BITS);
	u32 now = mrc_hs_slot_now();

	if (!mrc_hs_has_cookie(req))
		return false;
	if (slot != now && slot != ((now - 1) & MRC_HS_SLOT_MASK))
		return false;
	return mrc_hs_cookie(g, saddr, daddr, req, slot) == got;
}
