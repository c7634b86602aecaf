#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrc.ko and rdma_rxe on one host. Both speak UDP port 4791; rdma_rxe (Linux
# 6.1) binds it in the initial namespace when it loads. mrc.ko binds its
# port only on a namespace's first connect()/listen(), to the namespace's
# net.mrc.udp_port, so:
#  - a freshly loaded mrc.ko holds no UDP port and rdma_rxe loads beside it
#    and creates a link;
#  - MRC works between two other namespaces meanwhile;
#  - MRC in the initial namespace fails clearly (EADDRINUSE) on 4791 and
#    works on another port (net.mrc.udp_port=4792, both ends here), which
#    is fixed once bound (EBUSY);
#  - udp_eager=1 restores binding at namespace creation.
cd "$(dirname "$0")" || exit 1
. ./mrc_lib.sh

out=$(mktemp -d)

mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
command -v rdma >/dev/null || { log "rdma (iproute2) missing"; exit $ksft_fail; }

cleanup() {
	rdma link del mrcrxe0 2>/dev/null
	ip link del rxev0 2>/dev/null
	rmmod rdma_rxe 2>/dev/null
	rm -rf "$out"
	mrc_cleanup
	# Leave the module as the rig loaded it (its parameters, MRC_KO_PARAMS).
	if ! grep -q '^UdpPort 4791$' /proc/net/mrc 2>/dev/null ||
	   [ "$(cat /sys/module/mrc/parameters/udp_eager 2>/dev/null)" != N ]; then
		rmmod mrc 2>/dev/null
		mrc_insmod
	fi
}
trap cleanup EXIT

# udp6_bound PORT [NETNS]: a UDP socket of the namespace is bound to PORT
udp6_bound() {
	local hex cmd=(cat /proc/net/udp6)
	hex=$(printf ':%04X' "$1")
	[ -n "${2:-}" ] && cmd=(ip netns exec "$2" "${cmd[@]}")
	"${cmd[@]}" | awk -v p="$hex" 'substr($2, length($2) - 4) == p { f = 1 } END { exit !f }'
}

# xfer NAME NS_SRV NS_CLI ADDR PORT: 20 messages each way, digests compared
# (NS "-" = the initial namespace).
xfer() {
	local name=$1 sns=$2 cns=$3 addr=$4 port=$5 rc src
	local sx=() cx=()
	[ "$sns" != - ] && sx=(ip netns exec "$sns")
	[ "$cns" != - ] && cx=(ip netns exec "$cns")
	"${sx[@]}" ./mrc_xfer -l -p "$port" -n 20 -M 65536 -s 1 >"$out/$name.srv" 2>&1 &
	local spid=$!
	sleep 0.3
	"${cx[@]}" timeout 60 ./mrc_xfer -c "$addr" -p "$port" -n 20 -M 65536 -s 2 \
		>"$out/$name.cli" 2>&1
	rc=$?
	# A client that failed leaves the server waiting for it.
	[ "$rc" != 0 ] && kill "$spid" 2>/dev/null
	wait "$spid"
	src=$?
	check "$name: client exit ($(grep -v '^[tr][xa]' "$out/$name.cli"))" [ "$rc" = 0 ]
	check "$name: server exit ($(grep -v '^[tr][xa]' "$out/$name.srv"))" [ "$src" = 0 ]
	expect_digests "$name" "$out/$name.cli" "$out/$name.srv"
}

# A fresh module: whatever earlier tests did in this namespace is gone.
rmmod mrc && mrc_insmod || { log "cannot reload mrc.ko"; exit $ksft_fail; }
expect_eq "no UDP socket before any MRC socket (UdpBound)" 0 "$(proc_counter UdpBound)"
expect_eq "default port (UdpPort)" 4791 "$(proc_counter UdpPort)"
check "UDP 4791 free in the initial namespace" eval '! udp6_bound 4791'

check "rdma_rxe loads beside mrc.ko" modprobe rdma_rxe
check "rdma_rxe holds UDP 4791" udp6_bound 4791
ip link add rxev0 type veth peer name rxev1 && ip link set rxev0 up &&
	ip link set rxev1 up || exit $ksft_fail
check "rdma link add mrcrxe0 type rxe netdev rxev0" \
	rdma link add mrcrxe0 type rxe netdev rxev0
check "rdma link show lists mrcrxe0" grep -q mrcrxe0 <<<"$(rdma link show)"

veth_pair rxA rxa0 fd00:7e::2/64 rxB rxb0 fd00:7e::1/64 || exit $ksft_fail
xfer netns rxB rxA fd00:7e::1 7300
check "the server's namespace bound 4791" udp6_bound 4791 rxB
expect_eq "its UdpBound" 1 "$(proc_counter UdpBound rxB)"

err=$(./mrc_xfer -l -p 7301 -n 1 2>&1)
check "listen in the initial namespace: EADDRINUSE ($err)" \
	grep -q "Address already in use" <<<"$err"
expect_eq "still no MRC UDP socket there" 0 "$(proc_counter UdpBound)"

check "net.mrc.udp_port=4792" sysctl -q -w net.mrc.udp_port=4792
xfer init - - ::1 7302
check "MRC bound UDP 4792 in the initial namespace" udp6_bound 4792
expect_eq "UdpPort" 4792 "$(proc_counter UdpPort)"
err=$(sysctl -w net.mrc.udp_port=4793 2>&1)
check "the port is fixed once bound: EBUSY ($err)" \
	grep -q "Device or resource busy" <<<"$err"
expect_eq "UdpPort unchanged" 4792 "$(proc_counter UdpPort)"
check "rdma_rxe's link is still there" grep -q mrcrxe0 <<<"$(rdma link show)"
check "rdma_rxe still holds 4791" udp6_bound 4791

rdma link del mrcrxe0
ip link del rxev0
check "rmmod rdma_rxe" rmmod rdma_rxe

# udp_eager=1: every namespace binds at creation (the previous behaviour).
rmmod mrc && mrc_insmod udp_eager=1 || exit $ksft_fail
expect_eq "udp_eager=1: bound at load (UdpBound)" 1 "$(proc_counter UdpBound)"
check "udp_eager=1: UDP 4791 held" udp6_bound 4791
netns_add rxC || exit $ksft_fail
expect_eq "udp_eager=1: a new namespace is bound at once" 1 "$(proc_counter UdpBound rxC)"

finish
