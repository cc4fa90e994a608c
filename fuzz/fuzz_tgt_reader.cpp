// libFuzzer target: tracegen's text format reader (io/TracegenText.cpp) on arbitrary bytes,
// then, for every trace it accepts, what `tracegen inspect --per-rank` computes: one RankCursor
// per rank expanding loops, parameters, requests and histograms (ir/RankCursor.cpp,
// ir/Summary.cpp), twice, as inspect does (totals, then streamed rows). Covers the lexer
// (io/TextLines.cpp), ranklist checks, header and event validation, the value limits
// (ir/Limits.cpp) and the expansion budget. Input that starts with zstd's magic number is
// decompressed first, as every reader does (io/Compression.cpp), with a limit of 1 MiB of text
// so that a decompression bomb is refused quickly. Seeds: fuzz/corpus/fuzz_tgt_reader/
// (plain and .zst); dictionary: fuzz/tgt.dict.
#include "fuzz/FuzzCommon.h"
#include "fuzz/StructureMutator.h"
#include "ir/Diagnostics.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tracegen;
  try {
    Trace trace = readTracegenText(sourceFromBytes("fuzz.tgt", fuzz::asText(data, size), std::size_t{1} << 20));
    fuzz::inspectPerRank(trace, "fuzz.tgt");
  } catch (const InputError&) {
  }
  return 0;
}
