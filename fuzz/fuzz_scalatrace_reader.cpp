// libFuzzer target: the ScalaTrace 2 text reader (io/ScalaTraceReader.cpp) on arbitrary bytes,
// then, for every trace it accepts, what `tracegen inspect --per-rank` computes: one RankCursor
// per rank expanding LOOP levels, offset-encoded peers, request offsets and statistics
// (ir/RankCursor.cpp, ir/Summary.cpp), as inspect does (totals, then streamed rows). Covers
// block structure, ranklists in ScalaTrace's encoding, histograms, parameter ids and the value
// limits (ir/Limits.cpp). Seeds: fuzz/corpus/fuzz_scalatrace_reader/ (samples cut down from
// ../shared/traces); dictionary: fuzz/scalatrace.dict.
#include "fuzz/FuzzCommon.h"
#include "fuzz/StructureMutator.h"
#include "ir/Diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tracegen;
  try {
    Trace trace = readScalaTrace(sourceFromString("fuzz.trace", fuzz::asText(data, size)));
    fuzz::inspectPerRank(trace, "fuzz.trace");
  } catch (const InputError&) {
  }
  return 0;
}
