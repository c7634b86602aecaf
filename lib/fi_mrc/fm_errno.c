// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * AF_MRC's errno (Documentation/networking/mrc-socket.rst, "errno
 * contract") to libfabric's fi_errno. Most fi_errno values are the errno
 * values themselves; the few AF_MRC errors libfabric has no name for are
 * folded into the nearest one, everything else is FI_EOTHER.
 */
#include <errno.h>
#include <rdma/fi_errno.h>

#include "fm_errno.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const int fm_same[] = {
	EPERM, ENOENT, EINTR, EIO, E2BIG, EBADF, EAGAIN, ENOMEM, EACCES,
	EFAULT, EBUSY, ENODEV, EINVAL, EMFILE, ENOSPC, ENOSYS, ENOMSG, ENODATA,
	EOVERFLOW, EMSGSIZE, ENOPROTOOPT, EOPNOTSUPP, EADDRINUSE,
	EADDRNOTAVAIL, ENETDOWN, ENETUNREACH, ECONNABORTED, ECONNRESET,
	ENOBUFS, EISCONN, ENOTCONN, ESHUTDOWN, ETIMEDOUT, ECONNREFUSED,
	EHOSTDOWN, EHOSTUNREACH, EALREADY, EINPROGRESS, EREMOTEIO, ECANCELED,
	EKEYREJECTED,
};

int fm_fi_errno(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(fm_same); i++)
		if (fm_same[i] == err)
			return err;
	switch (err) {
	case EPIPE:		/* the peer closed, or we shut down */
		return FI_ECONNRESET;
	case ESOCKTNOSUPPORT:
	case EPROTONOSUPPORT:
	case EAFNOSUPPORT:	/* no mrc.ko */
		return FI_ENODATA;
	case ENFILE:
		return FI_EMFILE;
	case EPROTO:		/* a peer that does not speak our framing */
		return FI_EOTHER;
	default:
		return FI_EOTHER;
	}
}
