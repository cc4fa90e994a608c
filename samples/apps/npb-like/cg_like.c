/* cg_like: the communication pattern of a NAS-CG-like conjugate gradient solver, compiled once
 * per process count as the NAS suites are (the grid and the problem size are compile-time
 * constants, so call sites, unrolled loops and message sizes differ between the binaries).
 *
 * The P = NPROCS ranks (a power of two) form an nprows x npcols grid with npcols = nprows
 * (log2 P even) or 2 * nprows (log2 P odd), numbered with the column index fastest
 * (rank = row * npcols + col). A rank owns the block of a dense NA x NA matrix (values computed
 * from the indices) at its row and column blocks. Each inner CG iteration:
 *   - q = A p on the local block (a real matrix-vector product);
 *   - the row sum of q: log2(npcols) exchange steps, recursive doubling, partner
 *     rank XOR 2^k within the row (MPI_Irecv, MPI_Send, MPI_Wait), NA/nprows doubles a step;
 *   - the transpose exchange: the partner owning the row block that is this rank's column block
 *     (MPI_Irecv, MPI_Send, MPI_Wait, NA/npcols doubles; a rank on the diagonal exchanges with
 *     itself, as NPB CG's does);
 *   - two dot products, each an MPI_Allreduce of one double.
 * The outer loop (NITER iterations) runs CGITMAX inner iterations, then one more product for
 * the residual and its norm (MPI_Allreduce), and rescales the vector.
 *
 * Compile-time constants: NPROCS (required: the rank count, checked against MPI_Comm_size),
 * NA (global vector length, default 1024, a multiple of P), NITER (outer iterations, default 3),
 * CGITMAX (inner iterations, default 5).
 *
 *   mpicc -O2 -DNPROCS=16 -o cg_like.16 cg_like.c -lm && mpiexec -n 16 ./cg_like.16
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NPROCS
#error "compile with -DNPROCS=<number of ranks>"
#endif
#ifndef NA
#define NA 1024
#endif
#ifndef NITER
#define NITER 3
#endif
#ifndef CGITMAX
#define CGITMAX 5
#endif

#if (NPROCS & (NPROCS - 1)) != 0
#error "cg_like: NPROCS must be a power of two"
#endif

static int ilog2(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

/* The matrix entry at global (i, j): symmetric, diagonally dominant. */
static double entry(int i, int j) {
  const int d = i > j ? i - j : j - i;
  return i == j ? 4.0 + 1e-3 * (i % 7) : 1.0 / (1.0 + d * d);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NPROCS) {
    if (rank == 0)
      fprintf(stderr, "cg_like: compiled for NPROCS=%d processes but run on %d; rebuild with -DNPROCS=%d\n",
              NPROCS, size, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int l2p = ilog2(NPROCS);
  const int nprows = 1 << (l2p / 2);
  const int npcols = NPROCS / nprows;
  const int l2npcols = ilog2(npcols);
  const int row = rank / npcols, col = rank % npcols;
  const int nrow_loc = NA / nprows, ncol_loc = NA / npcols;
  /* The transpose partner: row block `row` holds column blocks 2*row and 2*row+1 when npcols
   * is 2*nprows (one when square); the partner's row is this rank's column pair. */
  const int half = npcols / nprows; /* 1 or 2 */
  const int exch_row = col / half, exch_col = half * row + col % half;
  const int exch_proc = exch_row * npcols + exch_col;
  const int exch_offset = (col % half) * ncol_loc; /* which part of the row block to send */

  double* a = malloc(sizeof(double) * (size_t)nrow_loc * (size_t)ncol_loc);
  double* p = malloc(sizeof(double) * (size_t)ncol_loc);
  double* x = malloc(sizeof(double) * (size_t)ncol_loc);
  double* r = malloc(sizeof(double) * (size_t)ncol_loc);
  double* z = malloc(sizeof(double) * (size_t)ncol_loc);
  double* q = malloc(sizeof(double) * (size_t)ncol_loc);
  double* w = malloc(sizeof(double) * (size_t)nrow_loc);
  double* buf = malloc(sizeof(double) * (size_t)nrow_loc);
  for (int i = 0; i < nrow_loc; ++i)
    for (int j = 0; j < ncol_loc; ++j) a[(size_t)i * ncol_loc + j] = entry(row * nrow_loc + i, col * ncol_loc + j);
  for (int j = 0; j < ncol_loc; ++j) x[j] = 1.0;

  double zeta = 0.0;
  for (int it = 1; it <= NITER; ++it) {
    /* conj_grad: solve A z = x */
    for (int j = 0; j < ncol_loc; ++j) {
      z[j] = 0.0;
      r[j] = x[j];
      p[j] = x[j];
    }
    double rho_loc = 0.0, rho;
    for (int j = 0; j < ncol_loc; ++j) rho_loc += r[j] * r[j];
    MPI_Allreduce(&rho_loc, &rho, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    rho /= nprows; /* every column block is held by nprows ranks */
    for (int cgit = 0; cgit <= CGITMAX; ++cgit) {
      const int residual = cgit == CGITMAX; /* the last pass: r = x - A z */
      const double* v = residual ? z : p;
      for (int i = 0; i < nrow_loc; ++i) {
        double s = 0.0;
        const double* ai = a + (size_t)i * ncol_loc;
        for (int j = 0; j < ncol_loc; ++j) s += ai[j] * v[j];
        w[i] = s;
      }
      /* Sum w over the row: recursive doubling. */
      for (int k = 0; k < l2npcols; ++k) {
        const int partner = rank ^ (1 << k);
        MPI_Request req;
        MPI_Irecv(buf, nrow_loc, MPI_DOUBLE, partner, k + 1, MPI_COMM_WORLD, &req);
        MPI_Send(w, nrow_loc, MPI_DOUBLE, partner, k + 1, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        for (int i = 0; i < nrow_loc; ++i) w[i] += buf[i];
      }
      /* The transpose exchange: this rank's part of the row sum to the partner, whose part
       * is this rank's column block. */
      {
        MPI_Request req;
        MPI_Irecv(q, ncol_loc, MPI_DOUBLE, exch_proc, 100, MPI_COMM_WORLD, &req);
        MPI_Send(w + exch_offset, ncol_loc, MPI_DOUBLE, exch_proc, 100, MPI_COMM_WORLD);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      if (residual) {
        double s_loc = 0.0, s;
        for (int j = 0; j < ncol_loc; ++j) {
          const double d = x[j] - q[j];
          s_loc += d * d;
        }
        MPI_Allreduce(&s_loc, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && it == NITER) printf("cg_like: iteration %d residual %.6e\n", it, sqrt(s / nprows));
        break;
      }
      double d_loc = 0.0, d;
      for (int j = 0; j < ncol_loc; ++j) d_loc += p[j] * q[j];
      MPI_Allreduce(&d_loc, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      d /= nprows;
      const double alpha = rho / d;
      double rho_new_loc = 0.0, rho_new;
      for (int j = 0; j < ncol_loc; ++j) {
        z[j] += alpha * p[j];
        r[j] -= alpha * q[j];
        rho_new_loc += r[j] * r[j];
      }
      MPI_Allreduce(&rho_new_loc, &rho_new, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      rho_new /= nprows;
      const double beta = rho_new / rho;
      rho = rho_new;
      for (int j = 0; j < ncol_loc; ++j) p[j] = r[j] + beta * p[j];
    }
    /* zeta and the new x = z / ||z|| */
    double n_loc[2] = {0.0, 0.0}, n[2];
    for (int j = 0; j < ncol_loc; ++j) {
      n_loc[0] += x[j] * z[j];
      n_loc[1] += z[j] * z[j];
    }
    MPI_Allreduce(n_loc, n, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    zeta = 10.0 + 1.0 / (n[0] / nprows);
    const double scale = 1.0 / sqrt(n[1] / nprows);
    for (int j = 0; j < ncol_loc; ++j) x[j] = scale * z[j];
  }
  if (rank == 0) printf("cg_like: P=%d (%dx%d) NA=%d zeta %.10f\n", NPROCS, nprows, npcols, NA, zeta);
  free(a);
  free(p);
  free(x);
  free(r);
  free(z);
  free(q);
  free(w);
  free(buf);
  MPI_Finalize();
  return 0;
}
