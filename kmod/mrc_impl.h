/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_impl.h - internal declarations shared by the files of mrc.ko.
 *
 * Locking strategy
 * ================
 * Objects and who owns them:
 *
 *  - struct mrc_net: one per network namespace, created and destroyed by the
 *    pernet operations (mrc_net.c). It lives as long as the namespace; a
 *    socket pins its namespace through sk->sk_net, so a socket never sees
 *    its mrc_net go away.
 *
 *  - mrc_net.bind_lock (spinlock, BH-safe): protects mrc_net.bind_hash and
 *    mrc_sock.bound/mrc_sock.port while they are linked. Taken in process
 *    context only today (bind, release); lookups from the receive softirq
 *    will use RCU over the same hlist, which is why entries are added with
 *    hlist_add_head_rcu() and freed only after an RCU grace period
 *    (SOCK_RCU_FREE).
 *
 *  - The socket lock (lock_sock) serialises every operation on one socket
 *    issued from process context (bind, release, getsockname). Lock order:
 *    socket lock, then mrc_net.bind_lock. Nothing takes them the other way.
 *
 *  - mrc_net.orphans (atomic_t): taken in close() (mrc_conn_linger(),
 *    against mrc_net.max_orphans, read with READ_ONCE()), given back by
 *    the orphan's teardown work; no lock.
 *
 *  - Counters in struct mrc_net are atomic64_t: updated from any context
 *    without a lock, read racily for reporting (a snapshot, not a
 *    transaction).
 *
 * The datapath (connections, see mrc_conn_k.c, mrc_input.c, mrc_output.c)
 * adds:
 *
 *  - mrc_sock.lock (spinlock, BH-safe), "the connection lock": protects the
 *    protocol engine (mrc_sock.conn) and everything the datapath shares
 *    between process context, the UDP receive softirq and the hrtimer
 *    softirq: state, handshake fields, the send ring (txm), the receive
 *    slots (rxm), the delivered-message queue (rxq) and its byte counts,
 *    the accept queue of a listener. Every engine call is made with it held
 *    (spin_lock_bh() in process context, spin_lock() in softirq), and the
 *    host contract (drain poll_tx, drain poll_event, re-arm the timer) is
 *    completed before it is dropped. skbs built while it is held are only
 *    transmitted after it is dropped (a local sk_buff_head), so the
 *    transmit path never runs under it.
 *
 *  - mrc_net.conn_lock (spinlock, BH-safe): protects the QPN hash (demux
 *    key of every received packet) and the peer hash (duplicate connect
 *    requests). Readers (receive softirq) walk them under RCU only; the
 *    objects are sockets with SOCK_RCU_FREE, so a reader that found one can
 *    always take its connection lock and then checks mrc_sock.dead.
 *
 *  - mrc_net.udp_mutex (mutex, process context only): creation of the
 *    per-namespace UDP socket on first use.
 *
 *  - mrc_net.hs_guard.lock (spinlock, BH-safe): the handshake answer
 *    buckets (mrc_hs_guard.c). A leaf: taken in the receive softirq with
 *    no other lock of the module held, never held across anything else.
 *
 *  - Lock order: socket lock (lock_sock) -> mrc_sock.lock of a listener ->
 *    mrc_sock.lock of a child -> mrc_net.conn_lock / mrc_net.bind_lock.
 *    The receive path takes at most one connection lock at a time. A
 *    child's start work (mrc_handshake.c, process context) allocates the
 *    child's engine with no lock held (ms->conn stays NULL, so no other
 *    path uses the child's arrays; a client's connect() does the same
 *    before its request leaves, mrc_sock.conn_pending), then takes the
 *    listener lock and the
 *    child lock to install the engine and queue the child. A listener's timer
 *    (mrc_listen_reap_idle()) holds the listener lock and takes each queued
 *    child's lock in turn to read its idle deadline; the children it
 *    unlinks are aborted by a work item with no listener lock held.
 *
 *  - Nesting within one lock class: a listener and its children are
 *    sockets of one family, so their connection locks (and their socket
 *    locks) share a lockdep class. The child's lock taken with the
 *    listener's held uses spin_lock_nested(SINGLE_DEPTH_NESTING) (child
 *    set-up by its start work, the listener's idle reaper;
 *    mrc_listen_stop() drops the listener's
 *    connection lock before it locks a child), and accept() takes
 *    the child's socket lock under the listener's with
 *    lock_sock_nested(SINGLE_DEPTH_NESTING). Never deeper than one level,
 *    never child before listener.
 *
 *  - Softirq context: the UDP socket's sk_data_ready (mrc_udp_data_ready()
 *    and mrc_udp_rcv(), in the softirq that queued the datagram) and the
 *    per-connection hrtimer (HRTIMER_MODE_ABS_SOFT). Process context:
 *    socket calls. Both may free a connection's engine; teardown marks the
 *    socket dead under its lock first, so nobody re-arms the timer, and
 *    only then cancels it (hrtimer_cancel() outside the lock).
 *
 *  - Packets in flight own their socket (skb_set_owner_w() in
 *    mrc_xmit_one(): skb->sk for the host's egress policy, the bytes in
 *    sk_wmem_alloc). Every transmit path therefore holds a socket
 *    reference while it sends (process context: the file's; softirq:
 *    refcount_inc_not_zero() after the RCU lookup, or sock_hold() of a
 *    child still on the accept queue): sk_wmem_alloc of a socket whose
 *    last reference is gone must not grow. Answers no socket stands behind
 *    (rejects) have no owner.
 *
 *  - Small queues (mrc_tsq.c): sock_wfree() calls sk_write_space()
 *    (mrc_tsq_write_space()) for every packet freed, in whatever context
 *    frees it, with no lock of ours; it only flips mrc_sock.tsq_flags bits
 *    (atomic) and schedules mrc_sock.tsq_tasklet with a socket reference
 *    (refcount_inc_not_zero(): a socket nobody holds gets no pass). The
 *    tasklet (softirq) takes mrc_sock.lock with spin_lock() as the timer
 *    does, runs the transmit pass and sends after dropping it.
 *
 *  - Multi-plane path snapshots (struct mrc_mp, mrc_sock.mp): built in
 *    process context (connect) or in the receive softirq (a child), before
 *    the socket is hashed, and freed by the socket destructor only. The
 *    route and plane fields never change after publication; only
 *    mrc_mp_plane.up changes, under the connection lock (the transmit path
 *    reads it with READ_ONCE() for the choice of the handshake plane).
 *
 *  - Plane events (mrc_conn_plane_state()) come from the configuration
 *    store (mrc_cfg.c) with its per-namespace mutex held, in process
 *    context, RTNL held for netdevice events. Lock order: RTNL ->
 *    mrc_cfg_net.lock -> (RCU walk of mrc_net.qpn_hash) -> mrc_sock.lock
 *    of one connection at a time (spin_lock_bh()). The datapath never
 *    takes RTNL or the configuration mutex, so the order cannot invert.
 *
 *  - ICMPv6 Packet Too Big (mrc_pmtu.c), softirq: RCU walk of
 *    mrc_net.qpn_hash, a socket reference, then mrc_sock.lock of one
 *    connection at a time (spin_lock()), which lowers mrc_sock.mtu and
 *    mrc_sock.pmtu with WRITE_ONCE(); the transmit path, which runs
 *    without the lock, reads pmtu once per batch (READ_ONCE()). A batch
 *    built before the change is sent at its old size (fragmented only if
 *    it read the new pmtu), and its losses are retransmitted. Lock order:
 *    RCU -> mrc_sock.lock, as for port-status updates.
 *
 *  - Netlink connection dump (MRC_CMD_CONN_GET, mrc_nl.c), process
 *    context: RCU walk of mrc_net.qpn_hash (no conn_lock, no socket
 *    reference), then mrc_sock.lock of one connection at a time
 *    (spin_lock_bh()) only to copy it (stats, planes, EVs); the message is
 *    built after the lock is dropped. Lock order: RCU -> mrc_sock.lock.
 *
 *  - Telemetry and netlink events from the datapath: the mrc:* tracepoints
 *    (mrc_telemetry.h) and mrc_nl_notify_conn()/mrc_nl_notify_paths() run
 *    with the connection lock held (or just after teardown dropped it), in
 *    softirq or process context. They never sleep: the netlink messages are
 *    GFP_ATOMIC and genlmsg_multicast_netns() only takes netlink's internal
 *    locks, which never call back into mrc. Lock order: mrc_sock.lock ->
 *    netlink internals.
 *
 * Nothing in the module sleeps with a spinlock held; nothing allocates with
 * GFP_KERNEL in softirq context: softirq allocations (the engine, receive
 * buffers, child sockets, skbs) are GFP_ATOMIC and a failure drops the
 * packet (counted) for the peer to retransmit.
 */
#ifndef MRC_IMPL_H
#define MRC_IMPL_H

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include <net/dst_cache.h>
#include <net/sock.h>
#include <linux/mrc.h>

#include "core/mrc_engine.h"
#include "mrc_cfg.h"
#include "mrc_compat.h"
#include "mrc_hs_guard.h"
#include "mrc_tsq.h"

#undef pr_fmt
#define pr_fmt(fmt) "mrc: " fmt

#define MRC_BIND_HASH_BITS	6
#define MRC_CONN_HASH_BITS	8

/**
 * enum mrc_net_counter - per-namespace counters shown in /proc/net/mrc
 * @MRC_CNT_SOCK_CREATED:  sockets created
 * @MRC_CNT_SOCK_RELEASED: sockets released
 * @MRC_CNT_BIND_OK:       successful bind() calls
 * @MRC_CNT_BAD_ADDR:      bind() rejected: short, wrong family, reserved bits
 * @MRC_CNT_ADDR_NOTAVAIL: bind() rejected: address not local
 * @MRC_CNT_ADDR_INUSE:    bind() rejected: service id already bound
 * @MRC_CNT_BAD_SOCKET:    socket() rejected: wrong type or protocol
 * @MRC_CNT_RX_PKTS:       UDP datagrams handed to mrc.ko
 * @MRC_CNT_RX_TRUNC:      dropped: shorter than the headers (or UDP length
 *                         inconsistent)
 * @MRC_CNT_RX_BAD_ICRC:   dropped: ICRC mismatch
 * @MRC_CNT_RX_BAD_OPCODE: dropped: opcode not defined by MRC 1.0
 * @MRC_CNT_RX_BAD_HDR:    dropped: any other decoder rejection (reserved
 *                         bits, flags, padding, RETH, length, wrong QP)
 * @MRC_CNT_RX_UNKNOWN_QPN: dropped: no connection has BTH.dest_qp
 * @MRC_CNT_RX_WRONG_SRC:  dropped: source address is not the peer's
 * @MRC_CNT_RX_NOT_READY:  dropped: connection not established (yet/any more)
 * @MRC_CNT_RX_STALE:      ignored by the engine: wrong connection id, old
 *                         PSN, unknown EV; or a CLOSE for a connection that
 *                         is already gone (both ends closed)
 * @MRC_CNT_RX_PROTO:      rejected by the engine as a protocol violation
 * @MRC_CNT_RX_OOW:        data outside the receive window
 * @MRC_CNT_RX_DUP:        duplicate data (re-acknowledged, not re-placed)
 * @MRC_CNT_RX_NOBUF:      data refused for SO_RCVBUF (answered with a NACK
 *                         NO_RESOURCE: the sender retries, no penalty)
 * @MRC_CNT_RX_BAD_HS:     handshake packet that matches nothing or fails a
 *                         check (token, ids, source, state)
 * @MRC_CNT_RX_NOMEM:      dropped: GFP_ATOMIC allocation failed
 * @MRC_CNT_RX_BAD_ADDR:   dropped: not unicast to this host (link-layer
 *                         broadcast/multicast/other host, or a multicast
 *                         destination), or an unspecified or multicast
 *                         source address
 * @MRC_CNT_TX_PKTS:       packets sent
 * @MRC_CNT_TX_ERR:        packets lost to an allocation or output error
 * @MRC_CNT_TX_NOROUTE:    packets without a route
 * @MRC_CNT_CONN_REQ_SENT: connect requests sent (first transmissions)
 * @MRC_CNT_CONN_REQ_RTX:  connect requests retransmitted
 * @MRC_CNT_CONN_RESP_SENT: connect responses (accepts) sent, repeats incl.
 * @MRC_CNT_CONN_REFUSED:  connect requests rejected (no listener)
 * @MRC_CNT_CONN_BACKLOG:  connect requests dropped: accept queue full
 * @MRC_CNT_CONN_ESTAB:    connections established (both sides count)
 * @MRC_CNT_CONN_TIMEDOUT: connect attempts that timed out
 * @MRC_CNT_CONN_FAILED:   established connections that failed (engine
 *                         error, peer reset)
 * @MRC_CNT_CONN_CLOSED:   connections torn down (any reason)
 * @MRC_CNT_RX_BAD_SRH:    dropped: a routing header in front of UDP that is
 *                         not a valid segment routing header for its final
 *                         destination (type, length, segments left,
 *                         segment list, TLVs); last so that the counters
 *                         before it keep their numbers
 * @MRC_CNT_TIMER_STALLS:  connection timers that fired so late (the host
 *                         did not run) that their timeouts got a grace
 *                         period for pending acknowledgements
 * @MRC_CNT_TX_PORT_STATUS: port-status updates sent (a local plane went
 *                         down or up; one per established connection on it)
 * @MRC_CNT_RX_PORT_STATUS: port-status updates received for a connection
 *                         of this namespace (source address and token)
 * @MRC_CNT_CONN_ABORTED:  connections closed with SO_LINGER 0 (abort)
 * @MRC_CNT_TX_LOCAL_DROP: data packets this host's own queue (qdisc, device)
 *                         refused; retransmitted at once, see
 *                         mrc_conn_local_drops()
 * @MRC_CNT_TX_MEM_LIMIT:  sends refused for memory (net.mrc.mem or the
 *                         socket's memory cgroup): waited or ENOBUFS
 * @MRC_CNT_RX_MEM_LIMIT:  new received messages refused for memory
 *                         (answered receiver-not-ready, as a full buffer)
 * @MRC_CNT_CONN_ICMP:     connect attempts failed by an ICMPv6 error
 *                         (port unreachable: ECONNREFUSED)
 * @MRC_CNT_HS_COOKIE_SENT: connect requests answered with a cookie
 *                         (RETRY, no state kept; mrc_hs_guard.c)
 * @MRC_CNT_HS_COOKIE_BAD: connect requests whose echoed cookie did not
 *                         verify (forged, or older than two slots)
 * @MRC_CNT_HS_LIMITED:    answers to unproven sources (rejects, cookie
 *                         answers, repeated accepts, EV-probe answers) not
 *                         sent:
 *                         net.mrc.handshake_answer_rate exceeded
 * @MRC_CNT_PTB:           ICMPv6 Packet Too Big reports that lowered a
 *                         connection's MTU (mrc_pmtu.c)
 * @MRC_CNT_PTB_IGNORED:   Packet Too Big reports about our port that did
 *                         not: no live connection, a PSN not in flight, an
 *                         MTU not below the connection's
 * @MRC_CNT_PMTU_RTX:      packets in flight resent at once because a
 *                         Packet Too Big made them too big for the path
 * @MRC_CNT_ORPHANS_ABORTED: close() calls that aborted their connection
 *                         (peer told ECONNRESET, unacknowledged data
 *                         dropped) because net.mrc.max_orphans
 *                         connections were lingering already
 * @MRC_CNT_IDLE_CHILDREN_ABORTED: connections a listener aborted (peer
 *                         told ECONNRESET) because they sat in its accept
 *                         queue for net.mrc.child_idle_timeout_ms without
 *                         delivering a message
 * @MRC_CNT_PORT_STATUS_RTX: port-status updates sent again because the
 *                         peer had not answered them
 * @MRC_CNT_PORT_STATUS_ACKED: answers that confirmed the port-status
 *                         update being retransmitted
 * @MRC_CNT_PORT_STATUS_UNMATCHED: port-status updates or answers that
 *                         named no connection of their source (token):
 *                         ignored
 * @MRC_CNT_RX_FLOWCELLS:  flowcells received whole (one UDP GSO skb of
 *                         several MRC packets, taken apart without cutting
 *                         an skb per packet); each packet is counted in
 *                         RxPackets as well
 * @MRC_CNT_RX_HELD:       data packets whose payload stayed in the skb it
 *                         arrived in until recvmsg() copied it (the others
 *                         were copied into the message's pages on arrival)
 * @MRC_CNT_RX_COPIED:     data packets whose payload was copied into the
 *                         message's pages on arrival: holding their skb
 *                         would have taken the message past its charge and
 *                         SO_RCVBUF or the memory limits refused the excess
 * @MRC_CNT_EV_PROBES_ANSWERED: connectionless EV probes (ERTH op
 *                         EV_PROBE) of a peer answered (mrc_ev_probe.c)
 * @MRC_CNT_RCVBUF_GROWN:  receive buffers grown instead of refusing a
 *                         message (mrc_rcvbuf_grow(), up to net.mrc.rmem[2])
 * @MRC_CNT_SNDBUF_GROWN:  send buffers grown to twice the congestion window
 *                         or the message (mrc_sndbuf_grow(), up to
 *                         net.mrc.wmem[2])
 * @MRC_CNT_TX_LOCAL_CN:   data packets a local queue took while dropping
 *                         others to make room (NET_XMIT_CN, e.g. fq_codel
 *                         at its limit); the engine's window shrank by them
 * @MRC_CNT_TX_QUEUE_THROTTLED: transmit passes that stopped asking the
 *                         engine for packets because the connection's bytes
 *                         in this host's queues reached
 *                         net.mrc.limit_output_bytes (mrc_tsq.c)
 * @__MRC_CNT_MAX:         number of counters
 */
enum mrc_net_counter {
	MRC_CNT_SOCK_CREATED,
	MRC_CNT_SOCK_RELEASED,
	MRC_CNT_BIND_OK,
	MRC_CNT_BAD_ADDR,
	MRC_CNT_ADDR_NOTAVAIL,
	MRC_CNT_ADDR_INUSE,
	MRC_CNT_BAD_SOCKET,
	/* receive path: every packet on the UDP socket ends in one of these */
	MRC_CNT_RX_PKTS,
	MRC_CNT_RX_TRUNC,
	MRC_CNT_RX_BAD_ICRC,
	MRC_CNT_RX_BAD_OPCODE,
	MRC_CNT_RX_BAD_HDR,
	MRC_CNT_RX_UNKNOWN_QPN,
	MRC_CNT_RX_WRONG_SRC,
	MRC_CNT_RX_NOT_READY,
	MRC_CNT_RX_STALE,
	MRC_CNT_RX_PROTO,
	MRC_CNT_RX_OOW,
	MRC_CNT_RX_DUP,
	MRC_CNT_RX_NOBUF,
	MRC_CNT_RX_BAD_HS,
	MRC_CNT_RX_NOMEM,
	MRC_CNT_RX_BAD_ADDR,
	/* transmit path */
	MRC_CNT_TX_PKTS,
	MRC_CNT_TX_ERR,
	MRC_CNT_TX_NOROUTE,
	/* connections */
	MRC_CNT_CONN_REQ_SENT,
	MRC_CNT_CONN_REQ_RTX,
	MRC_CNT_CONN_RESP_SENT,
	MRC_CNT_CONN_REFUSED,
	MRC_CNT_CONN_BACKLOG,
	MRC_CNT_CONN_ESTAB,
	MRC_CNT_CONN_TIMEDOUT,
	MRC_CNT_CONN_FAILED,
	MRC_CNT_CONN_CLOSED,
	/* receive path, added later: numbers above stay as they were */
	MRC_CNT_RX_BAD_SRH,
	MRC_CNT_TIMER_STALLS,
	MRC_CNT_TX_PORT_STATUS,
	MRC_CNT_RX_PORT_STATUS,
	MRC_CNT_CONN_ABORTED,
	MRC_CNT_TX_LOCAL_DROP,
	MRC_CNT_TX_MEM_LIMIT,
	MRC_CNT_RX_MEM_LIMIT,
	MRC_CNT_CONN_ICMP,
	MRC_CNT_HS_COOKIE_SENT,
	MRC_CNT_HS_COOKIE_BAD,
	MRC_CNT_HS_LIMITED,
	MRC_CNT_PTB,
	MRC_CNT_PTB_IGNORED,
	MRC_CNT_PMTU_RTX,
	MRC_CNT_ORPHANS_ABORTED,
	MRC_CNT_IDLE_CHILDREN_ABORTED,
	MRC_CNT_PORT_STATUS_RTX,
	MRC_CNT_PORT_STATUS_ACKED,
	MRC_CNT_PORT_STATUS_UNMATCHED,
	MRC_CNT_RX_FLOWCELLS,
	MRC_CNT_RX_HELD,
	MRC_CNT_RX_COPIED,
	MRC_CNT_EV_PROBES_ANSWERED,
	MRC_CNT_RCVBUF_GROWN,
	MRC_CNT_SNDBUF_GROWN,
	MRC_CNT_TX_LOCAL_CN,
	MRC_CNT_TX_QUEUE_THROTTLED,
	__MRC_CNT_MAX,
};

/**
 * struct mrc_net_mib - one CPU's share of a namespace's counters
 * @cnt: indexed by enum mrc_net_counter; unsigned long as the kernel's
 *	SNMP MIBs (this_cpu ops are one instruction on it); the sum is
 *	reported as a u64
 */
struct mrc_net_mib {
	unsigned long cnt[__MRC_CNT_MAX];
};

/**
 * struct mrc_net - per network namespace state of mrc.ko
 * @bind_lock:  protects @bind_hash, @nbound and the bind fields of sockets
 * @bind_hash:  bound sockets hashed by service id
 * @nbound:     number of sockets in @bind_hash
 * @nsocks:     live AF_MRC sockets in this namespace
 * @next_port:  where the next ephemeral service id search starts
 * @mib:        event counters, see enum mrc_net_counter: one array per
 *              CPU, bumped with this_cpu ops (no lock, no shared cache
 *              line on the per-packet path), summed by mrc_net_fold()
 * @udp_mutex:  serialises creation of @udp_sock and writes of @udp_port
 * @udp_sock:   the namespace's UDP socket, created on the first
 *              connect()/listen() (or with the namespace, module parameter
 *              udp_eager), released with the namespace
 * @udp_port:   sysctl net.mrc.udp_port: the UDP port to bind and send to
 *              (default MRC_UDP_PORT, 4791); @udp_mutex, fixed once
 *              @udp_sock exists (a write then fails with EBUSY)
 * @udp_dport:  the port @udp_sock is bound to, network order; written
 *              before @udp_sock is published, read locklessly by the
 *              transmit path (nothing is sent before @udp_sock exists)
 * @conn_lock:  protects @qpn_hash, @peer_hash, @nconns (writers)
 * @qpn_hash:   sockets by local QPN (RCU readers: the receive path)
 * @peer_hash:  accepted sockets by (peer address, peer QPN)
 * @nconns:     sockets in @qpn_hash
 * @progress_timeout_ms: sysctl net.mrc.progress_timeout_ms: a connection
 *              with data outstanding and no progress (and, unless
 *              orphaned, no word from the peer) for this long fails with
 *              ETIMEDOUT; read once per connection set-up (READ_ONCE),
 *              written by the sysctl handler
 * @orphans:    connections closed by their application and lingering
 *              until their data is acknowledged (atomic: taken in
 *              close(), given back by the teardown work)
 * @max_orphans: sysctl net.mrc.max_orphans: a close() that would make
 *              more orphans aborts the connection instead (READ_ONCE)
 * @child_idle_timeout_ms: sysctl net.mrc.child_idle_timeout_ms: a child
 *              still in its listener's accept queue that delivered no
 *              message this long after its handshake is aborted (0:
 *              never); read when the child is created (READ_ONCE)
 * @limit_output_bytes: sysctl net.mrc.limit_output_bytes: the bytes one
 *              connection may have in this host's queues before it stops
 *              asking its engine for packets (0: no limit; mrc_tsq.c);
 *              read by every transmit pass (READ_ONCE)
 * @sysctl:     the namespace's copy of the sysctl table
 */
struct mrc_net {
	spinlock_t bind_lock;	/* see the locking strategy above */
	DECLARE_HASHTABLE(bind_hash, MRC_BIND_HASH_BITS);
	u32 nbound;
	atomic_t nsocks;
	u16 next_port;
	struct mrc_net_mib __percpu *mib;
	struct mutex udp_mutex;	/* see the locking strategy above */
	struct socket *udp_sock;
	int udp_port;
	__be16 udp_dport;
	spinlock_t conn_lock;	/* see the locking strategy above */
	DECLARE_HASHTABLE(qpn_hash, MRC_CONN_HASH_BITS);
	DECLARE_HASHTABLE(peer_hash, MRC_CONN_HASH_BITS);
	u32 nconns;
	int progress_timeout_ms;
	atomic_t orphans;
	int max_orphans;
	int child_idle_timeout_ms;
	int limit_output_bytes;
	struct mrc_hs_guard hs_guard;
	struct ctl_table_header *sysctl;
};

/* net.mrc.max_orphans: default (the floor of TCP's tcp_max_orphans). */
#define MRC_MAX_ORPHANS_DEF		4096

/*
 * net.mrc.child_idle_timeout_ms: default. A client connects to send; one
 * that has sent nothing a minute after its handshake while the server is
 * not accepting holds a backlog slot and an engine for nothing.
 */
#define MRC_CHILD_IDLE_TIMEOUT_MS_DEF	60000
#define MRC_CHILD_IDLE_TIMEOUT_MS_MAX	(24 * 3600 * 1000)

/*
 * net.mrc.limit_output_bytes: default and bound (see mrc_tsq.c). Four
 * flowcells (60 KB each): a device never waits for the next one while
 * the freeing of the last wakes the connection, and a host uplink's queue
 * of a few hundred kilobytes is not filled by one connection.
 */
#define MRC_LIMIT_OUTPUT_BYTES_DEF	(256 * 1024)
#define MRC_LIMIT_OUTPUT_BYTES_MAX	(64 * 1024 * 1024)

/* net.mrc.progress_timeout_ms: default and bounds (see mrc_net.c). */
#define MRC_PROGRESS_TIMEOUT_MS_DEF	10000
#define MRC_PROGRESS_TIMEOUT_MS_MIN	100
#define MRC_PROGRESS_TIMEOUT_MS_MAX	3600000

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
 * SO_RCVBUF of a namespace's UDP socket: mrc_udp_data_ready() empties its
 * queue in the softirq that fills it, so this only bounds what several
 * CPUs queue at the same instant (a flowcell is up to 64 KiB).
 */
#define MRC_UDP_RCVBUF		(4 << 20)

/**
 * struct mrc_mb_piece - received packets of a message still in their skb
 * @node:   link in mrc_msgbuf.pieces
 * @skb:    the skb they arrived in (one reference per piece)
 * @soff:   offset of the first packet's payload in @skb (from skb->data)
 * @moff:   its offset in the message
 * @seg:    payload bytes of every packet of the piece
 * @stride: bytes of @skb from one packet's payload to the next (the MRC
 *          headers and ICRC between them, in a flowcell); 0 while @n is 1
 * @n:      packets: packet k is @seg bytes at @soff + k * @stride of @skb,
 *          at @moff + k * @seg of the message
 */
struct mrc_mb_piece {
	struct list_head node;
	struct sk_buff *skb;
	u32 soff;
	u32 moff;
	u32 seg;
	u32 stride;
	u32 n;
};

/* Pieces per allocation: one kmalloc-1k object. */
#define MRC_MB_PIECES	((1024 - 2 * sizeof(void *)) / sizeof(struct mrc_mb_piece))

/**
 * struct mrc_mb_pchunk - storage of a message's pieces
 * @next: the next chunk
 * @used: entries of @p in use
 * @p:    the pieces
 */
struct mrc_mb_pchunk {
	struct mrc_mb_pchunk *next;
	u32 used;
	struct mrc_mb_piece p[MRC_MB_PIECES];
};

/**
 * struct mrc_msgbuf - kernel copy of one message: an array of pages, and
 * on receive the skbs its packets arrived in
 * @node:     link in mrc_sock.rxq once delivered
 * @len:      message length in bytes
 * @msn:      message sequence number
 * @charge:   bytes charged to the socket (sk_wmem_queued or rcv accounting)
 * @mem:      bytes charged to socket memory (mrc_mem.c)
 * @held:     truesize of the skbs @pieces hold, each counted once
 * @sorted:   @pieces are in message order (recvmsg() sorts them once)
 * @pieces:   received payloads left in their skbs (struct mrc_mb_piece),
 *            copied out by mrc_mb_to_iter() alone; bytes no piece covers
 *            come from the pages
 * @pc_head:  first chunk of storage for @pieces
 * @pc_tail:  last chunk: the piece added last is its last entry
 * @npages:   pages the message spans
 * @nchunks:  entries of @chunks
 * @chunks:   @npages page pointers in chunks of MRC_MB_CHUNK (one page
 *            each), so that no allocation is larger than a page: a 64 MiB
 *            message needs no high-order allocation even in softirq; a page
 *            exists only where bytes were written (zeroed when allocated)
 */
struct mrc_msgbuf {
	struct list_head node;
	u32 len;
	u16 msn;
	bool sorted;
	u32 charge;
	u32 mem;
	u32 held;
	struct list_head pieces;
	struct mrc_mb_pchunk *pc_head;
	struct mrc_mb_pchunk *pc_tail;
	u32 npages;
	u32 nchunks;
	struct page **chunks[];
};

#define MRC_MB_CHUNK	(PAGE_SIZE / sizeof(struct page *))

struct mrc_msgbuf *mrc_mb_alloc(u32 len, gfp_t gfp);
void mrc_mb_free(struct mrc_msgbuf *mb);
u32 mrc_mb_truesize(u32 len);
int mrc_mb_fill(struct mrc_msgbuf *mb, u32 off, u32 len, gfp_t gfp);
void mrc_mb_write_skb(struct mrc_msgbuf *mb, u32 off,
		      const struct sk_buff *skb, int soff, u32 len);
void mrc_mb_read(const struct mrc_msgbuf *mb, u32 off, void *dst, u32 len);
void mrc_mb_read_skb(const struct mrc_msgbuf *mb, u32 off,
		     struct sk_buff *skb, int soff, u32 len);
int mrc_mb_from_iter(struct mrc_msgbuf *mb, struct iov_iter *from);
int mrc_mb_to_iter(struct mrc_msgbuf *mb, u32 len, struct iov_iter *to);
bool mrc_mb_can_hold(const struct mrc_msgbuf *mb, const struct sk_buff *skb,
		     u32 *extra);
int mrc_mb_hold_reserve(struct mrc_msgbuf *mb, gfp_t gfp);
void mrc_mb_hold_skb(struct mrc_msgbuf *mb, u32 off, struct sk_buff *skb,
		     int soff, u32 len);

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
 * struct mrc_conn_profiles - the profiles a connection is created with
 * @ev: its EV profile (a copy)
 * @cc: its congestion-control profile (a copy)
 * @ev_count: its EV count (MRC_EV_SET_SIZE, else @ev's)
 */
struct mrc_conn_profiles {
	struct mrc_cfg_profile ev;
	struct mrc_cfg_profile cc;
	u32 ev_count;
};

/**
 * struct mrc_mp_plane - one plane of a connection's path snapshot
 * @id:      configured plane id (mrc_cfg_plane.id)
 * @up:      admin and operational state, as last reported (connection lock)
 * @first:   index of the plane's first path slot in mrc_mp.pidx/mrc_mp.dc
 * @npaths:  path slots of the plane (>= 1)
 * @ifindex: the plane's device when the snapshot was taken
 * @saddr:   the plane's source address (outer source of srh/usid packets)
 */
struct mrc_mp_plane {
	u8 id;
	bool up;
	u16 first;
	u16 npaths;
	int ifindex;
	struct in6_addr saddr;
};

/**
 * struct mrc_mp - what a connection needs to send on a configured route
 * @rt:        the route, held (mrc_cfg_route_hold()) for its path templates
 * @encap:     enum mrc_encap
 * @nplanes:   entries of @plane; engine plane i is @plane[i]
 * @nslots:    path slots in use (entries of @pidx and @dc)
 * @max_paths: largest @plane[].npaths
 * @mtu:       smallest MTU of the slots' routes, encapsulation removed
 * @plane:     the planes, by increasing id
 * @pidx:      path slot -> index in @rt->paths (unused without paths)
 * @dc:        route cache of every path slot
 *
 * A connection keeps the snapshot it was created with: replacing or
 * deleting the route or a plane later changes only new connections.
 */
struct mrc_mp {
	struct mrc_cfg_route *rt;
	u8 encap;
	u8 nplanes;
	u16 nslots;
	u16 max_paths;
	u32 mtu;
	struct mrc_mp_plane plane[MRC_MAX_PLANES];
	u16 pidx[MRC_ROUTE_PATHS_MAX];
	struct dst_cache dc[MRC_ROUTE_PATHS_MAX];
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
 * @rx_cap:     size of @rxm (engine rx_max_msgs)
 * @rxm:        messages being received, index msn % @rx_cap
 * @rx_next_msn: MSN of the next message to deliver
 * @rxq:        delivered messages waiting for recvmsg()
 * @rxq_len:    messages in @rxq
 * @rx_queued:  bytes charged for @rxq
 * @rx_read_ns: when recvmsg() last took a message (mrc_now()); @lock
 * @rx_inprog:  bytes charged for @rxm
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
	struct sock sk;
	/*
	 * Where struct inet_sock keeps pinet6; always NULL. The packets of a
	 * connection are owned by its socket (skb->sk), so that netfilter's
	 * skuid/skgid, cgroup egress BPF and the socket's cgroup see them as
	 * they see TCP's, and the IPv6 output path reads inet6_sk(skb->sk)
	 * for the PMTU mode and fragment size: NULL there means "the
	 * route's MTU", as for a packet without a socket. mrc_sock_init_module()
	 * checks the offset at build time.
	 */
	struct ipv6_pinfo *pinet6_null;
	struct hlist_node bind_node;
	bool bound;
	struct sockaddr_mrc local;

	spinlock_t lock;	/* see the locking strategy above */
	u8 state;
	bool dead;
	bool qpn_hashed;
	bool peer_hashed;
	bool shut_wr;
	bool peer_closed;
	bool peer_gone;
	bool released;
	bool abort;
	u8 close_sent;
	bool orphan;
	u64 linger_deadline;
	u64 reset_deadline;
	u64 room_deadline;
	u32 room_closed;
	u64 room_backoff;
	u64 room_reopened;
	bool tsq_closed;
	unsigned long tsq_flags;
	u32 tsq_wake;
	struct tasklet_struct tsq_tasklet;
	u64 idle_deadline;
	u8 ps_tries;
	u16 ps_tx_ts;
	u64 ps_deadline;
	struct hlist_node qpn_node;
	struct hlist_node peer_node;
	struct sockaddr_mrc peer;
	struct in6_addr saddr;
	u32 qpn;
	u32 peer_qpn;
	u32 pmtu;
	u16 local_conn_id;
	u16 peer_conn_id;
	u32 local_init_psn;
	u32 peer_init_psn;
	u16 token;
	u32 peer_max_msg;
	u32 mtu;
	struct mrc_conn *conn;
	struct mrc_conn *conn_pending;
	struct hrtimer timer;
	bool timer_stall_deferred;
	u8 hs_tries;
	u32 hs_cookie_qpn;
	u16 hs_cookie_conn;
	u8 hs_cookies;
	u64 hs_deadline;
	u16 tx_cap;
	struct mrc_msgbuf **txm;
	u32 tx_pending;
	u16 rx_cap;
	struct mrc_msgbuf **rxm;
	u16 rx_next_msn;
	struct list_head rxq;
	u32 rxq_len;
	u64 rx_queued;
	u64 rx_read_ns;
	u64 rx_inprog;
	struct dst_cache dst_cache;
	bool dst_ok;
	u32 route_mark;
	struct list_head accept_q;
	struct list_head accept_node;
	struct sock *parent;
	struct mrc_sock_opts opts;
	u8 cc_algo;
	u8 tx_burst;
	u8 tclass_data;
	u8 tclass_ctl;
	struct mrc_tx_desc *txd;
	struct work_struct destroy_work;
	struct work_struct start_work;
	atomic64_t plane_pkts[MRC_INFO_PLANES];
	atomic64_t plane_bytes[MRC_INFO_PLANES];
	struct mrc_mp *mp;
	u64 nl_ev_next;
	u32 nl_ev_lost;
	u32 peer_planes_down;
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return container_of(sk, struct mrc_sock, sk);
}

extern int mrc_family;
extern struct workqueue_struct *mrc_wq;
extern bool mrc_udp_eager;

/* mrc_mem.c: socket memory accounting (see the file's comment) */
void mrc_mem_setup_proto(struct proto *prot);
int mrc_mem_init_module(void);
void mrc_mem_exit_module(void);
long mrc_mem_pages(void);
bool mrc_mem_charge(struct mrc_sock *ms, u32 bytes, int kind);
void mrc_mem_uncharge(struct mrc_sock *ms, u32 bytes);
void mrc_mem_inherit(struct sock *sk, const struct sock *parent);
void mrc_mem_buf_defaults(struct sock *sk);
bool mrc_rcvbuf_grow(struct mrc_sock *ms, u64 need);
bool mrc_sndbuf_grow(struct mrc_sock *ms, u32 charge);
void mrc_mem_release(struct sock *sk);

struct mrc_net *mrc_net(const struct net *net);
void mrc_net_count(struct mrc_net *mn, enum mrc_net_counter c);
void mrc_net_add(struct mrc_net *mn, enum mrc_net_counter c, u32 n);
void mrc_net_fold(const struct mrc_net *mn, u64 *sum);
int mrc_net_init_module(void);
void mrc_net_exit_module(void);

int mrc_sock_init_module(void);
void mrc_sock_exit_module(void);
struct sock *mrc_sock_alloc_child(struct sock *parent, gfp_t gfp);
void mrc_sock_free_child(struct sock *sk);

/* mrc_input.c: the namespace's UDP socket and the receive front end */
int mrc_udp_get(struct net *net);
void mrc_udp_net_exit(struct mrc_net *mn);
__be16 mrc_udp_dport(const struct net *net);

/* mrc_output.c: skbs, routes, transmit */
u16 mrc_udp_sport(u32 ev);
int mrc_route(struct net *net, struct mrc_sock *ms, struct dst_cache *dc,
	      struct flowi6 *fl6, struct dst_entry **dstp);
void mrc_pkt_init(struct mrc_pkt *pkt, u8 opcode, u32 dest_qp);
struct sk_buff *mrc_build_pkt(struct mrc_sock *ms, const struct mrc_pkt *pkt,
			      u32 ev, const struct mrc_msgbuf *mb, u32 off);
u32 mrc_burst_max(u32 mtu, u32 burst);
struct sk_buff *mrc_build_burst(struct mrc_sock *ms,
				const struct mrc_tx_desc *d, u32 n,
				const struct mrc_msgbuf *mb);
void mrc_xmit_queue(struct net *net, struct mrc_sock *ms,
		    struct sk_buff_head *q);
int mrc_mp_path_mtu(struct net *net, const struct mrc_sock *ms,
		    const struct mrc_mp_plane *mpp, u32 slot);
void mrc_flow_policy(const struct sock *sk, struct flowi6 *fl6);
void mrc_send_ep(struct net *net, struct sock *sk, const struct in6_addr *saddr,
		 const struct in6_addr *daddr, int oif, u8 op,
		 const struct mrc_ep *ep, u8 tclass);

/* mrc_profile.c: EV and congestion-control profiles of a connection */
bool mrc_profile_exists(const struct net *net, u32 id);
void mrc_profile_read(const struct mrc_sock *ms, struct mrc_conn_profiles *pr);
void mrc_profile_apply(struct mrc_sock *ms, const struct mrc_conn_profiles *pr,
		       struct mrc_conn_cfg *cfg);
void mrc_profile_tclass(struct mrc_sock *ms, const struct mrc_cfg_profile *ev);
u8 mrc_profile_ctl_tclass(const struct net *net);

/* mrc_path.c: a connection's path snapshot, plane state */
int mrc_mp_setup(struct net *net, struct mrc_sock *ms, gfp_t gfp);
void mrc_mp_free(struct mrc_mp *mp);
void mrc_mp_engine_cfg(const struct mrc_mp *mp, struct mrc_conn_cfg *cfg,
		       u32 evs);
void mrc_conn_plane_state(struct net *net, u32 id, bool up);
void mrc_mp_plane_apply(struct mrc_sock *ms, u32 i, u64 now);

/* mrc_ev_probe.c: a spec peer's connectionless EV probes, answered */
void mrc_ev_probe_rcv(struct net *net, const struct sk_buff *skb,
		      const struct mrc_pkt *pkt, int oif);

/* mrc_port_status.c: port-status updates sent, retransmitted, applied */
void mrc_conn_send_port_status(struct mrc_sock *ms, struct sk_buff_head *q);
void mrc_conn_port_status_due(struct mrc_sock *ms, u64 now,
			      struct sk_buff_head *q);
void mrc_conn_peer_ports(struct net *net, const struct in6_addr *saddr,
			 const struct mrc_ep *ep, bool req);

/* mrc_conn_k.c: connections around the engine */
u32 mrc_conn_for_peer(struct net *net, const struct in6_addr *peer,
		      bool (*fn)(struct mrc_sock *ms, void *arg,
				 struct sk_buff_head *q),
		      void *arg);
void mrc_conn_sock_init(struct mrc_sock *ms);
void mrc_conn_read_tclass(struct mrc_sock *ms);
int mrc_conn_hash_qpn(struct mrc_net *mn, struct mrc_sock *ms);
int mrc_conn_build(struct mrc_sock *ms, bool may_sleep,
		   struct mrc_conn **connp);
void mrc_conn_install(struct mrc_sock *ms, struct mrc_conn *conn, u64 now);
int mrc_conn_start_client(struct mrc_sock *ms, u64 now);
void mrc_conn_drain(struct mrc_sock *ms, u64 now, struct sk_buff_head *q);
void mrc_conn_apply_room(struct mrc_sock *ms);
void mrc_sock_write_space(struct sock *sk);
struct mrc_sock *mrc_qpn_lookup(struct mrc_net *mn, u32 qpn);
int mrc_conn_route(struct net *net, struct mrc_sock *ms);
void mrc_arm(struct mrc_sock *ms, u64 when);
void mrc_fill_ep(struct mrc_sock *ms, u8 kind, struct mrc_ep *ep);
void mrc_conn_teardown(struct mrc_sock *ms);
void mrc_conn_close_child(struct mrc_sock *child, bool abort);
bool mrc_conn_linger(struct mrc_sock *ms);
int mrc_conn_connect(struct mrc_sock *ms);
void mrc_conn_send_req(struct mrc_sock *ms, u8 kind, struct sk_buff_head *q);
void mrc_conn_close_due(struct mrc_sock *ms, struct sk_buff_head *q);
/**
 * struct mrc_rx_batch - packets of one datagram (a flowcell's, or a lone
 * one) on their way to a connection, its lock held from the first to the
 * last (softirq; on the stack of mrc_udp_rcv())
 * @ms: the connection whose lock is held (and a reference), or NULL
 * @now: the time, taken once when the lock was
 * @drain: a packet reached the engine: drain it before unlocking
 * @q: what to send once the lock is dropped (NACKs, the drain's packets)
 */
struct mrc_rx_batch {
	struct mrc_sock *ms;
	u64 now;
	bool drain;
	struct sk_buff_head q;
};

void mrc_rx_batch_init(struct mrc_rx_batch *b);
void mrc_rx_batch_end(struct net *net, struct mrc_rx_batch *b);
void mrc_conn_rcv(struct net *net, struct sk_buff *skb, const struct mrc_pkt *pkt,
		  int poff, u32 ev, u32 rx_flags, struct mrc_rx_batch *b);
bool mrc_conn_qpn_known(struct mrc_net *mn, u32 qpn,
			const struct mrc_rx_batch *b);
void mrc_conn_rcv_ep(struct net *net, struct sk_buff *skb, const struct mrc_pkt *pkt);
/* What mrc_conn_drain() calls once the engine's events are consumed. */
#define MRC_WAKE_READ	BIT(0)	/* sk_data_ready: a message was queued */
#define MRC_WAKE_WRITE	BIT(1)	/* mrc_sock_write_space(): a send completed */

void mrc_conn_wake(struct sock *sk, int band);
void mrc_conn_icmp_err(struct net *net, const struct in6_addr *daddr,
		       const struct mrc_pkt *pkt, int err);
u32 mrc_mtu_for(u32 path_mtu);

/* mrc_pmtu.c: ICMPv6 Packet Too Big on every encapsulation */
int mrc_pmtu_init_module(void);
void mrc_pmtu_exit_module(void);
void mrc_pmtu_report(struct net *net, const struct sk_buff *skb,
		     unsigned int mrc_off, const struct in6_addr *daddr,
		     u32 mtu, u32 encap);

/* A data packet the local stack refused to send (mrc_xmit_queue()). */
struct mrc_local_drop {
	u32 psn;
	u32 ev;
	u8 plane;
};

void mrc_conn_local_drops(struct mrc_sock *ms, const struct mrc_local_drop *d,
			  u32 n, bool full, struct sk_buff_head *q);
void mrc_conn_local_congestion(struct mrc_sock *ms, u32 pkts, u32 bytes,
			       u32 planes, bool full);
void mrc_sk_fail(struct mrc_sock *ms, int err);
u64 mrc_now(void);

#endif /* MRC_IMPL_H */
