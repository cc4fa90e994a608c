// The registry of backends: createBackend() and backendNames() of gen/Backend.h.
//
// The coNCePTuaL backend is written in parallel with this file; it is registered only once its
// source (or a header of its own) exists, so that the build keeps linking until then
// (gen/Backends.h declares its factory either way). Once it has landed the condition can go.
#include <string>
#include <utility>
#include <vector>

#include "gen/Backends.h"

#if __has_include("gen/NcptlBackend.h")
#include "gen/NcptlBackend.h"
#define TRACEGEN_HAVE_NCPTL_BACKEND 1
#elif __has_include("gen/NcptlBackend.cpp")
#define TRACEGEN_HAVE_NCPTL_BACKEND 1
#endif

namespace tracegen::gen {

namespace {

using Factory = std::unique_ptr<Backend> (*)();

// In the order `--emit` lists them.
const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> kBackends = {
      {"c", &createCBackend},
#ifdef TRACEGEN_HAVE_NCPTL_BACKEND
      {"ncptl", &createNcptlBackend},
#endif
  };
  return kBackends;
}

}  // namespace

std::unique_ptr<Backend> createBackend(std::string_view name) {
  for (const auto& [n, factory] : registry())
    if (n == name) return factory();
  return nullptr;
}

std::vector<std::string> backendNames() {
  std::vector<std::string> names;
  for (const auto& entry : registry()) names.push_back(entry.first);
  return names;
}

}  // namespace tracegen::gen
