#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every connection's engine is built where its allocations may sleep
# (issue 13: "large engine allocations in process context"): a kprobe on
# mrc_conn_build() records its may_sleep argument while a client connects
# to a server in another namespace, both ways 20 messages. Two builds (the
# client's, in connect(); the server's child, in its start work), both with
# may_sleep = 1, none with 0 (the client used to build its engine in the
# receive softirq when the connect response arrived, with GFP_ATOMIC
# allocations of order 2 to 4). Digests both ways.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

T=/sys/kernel/tracing
out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
cleanup() {
	echo 0 >"$T/events/kprobes/mrc_build/enable" 2>/dev/null
	echo '-:kprobes/mrc_build' >>"$T/kprobe_events" 2>/dev/null
	rm -rf "$out"
	mrc_cleanup
}
trap cleanup EXIT

[ -w "$T/kprobe_events" ] || { log "no kprobe_events in $T"; exit $ksft_fail; }
# x86-64: the second argument is in %si.
echo 'p:kprobes/mrc_build mrc_conn_build may_sleep=%si:u8' >>"$T/kprobe_events" ||
	{ log "kprobe on mrc_conn_build refused"; exit $ksft_fail; }
echo >"$T/trace"
echo 1 >"$T/events/kprobes/mrc_build/enable" || exit $ksft_fail

veth_pair eaA eaa0 "fd00:3d::2/64" eaB eab0 "fd00:3d::1/64" || exit $ksft_fail
ip netns exec eaB ./mrc_xfer -l -p 82 -n 20 -M 65536 -s 1 >"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.5
ip netns exec eaA timeout 60 ./mrc_xfer -c fd00:3d::1 -p 82 -n 20 -M 65536 -s 2 \
	>"$out/cli" 2>"$out/cli.err"
crc=$?
wait "$spid"
src=$?
echo 0 >"$T/events/kprobes/mrc_build/enable"
check "client exit ($crc: $(cat "$out/cli.err"))" [ "$crc" = 0 ]
check "server exit ($src: $(cat "$out/srv.err"))" [ "$src" = 0 ]
expect_digests "transfer" "$out/cli" "$out/srv"

grep 'mrc_build:' "$T/trace" | sed 's/^/# trace: /'
sleepers=$(grep -c 'mrc_build:.*may_sleep=1' "$T/trace")
atomic=$(grep -c 'mrc_build:.*may_sleep=0' "$T/trace")
expect_eq "engines built where they may sleep (client and server)" 2 "$sleepers"
expect_eq "engines built atomically" 0 "$atomic"
finish
