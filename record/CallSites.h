// Call-site signatures: which place in the application made an MPI call.
//
// At every intercepted call the stack is walked: with libunwind's unw_backtrace when
// libunwind.so.8 can be loaded (it caches unwind information; some ten times faster than glibc's
// backtrace(), which is the fallback; TRACEGEN_UNWIND=glibc forces it). Frames in the recorder
// itself and in the MPI libraries are skipped, and the walk stops at the C library (the frames
// below main are the same for every call). Each remaining return address becomes
// (module, offset from the module's load address) via dladdr, so the same call site has the
// same signature in every process despite address-space randomisation; the translation is
// cached per raw address. The signature is the chain of offsets, innermost first, printed as
// hex joined by '_' (frames of modules other than the executable are prefixed `module+`),
// e.g. `1a2b_1c40_1f00`, and interned: a site's index is what events carry while recording.
// Two calls of one MPI function from different places, or from one place reached through
// different callers, have different signatures. The walk itself yields raw addresses, which
// differ between processes but not within one: a cache from the raw chain to the interned site
// makes a repeated call site cost one hash lookup after the walk.
//
// Most calls skip the walk (x86-64): after a walk, the stack slots that held the return
// addresses of the chain (each frame's canonical frame address minus 8, as the unwinder reports
// it), from capture()'s own frame up to the C library's frame, are remembered with their
// values, keyed by capture()'s frame address and return address. A later call whose key matches
// and whose remembered slots all hold the same values has the same chain: each frame's return
// address and position fix the next frame's (for frames of fixed size, which compilers give
// every function without alloca or variable-length arrays), so it gets the site without a walk,
// at the cost of a few loads. A mismatch walks and remembers the new chain too.
// TRACEGEN_UNWIND=walk walks at every call.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/Trace.h"

namespace tracegen::record {

class CallSites {
 public:
  // maxDepth: frames kept after the skipped ones.
  explicit CallSites(int maxDepth = 24);
  // The interned site of the current call stack (call from the wrapper).
  std::uint32_t capture();
  // Interns a synthetic site name (for calls made without an application stack).
  std::uint32_t intern(const std::string& name);
  const std::vector<std::string>& names() const { return names_; }
  // Names the frames of `t`'s sites (Trace::frameNames, program; record/FrameNames.h): once
  // per distinct frame, from the addresses this process saw (frames only other processes saw:
  // their offset into the module loaded here). Called at MPI_Finalize by rank 0.
  void nameFrames(Trace& t);

 private:
  struct Frame {
    bool skip = false;   // recorder or MPI library frame
    bool stop = false;   // C library: the stack below main
    std::string text;    // `1a2b` or `libfoo.so+1a2b`
  };
  struct RawSite {
    std::vector<void*> frames;  // the kept raw addresses
    std::uint32_t site;
  };
  const Frame& frame(void* addr);
  std::uint32_t walk();  // the stack walk (libunwind or glibc) and the raw-chain cache
  void remember(void** anchor, void* ret, std::uint32_t site);

  // A remembered chain: slots [first, first + count) of slots_, each a stack address and the
  // return address it held; `next` links chains with the same key (UINT32_MAX ends).
  struct Memo {
    std::uint64_t key;
    std::uint32_t first, count, site, next;
  };
  static constexpr std::size_t kFront = 256;  // direct-mapped cache in front of memoIndex_
  static constexpr std::size_t kMaxMemos = std::size_t{1} << 16;
  bool memoize_ = false;
  std::vector<Memo> memos_;
  std::vector<std::pair<void* const*, void*>> slots_;
  std::unordered_map<std::uint64_t, std::uint32_t> memoIndex_;  // key -> first memo of its chain
  std::uint32_t front_[kFront];

  int (*unwind_)(void**, int) = nullptr;  // libunwind's unw_backtrace, or null for glibc's
  int maxDepth_;
  std::uintptr_t selfBase_ = 0;
  std::uintptr_t exeBase_ = 0;
  std::unordered_map<void*, Frame> frames_;
  std::unordered_map<std::uint64_t, RawSite> raw_;
  std::vector<void*> kept_;
  std::unordered_map<std::string, std::uint32_t> index_;
  std::vector<std::string> names_;
  std::string scratch_;
};

}  // namespace tracegen::record
