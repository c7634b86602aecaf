#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install path, as a user meets it (issue 15): build the .debs with
# Debian's tooling (scripts/mkdebs.sh), install them on this machine, let
# DKMS compile mrc.ko against the installed headers of the guest's kernel,
# and check what landed: the module (version, autoload aliases, found by
# modprobe through the alias index), the tools, man pages, completions,
# headers, libmrc (linked dynamically and statically through pkg-config),
# the Python package (imported), the systemd units, the Wireshark dissector
# (tshark loads it without -X). The module DKMS built is
# left in build/pkg/mrc.ko for the guest's autoload test
# (selftests/mrc/mrc_autoload.sh); the packages are purged afterwards and
# the purge must take the module with it.
#
# Also "make install" staged under DESTDIR: the module and depmod's alias
# index, the tools, pages, completions, headers, libmrc, pkg-config file,
# the Python package, units.
#
# Prints "ok: ..." / "FAIL: ..." per check and ends with
# "packages: N passed, N failed"; exit status 1 if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/\1=\2/p' build/kabi.mk)"
ver=$(sed -n 's/^#define MRC_MODULE_VERSION[[:space:]]*"\(.*\)"/\1/p' kmod/mrc_main.c)
pkgs=(mrc-dkms mrc-tools libmrc0 libmrc-dev python3-mrc libfabric-mrc)
ko=/lib/modules/$KABI/updates/dkms/mrc.ko
passed=0 failed=0

check() { # check DESCRIPTION COMMAND...
	local what=$1
	shift
	if "$@" >/dev/null 2>&1; then
		echo "ok: $what"
		passed=$((passed + 1))
	else
		echo "FAIL: $what"
		failed=$((failed + 1))
	fi
}
purge() { dpkg --purge "${pkgs[@]}" >/dev/null 2>&1; }
finish() {
	echo "packages: $passed passed, $failed failed"
	((failed == 0))
	exit
}

rm -rf build/pkg
mkdir -p build/pkg
purge

stage=build/pkg/stage
pyver=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
if make -s install DESTDIR="$top/$stage" >build/pkg/install.log 2>&1; then
	check "make install DESTDIR=" true
else
	tail -n 20 build/pkg/install.log
	check "make install DESTDIR=" false
fi
check "make install: the module under updates/" test -f "$stage/lib/modules/$KABI/updates/mrc.ko"
check "make install: depmod indexed its aliases" grep -q "^alias net-pf-12 mrc$" \
	"$stage/lib/modules/$KABI/modules.alias"
for f in usr/local/sbin/mrcctl usr/local/sbin/mrcstat usr/local/bin/mrcperf \
	usr/local/share/man/man8/mrcctl.8 usr/local/share/man/man1/mrcperf.1 \
	usr/local/share/bash-completion/completions/mrcctl usr/local/include/mrc/linux/mrc.h \
	usr/local/include/mrc/libmrc.h usr/local/lib/libmrc.so.0 usr/local/lib/libmrc.a \
	usr/local/lib/pkgconfig/mrc.pc "usr/local/lib/python$pyver/dist-packages/mrc/__init__.py" \
	etc/systemd/system/mrc.service etc/udev/rules.d/60-mrc.rules \
	"usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/wireshark/plugins/mrc.lua" \
	"usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libfabric/libmrc-fi.so"; do
	check "make install: /$f" test -f "$stage/$f"
done
check "make install: the unit runs the installed mrcctl" \
	grep -q "/usr/local/sbin/mrcctl -b" "$stage/etc/systemd/system/mrc.service"
rm -rf "$stage"
if ! bash scripts/mkdebs.sh >build/pkg/mkdebs.log 2>&1; then
	tail -n 30 build/pkg/mkdebs.log
	check "the .debs build" false
	finish
fi
debs=("build/deb/mrc-dkms_${ver}_all.deb" "build/deb/mrc-tools_${ver}_amd64.deb"
	"build/deb/libmrc0_${ver}_amd64.deb" "build/deb/libmrc-dev_${ver}_amd64.deb"
	"build/deb/python3-mrc_${ver}_all.deb" "build/deb/libfabric-mrc_${ver}_amd64.deb")
check "the .debs build (${pkgs[*]})" ls "${debs[@]}"
trap purge EXIT

# dpkg runs DKMS for the running kernel (whose headers this machine may not
# have); the guest's kernel is the one with headers here, as on a user's host.
export DEBIAN_FRONTEND=noninteractive
check "the .debs install" dpkg -i "${debs[@]}"
dkms install "mrc/$ver" -k "$KABI" >build/pkg/dkms.log 2>&1 || tail -n 30 build/pkg/dkms.log
status=$(dkms status -m mrc -v "$ver" -k "$KABI" 2>/dev/null)
echo "dkms: $status"
check "DKMS built and installed mrc/$ver for $KABI" grep -q "installed" <<<"$status"
check "the module is in place ($ko)" test -f "$ko"
check "its version is $ver" test "$(modinfo -F version "$ko")" = "$ver"
check "it was built for $KABI" grep -q "^$KABI " <<<"$(modinfo -F vermagic "$ko")"
aliases=$(modinfo -F alias "$ko" | tr '\n' ' ')
echo "aliases: $aliases"
check "socket(AF_MRC) alias net-pf-12" grep -qw net-pf-12 <<<"$aliases"
check "genl alias net-pf-16-proto-16-family-mrc" grep -qw net-pf-16-proto-16-family-mrc <<<"$aliases"
check "modprobe resolves net-pf-12 to mrc" test "$(modprobe -S "$KABI" -R net-pf-12 2>/dev/null)" = mrc
check "modprobe finds the DKMS module" grep -q "$ko" <<<"$(modprobe -S "$KABI" --show-depends mrc 2>/dev/null)"
cp "$ko" build/pkg/mrc.ko

for t in mrcctl mrcstat mrcperf; do
	check "$t -V prints $ver" test "$("$(command -v "$t")" -V 2>/dev/null)" = "$t $ver"
done
check "mrcctl is /usr/sbin/mrcctl" test "$(command -v mrcctl)" = /usr/sbin/mrcctl
check "man mrcctl" test "$(man -w mrcctl 2>/dev/null)" = /usr/share/man/man8/mrcctl.8.gz
check "man mrcstat" test "$(man -w mrcstat 2>/dev/null)" = /usr/share/man/man8/mrcstat.8.gz
check "man mrcperf" test "$(man -w mrcperf 2>/dev/null)" = /usr/share/man/man1/mrcperf.1.gz
comp=$(bash -c 'source /usr/share/bash-completion/completions/mrcctl
	COMP_WORDS=(mrcctl ro ""); COMP_CWORD=1; _mrcctl; echo "${COMPREPLY[*]}"
	COMP_WORDS=(mrcctl route add fd00::/64 en); COMP_CWORD=4; _mrcctl; echo "${COMPREPLY[*]}"' 2>&1)
check "bash completion of mrcctl ($(tr '\n' '|' <<<"$comp"))" test "$comp" = $'route\nencap'
for t in mrcstat mrcperf; do
	check "bash completion of $t is installed" bash -c \
		"source /usr/share/bash-completion/completions/$t && complete -p $t"
done
cflags=$(pkg-config --cflags mrc 2>&1 | xargs)
check "pkg-config --cflags mrc is -I/usr/include/mrc ($cflags)" test "$cflags" = "-I/usr/include/mrc"
libs=$(pkg-config --libs mrc 2>&1 | xargs)
check "pkg-config --libs mrc is -lmrc ($libs)" test "$libs" = "-lmrc"
# libfabric loads the provider from its own directory (no FI_PROVIDER_PATH);
# without mrc.ko here it lists it but fi_getinfo() offers nothing.
check "fi_info -l lists the installed libfabric provider mrc" \
	grep -q "^mrc:" <<<"$(env -u FI_PROVIDER_PATH fi_info -l 2>/dev/null)"
check "pkg-config --modversion mrc is $ver" test "$(pkg-config --modversion mrc)" = "$ver"
check "libmrc.so.0 is known to the dynamic linker" grep -q "libmrc.so.0 " <<<"$(ldconfig -p)"
cat >build/pkg/uses_libmrc.c <<'C'
#include <libmrc.h>
#include <linux/mrc.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	struct sockaddr_mrc sa;
	char text[MRC_ADDRSTRLEN];

	if (mrc_addr_parse_family("10.0.0.2:7471", 0, AF_MRC_DEFAULT, &sa) ||
	    mrc_addr_format(&sa, text, sizeof(text)))
		return 1;
	printf("%s %s\n", mrc_lib_version(), text);
	return 0;
}
C
# shellcheck disable=SC2046
check "a program builds and links against libmrc with pkg-config" \
	cc -Wall -Werror $(pkg-config --cflags mrc) -o build/pkg/uses_libmrc \
	build/pkg/uses_libmrc.c $(pkg-config --libs mrc)
check "it runs against the installed libmrc.so.0" \
	test "$(build/pkg/uses_libmrc)" = "$ver [::ffff:10.0.0.2]:7471"
check "it links libmrc dynamically" grep -Eq "libmrc.so.0 => (/usr)?/lib/x86_64-linux-gnu/libmrc.so.0 " \
	<<<"$(ldd build/pkg/uses_libmrc)"
# shellcheck disable=SC2046
check "and statically" cc -Wall -Werror $(pkg-config --cflags mrc) -o build/pkg/uses_libmrc_a \
	build/pkg/uses_libmrc.c $(pkg-config --variable=libdir mrc)/libmrc.a
# Debian's interpreter (what python3-mrc is for), not one earlier on PATH.
py=$(cd / && /usr/bin/python3 -c 'import mrc; print(mrc.__file__, mrc.lib_version(), mrc.state_name(3))' 2>&1)
check "python3 -c 'import mrc' finds the package and libmrc ($py)" \
	test "$py" = "/usr/lib/python3/dist-packages/mrc/__init__.py $ver established"
check "the header does not shadow linux-libc-dev" test ! -e /usr/include/linux/mrc.h
check "systemd units are valid" systemd-analyze verify /lib/systemd/system/mrc.service \
	/lib/systemd/system/mrc@.service
check "udev rule installed" test -f /lib/udev/rules.d/60-mrc.rules
# No -X lua_script: the installed dissector is Wireshark's own from now on.
check "tshark loads the installed dissector (tshark -G protocols: MRC)" \
	grep -q "	MRC	mrc$" <<<"$(tshark -G protocols 2>/dev/null)"
check "/etc/mrc exists" test -d /etc/mrc

purge
trap - EXIT
check "purge removes the module" test ! -e "$ko"
check "purge removes the DKMS tree" test ! -e "/usr/src/mrc-$ver"
check "purge removes the tools" test ! -e /usr/sbin/mrcctl
check "purge removes libmrc" test -z "$(ldconfig -p | grep libmrc.so.0)"
check "purge removes the Python package" test ! -e /usr/lib/python3/dist-packages/mrc
check "purge removes the libfabric provider" \
	test ! -e "/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)/libfabric/libmrc-fi.so"
check "purge removes the dissector" test -z "$(tshark -G protocols 2>/dev/null | grep "	MRC	mrc$")"
finish
