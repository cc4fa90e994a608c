/*
 * tracegen_runtime.h: the runtime of the C+MPI benchmarks tracegen generates.
 *
 * A benchmark is its trace's MPI calls (the file tracegen writes) over this runtime: the clock
 * and the spin that stands for computation, the command-line options, the message buffers,
 * the tables that name requests, communicators, groups, windows and files as the trace names
 * them, and the start-up and end of the measured region. It is the same C11 + MPI-3 for every
 * trace; what differs per trace (ranks, largest message, how many slots each table needs, the
 * derived datatypes) the benchmark passes to set_up() in a struct tracegen_trace.
 *
 * tracegen puts the runtime at the top of the benchmark it writes (`--runtime=embedded`, the
 * default), or writes it beside the benchmark as tracegen_runtime.h and tracegen_runtime.c
 * (`--runtime=separate`); then build both:
 *   mpicc -std=c11 -O2 -o bench bench.c tracegen_runtime.c
 *
 * The runtime's own MPI calls (set-up, datatypes, timing, completing what the trace left
 * open) go to the PMPI_ entry points, so that a profiling tool sees only the trace's calls.
 * The helpers keep the short names the generated calls use (compute, msg_count,
 * new_request, comm_of, ...).
 */
#ifndef TRACEGEN_RUNTIME_H
#define TRACEGEN_RUNTIME_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime; before any system header */
#endif
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mincore (glibc declares it for the BSD and System V extensions) */
#endif

#include <limits.h>
#include <mpi.h>
#include <stddef.h>
#include <stdlib.h>

/* SimGrid's SMPI (a build with smpicc, run by smpirun on a simulated platform,
   docs/simulation.md): SMPI's mpi.h includes smpi/smpi.h, which defines SMPI_H and the SMPI
   sampling macros; no other MPI defines them. Then computation is spent as simulated time
   (smpi_execute: the traced seconds, scaled by --compute-scale and by smpirun's
   smpi/host-speed over the platform host's speed), neither spun nor calibrated, and the process
   footprint (time before MPI_Init and after MPI_Finalize, resident memory) is not reproduced:
   the simulated machine's clock and memory are not this process's. */
#if defined(SMPI_H) && defined(SMPI_SAMPLE_DELAY) && defined(SMPI_SHARED_MALLOC)
#define TRACEGEN_SMPI 1
#else
#define TRACEGEN_SMPI 0
#endif

/* --- What the runtime needs to know of the trace ------------------------------------------ */

/* A datatype of the trace that is not predefined in MPI: set_up() makes it contiguous bytes of
   the traced size in the benchmark's variable, finish() frees it. */
struct tracegen_type {
  MPI_Datatype *handle;
  int bytes;
};

/* The trace, as the benchmark describes it to set_up(). A table of zero slots is one the trace
   does not use; its helpers must then not be called. */
struct tracegen_trace {
  int ranks;                       /* the benchmark runs on exactly as many */
  const char *source;              /* the trace file, for --help */
  long long largest_message_bytes; /* send_buf and recv_buf hold one message this large */
  int recv_slices;                 /* receives pending at once: recv_slice() cycles over this many */
  int request_ring;                /* requests: how far back the trace names them */
  int comm_slots;                  /* communicators the application created */
  int group_slots;                 /* groups the application created */
  int win_slots;                   /* one-sided windows */
  int file_slots;                  /* MPI-IO files */
  int user_op_slots;               /* user-defined reduction operators */
  int bsend_messages;              /* MPI_Bsend: the attached buffer holds this many messages */
  int type_count;
  const struct tracegen_type *types;
  /* The process around the MPI region, as recorded (reproduced unless --no-footprint): the
     application's own time before MPI_Init, from its libraries' initialisation (0: not
     recorded), and the resident memory the calling rank gained beyond its loaded program and
     libraries, at its peak, in KiB (NULL: not recorded). */
  double before_init_us;
  long long (*memory_kb)(void);
  /* The application's own time from MPI_Finalize to its exit, as rank 0 measured it (0: not
     recorded); every rank spends it after MPI_Finalize unless --no-footprint. */
  double after_finalize_us;
  /* Scale-free benchmarks (ranks 0): the process grid's dimensions (0: a fixed-scale
     benchmark), why the benchmark's formulas do not fit p ranks on the grid ext (NULL: they
     fit; else what they need), the benchmark's own set-up of the grid set_up() chose, and then
     the bytes of its largest message. */
  int grid_dims;
  int grid_descending; /* the balanced grid's longest extent first (x), else its smallest */
  const char *(*scale_problem)(int p, const int ext[3]);
  void (*place)(const int ext[3]);
  long long (*largest_message_bytes_now)(void);
};

/* --- The run: options, buffers, the measured region ------------------------------------- */

extern int rank;               /* in MPI_COMM_WORLD */
extern int nranks;             /* size of MPI_COMM_WORLD, the trace's ranks */
extern int grid_ext[3];        /* scale-free benchmarks: the process grid, x fastest */
extern double compute_percent; /* --compute-scale */
extern double msg_percent;     /* --msg-scale */

/* Message buffers, allocated once for the largest traced message scaled by --msg-scale: sends
   read send_buf, receives write recv_buf. Their contents do not matter. */
extern char *send_buf, *recv_buf;

/* A receive buffer of its own for a nonblocking receive (MPI_Irecv, MPI_Imrecv, MPI_Recv_init,
   a nonblocking collective's receive side): MPI forbids a receive buffer that overlaps the
   buffer of another pending operation, so these take one of recv_slices slices of one message
   each, after the one blocking receives write (recv_buf). Sends need none: pending sends may
   read the same buffer (MPI-3). */
char *recv_slice(void);
/* MPI_Irecv's: a slice bound to the request the same call makes, bind_slice(new_request()), so
   that it is free again once the request completes: a receive takes the first free slice, and a
   run writes as many slices as it has receives pending at once. */
char *recv_slice_bound(void);
MPI_Request *bind_slice(MPI_Request *request);

/* Before a call that sends what the application's receives wrote (`fromrecv` in the trace):
   send_buf and recv_buf change places, so that the call sends from the memory a receive last
   wrote. */
void swap_buffers(void);

/* After MPI_Init: parses the options (every rank the same command line, so every rank reaches
   the same verdict), checks the number of ranks, allocates the buffers and the tables, makes
   the trace's datatypes, attaches MPI_Bsend's buffer. */
void set_up(int argc, char **argv, const struct tracegen_trace *trace);

/* First thing in main(), before MPI_Init: notes the resident memory of the loaded program and
   spends the application's own time before MPI_Init (unless --no-footprint is among the
   arguments). */
void before_init(int argc, char **argv, const struct tracegen_trace *trace);

/* After MPI_Finalize: spends the application's own time between MPI_Finalize and its exit
   (unless --no-footprint). */
void after_finalize(const struct tracegen_trace *trace);

/* The end of the measured region, before MPI_Finalize: completes what the trace left open,
   releases what set_up() made, and rank 0 prints the computation replayed by the busiest and
   the least busy rank (`compute: ...`) and `elapsed: <s> s` of the slowest rank. */
void finish(double start_us);

/* --- Time: the clock and the computation ------------------------------------------------- */

/* Microseconds on the monotonic clock. */
double now_us(void);

/* The application's computation before a call: `us` traced microseconds scaled by
   --compute-scale, spent busy-waiting on the monotonic clock (under SMPI: simulated, see
   TRACEGEN_SMPI above). */
void compute(double us);

/* The computation before a call that sends `count` elements of `type` from send_buf: as
   compute(), but it first writes those bytes of send_buf, within its time (what the time does
   not allow is left unwritten), since the application's computation produced the data it sends.
   An MPI_Alltoall of data just written takes longer than one of a buffer left alone (fft at 2
   ranks: a benchmark that only spun ran 10-25% faster than the application, one that wrote its
   messages 0-15% faster). compute_sending_blocks(): one such message to every member of `comm`
   (MPI_Alltoall, MPI_Reduce_scatter_block). --no-produce makes both plain compute(). */
void compute_sending(double us, int count, MPI_Datatype type);
void compute_sending_blocks(double us, int count, MPI_Datatype type, MPI_Comm comm);

/* A computation that drifts over its calls (the first iteration slower, a phase that grows):
   the time of the range that holds this call, `us[i]` for the calls numbered from[i] up to
   from[i+1] - 1 (the last range open-ended), counting from 0 in *calls, which it advances. */
double by_call(long *calls, int n, const long *from, const double *us);

/* With --all-polls, the failed polls of an application's polling loop that the benchmark's
   loops have not made (`owed`, over this loop's executions so far: the application's count
   minus the benchmark's): when positive, that many polls that find nothing, each after `us` of
   computation, and 0 is returned; otherwise nothing, and `owed` (the benchmark's extra polls)
   is returned, to count against later executions. The polls probe a communicator of the
   runtime's own on which nothing is sent (PMPI: neither counted nor recorded), so each costs
   what a failed test does, the MPI library's progress included. Without --all-polls, nothing
   (0). */
long poll_idle(long owed, double us);

/* --- Message sizes ------------------------------------------------------------------------ */

/* A traced element count scaled by --msg-scale, rounded down, at least 0. Inline, as comm_of()
   and comm_rank() below: a benchmark of a code that calls MPI every microsecond (topo) spent
   1-2% of its run in calls to these helpers. msg_count_scaled(): any --msg-scale. */
int msg_count_scaled(long long count);
static inline int msg_count(long long count)
{
  if (msg_percent != 100)
    return msg_count_scaled(count);
  return count <= 0 ? 0 : count >= INT_MAX ? INT_MAX : (int)count;
}

/* Displacements that lay the blocks of a vector collective out one after the other, in
   elements (pack_displs) or, for MPI_Alltoallw, in bytes (pack_byte_displs). */
void pack_displs(int n, const int *counts, int *displs);
void pack_byte_displs(int n, const int *counts, const MPI_Datatype *types, int *displs);
/* Displacements in bytes as MPI_Aint (MPI_Neighbor_alltoallw, MPI_Ineighbor_alltoallw). */
void pack_aint_displs(int n, const int *counts, const MPI_Datatype *types, MPI_Aint *displs);
/* One count for every one of n peers, and the displacements that lay those blocks out one after
   the other: a scale-free benchmark's even split of counts that followed the application's data
   (MPI_Alltoallv). The runtime keeps the arrays (side 0 for sending, 1 for receiving), reused
   by the next call for the same side. */
int *even_counts(int side, int n, int count, int **displs);

/* --- Requests: the recency ring ----------------------------------------------------------- */

/* The slot for the request a request-creating call is about to make. */
MPI_Request *new_request(void);

/* The request of the rank's k-th most recent request-creating call (trace offset 10000 - k);
   recent_request(0) is MPI_REQUEST_NULL. */
MPI_Request *recent_request(int k);

/* The count and displacement arrays (which 0 to 3) and the datatype arrays (which 0 or 1) of
   a nonblocking vector collective, kept with its request's slot until the request completes;
   filled with `values` unless that is NULL. */
int *request_ints(const MPI_Request *slot, int which, int n, const int *values);
MPI_Datatype *request_types(const MPI_Request *slot, int which, int n, const MPI_Datatype *values);
/* The MPI_Aint displacement arrays of MPI_Ineighbor_alltoallw (n values, filled by the caller). */
MPI_Aint *request_aints(const MPI_Request *slot, int which, int n);

/* Waits and tests on several requests: the requests by recency into the call's array, and the
   results back into the ring. */
void take_requests(int n, const int *recency, MPI_Request *requests);
void put_back_requests(int n, const int *recency, const MPI_Request *requests);

/* Persistent requests: MPI_Start starts the request start_request(k) moves to a new slot;
   MPI_Startall takes its requests first and puts them, started, back in order. */
MPI_Request *start_request(int k);
void take_persistent_requests(int n, const int *recency, MPI_Request *requests);
void put_started_requests(int n, const MPI_Request *requests);

/* --- Matched probes ----------------------------------------------------------------------- */

/* MPI_Mprobe keeps its message in new_message(); MPI_Improbe fills next_message() and calls
   message_found() when it found one; MPI_Mrecv and MPI_Imrecv take oldest_message(). */
MPI_Message *new_message(void);
MPI_Message *next_message(void);
void message_found(void);
MPI_Message *oldest_message(void);

/* --- Reduction operators ------------------------------------------------------------------ */

/* User-defined operator k (the trace's 1000 + k), made on first use. */
MPI_Op user_op(int k);

/* --- Communicators and groups, by the trace's numbers ------------------------------------- */

MPI_Comm *new_comm(void);        /* the handle of the rank's next communicator */
MPI_Comm *new_comm_at(int id);   /* the handle for communicator `id` (0: none kept) */
MPI_Comm *comm_slot(int id);     /* communicator `id` (1000 and up) */
/* Communicator `id`, or a predefined one (0, 1, 2); a world rank's rank in communicator `id`
   (MPI_ANY_SOURCE and MPI_PROC_NULL pass through). Their common case is inline: a communicator
   of the table, and a rank comm_rank() has asked the library about before. The rest, and every
   error, is comm_of_any() and comm_rank_any(). */
extern MPI_Comm *comm_table; /* communicators 1000 and up, by slot (id - 1000 where it fits) */
extern int **comm_positions; /* by slot: world rank -> rank in the communicator, -1 outside;
                                NULL until comm_rank_any() asks the library */
extern int comm_slots;       /* the table's slots */
MPI_Comm comm_of_any(int id);
int comm_rank_any(int id, int world_rank);
static inline MPI_Comm comm_of(int id)
{
  return id >= 1000 && id - 1000 < comm_slots ? comm_table[id - 1000] : comm_of_any(id);
}
static inline int comm_rank(int id, int world_rank)
{
  if (id == 2 || world_rank == MPI_ANY_SOURCE || world_rank == MPI_PROC_NULL)
    return world_rank;
  if (id >= 1000 && id - 1000 < comm_slots && world_rank >= 0 && world_rank < nranks) {
    const int *positions = comm_positions[id - 1000];
    if (positions && positions[world_rank] >= 0)
      return positions[world_rank];
  }
  return comm_rank_any(id, world_rank);
}

MPI_Group *new_group(void);      /* the handle of the rank's next group */
MPI_Group *group_slot(int id);   /* group `id` (1000 and up) */
MPI_Group group_of(int id);      /* group `id`, MPI_GROUP_NULL below 1000 */

/* --- One-sided windows -------------------------------------------------------------------- */

extern void *win_base; /* MPI_Win_allocate's memory (the library's) */
MPI_Win *win_slot(int id);
MPI_Aint win_bytes(long long bytes);              /* a window's size under --msg-scale */
void *win_memory_for(int id, long long bytes);    /* MPI_Win_create's memory for window `id` */
void win_memory_release(int id);                  /* after MPI_Win_free */

/* --- MPI-IO files ------------------------------------------------------------------------- */

MPI_File *file_slot(int id);
const char *scratch_name(int id, MPI_Comm comm); /* the scratch file standing for file `id` */

#endif /* TRACEGEN_RUNTIME_H */
