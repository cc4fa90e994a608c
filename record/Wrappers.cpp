// The C entry points of the recorder: one per row of Intercept.def, each intercepting an MPI
// function through the profiling interface. A wrapper that is not recording (before MPI_Init,
// after MPI_Finalize, or nested inside another wrapper) just calls PMPI; otherwise it opens a
// CallScope, times the PMPI call and has the row's handler (Handlers.h, shared with the Fortran
// entry points) record the call.
#include <mpi.h>

#include <tuple>
#include <vector>

#include "record/Handlers.h"
#include "record/Intercept.h"
#include "record/Recorder.h"

#define TG_EXPORT extern "C" __attribute__((visibility("default")))

using tracegen::Op;
using tracegen::Param;
using tracegen::record::CallScope;

namespace tracegen::record::intercept {
namespace {

// Initial-exec, as the recorder's other thread-locals: the library is preloaded, and an access
// then costs no __tls_get_addr call.
thread_local std::vector<MPI_Status> t_statuses __attribute__((tls_model("initial-exec")));

// How each kind of C argument reaches PMPI (pass) and the handler (value).
template <class K>
struct Slot {
  typename K::C raw;
  typename K::C pass() const { return raw; }
  Unread value() const { return {}; }
};
// Values the handlers read as given.
template <class K>
struct Plain {
  typename K::C raw;
  typename K::C pass() const { return raw; }
  typename K::C value() const { return raw; }
};
template <> struct Slot<kind::Int> : Plain<kind::Int> {};
template <> struct Slot<kind::BufIn> : Plain<kind::BufIn> {};
template <> struct Slot<kind::Ints> : Plain<kind::Ints> {};
template <> struct Slot<kind::Aint> : Plain<kind::Aint> {};
template <> struct Slot<kind::Offset> : Plain<kind::Offset> {};
template <> struct Slot<kind::Type> : Plain<kind::Type> {};
template <> struct Slot<kind::Op> : Plain<kind::Op> {};
template <> struct Slot<kind::Comm> : Plain<kind::Comm> {};
template <> struct Slot<kind::Group> : Plain<kind::Group> {};
template <> struct Slot<kind::Win> : Plain<kind::Win> {};
template <> struct Slot<kind::File> : Plain<kind::File> {};
template <> struct Slot<kind::Str> : Plain<kind::Str> {};
template <class T>
struct Slot<kind::Raw<T>> : Plain<kind::Raw<T>> {};
template <>
struct Slot<kind::Buf> : Plain<kind::Buf> {
  const void* value() const { return raw; }
};
// Output values and handles: what the variable holds when the handler looks.
template <class K>
struct Deref {
  typename K::C raw;
  typename K::C pass() const { return raw; }
  auto value() const { return *raw; }
};
template <> struct Slot<kind::Flag> : Deref<kind::Flag> {};
template <> struct Slot<kind::Index> : Deref<kind::Index> {};
template <> struct Slot<kind::CommOut> : Deref<kind::CommOut> {};
template <> struct Slot<kind::GroupOut> : Deref<kind::GroupOut> {};
template <> struct Slot<kind::WinOut> : Deref<kind::WinOut> {};
template <> struct Slot<kind::FileOut> : Deref<kind::FileOut> {};
template <>
struct Slot<kind::Ranges> : Plain<kind::Ranges> {
  const int* value() const { return raw[0]; }  // the triples lie one after the other
};
template <>
struct Slot<kind::IndexArray> : Plain<kind::IndexArray> {
  Indices value() const { return {raw, 0}; }
};
template <>
struct Slot<kind::RequestOut> : Plain<kind::RequestOut> {
  NewRequest value() const { return {*raw, raw}; }
};
template <>
struct Slot<kind::Request> : Plain<kind::Request> {
  Requests value() const { return {raw, raw, sizeof(MPI_Request), 1}; }
};
// Sized by the call's first argument (the count of every function that takes an array).
template <>
struct Slot<kind::RequestArray> : Plain<kind::RequestArray> {
  int n = 0;
  void size(int count) { n = count; }
  Requests value() const { return {raw, raw, sizeof(MPI_Request), n}; }
};
template <>
struct Slot<kind::Types> : Plain<kind::Types> {
  TypeList value() const { return {raw, nullptr, nullptr}; }
};
// The status plumbing: the recorder reads status.MPI_SOURCE of completed wildcard receives (the
// recorded order), so it passes MPI a status of its own where the application ignores it.
template <>
struct Slot<kind::Status> {
  MPI_Status* raw;
  MPI_Status local{};
  void substitute() {
    if (raw == MPI_STATUS_IGNORE) raw = &local;
  }
  MPI_Status* pass() const { return raw; }
  const MPI_Status* value() const { return raw; }
};
template <>
struct Slot<kind::Statuses> {
  MPI_Status* raw;
  void size(int count) {
    if (raw != MPI_STATUSES_IGNORE) return;
    t_statuses.resize(static_cast<std::size_t>(count > 0 ? count : 1));
    raw = t_statuses.data();
  }
  MPI_Status* pass() const { return raw; }
  const MPI_Status* value() const { return raw; }
};

// A slot holding `raw`, its other members value-initialised. Not `Slot<K>{raw}`: for the slots
// that inherit `raw` from a base, that elides the base's braces (clang's -Wmissing-braces).
template <class K>
Slot<K> slotOf(typename K::C raw) {
  Slot<K> slot{};
  slot.raw = raw;
  return slot;
}

// The expansion of a row.
template <class H, class... K, class Fn>
int intercept(Op op, Fn pmpi, typename K::C... raw) {
  CallScope s(op);
  if (!s.active()) return pmpi(raw...);
  std::tuple<Slot<K>...> slots{slotOf<K>(raw)...};
  return recordCall<H>(s, slots, pmpi);
}

}  // namespace
}  // namespace tracegen::record::intercept

// ---- environment: MPI_Init, MPI_Init_thread and MPI_Finalize start and finish the recorder.

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

// ---- every other row of the table

namespace tracegen::record::intercept {
using namespace tracegen::record::handlers;
#define TG_ENVIRONMENT(OP, CNAME, FNAME, FUPPER)
#define TG_INTERCEPT(OP, CNAME, FNAME, FUPPER, FFORM, HANDLER, ...)                                      \
  TG_EXPORT int CNAME(TG_MAP(TG_PARAM_C, __VA_ARGS__)) {                                                \
    return intercept<HANDLER, TG_MAP(TG_PARAM_KIND, __VA_ARGS__)>(Op::OP, &P##CNAME,                   \
                                                                  TG_MAP(TG_PARAM_NAME, __VA_ARGS__)); \
  }
#include "record/Intercept.def"
#undef TG_INTERCEPT
#undef TG_ENVIRONMENT
}  // namespace tracegen::record::intercept
