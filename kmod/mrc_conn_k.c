// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_conn_k.c - connections: the protocol engine wrapped in a socket.
 *
 * One AF_MRC socket is one connection. Between the socket calls
 * (mrc_sock.c) and the wire (mrc_input.c, mrc_output.c), this file owns:
 *
 *  - the packets the handshake (mrc_handshake.c) sends: connect and close
 *    requests;
 *  - the host side of the engine contract: every engine call under the
 *    connection lock, then poll_tx and poll_event drained, then the one
 *    hrtimer of the connection re-armed at mrc_conn_next_deadline(), or
 *    earlier for a deadline of the socket's own (mrc_timer_deadline());
 *  - message memory: send buffers completed by MRC_EVT_MSG_COMPLETED,
 *    received messages queued for recvmsg() by MRC_EVT_MSG_DELIVERED
 *    (their buffers are placed by mrc_conn_rx.c);
 *  - teardown.
 *
 * Next to it: the QPN hash the connections are found by (mrc_lookup.c),
 * the connection timer, its deadline and its expiry (mrc_timer.c),
 * connections no application holds (mrc_linger.c) and the planes this
 * host's queues closed (mrc_room.c).
 */
#include <linux/hrtimer.h>
#include <linux/ipv6.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/inet_ecn.h>
#include <net/ipv6.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_conn_rx.h"
#include "mrc_linger.h"
#include "mrc_lookup.h"
#include "mrc_mem.h"
#include "mrc_msg.h"
#include "mrc_net.h"
#include "mrc_nl.h"
#include "mrc_output.h"
#include "mrc_path.h"
#include "mrc_port_status.h"
#include "mrc_profile.h"
#include "mrc_sock.h"
#include "mrc_telemetry.h"
#include "mrc_timer.h"
#include "mrc_tsq.h"

/* Engine events the kernel host consumes; the rest stay masked. */
#define MRC_K_EVENTS	((1u << MRC_EVT_MSG_COMPLETED) | \
			 (1u << MRC_EVT_MSG_DELIVERED) | \
			 (1u << MRC_EVT_CONN_ERROR))
#define MRC_K_MSGS	256	/* tx_max_msgs and rx_max_msgs */
#define MRC_K_MPR	512	/* receive window in PSNs (< netdev backlog) */
#define MRC_K_RTO_EXP	14	/* base RTO 1.024 us << 14 = 16.8 ms */
/* Timeouts without progress before failing: 16 per PSN of the window. */
#define MRC_K_RETRY	(16 * MRC_K_MPR)
#define MRC_K_MTU_CAP	8192	/* payload per packet, loopback included */
/*
 * Informational event queue: one timer expiry can time out a whole window
 * (MPR packets) and demote EVs on top; a drain empties the queue after
 * every engine input, so twice the window never drops a telemetry event.
 */
#define MRC_K_EVQ	(2 * MRC_K_MPR)

/* The identifiers every mrc:* tracepoint carries for this connection. */
void mrc_conn_ids(const struct mrc_sock *ms, struct mrc_trace_ids *ids)
{
	ids->netns = sock_net(&ms->sk)->ns.inum;
	ids->qpn = ms->qpn;
	ids->conn = ms->local_conn_id;
}

/* The connection came up, failed (@err > 0) or was torn down (@err 0). */
static void mrc_conn_updown(struct mrc_sock *ms, bool up, int err)
{
	struct mrc_trace_ids ids;

	mrc_conn_ids(ms, &ids);
	mrc_tel_conn(&ids, up, err);
	mrc_nl_notify_conn(ms, up, err);
}

/* Collect an EV state change for the netlink path-change event. */
static void mrc_conn_ev_change(const struct mrc_event *ev,
			       struct mrc_nl_ev_change *ch, u32 *n, u32 *lost)
{
	if (ev->type != MRC_EVT_EV_STATE ||
	    ev->u.ev.old_state == ev->u.ev.new_state)
		return;
	if (*n >= MRC_NL_EV_CHANGES) {
		(*lost)++;
		return;
	}
	ch[*n].index = ev->u.ev.index;
	ch[*n].value = ev->u.ev.ev;
	ch[*n].plane = ev->u.ev.plane;
	ch[*n].state = ev->u.ev.new_state;
	ch[*n].active = ev->u.ev.active;
	(*n)++;
}

/**
 * mrc_conn_wake() - the socket's state changed: wake every waiter and poller
 * @sk: the socket (may have no struct socket: a child not yet accepted)
 * @band: POLL_IN, POLL_OUT... for an O_ASYNC owner's SIGIO, or 0 for none
 *
 * Through the standard callback (sk_state_change), so that a kernel user
 * or a BPF program that replaced it sees the change too. Data and room
 * use sk_data_ready and mrc_sock_write_space() (mrc_conn_drain()):
 * sk_write_space is called for every packet freed (mrc_tsq.c).
 */
void mrc_conn_wake(struct sock *sk, int band)
{
	sk->sk_state_change(sk);
	if (band)
		sk_wake_async(sk, SOCK_WAKE_IO, band);
}

/**
 * mrc_mtu_for() - payload bytes per data packet on a path
 * @path_mtu: the largest IPv6 packet (header included) the path carries,
 *	outside any encapsulation
 *
 * Return: a multiple of 4, at least MRC_MTU_MIN, at most MRC_K_MTU_CAP.
 */
u32 mrc_mtu_for(u32 path_mtu)
{
	u32 over = sizeof(struct ipv6hdr) + sizeof(struct udphdr) +
		   MRC_DATA_HDR_MAX + MRC_ICRC_LEN + 3;
	u32 mtu = path_mtu > over + MRC_MTU_MIN ? path_mtu - over : MRC_MTU_MIN;

	mtu = min_t(u32, mtu, MRC_K_MTU_CAP);
	return mtu & ~3u;
}

/* Route to the peer: source address and MTU of the connection. */
int mrc_conn_route(struct net *net, struct mrc_sock *ms)
{
	struct dst_entry *dst;
	struct flowi6 fl6;
	int err;

	ms->route_mark = READ_ONCE(ms->sk.sk_mark);
	if (ms->mp) {
		/* Configured route: the planes' devices, not the peer's route. */
		if (ipv6_addr_any(&ms->saddr) &&
		    ipv6_dev_get_saddr(net, NULL,
				       (struct in6_addr *)ms->peer.smrc_addr,
				       0, &ms->saddr))
			return -EADDRNOTAVAIL;
		ms->mtu = mrc_mtu_for(ms->mp->mtu);
		return 0;
	}
	err = mrc_route(net, ms, NULL, &fl6, &dst);
	if (err)
		return err;
	ms->saddr = fl6.saddr;
	ms->mtu = mrc_mtu_for(dst_mtu(dst));
	dst_release(dst);
	return 0;
}

/**
 * mrc_conn_read_tclass() - the traffic classes of the socket's EV profile,
 * for the handshake packets it sends before its engine is set up (connect,
 * listen); socket lock held, nothing sent yet
 * @ms: the socket
 */
void mrc_conn_read_tclass(struct mrc_sock *ms)
{
	struct mrc_conn_profiles pr;

	sock_owned_by_me(&ms->sk);
	mrc_profile_read(ms, &pr);
	mrc_profile_tclass(ms, &pr.ev);
}

/**
 * mrc_conn_sock_init() - the datapath fields of a new socket
 * @ms: the socket
 */
void mrc_conn_sock_init(struct mrc_sock *ms)
{
	spin_lock_init(&ms->lock);
	mrc_timer_init(ms);
	INIT_LIST_HEAD(&ms->rxq);
	INIT_LIST_HEAD(&ms->tx_page_cache);
	INIT_LIST_HEAD(&ms->accept_q);
	INIT_LIST_HEAD(&ms->accept_node);
	WRITE_ONCE(ms->state, MRC_ST_CLOSED);
	ms->tclass_data = (MRC_DSCP_DATA_DEFAULT << 2) | INET_ECN_ECT_0;
	ms->tclass_ctl = MRC_DSCP_CTL_DEFAULT << 2;
	mrc_tsq_init(ms);
}

/*
 * The message tables and the flowcell descriptors mrc_conn_build()
 * allocated: freed on a failed build, an unbuild and a teardown alike.
 */
static void mrc_conn_free_arrays(struct mrc_sock *ms)
{
	kvfree(ms->txm);
	kvfree(ms->rxm);
	kvfree(ms->txd);
	ms->txm = NULL;
	ms->rxm = NULL;
	ms->txd = NULL;
}

/**
 * mrc_conn_build() - allocate the engine of a connection whose handshake
 * fields are all known, and its host-side arrays
 * @ms: the socket: connection lock held, or no engine yet and nothing
 *	else writing its handshake fields (a child before its start work
 *	installs the engine: ms->conn stays NULL until then, which every
 *	path that would use the arrays checks under the lock)
 * @may_sleep: process context, no spinlock held: GFP_KERNEL and
 *	kvmalloc() (no high-order atomic allocation that fragmentation can
 *	fail); false: GFP_ATOMIC
 * @connp: the engine, for mrc_conn_install()
 *
 * On failure nothing stays allocated but the route cache (freed with the
 * socket).
 *
 * Return: 0 or -ENOMEM / -EINVAL.
 */
int mrc_conn_build(struct mrc_sock *ms, bool may_sleep,
		   struct mrc_conn **connp)
{
	gfp_t gfp = may_sleep ? GFP_KERNEL : GFP_ATOMIC | __GFP_NOWARN;
	struct mrc_conn_profiles pr;
	struct mrc_conn_cfg cfg;
	u32 evs;
	int rc;

	if (may_sleep)
		might_sleep();

	mrc_profile_read(ms, &pr);
	evs = pr.ev_count;

	mrc_conn_cfg_init(&cfg, 1);
	cfg.ev_per_plane = evs;
	cfg.ev_active_per_plane = evs * 3 / 4;
	cfg.ev_min_active = max_t(u32, cfg.ev_active_per_plane / 8, 2);
	cfg.local_conn_id = ms->local_conn_id;
	cfg.peer_conn_id = ms->peer_conn_id;
	cfg.peer_qpn = ms->peer_qpn;
	cfg.local_init_psn = ms->local_init_psn;
	cfg.peer_init_psn = ms->peer_init_psn;
	cfg.mtu = ms->mtu;
	cfg.mpr = MRC_K_MPR;
	cfg.tx_max_msgs = MRC_K_MSGS;
	cfg.rx_max_msgs = MRC_K_MSGS;
	cfg.rx_max_msg_len = MRC_MSG_MAX;
	cfg.rto_exp = MRC_K_RTO_EXP;
	cfg.retry_budget = MRC_K_RETRY;
	cfg.progress_timeout_ns = (u64)READ_ONCE(mrc_net(sock_net(&ms->sk))->progress_timeout_ms) *
				  NSEC_PER_MSEC;
	cfg.failover = READ_ONCE(mrc_net(sock_net(&ms->sk))->failover);
	cfg.seed = get_random_u64();
	cfg.event_mask = MRC_K_EVENTS | MRC_TEL_EVENTS;
	cfg.event_queue_len = MRC_K_EVQ;
	cfg.alloc_may_sleep = may_sleep;
	/* Configured route: its planes share the EVs. */
	mrc_mp_engine_cfg(ms->mp, &cfg, evs);
	/* The EV and congestion-control profiles (MRC_PROFILE). */
	mrc_profile_apply(ms, &pr, &cfg);

	ms->txm = kvcalloc(MRC_K_MSGS, sizeof(*ms->txm), gfp);
	ms->rxm = kvcalloc(MRC_K_MSGS, sizeof(*ms->rxm), gfp);
	if (!ms->txm || !ms->rxm)
		goto nomem;
	/* No room for flowcells: per-packet spraying still works. */
	if (ms->tx_burst > 1)
		ms->txd = kvmalloc_array(ms->tx_burst, sizeof(*ms->txd),
					 gfp | __GFP_NOWARN);
	if (!ms->txd)
		ms->tx_burst = 1;
	ms->tx_cap = MRC_K_MSGS;
	ms->rx_cap = MRC_K_MSGS;
	if (!ms->dst_ok) {
		if (dst_cache_init(&ms->dst_cache, gfp))
			goto nomem;
		ms->dst_ok = true;
	}
	rc = mrc_conn_create(&cfg, mrc_now(), connp);
	if (rc == MRC_E_NOMEM)
		goto nomem;
	if (rc) {
		rc = -EINVAL;
		goto free;
	}
	return 0;
nomem:
	rc = -ENOMEM;
free:
	mrc_conn_free_arrays(ms);
	return rc;
}

/**
 * mrc_conn_install() - the connection is established: its engine runs
 * from now on; connection lock held
 * @ms: the socket
 * @conn: from mrc_conn_build()
 * @now: mrc_now()
 *
 * A plane that went down or up since the engine was configured (the
 * build may have slept) is applied now.
 */
void mrc_conn_install(struct mrc_sock *ms, struct mrc_conn *conn, u64 now)
{
	u32 i;

	lockdep_assert_held(&ms->lock);
	ms->conn = conn;
	/* A new connection's reader is presumed to read (mrc_rcvbuf_grow()). */
	ms->rx_read_ns = now;
	WRITE_ONCE(ms->state, MRC_ST_ESTABLISHED);
	for (i = 0; ms->mp && i < ms->mp->nplanes; i++)
		mrc_mp_plane_apply(ms, i, now);
	mrc_conn_updown(ms, true, 0);
}

/* Undo mrc_conn_build() of an engine never installed. */
static void mrc_conn_unbuild(struct mrc_sock *ms, struct mrc_conn *conn)
{
	mrc_conn_destroy(conn);
	mrc_conn_free_arrays(ms);
}

/**
 * mrc_conn_start_client() - the connect response named the peer (its QPN,
 * connection id, first PSN in the socket): the engine connect() built
 * gets them and runs (softirq); connection lock held
 * @ms: the socket
 * @now: mrc_now()
 *
 * Nothing is allocated here: connect() built the engine and its arrays
 * where it could sleep (GFP_KERNEL, kvmalloc()), as a listener's child
 * start work does, so no answer, genuine or forged, makes this softirq
 * ask for high-order atomic memory.
 *
 * Return: 0 or -EINVAL (no engine, or the peer's values out of range).
 */
int mrc_conn_start_client(struct mrc_sock *ms, u64 now)
{
	struct mrc_conn *conn = ms->conn_pending;

	lockdep_assert_held(&ms->lock);
	if (!conn || mrc_conn_set_peer(conn, ms->peer_qpn, ms->peer_conn_id,
				       ms->peer_init_psn))
		return -EINVAL;
	ms->conn_pending = NULL;
	mrc_conn_install(ms, conn, now);
	return 0;
}

/**
 * mrc_sk_fail() - the connection failed; connection lock held
 * @ms: the socket
 * @err: positive errno for the application (ETIMEDOUT, ECONNRESET, ...)
 */
void mrc_sk_fail(struct mrc_sock *ms, int err)
{
	struct sock *sk = &ms->sk;

	lockdep_assert_held(&ms->lock);
	if (ms->state == MRC_ST_FAILED)
		return;
	if (ms->state == MRC_ST_ESTABLISHED) {
		mrc_net_count(mrc_net(sock_net(sk)), MRC_CNT_CONN_FAILED);
		mrc_conn_updown(ms, false, err);
	}
	WRITE_ONCE(ms->state, MRC_ST_FAILED);
	WRITE_ONCE(sk->sk_err, err);
	sk_error_report(sk);
	mrc_conn_wake(sk, 0);
}

void mrc_fill_ep(struct mrc_sock *ms, u8 kind, struct mrc_ep *ep)
{
	memset(ep, 0, sizeof(*ep));
	ep->kind = kind;
	ep->token = ms->token;
	ep->conn.dst_service = ntohs(ms->peer.smrc_port);
	ep->conn.src_service = ntohs(ms->local.smrc_port);
	ep->conn.src_qpn = ms->qpn;
	ep->conn.src_conn = ms->local_conn_id;
	ep->conn.init_psn = ms->local_init_psn;
	ep->conn.max_msg_len = MRC_MSG_MAX;
	if (kind == MRC_EP_CLOSE || ms->state == MRC_ST_ESTABLISHED) {
		ep->conn.dst_qpn = ms->peer_qpn;
		ep->conn.dst_conn = ms->peer_conn_id;
	} else if (ms->state == MRC_ST_CONNECTING) {
		/* The server's cookie, once a RETRY answer gave us one. */
		ep->conn.dst_qpn = ms->hs_cookie_qpn;
		ep->conn.dst_conn = ms->hs_cookie_conn;
	}
	/* Close: OK = no more sends (SHUT_WR), RESET = the socket is gone. */
	if (kind == MRC_EP_CLOSE && ms->released)
		ep->conn.status = ms->abort ? MRC_EP_ST_ABORT : MRC_EP_ST_RESET;
}

/* One skb per packet of a burst (per-packet spraying, or no memory). */
static u32 mrc_conn_build_each(struct mrc_sock *ms,
			       const struct mrc_tx_desc *d, u32 n,
			       const struct mrc_msgbuf *mb,
			       struct sk_buff_head *q)
{
	struct sk_buff *skb;
	u32 i, built = 0;

	for (i = 0; i < n; i++) {
		skb = mrc_build_pkt(ms, &d[i].pkt, d[i].ev, mb, d[i].msg_offset);
		if (skb) {
			built += skb->truesize;
			__skb_queue_tail(q, skb);
		}
	}
	return built;
}

/*
 * Build every packet the engine has to send now into @q; lock held. A
 * flowcell (mrc_conn_poll_tx_burst()) becomes one UDP GSO skb, of at most
 * net.mrc.tx_burst_autosize_us of one plane's share of the connection's
 * rate (mrc_conn_burst_autosize()). The pass stops taking data once the
 * connection's bytes in this host's queues reach the namespace's limit
 * (mrc_tsq.c).
 */
static void mrc_conn_drain_tx(struct mrc_sock *ms, u64 now,
			      struct sk_buff_head *q)
{
	struct mrc_conn *conn = ms->conn;
	struct mrc_trace_ids ids;
	struct mrc_tx_desc one, *d;
	struct mrc_msgbuf *mb;
	struct sk_buff *skb;
	u32 max, i, built = 0;
	int n, autosize;

	lockdep_assert_held(&ms->lock);
	/* tx_burst is 1 whenever there is no txd (mrc_conn_build()). */
	d = ms->txd ?: &one;
	autosize = READ_ONCE(mrc_net(sock_net(&ms->sk))->tx_burst_autosize_us);
	max = mrc_conn_burst_autosize(conn, ms->tx_burst,
				      ms->mtu + MRC_DATA_HDR_MAX,
				      (u64)autosize * NSEC_PER_USEC);
	mrc_conn_ids(ms, &ids);
	mrc_tsq_reopen(ms);
	while ((n = mrc_conn_poll_tx_burst(conn, now, d, max)) > 0) {
		for (i = 0; i < n; i++)
			mrc_tel_tx(&ids, &d[i]);
		mb = NULL;
		if (d->kind == MRC_TX_DATA) {
			mb = (struct mrc_msgbuf *)(uintptr_t)d->cookie;
			if (!mb)
				continue;
		}
		skb = n > 1 ? mrc_build_burst(ms, d, n, mb) : NULL;
		if (skb) {
			built += skb->truesize;
			__skb_queue_tail(q, skb);
			/* Cut by autosizing, not by its message or window. */
			if (n == max && max < ms->tx_burst)
				mrc_net_count(mrc_net(sock_net(&ms->sk)),
					      MRC_CNT_TX_FLOWCELLS_AUTOSIZED);
		} else {
			built += mrc_conn_build_each(ms, d, n, mb, q);
		}
		mrc_tsq_check(ms, built);
	}
}

/**
 * mrc_conn_close_due() - queue the close request the socket owes its peer,
 * if any, once every message sent is acknowledged; connection lock held
 * @ms: the socket
 * @q: where the skb goes
 *
 * The SACKs the engine still holds back (coalescing) are queued first, in
 * the same batch: a peer that sees our CLOSE(RESET) before the SACK of its
 * last messages would fail the connection although they were delivered.
 */
void mrc_conn_close_due(struct mrc_sock *ms, struct sk_buff_head *q)
{
	u8 want = ms->released ? 2 : ms->shut_wr ? 1 : 0;

	lockdep_assert_held(&ms->lock);
	/* An abort (SO_LINGER 0) does not wait for acknowledgements. */
	if (ms->state != MRC_ST_ESTABLISHED || ms->dead ||
	    (ms->tx_pending && !ms->abort) || want <= ms->close_sent)
		return;
	if (ms->conn) {
		mrc_conn_flush_acks(ms->conn);
		mrc_conn_drain_tx(ms, mrc_now(), q);
	}
	ms->close_sent = want;
	mrc_conn_send_req(ms, MRC_EP_CLOSE, q);
}

/**
 * mrc_conn_send_req() - queue a connect or close request; connection lock
 * held
 * @ms: the socket
 * @kind: MRC_EP_CONNECT or MRC_EP_CLOSE
 * @q: where the skb goes (sent by the caller after unlocking)
 */
void mrc_conn_send_req(struct mrc_sock *ms, u8 kind, struct sk_buff_head *q)
{
	struct mrc_pkt pkt;
	struct sk_buff *skb;

	mrc_pkt_init(&pkt, MRC_OP_EP_REQ, MRC_QPN_EP);
	mrc_fill_ep(ms, kind, &pkt.ep);
	pkt.ep.ftype = MRC_TS_FTYPE;	/* an ERTH's timestamp format */
	skb = mrc_build_pkt(ms, &pkt, mrc_ep_udp_sport(pkt.ep.token), NULL, 0);
	if (skb)
		__skb_queue_tail(q, skb);
}

static void mrc_free_msgs(struct mrc_sock *ms)
{
	struct sock *sk = &ms->sk;
	struct mrc_msgbuf *mb, *tmp;
	u32 i;

	for (i = 0; ms->txm && i < ms->tx_cap; i++) {
		mb = ms->txm[i];
		if (!mb)
			continue;
		WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued - mb->charge);
		mrc_mem_uncharge(ms, mb->mem);
		mrc_mb_free(mb);
		ms->txm[i] = NULL;
	}
	WRITE_ONCE(ms->tx_pending, 0);
	mrc_mem_tx_pages_drain(ms);
	mrc_mem_tx_frags_drain(ms);
	for (i = 0; ms->rxm && i < ms->rx_cap; i++) {
		if (ms->rxm[i])
			mrc_mem_uncharge(ms, ms->rxm[i]->mem);
		mrc_mb_free(ms->rxm[i]);
		ms->rxm[i] = NULL;
	}
	ms->rx_inprog = 0;
	list_for_each_entry_safe(mb, tmp, &ms->rxq, node) {
		list_del(&mb->node);
		mrc_mem_uncharge(ms, mb->mem);
		mrc_mb_free(mb);
	}
	ms->rxq_len = 0;
	ms->rx_queued = 0;
}

/**
 * mrc_conn_teardown() - stop a connection for good (process context or a
 * work item, never under a connection lock or from its timer)
 * @ms: the socket
 *
 * The engine is destroyed, the QPN released, every buffer freed, the timer
 * cancelled. The route cache stays until the socket is destructed: the
 * transmit path may still be using it.
 */
void mrc_conn_teardown(struct mrc_sock *ms)
{
	struct mrc_net *mn = mrc_net(sock_net(&ms->sk));
	struct mrc_conn *conn, *pending;
	bool was_up;

	spin_lock_bh(&ms->lock);
	ms->dead = true;
	conn = ms->conn;
	pending = ms->conn_pending;
	was_up = conn && ms->state == MRC_ST_ESTABLISHED;
	ms->conn = NULL;
	ms->conn_pending = NULL;
	mrc_free_msgs(ms);
	mrc_conn_free_arrays(ms);
	spin_unlock_bh(&ms->lock);
	mrc_lookup_unhash(mn, ms);
	hrtimer_cancel(&ms->timer);
	mrc_conn_destroy(pending);
	if (conn) {
		mrc_conn_destroy(conn);
		mrc_net_count(mn, MRC_CNT_CONN_CLOSED);
	}
	if (was_up)
		mrc_conn_updown(ms, false, 0);
}

/* Engine event -> socket. Connection lock held. */
static void mrc_conn_event(struct mrc_sock *ms, const struct mrc_event *ev,
			   unsigned int *wake)
{
	struct sock *sk = &ms->sk;
	struct mrc_msgbuf *mb, **slot;
	bool timedout;
	u32 cwnd;

	lockdep_assert_held(&ms->lock);
	switch (ev->type) {
	case MRC_EVT_MSG_COMPLETED:
		mb = (struct mrc_msgbuf *)(uintptr_t)ev->u.msg.cookie;
		slot = &ms->txm[ev->u.msg.msn % ms->tx_cap];
		if (!mb || *slot != mb)
			break;
		*slot = NULL;
		WRITE_ONCE(ms->tx_pending, ms->tx_pending - 1);
		WRITE_ONCE(sk->sk_wmem_queued, sk->sk_wmem_queued - mb->charge);
		mrc_mem_tx_pages_keep(ms, mb);
		/* Below the window: the buffer may be what holds it back. */
		if (mrc_conn_app_limited(ms->conn, &cwnd))
			mrc_sndbuf_grow(ms, mb->charge);
		mrc_mb_free(mb);
		*wake |= MRC_WAKE_WRITE;
		break;
	case MRC_EVT_MSG_DELIVERED:
		/* A child that delivers is not idle (mrc_listen_reap_idle()). */
		ms->idle_deadline = 0;
		slot = &ms->rxm[ev->u.msg.msn % ms->rx_cap];
		mb = *slot;
		*slot = NULL;
		ms->rx_next_msn = ev->u.msg.msn + 1;
		if (mb) {
			ms->rx_inprog -= mb->charge;
		} else {
			/* Zero-length or pageless: a header is enough. */
			mb = mrc_mb_alloc(0, GFP_ATOMIC);
			if (!mb) {
				mrc_net_count(mrc_net(sock_net(sk)),
					      MRC_CNT_RX_NOMEM);
				break;
			}
			mb->len = 0;
		}
		if (ms->orphan || (sk->sk_shutdown & RCV_SHUTDOWN)) {
			mrc_mem_uncharge(ms, mb->mem);
			mrc_mb_free(mb);
			break;
		}
		list_add_tail(&mb->node, &ms->rxq);
		WRITE_ONCE(ms->rxq_len, ms->rxq_len + 1);
		ms->rx_queued += mb->charge;
		*wake |= MRC_WAKE_READ;
		break;
	case MRC_EVT_CONN_ERROR:
		timedout = ev->u.error.reason == MRC_CONN_ERR_RETRY ||
			   ev->u.error.reason == MRC_CONN_ERR_PROGRESS;
		/* mrc_sk_fail() reports and wakes. */
		mrc_sk_fail(ms, timedout ? ETIMEDOUT : ECONNRESET);
		break;
	default:
		break;
	}
}

/**
 * mrc_conn_drain() - the host contract after an engine input; connection
 * lock held
 * @ms: the socket
 * @now: the time given to the input call
 * @q: packets to send once the lock is dropped
 *
 * Drains poll_tx (building the skbs) and poll_event (completions free send
 * buffers, deliveries queue messages, an error fails the socket), sends the
 * close notification when it is due, re-arms the timer.
 */
void mrc_conn_drain(struct mrc_sock *ms, u64 now, struct sk_buff_head *q)
{
	struct mrc_conn *conn = ms->conn;
	struct mrc_event ev;
	struct mrc_nl_ev_change ch[MRC_NL_EV_CHANGES];
	struct mrc_trace_ids ids;
	u32 nch = 0, lost = 0;
	unsigned int wake = 0;

	lockdep_assert_held(&ms->lock);
	if (!conn || ms->dead)
		return;
	mrc_conn_ids(ms, &ids);
	mrc_conn_drain_tx(ms, now, q);
	while (mrc_conn_poll_event(conn, &ev) == MRC_OK) {
		mrc_tel_event(&ids, &ev);
		mrc_conn_ev_change(&ev, ch, &nch, &lost);
		mrc_conn_event(ms, &ev, &wake);
	}
	if (nch)
		mrc_nl_notify_paths(ms, ch, nch, lost);
	if (ms->reset_deadline && !ms->tx_pending)
		ms->reset_deadline = 0;
	if (ms->reset_deadline && now >= ms->reset_deadline &&
	    ms->state == MRC_ST_ESTABLISHED) {
		/* The peer is gone and never acknowledged them. */
		mrc_sk_fail(ms, ECONNRESET);
	}
	mrc_conn_close_due(ms, q);
	mrc_conn_port_status_due(ms, now, q);
	if (mrc_orphan_done(ms, now))
		return;
	mrc_timer_arm(ms, mrc_timer_deadline(ms));
	/* The standard callbacks: poll, blocked calls, O_ASYNC's SIGIO. */
	if (wake & MRC_WAKE_READ)
		ms->sk.sk_data_ready(&ms->sk);
	if (wake & MRC_WAKE_WRITE)
		mrc_sock_write_space(&ms->sk);
}

/**
 * mrc_conn_connect() - start the handshake of a socket whose peer, local
 * address and QPN are set; socket lock held, process context
 * @ms: the socket
 *
 * Return: 0 (request sent, timer armed) or a negative errno.
 */
int mrc_conn_connect(struct mrc_sock *ms)
{
	struct net *net = sock_net(&ms->sk);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_conn *conn = NULL;
	struct sk_buff_head q;
	int err;

	sock_owned_by_me(&ms->sk);
	ms->local_conn_id = get_random_u16() ?: 1;
	ms->local_init_psn = get_random_u32() & MRC_PSN_MASK;
	ms->token = get_random_u16();
	/* The peer's values are placeholders until its answer names them. */
	ms->peer_qpn = 0;
	ms->peer_conn_id = 0;
	ms->peer_init_psn = 0;
	err = mrc_mp_setup(net, ms, GFP_KERNEL);
	if (!err)
		err = mrc_conn_route(net, ms);
	if (!err && !ms->dst_ok) {
		err = dst_cache_init(&ms->dst_cache, GFP_KERNEL);
		if (!err)
			ms->dst_ok = true;
	}
	/* The engine, here where we may sleep (mrc_conn_start_client()). */
	if (!err)
		err = mrc_conn_build(ms, true, &conn);
	if (!err) {
		err = mrc_lookup_hash(mn, ms);
		if (err)
			mrc_conn_unbuild(ms, conn);
	}
	if (err) {
		/* Not hashed: nobody else can see the snapshot. */
		mrc_mp_free(ms->mp);
		ms->mp = NULL;
		return err;
	}
	mrc_conn_read_tclass(ms);
	__skb_queue_head_init(&q);
	spin_lock_bh(&ms->lock);
	ms->conn_pending = conn;
	WRITE_ONCE(ms->state, MRC_ST_CONNECTING);
	ms->hs_tries = 1;
	ms->hs_cookie_qpn = 0;
	ms->hs_cookie_conn = 0;
	ms->hs_cookies = 0;
	ms->hs_deadline = mrc_now() + MRC_HS_RTO_MS * NSEC_PER_MSEC;
	mrc_conn_send_req(ms, MRC_EP_CONNECT, &q);
	mrc_timer_arm(ms, ms->hs_deadline);
	spin_unlock_bh(&ms->lock);
	mrc_net_count(mn, MRC_CNT_CONN_REQ_SENT);
	mrc_xmit_queue(net, ms, &q);
	return 0;
}
