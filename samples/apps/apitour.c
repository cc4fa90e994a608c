/* apitour: every MPI call the recorder intercepts, in deterministic numbers.
 *
 * Not a pattern from an application but a coverage test: each iteration makes every
 * point-to-point, completion and collective call once or twice on a ring (right = rank + 1),
 * on a derived datatype, on MPI_PROC_NULL, with MPI_ANY_SOURCE and MPI_ANY_TAG, with
 * MPI_IN_PLACE, on communicators from MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create, and
 * every group constructor.
 * Polling calls (MPI_Test*, MPI_Iprobe) are made exactly once each, whatever they return, and
 * followed by waits, so that two runs make the same calls with the same byte counts: the
 * end-to-end tests compare a recorded trace with a count of the calls.
 *
 * Usage: apitour [iterations=3]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 64

int main(int argc, char** argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 3;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;

  MPI_Datatype triple; /* a derived type of 24 bytes */
  MPI_Type_contiguous(3, MPI_DOUBLE, &triple);
  MPI_Type_commit(&triple);
  int bsize = 4 * (N * (int)sizeof(double) + MPI_BSEND_OVERHEAD);
  void* bbuf = malloc((size_t)bsize);
  MPI_Buffer_attach(bbuf, bsize);

  /* Communicators: a duplicate, two halves, the even ranks and the odd ones (each rank gets
     MPI_COMM_NULL from one of the two MPI_Comm_create, so both take the same number on every
     rank), the odd ranks' group made by every group constructor in turn. */
  MPI_Comm dup, half, evens, odds;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
  MPI_Group world_group, even_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  int even_ranks[64], neven = 0;
  for (int r = 0; r < size && neven < 64; r += 2) even_ranks[neven++] = r;
  MPI_Group_incl(world_group, neven, even_ranks, &even_group);
  MPI_Comm_create(MPI_COMM_WORLD, even_group, &evens);
  int every_other[1][3] = {{0, size - 1, 2}}, zero = 0;
  MPI_Group evens_again, odds_by_difference, world_again, odds_by_excl, odds_by_range, odd_group;
  MPI_Group_range_incl(world_group, 1, every_other, &evens_again);
  MPI_Group_difference(world_group, evens_again, &odds_by_difference);
  MPI_Group_union(world_group, odds_by_difference, &world_again);
  MPI_Group_excl(world_again, neven, even_ranks, &odds_by_excl);
  MPI_Group_range_excl(world_group, 1, every_other, &odds_by_range);
  MPI_Group_intersection(odds_by_excl, odds_by_range, &odd_group);
  MPI_Comm_create(MPI_COMM_WORLD, odd_group, &odds);
  MPI_Group_free(&evens_again);
  MPI_Group_free(&odds_by_difference);
  MPI_Group_free(&world_again);
  MPI_Group_free(&odds_by_excl);
  MPI_Group_free(&odds_by_range);
  MPI_Group_free(&odd_group);

  /* N doubles per rank for the gathers, and room for N triples (3N doubles) at any size. */
  double* a = calloc(N * (size_t)(size + 4), sizeof(double));
  double* b = calloc(N * (size_t)(size + 4), sizeof(double));
  int* counts = malloc(sizeof(int) * (size_t)size);
  int* displs = malloc(sizeof(int) * (size_t)size);
  int* mine = malloc(sizeof(int) * (size_t)size); /* what every rank sends me in Alltoallv */
  for (int r = 0; r < size; ++r) {
    counts[r] = 1 + r % 3;
    displs[r] = r * N;
    mine[r] = 1 + rank % 3;
  }
  double check = 0;

  for (int it = 0; it < iters; ++it) {
    MPI_Request req[4];
    MPI_Status st;
    int flag, index, outcount, indices[4];
    for (int i = 0; i < N; ++i) a[i] = rank + it + i;

    /* Blocking sends around the ring: rank 0 starts, the others pass on. */
    if (rank == 0) {
      MPI_Send(a, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
      MPI_Recv(b, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &st);
      MPI_Ssend(a, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
      MPI_Recv(b, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    } else {
      MPI_Recv(b, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &st);
      MPI_Send(a, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD);
      MPI_Recv(b, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
      MPI_Ssend(a, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD);
    }
    MPI_Bsend(a, N / 2, MPI_DOUBLE, right, 3, MPI_COMM_WORLD);
    MPI_Recv(b, N / 2, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &st);
    MPI_Send(a, 8, MPI_DOUBLE, MPI_PROC_NULL, 4, MPI_COMM_WORLD);

    /* A non-periodic shift: the last rank sends to MPI_PROC_NULL, rank 0 receives from it. */
    MPI_Sendrecv(a, N / 2, MPI_DOUBLE, rank + 1 < size ? rank + 1 : MPI_PROC_NULL, 4, b, N / 2, MPI_DOUBLE,
                 rank > 0 ? rank - 1 : MPI_PROC_NULL, 4, MPI_COMM_WORLD, &st);

    /* A group made and freed every iteration: its id grows, the loop still folds. */
    MPI_Group without_first;
    MPI_Group_excl(world_group, 1, &zero, &without_first);
    MPI_Group_free(&without_first);

    /* Ready sends need the receive posted first. */
    MPI_Irecv(b, N, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Rsend(a, N, MPI_DOUBLE, right, 5, MPI_COMM_WORLD);
    MPI_Wait(&req[0], &st);

    /* Nonblocking pairs completed by Waitany (twice: two requests). */
    MPI_Irecv(b, N, triple, left, 6, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(a, N, triple, right, 6, MPI_COMM_WORLD, &req[1]);
    MPI_Waitany(2, req, &index, &st);
    MPI_Waitany(2, req, &index, &st);

    /* Irsend after a barrier; one Waitsome, then Waitall for whatever is left. */
    MPI_Irecv(b, N, MPI_DOUBLE, left, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Barrier(dup);
    MPI_Irsend(a, N, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Waitsome(2, req, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);

    /* Issend and Ibsend: one of each test, then the waits. */
    MPI_Irecv(b, N, MPI_DOUBLE, left, 8, MPI_COMM_WORLD, &req[0]);
    MPI_Issend(a, N, MPI_DOUBLE, right, 8, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(b + N, N / 2, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &req[2]);
    MPI_Ibsend(a, N / 2, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, &req[3]);
    MPI_Test(&req[0], &flag, &st);
    MPI_Testall(4, req, &flag, MPI_STATUSES_IGNORE);
    MPI_Testany(4, req, &index, &flag, &st);
    MPI_Testsome(4, req, &outcount, indices, MPI_STATUSES_IGNORE);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

    /* Probes. */
    MPI_Isend(a, N, MPI_DOUBLE, right, 10, MPI_COMM_WORLD, &req[0]);
    MPI_Probe(MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &st);
    MPI_Recv(b, N, MPI_DOUBLE, st.MPI_SOURCE, 10, MPI_COMM_WORLD, &st);
    MPI_Wait(&req[0], &st);
    MPI_Isend(a, N, MPI_DOUBLE, right, 11, MPI_COMM_WORLD, &req[0]);
    MPI_Iprobe(left, 11, MPI_COMM_WORLD, &flag, &st);
    MPI_Recv(b, N, MPI_DOUBLE, left, 11, MPI_COMM_WORLD, &st);
    MPI_Wait(&req[0], &st);

    /* Combined send-receive. */
    MPI_Sendrecv(a, N, MPI_DOUBLE, right, 12, b, N, MPI_DOUBLE, left, 12, MPI_COMM_WORLD, &st);
    MPI_Sendrecv_replace(a, N / 4, MPI_DOUBLE, right, 13, left, 13, MPI_COMM_WORLD, &st);

    /* Collectives on the world, the duplicate and the halves. */
    MPI_Bcast(a, N, MPI_DOUBLE, it % size, MPI_COMM_WORLD);
    MPI_Reduce(a, b, N, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Allreduce(a, b, N, MPI_DOUBLE, MPI_MAX, dup);
    MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_DOUBLE, MPI_MIN, half);
    MPI_Gather(a, N, MPI_DOUBLE, b, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gatherv(a, counts[rank], MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, size - 1, MPI_COMM_WORLD);
    MPI_Scatter(b, N, MPI_DOUBLE, a, N, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Scatterv(b, counts, displs, MPI_DOUBLE, a, counts[rank], MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Allgather(a, 2, triple, b, 2, triple, MPI_COMM_WORLD);
    MPI_Allgatherv(a, counts[rank], MPI_DOUBLE, b, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Alltoall(a, 4, MPI_DOUBLE, b, 4, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Alltoallv(a, counts, displs, MPI_DOUBLE, b, mine, displs, MPI_DOUBLE, MPI_COMM_WORLD);
    MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Scan(a, b, 4, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
    MPI_Exscan(a, b, 4, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Reduce_scatter_block(a, b, 4, MPI_DOUBLE, MPI_MAX, dup);
    if (evens != MPI_COMM_NULL) MPI_Barrier(evens);
    if (odds != MPI_COMM_NULL) MPI_Allreduce(MPI_IN_PLACE, a, 2, MPI_DOUBLE, MPI_SUM, odds);
    MPI_Barrier(MPI_COMM_WORLD);
    check += b[0];
  }
  if (rank == 0) printf("apitour: %d ranks, %d iterations, check %.3f\n", size, iters, check);

  if (evens != MPI_COMM_NULL) MPI_Comm_free(&evens);
  if (odds != MPI_COMM_NULL) MPI_Comm_free(&odds);
  MPI_Group_free(&even_group);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  MPI_Buffer_detach(&bbuf, &bsize);
  free(bbuf);
  MPI_Type_free(&triple);
  free(a);
  free(b);
  free(counts);
  free(displs);
  free(mine);
  MPI_Finalize();
  return 0;
}
