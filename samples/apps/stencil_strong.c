/* stencil_strong: a strong-scaling 2-D five-point stencil.
 *
 * A fixed global grid of g x g cells (g = 240 by default) is cut into px x py blocks, px the
 * largest divisor of the rank count not above its square root (as stencil2d: 3x3, 3x4, 4x4,
 * 4x6, 8x8), so the block of a rank is (g/px) x (g/py) cells: as the rank count grows the
 * messages and the compute per rank shrink. Each timestep a rank exchanges its block's edges
 * with its existing neighbours (MPI_Irecv, MPI_Isend per direction at one call site each, then
 * MPI_Waitall): g/px doubles north and south, g/py doubles west and east; then it relaxes its
 * block and joins an MPI_Allreduce. g must be divisible by px and py.
 *
 * work > 0 adds that many steps of arithmetic per cell and timestep (a dependent chain of
 * divisions, c = 1 / (1 + c)), as a code with an expensive cell update (chemistry, an equation of
 * state) has: with a long chain (128) a cell costs the divider's latency times the steps whether
 * the rank's block fits in a cache or not, so that compute per rank follows the cell count alone
 * (bench/extrapolate-compute.sh). The plain five-point update (work = 0) moves 16 bytes per cell
 * for 6 flops: its cost per cell depends on which cache level the block fits in, and so on the
 * rank count.
 *
 * Usage: stencil_strong [iterations=100] [g=240] [work=0]
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
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  const int g = argc > 2 ? atoi(argv[2]) : 240;
  const int work = argc > 3 ? atoi(argv[3]) : 0;

  int px = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) px = d;
  const int py = size / px;
  if (g % px || g % py) {
    if (rank == 0) fprintf(stderr, "stencil_strong: g=%d is not divisible by the %dx%d grid\n", g, px, py);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int bx = g / px, by = g / py; /* block: bx columns, by rows */
  const int x = rank % px, y = rank / px;
  int nbr[DIRS], len[DIRS];
  nbr[NORTH] = y > 0 ? rank - px : -1;
  nbr[SOUTH] = y < py - 1 ? rank + px : -1;
  nbr[WEST] = x > 0 ? rank - 1 : -1;
  nbr[EAST] = x < px - 1 ? rank + 1 : -1;
  len[NORTH] = len[SOUTH] = bx; /* a row of the block */
  len[WEST] = len[EAST] = by;   /* a column */
  static const int opposite[DIRS] = {SOUTH, NORTH, EAST, WEST};

  const int w = bx + 2, h = by + 2;
  double* u = calloc((size_t)(w * h), sizeof *u);
  double* v = calloc((size_t)(w * h), sizeof *v);
  double* sendbuf[DIRS];
  double* recvbuf[DIRS];
  for (int d = 0; d < DIRS; ++d) {
    sendbuf[d] = calloc((size_t)len[d], sizeof(double));
    recvbuf[d] = calloc((size_t)len[d], sizeof(double));
  }
  for (int j = 1; j <= by; ++j) u[j * w + 1] = rank + 1.0;

  double residual = 0, chain = 0; /* chain: the sum of the work steps' results, kept live */
  for (int it = 0; it < iters; ++it) {
    MPI_Request req[2 * DIRS];
    int nreq = 0;
    for (int i = 0; i < bx; ++i) {
      sendbuf[NORTH][i] = u[1 * w + i + 1];
      sendbuf[SOUTH][i] = u[by * w + i + 1];
    }
    for (int j = 0; j < by; ++j) {
      sendbuf[WEST][j] = u[(j + 1) * w + 1];
      sendbuf[EAST][j] = u[(j + 1) * w + bx];
    }
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0) MPI_Irecv(recvbuf[d], len[d], MPI_DOUBLE, nbr[d], opposite[d], MPI_COMM_WORLD, &req[nreq++]);
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0) MPI_Isend(sendbuf[d], len[d], MPI_DOUBLE, nbr[d], d, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    for (int i = 0; i < bx; ++i) {
      if (nbr[NORTH] >= 0) u[i + 1] = recvbuf[NORTH][i];
      if (nbr[SOUTH] >= 0) u[(by + 1) * w + i + 1] = recvbuf[SOUTH][i];
    }
    for (int j = 0; j < by; ++j) {
      if (nbr[WEST] >= 0) u[(j + 1) * w] = recvbuf[WEST][j];
      if (nbr[EAST] >= 0) u[(j + 1) * w + bx + 1] = recvbuf[EAST][j];
    }
    double local = 0;
    for (int j = 1; j <= by; ++j)
      for (int i = 1; i <= bx; ++i) {
        v[j * w + i] = 0.25 * (u[(j - 1) * w + i] + u[(j + 1) * w + i] + u[j * w + i - 1] + u[j * w + i + 1]);
        const double diff = v[j * w + i] - u[j * w + i];
        local += diff * diff;
        double c = v[j * w + i];
        for (int k = 0; k < work; ++k) c = 1.0 / (1.0 + c); /* stays in (0.5, 1]: no denormals */
        chain += c;
      }
    double* t = u;
    u = v;
    v = t;
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0)
    printf("stencil_strong: %d ranks (%dx%d), %dx%d cells each, %d iterations, residual %.6e, work %d (%.6e)\n",
           size, px, py, bx, by, iters, residual, work, chain);

  for (int d = 0; d < DIRS; ++d) {
    free(sendbuf[d]);
    free(recvbuf[d]);
  }
  free(u);
  free(v);
  MPI_Finalize();
  return 0;
}
