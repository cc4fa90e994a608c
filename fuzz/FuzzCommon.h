// Shared by the libFuzzer targets: what `tracegen inspect --per-rank` computes for a trace,
// with an expansion budget small enough that one input takes milliseconds.
//
// Outcomes that are correct answers to bad input (InputError: exit status 2; ProgramError: a
// trace that cannot complete, exit status 3) end the run of one input quietly. Anything else
// escaping (std::bad_alloc, std::out_of_range, a sanitizer report, a signal) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "ir/Readers.h"
#include "ir/Summary.h"

namespace tracegen::fuzz {

// Steps (calls and per-rank set-ups) one input may expand: enough for every sample trace, small
// enough that a loop of 10^12 iterations is refused within a millisecond or so.
constexpr std::int64_t kFuzzBudget = 200'000;

inline std::string asText(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The totals and every rank's row, as inspect --per-rank prints them (rows are consumed, not kept).
inline void inspectPerRank(const Trace& trace, const std::string& name) {
  TraceSummary s = summarizeTrace(trace, name, /*keepPerRank=*/false, kFuzzBudget);
  std::int64_t calls = 0;
  forEachRankSummary(trace, name, [&](const RankSummary& r) { calls += r.calls; }, kFuzzBudget);
  // Both expansions see the same calls: a difference would be a cursor that is not deterministic.
  if (calls != s.calls) __builtin_trap();
  // Rows come from one expansion per rank class; on small traces, expanding every rank
  // directly must give the same figures (a difference is a class that is too coarse).
  if (trace.numRanks <= 16) {
    ExpansionBudget direct(name, "expanding every rank directly", kFuzzBudget);
    forEachRankSummary(
        trace, name,
        [&](const RankSummary& r) {
          const RankSummary d = summarizeRank(trace, r.rank, direct, name);
          if (d.ops != r.ops || d.calls != r.calls || d.bytesSent != r.bytesSent || d.bytesReceived != r.bytesReceived)
            __builtin_trap();
        },
        kFuzzBudget);
  }
}

}  // namespace tracegen::fuzz
