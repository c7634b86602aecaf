// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * mrc_wire.c - MRC 1.0 wire codec: accessors, header codecs, ICRC.
 *
 * Only this file knows the byte order: every field is assembled byte by byte
 * (big-endian), so there are no unaligned loads and no host-endian
 * assumptions. Decoders check the length before every read.
 */
#include "mrc_wire.h"

/* ---- byte-order accessors ---- */

static inline u16 get_be16(const u8 *p)
{
	return (u16)(((u16)p[0] << 8) | p[1]);
}

static inline u32 get_be24(const u8 *p)
{
	return ((u32)p[0] << 16) | ((u32)p[1] << 8) | p[2];
}

static inline u32 get_be32(const u8 *p)
{
	return ((u32)p[0] << 24) | ((u32)p[1] << 16) | ((u32)p[2] << 8) | p[3];
}

static inline u64 get_be64(const u8 *p)
{
	return ((u64)get_be32(p) << 32) | get_be32(p + 4);
}

static inline void put_be16(u8 *p, u16 v)
{
	p[0] = (u8)(v >> 8);
	p[1] = (u8)v;
}

static inline void put_be24(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 16);
	p[1] = (u8)(v >> 8);
	p[2] = (u8)v;
}

static inline void put_be32(u8 *p, u32 v)
{
	p[0] = (u8)(v >> 24);
	p[1] = (u8)(v >> 16);
	p[2] = (u8)(v >> 8);
	p[3] = (u8)v;
}

static inline void put_be64(u8 *p, u64 v)
{
	put_be32(p, (u32)(v >> 32));
	put_be32(p + 4, (u32)v);
}

/* ---- names ---- */

/**
 * mrc_op_valid() - is @op an opcode of MRC 1.0?
 * @op: BTH opcode
 *
 * Return: true for the twelve opcodes of enum mrc_opcode.
 */
bool mrc_op_valid(u8 op)
{
	switch (op) {
	case MRC_OP_WRITE_FIRST:
	case MRC_OP_WRITE_MIDDLE:
	case MRC_OP_WRITE_LAST:
	case MRC_OP_WRITE_LAST_IMM:
	case MRC_OP_WRITE_ONLY:
	case MRC_OP_WRITE_ONLY_IMM:
	case MRC_OP_ACK:
	case MRC_OP_EP_REQ:
	case MRC_OP_EP_RESP:
	case MRC_OP_SACK:
	case MRC_OP_NACK:
	case MRC_OP_PROBE:
		return true;
	default:
		return false;
	}
}

/**
 * mrc_opcode_name() - short name of an opcode, for logs and tracepoints.
 * @op: BTH opcode
 *
 * Return: a static string, "UNKNOWN" for undefined opcodes.
 */
const char *mrc_opcode_name(u8 op)
{
	switch (op) {
	case MRC_OP_WRITE_FIRST:
		return "WRITE_FIRST";
	case MRC_OP_WRITE_MIDDLE:
		return "WRITE_MIDDLE";
	case MRC_OP_WRITE_LAST:
		return "WRITE_LAST";
	case MRC_OP_WRITE_LAST_IMM:
		return "WRITE_LAST_IMM";
	case MRC_OP_WRITE_ONLY:
		return "WRITE_ONLY";
	case MRC_OP_WRITE_ONLY_IMM:
		return "WRITE_ONLY_IMM";
	case MRC_OP_ACK:
		return "ACK";
	case MRC_OP_EP_REQ:
		return "EP_REQ";
	case MRC_OP_EP_RESP:
		return "EP_RESP";
	case MRC_OP_SACK:
		return "SACK";
	case MRC_OP_NACK:
		return "NACK";
	case MRC_OP_PROBE:
		return "PROBE";
	default:
		return "UNKNOWN";
	}
}

/**
 * mrc_nack_reason_valid() - is @reason a NACK reason of MRC 1.0?
 * @reason: NACK reason byte
 *
 * Return: true for the codes of enum mrc_nack_reason.
 */
bool mrc_nack_reason_valid(u8 reason)
{
	switch (reason) {
	case MRC_NACK_TRIMMED:
	case MRC_NACK_TRIMMED_LASTHOP:
	case MRC_NACK_NO_BITMAP:
	case MRC_NACK_NO_PKT_BUFFER:
	case MRC_NACK_NO_RESOURCE:
	case MRC_NACK_PSN_OOR_WINDOW:
	case MRC_NACK_UNEXP_EVENT:
		return true;
	default:
		return false;
	}
}

/**
 * mrc_nack_reason_name() - short name of a NACK reason.
 * @reason: NACK reason byte
 *
 * Return: a static string, "UNKNOWN" for undefined codes.
 */
const char *mrc_nack_reason_name(u8 reason)
{
	switch (reason) {
	case MRC_NACK_TRIMMED:
		return "TRIMMED";
	case MRC_NACK_TRIMMED_LASTHOP:
		return "TRIMMED_LASTHOP";
	case MRC_NACK_NO_BITMAP:
		return "NO_BITMAP";
	case MRC_NACK_NO_PKT_BUFFER:
		return "NO_PKT_BUFFER";
	case MRC_NACK_NO_RESOURCE:
		return "NO_RESOURCE";
	case MRC_NACK_PSN_OOR_WINDOW:
		return "PSN_OOR_WINDOW";
	case MRC_NACK_UNEXP_EVENT:
		return "UNEXP_EVENT";
	default:
		return "UNKNOWN";
	}
}

static const char * const mrc_wire_errstr[MRC_WIRE_ERR_COUNT] = {
	[0] = "ok",
	[-MRC_WIRE_ETRUNC] = "truncated header",
	[-MRC_WIRE_ENOSPC] = "buffer too small",
	[-MRC_WIRE_EOPCODE] = "unknown opcode",
	[-MRC_WIRE_EVERSION] = "unsupported transport version",
	[-MRC_WIRE_ERESV] = "reserved field not zero",
	[-MRC_WIRE_EFLAGS] = "flag not allowed with opcode",
	[-MRC_WIRE_EPAD] = "bad padding",
	[-MRC_WIRE_ELEN] = "bad packet length",
	[-MRC_WIRE_ERETH] = "RETH offset/length inconsistent",
	[-MRC_WIRE_EICRC] = "ICRC mismatch",
	[-MRC_WIRE_ERANGE] = "field out of range",
	[-MRC_WIRE_EVALUE] = "undefined field value",
	[-MRC_WIRE_EREASON] = "unknown NACK reason",
	[-MRC_WIRE_EQPN] = "opcode not allowed on this QP",
	[-MRC_WIRE_EINVAL] = "invalid argument",
};

/**
 * mrc_wire_strerror() - describe an enum mrc_wire_err code.
 * @err: 0 or a negative enum mrc_wire_err value
 *
 * Return: a static string, never NULL.
 */
const char *mrc_wire_strerror(int err)
{
	if (err > 0 || err <= -MRC_WIRE_ERR_COUNT)
		return "unknown error";
	return mrc_wire_errstr[-err];
}

/* ---- ICRC ---- */

/**
 * mrc_icrc_update() - feed bytes into a running ICRC.
 * @state: mrc_icrc_begin() or a previous mrc_icrc_update() result
 * @p: bytes (may be NULL when @len is 0)
 * @len: number of bytes
 *
 * Lets a host compute the ICRC over scattered buffers (skb frags). The
 * CRC itself is the platform's (mrc_platform.h): the kernel's crc32_le()
 * (slice-by-8, or the architecture's folding code) in mrc.ko, zlib's in
 * userspace. A byte-wise table here cost 2.4 ns per byte, ten times a
 * slice-by-8 CRC and the largest single cost of a data packet.
 *
 * Return: the new running state; finish with mrc_icrc_end().
 */
u32 mrc_icrc_update(u32 state, const u8 *p, u32 len)
{
	if (!len)
		return state;
	return mrc_plat_crc32_le(state, p, len);
}

/**
 * mrc_icrc() - ICRC of a contiguous buffer.
 * @p: bytes from the BTH to the end of the pad
 * @len: number of bytes
 *
 * Return: CRC-32 (IEEE 802.3) of the bytes; "123456789" gives 0xcbf43926.
 */
u32 mrc_icrc(const u8 *p, u32 len)
{
	return mrc_icrc_end(mrc_icrc_update(mrc_icrc_begin(), p, len));
}

/**
 * mrc_pkt_icrc_ok() - does a whole packet end with its own ICRC?
 * @buf: UDP payload, from the BTH to the end of the ICRC
 * @len: bytes at @buf (at least MRC_ICRC_LEN)
 *
 * For hosts that decode with MRC_DECODE_NO_ICRC first and verify later.
 *
 * Return: true if the last four bytes are the ICRC of the ones before.
 */
bool mrc_pkt_icrc_ok(const u8 *buf, u32 len)
{
	if (len < MRC_ICRC_LEN)
		return false;
	return mrc_icrc(buf, len - MRC_ICRC_LEN) ==
	       get_be32(buf + len - MRC_ICRC_LEN);
}

/* ---- BTH ---- */

#define BTH_B1_SE	0x80u
#define BTH_B1_M	0x40u
#define BTH_B1_PAD_SHIFT 4
#define BTH_B1_TVER	0x0fu
#define BTH_B8_A	0x80u
#define BTH_B8_RESV	0x4fu
#define BTH_B8_RTX	0x20u
#define BTH_B8_TS	0x10u

/**
 * mrc_bth_encode() - write a BTH.
 * @h: header, host order
 * @buf: output
 * @cap: bytes available at @buf
 *
 * Return: MRC_BTH_LEN, or -EOPCODE, -EVERSION, -ERANGE, -ENOSPC.
 */
int mrc_bth_encode(const struct mrc_bth *h, u8 *buf, u32 cap)
{
	if (!mrc_op_valid(h->opcode))
		return MRC_WIRE_EOPCODE;
	if (h->tver != MRC_TVER)
		return MRC_WIRE_EVERSION;
	if (h->pad_cnt > 3 || h->dest_qp > MRC_QPN_MASK || h->psn > MRC_PSN_MASK)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_BTH_LEN)
		return MRC_WIRE_ENOSPC;
	buf[0] = h->opcode;
	buf[1] = (u8)((h->se ? BTH_B1_SE : 0) | (h->m ? BTH_B1_M : 0) |
		      (h->pad_cnt << BTH_B1_PAD_SHIFT) | h->tver);
	put_be16(buf + 2, h->pkey);
	buf[4] = 0;
	put_be24(buf + 5, h->dest_qp);
	buf[8] = (u8)((h->ack_req ? BTH_B8_A : 0) | (h->rtx ? BTH_B8_RTX : 0) |
		      (h->ts ? BTH_B8_TS : 0));
	put_be24(buf + 9, h->psn);
	return MRC_BTH_LEN;
}

/**
 * mrc_bth_decode() - read a BTH.
 * @buf: input
 * @len: bytes available at @buf
 * @h: output, host order
 *
 * Return: MRC_BTH_LEN, or -ETRUNC, -EOPCODE, -EVERSION, -ERESV.
 */
int mrc_bth_decode(const u8 *buf, u32 len, struct mrc_bth *h)
{
	if (len < MRC_BTH_LEN)
		return MRC_WIRE_ETRUNC;
	if (!mrc_op_valid(buf[0]))
		return MRC_WIRE_EOPCODE;
	if ((buf[1] & BTH_B1_TVER) != MRC_TVER)
		return MRC_WIRE_EVERSION;
	if (buf[4] != 0 || (buf[8] & BTH_B8_RESV))
		return MRC_WIRE_ERESV;
	h->opcode = buf[0];
	h->se = !!(buf[1] & BTH_B1_SE);
	h->m = !!(buf[1] & BTH_B1_M);
	h->pad_cnt = (buf[1] >> BTH_B1_PAD_SHIFT) & 3u;
	h->tver = buf[1] & BTH_B1_TVER;
	h->pkey = get_be16(buf + 2);
	h->dest_qp = get_be24(buf + 5);
	h->ack_req = !!(buf[8] & BTH_B8_A);
	h->rtx = !!(buf[8] & BTH_B8_RTX);
	h->ts = !!(buf[8] & BTH_B8_TS);
	h->psn = get_be24(buf + 9);
	return MRC_BTH_LEN;
}

/* ---- METH, TSETH, RETH, ImmDt, AETH ---- */

/**
 * mrc_meth_encode() - write a METH.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_METH_LEN or -ENOSPC.
 */
int mrc_meth_encode(const struct mrc_meth *h, u8 *buf, u32 cap)
{
	if (cap < MRC_METH_LEN)
		return MRC_WIRE_ENOSPC;
	put_be16(buf, h->rqmsn);
	put_be16(buf + 2, h->msn);
	return MRC_METH_LEN;
}

/**
 * mrc_meth_decode() - read a METH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_METH_LEN or -ETRUNC.
 */
int mrc_meth_decode(const u8 *buf, u32 len, struct mrc_meth *h)
{
	if (len < MRC_METH_LEN)
		return MRC_WIRE_ETRUNC;
	h->rqmsn = get_be16(buf);
	h->msn = get_be16(buf + 2);
	return MRC_METH_LEN;
}

/**
 * mrc_tseth_encode() - write a TSETH.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_TSETH_LEN or -ENOSPC.
 */
int mrc_tseth_encode(const struct mrc_tseth *h, u8 *buf, u32 cap)
{
	if (cap < MRC_TSETH_LEN)
		return MRC_WIRE_ENOSPC;
	put_be16(buf, h->tx_ts);
	put_be16(buf + 2, h->flags);
	return MRC_TSETH_LEN;
}

/**
 * mrc_tseth_decode() - read a TSETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_TSETH_LEN or -ETRUNC.
 */
int mrc_tseth_decode(const u8 *buf, u32 len, struct mrc_tseth *h)
{
	if (len < MRC_TSETH_LEN)
		return MRC_WIRE_ETRUNC;
	h->tx_ts = get_be16(buf);
	h->flags = get_be16(buf + 2);
	return MRC_TSETH_LEN;
}

/**
 * mrc_reth_encode() - write a RETH.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_RETH_LEN, -ERETH if va > dma_len, or -ENOSPC.
 */
int mrc_reth_encode(const struct mrc_reth *h, u8 *buf, u32 cap)
{
	if (h->va > h->dma_len)
		return MRC_WIRE_ERETH;
	if (cap < MRC_RETH_LEN)
		return MRC_WIRE_ENOSPC;
	put_be64(buf, h->va);
	put_be32(buf + 8, h->rkey);
	put_be32(buf + 12, h->dma_len);
	return MRC_RETH_LEN;
}

/**
 * mrc_reth_decode() - read a RETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_RETH_LEN, -ETRUNC, or -ERETH if va > dma_len.
 */
int mrc_reth_decode(const u8 *buf, u32 len, struct mrc_reth *h)
{
	if (len < MRC_RETH_LEN)
		return MRC_WIRE_ETRUNC;
	h->va = get_be64(buf);
	h->rkey = get_be32(buf + 8);
	h->dma_len = get_be32(buf + 12);
	if (h->va > h->dma_len)
		return MRC_WIRE_ERETH;
	return MRC_RETH_LEN;
}

/**
 * mrc_imm_encode() - write ImmDt.
 * @imm: immediate data
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_IMM_LEN or -ENOSPC.
 */
int mrc_imm_encode(u32 imm, u8 *buf, u32 cap)
{
	if (cap < MRC_IMM_LEN)
		return MRC_WIRE_ENOSPC;
	put_be32(buf, imm);
	return MRC_IMM_LEN;
}

/**
 * mrc_imm_decode() - read ImmDt.
 * @buf: input
 * @len: bytes available
 * @imm: output
 *
 * Return: MRC_IMM_LEN or -ETRUNC.
 */
int mrc_imm_decode(const u8 *buf, u32 len, u32 *imm)
{
	if (len < MRC_IMM_LEN)
		return MRC_WIRE_ETRUNC;
	*imm = get_be32(buf);
	return MRC_IMM_LEN;
}

/**
 * mrc_aeth_encode() - write an AETH.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_AETH_LEN or -ENOSPC.
 */
int mrc_aeth_encode(const struct mrc_aeth *h, u8 *buf, u32 cap)
{
	if (cap < MRC_AETH_LEN)
		return MRC_WIRE_ENOSPC;
	buf[0] = h->syndrome;
	buf[1] = 0;
	put_be16(buf + 2, h->msn);
	return MRC_AETH_LEN;
}

/**
 * mrc_aeth_decode() - read an AETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_AETH_LEN, -ETRUNC or -ERESV.
 */
int mrc_aeth_decode(const u8 *buf, u32 len, struct mrc_aeth *h)
{
	if (len < MRC_AETH_LEN)
		return MRC_WIRE_ETRUNC;
	if (buf[1] != 0)
		return MRC_WIRE_ERESV;
	h->syndrome = buf[0];
	h->msn = get_be16(buf + 2);
	return MRC_AETH_LEN;
}

/* ---- SACK (+ CC state) ---- */

#define SACK_B1_ECN_SHIFT 6
#define SACK_B1_PR	0x20u
#define SACK_B1_RESV	0x1fu
#define CC_OOO_MAX	0x7fffu
#define CC_PENALTY_MAX	0x7fu
#define CC_B4_RESV	0x80u

/**
 * mrc_sack_encode() - write a SACK with its trailing CC state.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_SACK_LEN, -EVALUE (ecn > 2), -ERANGE, or -ENOSPC.
 */
int mrc_sack_encode(const struct mrc_sack *h, u8 *buf, u32 cap)
{
	if (h->ecn > MRC_ECN_ALWAYS_SKIP)
		return MRC_WIRE_EVALUE;
	if (h->cack_psn > MRC_PSN_MASK || h->cc_type > 0xf || h->cc_flags > 0xf ||
	    h->cc.ooo_count > CC_OOO_MAX || h->cc.rwnd_penalty > CC_PENALTY_MAX ||
	    h->cc.bytes_rcvd > 0xffffffu)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_SACK_LEN)
		return MRC_WIRE_ENOSPC;
	buf[0] = (MRC_SACK_HDR_TYPE << 4) | MRC_SACK_NEXT_CC;
	buf[1] = (u8)((h->ecn << SACK_B1_ECN_SHIFT) | (h->pr ? SACK_B1_PR : 0));
	put_be16(buf + 2, h->ack_psn_off);
	put_be32(buf + 4, h->ev);
	put_be16(buf + 8, h->src_conn);
	put_be16(buf + 10, h->dst_conn);
	put_be24(buf + 12, h->cack_psn);
	buf[15] = (u8)((h->cc_type << 4) | h->cc_flags);
	buf[16] = h->mpr;
	buf[17] = 0;
	put_be16(buf + 18, h->sack_offset);
	put_be64(buf + 20, h->bitmap);
	/* CC state */
	put_be16(buf + 28, h->cc.echoed_ts);
	put_be16(buf + 30, (u16)((h->cc.ooo_count << 1) | (h->cc.restore_cwnd ? 1 : 0)));
	buf[32] = h->cc.rwnd_penalty;
	put_be24(buf + 33, h->cc.bytes_rcvd);
	return MRC_SACK_LEN;
}

/**
 * mrc_sack_decode() - read a SACK with its trailing CC state.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_SACK_LEN, -ETRUNC, -EVALUE (type/next, ecn 3) or -ERESV.
 */
int mrc_sack_decode(const u8 *buf, u32 len, struct mrc_sack *h)
{
	u16 w;

	if (len < MRC_SACK_LEN)
		return MRC_WIRE_ETRUNC;
	if (buf[0] != ((MRC_SACK_HDR_TYPE << 4) | MRC_SACK_NEXT_CC))
		return MRC_WIRE_EVALUE;
	if ((buf[1] >> SACK_B1_ECN_SHIFT) > MRC_ECN_ALWAYS_SKIP)
		return MRC_WIRE_EVALUE;
	if ((buf[1] & SACK_B1_RESV) || buf[17] != 0 || (buf[32] & CC_B4_RESV))
		return MRC_WIRE_ERESV;
	h->ecn = buf[1] >> SACK_B1_ECN_SHIFT;
	h->pr = !!(buf[1] & SACK_B1_PR);
	h->ack_psn_off = get_be16(buf + 2);
	h->ev = get_be32(buf + 4);
	h->src_conn = get_be16(buf + 8);
	h->dst_conn = get_be16(buf + 10);
	h->cack_psn = get_be24(buf + 12);
	h->cc_type = buf[15] >> 4;
	h->cc_flags = buf[15] & 0xfu;
	h->mpr = buf[16];
	h->sack_offset = get_be16(buf + 18);
	h->bitmap = get_be64(buf + 20);
	h->cc.echoed_ts = get_be16(buf + 28);
	w = get_be16(buf + 30);
	h->cc.ooo_count = w >> 1;
	h->cc.restore_cwnd = w & 1u;
	h->cc.rwnd_penalty = buf[32];
	h->cc.bytes_rcvd = get_be24(buf + 33);
	return MRC_SACK_LEN;
}

/* ---- NACK ---- */

/**
 * mrc_nack_encode() - write a NACK.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_NACK_LEN, -EREASON, -ERANGE or -ENOSPC.
 */
int mrc_nack_encode(const struct mrc_nack *h, u8 *buf, u32 cap)
{
	if (!mrc_nack_reason_valid(h->reason))
		return MRC_WIRE_EREASON;
	if (h->nack_psn > MRC_PSN_MASK || h->cc_type > 0xf || h->cc_flags > 0xf)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_NACK_LEN)
		return MRC_WIRE_ENOSPC;
	buf[0] = h->reason;
	buf[1] = h->vendor;
	put_be16(buf + 2, h->tx_ts);
	put_be32(buf + 4, h->ev);
	put_be16(buf + 8, h->src_conn);
	put_be16(buf + 10, h->dst_conn);
	put_be24(buf + 12, h->nack_psn);
	buf[15] = (u8)((h->cc_type << 4) | h->cc_flags);
	buf[16] = h->mpr;
	put_be24(buf + 17, 0);
	return MRC_NACK_LEN;
}

/**
 * mrc_nack_decode() - read a NACK.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_NACK_LEN, -ETRUNC, -EREASON or -ERESV.
 */
int mrc_nack_decode(const u8 *buf, u32 len, struct mrc_nack *h)
{
	if (len < MRC_NACK_LEN)
		return MRC_WIRE_ETRUNC;
	if (!mrc_nack_reason_valid(buf[0]))
		return MRC_WIRE_EREASON;
	if (get_be24(buf + 17) != 0)
		return MRC_WIRE_ERESV;
	h->reason = buf[0];
	h->vendor = buf[1];
	h->tx_ts = get_be16(buf + 2);
	h->ev = get_be32(buf + 4);
	h->src_conn = get_be16(buf + 8);
	h->dst_conn = get_be16(buf + 10);
	h->nack_psn = get_be24(buf + 12);
	h->cc_type = buf[15] >> 4;
	h->cc_flags = buf[15] & 0xfu;
	h->mpr = buf[16];
	return MRC_NACK_LEN;
}

/* ---- probe ---- */

/**
 * mrc_probe_encode() - write a probe body.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_PROBE_LEN or -ENOSPC.
 */
int mrc_probe_encode(const struct mrc_probe *h, u8 *buf, u32 cap)
{
	if (cap < MRC_PROBE_LEN)
		return MRC_WIRE_ENOSPC;
	put_be16(buf, h->probe_id);
	put_be16(buf + 2, 0);
	put_be16(buf + 4, h->src_conn);
	put_be16(buf + 6, h->dst_conn);
	put_be16(buf + 8, h->tx_ts);
	put_be16(buf + 10, 0);
	put_be32(buf + 12, h->ev);
	return MRC_PROBE_LEN;
}

/**
 * mrc_probe_decode() - read a probe body.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_PROBE_LEN, -ETRUNC or -ERESV.
 */
int mrc_probe_decode(const u8 *buf, u32 len, struct mrc_probe *h)
{
	if (len < MRC_PROBE_LEN)
		return MRC_WIRE_ETRUNC;
	if (get_be16(buf + 2) != 0 || get_be16(buf + 10) != 0)
		return MRC_WIRE_ERESV;
	h->probe_id = get_be16(buf);
	h->src_conn = get_be16(buf + 4);
	h->dst_conn = get_be16(buf + 6);
	h->tx_ts = get_be16(buf + 8);
	h->ev = get_be32(buf + 12);
	return MRC_PROBE_LEN;
}

/* ---- endpoint operations ---- */

static int mrc_ep_check(u8 kind, u32 ev, u32 port_mask)
{
	switch (kind) {
	case MRC_EP_EV_PROBE:
		return port_mask ? MRC_WIRE_ERESV : 0;
	case MRC_EP_PORT_STATUS:
		return ev ? MRC_WIRE_ERESV : 0;
	case MRC_EP_CONNECT:
	case MRC_EP_CLOSE:
		return ev || port_mask ? MRC_WIRE_ERESV : 0;
	default:
		return MRC_WIRE_EVALUE;
	}
}

/* Bytes of the endpoint body (header + connect body) of @kind. */
static u32 mrc_ep_len(u8 kind)
{
	return MRC_EP_LEN + (mrc_ep_kind_has_conn(kind) ? MRC_EP_CONN_LEN : 0);
}

static int mrc_ep_conn_encode(const struct mrc_ep_conn *h, u8 *buf)
{
	if (h->src_qpn > MRC_QPN_MASK || h->dst_qpn > MRC_QPN_MASK ||
	    h->init_psn > MRC_PSN_MASK)
		return MRC_WIRE_ERANGE;
	if (h->status >= MRC_EP_ST_NR)
		return MRC_WIRE_EVALUE;
	put_be16(buf, h->dst_service);
	put_be16(buf + 2, h->src_service);
	put_be24(buf + 4, h->src_qpn);
	buf[7] = h->status;
	put_be24(buf + 8, h->dst_qpn);
	buf[11] = 0;
	put_be16(buf + 12, h->src_conn);
	put_be16(buf + 14, h->dst_conn);
	put_be24(buf + 16, h->init_psn);
	buf[19] = 0;
	put_be32(buf + 20, h->max_msg_len);
	return 0;
}

static int mrc_ep_conn_decode(const u8 *buf, struct mrc_ep_conn *h)
{
	if (buf[11] || buf[19])
		return MRC_WIRE_ERESV;
	if (buf[7] >= MRC_EP_ST_NR)
		return MRC_WIRE_EVALUE;
	h->dst_service = get_be16(buf);
	h->src_service = get_be16(buf + 2);
	h->src_qpn = get_be24(buf + 4);
	h->status = buf[7];
	h->dst_qpn = get_be24(buf + 8);
	h->src_conn = get_be16(buf + 12);
	h->dst_conn = get_be16(buf + 14);
	h->init_psn = get_be24(buf + 16);
	h->max_msg_len = get_be32(buf + 20);
	return 0;
}

/**
 * mrc_ep_encode() - write an endpoint request/response body.
 * @h: header (and, for MRC_EP_CONNECT/MRC_EP_CLOSE, h->conn)
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_EP_LEN (MRC_EP_LEN + MRC_EP_CONN_LEN for the handshake
 * kinds), -EVALUE (kind, status), -ERESV (field unused by the kind is not
 * zero), -ERANGE (QPN or PSN wider than 24 bits) or -ENOSPC.
 */
int mrc_ep_encode(const struct mrc_ep *h, u8 *buf, u32 cap)
{
	int err = mrc_ep_check(h->kind, h->ev, h->port_mask);
	u32 len = mrc_ep_len(h->kind);

	if (err)
		return err;
	if (cap < len)
		return MRC_WIRE_ENOSPC;
	if (mrc_ep_kind_has_conn(h->kind)) {
		err = mrc_ep_conn_encode(&h->conn, buf + MRC_EP_LEN);
		if (err)
			return err;
	}
	buf[0] = h->kind;
	buf[1] = 0;
	put_be16(buf + 2, h->token);
	put_be32(buf + 4, h->ev);
	put_be32(buf + 8, h->port_mask);
	put_be16(buf + 12, h->tx_ts);
	put_be16(buf + 14, 0);
	return (int)len;
}

/**
 * mrc_ep_decode() - read an endpoint request/response body.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: bytes read (MRC_EP_LEN, plus MRC_EP_CONN_LEN for the handshake
 * kinds), -ETRUNC, -EVALUE or -ERESV.
 */
int mrc_ep_decode(const u8 *buf, u32 len, struct mrc_ep *h)
{
	int err;

	if (len < MRC_EP_LEN)
		return MRC_WIRE_ETRUNC;
	if (buf[1] != 0 || get_be16(buf + 14) != 0)
		return MRC_WIRE_ERESV;
	err = mrc_ep_check(buf[0], get_be32(buf + 4), get_be32(buf + 8));
	if (err)
		return err;
	if (len < mrc_ep_len(buf[0]))
		return MRC_WIRE_ETRUNC;
	mrc_memset(&h->conn, 0, sizeof(h->conn));
	if (mrc_ep_kind_has_conn(buf[0])) {
		err = mrc_ep_conn_decode(buf + MRC_EP_LEN, &h->conn);
		if (err)
			return err;
	}
	h->kind = buf[0];
	h->token = get_be16(buf + 2);
	h->ev = get_be32(buf + 4);
	h->port_mask = get_be32(buf + 8);
	h->tx_ts = get_be16(buf + 12);
	return (int)mrc_ep_len(buf[0]);
}

/* ---- whole packets ---- */

static u32 mrc_ctl_body_len(u8 op, u8 ep_kind)
{
	switch (op) {
	case MRC_OP_ACK:
		return MRC_AETH_LEN;
	case MRC_OP_SACK:
		return MRC_SACK_LEN;
	case MRC_OP_NACK:
		return MRC_NACK_LEN;
	case MRC_OP_PROBE:
		return MRC_PROBE_LEN;
	case MRC_OP_EP_REQ:
	case MRC_OP_EP_RESP:
		return mrc_ep_len(ep_kind);
	default:
		return 0;
	}
}

/* @ep_kind: first body byte, only looked at for endpoint opcodes */
static u32 mrc_hdr_len_of(u8 op, bool ts, u8 ep_kind)
{
	if (!mrc_op_valid(op))
		return 0;
	if (!mrc_op_is_data(op))
		return MRC_BTH_LEN + mrc_ctl_body_len(op, ep_kind);
	return MRC_BTH_LEN + MRC_METH_LEN + (ts ? MRC_TSETH_LEN : 0) + MRC_RETH_LEN +
	       (mrc_op_has_imm(op) ? MRC_IMM_LEN : 0);
}

/**
 * mrc_pkt_hdr_len() - bytes of headers that @p encodes to.
 * @p: packet (only bth.opcode and bth.ts matter)
 *
 * Return: header length from BTH to the start of the payload (the whole
 * packet minus ICRC for control opcodes), 0 for an unknown opcode.
 */
u32 mrc_pkt_hdr_len(const struct mrc_pkt *p)
{
	return mrc_hdr_len_of(p->bth.opcode, p->bth.ts, p->ep.kind);
}

/* Rules shared by encoder and decoder: BTH flags and QP per opcode. */
static int mrc_check_bth(const struct mrc_bth *b)
{
	bool ep = b->opcode == MRC_OP_EP_REQ || b->opcode == MRC_OP_EP_RESP;
	bool ep_qp = b->dest_qp == MRC_QPN_EP;

	if (!mrc_op_is_data(b->opcode)) {
		if (b->se || b->ack_req || b->rtx || b->ts)
			return MRC_WIRE_EFLAGS;
		if (b->pad_cnt)
			return MRC_WIRE_EPAD;
	}
	if (ep != ep_qp)
		return MRC_WIRE_EQPN;
	return 0;
}

/*
 * RETH placement rules. va is the byte offset of the payload within the
 * message, dma_len the message length. With @have_payload false (trimmed
 * packet) only the rules not involving the payload length are checked.
 */
static int mrc_check_reth(u8 op, const struct mrc_reth *r, u32 payload_len,
			  bool have_payload)
{
	bool at_start = r->va == 0;
	bool at_end;
	u64 end;

	if (r->va > r->dma_len)
		return MRC_WIRE_ERETH;
	if (mrc_op_is_first(op) != at_start)
		return MRC_WIRE_ERETH;
	if (!have_payload)
		return 0;
	end = r->va + payload_len;
	if (end > r->dma_len)
		return MRC_WIRE_ERETH;
	at_end = end == r->dma_len;
	if (mrc_op_is_last(op) != at_end)
		return MRC_WIRE_ERETH;
	return 0;
}

/**
 * mrc_pkt_encode_hdr() - write all headers of a packet.
 * @p: packet; for data opcodes p->payload_len must be the data length so
 *     the RETH rules can be checked; p->payload is not read
 * @buf: output
 * @cap: bytes available
 *
 * The caller then appends payload_len data bytes and bth.pad_cnt zero
 * bytes, and calls mrc_pkt_finish(). Checks the same rules as the decoder.
 *
 * Return: header length (mrc_pkt_hdr_len()), or a negative enum
 * mrc_wire_err; nothing useful is in @buf on error.
 */
int mrc_pkt_encode_hdr(const struct mrc_pkt *p, u8 *buf, u32 cap)
{
	const struct mrc_bth *b = &p->bth;
	u32 hlen = mrc_pkt_hdr_len(p);
	u32 off;
	int n;

	if (!hlen)
		return MRC_WIRE_EOPCODE;
	n = mrc_check_bth(b);
	if (n)
		return n;
	if (!mrc_op_is_data(b->opcode) && p->payload_len)
		return MRC_WIRE_ELEN;
	if (mrc_op_is_data(b->opcode)) {
		n = mrc_check_reth(b->opcode, &p->reth, p->payload_len, true);
		if (n)
			return n;
	}
	if (cap < hlen)
		return MRC_WIRE_ENOSPC;
	n = mrc_bth_encode(b, buf, cap);
	if (n < 0)
		return n;
	off = MRC_BTH_LEN;
	switch (b->opcode) {
	case MRC_OP_ACK:
		n = mrc_aeth_encode(&p->aeth, buf + off, cap - off);
		break;
	case MRC_OP_SACK:
		n = mrc_sack_encode(&p->sack, buf + off, cap - off);
		break;
	case MRC_OP_NACK:
		n = mrc_nack_encode(&p->nack, buf + off, cap - off);
		break;
	case MRC_OP_PROBE:
		n = mrc_probe_encode(&p->probe, buf + off, cap - off);
		break;
	case MRC_OP_EP_REQ:
	case MRC_OP_EP_RESP:
		n = mrc_ep_encode(&p->ep, buf + off, cap - off);
		break;
	default:
		off += mrc_meth_encode(&p->meth, buf + off, cap - off);
		if (b->ts)
			off += mrc_tseth_encode(&p->tseth, buf + off, cap - off);
		n = mrc_reth_encode(&p->reth, buf + off, cap - off);
		if (n < 0)
			return n;
		off += n;
		n = 0;
		if (mrc_op_has_imm(b->opcode))
			n = mrc_imm_encode(p->imm, buf + off, cap - off);
		break;
	}
	if (n < 0)
		return n;
	return (int)(off + (u32)n);
}

/**
 * mrc_pkt_finish() - append the ICRC.
 * @buf: packet from BTH to the end of the pad
 * @len: bytes at @buf so far
 * @cap: bytes available at @buf
 *
 * Return: total packet length (@len + MRC_ICRC_LEN), -ENOSPC or -ERANGE.
 */
int mrc_pkt_finish(u8 *buf, u32 len, u32 cap)
{
	if (len > 0x7fffffffu - MRC_ICRC_LEN)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_ICRC_LEN || len > cap - MRC_ICRC_LEN)
		return MRC_WIRE_ENOSPC;
	put_be32(buf + len, mrc_icrc(buf, len));
	return (int)(len + MRC_ICRC_LEN);
}

/**
 * mrc_pkt_encode() - write a whole packet: headers, payload, pad, ICRC.
 * @p: packet; p->payload (p->payload_len bytes) is copied unless it already
 *     sits at @buf + header length
 * @buf: output
 * @cap: bytes available
 *
 * Return: total length, or a negative enum mrc_wire_err.
 */
int mrc_pkt_encode(const struct mrc_pkt *p, u8 *buf, u32 cap)
{
	u64 total;
	int hlen;

	if (p->payload_len && !p->payload)
		return MRC_WIRE_EINVAL;
	hlen = mrc_pkt_encode_hdr(p, buf, cap);
	if (hlen < 0)
		return hlen;
	total = (u64)hlen + p->payload_len + p->bth.pad_cnt + MRC_ICRC_LEN;
	if (total > 0x7fffffffu)
		return MRC_WIRE_ERANGE;
	if (total > cap)
		return MRC_WIRE_ENOSPC;
	if (p->payload_len && p->payload != buf + hlen)
		mrc_memcpy(buf + hlen, p->payload, p->payload_len);
	mrc_memset(buf + hlen + p->payload_len, 0, p->bth.pad_cnt);
	return mrc_pkt_finish(buf, (u32)total - MRC_ICRC_LEN, cap);
}

static int mrc_decode_ctl(const u8 *buf, u32 len, struct mrc_pkt *out)
{
	switch (out->bth.opcode) {
	case MRC_OP_ACK:
		return mrc_aeth_decode(buf, len, &out->aeth);
	case MRC_OP_SACK:
		return mrc_sack_decode(buf, len, &out->sack);
	case MRC_OP_NACK:
		return mrc_nack_decode(buf, len, &out->nack);
	case MRC_OP_PROBE:
		return mrc_probe_decode(buf, len, &out->probe);
	default:
		return mrc_ep_decode(buf, len, &out->ep);
	}
}

static int mrc_decode_data(const u8 *buf, u32 len, u32 hlen, bool trimmed,
			   struct mrc_pkt *out)
{
	u32 off = MRC_BTH_LEN;
	u32 wire, i;
	int n;

	off += mrc_meth_decode(buf + off, len - off, &out->meth);
	if (out->bth.ts)
		off += mrc_tseth_decode(buf + off, len - off, &out->tseth);
	n = mrc_reth_decode(buf + off, len - off, &out->reth);
	if (n < 0)
		return n;
	off += n;
	if (mrc_op_has_imm(out->bth.opcode))
		off += mrc_imm_decode(buf + off, len - off, &out->imm);
	if (trimmed) {
		out->trimmed = true;
		return mrc_check_reth(out->bth.opcode, &out->reth, 0, false);
	}
	/* bytes between the headers and the ICRC: data + pad */
	wire = len - hlen - MRC_ICRC_LEN;
	if (out->bth.pad_cnt > wire)
		return MRC_WIRE_EPAD;
	for (i = wire - out->bth.pad_cnt; i < wire; i++)
		if (buf[hlen + i])
			return MRC_WIRE_EPAD;
	out->payload = buf + hlen;
	out->payload_len = wire - out->bth.pad_cnt;
	return mrc_check_reth(out->bth.opcode, &out->reth, out->payload_len, true);
}

/**
 * mrc_pkt_decode_flags() - decode and validate a whole packet.
 * @buf: UDP payload, from the BTH to the end of the ICRC
 * @len: bytes at @buf
 * @flags: 0, or MRC_DECODE_TRIMMED (data opcodes: headers only, whatever
 *	follows them is ignored, ICRC not checked), MRC_DECODE_NO_ICRC (the
 *	ICRC bytes must be present but the caller verified them)
 * @out: output; on success out->payload points into @buf
 *
 * Never reads outside [@buf, @buf + @len), never allocates. Checks, in
 * order: length (ETRUNC/ELEN), ICRC, each header's own fields, BTH flags and
 * QP per opcode, padding, RETH placement.
 *
 * Return: 0 (MRC_WIRE_OK) or a negative enum mrc_wire_err.
 */
int mrc_pkt_decode_flags(const u8 *buf, u32 len, u32 flags, struct mrc_pkt *out)
{
	bool data, trimmed;
	u32 hlen, need;
	int n;

	if (!out || (!buf && len) ||
	    (flags & ~(MRC_DECODE_TRIMMED | MRC_DECODE_NO_ICRC)))
		return MRC_WIRE_EINVAL;
	mrc_memset(out, 0, sizeof(*out));
	if (len < MRC_BTH_LEN + MRC_ICRC_LEN &&
	    !(len >= MRC_BTH_LEN && (flags & MRC_DECODE_TRIMMED)))
		return MRC_WIRE_ETRUNC;
	/* The EP kind byte (first body byte) decides the endpoint body length. */
	hlen = mrc_hdr_len_of(buf[0], buf[8] & BTH_B8_TS,
			      len > MRC_BTH_LEN ? buf[MRC_BTH_LEN] : 0);
	if (!hlen)
		return MRC_WIRE_EOPCODE;
	data = mrc_op_is_data(buf[0]);
	trimmed = data && (flags & MRC_DECODE_TRIMMED);
	need = hlen + (trimmed ? 0 : MRC_ICRC_LEN);
	if (len < need)
		return MRC_WIRE_ETRUNC;
	if (!data && len > need)
		return MRC_WIRE_ELEN;
	if (!trimmed && !(flags & MRC_DECODE_NO_ICRC) && !mrc_pkt_icrc_ok(buf, len))
		return MRC_WIRE_EICRC;
	n = mrc_bth_decode(buf, len, &out->bth);
	if (n < 0)
		return n;
	n = mrc_check_bth(&out->bth);
	if (n)
		return n;
	if (data)
		return mrc_decode_data(buf, len, hlen, trimmed, out);
	n = mrc_decode_ctl(buf + MRC_BTH_LEN, len - MRC_BTH_LEN, out);
	return n < 0 ? n : 0;
}

/**
 * mrc_pkt_decode() - decode, verify (ICRC included) and validate a packet.
 * @buf: UDP payload, from the BTH to the end of the ICRC
 * @len: bytes at @buf
 * @out: output; on success out->payload points into @buf
 *
 * Return: 0 or a negative enum mrc_wire_err.
 */
int mrc_pkt_decode(const u8 *buf, u32 len, struct mrc_pkt *out)
{
	return mrc_pkt_decode_flags(buf, len, 0, out);
}
