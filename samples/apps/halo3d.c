/* halo3d: 3-D 7-point halo exchange on a px x py x pz process grid (no wrap-around).
 *
 * The grid is chosen as MPI_Dims_create chooses one, as balanced as possible, with the extents
 * ascending and x the fastest coordinate (rank = x + px*(y + py*z)): 8 = 2x2x2, 12 = 2x2x3,
 * 18 = 2x3x3, 27 = 3x3x3, 64 = 4x4x4. Each timestep every rank posts one MPI_Irecv and one
 * MPI_Isend per existing neighbour (west, east, south, north, down, up; one call site each, in a
 * loop over the six directions, the direction as the tag), waits for them all with MPI_Waitall,
 * relaxes its n x n x n block and joins an MPI_Allreduce of the residual. Ranks have 3 to 6
 * neighbours by their position (27 position classes): the pattern tracegen extrapolate infers.
 *
 * Usage: halo3d [iterations=50] [n=16]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { DIRS = 6 };

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 50;
  const int n = argc > 2 ? atoi(argv[2]) : 16;

  /* px <= py <= pz with px*py*pz = size, the largest extent as small as possible, then the middle. */
  int px = 1, py = 1, pz = size;
  for (int a = 1; a * a * a <= size; ++a) {
    if (size % a) continue;
    const int q = size / a;
    for (int b = a; b * b <= q; ++b) {
      if (q % b) continue;
      const int c = q / b;
      if (c < pz || (c == pz && b < py)) {
        px = a;
        py = b;
        pz = c;
      }
    }
  }
  const int x = rank % px, y = (rank / px) % py, z = rank / (px * py);
  int nbr[DIRS];
  nbr[0] = x > 0 ? rank - 1 : -1;
  nbr[1] = x < px - 1 ? rank + 1 : -1;
  nbr[2] = y > 0 ? rank - px : -1;
  nbr[3] = y < py - 1 ? rank + px : -1;
  nbr[4] = z > 0 ? rank - px * py : -1;
  nbr[5] = z < pz - 1 ? rank + px * py : -1;
  static const int opposite[DIRS] = {1, 0, 3, 2, 5, 4};

  const size_t face = (size_t)n * (size_t)n;
  double* block = calloc(face * (size_t)n, sizeof *block);
  double* sendbuf[DIRS];
  double* recvbuf[DIRS];
  for (int d = 0; d < DIRS; ++d) {
    sendbuf[d] = calloc(face, sizeof(double));
    recvbuf[d] = calloc(face, sizeof(double));
  }
  for (size_t i = 0; i < face * (size_t)n; ++i) block[i] = rank + 1.0;

  double residual = 0;
  for (int it = 0; it < iters; ++it) {
    MPI_Request req[2 * DIRS];
    int nreq = 0;
    for (int d = 0; d < DIRS; ++d)
      for (size_t i = 0; i < face; ++i) sendbuf[d][i] = block[(i * 7 + (size_t)d) % (face * (size_t)n)];
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0) MPI_Irecv(recvbuf[d], n * n, MPI_DOUBLE, nbr[d], opposite[d], MPI_COMM_WORLD, &req[nreq++]);
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0) MPI_Isend(sendbuf[d], n * n, MPI_DOUBLE, nbr[d], d, MPI_COMM_WORLD, &req[nreq++]);
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    double local = 0;
    for (int d = 0; d < DIRS; ++d)
      if (nbr[d] >= 0)
        for (size_t i = 0; i < face; ++i) {
          const double diff = recvbuf[d][i] - block[i];
          block[i] += 0.1 * diff;
          local += diff * diff;
        }
    MPI_Allreduce(&local, &residual, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("halo3d: %d ranks (%dx%dx%d), %d iterations, residual %.6e\n", size, px, py, pz, iters, residual);

  for (int d = 0; d < DIRS; ++d) {
    free(sendbuf[d]);
    free(recvbuf[d]);
  }
  free(block);
  MPI_Finalize();
  return 0;
}
