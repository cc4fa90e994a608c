/* opaque: a halo exchange that also uses calls tracegen records but does not model.
 *
 * Each iteration exchanges `n` doubles with both ring neighbours (MPI_Isend, MPI_Irecv,
 * MPI_Waitall), puts one value into the right neighbour's window between two MPI_Win_fence
 * calls (one-sided communication), starts a nonblocking barrier (MPI_Ibarrier) that the
 * MPI_Wait after the next MPI_Allreduce completes. The recorder writes the one-sided calls and
 * the barrier as opaque events; `tracegen` refuses to generate a benchmark from the trace
 * unless given --skip-unknown, which leaves a comment in the place of each.
 *
 * Usage: opaque [iterations=20] [n=256]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  const int n = argc > 2 ? atoi(argv[2]) : 256;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double* out = calloc((size_t)n, sizeof(double));
  double* in = calloc((size_t)(2 * n), sizeof(double));
  double cell = 0, value = 0, total = 0;
  MPI_Win win;
  MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  for (int it = 0; it < iters; ++it) {
    MPI_Request reqs[4];
    for (int i = 0; i < n; ++i) out[i] = rank + it + i;
    MPI_Irecv(in, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(in + n, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(out, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(out, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    value = in[0] + in[n];
    MPI_Win_fence(0, win);
    MPI_Put(&value, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win);
    MPI_Win_fence(0, win);
    MPI_Request barrier;
    MPI_Ibarrier(MPI_COMM_WORLD, &barrier);
    double sum = 0;
    MPI_Allreduce(&cell, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Wait(&barrier, MPI_STATUS_IGNORE);
    total += sum;
  }
  MPI_Win_free(&win);
  if (rank == 0) printf("opaque: %d ranks, %d iterations, total %g\n", size, iters, total);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
