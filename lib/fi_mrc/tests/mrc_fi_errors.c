// SPDX-License-Identifier: GPL-2.0
/*
 * The libfabric provider "mrc" through libfabric's public API only, both
 * ends in one process: connection data both ways, messages with remote CQ
 * data, inject, RMA write and read, and the documented errors
 * (Documentation/networking/mrc-libfabric.rst, "Errors"):
 *
 *   connect to a service nobody listens on  EQ error entry FI_ECONNREFUSED
 *   fi_reject()                             EQ error entry FI_ECONNREFUSED
 *                                           with the reject data
 *   message longer than max_msg_size        fi_send() returns -FI_EMSGSIZE
 *   receive buffer shorter than the message CQ error entry FI_ETRUNC, olen
 *   RMA read with an unknown key            CQ error entry FI_ENOKEY
 *   the peer closes its endpoint            FI_SHUTDOWN, then fi_send()
 *                                           returns -FI_ESHUTDOWN
 *   a wildcard destination (::)             fi_connect() returns -FI_EINVAL
 *   an IPv4 destination address             fi_getinfo() -FI_ENODATA
 *
 * Prints one "ok"/"not ok" line per check (TAP), exits 0 when all pass.
 * Run with FI_PROVIDER_PATH naming the directory of libmrc-fi.so (and
 * FI_MRC_BACKEND=unix on a host without mrc.ko).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

static int checks, failures;
static int unix_backend;

static void check(int ok, const char *what, long got)
{
	checks++;
	if (!ok)
		failures++;
	printf("%s %d - %s (%ld)\n", ok ? "ok" : "not ok", checks, what, got);
	fflush(stdout);
}

static void die(const char *what, int ret)
{
	fprintf(stderr, "%s: %s (%d)\n", what, fi_strerror(-ret), ret);
	exit(1);
}

struct side {
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_eq *eq;
	struct fid_cq *cq;
	struct fid_ep *ep;
};

static struct fi_info *base;

static void side_open(struct side *s)
{
	struct fi_eq_attr eqa = { .wait_obj = FI_WAIT_UNSPEC };
	int ret;

	ret = fi_fabric(base->fabric_attr, &s->fabric, NULL);
	if (ret)
		die("fi_fabric", ret);
	ret = fi_eq_open(s->fabric, &eqa, &s->eq, NULL);
	if (ret)
		die("fi_eq_open", ret);
	ret = fi_domain(s->fabric, base, &s->domain, NULL);
	if (ret)
		die("fi_domain", ret);
}

static void ep_setup(struct side *s, struct fi_info *info)
{
	struct fi_cq_attr cqa = { .format = FI_CQ_FORMAT_DATA,
				  .wait_obj = FI_WAIT_NONE };
	int ret;

	if (!s->cq) {
		ret = fi_cq_open(s->domain, &cqa, &s->cq, NULL);
		if (ret)
			die("fi_cq_open", ret);
	}
	ret = fi_endpoint(s->domain, info, &s->ep, NULL);
	if (ret)
		die("fi_endpoint", ret);
	ret = fi_ep_bind(s->ep, &s->eq->fid, 0);
	if (!ret)
		ret = fi_ep_bind(s->ep, &s->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!ret)
		ret = fi_enable(s->ep);
	if (ret)
		die("endpoint set-up", ret);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Progress both CQs until @want has an entry (or an error): its result. */
static ssize_t cq_wait(struct fid_cq *want, struct fid_cq *other,
		       struct fi_cq_data_entry *e, struct fi_cq_err_entry *err)
{
	double end = now() + 20;
	ssize_t ret;

	do {
		struct fi_cq_data_entry tmp;

		ret = fi_cq_read(want, e, 1);
		if (ret == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			fi_cq_readerr(want, err, 0);
			return ret;
		}
		if (ret != -FI_EAGAIN)
			return ret;
		if (other && other != want) {
			ret = fi_cq_read(other, &tmp, 1);
			if (ret > 0)
				fprintf(stderr, "# unexpected completion on the peer\n");
		}
	} while (now() < end);
	return -FI_EAGAIN;
}

/* The next event of @eq, progressing @other's EQ meanwhile. */
static ssize_t eq_wait(struct fid_eq *eq, struct fid_eq *other, uint32_t *ev,
		       void *buf, size_t len, struct fi_eq_err_entry *err)
{
	double end = now() + 30;
	ssize_t ret;

	do {
		ret = fi_eq_sread(eq, ev, buf, len, 50, 0);
		if (ret == -FI_EAVAIL) {
			fi_eq_readerr(eq, err, 0);
			return ret;
		}
		if (ret != -FI_EAGAIN)
			return ret;
		if (other) {
			uint32_t oev;
			char obuf[512];

			/* Only progress: an event of the peer stays queued. */
			fi_eq_read(other, &oev, obuf, sizeof(obuf), FI_PEEK);
		}
	} while (now() < end);
	return -FI_EAGAIN;
}

union cm_buf {
	struct fi_eq_cm_entry e;
	char raw[sizeof(struct fi_eq_cm_entry) + 256];
};

/* Connect @cli to @srv's passive endpoint: both FI_CONNECTED. */
static void connect_pair(struct side *cli, struct side *srv, struct fid_pep *pep,
			 const void *addr)
{
	union cm_buf cm;
	struct fi_eq_err_entry err = { 0 };
	uint32_t ev;
	ssize_t n;
	int ret;

	ep_setup(cli, base);
	ret = fi_connect(cli->ep, addr, "hello", 6);
	check(ret == 0, "fi_connect() with 6 bytes of data", ret);
	n = eq_wait(srv->eq, cli->eq, &ev, &cm, sizeof(cm), &err);
	check(n > 0 && ev == FI_CONNREQ, "server: FI_CONNREQ", n);
	if (n <= 0 || ev != FI_CONNREQ)
		exit(1);
	check(n == (ssize_t)sizeof(cm.e) + 6 && !strcmp((char *)cm.e.data, "hello"),
	      "FI_CONNREQ carries the connect data", n);
	check(cm.e.info && cm.e.info->handle && cm.e.info->dest_addr,
	      "FI_CONNREQ info has a handle and the peer's address", 0);
	ep_setup(srv, cm.e.info);
	fi_freeinfo(cm.e.info);
	ret = fi_accept(srv->ep, "world", 6);
	check(ret == 0, "fi_accept() with 6 bytes of data", ret);
	n = eq_wait(srv->eq, cli->eq, &ev, &cm, sizeof(cm), &err);
	check(n > 0 && ev == FI_CONNECTED && cm.e.fid == &srv->ep->fid,
	      "server: FI_CONNECTED", n);
	n = eq_wait(cli->eq, srv->eq, &ev, &cm, sizeof(cm), &err);
	check(n == (ssize_t)sizeof(cm.e) + 6 && ev == FI_CONNECTED &&
	      !strcmp((char *)cm.e.data, "world"), "client: FI_CONNECTED with the accept data", n);
	(void)pep;
}

int main(void)
{
	struct fi_info *hints = fi_allocinfo(), *info;
	struct side srv = { 0 }, cli = { 0 }, cli2 = { 0 }, cli3 = { 0 };
	struct fid_pep *pep;
	struct sockaddr_in6 sa, bad;
	size_t salen = sizeof(sa);
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry cerr;
	struct fi_eq_err_entry eerr;
	union cm_buf cm;
	uint32_t ev;
	char *big, rbuf[128], sbuf[128], region[4096], back[4096];
	struct fid_mr *mr;
	ssize_t n;
	int ret;

	unix_backend = getenv("FI_MRC_BACKEND") &&
		       !strcmp(getenv("FI_MRC_BACKEND"), "unix");
	setvbuf(stdout, NULL, _IOLBF, 0);
	hints->ep_attr->type = FI_EP_MSG;
	hints->caps = FI_MSG | FI_RMA;
	hints->addr_format = FI_SOCKADDR_IN6;
	hints->fabric_attr->prov_name = strdup("mrc");
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, hints, &base);
	check(ret == 0, "fi_getinfo(prov mrc, FI_EP_MSG)", ret);
	if (ret)
		return 1;
	printf("# max_msg_size %zu inject_size %zu addr_format %u\n",
	       base->ep_attr->max_msg_size, base->tx_attr->inject_size,
	       base->addr_format);

	/* An IPv4 destination: not an AF_MRC address. */
	{
		struct fi_info *h4 = fi_dupinfo(hints);
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons(7471) };

		h4->addr_format = FI_SOCKADDR_IN;
		h4->dest_addr = malloc(sizeof(sin));
		memcpy(h4->dest_addr, &sin, sizeof(sin));
		h4->dest_addrlen = sizeof(sin);
		ret = fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h4, &info);
		check(ret == -FI_ENODATA, "IPv4 destination: fi_getinfo() -FI_ENODATA", ret);
		fi_freeinfo(h4);
	}

	side_open(&srv);
	side_open(&cli);
	side_open(&cli2);
	side_open(&cli3);
	ret = fi_passive_ep(srv.fabric, base, &pep, NULL);
	if (!ret)
		ret = fi_pep_bind(pep, &srv.eq->fid, 0);
	if (!ret)
		ret = fi_listen(pep);
	if (ret)
		die("passive endpoint", ret);
	ret = fi_getname(&pep->fid, &sa, &salen);
	check(ret == 0 && salen == sizeof(sa) && sa.sin6_family == AF_INET6 &&
	      sa.sin6_port, "fi_getname() of the passive endpoint", ret);
	{
		char txt[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &sa.sin6_addr, txt, sizeof(txt));
		printf("# listening on [%s]:%u\n", txt, ntohs(sa.sin6_port));
	}

	/* Nobody listens on service 1. */
	bad = sa;
	bad.sin6_port = htons(1);
	ep_setup(&cli3, base);
	ret = fi_connect(cli3.ep, &bad, NULL, 0);
	n = ret ? ret : eq_wait(cli3.eq, NULL, &ev, &cm, sizeof(cm), &eerr);
	check(n == -FI_EAVAIL && eerr.err == FI_ECONNREFUSED,
	      "connect to a closed service: EQ error FI_ECONNREFUSED",
	      n == -FI_EAVAIL ? eerr.err : n);
	fi_close(&cli3.ep->fid);
	cli3.ep = NULL;

	if (!unix_backend) {
		bad = sa;
		memset(&bad.sin6_addr, 0, sizeof(bad.sin6_addr));
		ep_setup(&cli3, base);
		ret = fi_connect(cli3.ep, &bad, NULL, 0);
		check(ret == -FI_EINVAL, "connect to [::]: -FI_EINVAL", ret);
		fi_close(&cli3.ep->fid);
	}

	connect_pair(&cli, &srv, pep, &sa);

	/* A message with remote CQ data. */
	ret = fi_recv(cli.ep, rbuf, sizeof(rbuf), NULL, 0, rbuf);
	check(ret == 0, "fi_recv()", ret);
	memset(sbuf, 'a', sizeof(sbuf));
	ret = fi_senddata(srv.ep, sbuf, 100, NULL, 0xdeadbeef, 0, sbuf);
	check(ret == 0, "fi_senddata() 100 bytes", ret);
	n = cq_wait(srv.cq, cli.cq, &e, &cerr);
	check(n == 1 && e.op_context == sbuf && (e.flags & FI_SEND),
	      "send completion", n);
	n = cq_wait(cli.cq, srv.cq, &e, &cerr);
	check(n == 1 && e.op_context == rbuf && e.len == 100 &&
	      (e.flags & (FI_RECV | FI_REMOTE_CQ_DATA)) == (FI_RECV | FI_REMOTE_CQ_DATA) &&
	      e.data == 0xdeadbeef && rbuf[99] == 'a',
	      "receive completion: 100 bytes, FI_REMOTE_CQ_DATA 0xdeadbeef", n);

	/* Inject: no completion of its own. */
	ret = fi_recv(cli.ep, rbuf, sizeof(rbuf), NULL, 0, rbuf);
	ret = ret ? ret : fi_inject(srv.ep, "inj", 4, 0);
	check(ret == 0, "fi_inject() 4 bytes", ret);
	n = cq_wait(cli.cq, srv.cq, &e, &cerr);
	check(n == 1 && e.len == 4 && !strcmp(rbuf, "inj") &&
	      !(e.flags & FI_REMOTE_CQ_DATA), "injected message received", n);
	n = fi_cq_read(srv.cq, &e, 1);
	check(n == -FI_EAGAIN, "inject generated no completion", n);

	/* Longer than max_msg_size. */
	big = malloc(base->ep_attr->max_msg_size + 1);
	ret = fi_send(srv.ep, big, base->ep_attr->max_msg_size + 1, NULL, 0, NULL);
	check(ret == -FI_EMSGSIZE, "send of max_msg_size + 1 bytes: -FI_EMSGSIZE", ret);

	/* A receive buffer shorter than the message. */
	ret = fi_recv(cli.ep, rbuf, 10, NULL, 0, rbuf);
	ret = ret ? ret : fi_send(srv.ep, sbuf, 100, NULL, 0, sbuf);
	check(ret == 0, "post 10 bytes, send 100", ret);
	cq_wait(srv.cq, cli.cq, &e, &cerr);
	n = cq_wait(cli.cq, srv.cq, &e, &cerr);
	check(n == -FI_EAVAIL && cerr.err == FI_ETRUNC && cerr.len == 10 &&
	      cerr.olen == 90 && cerr.op_context == rbuf,
	      "CQ error entry FI_ETRUNC, len 10, olen 90", n == -FI_EAVAIL ? cerr.err : n);

	/* RMA write then read back, through the server's progress. */
	memset(region, 0, sizeof(region));
	ret = fi_mr_reg(srv.domain, region, sizeof(region),
			FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 42, 0, &mr, NULL);
	check(ret == 0 && fi_mr_key(mr) == 42, "fi_mr_reg() key 42", ret);
	memset(back, 'w', sizeof(back));
	ret = fi_write(cli.ep, back, 1000, NULL, 0, 100, 42, back);
	check(ret == 0, "fi_write() 1000 bytes at offset 100", ret);
	n = cq_wait(cli.cq, srv.cq, &e, &cerr);
	check(n == 1 && (e.flags & FI_WRITE), "write completion", n);
	memset(back, 0, sizeof(back));
	ret = fi_read(cli.ep, back, 1100, NULL, 0, 0, 42, back);
	check(ret == 0, "fi_read() 1100 bytes at offset 0", ret);
	n = cq_wait(cli.cq, srv.cq, &e, &cerr);
	check(n == 1 && (e.flags & FI_READ) && e.len == 1100 && back[99] == 0 &&
	      back[100] == 'w' && back[1099] == 'w', "read completion and data", n);
	ret = fi_read(cli.ep, back, 10, NULL, 0, 0, 43, back);
	n = ret ? ret : cq_wait(cli.cq, srv.cq, &e, &cerr);
	check(n == -FI_EAVAIL && cerr.err == FI_ENOKEY,
	      "read with an unknown key: CQ error FI_ENOKEY", n == -FI_EAVAIL ? cerr.err : n);
	fi_close(&mr->fid);

	/* fi_reject() with data. */
	ep_setup(&cli2, base);
	ret = fi_connect(cli2.ep, &sa, NULL, 0);
	n = eq_wait(srv.eq, cli2.eq, &ev, &cm, sizeof(cm), &eerr);
	check(n > 0 && ev == FI_CONNREQ, "second FI_CONNREQ", n);
	if (n > 0 && ev == FI_CONNREQ) {
		char ed[64] = { 0 };

		ret = fi_reject(pep, cm.e.info->handle, "no", 3);
		check(ret == 0, "fi_reject() with 3 bytes of data", ret);
		fi_freeinfo(cm.e.info);
		memset(&eerr, 0, sizeof(eerr));
		eerr.err_data = ed;
		eerr.err_data_size = sizeof(ed);
		n = eq_wait(cli2.eq, srv.eq, &ev, &cm, sizeof(cm), &eerr);
		check(n == -FI_EAVAIL && eerr.err == FI_ECONNREFUSED &&
		      eerr.err_data_size == 3 && !strcmp(ed, "no"),
		      "rejected: EQ error FI_ECONNREFUSED with the reject data",
		      n == -FI_EAVAIL ? eerr.err : n);
	}

	/* The peer goes away. */
	fi_close(&srv.ep->fid);
	srv.ep = NULL;
	n = eq_wait(cli.eq, NULL, &ev, &cm, sizeof(cm), &eerr);
	check(n > 0 && ev == FI_SHUTDOWN && cm.e.fid == &cli.ep->fid,
	      "peer closed: FI_SHUTDOWN", n > 0 ? (long)ev : n);
	ret = fi_send(cli.ep, sbuf, 10, NULL, 0, NULL);
	check(ret == -FI_ESHUTDOWN, "send after FI_SHUTDOWN: -FI_ESHUTDOWN", ret);

	fi_close(&cli.ep->fid);
	fi_close(&cli2.ep->fid);
	fi_close(&pep->fid);
	printf("1..%d\n", checks);
	printf("# %d of %d checks failed\n", failures, checks);
	free(big);
	return failures ? 1 : 0;
}
