// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_output.c - the transmit side of the wire: routes, encapsulation
 * and output.
 *
 * Packets are built under the connection lock (mrc_tx_skb.c) into a linear
 * skb (MRC headers, payload copied from the message's pages, pad, ICRC), or
 * one UDP GSO skb per flowcell, with headroom for UDP, IPv6 and an
 * encapsulation; mrc_xmit_queue() sends them after the lock is dropped:
 * UDP header (source port = EV low 16 bits, checksum offloaded or completed
 * by the stack), IPv6 header (flow label = EV high 16 bits), ip6_local_out()
 * with the connection's cached route.
 *
 * Multi-plane: a connection whose peer is covered by a configured route
 * (mrc_cfg.h) sends on the route's planes and paths, from its path
 * snapshot (struct mrc_mp, mrc_path.c): plane = EV bits 31-24 (engine
 * plane index -> configured plane), path = EV bits 23-0 % paths of that
 * plane, one dst_cache per path. Encapsulations: none (plain IPv6 out of
 * the plane's device), srh (outer IPv6 + SRH type 4 + inner IPv6) and usid
 * (outer IPv6 to the uSID container + inner IPv6); the inner header
 * carries the connection's addresses, so the peer's kernel decapsulates
 * (End.DT6) and the receive path sees a plain IPv6/UDP packet from the
 * peer's address. See Documentation/networking/mrc-datapath.rst.
 */
#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
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
#include "mrc_conn_k.h"
#include "mrc_icrc.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_path.h"
#include "mrc_profile.h"
#include "mrc_room.h"
#include "mrc_sock.h"

/* Local drops reported to the engine at a time (an on-stack batch). */
#define MRC_LOCAL_DROPS_MAX	32
/* Rounds of retransmissions of local drops per mrc_xmit_queue() call. */
#define MRC_LOCAL_DROP_ROUNDS	4

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
	struct mrc_frag_cursor fc;
	struct mrc_icrc_hdrs ih;
	u8 bth[MRC_BTH_LEN];
	u32 off, len;
	__le32 crc;

	mrc_icrc_hdrs_set(&ih, tp->saddr, tp->daddr, tp->sport, ntohs(dport));
	mrc_frag_cursor_init(&fc, skb);
	for (off = 0; off < skb->len; off += len) {
		len = min(seg, skb->len - off);
		if (len < MRC_BTH_LEN + MRC_ICRC_LEN ||
		    mrc_frag_cursor_copy(&fc, off, bth, sizeof(bth), false))
			return;
		crc = cpu_to_le32(mrc_skb_icrc(skb, off, len, &ih, bth));
		mrc_frag_cursor_copy(&fc, off + len - MRC_ICRC_LEN, &crc,
				     sizeof(crc), true);
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
 * mrc_mp_path_mtu() - the MTU of one path of a connection's snapshot
 * @net: namespace
 * @ms: the connection
 * @mpp: its engine plane
 * @slot: the path's slot
 *
 * Return: the inner IPv6 MTU (the route's, less the encapsulation), or the
 * negative errno of the route lookup.
 */
int mrc_mp_path_mtu(struct net *net, const struct mrc_sock *ms,
		    const struct mrc_mp_plane *mpp, u32 slot)
{
	struct dst_entry *dst;
	struct mrc_txp tp;
	int mtu;

	mrc_mp_txp(ms, mpp, slot, &tp);
	dst = mrc_txp_route(net, &tp, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	mtu = dst_mtu(dst) - mrc_encap_len(tp.encap, tp.path);
	dst_release(dst);
	return mtu;
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

/*
 * Send @skb on the path its EV names. Consumes @skb. Returns the stack's
 * NET_XMIT_* code (NET_XMIT_CN too) or -ENETUNREACH.
 */
static int mrc_mp_xmit(struct net *net, struct mrc_sock *ms,
		       struct sk_buff *skb, u32 ev, bool hs, u8 *planep)
{
	struct mrc_mp *mp = ms->mp;
	const struct mrc_mp_plane *mpp;
	struct dst_entry *dst;
	struct mrc_txp tp;
	u32 pi, slot;

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
	return mrc_xmit_one(net, skb, dst, &tp);
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
 * planes are closed for a while, see mrc_conn_local_drops()). Data packets
 * a queue took while dropping others (NET_XMIT_CN) shrink the window once
 * per call by their bytes and close their planes for a while, as a
 * refusal does (mrc_conn_local_congestion()).
 *
 * Called without the connection lock, in any context.
 */
void mrc_xmit_queue(struct net *net, struct mrc_sock *ms,
		    struct sk_buff_head *q)
{
	struct mrc_local_drop drops[MRC_LOCAL_DROPS_MAX];
	struct mrc_net *mn = mrc_net(net);
	u32 ev, len, segs, i, ndrops, rounds = 0, refused = 0;
	u32 cn_pkts = 0, cn_bytes = 0, cn_planes = 0;
	bool taken = false;
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
			}
		}
		if (err == NET_XMIT_SUCCESS && data)
			taken = true;
		if (err == NET_XMIT_CN) {
			/* Taken, but the queue dropped others to fit it. */
			if (data) {
				cn_pkts += segs;
				cn_bytes += len;
				if (plane < 32)
					cn_planes |= BIT(plane);
			}
			err = NET_XMIT_SUCCESS;
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
				/*
				 * Batch full: report; resends go to the tail,
				 * within the same budget of rounds as below.
				 */
				mrc_conn_local_drops(ms, drops, ndrops, !taken,
						     rounds++ < MRC_LOCAL_DROP_ROUNDS ?
						     &rq : NULL);
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
			atomic64_add(segs, &ms->plane_pkts[plane]);
			atomic64_add(len, &ms->plane_bytes[plane]);
		}
	}
	if (ndrops && rounds++ < MRC_LOCAL_DROP_ROUNDS) {
		/* @q is empty: it takes the retransmissions. */
		mrc_conn_local_drops(ms, drops, ndrops, !taken, q);
		goto again;
	}
	/* Out of rounds: the engine learns, the timer resends. */
	if (ndrops)
		mrc_conn_local_drops(ms, drops, ndrops, !taken, NULL);
	if (cn_pkts)
		mrc_conn_local_congestion(ms, cn_pkts, cn_bytes, cn_planes,
					  !taken);
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

/*
 * Route of an endpoint packet out of the plane @tp names (tp->osaddr,
 * tp->oif, tp->path), from @src, or when @src is unspecified from the inner
 * source routing picks for tp->daddr (written to @src). RCU held.
 */
static struct dst_entry *mrc_ep_plane_route(struct net *net,
					    const struct mrc_txp *tp,
					    struct in6_addr *src)
{
	if (ipv6_addr_any(src) &&
	    ipv6_dev_get_saddr(net, NULL, tp->daddr, 0, src))
		return ERR_PTR(-EADDRNOTAVAIL);
	return mrc_txp_route(net, tp, NULL);
}

/*
 * Route of an endpoint packet to a peer without an MRC route: the host's
 * own route of the UDP flow from @src (unspecified: routing picks it,
 * written to @src) through @oif (0: any), under the egress policy of
 * tp->sk; @sport and @label (network order, 0 when not given) as the packet
 * will carry them, for policy rules and multipath hashing.
 */
static struct dst_entry *mrc_ep_host_route(struct net *net,
					   const struct mrc_txp *tp,
					   struct in6_addr *src, int oif,
					   __be16 sport, __be32 label)
{
	struct dst_entry *dst;
	struct flowi6 fl6;

	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.daddr = *tp->daddr;
	fl6.saddr = *src;
	fl6.flowi6_oif = oif;
	fl6.fl6_sport = sport;
	fl6.fl6_dport = mrc_udp_dport(net);
	fl6.flowlabel = label;
	mrc_flow_policy(tp->sk, &fl6);
	dst = mrc_peer_lookup(net, &fl6);
	if (!IS_ERR(dst))
		*src = fl6.saddr;
	return dst;
}

/* An endpoint packet (ERTH/EETH) in a new skb, the ICRC left to fill. */
static struct sk_buff *mrc_ep_skb(u8 op, const struct mrc_ep *ep, u8 tclass)
{
	struct sk_buff *skb;
	struct mrc_pkt pkt;
	u32 total;

	mrc_pkt_init(&pkt, op, MRC_QPN_EP);
	pkt.ep = *ep;
	total = mrc_pkt_hdr_len(&pkt) + MRC_ICRC_LEN;
	skb = alloc_skb(MRC_HEADROOM + total, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, MRC_HEADROOM);
	if (mrc_pkt_encode(&pkt, skb_put(skb, total), total) < 0) {
		kfree_skb(skb);
		return NULL;
	}
	mrc_cb(skb)->tclass = tclass;
	return skb;
}

/**
 * mrc_send_ev_probe() - send one EV probe (ERTH op EV_PROBE) on a chosen path
 * @net: namespace
 * @daddr: the peer
 * @pl: the plane to leave on, or NULL for the host's own route to @daddr
 *	(a peer without an MRC route)
 * @encap: the route's encapsulation
 * @path: the route's path, or NULL (no paths: the plane's device)
 * @ev: the EV probed: UDP source port and flow label, as data on it
 * @ep: the body (MRC_EP_EV_PROBE, the probe id in @ep->token)
 *
 * The probe takes the path a connection's data on @ev would take, in the
 * control class. The inner source is the one routing picks for @daddr, as
 * for the handshake (mrc_send_ep()), so that the answer comes back.
 *
 * Context: RCU held, bottom halves disabled (@pl and @path are RCU
 * objects of the configuration store).
 * Return: 0 when the stack took the packet, else a negative errno.
 */
int mrc_send_ev_probe(struct net *net, const struct in6_addr *daddr,
		      const struct mrc_cfg_plane *pl, u8 encap,
		      const struct mrc_cfg_path *path, u32 ev,
		      const struct mrc_ep *ep)
{
	struct in6_addr src = in6addr_any;
	struct mrc_txp tp = {};
	struct dst_entry *dst;
	struct sk_buff *skb;
	int n;

	skb = mrc_ep_skb(MRC_OP_EP_REQ, ep, mrc_profile_ctl_tclass(net));
	if (!skb)
		return -ENOMEM;
	tp.sport = mrc_udp_sport(ev);
	tp.label = mrc_ev_to_flowlabel(ev);
	tp.daddr = daddr;
	tp.saddr = &src;
	if (pl) {
		tp.osaddr = &pl->saddr;
		tp.oif = pl->ifindex;
		tp.encap = encap;
		tp.path = path;
		dst = mrc_ep_plane_route(net, &tp, &src);
	} else {
		dst = mrc_ep_host_route(net, &tp, &src, 0, htons(tp.sport),
					htonl(tp.label) & IPV6_FLOWLABEL_MASK);
	}
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return -ENETUNREACH;
	}
	n = mrc_xmit_one(net, skb, dst, &tp);
	return net_xmit_eval(n) ? -ENOBUFS : 0;
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
	int n;

	skb = mrc_ep_skb(op, ep, tclass);
	if (!skb)
		goto err;
	tp.sk = sk;
	tp.sport = mrc_ep_udp_sport(ep->token);
	tp.daddr = daddr;
	src = *saddr;
	tp.saddr = &src;
	local_bh_disable();
	rcu_read_lock();
	rt = mrc_cfg_route_lookup(net, daddr);
	if (rt && mrc_ep_path(net, rt, &tp)) {
		dst = mrc_ep_plane_route(net, &tp, &src);
		if (IS_ERR(dst)) {
			rcu_read_unlock();
			goto noroute;
		}
		n = mrc_xmit_one(net, skb, dst, &tp);
		rcu_read_unlock();
		goto sent;
	}
	rcu_read_unlock();
	/* No port or label in the lookup, as the handshake always had. */
	dst = mrc_ep_host_route(net, &tp, &src, oif, 0, 0);
	if (IS_ERR(dst))
		goto noroute;
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
