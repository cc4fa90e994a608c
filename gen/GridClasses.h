// The position classes of a scale-free program's process grid (gen/Program.h, ScaleFreeGrid) as
// conditions a backend can spell: a set of classes becomes a union of boxes, each box a set of
// positions per dimension (first, interior, last), so that `x == 0 || x == px - 1` and
// `y > 0` are written rather than nine class tests.
//
// Algorithm: every box (per dimension a non-empty subset of the three positions: 7^dims of them)
// that holds only classes of the set is a candidate; boxes are taken greedily, each time the one
// that covers the most classes not yet covered, until every class of the set is. The greedy
// cover is not always the smallest, but it is deterministic and small for the sets the
// traversal makes (unions of a few blocks).
#pragma once

#include <array>
#include <vector>

#include "ir/RankList.h"

namespace tracegen::gen {

// Per dimension the positions a box holds, as bits: 1 first, 2 interior, 4 last (7: any).
enum PositionBits : int { kFirstBit = 1, kInteriorBit = 2, kLastBit = 4, kAnyPosition = 7 };
using ClassBox = std::array<int, 3>;

// The boxes whose union is exactly the classes in `classes` (class index = sum of pos_d * 3^d,
// Program::scaleFree), for a grid of `dims` dimensions; dimensions beyond `dims` are
// kAnyPosition. Empty for an empty set.
std::vector<ClassBox> classBoxes(const RankList& classes, int dims);

}  // namespace tracegen::gen
