// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * fi_getinfo(): what the provider offers (one fi_info: FI_EP_MSG over
 * AF_MRC, FI_SOCKADDR_IN6 addresses), checked against the application's
 * hints, with its addresses resolved. Nothing is offered when AF_MRC is not
 * there (no mrc.ko): FI_ENODATA, as for a provider without hardware.
 *
 * Addresses: struct sockaddr_in6, sin6_port = MRC service id. node is an
 * IPv6 address (or a name with an IPv6 address), service a number. With no
 * source address the provider names one: FI_MRC_ADDR if set, else the
 * address the routing table picks for the destination, else the first
 * global IPv6 address of an up interface (FI_MRC_IFACE restricts the
 * interface), else ::1. A passive endpoint must have a real address, not
 * ::, because fi_getname() hands it to peers.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fi_mrc.h"

struct fi_info *fm_info_base(void)
{
	struct fi_info *info = fi_allocinfo();
	size_t max = fm_sock_max_msg();

	if (!info)
		return NULL;
	info->caps = FM_CAPS;
	info->mode = 0;
	info->addr_format = FI_SOCKADDR_IN6;

	info->tx_attr->caps = FM_CAPS & ~(FI_RECV | FI_REMOTE_READ | FI_REMOTE_WRITE);
	info->tx_attr->op_flags = 0;
	info->tx_attr->msg_order = FM_ORDER;
	info->tx_attr->comp_order = FI_ORDER_NONE;
	info->tx_attr->inject_size = FM_INJECT_SIZE;
	info->tx_attr->size = FM_TX_SIZE;
	info->tx_attr->iov_limit = FM_IOV_LIMIT;
	info->tx_attr->rma_iov_limit = 1;

	info->rx_attr->caps = FM_CAPS & ~(FI_SEND | FI_READ | FI_WRITE);
	info->rx_attr->op_flags = 0;
	info->rx_attr->msg_order = FM_ORDER;
	info->rx_attr->comp_order = FI_ORDER_STRICT;
	info->rx_attr->size = FM_RX_SIZE;
	info->rx_attr->iov_limit = FM_IOV_LIMIT;

	info->ep_attr->type = FI_EP_MSG;
	info->ep_attr->protocol = FI_PROTO_UNSPEC;
	info->ep_attr->max_msg_size = max;
	info->ep_attr->max_order_raw_size = max;
	info->ep_attr->max_order_war_size = max;
	info->ep_attr->max_order_waw_size = max;
	info->ep_attr->tx_ctx_cnt = 1;
	info->ep_attr->rx_ctx_cnt = 1;

	info->domain_attr->name = strdup(FM_DOMAIN_NAME);
	info->domain_attr->threading = FI_THREAD_SAFE;
	info->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	info->domain_attr->resource_mgmt = FI_RM_ENABLED;
	info->domain_attr->av_type = FI_AV_UNSPEC;
	info->domain_attr->mr_mode = 0;
	info->domain_attr->mr_key_size = FM_MR_KEY_SIZE;
	info->domain_attr->cq_data_size = sizeof(uint64_t);
	info->domain_attr->cq_cnt = 1024;
	info->domain_attr->ep_cnt = 65536;
	info->domain_attr->tx_ctx_cnt = 65536;
	info->domain_attr->rx_ctx_cnt = 65536;
	info->domain_attr->max_ep_tx_ctx = 1;
	info->domain_attr->max_ep_rx_ctx = 1;
	info->domain_attr->max_ep_stx_ctx = 0;
	info->domain_attr->max_ep_srx_ctx = 0;
	info->domain_attr->cntr_cnt = 0;
	info->domain_attr->mr_iov_limit = 1;
	info->domain_attr->max_err_data = FM_CM_DATA_MAX;
	info->domain_attr->mr_cnt = 65536;

	info->fabric_attr->name = strdup(FM_FABRIC_NAME);
	/*
	 * prov_name stays NULL: libfabric's core names the provider (it
	 * appends its name to one already set, as for layered providers).
	 */
	info->fabric_attr->prov_version = FM_PROV_VERSION;
	info->fabric_attr->api_version = FM_API_VERSION;

	if (!info->domain_attr->name || !info->fabric_attr->name) {
		fi_freeinfo(info);
		return NULL;
	}
	return info;
}

/* The first thing @hints asks that @prov lacks, or NULL */
static const char *fm_info_mismatch(const struct fi_info *prov,
				    const struct fi_info *hints)
{
	const struct fi_ep_attr *ep = hints->ep_attr;
	const struct fi_domain_attr *dom = hints->domain_attr;
	const struct fi_tx_attr *tx = hints->tx_attr;
	const struct fi_rx_attr *rx = hints->rx_attr;

	if (hints->caps & ~(prov->caps | FI_SOURCE))
		return "caps";
	if (hints->addr_format != FI_FORMAT_UNSPEC &&
	    hints->addr_format != FI_SOCKADDR &&
	    hints->addr_format != FI_SOCKADDR_IN6)
		return "addr_format";
	if (ep) {
		if (ep->type != FI_EP_UNSPEC && ep->type != FI_EP_MSG)
			return "ep_type";
		if (ep->protocol != FI_PROTO_UNSPEC)
			return "protocol";
		if (ep->max_msg_size > prov->ep_attr->max_msg_size)
			return "max_msg_size";
		if (ep->tx_ctx_cnt > 1 || ep->rx_ctx_cnt > 1)
			return "shared or scalable contexts";
		if (ep->auth_key_size)
			return "auth_key";
	}
	if (dom) {
		if (dom->name && strcmp(dom->name, prov->domain_attr->name))
			return "domain name";
		if (dom->control_progress == FI_PROGRESS_AUTO ||
		    dom->data_progress == FI_PROGRESS_AUTO)
			return "FI_PROGRESS_AUTO";
		if (dom->mr_mode == FI_MR_BASIC || dom->mr_mode == FI_MR_SCALABLE)
			return "legacy mr_mode";
		if (dom->cq_data_size > prov->domain_attr->cq_data_size)
			return "cq_data_size";
		if (dom->mr_key_size > prov->domain_attr->mr_key_size)
			return "mr_key_size";
		if (dom->max_ep_srx_ctx || dom->max_ep_stx_ctx)
			return "shared contexts";
		if (dom->caps & ~(FI_LOCAL_COMM | FI_REMOTE_COMM))
			return "domain caps";
		if (dom->auth_key_size)
			return "auth_key";
	}
	if (hints->fabric_attr && hints->fabric_attr->name &&
	    strcmp(hints->fabric_attr->name, prov->fabric_attr->name))
		return "fabric name";
	if (tx) {
		if (tx->caps & ~(prov->caps | FI_SOURCE))
			return "tx caps";
		if (tx->msg_order & ~prov->tx_attr->msg_order)
			return "tx msg_order";
		if (tx->inject_size > prov->tx_attr->inject_size)
			return "inject_size";
		if (tx->size > prov->tx_attr->size)
			return "tx size";
		if (tx->iov_limit > prov->tx_attr->iov_limit)
			return "tx iov_limit";
		if (tx->rma_iov_limit > prov->tx_attr->rma_iov_limit)
			return "rma_iov_limit";
	}
	if (rx) {
		if (rx->caps & ~(prov->caps | FI_SOURCE))
			return "rx caps";
		if (rx->msg_order & ~prov->rx_attr->msg_order)
			return "rx msg_order";
		if (rx->size > prov->rx_attr->size)
			return "rx size";
		if (rx->iov_limit > prov->rx_attr->iov_limit)
			return "rx iov_limit";
		if (rx->total_buffered_recv)
			return "total_buffered_recv";
		if (rx->op_flags & FI_MULTI_RECV)
			return "FI_MULTI_RECV";
	}
	return NULL;
}

int fm_info_match(const struct fi_info *prov, const struct fi_info *hints)
{
	const char *what = fm_info_mismatch(prov, hints);

	if (what) {
		FM_DBG(FI_LOG_CORE, "hints: %s not supported\n", what);
		return -FI_ENODATA;
	}
	return 0;
}

int fm_addr_from(const void *addr, size_t len, struct sockaddr_in6 *sin6)
{
	const struct sockaddr *sa = addr;

	if (!addr || len < sizeof(*sin6) || sa->sa_family != AF_INET6)
		return -FI_EINVAL;
	memcpy(sin6, addr, sizeof(*sin6));
	sin6->sin6_flowinfo = 0;
	return 0;
}

int fm_addr_copyout(const struct sockaddr_in6 *sin6, void *addr, size_t *len)
{
	size_t have = *len;

	*len = sizeof(*sin6);
	if (have < sizeof(*sin6))
		return -FI_ETOOSMALL;
	memcpy(addr, sin6, sizeof(*sin6));
	return 0;
}

static int fm_addr_first_global(struct in6_addr *out, uint32_t *scope)
{
	const char *want = getenv("FI_MRC_IFACE");
	struct ifaddrs *ifa, *i;
	int found = 0;

	if (getifaddrs(&ifa))
		return 0;
	/* Pass 0: global and unique-local; pass 1: link-local. */
	for (int pass = 0; pass < 2 && !found; pass++) {
		bool link_local = pass == 1;

		for (i = ifa; i && !found; i = i->ifa_next) {
			const struct sockaddr_in6 *a;

			if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET6 ||
			    !(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK))
				continue;
			if (want && *want && strcmp(want, i->ifa_name))
				continue;
			a = (const struct sockaddr_in6 *)(void *)i->ifa_addr;
			if (IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr) != link_local ||
			    IN6_IS_ADDR_MULTICAST(&a->sin6_addr))
				continue;
			*out = a->sin6_addr;
			*scope = pass ? a->sin6_scope_id : 0;
			found = 1;
		}
	}
	freeifaddrs(ifa);
	return found;
}

int fm_addr_source(const struct sockaddr_in6 *dst, struct sockaddr_in6 *src)
{
	const char *env = getenv("FI_MRC_ADDR");

	memset(src, 0, sizeof(*src));
	src->sin6_family = AF_INET6;
	if (env && *env)
		return inet_pton(AF_INET6, env, &src->sin6_addr) == 1 ? 0 : -FI_EINVAL;
	if (dst && !IN6_IS_ADDR_UNSPECIFIED(&dst->sin6_addr)) {
		struct sockaddr_in6 probe = *dst, me;
		socklen_t len = sizeof(me);
		int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int ok;

		if (!probe.sin6_port)
			probe.sin6_port = htons(9);
		ok = fd >= 0 && !connect(fd, (struct sockaddr *)&probe, sizeof(probe)) &&
		     !getsockname(fd, (struct sockaddr *)&me, &len);
		if (fd >= 0)
			close(fd);
		if (ok) {
			src->sin6_addr = me.sin6_addr;
			src->sin6_scope_id = me.sin6_scope_id;
			return 0;
		}
	}
	if (!fm_addr_first_global(&src->sin6_addr, &src->sin6_scope_id))
		src->sin6_addr = in6addr_loopback;
	return 0;
}

/* node/service to an address; NULL node is ::. */
static int fm_resolve(const char *node, const char *service,
		      struct sockaddr_in6 *sin6)
{
	unsigned long port = 0;
	char *end;

	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	if (service && *service) {
		errno = 0;
		port = strtoul(service, &end, 10);
		if (errno || *end || port > 65535)
			return -FI_EINVAL;
	}
	if (node && *node) {
		struct addrinfo hints = { .ai_family = AF_INET6 }, *res;

		if (getaddrinfo(node, NULL, &hints, &res))
			return -FI_ENODATA;
		memcpy(sin6, res->ai_addr, sizeof(*sin6));
		freeaddrinfo(res);
	}
	sin6->sin6_port = htons((uint16_t)port);
	return 0;
}

static int fm_set_addr(void **slot, size_t *len, const struct sockaddr_in6 *a)
{
	free(*slot);
	*slot = malloc(sizeof(*a));
	if (!*slot)
		return -FI_ENOMEM;
	memcpy(*slot, a, sizeof(*a));
	*len = sizeof(*a);
	return 0;
}

/* The capabilities to return: those asked for, with their implied ones. */
static uint64_t fm_caps_for(uint64_t want)
{
	uint64_t caps;

	if (!want)
		return FM_CAPS;
	caps = want & FM_CAPS;
	if ((caps & FI_MSG) && !(caps & (FI_SEND | FI_RECV)))
		caps |= FI_SEND | FI_RECV;
	if ((caps & FI_RMA) &&
	    !(caps & (FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE)))
		caps |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
	return caps | (FM_CAPS & (FI_LOCAL_COMM | FI_REMOTE_COMM));
}

int fm_getinfo(uint32_t version, const char *node, const char *service,
	       uint64_t flags, const struct fi_info *hints,
	       struct fi_info **info)
{
	struct sockaddr_in6 src, dst;
	bool have_src = false, have_dst = false;
	struct fi_info *fi;
	int ret;

	(void)version;
	*info = NULL;
	if (!fm_sock_available()) {
		FM_DBG(FI_LOG_CORE, "AF_MRC unavailable (mrc.ko not loaded)\n");
		return -FI_ENODATA;
	}
	fi = fm_info_base();
	if (!fi)
		return -FI_ENOMEM;
	if (hints) {
		ret = fm_info_match(fi, hints);
		if (ret)
			goto err;
	}

	if (node || service) {
		struct sockaddr_in6 a;

		ret = fm_resolve(node, service, &a);
		if (ret) {
			ret = -FI_ENODATA;
			goto err;
		}
		if ((flags & FI_SOURCE) || !node) {
			src = a;
			have_src = true;
		} else {
			dst = a;
			have_dst = true;
		}
	}
	if (hints && !have_src && hints->src_addr) {
		if (fm_addr_from(hints->src_addr, hints->src_addrlen, &src)) {
			ret = -FI_ENODATA;
			goto err;
		}
		have_src = true;
	}
	if (hints && !have_dst && hints->dest_addr) {
		if (fm_addr_from(hints->dest_addr, hints->dest_addrlen, &dst)) {
			ret = -FI_ENODATA;
			goto err;
		}
		have_dst = true;
	}
	if (!have_src) {
		ret = fm_addr_source(have_dst ? &dst : NULL, &src);
		if (ret)
			goto err;
	}
	ret = fm_set_addr(&fi->src_addr, &fi->src_addrlen, &src);
	if (!ret && have_dst)
		ret = fm_set_addr(&fi->dest_addr, &fi->dest_addrlen, &dst);
	if (ret)
		goto err;

	if (hints) {
		fi->caps = fm_caps_for(hints->caps);
		fi->tx_attr->caps &= fi->caps;
		fi->rx_attr->caps &= fi->caps;
		if (hints->domain_attr &&
		    hints->domain_attr->threading != FI_THREAD_UNSPEC)
			fi->domain_attr->threading = hints->domain_attr->threading;
		if (hints->tx_attr)
			fi->tx_attr->op_flags = hints->tx_attr->op_flags &
				(FI_COMPLETION | FI_INJECT_COMPLETE |
				 FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE);
		if (hints->rx_attr)
			fi->rx_attr->op_flags = hints->rx_attr->op_flags & FI_COMPLETION;
	}
	*info = fi;
	return 0;
err:
	fi_freeinfo(fi);
	return ret;
}
