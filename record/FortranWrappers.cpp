// The Fortran entry points of the recorder.
//
// Open MPI's Fortran bindings (mpif.h and `use mpi`) call PMPI_* directly, so a Fortran program
// never reaches the C wrappers. For each intercepted function this file defines the usual
// manglings (mpi_send_, mpi_send, mpi_send__, MPI_SEND); each converts the handles it needs to C
// (MPI_*_f2c) for the shared recording code of Calls.h and performs the operation through the
// standard Fortran profiling entry (pmpi_send_, found with dlsym), which leaves buffer sentinels
// (MPI_IN_PLACE, MPI_BOTTOM), status arrays and error codes to the MPI library. Fortran indices
// (Waitany, Waitsome) are 1-based and are converted. The mpi_f08 bindings (mpi_send_f08) are not
// intercepted.
#include <dlfcn.h>
#include <mpi.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
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
using Fint = MPI_Fint;

static_assert(sizeof(Fint) == sizeof(int), "Fortran INTEGER arrays are passed to the C recording code as int arrays");

namespace {

// Initial-exec, as the recorder's other thread-locals: the library is preloaded, and an access
// then costs no __tls_get_addr call.
thread_local std::vector<tracegen::record::RequestPick> t_picks __attribute__((tls_model("initial-exec")));
thread_local std::vector<MPI_Request> t_converted __attribute__((tls_model("initial-exec")));

// The MPI library's Fortran profiling entry `pmpi_<base>` under whichever mangling it exports.
void* resolvePmpi(const char* base) {
  const std::string b = std::string("pmpi_") + base;
  std::string upper = b;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const std::string& name : {b + "_", b + "__", b, upper})
    if (void* p = dlsym(RTLD_DEFAULT, name.c_str())) return p;
  std::fprintf(stderr, "tracegen-record: the MPI library has no Fortran entry %s_\n", b.c_str());
  std::abort();
}

// Address of Open MPI's Fortran MPI_IN_PLACE (a common block), or null if not loaded.
const void* fortranInPlace() {
  static const void* addr = [] {
    for (const char* n : {"mpi_fortran_in_place_", "mpi_fortran_in_place__", "mpi_fortran_in_place", "MPI_FORTRAN_IN_PLACE"})
      if (void* p = dlsym(RTLD_DEFAULT, n)) return static_cast<const void*>(p);
    return static_cast<const void*>(nullptr);
  }();
  return addr;
}
bool inPlace(const void* buf) { return buf != nullptr && buf == fortranInPlace(); }

template <class Call, class Rec>
void run(Op op, Call&& call, Rec&& rec) {
  CallScope s(op);
  if (!s.active()) {
    call();
    return;
  }
  s.begin();
  call();
  s.end();
  rec(s);
  s.commit();
}

MPI_Comm C(const Fint* c) { return PMPI_Comm_f2c(*c); }
MPI_Datatype T(const Fint* t) { return PMPI_Type_f2c(*t); }
MPI_Op O(const Fint* o) { return PMPI_Op_f2c(*o); }
MPI_Group G(const Fint* g) { return PMPI_Group_f2c(*g); }
const int* I(const Fint* a) { return reinterpret_cast<const int*>(a); }

const MPI_Request* convertRequests(const Fint* reqs, Fint n) {
  t_converted.resize(static_cast<std::size_t>(n));
  for (Fint i = 0; i < n; ++i) t_converted[static_cast<std::size_t>(i)] = PMPI_Request_f2c(reqs[i]);
  return t_converted.data();
}

}  // namespace

#define TG_PMPI(base, TYPE)                                                      \
  static TYPE pmpi_##base() {                                                     \
    static const TYPE f = reinterpret_cast<TYPE>(resolvePmpi(#base));            \
    return f;                                                                     \
  }

// Defines the four manglings of mpi_<base>, all calling base##_impl.
#define TG_FORTRAN(base, UPPER, PARAMS, ARGS)            \
  TG_EXPORT void mpi_##base##_ PARAMS { base##_impl ARGS; }  \
  TG_EXPORT void mpi_##base PARAMS { base##_impl ARGS; }     \
  TG_EXPORT void mpi_##base##__ PARAMS { base##_impl ARGS; } \
  TG_EXPORT void UPPER PARAMS { base##_impl ARGS; }

// ---- environment

using InitF = void (*)(Fint*);
using InitThreadF = void (*)(Fint*, Fint*, Fint*);
TG_PMPI(init, InitF)
TG_PMPI(init_thread, InitThreadF)
TG_PMPI(finalize, InitF)

static void init_impl(Fint* ierr) {
  tracegen::record::WrapperDepth depth;
  const double age = tracegen::record::timeSinceLoadUs();
  pmpi_init()(ierr);
  if (!depth.nested() && *ierr == MPI_SUCCESS) tracegen::record::recorderStart(Op::Init, age);
}
static void init_thread_impl(Fint* required, Fint* provided, Fint* ierr) {
  tracegen::record::WrapperDepth depth;
  const double age = tracegen::record::timeSinceLoadUs();
  pmpi_init_thread()(required, provided, ierr);
  if (!depth.nested() && *ierr == MPI_SUCCESS) tracegen::record::recorderStart(Op::InitThread, age);
}
static void finalize_impl(Fint* ierr) {
  tracegen::record::WrapperDepth depth;
  if (!depth.nested()) tracegen::record::recorderFinish();
  pmpi_finalize()(ierr);
  if (!depth.nested()) tracegen::record::recorderFinalized();
}
TG_FORTRAN(init, MPI_INIT, (Fint * ierr), (ierr))
TG_FORTRAN(init_thread, MPI_INIT_THREAD, (Fint * required, Fint * provided, Fint * ierr), (required, provided, ierr))
TG_FORTRAN(finalize, MPI_FINALIZE, (Fint * ierr), (ierr))

// ---- point to point

using SendF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using IsendF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(send, SendF)
TG_PMPI(ssend, SendF)
TG_PMPI(rsend, SendF)
TG_PMPI(bsend, SendF)
TG_PMPI(isend, IsendF)
TG_PMPI(issend, IsendF)
TG_PMPI(irsend, IsendF)
TG_PMPI(ibsend, IsendF)

static void sendImpl(Op op, SendF f, void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* ierr) {
  run(op, [&] { f(buf, count, type, dest, tag, comm, ierr); },
      [&](CallScope& s) { calls::p2p(s, Param::Dest, *count, T(type), *dest, *tag, C(comm)); });
}
static void isendImpl(Op op, IsendF f, void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* req,
                      Fint* ierr) {
  run(op, [&] { f(buf, count, type, dest, tag, comm, req, ierr); },
      [&](CallScope& s) {
        calls::p2p(s, Param::Dest, *count, T(type), *dest, *tag, C(comm));
        s.created(PMPI_Request_f2c(*req), req);
      });
}
#define TG_FSEND(base, UPPER, OP)                                                                                   \
  static void base##_impl(void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* ierr) {      \
    sendImpl(OP, pmpi_##base(), buf, count, type, dest, tag, comm, ierr);                                           \
  }                                                                                                                 \
  TG_FORTRAN(base, UPPER, (void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* ierr),       \
             (buf, count, type, dest, tag, comm, ierr))
#define TG_FISEND(base, UPPER, OP)                                                                                          \
  static void base##_impl(void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* req, Fint* ierr) {   \
    isendImpl(OP, pmpi_##base(), buf, count, type, dest, tag, comm, req, ierr);                                             \
  }                                                                                                                         \
  TG_FORTRAN(base, UPPER, (void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* req, Fint* ierr),    \
             (buf, count, type, dest, tag, comm, req, ierr))
TG_FSEND(send, MPI_SEND, Op::Send)
TG_FSEND(ssend, MPI_SSEND, Op::Ssend)
TG_FSEND(rsend, MPI_RSEND, Op::Rsend)
TG_FSEND(bsend, MPI_BSEND, Op::Bsend)
TG_FISEND(isend, MPI_ISEND, Op::Isend)
TG_FISEND(issend, MPI_ISSEND, Op::Issend)
TG_FISEND(irsend, MPI_IRSEND, Op::Irsend)
TG_FISEND(ibsend, MPI_IBSEND, Op::Ibsend)

using RecvF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(recv, RecvF)
TG_PMPI(irecv, RecvF)
static void recv_impl(void* buf, Fint* count, Fint* type, Fint* source, Fint* tag, Fint* comm, Fint* status, Fint* ierr) {
  run(Op::Recv, [&] { pmpi_recv()(buf, count, type, source, tag, comm, status, ierr); },
      [&](CallScope& s) { calls::p2p(s, Param::Source, *count, T(type), *source, *tag, C(comm)); });
}
static void irecv_impl(void* buf, Fint* count, Fint* type, Fint* source, Fint* tag, Fint* comm, Fint* req, Fint* ierr) {
  run(Op::Irecv, [&] { pmpi_irecv()(buf, count, type, source, tag, comm, req, ierr); },
      [&](CallScope& s) {
        calls::p2p(s, Param::Source, *count, T(type), *source, *tag, C(comm));
        s.created(PMPI_Request_f2c(*req), req);
      });
}
TG_FORTRAN(recv, MPI_RECV, (void* buf, Fint* count, Fint* type, Fint* source, Fint* tag, Fint* comm, Fint* status, Fint* ierr),
           (buf, count, type, source, tag, comm, status, ierr))
TG_FORTRAN(irecv, MPI_IRECV, (void* buf, Fint* count, Fint* type, Fint* source, Fint* tag, Fint* comm, Fint* req, Fint* ierr),
           (buf, count, type, source, tag, comm, req, ierr))

using SendrecvF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(sendrecv, SendrecvF)
static void sendrecv_impl(void* sbuf, Fint* scount, Fint* stype, Fint* dest, Fint* stag, void* rbuf, Fint* rcount, Fint* rtype,
                          Fint* source, Fint* rtag, Fint* comm, Fint* status, Fint* ierr) {
  run(Op::Sendrecv, [&] { pmpi_sendrecv()(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr); },
      [&](CallScope& s) {
        calls::sendrecv(s, *scount, T(stype), *dest, *stag, *rcount, T(rtype), *source, *rtag, C(comm));
      });
}
TG_FORTRAN(sendrecv, MPI_SENDRECV,
           (void* sbuf, Fint* scount, Fint* stype, Fint* dest, Fint* stag, void* rbuf, Fint* rcount, Fint* rtype, Fint* source,
            Fint* rtag, Fint* comm, Fint* status, Fint* ierr),
           (sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, status, ierr))

using SendrecvReplaceF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(sendrecv_replace, SendrecvReplaceF)
static void sendrecv_replace_impl(void* buf, Fint* count, Fint* type, Fint* dest, Fint* stag, Fint* source, Fint* rtag,
                                  Fint* comm, Fint* status, Fint* ierr) {
  run(Op::SendrecvReplace, [&] { pmpi_sendrecv_replace()(buf, count, type, dest, stag, source, rtag, comm, status, ierr); },
      [&](CallScope& s) { calls::sendrecvReplace(s, *count, T(type), *dest, *stag, *source, *rtag, C(comm)); });
}
TG_FORTRAN(sendrecv_replace, MPI_SENDRECV_REPLACE,
           (void* buf, Fint* count, Fint* type, Fint* dest, Fint* stag, Fint* source, Fint* rtag, Fint* comm, Fint* status,
            Fint* ierr),
           (buf, count, type, dest, stag, source, rtag, comm, status, ierr))

using ProbeF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
using IprobeF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(probe, ProbeF)
TG_PMPI(iprobe, IprobeF)
static void probe_impl(Fint* source, Fint* tag, Fint* comm, Fint* status, Fint* ierr) {
  run(Op::Probe, [&] { pmpi_probe()(source, tag, comm, status, ierr); },
      [&](CallScope& s) { calls::probe(s, *source, *tag, C(comm)); });
}
static void iprobe_impl(Fint* source, Fint* tag, Fint* comm, Fint* flag, Fint* status, Fint* ierr) {
  run(Op::Iprobe, [&] { pmpi_iprobe()(source, tag, comm, flag, status, ierr); },
      [&](CallScope& s) { calls::probe(s, *source, *tag, C(comm)); });
}
TG_FORTRAN(probe, MPI_PROBE, (Fint * source, Fint* tag, Fint* comm, Fint* status, Fint* ierr), (source, tag, comm, status, ierr))
TG_FORTRAN(iprobe, MPI_IPROBE, (Fint * source, Fint* tag, Fint* comm, Fint* flag, Fint* status, Fint* ierr),
           (source, tag, comm, flag, status, ierr))

// ---- completion: the requests' C handles and offsets are taken before the call frees them.

using WaitF = void (*)(Fint*, Fint*, Fint*);
using TestF = void (*)(Fint*, Fint*, Fint*, Fint*);
using WaitallF = void (*)(Fint*, Fint*, Fint*, Fint*);
using TestallF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
using WaitanyF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
using TestanyF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using WaitsomeF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(wait, WaitF)
TG_PMPI(test, TestF)
TG_PMPI(waitall, WaitallF)
TG_PMPI(testall, TestallF)
TG_PMPI(waitany, WaitanyF)
TG_PMPI(testany, TestanyF)
TG_PMPI(waitsome, WaitsomeF)
TG_PMPI(testsome, WaitsomeF)

template <class Call>
static void completion(Op op, Call&& call, const Fint* reqs, Fint n, const std::function<void(CallScope&)>& rec) {
  CallScope s(op);
  if (!s.active()) {
    call();
    return;
  }
  calls::pickAll(s, convertRequests(reqs, n), reqs, sizeof(Fint), n, t_picks);
  s.begin();
  call();
  s.end();
  rec(s);
  s.commit();
}

// 1-based Fortran indices to 0-based ones.
static std::vector<int> zeroBased(const Fint* idx, int n) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i) v.push_back(idx[i] - 1);
  return v;
}

static void wait_impl(Fint* req, Fint* status, Fint* ierr) {
  completion(Op::Wait, [&] { pmpi_wait()(req, status, ierr); }, req, 1,
             [&](CallScope& s) { calls::completeOne(s, t_picks[0], true); });
}
static void test_impl(Fint* req, Fint* flag, Fint* status, Fint* ierr) {
  completion(Op::Test, [&] { pmpi_test()(req, flag, status, ierr); }, req, 1,
             [&](CallScope& s) { calls::completeOne(s, t_picks[0], *flag != 0); });
}
static void waitall_impl(Fint* count, Fint* reqs, Fint* statuses, Fint* ierr) {
  completion(Op::Waitall, [&] { pmpi_waitall()(count, reqs, statuses, ierr); }, reqs, *count,
             [&](CallScope& s) { calls::completeAll(s, t_picks, true); });
}
static void testall_impl(Fint* count, Fint* reqs, Fint* flag, Fint* statuses, Fint* ierr) {
  completion(Op::Testall, [&] { pmpi_testall()(count, reqs, flag, statuses, ierr); }, reqs, *count,
             [&](CallScope& s) { calls::completeAll(s, t_picks, *flag != 0); });
}
static void waitany_impl(Fint* count, Fint* reqs, Fint* index, Fint* status, Fint* ierr) {
  completion(Op::Waitany, [&] { pmpi_waitany()(count, reqs, index, status, ierr); }, reqs, *count, [&](CallScope& s) {
    const int k = *index - 1;
    calls::completeSome(s, t_picks, &k, *index == MPI_UNDEFINED ? 0 : 1);
  });
}
static void testany_impl(Fint* count, Fint* reqs, Fint* index, Fint* flag, Fint* status, Fint* ierr) {
  completion(Op::Testany, [&] { pmpi_testany()(count, reqs, index, flag, status, ierr); }, reqs, *count, [&](CallScope& s) {
    const int k = *index - 1;
    calls::completeSome(s, t_picks, &k, (*flag != 0 && *index != MPI_UNDEFINED) ? 1 : 0);
  });
}
static void waitsome_impl(Fint* incount, Fint* reqs, Fint* outcount, Fint* indices, Fint* statuses, Fint* ierr) {
  completion(Op::Waitsome, [&] { pmpi_waitsome()(incount, reqs, outcount, indices, statuses, ierr); }, reqs, *incount,
             [&](CallScope& s) {
               const int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
               const std::vector<int> k = zeroBased(indices, n);
               calls::completeSome(s, t_picks, k.data(), n);
             });
}
static void testsome_impl(Fint* incount, Fint* reqs, Fint* outcount, Fint* indices, Fint* statuses, Fint* ierr) {
  completion(Op::Testsome, [&] { pmpi_testsome()(incount, reqs, outcount, indices, statuses, ierr); }, reqs, *incount,
             [&](CallScope& s) {
               const int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
               const std::vector<int> k = zeroBased(indices, n);
               calls::completeSome(s, t_picks, k.data(), n);
             });
}
TG_FORTRAN(wait, MPI_WAIT, (Fint * req, Fint* status, Fint* ierr), (req, status, ierr))
TG_FORTRAN(test, MPI_TEST, (Fint * req, Fint* flag, Fint* status, Fint* ierr), (req, flag, status, ierr))
TG_FORTRAN(waitall, MPI_WAITALL, (Fint * count, Fint* reqs, Fint* statuses, Fint* ierr), (count, reqs, statuses, ierr))
TG_FORTRAN(testall, MPI_TESTALL, (Fint * count, Fint* reqs, Fint* flag, Fint* statuses, Fint* ierr),
           (count, reqs, flag, statuses, ierr))
TG_FORTRAN(waitany, MPI_WAITANY, (Fint * count, Fint* reqs, Fint* index, Fint* status, Fint* ierr),
           (count, reqs, index, status, ierr))
TG_FORTRAN(testany, MPI_TESTANY, (Fint * count, Fint* reqs, Fint* index, Fint* flag, Fint* status, Fint* ierr),
           (count, reqs, index, flag, status, ierr))
TG_FORTRAN(waitsome, MPI_WAITSOME, (Fint * incount, Fint* reqs, Fint* outcount, Fint* indices, Fint* statuses, Fint* ierr),
           (incount, reqs, outcount, indices, statuses, ierr))
TG_FORTRAN(testsome, MPI_TESTSOME, (Fint * incount, Fint* reqs, Fint* outcount, Fint* indices, Fint* statuses, Fint* ierr),
           (incount, reqs, outcount, indices, statuses, ierr))

// ---- collectives

using BarrierF = void (*)(Fint*, Fint*);
using BcastF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, Fint*);
using ReduceF = void (*)(void*, void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using AllreduceF = void (*)(void*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
using ReduceScatterF = void (*)(void*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
using GatherF = void (*)(void*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
using GathervF = void (*)(void*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using ScattervF = void (*)(void*, Fint*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
using AllgatherF = void (*)(void*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*);
using AllgathervF = void (*)(void*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
using AlltoallvF = void (*)(void*, Fint*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(barrier, BarrierF)
TG_PMPI(bcast, BcastF)
TG_PMPI(reduce, ReduceF)
TG_PMPI(allreduce, AllreduceF)
TG_PMPI(scan, AllreduceF)
TG_PMPI(reduce_scatter, ReduceScatterF)
TG_PMPI(gather, GatherF)
TG_PMPI(gatherv, GathervF)
TG_PMPI(scatter, GatherF)
TG_PMPI(scatterv, ScattervF)
TG_PMPI(allgather, AllgatherF)
TG_PMPI(allgatherv, AllgathervF)
TG_PMPI(alltoall, AllgatherF)
TG_PMPI(alltoallv, AlltoallvF)

static void barrier_impl(Fint* comm, Fint* ierr) {
  run(Op::Barrier, [&] { pmpi_barrier()(comm, ierr); }, [&](CallScope& s) { calls::barrier(s, C(comm)); });
}
static void bcast_impl(void* buf, Fint* count, Fint* type, Fint* root, Fint* comm, Fint* ierr) {
  run(Op::Bcast, [&] { pmpi_bcast()(buf, count, type, root, comm, ierr); },
      [&](CallScope& s) { calls::bcast(s, *count, T(type), *root, C(comm)); });
}
static void reduce_impl(void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* op, Fint* root, Fint* comm, Fint* ierr) {
  run(Op::Reduce, [&] { pmpi_reduce()(sbuf, rbuf, count, type, op, root, comm, ierr); }, [&](CallScope& s) {
    calls::reduce(s, *count, T(type), O(op), C(comm));
    s.root(*root);
  });
}
static void allreduce_impl(void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* op, Fint* comm, Fint* ierr) {
  run(Op::Allreduce, [&] { pmpi_allreduce()(sbuf, rbuf, count, type, op, comm, ierr); },
      [&](CallScope& s) { calls::reduce(s, *count, T(type), O(op), C(comm)); });
}
static void scan_impl(void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* op, Fint* comm, Fint* ierr) {
  run(Op::Scan, [&] { pmpi_scan()(sbuf, rbuf, count, type, op, comm, ierr); },
      [&](CallScope& s) { calls::reduce(s, *count, T(type), O(op), C(comm)); });
}
static void reduce_scatter_impl(void* sbuf, void* rbuf, Fint* rcounts, Fint* type, Fint* op, Fint* comm, Fint* ierr) {
  run(Op::ReduceScatter, [&] { pmpi_reduce_scatter()(sbuf, rbuf, rcounts, type, op, comm, ierr); },
      [&](CallScope& s) { calls::reduceScatter(s, I(rcounts), T(type), O(op), C(comm)); });
}
static void gather_impl(void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* root, Fint* comm,
                        Fint* ierr) {
  run(Op::Gather, [&] { pmpi_gather()(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr); }, [&](CallScope& s) {
    calls::gather(s, inPlace(sbuf), *scount, T(stype), *rcount, T(rtype), *root, C(comm));
  });
}
static void gatherv_impl(void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcounts, Fint* displs, Fint* rtype,
                         Fint* root, Fint* comm, Fint* ierr) {
  run(Op::Gatherv, [&] { pmpi_gatherv()(sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr); },
      [&](CallScope& s) {
        calls::gatherv(s, inPlace(sbuf), *scount, T(stype), I(rcounts), I(displs), T(rtype), *root, C(comm));
      });
}
static void scatter_impl(void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* root, Fint* comm,
                         Fint* ierr) {
  run(Op::Scatter, [&] { pmpi_scatter()(sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr); }, [&](CallScope& s) {
    calls::scatter(s, *scount, T(stype), inPlace(rbuf), *rcount, T(rtype), *root, C(comm));
  });
}
static void scatterv_impl(void* sbuf, Fint* scounts, Fint* displs, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype,
                          Fint* root, Fint* comm, Fint* ierr) {
  run(Op::Scatterv, [&] { pmpi_scatterv()(sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr); },
      [&](CallScope& s) {
        calls::scatterv(s, I(scounts), I(displs), T(stype), inPlace(rbuf), *rcount, T(rtype), *root, C(comm));
      });
}
static void allgather_impl(void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* comm,
                           Fint* ierr) {
  run(Op::Allgather, [&] { pmpi_allgather()(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr); },
      [&](CallScope& s) { calls::allToAll(s, inPlace(sbuf), *scount, T(stype), *rcount, T(rtype), C(comm)); });
}
static void allgatherv_impl(void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcounts, Fint* displs, Fint* rtype,
                            Fint* comm, Fint* ierr) {
  run(Op::Allgatherv, [&] { pmpi_allgatherv()(sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr); },
      [&](CallScope& s) {
        calls::allgatherv(s, inPlace(sbuf), *scount, T(stype), I(rcounts), I(displs), T(rtype), C(comm));
      });
}
static void alltoall_impl(void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* comm,
                          Fint* ierr) {
  run(Op::Alltoall, [&] { pmpi_alltoall()(sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr); },
      [&](CallScope& s) { calls::allToAll(s, inPlace(sbuf), *scount, T(stype), *rcount, T(rtype), C(comm)); });
}
static void alltoallv_impl(void* sbuf, Fint* scounts, Fint* sdispls, Fint* stype, void* rbuf, Fint* rcounts, Fint* rdispls,
                           Fint* rtype, Fint* comm, Fint* ierr) {
  run(Op::Alltoallv,
      [&] { pmpi_alltoallv()(sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr); },
      [&](CallScope& s) {
        calls::alltoallv(s, inPlace(sbuf), I(scounts), I(sdispls), T(stype), I(rcounts), I(rdispls), T(rtype), C(comm));
      });
}
TG_FORTRAN(barrier, MPI_BARRIER, (Fint * comm, Fint* ierr), (comm, ierr))
TG_FORTRAN(bcast, MPI_BCAST, (void* buf, Fint* count, Fint* type, Fint* root, Fint* comm, Fint* ierr),
           (buf, count, type, root, comm, ierr))
TG_FORTRAN(reduce, MPI_REDUCE,
           (void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* op, Fint* root, Fint* comm, Fint* ierr),
           (sbuf, rbuf, count, type, op, root, comm, ierr))
TG_FORTRAN(allreduce, MPI_ALLREDUCE, (void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* op, Fint* comm, Fint* ierr),
           (sbuf, rbuf, count, type, op, comm, ierr))
TG_FORTRAN(scan, MPI_SCAN, (void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* op, Fint* comm, Fint* ierr),
           (sbuf, rbuf, count, type, op, comm, ierr))
TG_FORTRAN(reduce_scatter, MPI_REDUCE_SCATTER,
           (void* sbuf, void* rbuf, Fint* rcounts, Fint* type, Fint* op, Fint* comm, Fint* ierr),
           (sbuf, rbuf, rcounts, type, op, comm, ierr))
TG_FORTRAN(gather, MPI_GATHER,
           (void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* root, Fint* comm, Fint* ierr),
           (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr))
TG_FORTRAN(gatherv, MPI_GATHERV,
           (void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcounts, Fint* displs, Fint* rtype, Fint* root,
            Fint* comm, Fint* ierr),
           (sbuf, scount, stype, rbuf, rcounts, displs, rtype, root, comm, ierr))
TG_FORTRAN(scatter, MPI_SCATTER,
           (void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* root, Fint* comm, Fint* ierr),
           (sbuf, scount, stype, rbuf, rcount, rtype, root, comm, ierr))
TG_FORTRAN(scatterv, MPI_SCATTERV,
           (void* sbuf, Fint* scounts, Fint* displs, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* root,
            Fint* comm, Fint* ierr),
           (sbuf, scounts, displs, stype, rbuf, rcount, rtype, root, comm, ierr))
TG_FORTRAN(allgather, MPI_ALLGATHER,
           (void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* comm, Fint* ierr),
           (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr))
TG_FORTRAN(allgatherv, MPI_ALLGATHERV,
           (void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcounts, Fint* displs, Fint* rtype, Fint* comm,
            Fint* ierr),
           (sbuf, scount, stype, rbuf, rcounts, displs, rtype, comm, ierr))
TG_FORTRAN(alltoall, MPI_ALLTOALL,
           (void* sbuf, Fint* scount, Fint* stype, void* rbuf, Fint* rcount, Fint* rtype, Fint* comm, Fint* ierr),
           (sbuf, scount, stype, rbuf, rcount, rtype, comm, ierr))
TG_FORTRAN(alltoallv, MPI_ALLTOALLV,
           (void* sbuf, Fint* scounts, Fint* sdispls, Fint* stype, void* rbuf, Fint* rcounts, Fint* rdispls, Fint* rtype,
            Fint* comm, Fint* ierr),
           (sbuf, scounts, sdispls, stype, rbuf, rcounts, rdispls, rtype, comm, ierr))

// ---- communicators

using CommSplitF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
using CommDupF = void (*)(Fint*, Fint*, Fint*);
using CommCreateF = void (*)(Fint*, Fint*, Fint*, Fint*);
using CommFreeF = void (*)(Fint*, Fint*);
TG_PMPI(comm_split, CommSplitF)
TG_PMPI(comm_dup, CommDupF)
TG_PMPI(comm_create, CommCreateF)
TG_PMPI(comm_free, CommFreeF)

static void comm_split_impl(Fint* comm, Fint* color, Fint* key, Fint* newcomm, Fint* ierr) {
  run(Op::CommSplit, [&] { pmpi_comm_split()(comm, color, key, newcomm, ierr); },
      [&](CallScope& s) { calls::commSplit(s, C(comm), *color, *key, C(newcomm)); });
}
static void comm_dup_impl(Fint* comm, Fint* newcomm, Fint* ierr) {
  run(Op::CommDup, [&] { pmpi_comm_dup()(comm, newcomm, ierr); },
      [&](CallScope& s) { calls::commCopy(s, C(comm), C(newcomm), "dup"); });
}
static void comm_create_impl(Fint* comm, Fint* group, Fint* newcomm, Fint* ierr) {
  run(Op::CommCreate, [&] { pmpi_comm_create()(comm, group, newcomm, ierr); },
      [&](CallScope& s) { calls::commCreate(s, C(comm), G(group), C(newcomm)); });
}
static void comm_free_impl(Fint* comm, Fint* ierr) {
  const MPI_Comm old = C(comm);  // the handle the call frees
  run(Op::CommFree, [&] { pmpi_comm_free()(comm, ierr); }, [&](CallScope& s) { s.set(Param::Comm, s.freedComm(old)); });
}
TG_FORTRAN(comm_split, MPI_COMM_SPLIT, (Fint * comm, Fint* color, Fint* key, Fint* newcomm, Fint* ierr),
           (comm, color, key, newcomm, ierr))
TG_FORTRAN(comm_dup, MPI_COMM_DUP, (Fint * comm, Fint* newcomm, Fint* ierr), (comm, newcomm, ierr))
TG_FORTRAN(comm_create, MPI_COMM_CREATE, (Fint * comm, Fint* group, Fint* newcomm, Fint* ierr), (comm, group, newcomm, ierr))
TG_FORTRAN(comm_free, MPI_COMM_FREE, (Fint * comm, Fint* ierr), (comm, ierr))

// ---- groups

using CommGroupF = void (*)(Fint*, Fint*, Fint*);
using GroupSubsetF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
using GroupPairF = void (*)(Fint*, Fint*, Fint*, Fint*);
using GroupFreeF = void (*)(Fint*, Fint*);
TG_PMPI(comm_group, CommGroupF)
TG_PMPI(group_incl, GroupSubsetF)
TG_PMPI(group_excl, GroupSubsetF)
TG_PMPI(group_range_incl, GroupSubsetF)
TG_PMPI(group_range_excl, GroupSubsetF)
TG_PMPI(group_union, GroupPairF)
TG_PMPI(group_intersection, GroupPairF)
TG_PMPI(group_difference, GroupPairF)
TG_PMPI(group_free, GroupFreeF)

static void comm_group_impl(Fint* comm, Fint* group, Fint* ierr) {
  run(Op::CommGroup, [&] { pmpi_comm_group()(comm, group, ierr); },
      [&](CallScope& s) { calls::commGroup(s, C(comm), G(group)); });
}
// RANKS(n) of MPI_GROUP_INCL/EXCL, RANGES(3, n) of MPI_GROUP_RANGE_INCL/EXCL: column-major, so
// the triples lie one after the other as in C.
#define TG_GROUP_SUBSET(base, OP, LIST, WIDTH)                                                          \
  static void base##_impl(Fint* group, Fint* n, Fint* values, Fint* newgroup, Fint* ierr) {             \
    run(OP, [&] { pmpi_##base()(group, n, values, newgroup, ierr); },                                   \
        [&](CallScope& s) { calls::groupSubset(s, LIST, G(group), *n, I(values), WIDTH, G(newgroup)); }); \
  }
TG_GROUP_SUBSET(group_incl, Op::GroupIncl, Param::GroupRanks, 1)
TG_GROUP_SUBSET(group_excl, Op::GroupExcl, Param::GroupRanks, 1)
TG_GROUP_SUBSET(group_range_incl, Op::GroupRangeIncl, Param::GroupRanges, 3)
TG_GROUP_SUBSET(group_range_excl, Op::GroupRangeExcl, Param::GroupRanges, 3)
#undef TG_GROUP_SUBSET
#define TG_GROUP_PAIR(base, OP)                                                                  \
  static void base##_impl(Fint* group1, Fint* group2, Fint* newgroup, Fint* ierr) {              \
    run(OP, [&] { pmpi_##base()(group1, group2, newgroup, ierr); },                              \
        [&](CallScope& s) { calls::groupPair(s, G(group1), G(group2), G(newgroup)); });          \
  }
TG_GROUP_PAIR(group_union, Op::GroupUnion)
TG_GROUP_PAIR(group_intersection, Op::GroupIntersection)
TG_GROUP_PAIR(group_difference, Op::GroupDifference)
#undef TG_GROUP_PAIR
static void group_free_impl(Fint* group, Fint* ierr) {
  const MPI_Group old = G(group);  // the handle the call frees
  run(Op::GroupFree, [&] { pmpi_group_free()(group, ierr); },
      [&](CallScope& s) { s.set(Param::Group, s.freedGroup(old)); });
}
TG_FORTRAN(comm_group, MPI_COMM_GROUP, (Fint * comm, Fint* group, Fint* ierr), (comm, group, ierr))
TG_FORTRAN(group_incl, MPI_GROUP_INCL, (Fint * group, Fint* n, Fint* ranks, Fint* newgroup, Fint* ierr),
           (group, n, ranks, newgroup, ierr))
TG_FORTRAN(group_excl, MPI_GROUP_EXCL, (Fint * group, Fint* n, Fint* ranks, Fint* newgroup, Fint* ierr),
           (group, n, ranks, newgroup, ierr))
TG_FORTRAN(group_range_incl, MPI_GROUP_RANGE_INCL, (Fint * group, Fint* n, Fint* ranges, Fint* newgroup, Fint* ierr),
           (group, n, ranges, newgroup, ierr))
TG_FORTRAN(group_range_excl, MPI_GROUP_RANGE_EXCL, (Fint * group, Fint* n, Fint* ranges, Fint* newgroup, Fint* ierr),
           (group, n, ranges, newgroup, ierr))
TG_FORTRAN(group_union, MPI_GROUP_UNION, (Fint * group1, Fint* group2, Fint* newgroup, Fint* ierr),
           (group1, group2, newgroup, ierr))
TG_FORTRAN(group_intersection, MPI_GROUP_INTERSECTION, (Fint * group1, Fint* group2, Fint* newgroup, Fint* ierr),
           (group1, group2, newgroup, ierr))
TG_FORTRAN(group_difference, MPI_GROUP_DIFFERENCE, (Fint * group1, Fint* group2, Fint* newgroup, Fint* ierr),
           (group1, group2, newgroup, ierr))
TG_FORTRAN(group_free, MPI_GROUP_FREE, (Fint * group, Fint* ierr), (group, ierr))

// ---- topology constructors (and MPI-3's other communicator constructors). LOGICAL arguments
// (periods, remain_dims, reorder) are read as "nonzero is true"; weights are not recorded.

namespace {
std::vector<int> logicals(const Fint* v, Fint n) {
  std::vector<int> out(static_cast<std::size_t>(n > 0 ? n : 0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = v[i] != 0;
  return out;
}
}  // namespace

using CartCreateF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using CartSubF = void (*)(Fint*, Fint*, Fint*, Fint*);
using GraphCreateF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using DistGraphAdjacentF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using DistGraphF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using CommSplitTypeF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using CommCreateGroupF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
using CommIdupF = void (*)(Fint*, Fint*, Fint*, Fint*);
TG_PMPI(cart_create, CartCreateF)
TG_PMPI(cart_sub, CartSubF)
TG_PMPI(graph_create, GraphCreateF)
TG_PMPI(dist_graph_create_adjacent, DistGraphAdjacentF)
TG_PMPI(dist_graph_create, DistGraphF)
TG_PMPI(comm_split_type, CommSplitTypeF)
TG_PMPI(comm_create_group, CommCreateGroupF)
TG_PMPI(comm_idup, CommIdupF)

static void cart_create_impl(Fint* comm, Fint* ndims, Fint* dims, Fint* periods, Fint* reorder, Fint* newcomm,
                             Fint* ierr) {
  run(Op::CartCreate, [&] { pmpi_cart_create()(comm, ndims, dims, periods, reorder, newcomm, ierr); },
      [&](CallScope& s) {
        calls::cartCreate(s, C(comm), *ndims, dims, logicals(periods, *ndims).data(), *reorder != 0, C(newcomm));
      });
}
static void cart_sub_impl(Fint* comm, Fint* remain, Fint* newcomm, Fint* ierr) {
  run(Op::CartSub, [&] { pmpi_cart_sub()(comm, remain, newcomm, ierr); },
      [&](CallScope& s) {
        int ndims = 0;
        PMPI_Cartdim_get(C(comm), &ndims);
        calls::cartSub(s, C(comm), logicals(remain, ndims).data(), C(newcomm));
      });
}
static void graph_create_impl(Fint* comm, Fint* nnodes, Fint* index, Fint* edges, Fint* reorder, Fint* newcomm,
                              Fint* ierr) {
  run(Op::GraphCreate, [&] { pmpi_graph_create()(comm, nnodes, index, edges, reorder, newcomm, ierr); },
      [&](CallScope& s) { calls::graphCreate(s, C(comm), *nnodes, index, edges, *reorder != 0, C(newcomm)); });
}
static void dist_graph_create_adjacent_impl(Fint* comm, Fint* indegree, Fint* sources, Fint* sweights, Fint* outdegree,
                                            Fint* destinations, Fint* dweights, Fint* info, Fint* reorder,
                                            Fint* newcomm, Fint* ierr) {
  run(Op::DistGraphCreateAdjacent,
      [&] {
        pmpi_dist_graph_create_adjacent()(comm, indegree, sources, sweights, outdegree, destinations, dweights, info,
                                          reorder, newcomm, ierr);
      },
      [&](CallScope& s) {
        calls::distGraphAdjacent(s, C(comm), *indegree, sources, *outdegree, destinations, *reorder != 0, C(newcomm));
      });
}
static void dist_graph_create_impl(Fint* comm, Fint* n, Fint* sources, Fint* degrees, Fint* destinations,
                                   Fint* weights, Fint* info, Fint* reorder, Fint* newcomm, Fint* ierr) {
  run(Op::DistGraphCreate,
      [&] { pmpi_dist_graph_create()(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm, ierr); },
      [&](CallScope& s) {
        calls::distGraph(s, C(comm), *n, sources, degrees, destinations, *reorder != 0, C(newcomm));
      });
}
static void comm_split_type_impl(Fint* comm, Fint* type, Fint* key, Fint* info, Fint* newcomm, Fint* ierr) {
  run(Op::CommSplitType, [&] { pmpi_comm_split_type()(comm, type, key, info, newcomm, ierr); },
      [&](CallScope& s) { calls::commSplitType(s, C(comm), *type, *key, C(newcomm)); });
}
static void comm_create_group_impl(Fint* comm, Fint* group, Fint* tag, Fint* newcomm, Fint* ierr) {
  run(Op::CommCreateGroup, [&] { pmpi_comm_create_group()(comm, group, tag, newcomm, ierr); },
      [&](CallScope& s) { calls::commCreateGroup(s, C(comm), G(group), *tag, C(newcomm)); });
}
static void comm_idup_impl(Fint* comm, Fint* newcomm, Fint* req, Fint* ierr) {
  run(Op::CommIdup, [&] { pmpi_comm_idup()(comm, newcomm, req, ierr); },
      [&](CallScope& s) {
        s.comm(C(comm));
        s.set(Param::NewComm, s.newCommLike(C(newcomm), C(comm), "idup"));
      });
}
TG_FORTRAN(cart_create, MPI_CART_CREATE,
           (Fint * comm, Fint* ndims, Fint* dims, Fint* periods, Fint* reorder, Fint* newcomm, Fint* ierr),
           (comm, ndims, dims, periods, reorder, newcomm, ierr))
TG_FORTRAN(cart_sub, MPI_CART_SUB, (Fint * comm, Fint* remain, Fint* newcomm, Fint* ierr), (comm, remain, newcomm, ierr))
TG_FORTRAN(graph_create, MPI_GRAPH_CREATE,
           (Fint * comm, Fint* nnodes, Fint* index, Fint* edges, Fint* reorder, Fint* newcomm, Fint* ierr),
           (comm, nnodes, index, edges, reorder, newcomm, ierr))
TG_FORTRAN(dist_graph_create_adjacent, MPI_DIST_GRAPH_CREATE_ADJACENT,
           (Fint * comm, Fint* indegree, Fint* sources, Fint* sweights, Fint* outdegree, Fint* destinations,
            Fint* dweights, Fint* info, Fint* reorder, Fint* newcomm, Fint* ierr),
           (comm, indegree, sources, sweights, outdegree, destinations, dweights, info, reorder, newcomm, ierr))
TG_FORTRAN(dist_graph_create, MPI_DIST_GRAPH_CREATE,
           (Fint * comm, Fint* n, Fint* sources, Fint* degrees, Fint* destinations, Fint* weights, Fint* info,
            Fint* reorder, Fint* newcomm, Fint* ierr),
           (comm, n, sources, degrees, destinations, weights, info, reorder, newcomm, ierr))
TG_FORTRAN(comm_split_type, MPI_COMM_SPLIT_TYPE, (Fint * comm, Fint* type, Fint* key, Fint* info, Fint* newcomm, Fint* ierr),
           (comm, type, key, info, newcomm, ierr))
TG_FORTRAN(comm_create_group, MPI_COMM_CREATE_GROUP, (Fint * comm, Fint* group, Fint* tag, Fint* newcomm, Fint* ierr),
           (comm, group, tag, newcomm, ierr))
TG_FORTRAN(comm_idup, MPI_COMM_IDUP, (Fint * comm, Fint* newcomm, Fint* req, Fint* ierr), (comm, newcomm, req, ierr))

// ---- persistent requests: MPI_SEND_INIT and MPI_RECV_INIT make them; MPI_START, MPI_STARTALL
// and MPI_REQUEST_FREE name them as the waits do

TG_PMPI(send_init, IsendF)
static void send_init_impl(void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* req, Fint* ierr) {
  run(Op::SendInit, [&] { pmpi_send_init()(buf, count, type, dest, tag, comm, req, ierr); },
      [&](CallScope& s) {
        calls::p2p(s, Param::Dest, *count, T(type), *dest, *tag, C(comm));
        calls::persistentInit(s, PMPI_Request_f2c(*req), req, false, *dest, C(comm));
      });
}
TG_FORTRAN(send_init, MPI_SEND_INIT,
           (void* buf, Fint* count, Fint* type, Fint* dest, Fint* tag, Fint* comm, Fint* req, Fint* ierr),
           (buf, count, type, dest, tag, comm, req, ierr))
TG_PMPI(recv_init, RecvF)
static void recv_init_impl(void* buf, Fint* count, Fint* type, Fint* source, Fint* tag, Fint* comm, Fint* req, Fint* ierr) {
  run(Op::RecvInit, [&] { pmpi_recv_init()(buf, count, type, source, tag, comm, req, ierr); },
      [&](CallScope& s) {
        calls::p2p(s, Param::Source, *count, T(type), *source, *tag, C(comm));
        calls::persistentInit(s, PMPI_Request_f2c(*req), req, true, *source, C(comm));
      });
}
TG_FORTRAN(recv_init, MPI_RECV_INIT,
           (void* buf, Fint* count, Fint* type, Fint* source, Fint* tag, Fint* comm, Fint* req, Fint* ierr),
           (buf, count, type, source, tag, comm, req, ierr))

using StartF = void (*)(Fint*, Fint*);
using StartallF = void (*)(Fint*, Fint*, Fint*);
TG_PMPI(start, StartF)
TG_PMPI(startall, StartallF)
TG_PMPI(request_free, StartF)
static void start_impl(Fint* req, Fint* ierr) {
  run(Op::Start, [&] { pmpi_start()(req, ierr); },
      [&](CallScope& s) {
        const MPI_Request h = PMPI_Request_f2c(*req);
        calls::start(s, &h, req, sizeof(Fint), 1, false);
      });
}
static void startall_impl(Fint* count, Fint* reqs, Fint* ierr) {
  run(Op::Startall, [&] { pmpi_startall()(count, reqs, ierr); },
      [&](CallScope& s) { calls::start(s, convertRequests(reqs, *count), reqs, sizeof(Fint), *count, true); });
}
static void request_free_impl(Fint* req, Fint* ierr) {
  const MPI_Request h = PMPI_Request_f2c(*req);  // MPI_REQUEST_NULL once freed
  run(Op::RequestFree, [&] { pmpi_request_free()(req, ierr); },
      [&](CallScope& s) { s.set(Param::Request, s.freeRequest(h, req)); });
}
TG_FORTRAN(start, MPI_START, (Fint * req, Fint* ierr), (req, ierr))
TG_FORTRAN(startall, MPI_STARTALL, (Fint * count, Fint* reqs, Fint* ierr), (count, reqs, ierr))
TG_FORTRAN(request_free, MPI_REQUEST_FREE, (Fint * req, Fint* ierr), (req, ierr))

// ---- matched probes: MPI_MPROBE, MPI_IMPROBE, MPI_MRECV, MPI_IMRECV. A probe from
// MPI_ANY_SOURCE records the sender it found, from the status (a status of its own when the
// caller passes MPI_STATUS_IGNORE), as the C probes do: resolve-wildcards then follows the
// recorded order instead of searching for one (a search over a long run can exhaust its budget).
// The Fortran receives and waits do not record their wildcard senders yet.

using MprobeF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using ImprobeF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*, Fint*, Fint*);
using MrecvF = void (*)(void*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(mprobe, MprobeF)
TG_PMPI(improbe, ImprobeF)
TG_PMPI(mrecv, MrecvF)
TG_PMPI(imrecv, MrecvF)
// A Fortran status big enough for any MPI library's MPI_STATUS_SIZE (Open MPI's is 6, MPICH's 5;
// Open MPI's mpi.h does not define MPI_F_STATUS_SIZE).
constexpr int kFortranStatusCapacity = 16;
// The status to hand the PMPI call: the caller's, or `local` when the caller ignores it.
static Fint* statusOrLocal(Fint* status, Fint* local) { return status == MPI_F_STATUS_IGNORE ? local : status; }
// The C form of a Fortran status, or nullptr if it cannot be converted.
static const MPI_Status* cStatus(const Fint* status, MPI_Status& out) {
  return PMPI_Status_f2c(status, &out) == MPI_SUCCESS ? &out : nullptr;
}
static void mprobe_impl(Fint* source, Fint* tag, Fint* comm, Fint* message, Fint* status, Fint* ierr) {
  Fint local[kFortranStatusCapacity] = {};
  Fint* st = statusOrLocal(status, local);
  run(Op::Mprobe, [&] { pmpi_mprobe()(source, tag, comm, message, st, ierr); }, [&](CallScope& s) {
    MPI_Status c;
    calls::matchedProbe(s, Op::Mprobe, *source, *tag, C(comm), true, cStatus(st, c));
  });
}
static void improbe_impl(Fint* source, Fint* tag, Fint* comm, Fint* flag, Fint* message, Fint* status, Fint* ierr) {
  Fint local[kFortranStatusCapacity] = {};
  Fint* st = statusOrLocal(status, local);
  run(Op::Improbe, [&] { pmpi_improbe()(source, tag, comm, flag, message, st, ierr); }, [&](CallScope& s) {
    MPI_Status c;
    calls::matchedProbe(s, Op::Improbe, *source, *tag, C(comm), *flag != 0, *flag != 0 ? cStatus(st, c) : nullptr);
  });
}
static void mrecv_impl(void* buf, Fint* count, Fint* type, Fint* message, Fint* status, Fint* ierr) {
  run(Op::Mrecv, [&] { pmpi_mrecv()(buf, count, type, message, status, ierr); },
      [&](CallScope& s) { calls::matchedRecv(s, *count, T(type)); });
}
static void imrecv_impl(void* buf, Fint* count, Fint* type, Fint* message, Fint* req, Fint* ierr) {
  run(Op::Imrecv, [&] { pmpi_imrecv()(buf, count, type, message, req, ierr); },
      [&](CallScope& s) {
        calls::matchedRecv(s, *count, T(type));
        s.created(PMPI_Request_f2c(*req), req);
      });
}
TG_FORTRAN(mprobe, MPI_MPROBE, (Fint * source, Fint* tag, Fint* comm, Fint* message, Fint* status, Fint* ierr),
           (source, tag, comm, message, status, ierr))
TG_FORTRAN(improbe, MPI_IMPROBE,
           (Fint * source, Fint* tag, Fint* comm, Fint* flag, Fint* message, Fint* status, Fint* ierr),
           (source, tag, comm, flag, message, status, ierr))
TG_FORTRAN(mrecv, MPI_MRECV, (void* buf, Fint* count, Fint* type, Fint* message, Fint* status, Fint* ierr),
           (buf, count, type, message, status, ierr))
TG_FORTRAN(imrecv, MPI_IMRECV, (void* buf, Fint* count, Fint* type, Fint* message, Fint* req, Fint* ierr),
           (buf, count, type, message, req, ierr))

// ---- MPI-3 blocking collectives: MPI_EXSCAN and MPI_REDUCE_SCATTER_BLOCK (count: each member's block)

using ReductionF = void (*)(void*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(exscan, ReductionF)
TG_PMPI(reduce_scatter_block, ReductionF)
static void reductionImpl(Op op, ReductionF f, void* sbuf, void* rbuf, Fint* count, Fint* type, Fint* o, Fint* comm,
                          Fint* ierr) {
  run(op, [&] { f(sbuf, rbuf, count, type, o, comm, ierr); },
      [&](CallScope& s) { calls::reduce(s, *count, T(type), O(o), C(comm)); });
}
static void exscan_impl(void* s, void* r, Fint* n, Fint* t, Fint* o, Fint* comm, Fint* e) {
  reductionImpl(Op::Exscan, pmpi_exscan(), s, r, n, t, o, comm, e);
}
static void reduce_scatter_block_impl(void* s, void* r, Fint* n, Fint* t, Fint* o, Fint* comm, Fint* e) {
  reductionImpl(Op::ReduceScatterBlock, pmpi_reduce_scatter_block(), s, r, n, t, o, comm, e);
}
TG_FORTRAN(exscan, MPI_EXSCAN, (void* s, void* r, Fint* n, Fint* t, Fint* o, Fint* comm, Fint* e), (s, r, n, t, o, comm, e))
TG_FORTRAN(reduce_scatter_block, MPI_REDUCE_SCATTER_BLOCK,
           (void* s, void* r, Fint* n, Fint* t, Fint* o, Fint* comm, Fint* e), (s, r, n, t, o, comm, e))

// ---- MPI-3 nonblocking collectives (OpKind::ICollective), as the C entry points record them
// (Wrappers.cpp): the blocking form's parameters and the request.

#define TG_FICOLL(base, UPPER, OP, PARAMS, ARGS, RECORD)                   \
  using base##_ICollF = void(*) PARAMS;                                    \
  TG_PMPI(base, base##_ICollF)                                             \
  static void base##_impl PARAMS {                                         \
    run(OP, [&] { pmpi_##base() ARGS; }, [&](CallScope& s) {               \
      RECORD;                                                              \
      s.created(PMPI_Request_f2c(*req), req);                              \
    });                                                                    \
  }                                                                        \
  TG_FORTRAN(base, UPPER, PARAMS, ARGS)
using Fp = Fint*;
TG_FICOLL(ibarrier, MPI_IBARRIER, Op::Ibarrier, (Fp comm, Fp req, Fp e), (comm, req, e), calls::barrier(s, C(comm)))
TG_FICOLL(ibcast, MPI_IBCAST, Op::Ibcast, (void* b, Fp n, Fp t, Fp root, Fp comm, Fp req, Fp e),
          (b, n, t, root, comm, req, e), calls::bcast(s, *n, T(t), *root, C(comm)))
TG_FICOLL(ireduce, MPI_IREDUCE, Op::Ireduce, (void* sb, void* rb, Fp n, Fp t, Fp o, Fp root, Fp comm, Fp req, Fp e),
          (sb, rb, n, t, o, root, comm, req, e), calls::reduce(s, *n, T(t), O(o), C(comm)); s.root(*root))
#define TG_FIREDUCTION(base, UPPER, OP)                                                                         \
  TG_FICOLL(base, UPPER, OP, (void* sb, void* rb, Fp n, Fp t, Fp o, Fp comm, Fp req, Fp e),                    \
            (sb, rb, n, t, o, comm, req, e), calls::reduce(s, *n, T(t), O(o), C(comm)))
TG_FIREDUCTION(iallreduce, MPI_IALLREDUCE, Op::Iallreduce)
TG_FIREDUCTION(iscan, MPI_ISCAN, Op::Iscan)
TG_FIREDUCTION(iexscan, MPI_IEXSCAN, Op::Iexscan)
TG_FIREDUCTION(ireduce_scatter_block, MPI_IREDUCE_SCATTER_BLOCK, Op::IreduceScatterBlock)
#undef TG_FIREDUCTION
TG_FICOLL(ireduce_scatter, MPI_IREDUCE_SCATTER, Op::IreduceScatter,
          (void* sb, void* rb, Fp rc, Fp t, Fp o, Fp comm, Fp req, Fp e), (sb, rb, rc, t, o, comm, req, e),
          calls::reduceScatter(s, I(rc), T(t), O(o), C(comm)))
TG_FICOLL(igather, MPI_IGATHER, Op::Igather,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp root, Fp comm, Fp req, Fp e),
          (sb, sc, st, rb, rc, rt, root, comm, req, e),
          calls::gather(s, inPlace(sb), *sc, T(st), *rc, T(rt), *root, C(comm)))
TG_FICOLL(iscatter, MPI_ISCATTER, Op::Iscatter,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp root, Fp comm, Fp req, Fp e),
          (sb, sc, st, rb, rc, rt, root, comm, req, e),
          calls::scatter(s, *sc, T(st), inPlace(rb), *rc, T(rt), *root, C(comm)))
TG_FICOLL(igatherv, MPI_IGATHERV, Op::Igatherv,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp d, Fp rt, Fp root, Fp comm, Fp req, Fp e),
          (sb, sc, st, rb, rc, d, rt, root, comm, req, e),
          calls::gatherv(s, inPlace(sb), *sc, T(st), I(rc), I(d), T(rt), *root, C(comm)))
TG_FICOLL(iscatterv, MPI_ISCATTERV, Op::Iscatterv,
          (void* sb, Fp sc, Fp d, Fp st, void* rb, Fp rc, Fp rt, Fp root, Fp comm, Fp req, Fp e),
          (sb, sc, d, st, rb, rc, rt, root, comm, req, e),
          calls::scatterv(s, I(sc), I(d), T(st), inPlace(rb), *rc, T(rt), *root, C(comm)))
TG_FICOLL(iallgather, MPI_IALLGATHER, Op::Iallgather,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp comm, Fp req, Fp e), (sb, sc, st, rb, rc, rt, comm, req, e),
          calls::allToAll(s, inPlace(sb), *sc, T(st), *rc, T(rt), C(comm)))
TG_FICOLL(ialltoall, MPI_IALLTOALL, Op::Ialltoall,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp comm, Fp req, Fp e), (sb, sc, st, rb, rc, rt, comm, req, e),
          calls::allToAll(s, inPlace(sb), *sc, T(st), *rc, T(rt), C(comm)))
TG_FICOLL(iallgatherv, MPI_IALLGATHERV, Op::Iallgatherv,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp d, Fp rt, Fp comm, Fp req, Fp e),
          (sb, sc, st, rb, rc, d, rt, comm, req, e),
          calls::allgatherv(s, inPlace(sb), *sc, T(st), I(rc), I(d), T(rt), C(comm)))
TG_FICOLL(ialltoallv, MPI_IALLTOALLV, Op::Ialltoallv,
          (void* sb, Fp sc, Fp sd, Fp st, void* rb, Fp rc, Fp rd, Fp rt, Fp comm, Fp req, Fp e),
          (sb, sc, sd, st, rb, rc, rd, rt, comm, req, e),
          calls::alltoallv(s, inPlace(sb), I(sc), I(sd), T(st), I(rc), I(rd), T(rt), C(comm)))
// MPI_(I)ALLTOALLW: the datatype arrays are Fortran handles, converted one by one.
namespace {
thread_local std::vector<MPI_Datatype> t_sendTypes, t_recvTypes;
const MPI_Datatype* typesF(std::vector<MPI_Datatype>& out, const Fint* types, int n) {
  out.resize(static_cast<std::size_t>(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = PMPI_Type_f2c(types[i]);
  return out.data();
}
void alltoallwF(CallScope& s, void* sb, Fp sc, Fp st, Fp rc, Fp rt, Fp comm) {
  const int n = s.commSize(C(comm));
  const bool inPlaceSend = inPlace(sb);
  calls::alltoallw(s, inPlaceSend, I(sc), inPlaceSend ? nullptr : typesF(t_sendTypes, st, n), I(rc),
                   typesF(t_recvTypes, rt, n), C(comm));
}
}  // namespace
TG_FICOLL(ialltoallw, MPI_IALLTOALLW, Op::Ialltoallw,
          (void* sb, Fp sc, Fp sd, Fp st, void* rb, Fp rc, Fp rd, Fp rt, Fp comm, Fp req, Fp e),
          (sb, sc, sd, st, rb, rc, rd, rt, comm, req, e), alltoallwF(s, sb, sc, st, rc, rt, comm))
#undef TG_FICOLL
using AlltoallwF = void (*)(void*, Fint*, Fint*, Fint*, void*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(alltoallw, AlltoallwF)
static void alltoallw_impl(void* sb, Fp sc, Fp sd, Fp st, void* rb, Fp rc, Fp rd, Fp rt, Fp comm, Fp e) {
  run(Op::Alltoallw, [&] { pmpi_alltoallw()(sb, sc, sd, st, rb, rc, rd, rt, comm, e); },
      [&](CallScope& s) { alltoallwF(s, sb, sc, st, rc, rt, comm); });
}
TG_FORTRAN(alltoallw, MPI_ALLTOALLW, (void* sb, Fp sc, Fp sd, Fp st, void* rb, Fp rc, Fp rd, Fp rt, Fp comm, Fp e),
           (sb, sc, sd, st, rb, rc, rd, rt, comm, e))

// ---- neighbourhood collectives (as the C entry points record them, Calls.h): the blocking
// forms and MPI_INEIGHBOR_* (a request-creating call). MPI_NEIGHBOR_ALLTOALLW's displacements
// are INTEGER(KIND=MPI_ADDRESS_KIND) and only passed on.
#define TG_FNCOLL(base, UPPER, OP, PARAMS, ARGS, RECORD)                     \
  using base##_NCollF = void(*) PARAMS;                                      \
  TG_PMPI(base, base##_NCollF)                                               \
  static void base##_impl PARAMS {                                           \
    run(OP, [&] { pmpi_##base() ARGS; }, [&](CallScope& s) { RECORD; });     \
  }                                                                          \
  TG_FORTRAN(base, UPPER, PARAMS, ARGS)
#define TG_FINCOLL(base, UPPER, OP, PARAMS, ARGS, RECORD)                    \
  using base##_NCollF = void(*) PARAMS;                                      \
  TG_PMPI(base, base##_NCollF)                                               \
  static void base##_impl PARAMS {                                           \
    run(OP, [&] { pmpi_##base() ARGS; }, [&](CallScope& s) {                 \
      RECORD;                                                                \
      s.created(PMPI_Request_f2c(*req), req);                                \
    });                                                                      \
  }                                                                          \
  TG_FORTRAN(base, UPPER, PARAMS, ARGS)
namespace {
void neighborAlltoallwF(CallScope& s, Fp sc, Fp st, Fp rc, Fp rt, Fp comm) {
  int in = 0, out = 0;
  calls::neighborDegrees(C(comm), in, out);
  const MPI_Datatype* sendTypes = typesF(t_sendTypes, st, out);
  calls::neighborAlltoallw(s, I(sc), sendTypes, I(rc), typesF(t_recvTypes, rt, in), C(comm));
}
}  // namespace
TG_FNCOLL(neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, Op::NeighborAllgather,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp comm, Fp e), (sb, sc, st, rb, rc, rt, comm, e),
          calls::neighborAllToAll(s, *sc, T(st), *rc, T(rt), C(comm)))
TG_FNCOLL(neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, Op::NeighborAlltoall,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp comm, Fp e), (sb, sc, st, rb, rc, rt, comm, e),
          calls::neighborAllToAll(s, *sc, T(st), *rc, T(rt), C(comm)))
TG_FNCOLL(neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, Op::NeighborAllgatherv,
          (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp d, Fp rt, Fp comm, Fp e), (sb, sc, st, rb, rc, d, rt, comm, e),
          calls::neighborAllgatherv(s, *sc, T(st), I(rc), T(rt), C(comm)))
TG_FNCOLL(neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, Op::NeighborAlltoallv,
          (void* sb, Fp sc, Fp sd, Fp st, void* rb, Fp rc, Fp rd, Fp rt, Fp comm, Fp e),
          (sb, sc, sd, st, rb, rc, rd, rt, comm, e), calls::neighborAlltoallv(s, I(sc), T(st), I(rc), T(rt), C(comm)))
TG_FNCOLL(neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, Op::NeighborAlltoallw,
          (void* sb, Fp sc, void* sd, Fp st, void* rb, Fp rc, void* rd, Fp rt, Fp comm, Fp e),
          (sb, sc, sd, st, rb, rc, rd, rt, comm, e), neighborAlltoallwF(s, sc, st, rc, rt, comm))
TG_FINCOLL(ineighbor_allgather, MPI_INEIGHBOR_ALLGATHER, Op::IneighborAllgather,
           (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp comm, Fp req, Fp e),
           (sb, sc, st, rb, rc, rt, comm, req, e), calls::neighborAllToAll(s, *sc, T(st), *rc, T(rt), C(comm)))
TG_FINCOLL(ineighbor_alltoall, MPI_INEIGHBOR_ALLTOALL, Op::IneighborAlltoall,
           (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp rt, Fp comm, Fp req, Fp e),
           (sb, sc, st, rb, rc, rt, comm, req, e), calls::neighborAllToAll(s, *sc, T(st), *rc, T(rt), C(comm)))
TG_FINCOLL(ineighbor_allgatherv, MPI_INEIGHBOR_ALLGATHERV, Op::IneighborAllgatherv,
           (void* sb, Fp sc, Fp st, void* rb, Fp rc, Fp d, Fp rt, Fp comm, Fp req, Fp e),
           (sb, sc, st, rb, rc, d, rt, comm, req, e), calls::neighborAllgatherv(s, *sc, T(st), I(rc), T(rt), C(comm)))
TG_FINCOLL(ineighbor_alltoallv, MPI_INEIGHBOR_ALLTOALLV, Op::IneighborAlltoallv,
           (void* sb, Fp sc, Fp sd, Fp st, void* rb, Fp rc, Fp rd, Fp rt, Fp comm, Fp req, Fp e),
           (sb, sc, sd, st, rb, rc, rd, rt, comm, req, e),
           calls::neighborAlltoallv(s, I(sc), T(st), I(rc), T(rt), C(comm)))
TG_FINCOLL(ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, Op::IneighborAlltoallw,
           (void* sb, Fp sc, void* sd, Fp st, void* rb, Fp rc, void* rd, Fp rt, Fp comm, Fp req, Fp e),
           (sb, sc, sd, st, rb, rc, rd, rt, comm, req, e), neighborAlltoallwF(s, sc, st, rc, rt, comm))
#undef TG_FNCOLL
#undef TG_FINCOLL

// ---- calls tracegen does not model, recorded as opaque events (as the C entry points do,
// Wrappers.cpp): the name, the communicator where the call has one, the call site. Arguments
// are passed through untouched (every Fortran argument is an address). Calls with CHARACTER
// arguments (MPI_FILE_SET_VIEW, MPI_COMM_SPAWN, ...; MPI_FILE_OPEN is, below) are not intercepted here:
// their hidden length arguments differ between compilers.

static void opaqueF(Op op, const std::function<void()>& call, const Fint* comm, Fint* req) {
  run(op, call, [&](CallScope& s) {
    if (comm) s.comm(C(comm));
    if (req) s.created(PMPI_Request_f2c(*req), req);
  });
}

#define TG_FOPAQUE(base, UPPER, OP, COMM, REQ, PARAMS, ARGS)                              \
  using base##_OpaqueF = void(*) PARAMS;                                                 \
  TG_PMPI(base, base##_OpaqueF)                                                          \
  static void base##_impl PARAMS { opaqueF(OP, [&] { pmpi_##base() ARGS; }, COMM, REQ); } \
  TG_FORTRAN(base, UPPER, PARAMS, ARGS)
using V = void*;

// MPI-3 operations not modelled yet

// One-sided communication not modelled (the modelled calls are at the end of the file)
TG_FOPAQUE(win_post, MPI_WIN_POST, Op::WinPost, nullptr, nullptr, (V g, V a, V w, Fint* e), (g, a, w, e))
TG_FOPAQUE(win_start, MPI_WIN_START, Op::WinStart, nullptr, nullptr, (V g, V a, V w, Fint* e), (g, a, w, e))
TG_FOPAQUE(win_complete, MPI_WIN_COMPLETE, Op::WinComplete, nullptr, nullptr, (V w, Fint* e), (w, e))
TG_FOPAQUE(win_wait, MPI_WIN_WAIT, Op::WinWait, nullptr, nullptr, (V w, Fint* e), (w, e))

// MPI-IO: modelled, at the end of the file

// Neighbourhood collectives: modelled, after MPI_ALLTOALLW
#undef TG_FOPAQUE

// ---- one-sided communication (record/OneSided.h), as the C entry points record it. Window
// handles are INTEGERs (MPI_Win_f2c), sizes and displacements INTEGER(KIND=MPI_ADDRESS_KIND).

namespace {
namespace onesided = tracegen::record::onesided;
MPI_Win W(const Fint* w) { return PMPI_Win_f2c(*w); }
}  // namespace

using WinCreateF = void (*)(void*, MPI_Aint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(win_create, WinCreateF)
static void win_create_impl(void* b, MPI_Aint* sz, Fint* u, Fint* i, Fint* comm, Fint* w, Fint* e) {
  run(Op::WinCreate, [&] { pmpi_win_create()(b, sz, u, i, comm, w, e); },
      [&](CallScope& s) { onesided::createdWithMemory(s, W(w), C(comm), *sz, *u); });
}
TG_FORTRAN(win_create, MPI_WIN_CREATE, (void* b, MPI_Aint* sz, Fint* u, Fint* i, Fint* comm, Fint* w, Fint* e),
           (b, sz, u, i, comm, w, e))

using WinAllocateF = void (*)(MPI_Aint*, Fint*, Fint*, Fint*, void*, Fint*, Fint*);
TG_PMPI(win_allocate, WinAllocateF)
static void win_allocate_impl(MPI_Aint* sz, Fint* u, Fint* i, Fint* comm, void* b, Fint* w, Fint* e) {
  run(Op::WinAllocate, [&] { pmpi_win_allocate()(sz, u, i, comm, b, w, e); },
      [&](CallScope& s) { onesided::createdWithMemory(s, W(w), C(comm), *sz, *u); });
}
TG_FORTRAN(win_allocate, MPI_WIN_ALLOCATE, (MPI_Aint* sz, Fint* u, Fint* i, Fint* comm, void* b, Fint* w, Fint* e),
           (sz, u, i, comm, b, w, e))

using WinOneF = void (*)(Fint*, Fint*);
using WinTwoF = void (*)(Fint*, Fint*, Fint*);
TG_PMPI(win_free, WinOneF)
static void win_free_impl(Fint* w, Fint* e) {
  const MPI_Win old = W(w);
  run(Op::WinFree, [&] { pmpi_win_free()(w, e); }, [&](CallScope& s) { onesided::freed(s, old); });
}
TG_FORTRAN(win_free, MPI_WIN_FREE, (Fint * w, Fint* e), (w, e))

#define TG_FWIN_ASSERT(base, UPPER, OP)                                                   \
  TG_PMPI(base, WinTwoF)                                                                 \
  static void base##_impl(Fint* a, Fint* w, Fint* e) {                                   \
    run(OP, [&] { pmpi_##base()(a, w, e); }, [&](CallScope& s) {                         \
      onesided::on(s, W(w));                                                             \
      onesided::assertion(s, *a);                                                        \
    });                                                                                  \
  }                                                                                      \
  TG_FORTRAN(base, UPPER, (Fint * a, Fint* w, Fint* e), (a, w, e))
TG_FWIN_ASSERT(win_fence, MPI_WIN_FENCE, Op::WinFence)
TG_FWIN_ASSERT(win_lock_all, MPI_WIN_LOCK_ALL, Op::WinLockAll)
#undef TG_FWIN_ASSERT

using WinLockF = void (*)(Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(win_lock, WinLockF)
static void win_lock_impl(Fint* t, Fint* r, Fint* a, Fint* w, Fint* e) {
  run(Op::WinLock, [&] { pmpi_win_lock()(t, r, a, w, e); },
      [&](CallScope& s) { onesided::lock(s, *t, *r, *a, W(w)); });
}
TG_FORTRAN(win_lock, MPI_WIN_LOCK, (Fint * t, Fint* r, Fint* a, Fint* w, Fint* e), (t, r, a, w, e))

#define TG_FWIN_TARGET(base, UPPER, OP)                                                   \
  TG_PMPI(base, WinTwoF)                                                                 \
  static void base##_impl(Fint* r, Fint* w, Fint* e) {                                   \
    run(OP, [&] { pmpi_##base()(r, w, e); }, [&](CallScope& s) {                         \
      onesided::on(s, W(w));                                                             \
      s.peer(Param::Dest, *r);                                                           \
    });                                                                                  \
  }                                                                                      \
  TG_FORTRAN(base, UPPER, (Fint * r, Fint* w, Fint* e), (r, w, e))
TG_FWIN_TARGET(win_unlock, MPI_WIN_UNLOCK, Op::WinUnlock)
TG_FWIN_TARGET(win_flush, MPI_WIN_FLUSH, Op::WinFlush)
TG_FWIN_TARGET(win_flush_local, MPI_WIN_FLUSH_LOCAL, Op::WinFlushLocal)
#undef TG_FWIN_TARGET

#define TG_FWIN_ALL(base, UPPER, OP)                                                                            \
  TG_PMPI(base, WinOneF)                                                                                       \
  static void base##_impl(Fint* w, Fint* e) {                                                                  \
    run(OP, [&] { pmpi_##base()(w, e); }, [&](CallScope& s) { onesided::on(s, W(w)); });                      \
  }                                                                                                            \
  TG_FORTRAN(base, UPPER, (Fint * w, Fint* e), (w, e))
TG_FWIN_ALL(win_unlock_all, MPI_WIN_UNLOCK_ALL, Op::WinUnlockAll)
TG_FWIN_ALL(win_flush_all, MPI_WIN_FLUSH_ALL, Op::WinFlushAll)
#undef TG_FWIN_ALL

using RmaF = void (*)(void*, Fint*, Fint*, Fint*, MPI_Aint*, Fint*, Fint*, Fint*, Fint*);
#define TG_FRMA(base, UPPER, OP)                                                                             \
  TG_PMPI(base, RmaF)                                                                                       \
  static void base##_impl(void* o, Fint* oc, Fint* ot, Fint* r, MPI_Aint* d, Fint* tc, Fint* tt, Fint* w, Fint* e) { \
    run(OP, [&] { pmpi_##base()(o, oc, ot, r, d, tc, tt, w, e); },                                         \
        [&](CallScope& s) { onesided::transfer(s, *oc, T(ot), *r, *tc, T(tt), W(w)); });                  \
  }                                                                                                         \
  TG_FORTRAN(base, UPPER, (void* o, Fint* oc, Fint* ot, Fint* r, MPI_Aint* d, Fint* tc, Fint* tt, Fint* w, Fint* e), \
             (o, oc, ot, r, d, tc, tt, w, e))
TG_FRMA(put, MPI_PUT, Op::Put)
TG_FRMA(get, MPI_GET, Op::Get)
#undef TG_FRMA

using AccumulateF = void (*)(void*, Fint*, Fint*, Fint*, MPI_Aint*, Fint*, Fint*, Fint*, Fint*, Fint*);
TG_PMPI(accumulate, AccumulateF)
static void accumulate_impl(void* o, Fint* oc, Fint* ot, Fint* r, MPI_Aint* d, Fint* tc, Fint* tt, Fint* op, Fint* w,
                            Fint* e) {
  run(Op::Accumulate, [&] { pmpi_accumulate()(o, oc, ot, r, d, tc, tt, op, w, e); }, [&](CallScope& s) {
    onesided::transfer(s, *oc, T(ot), *r, *tc, T(tt), W(w));
    s.reduceOp(O(op));
  });
}
TG_FORTRAN(accumulate, MPI_ACCUMULATE,
           (void* o, Fint* oc, Fint* ot, Fint* r, MPI_Aint* d, Fint* tc, Fint* tt, Fint* op, Fint* w, Fint* e),
           (o, oc, ot, r, d, tc, tt, op, w, e))

// ---- MPI-IO (record/FileIo.h), as the C entry points record it. File handles are INTEGERs
// (MPI_File_f2c), offsets INTEGER(KIND=MPI_OFFSET_KIND). MPI_FILE_OPEN's file name is a
// CHARACTER argument whose length the compiler passes after the others: as a size_t, gfortran's
// convention (since GCC 8), which the MPI library's own Fortran entry receives unchanged.

namespace {
namespace fileio = tracegen::record::fileio;
MPI_File Fh(const Fint* f) { return PMPI_File_f2c(*f); }
}  // namespace

using FileOpenF = void (*)(Fint*, char*, Fint*, Fint*, Fint*, Fint*, std::size_t);
TG_PMPI(file_open, FileOpenF)
static void file_open_impl(Fint* comm, char* name, Fint* mode, Fint* info, Fint* fh, Fint* e, std::size_t len) {
  run(Op::FileOpen, [&] { pmpi_file_open()(comm, name, mode, info, fh, e, len); },
      [&](CallScope& s) { fileio::opened(s, Fh(fh), C(comm)); });
}
TG_FORTRAN(file_open, MPI_FILE_OPEN, (Fint * comm, char* name, Fint* mode, Fint* info, Fint* fh, Fint* e, std::size_t len),
           (comm, name, mode, info, fh, e, len))

using FileCloseF = void (*)(Fint*, Fint*);
TG_PMPI(file_close, FileCloseF)
static void file_close_impl(Fint* fh, Fint* e) {
  const MPI_File old = Fh(fh);
  run(Op::FileClose, [&] { pmpi_file_close()(fh, e); }, [&](CallScope& s) { fileio::closed(s, old); });
}
TG_FORTRAN(file_close, MPI_FILE_CLOSE, (Fint * fh, Fint* e), (fh, e))

using FileIoF = void (*)(Fint*, void*, Fint*, Fint*, void*, Fint*);
using FileIoAtF = void (*)(Fint*, MPI_Offset*, void*, Fint*, Fint*, void*, Fint*);
#define TG_FFILE_IO(base, UPPER, OP)                                                                   \
  TG_PMPI(base, FileIoF)                                                                              \
  static void base##_impl(Fint* f, void* b, Fint* n, Fint* t, void* st, Fint* e) {                    \
    run(OP, [&] { pmpi_##base()(f, b, n, t, st, e); },                                               \
        [&](CallScope& s) { fileio::access(s, Fh(f), *n, T(t), -1); });                             \
  }                                                                                                   \
  TG_FORTRAN(base, UPPER, (Fint * f, void* b, Fint* n, Fint* t, void* st, Fint* e), (f, b, n, t, st, e))
#define TG_FFILE_IO_AT(base, UPPER, OP)                                                                \
  TG_PMPI(base, FileIoAtF)                                                                            \
  static void base##_impl(Fint* f, MPI_Offset* off, void* b, Fint* n, Fint* t, void* st, Fint* e) {   \
    run(OP, [&] { pmpi_##base()(f, off, b, n, t, st, e); },                                          \
        [&](CallScope& s) { fileio::access(s, Fh(f), *n, T(t), *off); });                           \
  }                                                                                                   \
  TG_FORTRAN(base, UPPER, (Fint * f, MPI_Offset* off, void* b, Fint* n, Fint* t, void* st, Fint* e), \
             (f, off, b, n, t, st, e))
TG_FFILE_IO(file_read, MPI_FILE_READ, Op::FileRead)
TG_FFILE_IO(file_write, MPI_FILE_WRITE, Op::FileWrite)
TG_FFILE_IO(file_read_all, MPI_FILE_READ_ALL, Op::FileReadAll)
TG_FFILE_IO(file_write_all, MPI_FILE_WRITE_ALL, Op::FileWriteAll)
TG_FFILE_IO_AT(file_read_at, MPI_FILE_READ_AT, Op::FileReadAt)
TG_FFILE_IO_AT(file_write_at, MPI_FILE_WRITE_AT, Op::FileWriteAt)
TG_FFILE_IO_AT(file_read_at_all, MPI_FILE_READ_AT_ALL, Op::FileReadAtAll)
TG_FFILE_IO_AT(file_write_at_all, MPI_FILE_WRITE_AT_ALL, Op::FileWriteAtAll)
#undef TG_FFILE_IO
#undef TG_FFILE_IO_AT
