// Peers that follow a relation rather than a grid direction (extrap/topology/PeerRelation.h):
// recursive doubling's rank XOR 2^k within a row (the hypercube), a pairwise exchange's rank XOR
// i (the complete graph) and a matrix transpose's partner, on their own, in an NPB-CG-like trace
// and in a hand-written all-to-all extrapolated from 4, 8 and 16 ranks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "extrap/Extrapolate.h"
#include "extrap/topology/CompleteGraph.h"
#include "extrap/topology/Hypercube.h"
#include "extrap/topology/Topology.h"
#include "extrap/topology/Transpose.h"
#include "ir/Diagnostics.h"
#include "ir/Summary.h"
#include "ir/Verify.h"
#include "tests/unit/ExtrapolateTraces.h"

namespace tracegen::extrap {
namespace {

using Values = std::vector<std::int64_t>;

// The grid NPB CG lays its ranks out on: npcols = nprows or 2 * nprows, the column fastest.
Grid cgGrid(Rank p) { return defaultGrid(p, 2, true); }

TEST(ExtrapolatePeerRelation, GridTopologyGivesClassesVariablesAndRelations) {
  const GridTopology topo(2, true);
  EXPECT_EQ(topo.describe(), "2-D grid (x the longest side)");
  const Grid g = topo.layout(32);
  EXPECT_EQ(g.str(), "8x4");
  EXPECT_EQ(topo.classCount(), 9);
  // Rank 13 is (5, 1): interior in both; rank 7 is (7, 0): x last, y first.
  EXPECT_EQ(topo.className(topo.classOf(g, 13)), "x:interior y:interior");
  EXPECT_EQ(topo.className(topo.classOf(g, 7)), "x:last y:first");
  EXPECT_TRUE(topo.classRanks(g, topo.classOf(g, 13)).contains(13));
  EXPECT_EQ(topo.scaleVars().size(), 3u);
  EXPECT_FALSE(topo.candidateScales(16).empty());
  EXPECT_EQ(topo.relations().size(), 3u);
  // The east neighbour of the interior: +1, the same step a scale-free benchmark takes.
  const auto east = topo.peerDirection(g, topo.classOf(g, 13), 1);
  ASSERT_TRUE(east.has_value());
  EXPECT_EQ(east->step, (std::array<int, 3>{1, 0, 0}));
  EXPECT_EQ(topo.storedOffset(g, topo.classOf(g, 13), *east), 1);
}

TEST(ExtrapolatePeerRelation, HypercubeFlipsOneBitOfTheRowPerStep) {
  const HypercubeRelation xr;
  const Grid g = cgGrid(32);  // 8x4
  ASSERT_EQ(g.str(), "8x4");
  EXPECT_TRUE(xr.definedOn(g));
  EXPECT_EQ(xr.steps(g), 3u);
  // Rank 13 is x = 5 (binary 101) in row 1: partners 12, 15, 9.
  EXPECT_EQ(relationList(xr, g, 13), (Values{31, 2, 28}));
  EXPECT_EQ(relationList(xr, g, 0), (Values{1, 2, 4}));
  // A row of 3 ranks is no hypercube.
  EXPECT_FALSE(xr.definedOn(Grid{2, {3, 4, 1}}));
  EXPECT_EQ(exactLog2(8), 3);
  EXPECT_EQ(exactLog2(6), -1);
}

TEST(ExtrapolatePeerRelation, CompleteGraphMeetsEveryRankOfTheRowOnce) {
  const CompleteGraphRelation cr;
  const Grid g = cgGrid(32);  // 8x4
  EXPECT_TRUE(cr.definedOn(g));
  EXPECT_EQ(cr.steps(g), 7u);
  // Rank 13 is x = 5 in row 1 (ranks 8 .. 15): partners 13 XOR 1 .. 13 XOR 7 = 12, 15, 14, 9,
  // 8, 11, 10, every other rank of its row once.
  EXPECT_EQ(relationList(cr, g, 13), (Values{31, 2, 1, 28, 27, 30, 29}));
  // Ranks that agree in their row's low bits agree in their lists (8 and 12 at 4 apart).
  EXPECT_EQ(relationList(cr, g, 8), relationList(cr, g, 0));
  EXPECT_NE(relationList(cr, g, 9), relationList(cr, g, 8));
  // On a row of 2 it is the hypercube's one step; a row of 6 is neither.
  EXPECT_EQ(relationList(cr, Grid{1, {2, 1, 1}}, 1), relationList(HypercubeRelation(), Grid{1, {2, 1, 1}}, 1));
  EXPECT_FALSE(cr.definedOn(Grid{2, {6, 4, 1}}));
  EXPECT_EQ(cr.name(), gen::relationName(gen::GridRelation::RowPairwise));
}

TEST(ExtrapolatePeerRelation, TransposeMirrorsTheBlocksOfTheGrid) {
  const TransposeRelation tr;
  const Grid square = cgGrid(16);  // 4x4: (x, y) with (y, x)
  EXPECT_EQ(TransposeRelation::partner(square, 1), 4);
  EXPECT_EQ(TransposeRelation::partner(square, 5), 5);
  EXPECT_EQ(relationList(tr, square, 5), (Values{0}));
  const Grid wide = cgGrid(8);  // 4x2, h = 2: (x, y) with (2y + x mod 2, x div 2)
  EXPECT_EQ(TransposeRelation::partner(wide, 2), 4);
  EXPECT_EQ(TransposeRelation::partner(wide, 4), 2);
  EXPECT_EQ(TransposeRelation::partner(wide, 1), 1);
  EXPECT_FALSE(tr.definedOn(Grid{2, {3, 2, 1}}));
  EXPECT_FALSE(tr.definedOn(Grid{1, {8, 1, 1}}));
}

TEST(GridRelation, PeersAndDomainsAsTheBenchmarkComputesThem) {
  using gen::GridRelation;
  const std::array<std::int64_t, 3> g8x4{8, 4, 1}, g6x4{6, 4, 1}, g4x2{4, 2, 1}, g4x4{4, 4, 1};
  // Rank 13 is x = 5 (binary 101) in row 1: partners 12, 15, 9 over log2(8) = 3 steps.
  EXPECT_EQ(gen::relationSteps(GridRelation::RowXor, 2, g8x4), 3);
  EXPECT_EQ(gen::relationPeer(GridRelation::RowXor, 2, g8x4, 13, 0), 12);
  EXPECT_EQ(gen::relationPeer(GridRelation::RowXor, 2, g8x4, 13, 1), 15);
  EXPECT_EQ(gen::relationPeer(GridRelation::RowXor, 2, g8x4, 13, 2), 9);
  // In 1-D the row is every rank.
  EXPECT_EQ(gen::relationSteps(GridRelation::RowXor, 1, {16, 1, 1}), 4);
  EXPECT_EQ(gen::relationPeer(GridRelation::RowXor, 1, {16, 1, 1}, 5, 3), 13);
  // A row of 6 is no hypercube; the transpose needs px a multiple of py, in 2-D.
  EXPECT_FALSE(gen::relationDefinedOn(GridRelation::RowXor, 2, g6x4));
  EXPECT_EQ(gen::relationSteps(GridRelation::RowXor, 2, g6x4), 0);
  EXPECT_FALSE(gen::relationDefinedOn(GridRelation::Transpose, 2, g6x4));
  EXPECT_FALSE(gen::relationDefinedOn(GridRelation::Transpose, 1, {8, 1, 1}));
  EXPECT_TRUE(gen::relationDefinedOn(GridRelation::Transpose, 2, g8x4));
  EXPECT_EQ(gen::relationSteps(GridRelation::Transpose, 2, g8x4), 1);
  // 4x2, h = 2: (x, y) with (2y + x mod 2, x div 2); square 4x4: (x, y) with (y, x).
  EXPECT_EQ(gen::relationPeer(GridRelation::Transpose, 2, g4x2, 2, 0), 4);
  EXPECT_EQ(gen::relationPeer(GridRelation::Transpose, 2, g4x2, 4, 0), 2);
  EXPECT_EQ(gen::relationPeer(GridRelation::Transpose, 2, g4x2, 1, 0), 1);
  EXPECT_EQ(gen::relationPeer(GridRelation::Transpose, 2, g4x4, 1, 0), 4);
  EXPECT_EQ(gen::relationPeer(GridRelation::Transpose, 2, g4x4, 5, 0), 5);
  // The pairwise exchange: rank XOR (k + 1) over px - 1 steps, px a power of two.
  EXPECT_EQ(gen::relationSteps(GridRelation::RowPairwise, 2, g8x4), 7);
  EXPECT_EQ(gen::relationPeer(GridRelation::RowPairwise, 2, g8x4, 13, 0), 12);
  EXPECT_EQ(gen::relationPeer(GridRelation::RowPairwise, 2, g8x4, 13, 6), 10);
  EXPECT_EQ(gen::relationSteps(GridRelation::RowPairwise, 1, {16, 1, 1}), 15);
  EXPECT_FALSE(gen::relationDefinedOn(GridRelation::RowPairwise, 2, g6x4));
  EXPECT_EQ(gen::relationSteps(GridRelation::RowPairwise, 2, g6x4), 0);
  // The extrapolation's relations are these (the one definition both evaluate).
  EXPECT_EQ(HypercubeRelation().kind(), GridRelation::RowXor);
  EXPECT_EQ(TransposeRelation().kind(), GridRelation::Transpose);
  EXPECT_EQ(CompleteGraphRelation().kind(), GridRelation::RowPairwise);
  EXPECT_EQ(HypercubeRelation().name(), gen::relationName(GridRelation::RowXor));
}

// A CG-like trace at p ranks, as the recorder clusters it: a loop of log2(px) steps, each an
// MPI_Irecv from rank XOR 2^k with tag k+1 and 1024/py doubles (one group per list of peers),
// then the transpose exchange with 1024/px doubles (one group per partner offset).
Trace cgTrace(Rank p) {
  const Grid g = cgGrid(p);
  const HypercubeRelation xr;
  Trace t;
  t.numRanks = p;
  t.origin = "hand-written";
  t.comms = standardCommunicators(p);
  t.datatypes = {{10, "MPI_DOUBLE", 8}};
  auto add = [&](Op op, std::string_view site) -> Event& {
    Event e;
    e.id = static_cast<std::int64_t>(t.events.size());
    e.op = op;
    e.site = t.internSite(site);
    e.ranks = RankList::all(p);
    t.events.push_back(e);
    return t.events.back();
  };
  auto groupsOf = [&](auto peers) {
    std::map<Values, std::vector<Rank>> by;
    for (Rank r = 0; r < p; ++r) by[peers(r)].push_back(r);
    std::vector<ValueGroup> out;
    for (const auto& [v, ranks] : by) out.push_back({RankList::fromSorted(ranks), v});
    return out;
  };
  add(Op::Init, "cg.c:1");
  const auto steps = static_cast<std::int64_t>(xr.steps(g));
  Values tags;
  for (std::int64_t k = 1; k <= steps; ++k) tags.push_back(k);
  Event& sum = add(Op::Irecv, "cg.c:2");
  sum.loops.push_back(LoopLevel{{{RankList::all(p), {steps}}}, {{RankList::all(p), {1}}}});
  sum.setParam(Param::Comm, {{RankList::all(p), {kCommWorld}}});
  sum.setParam(Param::Count, {{RankList::all(p), {1024 / g.ext[1]}}});
  sum.setParam(Param::Datatype, {{RankList::all(p), {10}}});
  sum.setParam(Param::Source, groupsOf([&](Rank r) { return relationList(xr, g, r); }), true);
  sum.setParam(Param::Tag, {{RankList::all(p), tags}});
  Event& transpose = add(Op::Irecv, "cg.c:3");
  transpose.setParam(Param::Comm, {{RankList::all(p), {kCommWorld}}});
  transpose.setParam(Param::Count, {{RankList::all(p), {1024 / g.ext[0]}}});
  transpose.setParam(Param::Datatype, {{RankList::all(p), {10}}});
  transpose.setParam(Param::Source, groupsOf([&](Rank r) {
                       return Values{((TransposeRelation::partner(g, r) - r) % p + p) % p};
                     }),
                     true);
  transpose.setParam(Param::Tag, {{RankList::all(p), {100}}});
  add(Op::Finalize, "cg.c:4");
  return t;
}

std::vector<std::string> sourcesOf(const Trace& t, std::size_t event) {
  std::vector<std::string> out;
  for (const ValueGroup& g : t.events[event].param(Param::Source)->groups)
    out.push_back(g.ranks.str() + " " + valueListStr(g.values));
  std::sort(out.begin(), out.end());  // the extrapolation orders groups by rank, cgTrace by list
  return out;
}

// Every rank makes the same calls and sends and receives the same bytes in both traces.
void expectSameCallsAndBytes(const Trace& got, const Trace& want) {
  const TraceSummary g = summarizeTrace(got, "got"), w = summarizeTrace(want, "want");
  ASSERT_EQ(g.perRank.size(), w.perRank.size());
  for (std::size_t k = 0; k < g.perRank.size(); ++k) {
    EXPECT_EQ(g.perRank[k].ops, w.perRank[k].ops) << "rank " << k;
    EXPECT_EQ(g.perRank[k].bytesSent, w.perRank[k].bytesSent) << "rank " << k;
    EXPECT_EQ(g.perRank[k].bytesReceived, w.perRank[k].bytesReceived) << "rank " << k;
  }
}

TEST(ExtrapolatePeerRelation, CgLikePeersAreExtrapolatedRankByRank) {
  const std::vector<ExtrapolateInput> in{{"cg-4.tgt", cgTrace(4)}, {"cg-8.tgt", cgTrace(8)}, {"cg-16.tgt", cgTrace(16)}};
  for (Rank target : {32, 64}) {
    const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{target, {}});
    EXPECT_TRUE(r.descending) << target;
    verifyStructure(r.trace, "out");
    const Trace want = cgTrace(target);
    // The peers, the steps (trip count and tags) and the counts, group by group.
    EXPECT_EQ(sourcesOf(r.trace, 1), sourcesOf(want, 1)) << target;
    EXPECT_EQ(sourcesOf(r.trace, 2), sourcesOf(want, 2)) << target;
    EXPECT_EQ(r.trace.events[1].loops.at(0).iter.at(0).values, want.events[1].loops.at(0).iter.at(0).values);
    EXPECT_EQ(r.trace.events[1].param(Param::Tag)->groups.at(0).values, want.events[1].param(Param::Tag)->groups.at(0).values);
    expectSameCallsAndBytes(r.trace, want);
    EXPECT_GE(r.stats.at("peers by relation"), 2);
  }
}

TEST(ExtrapolatePeerRelation, PeersNoRelationGivesAreStillRefused) {
  // The transpose at 4 and 16 ranks, and at 8 a mirror (size - 1 - rank), as samples/apps/cg.c.
  std::vector<ExtrapolateInput> in{{"cg-4.tgt", cgTrace(4)}, {"cg-8.tgt", cgTrace(8)}, {"cg-16.tgt", cgTrace(16)}};
  std::vector<ValueGroup> mirror;
  for (Rank r = 0; r < 8; ++r) mirror.push_back({RankList::single(r), {((7 - r - r) % 8 + 8) % 8}});
  in[1].trace.events[2].setParam(Param::Source, mirror, true);
  EXPECT_THROW(extrapolate(in, ExtrapolateOptions{32, {}}), InputError);
}

TEST(ExtrapolatePeerRelation, HandWrittenAllToAllIsExtrapolatedExactly) {
  // Rounds of rank XOR i (the complete-graph relation, P-1 steps) and of a shift exchange
  // (offsets 1 .. P-1: a progression whose length follows P), from 4, 8 and 16 ranks.
  const std::vector<ExtrapolateInput> in{traces::input("pw4.tgt", traces::pairwiseText(4)),
                                         traces::input("pw8.tgt", traces::pairwiseText(8)),
                                         traces::input("pw16.tgt", traces::pairwiseText(16))};
  for (Rank target : {32, 64}) {
    const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{target, {}});
    verifyStructure(r.trace, "out");
    const Trace want = traces::input("want.tgt", traces::pairwiseText(target)).trace;
    EXPECT_EQ(sourcesOf(r.trace, 1), sourcesOf(want, 1)) << target;
    EXPECT_EQ(sourcesOf(r.trace, 2), sourcesOf(want, 2)) << target;
    EXPECT_EQ(r.trace.events[2].param(Param::Dest)->groups.at(0).values, want.events[2].param(Param::Dest)->groups.at(0).values);
    EXPECT_EQ(r.trace.events[1].loops.at(0).iter.at(0).values, (Values{target - 1}));
    expectSameCallsAndBytes(r.trace, want);
    EXPECT_GE(r.stats.at("peers by relation"), 2);
    EXPECT_GE(r.stats.at("peer lists as progressions"), 2);
  }
}

}  // namespace
}  // namespace tracegen::extrap
