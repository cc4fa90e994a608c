// Per-rank figures of a trace, computed by expanding each rank with its own RankCursor:
// what `tracegen inspect --per-rank` prints and what `tracegen compare` and the end-to-end
// tests check a benchmark against.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/Limits.h"
#include "ir/Trace.h"

namespace tracegen {

// Byte totals saturate at 2^63-1 instead of overflowing: they are figures to print, and a
// trace whose single calls overflow is rejected by the cursor (docs/trace-format.md, "Limits").
struct RankSummary {
  Rank rank = 0;
  std::map<std::string, std::int64_t> ops;  // MPI name -> calls (MPI_Init and MPI_Finalize included)
  std::int64_t calls = 0;
  std::int64_t bytesSent = 0;      // point-to-point payload sent
  std::int64_t bytesReceived = 0;  // point-to-point payload posted to receive
  double computeUs = 0;            // compute time before calls, where measured in microseconds
  double computeKinst = 0;         // compute in thousands of instructions (time-independent traces)
  double mpiUs = 0;                // time inside MPI calls, where measured
};

// Expands one rank, charging its cursor set-up (one step per event) and its calls to `budget`.
RankSummary summarizeRank(const Trace& trace, Rank rank, ExpansionBudget& budget, const std::string& fileName = "<trace>");
// Refuses up front (InputError) a trace whose ranks alone would spend the budget: setting up
// one cursor per rank costs one step per event, whatever the rank then does.
void requireRankBudget(const Trace& trace, const ExpansionBudget& budget);
// Expands every rank in order and hands each summary to `sink`; keeps nothing per rank, so
// memory does not grow with the number of ranks. Throws InputError on a trace whose loops do
// not fit or whose expansion exceeds `budget` steps.
void forEachRankSummary(const Trace& trace, const std::string& fileName, const std::function<void(const RankSummary&)>& sink,
                        std::int64_t budget = kExpansionBudget);
// Expands every rank; throws InputError on a trace whose loops do not fit or that exceeds the
// budget.
std::vector<RankSummary> summarizeRanks(const Trace& trace, const std::string& fileName = "<trace>",
                                        std::int64_t budget = kExpansionBudget);

struct TraceSummary {
  Rank ranks = 0;
  std::size_t events = 0;
  std::size_t loops = 0;       // loop levels over all events
  std::size_t loopHeads = 0;   // events that head at least one loop
  std::map<std::string, std::int64_t> eventOps;  // events (blocks) per operation
  std::map<std::string, std::int64_t> callOps;   // calls over all ranks per operation
  std::int64_t calls = 0;
  double computeUs = 0;
  double computeKinst = 0;
  std::vector<RankSummary> perRank;  // empty unless asked for (keepPerRank)
};

// Totals over all ranks; with keepPerRank, also every rank's summary (memory in proportion to
// the ranks: callers that print per-rank rows stream them with forEachRankSummary instead).
TraceSummary summarizeTrace(const Trace& trace, const std::string& fileName = "<trace>", bool keepPerRank = true,
                            std::int64_t budget = kExpansionBudget);

}  // namespace tracegen
