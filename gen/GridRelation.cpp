// Relation peers (gen/GridRelation.h): the one definition the extrapolation checks against the
// traces and the backends spell in their languages.
#include "gen/GridRelation.h"

namespace tracegen::gen {

namespace {

// log2(n) for a power of two n >= 2; -1 otherwise.
int exactLog2(std::int64_t n) {
  if (n < 2 || (n & (n - 1)) != 0) return -1;
  int l = 0;
  while ((std::int64_t{1} << l) < n) ++l;
  return l;
}

}  // namespace

std::string_view relationName(GridRelation rel) {
  switch (rel) {
    case GridRelation::RowXor: return "rank XOR 2^k within the row, k = 0 .. log2(px)-1";
    case GridRelation::RowPairwise: return "rank XOR i within the row, i = 1 .. px-1";
    case GridRelation::Transpose: return "the transpose partner (h*y + x mod h, x div h), h = px/py";
  }
  return "?";
}

bool relationDefinedOn(GridRelation rel, int dims, const std::array<std::int64_t, 3>& ext) {
  switch (rel) {
    case GridRelation::RowXor:
    case GridRelation::RowPairwise: return exactLog2(ext[0]) > 0;
    case GridRelation::Transpose: return dims == 2 && ext[1] >= 2 && ext[0] % ext[1] == 0;
  }
  return false;
}

std::int64_t relationSteps(GridRelation rel, int dims, const std::array<std::int64_t, 3>& ext) {
  if (!relationDefinedOn(rel, dims, ext)) return 0;
  switch (rel) {
    case GridRelation::RowXor: return exactLog2(ext[0]);
    case GridRelation::RowPairwise: return ext[0] - 1;
    case GridRelation::Transpose: return 1;
  }
  return 0;
}

std::int64_t relationPeer(GridRelation rel, int, const std::array<std::int64_t, 3>& ext, std::int64_t r,
                          std::int64_t k) {
  switch (rel) {
    case GridRelation::RowXor: return r ^ (std::int64_t{1} << k);
    case GridRelation::RowPairwise: return r ^ (k + 1);
    case GridRelation::Transpose: {
      const std::int64_t h = ext[0] / ext[1];
      const std::int64_t x = r % ext[0], y = r / ext[0] % ext[1], z = r / (ext[0] * ext[1]);
      return h * y + x % h + ext[0] * (x / h + ext[1] * z);
    }
  }
  return r;
}

}  // namespace tracegen::gen
