/* is_like: the communication pattern of a NAS-IS-like integer bucket sort, compiled once per
 * process count as the NAS suites are (key count and rank count are compile-time constants).
 *
 * Every rank draws TOTAL_KEYS / NPROCS keys in [0, MAX_KEY) from a linear congruential generator
 * with a fixed seed per rank (the sum of four draws, so the keys are roughly Gaussian and the
 * buckets uneven). Each iteration (NITER), as NAS IS's rank():
 *   - two keys are set from the iteration number;
 *   - the keys are counted into NBUCKETS buckets; MPI_Allreduce (MPI_SUM) of the bucket sizes;
 *   - the buckets are dealt to the ranks in order so that each gets about TOTAL_KEYS / NPROCS
 *     keys (every rank computes the same split from the global sizes);
 *   - MPI_Alltoall of the send counts (one int per rank);
 *   - MPI_Alltoallv of the keys (counts that follow the data, different for every pair);
 *   - the received keys are ranked locally (a counting sort over the rank's key range).
 * At the end: a partial verification, MPI_Allreduce of the number of out-of-order keys, and
 * MPI_Reduce of a checksum to rank 0.
 *
 * Compile-time constants: NPROCS (required: the rank count, checked against MPI_Comm_size),
 * TOTAL_KEYS (default 65536, a multiple of NPROCS), MAX_KEY (default 16384), NBUCKETS (default 4096: fine enough that the buckets dealt to a rank add up to within 1-3% of its share, as NAS IS's do),
 * NITER (iterations, default 4).
 *
 *   mpicc -O2 -DNPROCS=16 -o is_like.16 is_like.c && mpiexec -n 16 ./is_like.16
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NPROCS
#error "compile with -DNPROCS=<number of ranks>"
#endif
#ifndef TOTAL_KEYS
#define TOTAL_KEYS 65536
#endif
#ifndef MAX_KEY
#define MAX_KEY 16384
#endif
#ifndef NBUCKETS
#define NBUCKETS 4096
#endif
#ifndef NITER
#define NITER 4
#endif
#if TOTAL_KEYS % NPROCS != 0
#error "is_like: TOTAL_KEYS must be a multiple of NPROCS"
#endif

#define NKEYS (TOTAL_KEYS / NPROCS)
#define SHIFT_BUCKET (MAX_KEY / NBUCKETS)

static unsigned long long lcg_state;
static unsigned lcg(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(lcg_state >> 33);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NPROCS) {
    if (rank == 0)
      fprintf(stderr, "is_like: compiled for NPROCS=%d processes but run on %d; rebuild with -DNPROCS=%d\n",
              NPROCS, size, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  static int keys[NKEYS];
  int* recv = malloc(sizeof(int) * (size_t)TOTAL_KEYS); /* at most every key */
  int* sorted = malloc(sizeof(int) * (size_t)TOTAL_KEYS);
  static int counts_local[NBUCKETS], counts_global[NBUCKETS], bucket_owner[NBUCKETS];
  static int key_count[MAX_KEY];
  int sendcounts[NPROCS], recvcounts[NPROCS], sdispls[NPROCS], rdispls[NPROCS];
  int* by_bucket = malloc(sizeof(int) * NKEYS);

  lcg_state = 314159265ULL + 271828183ULL * (unsigned long long)rank;
  for (int i = 0; i < NKEYS; ++i) {
    unsigned s = 0;
    for (int d = 0; d < 4; ++d) s += lcg() % (MAX_KEY / 4);
    keys[i] = (int)s;
  }

  int nrecv = 0;
  long long checksum = 0;
  for (int it = 1; it <= NITER; ++it) {
    if (rank == 0) {
      keys[it] = it;
      keys[it + NITER] = MAX_KEY - it;
    }
    memset(counts_local, 0, sizeof counts_local);
    for (int i = 0; i < NKEYS; ++i) counts_local[keys[i] / SHIFT_BUCKET]++;
    MPI_Allreduce(counts_local, counts_global, NBUCKETS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* Deal the buckets: rank r takes buckets until its total reaches (r + 1) * TOTAL_KEYS / P. */
    long long acc = 0;
    int owner = 0;
    for (int b = 0; b < NBUCKETS; ++b) {
      bucket_owner[b] = owner;
      acc += counts_global[b];
      while (owner < NPROCS - 1 && acc >= (long long)(owner + 1) * TOTAL_KEYS / NPROCS) ++owner;
    }
    memset(sendcounts, 0, sizeof sendcounts);
    for (int b = 0; b < NBUCKETS; ++b) sendcounts[bucket_owner[b]] += counts_local[b];
    sdispls[0] = 0;
    for (int r = 1; r < NPROCS; ++r) sdispls[r] = sdispls[r - 1] + sendcounts[r - 1];
    {
      int fill[NPROCS];
      memcpy(fill, sdispls, sizeof fill);
      for (int i = 0; i < NKEYS; ++i) by_bucket[fill[bucket_owner[keys[i] / SHIFT_BUCKET]]++] = keys[i];
    }
    MPI_Alltoall(sendcounts, 1, MPI_INT, recvcounts, 1, MPI_INT, MPI_COMM_WORLD);
    rdispls[0] = 0;
    for (int r = 1; r < NPROCS; ++r) rdispls[r] = rdispls[r - 1] + recvcounts[r - 1];
    nrecv = rdispls[NPROCS - 1] + recvcounts[NPROCS - 1];
    MPI_Alltoallv(by_bucket, sendcounts, sdispls, MPI_INT, recv, recvcounts, rdispls, MPI_INT, MPI_COMM_WORLD);
    /* Rank the received keys: counting sort over the key range. */
    memset(key_count, 0, sizeof key_count);
    for (int i = 0; i < nrecv; ++i) key_count[recv[i]]++;
    int pos = 0;
    for (int k = 0; k < MAX_KEY; ++k)
      for (int c = 0; c < key_count[k]; ++c) sorted[pos++] = k;
    checksum = 0;
    for (int i = 0; i < nrecv; ++i) checksum += (long long)sorted[i] * (i % 13 + 1);
  }
  /* Verification: local order, and the boundary with the next rank is not checked (a summary). */
  int bad_local = 0, bad;
  for (int i = 1; i < nrecv; ++i) bad_local += sorted[i - 1] > sorted[i];
  MPI_Allreduce(&bad_local, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  long long total = 0;
  MPI_Reduce(&checksum, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("is_like: P=%d keys %d out of order %d checksum %lld\n", NPROCS, TOTAL_KEYS, bad, total);
  free(recv);
  free(sorted);
  free(by_bucket);
  MPI_Finalize();
  return 0;
}
