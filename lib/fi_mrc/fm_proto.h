/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The provider's framing: every AF_MRC message of a libfabric connection
 * starts with one fixed 48-byte header (Documentation/networking/
 * mrc-libfabric.rst, "Framing"). Pure functions, no libfabric state, so
 * that the host's unit tests cover them.
 */
#ifndef FM_PROTO_H
#define FM_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define FM_MAGIC	0x4d	/* 'M' */
#define FM_VERSION	1
#define FM_HDR_LEN	48
/* Longest connection data fi_connect()/fi_accept()/fi_reject() carry. */
#define FM_CM_DATA_MAX	256

enum fm_op {
	FM_OP_MSG = 1,		/* a message: payload to a posted receive */
	FM_OP_CM_REQ = 2,	/* first message of a client: connect data */
	FM_OP_CM_ACCEPT = 3,	/* first message of a server: accept data */
	FM_OP_CM_REJECT = 4,	/* the server's only message: reject data */
	FM_OP_WRITE = 5,	/* RMA write: payload to (key, addr) */
	FM_OP_READ_REQ = 6,	/* RMA read request: len bytes at (key, addr) */
	FM_OP_READ_RESP = 7,	/* its answer: status, payload */
	FM_OP_MAX = FM_OP_READ_RESP,
};

/* hdr.flags */
#define FM_HDR_F_DATA	0x1	/* hdr.data is remote CQ data */

struct fm_hdr {
	uint8_t op;
	uint32_t flags;
	uint64_t data;		/* remote CQ data (FM_HDR_F_DATA) */
	uint64_t addr;		/* RMA: address or offset in the region */
	uint64_t key;		/* RMA: key of the region */
	uint64_t len;		/* READ_REQ: bytes asked for */
	uint32_t id;		/* READ_REQ/READ_RESP: the request */
	int32_t status;		/* READ_RESP: 0 or a negative fi_errno */
};

/* fm_hdr_encode() - @h to FM_HDR_LEN bytes at @buf, little-endian. */
void fm_hdr_encode(const struct fm_hdr *h, uint8_t *buf);

/*
 * fm_hdr_decode() - FM_HDR_LEN bytes to @h
 * Return: 0, or -1 if @len is short, the magic or version is not ours, the
 * op is unknown or a reserved byte or flag is set.
 */
int fm_hdr_decode(const uint8_t *buf, size_t len, struct fm_hdr *h);

const char *fm_op_name(int op);

#endif /* FM_PROTO_H */
