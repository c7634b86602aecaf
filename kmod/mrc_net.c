// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_net.c - per network namespace state of mrc.ko and /proc/net/mrc.
 *
 * Every object of the module hangs off struct mrc_net so that two namespaces
 * never see each other's sockets, service ids or counters.
 */
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "mrc_impl.h"

static unsigned int mrc_net_id __read_mostly;

static const char * const mrc_counter_names[__MRC_CNT_MAX] = {
	[MRC_CNT_SOCK_CREATED]	= "SocketsCreated",
	[MRC_CNT_SOCK_RELEASED]	= "SocketsReleased",
	[MRC_CNT_BIND_OK]	= "BindOk",
	[MRC_CNT_BAD_ADDR]	= "BindBadAddress",
	[MRC_CNT_ADDR_NOTAVAIL]	= "BindAddrNotAvail",
	[MRC_CNT_ADDR_INUSE]	= "BindAddrInUse",
	[MRC_CNT_BAD_SOCKET]	= "SocketBadTypeOrProtocol",
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
 * mrc_net_count() - bump one per-namespace counter
 * @mn: the namespace state
 * @c:  which counter
 */
void mrc_net_count(struct mrc_net *mn, enum mrc_net_counter c)
{
	atomic64_inc(&mn->counters[c]);
}

static int mrc_proc_show(struct seq_file *seq, void *v)
{
	struct mrc_net *mn = mrc_net(seq_file_single_net(seq));
	unsigned int i;

	seq_printf(seq, "Family %d\n", mrc_family);
	seq_printf(seq, "Sockets %d\n", atomic_read(&mn->nsocks));
	spin_lock_bh(&mn->bind_lock);
	seq_printf(seq, "Bound %u\n", mn->nbound);
	spin_unlock_bh(&mn->bind_lock);
	for (i = 0; i < __MRC_CNT_MAX; i++)
		seq_printf(seq, "%s %lld\n", mrc_counter_names[i],
			   (long long)atomic64_read(&mn->counters[i]));
	return 0;
}

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	spin_lock_init(&mn->bind_lock);
	hash_init(mn->bind_hash);
	atomic_set(&mn->nsocks, 0);
	mn->next_port = MRC_PORT_EPHEMERAL_MIN;

	if (!proc_create_net_single("mrc", 0444, net->proc_net, mrc_proc_show, NULL))
		return -ENOMEM;
	return 0;
}

static void __net_exit mrc_net_exit(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);

	remove_proc_entry("mrc", net->proc_net);
	/* Sockets pin their namespace, so none can be left here. */
	WARN_ON_ONCE(atomic_read(&mn->nsocks));
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
