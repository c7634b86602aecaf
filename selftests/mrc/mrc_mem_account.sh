#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Memory accounting: the message memory of AF_MRC sockets is charged like
# TCP's and UDP's socket memory.
#  - Three unprivileged connection pairs in a memory cgroup whose servers
#    stop reading until the readings below are taken (a go-file, at most
#    60 s: mrc_xfer --stall) pin their buffers; the cgroup's "sock" memory
#    (memory.stat) and the protocol's page count (MemPages in
#    /proc/net/mrc) show it, the one within 10 % of the other; how much
#    they pin after 3.5 s is logged against what the buffers hold once
#    full (each socket SO_RCVBUF + SO_SNDBUF; net.mrc.rmem and wmem set so
#    that new sockets start at 8 and 4 MiB: a reader that never reads
#    would not let its buffer grow from the 128 KiB default), and judged
#    against what the code lets a socket pin beyond them (one message
#    more each way, its kept pages; issue 49). Per connection (the
#    connection dump, "mrcctl -j conn show": MRC_INFO's memory fields), a
#    stalled server holds what it received, within SO_RCVBUF and one
#    message, each of the six pins whole pages within the issue's bound,
#    2 x (SO_RCVBUF + SO_SNDBUF) + 256 KiB, and the six together pin what
#    MemPages counts. Once the readers resume, every transfer completes
#    intact, and after close both return to zero (no charge leaks).
#  - With a global limit of 8 MiB (net.mrc.mem), a stalled pair stays
#    within it (plus the per-CPU reserves of the core's accounting),
#    refusals are counted, and the transfer completes intact when the
#    reader resumes.
#  - Above net.mrc.mem[0] a socket keeps none of its completed messages'
#    pages for its next ones (TxPagesReused unchanged over a transfer);
#    below it, the same transfer reuses them; every charge is given back.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

M=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}

out=$(mktemp -d)
# The stalled servers run as nobody and look for the go-file in here.
chmod 755 "$out"
go=$out/go
cg=/sys/fs/cgroup
grp=$cg/mrcmem
mounted=0
mem_saved=$(sysctl -n net.mrc.mem 2>/dev/null)
rmem_saved=$(sysctl -n net.mrc.rmem 2>/dev/null)
wmem_saved=$(sysctl -n net.mrc.wmem 2>/dev/null)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -x "$M" ] || { log "mrcctl not built at $M (make userspace)"; exit $ksft_fail; }
command -v jq >/dev/null || { log "jq missing"; exit $ksft_fail; }
[ -n "$mem_saved" ] || { log "net.mrc.mem missing"; exit $ksft_fail; }
[ -n "$rmem_saved" ] && [ -n "$wmem_saved" ] ||
	{ log "net.mrc.rmem or wmem missing"; exit $ksft_fail; }

cleanup() {
	pkill -f "mrc_xfer .*-p 75" 2>/dev/null
	sysctl -q -w net.mrc.mem="$mem_saved"
	sysctl -q -w net.mrc.rmem="$rmem_saved"
	sysctl -q -w net.mrc.wmem="$wmem_saved"
	[ -d "$grp" ] && rmdir "$grp" 2>/dev/null
	((mounted)) && umount "$cg"
	rm -rf "$out"
	mrc_cleanup
}
trap cleanup EXIT

if ! awk -v m="$cg" '$2 == m && $3 == "cgroup2" { f = 1 } END { exit !f }' /proc/mounts; then
	mount -t cgroup2 none "$cg" || { log "cannot mount cgroup2"; exit $ksft_fail; }
	mounted=1
fi
echo +memory >"$cg/cgroup.subtree_control" || exit $ksft_fail
mkdir -p "$grp" || exit $ksft_fail

veth_pair mmA mma0 fd00:3e::2/64 mmB mmb0 fd00:3e::1/64 || exit $ksft_fail

sock_bytes() { awk '$1 == "sock" { print $2 }' "$grp/memory.stat"; }
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)

# pair NAME PORT N MAX STALL NS_PREFIX...: a server that stalls (STALL:
# MS, or MS:FILE for at most MS ms until FILE exists) and its client (N
# messages of up to MAX bytes each way), in the background; pids in
# $out/NAME.pids
pair() {
	local name=$1 port=$2 n=$3 max=$4 stall=$5
	shift 5
	"$@" ip netns exec mmB "${nobody[@]}" ./mrc_xfer -l -p "$port" -n "$n" \
		-M "$max" -s 1 --stall "0:$stall" >"$out/$name.srv" 2>"$out/$name.srv.err" &
	echo $! >"$out/$name.pids"
	sleep 0.3
	"$@" ip netns exec mmA "${nobody[@]}" timeout 120 ./mrc_xfer -c fd00:3e::1 \
		-p "$port" -n "$n" -M "$max" -s 2 >"$out/$name.cli" 2>"$out/$name.cli.err" &
	echo $! >>"$out/$name.pids"
}

# finish_pair NAME: wait for both ends, compare digests
finish_pair() {
	local name=$1 pid rc=0
	for pid in $(cat "$out/$name.pids"); do
		wait "$pid" || rc=1
	done
	check "$name: both ends exit 0 ($(cat "$out/$name.cli.err" "$out/$name.srv.err"))" \
		[ "$rc" = 0 ]
	expect_digests "$name" "$out/$name.cli" "$out/$name.srv"
}

# in_cgroup CMD...: run CMD inside $grp
in_cgroup() { sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$grp" "$@"; }

# wait_pages_zero: MemPages back to 0 (orphans linger up to 2 s)
wait_pages_zero() {
	local i
	for i in $(seq 50); do
		[ "$(proc_counter MemPages)" = 0 ] && return 0
		sleep 0.2
	done
	return 1
}

# --- memory cgroup ---------------------------------------------------------
sysctl -q -w net.mrc.rmem="65536 8388608 8388608" || exit $ksft_fail
sysctl -q -w net.mrc.wmem="65536 4194304 4194304" || exit $ksft_fail
# Nothing of an earlier test still charged (orphans linger up to 2 s): the
# per-connection figures below must add up to MemPages.
check "no AF_MRC memory charged before the pairs start" wait_pages_zero
s0=$(sock_bytes)
for i in 1 2 3; do
	pair cg$i $((7500 + i)) 60 4194304 "60000:$go" in_cgroup
done
sleep 3.5
# Both figures still move while the buffers fill and refused packets are
# freed (a slow guest is still filling at 3.5 s: 44-46 MiB instead of 36,
# and readings tens of milliseconds apart then differed by 6-23 % with the
# module of the day before as with this one): read them back to back until
# two readings agree, at most 10 times within the stall. A cgroup that
# is not charged (sock 0, or far below) never agrees; the checks below
# judge the figures themselves.
# charged_as_counted: sock ($s, bytes) within 10 % of MemPages ($p, pages)
charged_as_counted() { [ "$((s * 10 >= p * 4096 * 9 && s * 10 <= p * 4096 * 11))" = 1 ]; }
for i in $(seq 10); do
	s=$(sock_bytes) p=$(proc_counter MemPages)
	charged_as_counted && break
	sleep 0.2
done
log "during the stall: cgroup sock $((s / 1048576)) MiB (before: $s0 B)," \
	"MemPages $p ($((p * 4096 / 1048576)) MiB), reading $i"
# How far the buffers fill in 3.5 s is the guest's speed, and nothing in
# the code bounds it from below: the clients' sendmsg() copies and the
# guest's transmit path fill them, at whatever rate it runs (Debian's
# kernels: 67-68 MiB; the debug kernel's guest: 13 MiB). It is logged
# against the 72 MiB the six sockets' buffers hold once full, measured,
# not judged from below; until issue 52 it was judged, at least 18 MiB
# (check_timed). (36 MiB, once written here, counted the stalled
# direction only, 3 x (8 + 4) MiB: the servers' own sends pin about as
# much again.) That the cgroup is charged what the protocol
# counts is judged on every kernel: one call charges both the same pages
# (__sk_mem_raise_allocated(): sk_memory_allocated_add() and
# mem_cgroup_charge_skmem()), one gives them back
# (__sk_mem_reduce_allocated()), and only the cgroup's lazily flushed
# statistics and the time between two readings, which the loop above
# waits out, set them apart. The 1 MiB floor only makes that comparison
# weigh something: with nothing pinned an uncharged cgroup agrees too.
log "the buffers pin $((p * 4096 / 1048576)) MiB (MemPages), the cgroup's sock" \
	"$((s / 1048576)) MiB, of the 72 MiB the six sockets' buffers hold full (measured)"
check "the buffers pin memory ($((p * 4096)) B >= 1 MiB)" [ "$((p * 4096))" -ge $((1 << 20)) ]
# What the code bounds (issue 49): the stalled servers still send (only
# their reading stops), so each of the six sockets holds up to its
# SO_RCVBUF and its SO_SNDBUF (8 and 4 MiB here; they cannot grow past
# net.mrc.rmem[2] and wmem[2]), where a message is charged whole: a send
# queue takes one more message while it holds less than SO_SNDBUF
# (mrc_can_send()), a receiver one more in-order message while nothing
# delivered waits (mrc_conn_rx.c), each up to 4 MiB here; beside them
# the kept pages and the page-frag ring (MRC_TX_PAGE_CACHE and
# MRC_TX_FRAGS pages: 384 KiB a socket); and the per-CPU reserves the
# core folds in lazily (256 pages a CPU). Pinned beyond that is a charge
# that escaped its buffer. 6.12 pinned 72.8 MB against a bound of 130.3;
# seen failing with the bound of one socket (23.5 MB).
cap=$((6 * ((8 + 4 + 2 * 4) * 1048576 + 384 * 1024) + 256 * 4096 * $(nproc)))
check "the six sockets pin no more than their buffers allow ($((p * 4096)) <= $cap B)" \
	[ "$((p * 4096))" -le "$cap" ]
check "the cgroup is charged what MemPages counts (sock $s B, MemPages $((p * 4096)) B, within 10 %)" \
	charged_as_counted

# What each connection pins, still within the stall (the servers read
# again only once $go exists, created after these readings: a fixed 9 s
# stall ran out before them in a guest on a loaded host): the
# connection dump of both namespaces ("mrcctl -j conn show": the three
# stalled servers in mmB, their clients in mmA), each connection one
# snapshot taken under its lock (mrc_mem_get_stats(), the memory fields
# of MRC_INFO version 8; Documentation/networking/mrc-socket.rst):
#  - a stalled server holds what it received (rmem_alloc > 0), within
#    SO_RCVBUF and the one message in order beyond it (mrc_conn_rx.c: up
#    to 4 MiB here, charged its pages plus 8 bytes a page of bookkeeping,
#    under 64 KiB), so within the issue's bound too;
#  - what each of the six pins, mem_charged + fwd_alloc, is a whole number
#    of pages (charges and sk_forward_alloc move under the connection
#    lock, the reserve by whole pages of the protocol's count) and within
#    the issue's bound, 2 x (SO_RCVBUF + SO_SNDBUF) + 256 KiB (what the
#    code allows, SO_RCVBUF + SO_SNDBUF + two 4 MiB messages + 388 KiB,
#    is 4 MiB lower here);
#  - the six together pin what MemPages counts: no other AF_MRC socket
#    holds a charge (the listeners closed at accept() and never had one),
#    and MemPages is the protocol's count with the per-CPU parts folded in
#    (mrc_mem_pages()), so in one instant they would be equal. The dumps
#    and the proc file are three readings, not one instant: in between a
#    socket that sends without a message being admitted, read or
#    acknowledged (the clients' probes to a full receiver) can still
#    charge and give back its frag ring and kept pages, MRC_TX_FRAGS +
#    MRC_TX_PAGE_CACHE = 96 pages. So they must agree within 6 x 96 pages;
#    read until they do, at most 10 times (a slow guest may still be
#    filling the buffers, messages of 4 MiB being admitted).
# conn_mem NS: one line per connection of NS: rmem_alloc mem_charged
# fwd_alloc rcvbuf sndbuf
conn_mem() {
	"$M" -n "$1" -j conn show |
		jq -r '.[] | [.rmem_alloc, .mem_charged, .fwd_alloc, .rcvbuf, .sndbuf] | @tsv'
}
tol=$((6 * 96 * 4096))
for i in $(seq 10); do
	conn_mem mmB >"$out/mem.srv"
	conn_mem mmA >"$out/mem.cli"
	p=$(proc_counter MemPages)
	pinned=$(awk '{ s += $2 + $3 } END { printf "%.0f\n", s }' "$out/mem.srv" "$out/mem.cli")
	off=$((pinned - p * 4096))
	((off < 0)) && off=$((-off))
	((off <= tol)) && break
	sleep 0.1
done
log "per connection (rmem_alloc mem_charged fwd_alloc rcvbuf sndbuf), reading $i:" \
	"servers $(tr '\t\n' ' ;' <"$out/mem.srv") clients $(tr '\t\n' ' ;' <"$out/mem.cli")"
check "read while every server still stalls (no \"stall end\" yet)" \
	[ -z "$(grep -h 'stall end' "$out"/cg[123].srv.err)" ]
expect_eq "the connection dump lists the three stalled servers" 3 "$(wc -l <"$out/mem.srv")"
expect_eq "the connection dump lists their three clients" 3 "$(wc -l <"$out/mem.cli")"
check "the six connections pin what MemPages counts ($pinned B, MemPages $((p * 4096)) B, within $tol B)" \
	[ "$off" -le "$tol" ]
i=0
while read -r rmem charged fwd rcvbuf sndbuf; do
	i=$((i + 1))
	check "server $i holds what it received (rmem_alloc $rmem B > 0)" [ "$rmem" -gt 0 ]
	check "server $i: rmem_alloc within SO_RCVBUF and one message ($rmem <= $rcvbuf + 4 MiB + 64 KiB)" \
		[ "$rmem" -le $((rcvbuf + (4 << 20) + (64 << 10))) ]
	check "server $i: rmem_alloc within the issue's bound ($rmem <= 2 x ($rcvbuf + $sndbuf) + 256 KiB)" \
		[ "$rmem" -le $((2 * (rcvbuf + sndbuf) + (256 << 10))) ]
done <"$out/mem.srv"
touch "$go"
i=0
while read -r rmem charged fwd rcvbuf sndbuf; do
	i=$((i + 1))
	check "connection $i pins whole pages ($charged + $fwd B)" \
		[ $(((charged + fwd) % 4096)) = 0 ]
	check "connection $i pins within the issue's bound ($charged + $fwd <= 2 x ($rcvbuf + $sndbuf) + 256 KiB)" \
		[ $((charged + fwd)) -le $((2 * (rcvbuf + sndbuf) + (256 << 10))) ]
done < <(cat "$out/mem.srv" "$out/mem.cli")
for i in 1 2 3; do
	finish_pair cg$i
done
check "all charges given back (MemPages $(proc_counter MemPages))" wait_pages_zero
s=$(sock_bytes)
check "the cgroup's sock memory is back to 0 ($s)" [ "$s" = 0 ]

# --- global limit ----------------------------------------------------------
# 8 MiB, both ends of a stalled pair on this one host wanting ~12 MiB
# (SO_RCVBUF + SO_SNDBUF); messages up to 1 MiB (a message is buffered
# whole at the receiver: one larger than what the limit leaves could never
# be admitted). One pair only: connections competing for memory at the
# hard limit are not served fairly (see Documentation/admin-guide/mrc.rst).
sysctl -q -w net.mrc.mem="1024 1536 2048" || exit $ksft_fail
t0=$(proc_counter TxMemLimit mmA) r0=$(proc_counter RxMemLimit mmB)
pair lim 7510 200 1048576 6000
max=0
for i in $(seq 30); do
	p=$(proc_counter MemPages)
	((p > max)) && max=$p
	sleep 0.15
done
# The core folds per-CPU reserves of up to 256 pages into the global count
# lazily; the limit holds within them.
slack=$((256 * $(nproc)))
log "limit 2048 pages: at most $max pages charged during the stall (slack $slack)"
check "charges stay within the limit ($max <= 2048 + $slack)" [ "$max" -le $((2048 + slack)) ]
check "the limit was reached ($max >= 1536)" [ "$max" -ge 1536 ]
refused=$(($(proc_counter TxMemLimit mmA) - t0 + $(proc_counter RxMemLimit mmB) - r0))
check "refusals counted (TxMemLimit + RxMemLimit: $refused)" [ "$refused" -ge 1 ]
finish_pair lim
sysctl -q -w net.mrc.mem="$mem_saved"
check "all charges given back (MemPages $(proc_counter MemPages))" wait_pages_zero

# --- sent pages kept, but not under pressure ---------------------------------
# reuse NAME PORT: one transfer (60 messages of up to 1 MiB each way, no
# stall); sets $reused to the pages mmA's messages took from their socket's
# cache of completed messages' pages (TxPagesReused)
reuse() {
	local u0 rc spid src
	u0=$(proc_counter TxPagesReused mmA)
	ip netns exec mmB ./mrc_xfer -l -p "$2" -n 60 -M 1048576 -s 5 \
		>"$out/$1.srv" 2>"$out/$1.srv.err" &
	spid=$!
	sleep 0.3
	ip netns exec mmA timeout 120 ./mrc_xfer -c fd00:3e::1 -p "$2" -n 60 -M 1048576 -s 6 \
		>"$out/$1.cli" 2>"$out/$1.cli.err"
	rc=$?
	wait "$spid"
	src=$?
	check "$1: both ends exit 0 ($(cat "$out/$1.cli.err" "$out/$1.srv.err"))" \
		[ "$rc" = 0 -a "$src" = 0 ]
	expect_digests "$1" "$out/$1.cli" "$out/$1.srv"
	reused=$(($(proc_counter TxPagesReused mmA) - u0))
}
# Above net.mrc.mem[0] (here one page) a socket gives its completed
# messages' pages back instead of keeping them (mrc_mem.c). The protocol's
# count, as the core keeps it, lags by the per-CPU reserves (up to 1 MiB
# per CPU, folded in lazily), so the buffers are large enough (4 MiB
# queued) to lift it past them, and the first completions of the transfer
# may still keep pages: most must not.
sysctl -q -w net.mrc.wmem="4194304 4194304 4194304" || exit $ksft_fail
sysctl -q -w net.mrc.mem="1 1048576 1048576" || exit $ksft_fail
reuse pressure 7520
under=$reused
sysctl -q -w net.mrc.mem="$mem_saved"
reuse nopressure 7521
sysctl -q -w net.mrc.wmem="$wmem_saved"
log "pages reused: $under above net.mrc.mem[0], $reused below"
check "without pressure pages are kept and reused ($reused TxPagesReused)" [ "$reused" -gt 0 ]
check "above net.mrc.mem[0] at most a quarter as many ($under x 4 <= $reused)" \
	[ "$((under * 4))" -le "$reused" ]
check "all charges given back (MemPages $(proc_counter MemPages))" wait_pages_zero

finish
