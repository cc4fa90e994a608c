#include "record/FrameNames.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstring>

#if TRACEGEN_HAVE_LIBDWFL
#include <elfutils/libdwfl.h>
#endif

namespace tracegen::record {

bool isTraceToken(std::string_view s) {
  if (s.empty() || s.front() == '#') return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u >= 0x7f || std::strchr("()[]{}<>@=", c)) return false;
  }
  return true;
}

std::string executableName() {
  char exe[4096];
  const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return {};
  exe[n] = '\0';
  const char* slash = std::strrchr(exe, '/');
  std::string name = slash ? slash + 1 : exe;
  return isTraceToken(name) ? name : std::string();
}

#if TRACEGEN_HAVE_LIBDWFL
namespace {

// The few libdw entry points used, looked up in the dlopen'ed library.
struct Dw {
  decltype(&dwfl_begin) begin = nullptr;
  decltype(&dwfl_end) end = nullptr;
  decltype(&dwfl_report_begin) reportBegin = nullptr;
  decltype(&dwfl_report_end) reportEnd = nullptr;
  decltype(&dwfl_linux_proc_report) procReport = nullptr;
  decltype(&dwfl_linux_proc_find_elf) procFindElf = nullptr;
  decltype(&dwfl_standard_find_debuginfo) findDebuginfo = nullptr;
  decltype(&dwfl_addrmodule) addrModule = nullptr;
  decltype(&dwfl_module_addrinfo) addrInfo = nullptr;
  decltype(&dwfl_module_getsrc) getSrc = nullptr;
  decltype(&dwfl_lineinfo) lineInfo = nullptr;

  bool load() {
    void* lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) return false;
    auto get = [&](auto& fn, const char* name) {
      void* sym = dlsym(lib, name);
      std::memcpy(&fn, &sym, sizeof sym);
      return sym != nullptr;
    };
    return get(begin, "dwfl_begin") && get(end, "dwfl_end") && get(reportBegin, "dwfl_report_begin") &&
           get(reportEnd, "dwfl_report_end") && get(procReport, "dwfl_linux_proc_report") &&
           get(procFindElf, "dwfl_linux_proc_find_elf") && get(findDebuginfo, "dwfl_standard_find_debuginfo") &&
           get(addrModule, "dwfl_addrmodule") && get(addrInfo, "dwfl_module_addrinfo") &&
           get(getSrc, "dwfl_module_getsrc") && get(lineInfo, "dwfl_lineinfo");
  }
};

}  // namespace

std::vector<std::optional<FrameName>> resolveFrames(const std::vector<std::uintptr_t>& pcs) {
  std::vector<std::optional<FrameName>> out(pcs.size());
  if (pcs.empty()) return out;
  static Dw dw;
  static const bool loaded = dw.load();
  if (!loaded) return out;
  // The callbacks must outlive the session.
  static Dwfl_Callbacks callbacks{};
  callbacks.find_elf = dw.procFindElf;
  callbacks.find_debuginfo = dw.findDebuginfo;
  Dwfl* dwfl = dw.begin(&callbacks);
  if (!dwfl) return out;
  dw.reportBegin(dwfl);
  const int reported = dw.procReport(dwfl, getpid());
  if (dw.reportEnd(dwfl, nullptr, nullptr) != 0 || reported != 0) {
    dw.end(dwfl);
    return out;
  }
  for (std::size_t i = 0; i < pcs.size(); ++i) {
    if (pcs[i] == 0) continue;
    const Dwarf_Addr pc = pcs[i] - 1;  // inside the call instruction
    Dwfl_Module* mod = dw.addrModule(dwfl, pc);
    if (!mod) continue;
    GElf_Off offset = 0;
    GElf_Sym sym{};
    const char* name = dw.addrInfo(mod, pc, &offset, &sym, nullptr, nullptr, nullptr);
    if (!name || !isTraceToken(name)) continue;
    FrameName f;
    f.symbol = name;
    if (Dwfl_Line* line = dw.getSrc(mod, pc)) {
      int lineNo = 0;
      const char* src = dw.lineInfo(line, nullptr, &lineNo, nullptr, nullptr, nullptr);
      if (src && lineNo > 0) {
        const char* slash = std::strrchr(src, '/');
        std::string file = slash ? slash + 1 : src;
        if (isTraceToken(file) && file.find(':') == std::string::npos) {
          f.file = std::move(file);
          f.line = lineNo;
        }
      }
    }
    out[i] = std::move(f);
  }
  dw.end(dwfl);
  return out;
}
#else
std::vector<std::optional<FrameName>> resolveFrames(const std::vector<std::uintptr_t>& pcs) {
  return std::vector<std::optional<FrameName>>(pcs.size());
}
#endif

}  // namespace tracegen::record
