// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_telemetry.bpf.c - per-path telemetry of mrc.ko from its mrc:*
 * tracepoints.
 *
 * raw_tp programs: they see the tracepoint's TP_PROTO arguments (all
 * scalars, an ABI: Documentation/networking/mrc-telemetry.rst) and need no
 * module BTF. Attached by "mrcstat attach", which pins the maps and the
 * links under /sys/fs/bpf/mrc; "mrcstat detach" unpins them, which detaches
 * the programs and turns the tracepoints back into no-ops.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "mrc_telemetry.h"

char LICENSE[] SEC("license") = "GPL";

/* Values of the engine ABI the programs interpret. */
#define MRC_TX_DATA		1
#define MRC_TX_SACK		2
#define MRC_TX_NACK		3
#define MRC_TX_PROBE		4
#define MRC_EV_ASSUMED_BAD	2

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MRC_TEL_MAX_EVS);
	__type(key, struct mrc_tel_ev_key);
	__type(value, struct mrc_tel_ev_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_ev SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MRC_TEL_MAX_PLANES);
	__type(key, struct mrc_tel_plane_key);
	__type(value, struct mrc_tel_plane_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_plane SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, MRC_TEL_MAX_CONNS);
	__type(key, struct mrc_tel_conn_key);
	__type(value, struct mrc_tel_conn_val);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_conn SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, MRC_TEL_RINGBUF_BYTES);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_tel_stat);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_tel_stat SEC(".maps");

/* Set by "mrcstat attach --rto-events": one ring-buffer record per
 * retransmit timeout (off by default: a dead path times out every packet
 * sent on it, which would drown the state changes). Counted either way.
 */
const volatile bool rto_events;

/* Zeroed templates for first inserts (too big for the BPF stack). */
struct mrc_tel_ev_val zero_ev;
struct mrc_tel_plane_val zero_plane;
struct mrc_tel_conn_val zero_conn;

static __always_inline void stat_add(int field)
{
	__u32 k = 0;
	struct mrc_tel_stat *s = bpf_map_lookup_elem(&mrc_tel_stat, &k);

	if (!s)
		return;
	if (field == 0)
		__sync_fetch_and_add(&s->ringbuf_drops, 1);
	else
		__sync_fetch_and_add(&s->map_full, 1);
}

static __always_inline void *get_or_init(void *map, const void *key,
					 const void *zero)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	/* EEXIST: another CPU inserted it first, fine. */
	bpf_map_update_elem(map, key, zero, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		stat_add(1);
	return v;
}

struct tel_vals {
	struct mrc_tel_ev_val *ev;
	struct mrc_tel_plane_val *plane;
	struct mrc_tel_conn_val *conn;
};

/* The three value records one event updates. */
static __always_inline struct tel_vals lookup3(__u32 netns, __u32 qpn,
					       __u16 conn, __u32 ev, __u8 plane)
{
	struct mrc_tel_ev_key ek = { .netns = netns, .qpn = qpn, .ev = ev };
	struct mrc_tel_plane_key pk = { .netns = netns, .plane = plane };
	struct mrc_tel_conn_key ck = { .netns = netns, .qpn = qpn };
	struct tel_vals r;

	r.ev = get_or_init(&mrc_ev, &ek, &zero_ev);
	if (r.ev && r.ev->conn != conn) {
		r.ev->conn = conn;
		r.ev->plane = plane;
	}
	r.plane = get_or_init(&mrc_plane, &pk, &zero_plane);
	r.conn = get_or_init(&mrc_conn, &ck, &zero_conn);
	if (r.conn && r.conn->conn != conn) {
		r.conn->conn = conn;
		if (!r.conn->since_ns)
			r.conn->up = 2;
	}
	return r;
}

#define ADD3(r, field, n)						\
	do {								\
		if ((r).ev)						\
			__sync_fetch_and_add(&(r).ev->c.field, (n));	\
		if ((r).plane)						\
			__sync_fetch_and_add(&(r).plane->c.field, (n));	\
		if ((r).conn)						\
			__sync_fetch_and_add(&(r).conn->c.field, (n));	\
	} while (0)

static __always_inline __u32 rtt_bucket(__u64 rtt)
{
	__u32 b = 0;

	if (rtt >= (1ULL << 32)) {
		return MRC_TEL_HIST_BUCKETS - 1;
	}
	if (rtt >= (1 << 16)) {
		rtt >>= 16;
		b += 16;
	}
	if (rtt >= (1 << 8)) {
		rtt >>= 8;
		b += 8;
	}
	if (rtt >= (1 << 4)) {
		rtt >>= 4;
		b += 4;
	}
	if (rtt >= (1 << 2)) {
		rtt >>= 2;
		b += 2;
	}
	if (rtt >= (1 << 1))
		b += 1;
	return b < MRC_TEL_HIST_BUCKETS ? b : MRC_TEL_HIST_BUCKETS - 1;
}

static __always_inline __u32 nack_slot(__u8 reason)
{
	switch (reason) {
	case 0x01: return MRC_TEL_NACK_TRIMMED;
	case 0x02: return MRC_TEL_NACK_TRIMMED_LASTHOP;
	case 0x06: return MRC_TEL_NACK_NO_BITMAP;
	case 0x07: return MRC_TEL_NACK_NO_PKT_BUFFER;
	case 0x0a: return MRC_TEL_NACK_NO_RESOURCE;
	case 0x0b: return MRC_TEL_NACK_PSN_OOR;
	case 0x19: return MRC_TEL_NACK_UNEXP_EVENT;
	default: return MRC_TEL_NACK_OTHER;
	}
}

static __always_inline struct mrc_tel_event *event_reserve(__u8 type,
							   __u32 netns,
							   __u32 qpn,
							   __u16 conn)
{
	struct mrc_tel_event *e;

	e = bpf_ringbuf_reserve(&mrc_events, sizeof(*e), 0);
	if (!e) {
		stat_add(0);
		return NULL;
	}
	__builtin_memset(e, 0, sizeof(*e));
	e->ts_ns = bpf_ktime_get_ns();
	e->type = type;
	e->netns = netns;
	e->qpn = qpn;
	e->conn = conn;
	return e;
}

SEC("raw_tp/mrc_pkt_sent")
int BPF_PROG(mrc_tel_pkt_sent, __u32 netns, __u32 qpn, __u16 conn, __u32 ev,
	     __u8 plane, __u8 kind, __u32 psn, __u32 bytes, __u8 rtx)
{
	struct tel_vals r = lookup3(netns, qpn, conn, ev, plane);

	if (kind != MRC_TX_DATA) {
		ADD3(r, ctl_pkts, 1);
		if (kind == MRC_TX_PROBE)
			ADD3(r, probes, 1);
		return 0;
	}
	ADD3(r, pkts, 1);
	ADD3(r, bytes, bytes);
	if (rtx)
		ADD3(r, rtx, 1);
	return 0;
}

SEC("raw_tp/mrc_ack_rcvd")
int BPF_PROG(mrc_tel_ack_rcvd, __u32 netns, __u32 qpn, __u16 conn, __u32 ev,
	     __u8 plane, __u8 kind, __u8 reason, __u8 ecn, __u32 psn)
{
	struct tel_vals r = lookup3(netns, qpn, conn, ev, plane);
	__u32 slot;

	if (kind == MRC_TX_SACK) {
		ADD3(r, sacked, 1);
		if (ecn)
			ADD3(r, ecn, 1);
	} else if (kind == MRC_TX_NACK) {
		ADD3(r, nacked, 1);
		slot = nack_slot(reason);
		if (slot <= MRC_TEL_NACK_TRIMMED_LASTHOP)
			ADD3(r, trimmed, 1);
		if (slot < MRC_TEL_NACK_SLOTS)
			ADD3(r, nack_reason[slot], 1);
	}
	return 0;
}

SEC("raw_tp/mrc_rtt")
int BPF_PROG(mrc_tel_rtt, __u32 netns, __u32 qpn, __u16 conn, __u32 ev,
	     __u8 plane, __u32 psn, __u64 rtt_ns, __u64 srtt_ns)
{
	struct tel_vals r = lookup3(netns, qpn, conn, ev, plane);
	__u32 b = rtt_bucket(rtt_ns);

	if (b >= MRC_TEL_HIST_BUCKETS)
		return 0;
	ADD3(r, rtt_samples, 1);
	ADD3(r, rtt_sum_ns, rtt_ns);
	ADD3(r, rtt_hist[b], 1);
	if (r.conn)
		r.conn->srtt_ns = srtt_ns;
	return 0;
}

SEC("raw_tp/mrc_ev_state")
int BPF_PROG(mrc_tel_ev_state, __u32 netns, __u32 qpn, __u16 conn, __u32 ev,
	     __u16 index, __u8 plane, __u8 old_state, __u8 new_state,
	     __u8 cause, __u8 active)
{
	struct tel_vals r = lookup3(netns, qpn, conn, ev, plane);
	struct mrc_tel_event *e;

	if (old_state != new_state)
		ADD3(r, ev_changes, 1);
	if (r.ev) {
		r.ev->index = index;
		r.ev->state = new_state;
		r.ev->active = active;
		r.ev->last_change_ns = bpf_ktime_get_ns();
	}
	if (r.plane && old_state != new_state) {
		if (new_state == MRC_EV_ASSUMED_BAD)
			__sync_fetch_and_add(&r.plane->n_bad, 1);
		else if (old_state == MRC_EV_ASSUMED_BAD && r.plane->n_bad)
			__sync_fetch_and_add(&r.plane->n_bad, -1);
	}
	e = event_reserve(MRC_TEL_E_EV_STATE, netns, qpn, conn);
	if (!e)
		return 0;
	e->ev = ev;
	e->index = index;
	e->plane = plane;
	e->old_state = old_state;
	e->new_state = new_state;
	e->cause = cause;
	e->active = active;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/mrc_rto")
int BPF_PROG(mrc_tel_rto, __u32 netns, __u32 qpn, __u16 conn, __u32 ev,
	     __u8 plane, __u32 psn, __u8 count)
{
	struct tel_vals r = lookup3(netns, qpn, conn, ev, plane);
	struct mrc_tel_event *e;

	ADD3(r, timeouts, 1);
	if (!rto_events)
		return 0;
	e = event_reserve(MRC_TEL_E_RTO, netns, qpn, conn);
	if (!e)
		return 0;
	e->ev = ev;
	e->plane = plane;
	e->psn = psn;
	e->count = count;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/mrc_probe")
int BPF_PROG(mrc_tel_probe, __u32 netns, __u32 qpn, __u16 conn, __u32 ev,
	     __u8 plane, __u8 answered, __u64 rtt_ns)
{
	struct tel_vals r;
	struct mrc_tel_event *e;

	/* Sent probes are counted from mrc_pkt_sent (kind probe). */
	if (answered) {
		r = lookup3(netns, qpn, conn, ev, plane);
		ADD3(r, probes_ok, 1);
	}
	e = event_reserve(answered ? MRC_TEL_E_PROBE_ANSWERED :
			  MRC_TEL_E_PROBE_SENT, netns, qpn, conn);
	if (!e)
		return 0;
	e->ev = ev;
	e->plane = plane;
	e->rtt_ns = rtt_ns;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/mrc_plane_state")
int BPF_PROG(mrc_tel_plane_state, __u32 netns, __u32 qpn, __u16 conn,
	     __u8 plane, __u8 up)
{
	struct mrc_tel_plane_key pk = { .netns = netns, .plane = plane };
	struct mrc_tel_plane_val *pv;
	struct mrc_tel_event *e;

	pv = get_or_init(&mrc_plane, &pk, &zero_plane);
	if (pv)
		pv->down = !up;
	e = event_reserve(MRC_TEL_E_PLANE, netns, qpn, conn);
	if (!e)
		return 0;
	e->plane = plane;
	e->up = up;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/mrc_conn_state")
int BPF_PROG(mrc_tel_conn_state, __u32 netns, __u32 qpn, __u16 conn, __u8 up,
	     int err)
{
	struct mrc_tel_conn_key ck = { .netns = netns, .qpn = qpn };
	struct mrc_tel_conn_val *cv;
	struct mrc_tel_event *e;

	cv = get_or_init(&mrc_conn, &ck, &zero_conn);
	if (cv) {
		cv->conn = conn;
		cv->up = up;
		cv->err = err;
		cv->since_ns = bpf_ktime_get_ns();
	}
	e = event_reserve(MRC_TEL_E_CONN, netns, qpn, conn);
	if (!e)
		return 0;
	e->up = up;
	e->err = err;
	bpf_ringbuf_submit(e, 0);
	return 0;
}
