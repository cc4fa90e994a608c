// How a peer relates to a rank where no grid direction of a position class says it.
//
// A grid direction is one step for every rank of a position class (extrap/topology/Grid.h). Some
// codes name their peers by arithmetic on the rank that gives each rank of a class a peer of
// its own: recursive doubling's partner rank XOR 2^k (+1 for an even rank, -1 for an odd one),
// a pairwise exchange's rank XOR i, a matrix transpose's partner (col * ncols + row). Such a peer is a relation: a function of
// the rank and the grid's extents that holds for every rank at every scale, and that the
// extrapolation evaluates at the target for each rank of the event. A relation names a list of
// peers per rank, one per step of the loop the event sits in (XOR 2^0, 2^1, ... over the bits
// of the row), whose length follows the scale; a relation of one step names one peer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "extrap/topology/Grid.h"
#include "gen/GridRelation.h"
#include "ir/Trace.h"

namespace tracegen::extrap {

class PeerRelation {
 public:
  virtual ~PeerRelation() = default;
  // What the relation is, for --explain and errors ("rank XOR 2^k, k = 0 .. log2(px)-1").
  virtual std::string name() const = 0;
  // Whether the relation is defined on grid g (XOR needs a row of a power of two ranks).
  virtual bool definedOn(const Grid& g) const = 0;
  // The number of peers in each rank's list at g: the loop's steps (1: one peer).
  virtual std::size_t steps(const Grid& g) const = 0;
  // The peer of rank r at step k (k < steps(g)), stored relative to r: (peer - r + P) mod P.
  virtual std::int64_t stored(const Grid& g, Rank r, std::size_t k) const = 0;
  // The relation as a scale-free benchmark computes it (gen/GridRelation.h, the one definition
  // both evaluate).
  virtual gen::GridRelation kind() const = 0;
};

// A relation whose arithmetic is gen/GridRelation.h's for kind() (every relation so far): its
// name, domain, steps and peers are that one definition's, which scale-free benchmarks evaluate
// too.
class ArithmeticRelation : public PeerRelation {
 public:
  std::string name() const override;
  bool definedOn(const Grid& g) const override;
  std::size_t steps(const Grid& g) const override;
  std::int64_t stored(const Grid& g, Rank r, std::size_t k) const override;
};

// Every relation the extrapolation tries, in the order tried (extrap/topology/Hypercube.h,
// extrap/topology/CompleteGraph.h, extrap/topology/Transpose.h). On a row of 2 ranks the
// hypercube and the complete graph are one relation (XOR 1); from 4 on they differ.
const std::vector<std::unique_ptr<PeerRelation>>& peerRelations();

// Rank r's list of peers under `rel` at g, reduced to its shortest period (a list consumed
// cyclically, as the trace's value lists are).
std::vector<std::int64_t> relationList(const PeerRelation& rel, const Grid& g, Rank r);

// Whether `rel` gives every rank of every group its list of `values` at g (each list compared
// by its shortest period). Visits every rank of the groups: inputs are small.
bool relationExplains(const PeerRelation& rel, const Grid& g, const std::vector<ValueGroup>& groups);

}  // namespace tracegen::extrap
