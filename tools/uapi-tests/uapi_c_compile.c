/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* The uapi header as plain ISO C11 (-pedantic-errors): size asserts included. */
#include <stddef.h>
#include <linux/mrc.h>

_Static_assert(offsetof(struct sockaddr_mrc, smrc_addr) == 8, "smrc_addr offset");

size_t mrc_uapi_c_sockaddr_size(void);

size_t mrc_uapi_c_sockaddr_size(void)
{
	return sizeof(struct sockaddr_mrc);
}
