#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# AF_MRC state is per network namespace: the same service id binds in every
# namespace at once, each namespace's /proc/net/mrc counts only its own
# sockets, a namespace deleted while a socket still lives in it is torn down
# cleanly when that socket closes, and unprivileged users may create sockets.
source ./mrc_lib.sh

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
holders=()
pids=()
stop_holders() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	pids=()
}
trap 'stop_holders; mrc_cleanup' EXIT
for i in 1 2 3 4; do
	netns_add "mrcns$i"
	exec {fd}< <(exec ip netns exec "mrcns$i" ./mrc_sock_helper hold 4791)
	pids+=($!)
	read -r -t 10 ready <&$fd
	expect_eq "bind 4791 in mrcns$i" "ready 4791" "$ready"
	holders+=("$fd")
done

for i in 1 2 3 4; do
	expect_eq "mrcns$i counts one socket" 1 "$(proc_counter Sockets mrcns$i)"
	expect_eq "mrcns$i counts one bound socket" 1 "$(proc_counter Bound mrcns$i)"
done
expect_eq "second bind of 4791 in mrcns1" "error EADDRINUSE" \
	"$(ip netns exec mrcns1 ./mrc_sock_helper bind 4791)"
expect_eq "mrcns1 counted the conflict" 1 "$(proc_counter BindAddrInUse mrcns1)"
expect_eq "mrcns2 saw no conflict" 0 "$(proc_counter BindAddrInUse mrcns2)"
expect_eq "4791 is free in the initial namespace" "bound 4791" "$(./mrc_sock_helper bind 4791)"

# Addresses are per namespace too: ::1 exists in each, 2001:db8::2 only in mrcns2.
ip -n mrcns2 addr add 2001:db8::2/64 dev lo nodad
expect_eq "bind to an address of mrcns2" "bound 5000" \
	"$(ip netns exec mrcns2 ./mrc_sock_helper bind 5000 2001:db8::2)"
expect_eq "that address is not local in mrcns3" "error EADDRNOTAVAIL" \
	"$(ip netns exec mrcns3 ./mrc_sock_helper bind 5000 2001:db8::2)"

# Delete a namespace whose socket is still open: it must survive until the
# socket closes, then go away through the pernet exit without a warning.
ip netns del mrcns4
stop_holders
for fd in "${holders[@]}"; do exec {fd}<&-; done
sleep 1
for i in 1 2 3; do
	expect_eq "mrcns$i has no socket left" 0 "$(proc_counter Sockets mrcns$i)"
	expect_eq "mrcns$i has nothing bound" 0 "$(proc_counter Bound mrcns$i)"
done

# Unprivileged users create and bind sockets like with any transport.
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups ./mrc_sock_helper bind 0)
check "unprivileged socket+bind ($out)" test "${out%% *}" = bound
finish
