// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_ecn_decap.bpf.c - copy a CE mark of the outer IPv6 header into the
 * inner one before the kernel decapsulates an SRv6 packet.
 *
 * A spine's AQM marks the header it sees: the outer one of an SRv6
 * (H.Encaps) packet. Linux's seg6local End.DT6 (6.1, and 6.12) strips that
 * header without the RFC 6040 ECN combination, so the mark never reaches
 * the receiving transport and ECN-based congestion control (MRC's M field,
 * NSCC) never fires on an SRv6 fabric. Attached at tc ingress (clsact,
 * direct action) of a host's plane devices, this program does the
 * combination the decapsulation skips: outer CE and inner ECT(0)/ECT(1)
 * becomes inner CE. An inner Not-ECT packet is left alone (RFC 6040 would
 * drop it; the decapsulation will deliver it unmarked, as today). IPv6 has
 * no header checksum and the UDP pseudo-header does not cover the traffic
 * class, so nothing else changes. Every packet passes (TC_ACT_OK).
 *
 *   tc qdisc add dev pl0 clsact
 *   tc filter add dev pl0 ingress bpf direct-action obj mrc_ecn_decap.bpf.o sec tc
 *
 * Parsed: Ethernet, IPv6 with ECN = CE, optionally one routing header (the
 * SRH, any segments left), then IPv6 (next header 41). Anything else is
 * not touched.
 */
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_HLEN	14
#define IP6_HLEN	40
#define ETH_P_IPV6	0x86dd
#define NEXTHDR_ROUTING	43
#define NEXTHDR_IPV6	41
#define ECN_CE		3

/* Bytes 0-1 of an IPv6 header: version 4, traffic class 8, label 4 bits. */
static __always_inline __u8 ip6_ecn(const __u8 *h)
{
	return (h[1] >> 4) & 3;
}

SEC("tc")
int mrc_ecn_decap(struct __sk_buff *skb)
{
	void *data, *end;
	__u8 *outer, *rh, *inner;
	__u16 proto;
	__u8 nh, ecn;
	__u32 off;

	/* The headers we look at, linear: outer + SRH (up to 16 SIDs) + inner. */
	bpf_skb_pull_data(skb, ETH_HLEN + IP6_HLEN + 8 + 16 * 16 + IP6_HLEN);
	data = (void *)(long)skb->data;
	end = (void *)(long)skb->data_end;
	if (data + ETH_HLEN + IP6_HLEN > end)
		return TC_ACT_OK;
	proto = *(__u16 *)(data + 12);
	if (proto != bpf_htons(ETH_P_IPV6))
		return TC_ACT_OK;
	outer = data + ETH_HLEN;
	if (ip6_ecn(outer) != ECN_CE)
		return TC_ACT_OK;
	nh = outer[6];
	off = ETH_HLEN + IP6_HLEN;
	if (nh == NEXTHDR_ROUTING) {
		rh = data + off;
		if ((void *)(rh + 2) > end)
			return TC_ACT_OK;
		nh = rh[0];
		off += ((__u32)rh[1] + 1) * 8;
		if (off > ETH_HLEN + IP6_HLEN + 8 + 16 * 16)
			return TC_ACT_OK;
	}
	if (nh != NEXTHDR_IPV6)
		return TC_ACT_OK;
	inner = data + off;
	if ((void *)(inner + IP6_HLEN) > end)
		return TC_ACT_OK;
	ecn = ip6_ecn(inner);
	if (ecn == 0 || ecn == ECN_CE)
		return TC_ACT_OK;
	inner[1] |= ECN_CE << 4;
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
