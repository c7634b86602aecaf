#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the cached "tools" initramfs of the test VM: busybox for the basics,
# dash as /bin/sh (busybox ash would run its own ip/tc applets instead of the
# real ones), the real networking and test tools with their shared-library
# closure, and the kernel modules needed to mount the project over virtio-9p.
# Every other module is loaded from the guest kernel tree on the share.
#
# Usage: mkinitramfs.sh OUTPUT.cpio.gz   (reads $MRC_KABI_MK, default
# build/kabi.mk: the kernel of the matrix the image is for)
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$1
kabi_mk=${MRC_KABI_MK:-$top/build/kabi.mk}
kabi=$(sed -n 's/^KABI := //p' "$kabi_mk")
groot=$(sed -n 's/^GUEST_ROOT := //p' "$kabi_mk")

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
chmod 755 "$stage"

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,etc,proc,sys,dev,tmp,run,mrc,root,var/run}
mkdir -p "$stage"/sys/fs/bpf "$stage"/usr/share

# Tools that must be the real ones (not busybox applets), with their libraries.
real_tools=(
	/usr/bin/dash /usr/bin/bash /usr/bin/timeout /usr/bin/realpath /usr/bin/env
	/usr/bin/sha256sum /usr/bin/stat /usr/bin/seq /usr/bin/sort /usr/bin/uniq
	/usr/bin/date /usr/bin/head /usr/bin/tail /usr/bin/cut /usr/bin/tr /usr/bin/wc
	/usr/bin/dd /usr/bin/md5sum /usr/bin/basename /usr/bin/dirname /usr/bin/sleep
	/usr/bin/cat /usr/bin/grep /usr/bin/sed /usr/bin/awk /usr/bin/mawk
	/usr/bin/setpriv /usr/bin/unshare /usr/bin/nsenter /usr/bin/flock
	/usr/bin/iperf3 /usr/bin/mptcpize /usr/bin/tcpdump /usr/sbin/ethtool
	/usr/sbin/bpftool /usr/sbin/tc /usr/sbin/ip /usr/sbin/bridge /usr/bin/ss
	/usr/bin/kmod /usr/sbin/sysctl /usr/bin/xargs /usr/bin/find /usr/bin/mktemp
	/usr/bin/od /usr/bin/cmp /usr/bin/diff /usr/bin/tee /usr/bin/nproc
	/usr/bin/dmesg /usr/bin/pkill /usr/bin/pgrep /usr/bin/ps /usr/bin/kill
	/usr/bin/jq /usr/sbin/nft /usr/bin/rdma /usr/bin/socat /usr/bin/perf
	/usr/bin/fi_info /usr/bin/fi_pingpong
	# Open MPI (mrc_mpi.sh): mpirun is orterun; mrc_mpi_check links libmpi
	/usr/bin/mpirun /usr/bin/orted /usr/lib/x86_64-linux-gnu/libmpi.so.40
)

copy_with_libs() {
	local f=$1 dst lib
	[ -e "$f" ] || { echo "mkinitramfs: missing $f (run make deps)" >&2; exit 1; }
	f=$(readlink -f "$f")
	dst="$stage$1"
	mkdir -p "$(dirname "$dst")"
	cp -L "$f" "$dst"
	ldd "$f" 2>/dev/null | awk '/=> \//{print $3} /^\t\/lib/{print $1}' |
	while read -r lib; do
		[ -e "$stage$lib" ] && continue
		mkdir -p "$stage$(dirname "$lib")"
		cp -L "$lib" "$stage$lib"
	done
}

for t in "${real_tools[@]}"; do
	copy_with_libs "$t"
done

# Libraries of project tools that run from the share (mrcctl is built later).
extra_libs=(
	/usr/lib/x86_64-linux-gnu/libnl-3.so.200
	/usr/lib/x86_64-linux-gnu/libnl-genl-3.so.200
	/usr/lib/x86_64-linux-gnu/libbpf.so.1
)
for l in "${extra_libs[@]}"; do
	copy_with_libs "$l"
done

# Open MPI's run time (mrc_mpi.sh): the MCA components it dlopens, with
# their libraries (those whose libraries Debian does not install, such as
# UCX's, simply fail to load and are not used), its help texts and
# configuration (Debian's "mtl = ^ofi", which the test overrides), and
# PMIx's own components, help texts and configuration.
ompi_pkglib=/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3
pmix_dir=/usr/lib/x86_64-linux-gnu/pmix2
for so in "$ompi_pkglib"/*.so "$pmix_dir"/lib/pmix/*.so; do
	copy_with_libs "$so"
done
for d in /usr/share/openmpi /etc/openmpi "$pmix_dir/share"; do
	mkdir -p "$stage$d"
	cp -r "$d/." "$stage$d/"
done

# Python for the libmrc binding (python/mrc) and the kernel's ynl CLI: the
# interpreter, the standard library without tests, GUI and build helpers, the
# extension modules the tests can reach, and PyYAML (ynl reads the spec).
copy_with_libs /usr/bin/python3.11
ln -sf python3.11 "$stage/usr/bin/python3"
pylib=/usr/lib/python3.11
mkdir -p "$stage$pylib" "$stage/usr/lib/python3/dist-packages"
tar -C "$pylib" --exclude=./test --exclude='__pycache__' --exclude=./idlelib \
	--exclude=./tkinter --exclude=./ensurepip --exclude=./lib2to3 \
	--exclude=./pydoc_data --exclude='./config-*' --exclude=./turtledemo \
	--exclude=./lib-dynload --exclude=./site-packages --exclude=./dist-packages \
	-cf - . | tar -C "$stage$pylib" -xf -
mkdir -p "$stage$pylib/lib-dynload"
for so in "$pylib"/lib-dynload/*.so; do
	case "${so##*/}" in
	_test* | _xx* | xx* | _ctypes_test* | _tkinter* | _sqlite3* | _dbm* | _gdbm* | \
	_curses* | nis.* | ossaudiodev* | readline* | _ssl* | _hashlib* | _crypt*) continue ;;
	esac
	copy_with_libs "$so"
done
for d in yaml _yaml; do
	cp -r /usr/lib/python3/dist-packages/$d "$stage/usr/lib/python3/dist-packages/"
done
find "$stage/usr/lib/python3" -name __pycache__ -prune -exec rm -rf {} +
for so in "$stage"/usr/lib/python3/dist-packages/yaml/*.so; do
	[ -e "$so" ] && copy_with_libs "${so#"$stage"}"
done

# busybox provides everything else (mount, poweroff, ps, ...); never let it
# shadow a real tool copied above.
cp /bin/busybox "$stage/bin/busybox"
for applet in $("$stage/bin/busybox" --list-full); do
	[ -e "$stage/$applet" ] && continue
	case "$applet" in
	*/ip|*/tc|*/sh|*/ash|*/modprobe|*/insmod|*/rmmod|*/lsmod|*/depmod|*/modinfo) continue ;;
	esac
	mkdir -p "$stage/$(dirname "$applet")"
	ln -s /bin/busybox "$stage/$applet"
done
ln -sf /usr/bin/dash "$stage/bin/sh"
for m in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf /usr/bin/kmod "$stage/sbin/$m"
done
ln -sf /usr/bin/bash "$stage/bin/bash"
# usrmerge-style paths that scripts use (#!/bin/bash, /usr/bin/timeout)
for t in timeout env sleep cat grep sed awk; do
	[ -e "$stage/bin/$t" ] || ln -sf "/usr/bin/$t" "$stage/bin/$t"
done

# Modules to reach the share; the rest come from the share itself.
mods=$(for m in 9p 9pnet_virtio virtio_pci; do
	modprobe -d "$groot" -S "$kabi" --show-depends "$m"
done | awk '/^insmod/{print $2}' | awk '!seen[$0]++')
: >"$stage/etc/modules.early"
for path in $mods; do
	rel=${path#"$groot"/}
	rel=${rel#./}
	mkdir -p "$stage/$(dirname "$rel")"
	cp "$path" "$stage/$rel"
	echo "/$rel" >>"$stage/etc/modules.early"
done

echo "root:x:0:0:root:/root:/bin/sh" >"$stage/etc/passwd"
echo "nobody:x:65534:65534:nobody:/nonexistent:/bin/sh" >>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"
printf '127.0.0.1 localhost\n::1 localhost\n' >"$stage/etc/hosts"

cp "$top/scripts/vm/guest-init.sh" "$stage/init"
chmod 755 "$stage/init"

(cd "$stage" && find . | cpio -o -H newc --quiet) | gzip -1 >"$out.tmp"
mv "$out.tmp" "$out"
echo "mkinitramfs: $(du -h "$out" | cut -f1) $out"
