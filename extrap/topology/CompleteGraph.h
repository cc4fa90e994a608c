// The complete-graph relation: a pairwise exchange in which every rank of a row meets every
// other rank of it once.
//
// Codes that exchange with every other rank by point-to-point calls rather than MPI_Alltoall
// (hand-written transposes, personalised all-to-alls that overlap computation, the pairwise
// algorithm of MPI libraries themselves) pair the ranks in rounds: in round i = 1 .. P-1 rank r
// meets r XOR i, so both ends of a pair name each other in the same round and no round waits on
// another. (With (r + i) mod P and (r - i) mod P instead, every rank of a round has the same
// relative peers: a list of offsets that counts through the ranks, which the extrapolation fits
// as a progression, no relation.) Stored relative to the rank, the partner r XOR i depends on
// the rank's bits, so the ranks of a position class have lists of their own (at 8 ranks, ranks 0
// and 4 send to +1 .. +7, ranks 1 and 5 to +7 +2 +1 +4 +3 +6 +5): no grid direction. The
// relation gives each rank its list at any grid whose row (x extent; every rank in 1-D) is a
// power of two; its px - 1 steps are the model of the loop's trip count. The arithmetic is
// gen/GridRelation.cpp's, which scale-free benchmarks compute at run time.
#pragma once

#include "extrap/topology/PeerRelation.h"

namespace tracegen::extrap {

// Step k of a rank's list is rank XOR (k + 1), for k = 0 .. px - 2: in a row of px = 2^n ranks
// each step is a perfect matching and the px - 1 steps together join every pair once.
class CompleteGraphRelation final : public ArithmeticRelation {
 public:
  gen::GridRelation kind() const override { return gen::GridRelation::RowPairwise; }
};

}  // namespace tracegen::extrap
