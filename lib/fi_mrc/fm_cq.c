// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Completion queues, in every format (CONTEXT, MSG, DATA, TAGGED; ofi_rxm
 * reads FI_CQ_FORMAT_DATA). Entries are kept in order, errors among them;
 * the queue grows as needed, so it never overruns. Reading progresses the
 * endpoints bound to the queue.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fi_mrc.h"

static struct fm_cqe *fm_cqe_get(struct fm_cq *cq)
{
	struct fm_cqe *e;

	if (!fm_list_empty(&cq->free)) {
		e = fm_container_of(cq->free.next, struct fm_cqe, link);
		fm_list_del(&e->link);
		memset(e, 0, sizeof(*e));
		return e;
	}
	return calloc(1, sizeof(*e));
}

/*
 * A completion entry from @cq's free list (or allocated), filled with what every
 * completion carries, not yet queued; NULL when out of memory.
 */
static struct fm_cqe *fm_cqe_new(struct fm_cq *cq, void *context,
				 uint64_t flags, size_t len, void *buf,
				 uint64_t data)
{
	struct fm_cqe *e = fm_cqe_get(cq);

	if (!e)
		return NULL;
	e->e.op_context = context;
	e->e.flags = flags;
	e->e.len = len;
	e->e.buf = buf;
	e->e.data = data;
	return e;
}

int fm_cq_write(struct fm_cq *cq, void *context, uint64_t flags, size_t len,
		void *buf, uint64_t data)
{
	struct fm_cqe *e;

	if (!cq)
		return 0;
	e = fm_cqe_new(cq, context, flags, len, buf, data);
	if (!e)
		return -FI_ENOMEM;
	fm_list_add_tail(&cq->entries, &e->link);
	return 0;
}

int fm_cq_write_err(struct fm_cq *cq, void *context, uint64_t flags,
		    size_t len, void *buf, uint64_t data, size_t olen, int err,
		    int prov_errno)
{
	struct fm_cqe *e;

	if (!cq)
		return 0;
	e = fm_cqe_new(cq, context, flags, len, buf, data);
	if (!e)
		return -FI_ENOMEM;
	e->err = true;
	e->e.olen = olen;
	e->e.err = err;
	e->e.prov_errno = prov_errno;
	fm_list_add_tail(&cq->entries, &e->link);
	return 0;
}

static size_t fm_cq_entry_size(enum fi_cq_format f)
{
	switch (f) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	default:
		return sizeof(struct fi_cq_tagged_entry);
	}
}

static void fm_cq_copy(const struct fm_cq *cq, const struct fm_cqe *e, void *out)
{
	struct fi_cq_tagged_entry t = {
		.op_context = e->e.op_context,
		.flags = e->e.flags,
		.len = e->e.len,
		.buf = e->e.buf,
		.data = e->e.data,
		.tag = 0,
	};

	/* Every format is a prefix of the tagged one. */
	memcpy(out, &t, fm_cq_entry_size(cq->format));
}

static ssize_t fm_cq_read_locked(struct fm_cq *cq, void *buf, size_t count,
				 fi_addr_t *src_addr)
{
	size_t n = 0, sz = fm_cq_entry_size(cq->format);

	fm_progress_cq(cq);
	while (n < count && !fm_list_empty(&cq->entries)) {
		struct fm_cqe *e = fm_container_of(cq->entries.next,
						   struct fm_cqe, link);

		if (e->err)
			break;
		fm_cq_copy(cq, e, (uint8_t *)buf + n * sz);
		if (src_addr)
			src_addr[n] = FI_ADDR_NOTAVAIL;
		fm_list_del(&e->link);
		fm_list_add_tail(&cq->free, &e->link);
		n++;
	}
	if (n)
		return (ssize_t)n;
	return fm_list_empty(&cq->entries) ? -FI_EAGAIN : -FI_EAVAIL;
}

static ssize_t fm_cq_readfrom(struct fid_cq *cq_fid, void *buf, size_t count,
			      fi_addr_t *src_addr)
{
	struct fm_cq *cq = fm_container_of(cq_fid, struct fm_cq, cq_fid);
	ssize_t ret;

	pthread_mutex_lock(&fm_lock);
	ret = fm_cq_read_locked(cq, buf, count, src_addr);
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static ssize_t fm_cq_read(struct fid_cq *cq, void *buf, size_t count)
{
	return fm_cq_readfrom(cq, buf, count, NULL);
}

static ssize_t fm_cq_readerr(struct fid_cq *cq_fid, struct fi_cq_err_entry *buf,
			     uint64_t flags)
{
	struct fm_cq *cq = fm_container_of(cq_fid, struct fm_cq, cq_fid);
	void *user_data = buf->err_data;
	struct fm_cqe *e;
	ssize_t ret = -FI_EAGAIN;

	(void)flags;
	pthread_mutex_lock(&fm_lock);
	if (!fm_list_empty(&cq->entries)) {
		e = fm_container_of(cq->entries.next, struct fm_cqe, link);
		if (e->err) {
			*buf = e->e;
			/* No provider error data: an empty buffer either way. */
			buf->err_data = user_data;
			buf->err_data_size = 0;
			fm_list_del(&e->link);
			fm_list_add_tail(&cq->free, &e->link);
			ret = 1;
		}
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static int64_t fm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t fm_cq_sreadfrom(struct fid_cq *cq_fid, void *buf, size_t count,
			       fi_addr_t *src_addr, const void *cond, int timeout)
{
	struct fm_cq *cq = fm_container_of(cq_fid, struct fm_cq, cq_fid);
	int64_t end = timeout < 0 ? -1 : fm_now_ms() + timeout;
	ssize_t ret;

	(void)cond;
	pthread_mutex_lock(&fm_lock);
	for (;;) {
		int left;

		ret = fm_cq_read_locked(cq, buf, count, src_addr);
		if (ret != -FI_EAGAIN)
			break;
		left = end < 0 ? 100 : (int)(end - fm_now_ms());
		if (end >= 0 && left <= 0)
			break;
		fm_wait(cq, NULL, left > 100 ? 100 : left);
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static ssize_t fm_cq_sread(struct fid_cq *cq, void *buf, size_t count,
			   const void *cond, int timeout)
{
	return fm_cq_sreadfrom(cq, buf, count, NULL, cond, timeout);
}

static int fm_cq_signal(struct fid_cq *cq)
{
	(void)cq;
	return 0;
}

static const char *fm_cq_strerror(struct fid_cq *cq, int prov_errno,
				  const void *err_data, char *buf, size_t len)
{
	const char *s = fi_strerror(prov_errno);

	(void)cq;
	(void)err_data;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = 0;
		return buf;
	}
	return s;
}

static void fm_cqe_free_list(struct fm_list *l)
{
	struct fm_list *pos, *tmp;

	for (pos = l->next; pos != l; pos = tmp) {
		tmp = pos->next;
		fm_list_del(pos);
		free(fm_container_of(pos, struct fm_cqe, link));
	}
}

static int fm_cq_close(struct fid *fid)
{
	struct fm_cq *cq = fm_container_of(fid, struct fm_cq, cq_fid.fid);

	pthread_mutex_lock(&fm_lock);
	if (cq->refs) {
		pthread_mutex_unlock(&fm_lock);
		return -FI_EBUSY;
	}
	fm_cqe_free_list(&cq->entries);
	fm_cqe_free_list(&cq->free);
	cq->dom->refs--;
	pthread_mutex_unlock(&fm_lock);
	free(cq);
	return 0;
}

static struct fi_ops fm_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_cq_close,
	.bind = fm_no_bind,
	.control = fm_no_control,
	.ops_open = fm_no_ops_open,
};

static struct fi_ops_cq fm_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = fm_cq_read,
	.readfrom = fm_cq_readfrom,
	.readerr = fm_cq_readerr,
	.sread = fm_cq_sread,
	.sreadfrom = fm_cq_sreadfrom,
	.signal = fm_cq_signal,
	.strerror = fm_cq_strerror,
};

int fm_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
	       struct fid_cq **cq_fid, void *context)
{
	struct fm_domain *dom = fm_container_of(domain, struct fm_domain,
						 domain_fid);
	struct fm_cq *cq;

	if (attr) {
		if (attr->wait_obj != FI_WAIT_NONE &&
		    attr->wait_obj != FI_WAIT_UNSPEC &&
		    attr->wait_obj != FI_WAIT_YIELD)
			return -FI_ENOSYS;
		if (attr->format > FI_CQ_FORMAT_TAGGED)
			return -FI_ENOSYS;
		if (attr->flags & FI_AFFINITY)
			return -FI_ENOSYS;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &fm_cq_fi_ops;
	cq->cq_fid.ops = &fm_cq_ops;
	cq->dom = dom;
	cq->format = attr && attr->format != FI_CQ_FORMAT_UNSPEC ?
		     attr->format : FI_CQ_FORMAT_CONTEXT;
	cq->wait_obj = attr ? attr->wait_obj : FI_WAIT_NONE;
	fm_list_init(&cq->entries);
	fm_list_init(&cq->free);
	pthread_mutex_lock(&fm_lock);
	dom->refs++;
	pthread_mutex_unlock(&fm_lock);
	*cq_fid = &cq->cq_fid;
	return 0;
}
