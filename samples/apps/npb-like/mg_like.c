/* mg_like: the communication pattern of a NAS-MG-like multigrid solver, compiled once per
 * process count as the NAS suites are (grid and problem size are compile-time constants).
 *
 * The P = NPROCS ranks (a power of two) form a px x py x pz grid, numbered x fastest
 * (rank = x + px * (y + py * z)), the factors of two dealt to z, then y, then x (16 ranks are
 * 2x2x4, 32 are 2x4x4, 64 are 4x4x4). The global NG^3 grid is split evenly; the local extent is
 * nx x ny x nz and the V-cycle has levels = log2(min(nx, ny, nz)) levels (so the level count
 * changes with the rank count: 4 at 4 and 8 ranks, 3 at 16 to 64 with NG = 32). Boundaries
 * are PERIODIC, as NAS MG's are: every rank has 6 face neighbours, some of them the same rank
 * or itself on small grids (px = 1 or 2).
 *
 * Each iteration (NITER): the residual r = v - A u on the finest level, then a V-cycle: down
 * the levels (smooth, restrict), a smoothing on the coarsest, up the levels (prolongate,
 * smooth). Every smoothing and every residual is preceded by a halo exchange with the 6 face
 * neighbours of that level: per axis, MPI_Irecv from both neighbours, MPI_Send to both,
 * MPI_Waitall (the face of the level's grid, one double per point). The iteration ends with the
 * residual norm, an MPI_Allreduce (MPI_SUM) and one (MPI_MAX).
 *
 * Compile-time constants: NPROCS (required: the rank count, checked against MPI_Comm_size),
 * NG (global extent, default 32, a power of two), NITER (iterations, default 3).
 *
 *   mpicc -O2 -DNPROCS=16 -o mg_like.16 mg_like.c -lm && mpiexec -n 16 ./mg_like.16
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef NPROCS
#error "compile with -DNPROCS=<number of ranks>"
#endif
#ifndef NG
#define NG 32
#endif
#ifndef NITER
#define NITER 3
#endif
#if (NPROCS & (NPROCS - 1)) != 0
#error "mg_like: NPROCS must be a power of two"
#endif

#define MAXLEV 8

static int px, py, pz, cx, cy, cz, rank;
static int nbr[3][2]; /* [axis][0: minus, 1: plus] */

typedef struct {
  int n[3]; /* local interior extents x, y, z */
  double* u;
  double* r;
  double* tmp;
} Level;

static size_t idx(const Level* L, int i, int j, int k) { /* with one ghost layer */
  return ((size_t)(k + 1) * (size_t)(L->n[1] + 2) + (size_t)(j + 1)) * (size_t)(L->n[0] + 2) + (size_t)(i + 1);
}
static size_t volume(const Level* L) { return (size_t)(L->n[0] + 2) * (size_t)(L->n[1] + 2) * (size_t)(L->n[2] + 2); }

static int ilog2(int n) {
  int l = 0;
  while ((1 << l) < n) ++l;
  return l;
}

/* Packs (unpack = 0) or unpacks (1) the face of `a` on `axis` at interior layer `layer`
 * (-1 and n: the ghosts). */
static void face(const Level* L, double* a, int axis, int layer, double* buf, int unpack) {
  const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
  size_t m = 0;
  for (int t2 = 0; t2 < L->n[a2]; ++t2)
    for (int t1 = 0; t1 < L->n[a1]; ++t1) {
      int c[3];
      c[axis] = layer;
      c[a1] = t1;
      c[a2] = t2;
      double* e = &a[idx(L, c[0], c[1], c[2])];
      if (unpack)
        *e = buf[m++];
      else
        buf[m++] = *e;
    }
}

static double* sendbuf[2];
static double* recvbuf[2];

/* comm3: the 6-face halo exchange of `a` on level L, one axis at a time. */
static void comm3(const Level* L, double* a) {
  for (int axis = 0; axis < 3; ++axis) {
    const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;
    const int count = L->n[a1] * L->n[a2];
    MPI_Request req[2];
    for (int s = 0; s < 2; ++s)
      MPI_Irecv(recvbuf[s], count, MPI_DOUBLE, nbr[axis][s], 10 + 2 * axis + s, MPI_COMM_WORLD, &req[s]);
    /* to the minus neighbour: my first layer (it is their plus ghost), tag of "from plus" */
    face(L, a, axis, 0, sendbuf[0], 0);
    MPI_Send(sendbuf[0], count, MPI_DOUBLE, nbr[axis][0], 10 + 2 * axis + 1, MPI_COMM_WORLD);
    face(L, a, axis, L->n[axis] - 1, sendbuf[1], 0);
    MPI_Send(sendbuf[1], count, MPI_DOUBLE, nbr[axis][1], 10 + 2 * axis + 0, MPI_COMM_WORLD);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    face(L, a, axis, -1, recvbuf[0], 1);
    face(L, a, axis, L->n[axis], recvbuf[1], 1);
  }
}

/* r = v - A u (7-point Laplacian), v = 0 except a few charges set by the caller. */
static void resid(const Level* L, const double* u, const double* v, double* r) {
  for (int k = 0; k < L->n[2]; ++k)
    for (int j = 0; j < L->n[1]; ++j)
      for (int i = 0; i < L->n[0]; ++i) {
        const double au = 6.0 * u[idx(L, i, j, k)] - u[idx(L, i - 1, j, k)] - u[idx(L, i + 1, j, k)] -
                          u[idx(L, i, j - 1, k)] - u[idx(L, i, j + 1, k)] - u[idx(L, i, j, k - 1)] -
                          u[idx(L, i, j, k + 1)];
        r[idx(L, i, j, k)] = (v ? v[idx(L, i, j, k)] : 0.0) - au;
      }
}

/* u += weighted Jacobi correction from r */
static void psinv(const Level* L, const double* r, double* u) {
  for (int k = 0; k < L->n[2]; ++k)
    for (int j = 0; j < L->n[1]; ++j)
      for (int i = 0; i < L->n[0]; ++i)
        u[idx(L, i, j, k)] += (r[idx(L, i, j, k)] * 0.5 + (r[idx(L, i - 1, j, k)] + r[idx(L, i + 1, j, k)] +
                                                           r[idx(L, i, j - 1, k)] + r[idx(L, i, j + 1, k)] +
                                                           r[idx(L, i, j, k - 1)] + r[idx(L, i, j, k + 1)]) *
                                                              0.0625) /
                                 6.0;
}

/* coarse r from fine r: the mean of the 8 children */
static void rprj3(const Level* F, const double* rf, const Level* C, double* rc) {
  for (int k = 0; k < C->n[2]; ++k)
    for (int j = 0; j < C->n[1]; ++j)
      for (int i = 0; i < C->n[0]; ++i) {
        double s = 0.0;
        for (int d = 0; d < 8; ++d) s += rf[idx(F, 2 * i + (d & 1), 2 * j + ((d >> 1) & 1), 2 * k + (d >> 2))];
        rc[idx(C, i, j, k)] = 0.125 * s;
      }
}

/* fine u += coarse u (injection to the 8 children) */
static void interp(const Level* C, const double* uc, const Level* F, double* uf) {
  for (int k = 0; k < F->n[2]; ++k)
    for (int j = 0; j < F->n[1]; ++j)
      for (int i = 0; i < F->n[0]; ++i) uf[idx(F, i, j, k)] += uc[idx(C, i / 2, j / 2, k / 2)];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NPROCS) {
    if (rank == 0)
      fprintf(stderr, "mg_like: compiled for NPROCS=%d processes but run on %d; rebuild with -DNPROCS=%d\n",
              NPROCS, size, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int p[3] = {1, 1, 1};
  for (int f = 0, l2 = ilog2(NPROCS); f < l2; ++f) p[2 - f % 3] *= 2;
  px = p[0];
  py = p[1];
  pz = p[2];
  cx = rank % px;
  cy = rank / px % py;
  cz = rank / (px * py);
  const int c[3] = {cx, cy, cz};
  for (int axis = 0; axis < 3; ++axis)
    for (int s = 0; s < 2; ++s) {
      int cc[3] = {c[0], c[1], c[2]};
      cc[axis] = (cc[axis] + (s ? 1 : -1) + p[axis]) % p[axis];
      nbr[axis][s] = cc[0] + px * (cc[1] + py * cc[2]);
    }
  const int n0[3] = {NG / px, NG / py, NG / pz};
  int nmin = n0[0];
  if (n0[1] < nmin) nmin = n0[1];
  if (n0[2] < nmin) nmin = n0[2];
  int levels = ilog2(nmin);
  if (levels < 1) levels = 1;
  if (levels > MAXLEV) levels = MAXLEV;

  Level lev[MAXLEV];
  for (int l = 0; l < levels; ++l) {
    for (int d = 0; d < 3; ++d) lev[l].n[d] = n0[d] >> l;
    lev[l].u = calloc(volume(&lev[l]), sizeof(double));
    lev[l].r = calloc(volume(&lev[l]), sizeof(double));
    lev[l].tmp = calloc(volume(&lev[l]), sizeof(double));
  }
  size_t maxface = (size_t)(n0[0] > n0[1] ? n0[0] : n0[1]) * (size_t)(n0[1] > n0[2] ? n0[1] : n0[2]) *
                   (size_t)(n0[0] > n0[2] ? n0[0] : n0[2]);
  for (int s = 0; s < 2; ++s) {
    sendbuf[s] = malloc(sizeof(double) * maxface);
    recvbuf[s] = malloc(sizeof(double) * maxface);
  }
  /* v: +1 and -1 charges at points set by the global coordinates */
  double* v = calloc(volume(&lev[0]), sizeof(double));
  for (int k = 0; k < n0[2]; ++k)
    for (int j = 0; j < n0[1]; ++j)
      for (int i = 0; i < n0[0]; ++i) {
        const int g = (cx * n0[0] + i) * 31 + (cy * n0[1] + j) * 17 + (cz * n0[2] + k) * 7;
        if (g % 97 == 0) v[idx(&lev[0], i, j, k)] = 1.0;
        if (g % 89 == 0) v[idx(&lev[0], i, j, k)] = -1.0;
      }
  Level* fine = &lev[0];
  double rnm2 = 0.0;
  for (int it = 1; it <= NITER; ++it) {
    comm3(fine, fine->u);
    resid(fine, fine->u, v, fine->r);
    /* down */
    for (int l = 0; l + 1 < levels; ++l) {
      comm3(&lev[l], lev[l].r);
      rprj3(&lev[l], lev[l].r, &lev[l + 1], lev[l + 1].r);
      memset(lev[l + 1].u, 0, volume(&lev[l + 1]) * sizeof(double));
    }
    /* coarsest */
    Level* C = &lev[levels - 1];
    comm3(C, C->r);
    psinv(C, C->r, C->u);
    /* up */
    for (int l = levels - 2; l >= 0; --l) {
      comm3(&lev[l + 1], lev[l + 1].u);
      interp(&lev[l + 1], lev[l + 1].u, &lev[l], lev[l].u);
      comm3(&lev[l], lev[l].u);
      resid(&lev[l], lev[l].u, l == 0 ? v : lev[l].r, lev[l].tmp);
      comm3(&lev[l], lev[l].tmp);
      psinv(&lev[l], lev[l].tmp, lev[l].u);
    }
    /* norm of the new residual */
    comm3(fine, fine->u);
    resid(fine, fine->u, v, fine->r);
    double s_loc = 0.0, m_loc = 0.0, s, m;
    for (int k = 0; k < n0[2]; ++k)
      for (int j = 0; j < n0[1]; ++j)
        for (int i = 0; i < n0[0]; ++i) {
          const double e = fine->r[idx(fine, i, j, k)];
          s_loc += e * e;
          if (fabs(e) > m_loc) m_loc = fabs(e);
        }
    MPI_Allreduce(&s_loc, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&m_loc, &m, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    rnm2 = sqrt(s / ((double)NG * NG * NG));
  }
  if (rank == 0)
    printf("mg_like: P=%d (%dx%dx%d) NG=%d local %dx%dx%d levels %d rnm2 %.10e\n", NPROCS, px, py, pz, NG, n0[0],
           n0[1], n0[2], levels, rnm2);
  for (int l = 0; l < levels; ++l) {
    free(lev[l].u);
    free(lev[l].r);
    free(lev[l].tmp);
  }
  for (int s = 0; s < 2; ++s) {
    free(sendbuf[s]);
    free(recvbuf[s]);
  }
  free(v);
  MPI_Finalize();
  return 0;
}
