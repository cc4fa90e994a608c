/* master_worker: a master that hands tasks to workers and collects their results from
 * MPI_ANY_SOURCE, the C twin of master_worker_f.f90 (the two make the same calls in the same
 * order, and tests/e2e/record_e2e.sh `twins` checks that their traces and benchmarks resolve
 * every wildcard alike).
 *
 * Rank 0 is the master; each round it serves the next worker in turn (1, 2, ..., P-1, 1, ...):
 * it sends the worker a task and receives the result from MPI_ANY_SOURCE, each round with
 * another form of wildcard receive: MPI_Recv; MPI_Irecv completed by MPI_Wait; two MPI_Irecv
 * completed one at a time by MPI_Waitany (the worker answers twice); MPI_Irecv completed by
 * MPI_Waitall; MPI_Sendrecv (the task out, the result in); MPI_Probe, then MPI_Recv from the
 * sender the probe found. Only the served worker sends, so which sender each wildcard matches
 * is the same in every run: the recorder notes it (`matched`), from C and from Fortran alike.
 *
 * Usage: master_worker [rounds=12] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kTask = 1, kResult = 2, kWords = 64 };

static void work(double *buf, int round) {
  for (int i = 0; i < kWords; ++i) buf[i] = buf[i] * 0.5 + round + i;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int rounds = argc > 1 ? atoi(argv[1]) : 12;
  MPI_Bcast(&rounds, 1, MPI_INT, 0, MPI_COMM_WORLD);
  double task[kWords], result[kWords], second[kWords];
  for (int i = 0; i < kWords; ++i) task[i] = i;
  double sum = 0;
  for (int round = 0; round < rounds && nprocs > 1; ++round) {
    const int worker = 1 + round % (nprocs - 1);
    const int form = round % 6;
    if (rank == 0) {
      MPI_Status status;
      MPI_Request reqs[2];
      int index;
      switch (form) {
        case 0:
          MPI_Send(task, kWords, MPI_DOUBLE, worker, kTask, MPI_COMM_WORLD);
          MPI_Recv(result, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &status);
          break;
        case 1:
          MPI_Irecv(result, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &reqs[0]);
          MPI_Send(task, kWords, MPI_DOUBLE, worker, kTask, MPI_COMM_WORLD);
          MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
          break;
        case 2:
          MPI_Irecv(result, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &reqs[0]);
          MPI_Irecv(second, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &reqs[1]);
          MPI_Send(task, kWords, MPI_DOUBLE, worker, kTask, MPI_COMM_WORLD);
          MPI_Waitany(2, reqs, &index, &status);
          MPI_Waitany(2, reqs, &index, MPI_STATUS_IGNORE);
          break;
        case 3:
          MPI_Irecv(result, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &reqs[0]);
          MPI_Send(task, kWords, MPI_DOUBLE, worker, kTask, MPI_COMM_WORLD);
          MPI_Waitall(1, reqs, MPI_STATUSES_IGNORE);
          break;
        case 4:
          MPI_Sendrecv(task, kWords, MPI_DOUBLE, worker, kTask, result, kWords, MPI_DOUBLE, MPI_ANY_SOURCE, kResult,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          break;
        default:
          MPI_Send(task, kWords, MPI_DOUBLE, worker, kTask, MPI_COMM_WORLD);
          MPI_Probe(MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, &status);
          MPI_Recv(result, kWords, MPI_DOUBLE, status.MPI_SOURCE, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          break;
      }
      sum += result[0];
    } else if (rank == worker) {
      MPI_Recv(task, kWords, MPI_DOUBLE, 0, kTask, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      work(task, round);
      MPI_Send(task, kWords, MPI_DOUBLE, 0, kResult, MPI_COMM_WORLD);
      if (form == 2) MPI_Send(task, kWords, MPI_DOUBLE, 0, kResult, MPI_COMM_WORLD);
    }
  }
  double total = 0;
  MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("master_worker: %d rounds on %d ranks, checksum %.1f\n", rounds, nprocs, total);
  MPI_Finalize();
  return 0;
}
