// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_msg.c - kernel copies of messages: arrays of pages.
 *
 * A message of up to MRC_MSG_MAX bytes is kept as single pages reached
 * through page-sized chunks of page pointers, so that neither the send
 * side (process context) nor the receive side (softirq, GFP_ATOMIC) ever
 * needs an allocation larger than one page. Receive buffers get their
 * pages on demand, as packets land, zeroed so that a peer that leaves
 * holes can never expose old kernel memory.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "mrc_impl.h"

static struct page **mrc_mb_slot(const struct mrc_msgbuf *mb, u32 idx)
{
	return &mb->chunks[idx / MRC_MB_CHUNK][idx % MRC_MB_CHUNK];
}

/**
 * mrc_mb_truesize() - bytes a message of @len bytes is charged for
 * @len: message length
 *
 * Return: the pages it occupies plus its bookkeeping.
 */
u32 mrc_mb_truesize(u32 len)
{
	u32 npages = DIV_ROUND_UP(len, PAGE_SIZE);

	return npages * PAGE_SIZE + sizeof(struct mrc_msgbuf) +
	       DIV_ROUND_UP(npages, MRC_MB_CHUNK) * PAGE_SIZE;
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
	u32 npages = DIV_ROUND_UP(len, PAGE_SIZE);
	u32 nchunks = DIV_ROUND_UP(npages, MRC_MB_CHUNK);
	struct mrc_msgbuf *mb;
	u32 i;

	if (len > MRC_MSG_MAX)
		return NULL;
	mb = kzalloc(struct_size(mb, chunks, nchunks), gfp | __GFP_NOWARN);
	if (!mb)
		return NULL;
	INIT_LIST_HEAD(&mb->node);
	mb->len = len;
	mb->npages = npages;
	mb->nchunks = nchunks;
	for (i = 0; i < nchunks; i++) {
		mb->chunks[i] = (struct page **)get_zeroed_page(gfp | __GFP_NOWARN);
		if (!mb->chunks[i]) {
			mrc_mb_free(mb);
			return NULL;
		}
	}
	return mb;
}

/**
 * mrc_mb_free() - free a message buffer and its pages
 * @mb: buffer, or NULL
 */
void mrc_mb_free(struct mrc_msgbuf *mb)
{
	u32 i, j;

	if (!mb)
		return;
	for (i = 0; i < mb->nchunks && mb->chunks[i]; i++) {
		for (j = 0; j < MRC_MB_CHUNK; j++)
			if (mb->chunks[i][j])
				__free_page(mb->chunks[i][j]);
		free_page((unsigned long)mb->chunks[i]);
	}
	kfree(mb);
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
	if ((u64)off + len > mb->len)
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
	while (len) {
		u32 poff = off % PAGE_SIZE;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		struct page *pg = *mrc_mb_slot(mb, off / PAGE_SIZE);
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
	while (len) {
		u32 poff = off % PAGE_SIZE;
		u32 n = min_t(u32, len, PAGE_SIZE - poff);
		struct page *pg = *mrc_mb_slot(mb, off / PAGE_SIZE);

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
	u32 i, n, left = mb->len;
	struct page **slot;

	for (i = 0; i < mb->npages; i++) {
		slot = mrc_mb_slot(mb, i);
		if (!*slot) {
			*slot = alloc_page(GFP_KERNEL | __GFP_ACCOUNT);
			if (!*slot)
				return -ENOMEM;
		}
		n = min_t(u32, left, PAGE_SIZE);
		if (copy_page_from_iter(*slot, 0, n, from) != n)
			return -EFAULT;
		left -= n;
		cond_resched();
	}
	return 0;
}

/**
 * mrc_mb_to_iter() - copy the first @len bytes of a buffer to user memory
 * @mb: buffer
 * @len: bytes, at most mb->len
 * @to: destination
 *
 * Return: 0 or -EFAULT.
 */
int mrc_mb_to_iter(const struct mrc_msgbuf *mb, u32 len, struct iov_iter *to)
{
	struct page *pg;
	u32 i, n;

	for (i = 0; len; i++) {
		n = min_t(u32, len, PAGE_SIZE);
		pg = *mrc_mb_slot(mb, i);
		/* A page no packet wrote to (a buggy peer) reads as zeros. */
		if (pg ? copy_page_to_iter(pg, 0, n, to) != n :
			 iov_iter_zero(n, to) != n)
			return -EFAULT;
		len -= n;
	}
	return 0;
}
