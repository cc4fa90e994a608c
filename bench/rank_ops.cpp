// Google Benchmark of RankList set operations on the compressed form.
//
// The lists are those of a 2-D 5-point stencil on an n x n grid, row-major (n = 32, 128, 1024:
// 1,024, 16,384 and 1,048,576 ranks): the nine groups (corners, edges, interior), the ranks with
// a neighbour in each direction, quadrants, stride-2 progressions, unions and complements of
// those, and the same moved by a peer offset. Single operations work on two overlapping 2-D
// blocks; the refinement partitions all ranks by 100 such lists as a checker of rank classes
// would. The H3 case is the fuzz finding's trace of 2^31-1 ranks: refining all ranks by the
// list of all ranks, once per event. Costs should follow the number of tuples and rows, not
// the number of ranks (targets: a single operation on 2-D blocks well under 1 ms, the
// refinement at 1,048,576 ranks well under 50 ms).
#include <benchmark/benchmark.h>

#include <vector>

#include "ir/RankList.h"

namespace {
using tracegen::Rank;
using tracegen::RankList;
using tracegen::RankTuple;

RankList block(Rank n, Rank r0, Rank c0, Rank rows, Rank cols) {
  return RankList({RankTuple{r0 * n + c0, {{cols, 1}, {rows, n}}}});
}

// The nine stencil groups: corners, edges without corners, interior.
std::vector<RankList> stencilGroups(Rank n) {
  return {block(n, 0, 0, 1, 1),     block(n, 0, 1, 1, n - 2),     block(n, 0, n - 1, 1, 1),
          block(n, 1, 0, n - 2, 1), block(n, 1, 1, n - 2, n - 2), block(n, 1, n - 1, n - 2, 1),
          block(n, n - 1, 0, 1, 1), block(n, n - 1, 1, 1, n - 2), block(n, n - 1, n - 1, 1, 1)};
}

// 100 lists over an n x n grid.
std::vector<RankList> hundredLists(Rank n) {
  const Rank P = n * n;
  std::vector<RankList> base = stencilGroups(n);
  base.push_back(block(n, 0, 0, n, n - 1));                   // has an east neighbour
  base.push_back(block(n, 0, 1, n, n - 1));                   // has a west neighbour
  base.push_back(RankList::progression(n, P - n));            // has a north neighbour
  base.push_back(RankList::progression(0, P - n));            // has a south neighbour
  base.push_back(RankList::progression(0, P / 2, 2));         // evens
  base.push_back(block(n, 0, 0, n / 2, n / 2));               // quadrants
  base.push_back(block(n, 0, n / 2, n / 2, n / 2));
  base.push_back(block(n, n / 2, 0, n / 2, n / 2));
  base.push_back(block(n, n / 2, n / 2, n / 2, n / 2));
  base.push_back(RankList::unite(base[1], base[7]));          // north and south edges
  base.push_back(RankList::unite(base[3], base[5]));          // west and east edges
  base.push_back(RankList::subtract(RankList::all(P), base[4]));  // the rim
  base.push_back(RankList::subtract(base[4], base[13]));      // odd interior ranks
  std::vector<RankList> out = base;
  for (Rank offset : {Rank{1}, Rank{-1}, n, -n})
    for (const auto& l : base) {
      if (out.size() == 100) break;
      out.push_back(l.shifted(offset, P));
    }
  while (out.size() < 100) out.push_back(RankList::unite(out[out.size() - 40], out[out.size() - 7]));
  return out;
}

std::vector<RankList> refine(const RankList& all, const std::vector<RankList>& by) {
  std::vector<RankList> classes{all};
  for (const auto& r : by) {
    std::vector<RankList> next;
    for (const auto& c : classes) {
      if (!c.intersects(r)) {
        next.push_back(c);
        continue;
      }
      next.push_back(RankList::intersect(c, r));
      RankList out = RankList::subtract(c, r);
      if (!out.empty()) next.push_back(std::move(out));
    }
    classes = std::move(next);
  }
  return classes;
}

// Two overlapping 2-D blocks: rows and columns [0, 3n/4) and [n/4, n).
struct Blocks {
  Rank n, P;
  RankList a, b;
  explicit Blocks(Rank side)
      : n(side), P(side * side), a(block(side, 0, 0, 3 * side / 4, 3 * side / 4)),
        b(block(side, side / 4, side / 4, 3 * side / 4, 3 * side / 4)) {}
};

void BM_Intersect(benchmark::State& state) {
  Blocks k(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(RankList::intersect(k.a, k.b));
  state.counters["ranks"] = static_cast<double>(k.P);
}

void BM_Subtract(benchmark::State& state) {
  Blocks k(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(RankList::subtract(k.a, k.b));
  state.counters["ranks"] = static_cast<double>(k.P);
}

void BM_Unite(benchmark::State& state) {
  Blocks k(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(RankList::unite(k.a, k.b));
  state.counters["ranks"] = static_cast<double>(k.P);
}

// A peer offset of one row and one column down-right, wrapping the last rows to the top.
void BM_Shifted(benchmark::State& state) {
  Blocks k(state.range(0));
  const RankList moved = k.b;
  for (auto _ : state) benchmark::DoNotOptimize(moved.shifted(k.n + 1, k.P));
  state.counters["ranks"] = static_cast<double>(k.P);
}

void BM_Refine100(benchmark::State& state) {
  const Rank n = state.range(0);
  const std::vector<RankList> by = hundredLists(n);
  const RankList all = RankList::all(n * n);
  std::size_t classes = 0;
  for (auto _ : state) {
    auto c = refine(all, by);
    classes = c.size();
    benchmark::DoNotOptimize(c);
  }
  state.counters["ranks"] = static_cast<double>(n * n);
  state.counters["classes"] = static_cast<double>(classes);
}

// Fuzz finding H3: three events on all 2^31-1 ranks.
void BM_H3(benchmark::State& state) {
  const RankList all = RankList::all(2147483647);
  const std::vector<RankList> by{all, all, all};
  for (auto _ : state) benchmark::DoNotOptimize(refine(all, by));
}

BENCHMARK(BM_Intersect)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Subtract)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Unite)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Shifted)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Refine100)->Arg(32)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_H3)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
