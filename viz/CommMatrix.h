// What the pictures of `tracegen inspect --matrix` and `--time-plot` show, as numbers: computed
// on the compressed trace, once per rank class (ir/Summary.h), kept apart from the drawing
// (viz/Draw.h) so that tests check the figures, not pixels.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ir/Limits.h"
#include "ir/Trace.h"

namespace tracegen {

// Up to this many ranks the matrix has a row and a column per rank; above, ranks are
// aggregated into consecutive blocks so that there are at most kMatrixMaxBlocks of them.
constexpr Rank kMatrixFullRanks = 256;
constexpr Rank kMatrixMaxBlocks = 128;

// The ranks per block for a trace of `ranks` ranks: 1 up to kMatrixFullRanks, else the
// smallest size giving at most kMatrixMaxBlocks blocks.
Rank matrixBlockSize(Rank ranks);

struct CommMatrix {
  Rank ranks = 0;
  Rank blockSize = 1;
  Rank blocks = 0;
  // Point-to-point payload, blocks x blocks, row-major: [sender block][receiver block]. Sends
  // (blocking, nonblocking, persistent starts, the send half of MPI_Sendrecv) count from the
  // sender to its destination; MPI_Put and MPI_Accumulate from the origin to the target;
  // MPI_Get from the target to the origin. Byte sums saturate at 2^63-1.
  std::vector<std::int64_t> p2p;
  // Collective payload (blocking and nonblocking, not the neighbourhood ones) each block's
  // ranks contribute, per block.
  std::vector<std::int64_t> collective;
  // Bytes that have no place in the matrix: peers in the numbering of a communicator the trace
  // does not describe, and neighbourhood collectives (whose peers come from a topology).
  std::int64_t unplacedBytes = 0;
  std::int64_t neighborBytes = 0;

  std::int64_t cell(Rank senderBlock, Rank receiverBlock) const {
    return p2p[static_cast<std::size_t>(senderBlock) * static_cast<std::size_t>(blocks) + static_cast<std::size_t>(receiverBlock)];
  }
};

// The matrix of a trace, with `blockSize` ranks per block (0: matrixBlockSize). One walk of a
// representative rank per rank class, loops multiplied by their trip counts; each class's
// flows go to its members by peer offset (relative peers) or as they are (absolute peers).
// Throws InputError when the walks exceed `budget` steps or the loops do not fit.
CommMatrix computeCommMatrix(const Trace& trace, const std::string& fileName = "<trace>", Rank blockSize = 0,
                             std::int64_t budget = kExpansionBudget);

// Per-rank times for `--time-plot`, per block of ranks as the matrix's: the mean over the
// block's ranks of compute time and time in MPI calls (microseconds where the trace measures
// them; thousands of instructions for compute of time-independent traces), and the slowest
// rank (largest compute + MPI).
struct RankTimes {
  Rank ranks = 0;
  Rank blockSize = 1;
  Rank blocks = 0;
  bool instructions = false;  // compute is in thousands of instructions; MPI time is left out
  bool mpiLeftOut = false;    // the trace measures MPI time, which does not stack on instructions
  std::vector<double> compute, mpi;  // per block, means over its ranks
  Rank slowest = -1;
  double slowestCompute = 0, slowestMpi = 0;
  double fastestTotal = 0;  // the least compute + MPI of any rank
};
RankTimes computeRankTimes(const Trace& trace, const std::string& fileName = "<trace>", Rank blockSize = 0,
                           std::int64_t budget = kExpansionBudget);

}  // namespace tracegen
