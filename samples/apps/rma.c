/* rma: one-sided communication, with active and passive target synchronisation.
 *
 * Phase 1 (fence): every rank exposes a window of 2n doubles (MPI_Win_create on its own
 * memory) and, for `iterations` steps, puts its n boundary values into both ring neighbours'
 * windows (MPI_Put, left half from the left neighbour, right half from the right one) between
 * two MPI_Win_fence calls: a halo exchange without receives.
 * Phase 2 (lock/unlock): a second window of n doubles made by MPI_Win_allocate; each step every
 * rank reads its right neighbour's window (MPI_Win_lock shared, MPI_Get, MPI_Win_unlock) and adds
 * its values into its left neighbour's (MPI_Win_lock exclusive, MPI_Accumulate with MPI_SUM,
 * MPI_Win_flush, MPI_Win_unlock); in a MPI_Win_lock_all / MPI_Win_flush_all / MPI_Win_unlock_all
 * epoch on a third window (MPI_Win_create on a communicator that numbers the ranks in reverse,
 * MPI_Comm_split) every rank adds one value into rank 0 of that communicator, world rank P-1. An
 * MPI_Barrier ends each step, so that the reads see the last step's sums.
 *
 * Usage: rma [iterations=10] [n=64]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 10;
  const int n = argc > 2 ? atoi(argv[2]) : 64;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  /* Phase 1: halo exchange by MPI_Put between fences. */
  double* halo = calloc((size_t)(2 * n), sizeof(double));
  double* edge = calloc((size_t)n, sizeof(double));
  MPI_Win halo_win;
  MPI_Win_create(halo, (MPI_Aint)(2 * n * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &halo_win);
  double check = 0;
  MPI_Win_fence(MPI_MODE_NOPRECEDE, halo_win);
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) edge[i] = rank + it + 0.5 * i;
    MPI_Put(edge, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, halo_win); /* my values: right's left half */
    MPI_Put(edge, n, MPI_DOUBLE, left, n, n, MPI_DOUBLE, halo_win);  /* left's right half */
    MPI_Win_fence(0, halo_win);
    check += halo[0] + halo[n];
  }
  MPI_Win_fence(MPI_MODE_NOSUCCEED, halo_win);
  MPI_Win_free(&halo_win);

  /* Phase 2: passive target on a window of MPI_Win_allocate's memory (on MPI_COMM_WORLD: Open MPI
   * 4.1 names its shared backing file after the communicator's context id, which the two
   * communicators of a split share). */
  double* shared = NULL;
  MPI_Win acc_win;
  MPI_Win_allocate((MPI_Aint)(n * sizeof(double)), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &shared, &acc_win);
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, acc_win);
  for (int i = 0; i < n; ++i) shared[i] = 0;
  MPI_Win_unlock(rank, acc_win);
  MPI_Barrier(MPI_COMM_WORLD);
  /* ... and on a window of its own memory on a communicator that numbers the ranks in reverse
   * (MPI_Comm_split with one colour: Open MPI 4.1 cannot make windows on the several
   * communicators of one split, which share a context id) */
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &reversed);
  double total = 0;
  MPI_Win sum_win;
  MPI_Win_create(&total, sizeof total, sizeof total, MPI_INFO_NULL, reversed, &sum_win);
  double* got = calloc((size_t)n, sizeof(double));
  for (int it = 0; it < iters; ++it) {
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, acc_win);
    MPI_Get(got, n, MPI_DOUBLE, right, 0, n, MPI_DOUBLE, acc_win);
    MPI_Win_unlock(right, acc_win);
    for (int i = 0; i < n; ++i) edge[i] = got[i] * 0.5 + 1;
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, acc_win);
    MPI_Accumulate(edge, n, MPI_DOUBLE, left, 0, n, MPI_DOUBLE, MPI_SUM, acc_win);
    MPI_Win_flush(left, acc_win);
    MPI_Win_unlock(left, acc_win);
    /* rank 0 of the reversed communicator (world rank P-1) sums one value from every rank */
    MPI_Win_lock_all(MPI_MODE_NOCHECK, sum_win);
    MPI_Accumulate(&check, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, sum_win);
    MPI_Win_flush_all(sum_win);
    MPI_Win_unlock_all(sum_win);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Win_free(&sum_win);
  MPI_Win_free(&acc_win);
  MPI_Comm_free(&reversed);
  if (rank == 0) printf("rma: %d ranks, %d iterations, check %g\n", size, iters, check);
  free(got);
  free(halo);
  free(edge);
  MPI_Finalize();
  return 0;
}
