// The handlers Intercept.def's rows name: what each intercepted call records. A handler gets
// the call's arguments as C values (Intercept.h), in the order of the row's parameters, the same
// from the C and the Fortran entry points: `before` (optional) just before the timed PMPI call,
// for what the call frees or overwrites (request picks, old handles); `after` once it returned.
// One handler object serves one call, so `before` can leave state for `after`. The recording
// itself is the shared code of Calls.h, OneSided.h and FileIo.h.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <tuple>
#include <utility>
#include <vector>

#include "record/Calls.h"
#include "record/FileIo.h"
#include "record/Intercept.h"
#include "record/OneSided.h"
#include "record/Recorder.h"

namespace tracegen::record::handlers {

using intercept::Indices;
using intercept::NewRequest;
using intercept::Requests;
using intercept::TypeList;
using intercept::Unread;

// The default: nothing to note before the call (and no argument looked at: an output one may
// not be set yet). A handler with a `before` of its own says so with kBefore.
struct Handler {
  static constexpr bool kBefore = false;
  void before(CallScope&, const auto&...) {}
};

// Request picks kept between calls, so that a completing call allocates nothing once they have
// grown to its request count. Initial-exec: the library is preloaded, and an access then costs
// no __tls_get_addr call.
inline std::vector<RequestPick>& picks() {
  thread_local std::vector<RequestPick> p __attribute__((tls_model("initial-exec")));
  return p;
}

// ---- point to point

struct Send : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
    calls::p2p(s, Param::Dest, count, type, dest, tag, comm);
  }
};

// A blocking receive: from MPI_ANY_SOURCE, the sender it matched (Calls.h receivedFrom).
struct Recv : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             const MPI_Status* status) {
    calls::p2p(s, Param::Source, count, type, source, tag, comm);
    calls::receivedFrom(s, source, comm, status);
  }
};

// A wildcard MPI_Irecv is noted before its request is, so that the wait completing it records
// the sender.
struct Irecv : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             NewRequest req) {
    calls::p2p(s, Param::Source, count, type, source, tag, comm);
    if (source == MPI_ANY_SOURCE) s.wildcardPosted(comm);
    s.created(req.handle, req.where);
  }
};

struct Sendrecv : Handler {
  void after(CallScope& s, const void*, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, const void*,
             int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, const MPI_Status* status) {
    calls::sendrecv(s, sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag, comm);
    calls::receivedFrom(s, source, comm, status);
  }
};

struct SendrecvReplace : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
             MPI_Comm comm, const MPI_Status* status) {
    calls::sendrecvReplace(s, count, type, dest, sendtag, source, recvtag, comm);
    calls::receivedFrom(s, source, comm, status);
  }
};

struct Probe : Handler {
  void after(CallScope& s, int source, int tag, MPI_Comm comm, Unread) { calls::probe(s, source, tag, comm); }
};
struct Iprobe : Handler {
  void after(CallScope& s, int source, int tag, MPI_Comm comm, int, Unread) { calls::probe(s, source, tag, comm); }
};

// The nonblocking form of H: H's parameters followed by the request the call creates.
template <class H>
struct Nonblocking : H {
  template <class... A>
  void after(CallScope& s, const A&... a) {
    const auto args = std::tie(a...);
    constexpr std::size_t n = sizeof...(A) - 1;
    blocking(s, args, std::make_index_sequence<n>{});
    const NewRequest& req = std::get<n>(args);
    s.created(req.handle, req.where);
  }

 private:
  template <class Args, std::size_t... I>
  void blocking(CallScope& s, const Args& args, std::index_sequence<I...>) {
    H::after(s, std::get<I>(args)...);
  }
};

// ---- completion: the requests are picked before the call frees them.

struct Wait : Handler {
  static constexpr bool kBefore = true;
  RequestPick pick;
  void before(CallScope& s, const Requests& req, const auto&...) { pick = s.pick(req.handles[0], req.at(0), {}); }
  void after(CallScope& s, const Requests&, const MPI_Status* status) { calls::completeOne(s, pick, true, status); }
};
struct Test : Wait {
  void after(CallScope& s, const Requests&, int flag, const MPI_Status* status) {
    calls::completeOne(s, pick, flag != 0, status);
  }
};

struct CompleteMany : Handler {
  static constexpr bool kBefore = true;
  void before(CallScope& s, int, const Requests& reqs, const auto&...) { calls::pickAll(s, reqs, picks()); }
};
struct Waitall : CompleteMany {
  void after(CallScope& s, int, const Requests&, const MPI_Status* statuses) {
    calls::completeAll(s, picks(), true, statuses);
  }
};
struct Testall : CompleteMany {
  void after(CallScope& s, int, const Requests&, int flag, const MPI_Status* statuses) {
    calls::completeAll(s, picks(), flag != 0, statuses);
  }
};
struct Waitany : CompleteMany {
  void after(CallScope& s, int, const Requests&, int index, const MPI_Status* status) {
    calls::completeSome(s, picks(), Indices{&index, 0}, index == MPI_UNDEFINED ? 0 : 1, status);
  }
};
struct Testany : CompleteMany {
  void after(CallScope& s, int, const Requests&, int index, int flag, const MPI_Status* status) {
    calls::completeSome(s, picks(), Indices{&index, 0}, (flag != 0 && index != MPI_UNDEFINED) ? 1 : 0, status);
  }
};
struct Waitsome : CompleteMany {
  void after(CallScope& s, int, const Requests&, int outcount, const Indices& indices, const MPI_Status* statuses) {
    calls::completeSome(s, picks(), indices, outcount == MPI_UNDEFINED ? 0 : outcount, statuses);
  }
};

// ---- collectives

struct Barrier : Handler {
  void after(CallScope& s, MPI_Comm comm) { calls::barrier(s, comm); }
};
struct Bcast : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    calls::bcast(s, count, type, root, comm);
  }
};
struct Reduce : Handler {
  void after(CallScope& s, const void*, const void*, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
    calls::reduce(s, count, type, op, comm);
    s.root(root);
  }
};
// MPI_Allreduce, MPI_Scan, MPI_Exscan, MPI_Reduce_scatter_block (count: each member's block).
struct Reduction : Handler {
  void after(CallScope& s, const void*, const void*, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    calls::reduce(s, count, type, op, comm);
  }
};
struct ReduceScatter : Handler {
  void after(CallScope& s, const void*, const void*, const int* recvcounts, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm) {
    calls::reduceScatter(s, recvcounts, type, op, comm);
  }
};
struct Gather : Handler {
  void after(CallScope& s, const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void*, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm) {
    calls::gather(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, root, comm);
  }
};
struct Gatherv : Handler {
  void after(CallScope& s, const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void*,
             const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    calls::gatherv(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, displs, recvtype, root, comm);
  }
};
struct Scatter : Handler {
  void after(CallScope& s, const void*, int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount,
             MPI_Datatype recvtype, int root, MPI_Comm comm) {
    calls::scatter(s, sendcount, sendtype, recvbuf == MPI_IN_PLACE, recvcount, recvtype, root, comm);
  }
};
struct Scatterv : Handler {
  void after(CallScope& s, const void*, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
             const void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
    calls::scatterv(s, sendcounts, displs, sendtype, recvbuf == MPI_IN_PLACE, recvcount, recvtype, root, comm);
  }
};
// MPI_Allgather and MPI_Alltoall.
struct AllToAll : Handler {
  void after(CallScope& s, const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void*, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm) {
    calls::allToAll(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  }
};
struct Allgatherv : Handler {
  void after(CallScope& s, const void* sendbuf, int sendcount, MPI_Datatype sendtype, const void*,
             const int* recvcounts, const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
    calls::allgatherv(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, displs, recvtype, comm);
  }
};
struct Alltoallv : Handler {
  void after(CallScope& s, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
             const void*, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
    calls::alltoallv(s, sendbuf == MPI_IN_PLACE, sendcounts, sdispls, sendtype, recvcounts, rdispls, recvtype, comm);
  }
};
struct Alltoallw : Handler {
  void after(CallScope& s, const void* sendbuf, const int* sendcounts, const int*, const TypeList& sendtypes,
             const void*, const int* recvcounts, const int*, const TypeList& recvtypes, MPI_Comm comm) {
    const int n = s.commSize(comm);
    const bool inPlace = sendbuf == MPI_IN_PLACE;
    calls::alltoallw(s, inPlace, sendcounts, inPlace ? nullptr : sendtypes.get(n), recvcounts, recvtypes.get(n),
                     comm);
  }
};

// ---- neighbourhood collectives

// MPI_Neighbor_allgather and MPI_Neighbor_alltoall.
struct NeighborAllToAll : Handler {
  void after(CallScope& s, const void*, int sendcount, MPI_Datatype sendtype, const void*, int recvcount,
             MPI_Datatype recvtype, MPI_Comm comm) {
    calls::neighborAllToAll(s, sendcount, sendtype, recvcount, recvtype, comm);
  }
};
struct NeighborAllgatherv : Handler {
  void after(CallScope& s, const void*, int sendcount, MPI_Datatype sendtype, const void*, const int* recvcounts,
             const int*, MPI_Datatype recvtype, MPI_Comm comm) {
    calls::neighborAllgatherv(s, sendcount, sendtype, recvcounts, recvtype, comm);
  }
};
struct NeighborAlltoallv : Handler {
  void after(CallScope& s, const void*, const int* sendcounts, const int*, MPI_Datatype sendtype, const void*,
             const int* recvcounts, const int*, MPI_Datatype recvtype, MPI_Comm comm) {
    calls::neighborAlltoallv(s, sendcounts, sendtype, recvcounts, recvtype, comm);
  }
};
struct NeighborAlltoallw : Handler {
  void after(CallScope& s, const void*, const int* sendcounts, Unread, const TypeList& sendtypes, const void*,
             const int* recvcounts, Unread, const TypeList& recvtypes, MPI_Comm comm) {
    int in = 0, out = 0;
    calls::neighborDegrees(comm, in, out);
    calls::neighborAlltoallw(s, sendcounts, sendtypes.get(out), recvcounts, recvtypes.get(in), comm);
  }
};

// ---- communicators and groups

struct CommSplit : Handler {
  void after(CallScope& s, MPI_Comm comm, int color, int key, MPI_Comm newcomm) {
    calls::commSplit(s, comm, color, key, newcomm);
  }
};
struct CommDup : Handler {
  void after(CallScope& s, MPI_Comm comm, MPI_Comm newcomm) { calls::commCopy(s, comm, newcomm, "dup"); }
};
struct CommCreate : Handler {
  void after(CallScope& s, MPI_Comm comm, MPI_Group group, MPI_Comm newcomm) {
    calls::commCreate(s, comm, group, newcomm);
  }
};
// A call that frees the handle it is given (and sets it to the null handle): the handle is
// noted before the call, and `freed` records it after.
template <class Handle, auto freed>
struct Frees : Handler {
  static constexpr bool kBefore = true;
  Handle old{};
  void before(CallScope&, Handle handle) { old = handle; }
  void after(CallScope& s, Handle) { freed(s, old); }
};
inline void commFreed(CallScope& s, MPI_Comm old) { s.set(Param::Comm, s.freedComm(old)); }
inline void groupFreed(CallScope& s, MPI_Group old) { s.set(Param::Group, s.freedGroup(old)); }
using CommFree = Frees<MPI_Comm, commFreed>;
using GroupFree = Frees<MPI_Group, groupFreed>;
using WinFree = Frees<MPI_Win, onesided::freed>;
using FileClose = Frees<MPI_File, fileio::closed>;

struct CommGroup : Handler {
  void after(CallScope& s, MPI_Comm comm, MPI_Group group) { calls::commGroup(s, comm, group); }
};
// MPI_Group_incl and _excl (`width` 1: ranks), MPI_Group_range_incl and _excl (3: triples).
template <Param list, int width>
struct GroupSubset : Handler {
  void after(CallScope& s, MPI_Group group, int n, const int* values, MPI_Group newgroup) {
    calls::groupSubset(s, list, group, n, values, width, newgroup);
  }
};
// (Intercept.def's rows name them without a comma, which would split a macro argument.)
using GroupRanks = GroupSubset<Param::GroupRanks, 1>;
using GroupRanges = GroupSubset<Param::GroupRanges, 3>;
struct GroupPair : Handler {
  void after(CallScope& s, MPI_Group group1, MPI_Group group2, MPI_Group newgroup) {
    calls::groupPair(s, group1, group2, newgroup);
  }
};

// ---- topology constructors (and MPI-3's other communicator constructors)

struct CartCreate : Handler {
  void after(CallScope& s, MPI_Comm comm, int ndims, const int* dims, const int* periods, int reorder,
             MPI_Comm newcomm) {
    calls::cartCreate(s, comm, ndims, dims, periods, reorder, newcomm);
  }
};
struct CartSub : Handler {
  void after(CallScope& s, MPI_Comm comm, const int* remain, MPI_Comm newcomm) {
    calls::cartSub(s, comm, remain, newcomm);
  }
};
struct GraphCreate : Handler {
  void after(CallScope& s, MPI_Comm comm, int nnodes, const int* index, const int* edges, int reorder,
             MPI_Comm newcomm) {
    calls::graphCreate(s, comm, nnodes, index, edges, reorder, newcomm);
  }
};
struct DistGraphCreateAdjacent : Handler {
  void after(CallScope& s, MPI_Comm comm, int indegree, const int* sources, const int*, int outdegree,
             const int* destinations, const int*, Unread, int reorder, MPI_Comm newcomm) {
    calls::distGraphAdjacent(s, comm, indegree, sources, outdegree, destinations, reorder, newcomm);
  }
};
struct DistGraphCreate : Handler {
  void after(CallScope& s, MPI_Comm comm, int n, const int* sources, const int* degrees, const int* destinations,
             const int*, Unread, int reorder, MPI_Comm newcomm) {
    calls::distGraph(s, comm, n, sources, degrees, destinations, reorder, newcomm);
  }
};
struct CommSplitType : Handler {
  void after(CallScope& s, MPI_Comm comm, int type, int key, Unread, MPI_Comm newcomm) {
    calls::commSplitType(s, comm, type, key, newcomm);
  }
};
struct CommCreateGroup : Handler {
  void after(CallScope& s, MPI_Comm comm, MPI_Group group, int tag, MPI_Comm newcomm) {
    calls::commCreateGroup(s, comm, group, tag, newcomm);
  }
};
// The new communicator is usable once the request completes, but its handle is valid (and its
// members known) at once. The request is not tracked: a wait on it is recorded as a wait on
// MPI_REQUEST_NULL (without the unknown-request warning), and the benchmark completes its
// MPI_Comm_idup at once.
struct CommIdup : Handler {
  void after(CallScope& s, MPI_Comm comm, MPI_Comm newcomm, NewRequest req) {
    s.comm(comm);
    s.set(Param::NewComm, s.newCommLike(newcomm, comm, "idup"));
    s.untrackedRequest(req.handle);
  }
};

// ---- persistent requests

struct SendInit : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
             NewRequest req) {
    calls::p2p(s, Param::Dest, count, type, dest, tag, comm);
    calls::persistentInit(s, req.handle, req.where, false, dest, comm);
  }
};
struct RecvInit : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             NewRequest req) {
    calls::p2p(s, Param::Source, count, type, source, tag, comm);
    calls::persistentInit(s, req.handle, req.where, true, source, comm);
  }
};
// MPI_Start: the request as the call found it (a start leaves a persistent handle as it is).
struct Start : Handler {
  void after(CallScope& s, const Requests& req) { calls::start(s, req, false); }
};
struct Startall : Handler {
  void after(CallScope& s, int, const Requests& reqs) { calls::start(s, reqs, true); }
};
// The handle the call frees (MPI_REQUEST_NULL once freed).
struct RequestFree : Handler {
  static constexpr bool kBefore = true;
  MPI_Request handle = MPI_REQUEST_NULL;
  void before(CallScope&, const Requests& req) { handle = req.handles[0]; }
  void after(CallScope& s, const Requests& req) { s.set(Param::Request, s.freeRequest(handle, req.at(0))); }
};

// ---- matched probes

struct Mprobe : Handler {
  void after(CallScope& s, int source, int tag, MPI_Comm comm, Unread, const MPI_Status* status) {
    calls::matchedProbe(s, Op::Mprobe, source, tag, comm, true, status);
  }
};
struct Improbe : Handler {
  void after(CallScope& s, int source, int tag, MPI_Comm comm, int flag, Unread, const MPI_Status* status) {
    calls::matchedProbe(s, Op::Improbe, source, tag, comm, flag != 0, flag != 0 ? status : nullptr);
  }
};
struct Mrecv : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, Unread, Unread) {
    calls::matchedRecv(s, count, type);
  }
};
struct Imrecv : Handler {
  void after(CallScope& s, const void*, int count, MPI_Datatype type, Unread, NewRequest req) {
    calls::matchedRecv(s, count, type);
    s.created(req.handle, req.where);
  }
};

// ---- one-sided communication (OneSided.h)

struct WinCreate : Handler {
  void after(CallScope& s, const void*, MPI_Aint size, int unit, Unread, MPI_Comm comm, MPI_Win win) {
    onesided::createdWithMemory(s, win, comm, size, unit);
  }
};
struct WinAllocate : Handler {
  void after(CallScope& s, MPI_Aint size, int unit, Unread, MPI_Comm comm, const void*, MPI_Win win) {
    onesided::createdWithMemory(s, win, comm, size, unit);
  }
};
// Opaque, but its window takes an id as the others do.
struct WinAllocateShared : Handler {
  void after(CallScope& s, MPI_Aint, int, Unread, MPI_Comm comm, const void*, MPI_Win win) {
    onesided::created(s, win, comm);
  }
};
struct WinCreateDynamic : Handler {
  void after(CallScope& s, Unread, MPI_Comm comm, MPI_Win win) { onesided::created(s, win, comm); }
};
// MPI_Win_fence, MPI_Win_lock_all: an assertion.
struct WinAssert : Handler {
  void after(CallScope& s, int assertion, MPI_Win win) {
    onesided::on(s, win);
    onesided::assertion(s, assertion);
  }
};
struct WinLock : Handler {
  void after(CallScope& s, int type, int rank, int assertion, MPI_Win win) {
    onesided::lock(s, type, rank, assertion, win);
  }
};
// MPI_Win_unlock, MPI_Win_flush, MPI_Win_flush_local: a target.
struct WinTarget : Handler {
  void after(CallScope& s, int rank, MPI_Win win) {
    onesided::on(s, win);
    s.peer(Param::Dest, rank);
  }
};
// MPI_Win_unlock_all, MPI_Win_flush_all.
struct WinAll : Handler {
  void after(CallScope& s, MPI_Win win) { onesided::on(s, win); }
};
// MPI_Put, MPI_Get.
struct Rma : Handler {
  void after(CallScope& s, const void*, int oc, MPI_Datatype ot, int rank, MPI_Aint, int tc, MPI_Datatype tt,
             MPI_Win win) {
    onesided::transfer(s, oc, ot, rank, tc, tt, win);
  }
};
struct Accumulate : Handler {
  void after(CallScope& s, const void*, int oc, MPI_Datatype ot, int rank, MPI_Aint, int tc, MPI_Datatype tt,
             MPI_Op op, MPI_Win win) {
    onesided::transfer(s, oc, ot, rank, tc, tt, win);
    s.reduceOp(op);
  }
};

// ---- MPI-IO (FileIo.h)

struct FileOpen : Handler {
  void after(CallScope& s, MPI_Comm comm, const char*, int, Unread, MPI_File fh) { fileio::opened(s, fh, comm); }
};
// MPI_File_read, _write, _read_all, _write_all.
struct FileAccess : Handler {
  void after(CallScope& s, MPI_File fh, const void*, int count, MPI_Datatype type, Unread) {
    fileio::access(s, fh, count, type, -1);
  }
};
// Their _at forms.
struct FileAccessAt : Handler {
  void after(CallScope& s, MPI_File fh, MPI_Offset offset, const void*, int count, MPI_Datatype type, Unread) {
    fileio::access(s, fh, count, type, offset);
  }
};

// ---- calls tracegen does not model, recorded as opaque events (OpKind Opaque, OpaqueRequest):
// the name, the communicator where the call has one (the parameter at `commAt`, -1: none), the
// call site and the times, so that nothing the application does passes silently. A call that
// returns a request counts as a request-creating call, so the offsets of the waits that complete
// it stay right.
template <int commAt = -1>
struct Opaque : Handler {
  void after(CallScope& s, const auto&... args) {
    if constexpr (commAt >= 0) s.comm(std::get<commAt>(std::tie(args...)));
    (created(s, args), ...);
  }

 private:
  static void created(CallScope& s, const NewRequest& req) { s.created(req.handle, req.where); }
  static void created(CallScope&, const auto&) {}
};

}  // namespace tracegen::record::handlers
