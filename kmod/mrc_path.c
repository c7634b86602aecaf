// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_path.c - the path snapshot of a connection (struct mrc_mp) and the
 * state of its planes.
 *
 * A connection whose peer is covered by a configured route (mrc_cfg.h)
 * takes a snapshot of the route's planes and paths at set-up: what the
 * transmit path (mrc_output.c) reads without the configuration lock, and
 * what its engine is configured with. A plane goes down or up for it when
 * our port of that plane does (mrc_conn_plane_state(), called by this
 * file's consumer of the configuration notifier chain, mrc_path_cfg_event();
 * announced to the peer by a port-status update) or when the peer
 * announces its own port (mrc_conn_peer_ports(), mrc_port_status.c).
 */
#include <linux/gcd.h>
#include <linux/ipv6.h>
#include <linux/net.h>
#include <linux/notifier.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/l3mdev.h>
#include <linux/seg6.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_conn_k.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_path.h"
#include "mrc_port_status.h"
#include "mrc_sock.h"

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
	u32 id, i, n, m, slot = 0, mtu = 0;
	struct mrc_mp *mp;
	int tries, ret, err = 0;

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
			ret = mrc_mp_path_mtu(net, ms, mpp, mpp->first + n);
			if (ret < 0) {
				err = ret;
				continue;
			}
			m = ret;
			mtu = mtu ? min(mtu, m) : m;
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
		/*
		 * EV e goes on path entropy(e) % npaths (mrc_output.c); only a
		 * source route pins it there: without one the fabric's ECMP
		 * spreads the EVs over paths the host does not know.
		 */
		if (mp->encap != MRC_ENCAP_NONE)
			cfg->plane_paths[i] = mp->plane[i].npaths;
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

/**
 * mrc_mp_plane_apply() - tell the engine whether plane @i is usable; its
 * connection lock held, engine running
 * @ms: the connection
 * @i: engine plane (index into ms->mp->plane[])
 * @now: mrc_now()
 *
 * Up when our port of it is up and the peer did not announce its own down.
 */
void mrc_mp_plane_apply(struct mrc_sock *ms, u32 i, u64 now)
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
 * Context: process context, from the configuration chain's consumer below,
 * with the store's mutex held (netdevice events: RTNL too); takes each
 * connection lock in turn (see the lock order in mrc_impl.h).
 */
static void mrc_conn_plane_state(struct net *net, u32 id, bool up)
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

/*
 * The consumer of the configuration chain: a plane's state, as the store
 * passed it on itself before it had a chain. Process context, the store's
 * mutex held; told after the netlink event went out (MRC_CFG_PRIO_CONN).
 * MRC_CFG_PLANE_ADD is not passed on, as it never was: a connection's
 * snapshot holds the planes that existed at its set-up (mrc_mp_setup()).
 */
static int mrc_path_cfg_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	const struct mrc_cfg_notifier_info *info = ptr;

	switch (event) {
	case MRC_CFG_PLANE_DEL:
		/* Live connections keep their snapshot; the plane is down. */
		mrc_conn_plane_state(info->net, info->plane->id, false);
		break;
	case MRC_CFG_PLANE_CHANGE:
		mrc_conn_plane_state(info->net, info->plane->id, info->up);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block mrc_path_cfg_nb = {
	.notifier_call	= mrc_path_cfg_event,
	.priority	= MRC_CFG_PRIO_CONN,
};

/**
 * mrc_path_init_module() - pass plane state changes on to connections
 *
 * Registers the consumer of the configuration chain that calls
 * mrc_conn_plane_state(). It walks the pernet state of mrc_net: called
 * after mrc_net_init_module(), and before anything can raise a plane event
 * (the netdevice notifier, the netlink family).
 *
 * Return: 0 or a negative errno from mrc_cfg_register_notifier().
 */
int mrc_path_init_module(void)
{
	return mrc_cfg_register_notifier(&mrc_path_cfg_nb);
}

/**
 * mrc_path_exit_module() - stop passing plane state on
 *
 * Called once nothing raises events any more, before mrc_net_exit_module();
 * returns when no call of the consumer runs.
 */
void mrc_path_exit_module(void)
{
	mrc_cfg_unregister_notifier(&mrc_path_cfg_nb);
}
