#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test VM. Mounts the basics and the project share (virtio-9p,
# tag "mrc", at /mrc), runs the job named by the kernel command line
# (mrcjob=<path relative to the share>, or mrcjob=shell for an interactive
# shell), saves the kernel log next to the job, prints one "MRC-RC=<n>" line
# on the console and powers off. The host rig reads that line and the logs.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /dev/mqueue
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
# devtmpfs has none of these; the kselftest runner writes to /dev/stdout.
ln -sf /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mkdir -p /var/run /run/netns
hostname mrc-vm
ip link set lo up

while read -r m; do
	insmod "$m" || echo "MRC-GUEST: insmod $m failed"
done </etc/modules.early
if ! mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000,cache=loose mrc /mrc; then
	echo "MRC-GUEST: cannot mount the project share"
	echo "MRC-RC=125"
	poweroff -f
fi
# Every other module (veth, sch_netem, ...) comes from the guest kernel tree
# on the share, so kernel autoloading through /sbin/modprobe works too.
mods=build/guest/root/lib/modules
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mrcmods=*) mods=${arg#mrcmods=} ;;
	esac
done
mkdir -p /lib/modules
mount --bind "/mrc/$mods" /lib/modules
echo /sbin/modprobe >/proc/sys/kernel/modprobe
# mrc.ko links against tunnel6.ko (ICMPv6 errors about srh/usid packets,
# kmod/mrc_pmtu.c); modprobe resolves that, insmod needs it loaded first.
modprobe tunnel6 || echo "MRC-GUEST: modprobe tunnel6 failed"

# Static keys on for the whole run. The first hook of its kind (an nft
# chain, a clsact qdisc, a timestamping socket) flips a static key, which
# the kernel patches into the running code (jump labels: text_poke_bp()
# writes an int3 first). Under TCG that patching is not safe while the
# other vCPU runs the code: seen on 6.12, both vCPUs died of "Oops: int3"
# at ip6_input+0x31 (the NF_INET_LOCAL_IN key's jump, already written as
# "eb 29") when mrc_port_status.sh added its nft input chain in the middle
# of a transfer, in one CI run and in the seventh of a loop of rounds.
# Hooks in init_net, which no test traffic crosses, hold the netfilter, tc
# ingress/egress and timestamp keys on from before the first packet, so a
# test's own hooks never flip them. (A hook in one namespace costs the
# others the test of an empty list.)
unpinned=
nft -f - <<'EOF' || unpinned="$unpinned netfilter"
table inet mrc_rig_keys {
	chain prerouting { type filter hook prerouting priority 0; }
	chain input { type filter hook input priority 0; }
	chain forward { type filter hook forward priority 0; }
	chain output { type filter hook output priority 0; }
	chain postrouting { type filter hook postrouting priority 0; }
}
EOF
tc qdisc add dev lo clsact || unpinned="$unpinned tc"
python3 -c '
import os, signal, socket, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 29, 1)  # SO_TIMESTAMP (asm-generic), unnamed in Python 3.11
os.write(1, b"pinned")
while True:
    time.sleep(3600)
' >/tmp/.mrc-tskey 2>&1 &
# Python's start takes about a second under TCG, and several on a host
# whose CPUs are busy elsewhere: 2 s were once too few (CI of 4d1fff3, the
# bench profile smoke and the rig self-check did not run). Up to 30 s; the
# loop ends as soon as the socket is open.
i=0
while [ "$i" -lt 150 ] && ! [ -s /tmp/.mrc-tskey ]; do
	sleep 0.2
	i=$((i + 1))
done
[ "$(cat /tmp/.mrc-tskey)" = pinned ] || unpinned="$unpinned timestamp"

# Tests must see warnings on the console as they happen.
echo 4 >/proc/sys/kernel/printk

job=
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	mrcjob=*) job=${arg#mrcjob=} ;;
	esac
done

echo "MRC-GUEST: up $(uname -r)"
cd /mrc || exit 1
if [ -n "$unpinned" ]; then
	# A run that could die of the rig would not say anything of ours.
	echo "MRC-GUEST: static keys not pinned:$unpinned; the job does not run"
	cat /tmp/.mrc-tskey
	rc=123
elif [ "$job" = shell ]; then
	setsid cttyhack /bin/bash -l
	rc=0
elif [ -n "$job" ] && [ -r "/mrc/$job" ]; then
	/bin/bash "/mrc/$job"
	rc=$?
	dmesg >"/mrc/$(dirname "$job")/dmesg.txt" 2>&1
else
	echo "MRC-GUEST: no job (mrcjob=$job)"
	rc=126
fi
sync
echo "MRC-RC=$rc"
cd /
umount /lib/modules 2>/dev/null
umount /mrc 2>/dev/null
poweroff -f
