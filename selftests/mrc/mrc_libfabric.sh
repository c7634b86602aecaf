#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# libfabric over AF_MRC (Documentation/networking/mrc-libfabric.rst): the
# provider lib/fi_mrc (libmrc-fi.so, loaded from FI_PROVIDER_PATH) as
# fi_info lists it with its limits; fi_pingpong between two namespaces over
# FI_EP_MSG, and over FI_EP_RDM through ofi_rxm (eager, and 1 MiB messages
# through rxm's rendezvous, i.e. the provider's emulated RMA read); and the
# provider's documented errors through libfabric's API (mrc_fi_errors).
source ./mrc_lib.sh

top=${MRC_TOP:-/mrc}
fidir=${MRC_FI_DIR:-$top/build/cmake/lib/fi_mrc}
export FI_PROVIDER_PATH=$fidir
unset FI_MRC_BACKEND FI_MRC_ADDR FI_MRC_IFACE
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
for t in fi_info fi_pingpong; do
	command -v $t >/dev/null ||
		{ log "no $t in the guest (scripts/vm/mkinitramfs.sh)"; exit $ksft_fail; }
done
if [ ! -e "$fidir/libmrc-fi.so" ] || [ ! -x "$fidir/mrc_fi_errors" ]; then
	log "provider not built in $fidir (cmake --build build/cmake)"
	exit $ksft_fail
fi
trap mrc_cleanup EXIT
out=$(mktemp -d)

# AF_MRC's limit less the provider's 48-byte header.
msg_max=$(awk '$1 == "#define" && $2 == "MRC_MSG_MAX" { $1 = $2 = ""; print }' "$top/uapi/linux/mrc.h")
msg_max=$(( (${msg_max//[()u]/}) - 48 ))

fi_info -p mrc >"$out/info" 2>&1
check "fi_info -p mrc exit ($(tail -n 1 "$out/info"))" test $? -eq 0
check "fi_info lists provider mrc with FI_EP_MSG" \
	grep -Pzq 'provider: mrc\n[^\n]*fabric: mrc\n[^\n]*domain: mrc\n[^\n]*version: 0.1\n[^\n]*type: FI_EP_MSG' "$out/info"
check "fi_info lists mrc;ofi_rxm with FI_EP_RDM" \
	grep -Pzq 'provider: mrc;ofi_rxm\n[^\n]*fabric: mrc\n[^\n]*domain: mrc\n[^\n]*version: [0-9.]*\n[^\n]*type: FI_EP_RDM' "$out/info"
fi_info -p mrc -t FI_EP_MSG -v >"$out/infov" 2>&1
expect_eq "max_msg_size is MRC_MSG_MAX less the header" "$msg_max" \
	"$(awk '$1 == "max_msg_size:" { print $2; exit }' "$out/infov")"
expect_eq "inject_size" 16384 "$(awk '$1 == "inject_size:" { print $2; exit }' "$out/infov")"
expect_eq "tx and rx sizes" "1024 1024" \
	"$(awk '$1 == "size:" { printf "%s%s", s, $2; s = " " }' "$out/infov")"
expect_eq "addr_format" FI_SOCKADDR_IN6 "$(awk '$1 == "addr_format:" { print $2; exit }' "$out/infov")"
expect_eq "cq_data_size" 8 "$(awk '$1 == "cq_data_size:" { print $2; exit }' "$out/infov")"
check "caps include FI_MSG and FI_RMA" grep -q 'caps: \[ FI_MSG, FI_RMA' "$out/infov"

veth_pair fiA a0 "fd00:71::1/64" fiB b0 "fd00:71::2/64" || exit $ksft_fail

# pingpong NAME PORT OPTIONS...: fi_pingpong server in fiB, client in fiA
# (control channel over TCP/IPv6, -6), both exit 0 and the client's last
# line has non-zero usec/xfer on every size and non-zero MB/sec from 1k up
# (fi_pingpong prints two decimals: 64 bytes at a slow RTT show 0.00).
pingpong() {
	local name=$1 port=$2 srv rc i
	shift 2
	ip netns exec fiB timeout 120 fi_pingpong -6 -B "$port" "$@" \
		>"$out/$name.srv" 2>&1 &
	srv=$!
	for ((i = 0; i < 50; i++)); do
		ip netns exec fiB ss -Hltn "sport = :$port" | grep -q . && break
		sleep 0.1
	done
	ip netns exec fiA timeout 120 fi_pingpong -6 -P "$port" "$@" fd00:71::2 \
		>"$out/$name.cli" 2>&1
	rc=$?
	wait $srv
	check "$name: server exit ($(tail -n 1 "$out/$name.srv"))" test $? -eq 0
	check "$name: client exit ($(tail -n 1 "$out/$name.cli"))" test $rc -eq 0
	sed 's/^/#   /' "$out/$name.cli"
	# shellcheck disable=SC2016 # an awk program
	check "$name: non-zero figures (usec/xfer; MB/sec from 1k)" awk '
		$1 ~ /^[0-9]+[kmg]?$/ && NF == 8 {
			n++
			if ($7 + 0 <= 0 || ($1 ~ /[kmg]$/ && $6 + 0 <= 0))
				bad++
		}
		END { exit !(n > 0 && !bad) }' "$out/$name.cli"
}

pingpong msg 47592 -p mrc -e msg -I 200
pingpong msg_verify_64k 47593 -p mrc -e msg -I 50 -S 65536 -c
pingpong rdm 47594 -p "mrc;ofi_rxm" -e rdm -I 200
pingpong rdm_tagged 47595 -p "mrc;ofi_rxm" -e rdm -m tagged -I 100
# 1 MiB: beyond rxm's eager and SAR limits, so rendezvous: the receiver
# reads the message with the provider's emulated RMA read.
pingpong rdm_rendezvous_1m 47596 -p "mrc;ofi_rxm" -e rdm -I 20 -S 1048576 -c

# The errors, in one namespace (the provider's address is fd00:71::1).
ip netns exec fiA timeout 120 "$fidir/mrc_fi_errors" >"$out/errors" 2>&1
rc=$?
sed 's/^/#   /' "$out/errors"
check "mrc_fi_errors: every check passed" test $rc -eq 0
for what in "connect to a closed service: EQ error FI_ECONNREFUSED" \
	"connect to \[::\]: -FI_EINVAL" \
	"send of max_msg_size + 1 bytes: -FI_EMSGSIZE" \
	"CQ error entry FI_ETRUNC, len 10, olen 90" \
	"peer closed: FI_SHUTDOWN" "send after FI_SHUTDOWN: -FI_ESHUTDOWN" \
	"rejected: EQ error FI_ECONNREFUSED with the reject data"; do
	check "error case ran and passed: $what" grep -q "^ok [0-9]* - $what" "$out/errors"
done

rm -rf "$out"
finish
