// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_main.c - module entry points of mrc.ko, the Linux implementation of
 * MRC (Multipath Reliable Connection).
 *
 * Init order: the configuration store's pernet state first (the receive path
 * of a namespace's UDP socket reads it), then the pernet state of mrc_net
 * (which opens that UDP socket), then the consumers of the configuration
 * notifier chain (connections: they walk mrc_net's pernet state; netlink
 * events), then what raises configuration events: the netdevice notifier,
 * then the generic netlink family (its handlers); then the socket family.
 * So every consumer is registered before an event can be raised, and, exit
 * undoing it all in reverse, unregistered only once nothing can raise one
 * any more. Exit and every init error path undo exactly what was done, in
 * reverse.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/net.h>
#include <net/genetlink.h>

#include "mrc_impl.h"
#include "mrc_cfg.h"
#include "mrc_icrc.h"
#include "mrc_mem.h"
#include "mrc_net.h"
#include "mrc_nl.h"
#include "mrc_path.h"
#include "mrc_pmtu.h"
#include "mrc_sock.h"
#include "mrc_steer.h"

/* Release of the module (modinfo), bumped with every tagged release. */
#define MRC_MODULE_VERSION	"0.3"

/*
 * The address family number. 12 (AF_DECnet) is free in Linux 6.1; the value
 * in use is readable at /sys/module/mrc/parameters/family.
 */
int mrc_family = AF_MRC_DEFAULT;

static int mrc_family_set(const char *val, const struct kernel_param *kp)
{
	int fam, err;

	err = kstrtoint(val, 0, &fam);
	if (err)
		return err;
	/* 0 is AF_UNSPEC and cannot carry a protocol. */
	if (fam <= AF_UNSPEC || fam >= NPROTO) {
		pr_err("family=%d out of range 1..%d\n", fam, NPROTO - 1);
		return -EINVAL;
	}
	*(int *)kp->arg = fam;
	return 0;
}

static const struct kernel_param_ops mrc_family_param_ops = {
	.set = mrc_family_set,
	.get = param_get_int,
};

module_param_cb(family, &mrc_family_param_ops, &mrc_family, 0444);
MODULE_PARM_DESC(family, "address family number of AF_MRC (default 12, free in Linux 6.1)");

/*
 * The UDP port is bound on the first connect()/listen() of a namespace, so
 * that a namespace without MRC sockets leaves it to others (rdma_rxe binds
 * 4791 in the initial namespace). udp_eager=1 binds it in every namespace
 * as it is created, so that each answers connect requests (with a reject
 * when nobody listens) before any socket exists.
 */
bool mrc_udp_eager;
module_param_named(udp_eager, mrc_udp_eager, bool, 0444);
MODULE_PARM_DESC(udp_eager, "bind the UDP port in every namespace when it is created (default: on first connect/listen)");

/*
 * The module's own work items (a child's set-up, an idle child's abort, an
 * orphan's teardown) run here, not on the system workqueue: unloading
 * destroys it, which waits for every one still queued or running, so none
 * is left executing module text after the module is gone.
 */
struct workqueue_struct *mrc_wq;

static int __init mrc_init(void)
{
	int err;

	mrc_icrc_init_module();
	mrc_wq = alloc_workqueue("mrc", 0, 0);
	if (!mrc_wq) {
		err = -ENOMEM;
		goto fail_icrc;
	}
	err = mrc_steer_init_module();
	if (err)
		goto fail;
	err = mrc_cfg_init_module();
	if (err)
		goto fail_steer;
	err = mrc_net_init_module();
	if (err)
		goto fail_cfg;
	err = mrc_mem_init_module();
	if (err)
		goto fail_net;
	err = mrc_path_init_module();
	if (err)
		goto fail_mem;
	err = mrc_nl_cfg_init_module();
	if (err)
		goto fail_path;
	err = mrc_cfg_notifier_init();
	if (err)
		goto fail_nl_cfg;
	err = mrc_nl_init_module();
	if (err)
		goto fail_notifier;
	err = mrc_pmtu_init_module();
	if (err)
		goto fail_nl;
	err = mrc_sock_init_module();
	if (err)
		goto fail_pmtu;

	pr_info("AF_MRC registered as address family %d\n", mrc_family);
	return 0;

fail_pmtu:
	mrc_pmtu_exit_module();
fail_nl:
	mrc_nl_exit_module();
fail_notifier:
	mrc_cfg_notifier_exit();
fail_nl_cfg:
	mrc_nl_cfg_exit_module();
fail_path:
	mrc_path_exit_module();
fail_mem:
	mrc_mem_exit_module();
fail_net:
	mrc_net_exit_module();
fail_cfg:
	mrc_cfg_exit_module();
fail_steer:
	mrc_steer_exit_module();
fail:
	destroy_workqueue(mrc_wq);
fail_icrc:
	mrc_icrc_exit_module();
	pr_err("load failed: %d\n", err);
	return err;
}

static void __exit mrc_exit(void)
{
	mrc_sock_exit_module();
	mrc_pmtu_exit_module();
	mrc_nl_exit_module();
	mrc_cfg_notifier_exit();
	mrc_nl_cfg_exit_module();
	mrc_path_exit_module();
	mrc_mem_exit_module();
	mrc_net_exit_module();
	mrc_cfg_exit_module();
	mrc_steer_exit_module();
	destroy_workqueue(mrc_wq);
	mrc_icrc_exit_module();
	pr_info("AF_MRC (family %d) unregistered\n", mrc_family);
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("MRC: Multipath Reliable Connection transport (AF_MRC)");
MODULE_AUTHOR("The mrc-linux authors");
MODULE_VERSION(MRC_MODULE_VERSION);
/*
 * Autoload: the first socket(AF_MRC) asks for net-pf-<family> and the first
 * lookup of the generic netlink family for genl-family-mrc. Only the default
 * family number can have an alias: with family=N the module must be loaded
 * (or aliased, "alias net-pf-N mrc" in modprobe.d) by hand.
 */
MODULE_ALIAS_NETPROTO(AF_MRC_DEFAULT);
MODULE_ALIAS_GENL_FAMILY(MRC_GENL_NAME);
