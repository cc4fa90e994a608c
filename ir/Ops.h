// MPI operations and event parameters known to the trace model.
//
// One table describes every operation: its MPI name (the spelling used in tracegen's text
// format and in reports), its ScalaTrace 2 opcode, and its kind, which is what the cursor,
// the passes and the backends dispatch on.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace tracegen {

enum class OpKind {
  Init,        // MPI_Init, MPI_Init_thread
  Finalize,
  Send,        // blocking point-to-point send (Send, Ssend, Rsend, Bsend)
  Recv,        // blocking receive
  Isend,       // nonblocking send that creates a request
  Irecv,       // nonblocking receive that creates a request
  SendInit,    // persistent send request
  RecvInit,    // persistent receive request
  Sendrecv,    // Sendrecv, Sendrecv_replace
  Probe,       // Probe, Iprobe
  Wait,        // Wait, Test: one request
  WaitAll,     // Waitall, Testall, Waitany, Waitsome, Testany, Testsome: a request vector
  Collective,  // Barrier, Bcast, reductions, gathers, scatters, all-to-alls, Scan, Exscan, Reduce_scatter_block
  CommCreate,  // Comm_split, Comm_dup, Comm_create
  CommFree,
  Group,       // Comm_group and Group_* (local, no communication)
  // Persistent requests (docs/trace-format.md, "Persistent requests"): MPI_Start and
  // MPI_Startall activate requests MPI_Send_init/MPI_Recv_init made (`request`, `requests`: the
  // recency offsets of the waits); each activation is a request-creating step that moves the
  // init call's message. MPI_Request_free releases a request (`request`).
  Start,        // MPI_Start, MPI_Startall
  RequestFree,  // MPI_Request_free
  // Matched probes (docs/trace-format.md, "Matched probes"): MPI_Mprobe and MPI_Improbe probe as
  // MPI_Probe does and take the message they find out of matching; MPI_Mrecv and MPI_Imrecv
  // (which returns a request) receive the oldest message the rank probed and has not received.
  MatchedProbe,  // MPI_Mprobe, MPI_Improbe
  MatchedRecv,   // MPI_Mrecv, MPI_Imrecv
  // Calls the recorder records (name, communicator, call site) but tracegen does not model:
  // one-sided, MPI-IO, dynamic processes, and the MPI-3 operations not
  // modelled yet. Generation stops at them, or with --skip-unknown leaves a comment.
  Opaque,
  OpaqueRequest,  // an opaque call that returns a request (waited for by the usual calls)
  // ---- one-sided communication (docs/trace-format.md, "One-sided communication")
  WinCollective,  // Win_create, Win_allocate, Win_free, Win_fence: collective over the window's communicator
  Rma,            // Put, Get, Accumulate: the origin's transfer to or from a target's window
  WinPassive,     // Win_lock/unlock(_all), Win_flush(_all, _local): passive target, local to the caller
  // ---- MPI-IO (docs/trace-format.md, "MPI-IO")
  FileCollective,  // File_open, File_close, File_read/write(_at)_all: collective over the file's communicator
  FileIo,          // File_read, File_write, File_read_at, File_write_at: independent, local to the caller
  // A nonblocking collective (MPI_Ibarrier ... MPI_Iexscan): a collective that returns a
  // request, completed by the usual waits and tests. It takes its place in the collective order
  // of its communicator at the initiating call (MPI orders blocking and nonblocking collectives
  // of one communicator by the call that starts them); its parameters and bytes are the
  // blocking form's (blockingForm).
  ICollective,
};

// What a collective carries (ir/Ops.def's last column): a root, a reduction operator, both, or
// (a neighbourhood collective) blocks to and from the rank's topology neighbours.
enum class OpTraits : std::uint8_t { None = 0, Rooted = 1, Reduction = 2, RootedReduction = 3, Neighbor = 4 };

enum class Op : std::uint8_t {
#define TRACEGEN_OP(name, mpi, code, kind, blocking, traits) name,
#include "ir/Ops.def"
#undef TRACEGEN_OP
  Count_
};

struct OpInfo {
  Op op;
  std::string_view mpiName;  // "MPI_Send"
  int scalaTraceCode;        // 0 if ScalaTrace 2 has no code for it
  OpKind kind;
  Op blocking;      // the blocking collective a nonblocking one starts; op otherwise
  OpTraits traits;  // a nonblocking collective's are its blocking form's (see isRooted)
};

const OpInfo& opInfo(Op op);
std::string_view opName(Op op);
std::optional<Op> opFromName(std::string_view mpiName);
std::optional<Op> opFromScalaTraceCode(int code);

inline bool isPointToPoint(OpKind k) {
  return k == OpKind::Send || k == OpKind::Recv || k == OpKind::Isend || k == OpKind::Irecv ||
         k == OpKind::Sendrecv;
}
inline bool createsRequest(OpKind k) {
  return k == OpKind::Isend || k == OpKind::Irecv || k == OpKind::SendInit || k == OpKind::RecvInit ||
         k == OpKind::OpaqueRequest || k == OpKind::ICollective;
}
// Blocking and nonblocking collectives alike: the calls that take part in a communicator's
// collective order.
inline bool isCollective(OpKind k) { return k == OpKind::Collective || k == OpKind::ICollective; }
// The blocking collective a nonblocking one starts (MPI_Ibcast: MPI_Bcast); the op itself for
// every other operation.
Op blockingForm(Op op);
inline bool isOpaque(OpKind k) { return k == OpKind::Opaque || k == OpKind::OpaqueRequest; }
// Collectives with a root parameter.
bool isRooted(Op op);
// Collectives that carry a reduction operator.
bool isReduction(Op op);
// The neighbourhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*): collectives of a topology
// communicator whose blocks go to the rank's destinations and come from its sources
// (docs/trace-format.md, "Neighbourhood collectives").
bool isNeighborCollective(Op op);

// Event parameters. The text format spells them as `name()` returns.
enum class Param : std::uint8_t {
  Comm,        // communicator id (see Trace::comms)
  Count,       // element count (Waitall: number of requests)
  Datatype,    // datatype id (see Trace::datatypes)
  RecvCount,
  RecvType,
  ReduceOp,    // reduction operator, ScalaTrace numbering (3 = MPI_SUM)
  Root,        // absolute, communicator numbering (world numbering after resolution)
  Dest,        // kProcNull for MPI_PROC_NULL
  Source,      // kAnySource for MPI_ANY_SOURCE, kProcNull for MPI_PROC_NULL
  Tag,
  RecvTag,
  Request,     // request offset: 9999 = most recent request-creating call, -1 = MPI_REQUEST_NULL
  Requests,    // vector of Count request offsets
  RecvCounts,  // vector, one per communicator member
  Displs,      // vector
  SendCounts,  // vector
  RecvDispls,  // vector
  Color,
  Key,
  NewComm,     // id of the communicator a CommCreate event creates
  Group,
  GroupRanks,   // vector of Count ranks (Group_incl/excl)
  GroupRanges,  // vector of 3*Count integers (Group_range_incl/excl)
  Group1,
  Group2,
  // Where the recorder saw it: the sender each wildcard receive actually matched
  // (status.MPI_SOURCE), one value per receive a call completed (MPI_Recv and MPI_Sendrecv: one;
  // waits and tests: one per completed request, -1 for a request that was no wildcard receive),
  // as the offset (world source - world rank + P) mod P. The "recorded order" a simulation
  // falls back on when its search for a matching runs out of budget.
  Matched,
  // On MPI_Test, Testany, Testall, Testsome: the failed polls (calls of this test at this call
  // site that completed nothing) the recorder folded into this event instead of recording each:
  // the event stands for that many calls more. 0 or absent: just itself.
  Failed,
  // ---- topology constructors. Vectors of `count` values (MPI_Cart_create, MPI_Cart_sub: the
  // number of dimensions; MPI_Graph_create: nodes; the distributed graphs: sources) or of
  // `recvcount` values (edges, destinations).
  Dims,          // MPI_Cart_create: extent of each dimension
  Periods,       // MPI_Cart_create: 1 where the dimension is periodic
  Reorder,       // 1 if the library may renumber the ranks
  RemainDims,    // MPI_Cart_sub: 1 where the dimension is kept
  Index,         // MPI_Graph_create: cumulative degrees
  Edges,         // MPI_Graph_create: neighbours, `recvcount` of them
  Sources,       // distributed graphs: source ranks
  Degrees,       // MPI_Dist_graph_create: out-degree of each source
  Destinations,  // distributed graphs: destination ranks, `recvcount` of them
  // ---- one-sided communication: windows are numbered per rank, 1000 + creation order; their
  // events carry the window's communicator as `comm` and the target rank as `dest`.
  Win,       // window id
  WinSize,   // MPI_Win_create, MPI_Win_allocate: bytes of the caller's window memory
  DispUnit,  // MPI_Win_create, MPI_Win_allocate: displacement unit in bytes
  LockType,  // MPI_Win_lock: 1 exclusive, 2 shared
  Assert,    // MPI_Win_fence, MPI_Win_lock, MPI_Win_lock_all: bits 1 nocheck, 2 nostore, 4 noput, 8 noprecede, 16 nosucceed
  // ---- MPI-IO: files are numbered per rank, 1000 + the order of MPI_File_open; their events
  // carry the file's communicator as `comm`.
  File,    // file id
  Offset,  // the _at calls: offset in the view's elementary type (bytes under the default view)
  // ---- MPI_Alltoallw: the datatype of each peer's block (ids, as Datatype), one per
  // communicator member, beside `sendcounts` and `recvcounts`.
  SendTypes,
  RecvTypes,
  // Where the recorder saw it: 1 on the blocking calls of a site where most sent from the
  // buffer one of the rank's recent blocking receives wrote (the application sends what it
  // received, or swaps two arrays, as an FFT's transposes do). A benchmark swaps its send and receive buffers
  // before such a call, so that it too sends from memory a receive has just written.
  FromReceived,
  Count_
};

std::string_view paramName(Param p);
std::optional<Param> paramFromName(std::string_view name);
// True for parameters that take one value per communicator member or per request.
bool isVectorParam(Param p);
// Parameters whose values are datatype ids (written as datatype names): Datatype, RecvType,
// and the vectors SendTypes and RecvTypes of MPI_Alltoallw.
inline bool isDatatypeParam(Param p) {
  return p == Param::Datatype || p == Param::RecvType || p == Param::SendTypes || p == Param::RecvTypes;
}
// The vectors of the topology constructors (Dims ... Destinations).
bool topologyVectorParam(Param p);
// Whether vector parameter p of neighbourhood collective op has one value per destination
// (out-degree: the send side of the v and w forms); the others have one per source.
bool neighborOutVector(Op op, Param p);
// Dest, Source and Key may be stored as offsets from the calling rank.
inline bool isPeerParam(Param p) { return p == Param::Dest || p == Param::Source || p == Param::Key; }

constexpr std::int64_t kAnySource = -2;      // MPI_ANY_SOURCE
// MPI_PROC_NULL as a Dest or Source value: the call completes at once without a partner and
// moves no data. Always an absolute value (no offset from the rank can name it).
constexpr std::int64_t kProcNull = -3;
constexpr std::int64_t kRequestNull = -1;     // MPI_REQUEST_NULL in a request offset
constexpr std::int64_t kLatestRequest = 9999; // ScalaTrace's offset of the most recent request
constexpr std::int64_t kRequestRing = 10000;

// Reduction operators in ScalaTrace's numbering (§10.3).
std::string_view reduceOpName(std::int64_t op);
std::optional<std::int64_t> reduceOpFromName(std::string_view name);

}  // namespace tracegen
