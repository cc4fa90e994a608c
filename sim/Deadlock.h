// The simulator's report of a program that cannot complete (sim/Deadlock.cpp: the blocked
// ranks, what each waits for and the wait-for cycle).
#pragma once

#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/RankList.h"

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

}  // namespace tracegen
