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
 * CRC-32 of bytes [@from, @from + @len) of @skb, linear or not, continued
 * from @crc. A CRC streams: each chunk continues the running value, so the
 * frags are read in order with skb_seq_read() and no chunk's CRC is ever
 * combined (__skb_checksum() computes each frag's from zero and combines,
 * crc32_le_combine() a shift per frag: a third of the ICRC's cycles in a
 * guest profile, Documentation/networking/mrc-bench.rst).
 */
static u32 mrc_skb_crc32(const struct sk_buff *skb, u32 from, u32 len, u32 crc)
{
	struct skb_seq_state st;
	const u8 *data;
	u32 done = 0, n;

	if (!len)
		return crc;
	/* skb_seq_read() only reads the skb: its prototype is not const. */
	skb_prepare_seq_read((struct sk_buff *)skb, from, from + len, &st);
	while ((n = skb_seq_read(done, &data, &st)) != 0) {
		n = min(n, len - done);
		crc = crc32_le(crc, data, n);
		done += n;
		if (done == len) {
			skb_abort_seq_read(&st);
			break;
		}
	}
	return crc;
}

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

	state = mrc_skb_crc32(skb, off + MRC_BTH_LEN,
			      len - MRC_BTH_LEN - MRC_ICRC_LEN, state);
	return ~state;
}
