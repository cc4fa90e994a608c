#include "record/CallSites.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <unwind.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "record/FrameNames.h"
#include "record/Hash.h"

namespace tracegen::record {

namespace {
std::uintptr_t baseOf(const void* addr) {
  Dl_info info{};
  if (dladdr(addr, &info) == 0) return 0;
  return reinterpret_cast<std::uintptr_t>(info.dli_fbase);
}

const char* baseName(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash ? slash + 1 : path;
}

bool startsWith(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

// Remembered chains are per thread (a thread's stack may be reused by a later thread): the key
// includes this number, given at a thread's first capture.
thread_local std::uint64_t t_thread __attribute__((tls_model("initial-exec"))) = 0;
std::uint64_t g_threads = 0;

constexpr std::uint32_t kNone = UINT32_MAX;
constexpr int kMaxFrames = 64;

// The unwinder's frames with their canonical frame addresses (libgcc's _Unwind_Backtrace).
struct CfaFrames {
  std::uintptr_t ip[kMaxFrames];
  std::uintptr_t cfa[kMaxFrames];
  int n = 0;
};

_Unwind_Reason_Code collectFrame(_Unwind_Context* ctx, void* arg) {
  auto* f = static_cast<CfaFrames*>(arg);
  if (f->n == kMaxFrames) return _URC_END_OF_STACK;
  f->ip[f->n] = _Unwind_GetIP(ctx);
  f->cfa[f->n] = _Unwind_GetCFA(ctx);
  ++f->n;
  return _URC_NO_REASON;
}
}  // namespace

CallSites::CallSites(int maxDepth) : maxDepth_(maxDepth) {
  selfBase_ = baseOf(reinterpret_cast<const void*>(&baseOf));
  exeBase_ = baseOf(reinterpret_cast<const void*>(getauxval(AT_PHDR)));
  const char* pref = std::getenv("TRACEGEN_UNWIND");
  if (!pref || std::strcmp(pref, "glibc") != 0) {
    // RTLD_LOCAL: libunwind's own _Unwind_* symbols must not interpose on the application's.
    void* lib = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      void* sym = dlsym(lib, "unw_backtrace");
      std::memcpy(&unwind_, &sym, sizeof sym);
    }
  }
  // The unwinders load and index their data on first use; do it now, not inside a timed call.
  void* warm[4];
  (void)(unwind_ ? unwind_(warm, 4) : backtrace(warm, 4));
#if defined(__x86_64__)
  memoize_ = !pref || std::strcmp(pref, "walk") != 0;
#endif
  for (auto& f : front_) f = kNone;
}

const CallSites::Frame& CallSites::frame(void* addr) {
  auto it = frames_.find(addr);
  if (it != frames_.end()) return it->second;
  Frame f;
  Dl_info info{};
  if (dladdr(addr, &info) == 0 || info.dli_fbase == nullptr) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "?%zx", static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(addr)));
    f.text = buf;
  } else {
    const auto base = reinterpret_cast<std::uintptr_t>(info.dli_fbase);
    const char* name = info.dli_fname ? baseName(info.dli_fname) : "";
    if (base == selfBase_ || startsWith(name, "libmpi") || startsWith(name, "libopen-") || startsWith(name, "libpmpi") ||
        startsWith(name, "mca_")) {
      f.skip = true;  // the recorder, Open MPI and its Fortran bindings
    } else if (startsWith(name, "libc.so") || startsWith(name, "libc-")) {
      f.stop = true;  // __libc_start_main and below
    } else {
      char buf[64];
      const auto off = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(addr) - base);
      if (base == exeBase_)
        std::snprintf(buf, sizeof buf, "%zx", off);
      else
        std::snprintf(buf, sizeof buf, "%.40s+%zx", name, off);
      f.text = buf;
    }
  }
  return frames_.emplace(addr, std::move(f)).first->second;
}

// Not inlined: its frame address and return address are the key of the remembered chains.
__attribute__((noinline)) std::uint32_t CallSites::capture() {
#if defined(__x86_64__)
  if (memoize_) {
    auto** anchor = static_cast<void**>(__builtin_frame_address(0));
    void* ret = __builtin_return_address(0);
    if (t_thread == 0) t_thread = ++g_threads;  // under the recorder's lock
    const std::uint64_t key = combine(combine(t_thread, reinterpret_cast<std::uintptr_t>(anchor)),
                                      reinterpret_cast<std::uintptr_t>(ret));
    std::uint32_t& front = front_[key % kFront];
    std::uint32_t m = front;
    if (m == kNone || memos_[m].key != key) {
      auto it = memoIndex_.find(key);
      m = it == memoIndex_.end() ? kNone : it->second;
      if (m != kNone) front = m;
    }
    for (; m != kNone; m = memos_[m].next) {
      const Memo& e = memos_[m];
      bool same = true;
      for (std::uint32_t i = 0; i < e.count && same; ++i) same = *slots_[e.first + i].first == slots_[e.first + i].second;
      if (same) return e.site;
    }
    const std::uint32_t site = walk();
    remember(anchor, ret, site);
    return site;
  }
#endif
  return walk();
}

// Records the chain just walked (kept_) with its stack slots, if the unwinder's view of the stack
// agrees with it slot by slot; otherwise nothing is remembered and such calls keep walking.
void CallSites::remember(void** anchor, void* ret, std::uint32_t site) {
  if (memos_.size() >= kMaxMemos) return;
  CfaFrames f;
  _Unwind_Backtrace(collectFrame, &f);
  // libgcc reports each frame's return address with the address of the slot that held it plus
  // 8 (the caller's stack pointer before the call): start at capture()'s own return address,
  // `ret`, held at anchor[1].
  const auto retSlot = reinterpret_cast<std::uintptr_t>(anchor + 1);
  int k = 0;
  while (k < f.n && f.cfa[k] - sizeof(void*) != retSlot) ++k;
  if (k >= f.n || f.ip[k] != reinterpret_cast<std::uintptr_t>(ret)) return;
  const auto first = static_cast<std::uint32_t>(slots_.size());
  std::size_t kept = 0;
  bool complete = false;
  for (; k < f.n; ++k) {
    auto* const* slot = reinterpret_cast<void* const*>(f.cfa[k] - sizeof(void*));
    void* addr = reinterpret_cast<void*>(f.ip[k]);
    if (*slot != addr) break;  // not the plain call frame the rule assumes (signal frame, ...)
    slots_.emplace_back(slot, addr);
    const Frame& fr = frame(addr);
    if (fr.skip) continue;
    if (fr.stop) {
      complete = true;
      break;
    }
    if (kept >= kept_.size() || kept_[kept] != addr) break;  // disagrees with the walk
    if (++kept == static_cast<std::size_t>(maxDepth_)) {
      complete = true;
      break;
    }
  }
  if (!complete || kept != kept_.size()) {
    slots_.resize(first);
    return;
  }
  const std::uint64_t key = combine(combine(t_thread, reinterpret_cast<std::uintptr_t>(anchor)),
                                    reinterpret_cast<std::uintptr_t>(ret));
  const auto id = static_cast<std::uint32_t>(memos_.size());
  auto [it, fresh] = memoIndex_.try_emplace(key, id);
  memos_.push_back({key, first, static_cast<std::uint32_t>(slots_.size()) - first, site, fresh ? kNone : it->second});
  it->second = id;  // the newest chain first
  front_[key % kFront] = id;
}

std::uint32_t CallSites::walk() {
  void* stack[64];
  const int n = unwind_ ? unwind_(stack, 64) : backtrace(stack, 64);
  kept_.clear();
  std::uint64_t key = 0x73697465ull;
  for (int i = 0; i < n && static_cast<int>(kept_.size()) < maxDepth_; ++i) {
    const Frame& f = frame(stack[i]);
    if (f.skip) continue;
    if (f.stop) break;
    kept_.push_back(stack[i]);
    key = combine(key, static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(stack[i])));
  }
  if (auto it = raw_.find(key); it != raw_.end() && it->second.frames == kept_) return it->second.site;
  scratch_.clear();
  for (std::size_t i = 0; i < kept_.size(); ++i) {
    if (i > 0) scratch_ += '_';
    scratch_ += frame(kept_[i]).text;
  }
  if (scratch_.empty()) scratch_ = "unknown";
  const std::uint32_t site = intern(scratch_);
  raw_[key] = RawSite{kept_, site};
  return site;
}

namespace {
// The load address (as dladdr's dli_fbase) of a loaded module by the name frames give it (its
// file's base name, cut at 40 characters as CallSites::frame writes it); 0 if none.
std::uintptr_t moduleBase(std::string_view name) {
  struct Query {
    std::string_view name;
    std::uintptr_t base = 0;
  } query{name};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* arg) {
        auto* q = static_cast<Query*>(arg);
        if (!info->dlpi_name || !*info->dlpi_name) return 0;
        std::string_view n = baseName(info->dlpi_name);
        if (n.substr(0, 40) != q->name) return 0;
        ElfW(Addr) low = ~ElfW(Addr){0};
        for (int k = 0; k < info->dlpi_phnum; ++k)
          if (info->dlpi_phdr[k].p_type == PT_LOAD && info->dlpi_phdr[k].p_vaddr < low) low = info->dlpi_phdr[k].p_vaddr;
        if (low == ~ElfW(Addr){0}) return 0;
        const auto page = static_cast<ElfW(Addr)>(sysconf(_SC_PAGESIZE));
        q->base = info->dlpi_addr + (low & ~(page - 1));
        return 1;
      },
      &query);
  return query.base;
}
}  // namespace

void CallSites::nameFrames(Trace& t) {
  // This process's frames by their text; they also guide the splitting of chains.
  std::map<std::string, std::uintptr_t, std::less<>> byText;
  for (const auto& [addr, f] : frames_)
    if (!f.skip && !f.stop && !f.text.empty() && f.text.front() != '?')
      byText.emplace(f.text, reinterpret_cast<std::uintptr_t>(addr));
  Trace probe;
  probe.sites = t.sites;
  for (const auto& [text, addr] : byText) probe.frameNames.emplace(text, FrameName{});
  std::vector<std::string> texts;
  std::vector<std::uintptr_t> pcs;
  std::set<std::string_view> seen;
  std::map<std::string, std::uintptr_t, std::less<>> bases;
  for (std::size_t s = 0; s < t.sites.size(); ++s) {
    for (std::string_view f : probe.siteFrames(static_cast<SiteId>(s))) {
      if (!seen.insert(f).second) continue;
      std::uintptr_t pc = 0;
      if (auto it = byText.find(f); it != byText.end()) {
        pc = it->second;
      } else {
        // A frame another process saw: its offset into the module as loaded here.
        const std::size_t plus = f.rfind('+');
        const std::string_view module = plus == std::string_view::npos ? std::string_view() : f.substr(0, plus);
        const std::string off(plus == std::string_view::npos ? f : f.substr(plus + 1));
        char* end = nullptr;
        const unsigned long long v = std::strtoull(off.c_str(), &end, 16);
        if (off.empty() || *end != '\0') continue;
        std::uintptr_t base = exeBase_;
        if (!module.empty()) {
          auto b = bases.find(module);
          if (b == bases.end()) b = bases.emplace(std::string(module), moduleBase(module)).first;
          base = b->second;
        }
        if (base == 0) continue;
        pc = base + static_cast<std::uintptr_t>(v);
      }
      texts.emplace_back(f);
      pcs.push_back(pc);
    }
  }
  const std::vector<std::optional<FrameName>> names = resolveFrames(pcs);
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] && isTraceToken(texts[i])) t.frameNames.insert_or_assign(texts[i], *names[i]);
  if (!t.frameNames.empty()) t.program = executableName();
}

std::uint32_t CallSites::intern(const std::string& name) {
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.push_back(name);
  index_.emplace(name, id);
  return id;
}

}  // namespace tracegen::record
