/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_icrc.h - the ICRC of an MRC packet in an skb (mrc_icrc.c).
 */
#ifndef MRC_ICRC_H
#define MRC_ICRC_H

#include <linux/skbuff.h>

#include "mrc_wire.h"

void mrc_icrc_ip_set(struct mrc_icrc_ip6 *ip, const struct in6_addr *saddr,
		     const struct in6_addr *daddr, u16 sport, u16 dport);
u32 mrc_skb_icrc(const struct sk_buff *skb, int off, u32 len,
		 const struct mrc_icrc_ip6 *ip, const u8 *bth);
void mrc_icrc_init_module(void);
void mrc_icrc_exit_module(void);
const char *mrc_icrc_driver(void);

#endif /* MRC_ICRC_H */
