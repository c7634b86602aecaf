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

void mrc_mem_setup_proto(struct proto *prot);
int mrc_mem_init_module(void);
void mrc_mem_exit_module(void);
long mrc_mem_pages(void);
bool mrc_mem_charge(struct mrc_sock *ms, u32 bytes, int kind);
void mrc_mem_uncharge(struct mrc_sock *ms, u32 bytes);
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
