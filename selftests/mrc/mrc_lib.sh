#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers of the mrc shell selftests. Sourced, not run.

ksft_pass=0
ksft_fail=1
ksft_skip=4

MRC_KO=${MRC_KO:-/mrc/build/kmod/mrc.ko}
# The parameters the rig loaded mrc.ko with (scripts/vm/run.sh; e.g.
# "ev_burst=1" for the collection's run with per-packet spraying): a test
# that unloads the module loads it again with them (mrc_insmod).
MRC_KO_PARAMS=${MRC_KO_PARAMS:-}

# mrc_insmod [PARAM...]: load mrc.ko as the rig did, MRC_KO_PARAMS (one word
# per parameter) and then PARAMs.
mrc_insmod() {
	# shellcheck disable=SC2086 # one word per parameter
	insmod "$MRC_KO" $MRC_KO_PARAMS "$@"
}

# mrc_uapi_burst_default: the uapi's MRC_EV_BURST_DEFAULT, for a test about
# flowcells that must have them when the rig loaded mrc.ko with ev_burst=1.
mrc_uapi_burst_default() {
	awk '$1 == "#define" && $2 == "MRC_EV_BURST_DEFAULT" { print $3 }' \
		"${MRC_TOP:-/mrc}/uapi/linux/mrc.h"
}
mrc_failures=0
mrc_failed_checks=()
mrc_netns_list=()

log() { echo "# $*"; }

# check DESCRIPTION COMMAND...: run the command, record a failure if it fails.
check() {
	local what=$1
	shift
	if "$@"; then
		log "ok: $what"
	else
		log "FAIL: $what"
		mrc_failures=$((mrc_failures + 1))
		mrc_failed_checks+=("$what")
	fi
}

# check_timed DESCRIPTION COMMAND...: a check whose bound holds at the
# speed of Debian's kernels under TCG (packets per second, timeouts of an
# RTO sized for that host, a window timed in seconds). make check-debug's
# kernel (KASAN, lockdep, kmemleak) runs the guest four to five times
# slower and sets MRC_TIMING_JUDGED=0: there the check is run and its
# outcome printed, "timing, not judged", but not counted. Everything else
# (digests, counters, every kernel report) is judged on every kernel, and
# CI judges these on Debian's.
mrc_timing_unjudged=0
check_timed() {
	local what=$1
	shift
	if [ "${MRC_TIMING_JUDGED:-1}" != 0 ]; then
		check "$what" "$@"
	elif "$@"; then
		log "ok: $what"
	else
		log "timing, not judged on this kernel: $what"
		mrc_timing_unjudged=$((mrc_timing_unjudged + 1))
	fi
}

# wait_for FILE TEXT SECS: until FILE contains TEXT (1 if it never does)
wait_for() {
	local i
	for ((i = 0; i < $3 * 10; i++)); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# expect_eq DESCRIPTION EXPECTED ACTUAL
expect_eq() {
	if [ "$2" = "$3" ]; then
		log "ok: $1 ($3)"
	else
		log "FAIL: $1: expected '$2', got '$3'"
		mrc_failures=$((mrc_failures + 1))
	fi
}

mrc_loaded() { [ -d /sys/module/mrc ]; }

# expect_digests NAME CLIENT_OUT SERVER_OUT: mrc_xfer printed its digests
# and those of both directions match end to end.
expect_digests() {
	local name=$1 cli=$2 srv=$3
	check "$name: digests printed" [ -n "$(awk '$1 == "rx"' "$srv")" ]
	expect_eq "$name: client->server digest" \
		"$(awk '$1 == "tx" { print $2, $3 }' "$cli")" \
		"$(awk '$1 == "rx" { print $2, $3 }' "$srv")"
	expect_eq "$name: server->client digest" \
		"$(awk '$1 == "tx" { print $2, $3 }' "$srv")" \
		"$(awk '$1 == "rx" { print $2, $3 }' "$cli")"
}

# proc_counter NAME [NETNS]: one value of /proc/net/mrc
proc_counter() {
	local cmd=(cat /proc/net/mrc)
	[ -n "${2:-}" ] && cmd=(ip netns exec "$2" "${cmd[@]}")
	"${cmd[@]}" | awk -v k="$1" '$1 == k { print $2 }'
}

# icrc_alternate_start: the ICRC's payload CRC (module parameter icrc)
# alternates between the crypto API's "crc32" driver and the library's
# crc32_le() every 100 ms until icrc_alternate_stop, so that packets one
# computed are checked by the other (both compute the same function: a
# switch is safe in flight). Fails without a crypto driver. Sets
# icrc_crypto_impl to the driver's name.
MRC_PARAMS=/sys/module/mrc/parameters
icrc_alt_pid=
icrc_alternate_start() {
	echo crypto >"$MRC_PARAMS/icrc" || return 1
	icrc_crypto_impl=$(cat "$MRC_PARAMS/icrc_impl")
	[ -n "$icrc_crypto_impl" ] && [ "$icrc_crypto_impl" != crc32_le ] || return 1
	(
		while :; do
			echo lib >"$MRC_PARAMS/icrc"
			sleep 0.1
			echo crypto >"$MRC_PARAMS/icrc"
			sleep 0.1
		done
	) &
	icrc_alt_pid=$!
}

# icrc_alternate_stop: end the alternation, back to the measured choice.
icrc_alternate_stop() {
	if [ -n "$icrc_alt_pid" ]; then
		kill "$icrc_alt_pid" 2>/dev/null
		wait "$icrc_alt_pid" 2>/dev/null
	fi
	icrc_alt_pid=
	[ -w "$MRC_PARAMS/icrc" ] && echo auto >"$MRC_PARAMS/icrc"
}

netns_add() {
	ip netns add "$1" && ip -n "$1" link set dev lo up && mrc_netns_list+=("$1")
}

# veth_pair NS_A DEV_A "ADDR_A..." NS_B DEV_B "ADDR_B...": two new namespaces
# (netns_add, removed by mrc_cleanup) joined by a veth pair, DEV_A in NS_A
# and DEV_B in NS_B, both up, each with its IPv6 addresses (ADDR/PREFIXLEN,
# a space-separated list; no duplicate address detection).
veth_pair() {
	local nsa=$1 deva=$2 addra=$3 nsb=$4 devb=$5 addrb=$6 a
	netns_add "$nsa" && netns_add "$nsb" || return 1
	ip link add name "$deva" netns "$nsa" type veth peer name "$devb" netns "$nsb" ||
		return 1
	for a in $addra; do
		ip -n "$nsa" addr add "$a" dev "$deva" nodad || return 1
	done
	for a in $addrb; do
		ip -n "$nsb" addr add "$a" dev "$devb" nodad || return 1
	done
	ip -n "$nsa" link set dev "$deva" up && ip -n "$nsb" link set dev "$devb" up ||
		return 1
	# Until link watch has seen the carrier (up to a second later), the
	# devices' qdisc is noop and drops every packet: wait for it.
	link_wait_up "$nsa" "$deva" && link_wait_up "$nsb" "$devb"
}

# link_wait_up NETNS DEV: until DEV's operational state is up (link watch
# ran), at most 3 s (1 if it never is); NETNS "" is the current namespace
link_wait_up() {
	local i cmd=(cat "/sys/class/net/$2/operstate")
	[ -n "$1" ] && cmd=(ip netns exec "$1" "${cmd[@]}")
	for ((i = 0; i < 30; i++)); do
		[ "$("${cmd[@]}")" = up ] && return 0
		sleep 0.1
	done
	return 1
}

# snmp6_counter NAME NETNS: one value of the namespace's /proc/net/snmp6
snmp6_counter() {
	ip netns exec "$2" cat /proc/net/snmp6 | awk -v k="$1" '$1 == k { print $2 }'
}

mrc_cleanup() {
	local ns
	for ns in "${mrc_netns_list[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	mrc_netns_list=()
}

# finish: exit with the kselftest code for what check/expect_eq recorded.
finish() {
	mrc_cleanup
	((mrc_timing_unjudged)) &&
		log "$mrc_timing_unjudged timing check(s) not judged (MRC_TIMING_JUDGED=0)"
	if ((mrc_failures)); then
		# Named again last: the tail of a long log is what CI shows.
		for what in "${mrc_failed_checks[@]}"; do
			log "failed: $what"
		done
		log "$mrc_failures check(s) failed"
		exit $ksft_fail
	fi
	exit $ksft_pass
}
