/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_nl_impl.h - what the files of the generic netlink family "mrc" share.
 *
 * Internal to them; the rest of the module uses mrc_nl.h. The family is
 * split by object:
 *
 *   mrc_nl.c       the family: genl_family, ops table, per-command
 *                  policies, "events" group, register/unregister,
 *                  pre_doit and value checks, the helpers below, counters
 *                  (STATS_GET), mrc_nl_notify()
 *   mrc_nl_cfg.c   configuration objects: planes, routes, profiles
 *   mrc_nl_conn.c  connections: the CONN_GET dump, connection events,
 *                  EV probes
 *
 * The handlers declared here are referenced by the ops table in mrc_nl.c
 * only; each file's top comment gives its locking rules.
 */
#ifndef MRC_NL_IMPL_H
#define MRC_NL_IMPL_H

#include <linux/types.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <linux/mrc.h>

struct net;
struct netlink_callback;
struct sk_buff;

/**
 * typedef mrc_nl_fill_fn - puts the attributes of one object in a message
 * @skb: the message, its genetlink header already put
 * @net: the namespace the message is for
 * @obj: the object (a copy or a held reference, never modified)
 *
 * Return: 0, or -EMSGSIZE when @skb is full (the message is cancelled).
 */
typedef int (*mrc_nl_fill_fn)(struct sk_buff *skb, struct net *net, const void *obj);

/**
 * MRC_NL_MISSING() - check a required top-level attribute
 * @info: the request
 * @attr: the attribute type (MRC_ATTR_*)
 * @msg:  extack message (a literal) when it is missing
 *
 * Reports @attr as missing (NLMSGERR_ATTR_MISS_TYPE) with @msg.
 *
 * Return: true when it is missing.
 */
#define MRC_NL_MISSING(info, attr, msg) ({				\
	struct genl_info *__i = (info);					\
	bool __miss = GENL_REQ_ATTR_CHECK(__i, attr);			\
									\
	if (__miss)							\
		NL_SET_ERR_MSG_MOD(__i->extack, msg);			\
	__miss;								\
})

/**
 * mrc_nl_addr_unicast() - whether an address may be a source, SID or peer
 * @a: the address
 *
 * Return: true unless @a is the unspecified or a multicast address.
 */
static inline bool mrc_nl_addr_unicast(const struct in6_addr *a)
{
	return !ipv6_addr_any(a) && !ipv6_addr_is_multicast(a);
}

/*
 * The nested policies (mrc_nl.c): mrc_nl_check() validates the nests with
 * them before any handler runs, the handlers of mrc_nl_cfg.c parse them
 * again with the same policy.
 */
extern const struct nla_policy mrc_nl_path_policy[MRC_PATH_ATTR_MAX + 1];
extern const struct nla_policy mrc_nl_ev_policy[MRC_EV_ATTR_MAX + 1];
extern const struct nla_policy mrc_nl_cc_policy[MRC_CC_ATTR_MAX + 1];

/* ------------------------------------------------------------------ */
/* Helpers (mrc_nl.c)                                                 */
/* ------------------------------------------------------------------ */

/**
 * mrc_nl_reject() - count a handler-level rejection and pass the errno on
 * @info: the request
 * @err:  0 or a negative errno
 *
 * Context: process; counted in the namespace of the request
 * (mrc_cfg_reject()) unless @err is 0.
 * Return: @err.
 */
int mrc_nl_reject(struct genl_info *info, int err);

/**
 * mrc_nl_put_msg() - one complete message: header, attributes from @fill
 * @skb:    where to put it
 * @portid: netlink port of the receiver (0 for a multicast)
 * @seq:    sequence number
 * @flags:  netlink flags (NLM_F_MULTI in a dump)
 * @cmd:    the genetlink command of the message
 * @cb:     the dump it is part of (consistency check), or NULL
 * @fill:   puts the attributes of @obj
 * @net:    passed on to @fill
 * @obj:    passed on to @fill
 *
 * Return: 0, or -EMSGSIZE with nothing left in @skb.
 */
int mrc_nl_put_msg(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		   u8 cmd, struct netlink_callback *cb, mrc_nl_fill_fn fill,
		   struct net *net, const void *obj);

/**
 * mrc_nl_reply() - answer a "do" with one object
 * @info: the request; the reply carries its command
 * @size: payload size estimate (attributes only)
 * @fill: puts the attributes of @obj
 * @obj:  the object
 *
 * Context: process (GFP_KERNEL).
 * Return: 0 or a negative errno (not counted as a rejection).
 */
int mrc_nl_reply(struct genl_info *info, size_t size, mrc_nl_fill_fn fill,
		 const void *obj);

/**
 * mrc_nl_dump_check() - check the request of a dump at each of its parts
 * @skb: the dump's skb
 * @cb:  the dump
 *
 * The dumps do not use their request attributes, but refuse bad values
 * like a do would (the first part ends the dump with the error), counted
 * as a rejection.
 *
 * Return: 0 or -EINVAL with the attribute and its range in cb->extack.
 */
int mrc_nl_dump_check(struct sk_buff *skb, struct netlink_callback *cb);

/**
 * mrc_nl_has_listeners() - whether an event for @net would reach anybody
 * @net: the namespace
 *
 * Context: any; a test, nothing more.
 * Return: true when the family is registered and somebody in @net joined
 * the "events" group.
 */
bool mrc_nl_has_listeners(struct net *net);

/* ------------------------------------------------------------------ */
/* Configuration (mrc_nl_cfg.c)                                       */
/* ------------------------------------------------------------------ */

/*
 * Every handler below runs after mrc_nl_pre_doit() (or, for a dump, calls
 * mrc_nl_dump_check() first), so the values of its attributes are within
 * their ranges. A refusal is counted (mrc_nl_reject()) and explained in
 * extack. A do returns 0 or a negative errno, a dump the length of its
 * skb or a negative errno.
 */

/**
 * mrc_nl_plane_get() - MRC_CMD_PLANE_GET do: the plane MRC_ATTR_PLANE_ID
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno (-ENOENT: no such plane).
 */
int mrc_nl_plane_get(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_plane_dump() - MRC_CMD_PLANE_GET dump: every plane, by id
 * @skb: the part being filled
 * @cb:  the dump (cb->args[0]: the next plane id)
 *
 * Return: the length of @skb or a negative errno.
 */
int mrc_nl_plane_dump(struct sk_buff *skb, struct netlink_callback *cb);

/**
 * mrc_nl_plane_add() - MRC_CMD_PLANE_ADD: a plane on a device
 * @skb:  the request
 * @info: its attributes (id, device by ifindex and/or name, address)
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_plane_add(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_plane_del() - MRC_CMD_PLANE_DEL: delete the plane MRC_ATTR_PLANE_ID
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_plane_del(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_plane_set() - MRC_CMD_PLANE_SET: change admin state, device or
 * address of a plane
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_plane_set(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_route_get() - MRC_CMD_ROUTE_GET do: a route by prefix or address
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno (-ENOENT: no route).
 */
int mrc_nl_route_get(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_route_dump_start() - MRC_CMD_ROUTE_GET dump: size its skbs
 * @cb: the dump
 *
 * Return: 0 (the largest route always fits in one skb).
 */
int mrc_nl_route_dump_start(struct netlink_callback *cb);

/**
 * mrc_nl_route_dump() - MRC_CMD_ROUTE_GET dump: every route
 * @skb: the part being filled
 * @cb:  the dump (cb->args[0..1]: the cursor of mrc_cfg_route_walk())
 *
 * Return: the length of @skb or a negative errno.
 */
int mrc_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb);

/**
 * mrc_nl_route_add() - MRC_CMD_ROUTE_ADD: a route and its paths
 * @skb:  the request
 * @info: its attributes (MRC_ATTR_REPLACE to replace an existing one)
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_route_add(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_route_del() - MRC_CMD_ROUTE_DEL: delete the route of a prefix
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_route_del(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_profile_get() - MRC_CMD_PROFILE_GET do: the profile
 * MRC_ATTR_PROFILE_ID
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno (-ENOENT: no such profile).
 */
int mrc_nl_profile_get(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_profile_dump() - MRC_CMD_PROFILE_GET dump: every profile, by id
 * @skb: the part being filled
 * @cb:  the dump (cb->args[0]: the next profile id)
 *
 * Return: the length of @skb or a negative errno.
 */
int mrc_nl_profile_dump(struct sk_buff *skb, struct netlink_callback *cb);

/**
 * mrc_nl_profile_add() - MRC_CMD_PROFILE_ADD: a profile, defaults for what
 * the request leaves out
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_profile_add(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_profile_set() - MRC_CMD_PROFILE_SET: change EV or CC parameters
 * of a profile
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_profile_set(struct sk_buff *skb, struct genl_info *info);

/**
 * mrc_nl_profile_del() - MRC_CMD_PROFILE_DEL: delete the profile
 * MRC_ATTR_PROFILE_ID
 * @skb:  the request
 * @info: its attributes
 *
 * Return: 0 or a negative errno.
 */
int mrc_nl_profile_del(struct sk_buff *skb, struct genl_info *info);

/* ------------------------------------------------------------------ */
/* Connections (mrc_nl_conn.c)                                        */
/* ------------------------------------------------------------------ */

/**
 * mrc_nl_conn_dump_start() - MRC_CMD_CONN_GET dump: size its skbs
 * @cb: the dump
 *
 * Return: 0 (one message of a connection always fits in one skb).
 */
int mrc_nl_conn_dump_start(struct netlink_callback *cb);

/**
 * mrc_nl_conn_dump() - MRC_CMD_CONN_GET dump: every connection of the
 * namespace, or the one MRC_ATTR_CONN_QPN names
 * @skb: the part being filled
 * @cb:  the dump (cursor: see the top of mrc_nl_conn.c)
 *
 * Return: the length of @skb or a negative errno.
 */
int mrc_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb);

/**
 * mrc_nl_ev_probe() - MRC_CMD_EV_PROBE: probe every path to a peer
 * @skb:  the request
 * @info: its attributes
 *
 * Context: process; sleeps until the probes are answered or time out.
 * Return: 0 (the results sent) or a negative errno.
 */
int mrc_nl_ev_probe(struct sk_buff *skb, struct genl_info *info);

#endif /* MRC_NL_IMPL_H */
