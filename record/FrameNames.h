// Names of call-site frames (docs/recording.md, "Call sites"): at MPI_Finalize rank 0 resolves
// each distinct frame of the global trace's sites once, to the function holding it (the module's
// ELF symbol table, .symtab where the module has one, so static functions too) and, where the
// module has debug information, the file and line of the call (DWARF), with elfutils' libdw.
// libdw is loaded at that moment (dlopen of libdw.so.1), not linked: without it, or where a
// lookup fails, frames keep their offsets only, and the trace is otherwise the same.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/Trace.h"

namespace tracegen::record {

// The names of return addresses of this process, one per address (nullopt: not resolved). The
// call's address (pc - 1) is looked up, so that a call at the end of a function, or a line's
// last instruction, names its own function and line.
std::vector<std::optional<FrameName>> resolveFrames(const std::vector<std::uintptr_t>& pcs);

// The executable's file name (basename of /proc/self/exe), or empty.
std::string executableName();

// Whether a name can be written as one token of the trace format.
bool isTraceToken(std::string_view s);

}  // namespace tracegen::record
