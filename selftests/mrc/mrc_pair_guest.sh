#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrc_pair_guest.sh ROLE DIR - one guest's side of the two-guest rig
# (scripts/vm/pair.sh, issue 51): two QEMU guests, each its own kernel and
# its own mrc.ko, joined by four QEMU socket netdevs, one per plane, and
# nothing else (no namespace, no shared memory, no switch between them).
# Guest "a" (6.1) listens, guest "b" (6.12) connects. DIR, on the project
# share both guests mount, holds the files by which they meet (ROLE.NAME:
# "ready", "listening", "cut", ...) and what each leaves for the host's
# judgment (outputs, MRC_INFO series, /proc/net/mrc).
#
# Each guest: its four NICs named pl0..pl3 by their MAC (52:54:00:6d:0M:0P,
# M 1 for a, 2 for b), plane P's link fd00:6d72:aP::M/64, its host address
# fd00:6d72:ff::M on lo, an IPv6 route to the peer's host address through
# every plane (metrics 1024 + P) and an MRC route "encap none" to it: plain
# IPv6, the peer's kernel routing each plane's packets by itself.
#
# Phases (b drives, a serves; both send data both ways, mrc_xfer):
#   xfer      100 messages of 1 B..1 MiB each way: digests (host), and the
#             wire the host captures (b then waits for the host's
#             "host.capture_off": what follows would be hundreds of MB).
#   failover  a longer transfer; after 1 s b cuts plane 1 silently (netem
#             loss 100 % out, a matchall drop in: carriers up) for 3 s,
#             then takes plane 2's port down (ip link down: b announces it
#             to a over the other planes, ERTH PORT_STATUS_UPDATE, a 6.12
#             sender to a 6.1 receiver) until a has looked (a.sampled).
# Checks here are each guest's own (exit codes, its connection's EV
# states, its counters); the host checks what needs both (digests) and the
# capture of the wire between them (pair.sh).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

role=$1 D=$2
case $role in
a) me=1 peer=2 other=b ;;
b) me=2 peer=1 other=a ;;
*) log "usage: $0 a|b DIR"; exit $ksft_fail ;;
esac
NPLANES=4
H_ME=fd00:6d72:ff::$me
H_PEER=fd00:6d72:ff::$peer
MRCCTL=${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl
# The failover transfer's data outlasts the cut and the port down (about
# 8 s; 1,000 messages took 25-70 s here, and a checks that data still
# flows while it looks); --linger keeps both ends open for the port's
# return and the probes that restore plane 1 if the data ends sooner.
N=100 MAX=1048576
CUT_S=${MRC_PAIR_CUT_S:-3}
NF=${MRC_PAIR_FO_MSGS:-1000} MAXF=4194304

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }

# mark NAME: tell the other guest NAME happened here (written through the
# share: sync first, so that what this guest wrote before is there too).
mark() { sync; date +%s.%N >"$D/$role.$1"; }
# await NAME SECS [WHO]: until the other guest (or WHO: "host") marked NAME
# (1 if it never did).
await() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$D/${3:-$other}.$1" ] && return 0
		sleep 0.1
	done
	return 1
}

net_up() {
	local p dev mac
	modprobe virtio_net || return 1
	ip link set lo up
	# A port taken down keeps its address (the failover phase).
	sysctl -qw net.ipv6.conf.all.keep_addr_on_down=1 net.ipv6.conf.default.keep_addr_on_down=1
	for ((p = 0; p < NPLANES; p++)); do
		mac=52:54:00:6d:0$me:0$p
		dev=""
		for i in /sys/class/net/*; do
			[ "$(cat "$i/address")" = "$mac" ] && dev=${i##*/}
		done
		[ -n "$dev" ] || { log "no NIC with MAC $mac"; return 1; }
		ip link set "$dev" name "pl$p" && ip link set "pl$p" up &&
			ip -6 addr add "fd00:6d72:a$p::$me/64" dev "pl$p" nodad || return 1
	done
	ip -6 addr add "$H_ME/128" dev lo nodad || return 1
	for ((p = 0; p < NPLANES; p++)); do
		link_wait_up "" "pl$p" && peer_route "$p" || return 1
		"$MRCCTL" plane add id "$p" dev "pl$p" addr "fd00:6d72:a$p::$me" >/dev/null || return 1
	done
	"$MRCCTL" route replace "$H_PEER/128" encap none >/dev/null
}

# peer_route P: the peer's host address through plane P (again after the
# port was down: IPv6 drops a down device's routes)
peer_route() {
	ip -6 route replace "$H_PEER/128" via "fd00:6d72:a$1::$peer" dev "pl$1" metric $((1024 + $1))
}
same() { [ -n "$1" ] && [ "$1" = "$2" ]; }
# jqf FILE FILTER: FILTER on an MRC_INFO file (empty while it is absent)
jqf() { jq -r "$2" "$1" 2>/dev/null; }
# series INFO: every 0.5 s, the time and INFO's line, appended to
# INFO.series (what the connection went through, for a failure's log)
series() {
	while :; do
		echo "$(date +%s.%N) $(cat "$1" 2>/dev/null)"
		sleep 0.5
	done >>"$1.series" &
	series_pid=$!
}

check "$role: network and MRC planes up ($(uname -r))" net_up
log "$role: $(ip -br link | tr '\n' ' ')"
mark ready
check "$role: the other guest is up" await ready 600
# Every plane's neighbour resolved before the first transfer: its first
# packets would otherwise queue behind neighbour discovery (and be
# dropped past the queue's three), reaching the capture only as
# retransmissions.
for ((p = 0; p < NPLANES; p++)); do
	ping -c 1 -W 5 -I "pl$p" "fd00:6d72:a$p::$peer" >/dev/null 2>&1 ||
		log "$role: no answer to a ping on plane $p"
done

serve() {
	./mrc_xfer -l -p 7400 -n "$N" -M "$MAX" -s 11 >"$D/a.xfer.out" 2>"$D/a.xfer.err" &
	local x=$!
	./mrc_xfer -l -p 7401 -n "$NF" -M "$MAXF" -s 33 --linger 5 --info-file "$D/a.fo.info" \
		>"$D/a.fo.out" 2>"$D/a.fo.err" &
	local f=$! seen_bad=0 tx0 tx1 all0 all1 rc end
	series "$D/a.fo.info"
	sleep 0.5
	mark listening
	# What a (6.1) sees of b's cut and of b's port going down (loops bound
	# in time: a jq takes up to half a second on a loaded TCG vCPU).
	if await cut 300; then
		end=$((SECONDS + CUT_S + 1))
		while ((SECONDS < end)); do
			[ "$(jqf "$D/a.fo.info" '.planes[1].bad')" -gt 0 ] 2>/dev/null &&
				{ seen_bad=1; break; }
			sleep 0.1
		done
	fi
	check "a: its EVs of plane 1 condemned while b's side of plane 1 was cut" \
		[ "$seen_bad" = 1 ]
	if await port_down 60; then
		# The announcement comes at once; a second later a sends nothing
		# more on plane 2: its packet count stands for the next second
		# (b keeps the port down until a.sampled).
		sleep 1
		tx0=$(jqf "$D/a.fo.info" '.planes[2].tx_pkts')
		all0=$(jqf "$D/a.fo.info" '.tx_pkts')
		sleep 1
		tx1=$(jqf "$D/a.fo.info" '.planes[2].tx_pkts')
		all1=$(jqf "$D/a.fo.info" '.tx_pkts')
		mark sampled
		log "a: plane 2 tx_pkts $tx0 then $tx1, all planes $all0 then $all1," \
			"while b's port was down ($(jqf "$D/a.fo.info" '.planes[2] | tostring'))"
		check "a: still sending on the other planes" [ "${all1:-0}" -gt "${all0:-0}" ]
		check "a: nothing sent on plane 2 while b's port was down" same "$tx0" "$tx1"
	else
		check "b took its port of plane 2 down" false
	fi
	wait "$x"
	rc=$?
	check "a: xfer server exit ($(head -c 300 "$D/a.xfer.err"))" [ "$rc" = 0 ]
	wait "$f"
	rc=$?
	check "a: failover server exit ($(head -c 300 "$D/a.fo.err"))" [ "$rc" = 0 ]
	check "a: b's port-status updates received (RxPortStatus >= 2: down, up)" \
		[ "$(proc_counter RxPortStatus)" -ge 2 ]
}

drive() {
	local bad=0 max_bad=0 back=0 rc f end
	check "b: a listens" await listening 120
	./mrc_xfer -c "$H_PEER" -p 7400 -n "$N" -M "$MAX" -s 22 \
		>"$D/b.xfer.out" 2>"$D/b.xfer.err"
	rc=$?
	check "b: xfer client exit ($(head -c 300 "$D/b.xfer.err"))" [ "$rc" = 0 ]
	log "b: xfer $(grep rate "$D/b.xfer.out")"
	mark xfer_done
	check "b: the host stopped its capture" await capture_off 120 host

	./mrc_xfer -c "$H_PEER" -p 7401 -n "$NF" -M "$MAXF" -s 44 --linger 10 \
		--info-file "$D/b.fo.info" >"$D/b.fo.out" 2>"$D/b.fo.err" &
	f=$!
	series "$D/b.fo.info"
	sleep 1
	# Silent cut of plane 1, both ways, carriers up.
	tc qdisc add dev pl1 root netem loss 100% &&
		tc qdisc add dev pl1 ingress &&
		tc filter add dev pl1 parent ffff: matchall action drop
	check "b: plane 1 cut (netem out, matchall drop in)" [ $? = 0 ]
	mark cut
	end=$((SECONDS + CUT_S))
	while ((SECONDS < end)); do
		bad=$(jqf "$D/b.fo.info" '.planes[1].bad')
		((bad > max_bad)) && max_bad=$bad
		sleep 0.1
	done
	tc qdisc del dev pl1 root
	tc qdisc del dev pl1 ingress
	mark restored
	log "b: plane 1's ASSUMED_BAD EVs during the cut: at most $max_bad"
	check "b: its EVs of plane 1 condemned during the cut" [ "$max_bad" -gt 0 ]
	kill -0 "$f" 2>/dev/null
	check "b: the transfer outlived the cut (raise MRC_PAIR_FO_MSGS if not)" [ $? = 0 ]

	ip link set pl2 down
	mark port_down
	check "b: a looked at plane 2 while b's port was down" await sampled 60
	ip link set pl2 up
	link_wait_up "" pl2 && peer_route 2
	check "b: plane 2 back up" [ $? = 0 ]
	# Meanwhile probes brought plane 1's EVs back.
	end=$((SECONDS + 15))
	while ((SECONDS < end)); do
		[ "$(jqf "$D/b.fo.info" '.planes[1].bad')" = 0 ] && { back=1; break; }
		sleep 0.1
	done
	check "b: plane 1's EVs back within 15 s of the port's return" [ "$back" = 1 ]
	wait "$f"
	rc=$?
	check "b: failover client exit ($(head -c 300 "$D/b.fo.err"))" [ "$rc" = 0 ]
	check "b: port-status updates sent (TxPortStatus >= 2: down, up)" \
		[ "$(proc_counter TxPortStatus)" -ge 2 ]
	log "b: failover $(grep rate "$D/b.fo.out")"
}

series_pid=""
case $role in
a) serve ;;
b) drive ;;
esac
[ -n "$series_pid" ] && kill "$series_pid"
for k in ConnFailed RxBadIcrc; do
	expect_eq "$role: $k" 0 "$(proc_counter $k)"
done
cat /proc/net/mrc >"$D/$role.proc"
log "$role: last MRC_INFO: $(jq -c '{state, timeouts, spurious_timeouts, retransmits,
	planes: [.planes[] | {bad, tx_pkts}]}' "$D/$role.fo.info" 2>&1)"
mark done
finish
