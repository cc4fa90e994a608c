/* polling: wildcard receives completed by polling, as HPC Challenge's RandomAccess does.
 *
 * Each round every rank posts an MPI_Irecv from MPI_ANY_SOURCE, computes a little and then
 * sends its block with MPI_Isend to a partner that changes from round to round (rank r sends
 * to r + 1 + round mod (P - 1)), and polls its receive with MPI_Testany (even rounds) or
 * MPI_Test (odd rounds), computing between polls, until the block has arrived; then it polls
 * its send with MPI_Test. A barrier, then an MPI_Sendrecv to the right neighbour from the left
 * one, on the same tag as the wildcard receives, end the round. (The barrier keeps the program
 * free of races: no rank sends its Sendrecv message before every wildcard receive of the round
 * has its block.)
 *
 * The polls that fail and the one that succeeds are what the trace records. A simulation that
 * took the successful poll for one that may not have completed anything would let every rank
 * run on through the barrier to the Sendrecv with its wildcard receive still open, which could
 * then take the left neighbour's Sendrecv message instead of the partner's block: a matching
 * the program never makes.
 *
 * Usage: polling [rounds=20] [n=256]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* A little computation between polls; volatile so that it is not optimised away. */
static double spin(int steps) {
  volatile double x = 1.0;
  for (int i = 0; i < steps; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = argc > 1 ? atoi(argv[1]) : 20;
  const int n = argc > 2 ? atoi(argv[2]) : 256;
  const int tag = 7;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  double* out = malloc(sizeof(double) * (size_t)n);
  double* in = malloc(sizeof(double) * (size_t)n);
  double* ring = malloc(sizeof(double) * (size_t)n);
  double sum = 0;
  long long polls = 0;
  for (int round = 0; round < rounds; ++round) {
    MPI_Request recv, send;
    MPI_Irecv(in, n, MPI_DOUBLE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &recv);
    for (int i = 0; i < n; ++i) out[i] = rank + round + i * 1e-3;
    spin(20000 * (1 + rank % 2)); /* the peer sends later: the first polls fail */
    const int partner = size > 1 ? (rank + 1 + round % (size - 1)) % size : rank;
    MPI_Isend(out, n, MPI_DOUBLE, partner, tag, MPI_COMM_WORLD, &send);

    int flag = 0;
    MPI_Status status;
    while (!flag) {
      spin(2000);
      ++polls;
      if (round % 2 == 0) {
        int index;
        MPI_Testany(1, &recv, &index, &flag, &status);
      } else {
        MPI_Test(&recv, &flag, &status);
      }
    }
    for (int i = 0; i < n; ++i) sum += in[i] * (status.MPI_SOURCE + 1);

    int sent = 0;
    while (!sent) {
      spin(500);
      MPI_Test(&send, &sent, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Sendrecv(out, n, MPI_DOUBLE, right, tag, ring, n, MPI_DOUBLE, left, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sum += ring[0];
  }
  double total = 0;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("polling: %d ranks, %d rounds, %lld polls on rank 0, checksum %.3f\n", size, rounds, polls, total);
  free(out);
  free(in);
  free(ring);
  MPI_Finalize();
  return 0;
}
