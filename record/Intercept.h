// What record/Intercept.def is expanded with: the kinds of its parameter columns, the values the
// handlers (record/Handlers.h) receive, and the preprocessor loop over a row's parameters.
//
// A row lists its parameters as (Kind, name) pairs. A kind names the C type of the parameter
// (Kind::C, as mpi.h declares it: the C wrappers are checked against mpi.h's prototypes) and the
// Fortran one (Kind::F: every Fortran argument is an address). The C wrappers (Wrappers.cpp) and
// the Fortran ones (FortranWrappers.cpp) each hold a Slot per parameter, which passes the
// argument on to PMPI (substituting a status of the recorder's own where the application ignores
// one the handler reads) and gives the handler the argument's C value: the same value from C and
// from Fortran, so one handler records both alike.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <vector>

#include "record/Recorder.h"

namespace tracegen::record::intercept {

using Fint = MPI_Fint;

// ---- values handed to the handlers (besides plain ints, handles and pointers)

// Request handles as the call found them (or left them), with the address of the application's
// variable holding each: C MPI_Request or Fortran INTEGER, `stride` bytes apart.
struct Requests {
  const MPI_Request* handles = nullptr;
  const void* where = nullptr;
  std::size_t stride = 0;
  int n = 0;
  const void* at(int i) const { return static_cast<const char*>(where) + static_cast<std::size_t>(i) * stride; }
};

// The request a request-creating call returned, and where.
struct NewRequest {
  MPI_Request handle = MPI_REQUEST_NULL;
  const void* where = nullptr;
};

// Indices of completed requests (MPI_Waitsome, MPI_Testsome): 0-based from C, 1-based from
// Fortran; operator[] gives them 0-based.
struct Indices {
  const int* values = nullptr;
  int base = 0;
  int operator[](int i) const { return values[i] - base; }
};

// An array of datatypes (MPI_Alltoallw): C handles as given, or Fortran ones converted on
// demand, once the handler knows how many there are.
struct TypeList {
  const MPI_Datatype* c = nullptr;
  const Fint* f = nullptr;
  std::vector<MPI_Datatype>* converted = nullptr;
  const MPI_Datatype* get(int n) const {
    if (c || !f) return c;
    converted->resize(static_cast<std::size_t>(n > 0 ? n : 1));
    for (int i = 0; i < n; ++i) (*converted)[static_cast<std::size_t>(i)] = PMPI_Type_f2c(f[i]);
    return converted->data();
  }
};

// A parameter the handler does not look at (passed on untouched).
struct Unread {};

// ---- parameter kinds: C type, Fortran type. The Slot of each language defines the rest.
namespace kind {
#define TG_KIND(NAME, CTYPE, FTYPE) \
  struct NAME {                     \
    using C = CTYPE;                \
    using F = FTYPE;                \
  };
TG_KIND(Int, int, Fint*)                            // a count, rank, tag, colour, ... (value: int)
TG_KIND(Flag, int*, Fint*)                          // an output flag (value: int, read after the call)
TG_KIND(BufIn, const void*, void*)                  // a send buffer (value: MPI_IN_PLACE from Fortran too)
TG_KIND(Buf, void*, void*)                          // a receive buffer (same)
TG_KIND(Ints, const int*, Fint*)                    // an array of ints (counts, displacements, ranks)
TG_KIND(Ranges, int (*)[3], Fint*)                  // MPI_Group_range_*'s triples (value: const int*, 3n)
TG_KIND(Aint, MPI_Aint, MPI_Aint*)                  // a size or displacement (value: MPI_Aint)
TG_KIND(Aints, const MPI_Aint*, MPI_Aint*)          // displacements in bytes (unread)
TG_KIND(Offset, MPI_Offset, MPI_Offset*)            // a file offset (value: MPI_Offset)
TG_KIND(OffsetOut, MPI_Offset*, MPI_Offset*)        // an output file size (unread)
TG_KIND(Type, MPI_Datatype, Fint*)                  // handles, converted to C (value: the C handle)
TG_KIND(Types, const MPI_Datatype*, Fint*)          // value: TypeList
TG_KIND(Op, MPI_Op, Fint*)
TG_KIND(Comm, MPI_Comm, Fint*)
TG_KIND(Group, MPI_Group, Fint*)
TG_KIND(Win, MPI_Win, Fint*)
TG_KIND(File, MPI_File, Fint*)
TG_KIND(Info, MPI_Info, Fint*)                      // unread
TG_KIND(CommOut, MPI_Comm*, Fint*)                  // output (or in-out) handles: value: the handle
TG_KIND(GroupOut, MPI_Group*, Fint*)                //   the variable holds when the handler looks
TG_KIND(WinOut, MPI_Win*, Fint*)
TG_KIND(FileOut, MPI_File*, Fint*)
TG_KIND(Message, MPI_Message*, Fint*)               // unread
TG_KIND(RequestOut, MPI_Request*, Fint*)            // a request the call creates (value: NewRequest)
TG_KIND(Request, MPI_Request*, Fint*)               // one request the call takes (value: Requests, n 1)
TG_KIND(RequestIn, MPI_Request, Fint*)              // one passed by value (unread)
TG_KIND(RequestArray, MPI_Request*, Fint*)          // the call's first argument's many (value: Requests)
TG_KIND(Status, MPI_Status*, Fint*)                 // a status the handler reads (value: const MPI_Status*)
TG_KIND(StatusOut, MPI_Status*, Fint*)              // one it does not (passed on untouched)
TG_KIND(Statuses, MPI_Status*, Fint*)               // the first argument's many, read (const MPI_Status*)
TG_KIND(StatusesOut, MPI_Status*, Fint*)            // unread
TG_KIND(Index, int*, Fint*)                         // an output index (value: 0-based, or MPI_UNDEFINED)
TG_KIND(IndexArray, int*, Fint*)                    // output indices (value: Indices)
TG_KIND(Str, const char*, char*)                    // a CHARACTER argument (Fortran rows FSTR: hidden length)
#undef TG_KIND
// C-only parameters (rows without Fortran entry points), passed on untouched.
template <class T>
struct Raw {
  using C = T;
};
}  // namespace kind

// Readies a slot before the timed region: one that holds an array (requests, statuses) takes
// its size from the call's first argument (the count, in every MPI function that takes such an
// array); one of a status the handler reads puts the recorder's own in place of an ignored one.
template <class First, class Slot>
void prepare(First& first, Slot& slot) {
  if constexpr (requires { slot.size(0); }) slot.size(first.value());
  if constexpr (requires { slot.substitute(); }) slot.substitute();
}

// The kind K of a slot (Slot<K>, in either language's wrappers).
template <class S>
struct SlotKindOf;
template <template <class> class S, class K>
struct SlotKindOf<S<K>> {
  using type = K;
};

// The call's send buffer (its first BufIn) and receive buffer (its first Buf), as the handlers
// see them, for CallScope::buffers.
template <class Slot>
void noteBuffer(const Slot& slot, const void*& sent, const void*& received) {
  using K = typename SlotKindOf<Slot>::type;
  if constexpr (std::is_same_v<K, kind::BufIn>) {
    if (!sent) sent = slot.value();
  } else if constexpr (std::is_same_v<K, kind::Buf>) {
    if (!received) received = slot.value();
  }
}

// What every wrapper does once it records (Intercept.def describes the order of things), on the
// tuple of its arguments' slots; `pmpi` takes the arguments as the slots pass them on.
template <class H, class Slots, class Pmpi>
int recordCall(CallScope& s, Slots& slots, Pmpi&& pmpi) {
  std::apply([&](auto& first, auto&... rest) {
    prepare(first, first);
    (prepare(first, rest), ...);
  }, slots);
  H handler;
  if constexpr (H::kBefore) std::apply([&](auto&... slot) { handler.before(s, slot.value()...); }, slots);
  s.begin();
  const int rc = std::apply([&](auto&... slot) { return pmpi(slot.pass()...); }, slots);
  s.end();
  std::apply([&](auto&... slot) { handler.after(s, slot.value()...); }, slots);
  const void* sent = nullptr;
  const void* received = nullptr;
  std::apply([&](auto&... slot) { (noteBuffer(slot, sent, received), ...); }, slots);
  s.buffers(sent, received);
  s.commit();
  return rc;
}

}  // namespace tracegen::record::intercept

// ---- TG_MAP(F, (K, n), (K, n), ...): F(K, n), F(K, n), ... (comma-separated). The rescans of
// TG_EXPAND bound a row's parameters (well above MPI's 17 at most).
#define TG_PARENS ()
#define TG_EXPAND(...) TG_EXPAND3(TG_EXPAND3(TG_EXPAND3(TG_EXPAND3(__VA_ARGS__))))
#define TG_EXPAND3(...) TG_EXPAND2(TG_EXPAND2(TG_EXPAND2(TG_EXPAND2(__VA_ARGS__))))
#define TG_EXPAND2(...) TG_EXPAND1(TG_EXPAND1(TG_EXPAND1(TG_EXPAND1(__VA_ARGS__))))
#define TG_EXPAND1(...) __VA_ARGS__
#define TG_MAP(F, ...) __VA_OPT__(TG_EXPAND(TG_MAP_STEP(F, __VA_ARGS__)))
#define TG_MAP_STEP(F, pair, ...) F pair __VA_OPT__(, TG_MAP_AGAIN TG_PARENS(F, __VA_ARGS__))
#define TG_MAP_AGAIN() TG_MAP_STEP

// The pieces of a parameter pair.
#define TG_PARAM_KIND(K, n) ::tracegen::record::intercept::kind::K
#define TG_PARAM_NAME(K, n) n
#define TG_PARAM_C(K, n) ::tracegen::record::intercept::kind::K::C n
#define TG_PARAM_F(K, n) ::tracegen::record::intercept::kind::K::F n
