/* ft_like: the communication pattern of a NAS-FT-like 3-D FFT solver (a 1-D slab layout),
 * compiled once per process count as the NAS suites are (grid and rank count are compile-time
 * constants).
 *
 * The NX x NY x NZ complex grid is split into slabs of NZ / NPROCS z-planes. A 3-D FFT is:
 * 1-D FFTs along x and along y on every local plane, a transpose to slabs of NX / NPROCS
 * x-columns (MPI_Alltoall, NX*NY*NZ / NPROCS^2 complex numbers, sent as pairs of doubles, to
 * every rank), then 1-D FFTs along z. The program sets the initial state from a random
 * generator (fixed seed per rank), makes one forward 3-D FFT, then NITER iterations of: evolve
 * (multiply each mode by exp(-4 pi^2 t |k|^2 alpha)), inverse 3-D FFT (its transpose the
 * other way), and a checksum of 64 sampled elements reduced to rank 0 (MPI_Reduce, MPI_SUM on
 * two doubles), plus MPI_Allreduce of the energy (one double).
 *
 * Compile-time constants: NPROCS (required: the rank count, checked against MPI_Comm_size; it
 * must divide NX and NZ), NX, NY, NZ (powers of two, defaults 64, 32, 64), NITER (iterations,
 * default 3).
 *
 *   mpicc -O2 -DNPROCS=16 -o ft_like.16 ft_like.c -lm && mpiexec -n 16 ./ft_like.16
 */
#include <complex.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NPROCS
#error "compile with -DNPROCS=<number of ranks>"
#endif
#ifndef NX
#define NX 64
#endif
#ifndef NY
#define NY 32
#endif
#ifndef NZ
#define NZ 64
#endif
#ifndef NITER
#define NITER 3
#endif
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#if NX % NPROCS != 0 || NZ % NPROCS != 0
#error "ft_like: NPROCS must divide NX and NZ"
#endif

#define NZL (NZ / NPROCS) /* z-planes per rank before the transpose */
#define NXL (NX / NPROCS) /* x-columns per rank after it */
#define BLOCK (NXL * NY * NZL)

typedef double complex cplx;

/* In-place radix-2 FFT of n elements at stride `stride`; sign -1 forward, +1 inverse. */
static void fft1(cplx* a, int n, int stride, int sign) {
  for (int i = 1, j = 0; i < n; ++i) {
    int bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      const cplx t = a[(size_t)i * stride];
      a[(size_t)i * stride] = a[(size_t)j * stride];
      a[(size_t)j * stride] = t;
    }
  }
  for (int len = 2; len <= n; len <<= 1) {
    const double ang = sign * 2.0 * M_PI / len;
    const cplx wl = cos(ang) + I * sin(ang);
    for (int i = 0; i < n; i += len) {
      cplx w = 1.0;
      for (int k = 0; k < len / 2; ++k) {
        const cplx u = a[(size_t)(i + k) * stride], v = a[(size_t)(i + k + len / 2) * stride] * w;
        a[(size_t)(i + k) * stride] = u + v;
        a[(size_t)(i + k + len / 2) * stride] = u - v;
        w *= wl;
      }
    }
  }
}

/* slab layout: zs[zl][y][x]; column layout: xs[xl][y][z] */
static cplx zs[NZL][NY][NX];
static cplx xs[NXL][NY][NZ];
static cplx sbuf[NPROCS][BLOCK], rbuf[NPROCS][BLOCK];

/* zs -> xs: block for rank r holds x in [r*NXL, (r+1)*NXL) of my z-planes */
static void transpose_zx(void) {
  for (int r = 0; r < NPROCS; ++r)
    for (int zl = 0, m = 0; zl < NZL; ++zl)
      for (int y = 0; y < NY; ++y)
        for (int xl = 0; xl < NXL; ++xl) sbuf[r][m++] = zs[zl][y][r * NXL + xl];
  MPI_Alltoall(sbuf, 2 * BLOCK, MPI_DOUBLE, rbuf, 2 * BLOCK, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int r = 0; r < NPROCS; ++r)
    for (int zl = 0, m = 0; zl < NZL; ++zl)
      for (int y = 0; y < NY; ++y)
        for (int xl = 0; xl < NXL; ++xl) xs[xl][y][r * NZL + zl] = rbuf[r][m++];
}

static void transpose_xz(void) {
  for (int r = 0; r < NPROCS; ++r)
    for (int zl = 0, m = 0; zl < NZL; ++zl)
      for (int y = 0; y < NY; ++y)
        for (int xl = 0; xl < NXL; ++xl) sbuf[r][m++] = xs[xl][y][r * NZL + zl];
  MPI_Alltoall(sbuf, 2 * BLOCK, MPI_DOUBLE, rbuf, 2 * BLOCK, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int r = 0; r < NPROCS; ++r)
    for (int zl = 0, m = 0; zl < NZL; ++zl)
      for (int y = 0; y < NY; ++y)
        for (int xl = 0; xl < NXL; ++xl) zs[zl][y][r * NXL + xl] = rbuf[r][m++];
}

static void fft3d_forward(void) {
  for (int zl = 0; zl < NZL; ++zl) {
    for (int y = 0; y < NY; ++y) fft1(&zs[zl][y][0], NX, 1, -1);
    for (int x = 0; x < NX; ++x) fft1(&zs[zl][0][x], NY, NX, -1);
  }
  transpose_zx();
  for (int xl = 0; xl < NXL; ++xl)
    for (int y = 0; y < NY; ++y) fft1(&xs[xl][y][0], NZ, 1, -1);
}

static void fft3d_inverse(void) {
  for (int xl = 0; xl < NXL; ++xl)
    for (int y = 0; y < NY; ++y) fft1(&xs[xl][y][0], NZ, 1, 1);
  transpose_xz();
  for (int zl = 0; zl < NZL; ++zl) {
    for (int y = 0; y < NY; ++y) fft1(&zs[zl][y][0], NX, 1, 1);
    for (int x = 0; x < NX; ++x) fft1(&zs[zl][0][x], NY, NX, 1);
  }
}

static int wave(int k, int n) { return k < n / 2 ? k : k - n; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != NPROCS) {
    if (rank == 0)
      fprintf(stderr, "ft_like: compiled for NPROCS=%d processes but run on %d; rebuild with -DNPROCS=%d\n",
              NPROCS, size, size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  unsigned long long s = 0x2545F4914F6CDD1DULL * (unsigned long long)(rank + 1);
  for (int zl = 0; zl < NZL; ++zl)
    for (int y = 0; y < NY; ++y)
      for (int x = 0; x < NX; ++x) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const double re = (double)(s >> 11) / 9007199254740992.0;
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        const double im = (double)(s >> 11) / 9007199254740992.0;
        zs[zl][y][x] = re + I * im;
      }
  fft3d_forward(); /* spectrum in xs */
  static cplx spec[NXL][NY][NZ];
  for (int xl = 0; xl < NXL; ++xl)
    for (int y = 0; y < NY; ++y)
      for (int z = 0; z < NZ; ++z) spec[xl][y][z] = xs[xl][y][z];
  const double alpha = 1e-6;
  double sum[2] = {0.0, 0.0};
  for (int it = 1; it <= NITER; ++it) {
    for (int xl = 0; xl < NXL; ++xl)
      for (int y = 0; y < NY; ++y)
        for (int z = 0; z < NZ; ++z) {
          const int kx = wave(rank * NXL + xl, NX), ky = wave(y, NY), kz = wave(z, NZ);
          const double k2 = (double)(kx * kx + ky * ky + kz * kz);
          xs[xl][y][z] = spec[xl][y][z] * exp(-4.0 * M_PI * M_PI * alpha * it * k2);
        }
    fft3d_inverse();
    double part[2] = {0.0, 0.0}, energy_loc = 0.0, energy;
    for (int j = 1; j <= 64; ++j) {
      const int z = (3 * j) % NZ, y = (5 * j) % NY, x = j % NX;
      if (z / NZL == rank) {
        part[0] += creal(zs[z % NZL][y][x]);
        part[1] += cimag(zs[z % NZL][y][x]);
      }
    }
    for (int zl = 0; zl < NZL; ++zl)
      for (int y = 0; y < NY; ++y)
        for (int x = 0; x < NX; ++x) energy_loc += creal(zs[zl][y][x] * conj(zs[zl][y][x]));
    MPI_Reduce(part, sum, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&energy_loc, &energy, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && it == NITER)
      printf("ft_like: P=%d %dx%dx%d iteration %d checksum %.6e %.6e energy %.6e\n", NPROCS, NX, NY, NZ, it,
             sum[0], sum[1], energy);
  }
  MPI_Finalize();
  return 0;
}
