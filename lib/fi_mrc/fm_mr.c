// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * Memory regions. The provider needs none for sends and receives (mr_mode
 * 0: local buffers are never registered); regions exist for the RMA that
 * ofi_rxm's rendezvous uses, which the provider emulates in software: the
 * target's progress copies between the region and the socket. mr_mode 0
 * means the key is the application's requested_key (unique per domain,
 * else FI_ENOKEY) and an RMA address is an offset into the region (plus
 * fi_mr_reg()'s offset argument).
 */
#include <stdlib.h>
#include <string.h>

#include "fi_mrc.h"

static int fm_mr_close(struct fid *fid)
{
	struct fm_mr *mr = fm_container_of(fid, struct fm_mr, mr_fid.fid);

	pthread_mutex_lock(&fm_lock);
	fm_list_del(&mr->link);
	mr->dom->refs--;
	pthread_mutex_unlock(&fm_lock);
	free(mr);
	return 0;
}

static struct fi_ops fm_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fm_mr_close,
	.bind = fm_no_bind,
	.control = fm_no_control,
	.ops_open = fm_no_ops_open,
};

static struct fm_mr *fm_mr_by_key(struct fm_domain *dom, uint64_t key)
{
	struct fm_list *pos, *tmp;

	for (pos = dom->mrs.next; pos != &dom->mrs; pos = tmp) {
		struct fm_mr *mr = fm_container_of(pos, struct fm_mr, link);

		tmp = pos->next;
		if (mr->mr_fid.key == key)
			return mr;
	}
	return NULL;
}

uint8_t *fm_mr_find(struct fm_domain *dom, uint64_t key, uint64_t addr,
		    size_t len, uint64_t access, int *err)
{
	struct fm_mr *mr = fm_mr_by_key(dom, key);
	uint64_t off;

	if (!mr) {
		*err = -FI_ENOKEY;
		return NULL;
	}
	if (!(mr->access & access)) {
		*err = -FI_EACCES;
		return NULL;
	}
	if (addr < mr->offset) {
		*err = -FI_EINVAL;
		return NULL;
	}
	off = addr - mr->offset;
	if (off > mr->len || len > mr->len - off) {
		*err = -FI_EINVAL;
		return NULL;
	}
	return mr->base + off;
}

static int fm_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			 uint64_t flags, struct fid_mr **mr_fid)
{
	struct fm_domain *dom = fm_container_of(fid, struct fm_domain,
						 domain_fid.fid);
	struct fm_mr *mr;
	uint64_t access;

	if (flags || attr->iov_count > 1 || attr->iface != FI_HMEM_SYSTEM)
		return -FI_EINVAL;
	access = attr->access ? attr->access :
		 FI_SEND | FI_RECV | FI_READ | FI_WRITE |
		 FI_REMOTE_READ | FI_REMOTE_WRITE;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &fm_mr_fi_ops;
	mr->mr_fid.mem_desc = mr;
	mr->dom = dom;
	mr->access = access;
	mr->offset = attr->offset;
	if (attr->iov_count) {
		mr->base = attr->mr_iov[0].iov_base;
		mr->len = attr->mr_iov[0].iov_len;
	}
	pthread_mutex_lock(&fm_lock);
	if (fm_mr_by_key(dom, attr->requested_key)) {
		pthread_mutex_unlock(&fm_lock);
		free(mr);
		return -FI_ENOKEY;
	}
	mr->mr_fid.key = attr->requested_key;
	fm_list_add_tail(&dom->mrs, &mr->link);
	dom->refs++;
	pthread_mutex_unlock(&fm_lock);
	*mr_fid = &mr->mr_fid;
	return 0;
}

static int fm_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		      uint64_t access, uint64_t offset, uint64_t requested_key,
		      uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
		.iface = FI_HMEM_SYSTEM,
	};

	return fm_mr_regattr(fid, &attr, flags, mr);
}

static int fm_mr_reg(struct fid *fid, const void *buf, size_t len,
		     uint64_t access, uint64_t offset, uint64_t requested_key,
		     uint64_t flags, struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return fm_mr_regv(fid, &iov, 1, access, offset, requested_key, flags,
			  mr, context);
}

struct fi_ops_mr fm_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = fm_mr_reg,
	.regv = fm_mr_regv,
	.regattr = fm_mr_regattr,
};
