// Position classes that no input shows, composed from the ones the inputs do show, with
// per-direction neighbour predicates (as ScalaExtrap reasons about stencil codes).
//
// Inputs recorded at 2x2 and 2x4 never show a rank with a neighbour on both sides in x, yet the
// 4x4 target has four of them. Such a rank sends and receives what its neighbours on either
// side in x do, in the union of their directions: its behaviour follows from one predicate per
// grid direction, "the rank has a neighbour there", which the shown classes pin down.
//
// Algorithm, per class c that no input shows, once the shown classes have been extrapolated to
// the target (so every value below is the target's):
//  1. Directions. An event whose relative peers are grid neighbours for every class that makes
//     it is a *neighbour event*: each execution's peers form a token (the directions, and which
//     occurrence of them in the class's list it is). Over the shown classes the event uses a set
//     D of tokens, and each shown class must use exactly the tokens of D whose neighbours it has
//     (checked; a code that skips a neighbour it has is not composed). Class c then makes the
//     tokens of D whose neighbours it has, in the order the shown classes put them in (a
//     partial order, closed transitively). Two tokens that differ only in the sign of one
//     dimension, which no shown class orders, take the order that opposite directions of another
//     dimension show ("-px before +px, so -1 before +1"); otherwise the order is undetermined
//     and an error. Other parameters of a neighbour event are taken per token: a tag per
//     direction, the same for every class that sends that way. Peers that are MPI_PROC_NULL
//     where a neighbour is missing (a loop over every direction) keep their positions: each
//     position has one direction, MPI_PROC_NULL exactly for the classes without it (checked),
//     and c gets the neighbour where it has one.
//  2. Membership of the other events, and whether c has a loop level, by the grid lattice: the
//     classes F and L that differ from c only in a dimension d where c is interior (first and
//     last in d; each shown or already composed). Both make it: c does; neither: c does not; one
//     only (rank 0's extra call, a column root's): c does not, the event belongs to that edge.
//  3. Values that are the same for every shown class that has them stay. Values that differ are
//     fitted exactly, a + b * f, by the class's feature f: its number of grid neighbours over
//     the trace (a Waitall's count, 2 per neighbour) or its number of tokens in the event (a
//     loop over the neighbours); lists that change length are progressions fitted the same way.
//     A value neither explains is an error. Loop body lengths (`mem`) are counted: the events c
//     makes within the trace range the shown classes' bodies span.
// The result adds c's block to every group of the trace, so the output reads as if an input had
// shown c; classes interior in several dimensions are composed from ones composed before.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "extrap/topology/Grid.h"
#include "ir/Trace.h"

namespace tracegen::extrap {

struct CompositionInput {
  Grid target;
  std::vector<RankList> classRanks;  // per class of the target grid (empty: the grid has none)
  std::vector<bool> shown;           // per class: some input shows it; its values are in the trace
  std::array<bool, 3> periodic{false, false, false};
};

struct CompositionResult {
  std::vector<int> composed;                   // the classes added, in the order they were composed
  std::vector<std::string> explanation;        // one line per composed class and per inferred order
  std::map<std::string, std::int64_t> stats;   // counters (--stats)
};

// Why a class could not be composed: the event (index into the trace's events; npos for none)
// and what the shown classes leave open.
struct CompositionError {
  std::size_t event;
  int cls;
  std::string message;
};

// Adds every class of the target that is not shown to the events of `trace` (the target's trace,
// whose groups are unions of the shown classes' blocks). Throws CompositionError.
CompositionResult composeUnshownClasses(Trace& trace, const CompositionInput& in);

// A scalar list reduced to its shortest period ([5 5] is [5]; lists are consumed cyclically).
std::vector<std::int64_t> shortestPeriod(const std::vector<std::int64_t>& v);

}  // namespace tracegen::extrap
