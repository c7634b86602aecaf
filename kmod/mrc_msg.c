// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_msg.c - kernel copies of messages: arrays of pages.
 *
 * A message of up to MRC_MSG_MAX bytes is kept as single pages reached
 * through page-sized chunks of page pointers, so that neither the send
 * side (process context) nor the receive side (softirq, GFP_ATOMIC) ever
 * needs an allocation larger than one page. A small message sent is kept
 * in the slab object of its buffer instead (mrc_mb_alloc_tx()). A message
 * sent in more than one packet is laid out in its pages as its packets go
 * on the wire, each payload behind room for its headers and followed by
 * room for its pad and ICRC, so that a flowcell is sent from these pages
 * without a copy (mrc_mb_wire_frags()); every other access goes through
 * mrc_mb_pos().
 *
 * On receive, a packet's payload normally stays in the skb it arrived in
 * (a flowcell's GSO skb holds up to 16 packets of one message): the
 * message keeps a reference and where the payload lies (struct
 * mrc_mb_piece, one per run of packets that follow one another in the skb
 * and in the message), and recvmsg() copies it to the user, once, on the
 * reader's CPU (mrc_mb_to_iter()). The softirq neither copies nor zeroes a
 * page. A packet whose skb the message cannot hold within its charge is
 * copied into the message's pages instead, which exist only where such a
 * packet landed and are zeroed when allocated, so that a peer that leaves
 * holes can never expose old kernel memory; bytes nothing covers read as
 * zeros.
 */
#include <linux/highmem.h>
#include <linux/list_sort.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/mrc.h>
#include <linux/uio.h>

#include "core/mrc_wire.h"
#include "mrc_impl.h"
#include "mrc_msg.h"

static struct page **mrc_mb_slot(const struct mrc_msgbuf *mb, u32 idx)
{
	return &mb->chunks[idx / MRC_MB_CHUNK][idx % MRC_MB_CHUNK];
}

/* Page pointers in chunk @i of a message of @npages pages. */
static u32 mrc_mb_chunk_len(u32 npages, u32 i)
{
	return min_t(u32, npages - i * MRC_MB_CHUNK, MRC_MB_CHUNK);
}

/* Bytes a message buffer of @npages pages is charged for. */
static u32 mrc_mb_truesize_pages(u32 npages)
{
	u32 nchunks = DIV_ROUND_UP(npages, MRC_MB_CHUNK);

	return npages * PAGE_SIZE + struct_size_t(struct mrc_msgbuf, chunks,
						  nchunks) +
	       npages * sizeof(struct page *);
}

/**
 * mrc_mb_truesize() - bytes a message of @len bytes is charged for
 * @len: message length
 *
 * Return: the pages it occupies plus its bookkeeping.
 */
u32 mrc_mb_truesize(u32 len)
{
	return mrc_mb_truesize_pages(DIV_ROUND_UP(len, PAGE_SIZE));
}

/* A buffer for a message of @len bytes spanning @room bytes of pages. */
static struct mrc_msgbuf *mrc_mb_alloc_room(u32 len, u32 room, gfp_t gfp)
{
	u32 npages = DIV_ROUND_UP(room, PAGE_SIZE);
	u32 nchunks = DIV_ROUND_UP(npages, MRC_MB_CHUNK);
	struct mrc_msgbuf *mb;
	u32 i;

	mb = kzalloc(struct_size(mb, chunks, nchunks), gfp | __GFP_NOWARN);
	if (!mb)
		return NULL;
	INIT_LIST_HEAD(&mb->node);
	INIT_LIST_HEAD(&mb->pieces);
	mb->len = len;
	mb->npages = npages;
	mb->nchunks = nchunks;
	/*
	 * Each table as long as the pages it points to: a message of a page
	 * or two (a request, a reply) costs a few bytes here, not a zeroed
	 * page, and none is larger than a page.
	 */
	for (i = 0; i < nchunks; i++) {
		mb->chunks[i] = kcalloc(mrc_mb_chunk_len(npages, i),
					sizeof(struct page *),
					gfp | __GFP_NOWARN);
		if (!mb->chunks[i]) {
			mrc_mb_free(mb);
			return NULL;
		}
	}
	return mb;
}

/**
 * mrc_mb_alloc() - a message buffer without pages
 * @len: message length, at most MRC_MSG_MAX
 * @gfp: GFP_KERNEL in process context, GFP_ATOMIC in softirq
 *
 * Return: the buffer (pages absent: mrc_mb_fill() them), or NULL.
 */
struct mrc_msgbuf *mrc_mb_alloc(u32 len, gfp_t gfp)
{
	if (len > MRC_MSG_MAX)
		return NULL;
	return mrc_mb_alloc_room(len, len, gfp);
}

/**
 * mrc_mb_alloc_tx() - a buffer for a message to send (process context)
 * @len: message length, at most MRC_MSG_MAX
 * @seg: payload bytes per data packet the connection sends now (0: none)
 * @hdr: header bytes of each of its data packets
 *
 * A message that fits with its buffer in MRC_MB_INLINE_MAX bytes lives
 * in it: one allocation and the message's size zeroed (init_on_alloc),
 * where a page would cost a table, a page and 4 KiB of zeroing per
 * request of an RPC. A message of more than one packet gets pages laid out
 * as its packets go on the wire (@seg and @hdr; struct mrc_msgbuf): a
 * flowcell of it is sent from them with its headers and ICRCs written
 * around the payloads (mrc_mb_wire_frags()), not copied into frags. Other
 * messages get pages with their bytes one after another (mrc_mb_alloc()).
 * Charged to the sender's memory cgroup either way.
 *
 * Return: the buffer (fill it with mrc_mb_from_iter()), or NULL.
 */
struct mrc_msgbuf *mrc_mb_alloc_tx(u32 len, u32 seg, u32 hdr)
{
	struct mrc_msgbuf *mb;
	u64 room;
	u32 stride;

	if (sizeof(*mb) + len > MRC_MB_INLINE_MAX) {
		if (!seg || len <= seg || len > MRC_MSG_MAX)
			return mrc_mb_alloc(len, GFP_KERNEL);
		/* A full packet's pad and ICRC follow its payload. */
		stride = hdr + round_up(seg, 4) + MRC_ICRC_LEN;
		room = (u64)DIV_ROUND_UP(len, seg) * stride;
		if (room > U32_MAX)
			return mrc_mb_alloc(len, GFP_KERNEL);
		mb = mrc_mb_alloc_room(len, room, GFP_KERNEL);
		if (mb) {
			mb->wseg = seg;
			mb->whdr = hdr;
			mb->wstride = stride;
		}
		return mb;
	}
	mb = kmalloc(sizeof(*mb) + len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!mb)
		return NULL;
	memset(mb, 0, sizeof(*mb));	/* the message: mrc_mb_from_iter() */
	INIT_LIST_HEAD(&mb->node);
	INIT_LIST_HEAD(&mb->pieces);
	mb->len = len;
	mb->inl = (u8 *)(mb + 1);
	return mb;
}

/**
 * mrc_mb_size() - bytes a message buffer occupies, to charge it for
 * @mb: a buffer of mrc_mb_alloc_tx() or mrc_mb_alloc()
 *
 * Return: its slab object for an inline message, else mrc_mb_truesize().
 */
u32 mrc_mb_size(const struct mrc_msgbuf *mb)
{
	if (mb->inl)
		return kmalloc_size_roundup(sizeof(*mb) + mb->len);
	return mrc_mb_truesize_pages(mb->npages);
}

/*
 * Where byte @off of a message lies in its pages (behind its packet's
 * header room in the wire layout, else at @off), and how many of the
 * message's bytes follow it there without a gap (*@run).
 */
static u32 mrc_mb_pos(const struct mrc_msgbuf *mb, u32 off, u32 *run)
{
	u32 in;

	if (!mb->wseg) {
		*run = mb->len - off;
		return off;
	}
	in = off % mb->wseg;
	*run = min(mb->wseg - in, mb->len - off);
	return off / mb->wseg * mb->wstride + mb->whdr + in;
}

/*
 * The page holding byte @off of a message whose pages exist (*@pg, at
 * *@poff) and how many of the @len bytes from @off on lie there in one
 * piece: the step of every walk over a message's bytes.
 */
static u32 mrc_mb_run(const struct mrc_msgbuf *mb, u32 off, u32 len,
		      struct page **pg, u32 *poff)
{
	u32 run, pos = mrc_mb_pos(mb, off, &run);

	*poff = pos % PAGE_SIZE;
	*pg = *mrc_mb_slot(mb, pos / PAGE_SIZE);
	return min3(len, run, (u32)PAGE_SIZE - *poff);
}

/**
 * mrc_mb_free() - free a message buffer and its pages
 * @mb: buffer, or NULL
 */
void mrc_mb_free(struct mrc_msgbuf *mb)
{
	struct mrc_mb_pchunk *pc;
	u32 i, j;

	if (!mb)
		return;
	while ((pc = mb->pc_head)) {
		mb->pc_head = pc->next;
		for (i = 0; i < pc->used; i++)
			consume_skb(pc->p[i].skb);
		kfree(pc);
	}
	for (i = 0; i < mb->nchunks && mb->chunks[i]; i++) {
		for (j = 0; j < mrc_mb_chunk_len(mb->npages, i); j++)
			if (mb->chunks[i][j])
				__free_page(mb->chunks[i][j]);
		kfree(mb->chunks[i]);
	}
	kfree(mb);
}

/**
 * mrc_mb_pages_out() - move a completed message's pages to a list
 * @mb: a message sent from pages (mrc_mb_alloc_tx())
 * @list: where they go (page->lru)
 * @max: most pages to move
 *
 * A page an skb still references (a flowcell sent from it) moves too:
 * mrc_mb_pages_in() takes it once the skb is gone.
 *
 * Return: pages moved; their slots are empty, so mrc_mb_free() skips them.
 */
u32 mrc_mb_pages_out(struct mrc_msgbuf *mb, struct list_head *list, u32 max)
{
	struct page **slot;
	u32 i, n = 0;

	if (mb->inl)
		return 0;
	for (i = 0; i < mb->npages && n < max; i++) {
		slot = mrc_mb_slot(mb, i);
		if (!*slot)
			continue;
		list_add_tail(&(*slot)->lru, list);
		*slot = NULL;
		n++;
	}
	return n;
}

/**
 * mrc_mb_pages_in() - give a message about to be sent pages from a list
 * @mb: a message of mrc_mb_alloc_tx(), before mrc_mb_from_iter() fills it
 * @list: pages (page->lru) of the same socket's earlier messages
 * @max: most pages to take
 *
 * mrc_mb_from_iter() overwrites each page up to the message's length; the
 * rest of its last page keeps older bytes of the same socket, which
 * nothing reads (transmit reads within the message's length).
 *
 * Return: pages taken.
 */
u32 mrc_mb_pages_in(struct mrc_msgbuf *mb, struct list_head *list, u32 max)
{
	struct page *pg, *tmp;
	u32 i = 0, n = 0;

	if (mb->inl)
		return 0;
	list_for_each_entry_safe(pg, tmp, list, lru) {
		if (n == max)
			break;
		/* Still in an skb (a flowcell sent from it): not yet. */
		if (page_ref_count(pg) != 1)
			continue;
		while (i < mb->npages && *mrc_mb_slot(mb, i))
			i++;
		if (i == mb->npages)
			break;
		list_del(&pg->lru);
		*mrc_mb_slot(mb, i) = pg;
		n++;
	}
	return n;
}

/**
 * mrc_mb_fill() - make sure the pages under [@off, @off + @len) exist
 * @mb: buffer
 * @off: first byte
 * @len: bytes
 * @gfp: allocation context
 *
 * Return: 0 or -ENOMEM (the pages allocated so far stay).
 */
int mrc_mb_fill(struct mrc_msgbuf *mb, u32 off, u32 len, gfp_t gfp)
{
	u32 first, last, i;
	struct page **slot;

	if (!len)
		return 0;
	if ((u64)off + len > mb->len || WARN_ON_ONCE(mb->inl))
		return -EINVAL;
	first = off / PAGE_SIZE;
	last = (off + len - 1) / PAGE_SIZE;
	for (i = first; i <= last; i++) {
		slot = mrc_mb_slot(mb, i);
		if (*slot)
			continue;
		*slot = alloc_page(gfp | __GFP_ZERO | __GFP_NOWARN);
		if (!*slot)
			return -ENOMEM;
	}
	return 0;
}

/**
 * mrc_mb_write_skb() - copy bytes of an skb into a buffer whose pages exist
 * @mb: buffer
 * @off: destination offset
 * @skb: source, linear or not
 * @soff: offset of the bytes in @skb (from skb->data)
 * @len: how many; [@off, @off + @len) must lie within @mb->len (checked:
 *       nothing is written otherwise)
 *
 * The receive path's only copy of a payload: from the frags (or linear
 * part) it arrived in straight into the message's pages.
 */
void mrc_mb_write_skb(struct mrc_msgbuf *mb, u32 off,
		      const struct sk_buff *skb, int soff, u32 len)
{
	if (WARN_ON_ONCE((u64)off + len > mb->len))
		return;
	while (len) {
		u32 poff = off % PAGE_SIZE;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		struct page *pg = *mrc_mb_slot(mb, off / PAGE_SIZE);
		void *va;
		int err;

		/* The caller filled the range: a hole is a bug, not a crash. */
		if (WARN_ON_ONCE(!pg))
			return;
		va = kmap_local_page(pg);
		err = skb_copy_bits(skb, soff, va + poff, n);
		kunmap_local(va);
		/* The caller checked the payload lies in @skb: a bug too. */
		if (WARN_ON_ONCE(err))
			return;
		soff += n;
		off += n;
		len -= n;
	}
}

/**
 * mrc_mb_read_skb() - copy bytes of a buffer into an skb, linear or not
 * @mb: buffer (its pages exist over the range)
 * @off: source offset
 * @skb: destination, of at least @soff + @len bytes
 * @soff: offset in @skb (from skb->data)
 * @len: how many
 *
 * The transmit path's copy of a flowcell's payload into its page frags.
 */
void mrc_mb_read_skb(const struct mrc_msgbuf *mb, u32 off,
		     struct sk_buff *skb, int soff, u32 len)
{
	if (mb->inl) {
		/* The caller sized @skb for the burst: a bug. */
		WARN_ON_ONCE(skb_store_bits(skb, soff, mb->inl + off, len));
		return;
	}
	while (len) {
		struct page *pg;
		u32 poff, n = mrc_mb_run(mb, off, len, &pg, &poff);
		void *va;
		int err;

		va = kmap_local_page(pg);
		err = skb_store_bits(skb, soff, va + poff, n);
		kunmap_local(va);
		/* The caller sized @skb for the burst: a bug. */
		if (WARN_ON_ONCE(err))
			return;
		soff += n;
		off += n;
		len -= n;
	}
}

/**
 * mrc_mb_read() - copy bytes out of a buffer whose pages exist
 * @mb: buffer
 * @off: source offset
 * @dst: destination
 * @len: how many
 */
void mrc_mb_read(const struct mrc_msgbuf *mb, u32 off, void *dst, u32 len)
{
	if (mb->inl) {
		memcpy(dst, mb->inl + off, len);
		return;
	}
	while (len) {
		struct page *pg;
		u32 poff, n = mrc_mb_run(mb, off, len, &pg, &poff);

		memcpy_from_page(dst, pg, poff, n);
		dst += n;
		off += n;
		len -= n;
	}
}

/**
 * mrc_mb_from_iter() - fill a whole buffer from user memory (process
 * context: allocates its pages with GFP_KERNEL)
 * @mb: buffer of iov_iter_count(@from) bytes or fewer
 * @from: source
 *
 * Return: 0, -ENOMEM or -EFAULT.
 */
int mrc_mb_from_iter(struct mrc_msgbuf *mb, struct iov_iter *from)
{
	u32 i, n, poff, off;
	struct page **slot, *pg;

	if (mb->inl)
		return copy_from_iter_full(mb->inl, mb->len, from) ? 0 : -EFAULT;
	/* Every page: the wire layout writes headers between the payloads. */
	for (i = 0; i < mb->npages; i++) {
		slot = mrc_mb_slot(mb, i);
		if (!*slot) {
			*slot = alloc_page(GFP_KERNEL | __GFP_ACCOUNT);
			if (!*slot)
				return -ENOMEM;
		}
	}
	for (off = 0; off < mb->len; off += n) {
		n = mrc_mb_run(mb, off, mb->len - off, &pg, &poff);
		if (copy_page_from_iter(pg, poff, n, from) != n)
			return -EFAULT;
		cond_resched();
	}
	return 0;
}

/**
 * mrc_mb_wire_frags() - put packets of a message laid out as on the wire
 * into an skb's frags, straight from its pages
 * @mb: a message of mrc_mb_alloc_tx() with @mb->wseg set, filled
 * @skb: an skb without frags
 * @first: the first packet (its payload starts at byte @first * wseg)
 * @len: bytes from its first header byte on: whole packets, headers,
 *       payloads, pads and ICRCs, one after the other
 *
 * Each frag takes a reference on its page. The caller writes the headers,
 * pads and ICRCs into the skb (skb_store_bits()), so into these pages:
 * bytes no skb covered before (@mb->wlaid).
 *
 * Return: 0, or -E2BIG (more frags than an skb has; none added).
 */
int mrc_mb_wire_frags(struct mrc_msgbuf *mb, struct sk_buff *skb, u32 first,
		      u32 len)
{
	u32 pos = first * mb->wstride, end = pos + len, n;
	int i;

	if (DIV_ROUND_UP(end, PAGE_SIZE) - pos / PAGE_SIZE > MAX_SKB_FRAGS ||
	    end > mb->npages * PAGE_SIZE)
		return -E2BIG;
	for (i = 0; pos < end; i++, pos += n) {
		struct page *pg = *mrc_mb_slot(mb, pos / PAGE_SIZE);

		n = min_t(u32, end - pos, PAGE_SIZE - pos % PAGE_SIZE);
		get_page(pg);
		skb_fill_page_desc(skb, i, pg, pos % PAGE_SIZE, n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
	}
	return 0;
}

/*
 * Copy [@off, @off + @len) of @mb's pages to user memory; a page no packet
 * was copied into (held in an skb, or never sent by a buggy peer) reads
 * as zeros.
 */
static int mrc_mb_pages_to_iter(const struct mrc_msgbuf *mb, u32 off, u32 len,
				struct iov_iter *to)
{
	struct page *pg;
	u32 poff, n;

	while (len) {
		poff = off % PAGE_SIZE;
		n = min_t(u32, len, PAGE_SIZE - poff);
		pg = *mrc_mb_slot(mb, off / PAGE_SIZE);
		if (pg ? copy_page_to_iter(pg, poff, n, to) != n :
			 iov_iter_zero(n, to) != n)
			return -EFAULT;
		off += n;
		len -= n;
	}
	return 0;
}

static int mrc_mb_piece_cmp(void *priv, const struct list_head *a,
			    const struct list_head *b)
{
	u32 oa = list_entry(a, struct mrc_mb_piece, node)->moff;
	u32 ob = list_entry(b, struct mrc_mb_piece, node)->moff;

	return oa > ob;
}

/**
 * mrc_mb_to_iter() - copy the first @len bytes of a message to user memory
 * @mb: a delivered message (no packet is added to it any more)
 * @len: bytes, at most mb->len
 * @to: destination
 *
 * The pieces are sorted by message offset (once: MSG_PEEK may come back)
 * and copied out of their skbs in order; what lies between them comes
 * from the pages. Where a buggy peer sent packets that overlap, the first
 * in message order wins.
 *
 * Return: 0 or -EFAULT.
 */
int mrc_mb_to_iter(struct mrc_msgbuf *mb, u32 len, struct iov_iter *to)
{
	const struct mrc_mb_piece *p;
	u32 cur = 0, a, e, k;
	int err;

	if (!mb->sorted) {
		list_sort(NULL, &mb->pieces, mrc_mb_piece_cmp);
		mb->sorted = true;
	}
	list_for_each_entry(p, &mb->pieces, node) {
		for (k = 0; k < p->n && cur < len; k++) {
			a = p->moff + k * p->seg;
			e = min(a + p->seg, len);
			if (a >= len || e <= cur)
				continue;
			if (a > cur) {
				err = mrc_mb_pages_to_iter(mb, cur, a - cur, to);
				if (err)
					return err;
				cur = a;
			}
			if (skb_copy_datagram_iter(p->skb,
						   p->soff + k * p->stride +
						   (cur - a), to, e - cur))
				return -EFAULT;
			cur = e;
		}
	}
	return cur < len ? mrc_mb_pages_to_iter(mb, cur, len - cur, to) : 0;
}

/* The piece added last, or NULL. */
static struct mrc_mb_piece *mrc_mb_last_piece(const struct mrc_msgbuf *mb)
{
	struct mrc_mb_pchunk *pc = mb->pc_tail;

	return pc && pc->used ? &pc->p[pc->used - 1] : NULL;
}

/**
 * mrc_mb_can_hold() - may a packet of @skb stay in it, for this message?
 * @mb: the message being received
 * @skb: the skb the packet is in
 * @extra: set to the bytes to charge beyond @mb's charge first (0: none)
 *
 * A message holds skbs up to its charge (mrc_mb_truesize() of its length,
 * what its pages would cost); the skb of the packet added last is held
 * already. Beyond the charge the caller charges @extra more, or copies.
 *
 * Return: false if @skb's truesize cannot be represented (never, in
 * practice): copy.
 */
bool mrc_mb_can_hold(const struct mrc_msgbuf *mb, const struct sk_buff *skb,
		     u32 *extra)
{
	const struct mrc_mb_piece *last = mrc_mb_last_piece(mb);
	u64 held;

	*extra = 0;
	if (last && last->skb == skb)
		return true;
	held = (u64)mb->held + skb->truesize;
	if (held > U32_MAX)
		return false;
	if (held > mb->charge)
		*extra = held - mb->charge;
	return true;
}

/**
 * mrc_mb_hold_reserve() - room for one more piece
 * @mb: the message being received
 * @gfp: allocation context
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_mb_hold_reserve(struct mrc_msgbuf *mb, gfp_t gfp)
{
	struct mrc_mb_pchunk *pc = mb->pc_tail;

	if (pc && pc->used < MRC_MB_PIECES)
		return 0;
	pc = kmalloc(sizeof(*pc), gfp | __GFP_NOWARN);
	if (!pc)
		return -ENOMEM;
	pc->next = NULL;
	pc->used = 0;
	if (mb->pc_tail)
		mb->pc_tail->next = pc;
	else
		mb->pc_head = pc;
	mb->pc_tail = pc;
	return 0;
}

/**
 * mrc_mb_hold_skb() - keep a packet's payload in the skb it arrived in
 * @mb: the message; mrc_mb_hold_reserve() succeeded since the last call
 *      and mrc_mb_can_hold() said yes (its extra, if any, charged)
 * @off: offset of the payload in the message
 * @skb: the skb
 * @soff: offset of the payload in @skb (from skb->data)
 * @len: payload bytes; [@off, @off + @len) within @mb->len (checked)
 *
 * A packet that follows the last one in the skb at the same distance, and
 * in the message right after it, with as many bytes, extends its piece: a
 * flowcell of one message is one piece and one skb reference.
 */
void mrc_mb_hold_skb(struct mrc_msgbuf *mb, u32 off, struct sk_buff *skb,
		     int soff, u32 len)
{
	struct mrc_mb_piece *p = mrc_mb_last_piece(mb);
	struct mrc_mb_pchunk *pc = mb->pc_tail;

	if (WARN_ON_ONCE((u64)off + len > mb->len || soff < 0))
		return;
	if (p && p->skb == skb && p->seg == len &&
	    off == p->moff + p->n * p->seg) {
		if (p->n == 1 && (u32)soff > p->soff) {
			p->stride = soff - p->soff;
			p->n++;
			return;
		}
		if (p->n > 1 && (u32)soff == p->soff + p->n * p->stride) {
			p->n++;
			return;
		}
	}
	/* mrc_mb_hold_reserve() made room: a bug otherwise. */
	if (WARN_ON_ONCE(!pc || pc->used >= MRC_MB_PIECES))
		return;
	if (!p || p->skb != skb)
		mb->held += skb->truesize;
	p = &pc->p[pc->used++];
	p->skb = skb_get(skb);
	p->soff = soff;
	p->moff = off;
	p->seg = len;
	p->stride = 0;
	p->n = 1;
	list_add_tail(&p->node, &mb->pieces);
}
