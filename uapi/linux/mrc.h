/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note OR MIT */
/*
 * MRC (Multipath Reliable Connection) - userspace ABI of mrc.ko.
 *
 * Everything here is fixed-width and explicitly padded so that the same bytes
 * mean the same thing to the kernel, to C and to C++ on every ABI. Fields
 * named *reserved* must be zero: the kernel rejects non-zero values with
 * EINVAL so that they can be given a meaning later without ambiguity.
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>

/*
 * Address family. Linux 6.1 has no free number above AF_MAX, so mrc.ko takes
 * a slot unused in 6.1: AF_DECnet's 12 by default (DECnet was removed in 6.1).
 * The module parameter "family" moves it; the number in use is always
 * readable from MRC_FAMILY_SYSFS. Programs should read that file instead of
 * trusting this default.
 */
#define AF_MRC_DEFAULT		12
#define MRC_FAMILY_SYSFS	"/sys/module/mrc/parameters/family"

/* Socket level for setsockopt()/getsockopt(); the same slot as AF_DECnet had. */
#define SOL_MRC			261

/* socket(AF_MRC, SOCK_SEQPACKET, MRC_PROTO_DEFAULT or 0) */
#define MRC_PROTO_DEFAULT	0

/**
 * struct sockaddr_mrc - an MRC endpoint
 * @smrc_family:   AF_MRC (the number in MRC_FAMILY_SYSFS)
 * @smrc_port:     service id of the endpoint, network byte order; 0 in bind()
 *                 asks the kernel to choose a free one
 * @smrc_flags:    reserved for flags, must be zero
 * @smrc_addr:     IPv6 address (an IPv4 peer is written as ::ffff:a.b.c.d);
 *                 all-zero in bind() means any local address
 * @smrc_scope_id: interface index for link-local addresses, else zero
 * @smrc_reserved: must be zero
 */
struct sockaddr_mrc {
	__u16	smrc_family;
	__be16	smrc_port;
	__u32	smrc_flags;
	__u8	smrc_addr[16];
	__u32	smrc_scope_id;
	__u32	smrc_reserved;
};

#define MRC_SOCKADDR_SIZE	32

#ifdef __cplusplus
static_assert(sizeof(struct sockaddr_mrc) == MRC_SOCKADDR_SIZE, "sockaddr_mrc ABI");
#else
_Static_assert(sizeof(struct sockaddr_mrc) == MRC_SOCKADDR_SIZE, "sockaddr_mrc ABI");
#endif

/* First ephemeral service id handed out by bind() with smrc_port == 0. */
#define MRC_PORT_EPHEMERAL_MIN	32768
#define MRC_PORT_EPHEMERAL_MAX	60999

/*
 * ===========================================================================
 * Generic netlink control plane (family MRC_GENL_NAME)
 * ===========================================================================
 *
 * Planes, routes, EV/CC profiles and counters of one network namespace.
 * Documentation/networking/mrc-netlink.rst describes every command and
 * attribute; Documentation/netlink/specs/mrc.yaml is the machine-readable
 * spec. Every value below is ABI: numbers are appended, never reused or
 * renumbered, even when a command or attribute is retired.
 */
#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	1
#define MRC_GENL_MCGRP_EVENTS	"events"

/* Limits enforced by the kernel (policy ranges or handler checks). */
#define MRC_PLANE_ID_MAX	31	/* plane ids 0..31 */
#define MRC_SEGS_MAX		8	/* SIDs in one srh segment list */
#define MRC_ROUTE_PATHS_MAX	64	/* paths of one route */
#define MRC_ROUTES_MAX		4096	/* routes of one namespace */
#define MRC_PROFILE_ID_MAX	15	/* profile ids 0..15; 0 always exists */
#define MRC_EV_COUNT_MIN	128	/* EVs per connection */
#define MRC_EV_COUNT_MAX	256
#define MRC_EV_COUNT_DEFAULT	128
#define MRC_EV_BURST_MAX	64	/* packets of a flowcell */
#define MRC_EV_BURST_DEFAULT	32
#define MRC_DSCP_MAX		63
#define MRC_CC_LINK_MBPS_MIN	10	/* a CC profile's link rate, Mbit/s */
#define MRC_CC_LINK_MBPS_MAX	1600000
#define MRC_CC_LINK_MBPS_DEFAULT 100000
#define MRC_DSCP_DATA_DEFAULT	0	/* best effort, as RoCE's default */
#define MRC_DSCP_CTL_DEFAULT	48	/* CS6, as RoCE NICs' CNPs */

/**
 * enum mrc_encap - how packets towards a route's prefix are encapsulated
 * @MRC_ENCAP_NONE: plain IPv6; the fabric hashes the EV (ECMP)
 * @MRC_ENCAP_SRH:  an SRH (routing header type 4) carrying the path's
 *                  segment list of full SIDs
 * @MRC_ENCAP_USID: IPv6-in-IPv6 whose outer destination is the path's uSID
 *                  container (NEXT-C-SID)
 */
enum mrc_encap {
	MRC_ENCAP_NONE,
	MRC_ENCAP_SRH,
	MRC_ENCAP_USID,

	/* private: */
	__MRC_ENCAP_CNT,
	MRC_ENCAP_MAX = __MRC_ENCAP_CNT - 1,
};

/**
 * enum mrc_cc_algo_id - congestion-control algorithms of a CC profile
 * @MRC_CC_ALGO_NSCC:  NSCC-style window control (default)
 * @MRC_CC_ALGO_FIXED: fixed window (lab, tests)
 * @MRC_CC_ALGO_UEC:   NSCC as Ultra Ethernet 1.0 specifies it
 */
enum mrc_cc_algo_id {
	MRC_CC_ALGO_NSCC,
	MRC_CC_ALGO_FIXED,
	MRC_CC_ALGO_UEC,

	/* private: */
	__MRC_CC_ALGO_CNT,
	MRC_CC_ALGO_MAX = __MRC_CC_ALGO_CNT - 1,
};

/**
 * enum mrc_cmd - commands of the mrc family
 *
 * GET commands answer a "do" (one object, selected by its key) and a
 * "dump" (every object). Writes need CAP_NET_ADMIN in the namespace's user
 * namespace. *_NTF commands are only ever sent by the kernel, to the
 * MRC_GENL_MCGRP_EVENTS group. MRC_CMD_EV_PROBE (CAP_NET_ADMIN) sends MRC
 * 1.0 EV probes to a peer on every path of its route and answers, once the
 * probes are answered or the timeout passed, with one MRC_ATTR_PROBE_RESULT
 * per probe.
 */
enum mrc_cmd {
	MRC_CMD_UNSPEC,
	MRC_CMD_PLANE_GET,
	MRC_CMD_PLANE_ADD,
	MRC_CMD_PLANE_DEL,
	MRC_CMD_PLANE_SET,
	MRC_CMD_ROUTE_GET,
	MRC_CMD_ROUTE_ADD,
	MRC_CMD_ROUTE_DEL,
	MRC_CMD_PROFILE_GET,
	MRC_CMD_PROFILE_ADD,
	MRC_CMD_PROFILE_DEL,
	MRC_CMD_PROFILE_SET,
	MRC_CMD_STATS_GET,
	MRC_CMD_PLANE_ADD_NTF,
	MRC_CMD_PLANE_DEL_NTF,
	MRC_CMD_PLANE_CHANGE_NTF,
	MRC_CMD_ROUTE_ADD_NTF,
	MRC_CMD_ROUTE_DEL_NTF,
	MRC_CMD_ROUTE_CHANGE_NTF,
	MRC_CMD_CONN_GET,
	MRC_CMD_CONN_UP_NTF,
	MRC_CMD_CONN_DOWN_NTF,
	MRC_CMD_PATH_CHANGE_NTF,
	MRC_CMD_EV_PROBE,

	/* private: */
	__MRC_CMD_CNT,
	MRC_CMD_MAX = __MRC_CMD_CNT - 1,
};

/**
 * enum mrc_attr - top-level attributes
 * @MRC_ATTR_PAD: padding for 64-bit attributes
 * @MRC_ATTR_PLANE_ID: u32, plane id 0..MRC_PLANE_ID_MAX
 * @MRC_ATTR_IFINDEX: u32, the plane's netdev (0 in replies: device gone)
 * @MRC_ATTR_IFNAME: string, the plane's netdev by name (input), its current
 *	name (replies, absent when the device is gone)
 * @MRC_ATTR_SADDR: binary (16 bytes), the plane's IPv6 source address
 * @MRC_ATTR_ADMIN_UP: u8 0/1, administrative state of a plane
 * @MRC_ATTR_OPER_UP: u8 0/1, replies only: device present, up and with
 *	carrier
 * @MRC_ATTR_DST: binary (16 bytes), destination prefix of a route
 * @MRC_ATTR_DST_LEN: u8 0..128, its length
 * @MRC_ATTR_ENCAP: u8, enum mrc_encap
 * @MRC_ATTR_PATH: nested enum mrc_path_attr, one per path, repeated
 * @MRC_ATTR_REPLACE: flag, MRC_CMD_ROUTE_ADD replaces an existing route
 * @MRC_ATTR_PROFILE_ID: u32, profile id 0..MRC_PROFILE_ID_MAX
 * @MRC_ATTR_PROFILE_EV: nested enum mrc_ev_attr
 * @MRC_ATTR_PROFILE_CC: nested enum mrc_cc_attr
 * @MRC_ATTR_STATS: nested enum mrc_stats_attr
 * @MRC_ATTR_CONN_QPN: u32, MRC_CMD_CONN_GET request: only the connection
 *	with this local QPN
 * @MRC_ATTR_CONN: nested enum mrc_conn_attr, MRC_CMD_CONN_GET replies
 * @MRC_ATTR_PROBE_PEER: binary (16 bytes), MRC_CMD_EV_PROBE: the peer whose
 *	paths are probed (required; echoed in the reply)
 * @MRC_ATTR_PROBE_EVS: u32 1..MRC_PROBE_EVS_MAX, MRC_CMD_EV_PROBE: EVs
 *	probed on each path (default MRC_PROBE_EVS_DEF)
 * @MRC_ATTR_PROBE_TIMEOUT_MS: u32 1..MRC_PROBE_TIMEOUT_MS_MAX,
 *	MRC_CMD_EV_PROBE: how long to wait for the answers (default
 *	MRC_PROBE_TIMEOUT_MS_DEF)
 * @MRC_ATTR_PROBE_RESULT: nested enum mrc_probe_attr, MRC_CMD_EV_PROBE
 *	replies: one per probe, in the order they were sent
 */
enum mrc_attr {
	MRC_ATTR_UNSPEC,
	MRC_ATTR_PAD,
	MRC_ATTR_PLANE_ID,
	MRC_ATTR_IFINDEX,
	MRC_ATTR_IFNAME,
	MRC_ATTR_SADDR,
	MRC_ATTR_ADMIN_UP,
	MRC_ATTR_OPER_UP,
	MRC_ATTR_DST,
	MRC_ATTR_DST_LEN,
	MRC_ATTR_ENCAP,
	MRC_ATTR_PATH,
	MRC_ATTR_REPLACE,
	MRC_ATTR_PROFILE_ID,
	MRC_ATTR_PROFILE_EV,
	MRC_ATTR_PROFILE_CC,
	MRC_ATTR_STATS,
	MRC_ATTR_CONN_QPN,
	MRC_ATTR_CONN,
	MRC_ATTR_PROBE_PEER,
	MRC_ATTR_PROBE_EVS,
	MRC_ATTR_PROBE_TIMEOUT_MS,
	MRC_ATTR_PROBE_RESULT,

	/* private: */
	__MRC_ATTR_CNT,
	MRC_ATTR_MAX = __MRC_ATTR_CNT - 1,
};

/* MRC_CMD_EV_PROBE: bounds and defaults of its request. */
#define MRC_PROBE_EVS_DEF		4
#define MRC_PROBE_EVS_MAX		16
#define MRC_PROBE_TIMEOUT_MS_DEF	1000
#define MRC_PROBE_TIMEOUT_MS_MAX	10000
/* Probes one request may send (paths x EVs); more is refused (E2BIG). */
#define MRC_PROBE_MAX			256

/**
 * enum mrc_probe_attr - one EV probe and its outcome (inside
 *	MRC_ATTR_PROBE_RESULT)
 * @MRC_PROBE_ATTR_PAD: padding for 64-bit attributes
 * @MRC_PROBE_ATTR_PLANE: u32, plane id the probe left on (absent: the peer
 *	has no MRC route, the probe took the host's route to it)
 * @MRC_PROBE_ATTR_PATH: u32, index of the path among the route's paths
 *	(absent: the route has no paths, or there is no route)
 * @MRC_PROBE_ATTR_EV: u32, the EV probed (bits 15-0: UDP source port,
 *	bits 31-16: flow label)
 * @MRC_PROBE_ATTR_RTT_NS: u64, round-trip time; present when answered
 * @MRC_PROBE_ATTR_ERROR: u32, positive errno when the probe was not sent
 *	(ENETDOWN: plane down; ENETUNREACH: no route out of the plane;
 *	ENOBUFS: the stack refused it)
 */
enum mrc_probe_attr {
	MRC_PROBE_ATTR_UNSPEC,
	MRC_PROBE_ATTR_PAD,
	MRC_PROBE_ATTR_PLANE,
	MRC_PROBE_ATTR_PATH,
	MRC_PROBE_ATTR_EV,
	MRC_PROBE_ATTR_RTT_NS,
	MRC_PROBE_ATTR_ERROR,

	/* private: */
	__MRC_PROBE_ATTR_CNT,
	MRC_PROBE_ATTR_MAX = __MRC_PROBE_ATTR_CNT - 1,
};

/**
 * enum mrc_path_attr - one path of a route (inside MRC_ATTR_PATH)
 * @MRC_PATH_ATTR_PLANE: u32, plane id (required)
 * @MRC_PATH_ATTR_SEGS: nested enum mrc_seg_attr, the segment list of an
 *	srh route, first segment first, 1..MRC_SEGS_MAX SIDs
 * @MRC_PATH_ATTR_USID: binary (16 bytes), uSID container of a usid route
 */
enum mrc_path_attr {
	MRC_PATH_ATTR_UNSPEC,
	MRC_PATH_ATTR_PLANE,
	MRC_PATH_ATTR_SEGS,
	MRC_PATH_ATTR_USID,

	/* private: */
	__MRC_PATH_ATTR_CNT,
	MRC_PATH_ATTR_MAX = __MRC_PATH_ATTR_CNT - 1,
};

/**
 * enum mrc_seg_attr - a segment list (inside MRC_PATH_ATTR_SEGS)
 * @MRC_SEG_ATTR_SID: binary (16 bytes), one SID, repeated in path order
 */
enum mrc_seg_attr {
	MRC_SEG_ATTR_UNSPEC,
	MRC_SEG_ATTR_SID,

	/* private: */
	__MRC_SEG_ATTR_CNT,
	MRC_SEG_ATTR_MAX = __MRC_SEG_ATTR_CNT - 1,
};

/**
 * enum mrc_ev_attr - EV part of a profile (inside MRC_ATTR_PROFILE_EV)
 * @MRC_EV_ATTR_COUNT: u32, EVs per connection,
 *	MRC_EV_COUNT_MIN..MRC_EV_COUNT_MAX (default 128)
 * @MRC_EV_ATTR_ACTIVE_PER_PLANE: u32 0..256, EVs of each plane in the
 *	active rotation; 0 (default): 3/4 of the plane's share
 * @MRC_EV_ATTR_MIN_ACTIVE: u32 0..256, floor of usable active EVs
 *	(ev_min_active); 0 (default): 1/8 of the active EVs, at least 2
 * @MRC_EV_ATTR_BURST: u32 1..MRC_EV_BURST_MAX, packets sent back to back
 *	on one EV (a flowcell: consecutive PSNs of one message, one
 *	segmentation-offload datagram); 1 sprays every packet on its own EV
 *	(default MRC_EV_BURST_DEFAULT)
 * @MRC_EV_ATTR_DSCP: u32 0..63, DSCP of data packets (the trimmable
 *	class), inner and outer IPv6 header; ECN bits ECT(0) (default
 *	MRC_DSCP_DATA_DEFAULT)
 * @MRC_EV_ATTR_DSCP_CTL: u32 0..63, DSCP of control packets (SACK, NACK,
 *	probes, endpoint operations), Not-ECT (default MRC_DSCP_CTL_DEFAULT)
 */
enum mrc_ev_attr {
	MRC_EV_ATTR_UNSPEC,
	MRC_EV_ATTR_COUNT,
	MRC_EV_ATTR_ACTIVE_PER_PLANE,
	MRC_EV_ATTR_MIN_ACTIVE,
	MRC_EV_ATTR_BURST,
	MRC_EV_ATTR_DSCP,
	MRC_EV_ATTR_DSCP_CTL,

	/* private: */
	__MRC_EV_ATTR_CNT,
	MRC_EV_ATTR_MAX = __MRC_EV_ATTR_CNT - 1,
};

/**
 * enum mrc_cc_attr - congestion-control part of a profile
 *	(inside MRC_ATTR_PROFILE_CC); per-mille values are u32
 * @MRC_CC_ATTR_ALGO: u8, enum mrc_cc_algo_id (default NSCC)
 * @MRC_CC_ATTR_TARGET_DELAY_PM: target queueing delay, per mille of the
 *	base RTT, 1..10000 (default 750)
 * @MRC_CC_ATTR_GAMMA_PM: multiplicative-decrease gain, 1..1000 (default 800)
 * @MRC_CC_ATTR_MAX_MD_PM: largest single decrease, 1..1000 (default 500)
 * @MRC_CC_ATTR_MAX_WND_PM: window ceiling, per mille of the BDP,
 *	100..10000 (default 1500)
 * @MRC_CC_ATTR_INIT_WND_PM: initial window, per mille of the BDP,
 *	100..10000, at most the ceiling (default 1500)
 * @MRC_CC_ATTR_LINK_MBPS: the fabric's link rate, Mbit/s,
 *	MRC_CC_LINK_MBPS_MIN..MRC_CC_LINK_MBPS_MAX (default 100000): UEC's
 *	NSCC (MRC_CC_ALGO_UEC) scales its increase constants to rate x base
 *	RTT, as UEC 1.0 assumes the rate configured; NSCC and FIXED ignore it
 * @MRC_CC_ATTR_INIT_WND_SHARED: u8, 0..1 (default 1): the connection
 *	splits one initial window with the namespace's other connections of
 *	such profiles that are starting (sent data, none acknowledged yet):
 *	while n are, none has more than the initial window / n in flight.
 *	0: a whole initial window of its own, whatever else starts at once
 */
enum mrc_cc_attr {
	MRC_CC_ATTR_UNSPEC,
	MRC_CC_ATTR_ALGO,
	MRC_CC_ATTR_TARGET_DELAY_PM,
	MRC_CC_ATTR_GAMMA_PM,
	MRC_CC_ATTR_MAX_MD_PM,
	MRC_CC_ATTR_MAX_WND_PM,
	MRC_CC_ATTR_INIT_WND_PM,
	MRC_CC_ATTR_LINK_MBPS,
	MRC_CC_ATTR_INIT_WND_SHARED,

	/* private: */
	__MRC_CC_ATTR_CNT,
	MRC_CC_ATTR_MAX = __MRC_CC_ATTR_CNT - 1,
};

/**
 * enum mrc_stats_attr - per-namespace counters (inside MRC_ATTR_STATS)
 *
 * All u64 except the object counts (u32). REJ_* count requests that passed
 * the attribute policy and were refused by the handler, by errno; policy
 * violations (type, length, range, unknown attributes) and EPERM are
 * refused by the generic netlink core before the family sees them.
 * @MRC_STATS_ATTR_PAD: padding
 * @MRC_STATS_ATTR_PLANES: u32, configured planes
 * @MRC_STATS_ATTR_ROUTES: u32, configured routes
 * @MRC_STATS_ATTR_PROFILES: u32, configured profiles (profile 0 included)
 * @MRC_STATS_ATTR_CHANGES: configuration changes applied
 * @MRC_STATS_ATTR_REJ_INVAL: rejected with EINVAL (inconsistent request)
 * @MRC_STATS_ATTR_REJ_NOENT: rejected with ENOENT (no such object)
 * @MRC_STATS_ATTR_REJ_EXIST: rejected with EEXIST (object exists)
 * @MRC_STATS_ATTR_REJ_NODEV: rejected with ENODEV (no such netdev)
 * @MRC_STATS_ATTR_REJ_NOSPC: rejected with ENOSPC (table full)
 * @MRC_STATS_ATTR_REJ_BUSY: rejected with EBUSY (object in use)
 * @MRC_STATS_ATTR_REJ_NOMEM: rejected with ENOMEM
 * @MRC_STATS_ATTR_REJ_OTHER: rejected with any other errno
 * @MRC_STATS_ATTR_EVENTS: notifications sent to MRC_GENL_MCGRP_EVENTS
 * @MRC_STATS_ATTR_SOCK_CREATED: AF_MRC sockets created
 * @MRC_STATS_ATTR_SOCK_RELEASED: AF_MRC sockets released
 * @MRC_STATS_ATTR_BIND_OK: successful bind() calls
 * @MRC_STATS_ATTR_BIND_BAD_ADDR: bind() rejected: malformed address
 * @MRC_STATS_ATTR_BIND_ADDR_NOTAVAIL: bind() rejected: address not local
 * @MRC_STATS_ATTR_BIND_ADDR_INUSE: bind() rejected: service id in use
 * @MRC_STATS_ATTR_SOCK_BAD_TYPE: socket() rejected: type or protocol
 * @MRC_STATS_ATTR_RX_PKTS: MRC packets received on the UDP socket
 * @MRC_STATS_ATTR_RX_TRUNCATED: dropped: shorter than its headers
 * @MRC_STATS_ATTR_RX_BAD_ICRC: dropped: ICRC mismatch
 * @MRC_STATS_ATTR_RX_BAD_OPCODE: dropped: unknown opcode
 * @MRC_STATS_ATTR_RX_BAD_HEADER: dropped: malformed header
 * @MRC_STATS_ATTR_RX_UNKNOWN_QPN: dropped: no connection with that QPN
 * @MRC_STATS_ATTR_RX_WRONG_SOURCE: dropped: not from the connection's peer
 * @MRC_STATS_ATTR_RX_NOT_READY: dropped: connection not established
 * @MRC_STATS_ATTR_RX_STALE: ignored: wrong connection id, old PSN, unknown
 *	EV, CLOSE for a connection already gone
 * @MRC_STATS_ATTR_RX_PROTO_ERROR: rejected as a protocol violation
 * @MRC_STATS_ATTR_RX_OUT_OF_WINDOW: data outside the receive window
 * @MRC_STATS_ATTR_RX_DUPLICATE: duplicate data (re-acked, not re-delivered)
 * @MRC_STATS_ATTR_RX_NO_BUFFER: data refused: receive buffer full
 * @MRC_STATS_ATTR_RX_BAD_HANDSHAKE: handshake packet that matches nothing or fails
 *	a check
 * @MRC_STATS_ATTR_RX_NO_MEMORY: dropped: allocation failed
 * @MRC_STATS_ATTR_RX_BAD_ADDRESS: dropped: not unicast to this host
 * @MRC_STATS_ATTR_TX_PKTS: packets sent
 * @MRC_STATS_ATTR_TX_ERRORS: packets the IPv6 output refused
 * @MRC_STATS_ATTR_TX_NO_ROUTE: packets without a route
 * @MRC_STATS_ATTR_CONNECT_REQUESTS: CONNECT requests sent
 * @MRC_STATS_ATTR_CONNECT_REQUEST_RETRANS: CONNECT requests retransmitted
 * @MRC_STATS_ATTR_CONNECT_RESPONSES: CONNECT responses sent
 * @MRC_STATS_ATTR_CONNECT_REFUSED: CONNECT refused (no listener)
 * @MRC_STATS_ATTR_CONNECT_BACKLOG_DROPS: CONNECT dropped: accept backlog full
 * @MRC_STATS_ATTR_CONN_ESTABLISHED: connections established
 * @MRC_STATS_ATTR_CONNECT_TIMEOUTS: connect attempts that timed out
 * @MRC_STATS_ATTR_CONN_FAILED: established connections that failed
 * @MRC_STATS_ATTR_CONN_CLOSED: connections torn down
 * @MRC_STATS_ATTR_RX_BAD_SRH: dropped: invalid segment routing header
 * @MRC_STATS_ATTR_TIMER_STALLS: late connection timers given a grace period
 * @MRC_STATS_ATTR_TX_PORT_STATUS: port-status updates sent to peers
 * @MRC_STATS_ATTR_RX_PORT_STATUS: port-status updates received from peers
 * @MRC_STATS_ATTR_CONN_ABORTED: connections closed with SO_LINGER 0 (abort)
 * @MRC_STATS_ATTR_TX_LOCAL_DROPS: data packets the sending host's own queue
 *	refused (retransmitted at once, not counted in TX_ERRORS)
 * @MRC_STATS_ATTR_TX_MEM_LIMIT: sends refused for memory (net.mrc.mem or
 *	the socket's memory cgroup)
 * @MRC_STATS_ATTR_RX_MEM_LIMIT: received messages refused for memory
 * @MRC_STATS_ATTR_CONNECT_ICMP_ERRORS: connect attempts failed by an ICMPv6
 *	error (port unreachable: ECONNREFUSED)
 * @MRC_STATS_ATTR_CONNECT_COOKIES_SENT: connect requests answered with a
 *	cookie (RETRY: the server keeps no state until the cookie is echoed)
 * @MRC_STATS_ATTR_CONNECT_COOKIES_BAD: connect requests whose echoed cookie
 *	did not verify (forged, or expired)
 * @MRC_STATS_ATTR_HANDSHAKE_ANSWERS_LIMITED: answers to unproven sources
 *	(rejects, cookie answers, repeated accepts) not sent for
 *	net.mrc.handshake_answer_rate
 * @MRC_STATS_ATTR_PKT_TOO_BIG: ICMPv6 Packet Too Big reports that lowered a
 *	connection's MTU
 * @MRC_STATS_ATTR_PKT_TOO_BIG_IGNORED: Packet Too Big reports about our
 *	port that did not (no live connection, PSN not in flight, MTU not
 *	below the connection's)
 * @MRC_STATS_ATTR_PMTU_RETRANSMITS: packets in flight resent at once
 *	because a Packet Too Big made them too big for the path
 * @MRC_STATS_ATTR_ORPHANS_ABORTED: close() calls that aborted their
 *	connection because net.mrc.max_orphans were lingering already
 * @MRC_STATS_ATTR_IDLE_CHILDREN_ABORTED: connections a listener aborted
 *	because they sat in its accept queue for
 *	net.mrc.child_idle_timeout_ms without delivering a message
 * @MRC_STATS_ATTR_PORT_STATUS_RETRANSMITS: port-status updates sent again
 *	because the peer had not answered them
 * @MRC_STATS_ATTR_PORT_STATUS_ACKED: answers that confirmed the
 *	port-status update being retransmitted
 * @MRC_STATS_ATTR_PORT_STATUS_UNMATCHED: port-status updates or answers
 *	that named no connection of their source (token): ignored
 * @MRC_STATS_ATTR_RX_FLOWCELLS: flowcells received whole (one UDP GSO
 *	skb of several MRC packets; each packet counts in RX_PKTS too)
 * @MRC_STATS_ATTR_RX_HELD: data packets whose payload stayed in the skb
 *	it arrived in until recvmsg() copied it out (the others were copied
 *	into the message's pages on arrival)
 * @MRC_STATS_ATTR_RX_COPIED: data packets whose payload was copied into
 *	the message's pages on arrival (holding the skb would have taken the
 *	message past its charge, and SO_RCVBUF or the memory limits refused)
 * @MRC_STATS_ATTR_EV_PROBES_ANSWERED: connectionless EV probes (ERTH op
 *	EV_PROBE, MRC 1.0) of a peer answered
 * @MRC_STATS_ATTR_RCVBUF_GROWN: receive buffers grown instead of refusing
 *	a message (up to net.mrc.rmem[2], SO_RCVBUF not set)
 * @MRC_STATS_ATTR_SNDBUF_GROWN: send buffers grown to twice the congestion
 *	window or the message (up to net.mrc.wmem[2], SO_SNDBUF not set)
 * @MRC_STATS_ATTR_TX_LOCAL_CONGESTION: data packets a local queue took
 *	while dropping others to make room (NET_XMIT_CN); the connection's
 *	window shrank by them
 * @MRC_STATS_ATTR_TX_QUEUE_THROTTLED: transmit passes that stopped asking
 *	for packets because the connection's bytes in this host's queues
 *	reached net.mrc.limit_output_bytes
 * @MRC_STATS_ATTR_TIMER_IDLE: connection timer expiries that found
 *	nothing due (a stale deadline)
 * @MRC_STATS_ATTR_TX_PAGES_REUSED: pages of messages sent that came from
 *	their socket's cache of completed messages' pages, not the allocator
 * @MRC_STATS_ATTR_TX_FRAG_PAGES_REUSED: flowcell frag pages filled again
 *	from their socket's ring once every skb they went into was freed, not
 *	taken fresh (and zeroed) from the allocator
 * @MRC_STATS_ATTR_RX_BACKLOG: datagrams that arrived while a task owned
 *	their connection's socket, processed by that task when it released
 *	the socket (the socket's backlog, as TCP's)
 * @MRC_STATS_ATTR_RX_STEERED: flowcells received on one CPU and processed
 *	on the CPU that reads their socket (net.mrc.rx_steer_min_bytes)
 * @MRC_STATS_ATTR_EV_PROBES_SENT: EV probes of our own (ERTH op EV_PROBE,
 *	MRC_CMD_EV_PROBE) sent
 * @MRC_STATS_ATTR_EV_PROBES_REPLIED: answers (EETH op EV_PROBE) to them
 *	that matched a probe in flight
 * @MRC_STATS_ATTR_TX_FLOWCELLS_IN_PLACE: flowcells sent from their
 *	message's own pages (laid out as on the wire when the message was
 *	queued), without a copy into frags
 * @MRC_STATS_ATTR_TX_FLOWCELLS_AUTOSIZED: flowcells sent shorter than
 *	their EV profile's burst because a millisecond (sysctl
 *	net.mrc.tx_burst_autosize_us) of one plane's share of their
 *	connection's rate is less
 *
 * The datapath counters (RX_PKTS onwards) are those of /proc/net/mrc.
 */
enum mrc_stats_attr {
	MRC_STATS_ATTR_UNSPEC,
	MRC_STATS_ATTR_PAD,
	MRC_STATS_ATTR_PLANES,
	MRC_STATS_ATTR_ROUTES,
	MRC_STATS_ATTR_PROFILES,
	MRC_STATS_ATTR_CHANGES,
	MRC_STATS_ATTR_REJ_INVAL,
	MRC_STATS_ATTR_REJ_NOENT,
	MRC_STATS_ATTR_REJ_EXIST,
	MRC_STATS_ATTR_REJ_NODEV,
	MRC_STATS_ATTR_REJ_NOSPC,
	MRC_STATS_ATTR_REJ_BUSY,
	MRC_STATS_ATTR_REJ_NOMEM,
	MRC_STATS_ATTR_REJ_OTHER,
	MRC_STATS_ATTR_EVENTS,
	MRC_STATS_ATTR_SOCK_CREATED,
	MRC_STATS_ATTR_SOCK_RELEASED,
	MRC_STATS_ATTR_BIND_OK,
	MRC_STATS_ATTR_BIND_BAD_ADDR,
	MRC_STATS_ATTR_BIND_ADDR_NOTAVAIL,
	MRC_STATS_ATTR_BIND_ADDR_INUSE,
	MRC_STATS_ATTR_SOCK_BAD_TYPE,
	MRC_STATS_ATTR_RX_PKTS,
	MRC_STATS_ATTR_RX_TRUNCATED,
	MRC_STATS_ATTR_RX_BAD_ICRC,
	MRC_STATS_ATTR_RX_BAD_OPCODE,
	MRC_STATS_ATTR_RX_BAD_HEADER,
	MRC_STATS_ATTR_RX_UNKNOWN_QPN,
	MRC_STATS_ATTR_RX_WRONG_SOURCE,
	MRC_STATS_ATTR_RX_NOT_READY,
	MRC_STATS_ATTR_RX_STALE,
	MRC_STATS_ATTR_RX_PROTO_ERROR,
	MRC_STATS_ATTR_RX_OUT_OF_WINDOW,
	MRC_STATS_ATTR_RX_DUPLICATE,
	MRC_STATS_ATTR_RX_NO_BUFFER,
	MRC_STATS_ATTR_RX_BAD_HANDSHAKE,
	MRC_STATS_ATTR_RX_NO_MEMORY,
	MRC_STATS_ATTR_RX_BAD_ADDRESS,
	MRC_STATS_ATTR_TX_PKTS,
	MRC_STATS_ATTR_TX_ERRORS,
	MRC_STATS_ATTR_TX_NO_ROUTE,
	MRC_STATS_ATTR_CONNECT_REQUESTS,
	MRC_STATS_ATTR_CONNECT_REQUEST_RETRANS,
	MRC_STATS_ATTR_CONNECT_RESPONSES,
	MRC_STATS_ATTR_CONNECT_REFUSED,
	MRC_STATS_ATTR_CONNECT_BACKLOG_DROPS,
	MRC_STATS_ATTR_CONN_ESTABLISHED,
	MRC_STATS_ATTR_CONNECT_TIMEOUTS,
	MRC_STATS_ATTR_CONN_FAILED,
	MRC_STATS_ATTR_CONN_CLOSED,
	MRC_STATS_ATTR_RX_BAD_SRH,
	MRC_STATS_ATTR_TIMER_STALLS,
	MRC_STATS_ATTR_TX_PORT_STATUS,
	MRC_STATS_ATTR_RX_PORT_STATUS,
	MRC_STATS_ATTR_CONN_ABORTED,
	MRC_STATS_ATTR_TX_LOCAL_DROPS,
	MRC_STATS_ATTR_TX_MEM_LIMIT,
	MRC_STATS_ATTR_RX_MEM_LIMIT,
	MRC_STATS_ATTR_CONNECT_ICMP_ERRORS,
	MRC_STATS_ATTR_CONNECT_COOKIES_SENT,
	MRC_STATS_ATTR_CONNECT_COOKIES_BAD,
	MRC_STATS_ATTR_HANDSHAKE_ANSWERS_LIMITED,
	MRC_STATS_ATTR_PKT_TOO_BIG,
	MRC_STATS_ATTR_PKT_TOO_BIG_IGNORED,
	MRC_STATS_ATTR_PMTU_RETRANSMITS,
	MRC_STATS_ATTR_ORPHANS_ABORTED,
	MRC_STATS_ATTR_IDLE_CHILDREN_ABORTED,
	MRC_STATS_ATTR_PORT_STATUS_RETRANSMITS,
	MRC_STATS_ATTR_PORT_STATUS_ACKED,
	MRC_STATS_ATTR_PORT_STATUS_UNMATCHED,
	MRC_STATS_ATTR_RX_FLOWCELLS,
	MRC_STATS_ATTR_RX_HELD,
	MRC_STATS_ATTR_RX_COPIED,
	MRC_STATS_ATTR_EV_PROBES_ANSWERED,
	MRC_STATS_ATTR_RCVBUF_GROWN,
	MRC_STATS_ATTR_SNDBUF_GROWN,
	MRC_STATS_ATTR_TX_LOCAL_CONGESTION,
	MRC_STATS_ATTR_TX_QUEUE_THROTTLED,
	MRC_STATS_ATTR_TIMER_IDLE,
	MRC_STATS_ATTR_TX_PAGES_REUSED,
	MRC_STATS_ATTR_TX_FRAG_PAGES_REUSED,
	MRC_STATS_ATTR_RX_BACKLOG,
	MRC_STATS_ATTR_RX_STEERED,
	MRC_STATS_ATTR_EV_PROBES_SENT,
	MRC_STATS_ATTR_EV_PROBES_REPLIED,
	MRC_STATS_ATTR_TX_FLOWCELLS_IN_PLACE,
	MRC_STATS_ATTR_TX_FLOWCELLS_AUTOSIZED,

	/* private: */
	__MRC_STATS_ATTR_CNT,
	MRC_STATS_ATTR_MAX = __MRC_STATS_ATTR_CNT - 1,
};

/* The names before the counters got one spelling (spec, /proc, mrcctl). */
#define MRC_STATS_ATTR_RX_TRUNC	MRC_STATS_ATTR_RX_TRUNCATED
#define MRC_STATS_ATTR_RX_BAD_HDR	MRC_STATS_ATTR_RX_BAD_HEADER
#define MRC_STATS_ATTR_RX_WRONG_SRC	MRC_STATS_ATTR_RX_WRONG_SOURCE
#define MRC_STATS_ATTR_RX_PROTO	MRC_STATS_ATTR_RX_PROTO_ERROR
#define MRC_STATS_ATTR_RX_OOW	MRC_STATS_ATTR_RX_OUT_OF_WINDOW
#define MRC_STATS_ATTR_RX_DUP	MRC_STATS_ATTR_RX_DUPLICATE
#define MRC_STATS_ATTR_RX_NOBUF	MRC_STATS_ATTR_RX_NO_BUFFER
#define MRC_STATS_ATTR_RX_BAD_HS	MRC_STATS_ATTR_RX_BAD_HANDSHAKE
#define MRC_STATS_ATTR_RX_NOMEM	MRC_STATS_ATTR_RX_NO_MEMORY
#define MRC_STATS_ATTR_RX_BAD_ADDR	MRC_STATS_ATTR_RX_BAD_ADDRESS
#define MRC_STATS_ATTR_TX_ERR	MRC_STATS_ATTR_TX_ERRORS
#define MRC_STATS_ATTR_TX_NOROUTE	MRC_STATS_ATTR_TX_NO_ROUTE
#define MRC_STATS_ATTR_CONN_REQ_SENT	MRC_STATS_ATTR_CONNECT_REQUESTS
#define MRC_STATS_ATTR_CONN_REQ_RTX	MRC_STATS_ATTR_CONNECT_REQUEST_RETRANS
#define MRC_STATS_ATTR_CONN_RESP_SENT	MRC_STATS_ATTR_CONNECT_RESPONSES
#define MRC_STATS_ATTR_CONN_REFUSED	MRC_STATS_ATTR_CONNECT_REFUSED
#define MRC_STATS_ATTR_CONN_BACKLOG	MRC_STATS_ATTR_CONNECT_BACKLOG_DROPS
#define MRC_STATS_ATTR_CONN_ESTAB	MRC_STATS_ATTR_CONN_ESTABLISHED
#define MRC_STATS_ATTR_CONN_TIMEDOUT	MRC_STATS_ATTR_CONNECT_TIMEOUTS

/**
 * enum mrc_path_state - state of an EV (entropy value = path) in
 *	MRC_CONN_EV_ATTR_STATE
 * @MRC_PATH_GOOD: usable
 * @MRC_PATH_SKIP: congested, passed over for a few rotations
 * @MRC_PATH_ASSUMED_BAD: silent loss (timeout), out of the rotation until
 *	a probe on it is answered
 * @MRC_PATH_DENIED: administratively excluded
 */
enum mrc_path_state {
	MRC_PATH_GOOD		= 0,
	MRC_PATH_SKIP		= 1,
	MRC_PATH_ASSUMED_BAD	= 2,
	MRC_PATH_DENIED		= 3,
};

/**
 * enum mrc_conn_attr - one connection (inside MRC_ATTR_CONN)
 *
 * A connection with many EVs is dumped as several messages, each with the
 * same connection attributes and the next run of MRC_CONN_ATTR_EV entries
 * (in index order); the plane summaries come with the first one.
 * @MRC_CONN_ATTR_PAD: padding
 * @MRC_CONN_ATTR_QPN: u32, local QPN
 * @MRC_CONN_ATTR_PEER_QPN: u32, the peer's QPN
 * @MRC_CONN_ATTR_LOCAL_ADDR: binary (16 bytes), local IPv6 address
 * @MRC_CONN_ATTR_PEER_ADDR: binary (16 bytes), the peer's IPv6 address
 * @MRC_CONN_ATTR_LOCAL_SERVICE: u16, local service id
 * @MRC_CONN_ATTR_PEER_SERVICE: u16, the peer's service id
 * @MRC_CONN_ATTR_LOCAL_CONN_ID: u16, local connection id
 * @MRC_CONN_ATTR_PEER_CONN_ID: u16, the peer's connection id
 * @MRC_CONN_ATTR_STATE: u8, enum mrc_info_state
 * @MRC_CONN_ATTR_CWND: u32, congestion window, bytes
 * @MRC_CONN_ATTR_SRTT_NS: u64, smoothed RTT
 * @MRC_CONN_ATTR_RETRANSMITS: u64, retransmitted data packets
 * @MRC_CONN_ATTR_TIMEOUTS: u64, retransmit timeouts
 * @MRC_CONN_ATTR_TX_PKTS: u64, data packets sent (retransmissions included)
 * @MRC_CONN_ATTR_TX_BYTES: u64, payload bytes sent
 * @MRC_CONN_ATTR_EVENTS_DROPPED: u64, engine events lost to a full queue
 * @MRC_CONN_ATTR_N_EVS: u32, EVs of the connection
 * @MRC_CONN_ATTR_PLANE: nested enum mrc_conn_plane_attr, repeated
 * @MRC_CONN_ATTR_EV: nested enum mrc_conn_ev_attr, repeated
 * @MRC_CONN_ATTR_ERROR: u32, MRC_CMD_CONN_DOWN_NTF: positive errno the
 *	connection failed with (ETIMEDOUT, ECONNRESET), 0 for a close
 * @MRC_CONN_ATTR_EV_LOST: u32, MRC_CMD_PATH_CHANGE_NTF: EV changes of the
 *	same engine input left out of the message (over its capacity)
 * @MRC_CONN_ATTR_RMEM_ALLOC: u64, struct mrc_info.mi_rmem_alloc: bytes
 *	charged for received messages (unread, being received)
 * @MRC_CONN_ATTR_RMEM_UNREAD: u64, mi_rmem_unread: of these, delivered
 *	messages not read yet
 * @MRC_CONN_ATTR_WMEM_QUEUED: u64, mi_wmem_queued: bytes charged for sent
 *	messages not acknowledged yet
 * @MRC_CONN_ATTR_WMEM_KEPT: u64, mi_wmem_kept: kept pages and frag pages
 * @MRC_CONN_ATTR_MEM_CHARGED: u64, mi_mem_charged: bytes charged to the
 *	protocol's memory accounting
 * @MRC_CONN_ATTR_FWD_ALLOC: u32, mi_fwd_alloc: sk_forward_alloc
 * @MRC_CONN_ATTR_WMEM_ALLOC: u32, mi_wmem_alloc: truesize of the packets
 *	in this host's queues
 * @MRC_CONN_ATTR_RCVBUF: u32, SO_RCVBUF now
 * @MRC_CONN_ATTR_SNDBUF: u32, SO_SNDBUF now
 */
enum mrc_conn_attr {
	MRC_CONN_ATTR_UNSPEC,
	MRC_CONN_ATTR_PAD,
	MRC_CONN_ATTR_QPN,
	MRC_CONN_ATTR_PEER_QPN,
	MRC_CONN_ATTR_LOCAL_ADDR,
	MRC_CONN_ATTR_PEER_ADDR,
	MRC_CONN_ATTR_LOCAL_SERVICE,
	MRC_CONN_ATTR_PEER_SERVICE,
	MRC_CONN_ATTR_LOCAL_CONN_ID,
	MRC_CONN_ATTR_PEER_CONN_ID,
	MRC_CONN_ATTR_STATE,
	MRC_CONN_ATTR_CWND,
	MRC_CONN_ATTR_SRTT_NS,
	MRC_CONN_ATTR_RETRANSMITS,
	MRC_CONN_ATTR_TIMEOUTS,
	MRC_CONN_ATTR_TX_PKTS,
	MRC_CONN_ATTR_TX_BYTES,
	MRC_CONN_ATTR_EVENTS_DROPPED,
	MRC_CONN_ATTR_N_EVS,
	MRC_CONN_ATTR_PLANE,
	MRC_CONN_ATTR_EV,
	MRC_CONN_ATTR_ERROR,
	MRC_CONN_ATTR_EV_LOST,
	MRC_CONN_ATTR_RMEM_ALLOC,
	MRC_CONN_ATTR_RMEM_UNREAD,
	MRC_CONN_ATTR_WMEM_QUEUED,
	MRC_CONN_ATTR_WMEM_KEPT,
	MRC_CONN_ATTR_MEM_CHARGED,
	MRC_CONN_ATTR_FWD_ALLOC,
	MRC_CONN_ATTR_WMEM_ALLOC,
	MRC_CONN_ATTR_RCVBUF,
	MRC_CONN_ATTR_SNDBUF,

	/* private: */
	__MRC_CONN_ATTR_CNT,
	MRC_CONN_ATTR_MAX = __MRC_CONN_ATTR_CNT - 1,
};

/**
 * enum mrc_conn_ev_attr - one EV of a connection (inside MRC_CONN_ATTR_EV)
 * @MRC_CONN_EV_ATTR_PAD: padding
 * @MRC_CONN_EV_ATTR_INDEX: u32, index in the connection's EV set
 * @MRC_CONN_EV_ATTR_VALUE: u32, the entropy value
 * @MRC_CONN_EV_ATTR_PLANE: u8, plane
 * @MRC_CONN_EV_ATTR_STATE: u8, enum mrc_path_state
 * @MRC_CONN_EV_ATTR_ACTIVE: u8 0/1, in the active rotation
 * @MRC_CONN_EV_ATTR_SENT: u64, data packets sent on it
 * @MRC_CONN_EV_ATTR_SACKED: u64, SACKs that echoed it
 * @MRC_CONN_EV_ATTR_NACKED: u64, NACKs that echoed it
 * @MRC_CONN_EV_ATTR_TIMEOUTS: u64, packets sent on it that timed out
 * @MRC_CONN_EV_ATTR_ECN: u64, SACKs that echoed it with an ECN verdict
 *	(M = SKIP_ONCE or ALWAYS_SKIP: the receiver saw CE on it)
 * @MRC_CONN_EV_ATTR_LOSSES: u64, packets sent on it found lost before their
 *	timeout (packets sent after them were delivered)
 */
enum mrc_conn_ev_attr {
	MRC_CONN_EV_ATTR_UNSPEC,
	MRC_CONN_EV_ATTR_PAD,
	MRC_CONN_EV_ATTR_INDEX,
	MRC_CONN_EV_ATTR_VALUE,
	MRC_CONN_EV_ATTR_PLANE,
	MRC_CONN_EV_ATTR_STATE,
	MRC_CONN_EV_ATTR_ACTIVE,
	MRC_CONN_EV_ATTR_SENT,
	MRC_CONN_EV_ATTR_SACKED,
	MRC_CONN_EV_ATTR_NACKED,
	MRC_CONN_EV_ATTR_TIMEOUTS,
	MRC_CONN_EV_ATTR_ECN,
	MRC_CONN_EV_ATTR_LOSSES,

	/* private: */
	__MRC_CONN_EV_ATTR_CNT,
	MRC_CONN_EV_ATTR_MAX = __MRC_CONN_EV_ATTR_CNT - 1,
};

/**
 * enum mrc_conn_plane_attr - one plane of a connection (inside
 *	MRC_CONN_ATTR_PLANE); counters summed over the plane's EVs
 * @MRC_CONN_PLANE_ATTR_PAD: padding
 * @MRC_CONN_PLANE_ATTR_ID: u8, plane index of the connection
 * @MRC_CONN_PLANE_ATTR_UP: u8 0/1, port up
 * @MRC_CONN_PLANE_ATTR_N_EVS: u32, EVs of the plane
 * @MRC_CONN_PLANE_ATTR_N_ACTIVE: u32, of these in the active rotation
 * @MRC_CONN_PLANE_ATTR_N_GOOD: u32, of these GOOD
 * @MRC_CONN_PLANE_ATTR_N_BAD: u32, of these ASSUMED_BAD
 * @MRC_CONN_PLANE_ATTR_SENT: u64
 * @MRC_CONN_PLANE_ATTR_SACKED: u64
 * @MRC_CONN_PLANE_ATTR_NACKED: u64
 * @MRC_CONN_PLANE_ATTR_TIMEOUTS: u64
 */
enum mrc_conn_plane_attr {
	MRC_CONN_PLANE_ATTR_UNSPEC,
	MRC_CONN_PLANE_ATTR_PAD,
	MRC_CONN_PLANE_ATTR_ID,
	MRC_CONN_PLANE_ATTR_UP,
	MRC_CONN_PLANE_ATTR_N_EVS,
	MRC_CONN_PLANE_ATTR_N_ACTIVE,
	MRC_CONN_PLANE_ATTR_N_GOOD,
	MRC_CONN_PLANE_ATTR_N_BAD,
	MRC_CONN_PLANE_ATTR_SENT,
	MRC_CONN_PLANE_ATTR_SACKED,
	MRC_CONN_PLANE_ATTR_NACKED,
	MRC_CONN_PLANE_ATTR_TIMEOUTS,

	/* private: */
	__MRC_CONN_PLANE_ATTR_CNT,
	MRC_CONN_PLANE_ATTR_MAX = __MRC_CONN_PLANE_ATTR_CNT - 1,
};

/*
 * ---- AF_MRC datapath: messages and socket options (level SOL_MRC) ----
 *
 * Documentation/networking/mrc-socket.rst is the full contract.
 */

/* Longest message of one sendmsg()/recvmsg(); longer sends fail EMSGSIZE. */
#define MRC_MSG_MAX		(16u << 20)

/*
 * Options, level SOL_MRC. Values are fixed-width; structs have reserved
 * fields that must be zero (EINVAL otherwise). The connection options
 * (EV set size, profiles, plane mask) are read when the connection is
 * set up: set them before connect() or on the listener before the peer
 * connects (accepted sockets inherit them); later changes give EISCONN.
 */
#define MRC_EV_SET_SIZE		1	/* __u32: EVs per connection, 0 = the EV
					 * profile's; else MRC_EV_COUNT_MIN..MAX
					 */
#define MRC_PROFILE		2	/* struct mrc_profile_opt */
#define MRC_PLANE_MASK		3	/* __u32: planes the connection may use, 0 = all */
#define MRC_INFO		4	/* struct mrc_info, getsockopt() only */

/**
 * struct mrc_profile_opt - MRC_PROFILE: which configured profiles (see
 * MRC_CMD_PROFILE_*) a connection uses; ids 0..MRC_PROFILE_ID_MAX, 0 is
 * the namespace default that always exists
 * @cc_profile: profile whose congestion-control parameters apply
 * @ev_profile: profile whose EV parameters apply
 * @reserved:   must be zero
 */
struct mrc_profile_opt {
	__u16	cc_profile;
	__u16	ev_profile;
	__u32	reserved;
};

#define MRC_INFO_PLANES		32

/* struct mrc_info.mi_state */
enum mrc_info_state {
	MRC_INFO_CLOSED		= 0,
	MRC_INFO_LISTEN		= 1,
	MRC_INFO_CONNECTING	= 2,
	MRC_INFO_ESTABLISHED	= 3,
	MRC_INFO_FAILED		= 4,
};

/**
 * struct mrc_info_plane - per-plane part of struct mrc_info
 * @tx_pkts:    packets sent on the plane (data, control, probes)
 * @tx_bytes:   their UDP payload bytes
 * @evs:        EVs of the connection on this plane
 * @evs_active: of these in the active rotation
 * @evs_good:   of these GOOD
 * @evs_bad:    of these ASSUMED_BAD
 */
struct mrc_info_plane {
	__u64	tx_pkts;
	__u64	tx_bytes;
	__u32	evs;
	__u32	evs_active;
	__u32	evs_good;
	__u32	evs_bad;
};

/**
 * struct mrc_info - getsockopt(SOL_MRC, MRC_INFO): connection state
 * @mi_size:        bytes of the struct the kernel knows (first field, so
 *                  that the struct can grow: the kernel copies
 *                  min(optlen, its size) and sets optlen to that)
 * @mi_state:       enum mrc_info_state
 * @mi_qpn:         our QPN (BTH.dest_qp of packets to us)
 * @mi_peer_qpn:    the peer's QPN
 * @mi_mtu:         payload bytes per data packet
 * @mi_cwnd:        congestion window, bytes
 * @mi_srtt_ns:     smoothed RTT
 * @mi_min_rtt_ns:  minimum RTT
 * @mi_rttvar_ns:   RTT variance
 * @mi_retransmits: retransmitted packets
 * @mi_timeouts:    retransmit timeouts
 * @mi_tx_msgs:     messages sent and acknowledged
 * @mi_rx_msgs:     messages delivered
 * @mi_tx_pkts:     data packets sent (retransmissions included)
 * @mi_tx_bytes:    payload bytes sent (retransmissions included)
 * @mi_rx_pkts:     data packets received
 * @mi_rx_bytes:    payload bytes accepted
 * @mi_rx_dup:      duplicate data packets
 * @mi_rx_oow:      data packets outside the receive window
 * @mi_ev_good:     EVs GOOD
 * @mi_ev_skip:     EVs SKIP
 * @mi_ev_bad:      EVs ASSUMED_BAD
 * @mi_ev_denied:   EVs DENIED
 * @mi_n_planes:    planes of the connection (entries of @mi_planes used)
 * @mi_retry_left:  remaining retry budget
 * @mi_snd_una:     oldest PSN we sent that is not acknowledged
 * @mi_snd_nxt:     next new PSN we send
 * @mi_rcv_cack:    last PSN received in order from the peer
 * @mi_reserved:    zero
 * @mi_planes:      per-plane counters
 *
 * Since MRC_INFO_SIZE_V2:
 * @mi_spurious_timeouts: timeouts proven spurious (the transmission that
 *                  timed out was acknowledged after all)
 * @mi_rto_ns:      current base retransmit timeout (before backoff)
 * @mi_cc_algo:     enum mrc_cc_algo_id the connection runs (CC profile)
 * @mi_plane_ids:   bit p set: configured plane p carries the connection
 *                  (0: unrouted, the implicit plane 0)
 *
 * Since MRC_INFO_SIZE_V3:
 * @mi_lost_inferred: packets found lost before their timeout (packets sent
 *                  after them were delivered; retransmitted at once)
 * @mi_spurious_losses: of these, acknowledged after all (the reordering
 *                  window widens)
 * @mi_tlp_probes:  tail-loss probes sent (nothing acknowledged for two RTTs)
 *
 * Since MRC_INFO_SIZE_V4:
 * @mi_iw_share_cuts: times the first window was cut to its share of the
 *                  namespace's initial window (MRC_CC_ATTR_INIT_WND_SHARED)
 *
 * Since MRC_INFO_SIZE_V5:
 * @mi_tx_sacks:    SACKs sent (probe answers included)
 * @mi_tx_sacks_merged: SACKs not sent because the next one said all they
 *                  would (a chunk the cumulative ack passed whole, the
 *                  same EV echoed)
 * @mi_rx_sacks:    SACKs received
 *
 * Since MRC_INFO_SIZE_V6 (failover, net.mrc.failover):
 * @mi_rtx_path:    packets in flight on a path when it was retired as
 *                  dead, resent at once on live EVs
 * @mi_paths_retired: paths retired whole once several of their EVs fell
 *                  silent (a dead spine or link of a source route)
 * @mi_paths_gray:  paths demoted whole for their loss rate (a gray spine)
 * @mi_cwnd_cuts_spared: losses and timeout passes that left the window
 *                  alone because a path failure explained them
 *
 * Since MRC_INFO_SIZE_V7 (local drops):
 * @mi_local_drops: data packets this host's own queue refused that the
 *                  connection took back (reported at once, resent without
 *                  a timeout)
 * @mi_rtx_local:   retransmissions of those
 *
 * Since MRC_INFO_SIZE_V8 (memory: what the connection pins, one snapshot
 * taken under its lock; Documentation/networking/mrc-socket.rst):
 * @mi_rmem_alloc:  bytes charged for received messages, delivered but not
 *                  read and still being received (out-of-order ones and
 *                  the packets they hold included): what SO_RCVBUF bounds
 * @mi_rmem_unread: of these, the delivered messages waiting for recvmsg()
 * @mi_wmem_queued: bytes charged for sent messages not yet acknowledged,
 *                  queued or in flight: what SO_SNDBUF bounds
 * @mi_wmem_kept:   bytes of the pages kept for the next messages and of
 *                  the flowcell frag pages, charged to the socket too
 * @mi_mem_charged: bytes the socket has charged to the protocol's memory
 *                  accounting (net.mrc.mem, the memory cgroup):
 *                  @mi_rmem_alloc + @mi_wmem_queued + @mi_wmem_kept, less
 *                  a received message admitted uncharged when the global
 *                  limit or the memory cgroup refused it (the next in
 *                  order while nothing delivered waits: at most one)
 * @mi_fwd_alloc:   bytes of charged pages not used yet (sk_forward_alloc,
 *                  less than a page between two charges): with
 *                  @mi_mem_charged a whole number of pages, the socket's
 *                  share of MemPages in /proc/net/mrc
 * @mi_wmem_alloc:  truesize of the connection's packets in this host's
 *                  queues (sk_wmem_alloc): not charged; the transmit path
 *                  stops adding at net.mrc.limit_output_bytes
 * @mi_rcvbuf:      SO_RCVBUF now (sk_rcvbuf, as grown by the kernel)
 * @mi_sndbuf:      SO_SNDBUF now (sk_sndbuf, as grown by the kernel)
 */
struct mrc_info {
	__u32	mi_size;
	__u32	mi_state;
	__u32	mi_qpn;
	__u32	mi_peer_qpn;
	__u32	mi_mtu;
	__u32	mi_cwnd;
	__u64	mi_srtt_ns;
	__u64	mi_min_rtt_ns;
	__u64	mi_rttvar_ns;
	__u64	mi_retransmits;
	__u64	mi_timeouts;
	__u64	mi_tx_msgs;
	__u64	mi_rx_msgs;
	__u64	mi_tx_pkts;
	__u64	mi_tx_bytes;
	__u64	mi_rx_pkts;
	__u64	mi_rx_bytes;
	__u64	mi_rx_dup;
	__u64	mi_rx_oow;
	__u32	mi_ev_good;
	__u32	mi_ev_skip;
	__u32	mi_ev_bad;
	__u32	mi_ev_denied;
	__u32	mi_n_planes;
	__u32	mi_retry_left;
	__u32	mi_snd_una;
	__u32	mi_snd_nxt;
	__u32	mi_rcv_cack;
	__u32	mi_reserved;
	struct mrc_info_plane mi_planes[MRC_INFO_PLANES];
	__u64	mi_spurious_timeouts;
	__u64	mi_rto_ns;
	__u32	mi_cc_algo;
	__u32	mi_plane_ids;
	__u64	mi_lost_inferred;
	__u64	mi_spurious_losses;
	__u64	mi_tlp_probes;
	__u64	mi_iw_share_cuts;
	__u64	mi_tx_sacks;
	__u64	mi_tx_sacks_merged;
	__u64	mi_rx_sacks;
	__u64	mi_rtx_path;
	__u64	mi_paths_retired;
	__u64	mi_paths_gray;
	__u64	mi_cwnd_cuts_spared;
	__u64	mi_local_drops;
	__u64	mi_rtx_local;
	__u64	mi_rmem_alloc;
	__u64	mi_rmem_unread;
	__u64	mi_wmem_queued;
	__u64	mi_wmem_kept;
	__u64	mi_mem_charged;
	__u32	mi_fwd_alloc;
	__u32	mi_wmem_alloc;
	__u32	mi_rcvbuf;
	__u32	mi_sndbuf;
};

#define MRC_INFO_SIZE_V1	(168 + MRC_INFO_PLANES * 32)
#define MRC_INFO_SIZE_V2	(MRC_INFO_SIZE_V1 + 24)
#define MRC_INFO_SIZE_V3	(MRC_INFO_SIZE_V2 + 24)
#define MRC_INFO_SIZE_V4	(MRC_INFO_SIZE_V3 + 8)
#define MRC_INFO_SIZE_V5	(MRC_INFO_SIZE_V4 + 24)
#define MRC_INFO_SIZE_V6	(MRC_INFO_SIZE_V5 + 32)
#define MRC_INFO_SIZE_V7	(MRC_INFO_SIZE_V6 + 16)
#define MRC_INFO_SIZE_V8	(MRC_INFO_SIZE_V7 + 56)

#ifdef __cplusplus
static_assert(sizeof(struct mrc_profile_opt) == 8, "mrc_profile_opt ABI");
static_assert(sizeof(struct mrc_info) == MRC_INFO_SIZE_V8, "mrc_info ABI");
#else
_Static_assert(sizeof(struct mrc_profile_opt) == 8, "mrc_profile_opt ABI");
_Static_assert(sizeof(struct mrc_info) == MRC_INFO_SIZE_V8, "mrc_info ABI");
#endif

#endif /* _UAPI_LINUX_MRC_H */
