// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_lookup.c - finding a namespace's connections.
 *
 * This file owns:
 *
 *  - the QPN hash of a namespace's connections (an RCU hash,
 *    mrc_net.qpn_hash), which the receive path (mrc_input.c,
 *    mrc_conn_rx.c) demultiplexes by, once per packet (mrc_lookup_rx():
 *    the socket that makes a packet worth its CRC is the one it is handed
 *    to), and by which the handshake (mrc_handshake.c) finds the
 *    connection an answer or a close request names. A socket gets its
 *    random QPN, unique in its namespace, when it connects or is created
 *    as a listener's child (mrc_lookup_hash()); it leaves the hash, and
 *    an accepted child the peer hash its set-up put it in
 *    (mrc_handshake.c), at teardown (mrc_lookup_unhash());
 *  - the walk of every connection to one peer (mrc_lookup_for_peer()),
 *    for what names a peer and not a connection: ICMPv6 Packet Too Big
 *    (mrc_pmtu.c), port-status updates and their answers
 *    (mrc_port_status.c).
 *
 * Locking (the strategy is mrc_impl.h's): mrc_net.conn_lock (spinlock,
 * BH-safe) serialises the writers, mrc_lookup_hash() and
 * mrc_lookup_unhash(), and guards mrc_net.nconns and
 * mrc_sock.qpn_hashed/peer_hashed. The writers run in process context or
 * a work item, or in the receive softirq for a child being set up
 * (mrc_lookup_hash() with its listener's connection lock held: lock order
 * mrc_sock.lock of a listener -> mrc_net.conn_lock). Readers take no
 * lock: they walk the hash under RCU (the receive softirq's read section,
 * or rcu_read_lock()). Sockets are SOCK_RCU_FREE, so a socket found stays
 * valid memory until the reader's read section ends; a reader that locks
 * it or keeps it takes a reference first (refcount_inc_not_zero(), which
 * fails for a socket being freed) and checks mrc_sock.dead under its
 * connection lock: teardown marks the socket dead under that lock before
 * it unhashes it.
 */
#include <linux/jhash.h>
#include <linux/random.h>
#include <net/ipv6.h>

#include "mrc_impl.h"
#include "mrc_conn_rx.h"
#include "mrc_lookup.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_sock.h"

static u32 mrc_lookup_key(u32 qpn)
{
	return jhash_1word(qpn, 0);
}

/**
 * mrc_lookup_qpn() - the connection whose QPN is @qpn (RCU)
 * @mn: namespace state
 * @qpn: a local QPN
 *
 * No reference is taken: the socket found is valid until the caller's RCU
 * read section ends.
 *
 * Return: the socket, or NULL.
 */
struct mrc_sock *mrc_lookup_qpn(struct mrc_net *mn, u32 qpn)
{
	struct mrc_sock *ms;

	hash_for_each_possible_rcu(mn->qpn_hash, ms, qpn_node,
				   mrc_lookup_key(qpn))
		if (ms->qpn == qpn)
			return ms;
	return NULL;
}

/**
 * mrc_lookup_rx() - the connection a received packet is for (RCU)
 * @mn: namespace state
 * @qpn: BTH destination QP of a received packet
 * @b: the receive batch: its connection (the previous packet's, for the
 *     packets of a flowcell after the first) and the one the receive front
 *     end found for the datagram's first packet (@b->hint) need no lookup
 *
 * The one lookup of a received packet: it lets the receive path drop
 * packets for no connection before it spends a CRC over them (junk must
 * not cost more than a hash lookup), and the socket it finds is the one
 * the packet is handed to (mrc_conn_rcv()). No reference is taken.
 *
 * Return: the socket that holds @qpn (it may be closing), or NULL.
 */
struct mrc_sock *mrc_lookup_rx(struct mrc_net *mn, u32 qpn,
			       const struct mrc_rx_batch *b)
{
	if (b->ms && b->ms->qpn == qpn)
		return b->ms;
	if (b->hint && b->hint->qpn == qpn)
		return b->hint;
	return mrc_lookup_qpn(mn, qpn);
}

/**
 * mrc_lookup_hash() - give a socket a random QPN unique in its namespace
 * @mn: namespace state
 * @ms: the socket (not hashed yet)
 *
 * QPNs 0..15 are never used (MRC_QPN_EP and friends are reserved).
 *
 * Return: 0, or -EADDRNOTAVAIL if no free QPN was found.
 */
int mrc_lookup_hash(struct mrc_net *mn, struct mrc_sock *ms)
{
	int tries;
	u32 qpn;

	spin_lock_bh(&mn->conn_lock);
	for (tries = 0; tries < 64; tries++) {
		qpn = get_random_u32() & MRC_QPN_MASK;
		if (qpn < 16 || mrc_lookup_qpn(mn, qpn))
			continue;
		ms->qpn = qpn;
		ms->qpn_hashed = true;
		hash_add_rcu(mn->qpn_hash, &ms->qpn_node, mrc_lookup_key(qpn));
		mn->nconns++;
		spin_unlock_bh(&mn->conn_lock);
		return 0;
	}
	spin_unlock_bh(&mn->conn_lock);
	return -EADDRNOTAVAIL;
}

/**
 * mrc_lookup_unhash() - take a socket out of the QPN hash and the peer
 * hash, whichever it is in
 * @mn: namespace state
 * @ms: the socket, already marked dead (mrc_conn_teardown())
 *
 * Readers that found it before keep it until their RCU read section ends
 * (SOCK_RCU_FREE).
 */
void mrc_lookup_unhash(struct mrc_net *mn, struct mrc_sock *ms)
{
	spin_lock_bh(&mn->conn_lock);
	if (ms->qpn_hashed) {
		hash_del_rcu(&ms->qpn_node);
		ms->qpn_hashed = false;
		mn->nconns--;
	}
	if (ms->peer_hashed) {
		hash_del_rcu(&ms->peer_node);
		ms->peer_hashed = false;
	}
	spin_unlock_bh(&mn->conn_lock);
}

/**
 * mrc_lookup_for_peer() - run @fn on every connection to @peer, locked
 * @net: namespace
 * @peer: the peer's address
 * @fn: called with the connection's lock held and a queue for the skbs to
 *	send once it is dropped; returns true if the connection was the one
 *	the caller was looking for
 * @arg: passed to @fn
 *
 * Softirq. A walk of the whole QPN table: its callers (ICMPv6 errors,
 * port-status updates and their answers) are rare and name the peer, not
 * the connection. Sockets are freed after a grace period (SOCK_RCU_FREE);
 * each is held while locked.
 *
 * Return: how many calls of @fn returned true.
 */
u32 mrc_lookup_for_peer(struct net *net, const struct in6_addr *peer,
			bool (*fn)(struct mrc_sock *ms, void *arg,
				   struct sk_buff_head *q),
			void *arg)
{
	struct mrc_net *mn = mrc_net(net);
	struct sk_buff_head q;
	struct mrc_sock *ms;
	u32 n = 0;
	int bkt;

	rcu_read_lock();
	hash_for_each_rcu(mn->qpn_hash, bkt, ms, qpn_node) {
		if (!ipv6_addr_equal(peer, (struct in6_addr *)ms->peer.smrc_addr) ||
		    !refcount_inc_not_zero(&ms->sk.sk_refcnt))
			continue;
		__skb_queue_head_init(&q);
		spin_lock(&ms->lock);
		if (fn(ms, arg, &q))
			n++;
		spin_unlock(&ms->lock);
		mrc_xmit_queue(net, ms, &q);
		sock_put(&ms->sk);
	}
	rcu_read_unlock();
	return n;
}
