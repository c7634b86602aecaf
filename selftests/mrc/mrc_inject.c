// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_inject - send malformed and hostile MRC packets at a live connection.
 *
 *   mrc_inject -d ADDR -q QPN -c CACK [-n COUNT] [-b SRCADDR] [-s SEED]
 *
 * Plain UDP to ADDR port 4791 (from SRCADDR if given). Packets are built
 * with the project's own codec (kmod/core/mrc_wire.c, compiled in), in
 * rounds of eight kinds:
 *   0 random bytes of random length 0..63 (mostly truncated)
 *   1 an undefined opcode, valid ICRC
 *   2 a data packet to a QPN nobody owns
 *   3 a data packet to QPN with a PSN 2^22..2^23 ahead of CACK (out of
 *     the receive window however far the connection moved)
 *   4 a SACK to QPN with random connection ids and fields
 *   5 a NACK to QPN with random connection ids (never UNEXP_EVENT)
 *   6 a data packet to QPN with its ICRC broken
 *   7 a connect response / close request with random token and ids
 * Prints how many packets of each kind were sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mrc_wire.h"

static uint64_t rs;

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
	return mrc_pkt_encode(&p, buf, 2048);
}

int main(int argc, char **argv)
{
	struct sockaddr_in6 dst = { .sin6_family = AF_INET6, .sin6_port = htons(MRC_UDP_PORT) };
	struct sockaddr_in6 src = { .sin6_family = AF_INET6 };
	unsigned long count = 10000, sent[8] = { 0 }, i;
	uint32_t qpn = 0, cack = 0;
	const char *bind_addr = NULL;
	uint8_t buf[2048];
	struct mrc_pkt p;
	int fd, c, len, k;

	rs = 12345;
	while ((c = getopt(argc, argv, "d:q:c:n:b:s:")) != -1) {
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
		default:
			fprintf(stderr, "usage: mrc_inject -d ADDR -q QPN -c CACK [-n N] [-b SRC]\n");
			return 2;
		}
	}
	if (!qpn)
		return 2;
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
			len = mrc_pkt_encode(&p, buf, sizeof(buf));
			/* an opcode MRC 1.0 does not define, ICRC recomputed */
			do
				buf[0] = (uint8_t)rnd();
			while (mrc_op_valid(buf[0]));
			len = mrc_pkt_finish(buf, MRC_BTH_LEN + 32, sizeof(buf));
			break;
		case 2:
			len = data_pkt(buf, 0x10 + rnd() % 0x1000, rnd());
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
			len = mrc_pkt_encode(&p, buf, sizeof(buf));
			break;
		case 5:
			base(&p, MRC_OP_NACK, qpn);
			p.nack.reason = (rnd() & 1) ? MRC_NACK_TRIMMED : MRC_NACK_NO_RESOURCE;
			p.nack.ev = rnd();
			p.nack.src_conn = (uint16_t)rnd();
			p.nack.dst_conn = (uint16_t)rnd();
			p.nack.nack_psn = rnd() & MRC_PSN_MASK;
			p.nack.mpr = (uint8_t)rnd();
			len = mrc_pkt_encode(&p, buf, sizeof(buf));
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
			len = mrc_pkt_encode(&p, buf, sizeof(buf));
			break;
		}
		if (len < 0)
			len = 0;
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0) {
			perror("sendto");
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
