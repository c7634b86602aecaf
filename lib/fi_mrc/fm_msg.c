// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Data transfer: messages (fi_send, fi_sendv, fi_sendmsg, fi_inject,
 * fi_senddata, fi_injectdata, fi_recv, fi_recvv, fi_recvmsg) and RMA
 * emulated over messages (fi_read*, fi_write*, fi_inject_write*), each one
 * framed AF_MRC message (fm_proto.h).
 *
 * A send is complete when sendmsg() returns: AF_MRC has copied the
 * message and delivers it reliably and in order, so its buffer may be
 * reused (the tcp provider completes at the same point). An RMA read is
 * complete when the target's answer has been received, which needs the
 * target to progress its endpoint (manual progress).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fi_mrc.h"
#include "fm_errno.h"

static inline struct fm_ep *fm_ep_of(struct fid_ep *ep_fid)
{
	return fm_container_of(ep_fid, struct fm_ep, ep_fid);
}

/* May the endpoint carry data now? 0 or a negative fi_errno. */
static int fm_ep_ready(struct fm_ep *ep)
{
	switch (ep->state) {
	case FM_EP_CONNECTED:
		return 0;
	case FM_EP_SHUTDOWN:
		return -FI_ESHUTDOWN;
	case FM_EP_FAILED:
		return -ep->err;
	default:
		return -FI_ENOTCONN;
	}
}

/* Make room for a send: the provider's own queued messages go first. */
static int fm_ep_tx_room(struct fm_ep *ep)
{
	int ret;

	if (fm_list_empty(&ep->txq))
		return 0;
	ret = fm_ep_flush_txq(ep);
	if (ret)
		return -fm_fi_errno(ret);
	return fm_list_empty(&ep->txq) ? 0 : -FI_EAGAIN;
}

static ssize_t fm_tx(struct fm_ep *ep, struct fm_hdr *h, const struct iovec *iov,
		     size_t count, void *context, uint64_t flags,
		     uint64_t comp_flags)
{
	size_t len = fm_iov_len(iov, count);
	int ret;

	if (count > FM_IOV_LIMIT)
		return -FI_EINVAL;
	if (len > ep->max_msg)
		return -FI_EMSGSIZE;
	if ((flags & FI_INJECT) && len > FM_INJECT_SIZE)
		return -FI_EMSGSIZE;
	if (flags & FI_REMOTE_CQ_DATA)
		h->flags |= FM_HDR_F_DATA;
	else
		h->data = 0;
	pthread_mutex_lock(&fm_lock);
	ret = fm_ep_ready(ep);
	if (!ret)
		ret = fm_ep_tx_room(ep);
	if (!ret) {
		ret = fm_ep_send_frame(ep, h, iov, count, false);
		if (ret == -EAGAIN || ret == -ENOBUFS) {
			/* Let the connection move while the caller retries. */
			fm_ep_progress(ep);
			ret = -FI_EAGAIN;
		} else if (ret) {
			ret = -fm_fi_errno(ret);
		}
	}
	if (!ret && !(flags & FI_INJECT) &&
	    (!ep->tx_selective || (flags & FI_COMPLETION)))
		ret = fm_cq_write(ep->tx_cq, context, comp_flags, 0, NULL, 0);
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

/* ---- messages ---- */

static ssize_t fm_sendmsg(struct fid_ep *ep, const struct fi_msg *msg,
			  uint64_t flags)
{
	struct fm_hdr h = { .op = FM_OP_MSG, .data = msg->data };

	return fm_tx(fm_ep_of(ep), &h, msg->msg_iov, msg->iov_count,
		     msg->context, flags, FI_SEND | FI_MSG);
}

static ssize_t fm_sendv(struct fid_ep *ep, const struct iovec *iov, void **desc,
			size_t count, fi_addr_t dest, void *context)
{
	struct fm_hdr h = { .op = FM_OP_MSG };

	(void)desc;
	(void)dest;
	return fm_tx(fm_ep_of(ep), &h, iov, count, context,
		     fm_ep_of(ep)->tx_op_flags, FI_SEND | FI_MSG);
}

static ssize_t fm_send(struct fid_ep *ep, const void *buf, size_t len,
		       void *desc, fi_addr_t dest, void *context)
{
	struct iovec iov = { (void *)buf, len };

	return fm_sendv(ep, &iov, &desc, 1, dest, context);
}

static ssize_t fm_senddata(struct fid_ep *ep, const void *buf, size_t len,
			   void *desc, uint64_t data, fi_addr_t dest,
			   void *context)
{
	struct iovec iov = { (void *)buf, len };
	struct fm_hdr h = { .op = FM_OP_MSG, .data = data };

	(void)desc;
	(void)dest;
	return fm_tx(fm_ep_of(ep), &h, &iov, 1, context,
		     fm_ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA,
		     FI_SEND | FI_MSG);
}

static ssize_t fm_inject(struct fid_ep *ep, const void *buf, size_t len,
			 fi_addr_t dest)
{
	struct iovec iov = { (void *)buf, len };
	struct fm_hdr h = { .op = FM_OP_MSG };

	(void)dest;
	return fm_tx(fm_ep_of(ep), &h, &iov, 1, NULL, FI_INJECT, 0);
}

static ssize_t fm_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			     uint64_t data, fi_addr_t dest)
{
	struct iovec iov = { (void *)buf, len };
	struct fm_hdr h = { .op = FM_OP_MSG, .data = data };

	(void)dest;
	return fm_tx(fm_ep_of(ep), &h, &iov, 1, NULL,
		     FI_INJECT | FI_REMOTE_CQ_DATA, 0);
}

static ssize_t fm_rx_post(struct fm_ep *ep, const struct iovec *iov,
			  size_t count, void *context, uint64_t flags)
{
	struct fm_xfer *x;
	ssize_t ret = 0;

	if (count > FM_IOV_LIMIT)
		return -FI_EINVAL;
	if (flags & FI_MULTI_RECV)
		return -FI_EBADFLAGS;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -FI_ENOMEM;
	x->context = context;
	x->flags = flags;
	x->count = count;
	memcpy(x->iov, iov, count * sizeof(*iov));
	x->len = fm_iov_len(iov, count);
	pthread_mutex_lock(&fm_lock);
	if (ep->rx_count >= FM_RX_SIZE) {
		ret = -FI_EAGAIN;
		free(x);
	} else {
		fm_list_add_tail(&ep->rx_posted, &x->link);
		ep->rx_count++;
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static ssize_t fm_recvmsg(struct fid_ep *ep, const struct fi_msg *msg,
			  uint64_t flags)
{
	return fm_rx_post(fm_ep_of(ep), msg->msg_iov, msg->iov_count,
			  msg->context, flags);
}

static ssize_t fm_recvv(struct fid_ep *ep, const struct iovec *iov, void **desc,
			size_t count, fi_addr_t src, void *context)
{
	(void)desc;
	(void)src;
	return fm_rx_post(fm_ep_of(ep), iov, count, context,
			  fm_ep_of(ep)->rx_op_flags);
}

static ssize_t fm_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
		       fi_addr_t src, void *context)
{
	struct iovec iov = { buf, len };

	return fm_recvv(ep, &iov, &desc, 1, src, context);
}

struct fi_ops_msg fm_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = fm_recv,
	.recvv = fm_recvv,
	.recvmsg = fm_recvmsg,
	.send = fm_send,
	.sendv = fm_sendv,
	.sendmsg = fm_sendmsg,
	.inject = fm_inject,
	.senddata = fm_senddata,
	.injectdata = fm_injectdata,
};

/* ---- receive side (progress, lock held) ---- */

int fm_ep_rx_msg(struct fm_ep *ep, const struct fm_hdr *h, size_t paylen)
{
	uint8_t hb[FM_HDR_LEN];
	struct iovec v[FM_IOV_LIMIT + 1];
	struct msghdr mh = { .msg_iov = v };
	uint64_t flags = FI_RECV | FI_MSG;
	struct fm_xfer *x;
	uint64_t data;
	size_t got;
	ssize_t n;

	if (fm_list_empty(&ep->rx_posted))
		return -FI_EAGAIN;
	x = fm_container_of(ep->rx_posted.next, struct fm_xfer, link);
	v[0].iov_base = hb;
	v[0].iov_len = sizeof(hb);
	memcpy(v + 1, x->iov, x->count * sizeof(*v));
	mh.msg_iovlen = x->count + 1;
	n = recvmsg(ep->fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN ? -FI_EAGAIN : -errno;
	fm_list_del(&x->link);
	ep->rx_count--;
	got = (size_t)n - FM_HDR_LEN;
	if (h->flags & FM_HDR_F_DATA)
		flags |= FI_REMOTE_CQ_DATA;
	data = (h->flags & FM_HDR_F_DATA) ? h->data : 0;
	if ((mh.msg_flags & MSG_TRUNC) || paylen > x->len) {
		if (got > x->len)
			got = x->len;
		fm_cq_write_err(ep->rx_cq, x->context, flags, got,
				x->count ? x->iov[0].iov_base : NULL, data,
				paylen - got, FI_ETRUNC, FI_ETRUNC);
	} else if (!ep->rx_selective || (x->flags & FI_COMPLETION)) {
		fm_cq_write(ep->rx_cq, x->context, flags, got,
			    x->count ? x->iov[0].iov_base : NULL, data);
	}
	free(x);
	return 0;
}

int fm_ep_rx_write(struct fm_ep *ep, const struct fm_hdr *h, size_t paylen)
{
	uint8_t hb[FM_HDR_LEN];
	struct iovec v[2] = { { hb, sizeof(hb) } };
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = 2 };
	int err = 0;
	uint8_t *dst = fm_mr_find(ep->dom, h->key, h->addr, paylen,
				  FI_REMOTE_WRITE, &err);

	if (!dst) {
		/* No way to tell the writer, whose send completed: drop. */
		FM_WARN(FI_LOG_EP_DATA, "RMA write to key %#llx: %s\n",
			(unsigned long long)h->key, fi_strerror(-err));
		return fm_ep_rx_discard(ep);
	}
	v[1].iov_base = dst;
	v[1].iov_len = paylen;
	if (recvmsg(ep->fd, &mh, MSG_DONTWAIT) < 0)
		return -errno;
	if (h->flags & FM_HDR_F_DATA)
		fm_cq_write(ep->rx_cq, NULL,
			    FI_REMOTE_WRITE | FI_RMA | FI_REMOTE_CQ_DATA,
			    paylen, NULL, h->data);
	return 0;
}

int fm_ep_rx_read_req(struct fm_ep *ep, const struct fm_hdr *h)
{
	struct fm_hdr resp = { .op = FM_OP_READ_RESP, .id = h->id };
	struct iovec v;
	int err = 0, ret;
	uint8_t *src;

	ret = fm_ep_rx_discard(ep);	/* the request is its header */
	if (ret)
		return ret;
	src = h->len > ep->max_msg ? NULL :
	      fm_mr_find(ep->dom, h->key, h->addr, h->len, FI_REMOTE_READ, &err);
	if (!src) {
		resp.status = err ? err : -FI_EMSGSIZE;
		return fm_ep_send_frame(ep, &resp, NULL, 0, true);
	}
	v.iov_base = src;
	v.iov_len = h->len;
	return fm_ep_send_frame(ep, &resp, &v, 1, true);
}

int fm_ep_rx_read_resp(struct fm_ep *ep, const struct fm_hdr *h, size_t paylen)
{
	uint8_t hb[FM_HDR_LEN];
	struct iovec v[FM_IOV_LIMIT + 1];
	struct msghdr mh = { .msg_iov = v };
	struct fm_list *pos, *tmp;
	struct fm_xfer *x = NULL;
	ssize_t n;

	for (pos = ep->reads.next; pos != &ep->reads; pos = tmp) {
		struct fm_xfer *r = fm_container_of(pos, struct fm_xfer, link);

		tmp = pos->next;
		if (r->id == h->id) {
			x = r;
			break;
		}
	}
	if (!x)
		return -EPROTO;
	v[0].iov_base = hb;
	v[0].iov_len = sizeof(hb);
	memcpy(v + 1, x->iov, x->count * sizeof(*v));
	mh.msg_iovlen = x->count + 1;
	n = recvmsg(ep->fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	fm_list_del(&x->link);
	if (h->status)
		fm_cq_write_err(ep->tx_cq, x->context, FI_READ | FI_RMA, 0, NULL,
				0, 0, -h->status, -h->status);
	else if (paylen != x->len || (mh.msg_flags & MSG_TRUNC))
		fm_cq_write_err(ep->tx_cq, x->context, FI_READ | FI_RMA, 0, NULL,
				0, 0, FI_EIO, EIO);
	else if (!ep->tx_selective || (x->flags & FI_COMPLETION))
		fm_cq_write(ep->tx_cq, x->context, FI_READ | FI_RMA, x->len,
			    NULL, 0);
	free(x);
	return 0;
}

/* ---- RMA ---- */

static ssize_t fm_readmsg(struct fid_ep *ep_fid, const struct fi_msg_rma *msg,
			  uint64_t flags)
{
	struct fm_ep *ep = fm_ep_of(ep_fid);
	struct fm_xfer *x;
	struct fm_hdr h = { .op = FM_OP_READ_REQ };
	ssize_t ret;

	if (msg->iov_count > FM_IOV_LIMIT || msg->rma_iov_count != 1)
		return -FI_EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -FI_ENOMEM;
	x->context = msg->context;
	x->flags = flags;
	x->count = msg->iov_count;
	memcpy(x->iov, msg->msg_iov, x->count * sizeof(*x->iov));
	x->len = fm_iov_len(x->iov, x->count);
	if (x->len > ep->max_msg || x->len > msg->rma_iov[0].len) {
		ret = x->len > ep->max_msg ? -FI_EMSGSIZE : -FI_EINVAL;
		free(x);
		return ret;
	}
	h.addr = msg->rma_iov[0].addr;
	h.key = msg->rma_iov[0].key;
	h.len = x->len;
	pthread_mutex_lock(&fm_lock);
	ret = fm_ep_ready(ep);
	if (!ret)
		ret = fm_ep_tx_room(ep);
	if (!ret) {
		x->id = ep->next_read_id++;
		h.id = x->id;
		ret = fm_ep_send_frame(ep, &h, NULL, 0, false);
		if (ret == -EAGAIN || ret == -ENOBUFS) {
			fm_ep_progress(ep);
			ret = -FI_EAGAIN;
		} else if (ret) {
			ret = -fm_fi_errno(ret);
		}
	}
	if (!ret)
		fm_list_add_tail(&ep->reads, &x->link);
	else
		free(x);
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static ssize_t fm_readv(struct fid_ep *ep, const struct iovec *iov, void **desc,
			size_t count, fi_addr_t src, uint64_t addr, uint64_t key,
			void *context)
{
	struct fi_rma_iov rma = { .addr = addr, .len = fm_iov_len(iov, count),
				  .key = key };
	struct fi_msg_rma msg = {
		.msg_iov = iov, .desc = desc, .iov_count = count, .addr = src,
		.rma_iov = &rma, .rma_iov_count = 1, .context = context,
	};

	return fm_readmsg(ep, &msg, fm_ep_of(ep)->tx_op_flags);
}

static ssize_t fm_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
		       fi_addr_t src, uint64_t addr, uint64_t key, void *context)
{
	struct iovec iov = { buf, len };

	return fm_readv(ep, &iov, &desc, 1, src, addr, key, context);
}

static ssize_t fm_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   uint64_t flags)
{
	struct fm_hdr h = { .op = FM_OP_WRITE, .data = msg->data };

	if (msg->rma_iov_count != 1)
		return -FI_EINVAL;
	if (fm_iov_len(msg->msg_iov, msg->iov_count) > msg->rma_iov[0].len)
		return -FI_EINVAL;
	h.addr = msg->rma_iov[0].addr;
	h.key = msg->rma_iov[0].key;
	return fm_tx(fm_ep_of(ep), &h, msg->msg_iov, msg->iov_count,
		     msg->context, flags, FI_WRITE | FI_RMA);
}

static ssize_t fm_write_common(struct fid_ep *ep, const struct iovec *iov,
			       size_t count, uint64_t addr, uint64_t key,
			       uint64_t data, void *context, uint64_t flags)
{
	struct fi_rma_iov rma = { .addr = addr, .len = fm_iov_len(iov, count),
				  .key = key };
	struct fi_msg_rma msg = {
		.msg_iov = iov, .iov_count = count, .rma_iov = &rma,
		.rma_iov_count = 1, .context = context, .data = data,
	};

	return fm_writemsg(ep, &msg, flags);
}

static ssize_t fm_writev(struct fid_ep *ep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t dest,
			 uint64_t addr, uint64_t key, void *context)
{
	(void)desc;
	(void)dest;
	return fm_write_common(ep, iov, count, addr, key, 0, context,
			       fm_ep_of(ep)->tx_op_flags);
}

static ssize_t fm_write(struct fid_ep *ep, const void *buf, size_t len,
			void *desc, fi_addr_t dest, uint64_t addr, uint64_t key,
			void *context)
{
	struct iovec iov = { (void *)buf, len };

	return fm_writev(ep, &iov, &desc, 1, dest, addr, key, context);
}

static ssize_t fm_inject_write(struct fid_ep *ep, const void *buf, size_t len,
			       fi_addr_t dest, uint64_t addr, uint64_t key)
{
	struct iovec iov = { (void *)buf, len };

	(void)dest;
	return fm_write_common(ep, &iov, 1, addr, key, 0, NULL, FI_INJECT);
}

static ssize_t fm_writedata(struct fid_ep *ep, const void *buf, size_t len,
			    void *desc, uint64_t data, fi_addr_t dest,
			    uint64_t addr, uint64_t key, void *context)
{
	struct iovec iov = { (void *)buf, len };

	(void)desc;
	(void)dest;
	return fm_write_common(ep, &iov, 1, addr, key, data, context,
			       fm_ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t fm_inject_writedata(struct fid_ep *ep, const void *buf,
				   size_t len, uint64_t data, fi_addr_t dest,
				   uint64_t addr, uint64_t key)
{
	struct iovec iov = { (void *)buf, len };

	(void)dest;
	return fm_write_common(ep, &iov, 1, addr, key, data, NULL,
			       FI_INJECT | FI_REMOTE_CQ_DATA);
}

struct fi_ops_rma fm_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = fm_read,
	.readv = fm_readv,
	.readmsg = fm_readmsg,
	.write = fm_write,
	.writev = fm_writev,
	.writemsg = fm_writemsg,
	.inject = fm_inject_write,
	.writedata = fm_writedata,
	.injectdata = fm_inject_writedata,
};
