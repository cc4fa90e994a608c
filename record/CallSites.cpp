#include "record/CallSites.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <sys/auxv.h>

#include <cstdio>
#include <cstring>

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
  // backtrace() loads the unwinder on first use; do it now rather than inside a timed call.
  void* warm[4];
  (void)backtrace(warm, 4);
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
  const int n = backtrace(stack, 64);
  scratch_.clear();
  int kept = 0;
  for (int i = 0; i < n && kept < maxDepth_; ++i) {
    const Frame& f = frame(stack[i]);
    if (f.skip) continue;
    if (f.stop) break;
    if (kept++ > 0) scratch_ += '_';
    scratch_ += f.text;
  }
  if (scratch_.empty()) scratch_ = "unknown";
  return intern(scratch_);
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
