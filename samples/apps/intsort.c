/* intsort: an NPB-IS-like bucket sort of random integer keys.
 *
 * Every iteration each rank draws its keys (a generator seeded by rank: every run and every
 * iteration draws the same keys, as NPB IS sorts the same keys again). The keys are the mean of
 * four uniform draws, NPB IS's bell-shaped distribution. As NPB IS does, the ranks add up how
 * many keys fall into each of NUM_BUCKETS fine buckets of key values (MPI_Allreduce) and hand
 * the buckets out in order so that every rank gets about the same number of keys (the next rank
 * starts once the running total reaches its share). Each rank then exchanges its counts with
 * MPI_Alltoall and the keys themselves with MPI_Alltoallv, sorts what it received and checks
 * with MPI_Allreduce that no key was lost.
 *
 * The Alltoallv's counts and displacements differ for every pair of ranks and follow no formula
 * (they follow the keys): the values a benchmark generator must keep as tables. Every rank's
 * total is its keys (sent) and about its share of all keys (received): off by at most one
 * bucket, which the fine buckets make small (under 0.5% with 16384 keys per rank at 64 ranks),
 * so that totals, not the single counts, follow the scale, as `tracegen extrapolate` models them.
 *
 * Usage: intsort [iterations=10] [keys_per_rank=1000]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_KEY (1 << 20)
#define NUM_BUCKETS (1 << 16)
#define BUCKET_OF(key) ((key) >> 4) /* MAX_KEY / NUM_BUCKETS key values per bucket */

/* A 32-bit xorshift generator: the same keys on every run and every MPI library. */
static unsigned next_random(unsigned* state) {
  unsigned x = *state;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *state = x;
}

static int compare_ints(const void* a, const void* b) {
  const int x = *(const int*)a, y = *(const int*)b;
  return (x > y) - (x < y);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 10;
  const int nkeys = argc > 2 ? atoi(argv[2]) : 1000;

  int* keys = malloc(sizeof(int) * (size_t)nkeys);
  int* bucketed = malloc(sizeof(int) * (size_t)nkeys);
  int* received = malloc(sizeof(int) * (size_t)nkeys * (size_t)size); /* at most every key */
  int* send_counts = calloc((size_t)size, sizeof(int));
  int* recv_counts = calloc((size_t)size, sizeof(int));
  int* send_displs = calloc((size_t)size, sizeof(int));
  int* recv_displs = calloc((size_t)size, sizeof(int));
  int* fill = calloc((size_t)size, sizeof(int));
  int* bucket_size = malloc(sizeof(int) * NUM_BUCKETS);
  int* bucket_total = malloc(sizeof(int) * NUM_BUCKETS);
  int* owner = malloc(sizeof(int) * NUM_BUCKETS); /* the rank that sorts each bucket */
  const long all_keys = (long)nkeys * size;

  long total = 0;
  for (int it = 0; it < iters; ++it) {
    unsigned state = 2463534242u + 7919u * (unsigned)rank;
    for (int b = 0; b < NUM_BUCKETS; ++b) bucket_size[b] = 0;
    for (int i = 0; i < nkeys; ++i) {
      unsigned sum = 0;
      for (int d = 0; d < 4; ++d) sum += next_random(&state) % (unsigned)MAX_KEY;
      keys[i] = (int)(sum / 4);
      ++bucket_size[BUCKET_OF(keys[i])];
    }
    /* Hand the buckets out in order: rank r's share ends where the running total reaches
       (r + 1) / size of all keys. */
    MPI_Allreduce(bucket_size, bucket_total, NUM_BUCKETS, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    long running = 0;
    for (int b = 0, r = 0; b < NUM_BUCKETS; ++b) {
      owner[b] = r;
      running += bucket_total[b];
      if (r < size - 1 && running * size >= (long)(r + 1) * all_keys) ++r;
    }
    for (int r = 0; r < size; ++r) send_counts[r] = 0;
    for (int i = 0; i < nkeys; ++i) ++send_counts[owner[BUCKET_OF(keys[i])]];
    /* Bucket the keys by destination rank. */
    for (int r = 0; r < size; ++r) send_displs[r] = r == 0 ? 0 : send_displs[r - 1] + send_counts[r - 1];
    for (int r = 0; r < size; ++r) fill[r] = send_displs[r];
    for (int i = 0; i < nkeys; ++i) bucketed[fill[owner[BUCKET_OF(keys[i])]]++] = keys[i];

    MPI_Alltoall(send_counts, 1, MPI_INT, recv_counts, 1, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) recv_displs[r] = r == 0 ? 0 : recv_displs[r - 1] + recv_counts[r - 1];
    MPI_Alltoallv(bucketed, send_counts, send_displs, MPI_INT, received, recv_counts, recv_displs, MPI_INT,
                  MPI_COMM_WORLD);

    /* Sort the keys of this rank's range; the counts sum to every rank's keys. */
    const int mine = recv_displs[size - 1] + recv_counts[size - 1];
    qsort(received, (size_t)mine, sizeof(int), compare_ints);
    long local = mine, all = 0;
    MPI_Allreduce(&local, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (all != (long)nkeys * size) {
      if (rank == 0) fprintf(stderr, "intsort: %ld keys after the exchange, not %ld\n", all, (long)nkeys * size);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    total += all;
  }
  if (rank == 0)
    printf("intsort: %d ranks, %d keys per rank, %d iterations, %ld keys sorted\n", size, nkeys, iters, total);
  free(keys);
  free(bucketed);
  free(received);
  free(send_counts);
  free(recv_counts);
  free(send_displs);
  free(recv_displs);
  free(fill);
  free(bucket_size);
  free(bucket_total);
  free(owner);
  MPI_Finalize();
  return 0;
}
