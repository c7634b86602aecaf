/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_msg.h - message storage: pages on send, the skbs payloads arrived in
 * on receive (mrc_msg.c).
 */
#ifndef MRC_MSG_H
#define MRC_MSG_H

#include <linux/list.h>
#include <linux/mm.h>
#include <linux/skbuff.h>
#include <linux/types.h>
#include <linux/uio.h>

/**
 * struct mrc_mb_piece - received packets of a message still in their skb
 * @node:   link in mrc_msgbuf.pieces
 * @skb:    the skb they arrived in (one reference per piece)
 * @soff:   offset of the first packet's payload in @skb (from skb->data)
 * @moff:   its offset in the message
 * @seg:    payload bytes of every packet of the piece
 * @stride: bytes of @skb from one packet's payload to the next (the MRC
 *          headers and ICRC between them, in a flowcell); 0 while @n is 1
 * @n:      packets: packet k is @seg bytes at @soff + k * @stride of @skb,
 *          at @moff + k * @seg of the message
 */
struct mrc_mb_piece {
	struct list_head node;
	struct sk_buff *skb;
	u32 soff;
	u32 moff;
	u32 seg;
	u32 stride;
	u32 n;
};

/* Pieces per allocation: one kmalloc-1k object. */
#define MRC_MB_PIECES	((1024 - 2 * sizeof(void *)) / sizeof(struct mrc_mb_piece))

/**
 * struct mrc_mb_pchunk - storage of a message's pieces
 * @next: the next chunk
 * @used: entries of @p in use
 * @p:    the pieces
 */
struct mrc_mb_pchunk {
	struct mrc_mb_pchunk *next;
	u32 used;
	struct mrc_mb_piece p[MRC_MB_PIECES];
};

/**
 * struct mrc_msgbuf - kernel copy of one message: an array of pages, and
 * on receive the skbs its packets arrived in
 * @node:     link in mrc_sock.rxq once delivered
 * @len:      message length in bytes
 * @msn:      message sequence number
 * @charge:   bytes charged to the socket (sk_wmem_queued or rcv accounting)
 * @mem:      bytes charged to socket memory (mrc_mem.c)
 * @held:     truesize of the skbs @pieces hold, each counted once
 * @sorted:   @pieces are in message order (recvmsg() sorts them once)
 * @pieces:   received payloads left in their skbs (struct mrc_mb_piece),
 *            copied out by mrc_mb_to_iter() alone; bytes no piece covers
 *            come from the pages
 * @pc_head:  first chunk of storage for @pieces
 * @pc_tail:  last chunk: the piece added last is its last entry
 * @inl:      a small message's bytes, in the same slab object as the
 *            buffer (send side only, mrc_mb_alloc_tx()); NULL: pages
 * @wseg:     send side: payload bytes per packet the pages are laid out
 *            for, each payload behind room for its packet's headers and
 *            followed by room for its pad and ICRC, as the packets go on
 *            the wire (mrc_mb_alloc_tx()); 0: the message's bytes follow
 *            one another from the first page on
 * @whdr:     header bytes in front of each payload in that layout
 * @wstride:  bytes from one packet to the next in that layout
 * @wlaid:    packets below this one may be in an skb straight from the
 *            pages (mrc_build_burst()): a burst is laid out in place only
 *            from here on, so that no byte an skb references is written
 *            again (connection lock)
 * @npages:   pages the message spans (0 with @inl)
 * @nchunks:  entries of @chunks
 * @chunks:   @npages page pointers in tables of MRC_MB_CHUNK (the last
 *            one as long as the pages left), so that no allocation is
 *            larger than a page: a 64 MiB message needs no high-order
 *            allocation even in softirq; a page exists only where bytes
 *            were written (zeroed when allocated)
 */
struct mrc_msgbuf {
	struct list_head node;
	u32 len;
	u16 msn;
	bool sorted;
	u32 charge;
	u32 mem;
	u32 held;
	struct list_head pieces;
	struct mrc_mb_pchunk *pc_head;
	struct mrc_mb_pchunk *pc_tail;
	u8 *inl;
	u32 wseg;
	u16 whdr;
	u32 wstride;
	u32 wlaid;
	u32 npages;
	u32 nchunks;
	struct page **chunks[];
};

#define MRC_MB_CHUNK	(PAGE_SIZE / sizeof(struct page *))

/*
 * A message that fits in one slab object of at most this size with its
 * buffer is sent from it (mrc_mb_alloc_tx()): a 64-byte request costs a
 * 192-byte object rather than a page zeroed by init_on_alloc. No larger:
 * the next size class is a page's worth, zeroed all the same.
 */
#define MRC_MB_INLINE_MAX	(PAGE_SIZE / 2)

struct mrc_msgbuf *mrc_mb_alloc(u32 len, gfp_t gfp);
struct mrc_msgbuf *mrc_mb_alloc_tx(u32 len, u32 seg, u32 hdr);
u32 mrc_mb_size(const struct mrc_msgbuf *mb);
void mrc_mb_free(struct mrc_msgbuf *mb);
u32 mrc_mb_pages_out(struct mrc_msgbuf *mb, struct list_head *list, u32 max);
u32 mrc_mb_pages_in(struct mrc_msgbuf *mb, struct list_head *list, u32 max);
u32 mrc_mb_truesize(u32 len);
int mrc_mb_fill(struct mrc_msgbuf *mb, u32 off, u32 len, gfp_t gfp);
void mrc_mb_write_skb(struct mrc_msgbuf *mb, u32 off,
		      const struct sk_buff *skb, int soff, u32 len);
void mrc_mb_read(const struct mrc_msgbuf *mb, u32 off, void *dst, u32 len);
void mrc_mb_read_skb(const struct mrc_msgbuf *mb, u32 off,
		     struct sk_buff *skb, int soff, u32 len);
int mrc_mb_from_iter(struct mrc_msgbuf *mb, struct iov_iter *from);
int mrc_mb_wire_frags(struct mrc_msgbuf *mb, struct sk_buff *skb, u32 first,
		      u32 len);
int mrc_mb_to_iter(struct mrc_msgbuf *mb, u32 len, struct iov_iter *to);
bool mrc_mb_can_hold(const struct mrc_msgbuf *mb, const struct sk_buff *skb,
		     u32 *extra);
int mrc_mb_hold_reserve(struct mrc_msgbuf *mb, gfp_t gfp);
void mrc_mb_hold_skb(struct mrc_msgbuf *mb, u32 off, struct sk_buff *skb,
		     int soff, u32 len);

#endif /* MRC_MSG_H */
