// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_nl_cfg.c - the configuration objects of the generic netlink family
 * "mrc": planes, routes and EV/CC profiles. For each, the size estimate
 * and fill function of its messages, the parsing of its requests, its
 * do and dump handlers (referenced by the ops table in mrc_nl.c) and the
 * helper that multicasts its events (mrc_nl_notify_plane(),
 * mrc_nl_notify_route()). The events come from the configuration store's
 * notifier chain (mrc_cfg.h), which this file's consumer
 * (mrc_nl_cfg_event(), registered by mrc_nl_cfg_init_module()) turns into
 * MRC_CMD_*_NTF messages. The family, its policies and the value checks
 * are mrc_nl.c's.
 *
 * Locking
 * =======
 *  - Nothing here has a lock of its own. The handlers run in process
 *    context, in parallel with each other (parallel_ops): every write goes
 *    to the configuration store (mrc_cfg.c), which serialises the writers
 *    of a namespace with its mutex (mrc_cfg_net.lock, taken after RTNL).
 *    mrc_nl_profile_apply() is called back by mrc_cfg_profile_update()
 *    with that mutex held; it only reads the request.
 *  - Gets and dumps read the store under RCU: a plane or a profile is
 *    copied, a route is held (mrc_cfg_route_hold()) for a get and built
 *    under mrc_cfg_route_walk()'s RCU read lock for a dump; nothing sleeps
 *    there. Each part of a dump records the store's generation
 *    (mrc_cfg_generation()), so a change between two parts marks the dump
 *    NLM_F_DUMP_INTR.
 *  - The event helpers are called by the chain consumer, which mrc_cfg.c
 *    calls in process context with its mutex held (RTNL too for netdevice
 *    events) and no spinlock or RCU read side, right after the change, so
 *    listeners see the changes in the order they were applied, and before
 *    connections are told (MRC_CFG_PRIO_NL above MRC_CFG_PRIO_CONN). That
 *    context allows GFP_KERNEL. mrc_nl_fill_plane() takes the RCU read
 *    lock for the device's name.
 */
#include <linux/netdevice.h>
#include <linux/notifier.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_nl.h"
#include "mrc_nl_impl.h"

/* ------------------------------------------------------------------ */
/* Planes                                                             */
/* ------------------------------------------------------------------ */

static size_t mrc_nl_plane_size(void)
{
	return nla_total_size(sizeof(u32)) +		/* PLANE_ID */
	       nla_total_size(sizeof(u32)) +		/* IFINDEX */
	       nla_total_size(IFNAMSIZ) +		/* IFNAME */
	       nla_total_size(sizeof(struct in6_addr)) +	/* SADDR */
	       nla_total_size(sizeof(u8)) * 2;		/* ADMIN_UP, OPER_UP */
}

static int mrc_nl_fill_plane(struct sk_buff *skb, struct net *net, const void *obj)
{
	const struct mrc_cfg_plane *pl = obj;
	char name[IFNAMSIZ] = "";
	struct net_device *dev;

	if (pl->ifindex) {
		rcu_read_lock();
		dev = dev_get_by_index_rcu(net, pl->ifindex);
		if (dev)
			strscpy(name, dev->name, sizeof(name));
		rcu_read_unlock();
	}
	if (nla_put_u32(skb, MRC_ATTR_PLANE_ID, pl->id) ||
	    nla_put_u32(skb, MRC_ATTR_IFINDEX, pl->ifindex) ||
	    (name[0] && nla_put_string(skb, MRC_ATTR_IFNAME, name)) ||
	    nla_put_in6_addr(skb, MRC_ATTR_SADDR, &pl->saddr) ||
	    nla_put_u8(skb, MRC_ATTR_ADMIN_UP, pl->admin_up) ||
	    nla_put_u8(skb, MRC_ATTR_OPER_UP, mrc_cfg_plane_oper_up(net, pl)))
		return -EMSGSIZE;
	return 0;
}

/**
 * mrc_nl_notify_plane() - report a plane event
 * @net: the namespace
 * @cmd: MRC_CMD_PLANE_ADD_NTF, MRC_CMD_PLANE_DEL_NTF or
 *       MRC_CMD_PLANE_CHANGE_NTF
 * @pl:  the plane (for a deletion: as it was)
 * @gfp: allocation context
 */
static void mrc_nl_notify_plane(struct net *net, u8 cmd,
				const struct mrc_cfg_plane *pl, gfp_t gfp)
{
	mrc_nl_notify(net, cmd, mrc_nl_plane_size(), mrc_nl_fill_plane, pl, gfp);
}

/*
 * The plane's device from MRC_ATTR_IFINDEX and/or MRC_ATTR_IFNAME. Returns
 * 0 with *ifindex set (0 when neither was given) or a negative errno.
 */
static int mrc_nl_parse_dev(struct genl_info *info, int *ifindex)
{
	struct nlattr *a_idx = info->attrs[MRC_ATTR_IFINDEX];
	struct nlattr *a_name = info->attrs[MRC_ATTR_IFNAME];
	struct net_device *dev;
	int by_name;

	*ifindex = a_idx ? nla_get_u32(a_idx) : 0;
	if (!a_name)
		return 0;
	rcu_read_lock();
	dev = dev_get_by_name_rcu(genl_info_net(info), nla_data(a_name));
	by_name = dev ? dev->ifindex : 0;
	rcu_read_unlock();
	if (!by_name) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_name, "no such device");
		return -ENODEV;
	}
	if (*ifindex && *ifindex != by_name) {
		NL_SET_ERR_MSG_ATTR(info->extack, a_idx,
				    "ifindex and ifname name different devices");
		return -EINVAL;
	}
	*ifindex = by_name;
	return 0;
}

static int mrc_nl_parse_saddr(struct genl_info *info, struct in6_addr *saddr)
{
	struct nlattr *a = info->attrs[MRC_ATTR_SADDR];

	*saddr = nla_get_in6_addr(a);
	if (!mrc_nl_addr_unicast(saddr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "source address must be a unicast address");
		return -EINVAL;
	}
	return 0;
}

int mrc_nl_plane_add(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_cfg_plane pl = {};
	int err;

	if (MRC_NL_MISSING(info, MRC_ATTR_PLANE_ID, "missing plane id") ||
	    MRC_NL_MISSING(info, MRC_ATTR_SADDR, "missing source address"))
		return mrc_nl_reject(info, -EINVAL);
	if (!info->attrs[MRC_ATTR_IFINDEX] && !info->attrs[MRC_ATTR_IFNAME]) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_ATTR_IFINDEX);
		NL_SET_ERR_MSG_MOD(info->extack, "missing device: give an ifindex or an ifname");
		return mrc_nl_reject(info, -EINVAL);
	}
	pl.id = nla_get_u32(info->attrs[MRC_ATTR_PLANE_ID]);
	err = mrc_nl_parse_dev(info, &pl.ifindex);
	if (!err)
		err = mrc_nl_parse_saddr(info, &pl.saddr);
	if (err)
		return mrc_nl_reject(info, err);
	pl.admin_up = info->attrs[MRC_ATTR_ADMIN_UP] ?
		      nla_get_u8(info->attrs[MRC_ATTR_ADMIN_UP]) : true;
	return mrc_nl_reject(info, mrc_cfg_plane_add(genl_info_net(info), &pl,
						     info->extack));
}

int mrc_nl_plane_del(struct sk_buff *skb, struct genl_info *info)
{
	if (MRC_NL_MISSING(info, MRC_ATTR_PLANE_ID, "missing plane id"))
		return mrc_nl_reject(info, -EINVAL);
	return mrc_nl_reject(info, mrc_cfg_plane_del(genl_info_net(info),
				nla_get_u32(info->attrs[MRC_ATTR_PLANE_ID]),
				info->extack));
}

int mrc_nl_plane_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_cfg_plane_change chg = {};
	int err;

	if (MRC_NL_MISSING(info, MRC_ATTR_PLANE_ID, "missing plane id"))
		return mrc_nl_reject(info, -EINVAL);
	if (info->attrs[MRC_ATTR_ADMIN_UP]) {
		chg.set_admin = true;
		chg.admin_up = nla_get_u8(info->attrs[MRC_ATTR_ADMIN_UP]);
	}
	if (info->attrs[MRC_ATTR_IFINDEX] || info->attrs[MRC_ATTR_IFNAME]) {
		err = mrc_nl_parse_dev(info, &chg.ifindex);
		if (err)
			return mrc_nl_reject(info, err);
		chg.set_ifindex = true;
	}
	if (info->attrs[MRC_ATTR_SADDR]) {
		err = mrc_nl_parse_saddr(info, &chg.saddr);
		if (err)
			return mrc_nl_reject(info, err);
		chg.set_saddr = true;
	}
	if (!chg.set_admin && !chg.set_ifindex && !chg.set_saddr) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "nothing to change: give admin-up, a device or a source address");
		return mrc_nl_reject(info, -EINVAL);
	}
	return mrc_nl_reject(info, mrc_cfg_plane_set(genl_info_net(info),
				nla_get_u32(info->attrs[MRC_ATTR_PLANE_ID]),
				&chg, info->extack));
}

int mrc_nl_plane_get(struct sk_buff *skb, struct genl_info *info)
{
	const struct mrc_cfg_plane *p;
	struct mrc_cfg_plane pl;
	bool found = false;

	if (MRC_NL_MISSING(info, MRC_ATTR_PLANE_ID, "missing plane id"))
		return mrc_nl_reject(info, -EINVAL);
	rcu_read_lock();
	p = mrc_cfg_plane_get(genl_info_net(info),
			      nla_get_u32(info->attrs[MRC_ATTR_PLANE_ID]));
	if (p) {
		pl = *p;
		found = true;
	}
	rcu_read_unlock();
	if (!found) {
		NL_SET_ERR_MSG_MOD(info->extack, "plane does not exist");
		return mrc_nl_reject(info, -ENOENT);
	}
	return mrc_nl_reply(info, mrc_nl_plane_size(), mrc_nl_fill_plane, &pl);
}

int mrc_nl_plane_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	const struct mrc_cfg_plane *p;
	struct mrc_cfg_plane pl;
	long id;
	int err;

	err = mrc_nl_dump_check(skb, cb);
	if (err)
		return err;
	cb->seq = mrc_cfg_generation(net);
	for (id = cb->args[0]; id < MRC_PLANES_NR; id++) {
		rcu_read_lock();
		p = mrc_cfg_plane_get(net, id);
		if (p)
			pl = *p;
		rcu_read_unlock();
		if (!p)
			continue;
		if (mrc_nl_put_msg(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				   NLM_F_MULTI, MRC_CMD_PLANE_GET, cb,
				   mrc_nl_fill_plane, net, &pl))
			break;
	}
	cb->args[0] = id;
	return skb->len;
}

/* ------------------------------------------------------------------ */
/* Routes                                                             */
/* ------------------------------------------------------------------ */

/* Largest route message: every path an srh path with MRC_SEGS_MAX SIDs. */
#define MRC_NL_PATH_MAX_SIZE						\
	(nla_total_size(0) +				/* PATH */	\
	 nla_total_size(sizeof(u32)) +			/* PLANE */	\
	 nla_total_size(0) +				/* SEGS */	\
	 MRC_SEGS_MAX * nla_total_size(sizeof(struct in6_addr)))
#define MRC_NL_ROUTE_HDR_SIZE						\
	(nla_total_size(sizeof(struct in6_addr)) +	/* DST */	\
	 nla_total_size(sizeof(u8)) * 2)		/* DST_LEN, ENCAP */
#define MRC_NL_ROUTE_MAX_MSG						\
	(NLMSG_HDRLEN + GENL_HDRLEN + MRC_NL_ROUTE_HDR_SIZE +		\
	 MRC_ROUTE_PATHS_MAX * MRC_NL_PATH_MAX_SIZE)

static size_t mrc_nl_route_size(const struct mrc_cfg_route *rt)
{
	return MRC_NL_ROUTE_HDR_SIZE + rt->npaths * MRC_NL_PATH_MAX_SIZE;
}

static int mrc_nl_fill_path(struct sk_buff *skb, u8 encap,
			    const struct mrc_cfg_path *path)
{
	struct nlattr *pnest, *snest;
	int i;

	pnest = nla_nest_start(skb, MRC_ATTR_PATH);
	if (!pnest || nla_put_u32(skb, MRC_PATH_ATTR_PLANE, path->plane))
		return -EMSGSIZE;
	if (encap == MRC_ENCAP_SRH) {
		snest = nla_nest_start(skb, MRC_PATH_ATTR_SEGS);
		if (!snest)
			return -EMSGSIZE;
		for (i = 0; i < path->nsegs; i++)
			if (nla_put_in6_addr(skb, MRC_SEG_ATTR_SID, &path->segs[i]))
				return -EMSGSIZE;
		nla_nest_end(skb, snest);
	} else if (encap == MRC_ENCAP_USID) {
		if (nla_put_in6_addr(skb, MRC_PATH_ATTR_USID, &path->segs[0]))
			return -EMSGSIZE;
	}
	nla_nest_end(skb, pnest);
	return 0;
}

static int mrc_nl_fill_route(struct sk_buff *skb, struct net *net, const void *obj)
{
	const struct mrc_cfg_route *rt = obj;
	int i;

	if (nla_put_in6_addr(skb, MRC_ATTR_DST, &rt->dst) ||
	    nla_put_u8(skb, MRC_ATTR_DST_LEN, rt->dst_len) ||
	    nla_put_u8(skb, MRC_ATTR_ENCAP, rt->encap))
		return -EMSGSIZE;
	for (i = 0; i < rt->npaths; i++)
		if (mrc_nl_fill_path(skb, rt->encap, &rt->paths[i]))
			return -EMSGSIZE;
	return 0;
}

/**
 * mrc_nl_notify_route() - report a route event
 * @net: the namespace
 * @cmd: MRC_CMD_ROUTE_ADD_NTF, MRC_CMD_ROUTE_DEL_NTF or
 *       MRC_CMD_ROUTE_CHANGE_NTF (replaced)
 * @rt:  the route (for a deletion: as it was)
 * @gfp: allocation context
 */
static void mrc_nl_notify_route(struct net *net, u8 cmd,
				const struct mrc_cfg_route *rt, gfp_t gfp)
{
	mrc_nl_notify(net, cmd, mrc_nl_route_size(rt), mrc_nl_fill_route, rt, gfp);
}

/* DST and DST_LEN of a request; the prefix must have no host bits. */
static int mrc_nl_parse_prefix(struct genl_info *info, struct in6_addr *dst,
			       u8 *len)
{
	struct in6_addr pfx;

	if (MRC_NL_MISSING(info, MRC_ATTR_DST, "missing destination prefix") ||
	    MRC_NL_MISSING(info, MRC_ATTR_DST_LEN, "missing destination prefix length"))
		return -EINVAL;
	*dst = nla_get_in6_addr(info->attrs[MRC_ATTR_DST]);
	*len = nla_get_u8(info->attrs[MRC_ATTR_DST_LEN]);
	ipv6_addr_prefix(&pfx, dst, *len);
	if (!ipv6_addr_equal(&pfx, dst)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_ATTR_DST],
				    "destination prefix has bits set beyond its length");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_parse_segs(struct genl_info *info, const struct nlattr *segs,
			     struct mrc_cfg_path *path)
{
	const struct nlattr *sid;
	int rem;

	nla_for_each_nested(sid, segs, rem) {
		/* Only MRC_SEG_ATTR_SID (policy) of 16 bytes (mrc_nl_check()). */
		if (path->nsegs == MRC_SEGS_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, sid,
					    "segment list longer than 8 SIDs");
			return -EINVAL;
		}
		path->segs[path->nsegs] = nla_get_in6_addr(sid);
		if (!mrc_nl_addr_unicast(&path->segs[path->nsegs])) {
			NL_SET_ERR_MSG_ATTR(info->extack, sid,
					    "SID must be a unicast address");
			return -EINVAL;
		}
		path->nsegs++;
	}
	if (!path->nsegs) {
		NL_SET_ERR_MSG_ATTR(info->extack, segs, "empty segment list");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_parse_path(struct genl_info *info, const struct nlattr *nest,
			     u8 encap, struct mrc_cfg_path *path)
{
	struct nlattr *tb[MRC_PATH_ATTR_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	int err;

	err = nla_parse_nested(tb, MRC_PATH_ATTR_MAX, nest, mrc_nl_path_policy, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, MRC_PATH_ATTR_PLANE)) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "path without plane id");
		return -EINVAL;
	}
	path->plane = nla_get_u32(tb[MRC_PATH_ATTR_PLANE]);

	switch (encap) {
	case MRC_ENCAP_NONE:
		if (tb[MRC_PATH_ATTR_SEGS] || tb[MRC_PATH_ATTR_USID]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MRC_PATH_ATTR_SEGS] ?:
					    tb[MRC_PATH_ATTR_USID],
					    "encap none takes no segment list or uSID container");
			return -EINVAL;
		}
		return 0;
	case MRC_ENCAP_SRH:
		if (tb[MRC_PATH_ATTR_USID]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MRC_PATH_ATTR_USID],
					    "encap srh takes no uSID container");
			return -EINVAL;
		}
		if (NL_REQ_ATTR_CHECK(extack, nest, tb, MRC_PATH_ATTR_SEGS)) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "encap srh needs a segment list on every path");
			return -EINVAL;
		}
		return mrc_nl_parse_segs(info, tb[MRC_PATH_ATTR_SEGS], path);
	default:	/* MRC_ENCAP_USID, mrc_nl_check() allows nothing else */
		if (tb[MRC_PATH_ATTR_SEGS]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MRC_PATH_ATTR_SEGS],
					    "encap usid takes no segment list");
			return -EINVAL;
		}
		if (NL_REQ_ATTR_CHECK(extack, nest, tb, MRC_PATH_ATTR_USID)) {
			NL_SET_ERR_MSG_ATTR(extack, nest,
					    "encap usid needs a uSID container on every path");
			return -EINVAL;
		}
		path->segs[0] = nla_get_in6_addr(tb[MRC_PATH_ATTR_USID]);
		path->nsegs = 1;
		if (!mrc_nl_addr_unicast(&path->segs[0])) {
			NL_SET_ERR_MSG_ATTR(extack, tb[MRC_PATH_ATTR_USID],
					    "uSID container must be a unicast address");
			return -EINVAL;
		}
		return 0;
	}
}

static int mrc_nl_parse_route(struct genl_info *info, struct mrc_cfg_route **out)
{
	struct mrc_cfg_route *rt;
	const struct nlattr *nla;
	struct in6_addr dst;
	u32 npaths = 0, i = 0;
	u8 dst_len, encap;
	int rem, err;

	err = mrc_nl_parse_prefix(info, &dst, &dst_len);
	if (err)
		return err;
	encap = info->attrs[MRC_ATTR_ENCAP] ?
		nla_get_u8(info->attrs[MRC_ATTR_ENCAP]) : MRC_ENCAP_NONE;

	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != MRC_ATTR_PATH)
			continue;
		if (++npaths > MRC_ROUTE_PATHS_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, nla,
					    "too many paths (at most 64 per route)");
			return -EINVAL;
		}
	}
	if (!npaths && encap != MRC_ENCAP_NONE) {
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_ATTR_PATH);
		NL_SET_ERR_MSG_MOD(info->extack,
				   "encap srh and usid need at least one path");
		return -EINVAL;
	}

	rt = mrc_cfg_route_alloc(npaths);
	if (!rt)
		return -ENOMEM;
	rt->dst = dst;
	rt->dst_len = dst_len;
	rt->encap = encap;
	nlmsg_for_each_attr(nla, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(nla) != MRC_ATTR_PATH)
			continue;
		err = mrc_nl_parse_path(info, nla, encap, &rt->paths[i]);
		if (err) {
			mrc_cfg_route_put(rt);
			return err;
		}
		rt->plane_mask |= BIT(rt->paths[i].plane);
		i++;
	}
	*out = rt;
	return 0;
}

int mrc_nl_route_add(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_cfg_route *rt;
	int err;

	err = mrc_nl_parse_route(info, &rt);
	if (err)
		return mrc_nl_reject(info, err);
	return mrc_nl_reject(info, mrc_cfg_route_add(genl_info_net(info), rt,
				nla_get_flag(info->attrs[MRC_ATTR_REPLACE]),
				info->extack));
}

int mrc_nl_route_del(struct sk_buff *skb, struct genl_info *info)
{
	struct in6_addr dst;
	u8 len;
	int err;

	err = mrc_nl_parse_prefix(info, &dst, &len);
	if (!err)
		err = mrc_cfg_route_del(genl_info_net(info), &dst, len, info->extack);
	return mrc_nl_reject(info, err);
}

/*
 * ROUTE_GET do: with DST_LEN the route of exactly that prefix; without it
 * the route the datapath would use for the address DST (longest prefix).
 */
int mrc_nl_route_get(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_cfg_route *rt;
	struct in6_addr dst;
	u8 len;
	int err;

	if (info->attrs[MRC_ATTR_DST_LEN]) {
		err = mrc_nl_parse_prefix(info, &dst, &len);
		if (err)
			return mrc_nl_reject(info, err);
		rcu_read_lock();
		rt = mrc_cfg_route_find(net, &dst, len);
	} else {
		if (MRC_NL_MISSING(info, MRC_ATTR_DST, "missing destination"))
			return mrc_nl_reject(info, -EINVAL);
		dst = nla_get_in6_addr(info->attrs[MRC_ATTR_DST]);
		rcu_read_lock();
		rt = mrc_cfg_route_lookup(net, &dst);
	}
	if (rt && !mrc_cfg_route_hold(rt))
		rt = NULL;
	rcu_read_unlock();
	if (!rt) {
		NL_SET_ERR_MSG_MOD(info->extack, "no route to this destination");
		return mrc_nl_reject(info, -ENOENT);
	}
	err = mrc_nl_reply(info, mrc_nl_route_size(rt), mrc_nl_fill_route, rt);
	mrc_cfg_route_put(rt);
	return err;
}

int mrc_nl_route_dump_start(struct netlink_callback *cb)
{
	/* One route must always fit in one dump skb. */
	BUILD_BUG_ON(MRC_NL_ROUTE_MAX_MSG > U16_MAX);
	cb->min_dump_alloc = MRC_NL_ROUTE_MAX_MSG;
	return 0;
}

struct mrc_nl_dump_ctx {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct net *net;
};

static int mrc_nl_route_dump_one(const struct mrc_cfg_route *rt, void *arg)
{
	struct mrc_nl_dump_ctx *ctx = arg;

	return mrc_nl_put_msg(ctx->skb, NETLINK_CB(ctx->cb->skb).portid,
			      ctx->cb->nlh->nlmsg_seq, NLM_F_MULTI,
			      MRC_CMD_ROUTE_GET, ctx->cb, mrc_nl_fill_route,
			      ctx->net, rt);
}

int mrc_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_nl_dump_ctx ctx = {
		.skb = skb, .cb = cb, .net = sock_net(skb->sk),
	};
	int err;

	err = mrc_nl_dump_check(skb, cb);
	if (err)
		return err;
	cb->seq = mrc_cfg_generation(ctx.net);
	mrc_cfg_route_walk(ctx.net, &cb->args[0], &cb->args[1],
			   mrc_nl_route_dump_one, &ctx);
	return skb->len;
}

/* ------------------------------------------------------------------ */
/* Profiles                                                           */
/* ------------------------------------------------------------------ */

static size_t mrc_nl_profile_size(void)
{
	return nla_total_size(sizeof(u32)) +			/* PROFILE_ID */
	       nla_total_size(0) + 6 * nla_total_size(sizeof(u32)) +	/* EV */
	       nla_total_size(0) + nla_total_size(sizeof(u8)) +	/* CC */
	       6 * nla_total_size(sizeof(u32));
}

static int mrc_nl_fill_profile(struct sk_buff *skb, struct net *net, const void *obj)
{
	const struct mrc_cfg_profile *p = obj;
	struct nlattr *nest;

	if (nla_put_u32(skb, MRC_ATTR_PROFILE_ID, p->id))
		return -EMSGSIZE;
	nest = nla_nest_start(skb, MRC_ATTR_PROFILE_EV);
	if (!nest ||
	    nla_put_u32(skb, MRC_EV_ATTR_COUNT, p->ev_count) ||
	    nla_put_u32(skb, MRC_EV_ATTR_ACTIVE_PER_PLANE, p->ev_active_per_plane) ||
	    nla_put_u32(skb, MRC_EV_ATTR_MIN_ACTIVE, p->ev_min_active) ||
	    nla_put_u32(skb, MRC_EV_ATTR_BURST, p->ev_burst) ||
	    nla_put_u32(skb, MRC_EV_ATTR_DSCP, p->dscp) ||
	    nla_put_u32(skb, MRC_EV_ATTR_DSCP_CTL, p->dscp_ctl))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	nest = nla_nest_start(skb, MRC_ATTR_PROFILE_CC);
	if (!nest ||
	    nla_put_u8(skb, MRC_CC_ATTR_ALGO, p->cc_algo) ||
	    nla_put_u32(skb, MRC_CC_ATTR_TARGET_DELAY_PM, p->cc_target_delay_pm) ||
	    nla_put_u32(skb, MRC_CC_ATTR_GAMMA_PM, p->cc_gamma_pm) ||
	    nla_put_u32(skb, MRC_CC_ATTR_MAX_MD_PM, p->cc_max_md_pm) ||
	    nla_put_u32(skb, MRC_CC_ATTR_MAX_WND_PM, p->cc_max_wnd_pm) ||
	    nla_put_u32(skb, MRC_CC_ATTR_INIT_WND_PM, p->cc_init_wnd_pm) ||
	    nla_put_u32(skb, MRC_CC_ATTR_LINK_MBPS, p->cc_link_mbps) ||
	    nla_put_u8(skb, MRC_CC_ATTR_INIT_WND_SHARED, p->cc_init_wnd_shared))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static void mrc_nl_get_u32(u32 *dst, struct nlattr **tb, int type)
{
	if (tb[type])
		*dst = nla_get_u32(tb[type]);
}

/* Applies the EV and CC nests of the request to a profile copy. */
static int mrc_nl_profile_apply(struct mrc_cfg_profile *p, void *arg)
{
	struct genl_info *info = arg;
	struct nlattr *ev[MRC_EV_ATTR_MAX + 1];
	struct nlattr *cc[MRC_CC_ATTR_MAX + 1];
	int err;

	if (info->attrs[MRC_ATTR_PROFILE_EV]) {
		err = nla_parse_nested(ev, MRC_EV_ATTR_MAX, info->attrs[MRC_ATTR_PROFILE_EV],
				       mrc_nl_ev_policy, info->extack);
		if (err)
			return err;
		mrc_nl_get_u32(&p->ev_count, ev, MRC_EV_ATTR_COUNT);
		mrc_nl_get_u32(&p->ev_active_per_plane, ev, MRC_EV_ATTR_ACTIVE_PER_PLANE);
		mrc_nl_get_u32(&p->ev_min_active, ev, MRC_EV_ATTR_MIN_ACTIVE);
		mrc_nl_get_u32(&p->ev_burst, ev, MRC_EV_ATTR_BURST);
		mrc_nl_get_u32(&p->dscp, ev, MRC_EV_ATTR_DSCP);
		mrc_nl_get_u32(&p->dscp_ctl, ev, MRC_EV_ATTR_DSCP_CTL);
	}
	if (info->attrs[MRC_ATTR_PROFILE_CC]) {
		err = nla_parse_nested(cc, MRC_CC_ATTR_MAX, info->attrs[MRC_ATTR_PROFILE_CC],
				       mrc_nl_cc_policy, info->extack);
		if (err)
			return err;
		if (cc[MRC_CC_ATTR_ALGO])
			p->cc_algo = nla_get_u8(cc[MRC_CC_ATTR_ALGO]);
		mrc_nl_get_u32(&p->cc_target_delay_pm, cc, MRC_CC_ATTR_TARGET_DELAY_PM);
		mrc_nl_get_u32(&p->cc_gamma_pm, cc, MRC_CC_ATTR_GAMMA_PM);
		mrc_nl_get_u32(&p->cc_max_md_pm, cc, MRC_CC_ATTR_MAX_MD_PM);
		mrc_nl_get_u32(&p->cc_max_wnd_pm, cc, MRC_CC_ATTR_MAX_WND_PM);
		mrc_nl_get_u32(&p->cc_init_wnd_pm, cc, MRC_CC_ATTR_INIT_WND_PM);
		mrc_nl_get_u32(&p->cc_link_mbps, cc, MRC_CC_ATTR_LINK_MBPS);
		if (cc[MRC_CC_ATTR_INIT_WND_SHARED])
			p->cc_init_wnd_shared =
				nla_get_u8(cc[MRC_CC_ATTR_INIT_WND_SHARED]);
	}
	return 0;
}

static int mrc_nl_profile_write(struct genl_info *info, bool create)
{
	if (MRC_NL_MISSING(info, MRC_ATTR_PROFILE_ID, "missing profile id"))
		return mrc_nl_reject(info, -EINVAL);
	if (!create && !info->attrs[MRC_ATTR_PROFILE_EV] &&
	    !info->attrs[MRC_ATTR_PROFILE_CC]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "nothing to change: give EV or CC parameters");
		return mrc_nl_reject(info, -EINVAL);
	}
	return mrc_nl_reject(info, mrc_cfg_profile_update(genl_info_net(info),
				nla_get_u32(info->attrs[MRC_ATTR_PROFILE_ID]),
				create, mrc_nl_profile_apply, info, info->extack));
}

int mrc_nl_profile_add(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_profile_write(info, true);
}

int mrc_nl_profile_set(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_profile_write(info, false);
}

int mrc_nl_profile_del(struct sk_buff *skb, struct genl_info *info)
{
	if (MRC_NL_MISSING(info, MRC_ATTR_PROFILE_ID, "missing profile id"))
		return mrc_nl_reject(info, -EINVAL);
	return mrc_nl_reject(info, mrc_cfg_profile_del(genl_info_net(info),
				nla_get_u32(info->attrs[MRC_ATTR_PROFILE_ID]),
				info->extack));
}

int mrc_nl_profile_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_cfg_profile p;

	if (MRC_NL_MISSING(info, MRC_ATTR_PROFILE_ID, "missing profile id"))
		return mrc_nl_reject(info, -EINVAL);
	if (mrc_cfg_profile_copy(genl_info_net(info),
				 nla_get_u32(info->attrs[MRC_ATTR_PROFILE_ID]), &p)) {
		NL_SET_ERR_MSG_MOD(info->extack, "profile does not exist");
		return mrc_nl_reject(info, -ENOENT);
	}
	return mrc_nl_reply(info, mrc_nl_profile_size(), mrc_nl_fill_profile, &p);
}

int mrc_nl_profile_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct net *net = sock_net(skb->sk);
	struct mrc_cfg_profile p;
	long id;
	int err;

	err = mrc_nl_dump_check(skb, cb);
	if (err)
		return err;
	cb->seq = mrc_cfg_generation(net);
	for (id = cb->args[0]; id < MRC_PROFILES_NR; id++) {
		if (mrc_cfg_profile_copy(net, id, &p))
			continue;
		if (mrc_nl_put_msg(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
				   NLM_F_MULTI, MRC_CMD_PROFILE_GET, cb,
				   mrc_nl_fill_profile, net, &p))
			break;
	}
	cb->args[0] = id;
	return skb->len;
}

/* ------------------------------------------------------------------ */
/* Configuration events                                               */
/* ------------------------------------------------------------------ */

/*
 * The consumer of the configuration chain: one MRC_CMD_*_NTF per event, as
 * the store sent them itself before it had a chain. Process context, the
 * store's mutex held, no spinlock, no RCU read side: GFP_KERNEL is fine.
 */
static int mrc_nl_cfg_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	const struct mrc_cfg_notifier_info *info = ptr;

	switch (event) {
	case MRC_CFG_PLANE_ADD:
		mrc_nl_notify_plane(info->net, MRC_CMD_PLANE_ADD_NTF, info->plane,
				    GFP_KERNEL);
		break;
	case MRC_CFG_PLANE_DEL:
		mrc_nl_notify_plane(info->net, MRC_CMD_PLANE_DEL_NTF, info->plane,
				    GFP_KERNEL);
		break;
	case MRC_CFG_PLANE_CHANGE:
		mrc_nl_notify_plane(info->net, MRC_CMD_PLANE_CHANGE_NTF,
				    info->plane, GFP_KERNEL);
		break;
	case MRC_CFG_ROUTE_ADD:
		mrc_nl_notify_route(info->net, MRC_CMD_ROUTE_ADD_NTF, info->route,
				    GFP_KERNEL);
		break;
	case MRC_CFG_ROUTE_CHANGE:
		mrc_nl_notify_route(info->net, MRC_CMD_ROUTE_CHANGE_NTF,
				    info->route, GFP_KERNEL);
		break;
	case MRC_CFG_ROUTE_DEL:
		mrc_nl_notify_route(info->net, MRC_CMD_ROUTE_DEL_NTF, info->route,
				    GFP_KERNEL);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block mrc_nl_cfg_nb = {
	.notifier_call	= mrc_nl_cfg_event,
	/* Listeners hear of a change before connections act on it. */
	.priority	= MRC_CFG_PRIO_NL,
};

/**
 * mrc_nl_cfg_init_module() - hear of configuration changes
 *
 * Registers the consumer of the configuration chain that multicasts the
 * MRC_CMD_PLANE_* and MRC_CMD_ROUTE_* events. Called before anything can
 * raise one (the netdevice notifier, the family's handlers); until the
 * family is registered, mrc_nl_notify() drops them (nobody can listen).
 *
 * Return: 0 or a negative errno from mrc_cfg_register_notifier().
 */
int mrc_nl_cfg_init_module(void)
{
	return mrc_cfg_register_notifier(&mrc_nl_cfg_nb);
}

/**
 * mrc_nl_cfg_exit_module() - stop hearing of configuration changes
 *
 * Called once nothing raises events any more (the family and the netdevice
 * notifier are unregistered); returns when no call of the consumer runs.
 */
void mrc_nl_cfg_exit_module(void)
{
	mrc_cfg_unregister_notifier(&mrc_nl_cfg_nb);
}
