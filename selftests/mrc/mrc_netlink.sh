#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The "mrc" generic netlink family through mrcctl: add/show/del round trips
# of planes, routes and profiles checked on the -j output; kernel refusals
# with their exit code and extack text; unprivileged writes refused while
# dumps work; two namespaces configured differently stay isolated; monitor
# sees events of its own namespace only; namespaces deleted and the module
# removed with configuration present (the rig fails the run on any splat).
source ./mrc_lib.sh

M=${MRCCTL:-${MRC_TOP:-/mrc}/build/cmake/tools/mrcctl/mrcctl}
[ -x "$M" ] || { log "mrcctl not built at $M (make userspace)"; exit $ksft_fail; }
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }

tmp=$(mktemp -d)
mon_pid=
cleanup() {
	[ -n "$mon_pid" ] && kill "$mon_pid" 2>/dev/null
	mrc_cleanup
	rm -rf "$tmp"
}
trap cleanup EXIT

# run CMD...: $out = stdout, $err = stderr, $rc = exit status
run() {
	out=$("$@" 2>"$tmp/err")
	rc=$?
	err=$(cat "$tmp/err")
}

# expect_refused DESC RC STDERR CMD...
expect_refused() {
	local what=$1 want_rc=$2 want_err=$3
	shift 3
	run "$@"
	expect_eq "$what: exit code" "$want_rc" "$rc"
	expect_eq "$what: message" "$want_err" "$err"
}

nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
ifindex() { ip netns exec "$1" cat "/sys/class/net/$2/ifindex"; }
count() { grep -o "$1" | wc -l; }

netns_add nlA
netns_add nlB
ip -n nlA link add pl0 type veth peer name pl0p
ip -n nlA link add pl1 type dummy
ip -n nlB link add q0 type dummy
if0=$(ifindex nlA pl0)
if1=$(ifindex nlA pl1)

# --- planes ---------------------------------------------------------------
run "$M" -n nlA plane add id 0 dev pl0 addr 2001:db8:0::1
expect_eq "plane add id 0" 0 "$rc"
run "$M" -n nlA plane add id 1 ifindex "$if1" addr 2001:db8:1::1 down
expect_eq "plane add id 1 by ifindex, down" 0 "$rc"
P0="{\"id\":0,\"ifindex\":$if0,\"dev\":\"pl0\",\"addr\":\"2001:db8::1\",\"admin\":\"up\",\"oper\":\"down\"}"
P1="{\"id\":1,\"ifindex\":$if1,\"dev\":\"pl1\",\"addr\":\"2001:db8:1::1\",\"admin\":\"down\",\"oper\":\"down\"}"
expect_eq "plane show -j" "[$P0,$P1]" "$("$M" -n nlA -j plane show)"
# Text: the words "plane add" takes, then the kernel's own state as a comment.
expect_eq "plane show id 1 (text)" \
	"id 1 dev pl1 addr 2001:db8:1::1 down # ifindex $if1 oper down" \
	"$("$M" -n nlA plane show id 1)"

ip -n nlA link set pl1 up
run "$M" -n nlA plane set id 1 up
expect_eq "plane set id 1 up" 0 "$rc"
expect_eq "plane 1 admin and oper up" \
	"[{\"id\":1,\"ifindex\":$if1,\"dev\":\"pl1\",\"addr\":\"2001:db8:1::1\",\"admin\":\"up\",\"oper\":\"up\"}]" \
	"$("$M" -n nlA -j plane show id 1)"
run "$M" -n nlA plane del id 1
expect_eq "plane del id 1" 0 "$rc"
expect_eq "plane show after del" "[$P0]" "$("$M" -n nlA -j plane show)"

expect_refused "plane id out of range" 1 \
	"mrcctl: plane add: Invalid argument: plane-id out of range (id, allowed 0..31)" \
	"$M" -n nlA plane add id 99 dev pl0 addr 2001:db8::9
expect_refused "duplicate plane" 1 \
	"mrcctl: plane add: File exists: mrc: plane id already exists" \
	"$M" -n nlA plane add id 0 dev pl0 addr 2001:db8::9
expect_refused "unknown device" 1 \
	"mrcctl: plane add: No such device: no such device (dev)" \
	"$M" -n nlA plane add id 2 dev nosuch addr 2001:db8::9
expect_refused "multicast source" 1 \
	"mrcctl: plane add: Invalid argument: source address must be a unicast address (addr)" \
	"$M" -n nlA plane add id 2 dev pl0 addr ff02::1
expect_refused "deleting a missing plane" 1 \
	"mrcctl: plane del: No such file or directory: mrc: plane does not exist" \
	"$M" -n nlA plane del id 9
run "$M" -n nlA plane frob id 0
expect_eq "usage error exit code" 2 "$rc"
run "$M" -n nosuchns plane show
expect_eq "unknown namespace exit code" 2 "$rc"

# --- routes ---------------------------------------------------------------
run "$M" -n nlA route add fc00:b::/64 encap srh plane 0 segs fc00:1::,fc00:2:: plane 0 segs fc00:3::
expect_eq "route add srh" 0 "$rc"
run "$M" -n nlA route add fc00:c::/48 encap usid plane 1 usid fcbb:bbbb:100:200:300::
expect_eq "route add usid" 0 "$rc"
run "$M" -n nlA route add fc00::/16
expect_eq "route add none, all planes" 0 "$rc"
RB='{"dst":"fc00:b::/64","encap":"srh","paths":[{"plane":0,"segs":["fc00:1::","fc00:2::"]},{"plane":0,"segs":["fc00:3::"]}]}'
RC='{"dst":"fc00:c::/48","encap":"usid","paths":[{"plane":1,"usid":"fcbb:bbbb:100:200:300::"}]}'
expect_eq "route show PREFIX -j" "[$RB]" "$("$M" -n nlA -j route show fc00:b::/64)"
expect_eq "route get: longest prefix /48" "[$RC]" "$("$M" -n nlA -j route get fc00:c:0:1::5)"
expect_eq "route get: longest prefix /16" "fc00::/16 encap none" \
	"$("$M" -n nlA route get fc00:ffff::1)"
expect_eq "route dump has 3 routes" 3 "$("$M" -n nlA -j route show | count '"dst"')"
run "$M" -n nlA route replace fc00::/16 encap none plane 2 plane 3
expect_eq "route replace" 0 "$rc"
expect_eq "replaced route" "fc00::/16 encap none plane 2 plane 3" \
	"$("$M" -n nlA route show fc00::/16)"
expect_refused "route add of an existing prefix" 1 \
	"mrcctl: route add: File exists: mrc: route to this prefix already exists" \
	"$M" -n nlA route add fc00::/16
expect_refused "segment list of 9 SIDs" 1 \
	"mrcctl: route add: Invalid argument: segment list longer than 8 SIDs (path 1 SID 9)" \
	"$M" -n nlA route add fc00:d::/64 encap srh plane 0 segs 1::,2::,3::,4::,5::,6::,7::,8::,9::
expect_refused "usid route with segs" 1 \
	"mrcctl: route add: Invalid argument: encap usid takes no segment list (path 1 segs)" \
	"$M" -n nlA route add fc00:d::/64 encap usid plane 0 segs 1::
expect_refused "path plane out of range" 1 \
	"mrcctl: route add: Invalid argument: path plane out of range (path 2 plane, allowed 0..31)" \
	"$M" -n nlA route add fc00:d::/64 encap srh plane 0 segs 1:: plane 32 segs 2::
expect_refused "host bits in prefix" 1 \
	"mrcctl: route add: Invalid argument: destination prefix has bits set beyond its length (prefix)" \
	"$M" -n nlA route add fc00:d::1/64
run "$M" -n nlA route del fc00::/16
expect_eq "route del" 0 "$rc"
expect_refused "route get without covering route" 1 \
	"mrcctl: route get: No such file or directory: mrc: no route to this destination" \
	"$M" -n nlA route get fc00:ffff::1
expect_eq "route dump has 2 routes" 2 "$("$M" -n nlA -j route show | count '"dst"')"

# --- profiles -------------------------------------------------------------
# Profile 0's burst is the module's ev_burst (32 unless loaded otherwise).
EVB=$(cat /sys/module/mrc/parameters/ev_burst)
PF0='{"id":0,"ev":{"count":128,"active_per_plane":0,"min_active":0,"burst":'"$EVB"',"dscp":0,"dscp_ctl":48},"cc":{"algo":"nscc","target_delay_pm":750,"gamma_pm":800,"max_md_pm":500,"max_wnd_pm":1500,"init_wnd_pm":1500,"link_mbps":100000,"init_wnd_shared":true}}'
expect_eq "default profile" "[$PF0]" "$("$M" -n nlA -j profile show)"
run "$M" -n nlA profile add id 3 ev-count 256 ev-active 24 cc-algo fixed
expect_eq "profile add" 0 "$rc"
run "$M" -n nlA profile set id 3 gamma 900 max-wnd 2000 init-wnd 1000 burst 4 link-rate 50mbit init-wnd-shared off
expect_eq "profile set" 0 "$rc"
PF3='{"id":3,"ev":{"count":256,"active_per_plane":24,"min_active":0,"burst":4,"dscp":0,"dscp_ctl":48},"cc":{"algo":"fixed","target_delay_pm":750,"gamma_pm":900,"max_md_pm":500,"max_wnd_pm":2000,"init_wnd_pm":1000,"link_mbps":50,"init_wnd_shared":false}}'
expect_eq "profile show id 3" "[$PF3]" "$("$M" -n nlA -j profile show id 3)"
expect_refused "profile ev-count out of range" 1 \
	"mrcctl: profile add: Invalid argument: ev count out of range (ev-count, allowed 128..256)" \
	"$M" -n nlA profile add id 4 ev-count 64
expect_refused "profile burst out of range" 1 \
	"mrcctl: profile set: Invalid argument: ev burst out of range (burst, allowed 1..64)" \
	"$M" -n nlA profile set id 3 burst 65
expect_refused "profile gamma out of range" 1 \
	"mrcctl: profile set: Invalid argument: cc gamma-pm out of range (gamma, allowed 1..1000)" \
	"$M" -n nlA profile set id 0 gamma 1001
expect_refused "profile link-rate out of range" 1 \
	"mrcctl: profile set: Invalid argument: cc link-mbps out of range (link-rate, allowed 10..1600000)" \
	"$M" -n nlA profile set id 3 link-rate 5mbit
run "$M" -n nlA profile set id 3 init-wnd-shared maybe
expect_eq "profile init-wnd-shared neither on nor off: usage error" 2 "$rc"
check "profile init-wnd-shared neither on nor off: says so" \
	grep -q '^mrcctl: unknown init-wnd-shared "maybe"$' <<<"$err"
expect_eq "profile show id 3 (text): the rate as given" \
	"id 3 ev-count 256 ev-active 24 ev-min-active 0 burst 4 dscp 0 dscp-ctl 48 cc-algo fixed target-delay 750 gamma 900 max-md 500 max-wnd 2000 init-wnd 1000 link-rate 50mbit init-wnd-shared off" \
	"$("$M" -n nlA profile show id 3)"
expect_refused "deleting profile 0" 1 \
	"mrcctl: profile del: Invalid argument: mrc: profile 0 is the default and cannot be deleted" \
	"$M" -n nlA profile del id 0
run "$M" -n nlA profile del id 3
expect_eq "profile del" 0 "$rc"
expect_eq "only profile 0 left" "[$PF0]" "$("$M" -n nlA -j profile show)"

# --- stats ----------------------------------------------------------------
stats=$("$M" -n nlA -j stats)
check "stats: 1 plane, 2 routes, 1 profile ($stats)" \
	grep -q '^{"planes":1,"routes":2,"profiles":1,' <<<"$stats"
check "stats count EEXIST rejections" grep -q '"rejected_exist":2,' <<<"$stats"
check "stats count ENODEV rejections" grep -q '"rejected_nodev":1,' <<<"$stats"
# 11: plane id, multicast source, 9 SIDs, usid with segs, path plane, host
# bits, ev-count, burst, gamma, link-rate, profile 0 (value checks are
# counted too)
check "stats count EINVAL rejections" grep -q '"rejected_inval":11,' <<<"$stats"

# --- unprivileged: writes refused, reads work ------------------------------
for w in "plane add id 7 dev pl0 addr 2001:db8::7" "plane set id 0 down" "plane del id 0" \
	 "route add fc00:f::/64" "route del fc00:b::/64" "profile add id 5" "profile del id 0" \
	 "probe fc00:b::1"; do
	run ip netns exec nlA setpriv --reuid=65534 --regid=65534 --clear-groups $M $w
	expect_eq "unprivileged '$w' exit code" 1 "$rc"
	check "unprivileged '$w': EPERM ($err)" grep -q ": Operation not permitted$" <<<"$err"
done
expect_eq "unprivileged plane dump" "[$P0]" \
	"$(ip netns exec nlA setpriv --reuid=65534 --regid=65534 --clear-groups "$M" -j plane show)"
expect_eq "unprivileged route get" "[$RB]" \
	"$(ip netns exec nlA setpriv --reuid=65534 --regid=65534 --clear-groups "$M" -j route get fc00:b::1)"
run ip netns exec nlA setpriv --reuid=65534 --regid=65534 --clear-groups "$M" -j stats
expect_eq "unprivileged stats" 0 "$rc"
expect_eq "configuration unchanged by unprivileged writes" "[$P0]" "$("$M" -n nlA -j plane show)"

# --- isolation ------------------------------------------------------------
run "$M" -n nlB plane add id 0 dev q0 addr 2001:db8:b::1
expect_eq "same plane id in nlB" 0 "$rc"
run "$M" -n nlB route add fc00:bbbb::/32 encap usid plane 0 usid fcbb:bbbb:1::
expect_eq "route in nlB" 0 "$rc"
QB="{\"id\":0,\"ifindex\":$(ifindex nlB q0),\"dev\":\"q0\",\"addr\":\"2001:db8:b::1\",\"admin\":\"up\",\"oper\":\"down\"}"
expect_eq "nlB sees its own plane only" "[$QB]" "$("$M" -n nlB -j plane show)"
expect_eq "nlA still sees its own" "[$P0]" "$("$M" -n nlA -j plane show)"
expect_eq "nlB has one route" 1 "$("$M" -n nlB -j route show | count '"dst"')"
run "$M" -n nlB route get fc00:b::1
expect_eq "nlA's route is not visible in nlB" 1 "$rc"
check "nlB stats count its own objects" \
	grep -q '^{"planes":1,"routes":1,"profiles":1,"changes":2,' <<<"$("$M" -n nlB -j stats)"
check "initial namespace has none of it" \
	test "$("$M" -j plane show | count 'pl0\|q0')" = 0

# --- monitor --------------------------------------------------------------
ip netns exec nlA "$M" -j monitor >"$tmp/mon" 2>&1 &
mon_pid=$!
# The same events filtered by object and stamped with their time (-t).
ip netns exec nlA "$M" -t monitor plane >"$tmp/mon-plane" 2>&1 &
monp_pid=$!
ip netns exec nlA "$M" -j -t monitor route >"$tmp/mon-route" 2>&1 &
monr_pid=$!
sleep 2
"$M" -n nlA plane add id 6 dev pl1 addr 2001:db8:6::1
"$M" -n nlA route add fc00:e::/64
"$M" -n nlB plane add id 6 dev q0 addr 2001:db8:b::6
ip -n nlA link del pl1
"$M" -n nlA route del fc00:e::/64
sleep 2
kill -INT "$mon_pid" "$monp_pid" "$monr_pid"
wait "$mon_pid"
expect_eq "monitor exits 0 on SIGINT" 0 "$?"
wait "$monp_pid" "$monr_pid"
mon_pid=
log "monitor plane saw: $(tr '\n' ' ' <"$tmp/mon-plane")"
log "monitor route saw: $(tr '\n' ' ' <"$tmp/mon-route")"
expect_eq "monitor plane: every plane event of the full monitor" \
	"$(grep -c '"event":"plane-' "$tmp/mon")" "$(wc -l <"$tmp/mon-plane")"
expect_eq "monitor plane: each stamped [UTC time] and a plane event" 0 \
	"$(grep -Evc '^\[20[0-9]{2}-[01][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-6][0-9]\.[0-9]{6}Z\] \[plane-' \
		"$tmp/mon-plane")"
expect_eq "monitor route: every route event, nothing else" \
	"$(grep -c '"event":"route-' "$tmp/mon")" "$(wc -l <"$tmp/mon-route")"
expect_eq "monitor route -j -t: a leading time member" 0 \
	"$(grep -Evc '^\{"time":"20[0-9-]{8}T[0-9:.]{15}Z","event":"route-' "$tmp/mon-route")"
log "monitor saw: $(tr '\n' ' ' <"$tmp/mon")"
expect_eq "monitor: plane-add event" \
	"{\"event\":\"plane-add\",\"plane\":{\"id\":6,\"ifindex\":$if1,\"dev\":\"pl1\",\"addr\":\"2001:db8:6::1\",\"admin\":\"up\",\"oper\":\"up\"}}" \
	"$(sed -n 1p "$tmp/mon")"
expect_eq "monitor: route-add event" \
	'{"event":"route-add","route":{"dst":"fc00:e::/64","encap":"none","paths":[]}}' \
	"$(sed -n 2p "$tmp/mon")"
check "monitor: plane detached when its device went away" \
	grep -q '^{"event":"plane-change","plane":{"id":6,"ifindex":0,' "$tmp/mon"
check "monitor: route-del event" grep -q '^{"event":"route-del","route":{"dst":"fc00:e::/64"' "$tmp/mon"
expect_eq "monitor: nothing from nlB" 1 "$(count '"plane-add"' <"$tmp/mon")"
expect_eq "detached plane still listed" \
	'{"id":6,"ifindex":0,"addr":"2001:db8:6::1","admin":"up","oper":"down"}' \
	"$("$M" -n nlA -j plane show id 6 | sed 's/^\[//; s/\]$//')"

# --- save, flush, restore; pretty JSON ----------------------------------------
"$M" -n nlB profile add id 2 ev-count 200 ev-active 10 cc-algo fixed gamma 700
"$M" -n nlB profile set id 0 max-md 400
before_p=$("$M" -n nlB -j plane show)
before_r=$("$M" -n nlB -j route show)
before_f=$("$M" -n nlB -j profile show)
"$M" -n nlB save >"$tmp/nlB.conf"
log "save: $(tr '\n' '|' <"$tmp/nlB.conf")"
check "save writes plane add lines" grep -q '^plane add id 0 dev q0 addr 2001:db8:b::1 up # ' \
	"$tmp/nlB.conf"
check "save writes profile set for profile 0" grep -q '^profile set id 0 .* max-md 400 ' \
	"$tmp/nlB.conf"
for o in route plane profile; do
	run "$M" -n nlB "$o" flush
	expect_eq "$o flush" 0 "$rc"
done
expect_eq "plane flush left none" "[]" "$("$M" -n nlB -j plane show)"
expect_eq "route flush left none" "[]" "$("$M" -n nlB -j route show)"
expect_eq "profile flush keeps only profile 0" 1 "$("$M" -n nlB -j profile show | count '"id"')"
expect_eq "flush in nlB left nlA alone" "[$P0]" "$("$M" -n nlA -j plane show id 0)"
run "$M" -n nlB profile set id 0 max-md 500
run "$M" -n nlB -b "$tmp/nlB.conf"
expect_eq "the saved file restores: exit code ($err)" 0 "$rc"
expect_eq "planes restored" "$before_p" "$("$M" -n nlB -j plane show)"
expect_eq "routes restored" "$before_r" "$("$M" -n nlB -j route show)"
expect_eq "profiles restored" "$before_f" "$("$M" -n nlB -j profile show)"
pretty=$("$M" -n nlB -p profile show)
check "-p prints indented JSON" test "$(wc -l <<<"$pretty")" -gt 10
expect_eq "-p is the same document as -j" "$before_f" "$(jq -c . <<<"$pretty")"
run "$M" -n nlB r s
expect_eq "abbreviations: r s is route show" "$("$M" -n nlB route show)" "$out"

# --- namespaces deleted with configuration present --------------------------
before=$("$M" -n nlA -j plane show)
for i in $(seq 1 10); do
	netns_add nlC
	ip -n nlC link add c0 type dummy
	"$M" -n nlC plane add id 0 dev c0 addr 2001:db8:c::1 &&
	"$M" -n nlC plane add id 31 dev c0 addr 2001:db8:c::31 &&
	"$M" -n nlC route add fc00:c::/48 encap srh plane 0 segs 1::,2::,3::,4::,5::,6::,7::,8:: &&
	"$M" -n nlC route add ::/0 encap usid plane 31 usid fcbb:bbbb:1:2:3:4:5:6 &&
	"$M" -n nlC profile add id 15 ev-count 200 ||
		{ log "FAIL: configuring nlC round $i"; mrc_failures=$((mrc_failures + 1)); }
	ip netns del nlC
done
mrc_netns_list=(nlA nlB)
sleep 1
expect_eq "other namespaces unaffected" "$before" "$("$M" -n nlA -j plane show)"

# --- module removed with configuration present ------------------------------
"$M" plane add id 9 dev lo addr 2001:db8:9::1
"$M" route add fc00:9::/64 encap srh plane 9 segs fc00:9::1
run rmmod mrc
expect_eq "rmmod with configuration present" 0 "$rc"
run "$M" plane show
expect_eq "family gone: exit code 3" 3 "$rc"
run mrc_insmod
expect_eq "module reloaded" 0 "$rc"
expect_eq "fresh module: no planes in nlA" "[]" "$("$M" -n nlA -j plane show)"
expect_eq "fresh module: no planes in init_net" "[]" "$("$M" -j plane show)"
expect_eq "fresh module: default profile" "[$PF0]" "$("$M" -j profile show)"
finish
