#include "record/CallSites.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <sys/auxv.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

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

std::uint32_t CallSites::capture() {
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

std::uint32_t CallSites::intern(const std::string& name) {
  auto it = index_.find(name);
  if (it != index_.end()) return it->second;
  const auto id = static_cast<std::uint32_t>(names_.size());
  names_.push_back(name);
  index_.emplace(name, id);
  return id;
}

}  // namespace tracegen::record
