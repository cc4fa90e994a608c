// The C benchmarks' runtime files and their embedded form (gen/CRuntime.h).
#include "gen/CRuntime.h"

#include <stdexcept>

#include "gen/Backend.h"

namespace tracegen::gen {

std::vector<RuntimeFile> cRuntimeFiles() {
  return {{"tracegen_runtime.h", templateText("c/runtime/tracegen_runtime.h")},
          {"tracegen_runtime.c", templateText("c/runtime/tracegen_runtime.c")}};
}

std::string embeddedCRuntime() {
  const auto files = cRuntimeFiles();
  std::string source(files[1].text);
  const std::string include = std::string(kCRuntimeInclude) + "\n";
  const std::size_t at = source.find(include);
  if (at == std::string::npos || (at > 0 && source[at - 1] != '\n'))
    throw std::logic_error("templates/c/runtime/tracegen_runtime.c does not include tracegen_runtime.h on a line of its own");
  source.erase(at, include.size());
  return std::string(files[0].text) + "\n" + source;
}

}  // namespace tracegen::gen
