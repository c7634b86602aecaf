// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_ev_probe.c - MRC 1.0's connectionless EV probes, both ways.
 *
 * An EV probe is an endpoint request (ERTH, opcode 0xD8, QPN 2) with op
 * EV_PROBE, sent on the EV it probes, its probe id in BTH.PSN bits 15-0,
 * with no connection behind it. The answer is an endpoint response (EETH,
 * op EV_PROBE) that echoes the probe id and the request's timestamp, which
 * is all the prober needs to call the path good and to time it.
 *
 * Answering: a peer built to the published specification may probe an EV
 * towards this host. Its source has proven nothing (it may be spoofed to
 * aim our answers at a victim), so answers are sent within the namespace's
 * stateless answer rate (net.mrc.handshake_answer_rate, mrc_hs_guard.c),
 * the one connect-request rejects and cookies use; an answer is 36 bytes
 * of MRC for a 28-byte request. No state is kept.
 *
 * Probing: our connections probe their own EVs in band (PETH, answered by
 * a SACK with pr = 1, kmod/core/mrc_ev.c), as MRC 1.0's reliability probe
 * does. The connectionless probe is what checks paths with no connection
 * on them: MRC_CMD_EV_PROBE (mrcctl probe) sends a few EVs on every path
 * of the route to a peer, out of every plane, as data to that peer would
 * leave (source port and flow label from the EV, the path's SRv6
 * encapsulation), and reports which EVs were answered and in what time:
 * a fabric engineer's ping for each plane and spine, before or beside the
 * traffic. A run's probes wait in the namespace's list of runs; an answer
 * must come from the address probed, carry the id of a probe of a run in
 * flight and echo that probe's timestamp, else it is RxStale.
 */
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_ev_probe.h"
#include "mrc_input.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_profile.h"

/*
 * Runs in flight per namespace: each holds a task in the netlink request
 * and MRC_PROBE_MAX slots (about 12 KiB).
 */
#define MRC_EV_PROBE_RUNS_MAX	4

/**
 * mrc_ev_probes_init() - a namespace's EV probe runs, none yet
 * @p: in struct mrc_net
 */
void mrc_ev_probes_init(struct mrc_ev_probes *p)
{
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->runs);
	p->nruns = 0;
	p->next_id = (u16)get_random_u32();
}

/*
 * An answer (EETH op EV_PROBE) from @saddr: the probe of a run in flight
 * it names, if it echoes that probe's timestamp. Receive softirq.
 */
static void mrc_ev_probe_answer(struct mrc_net *mn,
				const struct in6_addr *saddr,
				const struct mrc_ep *ep)
{
	struct mrc_ev_probes *p = &mn->ev_probes;
	struct mrc_ev_probe_slot *sl;
	struct mrc_ev_probe_run *run;
	bool matched = false;
	u64 now = mrc_now();
	u16 i;

	spin_lock(&p->lock);
	list_for_each_entry(run, &p->runs, node) {
		i = ep->token - run->first_id;
		if (i >= run->n || !ipv6_addr_equal(&run->peer, saddr))
			continue;
		sl = &run->slot[i];
		if (sl->err || sl->answered || sl->tx_ts != ep->tx_ts)
			break;
		sl->answered = true;
		sl->rtt_ns = now - sl->sent_ns;
		matched = true;
		if (!--run->pending)
			wake_up(&run->wq);
		break;
	}
	spin_unlock(&p->lock);
	mrc_net_count(mn, matched ? MRC_CNT_EV_PROBES_REPLIED :
				    MRC_CNT_RX_STALE);
}

/*
 * Send the next probe of @run on @pl/@path (@err: not sent, why). The slot
 * is on the run before the probe leaves: the answer may arrive before
 * mrc_send_ev_probe() returns. Bottom halves are enabled again after each
 * probe, so that on a veth path its answer is processed then and not after
 * the last probe (its round-trip time would include the others' sending).
 * RCU held.
 */
static void mrc_ev_probe_one(struct net *net, struct mrc_ev_probe_run *run,
			     const struct mrc_cfg_route *rt,
			     const struct mrc_cfg_plane *pl, u32 path, int err)
{
	struct mrc_ev_probes *p = &mrc_net(net)->ev_probes;
	struct mrc_ev_probe_slot *sl;
	struct mrc_ep ep = {};
	u32 ev;

	do {
		ev = get_random_u32();
	} while (!mrc_ev_sport_ok(mrc_ev_to_udp_sport(ev)));
	ep.kind = MRC_EP_EV_PROBE;
	ep.ftype = MRC_TS_FTYPE;
	spin_lock_bh(&p->lock);
	sl = &run->slot[run->n];
	sl->plane = pl ? pl->id : MRC_EV_PROBE_NO_PLANE;
	sl->path = path;
	sl->ev = ev;
	sl->err = err;
	sl->sent_ns = mrc_now();
	sl->tx_ts = (u16)(sl->sent_ns / MRC_TS_UNIT_NS);
	ep.token = run->first_id + run->n;
	ep.tx_ts = sl->tx_ts;
	run->n++;
	if (!err)
		run->pending++;
	spin_unlock_bh(&p->lock);
	if (err)
		return;
	local_bh_disable();
	err = mrc_send_ev_probe(net, &run->peer, pl, rt ? rt->encap : 0,
				rt && path != MRC_EV_PROBE_NO_PATH ?
				&rt->paths[path] : NULL, ev, &ep);
	local_bh_enable();
	if (!err) {
		mrc_net_count(mrc_net(net), MRC_CNT_EV_PROBES_SENT);
		return;
	}
	spin_lock_bh(&p->lock);
	if (!sl->answered) {
		sl->err = err;
		run->pending--;
	}
	spin_unlock_bh(&p->lock);
}

/* Whether @pl carries data now (a probe out of a down plane is not sent). */
static int mrc_ev_probe_plane_err(struct net *net,
				  const struct mrc_cfg_plane *pl)
{
	return pl->admin_up && mrc_cfg_plane_oper_up(net, pl) ? 0 : -ENETDOWN;
}

/*
 * Probes to send for @rt (NULL: none): @evs per path of every configured
 * plane, or per plane for a route without paths, or @evs on the host's
 * route. RCU held.
 */
static u32 mrc_ev_probe_count(struct net *net, const struct mrc_cfg_route *rt,
			      u32 evs)
{
	u32 id, n = 0;

	if (!rt)
		return evs;
	if (rt->npaths)
		return rt->npaths * evs;
	for (id = 0; id < MRC_PLANES_NR; id++)
		if (mrc_cfg_plane_get(net, id))
			n += evs;
	return n;
}

/* Send every probe of @run. RCU held. */
static void mrc_ev_probe_send_all(struct net *net, struct mrc_ev_probe_run *run,
				  const struct mrc_cfg_route *rt, u32 evs)
{
	const struct mrc_cfg_plane *pl;
	u32 id, i, k;

	if (!rt) {
		for (k = 0; k < evs; k++)
			mrc_ev_probe_one(net, run, NULL, NULL,
					 MRC_EV_PROBE_NO_PATH, 0);
		return;
	}
	for (i = 0; i < rt->npaths; i++) {
		pl = mrc_cfg_plane_get(net, rt->paths[i].plane);
		for (k = 0; pl && k < evs; k++)
			mrc_ev_probe_one(net, run, rt, pl, i,
					 mrc_ev_probe_plane_err(net, pl));
	}
	if (rt->npaths)
		return;
	for (id = 0; id < MRC_PLANES_NR; id++) {
		pl = mrc_cfg_plane_get(net, id);
		for (k = 0; pl && k < evs; k++)
			mrc_ev_probe_one(net, run, rt, pl, MRC_EV_PROBE_NO_PATH,
					 mrc_ev_probe_plane_err(net, pl));
	}
}

/**
 * mrc_ev_probe_run() - probe the paths to a peer, wait for the answers
 * @net: namespace
 * @peer: the address probed
 * @evs: EVs per path, 1..MRC_PROBE_EVS_MAX
 * @timeout_ms: how long to wait, 1..MRC_PROBE_TIMEOUT_MS_MAX
 * @extack: why not
 *
 * Sends @evs EV probes, each with a random EV, on every path of the MRC
 * route to @peer (every plane of a route without paths; the host's own
 * route when there is none) and sleeps until all are answered, @timeout_ms
 * passed or a signal came. A path whose plane is down gets its probes
 * reported unsent (ENETDOWN); a path of a plane no longer configured, none.
 *
 * Context: process, may sleep (the netlink request; the family runs with
 * parallel_ops).
 * Return: the run, off the list, for the caller to report and kfree(); or
 * ERR_PTR(-EBUSY) (MRC_EV_PROBE_RUNS_MAX in flight), -E2BIG (more than
 * MRC_PROBE_MAX probes), -ENOMEM, or the errno of opening the namespace's
 * UDP port (mrc_udp_get(): EADDRINUSE when another socket holds it).
 */
struct mrc_ev_probe_run *mrc_ev_probe_run(struct net *net,
					  const struct in6_addr *peer,
					  u32 evs, u32 timeout_ms,
					  struct netlink_ext_ack *extack)
{
	struct mrc_ev_probes *p = &mrc_net(net)->ev_probes;
	struct mrc_ev_probe_run *run;
	struct mrc_cfg_route *rt;
	int err;
	u32 n;

	/* The answers come back to it, and our packets leave from its port. */
	err = mrc_udp_get(net);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot open the namespace's MRC UDP port");
		return ERR_PTR(err);
	}
	run = kzalloc(struct_size(run, slot, MRC_PROBE_MAX), GFP_KERNEL_ACCOUNT);
	if (!run)
		return ERR_PTR(-ENOMEM);
	run->peer = *peer;
	init_waitqueue_head(&run->wq);
	spin_lock_bh(&p->lock);
	if (p->nruns >= MRC_EV_PROBE_RUNS_MAX) {
		err = -EBUSY;
	} else {
		p->nruns++;
		run->first_id = p->next_id;
		p->next_id += MRC_PROBE_MAX;
		list_add_tail(&run->node, &p->runs);
	}
	spin_unlock_bh(&p->lock);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "too many EV probe runs in flight");
		kfree(run);
		return ERR_PTR(err);
	}

	rcu_read_lock();
	rt = mrc_cfg_route_lookup(net, peer);
	n = mrc_ev_probe_count(net, rt, evs);
	if (n > MRC_PROBE_MAX)
		err = -E2BIG;
	else
		mrc_ev_probe_send_all(net, run, rt, evs);
	rcu_read_unlock();

	if (!err)
		wait_event_interruptible_timeout(run->wq, !READ_ONCE(run->pending),
						 msecs_to_jiffies(timeout_ms));
	spin_lock_bh(&p->lock);
	list_del(&run->node);
	p->nruns--;
	spin_unlock_bh(&p->lock);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "more probes (paths x evs) than MRC_PROBE_MAX");
		kfree(run);
		return ERR_PTR(err);
	}
	return run;
}

/**
 * mrc_ev_probe_rcv() - an endpoint packet of kind EV_PROBE (softirq, RCU)
 * @net: namespace
 * @skb: the packet (addresses); freed by the caller
 * @pkt: decoded packet, opcode MRC_OP_EP_REQ or MRC_OP_EP_RESP
 * @oif: the interface of a link-local source, else 0
 *
 * A request is answered (EvProbesAnswered), or not within the answer
 * rate (HandshakeAnswersLimited). A response is matched to a probe of
 * ours in flight (EvProbesReplied), or counted in RxStale and dropped.
 */
void mrc_ev_probe_rcv(struct net *net, const struct sk_buff *skb,
		      const struct mrc_pkt *pkt, int oif)
{
	const struct ipv6hdr *ip6 = ipv6_hdr(skb);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_ep ep;

	if (pkt->bth.opcode != MRC_OP_EP_REQ) {
		mrc_ev_probe_answer(mn, &ip6->saddr, &pkt->ep);
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
