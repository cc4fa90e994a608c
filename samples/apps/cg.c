/* cg: a CG-like solver on a 2-D process grid with row and column sub-communicators.
 *
 * The ranks form an nrows x ncols grid. MPI_Comm_split gives each rank a row communicator and a
 * column communicator (key = world rank, so sub-communicator ranks follow world order), and
 * MPI_Comm_dup a private world communicator for the solver's global norm. Each iteration the
 * partial matrix-vector product is summed along the row (MPI_Allreduce on the row
 * communicator), the result is exchanged with the rank's transpose partner (MPI_Isend, MPI_Irecv,
 * MPI_Waitall; the partner is the mirrored position for grids that are not square, and a rank
 * on the diagonal exchanges with itself), and the dot products are summed along the column
 * (MPI_Allreduce on the column communicator). The residual norm goes through the duplicate
 * communicator every 5 iterations. The communicators are freed at the end.
 *
 * Usage: cg [iterations=30] [n=256]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 30;
  const int n = argc > 2 ? atoi(argv[2]) : 256;

  int nrows = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) nrows = d;
  const int ncols = size / nrows;
  const int row = rank / ncols, col = rank % ncols;
  const int partner = nrows == ncols ? col * ncols + row : size - 1 - rank;

  MPI_Comm row_comm, col_comm, solver_comm;
  MPI_Comm_split(MPI_COMM_WORLD, row, rank, &row_comm);
  MPI_Comm_split(MPI_COMM_WORLD, col, rank, &col_comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &solver_comm);

  double* p = malloc(sizeof(double) * (size_t)n);
  double* q = malloc(sizeof(double) * (size_t)n);
  double* w = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; ++i) p[i] = 1.0 / (1 + i + rank);

  double norm = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) w[i] = p[i] * (2.0 + sin(0.01 * i)); /* local product */
    MPI_Allreduce(w, q, n, MPI_DOUBLE, MPI_SUM, row_comm);
    MPI_Request req[2];
    MPI_Irecv(w, n, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(q, n, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    double dot[2] = {0, 0}, sums[2];
    for (int i = 0; i < n; ++i) {
      dot[0] += p[i] * w[i];
      dot[1] += w[i] * w[i];
    }
    MPI_Allreduce(dot, sums, 2, MPI_DOUBLE, MPI_SUM, col_comm);
    const double alpha = sums[1] > 0 ? sums[0] / sums[1] : 0;
    for (int i = 0; i < n; ++i) p[i] = p[i] - 0.1 * alpha * w[i];
    if (it % 5 == 4) {
      double local = 0;
      for (int i = 0; i < n; ++i) local += p[i] * p[i];
      MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, solver_comm);
    }
  }
  if (rank == 0) printf("cg: %d ranks (%dx%d), %d iterations, norm %.6e\n", size, nrows, ncols, iters, sqrt(norm));

  MPI_Comm_free(&solver_comm);
  MPI_Comm_free(&col_comm);
  MPI_Comm_free(&row_comm);
  free(p);
  free(q);
  free(w);
  MPI_Finalize();
  return 0;
}
