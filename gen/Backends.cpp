// The registry of backends: createBackend() and backendNames() of gen/Backend.h. A new output
// language is one row here and a folder beside gen/c/ and gen/conceptual/.
#include <string>
#include <utility>
#include <vector>

#include "gen/Backends.h"

#include "gen/NcptlBackend.h"

namespace tracegen::gen {

namespace {

using Factory = std::unique_ptr<Backend> (*)();

// In the order `--emit` lists them.
const std::vector<std::pair<std::string, Factory>>& registry() {
  static const std::vector<std::pair<std::string, Factory>> kBackends = {
      {"c", &createCBackend},
      {"ncptl", &createNcptlBackend},
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
