#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's own YNL CLI (tools/net/ynl/cli.py of Debian's
# linux-source-6.12, extracted by make deps) drives the "mrc" family from
# Documentation/netlink/specs/mrc.yaml alone: a do that writes (plane-add),
# a dump (plane-get), a do that reads (stats-get, compared with
# /proc/net/mrc), a do that sleeps and answers with repeated nests
# (ev-probe of ::1), the events multicast group (plane-del-ntf), and the
# permission the spec records (uns-admin-perm) refusing an unprivileged write.
# The spec's schema validation runs in make lint (jsonschema is not in the
# guest), hence --no-schema here.
source ./mrc_lib.sh

top=${MRC_TOP:-/mrc}
ynl=${MRC_YNL:-$top/build/src/ynl-6.12/cli.py}
spec=${MRC_YNL_SPEC:-$top/Documentation/netlink/specs/mrc.yaml}
M=${MRCCTL:-$top/build/cmake/tools/mrcctl/mrcctl}
export PYTHONDONTWRITEBYTECODE=1
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
[ -e "$ynl" ] || { log "no ynl CLI at $ynl (make deps)"; exit $ksft_fail; }
[ -x "$M" ] || { log "mrcctl not built at $M"; exit $ksft_fail; }
trap mrc_cleanup EXIT

y() { ip netns exec yn python3 "$ynl" --spec "$spec" --no-schema --output-json "$@"; }

netns_add yn || exit $ksft_fail
ip -n yn link add pl0 type dummy && ip -n yn link set pl0 up &&
	ip -n yn addr add 2001:db8:7::1/64 dev pl0 nodad || exit $ksft_fail

# The plane's source address as the spec's binary attribute: hex bytes.
saddr=20010db8000700000000000000000001
out=$(y --do plane-add --json "{\"plane-id\": 3, \"ifname\": \"pl0\", \"saddr\": \"$saddr\"}" 2>&1)
check "ynl --do plane-add ($out)" test $? -eq 0
expect_eq "mrcctl sees the plane ynl added" '[3,"pl0","2001:db8:7::1"]' \
	"$(ip netns exec yn "$M" -j plane show | jq -c '.[0] | [.id, .dev, .addr]')"

dump=$(y --dump plane-get 2>&1)
log "plane-get dump: $dump"
expect_eq "ynl --dump plane-get decodes every attribute" \
	'[3,"pl0","2001:db8:7::1",1]' \
	"$(jq -c '.[0] | [."plane-id", .ifname, .saddr, ."admin-up"]' <<<"$dump")"

# Three refused connects (nobody listens on ::1 port 9) to count.
for _ in 1 2 3; do
	ip netns exec yn ./mrc_xfer -c ::1 -p 9 -n 1 >/dev/null 2>&1
done
stats=$(y --do stats-get 2>&1)
refused=$(jq '.stats."connect-refused"' <<<"$stats")
expect_eq "ynl --do stats-get connect-refused equals /proc/net/mrc ConnectRefused" \
	"$(proc_counter ConnectRefused yn)" "$refused"
check "and counted the three refusals ($refused)" test "$refused" = 3
nspec=$(python3 -c '
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
attrs = [s for s in spec["attribute-sets"] if s["name"] == "stats"][0]["attributes"]
print(len([a for a in attrs if a["type"] != "pad"]))' "$spec")
expect_eq "stats-get returns every counter of the spec (its pad aside)" "$nspec" \
	"$(jq '.stats | length' <<<"$stats")"

# A do that sleeps and answers with repeated nests (ev-probe): the namespace
# probes itself on ::1 (no MRC route: the host's route) and answers itself.
pr=$(y --do ev-probe --json '{"probe-peer": "00000000000000000000000000000001", "probe-evs": 3}' 2>&1)
log "ev-probe: $pr"
expect_eq "ynl --do ev-probe: 3 results, all answered with an rtt, none on a plane" "3 3 0" \
	"$(jq -r '."probe-result" | [length, ([.[] | select(."rtt-ns" > 0)] | length),
		([.[] | select(.plane != null)] | length)] | map(tostring) | join(" ")' <<<"$pr")"

# Events: a subscriber sees plane-add-ntf/plane-del-ntf for what mrcctl
# does. Python starts slowly under emulation, so the plane comes and goes
# until the subscriber has read its queue and exited.
ntf_file=$(mktemp)
y --subscribe events --sleep 12 >"$ntf_file" 2>&1 &
sub=$!
while kill -0 $sub 2>/dev/null; do
	ip netns exec yn "$M" plane add id 3 dev pl0 addr 2001:db8:7::1 2>/dev/null
	ip netns exec yn "$M" plane del id 3 2>/dev/null
	sleep 1
done
wait $sub
ntf=$(cat "$ntf_file")
rm -f "$ntf_file"
log "events: $(head -c 600 <<<"$ntf")"
expect_eq "ynl --subscribe events receives plane-del-ntf for plane 3" \
	'["plane-del-ntf",3]' \
	"$(jq -c '[.[] | select(.name == "plane-del-ntf")][0] | [.name, .msg."plane-id"]' <<<"$ntf")"
expect_eq "and plane-add-ntf with the plane's attributes" \
	'["plane-add-ntf",3,"pl0","2001:db8:7::1"]' \
	"$(jq -c '[.[] | select(.name == "plane-add-ntf")][0] | [.name, .msg."plane-id", .msg.ifname, .msg.saddr]' <<<"$ntf")"

# The spec says writes need CAP_NET_ADMIN (uns-admin-perm); ynl as nobody.
out=$(ip netns exec yn setpriv --reuid=65534 --regid=65534 --clear-groups \
	python3 "$ynl" --spec "$spec" --no-schema \
	--do plane-add --json "{\"plane-id\": 4, \"ifname\": \"pl0\", \"saddr\": \"$saddr\"}" 2>&1)
rc=$?
log "unprivileged plane-add: $out"
check "unprivileged ynl plane-add fails" test $rc -ne 0
check "with EPERM" grep -q -- "-1\b\|Operation not permitted\|error: -1" <<<"$out"
expect_eq "and added nothing" 0 "$(ip netns exec yn "$M" -j plane show | jq 'length')"
finish
