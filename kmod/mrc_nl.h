/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_nl.h - the generic netlink family "mrc" (control plane of mrc.ko).
 *
 * Events
 * ======
 * Every change of the configuration is multicast to the "events" group of
 * the namespace it happened in, as a message whose command is one of the
 * MRC_CMD_*_NTF values and whose attributes are those of the matching GET
 * reply. Configuration changes reach the family through the configuration
 * store's notifier chain (mrc_cfg.h), whose consumer in mrc_nl_cfg.c
 * (registered by mrc_nl_cfg_init_module()) sends them; connection events
 * are sent by the mrc_nl_notify_*() helpers below. Those may be called
 * from any context (pass the right gfp) and cost nothing but a test when
 * nobody listens.
 *
 * Adding an event type (e.g. connection up/down, EV state change):
 *  1. append MRC_CMD_<OBJ>_<WHAT>_NTF to enum mrc_cmd in uapi/linux/mrc.h
 *     (never reuse or renumber) and the attributes it carries to enum
 *     mrc_attr (or a new nested enum);
 *  2. in the file of the object (mrc_nl_cfg.c for configuration,
 *     mrc_nl_conn.c for connections), write a fill function (a
 *     mrc_nl_fill_fn, mrc_nl_impl.h) that puts those attributes, and a
 *     mrc_nl_notify_<obj>() wrapper that calls mrc_nl_notify() with it and
 *     a size estimate; for a configuration object, the store raises an
 *     event on its chain (enum mrc_cfg_event) and mrc_nl_cfg_event() maps
 *     it to the command;
 *  3. describe it in Documentation/netlink/specs/mrc.yaml (an operation
 *     with "notify:" or "event:" and "mcgrp: events") and in
 *     Documentation/networking/mrc-netlink.rst, and teach mrcctl monitor
 *     to print it.
 */
#ifndef MRC_NL_H
#define MRC_NL_H

#include <linux/gfp.h>
#include <linux/types.h>

struct net;
struct sk_buff;
struct mrc_sock;

/**
 * struct mrc_nl_ev_change - one EV state change for mrc_nl_notify_paths()
 * @index: EV index in the connection
 * @value: the EV
 * @plane: its plane
 * @state: new state (enum mrc_ev_state = enum mrc_path_state)
 * @active: in the active rotation
 */
struct mrc_nl_ev_change {
	u32 value;
	u16 index;
	u8 plane;
	u8 state;
	u8 active;
};

/* EV changes one MRC_CMD_PATH_CHANGE_NTF carries (per engine input). */
#define MRC_NL_EV_CHANGES	16
/* At most one MRC_CMD_PATH_CHANGE_NTF per connection per this (100/s). */
#define MRC_NL_EV_GAP_NS	(10 * NSEC_PER_MSEC)

int mrc_nl_init_module(void);
void mrc_nl_exit_module(void);
int mrc_nl_cfg_init_module(void);
void mrc_nl_cfg_exit_module(void);

int mrc_nl_notify(struct net *net, u8 cmd, size_t size,
		  int (*fill)(struct sk_buff *skb, struct net *net,
			      const void *obj),
		  const void *obj, gfp_t gfp);
void mrc_nl_notify_conn(struct mrc_sock *ms, bool up, int err);
void mrc_nl_notify_paths(struct mrc_sock *ms,
			 const struct mrc_nl_ev_change *ch, u32 n, u32 lost);

#endif /* MRC_NL_H */
