// Myers' O((n + m) D) longest common subsequence with linear-space splitting: each sub-problem
// matches its common prefix and suffix, then searches from both corners for a point on a shortest
// edit path and recurses on the two halves (see CommonSubsequence.h).
#include "record/CommonSubsequence.h"

#include <algorithm>
#include <stdexcept>

namespace tracegen::record {

namespace {

using Match = std::pair<std::size_t, std::size_t>;
using Index = std::ptrdiff_t;

class MyersSearch {
 public:
  MyersSearch(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b, std::size_t workLimit)
      : a_(a), b_(b), workLimit_(workLimit) {
    // Sub-problems are never larger than the whole: d stays below (n + m + 1) / 2 + 1, and the
    // diagonals read at step d lie within d + 1 of 0.
    offset_ = static_cast<Index>((a.size() + b.size() + 1) / 2 + 2);
    forward_.assign(static_cast<std::size_t>(2 * offset_ + 1), 0);
    backward_.assign(static_cast<std::size_t>(2 * offset_ + 1), 0);
  }

  bool run(std::vector<Match>& out) { return solve(0, a_.size(), 0, b_.size(), out); }

 private:
  bool spend(std::size_t steps) {
    work_ += steps;
    return work_ <= workLimit_;
  }

  // Appends the matches of a[a0, a1) x b[b0, b1) in increasing order; false when out of budget.
  bool solve(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1, std::vector<Match>& out) {
    const std::size_t start = a0;
    while (a0 < a1 && b0 < b1 && a_[a0] == b_[b0]) out.emplace_back(a0++, b0++);
    std::size_t suffix = 0;
    while (a0 < a1 && b0 < b1 && a_[a1 - 1] == b_[b1 - 1]) {
      --a1;
      --b1;
      ++suffix;
    }
    if (!spend(a0 - start + suffix + 1)) return false;
    if (a0 < a1 && b0 < b1) {
      std::size_t x = 0, y = 0;
      if (!split(a0, a1, b0, b1, x, y)) return false;
      if (!solve(a0, x, b0, y, out) || !solve(x, a1, y, b1, out)) return false;
    }
    for (std::size_t k = 0; k < suffix; ++k) out.emplace_back(a1 + k, b1 + k);
    return true;
  }

  // A point (x, y) of a shortest edit path through a[a0, a1) x b[b0, b1), whose first elements
  // differ and whose last elements differ (so the point is neither corner). Forward points are
  // offsets (x, y) from (a0, b0), backward ones offsets (u, v) back from (a1, b1); both fronts
  // are indexed by their own diagonal (x - y, u - v). With delta = n - m, forward diagonal k
  // is backward diagonal delta - k. A front may step past the grid's edge; such points
  // never match and are never taken for an overlap.
  bool split(std::size_t a0, std::size_t a1, std::size_t b0, std::size_t b1, std::size_t& sx, std::size_t& sy) {
    const Index n = static_cast<Index>(a1 - a0), m = static_cast<Index>(b1 - b0), delta = n - m;
    const bool odd = (delta & 1) != 0;
    Index* f = forward_.data() + offset_;
    Index* r = backward_.data() + offset_;
    f[1] = 0;
    r[1] = 0;
    for (Index d = 0; d <= (n + m + 1) / 2; ++d) {
      std::size_t steps = 0;
      // The forward front: each diagonal continues the further of its neighbours' points.
      for (Index k = -d; k <= d; k += 2) {
        Index x = (k == -d || (k != d && f[k - 1] < f[k + 1])) ? f[k + 1] : f[k - 1] + 1;
        Index y = x - k;
        const Index x0 = x;
        while (x < n && y < m && a_[a0 + static_cast<std::size_t>(x)] == b_[b0 + static_cast<std::size_t>(y)]) {
          ++x;
          ++y;
        }
        steps += static_cast<std::size_t>(x - x0) + 1;
        f[k] = x;
        // With delta odd the fronts first meet after a forward step (D = 2d - 1).
        if (odd && x <= n && y <= m && delta - k >= -(d - 1) && delta - k <= d - 1) {
          const Index u = r[delta - k], v = u - (delta - k);
          if (u <= n && v <= m && x + u >= n) {
            sx = a0 + static_cast<std::size_t>(x);
            sy = b0 + static_cast<std::size_t>(y);
            return spend(steps);
          }
        }
      }
      // The backward front, the same on the reversed sequences.
      for (Index k = -d; k <= d; k += 2) {
        Index u = (k == -d || (k != d && r[k - 1] < r[k + 1])) ? r[k + 1] : r[k - 1] + 1;
        Index v = u - k;
        const Index u0 = u;
        while (u < n && v < m &&
               a_[a1 - 1 - static_cast<std::size_t>(u)] == b_[b1 - 1 - static_cast<std::size_t>(v)]) {
          ++u;
          ++v;
        }
        steps += static_cast<std::size_t>(u - u0) + 1;
        r[k] = u;
        // With delta even they first meet after a backward step (D = 2d).
        if (!odd && u <= n && v <= m && delta - k >= -d && delta - k <= d) {
          const Index x = f[delta - k], y = x - (delta - k);
          if (x <= n && y <= m && x + u >= n) {
            sx = a1 - static_cast<std::size_t>(u);
            sy = b1 - static_cast<std::size_t>(v);
            return spend(steps);
          }
        }
      }
      if (!spend(steps)) return false;
    }
    throw std::logic_error("longestCommonSubsequence: the search fronts did not meet");
  }

  std::span<const std::uint32_t> a_, b_;
  std::size_t workLimit_, work_ = 0;
  Index offset_ = 0;
  std::vector<Index> forward_, backward_;
};

}  // namespace

std::optional<std::vector<std::pair<std::size_t, std::size_t>>> longestCommonSubsequence(std::span<const std::uint32_t> a,
                                                                                        std::span<const std::uint32_t> b,
                                                                                        std::size_t workLimit) {
  // Elements absent from the other sequence can match nothing: leaving them out keeps every
  // common subsequence and makes n, m and D smaller (partials of different shapes have many
  // call sites of their own). `keptA` and `keptB` map the remaining positions back.
  std::vector<std::uint32_t> valuesA(a.begin(), a.end()), valuesB(b.begin(), b.end());
  for (auto* v : {&valuesA, &valuesB}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  std::vector<std::uint32_t> sharedA, sharedB;
  std::vector<std::size_t> keptA, keptB;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::binary_search(valuesB.begin(), valuesB.end(), a[i])) {
      sharedA.push_back(a[i]);
      keptA.push_back(i);
    }
  for (std::size_t j = 0; j < b.size(); ++j)
    if (std::binary_search(valuesA.begin(), valuesA.end(), b[j])) {
      sharedB.push_back(b[j]);
      keptB.push_back(j);
    }
  std::vector<Match> matches;
  MyersSearch search(sharedA, sharedB, workLimit);
  if (!search.run(matches)) return std::nullopt;
  for (auto& [i, j] : matches) {
    i = keptA[i];
    j = keptB[j];
  }
  return matches;
}

}  // namespace tracegen::record
