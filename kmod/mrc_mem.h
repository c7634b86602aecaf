/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_mem.h - socket memory accounting: charges, buffer sizes, the
 * namespace limits (mrc_mem.c).
 */
#ifndef MRC_MEM_H
#define MRC_MEM_H

#include <linux/types.h>

struct mrc_msgbuf;
struct page;
struct mrc_sock;
struct proto;
struct sock;

/**
 * struct mrc_mem_stats - what a socket pins, one snapshot (the memory
 * fields of struct mrc_info and of the connection dump, which say what
 * each is)
 * @rmem_alloc:  received messages, unread and being received (charges)
 * @rmem_unread: of these, delivered and not read
 * @wmem_queued: sent messages not acknowledged (sk_wmem_queued)
 * @wmem_kept:   kept pages and frag pages
 * @charged:     mrc_sock.mem_charged
 * @fwd_alloc:   sk_forward_alloc
 * @wmem_alloc:  sk_wmem_alloc, less the socket's own reference
 * @rcvbuf:      sk_rcvbuf
 * @sndbuf:      sk_sndbuf
 */
struct mrc_mem_stats {
	u64 rmem_alloc;
	u64 rmem_unread;
	u64 wmem_queued;
	u64 wmem_kept;
	u64 charged;
	u32 fwd_alloc;
	u32 wmem_alloc;
	u32 rcvbuf;
	u32 sndbuf;
};

void mrc_mem_setup_proto(struct proto *prot);
int mrc_mem_init_module(void);
void mrc_mem_exit_module(void);
long mrc_mem_pages(void);
bool mrc_mem_charge(struct mrc_sock *ms, u32 bytes, int kind);
void mrc_mem_uncharge(struct mrc_sock *ms, u32 bytes);
void mrc_mem_get_stats(struct mrc_sock *ms, struct mrc_mem_stats *m);
void mrc_mem_inherit(struct sock *sk, const struct sock *parent);
void mrc_mem_buf_defaults(struct sock *sk);
bool mrc_rcvbuf_grow(struct mrc_sock *ms, u64 need);
bool mrc_sndbuf_grow(struct mrc_sock *ms, u32 charge);
void mrc_mem_release(struct sock *sk);
void mrc_mem_tx_pages_keep(struct mrc_sock *ms, struct mrc_msgbuf *mb);
void mrc_mem_tx_pages_reuse(struct mrc_sock *ms, struct mrc_msgbuf *mb);
void mrc_mem_tx_pages_drain(struct mrc_sock *ms);
struct page *mrc_mem_tx_frag(struct mrc_sock *ms, bool *reused);
void mrc_mem_tx_frags_drain(struct mrc_sock *ms);

#endif /* MRC_MEM_H */
