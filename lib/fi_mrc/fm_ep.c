// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Active endpoints: the object (open, bind, enable, close, options,
 * cancel) and their progress. Progress reads the socket one message at a
 * time: it peeks at the header (MSG_PEEK | MSG_TRUNC gives the whole
 * length), then receives the message straight into where it belongs: the
 * next posted receive, a memory region (RMA write), the buffer of a read.
 * A message with no posted receive stays in the socket, and so does
 * everything after it: AF_MRC's own flow control then holds the sender.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fi_mrc.h"
#include "fm_errno.h"

/* ---- sending framed messages ---- */

int fm_ep_send_frame(struct fm_ep *ep, const struct fm_hdr *h,
		     const struct iovec *iov, size_t count, bool may_queue)
{
	uint8_t hb[FM_HDR_LEN];
	struct iovec v[FM_IOV_LIMIT + 1];
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = count + 1 };
	struct fm_txq *q;
	size_t len;

	if (count > FM_IOV_LIMIT)
		return -EINVAL;
	fm_hdr_encode(h, hb);
	v[0].iov_base = hb;
	v[0].iov_len = FM_HDR_LEN;
	for (size_t i = 0; i < count; i++)
		v[i + 1] = iov[i];
	if (fm_list_empty(&ep->txq)) {
		if (sendmsg(ep->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno != EAGAIN && errno != ENOBUFS)
			return -errno;
	}
	if (!may_queue)
		return -EAGAIN;
	/* The provider's own message (an answer, CM data): keep a copy. */
	len = FM_HDR_LEN + fm_iov_len(iov, count);
	q = malloc(sizeof(*q) + len);
	if (!q)
		return -ENOMEM;
	q->len = len;
	len = 0;
	for (size_t i = 0; i <= count; i++) {
		memcpy(q->buf + len, v[i].iov_base, v[i].iov_len);
		len += v[i].iov_len;
	}
	fm_list_add_tail(&ep->txq, &q->link);
	return 0;
}

int fm_ep_flush_txq(struct fm_ep *ep)
{
	while (!fm_list_empty(&ep->txq)) {
		struct fm_txq *q = fm_container_of(ep->txq.next, struct fm_txq, link);

		if (send(ep->fd, q->buf, q->len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			return errno == EAGAIN || errno == ENOBUFS ? 0 : -errno;
		fm_list_del(&q->link);
		free(q);
	}
	return 0;
}

/* ---- connection state ---- */

void fm_ep_conn_error(struct fm_ep *ep, int err)
{
	int fierr = fm_fi_errno(err);

	if (ep->state == FM_EP_FAILED)
		return;
	if (!fierr)
		fierr = FI_EOTHER;
	ep->state = FM_EP_FAILED;
	ep->err = fierr;
	FM_DBG(FI_LOG_EP_CTRL, "connection failed: %s\n", fi_strerror(fierr));
	fm_eq_error(ep->eq, &ep->ep_fid.fid, ep->ep_fid.fid.context, fierr,
		    err < 0 ? -err : err, NULL, 0);
}

/* The peer shut down or closed: FI_SHUTDOWN, once. */
static void fm_ep_eof(struct fm_ep *ep)
{
	if (ep->state == FM_EP_REQ_SENT) {
		/* Closed before it answered: as refused. */
		fm_ep_conn_error(ep, ECONNREFUSED);
		return;
	}
	ep->state = FM_EP_SHUTDOWN;
	if (!ep->shutdown_reported) {
		ep->shutdown_reported = true;
		fm_eq_cm_event(ep->eq, FI_SHUTDOWN, &ep->ep_fid.fid, NULL, NULL, 0);
	}
}

int fm_ep_rx_discard(struct fm_ep *ep)
{
	uint8_t hb[FM_HDR_LEN];

	if (recv(ep->fd, hb, sizeof(hb), MSG_DONTWAIT) < 0)
		return -errno;
	return 0;
}

/* The answer to our CM_REQ: FI_CONNECTED with its data, or refused. */
static int fm_ep_rx_cm_answer(struct fm_ep *ep, const struct fm_hdr *h)
{
	uint8_t hb[FM_HDR_LEN], data[FM_CM_DATA_MAX];
	struct iovec v[2] = { { hb, sizeof(hb) }, { data, sizeof(data) } };
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = 2 };
	ssize_t n = recvmsg(ep->fd, &mh, MSG_DONTWAIT);
	size_t len;

	if (n < 0)
		return -errno;
	len = (size_t)n - FM_HDR_LEN;
	if (h->op == FM_OP_CM_ACCEPT) {
		ep->state = FM_EP_CONNECTED;
		return fm_eq_cm_event(ep->eq, FI_CONNECTED, &ep->ep_fid.fid,
				      NULL, data, len);
	}
	ep->state = FM_EP_FAILED;
	ep->err = FI_ECONNREFUSED;
	return fm_eq_error(ep->eq, &ep->ep_fid.fid, ep->ep_fid.fid.context,
			   FI_ECONNREFUSED, ECONNREFUSED, data, len);
}

/* A non-blocking connect() finished: send our CM_REQ. */
static bool fm_ep_connect_done(struct fm_ep *ep)
{
	struct pollfd p = { .fd = ep->fd, .events = POLLOUT };
	int err = 0, ret;
	socklen_t len = sizeof(err);
	struct fm_hdr h = { .op = FM_OP_CM_REQ };
	struct iovec v = { ep->cm_data, ep->cm_len };

	if (poll(&p, 1, 0) <= 0)
		return false;
	if (getsockopt(ep->fd, SOL_SOCKET, SO_ERROR, &err, &len))
		err = errno;
	if (err) {
		fm_ep_conn_error(ep, err);
		return false;
	}
	if (!(p.revents & POLLOUT)) {
		if (p.revents & (POLLERR | POLLHUP))
			fm_ep_conn_error(ep, ECONNREFUSED);
		return false;
	}
	ret = fm_ep_send_frame(ep, &h, &v, 1, true);
	if (ret) {
		fm_ep_conn_error(ep, -ret);
		return false;
	}
	ep->state = FM_EP_REQ_SENT;
	return true;
}

void fm_ep_progress(struct fm_ep *ep)
{
	int ret;

	switch (ep->state) {
	case FM_EP_CONNECTING:
		if (!fm_ep_connect_done(ep))
			return;
		break;
	case FM_EP_REQ_SENT:
	case FM_EP_CONNECTED:
	case FM_EP_SHUTDOWN:
		break;
	default:
		return;
	}
	ret = fm_ep_flush_txq(ep);
	if (ret) {
		fm_ep_conn_error(ep, -ret);
		return;
	}
	for (int i = 0; i < FM_RX_BUDGET; i++) {
		uint8_t hb[FM_HDR_LEN];
		struct iovec v = { hb, sizeof(hb) };
		struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1 };
		struct fm_hdr h;
		ssize_t n;
		size_t paylen;

		if (ep->state == FM_EP_FAILED)
			return;
		n = recvmsg(ep->fd, &mh, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			fm_ep_conn_error(ep, errno);
			return;
		}
		if (n == 0) {		/* frames are never empty: end of file */
			fm_ep_eof(ep);
			return;
		}
		if (fm_hdr_decode(hb, (size_t)n, &h)) {
			fm_ep_rx_discard(ep);
			fm_ep_conn_error(ep, EPROTO);
			return;
		}
		paylen = (size_t)n - FM_HDR_LEN;
		if (ep->state == FM_EP_REQ_SENT) {
			if (h.op != FM_OP_CM_ACCEPT && h.op != FM_OP_CM_REJECT) {
				fm_ep_rx_discard(ep);
				fm_ep_conn_error(ep, EPROTO);
				return;
			}
			ret = fm_ep_rx_cm_answer(ep, &h);
			if (ret || ep->state != FM_EP_CONNECTED)
				return;
			continue;
		}
		switch (h.op) {
		case FM_OP_MSG:
			ret = fm_ep_rx_msg(ep, &h, paylen);
			break;
		case FM_OP_WRITE:
			ret = fm_ep_rx_write(ep, &h, paylen);
			break;
		case FM_OP_READ_REQ:
			ret = fm_ep_rx_read_req(ep, &h);
			break;
		case FM_OP_READ_RESP:
			ret = fm_ep_rx_read_resp(ep, &h, paylen);
			break;
		default:
			fm_ep_rx_discard(ep);
			ret = -EPROTO;
			break;
		}
		if (ret == -FI_EAGAIN)
			return;		/* no receive posted: it waits */
		if (ret) {
			fm_ep_conn_error(ep, -ret);
			return;
		}
	}
}

void fm_progress_cq(struct fm_cq *cq)
{
	struct fm_list *pos, *tmp;

	for (pos = fm_eps.next; pos != &fm_eps; pos = tmp) {
		struct fm_ep *ep = fm_container_of(pos, struct fm_ep, link);

		tmp = pos->next;
		if (ep->tx_cq == cq || ep->rx_cq == cq)
			fm_ep_progress(ep);
	}
}

void fm_progress_eq(struct fm_eq *eq)
{
	struct fm_list *pos, *tmp;

	for (pos = fm_peps.next; pos != &fm_peps; pos = tmp) {
		struct fm_pep *pep = fm_container_of(pos, struct fm_pep, link);

		tmp = pos->next;
		if (pep->eq == eq)
			fm_pep_progress(pep);
	}
	for (pos = fm_eps.next; pos != &fm_eps; pos = tmp) {
		struct fm_ep *ep = fm_container_of(pos, struct fm_ep, link);

		tmp = pos->next;
		if (ep->eq == eq)
			fm_ep_progress(ep);
	}
}

static short fm_ep_events(const struct fm_ep *ep)
{
	switch (ep->state) {
	case FM_EP_CONNECTING:
		return POLLOUT;
	case FM_EP_REQ_SENT:
	case FM_EP_CONNECTED:
	case FM_EP_SHUTDOWN:
		return POLLIN | (fm_list_empty(&ep->txq) ? 0 : POLLOUT);
	default:
		return 0;
	}
}

int fm_wait_fds(struct fm_cq *cq, struct fm_eq *eq, struct pollfd *fds,
		int max)
{
	struct fm_list *pos, *tmp, *c, *ctmp;
	int n = 0;

	for (pos = fm_eps.next; pos != &fm_eps; pos = tmp) {
		struct fm_ep *ep = fm_container_of(pos, struct fm_ep, link);
		short ev = fm_ep_events(ep);

		tmp = pos->next;
		if (!ev || ep->fd < 0 || n >= max)
			continue;
		if ((cq && (ep->tx_cq == cq || ep->rx_cq == cq)) ||
		    (eq && ep->eq == eq))
			fds[n++] = (struct pollfd){ .fd = ep->fd, .events = ev };
	}
	for (pos = fm_peps.next; pos != &fm_peps; pos = tmp) {
		struct fm_pep *pep = fm_container_of(pos, struct fm_pep, link);

		tmp = pos->next;
		if (!eq || pep->eq != eq || !pep->listening)
			continue;
		if (n < max)
			fds[n++] = (struct pollfd){ .fd = pep->fd, .events = POLLIN };
		for (c = pep->conns.next; c != &pep->conns; c = ctmp) {
			struct fm_conn *conn = fm_container_of(c, struct fm_conn, link);

			ctmp = c->next;
			if (!conn->reported && conn->fd >= 0 && n < max)
				fds[n++] = (struct pollfd){ .fd = conn->fd,
							    .events = POLLIN };
		}
	}
	return n;
}

void fm_wait(struct fm_cq *cq, struct fm_eq *eq, int ms)
{
	struct pollfd fds[256];
	int n = fm_wait_fds(cq, eq, fds, 256);

	pthread_mutex_unlock(&fm_lock);
	poll(fds, (nfds_t)n, ms);
	pthread_mutex_lock(&fm_lock);
}

/* ---- the endpoint object ---- */

static void fm_xfer_free_list(struct fm_list *l)
{
	struct fm_list *pos, *tmp;

	for (pos = l->next; pos != l; pos = tmp) {
		tmp = pos->next;
		fm_list_del(pos);
		free(fm_container_of(pos, struct fm_xfer, link));
	}
}

static int fm_ep_close(struct fid *fid)
{
	struct fm_ep *ep = fm_container_of(fid, struct fm_ep, ep_fid.fid);
	struct fm_list *pos, *tmp;

	pthread_mutex_lock(&fm_lock);
	fm_list_del(&ep->link);
	fm_eq_purge(ep->eq, fid);
	if (ep->fd >= 0)
		close(ep->fd);
	fm_xfer_free_list(&ep->rx_posted);
	fm_xfer_free_list(&ep->reads);
	for (pos = ep->txq.next; pos != &ep->txq; pos = tmp) {
		tmp = pos->next;
		fm_list_del(pos);
		free(fm_container_of(pos, struct fm_txq, link));
	}
	if (ep->eq)
		ep->eq->refs--;
	if (ep->tx_cq)
		ep->tx_cq->refs--;
	if (ep->rx_cq)
		ep->rx_cq->refs--;
	ep->dom->refs--;
	pthread_mutex_unlock(&fm_lock);
	fi_freeinfo(ep->info);
	free(ep);
	return 0;
}

static int fm_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct fm_ep *ep = fm_container_of(fid, struct fm_ep, ep_fid.fid);
	int ret = 0;

	pthread_mutex_lock(&fm_lock);
	switch (bfid->fclass) {
	case FI_CLASS_EQ: {
		struct fm_eq *eq = fm_container_of(bfid, struct fm_eq, eq_fid.fid);

		if (ep->eq)
			ep->eq->refs--;
		ep->eq = eq;
		eq->refs++;
		break;
	}
	case FI_CLASS_CQ: {
		struct fm_cq *cq = fm_container_of(bfid, struct fm_cq, cq_fid.fid);

		if (flags & ~(FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) {
			ret = -FI_EBADFLAGS;
			break;
		}
		if (flags & FI_TRANSMIT) {
			if (ep->tx_cq)
				ep->tx_cq->refs--;
			ep->tx_cq = cq;
			cq->refs++;
			ep->tx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		if (flags & FI_RECV) {
			if (ep->rx_cq)
				ep->rx_cq->refs--;
			ep->rx_cq = cq;
			cq->refs++;
			ep->rx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		break;
	}
	default:
		ret = -FI_ENOSYS;	/* counters, AVs, SRX: not offered */
		break;
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static int fm_ep_control(struct fid *fid, int command, void *arg)
{
	struct fm_ep *ep = fm_container_of(fid, struct fm_ep, ep_fid.fid);
	uint64_t *flags = arg;
	int ret = 0;

	pthread_mutex_lock(&fm_lock);
	switch (command) {
	case FI_ENABLE:
		ep->enabled = true;
		break;
	case FI_GETOPSFLAG:
		if (*flags & FI_TRANSMIT)
			*flags = ep->tx_op_flags;
		else if (*flags & FI_RECV)
			*flags = ep->rx_op_flags;
		else
			ret = -FI_EINVAL;
		break;
	case FI_SETOPSFLAG:
		if (*flags & FI_TRANSMIT)
			ep->tx_op_flags = *flags & ~FI_TRANSMIT;
		else if (*flags & FI_RECV)
			ep->rx_op_flags = *flags & ~FI_RECV;
		else
			ret = -FI_EINVAL;
		break;
	default:
		ret = -FI_ENOSYS;
		break;
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static struct fi_ops fm_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_ep_close,
	.bind = fm_ep_bind,
	.control = fm_ep_control,
	.ops_open = fm_no_ops_open,
};

static ssize_t fm_ep_cancel(fid_t fid, void *context)
{
	struct fm_ep *ep = fm_container_of(fid, struct fm_ep, ep_fid.fid);
	struct fm_list *pos, *tmp;
	ssize_t ret = -FI_ENOENT;

	pthread_mutex_lock(&fm_lock);
	for (pos = ep->rx_posted.next; pos != &ep->rx_posted; pos = tmp) {
		struct fm_xfer *x = fm_container_of(pos, struct fm_xfer, link);

		tmp = pos->next;
		if (x->context != context)
			continue;
		fm_list_del(&x->link);
		ep->rx_count--;
		fm_cq_write_err(ep->rx_cq, context, FI_RECV | FI_MSG, 0, NULL, 0,
				0, FI_ECANCELED, ECANCELED);
		free(x);
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

int fm_getopt_common(int level, int optname, void *optval, size_t *optlen)
{
	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	if (optname == FI_OPT_CM_DATA_SIZE) {
		if (*optlen < sizeof(size_t))
			return -FI_ETOOSMALL;
		*(size_t *)optval = FM_CM_DATA_MAX;
		*optlen = sizeof(size_t);
		return 0;
	}
	return -FI_ENOPROTOOPT;
}

static int fm_ep_getopt(fid_t fid, int level, int optname, void *optval,
			size_t *optlen)
{
	(void)fid;
	return fm_getopt_common(level, optname, optval, optlen);
}

static int fm_ep_setopt(fid_t fid, int level, int optname, const void *optval,
			size_t optlen)
{
	(void)fid, (void)level, (void)optname, (void)optval, (void)optlen;
	return -FI_ENOPROTOOPT;
}

static int fm_no_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		     struct fid_ep **ep, void *context)
{
	(void)sep, (void)index, (void)attr, (void)ep, (void)context;
	return -FI_ENOSYS;
}

static int fm_no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
			struct fid_ep **ep, void *context)
{
	(void)sep, (void)index, (void)attr, (void)ep, (void)context;
	return -FI_ENOSYS;
}

static ssize_t fm_ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct fm_ep *ep = fm_container_of(ep_fid, struct fm_ep, ep_fid);

	return (ssize_t)(FM_RX_SIZE - ep->rx_count);
}

static ssize_t fm_ep_tx_size_left(struct fid_ep *ep_fid)
{
	(void)ep_fid;
	return FM_TX_SIZE;
}

static struct fi_ops_ep fm_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = fm_ep_cancel,
	.getopt = fm_ep_getopt,
	.setopt = fm_ep_setopt,
	.tx_ctx = fm_no_ctx,
	.rx_ctx = fm_no_rx_ctx,
	.rx_size_left = fm_ep_rx_size_left,
	.tx_size_left = fm_ep_tx_size_left,
};

int fm_ep_open(struct fid_domain *domain, struct fi_info *info,
	       struct fid_ep **ep_fid, void *context)
{
	struct fm_domain *dom = fm_container_of(domain, struct fm_domain,
						 domain_fid);
	struct fm_conn *conn = NULL;
	struct fm_ep *ep;

	if (!info || !info->ep_attr || info->ep_attr->type != FI_EP_MSG)
		return -FI_EINVAL;
	if (info->handle) {
		if (info->handle->fclass != FI_CLASS_CONNREQ)
			return -FI_EINVAL;
		conn = fm_container_of(info->handle, struct fm_conn, fid);
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->info = fi_dupinfo(info);
	if (!ep->info) {
		free(ep);
		return -FI_ENOMEM;
	}
	ep->info->handle = NULL;
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = &fm_ep_fi_ops;
	ep->ep_fid.ops = &fm_ep_ops;
	ep->ep_fid.cm = &fm_ep_cm_ops;
	ep->ep_fid.msg = &fm_msg_ops;
	ep->ep_fid.rma = &fm_rma_ops;
	ep->ep_fid.tagged = &fm_no_tagged_ops;
	ep->ep_fid.atomic = &fm_no_atomic_ops;
	ep->ep_fid.collective = &fm_no_collective_ops;
	ep->dom = dom;
	ep->fd = -1;
	ep->state = FM_EP_IDLE;
	ep->max_msg = fm_sock_max_msg();
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	fm_list_init(&ep->rx_posted);
	fm_list_init(&ep->reads);
	fm_list_init(&ep->txq);

	pthread_mutex_lock(&fm_lock);
	if (conn) {
		/* The server side: the connection accepted at FI_CONNREQ. */
		if (conn->fd < 0) {
			pthread_mutex_unlock(&fm_lock);
			fi_freeinfo(ep->info);
			free(ep);
			return -FI_EINVAL;
		}
		ep->fd = conn->fd;
		ep->peer = conn->peer;
		ep->state = FM_EP_ACCEPTING;
		conn->fd = -1;
		fm_list_del(&conn->link);
		free(conn);
	}
	fm_list_add_tail(&fm_eps, &ep->link);
	dom->refs++;
	pthread_mutex_unlock(&fm_lock);
	*ep_fid = &ep->ep_fid;
	return 0;
}
