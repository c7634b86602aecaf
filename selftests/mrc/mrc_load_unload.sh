#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrc.ko carries its autoload aliases (net-pf-12 for socket(AF_MRC) with the
# default family, genl family "mrc") and a version, loads and unloads
# cleanly twenty times, registers AF_MRC at the
# family number given by its parameter (readable in sysfs), refuses a taken
# or out-of-range number with a clear message, and cannot be removed while
# a socket is open, and picks, logs and switches the ICRC's CRC
# implementation (parameters icrc, icrc_impl), and takes the default
# flowcell length of new profiles from its parameter ev_burst (1..64). The
# rig scans the kernel log for splats afterwards.
source ./mrc_lib.sh
MRCCTL=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}

aliases=$(modinfo -F alias "$MRC_KO" | tr '\n' ' ')
check "alias net-pf-12 ($aliases)" grep -qw net-pf-12 <<<"$aliases"
check "alias of the generic netlink family ($aliases)" \
	grep -qw net-pf-16-proto-16-family-mrc <<<"$aliases"
check "module version ($(modinfo -F version "$MRC_KO"))" test -n "$(modinfo -F version "$MRC_KO")"

if mrc_loaded; then
	check "initial rmmod" rmmod mrc
fi

for i in $(seq 1 20); do
	insmod "$MRC_KO" || { log "FAIL: insmod round $i"; mrc_failures=$((mrc_failures + 1)); break; }
	fam=$(cat /sys/module/mrc/parameters/family)
	out=$(./mrc_sock_helper bind 0)
	rmmod mrc || { log "FAIL: rmmod round $i"; mrc_failures=$((mrc_failures + 1)); break; }
	[ "$fam" = 12 ] || { log "FAIL: round $i family $fam"; mrc_failures=$((mrc_failures + 1)); }
	case "$out" in
	"bound "*) ;;
	*) log "FAIL: round $i socket: $out"; mrc_failures=$((mrc_failures + 1)) ;;
	esac
done
check "20 load/unload rounds leave the module unloaded" test ! -d /sys/module/mrc

# Another family number, taken from the parameter and shown in sysfs.
check "insmod family=13" insmod "$MRC_KO" family=13
expect_eq "sysfs family" 13 "$(cat /sys/module/mrc/parameters/family)"
expect_eq "/proc/net/mrc family" 13 "$(proc_counter Family)"
out=$(./mrc_sock_helper bind 0)
check "socket on family 13 ($out)" test "${out%% *}" = bound
check "rmmod" rmmod mrc

# A taken slot fails the load with a message naming the problem.
dmesg -c >/dev/null
check "family=10 (AF_INET6, taken) is refused" eval '! insmod "$MRC_KO" family=10 2>/dev/null'
check "refusal explained in the kernel log" eval 'dmesg | grep -q "address family 10 is already registered"'
check "module not left loaded" test ! -d /sys/module/mrc
for bad in 0 46 -1 abc; do
	check "family=$bad is refused" eval '! insmod "$MRC_KO" family=$bad 2>/dev/null'
done
check "module not left loaded after bad parameters" test ! -d /sys/module/mrc

# The ICRC's payload CRC: measured at load (icrc=auto, the faster of the
# crypto API's "crc32" driver and crc32_le serves, both rates logged),
# switchable at run time, forced at load; icrc_impl names the one in use
# and takes no value.
P=/sys/module/mrc/parameters
dmesg -c >/dev/null
check "insmod (icrc=auto)" insmod "$MRC_KO"
expect_eq "icrc" auto "$(cat $P/icrc)"
rates=$(dmesg | grep -o "ICRC: [^ ]* [0-9]* MB/s, crc32_le [0-9]* MB/s" | tail -n 1)
check "the measurement logged ($rates)" test -n "$rates"
read -r _ drv crypto_mbs _ _ lib_mbs _ <<<"$rates"
want=crc32_le
[ "${crypto_mbs:-0}" -gt "${lib_mbs:-0}" ] && want=$drv
expect_eq "the faster serves (${drv:-?} $crypto_mbs MB/s, crc32_le $lib_mbs MB/s)" \
	"$want" "$(cat $P/icrc_impl)"
check "icrc=crypto at run time" sh -c "echo crypto >$P/icrc"
expect_eq "icrc_impl: the crypto driver" "$drv" "$(cat $P/icrc_impl)"
check "icrc=lib at run time" sh -c "echo lib >$P/icrc"
expect_eq "icrc_impl: the library" crc32_le "$(cat $P/icrc_impl)"
check "icrc=bogus refused" eval "! sh -c 'echo bogus >$P/icrc' 2>/dev/null"
expect_eq "icrc unchanged by the refusal" lib "$(cat $P/icrc)"
check "icrc_impl takes no value" eval "! sh -c 'echo lib >$P/icrc_impl' 2>/dev/null"
check "rmmod" rmmod mrc
check "insmod icrc=lib" insmod "$MRC_KO" icrc=lib
expect_eq "icrc_impl at load with icrc=lib" crc32_le "$(cat $P/icrc_impl)"
check "rmmod" rmmod mrc
check "insmod icrc=crypto" insmod "$MRC_KO" icrc=crypto
expect_eq "icrc_impl at load with icrc=crypto" "$drv" "$(cat $P/icrc_impl)"
check "rmmod" rmmod mrc
# ev_burst: the flowcell length of the profiles that take the defaults
# (32; 1..64), read when a namespace's profile 0 is made.
check "insmod ev_burst=1" insmod "$MRC_KO" ev_burst=1
expect_eq "ev_burst at load" 1 "$(cat $P/ev_burst)"
ip netns add mrc_lu_b1
expect_eq "a new namespace's profile 0 sprays per packet" 1 \
	"$(ip netns exec mrc_lu_b1 "$MRCCTL" -j profile show id 0 | grep -o '"burst":[0-9]*' | cut -d: -f2)"
check "ev_burst=16 at run time" sh -c "echo 16 >$P/ev_burst"
check "ev_burst=0 refused" eval "! sh -c 'echo 0 >$P/ev_burst' 2>/dev/null"
check "ev_burst=65 refused" eval "! sh -c 'echo 65 >$P/ev_burst' 2>/dev/null"
expect_eq "ev_burst unchanged by the refusals" 16 "$(cat $P/ev_burst)"
expect_eq "an existing namespace keeps its profile" 1 \
	"$(ip netns exec mrc_lu_b1 "$MRCCTL" -j profile show id 0 | grep -o '"burst":[0-9]*' | cut -d: -f2)"
ip netns del mrc_lu_b1
check "rmmod" rmmod mrc
check "insmod ev_burst=65 is refused" eval '! insmod "$MRC_KO" ev_burst=65 2>/dev/null'
check "insmod icrc=bogus is refused" eval '! insmod "$MRC_KO" icrc=bogus 2>/dev/null'
check "insmod icrc_impl=lib is refused" eval '! insmod "$MRC_KO" icrc_impl=lib 2>/dev/null'
check "module not left loaded" test ! -d /sys/module/mrc

# A live socket pins the module.
trap '[ -n "${holder:-}" ] && kill "$holder" 2>/dev/null' EXIT
check "insmod default" insmod "$MRC_KO"
exec 3< <(exec ./mrc_sock_helper hold 0)
holder=$!
read -r -t 10 ready <&3
check "holder ready ($ready)" test "${ready%% *}" = ready
check "rmmod refused while a socket is open" eval '! rmmod mrc 2>/dev/null'
check "module still loaded" mrc_loaded
kill "$holder"; wait "$holder" 2>/dev/null; exec 3<&-
for _ in $(seq 50); do rmmod mrc 2>/dev/null && break; sleep 0.1; done
check "rmmod succeeds once the socket is closed" test ! -d /sys/module/mrc

# Leave the module loaded for the tests that follow, as the rig loaded it.
check "final insmod${MRC_KO_PARAMS:+ $MRC_KO_PARAMS}" mrc_insmod
finish
