// The level-2 alignment of the recorder's merge: Myers' longest common subsequence
// (record/CommonSubsequence.h) against a full-table reference on small cases and random
// sequences, its work bound, and the merge of two partial traces along it (buildGlobal): the
// merged trace shares exactly the common subsequence's events, n + m - LCS in all, and every
// rank's expansion is its own trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "record/Clustering.h"
#include "record/CommonSubsequence.h"
#include "tests/support/RecordSim.h"

using namespace tracegen;
using namespace tracegen::record;
using tracegen::record::test::expand;

namespace {

using Seq = std::vector<std::uint32_t>;
using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

// The textbook (n + 1) x (m + 1) table: the length of a longest common subsequence.
std::size_t referenceLength(const Seq& a, const Seq& b) {
  std::vector<std::size_t> row(b.size() + 1, 0), prev(b.size() + 1, 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::swap(row, prev);
    for (std::size_t j = 1; j <= b.size(); ++j)
      row[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], row[j - 1]);
  }
  return row[b.size()];
}

// Matches must pair equal elements at strictly increasing positions on both sides.
void expectCommonSubsequence(const Seq& a, const Seq& b, const Matches& ms) {
  for (std::size_t k = 0; k < ms.size(); ++k) {
    ASSERT_LT(ms[k].first, a.size());
    ASSERT_LT(ms[k].second, b.size());
    EXPECT_EQ(a[ms[k].first], b[ms[k].second]) << "match " << k;
    if (k > 0) {
      EXPECT_LT(ms[k - 1].first, ms[k].first) << "match " << k;
      EXPECT_LT(ms[k - 1].second, ms[k].second) << "match " << k;
    }
  }
}

Matches lcs(const Seq& a, const Seq& b) {
  auto ms = longestCommonSubsequence(a, b, std::size_t{1} << 30);
  EXPECT_TRUE(ms.has_value());
  if (!ms) return {};
  expectCommonSubsequence(a, b, *ms);
  return *ms;
}

Matches diagonal(std::size_t from, std::size_t to, std::ptrdiff_t shift = 0) {
  Matches ms;
  for (std::size_t i = from; i < to; ++i) ms.emplace_back(i, static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) + shift));
  return ms;
}

Seq iota(std::uint32_t n, std::uint32_t first = 1) {
  Seq s(n);
  for (std::uint32_t k = 0; k < n; ++k) s[k] = first + k;
  return s;
}

// A partial trace of one rank: one barrier per letter of `sites`, each letter its call site.
Trace letters(Rank r, const std::string& sites) {
  Trace t;
  t.numRanks = 2;
  for (char c : sites) {
    Event e;
    e.op = Op::Barrier;
    e.site = t.internSite(std::string("site_") + c);
    e.ranks = RankList::single(r);
    e.setParam(Param::Comm, {ValueGroup{RankList::single(r), {kCommWorld}}});
    t.events.push_back(std::move(e));
  }
  return t;
}

Seq codes(const std::string& s) {
  Seq v;
  for (char c : s) v.push_back(static_cast<std::uint32_t>(c));
  return v;
}

Trace merge(const Trace& a, const Trace& b, std::size_t work = kAlignWork) {
  return buildGlobal({{1, a}, {2, b}}, ClusterTable{}, 2, work);
}

}  // namespace

TEST(RecordAlign, IdenticalListsMatchEveryElement) {
  const Seq a = iota(200);
  EXPECT_EQ(lcs(a, a), diagonal(0, 200));
}

TEST(RecordAlign, DisjointAndEmptyListsMatchNothing) {
  EXPECT_TRUE(lcs(iota(30), iota(20, 100)).empty());
  EXPECT_TRUE(lcs({}, iota(5)).empty());
  EXPECT_TRUE(lcs(iota(5), {}).empty());
  EXPECT_TRUE(lcs({}, {}).empty());
}

TEST(RecordAlign, OneInsertionOrDeletionAtEitherEndOrInTheMiddle) {
  const Seq base = iota(40);
  for (std::size_t at : {std::size_t{0}, std::size_t{17}, std::size_t{40}}) {
    Seq longer = base;
    longer.insert(longer.begin() + static_cast<std::ptrdiff_t>(at), 999);
    // Everything of `base` matches, around the extra element.
    Matches expected = diagonal(0, at);
    for (const auto& m : diagonal(at, 40, 1)) expected.push_back(m);
    EXPECT_EQ(lcs(base, longer), expected) << "insertion at " << at;
    for (auto& [i, j] : expected) std::swap(i, j);
    EXPECT_EQ(lcs(longer, base), expected) << "deletion at " << at;
    // A substitution: both sides keep the rest.
    Seq other = base;
    if (at < other.size()) {
      other[at] = 999;
      EXPECT_EQ(lcs(base, other).size(), 39u) << "substitution at " << at;
    }
  }
}

TEST(RecordAlign, SeveralLongestSubsequencesGiveOneDeterministicChoice) {
  const Seq a{1, 2, 1, 2, 3}, b{2, 1, 2, 1, 3};
  const Matches first = lcs(a, b);
  EXPECT_EQ(first.size(), 4u);  // 1 2 1 3 or 2 1 2 3
  for (int k = 0; k < 3; ++k) EXPECT_EQ(lcs(a, b), first);
  EXPECT_EQ(lcs({1, 2}, {2, 1}).size(), 1u);
}

TEST(RecordAlign, RandomSequencesMatchTheReferenceWithinTheWorkBound) {
  std::mt19937 rng(11);
  auto below = [&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); };
  for (int trial = 0; trial < 3000; ++trial) {
    const std::uint32_t alphabet = 1 + below(trial % 3 == 0 ? 2 : 6);
    Seq a(below(40)), b;
    for (auto& v : a) v = below(alphabet);
    if (trial % 2) {  // a near copy: few edits, long snakes
      for (auto v : a) {
        if (below(8) == 0) b.push_back(below(alphabet));
        if (below(8) != 0) b.push_back(v);
      }
    } else {
      b.resize(below(40));
      for (auto& v : b) v = below(alphabet);
    }
    const std::size_t length = referenceLength(a, b);
    const std::size_t n = a.size(), m = b.size(), edits = n + m - 2 * length;
    ASSERT_EQ(lcs(a, b).size(), length) << "trial " << trial;
    // The documented bound (CommonSubsequence.h, Clustering.h) is enough.
    EXPECT_TRUE(longestCommonSubsequence(a, b, 2 * (n + m) * (edits + 1) + 1).has_value()) << "trial " << trial;
  }
}

TEST(RecordAlign, WorkBeyondTheLimitGivesUp) {
  std::mt19937 rng(7);
  Seq a(1000), b(1000);
  for (auto* s : {&a, &b})
    for (auto& v : *s) v = static_cast<std::uint32_t>(rng() % 2);
  EXPECT_FALSE(longestCommonSubsequence(a, b, 10000).has_value());
  EXPECT_TRUE(longestCommonSubsequence(a, b, std::size_t{1} << 30).has_value());
  EXPECT_TRUE(longestCommonSubsequence(a, a, 1100).has_value());  // no edits: linear work
  // Elements the other side lacks are set aside before the search: disjoint lists cost nothing.
  EXPECT_TRUE(longestCommonSubsequence(iota(1000), iota(1000, 5000), 10).has_value());
}

TEST(RecordAlign, MergedTraceSharesTheCommonSubsequence) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    std::string sa(rng() % 30, 'a'), sb(rng() % 30, 'a');
    const std::uint32_t alphabet = 2 + rng() % 4;
    for (char& c : sa) c = static_cast<char>('a' + rng() % alphabet);
    for (char& c : sb) c = static_cast<char>('a' + rng() % alphabet);
    const Trace ta = letters(0, sa), tb = letters(1, sb);
    const Trace g = merge(ta, tb);
    const std::size_t length = referenceLength(codes(sa), codes(sb));
    ASSERT_EQ(g.events.size(), sa.size() + sb.size() - length) << sa << " / " << sb;
    const auto shared = std::count_if(g.events.begin(), g.events.end(),
                                      [](const Event& e) { return e.ranks.contains(0) && e.ranks.contains(1); });
    EXPECT_EQ(static_cast<std::size_t>(shared), length) << sa << " / " << sb;
    EXPECT_EQ(expand(g, 0), expand(ta, 0)) << sa << " / " << sb;
    EXPECT_EQ(expand(g, 1), expand(tb, 1)) << sa << " / " << sb;
  }
}

TEST(RecordAlign, MergeKeepsEachSidesOrderAndIsDeterministic) {
  // Two longest common subsequences ("ab", "ac"): the choice is the same every time, and
  // between shared events the first partial's own events come first.
  const Trace ta = letters(0, "xabcy"), tb = letters(1, "zacbw");
  const Trace g = merge(ta, tb);
  ASSERT_EQ(g.events.size(), 8u);  // 5 + 5 - 2
  std::string order;
  for (const Event& e : g.events) order += g.siteName(e.site).back();
  EXPECT_EQ(merge(ta, tb), g);
  // Sharing a and b, or a and c; in each gap rank 0's events come before rank 1's.
  EXPECT_TRUE(order == "xzacbcyw" || order == "xzabcybw") << order;
}

TEST(RecordAlign, CostlyAlignmentsConcatenate) {
  const Trace ta = letters(0, "abcdef"), tb = letters(1, "abcxef");
  const Trace aligned = merge(ta, tb), concatenated = merge(ta, tb, 3);
  EXPECT_EQ(aligned.events.size(), 7u);
  ASSERT_EQ(concatenated.events.size(), 12u);
  EXPECT_EQ(expand(concatenated, 0), expand(ta, 0));
  EXPECT_EQ(expand(concatenated, 1), expand(tb, 1));
}
