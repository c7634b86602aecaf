// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_mpi_check: an MPI job whose results are checked, for the provider
 * "mrc" under ofi_rxm (selftests/mrc/mrc_mpi.sh runs it with Open MPI's
 * cm PML and OFI MTL across two network namespaces; Documentation/
 * networking/mrc-libfabric.rst, "MPI over MRC").
 *
 * Rank 0 <-> rank 1 ping-pong of 1 B to 1 MiB (rank 1 answers a transform
 * of what it received, both ends check every byte), MPI_Allreduce of known
 * per-rank vectors (sums checked exactly, a small one and a large one) and
 * MPI_Alltoall of rank * 1000 + dest patterns (checked). An argument, the
 * largest message in bytes (default 1 MiB), bounds every message: the
 * ping-pong sizes, the large allreduce (that many bytes) and the large
 * alltoall (a quarter of it per peer); the provider's AF_UNIX test backend
 * carries 64 KiB less its header.
 *
 * Each rank prints "# rank R of N on HOST, netns net:[INODE]" (so that the
 * test sees each rank in its own namespace); rank 0 prints one "ok N - ..."
 * or "not ok N - ..." line per check (a check fails when it fails on any
 * rank) and "mrc_mpi_check: N passed, N failed"; every rank exits 1 if any
 * check failed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char usage[] = "usage: mrc_mpi_check [MAX_BYTES, 1024..1048576]\n";

static int rank, nranks, passed, failed;

/* report: agree on a check across the ranks (bad counts the local errors) */
static void report(long bad, const char *fmt, const char *what)
{
	long total = 0;

	MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	if (total)
		failed++;
	else
		passed++;
	if (rank == 0) {
		printf("%sok %d - ", total ? "not " : "", passed + failed);
		printf(fmt, what);
		if (total)
			printf(" (%ld mismatches)", total);
		printf("\n");
		fflush(stdout);
	}
}

static unsigned char pat(size_t i, unsigned int seed)
{
	return (unsigned char)((i * 131u + seed * 17u + (i >> 8)) & 0xff);
}

/*
 * pingpong SIZE ITERS: rank 0 sends, rank 1 checks and sends back the
 * bytes xor 0x5a, rank 0 checks; ranks above 1 only take part in report.
 */
static void pingpong(size_t size, int iters)
{
	unsigned char *buf = malloc(size), *want = malloc(size);
	long bad = 0;
	char what[64];
	int it;
	size_t i;

	if (!buf || !want) {
		fprintf(stderr, "rank %d: out of memory\n", rank);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (it = 0; it < iters && rank < 2; it++) {
		for (i = 0; i < size; i++)
			want[i] = pat(i, (unsigned int)(size + it));
		if (rank == 0) {
			memcpy(buf, want, size);
			MPI_Send(buf, (int)size, MPI_BYTE, 1, it, MPI_COMM_WORLD);
			memset(buf, 0, size);
			MPI_Recv(buf, (int)size, MPI_BYTE, 1, it, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			for (i = 0; i < size; i++)
				bad += buf[i] != (want[i] ^ 0x5a);
		} else {
			MPI_Status st;
			int count;

			memset(buf, 0, size);
			MPI_Recv(buf, (int)size, MPI_BYTE, 0, it, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			bad += (size_t)count != size;
			for (i = 0; i < size; i++) {
				bad += buf[i] != want[i];
				buf[i] ^= 0x5a;
			}
			MPI_Send(buf, (int)size, MPI_BYTE, 0, it, MPI_COMM_WORLD);
		}
	}
	snprintf(what, sizeof(what), "%zu bytes x %d", size, iters);
	report(bad, "ping-pong rank 0 <-> rank 1, %s, data checked both ways", what);
	free(buf);
	free(want);
}

/*
 * allreduce N: element i of rank r is r * 100000 + i (int64); the sum is
 * (0 + 1 + ... + nranks - 1) * 100000 + nranks * i
 */
static void allreduce(size_t n)
{
	int64_t *in = malloc(n * sizeof(*in)), *out = malloc(n * sizeof(*out));
	int64_t rsum = (int64_t)nranks * (nranks - 1) / 2;
	long bad = 0;
	char what[64];
	size_t i;

	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < n; i++) {
		in[i] = (int64_t)rank * 100000 + (int64_t)i;
		out[i] = -1;
	}
	MPI_Allreduce(in, out, (int)n, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		bad += out[i] != rsum * 100000 + (int64_t)nranks * (int64_t)i;
	snprintf(what, sizeof(what), "%zu int64 (%zu bytes)", n, n * sizeof(*in));
	report(bad, "MPI_Allreduce sum of %s, checked exactly", what);
	free(in);
	free(out);
}

/*
 * alltoall K: block dest of rank r's send buffer is K int64, element k
 * (r * 1000 + dest) * 65536 + k; rank r checks block src is
 * (src * 1000 + r) * 65536 + k
 */
static void alltoall(size_t k)
{
	size_t n = k * (size_t)nranks, i, j;
	int64_t *in = malloc(n * sizeof(*in)), *out = malloc(n * sizeof(*out));
	long bad = 0;
	char what[64];

	if (!in || !out)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (i = 0; i < (size_t)nranks; i++)
		for (j = 0; j < k; j++) {
			in[i * k + j] = ((int64_t)rank * 1000 + (int64_t)i) * 65536 + (int64_t)j;
			out[i * k + j] = -1;
		}
	MPI_Alltoall(in, (int)k, MPI_INT64_T, out, (int)k, MPI_INT64_T, MPI_COMM_WORLD);
	for (i = 0; i < (size_t)nranks; i++)
		for (j = 0; j < k; j++)
			bad += out[i * k + j] !=
			       ((int64_t)i * 1000 + rank) * 65536 + (int64_t)j;
	snprintf(what, sizeof(what), "%zu int64 per peer", k);
	report(bad, "MPI_Alltoall rank*1000+dest pattern, %s, checked", what);
	free(in);
	free(out);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 8, 64, 1024, 4096, 16384, 65536,
					262144, 1048576 };
	size_t max = 1048576;
	char host[MPI_MAX_PROCESSOR_NAME], netns[64] = "?", *end;
	ssize_t n;
	int len, i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	if (argc > 1) {
		max = strtoul(argv[1], &end, 0);
		if (*end || max < 1024 || max > 1048576) {
			if (rank == 0)
				fputs(usage, stderr);
			MPI_Finalize();
			return 2;
		}
	}
	MPI_Get_processor_name(host, &len);
	n = readlink("/proc/self/ns/net", netns, sizeof(netns) - 1);
	netns[n > 0 ? n : 1] = '\0';
	printf("# rank %d of %d on %s, netns %s\n", rank, nranks, host, netns);
	fflush(stdout);
	if (nranks < 2) {
		if (rank == 0)
			printf("not ok 1 - needs 2 ranks or more, has %d\n", nranks);
		MPI_Finalize();
		return 1;
	}
	MPI_Barrier(MPI_COMM_WORLD);

	for (i = 0; i < (int)ARRAY_SIZE(sizes) && sizes[i] <= max; i++)
		pingpong(sizes[i], sizes[i] >= 262144 ? 4 : 20);
	if (sizes[i - 1] != max)
		pingpong(max, 4);
	allreduce(100);
	allreduce(max / sizeof(int64_t));
	alltoall(1);
	alltoall(max / sizeof(int64_t) / 4);

	if (rank == 0) {
		printf("mrc_mpi_check: %d passed, %d failed\n", passed, failed);
		fflush(stdout);
	}
	MPI_Finalize();
	return failed ? 1 : 0;
}
