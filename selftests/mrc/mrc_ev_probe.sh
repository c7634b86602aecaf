#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A spec peer's connectionless EV probes are answered (issue 14,
# kmod/mrc_ev_probe.c). mrc_inject -E plays an MRC 1.0 peer in epA: ERTH
# requests of op EV_PROBE to epB's QPN 2, each with its own probe id in
# BTH.PSN and its own timestamp, from port 4791, where the answers come
# back; it checks each answer (an EETH of op EV_PROBE from epB, ICRC right
# for its addresses and ports, echoing the id and timestamp of a probe not
# answered before).
#  - 50 probes with net.mrc.handshake_answer_rate at 100000/s: every one
#    answered once, nothing else arrives, epB's EvProbesAnswered +50;
#  - 1000 probes back to back at 1000/s (the requests' source has proven
#    nothing: they could aim the answers at a victim): at most the /64's
#    two bursts (20) plus its 200/s for the time taken answered, the rest
#    counted in HandshakeAnswersLimited, every answer still right.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
cleanup() {
	pkill -f "mrc_sock_helper listen 81" 2>/dev/null
	rm -rf "$out"
	mrc_cleanup
}
trap cleanup EXIT

veth_pair epA epa0 "fd00:3e::2/64" epB epb0 "fd00:3e::1/64" || exit $ksft_fail
c() { proc_counter "$1" epB; }

# A listener makes epB's MRC UDP socket exist (epA has none: its port
# 4791 is the injector's).
ip netns exec epB ./mrc_sock_helper listen 81 >"$out/lst" 2>&1 &
sleep 0.5
expect_eq "listener ready" "ready 81" "$(cat "$out/lst")"

# probe COUNT RATE: one round; sets sent, ok, bad, ans, lim, ms
probe() {
	local a0 l0 t0 t1 line
	ip netns exec epB sysctl -q -w net.mrc.handshake_answer_rate="$2" ||
		{ check "answer rate $2" false; return; }
	a0=$(c EvProbesAnswered) l0=$(c HandshakeAnswersLimited)
	t0=$(date +%s%N)
	line=$(ip netns exec epA ./mrc_inject -E -d fd00:3e::1 -b fd00:3e::2 -n "$1" -s 5 2>&1)
	t1=$(date +%s%N)
	log "$1 probes at $2/s: $line"
	read -r sent ok bad <<<"$(awk '/^ev probe:/ { print $4, $6, $8 }' <<<"$line")"
	ans=$(($(c EvProbesAnswered) - a0)) lim=$(($(c HandshakeAnswersLimited) - l0))
	ms=$(((t1 - t0) / 1000000 - 1000))	# less the second of silence
	log "epB answered $ans, limited $lim, in about $ms ms"
	expect_eq "$1 probes sent" "$1" "${sent:-}"
	expect_eq "nothing but right answers arrived" 0 "${bad:-x}"
	expect_eq "every answer epB sent arrived and was right" "$ans" "${ok:-x}"
	# The injector reads after its last probe: a full socket would lose
	# answers that did arrive (UDP's own count, not ours).
	expect_eq "the injector's socket dropped none" 0 \
		"$(ip netns exec epA awk '$1 == "Udp6RcvbufErrors" { print $2 }' /proc/net/snmp6)"
}

probe 50 100000
expect_eq "every probe answered" 50 "$ok"
expect_eq "none limited" 0 "$lim"

probe 1000 1000
check "answers within the rate ($ok <= 20 + $ms ms x 200/s)" \
	[ "$ok" -le $((20 + ms / 5 + 4)) ]
check "some answered ($ok)" [ "$ok" -gt 0 ]
expect_eq "the rest limited" $((1000 - ok)) "$lim"
finish
