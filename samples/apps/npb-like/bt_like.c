/* bt_like: the communication pattern of a NAS-BT/SP-like ADI solver on a square process grid,
 * compiled once per process count as the NAS suites are (grid and rank count are compile-time
 * constants).
 *
 * The P = NPROCS ranks (a square: 4, 9, 16, 25, 36, 64, ...) form a q x q grid, q = sqrt(P),
 * numbered x fastest (rank = x + q * y); the NG x NG x NZ grid of NV = 5 variables is split in x
 * and y as evenly as it goes (the first NG % q columns and rows one point wider, so the message
 * sizes differ between ranks when q does not divide NG). Each iteration (NITER):
 *   - copy_faces: MPI_Irecv and MPI_Isend of the boundary face with every neighbour that exists
 *     (west, east, south, north; not periodic), then one MPI_Waitall of all of them;
 *   - compute_rhs: a 7-point right-hand side from the faces;
 *   - x_solve: a tridiagonal system along every x-line, solved by the Thomas algorithm
 *     pipelined along the row: forward elimination (MPI_Recv from the west unless first in x,
 *     eliminate, MPI_Send to the east unless last: 2 doubles per line), then back substitution
 *     the other way (MPI_Recv from the east, MPI_Send to the west: 1 double per line);
 *   - y_solve: the same along the column (south to north, then back);
 *   - z_solve: local (z is not distributed), and the update.
 * At the end: the residual and error norms, MPI_Allreduce of NV doubles each.
 *
 * Compile-time constants: NPROCS (required: a square, checked against MPI_Comm_size), NG
 * (x and y extent, default 40), NZ (default 8), NITER (iterations, default 3).
 *
 *   mpicc -O2 -DNPROCS=16 -o bt_like.16 bt_like.c -lm && mpiexec -n 16 ./bt_like.16
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NPROCS
#error "compile with -DNPROCS=<number of ranks>"
#endif
#ifndef NG
#define NG 40
#endif
#ifndef NZ
#define NZ 8
#endif
#ifndef NITER
#define NITER 3
#endif
#define NV 5

static int isqrt(int n) {
  int q = 0;
  while ((q + 1) * (q + 1) <= n) ++q;
  return q;
}

static int q, cx, cy, nx, ny, rank;
static double *u, *rhs, *lhs_c, *lhs_d;

/* u with one ghost layer in x and y: (nx+2) x (ny+2) x NZ x NV */
static size_t at(int i, int j, int k, int m) {
  return (((size_t)m * NZ + (size_t)k) * (size_t)(ny + 2) + (size_t)(j + 1)) * (size_t)(nx + 2) + (size_t)(i + 1);
}

static int extent(int coord) { return NG / q + (coord < NG % q ? 1 : 0); }

/* copy_faces: pack face, Irecv/Isend with the existing neighbours, Waitall, unpack. */
static double *fsend[4], *frecv[4];
static void copy_faces(void) {
  /* 0 west, 1 east, 2 south, 3 north */
  const int exists[4] = {cx > 0, cx < q - 1, cy > 0, cy < q - 1};
  const int peer[4] = {rank - 1, rank + 1, rank - q, rank + q};
  const int count[4] = {ny * NZ * NV, ny * NZ * NV, nx * NZ * NV, nx * NZ * NV};
  MPI_Request req[8];
  int nreq = 0;
  for (int f = 0; f < 4; ++f) {
    if (!exists[f]) continue;
    MPI_Irecv(frecv[f], count[f], MPI_DOUBLE, peer[f], 20 + (f ^ 1), MPI_COMM_WORLD, &req[nreq++]);
  }
  for (int f = 0; f < 4; ++f) {
    if (!exists[f]) continue;
    size_t n = 0;
    for (int m = 0; m < NV; ++m)
      for (int k = 0; k < NZ; ++k)
        if (f < 2)
          for (int j = 0; j < ny; ++j) fsend[f][n++] = u[at(f == 0 ? 0 : nx - 1, j, k, m)];
        else
          for (int i = 0; i < nx; ++i) fsend[f][n++] = u[at(i, f == 2 ? 0 : ny - 1, k, m)];
    MPI_Isend(fsend[f], count[f], MPI_DOUBLE, peer[f], 20 + f, MPI_COMM_WORLD, &req[nreq++]);
  }
  MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
  for (int f = 0; f < 4; ++f) {
    if (!exists[f]) continue;
    size_t n = 0;
    for (int m = 0; m < NV; ++m)
      for (int k = 0; k < NZ; ++k)
        if (f < 2)
          for (int j = 0; j < ny; ++j) u[at(f == 0 ? -1 : nx, j, k, m)] = frecv[f][n++];
        else
          for (int i = 0; i < nx; ++i) u[at(i, f == 2 ? -1 : ny, k, m)] = frecv[f][n++];
  }
}

static void compute_rhs(void) {
  for (int m = 0; m < NV; ++m)
    for (int k = 0; k < NZ; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          const double km = k > 0 ? u[at(i, j, k - 1, m)] : 0.0, kp = k < NZ - 1 ? u[at(i, j, k + 1, m)] : 0.0;
          rhs[at(i, j, k, m)] = 0.01 * (u[at(i - 1, j, k, m)] + u[at(i + 1, j, k, m)] + u[at(i, j - 1, k, m)] +
                                        u[at(i, j + 1, k, m)] + km + kp - 6.0 * u[at(i, j, k, m)]) +
                                1e-3 * sin(0.1 * (i + j + k + m));
        }
}

/* The tridiagonal system (-a, b, -a) along axis 0 (x) or 1 (y), pipelined over the grid line. */
static double *pipe_out, *pipe_in;
static void line_solve(int axis) {
  const double a = 0.1, b = 1.0 + 2.0 * a;
  const int n = axis == 0 ? nx : ny, lines = (axis == 0 ? ny : nx) * NZ * NV;
  const int first = axis == 0 ? cx == 0 : cy == 0, last = axis == 0 ? cx == q - 1 : cy == q - 1;
  const int prev = axis == 0 ? rank - 1 : rank - q, next = axis == 0 ? rank + 1 : rank + q;
  /* forward elimination: c' and d' of the last point come from the previous rank */
  if (!first) MPI_Recv(pipe_in, 2 * lines, MPI_DOUBLE, prev, 30 + axis, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int l = 0; l < lines; ++l) {
    const int t = l % (axis == 0 ? ny : nx), k = l / (axis == 0 ? ny : nx) % NZ, m = l / ((axis == 0 ? ny : nx) * NZ);
    double cp = first ? 0.0 : pipe_in[2 * l], dp = first ? 0.0 : pipe_in[2 * l + 1];
    for (int s = 0; s < n; ++s) {
      const size_t e = axis == 0 ? at(s, t, k, m) : at(t, s, k, m);
      const double den = b + a * cp;
      cp = -a / den;
      dp = (rhs[e] + a * dp) / den;
      lhs_c[e] = cp;
      lhs_d[e] = dp;
    }
    pipe_out[2 * l] = cp;
    pipe_out[2 * l + 1] = dp;
  }
  if (!last) MPI_Send(pipe_out, 2 * lines, MPI_DOUBLE, next, 30 + axis, MPI_COMM_WORLD);
  /* back substitution: x of the first point of the next rank */
  if (!last) MPI_Recv(pipe_in, lines, MPI_DOUBLE, next, 40 + axis, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int l = 0; l < lines; ++l) {
    const int t = l % (axis == 0 ? ny : nx), k = l / (axis == 0 ? ny : nx) % NZ, m = l / ((axis == 0 ? ny : nx) * NZ);
    double xn = last ? 0.0 : pipe_in[l];
    for (int s = n - 1; s >= 0; --s) {
      const size_t e = axis == 0 ? at(s, t, k, m) : at(t, s, k, m);
      xn = lhs_d[e] - lhs_c[e] * xn;
      rhs[e] = xn;
    }
    pipe_out[l] = xn;
  }
  if (!first) MPI_Send(pipe_out, lines, MPI_DOUBLE, prev, 40 + axis, MPI_COMM_WORLD);
}

static void z_solve_add(void) {
  const double a = 0.1, b = 1.0 + 2.0 * a;
  double cprime[NZ], dprime[NZ];
  for (int m = 0; m < NV; ++m)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        double cp = 0.0, dp = 0.0;
        for (int k = 0; k < NZ; ++k) {
          const double den = b + a * cp;
          cp = -a / den;
          dp = (rhs[at(i, j, k, m)] + a * dp) / den;
          cprime[k] = cp;
          dprime[k] = dp;
        }
        double xn = 0.0;
        for (int k = NZ - 1; k >= 0; --k) {
          xn = dprime[k] - cprime[k] * xn;
          u[at(i, j, k, m)] += xn;
        }
      }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NPROCS) {
    if (rank == 0)
      fprintf(stderr, "bt_like: compiled for NPROCS=%d processes but run on %d; rebuild with -DNPROCS=%d\n",
              NPROCS, size, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  q = isqrt(NPROCS);
  if (q * q != NPROCS) {
    if (rank == 0) fprintf(stderr, "bt_like: NPROCS=%d is not a square\n", NPROCS);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  cx = rank % q;
  cy = rank / q;
  nx = extent(cx);
  ny = extent(cy);
  const size_t vol = (size_t)(nx + 2) * (size_t)(ny + 2) * NZ * NV;
  u = calloc(vol, sizeof(double));
  rhs = calloc(vol, sizeof(double));
  lhs_c = calloc(vol, sizeof(double));
  lhs_d = calloc(vol, sizeof(double));
  const int maxn = NG / q + 1;
  for (int f = 0; f < 4; ++f) {
    fsend[f] = malloc(sizeof(double) * (size_t)maxn * NZ * NV);
    frecv[f] = malloc(sizeof(double) * (size_t)maxn * NZ * NV);
  }
  pipe_out = malloc(sizeof(double) * 2 * (size_t)maxn * NZ * NV);
  pipe_in = malloc(sizeof(double) * 2 * (size_t)maxn * NZ * NV);
  const int x0 = cx * (NG / q) + (cx < NG % q ? cx : NG % q), y0 = cy * (NG / q) + (cy < NG % q ? cy : NG % q);
  for (int m = 0; m < NV; ++m)
    for (int k = 0; k < NZ; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) u[at(i, j, k, m)] = 1.0 + 0.01 * m + 0.1 * sin(0.2 * (x0 + i) + 0.3 * (y0 + j) + 0.5 * k);

  for (int it = 1; it <= NITER; ++it) {
    copy_faces();
    compute_rhs();
    line_solve(0);
    line_solve(1);
    z_solve_add();
  }
  double norms_loc[2 * NV] = {0}, norms[2 * NV];
  copy_faces();
  compute_rhs();
  for (int m = 0; m < NV; ++m)
    for (int k = 0; k < NZ; ++k)
      for (int j = 0; j < ny; ++j)
        for (int i = 0; i < nx; ++i) {
          norms_loc[m] += rhs[at(i, j, k, m)] * rhs[at(i, j, k, m)];
          const double e = u[at(i, j, k, m)] - 1.0;
          norms_loc[NV + m] += e * e;
        }
  MPI_Allreduce(norms_loc, norms, NV, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(norms_loc + NV, norms + NV, NV, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("bt_like: P=%d (%dx%d) NG=%d NZ=%d rhs norm %.6e error norm %.6e\n", NPROCS, q, q, NG, NZ, sqrt(norms[0]),
           sqrt(norms[NV]));
  for (int f = 0; f < 4; ++f) {
    free(fsend[f]);
    free(frecv[f]);
  }
  free(pipe_out);
  free(pipe_in);
  free(u);
  free(rhs);
  free(lhs_c);
  free(lhs_d);
  MPI_Finalize();
  return 0;
}
