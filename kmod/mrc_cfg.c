// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_cfg.c - per network namespace configuration store of mrc.ko: planes,
 * routes and EV/CC profiles, with a lockless read side for the datapath.
 *
 * Locking
 * =======
 *  - struct mrc_cfg_net.lock (mutex) serialises every writer of one
 *    namespace: the netlink handlers (process context; no RTNL, the family
 *    runs with parallel_ops) and the netdevice notifier (process context,
 *    RTNL held). Lock order: RTNL, then mrc_cfg_net.lock. Nothing here
 *    takes RTNL, so the order never inverts.
 *  - Changes are reported upward only through the configuration notifier
 *    chain (mrc_cfg_chain, below); this file calls no layer above it.
 *    Events are raised with mrc_cfg_net.lock held, right after the change
 *    is applied (and published), so every consumer sees the events of a
 *    namespace in the order the changes were applied. The consumers: the
 *    netlink family (mrc_nl_cfg.c: MRC_CMD_*_NTF to the "events" group)
 *    first, then the path layer (mrc_path.c: a plane's state passed on to
 *    the connections using it, each connection's spinlock taken in turn),
 *    by their priorities (enum mrc_cfg_notifier_prio).
 *  - The chain is a blocking notifier chain. Every event is raised in
 *    process context with the mutex held (netdevice events: RTNL too; the
 *    netdevice chain calls its notifiers in process context, carrier
 *    changes from the linkwatch work), never under a spinlock nor inside
 *    an RCU read-side section (mrc_cfg_route_add() leaves its RCU section
 *    first). The consumers may sleep: the netlink one allocates with
 *    GFP_KERNEL. That rules out an atomic chain (callbacks under
 *    rcu_read_lock(), must not sleep). A raw chain leaves it to its users
 *    to keep (un)registration away from running calls: the netdevice chain
 *    has RTNL for that, our writers share no such lock (the netlink
 *    handlers do not take RTNL; the mutex is per namespace). The blocking
 *    chain's rw_semaphore is that exclusion: a call holds it for reading, so
 *    mrc_cfg_unregister_notifier() returns only once no callback of the
 *    consumer runs, which module exit needs; configuration changes are rare
 *    and off the datapath, so its cost does not matter (an SRCU chain would
 *    make calls cheaper and unregistration dearer, for nothing).
 *    Lock order: RTNL -> mrc_cfg_net.lock -> the chain's rwsem (read) ->
 *    what the consumers take (mrc_sock.lock, netlink internals; see
 *    mrc_impl.h). Registration takes the rwsem for writing with none of
 *    these held (module init and exit), so the order never inverts. A
 *    consumer must never change the configuration from its callback.
 *  - Readers (datapath, softirq or process context) take no lock: planes[],
 *    profiles[] and the route hash are RCU-protected; published objects are
 *    never modified (copy, publish, kfree_rcu the old one).
 *  - len_used (prefix lengths in use) is read without the lock. A writer sets
 *    a length's bit before a route of that length is linked and clears it
 *    after the last one is unlinked, so a racing lookup at worst probes an
 *    empty bucket or misses a route being added or removed at that moment,
 *    exactly what RCU allows anyway.
 *  - nroutes, len_refs, oper_mask and changes are written under the lock;
 *    gen and nroutes are read with READ_ONCE for dumps and counters.
 *  - Counters (rejects, events) are atomic64_t, read racily.
 *  - Routes carry a refcount (one for the table, one per holder); the last
 *    put frees them with kfree_rcu. Planes and profiles have none.
 *
 * Nothing in this file runs in softirq except the lookup functions, which
 * neither sleep nor allocate.
 */
#include <linux/bitmap.h>
#include <linux/hashtable.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/netns/generic.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_engine.h"

#define MRC_ROUTE_HASH_BITS	8
#define MRC_PREFIX_LENS		129

/**
 * struct mrc_cfg_net - configuration of one namespace
 * @lock:      serialises writers, see the locking block above
 * @planes:    planes by id (RCU)
 * @profiles:  profiles by id (RCU); [0] always set
 * @routes:    routes hashed by (masked prefix, length) (RCU)
 * @len_used:  prefix lengths with at least one route (lockless readers)
 * @len_refs:  routes per prefix length
 * @nroutes:   routes in @routes
 * @oper_mask: last operational state reported per plane
 * @gen:       bumped on every change; dump consistency cookie
 * @changes:   configuration changes applied
 * @events:    notifications sent
 * @rejects:   handler rejections by enum mrc_cfg_reject
 */
struct mrc_cfg_net {
	struct mutex lock;	/* see the locking block above */
	struct mrc_cfg_plane __rcu *planes[MRC_PLANES_NR];
	struct mrc_cfg_profile __rcu *profiles[MRC_PROFILES_NR];
	DECLARE_HASHTABLE(routes, MRC_ROUTE_HASH_BITS);
	DECLARE_BITMAP(len_used, MRC_PREFIX_LENS);
	u16 len_refs[MRC_PREFIX_LENS];
	u32 nroutes;
	u32 oper_mask;
	u32 gen;
	u64 changes;
	atomic64_t events;
	atomic64_t rejects[__MRC_REJ_MAX];
};

static unsigned int mrc_cfg_net_id __read_mostly;
static bool mrc_cfg_exiting;

static struct mrc_cfg_net *mrc_cfg_net(const struct net *net)
{
	return net_generic(net, mrc_cfg_net_id);
}

/* Called with cn->lock held after every applied change. */
static void mrc_cfg_changed(struct mrc_cfg_net *cn)
{
	u32 gen = cn->gen + 1;

	/* 0 would disable nl_dump_check_consistent(); skip it. */
	WRITE_ONCE(cn->gen, gen ? gen : 1);
	cn->changes++;
}

static u32 mrc_route_hash(const struct in6_addr *pfx, u8 len)
{
	return __ipv6_addr_jhash(pfx, len);
}

/* ------------------------------------------------------------------ */
/* Notifier chain                                                     */
/* ------------------------------------------------------------------ */

/* Module-wide: the namespace travels in the info. See the locking block. */
static BLOCKING_NOTIFIER_HEAD(mrc_cfg_chain);

/**
 * mrc_cfg_register_notifier() - hear of configuration changes
 * @nb: the consumer; @nb->priority orders it among the others (higher
 *      first, enum mrc_cfg_notifier_prio)
 *
 * @nb->notifier_call gets an enum mrc_cfg_event and a struct
 * mrc_cfg_notifier_info, in process context, with the namespace's
 * configuration mutex held (and RTNL for changes from netdevice events):
 * it may sleep and allocate with GFP_KERNEL, must not change the
 * configuration, and should return NOTIFY_DONE (an event cannot be
 * vetoed, the change is applied already). Events that happen while no
 * consumer is registered are not replayed.
 *
 * Context: process context, no lock of the module held.
 * Return: 0 or a negative errno (-EEXIST: @nb is registered already).
 */
int mrc_cfg_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&mrc_cfg_chain, nb);
}

/**
 * mrc_cfg_unregister_notifier() - stop hearing of configuration changes
 * @nb: a consumer registered with mrc_cfg_register_notifier()
 *
 * Waits for a call of @nb in progress; once it returns, @nb is never
 * called again.
 *
 * Context: process context, no lock of the module held.
 * Return: 0, or -ENOENT if @nb was not registered.
 */
int mrc_cfg_unregister_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&mrc_cfg_chain, nb);
}

/* Raise a plane event; right after the change, with cn->lock held. */
static void mrc_cfg_notify_plane(struct mrc_cfg_net *cn, struct net *net,
				 enum mrc_cfg_event event,
				 const struct mrc_cfg_plane *pl, bool up)
{
	struct mrc_cfg_notifier_info info = {
		.net = net,
		.plane = pl,
		.up = up,
	};

	lockdep_assert_held(&cn->lock);
	blocking_notifier_call_chain(&mrc_cfg_chain, event, &info);
}

/* Raise a route event; right after the change, with cn->lock held. */
static void mrc_cfg_notify_route(struct mrc_cfg_net *cn, struct net *net,
				 enum mrc_cfg_event event,
				 const struct mrc_cfg_route *rt)
{
	struct mrc_cfg_notifier_info info = {
		.net = net,
		.route = rt,
	};

	lockdep_assert_held(&cn->lock);
	blocking_notifier_call_chain(&mrc_cfg_chain, event, &info);
}

/* ------------------------------------------------------------------ */
/* Read side                                                          */
/* ------------------------------------------------------------------ */

/**
 * mrc_cfg_plane_get() - a plane of a namespace
 * @net: the namespace
 * @id:  plane id
 *
 * Context: inside an RCU read-side section (or softirq).
 * Return: the plane, valid until the section ends, or NULL if @id is out
 * of range or not configured. Never modify it.
 */
const struct mrc_cfg_plane *mrc_cfg_plane_get(const struct net *net, u32 id)
{
	if (id >= MRC_PLANES_NR)
		return NULL;
	return rcu_dereference(mrc_cfg_net(net)->planes[id]);
}

/**
 * mrc_cfg_profile_get() - a profile of a namespace
 * @net: the namespace
 * @id:  profile id (0 always exists)
 *
 * Context: inside an RCU read-side section (or softirq).
 * Return: the profile, valid until the section ends, or NULL. Never modify
 * it.
 */
const struct mrc_cfg_profile *mrc_cfg_profile_get(const struct net *net, u32 id)
{
	if (id >= MRC_PROFILES_NR)
		return NULL;
	return rcu_dereference(mrc_cfg_net(net)->profiles[id]);
}

/**
 * mrc_cfg_profile_copy() - copy a profile out of the RCU world
 * @net: the namespace
 * @id:  profile id
 * @out: filled on success
 *
 * Context: any.
 * Return: 0, or -ENOENT if the profile does not exist.
 */
int mrc_cfg_profile_copy(const struct net *net, u32 id,
			 struct mrc_cfg_profile *out)
{
	const struct mrc_cfg_profile *p;
	int err = -ENOENT;

	rcu_read_lock();
	p = mrc_cfg_profile_get(net, id);
	if (p) {
		*out = *p;
		err = 0;
	}
	rcu_read_unlock();
	return err;
}

static struct mrc_cfg_route *mrc_route_find_rcu(struct mrc_cfg_net *cn,
						const struct in6_addr *pfx,
						u8 len)
{
	struct mrc_cfg_route *rt;

	hash_for_each_possible_rcu(cn->routes, rt, node, mrc_route_hash(pfx, len)) {
		if (rt->dst_len == len && ipv6_addr_equal(&rt->dst, pfx))
			return rt;
	}
	return NULL;
}

/**
 * mrc_cfg_route_lookup() - longest-prefix match of a destination
 * @net:   the namespace
 * @daddr: destination address
 *
 * Context: inside an RCU read-side section (or softirq); lockless, does not
 * sleep or allocate. Cost: one hash probe per prefix length in use.
 * Return: the most specific route covering @daddr, valid until the section
 * ends (use mrc_cfg_route_hold() to keep it longer), or NULL.
 */
struct mrc_cfg_route *mrc_cfg_route_lookup(const struct net *net,
					   const struct in6_addr *daddr)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_route *rt;
	struct in6_addr pfx;
	int len;

	for (len = MRC_PREFIX_LENS - 1; len >= 0; len--) {
		if (!test_bit(len, cn->len_used))
			continue;
		ipv6_addr_prefix(&pfx, daddr, len);
		rt = mrc_route_find_rcu(cn, &pfx, len);
		if (rt)
			return rt;
	}
	return NULL;
}

/**
 * mrc_cfg_route_hold() - keep a route beyond the RCU section
 * @rt: a route returned by mrc_cfg_route_lookup()
 *
 * Context: inside the RCU read-side section @rt was found in.
 * Return: true if a reference was taken; false if the route is being freed
 * (look it up again).
 */
bool mrc_cfg_route_hold(struct mrc_cfg_route *rt)
{
	return refcount_inc_not_zero(&rt->ref);
}

/**
 * mrc_cfg_route_put() - drop a route reference
 * @rt: the route
 *
 * Context: any. The last reference frees the route after a grace period.
 */
void mrc_cfg_route_put(struct mrc_cfg_route *rt)
{
	if (refcount_dec_and_test(&rt->ref))
		kfree_rcu(rt, rcu);
}

/* ------------------------------------------------------------------ */
/* Planes                                                             */
/* ------------------------------------------------------------------ */

static bool mrc_dev_oper_up(const struct net_device *dev)
{
	return dev && netif_running(dev) && netif_carrier_ok(dev);
}

/**
 * mrc_cfg_plane_oper_up() - is the plane's device present, up, with carrier
 * @net: the plane's namespace
 * @pl:  the plane
 *
 * Return: the operational state (the administrative state is not included).
 */
bool mrc_cfg_plane_oper_up(struct net *net, const struct mrc_cfg_plane *pl)
{
	bool up = false;

	if (!pl->ifindex)
		return false;
	rcu_read_lock();
	up = mrc_dev_oper_up(dev_get_by_index_rcu(net, pl->ifindex));
	rcu_read_unlock();
	return up;
}

/* Is @ifindex a device of @net right now? Called with cn->lock held. */
static int mrc_cfg_check_dev(struct net *net, int ifindex, bool *oper,
			     struct netlink_ext_ack *extack)
{
	struct net_device *dev;

	rcu_read_lock();
	dev = dev_get_by_index_rcu(net, ifindex);
	*oper = mrc_dev_oper_up(dev);
	rcu_read_unlock();
	if (!dev) {
		NL_SET_ERR_MSG_MOD(extack, "no such device");
		return -ENODEV;
	}
	return 0;
}

static void mrc_cfg_set_oper(struct mrc_cfg_net *cn, u8 id, bool oper)
{
	if (oper)
		cn->oper_mask |= BIT(id);
	else
		cn->oper_mask &= ~BIT(id);
}

/**
 * mrc_cfg_plane_add() - add a plane
 * @net:    the namespace
 * @tmpl:   id, ifindex, saddr and admin state of the new plane
 * @extack: error report
 *
 * Return: 0, -EEXIST if the id is taken, -ENODEV if the device is not in
 * @net, -ENOMEM.
 */
int mrc_cfg_plane_add(struct net *net, const struct mrc_cfg_plane *tmpl,
		      struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_plane *pl;
	bool oper;
	int err;

	pl = kmemdup(tmpl, sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;

	mutex_lock(&cn->lock);
	if (rcu_access_pointer(cn->planes[pl->id])) {
		NL_SET_ERR_MSG_MOD(extack, "plane id already exists");
		err = -EEXIST;
		goto unlock;
	}
	err = mrc_cfg_check_dev(net, pl->ifindex, &oper, extack);
	if (err)
		goto unlock;
	rcu_assign_pointer(cn->planes[pl->id], pl);
	mrc_cfg_set_oper(cn, pl->id, oper);
	mrc_cfg_changed(cn);
	mrc_cfg_notify_plane(cn, net, MRC_CFG_PLANE_ADD, pl, pl->admin_up && oper);
	pl = NULL;
unlock:
	mutex_unlock(&cn->lock);
	kfree(pl);
	return err;
}

/**
 * mrc_cfg_plane_del() - delete a plane
 * @net:    the namespace
 * @id:     plane id
 * @extack: error report
 *
 * Routes naming the plane stay; the datapath skips their paths on it.
 * Return: 0 or -ENOENT.
 */
int mrc_cfg_plane_del(struct net *net, u32 id, struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_plane *pl;

	mutex_lock(&cn->lock);
	pl = rcu_dereference_protected(cn->planes[id], lockdep_is_held(&cn->lock));
	if (!pl) {
		mutex_unlock(&cn->lock);
		NL_SET_ERR_MSG_MOD(extack, "plane does not exist");
		return -ENOENT;
	}
	RCU_INIT_POINTER(cn->planes[id], NULL);
	mrc_cfg_set_oper(cn, id, false);
	mrc_cfg_changed(cn);
	/* Live connections keep their snapshot; the plane is down for them. */
	mrc_cfg_notify_plane(cn, net, MRC_CFG_PLANE_DEL, pl, false);
	mutex_unlock(&cn->lock);
	kfree_rcu(pl, rcu);
	return 0;
}

/**
 * mrc_cfg_plane_set() - change a plane's admin state, device or address
 * @net:    the namespace
 * @id:     plane id
 * @chg:    what to change
 * @extack: error report
 *
 * Return: 0, -ENOENT, -ENODEV or -ENOMEM.
 */
int mrc_cfg_plane_set(struct net *net, u32 id,
		      const struct mrc_cfg_plane_change *chg,
		      struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_plane *old, *pl;
	bool oper;
	int err;

	pl = kzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl)
		return -ENOMEM;

	mutex_lock(&cn->lock);
	old = rcu_dereference_protected(cn->planes[id], lockdep_is_held(&cn->lock));
	if (!old) {
		NL_SET_ERR_MSG_MOD(extack, "plane does not exist");
		err = -ENOENT;
		goto unlock;
	}
	*pl = *old;
	if (chg->set_admin)
		pl->admin_up = chg->admin_up;
	if (chg->set_saddr)
		pl->saddr = chg->saddr;
	if (chg->set_ifindex) {
		err = mrc_cfg_check_dev(net, chg->ifindex, &oper, extack);
		if (err)
			goto unlock;
		pl->ifindex = chg->ifindex;
		mrc_cfg_set_oper(cn, id, oper);
	}
	rcu_assign_pointer(cn->planes[id], pl);
	mrc_cfg_changed(cn);
	mrc_cfg_notify_plane(cn, net, MRC_CFG_PLANE_CHANGE, pl,
			     pl->admin_up && (cn->oper_mask & BIT(id)));
	pl = old;
	mutex_unlock(&cn->lock);
	kfree_rcu(pl, rcu);
	return 0;
unlock:
	mutex_unlock(&cn->lock);
	kfree(pl);
	return err;
}

/*
 * Device events: a plane whose device is unregistered (or moved to another
 * namespace) is detached (ifindex 0); a change of a plane device's
 * operational state is reported. Both as MRC_CFG_PLANE_CHANGE, raised here
 * in process context under RTNL (the netdevice chain's), with cn->lock.
 */
static int mrc_cfg_netdev_event(struct notifier_block *nb, unsigned long event,
				void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct net *net = dev_net(dev);
	struct mrc_cfg_net *cn;
	struct mrc_cfg_plane *pl, *npl;
	bool gone, oper;
	int id;

	if (event != NETDEV_UNREGISTER && event != NETDEV_UP &&
	    event != NETDEV_DOWN && event != NETDEV_CHANGE)
		return NOTIFY_DONE;
	/* unregister_netdevice_notifier() replays UNREGISTER: not a real one. */
	if (READ_ONCE(mrc_cfg_exiting))
		return NOTIFY_DONE;

	cn = mrc_cfg_net(net);
	gone = event == NETDEV_UNREGISTER;
	oper = !gone && mrc_dev_oper_up(dev);

	mutex_lock(&cn->lock);
	for (id = 0; id < MRC_PLANES_NR; id++) {
		pl = rcu_dereference_protected(cn->planes[id],
					       lockdep_is_held(&cn->lock));
		if (!pl || pl->ifindex != dev->ifindex)
			continue;
		if (gone) {
			/* Small and must not fail: the device is going. */
			npl = kmemdup(pl, sizeof(*pl), GFP_KERNEL | __GFP_NOFAIL);
			npl->ifindex = 0;
			rcu_assign_pointer(cn->planes[id], npl);
			kfree_rcu(pl, rcu);
			pl = npl;
			mrc_cfg_changed(cn);
		} else if (!!(cn->oper_mask & BIT(id)) == oper) {
			continue;
		}
		mrc_cfg_set_oper(cn, id, oper);
		mrc_cfg_notify_plane(cn, net, MRC_CFG_PLANE_CHANGE, pl,
				     pl->admin_up && oper);
	}
	mutex_unlock(&cn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block mrc_cfg_netdev_nb = {
	.notifier_call = mrc_cfg_netdev_event,
};

/* ------------------------------------------------------------------ */
/* Routes                                                             */
/* ------------------------------------------------------------------ */

/**
 * mrc_cfg_route_alloc() - allocate an unpublished route
 * @npaths: number of path templates (0..MRC_ROUTE_PATHS_MAX)
 *
 * The caller fills it and passes it to mrc_cfg_route_add(), or frees it
 * with mrc_cfg_route_put().
 * Return: the route with one reference, or NULL.
 */
struct mrc_cfg_route *mrc_cfg_route_alloc(u32 npaths)
{
	struct mrc_cfg_route *rt;

	if (npaths > MRC_ROUTE_PATHS_MAX)
		return NULL;
	rt = kzalloc(struct_size(rt, paths, npaths), GFP_KERNEL);
	if (!rt)
		return NULL;
	refcount_set(&rt->ref, 1);
	rt->npaths = npaths;
	return rt;
}

static void mrc_cfg_route_unlink(struct mrc_cfg_net *cn, struct mrc_cfg_route *rt)
{
	hash_del_rcu(&rt->node);
	if (!--cn->len_refs[rt->dst_len])
		clear_bit(rt->dst_len, cn->len_used);
	WRITE_ONCE(cn->nroutes, cn->nroutes - 1);
}

static void mrc_cfg_route_link(struct mrc_cfg_net *cn, struct mrc_cfg_route *rt)
{
	if (!cn->len_refs[rt->dst_len]++)
		set_bit(rt->dst_len, cn->len_used);
	/* The release in hash_add_rcu() orders the bit before the entry. */
	hash_add_rcu(cn->routes, &rt->node, mrc_route_hash(&rt->dst, rt->dst_len));
	WRITE_ONCE(cn->nroutes, cn->nroutes + 1);
}

/**
 * mrc_cfg_route_add() - publish a route
 * @net:     the namespace
 * @rt:      a route from mrc_cfg_route_alloc(), filled and validated; its
 *           reference passes to the table on success and is dropped on
 *           failure
 * @replace: replace an existing route of the same prefix
 * @extack:  error report
 *
 * Return: 0, -EEXIST (prefix exists and !@replace) or -ENOSPC (table full).
 */
int mrc_cfg_route_add(struct net *net, struct mrc_cfg_route *rt, bool replace,
		      struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_route *old;
	int err = 0;

	mutex_lock(&cn->lock);
	/* The lock keeps what we find linked after the RCU section. */
	rcu_read_lock();
	old = mrc_route_find_rcu(cn, &rt->dst, rt->dst_len);
	rcu_read_unlock();
	if (old && !replace) {
		NL_SET_ERR_MSG_MOD(extack, "route to this prefix already exists");
		err = -EEXIST;
		goto unlock;
	}
	if (!old && cn->nroutes >= MRC_ROUTES_MAX) {
		NL_SET_ERR_MSG_MOD(extack, "route table full");
		err = -ENOSPC;
		goto unlock;
	}
	if (old) {
		/* Readers see either the old or the new route, never neither. */
		hlist_replace_rcu(&old->node, &rt->node);
	} else {
		mrc_cfg_route_link(cn, rt);
	}
	mrc_cfg_changed(cn);
	mrc_cfg_notify_route(cn, net, old ? MRC_CFG_ROUTE_CHANGE :
			     MRC_CFG_ROUTE_ADD, rt);
	rt = old;
unlock:
	mutex_unlock(&cn->lock);
	if (rt)
		mrc_cfg_route_put(rt);
	return err;
}

/**
 * mrc_cfg_route_del() - delete the route of exactly this prefix
 * @net:     the namespace
 * @dst:     prefix
 * @dst_len: prefix length
 * @extack:  error report
 *
 * Return: 0 or -ENOENT.
 */
int mrc_cfg_route_del(struct net *net, const struct in6_addr *dst, u8 dst_len,
		      struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_route *rt;

	mutex_lock(&cn->lock);
	rcu_read_lock();
	rt = mrc_route_find_rcu(cn, dst, dst_len);
	rcu_read_unlock();
	if (!rt) {
		mutex_unlock(&cn->lock);
		NL_SET_ERR_MSG_MOD(extack, "no route to this prefix");
		return -ENOENT;
	}
	mrc_cfg_route_unlink(cn, rt);
	mrc_cfg_changed(cn);
	mrc_cfg_notify_route(cn, net, MRC_CFG_ROUTE_DEL, rt);
	mutex_unlock(&cn->lock);
	mrc_cfg_route_put(rt);
	return 0;
}

/**
 * mrc_cfg_route_find() - the route of exactly this prefix
 * @net:     the namespace
 * @dst:     prefix
 * @dst_len: prefix length
 *
 * Context: inside an RCU read-side section.
 * Return: the route or NULL, with the rules of mrc_cfg_route_lookup().
 */
struct mrc_cfg_route *mrc_cfg_route_find(const struct net *net,
					 const struct in6_addr *dst, u8 dst_len)
{
	return mrc_route_find_rcu(mrc_cfg_net(net), dst, dst_len);
}

/**
 * mrc_cfg_route_walk() - visit routes, resumable (for netlink dumps)
 * @net:    the namespace
 * @bucket: hash bucket to resume at (0 to start)
 * @skip:   routes of that bucket already visited
 * @fn:     called for each route; a non-zero return stops the walk with
 *          @bucket/@skip pointing at that route
 * @arg:    passed to @fn
 *
 * Takes the RCU read lock itself. Under concurrent changes a route may be
 * visited twice or not at all; mrc_cfg_generation() tells when.
 * Return: 0 once every route was visited, else what @fn returned.
 */
int mrc_cfg_route_walk(const struct net *net, long *bucket, long *skip,
		       int (*fn)(const struct mrc_cfg_route *rt, void *arg),
		       void *arg)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_route *rt;
	int err = 0;
	long idx;

	rcu_read_lock();
	for (; *bucket < HASH_SIZE(cn->routes); (*bucket)++, *skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(rt, &cn->routes[*bucket], node) {
			if (idx++ < *skip)
				continue;
			err = fn(rt, arg);
			if (err)
				goto out;
			(*skip)++;
		}
	}
out:
	rcu_read_unlock();
	return err;
}

/* ------------------------------------------------------------------ */
/* Profiles                                                           */
/* ------------------------------------------------------------------ */

/*
 * The flowcell length of every profile that takes the defaults (a new
 * namespace's profile 0, a profile added without a burst): the uapi's
 * MRC_EV_BURST_DEFAULT unless the ev_burst parameter says otherwise. 1
 * makes a host spray per packet, as MRC 1.0 does, without a profile set in
 * each namespace: the selftest collection is run that way too
 * (MRC_KO_PARAMS, Documentation/dev-tools/mrc-rig.rst). Existing profiles
 * keep theirs.
 */
static unsigned int mrc_ev_burst_default = MRC_EV_BURST_DEFAULT;

static int mrc_ev_burst_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, MRC_EV_BURST_MAX);
}

static const struct kernel_param_ops mrc_ev_burst_ops = {
	.set = mrc_ev_burst_set,
	.get = param_get_uint,
};

module_param_cb(ev_burst, &mrc_ev_burst_ops, &mrc_ev_burst_default, 0644);
MODULE_PARM_DESC(ev_burst, "packets per flowcell of the profiles that take the defaults (1..64, default 32; 1: per-packet spraying)");

/**
 * mrc_cfg_profile_defaults() - the documented defaults
 * @p:  filled
 * @id: profile id to put in it
 *
 * 128 EVs, active EVs and the floor derived by the engine, flowcells of
 * the ev_burst parameter's length (32), NSCC with the UEC 1.0.3
 * parameters (target delay 0.75 base RTT, gamma 0.8, largest decrease
 * 0.5, initial and maximum window 1.5 BDP).
 */
void mrc_cfg_profile_defaults(struct mrc_cfg_profile *p, u32 id)
{
	memset(p, 0, sizeof(*p));
	p->id = id;
	p->ev_count = MRC_EV_COUNT_DEFAULT;
	p->ev_burst = READ_ONCE(mrc_ev_burst_default);
	p->dscp = MRC_DSCP_DATA_DEFAULT;
	p->dscp_ctl = MRC_DSCP_CTL_DEFAULT;
	p->cc_algo = MRC_CC_ALGO_NSCC;
	p->cc_target_delay_pm = 750;
	p->cc_gamma_pm = 800;
	p->cc_max_md_pm = 500;
	p->cc_max_wnd_pm = 1500;
	p->cc_init_wnd_pm = 1500;
	p->cc_link_mbps = MRC_CC_LINK_MBPS_DEFAULT;
	p->cc_init_wnd_shared = 1;
}

static int mrc_cfg_profile_check(const struct mrc_cfg_profile *p,
				 struct netlink_ext_ack *extack)
{
	if (p->ev_active_per_plane > p->ev_count) {
		NL_SET_ERR_MSG_MOD(extack, "active EVs per plane exceed the EV count");
		return -EINVAL;
	}
	if (p->ev_min_active > p->ev_count) {
		NL_SET_ERR_MSG_MOD(extack, "minimum active EVs exceed the EV count");
		return -EINVAL;
	}
	if (p->cc_init_wnd_pm > p->cc_max_wnd_pm) {
		NL_SET_ERR_MSG_MOD(extack, "initial window above the maximum window");
		return -EINVAL;
	}
	return 0;
}

/**
 * mrc_cfg_profile_update() - create or modify a profile
 * @net:    the namespace
 * @id:     profile id
 * @create: true: the profile must not exist and starts from the defaults;
 *          false: it must exist and starts from its current values
 * @apply:  changes the copy (parses the request); returns 0 or an errno
 * @arg:    passed to @apply
 * @extack: error report
 *
 * The whole read-modify-write runs under the namespace's lock, so
 * concurrent updates of one profile never lose each other's changes.
 * Return: 0, -EEXIST, -ENOENT, -EINVAL (inconsistent result), -ENOMEM, or
 * what @apply returned.
 */
int mrc_cfg_profile_update(struct net *net, u32 id, bool create,
			   int (*apply)(struct mrc_cfg_profile *p, void *arg),
			   void *arg, struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_profile *old, *p;
	int err;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;

	mutex_lock(&cn->lock);
	old = rcu_dereference_protected(cn->profiles[id], lockdep_is_held(&cn->lock));
	if (create && old) {
		NL_SET_ERR_MSG_MOD(extack, "profile id already exists");
		err = -EEXIST;
		goto unlock;
	}
	if (!create && !old) {
		NL_SET_ERR_MSG_MOD(extack, "profile does not exist");
		err = -ENOENT;
		goto unlock;
	}
	if (old)
		*p = *old;
	else
		mrc_cfg_profile_defaults(p, id);
	err = apply(p, arg);
	if (err)
		goto unlock;
	err = mrc_cfg_profile_check(p, extack);
	if (err)
		goto unlock;
	rcu_assign_pointer(cn->profiles[id], p);
	mrc_cfg_changed(cn);
	p = old;
	mutex_unlock(&cn->lock);
	if (p)
		kfree_rcu(p, rcu);
	return 0;
unlock:
	mutex_unlock(&cn->lock);
	kfree(p);
	return err;
}

/**
 * mrc_cfg_profile_del() - delete a profile (never profile 0)
 * @net:    the namespace
 * @id:     profile id
 * @extack: error report
 *
 * Return: 0, -EINVAL for profile 0, -ENOENT.
 */
int mrc_cfg_profile_del(struct net *net, u32 id, struct netlink_ext_ack *extack)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_profile *p;

	if (id == 0) {
		NL_SET_ERR_MSG_MOD(extack, "profile 0 is the default and cannot be deleted");
		return -EINVAL;
	}
	mutex_lock(&cn->lock);
	p = rcu_dereference_protected(cn->profiles[id], lockdep_is_held(&cn->lock));
	if (!p) {
		mutex_unlock(&cn->lock);
		NL_SET_ERR_MSG_MOD(extack, "profile does not exist");
		return -ENOENT;
	}
	RCU_INIT_POINTER(cn->profiles[id], NULL);
	mrc_cfg_changed(cn);
	mutex_unlock(&cn->lock);
	kfree_rcu(p, rcu);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counters                                                           */
/* ------------------------------------------------------------------ */

/**
 * mrc_cfg_generation() - changes so far, as a dump consistency cookie
 * @net: the namespace
 *
 * Return: a non-zero value that differs after every change.
 */
u32 mrc_cfg_generation(const struct net *net)
{
	return READ_ONCE(mrc_cfg_net(net)->gen);
}

/**
 * mrc_cfg_reject() - count a request refused by a handler
 * @net: the namespace
 * @err: the negative errno it was refused with
 */
void mrc_cfg_reject(struct net *net, int err)
{
	enum mrc_cfg_reject r;

	switch (err) {
	case -EINVAL:
		r = MRC_REJ_INVAL;
		break;
	case -ENOENT:
		r = MRC_REJ_NOENT;
		break;
	case -EEXIST:
		r = MRC_REJ_EXIST;
		break;
	case -ENODEV:
		r = MRC_REJ_NODEV;
		break;
	case -ENOSPC:
		r = MRC_REJ_NOSPC;
		break;
	case -EBUSY:
		r = MRC_REJ_BUSY;
		break;
	case -ENOMEM:
		r = MRC_REJ_NOMEM;
		break;
	default:
		r = MRC_REJ_OTHER;
		break;
	}
	atomic64_inc(&mrc_cfg_net(net)->rejects[r]);
}

/**
 * mrc_cfg_count_event() - count a notification sent
 * @net: the namespace it was sent in
 */
void mrc_cfg_count_event(struct net *net)
{
	atomic64_inc(&mrc_cfg_net(net)->events);
}

/**
 * mrc_cfg_get_stats() - snapshot of the configuration counters
 * @net: the namespace
 * @st:  filled (racy snapshot, not a transaction)
 */
void mrc_cfg_get_stats(const struct net *net, struct mrc_cfg_stats *st)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	int i;

	memset(st, 0, sizeof(*st));
	rcu_read_lock();
	for (i = 0; i < MRC_PLANES_NR; i++)
		st->planes += !!rcu_dereference(cn->planes[i]);
	for (i = 0; i < MRC_PROFILES_NR; i++)
		st->profiles += !!rcu_dereference(cn->profiles[i]);
	rcu_read_unlock();
	st->routes = READ_ONCE(cn->nroutes);
	st->changes = READ_ONCE(cn->changes);
	st->events = atomic64_read(&cn->events);
	for (i = 0; i < __MRC_REJ_MAX; i++)
		st->rejects[i] = atomic64_read(&cn->rejects[i]);
}

/* ------------------------------------------------------------------ */
/* Namespaces and module                                              */
/* ------------------------------------------------------------------ */

static int __net_init mrc_cfg_net_init(struct net *net)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_profile *p;

	mutex_init(&cn->lock);
	hash_init(cn->routes);
	cn->gen = 1;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	mrc_cfg_profile_defaults(p, 0);
	RCU_INIT_POINTER(cn->profiles[0], p);
	return 0;
}

/*
 * No request can reach a dying namespace (a netlink socket pins its
 * namespace) and its devices are gone already (device pernet exits run
 * before subsystem ones), so everything is freed without the lock and
 * without notifications. Held routes survive until their last put.
 */
static void __net_exit mrc_cfg_net_exit(struct net *net)
{
	struct mrc_cfg_net *cn = mrc_cfg_net(net);
	struct mrc_cfg_route *rt;
	struct hlist_node *tmp;
	struct mrc_cfg_plane *pl;
	struct mrc_cfg_profile *p;
	int i;

	mutex_lock(&cn->lock);
	for (i = 0; i < MRC_PLANES_NR; i++) {
		pl = rcu_dereference_protected(cn->planes[i], lockdep_is_held(&cn->lock));
		RCU_INIT_POINTER(cn->planes[i], NULL);
		if (pl)
			kfree_rcu(pl, rcu);
	}
	for (i = 0; i < MRC_PROFILES_NR; i++) {
		p = rcu_dereference_protected(cn->profiles[i], lockdep_is_held(&cn->lock));
		RCU_INIT_POINTER(cn->profiles[i], NULL);
		if (p)
			kfree_rcu(p, rcu);
	}
	hash_for_each_safe(cn->routes, i, tmp, rt, node) {
		mrc_cfg_route_unlink(cn, rt);
		mrc_cfg_route_put(rt);
	}
	WARN_ON_ONCE(cn->nroutes);
	mutex_unlock(&cn->lock);
	mutex_destroy(&cn->lock);
}

static struct pernet_operations mrc_cfg_net_ops = {
	.init = mrc_cfg_net_init,
	.exit = mrc_cfg_net_exit,
	.id   = &mrc_cfg_net_id,
	.size = sizeof(struct mrc_cfg_net),
};

/**
 * mrc_cfg_init_module() - register the per-namespace configuration state
 *
 * Must run before the pernet operations of mrc_net (mrc_net_init_module()):
 * a namespace's UDP socket goes live there, and the receive path reads the
 * configuration (mrc_cfg_route_lookup()) of the namespace. Pernet exits run
 * in reverse order, so a namespace's UDP socket is also closed before its
 * configuration is freed.
 *
 * Return: 0 or a negative errno.
 */
int mrc_cfg_init_module(void)
{
	/* The uapi algorithm ids are the engine's registry keys. */
	BUILD_BUG_ON((int)MRC_CC_ALGO_NSCC != (int)MRC_CC_NSCC);
	BUILD_BUG_ON((int)MRC_CC_ALGO_FIXED != (int)MRC_CC_FIXED);
	BUILD_BUG_ON((int)MRC_CC_ALGO_UEC != (int)MRC_CC_UEC);
	BUILD_BUG_ON((int)__MRC_CC_ALGO_CNT != (int)MRC_CC_NR);
	BUILD_BUG_ON(MRC_PLANES_NR != MRC_MAX_PLANES);
	BUILD_BUG_ON(MRC_PLANES_NR > 32);	/* oper_mask, plane_mask */

	return register_pernet_subsys(&mrc_cfg_net_ops);
}

/**
 * mrc_cfg_exit_module() - unregister the configuration store
 *
 * Frees the configuration of every namespace. Called after
 * mrc_net_exit_module() closed every UDP socket of the module, and after
 * every consumer left the notifier chain.
 */
void mrc_cfg_exit_module(void)
{
	WARN_ON_ONCE(rcu_access_pointer(mrc_cfg_chain.head));
	unregister_pernet_subsys(&mrc_cfg_net_ops);
}

/**
 * mrc_cfg_notifier_init() - register the netdevice notifier
 *
 * From here on device events raise plane events on the configuration
 * chain: called once the chain's consumers are registered (mrc_main.c),
 * after mrc_net_init_module() (the connections' consumer walks the
 * pernet state of mrc_net).
 *
 * Return: 0 or a negative errno from register_netdevice_notifier().
 */
int mrc_cfg_notifier_init(void)
{
	WRITE_ONCE(mrc_cfg_exiting, false);
	return register_netdevice_notifier(&mrc_cfg_netdev_nb);
}

/**
 * mrc_cfg_notifier_exit() - unregister the netdevice notifier
 *
 * Called before the chain's consumers unregister, mrc_net_exit_module()
 * and mrc_cfg_exit_module(). unregister_netdevice_notifier() takes RTNL, so
 * once it returns no device event is raising anything on the chain.
 */
void mrc_cfg_notifier_exit(void)
{
	WRITE_ONCE(mrc_cfg_exiting, true);
	unregister_netdevice_notifier(&mrc_cfg_netdev_nb);
}
