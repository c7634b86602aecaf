// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_nl_conn.c - the connections of the generic netlink family "mrc": the
 * connection dump (MRC_CMD_CONN_GET), the connection events the datapath
 * sends (mrc_nl_notify_conn(), mrc_nl_notify_paths()) and EV probes of
 * every path to a peer (MRC_CMD_EV_PROBE). The family, its policies and
 * the value checks are mrc_nl.c's; the lock order is in mrc_impl.h.
 *
 * Connection dump
 * ===============
 * MRC_CMD_CONN_GET (dump only). Rules:
 *
 *  - The walk is an RCU walk of mrc_net.qpn_hash: sockets are freed after
 *    a grace period (SOCK_RCU_FREE), so a socket found under
 *    rcu_read_lock() stays valid until rcu_read_unlock() even if it is torn
 *    down meanwhile. Neither mrc_net.conn_lock nor a socket reference is
 *    taken.
 *  - Each connection is copied with its connection lock held
 *    (spin_lock_bh(), bounded work: mrc_conn_get_stats(),
 *    mrc_mem_get_stats(), one mrc_conn_get_plane() per plane and one
 *    mrc_conn_get_ev() per EV); the message is built from the copy after
 *    the lock is dropped. A socket marked dead or without an engine is
 *    skipped.
 *  - The cursor (cb->args) is (bucket, position in bucket, next EV, QPN of
 *    the connection being dumped). A connection added or removed between
 *    two parts of a dump may be missed or, when it moves the position,
 *    repeated; a connection whose EVs span several messages is re-read for
 *    each part (each part is a consistent snapshot, the parts together are
 *    not one).
 *
 * Connection events
 * =================
 * Connection events (MRC_CMD_CONN_UP_NTF, MRC_CMD_CONN_DOWN_NTF,
 * MRC_CMD_PATH_CHANGE_NTF). Sent by the datapath with the connection lock
 * held or from softirq: GFP_ATOMIC, never sleeps; nothing is built unless
 * somebody listens. EV changes are aggregated per engine input (one
 * mrc_conn_drain()): one message with at most MRC_NL_EV_CHANGES of them and
 * the count of the others, so a timeout burst costs one message per timer
 * expiry, not one per EV; and rate-limited per connection to one message
 * per MRC_NL_EV_GAP_NS: the changes of a suppressed input are added to the
 * "lost" count of the next message sent.
 *
 * EV probes
 * =========
 * The request sleeps while its probes are out (mrc_ev_probe_run(); their
 * state and its lock are mrc_ev_probe.c's); parallel_ops lets the family's
 * other requests run meanwhile. The reply is built from the finished run,
 * which belongs to the request alone.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "mrc_impl.h"
#include "mrc_ev_probe.h"
#include "mrc_mem.h"
#include "mrc_net.h"
#include "mrc_nl.h"
#include "mrc_nl_impl.h"
#include "mrc_sock.h"

/* ------------------------------------------------------------------ */
/* Connection dump                                                    */
/* ------------------------------------------------------------------ */

/* MRC_CMD_CONN_GET (dump only): rules at the top of this file. */
#define MRC_NL_CONN_EVS		64	/* EVs per message */
#define MRC_NL_CONN_EV_SIZE						\
	(nla_total_size(0) + 2 * nla_total_size(sizeof(u32)) +		\
	 3 * nla_total_size(sizeof(u8)) +				\
	 6 * nla_total_size_64bit(sizeof(u64)))
#define MRC_NL_CONN_PLANE_SIZE						\
	(nla_total_size(0) + 2 * nla_total_size(sizeof(u8)) +		\
	 4 * nla_total_size(sizeof(u32)) +				\
	 4 * nla_total_size_64bit(sizeof(u64)))
#define MRC_NL_CONN_HDR_SIZE						\
	(nla_total_size(0) + 4 * nla_total_size(sizeof(u32)) +		\
	 2 * nla_total_size(sizeof(struct in6_addr)) +			\
	 4 * nla_total_size(sizeof(u16)) + nla_total_size(sizeof(u8)) +	\
	 6 * nla_total_size_64bit(sizeof(u64)))
/* The memory figures of a dumped connection (mrc_mem_get_stats()). */
#define MRC_NL_CONN_MEM_SIZE						\
	(5 * nla_total_size_64bit(sizeof(u64)) +			\
	 4 * nla_total_size(sizeof(u32)))
#define MRC_NL_CONN_MAX_MSG						\
	(NLMSG_HDRLEN + GENL_HDRLEN + MRC_NL_CONN_HDR_SIZE +		\
	 MRC_NL_CONN_MEM_SIZE + MRC_MAX_PLANES * MRC_NL_CONN_PLANE_SIZE +	\
	 MRC_NL_CONN_EVS * MRC_NL_CONN_EV_SIZE)

/*
 * A connection's addresses, services, QPNs, ids and state: what the dump
 * and the connection events both report of it, in the same attributes.
 */
struct mrc_nl_conn_id {
	struct in6_addr laddr;
	struct in6_addr paddr;
	u32 qpn;
	u32 peer_qpn;
	u16 lport;
	u16 pport;
	u16 lconn;
	u16 pconn;
	u8 state;
};

/**
 * mrc_nl_conn_id_read() - copy what identifies a connection
 * @id: the copy
 * @ms: the connection
 *
 * Context: connection lock held, or maybe not for a connection event
 * (mrc_nl_notify_conn()): the state is read once (READ_ONCE()), the rest
 * was set by the handshake.
 */
static void mrc_nl_conn_id_read(struct mrc_nl_conn_id *id,
				const struct mrc_sock *ms)
{
	id->laddr = ms->saddr;
	memcpy(&id->paddr, ms->peer.smrc_addr, sizeof(id->paddr));
	id->qpn = ms->qpn;
	id->peer_qpn = ms->peer_qpn;
	id->lport = ntohs(ms->local.smrc_port);
	id->pport = ntohs(ms->peer.smrc_port);
	id->lconn = ms->local_conn_id;
	id->pconn = ms->peer_conn_id;
	id->state = READ_ONCE(ms->state);
}

/**
 * mrc_nl_put_conn_id() - the MRC_CONN_ATTR_* that identify a connection
 * @skb: the message, inside its MRC_ATTR_CONN nest
 * @id: the connection
 *
 * Return: 0, or -EMSGSIZE.
 */
static int mrc_nl_put_conn_id(struct sk_buff *skb,
			      const struct mrc_nl_conn_id *id)
{
	if (nla_put_u32(skb, MRC_CONN_ATTR_QPN, id->qpn) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_PEER_QPN, id->peer_qpn) ||
	    nla_put_in6_addr(skb, MRC_CONN_ATTR_LOCAL_ADDR, &id->laddr) ||
	    nla_put_in6_addr(skb, MRC_CONN_ATTR_PEER_ADDR, &id->paddr) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_LOCAL_SERVICE, id->lport) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_SERVICE, id->pport) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_LOCAL_CONN_ID, id->lconn) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_CONN_ID, id->pconn) ||
	    nla_put_u8(skb, MRC_CONN_ATTR_STATE, id->state))
		return -EMSGSIZE;
	return 0;
}

struct mrc_nl_conn_snap {
	struct mrc_nl_conn_id id;
	u8 n_planes;
	u16 n_ev;
	u16 ev_from;		/* first EV of this message */
	struct mrc_conn_stats st;
	struct mrc_mem_stats mem;
	struct mrc_plane_info planes[MRC_MAX_PLANES];
	struct mrc_ev_info evs[MRC_EV_MAX];
};

/* Copy one connection; RCU held. False if it has no engine (any more). */
static bool mrc_nl_conn_snap(struct mrc_sock *ms, struct mrc_nl_conn_snap *s)
{
	bool ok;
	u32 i, n;

	spin_lock_bh(&ms->lock);
	ok = !ms->dead && ms->conn;
	if (ok) {
		mrc_nl_conn_id_read(&s->id, ms);
		mrc_conn_get_stats(ms->conn, &s->st);
		mrc_mem_get_stats(ms, &s->mem);
		for (i = 0; i < MRC_MAX_PLANES; i++)
			if (mrc_conn_get_plane(ms->conn, i, &s->planes[i]))
				break;
		s->n_planes = i;
		n = min_t(u32, mrc_conn_num_evs(ms->conn), MRC_EV_MAX);
		for (i = 0; i < n; i++)
			if (mrc_conn_get_ev(ms->conn, i, &s->evs[i]))
				memset(&s->evs[i], 0, sizeof(s->evs[i]));
		s->n_ev = n;
	}
	spin_unlock_bh(&ms->lock);
	return ok;
}

static int mrc_nl_put_u64(struct sk_buff *skb, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, type, v, pad);
}

static int mrc_nl_fill_conn_ev(struct sk_buff *skb, u32 idx,
			       const struct mrc_ev_info *e)
{
	struct nlattr *nest = nla_nest_start(skb, MRC_CONN_ATTR_EV);
	const int pad = MRC_CONN_EV_ATTR_PAD;

	if (!nest ||
	    nla_put_u32(skb, MRC_CONN_EV_ATTR_INDEX, idx) ||
	    nla_put_u32(skb, MRC_CONN_EV_ATTR_VALUE, e->ev) ||
	    nla_put_u8(skb, MRC_CONN_EV_ATTR_PLANE, e->plane) ||
	    nla_put_u8(skb, MRC_CONN_EV_ATTR_STATE, e->state) ||
	    nla_put_u8(skb, MRC_CONN_EV_ATTR_ACTIVE, !!e->active) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_SENT, e->cnt.sent, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_SACKED, e->cnt.sacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_NACKED, e->cnt.nacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_TIMEOUTS, e->cnt.timeouts, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_ECN, e->cnt.ecn, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_LOSSES, e->cnt.lost, pad))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int mrc_nl_fill_conn_plane(struct sk_buff *skb, u32 id,
				  const struct mrc_plane_info *p)
{
	struct nlattr *nest = nla_nest_start(skb, MRC_CONN_ATTR_PLANE);
	const int pad = MRC_CONN_PLANE_ATTR_PAD;

	if (!nest ||
	    nla_put_u8(skb, MRC_CONN_PLANE_ATTR_ID, id) ||
	    nla_put_u8(skb, MRC_CONN_PLANE_ATTR_UP, !!p->up) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_EVS, p->n_ev) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_ACTIVE, p->n_active) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_GOOD, p->n_good) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_BAD, p->n_bad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_SENT, p->cnt.sent, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_SACKED, p->cnt.sacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_NACKED, p->cnt.nacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_TIMEOUTS, p->cnt.timeouts,
			   pad))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* What the connection pins: struct mrc_info's memory fields. */
static int mrc_nl_fill_conn_mem(struct sk_buff *skb,
				const struct mrc_mem_stats *m)
{
	const int pad = MRC_CONN_ATTR_PAD;

	if (mrc_nl_put_u64(skb, MRC_CONN_ATTR_RMEM_ALLOC, m->rmem_alloc, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_RMEM_UNREAD, m->rmem_unread,
			   pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_WMEM_QUEUED, m->wmem_queued,
			   pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_WMEM_KEPT, m->wmem_kept, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_MEM_CHARGED, m->charged, pad) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_FWD_ALLOC, m->fwd_alloc) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_WMEM_ALLOC, m->wmem_alloc) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_RCVBUF, m->rcvbuf) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_SNDBUF, m->sndbuf))
		return -EMSGSIZE;
	return 0;
}

/* One part of a connection: its attributes and EVs ev_from.. (+ planes). */
static int mrc_nl_fill_conn(struct sk_buff *skb, struct net *net,
			    const void *obj)
{
	const struct mrc_nl_conn_snap *s = obj;
	const int pad = MRC_CONN_ATTR_PAD;
	struct nlattr *nest;
	u32 i, end;

	nest = nla_nest_start(skb, MRC_ATTR_CONN);
	if (!nest || mrc_nl_put_conn_id(skb, &s->id) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_CWND, s->st.cwnd_bytes) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_SRTT_NS, s->st.srtt_ns, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_RETRANSMITS, s->st.tx_rtx_pkts,
			   pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_TIMEOUTS, s->st.timeouts, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_TX_PKTS, s->st.tx_data_pkts, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_TX_BYTES, s->st.tx_data_bytes,
			   pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_EVENTS_DROPPED,
			   s->st.events_dropped, pad) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_N_EVS, s->n_ev) ||
	    mrc_nl_fill_conn_mem(skb, &s->mem))
		return -EMSGSIZE;
	for (i = 0; !s->ev_from && i < s->n_planes; i++)
		if (mrc_nl_fill_conn_plane(skb, i, &s->planes[i]))
			return -EMSGSIZE;
	end = min_t(u32, s->n_ev, s->ev_from + MRC_NL_CONN_EVS);
	for (i = s->ev_from; i < end; i++)
		if (mrc_nl_fill_conn_ev(skb, i, &s->evs[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

int mrc_nl_conn_dump_start(struct netlink_callback *cb)
{
	BUILD_BUG_ON(MRC_NL_CONN_MAX_MSG > U16_MAX);
	cb->min_dump_alloc = MRC_NL_CONN_MAX_MSG;
	return 0;
}

/* RCU: the socket at position @pos of bucket @b, or NULL. */
static struct mrc_sock *mrc_nl_conn_at(struct mrc_net *mn, long b, long pos)
{
	struct mrc_sock *ms;
	long i = 0;

	hlist_for_each_entry_rcu(ms, &mn->qpn_hash[b], qpn_node)
		if (i++ == pos)
			return ms;
	return NULL;
}

int mrc_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = mrc_genl_dump_attrs(genl_dumpit_info(cb));
	struct net *net = sock_net(skb->sk);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_nl_conn_snap *s;
	bool filter = false;
	struct mrc_sock *ms;
	u32 qpn_f = 0;
	bool ok;

	if (attrs && attrs[MRC_ATTR_CONN_QPN]) {
		filter = true;
		qpn_f = nla_get_u32(attrs[MRC_ATTR_CONN_QPN]);
	}
	s = kvmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for (; cb->args[0] < HASH_SIZE(mn->qpn_hash);
	     cb->args[0]++, cb->args[1] = 0) {
		for (;; cb->args[1]++, cb->args[2] = 0) {
			rcu_read_lock();
			ms = mrc_nl_conn_at(mn, cb->args[0], cb->args[1]);
			ok = ms && mrc_nl_conn_snap(ms, s);
			rcu_read_unlock();
			if (!ms)
				break;
			if (!ok || (filter && s->id.qpn != qpn_f))
				continue;
			if (cb->args[3] != s->id.qpn)
				cb->args[2] = 0;
			cb->args[3] = s->id.qpn;
			do {
				s->ev_from = cb->args[2];
				if (mrc_nl_put_msg(skb, NETLINK_CB(cb->skb).portid,
						   cb->nlh->nlmsg_seq, NLM_F_MULTI,
						   MRC_CMD_CONN_GET, NULL,
						   mrc_nl_fill_conn, net, s))
					goto out;
				cb->args[2] += MRC_NL_CONN_EVS;
			} while (cb->args[2] < s->n_ev);
		}
	}
out:
	kvfree(s);
	return skb->len;
}

/* ------------------------------------------------------------------ */
/* Connection events                                                  */
/* ------------------------------------------------------------------ */

/* One event's connection, copied from its socket (rules at the top). */
struct mrc_nl_conn_ntf {
	struct mrc_nl_conn_id id;
	int err;
	u32 lost;
	u32 n;
	const struct mrc_nl_ev_change *ch;
};

static void mrc_nl_conn_ntf_init(struct mrc_nl_conn_ntf *c,
				 const struct mrc_sock *ms)
{
	memset(c, 0, sizeof(*c));
	mrc_nl_conn_id_read(&c->id, ms);
}

static int mrc_nl_fill_conn_ntf(struct sk_buff *skb, struct net *net,
				const void *obj)
{
	const struct mrc_nl_conn_ntf *c = obj;
	struct nlattr *nest, *ev;
	u32 i;

	nest = nla_nest_start(skb, MRC_ATTR_CONN);
	if (!nest || mrc_nl_put_conn_id(skb, &c->id))
		return -EMSGSIZE;
	if (!c->ch && nla_put_u32(skb, MRC_CONN_ATTR_ERROR, c->err))
		return -EMSGSIZE;
	for (i = 0; c->ch && i < c->n; i++) {
		ev = nla_nest_start(skb, MRC_CONN_ATTR_EV);
		if (!ev ||
		    nla_put_u32(skb, MRC_CONN_EV_ATTR_INDEX, c->ch[i].index) ||
		    nla_put_u32(skb, MRC_CONN_EV_ATTR_VALUE, c->ch[i].value) ||
		    nla_put_u8(skb, MRC_CONN_EV_ATTR_PLANE, c->ch[i].plane) ||
		    nla_put_u8(skb, MRC_CONN_EV_ATTR_STATE, c->ch[i].state) ||
		    nla_put_u8(skb, MRC_CONN_EV_ATTR_ACTIVE, c->ch[i].active))
			return -EMSGSIZE;
		nla_nest_end(skb, ev);
	}
	if (c->ch && nla_put_u32(skb, MRC_CONN_ATTR_EV_LOST, c->lost))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

#define MRC_NL_CONN_NTF_SIZE						\
	(MRC_NL_CONN_HDR_SIZE + 2 * nla_total_size(sizeof(u32)) +		\
	 MRC_NL_EV_CHANGES * MRC_NL_CONN_EV_SIZE)

/**
 * mrc_nl_notify_conn() - multicast a connection up/down event
 * @ms: the connection (its handshake fields are set)
 * @up: established (true) or failed/closed (false)
 * @err: positive errno it failed with, 0 when it came up or was closed
 *
 * Context: any (GFP_ATOMIC); connection lock held or not.
 */
void mrc_nl_notify_conn(struct mrc_sock *ms, bool up, int err)
{
	struct net *net = sock_net(&ms->sk);
	struct mrc_nl_conn_ntf c;

	if (!mrc_nl_has_listeners(net))
		return;
	mrc_nl_conn_ntf_init(&c, ms);
	c.err = err;
	mrc_nl_notify(net, up ? MRC_CMD_CONN_UP_NTF : MRC_CMD_CONN_DOWN_NTF,
		      MRC_NL_CONN_NTF_SIZE, mrc_nl_fill_conn_ntf, &c,
		      GFP_ATOMIC);
}

/**
 * mrc_nl_notify_paths() - multicast the EV state changes of one engine input
 * @ms: the connection
 * @ch: the changes, oldest first
 * @n: how many (at most MRC_NL_EV_CHANGES)
 * @lost: further changes of the same input that did not fit
 *
 * Context: connection lock held, any context (GFP_ATOMIC).
 */
void mrc_nl_notify_paths(struct mrc_sock *ms,
			 const struct mrc_nl_ev_change *ch, u32 n, u32 lost)
{
	struct net *net = sock_net(&ms->sk);
	struct mrc_nl_conn_ntf c;
	u64 now;

	if (!mrc_nl_has_listeners(net))
		return;
	now = mrc_now();
	if (now < ms->nl_ev_next) {
		ms->nl_ev_lost += n + lost;
		return;
	}
	ms->nl_ev_next = now + MRC_NL_EV_GAP_NS;
	mrc_nl_conn_ntf_init(&c, ms);
	c.ch = ch;
	c.n = min_t(u32, n, MRC_NL_EV_CHANGES);
	c.lost = lost + (n - c.n) + ms->nl_ev_lost;
	ms->nl_ev_lost = 0;
	mrc_nl_notify(net, MRC_CMD_PATH_CHANGE_NTF, MRC_NL_CONN_NTF_SIZE,
		      mrc_nl_fill_conn_ntf, &c, GFP_ATOMIC);
}

/* ------------------------------------------------------------------ */
/* EV probes                                                          */
/* ------------------------------------------------------------------ */

/* Reply bytes of one probe's result (nest, plane, path, ev, rtt, error). */
#define MRC_NL_PROBE_RESULT_SIZE					\
	(nla_total_size(0) + 4 * nla_total_size(sizeof(u32)) +		\
	 nla_total_size_64bit(sizeof(u64)))

static int mrc_nl_fill_probe(struct sk_buff *skb, struct net *net,
			     const void *obj)
{
	const struct mrc_ev_probe_run *run = obj;
	const struct mrc_ev_probe_slot *sl;
	struct nlattr *nest;
	u32 i;

	if (nla_put_in6_addr(skb, MRC_ATTR_PROBE_PEER, &run->peer))
		return -EMSGSIZE;
	for (i = 0; i < run->n; i++) {
		sl = &run->slot[i];
		nest = nla_nest_start(skb, MRC_ATTR_PROBE_RESULT);
		if (!nest ||
		    (sl->plane != MRC_EV_PROBE_NO_PLANE &&
		     nla_put_u32(skb, MRC_PROBE_ATTR_PLANE, sl->plane)) ||
		    (sl->path != MRC_EV_PROBE_NO_PATH &&
		     nla_put_u32(skb, MRC_PROBE_ATTR_PATH, sl->path)) ||
		    nla_put_u32(skb, MRC_PROBE_ATTR_EV, sl->ev) ||
		    (sl->answered &&
		     nla_put_u64_64bit(skb, MRC_PROBE_ATTR_RTT_NS, sl->rtt_ns,
				       MRC_PROBE_ATTR_PAD)) ||
		    (sl->err && nla_put_u32(skb, MRC_PROBE_ATTR_ERROR, -sl->err)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/*
 * MRC_CMD_EV_PROBE: probes out, then the reply once they are answered or
 * the timeout passed (the request sleeps; parallel_ops lets the family's
 * other requests run meanwhile).
 */
int mrc_nl_ev_probe(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_ev_probe_run *run;
	struct nlattr **tb = info->attrs;
	u32 evs = MRC_PROBE_EVS_DEF, timeout = MRC_PROBE_TIMEOUT_MS_DEF;
	struct in6_addr peer;
	int err;

	if (MRC_NL_MISSING(info, MRC_ATTR_PROBE_PEER, "missing probe peer"))
		return mrc_nl_reject(info, -EINVAL);
	peer = nla_get_in6_addr(tb[MRC_ATTR_PROBE_PEER]);
	if (!mrc_nl_addr_unicast(&peer)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_ATTR_PROBE_PEER],
				    "probe-peer must be a unicast address");
		return mrc_nl_reject(info, -EINVAL);
	}
	if (tb[MRC_ATTR_PROBE_EVS])
		evs = nla_get_u32(tb[MRC_ATTR_PROBE_EVS]);
	if (tb[MRC_ATTR_PROBE_TIMEOUT_MS])
		timeout = nla_get_u32(tb[MRC_ATTR_PROBE_TIMEOUT_MS]);
	run = mrc_ev_probe_run(net, &peer, evs, timeout, info->extack);
	if (IS_ERR(run))
		return mrc_nl_reject(info, PTR_ERR(run));
	err = mrc_nl_reply(info, nla_total_size(sizeof(peer)) +
			   run->n * MRC_NL_PROBE_RESULT_SIZE,
			   mrc_nl_fill_probe, run);
	kfree(run);
	return err;
}
