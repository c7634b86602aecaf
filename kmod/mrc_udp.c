// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_udp.c - the wire side of mrc.ko: the per-namespace UDP socket that
 * receives every MRC packet (net.mrc.udp_port, 4791), the decoder front end and
 * its drop counters, and the transmit path (skb layout, routes, output).
 *
 * Receive: the socket is a UDP encapsulation socket (the rxe/vxlan
 * pattern, set up by hand so that mrc.ko does not depend on the
 * udp_tunnel modules). udp_queue_rcv_skb() has verified the UDP checksum
 * when mrc_udp_rcv() runs, in softirq context under rcu_read_lock(). A
 * routing header in front of UDP (an inline SRH, which the IPv6 stack does
 * not validate once no segments are left) is validated here. The
 * packet is linearised, its headers decoded and validated by the engine's
 * codec, dropped if no connection holds BTH.dest_qp, its ICRC verified
 * only then (junk costs no CRC), then handed to that connection, or
 * to the handshake code for the endpoint QP (MRC_QPN_EP). Every outcome
 * that drops a packet increments exactly one counter of /proc/net/mrc.
 *
 * Transmit: packets are built under the connection lock into a linear skb
 * (MRC headers, payload copied from the message's pages, pad, ICRC) with
 * headroom for UDP, IPv6 and an encapsulation; mrc_xmit_queue() sends them
 * after the lock is dropped: UDP header (source port = EV low 16 bits,
 * checksum offloaded or completed by the stack), IPv6 header (flow label =
 * EV high 16 bits), ip6_local_out() with the connection's cached route.
 *
 * Multi-plane: a connection whose peer is covered by a configured route
 * (mrc_cfg.h) sends on the route's planes and paths, from a snapshot taken
 * at connection set-up (struct mrc_mp): plane = EV bits 31-24 (engine plane
 * index -> configured plane), path = EV bits 23-0 % paths of that plane, one
 * dst_cache per path. Encapsulations: none (plain IPv6 out of the plane's
 * device), srh (outer IPv6 + SRH type 4 + inner IPv6) and usid (outer IPv6
 * to the uSID container + inner IPv6); the inner header carries the
 * connection's addresses, so the peer's kernel decapsulates (End.DT6) and
 * the receive path sees a plain IPv6/UDP packet from the peer's address.
 * See Documentation/networking/mrc-datapath.rst.
 */
#include <linux/gcd.h>
#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <linux/crc32.h>
#include <linux/icmpv6.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/l3mdev.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <net/xfrm.h>

#include <linux/seg6.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"

/* Headroom of every MRC skb: link layer, outer IPv6 + SRH, IPv6, UDP. */
#define MRC_SRH_MAX		(8 + 16 * MRC_SEGS_MAX)
#define MRC_HEADROOM		(LL_MAX_HEADER + 2 * sizeof(struct ipv6hdr) + \
				 MRC_SRH_MAX + sizeof(struct udphdr))

/* What the transmit path needs from the build step. */
struct mrc_skb_cb {
	u32 ev;
	u32 psn;	/* data packets: reported if the local stack refuses it */
	u8 plane;
	bool hs;	/* endpoint (handshake) packet: the handshake plane */
	bool data;
	u8 tclass;	/* IPv6 traffic class, inner and outer */
	u8 segs;	/* MRC packets in the skb: > 1 for a flowcell */
	u16 seg_len;	/* flowcell: bytes of each MRC packet but the last */
};

/*
 * A flowcell is one UDP datagram of at most this many MRC bytes: with the
 * inner and outer IPv6 headers, an SRH of MRC_SEGS_MAX segments and UDP,
 * it stays below the 64 KiB of an IPv6 payload length.
 */
#define MRC_BURST_BYTES		(60 * 1024)

/* Longest control packet mrc_rx_one() copies out (the longest is 76). */
#define MRC_RX_CTL_MAX		128

/* Local drops reported to the engine at a time (an on-stack batch). */
#define MRC_LOCAL_DROPS_MAX	32
/* Rounds of retransmissions of local drops per mrc_xmit_queue() call. */
#define MRC_LOCAL_DROP_ROUNDS	4

static struct mrc_skb_cb *mrc_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mrc_skb_cb) > sizeof(skb->cb));
	return (struct mrc_skb_cb *)skb->cb;
}

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
 * @skb: the received packet, skb->data at the UDP header (encap_rcv)
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
 * The ICRC's CRC-32 over page frags: __skb_checksum() with CRC arithmetic
 * (as SCTP's CRC32c), a frag's CRC from zero combined with the running one.
 */
static __wsum mrc_crc_update(const void *p, int len, __wsum state)
{
	return (__force __wsum)crc32_le((__force u32)state, p, len);
}

static __wsum mrc_crc_combine(__wsum a, __wsum b, int offset, int len)
{
	return (__force __wsum)crc32_le_combine((__force u32)a, (__force u32)b,
						len);
}

static const struct skb_checksum_ops mrc_crc_ops = {
	.update = mrc_crc_update,
	.combine = mrc_crc_combine,
};

/* The IPv6/UDP fields an ICRC covers. */
static void mrc_icrc_ip_set(struct mrc_icrc_ip6 *ip, const struct in6_addr *saddr,
			    const struct in6_addr *daddr, u16 sport, u16 dport)
{
	memcpy(ip->saddr, saddr, sizeof(ip->saddr));
	memcpy(ip->daddr, daddr, sizeof(ip->daddr));
	ip->sport = sport;
	ip->dport = dport;
}

/*
 * The ICRC of the MRC packet of @len bytes (ICRC included) at offset @off
 * of @skb, linear or not; @bth is a copy of its BTH. Transmit and receive
 * alike: the pseudo-header has this packet's own UDP length, also for a
 * segment of a flowcell.
 */
static u32 mrc_skb_icrc(const struct sk_buff *skb, int off, u32 len,
			const struct mrc_icrc_ip6 *ip, const u8 *bth)
{
	u32 state = mrc_icrc_bth(mrc_icrc_seed(ip, len), bth);

	state = (__force u32)__skb_checksum(skb, off + MRC_BTH_LEN,
					    len - MRC_BTH_LEN - MRC_ICRC_LEN,
					    (__force __wsum)state, &mrc_crc_ops);
	return ~state;
}

/*
 * The RoCEv2 ICRC over the IPv6 header in front of UDP, UDP and the @len
 * MRC bytes at offset @off of @skb, linear or not; @bth is a copy of the
 * packet's BTH.
 */
static bool mrc_rx_icrc_ok(const struct ipv6hdr *ip6, const struct udphdr *uh,
			   const struct sk_buff *skb, int off, u32 len,
			   const u8 *bth)
{
	struct mrc_icrc_ip6 ip;
	__le32 crc;

	if (len < MRC_BTH_LEN + MRC_ICRC_LEN ||
	    skb_copy_bits(skb, off + len - MRC_ICRC_LEN, &crc, sizeof(crc)))
		return false;
	mrc_icrc_ip_set(&ip, &ip6->saddr, &ip6->daddr, ntohs(uh->source),
			ntohs(uh->dest));
	return mrc_skb_icrc(skb, off, len, &ip, bth) == le32_to_cpu(crc);
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
 * flowcell's segment, and is copied once, into the message
 * (mrc_conn_rcv()). Called in softirq under RCU.
 */
static void mrc_rx_one(struct net *net, struct sk_buff *skb, int off,
		       u32 len, const struct ipv6hdr *ip6,
		       const struct udphdr *uh)
{
	struct mrc_net *mn = mrc_net(net);
	u32 ev, hl, dflags, flags = 0;
	u8 buf[MRC_RX_CTL_MAX], op;
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
	if (pkt.bth.dest_qp != MRC_QPN_EP &&
	    !mrc_conn_qpn_known(mn, pkt.bth.dest_qp)) {
		mrc_net_count(mn, MRC_CNT_RX_UNKNOWN_QPN);
		return;
	}
	if (!(flags & MRC_RXF_TRIMMED) &&
	    !mrc_rx_icrc_ok(ip6, uh, skb, off, len, data)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_ICRC);
		return;
	}
	ev = mrc_ev_from_wire(ntohs(uh->source), ntohl(ip6_flowlabel(ip6)));
	if (INET_ECN_is_ce(ipv6_get_dsfield(ip6)))
		flags |= MRC_RXF_ECN_CE;
	if (pkt.bth.dest_qp == MRC_QPN_EP)
		mrc_conn_rcv_ep(net, skb, &pkt);
	else
		mrc_conn_rcv(net, skb, &pkt, poff, ev, flags);
}

/*
 * encap_rcv of the namespace's UDP socket. Return 0: the skb is ours
 * (consumed or freed), never handed back to UDP.
 */
static int mrc_udp_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	struct mrc_net *mn = mrc_net(net);
	enum mrc_net_counter cnt;
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
	/*
	 * One MRC packet per datagram: a flowcell sent as one GSO skb was cut
	 * into its packets by UDP before this encapsulation socket sees it
	 * (udp_unexpected_gso(): GSO skbs reach encap_rcv only as UDP
	 * tunnels), each segment's payload still in the sender's frags.
	 */
	mrc_rx_one(net, skb, off, len - sizeof(*uh), ip6, uh);
	consume_skb(skb);
	return 0;
drop:
	mrc_net_count(mn, MRC_CNT_RX_PKTS);
	kfree_skb(skb);
	return 0;
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
	ip6_sock_set_v6only(sk);
	err = kernel_bind(sock, (struct sockaddr *)&sin6, sizeof(sin6));
	if (err) {
		pr_info_ratelimited("cannot bind UDP port %d: %d (set net.mrc.udp_port to another one)\n",
				    mn->udp_port, err);
		sock_release(sock);
		goto out;
	}
	/* What setup_udp_tunnel_sock() does, without the module dependency. */
	mrc_inet_clear_mc_loop(sk);
	inet_inc_convert_csum(sk);
	rcu_assign_sk_user_data(sk, mn);
	udp_sk(sk)->encap_type = 1;
	udp_sk(sk)->encap_rcv = mrc_udp_rcv;
	udp_sk(sk)->encap_err_lookup = mrc_udp_err_lookup;
	udp_sk(sk)->encap_err_rcv = mrc_udp_err_rcv;
	udp_tunnel_encap_enable(sk);
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
	udp_sk(sock->sk)->encap_rcv = NULL;
	rcu_assign_sk_user_data(sock->sk, NULL);
	synchronize_rcu();
	kernel_sock_shutdown(sock, SHUT_RDWR);
	sock_release(sock);
}

/*
 * The UDP port packets are sent to: the one this namespace's socket is
 * bound to (net.mrc.udp_port when it was created); peers agree on it.
 */
__be16 mrc_udp_dport(const struct net *net)
{
	return READ_ONCE(mrc_net(net)->udp_dport);
}

/**
 * mrc_udp_sport() - UDP source port of an EV
 * @ev: entropy value
 *
 * Return: the low 16 bits of @ev (the receiver rebuilds the EV from it).
 */
u16 mrc_udp_sport(u32 ev)
{
	return mrc_ev_to_udp_sport(ev);
}

/**
 * mrc_flow_policy() - the socket's egress policy on a route lookup
 * @sk: the AF_MRC socket the packet belongs to, or NULL (no socket yet)
 * @fl6: the flow being looked up
 *
 * Policy routing sees MRC traffic as it sees TCP's: the socket's mark
 * (SO_MARK, fwmark rules), its owner (uidrange rules) and the device or
 * VRF it is bound to (SO_BINDTODEVICE) when the flow does not name an
 * output device itself (a plane's device, a link-local peer's scope).
 *
 * Any context.
 */
void mrc_flow_policy(const struct sock *sk, struct flowi6 *fl6)
{
	if (!sk)
		return;
	fl6->flowi6_mark = READ_ONCE(sk->sk_mark);
	fl6->flowi6_uid = sk->sk_uid;
	if (!fl6->flowi6_oif)
		fl6->flowi6_oif = READ_ONCE(sk->sk_bound_dev_if);
}

/*
 * Route of a flow to the peer itself (no configured fabric route). With a
 * source address and an output device (SO_BINDTODEVICE, a link-local
 * peer's scope) the device is a constraint, as for a bound TCP socket;
 * ip6_dst_lookup_flow() would only take it as a hint then (it is strict
 * for a bound socket, which it cannot be given: it reads an AF_MRC socket
 * as an inet one). IPsec policy applies either way.
 */
static struct dst_entry *mrc_peer_lookup(struct net *net, struct flowi6 *fl6)
{
	struct dst_entry *dst;
	int err;

	if (ipv6_addr_any(&fl6->saddr) || !fl6->flowi6_oif)
		return ip6_dst_lookup_flow(net, NULL, fl6, NULL);
	dst = ip6_route_output_flags(net, NULL, fl6, RT6_LOOKUP_F_IFACE);
	err = dst->error;
	if (err) {
		dst_release(dst);
		return ERR_PTR(err);
	}
	return xfrm_lookup_route(net, dst, flowi6_to_flowi(fl6), NULL, 0);
}

/**
 * mrc_route() - the route of a connection's packets, cached
 * @net: namespace
 * @ms: connection (peer, saddr)
 * @dc: route cache, or NULL for an uncached lookup
 * @fl6: filled with the flow (saddr chosen by the routing table if
 *	ms->saddr is unspecified)
 * @dstp: the route, a reference the caller releases
 *
 * Any context; with @dc, bottom halves must be disabled.
 *
 * Return: 0 or a negative errno (ENETUNREACH, EHOSTUNREACH...).
 */
int mrc_route(struct net *net, struct mrc_sock *ms, struct dst_cache *dc,
	      struct flowi6 *fl6, struct dst_entry **dstp)
{
	struct dst_entry *dst;

	memset(fl6, 0, sizeof(*fl6));
	fl6->flowi6_proto = IPPROTO_UDP;
	fl6->daddr = *(struct in6_addr *)ms->peer.smrc_addr;
	fl6->saddr = ms->saddr;
	/* A scope id means something for a link-local peer only. */
	if (ipv6_addr_type(&fl6->daddr) & IPV6_ADDR_LINKLOCAL)
		fl6->flowi6_oif = ms->peer.smrc_scope_id;
	fl6->fl6_dport = mrc_udp_dport(net);
	mrc_flow_policy(&ms->sk, fl6);
	if (dc) {
		dst = dst_cache_get_ip6(dc, &fl6->saddr);
		if (dst) {
			*dstp = dst;
			return 0;
		}
	}
	dst = mrc_peer_lookup(net, fl6);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	if (dc)
		dst_cache_set_ip6(dc, dst, &fl6->saddr);
	*dstp = dst;
	return 0;
}

/*
 * What mrc_xmit_queue() and mrc_xmit_one() need of an skb of @segs MRC
 * packets of @seg_len bytes (the last one may be shorter), @pkt the first.
 */
static void mrc_cb_init(struct sk_buff *skb, const struct mrc_sock *ms,
			u32 ev, const struct mrc_pkt *pkt, u8 segs, u16 seg_len)
{
	mrc_cb(skb)->ev = ev;
	mrc_cb(skb)->plane = mrc_ev_plane(ev);
	mrc_cb(skb)->hs = pkt->bth.dest_qp == MRC_QPN_EP;
	mrc_cb(skb)->data = mrc_op_is_data(pkt->bth.opcode);
	mrc_cb(skb)->psn = pkt->bth.psn;
	/* The EV profile's classes (mrc_profile_tclass()). */
	mrc_cb(skb)->tclass = mrc_op_is_data(pkt->bth.opcode) ? ms->tclass_data :
								 ms->tclass_ctl;
	mrc_cb(skb)->segs = segs;
	mrc_cb(skb)->seg_len = seg_len;
}

/**
 * mrc_build_pkt() - an skb holding one MRC packet, BTH to ICRC
 * @ms: connection (for the counters)
 * @pkt: every header field (from the engine's tx descriptor)
 * @ev: entropy value to send it with
 * @mb: the message, for data packets; NULL otherwise
 * @off: offset of the payload in @mb
 *
 * Called with the connection lock held (the message cannot go away).
 *
 * Return: the skb, or NULL (allocation or encoding failure, counted).
 */
struct sk_buff *mrc_build_pkt(struct mrc_sock *ms, const struct mrc_pkt *pkt,
			      u32 ev, const struct mrc_msgbuf *mb, u32 off)
{
	struct mrc_net *mn = mrc_net(sock_net(&ms->sk));
	u32 hlen = mrc_pkt_hdr_len(pkt);
	u32 plen = pkt->payload_len;
	u32 pad = pkt->bth.pad_cnt;
	u32 total = hlen + plen + pad + MRC_ICRC_LEN;
	struct sk_buff *skb;
	u8 *buf;
	int n;

	if (!hlen || (plen && (!mb || (u64)off + plen > mb->len)))
		goto err;
	skb = alloc_skb(MRC_HEADROOM + total, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		goto err;
	skb_reserve(skb, MRC_HEADROOM);
	buf = skb_put(skb, total);
	n = mrc_pkt_encode_hdr(pkt, buf, total);
	if (n < 0) {
		kfree_skb(skb);
		goto err;
	}
	if (plen)
		mrc_mb_read(mb, off, buf + hlen, plen);
	/* The ICRC covers addresses and ports: mrc_xmit_one() writes it. */
	memset(buf + hlen + plen, 0, pad + MRC_ICRC_LEN);
	mrc_cb_init(skb, ms, ev, pkt, 1, total);
	return skb;
err:
	mrc_net_count(mn, MRC_CNT_TX_ERR);
	return NULL;
}

/**
 * mrc_burst_max() - the longest flowcell a connection asks for
 * @mtu: payload bytes per data packet of the connection
 * @burst: the EV profile's burst (0: MRC_EV_BURST_DEFAULT)
 *
 * Return: 1..MRC_EV_BURST_MAX packets whose datagram fits MRC_BURST_BYTES.
 */
u32 mrc_burst_max(u32 mtu, u32 burst)
{
	u32 seg = MRC_DATA_HDR_MAX + mtu + 3 + MRC_ICRC_LEN;

	burst = clamp_t(u32, burst ?: MRC_EV_BURST_DEFAULT, 1, MRC_EV_BURST_MAX);
	return clamp_t(u32, MRC_BURST_BYTES / seg, 1, burst);
}

/**
 * mrc_build_burst() - lay a flowcell out as one UDP GSO skb
 * @ms: connection
 * @d: the burst (mrc_conn_poll_tx_burst()): consecutive data packets of
 *	message @mb on one EV, every one but the last of the same size
 * @n: packets in it (2..MRC_EV_BURST_MAX)
 * @mb: the message
 *
 * The MRC packets (headers, payload, pad, room for the ICRC) follow one
 * another in page frags; mrc_xmit_one() puts the ICRCs in, one UDP header
 * in front and marks the skb SKB_GSO_UDP_L4 with gso_size = one MRC
 * packet, so the stack cuts it into one datagram per MRC packet as late
 * as the device allows (veth forwards it whole between namespaces).
 * Called with the connection lock held.
 *
 * Return: the skb, or NULL (no memory, or a descriptor that does not
 * encode): the caller builds the packets one by one instead.
 */
struct sk_buff *mrc_build_burst(struct mrc_sock *ms,
				const struct mrc_tx_desc *d, u32 n,
				const struct mrc_msgbuf *mb)
{
	static const u8 zero[3 + MRC_ICRC_LEN];
	u8 hdr[MRC_DATA_HDR_MAX];
	u32 i, off, total = 0, seg = 0, plen, tail;
	struct sk_buff *skb;
	int hlen, err;

	if (!mb || n < 2 || n > U8_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		plen = mrc_pkt_hdr_len(&d[i].pkt) + d[i].payload_len +
		       d[i].pkt.bth.pad_cnt + MRC_ICRC_LEN;
		if (!i)
			seg = plen;
		if (plen > seg || (plen < seg && i != n - 1) ||
		    (u64)d[i].msg_offset + d[i].payload_len > mb->len)
			return NULL;
		total += plen;
	}
	if (total > MRC_BURST_BYTES)
		return NULL;
	skb = alloc_skb_with_frags(MRC_HEADROOM, total, PAGE_ALLOC_COSTLY_ORDER,
				   &err, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, MRC_HEADROOM);
	skb->len = total;
	skb->data_len = total;
	for (i = 0, off = 0; i < n; i++) {
		hlen = mrc_pkt_encode_hdr(&d[i].pkt, hdr, sizeof(hdr));
		if (hlen < 0) {
			kfree_skb(skb);
			return NULL;
		}
		plen = d[i].payload_len;
		tail = d[i].pkt.bth.pad_cnt + MRC_ICRC_LEN;
		skb_store_bits(skb, off, hdr, hlen);
		mrc_mb_read_skb(mb, d[i].msg_offset, skb, off + hlen, plen);
		skb_store_bits(skb, off + hlen + plen, zero, tail);
		off += hlen + plen + tail;
	}
	mrc_cb_init(skb, ms, d->ev, &d->pkt, n, seg);
	return skb;
}

/* How one packet leaves: addresses, encapsulation, device. */
struct mrc_txp {
	struct sock *sk;		/* owner, egress policy; or NULL */
	const struct in6_addr *saddr;	/* inner (or only) source */
	const struct in6_addr *daddr;	/* inner (or only) destination */
	const struct in6_addr *osaddr;	/* outer source: the plane's address */
	const struct mrc_cfg_path *path; /* srh/usid: the SIDs; else NULL */
	u8 encap;
	int oif;
	u16 sport;
	u32 label;
	u32 pmtu;	/* 0, or the connection's mrc_sock.pmtu */
};

static bool mrc_txp_encap(const struct mrc_txp *tp)
{
	return tp->encap != MRC_ENCAP_NONE && tp->path && tp->path->nsegs;
}

/* Bytes an encapsulation adds in front of the inner IPv6 header. */
static u32 mrc_encap_len(u8 encap, const struct mrc_cfg_path *path)
{
	if (encap == MRC_ENCAP_NONE || !path || !path->nsegs)
		return 0;
	if (encap == MRC_ENCAP_SRH)
		return sizeof(struct ipv6hdr) + sizeof(struct ipv6_sr_hdr) +
		       path->nsegs * sizeof(struct in6_addr);
	return sizeof(struct ipv6hdr);
}

/*
 * Route of the outer header, out of the plane's device (strict), cached
 * in @dc when given. Bottom halves disabled when @dc is used.
 */
static struct dst_entry *mrc_txp_route(struct net *net,
				       const struct mrc_txp *tp,
				       struct dst_cache *dc)
{
	bool encap = mrc_txp_encap(tp);
	struct dst_entry *dst;
	struct in6_addr tmp;
	struct flowi6 fl6;
	int err;

	if (dc) {
		dst = dst_cache_get_ip6(dc, &tmp);
		if (dst)
			return dst;
	}
	memset(&fl6, 0, sizeof(fl6));
	if (encap) {
		fl6.flowi6_proto = tp->encap == MRC_ENCAP_SRH ? NEXTHDR_ROUTING :
							       IPPROTO_IPV6;
		fl6.daddr = tp->path->segs[0];
		fl6.saddr = *tp->osaddr;
	} else {
		fl6.flowi6_proto = IPPROTO_UDP;
		fl6.daddr = *tp->daddr;
		fl6.saddr = *tp->saddr;
		fl6.fl6_dport = mrc_udp_dport(net);
	}
	fl6.flowi6_oif = tp->oif;
	mrc_flow_policy(tp->sk, &fl6);
	dst = ip6_route_output_flags(net, NULL, &fl6,
				     tp->oif ? RT6_LOOKUP_F_IFACE : 0);
	err = dst->error;
	if (err) {
		dst_release(dst);
		return ERR_PTR(err);
	}
	if (dc)
		dst_cache_set_ip6(dc, dst, &fl6.saddr);
	return dst;
}

/*
 * Write the ICRC in the last four bytes of each MRC packet at skb->data,
 * now that the addresses and ports of the IPv6/UDP headers in front of it
 * are final (RoCEv2: they are covered; under SRv6, the inner ones). The
 * packets are @seg bytes each but the last (one packet: @seg = skb->len);
 * a flowcell's segments each carry the ICRC of their own datagram.
 */
static void mrc_put_icrc(struct sk_buff *skb, const struct mrc_txp *tp,
			 __be16 dport, u32 seg)
{
	u8 bth[MRC_BTH_LEN];
	struct mrc_icrc_ip6 ip;
	u32 off, len;
	__le32 crc;

	mrc_icrc_ip_set(&ip, tp->saddr, tp->daddr, tp->sport, ntohs(dport));
	for (off = 0; off < skb->len; off += len) {
		len = min(seg, skb->len - off);
		if (len < MRC_BTH_LEN + MRC_ICRC_LEN ||
		    skb_copy_bits(skb, off, bth, sizeof(bth)))
			return;
		crc = cpu_to_le32(mrc_skb_icrc(skb, off, len, &ip, bth));
		skb_store_bits(skb, off + len - MRC_ICRC_LEN, &crc, sizeof(crc));
	}
}

/*
 * Push the outer headers of srh and usid in front of the inner IPv6 packet
 * at skb->data (none: nothing) and send it. Consumes @skb and a reference
 * on @dst.
 */
static int mrc_xmit_outer(struct net *net, struct sk_buff *skb,
			  struct dst_entry *dst, const struct mrc_txp *tp,
			  u8 tclass, __be32 flow, int hl)
{
	bool gso = skb_is_gso(skb);
	struct ipv6_sr_hdr *srh;
	struct ipv6hdr *ip6h;
	u32 i, n, srhlen;
	u8 nh;

	skb_dst_set(skb, dst);
	if (mrc_txp_encap(tp)) {
		/* Checksummed and segmented inside, as ip6ip6 does. */
		skb_reset_inner_headers(skb);
		skb->encapsulation = 1;
		skb_set_inner_ipproto(skb, IPPROTO_IPV6);
		if (gso)
			skb_shinfo(skb)->gso_type |= SKB_GSO_IPXIP6;
		nh = IPPROTO_IPV6;
		if (tp->encap == MRC_ENCAP_SRH) {
			/* RFC 8754: segments reversed, [0] = the last one. */
			n = tp->path->nsegs;
			srhlen = sizeof(*srh) + n * sizeof(struct in6_addr);
			srh = __skb_push(skb, srhlen);
			srh->nexthdr = IPPROTO_IPV6;
			srh->hdrlen = srhlen / 8 - 1;
			srh->type = IPV6_SRCRT_TYPE_4;
			srh->segments_left = n - 1;
			srh->first_segment = n - 1;
			srh->flags = 0;
			srh->tag = 0;
			for (i = 0; i < n; i++)
				srh->segments[i] = tp->path->segs[n - 1 - i];
			nh = NEXTHDR_ROUTING;
		}
		ip6h = __skb_push(skb, sizeof(*ip6h));
		skb_reset_network_header(skb);
		/* Same flow label outside: the leaves' ECMP hashes it. */
		ip6_flow_hdr(ip6h, tclass, flow);
		ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
		ip6h->nexthdr = nh;
		ip6h->hop_limit = hl;
		ip6h->saddr = *tp->osaddr;
		ip6h->daddr = tp->path->segs[0];
	}
	skb->protocol = htons(ETH_P_IPV6);
	/* The MTU was chosen from the route; if it shrank, fragment. */
	skb->ignore_df = 1;
	if (!tp->sk)
		return ip6_local_out(net, NULL, skb);
	/*
	 * Owned by the socket, as TCP's segments are: netfilter's skuid and
	 * cgroup matches, cgroup egress BPF (it runs only for sk ==
	 * skb->sk) and qdiscs see the sender; sk_wmem_alloc counts the bytes
	 * in flight below us and keeps the socket until they are freed.
	 */
	skb_set_owner_w(skb, tp->sk);
	skb->mark = READ_ONCE(tp->sk->sk_mark);
	skb->priority = READ_ONCE(tp->sk->sk_priority);
	return ip6_local_out(net, tp->sk, skb);
}

/*
 * A packet cut before a Packet Too Big lowered the path MTU to
 * @tp->pmtu keeps its size (its PSN's payload is fixed): the inner IPv6
 * packet at skb->data (UDP checksum complete) is fragmented to fit and
 * each fragment is encapsulated and sent on its own. The inner packet,
 * not the outer one: the peer decapsulates with End.DT6 before any
 * reassembly (seg6_local drops outer fragments) and reassembles the inner
 * fragments on local delivery. Consumes @skb and a reference on @dst.
 */
static int mrc_xmit_frags(struct net *net, struct sk_buff *skb,
			  struct dst_entry *dst, const struct mrc_txp *tp,
			  u8 tclass, __be32 flow, int hl)
{
	struct ip6_frag_state st;
	struct sk_buff *frag;
	int err = 0, rc;

	ip6_frag_init(skb, sizeof(struct ipv6hdr),
		      tp->pmtu - sizeof(struct ipv6hdr) - sizeof(struct frag_hdr),
		      0, MRC_HEADROOM - sizeof(struct ipv6hdr),
		      &ipv6_hdr(skb)->nexthdr, IPPROTO_UDP,
		      ipv6_select_ident(net, tp->daddr, tp->saddr), &st);
	while (st.left > 0) {
		frag = ip6_frag_next(skb, &st);
		if (IS_ERR(frag)) {
			err = PTR_ERR(frag);
			break;
		}
		rc = mrc_xmit_outer(net, frag, dst_clone(dst), tp, tclass,
				    flow, hl);
		rc = net_xmit_eval(rc);
		if (rc && !err)
			err = rc;
	}
	dst_release(dst);
	consume_skb(skb);
	return err;
}

/*
 * Push UDP, IPv6 and (srh, usid) the outer headers in front of the MRC
 * packet at skb->data and send it. Consumes @skb and a reference on @dst.
 */
static int mrc_xmit_one(struct net *net, struct sk_buff *skb,
			struct dst_entry *dst, const struct mrc_txp *tp)
{
	u8 tclass = mrc_cb(skb)->tclass;	/* before IP6CB() takes the cb */
	u32 segs = mrc_cb(skb)->segs, seg_len = mrc_cb(skb)->seg_len;
	__be16 dport = mrc_udp_dport(net);
	bool encap = mrc_txp_encap(tp);
	int hl = ip6_dst_hoplimit(dst);
	struct ipv6hdr *ip6h;
	struct udphdr *uh;
	bool frag;
	__be32 flow;
	int len;

	mrc_put_icrc(skb, tp, dport, segs > 1 ? seg_len : skb->len);
	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(tp->sport);
	uh->dest = dport;
	len = skb->len;
	uh->len = htons(len);
	uh->check = 0;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	frag = tp->pmtu && segs <= 1 && len + sizeof(*ip6h) > tp->pmtu;
	if (segs > 1) {
		/*
		 * A flowcell: UDP segmentation offload (as UDP_SEGMENT) cuts
		 * it into one datagram per MRC packet, each with its own
		 * length and checksum, at the device that cannot take it
		 * whole (or in software before the wire).
		 */
		skb_shinfo(skb)->gso_size = seg_len;
		skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
		skb_shinfo(skb)->gso_segs = segs;
	}
	if (frag) {
		/* Fragments: the checksum cannot be left to the device. */
		skb->ip_summed = CHECKSUM_NONE;
		uh->check = csum_ipv6_magic(tp->saddr, tp->daddr, len,
					    IPPROTO_UDP,
					    skb_checksum(skb, 0, len, 0));
		if (!uh->check)
			uh->check = CSUM_MANGLED_0;
	} else if (segs > 1 || encap) {
		/*
		 * The checksum is left to the device (CHECKSUM_PARTIAL), also
		 * through srh/usid, whose inner headers are set below as an
		 * ip6ip6 tunnel's: a device without checksum offload for
		 * encapsulated packets has validate_xmit_skb() complete it in
		 * software, at the inner UDP header.
		 */
		skb->ip_summed = CHECKSUM_PARTIAL;
		skb->csum_start = skb_transport_header(skb) - skb->head;
		skb->csum_offset = offsetof(struct udphdr, check);
		uh->check = ~csum_ipv6_magic(tp->saddr, tp->daddr, len,
					     IPPROTO_UDP, 0);
	} else {
		udp6_set_csum(false, skb, tp->saddr, tp->daddr, len);
	}

	flow = htonl(tp->label) & IPV6_FLOWLABEL_MASK;
	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tclass, flow);
	ip6h->payload_len = htons(len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = hl;
	ip6h->saddr = *tp->saddr;
	ip6h->daddr = *tp->daddr;
	if (frag)
		return mrc_xmit_frags(net, skb, dst, tp, tclass, flow, hl);
	return mrc_xmit_outer(net, skb, dst, tp, tclass, flow, hl);
}

/* Path slot @slot of engine plane @mpp of connection @ms. */
static void mrc_mp_txp(const struct mrc_sock *ms, const struct mrc_mp_plane *mpp,
		       u32 slot, struct mrc_txp *tp)
{
	const struct mrc_mp *mp = ms->mp;

	memset(tp, 0, sizeof(*tp));
	tp->sk = (struct sock *)&ms->sk;
	tp->saddr = &ms->saddr;
	tp->daddr = (const struct in6_addr *)ms->peer.smrc_addr;
	tp->osaddr = &mpp->saddr;
	tp->encap = mp->encap;
	tp->oif = mpp->ifindex;
	if (mp->rt && mp->rt->npaths)
		tp->path = &mp->rt->paths[mp->pidx[slot]];
	tp->pmtu = READ_ONCE(ms->pmtu);
}

/**
 * mrc_mp_setup() - take the path snapshot of a connection to its peer
 * @net: namespace
 * @ms: the connection: peer set, not hashed yet (nobody else sees it)
 * @gfp: GFP_KERNEL from connect(), GFP_ATOMIC from the receive softirq
 *
 * Looks the peer up in the configured routes; without a route the
 * connection keeps the single-plane default (ms->mp stays NULL). With one,
 * the route is held and every plane that exists and has a path on the
 * route becomes an engine plane (by increasing id), with its device,
 * source address and state (admin and operational), a route cache per
 * path, and the smallest MTU of the paths minus the encapsulation.
 *
 * MRC_PLANE_MASK (if not 0) leaves out the planes whose bit is clear; an
 * unrouted connection has the one implicit plane 0.
 *
 * SO_BINDTODEVICE leaves out the planes whose device is neither the bound
 * device nor enslaved to it (a VRF).
 *
 * Return: 0, -ENETUNREACH (a route, but none of its planes exists, is in
 * the plane mask and the bound device; or no route and plane 0 masked
 * out), -EACCES (policy routing prohibits every path) or -ENOMEM.
 */
int mrc_mp_setup(struct net *net, struct mrc_sock *ms, gfp_t gfp)
{
	const struct in6_addr *peer = (const struct in6_addr *)ms->peer.smrc_addr;
	int bound = READ_ONCE(ms->sk.sk_bound_dev_if);
	const struct mrc_cfg_plane *pl;
	struct mrc_mp_plane *mpp;
	struct mrc_cfg_route *rt;
	struct dst_entry *dst;
	u32 id, i, n, m, slot = 0, mtu = 0;
	struct mrc_txp tp;
	struct mrc_mp *mp;
	int tries, err = 0;

	if (ms->mp)
		return 0;
	mp = kzalloc(sizeof(*mp), gfp);
	if (!mp)
		return -ENOMEM;
	rcu_read_lock();
	for (tries = 0; tries < 3; tries++) {
		rt = mrc_cfg_route_lookup(net, peer);
		if (!rt || mrc_cfg_route_hold(rt))
			break;
		rt = NULL;	/* replaced under us: look again */
	}
	if (!rt) {
		rcu_read_unlock();
		kfree(mp);
		/* Unrouted: the one implicit plane 0, which the mask may exclude. */
		if (ms->opts.plane_mask && !(ms->opts.plane_mask & BIT(0)))
			return -ENETUNREACH;
		return 0;
	}
	mp->rt = rt;
	mp->encap = rt->encap;
	for (id = 0; id < MRC_PLANES_NR && mp->nplanes < MRC_MAX_PLANES; id++) {
		pl = mrc_cfg_plane_get(net, id);
		if (!pl)
			continue;
		/* MRC_PLANE_MASK: planes this connection may use. */
		if (ms->opts.plane_mask && !(ms->opts.plane_mask & BIT(id)))
			continue;
		/* SO_BINDTODEVICE: the bound device or the VRF it leads. */
		if (bound && pl->ifindex != bound &&
		    l3mdev_master_ifindex_by_index(net, pl->ifindex) != bound)
			continue;
		n = 0;
		if (!rt->npaths) {
			/* encap none without paths: every plane, one path */
			n = 1;
		} else {
			for (i = 0; i < rt->npaths; i++) {
				if (rt->paths[i].plane != id ||
				    slot + n >= MRC_ROUTE_PATHS_MAX)
					continue;
				mp->pidx[slot + n++] = i;
			}
		}
		if (!n)
			continue;
		mpp = &mp->plane[mp->nplanes++];
		mpp->id = id;
		mpp->first = slot;
		mpp->npaths = n;
		mpp->ifindex = pl->ifindex;
		mpp->saddr = pl->saddr;
		mpp->up = pl->admin_up && mrc_cfg_plane_oper_up(net, pl);
		mp->max_paths = max_t(u16, mp->max_paths, n);
		slot += n;
	}
	rcu_read_unlock();
	if (!mp->nplanes) {
		mrc_mp_free(mp);
		return -ENETUNREACH;
	}
	for (i = 0; i < slot; i++) {
		if (dst_cache_init(&mp->dc[i], gfp)) {
			mrc_mp_free(mp);
			return -ENOMEM;
		}
		mp->nslots = i + 1;
	}
	ms->mp = mp;
	/* MTU: the smallest of the paths that have a route now. */
	local_bh_disable();
	for (i = 0; i < mp->nplanes; i++) {
		mpp = &mp->plane[i];
		for (n = 0; n < mpp->npaths; n++) {
			mrc_mp_txp(ms, mpp, mpp->first + n, &tp);
			dst = mrc_txp_route(net, &tp, NULL);
			if (IS_ERR(dst)) {
				err = PTR_ERR(dst);
				continue;
			}
			m = dst_mtu(dst) - mrc_encap_len(tp.encap, tp.path);
			mtu = mtu ? min(mtu, m) : m;
			dst_release(dst);
		}
	}
	local_bh_enable();
	/*
	 * Policy routing prohibits every path of this socket (a "prohibit"
	 * route for its mark or uid): refuse as TCP's connect() would.
	 */
	if (!mtu && err == -EACCES) {
		ms->mp = NULL;
		mrc_mp_free(mp);
		return err;
	}
	/* No path routed yet: assume the minimum and the largest SRH. */
	mp->mtu = mtu ?: IPV6_MIN_MTU - sizeof(struct ipv6hdr) -
			 sizeof(struct ipv6_sr_hdr) -
			 MRC_SEGS_MAX * sizeof(struct in6_addr);
	return 0;
}

/**
 * mrc_mp_free() - release a path snapshot (socket destructor, any context)
 * @mp: the snapshot or NULL
 */
void mrc_mp_free(struct mrc_mp *mp)
{
	u32 i;

	if (!mp)
		return;
	for (i = 0; i < mp->nslots; i++)
		dst_cache_destroy(&mp->dc[i]);
	if (mp->rt)
		mrc_cfg_route_put(mp->rt);
	kfree(mp);
}

/**
 * mrc_mp_engine_cfg() - engine planes, EVs and paths of a snapshot
 * @mp: the connection's snapshot (NULL: leave @cfg single-plane)
 * @cfg: engine configuration being filled
 * @evs: EVs of the connection, shared equally by the planes
 */
void mrc_mp_engine_cfg(const struct mrc_mp *mp, struct mrc_conn_cfg *cfg,
		       u32 evs)
{
	u32 i, per, act, mask = 0, k = 1;

	if (!mp)
		return;
	per = clamp_t(u32, evs / mp->nplanes, 2, MRC_EV_MAX / mp->nplanes);
	act = max_t(u32, per * 3 / 4, 1);
	for (i = 0; i < mp->nplanes; i++) {
		if (mp->plane[i].up)
			mask |= BIT(i);
		if (k <= MRC_EV_MAX)
			k = k / gcd(k, mp->plane[i].npaths) * mp->plane[i].npaths;
	}
	/*
	 * The engine gives the EVs of a plane distinct residues modulo
	 * paths_per_plane (while they are fewer). A multiple of every
	 * plane's path count, at least the EVs of a plane, makes
	 * mrc_ev_entropy(ev) % npaths spread them evenly over every plane's paths;
	 * the largest path count alone would leave all but the first
	 * npaths EVs to chance.
	 */
	if (k > MRC_EV_MAX)
		k = mp->max_paths;
	else
		k *= DIV_ROUND_UP(per, k);
	cfg->n_planes = mp->nplanes;
	cfg->plane_up_mask = mask;
	cfg->ev_per_plane = per;
	cfg->ev_active_per_plane = act;
	cfg->ev_min_active = max_t(u32, act * mp->nplanes / 8, 2);
	cfg->paths_per_plane = k;
}

/* Engine plane of handshake packets: the first one that is up. */
static u32 mrc_mp_hs_plane(const struct mrc_mp *mp)
{
	u32 i;

	for (i = 0; i < mp->nplanes; i++)
		if (READ_ONCE(mp->plane[i].up))
			return i;
	return 0;
}

/*
 * The route caches of @ms hold routes looked up with ms->route_mark; after
 * a later SO_MARK they are bypassed (uncached lookups with the new mark),
 * so fwmark rules apply to the connection from the next packet on.
 */
static bool mrc_route_cache_ok(const struct mrc_sock *ms)
{
	return READ_ONCE(ms->sk.sk_mark) == ms->route_mark;
}

/* Send @skb on the path its EV names. Consumes @skb. */
static int mrc_mp_xmit(struct net *net, struct mrc_sock *ms,
		       struct sk_buff *skb, u32 ev, bool hs, u8 *planep)
{
	struct mrc_mp *mp = ms->mp;
	const struct mrc_mp_plane *mpp;
	struct dst_entry *dst;
	struct mrc_txp tp;
	u32 pi, slot;
	int err;

	pi = hs ? mrc_mp_hs_plane(mp) : mrc_ev_plane(ev);
	if (pi >= mp->nplanes)
		goto noroute;
	mpp = &mp->plane[pi];
	slot = mpp->first + (hs ? 0 : mrc_ev_entropy(ev) % mpp->npaths);
	mrc_mp_txp(ms, mpp, slot, &tp);
	tp.sport = mrc_udp_sport(ev);
	tp.label = mrc_ev_to_flowlabel(ev);
	dst = mrc_txp_route(net, &tp,
			    mrc_route_cache_ok(ms) ? &mp->dc[slot] : NULL);
	if (IS_ERR(dst))
		goto noroute;
	*planep = pi;
	err = mrc_xmit_one(net, skb, dst, &tp);
	return net_xmit_eval(err);
noroute:
	kfree_skb(skb);
	return -ENETUNREACH;
}

/**
 * mrc_xmit_queue() - send the packets a connection built
 * @net: namespace
 * @ms: the connection (route cache, addresses, per-plane counters)
 * @q: skbs from mrc_build_pkt(); emptied
 *
 * A data packet the local stack refuses (NET_XMIT_DROP: a full qdisc or
 * device queue) goes back to the engine as a local drop, and so does every
 * later data packet of the batch for the same plane, without trying (the
 * queue is full; it would only cost the attempt). What the engine sends
 * instead goes out in the same call (a few rounds at most: the refusing
 * planes are closed for a while, see mrc_conn_local_drops()).
 *
 * Called without the connection lock, in any context.
 */
void mrc_xmit_queue(struct net *net, struct mrc_sock *ms,
		    struct sk_buff_head *q)
{
	struct mrc_local_drop drops[MRC_LOCAL_DROPS_MAX];
	struct mrc_net *mn = mrc_net(net);
	u32 ev, len, segs, i, ndrops, rounds = 0, refused = 0;
	struct sk_buff_head rq;
	struct dst_entry *dst;
	struct mrc_txp tp = {};
	struct sk_buff *skb;
	struct flowi6 fl6;
	bool data;
	u32 psn;
	u8 plane;
	int err;

	if (skb_queue_empty(q))
		return;
	tp.sk = &ms->sk;
	tp.daddr = (const struct in6_addr *)ms->peer.smrc_addr;
	tp.saddr = &ms->saddr;
	tp.pmtu = READ_ONCE(ms->pmtu);
	__skb_queue_head_init(&rq);
	local_bh_disable();
again:
	ndrops = 0;
	while ((skb = __skb_dequeue(q)) != NULL) {
		ev = mrc_cb(skb)->ev;
		plane = mrc_cb(skb)->plane;
		data = mrc_cb(skb)->data;
		psn = mrc_cb(skb)->psn;
		segs = mrc_cb(skb)->segs;
		len = skb->len;
		if (data && plane < 32 && (refused & BIT(plane))) {
			/* That plane's queue is full: report, do not try. */
			kfree_skb(skb);
			err = NET_XMIT_DROP;
		} else if (ms->mp) {
			err = mrc_mp_xmit(net, ms, skb, ev, mrc_cb(skb)->hs,
					  &plane);
		} else {
			err = mrc_route(net, ms,
					ms->dst_ok && mrc_route_cache_ok(ms) ?
					&ms->dst_cache : NULL, &fl6, &dst);
			if (err) {
				kfree_skb(skb);
				err = -ENETUNREACH;
			} else {
				tp.sport = mrc_udp_sport(ev);
				tp.label = mrc_ev_to_flowlabel(ev);
				err = mrc_xmit_one(net, skb, dst, &tp);
				err = net_xmit_eval(err);
			}
		}
		if (err == -ENETUNREACH) {
			mrc_net_count(mn, MRC_CNT_TX_NOROUTE);
			continue;
		}
		if (err == NET_XMIT_DROP) {
			/* Control packets: the next SACK/probe covers them. */
			mrc_net_count(mn, MRC_CNT_TX_LOCAL_DROP);
			if (!data)
				continue;
			if (plane < 32)
				refused |= BIT(plane);
			/* Every packet of a flowcell was refused. */
			for (i = 0; i < segs; i++) {
				drops[ndrops].psn = (psn + i) & MRC_PSN_MASK;
				drops[ndrops].ev = ev;
				drops[ndrops].plane = plane;
				if (++ndrops < MRC_LOCAL_DROPS_MAX)
					continue;
				/* Batch full: report; resends go to the tail. */
				mrc_conn_local_drops(ms, drops, ndrops, &rq);
				skb_queue_splice_tail_init(&rq, q);
				ndrops = 0;
			}
			continue;
		}
		if (err) {
			mrc_net_count(mn, MRC_CNT_TX_ERR);
			continue;
		}
		mrc_net_add(mn, MRC_CNT_TX_PKTS, segs);
		if (plane < MRC_INFO_PLANES) {
			WRITE_ONCE(ms->plane_pkts[plane],
				   ms->plane_pkts[plane] + segs);
			WRITE_ONCE(ms->plane_bytes[plane],
				   ms->plane_bytes[plane] + len);
		}
	}
	if (ndrops && rounds++ < MRC_LOCAL_DROP_ROUNDS) {
		/* @q is empty: it takes the retransmissions. */
		mrc_conn_local_drops(ms, drops, ndrops, q);
		goto again;
	}
	local_bh_enable();
}

/*
 * Endpoint packets of a configured destination: the first plane (by id)
 * that is up and has a path on the route, its first path. RCU held.
 */
static bool mrc_ep_path(struct net *net, const struct mrc_cfg_route *rt,
			struct mrc_txp *tp)
{
	const struct mrc_cfg_plane *pl, *any = NULL;
	const struct mrc_cfg_path *path = NULL, *anyp = NULL;
	u32 id, i;

	for (id = 0; id < MRC_PLANES_NR; id++) {
		pl = mrc_cfg_plane_get(net, id);
		if (!pl || !pl->ifindex)
			continue;
		path = NULL;
		for (i = 0; i < rt->npaths; i++) {
			if (rt->paths[i].plane == id) {
				path = &rt->paths[i];
				break;
			}
		}
		if (rt->npaths && !path)
			continue;
		if (!any) {
			any = pl;
			anyp = path;
		}
		if (pl->admin_up && mrc_cfg_plane_oper_up(net, pl)) {
			any = pl;
			anyp = path;
			break;
		}
	}
	if (!any)
		return false;
	tp->osaddr = &any->saddr;
	tp->oif = any->ifindex;
	tp->encap = rt->encap;
	tp->path = anyp;
	return true;
}

/**
 * mrc_send_ep() - send one endpoint (handshake) packet, uncached route
 * @net: namespace
 * @sk: the connection (owner of the packet, egress policy), or NULL for
 *	answers that no socket stands behind (rejects)
 * @saddr: source address (unspecified: chosen by routing)
 * @daddr: destination
 * @oif: output interface (link-local peers), else 0
 * @op: MRC_OP_EP_REQ or MRC_OP_EP_RESP
 * @ep: the body
 * @tclass: IPv6 traffic class (a control class, mrc_profile_tclass())
 *
 * A destination covered by a configured route is reached like the data
 * of a connection to it: on its first plane that is up, first path, with
 * the route's encapsulation, so that the handshake crosses the fabric.
 *
 * Any context, no lock needed.
 */
void mrc_send_ep(struct net *net, struct sock *sk, const struct in6_addr *saddr,
		 const struct in6_addr *daddr, int oif, u8 op,
		 const struct mrc_ep *ep, u8 tclass)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_cfg_route *rt;
	struct dst_entry *dst;
	struct mrc_txp tp = {};
	struct in6_addr src;
	struct sk_buff *skb;
	struct flowi6 fl6;
	struct mrc_pkt pkt;
	u32 total;
	u8 *buf;
	int n;

	memset(&pkt, 0, sizeof(pkt));
	pkt.bth.opcode = op;
	pkt.bth.tver = MRC_TVER;
	pkt.bth.pkey = MRC_PKEY_DEFAULT;
	pkt.bth.dest_qp = MRC_QPN_EP;
	pkt.ep = *ep;
	total = mrc_pkt_hdr_len(&pkt) + MRC_ICRC_LEN;
	skb = alloc_skb(MRC_HEADROOM + total, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		goto err;
	skb_reserve(skb, MRC_HEADROOM);
	buf = skb_put(skb, total);
	n = mrc_pkt_encode(&pkt, buf, total);
	if (n < 0) {
		kfree_skb(skb);
		goto err;
	}
	mrc_cb(skb)->tclass = tclass;
	tp.sk = sk;
	tp.sport = mrc_ep_udp_sport(ep->token);
	tp.daddr = daddr;
	src = *saddr;
	tp.saddr = &src;
	local_bh_disable();
	rcu_read_lock();
	rt = mrc_cfg_route_lookup(net, daddr);
	if (rt && mrc_ep_path(net, rt, &tp)) {
		if (ipv6_addr_any(&src) &&
		    ipv6_dev_get_saddr(net, NULL, daddr, 0, &src))
			dst = ERR_PTR(-EADDRNOTAVAIL);
		else
			dst = mrc_txp_route(net, &tp, NULL);
		if (IS_ERR(dst)) {
			rcu_read_unlock();
			goto noroute;
		}
		n = mrc_xmit_one(net, skb, dst, &tp);
		rcu_read_unlock();
		goto sent;
	}
	rcu_read_unlock();
	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.daddr = *daddr;
	fl6.saddr = *saddr;
	fl6.flowi6_oif = oif;
	fl6.fl6_dport = mrc_udp_dport(net);
	mrc_flow_policy(sk, &fl6);
	dst = mrc_peer_lookup(net, &fl6);
	if (IS_ERR(dst))
		goto noroute;
	src = fl6.saddr;
	n = mrc_xmit_one(net, skb, dst, &tp);
sent:
	local_bh_enable();
	mrc_net_count(mn, net_xmit_eval(n) ? MRC_CNT_TX_ERR : MRC_CNT_TX_PKTS);
	return;
noroute:
	local_bh_enable();
	mrc_net_count(mn, MRC_CNT_TX_NOROUTE);
	kfree_skb(skb);
	return;
err:
	mrc_net_count(mn, MRC_CNT_TX_ERR);
}

/*
 * Engine plane @i of @ms is up when our port of it is up and the peer did
 * not announce its own down; connection lock held, engine running.
 */
static void mrc_mp_plane_apply(struct mrc_sock *ms, u32 i, u64 now)
{
	bool up = READ_ONCE(ms->mp->plane[i].up) &&
		  !(ms->peer_planes_down & BIT(i));

	lockdep_assert_held(&ms->lock);
	mrc_conn_set_plane_up(ms->conn, now, i, up);
}

/**
 * mrc_conn_plane_state() - a configured plane went up or down
 * @net: namespace of the plane
 * @id: plane id
 * @up: admin and operational state together
 *
 * Every connection whose snapshot uses the plane records the state and,
 * when established, tells its engine (mrc_conn_set_plane_up(): down masks
 * the plane's EVs and moves its packets in flight to the other planes) and
 * its peer (an ERTH port-status update, mrc_conn_send_port_status()), so
 * that the peer stops sending into the dead port at once instead of
 * finding out by timeouts. Connections created later read the state at
 * set-up.
 *
 * Context: process context, from the configuration store with its mutex
 * held (netdevice notifier: RTNL too); takes each connection lock in turn
 * (see the lock order in mrc_impl.h).
 */
void mrc_conn_plane_state(struct net *net, u32 id, bool up)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_mp_plane *mpp;
	struct sk_buff_head q;
	struct mrc_sock *ms;
	int bkt;
	u32 i;
	u64 now;

	rcu_read_lock();
	hash_for_each_rcu(mn->qpn_hash, bkt, ms, qpn_node) {
		if (!ms->mp || !refcount_inc_not_zero(&ms->sk.sk_refcnt))
			continue;
		__skb_queue_head_init(&q);
		spin_lock_bh(&ms->lock);
		for (i = 0; i < ms->mp->nplanes; i++) {
			mpp = &ms->mp->plane[i];
			if (mpp->id != id)
				continue;
			if (mpp->up == up)
				break;
			WRITE_ONCE(mpp->up, up);
			if (ms->dead || !ms->conn ||
			    ms->state != MRC_ST_ESTABLISHED)
				break;
			now = mrc_now();
			mrc_mp_plane_apply(ms, i, now);
			/* Tell the peer at once: it stops using the plane. */
			mrc_conn_send_port_status(ms, &q);
			mrc_conn_drain(ms, now, &q);
			break;
		}
		spin_unlock_bh(&ms->lock);
		mrc_xmit_queue(net, ms, &q);
		sock_put(&ms->sk);
	}
	rcu_read_unlock();
}

/* A port-status update names its connection by the token in BTH.PSN. */
static bool mrc_peer_ports_one(struct mrc_sock *ms, void *arg,
			       struct sk_buff_head *q)
{
	const struct mrc_ep *ep = arg;
	u32 i, down;
	u64 now;

	if (ms->token != ep->token || ms->dead || !ms->conn ||
	    ms->state != MRC_ST_ESTABLISHED)
		return false;
	/* Answered even when nothing changes: the peer stops resending. */
	mrc_conn_port_status_answer(ms, ep->tx_ts, q);
	if (!ms->mp)
		return true;
	down = 0;
	for (i = 0; i < ms->mp->nplanes; i++)
		if (ms->mp->plane[i].id < 32 &&
		    !(ep->port_mask & BIT(ms->mp->plane[i].id)))
			down |= BIT(i);
	if (down != ms->peer_planes_down) {
		ms->peer_planes_down = down;
		now = mrc_now();
		for (i = 0; i < ms->mp->nplanes; i++)
			mrc_mp_plane_apply(ms, i, now);
		mrc_conn_drain(ms, now, q);
	}
	return true;
}

/* The answer to one of ours: it stops the retransmissions. */
static bool mrc_peer_ports_acked_one(struct mrc_sock *ms, void *arg,
				     struct sk_buff_head *q)
{
	const struct mrc_ep *ep = arg;

	if (ms->token != ep->token || ms->dead)
		return false;
	if (mrc_conn_port_status_acked(ms, ep->tx_ts))
		mrc_net_count(mrc_net(sock_net(&ms->sk)),
			      MRC_CNT_PORT_STATUS_ACKED);
	else
		mrc_net_count(mrc_net(sock_net(&ms->sk)), MRC_CNT_RX_STALE);
	return true;
}

/**
 * mrc_conn_peer_ports() - a peer announced the state of its NIC ports, or
 * answered our announcement
 * @net: namespace
 * @saddr: the peer's address (the inner source of the ERTH/EETH)
 * @ep: the endpoint header: kind MRC_EP_PORT_STATUS, the connection's
 *	token, port_mask (bit n set = its port of plane n is up, MRC 1.0
 *	PORT_STATUS_UPDATE) and the timestamp
 * @req: an update (ERTH); false: an answer (EETH)
 *
 * Softirq. An update applies to the one established connection to @saddr
 * whose token it carries: on a configured route, each of its planes whose
 * id is not in the mask is taken out of use at once (in-flight packets on
 * it are retransmitted elsewhere, no timeout is spent finding out), and
 * back when the bit returns. Plane ids of 32 and above cannot be announced
 * and are left alone. Our own port state is never overridden. The update
 * is answered (EETH, timestamp echoed). One that names no connection of
 * its source (an off-path guess needs the source address and the 16-bit
 * token) is counted as PortStatusUnmatched and changes nothing.
 */
void mrc_conn_peer_ports(struct net *net, const struct in6_addr *saddr,
			 const struct mrc_ep *ep, bool req)
{
	struct mrc_net *mn = mrc_net(net);
	u32 n;

	n = mrc_conn_for_peer(net, saddr, req ? mrc_peer_ports_one :
			      mrc_peer_ports_acked_one, (void *)ep);
	if (!n)
		mrc_net_count(mn, MRC_CNT_PORT_STATUS_UNMATCHED);
	else if (req)
		mrc_net_count(mn, MRC_CNT_RX_PORT_STATUS);
}
