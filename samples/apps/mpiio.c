/* mpiio: MPI-IO, collective and independent, on one shared file.
 *
 * The ranks open one file together (MPI_File_open on MPI_COMM_WORLD; in $TMPDIR or the working
 * directory, named after rank 0's process id so that concurrent runs do not meet). For
 * `iterations` steps each rank writes its block of n doubles at offset (step * P + rank) blocks
 * (MPI_File_write_at_all) and reads it back (MPI_File_read_at_all); then each writes and reads
 * a smaller block with the independent calls (MPI_File_write_at, MPI_File_read_at), and, through
 * its individual file pointer, MPI_File_write and MPI_File_read. MPI_File_write_all and
 * MPI_File_read_all go through the individual file pointer collectively. The file is opened with
 * MPI_MODE_DELETE_ON_CLOSE and is gone after MPI_File_close.
 *
 * Usage: mpiio [iterations=5] [n=256]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iters = argc > 1 ? atoi(argv[1]) : 5;
  const int n = argc > 2 ? atoi(argv[2]) : 256;

  long long pid = (long long)getpid();
  MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  const char* dir = getenv("TMPDIR");
  char name[4096];
  snprintf(name, sizeof name, "%s/mpiio-sample-%lld.dat", dir && *dir ? dir : ".", pid);

  double* block = malloc(sizeof(double) * (size_t)n);
  double* back = malloc(sizeof(double) * (size_t)n);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh);
  const MPI_Offset bytes = (MPI_Offset)n * (MPI_Offset)sizeof(double);
  double check = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) block[i] = rank * 1000.0 + it + i;
    const MPI_Offset at = ((MPI_Offset)it * size + rank) * bytes;
    MPI_File_write_at_all(fh, at, block, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_read_at_all(fh, at, back, n, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_write_at(fh, at, block, n / 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, at, back, n / 2, MPI_DOUBLE, MPI_STATUS_IGNORE);
    check += back[n / 4];
  }
  /* the individual file pointers: each rank's starts at 0 and moves by what it reads or writes */
  MPI_File_write(fh, block, n / 4, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_read(fh, back, n / 4, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_write_all(fh, block, n / 8, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_read_all(fh, back, n / 8, MPI_DOUBLE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  if (rank == 0) printf("mpiio: %d ranks, %d iterations, check %g\n", size, iters, check);
  free(block);
  free(back);
  MPI_Finalize();
  return 0;
}
