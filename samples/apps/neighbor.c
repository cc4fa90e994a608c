/* neighbor: the neighbourhood collectives of MPI-3 on topology communicators, and reductions
 * with user-defined operators.
 *
 * A 2-D Cartesian grid (MPI_Dims_create, periodic in the first dimension only, so that the
 * ranks on the border of the second have MPI_PROC_NULL neighbours) exchanges halos every
 * iteration with MPI_Neighbor_alltoall, gathers a value from each neighbour with
 * MPI_Neighbor_allgather and MPI_Neighbor_allgatherv, and overlaps MPI_Ineighbor_alltoallv and
 * MPI_Ineighbor_alltoallw (doubles to the neighbours of the first dimension, ints to those of
 * the second) with computation, completed by MPI_Waitall. A ring made with
 * MPI_Dist_graph_create_adjacent (each rank's sources: the previous two ranks; destinations: the
 * next two) exchanges with MPI_Neighbor_alltoallv: n doubles with the nearer neighbour, 2n with
 * the farther one.
 * Two user-defined operators (MPI_Op_create) reduce with MPI_Allreduce: an element-wise maximum
 * on MPI_DOUBLE and a sum over a derived type (a pair of doubles, MPI_Type_contiguous).
 * Runs on any number of ranks.
 *
 * Usage: neighbor [ITERATIONS [DOUBLES]]   (defaults 4 and 16)
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

static void my_max(void* in, void* inout, int* len, MPI_Datatype* type)
{
  (void)type;
  const double* a = in;
  double* b = inout;
  for (int i = 0; i < *len; ++i)
    if (a[i] > b[i])
      b[i] = a[i];
}

/* On pairs of doubles: *len pairs, 2 * *len doubles. */
static void pair_sum(void* in, void* inout, int* len, MPI_Datatype* type)
{
  (void)type;
  const double* a = in;
  double* b = inout;
  for (int i = 0; i < 2 * *len; ++i)
    b[i] += a[i];
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 4;
  const int n = argc > 2 ? atoi(argv[2]) : 16;

  /* The grid: 4 neighbours per rank, some of them MPI_PROC_NULL. */
  int dims[2] = {0, 0}, periods[2] = {1, 0};
  MPI_Dims_create(size, 2, dims);
  MPI_Comm grid;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);

  /* The ring: two sources, two destinations. */
  int sources[2] = {(rank + size - 1) % size, (rank + 2 * size - 2) % size};
  int destinations[2] = {(rank + 1) % size, (rank + 2) % size};
  int weights[2] = {1, 1};
  MPI_Comm ring;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, sources, weights, 2, destinations, weights, MPI_INFO_NULL, 0,
                                 &ring);

  double* out = calloc((size_t)n * 8, sizeof(double));
  double* in = calloc((size_t)n * 8, sizeof(double));
  double* out2 = calloc((size_t)n * 8, sizeof(double));
  double* in2 = calloc((size_t)n * 8, sizeof(double));
  for (int i = 0; i < n * 8; ++i)
    out[i] = out2[i] = rank + i;

  MPI_Op max_op, pair_op;
  MPI_Op_create(my_max, 1, &max_op);
  MPI_Op_create(pair_sum, 1, &pair_op);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);

  for (int it = 0; it < iterations; ++it) {
    /* Halo exchange: n doubles with each of the 4 neighbours. */
    MPI_Neighbor_alltoall(out, n, MPI_DOUBLE, in, n, MPI_DOUBLE, grid);
    compute(n);
    /* One value from each neighbour, then 1, 2, 3, 4 values (the counts per neighbour). */
    MPI_Neighbor_allgather(out, 1, MPI_DOUBLE, in, 1, MPI_DOUBLE, grid);
    int gcounts[4] = {2, 2, 2, 2}, gdispls[4] = {0, 2, 4, 6};
    MPI_Neighbor_allgatherv(out, 2, MPI_DOUBLE, in, gcounts, gdispls, MPI_DOUBLE, grid);

    /* Nonblocking: v with a count per neighbour, w with a datatype per neighbour. */
    MPI_Request reqs[2];
    int vcounts[4] = {n, n, n / 2, n / 2}, vdispls[4] = {0, n, 2 * n, 3 * n};
    MPI_Ineighbor_alltoallv(out, vcounts, vdispls, MPI_DOUBLE, in, vcounts, vdispls, MPI_DOUBLE, grid, &reqs[0]);
    int wcounts[4] = {n, n, 2 * n, 2 * n};
    MPI_Datatype wtypes[4] = {MPI_DOUBLE, MPI_DOUBLE, MPI_INT, MPI_INT};
    MPI_Aint wdispls[4] = {0, (MPI_Aint)(n * sizeof(double)), (MPI_Aint)(2 * n * sizeof(double)),
                           (MPI_Aint)(3 * n * sizeof(double))};
    MPI_Ineighbor_alltoallw(out2, wcounts, wdispls, wtypes, in2, wcounts, wdispls, wtypes, grid, &reqs[1]);
    compute(2 * n);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);

    /* The ring: n doubles to and from the nearer neighbour, 2n to and from the farther one. */
    int rcounts[2] = {n, 2 * n}, rdispls[2] = {0, n};
    MPI_Neighbor_alltoallv(out, rcounts, rdispls, MPI_DOUBLE, in, rcounts, rdispls, MPI_DOUBLE, ring);

    /* User-defined operators: on a predefined datatype and on a derived one. */
    MPI_Allreduce(out, in, n, MPI_DOUBLE, max_op, MPI_COMM_WORLD);
    MPI_Allreduce(out, in, n / 2, pair, pair_op, MPI_COMM_WORLD);
  }

  MPI_Type_free(&pair);
  MPI_Op_free(&max_op);
  MPI_Op_free(&pair_op);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&grid);
  free(out);
  free(in);
  free(out2);
  free(in2);
  MPI_Finalize();
  return 0;
}
