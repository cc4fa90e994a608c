// The hypercube relation. A row of px = 2^n ranks (x fastest: rank = x + px * rest) is an
// n-dimensional hypercube in its x coordinate's bits; recursive doubling pairs a rank with the
// rank across dimension k of that cube at step k, so the partner is rank XOR 2^k (x's bit k is
// the rank's bit k, px being a power of two), and the steps run over every bit: log2(px) of
// them. Stored relative to the rank, the partner is +2^k where the bit is clear and -2^k where
// it is set: a rank's list depends on x's bits, which cut across the grid's position classes
// (x:interior holds ranks of either parity), so it is no grid direction. The relation gives
// each rank its list at any grid whose x extent is a power of two; the step count, log2(px), is
// the model of the loop's trip count (and of any list with one value per step). The arithmetic
// is gen/GridRelation.cpp's, which scale-free benchmarks compute at run time.
#include "extrap/topology/Hypercube.h"

namespace tracegen::extrap {

int exactLog2(Rank n) {
  if (n < 2 || (n & (n - 1)) != 0) return -1;
  int l = 0;
  while ((Rank{1} << l) < n) ++l;
  return l;
}

}  // namespace tracegen::extrap
