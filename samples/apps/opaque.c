/* opaque: a halo exchange that also uses calls tracegen records but does not model.
 *
 * Each iteration exchanges `n` doubles with both ring neighbours (MPI_Isend, MPI_Irecv,
 * MPI_Waitall), then updates one value in the right neighbour's window in a generalized active
 * target epoch (MPI_Win_post, MPI_Win_start, MPI_Fetch_and_op, MPI_Win_complete, MPI_Win_wait),
 * reads it back with a request-based get (MPI_Rget, completed by MPI_Wait) in a passive target
 * epoch (MPI_Win_lock_all, MPI_Win_sync, MPI_Win_unlock_all) and sums over all ranks
 * (MPI_Allreduce). The window (MPI_Win_create, MPI_Win_free), its lock_all epoch, the groups of
 * the epoch and the wait are modelled; the recorder writes the generalized active target
 * calls, MPI_Fetch_and_op, MPI_Rget and MPI_Win_sync as opaque events: `tracegen` refuses to
 * generate a benchmark from the trace unless given --skip-unknown, which leaves a comment in the
 * place of each (and replays the rest, which is correct MPI without them).
 *
 * Usage: opaque [iterations=20] [n=256]
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

  double* out = calloc((size_t)n, sizeof(double));
  double* in = calloc((size_t)(2 * n), sizeof(double));
  double cell = 0, value = 0, old = 0, seen = 0, total = 0;
  MPI_Win win;
  MPI_Win_create(&cell, sizeof cell, sizeof cell, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Group world, from_left, to_right;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, 1, &left, &from_left);
  MPI_Group_incl(world, 1, &right, &to_right);
  for (int it = 0; it < iters; ++it) {
    MPI_Request reqs[4];
    for (int i = 0; i < n; ++i) out[i] = rank + it + i;
    MPI_Irecv(in, n, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &reqs[0]);
    MPI_Irecv(in + n, n, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &reqs[1]);
    MPI_Isend(out, n, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &reqs[2]);
    MPI_Isend(out, n, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &reqs[3]);
    MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE);
    value = in[0] + in[n];
    /* generalized active target: the left neighbour updates my cell, I update the right one's */
    MPI_Win_post(from_left, 0, win);
    MPI_Win_start(to_right, 0, win);
    MPI_Fetch_and_op(&value, &old, MPI_DOUBLE, right, 0, MPI_SUM, win);
    MPI_Win_complete(win);
    MPI_Win_wait(win);
    /* passive target: read the right neighbour's cell with a request */
    MPI_Request get;
    MPI_Win_lock_all(0, win);
    MPI_Rget(&seen, 1, MPI_DOUBLE, right, 0, 1, MPI_DOUBLE, win, &get);
    MPI_Wait(&get, MPI_STATUS_IGNORE);
    MPI_Win_sync(win);
    MPI_Win_unlock_all(win);
    double sum = 0;
    MPI_Allreduce(&seen, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    total += sum + old;
  }
  MPI_Group_free(&to_right);
  MPI_Group_free(&from_left);
  MPI_Group_free(&world);
  MPI_Win_free(&win);
  if (rank == 0) printf("opaque: %d ranks, %d iterations, total %g\n", size, iters, total);
  free(out);
  free(in);
  MPI_Finalize();
  return 0;
}
