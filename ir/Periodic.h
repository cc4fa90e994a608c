// Shortest period of a value list, for parameter lists that are consumed cyclically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace tracegen {

// Smallest p such that v[i] == v[i - p] for every i >= p: cyclic consumption of the first p
// values then gives back v. Computed from the KMP border of the whole list, in O(n).
inline std::size_t shortestPeriod(const std::vector<std::int64_t>& v) {
  if (v.empty()) return 0;
  std::vector<std::size_t> border(v.size(), 0);
  for (std::size_t i = 1; i < v.size(); ++i) {
    std::size_t k = border[i - 1];
    while (k > 0 && v[i] != v[k]) k = border[k - 1];
    if (v[i] == v[k]) ++k;
    border[i] = k;
  }
  return v.size() - border.back();
}

}  // namespace tracegen
