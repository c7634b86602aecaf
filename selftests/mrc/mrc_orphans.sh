#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Orphans are capped (issue 12): a connection closed by its application
# lingers until its data is acknowledged, and at most net.mrc.max_orphans
# of a namespace do, as TCP's tcp_max_orphans; a close() beyond that aborts
# the connection (the peer is told, the data is dropped). Before, every
# close() to a stalled peer left a lingering connection behind, without
# limit.
#
# A client opens 6 connections to a listener that never accepts, sends
# 64 KiB on each, then the link between them goes down (netem loss 100 %,
# so nothing it sent is acknowledged any more) and it closes all 6.
#
#  1. net.mrc.max_orphans=2: exactly 2 orphans remain (/proc/net/mrc
#     Orphans), OrphansAborted rises by 4, and once the progress timeout
#     (net.mrc.progress_timeout_ms=2000) ends the two, Orphans is 0 and the
#     namespace holds no connection.
#  2. default (4096): all 6 linger (nothing aborted), and go the same way.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)
N=6
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'kill $lpid 2>/dev/null; rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrco-a mrco0 fd00:6d72:7::1/64 mrco-b mrco1 fd00:6d72:7::2/64 || exit $ksft_fail
ip netns exec mrco-a sysctl -qw net.mrc.progress_timeout_ms=2000
check "max_orphans defaults to 4096" \
	[ "$(ip netns exec mrco-a sysctl -n net.mrc.max_orphans)" = 4096 ]
check "a negative max_orphans is refused" \
	eval '! ip netns exec mrco-a sysctl -qw net.mrc.max_orphans=-1 2>/dev/null'

ip netns exec mrco-b ./mrc_sock_helper listen 7300 >"$out/listen" 2>&1 &
lpid=$!
sleep 0.3

# run NAME MAX: one round; expects min(N, MAX) orphans
run() {
	local name=$1 max=$2 want a0 a1 o1 o2 c2 hpid i
	want=$((max < N ? max : N))
	ip netns exec mrco-a sysctl -qw net.mrc.max_orphans="$max"
	a0=$(proc_counter OrphansAborted mrco-a)
	tc -n mrco-a qdisc del dev mrco0 root 2>/dev/null
	ip netns exec mrco-a ./mrc_sock_helper close "$N" 7300 fd00:6d72:7::2 \
		>"$out/$name" 2>&1 &
	hpid=$!
	wait_for "$out/$name" "sent" 30 ||
		{ check "$name: $N connections sent ($(cat "$out/$name"))" false; kill $hpid; return; }
	# From here nothing the client sent is acknowledged.
	tc -n mrco-a qdisc add dev mrco0 root netem loss 100%
	kill -USR1 $hpid
	wait $hpid
	check "$name: closed ($(tail -n 1 "$out/$name"))" grep -q "closed $N" "$out/$name"
	o1=$(proc_counter Orphans mrco-a)
	a1=$(($(proc_counter OrphansAborted mrco-a) - a0))
	log "$name: max_orphans $max: $o1 orphans, $a1 aborted"
	check "$name: $want orphans linger ($o1)" [ "$o1" = "$want" ]
	check "$name: the other $((N - want)) closes aborted ($a1)" [ "$a1" = "$((N - want))" ]
	# The progress timeout (2 s) ends them; give it 6 s.
	for ((i = 0; i < 60; i++)); do
		[ "$(proc_counter Orphans mrco-a)" = 0 ] && break
		sleep 0.1
	done
	o2=$(proc_counter Orphans mrco-a) c2=$(proc_counter Connections mrco-a)
	log "$name: $((i * 100)) ms later: $o2 orphans, $c2 connections"
	check "$name: no orphan left after the progress timeout ($o2)" [ "$o2" = 0 ]
	check "$name: no connection left ($c2)" [ "$c2" = 0 ]
	tc -n mrco-a qdisc del dev mrco0 root
}

run capped 2
run default 4096
finish
