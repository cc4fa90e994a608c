// The communication of a whole trace, analysed on its compressed form: rank classes, the
// message channels between them, the order of collectives, and whether the program can
// deadlock. Used by the check-communication pass (proof or fallback to simulation), by
// resolve-wildcards (senders that only one rank can be) and by the verifier. See
// CommunicationAnalysis.cpp for the algorithm.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/RankClasses.h"
#include "ir/Trace.h"

namespace tracegen {

struct CommunicationVerdict {
  enum class Kind {
    Proved,     // every message matched, every collective sequence agrees, no wait cycle
    Undecided,  // the analysis could not decide (reason says why): simulate
  };
  Kind kind = Kind::Undecided;
  std::string reason;  // why undecided
  // A problem the analysis is sure of (a receive no rank sends to, collectives called in
  // different orders), reported if the simulation that would describe it cannot be afforded.
  std::string definiteProblem;
  // Every point-to-point channel matches iteration by iteration (each loop's k-th iteration
  // on a sender pairs with the k-th on the receiver), so every loop may be folded to a few
  // iterations for a simulation without changing whether the program completes.
  bool channelsAligned = false;
  // Messages sent that no receive takes, each at the input line of its send.
  struct Warning {
    int line = 0;
    std::string text;
  };
  std::vector<Warning> warnings;
  std::int64_t classes = 0;
  std::int64_t channels = 0;            // (class, direction, communicator, offset, tag) sequences
  std::int64_t collectiveSequences = 0;  // (class, communicator) sequences compared
  std::int64_t graphNodes = 0;          // nodes of the per-class wait-for graph
};

// Decides, per rank class and per loop, whether every point-to-point message is matched and
// the program completes. Throws nothing for undecidable input: says Undecided and why.
CommunicationVerdict analyseCommunication(const Trace& trace);

// Resolves MPI_ANY_SOURCE receives whose sender is forced: in their rank class, every message
// that can reach them (same communicator and tag) comes from one offset, iteration by
// iteration. Rewrites their Source values as that offset; returns the number of (event, rank
// group) pairs resolved. Others are left for the simulation.
std::int64_t resolveForcedWildcards(Trace& trace);

// The trace with every loop running at most `maxIterations` times per entry (for a simulation
// of a trace whose channels are aligned; see CommunicationVerdict::channelsAligned).
Trace foldLoops(const Trace& trace, std::int64_t maxIterations);

}  // namespace tracegen
