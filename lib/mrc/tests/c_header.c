// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/* libmrc.h on its own in strict C11 (what an application includes). */
#include "libmrc.h"

int mrc_c_header_user(void);

int mrc_c_header_user(void)
{
	struct mrc_conn_opts o = { .plane_mask = 1 };

	return (int)o.plane_mask + (int)sizeof(struct mrc_info);
}
