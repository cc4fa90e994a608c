/* ring: a ring all-gather with blocking MPI_Sendrecv.
 *
 * Each iteration passes a block of `n` integers around the ring: P - 1 steps, in each of which
 * every rank sends to its right neighbour and receives from its left one with one MPI_Sendrecv.
 * With relative endpoints (+1 and -1 mod P) every rank's trace is the same, so the recorded
 * trace does not grow with the number of ranks. A barrier ends each iteration.
 *
 * Usage: ring [iterations=50] [n=1024]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 50;
  const int n = argc > 2 ? atoi(argv[2]) : 1024;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  int* mine = malloc(sizeof(int) * (size_t)n);
  int* incoming = malloc(sizeof(int) * (size_t)n);
  long long sum = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) mine[i] = rank * n + i + it;
    for (int step = 0; step < size - 1; ++step) {
      MPI_Sendrecv(mine, n, MPI_INT, right, step, incoming, n, MPI_INT, left, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      for (int i = 0; i < n; ++i) sum += incoming[i];
      memcpy(mine, incoming, sizeof(int) * (size_t)n); /* pass the block on */
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (rank == 0) printf("ring: %d ranks, %d iterations, sum %lld\n", size, iters, sum);
  free(mine);
  free(incoming);
  MPI_Finalize();
  return 0;
}
