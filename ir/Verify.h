// Structural checks of a trace, shared by the readers and the pass manager's verifier.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

// Checks what every well-formed trace satisfies: ranklists within [0, P), parameter groups
// partitioning their event's ranks, datatypes and communicators that exist, and loops that
// fit each rank's own event sequence (a body never runs past the events the rank has, nor an
// inner loop past its enclosing body). The loop check walks each rank's compressed trace
// without expanding it: rank by rank up to `maxRanksChecked` ranks, above that once per rank
// class (ir/RankClasses.h: ranks with the same events and loop groups walk the same way), so
// every rank is checked at every scale. Throws InputError.
void verifyStructure(const Trace& trace, const std::string& fileName, Rank maxRanksChecked = 4096);

// Where the parts of each event were read from, so that diagnostics name the offending line
// rather than the event's first one. Indexed by position in trace.events; a missing entry
// falls back to Event::line.
struct EventLines {
  std::vector<std::vector<int>> loops;        // [event][level]: line of LOOP<level>
  std::vector<std::map<Param, int>> params;   // [event]: first line of each parameter
  int loopLine(std::size_t event, std::size_t level, int fallback) const;
  int paramLine(std::size_t event, Param p, int fallback) const;
};
void verifyStructure(const Trace& trace, const std::string& fileName, Rank maxRanksChecked, const EventLines& lines);

}  // namespace tracegen
