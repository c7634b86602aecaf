/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libmrc-fi.so: a libfabric core provider ("mrc") over AF_MRC, FI_EP_MSG
 * only; ofi_rxm layers FI_EP_RDM and tagged messages on top of it.
 * Documentation/networking/mrc-libfabric.rst describes what it offers.
 *
 * One AF_MRC SOCK_SEQPACKET socket is one fi_endpoint; a passive endpoint
 * is a listening socket. Progress is manual: reading a CQ progresses the
 * endpoints bound to it, reading an EQ the endpoints and passive endpoints
 * bound to it. One lock (fm_lock) serialises every call into the provider,
 * so any threading level is honoured.
 */
#ifndef FI_MRC_H
#define FI_MRC_H

#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_collective.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_prov.h>
#include <rdma/providers/fi_log.h>

#include "fm_proto.h"

#define FM_PROV_NAME	"mrc"
#define FM_FABRIC_NAME	"mrc"
#define FM_DOMAIN_NAME	"mrc"
#define FM_PROV_VERSION	FI_VERSION(0, 1)
#define FM_API_VERSION	FI_VERSION(1, 17)

#define FM_IOV_LIMIT	8
#define FM_TX_SIZE	1024
#define FM_RX_SIZE	1024
#define FM_INJECT_SIZE	16384
#define FM_MR_KEY_SIZE	8
#define FM_BACKLOG	128
/*
 * Messages one endpoint reads per progress call, so that one busy
 * connection does not starve the others.
 */
#define FM_RX_BUDGET	64

#define FM_CAPS (FI_MSG | FI_RMA | FI_SEND | FI_RECV | FI_READ | FI_WRITE | \
		 FI_REMOTE_READ | FI_REMOTE_WRITE | FI_LOCAL_COMM | FI_REMOTE_COMM)
#define FM_ORDER (FI_ORDER_RAR | FI_ORDER_RAW | FI_ORDER_RAS | FI_ORDER_WAR | \
		  FI_ORDER_WAW | FI_ORDER_WAS | FI_ORDER_SAR | FI_ORDER_SAW | \
		  FI_ORDER_SAS)

extern struct fi_provider fm_prov;
extern pthread_mutex_t fm_lock;

#define FM_WARN(subsys, ...) FI_WARN(&fm_prov, subsys, __VA_ARGS__)
#define FM_DBG(subsys, ...) FI_DBG(&fm_prov, subsys, __VA_ARGS__)

/*
 * Intrusive doubly linked list. Walked as
 * for (pos = head.next; pos != &head; pos = tmp) { tmp = pos->next; ... }
 * so that the body may remove (and free) pos.
 */
struct fm_list {
	struct fm_list *next, *prev;
};

static inline void fm_list_init(struct fm_list *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool fm_list_empty(const struct fm_list *l)
{
	return l->next == l;
}

static inline void fm_list_add_tail(struct fm_list *l, struct fm_list *e)
{
	e->prev = l->prev;
	e->next = l;
	l->prev->next = e;
	l->prev = e;
}

static inline void fm_list_del(struct fm_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	fm_list_init(e);
}

#define fm_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* ---- socket backend (fm_sock.c) ---- */

/* fm_sock_available() - AF_MRC (or the test backend) can be used */
bool fm_sock_available(void);
/* Largest payload one framed message can carry. */
size_t fm_sock_max_msg(void);
/* Each returns a file descriptor or 0, or a negative errno. */
int fm_sock_open(void);
int fm_sock_bind(int fd, const struct sockaddr_in6 *sin6);
int fm_sock_connect(int fd, const struct sockaddr_in6 *sin6);
int fm_sock_listen(int fd, int backlog);
int fm_sock_accept(int fd);
int fm_sock_name(int fd, struct sockaddr_in6 *sin6);
int fm_sock_peer(int fd, struct sockaddr_in6 *sin6);

/* ---- addresses and fi_info (fm_attr.c) ---- */

int fm_getinfo(uint32_t version, const char *node, const char *service,
	       uint64_t flags, const struct fi_info *hints,
	       struct fi_info **info);
/* fm_info_base() - a new fi_info with everything the provider offers */
struct fi_info *fm_info_base(void);
/* fm_info_match() - 0 if @hints asks nothing @prov lacks, -FI_ENODATA */
int fm_info_match(const struct fi_info *prov, const struct fi_info *hints);
/* fm_addr_from() - an FI_SOCKADDR_IN6/FI_SOCKADDR address as sockaddr_in6 */
int fm_addr_from(const void *addr, size_t len, struct sockaddr_in6 *sin6);
/* fm_addr_source() - the local address the provider names for @dst */
int fm_addr_source(const struct sockaddr_in6 *dst, struct sockaddr_in6 *src);
/* fm_addr_copyout() - fi_getname() semantics: -FI_ETOOSMALL, *len set */
int fm_addr_copyout(const struct sockaddr_in6 *sin6, void *addr, size_t *len);

/* ---- fabric and domain (fm_fabric.c) ---- */

struct fm_fabric {
	struct fid_fabric fabric_fid;
};

struct fm_domain {
	struct fid_domain domain_fid;
	struct fm_fabric *fab;
	struct fm_list mrs;		/* struct fm_mr */
	uint64_t next_key;
	int mr_mode;
	int refs;			/* endpoints, CQs, MRs */
};

int fm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		   void *context);
int fm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_domain **domain, void *context);

/* Stubs for unsupported ops tables. */
extern struct fi_ops_tagged fm_no_tagged_ops;
extern struct fi_ops_atomic fm_no_atomic_ops;
extern struct fi_ops_collective fm_no_collective_ops;
int fm_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int fm_no_control(struct fid *fid, int command, void *arg);
int fm_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		   void **ops, void *context);

/* ---- memory regions (fm_mr.c) ---- */

struct fm_mr {
	struct fid_mr mr_fid;
	struct fm_domain *dom;
	struct fm_list link;
	uint8_t *base;
	size_t len;
	uint64_t access;
	uint64_t offset;		/* fi_mr_reg() offset argument */
};

extern struct fi_ops_mr fm_mr_ops;
/*
 * fm_mr_find() - the bytes [addr, addr + len) of the region with @key in
 * @dom, for an access (FI_REMOTE_READ or FI_REMOTE_WRITE)
 * Return: a pointer, or NULL with *@err a negative fi_errno.
 */
uint8_t *fm_mr_find(struct fm_domain *dom, uint64_t key, uint64_t addr,
		    size_t len, uint64_t access, int *err);

/* ---- event queue (fm_eq.c) ---- */

struct fm_eq_event {
	struct fm_list link;
	uint32_t event;
	bool err;
	fid_t fid;			/* whose event: purged when it closes */
	size_t len;			/* bytes of buf */
	struct fi_eq_err_entry err_entry;
	uint8_t buf[];			/* fi_eq_cm_entry/fi_eq_entry + data */
};

struct fm_eq {
	struct fid_eq eq_fid;
	struct fm_fabric *fab;
	struct fm_list events;
	void *err_data;			/* last error entry's data, ours */
	enum fi_wait_obj wait_obj;
	int refs;
};

int fm_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
	       struct fid_eq **eq, void *context);
/* Queue a CM event (FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN) for @fid. */
int fm_eq_cm_event(struct fm_eq *eq, uint32_t event, fid_t fid,
		   struct fi_info *info, const void *data, size_t datalen);
/* Queue an error entry for @fid; @data (reject data) is copied. */
int fm_eq_error(struct fm_eq *eq, fid_t fid, void *context, int err,
		int prov_errno, const void *data, size_t datalen);
/* Drop the queued events of @fid (it is being closed). */
void fm_eq_purge(struct fm_eq *eq, fid_t fid);

/* ---- completion queue (fm_cq.c) ---- */

struct fm_cqe {
	struct fm_list link;
	bool err;
	struct fi_cq_err_entry e;
};

struct fm_cq {
	struct fid_cq cq_fid;
	struct fm_domain *dom;
	struct fm_list entries;
	struct fm_list free;
	enum fi_cq_format format;
	enum fi_wait_obj wait_obj;
	int refs;
};

int fm_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
	       struct fid_cq **cq, void *context);
/* Queue a completion; NULL @cq queues nothing. */
int fm_cq_write(struct fm_cq *cq, void *context, uint64_t flags, size_t len,
		void *buf, uint64_t data);
int fm_cq_write_err(struct fm_cq *cq, void *context, uint64_t flags,
		    size_t len, void *buf, uint64_t data, size_t olen, int err,
		    int prov_errno);

/* ---- endpoints (fm_ep.c, fm_cm.c, fm_msg.c) ---- */

enum fm_ep_state {
	FM_EP_IDLE,		/* no connection yet */
	FM_EP_CONNECTING,	/* socket connect() in progress */
	FM_EP_REQ_SENT,		/* our CM_REQ is out, waiting for the answer */
	FM_EP_ACCEPTING,	/* server side, before fi_accept() */
	FM_EP_CONNECTED,
	FM_EP_SHUTDOWN,		/* end of file or fi_shutdown() */
	FM_EP_FAILED,		/* refused, reset, timed out */
};

/* A posted receive, or an RMA read waiting for its answer. */
struct fm_xfer {
	struct fm_list link;
	void *context;
	uint64_t flags;
	struct iovec iov[FM_IOV_LIMIT];
	size_t count;
	size_t len;
	uint32_t id;			/* reads */
};

/*
 * A message the provider owes the peer (a read answer, CM data) that the
 * socket had no room for: sent before anything else.
 */
struct fm_txq {
	struct fm_list link;
	size_t len;
	uint8_t buf[];			/* header and payload */
};

/*
 * A connection request at a passive endpoint (FI_CLASS_CONNREQ): the
 * accepted socket, until fi_endpoint() takes it or fi_reject() ends it.
 */
struct fm_conn {
	struct fid fid;
	struct fm_pep *pep;
	struct fm_list link;
	int fd;
	bool reported;			/* FI_CONNREQ queued */
	struct sockaddr_in6 peer;
};

struct fm_pep {
	struct fid_pep pep_fid;
	struct fm_fabric *fab;
	struct fi_info *info;
	struct fm_eq *eq;
	struct fm_list link;		/* fm_peps */
	struct fm_list conns;		/* struct fm_conn */
	int fd;
	bool listening;
};

struct fm_ep {
	struct fid_ep ep_fid;
	struct fm_domain *dom;
	struct fi_info *info;
	struct fm_list link;		/* fm_eps */
	int fd;
	enum fm_ep_state state;
	int err;			/* FM_EP_FAILED: positive fi_errno */
	bool enabled;
	bool shutdown_reported;
	struct fm_eq *eq;
	struct fm_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	uint64_t tx_op_flags, rx_op_flags;
	struct fm_list rx_posted;	/* struct fm_xfer */
	size_t rx_count;
	struct fm_list reads;		/* struct fm_xfer, by id */
	uint32_t next_read_id;
	struct fm_list txq;		/* struct fm_txq */
	struct sockaddr_in6 peer;
	uint8_t cm_data[FM_CM_DATA_MAX];
	size_t cm_len;
	size_t max_msg;
};

/* Every live endpoint and passive endpoint: what progress walks. */
extern struct fm_list fm_eps, fm_peps;

int fm_ep_open(struct fid_domain *domain, struct fi_info *info,
	       struct fid_ep **ep, void *context);
int fm_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		struct fid_pep **pep, void *context);

extern struct fi_ops_cm fm_ep_cm_ops;
extern struct fi_ops_cm fm_pep_cm_ops;
extern struct fi_ops_msg fm_msg_ops;
extern struct fi_ops_rma fm_rma_ops;

/*
 * Progress (fm_ep.c): one endpoint, a passive endpoint, or everything
 * bound to a CQ or an EQ.
 */
void fm_ep_progress(struct fm_ep *ep);
void fm_pep_progress(struct fm_pep *pep);
void fm_progress_cq(struct fm_cq *cq);
void fm_progress_eq(struct fm_eq *eq);
/* fm_wait_fds() - poll() set for what @cq or @eq waits on; returns count */
int fm_wait_fds(struct fm_cq *cq, struct fm_eq *eq, struct pollfd *fds,
		int max);
/* Block (lock released) until a socket of @cq/@eq is ready or @ms pass. */
void fm_wait(struct fm_cq *cq, struct fm_eq *eq, int ms);

/* fi_getopt() of endpoints and passive endpoints (FI_OPT_CM_DATA_SIZE). */
int fm_getopt_common(int level, int optname, void *optval, size_t *optlen);
/* A connection failed or ended: EQ event, state. */
void fm_ep_conn_error(struct fm_ep *ep, int err);
/* Send one framed message now, or queue it (internal messages only). */
int fm_ep_send_frame(struct fm_ep *ep, const struct fm_hdr *h,
		     const struct iovec *iov, size_t count, bool may_queue);
int fm_ep_flush_txq(struct fm_ep *ep);
/* Receive side handlers (fm_msg.c). */
int fm_ep_rx_msg(struct fm_ep *ep, const struct fm_hdr *h, size_t paylen);
int fm_ep_rx_write(struct fm_ep *ep, const struct fm_hdr *h, size_t paylen);
int fm_ep_rx_read_req(struct fm_ep *ep, const struct fm_hdr *h);
int fm_ep_rx_read_resp(struct fm_ep *ep, const struct fm_hdr *h,
		       size_t paylen);
/* Consume (discard) the message at the head of the socket. */
int fm_ep_rx_discard(struct fm_ep *ep);

static inline size_t fm_iov_len(const struct iovec *iov, size_t count)
{
	size_t len = 0;

	for (size_t i = 0; i < count; i++)
		len += iov[i].iov_len;
	return len;
}

#endif /* FI_MRC_H */
