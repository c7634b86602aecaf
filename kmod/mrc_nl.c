// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_nl.c - the generic netlink family "mrc": planes, routes, profiles,
 * counters and the "events" multicast group.
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
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/netlink.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_ev_probe.h"
#include "mrc_net.h"
#include "mrc_nl.h"
#include "mrc_sock.h"

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

static const struct nla_policy mrc_path_policy[MRC_PATH_ATTR_MAX + 1] = {
	[MRC_PATH_ATTR_PLANE]		= MRC_POL_U32,
	[MRC_PATH_ATTR_SEGS]		= NLA_POLICY_NESTED(mrc_seg_policy),
	[MRC_PATH_ATTR_USID]		= MRC_POL_IN6,
};

static const struct nla_policy mrc_ev_policy[MRC_EV_ATTR_MAX + 1] = {
	[MRC_EV_ATTR_COUNT]		= MRC_POL_U32,
	[MRC_EV_ATTR_ACTIVE_PER_PLANE]	= MRC_POL_U32,
	[MRC_EV_ATTR_MIN_ACTIVE]	= MRC_POL_U32,
	[MRC_EV_ATTR_BURST]		= MRC_POL_U32,
	[MRC_EV_ATTR_DSCP]		= MRC_POL_U32,
	[MRC_EV_ATTR_DSCP_CTL]		= MRC_POL_U32,
};

static const struct nla_policy mrc_cc_policy[MRC_CC_ATTR_MAX + 1] = {
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
	[MRC_ATTR_PATH]		= NLA_POLICY_NESTED(mrc_path_policy),
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
	[MRC_ATTR_PROFILE_EV]	= NLA_POLICY_NESTED(mrc_ev_policy),
	[MRC_ATTR_PROFILE_CC]	= NLA_POLICY_NESTED(mrc_cc_policy),
};

/* ------------------------------------------------------------------ */
/* Helpers                                                            */
/* ------------------------------------------------------------------ */

/*
 * A required top-level attribute: reports it as missing (NLMSGERR_ATTR_MISS_TYPE)
 * with a message. Evaluates to true when it is missing.
 */
#define MRC_NL_MISSING(info, attr, msg) ({				\
	struct genl_info *__i = (info);					\
	bool __miss = GENL_REQ_ATTR_CHECK(__i, attr);			\
									\
	if (__miss)							\
		NL_SET_ERR_MSG_MOD(__i->extack, msg);			\
	__miss;								\
})

/* Count a handler-level rejection and pass the errno on. */
static int mrc_nl_reject(struct genl_info *info, int err)
{
	if (err)
		mrc_cfg_reject(genl_info_net(info), err);
	return err;
}

static bool mrc_addr_unicast(const struct in6_addr *a)
{
	return !ipv6_addr_any(a) && !ipv6_addr_is_multicast(a);
}

typedef int (*mrc_fill_fn)(struct sk_buff *skb, struct net *net, const void *obj);

/* One complete message: header, attributes from @fill. */
static int mrc_nl_put_msg(struct sk_buff *skb, u32 portid, u32 seq, int flags,
			  u8 cmd, struct netlink_callback *cb, mrc_fill_fn fill,
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

/* Answer a "do" with one object. */
static int mrc_nl_reply(struct genl_info *info, size_t size, mrc_fill_fn fill,
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

	err = nla_parse_nested(tb, MRC_PATH_ATTR_MAX, nest, mrc_path_policy, extack);
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

	err = nla_parse_nested(tb, MRC_EV_ATTR_MAX, nest, mrc_ev_policy, extack);
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

	err = nla_parse_nested(tb, MRC_CC_ATTR_MAX, nest, mrc_cc_policy, extack);
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
 * @op:     the command, as the generic netlink core filled it in
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
static int mrc_nl_dump_check(struct sk_buff *skb, struct netlink_callback *cb)
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

	if (!READ_ONCE(mrc_nl_ready) ||
	    !genl_has_listeners(&mrc_genl_family, net, MRC_NLGRP_EVENTS))
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
void mrc_nl_notify_plane(struct net *net, u8 cmd,
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
	if (!mrc_addr_unicast(saddr)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "source address must be a unicast address");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_plane_add(struct sk_buff *skb, struct genl_info *info)
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

static int mrc_nl_plane_del(struct sk_buff *skb, struct genl_info *info)
{
	if (MRC_NL_MISSING(info, MRC_ATTR_PLANE_ID, "missing plane id"))
		return mrc_nl_reject(info, -EINVAL);
	return mrc_nl_reject(info, mrc_cfg_plane_del(genl_info_net(info),
				nla_get_u32(info->attrs[MRC_ATTR_PLANE_ID]),
				info->extack));
}

static int mrc_nl_plane_set(struct sk_buff *skb, struct genl_info *info)
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

static int mrc_nl_plane_get(struct sk_buff *skb, struct genl_info *info)
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

static int mrc_nl_plane_dump(struct sk_buff *skb, struct netlink_callback *cb)
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
void mrc_nl_notify_route(struct net *net, u8 cmd,
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
		if (!mrc_addr_unicast(&path->segs[path->nsegs])) {
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

	err = nla_parse_nested(tb, MRC_PATH_ATTR_MAX, nest, mrc_path_policy, extack);
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
		if (!mrc_addr_unicast(&path->segs[0])) {
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

static int mrc_nl_route_add(struct sk_buff *skb, struct genl_info *info)
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

static int mrc_nl_route_del(struct sk_buff *skb, struct genl_info *info)
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
static int mrc_nl_route_get(struct sk_buff *skb, struct genl_info *info)
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

static int mrc_nl_route_dump_start(struct netlink_callback *cb)
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

static int mrc_nl_route_dump(struct sk_buff *skb, struct netlink_callback *cb)
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
				       mrc_ev_policy, info->extack);
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
				       mrc_cc_policy, info->extack);
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

static int mrc_nl_profile_add(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_profile_write(info, true);
}

static int mrc_nl_profile_set(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_profile_write(info, false);
}

static int mrc_nl_profile_del(struct sk_buff *skb, struct genl_info *info)
{
	if (MRC_NL_MISSING(info, MRC_ATTR_PROFILE_ID, "missing profile id"))
		return mrc_nl_reject(info, -EINVAL);
	return mrc_nl_reject(info, mrc_cfg_profile_del(genl_info_net(info),
				nla_get_u32(info->attrs[MRC_ATTR_PROFILE_ID]),
				info->extack));
}

static int mrc_nl_profile_get(struct sk_buff *skb, struct genl_info *info)
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

static int mrc_nl_profile_dump(struct sk_buff *skb, struct netlink_callback *cb)
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
/* EV probes                                                          */
/* ------------------------------------------------------------------ */

/* Reply bytes of one probe's result (nest, plane, path, ev, rtt, error). */
#define MRC_NL_PROBE_RESULT_SIZE					\
	(nla_total_size(0) + 4 * nla_total_size(sizeof(u32)) +		\
	 nla_total_size_64bit(sizeof(u64)))

static int mrc_nl_fill_probe(struct sk_buff *skb, struct net *net,
			     const void *obj)
{
	const struct mrc_ev_probe_run *run = obj;
	const struct mrc_ev_probe_slot *sl;
	struct nlattr *nest;
	u32 i;

	if (nla_put_in6_addr(skb, MRC_ATTR_PROBE_PEER, &run->peer))
		return -EMSGSIZE;
	for (i = 0; i < run->n; i++) {
		sl = &run->slot[i];
		nest = nla_nest_start(skb, MRC_ATTR_PROBE_RESULT);
		if (!nest ||
		    (sl->plane != MRC_EV_PROBE_NO_PLANE &&
		     nla_put_u32(skb, MRC_PROBE_ATTR_PLANE, sl->plane)) ||
		    (sl->path != MRC_EV_PROBE_NO_PATH &&
		     nla_put_u32(skb, MRC_PROBE_ATTR_PATH, sl->path)) ||
		    nla_put_u32(skb, MRC_PROBE_ATTR_EV, sl->ev) ||
		    (sl->answered &&
		     nla_put_u64_64bit(skb, MRC_PROBE_ATTR_RTT_NS, sl->rtt_ns,
				       MRC_PROBE_ATTR_PAD)) ||
		    (sl->err && nla_put_u32(skb, MRC_PROBE_ATTR_ERROR, -sl->err)))
			return -EMSGSIZE;
		nla_nest_end(skb, nest);
	}
	return 0;
}

/*
 * MRC_CMD_EV_PROBE: probes out, then the reply once they are answered or
 * the timeout passed (the request sleeps; parallel_ops lets the family's
 * other requests run meanwhile).
 */
static int mrc_nl_ev_probe(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_ev_probe_run *run;
	struct nlattr **tb = info->attrs;
	u32 evs = MRC_PROBE_EVS_DEF, timeout = MRC_PROBE_TIMEOUT_MS_DEF;
	struct in6_addr peer;
	int err;

	if (MRC_NL_MISSING(info, MRC_ATTR_PROBE_PEER, "missing probe peer"))
		return mrc_nl_reject(info, -EINVAL);
	peer = nla_get_in6_addr(tb[MRC_ATTR_PROBE_PEER]);
	if (!mrc_addr_unicast(&peer)) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_ATTR_PROBE_PEER],
				    "probe-peer must be a unicast address");
		return mrc_nl_reject(info, -EINVAL);
	}
	if (tb[MRC_ATTR_PROBE_EVS])
		evs = nla_get_u32(tb[MRC_ATTR_PROBE_EVS]);
	if (tb[MRC_ATTR_PROBE_TIMEOUT_MS])
		timeout = nla_get_u32(tb[MRC_ATTR_PROBE_TIMEOUT_MS]);
	run = mrc_ev_probe_run(net, &peer, evs, timeout, info->extack);
	if (IS_ERR(run))
		return mrc_nl_reject(info, PTR_ERR(run));
	err = mrc_nl_reply(info, nla_total_size(sizeof(peer)) +
			   run->n * MRC_NL_PROBE_RESULT_SIZE,
			   mrc_nl_fill_probe, run);
	kfree(run);
	return err;
}

/* ------------------------------------------------------------------ */
/* Connections                                                        */
/* ------------------------------------------------------------------ */

/*
 * MRC_CMD_CONN_GET (dump only). Rules:
 *
 *  - The walk is an RCU walk of mrc_net.qpn_hash: sockets are freed after
 *    a grace period (SOCK_RCU_FREE), so a socket found under
 *    rcu_read_lock() stays valid until rcu_read_unlock() even if it is torn
 *    down meanwhile. Neither mrc_net.conn_lock nor a socket reference is
 *    taken.
 *  - Each connection is copied with its connection lock held
 *    (spin_lock_bh(), bounded work: mrc_conn_get_stats(), one
 *    mrc_conn_get_plane() per plane and one mrc_conn_get_ev() per EV); the
 *    message is built from the copy after the lock is dropped. A socket
 *    marked dead or without an engine is skipped.
 *  - The cursor (cb->args) is (bucket, position in bucket, next EV, QPN of
 *    the connection being dumped). A connection added or removed between
 *    two parts of a dump may be missed or, when it moves the position,
 *    repeated; a connection whose EVs span several messages is re-read for
 *    each part (each part is a consistent snapshot, the parts together are
 *    not one).
 */
#define MRC_NL_CONN_EVS		64	/* EVs per message */
#define MRC_NL_CONN_EV_SIZE						\
	(nla_total_size(0) + 2 * nla_total_size(sizeof(u32)) +		\
	 3 * nla_total_size(sizeof(u8)) +				\
	 6 * nla_total_size_64bit(sizeof(u64)))
#define MRC_NL_CONN_PLANE_SIZE						\
	(nla_total_size(0) + 2 * nla_total_size(sizeof(u8)) +		\
	 4 * nla_total_size(sizeof(u32)) +				\
	 4 * nla_total_size_64bit(sizeof(u64)))
#define MRC_NL_CONN_HDR_SIZE						\
	(nla_total_size(0) + 3 * nla_total_size(sizeof(u32)) +		\
	 2 * nla_total_size(sizeof(struct in6_addr)) +			\
	 4 * nla_total_size(sizeof(u16)) + nla_total_size(sizeof(u8)) +	\
	 6 * nla_total_size_64bit(sizeof(u64)))
#define MRC_NL_CONN_MAX_MSG						\
	(NLMSG_HDRLEN + GENL_HDRLEN + MRC_NL_CONN_HDR_SIZE +		\
	 MRC_MAX_PLANES * MRC_NL_CONN_PLANE_SIZE +			\
	 MRC_NL_CONN_EVS * MRC_NL_CONN_EV_SIZE)

struct mrc_nl_conn_snap {
	struct in6_addr laddr;
	struct in6_addr paddr;
	u32 qpn;
	u32 peer_qpn;
	u16 lport;
	u16 pport;
	u16 lconn;
	u16 pconn;
	u8 state;
	u8 n_planes;
	u16 n_ev;
	u16 ev_from;		/* first EV of this message */
	struct mrc_conn_stats st;
	struct mrc_plane_info planes[MRC_MAX_PLANES];
	struct mrc_ev_info evs[MRC_EV_MAX];
};

/* Copy one connection; RCU held. False if it has no engine (any more). */
static bool mrc_nl_conn_snap(struct mrc_sock *ms, struct mrc_nl_conn_snap *s)
{
	bool ok;
	u32 i, n;

	spin_lock_bh(&ms->lock);
	ok = !ms->dead && ms->conn;
	if (ok) {
		s->laddr = ms->saddr;
		memcpy(&s->paddr, ms->peer.smrc_addr, sizeof(s->paddr));
		s->qpn = ms->qpn;
		s->peer_qpn = ms->peer_qpn;
		s->lport = ntohs(ms->local.smrc_port);
		s->pport = ntohs(ms->peer.smrc_port);
		s->lconn = ms->local_conn_id;
		s->pconn = ms->peer_conn_id;
		s->state = ms->state;
		mrc_conn_get_stats(ms->conn, &s->st);
		for (i = 0; i < MRC_MAX_PLANES; i++)
			if (mrc_conn_get_plane(ms->conn, i, &s->planes[i]))
				break;
		s->n_planes = i;
		n = min_t(u32, mrc_conn_num_evs(ms->conn), MRC_EV_MAX);
		for (i = 0; i < n; i++)
			if (mrc_conn_get_ev(ms->conn, i, &s->evs[i]))
				memset(&s->evs[i], 0, sizeof(s->evs[i]));
		s->n_ev = n;
	}
	spin_unlock_bh(&ms->lock);
	return ok;
}

static int mrc_nl_put_u64(struct sk_buff *skb, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, type, v, pad);
}

static int mrc_nl_fill_conn_ev(struct sk_buff *skb, u32 idx,
			       const struct mrc_ev_info *e)
{
	struct nlattr *nest = nla_nest_start(skb, MRC_CONN_ATTR_EV);
	const int pad = MRC_CONN_EV_ATTR_PAD;

	if (!nest ||
	    nla_put_u32(skb, MRC_CONN_EV_ATTR_INDEX, idx) ||
	    nla_put_u32(skb, MRC_CONN_EV_ATTR_VALUE, e->ev) ||
	    nla_put_u8(skb, MRC_CONN_EV_ATTR_PLANE, e->plane) ||
	    nla_put_u8(skb, MRC_CONN_EV_ATTR_STATE, e->state) ||
	    nla_put_u8(skb, MRC_CONN_EV_ATTR_ACTIVE, !!e->active) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_SENT, e->cnt.sent, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_SACKED, e->cnt.sacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_NACKED, e->cnt.nacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_TIMEOUTS, e->cnt.timeouts, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_ECN, e->cnt.ecn, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_EV_ATTR_LOSSES, e->cnt.lost, pad))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int mrc_nl_fill_conn_plane(struct sk_buff *skb, u32 id,
				  const struct mrc_plane_info *p)
{
	struct nlattr *nest = nla_nest_start(skb, MRC_CONN_ATTR_PLANE);
	const int pad = MRC_CONN_PLANE_ATTR_PAD;

	if (!nest ||
	    nla_put_u8(skb, MRC_CONN_PLANE_ATTR_ID, id) ||
	    nla_put_u8(skb, MRC_CONN_PLANE_ATTR_UP, !!p->up) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_EVS, p->n_ev) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_ACTIVE, p->n_active) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_GOOD, p->n_good) ||
	    nla_put_u32(skb, MRC_CONN_PLANE_ATTR_N_BAD, p->n_bad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_SENT, p->cnt.sent, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_SACKED, p->cnt.sacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_NACKED, p->cnt.nacked, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_PLANE_ATTR_TIMEOUTS, p->cnt.timeouts,
			   pad))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

/* One part of a connection: its attributes and EVs ev_from.. (+ planes). */
static int mrc_nl_fill_conn(struct sk_buff *skb, struct net *net,
			    const void *obj)
{
	const struct mrc_nl_conn_snap *s = obj;
	const int pad = MRC_CONN_ATTR_PAD;
	struct nlattr *nest;
	u32 i, end;

	nest = nla_nest_start(skb, MRC_ATTR_CONN);
	if (!nest ||
	    nla_put_u32(skb, MRC_CONN_ATTR_QPN, s->qpn) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_PEER_QPN, s->peer_qpn) ||
	    nla_put_in6_addr(skb, MRC_CONN_ATTR_LOCAL_ADDR, &s->laddr) ||
	    nla_put_in6_addr(skb, MRC_CONN_ATTR_PEER_ADDR, &s->paddr) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_LOCAL_SERVICE, s->lport) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_SERVICE, s->pport) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_LOCAL_CONN_ID, s->lconn) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_CONN_ID, s->pconn) ||
	    nla_put_u8(skb, MRC_CONN_ATTR_STATE, s->state) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_CWND, s->st.cwnd_bytes) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_SRTT_NS, s->st.srtt_ns, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_RETRANSMITS, s->st.tx_rtx_pkts,
			   pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_TIMEOUTS, s->st.timeouts, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_TX_PKTS, s->st.tx_data_pkts, pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_TX_BYTES, s->st.tx_data_bytes,
			   pad) ||
	    mrc_nl_put_u64(skb, MRC_CONN_ATTR_EVENTS_DROPPED,
			   s->st.events_dropped, pad) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_N_EVS, s->n_ev))
		return -EMSGSIZE;
	for (i = 0; !s->ev_from && i < s->n_planes; i++)
		if (mrc_nl_fill_conn_plane(skb, i, &s->planes[i]))
			return -EMSGSIZE;
	end = min_t(u32, s->n_ev, s->ev_from + MRC_NL_CONN_EVS);
	for (i = s->ev_from; i < end; i++)
		if (mrc_nl_fill_conn_ev(skb, i, &s->evs[i]))
			return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int mrc_nl_conn_dump_start(struct netlink_callback *cb)
{
	BUILD_BUG_ON(MRC_NL_CONN_MAX_MSG > U16_MAX);
	cb->min_dump_alloc = MRC_NL_CONN_MAX_MSG;
	return 0;
}

/* RCU: the socket at position @pos of bucket @b, or NULL. */
static struct mrc_sock *mrc_nl_conn_at(struct mrc_net *mn, long b, long pos)
{
	struct mrc_sock *ms;
	long i = 0;

	hlist_for_each_entry_rcu(ms, &mn->qpn_hash[b], qpn_node)
		if (i++ == pos)
			return ms;
	return NULL;
}

static int mrc_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = mrc_genl_dump_attrs(genl_dumpit_info(cb));
	struct net *net = sock_net(skb->sk);
	struct mrc_net *mn = mrc_net(net);
	struct mrc_nl_conn_snap *s;
	bool filter = false;
	struct mrc_sock *ms;
	u32 qpn_f = 0;
	bool ok;

	if (attrs && attrs[MRC_ATTR_CONN_QPN]) {
		filter = true;
		qpn_f = nla_get_u32(attrs[MRC_ATTR_CONN_QPN]);
	}
	s = kvmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	for (; cb->args[0] < HASH_SIZE(mn->qpn_hash);
	     cb->args[0]++, cb->args[1] = 0) {
		for (;; cb->args[1]++, cb->args[2] = 0) {
			rcu_read_lock();
			ms = mrc_nl_conn_at(mn, cb->args[0], cb->args[1]);
			ok = ms && mrc_nl_conn_snap(ms, s);
			rcu_read_unlock();
			if (!ms)
				break;
			if (!ok || (filter && s->qpn != qpn_f))
				continue;
			if (cb->args[3] != s->qpn)
				cb->args[2] = 0;
			cb->args[3] = s->qpn;
			do {
				s->ev_from = cb->args[2];
				if (mrc_nl_put_msg(skb, NETLINK_CB(cb->skb).portid,
						   cb->nlh->nlmsg_seq, NLM_F_MULTI,
						   MRC_CMD_CONN_GET, NULL,
						   mrc_nl_fill_conn, net, s))
					goto out;
				cb->args[2] += MRC_NL_CONN_EVS;
			} while (cb->args[2] < s->n_ev);
		}
	}
out:
	kvfree(s);
	return skb->len;
}

/*
 * Connection events (MRC_CMD_CONN_UP_NTF, MRC_CMD_CONN_DOWN_NTF,
 * MRC_CMD_PATH_CHANGE_NTF). Sent by the datapath with the connection lock
 * held or from softirq: GFP_ATOMIC, never sleeps; nothing is built unless
 * somebody listens. EV changes are aggregated per engine input (one
 * mrc_conn_drain()): one message with at most MRC_NL_EV_CHANGES of them and
 * the count of the others, so a timeout burst costs one message per timer
 * expiry, not one per EV; and rate-limited per connection to one message
 * per MRC_NL_EV_GAP_NS: the changes of a suppressed input are added to the
 * "lost" count of the next message sent.
 */
struct mrc_nl_conn_ntf {
	struct in6_addr laddr;
	struct in6_addr paddr;
	u32 qpn;
	u32 peer_qpn;
	u16 lport;
	u16 pport;
	u16 lconn;
	u16 pconn;
	u8 state;
	int err;
	u32 lost;
	u32 n;
	const struct mrc_nl_ev_change *ch;
};

static void mrc_nl_conn_ntf_init(struct mrc_nl_conn_ntf *c,
				 const struct mrc_sock *ms)
{
	memset(c, 0, sizeof(*c));
	c->laddr = ms->saddr;
	memcpy(&c->paddr, ms->peer.smrc_addr, sizeof(c->paddr));
	c->qpn = ms->qpn;
	c->peer_qpn = ms->peer_qpn;
	c->lport = ntohs(ms->local.smrc_port);
	c->pport = ntohs(ms->peer.smrc_port);
	c->lconn = ms->local_conn_id;
	c->pconn = ms->peer_conn_id;
	c->state = READ_ONCE(ms->state);
}

static int mrc_nl_fill_conn_ntf(struct sk_buff *skb, struct net *net,
				const void *obj)
{
	const struct mrc_nl_conn_ntf *c = obj;
	struct nlattr *nest, *ev;
	u32 i;

	nest = nla_nest_start(skb, MRC_ATTR_CONN);
	if (!nest ||
	    nla_put_u32(skb, MRC_CONN_ATTR_QPN, c->qpn) ||
	    nla_put_u32(skb, MRC_CONN_ATTR_PEER_QPN, c->peer_qpn) ||
	    nla_put_in6_addr(skb, MRC_CONN_ATTR_LOCAL_ADDR, &c->laddr) ||
	    nla_put_in6_addr(skb, MRC_CONN_ATTR_PEER_ADDR, &c->paddr) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_LOCAL_SERVICE, c->lport) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_SERVICE, c->pport) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_LOCAL_CONN_ID, c->lconn) ||
	    nla_put_u16(skb, MRC_CONN_ATTR_PEER_CONN_ID, c->pconn) ||
	    nla_put_u8(skb, MRC_CONN_ATTR_STATE, c->state))
		return -EMSGSIZE;
	if (!c->ch && nla_put_u32(skb, MRC_CONN_ATTR_ERROR, c->err))
		return -EMSGSIZE;
	for (i = 0; c->ch && i < c->n; i++) {
		ev = nla_nest_start(skb, MRC_CONN_ATTR_EV);
		if (!ev ||
		    nla_put_u32(skb, MRC_CONN_EV_ATTR_INDEX, c->ch[i].index) ||
		    nla_put_u32(skb, MRC_CONN_EV_ATTR_VALUE, c->ch[i].value) ||
		    nla_put_u8(skb, MRC_CONN_EV_ATTR_PLANE, c->ch[i].plane) ||
		    nla_put_u8(skb, MRC_CONN_EV_ATTR_STATE, c->ch[i].state) ||
		    nla_put_u8(skb, MRC_CONN_EV_ATTR_ACTIVE, c->ch[i].active))
			return -EMSGSIZE;
		nla_nest_end(skb, ev);
	}
	if (c->ch && nla_put_u32(skb, MRC_CONN_ATTR_EV_LOST, c->lost))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

#define MRC_NL_CONN_NTF_SIZE						\
	(MRC_NL_CONN_HDR_SIZE + 2 * nla_total_size(sizeof(u32)) +		\
	 MRC_NL_EV_CHANGES * MRC_NL_CONN_EV_SIZE)

/**
 * mrc_nl_notify_conn() - multicast a connection up/down event
 * @ms: the connection (its handshake fields are set)
 * @up: established (true) or failed/closed (false)
 * @err: positive errno it failed with, 0 when it came up or was closed
 *
 * Context: any (GFP_ATOMIC); connection lock held or not.
 */
void mrc_nl_notify_conn(struct mrc_sock *ms, bool up, int err)
{
	struct net *net = sock_net(&ms->sk);
	struct mrc_nl_conn_ntf c;

	if (!READ_ONCE(mrc_nl_ready) ||
	    !genl_has_listeners(&mrc_genl_family, net, MRC_NLGRP_EVENTS))
		return;
	mrc_nl_conn_ntf_init(&c, ms);
	c.err = err;
	mrc_nl_notify(net, up ? MRC_CMD_CONN_UP_NTF : MRC_CMD_CONN_DOWN_NTF,
		      MRC_NL_CONN_NTF_SIZE, mrc_nl_fill_conn_ntf, &c,
		      GFP_ATOMIC);
}

/**
 * mrc_nl_notify_paths() - multicast the EV state changes of one engine input
 * @ms: the connection
 * @ch: the changes, oldest first
 * @n: how many (at most MRC_NL_EV_CHANGES)
 * @lost: further changes of the same input that did not fit
 *
 * Context: connection lock held, any context (GFP_ATOMIC).
 */
void mrc_nl_notify_paths(struct mrc_sock *ms,
			 const struct mrc_nl_ev_change *ch, u32 n, u32 lost)
{
	struct net *net = sock_net(&ms->sk);
	struct mrc_nl_conn_ntf c;
	u64 now;

	if (!READ_ONCE(mrc_nl_ready) ||
	    !genl_has_listeners(&mrc_genl_family, net, MRC_NLGRP_EVENTS))
		return;
	now = mrc_now();
	if (now < ms->nl_ev_next) {
		ms->nl_ev_lost += n + lost;
		return;
	}
	ms->nl_ev_next = now + MRC_NL_EV_GAP_NS;
	mrc_nl_conn_ntf_init(&c, ms);
	c.ch = ch;
	c.n = min_t(u32, n, MRC_NL_EV_CHANGES);
	c.lost = lost + (n - c.n) + ms->nl_ev_lost;
	ms->nl_ev_lost = 0;
	mrc_nl_notify(net, MRC_CMD_PATH_CHANGE_NTF, MRC_NL_CONN_NTF_SIZE,
		      mrc_nl_fill_conn_ntf, &c, GFP_ATOMIC);
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
