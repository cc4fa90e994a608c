// Per-rank figures of a trace, computed by expanding one rank per rank class with a RankCursor:
// what `tracegen inspect --per-rank` prints and what `tracegen compare` and the end-to-end
// tests check a benchmark against.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <queue>
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
  std::int64_t bytesSent = 0;      // point-to-point payload sent, MPI_Put/MPI_Accumulate origin bytes, MPI-IO writes
  std::int64_t bytesReceived = 0;  // point-to-point payload posted to receive, MPI_Get origin bytes, MPI-IO reads
  // Collectives (blocking and nonblocking, not the neighbourhood ones, which count above as the
  // messages they stand for): the payload the rank's calls contribute and post to receive.
  std::int64_t collectiveBytesSent = 0;
  std::int64_t collectiveBytesReceived = 0;
  double computeUs = 0;            // compute time before calls, where measured in microseconds
  double computeKinst = 0;         // compute in thousands of instructions (time-independent traces)
  double mpiUs = 0;                // time inside MPI calls, where measured
};

// Expands one rank directly (no classes), charging its cursor set-up (one step per event) and its calls to `budget`.
RankSummary summarizeRank(const Trace& trace, Rank rank, ExpansionBudget& budget, const std::string& fileName = "<trace>");
// Refuses up front (InputError) a trace with more ranks than the budget has steps: a row per
// rank is one step each.
void requireRankRows(const Trace& trace, const ExpansionBudget& budget);

// The ranks whose summaries are equal (but for the rank number): the rank classes of
// ir/RankClasses.h (same events, loops and parameter values; peers are offsets) refined by
// communicator instances (per-member counts follow the size of the rank's communicator).
// Partition refinement on the rank lists: cost follows the compressed trace, not P.
std::vector<RankList> summaryClasses(const Trace& trace);

// Every rank's summary in rank order, computed once per class (its first rank is expanded)
// and streamed by a heap merge over the classes: expansion costs one rank per class, each row
// one budget step and O(log classes) time; memory does not grow with the ranks.
class RankSummaryStream {
 public:
  RankSummaryStream(const Trace& trace, const std::string& fileName, ExpansionBudget& budget);
  // The next rank's summary (and the index of its class); false after the last rank.
  bool next(RankSummary& out, std::size_t* classIndex = nullptr);
  const std::vector<RankList>& classes() const { return classes_; }
  const RankSummary& classSummary(std::size_t i) const { return summaries_[i]; }

 private:
  ExpansionBudget& budget_;
  int line_;
  std::vector<RankList> classes_;
  std::vector<RankSummary> summaries_;
  std::vector<RankIterator> iterators_;
  std::priority_queue<std::pair<Rank, std::size_t>, std::vector<std::pair<Rank, std::size_t>>, std::greater<>> heap_;
};

// Hands every rank's summary to `sink` in rank order (RankSummaryStream); keeps nothing per
// rank. Throws InputError on a trace whose loops do not fit or whose expansion exceeds
// `budget` steps.
void forEachRankSummary(const Trace& trace, const std::string& fileName, const std::function<void(const RankSummary&)>& sink,
                        std::int64_t budget = kExpansionBudget);
// Every rank's summary; throws InputError on a trace whose loops do not fit or that exceeds
// the budget.
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

// Totals over all ranks, per rank class (cost independent of P); with keepPerRank, also every
// rank's summary (memory in proportion to the ranks: callers that print per-rank rows stream
// them with forEachRankSummary instead).
TraceSummary summarizeTrace(const Trace& trace, const std::string& fileName = "<trace>", bool keepPerRank = true,
                            std::int64_t budget = kExpansionBudget);

}  // namespace tracegen
