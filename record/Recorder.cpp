#include "record/Recorder.h"

#include <link.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fmt/format.h>
#include <fstream>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "io/Compression.h"
#include "ir/Diagnostics.h"
#include "io/Readers.h"
#include "ir/Verify.h"
#include "record/CallSites.h"
#include "record/Clustering.h"
#include "record/LoopCompressor.h"
#include "record/OwnMemory.h"
#include "record/Wire.h"

namespace tracegen::record {

namespace {

// Initial-exec: the library is preloaded, and a plain int in static TLS costs no
// __tls_get_addr call per access.
thread_local int t_depth __attribute__((tls_model("initial-exec"))) = 0;

double clockUs(clockid_t id) {
  timespec ts{};
  clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) * 1e6 + static_cast<double>(ts.tv_nsec) / 1000.0;
}
// Wall-clock time (the vDSO's CLOCK_MONOTONIC, as std::chrono::steady_clock reads it).
double nowUs() { return clockUs(CLOCK_MONOTONIC); }

// The per-call clock (four readings per recorded call): where the kernel keeps time with the
// time stamp counter itself (clocksource `tsc`, which it selects only when the counter is
// invariant and synchronised between cores), the counter is read directly and scaled here,
// which is what the vDSO's clock_gettime does behind a sequence lock and a function call: 9 ns
// a reading on the 2-core test machine against 21 ns. The scale comes from CLOCK_MONOTONIC over
// 2 ms when the recorder starts (error of the order of 1e-5, against the three significant
// digits the trace keeps). Elsewhere, and with TRACEGEN_TSC=0, CLOCK_MONOTONIC is read.
// (A spinning 2 ms per rank at MPI_Init: MPI_Init itself takes far longer.)
double g_usPerTick = 0;  // 0: no counter, read CLOCK_MONOTONIC
std::uint64_t g_tick0 = 0;
double g_tickUs0 = 0;

void calibrateTicks() {
#if defined(__x86_64__)
  if (const char* v = std::getenv("TRACEGEN_TSC"); v && std::strcmp(v, "0") == 0) return;
  FILE* f = std::fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f) return;
  char name[32] = {};
  const bool read = std::fgets(name, sizeof name, f) != nullptr;
  std::fclose(f);
  if (!read || std::strcmp(name, "tsc\n") != 0) return;
  // A reading of both clocks at one instant: the counter read on both sides of clock_gettime,
  // retried until the two counter readings are close, so that a preemption (ranks may
  // outnumber cores) between the two clocks cannot skew the scale.
  struct Pair {
    std::uint64_t tick;
    double us;
  };
  auto pair = [] {
    Pair best{0, 0};
    std::uint64_t bestSpan = UINT64_MAX;
    for (int attempt = 0; attempt < 100 && bestSpan > 2000; ++attempt) {
      const std::uint64_t a = __rdtsc();
      const double us = nowUs();
      const std::uint64_t b = __rdtsc();
      if (b >= a && b - a < bestSpan) {
        bestSpan = b - a;
        best = {a + (b - a) / 2, us};
      }
    }
    return best;
  };
  const Pair p0 = pair();
  Pair p1 = p0;
  while (p1.us - p0.us < 2000) p1 = pair();
  if (p1.tick <= p0.tick) return;
  g_usPerTick = (p1.us - p0.us) / static_cast<double>(p1.tick - p0.tick);
  g_tick0 = p1.tick;
  g_tickUs0 = p1.us;
#endif
}

// Microseconds on CLOCK_MONOTONIC's scale and origin.
inline double tickUs() {
#if defined(__x86_64__)
  if (g_usPerTick > 0) return g_tickUs0 + static_cast<double>(static_cast<std::int64_t>(__rdtsc() - g_tick0)) * g_usPerTick;
#endif
  return nowUs();
}

// When the recorder's library was initialised (its constructor runs once the program and its
// libraries are loaded, before main), and the resident memory then: what the application
// does before MPI_Init and the memory it gains are measured from this point, so that the
// loading of the recorder's own libraries (a benchmark does not load them) is left out.
double g_loadUs = -1;
std::int64_t g_loadRssKb = -1;

std::int64_t residentKb() {  // C stdio: runs in a library constructor
  FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm) return -1;
  long long size = 0, resident = 0;
  const bool read = std::fscanf(statm, "%lld %lld", &size, &resident) == 2;
  std::fclose(statm);
  if (!read) return -1;
  const long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? static_cast<std::int64_t>(resident) * page / 1024 : -1;
}

// The resident pages of the file mappings whose path `counted(path)` accepts, from
// /proc/self/smaps, with the anonymous mapping that directly follows one (a library's .bss).
template <typename Counted>
std::int64_t mappedFilesKb(Counted counted) {  // C stdio: runs in a library constructor
  FILE* smaps = std::fopen("/proc/self/smaps", "r");
  if (!smaps) return 0;
  char line[4096];
  bool inCounted = false;
  unsigned long countedTo = 0;  // where the last counted mapping ends
  std::int64_t kb = 0;
  while (std::fgets(line, sizeof line, smaps)) {
    unsigned long from = 0, to = 0;
    if (std::sscanf(line, "%lx-%lx", &from, &to) == 2 && std::strchr(line, ' ')) {
      const char* path = std::strchr(line, '/');
      const bool named = std::strchr(line, '/') || std::strchr(line, '[');
      inCounted = path != nullptr ? counted(path) : !named && inCounted && from == countedTo;
      if (inCounted) countedTo = to;
      continue;
    }
    long long rss = 0;
    if (inCounted && std::sscanf(line, "Rss: %lld kB", &rss) == 1) kb += rss;
  }
  std::fclose(smaps);
  return kb;
}

template <std::size_t N>
bool pathHasOneOf(const char* path, const char* const (&names)[N]) {
  for (const char* name : names)
    if (std::strstr(path, name)) return true;
  return false;
}

// The recorder's library and the libraries it brings that a benchmark (C and MPI) does not load
// (stencil2d under the recorder at MPI_Finalize: libstdc++ 1,016 KB, the recorder 748, libgcc_s
// 128, libzstd 92, liblzma 88, libfmt 80, libunwind 72).
constexpr const char* kRecorderLibraries[] = {"/libtracegen-record", "/libfmt",    "/libzstd", "/libstdc++",
                                              "/libgcc_s",           "/libunwind", "/liblzma"};
constexpr std::size_t kRecorderLibraryCount = std::size(kRecorderLibraries);

int recorderLibraryOf(const char* path) {
  for (std::size_t k = 0; k < kRecorderLibraryCount; ++k)
    if (std::strstr(path, kRecorderLibraries[k])) return static_cast<int>(k);
  return -1;
}

// Which of them the application needs too (bit i: kRecorderLibraries[i]): a C++ application
// runs in libstdc++ and so in libgcc_s, LAMMPS needs libzstd (through libcurl). Those are the
// application's code as much as the recorder's. A library is the application's where an object
// of the application's needs it (the program, a library not on the list, or one on the list the
// application needs: the closure), read from each object's DT_NEEDED entries in its dynamic
// section as the loader relocated it.
unsigned librariesTheApplicationNeeds() {
  struct Loaded {
    int library = -1;    // its index in kRecorderLibraries, or -1: the application's
    unsigned needs = 0;  // the recorder's libraries it names in DT_NEEDED
  };
  struct Objects {
    Loaded at[1024];
    std::size_t count = 0;
  };
  static Objects objects;  // static: no allocation in a library constructor
  objects.count = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* out) {
        auto& all = *static_cast<Objects*>(out);
        if (all.count == std::size(all.at)) return 1;
        Loaded& o = all.at[all.count++];
        o = Loaded{recorderLibraryOf(info->dlpi_name ? info->dlpi_name : ""), 0};
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          if (info->dlpi_phdr[i].p_type != PT_DYNAMIC) continue;
          const auto* dyn = reinterpret_cast<const ElfW(Dyn)*>(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
          const char* strtab = nullptr;
          for (const ElfW(Dyn)* d = dyn; d->d_tag != DT_NULL; ++d)
            if (d->d_tag == DT_STRTAB) {
              // Relocated by the loader where the section is writable; an offset where it is not
              // (the vDSO's, which needs nothing).
              ElfW(Addr) at = d->d_un.d_ptr;
              if (at < info->dlpi_addr) at += info->dlpi_addr;
              strtab = reinterpret_cast<const char*>(at);
            }
          for (const ElfW(Dyn)* d = dyn; strtab && d->d_tag != DT_NULL; ++d)
            if (d->d_tag == DT_NEEDED)
              for (std::size_t k = 0; k < kRecorderLibraryCount; ++k)
                if (std::strstr(strtab + d->d_un.d_val, kRecorderLibraries[k] + 1))  // DT_NEEDED has no '/'
                  o.needs |= 1u << k;
        }
        return 0;
      },
      &objects);
  unsigned needs = 0;
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t i = 0; i < objects.count; ++i) {
      const Loaded& o = objects.at[i];
      const bool application = o.library < 0 || (needs & (1u << o.library)) != 0;
      if (application && (needs | o.needs) != needs) {
        needs |= o.needs;
        grew = true;
      }
    }
  }
  return needs;
}
unsigned g_applicationNeeds = ~0u;

// Whether a path is one of the recorder's libraries that the application does not need.
bool recorderOnly(const char* path) {
  const int k = recorderLibraryOf(path);
  return k >= 0 && (g_applicationNeeds & (1u << k)) == 0;
}

// The application's own code and libraries resident at load, which a benchmark does not load:
// the resident pages of every file mapping but those of the C and MPI libraries (and their
// dependencies), which a benchmark loads too, and the recorder's own (unless the application
// needs them too: LAMMPS's libstdc++). LAMMPS holds 11 MB of liblammps at load; left out of the
// gain, its benchmark held 19 MB against the application's 30 MB. A list of names is a
// heuristic: a library it misses counts as the application's.
std::int64_t applicationCodeKb() {
  static const char* const kShared[] = {
      "/ld-linux", "/libc.so", "/libm.so", "/libpthread", "/libdl.so", "/librt.so",
      "/libmpi", "/libopen-", "/libpmix", "/libevent", "/libhwloc", "/libudev", "/libz.so", "/libltdl",
      "/libuc", "/libfabric", "/libpsm", "/libibverbs", "/librdmacm", "/libnl-", "/libnuma", "/libcap",
      "/libmpich", "/libslurm", "/libcrypt", "/libpciaccess",
      "/libxml2", "/libicu", "/libsimgrid", "/libboost"};
  return mappedFilesKb([](const char* path) {
    return recorderLibraryOf(path) >= 0 ? !recorderOnly(path) : !pathHasOneOf(path, kShared);
  });
}
std::int64_t g_applicationCodeKb = 0;

// The recorder's own code and the libraries only it loads, resident: they grow as the recorder
// runs (its code is paged in call by call: the library itself from 272 KB at load to about
// 1,000 KB over samples/apps/rma_f's run, libstdc++ from 860 to 1,520 KB), which is no memory of
// the application's. A library the application needs too is the application's: its code runs
// in it as well.
std::int64_t recorderCodeKb() { return mappedFilesKb(recorderOnly); }
std::int64_t g_recorderCodeLoadKb = 0;

__attribute__((constructor)) void noteLoad() {
  g_loadUs = nowUs();
  g_loadRssKb = residentKb();
  g_applicationNeeds = librariesTheApplicationNeeds();
  g_applicationCodeKb = applicationCodeKb();
  g_recorderCodeLoadKb = recorderCodeKb();
}

// The time after MPI_Finalize (recorderFinalized): the trace rank 0 wrote, whether compressed,
// and when PMPI_Finalize returned. Plain storage: the destructor below may run after the
// destructors of the library's static objects.
char g_trailerPath[4096] = "";
bool g_trailerCompressed = false;
double g_finalizedUs = -1;

// At the process's exit (a library destructor; the preloaded recorder's runs after the
// application's own atexit handlers and library destructors): rank 0 appends the line
// `footprint after-finalize-us US` to its trace, as a zstd frame of its own when the trace is
// compressed (readers take concatenated frames). Only rank 0 measures it: the other ranks can no
// longer send anything once MPI is finalized.
__attribute__((destructor)) void appendAfterFinalize() {
  if (g_trailerPath[0] == '\0' || g_finalizedUs < 0) return;
  const double us = std::max(0.0, clockUs(CLOCK_MONOTONIC) - g_finalizedUs);
  try {
    const std::string text = "footprint after-finalize-us " + std::to_string(std::llround(us)) + "\n";
    const std::string bytes = g_trailerCompressed ? compressTrace(text) : text;
    if (FILE* f = std::fopen(g_trailerPath, "ab")) {
      std::fwrite(bytes.data(), 1, bytes.size(), f);
      std::fclose(f);
    }
  } catch (...) {
    // Nothing to report to at exit; the trace stays valid without the line.
  }
}

// TRACEGEN_CLOCK=cpu: the CPU time of the calling thread (a system call, about a microsecond).
double cpuUs() { return clockUs(CLOCK_THREAD_CPUTIME_ID); }

long envLong(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return end && *end == '\0' ? x : fallback;
}

bool envFlag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

// Message tags of the Finalize protocol on the private communicator.
constexpr int kTagTable = 7101;
constexpr int kTagStats = 7102;
constexpr int kTagPartials = 7103;
constexpr int kTagFootprint = 7104;
constexpr std::size_t kChunk = std::size_t{1} << 30;

}  // namespace

class Recorder {
 public:
  Recorder(Op initOp);

  void finish();
  // Out of memory while recording: stop recording (the application goes on) and say so. Called
  // with the mutex held.
  void stop(const std::exception& e) {
    recording = false;
    failed = true;
    std::fprintf(stderr, "tracegen-record: rank %d: recording stopped, no trace will be written: %s\n", rank, e.what());
  }
  void releaseComm() {
    if (comm_ != MPI_COMM_NULL) PMPI_Comm_free(&comm_);
    if (worldGroup_ != MPI_GROUP_NULL) PMPI_Group_free(&worldGroup_);
  }

  std::mutex mutex;
  // Under MPI_THREAD_MULTIPLE only: below it, at most one thread is inside MPI (and so inside a
  // wrapper) at a time, and the mutex would only cost its two atomic operations per call.
  bool multi = false;
  // TRACEGEN_CLOCK=cpu: compute time is the thread's CPU time (docs/recording.md, "Time").
  bool cpuClock = false;
  double beforeInitUs = -1;  // timeSinceLoadUs() at MPI_Init's entry
  // Failed polls since the rank's previous recorded call: their time (wall and CPU), which is
  // not the application's computation (CallScope::commit).
  double pollUs = 0, pollCpuUs = 0;
  // The recorder's own wall time on the calls it recorded, from the clock readings it takes
  // anyway: wrapper entry to the PMPI call, and the PMPI call's return to the end of commit().
  // Failed polls are left out (their MPI time cannot be told from the recorder's). Reported at
  // MPI_Finalize (Recorder::finish) as the recorder's cost per call, which a whole-run
  // comparison on a shared host cannot resolve.
  double ownUs = 0;
  std::int64_t ownCalls = 0;
  // The application's resident size without the recorder's own memory (record/OwnMemory.h), its
  // largest as sampled between calls at most every kMemorySampleUs (KiB; -1: none yet).
  std::int64_t appPeakKb = -1;
  std::int64_t setUpKb = 0;  // resident memory the recorder's set-up took beyond its pool and code (recorderStart)
  double memorySampledUs = -1e300;
  void sampleMemory();                 // now
  void sampleMemoryEvery(double now);  // at most every kMemorySampleUs of the call clock
  CallSites sites;
  LoopCompressor compressor;
  CallRecord call;  // the call being recorded, reused (guarded as the rest of the recorder)
  std::int64_t prevSite = -1;
  double lastEnd = 0;     // wall clock when the rank's previous recorded call returned
  double lastCpuEnd = 0;  // TRACEGEN_CLOCK=cpu: the thread's CPU time then
  // Failed polls not yet recorded, by test operation and call site (CallScope::completions).
  std::map<std::pair<Op, std::uint32_t>, std::int64_t> failedPolls;
  // The count of the latest failed poll's test and site (a node of failedPolls, which std::map
  // keeps in place until it is erased): a polling loop counts without a lookup.
  std::pair<Op, std::uint32_t> lastPollKey{Op::Init, 0};
  std::int64_t* lastPollCount = nullptr;
  // The buffers the rank's latest blocking receives wrote (receives, MPI_Sendrecv, blocking
  // collectives), distinct, the oldest replaced first (CallScope::buffers). Four: an FFT's
  // transpose is followed by a reduction or two before the next one sends what it received.
  std::array<const void*, 4> recentReceives{};
  std::size_t nextReceive = 0;
  // By call site: the blocking calls that sent from a buffer, and those of them whose buffer a
  // recent receive wrote. Counted while the program runs and applied to the site's events at
  // MPI_Finalize (markFromReceived), not recorded per call: a value that changes between
  // iterations (the first transpose sends from the array it filled, the others from the one
  // received into) would split loops, and split them differently at different scales.
  struct SendBuffers {
    std::int64_t sends = 0, fromReceived = 0;
  };
  std::unordered_map<std::uint32_t, SendBuffers> sendBuffers;
  std::uint32_t lastSendSite = 0;
  SendBuffers* lastSendBuffers = nullptr;  // sendBuffers[lastSendSite] (its nodes stay put)
  void markFromReceived(Trace& own) const;
  bool recording = false;
  bool failed = false;    // recording stopped early: no trace (all ranks learn it at Finalize)
  bool finished = false;
  int rank = 0;
  int size = 1;

  std::int64_t datatypeId(MPI_Datatype t);
  std::int64_t opId(MPI_Op op);
  bool knownType(MPI_Datatype t) const {
    if (t == MPI_DATATYPE_NULL) return false;
    if (predefined_.count(t)) return true;
    auto it = derived_.lower_bound({t, std::numeric_limits<int>::min()});
    return it != derived_.end() && it->first.first == t;
  }
  std::int64_t commId(MPI_Comm c);
  std::int64_t registerComm(MPI_Comm c, const char* kind, MPI_Comm membersOf = MPI_COMM_NULL);
  std::int64_t forgetComm(MPI_Comm c) {
    auto it = comms_.find(c);
    if (it == comms_.end()) return -1;
    const std::int64_t id = it->second;
    comms_.erase(it);
    return id;
  }
  // Every group-making call takes the next id, whatever handle it returns: the benchmark
  // numbers its groups by call too, and MPI_GROUP_EMPTY may come back from several calls.
  void registerGroup(MPI_Group g) {
    const std::int64_t id = nextGroup_++;
    if (g != MPI_GROUP_NULL) groups_[g] = id;
  }
  std::int64_t groupId(MPI_Group g) {
    if (g == MPI_GROUP_NULL) return kGroupNull;
    if (auto it = groups_.find(g); it != groups_.end()) return it->second;
    flags |= kFlagUnknownGroup;
    return kGroupNull;
  }
  std::int64_t forgetGroup(MPI_Group g) {
    const std::int64_t id = groupId(g);
    groups_.erase(g);
    return id;
  }
  RequestPick pickRequest(MPI_Request r, const void* where, const std::vector<RequestPick>& taken);
  void requestCreated(MPI_Request r, const void* where);
  void requestCompleted(const RequestPick& p);
  // Persistent requests: each keyed by its handle (unique while the request exists), with the
  // creation number of its init call or latest start, which the next start or free names.
  struct Persistent {
    std::int64_t index = -1;
    bool recv = false;
    int source = 0;
    MPI_Comm comm = MPI_COMM_NULL;
  };
  std::unordered_map<MPI_Request, Persistent> persistent_;
  // Handles of requests made by intercepted calls that the trace does not track (MPI_Comm_idup):
  // a wait on one completes MPI_REQUEST_NULL without the unknown-request warning. A tracked
  // creation that reuses the handle takes it out.
  std::unordered_set<MPI_Request> untracked_;
  std::int64_t offsetOf(std::int64_t index) {
    const std::int64_t k = createdRequests_ - index;
    if (index < 0) return kRequestNull;
    if (k < 1 || k >= kRequestRing) {
      flags |= kFlagRequestOverflow;
      return kRequestNull;
    }
    return kRequestRing - k;
  }
  // Forgets the still-live creation `index` of r: a start or free supersedes it (an inactive
  // persistent request no wait completed).
  void forgetCreation(MPI_Request r, std::int64_t index) {
    RequestPick p;
    p.handle = r;
    p.index = index;
    requestCompleted(p);
  }
  void persistentMade(MPI_Request r, bool recv, int source, MPI_Comm c) {
    if (r == MPI_REQUEST_NULL) return;
    persistent_[r] = Persistent{createdRequests_ - 1, recv, source, c};
  }
  std::int64_t persistentOffset(MPI_Request r) {
    auto it = persistent_.find(r);
    if (it == persistent_.end()) {
      flags |= kFlagUnknownRequest;
      return kRequestNull;
    }
    return offsetOf(it->second.index);
  }
  void persistentStarted(MPI_Request r, const void* where) {
    auto it = persistent_.find(r);
    if (it != persistent_.end()) {
      forgetCreation(r, it->second.index);
      if (it->second.recv && it->second.source == MPI_ANY_SOURCE) wildcardPosted(it->second.comm);
      it->second.index = createdRequests_;
    }
    requestCreated(r, where);
  }
  std::int64_t freeRequest(MPI_Request r, const void* where) {
    if (r == MPI_REQUEST_NULL) return kRequestNull;
    if (auto it = persistent_.find(r); it != persistent_.end()) {
      const std::int64_t offset = offsetOf(it->second.index);
      forgetCreation(r, it->second.index);
      persistent_.erase(it);
      return offset;
    }
    // Another request (MPI_Isend, ...): freed, no wait will complete it.
    RequestPick p = pickRequest(r, where, {});
    requestCompleted(p);
    return p.offset;
  }
  void wildcardPosted(MPI_Comm c) {
    if (wildcards_.size() >= 4096)  // receives never completed through a wrapper (cancelled)
      std::erase_if(wildcards_, [&](const auto& e) { return createdRequests_ - e.first >= kRequestRing; });
    wildcards_[createdRequests_] = c;
  }
  std::int64_t wildcardMatched(const RequestPick& p, const MPI_Status& status) {
    if (p.index < 0) return -1;
    // A cancelled operation (MPI_Cancel, which is not intercepted, then a wait or test) matched
    // nothing: the simulation must not wait for a sender, so it is recorded as such.
    int cancelled = 0;
    PMPI_Test_cancelled(&status, &cancelled);
    if (cancelled) {
      wildcards_.erase(p.index);
      return -2;  // `matched` of a cancelled request (docs/trace-format.md)
    }
    if (wildcards_.empty()) return -1;  // no wildcard receive pending: no hash lookup
    auto it = wildcards_.find(p.index);
    if (it == wildcards_.end()) return -1;
    const MPI_Comm c = it->second;
    wildcards_.erase(it);
    return matchedOffset(c, status.MPI_SOURCE);
  }
  std::int64_t matchedOffset(MPI_Comm c, int source) {
    if (source < 0) return -1;  // MPI_ANY_SOURCE in the status of a cancelled or null request
    int world = source;
    if (c != MPI_COMM_WORLD) {
      int inter = 0;
      PMPI_Comm_test_inter(c, &inter);
      if (inter) return -1;  // the remote group's numbering: not described by the trace model
      MPI_Group g = MPI_GROUP_NULL;
      PMPI_Comm_group(c, &g);
      PMPI_Group_translate_ranks(g, 1, &source, worldGroup_, &world);
      PMPI_Group_free(&g);
      if (world == MPI_UNDEFINED || world < 0) return -1;
    }
    return ((world - rank) % size + size) % size;
  }

 private:
  void sendBytes(int dest, int tag, const Bytes& b);
  Bytes recvBytes(int src, int tag);
  void bcastBytes(Bytes& b);
  std::string outputPath() const;

  MPI_Comm comm_ = MPI_COMM_NULL;  // private duplicate of MPI_COMM_WORLD
  MPI_Group worldGroup_ = MPI_GROUP_NULL;
  ClusterMode mode_ = ClusterMode::Exact;
  bool quiet_ = false;

  std::unordered_map<MPI_Datatype, std::pair<std::int64_t, std::string>> predefined_;
  MPI_Datatype lastPredefined_ = MPI_DATATYPE_NULL;  // the predefined type datatypeId saw last
  std::int64_t lastPredefinedId_ = 0;
  std::map<std::pair<MPI_Datatype, int>, std::int64_t> derived_;
  std::map<std::int64_t, Datatype> usedTypes_;
  std::unordered_map<MPI_Op, std::int64_t> ops_;
  std::int64_t nextUserOp_ = 1000;
  std::unordered_map<MPI_Comm, std::int64_t> comms_;
  std::int64_t nextComm_ = 1000;
  static constexpr std::int64_t kGroupNull = 0;  // MPI_GROUP_NULL, as ScalaTrace numbers it
  std::unordered_map<MPI_Group, std::int64_t> groups_;
  std::int64_t nextGroup_ = 1000;
  std::vector<CommEntry> commEntries_;
  struct LiveRequest {
    std::int64_t index;  // creation number
    const void* where;   // the variable the handle was returned in
  };
  std::unordered_map<MPI_Request, std::vector<LiveRequest>> live_;
  // live_'s entries of recently used handles (direct-mapped): MPI libraries recycle a few
  // request handles, so a request's creation and its completion mostly find their entry without
  // a hash lookup. The map's elements never move (rehashing keeps them); erasing one empties
  // its cache slot.
  struct LiveSlot {
    MPI_Request handle = MPI_REQUEST_NULL;
    std::vector<LiveRequest>* list = nullptr;
  };
  static constexpr std::size_t kLiveSlots = 64;
  LiveSlot liveCache_[kLiveSlots];
  static std::size_t liveSlot(MPI_Request r) {
    const auto h = static_cast<std::uint64_t>(std::hash<MPI_Request>{}(r));
    return static_cast<std::size_t>((h >> 3) ^ (h >> 9)) % kLiveSlots;
  }
  // r's list of live requests; null if r has none and !create.
  std::vector<LiveRequest>* liveList(MPI_Request r, bool create) {
    LiveSlot& c = liveCache_[liveSlot(r)];
    if (c.list && c.handle == r) return c.list;
    std::vector<LiveRequest>* list = nullptr;
    if (create) {
      list = &live_[r];
    } else {
      auto it = live_.find(r);
      if (it == live_.end()) return nullptr;
      list = &it->second;
    }
    c = {r, list};
    return list;
  }
  std::unordered_map<std::int64_t, MPI_Comm> wildcards_;  // pending MPI_ANY_SOURCE Irecvs by creation number
  std::int64_t createdRequests_ = 0;

 public:
  std::int64_t flags = 0;
};

namespace {
Recorder* g_recorder = nullptr;
}  // namespace

// ---------------------------------------------------------------------------------------------
// Handle tables

Recorder::Recorder(Op initOp)
    : sites(static_cast<int>(envLong("TRACEGEN_STACK_DEPTH", 24))),
      compressor(static_cast<std::size_t>(std::max(1L, envLong("TRACEGEN_WINDOW", 256)))) {
  calibrateTicks();
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Comm_group(MPI_COMM_WORLD, &worldGroup_);
  const char* mode = std::getenv("TRACEGEN_CLUSTER");
  if (mode && std::strcmp(mode, "none") == 0) mode_ = ClusterMode::None;
  quiet_ = envFlag("TRACEGEN_QUIET");
  int level = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&level);
  multi = level == MPI_THREAD_MULTIPLE;
  if (const char* clock = std::getenv("TRACEGEN_CLOCK"); clock && *clock) {
    if (std::strcmp(clock, "cpu") == 0)
      cpuClock = true;
    else if (std::strcmp(clock, "wall") != 0 && rank == 0)
      // Chosen: the run goes on (a long job is not lost to a typo) with the default clock, which
      // the trace states (no `clock cpu` line).
      std::fprintf(stderr,
                   "tracegen-record: error: TRACEGEN_CLOCK=%s is neither `wall` nor `cpu`; recording compute times "
                   "as wall-clock time\n",
                   clock);
  }

  // Predefined datatypes: ScalaTrace's ids for the first nineteen, then a fixed order, so every
  // rank (and every run) gives a type the same id.
#define TG_TYPE(t) {t, #t}
  const std::pair<MPI_Datatype, const char*> known[] = {
      TG_TYPE(MPI_CHAR), TG_TYPE(MPI_SHORT), TG_TYPE(MPI_INT), TG_TYPE(MPI_LONG), TG_TYPE(MPI_UNSIGNED_CHAR),
      TG_TYPE(MPI_UNSIGNED_SHORT), TG_TYPE(MPI_UNSIGNED), TG_TYPE(MPI_UNSIGNED_LONG), TG_TYPE(MPI_FLOAT),
      TG_TYPE(MPI_DOUBLE), TG_TYPE(MPI_LONG_DOUBLE), TG_TYPE(MPI_BYTE), TG_TYPE(MPI_PACKED), TG_TYPE(MPI_INTEGER),
      TG_TYPE(MPI_REAL), TG_TYPE(MPI_DOUBLE_PRECISION), TG_TYPE(MPI_COMPLEX), TG_TYPE(MPI_DOUBLE_COMPLEX),
      TG_TYPE(MPI_LOGICAL), TG_TYPE(MPI_CHARACTER), TG_TYPE(MPI_FLOAT_INT), TG_TYPE(MPI_DOUBLE_INT),
      TG_TYPE(MPI_LONG_INT), TG_TYPE(MPI_2INT), TG_TYPE(MPI_SHORT_INT), TG_TYPE(MPI_LONG_DOUBLE_INT),
      TG_TYPE(MPI_2REAL), TG_TYPE(MPI_2DOUBLE_PRECISION), TG_TYPE(MPI_2INTEGER), TG_TYPE(MPI_LONG_LONG_INT),
      TG_TYPE(MPI_UNSIGNED_LONG_LONG), TG_TYPE(MPI_SIGNED_CHAR), TG_TYPE(MPI_WCHAR), TG_TYPE(MPI_C_BOOL),
      TG_TYPE(MPI_INT8_T), TG_TYPE(MPI_INT16_T), TG_TYPE(MPI_INT32_T), TG_TYPE(MPI_INT64_T), TG_TYPE(MPI_UINT8_T),
      TG_TYPE(MPI_UINT16_T), TG_TYPE(MPI_UINT32_T), TG_TYPE(MPI_UINT64_T), TG_TYPE(MPI_AINT), TG_TYPE(MPI_OFFSET),
      TG_TYPE(MPI_COUNT), TG_TYPE(MPI_C_FLOAT_COMPLEX), TG_TYPE(MPI_C_DOUBLE_COMPLEX),
      TG_TYPE(MPI_C_LONG_DOUBLE_COMPLEX), TG_TYPE(MPI_INTEGER1), TG_TYPE(MPI_INTEGER2), TG_TYPE(MPI_INTEGER4),
      TG_TYPE(MPI_INTEGER8), TG_TYPE(MPI_REAL4), TG_TYPE(MPI_REAL8), TG_TYPE(MPI_2COMPLEX),
      TG_TYPE(MPI_2DOUBLE_COMPLEX),
  };
#undef TG_TYPE
  std::int64_t extra = 20;
  for (const auto& [handle, name] : known) {
    std::int64_t id = 0;
    for (const Datatype& d : scalaTraceDatatypes())
      if (d.name == name) id = d.id;
    if (id == 0) id = extra++;
    if (handle != MPI_DATATYPE_NULL) predefined_.emplace(handle, std::make_pair(id, std::string(name)));
  }
  const std::pair<MPI_Op, std::int64_t> knownOps[] = {
      {MPI_OP_NULL, 0}, {MPI_MAX, 1},  {MPI_MIN, 2},   {MPI_SUM, 3},   {MPI_PROD, 4},  {MPI_MAXLOC, 5}, {MPI_MINLOC, 6},
      {MPI_BAND, 7},    {MPI_BOR, 8},  {MPI_BXOR, 9},  {MPI_LAND, 10}, {MPI_LOR, 11}, {MPI_LXOR, 12},  {MPI_REPLACE, 13}};
  for (const auto& [op, id] : knownOps) ops_.emplace(op, id);

  // The Init event: no timings (there is no predecessor), its site keys the next call.
  const std::uint32_t site = sites.capture();
  call.clear();
  call.op = initOp;
  call.site = site;
  compressor.append(call);
  prevSite = site;
  recording = true;
  lastEnd = tickUs();
  if (cpuClock) lastCpuEnd = cpuUs();
}

std::int64_t Recorder::datatypeId(MPI_Datatype t) {
  if (t == MPI_DATATYPE_NULL) return 0;
  // A predefined type already in the table (its size never changes): no query, no lookup.
  if (t == lastPredefined_) return lastPredefinedId_;
  int bytes = 0;
  PMPI_Type_size(t, &bytes);
  if (auto it = predefined_.find(t); it != predefined_.end()) {
    if (!usedTypes_.count(it->second.first))
      usedTypes_.emplace(it->second.first, Datatype{it->second.first, it->second.second, bytes});
    lastPredefined_ = t;
    lastPredefinedId_ = it->second.first;
    return it->second.first;
  }
  // Derived (or a predefined type we have no name for): identified by handle and size, so a
  // freed handle reused for a type of another size gets a new id.
  auto [it, inserted] = derived_.try_emplace({t, bytes}, 0);
  if (inserted) {
    it->second = 1000 + static_cast<std::int64_t>(derived_.size()) - 1;
    usedTypes_[it->second] = Datatype{it->second, "type" + std::to_string(it->second), bytes};
  }
  return it->second;
}

std::int64_t Recorder::opId(MPI_Op op) {
  auto [it, inserted] = ops_.try_emplace(op, 0);
  if (inserted) it->second = nextUserOp_++;
  return it->second;
}

std::int64_t Recorder::commId(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return kCommWorld;
  if (c == MPI_COMM_SELF) return kCommSelf;
  if (c == MPI_COMM_NULL) return kCommNull;
  if (auto it = comms_.find(c); it != comms_.end()) return it->second;
  // Made by a call the recorder does not intercept (MPI_Cart_create, MPI_Comm_split_type, ...):
  // described from its first use on.
  return registerComm(c, "create");
}

std::int64_t Recorder::registerComm(MPI_Comm c, const char* kind, MPI_Comm membersOf) {
  if (c == MPI_COMM_NULL) return kCommNull;
  const std::int64_t id = nextComm_++;
  comms_[c] = id;
  if (membersOf != MPI_COMM_NULL) c = membersOf;  // MPI_Comm_idup: not usable until complete
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter) return id;  // intercommunicators: no instance (their groups are not one rank set)
  int n = 0;
  PMPI_Comm_size(c, &n);
  MPI_Group g;
  PMPI_Comm_group(c, &g);
  std::vector<int> local(static_cast<std::size_t>(n)), world(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) local[static_cast<std::size_t>(i)] = i;
  PMPI_Group_translate_ranks(g, n, local.data(), worldGroup_, world.data());
  PMPI_Group_free(&g);
  // Members in the order the communicator numbers them; kept only where it is not ascending.
  std::vector<Rank> members(world.begin(), world.end());
  std::vector<Rank> order;
  if (!std::is_sorted(members.begin(), members.end())) order = members;
  std::sort(members.begin(), members.end());
  commEntries_.push_back({id, kind, RankList::fromSorted(members), std::move(order)});
  return id;
}

RequestPick Recorder::pickRequest(MPI_Request r, const void* where, const std::vector<RequestPick>& taken) {
  RequestPick p;
  p.handle = r;
  if (r == MPI_REQUEST_NULL) return p;
  const std::vector<LiveRequest>* list = liveList(r, false);
  auto isTaken = [&](std::int64_t index) {
    return std::any_of(taken.begin(), taken.end(), [&](const RequestPick& t) { return t.handle == r && t.index == index; });
  };
  const LiveRequest* chosen = nullptr;
  if (list) {
    // The newest request returned in this variable, else the oldest one with this handle.
    for (auto e = list->rbegin(); e != list->rend() && !chosen; ++e)
      if (e->where == where && !isTaken(e->index)) chosen = &*e;
    for (auto e = list->begin(); e != list->end() && !chosen; ++e)
      if (!isTaken(e->index)) chosen = &*e;
  }
  if (!chosen) {
    // An inactive persistent request (made, or started and completed): a wait on it returns at
    // once, as on MPI_REQUEST_NULL.
    if (!persistent_.count(r) && !untracked_.count(r)) flags |= kFlagUnknownRequest;
    return p;
  }
  p.index = chosen->index;
  const std::int64_t k = createdRequests_ - p.index;  // k-th most recent request-creating call
  if (k < 1 || k >= kRequestRing)
    flags |= kFlagRequestOverflow;
  else
    p.offset = kRequestRing - k;
  return p;
}

void Recorder::requestCreated(MPI_Request r, const void* where) {
  if (r != MPI_REQUEST_NULL) {
    if (!untracked_.empty()) untracked_.erase(r);
    std::vector<LiveRequest>& v = *liveList(r, true);
    if (v.size() >= 64)  // requests never completed through a wrapper: forget the unreachable ones
      std::erase_if(v, [&](const LiveRequest& e) { return createdRequests_ - e.index >= kRequestRing; });
    v.push_back({createdRequests_, where});
  }
  ++createdRequests_;  // every request-creating call counts, as the trace's cursor counts them
}

void Recorder::requestCompleted(const RequestPick& p) {
  if (p.index < 0) return;
  std::vector<LiveRequest>* list = liveList(p.handle, false);
  if (!list) return;
  std::erase_if(*list, [&](const LiveRequest& e) { return e.index == p.index; });
  // MPI libraries recycle request handles: an emptied entry is kept for the handle's next
  // request (no allocation per request), unless the table has grown large.
  if (list->empty() && live_.size() > 4096) {
    live_.erase(p.handle);
    liveCache_[liveSlot(p.handle)] = {};
  }
}

// ---------------------------------------------------------------------------------------------
// Finalize: clustering and merge over the private communicator

void Recorder::sendBytes(int dest, int tag, const Bytes& b) {
  std::uint64_t n = b.size();
  PMPI_Send(&n, 1, MPI_UINT64_T, dest, tag, comm_);
  for (std::size_t off = 0; off < b.size(); off += kChunk)
    PMPI_Send(b.data() + off, static_cast<int>(std::min(kChunk, b.size() - off)), MPI_BYTE, dest, tag, comm_);
}

Bytes Recorder::recvBytes(int src, int tag) {
  std::uint64_t n = 0;
  PMPI_Recv(&n, 1, MPI_UINT64_T, src, tag, comm_, MPI_STATUS_IGNORE);
  Bytes b(static_cast<std::size_t>(n));
  for (std::size_t off = 0; off < b.size(); off += kChunk)
    PMPI_Recv(b.data() + off, static_cast<int>(std::min(kChunk, b.size() - off)), MPI_BYTE, src, tag, comm_,
              MPI_STATUS_IGNORE);
  return b;
}

void Recorder::bcastBytes(Bytes& b) {
  std::uint64_t n = b.size();
  PMPI_Bcast(&n, 1, MPI_UINT64_T, 0, comm_);
  b.resize(static_cast<std::size_t>(n));
  for (std::size_t off = 0; off < b.size(); off += kChunk)
    PMPI_Bcast(b.data() + off, static_cast<int>(std::min(kChunk, b.size() - off)), MPI_BYTE, 0, comm_);
}

// TRACEGEN_COMPRESS=0: the trace is written as plain text (and named <exe>.trace by default).
static bool plainOutput() {
  const char* compress = std::getenv("TRACEGEN_COMPRESS");
  return compress && std::string_view(compress) == "0";
}

// The zstd level of the trace rank 0 writes: TRACEGEN_ZSTD_LEVEL (1 to 19) if set, else the
// highest level expected to compress the text within 0.25% of the run so far (from the
// library's load), and within 5 ms however short the run (compressionLevelWithin,
// io/Compression.h). Level 19 costs about half a microsecond per byte of text, which a long run
// does not notice and a run of seconds does: 0.1 s for LAMMPS's 435 KB, a quarter of a 0.4 s
// run, for a file 9% smaller than level 15's (0.01 s). `tracegen convert` recompresses a trace
// at level 19 when its size matters more than the time taken.
constexpr double kCompressShareOfRun = 0.0025;
constexpr double kCompressFloorSeconds = 0.005;
static int outputLevel(std::size_t textBytes, double runSeconds, int rank) {
  if (const char* v = std::getenv("TRACEGEN_ZSTD_LEVEL"); v && *v) {
    const long level = envLong("TRACEGEN_ZSTD_LEVEL", 0);
    if (level >= 1 && level <= 19) return static_cast<int>(level);
    if (rank == 0)
      std::fprintf(stderr, "tracegen-record: error: TRACEGEN_ZSTD_LEVEL=%s is not a zstd level from 1 to 19; choosing one "
                           "by the run's time\n", v);
  }
  return compressionLevelWithin(textBytes, std::max(kCompressFloorSeconds, kCompressShareOfRun * runSeconds));
}

std::string Recorder::outputPath() const {
  if (const char* p = std::getenv("TRACEGEN_OUTPUT"); p && *p) return p;
  char exe[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  std::string name = "app";
  if (n > 0) {
    exe[n] = '\0';
    const char* slash = std::strrchr(exe, '/');
    name = slash ? slash + 1 : exe;
  }
  return name + (plainOutput() ? ".trace" : ".trace.zst");
}

// Param::FromReceived on the events of the sites where most blocking sends were made from a
// buffer a recent receive wrote (CallScope::buffers).
void Recorder::markFromReceived(Trace& own) const {
  std::unordered_set<std::string> marked;
  const std::vector<std::string>& names = sites.names();
  for (const auto& [site, n] : sendBuffers)
    if (2 * n.fromReceived > n.sends && site < names.size()) marked.insert(names[site]);
  if (marked.empty()) return;
  for (Event& e : own.events)
    if (e.site != kNoSite && marked.count(own.sites.at(static_cast<std::size_t>(e.site))))
      e.setParam(Param::FromReceived, {ValueGroup{e.ranks, {1}}});
}

// One read of /proc/self/statm (some microseconds) at most every 2 ms of the run: the resident
// size less the recorder's own memory, the application's as it stands between its calls.
void Recorder::sampleMemoryEvery(double now) {
  constexpr double kMemorySampleUs = 2000;
  if (now - memorySampledUs < kMemorySampleUs) return;
  memorySampledUs = now;
  sampleMemory();
}

void Recorder::sampleMemory() {
  const std::int64_t rss = residentKb();
  if (rss >= 0) appPeakKb = std::max(appPeakKb, rss - ownResidentBytes() / 1024);
}

void Recorder::finish() {
  const double start = nowUs();
  // 0. The process footprint (docs/recording.md), measured before the recorder's own
  // communicator exists: Open MPI gives a communicator some 0.2 MB of its own (collective
  // modules' state, a shared segment), which is no memory of the application's.
  Trace footprint;
  footprint.beforeInitUs = beforeInitUs;
  struct rusage usage {};
  sampleMemory();
  if (getrusage(RUSAGE_SELF, &usage) == 0 && usage.ru_maxrss > 0 && g_loadRssKb >= 0) {
    // What the application holds beyond what any program of C and MPI holds at its start: its
    // peak, less the load (the recorder's libraries among it), plus its own code at load. The
    // peak is the process's less the recorder's own memory (record/OwnMemory.h), two lower
    // bounds of it taken together: the process's peak less the most the recorder ever held, and
    // the largest sample of the resident size less what the recorder held then.
    const std::int64_t peak =
        std::max(static_cast<std::int64_t>(usage.ru_maxrss) - ownResidentPeakBytes() / 1024, appPeakKb);
    // The recorder's code paged in since load is its own too.
    const std::int64_t codeGrowth = std::max<std::int64_t>(0, recorderCodeKb() - g_recorderCodeLoadKb);
    const std::int64_t gained =
        std::max<std::int64_t>(0, peak - codeGrowth - setUpKb - g_loadRssKb + g_applicationCodeKb);
    footprint.memoryKb = {ValueGroup{RankList::single(rank), {gained}}};
    if (envFlag("TRACEGEN_FOOTPRINT_DEBUG"))
      std::fprintf(stderr,
                   "tracegen-record: rank %d footprint KiB: gained %lld = peak %lld (process %ld less own peak %lld, "
                   "or sampled %lld) - own code growth %lld - own set-up %lld - load %lld + application code %lld\n",
                   rank, static_cast<long long>(gained), static_cast<long long>(peak), usage.ru_maxrss,
                   static_cast<long long>(ownResidentPeakBytes() / 1024), static_cast<long long>(appPeakKb),
                   static_cast<long long>(codeGrowth), static_cast<long long>(setUpKb), static_cast<long long>(g_loadRssKb),
                   static_cast<long long>(g_applicationCodeKb));
  }
  // The recorder's messages from here on go over a communicator of its own, apart from any the
  // application may still have in flight.
  PMPI_Comm_dup(MPI_COMM_WORLD, &comm_);
  // Every rank takes part in the reduction below, so all must know whether one cannot.
  int bad = failed ? 1 : 0;
  PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm_);
  if (bad) {
    if (rank == 0) std::fprintf(stderr, "tracegen-record: no trace written: recording failed on some rank\n");
    return;
  }
  // The recorder's own time per call, summed over the ranks (rank 0 reports it): a collective
  // every rank reaches here, before the paths below part.
  const double ownLocal[2] = {ownUs, static_cast<double>(ownCalls)};
  double ownAll[2] = {0, 0}, ownMaxUs = 0;
  PMPI_Reduce(ownLocal, ownAll, 2, MPI_DOUBLE, MPI_SUM, 0, comm_);
  PMPI_Reduce(&ownUs, &ownMaxUs, 1, MPI_DOUBLE, MPI_MAX, 0, comm_);
  // The footprint up a binomial tree to rank 0: each rank's peak resident memory, grouped where
  // the peaks agree, and the longest time before MPI_Init.
  for (std::int64_t c : treeChildren(rank, size))
    mergeFootprint(footprint, decodeTrace(recvBytes(static_cast<int>(c), kTagFootprint)));
  if (rank != 0) sendBytes(static_cast<int>(treeParent(rank)), kTagFootprint, encodeTrace(footprint));

  Trace own = compressor.toTrace(rank, size, sites.names());
  markFromReceived(own);
  for (const auto& [id, d] : usedTypes_) own.datatypes.push_back(d);
  const std::size_t ownEvents = own.events.size();
  const Signature sig = computeSignature(own);

  // 1. Cluster table up the binomial tree, then to everyone.
  ClusterTable table = ClusterTable::forRank(rank, sig, commEntries_, flags, mode_);
  for (std::int64_t c : treeChildren(rank, size)) table.add(decodeTable(recvBytes(static_cast<int>(c), kTagTable)));
  if (rank != 0) sendBytes(static_cast<int>(treeParent(rank)), kTagTable, encodeTable(table));
  Bytes tb;
  if (rank == 0) tb = encodeTable(table);
  bcastBytes(tb);
  table = decodeTable(tb);
  const ClusterEntry* cl = table.clusterOf(rank);
  if (!cl) throw std::runtime_error("rank missing from the cluster table");

  // 2. Timings of the sub-cluster's members up a tree over its ranklist.
  const Rank idx = *cl->ranks.indexOf(rank);
  const Rank members = cl->ranks.size();
  if (idx == 0) {
    for (std::int64_t c : treeChildren(0, members))
      addStats(own, decodeTrace(recvBytes(static_cast<int>(cl->ranks.at(c)), kTagStats)));
  } else {
    Trace st = statsOnly(own);
    for (std::int64_t c : treeChildren(idx, members))
      addStats(st, decodeTrace(recvBytes(static_cast<int>(cl->ranks.at(c)), kTagStats)));
    sendBytes(static_cast<int>(cl->ranks.at(treeParent(idx))), kTagStats, encodeTrace(st));
    return;  // only representatives take part in the merge
  }

  // 3. Representatives: the trace speaks for the sub-cluster; partials up a tree over them.
  assignRanks(own, cl->ranks);
  const std::vector<Rank> reps = table.representatives();
  const auto k = static_cast<std::int64_t>(std::lower_bound(reps.begin(), reps.end(), rank) - reps.begin());
  const auto nr = static_cast<std::int64_t>(reps.size());
  std::vector<Partial> parts;
  parts.push_back({cl->sig.shape, std::move(own)});
  for (std::int64_t c : treeChildren(k, nr))
    addPartials(parts, decodePartials(recvBytes(static_cast<int>(reps[static_cast<std::size_t>(c)]), kTagPartials)));
  if (k != 0) {
    sendBytes(static_cast<int>(reps[static_cast<std::size_t>(treeParent(k))]), kTagPartials, encodePartials(parts));
    return;
  }

  // 4. Rank 0: align the shapes, write.
  Trace global = buildGlobal(std::move(parts), table, size);
  global.computeClock = cpuClock ? ComputeClock::Cpu : ComputeClock::Wall;
  global.beforeInitUs = footprint.beforeInitUs >= 0 ? std::round(footprint.beforeInitUs) : -1;
  global.memoryKb = std::move(footprint.memoryKb);
  canonicalFootprint(global);
  // Function names (and file:line) of the sites' frames, unless TRACEGEN_NAMES=0.
  if (envLong("TRACEGEN_NAMES", 1) != 0) sites.nameFrames(global);
  const std::string path = outputPath();
  try {
    verifyStructure(global, path);
  } catch (const InputError& e) {
    std::fprintf(stderr, "tracegen-record: warning: the merged trace fails verification: %s\n", e.what());
  }
  for (const std::string& c : communicatorConflicts(global))
    std::fprintf(stderr, "tracegen-record: warning: %s (ranks created communicators in different orders)\n", c.c_str());
  // zstd-compressed text unless TRACEGEN_COMPRESS=0 (docs/recording.md); readers detect it.
  const std::string text = tracegenText(global);
  const int level = plainOutput() ? 0 : outputLevel(text.size(), (nowUs() - g_loadUs) / 1e6, rank);
  const std::string bytes = plainOutput() ? text : compressTrace(text, level);
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::fprintf(stderr, "tracegen-record: error: cannot write %s\n", path.c_str());
    return;
  }
  if (path.size() < sizeof g_trailerPath) {
    std::memcpy(g_trailerPath, path.c_str(), path.size() + 1);
    g_trailerCompressed = !plainOutput();
  }
  if (table.flags & kFlagRequestOverflow)
    std::fprintf(stderr, "tracegen-record: warning: some waits complete requests more than 9999 request-creating calls "
                         "old; they are recorded as MPI_REQUEST_NULL\n");
  if (table.flags & kFlagUnknownGroup)
    std::fprintf(stderr, "tracegen-record: warning: some calls use groups that no intercepted call made (MPI_GROUP_EMPTY, "
                         "MPI_Comm_remote_group, ...); they are recorded as MPI_GROUP_NULL\n");
  if (table.flags & kFlagUnknownRequest)
    std::fprintf(stderr, "tracegen-record: warning: some waits complete requests made by calls the recorder does not "
                         "intercept; they are recorded as MPI_REQUEST_NULL\n");
  if (!quiet_) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    std::fprintf(stderr,
                 "tracegen-record: wrote %s: %lld bytes%s, %zu events (rank 0: %zu); %d ranks in %zu clusters of %zu "
                 "call paths; merge %.3f s\n",
                 path.c_str(), static_cast<long long>(in.tellg()),
                 level > 0 ? fmt::format(" (zstd level {})", level).c_str() : "", global.events.size(), ownEvents, size,
                 table.clusters.size(), table.mainClusters(), (nowUs() - start) / 1e6);
    if (ownAll[1] > 0)
      std::fprintf(stderr,
                   "tracegen-record: own time per recorded call: %.0f ns (%.0f calls over all ranks; %.3f s on "
                   "the busiest rank, failed polls not counted)\n",
                   ownAll[0] * 1e3 / ownAll[1], ownAll[1], ownMaxUs / 1e6);
  }
}

// ---------------------------------------------------------------------------------------------
// CallScope

namespace {
// The tests, and MPI_Improbe: calls whose failed polls are folded (CallScope::completions).
bool isTest(Op op) {
  return op == Op::Test || op == Op::Testany || op == Op::Testall || op == Op::Testsome || op == Op::Improbe;
}
}  // namespace

CallScope::CallScope(Op op) : op_(op), test_(isTest(op)) {
  nested_ = t_depth++ > 0;
  if (nested_ || !g_recorder) return;
  rec_ = g_recorder;
  std::unique_lock<std::mutex> lock(rec_->mutex, std::defer_lock);
  if (rec_->multi) lock.lock();
  if (!rec_->recording) return;
  entry_ = tickUs();
  if (rec_->cpuClock) compute_ = cpuUs();
  OwnMemoryScope::enter();  // the recorder's work from here on is its own, but the PMPI call
  own_ = true;
  try {
    site_ = rec_->sites.capture();
  } catch (const std::exception& e) {
    rec_->stop(e);
    return;
  }
  active_ = true;
}

CallScope::~CallScope() {
  if (own_) OwnMemoryScope::leave();
  --t_depth;
}

// Four clock readings per call: the compute time runs from the end of the recorder's work on
// the rank's previous recorded call (its commit) to the entry of this call's wrapper, before
// its call-site capture, so that the recorder's own work (some 150 ns a call) does not pass
// for the application's computation (a benchmark replays it: calls every few microseconds made
// it 10-30% slower than the application); the MPI time is the PMPI call's. The tests take two
// readings on a failed poll and three on a success: their MPI time runs from the wrapper's entry
// to commit() (the request lookups and completions around the PMPI call, some tens of
// nanoseconds, count as the call's), since most tests are failed polls, whose MPI time is not
// recorded (hpcc makes 34 million a rank; a clock reading is about 9 ns). Either way the
// recorder's work stays out of the compute time.
void CallScope::begin() {
  OwnMemoryScope::pause();  // what MPI allocates for the call is the application's
  t0_ = test_ ? entry_ : tickUs();
}

void CallScope::end() {
  if (!test_) t1_ = tickUs();  // a test's: in commit()
  OwnMemoryScope::resume();
  if (rec_->multi) lock_ = std::unique_lock<std::mutex>(rec_->mutex);
  rec_->call.clear();
}

void CallScope::commit() {
  CallRecord& c = rec_->call;
  if (test_) t1_ = tickUs();
  if (test_ && completions_ >= 0) {
    auto key = std::make_pair(op_, site_);
    if (completions_ == 0) {
      // A failed poll: counted, not recorded. The computation around it stays in the compute
      // time of the rank's next recorded call, since lastEnd does not move; the poll itself (its
      // wrapper, the PMPI call included) is taken out of it, since a benchmark makes its polls
      // again (hpcc: 4 million polls made its benchmark 50% slower than the application).
      rec_->pollUs += t1_ - entry_;
      if (rec_->cpuClock) rec_->pollCpuUs += cpuUs() - compute_;
      if (rec_->lastPollCount && rec_->lastPollKey == key) {
        ++*rec_->lastPollCount;
      } else {
        std::int64_t& n = rec_->failedPolls[key];
        ++n;
        rec_->lastPollKey = key;
        rec_->lastPollCount = &n;
      }
      if (lock_.owns_lock()) lock_.unlock();
      return;
    }
    auto it = rec_->failedPolls.find(key);
    c.set(Param::Failed, it == rec_->failedPolls.end() ? 0 : it->second);
    if (it != rec_->failedPolls.end()) {
      if (rec_->lastPollCount == &it->second) rec_->lastPollCount = nullptr;
      rec_->failedPolls.erase(it);
    }
  }
  c.op = op_;
  c.site = site_;
  c.prevSite = rec_->prevSite;
  c.computeUs = std::max(0.0, rec_->cpuClock ? compute_ - rec_->lastCpuEnd - rec_->pollCpuUs
                                             : entry_ - rec_->lastEnd - rec_->pollUs);
  rec_->pollUs = rec_->pollCpuUs = 0;
  c.mpiUs = t1_ - t0_;
  try {
    rec_->compressor.append(c);
  } catch (const std::exception& e) {
    rec_->stop(e);
  }
  rec_->prevSite = site_;
  rec_->lastEnd = tickUs();  // after the recorder's own work on this call
  rec_->sampleMemoryEvery(rec_->lastEnd);
  rec_->ownUs += (t0_ - entry_) + (rec_->lastEnd - t1_);
  ++rec_->ownCalls;
  if (rec_->cpuClock) rec_->lastCpuEnd = cpuUs();
  if (lock_.owns_lock()) lock_.unlock();
}

void CallScope::buffers(const void* sent, const void* received) {
  // Blocking calls only: a benchmark swaps its send and receive buffers before a marked call,
  // which a nonblocking one's pending transfer would not allow.
  const OpKind k = opInfo(op_).kind;
  if (k != OpKind::Send && k != OpKind::Recv && k != OpKind::Sendrecv && k != OpKind::Collective) return;
  auto& recent = rec_->recentReceives;
  const auto known = [&](const void* p) { return std::find(recent.begin(), recent.end(), p) != recent.end(); };
  if (sent && sent != MPI_IN_PLACE) {
    if (!rec_->lastSendBuffers || rec_->lastSendSite != site_) {
      rec_->lastSendBuffers = &rec_->sendBuffers[site_];
      rec_->lastSendSite = site_;
    }
    ++rec_->lastSendBuffers->sends;
    if (known(sent)) ++rec_->lastSendBuffers->fromReceived;
  }
  if (received && received != MPI_IN_PLACE && k != OpKind::Send && !known(received)) {
    recent[rec_->nextReceive] = received;
    rec_->nextReceive = (rec_->nextReceive + 1) % recent.size();
  }
}

void CallScope::set(Param p, std::int64_t v) { rec_->call.set(p, v); }
void CallScope::comm(MPI_Comm c) { rec_->call.set(Param::Comm, rec_->commId(c)); }
void CallScope::type(Param p, MPI_Datatype t) { rec_->call.set(p, rec_->datatypeId(t)); }
bool CallScope::knownType(MPI_Datatype t) { return rec_->knownType(t); }
void CallScope::reduceOp(MPI_Op op) { rec_->call.set(Param::ReduceOp, rec_->opId(op)); }

void CallScope::peer(Param p, int r) {
  std::int64_t v = r;
  if (r == MPI_ANY_SOURCE) v = kAnySource;
  else if (r == MPI_PROC_NULL) v = kProcNull;
  rec_->call.set(p, v);
}

void CallScope::tag(Param p, int t) { rec_->call.set(p, t == MPI_ANY_TAG ? kAnyTag : t); }

void CallScope::counts(Param p, const int* values, int n) {
  rec_->call.setVector(p, values, static_cast<std::size_t>(n < 0 ? 0 : n));
}

void CallScope::types(Param p, const MPI_Datatype* values, int n) {
  std::vector<std::int64_t> v;
  for (int i = 0; i < n; ++i) v.push_back(rec_->datatypeId(values[i]));
  rec_->call.setVector(p, v.data(), v.size());
}

void CallScope::offsets(const std::int64_t* values, int n) {
  rec_->call.set(Param::Count, n);
  rec_->call.setVector(Param::Requests, values, static_cast<std::size_t>(n));
}

int CallScope::commSize(MPI_Comm c) {
  int n = 0;
  int inter = 0;
  PMPI_Comm_test_inter(c, &inter);
  if (inter)
    PMPI_Comm_remote_size(c, &n);
  else
    PMPI_Comm_size(c, &n);
  return n;
}

RequestPick CallScope::pick(MPI_Request r, const void* where, const std::vector<RequestPick>& taken) {
  std::unique_lock<std::mutex> lock(rec_->mutex, std::defer_lock);
  if (rec_->multi) lock.lock();
  return rec_->pickRequest(r, where, taken);
}

void CallScope::created(MPI_Request r, const void* where) { rec_->requestCreated(r, where); }
void CallScope::completed(const RequestPick& p) { rec_->requestCompleted(p); }
void CallScope::persistentMade(MPI_Request r, bool recv, int source, MPI_Comm c) { rec_->persistentMade(r, recv, source, c); }
std::int64_t CallScope::persistentOffset(MPI_Request r) { return rec_->persistentOffset(r); }
void CallScope::untrackedRequest(MPI_Request r) {
  if (r != MPI_REQUEST_NULL) rec_->untracked_.insert(r);
}
void CallScope::persistentStarted(MPI_Request r, const void* where) { rec_->persistentStarted(r, where); }
std::int64_t CallScope::freeRequest(MPI_Request r, const void* where) { return rec_->freeRequest(r, where); }
void CallScope::wildcardPosted(MPI_Comm c) { rec_->wildcardPosted(c); }
std::int64_t CallScope::wildcardMatched(const RequestPick& p, const MPI_Status& status) {
  return rec_->wildcardMatched(p, status);
}
std::int64_t CallScope::matchedOffset(MPI_Comm c, int source) { return rec_->matchedOffset(c, source); }
void CallScope::matched(const std::vector<std::int64_t>& offsets) {
  // Only calls that completed a wildcard receive carry the parameter, so other waits keep their
  // shape and size.
  if (std::any_of(offsets.begin(), offsets.end(), [](std::int64_t v) { return v != -1; }))
    rec_->call.setVector(Param::Matched, offsets.data(), offsets.size());
}
std::int64_t CallScope::newComm(MPI_Comm c, const char* kind) { return rec_->registerComm(c, kind); }
std::int64_t CallScope::newCommLike(MPI_Comm c, MPI_Comm parent, const char* kind) {
  return rec_->registerComm(c, kind, parent);
}
std::int64_t CallScope::freedComm(MPI_Comm old) { return rec_->forgetComm(old); }
std::int64_t CallScope::commId(MPI_Comm c) { return rec_->commId(c); }
void CallScope::newGroup(MPI_Group g) { rec_->registerGroup(g); }
std::int64_t CallScope::groupId(MPI_Group g) { return rec_->groupId(g); }
std::int64_t CallScope::freedGroup(MPI_Group old) { return rec_->forgetGroup(old); }

// ---------------------------------------------------------------------------------------------

WrapperDepth::WrapperDepth() : nested_(t_depth++ > 0) {}
WrapperDepth::~WrapperDepth() { --t_depth; }
bool insideWrapper() { return t_depth > 0; }

double timeSinceLoadUs() { return g_loadUs < 0 ? -1 : std::max(0.0, nowUs() - g_loadUs); }

void recorderStart(Op initOp, double beforeInitUs) {
  if (g_recorder || envFlag("TRACEGEN_DISABLE")) return;
  try {
    OwnMemoryScope own;
    // What setting the recorder up makes resident outside its pool and its libraries' pages:
    // chiefly the unwinder's caches, which libunwind maps itself (256 KB, all of it touched by
    // the first backtrace). It is the recorder's, and left out of the application's gain.
    const std::int64_t rss0 = residentKb(), code0 = recorderCodeKb(), own0 = ownResidentBytes();
    g_recorder = new Recorder(initOp);  // never deleted: wrappers may run until exit
    g_recorder->setUpKb = std::max<std::int64_t>(
        0, (residentKb() - rss0) - (recorderCodeKb() - code0) - (ownResidentBytes() - own0) / 1024);
    g_recorder->beforeInitUs = beforeInitUs;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tracegen-record: not recording: %s\n", e.what());
  }
}

void recorderFinalized() { g_finalizedUs = clockUs(CLOCK_MONOTONIC); }

void recorderFinish() {
  Recorder* r = g_recorder;
  if (!r) return;
  {
    std::lock_guard<std::mutex> lock(r->mutex);
    if (r->finished) return;
    r->finished = true;
    if (r->recording) {
      // The Finalize event: compute time since the last call, no time inside MPI (what follows
      // is the recorder's own work).
      try {
        // Failed polls no success followed: one event per test and call site, standing for all
        // of them (a call that completed nothing, plus the rest as Param::Failed).
        for (const auto& [key, n] : r->failedPolls) {
          r->call.clear();
          r->call.op = key.first;
          r->call.site = key.second;
          r->call.prevSite = r->prevSite;
          r->call.computeUs = 0;
          r->call.mpiUs = 0;
          if (key.first == Op::Test) {
            r->call.set(Param::Request, kRequestNull);
          } else if (key.first == Op::Improbe) {
            r->call.set(Param::Count, 0);  // found no message
          } else {
            r->call.set(Param::Count, 0);
            r->call.setVector(Param::Requests, static_cast<const std::int64_t*>(nullptr), 0);
          }
          r->call.set(Param::Failed, n - 1);
          r->compressor.append(r->call);
          r->prevSite = key.second;
        }
        r->failedPolls.clear();
        r->lastPollCount = nullptr;
        r->call.clear();
        r->call.op = Op::Finalize;
        r->call.site = r->sites.capture();
        r->call.prevSite = r->prevSite;
        r->call.computeUs = std::max(0.0, r->cpuClock ? cpuUs() - r->lastCpuEnd - r->pollCpuUs
                                                      : tickUs() - r->lastEnd - r->pollUs);
        r->compressor.append(r->call);
      } catch (const std::exception& e) {
        r->stop(e);
      }
      r->recording = false;
    }
  }
  try {
    r->finish();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tracegen-record: rank %d: no trace written: %s\n", r->rank, e.what());
  }
  r->releaseComm();
}

}  // namespace tracegen::record
