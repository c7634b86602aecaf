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
 * Buffer sizes follow TCP's: a socket starts at net.mrc.rmem[1] and
 * net.mrc.wmem[1] (within the host's rmem_max and wmem_max), and grows up
 * to [2] when the buffer, not the application, is what limits it, unless
 * the application set SO_RCVBUF or SO_SNDBUF itself (mrc_rcvbuf_grow(),
 * mrc_sndbuf_grow()).
 *
 * A sent message's pages come from the page allocator, which zeroes them
 * (init_on_alloc, on in Debian's kernels) just before sendmsg() overwrites
 * them: a pass over every byte sent, 4.5 % of all samples of the unshaped
 * bulk profile (Documentation/networking/mrc-bench.rst). A socket
 * therefore keeps the pages of its completed messages, up to
 * MRC_TX_PAGE_CACHE, for its next ones: they stay charged to it while
 * kept, hold only its own earlier payloads, and are given back when a
 * message completes under memory pressure (the protocol above
 * net.mrc.mem[0], or the memory cgroup's socket pressure), at teardown and
 * when the socket is freed. A page a flowcell was sent from (the message's
 * wire layout, mrc_build_burst()) may still be in an skb, held by a
 * receiver until its reader copies it out: it is kept all the same and
 * handed to a new message only once that skb is gone
 * (mrc_mb_pages_in()), so a byte in flight is never overwritten.
 *
 * The page frags a flowcell is laid out in (mrc_build_burst()) cost the
 * same zeroing, 5.7 % of all samples once flowcells were 32 packets. They
 * come from a ring of MRC_TX_FRAGS pages per socket instead, as TCP's
 * page frag does (skb_page_frag_refill()): a slot's page is filled again
 * once every skb it went into is gone (page_ref_count() back to the
 * ring's own reference), and replaced by a fresh one while still in use
 * (its skbs keep the old one alive and free it). A frag covers only bytes
 * the burst writes, so an old payload of the socket is never exposed. The
 * ring's pages are charged to the socket like the kept pages, and given
 * back under memory pressure, at teardown and when the socket is freed.
 *
 * Locking: every charge and uncharge of a socket is made under its
 * connection lock (mrc_sock.lock), which serialises sk_forward_alloc
 * between process context and the receive and timer softirqs; the global
 * counters are the core's (atomic and per-CPU). The same lock makes what
 * a socket pins one snapshot for MRC_INFO and the connection dump
 * (mrc_mem_get_stats()): the bytes charged (mrc_sock.mem_charged, which
 * every charge and uncharge keeps) plus sk_forward_alloc are the pages the
 * socket holds in the protocol's count, and summed over the sockets they
 * are that count (MemPages), per-CPU reserves included.
 */
#include <linux/cgroup.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "mrc_impl.h"
#include "mrc_mem.h"
#include "mrc_msg.h"
#include "mrc_net.h"
#include "mrc_sock.h"

/* Pages charged by every AF_MRC socket: global and per-CPU reserve. */
static atomic_long_t mrc_memory_allocated;
static DEFINE_PER_CPU(int, mrc_memory_per_cpu_fw_alloc);

/*
 * net.mrc.mem, pages: below [0] no pressure, above [2] nothing more is
 * charged. Sized as udp_mem is (an eighth of the free buffer pages).
 */
static long mrc_sysctl_mem[3];
/*
 * net.mrc.rmem and net.mrc.wmem, bytes: [0] what a socket may always
 * charge, even under pressure; [1] a new socket's buffer (as tcp_rmem[1],
 * below the default rmem_max and wmem_max of 212992); [2] how far it grows
 * by itself.
 */
static int mrc_sysctl_rmem[3] = { 64 << 10, 128 << 10, 8 << 20 };
static int mrc_sysctl_wmem[3] = { 64 << 10, 128 << 10, 4 << 20 };
static int mrc_buf_min = SOCK_MIN_RCVBUF;
static int mrc_buf_max = INT_MAX / 2;

/* A reader that took a message this recently is still reading. */
#define MRC_RX_READER_NS	(200 * NSEC_PER_MSEC)

static struct ctl_table mrc_mem_table[] = {
	{
		.procname	= "mem",
		.data		= &mrc_sysctl_mem,
		.maxlen		= sizeof(mrc_sysctl_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "rmem",
		.data		= &mrc_sysctl_rmem,
		.maxlen		= sizeof(mrc_sysctl_rmem),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mrc_buf_min,
		.extra2		= &mrc_buf_max,
	},
	{
		.procname	= "wmem",
		.data		= &mrc_sysctl_wmem,
		.maxlen		= sizeof(mrc_sysctl_wmem),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mrc_buf_min,
		.extra2		= &mrc_buf_max,
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
 * @bytes: the message's charge (mrc_mb_size() sent, mrc_mb_truesize()
 *	received)
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
	ms->mem_charged += bytes;
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
	ms->mem_charged -= bytes;
	sk_mem_uncharge(&ms->sk, bytes);
}

/**
 * mrc_mem_get_stats() - what a socket pins now (MRC_INFO, the connection
 * dump)
 * @ms: the socket; connection lock held, which every figure but
 *	sk_wmem_alloc (atomic) and the buffer sizes (READ_ONCE()) is written
 *	under: one consistent snapshot, in which @m->charged + @m->fwd_alloc
 *	is a whole number of pages
 * @m: filled
 */
void mrc_mem_get_stats(struct mrc_sock *ms, struct mrc_mem_stats *m)
{
	struct sock *sk = &ms->sk;
	u32 i, frags = 0;

	lockdep_assert_held(&ms->lock);
	for (i = 0; i < MRC_TX_FRAGS; i++)
		frags += !!ms->tx_frags[i];
	m->rmem_alloc = ms->rx_queued + ms->rx_inprog;
	m->rmem_unread = ms->rx_queued;
	m->wmem_queued = READ_ONCE(sk->sk_wmem_queued);
	m->wmem_kept = (u64)(ms->tx_page_cached + frags) * PAGE_SIZE;
	m->charged = ms->mem_charged;
	m->fwd_alloc = max(READ_ONCE(sk->sk_forward_alloc), 0);
	m->wmem_alloc = max(sk_wmem_alloc_get(sk), 0);
	m->rcvbuf = READ_ONCE(sk->sk_rcvbuf);
	m->sndbuf = READ_ONCE(sk->sk_sndbuf);
}

/**
 * mrc_mem_buf_defaults() - a new socket's buffers: net.mrc.rmem[1] and
 * net.mrc.wmem[1]
 * @sk: the socket
 */
void mrc_mem_buf_defaults(struct sock *sk)
{
	WRITE_ONCE(sk->sk_rcvbuf, READ_ONCE(mrc_sysctl_rmem[1]));
	WRITE_ONCE(sk->sk_sndbuf, READ_ONCE(mrc_sysctl_wmem[1]));
}

/**
 * mrc_rcvbuf_grow() - SO_RCVBUF refused a new message: grow it instead?
 * @ms: the socket; connection lock held
 * @need: bytes the buffer must hold with the message (queued, in
 *	progress and its charge)
 *
 * As TCP's receive autotuning: only when the application did not set
 * SO_RCVBUF, up to net.mrc.rmem[2], and only while the application reads:
 * the messages it has not read yet weigh no more than those still
 * arriving, or it took one within MRC_RX_READER_NS (a reader the
 * scheduler kept away for a moment is still a reader; under an emulated
 * CPU that is milliseconds). Then the window of messages in progress, not
 * a reader that stopped, filled the buffer, and refusing would only cost
 * the sender a receiver-not-ready back-off. A reader that sleeps longer
 * gets the refusal. The buffer at least doubles, so a connection reaches
 * its size in a few steps.
 *
 * Return: true if the buffer now holds @need.
 */
bool mrc_rcvbuf_grow(struct mrc_sock *ms, u64 need)
{
	struct sock *sk = &ms->sk;
	u64 lim = READ_ONCE(mrc_sysctl_rmem[2]);
	u64 cur = READ_ONCE(sk->sk_rcvbuf);

	lockdep_assert_held(&ms->lock);
	if ((sk->sk_userlocks & SOCK_RCVBUF_LOCK) || need > lim)
		return false;
	if (ms->rx_queued > ms->rx_inprog &&
	    mrc_now() - ms->rx_read_ns > MRC_RX_READER_NS)
		return false;
	WRITE_ONCE(sk->sk_rcvbuf, (int)min(max(cur * 2, need), lim));
	mrc_net_count(mrc_net(sock_net(sk)), MRC_CNT_RCVBUF_GROWN);
	return true;
}

/**
 * mrc_sndbuf_grow() - SO_SNDBUF is full: grow it to what the connection
 * can have in flight?
 * @ms: the socket; connection lock held, engine present
 * @charge: the charge of the message waiting to be queued
 *
 * As TCP's tcp_sndbuf_expand(): twice the congestion window, so that a
 * window's worth is queued behind the one in flight; and twice the
 * message, so that one is queued while the previous one is in flight (a
 * message larger than the buffer otherwise goes alone, the pipe idle
 * between two). At most net.mrc.wmem[2], only when the application did
 * not set SO_SNDBUF. Asked by sendmsg() when the buffer is full, and as
 * each message completes while the sender is below its window (an
 * application that polls for room never calls sendmsg() on a full buffer:
 * TCP's tcp_new_space() grows it there too).
 *
 * Return: true if the buffer grew.
 */
bool mrc_sndbuf_grow(struct mrc_sock *ms, u32 charge)
{
	struct sock *sk = &ms->sk;
	u64 lim = READ_ONCE(mrc_sysctl_wmem[2]);
	u64 cur = READ_ONCE(sk->sk_sndbuf);
	u32 cwnd;
	u64 want;

	lockdep_assert_held(&ms->lock);
	if ((sk->sk_userlocks & SOCK_SNDBUF_LOCK) || cur >= lim || !ms->conn)
		return false;
	mrc_conn_app_limited(ms->conn, &cwnd);
	want = min_t(u64, 2ull * max(cwnd, charge), lim);
	if (want <= cur)
		return false;
	WRITE_ONCE(sk->sk_sndbuf, (int)want);
	mrc_net_count(mrc_net(sock_net(sk)), MRC_CNT_SNDBUF_GROWN);
	return true;
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

/*
 * Whether a socket should give memory back rather than keep it: the
 * protocol above net.mrc.mem[0] (its no-pressure zone), or the socket's
 * memory cgroup under socket pressure. sk_under_memory_pressure() is no
 * use here: it needs a protocol pressure flag, which MRC (as UDP) has not.
 */
static bool mrc_mem_under_pressure(const struct sock *sk)
{
	if (mem_cgroup_sockets_enabled && sk->sk_memcg &&
	    mem_cgroup_under_socket_pressure(sk->sk_memcg))
		return true;
	/* The core's count, as sk_memory_allocated() (net/proto_memory.h in 6.12) */
	return atomic_long_read(&mrc_memory_allocated) > READ_ONCE(mrc_sysctl_mem[0]);
}

/*
 * Pages a socket keeps: a few messages' worth (64 KiB messages take 16),
 * enough for sendmsg() to find them after a SACK completes a batch.
 */
#define MRC_TX_PAGE_CACHE	32

/**
 * mrc_mem_tx_pages_keep() - a message completed: give back its charge but
 * for the pages the socket keeps for its next messages
 * @ms: the socket; connection lock held
 * @mb: the message, still charged (mb->mem); mrc_mb_free() it after
 */
void mrc_mem_tx_pages_keep(struct mrc_sock *ms, struct mrc_msgbuf *mb)
{
	u32 kept = 0;

	lockdep_assert_held(&ms->lock);
	if (mrc_mem_under_pressure(&ms->sk)) {
		mrc_mem_tx_pages_drain(ms);
		mrc_mem_tx_frags_drain(ms);
	} else if (ms->tx_page_cached < MRC_TX_PAGE_CACHE)
		kept = mrc_mb_pages_out(mb, &ms->tx_page_cache,
					MRC_TX_PAGE_CACHE - ms->tx_page_cached);
	WRITE_ONCE(ms->tx_page_cached, ms->tx_page_cached + kept);
	mrc_mem_uncharge(ms, mb->mem - kept * PAGE_SIZE);
}

/**
 * mrc_mem_tx_pages_reuse() - give a message about to be filled the pages
 * the socket kept
 * @ms: the socket (process context, connection lock not held)
 * @mb: the message (mrc_mb_alloc_tx())
 *
 * The pages taken are uncharged until the message is charged whole, as
 * fresh ones would be.
 */
void mrc_mem_tx_pages_reuse(struct mrc_sock *ms, struct mrc_msgbuf *mb)
{
	u32 n;

	if (!READ_ONCE(ms->tx_page_cached))
		return;
	spin_lock_bh(&ms->lock);
	n = mrc_mb_pages_in(mb, &ms->tx_page_cache, ms->tx_page_cached);
	WRITE_ONCE(ms->tx_page_cached, ms->tx_page_cached - n);
	mrc_mem_uncharge(ms, n * PAGE_SIZE);
	spin_unlock_bh(&ms->lock);
	if (n)
		mrc_net_add(mrc_net(sock_net(&ms->sk)),
			    MRC_CNT_TX_PAGES_REUSED, n);
}

/**
 * mrc_mem_tx_frag() - a page for a flowcell's frags
 * @ms: the socket; connection lock held
 * @reused: set if the page was filled before (no zeroing), else left
 *
 * Return: a page holding a reference for the caller's skb, or NULL.
 */
struct page *mrc_mem_tx_frag(struct mrc_sock *ms, bool *reused)
{
	struct page **slot = &ms->tx_frags[ms->tx_frag_next];
	struct page *pg = *slot;

	lockdep_assert_held(&ms->lock);
	ms->tx_frag_next = (ms->tx_frag_next + 1) % MRC_TX_FRAGS;
	if (pg && page_ref_count(pg) == 1) {
		get_page(pg);
		*reused = true;
		return pg;
	}
	if (pg) {
		/* Still in an skb, which frees it. */
		put_page(pg);
		*slot = NULL;
		mrc_mem_uncharge(ms, PAGE_SIZE);
	}
	pg = alloc_page(GFP_ATOMIC | __GFP_NOWARN);
	if (!pg || mrc_mem_under_pressure(&ms->sk) ||
	    !mrc_mem_charge(ms, PAGE_SIZE, SK_MEM_SEND))
		return pg;	/* not kept: the skb's is its only reference */
	get_page(pg);
	*slot = pg;
	return pg;
}

/**
 * mrc_mem_tx_frags_drain() - let go of a socket's frag ring, and its charge
 * @ms: the socket; connection lock held
 *
 * A page still in an skb is freed with it.
 */
void mrc_mem_tx_frags_drain(struct mrc_sock *ms)
{
	u32 i;

	lockdep_assert_held(&ms->lock);
	for (i = 0; i < MRC_TX_FRAGS; i++) {
		if (!ms->tx_frags[i])
			continue;
		put_page(ms->tx_frags[i]);
		ms->tx_frags[i] = NULL;
		mrc_mem_uncharge(ms, PAGE_SIZE);
	}
}

/**
 * mrc_mem_tx_pages_drain() - free the pages a socket kept, and their charge
 * @ms: the socket; connection lock held
 */
void mrc_mem_tx_pages_drain(struct mrc_sock *ms)
{
	struct page *pg, *tmp;

	lockdep_assert_held(&ms->lock);
	list_for_each_entry_safe(pg, tmp, &ms->tx_page_cache, lru) {
		list_del(&pg->lru);
		__free_page(pg);
	}
	mrc_mem_uncharge(ms, ms->tx_page_cached * PAGE_SIZE);
	WRITE_ONCE(ms->tx_page_cached, 0);
}
