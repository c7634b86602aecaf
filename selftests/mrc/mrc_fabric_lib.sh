#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Emulated multi-plane SRv6 fabric for the MRC selftests. Sourced, not run.
# Documentation/networking/mrc-fabric.rst has the diagram and the plans.
#
# Hosts (hA, hB, ...) x planes x spines, every node a network namespace:
#   host hX  --pl<p>/dn-->  leaf t0x-p<p>  --up<s>/t0x-->  spine sp-p<p>-s<s>
# Switches run only Linux's own SRv6: one full SID (seg6local End, for SRH
# paths) and one uSID (End flavors next-csid lblen 32 nflen 16, for uSID
# containers) each, both with per-SID counters, and static routes. Hosts are
# the last segment (End.DT6 table local, one SID and one uSID per plane).
#
# Node ids (16 bits, hex): P T NN = plane nibble, type (1 host end of plane,
# 2 leaf, 3 spine), NN = host number (hA=1, hB=2, ...) or spine index (from 0).
#   full SID  fc00:<id>::          route fc00:<id>::/64
#   uSID      fcbb:bbbb:<id>::     route fcbb:bbbb:<id>::/48
# Host hX, plane p: device pl<p>, address 2001:db8:<p>:<n>::1 (hex).
#
# Everything needs bash (never busybox ash: its ip applet would run).
# shellcheck disable=SC2034  # FAB_* tables are for the callers

FAB_PREFIX=${FAB_PREFIX:-mrc-}		# namespace name prefix
FAB_MTU=${FAB_MTU:-1500}		# MTU of every fabric veth
FAB_NONE_SPINE=${FAB_NONE_SPINE:-ecmp}	# none mode: "ecmp" or a spine index
FAB_USID_BLOCK=fcbb:bbbb		# uSID locator block (32 bits)

declare -ga FAB_HOSTS=() FAB_LEAVES=() FAB_SPINES=() FAB_NODES=()
declare -gA FAB_NS=() FAB_DEV=() FAB_ADDR=() FAB_HADDR=() FAB_HNUM=()
declare -gA FAB_REPLAY=() FAB_BATCH=()
FAB_NHOSTS=${FAB_NHOSTS:-2}		# default size; set to the real one by
FAB_NPLANES=${FAB_NPLANES:-4}		# fabric_create
FAB_NSPINES=${FAB_NSPINES:-2}
FAB_SETUP_MS=0
FAB_SETUP_DETAIL=""
FAB_SAVED_SYSCTL=()

_fab_err() { echo "# fabric: $*" >&2; }
_fab_now_ms() { echo $((${EPOCHREALTIME/./} / 1000)); }	# bash 5

# Helpers below print their result, or with "-v VAR" first store it in VAR
# without a subshell (forks and execs are slow under TCG).
_fab_ret() { if [ -n "$1" ]; then printf -v "$1" '%s' "$2"; else printf '%s\n' "$2"; fi; }

# _fab_parse_host NAME (hA, A or a): sets _FAB_H=hA _FAB_N=1 _FAB_X=a.
_fab_parse_host() {
	local _fh=${1#h}
	_fh=${_fh^^}
	[[ $_fh =~ ^[A-Z]$ ]] || { _fab_err "bad host '$1'"; return 1; }
	printf -v _FAB_N '%d' "'$_fh"
	_FAB_N=$((_FAB_N - 64)) _FAB_H=h$_fh _FAB_X=${_fh,,}
}

# fabric_leaf_name [-v VAR] HOST PLANE / fabric_spine_name [-v VAR] PLANE SPINE
fabric_leaf_name() {
	local _fl_v=""; [ "$1" = -v ] && { _fl_v=$2; shift 2; }
	_fab_parse_host "$1" || return 1
	_fab_ret "$_fl_v" "t0$_FAB_X-p$2"
}
fabric_spine_name() {
	local _fsn_v=""; [ "$1" = -v ] && { _fsn_v=$2; shift 2; }
	_fab_ret "$_fsn_v" "sp-p$1-s$2"
}

# fabric_ns [-v VAR] NODE: namespace of a node (hA, t0a-p0, sp-p0-s1, mrc-...).
fabric_ns() {
	local _fns_v="" _fns_n; [ "$1" = -v ] && { _fns_v=$2; shift 2; }
	_fns_n=${1#"$FAB_PREFIX"}
	if [[ $_fns_n == h? ]]; then _fab_parse_host "$_fns_n" || return 1; _fns_n=$_FAB_H; fi
	_fab_ret "$_fns_v" "$FAB_PREFIX$_fns_n"
}
fabric_exec() { local _fe_ns; fabric_ns -v _fe_ns "$1" || return 1; shift; ip netns exec "$_fe_ns" "$@"; }
fabric_ip() { local _fi_ns; fabric_ns -v _fi_ns "$1" || return 1; shift; ip -n "$_fi_ns" "$@"; }

# fabric_dev / fabric_addr [-v VAR] HOST PLANE: the host's device and source
# address in that plane; fabric_haddr [-v VAR] HOST: its plane-less address.
fabric_dev() { local _fd_v=""; [ "$1" = -v ] && { _fd_v=$2; shift 2; }; _fab_ret "$_fd_v" "pl$2"; }
fabric_addr() {
	local _fa_v="" _fa_a; [ "$1" = -v ] && { _fa_v=$2; shift 2; }
	_fab_parse_host "$1" || return 1
	printf -v _fa_a '2001:db8:%x:%x::1' "$2" "$_FAB_N"
	_fab_ret "$_fa_v" "$_fa_a"
}
fabric_haddr() {
	local _fh_v="" _fh_a; [ "$1" = -v ] && { _fh_v=$2; shift 2; }
	_fab_parse_host "$1" || return 1
	printf -v _fh_a '2001:db8:ff::%x' "$_FAB_N"
	_fab_ret "$_fh_v" "$_fh_a"
}

# fabric_node_id [-v VAR] NODE [PLANE]: the 16-bit id in hex (hosts: one per plane).
fabric_node_id() {
	local _fni_v="" _fni_n _fni_i; [ "$1" = -v ] && { _fni_v=$2; shift 2; }
	_fni_n=${1#"$FAB_PREFIX"}
	case "$_fni_n" in
	t0?-p*)
		_fab_parse_host "${_fni_n:2:1}" || return 1
		printf -v _fni_i '%x' $(((${_fni_n#*-p} << 12) | (2 << 8) | _FAB_N)) ;;
	sp-p*-s*)
		_fni_n=${_fni_n#sp-p}
		printf -v _fni_i '%x' $(((${_fni_n%-s*} << 12) | (3 << 8) | ${_fni_n#*-s})) ;;
	h?)
		[ -n "${2:-}" ] || { _fab_err "host SIDs need a plane"; return 1; }
		_fab_parse_host "$_fni_n" || return 1
		printf -v _fni_i '%x' $((($2 << 12) | (1 << 8) | _FAB_N)) ;;
	*) _fab_err "unknown node '$1'"; return 1 ;;
	esac
	_fab_ret "$_fni_v" "$_fni_i"
}
# fabric_sid / fabric_usid [-v VAR] NODE [PLANE]: the node's full SID / uSID.
fabric_sid() {
	local _fs_v="" _fs_i; [ "$1" = -v ] && { _fs_v=$2; shift 2; }
	fabric_node_id -v _fs_i "$@" || return 1
	_fab_ret "$_fs_v" "fc00:$_fs_i::"
}
fabric_usid() {
	local _fu_v="" _fu_i; [ "$1" = -v ] && { _fu_v=$2; shift 2; }
	fabric_node_id -v _fu_i "$@" || return 1
	_fab_ret "$_fu_v" "$FAB_USID_BLOCK:$_fu_i::"
}
# fabric_sid_prefix [-v VAR] SID: the route prefix of a full SID (/64) or a
# uSID (/48, any container whose first uSID it is), as ip prints it.
fabric_sid_prefix() {
	local _fp_v="" _fp_g _fp_p; [ "$1" = -v ] && { _fp_v=$2; shift 2; }
	IFS=: read -ra _fp_g <<<"$1"
	case "$1" in
	"$FAB_USID_BLOCK":*) printf -v _fp_p '%s:%x::/48' "$FAB_USID_BLOCK" "0x${_fp_g[2]:-0}" ;;
	fc00:*) printf -v _fp_p 'fc00:%x::/64' "0x${_fp_g[1]:-0}" ;;
	*) _fab_err "not a fabric SID: $1"; return 1 ;;
	esac
	_fab_ret "$_fp_v" "$_fp_p"
}

# _fab_path_ids SRC DST PLANE SPINE: _FAB_P=(srcleaf spine dstleaf dsthost) ids.
_fab_path_ids() {
	local _fpi_l1 _fpi_sp _fpi_l2 _fpi_hd _fpi_n
	fabric_leaf_name -v _fpi_n "$1" "$3" && fabric_node_id -v _fpi_l1 "$_fpi_n" &&
		fabric_spine_name -v _fpi_n "$3" "$4" && fabric_node_id -v _fpi_sp "$_fpi_n" &&
		fabric_leaf_name -v _fpi_n "$2" "$3" && fabric_node_id -v _fpi_l2 "$_fpi_n" &&
		fabric_node_id -v _fpi_hd "$2" "$3" || return 1
	_FAB_P=("$_fpi_l1" "$_fpi_sp" "$_fpi_l2" "$_fpi_hd")
}

# fabric_path_segs [-v VAR] SRC DST PLANE SPINE [srh|usid]: the segment list
# of the strict path SRC's leaf -> spine -> DST's leaf -> DST (End.DT6),
# comma separated as ip wants it; "usid": the one-element list of the container.
fabric_path_segs() {
	local _fps_v=""; [ "$1" = -v ] && { _fps_v=$2; shift 2; }
	if [ "${5:-srh}" = usid ]; then
		fabric_path_usid ${_fps_v:+-v "$_fps_v"} "$1" "$2" "$3" "$4"
		return
	fi
	_fab_path_ids "$@" || return 1
	_fab_ret "$_fps_v" "fc00:${_FAB_P[0]}::,fc00:${_FAB_P[1]}::,fc00:${_FAB_P[2]}::,fc00:${_FAB_P[3]}::"
}

# fabric_path_usid [-v VAR] SRC DST PLANE SPINE: the uSID container of the
# same path, fcbb:bbbb:<srcleaf>:<spine>:<dstleaf>:<dst>::
fabric_path_usid() {
	local _fpu_v=""; [ "$1" = -v ] && { _fpu_v=$2; shift 2; }
	_fab_path_ids "$@" || return 1
	_fab_ret "$_fpu_v" "$FAB_USID_BLOCK:${_FAB_P[0]}:${_FAB_P[1]}:${_FAB_P[2]}:${_FAB_P[3]}::"
}

# fabric_route_line [-v VAR] SRC DST PLANE SPINE MODE DSTADDR: an "ip -batch"
# line for host SRC sending to DSTADDR (a local address of DST) over that path.
# MODE: srh (SRH with the 4 SIDs), usid (IPv6-in-IPv6, outer DA = container,
# no SRH: seg6 encap.red with one segment), usid-srh (the container in a
# one-SID SRH), none (plain IPv6; DSTADDR must be DST's address in PLANE).
fabric_route_line() {
	local _frl_v="" _frl_s _frl_m; [ "$1" = -v ] && { _frl_v=$2; shift 2; }
	case "$5" in
	srh) fabric_path_segs -v _frl_s "$1" "$2" "$3" "$4" && _frl_m="encap seg6 mode encap segs $_frl_s" ;;
	usid) fabric_path_usid -v _frl_s "$1" "$2" "$3" "$4" && _frl_m="encap seg6 mode encap.red segs $_frl_s" ;;
	usid-srh) fabric_path_usid -v _frl_s "$1" "$2" "$3" "$4" && _frl_m="encap seg6 mode encap segs $_frl_s" ;;
	none) _frl_m="via fe80::2" ;;
	*) _fab_err "bad mode '$5'"; return 1 ;;
	esac || return 1
	_fab_ret "$_frl_v" "route replace $6/128 $_frl_m dev pl$3"
}
# fabric_route_set SRC DST PLANE SPINE MODE DSTADDR: install that route on SRC.
fabric_route_set() {
	local _frs_l _frs_ns
	fabric_route_line -v _frs_l "$@" && fabric_ns -v _frs_ns "$1" || return 1
	# shellcheck disable=SC2086  # the line is a list of ip arguments
	ip -6 -n "$_frs_ns" $_frs_l
}

# --- creation ---------------------------------------------------------------

_fab_sysctl_set() {	# save, then set init_net sysctls (copied by new netns)
	local kv k f old
	for kv in "$@"; do
		k=${kv%%=*}
		f=/proc/sys/${k//.//}
		[ -w "$f" ] || { _fab_err "no sysctl $k"; return 1; }
		read -r old <"$f"
		FAB_SAVED_SYSCTL+=("$k=$old")
		echo "${kv#*=}" >"$f" || return 1
	done
}
_fab_sysctl_restore() {
	local i kv k
	for ((i = ${#FAB_SAVED_SYSCTL[@]} - 1; i >= 0; i--)); do
		kv=${FAB_SAVED_SYSCTL[i]}
		k=${kv%%=*}
		echo "${kv#*=}" >"/proc/sys/${k//.//}"
	done
	FAB_SAVED_SYSCTL=()
}

# _fab_devcfg NODE DEV LINE...: configuration of one device, kept for replay
# (an admin down flushes a device's addresses, neighbours and routes).
_fab_devcfg() {
	local node=$1 dev=$2 l
	shift 2
	for l in "$@"; do FAB_REPLAY["$node|$dev"]+="$l"$'\n'; done
}
_fab_cfg() { local node=$1 l; shift; for l in "$@"; do FAB_BATCH[$node]+="$l"$'\n'; done; }
_fab_replay_into() { local node=$1 d; shift; for d in "$@"; do FAB_BATCH[$node]+=${FAB_REPLAY["$node|$d"]}; done; }

# _fab_run CMD NODE...: "CMD -n NS -batch" with the lines of FAB_BATCH[NODE],
# all nodes in parallel; CMD is "ip -6", "ip -6 -force", "tc" or "tc -force"
# (-force: keep going, errors are expected and ignored). Empties FAB_BATCH.
_fab_run() {
	local cmd=$1 node tmp rc=0 i=0 pids=()
	shift
	tmp=$(mktemp -d)
	for node in "$@"; do
		printf '%s' "${FAB_BATCH[$node]}" >"$tmp/$node"
		$cmd -n "$FAB_PREFIX$node" -batch "$tmp/$node" >"$tmp/$node.err" 2>&1 &
		pids+=($!)
	done
	for node in "$@"; do
		if ! wait "${pids[i]}" && [[ $cmd != *-force ]]; then
			_fab_err "$cmd -batch failed in $node:"
			sed 's/^/#   /' "$tmp/$node.err" >&2
			rc=1
		fi
		i=$((i + 1))
	done
	rm -rf "$tmp"
	FAB_BATCH=()
	return $rc
}

# fabric_create [HOSTS PLANES SPINES]: build the fabric (default 2 4 2, or
# FAB_NHOSTS/FAB_NPLANES/FAB_NSPINES). Sets FAB_SETUP_MS and the FAB_* tables.
fabric_create() {
	local nh=${1:-$FAB_NHOSTS} np=${2:-$FAB_NPLANES} nsp=${3:-$FAB_NSPINES}
	local t0 t1 t2 t3 h x n p s leaf sp top="" stale="" lid hid sid m1 m2 hpfx ppl ppfx ecmp
	local -A tail=()
	((nh >= 2 && nh <= 26 && np >= 1 && np <= 16 && nsp >= 1 && nsp <= 255)) ||
		{ _fab_err "bad size hosts=$nh planes=$np spines=$nsp"; return 1; }
	[ ${#FAB_NODES[@]} -eq 0 ] || { _fab_err "a fabric exists already"; return 1; }
	t0=$((${EPOCHREALTIME/./} / 1000))
	FAB_NHOSTS=$nh FAB_NPLANES=$np FAB_NSPINES=$nsp
	FAB_HOSTS=() FAB_LEAVES=() FAB_SPINES=() FAB_NODES=()
	FAB_NS=() FAB_DEV=() FAB_ADDR=() FAB_HADDR=() FAB_HNUM=() FAB_REPLAY=() FAB_BATCH=()
	for ((n = 1; n <= nh; n++)); do
		printf -v x '%x' $((64 + n))
		# shellcheck disable=SC2059  # \x<hex> escape built on purpose
		printf -v h "h\\x$x"
		x=${h#h} x=${x,,}
		FAB_HOSTS+=("$h")
		FAB_HNUM[$h]=$n
		fabric_haddr -v "FAB_HADDR[$h]" "$h"
		for ((p = 0; p < np; p++)); do
			FAB_DEV[$h,$p]=pl$p
			fabric_addr -v "FAB_ADDR[$h,$p]" "$h" "$p"
			FAB_LEAVES+=("t0$x-p$p")
		done
	done
	for ((p = 0; p < np; p++)); do
		for ((s = 0; s < nsp; s++)); do FAB_SPINES+=("sp-p$p-s$s"); done
	done
	FAB_NODES=("${FAB_HOSTS[@]}" "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}")
	for n in "${FAB_NODES[@]}"; do
		FAB_NS[$n]=$FAB_PREFIX$n
		# left over by a test that died without fabric_destroy
		[ -e "/var/run/netns/$FAB_PREFIX$n" ] || [ -e "/run/netns/$FAB_PREFIX$n" ] &&
			stale+="netns del $FAB_PREFIX$n"$'\n'
		top+="netns add $FAB_PREFIX$n"$'\n'
		top+="link add sid netns $FAB_PREFIX$n type dummy"$'\n'
		_fab_cfg "$n" "link set dev lo up" "link set dev sid up"
	done
	for ((p = 0; p < np; p++)); do
		for ((s = 0; s < nsp; s++)); do
			printf -v sid '%x' $(((p << 12) | (3 << 8) | s))
			# fc00:<id>::1: the switch's own address, the source of
			# its ICMPv6 errors (a link-local one is not forwarded).
			_fab_cfg "sp-p$p-s$s" \
				"address replace fc00:$sid::1/128 dev sid nodad" \
				"route replace fc00:$sid::/64 encap seg6local action End count dev sid" \
				"route replace $FAB_USID_BLOCK:$sid::/48 encap seg6local action End flavors next-csid lblen 32 nflen 16 count dev sid"
		done
	done

	# Links. Link-locals: the end nearer the host is fe80::1, the other
	# fe80::2; MACs are fixed and neighbours permanent (no NDP in the fabric,
	# so netem loss cannot make a neighbour fail).
	for h in "${FAB_HOSTS[@]}"; do
		n=${FAB_HNUM[$h]} x=${h#h} x=${x,,}
		for ((p = 0; p < np; p++)); do
			leaf=t0$x-p$p
			printf -v m1 '02:00:%02x:%02x:00:01' "$p" "$n"
			printf -v m2 '02:00:%02x:%02x:00:02' "$p" "$n"
			printf -v hpfx '2001:db8:%x:%x::/64' "$p" "$n"
			printf -v ppl '2001:db8:%x::/48' "$p"
			printf -v ppfx '%x' $((p << 12))
			printf -v hid '%x' $(((p << 12) | (1 << 8) | n))
			printf -v lid '%x' $(((p << 12) | (2 << 8) | n))
			top+="link add pl$p netns $FAB_PREFIX$h mtu $FAB_MTU address $m1 type veth peer name dn netns $FAB_PREFIX$leaf mtu $FAB_MTU address $m2"$'\n'
			_fab_devcfg "$h" "pl$p" "link set dev pl$p up" \
				"address replace fe80::1/64 dev pl$p nodad" \
				"address replace ${FAB_ADDR[$h,$p]}/128 dev pl$p nodad" \
				"neigh replace fe80::2 lladdr $m2 dev pl$p nud permanent" \
				"route replace $ppl via fe80::2 dev pl$p" \
				"route replace fc00:$ppfx::/20 via fe80::2 dev pl$p" \
				"route replace $FAB_USID_BLOCK:$ppfx::/36 via fe80::2 dev pl$p"
			_fab_devcfg "$leaf" dn "link set dev dn up" \
				"address replace fe80::2/64 dev dn nodad" \
				"neigh replace fe80::1 lladdr $m1 dev dn nud permanent" \
				"route replace $hpfx via fe80::1 dev dn" \
				"route replace fc00:$hid::/64 via fe80::1 dev dn" \
				"route replace $FAB_USID_BLOCK:$hid::/48 via fe80::1 dev dn"
			# the host's own SIDs in this plane: decapsulate, deliver locally
			_fab_cfg "$h" \
				"route replace fc00:$hid::/64 encap seg6local action End.DT6 table local count dev sid" \
				"route replace $FAB_USID_BLOCK:$hid::/48 encap seg6local action End.DT6 table local count dev sid"
			_fab_cfg "$leaf" \
				"address replace fc00:$lid::1/128 dev sid nodad" \
				"route replace fc00:$lid::/64 encap seg6local action End count dev sid" \
				"route replace $FAB_USID_BLOCK:$lid::/48 encap seg6local action End flavors next-csid lblen 32 nflen 16 count dev sid"
			ecmp=""
			for ((s = 0; s < nsp; s++)); do
				sp=sp-p$p-s$s
				printf -v sid '%x' $(((p << 12) | (3 << 8) | s))
				printf -v m1 '02:01:%02x:%02x:%02x:01' "$p" "$n" "$s"
				printf -v m2 '02:01:%02x:%02x:%02x:02' "$p" "$n" "$s"
				top+="link add up$s netns $FAB_PREFIX$leaf mtu $FAB_MTU address $m1 type veth peer name t0$x netns $FAB_PREFIX$sp mtu $FAB_MTU address $m2"$'\n'
				_fab_devcfg "$leaf" "up$s" "link set dev up$s up" \
					"address replace fe80::1/64 dev up$s nodad" \
					"neigh replace fe80::2 lladdr $m2 dev up$s nud permanent" \
					"route replace fc00:$sid::/64 via fe80::2 dev up$s" \
					"route replace $FAB_USID_BLOCK:$sid::/48 via fe80::2 dev up$s"
				_fab_devcfg "$sp" "t0$x" "link set dev t0$x up" \
					"address replace fe80::2/64 dev t0$x nodad" \
					"neigh replace fe80::1 lladdr $m1 dev t0$x nud permanent" \
					"route replace $hpfx via fe80::1 dev t0$x" \
					"route replace fc00:$lid::/64 via fe80::1 dev t0$x" \
					"route replace fc00:$hid::/64 via fe80::1 dev t0$x" \
					"route replace $FAB_USID_BLOCK:$lid::/48 via fe80::1 dev t0$x" \
					"route replace $FAB_USID_BLOCK:$hid::/48 via fe80::1 dev t0$x"
				ecmp+=" nexthop via fe80::2 dev up$s"
			done
			# Everything else of the plane (other hosts' plain addresses,
			# loose SIDs): ECMP over the spines, hashing the outer header
			# (addresses, flow label, next header: fib_multipath_hash_policy
			# 0), or the one spine FAB_NONE_SPINE names.
			((nsp == 1)) && ecmp=" via fe80::2 dev up0"
			[ "$FAB_NONE_SPINE" != ecmp ] && ecmp=" via fe80::2 dev up$FAB_NONE_SPINE"
			tail[$leaf]="route replace $ppl$ecmp"$'\n'
			tail[$leaf]+="route replace fc00:$ppfx::/20$ecmp"$'\n'
			tail[$leaf]+="route replace $FAB_USID_BLOCK:$ppfx::/36$ecmp"$'\n'
		done
		_fab_cfg "$h" "address replace ${FAB_HADDR[$h]}/128 dev sid nodad"
	done
	for n in "${!FAB_REPLAY[@]}"; do FAB_BATCH[${n%%|*}]+=${FAB_REPLAY[$n]}; done
	# multipath routes last: all their devices must be up
	for n in "${!tail[@]}"; do FAB_BATCH[$n]+=${tail[$n]}; done

	# New namespaces copy init_net's all/default devconf while this is set,
	# and their devices copy default: forwarding, no DAD, no RA/RS, no
	# automatic link-local, SRv6 accepted everywhere. Restored right after.
	[ -n "$stale" ] && ip -force -batch - <<<"$stale" >/dev/null 2>&1
	t1=$((${EPOCHREALTIME/./} / 1000))
	_fab_sysctl_set net.core.devconf_inherit_init_net=1 \
		net.ipv6.conf.all.forwarding=1 net.ipv6.conf.default.forwarding=1 \
		net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0 \
		net.ipv6.conf.all.seg6_enabled=1 net.ipv6.conf.default.seg6_enabled=1 \
		net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.addr_gen_mode=1 || { _fab_sysctl_restore; return 1; }
	if ! ip -batch - <<<"$top" >/dev/null; then
		_fab_sysctl_restore
		_fab_err "creating namespaces/links failed"
		fabric_destroy
		return 1
	fi
	_fab_sysctl_restore
	t2=$((${EPOCHREALTIME/./} / 1000))
	if ! _fab_run "ip -6" "${FAB_NODES[@]}"; then
		fabric_destroy
		return 1
	fi
	t3=$((${EPOCHREALTIME/./} / 1000))
	FAB_SETUP_MS=$((t3 - t0))
	FAB_SETUP_DETAIL="script $((t1 - t0)) ms, namespaces+links $((t2 - t1)) ms, addresses+routes $((t3 - t2)) ms"
}

# fabric_destroy: delete every namespace of the fabric (idempotent).
fabric_destroy() {
	local n b=""
	[ ${#FAB_SAVED_SYSCTL[@]} -gt 0 ] && _fab_sysctl_restore
	for n in "${FAB_NODES[@]}"; do b+="netns del $FAB_PREFIX$n"$'\n'; done
	[ -n "$b" ] && ip -force -batch - <<<"$b" >/dev/null 2>&1
	FAB_NODES=() FAB_HOSTS=() FAB_LEAVES=() FAB_SPINES=()
	FAB_REPLAY=() FAB_BATCH=()
	return 0
}

# --- failures ---------------------------------------------------------------

# fabric_link_set PLANE SPINE HOST up|down: the link between spine
# sp-p<PLANE>-s<SPINE> and HOST's leaf in that plane. "down" sets the spine's
# port admin down (its routes go, the leaf's up<SPINE> loses carrier and
# silently drops what it sends into it): every path through that link is
# blackholed in both directions. "up" restores the port and its config.
fabric_link_set() {
	local p=$1 s=$2 sp
	_fab_parse_host "$3" || return 1
	sp=sp-p$p-s$s
	case "$4" in
	down) ip -n "$FAB_PREFIX$sp" link set dev "t0$_FAB_X" down ;;
	up) FAB_BATCH=(); _fab_replay_into "$sp" "t0$_FAB_X"; _fab_run "ip -6" "$sp" ;;
	*) _fab_err "fabric_link_set: up or down"; return 1 ;;
	esac
}

# fabric_hostlink_set HOST PLANE up|down: the host's NIC port of a plane. The
# leaf's side goes admin down, so the host's pl<PLANE> shows NO-CARRIER and
# keeps its own addresses and routes.
fabric_hostlink_set() {
	local leaf
	fabric_leaf_name -v leaf "$1" "$2" || return 1
	case "$3" in
	down) ip -n "$FAB_PREFIX$leaf" link set dev dn down ;;
	up) FAB_BATCH=(); _fab_replay_into "$leaf" dn; _fab_run "ip -6" "$leaf" ;;
	*) _fab_err "fabric_hostlink_set: up or down"; return 1 ;;
	esac
}

# fabric_plane_set PLANE up|down: the whole plane fails: every spine port and
# every leaf's host port of the plane go admin down (the hosts see NO-CARRIER
# on pl<PLANE>); the other planes are untouched. "up" restores all of it.
fabric_plane_set() {
	local p=$1 h x s leaf nodes=()
	[ "$2" = up ] || [ "$2" = down ] || { _fab_err "fabric_plane_set: up or down"; return 1; }
	FAB_BATCH=()
	for h in "${FAB_HOSTS[@]}"; do
		x=${h#h} x=${x,,} leaf=t0$x-p$p
		nodes+=("$leaf")
		if [ "$2" = down ]; then
			FAB_BATCH[$leaf]="link set dev dn down"$'\n'
		else
			_fab_replay_into "$leaf" dn
		fi
		for ((s = 0; s < FAB_NSPINES; s++)); do
			if [ "$2" = down ]; then
				FAB_BATCH[sp-p$p-s$s]+="link set dev t0$x down"$'\n'
			else
				_fab_replay_into "sp-p$p-s$s" "t0$x"
			fi
		done
	done
	for ((s = 0; s < FAB_NSPINES; s++)); do nodes+=("sp-p$p-s$s"); done
	_fab_run "ip -6" "${nodes[@]}"
}

# --- counters ---------------------------------------------------------------

# fabric_sid_count NODE SID [PLANE]: packets counted by that SID route of
# NODE. SID: srh or usid (the node's own; hosts need PLANE), or an address.
fabric_sid_count() {
	local node=$1 sid=$2 pfx ns out
	case "$sid" in
	srh) fabric_sid -v sid "$node" "${3:-}" || return 1 ;;
	usid) fabric_usid -v sid "$node" "${3:-}" || return 1 ;;
	esac
	fabric_sid_prefix -v pfx "$sid" && fabric_ns -v ns "$node" || return 1
	out=$(ip -n "$ns" -s -6 route show exact "$pfx")
	[[ $out =~ \ packets\ ([0-9]+)\  ]] || { _fab_err "no counted SID $pfx on $node"; return 1; }
	echo "${BASH_REMATCH[1]}"
}

# _fab_ip_each DIR IP-ARGS... -- [NODE...]: "ip -n <namespace> IP-ARGS" for
# every node (default: all) at once, each node's output in DIR/<node>.
_fab_ip_each() {
	local dir=$1 args=() node pids=()
	shift
	while (($#)) && [ "$1" != -- ]; do args+=("$1"); shift; done
	(($#)) && shift
	local nodes=("$@")
	((${#nodes[@]})) || nodes=("${FAB_NODES[@]}")
	for node in "${nodes[@]}"; do
		node=${node#"$FAB_PREFIX"}
		ip -n "$FAB_PREFIX$node" "${args[@]}" >"$dir/$node" 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}"	# only ours: the caller may have servers running
}

# fabric_sid_counts [NODE...]: "node prefix packets" for every counted SID
# route of the nodes (default: all), read in parallel: a snapshot of the
# whole fabric costs about as much as two fabric_sid_count calls.
fabric_sid_counts() {
	local tmp
	tmp=$(mktemp -d)
	_fab_ip_each "$tmp" -s -6 route show -- "$@"
	(cd "$tmp" && awk '/seg6local/ { for (i = 1; i < NF; i++) if ($i == "packets") print substr(FILENAME, 3), $1, $(i + 1) }' ./*)
	rm -rf "$tmp"
}

# fabric_drops [NODE...]: skbs the devices of the nodes (default: all)
# could not send, summed, read in parallel. A veth counts a peer whose
# queue was full (the backlog, or the NAPI ring with GRO) as its own tx
# drop: a packet lost in the fabric's queues, not by the transport, is
# counted here, once (the peer counts a full backlog as an rx drop too,
# so rx drops are left out). An skb may be a flowcell of many packets.
fabric_drops() {
	local tmp
	tmp=$(mktemp -d)
	_fab_ip_each "$tmp" -j -s link show -- "$@"
	cat "$tmp"/* | jq -s '[.[][].stats64.tx.dropped] | add // 0'
	rm -rf "$tmp"
}

# --- impairments ------------------------------------------------------------

# fabric_netem [--spines] [--plane P] NETEM-ARGS... | [--spines] [--plane P] clear
# Root netem on the egress of every switch port (both directions of every
# leaf-spine link, and leaf to host); a path crosses 3 of them per direction
# (leaf up, spine, leaf down to the host). --spines: the spine ports only (one netem per path and
# direction, so "loss 1%" is 1% per direction). --plane P: that plane only.
# Host uplinks are left to fabric_tbf.
# Example: fabric_netem delay 1ms reorder 25% 50%; fabric_netem clear
fabric_netem() {
	local spines=0 plane="" node d h s nodes=() devs line
	while :; do
		case "${1:-}" in
		--spines) spines=1; shift ;;
		--plane) plane=$2; shift 2 ;;
		*) break ;;
		esac
	done
	(($#)) || { _fab_err "fabric_netem: netem arguments or clear"; return 1; }
	if [ "$1" = clear ]; then line="qdisc del dev @ root"; else line="qdisc replace dev @ root netem $*"; fi
	FAB_BATCH=()
	for node in "${FAB_LEAVES[@]}" "${FAB_SPINES[@]}"; do
		((spines)) && [[ $node != sp-* ]] && continue
		if [ -n "$plane" ]; then
			d=${node#*-p}
			[ "${d%-s*}" = "$plane" ] || continue
		fi
		nodes+=("$node")
		devs=()
		if [[ $node == sp-* ]]; then
			for h in "${FAB_HOSTS[@]}"; do d=${h#h}; devs+=("t0${d,,}"); done
		else
			devs=(dn)
			for ((s = 0; s < FAB_NSPINES; s++)); do devs+=("up$s"); done
		fi
		for d in "${devs[@]}"; do FAB_BATCH[$node]+="${line//@/$d}"$'\n'; done
	done
	if [ "$1" = clear ]; then
		_fab_run "tc -force" "${nodes[@]}"
		return 0
	fi
	_fab_run tc "${nodes[@]}"
}

# fabric_tbf [--host H] [--plane P] RATE [BURST [LATENCY]] | [...] clear
# Root tbf on every host uplink pl<p> (host egress), e.g. fabric_tbf 100mbit
# (burst 32kb, latency 100ms unless given).
fabric_tbf() {
	local host="" plane="" h p nodes=() burst latency
	while :; do
		case "${1:-}" in
		--host) _fab_parse_host "$2" || return 1; host=$_FAB_H; shift 2 ;;
		--plane) plane=$2; shift 2 ;;
		*) break ;;
		esac
	done
	(($#)) || { _fab_err "fabric_tbf: RATE or clear"; return 1; }
	burst=${2:-32kb} latency=${3:-100ms}
	FAB_BATCH=()
	for h in "${FAB_HOSTS[@]}"; do
		[ -n "$host" ] && [ "$h" != "$host" ] && continue
		nodes+=("$h")
		for ((p = 0; p < FAB_NPLANES; p++)); do
			[ -n "$plane" ] && [ "$p" != "$plane" ] && continue
			if [ "$1" = clear ]; then
				FAB_BATCH[$h]+="qdisc del dev pl$p root"$'\n'
			else
				FAB_BATCH[$h]+="qdisc replace dev pl$p root tbf rate $1 burst $burst latency $latency"$'\n'
			fi
		done
	done
	if [ "$1" = clear ]; then
		_fab_run "tc -force" "${nodes[@]}"
		return 0
	fi
	_fab_run tc "${nodes[@]}"
}
