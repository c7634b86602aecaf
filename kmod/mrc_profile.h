/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_profile.h - the EV and congestion-control profiles a connection is
 * created with (mrc_profile.c).
 */
#ifndef MRC_PROFILE_H
#define MRC_PROFILE_H

#include <linux/types.h>

#include "mrc_cfg.h"

struct mrc_conn_cfg;
struct mrc_sock;
struct net;

/**
 * struct mrc_conn_profiles - the profiles a connection is created with
 * @ev: its EV profile (a copy)
 * @cc: its congestion-control profile (a copy)
 * @ev_count: its EV count (MRC_EV_SET_SIZE, else @ev's)
 */
struct mrc_conn_profiles {
	struct mrc_cfg_profile ev;
	struct mrc_cfg_profile cc;
	u32 ev_count;
};

bool mrc_profile_exists(const struct net *net, u32 id);
void mrc_profile_read(const struct mrc_sock *ms, struct mrc_conn_profiles *pr);
void mrc_profile_apply(struct mrc_sock *ms, const struct mrc_conn_profiles *pr,
		       struct mrc_conn_cfg *cfg);
void mrc_profile_tclass(struct mrc_sock *ms, const struct mrc_cfg_profile *ev);
u8 mrc_profile_ctl_tclass(const struct net *net);

#endif /* MRC_PROFILE_H */
