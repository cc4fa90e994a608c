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

#include "io/Readers.h"
#include "ir/Diagnostics.h"
#include "ir/Checked.h"
#include "ir/RankCursor.h"
#include "ir/Summary.h"

namespace tracegen::fuzz {

// Steps (calls and per-rank set-ups) one input may expand per walk. Under ASan, UBSan and
// coverage a step costs a few microseconds and every input is walked three times, so this
// budget bounds an input's time: at 200,000 steps the fuzzer soon found inputs (a loop of 91,091
// MPI_Bcast on 4 ranks) that took 1-8 s each and spent most of its time in them (the rate fell
// from 11,000 to 300 executions/s). 20,000 steps still expand every small sample trace whole, and
// the first 20,000 calls of the large ones, which walk the same code again and again after that.
constexpr std::int64_t kFuzzBudget = 20'000;

inline std::string asText(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// The totals and every rank's row, as inspect --per-rank prints them (rows are consumed, not kept).
inline void inspectPerRank(const Trace& trace, const std::string& name) {
  TraceSummary s = summarizeTrace(trace, name, /*keepPerRank=*/false, kFuzzBudget);
  std::int64_t calls = 0;
  forEachRankSummary(trace, name, [&](const RankSummary& r) { calls = saturatingAdd(calls, r.calls); }, kFuzzBudget);
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
          // Summaries skip the loop iterations that repeat (RankCursor::setLoopListener): the
          // calls a plain walk makes, where it stays within the budget, must agree.
          // A quarter of the budget per rank: the walk is an extra expansion of every rank.
          constexpr std::int64_t kPlainCalls = kFuzzBudget / 4;
          // Iterations without calls count too: a loop of 10^12 trips around an inner loop of 0
          // made the walk spin (the summaries skip such repeats).
          RankCursor plain(trace, r.rank, name);
          plain.setIterationLimit(kPlainCalls);
          Call c;
          std::int64_t n = 0, sent = 0;
          try {
            while (n <= kPlainCalls && plain.next(c)) {
              n = saturatingAdd(n, saturatingAdd(1, c.failedPolls));
              if (isPointToPoint(opInfo(c.op).kind)) sent = saturatingAdd(sent, c.bytes);
            }
          } catch (const InputError&) {
            return;  // past the iteration limit: no plain figures to compare
          }
          if (n <= kPlainCalls && (n != r.calls || (sent > 0 && sent > r.bytesSent))) __builtin_trap();
        },
        kFuzzBudget);
  }
}

}  // namespace tracegen::fuzz
