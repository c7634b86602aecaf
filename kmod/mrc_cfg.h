/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_cfg.h - per network namespace configuration of mrc.ko: planes,
 * routes (destination prefix -> per-plane path templates) and EV/CC
 * profiles. Written by the generic netlink family (mrc_nl_cfg.c), read by
 * the datapath.
 *
 * Rules for readers (the datapath)
 * ================================
 * Every object is immutable once published: a writer builds a new copy,
 * swaps the pointer and frees the old one after an RCU grace period
 * (kfree_rcu). So:
 *
 *  - mrc_cfg_plane_get(), mrc_cfg_profile_get() and mrc_cfg_route_lookup()
 *    must be called inside an RCU read-side section (rcu_read_lock(), or
 *    softirq context, which is one). The pointer they return is valid until
 *    that section ends and must never be written through.
 *  - To keep a route beyond the section (a connection caching its path
 *    templates), take a reference with mrc_cfg_route_hold() while still
 *    inside it, and drop it with mrc_cfg_route_put() from any context. A
 *    held route may have been deleted or replaced meanwhile: it is a
 *    consistent snapshot, not the current configuration.
 *  - Planes and profiles are small: copy the fields needed (or use
 *    mrc_cfg_profile_copy()); they have no reference count.
 *
 * Writers are the netlink handlers and the netdevice notifier, serialised by
 * a per-namespace mutex; see the locking block at the top of mrc_cfg.c.
 *
 * Changes reported upward
 * =======================
 * The store calls no layer above it. Every change that somebody above must
 * hear of (a plane added, deleted or changed, including its device's
 * carrier and operational state; a route added, replaced or deleted) is
 * raised on one module-wide notifier chain, the way the kernel reports
 * netdevice and address changes: the netlink family (mrc_nl_cfg.c) turns
 * them into MRC_CMD_*_NTF events, the path layer (mrc_path.c) passes a
 * plane's state on to the connections using it. Consumers register with
 * mrc_cfg_register_notifier(); see enum mrc_cfg_event for what each event
 * carries and enum mrc_cfg_notifier_prio for the order they are told in.
 */
#ifndef MRC_CFG_H
#define MRC_CFG_H

#include <linux/in6.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/mrc.h>

struct net;
struct netlink_ext_ack;
struct notifier_block;

#define MRC_PLANES_NR	(MRC_PLANE_ID_MAX + 1)
#define MRC_PROFILES_NR	(MRC_PROFILE_ID_MAX + 1)

/**
 * struct mrc_cfg_plane - one plane: a netdev and a source address
 * @rcu:      frees the object after a grace period
 * @id:       plane id, 0..MRC_PLANE_ID_MAX
 * @admin_up: administrative state
 * @ifindex:  the plane's netdev in the plane's namespace; 0 once the device
 *            was unregistered or moved away (the plane stays, detached)
 * @saddr:    IPv6 source address of packets sent on this plane
 */
struct mrc_cfg_plane {
	struct rcu_head rcu;
	u8 id;
	bool admin_up;
	int ifindex;
	struct in6_addr saddr;
};

/**
 * struct mrc_cfg_path - one path template of a route
 * @plane: plane the path leaves on
 * @nsegs: MRC_ENCAP_NONE: 0; MRC_ENCAP_SRH: 1..MRC_SEGS_MAX SIDs in
 *         @segs, first segment first; MRC_ENCAP_USID: 1, @segs[0] is the
 *         uSID container
 * @segs:  the SIDs
 */
struct mrc_cfg_path {
	u8 plane;
	u8 nsegs;
	struct in6_addr segs[MRC_SEGS_MAX];
};

/**
 * struct mrc_cfg_route - destination prefix and its path templates
 * @node:       link in the namespace's route hash (RCU)
 * @rcu:        frees the object after a grace period
 * @ref:        one reference for the table, one per mrc_cfg_route_hold()
 * @dst:        destination prefix, no bits set beyond @dst_len
 * @dst_len:    prefix length 0..128
 * @encap:      enum mrc_encap
 * @npaths:     entries in @paths; 0 only for MRC_ENCAP_NONE, meaning
 *              "every plane that is up"
 * @plane_mask: bit p set when some path uses plane p
 * @paths:      the path templates, in the order they were given
 */
struct mrc_cfg_route {
	struct hlist_node node;
	struct rcu_head rcu;
	refcount_t ref;
	struct in6_addr dst;
	u8 dst_len;
	u8 encap;
	u16 npaths;
	u32 plane_mask;
	struct mrc_cfg_path paths[];
};

/**
 * struct mrc_cfg_profile - EV and congestion-control parameters
 * @rcu:                 frees the object after a grace period
 * @id:                  profile id, 0..MRC_PROFILE_ID_MAX
 * @ev_count:            EVs per connection
 * @ev_active_per_plane: active EVs per plane (0: derived)
 * @ev_min_active:       floor of usable active EVs (0: derived)
 * @ev_burst:            packets per flowcell
 * @dscp:                DSCP of data packets
 * @dscp_ctl:            DSCP of control packets
 * @cc_algo:             enum mrc_cc_algo_id
 * @cc_target_delay_pm:  target queueing delay, per mille of base RTT
 * @cc_gamma_pm:         multiplicative-decrease gain, per mille
 * @cc_max_md_pm:        largest single decrease, per mille of the window
 * @cc_max_wnd_pm:       window ceiling, per mille of the BDP
 * @cc_init_wnd_pm:      initial window, per mille of the BDP
 * @cc_link_mbps:        the fabric's link rate, Mbit/s (uec's scaling)
 * @cc_init_wnd_shared:  split the namespace's initial window (0/1)
 */
struct mrc_cfg_profile {
	struct rcu_head rcu;
	u32 id;
	u32 ev_count;
	u32 ev_active_per_plane;
	u32 ev_min_active;
	u32 ev_burst;
	u32 dscp;
	u32 dscp_ctl;
	u32 cc_algo;
	u32 cc_target_delay_pm;
	u32 cc_gamma_pm;
	u32 cc_max_md_pm;
	u32 cc_max_wnd_pm;
	u32 cc_init_wnd_pm;
	u32 cc_link_mbps;
	u32 cc_init_wnd_shared;
};

/**
 * enum mrc_cfg_reject - why a netlink handler refused a request
 * @MRC_REJ_INVAL: EINVAL
 * @MRC_REJ_NOENT: ENOENT
 * @MRC_REJ_EXIST: EEXIST
 * @MRC_REJ_NODEV: ENODEV
 * @MRC_REJ_NOSPC: ENOSPC
 * @MRC_REJ_BUSY:  EBUSY
 * @MRC_REJ_NOMEM: ENOMEM
 * @MRC_REJ_OTHER: anything else
 * @__MRC_REJ_MAX: number of reasons
 */
enum mrc_cfg_reject {
	MRC_REJ_INVAL,
	MRC_REJ_NOENT,
	MRC_REJ_EXIST,
	MRC_REJ_NODEV,
	MRC_REJ_NOSPC,
	MRC_REJ_BUSY,
	MRC_REJ_NOMEM,
	MRC_REJ_OTHER,
	__MRC_REJ_MAX,
};

/**
 * struct mrc_cfg_stats - a snapshot of the configuration counters
 * @planes:   configured planes
 * @routes:   configured routes
 * @profiles: configured profiles
 * @changes:  configuration changes applied
 * @events:   notifications sent
 * @rejects:  handler rejections by reason
 */
struct mrc_cfg_stats {
	u32 planes;
	u32 routes;
	u32 profiles;
	u64 changes;
	u64 events;
	u64 rejects[__MRC_REJ_MAX];
};

/**
 * struct mrc_cfg_plane_change - what MRC_CMD_PLANE_SET changes
 * @set_admin:   change @admin_up
 * @admin_up:    new administrative state
 * @set_ifindex: change @ifindex
 * @ifindex:     new netdev
 * @set_saddr:   change @saddr
 * @saddr:       new source address
 */
struct mrc_cfg_plane_change {
	bool set_admin;
	bool admin_up;
	bool set_ifindex;
	int ifindex;
	bool set_saddr;
	struct in6_addr saddr;
};

/**
 * enum mrc_cfg_event - configuration changes raised on the notifier chain
 * @MRC_CFG_PLANE_ADD:    a plane was added; @plane is the new plane, @up
 *                        its admin and operational state
 * @MRC_CFG_PLANE_DEL:    a plane was deleted; @plane is the plane as it
 *                        was, @up is false
 * @MRC_CFG_PLANE_CHANGE: a plane's admin state, device or source address
 *                        was set (netlink), or its device's operational
 *                        state changed (carrier, up/down) or the device
 *                        went away (netdevice notifier); @plane is the
 *                        plane now, @up its admin and operational state
 * @MRC_CFG_ROUTE_ADD:    a route was added; @route is the new route
 * @MRC_CFG_ROUTE_CHANGE: a route replaced the one of the same prefix;
 *                        @route is the new route
 * @MRC_CFG_ROUTE_DEL:    a route was deleted; @route is the route as it was
 *
 * The fields named are those of struct mrc_cfg_notifier_info. Profiles
 * raise no event: connections read theirs once, at set-up, and the netlink
 * family sends no profile notification.
 */
enum mrc_cfg_event {
	MRC_CFG_PLANE_ADD = 1,
	MRC_CFG_PLANE_DEL,
	MRC_CFG_PLANE_CHANGE,
	MRC_CFG_ROUTE_ADD,
	MRC_CFG_ROUTE_CHANGE,
	MRC_CFG_ROUTE_DEL,
};

/**
 * struct mrc_cfg_notifier_info - what a configuration event is about
 * @net:   namespace of the change (every consumer is per namespace; the
 *         chain is module-wide)
 * @plane: plane events: the plane (see enum mrc_cfg_event); valid for the
 *         call only, never to be modified
 * @route: route events: the route; valid for the call only (hold it with
 *         mrc_cfg_route_hold() to keep it), never to be modified
 * @up:    plane events: admin and operational state together, as the
 *         connections use it (false for MRC_CFG_PLANE_DEL)
 */
struct mrc_cfg_notifier_info {
	struct net *net;
	union {
		const struct mrc_cfg_plane *plane;
		const struct mrc_cfg_route *route;
	};
	bool up;
};

/**
 * enum mrc_cfg_notifier_prio - the order the module's consumers are told in
 * @MRC_CFG_PRIO_CONN: connections (mrc_path.c): told last, after the
 *                     event went out
 * @MRC_CFG_PRIO_NL:   netlink events (mrc_nl_cfg.c): told first
 *
 * A chain calls higher priorities first. Netlink listeners hear of a
 * change before the connections act on it (and send their port-status
 * updates), as when the store made both calls itself.
 */
enum mrc_cfg_notifier_prio {
	MRC_CFG_PRIO_CONN = 0,
	MRC_CFG_PRIO_NL = 10,
};

int mrc_cfg_register_notifier(struct notifier_block *nb);
int mrc_cfg_unregister_notifier(struct notifier_block *nb);

int mrc_cfg_init_module(void);
void mrc_cfg_exit_module(void);
int mrc_cfg_notifier_init(void);
void mrc_cfg_notifier_exit(void);

/* Datapath (RCU) side. */
const struct mrc_cfg_plane *mrc_cfg_plane_get(const struct net *net, u32 id);
struct mrc_cfg_route *mrc_cfg_route_lookup(const struct net *net,
					   const struct in6_addr *daddr);
bool mrc_cfg_route_hold(struct mrc_cfg_route *rt);
void mrc_cfg_route_put(struct mrc_cfg_route *rt);
const struct mrc_cfg_profile *mrc_cfg_profile_get(const struct net *net, u32 id);
int mrc_cfg_profile_copy(const struct net *net, u32 id,
			 struct mrc_cfg_profile *out);

/*
 * Control (process context) side, used by the netlink family: mrc_nl_cfg.c
 * (objects), mrc_nl.c (rejections, events and counters).
 */
bool mrc_cfg_plane_oper_up(struct net *net, const struct mrc_cfg_plane *pl);
int mrc_cfg_plane_add(struct net *net, const struct mrc_cfg_plane *tmpl,
		      struct netlink_ext_ack *extack);
int mrc_cfg_plane_del(struct net *net, u32 id, struct netlink_ext_ack *extack);
int mrc_cfg_plane_set(struct net *net, u32 id,
		      const struct mrc_cfg_plane_change *chg,
		      struct netlink_ext_ack *extack);
struct mrc_cfg_route *mrc_cfg_route_alloc(u32 npaths);
int mrc_cfg_route_add(struct net *net, struct mrc_cfg_route *rt, bool replace,
		      struct netlink_ext_ack *extack);
int mrc_cfg_route_del(struct net *net, const struct in6_addr *dst, u8 dst_len,
		      struct netlink_ext_ack *extack);
struct mrc_cfg_route *mrc_cfg_route_find(const struct net *net,
					 const struct in6_addr *dst, u8 dst_len);
int mrc_cfg_route_walk(const struct net *net, long *bucket, long *skip,
		       int (*fn)(const struct mrc_cfg_route *rt, void *arg),
		       void *arg);
void mrc_cfg_profile_defaults(struct mrc_cfg_profile *p, u32 id);
int mrc_cfg_profile_update(struct net *net, u32 id, bool create,
			   int (*apply)(struct mrc_cfg_profile *p, void *arg),
			   void *arg, struct netlink_ext_ack *extack);
int mrc_cfg_profile_del(struct net *net, u32 id, struct netlink_ext_ack *extack);
u32 mrc_cfg_generation(const struct net *net);
void mrc_cfg_reject(struct net *net, int err);
void mrc_cfg_count_event(struct net *net);
void mrc_cfg_get_stats(const struct net *net, struct mrc_cfg_stats *st);

#endif /* MRC_CFG_H */
