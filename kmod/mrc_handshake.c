// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_handshake.c - connection set-up and close on the wire: the connect
 * request and response, the close notification, carried by the endpoint
 * opcodes 0xD8/0xD9 (ERTH/EETH) with kinds MRC_EP_CONNECT and MRC_EP_CLOSE,
 * our extension carried as a vendor operation (MRC 1.0 sets connections up
 * out of band). Documentation/networking/mrc-socket.rst has the packet
 * diagram and the state machine, mrc-wire.rst the bytes.
 *
 * A listener keeps nothing for a request until it echoes a cookie
 * (mrc_hs_guard.c). The child it then creates in softirq is a socket and
 * its path snapshot only; its engine (tens of KiB in several arrays) is
 * allocated by a work item, in process context where allocations may sleep
 * and need not be physically contiguous, which then queues the child for
 * accept() and answers the client (mrc_child_start_work()). A child being
 * set up counts against the listener's backlog. The endpoint packets of
 * the other kinds (port status) are dispatched from here to
 * mrc_port_status.c, ICMPv6 errors about a connect request come here from
 * mrc_input.c.
 */
#include <linux/ipv6.h>
#include <linux/jhash.h>
#include <linux/random.h>
#include <net/addrconf.h>
#include <net/ipv6.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_ev_probe.h"
#include "mrc_handshake.h"
#include "mrc_lookup.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_path.h"
#include "mrc_port_status.h"
#include "mrc_profile.h"
#include "mrc_sock.h"
#include "mrc_timer.h"

/* The peer released its socket: our unacknowledged messages may still be
 * acknowledged by SACKs that left before its close request (other path).
 */
#define MRC_K_RESET_GRACE_NS	(200 * NSEC_PER_MSEC)

static u32 mrc_peer_key(const struct in6_addr *addr, u32 qpn)
{
	return jhash2((const u32 *)addr, 4, qpn);
}

/* RCU: a listener on service @port for local address @daddr, referenced. */
static struct mrc_sock *mrc_find_listener(struct mrc_net *mn, u16 port,
					  const struct in6_addr *daddr)
{
	struct mrc_sock *ms;

	hash_for_each_possible_rcu(mn->bind_hash, ms, bind_node, port) {
		const struct in6_addr *a = (const struct in6_addr *)ms->local.smrc_addr;

		if (ntohs(ms->local.smrc_port) != port ||
		    READ_ONCE(ms->state) != MRC_ST_LISTEN)
			continue;
		if (!ipv6_addr_any(a) && !ipv6_addr_equal(a, daddr))
			continue;
		if (refcount_inc_not_zero(&ms->sk.sk_refcnt))
			return ms;
	}
	return NULL;
}

/*
 * A stateless answer to a connect request from @saddr: a reject, or a
 * cookie to echo (MRC_EP_ST_RETRY, mrc_hs_guard.c). No socket stands
 * behind it, and its source has proven nothing: within the namespace's
 * answer rate only. In the listener's control class, or profile 0's
 * without one (@lst NULL). Return: true if sent.
 */
static bool mrc_hs_answer(struct net *net, const struct in6_addr *saddr,
			  const struct in6_addr *daddr, int oif,
			  const struct mrc_ep *req, u8 status,
			  const struct mrc_sock *lst)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_ep ep;

	if (!mrc_hs_answer_allowed(&mn->hs_guard, saddr)) {
		mrc_net_count(mn, MRC_CNT_HS_LIMITED);
		return false;
	}
	memset(&ep, 0, sizeof(ep));
	ep.kind = MRC_EP_CONNECT;
	ep.token = req->token;
	ep.conn.dst_service = req->conn.src_service;
	ep.conn.src_service = req->conn.dst_service;
	ep.conn.status = status;
	ep.conn.dst_qpn = req->conn.src_qpn;
	ep.conn.dst_conn = req->conn.src_conn;
	if (status == MRC_EP_ST_RETRY)
		mrc_hs_cookie_make(&mn->hs_guard, saddr, daddr, req,
				   &ep.conn.src_qpn, &ep.conn.src_conn);
	mrc_send_ep(net, NULL, daddr, saddr, oif, MRC_OP_EP_RESP, &ep,
		    lst ? READ_ONCE(lst->tclass_ctl) : mrc_profile_ctl_tclass(net));
	return true;
}

/*
 * A duplicate connect request: answer again from the existing child,
 * within the namespace's answer rate (the request's source may be spoofed).
 */
static bool mrc_hs_dup(struct net *net, struct mrc_net *mn,
		       const struct in6_addr *saddr, int oif,
		       const struct mrc_ep *req)
{
	struct mrc_sock *ms;
	struct mrc_ep ep;
	bool found = false;

	hash_for_each_possible_rcu(mn->peer_hash, ms, peer_node,
				   mrc_peer_key(saddr, req->conn.src_qpn)) {
		if (ms->peer_qpn != req->conn.src_qpn ||
		    ms->peer_conn_id != req->conn.src_conn ||
		    !ipv6_addr_equal(saddr, (struct in6_addr *)ms->peer.smrc_addr))
			continue;
		/* Held: the answer is owned by the child (mrc_xmit_one()). */
		if (!refcount_inc_not_zero(&ms->sk.sk_refcnt))
			return true;
		spin_lock(&ms->lock);
		/* Still being set up: its start work answers. */
		found = !ms->dead && ms->conn;
		if (found)
			mrc_fill_ep(ms, MRC_EP_CONNECT, &ep);
		spin_unlock(&ms->lock);
		if (found && !mrc_hs_answer_allowed(&mn->hs_guard, saddr)) {
			mrc_net_count(mn, MRC_CNT_HS_LIMITED);
			found = false;
		}
		if (found) {
			ep.conn.dst_qpn = req->conn.src_qpn;
			ep.conn.dst_conn = req->conn.src_conn;
			mrc_send_ep(net, &ms->sk, &ms->saddr, saddr, oif,
				    MRC_OP_EP_RESP, &ep, ms->tclass_ctl);
			mrc_net_count(mn, MRC_CNT_CONN_RESP_SENT);
		}
		sock_put(&ms->sk);
		return true;
	}
	return false;
}

/*
 * The child's engine is allocated here, in process context, then the child
 * is queued for accept() and the client answered. A listener that stopped
 * listening meanwhile (or an allocation that failed) takes the child with
 * it: the client, unanswered, retries its request and is refused, or gives
 * up. The child's creation reference passes to the accept queue; the
 * listener's reference taken for us is dropped at the end.
 */
static void mrc_child_start_work(struct work_struct *w)
{
	struct mrc_sock *child = container_of(w, struct mrc_sock, start_work);
	struct sock *psk = child->parent;
	struct mrc_sock *lst = mrc_sk(psk);
	struct net *net = sock_net(psk);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_conn *conn = NULL;
	struct mrc_ep ep;
	int err, idle;

	err = mrc_conn_build(child, true, &conn);
	spin_lock_bh(&lst->lock);
	if (err || lst->state != MRC_ST_LISTEN || lst->dead) {
		child->parent = NULL;
		sk_acceptq_removed(psk);
		spin_unlock_bh(&lst->lock);
		if (conn)
			mrc_conn_destroy(conn);
		mrc_net_count(mn, err ? MRC_CNT_RX_NOMEM : MRC_CNT_CONN_REFUSED);
		mrc_conn_teardown(child);
		mrc_sock_free_child(&child->sk);
		sock_put(psk);
		return;
	}
	/*
	 * Lock order: listener, then child (see mrc_impl.h); both locks are
	 * of one class, hence the lockdep subclass.
	 */
	spin_lock_nested(&child->lock, SINGLE_DEPTH_NESTING);
	mrc_conn_install(child, conn, mrc_now());
	mrc_fill_ep(child, MRC_EP_CONNECT, &ep);
	spin_unlock(&child->lock);
	idle = READ_ONCE(mn->child_idle_timeout_ms);
	if (idle) {
		child->idle_deadline = mrc_now() + (u64)idle * NSEC_PER_MSEC;
		/* The listener's timer reaps idle children (oldest first). */
		if (!hrtimer_is_queued(&lst->timer) ||
		    child->idle_deadline <
		    ktime_to_ns(hrtimer_get_expires(&lst->timer)))
			mrc_timer_arm(lst, child->idle_deadline);
	}
	list_add_tail(&child->accept_node, &lst->accept_q);
	/* accept() may take and close it once the listener is unlocked. */
	sock_hold(&child->sk);
	spin_unlock_bh(&lst->lock);

	mrc_send_ep(net, &child->sk, &child->saddr,
		    (struct in6_addr *)child->peer.smrc_addr,
		    child->peer.smrc_scope_id, MRC_OP_EP_RESP, &ep,
		    child->tclass_ctl);
	sock_put(&child->sk);
	mrc_net_count(mn, MRC_CNT_CONN_RESP_SENT);
	mrc_net_count(mn, MRC_CNT_CONN_ESTAB);
	/* A connection to accept: the listener is readable. */
	psk->sk_data_ready(psk);
	sock_put(psk);
}

static void mrc_hs_req(struct net *net, const struct in6_addr *saddr,
		       const struct in6_addr *daddr, int oif,
		       const struct mrc_ep *req)
{
	struct mrc_net *mn = mrc_net(net);
	const struct mrc_ep_conn *c = &req->conn;
	struct mrc_sock *lst, *child;
	struct sock *csk;
	int err;

	if (c->status || c->src_qpn < 16 || !c->src_service ||
	    !c->dst_service) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
		return;
	}
	if (mrc_hs_dup(net, mn, saddr, oif, req))
		return;
	lst = mrc_find_listener(mn, c->dst_service, daddr);
	if (!lst) {
		mrc_net_count(mn, MRC_CNT_CONN_REFUSED);
		mrc_hs_answer(net, saddr, daddr, oif, req, MRC_EP_ST_REFUSED,
			      NULL);
		return;
	}
	/*
	 * Nothing is kept for a request until it echoes our cookie: its
	 * source then received at its address (mrc_hs_guard.c).
	 */
	if (!mrc_hs_cookie_ok(&mn->hs_guard, saddr, daddr, req)) {
		if (mrc_hs_has_cookie(req))
			mrc_net_count(mn, MRC_CNT_HS_COOKIE_BAD);
		if (mrc_hs_answer(net, saddr, daddr, oif, req, MRC_EP_ST_RETRY,
				  lst))
			mrc_net_count(mn, MRC_CNT_HS_COOKIE_SENT);
		goto out;
	}
	spin_lock(&lst->lock);
	if (lst->state != MRC_ST_LISTEN || lst->dead) {
		spin_unlock(&lst->lock);
		mrc_net_count(mn, MRC_CNT_CONN_REFUSED);
		mrc_hs_answer(net, saddr, daddr, oif, req, MRC_EP_ST_REFUSED,
			      lst);
		goto out;
	}
	if (sk_acceptq_is_full(&lst->sk)) {
		spin_unlock(&lst->lock);
		mrc_net_count(mn, MRC_CNT_CONN_BACKLOG);
		goto out;
	}
	csk = mrc_sock_alloc_child(&lst->sk, GFP_ATOMIC);
	if (!csk) {
		spin_unlock(&lst->lock);
		mrc_net_count(mn, MRC_CNT_RX_NOMEM);
		goto out;
	}
	child = mrc_sk(csk);
	child->local = lst->local;
	memcpy(child->local.smrc_addr, daddr, sizeof(*daddr));
	child->saddr = *daddr;
	child->peer.smrc_family = mrc_family;
	child->peer.smrc_port = htons(c->src_service);
	memcpy(child->peer.smrc_addr, saddr, sizeof(*saddr));
	if (ipv6_addr_type(saddr) & IPV6_ADDR_LINKLOCAL)
		child->peer.smrc_scope_id = oif;
	child->peer_qpn = c->src_qpn;
	child->peer_conn_id = c->src_conn;
	child->peer_init_psn = c->init_psn & MRC_PSN_MASK;
	child->peer_max_msg = c->max_msg_len;
	child->token = req->token;
	child->opts = lst->opts;
	child->local_conn_id = get_random_u16() ?: 1;
	child->local_init_psn = get_random_u32() & MRC_PSN_MASK;
	err = mrc_mp_setup(net, child, GFP_ATOMIC);
	if (!err)
		err = mrc_conn_route(net, child);
	if (!err)
		err = mrc_lookup_hash(mn, child);
	if (err) {
		spin_unlock(&lst->lock);
		mrc_net_count(mn, err == -ENOMEM ? MRC_CNT_RX_NOMEM :
			      MRC_CNT_TX_NOROUTE);
		mrc_conn_teardown(child);
		mrc_sock_free_child(csk);
		goto out;
	}
	spin_lock(&mn->conn_lock);
	hash_add_rcu(mn->peer_hash, &child->peer_node,
		     mrc_peer_key(saddr, child->peer_qpn));
	child->peer_hashed = true;
	spin_unlock(&mn->conn_lock);
	/*
	 * Counted against the backlog from now on: a burst of proven
	 * clients queues at most a backlog's worth of set-ups.
	 */
	child->parent = &lst->sk;
	sk_acceptq_added(&lst->sk);
	sock_hold(&lst->sk);
	INIT_WORK(&child->start_work, mrc_child_start_work);
	spin_unlock(&lst->lock);
	queue_work(mrc_wq, &child->start_work);
out:
	sock_put(&lst->sk);
}

/*
 * The connection a handshake answer or close request names (by our QPN),
 * held, if @saddr is its peer. Counts @unknown if no connection has the QPN,
 * RxBadHandshake if the source is not its peer (or it is being freed).
 */
static struct mrc_sock *mrc_hs_peer(struct mrc_net *mn, u32 qpn,
				    const struct in6_addr *saddr,
				    enum mrc_net_counter unknown)
{
	struct mrc_sock *ms = mrc_lookup_qpn(mn, qpn);

	if (!ms) {
		mrc_net_count(mn, unknown);
		return NULL;
	}
	if (!ipv6_addr_equal(saddr, (struct in6_addr *)ms->peer.smrc_addr) ||
	    !refcount_inc_not_zero(&ms->sk.sk_refcnt)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
		return NULL;
	}
	return ms;
}

/**
 * mrc_conn_icmp_err() - an ICMPv6 error quoting a packet we sent (softirq,
 * RCU)
 * @net: namespace
 * @daddr: destination of the quoted packet (the peer)
 * @pkt: the quoted MRC packet, decoded
 * @err: the errno the error maps to (icmpv6_err_convert(), hard or soft)
 *
 * Any error about our connect request fails the connecting socket at
 * once, as TCP's SYN-SENT does: ECONNREFUSED for a port unreachable (the
 * peer's namespace has no MRC socket, so its UDP port is not bound),
 * EHOSTUNREACH for an address unreachable (this host's neighbour discovery
 * found nobody at an on-link peer's address, after about 3 s), EACCES...
 * The quote must name the request (token, QPN, connection id). Errors
 * about other packets are left to the engine: paths are judged by
 * acknowledgements, not by ICMP, which is unauthenticated and
 * rate-limited.
 */
void mrc_conn_icmp_err(struct net *net, const struct in6_addr *daddr,
		       const struct mrc_pkt *pkt, int err)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_sock *ms;

	if (pkt->bth.opcode != MRC_OP_EP_REQ || pkt->bth.dest_qp != MRC_QPN_EP ||
	    pkt->ep.kind != MRC_EP_CONNECT)
		return;
	ms = mrc_hs_peer(mn, pkt->ep.conn.src_qpn, daddr, MRC_CNT_RX_STALE);
	if (!ms)
		return;
	spin_lock(&ms->lock);
	if (!ms->dead && ms->state == MRC_ST_CONNECTING &&
	    ms->token == pkt->ep.token &&
	    pkt->ep.conn.src_conn == ms->local_conn_id) {
		mrc_net_count(mn, MRC_CNT_CONN_ICMP);
		mrc_sk_fail(ms, err);
	}
	spin_unlock(&ms->lock);
	sock_put(&ms->sk);
}

static void mrc_hs_resp(struct net *net, const struct in6_addr *saddr,
			const struct mrc_ep *resp)
{
	struct mrc_net *mn = mrc_net(net);
	const struct mrc_ep_conn *c = &resp->conn;
	struct sk_buff_head q;
	struct mrc_sock *ms;
	int err;

	ms = mrc_hs_peer(mn, c->dst_qpn, saddr, MRC_CNT_RX_BAD_HS);
	if (!ms)
		return;
	__skb_queue_head_init(&q);
	spin_lock(&ms->lock);
	if (ms->dead || ms->token != resp->token ||
	    c->dst_conn != ms->local_conn_id ||
	    c->src_service != ntohs(ms->peer.smrc_port)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
		goto unlock;
	}
	if (ms->state != MRC_ST_CONNECTING) {
		/* A repeated answer to a retransmitted request: harmless. */
		if (ms->state != MRC_ST_ESTABLISHED || c->src_qpn != ms->peer_qpn)
			mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
		goto unlock;
	}
	if (c->status == MRC_EP_ST_RETRY) {
		/*
		 * The server keeps nothing until we echo its cookie: send the
		 * request again at once with it (and in every retransmission).
		 * A server that keeps asking is left to the handshake timer.
		 */
		if (ms->hs_cookies >= MRC_HS_COOKIE_ECHOES ||
		    !(c->src_qpn || c->src_conn)) {
			mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
			goto unlock;
		}
		ms->hs_cookies++;
		ms->hs_cookie_qpn = c->src_qpn;
		ms->hs_cookie_conn = c->src_conn;
		mrc_conn_send_req(ms, MRC_EP_CONNECT, &q);
		goto unlock;
	}
	if (c->status != MRC_EP_ST_OK) {
		mrc_sk_fail(ms, c->status == MRC_EP_ST_REFUSED ? ECONNREFUSED :
			      c->status == MRC_EP_ST_RESET ? ECONNRESET : EINVAL);
		goto unlock;
	}
	if (c->src_qpn < 16 || !c->src_conn) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
		goto unlock;
	}
	ms->peer_qpn = c->src_qpn;
	ms->peer_conn_id = c->src_conn;
	ms->peer_init_psn = c->init_psn;
	ms->peer_max_msg = c->max_msg_len;
	err = mrc_conn_start_client(ms, mrc_now());
	if (err) {
		mrc_sk_fail(ms, -err);
		goto unlock;
	}
	mrc_net_count(mn, MRC_CNT_CONN_ESTAB);
	mrc_conn_drain(ms, mrc_now(), &q);
	mrc_conn_wake(&ms->sk, POLL_OUT);
unlock:
	spin_unlock(&ms->lock);
	mrc_xmit_queue(net, ms, &q);
	sock_put(&ms->sk);
}

static void mrc_hs_close(struct net *net, const struct in6_addr *saddr,
			 const struct mrc_ep *req)
{
	struct mrc_net *mn = mrc_net(net);
	const struct mrc_ep_conn *c = &req->conn;
	struct sk_buff_head q;
	struct mrc_sock *ms;
	u64 now;

	/*
	 * Both ends close: the peer's CLOSE may arrive after ours released
	 * the connection. Nothing to match, nothing wrong: stale.
	 */
	ms = mrc_hs_peer(mn, c->dst_qpn, saddr, MRC_CNT_RX_STALE);
	if (!ms)
		return;
	__skb_queue_head_init(&q);
	now = mrc_now();
	spin_lock(&ms->lock);
	if (ms->dead || ms->state != MRC_ST_ESTABLISHED ||
	    c->dst_conn != ms->local_conn_id || c->src_conn != ms->peer_conn_id ||
	    c->src_qpn != ms->peer_qpn) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HS);
	} else {
		WRITE_ONCE(ms->peer_closed, true);
		if (c->status == MRC_EP_ST_ABORT) {
			/* SO_LINGER 0 at the peer: as TCP's RST. */
			WRITE_ONCE(ms->peer_gone, true);
			mrc_sk_fail(ms, ECONNRESET);
		} else if (c->status == MRC_EP_ST_RESET) {
			WRITE_ONCE(ms->peer_gone, true);
			/*
			 * What we still have in flight fails unless the SACKs
			 * the peer sent before its close request (maybe on
			 * another path) acknowledge it within the grace.
			 */
			if (ms->tx_pending && !ms->reset_deadline)
				ms->reset_deadline = now + MRC_K_RESET_GRACE_NS;
		}
		/* Completes a lingering close; re-arms the timer. */
		mrc_conn_drain(ms, now, &q);
		mrc_conn_wake(&ms->sk, POLL_IN);
	}
	spin_unlock(&ms->lock);
	mrc_xmit_queue(net, ms, &q);
	sock_put(&ms->sk);
}

/**
 * mrc_conn_rcv_ep() - an endpoint packet (QPN MRC_QPN_EP), softirq, RCU
 * @net: namespace
 * @skb: the packet (addresses, interface); freed by the caller
 * @pkt: decoded packet
 */
void mrc_conn_rcv_ep(struct net *net, struct sk_buff *skb, const struct mrc_pkt *pkt)
{
	const struct ipv6hdr *ip6 = ipv6_hdr(skb);
	int oif = 0;

	if (ipv6_addr_type(&ip6->saddr) & IPV6_ADDR_LINKLOCAL)
		oif = inet6_iif(skb);
	switch (pkt->ep.kind) {
	case MRC_EP_CONNECT:
		if (pkt->bth.opcode == MRC_OP_EP_REQ)
			mrc_hs_req(net, &ip6->saddr, &ip6->daddr, oif, &pkt->ep);
		else
			mrc_hs_resp(net, &ip6->saddr, &pkt->ep);
		return;
	case MRC_EP_CLOSE:
		if (pkt->bth.opcode == MRC_OP_EP_REQ) {
			mrc_hs_close(net, &ip6->saddr, &pkt->ep);
			return;
		}
		break;
	case MRC_EP_PORT_STATUS:
		mrc_conn_peer_ports(net, &ip6->saddr, &pkt->ep,
				    pkt->bth.opcode == MRC_OP_EP_REQ);
		return;
	case MRC_EP_EV_PROBE:
		mrc_ev_probe_rcv(net, skb, pkt, oif);
		return;
	default:
		break;
	}
	mrc_net_count(mrc_net(net), MRC_CNT_RX_BAD_HS);
}
