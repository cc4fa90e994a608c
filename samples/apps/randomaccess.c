/* randomaccess: random updates sent in buckets, received from MPI_ANY_SOURCE, as HPC
 * Challenge's RandomAccess (MPIRandomAccess) does.
 *
 * Every rank makes `updates` updates to random ranks (a linear congruential generator seeded
 * by the rank), kept in one bucket per destination. One receive from MPI_ANY_SOURCE is always
 * posted; the rank polls it with MPI_Test, takes what arrived and posts the next. When it holds
 * more than `pending` updates it sends its fullest bucket with MPI_Isend, but only once its
 * previous send has completed (MPI_Test on that send's request); until then it polls again.
 * Then it empties its buckets the same way, sends every other rank a message on a second tag
 * saying it is done, and receives until every rank has said so.
 *
 * Buckets of up to 1,024 updates (8 KB) travel by rendezvous under most MPI libraries (Open
 * MPI's shared memory sends eagerly up to 4 KB): a send completes only once its receiver has
 * matched it. The application never blocks on its send, and its receives take whichever
 * sender came first; a benchmark that makes its polls until they succeed and gives each
 * wildcard receive a fixed sender can wait for ever if those senders are not the ones the run
 * saw (tests/e2e/record_e2e.sh, roundtrip_randomaccess_4).
 *
 * Usage: randomaccess [updates=20000] [pending=2048]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kBucket = 1024, kUpdateTag = 1, kDoneTag = 2 };

static unsigned long long next_random(unsigned long long* x) {
  *x = *x * 6364136223846793005ULL + 1442695040888963407ULL;
  return *x >> 33;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long updates = argc > 1 ? atol(argv[1]) : 20000;
  const long pending_limit = argc > 2 ? atol(argv[2]) : 2048;
  if (size < 2 || updates < 1 || pending_limit < 1) {
    if (rank == 0) fprintf(stderr, "randomaccess: needs 2 ranks or more, updates >= 1, pending >= 1\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }

  unsigned long long* table = calloc(1u << 16, sizeof *table);
  unsigned long long* buckets = malloc((size_t)size * kBucket * sizeof *buckets);
  int* fill = calloc((size_t)size, sizeof *fill);
  unsigned long long send_buf[kBucket], recv_buf[kBucket];
  MPI_Request* done_reqs = malloc((size_t)size * sizeof *done_reqs);
  unsigned long long seed = 0x9e3779b97f4a7c15ULL * (unsigned long long)(rank + 1);

  MPI_Request in = MPI_REQUEST_NULL, out = MPI_REQUEST_NULL;
  MPI_Irecv(recv_buf, kBucket, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &in);
  int receiving = size - 1; /* ranks that have not said they are done */
  long made = 0, pending = 0, applied = 0;

  /* Takes every message that has arrived, posting the next receive after each. */
  #define RECEIVE_ARRIVED()                                                                          \
    for (int arrived = 1; arrived && receiving > 0;) {                                               \
      MPI_Status st;                                                                                 \
      MPI_Test(&in, &arrived, &st);                                                                  \
      if (!arrived) break;                                                                           \
      if (st.MPI_TAG == kDoneTag) {                                                                  \
        --receiving;                                                                                 \
      } else {                                                                                       \
        int n;                                                                                       \
        MPI_Get_count(&st, MPI_UNSIGNED_LONG_LONG, &n);                                              \
        for (int k = 0; k < n; ++k) table[recv_buf[k] & 0xffff] ^= recv_buf[k];                     \
        applied += n;                                                                                \
      }                                                                                              \
      if (receiving > 0)                                                                             \
        MPI_Irecv(recv_buf, kBucket, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG,              \
                  MPI_COMM_WORLD, &in);                                                              \
    }

  /* Sends the fullest bucket if the previous send has completed. */
  #define SEND_FULLEST()                                                                             \
    do {                                                                                             \
      int sent;                                                                                      \
      MPI_Test(&out, &sent, MPI_STATUS_IGNORE);                                                      \
      if (sent) {                                                                                    \
        int pe = 0;                                                                                  \
        for (int p = 1; p < size; ++p)                                                               \
          if (fill[p] > fill[pe]) pe = p;                                                            \
        memcpy(send_buf, buckets + (size_t)pe * kBucket, (size_t)fill[pe] * sizeof *send_buf);      \
        MPI_Isend(send_buf, fill[pe], MPI_UNSIGNED_LONG_LONG, pe, kUpdateTag, MPI_COMM_WORLD, &out); \
        pending -= fill[pe];                                                                         \
        fill[pe] = 0;                                                                                \
      }                                                                                              \
    } while (0)

  while (made < updates) {
    RECEIVE_ARRIVED();
    if (pending < pending_limit) {
      const unsigned long long value = next_random(&seed);
      int pe = (int)(value % (unsigned long long)size);
      if (pe == rank) {
        table[value & 0xffff] ^= value;
      } else if (fill[pe] < kBucket) {
        buckets[(size_t)pe * kBucket + fill[pe]++] = value;
        ++pending;
      } else {
        continue; /* that bucket is full: wait for it to be sent */
      }
      ++made;
    } else {
      SEND_FULLEST();
    }
  }
  while (pending > 0) {
    RECEIVE_ARRIVED();
    SEND_FULLEST();
  }
  MPI_Wait(&out, MPI_STATUS_IGNORE);
  for (int p = 0; p < size; ++p) {
    done_reqs[p] = MPI_REQUEST_NULL;
    if (p != rank) MPI_Isend(&made, 1, MPI_LONG, p, kDoneTag, MPI_COMM_WORLD, &done_reqs[p]);
  }
  while (receiving > 0) {
    MPI_Status st;
    MPI_Wait(&in, &st);
    if (st.MPI_TAG == kDoneTag) {
      --receiving;
    } else {
      int n;
      MPI_Get_count(&st, MPI_UNSIGNED_LONG_LONG, &n);
      for (int k = 0; k < n; ++k) table[recv_buf[k] & 0xffff] ^= recv_buf[k];
      applied += n;
    }
    if (receiving > 0)
      MPI_Irecv(recv_buf, kBucket, MPI_UNSIGNED_LONG_LONG, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &in);
  }
  MPI_Waitall(size, done_reqs, MPI_STATUSES_IGNORE);

  long total = 0;
  MPI_Reduce(&applied, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("randomaccess: %d ranks, %ld updates received from other ranks\n", size, total);
  free(done_reqs);
  free(fill);
  free(buckets);
  free(table);
  MPI_Finalize();
  return 0;
}
