/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_impl.h - what every file of mrc.ko shares: the locking strategy
 * below, the log prefix and the clock. Each concern declares its own
 * types and functions in its header (mrc_sock.h, mrc_net.h, mrc_conn_k.h,
 * mrc_output.h, ...), and a file includes the headers of what it uses.
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
 *    key of every received packet, mrc_lookup.c) and the peer hash
 *    (duplicate connect requests). Readers (receive softirq) walk them
 *    under RCU only; the objects are sockets with SOCK_RCU_FREE, so a
 *    reader that found one can always take its connection lock and then
 *    checks mrc_sock.dead.
 *
 *  - mrc_net.udp_mutex (mutex, process context only): creation of the
 *    per-namespace UDP socket on first use.
 *
 *  - mrc_net.hs_guard.lock (spinlock, BH-safe): the handshake answer
 *    buckets (mrc_hs_guard.c). A leaf: taken in the receive softirq with
 *    no other lock of the module held, never held across anything else.
 *
 *  - mrc_net.ev_probes.lock (spinlock, BH-safe): the runs of EV probes in
 *    flight and their slots (mrc_ev_probe.c). A leaf: taken by the
 *    requesting task with spin_lock_bh() and by the receive softirq with
 *    spin_lock(), no other lock of the module held, never across a send.
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
 *  - The socket's backlog (sk_lock.slock, as TCP's): a datagram for a
 *    connection whose socket a task owns waits there (mrc_rx_elsewhere(),
 *    under bh_lock_sock(), taken alone: never inside mrc_sock.lock nor
 *    around it) and the owner runs it in release_sock() through
 *    sk_backlog_rcv (mrc_rx_deferred()): process context, BHs disabled and
 *    RCU held for the length of one datagram, so it takes mrc_sock.lock as
 *    the softirq does. Ownership only says where the work runs; the
 *    connection lock still serialises it.
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
 *    store (mrc_cfg.c) through its notifier chain (a blocking chain,
 *    mrc_cfg_register_notifier(); the consumer is mrc_path.c's), raised
 *    with the store's per-namespace mutex held, in process context, RTNL
 *    held for netdevice events. Lock order: RTNL -> mrc_cfg_net.lock ->
 *    the chain's rwsem (read) -> (RCU walk of mrc_net.qpn_hash) ->
 *    mrc_sock.lock of one connection at a time (spin_lock_bh()). The
 *    datapath never takes RTNL, the configuration mutex or the chain's
 *    rwsem, so the order cannot invert.
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
 *  - Netlink connection dump (MRC_CMD_CONN_GET, mrc_nl_conn.c), process
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

#include <linux/types.h>

#include "mrc_clock.h"
#include "mrc_compat.h"

#undef pr_fmt
#define pr_fmt(fmt) "mrc: " fmt

#endif /* MRC_IMPL_H */
