// One simulated run of a whole trace, for check-communication: the communication simulator
// (sim/Simulation.h) with no wildcard to resolve, whole or with its closed time-step loops
// folded (sim/LoopFolding.h).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/Trace.h"
#include "sim/Deadlock.h"

namespace tracegen {

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

// The same run with the trace's closed time-step loops folded (the simulator's folding,
// sim/LoopFolding.cpp): the result of a folded run that completed at once and in which no
// message, request or collective crossed an iteration, so that it stands for the whole
// program; nullopt when no loop folds so. `folds` receives the loops folded (head event id ->
// iterations simulated). Throws nothing for the program's own problems: the whole program's
// run reports them.
std::optional<SimulationResult> simulateCommunicationFolded(const Trace& trace, const std::string& fileName,
                                                            std::int64_t callBudget,
                                                            std::map<std::int64_t, std::int64_t>& folds);

}  // namespace tracegen
