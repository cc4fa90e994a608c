/* stencil2d: 2-D halo exchange, the classic SPMD pattern.
 *
 * The ranks form a px x py grid (no wrap-around). Each timestep every rank posts one MPI_Irecv
 * and one MPI_Isend per existing neighbour (north, south, west, east; one call site each, in a
 * loop over directions, with the direction as the tag), waits for all of them with MPI_Waitall,
 * performs a Jacobi sweep over its n x n block and computes the global residual with
 * MPI_Allreduce. Corner, edge and interior ranks have 2, 3 and 4 neighbours: the same call
 * path with different trip counts and peers, which clustering turns into one main cluster with
 * up to nine parameter sub-clusters.
 *
 * Usage: stencil2d [iterations=200] [n=64]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { NORTH, SOUTH, WEST, EAST, DIRS };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 200;
  const int n = argc > 2 ? atoi(argv[2]) : 64;

  /* px = the largest divisor of size not above its square root: 2x2, 2x4, 4x4. */
  int px = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) px = d;
  const int py = size / px;
  const int x = rank % px, y = rank / px;
  int nbr[DIRS];
  nbr[NORTH] = y > 0 ? rank - px : -1;
  nbr[SOUTH] = y < py - 1 ? rank + px : -1;
  nbr[WEST] = x > 0 ? rank - 1 : -1;
  nbr[EAST] = x < px - 1 ? rank + 1 : -1;
  static const int opposite[DIRS] = {SOUTH, NORTH, EAST, WEST};

  /* The block with a one-cell halo, (n + 2) x (n + 2), and one buffer per direction. */
  const int w = n + 2;
  double* u = calloc((size_t)(w * w), sizeof *u);
  double* v = calloc((size_t)(w * w), sizeof *v);
  double* sendbuf[DIRS];
  double* recvbuf[DIRS];
  for (int d = 0; d < DIRS; ++d) {
    sendbuf[d] = calloc((size_t)n, sizeof(double));
    recvbuf[d] = calloc((size_t)n, sizeof(double));
  }
  for (int i = 1; i <= n; ++i) u[i * w + 1] = rank + 1.0; /* a deterministic start */

  double residual = 0;
  for (int it = 0; it < iters; ++it) {
    MPI_Request req[2 * DIRS];
    int nreq = 0;
    for (int i = 0; i < n; ++i) { /* boundary rows and columns of the block */
      sendbuf[NORTH][i] = u[1 * w + i + 1];
      sendbuf[SOUTH][i] = u[n * w + i + 1];
      sendbuf[WEST][i] = u[(i + 1) * w + 1];
      sendbuf[EAST][i] = u[(i + 1) * w + n];
    }
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0) MPI_Irecv(recvbuf[d], n, MPI_DOUBLE, nbr[d], opposite[d], MPI_COMM_WORLD, &req[nreq++]);
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0) MPI_Isend(sendbuf[d], n, MPI_DOUBLE, nbr[d], d, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < n; ++i) { /* halo cells; missing neighbours keep a zero boundary */
      if (nbr[NORTH] >= 0) u[0 * w + i + 1] = recvbuf[NORTH][i];
      if (nbr[SOUTH] >= 0) u[(n + 1) * w + i + 1] = recvbuf[SOUTH][i];
      if (nbr[WEST] >= 0) u[(i + 1) * w + 0] = recvbuf[WEST][i];
      if (nbr[EAST] >= 0) u[(i + 1) * w + n + 1] = recvbuf[EAST][i];
    }
    double local = 0;
    for (int i = 1; i <= n; ++i)
      for (int j = 1; j <= n; ++j) {
        v[i * w + j] = 0.25 * (u[(i - 1) * w + j] + u[(i + 1) * w + j] + u[i * w + j - 1] + u[i * w + j + 1]);
        const double diff = v[i * w + j] - u[i * w + j];
        local += diff * diff;
      }
    double* t = u;
    u = v;
    v = t;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("stencil2d: %d ranks (%dx%d), %d iterations, residual %.6e\n", size, px, py, iters, residual);

  for (int d = 0; d < DIRS; ++d) {
    free(sendbuf[d]);
    free(recvbuf[d]);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
