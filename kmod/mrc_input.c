// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_input.c - the receive side of the wire: the per-namespace UDP socket
 * that receives every MRC packet (net.mrc.udp_port, 4791), the decoder
 * front end and its drop counters, and the ICMPv6 errors that quote our
 * packets.
 *
 * The socket is set up as a UDP encapsulation socket (the rxe/vxlan
 * pattern, by hand so that mrc.ko does not depend on the udp_tunnel
 * modules) for ICMPv6 errors, but without encap_rcv: UDP queues each
 * datagram, a flowcell's GSO skb whole, and mrc_udp_data_ready() takes
 * them off the queue in the softirq that queued them, under
 * rcu_read_lock(), checks the UDP checksum and walks a flowcell's packets
 * in place (mrc_rx_flowcell()). A routing header in
 * front of UDP (an inline SRH, which the IPv6 stack does not validate once
 * no segments are left) is validated here. The packet is linearised, its
 * headers decoded and validated by the engine's codec, dropped if no
 * connection holds BTH.dest_qp, its ICRC verified only then (junk costs no
 * CRC), then handed to that connection, or to the handshake code for the
 * endpoint QP (MRC_QPN_EP). Every outcome that drops a packet increments
 * exactly one counter of /proc/net/mrc. A flowcell for a socket read on
 * another CPU is processed on that CPU (mrc_steer.c), and a datagram for a
 * socket a task owns by that task in release_sock() (mrc_rx_elsewhere()).
 *
 * Transmit is mrc_output.c, the path snapshot mrc_path.c; see
 * Documentation/networking/mrc-datapath.rst.
 */
#include <linux/ipv6.h>
#include <linux/memcontrol.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <linux/icmpv6.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include <linux/seg6.h>
#include <linux/sizes.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_conn_rx.h"
#include "mrc_handshake.h"
#include "mrc_icrc.h"
#include "mrc_input.h"
#include "mrc_lookup.h"
#include "mrc_net.h"
#include "mrc_pmtu.h"
#include "mrc_sock.h"
#include "mrc_steer.h"

/* Longest control packet mrc_rx_one() copies out (the longest is 76). */
#define MRC_RX_CTL_MAX		128

static enum mrc_net_counter mrc_wire_err_counter(int err)
{
	switch (err) {
	case MRC_WIRE_ETRUNC:
		return MRC_CNT_RX_TRUNC;
	case MRC_WIRE_EICRC:
		return MRC_CNT_RX_BAD_ICRC;
	case MRC_WIRE_EOPCODE:
		return MRC_CNT_RX_BAD_OPCODE;
	default:
		return MRC_CNT_RX_BAD_HDR;
	}
}

/* RFC 8754 2.1.1: the padding TLVs of a segment routing header. */
#define MRC_SRH_TLV_PAD1	0
#define MRC_SRH_TLV_PADN	4
#define MRC_SRH_PADN_MAX	5	/* PadN: 0..5 bytes of padding */

/**
 * mrc_srh_tlvs_ok() - check the TLV area of a segment routing header
 * @skb: the received packet
 * @off: offset of the first TLV from skb->data (may be negative)
 * @end: offset of the end of the SRH from skb->data
 *
 * Every TLV must lie inside the header: Pad1 is one byte; any other TLV
 * has a type and a length byte and that many bytes of data, PadN at most
 * MRC_SRH_PADN_MAX. The contents of PadN and of the other TLVs (ingress,
 * egress, opaque, HMAC - checked by the IPv6 stack when the SRH says so -
 * or types we do not know) are not looked at.
 *
 * Return: true when the TLVs exactly fill [@off, @end).
 */
static bool mrc_srh_tlvs_ok(const struct sk_buff *skb, int off, int end)
{
	u8 buf[2];
	const u8 *tlv;

	while (off < end) {
		tlv = skb_header_pointer_careful(skb, off, 1, buf);
		if (!tlv)
			return false;
		if (tlv[0] == MRC_SRH_TLV_PAD1) {
			off++;
			continue;
		}
		if (end - off < 2)
			return false;
		tlv = skb_header_pointer_careful(skb, off, 2, buf);
		if (!tlv || tlv[1] > end - off - 2 ||
		    (tlv[0] == MRC_SRH_TLV_PADN && tlv[1] > MRC_SRH_PADN_MAX))
			return false;
		off += 2 + tlv[1];
	}
	return true;
}

/**
 * mrc_srh_ok() - validate a routing header found in front of UDP
 * @skb: the received packet (its IPv6 header linear, as always on input)
 * @off: offset of the routing header from skb->data (may be negative)
 * @end: offset of the UDP header from skb->data
 *
 * The IPv6 stack hands a packet whose SRH has no segments left to the
 * upper layer without validating it (only SRHs that still route, or that
 * carry an IPv6/IPv4 packet to decapsulate, are its business). MRC's own
 * encapsulations are IPv6-in-IPv6, decapsulated before UDP, so an SRH seen
 * here was sent inline by its source and we are its final destination. It
 * must be a segment routing header (type 4) wholly before the UDP header,
 * long enough for its segment list (first_segment + 1 entries), with no
 * segments left, whose last segment (segments[0]) is the destination
 * address the packet arrived with, followed by well-formed TLVs only.
 * Flags and tag are not checked.
 *
 * Return: true if the header is acceptable.
 */
static bool mrc_srh_ok(const struct sk_buff *skb, int off, int end)
{
	struct ipv6_sr_hdr _srh;
	const struct ipv6_sr_hdr *srh;
	struct in6_addr _seg;
	const struct in6_addr *seg;
	int len, segs_end;

	if (end - off < (int)sizeof(*srh))
		return false;
	srh = skb_header_pointer_careful(skb, off, sizeof(*srh), &_srh);
	if (!srh || srh->type != IPV6_SRCRT_TYPE_4 || srh->segments_left)
		return false;
	len = (srh->hdrlen + 1) << 3;
	segs_end = sizeof(*srh) + (srh->first_segment + 1) * sizeof(*seg);
	if (len > end - off || len < segs_end)
		return false;
	seg = skb_header_pointer_careful(skb, off + sizeof(*srh), sizeof(*seg),
					 &_seg);
	if (!seg || !ipv6_addr_equal(seg, &ipv6_hdr(skb)->daddr))
		return false;
	return mrc_srh_tlvs_ok(skb, off + segs_end, off + len);
}

/**
 * mrc_rx_exthdrs_ok() - check the IPv6 extension headers in front of UDP
 * @skb: the received packet, its transport header the UDP header
 * @cnt: set to the drop counter when the packet is refused
 *
 * Walks the header chain from the IPv6 header to the UDP header. The IPv6
 * stack pulled these headers into the linear area before it pulled them
 * off, so they sit at negative offsets from skb->data; they are read with
 * skb_header_pointer_careful() all the same, never past the UDP header.
 * Hop-by-hop and destination options, an (atomic) fragment header and AH
 * are skipped; every routing header must pass mrc_srh_ok().
 *
 * Return: true to go on. False with @cnt = MRC_CNT_RX_BAD_SRH for a
 * routing header that fails, MRC_CNT_RX_BAD_HDR for a chain that does not
 * end exactly at the UDP header (the IPv6 stack does not deliver one).
 */
static bool mrc_rx_exthdrs_ok(const struct sk_buff *skb,
			      enum mrc_net_counter *cnt)
{
	int off = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	int end = skb_transport_offset(skb);
	u8 nh = ipv6_hdr(skb)->nexthdr;
	const struct ipv6_opt_hdr *oh;
	struct ipv6_opt_hdr _oh;
	int len;

	*cnt = MRC_CNT_RX_BAD_HDR;
	while (off < end) {
		if (end - off < (int)sizeof(*oh))
			return false;
		oh = skb_header_pointer_careful(skb, off, sizeof(*oh), &_oh);
		if (!oh)
			return false;
		switch (nh) {
		case NEXTHDR_HOP:
		case NEXTHDR_DEST:
			len = ipv6_optlen(oh);
			break;
		case NEXTHDR_ROUTING:
			if (!mrc_srh_ok(skb, off, end)) {
				*cnt = MRC_CNT_RX_BAD_SRH;
				return false;
			}
			len = ipv6_optlen(oh);
			break;
		case NEXTHDR_FRAGMENT:
			len = sizeof(struct frag_hdr);
			break;
		case NEXTHDR_AUTH:
			len = ipv6_authlen(oh);
			break;
		default:
			return false;
		}
		nh = oh->nexthdr;
		off += len;
	}
	return off == end && nh == IPPROTO_UDP;
}

/*
 * The RoCEv2 ICRC over the IPv6 header in front of UDP, UDP (both in @ih,
 * shared by a datagram's packets) and the @len MRC bytes at offset @off of
 * @skb, linear or not; @bth is a copy of the packet's BTH.
 */
static bool mrc_rx_icrc_ok(struct mrc_icrc_hdrs *ih, const struct sk_buff *skb,
			   int off, u32 len, const u8 *bth)
{
	__le32 crc;

	if (len < MRC_BTH_LEN + MRC_ICRC_LEN ||
	    skb_copy_bits(skb, off + len - MRC_ICRC_LEN, &crc, sizeof(crc)))
		return false;
	return mrc_skb_icrc_ok(skb, off, len, ih, bth, le32_to_cpu(crc));
}

/* The pad bytes after a payload at @poff of @skb are zero. */
static bool mrc_rx_pad_ok(const struct sk_buff *skb, int poff,
			  const struct mrc_pkt *pkt)
{
	u8 pad[3];
	u32 n = pkt->bth.pad_cnt;

	if (!n)
		return true;
	if (skb_copy_bits(skb, poff + pkt->payload_len, pad, n))
		return false;
	return !memchr_inv(pad, 0, n);
}

/*
 * The MRC packet of a datagram: the @len bytes at offset @off of @skb.
 * Only its headers are copied out (skb_header_pointer(): nothing when they
 * are linear); a data payload stays where it arrived, in the frags of a
 * flowcell's segment, and normally stays there until recvmsg() copies it
 * to the user (mrc_conn_rcv(), in batch @b; mrc_msg.c). Called in softirq
 * under RCU.
 */
static void mrc_rx_one(struct net *net, struct sk_buff *skb, int off,
		       u32 len, const struct ipv6hdr *ip6,
		       struct mrc_icrc_hdrs *ih, struct mrc_rx_batch *b)
{
	struct mrc_net *mn = mrc_net(net);
	u32 ev, hl, dflags, flags = 0;
	u8 buf[MRC_RX_CTL_MAX], op;
	struct mrc_sock *ms = NULL;
	const u8 *data;
	struct mrc_pkt pkt;
	int err, poff;

	mrc_net_count(mn, MRC_CNT_RX_PKTS);
	if (!len || skb_copy_bits(skb, off, &op, 1)) {
		mrc_net_count(mn, MRC_CNT_RX_TRUNC);
		return;
	}
	/* Longer than any control packet: what decoding would say. */
	if (!mrc_op_is_data(op) && len > MRC_RX_CTL_MAX) {
		mrc_net_count(mn, mrc_wire_err_counter(MRC_WIRE_ELEN));
		return;
	}
	hl = mrc_op_is_data(op) ? min_t(u32, len, MRC_DATA_HDR_MAX) : len;
	data = skb_header_pointer(skb, off, hl, buf);
	if (!data) {
		mrc_net_count(mn, MRC_CNT_RX_TRUNC);
		return;
	}
	dflags = MRC_DECODE_NO_ICRC | (hl < len ? MRC_DECODE_HDR_ONLY : 0);
	/*
	 * Headers first, the ICRC (a pass over every byte) only for a packet
	 * that a connection or the handshake will look at: junk sent to port
	 * 4791 costs a header parse and a hash lookup, not a CRC.
	 */
	err = mrc_pkt_decode_flags(data, len, dflags, &pkt);
	if (err == MRC_WIRE_ETRUNC && len >= MRC_BTH_LEN &&
	    mrc_op_is_data(data[0])) {
		/* A switch cut the payload and kept the headers: a trim. */
		err = mrc_pkt_decode_flags(data, len, MRC_DECODE_TRIMMED, &pkt);
		if (!err && len == mrc_pkt_hdr_len(&pkt))
			flags |= MRC_RXF_TRIMMED;
		else
			err = MRC_WIRE_ETRUNC;
	}
	poff = off + mrc_pkt_hdr_len(&pkt);
	if (!err && (dflags & MRC_DECODE_HDR_ONLY) &&
	    mrc_op_is_data(pkt.bth.opcode) && !(flags & MRC_RXF_TRIMMED) &&
	    !mrc_rx_pad_ok(skb, poff, &pkt))
		err = MRC_WIRE_EPAD;
	if (err) {
		mrc_net_count(mn, mrc_wire_err_counter(err));
		return;
	}
	/* The packet's one lookup: the socket found is the one it goes to. */
	if (pkt.bth.dest_qp != MRC_QPN_EP) {
		ms = mrc_lookup_rx(mn, pkt.bth.dest_qp, b);
		if (!ms) {
			mrc_net_count(mn, MRC_CNT_RX_UNKNOWN_QPN);
			return;
		}
	}
	if (!(flags & MRC_RXF_TRIMMED) &&
	    !mrc_rx_icrc_ok(ih, skb, off, len, data)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_ICRC);
		return;
	}
	ev = mrc_ev_from_wire(ih->ip.sport, ntohl(ip6_flowlabel(ip6)));
	if (INET_ECN_is_ce(ipv6_get_dsfield(ip6)))
		flags |= MRC_RXF_ECN_CE;
	if (pkt.bth.dest_qp == MRC_QPN_EP) {
		/* The handshake takes other locks: no connection's held. */
		mrc_rx_batch_end(net, b);
		mrc_conn_rcv_ep(net, skb, &pkt);
	} else {
		mrc_conn_rcv(net, ms, skb, &pkt, poff, ev, flags, b);
	}
}

/*
 * A flowcell that arrived whole: a UDP GSO skb (SKB_GSO_UDP_L4) whose
 * payload is MRC packets of gso_size bytes each, the last one shorter or
 * not, as the sender laid it out (mrc_build_burst()) and veth forwarded it.
 * Each packet is checked as if it had come alone (its own ICRC, over a
 * pseudo-header with its own length), no skb is cut for it, and all of
 * them go to their connection in batch @b: one lookup, one lock, one
 * engine drain (SACK decision) for the flowcell.
 */
static void mrc_rx_flowcell(struct net *net, struct sk_buff *skb, int off,
			    u32 len, const struct ipv6hdr *ip6,
			    struct mrc_icrc_hdrs *ih, struct mrc_rx_batch *b)
{
	struct mrc_net *mn = mrc_net(net);
	u32 seg = skb_shinfo(skb)->gso_size, n;

	if (!seg || len <= seg) {
		/* Not a flowcell of ours: one datagram at most. */
		mrc_rx_one(net, skb, off, len, ip6, ih, b);
		return;
	}
	mrc_net_count(mn, MRC_CNT_RX_FLOWCELLS);
	while (len) {
		n = min(len, seg);
		mrc_rx_one(net, skb, off, n, ip6, ih, b);
		/* mrc_rx_elsewhere() looked at the first packet only. */
		b->hint = NULL;
		off += n;
		len -= n;
	}
}

/*
 * The MRC packets of a datagram that mrc_udp_rcv() checked (addresses,
 * extension headers, UDP length), a flowcell's or one; @skb consumed. In
 * the receive softirq, or with BHs off in mrc_rx_deferred(); under RCU.
 * @hint: the connection mrc_rx_elsewhere() found for the first packet in
 * this same RCU read section (no reference), or NULL.
 */
static void mrc_udp_rcv_pkts(struct net *net, struct sk_buff *skb,
			     struct mrc_sock *hint)
{
	const struct ipv6hdr *ip6 = ipv6_hdr(skb);
	const struct udphdr *uh = udp_hdr(skb);
	int off = (const u8 *)(uh + 1) - skb->data;
	u32 len = ntohs(uh->len) - sizeof(*uh);
	struct mrc_icrc_hdrs ih;
	struct mrc_rx_batch b;

	mrc_icrc_hdrs_set(&ih, &ip6->saddr, &ip6->daddr, ntohs(uh->source),
			  ntohs(uh->dest));
	/* Extension headers (mrc_rx_exthdrs_ok()): RoCEv2 covers them. */
	if (skb_transport_offset(skb) != skb_network_offset(skb) + sizeof(*ip6))
		mrc_icrc_hdrs_set_ext(&ih, ip6->nexthdr,
				      skb_transport_offset(skb) -
				      skb_network_offset(skb) - sizeof(*ip6));
	mrc_rx_batch_init(&b);
	b.hint = hint;
	if (skb_is_gso(skb))
		mrc_rx_flowcell(net, skb, off, len, ip6, &ih, &b);
	else
		mrc_rx_one(net, skb, off, len, ip6, &ih, &b);
	mrc_rx_batch_end(net, &b);
	consume_skb(skb);
}

/*
 * Receive work follows the reader. A flowcell for a socket last read on
 * another CPU is processed there (mrc_steer_rx()). A datagram for a
 * connection whose socket a task owns (lock_sock(): recvmsg() copying a
 * message out, sendmsg() queueing one) waits in the socket's backlog, as
 * TCP's does, and that task processes it in release_sock()
 * (mrc_rx_deferred()). Only the first packet's BTH is looked at (a
 * flowcell is one connection's; a stray packet is checked where it is
 * processed). Never a drop: with the queue or the backlog full, or no
 * owner, the datagram is processed here, at once, and the connection
 * found here is *@found, so that its first packet is not looked up again
 * (no reference: valid in the caller's RCU read section).
 *
 * Return: true if @skb went to another CPU or a socket's backlog.
 */
static bool mrc_rx_elsewhere(struct net *net, struct sk_buff *skb, int off,
			     u32 len, struct mrc_sock **found)
{
	bool queued = false;
	struct mrc_sock *ms;
	u8 buf[MRC_BTH_LEN];
	struct sock *sk;
	const u8 *bth;
	u32 qpn;

	*found = NULL;
	bth = len >= MRC_BTH_LEN ?
	      skb_header_pointer(skb, off, MRC_BTH_LEN, buf) : NULL;
	if (!bth)
		return false;
	/* BTH.DestQP: bytes 5-7, big-endian (WIRE-MRC1.md). */
	qpn = (u32)bth[5] << 16 | (u32)bth[6] << 8 | bth[7];
	if (qpn == MRC_QPN_EP)
		return false;
	ms = mrc_lookup_qpn(mrc_net(net), qpn);
	if (!ms || !refcount_inc_not_zero(&ms->sk.sk_refcnt))
		return false;
	if (mrc_steer_rx(net, ms, skb, len))
		return true;
	sk = &ms->sk;
	bh_lock_sock(sk);
	/* TCP's limit (tcp_add_backlog()): the owner drains it soon. */
	if (sock_owned_by_user(sk))
		queued = !sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
					 READ_ONCE(sk->sk_sndbuf) + SZ_64K);
	bh_unlock_sock(sk);
	sock_put(sk);
	if (queued)
		mrc_net_count(mrc_net(net), MRC_CNT_RX_BACKLOG);
	else
		*found = ms;
	return queued;
}

/**
 * mrc_rx_deferred() - a datagram processed away from the softirq that
 * received it (mrc_rx_elsewhere()), BHs off as in that softirq: by the task
 * releasing its socket (the socket's sk_backlog_rcv) or by the reader's
 * CPU (mrc_steer.c's work)
 * @sk: its connection's socket (owned by the caller, or referenced)
 * @skb: the datagram; consumed
 *
 * Return: 0.
 */
int mrc_rx_deferred(struct sock *sk, struct sk_buff *skb)
{
	local_bh_disable();
	rcu_read_lock();
	/*
	 * Looked up again, not taken from mrc_rx_elsewhere(): that lookup
	 * was in the receive softirq's RCU read section, the datagram has
	 * waited since (in a backlog, in another CPU's queue) and its
	 * connection may have been torn down meanwhile (RxUnknownQpn).
	 */
	mrc_udp_rcv_pkts(sock_net(sk), skb, NULL);
	rcu_read_unlock();
	local_bh_enable();
	return 0;
}

/*
 * One datagram of the namespace's UDP socket, from its queue
 * (mrc_udp_data_ready()): the UDP header and the IPv6 headers in front of
 * it are at negative offsets. The skb is consumed or freed here.
 */
static void mrc_udp_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	struct mrc_net *mn = mrc_net(net);
	enum mrc_net_counter cnt;
	struct mrc_sock *found;
	struct ipv6hdr *ip6;
	struct udphdr *uh;
	int off;
	u32 len;

	if (skb->protocol != htons(ETH_P_IPV6)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HDR);
		goto drop;
	}
	/*
	 * Only unicast to this host from a unicast source: nothing may
	 * answer (a reject, a response) a multicast group, the unspecified
	 * address or a packet meant for another host.
	 */
	ip6 = ipv6_hdr(skb);
	if (skb->pkt_type != PACKET_HOST ||
	    ipv6_addr_is_multicast(&ip6->daddr) ||
	    ipv6_addr_any(&ip6->saddr) ||
	    ipv6_addr_is_multicast(&ip6->saddr)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_ADDR);
		goto drop;
	}
	/* Extension headers: an inline SRH must be valid (see mrc_srh_ok()). */
	if (unlikely(skb_network_header_len(skb) != sizeof(*ip6)) &&
	    !mrc_rx_exthdrs_ok(skb, &cnt)) {
		mrc_net_count(mn, cnt);
		goto drop;
	}
	uh = udp_hdr(skb);
	len = ntohs(uh->len);
	off = (u8 *)(uh + 1) - skb->data;
	if (len < sizeof(*uh) || off < 0 ||
	    off + len - sizeof(*uh) > skb->len) {
		mrc_net_count(mn, MRC_CNT_RX_TRUNC);
		goto drop;
	}
	len -= sizeof(*uh);
	/*
	 * Messages may hold the skb until they are read, and the backlog
	 * until its owner releases the socket: it must not pin a route (and
	 * through it a device of a namespace going away).
	 */
	skb_dst_drop(skb);
	if (!mrc_rx_elsewhere(net, skb, off, len, &found))
		mrc_udp_rcv_pkts(net, skb, found);
	return;
drop:
	mrc_net_count(mn, MRC_CNT_RX_PKTS);
	kfree_skb(skb);
}

/*
 * The namespace's UDP socket is created by whichever task first needs it
 * (a bind() or connect() of AF_MRC), and sk_alloc() ties a socket to the
 * memory cgroup of the task creating it. Datagrams wait in its queue for
 * an instant on their way to any MRC socket of the namespace (each charged
 * to its own socket's cgroup there, mrc_mem.c): none of that is the first
 * task's, so the socket belongs to no cgroup (mem_cgroup_sk_free(), not
 * exported, does just this). UDP's global limits (udp_mem) still apply.
 */
static void mrc_udp_sock_uncharge(struct sock *sk)
{
#ifdef CONFIG_MEMCG
	if (sk->sk_memcg) {
		css_put(&sk->sk_memcg->css);
		sk->sk_memcg = NULL;
	}
#endif
}

/*
 * sk_data_ready of the namespace's UDP socket: UDP queued a datagram (or a
 * whole flowcell); take every one queued, in the softirq that queued it.
 * UDP left the checksum to the reader (udpv6_recvmsg() checks it): checked
 * here, a bad one counted as UDP counts it.
 */
static void mrc_udp_data_ready(struct sock *usk)
{
	struct net *net = sock_net(usk);
	struct sk_buff *skb;
	int off = 0, err;

	while ((skb = __skb_recv_udp(usk, MSG_DONTWAIT, &off, &err))) {
		if (!udp_skb_csum_unnecessary(skb) &&
		    __udp_lib_checksum_complete(skb)) {
			__UDP6_INC_STATS(net, UDP_MIB_CSUMERRORS, 0);
			__UDP6_INC_STATS(net, UDP_MIB_INERRORS, 0);
			kfree_skb(skb);
			continue;
		}
		/* The namespace is going away (mrc_udp_net_exit()). */
		if (!rcu_access_pointer(usk->sk_user_data)) {
			kfree_skb(skb);
			continue;
		}
		mrc_udp_rcv(usk, skb);
	}
}

/*
 * encap_err_lookup: an ICMPv6 error quoting a packet sent to our port from
 * this host (any source port: EVs and handshakes use many) is ours.
 */
static int mrc_udp_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return 0;
}

/* Quoted MRC bytes looked at: a whole handshake request fits. */
#define MRC_ICMP_QUOTE_MAX	256

/*
 * encap_err_rcv: an ICMPv6 error about one of our packets. skb->data is the
 * quoted IPv6 header, @udp_offset its UDP header; the ICMPv6 header is the
 * transport header. Softirq, RCU.
 */
static void mrc_udp_err_quote(struct sock *sk, struct sk_buff *skb,
			      unsigned int udp_offset)
{
	const struct ipv6hdr *ip6 = (const struct ipv6hdr *)skb->data;
	const struct icmp6hdr *icmp = icmp6_hdr(skb);
	u8 buf[MRC_ICMP_QUOTE_MAX];
	unsigned int off = udp_offset + sizeof(struct udphdr);
	struct mrc_pkt pkt;
	u32 len;
	int err;

	if (icmp->icmp6_type == ICMPV6_PKT_TOOBIG) {
		/* UDP has lowered the route's PMTU; the connection follows. */
		mrc_pmtu_report(sock_net(sk), skb, off, &ip6->daddr,
				ntohl(icmp->icmp6_mtu), 0);
		return;
	}
	/*
	 * Soft errors too: a connect request fails on any error, as TCP's
	 * SYN-SENT does (address unreachable: an on-link peer that never
	 * answered neighbour discovery); nothing else is acted on.
	 */
	icmpv6_err_convert(icmp->icmp6_type, icmp->icmp6_code, &err);
	if (skb->len <= off)
		return;
	len = min_t(u32, skb->len - off, sizeof(buf));
	if (skb_copy_bits(skb, off, buf, len))
		return;
	if (mrc_pkt_decode_flags(buf, len, MRC_DECODE_NO_ICRC, &pkt))
		return;
	mrc_conn_icmp_err(sock_net(sk), &ip6->daddr, &pkt, err);
}

MRC_DEFINE_ENCAP_ERR_RCV(mrc_udp_err_rcv, mrc_udp_err_quote)

/**
 * mrc_udp_get() - make sure the namespace's UDP socket exists
 * @net: the namespace
 *
 * Created on first use (connect(), listen()), or when the namespace is if
 * the module parameter udp_eager is set (and then again on first use if
 * the port was busy), bound to the namespace's net.mrc.udp_port. Process
 * context.
 *
 * Return: 0, or the errno of creating or binding it (EADDRINUSE when
 * another socket, e.g. rdma_rxe's, holds the port).
 */
int mrc_udp_get(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
	};
	struct socket *sock;
	struct sock *sk;
	int err = 0;

	if (READ_ONCE(mn->udp_sock))
		return 0;
	mutex_lock(&mn->udp_mutex);
	if (mn->udp_sock)
		goto out;
	sin6.sin6_port = htons(mn->udp_port);
	err = sock_create_kern(net, AF_INET6, SOCK_DGRAM, IPPROTO_UDP, &sock);
	if (err)
		goto out;
	sk = sock->sk;
	mrc_udp_sock_uncharge(sk);
	ip6_sock_set_v6only(sk);
	/*
	 * What setup_udp_tunnel_sock() does, without the module dependency,
	 * but for encap_rcv: an encapsulation socket gets every UDP GSO skb
	 * cut into datagrams first (udp_unexpected_gso()), so a flowcell
	 * would cost an skb per packet. With encap_type set and no encap_rcv,
	 * datagrams go to the socket's queue, GSO skbs whole (ACCEPT_L4), and
	 * mrc_udp_data_ready() takes them from there at once, in the same
	 * softirq; ICMPv6 errors still reach encap_err_lookup/encap_err_rcv.
	 * All of it before bind(): no datagram can wait unread.
	 */
	mrc_inet_clear_mc_loop(sk);
	inet_inc_convert_csum(sk);
	rcu_assign_sk_user_data(sk, mn);
	udp_sk(sk)->encap_type = 1;
	udp_sk(sk)->encap_err_lookup = mrc_udp_err_lookup;
	udp_sk(sk)->encap_err_rcv = mrc_udp_err_rcv;
	mrc_udp_accept_gso_l4(sk);
	/* Drained as it fills: room for a burst from every CPU at once. */
	WRITE_ONCE(sk->sk_rcvbuf, MRC_UDP_RCVBUF);
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_data_ready = mrc_udp_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	udp_tunnel_encap_enable(sk);
	err = kernel_bind(sock, (struct sockaddr *)&sin6, sizeof(sin6));
	if (err) {
		pr_info_ratelimited("cannot bind UDP port %d: %d (set net.mrc.udp_port to another one)\n",
				    mn->udp_port, err);
		sock_release(sock);
		goto out;
	}
	WRITE_ONCE(mn->udp_dport, sin6.sin6_port);
	WRITE_ONCE(mn->udp_sock, sock);
out:
	mutex_unlock(&mn->udp_mutex);
	return err;
}

/**
 * mrc_udp_net_exit() - release the namespace's UDP socket
 * @mn: the namespace state (its namespace is being dismantled)
 */
void mrc_udp_net_exit(struct mrc_net *mn)
{
	struct socket *sock = mn->udp_sock;

	if (!sock)
		return;
	mn->udp_sock = NULL;
	rcu_assign_sk_user_data(sock->sk, NULL);
	synchronize_rcu();
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}
