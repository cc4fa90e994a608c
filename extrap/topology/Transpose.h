// The transpose relation: the partner that holds the transposed block of a 2-D grid.
#pragma once

#include "extrap/topology/PeerRelation.h"

namespace tracegen::extrap {

// On a px x py grid with px = h * py (h >= 1), rank (x, y) exchanges with rank
// (h * y + x mod h, x div h): on a square grid (x, y) with (y, x), NPB CG's col * ncols + row.
class TransposeRelation final : public ArithmeticRelation {
 public:
  gen::GridRelation kind() const override { return gen::GridRelation::Transpose; }
  // The partner of rank r (an absolute rank).
  static Rank partner(const Grid& g, Rank r);
};

}  // namespace tracegen::extrap
