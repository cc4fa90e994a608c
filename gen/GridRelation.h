// A peer named by arithmetic on the rank and the grid's extents: the peer of a scale-free
// benchmark's call (gen/Program.h, Expr::RelationPeer) where no grid step gives it, and the
// relation extrapolation finds in the traces (extrap/topology/PeerRelation.h) are this one
// definition, so that the benchmark computes at run time the peers the extrapolation checked
// against the recordings.
//
// The relations are those of codes that pair ranks by their bits or by a transposed block (NPB
// CG's row sums and transpose exchange, hand-written all-to-all exchanges); each has a domain (the grids it is defined on), which
// a scale-free benchmark checks before it communicates, and a number of steps at a grid (the
// peers a rank names in turn, one per trip of the loop the call sits in).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace tracegen::gen {

enum class GridRelation : std::uint8_t {
  // Step k: rank XOR 2^k for k = 0 .. log2(px)-1 (recursive doubling within a row of px = 2^n
  // ranks, x fastest, so bit k of the rank is bit k of x). In 1-D the row is every rank.
  RowXor,
  // Step k: rank XOR (k + 1) for k = 0 .. px-2 (a pairwise exchange: each rank of a row of px =
  // 2^n ranks meets every other once, a complete graph whose step k is a perfect matching).
  RowPairwise,
  // One step: (h * y + x mod h, x div h) with h = px / py, on a 2-D grid whose px is a multiple
  // of py (on a square grid (y, x)).
  Transpose,
};

std::string_view relationName(GridRelation rel);  // for --explain and errors

// Whether the relation is defined on a `dims`-D grid of extents ext (ext[d] = 1 beyond dims).
bool relationDefinedOn(GridRelation rel, int dims, const std::array<std::int64_t, 3>& ext);
// The number of steps (peers in a rank's list) there; 0 where it is not defined.
std::int64_t relationSteps(GridRelation rel, int dims, const std::array<std::int64_t, 3>& ext);
// The absolute peer of rank r at step k (0 <= k < relationSteps) on a grid where it is defined.
std::int64_t relationPeer(GridRelation rel, int dims, const std::array<std::int64_t, 3>& ext, std::int64_t r,
                          std::int64_t k);

}  // namespace tracegen::gen
