#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Data integrity over AF_MRC between two namespaces (veth): 1,000 messages
# of random sizes (log-uniform, 1 B .. 4 MiB) each way at the same time over
# one connection, SHA-256 of every message stream compared end to end (the
# digest covers lengths too, so boundaries count). Then the same over
# loopback inside one namespace. The per-namespace counters must show no
# connection failure.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

N=${MRC_INTEGRITY_MSGS:-1000}
MAX=${MRC_INTEGRITY_MAX:-4194304}
out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
trap 'rm -rf "$out"; mrc_cleanup' EXIT

veth_pair mrci-a mrci0 fd00:6d72:1::1/64 mrci-b mrci1 fd00:6d72:1::2/64 || exit $ksft_fail

# xfer NAME SERVER_NS CLIENT_NS SERVER_ADDR PORT
xfer() {
	local name=$1 sns=$2 cns=$3 addr=$4 port=$5 rc src
	ip netns exec "$sns" ./mrc_xfer -l -p "$port" -n "$N" -M "$MAX" -s 11 \
		>"$out/$name.srv" 2>"$out/$name.srv.err" &
	local spid=$!
	sleep 0.5
	ip netns exec "$cns" timeout 600 ./mrc_xfer -c "$addr" -p "$port" -n "$N" \
		-M "$MAX" -s 22 >"$out/$name.cli" 2>"$out/$name.cli.err"
	rc=$?
	wait "$spid"
	src=$?
	check "$name: client exit ($(cat "$out/$name.cli.err"))" [ "$rc" = 0 ]
	check "$name: server exit ($(cat "$out/$name.srv.err"))" [ "$src" = 0 ]
	check "$name: digests printed" [ -n "$(awk '$1 == "rx"' "$out/$name.cli")" ]
	expect_eq "$name: client->server digest" \
		"$(awk '$1 == "tx" { print $2, $3, $4 }' "$out/$name.cli")" \
		"$(awk '$1 == "rx" { print $2, $3, $4 }' "$out/$name.srv")"
	expect_eq "$name: server->client digest" \
		"$(awk '$1 == "tx" { print $2, $3, $4 }' "$out/$name.srv")" \
		"$(awk '$1 == "rx" { print $2, $3, $4 }' "$out/$name.cli")"
	expect_eq "$name: messages each way" "$N" \
		"$(awk '$1 == "rx" { print $3 }' "$out/$name.cli")"
	if ((mrc_failures)); then
		for ns in "$sns" "$cns"; do
			log "$ns: $(ip netns exec "$ns" cat /proc/net/mrc | tr '\n' ' ')"
		done
	fi
	log "$name: $(grep rate "$out/$name.cli")," \
		"$(awk '$1 == "tx" { print $4 }' "$out/$name.cli") bytes out," \
		"$(awk '$1 == "rx" { print $4 }' "$out/$name.cli") bytes in"
}

xfer veth mrci-b mrci-a fd00:6d72:1::2 7000
# Both ends closed: the close handshake is over once neither holds the
# connection; after it nothing more is sent (a peer retransmitting into a
# released QPN shows as RxUnknownQpn).
for ns in mrci-a mrci-b; do
	for _ in $(seq 50); do
		[ "$(proc_counter Connections "$ns")" = 0 ] && break
		sleep 0.1
	done
	expect_eq "$ns: connection released after the close handshake" 0 \
		"$(proc_counter Connections "$ns")"
done
sleep 1
for ns in mrci-a mrci-b; do
	expect_eq "$ns: no failed connection" 0 "$(proc_counter ConnFailed "$ns")"
	expect_eq "$ns: no dropped-for-memory packet" 0 "$(proc_counter RxNoMemory "$ns")"
	expect_eq "$ns: nothing sent to a released connection" 0 \
		"$(proc_counter RxUnknownQpn "$ns")"
done

N=$((N / 4)) xfer loopback mrci-a mrci-a ::1 7001
expect_eq "loopback: no failed connection" 0 "$(proc_counter ConnFailed mrci-a)"

finish
