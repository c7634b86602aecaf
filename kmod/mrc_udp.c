// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_udp.c - the wire side of mrc.ko: the per-namespace UDP socket that
 * receives every MRC packet (port MRC_UDP_PORT), the decoder front end and
 * its drop counters, and the transmit path (skb layout, routes, output).
 *
 * Receive: the socket is a UDP encapsulation socket (the rxe/vxlan
 * pattern, set up by hand so that mrc.ko does not depend on the
 * udp_tunnel modules). udp_queue_rcv_skb() has verified the UDP checksum
 * when mrc_udp_rcv() runs, in softirq context under rcu_read_lock(). The
 * packet is linearised, decoded and validated (ICRC included) by the
 * engine's codec, then handed to the connection found by BTH.dest_qp, or
 * to the handshake code for the endpoint QP (MRC_QPN_EP). Every outcome
 * that drops a packet increments exactly one counter of /proc/net/mrc.
 *
 * Transmit: packets are built under the connection lock into a linear skb
 * (MRC headers, payload copied from the message's pages, pad, ICRC) with
 * headroom for UDP, IPv6 and an encapsulation; mrc_xmit_queue() sends them
 * after the lock is dropped: UDP header (source port = EV low 16 bits,
 * checksum offloaded or completed by the stack), IPv6 header (flow label =
 * EV high 16 bits), ip6_local_out() with the connection's cached route.
 */
#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/addrconf.h>
#include <net/inet_ecn.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include "mrc_impl.h"

/* Headroom of every MRC skb: link layer, outer IPv6 + SRH, IPv6, UDP. */
#define MRC_SRH_MAX		(8 + 16 * 9)
#define MRC_HEADROOM		(LL_MAX_HEADER + 2 * sizeof(struct ipv6hdr) + \
				 MRC_SRH_MAX + sizeof(struct udphdr))

/* What the transmit path needs from the build step. */
struct mrc_skb_cb {
	u32 ev;
	u8 plane;
};

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

/*
 * encap_rcv of the namespace's UDP socket. Return 0: the skb is ours
 * (consumed or freed), never handed back to UDP.
 */
static int mrc_udp_rcv(struct sock *usk, struct sk_buff *skb)
{
	struct net *net = sock_net(usk);
	struct mrc_net *mn = mrc_net(net);
	u32 len, ev, flags = 0;
	struct ipv6hdr *ip6;
	struct udphdr *uh;
	struct mrc_pkt pkt;
	u8 *data;
	int err;

	mrc_net_count(mn, MRC_CNT_RX_PKTS);
	if (skb->protocol != htons(ETH_P_IPV6)) {
		mrc_net_count(mn, MRC_CNT_RX_BAD_HDR);
		goto drop;
	}
	if (skb_linearize(skb)) {
		mrc_net_count(mn, MRC_CNT_RX_NOMEM);
		goto drop;
	}
	uh = udp_hdr(skb);
	len = ntohs(uh->len);
	if (len < sizeof(*uh) ||
	    (u8 *)uh + len > skb_tail_pointer(skb)) {
		mrc_net_count(mn, MRC_CNT_RX_TRUNC);
		goto drop;
	}
	len -= sizeof(*uh);
	data = (u8 *)(uh + 1);
	err = mrc_pkt_decode(data, len, &pkt);
	if (err == MRC_WIRE_ETRUNC && len >= MRC_BTH_LEN &&
	    mrc_op_is_data(data[0])) {
		/* A switch cut the payload and kept the headers: a trim. */
		err = mrc_pkt_decode_flags(data, len, MRC_DECODE_TRIMMED, &pkt);
		if (!err && len == mrc_pkt_hdr_len(&pkt))
			flags |= MRC_RXF_TRIMMED;
		else
			err = MRC_WIRE_ETRUNC;
	}
	if (err) {
		mrc_net_count(mn, mrc_wire_err_counter(err));
		goto drop;
	}
	ip6 = ipv6_hdr(skb);
	ev = mrc_ev_from_wire(ntohs(uh->source), ntohl(ip6_flowlabel(ip6)));
	if (INET_ECN_is_ce(ipv6_get_dsfield(ip6)))
		flags |= MRC_RXF_ECN_CE;
	if (pkt.bth.dest_qp == MRC_QPN_EP)
		mrc_conn_rcv_ep(net, skb, &pkt);
	else
		mrc_conn_rcv(net, skb, &pkt, ev, flags);
	consume_skb(skb);
	return 0;
drop:
	kfree_skb(skb);
	return 0;
}

/**
 * mrc_udp_get() - make sure the namespace's UDP socket exists
 * @net: the namespace
 *
 * Created when the namespace is (so that every namespace answers a
 * connect request, if only with a reject), or on first use (connect(),
 * listen()) if the port was busy then. Process context.
 *
 * Return: 0, or the errno of creating or binding it (EADDRINUSE when
 * another socket holds the port).
 */
int mrc_udp_get(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons(MRC_UDP_PORT),
	};
	struct socket *sock;
	struct sock *sk;
	int err = 0;

	if (READ_ONCE(mn->udp_sock))
		return 0;
	mutex_lock(&mn->udp_mutex);
	if (mn->udp_sock)
		goto out;
	err = sock_create_kern(net, AF_INET6, SOCK_DGRAM, IPPROTO_UDP, &sock);
	if (err)
		goto out;
	sk = sock->sk;
	ip6_sock_set_v6only(sk);
	err = kernel_bind(sock, (struct sockaddr *)&sin6, sizeof(sin6));
	if (err) {
		pr_info_ratelimited("cannot bind UDP port %u: %d\n",
				    MRC_UDP_PORT, err);
		sock_release(sock);
		goto out;
	}
	/* What setup_udp_tunnel_sock() does, without the module dependency. */
	inet_sk(sk)->mc_loop = 0;
	inet_inc_convert_csum(sk);
	rcu_assign_sk_user_data(sk, mn);
	udp_sk(sk)->encap_type = 1;
	udp_sk(sk)->encap_rcv = mrc_udp_rcv;
	udp_tunnel_encap_enable(sk);
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
	fl6->flowi6_oif = ms->peer.smrc_scope_id;
	fl6->fl6_dport = htons(MRC_UDP_PORT);
	if (dc) {
		dst = dst_cache_get_ip6(dc, &fl6->saddr);
		if (dst) {
			*dstp = dst;
			return 0;
		}
	}
	dst = ip6_dst_lookup_flow(net, NULL, fl6, NULL);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	if (dc)
		dst_cache_set_ip6(dc, dst, &fl6->saddr);
	*dstp = dst;
	return 0;
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
	memset(buf + hlen + plen, 0, pad);
	mrc_pkt_finish(buf, hlen + plen + pad, total);
	mrc_cb(skb)->ev = ev;
	mrc_cb(skb)->plane = mrc_ev_plane(ev);
	return skb;
err:
	mrc_net_count(mn, MRC_CNT_TX_ERR);
	return NULL;
}

/*
 * Push UDP and IPv6 headers in front of the MRC packet at skb->data and
 * send it. Consumes @skb and a reference on @dst.
 */
static int mrc_xmit_one(struct net *net, struct sk_buff *skb,
			struct dst_entry *dst, const struct in6_addr *saddr,
			const struct in6_addr *daddr, u16 sport, u32 label)
{
	struct ipv6hdr *ip6h;
	struct udphdr *uh;
	int len;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(sport);
	uh->dest = htons(MRC_UDP_PORT);
	len = skb->len;
	uh->len = htons(len);
	uh->check = 0;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_dst_set(skb, dst);
	udp6_set_csum(false, skb, saddr, daddr, len);

	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, 0, htonl(label) & IPV6_FLOWLABEL_MASK);
	ip6h->payload_len = htons(len);
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	ip6h->saddr = *saddr;
	ip6h->daddr = *daddr;
	skb->protocol = htons(ETH_P_IPV6);
	/* The MTU was chosen from the route; if it shrank, fragment. */
	skb->ignore_df = 1;
	return ip6_local_out(net, NULL, skb);
}

/**
 * mrc_xmit_queue() - send the packets a connection built
 * @net: namespace
 * @ms: the connection (route cache, addresses, per-plane counters)
 * @q: skbs from mrc_build_pkt(); emptied
 *
 * Called without the connection lock, in any context.
 */
void mrc_xmit_queue(struct net *net, struct mrc_sock *ms,
		    struct sk_buff_head *q)
{
	struct mrc_net *mn = mrc_net(net);
	const struct in6_addr *daddr;
	struct dst_entry *dst;
	struct sk_buff *skb;
	struct flowi6 fl6;
	u32 ev, len;
	u8 plane;
	int err;

	if (skb_queue_empty(q))
		return;
	daddr = (const struct in6_addr *)ms->peer.smrc_addr;
	local_bh_disable();
	while ((skb = __skb_dequeue(q)) != NULL) {
		ev = mrc_cb(skb)->ev;
		plane = mrc_cb(skb)->plane;
		len = skb->len;
		err = mrc_route(net, ms, ms->dst_ok ? &ms->dst_cache : NULL,
				&fl6, &dst);
		if (err) {
			mrc_net_count(mn, MRC_CNT_TX_NOROUTE);
			kfree_skb(skb);
			continue;
		}
		err = mrc_xmit_one(net, skb, dst, &ms->saddr, daddr,
				   mrc_udp_sport(ev), mrc_ev_to_flowlabel(ev));
		if (net_xmit_eval(err)) {
			mrc_net_count(mn, MRC_CNT_TX_ERR);
			continue;
		}
		mrc_net_count(mn, MRC_CNT_TX_PKTS);
		if (plane < MRC_INFO_PLANES) {
			WRITE_ONCE(ms->plane_pkts[plane], ms->plane_pkts[plane] + 1);
			WRITE_ONCE(ms->plane_bytes[plane],
				   ms->plane_bytes[plane] + len);
		}
	}
	local_bh_enable();
}

/**
 * mrc_send_ep() - send one endpoint (handshake) packet, uncached route
 * @net: namespace
 * @saddr: source address (unspecified: chosen by routing)
 * @daddr: destination
 * @oif: output interface (link-local peers), else 0
 * @op: MRC_OP_EP_REQ or MRC_OP_EP_RESP
 * @ep: the body
 *
 * Any context, no lock needed.
 */
void mrc_send_ep(struct net *net, const struct in6_addr *saddr,
		 const struct in6_addr *daddr, int oif, u8 op,
		 const struct mrc_ep *ep)
{
	struct mrc_net *mn = mrc_net(net);
	struct dst_entry *dst;
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
	memset(&fl6, 0, sizeof(fl6));
	fl6.flowi6_proto = IPPROTO_UDP;
	fl6.daddr = *daddr;
	fl6.saddr = *saddr;
	fl6.flowi6_oif = oif;
	fl6.fl6_dport = htons(MRC_UDP_PORT);
	local_bh_disable();
	dst = ip6_dst_lookup_flow(net, NULL, &fl6, NULL);
	if (IS_ERR(dst)) {
		local_bh_enable();
		mrc_net_count(mn, MRC_CNT_TX_NOROUTE);
		kfree_skb(skb);
		return;
	}
	n = mrc_xmit_one(net, skb, dst, &fl6.saddr, daddr, MRC_UDP_PORT, 0);
	local_bh_enable();
	mrc_net_count(mn, net_xmit_eval(n) ? MRC_CNT_TX_ERR : MRC_CNT_TX_PKTS);
	return;
err:
	mrc_net_count(mn, MRC_CNT_TX_ERR);
}
