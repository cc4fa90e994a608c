// rank-ranges: every rank set as the shortest exact shape (ir/RankShape.h).
//
// Every rank set of a trace (event ranks, value groups, loop groups, communicator instances)
// is a RankList: a union of nested regular sections. Backends have to name such sets — as a
// coNCePTuaL task description (`tasks t such that t MOD 2 = 1 /\ t < 8`) or as a C condition
// on the MPI rank (`rank % 2 == 1 && rank < 8`) — and the shortest exact wording is what makes
// a generated benchmark readable. rankShape() derives the kind of the set and a predicate
// over the rank from the tuples alone (a million-rank grid block costs a handful of integer
// operations); see RankRanges.cpp for the algorithm. The backends spell shapes with
// gen/RankSetText.h.
#pragma once

#include <memory>
#include <string_view>

#include "ir/RankList.h"
#include "ir/RankShape.h"
#include "ir/Trace.h"
#include "passes/Pass.h"

namespace tracegen {

// The simplest exact shape of `ranks` among the tasks 0 … numRanks-1 (ranks must lie in that
// range, else std::invalid_argument; numRanks is raised to last+1 if it is smaller). Kinds,
// with the predicate in IR text:
//   all          every rank                  true
//   one          one rank                    rank = 5
//   progression  one arithmetic progression  rank mod 2 = 1 and rank < 8
//   block        one 2-D/3-D/… section       rank mod 4 >= 1 and rank mod 4 < 3 and rank >= 4 and rank < 12
//   list         two or more lone ranks      (rank = 3 or rank = 7 or rank = 20)
//   union        any other union of the above, as a disjunction
//   complement   all ranks but one section or a few lone ranks, when that is smaller:
//                rank != 5
//   empty        no rank                     false
// "Smaller" is RankPred::size(). The shape's parts are the sections of the direct form.
RankShape rankShape(const RankList& ranks, Rank numRanks);

// Interleaved sections that make up one progression (evens and odds below 8) as that
// progression; any other list unchanged.
RankList canonicalRanks(const RankList& list);

// Fills trace.rankShapes for every distinct rank set of the trace, keyed by RankList::str().
class RankRangesPass : public Pass {
 public:
  std::string_view name() const override { return "rank-ranges"; }
  std::string_view description() const override {
    return "find every rank set's shortest exact shape (kind and predicate over the rank)";
  }
  void run(Trace& trace, PassContext& ctx) override;
  IrProperties requiredProperties() const override { return {}; }
  IrProperties establishedProperties() const override { return {IrProperty::RankSetsNamed}; }
  IrProperties preservedProperties() const override { return IrProperties::all(); }
};

std::unique_ptr<Pass> createRankRangesPass();

}  // namespace tracegen
