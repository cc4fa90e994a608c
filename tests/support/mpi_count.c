/* mpi_count: a PMPI library that counts what an MPI application does, for the tests.
 *
 * Preloaded like the recorder (LD_PRELOAD=libtracegen-count.so), it counts per rank every call
 * of the MPI functions the recorder intercepts (MPI_Init and MPI_Finalize included; of the calls
 * it records as opaque events, those samples/apps/opaque.c makes, from C), the
 * point-to-point bytes sent (count x type size of every send, and of the send half of
 * MPI_Sendrecv[_replace]) and the bytes posted to receive (count x type size of every receive);
 * a send to or receive from MPI_PROC_NULL is a call but moves no bytes; one-sided transfers count
 * on the origin (MPI_Put and MPI_Accumulate as sent, MPI_Get as received, from C).
 * C calls are caught through the profiling interface; Fortran calls through the usual Fortran
 * manglings (mpi_send_, mpi_send, mpi_send__, MPI_SEND), which count and then call the MPI
 * library's Fortran profiling entry (pmpi_send_), since Open MPI's Fortran bindings call PMPI
 * directly. At MPI_Finalize rank 0 gathers the figures and writes them as JSON to
 * $TRACEGEN_COUNT_OUTPUT (default mpi_count.json):
 *   {"ranks": P, "per_rank": [{"rank": r, "ops": {"MPI_Send": n, ...},
 *                              "bytes_sent": b, "bytes_received": b}, ...]}
 * with the keys of `tracegen inspect --format json`'s per_rank entries, so that the two can be
 * compared directly. The counts are independent of the recorder's code: this is the reference
 * the recorded traces are checked against.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TG_OPS(X)                                                                                                  \
  X(Init) X(Init_thread) X(Finalize) X(Send) X(Ssend) X(Rsend) X(Bsend) X(Isend) X(Issend) X(Irsend) X(Ibsend)      \
  X(Recv) X(Irecv) X(Sendrecv) X(Sendrecv_replace) X(Probe) X(Iprobe) X(Wait) X(Waitall) X(Waitany) X(Waitsome)    \
  X(Test) X(Testall) X(Testany) X(Testsome) X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Gather) X(Gatherv)        \
  X(Scatter) X(Scatterv) X(Allgather) X(Allgatherv) X(Alltoall) X(Alltoallv) X(Reduce_scatter) X(Scan)            \
  X(Comm_split) X(Comm_dup) X(Comm_create) X(Comm_free) X(Comm_group) X(Group_incl) X(Group_excl)               \
  X(Group_range_incl) X(Group_range_excl) X(Group_union) X(Group_intersection) X(Group_difference) X(Group_free)  \
  X(Exscan) X(Reduce_scatter_block) X(Win_create) X(Win_fence) X(Put) X(Win_free) X(Ibarrier)                    \
  TG_TOPOLOGY_OPS(X) TG_ONESIDED_OPS(X) TG_FILE_OPS(X) TG_PERSISTENT_OPS(X) TG_NBC_OPS(X) TG_NEIGHBOR_OPS(X)
/* Neighbourhood collectives, counted from C and Fortran with their bytes: a block sent to each
 * destination and received from each source of the communicator's topology, as the library
 * reports them (MPI_Cart_shift, MPI_Graph_neighbors, MPI_Dist_graph_neighbors); an MPI_PROC_NULL
 * neighbour moves nothing. */
#define TG_NEIGHBOR_OPS(X)                                                                                          \
  X(Neighbor_allgather) X(Neighbor_allgatherv) X(Neighbor_alltoall) X(Neighbor_alltoallv) X(Neighbor_alltoallw)    \
  X(Ineighbor_allgather) X(Ineighbor_allgatherv) X(Ineighbor_alltoall) X(Ineighbor_alltoallv)                       \
  X(Ineighbor_alltoallw)
/* One-sided communication (with MPI_Win_create, MPI_Win_fence, MPI_Put, MPI_Win_free above), and
 * the one-sided calls that stay opaque events (samples/apps/opaque.c). */
#define TG_ONESIDED_OPS(X)                                                                                         \
  X(Win_allocate) X(Get) X(Accumulate) X(Win_lock) X(Win_unlock) X(Win_lock_all) X(Win_unlock_all) X(Win_flush)   \
  X(Win_flush_all) X(Win_flush_local) X(Win_post) X(Win_start) X(Win_complete) X(Win_wait) X(Win_sync)            \
  X(Fetch_and_op) X(Rget)
/* MPI-IO. */
#define TG_FILE_OPS(X)                                                                                             \
  X(File_open) X(File_close) X(File_read) X(File_write) X(File_read_at) X(File_write_at) X(File_read_all)         \
  X(File_write_all) X(File_read_at_all) X(File_write_at_all)
/* Persistent requests: the init calls move nothing; each start moves the init call's message. */
#define TG_PERSISTENT_OPS(X) X(Send_init) X(Recv_init) X(Start) X(Startall) X(Request_free) TG_MATCHED_OPS(X)
/* Matched probes: MPI_Mrecv/MPI_Imrecv receive the probed message (none for MPI_MESSAGE_NO_PROC). */
#define TG_MATCHED_OPS(X) X(Mprobe) X(Improbe) X(Mrecv) X(Imrecv)
/* MPI-3 nonblocking collectives (MPI_Ibarrier is with the opaque calls above) and
 * MPI_Alltoallw, counted from C and Fortran. Collectives count calls, no bytes. */
#define TG_NBC_OPS(X)                                                                                              \
  X(Ibcast) X(Ireduce) X(Iallreduce) X(Igather) X(Igatherv) X(Iscatter) X(Iscatterv) X(Iallgather)              \
  X(Iallgatherv) X(Ialltoall) X(Ialltoallv) X(Ireduce_scatter) X(Ireduce_scatter_block) X(Iscan) X(Iexscan)      \
  X(Alltoallw) X(Ialltoallw)
/* Topology constructors (and MPI-3's other communicator constructors). */
#define TG_TOPOLOGY_OPS(X)                                                                                         \
  X(Cart_create) X(Cart_sub) X(Graph_create) X(Dist_graph_create) X(Dist_graph_create_adjacent)                   \
  X(Comm_split_type) X(Comm_create_group) X(Comm_idup)

#define TG_ENUM(n) OP_##n,
/* SLOT_DONE_*: calls of the C tests that completed a request (a poll that succeeded), written as
 * "completing_tests": how many polls fail depends on timing, the successes do not. */
enum {
  TG_OPS(TG_ENUM) OP_COUNT,
  SLOT_SENT = OP_COUNT,
  SLOT_RECEIVED,
  SLOT_DONE_TEST,
  SLOT_DONE_TESTALL,
  SLOT_DONE_TESTANY,
  SLOT_DONE_TESTSOME,
  SLOT_DONE_IMPROBE, /* MPI_Improbe calls that found a message */
  SLOTS
};
#undef TG_ENUM
#define TG_NAME(n) "MPI_" #n,
static const char* const op_names[OP_COUNT] = {TG_OPS(TG_NAME)};
#undef TG_NAME

static long long slots[SLOTS];
static __thread int depth; /* > 0 inside one of our Fortran entries: its PMPI call is not counted again */
static MPI_Comm count_comm = MPI_COMM_NULL;

#define EXPORT __attribute__((visibility("default")))

static void count_op(int op) {
  if (depth == 0) __atomic_fetch_add(&slots[op], 1, __ATOMIC_RELAXED);
}

static long long bytes_of(long long count, MPI_Datatype type) {
  int size = 0;
  if (type != MPI_DATATYPE_NULL) PMPI_Type_size(type, &size);
  return count * size;
}
/* A message to or from MPI_PROC_NULL moves nothing: the call counts, its bytes do not. (The
 * Fortran MPI_PROC_NULL is the C one in the MPI libraries we build with.) */
static void sent(long long count, MPI_Datatype type, int peer) {
  if (depth == 0 && peer != MPI_PROC_NULL) __atomic_fetch_add(&slots[SLOT_SENT], bytes_of(count, type), __ATOMIC_RELAXED);
}
static void received(long long count, MPI_Datatype type, int peer) {
  if (depth == 0 && peer != MPI_PROC_NULL)
    __atomic_fetch_add(&slots[SLOT_RECEIVED], bytes_of(count, type), __ATOMIC_RELAXED);
}

static void after_init(void) { PMPI_Comm_dup(MPI_COMM_WORLD, &count_comm); }

/* Gathers every rank's slots on rank 0 and writes the JSON file. */
static void write_counts(void) {
  int rank, size;
  PMPI_Comm_rank(count_comm, &rank);
  PMPI_Comm_size(count_comm, &size);
  long long* all = rank == 0 ? malloc(sizeof(long long) * SLOTS * (size_t)size) : NULL;
  PMPI_Gather(slots, SLOTS, MPI_LONG_LONG, all, SLOTS, MPI_LONG_LONG, 0, count_comm);
  if (rank == 0) {
    const char* path = getenv("TRACEGEN_COUNT_OUTPUT");
    if (!path || !*path) path = "mpi_count.json";
    FILE* f = fopen(path, "w");
    if (!f) {
      fprintf(stderr, "mpi_count: cannot write %s\n", path);
    } else {
      fprintf(f, "{\"ranks\": %d, \"per_rank\": [", size);
      for (int r = 0; r < size; ++r) {
        const long long* s = all + (size_t)r * SLOTS;
        fprintf(f, "%s\n  {\"rank\": %d, \"ops\": {", r ? "," : "", r);
        int first = 1;
        for (int op = 0; op < OP_COUNT; ++op) {
          if (s[op] == 0) continue;
          fprintf(f, "%s\"%s\": %lld", first ? "" : ", ", op_names[op], s[op]);
          first = 0;
        }
        fprintf(f, "}, \"completing_tests\": {\"MPI_Test\": %lld, \"MPI_Testall\": %lld, \"MPI_Testany\": %lld, "
                   "\"MPI_Testsome\": %lld, \"MPI_Improbe\": %lld}", s[SLOT_DONE_TEST], s[SLOT_DONE_TESTALL],
                s[SLOT_DONE_TESTANY], s[SLOT_DONE_TESTSOME], s[SLOT_DONE_IMPROBE]);
        fprintf(f, ", \"bytes_sent\": %lld, \"bytes_received\": %lld}", s[SLOT_SENT], s[SLOT_RECEIVED]);
      }
      fprintf(f, "\n]}\n");
      fclose(f);
    }
    free(all);
  }
  PMPI_Comm_free(&count_comm);
}

/* ---- C entry points */

EXPORT int MPI_Init(int* argc, char*** argv) {
  count_op(OP_Init);
  const int rc = PMPI_Init(argc, argv);
  if (depth == 0) after_init();
  return rc;
}
EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  count_op(OP_Init_thread);
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (depth == 0) after_init();
  return rc;
}
EXPORT int MPI_Finalize(void) {
  count_op(OP_Finalize);
  if (depth == 0) write_counts();
  return PMPI_Finalize();
}

#define TG_C_SEND(NAME)                                                                           \
  EXPORT int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) { \
    count_op(OP_##NAME);                                                                          \
    sent(count, type, dest);                                                                      \
    return PMPI_##NAME(buf, count, type, dest, tag, comm);                                        \
  }
TG_C_SEND(Send)
TG_C_SEND(Ssend)
TG_C_SEND(Rsend)
TG_C_SEND(Bsend)
#define TG_C_ISEND(NAME)                                                                                         \
  EXPORT int MPI_##NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r) { \
    count_op(OP_##NAME);                                                                                         \
    sent(count, type, dest);                                                                                     \
    return PMPI_##NAME(buf, count, type, dest, tag, comm, r);                                                    \
  }
TG_C_ISEND(Isend)
TG_C_ISEND(Issend)
TG_C_ISEND(Irsend)
TG_C_ISEND(Ibsend)

EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* st) {
  count_op(OP_Recv);
  received(count, type, source);
  return PMPI_Recv(buf, count, type, source, tag, comm, st);
}
EXPORT int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* r) {
  count_op(OP_Irecv);
  received(count, type, source);
  return PMPI_Irecv(buf, count, type, source, tag, comm, r);
}
EXPORT int MPI_Sendrecv(const void* sbuf, int scount, MPI_Datatype stype, int dest, int stag, void* rbuf, int rcount,
                        MPI_Datatype rtype, int source, int rtag, MPI_Comm comm, MPI_Status* st) {
  count_op(OP_Sendrecv);
  sent(scount, stype, dest);
  received(rcount, rtype, source);
  return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st);
}
EXPORT int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int stag, int source, int rtag,
                                MPI_Comm comm, MPI_Status* st) {
  count_op(OP_Sendrecv_replace);
  sent(count, type, dest);
  received(count, type, source);
  return PMPI_Sendrecv_replace(buf, count, type, dest, stag, source, rtag, comm, st);
}
EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* st) {
  count_op(OP_Probe);
  return PMPI_Probe(source, tag, comm, st);
}
EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* st) {
  count_op(OP_Iprobe);
  return PMPI_Iprobe(source, tag, comm, flag, st);
}
EXPORT int MPI_Wait(MPI_Request* r, MPI_Status* st) {
  count_op(OP_Wait);
  return PMPI_Wait(r, st);
}
EXPORT int MPI_Test(MPI_Request* r, int* flag, MPI_Status* st) {
  count_op(OP_Test);
  const int active = *r != MPI_REQUEST_NULL;
  const int rc = PMPI_Test(r, flag, st);
  if (active && *flag) count_op(SLOT_DONE_TEST);
  return rc;
}
EXPORT int MPI_Waitall(int n, MPI_Request r[], MPI_Status st[]) {
  count_op(OP_Waitall);
  return PMPI_Waitall(n, r, st);
}
EXPORT int MPI_Testall(int n, MPI_Request r[], int* flag, MPI_Status st[]) {
  count_op(OP_Testall);
  int active = 0;
  for (int i = 0; i < n; ++i) active = active || r[i] != MPI_REQUEST_NULL;
  const int rc = PMPI_Testall(n, r, flag, st);
  if (active && *flag) count_op(SLOT_DONE_TESTALL);
  return rc;
}
EXPORT int MPI_Waitany(int n, MPI_Request r[], int* index, MPI_Status* st) {
  count_op(OP_Waitany);
  return PMPI_Waitany(n, r, index, st);
}
EXPORT int MPI_Testany(int n, MPI_Request r[], int* index, int* flag, MPI_Status* st) {
  count_op(OP_Testany);
  const int rc = PMPI_Testany(n, r, index, flag, st);
  if (*flag && *index != MPI_UNDEFINED) count_op(SLOT_DONE_TESTANY);
  return rc;
}
EXPORT int MPI_Waitsome(int n, MPI_Request r[], int* outcount, int indices[], MPI_Status st[]) {
  count_op(OP_Waitsome);
  return PMPI_Waitsome(n, r, outcount, indices, st);
}
EXPORT int MPI_Testsome(int n, MPI_Request r[], int* outcount, int indices[], MPI_Status st[]) {
  count_op(OP_Testsome);
  const int rc = PMPI_Testsome(n, r, outcount, indices, st);
  if (*outcount != MPI_UNDEFINED && *outcount > 0) count_op(SLOT_DONE_TESTSOME);
  return rc;
}
EXPORT int MPI_Barrier(MPI_Comm comm) {
  count_op(OP_Barrier);
  return PMPI_Barrier(comm);
}
EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  count_op(OP_Bcast);
  return PMPI_Bcast(buf, count, type, root, comm);
}
EXPORT int MPI_Reduce(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  count_op(OP_Reduce);
  return PMPI_Reduce(s, r, count, type, op, root, comm);
}
EXPORT int MPI_Allreduce(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count_op(OP_Allreduce);
  return PMPI_Allreduce(s, r, count, type, op, comm);
}
EXPORT int MPI_Scan(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count_op(OP_Scan);
  return PMPI_Scan(s, r, count, type, op, comm);
}
EXPORT int MPI_Exscan(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count_op(OP_Exscan);
  return PMPI_Exscan(s, r, count, type, op, comm);
}
EXPORT int MPI_Reduce_scatter_block(const void* s, void* r, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count_op(OP_Reduce_scatter_block);
  return PMPI_Reduce_scatter_block(s, r, count, type, op, comm);
}
EXPORT int MPI_Reduce_scatter(const void* s, void* r, const int rc[], MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  count_op(OP_Reduce_scatter);
  return PMPI_Reduce_scatter(s, r, rc, type, op, comm);
}
EXPORT int MPI_Gather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  count_op(OP_Gather);
  return PMPI_Gather(s, sc, st, r, rc, rt, root, comm);
}
EXPORT int MPI_Gatherv(const void* s, int sc, MPI_Datatype st, void* r, const int rc[], const int d[], MPI_Datatype rt,
                       int root, MPI_Comm comm) {
  count_op(OP_Gatherv);
  return PMPI_Gatherv(s, sc, st, r, rc, d, rt, root, comm);
}
EXPORT int MPI_Scatter(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root, MPI_Comm comm) {
  count_op(OP_Scatter);
  return PMPI_Scatter(s, sc, st, r, rc, rt, root, comm);
}
EXPORT int MPI_Scatterv(const void* s, const int sc[], const int d[], MPI_Datatype st, void* r, int rc, MPI_Datatype rt,
                        int root, MPI_Comm comm) {
  count_op(OP_Scatterv);
  return PMPI_Scatterv(s, sc, d, st, r, rc, rt, root, comm);
}
EXPORT int MPI_Allgather(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  count_op(OP_Allgather);
  return PMPI_Allgather(s, sc, st, r, rc, rt, comm);
}
EXPORT int MPI_Allgatherv(const void* s, int sc, MPI_Datatype st, void* r, const int rc[], const int d[], MPI_Datatype rt,
                          MPI_Comm comm) {
  count_op(OP_Allgatherv);
  return PMPI_Allgatherv(s, sc, st, r, rc, d, rt, comm);
}
EXPORT int MPI_Alltoall(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm) {
  count_op(OP_Alltoall);
  return PMPI_Alltoall(s, sc, st, r, rc, rt, comm);
}
EXPORT int MPI_Alltoallv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r, const int rc[],
                         const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  count_op(OP_Alltoallv);
  return PMPI_Alltoallv(s, sc, sd, st, r, rc, rd, rt, comm);
}
EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  count_op(OP_Comm_split);
  return PMPI_Comm_split(comm, color, key, newcomm);
}
EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  count_op(OP_Comm_dup);
  return PMPI_Comm_dup(comm, newcomm);
}
EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  count_op(OP_Comm_create);
  return PMPI_Comm_create(comm, group, newcomm);
}
/* ---- topology constructors */
EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* newcomm) {
  count_op(OP_Cart_create);
  return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
}
EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  count_op(OP_Cart_sub);
  return PMPI_Cart_sub(comm, remain_dims, newcomm);
}
EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm* newcomm) {
  count_op(OP_Graph_create);
  return PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);
}
EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                                 const int weights[], MPI_Info info, int reorder, MPI_Comm* newcomm) {
  count_op(OP_Dist_graph_create);
  return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm);
}
EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                          int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                          int reorder, MPI_Comm* newcomm) {
  count_op(OP_Dist_graph_create_adjacent);
  return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights, info,
                                         reorder, newcomm);
}
EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* newcomm) {
  count_op(OP_Comm_split_type);
  return PMPI_Comm_split_type(comm, type, key, info, newcomm);
}
EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  count_op(OP_Comm_create_group);
  return PMPI_Comm_create_group(comm, group, tag, newcomm);
}
EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* req) {
  count_op(OP_Comm_idup);
  return PMPI_Comm_idup(comm, newcomm, req);
}

EXPORT int MPI_Comm_free(MPI_Comm* comm) {
  count_op(OP_Comm_free);
  return PMPI_Comm_free(comm);
}
EXPORT int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  count_op(OP_Comm_group);
  return PMPI_Comm_group(comm, group);
}
#define TG_C_GROUP_RANKS(NAME, ARRAY)                                                          \
  EXPORT int MPI_##NAME(MPI_Group group, int n, ARRAY, MPI_Group* newgroup) {                  \
    count_op(OP_##NAME);                                                                       \
    return PMPI_##NAME(group, n, ranks, newgroup);                                             \
  }
TG_C_GROUP_RANKS(Group_incl, const int ranks[])
TG_C_GROUP_RANKS(Group_excl, const int ranks[])
TG_C_GROUP_RANKS(Group_range_incl, int ranks[][3])
TG_C_GROUP_RANKS(Group_range_excl, int ranks[][3])
#define TG_C_GROUP_PAIR(NAME)                                                                  \
  EXPORT int MPI_##NAME(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {             \
    count_op(OP_##NAME);                                                                       \
    return PMPI_##NAME(group1, group2, newgroup);                                              \
  }
TG_C_GROUP_PAIR(Group_union)
TG_C_GROUP_PAIR(Group_intersection)
TG_C_GROUP_PAIR(Group_difference)
EXPORT int MPI_Group_free(MPI_Group* group) {
  count_op(OP_Group_free);
  return PMPI_Group_free(group);
}

/* ---- persistent requests: the message of each request MPI_Send_init/MPI_Recv_init made, by
   handle, counted at every MPI_Start/MPI_Startall */
struct persistent {
  MPI_Request handle;
  int send; /* else receive */
  long long count;
  MPI_Datatype type;
  int peer;
};
static struct persistent* persistents;
static size_t n_persistents, cap_persistents;

static void persistent_made(MPI_Request r, int send, long long count, MPI_Datatype type, int peer) {
  if (depth != 0 || r == MPI_REQUEST_NULL) return;
  if (n_persistents == cap_persistents) {
    cap_persistents = cap_persistents ? 2 * cap_persistents : 16;
    persistents = realloc(persistents, cap_persistents * sizeof *persistents);
    if (!persistents) abort();
  }
  persistents[n_persistents++] = (struct persistent){r, send, count, type, peer};
}
static struct persistent* persistent_of(MPI_Request r) {
  for (size_t i = 0; i < n_persistents; ++i)
    if (persistents[i].handle == r) return &persistents[i];
  return NULL;
}
static void persistent_started(MPI_Request r) {
  const struct persistent* p = depth == 0 ? persistent_of(r) : NULL;
  if (!p) return;
  if (p->send) sent(p->count, p->type, p->peer);
  else received(p->count, p->type, p->peer);
}
static void persistent_freed(MPI_Request r) {
  struct persistent* p = depth == 0 ? persistent_of(r) : NULL;
  if (p) *p = persistents[--n_persistents];
}

EXPORT int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* r) {
  count_op(OP_Send_init);
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, r);
  persistent_made(*r, 1, count, type, dest);
  return rc;
}
EXPORT int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* r) {
  count_op(OP_Recv_init);
  const int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, r);
  persistent_made(*r, 0, count, type, source);
  return rc;
}
EXPORT int MPI_Start(MPI_Request* r) {
  count_op(OP_Start);
  persistent_started(*r);
  return PMPI_Start(r);
}
EXPORT int MPI_Startall(int n, MPI_Request r[]) {
  count_op(OP_Startall);
  for (int i = 0; i < n; ++i) persistent_started(r[i]);
  return PMPI_Startall(n, r);
}
EXPORT int MPI_Request_free(MPI_Request* r) {
  count_op(OP_Request_free);
  persistent_freed(*r);
  return PMPI_Request_free(r);
}

/* ---- matched probes */
EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* m, MPI_Status* st) {
  count_op(OP_Mprobe);
  return PMPI_Mprobe(source, tag, comm, m, st);
}
EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* m, MPI_Status* st) {
  count_op(OP_Improbe);
  const int rc = PMPI_Improbe(source, tag, comm, flag, m, st);
  if (*flag) count_op(SLOT_DONE_IMPROBE);
  return rc;
}
EXPORT int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* m, MPI_Status* st) {
  count_op(OP_Mrecv);
  received(count, type, *m == MPI_MESSAGE_NO_PROC ? MPI_PROC_NULL : 0);
  return PMPI_Mrecv(buf, count, type, m, st);
}
EXPORT int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* m, MPI_Request* r) {
  count_op(OP_Imrecv);
  received(count, type, *m == MPI_MESSAGE_NO_PROC ? MPI_PROC_NULL : 0);
  return PMPI_Imrecv(buf, count, type, m, r);
}

/* ---- Fortran entry points: count, then call the library's pmpi_<name>_ */

typedef MPI_Fint F;
static void* pmpi(const char* name) {
  void* p = dlsym(RTLD_DEFAULT, name);
  if (!p) {
    fprintf(stderr, "mpi_count: no Fortran entry %s in the MPI library\n", name);
    abort();
  }
  return p;
}
/* Declares the forwarding pointer of one Fortran function, looked up on first use (copied
 * byte-wise: ISO C has no conversion from an object pointer to a function pointer). */
#define TG_FPTR(name, type)                    \
  static type name##_ptr;                      \
  if (!name##_ptr) {                           \
    void* p_ = pmpi("p" #name "_");            \
    memcpy(&name##_ptr, &p_, sizeof p_);       \
  }
/* The four usual manglings of one Fortran entry point, all calling the same body. */
#define TG_F4(lower, UPPER, params, args)              \
  EXPORT void lower##_ params { lower##_body args; }   \
  EXPORT void lower params { lower##_body args; }      \
  EXPORT void lower##__ params { lower##_body args; }  \
  EXPORT void UPPER params { lower##_body args; }
#define TG_CALL(call) \
  do {                \
    ++depth;          \
    call;             \
    --depth;          \
  } while (0)

typedef void (*f1)(F*);
static void mpi_init_body(F* ierr) {
  TG_FPTR(mpi_init, f1);
  count_op(OP_Init);
  TG_CALL(mpi_init_ptr(ierr));
  if (depth == 0) after_init();
}
TG_F4(mpi_init, MPI_INIT, (F * ierr), (ierr))
typedef void (*f3)(F*, F*, F*);
static void mpi_init_thread_body(F* req, F* prov, F* ierr) {
  TG_FPTR(mpi_init_thread, f3);
  count_op(OP_Init_thread);
  TG_CALL(mpi_init_thread_ptr(req, prov, ierr));
  if (depth == 0) after_init();
}
TG_F4(mpi_init_thread, MPI_INIT_THREAD, (F * req, F* prov, F* ierr), (req, prov, ierr))
static void mpi_finalize_body(F* ierr) {
  TG_FPTR(mpi_finalize, f1);
  count_op(OP_Finalize);
  if (depth == 0) write_counts();
  TG_CALL(mpi_finalize_ptr(ierr));
}
TG_F4(mpi_finalize, MPI_FINALIZE, (F * ierr), (ierr))

typedef void (*fsend)(void*, F*, F*, F*, F*, F*, F*);
typedef void (*fisend)(void*, F*, F*, F*, F*, F*, F*, F*);
#define TG_F_SEND(lower, UPPER, OP)                                                         \
  static void lower##_body(void* b, F* c, F* t, F* d, F* g, F* m, F* e) {                   \
    TG_FPTR(lower, fsend);                                                                  \
    count_op(OP);                                                                           \
    sent(*c, PMPI_Type_f2c(*t), *d);                                                        \
    TG_CALL(lower##_ptr(b, c, t, d, g, m, e));                                              \
  }                                                                                         \
  TG_F4(lower, UPPER, (void* b, F* c, F* t, F* d, F* g, F* m, F* e), (b, c, t, d, g, m, e))
#define TG_F_ISEND(lower, UPPER, OP)                                                                 \
  static void lower##_body(void* b, F* c, F* t, F* d, F* g, F* m, F* r, F* e) {                      \
    TG_FPTR(lower, fisend);                                                                          \
    count_op(OP);                                                                                    \
    sent(*c, PMPI_Type_f2c(*t), *d);                                                                 \
    TG_CALL(lower##_ptr(b, c, t, d, g, m, r, e));                                                    \
  }                                                                                                  \
  TG_F4(lower, UPPER, (void* b, F* c, F* t, F* d, F* g, F* m, F* r, F* e), (b, c, t, d, g, m, r, e))
TG_F_SEND(mpi_send, MPI_SEND, OP_Send)
TG_F_SEND(mpi_ssend, MPI_SSEND, OP_Ssend)
TG_F_SEND(mpi_rsend, MPI_RSEND, OP_Rsend)
TG_F_SEND(mpi_bsend, MPI_BSEND, OP_Bsend)
TG_F_ISEND(mpi_isend, MPI_ISEND, OP_Isend)
TG_F_ISEND(mpi_issend, MPI_ISSEND, OP_Issend)
TG_F_ISEND(mpi_irsend, MPI_IRSEND, OP_Irsend)
TG_F_ISEND(mpi_ibsend, MPI_IBSEND, OP_Ibsend)

typedef void (*frecv)(void*, F*, F*, F*, F*, F*, F*, F*);
static void mpi_recv_body(void* b, F* c, F* t, F* s, F* g, F* m, F* st, F* e) {
  TG_FPTR(mpi_recv, frecv);
  count_op(OP_Recv);
  received(*c, PMPI_Type_f2c(*t), *s);
  TG_CALL(mpi_recv_ptr(b, c, t, s, g, m, st, e));
}
TG_F4(mpi_recv, MPI_RECV, (void* b, F* c, F* t, F* s, F* g, F* m, F* st, F* e), (b, c, t, s, g, m, st, e))
static void mpi_irecv_body(void* b, F* c, F* t, F* s, F* g, F* m, F* r, F* e) {
  TG_FPTR(mpi_irecv, frecv);
  count_op(OP_Irecv);
  received(*c, PMPI_Type_f2c(*t), *s);
  TG_CALL(mpi_irecv_ptr(b, c, t, s, g, m, r, e));
}
TG_F4(mpi_irecv, MPI_IRECV, (void* b, F* c, F* t, F* s, F* g, F* m, F* r, F* e), (b, c, t, s, g, m, r, e))

typedef void (*fsendrecv)(void*, F*, F*, F*, F*, void*, F*, F*, F*, F*, F*, F*, F*);
static void mpi_sendrecv_body(void* sb, F* sc, F* stp, F* d, F* sg, void* rb, F* rc, F* rt, F* s, F* rg, F* m, F* st,
                              F* e) {
  TG_FPTR(mpi_sendrecv, fsendrecv);
  count_op(OP_Sendrecv);
  sent(*sc, PMPI_Type_f2c(*stp), *d);
  received(*rc, PMPI_Type_f2c(*rt), *s);
  TG_CALL(mpi_sendrecv_ptr(sb, sc, stp, d, sg, rb, rc, rt, s, rg, m, st, e));
}
TG_F4(mpi_sendrecv, MPI_SENDRECV,
      (void* sb, F* sc, F* stp, F* d, F* sg, void* rb, F* rc, F* rt, F* s, F* rg, F* m, F* st, F* e),
      (sb, sc, stp, d, sg, rb, rc, rt, s, rg, m, st, e))
typedef void (*fsrr)(void*, F*, F*, F*, F*, F*, F*, F*, F*, F*);
static void mpi_sendrecv_replace_body(void* b, F* c, F* t, F* d, F* sg, F* s, F* rg, F* m, F* st, F* e) {
  TG_FPTR(mpi_sendrecv_replace, fsrr);
  count_op(OP_Sendrecv_replace);
  sent(*c, PMPI_Type_f2c(*t), *d);
  received(*c, PMPI_Type_f2c(*t), *s);
  TG_CALL(mpi_sendrecv_replace_ptr(b, c, t, d, sg, s, rg, m, st, e));
}
TG_F4(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE, (void* b, F* c, F* t, F* d, F* sg, F* s, F* rg, F* m, F* st, F* e),
      (b, c, t, d, sg, s, rg, m, st, e))

/* Calls whose counting needs no argument: the body just counts and forwards. */
#define TG_F_PLAIN(lower, UPPER, OP, type, params, args) \
  static void lower##_body params {                      \
    TG_FPTR(lower, type);                                \
    count_op(OP);                                        \
    TG_CALL(lower##_ptr args);                           \
  }                                                      \
  TG_F4(lower, UPPER, params, args)
typedef void (*f2)(F*, F*);
typedef void (*f4)(F*, F*, F*, F*);
typedef void (*f5)(F*, F*, F*, F*, F*);
typedef void (*f6)(F*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_probe, MPI_PROBE, OP_Probe, f5, (F * s, F* g, F* m, F* st, F* e), (s, g, m, st, e))
TG_F_PLAIN(mpi_iprobe, MPI_IPROBE, OP_Iprobe, f6, (F * s, F* g, F* m, F* fl, F* st, F* e), (s, g, m, fl, st, e))
TG_F_PLAIN(mpi_wait, MPI_WAIT, OP_Wait, f3, (F * r, F* st, F* e), (r, st, e))
TG_F_PLAIN(mpi_test, MPI_TEST, OP_Test, f4, (F * r, F* fl, F* st, F* e), (r, fl, st, e))
TG_F_PLAIN(mpi_waitall, MPI_WAITALL, OP_Waitall, f4, (F * n, F* r, F* st, F* e), (n, r, st, e))
TG_F_PLAIN(mpi_testall, MPI_TESTALL, OP_Testall, f5, (F * n, F* r, F* fl, F* st, F* e), (n, r, fl, st, e))
TG_F_PLAIN(mpi_waitany, MPI_WAITANY, OP_Waitany, f5, (F * n, F* r, F* i, F* st, F* e), (n, r, i, st, e))
TG_F_PLAIN(mpi_testany, MPI_TESTANY, OP_Testany, f6, (F * n, F* r, F* i, F* fl, F* st, F* e), (n, r, i, fl, st, e))
TG_F_PLAIN(mpi_waitsome, MPI_WAITSOME, OP_Waitsome, f6, (F * n, F* r, F* o, F* i, F* st, F* e), (n, r, o, i, st, e))
TG_F_PLAIN(mpi_testsome, MPI_TESTSOME, OP_Testsome, f6, (F * n, F* r, F* o, F* i, F* st, F* e), (n, r, o, i, st, e))
TG_F_PLAIN(mpi_barrier, MPI_BARRIER, OP_Barrier, f2, (F * m, F* e), (m, e))
typedef void (*fbcast)(void*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_bcast, MPI_BCAST, OP_Bcast, fbcast, (void* b, F* c, F* t, F* r, F* m, F* e), (b, c, t, r, m, e))
typedef void (*freduce)(void*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*fallreduce)(void*, void*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_reduce, MPI_REDUCE, OP_Reduce, freduce, (void* s, void* r, F* c, F* t, F* o, F* rt, F* m, F* e),
           (s, r, c, t, o, rt, m, e))
TG_F_PLAIN(mpi_allreduce, MPI_ALLREDUCE, OP_Allreduce, fallreduce, (void* s, void* r, F* c, F* t, F* o, F* m, F* e),
           (s, r, c, t, o, m, e))
TG_F_PLAIN(mpi_scan, MPI_SCAN, OP_Scan, fallreduce, (void* s, void* r, F* c, F* t, F* o, F* m, F* e), (s, r, c, t, o, m, e))
TG_F_PLAIN(mpi_exscan, MPI_EXSCAN, OP_Exscan, fallreduce, (void* s, void* r, F* c, F* t, F* o, F* m, F* e),
           (s, r, c, t, o, m, e))
TG_F_PLAIN(mpi_reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK, OP_Reduce_scatter_block, fallreduce,
           (void* s, void* r, F* c, F* t, F* o, F* m, F* e), (s, r, c, t, o, m, e))
TG_F_PLAIN(mpi_reduce_scatter, MPI_REDUCE_SCATTER, OP_Reduce_scatter, fallreduce,
           (void* s, void* r, F* c, F* t, F* o, F* m, F* e), (s, r, c, t, o, m, e))
typedef void (*fgather)(void*, F*, F*, void*, F*, F*, F*, F*, F*);
typedef void (*fgatherv)(void*, F*, F*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*fallgather)(void*, F*, F*, void*, F*, F*, F*, F*);
typedef void (*fallgatherv)(void*, F*, F*, void*, F*, F*, F*, F*, F*);
typedef void (*fscatterv)(void*, F*, F*, F*, void*, F*, F*, F*, F*, F*);
typedef void (*falltoallv)(void*, F*, F*, F*, void*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_gather, MPI_GATHER, OP_Gather, fgather, (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* ro, F* m, F* e),
           (s, sc, st, r, rc, rt, ro, m, e))
TG_F_PLAIN(mpi_gatherv, MPI_GATHERV, OP_Gatherv, fgatherv,
           (void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* ro, F* m, F* e), (s, sc, st, r, rc, d, rt, ro, m, e))
TG_F_PLAIN(mpi_scatter, MPI_SCATTER, OP_Scatter, fgather, (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* ro, F* m, F* e),
           (s, sc, st, r, rc, rt, ro, m, e))
TG_F_PLAIN(mpi_scatterv, MPI_SCATTERV, OP_Scatterv, fscatterv,
           (void* s, F* sc, F* d, F* st, void* r, F* rc, F* rt, F* ro, F* m, F* e), (s, sc, d, st, r, rc, rt, ro, m, e))
TG_F_PLAIN(mpi_allgather, MPI_ALLGATHER, OP_Allgather, fallgather, (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* e),
           (s, sc, st, r, rc, rt, m, e))
TG_F_PLAIN(mpi_allgatherv, MPI_ALLGATHERV, OP_Allgatherv, fallgatherv,
           (void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* m, F* e), (s, sc, st, r, rc, d, rt, m, e))
TG_F_PLAIN(mpi_alltoall, MPI_ALLTOALL, OP_Alltoall, fallgather, (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* e),
           (s, sc, st, r, rc, rt, m, e))
TG_F_PLAIN(mpi_alltoallv, MPI_ALLTOALLV, OP_Alltoallv, falltoallv,
           (void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* m, F* e), (s, sc, sd, st, r, rc, rd, rt, m, e))
/* MPI-3 nonblocking collectives (Fortran): the blocking form's arguments and the request. */
typedef void (*fibcast)(void*, F*, F*, F*, F*, F*, F*);
typedef void (*fireduce)(void*, void*, F*, F*, F*, F*, F*, F*, F*);
typedef void (*fiallreduce)(void*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*figather)(void*, F*, F*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*fiallgather)(void*, F*, F*, void*, F*, F*, F*, F*, F*);
typedef void (*figatherv)(void*, F*, F*, void*, F*, F*, F*, F*, F*, F*, F*);
typedef void (*fiscatterv)(void*, F*, F*, F*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*fiallgatherv)(void*, F*, F*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*fialltoallv)(void*, F*, F*, F*, void*, F*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_ibarrier, MPI_IBARRIER, OP_Ibarrier, f3, (F * m, F* q, F* e), (m, q, e))
TG_F_PLAIN(mpi_ibcast, MPI_IBCAST, OP_Ibcast, fibcast, (void* b, F* c, F* t, F* r, F* m, F* q, F* e), (b, c, t, r, m, q, e))
TG_F_PLAIN(mpi_ireduce, MPI_IREDUCE, OP_Ireduce, fireduce,
           (void* s, void* r, F* c, F* t, F* o, F* rt, F* m, F* q, F* e), (s, r, c, t, o, rt, m, q, e))
TG_F_PLAIN(mpi_iallreduce, MPI_IALLREDUCE, OP_Iallreduce, fiallreduce,
           (void* s, void* r, F* c, F* t, F* o, F* m, F* q, F* e), (s, r, c, t, o, m, q, e))
TG_F_PLAIN(mpi_iscan, MPI_ISCAN, OP_Iscan, fiallreduce, (void* s, void* r, F* c, F* t, F* o, F* m, F* q, F* e),
           (s, r, c, t, o, m, q, e))
TG_F_PLAIN(mpi_iexscan, MPI_IEXSCAN, OP_Iexscan, fiallreduce, (void* s, void* r, F* c, F* t, F* o, F* m, F* q, F* e),
           (s, r, c, t, o, m, q, e))
TG_F_PLAIN(mpi_ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, OP_Ireduce_scatter_block, fiallreduce,
           (void* s, void* r, F* c, F* t, F* o, F* m, F* q, F* e), (s, r, c, t, o, m, q, e))
TG_F_PLAIN(mpi_ireduce_scatter, MPI_IREDUCE_SCATTER, OP_Ireduce_scatter, fiallreduce,
           (void* s, void* r, F* c, F* t, F* o, F* m, F* q, F* e), (s, r, c, t, o, m, q, e))
TG_F_PLAIN(mpi_igather, MPI_IGATHER, OP_Igather, figather,
           (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* ro, F* m, F* q, F* e), (s, sc, st, r, rc, rt, ro, m, q, e))
TG_F_PLAIN(mpi_iscatter, MPI_ISCATTER, OP_Iscatter, figather,
           (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* ro, F* m, F* q, F* e), (s, sc, st, r, rc, rt, ro, m, q, e))
TG_F_PLAIN(mpi_iallgather, MPI_IALLGATHER, OP_Iallgather, fiallgather,
           (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* q, F* e), (s, sc, st, r, rc, rt, m, q, e))
TG_F_PLAIN(mpi_ialltoall, MPI_IALLTOALL, OP_Ialltoall, fiallgather,
           (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* q, F* e), (s, sc, st, r, rc, rt, m, q, e))
TG_F_PLAIN(mpi_igatherv, MPI_IGATHERV, OP_Igatherv, figatherv,
           (void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* ro, F* m, F* q, F* e),
           (s, sc, st, r, rc, d, rt, ro, m, q, e))
TG_F_PLAIN(mpi_iscatterv, MPI_ISCATTERV, OP_Iscatterv, fiscatterv,
           (void* s, F* sc, F* d, F* st, void* r, F* rc, F* rt, F* ro, F* m, F* q, F* e),
           (s, sc, d, st, r, rc, rt, ro, m, q, e))
TG_F_PLAIN(mpi_iallgatherv, MPI_IALLGATHERV, OP_Iallgatherv, fiallgatherv,
           (void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* m, F* q, F* e), (s, sc, st, r, rc, d, rt, m, q, e))
TG_F_PLAIN(mpi_ialltoallv, MPI_IALLTOALLV, OP_Ialltoallv, fialltoallv,
           (void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* m, F* q, F* e),
           (s, sc, sd, st, r, rc, rd, rt, m, q, e))
TG_F_PLAIN(mpi_ialltoallw, MPI_IALLTOALLW, OP_Ialltoallw, fialltoallv,
           (void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* m, F* q, F* e),
           (s, sc, sd, st, r, rc, rd, rt, m, q, e))
TG_F_PLAIN(mpi_alltoallw, MPI_ALLTOALLW, OP_Alltoallw, falltoallv,
           (void* s, F* sc, F* sd, F* st, void* r, F* rc, F* rd, F* rt, F* m, F* e), (s, sc, sd, st, r, rc, rd, rt, m, e))
TG_F_PLAIN(mpi_comm_split, MPI_COMM_SPLIT, OP_Comm_split, f5, (F * m, F* c, F* k, F* n, F* e), (m, c, k, n, e))
TG_F_PLAIN(mpi_comm_dup, MPI_COMM_DUP, OP_Comm_dup, f3, (F * m, F* n, F* e), (m, n, e))
TG_F_PLAIN(mpi_comm_create, MPI_COMM_CREATE, OP_Comm_create, f4, (F * m, F* g, F* n, F* e), (m, g, n, e))
TG_F_PLAIN(mpi_comm_free, MPI_COMM_FREE, OP_Comm_free, f2, (F * m, F* e), (m, e))
TG_F_PLAIN(mpi_comm_group, MPI_COMM_GROUP, OP_Comm_group, f3, (F * m, F* g, F* e), (m, g, e))
TG_F_PLAIN(mpi_group_incl, MPI_GROUP_INCL, OP_Group_incl, f5, (F * g, F* n, F* r, F* ng, F* e), (g, n, r, ng, e))
TG_F_PLAIN(mpi_group_excl, MPI_GROUP_EXCL, OP_Group_excl, f5, (F * g, F* n, F* r, F* ng, F* e), (g, n, r, ng, e))
TG_F_PLAIN(mpi_group_range_incl, MPI_GROUP_RANGE_INCL, OP_Group_range_incl, f5, (F * g, F* n, F* r, F* ng, F* e),
           (g, n, r, ng, e))
TG_F_PLAIN(mpi_group_range_excl, MPI_GROUP_RANGE_EXCL, OP_Group_range_excl, f5, (F * g, F* n, F* r, F* ng, F* e),
           (g, n, r, ng, e))
TG_F_PLAIN(mpi_group_union, MPI_GROUP_UNION, OP_Group_union, f4, (F * a, F* b, F* ng, F* e), (a, b, ng, e))
TG_F_PLAIN(mpi_group_intersection, MPI_GROUP_INTERSECTION, OP_Group_intersection, f4, (F * a, F* b, F* ng, F* e),
           (a, b, ng, e))
TG_F_PLAIN(mpi_group_difference, MPI_GROUP_DIFFERENCE, OP_Group_difference, f4, (F * a, F* b, F* ng, F* e),
           (a, b, ng, e))
TG_F_PLAIN(mpi_group_free, MPI_GROUP_FREE, OP_Group_free, f2, (F * g, F* e), (g, e))

/* Persistent requests from Fortran (handles converted to C ones, as the library shares them). */
static void mpi_send_init_body(void* b, F* c, F* t, F* d, F* g, F* m, F* r, F* e) {
  TG_FPTR(mpi_send_init, fisend);
  count_op(OP_Send_init);
  TG_CALL(mpi_send_init_ptr(b, c, t, d, g, m, r, e));
  persistent_made(PMPI_Request_f2c(*r), 1, *c, PMPI_Type_f2c(*t), *d);
}
TG_F4(mpi_send_init, MPI_SEND_INIT, (void* b, F* c, F* t, F* d, F* g, F* m, F* r, F* e), (b, c, t, d, g, m, r, e))
static void mpi_recv_init_body(void* b, F* c, F* t, F* s, F* g, F* m, F* r, F* e) {
  TG_FPTR(mpi_recv_init, frecv);
  count_op(OP_Recv_init);
  TG_CALL(mpi_recv_init_ptr(b, c, t, s, g, m, r, e));
  persistent_made(PMPI_Request_f2c(*r), 0, *c, PMPI_Type_f2c(*t), *s);
}
TG_F4(mpi_recv_init, MPI_RECV_INIT, (void* b, F* c, F* t, F* s, F* g, F* m, F* r, F* e), (b, c, t, s, g, m, r, e))
static void mpi_start_body(F* r, F* e) {
  TG_FPTR(mpi_start, f2);
  count_op(OP_Start);
  persistent_started(PMPI_Request_f2c(*r));
  TG_CALL(mpi_start_ptr(r, e));
}
TG_F4(mpi_start, MPI_START, (F * r, F* e), (r, e))
static void mpi_startall_body(F* n, F* r, F* e) {
  TG_FPTR(mpi_startall, f3);
  count_op(OP_Startall);
  for (F i = 0; i < *n; ++i) persistent_started(PMPI_Request_f2c(r[i]));
  TG_CALL(mpi_startall_ptr(n, r, e));
}
TG_F4(mpi_startall, MPI_STARTALL, (F * n, F* r, F* e), (n, r, e))
static void mpi_request_free_body(F* r, F* e) {
  TG_FPTR(mpi_request_free, f2);
  count_op(OP_Request_free);
  persistent_freed(PMPI_Request_f2c(*r));
  TG_CALL(mpi_request_free_ptr(r, e));
}
TG_F4(mpi_request_free, MPI_REQUEST_FREE, (F * r, F* e), (r, e))

typedef void (*fmprobe)(F*, F*, F*, F*, F*, F*);
typedef void (*fimprobe)(F*, F*, F*, F*, F*, F*, F*);
typedef void (*fmrecv)(void*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_mprobe, MPI_MPROBE, OP_Mprobe, fmprobe, (F * s, F* g, F* m, F* msg, F* st, F* e), (s, g, m, msg, st, e))
static void mpi_improbe_body(F* s, F* g, F* m, F* fl, F* msg, F* st, F* e) {
  TG_FPTR(mpi_improbe, fimprobe);
  count_op(OP_Improbe);
  TG_CALL(mpi_improbe_ptr(s, g, m, fl, msg, st, e));
  if (*fl) count_op(SLOT_DONE_IMPROBE);
}
TG_F4(mpi_improbe, MPI_IMPROBE, (F * s, F* g, F* m, F* fl, F* msg, F* st, F* e), (s, g, m, fl, msg, st, e))
static void mpi_mrecv_body(void* b, F* c, F* t, F* msg, F* st, F* e) {
  TG_FPTR(mpi_mrecv, fmrecv);
  count_op(OP_Mrecv);
  received(*c, PMPI_Type_f2c(*t), PMPI_Message_f2c(*msg) == MPI_MESSAGE_NO_PROC ? MPI_PROC_NULL : 0);
  TG_CALL(mpi_mrecv_ptr(b, c, t, msg, st, e));
}
TG_F4(mpi_mrecv, MPI_MRECV, (void* b, F* c, F* t, F* msg, F* st, F* e), (b, c, t, msg, st, e))
static void mpi_imrecv_body(void* b, F* c, F* t, F* msg, F* r, F* e) {
  TG_FPTR(mpi_imrecv, fmrecv);
  count_op(OP_Imrecv);
  received(*c, PMPI_Type_f2c(*t), PMPI_Message_f2c(*msg) == MPI_MESSAGE_NO_PROC ? MPI_PROC_NULL : 0);
  TG_CALL(mpi_imrecv_ptr(b, c, t, msg, r, e));
}
TG_F4(mpi_imrecv, MPI_IMRECV, (void* b, F* c, F* t, F* msg, F* r, F* e), (b, c, t, msg, r, e))

/* ---- calls the recorder records as opaque events (samples/apps/opaque.c), C only: counted */
/* ---- one-sided communication: bytes on the origin, as tracegen counts them (docs/trace-format.md,
 * "One-sided communication"): MPI_Put and MPI_Accumulate send their origin buffer (origin count x
 * type), MPI_Get receives into it; to MPI_PROC_NULL nothing. C only. */
EXPORT int MPI_Win_create(void* base, MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  count_op(OP_Win_create);
  return PMPI_Win_create(base, size, unit, info, comm, win);
}
EXPORT int MPI_Win_allocate(MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void* base, MPI_Win* win) {
  count_op(OP_Win_allocate);
  return PMPI_Win_allocate(size, unit, info, comm, base, win);
}
EXPORT int MPI_Win_fence(int assert_, MPI_Win win) {
  count_op(OP_Win_fence);
  return PMPI_Win_fence(assert_, win);
}
EXPORT int MPI_Put(const void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win) {
  count_op(OP_Put);
  sent(oc, ot, rank);
  return PMPI_Put(o, oc, ot, rank, disp, tc, tt, win);
}
EXPORT int MPI_Get(void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win) {
  count_op(OP_Get);
  received(oc, ot, rank);
  return PMPI_Get(o, oc, ot, rank, disp, tc, tt, win);
}
EXPORT int MPI_Accumulate(const void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt,
                          MPI_Op op, MPI_Win win) {
  count_op(OP_Accumulate);
  sent(oc, ot, rank);
  return PMPI_Accumulate(o, oc, ot, rank, disp, tc, tt, op, win);
}
EXPORT int MPI_Win_free(MPI_Win* win) {
  count_op(OP_Win_free);
  return PMPI_Win_free(win);
}
EXPORT int MPI_Win_lock(int type, int rank, int a, MPI_Win win) {
  count_op(OP_Win_lock);
  return PMPI_Win_lock(type, rank, a, win);
}
EXPORT int MPI_Win_lock_all(int a, MPI_Win win) {
  count_op(OP_Win_lock_all);
  return PMPI_Win_lock_all(a, win);
}
#define TG_C_WIN_RANK(name)                     \
  EXPORT int MPI_##name(int rank, MPI_Win win) { \
    count_op(OP_##name);                        \
    return PMPI_##name(rank, win);              \
  }
TG_C_WIN_RANK(Win_unlock)
TG_C_WIN_RANK(Win_flush)
TG_C_WIN_RANK(Win_flush_local)
#define TG_C_WIN(name)                \
  EXPORT int MPI_##name(MPI_Win win) { \
    count_op(OP_##name);              \
    return PMPI_##name(win);          \
  }
TG_C_WIN(Win_unlock_all)
TG_C_WIN(Win_flush_all)
TG_C_WIN(Win_complete)
TG_C_WIN(Win_wait)
TG_C_WIN(Win_sync)
EXPORT int MPI_Win_post(MPI_Group g, int a, MPI_Win win) {
  count_op(OP_Win_post);
  return PMPI_Win_post(g, a, win);
}
EXPORT int MPI_Win_start(MPI_Group g, int a, MPI_Win win) {
  count_op(OP_Win_start);
  return PMPI_Win_start(g, a, win);
}
EXPORT int MPI_Fetch_and_op(const void* o, void* r, MPI_Datatype t, int rank, MPI_Aint disp, MPI_Op op, MPI_Win win) {
  count_op(OP_Fetch_and_op);
  return PMPI_Fetch_and_op(o, r, t, rank, disp, op, win);
}
EXPORT int MPI_Rget(void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win,
                    MPI_Request* req) {
  count_op(OP_Rget);
  return PMPI_Rget(o, oc, ot, rank, disp, tc, tt, win, req);
}
/* ---- MPI-IO: writes count as bytes sent, reads as bytes received (count x type), as tracegen
 * counts them (docs/trace-format.md, "MPI-IO"). C only. */
EXPORT int MPI_File_open(MPI_Comm comm, const char* name, int mode, MPI_Info info, MPI_File* fh) {
  count_op(OP_File_open);
  return PMPI_File_open(comm, name, mode, info, fh);
}
EXPORT int MPI_File_close(MPI_File* fh) {
  count_op(OP_File_close);
  return PMPI_File_close(fh);
}
#define TG_C_FILE_READ(name)                                                                   \
  EXPORT int MPI_##name(MPI_File fh, void* b, int n, MPI_Datatype t, MPI_Status* st) {        \
    count_op(OP_##name);                                                                      \
    received(n, t, 0);                                                                        \
    return PMPI_##name(fh, b, n, t, st);                                                      \
  }
#define TG_C_FILE_WRITE(name)                                                                  \
  EXPORT int MPI_##name(MPI_File fh, const void* b, int n, MPI_Datatype t, MPI_Status* st) {  \
    count_op(OP_##name);                                                                      \
    sent(n, t, 0);                                                                            \
    return PMPI_##name(fh, b, n, t, st);                                                      \
  }
#define TG_C_FILE_READ_AT(name)                                                                             \
  EXPORT int MPI_##name(MPI_File fh, MPI_Offset off, void* b, int n, MPI_Datatype t, MPI_Status* st) {     \
    count_op(OP_##name);                                                                                   \
    received(n, t, 0);                                                                                     \
    return PMPI_##name(fh, off, b, n, t, st);                                                              \
  }
#define TG_C_FILE_WRITE_AT(name)                                                                            \
  EXPORT int MPI_##name(MPI_File fh, MPI_Offset off, const void* b, int n, MPI_Datatype t, MPI_Status* st) { \
    count_op(OP_##name);                                                                                   \
    sent(n, t, 0);                                                                                         \
    return PMPI_##name(fh, off, b, n, t, st);                                                              \
  }
TG_C_FILE_READ(File_read)
TG_C_FILE_READ(File_read_all)
TG_C_FILE_WRITE(File_write)
TG_C_FILE_WRITE(File_write_all)
TG_C_FILE_READ_AT(File_read_at)
TG_C_FILE_READ_AT(File_read_at_all)
TG_C_FILE_WRITE_AT(File_write_at)
TG_C_FILE_WRITE_AT(File_write_at_all)

EXPORT int MPI_Ibarrier(MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ibarrier);
  return PMPI_Ibarrier(comm, req);
}

/* ---- MPI-3 nonblocking collectives (C) */
EXPORT int MPI_Ibcast(void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ibcast);
  return PMPI_Ibcast(b, n, t, root, comm, req);
}
EXPORT int MPI_Ireduce(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, int root, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ireduce);
  return PMPI_Ireduce(s, r, n, t, o, root, comm, req);
}
#define TG_NBC_REDUCTION(NAME)                                                                                     \
  EXPORT int MPI_##NAME(const void* s, void* r, int n, MPI_Datatype t, MPI_Op o, MPI_Comm comm, MPI_Request* req) { \
    count_op(OP_##NAME);                                                                                           \
    return PMPI_##NAME(s, r, n, t, o, comm, req);                                                                  \
  }
TG_NBC_REDUCTION(Iallreduce)
TG_NBC_REDUCTION(Iscan)
TG_NBC_REDUCTION(Iexscan)
TG_NBC_REDUCTION(Ireduce_scatter_block)
#undef TG_NBC_REDUCTION
EXPORT int MPI_Ireduce_scatter(const void* s, void* r, const int rc[], MPI_Datatype t, MPI_Op o, MPI_Comm comm,
                               MPI_Request* req) {
  count_op(OP_Ireduce_scatter);
  return PMPI_Ireduce_scatter(s, r, rc, t, o, comm, req);
}
#define TG_NBC_ROOTED(NAME)                                                                                        \
  EXPORT int MPI_##NAME(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, int root,        \
                        MPI_Comm comm, MPI_Request* req) {                                                         \
    count_op(OP_##NAME);                                                                                           \
    return PMPI_##NAME(s, sc, st, r, rc, rt, root, comm, req);                                                     \
  }
TG_NBC_ROOTED(Igather)
TG_NBC_ROOTED(Iscatter)
#undef TG_NBC_ROOTED
#define TG_NBC_ALL(NAME)                                                                                           \
  EXPORT int MPI_##NAME(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm,   \
                        MPI_Request* req) {                                                                        \
    count_op(OP_##NAME);                                                                                           \
    return PMPI_##NAME(s, sc, st, r, rc, rt, comm, req);                                                           \
  }
TG_NBC_ALL(Iallgather)
TG_NBC_ALL(Ialltoall)
#undef TG_NBC_ALL
EXPORT int MPI_Igatherv(const void* s, int sc, MPI_Datatype st, void* r, const int rc[], const int d[], MPI_Datatype rt,
                        int root, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Igatherv);
  return PMPI_Igatherv(s, sc, st, r, rc, d, rt, root, comm, req);
}
EXPORT int MPI_Iscatterv(const void* s, const int sc[], const int d[], MPI_Datatype st, void* r, int rc, MPI_Datatype rt,
                         int root, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Iscatterv);
  return PMPI_Iscatterv(s, sc, d, st, r, rc, rt, root, comm, req);
}
EXPORT int MPI_Iallgatherv(const void* s, int sc, MPI_Datatype st, void* r, const int rc[], const int d[], MPI_Datatype rt,
                           MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Iallgatherv);
  return PMPI_Iallgatherv(s, sc, st, r, rc, d, rt, comm, req);
}
EXPORT int MPI_Ialltoallv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r, const int rc[],
                          const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ialltoallv);
  return PMPI_Ialltoallv(s, sc, sd, st, r, rc, rd, rt, comm, req);
}
EXPORT int MPI_Alltoallw(const void* s, const int sc[], const int sd[], const MPI_Datatype st[], void* r, const int rc[],
                         const int rd[], const MPI_Datatype rt[], MPI_Comm comm) {
  count_op(OP_Alltoallw);
  return PMPI_Alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
}
EXPORT int MPI_Ialltoallw(const void* s, const int sc[], const int sd[], const MPI_Datatype st[], void* r, const int rc[],
                          const int rd[], const MPI_Datatype rt[], MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ialltoallw);
  return PMPI_Ialltoallw(s, sc, sd, st, r, rc, rd, rt, comm, req);
}

/* ---- neighbourhood collectives (TG_NEIGHBOR_OPS) */

#define TG_NBR_MAX 4096
static int nbr_sources[TG_NBR_MAX], nbr_destinations[TG_NBR_MAX], nbr_weights[TG_NBR_MAX];
static int nbr_in, nbr_out;

/* The calling rank's sources and destinations on comm, in MPI's order. */
static void neighbours(MPI_Comm comm) {
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topo);
  nbr_in = nbr_out = 0;
  if (topo == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    for (int d = 0; d < ndims && 2 * d + 1 < TG_NBR_MAX; ++d) {
      PMPI_Cart_shift(comm, d, 1, &nbr_sources[2 * d], &nbr_sources[2 * d + 1]);
      nbr_destinations[2 * d] = nbr_sources[2 * d];
      nbr_destinations[2 * d + 1] = nbr_sources[2 * d + 1];
      nbr_in = nbr_out = 2 * d + 2;
    }
  } else if (topo == MPI_GRAPH) {
    int rank = 0, n = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &n);
    if (n > TG_NBR_MAX) n = TG_NBR_MAX;
    PMPI_Graph_neighbors(comm, rank, n, nbr_sources);
    memcpy(nbr_destinations, nbr_sources, sizeof(int) * (size_t)n);
    nbr_in = nbr_out = n;
  } else if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &nbr_in, &nbr_out, &weighted);
    if (nbr_in > TG_NBR_MAX) nbr_in = TG_NBR_MAX;
    if (nbr_out > TG_NBR_MAX) nbr_out = TG_NBR_MAX;
    PMPI_Dist_graph_neighbors(comm, nbr_in, nbr_sources, nbr_weights, nbr_out, nbr_destinations, nbr_weights);
  }
}

/* Bytes of one neighbourhood collective: per destination sendcounts[i] (or sendcount) elements
 * of sendtypes[i] (or sendtype), per source likewise. */
static void neighbor_bytes(MPI_Comm comm, int sendcount, const int* sendcounts, MPI_Datatype sendtype,
                           const MPI_Datatype* sendtypes, int recvcount, const int* recvcounts, MPI_Datatype recvtype,
                           const MPI_Datatype* recvtypes) {
  if (depth != 0) return;
  neighbours(comm);
  for (int i = 0; i < nbr_out; ++i)
    sent(sendcounts ? sendcounts[i] : sendcount, sendtypes ? sendtypes[i] : sendtype, nbr_destinations[i]);
  for (int i = 0; i < nbr_in; ++i)
    received(recvcounts ? recvcounts[i] : recvcount, recvtypes ? recvtypes[i] : recvtype, nbr_sources[i]);
}

#define TG_C_NBR_ALL(NAME, INAME)                                                                                  \
  EXPORT int MPI_##NAME(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm) { \
    count_op(OP_##NAME);                                                                                           \
    neighbor_bytes(comm, sc, NULL, st, NULL, rc, NULL, rt, NULL);                                                  \
    return PMPI_##NAME(s, sc, st, r, rc, rt, comm);                                                                \
  }                                                                                                                \
  EXPORT int MPI_##INAME(const void* s, int sc, MPI_Datatype st, void* r, int rc, MPI_Datatype rt, MPI_Comm comm, \
                         MPI_Request* req) {                                                                       \
    count_op(OP_##INAME);                                                                                          \
    neighbor_bytes(comm, sc, NULL, st, NULL, rc, NULL, rt, NULL);                                                  \
    return PMPI_##INAME(s, sc, st, r, rc, rt, comm, req);                                                          \
  }
TG_C_NBR_ALL(Neighbor_allgather, Ineighbor_allgather)
TG_C_NBR_ALL(Neighbor_alltoall, Ineighbor_alltoall)
#undef TG_C_NBR_ALL
EXPORT int MPI_Neighbor_allgatherv(const void* s, int sc, MPI_Datatype st, void* r, const int rc[], const int d[],
                                   MPI_Datatype rt, MPI_Comm comm) {
  count_op(OP_Neighbor_allgatherv);
  neighbor_bytes(comm, sc, NULL, st, NULL, 0, rc, rt, NULL);
  return PMPI_Neighbor_allgatherv(s, sc, st, r, rc, d, rt, comm);
}
EXPORT int MPI_Ineighbor_allgatherv(const void* s, int sc, MPI_Datatype st, void* r, const int rc[], const int d[],
                                    MPI_Datatype rt, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ineighbor_allgatherv);
  neighbor_bytes(comm, sc, NULL, st, NULL, 0, rc, rt, NULL);
  return PMPI_Ineighbor_allgatherv(s, sc, st, r, rc, d, rt, comm, req);
}
EXPORT int MPI_Neighbor_alltoallv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r,
                                  const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm) {
  count_op(OP_Neighbor_alltoallv);
  neighbor_bytes(comm, 0, sc, st, NULL, 0, rc, rt, NULL);
  return PMPI_Neighbor_alltoallv(s, sc, sd, st, r, rc, rd, rt, comm);
}
EXPORT int MPI_Ineighbor_alltoallv(const void* s, const int sc[], const int sd[], MPI_Datatype st, void* r,
                                   const int rc[], const int rd[], MPI_Datatype rt, MPI_Comm comm, MPI_Request* req) {
  count_op(OP_Ineighbor_alltoallv);
  neighbor_bytes(comm, 0, sc, st, NULL, 0, rc, rt, NULL);
  return PMPI_Ineighbor_alltoallv(s, sc, sd, st, r, rc, rd, rt, comm, req);
}
EXPORT int MPI_Neighbor_alltoallw(const void* s, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void* r,
                                  const int rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm) {
  count_op(OP_Neighbor_alltoallw);
  neighbor_bytes(comm, 0, sc, MPI_DATATYPE_NULL, st, 0, rc, MPI_DATATYPE_NULL, rt);
  return PMPI_Neighbor_alltoallw(s, sc, sd, st, r, rc, rd, rt, comm);
}
EXPORT int MPI_Ineighbor_alltoallw(const void* s, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void* r,
                                   const int rc[], const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm,
                                   MPI_Request* req) {
  count_op(OP_Ineighbor_alltoallw);
  neighbor_bytes(comm, 0, sc, MPI_DATATYPE_NULL, st, 0, rc, MPI_DATATYPE_NULL, rt);
  return PMPI_Ineighbor_alltoallw(s, sc, sd, st, r, rc, rd, rt, comm, req);
}

/* Fortran: the handles converted, then counted as from C; the library's Fortran entry called. */
static MPI_Datatype nbr_types_c[2][TG_NBR_MAX];
static const MPI_Datatype* nbr_types(int which, const F* types, int n) {
  for (int i = 0; i < n && i < TG_NBR_MAX; ++i) nbr_types_c[which][i] = PMPI_Type_f2c(types[i]);
  return nbr_types_c[which];
}
typedef void (*fnbrall)(void*, F*, F*, void*, F*, F*, F*, F*);
typedef void (*finbrall)(void*, F*, F*, void*, F*, F*, F*, F*, F*);
typedef void (*fnbrallv)(void*, F*, F*, void*, F*, F*, F*, F*, F*);
typedef void (*finbrallv)(void*, F*, F*, void*, F*, F*, F*, F*, F*, F*);
typedef void (*fnbrv)(void*, F*, void*, F*, void*, F*, void*, F*, F*, F*);
typedef void (*finbrv)(void*, F*, void*, F*, void*, F*, void*, F*, F*, F*, F*);
#define TG_F_NBR_ALL(lower, UPPER, OP)                                                                            \
  static void lower##_body(void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* e) {                            \
    TG_FPTR(lower, fnbrall);                                                                                      \
    count_op(OP);                                                                                                 \
    neighbor_bytes(PMPI_Comm_f2c(*m), *sc, NULL, PMPI_Type_f2c(*st), NULL, *rc, NULL, PMPI_Type_f2c(*rt), NULL);  \
    TG_CALL(lower##_ptr(s, sc, st, r, rc, rt, m, e));                                                             \
  }                                                                                                               \
  TG_F4(lower, UPPER, (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* e), (s, sc, st, r, rc, rt, m, e))
#define TG_F_INBR_ALL(lower, UPPER, OP)                                                                           \
  static void lower##_body(void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* q, F* e) {                      \
    TG_FPTR(lower, finbrall);                                                                                     \
    count_op(OP);                                                                                                 \
    neighbor_bytes(PMPI_Comm_f2c(*m), *sc, NULL, PMPI_Type_f2c(*st), NULL, *rc, NULL, PMPI_Type_f2c(*rt), NULL);  \
    TG_CALL(lower##_ptr(s, sc, st, r, rc, rt, m, q, e));                                                          \
  }                                                                                                               \
  TG_F4(lower, UPPER, (void* s, F* sc, F* st, void* r, F* rc, F* rt, F* m, F* q, F* e), (s, sc, st, r, rc, rt, m, q, e))
TG_F_NBR_ALL(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, OP_Neighbor_allgather)
TG_F_NBR_ALL(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, OP_Neighbor_alltoall)
TG_F_INBR_ALL(mpi_ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER, OP_Ineighbor_allgather)
TG_F_INBR_ALL(mpi_ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL, OP_Ineighbor_alltoall)
#undef TG_F_NBR_ALL
#undef TG_F_INBR_ALL
static void mpi_neighbor_allgatherv_body(void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* m, F* e) {
  TG_FPTR(mpi_neighbor_allgatherv, fnbrallv);
  count_op(OP_Neighbor_allgatherv);
  neighbor_bytes(PMPI_Comm_f2c(*m), *sc, NULL, PMPI_Type_f2c(*st), NULL, 0, rc, PMPI_Type_f2c(*rt), NULL);
  TG_CALL(mpi_neighbor_allgatherv_ptr(s, sc, st, r, rc, d, rt, m, e));
}
TG_F4(mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, (void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* m, F* e),
      (s, sc, st, r, rc, d, rt, m, e))
static void mpi_ineighbor_allgatherv_body(void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* m, F* q, F* e) {
  TG_FPTR(mpi_ineighbor_allgatherv, finbrallv);
  count_op(OP_Ineighbor_allgatherv);
  neighbor_bytes(PMPI_Comm_f2c(*m), *sc, NULL, PMPI_Type_f2c(*st), NULL, 0, rc, PMPI_Type_f2c(*rt), NULL);
  TG_CALL(mpi_ineighbor_allgatherv_ptr(s, sc, st, r, rc, d, rt, m, q, e));
}
TG_F4(mpi_ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV,
      (void* s, F* sc, F* st, void* r, F* rc, F* d, F* rt, F* m, F* q, F* e), (s, sc, st, r, rc, d, rt, m, q, e))
/* The v forms (one datatype each way) and the w forms (a datatype per neighbour). */
static void nbr_v_bytes(F* sc, F* st, F* rc, F* rt, F* m, int w) {
  const MPI_Comm comm = PMPI_Comm_f2c(*m);
  if (!w) {
    neighbor_bytes(comm, 0, sc, PMPI_Type_f2c(*st), NULL, 0, rc, PMPI_Type_f2c(*rt), NULL);
    return;
  }
  neighbours(comm);
  const int in = nbr_in, out = nbr_out;
  neighbor_bytes(comm, 0, sc, MPI_DATATYPE_NULL, nbr_types(0, st, out), 0, rc, MPI_DATATYPE_NULL, nbr_types(1, rt, in));
}
#define TG_F_NBR_V(lower, UPPER, OP, W)                                                                          \
  static void lower##_body(void* s, F* sc, void* sd, F* st, void* r, F* rc, void* rd, F* rt, F* m, F* e) {       \
    TG_FPTR(lower, fnbrv);                                                                                       \
    count_op(OP);                                                                                                \
    if (depth == 0) nbr_v_bytes(sc, st, rc, rt, m, W);                                                           \
    TG_CALL(lower##_ptr(s, sc, sd, st, r, rc, rd, rt, m, e));                                                    \
  }                                                                                                              \
  TG_F4(lower, UPPER, (void* s, F* sc, void* sd, F* st, void* r, F* rc, void* rd, F* rt, F* m, F* e),            \
        (s, sc, sd, st, r, rc, rd, rt, m, e))
#define TG_F_INBR_V(lower, UPPER, OP, W)                                                                         \
  static void lower##_body(void* s, F* sc, void* sd, F* st, void* r, F* rc, void* rd, F* rt, F* m, F* q, F* e) { \
    TG_FPTR(lower, finbrv);                                                                                      \
    count_op(OP);                                                                                                \
    if (depth == 0) nbr_v_bytes(sc, st, rc, rt, m, W);                                                           \
    TG_CALL(lower##_ptr(s, sc, sd, st, r, rc, rd, rt, m, q, e));                                                 \
  }                                                                                                              \
  TG_F4(lower, UPPER, (void* s, F* sc, void* sd, F* st, void* r, F* rc, void* rd, F* rt, F* m, F* q, F* e),      \
        (s, sc, sd, st, r, rc, rd, rt, m, q, e))
TG_F_NBR_V(mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, OP_Neighbor_alltoallv, 0)
TG_F_NBR_V(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, OP_Neighbor_alltoallw, 1)
TG_F_INBR_V(mpi_ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV, OP_Ineighbor_alltoallv, 0)
TG_F_INBR_V(mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, OP_Ineighbor_alltoallw, 1)
#undef TG_F_NBR_V
#undef TG_F_INBR_V
/* MPI_CART_CREATE from Fortran (samples/apps/neighbor_f.f90). */
typedef void (*fcartcreate)(F*, F*, F*, F*, F*, F*, F*);
TG_F_PLAIN(mpi_cart_create, MPI_CART_CREATE, OP_Cart_create, fcartcreate,
           (F * m, F* nd, F* dims, F* periods, F* reorder, F* newcomm, F* e), (m, nd, dims, periods, reorder, newcomm, e))
