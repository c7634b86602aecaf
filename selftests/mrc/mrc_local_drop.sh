#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Local drops: a packet the sending host's own queue refuses (NET_XMIT_DROP
# from a full qdisc) is not a path failure. The client's link is shaped by
# a tbf qdisc whose queue holds a few packets, far less than MRC's window,
# so it refuses packets all along. The engine must hear of each refusal at
# once: the packet is retransmitted at once on a plane with room, the EV is
# not blamed, and no retransmit timeout is paid for it. Before, each
# refusal only counted as TxErrors and cost an RTO (16.8 ms) and a
# timed-out EV.
#
# Evidence: TxLocalDrops of the client's namespace (at least 50 refusals),
# the connection's timeouts (MRC_INFO) at most a tenth of the refusals, no
# EV left bad, no TxErrors, digests equal both ways.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

N=${MRC_LOCAL_DROP_MSGS:-300}
MAX=262144
out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

veth_pair ldA lda0 fd00:1d::2/64 ldB ldb0 fd00:1d::1/64 || exit $ksft_fail
# 200 Mbit/s, a queue of 24 KB (16 full-size packets): MRC's window is
# 256 KiB, so the queue overflows whenever the window outgrows it.
tc -n ldA qdisc add dev lda0 root tbf rate 200mbit burst 16kb limit 24kb ||
	exit $ksft_fail

d0=$(proc_counter TxLocalDrops ldA) e0=$(proc_counter TxErrors ldA)
ip netns exec ldB ./mrc_xfer -l -p 7200 -n "$N" -M "$MAX" -s 11 \
	>"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.3
ip netns exec ldA timeout 300 ./mrc_xfer -c fd00:1d::1 -p 7200 -n "$N" \
	-M "$MAX" -s 22 --info-json >"$out/cli" 2>"$out/cli.err"
rc=$?
# A client that failed leaves the server waiting for it.
[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
wait "$spid"
src=$?
check "client exit ($(cat "$out/cli.err"))" [ "$rc" = 0 ]
check "server exit ($(cat "$out/srv.err"))" [ "$src" = 0 ]
expect_digests transfer "$out/cli" "$out/srv"

info=$(sed -n 's/^info //p' "$out/cli")
drops=$(($(proc_counter TxLocalDrops ldA) - d0))
errs=$(($(proc_counter TxErrors ldA) - e0))
tmo=$(jq -r .timeouts <<<"$info")
rtx=$(jq -r .retransmits <<<"$info")
bad=$(jq -r .ev_bad <<<"$info")
qdrops=$(tc -n ldA -s -j qdisc show dev lda0 | jq '.[0].drops')
log "qdisc drops $qdrops, TxLocalDrops $drops, TxErrors $errs;" \
	"connection: $rtx retransmits, $tmo timeouts, $bad EVs bad; $(grep rate "$out/cli")"
check "the qdisc refused packets ($qdrops >= 10)" [ "${qdrops:-0}" -ge 10 ]
check "each refusal reached the engine ($drops >= 50)" [ "$drops" -ge 50 ]
check "no refusal counted as a transmit error ($errs)" [ "$errs" = 0 ]
check "refusals cost no timeouts ($tmo <= $drops / 10)" [ "$((tmo * 10))" -le "$drops" ]
check "no EV blamed ($bad bad)" [ "$bad" = 0 ]

finish
