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

static inline void put_le32(u8 *p, u32 v)
{
	p[0] = (u8)v;
	p[1] = (u8)(v >> 8);
	p[2] = (u8)(v >> 16);
	p[3] = (u8)(v >> 24);
}

static inline u32 get_le32(const u8 *p)
{
	return ((u32)p[3] << 24) | ((u32)p[2] << 16) | ((u32)p[1] << 8) | p[0];
}

/**
 * mrc_icrc_update() - feed bytes into a running CRC.
 * @state: a CRC state (MRC_ICRC_LRH_STATE, mrc_icrc_seed(), ...)
 * @p: bytes (may be NULL when @len is 0)
 * @len: number of bytes
 *
 * The CRC itself is the platform's (mrc_platform.h): the kernel's
 * crc32_le() (slice-by-8, or the architecture's folding code) in mrc.ko,
 * zlib's in userspace. A byte-wise table here cost 2.4 ns per byte, ten
 * times a slice-by-8 CRC and the largest single cost of a data packet.
 *
 * Return: the new running state.
 */
u32 mrc_icrc_update(u32 state, const u8 *p, u32 len)
{
	if (!len)
		return state;
	return mrc_plat_crc32_le(state, p, len);
}

/**
 * mrc_icrc_seed() - CRC state after the masked LRH, IPv6 and UDP headers.
 * @ip: addresses and ports of the packet, or NULL where no IP carries it
 *	(the simulator, unit tests): then only the masked LRH is covered
 * @len: bytes of the MRC packet, BTH to the end of the ICRC (the UDP
 *	payload)
 *
 * Return: the state to continue with mrc_icrc_body().
 */
u32 mrc_icrc_seed(const struct mrc_icrc_ip6 *ip, u32 len)
{
	u8 h[40 + 8];
	u32 ulen = len + 8;

	if (!ip)
		return MRC_ICRC_LRH_STATE;
	/* IPv6: version 6, traffic class and flow label all ones */
	h[0] = 0x6f;
	h[1] = 0xff;
	h[2] = 0xff;
	h[3] = 0xff;
	put_be16(h + 4, (u16)ulen);
	h[6] = 17;	/* UDP */
	h[7] = 0xff;	/* hop limit */
	mrc_memcpy(h + 8, ip->saddr, 16);
	mrc_memcpy(h + 24, ip->daddr, 16);
	put_be16(h + 40, ip->sport);
	put_be16(h + 42, ip->dport);
	put_be16(h + 44, (u16)ulen);
	h[46] = 0xff;	/* UDP checksum */
	h[47] = 0xff;
	return mrc_icrc_update(MRC_ICRC_LRH_STATE, h, sizeof(h));
}

/**
 * mrc_icrc_bth() - feed a BTH into a running ICRC, resv8a masked.
 * @state: mrc_icrc_seed()
 * @bth: the MRC_BTH_LEN bytes of the BTH
 *
 * For hosts whose packet bytes are not contiguous: continue with
 * mrc_icrc_update() over the rest, then the ICRC is the complement.
 *
 * Return: the new running state.
 */
u32 mrc_icrc_bth(u32 state, const u8 *bth)
{
	u8 b[MRC_BTH_LEN];

	mrc_memcpy(b, bth, MRC_BTH_LEN);
	b[4] = 0xff;	/* resv8a is masked */
	return mrc_icrc_update(state, b, MRC_BTH_LEN);
}

/**
 * mrc_icrc_body() - finish an ICRC over the MRC bytes.
 * @seed: mrc_icrc_seed()
 * @p: bytes from the BTH to the end of the pad (at least MRC_BTH_LEN)
 * @len: number of bytes
 *
 * Return: the ICRC value (to be stored least significant byte first).
 */
u32 mrc_icrc_body(u32 seed, const u8 *p, u32 len)
{
	u8 bth[MRC_BTH_LEN];
	u32 n = len < MRC_BTH_LEN ? len : MRC_BTH_LEN;

	mrc_memcpy(bth, p, n);
	if (n > 4)
		bth[4] = 0xff;	/* resv8a is masked */
	seed = mrc_icrc_update(seed, bth, n);
	return ~mrc_icrc_update(seed, p + n, len - n);
}

/**
 * mrc_icrc() - ICRC of a contiguous packet.
 * @ip: addresses and ports, or NULL (see mrc_icrc_seed())
 * @p: bytes from the BTH to the end of the pad
 * @len: number of bytes
 *
 * Return: the ICRC value.
 */
u32 mrc_icrc(const struct mrc_icrc_ip6 *ip, const u8 *p, u32 len)
{
	return mrc_icrc_body(mrc_icrc_seed(ip, len + MRC_ICRC_LEN), p, len);
}

/**
 * mrc_pkt_icrc_ok() - does a whole packet end with its own ICRC?
 * @ip: addresses and ports it arrived with, or NULL (see mrc_icrc_seed())
 * @buf: UDP payload, from the BTH to the end of the ICRC
 * @len: bytes at @buf (at least MRC_ICRC_LEN)
 *
 * For hosts that decode with MRC_DECODE_NO_ICRC first and verify later.
 *
 * Return: true if the last four bytes are the ICRC of the ones before.
 */
bool mrc_pkt_icrc_ok(const struct mrc_icrc_ip6 *ip, const u8 *buf, u32 len)
{
	if (len < MRC_ICRC_LEN)
		return false;
	return mrc_icrc(ip, buf, len - MRC_ICRC_LEN) ==
	       get_le32(buf + len - MRC_ICRC_LEN);
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

/*
 * Bytes 2-3 of TSETH, and 14-15 of PETH and ERTH: tsr (bit 15), eleven
 * reserved bits, the timestamp format type (bits 3-0).
 */
#define TS_TSR		0x8000u
#define TS_RESV		0x7ff0u
#define TS_FTYPE	0x000fu

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
 * Return: MRC_TSETH_LEN, -ERANGE or -ENOSPC.
 */
int mrc_tseth_encode(const struct mrc_tseth *h, u8 *buf, u32 cap)
{
	if (h->ftype > TS_FTYPE)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_TSETH_LEN)
		return MRC_WIRE_ENOSPC;
	put_be16(buf, h->tx_ts);
	put_be16(buf + 2, (u16)((h->tsr ? TS_TSR : 0) | h->ftype));
	return MRC_TSETH_LEN;
}

/**
 * mrc_tseth_decode() - read a TSETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_TSETH_LEN, -ETRUNC or -ERESV.
 */
int mrc_tseth_decode(const u8 *buf, u32 len, struct mrc_tseth *h)
{
	u16 w;

	if (len < MRC_TSETH_LEN)
		return MRC_WIRE_ETRUNC;
	w = get_be16(buf + 2);
	if (w & TS_RESV)
		return MRC_WIRE_ERESV;
	h->tx_ts = get_be16(buf);
	h->tsr = !!(w & TS_TSR);
	h->ftype = w & TS_FTYPE;
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
 * Return: MRC_AETH_LEN, -ERANGE or -ENOSPC.
 */
int mrc_aeth_encode(const struct mrc_aeth *h, u8 *buf, u32 cap)
{
	if (h->msn > 0xffffffu)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_AETH_LEN)
		return MRC_WIRE_ENOSPC;
	buf[0] = h->syndrome;
	put_be24(buf + 1, h->msn);
	return MRC_AETH_LEN;
}

/**
 * mrc_aeth_decode() - read an AETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_AETH_LEN or -ETRUNC.
 */
int mrc_aeth_decode(const u8 *buf, u32 len, struct mrc_aeth *h)
{
	if (len < MRC_AETH_LEN)
		return MRC_WIRE_ETRUNC;
	h->syndrome = buf[0];
	h->msn = get_be24(buf + 1);
	return MRC_AETH_LEN;
}

/* ---- prologue of the control headers ---- */

#define PRO_B1_NH	0x80u	/* byte 1 bit 7: next-header bit 0 */

static void put_prologue(u8 *buf, u8 type, u8 nh)
{
	buf[0] = (u8)((type << 4) | (nh >> 1));
	buf[1] = (nh & 1u) ? PRO_B1_NH : 0;
}

static u8 prologue_type(const u8 *buf)
{
	return buf[0] >> 4;
}

static u8 prologue_nh(const u8 *buf)
{
	return (u8)(((buf[0] & 0xfu) << 1) | !!(buf[1] & PRO_B1_NH));
}

static int check_prologue(const u8 *buf, u8 type, u8 nh)
{
	return prologue_type(buf) == type && prologue_nh(buf) == nh ?
	       0 : MRC_WIRE_EVALUE;
}

/* ---- SETH, reliability SACK (+ CC_STATE) ---- */

#define SACK_B1_M_SHIFT	5
#define SACK_B1_M	0x60u
#define SACK_B1_PR	0x02u
#define SACK_B1_RESV	0x1du
#define CC_OOO_MAX	0x7fffu
#define CC_B2_RESV	0x80u	/* byte 30 bit 7 */
#define CC_B4_RC	0x80u	/* byte 32 bit 7: restore_cwnd */
#define CC_PENALTY_MAX	0x7fu

/**
 * mrc_sack_encode() - write a SETH with its trailing CC_STATE.
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
	put_prologue(buf, MRC_HT_SETH, MRC_NH_CC_STATE);
	buf[1] |= (u8)((h->ecn << SACK_B1_M_SHIFT) | (h->pr ? SACK_B1_PR : 0));
	put_be16(buf + 2, (u16)h->ack_psn_off);
	put_be32(buf + 4, h->ev);
	put_be16(buf + 8, h->src_conn);
	put_be16(buf + 10, h->dst_conn);
	buf[12] = 0;
	put_be24(buf + 13, h->cack_psn);
	buf[16] = (u8)((h->cc_type << 4) | h->cc_flags);
	buf[17] = h->mpr;
	put_be16(buf + 18, (u16)h->sack_offset);
	put_be64(buf + 20, h->bitmap);
	/* CC_STATE */
	put_be16(buf + 28, h->cc.echoed_ts);
	put_be16(buf + 30, h->cc.ooo_count);
	buf[32] = (u8)((h->cc.restore_cwnd ? CC_B4_RC : 0) | h->cc.rwnd_penalty);
	put_be24(buf + 33, h->cc.bytes_rcvd);
	return MRC_SACK_LEN;
}

/**
 * mrc_sack_decode() - read a SETH with its trailing CC_STATE.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_SACK_LEN, -ETRUNC, -EVALUE (type/next header, M = 3) or
 * -ERESV.
 */
int mrc_sack_decode(const u8 *buf, u32 len, struct mrc_sack *h)
{
	u8 m;

	if (len < MRC_SACK_LEN)
		return MRC_WIRE_ETRUNC;
	if (check_prologue(buf, MRC_HT_SETH, MRC_NH_CC_STATE))
		return MRC_WIRE_EVALUE;
	m = (buf[1] & SACK_B1_M) >> SACK_B1_M_SHIFT;
	if (m > MRC_ECN_ALWAYS_SKIP)
		return MRC_WIRE_EVALUE;
	if ((buf[1] & SACK_B1_RESV) || buf[12] || (buf[30] & CC_B2_RESV))
		return MRC_WIRE_ERESV;
	h->ecn = m;
	h->pr = !!(buf[1] & SACK_B1_PR);
	h->ack_psn_off = (s16)get_be16(buf + 2);
	h->ev = get_be32(buf + 4);
	h->src_conn = get_be16(buf + 8);
	h->dst_conn = get_be16(buf + 10);
	h->cack_psn = get_be24(buf + 13);
	h->cc_type = buf[16] >> 4;
	h->cc_flags = buf[16] & 0xfu;
	h->mpr = buf[17];
	h->sack_offset = (s16)get_be16(buf + 18);
	h->bitmap = get_be64(buf + 20);
	h->cc.echoed_ts = get_be16(buf + 28);
	h->cc.ooo_count = get_be16(buf + 30) & CC_OOO_MAX;
	h->cc.restore_cwnd = !!(buf[32] & CC_B4_RC);
	h->cc.rwnd_penalty = buf[32] & CC_PENALTY_MAX;
	h->cc.bytes_rcvd = get_be24(buf + 33);
	return MRC_SACK_LEN;
}

/* ---- NETH, reliability NACK ---- */

#define CTL_B1_RESV	0x7fu	/* byte 1 below the next-header bit */

/**
 * mrc_nack_encode() - write a NETH.
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
	put_prologue(buf, MRC_HT_NETH, MRC_NH_NONE);
	buf[2] = h->reason;
	buf[3] = h->vendor;
	put_be32(buf + 4, h->ev);
	put_be16(buf + 8, h->src_conn);
	put_be16(buf + 10, h->dst_conn);
	buf[12] = 0;
	put_be24(buf + 13, h->nack_psn);
	buf[16] = (u8)((h->cc_type << 4) | h->cc_flags);
	buf[17] = 0;
	put_be16(buf + 18, h->tx_ts);
	return MRC_NACK_LEN;
}

/**
 * mrc_nack_decode() - read a NETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_NACK_LEN, -ETRUNC, -EVALUE, -EREASON or -ERESV.
 */
int mrc_nack_decode(const u8 *buf, u32 len, struct mrc_nack *h)
{
	if (len < MRC_NACK_LEN)
		return MRC_WIRE_ETRUNC;
	if (check_prologue(buf, MRC_HT_NETH, MRC_NH_NONE))
		return MRC_WIRE_EVALUE;
	if ((buf[1] & CTL_B1_RESV) || buf[12] || buf[17])
		return MRC_WIRE_ERESV;
	if (!mrc_nack_reason_valid(buf[2]))
		return MRC_WIRE_EREASON;
	h->reason = buf[2];
	h->vendor = buf[3];
	h->ev = get_be32(buf + 4);
	h->src_conn = get_be16(buf + 8);
	h->dst_conn = get_be16(buf + 10);
	h->nack_psn = get_be24(buf + 13);
	h->cc_type = buf[16] >> 4;
	h->cc_flags = buf[16] & 0xfu;
	h->tx_ts = get_be16(buf + 18);
	return MRC_NACK_LEN;
}

/* ---- PETH, reliability probe ---- */

/**
 * mrc_probe_encode() - write a PETH.
 * @h: header
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_PROBE_LEN, -ERANGE (ftype) or -ENOSPC.
 */
int mrc_probe_encode(const struct mrc_probe *h, u8 *buf, u32 cap)
{
	if (h->ftype > TS_FTYPE)
		return MRC_WIRE_ERANGE;
	if (cap < MRC_PROBE_LEN)
		return MRC_WIRE_ENOSPC;
	put_prologue(buf, MRC_HT_PETH, MRC_NH_NONE);
	buf[2] = 0;
	buf[3] = h->vendor;
	put_be16(buf + 4, h->probe_id);
	put_be16(buf + 6, 0);
	put_be16(buf + 8, h->src_conn);
	put_be16(buf + 10, h->dst_conn);
	put_be16(buf + 12, h->tx_ts);
	put_be16(buf + 14, (u16)((h->tsr ? TS_TSR : 0) | h->ftype));
	return MRC_PROBE_LEN;
}

/**
 * mrc_probe_decode() - read a PETH.
 * @buf: input
 * @len: bytes available
 * @h: output
 *
 * Return: MRC_PROBE_LEN, -ETRUNC, -EVALUE or -ERESV.
 */
int mrc_probe_decode(const u8 *buf, u32 len, struct mrc_probe *h)
{
	u16 w;

	if (len < MRC_PROBE_LEN)
		return MRC_WIRE_ETRUNC;
	if (check_prologue(buf, MRC_HT_PETH, MRC_NH_NONE))
		return MRC_WIRE_EVALUE;
	w = get_be16(buf + 14);
	if ((buf[1] & CTL_B1_RESV) || buf[2] || get_be16(buf + 6) ||
	    (w & TS_RESV))
		return MRC_WIRE_ERESV;
	h->vendor = buf[3];
	h->probe_id = get_be16(buf + 4);
	h->src_conn = get_be16(buf + 8);
	h->dst_conn = get_be16(buf + 10);
	h->tx_ts = get_be16(buf + 12);
	h->tsr = !!(w & TS_TSR);
	h->ftype = w & TS_FTYPE;
	return MRC_PROBE_LEN;
}

/* ---- ERTH/EETH, endpoint operations ---- */

#define ERTH_B1_OP	0x03u
#define ERTH_B1_RESV	0x7cu
#define EETH_B1_OP_SHIFT 4
#define EETH_B1_OP	0x30u
#define EETH_B1_RESV	0x4fu

/*
 * Wire op and vendor-info byte of @h: MRC 1.0's ops carry h->vendor, ours
 * carry their kind (and h->vendor must be 0).
 * Return: 0, -EVALUE (unknown kind) or -ERESV.
 */
static int ep_kind_wire(const struct mrc_ep *h, u8 *op, u8 *vendor)
{
	switch (h->kind) {
	case MRC_EP_PORT_STATUS:
		*op = MRC_EP_OP_PORT_STATUS;
		*vendor = h->vendor;
		return 0;
	case MRC_EP_EV_PROBE:
		*op = MRC_EP_OP_EV_PROBE;
		*vendor = h->vendor;
		return 0;
	case MRC_EP_CONNECT:
	case MRC_EP_CLOSE:
		*op = MRC_EP_OP_VENDOR;
		*vendor = h->kind;
		return h->vendor ? MRC_WIRE_ERESV : 0;
	default:
		return MRC_WIRE_EVALUE;
	}
}

/*
 * Kind of a wire op and vendor-info byte: MRC 1.0's ops carry any vendor
 * info (it is theirs to carry), our vendor op only our two codes.
 */
static int ep_kind_of(u8 op, u8 vendor)
{
	switch (op) {
	case MRC_EP_OP_PORT_STATUS:
		return MRC_EP_PORT_STATUS;
	case MRC_EP_OP_EV_PROBE:
		return MRC_EP_EV_PROBE;
	case MRC_EP_OP_VENDOR:
		if (mrc_ep_kind_has_conn(vendor))
			return vendor;
		return MRC_WIRE_EVALUE;
	default:
		return MRC_WIRE_EVALUE;
	}
}

/* Bytes of an endpoint header (and handshake body) of @kind. */
static u32 mrc_ep_len(bool resp, u8 kind)
{
	if (resp)
		return MRC_EETH_LEN;
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

static bool all_zero(const u8 *p, u32 n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/**
 * mrc_erth_encode() - write an endpoint request (ERTH, plus the handshake
 * body after it for the vendor kinds).
 * @h: header; h->token is not written here (it rides in BTH.PSN)
 * @buf: output
 * @cap: bytes available
 *
 * Return: bytes written (MRC_EP_LEN, + MRC_EP_CONN_LEN for the handshake
 * kinds), -EVALUE (kind, status), -ERESV (port_mask outside a port-status
 * update), -ERANGE or -ENOSPC.
 */
int mrc_erth_encode(const struct mrc_ep *h, u8 *buf, u32 cap)
{
	bool body = mrc_ep_kind_has_conn(h->kind);
	u32 len = mrc_ep_len(false, h->kind);
	u8 op, vendor;
	int err;

	err = ep_kind_wire(h, &op, &vendor);
	if (err)
		return err;
	if (h->kind != MRC_EP_PORT_STATUS && h->port_mask)
		return MRC_WIRE_ERESV;
	if (h->ftype > TS_FTYPE)
		return MRC_WIRE_ERANGE;
	if (cap < len)
		return MRC_WIRE_ENOSPC;
	if (body) {
		err = mrc_ep_conn_encode(&h->conn, buf + MRC_EP_LEN);
		if (err)
			return err;
	}
	put_prologue(buf, MRC_HT_ERTH, body ? MRC_NH_VENDOR : MRC_NH_NONE);
	buf[1] |= op;
	buf[2] = 0;
	buf[3] = vendor;
	put_be32(buf + 4, h->port_mask);
	put_be32(buf + 8, 0);
	put_be16(buf + 12, h->tx_ts);
	put_be16(buf + 14, (u16)((h->tsr ? TS_TSR : 0) | h->ftype));
	return (int)len;
}

/**
 * mrc_erth_decode() - read an endpoint request.
 * @buf: input
 * @len: bytes available
 * @h: output (h->token is BTH.PSN's, set by the packet decoder)
 *
 * Return: bytes read, -ETRUNC, -EVALUE or -ERESV.
 */
int mrc_erth_decode(const u8 *buf, u32 len, struct mrc_ep *h)
{
	int kind;
	int err;

	if (len < MRC_EP_LEN)
		return MRC_WIRE_ETRUNC;
	kind = ep_kind_of(buf[1] & ERTH_B1_OP, buf[3]);
	if (kind < 0)
		return kind;
	if (check_prologue(buf, MRC_HT_ERTH, mrc_ep_kind_has_conn((u8)kind) ?
			   MRC_NH_VENDOR : MRC_NH_NONE))
		return MRC_WIRE_EVALUE;
	if ((buf[1] & ERTH_B1_RESV) || buf[2] || !all_zero(buf + 8, 4) ||
	    (get_be16(buf + 14) & TS_RESV))
		return MRC_WIRE_ERESV;
	if (kind != MRC_EP_PORT_STATUS && get_be32(buf + 4))
		return MRC_WIRE_ERESV;
	if (len < mrc_ep_len(false, (u8)kind))
		return MRC_WIRE_ETRUNC;
	mrc_memset(&h->conn, 0, sizeof(h->conn));
	if (mrc_ep_kind_has_conn((u8)kind)) {
		err = mrc_ep_conn_decode(buf + MRC_EP_LEN, &h->conn);
		if (err)
			return err;
	}
	h->kind = (u8)kind;
	h->vendor = mrc_ep_kind_has_conn((u8)kind) ? 0 : buf[3];
	h->port_mask = get_be32(buf + 4);
	h->tx_ts = get_be16(buf + 12);
	h->tsr = !!(get_be16(buf + 14) & TS_TSR);
	h->ftype = get_be16(buf + 14) & TS_FTYPE;
	return (int)mrc_ep_len(false, (u8)kind);
}

/**
 * mrc_eeth_encode() - write an endpoint response (EETH, 36 bytes; the
 * handshake body in bytes 4-27 for the vendor kinds).
 * @h: header; h->token rides in BTH.PSN; h->port_mask, h->tsr and
 *	h->ftype (request fields) must be 0
 * @buf: output
 * @cap: bytes available
 *
 * Return: MRC_EETH_LEN, -EVALUE, -ERESV, -ERANGE or -ENOSPC.
 */
int mrc_eeth_encode(const struct mrc_ep *h, u8 *buf, u32 cap)
{
	u8 op, vendor;
	int err;

	err = ep_kind_wire(h, &op, &vendor);
	if (err)
		return err;
	if (h->port_mask || h->tsr || h->ftype)
		return MRC_WIRE_ERESV;
	if (cap < MRC_EETH_LEN)
		return MRC_WIRE_ENOSPC;
	mrc_memset(buf, 0, MRC_EETH_LEN);
	if (mrc_ep_kind_has_conn(h->kind)) {
		err = mrc_ep_conn_encode(&h->conn, buf + 4);
		if (err)
			return err;
	}
	put_prologue(buf, MRC_HT_EETH, MRC_NH_NONE);
	buf[1] |= (u8)(op << EETH_B1_OP_SHIFT);
	buf[3] = vendor;
	put_be16(buf + 28, h->tx_ts);
	return MRC_EETH_LEN;
}

/**
 * mrc_eeth_decode() - read an endpoint response.
 * @buf: input
 * @len: bytes available
 * @h: output (h->token is BTH.PSN's, set by the packet decoder)
 *
 * Return: MRC_EETH_LEN, -ETRUNC, -EVALUE or -ERESV.
 */
int mrc_eeth_decode(const u8 *buf, u32 len, struct mrc_ep *h)
{
	int kind;
	int err;

	if (len < MRC_EETH_LEN)
		return MRC_WIRE_ETRUNC;
	if (check_prologue(buf, MRC_HT_EETH, MRC_NH_NONE))
		return MRC_WIRE_EVALUE;
	kind = ep_kind_of((buf[1] & EETH_B1_OP) >> EETH_B1_OP_SHIFT, buf[3]);
	if (kind < 0)
		return kind;
	if ((buf[1] & EETH_B1_RESV) || buf[2] || !all_zero(buf + 30, 6))
		return MRC_WIRE_ERESV;
	mrc_memset(&h->conn, 0, sizeof(h->conn));
	if (mrc_ep_kind_has_conn((u8)kind)) {
		err = mrc_ep_conn_decode(buf + 4, &h->conn);
		if (err)
			return err;
	} else if (!all_zero(buf + 4, 24)) {
		return MRC_WIRE_ERESV;
	}
	h->kind = (u8)kind;
	h->vendor = mrc_ep_kind_has_conn((u8)kind) ? 0 : buf[3];
	h->port_mask = 0;
	h->tsr = false;
	h->ftype = 0;
	h->tx_ts = get_be16(buf + 28);
	return MRC_EETH_LEN;
}

/* ---- whole packets ---- */

/* @ep_body: an ERTH followed by the handshake body (vendor op) */
static u32 mrc_ctl_body_len(u8 op, bool ep_body)
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
		return MRC_EP_LEN + (ep_body ? MRC_EP_CONN_LEN : 0);
	case MRC_OP_EP_RESP:
		return MRC_EETH_LEN;
	default:
		return 0;
	}
}

static u32 mrc_hdr_len_of(u8 op, bool ts, bool ep_body)
{
	if (!mrc_op_valid(op))
		return 0;
	if (!mrc_op_is_data(op))
		return MRC_BTH_LEN + mrc_ctl_body_len(op, ep_body);
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
	return mrc_hdr_len_of(p->bth.opcode, p->bth.ts,
			      mrc_ep_kind_has_conn(p->ep.kind));
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
	/* A probe's PSN is reserved; an endpoint op's carries a 16-bit id. */
	if ((b->opcode == MRC_OP_PROBE && b->psn) || (ep && b->psn > 0xffffu))
		return MRC_WIRE_ERESV;
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
 * For the endpoint opcodes BTH.PSN is written from p->ep.token (p->bth.psn
 * is ignored); a probe's p->bth.psn must be 0 (reserved).
 *
 * Return: header length (mrc_pkt_hdr_len()), or a negative enum
 * mrc_wire_err; nothing useful is in @buf on error.
 */
int mrc_pkt_encode_hdr(const struct mrc_pkt *p, u8 *buf, u32 cap)
{
	u32 hlen = mrc_pkt_hdr_len(p);
	const struct mrc_bth *b;
	struct mrc_bth bth;
	u32 off;
	int n;

	if (!hlen)
		return MRC_WIRE_EOPCODE;
	bth = p->bth;
	if (bth.opcode == MRC_OP_EP_REQ || bth.opcode == MRC_OP_EP_RESP)
		bth.psn = p->ep.token;
	b = &bth;
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
		n = mrc_erth_encode(&p->ep, buf + off, cap - off);
		break;
	case MRC_OP_EP_RESP:
		n = mrc_eeth_encode(&p->ep, buf + off, cap - off);
		break;
	default:
		off += mrc_meth_encode(&p->meth, buf + off, cap - off);
		if (b->ts) {
			n = mrc_tseth_encode(&p->tseth, buf + off, cap - off);
			if (n < 0)
				return n;
			off += n;
		}
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
 * @ip: addresses and ports the packet travels with, or NULL (no IP: see
 *	mrc_icrc_seed())
 * @buf: packet from BTH to the end of the pad
 * @len: bytes at @buf so far (at least MRC_BTH_LEN)
 * @cap: bytes available at @buf
 *
 * Return: total packet length (@len + MRC_ICRC_LEN), -ENOSPC or -ERANGE.
 */
int mrc_pkt_finish(const struct mrc_icrc_ip6 *ip, u8 *buf, u32 len, u32 cap)
{
	if (len > 0xffffu - 8 - MRC_ICRC_LEN)
		return MRC_WIRE_ERANGE;	/* more than a UDP datagram holds */
	if (len < MRC_BTH_LEN)
		return MRC_WIRE_EINVAL;
	if (cap < MRC_ICRC_LEN || len > cap - MRC_ICRC_LEN)
		return MRC_WIRE_ENOSPC;
	put_le32(buf + len, mrc_icrc(ip, buf, len));
	return (int)(len + MRC_ICRC_LEN);
}

/**
 * mrc_pkt_encode_ip6() - write a whole packet: headers, payload, pad, ICRC.
 * @ip: addresses and ports for the ICRC, or NULL (see mrc_icrc_seed())
 * @p: packet; p->payload (p->payload_len bytes) is copied unless it already
 *     sits at @buf + header length
 * @buf: output
 * @cap: bytes available
 *
 * Return: total length, or a negative enum mrc_wire_err.
 */
int mrc_pkt_encode_ip6(const struct mrc_icrc_ip6 *ip, const struct mrc_pkt *p,
		       u8 *buf, u32 cap)
{
	u64 total;
	int hlen;

	if (p->payload_len && !p->payload)
		return MRC_WIRE_EINVAL;
	hlen = mrc_pkt_encode_hdr(p, buf, cap);
	if (hlen < 0)
		return hlen;
	total = (u64)hlen + p->payload_len + p->bth.pad_cnt + MRC_ICRC_LEN;
	if (total > 0xffffu - 8)
		return MRC_WIRE_ERANGE;
	if (total > cap)
		return MRC_WIRE_ENOSPC;
	if (p->payload_len && p->payload != buf + hlen)
		mrc_memcpy(buf + hlen, p->payload, p->payload_len);
	mrc_memset(buf + hlen + p->payload_len, 0, p->bth.pad_cnt);
	return mrc_pkt_finish(ip, buf, (u32)total - MRC_ICRC_LEN, cap);
}

/**
 * mrc_pkt_encode() - mrc_pkt_encode_ip6() without an IP context.
 * @p: packet
 * @buf: output
 * @cap: bytes available
 *
 * For the simulator and tests, where no IP header carries the packet.
 *
 * Return: total length, or a negative enum mrc_wire_err.
 */
int mrc_pkt_encode(const struct mrc_pkt *p, u8 *buf, u32 cap)
{
	return mrc_pkt_encode_ip6(NULL, p, buf, cap);
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
	case MRC_OP_EP_REQ:
		out->ep.token = (u16)out->bth.psn;
		return mrc_erth_decode(buf, len, &out->ep);
	default:
		out->ep.token = (u16)out->bth.psn;
		return mrc_eeth_decode(buf, len, &out->ep);
	}
}

static int mrc_decode_data(const u8 *buf, u32 len, u32 hlen, bool trimmed,
			   bool hdr_only, struct mrc_pkt *out)
{
	u32 off = MRC_BTH_LEN;
	u32 wire, i;
	int n;

	off += mrc_meth_decode(buf + off, len - off, &out->meth);
	if (out->bth.ts) {
		n = mrc_tseth_decode(buf + off, len - off, &out->tseth);
		if (n < 0)
			return n;
		off += n;
	}
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
	for (i = wire - out->bth.pad_cnt; i < wire && !hdr_only; i++)
		if (buf[hlen + i])
			return MRC_WIRE_EPAD;
	out->payload = buf + hlen;
	out->payload_len = wire - out->bth.pad_cnt;
	return mrc_check_reth(out->bth.opcode, &out->reth, out->payload_len, true);
}

/**
 * mrc_pkt_decode_ip6() - decode and validate a whole packet.
 * @ip: addresses and ports it arrived with, for the ICRC, or NULL (see
 *	mrc_icrc_seed())
 * @buf: UDP payload, from the BTH to the end of the ICRC
 * @len: bytes at @buf
 * @flags: 0, or MRC_DECODE_TRIMMED (data opcodes: headers only, whatever
 *	follows them is ignored, ICRC not checked), MRC_DECODE_NO_ICRC (the
 *	ICRC bytes must be present but the caller verified them),
 *	MRC_DECODE_HDR_ONLY (only the headers are at @buf: pad and ICRC are
 *	the caller's to check)
 * @out: output; on success out->payload points into @buf
 *
 * Never reads outside [@buf, @buf + @len) (with MRC_DECODE_HDR_ONLY,
 * outside the headers of a data packet), never allocates. Checks, in
 * order: length (ETRUNC/ELEN), ICRC, each header's own fields, BTH flags and
 * QP per opcode, padding, RETH placement.
 *
 * Return: 0 (MRC_WIRE_OK) or a negative enum mrc_wire_err.
 */
int mrc_pkt_decode_ip6(const struct mrc_icrc_ip6 *ip, const u8 *buf, u32 len,
		       u32 flags, struct mrc_pkt *out)
{
	bool data, trimmed;
	u32 hlen, need;
	int n;

	if (!out || (!buf && len) ||
	    (flags & ~(MRC_DECODE_TRIMMED | MRC_DECODE_NO_ICRC |
		       MRC_DECODE_HDR_ONLY)))
		return MRC_WIRE_EINVAL;
	if (flags & MRC_DECODE_HDR_ONLY)
		flags |= MRC_DECODE_NO_ICRC;
	mrc_memset(out, 0, sizeof(*out));
	if (len < MRC_BTH_LEN + MRC_ICRC_LEN &&
	    !(len >= MRC_BTH_LEN && (flags & MRC_DECODE_TRIMMED)))
		return MRC_WIRE_ETRUNC;
	/* ERTH's op (byte 1 bits 1-0) decides whether a handshake body follows. */
	hlen = mrc_hdr_len_of(buf[0], buf[8] & BTH_B8_TS,
			      len > MRC_BTH_LEN + 1 &&
			      (buf[MRC_BTH_LEN + 1] & ERTH_B1_OP) ==
			      MRC_EP_OP_VENDOR);
	if (!hlen)
		return MRC_WIRE_EOPCODE;
	data = mrc_op_is_data(buf[0]);
	trimmed = data && (flags & MRC_DECODE_TRIMMED);
	need = hlen + (trimmed ? 0 : MRC_ICRC_LEN);
	if (len < need)
		return MRC_WIRE_ETRUNC;
	if (!data && len > need)
		return MRC_WIRE_ELEN;
	if (!trimmed && !(flags & MRC_DECODE_NO_ICRC) &&
	    !mrc_pkt_icrc_ok(ip, buf, len))
		return MRC_WIRE_EICRC;
	n = mrc_bth_decode(buf, len, &out->bth);
	if (n < 0)
		return n;
	n = mrc_check_bth(&out->bth);
	if (n)
		return n;
	if (data)
		return mrc_decode_data(buf, len, hlen, trimmed,
				       flags & MRC_DECODE_HDR_ONLY, out);
	n = mrc_decode_ctl(buf + MRC_BTH_LEN, len - MRC_BTH_LEN, out);
	return n < 0 ? n : 0;
}

/**
 * mrc_pkt_decode_flags() - mrc_pkt_decode_ip6() without an IP context.
 * @buf: UDP payload, from the BTH to the end of the ICRC
 * @len: bytes at @buf
 * @flags: as for mrc_pkt_decode_ip6()
 * @out: output
 *
 * Return: 0 or a negative enum mrc_wire_err.
 */
int mrc_pkt_decode_flags(const u8 *buf, u32 len, u32 flags, struct mrc_pkt *out)
{
	return mrc_pkt_decode_ip6(NULL, buf, len, flags, out);
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
