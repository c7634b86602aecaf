// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The provider's entry point (fi_prov_ini, found by libfabric as
 * libmrc-fi.so in FI_PROVIDER_PATH or its provider directory), the fabric
 * and the domain objects, and the stubs of what the provider does not do.
 */
#include <stdlib.h>
#include <string.h>

#include "fi_mrc.h"

pthread_mutex_t fm_lock = PTHREAD_MUTEX_INITIALIZER;
struct fm_list fm_eps = { &fm_eps, &fm_eps };
struct fm_list fm_peps = { &fm_peps, &fm_peps };

int fm_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid, (void)bfid, (void)flags;
	return -FI_ENOSYS;
}

int fm_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid, (void)command, (void)arg;
	return -FI_ENOSYS;
}

int fm_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		   void **ops, void *context)
{
	(void)fid, (void)name, (void)flags, (void)ops, (void)context;
	return -FI_ENOSYS;
}

/* Tagged messages are ofi_rxm's job: every call is FI_ENOSYS. */
static ssize_t fm_no_trecv(struct fid_ep *ep, void *buf, size_t len, void *desc,
			   fi_addr_t src, uint64_t tag, uint64_t ignore, void *ctx)
{
	(void)ep, (void)buf, (void)len, (void)desc, (void)src, (void)tag,
	(void)ignore, (void)ctx;
	return -FI_ENOSYS;
}

static ssize_t fm_no_trecvv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t src,
			    uint64_t tag, uint64_t ignore, void *ctx)
{
	(void)ep, (void)iov, (void)desc, (void)count, (void)src, (void)tag,
	(void)ignore, (void)ctx;
	return -FI_ENOSYS;
}

static ssize_t fm_no_tmsg(struct fid_ep *ep, const struct fi_msg_tagged *msg,
			  uint64_t flags)
{
	(void)ep, (void)msg, (void)flags;
	return -FI_ENOSYS;
}

static ssize_t fm_no_tsend(struct fid_ep *ep, const void *buf, size_t len,
			   void *desc, fi_addr_t dest, uint64_t tag, void *ctx)
{
	(void)ep, (void)buf, (void)len, (void)desc, (void)dest, (void)tag,
	(void)ctx;
	return -FI_ENOSYS;
}

static ssize_t fm_no_tsendv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t dest,
			    uint64_t tag, void *ctx)
{
	(void)ep, (void)iov, (void)desc, (void)count, (void)dest, (void)tag,
	(void)ctx;
	return -FI_ENOSYS;
}

static ssize_t fm_no_tinject(struct fid_ep *ep, const void *buf, size_t len,
			     fi_addr_t dest, uint64_t tag)
{
	(void)ep, (void)buf, (void)len, (void)dest, (void)tag;
	return -FI_ENOSYS;
}

static ssize_t fm_no_tsenddata(struct fid_ep *ep, const void *buf, size_t len,
			       void *desc, uint64_t data, fi_addr_t dest,
			       uint64_t tag, void *ctx)
{
	(void)ep, (void)buf, (void)len, (void)desc, (void)data, (void)dest,
	(void)tag, (void)ctx;
	return -FI_ENOSYS;
}

static ssize_t fm_no_tinjectdata(struct fid_ep *ep, const void *buf,
				 size_t len, uint64_t data, fi_addr_t dest,
				 uint64_t tag)
{
	(void)ep, (void)buf, (void)len, (void)data, (void)dest, (void)tag;
	return -FI_ENOSYS;
}

struct fi_ops_tagged fm_no_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = fm_no_trecv,
	.recvv = fm_no_trecvv,
	.recvmsg = fm_no_tmsg,
	.send = fm_no_tsend,
	.sendv = fm_no_tsendv,
	.sendmsg = fm_no_tmsg,
	.inject = fm_no_tinject,
	.senddata = fm_no_tsenddata,
	.injectdata = fm_no_tinjectdata,
};

/* Not advertised (no FI_ATOMIC, no FI_COLLECTIVE): empty tables. */
struct fi_ops_atomic fm_no_atomic_ops = { .size = sizeof(struct fi_ops_atomic) };
struct fi_ops_collective fm_no_collective_ops = {
	.size = sizeof(struct fi_ops_collective),
};

/* ---- domain ---- */

static int fm_domain_close(struct fid *fid)
{
	struct fm_domain *dom = fm_container_of(fid, struct fm_domain,
						 domain_fid.fid);

	pthread_mutex_lock(&fm_lock);
	if (dom->refs) {
		pthread_mutex_unlock(&fm_lock);
		return -FI_EBUSY;
	}
	pthread_mutex_unlock(&fm_lock);
	free(dom);
	return 0;
}

static struct fi_ops fm_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_domain_close,
	.bind = fm_no_bind,
	.control = fm_no_control,
	.ops_open = fm_no_ops_open,
};

static int fm_no_av_open(struct fid_domain *d, struct fi_av_attr *attr,
			 struct fid_av **av, void *context)
{
	(void)d, (void)attr, (void)av, (void)context;
	return -FI_ENOSYS;
}

static int fm_no_sep(struct fid_domain *d, struct fi_info *info,
		     struct fid_ep **sep, void *context)
{
	(void)d, (void)info, (void)sep, (void)context;
	return -FI_ENOSYS;
}

static int fm_no_cntr_open(struct fid_domain *d, struct fi_cntr_attr *attr,
			   struct fid_cntr **cntr, void *context)
{
	(void)d, (void)attr, (void)cntr, (void)context;
	return -FI_ENOSYS;
}

static int fm_no_poll_open(struct fid_domain *d, struct fi_poll_attr *attr,
			   struct fid_poll **poll)
{
	(void)d, (void)attr, (void)poll;
	return -FI_ENOSYS;
}

static int fm_no_stx(struct fid_domain *d, struct fi_tx_attr *attr,
		     struct fid_stx **stx, void *context)
{
	(void)d, (void)attr, (void)stx, (void)context;
	return -FI_ENOSYS;
}

static int fm_no_srx(struct fid_domain *d, struct fi_rx_attr *attr,
		     struct fid_ep **rx, void *context)
{
	(void)d, (void)attr, (void)rx, (void)context;
	return -FI_ENOSYS;
}

static int fm_no_query_atomic(struct fid_domain *d, enum fi_datatype dt,
			      enum fi_op op, struct fi_atomic_attr *attr,
			      uint64_t flags)
{
	(void)d, (void)dt, (void)op, (void)attr, (void)flags;
	return -FI_ENOSYS;
}

static int fm_no_query_coll(struct fid_domain *d, enum fi_collective_op coll,
			    struct fi_collective_attr *attr, uint64_t flags)
{
	(void)d, (void)coll, (void)attr, (void)flags;
	return -FI_ENOSYS;
}

static int fm_ep_open2(struct fid_domain *d, struct fi_info *info,
		       struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return fm_ep_open(d, info, ep, context);
}

static struct fi_ops_domain fm_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = fm_no_av_open,
	.cq_open = fm_cq_open,
	.endpoint = fm_ep_open,
	.scalable_ep = fm_no_sep,
	.cntr_open = fm_no_cntr_open,
	.poll_open = fm_no_poll_open,
	.stx_ctx = fm_no_stx,
	.srx_ctx = fm_no_srx,
	.query_atomic = fm_no_query_atomic,
	.query_collective = fm_no_query_coll,
	.endpoint2 = fm_ep_open2,
};

int fm_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		   struct fid_domain **domain, void *context)
{
	struct fm_domain *dom;

	if (info && info->domain_attr && info->domain_attr->name &&
	    strcmp(info->domain_attr->name, FM_DOMAIN_NAME))
		return -FI_EINVAL;
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	dom->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain_fid.fid.context = context;
	dom->domain_fid.fid.ops = &fm_domain_fi_ops;
	dom->domain_fid.ops = &fm_domain_ops;
	dom->domain_fid.mr = &fm_mr_ops;
	dom->fab = fm_container_of(fabric, struct fm_fabric, fabric_fid);
	dom->next_key = 1;
	dom->mr_mode = info && info->domain_attr ? info->domain_attr->mr_mode : 0;
	fm_list_init(&dom->mrs);
	*domain = &dom->domain_fid;
	return 0;
}

static int fm_domain_open2(struct fid_fabric *fabric, struct fi_info *info,
			   struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return fm_domain_open(fabric, info, dom, context);
}

/* ---- fabric ---- */

static int fm_fabric_close(struct fid *fid)
{
	free(fm_container_of(fid, struct fm_fabric, fabric_fid.fid));
	return 0;
}

static struct fi_ops fm_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_fabric_close,
	.bind = fm_no_bind,
	.control = fm_no_control,
	.ops_open = fm_no_ops_open,
};

static int fm_no_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
			   struct fid_wait **waitset)
{
	(void)fabric, (void)attr, (void)waitset;
	return -FI_ENOSYS;
}

/*
 * Nothing to wait for is ever hidden in the provider: a CQ or EQ with
 * entries must be read, one without may be waited on.
 */
static int fm_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	int ret = 0;

	(void)fabric;
	pthread_mutex_lock(&fm_lock);
	for (int i = 0; i < count && !ret; i++) {
		if (fids[i]->fclass == FI_CLASS_CQ) {
			struct fm_cq *cq = fm_container_of(fids[i], struct fm_cq,
							   cq_fid.fid);

			fm_progress_cq(cq);
			if (!fm_list_empty(&cq->entries))
				ret = -FI_EAGAIN;
		} else if (fids[i]->fclass == FI_CLASS_EQ) {
			struct fm_eq *eq = fm_container_of(fids[i], struct fm_eq,
							   eq_fid.fid);

			fm_progress_eq(eq);
			if (!fm_list_empty(&eq->events))
				ret = -FI_EAGAIN;
		} else {
			ret = -FI_EINVAL;
		}
	}
	pthread_mutex_unlock(&fm_lock);
	return ret;
}

static struct fi_ops_fabric fm_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = fm_domain_open,
	.passive_ep = fm_pep_open,
	.eq_open = fm_eq_open,
	.wait_open = fm_no_wait_open,
	.trywait = fm_trywait,
	.domain2 = fm_domain_open2,
};

int fm_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		   void *context)
{
	struct fm_fabric *fab;

	if (attr && attr->name && strcmp(attr->name, FM_FABRIC_NAME))
		return -FI_EINVAL;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	fab->fabric_fid.fid.fclass = FI_CLASS_FABRIC;
	fab->fabric_fid.fid.context = context;
	fab->fabric_fid.fid.ops = &fm_fabric_fi_ops;
	fab->fabric_fid.ops = &fm_fabric_ops;
	fab->fabric_fid.api_version = attr ? attr->api_version : FM_API_VERSION;
	*fabric = &fab->fabric_fid;
	return 0;
}

static void fm_cleanup(void)
{
}

struct fi_provider fm_prov = {
	.version = FM_PROV_VERSION,
	.fi_version = FM_API_VERSION,
	.name = FM_PROV_NAME,
	.getinfo = fm_getinfo,
	.fabric = fm_fabric_open,
	.cleanup = fm_cleanup,
};

FI_EXT_INI
{
	return &fm_prov;
}
