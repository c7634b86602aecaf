#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Telemetry plumbing: mrcstat attach loads the BPF programs, attaches them
# to the mrc:* tracepoints and pins maps and links under /sys/fs/bpf/mrc;
# the pinned maps are shared by several readers at once (one event-stream
# consumer at a time); detach leaves no program or link behind (bpftool)
# and the module can be removed again; every error names its cause and has
# its own exit status (3 module not loaded, 4 BPF not permitted, 5 not
# attached). Agreement: after transfers between two namespaces (one through
# a 100%-loss period), the per-connection totals of mrcstat equal the
# module's MRC_INFO exactly, and the assumed_bad events name exactly the
# EVs the connection dump (mrcctl path show) reports as having lost packets
# (timeouts, or losses found before them).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

S=${MRCSTAT:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcstat/mrcstat}
[ -x "$S" ] || { log "mrcstat not built at $S (make userspace)"; exit $ksft_fail; }
mrc_loaded || insmod "$MRC_KO" || { log "cannot load $MRC_KO"; exit $ksft_fail; }
PIN=/sys/fs/bpf/mrc
out=$(mktemp -d)
trap 'rm -rf "$out"; "$S" detach >/dev/null 2>&1; mrc_cleanup' EXIT
"$S" detach >/dev/null 2>&1

# run_rc EXPECTED_RC MESSAGE_PART DESCRIPTION CMD...: exit status and stderr
run_rc() {
	local want=$1 msg=$2 what=$3 rc
	shift 3
	"$@" >"$out/o" 2>"$out/e"
	rc=$?
	expect_eq "$what: exit status" "$want" "$rc"
	check "$what: says '$msg' ($(head -c 200 "$out/e"))" grep -qF -- "$msg" "$out/e"
}

prog_count() { bpftool prog show 2>/dev/null | grep -c 'name mrc_tel_'; }
link_count() { bpftool link show 2>/dev/null | grep -c 'raw_tracepoint'; }

# --- not attached -------------------------------------------------------
run_rc 5 "run mrcstat attach" "show before attach" "$S" show -c 1
run_rc 5 "run mrcstat attach" "-j before attach" "$S" -j
run_rc 5 "run mrcstat attach" "events before attach" "$S" events -t 1
run_rc 5 "not attached" "detach before attach" "$S" detach
run_rc 2 "unknown command" "bad command" "$S" frobnicate

# --- attach -------------------------------------------------------------
check "tracefs lists the mrc events" test -d /sys/kernel/tracing/events/mrc/mrc_pkt_sent
nev=$(find /sys/kernel/tracing/events/mrc -mindepth 1 -maxdepth 1 -type d | wc -l)
expect_eq "mrc tracepoints" 8 "$nev"
run_rc 4 "BPF needs root" "attach without privileges" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$S" attach
check "attach" "$S" attach
check "attach again is a no-op" eval '"$S" attach | grep -q "already attached"'
for m in mrc_ev mrc_plane mrc_conn mrc_events mrc_tel_stat; do
	check "map $m pinned" test -e "$PIN/$m"
done
nlinks=$(find "$PIN" -name 'link_*' | wc -l)
expect_eq "links pinned" 8 "$nlinks"
expect_eq "programs loaded" 8 "$(prog_count)"
expect_eq "raw_tracepoint links" 8 "$(link_count)"
check "links name the mrc tracepoints" eval \
	'bpftool link show | grep -q "tp .mrc_pkt_sent."'
check "the attached programs pin mrc.ko (rmmod refused)" eval '! rmmod mrc 2>/dev/null'
run_rc 4 "BPF needs root" "reading without privileges" \
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$S" -j

# --- several readers ----------------------------------------------------
"$S" events -j -t 4 >"$out/ev1" 2>"$out/ev1.err" &
evpid=$!
sleep 1
"$S" -j >"$out/r1" 2>&1 &
p1=$!
"$S" -j >"$out/r2" 2>&1 &
p2=$!
"$S" show -c 2 -i 0.2 --no-color >"$out/r3" 2>&1 &
p3=$!
wait $p1; r1=$?
wait $p2; r2=$?
wait $p3; r3=$?
expect_eq "reader 1 (-j) while events streams" 0 "$r1"
expect_eq "reader 2 (-j) at the same time" 0 "$r2"
expect_eq "reader 3 (show -c 2) at the same time" 0 "$r3"
check "reader 1 got a JSON snapshot" grep -q '^{"version":1,"time_ns":' "$out/r1"
check "reader 2 got a JSON snapshot" grep -q '^{"version":1,"time_ns":' "$out/r2"
strip() { sed 's/"time_ns":[0-9]*//' "$1"; }
expect_eq "both readers see the same maps" "$(strip "$out/r1")" "$(strip "$out/r2")"
check "show prints the plane table" grep -q 'PLANE' "$out/r3"
run_rc 1 "one consumer at a time" "second event consumer refused" "$S" events -t 1
wait $evpid
expect_eq "event stream ends after -t" 0 "$?"
check "map ids the same through both pins" eval \
	'[ "$(bpftool map show pinned $PIN/mrc_ev | cut -d: -f1)" = \
	   "$(bpftool map show pinned $PIN/mrc_ev | cut -d: -f1)" ]'

# --- agreement: BPF telemetry == the module's own counters --------------
# Two namespaces over a veth pair, mrcstat attached before the connections
# exist. Each side prints its MRC_INFO once all it sent is acknowledged
# (mrc_xfer --info-json) and keeps the connection open (--hold) until the
# figures of both sources were read: nothing is in flight then, so the
# counters are final and must be equal, not close.
M=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
netns_add mrct-a && netns_add mrct-b || exit $ksft_fail
ip link add name mrct0 netns mrct-a type veth peer name mrct1 netns mrct-b
ip -n mrct-a addr add fd00:6d72:7::1/64 dev mrct0 nodad
ip -n mrct-b addr add fd00:6d72:7::2/64 dev mrct1 nodad
ip -n mrct-a link set dev mrct0 up
ip -n mrct-b link set dev mrct1 up
"$S" events -j -t 600 >"$out/events" 2>"$out/events.err" &
evpid=$!
"$M" -n mrct-a -j monitor >"$out/nlmon" 2>&1 &
nlmonpid=$!
sleep 0.5

# conn_field FILE QPN FIELD: a connection total of "mrcstat -j" (the fields
# before the connection's "evs" array)
conn_field() {
	sed 's/"qpn":/\n"qpn":/g' "$1" | grep "^\"qpn\":$2," | sed 's/"evs".*//' |
		sed -nE "s/.*\"$3\":([0-9]+).*/\1/p"
}
# info_field FILE FIELD: from the "info {...}" line of mrc_xfer --info-json
info_field() { sed -nE "s/^info .*\"$2\":([0-9]+).*/\1/p" "$1"; }
# lossy_evs FILE [timeouts]: indexes of the EVs with timeouts or losses found
# before their timeout (with "timeouts": with timeouts only) (mrcctl -j
# path show)
lossy_evs() {
	sed 's/{"index":/\n/g' "$1" |
		sed -nE 's/^([0-9]+),.*"timeouts":([0-9]+),.*"losses":([0-9]+)[,}].*/\1 \2 \3/p' |
		awk "\$2 + \$3 > 0 ${2:+&& \$2 > 0} { print \$1 }" | sort -n | uniq | tr '\n' ' '
}
# not_in "A" "B": the words of A that are not in B
not_in() {
	local w out=
	for w in $1; do
		[[ " $2 " == *" $w "* ]] || out+="$w "
	done
	echo "$out"
}
# event_evs QPN FILTER: indexes of the EVs of ev_state events matching FILTER
event_evs() {
	grep '"type":"ev_state"' "$out/events" | grep "\"qpn\":$1," | grep -E "$2" |
		sed -nE 's/.*"index":([0-9]+),.*/\1/p' | sort -n | uniq | tr '\n' ' '
}

# agree NAME PORT N MAX LOSS_SECONDS
agree() {
	local name=$1 port=$2 n=$3 max=$4 loss=$5 spid cpid side q ns i
	rm -f "$out/$name.go"
	ip netns exec mrct-b ./mrc_xfer -l -p "$port" -n "$n" -M "$max" -s 1 --info-json \
		--hold "$out/$name.go" >"$out/$name.srv" 2>"$out/$name.srv.err" &
	spid=$!
	sleep 0.5
	ip netns exec mrct-a ./mrc_xfer -c fd00:6d72:7::2 -p "$port" -n "$n" -M "$max" -s 2 \
		--info-json --hold "$out/$name.go" >"$out/$name.cli" 2>"$out/$name.cli.err" &
	cpid=$!
	if [ "$loss" != 0 ]; then
		# A failed link: everything a -> b is lost for a while, from the
		# moment the connection carries data.
		for i in $(seq 1 100); do
			"$M" -n mrct-a -j conn show | grep -q '"tx_pkts":[1-9]' && break
			sleep 0.05
		done
		tc -n mrct-a qdisc add dev mrct0 root netem loss 100%
		sleep "$loss"
		tc -n mrct-a qdisc del dev mrct0 root
	fi
	for i in $(seq 1 1200); do
		grep -q '^info ' "$out/$name.srv" && grep -q '^info ' "$out/$name.cli" && break
		kill -0 $spid 2>/dev/null || kill -0 $cpid 2>/dev/null || break
		sleep 0.1
	done
	# Quiet point: both connections open, nothing of theirs in flight.
	"$S" -j >"$out/$name.snap"
	"$M" -n mrct-a -j path show qpn "$(info_field "$out/$name.cli" qpn)" >"$out/$name.cli.path"
	"$M" -n mrct-b -j path show qpn "$(info_field "$out/$name.srv" qpn)" >"$out/$name.srv.path"
	touch "$out/$name.go"
	wait $cpid
	check "$name: client exit ($(head -c 200 "$out/$name.cli.err"))" [ $? = 0 ]
	wait $spid
	check "$name: server exit ($(head -c 200 "$out/$name.srv.err"))" [ $? = 0 ]
	expect_eq "$name: client->server digest" \
		"$(awk '$1 == "tx" { print $2, $3 }' "$out/$name.cli")" \
		"$(awk '$1 == "rx" { print $2, $3 }' "$out/$name.srv")"
	for side in cli srv; do
		q=$(info_field "$out/$name.$side" qpn)
		check "$name $side: MRC_INFO printed (qpn $q)" [ -n "$q" ]
		[ -n "$q" ] || continue
		expect_eq "$name $side: data packets (mrcstat = MRC_INFO)" \
			"$(info_field "$out/$name.$side" tx_pkts)" "$(conn_field "$out/$name.snap" "$q" pkts)"
		expect_eq "$name $side: data bytes" \
			"$(info_field "$out/$name.$side" tx_bytes)" "$(conn_field "$out/$name.snap" "$q" bytes)"
		expect_eq "$name $side: retransmits" \
			"$(info_field "$out/$name.$side" retransmits)" "$(conn_field "$out/$name.snap" "$q" rtx)"
		expect_eq "$name $side: timeouts" \
			"$(info_field "$out/$name.$side" timeouts)" \
			"$(conn_field "$out/$name.snap" "$q" timeouts)"
		expect_eq "$name $side: timeouts (conn dump = MRC_INFO)" \
			"$(info_field "$out/$name.$side" timeouts)" \
			"$(sed -nE 's/.*"retransmits":[0-9]+,"timeouts":([0-9]+),.*/\1/p' \
				"$out/$name.$side.path")"
		expect_eq "$name $side: no engine event lost" 0 \
			"$(sed -nE 's/.*"events_dropped":([0-9]+),.*/\1/p' "$out/$name.$side.path")"
	done
	expect_eq "$name: no telemetry event lost" 0 \
		"$(sed -nE 's/.*"ringbuf_drops":([0-9]+),.*/\1/p' "$out/$name.snap")"
}

agree clean 7100 200 100000 0
agree linkfail 7101 400 100000 0.3
check "linkfail: the link failure caused timeouts" \
	[ "$(info_field "$out/linkfail.cli" timeouts)" -gt 0 ]
sleep 0.5
kill -INT $evpid $nlmonpid 2>/dev/null
wait $evpid $nlmonpid
q=$(info_field "$out/linkfail.cli" qpn)
lossy=$(lossy_evs "$out/linkfail.cli.path")
timed=$(lossy_evs "$out/linkfail.cli.path" timeouts)
bad=$(event_evs "$q" '"new":"assumed_bad"')
held=$(event_evs "$q" '"new":"assumed_bad"|"cause":"floor_hold"')
check "linkfail: assumed_bad events ($bad)" [ -n "$bad" ]
expect_eq "linkfail: every assumed_bad event is caused by a timeout or a loss" 0 \
	"$(grep '"type":"ev_state"' "$out/events" | grep "\"qpn\":$q," |
		grep '"new":"assumed_bad"' | grep -vcE '"cause":"(timeout|loss)"')"
# A timeout demotes its EV, and so does a second loss found before its
# timeout within 4 RTTs (packets sent later delivered, e.g. retransmissions
# once the link is back; one loss is random and leaves the EV in use),
# unless that would take the connection below ev_min_active (then a
# floor_hold event names it). So: EVs that timed out <= EVs with those
# events <= EVs the dump says lost packets.
expect_eq "linkfail: every EV that timed out has an assumed_bad (or floor_hold) event" \
	"" "$(not_in "$timed" "$held")"
expect_eq "linkfail: every EV with such an event lost packets (dump)" \
	"" "$(not_in "$held" "$lossy")"
check "linkfail: EVs that timed out ($timed)" [ -n "$timed" ]
check "linkfail: netlink path-change events report assumed_bad EVs" eval \
	"grep '^{\"event\":\"path-change\",\"qpn\":$q,' '$out/nlmon' | grep -q '\"state\":\"assumed_bad\"'"
check "netlink conn-up/conn-down events for the connection" eval \
	"grep -q '^{\"event\":\"conn-up\",\"qpn\":$q,' '$out/nlmon' &&
	 grep -q '^{\"event\":\"conn-down\",\"qpn\":$q,' '$out/nlmon'"
# Namespaces are shown by their ip netns names, not inode numbers.
check "the snapshot names the client's namespace" grep -q '"netns_name":"mrct-a","qpn"' \
	"$out/clean.snap"
check "and the server's" grep -q '"netns_name":"mrct-b","qpn"' "$out/clean.snap"
check "the text view too" eval '"$S" show -c 1 --no-color | grep -q "^conn netns mrct-a qpn"'
# Under ip netns exec the pins are hidden (a fresh /sys): said as such.
run_rc 4 "ip netns exec mounts a fresh /sys" "mrcstat under ip netns exec" \
	ip netns exec mrct-a "$S" -j
mrc_cleanup

# --- detach -------------------------------------------------------------
check "detach" "$S" detach
check "pin directory removed" test ! -e "$PIN"
for _ in $(seq 1 50); do
	[ "$(prog_count)" = 0 ] && [ "$(link_count)" = 0 ] && break
	sleep 0.1
done
expect_eq "no mrc_tel program left (bpftool prog show)" 0 "$(prog_count)"
expect_eq "no raw_tracepoint link left (bpftool link show)" 0 "$(link_count)"
run_rc 5 "run mrcstat attach" "show after detach" "$S" -j

# --- module not loaded --------------------------------------------------
check "rmmod after detach" rmmod mrc
run_rc 3 "module is not loaded" "attach without mrc.ko" "$S" attach
check "nothing pinned by a failed attach" test ! -e "$PIN"
check "insmod again" mrc_insmod

finish
