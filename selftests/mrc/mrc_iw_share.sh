#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One initial window per namespace (issue 16): connections that start at
# once split it. A connection's initial window is a guess made for an
# empty fabric; a host that starts many connections at once (an
# all-to-all) would put one such window per connection on the fabric in
# its first round trip. With the CC profile's init-wnd-shared (the
# default), while n connections of a namespace are starting (sent data,
# none of it acknowledged yet), none has more than the initial window / n
# in flight (kmod/core/mrc_cc_share.c; the simulator shows what it buys).
#
# hA opens 4 connections to a listener of hB (which never accepts: its
# connections still receive and acknowledge), then sends 64 KiB on each,
# one after the other. netem delays every packet hA sends by 12 ms, so no
# connection's first window is acknowledged before the last one started
# (the retransmit timer's floor is 16.8 ms: no timeout either).
#
#  1. default profile: the 1st connection started alone and keeps its
#     window (MRC_INFO mi_iw_share_cuts 0); the 2nd, 3rd and 4th each
#     started while others were starting and had their window cut (>= 1);
#  2. "mrcctl profile set id 0 init-wnd-shared off" on hA: no cut at all,
#     so the same expectation fails on those figures (the check is seen to
#     fail with the behaviour off).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)
M=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$M" ] || { log "mrcctl not built at $M"; exit $ksft_fail; }
trap 'kill $lpid 2>/dev/null; rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrcw-a mrcw0 fd00:6d72:9::1/64 mrcw-b mrcw1 fd00:6d72:9::2/64 || exit $ksft_fail
ip netns exec mrcw-b ./mrc_sock_helper listen 7400 >"$out/listen" 2>&1 &
lpid=$!
wait_for "$out/listen" "ready" 10 || { log "listener not ready"; exit $ksft_fail; }
tc -n mrcw-a qdisc add dev mrcw0 root netem delay 12ms limit 10000 ||
	{ log "netem unavailable"; exit $ksft_fail; }

# shared CUTS...: the 1st connection uncut, every later one cut
shared() {
	[ "$1" = 0 ] || return 1
	shift
	while [ $# -gt 0 ]; do
		[ "$1" -ge 1 ] || return 1
		shift
	done
}

# round NAME: 4 connections start; sets $cuts and $tos
round() {
	ip netns exec mrcw-a ./mrc_sock_helper start 4 65536 7400 fd00:6d72:9::2 \
		>"$out/$1" 2>&1
	cuts=$(sed -n 's/^cuts //p' "$out/$1")
	tos=$(sed -n 's/^timeouts //p' "$out/$1")
	log "$1: window cuts per connection: ${cuts:-none} (timeouts: ${tos:-none})"
	check "$1: 4 connections started ($(head -c 200 "$out/$1"))" \
		[ "$(wc -w <<<"$cuts")" = 4 ]
}

check "profile 0 shares the initial window by default" \
	grep -q 'init-wnd-shared on$' <<<"$(ip netns exec mrcw-a "$M" profile show id 0)"
round shared
# shellcheck disable=SC2086
check "shared: the 1st keeps its window, the 2nd-4th are cut ($cuts)" shared $cuts

check "init-wnd-shared off is applied" \
	ip netns exec mrcw-a "$M" profile set id 0 init-wnd-shared off
round own
# shellcheck disable=SC2086
check "own windows: no connection is cut ($cuts)" [ "$(tr -d ' 0' <<<"$cuts")" = "" ]
# shellcheck disable=SC2086
check "own windows: the shared expectation fails on these figures" eval '! shared $cuts'
finish
