// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_inject - send malformed and hostile MRC packets at a live connection.
 *
 *   mrc_inject -d ADDR -q QPN -c CACK [-n COUNT] [-b SRCADDR] [-s SEED]
 *   mrc_inject -S -d ADDR -q QPN -b SRCADDR -f FWDADDR [-n COUNT] [-s SEED]
 *
 * Plain UDP to ADDR port 4791 (from SRCADDR if given). Packets are built
 * with the project's own codec (kmod/core/mrc_wire.c, compiled in), in
 * rounds of eight kinds:
 *   0 random bytes of random length 0..63 (mostly truncated)
 *   1 an undefined opcode, valid ICRC
 *   2 a data packet to a QPN nobody owns, its ICRC broken every other
 *     round (dropped as RxUnknownQpn before any CRC is spent on it)
 *   3 a data packet to QPN with a PSN 2^22..2^23 ahead of CACK (out of
 *     the receive window however far the connection moved)
 *   4 a SACK to QPN with random connection ids and fields
 *   5 a NACK to QPN with random connection ids (never UNEXP_EVENT)
 *   6 a data packet to QPN with its ICRC broken
 *   7 a connect response / close request with random token and ids
 * Prints how many packets of each kind were sent.
 *
 * -S: raw IPv6 packets (IPPROTO_RAW, the IPv6 header is ours) from SRCADDR
 * to ADDR carrying a segment routing header (RFC 8754) in front of UDP and
 * a well-formed MRC data packet to a QPN nobody owns (never QPN), in
 * rounds of ten kinds:
 *   0 badfirst  no segments left, but the header is too short for
 *               first_segment + 1 segments
 *   1 badlast   no segments left, but segments[0] is not ADDR
 *   2 badtlv    no segments left, a malformed TLV area (overrun, PadN
 *               longer than 5, a type byte without its length)
 *   3 trunc     hdrlen reaches past the end of the packet (IPv6 length
 *               consistent): the IPv6 stack drops it (Ip6InHdrErrors)
 *   4 cut       the packet ends inside the SRH, the IPv6 payload length
 *               says more: dropped on input (Ip6InTruncatedPkts)
 *   5 segleft   segments left beyond the segment list (Ip6InHdrErrors and
 *               a parameter problem)
 *   6 fwd       one segment left, the next one FWDADDR (on-link, not the
 *               receiver's): forwarded, which a host refuses
 *               (Ip6InAddrErrors)
 *   7 valid     no segments left, segments[0] = ADDR, well-formed TLVs or
 *               none, random flags (HMAC flag excepted) and tag
 *   8 loop      one segment left, the next one ADDR again: the receiver's
 *               kernel processes it and loops it back with no segments
 *               left, a valid SRH
 *   9 badtype   laid out like a valid SRH, but a routing header of type
 *               0 (RFC 5095) or 253/254 (experiments): with no segments
 *               left the IPv6 stack passes these to UDP
 * Kinds 0-2, 7 and 9 alternate no other extension header, a hop-by-hop
 * options header in front of the SRH and a destination options header
 * after it. The UDP checksum is computed for the destination the packet
 * has when it reaches UDP. Prints one line "srh: total N badfirst N ...
 * badtype N".
 *
 *   mrc_inject -C -d ADDR -b SRCPREFIX -p SERVICE [-n COUNT] [-s SEED]
 *
 * -C: a connect-request flood from spoofed sources: raw IPv6 packets to
 * ADDR whose source is SRCPREFIX with its low 64 bits drawn at random per
 * packet, each a well-formed connect request (valid ICRC and UDP checksum
 * for that source) to SERVICE with random ids; every other one echoes a
 * random (forged) cookie. Nobody at those sources ever answers. Prints
 * one line "connect flood: total N forged_cookie N".
 *
 *   mrc_inject -P -d ADDR -b SRCADDR [-n COUNT] [-s SEED]
 *
 * -P: forged port-status traffic over plain UDP from SRCADDR (the peer's
 * address): alternately an update (ERTH PORT_STATUS_UPDATE, every port
 * down) and an answer (EETH), each with a random token in BTH.PSN where a
 * real one carries its connection's. Prints "port status: total N
 * updates N answers N".
 *
 *   mrc_inject -E -d ADDR -b SRCADDR [-n COUNT] [-s SEED]
 *
 * -E: MRC 1.0 EV probes (ERTH op EV_PROBE, QPN 2, connectionless), as a
 * spec peer sends them: COUNT requests back to back from SRCADDR port 4791
 * (where answers are sent), each with its own probe id in BTH.PSN and its
 * own timestamp; then every answer that arrives until one second passes
 * without one is checked: an EETH of op EV_PROBE from ADDR whose ICRC is
 * right for its addresses and ports, echoing the id and the timestamp of a
 * probe sent and not answered before. Prints "ev probe: sent N answered N
 * bad N" (bad: anything else that arrived).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_wire.h"

static uint64_t rs;

/*
 * The ICRC covers the IPv6 addresses and UDP ports (RoCEv2): in the plain
 * UDP mode the socket is connected first and its local address and port
 * go in here; NULL in the -S mode (those packets go to nobody's QPN and
 * are dropped before the ICRC is looked at).
 */
static struct mrc_icrc_ip6 icrc_ip;
static const struct mrc_icrc_ip6 *icrc_ctx;

static uint32_t rnd(void)
{
	uint64_t z = (rs += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)((z ^ (z >> 31)) >> 16);
}

static void base(struct mrc_pkt *p, uint8_t op, uint32_t qpn)
{
	memset(p, 0, sizeof(*p));
	p->bth.opcode = op;
	p->bth.tver = MRC_TVER;
	p->bth.pkey = MRC_PKEY_DEFAULT;
	p->bth.dest_qp = qpn & MRC_QPN_MASK;
	p->bth.psn = rnd() & MRC_PSN_MASK;
}

static int data_pkt(uint8_t *buf, uint32_t qpn, uint32_t psn)
{
	static uint8_t payload[256];
	struct mrc_pkt p;

	base(&p, MRC_OP_WRITE_ONLY, qpn);
	p.bth.psn = psn & MRC_PSN_MASK;
	p.meth.msn = (uint16_t)rnd();
	p.reth.dma_len = 1 + rnd() % sizeof(payload);
	p.payload = payload;
	p.payload_len = p.reth.dma_len;
	p.bth.pad_cnt = mrc_pad_for(p.payload_len);
	return mrc_pkt_encode_ip6(icrc_ctx, &p, buf, 2048);
}

/* ---- -S: raw IPv6 with a segment routing header ---- */

#define IP6_HLEN	40
#define NH_HOP		0
#define NH_UDP		17
#define NH_ROUTING	43
#define NH_DEST		60
#define SRH_TYPE	4	/* IPV6_SRCRT_TYPE_4 */
#define SRH_FLAG_HMAC	0x08	/* SR6_FLAG1_HMAC */
#define TLV_PAD1	0
#define TLV_PADN	4

enum srh_kind {
	SRH_BADFIRST, SRH_BADLAST, SRH_BADTLV, SRH_TRUNC, SRH_CUT,
	SRH_SEGLEFT, SRH_FWD, SRH_VALID, SRH_LOOP, SRH_BADTYPE, SRH_KINDS
};

static const char *const srh_names[SRH_KINDS] = {
	"badfirst", "badlast", "badtlv", "trunc", "cut",
	"segleft", "fwd", "valid", "loop", "badtype",
};

struct srh_spec {
	uint8_t type, hdrlen, segleft, first, flags;
	uint16_t tag;
	int nsegs;			/* segments written */
	struct in6_addr segs[4];	/* [0] = the last segment */
	uint8_t tlv[48];		/* written after the segments */
	int tlvlen;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, int len)
{
	int i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

/* UDP checksum with the IPv6 pseudo header of @src and @dst. */
static uint16_t udp6_csum(const struct in6_addr *src, const struct in6_addr *dst,
			  const uint8_t *udp, int len)
{
	uint32_t sum = 0;

	sum = csum_add(sum, src->s6_addr, 16);
	sum = csum_add(sum, dst->s6_addr, 16);
	sum += (uint32_t)len + NH_UDP;
	sum = csum_add(sum, udp, len);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	sum = ~sum & 0xffff;
	return sum ? sum : 0xffff;
}

/*
 * An IPv6 header from @src to @dst, hop limit 64, next header @nh, traffic
 * class and flow label 0; the payload length is the caller's.
 */
static void put_ip6(uint8_t *buf, const struct in6_addr *src, const struct in6_addr *dst,
		    uint8_t nh)
{
	memset(buf, 0, IP6_HLEN);
	buf[0] = 0x60;
	buf[6] = nh;
	buf[7] = 64;
	memcpy(buf + 8, src, 16);
	memcpy(buf + 24, dst, 16);
}

/* IPPROTO_RAW: the IPv6 header is ours (IPV6_HDRINCL implied). -1: reported. */
static int raw_socket(void)
{
	int fd = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);

	if (fd < 0)
		perror("socket(AF_INET6, SOCK_RAW, IPPROTO_RAW)");
	return fd;
}

/* Send @len bytes of @buf (IPv6 header included) to @dst. -1: reported. */
static int raw_send(int fd, const struct in6_addr *dst, const uint8_t *buf, int len)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_addr = *dst };

	if (sendto(fd, buf, len, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("sendto");
		return -1;
	}
	return 0;
}

/* An 8-byte hop-by-hop or destination options header: one PadN option. */
static int put_opts(uint8_t *p, uint8_t nh)
{
	memset(p, 0, 8);
	p[0] = nh;
	p[2] = 1;	/* PadN */
	p[3] = 4;
	return 8;
}

/* The SRH as specified; returns the bytes written (hdrlen not enforced). */
static int put_srh(uint8_t *p, uint8_t nh, const struct srh_spec *sp)
{
	int i, n = 8;

	p[0] = nh;
	p[1] = sp->hdrlen;
	p[2] = sp->type;
	p[3] = sp->segleft;
	p[4] = sp->first;
	p[5] = sp->flags;
	put16(p + 6, sp->tag);
	for (i = 0; i < sp->nsegs; i++, n += 16)
		memcpy(p + n, &sp->segs[i], 16);
	memcpy(p + n, sp->tlv, sp->tlvlen);
	return n + sp->tlvlen;
}

/* An address of @base's /64 with random low 16 bits, never @base itself. */
static struct in6_addr other_addr(const struct in6_addr *base)
{
	struct in6_addr a = *base;

	do {
		a.s6_addr[14] = (uint8_t)rnd();
		a.s6_addr[15] = (uint8_t)rnd();
	} while (!memcmp(&a, base, sizeof(a)));
	return a;
}

static void tlv(struct srh_spec *sp, uint8_t type, uint8_t len)
{
	sp->tlv[sp->tlvlen] = type;
	sp->tlv[sp->tlvlen + 1] = len;
	memset(sp->tlv + sp->tlvlen + 2, type == TLV_PADN ? 0 : 0xa5, len);
	sp->tlvlen += 2 + len;
}

/* One segment, @dst, no segments left, hdrlen for @tlvbytes of TLVs. */
static void srh_one(struct srh_spec *sp, const struct in6_addr *dst, int tlvbytes)
{
	memset(sp, 0, sizeof(*sp));
	sp->type = SRH_TYPE;
	sp->nsegs = 1;
	sp->segs[0] = *dst;
	sp->hdrlen = 2 + tlvbytes / 8;
}

/*
 * A well-formed two-segment SRH arriving at its first segment @dst (the
 * packet's destination) with one left to visit: @via.
 */
static void srh_via(struct srh_spec *sp, const struct in6_addr *via,
		    const struct in6_addr *dst)
{
	srh_one(sp, via, 0);
	sp->nsegs = 2;
	sp->segs[1] = *dst;
	sp->hdrlen = 4;
	sp->first = 1;
	sp->segleft = 1;
}

/* Fill @sp for packet number @round of @kind (variants rotate by round). */
static void srh_make(enum srh_kind kind, unsigned long round, struct srh_spec *sp,
		     const struct in6_addr *dst, const struct in6_addr *fwd)
{
	switch (kind) {
	case SRH_BADFIRST:
		srh_one(sp, dst, 0);
		switch (round % 3) {
		case 0:		/* one segment, first_segment says more */
			sp->first = 1 + rnd() % 255;
			break;
		case 1:		/* 8 bytes: no room for even one segment */
			sp->hdrlen = 0;
			sp->nsegs = 0;
			break;
		default:	/* two segments, first_segment says more */
			sp->nsegs = 2;
			sp->segs[1] = other_addr(dst);
			sp->hdrlen = 4;
			sp->first = 2 + rnd() % 254;
			break;
		}
		break;
	case SRH_BADLAST:
		srh_one(sp, dst, 0);
		switch (round % 3) {
		case 0:		/* another address of the subnet */
			sp->segs[0] = other_addr(dst);
			break;
		case 1:		/* list in path order: ADDR last instead of first */
			sp->nsegs = 3;
			sp->first = 2;
			sp->hdrlen = 6;
			sp->segs[0] = other_addr(dst);
			sp->segs[1] = other_addr(dst);
			sp->segs[2] = *dst;
			break;
		default:	/* one bit off */
			sp->segs[0].s6_addr[rnd() % 16] ^= 1u << (rnd() % 8);
			break;
		}
		break;
	case SRH_BADTLV:
		switch (round % 4) {
		case 0:		/* PadN of 6 bytes: RFC 8754 allows 0..5 */
			srh_one(sp, dst, 8);
			tlv(sp, TLV_PADN, 6);
			break;
		case 1:		/* a TLV running past the header */
			srh_one(sp, dst, 8);
			tlv(sp, 3, 10);
			sp->tlvlen = 8;
			break;
		case 2:		/* PadN(5), then a type byte without length */
			srh_one(sp, dst, 8);
			tlv(sp, TLV_PADN, 5);
			sp->tlv[sp->tlvlen++] = 0x80;
			break;
		default:	/* opaque(6), then PadN(7) past the end */
			srh_one(sp, dst, 16);
			tlv(sp, 3, 6);
			tlv(sp, TLV_PADN, 7);
			sp->tlvlen = 16;
			break;
		}
		break;
	case SRH_TRUNC:
		srh_one(sp, dst, 0);
		sp->hdrlen = 100 + rnd() % 156;	/* 808..2048 bytes */
		break;
	case SRH_CUT:
		srh_one(sp, dst, 0);
		break;
	case SRH_SEGLEFT:
		srh_one(sp, dst, 0);
		if (round % 2) {
			sp->nsegs = 2;
			sp->segs[1] = *dst;
			sp->hdrlen = 4;
			sp->first = 1;
			sp->segleft = 2 + rnd() % 254;
		} else {
			sp->segleft = 1 + rnd() % 255;
		}
		break;
	case SRH_FWD:
		srh_via(sp, fwd, dst);
		break;
	case SRH_VALID:
		switch (round % 6) {
		case 0:
			srh_one(sp, dst, 0);
			break;
		case 1:		/* three segments, no TLV */
			srh_one(sp, dst, 0);
			sp->nsegs = 3;
			sp->first = 2;
			sp->hdrlen = 6;
			sp->segs[1] = other_addr(dst);
			sp->segs[2] = other_addr(dst);
			break;
		case 2:		/* Pad1 + PadN(5) */
			srh_one(sp, dst, 8);
			sp->tlv[sp->tlvlen++] = TLV_PAD1;
			tlv(sp, TLV_PADN, 5);
			break;
		case 3:		/* opaque, 6 bytes */
			srh_one(sp, dst, 8);
			tlv(sp, 3, 6);
			break;
		case 4:		/* two segments; unknown type, Pad1 x2, egress */
			srh_one(sp, dst, 16);
			sp->nsegs = 2;
			sp->first = 1;
			sp->hdrlen += 2;
			sp->segs[1] = other_addr(dst);
			tlv(sp, 0x7f, 4);
			sp->tlv[sp->tlvlen++] = TLV_PAD1;
			sp->tlv[sp->tlvlen++] = TLV_PAD1;
			tlv(sp, 2, 6);
			break;
		default:	/* an HMAC TLV, flag clear: not checked */
			srh_one(sp, dst, 40);
			tlv(sp, 5, 38);
			break;
		}
		sp->flags = (uint8_t)rnd() & ~SRH_FLAG_HMAC;
		sp->tag = (uint16_t)rnd();
		break;
	case SRH_LOOP:
		srh_via(sp, dst, dst);
		break;
	default:	/* SRH_BADTYPE */
		srh_one(sp, dst, 0);
		sp->type = (round % 3) ? 252 + round % 3 : 0;
		break;
	}
}

/* Build packet @i: IPv6 [HBH] SRH [DEST] UDP MRC. Returns the bytes to send. */
static int srh_packet(uint8_t *buf, unsigned long i, uint32_t qpn,
		      const struct in6_addr *src, const struct in6_addr *dst,
		      const struct in6_addr *fwd)
{
	enum srh_kind kind = i % SRH_KINDS;
	unsigned long round = i / SRH_KINDS;
	int flav = 0, off = IP6_HLEN, udp, mlen, wire;
	uint8_t *nhp = &buf[6];
	uint32_t bogus;
	struct srh_spec sp;

	srh_make(kind, round, &sp, dst, fwd);
	if (kind <= SRH_BADTLV || kind == SRH_VALID || kind == SRH_BADTYPE)
		flav = round % 3;
	put_ip6(buf, src, dst, 0);
	buf[1] = (uint8_t)(rnd() & 0x0f);	/* flow label */
	put16(buf + 2, (uint16_t)rnd());
	if (flav == 1) {
		*nhp = NH_HOP;
		nhp = &buf[off];
		off += put_opts(buf + off, 0);
	}
	*nhp = NH_ROUTING;
	nhp = &buf[off];
	off += put_srh(buf + off, 0, &sp);
	if (flav == 2) {
		*nhp = NH_DEST;
		nhp = &buf[off];
		off += put_opts(buf + off, 0);
	}
	*nhp = NH_UDP;
	udp = off;
	do
		bogus = 0x10 + rnd() % 0x1000;
	while (bogus == qpn);
	mlen = data_pkt(buf + udp + 8, bogus, rnd());
	if (mlen < 0)
		mlen = 0;
	put16(buf + udp, (uint16_t)(49152 + rnd() % 16384));
	put16(buf + udp + 2, MRC_UDP_PORT);
	put16(buf + udp + 4, (uint16_t)(8 + mlen));
	put16(buf + udp + 6, 0);
	/*
	 * The receiver checks the checksum against the destination the
	 * packet has when it reaches UDP: segments[0] once the receiver's
	 * kernel moved to it, else the IPv6 destination (which a bad SRH
	 * does not match).
	 */
	put16(buf + udp + 6, udp6_csum(src, sp.segleft ? &sp.segs[0] : dst,
				       buf + udp, 8 + mlen));
	wire = udp + 8 + mlen;
	put16(buf + 4, (uint16_t)(wire - IP6_HLEN));
	if (kind == SRH_CUT)	/* cut 8..23 bytes into the SRH */
		wire = IP6_HLEN + 8 + rnd() % 16;
	return wire;
}

static int inject_srh(const struct in6_addr *dst, const char *src_s,
		      const char *fwd_s, uint32_t qpn, unsigned long count)
{
	unsigned long sent[SRH_KINDS] = { 0 }, i;
	struct in6_addr src, fwd;
	uint8_t buf[4096];
	int fd, len, k;

	if (!src_s || !fwd_s || inet_pton(AF_INET6, src_s, &src) != 1 ||
	    inet_pton(AF_INET6, fwd_s, &fwd) != 1) {
		fprintf(stderr, "mrc_inject -S needs -b SRCADDR and -f FWDADDR\n");
		return 2;
	}
	fd = raw_socket();
	if (fd < 0)
		return 1;
	for (i = 0; i < count; i++) {
		len = srh_packet(buf, i, qpn, &src, dst, &fwd);
		if (raw_send(fd, dst, buf, len))
			return 1;
		sent[i % SRH_KINDS]++;
		if (!(i % 16))
			usleep(1000);	/* leave the receiver's backlog some room */
	}
	printf("srh: total %lu", count);
	for (k = 0; k < SRH_KINDS; k++)
		printf(" %s %lu", srh_names[k], sent[k]);
	printf("\n");
	close(fd);
	return 0;
}

/* ---- -P: forged port-status updates and answers ---- */

static int inject_port_status(int fd, unsigned long count)
{
	unsigned long i, upd = 0;
	uint8_t buf[256];
	struct mrc_pkt p;
	int len;

	for (i = 0; i < count; i++) {
		if (i & 1) {
			base(&p, MRC_OP_EP_RESP, MRC_QPN_EP);
		} else {
			base(&p, MRC_OP_EP_REQ, MRC_QPN_EP);
			p.ep.ftype = MRC_TS_FTYPE;
			upd++;
		}
		p.ep.kind = MRC_EP_PORT_STATUS;
		p.ep.token = (uint16_t)rnd();
		p.ep.tx_ts = (uint16_t)rnd();
		len = mrc_pkt_encode_ip6(icrc_ctx, &p, buf, sizeof(buf));
		if (len < 0) {
			fprintf(stderr, "encode: %d\n", len);
			return 1;
		}
		if (send(fd, buf, len, 0) != len) {
			perror("send");
			return 1;
		}
	}
	printf("port status: total %lu updates %lu answers %lu\n", count, upd,
	       count - upd);
	return 0;
}

/* ---- -E: EV probes, and their answers checked ---- */

/* Is @buf (@len bytes from @from) the answer to an unanswered probe? */
static int ev_answer_ok(const uint8_t *buf, int len, const struct sockaddr_in6 *from,
			const struct sockaddr_in6 *dst, const struct sockaddr_in6 *src,
			const uint16_t *ts, uint8_t *answered, unsigned long count)
{
	struct mrc_icrc_ip6 ip;
	struct mrc_pkt p;
	unsigned long id;

	if (memcmp(&from->sin6_addr, &dst->sin6_addr, 16))
		return 0;
	memcpy(ip.saddr, &from->sin6_addr, 16);
	memcpy(ip.daddr, &src->sin6_addr, 16);
	ip.sport = ntohs(from->sin6_port);
	ip.dport = MRC_UDP_PORT;
	if (mrc_pkt_decode_ip6(&ip, buf, len, 0, &p) || p.bth.opcode != MRC_OP_EP_RESP ||
	    p.bth.dest_qp != MRC_QPN_EP || p.ep.kind != MRC_EP_EV_PROBE)
		return 0;
	id = p.ep.token;
	if (id >= count || answered[id] || p.ep.tx_ts != ts[id])
		return 0;
	answered[id] = 1;
	return 1;
}

static int inject_ev_probes(const struct sockaddr_in6 *dst, const char *src_s,
			    unsigned long count)
{
	struct sockaddr_in6 src = { .sin6_family = AF_INET6,
				    .sin6_port = htons(MRC_UDP_PORT) };
	unsigned long i, ok = 0, bad = 0;
	int rcvbuf = 16 << 20;
	struct sockaddr_in6 from;
	uint8_t buf[256], *answered;
	struct pollfd pfd;
	struct mrc_pkt p;
	socklen_t flen;
	uint16_t *ts;
	int fd, len;

	if (!src_s || inet_pton(AF_INET6, src_s, &src.sin6_addr) != 1 ||
	    count > 0x10000)
		return 2;
	ts = calloc(count, sizeof(*ts));
	answered = calloc(count, 1);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (!ts || !answered || fd < 0)
		return 1;
	/*
	 * Every answer waits in the receive queue until the last probe is
	 * sent: room for all of them (a debug kernel's skbs are larger; at
	 * the default rmem, 167 of 194 answers fitted there), as root past
	 * rmem_max.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)))
		perror("SO_RCVBUF");
	if (bind(fd, (struct sockaddr *)&src, sizeof(src))) {
		perror("bind");
		return 1;
	}
	memcpy(icrc_ip.saddr, &src.sin6_addr, 16);
	memcpy(icrc_ip.daddr, &dst->sin6_addr, 16);
	icrc_ip.sport = MRC_UDP_PORT;
	icrc_ip.dport = MRC_UDP_PORT;
	for (i = 0; i < count; i++) {
		base(&p, MRC_OP_EP_REQ, MRC_QPN_EP);
		p.ep.kind = MRC_EP_EV_PROBE;
		p.ep.token = (uint16_t)i;	/* the probe id, in BTH.PSN */
		p.ep.ftype = MRC_TS_FTYPE;
		p.ep.tx_ts = ts[i] = (uint16_t)rnd();
		len = mrc_pkt_encode_ip6(&icrc_ip, &p, buf, sizeof(buf));
		if (len < 0) {
			fprintf(stderr, "encode: %d\n", len);
			return 1;
		}
		if (sendto(fd, buf, len, 0, (const struct sockaddr *)dst,
			   sizeof(*dst)) != len) {
			perror("sendto");
			return 1;
		}
	}
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (poll(&pfd, 1, 1000) > 0) {
		flen = sizeof(from);
		len = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &flen);
		if (len < 0)
			break;
		if (ev_answer_ok(buf, len, &from, dst, &src, ts, answered, count))
			ok++;
		else
			bad++;
	}
	printf("ev probe: sent %lu answered %lu bad %lu\n", count, ok, bad);
	close(fd);
	free(ts);
	free(answered);
	return 0;
}

/* ---- -C: connect requests from spoofed sources ---- */

static int connect_packet(uint8_t *buf, unsigned long i, const struct in6_addr *src,
			  const struct in6_addr *dst, uint16_t service)
{
	struct mrc_icrc_ip6 ctx;
	uint16_t sport = 0xc000 | (rnd() & 0x3fff);
	struct mrc_pkt p;
	int mlen, udp = IP6_HLEN;

	base(&p, MRC_OP_EP_REQ, MRC_QPN_EP);
	p.ep.kind = MRC_EP_CONNECT;
	p.ep.token = (uint16_t)rnd();
	p.ep.ftype = MRC_TS_FTYPE;
	p.ep.conn.dst_service = service;
	p.ep.conn.src_service = (uint16_t)(1 + rnd() % 0xfffe);
	p.ep.conn.src_qpn = 16 + rnd() % (MRC_QPN_MASK - 16);
	p.ep.conn.src_conn = (uint16_t)(1 + rnd() % 0xfffe);
	p.ep.conn.init_psn = rnd() & MRC_PSN_MASK;
	p.ep.conn.max_msg_len = 1 << 20;
	if (i & 1) {	/* a forged cookie */
		p.ep.conn.dst_qpn = 1 + rnd() % MRC_QPN_MASK;
		p.ep.conn.dst_conn = (uint16_t)rnd();
	}
	memcpy(ctx.saddr, src, 16);
	memcpy(ctx.daddr, dst, 16);
	ctx.sport = sport;
	ctx.dport = MRC_UDP_PORT;
	mlen = mrc_pkt_encode_ip6(&ctx, &p, buf + udp + 8, 2048);
	if (mlen < 0)
		return mlen;
	put_ip6(buf, src, dst, NH_UDP);
	put16(buf + 4, (uint16_t)(8 + mlen));
	put16(buf + udp, sport);
	put16(buf + udp + 2, MRC_UDP_PORT);
	put16(buf + udp + 4, (uint16_t)(8 + mlen));
	put16(buf + udp + 6, 0);
	put16(buf + udp + 6, udp6_csum(src, dst, buf + udp, 8 + mlen));
	return udp + 8 + mlen;
}

static int inject_connect(const struct in6_addr *dst, const char *prefix_s,
			  uint16_t service, unsigned long count)
{
	unsigned long i, forged = 0;
	struct in6_addr src;
	uint8_t buf[4096];
	int fd, len, k;

	if (!prefix_s || inet_pton(AF_INET6, prefix_s, &src) != 1 || !service) {
		fprintf(stderr, "mrc_inject -C needs -b SRCPREFIX and -p SERVICE\n");
		return 2;
	}
	fd = raw_socket();
	if (fd < 0)
		return 1;
	for (i = 0; i < count; i++) {
		for (k = 8; k < 16; k++)
			src.s6_addr[k] = (uint8_t)rnd();
		len = connect_packet(buf, i, &src, dst, service);
		if (len < 0) {
			fprintf(stderr, "encode: %d\n", len);
			return 1;
		}
		if (raw_send(fd, dst, buf, len))
			return 1;
		forged += i & 1;
		if (!(i % 32))
			usleep(1000);	/* leave the receiver's backlog some room */
	}
	printf("connect flood: total %lu forged_cookie %lu\n", count, forged);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_port = htons(MRC_UDP_PORT) };
	struct sockaddr_in6 src = { .sin6_family = AF_INET6 };
	unsigned long count = 10000, sent[8] = { 0 }, i;
	uint32_t qpn = 0, cack = 0;
	const char *bind_addr = NULL, *fwd_addr = NULL;
	uint8_t buf[2048];
	struct mrc_pkt p;
	int fd, c, len, k, srh = 0, flood = 0, ports = 0, evp = 0;
	unsigned long service = 0;
	socklen_t slen;

	rs = 12345;
	while ((c = getopt(argc, argv, "d:q:c:n:b:s:f:p:SCPE")) != -1) {
		switch (c) {
		case 'd':
			if (inet_pton(AF_INET6, optarg, &dst.sin6_addr) != 1)
				return 2;
			break;
		case 'q': qpn = strtoul(optarg, NULL, 0); break;
		case 'c': cack = strtoul(optarg, NULL, 0); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'b': bind_addr = optarg; break;
		case 's': rs = strtoull(optarg, NULL, 0); break;
		case 'f': fwd_addr = optarg; break;
		case 'S': srh = 1; break;
		case 'C': flood = 1; break;
		case 'P': ports = 1; break;
		case 'E': evp = 1; break;
		case 'p': service = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: mrc_inject -d ADDR -q QPN -c CACK [-n N] [-b SRC]\n"
				"       mrc_inject -S -d ADDR -q QPN -b SRC -f FWD [-n N]\n"
				"       mrc_inject -C -d ADDR -b SRCPREFIX -p SERVICE [-n N]\n"
				"       mrc_inject -P -d ADDR -b SRC [-n N]\n"
				"       mrc_inject -E -d ADDR -b SRC [-n N]\n");
			return 2;
		}
	}
	if (flood)
		return inject_connect(&dst.sin6_addr, bind_addr, (uint16_t)service, count);
	if (evp)
		return inject_ev_probes(&dst, bind_addr, count);
	if (!qpn && !ports)
		return 2;
	if (srh)
		return inject_srh(&dst.sin6_addr, bind_addr, fwd_addr, qpn, count);
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	if (fd < 0)
		return 1;
	if (bind_addr) {
		inet_pton(AF_INET6, bind_addr, &src.sin6_addr);
		if (bind(fd, (struct sockaddr *)&src, sizeof(src))) {
			perror("bind");
			return 1;
		}
	}
	/* Fix the source address and port: the ICRC covers them. */
	slen = sizeof(src);
	if (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) ||
	    getsockname(fd, (struct sockaddr *)&src, &slen)) {
		perror("connect");
		return 1;
	}
	memcpy(icrc_ip.saddr, &src.sin6_addr, 16);
	memcpy(icrc_ip.daddr, &dst.sin6_addr, 16);
	icrc_ip.sport = ntohs(src.sin6_port);
	icrc_ip.dport = MRC_UDP_PORT;
	icrc_ctx = &icrc_ip;
	if (ports)
		return inject_port_status(fd, count);
	for (i = 0; i < count; i++) {
		k = i % 8;
		switch (k) {
		case 0:
			len = rnd() % 64;
			for (c = 0; c < len; c++)
				buf[c] = (uint8_t)rnd();
			break;
		case 1:
			base(&p, 0xc6, qpn);
			len = mrc_pkt_encode_ip6(icrc_ctx, &p, buf, sizeof(buf));
			/* an opcode MRC 1.0 does not define, ICRC recomputed */
			do
				buf[0] = (uint8_t)rnd();
			while (mrc_op_valid(buf[0]));
			len = mrc_pkt_finish(icrc_ctx, buf, MRC_BTH_LEN + 32, sizeof(buf));
			break;
		case 2:
			len = data_pkt(buf, 0x10 + rnd() % 0x1000, rnd());
			if (len > 0 && (i / 8) % 2)
				buf[len - 1] ^= 0x5a;
			break;
		case 3:
			len = data_pkt(buf, qpn, cack + (1u << 22) + rnd() % (1u << 22));
			break;
		case 4:
			base(&p, MRC_OP_SACK, qpn);
			p.sack.ecn = rnd() % 3;
			p.sack.ev = rnd();
			p.sack.src_conn = (uint16_t)rnd();
			p.sack.dst_conn = (uint16_t)rnd();
			p.sack.cack_psn = rnd() & MRC_PSN_MASK;
			p.sack.mpr = (uint8_t)rnd();
			p.sack.bitmap = ((uint64_t)rnd() << 32) | rnd();
			len = mrc_pkt_encode_ip6(icrc_ctx, &p, buf, sizeof(buf));
			break;
		case 5:
			base(&p, MRC_OP_NACK, qpn);
			p.nack.reason = (rnd() & 1) ? MRC_NACK_TRIMMED : MRC_NACK_NO_RESOURCE;
			p.nack.ev = rnd();
			p.nack.src_conn = (uint16_t)rnd();
			p.nack.dst_conn = (uint16_t)rnd();
			p.nack.nack_psn = rnd() & MRC_PSN_MASK;
			len = mrc_pkt_encode_ip6(icrc_ctx, &p, buf, sizeof(buf));
			break;
		case 6:
			len = data_pkt(buf, qpn, rnd());
			if (len > 0)
				buf[len - 1] ^= 0x5a;
			break;
		default:
			base(&p, (rnd() & 1) ? MRC_OP_EP_RESP : MRC_OP_EP_REQ, MRC_QPN_EP);
			p.ep.kind = (rnd() & 1) ? MRC_EP_CONNECT : MRC_EP_CLOSE;
			p.ep.token = (uint16_t)rnd();
			p.ep.conn.dst_service = (uint16_t)rnd();
			p.ep.conn.src_service = (uint16_t)rnd();
			p.ep.conn.src_qpn = rnd() & MRC_QPN_MASK;
			p.ep.conn.dst_qpn = (rnd() & 1) ? qpn : rnd() & MRC_QPN_MASK;
			p.ep.conn.src_conn = (uint16_t)rnd();
			p.ep.conn.dst_conn = (uint16_t)rnd();
			p.ep.conn.status = rnd() % MRC_EP_ST_NR;
			len = mrc_pkt_encode_ip6(icrc_ctx, &p, buf, sizeof(buf));
			break;
		}
		if (len < 0)
			len = 0;
		if (send(fd, buf, len, 0) < 0) {
			perror("send");
			return 1;
		}
		sent[k]++;
		if (!(i % 64))
			usleep(1000);	/* leave the receiver's backlog some room */
	}
	printf("injected %lu: random %lu badop %lu noqpn %lu oow %lu sack %lu nack %lu badicrc %lu hs %lu\n",
	       count, sent[0], sent[1], sent[2], sent[3], sent[4], sent[5], sent[6], sent[7]);
	return 0;
}
