/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_path.h - a connection's path snapshot on a configured route, plane
 * state (mrc_path.c).
 */
#ifndef MRC_PATH_H
#define MRC_PATH_H

#include <linux/in6.h>
#include <linux/types.h>
#include <net/dst_cache.h>

#include "core/mrc_engine.h"
#include "mrc_cfg.h"

struct mrc_conn_cfg;
struct mrc_sock;
struct net;

/**
 * struct mrc_mp_plane - one plane of a connection's path snapshot
 * @id:      configured plane id (mrc_cfg_plane.id)
 * @up:      admin and operational state, as last reported (connection lock)
 * @first:   index of the plane's first path slot in mrc_mp.pidx/mrc_mp.dc
 * @npaths:  path slots of the plane (>= 1)
 * @ifindex: the plane's device when the snapshot was taken
 * @saddr:   the plane's source address (outer source of srh/usid packets)
 */
struct mrc_mp_plane {
	u8 id;
	bool up;
	u16 first;
	u16 npaths;
	int ifindex;
	struct in6_addr saddr;
};

/**
 * struct mrc_mp - what a connection needs to send on a configured route
 * @rt:        the route, held (mrc_cfg_route_hold()) for its path templates
 * @encap:     enum mrc_encap
 * @nplanes:   entries of @plane; engine plane i is @plane[i]
 * @nslots:    path slots in use (entries of @pidx and @dc)
 * @max_paths: largest @plane[].npaths
 * @mtu:       smallest MTU of the slots' routes, encapsulation removed
 * @plane:     the planes, by increasing id
 * @pidx:      path slot -> index in @rt->paths (unused without paths)
 * @dc:        route cache of every path slot
 *
 * A connection keeps the snapshot it was created with: replacing or
 * deleting the route or a plane later changes only new connections.
 */
struct mrc_mp {
	struct mrc_cfg_route *rt;
	u8 encap;
	u8 nplanes;
	u16 nslots;
	u16 max_paths;
	u32 mtu;
	struct mrc_mp_plane plane[MRC_MAX_PLANES];
	u16 pidx[MRC_ROUTE_PATHS_MAX];
	struct dst_cache dc[MRC_ROUTE_PATHS_MAX];
};

int mrc_path_init_module(void);
void mrc_path_exit_module(void);
int mrc_mp_setup(struct net *net, struct mrc_sock *ms, gfp_t gfp);
void mrc_mp_free(struct mrc_mp *mp);
void mrc_mp_engine_cfg(const struct mrc_mp *mp, struct mrc_conn_cfg *cfg,
		       u32 evs);
void mrc_mp_plane_apply(struct mrc_sock *ms, u32 i, u64 now);

#endif /* MRC_PATH_H */
