// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* The provider's message header, both ways (fm_proto.h). */
#include <string.h>

#include "fm_proto.h"

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;

	for (int i = 3; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/*
 *  0: magic 'M'   1: version   2: op   3: reserved 0
 *  4: flags (32)  8: data  16: addr  24: key  32: len  40: id  44: status
 */
void fm_hdr_encode(const struct fm_hdr *h, uint8_t *buf)
{
	buf[0] = FM_MAGIC;
	buf[1] = FM_VERSION;
	buf[2] = h->op;
	buf[3] = 0;
	put32(buf + 4, h->flags);
	put64(buf + 8, h->data);
	put64(buf + 16, h->addr);
	put64(buf + 24, h->key);
	put64(buf + 32, h->len);
	put32(buf + 40, h->id);
	put32(buf + 44, (uint32_t)h->status);
}

int fm_hdr_decode(const uint8_t *buf, size_t len, struct fm_hdr *h)
{
	if (len < FM_HDR_LEN || buf[0] != FM_MAGIC || buf[1] != FM_VERSION ||
	    buf[3] != 0)
		return -1;
	memset(h, 0, sizeof(*h));
	h->op = buf[2];
	if (h->op < FM_OP_MSG || h->op > FM_OP_MAX)
		return -1;
	h->flags = get32(buf + 4);
	if (h->flags & ~(uint32_t)FM_HDR_F_DATA)
		return -1;
	h->data = get64(buf + 8);
	h->addr = get64(buf + 16);
	h->key = get64(buf + 24);
	h->len = get64(buf + 32);
	h->id = get32(buf + 40);
	h->status = (int32_t)get32(buf + 44);
	return 0;
}

const char *fm_op_name(int op)
{
	static const char *const names[] = {
		[FM_OP_MSG] = "msg", [FM_OP_CM_REQ] = "cm_req",
		[FM_OP_CM_ACCEPT] = "cm_accept", [FM_OP_CM_REJECT] = "cm_reject",
		[FM_OP_WRITE] = "write", [FM_OP_READ_REQ] = "read_req",
		[FM_OP_READ_RESP] = "read_resp",
	};

	if (op < FM_OP_MSG || op > FM_OP_MAX)
		return "unknown";
	return names[op];
}
