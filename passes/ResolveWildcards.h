// resolve-wildcards: gives every MPI_ANY_SOURCE receive the sender it matches, or reports a
// potential deadlock. See ResolveWildcards.cpp for the algorithm.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/RankList.h"
#include "passes/Pass.h"

namespace tracegen {

// The simulated execution stopped with ranks that cannot progress. what() starts with
// `potential deadlock:`, then one line per blocked rank (the event, operation, call site and
// peer it waits for), the wait-for cycle (`cycle: rank 0 -> rank 1 -> rank 0`) and how the
// search for another matching of the wildcard receives ended.
class DeadlockError : public ProgramError {
 public:
  DeadlockError(const std::string& message, std::vector<Rank> blocked, std::vector<Rank> cycle,
                std::string file = {}, int line = 0)
      : ProgramError(std::move(file), line, message), blocked_(std::move(blocked)), cycle_(std::move(cycle)) {}

  // Ranks that could not progress, ascending.
  const std::vector<Rank>& blocked() const { return blocked_; }
  // A cycle of the wait-for graph starting at its lowest rank, which is repeated at the end;
  // empty when the blocked ranks only wait for ranks that have finished.
  const std::vector<Rank>& cycle() const { return cycle_; }

 private:
  std::vector<Rank> blocked_;
  std::vector<Rank> cycle_;
};

// True if the event is a receive or blocking probe whose source is still MPI_ANY_SOURCE: what
// resolve-wildcards resolves (MPI_Iprobe and persistent receives keep their wildcards).
bool hasUnresolvedWildcard(const Event& e);

class ResolveWildcardsPass : public Pass {
 public:
  std::string_view name() const override { return "resolve-wildcards"; }
  std::string_view description() const override {
    return "MPI_ANY_SOURCE receives get the sender they match in a simulated run; potential deadlocks are errors";
  }
  // Throws DeadlockError when no matching of the wildcard receives lets every rank finish,
  // ProgramError when every rank finishes but a receive is never matched, InputError for
  // peers or communicators the trace cannot describe.
  void run(Trace& trace, PassContext& ctx) override;
  // Also establishes communication-checked: the run that resolved the wildcards simulated the
  // whole program to completion.
  // Rewriting sources regroups ranks: the rank sets change.
  IrProperties requiredProperties() const override { return {IrProperty::CommsResolved}; }
  IrProperties establishedProperties() const override { return {IrProperty::WildcardsResolved}; }
  IrProperties preservedProperties() const override { return {IrProperty::CommsResolved, IrProperty::CollectivesAligned, IrProperty::TimingSummarized}; }
};

std::unique_ptr<Pass> createResolveWildcardsPass();

// One simulated run of a trace whose receives name their senders (no wildcard left): every
// rank advances until it blocks, as in resolve-wildcards. Throws DeadlockError if ranks block
// for ever (including collectives called in different orders), ProgramError if every rank
// finishes but receives stay unmatched. Stops after `callBudget` calls (negative: no limit).
struct SimulationResult {
  std::int64_t calls = 0;
  bool outOfBudget = false;
  std::string unreceived;  // messages no receive took, or empty
  int unreceivedLine = 0;  // the input line of the first of them
  std::int64_t sizeMismatches = 0;  // receives that took a message of another size than they post
};
SimulationResult simulateCommunication(const Trace& trace, const std::string& fileName, std::int64_t callBudget);

// The trace with the outermost loops that `folds` names (head event id -> iterations) running
// at most that many iterations: what a folded run simulates (PassContext::closedLoopFolds).
Trace foldClosedLoops(const Trace& trace, const std::map<std::int64_t, std::int64_t>& folds);

// The same run with the trace's closed time-step loops folded (resolve-wildcards' folding,
// ResolveWildcards.cpp): the result of a folded run that completed at once and in which no
// message, request or collective crossed an iteration, so that it stands for the whole
// program; nullopt when no loop folds so. `folds` receives the loops folded (head event id ->
// iterations simulated). Throws nothing for the program's own problems: the whole program's
// run reports them.
std::optional<SimulationResult> simulateCommunicationFolded(const Trace& trace, const std::string& fileName,
                                                            std::int64_t callBudget,
                                                            std::map<std::int64_t, std::int64_t>& folds);

}  // namespace tracegen
