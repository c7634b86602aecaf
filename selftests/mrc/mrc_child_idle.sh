#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Idle children are aborted (issue 13 item 3): a connection still in its
# listener's accept queue that has delivered no message
# net.mrc.child_idle_timeout_ms after its handshake is aborted. The client
# fails with ECONNRESET, the backlog slot and the connection's engine are
# freed, IdleChildrenAborted counts it. Before, a client that connected
# and sent nothing held both for as long as the server did not accept.
#
# A listener with a backlog of 4 never accepts; the timeout is 3000 ms
# (room for a slow guest to connect all four first).
#  1. 3 clients connect and send nothing, 1 sends one message: within 10 s
#     the 3 are aborted (counter +3, 3 connections fewer on the server,
#     each client's SO_ERROR is ECONNRESET), the one that sent is kept.
#  2. The freed slots take 3 new connections (the backlog was full).
#  3. With the timeout at 0 nothing is aborted.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)
addr=fd00:6d72:9::2
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'kill $lpid $silent $talker $late 2>/dev/null; rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrci-a mrci0 fd00:6d72:9::1/64 mrci-b mrci1 $addr/64 || exit $ksft_fail
check "child_idle_timeout_ms defaults to 60000" \
	[ "$(ip netns exec mrci-b sysctl -n net.mrc.child_idle_timeout_ms)" = 60000 ]
check "a negative child_idle_timeout_ms is refused" \
	eval '! ip netns exec mrci-b sysctl -qw net.mrc.child_idle_timeout_ms=-1 2>/dev/null'
ip netns exec mrci-b sysctl -qw net.mrc.child_idle_timeout_ms=3000

MRC_BACKLOG=4 ip netns exec mrci-b ./mrc_sock_helper listen 7400 >"$out/listen" 2>&1 &
lpid=$!
wait_for "$out/listen" ready 5 || { check "listener ready" false; finish; }

a0=$(proc_counter IdleChildrenAborted mrci-b)
c0=$(proc_counter Connections mrci-b)
ip netns exec mrci-a ./mrc_sock_helper idle 3 0 7400 $addr >"$out/silent" 2>&1 &
silent=$!
ip netns exec mrci-a ./mrc_sock_helper idle 1 1000 7400 $addr >"$out/talker" 2>&1 &
talker=$!
wait_for "$out/silent" "connected 3" 10 && wait_for "$out/talker" "connected 1" 10
rc=$?
check "4 clients connected ($(cat "$out/silent" "$out/talker" | tr '\n' ' '))" [ $rc = 0 ]
c1=$(($(proc_counter Connections mrci-b) - c0))
check "the server holds 4 queued connections ($c1)" [ "$c1" = 4 ]
for ((i = 0; i < 100; i++)); do
	[ $(($(proc_counter IdleChildrenAborted mrci-b) - a0)) -ge 3 ] && break
	sleep 0.1
done
sleep 0.5	# anything more would be aborted by now too
a1=$(($(proc_counter IdleChildrenAborted mrci-b) - a0))
c2=$(($(proc_counter Connections mrci-b) - c0))
log "after $((i / 10)) s more: $a1 aborted for idleness, $c2 connections left"
check "the 3 silent connections were aborted ($a1)" [ "$a1" = 3 ]
check "the one that delivered a message is kept ($c2 left)" [ "$c2" = 1 ]
kill -USR1 $silent $talker
wait $silent $talker
check "each silent client failed with ECONNRESET ($(tail -n 1 "$out/silent"))" \
	grep -qx "reset 3" "$out/silent"
check "the client that sent was not reset ($(tail -n 1 "$out/talker"))" \
	grep -qx "reset 0" "$out/talker"

# The backlog (4) had no room left before the aborts.
ip netns exec mrci-a ./mrc_sock_helper idle 3 0 7400 $addr >"$out/late" 2>&1 &
late=$!
check "the freed backlog slots take 3 new connections" wait_for "$out/late" "connected 3" 10
# Those 3 send nothing either: their abort is not this test's concern.
kill -USR1 $late
wait $late

ip netns exec mrci-b sysctl -qw net.mrc.child_idle_timeout_ms=0
a0=$(proc_counter IdleChildrenAborted mrci-b)
kill $lpid
wait $lpid 2>/dev/null
MRC_BACKLOG=4 ip netns exec mrci-b ./mrc_sock_helper listen 7401 >"$out/listen0" 2>&1 &
lpid=$!
wait_for "$out/listen0" ready 5
c0=$(proc_counter Connections mrci-b)
ip netns exec mrci-a ./mrc_sock_helper idle 2 0 7401 $addr >"$out/never" 2>&1 &
silent=$!
check "timeout 0: 2 clients connected" wait_for "$out/never" "connected 2" 10
sleep 4
a1=$(($(proc_counter IdleChildrenAborted mrci-b) - a0))
c1=$(($(proc_counter Connections mrci-b) - c0))
check "timeout 0: nothing aborted ($a1)" [ "$a1" = 0 ]
check "timeout 0: both connections kept ($c1)" [ "$c1" = 2 ]
kill -USR1 $silent
wait $silent
check "timeout 0: no client reset ($(tail -n 1 "$out/never"))" grep -qx "reset 0" "$out/never"
finish
