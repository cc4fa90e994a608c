// Named call sites (ir/Trace.h: FrameName, Trace::siteFrames ... siteLabel).
#include <cxxabi.h>

#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "ir/Trace.h"

namespace tracegen {

namespace {

constexpr std::size_t kShownFunctions = 4;  // siteDescription: the innermost and up to three callers

bool isHex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) return false;
  return true;
}

// A frame as the recorder spells it: an offset into the executable or `module+offset`.
bool looksLikeFrame(std::string_view s) {
  const std::size_t plus = s.rfind('+');
  return plus == std::string_view::npos ? isHex(s) : plus > 0 && isHex(s.substr(plus + 1));
}

// Drops a demangled C++ name's trailing parameter list (and qualifiers after it).
std::string withoutParameters(std::string s) {
  for (std::string_view q : {" const", " volatile", " &&", " &"})
    while (s.size() > q.size() && s.ends_with(q)) s.resize(s.size() - q.size());
  if (s.empty() || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = s.size(); i-- > 0;) {
    if (s[i] == ')') ++depth;
    else if (s[i] == '(' && --depth == 0) {
      if (i == 0) return s;
      return s.substr(0, i);
    }
  }
  return s;
}

bool lowerFortranName(std::string_view s) {
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return !s.empty();
}

}  // namespace

std::string readableSymbol(std::string_view symbol) {
  if (symbol.starts_with("_Z")) {
    int status = 0;
    const std::string mangled(symbol);
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
    if (status == 0 && d) {
      std::string s(d.get());
      // Clones read `f(int) [clone .constprop.0]`: the function is f.
      if (const std::size_t c = s.find(" [clone"); c != std::string::npos) s.resize(c);
      return withoutParameters(std::move(s));
    }
  }
  std::string_view s = symbol;
  // GCC's local clones: `exchange.constprop.0`, `halo.part.0`, `main.cold`.
  if (const std::size_t dot = s.find('.'); dot != std::string_view::npos && dot > 0) s = s.substr(0, dot);
  // gfortran's module procedures: `__grid_MOD_swap` (module grid, procedure swap).
  if (s.starts_with("__")) {
    if (const std::size_t mod = s.find("_MOD_", 2); mod != std::string_view::npos && mod > 2 && mod + 5 < s.size())
      return fmt::format("{}::{}", s.substr(2, mod - 2), s.substr(mod + 5));
  }
  // Intel Fortran's: `grid_mp_swap_`.
  if (s.size() > 1 && s.back() == '_' && lowerFortranName(s)) {
    std::string_view base = s.substr(0, s.size() - 1);
    if (const std::size_t mp = base.find("_mp_"); mp != std::string_view::npos && mp > 0 && mp + 4 < base.size())
      return fmt::format("{}::{}", base.substr(0, mp), base.substr(mp + 4));
    // An external Fortran procedure: `exchange_1_`.
    if (!s.starts_with("_") && !base.ends_with("_")) return std::string(base);
  }
  return std::string(s);
}

std::vector<std::string_view> Trace::siteFrames(SiteId s) const {
  std::vector<std::string_view> frames;
  if (s == kNoSite || s < 0 || static_cast<std::size_t>(s) >= sites.size()) return frames;
  const std::string_view chain = sites[static_cast<std::size_t>(s)];
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t end = chain.find('_', pos);
    parts.push_back(chain.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  // Pieces between '_' join into frames: the longest run the frame table names, else the
  // shortest run that looks like a frame (a module name may hold '_').
  auto join = [&](std::size_t i, std::size_t j) {
    const std::size_t from = static_cast<std::size_t>(parts[i].data() - chain.data());
    const std::size_t to = static_cast<std::size_t>(parts[j].data() - chain.data()) + parts[j].size();
    return chain.substr(from, to - from);
  };
  for (std::size_t i = 0; i < parts.size();) {
    std::size_t next = parts.size();
    if (!frameNames.empty())
      for (std::size_t j = parts.size(); j-- > i;)
        if (frameNames.find(join(i, j)) != frameNames.end()) {
          next = j + 1;
          break;
        }
    if (next == parts.size()) {
      std::size_t j = i;
      while (j + 1 < parts.size() && !looksLikeFrame(join(i, j))) ++j;
      next = j + 1;
    }
    frames.push_back(join(i, next - 1));
    i = next;
  }
  return frames;
}

std::vector<std::string> Trace::siteFunctions(SiteId s) const {
  std::vector<std::string> names;
  for (std::string_view f : siteFrames(s)) {
    auto it = frameNames.find(f);
    names.push_back(it == frameNames.end() ? std::string() : readableSymbol(it->second.symbol));
  }
  return names;
}

std::string Trace::siteDescription(SiteId s) const {
  const std::vector<std::string_view> frames = siteFrames(s);
  bool named = false;
  for (std::string_view f : frames) named = named || frameNames.find(f) != frameNames.end();
  if (!named) return {};
  // A frame as a module and offset: `lu+0x8e31`, `libfoo.so+0x1a2b` (`0x8e31` when the
  // executable's name is not known).
  auto where = [&](std::string_view f) {
    const std::size_t plus = f.rfind('+');
    if (plus == std::string_view::npos)
      return isHex(f) ? (program.empty() ? fmt::format("0x{}", f) : fmt::format("{}+0x{}", program, f)) : std::string(f);
    return isHex(f.substr(plus + 1)) ? fmt::format("{}+0x{}", f.substr(0, plus), f.substr(plus + 1)) : std::string(f);
  };
  std::string out = "in ";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i == kShownFunctions) {
      out += " <- ...";
      break;
    }
    if (i > 0) out += " <- ";
    auto it = frameNames.find(frames[i]);
    if (it == frameNames.end()) {
      out += i == 0 ? std::string("?") : where(frames[i]);  // the innermost's place follows anyway
      continue;
    }
    out += readableSymbol(it->second.symbol);
    if (i == 0 && it->second.line > 0) out += fmt::format(" ({}:{})", it->second.file, it->second.line);
    if (it->second.symbol == "main") break;
  }
  return out + fmt::format(" ({})", where(frames.front()));
}

std::string Trace::siteLabel(SiteId s) const {
  std::string label(siteName(s));
  if (std::string d = siteDescription(s); !d.empty()) label += fmt::format(" ({})", d);
  return label;
}

}  // namespace tracegen
