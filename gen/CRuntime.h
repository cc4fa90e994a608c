// The runtime of the C benchmarks (templates/c/runtime/): tracegen_runtime.h and
// tracegen_runtime.c, the C every generated benchmark shares (clock and computation, options,
// buffers, the tables that name requests, communicators, groups, windows and files). The C
// backend puts their text at the top of the benchmark (`--runtime=embedded`, the default) or
// an #include of the header (`--runtime=separate`, and the command writes the two files).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tracegen::gen {

struct RuntimeFile {
  std::string_view name;  // "tracegen_runtime.h", "tracegen_runtime.c"
  std::string_view text;
};

// The runtime's files, the header first, as compiled into tracegen.
std::vector<RuntimeFile> cRuntimeFiles();

// The runtime as one piece of a C file: the header, then the source without its #include of
// the header.
std::string embeddedCRuntime();

// The line that includes the runtime's header: the benchmark's, and the source's own.
inline constexpr std::string_view kCRuntimeInclude = "#include \"tracegen_runtime.h\"";

}  // namespace tracegen::gen
