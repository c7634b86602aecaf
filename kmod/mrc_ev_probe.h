/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_ev_probe.h - MRC 1.0's connectionless EV probes: a spec peer's
 * answered, our own sent on request (mrc_ev_probe.c).
 */
#ifndef MRC_EV_PROBE_H
#define MRC_EV_PROBE_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>

struct mrc_pkt;
struct net;
struct netlink_ext_ack;
struct sk_buff;

/* Plane of a probe sent on the host's own route (the peer has no MRC route). */
#define MRC_EV_PROBE_NO_PLANE	U32_MAX
#define MRC_EV_PROBE_NO_PATH	U32_MAX

/**
 * struct mrc_ev_probes - a namespace's runs of EV probes in flight (in
 *	struct mrc_net)
 * @lock:    protects @runs, @nruns, @next_id and the slots of every run on
 *           @runs (spinlock, BH-safe: answers arrive in the receive
 *           softirq); a leaf, never held across anything else
 * @runs:    struct mrc_ev_probe_run.node, at most MRC_EV_PROBE_RUNS_MAX
 * @nruns:   entries of @runs
 * @next_id: probe id of the next run's first probe
 */
struct mrc_ev_probes {
	spinlock_t lock;	/* see the locking strategy (mrc_impl.h) */
	struct list_head runs;
	u32 nruns;
	u16 next_id;
};

/**
 * struct mrc_ev_probe_slot - one probe of a run
 * @sent_ns: mrc_now() when it left
 * @rtt_ns:  round-trip time, when @answered
 * @plane:   plane id it left on, or MRC_EV_PROBE_NO_PLANE
 * @path:    index of its path on the route, or MRC_EV_PROBE_NO_PATH
 * @ev:      the EV probed (UDP source port, flow label)
 * @err:     0, or the negative errno of a probe not sent
 * @tx_ts:   its timestamp, which the answer echoes
 * @answered: the answer arrived
 */
struct mrc_ev_probe_slot {
	u64 sent_ns;
	u64 rtt_ns;
	u32 plane;
	u32 path;
	u32 ev;
	int err;
	u16 tx_ts;
	bool answered;
};

/**
 * struct mrc_ev_probe_run - the probes of one request (MRC_CMD_EV_PROBE)
 * @node:     in struct mrc_ev_probes.runs while the answers are awaited
 * @peer:     the address probed; answers come from it
 * @wq:       the requesting task waits here for @pending to reach 0
 * @first_id: probe id of @slot[0]; slot i carries @first_id + i
 * @n:        slots in use
 * @pending:  probes sent and not answered yet
 * @slot:     the probes, MRC_PROBE_MAX of them
 *
 * @n, @pending and @slot are written under mrc_ev_probes.lock while the
 * run is on the list (the answers write them in softirq); the requester
 * reads them once the run is off the list.
 */
struct mrc_ev_probe_run {
	struct list_head node;
	struct in6_addr peer;
	wait_queue_head_t wq;
	u16 first_id;
	u32 n;
	u32 pending;
	struct mrc_ev_probe_slot slot[];
};

void mrc_ev_probes_init(struct mrc_ev_probes *p);
void mrc_ev_probe_rcv(struct net *net, const struct sk_buff *skb,
		      const struct mrc_pkt *pkt, int oif);
struct mrc_ev_probe_run *mrc_ev_probe_run(struct net *net,
					  const struct in6_addr *peer,
					  u32 evs, u32 timeout_ms,
					  struct netlink_ext_ack *extack);

#endif /* MRC_EV_PROBE_H */
