// The C entry points of the recorder: each intercepts one MPI function through the profiling
// interface. A wrapper that is not recording (before MPI_Init, after MPI_Finalize, or nested
// inside another wrapper) just calls PMPI; otherwise it opens a CallScope, times the PMPI call
// and records its parameters with the code of Calls.h shared with the Fortran entry points.
#include <mpi.h>

#include <vector>

#include "record/Calls.h"
#include "record/Recorder.h"

#define TG_EXPORT extern "C" __attribute__((visibility("default")))

using tracegen::Op;
using tracegen::Param;
using tracegen::record::CallScope;
namespace calls = tracegen::record::calls;

namespace {
thread_local std::vector<tracegen::record::RequestPick> t_picks;
thread_local std::vector<MPI_Status> t_statuses;

// The recorder reads status.MPI_SOURCE of completed wildcard receives (the recorded order), so
// it passes MPI a status even where the application ignores it.
MPI_Status* statusOr(MPI_Status* status, MPI_Status& local) { return status == MPI_STATUS_IGNORE ? &local : status; }
MPI_Status* statusesOr(MPI_Status* statuses, int n) {
  if (statuses != MPI_STATUSES_IGNORE) return statuses;
  t_statuses.resize(static_cast<std::size_t>(n > 0 ? n : 1));
  return t_statuses.data();
}
}  // namespace

// ---- environment

TG_EXPORT int MPI_Init(int* argc, char*** argv) {
  tracegen::record::WrapperDepth depth;
  const int rc = PMPI_Init(argc, argv);
  if (!depth.nested() && rc == MPI_SUCCESS) tracegen::record::recorderStart(Op::Init);
  return rc;
}

TG_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  tracegen::record::WrapperDepth depth;
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (!depth.nested() && rc == MPI_SUCCESS) tracegen::record::recorderStart(Op::InitThread);
  return rc;
}

TG_EXPORT int MPI_Finalize(void) {
  tracegen::record::WrapperDepth depth;
  if (!depth.nested()) tracegen::record::recorderFinish();
  return PMPI_Finalize();
}

// ---- point to point

#define TG_SEND(NAME, OP)                                                                          \
  TG_EXPORT int NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) { \
    CallScope s(OP);                                                                               \
    if (!s.active()) return P##NAME(buf, count, type, dest, tag, comm);                            \
    s.begin();                                                                                     \
    const int rc = P##NAME(buf, count, type, dest, tag, comm);                                     \
    s.end();                                                                                       \
    calls::p2p(s, Param::Dest, count, type, dest, tag, comm);                                      \
    s.commit();                                                                                    \
    return rc;                                                                                     \
  }
TG_SEND(MPI_Send, Op::Send)
TG_SEND(MPI_Ssend, Op::Ssend)
TG_SEND(MPI_Rsend, Op::Rsend)
TG_SEND(MPI_Bsend, Op::Bsend)
#undef TG_SEND

#define TG_ISEND(NAME, OP)                                                                                        \
  TG_EXPORT int NAME(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) { \
    CallScope s(OP);                                                                                              \
    if (!s.active()) return P##NAME(buf, count, type, dest, tag, comm, req);                                      \
    s.begin();                                                                                                    \
    const int rc = P##NAME(buf, count, type, dest, tag, comm, req);                                               \
    s.end();                                                                                                      \
    calls::p2p(s, Param::Dest, count, type, dest, tag, comm);                                                     \
    s.created(*req, req);                                                                                         \
    s.commit();                                                                                                   \
    return rc;                                                                                                    \
  }
TG_ISEND(MPI_Isend, Op::Isend)
TG_ISEND(MPI_Issend, Op::Issend)
TG_ISEND(MPI_Irsend, Op::Irsend)
TG_ISEND(MPI_Ibsend, Op::Ibsend)
#undef TG_ISEND

TG_EXPORT int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  CallScope s(Op::Recv);
  if (!s.active()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, status);
  s.end();
  calls::p2p(s, Param::Source, count, type, source, tag, comm);
  calls::receivedFrom(s, source, comm, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  CallScope s(Op::Irecv);
  if (!s.active()) return PMPI_Irecv(buf, count, type, source, tag, comm, req);
  s.begin();
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  s.end();
  calls::p2p(s, Param::Source, count, type, source, tag, comm);
  if (source == MPI_ANY_SOURCE) s.wildcardPosted(comm);
  s.created(*req, req);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  CallScope s(Op::Sendrecv);
  if (!s.active())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                         status);
  s.begin();
  MPI_Status local;
  status = statusOr(status, local);
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                               comm, status);
  s.end();
  calls::sendrecv(s, sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag, comm);
  calls::receivedFrom(s, source, comm, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                                   MPI_Comm comm, MPI_Status* status) {
  CallScope s(Op::SendrecvReplace);
  if (!s.active()) return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  s.begin();
  MPI_Status local;
  status = statusOr(status, local);
  const int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
  s.end();
  calls::sendrecvReplace(s, count, type, dest, sendtag, source, recvtag, comm);
  calls::receivedFrom(s, source, comm, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  CallScope s(Op::Probe);
  if (!s.active()) return PMPI_Probe(source, tag, comm, status);
  s.begin();
  const int rc = PMPI_Probe(source, tag, comm, status);
  s.end();
  calls::probe(s, source, tag, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  CallScope s(Op::Iprobe);
  if (!s.active()) return PMPI_Iprobe(source, tag, comm, flag, status);
  s.begin();
  const int rc = PMPI_Iprobe(source, tag, comm, flag, status);
  s.end();
  calls::probe(s, source, tag, comm);
  s.commit();
  return rc;
}

// ---- completion

TG_EXPORT int MPI_Wait(MPI_Request* req, MPI_Status* status) {
  CallScope s(Op::Wait);
  if (!s.active()) return PMPI_Wait(req, status);
  const tracegen::record::RequestPick p = s.pick(*req, req, {});
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Wait(req, status);
  s.end();
  calls::completeOne(s, p, true, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Test(MPI_Request* req, int* flag, MPI_Status* status) {
  CallScope s(Op::Test);
  if (!s.active()) return PMPI_Test(req, flag, status);
  const tracegen::record::RequestPick p = s.pick(*req, req, {});
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Test(req, flag, status);
  s.end();
  calls::completeOne(s, p, *flag != 0, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  CallScope s(Op::Waitall);
  if (!s.active()) return PMPI_Waitall(count, reqs, statuses);
  calls::pickAll(s, reqs, reqs, sizeof(MPI_Request), count, t_picks);
  statuses = statusesOr(statuses, count);
  s.begin();
  const int rc = PMPI_Waitall(count, reqs, statuses);
  s.end();
  calls::completeAll(s, t_picks, true, statuses);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  CallScope s(Op::Testall);
  if (!s.active()) return PMPI_Testall(count, reqs, flag, statuses);
  calls::pickAll(s, reqs, reqs, sizeof(MPI_Request), count, t_picks);
  statuses = statusesOr(statuses, count);
  s.begin();
  const int rc = PMPI_Testall(count, reqs, flag, statuses);
  s.end();
  calls::completeAll(s, t_picks, *flag != 0, statuses);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  CallScope s(Op::Waitany);
  if (!s.active()) return PMPI_Waitany(count, reqs, index, status);
  calls::pickAll(s, reqs, reqs, sizeof(MPI_Request), count, t_picks);
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Waitany(count, reqs, index, status);
  s.end();
  calls::completeSome(s, t_picks, index, *index == MPI_UNDEFINED ? 0 : 1, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  CallScope s(Op::Testany);
  if (!s.active()) return PMPI_Testany(count, reqs, index, flag, status);
  calls::pickAll(s, reqs, reqs, sizeof(MPI_Request), count, t_picks);
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Testany(count, reqs, index, flag, status);
  s.end();
  calls::completeSome(s, t_picks, index, (*flag != 0 && *index != MPI_UNDEFINED) ? 1 : 0, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  CallScope s(Op::Waitsome);
  if (!s.active()) return PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
  calls::pickAll(s, reqs, reqs, sizeof(MPI_Request), incount, t_picks);
  statuses = statusesOr(statuses, incount);
  s.begin();
  const int rc = PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
  s.end();
  calls::completeSome(s, t_picks, indices, *outcount == MPI_UNDEFINED ? 0 : *outcount, statuses);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[], MPI_Status statuses[]) {
  CallScope s(Op::Testsome);
  if (!s.active()) return PMPI_Testsome(incount, reqs, outcount, indices, statuses);
  calls::pickAll(s, reqs, reqs, sizeof(MPI_Request), incount, t_picks);
  statuses = statusesOr(statuses, incount);
  s.begin();
  const int rc = PMPI_Testsome(incount, reqs, outcount, indices, statuses);
  s.end();
  calls::completeSome(s, t_picks, indices, *outcount == MPI_UNDEFINED ? 0 : *outcount, statuses);
  s.commit();
  return rc;
}

// ---- collectives

TG_EXPORT int MPI_Barrier(MPI_Comm comm) {
  CallScope s(Op::Barrier);
  if (!s.active()) return PMPI_Barrier(comm);
  s.begin();
  const int rc = PMPI_Barrier(comm);
  s.end();
  calls::barrier(s, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  CallScope s(Op::Bcast);
  if (!s.active()) return PMPI_Bcast(buf, count, type, root, comm);
  s.begin();
  const int rc = PMPI_Bcast(buf, count, type, root, comm);
  s.end();
  calls::bcast(s, count, type, root, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  CallScope s(Op::Reduce);
  if (!s.active()) return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  s.begin();
  const int rc = PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
  s.end();
  calls::reduce(s, count, type, op, comm);
  s.root(root);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  CallScope s(Op::Allreduce);
  if (!s.active()) return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  s.begin();
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
  s.end();
  calls::reduce(s, count, type, op, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  CallScope s(Op::Scan);
  if (!s.active()) return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  s.begin();
  const int rc = PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
  s.end();
  calls::reduce(s, count, type, op, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm) {
  CallScope s(Op::ReduceScatter);
  if (!s.active()) return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  s.begin();
  const int rc = PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
  s.end();
  calls::reduceScatter(s, recvcounts, type, op, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CallScope s(Op::Gather);
  if (!s.active()) return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  s.begin();
  const int rc = PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  s.end();
  calls::gather(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, root, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                          const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CallScope s(Op::Gatherv);
  if (!s.active()) return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  s.begin();
  const int rc = PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
  s.end();
  calls::gatherv(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, displs, recvtype, root, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CallScope s(Op::Scatter);
  if (!s.active()) return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  s.begin();
  const int rc = PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  s.end();
  calls::scatter(s, sendcount, sendtype, recvbuf == MPI_IN_PLACE, recvcount, recvtype, root, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CallScope s(Op::Scatterv);
  if (!s.active()) return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  s.begin();
  const int rc = PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
  s.end();
  calls::scatterv(s, sendcounts, displs, sendtype, recvbuf == MPI_IN_PLACE, recvcount, recvtype, root, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                            MPI_Datatype recvtype, MPI_Comm comm) {
  CallScope s(Op::Allgather);
  if (!s.active()) return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  s.begin();
  const int rc = PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  s.end();
  calls::allToAll(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  CallScope s(Op::Allgatherv);
  if (!s.active()) return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  s.begin();
  const int rc = PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
  s.end();
  calls::allgatherv(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcounts, displs, recvtype, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                           MPI_Datatype recvtype, MPI_Comm comm) {
  CallScope s(Op::Alltoall);
  if (!s.active()) return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  s.begin();
  const int rc = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  s.end();
  calls::allToAll(s, sendbuf == MPI_IN_PLACE, sendcount, sendtype, recvcount, recvtype, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  CallScope s(Op::Alltoallv);
  if (!s.active())
    return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  s.begin();
  const int rc = PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
  s.end();
  calls::alltoallv(s, sendbuf == MPI_IN_PLACE, sendcounts, sdispls, sendtype, recvcounts, rdispls, recvtype, comm);
  s.commit();
  return rc;
}

// ---- communicators

TG_EXPORT int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  CallScope s(Op::CommSplit);
  if (!s.active()) return PMPI_Comm_split(comm, color, key, newcomm);
  s.begin();
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  s.end();
  calls::commSplit(s, comm, color, key, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  CallScope s(Op::CommDup);
  if (!s.active()) return PMPI_Comm_dup(comm, newcomm);
  s.begin();
  const int rc = PMPI_Comm_dup(comm, newcomm);
  s.end();
  calls::commCopy(s, comm, *newcomm, "dup");
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  CallScope s(Op::CommCreate);
  if (!s.active()) return PMPI_Comm_create(comm, group, newcomm);
  s.begin();
  const int rc = PMPI_Comm_create(comm, group, newcomm);
  s.end();
  calls::commCreate(s, comm, group, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Comm_free(MPI_Comm* comm) {
  CallScope s(Op::CommFree);
  if (!s.active()) return PMPI_Comm_free(comm);
  const MPI_Comm old = *comm;
  s.begin();
  const int rc = PMPI_Comm_free(comm);
  s.end();
  s.set(Param::Comm, s.freedComm(old));
  s.commit();
  return rc;
}

// ---- groups

TG_EXPORT int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  CallScope s(Op::CommGroup);
  if (!s.active()) return PMPI_Comm_group(comm, group);
  s.begin();
  const int rc = PMPI_Comm_group(comm, group);
  s.end();
  calls::commGroup(s, comm, *group);
  s.commit();
  return rc;
}

// The triples of ranges[n][3] are contiguous: recorded as 3n integers.
TG_EXPORT int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  CallScope s(Op::GroupRangeIncl);
  if (!s.active()) return PMPI_Group_range_incl(group, n, ranges, newgroup);
  s.begin();
  const int rc = PMPI_Group_range_incl(group, n, ranges, newgroup);
  s.end();
  calls::groupSubset(s, Param::GroupRanges, group, n, n > 0 ? ranges[0] : nullptr, 3, *newgroup);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  CallScope s(Op::GroupRangeExcl);
  if (!s.active()) return PMPI_Group_range_excl(group, n, ranges, newgroup);
  s.begin();
  const int rc = PMPI_Group_range_excl(group, n, ranges, newgroup);
  s.end();
  calls::groupSubset(s, Param::GroupRanges, group, n, n > 0 ? ranges[0] : nullptr, 3, *newgroup);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  CallScope s(Op::GroupIncl);
  if (!s.active()) return PMPI_Group_incl(group, n, ranks, newgroup);
  s.begin();
  const int rc = PMPI_Group_incl(group, n, ranks, newgroup);
  s.end();
  calls::groupSubset(s, Param::GroupRanks, group, n, ranks, 1, *newgroup);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  CallScope s(Op::GroupExcl);
  if (!s.active()) return PMPI_Group_excl(group, n, ranks, newgroup);
  s.begin();
  const int rc = PMPI_Group_excl(group, n, ranks, newgroup);
  s.end();
  calls::groupSubset(s, Param::GroupRanks, group, n, ranks, 1, *newgroup);
  s.commit();
  return rc;
}

#define TG_GROUP_PAIR(NAME, OP)                                                     \
  TG_EXPORT int NAME(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {      \
    CallScope s(OP);                                                                 \
    if (!s.active()) return P##NAME(group1, group2, newgroup);                       \
    s.begin();                                                                       \
    const int rc = P##NAME(group1, group2, newgroup);                                \
    s.end();                                                                         \
    calls::groupPair(s, group1, group2, *newgroup);                                  \
    s.commit();                                                                      \
    return rc;                                                                       \
  }
TG_GROUP_PAIR(MPI_Group_union, Op::GroupUnion)
TG_GROUP_PAIR(MPI_Group_intersection, Op::GroupIntersection)
TG_GROUP_PAIR(MPI_Group_difference, Op::GroupDifference)
#undef TG_GROUP_PAIR

TG_EXPORT int MPI_Group_free(MPI_Group* group) {
  CallScope s(Op::GroupFree);
  if (!s.active()) return PMPI_Group_free(group);
  const MPI_Group old = *group;  // the handle the call frees (and sets to MPI_GROUP_NULL)
  s.begin();
  const int rc = PMPI_Group_free(group);
  s.end();
  s.set(Param::Group, s.freedGroup(old));
  s.commit();
  return rc;
}

// ---- topology constructors (and MPI-3's other communicator constructors): recorded as
// communicator-creating calls, the new communicator's members in the order it numbers them.
// Local queries (MPI_Cart_shift, MPI_Cart_rank, MPI_Cart_coords, MPI_Dims_create, ...) make no
// communication and are not recorded.

TG_EXPORT int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                              MPI_Comm* newcomm) {
  CallScope s(Op::CartCreate);
  if (!s.active()) return PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  s.begin();
  const int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  s.end();
  calls::cartCreate(s, comm, ndims, dims, periods, reorder, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  CallScope s(Op::CartSub);
  if (!s.active()) return PMPI_Cart_sub(comm, remain_dims, newcomm);
  s.begin();
  const int rc = PMPI_Cart_sub(comm, remain_dims, newcomm);
  s.end();
  calls::cartSub(s, comm, remain_dims, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                               MPI_Comm* newcomm) {
  CallScope s(Op::GraphCreate);
  if (!s.active()) return PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);
  s.begin();
  const int rc = PMPI_Graph_create(comm, nnodes, index, edges, reorder, newcomm);
  s.end();
  calls::graphCreate(s, comm, nnodes, index, edges, reorder, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                             int outdegree, const int destinations[], const int destweights[],
                                             MPI_Info info, int reorder, MPI_Comm* newcomm) {
  CallScope s(Op::DistGraphCreateAdjacent);
  if (!s.active())
    return PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations, destweights,
                                           info, reorder, newcomm);
  s.begin();
  const int rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                                 destweights, info, reorder, newcomm);
  s.end();
  calls::distGraphAdjacent(s, comm, indegree, sources, outdegree, destinations, reorder, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                                    const int destinations[], const int weights[], MPI_Info info, int reorder,
                                    MPI_Comm* newcomm) {
  CallScope s(Op::DistGraphCreate);
  if (!s.active()) return PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm);
  s.begin();
  const int rc = PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm);
  s.end();
  calls::distGraph(s, comm, n, sources, degrees, destinations, reorder, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Comm_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm* newcomm) {
  CallScope s(Op::CommSplitType);
  if (!s.active()) return PMPI_Comm_split_type(comm, type, key, info, newcomm);
  s.begin();
  const int rc = PMPI_Comm_split_type(comm, type, key, info, newcomm);
  s.end();
  calls::commSplitType(s, comm, type, key, *newcomm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  CallScope s(Op::CommCreateGroup);
  if (!s.active()) return PMPI_Comm_create_group(comm, group, tag, newcomm);
  s.begin();
  const int rc = PMPI_Comm_create_group(comm, group, tag, newcomm);
  s.end();
  calls::commCreateGroup(s, comm, group, tag, *newcomm);
  s.commit();
  return rc;
}

// The new communicator is usable once the request completes, but its handle is valid (and its
// members known) at once. The request is not tracked: a wait on it is recorded as a wait on
// MPI_REQUEST_NULL, and the benchmark completes its MPI_Comm_idup at once.
TG_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* req) {
  CallScope s(Op::CommIdup);
  if (!s.active()) return PMPI_Comm_idup(comm, newcomm, req);
  s.begin();
  const int rc = PMPI_Comm_idup(comm, newcomm, req);
  s.end();
  s.comm(comm);
  s.set(Param::NewComm, s.newCommLike(*newcomm, comm, "idup"));
  s.commit();
  return rc;
}
