/* tests/e2e/record_names.sh: a C program built with -g whose MPI calls are made from static
   functions, so that the recorder names them from .symtab and gives file:line from DWARF. */
#include <mpi.h>

static double buf[2][64];

static void exchange(int rank, int size) {
  int peer = (rank + 1) % size, from = (rank + size - 1) % size;
  MPI_Sendrecv(buf[0], 64, MPI_DOUBLE, peer, 7, buf[1], 64, MPI_DOUBLE, from, 7, MPI_COMM_WORLD,
               MPI_STATUS_IGNORE); /* SENDRECV */
}

static void iterate(int rank, int size, int steps) {
  for (int s = 0; s < steps; ++s) {
    exchange(rank, size);
    MPI_Allreduce(MPI_IN_PLACE, buf[1], 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* ALLREDUCE */
  }
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  iterate(rank, size, 5);
  MPI_Finalize();
  return 0;
}
