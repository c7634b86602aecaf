/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_icrc.h - the ICRC of an MRC packet in an skb (mrc_icrc.c).
 */
#ifndef MRC_ICRC_H
#define MRC_ICRC_H

#include <linux/skbuff.h>

#include "mrc_wire.h"

/**
 * struct mrc_icrc_hdrs - what the ICRCs of one datagram's packets share
 * @ip: the addresses and ports they cover
 * @seed_len: the packet length @seed is for (0: none yet)
 * @seed: mrc_icrc_seed(@ip, @seed_len)
 * @ext_len: received only: bytes of IPv6 extension headers between the
 *	IPv6 header and UDP (0: none)
 * @nexthdr: received only: that IPv6 header's next header
 *
 * The packets of a flowcell, but its last, have one length, so the CRC of
 * their pseudo-header (the masked LRH, IPv6 and UDP headers, 56 bytes) is
 * computed once per flowcell, not per packet; the last, shorter packet
 * gets its own (mrc_skb_icrc() recomputes it when the length changes). On
 * the stack of one caller.
 */
struct mrc_icrc_hdrs {
	struct mrc_icrc_ip6 ip;
	u32 seed_len;
	u32 seed;
	u16 ext_len;
	u8 nexthdr;
};

void mrc_icrc_hdrs_set(struct mrc_icrc_hdrs *h, const struct in6_addr *saddr,
		       const struct in6_addr *daddr, u16 sport, u16 dport);
void mrc_icrc_hdrs_set_ext(struct mrc_icrc_hdrs *h, u8 nexthdr, u16 ext_len);
u32 mrc_skb_icrc(const struct sk_buff *skb, int off, u32 len,
		 struct mrc_icrc_hdrs *h, const u8 *bth);
bool mrc_skb_icrc_ok(const struct sk_buff *skb, int off, u32 len,
		     struct mrc_icrc_hdrs *h, const u8 *bth, u32 icrc);
void mrc_icrc_init_module(void);
void mrc_icrc_exit_module(void);
const char *mrc_icrc_driver(void);

#endif /* MRC_ICRC_H */
