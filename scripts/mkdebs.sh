#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make debs: mrc-dkms, mrc-tools and libmrc-dev with Debian's own tooling
# (dpkg-buildpackage, debhelper, dh-dkms) from a copy of the working tree,
# so that nothing is written next to the checkout. The .debs land in
# build/deb/. The package version is the module's (MRC_MODULE_VERSION of
# kmod/mrc_main.c) and must equal debian/changelog's.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
# shellcheck source=/dev/null
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/\1=\2/p' "$build/kabi.mk")"

ver=$(sed -n 's/^#define MRC_MODULE_VERSION[[:space:]]*"\(.*\)"/\1/p' "$top/kmod/mrc_main.c")
deb_ver=$(cd "$top" && dpkg-parsechangelog -SVersion)
if [ "$ver" != "$deb_ver" ]; then
	echo "mkdebs: debian/changelog is at $deb_ver, the module at $ver" >&2
	exit 1
fi

out="$build/deb"
src="$out/mrc-$ver"
rm -rf "$out"
mkdir -p "$src"
rsync -a --exclude=/build --exclude=/.git --exclude='*.o' "$top/" "$src/"
(
	cd "$src"
	export MRC_GUEST_VMLINUZ="$GUEST_ROOT/boot/vmlinuz-$KABI"
	export MRC_EXTRACT_VMLINUX="$KSRC/scripts/extract-vmlinux"
	dpkg-buildpackage -b -us -uc -j"${JOBS:-2}"
) >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log" >&2
	echo "mkdebs: dpkg-buildpackage failed, see $out/build.log" >&2
	exit 1
}
ls "$out"/*.deb
