// check-communication's simulated run: the communication simulator (Simulation.h) on a trace
// with no wildcard left to resolve, every quiescent point deciding for the earliest-arrived
// message, as resolve-wildcards' first run does.
//
// Algorithm. simulateCommunication runs the trace once, whole, and reports a run that does not
// complete as the user's error (DeadlockError, or ProgramError for unmatched receives).
// simulateCommunicationFolded first runs it with its closed time-step loops folded
// (LoopFolding.cpp, foldWhileClosed): a folded run that completes with no exchange across an
// iteration stands for the whole program; otherwise the caller runs the whole program.
#include "sim/SimulateCommunication.h"

#include <algorithm>
#include <exception>
#include <set>
#include <utility>
#include <vector>

#include "sim/LoopFolding.h"
#include "sim/Simulation.h"

namespace tracegen {

SimulationResult simulateCommunication(const Trace& trace, const std::string& fileName, std::int64_t callBudget) {
  using sim::Failure, sim::RecordedMatches, sim::Simulation, sim::recordedMatches, sim::unreceivedText;
  const std::vector<char> noWildcards(trace.events.size(), 0);
  Simulation sim(trace, fileName, noWildcards, callBudget);
  const RecordedMatches recorded = recordedMatches(trace, fileName);  // cancelled receives complete at once
  sim.useRecording(&recorded, false);
  SimulationResult result;
  const auto outcome = sim.run();
  result.calls = sim.callsSimulated();
  if (outcome == Simulation::Outcome::OutOfBudget) {
    result.outOfBudget = true;
    return result;
  }
  if (outcome != Simulation::Outcome::Completed) {
    const Failure& f = sim.failure();
    if (f.deadlock) throw DeadlockError(f.message, f.blocked, f.cycle, fileName, f.line);
    throw ProgramError(fileName, f.line, f.message);
  }
  result.unreceived = unreceivedText(sim, result.unreceivedLine);
  result.sizeMismatches = sim.sizeMismatches();
  return result;
}

std::optional<SimulationResult> simulateCommunicationFolded(const Trace& trace, const std::string& fileName,
                                                            std::int64_t callBudget,
                                                            std::map<std::int64_t, std::int64_t>& folds) {
  using sim::LoopFold, sim::RecordedMatches, sim::Simulation, sim::foldableLoops, sim::foldsByHead, sim::foldTrace,
      sim::foldWhileClosed, sim::recordedMatches, sim::unreceivedText;
  folds.clear();
  std::vector<LoopFold> candidates;
  try {
    candidates = foldableLoops(trace, fileName);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::vector<char> noWildcards(trace.events.size(), 0);
  std::int64_t calls = 0, attempts = 0;
  auto result = foldWhileClosed<SimulationResult>(candidates, attempts, [&](const std::vector<LoopFold>& fs) {
    const Trace folded = foldTrace(trace, fs);
    Simulation sim(folded, fileName, noWildcards, callBudget < 0 ? -1 : std::max<std::int64_t>(0, callBudget - calls));
    const RecordedMatches recorded = recordedMatches(folded, fileName);
    sim.useRecording(&recorded, false);
    sim.checkPhases(foldsByHead(fs, trace.events.size()));
    const auto outcome = sim.run();
    calls += sim.callsSimulated();
    std::optional<std::pair<SimulationResult, std::set<std::int64_t>>> out;
    if (outcome == Simulation::Outcome::Completed) {
      SimulationResult r;
      r.calls = calls;
      r.unreceived = unreceivedText(sim, r.unreceivedLine);
      r.sizeMismatches = sim.sizeMismatches();
      out.emplace(std::move(r), sim.brokenLoops());
    }
    return out;
  });
  if (result)
    for (const auto& f : candidates) folds[trace.events[f.head].id] = f.folded;
  return result;
}

}  // namespace tracegen
