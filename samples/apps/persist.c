/* persist: persistent point-to-point requests in a halo loop.
 *
 * Every rank makes its halo exchange with its two ring neighbours once, as persistent requests
 * (MPI_Send_init, MPI_Recv_init), and starts it every iteration: the four requests of the
 * exchange with MPI_Startall and MPI_Waitall, then a larger message to the right with two
 * MPI_Start calls completed by MPI_Wait. After the loop each persistent request is released
 * with MPI_Request_free. An MPI_Allreduce ends each iteration.
 *
 * Usage: persist [iterations=20] [n=256]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 20;
  const int n = argc > 2 ? atoi(argv[2]) : 256;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double* toRight = calloc((size_t)n, sizeof(double));
  double* toLeft = calloc((size_t)n, sizeof(double));
  double* fromLeft = calloc((size_t)n, sizeof(double));
  double* fromRight = calloc((size_t)n, sizeof(double));
  int* big = calloc((size_t)(4 * n), sizeof(int));
  int* bigIn = calloc((size_t)(4 * n), sizeof(int));

  /* The halo exchange, made once. */
  MPI_Request halo[4];
  MPI_Recv_init(fromLeft, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &halo[0]);
  MPI_Recv_init(fromRight, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &halo[1]);
  MPI_Send_init(toRight, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &halo[2]);
  MPI_Send_init(toLeft, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &halo[3]);
  /* A larger message to the right, started one request at a time. */
  MPI_Request bigRecv, bigSend;
  MPI_Recv_init(bigIn, 4 * n, MPI_INT, left, 3, MPI_COMM_WORLD, &bigRecv);
  MPI_Send_init(big, 4 * n, MPI_INT, right, 3, MPI_COMM_WORLD, &bigSend);

  double total = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) toRight[i] = toLeft[i] = rank + it + 0.5 * i;
    MPI_Startall(4, halo);
    MPI_Waitall(4, halo, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 4 * n; ++i) big[i] = rank + it + i;
    MPI_Start(&bigRecv);
    MPI_Start(&bigSend);
    MPI_Wait(&bigSend, MPI_STATUS_IGNORE);
    MPI_Wait(&bigRecv, MPI_STATUS_IGNORE);
    double local = fromLeft[0] + fromRight[n - 1] + bigIn[0], sum = 0;
    MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum;
  }
  for (int i = 0; i < 4; ++i) MPI_Request_free(&halo[i]);
  MPI_Request_free(&bigRecv);
  MPI_Request_free(&bigSend);

  if (rank == 0) printf("persist: %d ranks, %d iterations, total %g\n", size, iters, total);
  free(toRight);
  free(toLeft);
  free(fromLeft);
  free(fromRight);
  free(big);
  free(bigIn);
  MPI_Finalize();
  return 0;
}
