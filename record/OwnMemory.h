// The recorder's own heap memory, kept out of the application's recorded peak.
//
// The recorder's data (the compressed trace, call-site tables, request maps) lives in the
// application's process, so the process's peak resident size holds it too: apitour's 8,700
// events took 8-12 MB a rank, more than the application's own growth, and its benchmark topped
// up to that (+53% against the application). The library therefore interposes malloc, calloc,
// realloc and free (record/OwnMemory.cpp): what the calling thread allocates inside an
// OwnMemoryScope (the recorder's bookkeeping, never the PMPI calls it wraps: what MPI itself
// allocates for a call is the application's, and a benchmark's same call allocates it again)
// comes from a pool of the recorder's own, away from the application's heap, and is counted;
// everything else goes to the allocator that follows (glibc's, or one the application brings).
#pragma once

#include <cstdint>

namespace tracegen::record {

// RAII: the allocations of this thread are the recorder's own while a scope is open (scopes
// nest). enter() and leave() open and close one where the scope is no C++ block (a CallScope's
// lifetime); pause() and resume() bracket a PMPI call made inside one.
class OwnMemoryScope {
 public:
  OwnMemoryScope() { enter(); }
  ~OwnMemoryScope() { leave(); }
  OwnMemoryScope(const OwnMemoryScope&) = delete;
  OwnMemoryScope& operator=(const OwnMemoryScope&) = delete;
  static void enter();
  static void leave();
  static void pause();
  static void resume();
};

// The bytes the recorder's own blocks hold resident now (its pool's touched pages not given
// back, and the blocks the next allocator served it), and the most they have.
std::int64_t ownResidentBytes();
std::int64_t ownResidentPeakBytes();

}  // namespace tracegen::record
