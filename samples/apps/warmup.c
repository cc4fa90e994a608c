/* warmup: a ring exchange whose first iteration computes ten times longer than the rest.
 *
 * Each iteration every rank exchanges a block with its neighbours on a ring (one MPI_Sendrecv),
 * computes (busy-waiting on the monotonic clock: `first` microseconds in the first iteration,
 * `rest` in the others, as a code that warms its caches or builds a table once), and joins an
 * MPI_Allreduce. The computation before the MPI_Allreduce follows the MPI_Sendrecv at every
 * iteration, so one time histogram holds all of it and its drift over the calls (the first
 * call slow, the others fast) is what the trace must keep (docs/trace-format.md, "Drift over
 * calls"; tests/e2e/record_drift.sh).
 *
 * Usage: warmup [iterations=30] [first_us=2000] [rest_us=200]
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* Busy-waits for `us` microseconds of wall-clock time. */
static void compute_for(double us) {
  const double until = now_us() + us;
  while (now_us() < until) {
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 30;
  const double first = argc > 2 ? atof(argv[2]) : 2000;
  const double rest = argc > 3 ? atof(argv[3]) : 200;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double block[64], incoming[64], total = 0;
  for (int i = 0; i < 64; ++i) block[i] = rank + i;
  for (int it = 0; it < iters; ++it) {
    MPI_Sendrecv(block, 64, MPI_DOUBLE, right, 0, incoming, 64, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    compute_for(it == 0 ? first : rest);
    double local = incoming[it % 64], sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  if (rank == 0) printf("warmup: %d ranks, %d iterations, total %g\n", size, iters, total);
  MPI_Finalize();
  return 0;
}
