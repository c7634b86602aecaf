/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_net.h - a network namespace's MRC state: the bind and connection
 * hashes, the per-CPU counters of /proc/net/mrc, the sysctls (mrc_net.c).
 */
#ifndef MRC_NET_H
#define MRC_NET_H

#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "mrc_engine.h"
#include "mrc_ev_probe.h"
#include "mrc_hs_guard.h"

struct ctl_table_header;
struct net;
struct socket;

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
 * @MRC_CNT_TIMER_IDLE:    connection timer expiries that found nothing
 *                         due (a stale deadline: mrc_timer_arm() cancels
 *                         the timer when nothing is)
 * @MRC_CNT_TX_PAGES_REUSED: pages of messages sent that came from their
 *                         socket's cache of completed messages' pages
 *                         instead of the page allocator (mrc_mem.c)
 * @MRC_CNT_TX_FRAG_PAGES_REUSED: flowcell frag pages that came back to
 *                         their socket's ring from every skb they went
 *                         into and were filled again without the zeroing
 *                         a fresh page costs (mrc_mem.c)
 * @MRC_CNT_RX_BACKLOG: datagrams that arrived while a task owned their
 *                         connection's socket and were processed by that
 *                         task in release_sock() (mrc_input.c)
 * @MRC_CNT_RX_STEERED: flowcells received on one CPU and processed on the
 *                         CPU that reads their socket (mrc_steer.c)
 * @MRC_CNT_EV_PROBES_SENT: EV probes of our own (ERTH op EV_PROBE,
 *                         mrc_ev_probe.c) sent
 * @MRC_CNT_EV_PROBES_REPLIED: answers to them that matched a probe in
 *                         flight
 * @MRC_CNT_TX_FLOWCELLS_IN_PLACE: flowcells sent from their message's own
 *                         pages, laid out as on the wire at sendmsg(),
 *                         without a copy into frags (mrc_tx_skb.c)
 * @MRC_CNT_TX_FLOWCELLS_AUTOSIZED: flowcells cut shorter than their EV
 *                         profile's burst: net.mrc.tx_burst_autosize_us of
 *                         one plane's share of the connection's rate was
 *                         less (mrc_conn_burst_autosize()), and they filled
 *                         that length
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
	MRC_CNT_TIMER_IDLE,
	MRC_CNT_TX_PAGES_REUSED,
	MRC_CNT_TX_FRAG_PAGES_REUSED,
	MRC_CNT_RX_BACKLOG,
	MRC_CNT_RX_STEERED,
	MRC_CNT_EV_PROBES_SENT,
	MRC_CNT_EV_PROBES_REPLIED,
	MRC_CNT_TX_FLOWCELLS_IN_PLACE,
	MRC_CNT_TX_FLOWCELLS_AUTOSIZED,
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
 * @rx_steer_min_bytes: sysctl net.mrc.rx_steer_min_bytes: a flowcell of
 *              at least this many MRC bytes received on another CPU than
 *              its socket's reader's is processed on the reader's (0:
 *              never; mrc_steer.c); read per datagram (READ_ONCE)
 * @tx_in_place: sysctl net.mrc.tx_in_place: 1 lays a message of more than
 *              one packet out as on the wire at sendmsg() and sends its
 *              flowcells from those pages, 0 copies every flowcell into
 *              the socket's frag ring (mrc_tx_skb.c); read per sendmsg()
 *              (READ_ONCE)
 * @tx_burst_autosize_us: sysctl net.mrc.tx_burst_autosize_us: a flowcell
 *              lasts at most this long at one plane's share of its
 *              connection's rate, and has the engine's floor of packets
 *              (8 up to MTU 1500, 2 at 9000; 0: the EV profile's burst
 *              whatever the rate; mrc_conn_burst_autosize());
 *              read by every transmit pass (READ_ONCE)
 * @failover:   sysctl net.mrc.failover: the engine's failover rules, enum
 *              mrc_failover bits (31: all, the default; 0: none, every
 *              EV judged alone and every loss cutting the window); read
 *              when a connection's engine is built (READ_ONCE)
 * @hs_guard:   the stateless answers' rate (mrc_hs_guard.c; its own lock)
 * @ev_probes:  our EV probe runs in flight (mrc_ev_probe.c; its own lock)
 * @iw_share:   the initial window the namespace's starting connections
 *              split (CC profiles with init-wnd-shared; an atomic count,
 *              no lock: kmod/core/mrc_cc_share.c). Connections hold the
 *              namespace, so it outlives every engine that points at it
 * @sysctl:     the namespace's copy of the sysctl table
 */
struct mrc_net {
	spinlock_t bind_lock;	/* see the locking strategy (mrc_impl.h) */
	DECLARE_HASHTABLE(bind_hash, MRC_BIND_HASH_BITS);
	u32 nbound;
	atomic_t nsocks;
	u16 next_port;
	struct mrc_net_mib __percpu *mib;
	struct mutex udp_mutex;	/* see the locking strategy (mrc_impl.h) */
	struct socket *udp_sock;
	int udp_port;
	__be16 udp_dport;
	spinlock_t conn_lock;	/* see the locking strategy (mrc_impl.h) */
	DECLARE_HASHTABLE(qpn_hash, MRC_CONN_HASH_BITS);
	DECLARE_HASHTABLE(peer_hash, MRC_CONN_HASH_BITS);
	u32 nconns;
	int progress_timeout_ms;
	atomic_t orphans;
	int max_orphans;
	int child_idle_timeout_ms;
	int limit_output_bytes;
	int rx_steer_min_bytes;
	int tx_in_place;
	int tx_burst_autosize_us;
	int failover;
	struct mrc_hs_guard hs_guard;
	struct mrc_ev_probes ev_probes;
	struct mrc_iw_share iw_share;
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
 * net.mrc.limit_output_bytes: default and bound (see mrc_tsq.c). TCP's
 * tcp_limit_output_bytes of Linux 6.1 (16 x 64 KiB): the limit is one for
 * all of a connection's planes, and below the sum of their queues it
 * starves some planes while others hold the bytes (256 KiB cost the
 * bench's shaped cell 5 points, Documentation/networking/mrc-datapath.rst).
 */
#define MRC_LIMIT_OUTPUT_BYTES_DEF	(16 * 64 * 1024)
#define MRC_LIMIT_OUTPUT_BYTES_MAX	(64 * 1024 * 1024)

/*
 * net.mrc.tx_burst_autosize_us: default and bound. TCP's TSO autosizing
 * (tcp_tso_autosize(): sk_pacing_shift 10, about a millisecond of its
 * pacing rate); a second at most, the longest the engine sizes to
 * (MRC_BURST_AUTOSIZE_INTERVAL_MAX).
 */
#define MRC_TX_BURST_AUTOSIZE_US_DEF	1000
#define MRC_TX_BURST_AUTOSIZE_US_MAX	1000000

/* net.mrc.progress_timeout_ms: default and bounds (see mrc_net.c). */
#define MRC_PROGRESS_TIMEOUT_MS_DEF	10000
#define MRC_PROGRESS_TIMEOUT_MS_MIN	100
#define MRC_PROGRESS_TIMEOUT_MS_MAX	3600000

struct mrc_net *mrc_net(const struct net *net);
__be16 mrc_udp_dport(const struct net *net);
void mrc_net_count(struct mrc_net *mn, enum mrc_net_counter c);
void mrc_net_add(struct mrc_net *mn, enum mrc_net_counter c, u32 n);
void mrc_net_fold(const struct mrc_net *mn, u64 *sum);
int mrc_net_init_module(void);
void mrc_net_exit_module(void);

#endif /* MRC_NET_H */
