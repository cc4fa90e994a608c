// A longest common subsequence of two integer sequences by Myers' greedy difference algorithm
// (E. Myers, "An O(ND) Difference Algorithm and Its Variations", Algorithmica 1, 1986), with
// its linear-space refinement.
//
// The sequences are the axes of an edit graph: a step right skips an element of `a`, a step
// down one of `b`, a diagonal step matches equal elements. A shortest path from the top-left
// to the bottom-right corner has D non-diagonal steps, the fewest edits, and its diagonals are
// a longest common subsequence (|LCS| = (n + m - D) / 2). The greedy search keeps, for each
// diagonal k = x - y, the furthest point reachable with d edits, extending it along equal
// elements ("snakes"); d grows until the corner is reached, so its cost is O((n + m) D), small
// when the sequences differ little, instead of the full table's n * m. To keep memory linear,
// the search runs from both corners at once until the two fronts overlap on a diagonal: the
// overlap is a point on a shortest path, where the problem splits into two halves with about
// D/2 edits each, solved the same way (recursion depth O(log D), memory O(n + m)). Common
// prefixes and suffixes are matched first, which also makes every split point lie strictly
// inside its sub-problem. Elements that occur in one sequence only are set aside first: they
// cannot match, and each would otherwise be one of the D edits.
//
// The result is deterministic: the same sequences give the same matches. The caller bounds the
// work (furthest-point updates plus element comparisons, at most about 2 (n + m) (D + 1), where
// n, m and D count only the elements both sequences hold); beyond it the search gives up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace tracegen::record {

// Matched positions (index in a, index in b), both increasing, of a longest common subsequence
// of `a` and `b`; nullopt when finding it would take more than `workLimit` steps.
std::optional<std::vector<std::pair<std::size_t, std::size_t>>> longestCommonSubsequence(std::span<const std::uint32_t> a,
                                                                                        std::span<const std::uint32_t> b,
                                                                                        std::size_t workLimit);

}  // namespace tracegen::record
