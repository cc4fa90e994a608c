/* topo: communicators with their own rank order and the topology constructors.
 *
 * A 2-D process grid made with MPI_Cart_create, without (periodic in x) and with reordering
 * (periodic in both), its rows from MPI_Cart_sub, and a split whose keys reverse the ranks of
 * each half, so that communicator rank 0 is the highest world rank of its colour. Each
 * communicator carries traffic whose peers and roots are in its own numbering: halo exchanges
 * with the neighbours MPI_Cart_shift names, a reduction and a broadcast over each row, a ring
 * and a broadcast over each reversed half. Then a distributed-graph ring
 * (MPI_Dist_graph_create_adjacent), a graph (MPI_Graph_create), MPI_Comm_split_type,
 * MPI_Comm_create_group and MPI_Comm_idup, each used once. Runs on any number of ranks.
 *
 * Usage: topo [ITERATIONS [DOUBLES]]   (defaults 10 and 64)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void halo(MPI_Comm grid, int ndims, double* out, double* in, int n, int tag)
{
  for (int d = 0; d < ndims; ++d) {
    int lower, upper;
    MPI_Cart_shift(grid, d, 1, &lower, &upper);
    MPI_Sendrecv(out, n, MPI_DOUBLE, upper, tag + d, in, n, MPI_DOUBLE, lower, tag + d, grid, MPI_STATUS_IGNORE);
    MPI_Sendrecv(out, n, MPI_DOUBLE, lower, tag + 10 + d, in, n, MPI_DOUBLE, upper, tag + 10 + d, grid,
                 MPI_STATUS_IGNORE);
  }
}

int main(int argc, char** argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = argc > 1 ? atoi(argv[1]) : 10;
  const int n = argc > 2 ? atoi(argv[2]) : 64;
  double* out = calloc((size_t)n, sizeof(double));
  double* in = calloc((size_t)n, sizeof(double));
  if (!out || !in)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < n; ++i)
    out[i] = rank + i;

  /* The grid, twice: without reordering (periodic in x) and with it (periodic in both). */
  int dims[2] = {0, 0};
  MPI_Dims_create(size, 2, dims);
  const int periods0[2] = {1, 0}, periods1[2] = {1, 1};
  MPI_Comm grid0, grid1;
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods0, 0, &grid0);
  MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods1, 1, &grid1);

  /* The rows of the reordered grid. */
  const int remain[2] = {0, 1};
  MPI_Comm row;
  MPI_Cart_sub(grid1, remain, &row);

  /* Each half (by parity) with its ranks reversed: key = size - rank. */
  MPI_Comm reversed;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &reversed);
  int rrank, rsize;
  MPI_Comm_rank(reversed, &rrank);
  MPI_Comm_size(reversed, &rsize);

  double sum = 0;
  for (int it = 0; it < iterations; ++it) {
    halo(grid0, 2, out, in, n, 100);
    halo(grid1, 2, out, in, n, 200);
    MPI_Allreduce(out, in, n, MPI_DOUBLE, MPI_SUM, row);
    MPI_Bcast(in, n, MPI_DOUBLE, 0, row);
    /* A ring in the reversed numbering and a broadcast from its rank 0 (the highest world rank). */
    MPI_Sendrecv(out, n, MPI_DOUBLE, (rrank + 1) % rsize, 300, in, n, MPI_DOUBLE, (rrank + rsize - 1) % rsize, 300,
                 reversed, MPI_STATUS_IGNORE);
    MPI_Bcast(in, 1, MPI_DOUBLE, 0, reversed);
    sum += in[0];
  }

  /* A ring as a distributed graph: each rank receives from its left and sends to its right. */
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  MPI_Comm ring;
  const int weight = 1;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &left, &weight, 1, &right, &weight, MPI_INFO_NULL, 0, &ring);
  MPI_Sendrecv(out, n, MPI_DOUBLE, right, 400, in, n, MPI_DOUBLE, left, 400, ring, MPI_STATUS_IGNORE);

  /* The same ring as a (global) graph: node i's neighbours are i - 1 and i + 1. */
  int* index = malloc(sizeof(int) * (size_t)size);
  int* edges = malloc(sizeof(int) * 2 * (size_t)size);
  if (!index || !edges)
    MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < size; ++i) {
    index[i] = 2 * (i + 1);
    edges[2 * i] = (i + size - 1) % size;
    edges[2 * i + 1] = (i + 1) % size;
  }
  MPI_Comm graph;
  MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
  MPI_Barrier(graph);

  /* The ranks of this node, the lower half by group, and a copy of the world made at once. */
  MPI_Comm node, lower, copy;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  double node_max; /* a buffer of its own: MPI forbids aliased send and receive buffers (MPICH aborts) */
  MPI_Allreduce(&sum, &node_max, 1, MPI_DOUBLE, MPI_MAX, node);
  sum = node_max;
  MPI_Group world_group, lower_group;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  const int range[1][3] = {{0, (size - 1) / 2, 1}};
  MPI_Group_range_incl(world_group, 1, (int(*)[3])range, &lower_group);
  MPI_Request req;
  MPI_Comm_idup(MPI_COMM_WORLD, &copy, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Barrier(copy);
  /* Last: only the lower half makes it (the trace numbers a rank's communicators in creation
     order, so creations some ranks skip come after the others). */
  if (rank <= (size - 1) / 2) {
    MPI_Comm_create_group(MPI_COMM_WORLD, lower_group, 7, &lower);
    MPI_Bcast(&sum, 1, MPI_DOUBLE, 0, lower);
    MPI_Comm_free(&lower);
  }

  MPI_Group_free(&lower_group);
  MPI_Group_free(&world_group);
  MPI_Comm_free(&copy);
  MPI_Comm_free(&node);
  MPI_Comm_free(&graph);
  MPI_Comm_free(&ring);
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&row);
  MPI_Comm_free(&grid1);
  MPI_Comm_free(&grid0);
  if (rank == 0)
    printf("topo: %d iterations on a %d x %d grid, checksum %g\n", iterations, dims[0], dims[1], sum);
  free(index);
  free(edges);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
