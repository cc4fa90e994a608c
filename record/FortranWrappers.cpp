// The Fortran entry points of the recorder: one per row of Intercept.def with a Fortran form.
//
// Open MPI's Fortran bindings (mpif.h and `use mpi`) call PMPI_* directly, so a Fortran program
// never reaches the C wrappers. For each row this file defines the usual manglings (mpi_send_,
// mpi_send, mpi_send__, MPI_SEND); each hands the row's handler (Handlers.h, shared with the C
// wrappers) the arguments' C values (handles through MPI_*_f2c, Fortran's MPI_IN_PLACE as C's,
// 1-based indices as 0-based, statuses through MPI_Status_f2c) and performs the operation through
// the standard Fortran profiling entry (pmpi_send_, found with dlsym), which leaves buffer
// sentinels, status arrays and error codes to the MPI library. The mpi_f08 bindings
// (mpi_send_f08) are not intercepted.
#include <dlfcn.h>
#include <mpi.h>

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

#include "record/Handlers.h"
#include "record/Intercept.h"
#include "record/Recorder.h"

#define TG_EXPORT extern "C" __attribute__((visibility("default")))

using tracegen::Op;
using tracegen::Param;
using tracegen::record::CallScope;
using Fint = MPI_Fint;

static_assert(sizeof(Fint) == sizeof(int), "Fortran INTEGER arrays are passed to the C recording code as int arrays");
// A Fortran status is MPI_STATUS_SIZE INTEGERs, as many as make up a C MPI_Status in Open MPI
// (6) and MPICH (5); Open MPI's mpi.h does not define MPI_F_STATUS_SIZE.
static_assert(sizeof(MPI_Status) % sizeof(Fint) == 0, "a C status is a whole number of Fortran INTEGERs");
constexpr std::size_t kFortranStatusSize = sizeof(MPI_Status) / sizeof(Fint);

namespace tracegen::record::intercept {
namespace {

// Initial-exec, as the recorder's other thread-locals: the library is preloaded, and an access
// then costs no __tls_get_addr call.
thread_local std::vector<MPI_Request> t_requests __attribute__((tls_model("initial-exec")));
thread_local std::vector<Fint> t_fortranStatuses __attribute__((tls_model("initial-exec")));
thread_local std::vector<MPI_Status> t_statuses __attribute__((tls_model("initial-exec")));

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

// How each kind of Fortran argument reaches PMPI (pass: as given, but for ignored statuses the
// handler reads) and the handler (value: C's).
template <class K>
struct Slot {
  typename K::F raw;
  typename K::F pass() const { return raw; }
  Unread value() const { return {}; }
};
// INTEGERs and address-sized integers, by value.
template <class K>
struct Scalar {
  typename K::F raw;
  typename K::F pass() const { return raw; }
  auto value() const { return *raw; }
};
template <> struct Slot<kind::Int> : Scalar<kind::Int> {};
template <> struct Slot<kind::Flag> : Scalar<kind::Flag> {};
template <> struct Slot<kind::Aint> : Scalar<kind::Aint> {};
template <> struct Slot<kind::Offset> : Scalar<kind::Offset> {};
// Handles (in or out: what the variable holds when the handler looks), converted to C.
template <class K, auto f2c>
struct Handle {
  Fint* raw;
  Fint* pass() const { return raw; }
  auto value() const { return f2c(*raw); }
};
template <> struct Slot<kind::Type> : Handle<kind::Type, PMPI_Type_f2c> {};
template <> struct Slot<kind::Op> : Handle<kind::Op, PMPI_Op_f2c> {};
template <> struct Slot<kind::Comm> : Handle<kind::Comm, PMPI_Comm_f2c> {};
template <> struct Slot<kind::CommOut> : Handle<kind::CommOut, PMPI_Comm_f2c> {};
template <> struct Slot<kind::Group> : Handle<kind::Group, PMPI_Group_f2c> {};
template <> struct Slot<kind::GroupOut> : Handle<kind::GroupOut, PMPI_Group_f2c> {};
template <> struct Slot<kind::Win> : Handle<kind::Win, PMPI_Win_f2c> {};
template <> struct Slot<kind::WinOut> : Handle<kind::WinOut, PMPI_Win_f2c> {};
template <> struct Slot<kind::File> : Handle<kind::File, PMPI_File_f2c> {};
template <> struct Slot<kind::FileOut> : Handle<kind::FileOut, PMPI_File_f2c> {};
// Buffers: Fortran's MPI_IN_PLACE (a common block's address) is C's.
template <class K>
struct Buffer {
  void* raw;
  void* pass() const { return raw; }
  const void* value() const { return raw != nullptr && raw == fortranInPlace() ? MPI_IN_PLACE : raw; }
};
template <> struct Slot<kind::BufIn> : Buffer<kind::BufIn> {};
template <> struct Slot<kind::Buf> : Buffer<kind::Buf> {};
template <class K>
struct IntArray {
  Fint* raw;
  Fint* pass() const { return raw; }
  const int* value() const { return reinterpret_cast<const int*>(raw); }
};
template <> struct Slot<kind::Ints> : IntArray<kind::Ints> {};
// RANGES(3, n): column-major, so the triples lie one after the other as in C.
template <> struct Slot<kind::Ranges> : IntArray<kind::Ranges> {};
template <>
struct Slot<kind::Str> {
  char* raw;
  char* pass() const { return raw; }
  const char* value() const { return raw; }  // not terminated: its length follows IERROR
};
template <>
struct Slot<kind::Index> : Scalar<kind::Index> {
  int value() const { return *raw == MPI_UNDEFINED ? MPI_UNDEFINED : *raw - 1; }
};
template <>
struct Slot<kind::IndexArray> : IntArray<kind::IndexArray> {
  Indices value() const { return {reinterpret_cast<const int*>(raw), 1}; }
};
template <>
struct Slot<kind::Types> {
  Fint* raw;
  std::vector<MPI_Datatype> converted{};
  Fint* pass() const { return raw; }
  TypeList value() { return {nullptr, raw, &converted}; }
};
template <>
struct Slot<kind::RequestOut> {
  Fint* raw;
  Fint* pass() const { return raw; }
  NewRequest value() const { return {PMPI_Request_f2c(*raw), raw}; }
};
template <>
struct Slot<kind::Request> {
  Fint* raw;
  MPI_Request handle = MPI_REQUEST_NULL;
  Fint* pass() const { return raw; }
  Requests value() {
    handle = PMPI_Request_f2c(*raw);
    return {&handle, raw, sizeof(Fint), 1};
  }
};
// Sized by the call's first argument (the count of every function that takes an array).
template <>
struct Slot<kind::RequestArray> {
  Fint* raw;
  int n = 0;
  void size(int count) { n = count; }
  Fint* pass() const { return raw; }
  Requests value() const {
    t_requests.resize(static_cast<std::size_t>(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) t_requests[static_cast<std::size_t>(i)] = PMPI_Request_f2c(raw[i]);
    return {t_requests.data(), raw, sizeof(Fint), n};
  }
};
// The status plumbing, as the C wrappers': a status of the recorder's own where the application
// passes MPI_STATUS(ES)_IGNORE, read through MPI_Status_f2c.
template <>
struct Slot<kind::Status> {
  Fint* raw;
  Fint local[kFortranStatusSize]{};
  MPI_Status c{};
  void substitute() {
    if (raw == MPI_F_STATUS_IGNORE) raw = local;
  }
  Fint* pass() const { return raw; }
  const MPI_Status* value() { return PMPI_Status_f2c(raw, &c) == MPI_SUCCESS ? &c : nullptr; }
};
template <>
struct Slot<kind::Statuses> {
  Fint* raw;
  int n = 0;
  void size(int count) {
    n = count > 0 ? count : 0;
    if (raw != MPI_F_STATUSES_IGNORE) return;
    t_fortranStatuses.resize(static_cast<std::size_t>(n > 0 ? n : 1) * kFortranStatusSize);
    raw = t_fortranStatuses.data();
  }
  Fint* pass() const { return raw; }
  const MPI_Status* value() const {
    t_statuses.resize(static_cast<std::size_t>(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) PMPI_Status_f2c(raw + static_cast<std::size_t>(i) * kFortranStatusSize, &t_statuses[static_cast<std::size_t>(i)]);
    return t_statuses.data();
  }
};

// A slot holding `raw`, its other members value-initialised. Not `Slot<K>{raw}`: for the slots
// that inherit `raw` from a base, that elides the base's braces (clang's -Wmissing-braces).
template <class K>
Slot<K> slotOf(typename K::F raw) {
  Slot<K> slot{};
  slot.raw = raw;
  return slot;
}

// The expansion of a row; `pmpi` takes the arguments and appends IERROR (and a CHARACTER
// argument's length).
template <class H, class... K, class Fn>
void intercept(Op op, Fn pmpi, typename K::F... raw) {
  CallScope s(op);
  if (!s.active()) {
    pmpi(raw...);
    return;
  }
  std::tuple<Slot<K>...> slots{slotOf<K>(raw)...};
  recordCall<H>(s, slots, [&](auto... a) {
    pmpi(a...);
    return 0;  // the error code is IERROR's
  });
}

}  // namespace
}  // namespace tracegen::record::intercept

// Defines the four manglings of mpi_<base>, all calling base##_impl.
#define TG_FORTRAN(base, UPPER, PARAMS, ARGS)                \
  TG_EXPORT void mpi_##base##_ PARAMS { base##_impl ARGS; }  \
  TG_EXPORT void mpi_##base PARAMS { base##_impl ARGS; }     \
  TG_EXPORT void mpi_##base##__ PARAMS { base##_impl ARGS; } \
  TG_EXPORT void UPPER PARAMS { base##_impl ARGS; }

// ---- environment: MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE start and finish the recorder.

using InitF = void (*)(Fint*);
using InitThreadF = void (*)(Fint*, Fint*, Fint*);
static void init_impl(Fint* ierr) {
  static const auto pmpi = reinterpret_cast<InitF>(tracegen::record::intercept::resolvePmpi("init"));
  tracegen::record::WrapperDepth depth;
  const double age = tracegen::record::timeSinceLoadUs();
  pmpi(ierr);
  if (!depth.nested() && *ierr == MPI_SUCCESS) tracegen::record::recorderStart(Op::Init, age);
}
static void init_thread_impl(Fint* required, Fint* provided, Fint* ierr) {
  static const auto pmpi = reinterpret_cast<InitThreadF>(tracegen::record::intercept::resolvePmpi("init_thread"));
  tracegen::record::WrapperDepth depth;
  const double age = tracegen::record::timeSinceLoadUs();
  pmpi(required, provided, ierr);
  if (!depth.nested() && *ierr == MPI_SUCCESS) tracegen::record::recorderStart(Op::InitThread, age);
}
static void finalize_impl(Fint* ierr) {
  static const auto pmpi = reinterpret_cast<InitF>(tracegen::record::intercept::resolvePmpi("finalize"));
  tracegen::record::WrapperDepth depth;
  if (!depth.nested()) tracegen::record::recorderFinish();
  pmpi(ierr);
  if (!depth.nested()) tracegen::record::recorderFinalized();
}
TG_FORTRAN(init, MPI_INIT, (Fint * ierr), (ierr))
TG_FORTRAN(init_thread, MPI_INIT_THREAD, (Fint * required, Fint* provided, Fint* ierr), (required, provided, ierr))
TG_FORTRAN(finalize, MPI_FINALIZE, (Fint * ierr), (ierr))

// ---- every other row of the table with a Fortran form

namespace tracegen::record::intercept {
using namespace tracegen::record::handlers;

// F: the C arguments by address, then IERROR.
#define TG_FORTRAN_F(OP, FNAME, FUPPER, HANDLER, ...)                                                   \
  static void FNAME##_impl(TG_MAP(TG_PARAM_F, __VA_ARGS__), Fint* ierr) {                               \
    using Pmpi = void (*)(TG_MAP(TG_PARAM_KIND_F, __VA_ARGS__), Fint*);                                 \
    static const auto pmpi = reinterpret_cast<Pmpi>(resolvePmpi(#FNAME));                               \
    intercept<HANDLER, TG_MAP(TG_PARAM_KIND, __VA_ARGS__)>(                                             \
        Op::OP, [f = pmpi, ierr](auto... a) { f(a..., ierr); }, TG_MAP(TG_PARAM_NAME, __VA_ARGS__));              \
  }                                                                                                     \
  TG_FORTRAN(FNAME, FUPPER, (TG_MAP(TG_PARAM_F, __VA_ARGS__), Fint * ierr),                             \
             (TG_MAP(TG_PARAM_NAME, __VA_ARGS__), ierr))
// FSTR: the same, and the CHARACTER argument's hidden length after IERROR.
#define TG_FORTRAN_FSTR(OP, FNAME, FUPPER, HANDLER, ...)                                                \
  static void FNAME##_impl(TG_MAP(TG_PARAM_F, __VA_ARGS__), Fint* ierr, std::size_t len) {              \
    using Pmpi = void (*)(TG_MAP(TG_PARAM_KIND_F, __VA_ARGS__), Fint*, std::size_t);                    \
    static const auto pmpi = reinterpret_cast<Pmpi>(resolvePmpi(#FNAME));                               \
    intercept<HANDLER, TG_MAP(TG_PARAM_KIND, __VA_ARGS__)>(                                             \
        Op::OP, [f = pmpi, ierr, len](auto... a) { f(a..., ierr, len); }, TG_MAP(TG_PARAM_NAME, __VA_ARGS__));         \
  }                                                                                                     \
  TG_FORTRAN(FNAME, FUPPER, (TG_MAP(TG_PARAM_F, __VA_ARGS__), Fint * ierr, std::size_t len),            \
             (TG_MAP(TG_PARAM_NAME, __VA_ARGS__), ierr, len))
#define TG_FORTRAN_NOF(OP, FNAME, FUPPER, HANDLER, ...)
#define TG_PARAM_KIND_F(K, n) ::tracegen::record::intercept::kind::K::F
#define TG_ENVIRONMENT(OP, CNAME, FNAME, FUPPER)
#define TG_INTERCEPT(OP, CNAME, FNAME, FUPPER, FFORM, HANDLER, ...) \
  TG_FORTRAN_##FFORM(OP, FNAME, FUPPER, HANDLER, __VA_ARGS__)
#include "record/Intercept.def"
#undef TG_INTERCEPT
#undef TG_ENVIRONMENT
}  // namespace tracegen::record::intercept
