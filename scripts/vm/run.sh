#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot a Debian kernel of the matrix under QEMU (TCG): 6.1 (build/kabi.mk) or
# the one MRC_KABI_MK names (build/kabi-6.12.mk; make sets it from KERNEL=),
# with the tools initramfs and the
# project tree shared over virtio-9p, load mrc.ko with insmod, run one command
# inside the guest, and judge the run:
#
#   - the command's exit status, read from the "MRC-RC=<n>" console line;
#   - no "MRC-RC" line at all means a panic or a hang (host-side timeout): fail;
#   - any kernel report (scripts/vm/kernel-reports.sh: BUG:, WARNING:, Oops:,
#     Call Trace, RIP:, unreferenced object, Kernel panic, ...) in the
#     console or the guest's dmesg fails the run even if the command passed.
#
# Usage: run.sh [--name N] [--timeout S] [--no-module] [--shell] [--] CMD...
# Guest memory: MRC_VM_MEM (MiB, default 1024); vCPUs: MRC_VM_SMP (default 2).
# More QEMU arguments (the two-guest rig's NICs, scripts/vm/pair.sh):
# MRC_VM_QEMU_ARGS, split on white space.
# Extra kernel command line: MRC_VM_APPEND (e.g. "slub_debug=FZPU" to catch a
# double free or a write after free where it happens, not at a later alloc).
# mrc.ko's parameters: MRC_KO_PARAMS (e.g. "ev_burst=1"), given to insmod
# and exported to the command, whose tests reload the module with them.
# Logs: build/vm/logs/<name>/{job.sh,console.log,dmesg.txt}
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
name="run-$(date +%Y%m%d-%H%M%S)-$$"
timeout=900
module=1
shell=0
while (($#)); do
	case "$1" in
	--name) name=$2; shift 2 ;;
	--timeout) timeout=$2; shift 2 ;;
	--no-module) module=0; shift ;;
	--shell) shell=1; shift ;;
	--) shift; break ;;
	*) break ;;
	esac
done
cmd="$*"

kabi_mk=${MRC_KABI_MK:-$top/build/kabi.mk}
kabi=$(sed -n 's/^KABI := //p' "$kabi_mk")
groot=$(sed -n 's/^GUEST_ROOT := //p' "$kabi_mk")
sfx=$(sed -n 's/^SFX := //p' "$kabi_mk")
kernel="$groot/boot/vmlinuz-$kabi"
initrd="$top/build/vm/initramfs$sfx.cpio.gz"
ko=build/kmod$sfx/mrc.ko
for f in "$kernel" "$initrd"; do
	[ -r "$f" ] || { echo "vm: missing $f (run make${sfx:+ KERNEL=${sfx#-}})" >&2; exit 2; }
done
if ((module)) && [ ! -r "$top/$ko" ]; then
	echo "vm: missing $ko (run make${sfx:+ KERNEL=${sfx#-}})" >&2
	exit 2
fi

logdir="$top/build/vm/logs/$name"
rm -rf "$logdir"
mkdir -p "$logdir"
rel=${logdir#"$top"/}

# The job the guest runs: module first, then the command, status out.
{
	echo '#!/bin/bash'
	echo "export MRC_TOP=/mrc MRC_KO=/mrc/$ko MRC_SFX=$sfx MRC_LOGDIR=/mrc/$rel"
	printf 'export MRC_KO_PARAMS=%q\n' "${MRC_KO_PARAMS:-}"
	echo 'export PATH=/mrc/build/bin:$PATH'
	if ((module)); then
		echo 'insmod "$MRC_KO" $MRC_KO_PARAMS || { echo "MRC-GUEST: insmod mrc.ko failed"; exit 124; }'
		echo 'echo "MRC-GUEST: mrc.ko loaded${MRC_KO_PARAMS:+ with $MRC_KO_PARAMS}, AF_MRC=$(cat /sys/module/mrc/parameters/family)"'
	fi
	printf '%s\n' "$cmd"
} >"$logdir/job.sh"

job="$rel/job.sh"
((shell)) && job=shell

# trace_options=norecord-cmd: enabling a trace event (mrc_engine_alloc.sh's
# kprobe, the bench's failover timeline) would otherwise hook sched_switch
# to record task names, flipping a static key inside __schedule() with
# text_poke_bp() while the other vCPU runs through it. Under multi-threaded
# TCG that vCPU once executed the stale int3 after the patch completed
# ("Oops: int3" at __schedule+0x339 on 6.12, CI of 1be2c86): an emulator
# race as far as we can tell (no module code on that stack). The traces read
# here do not need task names.
qemu=(qemu-system-x86_64 -machine q35 -accel tcg,thread=multi,tb-size=256
	-cpu max -m "${MRC_VM_MEM:-1024}" -smp "${MRC_VM_SMP:-2}" -no-reboot
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4 mitigations=off trace_options=norecord-cmd mrcjob=$job mrcmods=${groot#"$top"/}/lib/modules${MRC_VM_APPEND:+ $MRC_VM_APPEND}"
	-fsdev "local,id=mrcfs,path=$top,security_model=none,multidevs=remap"
	-device "virtio-9p-pci,fsdev=mrcfs,mount_tag=mrc"
	-nic none)
# shellcheck disable=SC2206 # white-space separated by design
qemu+=(${MRC_VM_QEMU_ARGS:-})

if ((shell)); then
	exec "${qemu[@]}" -nographic
fi

echo "vm: booting $kabi for: ${cmd:-(nothing)} (log $rel)"
set +e
timeout -k 10 "$timeout" "${qemu[@]}" -display none -serial stdio -monitor none \
	</dev/null 2>&1 | tr -d '\r' | tee "$logdir/console.log"
qrc=${PIPESTATUS[0]}
set -e

rc=$(sed -n 's/^MRC-RC=\([0-9]*\).*/\1/p' "$logdir/console.log" | tail -n 1)
. "$top/scripts/vm/kernel-reports.sh"
logs=("$logdir/console.log")
[ -f "$logdir/dmesg.txt" ] && logs+=("$logdir/dmesg.txt")  # absent after a panic
if grep -Eq "$mrc_kernel_reports" "${logs[@]}"; then
	echo "vm: FAIL: kernel splat in the guest log:"
	grep -Eh -m 20 -A 3 "$mrc_kernel_reports" "${logs[@]}" | head -n 60 || true
	exit 90
fi
if [ -z "$rc" ]; then
	if [ "$qrc" = 124 ]; then
		echo "vm: FAIL: guest hung (host timeout ${timeout}s); last console lines:"
	else
		echo "vm: FAIL: guest died without a status (qemu exit $qrc); last console lines:"
	fi
	tail -n 30 "$logdir/console.log"
	exit 91
fi
exit "$rc"
