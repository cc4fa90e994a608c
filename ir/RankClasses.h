// Rank classes: the ranks of a trace that run the same compressed program.
#pragma once

#include <vector>

#include "ir/Trace.h"

namespace tracegen {

// Partition of the ranks by every rank list that shapes a rank's compressed trace: the event
// lists and the loop groups (iteration counts, body lengths) and, with `byParameters`, the
// parameter value groups. Ranks of one class have the same events, loops (and values), so one
// representative (the first rank) stands for the class. Partition refinement on the rank
// lists: its cost follows the lists' tuples, not the rank count. Sorted by first rank.
std::vector<RankList> rankClasses(const Trace& trace, bool byParameters = true);

// One refinement step: splits every class that `by` cuts into its parts inside and outside.
void refinePartition(std::vector<RankList>& classes, const RankList& by);

}  // namespace tracegen
