// The rank-set data model (ir/RankShape.h): predicates evaluate, negate and measure as
// documented, print as IR text; shapes found by rank-ranges hold exactly for their sets; peer
// offsets (gen/RankSetText.h) pick the representative that needs no wrap.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gen/RankSetText.h"
#include "ir/RankList.h"
#include "ir/RankShape.h"
#include "passes/RankRanges.h"

namespace tracegen {
namespace {

RankPred atom(RankCmp cmp, Rank value, Rank offset = 0, std::vector<Rank> mods = {}) {
  return RankPred::of(RankAtom::compare(cmp, value, offset, std::move(mods)));
}

std::vector<Rank> membersOf(const RankPred& p, Rank numRanks) {
  std::vector<Rank> out;
  for (Rank r = 0; r < numRanks; ++r)
    if (p.holds(r)) out.push_back(r);
  return out;
}

TEST(RankShape, AtomsEvaluateWithTruncatingRemainders) {
  EXPECT_EQ(membersOf(atom(RankCmp::Eq, 1, 0, {2}), 6), (std::vector<Rank>{1, 3, 5}));
  // (rank - 3) mod 4 < 2: -3 mod 4 is -3 (as C and the coNCePTuaL spelling compute it).
  EXPECT_EQ(membersOf(atom(RankCmp::Lt, 2, 3, {4}), 8), (std::vector<Rank>{0, 1, 2, 3, 4, 7}));
  EXPECT_EQ(membersOf(atom(RankCmp::Eq, 0, 0, {7, 3}), 14), (std::vector<Rank>{0, 3, 6, 7, 10, 13}));
  EXPECT_EQ(membersOf(RankPred::of(RankAtom::in({7, 3, 3})), 10), (std::vector<Rank>{3, 7}));
  EXPECT_EQ(membersOf(RankPred::of(RankAtom::in({3, 7}).negated()), 5), (std::vector<Rank>{0, 1, 2, 4}));
}

TEST(RankShape, AndOrNegationAndText) {
  RankPred p = RankPred::any({atom(RankCmp::Eq, 0), RankPred::all({atom(RankCmp::Ge, 8), atom(RankCmp::Lt, 16)})});
  EXPECT_EQ(p.str(), "rank = 0 or (rank >= 8 and rank < 16)");
  EXPECT_EQ(p.negated().str(), "rank != 0 and (rank < 8 or rank >= 16)");
  for (Rank r = 0; r < 20; ++r) EXPECT_NE(p.holds(r), p.negated().holds(r)) << r;
  EXPECT_EQ(RankPred::all({}).kind, RankPred::Kind::True);
  EXPECT_EQ(RankPred::any({}).kind, RankPred::Kind::False);
  EXPECT_EQ(RankPred::any({atom(RankCmp::Lt, 3)}), atom(RankCmp::Lt, 3));  // one child is that child
  EXPECT_EQ(RankPred::always().negated(), RankPred::never());
  EXPECT_EQ(atom(RankCmp::Lt, 2, 3, {4, 2}).str("t"), "(t - 3) mod 4 mod 2 < 2");
  EXPECT_EQ(RankPred::of(RankAtom::in({3, 7, 20})).str(), "rank in {3, 7, 20}");
}

// size() is the length of the C spelling with `rank`: the measure the pass compares.
TEST(RankShape, SizeIsTheLengthOfTheInfixText) {
  const std::vector<RankPred> preds = {
      RankPred::always(),
      atom(RankCmp::Eq, 5),
      atom(RankCmp::Ne, 12345),
      atom(RankCmp::Lt, 2, 3, {4}),
      atom(RankCmp::Ge, 1, 0, {16, 4}),
      RankPred::all({atom(RankCmp::Eq, 1, 0, {2}), atom(RankCmp::Lt, 8)}),
      RankPred::any({atom(RankCmp::Eq, 0), RankPred::all({atom(RankCmp::Ge, 8), atom(RankCmp::Lt, 16)})}),
      RankPred::all({atom(RankCmp::Ne, 5), RankPred::any({atom(RankCmp::Lt, 8), atom(RankCmp::Ge, 16)})}),
      RankPred::of(RankAtom::in({3, 7, 20})),
  };
  for (const RankPred& p : preds) {
    RankShape s;
    s.pred = p;
    EXPECT_EQ(p.size(), gen::cRankCondition(s).size()) << gen::cRankCondition(s);
  }
}

TEST(RankShape, ShapesOfThePassHoldExactlyForTheirSets) {
  const Rank p = 24;
  const std::vector<RankList> sets = {
      RankList::all(p),
      RankList(),
      RankList::single(7),
      RankList::progression(1, 11, 2),
      RankList({RankTuple{5, {{2, 1}, {3, 6}}}}),
      RankList::fromSorted({2, 9, 17}),
      RankList::unite(RankList::single(0), RankList({RankTuple{7, {{3, 1}, {2, 6}}}})),
      RankList::subtract(RankList::all(p), RankList::single(11)),
  };
  std::vector<std::string> kinds;
  for (const RankList& set : sets) {
    const RankShape s = rankShape(set, p);
    kinds.emplace_back(kindName(s.kind));
    EXPECT_EQ(s.numRanks, p);
    EXPECT_EQ(s.members, set.size());
    EXPECT_EQ(membersOf(s.pred, p), set.toVector()) << s.str();
    // The parts are the members too, in ascending order.
    std::vector<Rank> fromParts;
    for (const RankTuple& t : s.parts)
      for (Rank r : RankList({t}).toVector()) fromParts.push_back(r);
    EXPECT_EQ(fromParts, set.toVector()) << s.str();
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"all", "empty", "one", "progression", "block", "list", "union",
                                             "complement"}));
  EXPECT_EQ(rankShape(RankList::progression(1, 11, 2), p).str(),
            "progression of 24: rank mod 2 = 1 and rank < 22  [parts 1+(11x2)]");
  EXPECT_EQ(rankShape(RankList::subtract(RankList::all(p), RankList::single(11)), p).pred.str(), "rank != 11");
}

TEST(RankShape, PeerOffsetsNeedNoWrapWhereTheyStayInRange) {
  auto peer = [](std::int64_t off, const RankList& r, Rank p) {
    const gen::PeerOffset o = gen::peerOffset(off, r, p);
    return std::to_string(o.offset) + (o.wrap ? " wrap" : "");
  };
  const RankList all = RankList::all(8);
  EXPECT_EQ(peer(0, all, 8), "0");
  EXPECT_EQ(peer(8, all, 8), "0");
  EXPECT_EQ(peer(1, all, 8), "1 wrap");
  EXPECT_EQ(peer(7, all, 8), "-1 wrap");
  EXPECT_EQ(peer(-1, all, 8), "-1 wrap");
  EXPECT_EQ(peer(4, all, 8), "4 wrap");  // a tie: the positive one
  EXPECT_EQ(peer(5, all, 8), "-3 wrap");
  EXPECT_EQ(peer(7, RankList::progression(1, 7), 8), "-1");
  EXPECT_EQ(peer(-1, RankList::progression(0, 7), 8), "-1 wrap");  // 0 - 1 and 6 + 7 leave 0 … 7
  EXPECT_EQ(peer(1, RankList::progression(0, 7), 8), "1");
  EXPECT_EQ(peer(5, RankList::progression(0, 3), 8), "5");  // +5 fits 0 … 2, though -3 is shorter
  EXPECT_EQ(peer(-6, RankList::fromSorted({6, 7}), 8), "-6");
  EXPECT_EQ(peer(3, RankList::fromSorted({0, 7}), 8), "3 wrap");
}

}  // namespace
}  // namespace tracegen
