/* rowcol: a CG-like solver on a process grid that need not be square, with row and column
 * sub-communicators, laid out as NPB CG lays out its processes.
 *
 * The ranks form nrows x ncols with ncols >= nrows as balanced as the rank count allows (for
 * P = 2^k: k/2 x k/2 or k/2 x 2*(k/2), NPB CG's alternation), numbered along the rows: rank =
 * row * ncols + col. MPI_Comm_split by row and by column gives each rank its row and column
 * communicators (key = world rank), MPI_Comm_dup a private world communicator for the norm.
 * The global vector of n elements is cut into ncols pieces (strong scaling: n / ncols per rank).
 * Each iteration: the partial matrix-vector products are summed along the row (MPI_Allreduce
 * on the row communicator, n / ncols elements), each rank swaps its boundary piece with its
 * west and east neighbours in the row (MPI_Irecv, MPI_Isend, MPI_Waitall; n / (4 * ncols)
 * elements, none past the row's ends), and the dot products are summed along the column
 * (MPI_Allreduce on the column communicator, 2 elements). Every 5 iterations the residual norm
 * goes through the duplicate world communicator. The communicators are freed at the end.
 *
 * Usage: rowcol [iterations=20] [n=1024]   (n a multiple of 4 * ncols)
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
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  const int n = argc > 2 ? atoi(argv[2]) : 1024;

  int nrows = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) nrows = d;
  const int ncols = size / nrows;
  const int row = rank / ncols, col = rank % ncols;
  const int piece = n / ncols, edge = n / (4 * ncols);
  if (n % (4 * ncols) != 0) {
    if (rank == 0) fprintf(stderr, "rowcol: n=%d is no multiple of 4 * %d columns\n", n, ncols);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  MPI_Comm row_comm, col_comm, norm_comm;
  MPI_Comm_split(MPI_COMM_WORLD, row, rank, &row_comm);
  MPI_Comm_split(MPI_COMM_WORLD, col, rank, &col_comm);
  MPI_Comm_dup(MPI_COMM_WORLD, &norm_comm);

  double* p = malloc(sizeof(double) * (size_t)piece);
  double* q = malloc(sizeof(double) * (size_t)piece);
  double* w = malloc(sizeof(double) * (size_t)piece);
  double* halo = malloc(sizeof(double) * (size_t)(2 * edge));
  for (int i = 0; i < piece; ++i) p[i] = 1.0 / (1 + i + rank);

  double norm = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < piece; ++i) w[i] = p[i] * (2.0 + sin(0.01 * i)); /* local product */
    MPI_Allreduce(w, q, piece, MPI_DOUBLE, MPI_SUM, row_comm);
    MPI_Request req[4];
    int nreq = 0;
    if (col > 0) {
      MPI_Irecv(halo, edge, MPI_DOUBLE, rank - 1, 5, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(q, edge, MPI_DOUBLE, rank - 1, 6, MPI_COMM_WORLD, &req[nreq++]);
    }
    if (col < ncols - 1) {
      MPI_Irecv(halo + edge, edge, MPI_DOUBLE, rank + 1, 6, MPI_COMM_WORLD, &req[nreq++]);
      MPI_Isend(q + piece - edge, edge, MPI_DOUBLE, rank + 1, 5, MPI_COMM_WORLD, &req[nreq++]);
    }
    MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
    double dot[2] = {0, 0}, sums[2];
    for (int i = 0; i < piece; ++i) {
      dot[0] += p[i] * q[i];
      dot[1] += q[i] * q[i];
    }
    MPI_Allreduce(dot, sums, 2, MPI_DOUBLE, MPI_SUM, col_comm);
    const double alpha = sums[1] > 0 ? sums[0] / sums[1] : 0;
    for (int i = 0; i < piece; ++i) p[i] = p[i] - 0.1 * alpha * q[i];
    if (it % 5 == 4) {
      double local = 0;
      for (int i = 0; i < piece; ++i) local += p[i] * p[i];
      MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, norm_comm);
    }
  }
  if (rank == 0) printf("rowcol: %d ranks (%dx%d), %d iterations, norm %.6e\n", size, nrows, ncols, iters, sqrt(norm));

  MPI_Comm_free(&norm_comm);
  MPI_Comm_free(&col_comm);
  MPI_Comm_free(&row_comm);
  free(p);
  free(q);
  free(w);
  free(halo);
  MPI_Finalize();
  return 0;
}
