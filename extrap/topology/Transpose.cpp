// The transpose relation. A solver that distributes a matrix over nprows x npcols ranks (NPB CG,
// npcols = nprows or 2 * nprows, the column index fastest) turns the row sums of a product into
// the next product's column blocks by exchanging with the rank that holds the transposed block.
// With h = px / py column blocks per row block, rank (x, y) owns row block y and column block
// x; column block x lies in row block x div h, at part x mod h of it, so its partner is
// (h * y + x mod h, x div h). On a square grid that is (y, x): the diagonal exchanges with
// itself (stored 0). The offset to the partner, (px - h) * (x div h - y), differs along every
// diagonal, so the ranks of a position class have partners of their own; the relation gives
// each rank its partner at any 2-D grid whose x extent is a multiple of its y extent. The
// arithmetic is gen/GridRelation.cpp's, which scale-free benchmarks compute at run time.
#include "extrap/topology/Transpose.h"

namespace tracegen::extrap {

Rank TransposeRelation::partner(const Grid& g, Rank r) {
  return gen::relationPeer(gen::GridRelation::Transpose, g.dims, g.ext, r, 0);
}

}  // namespace tracegen::extrap
