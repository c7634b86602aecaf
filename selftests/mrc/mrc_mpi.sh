#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# MPI over MRC (Documentation/networking/mrc-libfabric.rst, "MPI over
# MRC"): an Open MPI 4.1 job of two ranks on two fabric hosts (network
# namespaces joined by a veth pair), its point-to-point traffic and so its
# collectives through the OFI MTL on the provider "mrc;ofi_rxm" and no
# other transport (pml cm, mtl ofi, btl self only): mrc_mpi_check's
# ping-pong of 1 B to 1 MiB, MPI_Allreduce and MPI_Alltoall with every
# result checked. Asserts that each rank ran in its own namespace, that
# Open MPI selected the OFI MTL on provider mrc on both ranks, that AF_MRC
# carried the traffic (/proc/net/mrc of both namespaces), and that the same
# job without the provider fails instead of finding another way.
#
# mpirun launches one orted per namespace through mrc_mpi_rsh.sh, the rsh
# agent that runs "ssh HOST CMD" as "ip netns exec HOST sh -c CMD"; the
# orteds' out-of-band channel is TCP over IPv4 on the veth pair.
#
# MRC_MPI_HOST_REHEARSAL=1 runs the same job on a build host without
# mrc.ko, over the provider's AF_UNIX test backend (FI_MRC_BACKEND=unix,
# path-named sockets that both namespaces reach, 64 KiB messages): never in
# the VM, where the job must go over AF_MRC.
source ./mrc_lib.sh

top=${MRC_TOP:-/mrc}
fidir=${MRC_FI_DIR:-$top/build/cmake/lib/fi_mrc}
here=$(dirname "$(readlink -f "$0")")
rehearsal=${MRC_MPI_HOST_REHEARSAL:-0}
unset FI_MRC_BACKEND FI_MRC_UNIX_DIR FI_MRC_ADDR FI_MRC_IFACE FI_PROVIDER FI_PROVIDER_PATH
if ((rehearsal)); then
	log "host rehearsal: provider over its AF_UNIX test backend, not AF_MRC"
else
	mrc_loaded || { log "mrc.ko not loaded"; exit $ksft_fail; }
fi
for t in mpirun orted; do
	command -v $t >/dev/null ||
		{ log "no $t (Open MPI: scripts/deps.sh, scripts/vm/mkinitramfs.sh)"; exit $ksft_fail; }
done
if [ ! -e "$fidir/libmrc-fi.so" ] || [ ! -x "$fidir/mrc_mpi_check" ]; then
	log "provider or mrc_mpi_check not built in $fidir (cmake --build build/cmake)"
	exit $ksft_fail
fi
[ -x "$here/mrc_mpi_rsh.sh" ] || { log "no executable $here/mrc_mpi_rsh.sh"; exit $ksft_fail; }
trap mrc_cleanup EXIT
out=$(mktemp -d)
mkdir "$out/empty"

veth_pair mpiA a0 "fd00:73::1/64" mpiB b0 "fd00:73::2/64" || exit $ksft_fail
ip -n mpiA addr add 10.73.0.1/24 dev a0 && ip -n mpiB addr add 10.73.0.2/24 dev b0 ||
	exit $ksft_fail
printf 'mpiA slots=1\nmpiB slots=1\n' >"$out/hosts"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A temporary directory per fabric host, as separate hosts have
# (mrc_mpi_rsh.sh): Open MPI's daemons of two namespaces sharing one /tmp
# lost one of them now and then, and the job hung at launch.
export MRC_MPI_HOSTS_DIR=$out
export OMPI_MCA_mca_base_component_show_load_errors=0
# One rank per namespace, each started by its own orted through the agent;
# the cm PML over the OFI MTL restricted to mrc;ofi_rxm, the self BTL alone
# (no TCP or shared-memory BTL exists for the job), Debian's "mtl = ^ofi"
# (/etc/openmpi/openmpi-mca-params.conf) overridden.
mpirun_args=(-np 2 --hostfile "$out/hosts"
	--mca plm_rsh_agent "$here/mrc_mpi_rsh.sh" --mca plm_rsh_no_tree_spawn 1
	--mca oob_tcp_if_include 10.73.0.0/24
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "mrc;ofi_rxm"
	--mca btl self --mca mtl_base_verbose 100
	-x FI_PROVIDER=mrc)
max=1048576 nchecks=13
if ((rehearsal)); then
	mkdir "$out/unix"
	mpirun_args+=(-x FI_MRC_BACKEND=unix -x "FI_MRC_UNIX_DIR=$out/unix")
	max=65488 nchecks=11
fi

# mpi NAME PROVIDER_PATH: the job, launched from namespace mpiA. Its stdin
# is /dev/null and forwarded to no rank (--stdin none): under
# run_kselftest.sh the test runs in a background process group of the
# console (timeout(1) without --foreground), where mpirun reading the
# terminal to forward it to rank 0 is stopped (SIGTTIN) until the timeout.
mpi() {
	ip netns exec mpiA timeout 120 mpirun --stdin none "${mpirun_args[@]}" \
		-x "FI_PROVIDER_PATH=$2" "$fidir/mrc_mpi_check" "$max" \
		</dev/null >"$out/$1" 2>&1
}

counters() {
	local ns k
	for ns in mpiA mpiB; do
		for k in RxPackets TxPackets ConnEstablished; do
			printf '%s ' "$(proc_counter $k $ns)"
		done
	done
}
((rehearsal)) || read -ra before <<<"$(counters)"

mpi job "$fidir"
rc=$?
grep -v '^\[' "$out/job" | sed 's/^/#   /'
check "mpirun exit $rc ($(tail -n 1 "$out/job"))" test $rc -eq 0
expect_eq "checks that passed" "$nchecks" "$(grep -c '^ok [0-9]* - ' "$out/job")"
expect_eq "checks that failed" 0 "$(grep -c '^not ok' "$out/job")"
check "summary: $nchecks passed, 0 failed" \
	grep -qx "mrc_mpi_check: $nchecks passed, 0 failed" "$out/job"
for what in "ping-pong rank 0 <-> rank 1, 1 bytes x 20" \
	"ping-pong rank 0 <-> rank 1, $max bytes x 4" "MPI_Allreduce sum of 100 int64" \
	"MPI_Allreduce sum of $((max / 8)) int64" "MPI_Alltoall rank\*1000+dest pattern, 1 int64" \
	"MPI_Alltoall rank\*1000+dest pattern, $((max / 32)) int64"; do
	check "ran and passed: $what" grep -q "^ok [0-9]* - $what" "$out/job"
done

# Each rank in its own namespace: rank 0 on the first host, rank 1 on the
# second (one slot each).
for r in 0:mpiA 1:mpiB; do
	expect_eq "rank ${r%%:*} ran in namespace ${r#*:}" \
		"$(ip netns exec "${r#*:}" readlink /proc/self/ns/net)" \
		"$(sed -n "s/^# rank ${r%%:*} of 2 on .*, netns //p" "$out/job")"
done
# Open MPI's choice, from mtl_base_verbose: the OFI MTL on both ranks, on
# provider mrc (its name for the RDM endpoint of mrc;ofi_rxm).
expect_eq "ranks that selected the OFI MTL" 2 \
	"$(grep -c 'mca:base:select:( *mtl) Selected component \[ofi\]' "$out/job")"
expect_eq "ranks whose OFI MTL runs on provider mrc" 2 \
	"$(grep -c 'mtl:ofi:provider: mrc$' "$out/job")"
if ((!rehearsal)); then
	# AF_MRC carried it: more than 5 MiB each way (4 x 1 MiB ping-pongs
	# alone) is thousands of MRC packets received and sent in each
	# namespace, over connections established in each.
	read -ra after <<<"$(counters)"
	i=0
	for ns in mpiA mpiB; do
		for k in RxPackets TxPackets; do
			d=$((after[i] - before[i]))
			check "$ns /proc/net/mrc $k grew by $d (> 3000)" test "$d" -gt 3000
			i=$((i + 1))
		done
		d=$((after[i] - before[i]))
		check "$ns /proc/net/mrc ConnEstablished grew by $d (> 0)" test "$d" -gt 0
		i=$((i + 1))
	done
fi

# Without the provider (FI_PROVIDER_PATH an empty directory) the same job
# must fail: no other transport may carry it.
mpi noprov "$out/empty"
rc=$?
grep -v '^\[' "$out/noprov" | head -n 12 | sed 's/^/#   /'
check "without the provider: mpirun fails (exit $rc)" test $rc -ne 0 -a $rc -ne 124
check "without the provider: no check ran" \
	test "$(grep -c '^ok [0-9]* - \|mrc_mpi_check: ' "$out/noprov")" -eq 0
check "without the provider: the OFI MTL's init failed" \
	grep -q 'select: init returned failure for component ofi' "$out/noprov"
check "without the provider: no PML for MPI_Init" \
	grep -q 'No components were able to be opened in the pml framework' "$out/noprov"

rm -rf "$out"
finish
