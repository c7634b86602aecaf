#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug guest kernel of `make check-debug` (KERNEL=debug) from
# Debian's own linux-source-6.1: Debian's config of the 6.1 guest, cut by
# localmodconfig to the modules the selftest suite loads
# (scripts/debug/kernel.modules), plus the checks of
# scripts/debug/kernel.config (KASAN, lockdep, kmemleak, UBSAN, debug
# objects, reference trackers).
#
# Everything lands under build/: the source and object tree in
# build/debug-kernel/ (the object tree is the KDIR mrc.ko builds against),
# the image and modules in build/guest-debug/root/ as a guest root like the
# Debian ones, and build/kabi-debug.mk for the Makefile and the VM rig.
# The build is reused while its inputs are unchanged (their digest is kept
# in build/debug-kernel/inputs.sha256); a change rebuilds incrementally.
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
build="$top/build"
[ -f "$build/kabi.mk" ] || bash "$top/scripts/deps.sh"
base_kabi=$(sed -n 's/^KABI := //p' "$build/kabi.mk")
base_root=$(sed -n 's/^GUEST_ROOT := //p' "$build/kabi.mk")
ksrc=$(sed -n 's/^KSRC := //p' "$build/kabi.mk")
base_config="$base_root/boot/config-$base_kabi"
fragment="$top/scripts/debug/kernel.config"
modules="$top/scripts/debug/kernel.modules"
tarball=/usr/src/linux-source-6.1.tar.xz

work="$build/debug-kernel"
src="$work/linux-source-6.1"
obj="$work/obj"
root="$build/guest-debug/root"
mkdir -p "$work"

inputs=$(cat "$base_config" "$fragment" "$modules" "$0" | sha256sum | cut -d' ' -f1)
inputs="$inputs $(stat -c %s.%Y "$tarball")"
if [ -f "$build/kabi-debug.mk" ] && [ "$(cat "$work/inputs.sha256" 2>/dev/null)" = "$inputs" ]; then
	echo "debug-kernel: up to date ($(sed -n 's/^KABI := //p' "$build/kabi-debug.mk"))"
	exit 0
fi

if [ ! -f "$src/.mrc-extracted" ] || [ "$tarball" -nt "$src/.mrc-extracted" ]; then
	echo "debug-kernel: extracting $tarball"
	rm -rf "$src" "$obj"
	tar -C "$work" -xJf "$tarball"
	touch "$src/.mrc-extracted"
fi

echo "debug-kernel: configuring (Debian $base_kabi config, localmodconfig, debug checks)"
mkdir -p "$obj"
cp "$base_config" "$obj/.config"
grep -v '^#' "$modules" >"$work/lsmod.txt"
make -s -C "$src" O="$obj" LSMOD="$work/lsmod.txt" localmodconfig </dev/null >/dev/null 2>&1
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$fragment" >/dev/null
make -s -C "$src" O="$obj" olddefconfig
# olddefconfig silently drops what a dependency refuses: check every line.
bad=0
while read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$obj/.config" || { echo "debug-kernel: $line did not stick" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
		! grep -q "^$sym=" "$obj/.config" || { echo "debug-kernel: $sym is still set" >&2; bad=1; } ;;
	esac
done <"$fragment"
((bad == 0)) || exit 1

jobs=$(nproc)
echo "debug-kernel: building with $jobs jobs (about an hour on 2 cores)"
start=$(date +%s)
make -s -C "$src" O="$obj" -j"$jobs" bzImage modules
kabi=$(make -s -C "$src" O="$obj" kernelrelease)

rm -rf "$build/guest-debug"
mkdir -p "$root/boot"
make -s -C "$src" O="$obj" INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install
cp "$obj/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$kabi"
cp "$obj/.config" "$root/boot/config-$kabi"
# The module tree points back at the build; the guest does not need it.
rm -f "$root/lib/modules/$kabi/build" "$root/lib/modules/$kabi/source"
echo "debug-kernel: built $kabi in $(( ($(date +%s) - start) / 60 )) min"

. "$top/scripts/kabi.sh"
write_kabi "$build/kabi-debug.mk" "the debug kernel (KERNEL=debug)" \
	"$kabi" "$kabi" "$obj" "$root" "$ksrc" -debug
echo "$inputs" >"$work/inputs.sha256"
