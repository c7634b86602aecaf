// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_xfer - move N messages each way over one AF_MRC connection and print
 * SHA-256 digests of what was sent and what was received.
 *
 *   mrc_xfer -l -p PORT [-n N] [-s SEED] [-M MAX] [-q FILE]   (server)
 *   mrc_xfer -c ADDR -p PORT [-n N] [-s SEED] [-M MAX]        (client)
 *
 * Each side sends N messages whose sizes are log-uniform in 1..MAX bytes
 * and whose bytes come from a PRNG seeded with SEED, and receives the
 * peer's N messages, both at once (non-blocking, poll()). The digest covers
 * every message as a 4-byte big-endian length followed by its bytes, so a
 * lost, duplicated, reordered, merged or corrupted message changes it.
 * Output (stdout):
 *   tx <sha256 hex> <messages> <bytes>
 *   rx <sha256 hex> <messages> <bytes>
 *   rate <Mbit/s of tx+rx payload>
 * -q FILE (server): write "qpn=<our QPN> cack=<last PSN received>" once
 * connected, for the fuzz injector.
 * --info-json: once every message sent is acknowledged (the connection is
 * quiet: nothing of ours in flight), print the connection's MRC_INFO as
 *   info {"qpn":...,"tx_pkts":...,...}
 * (with what it pins then: rmem_alloc, wmem_queued, mem_charged, fwd_alloc)
 * --hold FILE: then keep the connection open until FILE exists (at most
 * 60 s), so that a test can dump it before close().
 * --info-file FILE: write MRC_INFO as one JSON line to FILE (replaced
 * atomically) every 200 ms while connected, and once more at the end
 * (EV states per plane: failover tests watch ASSUMED_BAD come and go).
 * --linger SECS: after the transfer, keep the connection open SECS seconds
 * (still writing --info-file), e.g. to watch probes restore EVs.
 * --plane-mask MASK: MRC_PLANE_MASK before connect()/listen().
 * Prints "bufs start rcv R snd S" (SO_RCVBUF, SO_SNDBUF of the new socket)
 * and, after the transfer, "bufs end rcv R snd S" of the connected one.
 * --rcvbuf BYTES: SO_RCVBUF before connect()/listen() (an accepted
 *   connection inherits the listener's), e.g. to make a stalled reader
 *   refuse data sooner.
 * --mark MARK: SO_MARK before connect()/listen() (policy routing, netfilter).
 * --bind-dev IFNAME: SO_BINDTODEVICE before connect()/listen().
 * --profile CC:EV: MRC_PROFILE (congestion-control and EV profile ids).
 * --stall AFTER:MS[:FILE]: after receiving AFTER messages stop reading for MS
 *   milliseconds (a reader that sleeps), printing "stall begin" and
 *   "stall end" on stderr as they happen. With FILE, the stall ends as
 *   soon as FILE exists, MS being only its cap: a test reads what the
 *   stalled connection holds for as long as it needs, however slow the
 *   guest, and then creates FILE.
 * A connection error is reported with its errno (SO_ERROR), e.g.
 * "connection error: Connection timed out".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mrc_family.h"

/* ---- SHA-256 (FIPS 180-4) ---- */

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (i = 16; i < 64; i++)
		w[i] = (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10)) +
		       w[i - 7] +
		       (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) +
		       w[i - 16];
	a = s->h[0]; b = s->h[1]; c = s->h[2]; d = s->h[3];
	e = s->h[4]; f = s->h[5]; g = s->h[6]; h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
		     K[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		h = g; g = f; f = e; e = d + t1;
		d = c; c = b; b = a; a = t1 + t2;
	}
	s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
	s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void sha_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->n = 0;
}

static void sha_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->len += len;
	while (len) {
		size_t k = 64 - s->n < len ? 64 - s->n : len;

		memcpy(s->buf + s->n, p, k);
		s->n += k;
		p += k;
		len -= k;
		if (s->n == 64) {
			sha_block(s, s->buf);
			s->n = 0;
		}
	}
}

static void sha_hex(struct sha256 *s, char out[65])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, z = 0, l[8];
	int i;

	sha_update(s, &pad, 1);
	while (s->n != 56)
		sha_update(s, &z, 1);
	for (i = 0; i < 8; i++)
		l[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_update(s, l, 8);
	for (i = 0; i < 8; i++)
		sprintf(out + 8 * i, "%08x", s->h[i]);
}

/* ---- the transfer ---- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

/* Log-uniform size in 1..max. */
static size_t msg_size(uint64_t *rng, size_t max)
{
	unsigned int bits = 0;
	uint64_t r;

	while ((1ull << bits) < max)
		bits++;
	r = rng_next(rng);
	bits = (unsigned int)(r % (bits + 1));
	r = rng_next(rng) & ((1ull << bits) - 1);
	r += 1ull << (bits ? bits - 1 : 0);
	return r > max ? max : (r ? r : 1);
}

static void msg_fill(unsigned char *p, size_t n, uint64_t *rng)
{
	size_t i;
	uint64_t v;

	for (i = 0; i + 8 <= n; i += 8) {
		v = rng_next(rng);
		memcpy(p + i, &v, 8);
	}
	v = rng_next(rng);
	memcpy(p + i, &v, n - i);
}

static void hash_msg(struct sha256 *s, const unsigned char *p, size_t n)
{
	unsigned char l[4] = { n >> 24, n >> 16, n >> 8, n };

	sha_update(s, l, 4);
	sha_update(s, p, n);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* MRC_INFO as JSON into @path (via a temporary file and rename()). */
static void write_info(int fd, const char *path)
{
	struct mrc_info mi;
	char tmp[4096];
	unsigned int i;
	FILE *f;

	if (!path)
		return;
	if (mrc_get_info(fd, &mi))
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "{\"state\":%u,\"ev_good\":%u,\"ev_skip\":%u,\"ev_bad\":%u,"
		"\"ev_denied\":%u,\"retransmits\":%llu,\"timeouts\":%llu,"
		"\"tx_pkts\":%llu,\"n_planes\":%u,\"planes\":[",
		mi.mi_state, mi.mi_ev_good, mi.mi_ev_skip, mi.mi_ev_bad,
		mi.mi_ev_denied, (unsigned long long)mi.mi_retransmits,
		(unsigned long long)mi.mi_timeouts,
		(unsigned long long)mi.mi_tx_pkts, mi.mi_n_planes);
	for (i = 0; i < mi.mi_n_planes && i < MRC_INFO_PLANES; i++)
		fprintf(f, "%s{\"tx_pkts\":%llu,\"evs\":%u,\"active\":%u,"
			"\"good\":%u,\"bad\":%u}", i ? "," : "",
			(unsigned long long)mi.mi_planes[i].tx_pkts,
			mi.mi_planes[i].evs, mi.mi_planes[i].evs_active,
			mi.mi_planes[i].evs_good, mi.mi_planes[i].evs_bad);
	fprintf(f, "],\"spurious_timeouts\":%llu,\"rto_ns\":%llu,\"cc_algo\":%u,"
		"\"plane_ids\":%u,\"ev_total\":%u,\"plane_tx_pkts\":[",
		(unsigned long long)mi.mi_spurious_timeouts,
		(unsigned long long)mi.mi_rto_ns, mi.mi_cc_algo, mi.mi_plane_ids,
		mi.mi_ev_good + mi.mi_ev_skip + mi.mi_ev_bad + mi.mi_ev_denied);
	for (i = 0; i < MRC_INFO_PLANES; i++)
		fprintf(f, "%s%llu", i ? "," : "",
			(unsigned long long)mi.mi_planes[i].tx_pkts);
	fprintf(f, "],\"lost_inferred\":%llu,\"spurious_losses\":%llu,"
		"\"tlp_probes\":%llu,\"iw_share_cuts\":%llu,\"snd_una\":%u,"
		"\"mtu\":%u,\"tx_sacks\":%llu,\"tx_sacks_merged\":%llu,"
		"\"rx_sacks\":%llu,\"rtx_path\":%llu,\"paths_retired\":%llu,"
		"\"paths_gray\":%llu,\"cwnd_cuts_spared\":%llu,"
		"\"local_drops\":%llu,\"rtx_local\":%llu,",
		(unsigned long long)mi.mi_lost_inferred,
		(unsigned long long)mi.mi_spurious_losses,
		(unsigned long long)mi.mi_tlp_probes,
		(unsigned long long)mi.mi_iw_share_cuts, mi.mi_snd_una, mi.mi_mtu,
		(unsigned long long)mi.mi_tx_sacks,
		(unsigned long long)mi.mi_tx_sacks_merged,
		(unsigned long long)mi.mi_rx_sacks,
		(unsigned long long)mi.mi_rtx_path,
		(unsigned long long)mi.mi_paths_retired,
		(unsigned long long)mi.mi_paths_gray,
		(unsigned long long)mi.mi_cwnd_cuts_spared,
		(unsigned long long)mi.mi_local_drops,
		(unsigned long long)mi.mi_rtx_local);
	fprintf(f, "\"rmem_alloc\":%llu,\"rmem_unread\":%llu,"
		"\"wmem_queued\":%llu,\"wmem_kept\":%llu,\"mem_charged\":%llu,"
		"\"fwd_alloc\":%u,\"wmem_alloc\":%u,\"rcvbuf\":%u,"
		"\"sndbuf\":%u}\n",
		(unsigned long long)mi.mi_rmem_alloc,
		(unsigned long long)mi.mi_rmem_unread,
		(unsigned long long)mi.mi_wmem_queued,
		(unsigned long long)mi.mi_wmem_kept,
		(unsigned long long)mi.mi_mem_charged, mi.mi_fwd_alloc,
		mi.mi_wmem_alloc, mi.mi_rcvbuf, mi.mi_sndbuf);
	fclose(f);
	rename(tmp, path);
}

static void usage(void)
{
	fprintf(stderr, "usage: mrc_xfer (-l | -c ADDR) -p PORT [-n N] [-s SEED] [-M MAX] [-q FILE]\n"
		"       [--info-json] [--hold FILE] [--info-file FILE] [--linger SECS]\n"
		"       [--plane-mask MASK] [--profile CC:EV] [--stall AFTER:MS[:FILE]]\n"
		"       [--rcvbuf BYTES] [--mark MARK] [--bind-dev IFNAME]\n");
	exit(2);
}

/* Wait (up to 30 s) until all @sent messages are acknowledged. */
static int wait_acked(int fd, unsigned long sent, struct mrc_info *mi)
{
	int i;

	for (i = 0; i < 30000; i++) {
		if (mrc_get_info(fd, mi)) {
			perror("getsockopt MRC_INFO");
			return -1;
		}
		if (mi->mi_tx_msgs >= sent)
			return 0;
		usleep(1000);
	}
	fprintf(stderr, "messages still unacknowledged: %llu of %lu\n",
		(unsigned long long)mi->mi_tx_msgs, sent);
	return -1;
}

static int print_info(int fd, unsigned long sent)
{
	struct mrc_info mi;

	if (wait_acked(fd, sent, &mi))
		return -1;
	printf("info {\"qpn\":%u,\"peer_qpn\":%u,\"state\":%u,\"tx_msgs\":%llu,"
	       "\"tx_pkts\":%llu,\"tx_bytes\":%llu,\"retransmits\":%llu,"
	       "\"timeouts\":%llu,\"ev_good\":%u,\"ev_bad\":%u,"
	       "\"spurious_timeouts\":%llu,\"lost_inferred\":%llu,"
	       "\"spurious_losses\":%llu,\"local_drops\":%llu,"
	       "\"rtx_local\":%llu,\"rmem_alloc\":%llu,\"wmem_queued\":%llu,"
	       "\"mem_charged\":%llu,\"fwd_alloc\":%u}\n",
	       mi.mi_qpn, mi.mi_peer_qpn, mi.mi_state,
	       (unsigned long long)mi.mi_tx_msgs,
	       (unsigned long long)mi.mi_tx_pkts,
	       (unsigned long long)mi.mi_tx_bytes,
	       (unsigned long long)mi.mi_retransmits,
	       (unsigned long long)mi.mi_timeouts, mi.mi_ev_good, mi.mi_ev_bad,
	       (unsigned long long)mi.mi_spurious_timeouts,
	       (unsigned long long)mi.mi_lost_inferred,
	       (unsigned long long)mi.mi_spurious_losses,
	       (unsigned long long)mi.mi_local_drops,
	       (unsigned long long)mi.mi_rtx_local,
	       (unsigned long long)mi.mi_rmem_alloc,
	       (unsigned long long)mi.mi_wmem_queued,
	       (unsigned long long)mi.mi_mem_charged, mi.mi_fwd_alloc);
	fflush(stdout);
	return 0;
}

/* "bufs WHEN rcv R snd S": the socket's SO_RCVBUF and SO_SNDBUF. */
static void print_bufs(int fd, const char *when)
{
	int rcv = -1, snd = -1;
	socklen_t l = sizeof(rcv);

	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, &l);
	l = sizeof(snd);
	getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &snd, &l);
	printf("bufs %s rcv %d snd %d\n", when, rcv, snd);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "info-json", no_argument, NULL, 'J' },
		{ "hold", required_argument, NULL, 'H' },
		{ "info-file", required_argument, NULL, 'I' },
		{ "linger", required_argument, NULL, 'W' },
		{ "plane-mask", required_argument, NULL, 'P' },
		{ "profile", required_argument, NULL, 'R' },
		{ "stall", required_argument, NULL, 'S' },
		{ "rcvbuf", required_argument, NULL, 'B' },
		{ "mark", required_argument, NULL, 'K' },
		{ "bind-dev", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	const char *hold = NULL, *ifile = NULL, *bind_dev = NULL;
	bool set_mark = false;
	unsigned int mark = 0;
	struct mrc_profile_opt prof = { 0 };
	bool set_mask = false, set_prof = false;
	__u32 plane_mask = 0;
	double t_info = 0, linger = 0, stall_until = 0;
	unsigned long stall_after = 0, stall_ms = 0;
	bool stall_done = false;
	char stall_file[256] = "";
	unsigned int idle = 0;
	bool info = false;
	int i;
	const char *addr = NULL, *qfile = NULL;
	unsigned long n = 1000, sent = 0, rcvd = 0;
	size_t max = 4 << 20, cur = 0, sbytes = 0, rbytes = 0;
	uint64_t seed = 1, size_rng, data_rng;
	unsigned char *tx, *rx;
	struct sha256 hs, hr;
	struct sockaddr_mrc sa;
	int listen_mode = 0, port = 0, fd, lfd, c, rcvbuf = 0;
	bool have = false;
	char hex[65];
	double t0, dt;

	while ((c = getopt_long(argc, argv, "lc:p:n:s:M:q:", lopts, NULL)) != -1) {
		switch (c) {
		case 'l': listen_mode = 1; break;
		case 'c': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': n = strtoul(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'M': max = strtoul(optarg, NULL, 0); break;
		case 'q': qfile = optarg; break;
		case 'J': info = true; break;
		case 'H': hold = optarg; break;
		case 'I': ifile = optarg; break;
		case 'W': linger = atof(optarg); break;
		case 'P':
			plane_mask = strtoul(optarg, NULL, 0);
			set_mask = true;
			break;
		case 'R':
			if (sscanf(optarg, "%hu:%hu", &prof.cc_profile, &prof.ev_profile) != 2)
				usage();
			set_prof = true;
			break;
		case 'S':
			stall_file[0] = '\0';
			if (sscanf(optarg, "%lu:%lu:%255s", &stall_after, &stall_ms,
				   stall_file) < 2 || !stall_ms)
				usage();
			break;
		case 'B':
			rcvbuf = atoi(optarg);
			if (rcvbuf <= 0)
				usage();
			break;
		case 'K':
			mark = strtoul(optarg, NULL, 0);
			set_mark = true;
			break;
		case 'D': bind_dev = optarg; break;
		default: usage();
		}
	}
	if (!port || (!listen_mode && !addr) || !max || max > MRC_MSG_MAX)
		usage();
	/* libmrc: the family, the endpoint text and the SOL_MRC options. */
	if (mrc_addr_parse(listen_mode ? "" : addr, port, &sa)) {
		if (errno == EAFNOSUPPORT) {
			fprintf(stderr, "mrc.ko not loaded\n");
			return 1;
		}
		usage();
	}
	fd = mrc_socket(0);
	if (fd < 0) {
		perror("socket");
		return 1;
	}
	if (set_mask && mrc_set_plane_mask(fd, plane_mask)) {
		perror("MRC_PLANE_MASK");
		return 1;
	}
	if (set_prof && mrc_set_profiles(fd, prof.cc_profile, prof.ev_profile)) {
		perror("MRC_PROFILE");
		return 1;
	}
	print_bufs(fd, "start");
	if (rcvbuf && setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		perror("SO_RCVBUF");
		return 1;
	}
	if (set_mark && setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark))) {
		perror("SO_MARK");
		return 1;
	}
	if (bind_dev && setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, bind_dev,
				   strlen(bind_dev) + 1)) {
		perror("SO_BINDTODEVICE");
		return 1;
	}
	if (listen_mode) {
		lfd = fd;
		if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 1)) {
			perror("bind/listen");
			return 1;
		}
		fd = accept(lfd, NULL, NULL);
		if (fd < 0) {
			perror("accept");
			return 1;
		}
		close(lfd);
	} else {
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			perror("connect");
			return 1;
		}
	}
	if (qfile) {
		struct mrc_info mi;
		FILE *f = fopen(qfile, "w");

		if (!f || mrc_get_info(fd, &mi)) {
			perror("MRC_INFO");
			return 1;
		}
		fprintf(f, "qpn=%u cack=%u\n", mi.mi_qpn, mi.mi_rcv_cack);
		fclose(f);
	}
	tx = malloc(max);
	rx = malloc(max + 1);
	if (!tx || !rx)
		return 1;
	sha_init(&hs);
	sha_init(&hr);
	size_rng = seed * 2 + 1;
	data_rng = seed * 7919 + 3;
	t0 = now_s();
	while (sent < n || rcvd < n) {
		struct pollfd p = { .fd = fd, .events = 0 };
		ssize_t r;

		if (sent < n)
			p.events |= POLLOUT;
		if (stall_ms && !stall_done && !stall_until && rcvd >= stall_after) {
			stall_until = now_s() + stall_ms / 1000.0;
			fprintf(stderr, "stall begin\n");
		}
		if (stall_until && (now_s() >= stall_until ||
				    (stall_file[0] && !access(stall_file, F_OK)))) {
			stall_until = 0;
			stall_done = true;
			fprintf(stderr, "stall end\n");
		}
		if (rcvd < n && !stall_until)
			p.events |= POLLIN;
		if (ifile && now_s() - t_info >= 0.2) {
			write_info(fd, ifile);
			t_info = now_s();
		}
		if (poll(&p, 1, ifile || stall_until ? 200 : 60000) != 1) {
			if ((ifile && ++idle < 300) || stall_until)
				continue;
			fprintf(stderr, "stalled: sent %lu rcvd %lu\n", sent, rcvd);
			return 1;
		}
		idle = 0;
		if (p.revents & POLLIN) {
			r = recv(fd, rx, max + 1, MSG_DONTWAIT);
			if (r > 0) {
				hash_msg(&hr, rx, r);
				rbytes += r;
				rcvd++;
			} else if (r == 0) {
				fprintf(stderr, "unexpected EOF after %lu\n", rcvd);
				return 1;
			} else if (errno != EAGAIN) {
				perror("recv");
				return 1;
			}
		}
		if (sent < n && (p.revents & POLLOUT)) {
			if (!have) {
				cur = msg_size(&size_rng, max);
				msg_fill(tx, cur, &data_rng);
				have = true;
			}
			r = send(fd, tx, cur, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (r == (ssize_t)cur) {
				hash_msg(&hs, tx, cur);
				sbytes += cur;
				sent++;
				have = false;
			} else if (r >= 0 || errno != EAGAIN) {
				perror("send");
				return 1;
			}
		}
		if (p.revents & (POLLERR | POLLHUP) && !(p.revents & POLLIN)) {
			int err = 0;
			socklen_t elen = sizeof(err);

			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen);
			fprintf(stderr, "connection error: %s: sent %lu rcvd %lu\n",
				err ? strerror(err) : "hang-up", sent, rcvd);
			return 1;
		}
	}
	dt = now_s() - t0;
	write_info(fd, ifile);
	sha_hex(&hs, hex);
	printf("tx %s %lu %zu\n", hex, sent, sbytes);
	sha_hex(&hr, hex);
	printf("rx %s %lu %zu\n", hex, rcvd, rbytes);
	printf("rate %.1f Mbit/s (%.2f s)\n", (sbytes + rbytes) * 8 / dt / 1e6, dt);
	print_bufs(fd, "end");
	fflush(stdout);
	if (info && print_info(fd, sent))
		return 1;
	while (linger > 0 && !(hold && !access(hold, F_OK))) {
		usleep(200000);
		linger -= 0.2;
		write_info(fd, ifile);
	}
	for (i = 0; hold && i < 600 && access(hold, F_OK); i++)
		usleep(100000);
	close(fd);
	return 0;
}
