#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Open MPI's rsh agent for mrc_mpi.sh (--mca plm_rsh_agent): mpirun runs
# "AGENT [-x...] HOST COMMAND..." as it would run ssh; a fabric host is a
# network namespace, so HOST is the namespace's name and the command runs
# there through a shell, as sshd would run it. Options before HOST (ssh's)
# are ignored.
while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;;
	*) break ;;
	esac
done
ns=$1
shift
exec ip netns exec "$ns" /bin/sh -c "$*"
