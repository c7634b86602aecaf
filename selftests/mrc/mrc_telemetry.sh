#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Telemetry plumbing: mrcstat attach loads the BPF programs, attaches them
# to the mrc:* tracepoints and pins maps and links under /sys/fs/bpf/mrc;
# the pinned maps are shared by several readers at once (one event-stream
# consumer at a time); detach leaves no program or link behind (bpftool)
# and the module can be removed again; every error names its cause and has
# its own exit status (3 module not loaded, 4 BPF not permitted, 5 not
# attached).
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

S=${MRCSTAT:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcstat/mrcstat}
[ -x "$S" ] || { log "mrcstat not built at $S (make userspace)"; exit $ksft_skip; }
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
check "insmod again" insmod "$MRC_KO"

finish
