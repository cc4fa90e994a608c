/* sweep: a Sweep3D-like discrete-ordinates sweep whose ranks call collectives from different
 * call sites.
 *
 * The ranks form a px x py grid. Each iteration sweeps the four quadrant directions of the
 * grid; in each, a rank receives the incoming angular flux from its upstream neighbours in x and
 * in y (explicit sources, MPI_Recv), computes its k-blocks and sends the outgoing flux
 * downstream (MPI_Send), pipelined over `blocks` k-blocks. After the sweeps the flux is summed:
 * ranks in even columns call MPI_Allreduce from one function, ranks in odd columns from
 * another (the same collective from two call sites, as Sweep3D's source and flux-fixup code
 * paths do), and rank 0 collects the leakage with MPI_Reduce while the others contribute from a
 * third place. Trace merging keeps such calls as separate events with disjoint ranklists; the
 * collective alignment pass is what pairs them up.
 *
 * Usage: sweep [iterations=10] [blocks=8] [n=24]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Two code paths to the same collective. They are kept out of line and made to differ (the
 * odd columns count their fix-ups), or the compiler would fold them into one call site. */
static __attribute__((noinline)) double flux_even_columns(double v) {
  double sum = 0;
  MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

static int fixups;
static __attribute__((noinline)) double flux_odd_columns(double v) {
  double sum = 0;
  ++fixups;
  MPI_Allreduce(&v, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

static double compute_block(double* psi, const double* inx, const double* iny, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      psi[i * n + j] = 0.3 * psi[i * n + j] + 0.2 * inx[i] + 0.2 * iny[j] + 1e-3;
      s += psi[i * n + j];
    }
  return s;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 10;
  const int blocks = argc > 2 ? atoi(argv[2]) : 8;
  const int n = argc > 3 ? atoi(argv[3]) : 24;

  int px = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) px = d;
  const int x = rank % px, y = rank / px, py = size / px;

  double* psi = calloc((size_t)(n * n), sizeof(double));
  double* inx = calloc((size_t)n, sizeof(double));
  double* iny = calloc((size_t)n, sizeof(double));
  double* outx = calloc((size_t)n, sizeof(double));
  double* outy = calloc((size_t)n, sizeof(double));
  double total = 0;

  for (int it = 0; it < iters; ++it) {
    double local = 0;
    for (int quadrant = 0; quadrant < 4; ++quadrant) {
      const int dx = (quadrant & 1) ? -1 : 1, dy = (quadrant & 2) ? -1 : 1;
      /* Upstream and downstream neighbours in this direction (-1: boundary). */
      const int upx = (x - dx >= 0 && x - dx < px) ? rank - dx : -1;
      const int downx = (x + dx >= 0 && x + dx < px) ? rank + dx : -1;
      const int upy = (y - dy >= 0 && y - dy < py) ? rank - dy * px : -1;
      const int downy = (y + dy >= 0 && y + dy < py) ? rank + dy * px : -1;
      for (int b = 0; b < blocks; ++b) {
        if (upx >= 0) MPI_Recv(inx, n, MPI_DOUBLE, upx, quadrant, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (upy >= 0) MPI_Recv(iny, n, MPI_DOUBLE, upy, quadrant, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        local += compute_block(psi, inx, iny, n);
        for (int i = 0; i < n; ++i) {
          outx[i] = psi[i * n + n - 1];
          outy[i] = psi[(n - 1) * n + i];
        }
        if (downx >= 0) MPI_Send(outx, n, MPI_DOUBLE, downx, quadrant, MPI_COMM_WORLD);
        if (downy >= 0) MPI_Send(outy, n, MPI_DOUBLE, downy, quadrant, MPI_COMM_WORLD);
      }
    }
    total = (x % 2 == 0) ? flux_even_columns(local) : flux_odd_columns(local);
    double leakage = 0;
    if (rank == 0)
      MPI_Reduce(&local, &leakage, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    else
      MPI_Reduce(&local, NULL, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  }
  if (rank == 0) printf("sweep: %d ranks (%dx%d), %d iterations, flux %.6e\n", size, px, py, iters, total);
  if (fixups > iters) printf("sweep: unexpected flux fix-ups\n");
  free(psi);
  free(inx);
  free(iny);
  free(outx);
  free(outy);
  MPI_Finalize();
  return 0;
}
