#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A local queue that takes a packet while dropping others (NET_XMIT_CN) is
# congestion, not success. fq_codel, the default qdisc of systemd hosts,
# answers NET_XMIT_CN when it is at its limit and drops from the head of
# the flow the new packet joined. The client's link is a tbf at 50 Mbit/s
# whose queue is an fq_codel of 24 packets, far below MRC's window; packets
# are sprayed one by one (EV profile burst 1): fq_codel's limit counts
# skbs, and 24 flowcells of 16 packets would make a queue of 550 KB that
# rarely fills (the RTO fires first). The fq_codel has one flow: with its
# default 1,024, each EV (its UDP source port) hashes to a flow of its own
# and a full queue answers NET_XMIT_CN only when the new packet's flow is
# the fattest, by chance (one packet per EV); with one, every packet a full
# queue takes is answered so. The rate is far below what a sender in a
# TCG guest reaches (at 200 Mbit/s, a CI host that sent 65 Mbit/s filled
# the queue 6 times, none answered NET_XMIT_CN). Before, the answer read
# as success: the window never heard of the drops, which were found later
# one by one (inferred losses, timeouts). Now every mrc_xmit_queue() call
# that met it shrinks the window by the bytes taken (TCP enters CWR on the
# same answer).
#
# Evidence: fq_codel dropped packets at its limit (drop_overlimit: the drops
# that answer NET_XMIT_CN, not codel's own at dequeue); TxLocalCongestion of
# the client's namespace counts data packets the engine heard of (the
# counter moves only once the engine took the report), at least one per
# report; the transfer completes with digests equal both ways; no EV bad
# at the end but for timeouts (at most one per 16); no TxErrors.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

MRCCTL=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
N=${MRC_LOCAL_CN_MSGS:-300}
MAX=262144
out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

veth_pair lcA lca0 fd00:1e::2/64 lcB lcb0 fd00:1e::1/64 || exit $ksft_fail
for h in lcA lcB; do
	ip netns exec "$h" "$MRCCTL" profile set id 0 burst 1 || { check "profile burst 1" false; finish; }
done
tc -n lcA qdisc add dev lca0 root handle 1: tbf rate 50mbit burst 64kb limit 1mb ||
	{ check "tbf" false; finish; }
tc -n lcA qdisc add dev lca0 parent 1:1 handle 10: fq_codel limit 24 flows 1 ||
	{ check "fq_codel under tbf" false; finish; }

c0=$(proc_counter TxLocalCongestion lcA) e0=$(proc_counter TxErrors lcA)
check "TxLocalCongestion is a counter (${c0:-missing})" [ -n "$c0" ]
ip netns exec lcB ./mrc_xfer -l -p 7200 -n "$N" -M "$MAX" -s 13 \
	>"$out/srv" 2>"$out/srv.err" &
spid=$!
sleep 0.3
ip netns exec lcA timeout 300 ./mrc_xfer -c fd00:1e::1 -p 7200 -n "$N" \
	-M "$MAX" -s 24 --info-json >"$out/cli" 2>"$out/cli.err"
rc=$?
[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
wait "$spid"
src=$?
check "client exit ($(cat "$out/cli.err"))" [ "$rc" = 0 ]
check "server exit ($(cat "$out/srv.err"))" [ "$src" = 0 ]
expect_digests cn "$out/cli" "$out/srv"

info=$(sed -n 's/^info //p' "$out/cli")
cn=$(($(proc_counter TxLocalCongestion lcA) - ${c0:-0}))
errs=$(($(proc_counter TxErrors lcA) - e0))
fqs=$(tc -n lcA -s -j qdisc show dev lca0 | jq -c '.[] | select(.kind == "fq_codel")')
fq=$(jq -r .drops <<<"$fqs") over=$(jq -r '[.. | objects | .drop_overlimit // empty][0]' <<<"$fqs")
log "fq_codel drops $fq ($over at its limit); TxLocalCongestion $cn, TxErrors $errs;" \
	"connection: $(jq -r .retransmits <<<"$info") retransmits," \
	"$(jq -r .timeouts <<<"$info") timeouts; $(grep rate "$out/cli")"
check "fq_codel dropped packets at its limit ($over of $fq)" [ "${over:-0}" -gt 0 ]
check "the engine heard of the congestion (TxLocalCongestion $cn > 0)" [ "$cn" -gt 0 ]
check "no NET_XMIT_CN counted as a transmit error ($errs)" [ "$errs" = 0 ]
# The congestion report blames no path. fq_codel's head drops take packets
# the host cannot name, which the engine then finds by timeout, as it
# should (silence is failure), and an EV that timed out near the end may
# still await its probe's answer (a 6.12 CI run: 51 timeouts, 1 bad). An
# EV blamed per report would leave tens bad (29 reports in that run).
bad=$(jq -r .ev_bad <<<"$info") tos=$(jq -r .timeouts <<<"$info")
check "no EV blamed for the congestion ($bad bad after $tos timeouts; at most 1 per 16)" \
	[ "$bad" -le "$((tos / 16))" ]
finish
