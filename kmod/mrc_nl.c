// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_nl.c - the generic netlink family "mrc" itself: its commands and
 * their policies, the value checks, the "events" multicast group, the
 * helpers every handler uses, the counters (STATS_GET) and registration.
 * The objects the family manages have files of their own, as TCP and
 * MPTCP keep one file per concern:
 *
 *   mrc_nl_cfg.c   configuration: planes, routes, profiles
 *   mrc_nl_conn.c  connections: the CONN_GET dump, connection events
 *                  (UP/DOWN, PATH_CHANGE) and EV probes
 *   mrc_nl_impl.h  what the three share (internal to them; the rest of
 *                  the module uses mrc_nl.h)
 *
 * Every command has its own policy listing exactly the attributes it
 * accepts; with .resv_start_op 0 every command is validated strictly, so an
 * attribute a command does not take, an unknown attribute, an integer of
 * the wrong size or a nest without NLA_F_NESTED is refused by the generic
 * netlink core. Values (ranges, address lengths) are checked by
 * mrc_nl_check() before any handler runs, refused with EINVAL and a message
 * naming the attribute. Handlers then check what neither can express
 * (required attributes, consistency) and report every refusal through
 * extack. Writes need CAP_NET_ADMIN in the user namespace
 * owning the network namespace (GENL_UNS_ADMIN_PERM). Everything acts on
 * the namespace of the requesting socket.
 *
 * The family runs with parallel_ops: the configuration store (mrc_cfg.c)
 * serialises writers with its own per-namespace mutex, and dumps read RCU.
 * Documentation/networking/mrc-netlink.rst describes the protocol.
 *
 * Locking in this file: none of its own. mrc_nl_ready is set once the
 * family is registered and cleared under RTNL before it is unregistered
 * (mrc_nl_exit_module()); mrc_nl_has_listeners() and mrc_nl_notify() read
 * it with READ_ONCE() from any context. The counters are read without a
 * lock, as racy snapshots: the per-CPU socket counters folded
 * (mrc_net_fold()) and the configuration store's (mrc_cfg_get_stats()).
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_net.h"
#include "mrc_nl.h"
#include "mrc_nl_impl.h"

enum mrc_nl_mcgrp {
	MRC_NLGRP_EVENTS,
};

static struct genl_family mrc_genl_family;
static bool mrc_nl_ready;

/* ------------------------------------------------------------------ */
/* Policies                                                           */
/* ------------------------------------------------------------------ */

/*
 * The policies check types, lengths of integers, nesting and which
 * attributes a command takes; values and address lengths are checked by
 * mrc_nl_check() below. The ranges are not in the policies because the
 * 6.1 core refuses a value outside a policy range with ERANGE ("integer out
 * of range", "binary attribute size out of range"), and mrc refuses every
 * hostile attribute with EINVAL and a message naming it.
 */
#define MRC_POL_U8		{ .type = NLA_U8 }
#define MRC_POL_U32		{ .type = NLA_U32 }
#define MRC_POL_IN6		{ .type = NLA_BINARY }	/* 16 bytes: mrc_nl_check() */

static const struct nla_policy mrc_seg_policy[MRC_SEG_ATTR_MAX + 1] = {
	[MRC_SEG_ATTR_SID]		= MRC_POL_IN6,
};

/* The nested policies below are shared: mrc_nl_impl.h. */
const struct nla_policy mrc_nl_path_policy[MRC_PATH_ATTR_MAX + 1] = {
	[MRC_PATH_ATTR_PLANE]		= MRC_POL_U32,
	[MRC_PATH_ATTR_SEGS]		= NLA_POLICY_NESTED(mrc_seg_policy),
	[MRC_PATH_ATTR_USID]		= MRC_POL_IN6,
};

const struct nla_policy mrc_nl_ev_policy[MRC_EV_ATTR_MAX + 1] = {
	[MRC_EV_ATTR_COUNT]		= MRC_POL_U32,
	[MRC_EV_ATTR_ACTIVE_PER_PLANE]	= MRC_POL_U32,
	[MRC_EV_ATTR_MIN_ACTIVE]	= MRC_POL_U32,
	[MRC_EV_ATTR_BURST]		= MRC_POL_U32,
	[MRC_EV_ATTR_DSCP]		= MRC_POL_U32,
	[MRC_EV_ATTR_DSCP_CTL]		= MRC_POL_U32,
};

const struct nla_policy mrc_nl_cc_policy[MRC_CC_ATTR_MAX + 1] = {
	[MRC_CC_ATTR_ALGO]		= MRC_POL_U8,
	[MRC_CC_ATTR_TARGET_DELAY_PM]	= MRC_POL_U32,
	[MRC_CC_ATTR_GAMMA_PM]		= MRC_POL_U32,
	[MRC_CC_ATTR_MAX_MD_PM]		= MRC_POL_U32,
	[MRC_CC_ATTR_MAX_WND_PM]	= MRC_POL_U32,
	[MRC_CC_ATTR_INIT_WND_PM]	= MRC_POL_U32,
	[MRC_CC_ATTR_LINK_MBPS]		= MRC_POL_U32,
	[MRC_CC_ATTR_INIT_WND_SHARED]	= MRC_POL_U8,
};

#define MRC_POL_IFNAME		{ .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 }

static const struct nla_policy mrc_plane_get_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_PLANE_ID]	= MRC_POL_U32,
};

/* PLANE_ADD and PLANE_SET take the same attributes. */
static const struct nla_policy mrc_plane_add_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_PLANE_ID]	= MRC_POL_U32,
	[MRC_ATTR_IFINDEX]	= MRC_POL_U32,
	[MRC_ATTR_IFNAME]	= MRC_POL_IFNAME,
	[MRC_ATTR_SADDR]	= MRC_POL_IN6,
	[MRC_ATTR_ADMIN_UP]	= MRC_POL_U8,
};

static const struct nla_policy mrc_plane_del_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_PLANE_ID]	= MRC_POL_U32,
};

/* ROUTE_GET and ROUTE_DEL take the same attributes. */
static const struct nla_policy mrc_route_get_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_DST]		= MRC_POL_IN6,
	[MRC_ATTR_DST_LEN]	= MRC_POL_U8,
};

static const struct nla_policy mrc_route_add_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_DST]		= MRC_POL_IN6,
	[MRC_ATTR_DST_LEN]	= MRC_POL_U8,
	[MRC_ATTR_ENCAP]	= MRC_POL_U8,
	[MRC_ATTR_PATH]		= NLA_POLICY_NESTED(mrc_nl_path_policy),
	[MRC_ATTR_REPLACE]	= { .type = NLA_FLAG },
};

/* PROFILE_GET and PROFILE_DEL take the same attributes. */
static const struct nla_policy mrc_profile_get_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_PROFILE_ID]	= MRC_POL_U32,
};

static const struct nla_policy mrc_conn_get_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_CONN_QPN]	= MRC_POL_U32,
};

static const struct nla_policy mrc_ev_probe_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_PROBE_PEER]		= MRC_POL_IN6,
	[MRC_ATTR_PROBE_EVS]		= MRC_POL_U32,
	[MRC_ATTR_PROBE_TIMEOUT_MS]	= MRC_POL_U32,
};

/* PROFILE_ADD and PROFILE_SET take the same attributes. */
static const struct nla_policy mrc_profile_add_policy[MRC_ATTR_MAX + 1] = {
	[MRC_ATTR_PROFILE_ID]	= MRC_POL_U32,
	[MRC_ATTR_PROFILE_EV]	= NLA_POLICY_NESTED(mrc_nl_ev_policy),
	[MRC_ATTR_PROFILE_CC]	= NLA_POLICY_NESTED(mrc_nl_cc_policy),
};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

/*
 * Shared by the handlers of every file; declared and documented in
 * mrc_nl_impl.h, as are MRC_NL_MISSING() and mrc_nl_addr_unicast().
 */

int mrc_nl_reject(struct genl_info *info, int err)
{
	if (err)
		mrc_cfg_reject(genl_info_net(info), err);
	return err;
}

int mrc_nl_put_msg(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		   u8 cmd, struct netlink_callback *cb, mrc_nl_fill_fn fill,
		   struct net *net, const void *obj)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &mrc_genl_family, flags, cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (fill(skb, net, obj)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int mrc_nl_reply(struct genl_info *info, size_t size, mrc_nl_fill_fn fill,
		 const void *obj)
{
	struct sk_buff *skb;
	int err;

	skb = genlmsg_new(size, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	err = mrc_nl_put_msg(skb, info->snd_portid, info->snd_seq, 0,
			     info->genlhdr->cmd, NULL, fill,
			     genl_info_net(info), obj);
	if (err) {
		nlmsg_free(skb);
		return err;
	}
	return genlmsg_reply(skb, info);
}

/* ------------------------------------------------------------------ */
/* Value checks                                                       */
/* ------------------------------------------------------------------ */

/*
 * Every value the policies let through is checked here before anything
 * uses it: by mrc_nl_pre_doit() before every handler and at the start of
 * every dump, so handlers trust values as they would trust a policy range
 * (ids index arrays, addresses are copied as 16 bytes). A refusal is EINVAL
 * with a message naming the attribute (its name in the YAML spec, nested
 * ones after their set), NLMSGERR_ATTR_OFFS pointing at it (dumps: the
 * message only, 6.1 puts no offset in NLMSG_DONE) and, like a policy
 * refusal of the core, NLMSGERR_ATTR_POLICY with the allowed range or
 * length, written from the mrc_rng_* policies below, which are only ever
 * reported and never validate anything.
 *
 * Not NLA_POLICY_VALIDATE_FN: on 6.1 it is meant for NLA_BINARY only; on
 * an integer type its function pointer shares a union with the min/max
 * that a policy dump or an extack policy report reads (WARN in
 * nla_get_range_unsigned()).
 */
static const struct nla_policy mrc_rng_in6 =
	NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr));
static const struct nla_policy mrc_rng_plane_id =
	NLA_POLICY_MAX(NLA_U32, MRC_PLANE_ID_MAX);
static const struct nla_policy mrc_rng_ifindex = NLA_POLICY_MIN(NLA_U32, 1);
static const struct nla_policy mrc_rng_bool = NLA_POLICY_MAX(NLA_U8, 1);
static const struct nla_policy mrc_rng_dst_len = NLA_POLICY_MAX(NLA_U8, 128);
static const struct nla_policy mrc_rng_encap =
	NLA_POLICY_MAX(NLA_U8, MRC_ENCAP_MAX);
static const struct nla_policy mrc_rng_profile_id =
	NLA_POLICY_MAX(NLA_U32, MRC_PROFILE_ID_MAX);
static const struct nla_policy mrc_rng_ev_count =
	NLA_POLICY_RANGE(NLA_U32, MRC_EV_COUNT_MIN, MRC_EV_COUNT_MAX);
static const struct nla_policy mrc_rng_ev_active =
	NLA_POLICY_MAX(NLA_U32, MRC_EV_COUNT_MAX);
static const struct nla_policy mrc_rng_ev_burst =
	NLA_POLICY_RANGE(NLA_U32, 1, MRC_EV_BURST_MAX);
static const struct nla_policy mrc_rng_dscp =
	NLA_POLICY_MAX(NLA_U32, MRC_DSCP_MAX);
static const struct nla_policy mrc_rng_probe_evs =
	NLA_POLICY_RANGE(NLA_U32, 1, MRC_PROBE_EVS_MAX);
static const struct nla_policy mrc_rng_probe_timeout =
	NLA_POLICY_RANGE(NLA_U32, 1, MRC_PROBE_TIMEOUT_MS_MAX);
static const struct nla_policy mrc_rng_cc_algo =
	NLA_POLICY_MAX(NLA_U8, MRC_CC_ALGO_MAX);
static const struct nla_policy mrc_rng_delay_pm = NLA_POLICY_RANGE(NLA_U32, 1, 10000);
static const struct nla_policy mrc_rng_gain_pm = NLA_POLICY_RANGE(NLA_U32, 1, 1000);
static const struct nla_policy mrc_rng_wnd_pm = NLA_POLICY_RANGE(NLA_U32, 100, 10000);
/* Beyond the s16 bounds of NLA_POLICY_RANGE(). */
static struct netlink_range_validation mrc_link_mbps_range = {
	.min = MRC_CC_LINK_MBPS_MIN,
	.max = MRC_CC_LINK_MBPS_MAX,
};

static const struct nla_policy mrc_rng_link_mbps =
	NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_link_mbps_range);

/* Whether @nla is within @rng: a u8/u32 value, or a binary's length. */
static bool mrc_nl_in_range(const struct nlattr *nla, const struct nla_policy *rng)
{
	u32 v;

	switch (rng->type) {
	case NLA_U8:
		v = nla_get_u8(nla);
		break;
	case NLA_U32:
		v = nla_get_u32(nla);
		break;
	default:	/* NLA_BINARY */
		v = nla_len(nla);
		break;
	}
	if (rng->validation_type == NLA_VALIDATE_RANGE_PTR)
		return v >= rng->range->min && v <= rng->range->max;
	if (rng->validation_type != NLA_VALIDATE_MAX && v < rng->min)
		return false;
	if (rng->validation_type != NLA_VALIDATE_MIN && v > rng->max)
		return false;
	return true;
}

/*
 * MRC_NL_CHECK() - check an optional attribute against its range
 * Evaluates to 0 when @nla is absent or within @rng, else to -EINVAL with
 * @msg (a literal), @nla and @rng in @extack.
 */
#define MRC_NL_CHECK(extack, nla, rng, msg) ({				\
	const struct nlattr *__a = (nla);				\
	const struct nla_policy *__r = (rng);				\
	int __err = 0;							\
									\
	if (__a && !mrc_nl_in_range(__a, __r)) {			\
		NL_SET_ERR_MSG_ATTR_POL(extack, __a, __r, msg);		\
		__err = -EINVAL;					\
	}								\
	__err;								\
})

static int mrc_nl_check_path(const struct nlattr *nest,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MRC_PATH_ATTR_MAX + 1];
	const struct nlattr *sid;
	int rem, err;

	err = nla_parse_nested(tb, MRC_PATH_ATTR_MAX, nest, mrc_nl_path_policy, extack);
	if (err)
		return err;
	err = MRC_NL_CHECK(extack, tb[MRC_PATH_ATTR_PLANE], &mrc_rng_plane_id,
			   "path plane out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_PATH_ATTR_USID], &mrc_rng_in6,
			   "path usid must be 16 bytes");
	if (err || !tb[MRC_PATH_ATTR_SEGS])
		return err;
	nla_for_each_nested(sid, tb[MRC_PATH_ATTR_SEGS], rem) {
		err = MRC_NL_CHECK(extack, sid, &mrc_rng_in6, "seg sid must be 16 bytes");
		if (err)
			return err;
	}
	return 0;
}

static int mrc_nl_check_ev(const struct nlattr *nest,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MRC_EV_ATTR_MAX + 1];
	int err;

	err = nla_parse_nested(tb, MRC_EV_ATTR_MAX, nest, mrc_nl_ev_policy, extack);
	return err ?:
	       MRC_NL_CHECK(extack, tb[MRC_EV_ATTR_COUNT], &mrc_rng_ev_count,
			    "ev count out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_EV_ATTR_ACTIVE_PER_PLANE],
			    &mrc_rng_ev_active, "ev active-per-plane out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_EV_ATTR_MIN_ACTIVE], &mrc_rng_ev_active,
			    "ev min-active out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_EV_ATTR_BURST], &mrc_rng_ev_burst,
			    "ev burst out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_EV_ATTR_DSCP], &mrc_rng_dscp,
			    "ev dscp out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_EV_ATTR_DSCP_CTL], &mrc_rng_dscp,
			    "ev dscp-ctl out of range");
}

static int mrc_nl_check_cc(const struct nlattr *nest,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[MRC_CC_ATTR_MAX + 1];
	int err;

	err = nla_parse_nested(tb, MRC_CC_ATTR_MAX, nest, mrc_nl_cc_policy, extack);
	return err ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_ALGO], &mrc_rng_cc_algo,
			    "cc algo out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_TARGET_DELAY_PM],
			    &mrc_rng_delay_pm, "cc target-delay-pm out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_GAMMA_PM], &mrc_rng_gain_pm,
			    "cc gamma-pm out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_MAX_MD_PM], &mrc_rng_gain_pm,
			    "cc max-md-pm out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_MAX_WND_PM], &mrc_rng_wnd_pm,
			    "cc max-wnd-pm out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_INIT_WND_PM], &mrc_rng_wnd_pm,
			    "cc init-wnd-pm out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_LINK_MBPS], &mrc_rng_link_mbps,
			    "cc link-mbps out of range") ?:
	       MRC_NL_CHECK(extack, tb[MRC_CC_ATTR_INIT_WND_SHARED], &mrc_rng_bool,
			    "cc init-wnd-shared out of range");
}

/**
 * mrc_nl_check() - check the values of a request
 * @maxattr: the command's maxattr (MRC_ATTR_MAX, or 1 without a policy)
 * @nlh:    the request (for the repeated MRC_ATTR_PATH)
 * @tb:     its attributes as parsed by the core, or NULL
 * @extack: error report
 *
 * Return: 0, or -EINVAL with the attribute and its range in @extack.
 */
static int mrc_nl_check(unsigned int maxattr, const struct nlmsghdr *nlh,
			struct nlattr **tb, struct netlink_ext_ack *extack)
{
	const struct nlattr *nla;
	int rem, err;

	/*
	 * A command without a policy (STATS_GET) got the core's reject-all
	 * policy and a tb[] of 2 entries: nothing to check, nothing to read.
	 */
	if (!tb || maxattr != MRC_ATTR_MAX)
		return 0;
	err = MRC_NL_CHECK(extack, tb[MRC_ATTR_PLANE_ID], &mrc_rng_plane_id,
			   "plane-id out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_IFINDEX], &mrc_rng_ifindex,
			   "ifindex out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_SADDR], &mrc_rng_in6,
			   "saddr must be 16 bytes") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_ADMIN_UP], &mrc_rng_bool,
			   "admin-up out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_DST], &mrc_rng_in6,
			   "dst must be 16 bytes") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_DST_LEN], &mrc_rng_dst_len,
			   "dst-len out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_ENCAP], &mrc_rng_encap,
			   "encap out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_PROFILE_ID], &mrc_rng_profile_id,
			   "profile-id out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_PROBE_PEER], &mrc_rng_in6,
			   "probe-peer must be 16 bytes") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_PROBE_EVS], &mrc_rng_probe_evs,
			   "probe-evs out of range") ?:
	      MRC_NL_CHECK(extack, tb[MRC_ATTR_PROBE_TIMEOUT_MS],
			   &mrc_rng_probe_timeout, "probe-timeout-ms out of range");
	if (!err && tb[MRC_ATTR_PROFILE_EV])
		err = mrc_nl_check_ev(tb[MRC_ATTR_PROFILE_EV], extack);
	if (!err && tb[MRC_ATTR_PROFILE_CC])
		err = mrc_nl_check_cc(tb[MRC_ATTR_PROFILE_CC], extack);
	if (err || !tb[MRC_ATTR_PATH])
		return err;
	/* Repeated: tb[] holds the last one only. */
	nlmsg_for_each_attr(nla, nlh, GENL_HDRLEN, rem) {
		if (nla_type(nla) != MRC_ATTR_PATH)
			continue;
		err = mrc_nl_check_path(nla, extack);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Before every handler (the family's pre_doit). Refusals are counted like
 * the handlers' own.
 */
static int mrc_nl_pre_doit(const MRC_GENL_PRE_OPS *ops, struct sk_buff *skb,
			   struct genl_info *info)
{
	return mrc_nl_reject(info, mrc_nl_check(ops->maxattr, info->nlhdr,
						info->attrs, info->extack));
}

/*
 * At the start of every part of a dump: the dumps do not use their request
 * attributes, but refuse bad values like a do would (the first part ends
 * the dump with the error).
 */
int mrc_nl_dump_check(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	int err;

	err = mrc_nl_check(info->op.maxattr, cb->nlh, mrc_genl_dump_attrs(info),
			   cb->extack);
	if (err)
		mrc_cfg_reject(sock_net(skb->sk), err);
	return err;
}

/* ------------------------------------------------------------------ */
/* Events                                                             */
/* ------------------------------------------------------------------ */

bool mrc_nl_has_listeners(struct net *net)
{
	return READ_ONCE(mrc_nl_ready) &&
	       genl_has_listeners(&mrc_genl_family, net, MRC_NLGRP_EVENTS);
}

/**
 * mrc_nl_notify() - multicast one event to the "events" group of a netns
 * @net:  the namespace
 * @cmd:  an MRC_CMD_*_NTF value
 * @size: payload size estimate (attributes only)
 * @fill: puts the attributes of @obj
 * @obj:  the object the event is about
 * @gfp:  allocation context (GFP_ATOMIC from softirq)
 *
 * Context: any; does nothing unless somebody listens in @net.
 * Return: 0, or a negative errno if the event could not be built (it is
 * then lost; listeners resynchronise with a dump).
 */
int mrc_nl_notify(struct net *net, u8 cmd, size_t size,
		  int (*fill)(struct sk_buff *skb, struct net *net,
			      const void *obj),
		  const void *obj, gfp_t gfp)
{
	struct sk_buff *skb;
	int err;

	if (!mrc_nl_has_listeners(net))
		return 0;
	skb = genlmsg_new(size, gfp);
	if (!skb)
		return -ENOMEM;
	err = mrc_nl_put_msg(skb, 0, 0, 0, cmd, NULL, fill, net, obj);
	if (err) {
		nlmsg_free(skb);
		return err;
	}
	genlmsg_multicast_netns(&mrc_genl_family, net, skb, 0, MRC_NLGRP_EVENTS, gfp);
	mrc_cfg_count_event(net);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counters                                                           */
/* ------------------------------------------------------------------ */

static const u8 mrc_nl_rej_attr[__MRC_REJ_MAX] = {
	[MRC_REJ_INVAL]	= MRC_STATS_ATTR_REJ_INVAL,
	[MRC_REJ_NOENT]	= MRC_STATS_ATTR_REJ_NOENT,
	[MRC_REJ_EXIST]	= MRC_STATS_ATTR_REJ_EXIST,
	[MRC_REJ_NODEV]	= MRC_STATS_ATTR_REJ_NODEV,
	[MRC_REJ_NOSPC]	= MRC_STATS_ATTR_REJ_NOSPC,
	[MRC_REJ_BUSY]	= MRC_STATS_ATTR_REJ_BUSY,
	[MRC_REJ_NOMEM]	= MRC_STATS_ATTR_REJ_NOMEM,
	[MRC_REJ_OTHER]	= MRC_STATS_ATTR_REJ_OTHER,
};

static const u8 mrc_nl_sock_attr[__MRC_CNT_MAX] = {
	[MRC_CNT_SOCK_CREATED]	= MRC_STATS_ATTR_SOCK_CREATED,
	[MRC_CNT_SOCK_RELEASED]	= MRC_STATS_ATTR_SOCK_RELEASED,
	[MRC_CNT_BIND_OK]	= MRC_STATS_ATTR_BIND_OK,
	[MRC_CNT_BAD_ADDR]	= MRC_STATS_ATTR_BIND_BAD_ADDR,
	[MRC_CNT_ADDR_NOTAVAIL]	= MRC_STATS_ATTR_BIND_ADDR_NOTAVAIL,
	[MRC_CNT_ADDR_INUSE]	= MRC_STATS_ATTR_BIND_ADDR_INUSE,
	[MRC_CNT_BAD_SOCKET]	= MRC_STATS_ATTR_SOCK_BAD_TYPE,
	[MRC_CNT_RX_PKTS]	= MRC_STATS_ATTR_RX_PKTS,
	[MRC_CNT_RX_TRUNC]	= MRC_STATS_ATTR_RX_TRUNC,
	[MRC_CNT_RX_BAD_ICRC]	= MRC_STATS_ATTR_RX_BAD_ICRC,
	[MRC_CNT_RX_BAD_OPCODE]	= MRC_STATS_ATTR_RX_BAD_OPCODE,
	[MRC_CNT_RX_BAD_HDR]	= MRC_STATS_ATTR_RX_BAD_HDR,
	[MRC_CNT_RX_UNKNOWN_QPN]	= MRC_STATS_ATTR_RX_UNKNOWN_QPN,
	[MRC_CNT_RX_WRONG_SRC]	= MRC_STATS_ATTR_RX_WRONG_SRC,
	[MRC_CNT_RX_NOT_READY]	= MRC_STATS_ATTR_RX_NOT_READY,
	[MRC_CNT_RX_STALE]	= MRC_STATS_ATTR_RX_STALE,
	[MRC_CNT_RX_PROTO]	= MRC_STATS_ATTR_RX_PROTO,
	[MRC_CNT_RX_OOW]	= MRC_STATS_ATTR_RX_OOW,
	[MRC_CNT_RX_DUP]	= MRC_STATS_ATTR_RX_DUP,
	[MRC_CNT_RX_NOBUF]	= MRC_STATS_ATTR_RX_NOBUF,
	[MRC_CNT_RX_BAD_HS]	= MRC_STATS_ATTR_RX_BAD_HS,
	[MRC_CNT_RX_NOMEM]	= MRC_STATS_ATTR_RX_NOMEM,
	[MRC_CNT_RX_BAD_ADDR]	= MRC_STATS_ATTR_RX_BAD_ADDR,
	[MRC_CNT_TX_PKTS]	= MRC_STATS_ATTR_TX_PKTS,
	[MRC_CNT_TX_ERR]	= MRC_STATS_ATTR_TX_ERR,
	[MRC_CNT_TX_NOROUTE]	= MRC_STATS_ATTR_TX_NOROUTE,
	[MRC_CNT_CONN_REQ_SENT]	= MRC_STATS_ATTR_CONN_REQ_SENT,
	[MRC_CNT_CONN_REQ_RTX]	= MRC_STATS_ATTR_CONN_REQ_RTX,
	[MRC_CNT_CONN_RESP_SENT]	= MRC_STATS_ATTR_CONN_RESP_SENT,
	[MRC_CNT_CONN_REFUSED]	= MRC_STATS_ATTR_CONN_REFUSED,
	[MRC_CNT_CONN_BACKLOG]	= MRC_STATS_ATTR_CONN_BACKLOG,
	[MRC_CNT_CONN_ESTAB]	= MRC_STATS_ATTR_CONN_ESTAB,
	[MRC_CNT_CONN_TIMEDOUT]	= MRC_STATS_ATTR_CONN_TIMEDOUT,
	[MRC_CNT_CONN_FAILED]	= MRC_STATS_ATTR_CONN_FAILED,
	[MRC_CNT_CONN_CLOSED]	= MRC_STATS_ATTR_CONN_CLOSED,
	[MRC_CNT_RX_BAD_SRH]	= MRC_STATS_ATTR_RX_BAD_SRH,
	[MRC_CNT_TIMER_STALLS]	= MRC_STATS_ATTR_TIMER_STALLS,
	[MRC_CNT_TX_PORT_STATUS] = MRC_STATS_ATTR_TX_PORT_STATUS,
	[MRC_CNT_RX_PORT_STATUS] = MRC_STATS_ATTR_RX_PORT_STATUS,
	[MRC_CNT_CONN_ABORTED]	= MRC_STATS_ATTR_CONN_ABORTED,
	[MRC_CNT_TX_LOCAL_DROP]	= MRC_STATS_ATTR_TX_LOCAL_DROPS,
	[MRC_CNT_TX_MEM_LIMIT]	= MRC_STATS_ATTR_TX_MEM_LIMIT,
	[MRC_CNT_RX_MEM_LIMIT]	= MRC_STATS_ATTR_RX_MEM_LIMIT,
	[MRC_CNT_CONN_ICMP]	= MRC_STATS_ATTR_CONNECT_ICMP_ERRORS,
	[MRC_CNT_HS_COOKIE_SENT] = MRC_STATS_ATTR_CONNECT_COOKIES_SENT,
	[MRC_CNT_HS_COOKIE_BAD]	= MRC_STATS_ATTR_CONNECT_COOKIES_BAD,
	[MRC_CNT_HS_LIMITED]	= MRC_STATS_ATTR_HANDSHAKE_ANSWERS_LIMITED,
	[MRC_CNT_PTB]		= MRC_STATS_ATTR_PKT_TOO_BIG,
	[MRC_CNT_PTB_IGNORED]	= MRC_STATS_ATTR_PKT_TOO_BIG_IGNORED,
	[MRC_CNT_PMTU_RTX]	= MRC_STATS_ATTR_PMTU_RETRANSMITS,
	[MRC_CNT_ORPHANS_ABORTED] = MRC_STATS_ATTR_ORPHANS_ABORTED,
	[MRC_CNT_IDLE_CHILDREN_ABORTED] = MRC_STATS_ATTR_IDLE_CHILDREN_ABORTED,
	[MRC_CNT_PORT_STATUS_RTX] = MRC_STATS_ATTR_PORT_STATUS_RETRANSMITS,
	[MRC_CNT_PORT_STATUS_ACKED] = MRC_STATS_ATTR_PORT_STATUS_ACKED,
	[MRC_CNT_PORT_STATUS_UNMATCHED] = MRC_STATS_ATTR_PORT_STATUS_UNMATCHED,
	[MRC_CNT_RX_FLOWCELLS]	= MRC_STATS_ATTR_RX_FLOWCELLS,
	[MRC_CNT_RX_HELD]	= MRC_STATS_ATTR_RX_HELD,
	[MRC_CNT_RX_COPIED]	= MRC_STATS_ATTR_RX_COPIED,
	[MRC_CNT_EV_PROBES_ANSWERED] = MRC_STATS_ATTR_EV_PROBES_ANSWERED,
	[MRC_CNT_RCVBUF_GROWN]	= MRC_STATS_ATTR_RCVBUF_GROWN,
	[MRC_CNT_SNDBUF_GROWN]	= MRC_STATS_ATTR_SNDBUF_GROWN,
	[MRC_CNT_TX_LOCAL_CN]	= MRC_STATS_ATTR_TX_LOCAL_CONGESTION,
	[MRC_CNT_TX_QUEUE_THROTTLED] = MRC_STATS_ATTR_TX_QUEUE_THROTTLED,
	[MRC_CNT_TIMER_IDLE]	= MRC_STATS_ATTR_TIMER_IDLE,
	[MRC_CNT_TX_PAGES_REUSED] = MRC_STATS_ATTR_TX_PAGES_REUSED,
	[MRC_CNT_TX_FRAG_PAGES_REUSED] = MRC_STATS_ATTR_TX_FRAG_PAGES_REUSED,
	[MRC_CNT_RX_BACKLOG]	= MRC_STATS_ATTR_RX_BACKLOG,
	[MRC_CNT_RX_STEERED]	= MRC_STATS_ATTR_RX_STEERED,
	[MRC_CNT_EV_PROBES_SENT] = MRC_STATS_ATTR_EV_PROBES_SENT,
	[MRC_CNT_EV_PROBES_REPLIED] = MRC_STATS_ATTR_EV_PROBES_REPLIED,
	[MRC_CNT_TX_FLOWCELLS_IN_PLACE] = MRC_STATS_ATTR_TX_FLOWCELLS_IN_PLACE,
	[MRC_CNT_TX_FLOWCELLS_AUTOSIZED] = MRC_STATS_ATTR_TX_FLOWCELLS_AUTOSIZED,
};

static size_t mrc_nl_stats_size(void)
{
	return nla_total_size(0) + 3 * nla_total_size(sizeof(u32)) +
	       (2 + __MRC_REJ_MAX + __MRC_CNT_MAX) * nla_total_size_64bit(sizeof(u64));
}

static int mrc_nl_fill_stats(struct sk_buff *skb, struct net *net, const void *obj)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_cfg_stats st;
	struct nlattr *nest;
	int i, err = -EMSGSIZE;
	u64 *sum;

	/* Too big for the stack beside the rest (8 bytes per counter). */
	sum = kmalloc_array(__MRC_CNT_MAX, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	mrc_net_fold(mn, sum);
	mrc_cfg_get_stats(net, &st);
	nest = nla_nest_start(skb, MRC_ATTR_STATS);
	if (!nest ||
	    nla_put_u32(skb, MRC_STATS_ATTR_PLANES, st.planes) ||
	    nla_put_u32(skb, MRC_STATS_ATTR_ROUTES, st.routes) ||
	    nla_put_u32(skb, MRC_STATS_ATTR_PROFILES, st.profiles) ||
	    nla_put_u64_64bit(skb, MRC_STATS_ATTR_CHANGES, st.changes,
			      MRC_STATS_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, MRC_STATS_ATTR_EVENTS, st.events,
			      MRC_STATS_ATTR_PAD))
		goto out;
	for (i = 0; i < __MRC_REJ_MAX; i++)
		if (nla_put_u64_64bit(skb, mrc_nl_rej_attr[i], st.rejects[i],
				      MRC_STATS_ATTR_PAD))
			goto out;
	for (i = 0; i < __MRC_CNT_MAX; i++)
		if (mrc_nl_sock_attr[i] &&
		    nla_put_u64_64bit(skb, mrc_nl_sock_attr[i], sum[i],
				      MRC_STATS_ATTR_PAD))
			goto out;
	nla_nest_end(skb, nest);
	err = 0;
out:
	kfree(sum);
	return err;
}

static int mrc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_reply(info, mrc_nl_stats_size(), mrc_nl_fill_stats, NULL);
}

/* ------------------------------------------------------------------ */
/* Family                                                             */
/* ------------------------------------------------------------------ */

static const struct genl_ops mrc_nl_ops[] = {
	{
		.cmd	 = MRC_CMD_PLANE_GET,
		.doit	 = mrc_nl_plane_get,
		.dumpit	 = mrc_nl_plane_dump,
		.policy	 = mrc_plane_get_policy,
		.maxattr = MRC_ATTR_MAX,
	},
	{
		.cmd	 = MRC_CMD_PLANE_ADD,
		.doit	 = mrc_nl_plane_add,
		.policy	 = mrc_plane_add_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_PLANE_DEL,
		.doit	 = mrc_nl_plane_del,
		.policy	 = mrc_plane_del_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_PLANE_SET,
		.doit	 = mrc_nl_plane_set,
		.policy	 = mrc_plane_add_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_ROUTE_GET,
		.doit	 = mrc_nl_route_get,
		.start	 = mrc_nl_route_dump_start,
		.dumpit	 = mrc_nl_route_dump,
		.policy	 = mrc_route_get_policy,
		.maxattr = MRC_ATTR_MAX,
	},
	{
		.cmd	 = MRC_CMD_ROUTE_ADD,
		.doit	 = mrc_nl_route_add,
		.policy	 = mrc_route_add_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_ROUTE_DEL,
		.doit	 = mrc_nl_route_del,
		.policy	 = mrc_route_get_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_PROFILE_GET,
		.doit	 = mrc_nl_profile_get,
		.dumpit	 = mrc_nl_profile_dump,
		.policy	 = mrc_profile_get_policy,
		.maxattr = MRC_ATTR_MAX,
	},
	{
		.cmd	 = MRC_CMD_PROFILE_ADD,
		.doit	 = mrc_nl_profile_add,
		.policy	 = mrc_profile_add_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_PROFILE_DEL,
		.doit	 = mrc_nl_profile_del,
		.policy	 = mrc_profile_get_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	 = MRC_CMD_PROFILE_SET,
		.doit	 = mrc_nl_profile_set,
		.policy	 = mrc_profile_add_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
	{
		/* No policy: the core rejects every attribute. */
		.cmd	 = MRC_CMD_STATS_GET,
		.doit	 = mrc_nl_stats_get,
	},
	{
		.cmd	 = MRC_CMD_CONN_GET,
		/*
		 * Connection ids and QPNs are the demux keys of the datapath:
		 * showing them to anyone would help forge packets into a
		 * local connection, so unlike planes and routes the dump is
		 * for namespace admins only.
		 */
		.flags	 = GENL_UNS_ADMIN_PERM,
		.start	 = mrc_nl_conn_dump_start,
		.dumpit	 = mrc_nl_conn_dump,
		.policy	 = mrc_conn_get_policy,
		.maxattr = MRC_ATTR_MAX,
	},
	{
		/* It sends packets from the namespace: admins only. */
		.cmd	 = MRC_CMD_EV_PROBE,
		.doit	 = mrc_nl_ev_probe,
		.policy	 = mrc_ev_probe_policy,
		.maxattr = MRC_ATTR_MAX,
		.flags	 = GENL_UNS_ADMIN_PERM,
	},
};

static const struct genl_multicast_group mrc_nl_mcgrps[] = {
	/* Events name QPNs and connection ids too: admins only (see CONN_GET). */
	[MRC_NLGRP_EVENTS] = { .name = MRC_GENL_MCGRP_EVENTS,
			       .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct genl_family mrc_genl_family __ro_after_init = {
	.name		= MRC_GENL_NAME,
	.version	= MRC_GENL_VERSION,
	.maxattr	= MRC_ATTR_MAX,
	.netnsok	= true,
	.parallel_ops	= true,
	/* A new family: every command gets strict header and TLV checks. */
	.resv_start_op	= 0,
	.pre_doit	= mrc_nl_pre_doit,
	.ops		= mrc_nl_ops,
	.n_ops		= ARRAY_SIZE(mrc_nl_ops),
	.mcgrps		= mrc_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(mrc_nl_mcgrps),
	.module		= THIS_MODULE,
};

/**
 * mrc_nl_init_module() - register the generic netlink family
 *
 * Return: 0 or a negative errno from genl_register_family().
 */
int mrc_nl_init_module(void)
{
	int err;

	err = genl_register_family(&mrc_genl_family);
	if (err)
		return err;
	WRITE_ONCE(mrc_nl_ready, true);
	return 0;
}

/**
 * mrc_nl_exit_module() - unregister the generic netlink family
 *
 * Events stop first: the netdevice notifier sends them under RTNL, so once
 * RTNL was taken and released no notifier is still in mrc_nl_notify().
 * Unregistering the family waits for running requests.
 */
void mrc_nl_exit_module(void)
{
	rtnl_lock();
	WRITE_ONCE(mrc_nl_ready, false);
	rtnl_unlock();
	genl_unregister_family(&mrc_genl_family);
}
