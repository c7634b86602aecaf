/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_sock.h - an AF_MRC socket (struct mrc_sock), its states and options,
 * the socket layer's entry points (mrc_sock.c).
 */
#ifndef MRC_SOCK_H
#define MRC_SOCK_H

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <net/sock.h>
#include <linux/mrc.h>

#include "core/mrc_engine.h"

struct mrc_mp;
struct mrc_msgbuf;

/**
 * enum mrc_sock_state - mrc_sock.state
 * @MRC_ST_CLOSED:      not connected (fresh, refused, torn down)
 * @MRC_ST_LISTEN:      listen() called
 * @MRC_ST_CONNECTING:  connect request sent, no response yet
 * @MRC_ST_ESTABLISHED: engine running
 * @MRC_ST_FAILED:      the connection failed; sk_err holds why
 */
enum mrc_sock_state {
	MRC_ST_CLOSED,
	MRC_ST_LISTEN,
	MRC_ST_CONNECTING,
	MRC_ST_ESTABLISHED,
	MRC_ST_FAILED,
};

/* Handshake: connect request retransmission and give-up. */
#define MRC_HS_RTO_MS		100
#define MRC_HS_RTO_MAX_MS	1000
#define MRC_HS_TRIES		8
/* Close notification: tries. */
#define MRC_CLOSE_TRIES		3
/*
 * Flowcell frag pages in a socket's ring (mrc_mem_tx_frag()): 256 KiB of
 * 4 KiB pages, five flowcells of 46 KB, what is in flight between the
 * sender's stack and the reader's recvmsg() on the unshaped bench cell.
 */
#define MRC_TX_FRAGS		64

/**
 * struct mrc_sock_opts - SOL_MRC options (inherited by accepted sockets)
 * @ev_count:      EVs per connection (0: the EV profile's)
 * @cc_profile:    congestion-control profile id (0: default)
 * @ev_profile:    EV profile id (0: default)
 * @plane_mask:    planes the connection may use (0: all)
 */
struct mrc_sock_opts {
	u16 ev_count;
	u16 cc_profile;
	u16 ev_profile;
	u32 plane_mask;
};

/**
 * struct mrc_sock - an AF_MRC socket; one socket is one connection
 * @sk:         the generic socket, must be first
 * @pinet6_null: NULL where struct inet_sock has pinet6 (see below)
 * @bind_node:  link in mrc_net.bind_hash while bound
 * @bound:      true once bind() succeeded
 * @local:      the bound local address (family, port, addr, scope); for an
 *              accepted socket the address the request was sent to
 * @lock:       the connection lock, see the locking strategy
 * @state:      enum mrc_sock_state
 * @dead:       torn down: no engine, no timer re-arm
 * @qpn_hashed: in mrc_net.qpn_hash
 * @peer_hashed: in mrc_net.peer_hash
 * @shut_wr:    shutdown(SHUT_WR) or close(): no more messages
 * @peer_closed: the peer will send no more (close request): EOF after
 *              the queue
 * @peer_gone:  the peer's socket is released: sends fail with EPIPE
 * @released:   close() was called on this socket
 * @abort:      closed with SO_LINGER and a zero timeout: the close request
 *              (ABORT) leaves at once, unacknowledged messages are dropped
 * @close_sent: what our close requests announced: 0 nothing, 1 no more
 *              sends (SHUT_WR), 2 released
 * @orphan:     close() called before the close handshake finished:
 *              lingering (see mrc_conn_linger())
 * @linger_deadline: lingering orphan with nothing in flight: torn down at
 *              this time even if the peer's close request never comes
 * @reset_deadline: the peer released its socket while messages of ours were
 *              unacknowledged: they fail (ECONNRESET) if still pending then
 * @room_deadline: a local queue refused packets (mrc_conn_local_drops())
 *              or took them while dropping others
 *              (mrc_conn_local_congestion()): the planes it closed in the
 *              engine reopen at this time
 * @room_closed: the planes closed until @room_deadline (bit p: plane p),
 *              every one refused since, not only the last batch's: a
 *              plane reopened early is refused again at once
 * @room_backoff: how long the current (or last) closure of planes lasts:
 *              doubles while the queues still refuse the first packet
 *              tried after reopening (mrc_conn_close_room())
 * @room_reopened: when the timer last reopened the planes (0: never)
 * @tsq_closed: every plane's room is closed because the connection's bytes
 *              in this host's queues reached net.mrc.limit_output_bytes
 *              (mrc_tsq.c); @lock
 * @tsq_flags:  MRC_TSQ_THROTTLED, MRC_TSQ_QUEUED (mrc_tsq.h): atomic bit
 *              operations, no lock (set under @lock, cleared by whatever
 *              context frees a packet)
 * @tsq_wake:   bytes in this host's queues at or below which a freed packet
 *              wakes the connection (half the limit); written under @lock,
 *              read without it (READ_ONCE)
 * @tsq_tasklet: runs the transmit pass a freed packet asked for; each
 *              schedule holds a socket reference
 * @idle_deadline: child: aborted by its listener at this time if still
 *              queued, unless a message was delivered first (0: no
 *              deadline); read by the listener's timer under both locks
 * @ps_tries:   port-status update being retransmitted: sends so far (0:
 *              none pending, see mrc_conn_send_port_status())
 * @ps_tx_ts:   its timestamp, which the peer's answer echoes
 * @ps_deadline: when it is sent again
 * @qpn_node:   link in mrc_net.qpn_hash
 * @peer_node:  link in mrc_net.peer_hash
 * @peer:       the peer (getpeername())
 * @saddr:      source address of every packet we send
 * @qpn:        our QPN, the BTH.dest_qp of every packet to us
 * @peer_qpn:   the peer's QPN
 * @local_conn_id: our connection id
 * @peer_conn_id:  the peer's connection id
 * @local_init_psn: first PSN we send
 * @peer_init_psn:  first PSN the peer sends
 * @token:      connect request id, echoed by the response
 * @peer_max_msg: longest message the peer accepts
 * @mtu:        payload bytes per data packet of this connection; lowered
 *              (never raised) by an ICMPv6 Packet Too Big (mrc_pmtu.c)
 * @pmtu:       0, or the largest inner IPv6 packet (IPv6 + UDP + MRC) a
 *              Packet Too Big allowed: the transmit path fragments larger
 *              ones (cut before it). Written under @lock, read without it
 * @conn:       the protocol engine (established only)
 * @conn_pending: a client's engine from connect() (built where it may
 *              sleep) until the connect response names the peer and it
 *              becomes @conn; @lock once the request is out
 * @timer:      the connection's only timer (handshake, engine deadline)
 * @timer_stall_deferred: the current expiry was late and got a grace period
 * @hs_tries:   connect/close requests sent so far
 * @hs_cookie_qpn: connecting: the cookie the server's RETRY answer gave
 *              (top 24 bits), echoed as dst_qpn of our requests; 0: none
 * @hs_cookie_conn: connecting: its low 16 bits, echoed as dst_conn
 * @hs_cookies: connecting: RETRY answers followed (at most
 *              MRC_HS_COOKIE_ECHOES)
 * @hs_deadline: handshake timer deadline (ns, CLOCK_MONOTONIC)
 * @tx_cap:     size of @txm (engine tx_max_msgs)
 * @txm:        messages queued in the engine, index msn % @tx_cap
 * @tx_pending: messages in the engine not yet completed
 * @tx_page_cache: pages of completed messages kept for the next ones
 *              (page->lru; mrc_mem.c), charged to the socket
 * @tx_page_cached: pages in @tx_page_cache
 * @tx_frags:   flowcell frag pages, a ring (mrc_mem_tx_frag()); each holds
 *              one reference of its own and is charged to the socket
 * @tx_frag_next: the slot of @tx_frags to take from next
 * @mem_charged: bytes charged to the socket's memory accounting now
 *              (mrc_mem_charge() less mrc_mem_uncharge()): its messages,
 *              the kept pages and @tx_frags
 * @rx_cap:     size of @rxm (engine rx_max_msgs)
 * @rxm:        messages being received, index msn % @rx_cap
 * @rx_next_msn: MSN of the next message to deliver
 * @rxq:        delivered messages waiting for recvmsg()
 * @rxq_len:    messages in @rxq
 * @rx_queued:  bytes charged for @rxq
 * @rx_read_ns: when recvmsg() last took a message (mrc_now()'s clock at
 *	a tick's resolution: ktime_get_coarse_ns()); @lock
 * @rx_inprog:  bytes charged for @rxm
 * @rx_cpu:     1 + the CPU the socket was last read or polled on, 0 before
 *	(mrc_steer.c)
 * @dst_cache:  cached route of (plane 0, path 0)
 * @dst_ok:     @dst_cache was initialised
 * @route_mark: sk_mark when the connection was routed (connect, or the
 *              listener's for a child); written before the socket is
 *              hashed. The route caches hold routes for this mark: a
 *              later SO_MARK makes the transmit path look routes up
 *              uncached (policy routing by the new mark), see
 *              mrc_route_cache_ok()
 * @accept_q:   listener: established children not yet accepted
 * @accept_node: child: link in the listener's @accept_q
 * @parent:     child: the listener, while queued
 * @opts:       SOL_MRC options: written by setsockopt() under the socket
 *              lock and the connection lock (a listener's are copied to
 *              each child in the receive softirq, under the listener's
 *              connection lock)
 * @cc_algo:    enum mrc_cc_algo the engine runs (from the CC profile)
 * @tx_burst:   longest flowcell the transmit path asks the engine for
 *              (EV profile burst, capped by the 64 KiB of one
 *              segmentation-offload datagram); written at set-up
 * @tclass_data: IPv6 traffic class of data packets (EV profile DSCP,
 *              ECT(0)); set by connect(), listen() or the connection's
 *              set-up under the socket lock, before its first packet
 * @tclass_ctl: traffic class of control packets (EV profile dscp-ctl,
 *              Not-ECT), the same way; a listener's is read by the
 *              receive softirq for its stateless answers (READ_ONCE())
 * @txd:        @tx_burst transmit descriptors (connection lock), NULL
 *              when @tx_burst is 1
 * @destroy_work: tears a lingering (closed) connection down, or a child
 *              its listener aborted for idleness
 * @start_work: a child's set-up in process context (mrc_handshake.c):
 *              its engine allocated where allocations may sleep, then the
 *              child queued for accept() and the client answered; holds
 *              a reference on the child and one on @parent while queued
 * @plane_pkts: packets sent per plane (atomic: the transmit path runs
 *              without the connection lock, from process context and
 *              softirq at once)
 * @plane_bytes: bytes (MRC packet, BTH to ICRC) sent per plane (atomic)
 * @mp:         path snapshot of a configured route (NULL: no route, the
 *              single-plane default through the main routing table)
 * @nl_ev_next: earliest mrc_now() of the next netlink path-change event
 *              (rate limit, connection lock)
 * @nl_ev_lost: EV changes not reported since the last one (connection lock)
 * @peer_planes_down: engine planes whose NIC port the peer announced down
 *              (ERTH port-status update; connection lock); an engine plane
 *              is up when our port is up and the peer's is not down
 */
struct mrc_sock {
	/*
	 * Who may write each field (see the locking strategy in mrc_impl.h):
	 * L    @lock, the connection lock
	 * L/R  written under @lock, read without it (READ_ONCE())
	 * S    the socket lock (lock_sock()); S/R: read without it too
	 * B    mrc_net.bind_lock while linked (bind() holds S as well)
	 * C    mrc_net.conn_lock; receive-path readers walk the hash under RCU
	 * P    written before the socket is hashed (connect, listen, a
	 *      child's set-up), constant after: RCU readers see it whole
	 * E    constant once the connection is established
	 * A    atomic operations, no lock
	 * own  the object's own synchronisation (hrtimer, tasklet, work,
	 *      per-CPU route cache)
	 */
	struct sock sk;				/* the core's rules */
	/*
	 * Where struct inet_sock keeps pinet6; always NULL. The packets of a
	 * connection are owned by its socket (skb->sk), so that netfilter's
	 * skuid/skgid, cgroup egress BPF and the socket's cgroup see them as
	 * they see TCP's, and the IPv6 output path reads inet6_sk(skb->sk)
	 * for the PMTU mode and fragment size: NULL there means "the
	 * route's MTU", as for a packet without a socket. mrc_sock_init_module()
	 * checks the offset at build time.
	 */
	struct ipv6_pinfo *pinet6_null;		/* constant */
	struct hlist_node bind_node;		/* B */
	bool bound;				/* B */
	struct sockaddr_mrc local;		/* S, or P (child) */

	spinlock_t lock;			/* the connection lock (mrc_impl.h) */
	u8 state;				/* L/R */
	bool dead;				/* L */
	bool qpn_hashed;			/* C */
	bool peer_hashed;			/* C */
	bool shut_wr;				/* L */
	bool peer_closed;			/* L/R */
	bool peer_gone;				/* L/R */
	bool released;				/* L */
	bool abort;				/* L */
	u8 close_sent;				/* L */
	bool orphan;				/* L */
	u64 linger_deadline;			/* L */
	u64 reset_deadline;			/* L */
	u64 room_deadline;			/* L */
	u32 room_closed;			/* L */
	u64 room_backoff;			/* L */
	u64 room_reopened;			/* L */
	bool tsq_closed;			/* L */
	unsigned long tsq_flags;		/* A */
	u32 tsq_wake;				/* L/R */
	struct tasklet_struct tsq_tasklet;	/* own */
	u64 idle_deadline;			/* L */
	u8 ps_tries;				/* L */
	u16 ps_tx_ts;				/* L */
	u64 ps_deadline;			/* L */
	struct hlist_node qpn_node;		/* C */
	struct hlist_node peer_node;		/* C */
	struct sockaddr_mrc peer;		/* L, then E */
	struct in6_addr saddr;			/* P */
	u32 qpn;				/* C, then constant */
	u32 peer_qpn;				/* L, then E */
	u32 pmtu;				/* L/R */
	u16 local_conn_id;			/* P */
	u16 peer_conn_id;			/* L, then E */
	u32 local_init_psn;			/* P */
	u32 peer_init_psn;			/* L, then E */
	u16 token;				/* P */
	u32 peer_max_msg;			/* L */
	u32 mtu;				/* L */
	struct mrc_conn *conn;			/* L */
	struct mrc_conn *conn_pending;		/* L */
	struct hrtimer timer;			/* own, armed under L */
	bool timer_stall_deferred;		/* L */
	u8 hs_tries;				/* L */
	u32 hs_cookie_qpn;			/* L */
	u16 hs_cookie_conn;			/* L */
	u8 hs_cookies;				/* L */
	u64 hs_deadline;			/* L */
	u16 tx_cap;				/* L */
	struct mrc_msgbuf **txm;		/* L */
	u32 tx_pending;				/* L/R */
	struct list_head tx_page_cache;		/* L */
	u32 tx_page_cached;			/* L/R */
	struct page *tx_frags[MRC_TX_FRAGS];	/* L */
	u8 tx_frag_next;			/* L */
	u64 mem_charged;			/* L */
	u16 rx_cap;				/* L */
	struct mrc_msgbuf **rxm;		/* L */
	u16 rx_next_msn;			/* L */
	struct list_head rxq;			/* L */
	u32 rxq_len;				/* L/R */
	u64 rx_queued;				/* L */
	u64 rx_read_ns;				/* L */
	u64 rx_inprog;				/* L */
	int rx_cpu;				/* A */
	struct dst_cache dst_cache;		/* own (per CPU) */
	bool dst_ok;				/* P */
	u32 route_mark;				/* P */
	struct list_head accept_q;		/* L */
	struct list_head accept_node;		/* listener's L */
	struct sock *parent;			/* listener's L */
	struct mrc_sock_opts opts;		/* S and L */
	u8 cc_algo;				/* L (set-up) */
	u8 tx_burst;				/* L (set-up) */
	u8 tclass_data;				/* S/R */
	u8 tclass_ctl;				/* S/R */
	struct mrc_tx_desc *txd;		/* L */
	struct work_struct destroy_work;	/* own */
	struct work_struct start_work;		/* own */
	atomic64_t plane_pkts[MRC_INFO_PLANES];	/* A */
	atomic64_t plane_bytes[MRC_INFO_PLANES];	/* A */
	struct mrc_mp *mp;			/* P */
	u64 nl_ev_next;				/* L */
	u32 nl_ev_lost;				/* L */
	u32 peer_planes_down;			/* L */
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return container_of(sk, struct mrc_sock, sk);
}

extern int mrc_family;
extern struct workqueue_struct *mrc_wq;
extern bool mrc_udp_eager;

int mrc_sock_init_module(void);
void mrc_sock_exit_module(void);
struct sock *mrc_sock_alloc_child(struct sock *parent, gfp_t gfp);
void mrc_sock_free_child(struct sock *sk);
void mrc_sock_write_space(struct sock *sk);

#endif /* MRC_SOCK_H */
