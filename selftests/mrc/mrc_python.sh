#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An application's view of AF_MRC through libmrc and the Python package
# (python/mrc over lib/mrc/libmrc.so.0): connect/send/recv as with any
# socket, echoes and digests checked end to end across two namespaces,
# accept()'s and getpeername()'s addresses, MRC_INFO as a dict, ephemeral
# ports, timeouts and non-blocking connect, and the errors of bad input.
source ./mrc_lib.sh

top=${MRC_TOP:-/mrc}
export MRC_LIBMRC=${MRC_LIBMRC:-$top/build/cmake/lib/mrc/libmrc.so.0}
export PYTHONPATH=$top/python PYTHONDONTWRITEBYTECODE=1
mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
command -v python3 >/dev/null || { log "no python3 in the guest"; exit $ksft_fail; }
[ -e "$MRC_LIBMRC" ] || { log "libmrc not built at $MRC_LIBMRC"; exit $ksft_fail; }
trap mrc_cleanup EXIT

veth_pair pyA a0 "fd00:70::1/64" pyB b0 "fd00:70::2/64" || exit $ksft_fail
port=7471
n=40
out=$(mktemp -d)

ip netns exec pyB python3 ./mrc_py_peer.py serve $port $n >"$out/srv" 2>"$out/srv.err" &
srv=$!
for _ in $(seq 100); do [ -s "$out/srv" ] && break; sleep 0.1; done
expect_eq "server listens on the port it asked for" "$port" \
	"$(head -n 1 "$out/srv" | jq -c '.listening[1]')"
timeout 120 ip netns exec pyA python3 ./mrc_py_peer.py client fd00:70::2 $port $n \
	>"$out/cli" 2>"$out/cli.err"
check "client exit ($(tail -n 1 "$out/cli.err"))" test $? -eq 0
wait $srv
check "server exit ($(tail -n 1 "$out/srv.err"))" test $? -eq 0
cli=$(tail -n 1 "$out/cli")
srv=$(tail -n 1 "$out/srv")
log "client: $cli"
log "server: $srv"

expect_eq "every echo came back reversed" 0 "$(jq '.bad_echoes' <<<"$cli")"
expect_eq "what the client sent is what the server received (sha256)" \
	"$(jq -r '.tx_sha256 + " " + (.tx_bytes|tostring)' <<<"$cli")" \
	"$(jq -r '.rx_sha256 + " " + (.rx_bytes|tostring)' <<<"$srv")"
expect_eq "client getpeername()" '["fd00:70::2",7471,0,0]' "$(jq -c '.peer' <<<"$cli")"
cport=$(jq '.sockname[1]' <<<"$cli")
# A connection spans planes: its own name keeps the address it was bound to
# (none here), with the ephemeral service id connect() picked.
expect_eq "client getsockname() is (any, its service id)" '"::"' \
	"$(jq -c '.sockname[0]' <<<"$cli")"
check "client's service id is ephemeral ($cport)" test "$cport" -ge 32768 -a "$cport" -le 60999
expect_eq "accept() returns the client's address" "[\"fd00:70::1\",$cport,0,0]" \
	"$(jq -c '.peer' <<<"$srv")"
expect_eq "getpeername() of the accepted socket agrees" "$(jq -c '.peer' <<<"$srv")" \
	"$(jq -c '.getpeername' <<<"$srv")"
expect_eq "accepted socket's family is the module's" \
	"$(cat /sys/module/mrc/parameters/family)" "$(jq '.family' <<<"$srv")"
expect_eq "accepted socket is SOCK_SEQPACKET" 5 "$(jq '.type' <<<"$srv")"
expect_eq "info(): client established" '"established"' "$(jq -c '.state' <<<"$cli")"
expect_eq "info(): server established" '"established"' "$(jq -c '.state' <<<"$srv")"
expect_eq "info(): client's acknowledged messages" "$n" "$(jq '.tx_msgs' <<<"$cli")"
expect_eq "info(): server's delivered messages" "$n" "$(jq '.rx_msgs' <<<"$srv")"
check "info(): an RTT was measured ($(jq '.srtt_ns' <<<"$cli") ns)" \
	test "$(jq '.srtt_ns > 0' <<<"$cli")" = true
expect_eq "libmrc's version is the module's" \
	"\"$(cat /sys/module/mrc/version)\"" "$(jq -c '.lib_version' <<<"$cli")"

p=$(ip netns exec pyA python3 ./mrc_py_peer.py probe fd00:70::2 2>"$out/probe.err")
check "probe exit ($(tail -n 1 "$out/probe.err"))" test -n "$p"
log "probe: $p"
eph=$(jq '.ephemeral' <<<"$p")
check "bind(('', 0)) picks an ephemeral port ($eph)" \
	test "$eph" -ge 32768 -a "$eph" -le 60999
expect_eq "refused connect with a timeout" '"ConnectionRefusedError:111"' \
	"$(jq -c '.refused' <<<"$p")"
expect_eq "refused blocking connect" '"ConnectionRefusedError:111"' \
	"$(jq -c '.refused_blocking' <<<"$p")"
expect_eq "non-blocking connect_ex is in progress" 115 \
	"$(jq '.nonblocking_connect' <<<"$p")"
expect_eq "a 1-tuple is a TypeError" '"TypeError:None"' "$(jq -c '.bad_tuple' <<<"$p")"
expect_eq "port 70000 is an OverflowError" '"OverflowError:None"' \
	"$(jq -c '.bad_port' <<<"$p")"
expect_eq "flowinfo is EINVAL" '"OSError:22"' "$(jq -c '.bad_flowinfo' <<<"$p")"
expect_eq "an address that is not one fails to resolve" '"gaierror:-2"' \
	"$(jq -c '.bad_addr' <<<"$p")"
expect_eq "binding a foreign address is EADDRNOTAVAIL" '"OSError:99"' \
	"$(jq -c '.not_local' <<<"$p")"
expect_eq "info() of a new socket" '"closed"' "$(jq -c '.info_unconnected' <<<"$p")"
expect_eq "an EV set size out of range is EINVAL" '"OSError:22"' \
	"$(jq -c '.bad_ev_set_size' <<<"$p")"

# The socat recipe of Documentation/networking/mrc-libmrc.rst: socat's
# generic socket address with the struct in hex, SOCK_SEQPACKET (5).
ip netns exec pyB python3 ./mrc_py_peer.py echo1 7472 >"$out/echo" 2>"$out/echo.err" &
srv=$!
for _ in $(seq 100); do [ -s "$out/echo" ] && break; sleep 0.1; done
hex=$(python3 ./mrc_py_peer.py hex fd00:70::2 7472)
expect_eq "sockaddr_hex: port, flags, address, scope, reserved" \
	1d3000000000fd0000700000000000000000000000020000000000000000 "$hex"
fam=$(cat /sys/module/mrc/parameters/family)
got=$(printf 'hello socat' | timeout 30 ip netns exec pyA \
	socat -t 5 - "SOCKET-CONNECT:$fam:0:x$hex,socktype=5" 2>"$out/socat.err")
expect_eq "socat over AF_MRC gets its message echoed ($(tail -n 1 "$out/socat.err"))" \
	"tacos olleh" "$got"
wait $srv
check "echo server exit ($(tail -n 1 "$out/echo.err"))" test $? -eq 0
expect_eq "the server received socat's message and its shutdown" '["hello socat"]' \
	"$(tail -n 1 "$out/echo" | jq -c '.msgs')"

# Any user may use it, as any socket family.
u=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	python3 -c 'import mrc; s = mrc.socket(); s.bind(("::1", 0)); print(s.getsockname()[0])' 2>&1)
expect_eq "unprivileged python binds" "::1" "$u"

rm -rf "$out"
finish
