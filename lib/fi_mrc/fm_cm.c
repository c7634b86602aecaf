// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Connection management. AF_MRC has no connection data of its own, so the
 * provider sends it as the first message each way: the client's CM_REQ
 * (fi_connect()'s param) right after connect() completes; the server
 * accept()s at once, reads that CM_REQ and only then reports FI_CONNREQ,
 * whose fi_info->handle holds the accepted socket until fi_endpoint()
 * takes it; fi_accept() answers CM_ACCEPT (the client's FI_CONNECTED
 * carries its data), fi_reject() answers CM_REJECT and closes (the client
 * gets an FI_ECONNREFUSED error entry with the reject data).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fi_mrc.h"
#include "fm_errno.h"

/* ---- connection requests (FI_CLASS_CONNREQ) ---- */

static void fm_conn_free(struct fm_conn *conn)
{
	fm_list_del(&conn->link);
	if (conn->fd >= 0)
		close(conn->fd);
	free(conn);
}

static int fm_conn_close(struct fid *fid)
{
	pthread_mutex_lock(&fm_lock);
	fm_conn_free(fm_container_of(fid, struct fm_conn, fid));
	pthread_mutex_unlock(&fm_lock);
	return 0;
}

static struct fi_ops fm_conn_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_conn_close,
	.bind = fm_no_bind,
	.control = fm_no_control,
	.ops_open = fm_no_ops_open,
};

/* Read a waiting connection's CM_REQ; queue FI_CONNREQ. 0 or -errno. */
static int fm_conn_read_req(struct fm_pep *pep, struct fm_conn *conn)
{
	uint8_t hb[FM_HDR_LEN], data[FM_CM_DATA_MAX];
	struct iovec v[2] = { { hb, sizeof(hb) }, { data, sizeof(data) } };
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = 2 };
	struct fi_info *info;
	struct fm_hdr h;
	ssize_t n;
	int ret;

	n = recvmsg(conn->fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	if (n == 0 || fm_hdr_decode(hb, (size_t)n, &h) || h.op != FM_OP_CM_REQ ||
	    (mh.msg_flags & MSG_TRUNC))
		return -EPROTO;
	info = fi_dupinfo(pep->info);
	if (!info)
		return -ENOMEM;
	free(info->dest_addr);
	info->dest_addr = malloc(sizeof(conn->peer));
	if (!info->dest_addr) {
		fi_freeinfo(info);
		return -ENOMEM;
	}
	memcpy(info->dest_addr, &conn->peer, sizeof(conn->peer));
	info->dest_addrlen = sizeof(conn->peer);
	info->handle = &conn->fid;
	ret = fm_eq_cm_event(pep->eq, FI_CONNREQ, &pep->pep_fid.fid, info,
			     data, (size_t)n - FM_HDR_LEN);
	if (ret) {
		info->handle = NULL;
		fi_freeinfo(info);
		return ret == -FI_ENOMEM ? -ENOMEM : -EINVAL;
	}
	conn->reported = true;
	return 0;
}

void fm_pep_progress(struct fm_pep *pep)
{
	struct fm_list *pos, *tmp;

	if (!pep->listening)
		return;
	for (;;) {
		struct fm_conn *conn;
		int fd = fm_sock_accept(pep->fd);

		if (fd < 0)
			break;
		conn = calloc(1, sizeof(*conn));
		if (!conn) {
			close(fd);
			break;
		}
		conn->fid.fclass = FI_CLASS_CONNREQ;
		conn->fid.ops = &fm_conn_fi_ops;
		conn->pep = pep;
		conn->fd = fd;
		if (fm_sock_peer(fd, &conn->peer))
			memset(&conn->peer, 0, sizeof(conn->peer));
		conn->peer.sin6_family = AF_INET6;
		fm_list_add_tail(&pep->conns, &conn->link);
	}
	for (pos = pep->conns.next; pos != &pep->conns; pos = tmp) {
		struct fm_conn *conn = fm_container_of(pos, struct fm_conn, link);

		tmp = pos->next;
		if (conn->reported)
			continue;
		if (fm_conn_read_req(pep, conn)) {
			FM_DBG(FI_LOG_EP_CTRL, "dropping a connection without CM_REQ\n");
			fm_conn_free(conn);
		}
	}
}

/* ---- passive endpoints ---- */

static int fm_pep_close(struct fid *fid)
{
	struct fm_pep *pep = fm_container_of(fid, struct fm_pep, pep_fid.fid);
	struct fm_list *pos, *tmp;

	pthread_mutex_lock(&fm_lock);
	fm_list_del(&pep->link);
	fm_eq_purge(pep->eq, fid);
	for (pos = pep->conns.next; pos != &pep->conns; pos = tmp) {
		tmp = pos->next;
		fm_conn_free(fm_container_of(pos, struct fm_conn, link));
	}
	if (pep->eq)
		pep->eq->refs--;
	pthread_mutex_unlock(&fm_lock);
	close(pep->fd);
	fi_freeinfo(pep->info);
	free(pep);
	return 0;
}

static int fm_pep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct fm_pep *pep = fm_container_of(fid, struct fm_pep, pep_fid.fid);
	struct fm_eq *eq;

	(void)flags;
	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	eq = fm_container_of(bfid, struct fm_eq, eq_fid.fid);
	pthread_mutex_lock(&fm_lock);
	if (pep->eq)
		pep->eq->refs--;
	pep->eq = eq;
	eq->refs++;
	pthread_mutex_unlock(&fm_lock);
	return 0;
}

static struct fi_ops fm_pep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_pep_close,
	.bind = fm_pep_bind,
	.control = fm_no_control,
	.ops_open = fm_no_ops_open,
};

static ssize_t fm_pep_cancel(fid_t fid, void *context)
{
	(void)fid;
	(void)context;
	return -FI_ENOENT;
}

static int fm_pep_getopt(fid_t fid, int level, int optname, void *optval,
			 size_t *optlen)
{
	(void)fid;
	return fm_getopt_common(level, optname, optval, optlen);
}

static int fm_pep_setopt(fid_t fid, int level, int optname, const void *optval,
			 size_t optlen)
{
	(void)fid, (void)level, (void)optname, (void)optval, (void)optlen;
	return -FI_ENOPROTOOPT;
}

static struct fi_ops_ep fm_pep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = fm_pep_cancel,
	.getopt = fm_pep_getopt,
	.setopt = fm_pep_setopt,
};

static int fm_pep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct fm_pep *pep = fm_container_of(fid, struct fm_pep, pep_fid.fid);
	struct sockaddr_in6 sin6;
	int ret;

	ret = fm_sock_name(pep->fd, &sin6);
	if (ret)
		return -fm_fi_errno(ret);
	return fm_addr_copyout(&sin6, addr, addrlen);
}

static int fm_pep_listen(struct fid_pep *pep_fid)
{
	struct fm_pep *pep = fm_container_of(pep_fid, struct fm_pep, pep_fid);
	int ret;

	pthread_mutex_lock(&fm_lock);
	if (!pep->eq) {
		ret = -FI_ENOEQ;
	} else if (pep->listening) {
		ret = 0;
	} else {
		ret = fm_sock_listen(pep->fd, FM_BACKLOG);
		if (ret)
			ret = -fm_fi_errno(ret);
		else
			pep->listening = true;
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static int fm_pep_reject(struct fid_pep *pep_fid, fid_t handle,
			 const void *param, size_t paramlen)
{
	struct fm_conn *conn;
	uint8_t hb[FM_HDR_LEN];
	struct fm_hdr h = { .op = FM_OP_CM_REJECT };
	struct iovec v[2] = { { hb, sizeof(hb) }, { (void *)param, paramlen } };
	struct msghdr mh = { .msg_iov = v, .msg_iovlen = 2 };

	(void)pep_fid;
	if (!handle || handle->fclass != FI_CLASS_CONNREQ)
		return -FI_EINVAL;
	if (paramlen > FM_CM_DATA_MAX)
		return -FI_EINVAL;
	conn = fm_container_of(handle, struct fm_conn, fid);
	fm_hdr_encode(&h, hb);
	pthread_mutex_lock(&fm_lock);
	if (conn->fd >= 0 && sendmsg(conn->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		FM_DBG(FI_LOG_EP_CTRL, "reject: %s\n", strerror(errno));
	fm_conn_free(conn);	/* close(): the reject goes out first */
	pthread_mutex_unlock(&fm_lock);
	return 0;
}

static int fm_no_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid, (void)addr, (void)addrlen;
	return -FI_ENOSYS;
}

static int fm_no_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep, (void)addr, (void)addrlen;
	return -FI_ENOSYS;
}

static int fm_no_connect(struct fid_ep *ep, const void *addr,
			 const void *param, size_t paramlen)
{
	(void)ep, (void)addr, (void)param, (void)paramlen;
	return -FI_ENOSYS;
}

static int fm_no_listen(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

static int fm_no_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	(void)ep, (void)param, (void)paramlen;
	return -FI_ENOSYS;
}

static int fm_no_reject(struct fid_pep *pep, fid_t handle, const void *param,
			size_t paramlen)
{
	(void)pep, (void)handle, (void)param, (void)paramlen;
	return -FI_ENOSYS;
}

static int fm_no_shutdown(struct fid_ep *ep, uint64_t flags)
{
	(void)ep;
	(void)flags;
	return -FI_ENOSYS;
}

static int fm_no_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		      struct fid_mc **mc, void *context)
{
	(void)ep, (void)addr, (void)flags, (void)mc, (void)context;
	return -FI_ENOSYS;
}

struct fi_ops_cm fm_pep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = fm_no_setname,
	.getname = fm_pep_getname,
	.getpeer = fm_no_getpeer,
	.connect = fm_no_connect,
	.listen = fm_pep_listen,
	.accept = fm_no_accept,
	.reject = fm_pep_reject,
	.shutdown = fm_no_shutdown,
	.join = fm_no_join,
};

int fm_pep_open(struct fid_fabric *fabric, struct fi_info *info,
		struct fid_pep **pep_fid, void *context)
{
	struct sockaddr_in6 src;
	struct fm_pep *pep;
	int ret;

	if (!info || !info->ep_attr || info->ep_attr->type != FI_EP_MSG)
		return -FI_EINVAL;
	if (info->src_addr) {
		ret = fm_addr_from(info->src_addr, info->src_addrlen, &src);
		if (ret)
			return ret;
	} else {
		ret = fm_addr_source(NULL, &src);
		if (ret)
			return ret;
	}
	pep = calloc(1, sizeof(*pep));
	if (!pep)
		return -FI_ENOMEM;
	pep->info = fi_dupinfo(info);
	if (!pep->info) {
		free(pep);
		return -FI_ENOMEM;
	}
	pep->fd = fm_sock_open();
	if (pep->fd < 0) {
		ret = -fm_fi_errno(pep->fd);
		goto err;
	}
	ret = fm_sock_bind(pep->fd, &src);
	if (ret) {
		ret = -fm_fi_errno(ret);
		close(pep->fd);
		goto err;
	}
	pep->pep_fid.fid.fclass = FI_CLASS_PEP;
	pep->pep_fid.fid.context = context;
	pep->pep_fid.fid.ops = &fm_pep_fi_ops;
	pep->pep_fid.ops = &fm_pep_ops;
	pep->pep_fid.cm = &fm_pep_cm_ops;
	pep->fab = fm_container_of(fabric, struct fm_fabric, fabric_fid);
	fm_list_init(&pep->conns);
	pthread_mutex_lock(&fm_lock);
	fm_list_add_tail(&fm_peps, &pep->link);
	pthread_mutex_unlock(&fm_lock);
	*pep_fid = &pep->pep_fid;
	return 0;
err:
	fi_freeinfo(pep->info);
	free(pep);
	return ret;
}

/* ---- active endpoints ---- */

static int fm_ep_connect(struct fid_ep *ep_fid, const void *addr,
			 const void *param, size_t paramlen)
{
	struct fm_ep *ep = fm_container_of(ep_fid, struct fm_ep, ep_fid);
	struct sockaddr_in6 dst;
	int ret, fd;

	if (paramlen > FM_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	if (addr)
		ret = fm_addr_from(addr, sizeof(dst), &dst);
	else
		ret = fm_addr_from(ep->info->dest_addr, ep->info->dest_addrlen, &dst);
	if (ret)
		return ret;
	pthread_mutex_lock(&fm_lock);
	if (!ep->eq) {
		ret = -FI_ENOEQ;
		goto out;
	}
	if (ep->state != FM_EP_IDLE) {
		ret = ep->state == FM_EP_CONNECTED ? -FI_EISCONN : -FI_EOPBADSTATE;
		goto out;
	}
	fd = fm_sock_open();
	if (fd < 0) {
		ret = -fm_fi_errno(fd);
		goto out;
	}
	ep->fd = fd;
	ep->peer = dst;
	if (paramlen)
		memcpy(ep->cm_data, param, paramlen);
	ep->cm_len = paramlen;
	ret = fm_sock_connect(fd, &dst);
	if (!ret || ret == -EINPROGRESS) {
		ep->state = FM_EP_CONNECTING;
		ret = 0;
	} else if (ret == -EINVAL || ret == -EAFNOSUPPORT ||
		   ret == -EADDRNOTAVAIL || ret == -EADDRINUSE) {
		/* The address itself is wrong: say so now. */
		close(fd);
		ep->fd = -1;
		ret = -fm_fi_errno(ret);
	} else {
		/* Refused, unreachable: reported as the asynchronous case. */
		ep->state = FM_EP_CONNECTING;
		fm_ep_conn_error(ep, -ret);
		ret = 0;
	}
out:
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static int fm_ep_accept(struct fid_ep *ep_fid, const void *param,
			size_t paramlen)
{
	struct fm_ep *ep = fm_container_of(ep_fid, struct fm_ep, ep_fid);
	struct fm_hdr h = { .op = FM_OP_CM_ACCEPT };
	struct iovec v = { (void *)param, paramlen };
	int ret;

	if (paramlen > FM_CM_DATA_MAX || (paramlen && !param))
		return -FI_EINVAL;
	pthread_mutex_lock(&fm_lock);
	if (!ep->eq) {
		ret = -FI_ENOEQ;
	} else if (ep->state != FM_EP_ACCEPTING) {
		ret = -FI_EOPBADSTATE;
	} else {
		ret = fm_ep_send_frame(ep, &h, &v, 1, true);
		if (ret) {
			ret = -fm_fi_errno(ret);
		} else {
			ep->state = FM_EP_CONNECTED;
			ret = fm_eq_cm_event(ep->eq, FI_CONNECTED, &ep->ep_fid.fid,
					     NULL, NULL, 0);
		}
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static int fm_ep_shutdown(struct fid_ep *ep_fid, uint64_t flags)
{
	struct fm_ep *ep = fm_container_of(ep_fid, struct fm_ep, ep_fid);

	(void)flags;
	pthread_mutex_lock(&fm_lock);
	if (ep->fd >= 0) {
		fm_ep_flush_txq(ep);
		shutdown(ep->fd, SHUT_WR);	/* the peer reads end of file */
	}
	if (ep->state != FM_EP_FAILED)
		ep->state = FM_EP_SHUTDOWN;
	ep->shutdown_reported = true;	/* no FI_SHUTDOWN for our own */
	pthread_mutex_unlock(&fm_lock);
	return 0;
}

static int fm_ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct fm_ep *ep = fm_container_of(fid, struct fm_ep, ep_fid.fid);
	struct sockaddr_in6 sin6;
	int ret = 0;

	pthread_mutex_lock(&fm_lock);
	if (ep->fd >= 0)
		ret = fm_sock_name(ep->fd, &sin6);
	else if (ep->info->src_addr)
		ret = fm_addr_from(ep->info->src_addr, ep->info->src_addrlen, &sin6);
	else
		ret = fm_addr_source(NULL, &sin6);
	pthread_mutex_unlock(&fm_lock);
	if (ret)
		return ret < 0 && ret > -FI_ERRNO_OFFSET ? -fm_fi_errno(ret) : ret;
	return fm_addr_copyout(&sin6, addr, addrlen);
}

static int fm_ep_getpeer(struct fid_ep *ep_fid, void *addr, size_t *addrlen)
{
	struct fm_ep *ep = fm_container_of(ep_fid, struct fm_ep, ep_fid);
	struct sockaddr_in6 sin6;
	int ret;

	pthread_mutex_lock(&fm_lock);
	if (ep->fd < 0) {
		pthread_mutex_unlock(&fm_lock);
		return -FI_ENOTCONN;
	}
	ret = fm_sock_peer(ep->fd, &sin6);
	if (ret)
		sin6 = ep->peer;
	pthread_mutex_unlock(&fm_lock);
	return fm_addr_copyout(&sin6, addr, addrlen);
}

struct fi_ops_cm fm_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = fm_no_setname,
	.getname = fm_ep_getname,
	.getpeer = fm_ep_getpeer,
	.connect = fm_ep_connect,
	.listen = fm_no_listen,
	.accept = fm_ep_accept,
	.reject = fm_no_reject,
	.shutdown = fm_ep_shutdown,
	.join = fm_no_join,
};
