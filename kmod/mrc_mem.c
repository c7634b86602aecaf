// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_mem.c - memory accounting of AF_MRC sockets.
 *
 * The bytes of messages a connection holds (queued or in flight on send,
 * being received or waiting for recvmsg() on receive) are charged to the
 * socket through the kernel's socket memory accounting, as TCP's and UDP's
 * buffers are: sk_forward_alloc, the protocol's global page count
 * (mrc_memory_allocated, limited by net.mrc.mem) and, when the socket
 * belongs to a memory cgroup, that cgroup's "sock" memory. A charge the
 * limits refuse is a full buffer: sendmsg() waits or fails with ENOBUFS,
 * a new received message is refused (receiver not ready, the sender backs
 * off) exactly as when SO_RCVBUF is full.
 *
 * Locking: every charge and uncharge of a socket is made under its
 * connection lock (mrc_sock.lock), which serialises sk_forward_alloc
 * between process context and the receive and timer softirqs; the global
 * counters are the core's (atomic and per-CPU).
 */
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "mrc_impl.h"

/* Pages charged by every AF_MRC socket: global and per-CPU reserve. */
static atomic_long_t mrc_memory_allocated;
static DEFINE_PER_CPU(int, mrc_memory_per_cpu_fw_alloc);

/*
 * net.mrc.mem, pages: below [0] no pressure, above [2] nothing more is
 * charged. Sized as udp_mem is (an eighth of the free buffer pages).
 */
static long mrc_sysctl_mem[3];
/* The buffer a socket is guaranteed between [1] and [2] (index 0 only). */
static int mrc_sysctl_rmem[3] = { 64 << 10, 256 << 10, 8 << 20 };
static int mrc_sysctl_wmem[3] = { 64 << 10, 256 << 10, 4 << 20 };

static struct ctl_table mrc_mem_table[] = {
	{
		.procname	= "mem",
		.data		= &mrc_sysctl_mem,
		.maxlen		= sizeof(mrc_sysctl_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{ }
};

static struct ctl_table_header *mrc_mem_sysctl;

/**
 * mrc_mem_setup_proto() - the accounting fields of struct proto
 * @prot: mrc_proto, before proto_register()
 */
void mrc_mem_setup_proto(struct proto *prot)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);

	mrc_sysctl_mem[0] = limit / 4 * 3;
	mrc_sysctl_mem[1] = limit;
	mrc_sysctl_mem[2] = mrc_sysctl_mem[0] * 2;
	prot->memory_allocated = &mrc_memory_allocated;
	prot->per_cpu_fw_alloc = &mrc_memory_per_cpu_fw_alloc;
	prot->sysctl_mem = mrc_sysctl_mem;
	prot->sysctl_rmem = mrc_sysctl_rmem;
	prot->sysctl_wmem = mrc_sysctl_wmem;
}

/**
 * mrc_mem_init_module() - register net.mrc.mem (initial namespace only:
 * the accounting is per protocol, as udp_mem's and tcp_mem's in 6.1)
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mem_init_module(void)
{
	mrc_mem_sysctl = mrc_register_net_sysctl(&init_net, "net/mrc", mrc_mem_table,
						 ARRAY_SIZE(mrc_mem_table));
	return mrc_mem_sysctl ? 0 : -ENOMEM;
}

/**
 * mrc_mem_exit_module() - unregister net.mrc.mem
 */
void mrc_mem_exit_module(void)
{
	unregister_net_sysctl_table(mrc_mem_sysctl);
}

/**
 * mrc_mem_pages() - pages charged by all AF_MRC sockets now
 *
 * Return: the global count plus every CPU's reserve (a racy snapshot).
 */
long mrc_mem_pages(void)
{
	long pages = atomic_long_read(&mrc_memory_allocated);
	int cpu;

	for_each_possible_cpu(cpu)
		pages += per_cpu(mrc_memory_per_cpu_fw_alloc, cpu);
	return pages;
}

/**
 * mrc_mem_charge() - charge @bytes of message memory to a socket
 * @ms: the socket; connection lock held
 * @bytes: the message's charge (mrc_mb_truesize())
 * @kind: SK_MEM_SEND or SK_MEM_RECV
 *
 * Return: true if charged, false if the global limit or the socket's
 * memory cgroup refuses.
 */
bool mrc_mem_charge(struct mrc_sock *ms, u32 bytes, int kind)
{
	struct sock *sk = &ms->sk;
	int delta = (int)bytes - sk->sk_forward_alloc;

	lockdep_assert_held(&ms->lock);
	if (delta > 0 && !__sk_mem_schedule(sk, delta, kind))
		return false;
	sk_mem_charge(sk, bytes);
	return true;
}

/**
 * mrc_mem_uncharge() - give back what mrc_mem_charge() took
 * @ms: the socket; connection lock held
 * @bytes: the same charge
 */
void mrc_mem_uncharge(struct mrc_sock *ms, u32 bytes)
{
	lockdep_assert_held(&ms->lock);
	sk_mem_uncharge(&ms->sk, bytes);
}

/**
 * mrc_mem_inherit() - an accepted connection is charged to its listener's
 * memory cgroup
 * @sk: the child, created in softirq (where the core does not set one)
 * @parent: the listener
 *
 * TCP charges an accepted socket to the cgroup of the task that accepts
 * it, through a helper a module cannot call; the listener's owner is the
 * closest a module can name, and it is who asked for the connections.
 */
void mrc_mem_inherit(struct sock *sk, const struct sock *parent)
{
#ifdef CONFIG_MEMCG
	if (!mem_cgroup_sockets_enabled || !parent->sk_memcg || sk->sk_memcg)
		return;
	css_get(&parent->sk_memcg->css);
	sk->sk_memcg = parent->sk_memcg;
#endif
}

/**
 * mrc_mem_release() - the socket is being freed: nothing may stay charged
 * @sk: the socket (no other user left)
 */
void mrc_mem_release(struct sock *sk)
{
	sk_mem_reclaim_final(sk);
	WARN_ON_ONCE(sk->sk_forward_alloc);
}
