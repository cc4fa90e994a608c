// Per-rank figures of a trace, computed by expanding each rank with its own RankCursor:
// what `tracegen inspect --per-rank` prints and what `tracegen compare` and the end-to-end
// tests check a benchmark against.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

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

// Expands every rank; throws InputError on a trace whose loops do not fit.
std::vector<RankSummary> summarizeRanks(const Trace& trace, const std::string& fileName = "<trace>");

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
  std::vector<RankSummary> perRank;
};

TraceSummary summarizeTrace(const Trace& trace, const std::string& fileName = "<trace>");

}  // namespace tracegen
