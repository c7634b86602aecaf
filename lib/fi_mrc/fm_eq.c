// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Event queues: the connection events of the endpoints and passive
 * endpoints bound to them (FI_CONNREQ, FI_CONNECTED, FI_SHUTDOWN, and error
 * entries for refused or failed connections), plus what fi_eq_write()
 * puts in. Reading progresses everything bound to the queue.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fi_mrc.h"

static struct fm_eq_event *fm_eq_alloc(size_t len)
{
	struct fm_eq_event *ev = calloc(1, sizeof(*ev) + len);

	if (ev)
		ev->len = len;
	return ev;
}

int fm_eq_cm_event(struct fm_eq *eq, uint32_t event, fid_t fid,
		   struct fi_info *info, const void *data, size_t datalen)
{
	struct fm_eq_event *ev;
	struct fi_eq_cm_entry *cm;

	if (!eq)
		return -FI_ENOEQ;
	ev = fm_eq_alloc(sizeof(*cm) + datalen);
	if (!ev)
		return -FI_ENOMEM;
	ev->event = event;
	ev->fid = fid;
	cm = (struct fi_eq_cm_entry *)(void *)ev->buf;
	cm->fid = fid;
	cm->info = info;
	if (datalen)
		memcpy(cm->data, data, datalen);
	fm_list_add_tail(&eq->events, &ev->link);
	return 0;
}

int fm_eq_error(struct fm_eq *eq, fid_t fid, void *context, int err,
		int prov_errno, const void *data, size_t datalen)
{
	struct fm_eq_event *ev;

	if (!eq)
		return -FI_ENOEQ;
	ev = fm_eq_alloc(datalen);
	if (!ev)
		return -FI_ENOMEM;
	ev->err = true;
	ev->fid = fid;
	ev->err_entry.fid = fid;
	ev->err_entry.context = context;
	ev->err_entry.err = err;
	ev->err_entry.prov_errno = prov_errno;
	if (datalen)
		memcpy(ev->buf, data, datalen);
	ev->err_entry.err_data_size = datalen;
	fm_list_add_tail(&eq->events, &ev->link);
	return 0;
}

static void fm_eq_free_event(struct fm_eq_event *ev)
{
	struct fi_eq_cm_entry *cm = (struct fi_eq_cm_entry *)(void *)ev->buf;

	/* An unread FI_CONNREQ still owns its fi_info. */
	if (!ev->err && ev->event == FI_CONNREQ && cm->info)
		fi_freeinfo(cm->info);
	free(ev);
}

void fm_eq_purge(struct fm_eq *eq, fid_t fid)
{
	struct fm_list *pos, *tmp;

	if (!eq)
		return;
	for (pos = eq->events.next; pos != &eq->events; pos = tmp) {
		struct fm_eq_event *ev = fm_container_of(pos, struct fm_eq_event, link);

		tmp = pos->next;
		if (ev->fid == fid) {
			fm_list_del(&ev->link);
			fm_eq_free_event(ev);
		}
	}
}

static ssize_t fm_eq_read_locked(struct fm_eq *eq, uint32_t *event, void *buf,
				 size_t len, uint64_t flags)
{
	struct fm_eq_event *ev;

	fm_progress_eq(eq);
	if (fm_list_empty(&eq->events))
		return -FI_EAGAIN;
	ev = fm_container_of(eq->events.next, struct fm_eq_event, link);
	if (ev->err)
		return -FI_EAVAIL;
	if (len < ev->len)
		return -FI_ETOOSMALL;
	if (event)
		*event = ev->event;
	memcpy(buf, ev->buf, ev->len);
	len = ev->len;
	if (!(flags & FI_PEEK)) {
		fm_list_del(&ev->link);
		free(ev);	/* the fi_info, if any, is the reader's now */
	}
	return (ssize_t)len;
}

static ssize_t fm_eq_read(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			  size_t len, uint64_t flags)
{
	struct fm_eq *eq = fm_container_of(eq_fid, struct fm_eq, eq_fid);
	ssize_t ret;

	pthread_mutex_lock(&fm_lock);
	ret = fm_eq_read_locked(eq, event, buf, len, flags);
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static ssize_t fm_eq_readerr(struct fid_eq *eq_fid, struct fi_eq_err_entry *buf,
			     uint64_t flags)
{
	struct fm_eq *eq = fm_container_of(eq_fid, struct fm_eq, eq_fid);
	struct fm_eq_event *ev;
	void *user_data = buf->err_data;
	size_t user_size = buf->err_data_size;
	ssize_t ret = -FI_EAGAIN;

	pthread_mutex_lock(&fm_lock);
	if (fm_list_empty(&eq->events))
		goto out;
	ev = fm_container_of(eq->events.next, struct fm_eq_event, link);
	if (!ev->err)
		goto out;
	*buf = ev->err_entry;
	if (user_size && user_data) {
		/* API >= 1.5: the caller's buffer, as much as fits. */
		size_t n = ev->err_entry.err_data_size < user_size ?
			   ev->err_entry.err_data_size : user_size;

		memcpy(user_data, ev->buf, n);
		buf->err_data = user_data;
		buf->err_data_size = n;
	} else if (ev->err_entry.err_data_size) {
		/* Ours, valid until the next fi_eq_readerr(). */
		free(eq->err_data);
		eq->err_data = malloc(ev->err_entry.err_data_size);
		if (eq->err_data)
			memcpy(eq->err_data, ev->buf, ev->err_entry.err_data_size);
		buf->err_data = eq->err_data;
		buf->err_data_size = eq->err_data ? ev->err_entry.err_data_size : 0;
	} else {
		buf->err_data = NULL;
		buf->err_data_size = 0;
	}
	if (!(flags & FI_PEEK)) {
		fm_list_del(&ev->link);
		free(ev);
	}
	ret = sizeof(*buf);
out:
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static ssize_t fm_eq_write(struct fid_eq *eq_fid, uint32_t event,
			   const void *buf, size_t len, uint64_t flags)
{
	struct fm_eq *eq = fm_container_of(eq_fid, struct fm_eq, eq_fid);
	struct fm_eq_event *ev;

	ev = fm_eq_alloc(len);
	if (!ev)
		return -FI_ENOMEM;
	(void)flags;
	ev->event = event;
	memcpy(ev->buf, buf, len);
	pthread_mutex_lock(&fm_lock);
	fm_list_add_tail(&eq->events, &ev->link);
	pthread_mutex_unlock(&fm_lock);
	return (ssize_t)len;
}

static int64_t fm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static ssize_t fm_eq_sread(struct fid_eq *eq_fid, uint32_t *event, void *buf,
			   size_t len, int timeout, uint64_t flags)
{
	struct fm_eq *eq = fm_container_of(eq_fid, struct fm_eq, eq_fid);
	int64_t end = timeout < 0 ? -1 : fm_now_ms() + timeout;
	ssize_t ret;

	pthread_mutex_lock(&fm_lock);
	for (;;) {
		int left;

		ret = fm_eq_read_locked(eq, event, buf, len, flags);
		if (ret != -FI_EAGAIN)
			break;
		left = end < 0 ? 100 : (int)(end - fm_now_ms());
		if (end >= 0 && left <= 0)
			break;
		/*
		 * Short slices: a connect in progress is only seen by polling
		 * its socket, and another thread may queue events.
		 */
		fm_wait(NULL, eq, left > 100 ? 100 : left);
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static const char *fm_eq_strerror(struct fid_eq *eq, int prov_errno,
				  const void *err_data, char *buf, size_t len)
{
	const char *s = fi_strerror(prov_errno);

	(void)eq;
	(void)err_data;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = 0;
		return buf;
	}
	return s;
}

static int fm_eq_close(struct fid *fid)
{
	struct fm_eq *eq = fm_container_of(fid, struct fm_eq, eq_fid.fid);
	struct fm_list *pos, *tmp;

	pthread_mutex_lock(&fm_lock);
	if (eq->refs) {
		pthread_mutex_unlock(&fm_lock);
		return -FI_EBUSY;
	}
	for (pos = eq->events.next; pos != &eq->events; pos = tmp) {
		tmp = pos->next;
		fm_list_del(pos);
		fm_eq_free_event(fm_container_of(pos, struct fm_eq_event, link));
	}
	pthread_mutex_unlock(&fm_lock);
	free(eq->err_data);
	free(eq);
	return 0;
}

static int fm_eq_control(struct fid *fid, int command, void *arg)
{
	(void)fid, (void)command, (void)arg;
	/* No wait object to hand out (FI_GETWAIT): FI_WAIT_FD is not offered. */
	return -FI_ENOSYS;
}

static struct fi_ops fm_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_eq_close,
	.bind = fm_no_bind,
	.control = fm_eq_control,
	.ops_open = fm_no_ops_open,
};

static struct fi_ops_eq fm_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = fm_eq_read,
	.readerr = fm_eq_readerr,
	.write = fm_eq_write,
	.sread = fm_eq_sread,
	.strerror = fm_eq_strerror,
};

int fm_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
	       struct fid_eq **eq_fid, void *context)
{
	struct fm_eq *eq;

	if (attr && attr->wait_obj != FI_WAIT_NONE &&
	    attr->wait_obj != FI_WAIT_UNSPEC && attr->wait_obj != FI_WAIT_YIELD)
		return -FI_ENOSYS;
	eq = calloc(1, sizeof(*eq));
	if (!eq)
		return -FI_ENOMEM;
	eq->eq_fid.fid.fclass = FI_CLASS_EQ;
	eq->eq_fid.fid.context = context;
	eq->eq_fid.fid.ops = &fm_eq_fi_ops;
	eq->eq_fid.ops = &fm_eq_ops;
	eq->fab = fm_container_of(fabric, struct fm_fabric, fabric_fid);
	eq->wait_obj = attr ? attr->wait_obj : FI_WAIT_UNSPEC;
	fm_list_init(&eq->events);
	*eq_fid = &eq->eq_fid;
	return 0;
}
