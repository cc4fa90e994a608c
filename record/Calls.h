// Parameters of each intercepted MPI operation, shared by the C wrappers (Wrappers.cpp) and
// the Fortran ones (FortranWrappers.cpp), which convert their handles to C first.
//
// Arguments that are significant at the calling rank are recorded. Of the others (a gather's
// receive count and type at a rank that is not the root), a count and datatype pair is recorded
// as passed when the datatype is one the recorder knows (predefined, or derived and seen before)
// — SPMD programs pass the same values everywhere, and recording them keeps the root's event
// and the others' alike — and left out otherwise, so that no undefined handle is ever queried.
// Vectors and MPI_IN_PLACE sides are recorded only where significant. Request-completing calls
// name exactly the requests they completed (docs/recording.md, "Requests").
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "record/Intercept.h"
#include "record/LoopCompressor.h"
#include "record/Recorder.h"

namespace tracegen::record::calls {

inline int rankIn(MPI_Comm comm) {
  int r = -1;
  PMPI_Comm_rank(comm, &r);
  return r;
}

inline void p2p(CallScope& s, Param peer, int count, MPI_Datatype type, int rank, int tag, MPI_Comm comm) {
  s.comm(comm);
  s.set(Param::Count, count);
  s.type(Param::Datatype, type);
  s.peer(peer, rank);
  s.tag(Param::Tag, tag);
}

inline void sendrecv(CallScope& s, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, int recvcount,
                     MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm) {
  p2p(s, Param::Dest, sendcount, sendtype, dest, sendtag, comm);
  s.set(Param::RecvCount, recvcount);
  s.type(Param::RecvType, recvtype);
  s.peer(Param::Source, source);
  s.tag(Param::RecvTag, recvtag);
}

inline void sendrecvReplace(CallScope& s, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                            MPI_Comm comm) {
  p2p(s, Param::Dest, count, type, dest, sendtag, comm);
  s.peer(Param::Source, source);
  s.tag(Param::RecvTag, recvtag);
}

inline void probe(CallScope& s, int source, int tag, MPI_Comm comm) {
  s.comm(comm);
  s.peer(Param::Source, source);
  s.tag(Param::Tag, tag);
}

// ---- collectives

inline void barrier(CallScope& s, MPI_Comm comm) { s.comm(comm); }

inline void bcast(CallScope& s, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  s.comm(comm);
  s.set(Param::Count, count);
  s.type(Param::Datatype, type);
  s.root(root);
}

inline void reduce(CallScope& s, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  s.comm(comm);
  s.set(Param::Count, count);
  s.type(Param::Datatype, type);
  s.reduceOp(op);
}

inline void gather(CallScope& s, bool sendInPlace, int sendcount, MPI_Datatype sendtype, int recvcount,
                   MPI_Datatype recvtype, int root, MPI_Comm comm) {
  s.comm(comm);
  s.root(root);
  const bool atRoot = rankIn(comm) == root;
  if (!(atRoot && sendInPlace)) {
    s.set(Param::Count, sendcount);
    s.type(Param::Datatype, sendtype);
  }
  if (atRoot || s.knownType(recvtype)) {
    s.set(Param::RecvCount, recvcount);
    s.type(Param::RecvType, recvtype);
  }
}

inline void gatherv(CallScope& s, bool sendInPlace, int sendcount, MPI_Datatype sendtype, const int* recvcounts,
                    const int* displs, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  s.comm(comm);
  s.root(root);
  const bool atRoot = rankIn(comm) == root;
  if (!(atRoot && sendInPlace)) {
    s.set(Param::Count, sendcount);
    s.type(Param::Datatype, sendtype);
  }
  if (atRoot) {
    const int n = s.commSize(comm);
    s.counts(Param::RecvCounts, recvcounts, n);
    s.counts(Param::Displs, displs, n);
    s.type(Param::RecvType, recvtype);
  }
}

inline void scatter(CallScope& s, int sendcount, MPI_Datatype sendtype, bool recvInPlace, int recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm) {
  s.comm(comm);
  s.root(root);
  const bool atRoot = rankIn(comm) == root;
  if (atRoot || s.knownType(sendtype)) {
    s.set(Param::Count, sendcount);
    s.type(Param::Datatype, sendtype);
  }
  if (!(atRoot && recvInPlace)) {
    s.set(Param::RecvCount, recvcount);
    s.type(Param::RecvType, recvtype);
  }
}

inline void scatterv(CallScope& s, const int* sendcounts, const int* displs, MPI_Datatype sendtype, bool recvInPlace,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  s.comm(comm);
  s.root(root);
  const bool atRoot = rankIn(comm) == root;
  if (atRoot) {
    const int n = s.commSize(comm);
    s.counts(Param::SendCounts, sendcounts, n);
    s.counts(Param::Displs, displs, n);
    s.type(Param::Datatype, sendtype);
  }
  if (!(atRoot && recvInPlace)) {
    s.set(Param::RecvCount, recvcount);
    s.type(Param::RecvType, recvtype);
  }
}

// Allgather and Alltoall.
inline void allToAll(CallScope& s, bool sendInPlace, int sendcount, MPI_Datatype sendtype, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) {
  s.comm(comm);
  if (!sendInPlace) {
    s.set(Param::Count, sendcount);
    s.type(Param::Datatype, sendtype);
  }
  s.set(Param::RecvCount, recvcount);
  s.type(Param::RecvType, recvtype);
}

inline void allgatherv(CallScope& s, bool sendInPlace, int sendcount, MPI_Datatype sendtype, const int* recvcounts,
                       const int* displs, MPI_Datatype recvtype, MPI_Comm comm) {
  s.comm(comm);
  if (!sendInPlace) {
    s.set(Param::Count, sendcount);
    s.type(Param::Datatype, sendtype);
  }
  const int n = s.commSize(comm);
  s.counts(Param::RecvCounts, recvcounts, n);
  s.counts(Param::Displs, displs, n);
  s.type(Param::RecvType, recvtype);
}

inline void alltoallv(CallScope& s, bool sendInPlace, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                      const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, MPI_Comm comm) {
  s.comm(comm);
  const int n = s.commSize(comm);
  if (!sendInPlace) {
    s.counts(Param::SendCounts, sendcounts, n);
    s.counts(Param::Displs, sdispls, n);
    s.type(Param::Datatype, sendtype);
  }
  s.counts(Param::RecvCounts, recvcounts, n);
  s.counts(Param::RecvDispls, rdispls, n);
  s.type(Param::RecvType, recvtype);
}

// MPI_Alltoallw: each peer's count and datatype on both sides. The displacements (in bytes) are
// not kept: a benchmark lays the blocks out one after the other.
inline void alltoallw(CallScope& s, bool sendInPlace, const int* sendcounts, const MPI_Datatype* sendtypes,
                      const int* recvcounts, const MPI_Datatype* recvtypes, MPI_Comm comm) {
  s.comm(comm);
  const int n = s.commSize(comm);
  if (!sendInPlace) {
    s.counts(Param::SendCounts, sendcounts, n);
    s.types(Param::SendTypes, sendtypes, n);
  }
  s.counts(Param::RecvCounts, recvcounts, n);
  s.types(Param::RecvTypes, recvtypes, n);
}

inline void reduceScatter(CallScope& s, const int* recvcounts, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  s.comm(comm);
  s.counts(Param::RecvCounts, recvcounts, s.commSize(comm));
  s.type(Param::Datatype, type);
  s.reduceOp(op);
}

// ---- neighbourhood collectives (docs/recording.md, "Neighbourhood collectives"): the counts
// and datatypes as for the all-to-all forms, with a vector's entry per source (receive side)
// or per destination (send side of the v and w forms) instead of per member. The neighbours
// themselves are not recorded: they follow from the communicator's topology, recorded by its
// constructor. Displacements are not kept: a benchmark lays the blocks out one after the other.

// The in- and out-degree of a topology communicator (0 for one without a topology).
inline void neighborDegrees(MPI_Comm comm, int& in, int& out) {
  int topo = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topo);
  in = out = 0;
  if (topo == MPI_CART) {
    int ndims = 0;
    PMPI_Cartdim_get(comm, &ndims);
    in = out = 2 * ndims;
  } else if (topo == MPI_GRAPH) {
    PMPI_Graph_neighbors_count(comm, rankIn(comm), &in);
    out = in;
  } else if (topo == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  }
}

// MPI_Neighbor_allgather and MPI_Neighbor_alltoall: one block size each way.
inline void neighborAllToAll(CallScope& s, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
  allToAll(s, false, sendcount, sendtype, recvcount, recvtype, comm);
}

inline void neighborAllgatherv(CallScope& s, int sendcount, MPI_Datatype sendtype, const int* recvcounts,
                               MPI_Datatype recvtype, MPI_Comm comm) {
  int in = 0, out = 0;
  neighborDegrees(comm, in, out);
  s.comm(comm);
  s.set(Param::Count, sendcount);
  s.type(Param::Datatype, sendtype);
  s.counts(Param::RecvCounts, recvcounts, in);
  s.type(Param::RecvType, recvtype);
}

inline void neighborAlltoallv(CallScope& s, const int* sendcounts, MPI_Datatype sendtype, const int* recvcounts,
                              MPI_Datatype recvtype, MPI_Comm comm) {
  int in = 0, out = 0;
  neighborDegrees(comm, in, out);
  s.comm(comm);
  s.counts(Param::SendCounts, sendcounts, out);
  s.type(Param::Datatype, sendtype);
  s.counts(Param::RecvCounts, recvcounts, in);
  s.type(Param::RecvType, recvtype);
}

inline void neighborAlltoallw(CallScope& s, const int* sendcounts, const MPI_Datatype* sendtypes, const int* recvcounts,
                              const MPI_Datatype* recvtypes, MPI_Comm comm) {
  int in = 0, out = 0;
  neighborDegrees(comm, in, out);
  s.comm(comm);
  s.counts(Param::SendCounts, sendcounts, out);
  s.types(Param::SendTypes, sendtypes, out);
  s.counts(Param::RecvCounts, recvcounts, in);
  s.types(Param::RecvTypes, recvtypes, in);
}

// ---- communicators

inline void commSplit(CallScope& s, MPI_Comm comm, int color, int key, MPI_Comm newcomm) {
  s.comm(comm);
  s.set(Param::Color, color == MPI_UNDEFINED ? kUndefined : color);
  s.set(Param::Key, key);
  s.set(Param::NewComm, s.newComm(newcomm, "split"));
}

inline void commCopy(CallScope& s, MPI_Comm comm, MPI_Comm newcomm, const char* kind) {
  s.comm(comm);
  s.set(Param::NewComm, s.newComm(newcomm, kind));
}

inline void commCreate(CallScope& s, MPI_Comm comm, MPI_Group group, MPI_Comm newcomm) {
  s.set(Param::Group, s.groupId(group));
  commCopy(s, comm, newcomm, "create");
}

// ---- topology constructors: the parent, the topology as given, and the new communicator
// (whose members the recorder notes in the order the library numbered them).

inline void cartCreate(CallScope& s, MPI_Comm comm, int ndims, const int* dims, const int* periods, int reorder,
                       MPI_Comm newcomm) {
  s.comm(comm);
  s.set(Param::Count, ndims);
  s.counts(Param::Dims, dims, ndims);
  s.counts(Param::Periods, periods, ndims);
  s.set(Param::Reorder, reorder != 0);
  s.set(Param::NewComm, s.newComm(newcomm, "cart"));
}

inline void cartSub(CallScope& s, MPI_Comm comm, const int* remain, MPI_Comm newcomm) {
  s.comm(comm);
  int ndims = 0;
  PMPI_Cartdim_get(comm, &ndims);
  s.set(Param::Count, ndims);
  s.counts(Param::RemainDims, remain, ndims);
  s.set(Param::NewComm, s.newComm(newcomm, "cart_sub"));
}

inline void graphCreate(CallScope& s, MPI_Comm comm, int nnodes, const int* index, const int* edges, int reorder,
                        MPI_Comm newcomm) {
  s.comm(comm);
  const int nedges = nnodes > 0 ? index[nnodes - 1] : 0;
  s.set(Param::Count, nnodes);
  s.counts(Param::Index, index, nnodes);
  s.set(Param::RecvCount, nedges);
  s.counts(Param::Edges, edges, nedges);
  s.set(Param::Reorder, reorder != 0);
  s.set(Param::NewComm, s.newComm(newcomm, "graph"));
}

// Weights are not recorded: the benchmark passes MPI_UNWEIGHTED (they only guide placement).
inline void distGraphAdjacent(CallScope& s, MPI_Comm comm, int indegree, const int* sources, int outdegree,
                              const int* destinations, int reorder, MPI_Comm newcomm) {
  s.comm(comm);
  s.set(Param::Count, indegree);
  s.counts(Param::Sources, sources, indegree);
  s.set(Param::RecvCount, outdegree);
  s.counts(Param::Destinations, destinations, outdegree);
  s.set(Param::Reorder, reorder != 0);
  s.set(Param::NewComm, s.newComm(newcomm, "dist_graph"));
}

inline void distGraph(CallScope& s, MPI_Comm comm, int n, const int* sources, const int* degrees,
                      const int* destinations, int reorder, MPI_Comm newcomm) {
  s.comm(comm);
  int edges = 0;
  for (int i = 0; i < n; ++i) edges += degrees[i];
  s.set(Param::Count, n);
  s.counts(Param::Sources, sources, n);
  s.counts(Param::Degrees, degrees, n);
  s.set(Param::RecvCount, edges);
  s.counts(Param::Destinations, destinations, edges);
  s.set(Param::Reorder, reorder != 0);
  s.set(Param::NewComm, s.newComm(newcomm, "dist_graph"));
}

// The split type is recorded as the colour: 1 for MPI_COMM_TYPE_SHARED, 2 for a type of the
// library of its own (its constants differ between libraries); MPI_UNDEFINED as ever.
inline void commSplitType(CallScope& s, MPI_Comm comm, int type, int key, MPI_Comm newcomm) {
  s.comm(comm);
  s.set(Param::Color, type == MPI_UNDEFINED ? kUndefined : type == MPI_COMM_TYPE_SHARED ? 1 : 2);
  s.set(Param::Key, key);
  s.set(Param::NewComm, s.newComm(newcomm, "split_type"));
}

inline void commCreateGroup(CallScope& s, MPI_Comm comm, MPI_Group group, int tag, MPI_Comm newcomm) {
  s.comm(comm);
  s.set(Param::Group, s.groupId(group));
  s.tag(Param::Tag, tag);
  s.set(Param::NewComm, s.newComm(newcomm, "create_group"));
}

// ---- groups: the input groups are looked up before the new one is numbered.

inline void commGroup(CallScope& s, MPI_Comm comm, MPI_Group newgroup) {
  s.comm(comm);
  s.newGroup(newgroup);
}

// MPI_Group_incl and _excl (`width` 1: n ranks), MPI_Group_range_incl and _excl (`width` 3: n
// first-last-stride triples, laid out one after the other in C and in Fortran alike).
inline void groupSubset(CallScope& s, Param list, MPI_Group group, int n, const int* values, int width,
                        MPI_Group newgroup) {
  s.set(Param::Group, s.groupId(group));
  s.set(Param::Count, n);
  s.counts(list, values, n * width);
  s.newGroup(newgroup);
}

// MPI_Group_union, _intersection and _difference.
inline void groupPair(CallScope& s, MPI_Group group1, MPI_Group group2, MPI_Group newgroup) {
  s.set(Param::Group1, s.groupId(group1));
  s.set(Param::Group2, s.groupId(group2));
  s.newGroup(newgroup);
}

// ---- request completion. `picks` identify the call's requests, taken before the call.

// MPI_Wait, MPI_Test: the completed request's offset, or -1 if nothing completed.
// `statuses` give the sender each completed wildcard receive matched (Param::Matched), one status
// per completed request in the order the calls name them: the C and Fortran wrappers alike pass
// a status of their own where the application ignores it (a Status kind of Intercept.h).
inline void completeOne(CallScope& s, const RequestPick& p, bool done, const MPI_Status* status = nullptr) {
  const bool real = done && p.handle != MPI_REQUEST_NULL;
  if (!real && s.isPoll()) {  // a failed poll: counted, not recorded
    s.completions(0);
    return;
  }
  s.set(Param::Request, real ? p.offset : kRequestNull);
  if (real && status) s.matched({s.wildcardMatched(p, *status)});
  if (real) s.completed(p);
  s.completions(real ? 1 : 0);
}

// Lists of request offsets kept between calls, so that a completing call allocates nothing once
// they have grown to its request count.
inline std::vector<std::int64_t>& scratch(int which) {
  thread_local std::vector<std::int64_t> lists[2] __attribute__((tls_model("initial-exec")));
  return lists[which];
}

// MPI_Waitall, MPI_Testall: all requests of the array (null entries -1), or none.
inline void completeAll(CallScope& s, const std::vector<RequestPick>& picks, bool done,
                        const MPI_Status* statuses = nullptr) {
  if (!done) {
    if (!s.isPoll()) s.offsets(nullptr, 0);  // a failed poll is counted, not recorded
    s.completions(0);
    return;
  }
  std::vector<std::int64_t>& offsets = scratch(0);
  std::vector<std::int64_t>& matched = scratch(1);
  offsets.clear();
  matched.clear();
  std::size_t real = 0;
  for (std::size_t i = 0; i < picks.size(); ++i) {
    const RequestPick& p = picks[i];
    offsets.push_back(p.offset);
    matched.push_back(statuses && p.handle != MPI_REQUEST_NULL ? s.wildcardMatched(p, statuses[i]) : -1);
    if (p.handle != MPI_REQUEST_NULL) {
      s.completed(p);
      ++real;
    }
  }
  s.offsets(offsets.data(), static_cast<int>(offsets.size()));
  s.matched(matched);
  s.completions(real);
}

// MPI_Waitany, MPI_Testany, MPI_Waitsome, MPI_Testsome: the requests at the (0-based) indices.
inline void completeSome(CallScope& s, const std::vector<RequestPick>& picks, const intercept::Indices& indices, int n,
                         const MPI_Status* statuses = nullptr) {
  if (n == 0 && s.isPoll()) {  // a failed poll: counted, not recorded
    s.completions(0);
    return;
  }
  std::vector<std::int64_t>& done = scratch(0);
  std::vector<std::int64_t>& matched = scratch(1);
  done.clear();
  matched.clear();
  std::size_t real = 0;
  for (int i = 0; i < n; ++i) {
    const int k = indices[i];
    if (k < 0 || static_cast<std::size_t>(k) >= picks.size()) continue;
    const RequestPick& p = picks[static_cast<std::size_t>(k)];
    done.push_back(p.offset);
    matched.push_back(statuses && p.handle != MPI_REQUEST_NULL ? s.wildcardMatched(p, statuses[i]) : -1);
    if (p.handle != MPI_REQUEST_NULL) {
      s.completed(p);
      ++real;
    }
  }
  s.offsets(done.data(), static_cast<int>(done.size()));
  s.matched(matched);
  s.completions(real);
}

// ---- persistent requests (docs/recording.md, "Persistent requests")

// MPI_Send_init, MPI_Recv_init: a request-creating call that makes the persistent request r.
inline void persistentInit(CallScope& s, MPI_Request r, const void* where, bool recv, int peer, MPI_Comm comm) {
  s.created(r, where);
  s.persistentMade(r, recv, peer, comm);
}

// MPI_Start (all false), MPI_Startall: each request named by its latest creation as the call
// found them, then one request made per start, in order.
inline void start(CallScope& s, const intercept::Requests& reqs, bool all) {
  std::vector<std::int64_t> offsets;
  for (int i = 0; i < reqs.n; ++i) offsets.push_back(s.persistentOffset(reqs.handles[i]));
  for (int i = 0; i < reqs.n; ++i) s.persistentStarted(reqs.handles[i], reqs.at(i));
  if (all)
    s.offsets(offsets.data(), reqs.n);
  else
    s.set(Param::Request, reqs.n > 0 ? offsets[0] : kRequestNull);
}

// ---- matched probes (docs/recording.md, "Matched probes")

// MPI_Mprobe, MPI_Improbe (found: the flag): as MPI_Probe, the sender a wildcard found
// (`matched`), and for MPI_Improbe `count` 1 or 0; one that found nothing is a failed poll,
// folded into the next success at its call site as the tests' are.
inline void matchedProbe(CallScope& s, Op op, int source, int tag, MPI_Comm comm, bool found, const MPI_Status* status) {
  s.comm(comm);
  s.peer(Param::Source, source);
  s.tag(Param::Tag, tag);
  if (found && source == MPI_ANY_SOURCE && status) s.matched({s.matchedOffset(comm, status->MPI_SOURCE)});
  if (op == Op::Improbe) {
    s.set(Param::Count, found ? 1 : 0);
    s.completions(found ? 1 : 0);
  }
}

// MPI_Mrecv, MPI_Imrecv: the count and datatype received; the message is the probe's.
inline void matchedRecv(CallScope& s, int count, MPI_Datatype type) {
  s.set(Param::Count, count);
  s.type(Param::Datatype, type);
}

// A blocking receive from MPI_ANY_SOURCE: the sender it matched.
inline void receivedFrom(CallScope& s, int source, MPI_Comm comm, const MPI_Status* status) {
  if (source == MPI_ANY_SOURCE && status) s.matched({s.matchedOffset(comm, status->MPI_SOURCE)});
}

// Picks for the requests a completing call takes, before the call.
inline void pickAll(CallScope& s, const intercept::Requests& reqs, std::vector<RequestPick>& picks) {
  picks.clear();
  for (int i = 0; i < reqs.n; ++i) picks.push_back(s.pick(reqs.handles[i], reqs.at(i), picks));
}

}  // namespace tracegen::record::calls
