#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest half of make demo (run by scripts/vm/run.sh with mrc.ko loaded).
set -euo pipefail
helper=/mrc/build/ksft/mrc/mrc_sock_helper
say() { printf '\n$ %s\n' "$*"; "$@"; }

say uname -r
say lsmod
say cat /sys/module/mrc/parameters/family
for ns in hostA hostB; do
	ip netns add "$ns"
	ip -n "$ns" link set dev lo up
done
ip netns exec hostA "$helper" hold 4791 >/tmp/a.out & a=$!
ip netns exec hostB "$helper" hold 4791 >/tmp/b.out & b=$!
sleep 1
echo; echo "# the same service id 4791 bound in two namespaces:"
cat /tmp/a.out /tmp/b.out
say ip netns exec hostA cat /proc/net/mrc
echo; echo "# a second bind of 4791 in hostA:"
ip netns exec hostA "$helper" bind 4791 || true
kill "$a" "$b"; wait 2>/dev/null || true
say ip netns exec hostA cat /proc/net/mrc
ip netns del hostA; ip netns del hostB
say rmmod mrc
echo; echo "# mrc.ko unloaded cleanly; kernel log:"
dmesg | grep 'mrc:' | tail -n 5
