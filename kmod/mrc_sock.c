// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_sock.c - the AF_MRC socket family: socket(), bind(), connect(),
 * listen(), accept(), sendmsg(), recvmsg(), poll(), shutdown(),
 * getsockname()/getpeername() and close(). The SOL_MRC options and
 * MRC_INFO are mrc_sockopt.c's.
 *
 * Every call is serialised by the socket lock; what the call shares with
 * the softirq datapath is under the connection lock (mrc_impl.h). The
 * contract (errno of every case) is Documentation/networking/mrc-socket.rst.
 */
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_input.h"
#include "mrc_linger.h"
#include "mrc_mem.h"
#include "mrc_msg.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_path.h"
#include "mrc_sock.h"
#include "mrc_sockopt.h"
#include "mrc_steer.h"
#include "mrc_tsq.h"

static struct proto mrc_proto = {
	.name	  = "MRC",
	.owner	  = THIS_MODULE,
	.obj_size = sizeof(struct mrc_sock),
};

static bool mrc_port_taken(struct mrc_net *mn, u16 port, const struct in6_addr *addr)
{
	struct mrc_sock *other;

	hash_for_each_possible(mn->bind_hash, other, bind_node, port) {
		const struct in6_addr *oaddr = (const struct in6_addr *)other->local.smrc_addr;

		if (ntohs(other->local.smrc_port) != port)
			continue;
		if (ipv6_addr_any(addr) || ipv6_addr_any(oaddr) || ipv6_addr_equal(addr, oaddr))
			return true;
	}
	return false;
}

/* Pick a free ephemeral service id; called with mn->bind_lock held. */
static u16 mrc_port_pick(struct mrc_net *mn, const struct in6_addr *addr)
{
	u32 range = MRC_PORT_EPHEMERAL_MAX - MRC_PORT_EPHEMERAL_MIN + 1;
	u32 i;

	for (i = 0; i < range; i++) {
		u16 port = mn->next_port;

		mn->next_port = port >= MRC_PORT_EPHEMERAL_MAX ?
				MRC_PORT_EPHEMERAL_MIN : port + 1;
		if (!mrc_port_taken(mn, port, addr))
			return port;
	}
	return 0;
}

/* Is @addr usable as a local address of @net? Link-local needs its device. */
static int mrc_check_local_addr(struct net *net, const struct in6_addr *addr, u32 scope_id)
{
	struct net_device *dev = NULL;
	int ok;

	if (ipv6_addr_any(addr))
		return scope_id ? -EINVAL : 0;
	if (ipv6_addr_type(addr) & IPV6_ADDR_MULTICAST)
		return -EADDRNOTAVAIL;

	rcu_read_lock();
	if (scope_id) {
		dev = dev_get_by_index_rcu(net, scope_id);
		if (!dev) {
			rcu_read_unlock();
			return -ENODEV;
		}
	} else if (ipv6_addr_type(addr) & IPV6_ADDR_LINKLOCAL) {
		rcu_read_unlock();
		return -EINVAL;
	}
	ok = ipv6_chk_addr(net, addr, dev, 0);
	rcu_read_unlock();
	return ok ? 0 : -EADDRNOTAVAIL;
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int addr_len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_net *mn = mrc_net(sock_net(sk));
	const struct in6_addr *addr;
	struct sockaddr_mrc sa;
	u16 port;
	int err;

	if (addr_len < (int)sizeof(sa)) {
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		return -EINVAL;
	}
	memcpy(&sa, uaddr, sizeof(sa));
	if (sa.smrc_family != mrc_family) {
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		return -EAFNOSUPPORT;
	}
	if (sa.smrc_flags || sa.smrc_reserved) {
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		return -EINVAL;
	}
	addr = (const struct in6_addr *)sa.smrc_addr;
	err = mrc_check_local_addr(sock_net(sk), addr, sa.smrc_scope_id);
	if (err) {
		mrc_net_count(mn, err == -EADDRNOTAVAIL || err == -ENODEV ?
			      MRC_CNT_ADDR_NOTAVAIL : MRC_CNT_BAD_ADDR);
		return err;
	}

	lock_sock(sk);
	if (ms->bound || READ_ONCE(ms->state) != MRC_ST_CLOSED) {
		err = -EINVAL;
		mrc_net_count(mn, MRC_CNT_BAD_ADDR);
		goto out;
	}
	spin_lock_bh(&mn->bind_lock);
	port = ntohs(sa.smrc_port);
	if (!port) {
		port = mrc_port_pick(mn, addr);
		if (!port)
			err = -EADDRINUSE;
	} else if (mrc_port_taken(mn, port, addr)) {
		err = -EADDRINUSE;
	}
	if (!err) {
		sa.smrc_port = htons(port);
		ms->local = sa;
		ms->bound = true;
		hash_add_rcu(mn->bind_hash, &ms->bind_node, port);
		mn->nbound++;
	}
	spin_unlock_bh(&mn->bind_lock);
	mrc_net_count(mn, err ? MRC_CNT_ADDR_INUSE : MRC_CNT_BIND_OK);
out:
	release_sock(sk);
	return err;
}

/* Bind to the wildcard address and an ephemeral service id; socket lock held. */
static int mrc_autobind(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_net *mn = mrc_net(sock_net(sk));
	u16 port;
	int err = 0;

	if (ms->bound)
		return 0;
	spin_lock_bh(&mn->bind_lock);
	port = mrc_port_pick(mn, &in6addr_any);
	if (port) {
		memset(&ms->local, 0, sizeof(ms->local));
		ms->local.smrc_family = mrc_family;
		ms->local.smrc_port = htons(port);
		ms->bound = true;
		hash_add_rcu(mn->bind_hash, &ms->bind_node, port);
		mn->nbound++;
	} else {
		err = -EADDRINUSE;
	}
	spin_unlock_bh(&mn->bind_lock);
	return err;
}

/*
 * What connect() and listen() need first: the namespace's UDP socket and a
 * local address (mrc_autobind()); socket lock held.
 */
static int mrc_local_endpoint(struct sock *sk)
{
	int err;

	err = mrc_udp_get(sock_net(sk));
	if (err)
		return err;
	return mrc_autobind(sk);
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct sockaddr_mrc sa;
	int err = sizeof(sa);

	lock_sock(sk);
	if (peer) {
		u8 state = READ_ONCE(ms->state);

		if (state == MRC_ST_ESTABLISHED ||
		    (state == MRC_ST_FAILED && ms->peer_qpn))
			sa = ms->peer;
		else
			err = -ENOTCONN;
	} else if (ms->local.smrc_family) {
		sa = ms->local;
	} else {
		memset(&sa, 0, sizeof(sa));
		sa.smrc_family = mrc_family;
	}
	release_sock(sk);
	if (err > 0)
		memcpy(uaddr, &sa, sizeof(sa));
	return err;
}

static void mrc_unhash(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_net *mn = mrc_net(sock_net(sk));

	spin_lock_bh(&mn->bind_lock);
	if (ms->bound) {
		hash_del_rcu(&ms->bind_node);
		ms->bound = false;
		mn->nbound--;
	}
	spin_unlock_bh(&mn->bind_lock);
}

/* Wake-up conditions of the blocking calls (read racily, rechecked). */
static bool mrc_connect_done(struct mrc_sock *ms)
{
	return READ_ONCE(ms->state) != MRC_ST_CONNECTING;
}

static bool mrc_accept_ready(struct mrc_sock *ms)
{
	return !list_empty_careful(&ms->accept_q) ||
	       READ_ONCE(ms->state) != MRC_ST_LISTEN;
}

static bool mrc_can_send(const struct mrc_sock *ms)
{
	const struct sock *sk = &ms->sk;

	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf) &&
	       READ_ONCE(ms->tx_pending) < ms->tx_cap;
}

/**
 * mrc_sock_write_space() - a send completed (mrc_conn_drain())
 * @sk: the socket
 *
 * Blocked senders and pollers re-check; an O_ASYNC owner gets SIGIO
 * (POLL_OUT) once there is room again, if a send found none before
 * (SOCKWQ_ASYNC_NOSPACE, see mrc_sendmsg()). Not sk_write_space, which
 * sock_wfree() calls for every packet freed: that one is the small-queue
 * wake-up (mrc_tsq_write_space()).
 */
void mrc_sock_write_space(struct sock *sk)
{
	struct socket_wq *wq;

	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_interruptible_sync_poll(&wq->wait, EPOLLOUT |
						EPOLLWRNORM | EPOLLWRBAND);
	if (mrc_can_send(mrc_sk(sk)))
		sk_wake_async(sk, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

static bool mrc_send_ready(struct mrc_sock *ms)
{
	return mrc_can_send(ms) || READ_ONCE(ms->state) != MRC_ST_ESTABLISHED ||
	       READ_ONCE(ms->sk.sk_err) || READ_ONCE(ms->peer_gone);
}

static bool mrc_recv_ready(struct mrc_sock *ms)
{
	u8 state = READ_ONCE(ms->state);

	return READ_ONCE(ms->rxq_len) || READ_ONCE(ms->sk.sk_err) ||
	       READ_ONCE(ms->peer_closed) ||
	       (READ_ONCE(ms->sk.sk_shutdown) & RCV_SHUTDOWN) ||
	       (state != MRC_ST_ESTABLISHED && state != MRC_ST_CONNECTING);
}

/*
 * Wait, the socket lock dropped while sleeping, until @ready holds.
 * Return: 0, -EAGAIN (timeout or non-blocking) or -EINTR/-ERESTARTSYS.
 */
static int mrc_wait(struct sock *sk, long *timeo,
		    bool (*ready)(struct mrc_sock *ms))
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct mrc_sock *ms = mrc_sk(sk);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	while (!ready(ms)) {
		if (!*timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(*timeo);
			break;
		}
		sk_wait_event(sk, timeo, ready(ms), &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/*
 * Socket memory is refused: sleep until one of our messages completes (a
 * wakeup of the socket) or for up to 200 ms (random, as TCP's
 * sk_stream_wait_memory(): memory others free wakes nobody), the socket
 * lock dropped, then let the caller try again. The room conditions of
 * mrc_send_ready() may hold all along: waiting on them would spin.
 * Return: 0, -EAGAIN (the caller's timeout ran out) or -EINTR/-ERESTARTSYS.
 */
static int mrc_wait_memory(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	long t = min_t(long, *timeo, get_random_u32_below(HZ / 5) + 2);
	long before = t;

	add_wait_queue(sk_sleep(sk), &wait);
	sk_wait_event(sk, &t, false, &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
	if (*timeo != MAX_SCHEDULE_TIMEOUT)
		*timeo -= before - t;
	if (signal_pending(current))
		return sock_intr_errno(*timeo);
	return *timeo > 0 ? 0 : -EAGAIN;
}

static int mrc_check_peer(struct sock *sk, const struct sockaddr_mrc *sa,
			  int addr_len)
{
	const struct in6_addr *a = (const struct in6_addr *)sa->smrc_addr;

	if (addr_len < (int)sizeof(*sa))
		return -EINVAL;
	if (sa->smrc_family != mrc_family)
		return -EAFNOSUPPORT;
	if (sa->smrc_flags || sa->smrc_reserved || !sa->smrc_port)
		return -EINVAL;
	if (ipv6_addr_any(a) || (ipv6_addr_type(a) & IPV6_ADDR_MULTICAST))
		return -EINVAL;
	if ((ipv6_addr_type(a) & IPV6_ADDR_LINKLOCAL) && !sa->smrc_scope_id)
		return -EINVAL;
	return 0;
}

static int mrc_connect(struct socket *sock, struct sockaddr *uaddr,
		       int addr_len, int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct sockaddr_mrc sa;
	long timeo;
	int err;

	if (addr_len < (int)sizeof(sa))
		return -EINVAL;
	memcpy(&sa, uaddr, sizeof(sa));
	err = mrc_check_peer(sk, &sa, addr_len);
	if (err)
		return err;

	lock_sock(sk);
	switch (READ_ONCE(ms->state)) {
	case MRC_ST_CLOSED:
		break;
	case MRC_ST_CONNECTING:
		err = flags & O_NONBLOCK ? -EALREADY : 0;
		goto wait;
	case MRC_ST_ESTABLISHED:
		err = -EISCONN;
		goto out;
	case MRC_ST_FAILED:
		err = sock_error(sk) ?: -EISCONN;
		goto out;
	default:
		err = -EINVAL;
		goto out;
	}
	if (ms->qpn_hashed || (sk->sk_shutdown & SEND_SHUTDOWN)) {
		err = -EINVAL;
		goto out;
	}
	err = mrc_local_endpoint(sk);
	if (err)
		goto out;
	ms->peer = sa;
	ms->saddr = *(struct in6_addr *)ms->local.smrc_addr;
	err = mrc_conn_connect(ms);
	if (err) {
		memset(&ms->peer, 0, sizeof(ms->peer));
		goto out;
	}
	sock->state = SS_CONNECTING;
	if (flags & O_NONBLOCK) {
		err = -EINPROGRESS;
		goto out;
	}
wait:
	if (err)
		goto out;
	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	err = mrc_wait(sk, &timeo, mrc_connect_done);
	if (err == -EAGAIN) {
		err = -EINPROGRESS;
		goto out;
	}
	if (err)
		goto out;
	if (READ_ONCE(ms->state) == MRC_ST_ESTABLISHED) {
		sock->state = SS_CONNECTED;
		err = 0;
	} else {
		sock->state = SS_UNCONNECTED;
		err = sock_error(sk) ?: -ECONNREFUSED;
	}
out:
	release_sock(sk);
	return err;
}

static int mrc_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	int err;
	u8 state;

	lock_sock(sk);
	err = -EINVAL;
	state = READ_ONCE(ms->state);
	if (state != MRC_ST_CLOSED && state != MRC_ST_LISTEN)
		goto out;
	if (ms->qpn_hashed)
		goto out;
	err = mrc_local_endpoint(sk);
	if (err)
		goto out;
	mrc_conn_read_tclass(ms);
	spin_lock_bh(&ms->lock);
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog < 0 ? 0 : backlog);
	WRITE_ONCE(ms->state, MRC_ST_LISTEN);
	spin_unlock_bh(&ms->lock);
out:
	release_sock(sk);
	return err;
}

/*
 * The first child of a listener's accept queue, unlinked (the queue's
 * reference passes to the caller), or NULL; connection lock held.
 */
static struct mrc_sock *mrc_acceptq_pop(struct mrc_sock *ms)
{
	struct mrc_sock *child;

	child = list_first_entry_or_null(&ms->accept_q, struct mrc_sock,
					 accept_node);
	if (child) {
		list_del_init(&child->accept_node);
		child->parent = NULL;
		sk_acceptq_removed(&ms->sk);
	}
	return child;
}

static int mrc_do_accept(struct socket *sock, struct socket *newsock, int flags,
			 bool kern)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_sock *child;
	long timeo;
	int err;

	lock_sock(sk);
	if (ms->state != MRC_ST_LISTEN) {
		err = -EINVAL;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	err = mrc_wait(sk, &timeo, mrc_accept_ready);
	if (err)
		goto out;
	spin_lock_bh(&ms->lock);
	child = mrc_acceptq_pop(ms);
	spin_unlock_bh(&ms->lock);
	if (!child) {
		err = -EINVAL;
		goto out;
	}
	/* Listener's socket lock held: same lock class, one level deeper. */
	lock_sock_nested(&child->sk, SINGLE_DEPTH_NESTING);
	sock_graft(&child->sk, newsock);
	newsock->state = SS_CONNECTED;
	release_sock(&child->sk);
out:
	release_sock(sk);
	return err;
}

MRC_DEFINE_ACCEPT(mrc_accept, mrc_do_accept)

/* May this socket queue a message now? Connection lock held. */
static int mrc_send_state(struct mrc_sock *ms)
{
	struct sock *sk = &ms->sk;

	if (sk->sk_err)
		return -sk->sk_err;
	if ((sk->sk_shutdown & SEND_SHUTDOWN) || ms->shut_wr || ms->peer_gone)
		return -EPIPE;
	if (ms->state == MRC_ST_CONNECTING)
		return -EAGAIN;
	if (ms->state != MRC_ST_ESTABLISHED || !ms->conn)
		return -ENOTCONN;
	return 0;
}

static int mrc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct net *net = sock_net(sk);
	struct mrc_msgbuf *mb;
	struct sk_buff_head q;
	bool queued = false, mem_wait = false, room;
	long timeo;
	u64 now;
	u16 msn;
	int err, rc;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_EOR | MSG_NOSIGNAL |
			       MSG_CMSG_COMPAT))
		return -EOPNOTSUPP;
	if (len > MRC_MSG_MAX)
		return -EMSGSIZE;
	/*
	 * Laid out as the connection's data packets will carry it (its
	 * payload per packet, each with a TSETH: use_tseth is on in every
	 * connection), so that its flowcells go from these pages.
	 */
	mb = mrc_mb_alloc_tx(len, READ_ONCE(mrc_net(net)->tx_in_place) ?
				  READ_ONCE(ms->mtu) : 0,
			     MRC_DATA_HDR_TS_LEN);
	if (!mb)
		return -ENOBUFS;
	mrc_mem_tx_pages_reuse(ms, mb);
	err = mrc_mb_from_iter(mb, &msg->msg_iter);
	if (err)
		goto free;
	mb->charge = mrc_mb_size(mb);
	__skb_queue_head_init(&q);

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	for (;;) {
		spin_lock_bh(&ms->lock);
		err = mrc_send_state(ms);
		if (!err && len > ms->peer_max_msg)
			err = -EMSGSIZE;
		room = !err && (mrc_can_send(ms) || !ms->tx_pending ||
				(mrc_sndbuf_grow(ms, mb->charge) && mrc_can_send(ms))) &&
		       mrc_conn_tx_msgs_free(ms->conn);
		if (room && !mrc_mem_charge(ms, mb->charge, SK_MEM_SEND)) {
			/*
			 * The global limit (net.mrc.mem) or the memory cgroup
			 * refuses: wait for one of our messages to complete,
			 * at most a short while (mrc_wait_memory()).
			 */
			mrc_net_count(mrc_net(net), MRC_CNT_TX_MEM_LIMIT);
			mem_wait = true;
			err = -EAGAIN;
		} else if (room) {
			now = mrc_now();
			rc = mrc_conn_send(ms->conn, now, len, 0, 0,
					   (u64)(uintptr_t)mb, &msn);
			if (rc != MRC_OK)
				mrc_mem_uncharge(ms, mb->charge);
			if (rc == MRC_OK) {
				mb->mem = mb->charge;
				mb->msn = msn;
				ms->txm[msn % ms->tx_cap] = mb;
				WRITE_ONCE(ms->tx_pending, ms->tx_pending + 1);
				WRITE_ONCE(sk->sk_wmem_queued,
					   sk->sk_wmem_queued + mb->charge);
				queued = true;
				mrc_conn_drain(ms, now, &q);
			} else if (rc == MRC_E_TOOBIG) {
				err = -EMSGSIZE;
			} else if (rc != MRC_E_AGAIN) {
				err = -EPIPE;
			}
		} else if (!err) {
			err = -EAGAIN;
		}
		spin_unlock_bh(&ms->lock);
		if (queued || err != -EAGAIN)
			break;
		/* No room: the SIGIO of O_ASYNC is due when there is. */
		sk_set_bit(SOCKWQ_ASYNC_NOSPACE, sk);
		if (mem_wait) {
			/* Never mrc_wait(): its room conditions may hold. */
			if (!timeo)
				break;
			err = mrc_wait_memory(sk, &timeo);
			mem_wait = false;
			if (err)
				break;
			continue;
		}
		err = mrc_wait(sk, &timeo, mrc_send_ready);
		if (err)
			break;
	}
	release_sock(sk);
	mrc_xmit_queue(net, ms, &q);
	if (queued)
		return len;
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
free:
	mrc_mb_free(mb);
	return err;
}

/*
 * The first delivered message, or NULL; unless @peek, unlinked and its
 * memory uncharged (the caller frees it). Connection lock held.
 */
static struct mrc_msgbuf *mrc_rxq_pop(struct mrc_sock *ms, bool peek)
{
	struct mrc_msgbuf *mb;

	mb = list_first_entry_or_null(&ms->rxq, struct mrc_msgbuf, node);
	if (mb && !peek) {
		list_del_init(&mb->node);
		WRITE_ONCE(ms->rxq_len, ms->rxq_len - 1);
		ms->rx_queued -= mb->charge;
		/*
		 * Only judged against 200 ms (mrc_rcvbuf_grow()): the
		 * tick's clock spares a clock read per message.
		 */
		ms->rx_read_ns = ktime_get_coarse_ns();
		mrc_mem_uncharge(ms, mb->mem);
	}
	return mb;
}

static int mrc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_msgbuf *mb = NULL;
	long timeo;
	u32 n;
	int err;

	if (flags & ~(MSG_DONTWAIT | MSG_TRUNC | MSG_PEEK | MSG_WAITALL |
		      MSG_CMSG_COMPAT | MSG_NOSIGNAL))
		return -EOPNOTSUPP;
	mrc_steer_note_reader(ms);
	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	for (;;) {
		err = 0;
		spin_lock_bh(&ms->lock);
		mb = mrc_rxq_pop(ms, flags & MSG_PEEK);
		if (!mb) {
			if (sk->sk_err)
				err = sock_error(sk);
			else if (ms->peer_closed ||
				 (sk->sk_shutdown & RCV_SHUTDOWN) ||
				 ms->state == MRC_ST_FAILED)
				err = 0;	/* end of file */
			else if (ms->state != MRC_ST_ESTABLISHED &&
				 ms->state != MRC_ST_CONNECTING)
				err = -ENOTCONN;
			else
				err = -EAGAIN;
		}
		spin_unlock_bh(&ms->lock);
		if (mb || err != -EAGAIN)
			break;
		err = mrc_wait(sk, &timeo, mrc_recv_ready);
		if (err)
			break;
	}
	if (!mb)
		goto out;
	n = min_t(size_t, len, mb->len);
	err = mrc_mb_to_iter(mb, n, &msg->msg_iter);
	if (!err) {
		msg->msg_flags |= MSG_EOR;
		if (n < mb->len)
			msg->msg_flags |= MSG_TRUNC;
		err = (flags & MSG_TRUNC) ? mb->len : n;
		if (msg->msg_name) {
			memcpy(msg->msg_name, &ms->peer, sizeof(ms->peer));
			msg->msg_namelen = sizeof(ms->peer);
		}
	}
	if (!(flags & MSG_PEEK))
		mrc_mb_free(mb);
out:
	release_sock(sk);
	return err;
}

static __poll_t mrc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	__poll_t mask = 0;
	u8 state;

	mrc_steer_note_reader(ms);
	sock_poll_wait(file, sock, wait);
	state = READ_ONCE(ms->state);
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	if (state == MRC_ST_LISTEN) {
		if (!list_empty_careful(&ms->accept_q))
			mask |= EPOLLIN | EPOLLRDNORM;
		return mask;
	}
	if (READ_ONCE(ms->rxq_len))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (READ_ONCE(ms->peer_closed) ||
	    (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN))
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (state == MRC_ST_FAILED)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLHUP;
	if (state == MRC_ST_ESTABLISHED && !READ_ONCE(ms->shut_wr) &&
	    !READ_ONCE(ms->peer_gone) && mrc_can_send(ms))
		mask |= EPOLLOUT | EPOLLWRNORM;
	return mask;
}

static int mrc_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct sk_buff_head q;
	int err = 0;

	/* SHUT_RD (0), SHUT_WR (1), SHUT_RDWR (2) -> RCV/SEND_SHUTDOWN bits */
	how++;
	if (how <= 0 || how > SHUTDOWN_MASK)
		return -EINVAL;
	__skb_queue_head_init(&q);
	lock_sock(sk);
	spin_lock_bh(&ms->lock);
	if (ms->state != MRC_ST_ESTABLISHED && ms->state != MRC_ST_FAILED) {
		err = -ENOTCONN;
	} else {
		WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | how);
		if (how & SEND_SHUTDOWN)
			WRITE_ONCE(ms->shut_wr, true);
		/* The close notification leaves once the queue is empty. */
		mrc_conn_drain(ms, mrc_now(), &q);
		mrc_conn_wake(sk, 0);
	}
	spin_unlock_bh(&ms->lock);
	release_sock(sk);
	mrc_xmit_queue(sock_net(sk), ms, &q);
	return err;
}

/*
 * Close the children a listener never accepted; socket lock held. Each peer
 * is told, as by close() of an accepted socket (mrc_conn_close_child()).
 * The listener's connection lock is not held here, so the child's needs no
 * nesting.
 */
static void mrc_listen_stop(struct mrc_sock *ms)
{
	struct mrc_sock *child, *tmp;
	LIST_HEAD(list);

	spin_lock_bh(&ms->lock);
	WRITE_ONCE(ms->state, MRC_ST_CLOSED);
	list_splice_init(&ms->accept_q, &list);
	spin_unlock_bh(&ms->lock);
	list_for_each_entry_safe(child, tmp, &list, accept_node) {
		list_del_init(&child->accept_node);
		child->parent = NULL;
		sk_acceptq_removed(&ms->sk);
		mrc_conn_close_child(child, false);
	}
}

/* close() with SO_LINGER: every message acknowledged, or no connection. */
static bool mrc_tx_drained(struct mrc_sock *ms)
{
	return !READ_ONCE(ms->tx_pending) ||
	       READ_ONCE(ms->state) != MRC_ST_ESTABLISHED ||
	       READ_ONCE(ms->sk.sk_err) || READ_ONCE(ms->peer_gone);
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms;
	struct mrc_net *mn;
	struct sk_buff_head q;
	bool linger = false, abort = false;
	long timeo;

	if (!sk)
		return 0;
	ms = mrc_sk(sk);
	mn = mrc_net(sock_net(sk));
	__skb_queue_head_init(&q);

	lock_sock(sk);
	/*
	 * SO_LINGER, as TCP: a timeout makes close() wait (interruptibly)
	 * until the peer acknowledged every message, then the socket closes
	 * as without it (lingering in the background if time ran out); a
	 * zero timeout aborts: the peer is told at once and fails the
	 * connection with ECONNRESET.
	 */
	if (sock_flag(sk, SOCK_LINGER) && !(current->flags & PF_EXITING)) {
		timeo = READ_ONCE(sk->sk_lingertime);
		if (timeo)
			mrc_wait(sk, &timeo, mrc_tx_drained);
		else
			abort = READ_ONCE(ms->state) == MRC_ST_ESTABLISHED;
	}
	mrc_unhash(sk);
	if (READ_ONCE(ms->state) == MRC_ST_LISTEN)
		mrc_listen_stop(ms);
	WRITE_ONCE(sk->sk_shutdown, SHUTDOWN_MASK);
	spin_lock_bh(&ms->lock);
	ms->released = true;
	ms->abort = abort;
	spin_unlock_bh(&ms->lock);
	if (abort)
		mrc_net_count(mn, MRC_CNT_CONN_ABORTED);
	else
		linger = mrc_conn_linger(ms);
	spin_lock_bh(&ms->lock);
	if (linger)
		/* Our close request if due, the linger deadline armed. */
		mrc_conn_drain(ms, mrc_now(), &q);
	else
		mrc_conn_close_due(ms, &q);
	spin_unlock_bh(&ms->lock);
	sock_orphan(sk);
	release_sock(sk);
	mrc_xmit_queue(sock_net(sk), ms, &q);
	if (!linger)
		mrc_conn_teardown(ms);
	else
		mrc_conn_wake(sk, 0);

	atomic_dec(&mn->nsocks);
	mrc_net_count(mn, MRC_CNT_SOCK_RELEASED);
	sock->sk = NULL;
	sock_put(sk);
	return 0;
}

/*
 * proto_ops.family is informational (the core registers and looks families up
 * through struct net_proto_family), so the const table names the default
 * number even when the module was loaded with another one.
 */
static const struct proto_ops mrc_proto_ops = {
	.family		= AF_MRC_DEFAULT,
	.owner		= THIS_MODULE,
	.release	= mrc_release,
	.bind		= mrc_bind,
	.connect	= mrc_connect,
	.socketpair	= sock_no_socketpair,
	.accept		= mrc_accept,
	.getname	= mrc_getname,
	.poll		= mrc_poll,
	.ioctl		= sock_no_ioctl,
	.listen		= mrc_listen,
	.shutdown	= mrc_shutdown,
	.setsockopt	= mrc_sockopt_set,
	.getsockopt	= mrc_sockopt_get,
	.sendmsg	= mrc_sendmsg,
	.recvmsg	= mrc_recvmsg,
	.mmap		= sock_no_mmap,
};

static void mrc_sk_destruct(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);

	/* Teardown ran: no engine, no buffers; only the route cache is left. */
	if (ms->dst_ok)
		dst_cache_destroy(&ms->dst_cache);
	ms->dst_ok = false;
	mrc_mp_free(ms->mp);
	ms->mp = NULL;
	/*
	 * Teardown drained the kept send pages and frag ring; a socket
	 * that never connected has none. Freed here all the same rather
	 * than leaked.
	 */
	spin_lock_bh(&ms->lock);
	mrc_mem_tx_pages_drain(ms);
	mrc_mem_tx_frags_drain(ms);
	spin_unlock_bh(&ms->lock);
	mrc_mem_release(sk);
}

/* Defaults shared by socket() and accepted children. */
static void mrc_sock_setup(struct sock *sk)
{
	sk->sk_protocol = MRC_PROTO_DEFAULT;
	sk->sk_destruct = mrc_sk_destruct;
	/* Datagrams that arrive while a task owns the socket (mrc_input.c). */
	sk->sk_backlog_rcv = mrc_rx_deferred;
	mrc_mem_buf_defaults(sk);
	/* Receive-path lookups walk the hashes under RCU only. */
	sock_set_flag(sk, SOCK_RCU_FREE);
	/*
	 * Packets in flight are charged to sk_wmem_alloc (they own the
	 * socket, see mrc_xmit_outer()), and sock_wfree() calls
	 * sk_write_space() as each is freed (no SOCK_USE_WRITE_QUEUE): the
	 * small-queue wake-up (mrc_tsq.c). The application's writability is
	 * the send queue's (sk_wmem_queued, mrc_sock_write_space()).
	 */
	sk->sk_write_space = mrc_tsq_write_space;
	mrc_conn_sock_init(mrc_sk(sk));
}

static int mrc_create(struct net *net, struct socket *sock, int protocol, int kern)
{
	struct mrc_net *mn = mrc_net(net);
	struct sock *sk;

	if (sock->type != SOCK_SEQPACKET) {
		mrc_net_count(mn, MRC_CNT_BAD_SOCKET);
		return -ESOCKTNOSUPPORT;
	}
	if (protocol != MRC_PROTO_DEFAULT) {
		mrc_net_count(mn, MRC_CNT_BAD_SOCKET);
		return -EPROTONOSUPPORT;
	}

	sk = sk_alloc(net, mrc_family, GFP_KERNEL, &mrc_proto, kern);
	if (!sk)
		return -ENOBUFS;

	sock->ops = &mrc_proto_ops;
	sock->state = SS_UNCONNECTED;
	sock_init_data(sock, sk);
	mrc_sock_setup(sk);

	atomic_inc(&mn->nsocks);
	mrc_net_count(mn, MRC_CNT_SOCK_CREATED);
	return 0;
}

/**
 * mrc_sock_alloc_child() - a socket for a connection a listener accepted
 * @parent: the listener (its buffer sizes are inherited)
 * @gfp: GFP_ATOMIC from the receive softirq
 *
 * The child has no struct socket until accept() grafts one.
 *
 * Return: the socket (one reference, owned by the accept queue), or NULL.
 */
struct sock *mrc_sock_alloc_child(struct sock *parent, gfp_t gfp)
{
	struct net *net = sock_net(parent);
	struct mrc_net *mn = mrc_net(net);
	struct sock *sk;

	sk = sk_alloc(net, mrc_family, gfp, &mrc_proto, 0);
	if (!sk)
		return NULL;
	sock_init_data(NULL, sk);
	sk->sk_type = parent->sk_type;
	mrc_sock_setup(sk);
	sk->sk_sndbuf = READ_ONCE(parent->sk_sndbuf);
	sk->sk_rcvbuf = READ_ONCE(parent->sk_rcvbuf);
	/* Buffers the application set are not grown for the child either. */
	sk->sk_userlocks = parent->sk_userlocks &
			   (SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK);
	sk->sk_rcvtimeo = READ_ONCE(parent->sk_rcvtimeo);
	sk->sk_sndtimeo = READ_ONCE(parent->sk_sndtimeo);
	/* The egress policy of the listener applies to its connections. */
	sk->sk_mark = READ_ONCE(parent->sk_mark);
	sk->sk_priority = READ_ONCE(parent->sk_priority);
	sk->sk_bound_dev_if = READ_ONCE(parent->sk_bound_dev_if);
	sk->sk_uid = parent->sk_uid;
	mrc_mem_inherit(sk, parent);
	atomic_inc(&mn->nsocks);
	mrc_net_count(mn, MRC_CNT_SOCK_CREATED);
	return sk;
}

/**
 * mrc_sock_free_child() - drop a child that was never accepted (after
 * mrc_conn_teardown())
 * @sk: the child
 */
void mrc_sock_free_child(struct sock *sk)
{
	struct mrc_net *mn = mrc_net(sock_net(sk));

	sock_set_flag(sk, SOCK_DEAD);
	atomic_dec(&mn->nsocks);
	mrc_net_count(mn, MRC_CNT_SOCK_RELEASED);
	sock_put(sk);
}

/* Not const: the family number is a load-time module parameter. */
static struct net_proto_family mrc_family_ops = {
	.create	= mrc_create,
	.owner	= THIS_MODULE,
};

/**
 * mrc_sock_init_module() - register struct proto and the AF_MRC family
 *
 * Return: 0, or a negative errno with everything registered so far undone.
 * -EEXIST means another protocol owns the family number.
 */
int mrc_sock_init_module(void)
{
	int err;

	/* See mrc_sock.pinet6_null: the IPv6 output path reads it. */
	BUILD_BUG_ON(offsetof(struct mrc_sock, pinet6_null) !=
		     offsetof(struct inet_sock, pinet6));
	mrc_mem_setup_proto(&mrc_proto);
	err = proto_register(&mrc_proto, 1);
	if (err)
		return err;

	mrc_family_ops.family = mrc_family;
	err = sock_register(&mrc_family_ops);
	if (err) {
		if (err == -EEXIST)
			pr_err("address family %d is already registered; load with family=<free slot>\n",
			       mrc_family);
		proto_unregister(&mrc_proto);
		return err;
	}
	return 0;
}

/**
 * mrc_sock_exit_module() - unregister the family; no socket can be alive
 * (each holds a module reference)
 */
void mrc_sock_exit_module(void)
{
	sock_unregister(mrc_family);
	proto_unregister(&mrc_proto);
}
