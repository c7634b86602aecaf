// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_cc_share.c - one initial window split among a host's starting
 * connections (struct mrc_iw_share).
 *
 * The initial window is the one window no signal has sized: a connection
 * sends it into a fabric it knows nothing about. One connection's worth
 * (1.5 BDP by default) is the right guess for a host that starts one
 * connection; a host that starts 31 at once (an all-to-all) would put 31 of
 * them on the fabric in its first round trip, and every receiver's
 * downlinks trim most of that. So connections that name the same share
 * count themselves in it from their first data packet until their first
 * acknowledgment or timeout ("starting"), and while n are starting none
 * may have more than init_wnd_bytes / n in flight: each new connection
 * takes its share, and the ones already starting are held to the new,
 * smaller share from their next packet on (what they already sent stays
 * in flight). The window is never raised again by the share: once a
 * connection leaves the start, its algorithm alone moves the window, from
 * the acknowledgments of what the share let it send.
 *
 * The count is the only state shared between connections, each of which
 * runs under its own lock: it is atomic, read without ordering (a share
 * computed from a count a moment old is as good a guess as any).
 */
#include "mrc_cc.h"

/**
 * mrc_cc_share_on_tx() - a new data packet is about to be sent: count the
 * connection in if this is its first, and hold the window to its share.
 * @cc: state
 */
void mrc_cc_share_on_tx(struct mrc_cc *cc)
{
	u32 share;
	int n;

	if (cc->share_state == MRC_CC_SHARE_DONE)
		return;
	if (cc->share_state == MRC_CC_SHARE_IDLE) {
		n = mrc_plat_atomic_inc_return(&cc->share->starting);
		cc->share_state = MRC_CC_SHARE_STARTING;
	} else {
		n = mrc_plat_atomic_read(&cc->share->starting);
	}
	if (n <= 1)
		return;
	share = cc->p.init_wnd_bytes / (u32)n;
	if (share < cc->p.min_wnd_bytes)
		share = cc->p.min_wnd_bytes;
	if (cc->cwnd > share) {
		cc->cwnd = share;
		cc->cnt.share_cuts++;
	}
}

/**
 * mrc_cc_share_leave() - the first window is over (acknowledged, timed out,
 * or the connection is going away): stop counting in the share.
 * @cc: state
 */
void mrc_cc_share_leave(struct mrc_cc *cc)
{
	if (cc->share_state == MRC_CC_SHARE_STARTING)
		mrc_plat_atomic_dec(&cc->share->starting);
	cc->share_state = MRC_CC_SHARE_DONE;
}
