#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Nobody loads mrc.ko by hand (issue 15). Installed where modprobe looks
# (the module DKMS built from the .deb on the host, build/pkg/mrc.ko, when
# scripts/check_packages.sh ran before and built it for this kernel; else
# the build tree's), a first
# socket(AF_MRC) loads it through its net-pf-12 alias and a first lookup of
# the "mrc" generic netlink family (mrcctl) through its genl alias. An
# mrcctl batch file (-b) configures planes, routes and profiles, and after
# a module reload, which empties them, the same file restores the very same
# configuration. A failing line stops a batch with the file and line in
# the message; -force runs on and keeps the first error's exit code.
# Afterwards the build tree's module is loaded again, as every test expects.
source ./mrc_lib.sh

M=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
[ -x "$M" ] || { log "mrcctl not built at $M (make userspace)"; exit $ksft_fail; }
kver=$(uname -r)
pkg=${MRC_TOP:-/mrc}/build/pkg/mrc.ko
if [ -f "$pkg" ] && [ "$(modinfo -F vermagic "$pkg" | cut -d' ' -f1)" = "$kver" ]; then
	ko=$pkg
	log "module under test: the one DKMS built from mrc-dkms ($pkg)"
else
	ko=$MRC_KO
	log "module under test: $MRC_KO (no $pkg for $kver: scripts/check_packages.sh builds it for 6.1)"
fi
dir=/lib/modules/$kver/updates/mrc-autoload-test
tmp=$(mktemp -d)

cleanup() {
	rmmod mrc 2>/dev/null
	ip link del mrcd0 2>/dev/null
	ip link del mrcd1 2>/dev/null
	rm -rf "$dir" "$tmp"
	depmod -a "$kver"
	mrc_insmod || log "FAIL: insmod $MRC_KO after the test"
}
trap cleanup EXIT

# run CMD...: $out = stdout, $err = stderr, $rc = exit status
run() {
	out=$("$@" 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
}

if mrc_loaded; then
	check "rmmod the module the rig loaded" rmmod mrc
fi
check "no mrc module loaded" test ! -d /sys/module/mrc
mkdir -p "$dir"
cp "$ko" "$dir/mrc.ko"
check "depmod" depmod -a "$kver"
check "modprobe resolves net-pf-12 to mrc" test "$(modprobe -R net-pf-12 2>/dev/null)" = mrc
srcv=$(modinfo -F srcversion "$ko")

# --- socket(AF_MRC) ---------------------------------------------------------
out=$(MRC_FAMILY=12 ./mrc_sock_helper bind 0 2>&1)
check "socket(AF_MRC) + bind without a manual load ($out)" test "${out%% *}" = bound
check "the kernel loaded mrc.ko for it" test -d /sys/module/mrc
check "the installed module ($srcv)" test "$(cat /sys/module/mrc/srcversion 2>/dev/null)" = "$srcv"
check "rmmod" rmmod mrc

# --- generic netlink --------------------------------------------------------
run "$M" plane show
expect_eq "mrcctl plane show without a manual load: exit code" 0 "$rc"
check "the kernel loaded mrc.ko for the genl lookup" test -d /sys/module/mrc

# --- a batch file restores the configuration after a reload ----------------
ip link add mrcd0 type dummy
ip link add mrcd1 type dummy
ip link set mrcd0 up
ip link set mrcd1 up
cat >"$tmp/fabric.conf" <<'CONF'
# two planes
plane add id 0 dev mrcd0 addr 2001:db8:a::1
	plane add id 1 dev "mrcd1" addr 2001:db8:b::1   # the second one

route add fc00:b::/64 encap srh plane 0 segs fc00:1::,fc00:2:: plane 1 segs fc00:3::
profile add id 3 ev-count 256 ev-active 24 cc-algo fixed
CONF
snapshot() { "$M" -j plane show && "$M" -j route show && "$M" -j profile show; }
run "$M" -b "$tmp/fabric.conf"
expect_eq "mrcctl -b: exit code" 0 "$rc"
before=$(snapshot)
log "configuration: $(tr '\n' ' ' <<<"$before")"
expect_eq "two planes" 2 "$("$M" -j plane show | grep -o '"id"' | wc -l)"
expect_eq "one route" 1 "$("$M" -j route show | grep -o '"dst"' | wc -l)"
expect_eq "profile 3" 1 "$("$M" -j profile show id 3 | grep -o '"id":3' | wc -l)"
check "rmmod" rmmod mrc
check "modprobe mrc" modprobe mrc
expect_eq "a reload starts with no plane" "[]" "$("$M" -j plane show)"
run "$M" -b "$tmp/fabric.conf"
expect_eq "mrcctl -b again: exit code" 0 "$rc"
expect_eq "the same configuration is back" "$before" "$(snapshot)"

# --- batch errors -----------------------------------------------------------
printf 'plane show id 0\nplane add id 0 dev mrcd0 addr 2001:db8:a::1\nprofile add id 4 ev-count 128\n' \
	>"$tmp/bad.conf"
run "$M" -b "$tmp/bad.conf"
expect_eq "a failing line stops the batch: exit code" 1 "$rc"
expect_eq "the message names file and line" \
	"mrcctl: $tmp/bad.conf:2: plane add: File exists: mrc: plane id already exists" "$err"
expect_eq "the lines before it ran" "id 0 dev mrcd0 addr 2001:db8:a::1 up # ifindex $(cat /sys/class/net/mrcd0/ifindex) oper up" "$out"
check "the lines after it did not" test "$("$M" -j profile show id 4 2>/dev/null)" = ""
run "$M" -force -b "$tmp/bad.conf"
expect_eq "-force: exit code of the first error" 1 "$rc"
check "-force: the lines after it ran" grep -q '"id":4' <<<"$("$M" -j profile show id 4)"
run "$M" -b - <<<'plane frobnicate'
expect_eq "a syntax error from stdin: exit code" 2 "$rc"
expect_eq "a syntax error from stdin: message" "mrcctl: <stdin>:1: unknown command \"frobnicate\"" "$err"
run "$M" -b "$tmp/none.conf"
expect_eq "a missing batch file: exit code" 2 "$rc"
finish
