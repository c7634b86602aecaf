// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_net.c - per network namespace state of mrc.ko and /proc/net/mrc.
 *
 * Every object of the module hangs off struct mrc_net so that two namespaces
 * never see each other's sockets, service ids or counters, and each has its
 * own sysctls under net.mrc (Documentation/admin-guide/mrc.rst).
 */
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/sysctl.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "mrc_impl.h"
#include "mrc_input.h"
#include "mrc_mem.h"
#include "mrc_net.h"
#include "mrc_sock.h"
#include "mrc_steer.h"

static unsigned int mrc_net_id __read_mostly;

static const char * const mrc_counter_names[__MRC_CNT_MAX] = {
	[MRC_CNT_SOCK_CREATED]	= "SocketsCreated",
	[MRC_CNT_SOCK_RELEASED]	= "SocketsReleased",
	[MRC_CNT_BIND_OK]	= "BindOk",
	[MRC_CNT_BAD_ADDR]	= "BindBadAddress",
	[MRC_CNT_ADDR_NOTAVAIL]	= "BindAddrNotAvail",
	[MRC_CNT_ADDR_INUSE]	= "BindAddrInUse",
	[MRC_CNT_BAD_SOCKET]	= "SocketBadTypeOrProtocol",
	[MRC_CNT_RX_PKTS]	= "RxPackets",
	[MRC_CNT_RX_TRUNC]	= "RxTruncated",
	[MRC_CNT_RX_BAD_ICRC]	= "RxBadIcrc",
	[MRC_CNT_RX_BAD_OPCODE]	= "RxBadOpcode",
	[MRC_CNT_RX_BAD_HDR]	= "RxBadHeader",
	[MRC_CNT_RX_UNKNOWN_QPN] = "RxUnknownQpn",
	[MRC_CNT_RX_WRONG_SRC]	= "RxWrongSource",
	[MRC_CNT_RX_NOT_READY]	= "RxNotReady",
	[MRC_CNT_RX_STALE]	= "RxStale",
	[MRC_CNT_RX_PROTO]	= "RxProtoError",
	[MRC_CNT_RX_OOW]	= "RxOutOfWindow",
	[MRC_CNT_RX_DUP]	= "RxDuplicate",
	[MRC_CNT_RX_NOBUF]	= "RxNoBuffer",
	[MRC_CNT_RX_BAD_HS]	= "RxBadHandshake",
	[MRC_CNT_RX_NOMEM]	= "RxNoMemory",
	[MRC_CNT_RX_BAD_ADDR]	= "RxBadAddress",
	[MRC_CNT_TX_PKTS]	= "TxPackets",
	[MRC_CNT_TX_ERR]	= "TxErrors",
	[MRC_CNT_TX_NOROUTE]	= "TxNoRoute",
	[MRC_CNT_CONN_REQ_SENT]	= "ConnectRequests",
	[MRC_CNT_CONN_REQ_RTX]	= "ConnectRequestRetrans",
	[MRC_CNT_CONN_RESP_SENT] = "ConnectResponses",
	[MRC_CNT_CONN_REFUSED]	= "ConnectRefused",
	[MRC_CNT_CONN_BACKLOG]	= "ConnectBacklogDrops",
	[MRC_CNT_CONN_ESTAB]	= "ConnEstablished",
	[MRC_CNT_CONN_TIMEDOUT]	= "ConnectTimeouts",
	[MRC_CNT_CONN_FAILED]	= "ConnFailed",
	[MRC_CNT_CONN_CLOSED]	= "ConnClosed",
	[MRC_CNT_RX_BAD_SRH]	= "RxBadSrh",
	[MRC_CNT_TIMER_STALLS]	= "TimerStalls",
	[MRC_CNT_TX_PORT_STATUS] = "TxPortStatus",
	[MRC_CNT_RX_PORT_STATUS] = "RxPortStatus",
	[MRC_CNT_CONN_ABORTED]	= "ConnAborted",
	[MRC_CNT_TX_LOCAL_DROP]	= "TxLocalDrops",
	[MRC_CNT_TX_MEM_LIMIT]	= "TxMemLimit",
	[MRC_CNT_RX_MEM_LIMIT]	= "RxMemLimit",
	[MRC_CNT_CONN_ICMP]	= "ConnectIcmpErrors",
	[MRC_CNT_HS_COOKIE_SENT] = "ConnectCookiesSent",
	[MRC_CNT_HS_COOKIE_BAD]	= "ConnectCookiesBad",
	[MRC_CNT_HS_LIMITED]	= "HandshakeAnswersLimited",
	[MRC_CNT_PTB]		= "PktTooBig",
	[MRC_CNT_PTB_IGNORED]	= "PktTooBigIgnored",
	[MRC_CNT_PMTU_RTX]	= "PmtuRetransmits",
	[MRC_CNT_ORPHANS_ABORTED] = "OrphansAborted",
	[MRC_CNT_IDLE_CHILDREN_ABORTED] = "IdleChildrenAborted",
	[MRC_CNT_PORT_STATUS_RTX] = "PortStatusRetransmits",
	[MRC_CNT_PORT_STATUS_ACKED] = "PortStatusAcked",
	[MRC_CNT_PORT_STATUS_UNMATCHED] = "PortStatusUnmatched",
	[MRC_CNT_RX_FLOWCELLS]	= "RxFlowcells",
	[MRC_CNT_RX_HELD]	= "RxHeld",
	[MRC_CNT_RX_COPIED]	= "RxCopied",
	[MRC_CNT_EV_PROBES_ANSWERED] = "EvProbesAnswered",
	[MRC_CNT_RCVBUF_GROWN]	= "RcvbufGrown",
	[MRC_CNT_SNDBUF_GROWN]	= "SndbufGrown",
	[MRC_CNT_TX_LOCAL_CN]	= "TxLocalCongestion",
	[MRC_CNT_TX_QUEUE_THROTTLED] = "TxQueueThrottled",
	[MRC_CNT_TIMER_IDLE]	= "TimerIdle",
	[MRC_CNT_TX_PAGES_REUSED] = "TxPagesReused",
	[MRC_CNT_TX_FRAG_PAGES_REUSED] = "TxFragPagesReused",
	[MRC_CNT_RX_BACKLOG]	= "RxBacklog",
	[MRC_CNT_RX_STEERED]	= "RxSteered",
	[MRC_CNT_EV_PROBES_SENT] = "EvProbesSent",
	[MRC_CNT_EV_PROBES_REPLIED] = "EvProbesReplied",
	[MRC_CNT_TX_FLOWCELLS_IN_PLACE] = "TxFlowcellsInPlace",
	[MRC_CNT_TX_FLOWCELLS_AUTOSIZED] = "TxFlowcellsAutosized",
};

/**
 * mrc_net() - the MRC state of a network namespace
 * @net: the namespace
 *
 * Return: the namespace's struct mrc_net, valid while @net is alive.
 */
struct mrc_net *mrc_net(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

/**
 * mrc_udp_dport() - the UDP port MRC packets are sent to
 * @net: namespace
 *
 * The one this namespace's socket is bound to (net.mrc.udp_port when it
 * was created, mrc_input.c); peers agree on it.
 *
 * Return: the port, network order.
 */
__be16 mrc_udp_dport(const struct net *net)
{
	return READ_ONCE(mrc_net(net)->udp_dport);
}

/**
 * mrc_net_count() - bump one per-namespace counter
 * @mn: the namespace state
 * @c:  which counter
 */
void mrc_net_count(struct mrc_net *mn, enum mrc_net_counter c)
{
	this_cpu_inc(mn->mib->cnt[c]);
}

/**
 * mrc_net_add() - add @n to a namespace counter
 * @mn: the namespace's state
 * @c: the counter
 * @n: how much
 */
void mrc_net_add(struct mrc_net *mn, enum mrc_net_counter c, u32 n)
{
	this_cpu_add(mn->mib->cnt[c], n);
}

/**
 * mrc_net_fold() - every counter of a namespace, summed over the CPUs
 * @mn: the namespace's state
 * @sum: __MRC_CNT_MAX entries, overwritten
 *
 * As the kernel's SNMP folding: no lock; a counter bumped on another CPU
 * meanwhile shows in this sum or the next.
 */
void mrc_net_fold(const struct mrc_net *mn, u64 *sum)
{
	const struct mrc_net_mib *m;
	int cpu, i;

	memset(sum, 0, sizeof(*sum) * __MRC_CNT_MAX);
	for_each_possible_cpu(cpu) {
		m = per_cpu_ptr(mn->mib, cpu);
		for (i = 0; i < __MRC_CNT_MAX; i++)
			sum[i] += READ_ONCE(m->cnt[i]);
	}
}

static int mrc_progress_min = MRC_PROGRESS_TIMEOUT_MS_MIN;
static int mrc_progress_max = MRC_PROGRESS_TIMEOUT_MS_MAX;
static int mrc_port_min = 1;
static int mrc_port_max = 65535;
static int mrc_hs_rate_max = MRC_HS_ANSWER_RATE_MAX;
static int mrc_child_idle_max = MRC_CHILD_IDLE_TIMEOUT_MS_MAX;
static int mrc_limit_output_max = MRC_LIMIT_OUTPUT_BYTES_MAX;
/* No datagram holds more MRC bytes than a GSO skb. */
static int mrc_rx_steer_max = GSO_LEGACY_MAX_SIZE;
static int mrc_burst_autosize_max = MRC_TX_BURST_AUTOSIZE_US_MAX;
static int mrc_failover_max = MRC_FO_ALL;

/*
 * net.mrc.udp_port: any port until the namespace's UDP socket exists, then
 * fixed (EBUSY): the socket is bound to it and every peer sends to it.
 */
static int mrc_sysctl_udp_port(MRC_PROC_HANDLER_TABLE *table, int write,
			       void *buffer, size_t *lenp, loff_t *ppos)
{
	struct mrc_net *mn = container_of((int *)table->data, struct mrc_net,
					  udp_port);
	struct ctl_table tmp = *table;
	int val, err;

	mutex_lock(&mn->udp_mutex);
	val = mn->udp_port;
	tmp.data = &val;
	err = proc_dointvec_minmax(&tmp, write, buffer, lenp, ppos);
	if (!err && write && val != mn->udp_port) {
		if (mn->udp_sock)
			err = -EBUSY;
		else
			WRITE_ONCE(mn->udp_port, val);
	}
	mutex_unlock(&mn->udp_mutex);
	return err;
}

/* Template; each namespace gets a copy pointing at its own fields. */
static const struct ctl_table mrc_sysctl_template[] = {
	{
		.procname	= "progress_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mrc_progress_min,
		.extra2		= &mrc_progress_max,
	},
	{
		.procname	= "udp_port",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= mrc_sysctl_udp_port,
		.extra1		= &mrc_port_min,
		.extra2		= &mrc_port_max,
	},
	{
		.procname	= "handshake_answer_rate",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &mrc_hs_rate_max,
	},
	{
		.procname	= "max_orphans",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_INT_MAX,
	},
	{
		.procname	= "child_idle_timeout_ms",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &mrc_child_idle_max,
	},
	{
		.procname	= "limit_output_bytes",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &mrc_limit_output_max,
	},
	{
		.procname	= "rx_steer_min_bytes",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &mrc_rx_steer_max,
	},
	{
		.procname	= "tx_in_place",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
	{
		.procname	= "tx_burst_autosize_us",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &mrc_burst_autosize_max,
	},
	{
		.procname	= "failover",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
		.extra2		= &mrc_failover_max,
	},
	{ }
};

static int mrc_sysctl_init(struct net *net, struct mrc_net *mn)
{
	struct ctl_table *t;

	mn->progress_timeout_ms = MRC_PROGRESS_TIMEOUT_MS_DEF;
	mn->udp_port = MRC_UDP_PORT;
	mn->max_orphans = MRC_MAX_ORPHANS_DEF;
	mn->child_idle_timeout_ms = MRC_CHILD_IDLE_TIMEOUT_MS_DEF;
	mn->limit_output_bytes = MRC_LIMIT_OUTPUT_BYTES_DEF;
	mn->rx_steer_min_bytes = MRC_RX_STEER_MIN_BYTES_DEF;
	mn->tx_in_place = 1;
	mn->tx_burst_autosize_us = MRC_TX_BURST_AUTOSIZE_US_DEF;
	mn->failover = MRC_FO_ALL;
	t = kmemdup(mrc_sysctl_template, sizeof(mrc_sysctl_template), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t[0].data = &mn->progress_timeout_ms;
	t[1].data = &mn->udp_port;
	t[2].data = &mn->hs_guard.rate;
	t[3].data = &mn->max_orphans;
	t[4].data = &mn->child_idle_timeout_ms;
	t[5].data = &mn->limit_output_bytes;
	t[6].data = &mn->rx_steer_min_bytes;
	t[7].data = &mn->tx_in_place;
	t[8].data = &mn->tx_burst_autosize_us;
	t[9].data = &mn->failover;
	mn->sysctl = mrc_register_net_sysctl(net, "net/mrc", t,
					     ARRAY_SIZE(mrc_sysctl_template));
	if (!mn->sysctl) {
		kfree(t);
		return -ENOMEM;
	}
	return 0;
}

static void mrc_sysctl_exit(struct mrc_net *mn)
{
	const struct ctl_table *t = mn->sysctl->ctl_table_arg;

	unregister_net_sysctl_table(mn->sysctl);
	kfree(t);
}

static int mrc_proc_show(struct seq_file *seq, void *v)
{
	struct mrc_net *mn = mrc_net(seq_file_single_net(seq));
	unsigned int i;
	u64 *sum;

	seq_printf(seq, "Family %d\n", mrc_family);
	seq_printf(seq, "UdpPort %d\n", READ_ONCE(mn->udp_port));
	seq_printf(seq, "UdpBound %d\n", !!READ_ONCE(mn->udp_sock));
	/* All namespaces: the accounting is per protocol (net.mrc.mem). */
	seq_printf(seq, "MemPages %ld\n", mrc_mem_pages());
	seq_printf(seq, "Sockets %d\n", atomic_read(&mn->nsocks));
	spin_lock_bh(&mn->bind_lock);
	seq_printf(seq, "Bound %u\n", mn->nbound);
	spin_unlock_bh(&mn->bind_lock);
	spin_lock_bh(&mn->conn_lock);
	seq_printf(seq, "Connections %u\n", mn->nconns);
	seq_printf(seq, "Orphans %d\n", atomic_read(&mn->orphans));
	spin_unlock_bh(&mn->conn_lock);
	sum = kmalloc_array(__MRC_CNT_MAX, sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	mrc_net_fold(mn, sum);
	for (i = 0; i < __MRC_CNT_MAX; i++)
		seq_printf(seq, "%s %llu\n", mrc_counter_names[i], sum[i]);
	kfree(sum);
	return 0;
}

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	spin_lock_init(&mn->bind_lock);
	hash_init(mn->bind_hash);
	atomic_set(&mn->nsocks, 0);
	atomic_set(&mn->orphans, 0);
	mn->next_port = MRC_PORT_EPHEMERAL_MIN;
	mutex_init(&mn->udp_mutex);
	mn->udp_sock = NULL;
	spin_lock_init(&mn->conn_lock);
	hash_init(mn->qpn_hash);
	hash_init(mn->peer_hash);
	mn->nconns = 0;
	mrc_hs_guard_init(&mn->hs_guard);
	mrc_ev_probes_init(&mn->ev_probes);

	mn->mib = alloc_percpu(struct mrc_net_mib);
	if (!mn->mib)
		return -ENOMEM;
	if (mrc_sysctl_init(net, mn))
		goto err_mib;
	if (!proc_create_net_single("mrc", 0444, net->proc_net, mrc_proc_show, NULL))
		goto err_sysctl;
	/* Not fatal: retried on the first connect()/listen() of the namespace. */
	if (mrc_udp_eager)
		mrc_udp_get(net);
	return 0;

err_sysctl:
	mrc_sysctl_exit(mn);
err_mib:
	free_percpu(mn->mib);
	return -ENOMEM;
}

static void __net_exit mrc_net_exit(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	remove_proc_entry("mrc", net->proc_net);
	mrc_sysctl_exit(mn);
	/* Sockets pin their namespace, so none can be left here. */
	WARN_ON_ONCE(atomic_read(&mn->nsocks));
	mrc_udp_net_exit(mn);
	/* After the socket: nothing counts once its receive path is gone. */
	free_percpu(mn->mib);
}

static struct pernet_operations mrc_net_ops = {
	.init = mrc_net_init,
	.exit = mrc_net_exit,
	.id   = &mrc_net_id,
	.size = sizeof(struct mrc_net),
};

/**
 * mrc_net_init_module() - register the pernet operations
 *
 * Return: 0 or a negative errno from register_pernet_subsys().
 */
int mrc_net_init_module(void)
{
	return register_pernet_subsys(&mrc_net_ops);
}

/**
 * mrc_net_exit_module() - unregister the pernet operations
 */
void mrc_net_exit_module(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
}
