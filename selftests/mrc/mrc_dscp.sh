#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Traffic classes per EV profile (issue 14): data packets carry the
# profile's DSCP with ECN ECT(0), control packets (SACK, NACK, probes,
# handshake) its control DSCP, Not-ECT. A transfer over a veth pair is
# captured (tcpdump, both directions) and every MRC packet's IPv6 traffic
# class checked, by its BTH opcode (first byte after UDP):
#
#  1. defaults: data DSCP 0 (ECT(0), or CE), control DSCP 48 (CS6);
#  2. "mrcctl profile set id 0 dscp 26 dscp-ctl 46" on both hosts: 26 / 46;
#  3. dscp 64 is refused with the kernel's extack message.
#
# Before, data left with traffic class 0x02 and control 0x00 whatever the
# configuration, and there was nothing to configure.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

MRCCTL=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; exit $ksft_fail; }
command -v tcpdump >/dev/null || { log "FAIL: no tcpdump in the guest"; exit $ksft_fail; }
trap 'pkill -TERM -x tcpdump 2>/dev/null; rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrcd-a mrcd0 fd00:6d72:8::1/64 mrcd-b mrcd1 fd00:6d72:8::2/64 || exit $ksft_fail

DATA='(ip6[48] >= 0xc6 and ip6[48] <= 0xcb)'	# BTH opcodes of WRITE_*
# count FILE FILTER: captured packets matching FILTER
count() { tcpdump -Z root -r "$1" -n "$2" 2>/dev/null | wc -l; }

# run NAME DSCP DSCP_CTL PORT
run() {
	local name=$1 d=$2 c=$3 port=$4 f=$out/$1.pcap tpid spid crc src
	local data data_ok ctl ctl_ok
	# -Z root: the capture file is in a directory only root may write.
	ip netns exec mrcd-a tcpdump -Z root -i mrcd0 -U -s 128 -w "$f" "udp port 4791" \
		2>"$out/$name.tcpdump" &
	tpid=$!
	wait_for "$out/$name.tcpdump" "listening on" 10
	ip netns exec mrcd-b ./mrc_xfer -l -p "$port" -n 40 -M 65536 -s 7 \
		>"$out/$name.srv" 2>"$out/$name.srv.err" &
	spid=$!
	sleep 0.3
	ip netns exec mrcd-a timeout 120 ./mrc_xfer -c fd00:6d72:8::2 -p "$port" -n 40 \
		-M 65536 -s 8 >"$out/$name.cli" 2>"$out/$name.cli.err"
	crc=$?
	[ "$crc" != 0 ] && kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	sleep 0.5
	kill -TERM "$tpid"
	wait "$tpid"
	check "$name: client exit ($(head -c 200 "$out/$name.cli.err"))" [ "$crc" = 0 ]
	check "$name: server exit ($(head -c 200 "$out/$name.srv.err"))" [ "$src" = 0 ]
	expect_digests "$name" "$out/$name.cli" "$out/$name.srv"
	# ip6[0:2]: version 4 bits, traffic class 8 (DSCP 6, ECN 2), label 4.
	data=$(count "$f" "$DATA")
	data_ok=$(count "$f" "$DATA and (ip6[0:2] & 0x0fc0) = $((d << 6)) and (ip6[0:2] & 0x0020) != 0")
	ctl=$(count "$f" "not $DATA")
	ctl_ok=$(count "$f" "not $DATA and (ip6[0:2] & 0x0ff0) = $((c << 6))")
	log "$name: data $data_ok of $data with DSCP $d and ECT, control $ctl_ok of $ctl with DSCP $c, Not-ECT"
	check "$name: data captured ($data)" [ "$data" -ge 40 ]
	check "$name: every data packet in class $d, ECN-capable ($data_ok of $data)" [ "$data_ok" = "$data" ]
	check "$name: control captured ($ctl)" [ "$ctl" -ge 10 ]
	check "$name: every control packet in class $c, Not-ECT ($ctl_ok of $ctl)" [ "$ctl_ok" = "$ctl" ]
	[ "$ctl_ok" = "$ctl" ] ||
		tcpdump -Z root -r "$f" -nv -x "not $DATA and (ip6[0:2] & 0x0ff0) != $((c << 6))" 2>/dev/null |
		head -n 12 | sed 's/^/# /'
}

run defaults 0 48 7500
for h in mrcd-a mrcd-b; do
	check "$h: profile 0 dscp 26 dscp-ctl 46" \
		ip netns exec "$h" "$MRCCTL" profile set id 0 dscp 26 dscp-ctl 46
done
check "profile show reports them" \
	test "$(ip netns exec mrcd-a "$MRCCTL" -j profile show | jq -c '.[0].ev | [.dscp, .dscp_ctl]')" = "[26,46]"
run configured 26 46 7501
err=$(ip netns exec mrcd-a "$MRCCTL" profile set id 0 dscp 64 2>&1)
check "dscp 64 refused with the kernel's reason ($err)" grep -q "ev dscp out of range" <<<"$err"
finish
