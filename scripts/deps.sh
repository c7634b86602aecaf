#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Set-up from nothing on Debian 12: install every package the project needs,
# resolve the guest kernel ABI from Debian's metapackages, unpack the guest
# kernel image under build/ (never installed on the host) and take the
# kselftest framework files and helper scripts out of linux-source-6.1.
# The second kernel of the matrix, Debian 12's 6.12 from bookworm-security,
# is unpacked under build/guest-6.12/: its image, and its headers and kbuild
# to build mrc.ko against (extracted, not installed: the headers package
# would pull the kernel image onto the host).
#
# Idempotent: when everything is present it only checks and returns in
# seconds. The resolved ABIs are recorded in one place each, build/kabi.mk
# (6.1) and build/kabi-6.12.mk, which the Makefile (KERNEL=6.1|6.12) and the
# VM rig (MRC_KABI_MK) read.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
build="$top/build"
mkdir -p "$build"

packages=(
	# guest kernel headers (the metapackage pulls the ABI-numbered one)
	linux-headers-amd64 linux-source-6.1
	# the libfabric provider (lib/fi_mrc): headers, fi_info and fi_pingpong
	libfabric-dev libfabric-bin libfabric1
	# MPI over the provider (mrc_mpi_check, selftests/mrc/mrc_mpi.sh): Open
	# MPI 4.1 with its OFI MTL (libfabric), mpirun and orted for the guest
	openmpi-bin libopenmpi-dev
	# the VM rig
	qemu-system-x86 busybox-static dash kmod iproute2 rsync iperf3 mptcpize
	cpio xz-utils file ethtool tcpdump procps jq bsdextrautils gnuplot-nox
	nftables
	# make bench-profile: perf in the guest (software clock sampling)
	linux-perf
	# builds
	build-essential bc flex bison libelf-dev clang llvm lld dwarves cmake
	pkg-config libgtest-dev libgmock-dev libclang-rt-14-dev clang-format
	libnl-3-dev libnl-genl-3-dev libbpf-dev bpftool zlib1g-dev
	# bench report, netlink spec check (YNL schemas of linux-source-6.12)
	python3 python3-jsonschema python3-yaml linux-source-6.12
	# the 6.12 guest's kernel headers are built with its compiler
	gcc-12
	# packaging (make debs, make install): Debian's tooling, DKMS
	dpkg-dev debhelper dh-dkms dkms rsync
	# documentation check (make lint)
	python3-docutils
	# the guest's Python (libmrc binding, ynl CLI) and the documented socat
	# recipe (mrc_python.sh)
	python3-minimal libpython3.11-stdlib socat
	# wire: the capture test decodes with tshark and tools/wireshark/mrc.lua
	tshark
)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if ((${#missing[@]})); then
	echo "deps: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The ABI of the guest kernel is whatever linux-headers-amd64 currently points
# at; the image must be the very same ABI and version.
dep=$(dpkg-query -W -f='${Depends}' linux-headers-amd64)
hdr_pkg=${dep%% *}                     # linux-headers-6.1.0-NN-amd64
kver=$(sed -n 's/.*(= \(.*\)).*/\1/p' <<<"$dep")
kabi=${hdr_pkg#linux-headers-}         # 6.1.0-NN-amd64
kdir=/usr/src/$hdr_pkg
[ -d "$kdir" ] || { echo "deps: $kdir missing after install" >&2; exit 1; }

guest="$build/guest"
root="$guest/root"
if [ ! -f "$root/boot/vmlinuz-$kabi" ]; then
	echo "deps: fetching guest kernel linux-image-$kabi ($kver)"
	rm -rf "$guest"
	mkdir -p "$guest"
	(cd "$guest" && apt-get download "linux-image-$kabi=$kver")
	dpkg-deb -x "$guest"/linux-image-"$kabi"_*.deb "$root"
	depmod -b "$root" "$kabi"
	rm -f "$guest"/*.deb
fi

# linux-source: checkpatch, extract-vmlinux and the kselftest framework.
src="$build/src/linux-source-6.1"
if [ ! -f "$src/.mrc-extracted" ]; then
	echo "deps: extracting tools from linux-source-6.1"
	rm -rf "$build/src"
	mkdir -p "$build/src"
	tar -C "$build/src" -xf /usr/src/linux-source-6.1.tar.xz \
		linux-source-6.1/scripts \
		linux-source-6.1/tools/testing/selftests/lib.mk \
		linux-source-6.1/tools/testing/selftests/kselftest_harness.h \
		linux-source-6.1/tools/testing/selftests/kselftest.h \
		linux-source-6.1/tools/testing/selftests/kselftest \
		linux-source-6.1/tools/testing/selftests/run_kselftest.sh
	touch "$src/.mrc-extracted"
fi

# The kernel's own ynl CLI (tools/net/ynl) from linux-source-6.12: the guest
# drives the mrc family with it from our spec (mrc_ynl.sh).
ynl="$build/src/ynl-6.12"
if [ ! -f "$ynl/.mrc-extracted" ]; then
	echo "deps: extracting tools/net/ynl from linux-source-6.12"
	rm -rf "$ynl"
	mkdir -p "$ynl"
	tar -C "$ynl" --strip-components=4 -xf /usr/src/linux-source-6.12.tar.xz \
		linux-source-6.12/tools/net/ynl/cli.py linux-source-6.12/tools/net/ynl/lib
	touch "$ynl/.mrc-extracted"
fi

# Debian 12's 6.12: no metapackage in bookworm, so the newest ABI whose
# headers the archive has; its image, headers, common headers and kbuild.
kabi612=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
	awk '{ sub(/^linux-headers-/, "", $1); print $1 }' | sort -V | tail -n 1)
[ -n "$kabi612" ] || { echo "deps: no linux-headers-6.12.*+deb12-amd64 in the archive" >&2; exit 1; }
kver612=$(apt-cache show "linux-headers-$kabi612" | sed -n 's/^Version: //p' | head -n 1)
rel612=${kabi612%-amd64}                # 6.12.NN+deb12
g612="$build/guest-6.12"
root612="$g612/root"
kdir612="$root612/usr/src/linux-headers-$kabi612"
if [ ! -f "$root612/boot/vmlinuz-$kabi612" ] || [ ! -f "$kdir612/.mrc-relocated" ]; then
	echo "deps: fetching guest kernel linux-image-$kabi612 and its headers ($kver612)"
	rm -rf "$g612"
	mkdir -p "$root612"
	(cd "$g612" && apt-get download "linux-image-$kabi612-unsigned=$kver612" \
		"linux-headers-$kabi612=$kver612" "linux-headers-$rel612-common=$kver612" \
		"linux-kbuild-$rel612=$kver612")
	for d in "$g612"/*.deb; do
		dpkg-deb -x "$d" "$root612"
	done
	rm -f "$g612"/*.deb
	# The headers' Makefile includes the common tree by its absolute path.
	sed -i "s|^include /usr/src/|include $root612/usr/src/|" "$kdir612/Makefile"
	touch "$kdir612/.mrc-relocated"
	depmod -b "$root612" "$kabi612"
fi

. "$top/scripts/kabi.sh"
write_kabi "$build/kabi.mk" "the one place the guest kernel ABI is recorded" \
	"$kabi" "$kver" "$kdir" "$root" "$src" ""
write_kabi "$build/kabi-6.12.mk" "the second kernel of the matrix (KERNEL=6.12)" \
	"$kabi612" "$kver612" "$kdir612" "$root612" "$src" -6.12
echo "deps: ok (guest kernels $kabi, $kver and $kabi612, $kver612)"
