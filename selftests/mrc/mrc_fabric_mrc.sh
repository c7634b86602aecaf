#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mrc_fabric_mrc.sh - AF_MRC on the emulated fabric, for tests sourcing
# mrc_lib.sh and mrc_fabric_lib.sh (after fabric_create):
#
#   mrcctl HOST ARGS...        mrcctl in HOST's namespace
#   mrc_fabric_planes          every plane of hA and hB configured (mrcctl)
#   mrc_fabric_routes MODE     on hA and hB the route to the peer's plane-less
#                              address: srh or usid over every plane and spine
#                              (spine 0, then 1, for every plane: an EV's
#                              spine is its entropy % FAB_NSPINES), or none
#   mrc_fabric_up MODE         both
#   xfer_verdict NAME DIR RC_CLIENT RC_SERVER
#                              the checks of one mrc_xfer run whose output is
#                              DIR/NAME.cli, DIR/NAME.srv (+ .err): both exit
#                              0, digests equal both ways

MRCCTL=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}

mrcctl() { local h=$1; shift; fabric_exec "$h" "$MRCCTL" "$@"; }

mrc_fabric_planes() {
	local h p
	[ -x "$MRCCTL" ] || { log "mrcctl not built at $MRCCTL"; return 1; }
	for h in hA hB; do
		for ((p = 0; p < FAB_NPLANES; p++)); do
			mrcctl "$h" plane add id "$p" dev "pl$p" addr "${FAB_ADDR[$h,$p]}" >/dev/null ||
				{ log "FAIL: plane $p on $h"; return 1; }
		done
	done
}

mrc_fabric_routes() {
	local mode=$1 h o p s v args
	for h in hA hB; do
		o=hB; [ "$h" = hB ] && o=hA
		args=()
		for ((p = 0; p < FAB_NPLANES; p++)); do
			for ((s = 0; s < FAB_NSPINES; s++)); do
				case $mode in
				srh) fabric_path_segs -v v "$h" "$o" "$p" "$s"; args+=(plane "$p" segs "$v") ;;
				usid) fabric_path_usid -v v "$h" "$o" "$p" "$s"; args+=(plane "$p" usid "$v") ;;
				esac
			done
		done
		mrcctl "$h" route replace "${FAB_HADDR[$o]}/128" encap "$mode" "${args[@]}" >/dev/null ||
			{ log "FAIL: route $mode on $h"; return 1; }
	done
}

# none mode needs the plane-less host addresses routed in every plane
# (the fabric routes them only through SRv6): host routes per plane device,
# leaves towards their host or ECMP over the spines, spines to the leaves.
mrc_fabric_plain_routes() {
	local h o p s x leaf sp ecmp
	FAB_BATCH=()
	for h in hA hB; do
		o=hB; [ "$h" = hB ] && o=hA
		x=${h#h} x=${x,,}
		for ((p = 0; p < FAB_NPLANES; p++)); do
			FAB_BATCH[$h]+="route replace ${FAB_HADDR[$o]}/128 via fe80::2 dev pl$p metric $((1024 + p))"$'\n'
			leaf=t0$x-p$p
			FAB_BATCH[$leaf]+="route replace ${FAB_HADDR[$h]}/128 via fe80::1 dev dn"$'\n'
			ecmp=""
			for ((s = 0; s < FAB_NSPINES; s++)); do
				ecmp+=" nexthop via fe80::2 dev up$s"
				sp=sp-p$p-s$s
				FAB_BATCH[$sp]+="route replace ${FAB_HADDR[$h]}/128 via fe80::1 dev t0$x"$'\n'
			done
			FAB_BATCH[$leaf]+="route replace ${FAB_HADDR[$o]}/128$ecmp"$'\n'
		done
	done
	_fab_run "ip -6" "${!FAB_BATCH[@]}"
}

mrc_fabric_up() { mrc_fabric_planes && mrc_fabric_routes "$1"; }

xfer_verdict() {
	local name=$1 d=$2
	check "$name: client exit ($(head -c 300 "$d/$name.cli.err"))" [ "$3" = 0 ]
	check "$name: server exit ($(head -c 300 "$d/$name.srv.err"))" [ "$4" = 0 ]
	expect_eq "$name: client->server digest" \
		"$(awk '$1 == "tx" { print $2, $3, $4 }' "$d/$name.cli")" \
		"$(awk '$1 == "rx" { print $2, $3, $4 }' "$d/$name.srv")"
	expect_eq "$name: server->client digest" \
		"$(awk '$1 == "tx" { print $2, $3, $4 }' "$d/$name.srv")" \
		"$(awk '$1 == "rx" { print $2, $3, $4 }' "$d/$name.cli")"
}
