// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_steer.c - receive flow steering of flowcells to the CPU that reads
 * their socket.
 *
 * Every MRC packet of a namespace arrives on one UDP socket and is
 * processed in the softirq that queued it (mrc_input.c). On a veth or
 * loopback path, and on any NIC queue that one CPU serves, that is one
 * CPU for everything: the ICRC over each payload, placement, the SACK, its
 * way back through the stack and, at the sender, the new data it releases.
 * The reader's CPU only copies messages out. The kernel's own RFS steers
 * a flow to the CPU of its reader (sock_rps_record_flow()), but it cannot
 * see MRC's sockets behind the UDP socket, so the demux does the same:
 * recvmsg() and poll() note the reader's CPU (mrc_steer_note_reader()),
 * and a flowcell of at least net.mrc.rx_steer_min_bytes MRC bytes (bulk:
 * the hand-off costs more than a short datagram's work)
 * received on another CPU goes to a queue of the reader's CPU, processed
 * there by a work item of a high-priority, CPU-bound workqueue, as the
 * softirq would have (BHs off, RCU). Short datagrams (requests, SACKs,
 * pingpong) are not delayed by a hand-off.
 *
 * Locking: each CPU's queue has its own lock (sk_buff_head.lock, BH-safe);
 * a queued skb holds a reference to its socket, which holds its namespace.
 * The queue is bounded in bytes (MRC_STEER_QUEUE_MAX, truesize) like the
 * UDP socket's queue the datagrams came from: past it, and whenever the
 * reader's CPU is this one or offline, the datagram is processed at once.
 * Nothing is dropped here. Counter: RxSteered.
 */
#include <linux/cpumask.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include "mrc_impl.h"
#include "mrc_input.h"
#include "mrc_net.h"
#include "mrc_sock.h"
#include "mrc_steer.h"

/* Bytes (truesize) a CPU's queue may hold: the UDP socket's own bound. */
#define MRC_STEER_QUEUE_MAX	MRC_UDP_RCVBUF

/**
 * struct mrc_steer_cpu - one CPU's steered datagrams
 * @q: datagrams to process on this CPU; skb->cb holds the socket
 * @bytes: truesize of @q (@q.lock)
 * @work: processes @q on this CPU (mrc_steer_wq)
 */
struct mrc_steer_cpu {
	struct sk_buff_head q;
	u32 bytes;
	struct work_struct work;
};

static DEFINE_PER_CPU(struct mrc_steer_cpu, mrc_steer_cpus);
static struct workqueue_struct *mrc_steer_wq;

/* The socket a queued datagram is for (its reference), in skb->cb. */
static struct sock **mrc_steer_skb_sk(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct sock *) > sizeof(skb->cb));
	return (struct sock **)skb->cb;
}

/**
 * mrc_steer_note_reader() - the current CPU reads @ms (recvmsg(), poll())
 * @ms: the socket
 */
void mrc_steer_note_reader(struct mrc_sock *ms)
{
	int cpu = raw_smp_processor_id() + 1;

	if (READ_ONCE(ms->rx_cpu) != cpu)
		WRITE_ONCE(ms->rx_cpu, cpu);
}

/**
 * mrc_steer_rx() - hand a received datagram to its reader's CPU
 * @net: namespace of the UDP socket
 * @ms: the connection the datagram's first packet is for; the caller's
 *      reference, kept by the queued datagram when this returns true
 * @skb: the datagram, its dst dropped
 * @len: its MRC bytes (after the UDP header)
 *
 * Called in the receive softirq, under RCU.
 *
 * Return: true if @skb was queued to another CPU (it and the reference
 * are that CPU's now), false to process it here.
 */
bool mrc_steer_rx(struct net *net, struct mrc_sock *ms, struct sk_buff *skb,
		  u32 len)
{
	int min_bytes = READ_ONCE(mrc_net(net)->rx_steer_min_bytes);
	int cpu = READ_ONCE(ms->rx_cpu) - 1;
	struct mrc_steer_cpu *sc;
	bool queued = false;

	/* A datagram of one packet is never a flowcell, however large. */
	if (!min_bytes || len < min_bytes || cpu < 0 ||
	    cpu == smp_processor_id() || !cpu_online(cpu) ||
	    !skb_is_gso(skb) || len <= skb_shinfo(skb)->gso_size)
		return false;
	sc = per_cpu_ptr(&mrc_steer_cpus, cpu);
	spin_lock(&sc->q.lock);
	if (sc->bytes + skb->truesize <= MRC_STEER_QUEUE_MAX) {
		*mrc_steer_skb_sk(skb) = &ms->sk;
		sc->bytes += skb->truesize;
		__skb_queue_tail(&sc->q, skb);
		queued = true;
	}
	spin_unlock(&sc->q.lock);
	if (!queued)
		return false;
	queue_work_on(cpu, mrc_steer_wq, &sc->work);
	mrc_net_count(mrc_net(net), MRC_CNT_RX_STEERED);
	return true;
}

/*
 * The work item of a CPU: what was queued for it, processed as the
 * softirq would have, BHs off for one datagram at a time so that the
 * packets it sends (SACKs, new data) go through the stack in between.
 */
static void mrc_steer_work(struct work_struct *work)
{
	struct mrc_steer_cpu *sc = container_of(work, struct mrc_steer_cpu,
						work);
	struct sk_buff_head list;
	struct sk_buff *skb;
	struct sock *sk;

	__skb_queue_head_init(&list);
	spin_lock_bh(&sc->q.lock);
	skb_queue_splice_init(&sc->q, &list);
	sc->bytes = 0;
	spin_unlock_bh(&sc->q.lock);
	while ((skb = __skb_dequeue(&list))) {
		sk = *mrc_steer_skb_sk(skb);
		mrc_rx_deferred(sk, skb);
		sock_put(sk);
		cond_resched();
	}
}

/**
 * mrc_steer_init_module() - the per-CPU queues and their workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_steer_init_module(void)
{
	struct mrc_steer_cpu *sc;
	int cpu;

	for_each_possible_cpu(cpu) {
		sc = per_cpu_ptr(&mrc_steer_cpus, cpu);
		skb_queue_head_init(&sc->q);
		INIT_WORK(&sc->work, mrc_steer_work);
	}
	/* Bound to the CPU it is queued on: that is the point. */
	mrc_steer_wq = alloc_workqueue("mrc_rx", WQ_HIGHPRI, 0);
	return mrc_steer_wq ? 0 : -ENOMEM;
}

/**
 * mrc_steer_exit_module() - after every socket is gone: the last work
 * items finish (their sock_put()) before the module's text goes
 */
void mrc_steer_exit_module(void)
{
	destroy_workqueue(mrc_steer_wq);
}
