/* wavefront: an LU-like pipelined wavefront (NPB LU's SSOR sweeps).
 *
 * The ranks form a px x py grid. Each iteration sweeps nz planes twice: the lower sweep starts
 * at the north-west corner (a rank receives one message from each existing north and west
 * neighbour, with MPI_ANY_SOURCE as NPB LU does, computes its plane and sends to its south and
 * east neighbours), the upper sweep runs back from the south-east corner. The number of
 * wildcard receives per plane (0, 1 or 2) and of sends depends on the rank's position, so
 * corners, edges and the interior behave differently: LU's nine clusters. An MPI_Allreduce of
 * the residual closes each iteration.
 *
 * Usage: wavefront [iterations=20] [nz=16] [n=32]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Receives `expected` messages of n doubles from any source and accumulates them. */
static void receive_any(double* buf, int n, int expected, int tag, double* acc) {
  for (int k = 0; k < expected; ++k) {
    MPI_Recv(buf, n, MPI_DOUBLE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; ++i) acc[i] += buf[i];
  }
}

/* A stand-in for the plane's relaxation: a few passes over the block. */
static double relax(double* plane, const double* in, int n) {
  double s = 0;
  for (int pass = 0; pass < 4; ++pass)
    for (int i = 0; i < n * n; ++i) {
      plane[i] = 0.5 * plane[i] + 0.25 * in[i % n] + 1e-3;
      s += plane[i];
    }
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  const int nz = argc > 2 ? atoi(argv[2]) : 16;
  const int n = argc > 3 ? atoi(argv[3]) : 32;

  int px = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) px = d;
  const int x = rank % px, y = rank / px, py = size / px;
  const int north = y > 0 ? rank - px : -1, south = y < py - 1 ? rank + px : -1;
  const int west = x > 0 ? rank - 1 : -1, east = x < px - 1 ? rank + 1 : -1;

  double* plane = calloc((size_t)(n * n), sizeof(double));
  double* in = calloc((size_t)n, sizeof(double));
  double* buf = calloc((size_t)n, sizeof(double));
  double* out = calloc((size_t)n, sizeof(double));
  double residual = 0;

  for (int it = 0; it < iters; ++it) {
    double local = 0;
    /* Lower sweep: from the north-west corner towards the south-east. */
    for (int k = 0; k < nz; ++k) {
      for (int i = 0; i < n; ++i) in[i] = 0;
      receive_any(buf, n, (north >= 0) + (west >= 0), 1, in);
      local += relax(plane, in, n);
      for (int i = 0; i < n; ++i) out[i] = plane[(n - 1) * n + i];
      if (south >= 0) MPI_Send(out, n, MPI_DOUBLE, south, 1, MPI_COMM_WORLD);
      if (east >= 0) MPI_Send(out, n, MPI_DOUBLE, east, 1, MPI_COMM_WORLD);
    }
    /* Upper sweep: back from the south-east corner. */
    for (int k = nz - 1; k >= 0; --k) {
      for (int i = 0; i < n; ++i) in[i] = 0;
      receive_any(buf, n, (south >= 0) + (east >= 0), 2, in);
      local += relax(plane, in, n);
      for (int i = 0; i < n; ++i) out[i] = plane[i];
      if (north >= 0) MPI_Send(out, n, MPI_DOUBLE, north, 2, MPI_COMM_WORLD);
      if (west >= 0) MPI_Send(out, n, MPI_DOUBLE, west, 2, MPI_COMM_WORLD);
    }
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("wavefront: %d ranks, %d iterations x %d planes, residual %.6e\n", size, iters, nz, residual);
  free(plane);
  free(in);
  free(buf);
  free(out);
  MPI_Finalize();
  return 0;
}
