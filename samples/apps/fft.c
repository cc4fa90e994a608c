/* fft: an FT-like 3-D FFT with a transpose by MPI_Alltoall.
 *
 * Rank 0 broadcasts the problem parameters (MPI_Bcast); every iteration each rank transforms its
 * slab (a stand-in butterfly pass over complex values stored as pairs of doubles), transposes
 * with MPI_Alltoall (n*n/P complex values to every rank), transforms again, and the checksum is
 * reduced to rank 0 with MPI_Reduce, as NPB FT does each iteration. Every rank makes the same
 * calls with the same parameters: one cluster, whatever the number of ranks.
 *
 * Usage: fft [iterations=20] [n=64]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void butterfly(double* v, int count) {
  for (int i = 0; i + 1 < count; i += 2) {
    const double a = v[i], b = v[i + 1];
    v[i] = (a + b) * 0.70710678;
    v[i + 1] = (a - b) * 0.70710678 + 1e-6;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int params[2] = {argc > 1 ? atoi(argv[1]) : 20, argc > 2 ? atoi(argv[2]) : 64};
  MPI_Bcast(params, 2, MPI_INT, 0, MPI_COMM_WORLD);
  const int iters = params[0], n = params[1];

  /* Each rank holds n*n/P complex values per plane, n/P planes: a slab. */
  const int per_rank = n * n / size > 0 ? n * n / size : 1; /* complex values sent to each rank */
  const int local = per_rank * size;                        /* complex values held */
  double* a = malloc(sizeof(double) * 2 * (size_t)local);
  double* b = malloc(sizeof(double) * 2 * (size_t)local);
  for (int i = 0; i < 2 * local; ++i) a[i] = sin(0.001 * (i + rank * 2 * local));

  double checksum = 0;
  for (int it = 0; it < iters; ++it) {
    butterfly(a, 2 * local);
    MPI_Alltoall(a, 2 * per_rank, MPI_DOUBLE, b, 2 * per_rank, MPI_DOUBLE, MPI_COMM_WORLD);
    butterfly(b, 2 * local);
    double sum = 0;
    for (int i = 0; i < 2 * local; i += 97) sum += b[i];
    MPI_Reduce(&sum, &checksum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    double* t = a;
    a = b;
    b = t;
  }
  if (rank == 0) printf("fft: %d ranks, n=%d, %d iterations, checksum %.6e\n", size, n, iters, checksum);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
