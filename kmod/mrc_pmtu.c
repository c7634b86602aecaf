// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_pmtu.c - path MTU discovery: ICMPv6 Packet Too Big about MRC
 * packets, on every encapsulation.
 *
 * A router whose next link is narrower than a packet drops it and sends
 * a Packet Too Big (RFC 8201) to the packet's outer source, quoting it.
 * For a plain packet (encapsulation none) the quote is IPv6/UDP to our
 * port: the UDP stack lowers the route's PMTU and hands the error to the
 * namespace socket's encap_err_rcv (mrc_input.c), which calls
 * mrc_pmtu_report(). For srh and usid the quote is the outer IPv6 header
 * (and the SRH) in front of our inner IPv6/UDP: the IPv6 stack gives
 * errors quoting IPv6-in-IPv6 to the tunnel6 handlers, where mrc.ko
 * registers one (priority 2: after ip6_tunnel's, which claims only errors
 * about its own tunnels, before xfrm6_tunnel's, which claims every error
 * it sees). Its receive hook claims nothing: MRC never receives
 * IPv6-in-IPv6 itself (the peer's End.DT6 route decapsulates before the
 * protocol handlers). mrc.ko therefore needs tunnel6.ko (modprobe loads
 * it; insmod needs it loaded first).
 *
 * Either way the quoted MRC packet names the connection (peer address,
 * peer QPN, a PSN sent lately: a forged report must guess all three) and
 * the reported MTU, less the outer headers the quote shows, bounds the
 * inner packet. The connection then cuts its new packets to fit and
 * resends the larger ones in flight at once, without blaming their EVs
 * (mrc_conn_set_mtu(); with them a flowcell's short last packet, dropped
 * whole with its burst by a router that forwards the flowcell as one
 * datagram); those keep their size (a PSN's payload is fixed)
 * and leave as inner fragments (mrc_xmit_frags()). The MTU is one per
 * connection, as the engine's packets are not tied to a path until they
 * are sent, and it never grows back: a smaller packet costs a few percent
 * of goodput where a black hole would cost the path. Reports below the
 * IPv6 minimum (1280) are raised to it, as RFC 8201 requires.
 *
 * Context: softirq, RCU (the ICMPv6 receive path).
 */
#include <linux/icmpv6.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <net/ipv6.h>
#include <net/xfrm.h>

#include "mrc_impl.h"
#include "mrc_conn_k.h"
#include "mrc_lookup.h"
#include "mrc_net.h"
#include "mrc_pmtu.h"
#include "mrc_sock.h"

/* Quoted MRC bytes decoded: every header of a data packet fits. */
#define MRC_PMTU_QUOTE	128

/* Lower the MTU of @ms, quoted packet @pkt, to @pay; lock held. */
static bool mrc_pmtu_lower(struct mrc_net *mn, struct mrc_sock *ms,
			   const struct mrc_pkt *pkt, u32 pay, u32 inner,
			   struct sk_buff_head *q)
{
	u64 now;
	int n;

	lockdep_assert_held(&ms->lock);
	if (ms->dead || !ms->conn || ms->state != MRC_ST_ESTABLISHED ||
	    pay >= ms->mtu || !mrc_conn_tx_recent(ms->conn, pkt->bth.psn))
		return false;
	now = mrc_now();
	n = mrc_conn_set_mtu(ms->conn, now, pay);
	if (n < 0)
		return false;
	WRITE_ONCE(ms->mtu, pay);
	WRITE_ONCE(ms->pmtu, inner);
	mrc_net_add(mn, MRC_CNT_PMTU_RTX, n);
	mrc_conn_drain(ms, now, q);
	return true;
}

struct mrc_pmtu_arg {
	struct mrc_net *mn;
	const struct mrc_pkt *pkt;	/* the quote */
	u32 inner;			/* IPv6 packet size the path takes */
	u32 pay;			/* MRC payload per packet that fits */
};

/* The connection whose peer QPN the quote names lowers its MTU. */
static bool mrc_pmtu_one(struct mrc_sock *ms, void *arg,
			 struct sk_buff_head *q)
{
	const struct mrc_pmtu_arg *a = arg;

	if (ms->peer_qpn != a->pkt->bth.dest_qp)
		return false;
	return mrc_pmtu_lower(a->mn, ms, a->pkt, a->pay, a->inner, q);
}

/**
 * mrc_pmtu_report() - a Packet Too Big quoting one of our packets
 * @net: the namespace it arrived in
 * @skb: the ICMPv6 error
 * @mrc_off: offset in @skb of the quoted BTH
 * @daddr: inner destination of the quoted packet (the peer)
 * @mtu: the MTU the router reported
 * @encap: bytes of outer headers in front of the quoted inner IPv6 header
 *	(a quote claiming 640 or more is ignored: no encapsulation of ours
 *	is that long)
 *
 * The quote is cut short (ICMPv6 carries at most 1232 bytes of it): its
 * headers are decoded as a trimmed packet's. Every established connection
 * to @daddr whose peer QPN the quote names and that sent the quoted PSN
 * lately takes the lower MTU (mrc_lookup_for_peer(): reports are rare and
 * cheap to check).
 */
void mrc_pmtu_report(struct net *net, const struct sk_buff *skb,
		     unsigned int mrc_off, const struct in6_addr *daddr,
		     u32 mtu, u32 encap)
{
	struct mrc_net *mn = mrc_net(net);
	u8 buf[MRC_PMTU_QUOTE];
	struct mrc_pmtu_arg a;
	struct mrc_pkt pkt;
	u32 len;

	len = skb->len > mrc_off ? min_t(u32, skb->len - mrc_off, sizeof(buf))
				 : 0;
	if (!len || skb_copy_bits(skb, mrc_off, buf, len) ||
	    mrc_pkt_decode_flags(buf, len, MRC_DECODE_TRIMMED |
				 MRC_DECODE_NO_ICRC, &pkt) ||
	    !mrc_op_is_data(pkt.bth.opcode) || encap >= IPV6_MIN_MTU / 2)
		goto ignored;
	a.mn = mn;
	a.pkt = &pkt;
	a.inner = max_t(u32, mtu, IPV6_MIN_MTU) - encap;
	a.pay = mrc_mtu_for(a.inner);
	if (mrc_lookup_for_peer(net, daddr, mrc_pmtu_one, &a)) {
		mrc_net_count(mn, MRC_CNT_PTB);
		return;
	}
ignored:
	mrc_net_count(mn, MRC_CNT_PTB_IGNORED);
}

/* IPv6-in-IPv6 for this host: never ours (see the top of the file). */
static int mrc_pmtu_tnl_rcv(struct sk_buff *skb)
{
	return -ENOENT;
}

/*
 * An ICMPv6 error quoting IPv6-in-IPv6: skb->data is the quoted outer
 * header, @offset the inner one. Ours if the inner packet is UDP to our
 * port; only Packet Too Big is acted on (paths are judged by their
 * acknowledgements, not by unauthenticated ICMP).
 */
static int mrc_pmtu_tnl_err(struct sk_buff *skb, struct inet6_skb_parm *opt,
			    u8 type, u8 code, int offset, __be32 info)
{
	struct net *net = dev_net(skb->dev);
	struct ipv6hdr ip6;
	struct udphdr uh;

	if (type != ICMPV6_PKT_TOOBIG ||
	    skb_copy_bits(skb, offset, &ip6, sizeof(ip6)) ||
	    ip6.nexthdr != IPPROTO_UDP ||
	    skb_copy_bits(skb, offset + sizeof(ip6), &uh, sizeof(uh)) ||
	    uh.dest != mrc_udp_dport(net))
		return -ENOENT;
	mrc_pmtu_report(net, skb, offset + sizeof(ip6) + sizeof(uh),
			&ip6.daddr, ntohl(info), offset);
	return 0;
}

static struct xfrm6_tunnel mrc_pmtu_tnl = {
	.handler	= mrc_pmtu_tnl_rcv,
	.err_handler	= mrc_pmtu_tnl_err,
	.priority	= 2,
};

/**
 * mrc_pmtu_init_module() - receive ICMPv6 errors quoting srh/usid packets
 *
 * Return: 0 or the errno of xfrm6_tunnel_register() (EEXIST: another
 * tunnel6 handler holds priority 2).
 */
int mrc_pmtu_init_module(void)
{
	return xfrm6_tunnel_register(&mrc_pmtu_tnl, AF_INET6);
}

/**
 * mrc_pmtu_exit_module() - undo mrc_pmtu_init_module(); the deregistration
 * waits for an RCU grace period, so no handler runs after it.
 */
void mrc_pmtu_exit_module(void)
{
	xfrm6_tunnel_deregister(&mrc_pmtu_tnl, AF_INET6);
}
