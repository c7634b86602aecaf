#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The install path, as a user meets it (issue 15): build the .debs with
# Debian's tooling (scripts/mkdebs.sh), install them on this machine, let
# DKMS compile mrc.ko against the installed headers of the guest's kernel,
# and check what landed: the module (version, autoload aliases, found by
# modprobe through the alias index), the tools, man pages, completions,
# header and pkg-config file, the systemd units. The module DKMS built is
# left in build/pkg/mrc.ko for the guest's autoload test
# (selftests/mrc/mrc_autoload.sh); the packages are purged afterwards and
# the purge must take the module with it.
#
# Also "make install" staged under DESTDIR: the module and depmod's alias
# index, the tools, pages, completions, header, pkg-config file, units.
#
# Prints "ok: ..." / "FAIL: ..." per check and ends with
# "packages: N passed, N failed"; exit status 1 if any failed.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
eval "$(sed -n 's/^\([A-Z_]*\) := \(.*\)$/\1=\2/p' build/kabi.mk)"
ver=$(sed -n 's/^#define MRC_MODULE_VERSION[[:space:]]*"\(.*\)"/\1/p' kmod/mrc_main.c)
pkgs=(mrc-dkms mrc-tools libmrc-dev)
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
	usr/local/share/pkgconfig/mrc.pc etc/systemd/system/mrc.service etc/udev/rules.d/60-mrc.rules; do
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
check "the .debs build (${pkgs[*]})" test -f "build/deb/mrc-dkms_${ver}_all.deb" \
	-a -f "build/deb/libmrc-dev_${ver}_all.deb" -a -f "build/deb/mrc-tools_${ver}_amd64.deb"
trap purge EXIT

# dpkg runs DKMS for the running kernel (whose headers this machine may not
# have); the guest's kernel is the one with headers here, as on a user's host.
export DEBIAN_FRONTEND=noninteractive
check "the .debs install" dpkg -i "build/deb/mrc-dkms_${ver}_all.deb" \
	"build/deb/mrc-tools_${ver}_amd64.deb" "build/deb/libmrc-dev_${ver}_all.deb"
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
check "pkg-config --modversion mrc is $ver" test "$(pkg-config --modversion mrc)" = "$ver"
cat >build/pkg/uses_header.c <<'C'
#include <linux/mrc.h>
#include <sys/socket.h>
int main(void)
{
	struct sockaddr_mrc sa = { .smrc_family = AF_MRC_DEFAULT };
	return socket(sa.smrc_family, SOCK_SEQPACKET, 0) < -1;
}
C
# shellcheck disable=SC2046
check "a program builds against <linux/mrc.h> with pkg-config" \
	cc -Wall -Werror $(pkg-config --cflags mrc) -o build/pkg/uses_header build/pkg/uses_header.c
check "the header does not shadow linux-libc-dev" test ! -e /usr/include/linux/mrc.h
check "systemd units are valid" systemd-analyze verify /lib/systemd/system/mrc.service \
	/lib/systemd/system/mrc@.service
check "udev rule installed" test -f /lib/udev/rules.d/60-mrc.rules
check "/etc/mrc exists" test -d /etc/mrc

purge
trap - EXIT
check "purge removes the module" test ! -e "$ko"
check "purge removes the DKMS tree" test ! -e "/usr/src/mrc-$ver"
check "purge removes the tools" test ! -e /usr/sbin/mrcctl
finish
