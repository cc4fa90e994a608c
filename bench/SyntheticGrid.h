// Pieces shared by the synthetic grid traces (SyntheticStencil, SyntheticWavefront).
#pragma once

#include <cstdint>

#include "ir/Trace.h"

namespace tracegen::synthetic {

// Columns col0..col0+cols-1 of rows row0..row0+rows-1 of a grid px ranks wide.
inline RankList block(Rank px, Rank col0, Rank cols, Rank row0, Rank rows) {
  if (cols <= 0 || rows <= 0) return RankList();
  return RankList({RankTuple{row0 * px + col0, {{cols, 1}, {rows, px}}}});
}

// A time histogram of n samples around `mean` (two bins, 0.9-1.1 x mean), as a tracer writes one.
inline Histogram histogram(double mean, std::int64_t n, Rank rank) {
  Histogram h;
  h.n = n;
  h.avg = mean;
  h.minRank = rank;
  h.min = mean * 0.9;
  h.maxRank = rank;
  h.max = mean * 1.1;
  h.bins = {{0, mean * 0.9, mean * 0.95, mean, mean, n / 2}, {mean, mean, mean * 1.05, mean * 1.1, mean * 2, n - n / 2}};
  return h;
}

}  // namespace tracegen::synthetic
