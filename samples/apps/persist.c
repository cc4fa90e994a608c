/* persist: persistent point-to-point requests in a halo loop, and matched probes in a
 * master-worker exchange (MPI-3 point-to-point).
 *
 * Every rank makes its halo exchange with its two ring neighbours once, as persistent requests
 * (MPI_Send_init, MPI_Recv_init), and starts it every iteration: the four requests of the
 * exchange with MPI_Startall and MPI_Waitall, then a larger message to the right with two
 * MPI_Start calls completed by MPI_Wait. After the loop each persistent request is released
 * with MPI_Request_free. An MPI_Allreduce ends each iteration. Rank 0 also collects one value
 * from every other rank through a persistent receive from MPI_ANY_SOURCE, started once per
 * sender.
 *
 * Then a few rounds of results from the workers (ranks 1..P-1) to the master (rank 0), which
 * takes them in arrival order: with MPI_Mprobe from MPI_ANY_SOURCE, MPI_Get_count and MPI_Mrecv,
 * then with MPI_Improbe polled until it finds a message, MPI_Imrecv and MPI_Wait. Every rank also
 * probes MPI_PROC_NULL once a round (MPI_MESSAGE_NO_PROC, received by MPI_Mrecv at once).
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
  /* A persistent receive from any rank, started once per sender. */
  if (rank == 0) {
    MPI_Request anyRecv;
    double value = 0;
    MPI_Recv_init(&value, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &anyRecv);
    for (int k = 1; k < size; ++k) {
      MPI_Start(&anyRecv);
      MPI_Wait(&anyRecv, MPI_STATUS_IGNORE);
      total += value;
    }
    MPI_Request_free(&anyRecv);
  } else {
    const double value = rank;
    MPI_Send(&value, 1, MPI_DOUBLE, 0, 5, MPI_COMM_WORLD);
  }
  for (int i = 0; i < 4; ++i) MPI_Request_free(&halo[i]);
  MPI_Request_free(&bigRecv);
  MPI_Request_free(&bigSend);

  /* Master-worker rounds with matched probes. */
  const int rounds = 3;
  for (int round = 0; round < rounds; ++round) {
    if (rank == 0) {
      for (int k = 1; k < size; ++k) {
        MPI_Message message;
        MPI_Status status;
        int count = 0;
        MPI_Mprobe(MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &message, &status);
        MPI_Get_count(&status, MPI_DOUBLE, &count);
        MPI_Mrecv(fromLeft, count, MPI_DOUBLE, &message, MPI_STATUS_IGNORE);
        total += fromLeft[0];
      }
      for (int k = 1; k < size; ++k) {
        MPI_Message message;
        MPI_Request request;
        int found = 0;
        do
          MPI_Improbe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &found, &message, MPI_STATUS_IGNORE);
        while (!found);
        MPI_Imrecv(bigIn, n, MPI_INT, &message, &request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
        total += bigIn[0];
      }
    } else {
      for (int i = 0; i < n; ++i) toRight[i] = rank + round;
      MPI_Send(toRight, n, MPI_DOUBLE, 0, 7, MPI_COMM_WORLD);
      for (int i = 0; i < n; ++i) big[i] = rank * round;
      MPI_Send(big, n, MPI_INT, 0, 8, MPI_COMM_WORLD);
    }
    MPI_Message none;
    MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &none, MPI_STATUS_IGNORE);
    MPI_Mrecv(NULL, 0, MPI_INT, &none, MPI_STATUS_IGNORE);
  }

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
