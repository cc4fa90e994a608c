// The recorder's per-process state and the recording code shared by the C and Fortran
// wrappers.
//
// A wrapper opens a CallScope: it decides whether this call is recorded (the recorder is
// running, and the call is not made from inside another wrapper, e.g. by an MPI library's
// Fortran binding or by the recorder itself), captures the call site and the time since the
// rank's previous call returned (compute time). begin()/end() bracket the PMPI call (time inside
// MPI); afterwards the parameter helpers translate MPI handles into the trace model's values
// (communicator ids, datatype ids with exact sizes, relative-ready peers, request offsets) and
// commit() hands the call to the rank's LoopCompressor.
//
// Handles are numbered the way ScalaTrace numbers them, but recorded exactly: communicators
// 1000 + creation order (with their members as world ranks, so the trace's communicator table
// needs no guessing), groups 1000 + creation order (every call of MPI_Comm_group or a group
// constructor makes one, as the generated benchmark numbers them; 0 is MPI_GROUP_NULL),
// derived datatypes 1000 + first use (with their sizes), user reduction operators 1000 + first
// use, requests by recency (9999 = the latest request-creating call).
//
// At MPI_Finalize, Recorder::finish() runs the clustering and merge of record/Clustering.h over
// a private duplicate of MPI_COMM_WORLD and rank 0 writes the global trace.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <vector>

#include "ir/Ops.h"

namespace tracegen::record {

class Recorder;

// One request named by a completing call, identified before the call (completion frees the
// handle).
struct RequestPick {
  MPI_Request handle = MPI_REQUEST_NULL;
  std::int64_t index = -1;           // the request-creating call (rank's numbering), -1: none
  std::int64_t offset = kRequestNull;  // as the trace stores it, 9999 = the latest creation
};

class CallScope {
 public:
  explicit CallScope(Op op);
  ~CallScope();
  CallScope(const CallScope&) = delete;
  CallScope& operator=(const CallScope&) = delete;

  bool active() const { return active_; }
  void begin();   // just before the PMPI call
  void end();     // just after it; under MPI_THREAD_MULTIPLE holds the recorder's lock until commit()
  void commit();  // appends the call to the rank's trace

  // Parameters (between end() and commit()).
  void set(Param p, std::int64_t v);
  void comm(MPI_Comm c);
  void type(Param p, MPI_Datatype t);
  // True if t is a predefined type or a derived one already seen: a handle that is safe to
  // query even where the MPI standard lets the argument be undefined.
  bool knownType(MPI_Datatype t);
  void peer(Param p, int rank);
  void tag(Param p, int tag);
  void root(int r) { set(Param::Root, r); }
  void reduceOp(MPI_Op op);
  void counts(Param p, const int* values, int n);
  void types(Param p, const MPI_Datatype* values, int n);  // MPI_Alltoallw's per-peer datatypes
  void offsets(const std::int64_t* values, int n);  // Requests, with Count = n
  int commSize(MPI_Comm c);

  // Requests are known by handle and by the address of the variable that holds them: MPI
  // libraries may return one shared handle (Open MPI's ompi_request_empty) for every request
  // that completed at once, and the address tells those apart. pick() runs before the PMPI call;
  // `taken` lists the picks already made for the same call, so that equal handles in one array
  // name different requests.
  RequestPick pick(MPI_Request r, const void* where, const std::vector<RequestPick>& taken);
  void created(MPI_Request r, const void* where);  // a request-creating call returned r there
  void completed(const RequestPick& p);            // p's operation completed
  // Persistent requests (docs/recording.md, "Persistent requests"). persistentMade: an
  // MPI_Send_init/MPI_Recv_init (after created()) made r, a receive from `source` on `c` for
  // recv. persistentOffset: the offset naming r's latest creation (its init call or its latest
  // start), -1 if r is not a persistent request known to the recorder; take every offset of one
  // call before persistentStarted, which counts one request made per start (as created()).
  // freeRequest: MPI_Request_free is about to free r, held at `where`: the offset naming it.
  void persistentMade(MPI_Request r, bool recv, int source, MPI_Comm c);
  std::int64_t persistentOffset(MPI_Request r);
  void persistentStarted(MPI_Request r, const void* where);
  std::int64_t freeRequest(MPI_Request r, const void* where);
  // A request the recorder knows but does not track (MPI_Comm_idup's): a wait on it is
  // recorded as a wait on MPI_REQUEST_NULL, as on an untracked request, but without the warning
  // that some waits complete requests of calls the recorder does not intercept.
  void untrackedRequest(MPI_Request r);
  // Wildcard receives: an MPI_Irecv from MPI_ANY_SOURCE on `c` is about to be created (call
  // before created()); the offset (world source - world rank + P) mod P of the sender a
  // completed request matched, from its status, or -1 if p was no wildcard receive (and, for
  // blocking receives, of `source` on `c`). Recorded as Param::Matched: the recorded order.
  void wildcardPosted(MPI_Comm c);
  std::int64_t wildcardMatched(const RequestPick& p, const MPI_Status& status);
  std::int64_t matchedOffset(MPI_Comm c, int source);
  void matched(const std::vector<std::int64_t>& offsets);  // sets Param::Matched if any is known
  // How many requests (not MPI_REQUEST_NULL) the completing call completed. A test that
  // completed none is a failed poll: commit() folds it into the next successful call of the same
  // test at the same call site (Param::Failed) instead of recording it, so that a polling loop
  // of millions of calls costs one value per success; polls no success follows are recorded
  // at MPI_Finalize.
  void completions(std::size_t n) { completions_ = static_cast<std::int64_t>(n); }
  // A test (or MPI_Improbe): a call that completes nothing is a failed poll, counted and not
  // recorded, so its parameters need not be set (hpcc makes millions).
  bool isPoll() const { return test_; }
  // The call's send and receive buffers (nullptr where it has none): a blocking call that
  // sends from a buffer one of the rank's latest blocking receives wrote is counted for its
  // site (Param::FromReceived at MPI_Finalize, docs/trace-format.md `fromrecv`), and a blocking
  // receive's buffer joins those latest ones.
  void buffers(const void* sent, const void* received);
  // Communicators made or freed by the call.
  std::int64_t newComm(MPI_Comm c, const char* kind);  // 0 for MPI_COMM_NULL
  // A communicator whose members and order are those of `parent` (MPI_Comm_idup: the new one
  // may not be queried before its request completes).
  std::int64_t newCommLike(MPI_Comm c, MPI_Comm parent, const char* kind);
  // The id of a communicator MPI_Comm_free has just freed (by its old handle); -1 if unknown.
  std::int64_t freedComm(MPI_Comm old);
  std::int64_t commId(MPI_Comm c);
  // Groups: a call has just made group g (it takes the next id; the trace does not store it,
  // the order of the calls does); the id of a group passed to a call (0 for MPI_GROUP_NULL
  // and for groups no intercepted call made, which rank 0 reports); the id of the group
  // MPI_Group_free has just freed (by its old handle).
  void newGroup(MPI_Group g);
  std::int64_t groupId(MPI_Group g);
  std::int64_t freedGroup(MPI_Group old);

 private:
  Recorder* rec_ = nullptr;
  Op op_;
  bool test_;  // a test (or MPI_Improbe): its failed polls are counted, not recorded
  bool active_ = false;
  bool nested_ = false;
  bool own_ = false;  // inside an OwnMemoryScope (record/OwnMemory.h) but for the PMPI call
  std::uint32_t site_ = 0;
  double entry_ = 0;        // wall clock at the wrapper's entry, before the call-site capture (us)
  double t0_ = 0, t1_ = 0;  // wall clock around the PMPI call (us)
  double compute_ = 0;      // since the rank's previous recorded call returned (wall or CPU time)
  std::int64_t completions_ = -1;  // -1: not a completing call
  std::unique_lock<std::mutex> lock_;  // held from end() to commit() under MPI_THREAD_MULTIPLE only
};

// The time since the recorder's library was initialised (once the program and its libraries
// were loaded), in microseconds; negative where unknown. The MPI_Init wrappers take it on entry:
// the application's own start-up before MPI_Init, which a benchmark reproduces.
double timeSinceLoadUs();
// MPI_Init / MPI_Init_thread returned: start recording (records the Init event); `beforeInitUs`
// is timeSinceLoadUs() when MPI_Init was entered.
void recorderStart(Op initOp, double beforeInitUs);
// MPI_Finalize is being called: record it, merge and write the trace. Call before PMPI_Finalize.
void recorderFinish();
// PMPI_Finalize returned: from here to the process's exit is the application's own time after
// MPI_Finalize, which rank 0 appends to the trace it wrote (`footprint after-finalize-us`) from
// the library's destructor.
void recorderFinalized();
// True while inside a wrapper on this thread (nested MPI calls are not recorded).
bool insideWrapper();

// RAII: marks the thread as inside a wrapper (Init and Finalize, which do not use CallScope).
class WrapperDepth {
 public:
  WrapperDepth();
  ~WrapperDepth();
  bool nested() const { return nested_; }

 private:
  bool nested_;
};

}  // namespace tracegen::record
