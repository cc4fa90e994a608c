// Process topology for extrapolation: the grid a trace's ranks form and its position classes.
//
// An SPMD application that decomposes its domain on a 1-, 2- or 3-D grid of processes makes
// ranks that sit alike on the grid behave alike: per dimension a rank is first (coordinate 0),
// interior or last (coordinate n-1), so 3 classes in 1-D, 9 in 2-D and 27 in 3-D. Ranks are
// numbered with x fastest, rank = x + px*(y + py*z). A class is a block of the grid, so its
// ranklist is one RankList tuple whatever the rank count. The grid of a rank count is chosen as
// MPI_Dims_create chooses it (as balanced as possible; extents ascending with x the smallest,
// which for 2-D is the samples' "px = largest divisor of P not above sqrt(P)"), unless given.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "extrap/ScalingModel.h"
#include "gen/GridStep.h"
#include "ir/RankList.h"

namespace tracegen::extrap {

struct Grid {
  int dims = 1;                         // 1, 2 or 3
  std::array<Rank, 3> ext{1, 1, 1};     // px (fastest), py, pz; 1 beyond dims
  Rank size() const { return ext[0] * ext[1] * ext[2]; }
  Scale scale() const { return Scale{size(), {ext[0], ext[1], ext[2]}}; }
  std::string str() const;  // "64", "8x8", "4x4x4"
  std::array<Rank, 3> coords(Rank r) const;
  Rank rankOf(const std::array<Rank, 3>& c) const { return c[0] + ext[0] * (c[1] + ext[1] * c[2]); }
  bool operator==(const Grid&) const = default;
};

// The balanced factorisation of p into `dims` extents, ascending (x smallest), or descending
// (x largest: codes that number ranks along the longer side, as NPB CG lays out nprows x
// ncols with ncols >= nrows and the column index fastest).
Grid defaultGrid(Rank p, int dims, bool descending = false);
// "8x8" or "4x4x4" or "64"; nullopt (and why in `problem`) when malformed.
std::optional<Grid> parseGrid(std::string_view text, std::string& problem);

// Position classes: index = sum over used dims of pos_k * 3^k, pos 0 first, 1 interior, 2 last.
enum Position : int { kFirst = 0, kInterior = 1, kLast = 2 };
int classCount(int dims);
Position classPosition(int cls, int dim);
std::string className(int dims, int cls);  // "x:first y:interior"; "all" in 0-D
// The ranks of a class: a block, empty where the grid has no such position (interior of an
// extent 2). Extents must be at least 2 in every used dimension.
RankList classRanks(const Grid& g, int cls);
// The first and last rank of a (non-empty) class.
Rank classFirst(const Grid& g, int cls);
Rank classLast(const Grid& g, int cls);
// A step from a rank to a grid neighbour: per dimension -1, 0 or +1, and whether it wraps
// around the grid's edge (the ring's left neighbour of rank 0 is P-1). The scale-free
// benchmark's peers are the same steps (gen/Program.h).
using Direction = gen::GridStep;
// The step from rank `from` to rank `to` on g; nullopt when `to` is no neighbour of `from`.
std::optional<Direction> stepBetween(const Grid& g, Rank from, Rank to);
// The direction of a relative peer, stored as (peer - rank + P) mod P, from the ranks of class
// `cls` (the same at its first and last rank); nullopt when it is no grid neighbour.
std::optional<Direction> peerDirection(const Grid& g, int cls, std::int64_t stored);
// Every direction that gives the ranks of class `cls` that relative peer, the one peerDirection
// gives first (steps within the grid before wrapping ones). Extents of 1 and 2 make several: at
// py = 2 the neighbour at y + 1 is also the one at y - 1 across the periodic boundary, which is
// the direction another scale, with py = 4, tells apart. Empty when it is no grid neighbour.
std::vector<Direction> peerDirections(const Grid& g, int cls, std::int64_t stored);
// The stored relative peer of the neighbour in direction `dir` of the ranks of class `cls`
// (the wrap flags are not needed: the step is taken modulo the extents).
std::int64_t storedOffset(const Grid& g, int cls, const Direction& dir);
// "+px", "-1", "+1 (wrapping)", "+1-px" (a diagonal); "0" for no step.
std::string directionStr(const Direction& dir);

// The smallest rank count up to `limit`, not in `exclude`, whose default grid has the class.
std::optional<Grid> smallestGridWith(int dims, int cls, Rank limit, const std::vector<Rank>& exclude,
                                     bool descending = false);

}  // namespace tracegen::extrap
