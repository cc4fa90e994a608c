// Position classes as boxes (gen/GridClasses.h has the algorithm).
#include "gen/GridClasses.h"

namespace tracegen::gen {

namespace {

int positionOf(int cls, int d) {
  for (int k = 0; k < d; ++k) cls /= 3;
  return cls % 3;
}

bool inBox(const ClassBox& box, int cls, int dims) {
  for (int d = 0; d < dims; ++d)
    if (!(box[static_cast<std::size_t>(d)] >> positionOf(cls, d) & 1)) return false;
  return true;
}

}  // namespace

std::vector<ClassBox> classBoxes(const RankList& classes, int dims) {
  int nc = 1;
  for (int d = 0; d < dims; ++d) nc *= 3;
  std::vector<ClassBox> candidates;
  int combos = 1;
  for (int d = 0; d < dims; ++d) combos *= 7;
  for (int k = 0; k < combos; ++k) {
    ClassBox box{kAnyPosition, kAnyPosition, kAnyPosition};
    int r = k;
    for (int d = 0; d < dims; ++d) box[static_cast<std::size_t>(d)] = r % 7 + 1, r /= 7;
    bool inside = true;
    for (int c = 0; c < nc && inside; ++c) inside = !inBox(box, c, dims) || classes.contains(c);
    if (inside) candidates.push_back(box);
  }
  std::vector<bool> covered(static_cast<std::size_t>(nc), false);
  std::vector<ClassBox> out;
  for (;;) {
    std::size_t best = candidates.size();
    int bestGain = 0;
    for (std::size_t b = 0; b < candidates.size(); ++b) {
      int gain = 0;
      for (int c = 0; c < nc; ++c) gain += inBox(candidates[b], c, dims) && !covered[static_cast<std::size_t>(c)];
      if (gain > bestGain) best = b, bestGain = gain;
    }
    if (best == candidates.size()) break;
    for (int c = 0; c < nc; ++c)
      if (inBox(candidates[best], c, dims)) covered[static_cast<std::size_t>(c)] = true;
    out.push_back(candidates[best]);
  }
  return out;
}

}  // namespace tracegen::gen
