#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Open MPI's rsh agent for mrc_mpi.sh (--mca plm_rsh_agent): mpirun runs
# "AGENT [-x...] HOST COMMAND..." as it would run ssh; a fabric host is a
# network namespace, so HOST is the namespace's name and the command runs
# there through a shell, as sshd would run it. Options before HOST (ssh's)
# are ignored.
#
# Each fabric host gets its own temporary directory (TMPDIR, where Open
# MPI puts its session directory and PMIx its rendezvous sockets), under
# $MRC_MPI_HOSTS_DIR when set: hosts do not share /tmp. Both orteds
# starting at once in one /tmp lost one of them now and then (1 launch in
# about 30 on the build host, /bin/true as the job and no provider at all):
# mpirun then waited for a daemon that never called back, until the
# test's timeout (CI of ccda044, both kernels).
while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;;
	*) break ;;
	esac
done
ns=$1
shift
tmp=${MRC_MPI_HOSTS_DIR:-/tmp}/$ns
mkdir -p "$tmp" || exit 1
exec ip netns exec "$ns" env TMPDIR="$tmp" /bin/sh -c "$*"
