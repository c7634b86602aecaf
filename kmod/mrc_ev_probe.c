// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_ev_probe.c - MRC 1.0's connectionless EV probe, answered.
 *
 * A peer built to the published specification may probe an entropy value
 * towards this host with no connection behind it: an endpoint request
 * (ERTH, opcode 0xD8, QPN 2) with op EV_PROBE, sent on the EV it probes,
 * its probe id in BTH.PSN bits 15-0. The answer is an endpoint response
 * (EETH, op EV_PROBE) that echoes the probe id and the request's
 * timestamp, which is all the prober needs to call the path good and to
 * time it (its vendor-info byte is not echoed: it means nothing to us).
 * Our own connections probe their EVs in band (PETH, answered by a SACK
 * with pr = 1, kmod/core/mrc_ev.c); this file makes a spec peer's
 * out-of-band probes work against us.
 *
 * The source of a request has proven nothing (it may be spoofed to aim
 * our answers at a victim), so answers are sent within the namespace's
 * stateless answer rate (net.mrc.handshake_answer_rate, mrc_hs_guard.c),
 * the one connect-request rejects and cookies use; an answer is 36 bytes
 * of MRC for a 28-byte request. No state is kept.
 */
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/ipv6.h>

#include "mrc_impl.h"
#include "mrc_ev_probe.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_profile.h"

/**
 * mrc_ev_probe_rcv() - an endpoint packet of kind EV_PROBE (softirq, RCU)
 * @net: namespace
 * @skb: the packet (addresses); freed by the caller
 * @pkt: decoded packet, opcode MRC_OP_EP_REQ or MRC_OP_EP_RESP
 * @oif: the interface of a link-local source, else 0
 *
 * A request is answered (EvProbesAnswered), or not within the answer
 * rate (HandshakeAnswersLimited). We send no EV probe of our own, so a
 * response answers nothing of ours: counted in RxStale and dropped.
 */
void mrc_ev_probe_rcv(struct net *net, const struct sk_buff *skb,
		      const struct mrc_pkt *pkt, int oif)
{
	const struct ipv6hdr *ip6 = ipv6_hdr(skb);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_ep ep;

	if (pkt->bth.opcode != MRC_OP_EP_REQ) {
		mrc_net_count(mn, MRC_CNT_RX_STALE);
		return;
	}
	if (!mrc_hs_answer_allowed(&mn->hs_guard, &ip6->saddr)) {
		mrc_net_count(mn, MRC_CNT_HS_LIMITED);
		return;
	}
	memset(&ep, 0, sizeof(ep));
	ep.kind = MRC_EP_EV_PROBE;
	ep.token = pkt->ep.token;
	ep.tx_ts = pkt->ep.tx_ts;
	mrc_send_ep(net, NULL, &ip6->daddr, &ip6->saddr, oif, MRC_OP_EP_RESP,
		    &ep, mrc_profile_ctl_tclass(net));
	mrc_net_count(mn, MRC_CNT_EV_PROBES_ANSWERED);
}
