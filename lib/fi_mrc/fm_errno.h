/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
#ifndef FM_ERRNO_H
#define FM_ERRNO_H

/*
 * fm_fi_errno() - the positive fi_errno for an errno (either sign)
 * 0 stays 0; errors libfabric has no name for are FI_EOTHER.
 */
int fm_fi_errno(int err);

#endif /* FM_ERRNO_H */
