// The C entry points of the recorder: each intercepts one MPI function through the profiling
// interface. A wrapper that is not recording (before MPI_Init, after MPI_Finalize, or nested
// inside another wrapper) just calls PMPI; otherwise it opens a CallScope, times the PMPI call
// and records its parameters with the code of Calls.h shared with the Fortran entry points.
#include <mpi.h>

#include <vector>

#include "record/Calls.h"
#include "record/FileIo.h"
#include "record/OneSided.h"
#include "record/Recorder.h"

#define TG_EXPORT extern "C" __attribute__((visibility("default")))

using tracegen::Op;
using tracegen::Param;
using tracegen::record::CallScope;
namespace calls = tracegen::record::calls;

namespace {
// Initial-exec, as the recorder's other thread-locals: the library is preloaded, and an access
// then costs no __tls_get_addr call.
thread_local std::vector<tracegen::record::RequestPick> t_picks __attribute__((tls_model("initial-exec")));
thread_local std::vector<MPI_Status> t_statuses __attribute__((tls_model("initial-exec")));

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
  const double age = tracegen::record::timeSinceLoadUs();
  const int rc = PMPI_Init(argc, argv);
  if (!depth.nested() && rc == MPI_SUCCESS) tracegen::record::recorderStart(Op::Init, age);
  return rc;
}

TG_EXPORT int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  tracegen::record::WrapperDepth depth;
  const double age = tracegen::record::timeSinceLoadUs();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  if (!depth.nested() && rc == MPI_SUCCESS) tracegen::record::recorderStart(Op::InitThread, age);
  return rc;
}

TG_EXPORT int MPI_Finalize(void) {
  tracegen::record::WrapperDepth depth;
  if (!depth.nested()) tracegen::record::recorderFinish();
  const int status = PMPI_Finalize();
  if (!depth.nested()) tracegen::record::recorderFinalized();
  return status;
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
// MPI_REQUEST_NULL (without the unknown-request warning), and the benchmark completes its
// MPI_Comm_idup at once.
TG_EXPORT int MPI_Comm_idup(MPI_Comm comm, MPI_Comm* newcomm, MPI_Request* req) {
  CallScope s(Op::CommIdup);
  if (!s.active()) return PMPI_Comm_idup(comm, newcomm, req);
  s.begin();
  const int rc = PMPI_Comm_idup(comm, newcomm, req);
  s.end();
  s.comm(comm);
  s.set(Param::NewComm, s.newCommLike(*newcomm, comm, "idup"));
  s.untrackedRequest(*req);
  s.commit();
  return rc;
}

// ---- persistent requests: MPI_Send_init and MPI_Recv_init make a request (SendInit, RecvInit);
// MPI_Start, MPI_Startall and MPI_Request_free name requests as the waits do (after these)

TG_EXPORT int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  CallScope s(Op::SendInit);
  if (!s.active()) return PMPI_Send_init(buf, count, type, dest, tag, comm, req);
  s.begin();
  const int rc = PMPI_Send_init(buf, count, type, dest, tag, comm, req);
  s.end();
  calls::p2p(s, Param::Dest, count, type, dest, tag, comm);
  calls::persistentInit(s, *req, req, false, dest, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  CallScope s(Op::RecvInit);
  if (!s.active()) return PMPI_Recv_init(buf, count, type, source, tag, comm, req);
  s.begin();
  const int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
  s.end();
  calls::p2p(s, Param::Source, count, type, source, tag, comm);
  calls::persistentInit(s, *req, req, true, source, comm);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Start(MPI_Request* req) {
  CallScope s(Op::Start);
  if (!s.active()) return PMPI_Start(req);
  s.begin();
  const int rc = PMPI_Start(req);
  s.end();
  calls::start(s, req, req, sizeof(MPI_Request), 1, false);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Startall(int count, MPI_Request reqs[]) {
  CallScope s(Op::Startall);
  if (!s.active()) return PMPI_Startall(count, reqs);
  s.begin();
  const int rc = PMPI_Startall(count, reqs);
  s.end();
  calls::start(s, reqs, reqs, sizeof(MPI_Request), count, true);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Request_free(MPI_Request* req) {
  CallScope s(Op::RequestFree);
  if (!s.active()) return PMPI_Request_free(req);
  const MPI_Request handle = *req;  // MPI_REQUEST_NULL once freed
  s.begin();
  const int rc = PMPI_Request_free(req);
  s.end();
  s.set(Param::Request, s.freeRequest(handle, req));
  s.commit();
  return rc;
}

// ---- matched probes: MPI_Mprobe and MPI_Improbe probe as MPI_Probe does; MPI_Mrecv and
// MPI_Imrecv (a request-creating call) receive the message a probe found

TG_EXPORT int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  CallScope s(Op::Mprobe);
  if (!s.active()) return PMPI_Mprobe(source, tag, comm, message, status);
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Mprobe(source, tag, comm, message, status);
  s.end();
  calls::matchedProbe(s, Op::Mprobe, source, tag, comm, true, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  CallScope s(Op::Improbe);
  if (!s.active()) return PMPI_Improbe(source, tag, comm, flag, message, status);
  MPI_Status local;
  status = statusOr(status, local);
  s.begin();
  const int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
  s.end();
  calls::matchedProbe(s, Op::Improbe, source, tag, comm, *flag != 0, status);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  CallScope s(Op::Mrecv);
  if (!s.active()) return PMPI_Mrecv(buf, count, type, message, status);
  s.begin();
  const int rc = PMPI_Mrecv(buf, count, type, message, status);
  s.end();
  calls::matchedRecv(s, count, type);
  s.commit();
  return rc;
}

TG_EXPORT int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* req) {
  CallScope s(Op::Imrecv);
  if (!s.active()) return PMPI_Imrecv(buf, count, type, message, req);
  s.begin();
  const int rc = PMPI_Imrecv(buf, count, type, message, req);
  s.end();
  calls::matchedRecv(s, count, type);
  s.created(*req, req);
  s.commit();
  return rc;
}

// ---- MPI-3 blocking collectives: MPI_Exscan (as MPI_Scan) and MPI_Reduce_scatter_block (count:
// the block each member receives)

#define TG_REDUCTION(NAME, OP)                                                                                        \
  TG_EXPORT int NAME(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) { \
    CallScope s(OP);                                                                                                \
    if (!s.active()) return P##NAME(sendbuf, recvbuf, count, type, op, comm);                                       \
    s.begin();                                                                                                      \
    const int rc = P##NAME(sendbuf, recvbuf, count, type, op, comm);                                                \
    s.end();                                                                                                        \
    calls::reduce(s, count, type, op, comm);                                                                        \
    s.commit();                                                                                                     \
    return rc;                                                                                                      \
  }
TG_REDUCTION(MPI_Exscan, Op::Exscan)
TG_REDUCTION(MPI_Reduce_scatter_block, Op::ReduceScatterBlock)
#undef TG_REDUCTION

// ---- MPI-3 nonblocking collectives (OpKind::ICollective): the parameters of the blocking
// form, recorded as it records them, and the request they return (a request-creating call,
// completed by the recorded waits and tests).

namespace {
template <class F, class R>
int nonblockingCollective(Op op, MPI_Request* req, F&& call, R&& record) {
  CallScope s(op);
  if (!s.active()) return call();
  s.begin();
  const int rc = call();
  s.end();
  record(s);
  s.created(*req, req);
  s.commit();
  return rc;
}
}  // namespace

#define TG_ICOLL(NAME, OP, PARAMS, ARGS, RECORD) \
  TG_EXPORT int NAME PARAMS {                     \
    return nonblockingCollective(OP, req, [&] { return P##NAME ARGS; }, [&](CallScope& s) { RECORD; }); \
  }
TG_ICOLL(MPI_Ibarrier, Op::Ibarrier, (MPI_Comm comm, MPI_Request* req), (comm, req), calls::barrier(s, comm))
TG_ICOLL(MPI_Ibcast, Op::Ibcast, (void* b, int n, MPI_Datatype t, int root, MPI_Comm comm, MPI_Request* req),
         (b, n, t, root, comm, req), calls::bcast(s, n, t, root, comm))
TG_ICOLL(MPI_Ireduce, Op::Ireduce,
         (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm comm, MPI_Request* req),
         (sb, rb, n, t, op, root, comm, req), calls::reduce(s, n, t, op, comm); s.root(root))
TG_ICOLL(MPI_Iallreduce, Op::Iallreduce,
         (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* req),
         (sb, rb, n, t, op, comm, req), calls::reduce(s, n, t, op, comm))
TG_ICOLL(MPI_Iscan, Op::Iscan, (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* req),
         (sb, rb, n, t, op, comm, req), calls::reduce(s, n, t, op, comm))
TG_ICOLL(MPI_Iexscan, Op::Iexscan,
         (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* req),
         (sb, rb, n, t, op, comm, req), calls::reduce(s, n, t, op, comm))
TG_ICOLL(MPI_Ireduce_scatter_block, Op::IreduceScatterBlock,
         (const void* sb, void* rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* req),
         (sb, rb, n, t, op, comm, req), calls::reduce(s, n, t, op, comm))
TG_ICOLL(MPI_Ireduce_scatter, Op::IreduceScatter,
         (const void* sb, void* rb, const int rc[], MPI_Datatype t, MPI_Op op, MPI_Comm comm, MPI_Request* req),
         (sb, rb, rc, t, op, comm, req), calls::reduceScatter(s, rc, t, op, comm))
TG_ICOLL(MPI_Igather, Op::Igather,
         (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm,
          MPI_Request* req),
         (sb, sc, st, rb, rc, rt, root, comm, req), calls::gather(s, sb == MPI_IN_PLACE, sc, st, rc, rt, root, comm))
TG_ICOLL(MPI_Iscatter, Op::Iscatter,
         (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root, MPI_Comm comm,
          MPI_Request* req),
         (sb, sc, st, rb, rc, rt, root, comm, req), calls::scatter(s, sc, st, rb == MPI_IN_PLACE, rc, rt, root, comm))
TG_ICOLL(MPI_Igatherv, Op::Igatherv,
         (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt, int root,
          MPI_Comm comm, MPI_Request* req),
         (sb, sc, st, rb, rc, d, rt, root, comm, req),
         calls::gatherv(s, sb == MPI_IN_PLACE, sc, st, rc, d, rt, root, comm))
TG_ICOLL(MPI_Iscatterv, Op::Iscatterv,
         (const void* sb, const int sc[], const int d[], MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, int root,
          MPI_Comm comm, MPI_Request* req),
         (sb, sc, d, st, rb, rc, rt, root, comm, req),
         calls::scatterv(s, sc, d, st, rb == MPI_IN_PLACE, rc, rt, root, comm))
TG_ICOLL(MPI_Iallgather, Op::Iallgather,
         (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request* req),
         (sb, sc, st, rb, rc, rt, comm, req), calls::allToAll(s, sb == MPI_IN_PLACE, sc, st, rc, rt, comm))
TG_ICOLL(MPI_Ialltoall, Op::Ialltoall,
         (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request* req),
         (sb, sc, st, rb, rc, rt, comm, req), calls::allToAll(s, sb == MPI_IN_PLACE, sc, st, rc, rt, comm))
TG_ICOLL(MPI_Iallgatherv, Op::Iallgatherv,
         (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt,
          MPI_Comm comm, MPI_Request* req),
         (sb, sc, st, rb, rc, d, rt, comm, req), calls::allgatherv(s, sb == MPI_IN_PLACE, sc, st, rc, d, rt, comm))
TG_ICOLL(MPI_Ialltoallv, Op::Ialltoallv,
         (const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[], const int rd[],
          MPI_Datatype rt, MPI_Comm comm, MPI_Request* req),
         (sb, sc, sd, st, rb, rc, rd, rt, comm, req),
         calls::alltoallv(s, sb == MPI_IN_PLACE, sc, sd, st, rc, rd, rt, comm))
TG_ICOLL(MPI_Ialltoallw, Op::Ialltoallw,
         (const void* sb, const int sc[], const int sd[], const MPI_Datatype st[], void* rb, const int rc[],
          const int rd[], const MPI_Datatype rt[], MPI_Comm comm, MPI_Request* req),
         (sb, sc, sd, st, rb, rc, rd, rt, comm, req), calls::alltoallw(s, sb == MPI_IN_PLACE, sc, st, rc, rt, comm))
#undef TG_ICOLL

// MPI_Alltoallw: per-peer counts and datatypes.
TG_EXPORT int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                            void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                            MPI_Comm comm) {
  CallScope s(Op::Alltoallw);
  if (!s.active())
    return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  s.begin();
  const int rc = PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
  s.end();
  calls::alltoallw(s, sendbuf == MPI_IN_PLACE, sendcounts, sendtypes, recvcounts, recvtypes, comm);
  s.commit();
  return rc;
}

// ---- calls tracegen does not model, recorded as opaque events (OpKind::Opaque,
// OpaqueRequest): the name, the communicator where the call has one, the call site and the
// times, so that nothing the application does passes silently (docs/recording.md, "Opaque
// calls"). A call that returns a request counts as a request-creating call, so the offsets of
// the waits that complete it stay right.

namespace {
template <class F>
int opaqueCall(Op op, MPI_Comm comm, MPI_Request* req, F&& call) {
  CallScope s(op);
  if (!s.active()) return call();
  s.begin();
  const int rc = call();
  s.end();
  if (comm != MPI_COMM_NULL) s.comm(comm);
  if (req) s.created(*req, req);
  s.commit();
  return rc;
}
}  // namespace

#define TG_OPAQUE(NAME, OP, COMM, REQ, PARAMS, ARGS) \
  TG_EXPORT int NAME PARAMS { return opaqueCall(OP, COMM, REQ, [&] { return P##NAME ARGS; }); }
#define TG_NOCOMM MPI_COMM_NULL
#define TG_NOREQ nullptr

// MPI-3 operations not modelled yet

// One-sided communication: the calls tracegen does not model (the modelled ones are at the end
// of the file, with the window constructors, which number the windows)
TG_OPAQUE(MPI_Win_sync, Op::WinSync, TG_NOCOMM, TG_NOREQ, (MPI_Win win), (win))
TG_OPAQUE(MPI_Win_post, Op::WinPost, TG_NOCOMM, TG_NOREQ, (MPI_Group g, int a, MPI_Win win), (g, a, win))
TG_OPAQUE(MPI_Win_start, Op::WinStart, TG_NOCOMM, TG_NOREQ, (MPI_Group g, int a, MPI_Win win), (g, a, win))
TG_OPAQUE(MPI_Win_complete, Op::WinComplete, TG_NOCOMM, TG_NOREQ, (MPI_Win win), (win))
TG_OPAQUE(MPI_Win_wait, Op::WinWait, TG_NOCOMM, TG_NOREQ, (MPI_Win win), (win))
TG_OPAQUE(MPI_Get_accumulate, Op::GetAccumulate, TG_NOCOMM, TG_NOREQ,
          (const void* o, int oc, MPI_Datatype ot, void* r, int rc, MPI_Datatype rt, int rank, MPI_Aint disp, int tc,
           MPI_Datatype tt, MPI_Op op, MPI_Win win),
          (o, oc, ot, r, rc, rt, rank, disp, tc, tt, op, win))
TG_OPAQUE(MPI_Fetch_and_op, Op::FetchAndOp, TG_NOCOMM, TG_NOREQ,
          (const void* o, void* r, MPI_Datatype t, int rank, MPI_Aint disp, MPI_Op op, MPI_Win win),
          (o, r, t, rank, disp, op, win))
TG_OPAQUE(MPI_Compare_and_swap, Op::CompareAndSwap, TG_NOCOMM, TG_NOREQ,
          (const void* o, const void* c, void* r, MPI_Datatype t, int rank, MPI_Aint disp, MPI_Win win),
          (o, c, r, t, rank, disp, win))
TG_OPAQUE(MPI_Rput, Op::Rput, TG_NOCOMM, req,
          (const void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win,
           MPI_Request* req),
          (o, oc, ot, rank, disp, tc, tt, win, req))
TG_OPAQUE(MPI_Rget, Op::Rget, TG_NOCOMM, req,
          (void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win, MPI_Request* req),
          (o, oc, ot, rank, disp, tc, tt, win, req))

// MPI-IO
TG_OPAQUE(MPI_File_set_view, Op::FileSetView, TG_NOCOMM, TG_NOREQ,
          (MPI_File fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft, const char* rep, MPI_Info info),
          (fh, disp, et, ft, rep, info))
TG_OPAQUE(MPI_File_seek, Op::FileSeek, TG_NOCOMM, TG_NOREQ, (MPI_File fh, MPI_Offset off, int whence), (fh, off, whence))
TG_OPAQUE(MPI_File_sync, Op::FileSync, TG_NOCOMM, TG_NOREQ, (MPI_File fh), (fh))
// (MPI_File_open, MPI_File_close and the blocking reads and writes: at the end of the file)
TG_OPAQUE(MPI_File_iread, Op::FileIread, TG_NOCOMM, req, (MPI_File fh, void* b, int n, MPI_Datatype t, MPI_Request* req),
          (fh, b, n, t, req))
TG_OPAQUE(MPI_File_iwrite, Op::FileIwrite, TG_NOCOMM, req,
          (MPI_File fh, const void* b, int n, MPI_Datatype t, MPI_Request* req), (fh, b, n, t, req))
TG_OPAQUE(MPI_File_iread_at, Op::FileIreadAt, TG_NOCOMM, req,
          (MPI_File fh, MPI_Offset off, void* b, int n, MPI_Datatype t, MPI_Request* req), (fh, off, b, n, t, req))
TG_OPAQUE(MPI_File_iwrite_at, Op::FileIwriteAt, TG_NOCOMM, req,
          (MPI_File fh, MPI_Offset off, const void* b, int n, MPI_Datatype t, MPI_Request* req), (fh, off, b, n, t, req))

// Neighbourhood collectives: modelled (after the opaque calls, below)

// Dynamic processes
TG_OPAQUE(MPI_Comm_spawn, Op::CommSpawn, comm, TG_NOREQ,
          (const char* cmd, char* argv[], int n, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* inter, int errs[]),
          (cmd, argv, n, info, root, comm, inter, errs))
TG_OPAQUE(MPI_Comm_connect, Op::CommConnect, comm, TG_NOREQ,
          (const char* port, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* inter), (port, info, root, comm, inter))
TG_OPAQUE(MPI_Comm_accept, Op::CommAccept, comm, TG_NOREQ,
          (const char* port, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* inter), (port, info, root, comm, inter))

#undef TG_OPAQUE
#undef TG_NOCOMM
#undef TG_NOREQ

// ---- one-sided communication (record/OneSided.h; docs/recording.md, "One-sided
// communication"): windows by id and communicator, transfers with origin and target counts and
// types, target ranks, lock types and assertions.

namespace {
namespace onesided = tracegen::record::onesided;

template <class F, class R>
int oneSided(Op op, F&& call, R&& rec) {
  CallScope s(op);
  if (!s.active()) return call();
  s.begin();
  const int rc = call();
  s.end();
  rec(s);
  s.commit();
  return rc;
}
}  // namespace

TG_EXPORT int MPI_Win_create(void* base, MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return oneSided(Op::WinCreate, [&] { return PMPI_Win_create(base, size, unit, info, comm, win); },
                  [&](CallScope& s) { onesided::createdWithMemory(s, *win, comm, size, unit); });
}
TG_EXPORT int MPI_Win_allocate(MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void* base, MPI_Win* win) {
  return oneSided(Op::WinAllocate, [&] { return PMPI_Win_allocate(size, unit, info, comm, base, win); },
                  [&](CallScope& s) { onesided::createdWithMemory(s, *win, comm, size, unit); });
}
// Opaque, but their windows take ids as the others do.
TG_EXPORT int MPI_Win_allocate_shared(MPI_Aint size, int unit, MPI_Info info, MPI_Comm comm, void* base, MPI_Win* win) {
  return oneSided(Op::WinAllocateShared, [&] { return PMPI_Win_allocate_shared(size, unit, info, comm, base, win); },
                  [&](CallScope& s) { onesided::created(s, *win, comm); });
}
TG_EXPORT int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return oneSided(Op::WinCreateDynamic, [&] { return PMPI_Win_create_dynamic(info, comm, win); },
                  [&](CallScope& s) { onesided::created(s, *win, comm); });
}
TG_EXPORT int MPI_Win_free(MPI_Win* win) {
  const MPI_Win old = *win;
  return oneSided(Op::WinFree, [&] { return PMPI_Win_free(win); }, [&](CallScope& s) { onesided::freed(s, old); });
}
TG_EXPORT int MPI_Win_fence(int a, MPI_Win win) {
  return oneSided(Op::WinFence, [&] { return PMPI_Win_fence(a, win); }, [&](CallScope& s) {
    onesided::on(s, win);
    onesided::assertion(s, a);
  });
}
TG_EXPORT int MPI_Win_lock(int type, int rank, int a, MPI_Win win) {
  return oneSided(Op::WinLock, [&] { return PMPI_Win_lock(type, rank, a, win); },
                  [&](CallScope& s) { onesided::lock(s, type, rank, a, win); });
}
TG_EXPORT int MPI_Win_lock_all(int a, MPI_Win win) {
  return oneSided(Op::WinLockAll, [&] { return PMPI_Win_lock_all(a, win); }, [&](CallScope& s) {
    onesided::on(s, win);
    onesided::assertion(s, a);
  });
}
#define TG_WIN_TARGET(NAME, OP)                                                      \
  TG_EXPORT int NAME(int rank, MPI_Win win) {                                        \
    return oneSided(OP, [&] { return P##NAME(rank, win); }, [&](CallScope& s) {      \
      onesided::on(s, win);                                                          \
      s.peer(Param::Dest, rank);                                                     \
    });                                                                              \
  }
TG_WIN_TARGET(MPI_Win_unlock, Op::WinUnlock)
TG_WIN_TARGET(MPI_Win_flush, Op::WinFlush)
TG_WIN_TARGET(MPI_Win_flush_local, Op::WinFlushLocal)
#undef TG_WIN_TARGET
#define TG_WIN_ALL(NAME, OP)                                                                                   \
  TG_EXPORT int NAME(MPI_Win win) {                                                                            \
    return oneSided(OP, [&] { return P##NAME(win); }, [&](CallScope& s) { onesided::on(s, win); }); \
  }
TG_WIN_ALL(MPI_Win_unlock_all, Op::WinUnlockAll)
TG_WIN_ALL(MPI_Win_flush_all, Op::WinFlushAll)
#undef TG_WIN_ALL
TG_EXPORT int MPI_Put(const void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win) {
  return oneSided(Op::Put, [&] { return PMPI_Put(o, oc, ot, rank, disp, tc, tt, win); },
                  [&](CallScope& s) { onesided::transfer(s, oc, ot, rank, tc, tt, win); });
}
TG_EXPORT int MPI_Get(void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt, MPI_Win win) {
  return oneSided(Op::Get, [&] { return PMPI_Get(o, oc, ot, rank, disp, tc, tt, win); },
                  [&](CallScope& s) { onesided::transfer(s, oc, ot, rank, tc, tt, win); });
}
TG_EXPORT int MPI_Accumulate(const void* o, int oc, MPI_Datatype ot, int rank, MPI_Aint disp, int tc, MPI_Datatype tt,
                             MPI_Op op, MPI_Win win) {
  return oneSided(Op::Accumulate, [&] { return PMPI_Accumulate(o, oc, ot, rank, disp, tc, tt, op, win); },
                  [&](CallScope& s) {
                    onesided::transfer(s, oc, ot, rank, tc, tt, win);
                    s.reduceOp(op);
                  });
}

// ---- MPI-IO (record/FileIo.h; docs/recording.md, "MPI-IO"): files by id and communicator,
// reads and writes with counts, datatypes and the offsets of the _at calls.

namespace {
namespace fileio = tracegen::record::fileio;
}  // namespace

TG_EXPORT int MPI_File_open(MPI_Comm comm, const char* name, int mode, MPI_Info info, MPI_File* fh) {
  return oneSided(Op::FileOpen, [&] { return PMPI_File_open(comm, name, mode, info, fh); },
                  [&](CallScope& s) { fileio::opened(s, *fh, comm); });
}
TG_EXPORT int MPI_File_close(MPI_File* fh) {
  const MPI_File old = *fh;
  return oneSided(Op::FileClose, [&] { return PMPI_File_close(fh); }, [&](CallScope& s) { fileio::closed(s, old); });
}
#define TG_FILE_IO(NAME, OP, CONST)                                                                 \
  TG_EXPORT int NAME(MPI_File fh, CONST void* b, int n, MPI_Datatype t, MPI_Status* st) {          \
    return oneSided(OP, [&] { return P##NAME(fh, b, n, t, st); },                                 \
                    [&](CallScope& s) { fileio::access(s, fh, n, t, -1); });                      \
  }
#define TG_FILE_IO_AT(NAME, OP, CONST)                                                                   \
  TG_EXPORT int NAME(MPI_File fh, MPI_Offset off, CONST void* b, int n, MPI_Datatype t, MPI_Status* st) { \
    return oneSided(OP, [&] { return P##NAME(fh, off, b, n, t, st); },                                  \
                    [&](CallScope& s) { fileio::access(s, fh, n, t, off); });                           \
  }
TG_FILE_IO(MPI_File_read, Op::FileRead, )
TG_FILE_IO(MPI_File_write, Op::FileWrite, const)
TG_FILE_IO(MPI_File_read_all, Op::FileReadAll, )
TG_FILE_IO(MPI_File_write_all, Op::FileWriteAll, const)
TG_FILE_IO_AT(MPI_File_read_at, Op::FileReadAt, )
TG_FILE_IO_AT(MPI_File_write_at, Op::FileWriteAt, const)
TG_FILE_IO_AT(MPI_File_read_at_all, Op::FileReadAtAll, )
TG_FILE_IO_AT(MPI_File_write_at_all, Op::FileWriteAtAll, const)
#undef TG_FILE_IO
#undef TG_FILE_IO_AT

// ---- neighbourhood collectives (OpKind Collective; the MPI_Ineighbor_* forms ICollective,
// completed by the recorded waits and tests): counts and datatypes per neighbour (Calls.h).

namespace {
template <class F, class R>
int neighborCollective(Op op, F&& call, R&& record) {
  CallScope s(op);
  if (!s.active()) return call();
  s.begin();
  const int rc = call();
  s.end();
  record(s);
  s.commit();
  return rc;
}
}  // namespace

#define TG_NCOLL(NAME, OP, PARAMS, ARGS, RECORD) \
  TG_EXPORT int NAME PARAMS { return neighborCollective(OP, [&] { return P##NAME ARGS; }, [&](CallScope& s) { RECORD; }); }
#define TG_INCOLL(NAME, OP, PARAMS, ARGS, RECORD) \
  TG_EXPORT int NAME PARAMS {                     \
    return nonblockingCollective(OP, req, [&] { return P##NAME ARGS; }, [&](CallScope& s) { RECORD; }); \
  }
TG_NCOLL(MPI_Neighbor_allgather, Op::NeighborAllgather,
         (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm),
         (sb, sc, st, rb, rc, rt, comm), calls::neighborAllToAll(s, sc, st, rc, rt, comm))
TG_NCOLL(MPI_Neighbor_alltoall, Op::NeighborAlltoall,
         (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm),
         (sb, sc, st, rb, rc, rt, comm), calls::neighborAllToAll(s, sc, st, rc, rt, comm))
TG_NCOLL(MPI_Neighbor_allgatherv, Op::NeighborAllgatherv,
         (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt,
          MPI_Comm comm),
         (sb, sc, st, rb, rc, d, rt, comm), calls::neighborAllgatherv(s, sc, st, rc, rt, comm))
TG_NCOLL(MPI_Neighbor_alltoallv, Op::NeighborAlltoallv,
         (const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[], const int rd[],
          MPI_Datatype rt, MPI_Comm comm),
         (sb, sc, sd, st, rb, rc, rd, rt, comm), calls::neighborAlltoallv(s, sc, st, rc, rt, comm))
TG_NCOLL(MPI_Neighbor_alltoallw, Op::NeighborAlltoallw,
         (const void* sb, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void* rb, const int rc[],
          const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm),
         (sb, sc, sd, st, rb, rc, rd, rt, comm), calls::neighborAlltoallw(s, sc, st, rc, rt, comm))
TG_INCOLL(MPI_Ineighbor_allgather, Op::IneighborAllgather,
          (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request* req),
          (sb, sc, st, rb, rc, rt, comm, req), calls::neighborAllToAll(s, sc, st, rc, rt, comm))
TG_INCOLL(MPI_Ineighbor_alltoall, Op::IneighborAlltoall,
          (const void* sb, int sc, MPI_Datatype st, void* rb, int rc, MPI_Datatype rt, MPI_Comm comm, MPI_Request* req),
          (sb, sc, st, rb, rc, rt, comm, req), calls::neighborAllToAll(s, sc, st, rc, rt, comm))
TG_INCOLL(MPI_Ineighbor_allgatherv, Op::IneighborAllgatherv,
          (const void* sb, int sc, MPI_Datatype st, void* rb, const int rc[], const int d[], MPI_Datatype rt,
           MPI_Comm comm, MPI_Request* req),
          (sb, sc, st, rb, rc, d, rt, comm, req), calls::neighborAllgatherv(s, sc, st, rc, rt, comm))
TG_INCOLL(MPI_Ineighbor_alltoallv, Op::IneighborAlltoallv,
          (const void* sb, const int sc[], const int sd[], MPI_Datatype st, void* rb, const int rc[], const int rd[],
           MPI_Datatype rt, MPI_Comm comm, MPI_Request* req),
          (sb, sc, sd, st, rb, rc, rd, rt, comm, req), calls::neighborAlltoallv(s, sc, st, rc, rt, comm))
TG_INCOLL(MPI_Ineighbor_alltoallw, Op::IneighborAlltoallw,
          (const void* sb, const int sc[], const MPI_Aint sd[], const MPI_Datatype st[], void* rb, const int rc[],
           const MPI_Aint rd[], const MPI_Datatype rt[], MPI_Comm comm, MPI_Request* req),
          (sb, sc, sd, st, rb, rc, rd, rt, comm, req), calls::neighborAlltoallw(s, sc, st, rc, rt, comm))
#undef TG_NCOLL
#undef TG_INCOLL
