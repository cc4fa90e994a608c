// The traversal shared by every backend: from a lowered trace to a Program (gen/Program.h).
#pragma once

#include <string>
#include <vector>

#include "gen/Program.h"
#include "gen/ReceivedBytes.h"
#include "ir/Trace.h"

namespace tracegen::gen {

// Builds the benchmark program of a lowered trace (communicators resolved, wildcards
// resolved, timing summarised, rank expressions made). The program keeps a pointer to
// `trace`, which must outlive it. Throws std::invalid_argument for what it cannot express.
// With `received`, receive statements carry the sizes their matched sends carry.
Program buildProgram(const Trace& trace, const std::string& source, const ReceivedBytes* received = nullptr);

// ---- opaque calls (OpKind::Opaque, OpaqueRequest): recorded, not modelled

// The opaque events of a trace, as `E<id> <MPI name> at <site>` (one per event, file order).
std::vector<std::string> opaqueCalls(const Trace& trace);
// Throws InputError at the first opaque event, naming the call and its call sites: a benchmark
// cannot reproduce a call tracegen does not model (`tracegen --skip-unknown` leaves a comment in
// its place instead).
void requireModelled(const Trace& trace, const std::string& file);

}  // namespace tracegen::gen
