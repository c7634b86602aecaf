/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * mrc_wire.h - MRC 1.0 wire codec: header layouts, encoders, decoders, ICRC.
 *
 * Everything between the UDP header and the end of the UDP payload:
 *
 *   BTH | METH | [TSETH] | RETH | [ImmDt] | payload | pad | ICRC   (data)
 *   BTH | AETH | SACK | NACK | PROBE | EP                    | ICRC   (control)
 *
 * The decoded structs hold host-order values; only the accessors in
 * mrc_wire.c know the byte order (every multi-byte header field is
 * big-endian on the wire; the ICRC, as in RoCEv2, is least significant byte
 * first). Decoders never read past the length they are given, never
 * allocate and reject anything truncated, inconsistent or with a reserved
 * bit set, with a distinct negative enum mrc_wire_err. Encoders
 * range-check every field, write every reserved bit as zero and return the
 * number of bytes written.
 *
 * The control headers (SETH + CC_STATE, NETH, PETH, ERTH, EETH) follow the
 * public description of MRC 1.0 byte for byte; where it is silent (the
 * values of the header-type and next-header fields, EETH bytes 2-3) the
 * choice is ours and named as such. The in-band handshake is our
 * extension, carried as a vendor operation of ERTH/EETH (op 3 with a
 * vendor-info code) that a peer following MRC 1.0 can tell apart.
 *
 * Documentation/networking/mrc-wire.rst has every layout as a byte table.
 */
#ifndef MRC_WIRE_H
#define MRC_WIRE_H

#include "mrc_platform.h"

/* Default UDP destination port (IANA RoCEv2). */
#define MRC_UDP_PORT		4791
/* Destination QP of the connectionless endpoint operations (0xD8/0xD9). */
#define MRC_QPN_EP		2
/* BTH.TVer of MRC 1.0 as implemented here (IBTA transport version 0). */
#define MRC_TVER		0
/* Default partition key. Carried, not checked by the codec. */
#define MRC_PKEY_DEFAULT	0xffff

#define MRC_BTH_LEN		12
#define MRC_METH_LEN		4
#define MRC_TSETH_LEN		4
#define MRC_RETH_LEN		16
#define MRC_IMM_LEN		4
#define MRC_AETH_LEN		4
#define MRC_SACK_BASE_LEN	28	/* SETH */
#define MRC_CC_STATE_LEN	8
#define MRC_SACK_LEN		(MRC_SACK_BASE_LEN + MRC_CC_STATE_LEN)
#define MRC_NACK_LEN		20	/* NETH */
#define MRC_PROBE_LEN		16	/* PETH */
#define MRC_EP_LEN		16	/* ERTH, endpoint request */
#define MRC_EETH_LEN		36	/* EETH, endpoint response */
#define MRC_EP_CONN_LEN		24	/* handshake body (our extension) */
#define MRC_ICRC_LEN		4
/*
 * Headers of a WRITE packet with a TSETH (every connection's data packets
 * carry one) and no ImmDt: what a message's wire layout leaves room for.
 */
#define MRC_DATA_HDR_TS_LEN	(MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + \
				 MRC_RETH_LEN)
/* Largest header stack: BTH + METH + TSETH + RETH + ImmDt. */
#define MRC_DATA_HDR_MAX	(MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + \
				 MRC_RETH_LEN + MRC_IMM_LEN)

#define MRC_PSN_BITS		24
#define MRC_PSN_MASK		0xffffffu
#define MRC_PSN_HALF		0x800000u
#define MRC_QPN_MASK		0xffffffu

/* Units of the scaled fields (raw values are carried in the structs). */
#define MRC_TS_UNIT_NS		128	/* TSETH/SACK/NACK/probe 16-bit timestamps */
#define MRC_MPR_UNIT		128	/* SACK/NACK mpr: receive window in PSNs */
#define MRC_CC_BYTES_UNIT	256	/* mrc_cc_state.bytes_rcvd */

/* SACK bitmap width: bit i acknowledges PSN cack_psn + sack_offset + i. */
#define MRC_SACK_BITS		64

/*
 * Prologue of SETH, NETH, PETH, ERTH and EETH: byte 0 bits 7-4 header type,
 * byte 0 bits 3-0 and byte 1 bit 7 a 5-bit next-header. The public
 * description gives the fields but not their values; these are ours, one
 * type per header, and decoders insist on them.
 */
#define MRC_HT_SETH		0x1
#define MRC_HT_NETH		0x2
#define MRC_HT_PETH		0x3
#define MRC_HT_ERTH		0x4
#define MRC_HT_EETH		0x5
#define MRC_NH_NONE		0x00	/* nothing follows the header */
#define MRC_NH_CC_STATE		0x01	/* an 8-byte CC_STATE follows (SETH) */
#define MRC_NH_VENDOR		0x1f	/* a vendor body follows (handshake) */

/* Format type of TSETH/PETH/ERTH timestamps (the public emulator's value). */
#define MRC_TS_FTYPE		1

/* ERTH/EETH operations of MRC 1.0, and the one we use for the handshake. */
#define MRC_EP_OP_PORT_STATUS	0
#define MRC_EP_OP_EV_PROBE	1
#define MRC_EP_OP_VENDOR	3	/* undefined by MRC 1.0: vendor-specific */

/**
 * enum mrc_wire_err - decoder/encoder error codes (negative; 0 is success).
 *
 * These are not errno values; the kernel glue maps them (-EPROTO, -EINVAL).
 * @MRC_WIRE_OK: success
 * @MRC_WIRE_ETRUNC: input shorter than the headers its opcode requires
 * @MRC_WIRE_ENOSPC: encode buffer too small
 * @MRC_WIRE_EOPCODE: opcode not defined by MRC 1.0
 * @MRC_WIRE_EVERSION: BTH.TVer is not MRC_TVER
 * @MRC_WIRE_ERESV: a reserved bit or byte is not zero
 * @MRC_WIRE_EFLAGS: BTH flag not allowed with this opcode
 * @MRC_WIRE_EPAD: pad count larger than the payload, pad bytes not zero,
 *	or padding on a control packet
 * @MRC_WIRE_ELEN: control packet longer than its fixed length
 * @MRC_WIRE_ERETH: RETH offset/length inconsistent with opcode or payload
 * @MRC_WIRE_EICRC: ICRC mismatch
 * @MRC_WIRE_ERANGE: encode: a field does not fit its wire width
 * @MRC_WIRE_EVALUE: a field holds an undefined value (ECN summary 3,
 *	header type or next header, endpoint op or vendor code)
 * @MRC_WIRE_EREASON: unknown NACK reason
 * @MRC_WIRE_EQPN: endpoint opcode not sent to MRC_QPN_EP, or another
 *	opcode sent to it
 * @MRC_WIRE_EINVAL: bad argument (NULL buffer with non-zero length, ...)
 * @MRC_WIRE_ERR_COUNT: number of codes (positive), for tables
 */
enum mrc_wire_err {
	MRC_WIRE_OK = 0,
	MRC_WIRE_ETRUNC = -1,
	MRC_WIRE_ENOSPC = -2,
	MRC_WIRE_EOPCODE = -3,
	MRC_WIRE_EVERSION = -4,
	MRC_WIRE_ERESV = -5,
	MRC_WIRE_EFLAGS = -6,
	MRC_WIRE_EPAD = -7,
	MRC_WIRE_ELEN = -8,
	MRC_WIRE_ERETH = -9,
	MRC_WIRE_EICRC = -10,
	MRC_WIRE_ERANGE = -11,
	MRC_WIRE_EVALUE = -12,
	MRC_WIRE_EREASON = -13,
	MRC_WIRE_EQPN = -14,
	MRC_WIRE_EINVAL = -15,
	MRC_WIRE_ERR_COUNT = 16,
};

/**
 * enum mrc_opcode - BTH opcodes of MRC 1.0 (top three bits 110).
 * @MRC_OP_WRITE_FIRST: first packet of a multi-packet WRITE
 * @MRC_OP_WRITE_MIDDLE: neither first nor last
 * @MRC_OP_WRITE_LAST: last packet
 * @MRC_OP_WRITE_LAST_IMM: last packet, carries ImmDt
 * @MRC_OP_WRITE_ONLY: single-packet WRITE
 * @MRC_OP_WRITE_ONLY_IMM: single-packet WRITE with ImmDt
 * @MRC_OP_ACK: transport ACK (AETH)
 * @MRC_OP_EP_REQ: endpoint request (connectionless, QPN 2)
 * @MRC_OP_EP_RESP: endpoint response (connectionless, QPN 2)
 * @MRC_OP_SACK: reliability SACK
 * @MRC_OP_NACK: reliability NACK
 * @MRC_OP_PROBE: path probe (BTH.PSN reserved; answered by SACK pr=1)
 */
enum mrc_opcode {
	MRC_OP_WRITE_FIRST = 0xc6,
	MRC_OP_WRITE_MIDDLE = 0xc7,
	MRC_OP_WRITE_LAST = 0xc8,
	MRC_OP_WRITE_LAST_IMM = 0xc9,
	MRC_OP_WRITE_ONLY = 0xca,
	MRC_OP_WRITE_ONLY_IMM = 0xcb,
	MRC_OP_ACK = 0xd1,
	MRC_OP_EP_REQ = 0xd8,
	MRC_OP_EP_RESP = 0xd9,
	MRC_OP_SACK = 0xdc,
	MRC_OP_NACK = 0xdd,
	MRC_OP_PROBE = 0xde,
};

/**
 * enum mrc_nack_reason - NACK reason codes (Ultra Ethernet code points).
 * @MRC_NACK_TRIMMED: payload trimmed in the fabric (congestion: SKIP the EV)
 * @MRC_NACK_TRIMMED_LASTHOP: trimmed at the last hop (incast: no EV penalty)
 * @MRC_NACK_NO_BITMAP: receiver has no tracking state for the PSN
 * @MRC_NACK_NO_PKT_BUFFER: receiver out of packet buffers
 * @MRC_NACK_NO_RESOURCE: receiver out of some other resource
 * @MRC_NACK_PSN_OOR_WINDOW: PSN outside the receive window
 * @MRC_NACK_UNEXP_EVENT: unexpected event (protocol error)
 */
enum mrc_nack_reason {
	MRC_NACK_TRIMMED = 0x01,
	MRC_NACK_TRIMMED_LASTHOP = 0x02,
	MRC_NACK_NO_BITMAP = 0x06,
	MRC_NACK_NO_PKT_BUFFER = 0x07,
	MRC_NACK_NO_RESOURCE = 0x0a,
	MRC_NACK_PSN_OOR_WINDOW = 0x0b,
	MRC_NACK_UNEXP_EVENT = 0x19,
};

/**
 * enum mrc_ecn_summary - SACK "M" field: what the sender does with the EV.
 * @MRC_ECN_NONE: no ECN mark seen
 * @MRC_ECN_SKIP_ONCE: ECN-marked: skip this EV for about one rotation
 * @MRC_ECN_ALWAYS_SKIP: the receiver judges the path bad: the sender takes
 *	the EV out of the rotation (ASSUMED_BAD) until a probe on it is
 *	answered
 */
enum mrc_ecn_summary {
	MRC_ECN_NONE = 0,
	MRC_ECN_SKIP_ONCE = 1,
	MRC_ECN_ALWAYS_SKIP = 2,
};

/**
 * enum mrc_ep_kind - endpoint operation carried by 0xD8/0xD9.
 * @MRC_EP_PORT_STATUS: MRC 1.0 port-status update (op 0): port_mask =
 *	the sender's reachable NIC ports/planes
 * @MRC_EP_EV_PROBE: MRC 1.0 EV probe (op 1), sent on the EV it probes and
 *	answered by a response echoing token and tx_ts
 * @MRC_EP_CONNECT: our extension (op MRC_EP_OP_VENDOR, vendor info 0x10):
 *	connection handshake (request: open; response: accept or reject)
 *	with a struct mrc_ep_conn body
 * @MRC_EP_CLOSE: our extension (op MRC_EP_OP_VENDOR, vendor info 0x11):
 *	orderly close (request: the sender will send no more; response:
 *	acknowledged); body as above
 *
 * The values of the vendor kinds are the vendor-info byte on the wire.
 */
enum mrc_ep_kind {
	MRC_EP_PORT_STATUS = 0,
	MRC_EP_EV_PROBE = 1,
	MRC_EP_CONNECT = 0x10,
	MRC_EP_CLOSE = 0x11,
};

/**
 * enum mrc_ep_status - struct mrc_ep_conn.status of a response.
 * @MRC_EP_ST_OK: accepted (requests always carry this value)
 * @MRC_EP_ST_REFUSED: no listener on the service id
 * @MRC_EP_ST_INVAL: the request's parameters are unacceptable
 * @MRC_EP_ST_RESET: no such connection (close of an unknown connection);
 *	in a close request: the socket is gone (after a graceful close)
 * @MRC_EP_ST_ABORT: close request of an aborted socket (SO_LINGER with a
 *	zero timeout): what was not acknowledged is dropped, and the peer
 *	fails the connection with ECONNRESET
 * @MRC_EP_ST_RETRY: connect response without state: send the request
 *	again, echoing this response's src_qpn and src_conn (a cookie) as
 *	its dst_qpn and dst_conn; the server keeps nothing until a request
 *	echoes a valid cookie (the client proved it receives at its address)
 * @MRC_EP_ST_NR: number of values
 */
enum mrc_ep_status {
	MRC_EP_ST_OK = 0,
	MRC_EP_ST_REFUSED = 1,
	MRC_EP_ST_INVAL = 2,
	MRC_EP_ST_RESET = 3,
	MRC_EP_ST_ABORT = 4,
	MRC_EP_ST_RETRY = 5,
	MRC_EP_ST_NR,
};

/* Does this endpoint kind carry a struct mrc_ep_conn body? */
static inline bool mrc_ep_kind_has_conn(u8 kind)
{
	return kind == MRC_EP_CONNECT || kind == MRC_EP_CLOSE;
}

/* Decode flags for mrc_pkt_decode_flags(). */
/* Payload was trimmed in the fabric: decode headers only, no ICRC/payload. */
#define MRC_DECODE_TRIMMED	0x1u
/* ICRC present but already verified by the caller (e.g. over skb frags). */
#define MRC_DECODE_NO_ICRC	0x2u
/*
 * Data packets: only the headers are at @buf (the rest of the @len bytes
 * lies elsewhere, e.g. in skb frags): neither the pad bytes (the
 * bth.pad_cnt bytes after the payload_len payload bytes) nor the ICRC are
 * read; the caller checks both. out->payload is @buf + header length, an
 * offset, not to be dereferenced. Control packets are read whole.
 */
#define MRC_DECODE_HDR_ONLY	0x4u

/**
 * struct mrc_bth - Base Transport Header (12 bytes).
 * @opcode: enum mrc_opcode
 * @se: solicited event (data opcodes only)
 * @m: BTH M bit (IBTA MigReq), carried, not interpreted
 * @pad_cnt: pad bytes (0..3) after the payload (data opcodes only)
 * @tver: transport version, must be MRC_TVER
 * @pkey: partition key
 * @dest_qp: destination QP / connection (24 bits)
 * @ack_req: A bit: request an immediate SACK (data opcodes only)
 * @rtx: this packet is a retransmission (data opcodes only)
 * @ts: a TSETH follows METH (data opcodes only)
 * @psn: packet sequence number (24 bits)
 */
struct mrc_bth {
	u8 opcode;
	bool se;
	bool m;
	u8 pad_cnt;
	u8 tver;
	u16 pkey;
	u32 dest_qp;
	bool ack_req;
	bool rtx;
	bool ts;
	u32 psn;
};

/**
 * struct mrc_meth - message sequence numbers (4 bytes, every data packet).
 * @rqmsn: request-queue MSN
 * @msn: message sequence number of this message
 */
struct mrc_meth {
	u16 rqmsn;
	u16 msn;
};

/**
 * struct mrc_tseth - transmit timestamp extension (4 bytes, BTH.ts=1).
 * @tx_ts: sender timestamp, units of MRC_TS_UNIT_NS, wraps
 * @tsr: the tsr bit, carried, not interpreted
 * @ftype: timestamp format type (4 bits; MRC_TS_FTYPE)
 */
struct mrc_tseth {
	u16 tx_ts;
	bool tsr;
	u8 ftype;
};

/**
 * struct mrc_reth - RDMA extended header (16 bytes, every data packet).
 * @va: byte offset of this packet's payload within the message
 * @rkey: remote key, carried, not interpreted
 * @dma_len: total length of the message in bytes
 */
struct mrc_reth {
	u64 va;
	u32 rkey;
	u32 dma_len;
};

/**
 * struct mrc_aeth - transport ACK extended header (4 bytes, IBTA layout).
 * @syndrome: IBTA ACK syndrome, carried, not interpreted
 * @msn: MSN being acknowledged (24 bits)
 */
struct mrc_aeth {
	u8 syndrome;
	u32 msn;
};

/**
 * struct mrc_cc_state - congestion-control state trailing a SACK (8 bytes).
 * @echoed_ts: tx_ts of the triggering packet (or probe), echoed
 * @ooo_count: packets received out of order (15 bits)
 * @restore_cwnd: ask the sender to restore its previous window
 * @rwnd_penalty: receiver window penalty 0..127
 * @bytes_rcvd: bytes received, units of MRC_CC_BYTES_UNIT (24 bits, wraps)
 */
struct mrc_cc_state {
	u16 echoed_ts;
	u16 ooo_count;
	bool restore_cwnd;
	u8 rwnd_penalty;
	u32 bytes_rcvd;
};

/**
 * struct mrc_sack - reliability SACK (36 bytes incl. CC state).
 * @ecn: enum mrc_ecn_summary for @ev
 * @pr: this SACK answers a probe (then @ack_psn_off is the probe id)
 * @ack_psn_off: PSN of the triggering packet minus @cack_psn, signed (see
 *	mrc_sack_trigger_psn()); the probe id (as a u16) if @pr
 * @ev: EV of the triggering packet, echoed
 * @src_conn: sender's connection id
 * @dst_conn: receiver's connection id
 * @cack_psn: cumulative ack: every PSN up to and including it arrived
 * @cc_type: congestion-control algorithm id (4 bits)
 * @cc_flags: congestion-control flags (4 bits)
 * @mpr: receive window in units of MRC_MPR_UNIT PSNs
 * @sack_offset: bitmap base = cack_psn + sack_offset, signed
 * @bitmap: bit i (value 1 << i) = PSN base + i arrived
 * @cc: trailing CC state
 */
struct mrc_sack {
	u8 ecn;
	bool pr;
	s16 ack_psn_off;
	u32 ev;
	u16 src_conn;
	u16 dst_conn;
	u32 cack_psn;
	u8 cc_type;
	u8 cc_flags;
	u8 mpr;
	s16 sack_offset;
	u64 bitmap;
	struct mrc_cc_state cc;
};

/**
 * struct mrc_nack - reliability NACK (NETH, 20 bytes).
 * @reason: enum mrc_nack_reason
 * @vendor: vendor-specific sub-code, carried
 * @tx_ts: tx_ts of the NACKed packet, echoed
 * @ev: EV of the NACKed packet, echoed
 * @src_conn: sender's connection id
 * @dst_conn: receiver's connection id
 * @nack_psn: the PSN being NACKed
 * @cc_type: congestion-control algorithm id (4 bits)
 * @cc_flags: congestion-control flags (4 bits)
 */
struct mrc_nack {
	u8 reason;
	u8 vendor;
	u16 tx_ts;
	u32 ev;
	u16 src_conn;
	u16 dst_conn;
	u32 nack_psn;
	u8 cc_type;
	u8 cc_flags;
};

/**
 * struct mrc_probe - path probe (PETH, 16 bytes). The EV probed is the one
 * the probe travels on (UDP source port and flow label), not a field.
 * @vendor: vendor info, carried
 * @probe_id: echoed in the answering SACK's ack_psn_off (pr=1)
 * @src_conn: sender's connection id
 * @dst_conn: receiver's connection id
 * @tx_ts: sender timestamp, echoed in the answer's cc.echoed_ts
 * @tsr: the tsr bit, carried
 * @ftype: timestamp format type (4 bits; MRC_TS_FTYPE)
 */
struct mrc_probe {
	u8 vendor;
	u16 probe_id;
	u16 src_conn;
	u16 dst_conn;
	u16 tx_ts;
	bool tsr;
	u8 ftype;
};

/**
 * struct mrc_ep_conn - handshake body (24 bytes) after the endpoint header
 * of MRC_EP_CONNECT and MRC_EP_CLOSE. "src" is the sender of the packet.
 * @dst_service: service id (port) of the receiver
 * @src_service: service id of the sender
 * @src_qpn: the sender's QPN: every packet to it carries it as BTH.dest_qp
 *	(24 bits; 0 in a reject; a MRC_EP_ST_RETRY response's cookie top
 *	24 bits, with its low 16 bits in @src_conn)
 * @status: enum mrc_ep_status (responses), MRC_EP_ST_OK in requests
 * @dst_qpn: the receiver's QPN (24 bits); in a connect request 0, or the
 *	cookie's top 24 bits (echoed from a MRC_EP_ST_RETRY response)
 * @src_conn: the sender's connection id
 * @dst_conn: the receiver's connection id; in a connect request 0, or the
 *	cookie's low 16 bits
 * @init_psn: first PSN the sender sends (24 bits)
 * @max_msg_len: longest message the sender accepts
 */
struct mrc_ep_conn {
	u16 dst_service;
	u16 src_service;
	u32 src_qpn;
	u8 status;
	u32 dst_qpn;
	u16 src_conn;
	u16 dst_conn;
	u32 init_psn;
	u32 max_msg_len;
};

/**
 * struct mrc_ep - endpoint request (ERTH, 16 bytes) or response (EETH, 36
 * bytes). A request of a handshake kind (mrc_ep_kind_has_conn()) carries
 * next-header MRC_NH_VENDOR and a MRC_EP_CONN_LEN body after the ERTH; a
 * response carries the body in EETH bytes 4-27, reserved for MRC 1.0's own
 * operations.
 * @kind: enum mrc_ep_kind (op and vendor info on the wire)
 * @token: request id in BTH.PSN bits 15-0 (the public description puts the
 *	EV probe's id there), echoed by the response
 * @port_mask: bit p = port/plane p reachable (port-status request only)
 * @tx_ts: sender timestamp (request) or echoed timestamp (response)
 * @vendor: vendor info of MRC 1.0's ops, carried (0 for our handshake
 *	kinds, whose code is the vendor info on the wire)
 * @tsr: the request's tsr bit, carried (0 in a response)
 * @ftype: the request's timestamp format type (MRC_TS_FTYPE; 0 in a
 *	response)
 * @conn: handshake body (MRC_EP_CONNECT, MRC_EP_CLOSE)
 *
 * An EV probe travels on the EV it probes: there is no EV field.
 */
struct mrc_ep {
	u8 kind;
	u16 token;
	u32 port_mask;
	u16 tx_ts;
	u8 vendor;
	bool tsr;
	u8 ftype;
	struct mrc_ep_conn conn;
};

/**
 * struct mrc_pkt - a whole MRC packet, decoded (or to be encoded).
 * @bth: base header; bth.opcode selects the rest, bth.ts selects @tseth
 * @meth: data opcodes
 * @tseth: data opcodes with bth.ts
 * @reth: data opcodes
 * @imm: *_IMM opcodes
 * @aeth: MRC_OP_ACK
 * @sack: MRC_OP_SACK
 * @nack: MRC_OP_NACK
 * @probe: MRC_OP_PROBE
 * @ep: MRC_OP_EP_REQ / MRC_OP_EP_RESP
 * @trimmed: decoded with MRC_DECODE_TRIMMED (payload absent)
 * @payload: data bytes (pad excluded), pointing into the decoded buffer
 * @payload_len: number of data bytes (pad excluded)
 *
 * There are no has_tseth/has_imm flags: bth.ts and the opcode are the single
 * source of truth (mrc_op_has_imm()).
 */
struct mrc_pkt {
	struct mrc_bth bth;
	struct mrc_meth meth;
	struct mrc_tseth tseth;
	struct mrc_reth reth;
	u32 imm;
	union {
		struct mrc_aeth aeth;
		struct mrc_sack sack;
		struct mrc_nack nack;
		struct mrc_probe probe;
		struct mrc_ep ep;
	};
	bool trimmed;
	const u8 *payload;
	u32 payload_len;
};

/* ---- opcode predicates ---- */

static inline bool mrc_op_is_data(u8 op)
{
	return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM;
}

static inline bool mrc_op_has_imm(u8 op)
{
	return op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM;
}

/* First packet of a message (va must be 0). */
static inline bool mrc_op_is_first(u8 op)
{
	return op == MRC_OP_WRITE_FIRST || op == MRC_OP_WRITE_ONLY ||
	       op == MRC_OP_WRITE_ONLY_IMM;
}

/* Last packet of a message (va + payload_len must equal dma_len). */
static inline bool mrc_op_is_last(u8 op)
{
	return op == MRC_OP_WRITE_LAST || op == MRC_OP_WRITE_LAST_IMM ||
	       op == MRC_OP_WRITE_ONLY || op == MRC_OP_WRITE_ONLY_IMM;
}

bool mrc_op_valid(u8 op);
const char *mrc_opcode_name(u8 op);
bool mrc_nack_reason_valid(u8 reason);
const char *mrc_nack_reason_name(u8 reason);
const char *mrc_wire_strerror(int err);

/* ---- 24-bit PSN arithmetic (modulo 2^24, half window 2^23) ---- */

/* psn + n mod 2^24; a negative n may be passed cast to u32. */
static inline u32 mrc_psn_add(u32 psn, u32 n)
{
	return (psn + n) & MRC_PSN_MASK;
}

/* Signed distance a - b in [-2^23, 2^23). */
static inline s32 mrc_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & MRC_PSN_MASK;

	return d >= MRC_PSN_HALF ? (s32)d - (s32)(MRC_PSN_MASK + 1) : (s32)d;
}

/* a comes strictly before b. */
static inline bool mrc_psn_before(u32 a, u32 b)
{
	return mrc_psn_diff(a, b) < 0;
}

/* a comes strictly after b. */
static inline bool mrc_psn_after(u32 a, u32 b)
{
	return mrc_psn_diff(a, b) > 0;
}

/* Signed distance of two 16-bit MSNs, in [-2^15, 2^15). */
static inline s32 mrc_msn_diff(u16 a, u16 b)
{
	u32 d = (u32)(u16)(a - b);

	return d >= 0x8000u ? (s32)d - 0x10000 : (s32)d;
}

/* PSN of the packet that triggered a (non-probe) SACK. */
static inline u32 mrc_sack_trigger_psn(const struct mrc_sack *s)
{
	return mrc_psn_add(s->cack_psn, (u32)(s32)s->ack_psn_off);
}

/* First PSN the SACK bitmap covers (bit 0). */
static inline u32 mrc_sack_bitmap_base(const struct mrc_sack *s)
{
	return mrc_psn_add(s->cack_psn, (u32)(s32)s->sack_offset);
}

/* ---- EV on the wire (IPv6/UDP) ---- */

/* Low 16 bits of the EV travel in the UDP source port. */
static inline u16 mrc_ev_to_udp_sport(u32 ev)
{
	return (u16)(ev & 0xffffu);
}

/* High 16 bits travel in the low 16 bits of the 20-bit IPv6 flow label. */
static inline u32 mrc_ev_to_flowlabel(u32 ev)
{
	return ev >> 16;
}

/*
 * UDP source port of an endpoint (handshake) packet: from the ephemeral
 * range, varied by the request id, never a well-known port or 4791.
 */
static inline u16 mrc_ep_udp_sport(u16 token)
{
	return (u16)(0xc000u | (token & 0x3fffu));
}

/* Rebuild the EV from the received UDP source port and flow label. */
static inline u32 mrc_ev_from_wire(u16 sport, u32 flowlabel)
{
	return ((flowlabel & 0xffffu) << 16) | sport;
}

/* Pad bytes that bring a payload of @len to a multiple of 4. */
static inline u8 mrc_pad_for(u32 len)
{
	return (u8)((4u - (len & 3u)) & 3u);
}

/* ---- per-header codecs: encode returns bytes written, decode bytes read ---- */

int mrc_bth_encode(const struct mrc_bth *h, u8 *buf, u32 cap);
int mrc_bth_decode(const u8 *buf, u32 len, struct mrc_bth *h);
int mrc_meth_encode(const struct mrc_meth *h, u8 *buf, u32 cap);
int mrc_meth_decode(const u8 *buf, u32 len, struct mrc_meth *h);
int mrc_tseth_encode(const struct mrc_tseth *h, u8 *buf, u32 cap);
int mrc_tseth_decode(const u8 *buf, u32 len, struct mrc_tseth *h);
int mrc_reth_encode(const struct mrc_reth *h, u8 *buf, u32 cap);
int mrc_reth_decode(const u8 *buf, u32 len, struct mrc_reth *h);
int mrc_imm_encode(u32 imm, u8 *buf, u32 cap);
int mrc_imm_decode(const u8 *buf, u32 len, u32 *imm);
int mrc_aeth_encode(const struct mrc_aeth *h, u8 *buf, u32 cap);
int mrc_aeth_decode(const u8 *buf, u32 len, struct mrc_aeth *h);
int mrc_sack_encode(const struct mrc_sack *h, u8 *buf, u32 cap);
int mrc_sack_decode(const u8 *buf, u32 len, struct mrc_sack *h);
int mrc_nack_encode(const struct mrc_nack *h, u8 *buf, u32 cap);
int mrc_nack_decode(const u8 *buf, u32 len, struct mrc_nack *h);
int mrc_probe_encode(const struct mrc_probe *h, u8 *buf, u32 cap);
int mrc_probe_decode(const u8 *buf, u32 len, struct mrc_probe *h);
int mrc_erth_encode(const struct mrc_ep *h, u8 *buf, u32 cap);
int mrc_erth_decode(const u8 *buf, u32 len, struct mrc_ep *h);
int mrc_eeth_encode(const struct mrc_ep *h, u8 *buf, u32 cap);
int mrc_eeth_decode(const u8 *buf, u32 len, struct mrc_ep *h);

/*
 * ---- ICRC: the RoCEv2 invariant CRC ----
 *
 * CRC-32 (IEEE 802.3, crc32_le, seed ~0, final inversion) over eight 0xff
 * bytes (the masked LRH), the IPv6 header in front of the UDP header with
 * traffic class, flow label and hop limit all ones, the UDP header with
 * checksum 0xffff, the BTH with byte 4 (resv8a) 0xff, and every byte after
 * the BTH up to the end of the pad; appended least significant byte first.
 * Under SRv6 encapsulation the IPv6 header covered is the inner one (the
 * one the peer sees after decapsulation). Our choice where RoCEv2 is
 * silent: the pseudo IPv6 header always says payload length = UDP length
 * and next header = UDP, so an inline routing header does not change it.
 */

/**
 * struct mrc_icrc_ip6 - the IPv6/UDP fields the ICRC covers.
 * @saddr: source address of the IPv6 header in front of UDP
 * @daddr: its destination address (the final one)
 * @sport: UDP source port
 * @dport: UDP destination port
 */
struct mrc_icrc_ip6 {
	u8 saddr[16];
	u8 daddr[16];
	u16 sport;
	u16 dport;
};

/* CRC state after the masked LRH (eight 0xff bytes from seed ~0). */
#define MRC_ICRC_LRH_STATE	0xdebb20e3u

u32 mrc_icrc_update(u32 state, const u8 *p, u32 len);
u32 mrc_icrc_seed(const struct mrc_icrc_ip6 *ip, u32 len);
u32 mrc_icrc_bth(u32 state, const u8 *bth);
u32 mrc_icrc_body(u32 seed, const u8 *p, u32 len);
u32 mrc_icrc(const struct mrc_icrc_ip6 *ip, const u8 *p, u32 len);
bool mrc_pkt_icrc_ok(const struct mrc_icrc_ip6 *ip, const u8 *buf, u32 len);

/* ---- whole packets ---- */

u32 mrc_pkt_hdr_len(const struct mrc_pkt *p);
int mrc_pkt_encode_hdr(const struct mrc_pkt *p, u8 *buf, u32 cap);
int mrc_pkt_finish(const struct mrc_icrc_ip6 *ip, u8 *buf, u32 len, u32 cap);
int mrc_pkt_encode(const struct mrc_pkt *p, u8 *buf, u32 cap);
int mrc_pkt_encode_ip6(const struct mrc_icrc_ip6 *ip, const struct mrc_pkt *p,
		       u8 *buf, u32 cap);
int mrc_pkt_decode_flags(const u8 *buf, u32 len, u32 flags, struct mrc_pkt *out);
int mrc_pkt_decode(const u8 *buf, u32 len, struct mrc_pkt *out);
int mrc_pkt_decode_ip6(const struct mrc_icrc_ip6 *ip, const u8 *buf, u32 len,
		       u32 flags, struct mrc_pkt *out);

#endif /* MRC_WIRE_H */
