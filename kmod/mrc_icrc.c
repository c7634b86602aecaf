// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_icrc.c - the RoCEv2 ICRC of an MRC packet in an skb, linear or not:
 * the codec's pseudo-header and BTH rules (kmod/core/mrc_wire.c) and the
 * kernel's crc32_le over the payload frags. Transmit (mrc_output.c) and
 * receive (mrc_input.c) alike.
 */
#include <linux/crc32.h>
#include <linux/skbuff.h>

#include "mrc_icrc.h"

/*
 * The ICRC's CRC-32 over page frags: __skb_checksum() with CRC arithmetic
 * (as SCTP's CRC32c), a frag's CRC from zero combined with the running one.
 */
static __wsum mrc_crc_update(const void *p, int len, __wsum state)
{
	return (__force __wsum)crc32_le((__force u32)state, p, len);
}

static __wsum mrc_crc_combine(__wsum a, __wsum b, int offset, int len)
{
	return (__force __wsum)crc32_le_combine((__force u32)a, (__force u32)b,
						len);
}

static const struct skb_checksum_ops mrc_crc_ops = {
	.update = mrc_crc_update,
	.combine = mrc_crc_combine,
};

/* The IPv6/UDP fields an ICRC covers. */
void mrc_icrc_ip_set(struct mrc_icrc_ip6 *ip, const struct in6_addr *saddr,
		     const struct in6_addr *daddr, u16 sport, u16 dport)
{
	memcpy(ip->saddr, saddr, sizeof(ip->saddr));
	memcpy(ip->daddr, daddr, sizeof(ip->daddr));
	ip->sport = sport;
	ip->dport = dport;
}

/*
 * The ICRC of the MRC packet of @len bytes (ICRC included) at offset @off
 * of @skb, linear or not; @bth is a copy of its BTH. Transmit and receive
 * alike: the pseudo-header has this packet's own UDP length, also for a
 * segment of a flowcell.
 */
u32 mrc_skb_icrc(const struct sk_buff *skb, int off, u32 len,
		 const struct mrc_icrc_ip6 *ip, const u8 *bth)
{
	u32 state = mrc_icrc_bth(mrc_icrc_seed(ip, len), bth);

	state = (__force u32)__skb_checksum(skb, off + MRC_BTH_LEN,
					    len - MRC_BTH_LEN - MRC_ICRC_LEN,
					    (__force __wsum)state, &mrc_crc_ops);
	return ~state;
}
