// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_sockopt.c - the SOL_MRC options of an AF_MRC socket: setsockopt()
 * and getsockopt() of MRC_EV_SET_SIZE, MRC_PLANE_MASK and MRC_PROFILE, and
 * MRC_INFO (getsockopt only), struct mrc_info filled from the socket and
 * its engine. mrc_sock.c's proto_ops call them.
 *
 * Every call is serialised by the socket lock; what the call shares with
 * the softirq datapath is under the connection lock (mrc_impl.h):
 *
 *  - mrc_sock.opts: written by setsockopt() under the socket lock and the
 *    connection lock (a listener's children copy its options in the
 *    receive softirq, under the listener's connection lock), read by
 *    getsockopt() under the socket lock.
 *
 *  - MRC_INFO: filled under the socket lock and the connection lock (the
 *    state, the engine mrc_sock.conn and its statistics are the
 *    connection lock's, and so are the memory figures of
 *    mrc_mem_get_stats(): every charge is made under it), so the fill
 *    does not sleep (GFP_ATOMIC); the per-plane transmit counts are
 *    atomic64_t, read without a lock.
 *
 * The contract (errno of every case) is Documentation/networking/mrc-socket.rst.
 */
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/sockptr.h>
#include <linux/uaccess.h>
#include <net/sock.h>

#include "mrc_impl.h"
#include "mrc_mem.h"
#include "mrc_path.h"
#include "mrc_profile.h"
#include "mrc_sock.h"
#include "mrc_sockopt.h"

/**
 * mrc_sockopt_set() - setsockopt() of an AF_MRC socket (proto_ops)
 * @sock: the socket
 * @level: SOL_MRC, else -ENOPROTOOPT
 * @optname: MRC_EV_SET_SIZE, MRC_PLANE_MASK or MRC_PROFILE (MRC_INFO is
 *	read-only: -EPERM)
 * @optval: the value (a u32, or struct mrc_profile_opt)
 * @optlen: its length
 *
 * Options are set before connect() or on a listener (its children inherit
 * them): -EISCONN in any other state.
 *
 * Return: 0 or a negative errno (Documentation/networking/mrc-socket.rst).
 */
int mrc_sockopt_set(struct socket *sock, int level, int optname,
		    sockptr_t optval, unsigned int optlen)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_profile_opt prof;
	u32 val;
	int err = 0;
	u8 state;

	if (level != SOL_MRC)
		return -ENOPROTOOPT;
	switch (optname) {
	case MRC_EV_SET_SIZE:
	case MRC_PLANE_MASK:
		if (optlen < sizeof(val))
			return -EINVAL;
		if (copy_from_sockptr(&val, optval, sizeof(val)))
			return -EFAULT;
		break;
	case MRC_PROFILE:
		if (optlen < sizeof(prof))
			return -EINVAL;
		if (copy_from_sockptr(&prof, optval, sizeof(prof)))
			return -EFAULT;
		if (prof.reserved || prof.cc_profile > MRC_PROFILE_ID_MAX ||
		    prof.ev_profile > MRC_PROFILE_ID_MAX)
			return -EINVAL;
		break;
	case MRC_INFO:
		return -EPERM;
	default:
		return -ENOPROTOOPT;
	}
	lock_sock(sk);
	state = READ_ONCE(ms->state);
	if (state != MRC_ST_CLOSED && state != MRC_ST_LISTEN) {
		err = -EISCONN;
		goto out;
	}
	if (optname == MRC_EV_SET_SIZE && val &&
	    (val < MRC_EV_COUNT_MIN || val > MRC_EV_COUNT_MAX)) {
		err = -EINVAL;
		goto out;
	}
	if (optname == MRC_PROFILE &&
	    (!mrc_profile_exists(sock_net(sk), prof.cc_profile) ||
	     !mrc_profile_exists(sock_net(sk), prof.ev_profile))) {
		err = -ENOENT;
		goto out;
	}
	/* A listener's children copy its options in the receive softirq. */
	spin_lock_bh(&ms->lock);
	switch (optname) {
	case MRC_EV_SET_SIZE:
		ms->opts.ev_count = val;
		break;
	case MRC_PLANE_MASK:
		ms->opts.plane_mask = val;
		break;
	case MRC_PROFILE:
		ms->opts.cc_profile = prof.cc_profile;
		ms->opts.ev_profile = prof.ev_profile;
		break;
	}
	spin_unlock_bh(&ms->lock);
out:
	release_sock(sk);
	return err;
}

/* Socket lock and connection lock held. */
static void mrc_fill_info(struct mrc_sock *ms, struct mrc_info *mi)
{
	struct mrc_conn_stats *st;
	struct mrc_plane_info pi;
	struct mrc_mem_stats mem;
	struct mrc_ev_info ei;
	u32 i, n;

	mi->mi_size = sizeof(*mi);
	mi->mi_state = ms->state;
	mi->mi_qpn = ms->qpn;
	mi->mi_peer_qpn = ms->peer_qpn;
	mi->mi_mtu = READ_ONCE(ms->mtu);
	for (i = 0; i < MRC_INFO_PLANES; i++) {
		mi->mi_planes[i].tx_pkts = atomic64_read(&ms->plane_pkts[i]);
		mi->mi_planes[i].tx_bytes = atomic64_read(&ms->plane_bytes[i]);
	}
	/* In every state: the buffer sizes apply before connect() too. */
	mrc_mem_get_stats(ms, &mem);
	mi->mi_rmem_alloc = mem.rmem_alloc;
	mi->mi_rmem_unread = mem.rmem_unread;
	mi->mi_wmem_queued = mem.wmem_queued;
	mi->mi_wmem_kept = mem.wmem_kept;
	mi->mi_mem_charged = mem.charged;
	mi->mi_fwd_alloc = mem.fwd_alloc;
	mi->mi_wmem_alloc = mem.wmem_alloc;
	mi->mi_rcvbuf = mem.rcvbuf;
	mi->mi_sndbuf = mem.sndbuf;
	if (!ms->conn)
		return;
	mi->mi_cc_algo = ms->cc_algo;
	if (ms->mp) {
		for (i = 0; i < ms->mp->nplanes; i++)
			mi->mi_plane_ids |= BIT(ms->mp->plane[i].id);
	}
	st = kzalloc(sizeof(*st), GFP_ATOMIC);
	if (st) {
		mrc_conn_get_stats(ms->conn, st);
		mi->mi_cwnd = st->cwnd_bytes;
		mi->mi_srtt_ns = st->srtt_ns;
		mi->mi_min_rtt_ns = st->min_rtt_ns;
		mi->mi_rttvar_ns = st->rttvar_ns;
		mi->mi_retransmits = st->tx_rtx_pkts;
		mi->mi_timeouts = st->timeouts;
		mi->mi_tx_msgs = st->tx_msgs_completed;
		mi->mi_rx_msgs = st->rx_msgs_delivered;
		mi->mi_tx_pkts = st->tx_data_pkts;
		mi->mi_tx_bytes = st->tx_data_bytes;
		mi->mi_rx_pkts = st->rx_data_pkts;
		mi->mi_rx_bytes = st->rx_data_bytes;
		mi->mi_rx_dup = st->rx_dup_pkts;
		mi->mi_rx_oow = st->rx_oor_pkts;
		mi->mi_retry_left = st->retry_left;
		mi->mi_snd_una = st->snd_una;
		mi->mi_snd_nxt = st->snd_nxt;
		mi->mi_rcv_cack = st->rcv_cack;
		mi->mi_spurious_timeouts = st->spurious_timeouts;
		mi->mi_rto_ns = st->rto_ns;
		mi->mi_lost_inferred = st->lost_inferred;
		mi->mi_spurious_losses = st->spurious_losses;
		mi->mi_tlp_probes = st->tx_rtx_tlp;
		mi->mi_iw_share_cuts = st->iw_share_cuts;
		mi->mi_tx_sacks = st->tx_sacks;
		mi->mi_tx_sacks_merged = st->tx_sacks_merged;
		mi->mi_rx_sacks = st->rx_sacks;
		mi->mi_rtx_path = st->tx_rtx_path;
		mi->mi_paths_retired = st->paths_retired;
		mi->mi_paths_gray = st->paths_gray;
		mi->mi_cwnd_cuts_spared = st->cwnd_cuts_spared;
		mi->mi_local_drops = st->tx_local_drops;
		mi->mi_rtx_local = st->tx_rtx_local;
		kfree(st);
	}
	n = mrc_conn_num_evs(ms->conn);
	for (i = 0; i < n; i++) {
		if (mrc_conn_get_ev(ms->conn, i, &ei))
			continue;
		switch (ei.state) {
		case MRC_EV_GOOD:
			mi->mi_ev_good++;
			break;
		case MRC_EV_SKIP:
			mi->mi_ev_skip++;
			break;
		case MRC_EV_ASSUMED_BAD:
			mi->mi_ev_bad++;
			break;
		default:
			mi->mi_ev_denied++;
			break;
		}
	}
	for (i = 0; i < MRC_INFO_PLANES; i++) {
		if (mrc_conn_get_plane(ms->conn, i, &pi))
			break;
		mi->mi_n_planes = i + 1;
		mi->mi_planes[i].evs = pi.n_ev;
		mi->mi_planes[i].evs_active = pi.n_active;
		mi->mi_planes[i].evs_good = pi.n_good;
		mi->mi_planes[i].evs_bad = pi.n_bad;
	}
}

/**
 * mrc_sockopt_get() - getsockopt() of an AF_MRC socket (proto_ops)
 * @sock: the socket
 * @level: SOL_MRC, else -ENOPROTOOPT
 * @optname: MRC_EV_SET_SIZE, MRC_PLANE_MASK, MRC_PROFILE or MRC_INFO
 * @optval: the user's buffer
 * @optlen: in: its length (at least a u32); out: the bytes written
 *	(MRC_INFO: as much of struct mrc_info as fits)
 *
 * Return: 0 or a negative errno (Documentation/networking/mrc-socket.rst).
 */
int mrc_sockopt_get(struct socket *sock, int level, int optname,
		    char __user *optval, int __user *optlen)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_profile_opt prof;
	struct mrc_info *mi = NULL;
	const void *src;
	int len, err = 0;
	u32 val;

	if (level != SOL_MRC)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(u32))
		return -EINVAL;
	switch (optname) {
	case MRC_EV_SET_SIZE:
	case MRC_PLANE_MASK:
		lock_sock(sk);
		val = optname == MRC_EV_SET_SIZE ? ms->opts.ev_count :
						    ms->opts.plane_mask;
		release_sock(sk);
		src = &val;
		len = sizeof(val);
		break;
	case MRC_PROFILE:
		if (len < (int)sizeof(prof))
			return -EINVAL;
		memset(&prof, 0, sizeof(prof));
		lock_sock(sk);
		prof.cc_profile = ms->opts.cc_profile;
		prof.ev_profile = ms->opts.ev_profile;
		release_sock(sk);
		src = &prof;
		len = sizeof(prof);
		break;
	case MRC_INFO:
		mi = kzalloc(sizeof(*mi), GFP_KERNEL);
		if (!mi)
			return -ENOMEM;
		lock_sock(sk);
		spin_lock_bh(&ms->lock);
		mrc_fill_info(ms, mi);
		spin_unlock_bh(&ms->lock);
		release_sock(sk);
		src = mi;
		len = min_t(int, len, sizeof(*mi));
		break;
	default:
		return -ENOPROTOOPT;
	}
	/* The length is written back only once the value was. */
	if (copy_to_user(optval, src, len) || put_user(len, optlen))
		err = -EFAULT;
	kfree(mi);
	return err;
}
