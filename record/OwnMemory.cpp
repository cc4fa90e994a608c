// The recorder's own heap memory (record/OwnMemory.h).
//
// malloc, calloc, realloc and free are interposed. Outside an OwnMemoryScope each forwards to
// the next definition in the process (dlsym(RTLD_NEXT): glibc's, or an allocator the application
// brings), so the application's blocks are served as they would be without the recorder.
// Inside a scope the recorder's blocks come from a pool of its own, away from the application's
// heap: had they been mixed into it, a small block of the recorder's above a large one the
// application frees keeps glibc from giving the heap back to the system (hpcc frees its arrays
// before it ends; with the recorder's blocks among them its process held 25.9 MB against 20.0).
//
// The pool is one reservation of virtual memory (MAP_NORESERVE: pages are taken as they are
// touched), cut into one range per size class, powers of two from 16 bytes to 256 MB: a block's
// class is known from its address, so blocks carry no header and free() tells the pool's blocks
// from the others by the address alone. Each class hands out blocks from the start of its range
// and keeps a list of the freed ones; freed blocks of 256 KB and more are given back to the
// system (madvise), as glibc unmaps its large blocks. The pool's resident bytes (what has been
// touched and not given back: whole pages for the blocks smaller than one) are counted; what the pool
// cannot serve (a request beyond its classes, a class whose range is full, no reservation) is
// forwarded and counted by its usable size while in a scope, as blocks of the aligned allocators
// (posix_memalign, aligned_alloc, memalign) are not counted at all.
//
// dlsym itself may allocate (its error state) before the next malloc is known: those few bytes
// come from a static buffer and are never freed.
#include "record/OwnMemory.h"

#include <dlfcn.h>
#include <sched.h>
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstring>

namespace tracegen::record {

namespace {

using MallocFn = void* (*)(std::size_t);
using CallocFn = void* (*)(std::size_t, std::size_t);
using ReallocFn = void* (*)(void*, std::size_t);
using FreeFn = void (*)(void*);
using UsableFn = std::size_t (*)(void*);

MallocFn g_malloc = nullptr;
CallocFn g_calloc = nullptr;
ReallocFn g_realloc = nullptr;
FreeFn g_free = nullptr;
UsableFn g_usable = nullptr;
bool g_resolving = false;

// What dlsym allocates while the functions above are looked up.
alignas(std::max_align_t) char g_bootstrap[8192];
std::size_t g_bootstrapUsed = 0;

// Initial-exec: the library is preloaded (static TLS), and malloc must not call
// __tls_get_addr, which may allocate.
thread_local int t_own __attribute__((tls_model("initial-exec"))) = 0;
thread_local int t_paused __attribute__((tls_model("initial-exec"))) = 0;

// What the recorder holds resident: the pool's touched bytes not given back, and the usable
// size of its blocks the next allocator serves.
std::atomic<std::int64_t> g_resident{0}, g_residentPeak{0};

// ---- the pool

constexpr int kMinShift = 4;   // 16 bytes
constexpr int kMaxShift = 28;  // 256 MB
constexpr int kClasses = kMaxShift - kMinShift + 1;
constexpr std::size_t kClassRange = std::size_t{1} << 30;  // virtual bytes per class
constexpr std::size_t kReleaseFrom = std::size_t{256} << 10;
constexpr std::size_t kPage = 4096;  // the pages the pool's blocks are counted in (Linux x86-64, arm64 4 KiB)

struct FreeBlock {
  FreeBlock* next;
};

struct SizeClass {
  std::size_t used = 0;  // bytes handed out from the start of the range
  FreeBlock* freed = nullptr;
};

char* g_pool = nullptr;
bool g_poolTried = false;
SizeClass g_classes[kClasses];
std::atomic_flag g_poolLock = ATOMIC_FLAG_INIT;

struct PoolLock {
  PoolLock() {
    while (g_poolLock.test_and_set(std::memory_order_acquire)) sched_yield();
  }
  ~PoolLock() { g_poolLock.clear(std::memory_order_release); }
};

void raise(std::atomic<std::int64_t>& peak, std::int64_t now) {
  std::int64_t p = peak.load(std::memory_order_relaxed);
  while (now > p && !peak.compare_exchange_weak(p, now, std::memory_order_relaxed)) {
  }
}

void addResident(std::int64_t n) {
  raise(g_residentPeak, g_resident.fetch_add(n, std::memory_order_relaxed) + n);
}

// Blocks freed inside a scope that no scope allocated would take away bytes never added: the
// count stays at zero or above.
void takeResident(std::int64_t n) {
  std::int64_t now = g_resident.load(std::memory_order_relaxed);
  while (!g_resident.compare_exchange_weak(now, now > n ? now - n : 0, std::memory_order_relaxed)) {
  }
}

bool inPool(const void* p) {
  return g_pool && p >= static_cast<const void*>(g_pool) &&
         p < static_cast<const void*>(g_pool + kClassRange * kClasses);
}

int classOf(std::size_t n) {
  int k = kMinShift;
  while (k <= kMaxShift && (std::size_t{1} << k) < n) ++k;
  return k <= kMaxShift ? k - kMinShift : -1;
}

std::size_t classBytes(int c) { return std::size_t{1} << (c + kMinShift); }

std::size_t poolUsable(const void* p) {
  return classBytes(static_cast<int>((static_cast<const char*>(p) - g_pool) / kClassRange));
}

// A block of at least n bytes from the pool; nullptr where the pool cannot serve it.
void* poolAlloc(std::size_t n) {
  const int c = classOf(n == 0 ? 1 : n);
  if (c < 0) return nullptr;
  PoolLock lock;
  if (!g_poolTried) {
    g_poolTried = true;
    void* p = mmap(nullptr, kClassRange * kClasses, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p != MAP_FAILED) g_pool = static_cast<char*>(p);
  }
  if (!g_pool) return nullptr;
  SizeClass& sc = g_classes[c];
  const std::size_t bytes = classBytes(c);
  void* block = nullptr;
  if (sc.freed) {
    block = sc.freed;
    sc.freed = sc.freed->next;
    if (bytes >= kReleaseFrom) addResident(static_cast<std::int64_t>(bytes));  // given back when freed
  } else if (sc.used + bytes <= kClassRange) {
    block = g_pool + kClassRange * static_cast<std::size_t>(c) + sc.used;
    // Blocks smaller than a page share pages: the first block of a page makes all of it
    // resident (25 classes of a few small blocks each hold 25 pages, not their bytes).
    if (bytes >= kPage) addResident(static_cast<std::int64_t>(bytes));
    else if (sc.used % kPage == 0) addResident(static_cast<std::int64_t>(kPage));
    sc.used += bytes;
  } else {
    return nullptr;
  }
  return block;
}

void poolFree(void* p) {
  const std::size_t bytes = poolUsable(p);
  const int c = classOf(bytes);
  if (bytes >= kReleaseFrom) {
    madvise(p, bytes, MADV_DONTNEED);
    takeResident(static_cast<std::int64_t>(bytes));
  }
  PoolLock lock;
  auto* f = static_cast<FreeBlock*>(p);
  f->next = g_classes[c].freed;  // touches one page of a block given back
  g_classes[c].freed = f;
}

// ---- forwarding

bool fromBootstrap(const void* p) {
  return p >= static_cast<const void*>(g_bootstrap) && p < static_cast<const void*>(g_bootstrap + sizeof g_bootstrap);
}

void* bootstrapAlloc(std::size_t n) {
  const std::size_t a = alignof(std::max_align_t);
  const std::size_t at = (g_bootstrapUsed + a - 1) / a * a;
  if (at + n > sizeof g_bootstrap) return nullptr;
  g_bootstrapUsed = at + n;
  return g_bootstrap + at;
}

void resolve() {
  g_resolving = true;
  g_malloc = reinterpret_cast<MallocFn>(dlsym(RTLD_NEXT, "malloc"));
  g_calloc = reinterpret_cast<CallocFn>(dlsym(RTLD_NEXT, "calloc"));
  g_realloc = reinterpret_cast<ReallocFn>(dlsym(RTLD_NEXT, "realloc"));
  g_free = reinterpret_cast<FreeFn>(dlsym(RTLD_NEXT, "free"));
  g_usable = reinterpret_cast<UsableFn>(dlsym(RTLD_NEXT, "malloc_usable_size"));
  g_resolving = false;
}

bool counting() { return t_own > 0 && t_paused == 0; }

// A block the next allocator gave the recorder: counted by its usable size.
void countForwarded(void* p, bool add) {
  if (!p || !g_usable) return;
  const auto n = static_cast<std::int64_t>(g_usable(p));
  if (add) addResident(n);
  else takeResident(n);
}

}  // namespace

void OwnMemoryScope::enter() { ++t_own; }
void OwnMemoryScope::leave() { --t_own; }
void OwnMemoryScope::pause() { ++t_paused; }
void OwnMemoryScope::resume() { --t_paused; }

std::int64_t ownResidentBytes() { return g_resident.load(std::memory_order_relaxed); }
std::int64_t ownResidentPeakBytes() { return g_residentPeak.load(std::memory_order_relaxed); }

}  // namespace tracegen::record

using namespace tracegen::record;

extern "C" {

__attribute__((visibility("default"))) void* malloc(std::size_t n) noexcept {
  if (!g_malloc) {
    if (g_resolving) return bootstrapAlloc(n);
    resolve();
    if (!g_malloc) return nullptr;
  }
  if (!counting()) return g_malloc(n);
  if (void* p = poolAlloc(n)) return p;
  void* p = g_malloc(n);
  countForwarded(p, true);
  return p;
}

__attribute__((visibility("default"))) void* calloc(std::size_t n, std::size_t size) noexcept {
  if (size != 0 && n > static_cast<std::size_t>(-1) / size) return nullptr;
  if (!g_calloc) {
    if (g_resolving) return bootstrapAlloc(n * size);  // static storage: zero already
    resolve();
    if (!g_calloc) return nullptr;
  }
  if (!counting()) return g_calloc(n, size);
  if (void* p = poolAlloc(n * size)) {
    std::memset(p, 0, n * size);  // a reused block holds what it held
    return p;
  }
  void* p = g_calloc(n, size);
  countForwarded(p, true);
  return p;
}

__attribute__((visibility("default"))) void* realloc(void* old, std::size_t n) noexcept {
  if (fromBootstrap(old) || inPool(old)) {
    // Moved to a new block: the pool's stays in the pool (the recorder's data wherever it is
    // resized), a block dlsym got goes where a new block would.
    const std::size_t have = fromBootstrap(old)
                                 ? static_cast<std::size_t>(g_bootstrap + sizeof g_bootstrap - static_cast<char*>(old))
                                 : poolUsable(old);
    if (inPool(old) && n <= have && n > have / 2) return old;
    void* p = inPool(old) ? poolAlloc(n) : nullptr;
    if (!p) p = malloc(n);
    if (!p) return nullptr;
    std::memcpy(p, old, n < have ? n : have);
    if (inPool(old)) poolFree(old);
    return p;
  }
  if (!g_realloc) {
    resolve();
    if (!g_realloc) return nullptr;
  }
  const bool own = counting();
  if (own) countForwarded(old, false);
  void* p = g_realloc(old, n);
  if (own) countForwarded(p ? p : old, true);  // a failed realloc leaves the old block
  return p;
}

__attribute__((visibility("default"))) void free(void* p) noexcept {
  if (!p || fromBootstrap(p)) return;
  if (inPool(p)) {
    poolFree(p);
    return;
  }
  if (!g_free) resolve();
  if (counting()) countForwarded(p, false);
  if (g_free) g_free(p);
}

}  // extern "C"
