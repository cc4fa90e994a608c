// The hypercube relation: recursive doubling's partner rank XOR 2^k within a row of the grid.
#pragma once

#include "extrap/topology/PeerRelation.h"

namespace tracegen::extrap {

// Step k of a rank's list is the rank whose row coordinate differs in bit k alone, for k = 0 ..
// log2(px) - 1: the butterfly of a row of px = 2^n ranks (NPB CG's row sums). In 1-D the row is
// every rank.
class HypercubeRelation final : public ArithmeticRelation {
 public:
  gen::GridRelation kind() const override { return gen::GridRelation::RowXor; }
};

// log2(n) for a power of two n >= 2; -1 otherwise.
int exactLog2(Rank n);

}  // namespace tracegen::extrap
