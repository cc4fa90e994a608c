// Recording of one-sided communication, shared by the C and Fortran entry points.
//
// Windows are numbered per rank as communicators are: 1000 + the order in which the rank
// created them (MPI_Win_create, MPI_Win_allocate, and the window constructors recorded as
// opaque calls, so that the numbers stay those of the application). Every event on a window
// carries its id (`win`) and the window's communicator (`comm`), so that the target rank
// (`dest`, in the communicator's numbering like any peer) and the collective checks work as
// for communicators. Lock types and assertions are stored in the trace's own numbering, not the
// MPI library's (docs/trace-format.md, "One-sided communication").
//
// The registry is touched only between CallScope::end() and commit(), under the recorder's lock.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

#include "record/Recorder.h"

namespace tracegen::record::onesided {

struct WinInfo {
  std::int64_t id = 0;
  std::int64_t comm = 0;
};

inline std::unordered_map<MPI_Win, WinInfo>& windows() {
  static std::unordered_map<MPI_Win, WinInfo> w;
  return w;
}

// A window-making call returned `win` on `comm`: takes the next id.
inline std::int64_t created(CallScope& s, MPI_Win win, MPI_Comm comm) {
  static std::int64_t next = 1000;
  s.comm(comm);
  const std::int64_t id = next++;
  if (win != MPI_WIN_NULL) windows()[win] = {id, s.commId(comm)};
  s.set(Param::Win, id);
  return id;
}

// MPI_Win_create, MPI_Win_allocate: also the caller's window size and displacement unit.
inline void createdWithMemory(CallScope& s, MPI_Win win, MPI_Comm comm, MPI_Aint size, int dispUnit) {
  created(s, win, comm);
  s.set(Param::WinSize, static_cast<std::int64_t>(size));
  s.set(Param::DispUnit, dispUnit);
}

// A call on window `win` (before MPI_Win_free, the handle it was given): its id and communicator.
inline void on(CallScope& s, MPI_Win win) {
  auto it = windows().find(win);
  if (it == windows().end()) return;  // a window no intercepted call made: recorded without `win`
  s.set(Param::Comm, it->second.comm);
  s.set(Param::Win, it->second.id);
}

inline void freed(CallScope& s, MPI_Win old) {
  on(s, old);
  windows().erase(old);
}

// MPI_MODE_ bits in the trace's numbering: 1 nocheck, 2 nostore, 4 noput, 8 noprecede, 16 nosucceed.
inline void assertion(CallScope& s, int a) {
  std::int64_t bits = 0;
  if (a & MPI_MODE_NOCHECK) bits |= 1;
  if (a & MPI_MODE_NOSTORE) bits |= 2;
  if (a & MPI_MODE_NOPUT) bits |= 4;
  if (a & MPI_MODE_NOPRECEDE) bits |= 8;
  if (a & MPI_MODE_NOSUCCEED) bits |= 16;
  s.set(Param::Assert, bits);
}

// MPI_Win_lock: 1 exclusive, 2 shared.
inline void lock(CallScope& s, int type, int rank, int a, MPI_Win win) {
  on(s, win);
  s.set(Param::LockType, type == MPI_LOCK_SHARED ? 2 : 1);
  s.peer(Param::Dest, rank);
  assertion(s, a);
}

// MPI_Put, MPI_Get, MPI_Accumulate: origin count and type, target rank, target count and type.
inline void transfer(CallScope& s, int oc, MPI_Datatype ot, int rank, int tc, MPI_Datatype tt, MPI_Win win) {
  on(s, win);
  s.set(Param::Count, oc);
  s.type(Param::Datatype, ot);
  s.peer(Param::Dest, rank);
  s.set(Param::RecvCount, tc);
  s.type(Param::RecvType, tt);
}

}  // namespace tracegen::record::onesided
