// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_profile.c - a connection's EV and congestion-control profiles.
 *
 * MRC_PROFILE names two of the namespace's profiles (MRC_CMD_PROFILE_*,
 * "mrcctl profile"): one whose EV parameters and one whose congestion-
 * control parameters the connection is created with. They are read once,
 * when the handshake completes; changing or deleting a profile later only
 * affects new connections, like routes. A profile deleted between
 * setsockopt() and the handshake falls back to the documented defaults
 * (those of a fresh profile 0).
 *
 * Window sizes in a profile are per mille of a bandwidth-delay product. A
 * software datapath has no line rate to derive one from, so the kernel
 * uses MRC_K_BDP: the default 1.5 x BDP is then 256 KiB, a window the
 * netdev backlog of a veth or loopback path absorbs.
 */
#define pr_fmt(fmt) "mrc: " fmt

#include <linux/math64.h>
#include <net/inet_ecn.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_profile.h"
#include "mrc_sock.h"

#define MRC_K_BDP	174763u	/* bytes; 1.5 x MRC_K_BDP = 256 KiB */

/**
 * mrc_profile_exists() - is there a profile with this id in @net?
 * @net: namespace
 * @id: profile id
 *
 * Context: any.
 * Return: true if it exists.
 */
bool mrc_profile_exists(const struct net *net, u32 id)
{
	bool ok;

	rcu_read_lock();
	ok = mrc_cfg_profile_get(net, id);
	rcu_read_unlock();
	return ok;
}

static void mrc_profile_copy_or_default(const struct net *net, u32 id,
					struct mrc_cfg_profile *p)
{
	if (mrc_cfg_profile_copy(net, id, p))
		mrc_cfg_profile_defaults(p, id);
}

static u32 mrc_profile_wnd(u32 pm)
{
	return (u32)div_u64((u64)MRC_K_BDP * pm, 1000);
}

/**
 * mrc_profile_read() - the profiles a new connection is created with
 * @ms: the socket (options set)
 * @pr: filled: both profiles, read once so that the whole configuration of
 *	the connection comes from one version of each, and its EV count
 *	(MRC_EV_SET_SIZE if set, else the EV profile's)
 *
 * Context: any; reads the namespace's profiles under RCU.
 */
void mrc_profile_read(const struct mrc_sock *ms, struct mrc_conn_profiles *pr)
{
	const struct net *net = sock_net(&ms->sk);

	mrc_profile_copy_or_default(net, ms->opts.ev_profile, &pr->ev);
	mrc_profile_copy_or_default(net, ms->opts.cc_profile, &pr->cc);
	pr->ev_count = ms->opts.ev_count ?: pr->ev.ev_count;
}

/**
 * mrc_profile_tclass() - the traffic classes of a connection's packets
 * @ms: the socket, before it sends anything
 * @ev: its EV profile
 *
 * Data: the profile's DSCP, ECN-capable (ECT(0)): an AQM marks it instead
 * of dropping it, and the receiver's M field and NSCC take the mark.
 * Control packets: the profile's control DSCP, Not-ECT, as TCP's pure
 * ACKs (RFC 3168). The spec's third class, trimmed, is the switches' to
 * set on the headers they keep; a receiver recognises a trim by its
 * length, whatever the class.
 */
void mrc_profile_tclass(struct mrc_sock *ms, const struct mrc_cfg_profile *ev)
{
	WRITE_ONCE(ms->tclass_data, (ev->dscp << 2) | INET_ECN_ECT_0);
	WRITE_ONCE(ms->tclass_ctl, ev->dscp_ctl << 2);
}

/**
 * mrc_profile_ctl_tclass() - the traffic class of answers no connection
 * stands behind (rejects, cookie answers): profile 0's control class
 * @net: the namespace
 *
 * Return: IPv6 traffic class (DSCP << 2, Not-ECT).
 */
u8 mrc_profile_ctl_tclass(const struct net *net)
{
	struct mrc_cfg_profile p;

	mrc_profile_copy_or_default(net, 0, &p);
	return p.dscp_ctl << 2;
}

/**
 * mrc_profile_apply() - put the connection's profiles into its engine config
 * @ms: the socket
 * @pr: its profiles (mrc_profile_read())
 * @cfg: engine configuration, planes and EV counts already filled
 *
 * The EV profile may lower the active EVs per plane and set the floor of
 * usable active EVs (0 keeps what the plane layout derived) and sets the
 * flowcell length; the CC profile picks the algorithm and its parameters.
 */
void mrc_profile_apply(struct mrc_sock *ms, const struct mrc_conn_profiles *pr,
		       struct mrc_conn_cfg *cfg)
{
	const struct mrc_cfg_profile *p = &pr->ev;
	u32 act;

	if (p->ev_active_per_plane) {
		act = min(p->ev_active_per_plane, cfg->ev_per_plane);
		cfg->ev_active_per_plane = act;
		cfg->ev_min_active = min(cfg->ev_min_active, act * cfg->n_planes);
	}
	if (p->ev_min_active)
		cfg->ev_min_active = min(p->ev_min_active,
					 cfg->ev_active_per_plane * cfg->n_planes);

	ms->tx_burst = mrc_burst_max(ms->mtu, p->ev_burst);
	mrc_profile_tclass(ms, p);

	p = &pr->cc;
	/* The uapi ids are the engine's (BUILD_BUG_ON in mrc_cfg.c). */
	cfg->cc_algo = p->cc_algo <= MRC_CC_ALGO_MAX ? p->cc_algo : MRC_CC_NSCC;
	cfg->cc.target_qdelay_pm = p->cc_target_delay_pm;
	cfg->cc.gamma_pm = p->cc_gamma_pm;
	cfg->cc.max_md_pm = p->cc_max_md_pm;
	cfg->cc.max_wnd_bytes = max(mrc_profile_wnd(p->cc_max_wnd_pm), ms->mtu);
	cfg->cc.init_wnd_bytes = clamp(mrc_profile_wnd(p->cc_init_wnd_pm),
				       ms->mtu, cfg->cc.max_wnd_bytes);
	cfg->cc.link_mbps = p->cc_link_mbps;
	cfg->iw_share = p->cc_init_wnd_shared ?
			&mrc_net(sock_net(&ms->sk))->iw_share : NULL;
	ms->cc_algo = cfg->cc_algo;
}
