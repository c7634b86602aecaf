// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_tx_skb.c - the skbs of the transmit side: one MRC packet in a linear
 * skb, a flowcell in one UDP GSO skb of page frags.
 *
 * Everything here runs under the connection lock and only lays bytes out:
 * the MRC headers (mrc_pkt_encode_hdr()), the payload from the message's
 * pages (or, for a flowcell laid out in place, those pages themselves),
 * zero pad and room for the ICRC, with headroom (MRC_HEADROOM) for what
 * mrc_output.c pushes in front once the lock is dropped: UDP, IPv6 and an
 * encapsulation. The skb control block (struct mrc_skb_cb, mrc_output.h)
 * carries what the transmit path needs of it. No route, address or device
 * is looked at here: that, the ICRC, the headers and ip6_local_out() are
 * mrc_output.c's.
 *
 * Separate from mrc_output.c because building and sending are two steps
 * with two contexts (connection lock held, or not) and two sets of
 * dependencies: this side knows messages (mrc_msg.c) and the socket's frag
 * ring (mrc_mem.c), the other routes and encapsulations. The frag cursor
 * (struct mrc_frag_cursor) is used by both: here to write a flowcell's
 * headers between its payloads, there to write the ICRCs.
 * See "Packet layout" and "Flowcells" in
 * Documentation/networking/mrc-datapath.rst.
 */
#include <linux/highmem.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <net/sock.h>

#include "mrc_impl.h"
#include "mrc_mem.h"
#include "mrc_msg.h"
#include "mrc_net.h"
#include "mrc_output.h"
#include "mrc_sock.h"

/*
 * A flowcell is one UDP datagram of at most this many MRC bytes: with the
 * inner and outer IPv6 headers, an SRH of MRC_SEGS_MAX segments and UDP,
 * it stays below the 64 KiB of an IPv6 payload length.
 */
#define MRC_BURST_BYTES		(60 * 1024)

/*
 * What mrc_xmit_queue() and mrc_xmit_one() need of an skb of @segs MRC
 * packets of @seg_len bytes (the last one may be shorter), @pkt the first.
 */
static void mrc_cb_init(struct sk_buff *skb, const struct mrc_sock *ms,
			u32 ev, const struct mrc_pkt *pkt, u8 segs, u16 seg_len)
{
	mrc_cb(skb)->ev = ev;
	mrc_cb(skb)->plane = mrc_ev_plane(ev);
	mrc_cb(skb)->hs = pkt->bth.dest_qp == MRC_QPN_EP;
	mrc_cb(skb)->data = mrc_op_is_data(pkt->bth.opcode);
	mrc_cb(skb)->psn = pkt->bth.psn;
	/* The EV profile's classes (mrc_profile_tclass()). */
	mrc_cb(skb)->tclass = mrc_op_is_data(pkt->bth.opcode) ? ms->tclass_data :
								 ms->tclass_ctl;
	mrc_cb(skb)->segs = segs;
	mrc_cb(skb)->seg_len = seg_len;
}

/**
 * mrc_pkt_init() - start a packet the host builds itself (control and
 * endpoint packets; the engine fills its own)
 * @pkt: the packet, zeroed here: every field not set is zero on the wire
 * @opcode: MRC_OP_*
 * @dest_qp: the peer's QPN, or MRC_QPN_EP for an endpoint packet
 *
 * The BTH fields every packet of ours carries alike, in one place.
 */
void mrc_pkt_init(struct mrc_pkt *pkt, u8 opcode, u32 dest_qp)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->bth.opcode = opcode;
	pkt->bth.tver = MRC_TVER;
	pkt->bth.pkey = MRC_PKEY_DEFAULT;
	pkt->bth.dest_qp = dest_qp;
}

/**
 * mrc_build_pkt() - an skb holding one MRC packet, BTH to ICRC
 * @ms: connection (for the counters)
 * @pkt: every header field (from the engine's tx descriptor)
 * @ev: entropy value to send it with
 * @mb: the message, for data packets; NULL otherwise
 * @off: offset of the payload in @mb
 *
 * Called with the connection lock held (the message cannot go away).
 *
 * Return: the skb, or NULL (allocation or encoding failure, counted).
 */
struct sk_buff *mrc_build_pkt(struct mrc_sock *ms, const struct mrc_pkt *pkt,
			      u32 ev, const struct mrc_msgbuf *mb, u32 off)
{
	struct mrc_net *mn = mrc_net(sock_net(&ms->sk));
	u32 hlen = mrc_pkt_hdr_len(pkt);
	u32 plen = pkt->payload_len;
	u32 pad = pkt->bth.pad_cnt;
	u32 total = hlen + plen + pad + MRC_ICRC_LEN;
	struct sk_buff *skb;
	u8 *buf;
	int n;

	if (!hlen || (plen && (!mb || (u64)off + plen > mb->len)))
		goto err;
	skb = alloc_skb(MRC_HEADROOM + total, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		goto err;
	skb_reserve(skb, MRC_HEADROOM);
	buf = skb_put(skb, total);
	n = mrc_pkt_encode_hdr(pkt, buf, total);
	if (n < 0) {
		kfree_skb(skb);
		goto err;
	}
	if (plen)
		mrc_mb_read(mb, off, buf + hlen, plen);
	/* The ICRC covers addresses and ports: mrc_xmit_one() writes it. */
	memset(buf + hlen + plen, 0, pad + MRC_ICRC_LEN);
	mrc_cb_init(skb, ms, ev, pkt, 1, total);
	return skb;
err:
	mrc_net_count(mn, MRC_CNT_TX_ERR);
	return NULL;
}

/**
 * mrc_burst_max() - the longest flowcell a connection asks for
 * @mtu: payload bytes per data packet of the connection
 * @burst: the EV profile's burst (0: MRC_EV_BURST_DEFAULT)
 *
 * Return: 1..MRC_EV_BURST_MAX packets whose datagram fits MRC_BURST_BYTES.
 */
u32 mrc_burst_max(u32 mtu, u32 burst)
{
	u32 seg = MRC_DATA_HDR_MAX + mtu + 3 + MRC_ICRC_LEN;

	burst = clamp_t(u32, burst ?: MRC_EV_BURST_DEFAULT, 1, MRC_EV_BURST_MAX);
	return clamp_t(u32, MRC_BURST_BYTES / seg, 1, burst);
}

/*
 * May a burst of @n packets go out of its message's own pages? Each packet
 * must be where the message's wire layout put it (mrc_mb_alloc_tx()): its
 * payload a whole slot (or the message's tail) from the slot's start, its
 * headers of the size laid out for; and none of them may have been laid
 * out in place before, since an skb may still reference those bytes.
 */
static bool mrc_burst_in_place(const struct mrc_tx_desc *d, u32 n,
			       const struct mrc_msgbuf *mb)
{
	u32 i, off;

	if (!mb->wseg || d->msg_offset % mb->wseg ||
	    d->msg_offset / mb->wseg < mb->wlaid)
		return false;
	for (i = 0; i < n; i++) {
		off = d->msg_offset + i * mb->wseg;
		if (d[i].msg_offset != off || off >= mb->len ||
		    d[i].payload_len != min(mb->wseg, mb->len - off) ||
		    mrc_pkt_hdr_len(&d[i].pkt) != mb->whdr)
			return false;
	}
	return true;
}

/* Page frags of the socket's ring for @total bytes of a flowcell. */
static int mrc_burst_ring_frags(struct mrc_sock *ms, struct sk_buff *skb,
				u32 total)
{
	u32 i, off, plen, reused = 0;
	struct page *pg;
	bool again;

	for (i = 0, off = 0; off < total; i++, off += plen) {
		plen = min_t(u32, total - off, PAGE_SIZE);
		again = false;
		pg = mrc_mem_tx_frag(ms, &again);
		if (!pg)
			return -ENOMEM;
		reused += again;
		skb_fill_page_desc(skb, i, pg, 0, plen);
		skb->len += plen;
		skb->data_len += plen;
		skb->truesize += PAGE_SIZE;
	}
	if (reused)
		mrc_net_add(mrc_net(sock_net(&ms->sk)),
			    MRC_CNT_TX_FRAG_PAGES_REUSED, reused);
	return 0;
}

/**
 * mrc_frag_cursor_init() - start a cursor at the first frag of an skb
 * @fc: the cursor
 * @skb: the skb it reads and writes
 */
void mrc_frag_cursor_init(struct mrc_frag_cursor *fc, struct sk_buff *skb)
{
	fc->skb = skb;
	fc->frag = 0;
	fc->start = skb_headlen(skb);
}

/**
 * mrc_frag_cursor_copy() - copy bytes between a buffer and the cursor's skb
 * @fc: the cursor (mrc_frag_cursor_init())
 * @off: offset in the skb
 * @buf: the buffer
 * @len: bytes to copy
 * @write: into the skb (else out of it)
 *
 * Copy @len bytes between @buf and offset @off of the cursor's skb (@write:
 * into the skb). An offset below the last one's frag, or in the linear
 * part, takes skb_store_bits() or skb_copy_bits().
 *
 * Return: 0, or -EFAULT if the bytes are not all in the skb.
 */
int mrc_frag_cursor_copy(struct mrc_frag_cursor *fc, u32 off, void *buf,
			 u32 len, bool write)
{
	const struct skb_shared_info *sh = skb_shinfo(fc->skb);

	if (off < fc->start)
		return write ? skb_store_bits(fc->skb, off, buf, len) :
			       skb_copy_bits(fc->skb, off, buf, len);
	while (len) {
		const skb_frag_t *f;
		u32 foff, n;
		struct page *pg;
		u8 *va;

		if (fc->frag >= sh->nr_frags)
			return -EFAULT;
		f = &sh->frags[fc->frag];
		if (off >= fc->start + skb_frag_size(f)) {
			fc->start += skb_frag_size(f);
			fc->frag++;
			continue;
		}
		/* A frag may be a compound page: map one page at a time. */
		foff = skb_frag_off(f) + off - fc->start;
		n = min3(len, fc->start + skb_frag_size(f) - off,
			 (u32)(PAGE_SIZE - offset_in_page(foff)));
		pg = skb_frag_page(f) + (foff >> PAGE_SHIFT);
		va = kmap_local_page(pg);
		if (write)
			memcpy(va + offset_in_page(foff), buf, n);
		else
			memcpy(buf, va + offset_in_page(foff), n);
		kunmap_local(va);
		off += n;
		buf += n;
		len -= n;
	}
	return 0;
}

/**
 * mrc_build_burst() - lay a flowcell out as one UDP GSO skb
 * @ms: connection
 * @d: the burst (mrc_conn_poll_tx_burst()): consecutive data packets of
 *	message @mb on one EV, every one but the last of the same size
 * @n: packets in it (2..MRC_EV_BURST_MAX)
 * @mb: the message
 *
 * The MRC packets (headers, payload, pad, room for the ICRC) follow one
 * another in page frags: the message's own pages where its wire layout
 * holds them and no skb took them before (mrc_burst_in_place(); the
 * headers are written around the payloads there, nothing is copied), else
 * pages of the socket's frag ring (mrc_mem_tx_frag()) the payloads are
 * copied into (a retransmission, a packet size changed by the path MTU).
 * mrc_xmit_one() puts the ICRCs in, one UDP header in front and marks the
 * skb SKB_GSO_UDP_L4 with gso_size = one MRC packet, so the stack cuts it
 * into one datagram per MRC packet as late as the device allows (veth
 * forwards it whole between namespaces). Called with the connection lock
 * held.
 *
 * Return: the skb, or NULL (no memory, or a descriptor that does not
 * encode): the caller builds the packets one by one instead.
 */
struct sk_buff *mrc_build_burst(struct mrc_sock *ms,
				const struct mrc_tx_desc *d, u32 n,
				struct mrc_msgbuf *mb)
{
	u8 zero[3 + MRC_ICRC_LEN] = {};
	u32 i, off, total = 0, seg = 0, plen, tail;
	struct mrc_frag_cursor fc;
	u8 hdr[MRC_DATA_HDR_MAX];
	struct sk_buff *skb;
	bool in_place;
	int hlen;

	lockdep_assert_held(&ms->lock);
	if (!mb || n < 2 || n > U8_MAX)
		return NULL;
	for (i = 0; i < n; i++) {
		plen = mrc_pkt_hdr_len(&d[i].pkt) + d[i].payload_len +
		       d[i].pkt.bth.pad_cnt + MRC_ICRC_LEN;
		if (!i)
			seg = plen;
		if (plen > seg || (plen < seg && i != n - 1) ||
		    (u64)d[i].msg_offset + d[i].payload_len > mb->len)
			return NULL;
		total += plen;
	}
	/* In place, a burst may start anywhere in a page: one frag more. */
	BUILD_BUG_ON(DIV_ROUND_UP(MRC_BURST_BYTES, PAGE_SIZE) + 1 >
		     MAX_SKB_FRAGS);
	if (total > MRC_BURST_BYTES)
		return NULL;
	skb = alloc_skb(MRC_HEADROOM, GFP_ATOMIC | __GFP_NOWARN);
	if (!skb)
		return NULL;
	skb_reserve(skb, MRC_HEADROOM);
	in_place = mrc_burst_in_place(d, n, mb) &&
		   !mrc_mb_wire_frags(mb, skb, d->msg_offset / mb->wseg, total);
	if (!in_place && mrc_burst_ring_frags(ms, skb, total)) {
		kfree_skb(skb);
		return NULL;
	}
	mrc_frag_cursor_init(&fc, skb);
	for (i = 0, off = 0; i < n; i++) {
		hlen = mrc_pkt_encode_hdr(&d[i].pkt, hdr, sizeof(hdr));
		if (hlen < 0) {
			kfree_skb(skb);
			return NULL;
		}
		plen = d[i].payload_len;
		tail = d[i].pkt.bth.pad_cnt + MRC_ICRC_LEN;
		/* The frags hold @total bytes, so these fit: a bug if not. */
		WARN_ON_ONCE(mrc_frag_cursor_copy(&fc, off, hdr, hlen, true));
		if (!in_place)
			mrc_mb_read_skb(mb, d[i].msg_offset, skb, off + hlen,
					plen);
		WARN_ON_ONCE(mrc_frag_cursor_copy(&fc, off + hlen + plen, zero,
						  tail, true));
		off += hlen + plen + tail;
	}
	if (in_place) {
		mb->wlaid = d->msg_offset / mb->wseg + n;
		mrc_net_count(mrc_net(sock_net(&ms->sk)),
			      MRC_CNT_TX_FLOWCELLS_IN_PLACE);
	}
	mrc_cb_init(skb, ms, d->ev, &d->pkt, n, seg);
	return skb;
}
