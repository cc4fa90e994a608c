// Loop folding for the communication simulator (sim/LoopFolding.cpp): the closed time-step
// loops of a trace run a few iterations instead of all, and the folded run stands for the whole
// program when nothing crosses an iteration. Used by resolve-wildcards and check-communication.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

// The trace with the outermost loops that `folds` names (head event id -> iterations) running
// at most that many iterations: what a folded run simulates (PassContext::closedLoopFolds).
Trace foldClosedLoops(const Trace& trace, const std::map<std::int64_t, std::int64_t>& folds);

namespace sim {

// An outermost loop folded for the simulation (see foldableLoops).
struct LoopFold {
  std::size_t head = 0;        // index of the event heading the loop (its loops[0])
  std::int64_t iterations = 0;  // the trip count, the same on every rank
  std::int64_t folded = 0;      // K
};

// The outermost loops of the trace that fold: closed, regular, the same trip count on every
// rank that runs them, and long enough that folding pays.
std::vector<LoopFold> foldableLoops(const Trace& trace, const std::string& fileName);

// The trace with `folds` folded (foldClosedLoops by head event id).
Trace foldTrace(const Trace& trace, const std::vector<LoopFold>& folds);

// The loops of `folds` by their head's event index (the Simulation's phase table).
std::vector<LoopFold> foldsByHead(const std::vector<LoopFold>& folds, std::size_t events);

// The retry loop of folding, shared by resolve-wildcards and check-communication: `attempt`
// simulates the trace with `folds` folded and gives its result and the loops an exchange
// crossed the iterations of (or nullopt: the folded run did not complete, and the whole
// program's run decides). Those loops are dropped and the rest tried again, so each attempt
// drops one at least. Returns the result of the first attempt that broke none; `folds` are
// then the loops it folded. Whatever an attempt throws is the whole program's run to report.
template <class Result, class Attempt>
std::optional<Result> foldWhileClosed(std::vector<LoopFold>& folds, std::int64_t& attempts, Attempt attempt) {
  while (!folds.empty()) {
    ++attempts;
    std::optional<std::pair<Result, std::set<std::int64_t>>> tried;
    try {
      tried = attempt(folds);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (!tried) return std::nullopt;
    if (tried->second.empty()) return std::move(tried->first);
    const std::set<std::int64_t>& broken = tried->second;
    std::erase_if(folds, [&](const LoopFold& f) { return broken.count(static_cast<std::int64_t>(f.head)) > 0; });
  }
  return std::nullopt;
}

}  // namespace sim
}  // namespace tracegen
