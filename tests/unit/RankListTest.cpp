// RankList: the ScalaTrace ranklist examples of the format reference (§4), normalisation and
// printing, randomized property tests of every set operation and of shifted() against a
// std::set or sorted-vector reference (small lists, and lists large enough to take the
// row-recompression path), and million- to 2^31-rank lists that must be answered from the
// compressed form, including the fuzz finding H3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/Traversal.h"
#include "ir/RankList.h"
#include "io/Readers.h"
#include "passes/PassManager.h"
#include "tests/unit/SanitizerScale.h"

namespace tracegen {
namespace {

// ScalaTrace ranklist text `count {-depth start {iters stride}...}...` to raw (unnormalised)
// sections, read literally as §4 describes.
std::vector<RankTuple> scalaTraceTuples(const std::string& text) {
  std::istringstream in(text);
  std::int64_t count = 0;
  in >> count;
  std::vector<RankTuple> tuples;
  for (std::int64_t i = 0; i < count; ++i) {
    std::int64_t neg = 0;
    RankTuple t;
    in >> neg >> t.start;
    for (std::int64_t d = 0; d < -neg; ++d) {
      RankDim dim;
      in >> dim.iters >> dim.stride;
      t.dims.push_back(dim);
    }
    tuples.push_back(t);
  }
  EXPECT_FALSE(in.fail()) << text;
  std::string rest;
  EXPECT_FALSE(in >> rest) << "trailing '" << rest << "' in " << text;
  return tuples;
}

RankList fromScalaTrace(const std::string& text) { return RankList(scalaTraceTuples(text)); }

// The enumeration procedure of §4, independent of RankList.
std::set<Rank> enumerateSpec(const std::vector<RankTuple>& tuples) {
  std::set<Rank> out;
  for (const auto& t : tuples) {
    std::vector<Rank> list{t.start};
    for (const auto& d : t.dims) {
      std::vector<Rank> next;
      for (Rank k = 0; k < d.iters; ++k)
        for (Rank v : list) next.push_back(v + k * d.stride);
      list = std::move(next);
    }
    out.insert(list.begin(), list.end());
  }
  return out;
}

std::vector<Rank> members(const RankList& l) { return l.toVector(); }
std::vector<Rank> sorted(const std::set<Rank>& s) { return {s.begin(), s.end()}; }

// Normal-form invariants the header promises: nested tuples, sorted by start, pairwise disjoint.
void expectNormalForm(const RankList& l, const std::string& context) {
  Rank total = 0;
  for (std::size_t i = 0; i < l.tuples().size(); ++i) {
    const RankTuple& t = l.tuples()[i];
    EXPECT_TRUE(t.dims.empty() || t.isNested()) << context << ": tuple " << i << " not nested in " << l.str();
    for (const auto& d : t.dims) {
      EXPECT_GE(d.iters, 2) << context << ": " << l.str();
      EXPECT_GT(d.stride, 0) << context << ": " << l.str();
    }
    if (i > 0) {
      EXPECT_LT(l.tuples()[i - 1].start, t.start) << context << ": tuples not sorted in " << l.str();
    }
    total += t.size();
  }
  std::set<Rank> distinct;
  for (const auto& t : l.tuples()) {
    std::set<Rank> one = enumerateSpec({t});
    distinct.insert(one.begin(), one.end());
  }
  EXPECT_EQ(static_cast<Rank>(distinct.size()), total) << context << ": tuples overlap in " << l.str();
}

// --------------------------------------------------------------------------------------------
// §4 worked examples

struct SpecExample {
  const char* text;
  std::vector<Rank> ranks;
};

TEST(RankList, SpecWorkedExamplesDecode) {
  const std::vector<SpecExample> examples = {
      {"1 -1 0 4 1", {0, 1, 2, 3}},
      {"1 -1 2 1 0", {2}},
      {"1 -1 1 2 2", {1, 3}},
      {"2 -1 0 4 1 -1 5 2 1", {0, 1, 2, 3, 5, 6}},
      {"1 -2 0 2 6 2 1", {0, 1, 6, 7}},
      {"1 -2 5 3 4 2 1", {5, 6, 9, 10, 13, 14}},
      {"3 -2 0 2 12 3 1 -2 4 2 4 2 3 -1 15 1 0", {0, 1, 2, 4, 7, 8, 11, 12, 13, 14, 15}},
  };
  for (const auto& ex : examples) {
    SCOPED_TRACE(ex.text);
    auto raw = scalaTraceTuples(ex.text);
    EXPECT_EQ(sorted(enumerateSpec(raw)), ex.ranks) << "the test's own decoder disagrees with §4";
    RankList l(raw);
    EXPECT_EQ(members(l), ex.ranks);
    EXPECT_EQ(l.size(), static_cast<Rank>(ex.ranks.size()));
    EXPECT_EQ(l.first(), ex.ranks.front());
    EXPECT_EQ(l.last(), ex.ranks.back());
    for (Rank r = -2; r < 20; ++r)
      EXPECT_EQ(l.contains(r), std::find(ex.ranks.begin(), ex.ranks.end(), r) != ex.ranks.end()) << "rank " << r;
    expectNormalForm(l, ex.text);
    // The ScalaTrace text RankList writes decodes to the same set.
    EXPECT_EQ(sorted(enumerateSpec(scalaTraceTuples(l.scalaTraceStr()))), ex.ranks) << l.scalaTraceStr();
    EXPECT_EQ(fromScalaTrace(l.scalaTraceStr()), l);
    EXPECT_EQ(RankList::fromSorted(ex.ranks), l);
  }
}

TEST(RankList, SingleRank) {
  RankList l = RankList::single(7);
  EXPECT_FALSE(l.empty());
  EXPECT_EQ(l.size(), 1);
  EXPECT_TRUE(l.contains(7));
  EXPECT_FALSE(l.contains(6));
  EXPECT_FALSE(l.contains(8));
  EXPECT_EQ(l.first(), 7);
  EXPECT_EQ(l.last(), 7);
  EXPECT_EQ(l.indexOf(7), 0);
  EXPECT_EQ(l.indexOf(8), std::nullopt);
  EXPECT_EQ(l.at(0), 7);
  EXPECT_THROW(l.at(1), std::out_of_range);
  EXPECT_EQ(l.str(), "<1 7 {1 0}>");
  EXPECT_EQ(l.scalaTraceStr(), "1 -1 7 1 0");
  EXPECT_EQ(l.pretty(), "7");
  EXPECT_EQ(l, fromScalaTrace("1 -1 7 1 0"));
  EXPECT_EQ(l, RankList::progression(7, 1, 5));
  EXPECT_EQ(l, RankList::fromSorted({7}));
  // Rank 0 is a single too.
  EXPECT_EQ(RankList::single(0).str(), "<1 0 {1 0}>");
}

TEST(RankList, EmptyList) {
  RankList l;
  EXPECT_TRUE(l.empty());
  EXPECT_EQ(l.size(), 0);
  EXPECT_FALSE(l.contains(0));
  EXPECT_EQ(l.first(), std::nullopt);
  EXPECT_EQ(l.last(), std::nullopt);
  EXPECT_EQ(l.indexOf(0), std::nullopt);
  EXPECT_THROW(l.at(0), std::out_of_range);
  EXPECT_TRUE(members(l).empty());
  EXPECT_EQ(l.str(), "<>");
  EXPECT_EQ(l.scalaTraceStr(), "0");
  EXPECT_EQ(l.pretty(), "{}");
  EXPECT_EQ(l, RankList::fromSorted({}));
  EXPECT_EQ(l, RankList::progression(3, 0));
  EXPECT_TRUE(l.isSubsetOf(RankList::all(4)));
  EXPECT_TRUE(l.isSubsetOf(RankList()));
  EXPECT_FALSE(l.intersects(RankList::all(4)));
  EXPECT_EQ(RankList::unite(l, RankList::all(4)), RankList::all(4));
  EXPECT_EQ(RankList::intersect(l, RankList::all(4)), l);
  EXPECT_EQ(RankList::subtract(RankList::all(4), RankList::all(4)), l);
  EXPECT_FALSE(RankList::all(4) == l);
}

TEST(RankList, TwoDimensionalBlock) {
  // Two rows of a 4-wide grid, columns 1..2: {1,2,5,6}.
  RankList l({RankTuple{1, {{2, 4}, {2, 1}}}});  // outer dimension first: normalisation sorts
  EXPECT_EQ(members(l), (std::vector<Rank>{1, 2, 5, 6}));
  ASSERT_EQ(l.tuples().size(), 1u);
  EXPECT_EQ(l.tuples()[0].dims, (std::vector<RankDim>{{2, 1}, {2, 4}}));
  EXPECT_EQ(l.str(), "<2 1 {2 1} {2 4}>");
  EXPECT_EQ(l.scalaTraceStr(), "1 -2 1 2 1 2 4");
  EXPECT_EQ(l.pretty(), "1-2,5-6");
  EXPECT_EQ(l.indexOf(5), 2);
  EXPECT_EQ(l.indexOf(4), std::nullopt);
  EXPECT_EQ(l.at(3), 6);
  EXPECT_FALSE(l.contains(3));
  EXPECT_FALSE(l.contains(9));
}

TEST(RankList, ThreeDimensionalBlock) {
  // 2 x 3 x 2 block: start 3, {2 1} {3 10} {2 100}.
  RankList l({RankTuple{3, {{3, 10}, {2, 100}, {2, 1}}}});
  std::vector<Rank> expect;
  for (Rank c = 0; c < 2; ++c)
    for (Rank b = 0; b < 3; ++b)
      for (Rank a = 0; a < 2; ++a) expect.push_back(3 + a + 10 * b + 100 * c);
  std::sort(expect.begin(), expect.end());
  EXPECT_EQ(members(l), expect);
  EXPECT_EQ(l.size(), 12);
  EXPECT_EQ(l.str(), "<3 3 {2 1} {3 10} {2 100}>");
  EXPECT_EQ(l.scalaTraceStr(), "1 -3 3 2 1 3 10 2 100");
  for (Rank i = 0; i < 12; ++i) {
    EXPECT_EQ(l.at(i), expect[static_cast<std::size_t>(i)]);
    EXPECT_EQ(l.indexOf(expect[static_cast<std::size_t>(i)]), i);
  }
  EXPECT_FALSE(l.contains(5));
  EXPECT_FALSE(l.contains(33));
  EXPECT_TRUE(l.contains(124));
  EXPECT_FALSE(l.contains(125));
  EXPECT_EQ(l.first(), 3);
  EXPECT_EQ(l.last(), 124);
}

TEST(RankList, UnionOfSections) {
  RankList l = fromScalaTrace("2 -1 0 4 1 -1 5 2 1");
  EXPECT_EQ(l.str(), "<1 0 {4 1}> <1 5 {2 1}>");
  EXPECT_EQ(l.scalaTraceStr(), "2 -1 0 4 1 -1 5 2 1");
  EXPECT_EQ(l.pretty(), "0-3,5-6");
  EXPECT_EQ(l.indexOf(5), 4);
  EXPECT_EQ(l.at(5), 6);
  EXPECT_EQ(RankList::unite(RankList::progression(0, 4), RankList::progression(5, 2)), l);
  // A union whose sections interleave (evens and odds below 8) is the contiguous block.
  RankList u = RankList::unite(RankList::progression(0, 4, 2), RankList::progression(1, 4, 2));
  EXPECT_EQ(u, RankList::all(8));
  EXPECT_EQ(members(u), (std::vector<Rank>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(u.size(), 8);
}

TEST(RankList, NormalisationFusesContiguousDimensions) {
  RankList l({RankTuple{0, {{4, 1}, {2, 4}}}});
  EXPECT_EQ(l.str(), "<1 0 {8 1}>");
  EXPECT_EQ(l, RankList::all(8));
  // Also when written outer dimension first, and three levels deep.
  EXPECT_EQ(RankList({RankTuple{0, {{2, 4}, {4, 1}}}}).str(), "<1 0 {8 1}>");
  EXPECT_EQ(RankList({RankTuple{10, {{2, 2}, {2, 1}, {3, 4}}}}).str(), "<1 10 {12 1}>");
  // A stride-2 progression fuses with a stride-8 dimension of 2: {0,2,4,6,8,...,14}.
  EXPECT_EQ(RankList({RankTuple{0, {{4, 2}, {2, 8}}}}).str(), "<1 0 {8 2}>");
  // Trivial dimensions vanish.
  EXPECT_EQ(RankList({RankTuple{5, {{1, 0}, {3, 2}, {1, 7}}}}).str(), "<1 5 {3 2}>");
  EXPECT_EQ(RankList({RankTuple{5, {{1, 0}}}}).str(), "<1 5 {1 0}>");
}

TEST(RankList, NormalisationMergesSingles) {
  RankList l({RankTuple{0, {}}, RankTuple{1, {}}, RankTuple{2, {}}, RankTuple{3, {}}});
  ASSERT_EQ(l.tuples().size(), 1u);
  EXPECT_EQ(l.str(), "<1 0 {4 1}>");
  // Out of order and with a stride.
  RankList s({RankTuple{9, {}}, RankTuple{3, {}}, RankTuple{6, {}}, RankTuple{0, {}}});
  EXPECT_EQ(s.str(), "<1 0 {4 3}>");
  EXPECT_EQ(RankList::fromSorted({0, 1, 2, 3}).str(), "<1 0 {4 1}>");
  EXPECT_EQ(RankList::fromSorted({2, 5, 8, 11, 14}).str(), "<1 2 {5 3}>");
  // Equal runs at a regular distance become a block.
  EXPECT_EQ(RankList::fromSorted({0, 1, 6, 7, 12, 13}).str(), "<2 0 {2 1} {3 6}>");
  // Sections that continue each other fold into one.
  EXPECT_EQ(RankList({RankTuple{0, {{3, 1}}}, RankTuple{3, {{5, 1}}}}).str(), "<1 0 {8 1}>");
  EXPECT_EQ(RankList({RankTuple{0, {}}, RankTuple{1, {{3, 1}}}}).str(), "<1 0 {4 1}>");
  EXPECT_EQ(RankList({RankTuple{0, {}}, RankTuple{2, {{3, 2}}}}).str(), "<1 0 {4 2}>");
  EXPECT_EQ(RankList({RankTuple{0, {{2, 1}}}, RankTuple{4, {{2, 1}, {2, 4}}}}).str(), "<2 0 {2 1} {3 4}>");
}

TEST(RankList, NegativeStridesAreNormalised) {
  RankList l({RankTuple{9, {{4, -3}}}});  // {9,6,3,0}
  EXPECT_EQ(members(l), (std::vector<Rank>{0, 3, 6, 9}));
  EXPECT_EQ(l.str(), "<1 0 {4 3}>");
}

TEST(RankList, InterleavedDimensionsAreSplit) {
  // {0,2,4} + {0,3}: dimensions interleave, so no single nested tuple describes the set.
  RankList l({RankTuple{0, {{3, 2}, {2, 3}}}});
  EXPECT_EQ(members(l), (std::vector<Rank>{0, 2, 3, 4, 5, 7}));
  expectNormalForm(l, "interleaved");
  for (Rank i = 0; i < 6; ++i) EXPECT_EQ(l.indexOf(l.at(i)), i);
  EXPECT_EQ(l.indexOf(3), 2);
  EXPECT_EQ(l.at(2), 3);
  EXPECT_EQ(l.last(), 7);
  EXPECT_EQ(l.pretty(), "0,2-5,7");
}

TEST(RankList, StrScalaTraceStrPretty) {
  RankList l = RankList::unite(RankList::progression(0, 4), RankList::fromSorted({5, 7, 8, 9}));
  EXPECT_EQ(l.pretty(), "0-3,5,7-9");
  EXPECT_EQ(members(l), (std::vector<Rank>{0, 1, 2, 3, 5, 7, 8, 9}));
  EXPECT_EQ(fromScalaTrace(l.scalaTraceStr()), l);
  RankList evens = RankList::progression(0, 40, 2);
  EXPECT_EQ(evens.str(), "<1 0 {40 2}>");
  EXPECT_EQ(evens.scalaTraceStr(), "1 -1 0 40 2");
  EXPECT_EQ(evens.pretty(3), "0,2,4,... (40 ranks)");
  EXPECT_EQ(evens.pretty(40), evens.pretty(1000));
  EXPECT_EQ(evens.pretty(39).substr(evens.pretty(39).size() - 14), "... (40 ranks)");
  EXPECT_EQ(RankList::fromSorted({1, 2, 4}).pretty(2), "1-2,4");
  EXPECT_EQ(RankList::fromSorted({1, 2, 4, 6}).pretty(2), "1-2,4,... (4 ranks)");
  EXPECT_EQ(RankList::progression(0, 5).pretty(0), "... (5 ranks)");
  EXPECT_EQ(RankList::all(1048576).pretty(), "0-1048575");
  EXPECT_EQ(RankList::all(1048576).str(), "<1 0 {1048576 1}>");
}

TEST(RankList, EqualityAcrossRepresentations) {
  const RankList a = fromScalaTrace("1 -2 0 2 6 2 1");  // {0,1,6,7}
  EXPECT_EQ(a, RankList::fromSorted({0, 1, 6, 7}));
  EXPECT_EQ(a, fromScalaTrace("4 -1 0 1 0 -1 1 1 0 -1 6 1 0 -1 7 1 0"));
  EXPECT_EQ(a, fromScalaTrace("2 -1 6 2 1 -1 0 2 1"));
  EXPECT_EQ(a, fromScalaTrace("2 -1 0 2 6 -1 1 2 6"));
  EXPECT_EQ(a, RankList::unite(RankList::fromSorted({0, 6}), RankList::fromSorted({1, 7})));
  EXPECT_FALSE(a == RankList::fromSorted({0, 1, 6}));
  EXPECT_FALSE(a == RankList::fromSorted({0, 1, 6, 8}));
  EXPECT_FALSE(a == RankList::fromSorted({0, 1, 5, 7}));
  // Same size, different members; and the same members built by different merges.
  EXPECT_EQ(fromScalaTrace("2 -1 0 2 2 -1 1 2 2"), RankList::all(4));
  EXPECT_EQ(RankList::all(4), fromScalaTrace("2 -1 0 2 2 -1 1 2 2"));
  EXPECT_FALSE(RankList::progression(0, 4, 2) == RankList::progression(1, 4, 2));
}

TEST(RankList, IndexOfAndAt) {
  RankList l = fromScalaTrace("3 -2 0 2 12 3 1 -2 4 2 4 2 3 -1 15 1 0");
  const std::vector<Rank> expect = {0, 1, 2, 4, 7, 8, 11, 12, 13, 14, 15};
  for (std::size_t i = 0; i < expect.size(); ++i) {
    EXPECT_EQ(l.at(static_cast<Rank>(i)), expect[i]);
    EXPECT_EQ(l.indexOf(expect[i]), static_cast<Rank>(i));
  }
  for (Rank r : {-1, 3, 5, 6, 9, 10, 16, 100}) EXPECT_EQ(l.indexOf(r), std::nullopt) << r;
  EXPECT_THROW(l.at(-1), std::out_of_range);
  EXPECT_THROW(l.at(11), std::out_of_range);
}

TEST(RankList, FromAscendingRejectsUnsortedInput) {
  EXPECT_THROW(RankList::fromSorted({3, 2}), std::invalid_argument);
  EXPECT_THROW(RankList::fromSorted({1, 2, 2}), std::invalid_argument);
  EXPECT_THROW(RankList::fromSorted({1, 5, 4}), std::invalid_argument);
}

TEST(RankList, ForEachStopsEarly) {
  RankList l = RankList::all(100);
  std::vector<Rank> seen;
  l.forEach([&](Rank r) {
    seen.push_back(r);
    return seen.size() < 3;
  });
  EXPECT_EQ(seen, (std::vector<Rank>{0, 1, 2}));
}

TEST(RankList, FromSectionsChecksFileInput) {
  std::string problem;
  auto ok = [&](std::vector<RankTuple> sections) {
    problem.clear();
    auto l = RankList::fromSections(sections, problem);
    EXPECT_TRUE(l.has_value()) << problem;
    EXPECT_TRUE(problem.empty());
    return l.value_or(RankList());
  };
  auto bad = [&](std::vector<RankTuple> sections, const std::string& what) {
    problem.clear();
    auto l = RankList::fromSections(sections, problem);
    EXPECT_FALSE(l.has_value()) << "accepted " << l->str();
    EXPECT_NE(problem.find(what), std::string::npos) << problem;
  };
  EXPECT_EQ(ok({RankTuple{0, {{4, 1}}}}), RankList::all(4));
  EXPECT_EQ(ok(scalaTraceTuples("3 -2 0 2 12 3 1 -2 4 2 4 2 3 -1 15 1 0")).toVector(),
            (std::vector<Rank>{0, 1, 2, 4, 7, 8, 11, 12, 13, 14, 15}));
  // Interleaved dimensions are legal if no rank repeats: {0,2,4} + {0,3}.
  EXPECT_EQ(ok({RankTuple{0, {{3, 2}, {2, 3}}}}).toVector(), (std::vector<Rank>{0, 2, 3, 4, 5, 7}));
  // Sections that interleave without sharing ranks: evens and odds.
  EXPECT_EQ(ok({RankTuple{0, {{4, 2}}}, RankTuple{1, {{4, 2}}}}), RankList::all(8));
  // A million ranks and a small irregular section far away: only the small one is looked at.
  EXPECT_EQ(ok({RankTuple{0, {{1048576, 1}}}, RankTuple{2000000, {{3, 2}, {2, 3}}}}).size(), 1048576 + 6);
  EXPECT_EQ(ok({RankTuple{0, {{1024, 1}, {1024, 2048}}}}).size(), 1048576);
  bad({RankTuple{2, {{2, 0}}}}, "names a rank more than once");
  bad({RankTuple{0, {{3, 1}}}, RankTuple{2, {}}}, "names a rank more than once");
  bad({RankTuple{0, {{2, 1}, {2, 1}}}}, "names a rank more than once");
  bad({RankTuple{0, {{2, 5}, {2, 5}}}}, "names a rank more than once");
  bad({RankTuple{0, {{2, 1}}}, RankTuple{0, {}}}, "names a rank more than once");
  bad({RankTuple{0, {{0, 1}}}}, "0 iterations");
  bad({RankTuple{0, {{65536, 1}, {65536, 65536}, {2, 1}}}}, "more than 2^31 members");
  bad({RankTuple{Rank{1} << 40, {}}}, "beyond 32 bits");
  // Sections whose ranges overlap are compared on the tuples, whatever their size: evens and
  // odds of four million ranks (enumerated, they were more than the members checked one by
  // one, and refused), and repeats found without listing members.
  EXPECT_EQ(ok({RankTuple{0, {{2000000, 2}}}, RankTuple{1, {{2000000, 2}}}}), RankList::all(4000000));
  EXPECT_EQ(ok({RankTuple{0, {{1000, 1}, {1000, 2000}}}, RankTuple{1000, {{1000, 1}, {1000, 2000}}}}), RankList::all(2000000));
  bad({RankTuple{0, {{2000000, 1}}}, RankTuple{5, {}}}, "names a rank more than once (overlapping sections)");
  bad({RankTuple{0, {{2000000, 2}}}, RankTuple{6, {{2000000, 3}}}}, "names a rank more than once");
  // Irregular beyond what is checked member by member.
  bad({RankTuple{0, {{3, 2}, {1000000, 3}}}}, "interleaves its dimensions");
}

// --------------------------------------------------------------------------------------------
// Property test

class Random {
 public:
  explicit Random(std::uint64_t seed) : rng_(seed) {}
  Rank uniform(Rank lo, Rank hi) { return std::uniform_int_distribution<Rank>(lo, hi)(rng_); }
  bool chance(int percent) { return uniform(0, 99) < percent; }

 private:
  std::mt19937_64 rng_;
};

struct RandomList {
  std::vector<RankTuple> tuples;  // raw, as generated (empty for lists built by fromSorted)
  std::set<Rank> ranks;
  RankList list;
  std::string how;
};

// Raw members of a tuple, or false if the tuple names a rank twice.
bool rawMembers(const RankTuple& t, std::vector<Rank>& out) {
  std::set<Rank> s = enumerateSpec({t});
  out.assign(s.begin(), s.end());
  Rank raw = 1;
  for (const auto& d : t.dims) raw *= d.iters;
  return static_cast<Rank>(s.size()) == raw;
}

RankTuple randomTuple(Random& rnd, const std::vector<RankTuple>& previous) {
  if (!previous.empty() && rnd.chance(40)) {
    // A shifted copy of an earlier section, or one continuing it: what normalisation merges.
    RankTuple t = previous[static_cast<std::size_t>(rnd.uniform(0, static_cast<Rank>(previous.size()) - 1))];
    if (!t.dims.empty() && rnd.chance(50)) {
      const RankDim& d = t.dims[static_cast<std::size_t>(rnd.uniform(0, static_cast<Rank>(t.dims.size()) - 1))];
      t.start += d.iters * d.stride;
    } else {
      t.start += rnd.uniform(1, 40);
    }
    if (rnd.chance(30) && !t.dims.empty()) t.dims[0].iters = rnd.uniform(1, 4);
    return t;
  }
  RankTuple t;
  t.start = rnd.uniform(0, 60);
  const Rank depth = rnd.uniform(1, 3);
  for (Rank d = 0; d < depth; ++d) {
    RankDim dim;
    dim.iters = rnd.uniform(1, 5);
    dim.stride = dim.iters == 1 && rnd.chance(50) ? 0 : rnd.uniform(1, 24);
    if (rnd.chance(10)) {  // a descending dimension; keep every member non-negative
      dim.stride = -dim.stride;
      t.start += (dim.iters - 1) * -dim.stride;
    }
    t.dims.push_back(dim);
  }
  if (rnd.chance(15)) t.dims = {{1, 0}};  // the ScalaTrace spelling of a single rank
  return t;
}

RandomList randomList(Random& rnd) {
  RandomList r;
  if (rnd.chance(3)) {
    r.how = "empty";
    return r;
  }
  if (rnd.chance(20)) {
    // Any random set, compressed by fromSorted.
    const Rank span = rnd.uniform(1, 120);
    const int density = static_cast<int>(rnd.uniform(5, 95));
    for (Rank v = 0; v < span; ++v)
      if (rnd.chance(density)) r.ranks.insert(v);
    r.list = RankList::fromSorted(sorted(r.ranks));
    r.how = "fromSorted";
    return r;
  }
  const Rank sections = rnd.uniform(1, 4);
  for (int attempt = 0; attempt < 60 && static_cast<Rank>(r.tuples.size()) < sections; ++attempt) {
    RankTuple t = randomTuple(rnd, r.tuples);
    std::vector<Rank> m;
    if (!rawMembers(t, m)) continue;
    if (std::any_of(m.begin(), m.end(), [&](Rank v) { return v < 0 || r.ranks.count(v) > 0; })) continue;
    r.ranks.insert(m.begin(), m.end());
    r.tuples.push_back(t);
  }
  std::vector<RankTuple> shuffled = r.tuples;
  if (rnd.chance(50)) std::reverse(shuffled.begin(), shuffled.end());
  r.list = RankList(shuffled);
  std::ostringstream how;
  how << "tuples";
  for (const auto& t : shuffled) {
    how << " <" << t.start;
    for (const auto& d : t.dims) how << " {" << d.iters << ' ' << d.stride << '}';
    how << '>';
  }
  r.how = how.str();
  return r;
}

void checkAgainstReference(const RankList& l, const std::set<Rank>& ref, const std::string& ctx) {
  SCOPED_TRACE(ctx + " -> " + l.str());
  const std::vector<Rank> vec = sorted(ref);
  const Rank P = ref.empty() ? 4 : *ref.rbegin() + 1;
  ASSERT_EQ(l.size(), static_cast<Rank>(ref.size()));
  ASSERT_EQ(l.empty(), ref.empty());
  for (Rank r = -2; r < P + 2; ++r) ASSERT_EQ(l.contains(r), ref.count(r) > 0) << "contains(" << r << ")";
  ASSERT_EQ(members(l), vec);
  {
    RankIterator it(l);
    std::vector<Rank> seen;
    Rank v = 0;
    while (it.next(v)) seen.push_back(v);
    ASSERT_EQ(seen, vec) << "RankIterator";
    ASSERT_FALSE(it.next(v)) << "iterator restarts after the end";
  }
  if (ref.empty()) {
    EXPECT_EQ(l.first(), std::nullopt);
    EXPECT_EQ(l.last(), std::nullopt);
  } else {
    EXPECT_EQ(l.first(), vec.front());
    EXPECT_EQ(l.last(), vec.back());
  }
  for (Rank r = -2; r < P + 2; ++r) {
    auto it = ref.find(r);
    if (it == ref.end()) {
      ASSERT_EQ(l.indexOf(r), std::nullopt) << "indexOf(" << r << ")";
    } else {
      ASSERT_EQ(l.indexOf(r), static_cast<Rank>(std::distance(ref.begin(), it))) << "indexOf(" << r << ")";
    }
  }
  for (std::size_t i = 0; i < vec.size(); ++i) ASSERT_EQ(l.at(static_cast<Rank>(i)), vec[i]) << "at(" << i << ")";
  EXPECT_THROW(l.at(static_cast<Rank>(vec.size())), std::out_of_range);
  EXPECT_THROW(l.at(-1), std::out_of_range);
  expectNormalForm(l, ctx);
  // Other representations of the same set compare equal.
  const RankList again = RankList::fromSorted(l.toVector());
  EXPECT_EQ(again, l);
  EXPECT_EQ(l, again);
  EXPECT_EQ(fromScalaTrace(l.scalaTraceStr()), l) << l.scalaTraceStr();
  EXPECT_EQ(sorted(enumerateSpec(scalaTraceTuples(l.scalaTraceStr()))), vec);
  // pretty() lists the maximal runs.
  std::string runs;
  for (std::size_t i = 0; i < vec.size();) {
    std::size_t j = i;
    while (j + 1 < vec.size() && vec[j + 1] == vec[j] + 1) ++j;
    if (!runs.empty()) runs += ',';
    runs += vec[i] == vec[j] ? std::to_string(vec[i]) : std::to_string(vec[i]) + "-" + std::to_string(vec[j]);
    i = j + 1;
  }
  EXPECT_EQ(l.pretty(100000), ref.empty() ? "{}" : runs);
}

std::set<Rank> setOp(const std::set<Rank>& a, const std::set<Rank>& b, char op) {
  std::set<Rank> out;
  auto ins = std::inserter(out, out.end());
  if (op == '|') std::set_union(a.begin(), a.end(), b.begin(), b.end(), ins);
  if (op == '&') std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), ins);
  if (op == '-') std::set_difference(a.begin(), a.end(), b.begin(), b.end(), ins);
  return out;
}

std::set<Rank> shiftRef(const std::set<Rank>& s, Rank offset, Rank modulus) {
  const Rank off = ((offset % modulus) + modulus) % modulus;
  std::set<Rank> out;
  for (Rank r : s)
    if (r >= 0 && r < modulus) out.insert((r + off) % modulus);
  return out;
}

TEST(RankList, PropertyRandomListsMatchSetReference) {
  Random rnd(0x5ca1a7ace2ULL);
  int nonTrivialMerges = 0;
  for (int iteration = 0; iteration < testing::sanitizerTrials(2000); ++iteration) {
    RandomList a = randomList(rnd);
    RandomList b = rnd.chance(10) ? a : randomList(rnd);
    const std::string ctx = "iteration " + std::to_string(iteration) + ": a = " + a.how + "; b = " + b.how;
    checkAgainstReference(a.list, a.ranks, ctx + " [a]");
    if (::testing::Test::HasFatalFailure()) return;
    if (a.tuples.size() > a.list.tuples().size()) ++nonTrivialMerges;

    const RankList u = RankList::unite(a.list, b.list);
    const RankList i = RankList::intersect(a.list, b.list);
    const RankList d = RankList::subtract(a.list, b.list);
    checkAgainstReference(u, setOp(a.ranks, b.ranks, '|'), ctx + " [a|b]");
    checkAgainstReference(i, setOp(a.ranks, b.ranks, '&'), ctx + " [a&b]");
    checkAgainstReference(d, setOp(a.ranks, b.ranks, '-'), ctx + " [a-b]");
    checkAgainstReference(RankList::unite(b.list, a.list), setOp(a.ranks, b.ranks, '|'), ctx + " [b|a]");
    checkAgainstReference(RankList::subtract(b.list, a.list), setOp(b.ranks, a.ranks, '-'), ctx + " [b-a]");
    if (::testing::Test::HasFatalFailure()) return;

    const bool meet = !setOp(a.ranks, b.ranks, '&').empty();
    EXPECT_EQ(a.list.intersects(b.list), meet) << ctx;
    EXPECT_EQ(b.list.intersects(a.list), meet) << ctx;
    EXPECT_EQ(a.list.isSubsetOf(b.list), std::includes(b.ranks.begin(), b.ranks.end(), a.ranks.begin(), a.ranks.end()))
        << ctx;
    EXPECT_EQ(b.list.isSubsetOf(a.list), std::includes(a.ranks.begin(), a.ranks.end(), b.ranks.begin(), b.ranks.end()))
        << ctx;
    EXPECT_TRUE(a.list.isSubsetOf(u)) << ctx;
    EXPECT_TRUE(i.isSubsetOf(a.list)) << ctx;
    EXPECT_TRUE(d.isSubsetOf(a.list)) << ctx;
    EXPECT_FALSE(d.intersects(b.list)) << ctx;
    EXPECT_EQ(a.list == b.list, a.ranks == b.ranks) << ctx;
    EXPECT_EQ(b.list == a.list, a.ranks == b.ranks) << ctx;
    EXPECT_EQ(RankList::unite(d, i), a.list) << ctx;
    // The same sets reached by other routes compare equal.
    EXPECT_EQ(RankList::intersect(b.list, a.list), i) << ctx;
    EXPECT_EQ(RankList::unite(b.list, a.list), u) << ctx;
    EXPECT_EQ(RankList::subtract(a.list, i), d) << ctx;
    EXPECT_EQ(RankList::subtract(u, RankList::subtract(b.list, a.list)), a.list) << ctx;
    EXPECT_EQ(i.isSubsetOf(b.list), true) << ctx;
    EXPECT_EQ(u == a.list, std::includes(a.ranks.begin(), a.ranks.end(), b.ranks.begin(), b.ranks.end())) << ctx;

    // Relative peers: any offset, a modulus that may cut the list.
    const Rank modulus = rnd.uniform(1, 160);
    const Rank offset = rnd.uniform(-400, 400);
    const std::string sctx = ctx + " [a shifted " + std::to_string(offset) + " mod " + std::to_string(modulus) + "]";
    const RankList s = a.list.shifted(offset, modulus);
    checkAgainstReference(s, shiftRef(a.ranks, offset, modulus), sctx);
    if (::testing::Test::HasFatalFailure()) return;
    EXPECT_EQ(s.shifted(-offset, modulus), RankList::intersect(a.list, RankList::all(modulus))) << sctx;
    EXPECT_EQ(a.list.shifted(offset + 3 * modulus, modulus), s) << sctx;
  }
  // The generator must actually exercise merging, or the test proves little.
  EXPECT_GT(nonTrivialMerges, 100);
}

// --------------------------------------------------------------------------------------------
// Larger random lists: results above kExactMembers are recompressed from rows rather than
// rebuilt by fromAscending, so that path needs its own reference check. Members stay below
// 2^17 so that a sorted vector is a cheap reference.

struct BigList {
  RankList list;
  std::vector<Rank> ranks;  // sorted
  std::string how;
};

std::vector<Rank> vecOp(const std::vector<Rank>& a, const std::vector<Rank>& b, char op) {
  std::vector<Rank> out;
  auto ins = std::back_inserter(out);
  if (op == '|') std::set_union(a.begin(), a.end(), b.begin(), b.end(), ins);
  if (op == '&') std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), ins);
  if (op == '-') std::set_difference(a.begin(), a.end(), b.begin(), b.end(), ins);
  return out;
}

std::string tupleText(const RankTuple& t) {
  std::string s = "<" + std::to_string(t.start);
  for (const auto& d : t.dims) s += " {" + std::to_string(d.iters) + " " + std::to_string(d.stride) + "}";
  return s + ">";
}

// A nested 1- to 3-D tuple: rows of stride 1 to 3, rows and planes at distances just above
// their span (blocks of a grid) or, sometimes, interleaving the dimension below.
RankTuple bigTuple(Random& rnd) {
  if (rnd.chance(50)) {
    // On a grid 240 wide (64 rows per plane), as stencil decompositions are: blocks of columns
    // (stride 1 to 3), planes of them, and long progressions whose stride divides the width,
    // which operations cut into rows of the grid.
    constexpr Rank W = 240, plane = W * 64;
    RankTuple t;
    if (rnd.chance(25)) {
      const Rank stride = std::vector<Rank>{1, 2, 3, 4, 6}[static_cast<std::size_t>(rnd.uniform(0, 4))];
      t.start = rnd.uniform(0, 3 * W);
      t.dims.push_back({rnd.uniform(2, 100000 / stride), stride});
      return t;
    }
    const Rank r0 = rnd.uniform(0, 40), c0 = rnd.uniform(0, W - 1), cs = rnd.uniform(1, 3);
    const Rank cols = rnd.uniform(1, (W - c0 - 1) / cs + 1);
    t.start = rnd.uniform(0, 3) * plane + r0 * W + c0;
    t.dims.push_back({cols, cs});
    t.dims.push_back({rnd.uniform(1, 64 - r0), W});
    if (rnd.chance(30)) t.dims.push_back({rnd.uniform(2, 3), plane});
    return t;
  }
  RankTuple t;
  t.start = rnd.uniform(0, 3000);
  Rank span = 0;
  const Rank depth = rnd.uniform(1, 3);
  for (Rank d = 0; d < depth; ++d) {
    RankDim dim;
    dim.iters = rnd.uniform(2, d == 0 ? 90 : d == 1 ? 60 : 5);
    dim.stride = d == 0 ? rnd.uniform(1, 3) : rnd.chance(15) ? rnd.uniform(1, 3) : span + rnd.uniform(1, 60);
    span += (dim.iters - 1) * dim.stride;
    t.dims.push_back(dim);
  }
  return t;
}

BigList bigRandomList(Random& rnd) {
  BigList r;
  std::vector<char> used(Rank{1} << 17, 0);
  std::vector<RankTuple> tuples;
  const Rank sections = rnd.uniform(1, 4);
  for (int attempt = 0; attempt < 40 && static_cast<Rank>(tuples.size()) < sections; ++attempt) {
    RankTuple t = bigTuple(rnd);
    std::set<Rank> m = enumerateSpec({t});
    if (static_cast<Rank>(m.size()) != t.size()) continue;  // names a rank twice
    if (std::any_of(m.begin(), m.end(), [&](Rank v) { return used[static_cast<std::size_t>(v)] != 0; })) continue;
    for (Rank v : m) used[static_cast<std::size_t>(v)] = 1;
    tuples.push_back(t);
    r.how += (r.how.empty() ? "" : " ") + tupleText(t);
  }
  for (std::size_t v = 0; v < used.size(); ++v)
    if (used[v]) r.ranks.push_back(static_cast<Rank>(v));
  r.list = RankList(tuples);
  if (rnd.chance(25)) {  // the complement within a grid of N ranks
    const Rank n = rnd.uniform(1, 100000);
    r.list = RankList::subtract(RankList::all(n), r.list);
    std::vector<Rank> all(static_cast<std::size_t>(n));
    std::iota(all.begin(), all.end(), Rank{0});
    r.ranks = vecOp(all, r.ranks, '-');
    r.how = "[0," + std::to_string(n) + ") minus " + r.how;
  }
  return r;
}

void checkBig(const RankList& l, const std::vector<Rank>& ref, const std::string& ctx) {
  SCOPED_TRACE(ctx);
  // size() adds up the tuples, toVector() drops repeats: equal to the reference, they show the
  // tuples are disjoint and name exactly the reference's members.
  ASSERT_EQ(l.size(), static_cast<Rank>(ref.size())) << l.str();
  ASSERT_EQ(l.toVector(), ref) << l.str();
  for (std::size_t i = 0; i < l.tuples().size(); ++i) {
    const RankTuple& t = l.tuples()[i];
    ASSERT_TRUE(t.dims.empty() || t.isNested()) << "tuple " << i << " of " << l.str();
    if (i > 0) {
      ASSERT_LT(l.tuples()[i - 1].start, t.start) << l.str();
    }
  }
}

TEST(RankList, PropertyLargeRandomListsMatchReference) {
  Random rnd(0xb16b00b5ULL);
  int recompressed = 0;
  for (int iteration = 0; iteration < testing::sanitizerTrials(150); ++iteration) {
    const BigList a = bigRandomList(rnd);
    const BigList b = rnd.chance(10) ? a : bigRandomList(rnd);
    const std::string ctx = "iteration " + std::to_string(iteration) + ": a = " + a.how + "; b = " + b.how;
    checkBig(a.list, a.ranks, ctx + " [a]");
    const RankList u = RankList::unite(a.list, b.list);
    const RankList i = RankList::intersect(a.list, b.list);
    const RankList d = RankList::subtract(a.list, b.list);
    checkBig(u, vecOp(a.ranks, b.ranks, '|'), ctx + " [a|b]");
    checkBig(i, vecOp(a.ranks, b.ranks, '&'), ctx + " [a&b]");
    checkBig(d, vecOp(a.ranks, b.ranks, '-'), ctx + " [a-b]");
    checkBig(RankList::subtract(b.list, a.list), vecOp(b.ranks, a.ranks, '-'), ctx + " [b-a]");
    if (::testing::Test::HasFatalFailure()) return;
    for (const RankList* r : {&u, &i, &d})
      if (r->size() > RankList::kExactMembers) ++recompressed;

    const bool meet = !vecOp(a.ranks, b.ranks, '&').empty();
    EXPECT_EQ(a.list.intersects(b.list), meet) << ctx;
    EXPECT_EQ(b.list.intersects(a.list), meet) << ctx;
    EXPECT_EQ(a.list.isSubsetOf(b.list), std::includes(b.ranks.begin(), b.ranks.end(), a.ranks.begin(), a.ranks.end()))
        << ctx;
    EXPECT_EQ(a.list == b.list, a.ranks == b.ranks) << ctx;
    EXPECT_TRUE(i.isSubsetOf(b.list)) << ctx;
    EXPECT_FALSE(d.intersects(b.list)) << ctx;
    EXPECT_EQ(RankList::unite(d, i), a.list) << ctx;
    EXPECT_EQ(RankList::unite(b.list, a.list), u) << ctx;
    EXPECT_EQ(RankList::fromSorted(u.toVector()), u) << ctx;

    const Rank modulus = rnd.uniform(1, 120000);
    const Rank offset = rnd.uniform(-200000, 200000);
    std::set<Rank> aSet(a.ranks.begin(), a.ranks.end());
    std::set<Rank> shiftedRef = shiftRef(aSet, offset, modulus);
    checkBig(a.list.shifted(offset, modulus), {shiftedRef.begin(), shiftedRef.end()},
             ctx + " [a shifted " + std::to_string(offset) + " mod " + std::to_string(modulus) + "]");
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(recompressed, testing::sanitizerTrials(100));  // the row path was exercised
}

// The nine groups of a 2-D 5-point stencil on an n x n grid, row-major: corners, edges without
// their corners, interior.
std::vector<RankList> stencilGroups(Rank n) {
  auto block = [&](Rank r0, Rank c0, Rank rows, Rank cols) {
    return RankList({RankTuple{r0 * n + c0, {{cols, 1}, {rows, n}}}});
  };
  return {block(0, 0, 1, 1),         block(0, 1, 1, n - 2),         block(0, n - 1, 1, 1),
          block(1, 0, n - 2, 1),     block(1, 1, n - 2, n - 2),     block(1, n - 1, n - 2, 1),
          block(n - 1, 0, 1, 1),     block(n - 1, 1, 1, n - 2),     block(n - 1, n - 1, 1, 1)};
}

TEST(RankList, StencilGroupsOnAMillionRanksStayCompressed) {
  const Rank n = 1024, P = n * n;
  const auto groups = stencilGroups(n);
  RankList covered;
  for (const auto& g : groups) {
    EXPECT_FALSE(covered.intersects(g));
    covered = RankList::unite(covered, g);
  }
  const RankList all = RankList::all(P);
  EXPECT_EQ(covered, all);
  EXPECT_EQ(covered.size(), P);
  const RankList& interior = groups[4];
  // Everything but the interior: row 0 and rank 1024, pairs (last column, first column) of the
  // rows between, and the last row with the rank before it.
  const RankList rim = RankList::subtract(all, interior);
  EXPECT_EQ(rim, RankList({RankTuple{0, {{1025, 1}}}, RankTuple{2047, {{2, 1}, {1021, 1024}}},
                           RankTuple{1047551, {{1025, 1}}}}));
  EXPECT_LE(rim.tuples().size(), 4u) << rim.str();
  EXPECT_EQ(rim.size(), 4 * n - 4);
  EXPECT_EQ(RankList::unite(rim, interior), all);
  EXPECT_EQ(RankList::unite(rim, groups[1]), rim);
  EXPECT_EQ(RankList::intersect(rim, interior), RankList());
  // Ranks with a neighbour to the east: all but the last column; to the north: all but row 0.
  const RankList east = RankList({RankTuple{0, {{n - 1, 1}, {n, n}}}});
  const RankList north = RankList::progression(n, P - n);
  const RankList both = RankList::intersect(east, north);
  EXPECT_EQ(both.str(), "<2 1024 {1023 1} {1023 1024}>");
  EXPECT_EQ(RankList::subtract(east, north).str(), "<1 0 {1023 1}>");
  EXPECT_EQ(RankList::intersect(interior, east), interior);
  EXPECT_TRUE(interior.isSubsetOf(both));
  EXPECT_FALSE(both.isSubsetOf(interior));
  // Peers: the east neighbours of the interior are the interior moved by one column.
  EXPECT_EQ(interior.shifted(1, P).str(), "<2 1026 {1022 1} {1022 1024}>");
  EXPECT_EQ(interior.shifted(-n, P).str(), "<2 1 {1022 1} {1022 1024}>");
  // Row 0 moved up by one row wraps around to the last row; a block moved across the end
  // splits row-wise.
  EXPECT_EQ(groups[1].shifted(-n, P), groups[7]);
  const RankList moved = interior.shifted(P - 2 * n, P);
  EXPECT_EQ(moved.size(), interior.size());
  EXPECT_LE(moved.tuples().size(), 3u) << moved.str();
  EXPECT_TRUE(moved.contains(P - n + 1));
  EXPECT_TRUE(moved.contains(1));
  EXPECT_FALSE(moved.contains(P - 2 * n + 1));
  EXPECT_EQ(moved.shifted(2 * n, P), interior);
  EXPECT_EQ(all.shifted(12345, P), all);
  // Stride-2 progressions (checkerboard-like): evens of the interior are a 2-D tuple.
  const RankList evens = RankList::progression(0, P / 2, 2);
  const RankList evenInterior = RankList::intersect(interior, evens);
  EXPECT_EQ(evenInterior.size(), interior.size() / 2);
  EXPECT_EQ(evenInterior.str(), "<2 1026 {511 2} {1022 1024}>");
  EXPECT_EQ(RankList::unite(evenInterior, RankList::subtract(interior, evens)), interior);
  // Partition refinement by every group and a few peer sets: the classes cover every rank
  // once, stay few and small.
  std::vector<RankList> classes{all};
  std::vector<RankList> by = groups;
  for (const auto& g : groups) by.push_back(g.shifted(1, P));
  by.push_back(evens);
  for (const auto& r : by) {
    std::vector<RankList> next;
    for (const auto& c : classes) {
      RankList in = RankList::intersect(c, r), out = RankList::subtract(c, r);
      if (!in.empty()) next.push_back(std::move(in));
      if (!out.empty()) next.push_back(std::move(out));
    }
    classes = std::move(next);
  }
  Rank total = 0;
  std::size_t tuples = 0;
  for (std::size_t i = 0; i < classes.size(); ++i) {
    total += classes[i].size();
    tuples += classes[i].tuples().size();
    for (std::size_t j = i + 1; j < classes.size(); ++j) EXPECT_FALSE(classes[i].intersects(classes[j]));
  }
  EXPECT_EQ(total, P);
  EXPECT_LE(tuples, 200u);
}

TEST(RankList, HundredMillionRankListsIntersectOnTheTuples) {
  const Rank P = 100000000;
  const RankList evens = RankList::progression(0, P / 2, 2);
  const RankList threes = RankList::progression(0, (P + 2) / 3, 3);
  EXPECT_EQ(RankList::intersect(evens, threes).str(), "<1 0 {16666667 6}>");
  EXPECT_EQ(RankList::subtract(evens, threes).size(), P / 2 - (P + 5) / 6);
  EXPECT_EQ(RankList::unite(evens, threes).size(), P / 2 + (P + 2) / 3 - (P + 5) / 6);
  // Rows 0, 2, 4, ... of a 20000-wide grid, and the same shifted by 5000 columns.
  const RankList a({RankTuple{0, {{10000, 1}, {5000, 20000}}}});
  const RankList b({RankTuple{5000, {{10000, 1}, {5000, 20000}}}});
  EXPECT_EQ(RankList::intersect(a, b).str(), "<2 5000 {5000 1} {5000 20000}>");
  EXPECT_EQ(RankList::subtract(a, b).str(), "<2 0 {5000 1} {5000 20000}>");
  const RankList ab = RankList::unite(a, b);
  EXPECT_EQ(ab, RankList({RankTuple{0, {{15000, 1}, {5000, 20000}}}}));
  EXPECT_LE(ab.tuples().size(), 2u) << ab.str();
  EXPECT_EQ(a.shifted(10000, P).str(), "<2 10000 {10000 1} {5000 20000}>");
  // Moved back by 5000 the first row wraps around: its two halves go to either end.
  const RankList back = a.shifted(-5000, P);
  EXPECT_EQ(back.size(), a.size());
  EXPECT_LE(back.tuples().size(), 3u) << back.str();
  EXPECT_TRUE(back.contains(P - 1));
  EXPECT_TRUE(back.contains(4999));
  EXPECT_FALSE(back.contains(5000));
  EXPECT_TRUE(back.contains(15000));
  EXPECT_EQ(back.shifted(5000, P), a);
  const RankList all = RankList::all(P);
  EXPECT_EQ(RankList::intersect(all, all), all);
  EXPECT_EQ(RankList::subtract(all, RankList::single(P / 2)).size(), P - 1);
  EXPECT_TRUE(evens.isSubsetOf(all));
  EXPECT_FALSE(all.isSubsetOf(evens));
  EXPECT_FALSE(evens == RankList::unite(evens, RankList::single(1)));
  EXPECT_EQ(RankList::unite(evens, RankList::progression(1, P / 2, 2)), all);
}

TEST(RankList, TwentyOneDimensionsExceedTheBudgetAndStayCorrect) {
  // 2^21 ranks as 21 dimensions of 2 (digits in base 3): far more rows and nested series than
  // kMaxPiecesPerOperation, so the operations give up on the tuples part-way and enumerate.
  // Under the sanitizers it takes 31 s (2 s plain) for what the plain run has checked: the
  // enumeration of two million ranks, code the smaller tests run under the sanitizers too.
  if (testing::kUnderSanitizer) GTEST_SKIP() << "2^21 ranks enumerated: checked by the plain build's run";
  RankTuple t{0, {}};
  Rank stride = 1;
  for (int i = 0; i < 21; ++i, stride *= 3) t.dims.push_back({2, stride});
  RankTuple moved = t;
  moved.start = 1;  // digit 0 is 1 or 2: shares the members of t whose digit 0 is 1
  const RankList a({t}), b({moved});
  const RankList i = RankList::intersect(a, b), d = RankList::subtract(a, b);
  EXPECT_EQ(i.size(), Rank{1} << 20);
  EXPECT_EQ(d.size(), Rank{1} << 20);
  EXPECT_TRUE(i.contains(1 + 27));
  EXPECT_FALSE(i.contains(27));
  EXPECT_TRUE(d.contains(27));
  EXPECT_TRUE(i.isSubsetOf(b));
  EXPECT_FALSE(d.intersects(b));
  EXPECT_EQ(RankList::unite(i, d), a);
}

TEST(RankList, FuzzFindingH3GeneratesOn2p31m1Ranks) {
  // A trace of 2^31-1 ranks: building the program refines rank classes by every event's
  // ranklist, which used to enumerate every rank.
  Trace t = readTraceFile(std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/fuzz-findings/H3-generate-2p31m1-ranks.tgt");
  ASSERT_EQ(t.numRanks, 2147483647);
  PassContext ctx;
  PassManager({"resolve-comms", "summarize-timing"}).run(t, ctx);
  const gen::Program p = gen::buildProgram(t, "H3");
  EXPECT_FALSE(p.body.empty());
}

// --------------------------------------------------------------------------------------------
// Scale: a million ranks answered from a handful of integers.

TEST(RankList, MillionRankBlockWithoutMaterialising) {
  // Columns 0..1023 of the even rows of a 2048 x 1024 grid: 1,048,576 ranks in one 2-D tuple.
  const RankList l({RankTuple{0, {{1024, 1}, {1024, 2048}}}});
  ASSERT_EQ(l.tuples().size(), 1u);
  EXPECT_EQ(l.str(), "<2 0 {1024 1} {1024 2048}>");
  EXPECT_EQ(l.size(), 1048576);
  EXPECT_EQ(l.first(), 0);
  EXPECT_EQ(l.last(), 1023 * 2048 + 1023);
  EXPECT_TRUE(l.contains(0));
  EXPECT_TRUE(l.contains(1023));
  EXPECT_FALSE(l.contains(1024));
  EXPECT_FALSE(l.contains(2047));
  EXPECT_TRUE(l.contains(2048));
  EXPECT_TRUE(l.contains(1023 * 2048 + 1023));
  EXPECT_FALSE(l.contains(1023 * 2048 + 1024));
  EXPECT_FALSE(l.contains(-1));
  EXPECT_EQ(l.indexOf(2048 * 500 + 17), 1024 * 500 + 17);
  EXPECT_EQ(l.indexOf(2048 * 500 + 1500), std::nullopt);
  EXPECT_EQ(l.at(1024 * 700 + 3), 2048 * 700 + 3);
  EXPECT_EQ(l.at(1048575), 1023 * 2048 + 1023);
  EXPECT_THROW(l.at(1048576), std::out_of_range);
  // Queries on many ranks stay on the tuples: a hundred thousand lookups, no enumeration.
  Rank hits = 0;
  for (Rank r = 0; r < 2097152; r += 21) hits += l.contains(r) ? 1 : 0;
  Rank expectHits = 0;
  for (Rank r = 0; r < 2097152; r += 21) expectHits += (r % 2048) < 1024 ? 1 : 0;
  EXPECT_EQ(hits, expectHits);
  for (Rank i = 0; i < 1048576; i += 4099) {
    const Rank r = l.at(i);
    ASSERT_EQ(r, (i / 1024) * 2048 + i % 1024);
    ASSERT_EQ(l.indexOf(r), i);
  }
  // The odd rows are disjoint from it; together they are every rank of the grid.
  const RankList odd({RankTuple{1024, {{1024, 1}, {1024, 2048}}}});
  EXPECT_FALSE(l.intersects(odd));
  const RankList grid = RankList::unite(l, odd);
  EXPECT_EQ(grid.size(), 2097152);
  EXPECT_EQ(grid.str(), "<1 0 {2097152 1}>");
  EXPECT_TRUE(l.isSubsetOf(grid));
  EXPECT_FALSE(grid.isSubsetOf(l));
  EXPECT_EQ(RankList::subtract(grid, odd), l);
  EXPECT_EQ(RankList::intersect(grid, l), l);
  EXPECT_EQ(RankList::subtract(grid, l).size(), 1048576);
}

TEST(RankList, MillionRankProgression) {
  const RankList p = RankList::progression(5, 1048576, 3);
  EXPECT_EQ(p.size(), 1048576);
  EXPECT_EQ(p.first(), 5);
  EXPECT_EQ(p.last(), 5 + 3 * 1048575);
  EXPECT_TRUE(p.contains(5 + 3 * 777777));
  EXPECT_FALSE(p.contains(6 + 3 * 777777));
  EXPECT_FALSE(p.contains(5 + 3 * 1048576));
  EXPECT_EQ(p.indexOf(5 + 3 * 777777), 777777);
  EXPECT_EQ(p.at(999999), 5 + 3 * 999999);
  EXPECT_EQ(p.scalaTraceStr(), "1 -1 5 1048576 3");
  EXPECT_EQ(RankList::all(1048576).indexOf(1048575), 1048575);
  EXPECT_EQ(RankList::all(1048576).at(123456), 123456);
  const RankList all = RankList::all(1048576);
  EXPECT_TRUE(RankList::single(1048575).isSubsetOf(all));
  EXPECT_FALSE(RankList::single(1048576).isSubsetOf(all));
  EXPECT_TRUE(all.intersects(RankList::single(0)));
  EXPECT_TRUE(RankList::progression(0, 1024, 1024).isSubsetOf(all));
}

}  // namespace
}  // namespace tracegen
