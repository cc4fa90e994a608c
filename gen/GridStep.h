// A step from a rank to a neighbour on the process grid: the peer of a scale-free benchmark's
// call (gen/Program.h, Expr::GridPeer) and the direction of a relative peer in extrapolation
// (extrap/topology/Grid.h) are this one struct.
#pragma once

#include <array>
#include <compare>

namespace tracegen::gen {

// Per dimension -1, 0 or +1, and whether the step wraps around the grid's edge there
// (periodic: the ring's left neighbour of rank 0 is P-1).
struct GridStep {
  std::array<int, 3> step{0, 0, 0};
  std::array<bool, 3> wrap{false, false, false};
  auto operator<=>(const GridStep&) const = default;
};

}  // namespace tracegen::gen
