// Recording of MPI-IO, shared by the C and Fortran entry points.
//
// Files are numbered per rank as windows are: 1000 + the order in which the rank opened them
// (MPI_File_open). Every event on a file carries its id (`file`) and the communicator it was
// opened on (`comm`), so that the collective calls are checked as collectives over it. File
// names and access modes are not recorded (docs/trace-format.md, "MPI-IO").
//
// The registry is touched only between CallScope::end() and commit(), under the recorder's lock.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

#include "record/Recorder.h"

namespace tracegen::record::fileio {

struct FileInfo {
  std::int64_t id = 0;
  std::int64_t comm = 0;
};

inline std::unordered_map<MPI_File, FileInfo>& files() {
  static std::unordered_map<MPI_File, FileInfo> f;
  return f;
}

// MPI_File_open returned `fh` on `comm`: takes the next id.
inline void opened(CallScope& s, MPI_File fh, MPI_Comm comm) {
  static std::int64_t next = 1000;
  s.comm(comm);
  const std::int64_t id = next++;
  if (fh != MPI_FILE_NULL) files()[fh] = {id, s.commId(comm)};
  s.set(Param::File, id);
}

// A call on file `fh` (MPI_File_close: the handle it was given).
inline void on(CallScope& s, MPI_File fh) {
  auto it = files().find(fh);
  if (it == files().end()) return;  // a file no intercepted call opened: recorded without `file`
  s.set(Param::Comm, it->second.comm);
  s.set(Param::File, it->second.id);
}

inline void closed(CallScope& s, MPI_File old) {
  on(s, old);
  files().erase(old);
}

// Reads and writes: count and datatype, and the offset of the _at calls (negative: none).
inline void access(CallScope& s, MPI_File fh, int count, MPI_Datatype type, MPI_Offset offset) {
  on(s, fh);
  s.set(Param::Count, count);
  s.type(Param::Datatype, type);
  if (offset >= 0) s.set(Param::Offset, static_cast<std::int64_t>(offset));
}

}  // namespace tracegen::record::fileio
