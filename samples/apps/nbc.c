/* nbc: the nonblocking collectives of MPI-3 overlapping computation, and a user-defined
 * reduction operator.
 *
 * Every iteration starts a nonblocking collective, computes while it runs, and completes it
 * with MPI_Wait (or several with MPI_Waitall): MPI_Iallreduce, MPI_Ibcast with MPI_Ireduce,
 * MPI_Igather, MPI_Iscatter, MPI_Iallgather, MPI_Ialltoall, their vector forms (MPI_Igatherv,
 * MPI_Iscatterv, MPI_Iallgatherv, MPI_Ialltoallv), MPI_Ireduce_scatter(_block), MPI_Iscan,
 * MPI_Iexscan, MPI_Ialltoallw and MPI_Ibarrier, on MPI_COMM_WORLD and one MPI_Ibcast on each
 * half of a split. MPI_Alltoallw exchanges blocks of a different datatype with each peer
 * (doubles with even ranks, ints with odd ones).
 * A blocking MPI_Barrier sits between two nonblocking collectives that are still running (the
 * order of a communicator's collectives is that of their starting calls). A user-defined
 * operator (MPI_Op_create: an element-wise sum) reduces with MPI_Allreduce and MPI_Iallreduce.
 * Every rank makes the same calls with the same bytes. Runs on any number of ranks.
 *
 * Usage: nbc [ITERATIONS [DOUBLES]]   (defaults 4 and 32)
 */
#include <mpi.h>
#include <stdlib.h>

static volatile double sink;

static void compute(int n)
{
  double x = 0;
  for (int i = 0; i < n * 1000; ++i)
    x += (double)i * 0.5;
  sink = x;
}

static void my_sum(void* in, void* inout, int* len, MPI_Datatype* type)
{
  (void)type;
  const double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i)
    b[i] += a[i];
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 4;
  const int n = argc > 2 ? atoi(argv[2]) : 32;
  double* out = calloc((size_t)n * (size_t)size, sizeof(double));
  double* in = calloc((size_t)n * (size_t)size, sizeof(double));
  double* extra = calloc((size_t)n * (size_t)size, sizeof(double));
  int* counts = malloc((size_t)size * sizeof(int));
  int* displs = malloc((size_t)size * sizeof(int));
  int* mine = malloc((size_t)size * sizeof(int)); /* MPI_Ialltoallv: counts[rank] to every rank */
  if (!out || !in || !extra || !counts || !displs || !mine)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < size; ++i) {
    counts[i] = n / 2 + i % 2;
    displs[i] = i * n;
  }
  for (int i = 0; i < size; ++i)
    mine[i] = counts[rank];
  /* MPI_Alltoallw: n/2 doubles to and from even ranks, n ints to and from odd ones; byte
     displacements of one double block of n per peer. */
  int* wcounts = malloc((size_t)size * sizeof(int));
  int* wdispls = malloc((size_t)size * sizeof(int));
  MPI_Datatype* wtypes = malloc((size_t)size * sizeof(MPI_Datatype));
  if (!wcounts || !wdispls || !wtypes)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < size; ++i) {
    wcounts[i] = i % 2 ? n : n / 2;
    wtypes[i] = i % 2 ? MPI_INT : MPI_DOUBLE;
    wdispls[i] = i * n * (int)sizeof(double);
  }
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Op sum;
  MPI_Op_create(my_sum, 1, &sum);

  for (int it = 0; it < iterations; ++it) {
    MPI_Request r[3];
    MPI_Iallreduce(out, in, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    compute(20);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Ibcast(in, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Ireduce(out, extra, n, MPI_DOUBLE, MPI_MAX, size - 1, MPI_COMM_WORLD, &r[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    compute(10);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

    MPI_Igather(out, n, MPI_DOUBLE, in, n, MPI_DOUBLE, 1 % size, MPI_COMM_WORLD, &r[0]);
    MPI_Iscatter(out, n, MPI_DOUBLE, extra, n, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[1]);
    compute(10);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

    MPI_Iallgather(out, n, MPI_DOUBLE, in, n, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    compute(10);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Ialltoall(out, n, MPI_DOUBLE, in, n, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    compute(10);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    MPI_Igatherv(out, counts[rank], MPI_DOUBLE, in, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Iscatterv(out, counts, displs, MPI_DOUBLE, in, counts[rank], MPI_DOUBLE, 0, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Iallgatherv(out, counts[rank], MPI_DOUBLE, in, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD, &r[0]);
    MPI_Ialltoallv(out, mine, displs, MPI_DOUBLE, extra, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD, &r[1]);
    compute(10);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

    MPI_Ireduce_scatter(out, in, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    MPI_Ireduce_scatter_block(out, in, n / 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
    MPI_Iscan(out, extra, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]);
    MPI_Iexscan(out, in + n, n, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD, &r[2]);
    compute(10);
    MPI_Waitall(3, r, MPI_STATUSES_IGNORE);

    MPI_Ibcast(in, n, MPI_DOUBLE, 0, half, &r[0]);
    MPI_Ibarrier(MPI_COMM_WORLD, &r[1]);
    compute(10);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

    /* Per-peer counts and datatypes, blocking and nonblocking. */
    MPI_Alltoallw(out, wcounts, wdispls, wtypes, in, wcounts, wdispls, wtypes, MPI_COMM_WORLD);
    MPI_Ialltoallw(out, wcounts, wdispls, wtypes, extra, wcounts, wdispls, wtypes, MPI_COMM_WORLD, &r[0]);
    compute(10);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);

    /* The user-defined operator, blocking and nonblocking. */
    MPI_Allreduce(out, in, n, MPI_DOUBLE, sum, MPI_COMM_WORLD);
    MPI_Iallreduce(out, extra, n, MPI_DOUBLE, sum, MPI_COMM_WORLD, &r[0]);
    compute(10);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  }

  MPI_Op_free(&sum);
  MPI_Comm_free(&half);
  free(out);
  free(in);
  free(extra);
  free(counts);
  free(displs);
  free(mine);
  free(wcounts);
  free(wdispls);
  free(wtypes);
  MPI_Finalize();
  return 0;
}
