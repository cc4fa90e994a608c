// Extrapolation (extrap/Extrapolate.h) on hand-written traces: topology inference, position
// classes, peers as grid directions, fitted parameters, and the errors for what no model
// explains.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "bench/SyntheticStencil.h"
#include "extrap/Extrapolate.h"
#include "tests/unit/ExtrapolateTraces.h"
#include "ir/Diagnostics.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "ir/Verify.h"

namespace tracegen::extrap {
namespace {

using traces::input;
using traces::ringText;
using traces::sortText;

using Values = std::vector<std::int64_t>;



ExtrapolateInput stencil(Rank px, Rank py) {
  return {fmt::format("stencil-{}x{}.tgt", px, py), makeStencilTrace(px, py, 20)};
}

std::string errorOf(const std::vector<ExtrapolateInput>& in, Rank ranks, std::optional<Grid> grid = {}) {
  try {
    extrapolate(in, ExtrapolateOptions{ranks, grid});
  } catch (const InputError& e) {
    return e.render();
  }
  return "no error";
}

// Per-rank calls and bytes of two traces are identical.
void expectSameCalls(const Trace& a, const Trace& b) {
  const TraceSummary sa = summarizeTrace(a, "a");
  const TraceSummary sb = summarizeTrace(b, "b");
  ASSERT_EQ(sa.perRank.size(), sb.perRank.size());
  for (std::size_t r = 0; r < sa.perRank.size(); ++r) {
    EXPECT_EQ(sa.perRank[r].ops, sb.perRank[r].ops) << "rank " << r;
    EXPECT_EQ(sa.perRank[r].bytesSent, sb.perRank[r].bytesSent) << "rank " << r;
    EXPECT_EQ(sa.perRank[r].bytesReceived, sb.perRank[r].bytesReceived) << "rank " << r;
  }
}

// A halo exchange on a grid, built per rank as a recorder would cluster it: every rank posts
// one MPI_Irecv per existing neighbour (west, east, south, north, down, up; one call site, a
// loop of as many iterations) and completes them with one MPI_Waitall. Ranks with the same
// peers form one group. With `procNull`, a missing neighbour is MPI_PROC_NULL instead. With
// `points` (2-D only), N points of each dimension are split over the ranks as block
// distributions do (the first N mod p coordinates one more) and a message carries the face:
// 8 values per point of the other dimension, as bt_like's copy_faces; else 64 values each.
Trace haloTrace(const Grid& g, bool periodic, bool procNull = false, std::int64_t points = 0) {
  Trace t;
  const Rank p = g.size();
  t.numRanks = p;
  t.origin = "hand-written";
  t.comms = standardCommunicators(p);
  t.datatypes = {{10, "MPI_DOUBLE", 8}};
  std::map<Values, std::vector<Rank>> bySources;
  std::map<Values, std::vector<Rank>> byFaces;  // a list's shortest period: the recorder writes [560 560] as [560]
  for (Rank r = 0; r < p; ++r) {
    const auto c = g.coords(r);
    Values sources, faces;
    auto face = [&](int d) {
      if (points == 0) return std::int64_t{64};
      const auto other = static_cast<std::size_t>(1 - d);
      return 8 * (points / g.ext[other] + (c[other] < points % g.ext[other] ? 1 : 0));
    };
    for (int d = 0; d < g.dims; ++d)
      for (int s : {-1, 1}) {
        auto n = c;
        const auto du = static_cast<std::size_t>(d);
        n[du] += s;
        if (n[du] < 0 || n[du] >= g.ext[du]) {
          if (procNull) {
            sources.push_back(kProcNull);
            faces.push_back(face(d));
            continue;
          }
          if (!periodic) continue;
          n[du] = (n[du] + g.ext[du]) % g.ext[du];
        }
        sources.push_back((g.rankOf(n) - r + p) % p);
        faces.push_back(face(d));
      }
    bySources[sources].push_back(r);
    for (std::size_t n = 1; n <= faces.size(); ++n)
      if (faces.size() % n == 0 && std::equal(faces.begin() + static_cast<std::ptrdiff_t>(n), faces.end(), faces.begin())) {
        faces.resize(n);
        break;
      }
    byFaces[faces].push_back(r);
  }
  auto add = [&](Op op, std::string_view site) -> Event& {
    Event e;
    e.id = static_cast<std::int64_t>(t.events.size());
    e.op = op;
    e.site = t.internSite(site);
    e.ranks = RankList::all(p);
    t.events.push_back(e);
    return t.events.back();
  };
  add(Op::Init, "halo.c:1");
  std::vector<ValueGroup> iter, sources, counts, requests, faceCounts;
  for (const auto& [faces, ranks] : byFaces) faceCounts.push_back({RankList::fromSorted(ranks), faces});
  for (const auto& [list, ranks] : bySources) {
    const RankList rl = RankList::fromSorted(ranks);
    const auto k = static_cast<std::int64_t>(list.size());
    iter.push_back({rl, {k}});
    sources.push_back({rl, list});
    counts.push_back({rl, {k}});
    Values req;
    for (std::int64_t i = 0; i < k; ++i) req.push_back(kLatestRequest - k + 1 + i);
    requests.push_back({rl, req});
  }
  Event& recv = add(Op::Irecv, "halo.c:2");
  recv.loops.push_back(LoopLevel{iter, {{RankList::all(p), {1}}}});
  recv.setParam(Param::Comm, {{RankList::all(p), {kCommWorld}}});
  recv.setParam(Param::Count, points == 0 ? std::vector<ValueGroup>{{RankList::all(p), {64}}} : faceCounts);
  recv.setParam(Param::Datatype, {{RankList::all(p), {10}}});
  recv.setParam(Param::Source, sources, true);
  recv.setParam(Param::Tag, {{RankList::all(p), {7}}});
  Event& wait = add(Op::Waitall, "halo.c:3");
  wait.setParam(Param::Count, counts);
  wait.setParam(Param::Requests, requests);
  add(Op::Finalize, "halo.c:4");
  return t;
}

TEST(ExtrapolateTopology, DefaultGridsAreBalancedWithXSmallest) {
  EXPECT_EQ(defaultGrid(12, 2).str(), "3x4");
  EXPECT_EQ(defaultGrid(8, 2).str(), "2x4");
  EXPECT_EQ(defaultGrid(64, 2).str(), "8x8");
  EXPECT_EQ(defaultGrid(1 << 20, 2).str(), "1024x1024");
  EXPECT_EQ(defaultGrid(12, 3).str(), "2x2x3");
  EXPECT_EQ(defaultGrid(18, 3).str(), "2x3x3");
  EXPECT_EQ(defaultGrid(64, 3).str(), "4x4x4");
  EXPECT_EQ(defaultGrid(1 << 20, 3).str(), "64x128x128");
  std::string problem;
  EXPECT_EQ(parseGrid("8x8", problem)->str(), "8x8");
  EXPECT_FALSE(parseGrid("8x", problem));
  EXPECT_FALSE(parseGrid("1x8", problem));
}

TEST(ExtrapolateTopology, ClassesAreBlocksOfTheGrid) {
  const Grid g = defaultGrid(16, 2);  // 4x4
  const int interior = kInterior + 3 * kInterior;
  EXPECT_EQ(classRanks(g, interior).toVector(), (std::vector<Rank>{5, 6, 9, 10}));
  EXPECT_EQ(className(2, interior), "x:interior y:interior");
  const int lastFirst = kLast + 3 * kFirst;
  EXPECT_EQ(classRanks(g, lastFirst).toVector(), (std::vector<Rank>{3}));
  EXPECT_EQ(classRanks(defaultGrid(8, 2), interior).size(), 0);  // 2x4: no x interior
  const Grid cube = defaultGrid(64, 3);
  EXPECT_EQ(classRanks(cube, 13).size(), 8);  // x, y, z interior: 2x2x2
  // Classes partition the grid.
  RankList all;
  for (int c = 0; c < classCount(3); ++c) all = RankList::unite(all, classRanks(cube, c));
  EXPECT_EQ(all, RankList::all(64));
  // A million ranks: the classes stay single tuples.
  EXPECT_EQ(classRanks(defaultGrid(1 << 20, 2), interior).tuples().size(), 1U);
  auto g2 = smallestGridWith(2, interior, 100, {});
  ASSERT_TRUE(g2);
  EXPECT_EQ(g2->str(), "3x3");
}

TEST(Extrapolate, RingIsOneDimensionalAndPeriodic) {
  std::vector<ExtrapolateInput> in{input("ring4.tgt", ringText(4, 256)), input("ring6.tgt", ringText(6, 256)),
                                   input("ring8.tgt", ringText(8, 256))};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{16, {}});
  EXPECT_EQ(r.target.dims, 1);
  EXPECT_TRUE(r.periodic[0]);
  verifyStructure(r.trace, "out");
  const Trace expected = readTracegenText(sourceFromString("ring16.tgt", ringText(16, 256)));
  expectSameCalls(r.trace, expected);
  const Event& e = r.trace.events[1];
  EXPECT_EQ(e.uniformValue(Param::Dest), 1);
  EXPECT_EQ(e.uniformValue(Param::Source), 15);
  EXPECT_EQ(e.loops.at(0).iter.at(0).values, (std::vector<std::int64_t>{15}));
  EXPECT_EQ(e.param(Param::Tag)->groups.at(0).values.size(), 15U);  // 0..14, a progression
  EXPECT_NE(r.summary().find("periodic in x"), std::string::npos);
}

TEST(Extrapolate, StencilTwoDimensionalMatchesTheTraceAtTheTarget) {
  std::vector<ExtrapolateInput> in{stencil(3, 3), stencil(3, 4), stencil(4, 4)};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{64, {}});
  EXPECT_EQ(r.target.str(), "8x8");
  EXPECT_FALSE(r.periodic[0] || r.periodic[1]);
  verifyStructure(r.trace, "out");
  expectSameCalls(r.trace, makeStencilTrace(8, 8, 20));
  // Forced grid: 4x16.
  const ExtrapolateResult f = extrapolate(in, ExtrapolateOptions{0, Grid{2, {4, 16, 1}}});
  expectSameCalls(f.trace, makeStencilTrace(4, 16, 20));
  // The output does not grow with the rank count.
  const std::string small = tracegenText(extrapolate(in, ExtrapolateOptions{1024, {}}).trace);
  const std::string large = tracegenText(extrapolate(in, ExtrapolateOptions{1 << 20, {}}).trace);
  EXPECT_EQ(std::count(small.begin(), small.end(), '\n'), std::count(large.begin(), large.end(), '\n'));
  EXPECT_EQ(std::count(small.begin(), small.end(), '<'), std::count(large.begin(), large.end(), '<'));
}

TEST(Extrapolate, ThreeDimensionalHaloFollowsTheClassesOfTheCube) {
  std::vector<ExtrapolateInput> in;
  for (Rank p : {18, 27, 36}) in.push_back({fmt::format("halo{}.tgt", p), haloTrace(defaultGrid(p, 3), false)});
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{64, {}});
  EXPECT_EQ(r.target.str(), "4x4x4");
  EXPECT_FALSE(r.periodic[0] || r.periodic[1] || r.periodic[2]);
  verifyStructure(r.trace, "out");
  expectSameCalls(r.trace, haloTrace(defaultGrid(64, 3), false));
  // One group of sources per class: the 27 positions of the cube.
  EXPECT_EQ(r.trace.events[1].param(Param::Source)->groups.size(), 27U);
  // 1-D and 2-D were tried and rejected first.
  ASSERT_GE(r.explanation.size(), 2U);
  EXPECT_NE(r.explanation[0].find("1-D grid rejected"), std::string::npos);
  EXPECT_NE(r.explanation[1].find("2-D grid rejected"), std::string::npos);
}

TEST(Extrapolate, PeriodicTorusIsFoundFromWrappingPeers) {
  std::vector<ExtrapolateInput> in;
  for (Rank p : {9, 12, 16}) in.push_back({fmt::format("torus{}.tgt", p), haloTrace(defaultGrid(p, 2), true)});
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{0, Grid{2, {6, 10, 1}}});
  EXPECT_TRUE(r.periodic[0] && r.periodic[1]);
  EXPECT_NE(r.summary().find("periodic in xy"), std::string::npos) << r.summary();
  expectSameCalls(r.trace, haloTrace(Grid{2, {6, 10, 1}}, true));
}

// bt_like's copy_faces: 40 points over sqrt(P) rows and columns are 14, 13, 13 at 3x3, so the
// faces' sizes are no model of the scale per class; each face follows the coordinate across it
// (extrap/BlockDistribution.h).
TEST(Extrapolate, FacesOfABlockDistributionFollowTheCoordinateAcrossThem) {
  std::vector<ExtrapolateInput> in;
  for (Rank p : {4, 9, 16}) in.push_back({fmt::format("faces{}.tgt", p), haloTrace(defaultGrid(p, 2), false, false, 40)});
  for (Rank target : {25, 36, 64}) {
    const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{target, {}});
    verifyStructure(r.trace, "out");
    expectSameCalls(r.trace, haloTrace(defaultGrid(target, 2), false, false, 40));
    EXPECT_EQ(r.stats.at("values as block distributions"), 1);
  }
  // At 6x6 the interior splits at the fifth row and column (7, 7, 7, 7, 6, 6 points): a few
  // blocks per class, not one group per rank.
  const ExtrapolateResult r36 = extrapolate(in, ExtrapolateOptions{36, {}});
  const auto& counts = r36.trace.events[1].param(Param::Count)->groups;
  EXPECT_LE(counts.size(), 12U);
  bool explained = false;
  for (const std::string& line : r36.explanation)
    explained = explained || line.find("count (peer -px): 160 at P=4 (2x2); 104, 112 at P=9 (3x3); 80 at P=16 (4x4) -> "
                                       "8*block(40, px, x) at P=36 (6x6)") != std::string::npos;
  EXPECT_TRUE(explained) << fmt::format("{}", fmt::join(r36.explanation, "\n"));
  // From 16, 25 and 36, where one class already holds two sizes, to 64 and to 7x7.
  std::vector<ExtrapolateInput> large;
  for (Rank p : {16, 25, 36}) large.push_back({fmt::format("faces{}.tgt", p), haloTrace(defaultGrid(p, 2), false, false, 40)});
  for (Rank target : {49, 64}) {
    const ExtrapolateResult r = extrapolate(large, ExtrapolateOptions{target, {}});
    expectSameCalls(r.trace, haloTrace(defaultGrid(target, 2), false, false, 40));
  }
  // 40 points over 50 columns leave ranks without one: refused, not guessed.
  const std::string e = errorOf(in, 2500);
  EXPECT_NE(e.find("faces16.tgt: error: event 1 MPI_Irecv at halo.c:2: count (peer +1) of class x:first y:first: "
                   "8*block(40, py, y) (160 at P=4 (2x2); 104, 112 at P=9 (3x3); 80 at P=16 (4x4)) leaves ranks without "
                   "a point at P=2500 (50x50)"),
            std::string::npos)
      << e;
}

TEST(Extrapolate, BlockValuesAreNotComposedForClassesNoInputShows) {
  // 2x3, 2x4 and 2x5 never show a rank interior in x: composing it from one rank per class would
  // lose the blocks.
  std::vector<ExtrapolateInput> in;
  for (Rank p : {6, 8, 10}) in.push_back({fmt::format("narrow{}.tgt", p), haloTrace(defaultGrid(p, 2), false, false, 40)});
  const std::string e = errorOf(in, 16);
  EXPECT_NE(e.find("narrow10.tgt: error: no input shows the ranks of class x:interior y:first of the 4x4 grid, and values "
                   "that follow a block distribution are not composed for classes no input shows; a recording at P=9 "
                   "(3x3) would show it"),
            std::string::npos)
      << e;
}

TEST(Extrapolate, ValuesOfNoBlockDistributionAreRefused) {
  // Faces that grow with the coordinate of the rank itself, x + y: no function of one coordinate.
  auto skewed = [](Rank p) {
    Trace t = haloTrace(defaultGrid(p, 2), false, false, 40);
    const Grid g = defaultGrid(p, 2);
    std::vector<ValueGroup> groups;
    for (Rank r = 0; r < p; ++r) {
      const auto c = g.coords(r);
      groups.push_back({RankList::single(r), {8 * (c[0] + c[1] + 1)}});
    }
    t.events[1].setParam(Param::Count, groups);
    return ExtrapolateInput{fmt::format("skewed{}.tgt", p), t};
  };
  const std::string e = errorOf({skewed(4), skewed(9), skewed(16)}, 36);
  EXPECT_NE(e.find("skewed4.tgt: error: event 1 MPI_Irecv at halo.c:2: the ranks <1 0 {2 2}> of its loop 0 iter are not a "
                   "union of position classes of the 1-D grid"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("hint: taking its values as block distributions: skewed16.tgt:0: event 1 MPI_Irecv at halo.c:2: count"),
            std::string::npos)
      << e;
  // A ring's count that follows no law (5, 7, 20): no model per class, and no block distribution.
  const std::string r = errorOf({input("r4.tgt", ringText(4, 5)), input("r6.tgt", ringText(6, 7)),
                                 input("r8.tgt", ringText(8, 20))},
                                16);
  EXPECT_NE(r.find("hint: nor is it a + b*block(N, p, c) of one grid coordinate: count (peer +1) of class "
                   "x:first (5 at P=4 (4); 7 at P=6 (6); 20 at P=8 (8)): along rank: no N, a and b give the values of "
                   "every rank"),
            std::string::npos)
      << r;
}

TEST(Extrapolate, CorrespondenceErrorNamesTheFirstEventsThatDiffer) {
  std::string changed = ringText(6, 256);
  changed.replace(changed.find("MPI_Sendrecv"), 12, "MPI_Send");
  std::vector<ExtrapolateInput> in{input("ring4.tgt", ringText(4, 256)), input("ring6.tgt", changed)};
  const std::string e = errorOf(in, 16);
  EXPECT_NE(e.find("ring4.tgt:7: error: event 1 MPI_Sendrecv at ring.c:20 at P=4 and event 1 MPI_Send at ring.c:20 "
                   "at P=6 differ after 1 events that agree (the last: event 0 MPI_Init at ring.c:10 at P=6)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("record at larger scales"), std::string::npos) << e;
  // One more event at one scale: named, with the event that comes next at the other.
  std::vector<ExtrapolateInput> longer{
      input("ring4.tgt", ringText(4, 256)),
      input("ring6.tgt", ringText(6, 256, "event 9 MPI_Barrier @ <1 0 {6 1}>\n  site ring.c:25\n  comm 2\n"))};
  const std::string e2 = errorOf(longer, 16);
  EXPECT_NE(e2.find("event 9 MPI_Barrier at ring.c:25 at P=6 (ring6.tgt) has no counterpart at P=4, where event 2 "
                    "MPI_Finalize at ring.c:30 comes next"),
            std::string::npos)
      << e2;
}

TEST(Extrapolate, CallSitesThatMoveBetweenBinariesCorrespondByAlignment) {
  // One binary per process count: the same calls at other addresses at every scale.
  auto moved = [](Rank p, const std::string& suffix) {
    std::string t = ringText(p, 256);
    for (const char* site : {"ring.c:10", "ring.c:20", "ring.c:30"})
      t.replace(t.find(site), std::string(site).size(), std::string(site) + suffix);
    return input(fmt::format("ring{}.tgt", p), t);
  };
  std::vector<ExtrapolateInput> in{moved(4, "a"), moved(6, "b"), moved(8, "c")};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{16, {}});
  expectSameCalls(r.trace, readTracegenText(sourceFromString("ring16.tgt", ringText(16, 256))));
  EXPECT_EQ(r.trace.siteName(r.trace.events[1].site), "ring.c:20a");  // the first input's
  EXPECT_EQ(r.stats.at("call sites renamed by alignment"), 6);
  EXPECT_NE(r.explanation.at(0).find("P=6 (ring6.tgt): 3 call sites differ from those of P=4"), std::string::npos)
      << r.explanation.at(0);
}

TEST(Extrapolate, ALoopOfOneTripCorrespondsToALoopOfSeveral) {
  // log2(P) barriers in a loop; at 2 ranks the loop has one trip and the recorder writes none.
  auto barriers = [](Rank p, int steps) {
    return input(fmt::format("steps{}.tgt", p),
                 fmt::format("tracegen-trace 1\nranks {0}\norigin hand-written\n"
                             "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n"
                             "event 1 MPI_Barrier @ <1 0 {{{0} 1}}>\n{1}  comm 2\n"
                             "event 2 MPI_Finalize @ <1 0 {{{0} 1}}>\n",
                             p, steps == 1 ? "" : fmt::format("  loop 0 iter {}\n  loop 0 mem 1\n", steps)));
  };
  std::vector<ExtrapolateInput> in{barriers(2, 1), barriers(4, 2), barriers(8, 3), barriers(16, 4)};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{64, {}});
  ASSERT_EQ(r.trace.events.at(1).loops.size(), 1u);
  EXPECT_EQ(r.trace.events[1].loops[0].iter.at(0).values, (std::vector<std::int64_t>{6}));
  EXPECT_EQ(r.stats.at("loops of one trip added"), 1);
}

TEST(Extrapolate, ListsOfGeometricBlocksFollowTheirBlockCount) {
  // A multigrid's levels: log2(P) levels, each an Allreduce of two faces (x, y) a quarter of the
  // finer level's, coarsest first, so the finest (the last block) is [4096 12288] at every scale.
  auto levels = [](Rank p) {
    int n = 0;
    while ((Rank{1} << n) < p) ++n;
    std::string counts;
    for (int k = 0; k < n; ++k) counts += fmt::format(" {} {}", 4096 >> (2 * (n - 1 - k)), 12288 >> (2 * (n - 1 - k)));
    return input(fmt::format("levels{}.tgt", p),
                 fmt::format("tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
                             "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n"
                             "event 1 MPI_Allreduce @ <1 0 {{{0} 1}}>\n  loop 0 iter {1}\n  loop 0 mem 1\n  comm 2\n"
                             "  count{2}\n  datatype MPI_DOUBLE\n  op MPI_SUM\n"
                             "event 2 MPI_Finalize @ <1 0 {{{0} 1}}>\n",
                             p, 2 * n, counts));
  };
  std::vector<ExtrapolateInput> in{levels(4), levels(8), levels(16)};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{64, {}});
  EXPECT_EQ(r.trace.events.at(1).loops.at(0).iter.at(0).values, (Values{12}));
  EXPECT_EQ(r.trace.events[1].param(Param::Count)->groups.at(0).values,
            (Values{4, 12, 16, 48, 64, 192, 256, 768, 1024, 3072, 4096, 12288}));
  EXPECT_EQ(r.stats.at("lists as geometric blocks"), 1);
  expectSameCalls(r.trace, levels(64).trace);
  // At 2^8 ranks the coarsest level's x face would be 4096 / 4^7, no whole count.
  EXPECT_NE(errorOf(in, 256).find("count: blocks of 2 values, each 4/1 times the one before, 8 blocks at P=256 (256): block 1 "
                                  "has no integer value (the largest block [4096 12288] times (1/4)^7)"),
            std::string::npos)
      << errorOf(in, 256);
}

TEST(Extrapolate, ASmallInputOfAnotherStructureIsSetAside) {
  // At 4 ranks the code makes one call more; 6, 8 and 10 agree, and the ring follows from them.
  std::vector<ExtrapolateInput> in{
      input("ring4.tgt", ringText(4, 256, "event 9 MPI_Barrier @ <1 0 {4 1}>\n  site ring.c:25\n  comm 2\n")),
      input("ring6.tgt", ringText(6, 256)), input("ring8.tgt", ringText(8, 256)),
      input("ring10.tgt", ringText(10, 256))};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{16, {}});
  expectSameCalls(r.trace, readTracegenText(sourceFromString("ring16.tgt", ringText(16, 256))));
  EXPECT_EQ(r.setAside, (std::vector<Rank>{4}));
  EXPECT_NE(r.summary().find("P=4 set aside"), std::string::npos) << r.summary();
  EXPECT_NE(r.explanation.at(0).find("P=4 (ring4.tgt) set aside: its structure differs from that of P=6, P=8, P=10: "
                                     "event 9 MPI_Barrier at ring.c:25 at P=4 (ring4.tgt) has no counterpart"),
            std::string::npos)
      << r.explanation.at(0);
  // The structure changed once: beyond the inputs kept the result says it may change again.
  EXPECT_NE(r.caution.find("Caution: the application's structure changed with the scale (P=4 (4 events) differ from "
                           "P=6, P=8, P=10, 3 events, whose structure this benchmark has), and nothing in the recordings "
                           "says whether it changes again between P=10 and P=16"),
            std::string::npos)
      << r.caution;
  EXPECT_NE(r.summary().find(r.caution), std::string::npos);
  // Within them it cannot.
  EXPECT_EQ(extrapolate(in, ExtrapolateOptions{8, {}}).caution, "");
}

TEST(Extrapolate, GroupsThatAreNoUnionOfClassesAreRejected) {
  // Rank 1 alone sends another count: no 1-D class is {1}, and 5 and 7 ranks make no 2-D or 3-D
  // grid with extents of at least 2.
  auto odd = [](Rank p) {
    std::string t = ringText(p, 256);
    t.replace(t.find("  count 256\n"), 12, fmt::format("  count 256 @ <1 0 {{1 0}}> <1 2 {{{} 1}}>\n  count 512 @ <1 1 {{1 0}}>\n", p - 2));
    return t;
  };
  std::vector<ExtrapolateInput> in{input("a5.tgt", odd(5)), input("a7.tgt", odd(7)), input("a9.tgt", odd(9))};
  const std::string e = errorOf(in, 16);
  EXPECT_NE(e.find("not a union of position classes"), std::string::npos) << e;
  EXPECT_NE(e.find("a5.tgt:7: error: event 1 MPI_Sendrecv at ring.c:20: the ranks <1 0 {1 0}> <1 2 {3 1}> of its count"),
            std::string::npos)
      << e;
}

TEST(Extrapolate, AParameterNoModelFitsIsAnError) {
  std::vector<ExtrapolateInput> in{input("r4.tgt", ringText(4, 5)), input("r6.tgt", ringText(6, 7)),
                                   input("r8.tgt", ringText(8, 20))};
  const std::string e = errorOf(in, 16);
  EXPECT_NE(e.find("r8.tgt:7: error: event 1 MPI_Sendrecv at ring.c:20: count: no model fits its values "
                   "(5 at P=4 (4), 7 at P=6 (6), 20 at P=8 (8)); tried"),
            std::string::npos)
      << e;
  // Counts that follow a model are fitted: 4096/P.
  std::vector<ExtrapolateInput> strong{input("r4.tgt", ringText(4, 1024)), input("r8.tgt", ringText(8, 512)),
                                       input("r16.tgt", ringText(16, 256))};
  const ExtrapolateResult r = extrapolate(strong, ExtrapolateOptions{64, {}});
  EXPECT_EQ(r.trace.events[1].uniformValue(Param::Count), 64);
}

TEST(Extrapolate, CountsThatFollowTheDataKeepEveryRanksTotal) {
  // Weak scaling: 4096 keys per rank, split over the ranks by their values.
  std::vector<ExtrapolateInput> in;
  for (Rank p : {8, 16, 32}) in.push_back(input(fmt::format("sort{}.tgt", p), sortText(p, 4096)));
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{64, {}});
  const Event& e = r.trace.events[1];
  ASSERT_EQ(e.op, Op::Alltoallv);
  const ParamValues* counts = e.param(Param::SendCounts);
  ASSERT_NE(counts, nullptr);
  ASSERT_EQ(counts->groups.size(), 1u);  // one group: the trace does not grow as P^2
  EXPECT_EQ(counts->groups[0].values, Values(64, 64));
  ASSERT_NE(e.param(Param::RecvDispls), nullptr);
  EXPECT_EQ(e.param(Param::RecvDispls)->groups[0].values[5], 5 * 64);
  const TraceSummary s = summarizeTrace(r.trace, "x64");
  for (const RankSummary& rank : s.perRank) {
    EXPECT_EQ(rank.collectiveBytesSent, 3 * 4096 * 4) << rank.rank;
    EXPECT_EQ(rank.collectiveBytesReceived, 3 * 4096 * 4) << rank.rank;
  }
  EXPECT_EQ(r.stats.at("vectors that follow the data"), 1);
  const std::string explained = fmt::format("{}", fmt::join(r.explanation, "\n"));
  EXPECT_NE(explained.find("counts follow the data (every pair of ranks differs; approximate); mean total per rank 4096 at P=8 (8), "
                           "4096 at P=16 (16), 4096 at P=32 (32) -> 4096 = 4096 at P=64 (64), 64 per pair"),
            std::string::npos)
      << explained;
  // 48 ranks: 4096/48 = 85.33 per pair, 85 is 0.4% short of the total: kept.
  EXPECT_EQ(extrapolate(in, ExtrapolateOptions{48, {}}).trace.events[1].param(Param::SendCounts)->groups[0].values[0], 85);
  // 1,000 ranks: 4 elements per pair would be 2.3% short: refused.
  EXPECT_NE(errorOf(in, 1000).find("too few elements per pair"), std::string::npos) << errorOf(in, 1000);
}

TEST(Extrapolate, CountsThatFollowTheDataNeedBalancedTotalsAndPackedBlocks) {
  // Rank 1 sends (and rank 0 receives) 2% more than the others at 16 ranks: every rank moving
  // the mean stays within 5% of its own total; the result says it is approximate.
  std::vector<ExtrapolateInput> skewed{input("s8.tgt", sortText(8, 4096)), input("s16.tgt", sortText(16, 4096, 82)),
                                       input("s32.tgt", sortText(32, 4096))};
  const ExtrapolateResult approx = extrapolate(skewed, ExtrapolateOptions{64, {}});
  ASSERT_EQ(approx.approximations.size(), 1u);
  EXPECT_NE(approx.approximations[0].find("Approximate: event 1 MPI_Alltoallv's counts follow the application's data"),
            std::string::npos)
      << approx.approximations[0];
  EXPECT_NE(approx.approximations[0].find("spread up to 1.9% from their mean"), std::string::npos)
      << approx.approximations[0];
  // 8% more: no evenly spread count keeps every rank within 5%.
  std::vector<ExtrapolateInput> uneven{input("s8.tgt", sortText(8, 4096)), input("s16.tgt", sortText(16, 4096, 330)),
                                       input("s32.tgt", sortText(32, 4096))};
  const std::string e = errorOf(uneven, 64);
  EXPECT_NE(e.find("s16.tgt:"), std::string::npos) << e;
  EXPECT_NE(e.find("totals sent range from 4096 to 4426 at P=16 (16), 7.5% off their mean"), std::string::npos) << e;
  // Displacements with gaps between the blocks.
  std::vector<ExtrapolateInput> gaps{input("g8.tgt", sortText(8, 4096, 0, false)), input("g16.tgt", sortText(16, 4096)),
                                     input("g32.tgt", sortText(32, 4096))};
  const std::string e2 = errorOf(gaps, 64);
  EXPECT_NE(e2.find("g8.tgt:"), std::string::npos) << e2;
  EXPECT_NE(e2.find("only packed displacements are extrapolated"), std::string::npos) << e2;
}

TEST(Extrapolate, UndecidedModelsNameTheScaleThatWouldSettleThem) {
  // Square grids only: -px, -py and -sqrt(P) all fit the count; 4x8 needs a choice.
  std::vector<ExtrapolateInput> in{stencil(3, 3), stencil(4, 4)};
  for (auto& i : in)
    for (Event& e : i.trace.events)
      if (auto* c = e.param(Param::Count))
        for (auto& g : c->groups) g.values = {i.trace.numRanks == 9 ? 3 : 4};
  const std::string e = errorOf(in, 32);
  EXPECT_NE(e.find("do not decide between"), std::string::npos) << e;
  EXPECT_NE(e.find("a recording at P="), std::string::npos) << e;
  // px and py agree on every square grid, so no scale of the inputs' family (squares) can
  // settle them: the scale named is the first other one where they differ.
  EXPECT_NE(e.find("a recording at P=6 (2x3) would"), std::string::npos) << e;
}

// Every rank makes the same events with the same loops and parameter values in both traces.
void expectSameEventsPerRank(const Trace& got, const Trace& want) {
  ASSERT_EQ(got.numRanks, want.numRanks);
  ASSERT_EQ(got.events.size(), want.events.size());
  auto values = [](const std::vector<ValueGroup>& groups, Rank r) {
    for (const ValueGroup& g : groups)
      if (g.ranks.contains(r)) return g.values;
    return Values{-999};
  };
  for (std::size_t k = 0; k < got.events.size(); ++k) {
    const Event &a = got.events[k], &b = want.events[k];
    ASSERT_EQ(a.op, b.op) << k;
    ASSERT_EQ(a.loops.size(), b.loops.size()) << k;
    ASSERT_EQ(a.params.size(), b.params.size()) << k;
    for (Rank r = 0; r < got.numRanks; ++r) {
      ASSERT_EQ(a.ranks.contains(r), b.ranks.contains(r)) << "event " << k << " rank " << r;
      if (!a.ranks.contains(r)) continue;
      for (std::size_t l = 0; l < a.loops.size(); ++l) {
        EXPECT_EQ(values(a.loops[l].iter, r), values(b.loops[l].iter, r)) << "event " << k << " loop " << l << " rank " << r;
        EXPECT_EQ(values(a.loops[l].mem, r), values(b.loops[l].mem, r)) << "event " << k << " loop " << l << " rank " << r;
      }
      for (std::size_t q = 0; q < a.params.size(); ++q)
        EXPECT_EQ(values(a.params[q].groups, r), values(b.params[q].groups, r))
            << "event " << k << " " << paramName(a.params[q].param) << " rank " << r;
    }
  }
}

TEST(Extrapolate, APeerOnAnExtentOfTwoTakesTheDirectionLargerExtentsShow) {
  // NPB MG's grids: 16 ranks are 2x2x4, 32 are 2x4x4, 64 are 4x4x4. At py = 2 the neighbour at
  // y - 1 is also the one at y + 1 (without wrapping); at py = 4 only y - 1 across the boundary
  // is. The one direction every input allows is taken, so at 4x4x8 each rank receives from
  // y - 1, wrapping.
  std::vector<ExtrapolateInput> in{input("mg16.tgt", traces::periodicHaloText(2, 2, 4)),
                                   input("mg32.tgt", traces::periodicHaloText(2, 4, 4)),
                                   input("mg64.tgt", traces::periodicHaloText(4, 4, 4))};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{128, {}});
  EXPECT_EQ(r.target.str(), "4x4x8");
  const Trace want = readTracegenText(sourceFromString("want.tgt", traces::periodicHaloText(4, 4, 8)));
  for (Param p : {Param::Source, Param::Dest}) {
    const ParamValues* got = r.trace.events[1].param(p);
    const ParamValues* expected = want.events[1].param(p);
    ASSERT_NE(got, nullptr);
    for (Rank rank = 0; rank < 128; ++rank) {
      auto of = [&](const ParamValues* v) {
        for (const ValueGroup& g : v->groups)
          if (g.ranks.contains(rank)) return g.values;
        return Values{};
      };
      EXPECT_EQ(of(got), of(expected)) << paramName(p) << " of rank " << rank;
    }
  }
  EXPECT_TRUE(r.periodic[1]);
  // Both directions are there at 2x2x4, one at 2x4x4.
  const Grid g16{3, {2, 2, 4}}, g32{3, {2, 4, 4}};
  EXPECT_EQ(peerDirections(g16, 0, 2).size(), 2U);
  EXPECT_EQ(peerDirections(g32, 0, 6).size(), 1U);
  EXPECT_EQ(peerDirection(g16, 0, 2)->step[1], 1);  // within the grid first
}

TEST(Extrapolate, ClassesNoInputShowsFollowFromNeighbourPredicates) {
  // 2x2 and 2x4 never show a rank with neighbours on both sides in x; 4x4 and 8x8 have them.
  std::vector<ExtrapolateInput> in{stencil(2, 2), stencil(2, 4)};
  for (Rank px : {4, 8}) {
    const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{px * px, {}});
    verifyStructure(r.trace, "out");
    expectSameEventsPerRank(r.trace, makeStencilTrace(px, px, 20));
    expectSameCalls(r.trace, makeStencilTrace(px, px, 20));
    EXPECT_EQ(r.stats.at("classes composed from neighbour predicates"), 3);
    const std::string explained = fmt::format("{}", fmt::join(r.explanation, "\n"));
    EXPECT_NE(explained.find("class x:interior y:interior (no input shows it): composed from classes x:first y:interior "
                             "and x:last y:interior by per-direction neighbour predicates, 4 grid neighbours"),
              std::string::npos)
        << explained;
  }
}

TEST(Extrapolate, AnEventOfOneEdgeOnlyIsNotMadeByComposedClasses) {
  // Rank 0 alone (the first corner) calls MPI_Comm_group before the timestep loop: the classes
  // beside a composed one in x do not both make it, so the composed classes do not either.
  auto withRankZeroCall = [](Trace t) {
    Event e;
    e.op = Op::CommGroup;
    e.site = t.internSite("stencil.c:21");
    e.ranks = RankList::single(0);
    e.setParam(Param::Comm, {{e.ranks, {kCommWorld}}});
    t.events.insert(t.events.begin() + 1, e);
    for (std::size_t k = 0; k < t.events.size(); ++k) t.events[k].id = static_cast<std::int64_t>(k);
    return t;
  };
  std::vector<ExtrapolateInput> in{{"a.tgt", withRankZeroCall(makeStencilTrace(2, 2, 20))},
                                   {"b.tgt", withRankZeroCall(makeStencilTrace(2, 4, 20))}};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{16, {}});
  verifyStructure(r.trace, "out");
  expectSameEventsPerRank(r.trace, withRankZeroCall(makeStencilTrace(4, 4, 20)));
  EXPECT_EQ(r.trace.events[1].ranks, RankList::single(0));
}

TEST(Extrapolate, ThreeDimensionalClassesAreComposedFromOnesComposedBefore) {
  // 2x2x2 and 2x2x4: neither x nor y is ever interior. One loop over the neighbours per rank,
  // in the order -x +x -y +y -z +z: no input orders -x against +x, nor -y against +y; z does.
  const std::vector<ExtrapolateInput> in{{"h8.tgt", haloTrace(defaultGrid(8, 3), false)},
                                         {"h16.tgt", haloTrace(defaultGrid(16, 3), false)}};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{64, {}});
  ASSERT_EQ(r.target.str(), "4x4x4");
  verifyStructure(r.trace, "out");
  expectSameEventsPerRank(r.trace, haloTrace(defaultGrid(64, 3), false));
  EXPECT_EQ(r.stats.at("classes composed from neighbour predicates"), 27 - 12);
  const std::string explained = fmt::format("{}", fmt::join(r.explanation, "\n"));
  EXPECT_NE(explained.find("-1 before +1 for class x:interior y:first z:first (no input shows both; they take the order "
                           "of -px*py before +px*py)"),
            std::string::npos)
      << explained;
}

TEST(Extrapolate, PeersThatAreProcNullWhereANeighbourIsMissingAreComposed) {
  const std::vector<ExtrapolateInput> in{{"n4.tgt", haloTrace(defaultGrid(4, 2), false, true)},
                                         {"n8.tgt", haloTrace(defaultGrid(8, 2), false, true)}};
  const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{16, {}});
  verifyStructure(r.trace, "out");
  expectSameEventsPerRank(r.trace, haloTrace(defaultGrid(16, 2), false, true));
  EXPECT_GT(r.stats.at("peers composed as MPI_PROC_NULL where a neighbour is missing"), 0);
}

TEST(Extrapolate, APeriodicDimensionTwoWideIsNotComposed) {
  // On a torus 2 wide in x, a rank's west and east neighbours are one rank: which message went
  // which way is not in the inputs, so 4x4 is refused, not guessed.
  const std::vector<ExtrapolateInput> in{{"t4.tgt", haloTrace(defaultGrid(4, 2), true)},
                                         {"t8.tgt", haloTrace(defaultGrid(8, 2), true)}};
  std::string e;
  try {
    const ExtrapolateResult r = extrapolate(in, ExtrapolateOptions{16, {}});
    expectSameEventsPerRank(r.trace, haloTrace(defaultGrid(16, 2), true));
    e = "composed";
  } catch (const InputError& x) {
    e = x.render();
  }
  EXPECT_NE(e.find("t8.tgt: error: event 1 MPI_Irecv"), std::string::npos) << e;
}

TEST(Extrapolate, AClassThatDoesNotFollowIsAnErrorNamingTheScaleThatWouldShowIt) {
  // The last row's corners complete 5 requests, the first row's 4, with 2 neighbours each: no
  // line through the neighbour counts gives the new class's count.
  std::vector<ExtrapolateInput> in{stencil(2, 2), stencil(2, 4)};
  for (ExtrapolateInput& i : in) {
    const Rank P = i.trace.numRanks;
    for (Event& e : i.trace.events)
      if (e.op == Op::Waitall)
        for (ValueGroup& g : e.param(Param::Count)->groups)
          if (g.ranks.contains(P - 1)) {
            g.ranks = RankList::subtract(g.ranks, RankList::progression(P - 2, 2));
            e.param(Param::Count)->groups.push_back({RankList::progression(P - 2, 2), {5}});
            break;
          }
  }
  const std::string e = errorOf(in, 16);
  EXPECT_NE(e.find("stencil-2x4.tgt:"), std::string::npos) << e;
  EXPECT_NE(e.find("no input shows the ranks of class x:interior y:first of the 4x4 grid, and they do not follow from "
                   "the classes the inputs show: its count is [4] for x:first y:first (2 neighbours)"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("[5] for x:first y:last (2 neighbours)"), std::string::npos) << e;
  EXPECT_NE(e.find("a recording at P=9 (3x3) would show it"), std::string::npos) << e;
}

TEST(Extrapolate, ScaleFreeAndSingleInputAreRefused) {
  std::vector<ExtrapolateInput> one{input("r4.tgt", ringText(4, 256))};
  EXPECT_NE(errorOf(one, 16).find("two or more rank counts"), std::string::npos);
  std::vector<ExtrapolateInput> two{input("r4.tgt", ringText(4, 256)), input("r6.tgt", ringText(6, 256))};
  EXPECT_NE(errorOf(two, 0).find("--ranks"), std::string::npos);
}

}  // namespace
}  // namespace tracegen::extrap
