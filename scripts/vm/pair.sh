#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two guests, two kernels (issue 51): guest "a" boots Debian's 6.1 with the
# mrc.ko built for it (build/kabi.mk), guest "b" Debian 12's 6.12 with its
# own (build/kabi-6.12.mk), each a separate QEMU process (TCG, one vCPU),
# joined by four QEMU socket netdevs (UDP on the host's loopback, one per
# plane: each guest's NIC P is the other's NIC P's wire). No namespace, no
# shared memory and no switch between them: what a sends, b's kernel
# receives from its own virtio NIC. Each guest runs its side of
# selftests/mrc/mrc_pair_guest.sh (a listens, b connects: a transfer, then
# a silent cut of plane 1 and a port of plane 2 down during another) and
# judges what it can see itself; here, after both powered off:
#   - both guests' runs passed (run.sh: exit status, no kernel report);
#   - the digests of both transfers, both ways, match across the kernels;
#   - the wire: QEMU's filter-dump records every frame of a's four NICs
#     (both directions) in build/captures/mrc_pair_p<P>.pcap during the
#     first transfer (turned off over QMP when b marks it done, before b
#     goes on), merged into build/captures/mrc_pair.pcap and judged as the
#     one-kernel capture is
#     (tools/wireshark/mrc_capture_check.py: every packet MRC and
#     undamaged, every ICRC by the RoCEv2 rule, scripts/mrc_icrc.py's too,
#     every SACK matching data of the capture, no data PSN missing).
# Prints "ok:"/"FAIL:" lines and "pair: N passed, N failed"; exit 1 on any
# failure. MRC_PAIR_CUT_S (default 3): how long plane 1 stays cut;
# MRC_PAIR_FO_MSGS (default 1000): messages of the failover transfer.
# Logs: build/vm/logs/pair-{a,b}/, the guests' files in
# build/vm/pair/.
set -uo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
timeout=${MRC_PAIR_TIMEOUT:-900}
D=build/vm/pair
cap=build/captures/mrc_pair
rm -rf "$D" "$cap"*.pcap
mkdir -p "$D" build/captures

pass=0 fail=0
ok() { echo "pair: ok: $1"; pass=$((pass + 1)); }
bad() { echo "pair: FAIL: $1"; fail=$((fail + 1)); }
judge() { # judge WHAT COMMAND...
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}

for f in build/kabi.mk build/kabi-6.12.mk build/kmod/mrc.ko build/kmod-6.12/mrc.ko; do
	[ -r "$f" ] || { bad "missing $f (make && make kmod initramfs KERNEL=6.12)"; exit 1; }
done

# Four UDP port pairs on the host's loopback, apart from another run's.
base=$((20000 + ($$ % 500) * 16))
nics() { # nics ROLE(1|2): the QEMU arguments of one guest's four NICs
	local m=$1 p la lb
	for p in 0 1 2 3; do
		la=$((base + p)) lb=$((base + 8 + p))
		if [ "$m" = 1 ]; then
			echo -n " -netdev socket,id=p$p,localaddr=127.0.0.1:$la,udp=127.0.0.1:$lb"
			echo -n " -object filter-dump,id=cap$p,netdev=p$p,file=$top/${cap}_p$p.pcap"
			((p == 0)) && echo -n " -qmp unix:$top/$D/a.qmp,server=on,wait=off"
		else
			echo -n " -netdev socket,id=p$p,localaddr=127.0.0.1:$lb,udp=127.0.0.1:$la"
		fi
		echo -n " -device virtio-net-pci,netdev=p$p,mac=52:54:00:6d:0$m:0$p"
	done
}

guest() { # guest ROLE KABI_MK
	MRC_KABI_MK="$top/$2" MRC_KO_PARAMS="" MRC_VM_SMP=1 MRC_VM_QEMU_ARGS="$(nics "$3")" \
		bash scripts/vm/run.sh --name "pair-$1" --timeout "$timeout" -- \
		"MRC_PAIR_CUT_S=${MRC_PAIR_CUT_S:-3} MRC_PAIR_FO_MSGS=${MRC_PAIR_FO_MSGS:-1000} bash /mrc/build/ksft/mrc/mrc_pair_guest.sh $1 /mrc/$D" \
		>"$D/host-$1.log" 2>&1
}

echo "pair: booting a (6.1) and b (6.12), NICs on 127.0.0.1:$base.."
guest a build/kabi.mk 1 &
pa=$!
guest b build/kabi-6.12.mk 2 &
pb=$!

# capture_off: once b marks its first transfer done, a's four filter-dump
# objects off (QMP qom-set), then "host.capture_off" for b to go on.
capture_off() {
	local i
	for ((i = 0; i < timeout * 10; i++)); do
		[ -e "$D/b.xfer_done" ] && break
		kill -0 "$pa" 2>/dev/null || return 1
		sleep 0.1
	done
	python3 - "$top/$D/a.qmp" <<-'PY' && date +%s.%N >"$D/host.capture_off"
		import json, socket, sys
		s = socket.socket(socket.AF_UNIX)
		s.connect(sys.argv[1])
		f = s.makefile("rw")
		def cmd(c, **a):
		    f.write(json.dumps({"execute": c, "arguments": a} if a else {"execute": c}) + "\n")
		    f.flush()
		    while True:
		        r = json.loads(f.readline())
		        if "return" in r:
		            return
		        if "error" in r:
		            sys.exit("qmp: %s: %s" % (c, r["error"]))
		json.loads(f.readline())  # greeting
		cmd("qmp_capabilities")
		for p in range(4):
		    cmd("qom-set", path="cap%d" % p, property="status", value="off")
	PY
}
capture_off || echo "pair: could not stop the capture"
wait "$pa"
ra=$?
wait "$pb"
rb=$?
for r in a b; do
	grep -E "^# (ok|FAIL|[ab]:)" build/vm/logs/pair-$r/console.log 2>/dev/null | sed "s/^/pair: $r: /"
done
judge "guest a (6.1): its side passed, no kernel report (run.sh exit $ra)" [ "$ra" = 0 ]
judge "guest b (6.12): its side passed, no kernel report (run.sh exit $rb)" [ "$rb" = 0 ]
((ra)) && tail -n 15 "$D/host-a.log" | sed 's/^/pair: a: /'
((rb)) && tail -n 15 "$D/host-b.log" | sed 's/^/pair: b: /'

# digest NAME FROM TO: FROM's "tx" line equals TO's "rx" line (sha, count)
digest() {
	local t r
	t=$(awk '$1 == "tx" { print $2, $3 }' "$D/$2.$1.out" 2>/dev/null)
	r=$(awk '$1 == "rx" { print $2, $3 }' "$D/$3.$1.out" 2>/dev/null)
	[ -n "$t" ] && [ "$t" = "$r" ]
}
for x in xfer fo; do
	judge "$x: what b (6.12) sent is what a (6.1) received (SHA-256, messages)" digest "$x" b a
	judge "$x: what a (6.1) sent is what b (6.12) received (SHA-256, messages)" digest "$x" a b
done

pcaps=()
for p in 0 1 2 3; do
	[ -s "${cap}_p$p.pcap" ] && pcaps+=("${cap}_p$p.pcap")
done
if ((${#pcaps[@]} == 4)) && mergecap -F pcap -w "$cap.pcap" "${pcaps[@]}"; then
	# No --sender: with four NICs merged by their host timestamps, the order
	# of first transmissions across planes is QEMU's, not the sender's.
	judge "wire between the guests, every plane ($(stat -c %s "$cap.pcap") bytes)" \
		python3 tools/wireshark/mrc_capture_check.py --min 500 --check-sacks \
		--need data,sack,erth,eeth "$cap.pcap"
else
	bad "wire: a capture per plane (have ${#pcaps[@]} of 4)"
fi

echo "pair: $pass passed, $fail failed"
((fail == 0))
