/* pairwise: a personalised all-to-all written with point-to-point calls, in the two schedules
 * codes use instead of MPI_Alltoall (to overlap computation with each round, or where the MPI
 * library's own all-to-all is slow).
 *
 * Each iteration exchanges one block of `n` doubles with every other rank twice:
 *   - XOR rounds (P a power of two): in round i = 1 .. P-1, rank r exchanges with r XOR i by
 *     one MPI_Sendrecv. Both ends of a pair name each other in the same round, so every round
 *     is a perfect matching and the P-1 rounds together meet every pair once (the complete
 *     graph); the relative peer depends on the rank's bits (no grid direction).
 *   - Shift rounds: in round i, rank r sends to (r + i) mod P and receives from (r - i) mod P
 *     (every rank the same relative peers, counting through the ranks).
 * Then a reduction of the received data (MPI_Allreduce) checks the exchange.
 *
 * Usage: pairwise [iterations=3] [n=64]   (the rank count a power of two)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size & (size - 1)) {
    if (rank == 0) fprintf(stderr, "pairwise: the rank count must be a power of two, not %d\n", size);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int iters = argc > 1 ? atoi(argv[1]) : 3;
  const int n = argc > 2 ? atoi(argv[2]) : 64;
  double* out = malloc(sizeof(double) * (size_t)n);
  double* in = malloc(sizeof(double) * (size_t)n);
  double check = 0.0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 1; i < size; ++i) {
      const int peer = rank ^ i;
      for (int k = 0; k < n; ++k) out[k] = rank * 1000.0 + peer + k + it;
      MPI_Sendrecv(out, n, MPI_DOUBLE, peer, 7, in, n, MPI_DOUBLE, peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check += in[0] - (peer * 1000.0 + rank + it);  /* 0 when the block came from the partner */
    }
    for (int i = 1; i < size; ++i) {
      const int to = (rank + i) % size, from = (rank - i + size) % size;
      for (int k = 0; k < n / 2; ++k) out[k] = rank * 1000.0 + to + k;
      MPI_Sendrecv(out, n / 2, MPI_DOUBLE, to, 8, in, n / 2, MPI_DOUBLE, from, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      check += in[0] - (from * 1000.0 + rank);
    }
  }
  double total = 0.0;
  MPI_Allreduce(&check, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("pairwise: P=%d n=%d %s\n", size, n, total == 0.0 ? "ok" : "MISMATCH");
  free(out);
  free(in);
  MPI_Finalize();
  return total == 0.0 ? 0 : 1;
}
