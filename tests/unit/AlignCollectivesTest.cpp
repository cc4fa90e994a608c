// align-collectives: collectives called from different sites on different ranks become one
// event, at a position consistent with every rank's order, without unrolling loops. Every test
// checks that each rank's expanded call sequence is the same before and after the pass.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Verify.h"
#include "passes/AlignCollectives.h"

namespace tracegen {
namespace {

constexpr std::int64_t kDouble = 10;

// Builds a trace event by event; ids are positions at the time of adding.
struct Builder {
  Trace t;

  explicit Builder(Rank numRanks) {
    t.numRanks = numRanks;
    t.origin = "unit test";
    t.comms = standardCommunicators(numRanks);
    t.datatypes = {{kDouble, "MPI_DOUBLE", 8}};
  }

  Event& add(Op op, const std::string& site, const RankList& ranks) {
    Event e;
    e.id = static_cast<std::int64_t>(t.events.size());
    e.op = op;
    e.site = t.internSite(site);
    e.ranks = ranks;
    t.events.push_back(std::move(e));
    return t.events.back();
  }

  // A collective on `comm` with `count` doubles (Barrier: no payload).
  Event& coll(Op op, const std::string& site, const RankList& ranks, std::int64_t comm = kCommWorld,
              std::int64_t count = 4) {
    Event& e = add(op, site, ranks);
    e.setParam(Param::Comm, {{ranks, {comm}}});
    if (op != Op::Barrier) {
      e.setParam(Param::Count, {{ranks, {count}}});
      e.setParam(Param::Datatype, {{ranks, {kDouble}}});
    }
    if (isReduction(op)) e.setParam(Param::ReduceOp, {{ranks, {3}}});
    if (isRooted(op)) e.setParam(Param::Root, {{ranks, {0}}});
    return e;
  }

  // A point-to-point call to or from one absolute peer.
  Event& p2p(Op op, const std::string& site, const RankList& ranks, std::int64_t peer, std::int64_t count = 16) {
    Event& e = add(op, site, ranks);
    const bool sends = opInfo(op).kind == OpKind::Isend || opInfo(op).kind == OpKind::Send;
    e.setParam(Param::Comm, {{ranks, {kCommWorld}}});
    e.setParam(Param::Count, {{ranks, {count}}});
    e.setParam(Param::Datatype, {{ranks, {kDouble}}});
    e.setParam(sends ? Param::Dest : Param::Source, {{ranks, {peer}}});
    e.setParam(Param::Tag, {{ranks, {0}}});
    return e;
  }

  SiteId site(const std::string& name) { return t.internSite(name); }
};

// Makes `e` head one more loop level for `ranks` (default: all of its ranks).
void addLoop(Event& e, std::vector<std::int64_t> iter, std::int64_t mem, const RankList* ranks = nullptr) {
  const RankList& r = ranks ? *ranks : e.ranks;
  e.loops.push_back({{{r, std::move(iter)}}, {{r, {mem}}}});
}

// One compute-time histogram of n samples, all equal to `value`, keyed by predecessor `after`.
TimeStat compStat(SiteId after, std::int64_t n, double value, Rank rank = 0) {
  TimeStat s;
  s.phase = Phase::Compute;
  s.after = after;
  s.hist.n = n;
  s.hist.avg = value;
  s.hist.min = s.hist.max = value;
  s.hist.minRank = s.hist.maxRank = rank;
  s.hist.bins = {{value, value, value, value, value, n}};
  return s;
}

RankList ranks(std::vector<Rank> v) { return RankList::fromSorted(v); }

struct CallView {
  Op op;
  std::int64_t comm, count, bytes, recvBytes, datatype, reduceOp;
  Rank peer, recvPeer, root;
  double computeUs;
  bool operator==(const CallView&) const = default;
};

std::vector<CallView> stream(const Trace& t, Rank r, bool withTime) {
  std::vector<CallView> out;
  RankCursor cursor(t, r);
  Call c;
  while (cursor.next(c))
    out.push_back({c.op, c.comm, c.count, c.bytes, c.recvBytes, c.datatype, c.reduceOp, c.peer, c.recvPeer, c.root,
                   withTime ? c.computeUs : 0.0});
  return out;
}

// Every rank makes the same calls (operation, peers, sizes, counts; compute times if asked).
void expectSameStreams(const Trace& before, const Trace& after, bool withTime = true) {
  for (Rank r = 0; r < before.numRanks; ++r) {
    auto a = stream(before, r, withTime);
    auto b = stream(after, r, withTime);
    ASSERT_EQ(a.size(), b.size()) << "rank " << r;
    for (std::size_t i = 0; i < a.size(); ++i)
      ASSERT_TRUE(a[i] == b[i]) << "rank " << r << " call " << i << ": " << opName(a[i].op) << " vs " << opName(b[i].op)
                                << ", compute " << a[i].computeUs << " vs " << b[i].computeUs;
  }
}

std::int64_t counter(const PassContext& ctx, const std::string& name) {
  auto p = ctx.stats.find("align-collectives");
  if (p == ctx.stats.end()) return 0;
  auto c = p->second.find(name);
  return c == p->second.end() ? 0 : c->second;
}

PassContext runPass(Trace& t) {
  PassContext ctx;
  ctx.fileName = "test";
  auto pass = createAlignCollectivesPass();
  ctx.currentPass = std::string(pass->name());
  pass->run(t, ctx);
  verifyStructure(t, "after align-collectives");
  return ctx;
}

std::vector<Op> ops(const Trace& t) {
  std::vector<Op> v;
  for (const auto& e : t.events) v.push_back(e.op);
  return v;
}

// `if (rank == 0) { Isend; Barrier; } else { Barrier; Irecv; }`, optionally inside 1,000-iteration
// loops on each side.
Trace ifElse(bool loops) {
  Builder b(4);
  const RankList all = RankList::all(4), zero = ranks({0}), rest = ranks({1, 2, 3});
  b.add(Op::Init, "init", all);
  Event& isend = b.p2p(Op::Isend, "isend", zero, 1);
  isend.stats = {compStat(b.site("init"), 1, 10.0)};
  if (loops) addLoop(isend, {1000}, 2);
  b.coll(Op::Barrier, "barrierA", zero).stats = {compStat(b.site("isend"), 1000, 3.0)};
  Event& bb = b.coll(Op::Barrier, "barrierB", rest);
  bb.stats = {compStat(b.site("init"), 3, 20.0)};
  if (loops) {
    addLoop(bb, {1000}, 2);
    bb.stats.push_back(compStat(b.site("irecv"), 2997, 1.0));
  }
  b.p2p(Op::Irecv, "irecv", rest, 0).stats = {compStat(b.site("barrierB"), 3000, 5.0, 2)};
  Event& fin = b.add(Op::Finalize, "finalize", all);
  fin.stats = {compStat(b.site("barrierA"), 1, 2.0), compStat(b.site("irecv"), 3, 4.0)};
  return std::move(b.t);
}

TEST(AlignCollectives, IfElseBarrierBecomesOneEvent) {
  Trace t = ifElse(false);
  const Trace before = t;
  PassContext ctx = runPass(t);

  EXPECT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Isend, Op::Barrier, Op::Irecv, Op::Finalize}));
  const Event& m = t.events[2];
  EXPECT_EQ(m.id, 2);
  EXPECT_EQ(m.ranks, RankList::all(4));
  EXPECT_EQ(t.siteName(m.site), "barrierA");
  ASSERT_EQ(m.mergedSites.size(), 1u);
  EXPECT_EQ(t.siteName(m.mergedSites[0]), "barrierB");
  // One communicator value for all, fused into one group.
  ASSERT_EQ(m.param(Param::Comm)->groups.size(), 1u);
  EXPECT_EQ(m.stats.size(), 2u);  // keyed by the predecessors of both sides

  // The Irecv's timing was keyed by the merged-away site; ranks 1-3 now report site A.
  const Event& irecv = t.events[3];
  ASSERT_EQ(irecv.stats.size(), 1u);
  EXPECT_EQ(t.siteName(irecv.stats[0].after), "barrierA");

  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  EXPECT_EQ(counter(ctx, "events-removed"), 1);
  EXPECT_EQ(counter(ctx, "expanded-ranks"), 0);  // the structure decided
  EXPECT_TRUE(ctx.warnings.empty());
  expectSameStreams(before, t);  // compute times included: the re-keyed histograms are found
}

TEST(AlignCollectives, IfElseInsideLoopsKeepsOneLoopPerSide) {
  Trace t = ifElse(true);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Isend, Op::Barrier, Op::Irecv, Op::Finalize}));
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  EXPECT_EQ(counter(ctx, "events-removed"), 1);
  EXPECT_EQ(counter(ctx, "expanded-ranks"), 0);

  // Still exactly one loop per side, with its trip count and body length.
  std::vector<const Event*> heads;
  for (const auto& e : t.events)
    if (!e.loops.empty()) heads.push_back(&e);
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[0]->op, Op::Isend);
  ASSERT_EQ(heads[0]->loops.size(), 1u);
  EXPECT_EQ(heads[0]->loops[0].iter, (std::vector<ValueGroup>{{ranks({0}), {1000}}}));
  EXPECT_EQ(heads[0]->loops[0].mem, (std::vector<ValueGroup>{{ranks({0}), {2}}}));
  EXPECT_EQ(heads[1]->op, Op::Barrier);
  EXPECT_EQ(heads[1]->ranks, RankList::all(4));
  ASSERT_EQ(heads[1]->loops.size(), 1u);
  EXPECT_EQ(heads[1]->loops[0].iter, (std::vector<ValueGroup>{{ranks({1, 2, 3}), {1000}}}));
  EXPECT_EQ(heads[1]->loops[0].mem, (std::vector<ValueGroup>{{ranks({1, 2, 3}), {2}}}));

  // The barrier's own histogram keyed by the Irecv (the loop's back edge) is kept, and the
  // Irecv's and Finalize's ones keyed by site B now say A.
  const Event& irecv = t.events[3];
  EXPECT_EQ(t.siteName(irecv.stats.at(0).after), "barrierA");
  ASSERT_EQ(stream(t, 1, false).size(), 2002u);
  ASSERT_EQ(stream(t, 0, false).size(), 2002u);
  expectSameStreams(before, t);
}

TEST(AlignCollectives, BothSidesHeadingLoopsFuseTheirLoopGroups) {
  // rank 0: [Barrier@A Isend]^1000, ranks 1-3: [Barrier@B Irecv]^1000.
  Builder b(4);
  const RankList all = RankList::all(4), zero = ranks({0}), rest = ranks({1, 2, 3});
  b.add(Op::Init, "init", all);
  addLoop(b.coll(Op::Barrier, "barrierA", zero), {1000}, 2);
  b.p2p(Op::Isend, "isend", zero, 1);
  addLoop(b.coll(Op::Barrier, "barrierB", rest), {1000}, 2);
  b.p2p(Op::Irecv, "irecv", rest, 0);
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Barrier, Op::Isend, Op::Irecv, Op::Finalize}));
  const Event& m = t.events[1];
  EXPECT_EQ(m.ranks, all);
  ASSERT_EQ(m.loops.size(), 1u);
  EXPECT_EQ(m.loops[0].iter, (std::vector<ValueGroup>{{all, {1000}}}));
  EXPECT_EQ(m.loops[0].mem, (std::vector<ValueGroup>{{all, {2}}}));
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  EXPECT_EQ(counter(ctx, "expanded-ranks"), 0);
  expectSameStreams(before, t);
}

TEST(AlignCollectives, ThreeCallSitesOnThreeRankGroups) {
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  b.coll(Op::Bcast, "bcastC", ranks({2, 3}));  // id 1: the smallest id names the result
  b.p2p(Op::Isend, "isend", ranks({0}), 1);
  b.coll(Op::Bcast, "bcastA", ranks({0}));
  b.p2p(Op::Irecv, "irecv", ranks({1}), 0);
  b.coll(Op::Bcast, "bcastB", ranks({1}));
  // Finalize follows the Bcast on every rank: three histograms, one predecessor afterwards.
  b.add(Op::Finalize, "finalize", all).stats = {compStat(b.site("bcastA"), 1, 1.0), compStat(b.site("bcastB"), 1, 2.0),
                                                compStat(b.site("bcastC"), 2, 3.0)};
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  // The Bcast of ranks 2-3 moves down past the point-to-point calls of ranks 0 and 1.
  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Isend, Op::Irecv, Op::Bcast, Op::Finalize}));
  const std::vector<TimeStat>& fin = t.events[4].stats;
  ASSERT_EQ(fin.size(), 1u);
  EXPECT_EQ(t.siteName(fin[0].after), "bcastC");
  EXPECT_EQ(fin[0].hist.n, 4);
  EXPECT_DOUBLE_EQ(fin[0].hist.mean(), (1.0 + 2.0 + 3.0 * 2) / 4);
  const Event& m = t.events[3];
  EXPECT_EQ(m.id, 1);
  EXPECT_EQ(m.ranks, all);
  EXPECT_EQ(t.siteName(m.site), "bcastC");
  ASSERT_EQ(m.mergedSites.size(), 2u);
  EXPECT_EQ(t.siteName(m.mergedSites[0]), "bcastA");
  EXPECT_EQ(t.siteName(m.mergedSites[1]), "bcastB");
  EXPECT_EQ(m.uniformValue(Param::Root), 0);
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  EXPECT_EQ(counter(ctx, "events-removed"), 2);
  EXPECT_EQ(counter(ctx, "value-mismatch"), 0);
  EXPECT_TRUE(ctx.warnings.empty());
  expectSameStreams(before, t, false);
}

TEST(AlignCollectives, Sweep3DCornerRanksCallAllreduceFromOtherSites) {
  // A 3x3 grid; the corner ranks reach the two Allreduces of each iteration through other code
  // than the edge and centre ranks. The clustered trace lists each side's loop separately.
  Builder b(9);
  const RankList all = RankList::all(9), corners = ranks({0, 2, 6, 8}), others = ranks({1, 3, 4, 5, 7});
  b.add(Op::Init, "init", all);
  addLoop(b.p2p(Op::Isend, "corner_send", corners, 4), {100}, 3);
  b.coll(Op::Allreduce, "corner_sum", corners, kCommWorld, 1);
  b.coll(Op::Allreduce, "corner_max", corners, kCommWorld, 2).setParam(Param::ReduceOp, {{corners, {1}}});
  Event& irecv = b.p2p(Op::Irecv, "edge_recv", others, 0);
  irecv.setParam(Param::Source, {{ranks({1, 3}), {0}}, {ranks({4}), {0}}, {ranks({5, 7}), {8}}});
  addLoop(irecv, {100}, 3);
  b.coll(Op::Allreduce, "edge_sum", others, kCommWorld, 1);
  b.coll(Op::Allreduce, "edge_max", others, kCommWorld, 2).setParam(Param::ReduceOp, {{others, {1}}});
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Isend, Op::Irecv, Op::Allreduce, Op::Allreduce, Op::Finalize}));
  EXPECT_EQ(t.events[3].ranks, all);
  EXPECT_EQ(t.siteName(t.events[3].site), "corner_sum");
  EXPECT_EQ(t.events[3].uniformValue(Param::ReduceOp), 3);
  EXPECT_EQ(t.events[4].ranks, all);
  EXPECT_EQ(t.siteName(t.events[4].site), "corner_max");
  EXPECT_EQ(t.events[4].uniformValue(Param::ReduceOp), 1);
  EXPECT_EQ(t.events[4].uniformValue(Param::Count), 2);
  // The loops stay on the point-to-point heads, 100 iterations each.
  EXPECT_EQ(t.events[1].loops.at(0).iter, (std::vector<ValueGroup>{{corners, {100}}}));
  EXPECT_EQ(t.events[2].loops.at(0).iter, (std::vector<ValueGroup>{{others, {100}}}));
  EXPECT_TRUE(t.events[3].loops.empty());
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 2);
  EXPECT_EQ(counter(ctx, "events-removed"), 2);
  EXPECT_EQ(counter(ctx, "expanded-ranks"), 0);  // alternating calls matched on the skeleton
  EXPECT_TRUE(ctx.warnings.empty());
  expectSameStreams(before, t);
}

// comm 1000 split into rows {0,1} and {2,3}.
Builder rowsTrace() {
  Builder b(4);
  b.t.comms.push_back({1000, "split", {ranks({0, 1}), ranks({2, 3})}});
  b.add(Op::Init, "init", RankList::all(4));
  Event& split = b.add(Op::CommSplit, "split", RankList::all(4));
  split.setParam(Param::Comm, {{RankList::all(4), {kCommWorld}}});
  split.setParam(Param::Color, {{ranks({0, 1}), {0}}, {ranks({2, 3}), {1}}});
  split.setParam(Param::NewComm, {{RankList::all(4), {1000}}});
  return b;
}

TEST(AlignCollectives, SubCommunicatorRowsAlignSeparately) {
  Builder b = rowsTrace();
  b.coll(Op::Bcast, "bcastA", ranks({0}), 1000);
  b.coll(Op::Bcast, "bcastB", ranks({1}), 1000);
  b.coll(Op::Bcast, "bcastC", ranks({2}), 1000);
  b.coll(Op::Bcast, "bcastD", ranks({3}), 1000);
  b.add(Op::Finalize, "finalize", RankList::all(4));
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::CommSplit, Op::Bcast, Op::Bcast, Op::Finalize}));
  EXPECT_EQ(t.events[2].ranks, ranks({0, 1}));
  EXPECT_EQ(t.siteName(t.events[2].site), "bcastA");
  EXPECT_EQ(t.siteName(t.events[2].mergedSites.at(0)), "bcastB");
  EXPECT_EQ(t.events[3].ranks, ranks({2, 3}));
  EXPECT_EQ(t.siteName(t.events[3].site), "bcastC");
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 2);
  EXPECT_EQ(counter(ctx, "events-removed"), 2);
  EXPECT_TRUE(ctx.warnings.empty());
  expectSameStreams(before, t);
}

TEST(AlignCollectives, SubCommunicatorSitesSpanningRowsBecomeOneEvent) {
  // Column 0 of both rows calls from site A, column 1 from site B; the roots are in world
  // numbering (0 for row 0, 2 for row 1) and differ only between instances, which is legal.
  Builder b = rowsTrace();
  b.coll(Op::Bcast, "bcastA", ranks({0, 2}), 1000).setParam(Param::Root, {{ranks({0}), {0}}, {ranks({2}), {2}}});
  b.coll(Op::Bcast, "bcastB", ranks({1, 3}), 1000).setParam(Param::Root, {{ranks({1}), {0}}, {ranks({3}), {2}}});
  b.add(Op::Finalize, "finalize", RankList::all(4));
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::CommSplit, Op::Bcast, Op::Finalize}));
  EXPECT_EQ(t.events[2].ranks, RankList::all(4));
  EXPECT_EQ(t.events[2].param(Param::Root)->groups,
            (std::vector<ValueGroup>{{ranks({0, 1}), {0}}, {ranks({2, 3}), {2}}}));
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  EXPECT_EQ(counter(ctx, "value-mismatch"), 0);
  EXPECT_TRUE(ctx.warnings.empty());
  expectSameStreams(before, t);
}

TEST(AlignCollectives, UnknownCommunicatorIsLeftAlone) {
  // ScalaTrace's comm 1001 before resolve-comms: no table entry, no instances to complete.
  Builder b(4);
  b.add(Op::Init, "init", RankList::all(4));
  b.coll(Op::Barrier, "barrierA", ranks({0}), 1001);
  b.coll(Op::Barrier, "barrierB", ranks({1, 2, 3}), 1001);
  b.add(Op::Finalize, "finalize", RankList::all(4));
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_EQ(t, before);
  EXPECT_EQ(counter(ctx, "unknown-communicator"), 2);
  EXPECT_EQ(counter(ctx, "partial-collectives"), 0);
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 0);
}

// Rank 0 calls the barrier 3 times in one loop; ranks 1-3 in a loop of 2 entering an inner
// loop of 1, then 2 iterations. The skeletons differ, the occurrences are the same. With
// `dynamic`, the inner loop's body length is a list ({1, 1}): the structure is not static.
Trace differentSkeletons(bool dynamic) {
  Builder b(4);
  const RankList all = RankList::all(4), rest = ranks({1, 2, 3});
  b.add(Op::Init, "init", all);
  addLoop(b.coll(Op::Barrier, "barrierA", ranks({0})), {3}, 1);
  Event& bb = b.coll(Op::Barrier, "barrierB", rest);
  addLoop(bb, {2}, 1);
  addLoop(bb, {1, 2}, 1);
  if (dynamic) bb.loops[1].mem[0].values = {1, 1};
  b.add(Op::Finalize, "finalize", all);
  return std::move(b.t);
}

TEST(AlignCollectives, DifferentStaticSkeletonsAreWalkedNotExpanded) {
  Trace t = differentSkeletons(false);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_EQ(counter(ctx, "skeleton-walked-ranks"), 2);  // one per behaviour, its calls of the key only
  EXPECT_EQ(counter(ctx, "expanded-ranks"), 0);
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Barrier, Op::Finalize}));
  EXPECT_EQ(t.events[1].ranks, RankList::all(4));
  expectSameStreams(before, t);
}

TEST(AlignCollectives, StructureUndecidedFallsBackToExpansion) {
  const RankList all = RankList::all(4), rest = ranks({1, 2, 3});
  Trace t = differentSkeletons(true);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Barrier, Op::Finalize}));
  const Event& m = t.events[1];
  EXPECT_EQ(m.ranks, all);
  ASSERT_EQ(m.loops.size(), 2u);
  EXPECT_EQ(m.loops[0].iter, (std::vector<ValueGroup>{{ranks({0}), {3}}, {rest, {2}}}));
  EXPECT_EQ(m.loops[0].mem, (std::vector<ValueGroup>{{all, {1}}}));
  EXPECT_EQ(m.loops[1].iter, (std::vector<ValueGroup>{{rest, {1, 2}}}));
  EXPECT_EQ(counter(ctx, "expanded-ranks"), 1);  // the dynamic behaviour's representative
  EXPECT_EQ(counter(ctx, "skeleton-walked-ranks"), 1);  // rank 0's static one
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  expectSameStreams(before, t);
}

TEST(AlignCollectives, DifferentCallCountsAreNotMatched) {
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  addLoop(b.coll(Op::Barrier, "barrierA", ranks({0})), {1000}, 1);
  b.coll(Op::Barrier, "barrierB", ranks({1, 2, 3}));
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_EQ(t, before);
  EXPECT_EQ(counter(ctx, "unmatched"), 2);  // partial events left alone
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 0);
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("event 1 (MPI_Barrier"), std::string::npos) << ctx.warnings[0];
  EXPECT_NE(ctx.warnings[0].find("event 2 (MPI_Barrier"), std::string::npos) << ctx.warnings[0];
}

TEST(AlignCollectives, NoConsistentPositionWarnsAndLeavesEventsAlone) {
  // Rank 0 calls the barrier before the exchange, rank 1 after it: no single position keeps
  // both ranks' order (the program would deadlock; the trace is taken as it is).
  Builder b(2);
  const RankList all = RankList::all(2);
  b.add(Op::Init, "init", all);
  b.coll(Op::Barrier, "barrierA", ranks({0}));
  Event& x = b.add(Op::Sendrecv, "exchange", all);
  x.setParam(Param::Count, {{all, {1}}});
  x.setParam(Param::Datatype, {{all, {kDouble}}});
  x.setParam(Param::Dest, {{all, {1}}}, true);
  x.setParam(Param::Source, {{all, {1}}}, true);
  b.coll(Op::Barrier, "barrierB", ranks({1}));
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_EQ(t, before);
  EXPECT_EQ(counter(ctx, "unaligned"), 1);
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 0);
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("event 2 (MPI_Sendrecv"), std::string::npos) << ctx.warnings[0];
}

TEST(AlignCollectives, DifferentRootsAreReported) {
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  b.coll(Op::Bcast, "bcastA", ranks({0}));
  b.coll(Op::Bcast, "bcastB", ranks({1, 2, 3})).setParam(Param::Root, {{ranks({1, 2, 3}), {1}}});
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  EXPECT_EQ(counter(ctx, "value-mismatch"), 1);
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("root"), std::string::npos) << ctx.warnings[0];
  expectSameStreams(before, t);
}

TEST(AlignCollectives, MissingParametersTakeTheValueTheCursorAssumes) {
  // A barrier recorded without a communicator is on MPI_COMM_WORLD; merged with one that
  // names it, the communicator becomes one value for all ranks.
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  b.add(Op::Barrier, "barrierA", ranks({0}));
  b.coll(Op::Barrier, "barrierB", ranks({1, 2, 3}));
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[1].param(Param::Comm)->groups, (std::vector<ValueGroup>{{all, {kCommWorld}}}));
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 1);
  expectSameStreams(before, t);
}

TEST(AlignCollectives, PartnersWhoseParametersCannotBeCombinedAreLeftAlone) {
  // A Bcast without a root has no stored form for "no root": merging would change the calls.
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  b.coll(Op::Bcast, "bcastA", ranks({0}));
  Event& noRoot = b.coll(Op::Bcast, "bcastB", ranks({1, 2, 3}));
  std::erase_if(noRoot.params, [](const ParamValues& pv) { return pv.param == Param::Root; });
  ASSERT_EQ(noRoot.param(Param::Root), nullptr);
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_EQ(t, before);
  EXPECT_EQ(counter(ctx, "unaligned"), 1);
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("has no parameter 'root'"), std::string::npos) << ctx.warnings[0];
}

// A root-only vector parameter for `ranks`: one value list for all of them.
void setVector(Event& e, Param p, std::vector<std::int64_t> values) { e.setParam(p, {{e.ranks, std::move(values)}}); }

TEST(AlignCollectives, NonRootGathervAndScattervTakeTheRootsVectors) {
  // As recorded: the root of an MPI_Gatherv passes receive counts, displacements and type,
  // the other ranks do not (MPI reads them at the root only); MPI_Scatterv likewise for the
  // send side. The events of one call still merge, the non-roots taking the root's values.
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  Event& gatherRoot = b.coll(Op::Gatherv, "gathervRoot", ranks({3}));
  gatherRoot.setParam(Param::Root, {{ranks({3}), {3}}});
  setVector(gatherRoot, Param::RecvCounts, {1, 2, 3, 1});
  setVector(gatherRoot, Param::Displs, {0, 64, 128, 192});
  gatherRoot.setParam(Param::RecvType, {{ranks({3}), {kDouble}}});
  b.coll(Op::Gatherv, "gathervOthers", ranks({0, 1, 2})).setParam(Param::Root, {{ranks({0, 1, 2}), {3}}});
  Event& scatterRoot = b.add(Op::Scatterv, "scattervRoot", ranks({0}));
  scatterRoot.setParam(Param::Comm, {{ranks({0}), {kCommWorld}}});
  scatterRoot.setParam(Param::Root, {{ranks({0}), {0}}});
  setVector(scatterRoot, Param::SendCounts, {1, 2, 3, 1});
  setVector(scatterRoot, Param::Displs, {0, 64, 128, 192});
  scatterRoot.setParam(Param::Datatype, {{ranks({0}), {kDouble}}});
  scatterRoot.setParam(Param::RecvCount, {{ranks({0}), {1}}});
  scatterRoot.setParam(Param::RecvType, {{ranks({0}), {kDouble}}});
  Event& scatterOthers = b.add(Op::Scatterv, "scattervOthers", ranks({1, 2, 3}));
  scatterOthers.setParam(Param::Comm, {{ranks({1, 2, 3}), {kCommWorld}}});
  scatterOthers.setParam(Param::Root, {{ranks({1, 2, 3}), {0}}});
  scatterOthers.setParam(Param::RecvCount, {{ranks({1, 2, 3}), {2}}});
  scatterOthers.setParam(Param::RecvType, {{ranks({1, 2, 3}), {kDouble}}});
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  EXPECT_TRUE(ctx.warnings.empty()) << ctx.warnings.front();
  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Gatherv, Op::Scatterv, Op::Finalize}));
  EXPECT_EQ(counter(ctx, "collectives-aligned"), 2);
  const Event& gatherv = t.events[1];
  EXPECT_EQ(gatherv.ranks, all);
  // One value list for all ranks: as compact as an SPMD call.
  EXPECT_EQ(gatherv.param(Param::RecvCounts)->groups, (std::vector<ValueGroup>{{all, {1, 2, 3, 1}}}));
  EXPECT_EQ(gatherv.param(Param::Displs)->groups, (std::vector<ValueGroup>{{all, {0, 64, 128, 192}}}));
  EXPECT_EQ(gatherv.param(Param::RecvType)->groups, (std::vector<ValueGroup>{{all, {kDouble}}}));
  const Event& scatterv = t.events[2];
  EXPECT_EQ(scatterv.param(Param::SendCounts)->groups, (std::vector<ValueGroup>{{all, {1, 2, 3, 1}}}));
  EXPECT_EQ(scatterv.param(Param::Datatype)->groups, (std::vector<ValueGroup>{{all, {kDouble}}}));
  // The calls are unchanged but for the send type a non-root's MPI_Scatterv now names, which
  // MPI ignores there (it sends nothing: its count stays 0).
  for (Rank r = 0; r < 4; ++r) {
    auto was = stream(before, r, true), is = stream(t, r, true);
    ASSERT_EQ(was.size(), is.size());
    for (std::size_t i = 0; i < was.size(); ++i) {
      if (was[i].op == Op::Scatterv && r != 0) {
        EXPECT_EQ(was[i].datatype, 0);
        EXPECT_EQ(is[i].bytes, 0);
        was[i].datatype = is[i].datatype;
      }
      EXPECT_TRUE(was[i] == is[i]) << "rank " << r << " call " << i << " (" << opName(was[i].op) << ")";
    }
  }
}

TEST(AlignCollectives, RowRootsLendTheirVectorsWithinTheirRows) {
  // MPI_Gatherv on the rows {0,1} and {2,3} of a split, rooted at each row's rank 1 (world
  // ranks 1 and 3), peers in row numbering: the non-roots 0 and 2 take a root's vectors.
  Builder b(4);
  b.t.comms.push_back({1000, "split", {ranks({0, 1}), ranks({2, 3})}});
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  Event& roots = b.coll(Op::Gatherv, "gathervRoots", ranks({1, 3}), 1000);
  roots.setParam(Param::Root, {{ranks({1, 3}), {1}}});
  setVector(roots, Param::RecvCounts, {4, 4});
  setVector(roots, Param::Displs, {0, 4});
  roots.setParam(Param::RecvType, {{ranks({1, 3}), {kDouble}}});
  b.coll(Op::Gatherv, "gathervOthers", ranks({0, 2}), 1000).setParam(Param::Root, {{ranks({0, 2}), {1}}});
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_TRUE(ctx.warnings.empty()) << ctx.warnings.front();
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[1].param(Param::RecvCounts)->groups, (std::vector<ValueGroup>{{all, {4, 4}}}));
  expectSameStreams(before, t);
}

TEST(AlignCollectives, ARootWithoutItsVectorsIsNotMerged) {
  // Here the ranks without receive counts include the root (rank 0): no values may be lent to
  // it, so the events stay apart with a warning.
  Builder b(4);
  const RankList all = RankList::all(4);
  b.add(Op::Init, "init", all);
  b.coll(Op::Gatherv, "gathervA", ranks({0, 1}));  // root 0, no receive side
  Event& others = b.coll(Op::Gatherv, "gathervB", ranks({2, 3}));
  setVector(others, Param::RecvCounts, {1, 1, 1, 1});
  b.add(Op::Finalize, "finalize", all);
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);
  EXPECT_EQ(t, before);
  EXPECT_EQ(counter(ctx, "unaligned"), 1);
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("event 1 has no parameter 'recvcounts' although some of its ranks are the root"),
            std::string::npos)
      << ctx.warnings[0];
}

TEST(AlignCollectives, SuccessorHistogramsAreRekeyedAndMerged) {
  // Finalize follows the barrier on every rank: its histograms keyed by A (rank 0) and B
  // (ranks 1-3) describe one predecessor afterwards. Site B is also the site of an Isend, whose
  // successor must keep its histogram keyed B.
  Builder b(4);
  const RankList all = RankList::all(4), rest = ranks({1, 2, 3});
  b.add(Op::Init, "init", all);
  b.p2p(Op::Isend, "siteB", rest, 0);
  b.p2p(Op::Irecv, "irecv", rest, 0).stats = {compStat(b.site("siteB"), 3, 7.0)};
  b.coll(Op::Barrier, "siteA", ranks({0}));
  b.coll(Op::Barrier, "siteB", rest);
  Event& fin = b.add(Op::Finalize, "finalize", all);
  TimeStat fromA = compStat(b.site("siteA"), 1, 2.0, 0);
  TimeStat fromB = compStat(b.site("siteB"), 3, 6.0, 3);
  fromB.hist.bins = {{5, 5, 5.5, 6, 6, 2}, {6, 7, 7, 7, 8, 1}};
  fromB.hist.min = 5;
  fromB.hist.minRank = 1;
  fromB.hist.max = 7;
  fin.stats = {fromA, fromB};
  Trace t = std::move(b.t);
  const Trace before = t;
  PassContext ctx = runPass(t);

  ASSERT_EQ(ops(t), (std::vector<Op>{Op::Init, Op::Isend, Op::Irecv, Op::Barrier, Op::Finalize}));
  const Event& f = t.events[4];
  const TimeStat* a = nullptr;
  const TimeStat* bStat = nullptr;
  for (const auto& s : f.stats) {
    if (t.siteName(s.after) == "siteA") a = &s;
    if (t.siteName(s.after) == "siteB") bStat = &s;
  }
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->hist.n, 4);
  EXPECT_EQ(a->hist.min, 2.0);
  EXPECT_EQ(a->hist.minRank, 0);
  EXPECT_EQ(a->hist.max, 7.0);
  ASSERT_EQ(a->hist.bins.size(), 3u);
  EXPECT_EQ(a->hist.bins[0].start, 2.0);
  EXPECT_EQ(a->hist.bins[1].start, 5.0);
  EXPECT_DOUBLE_EQ(a->hist.mean(), (2.0 + 5.5 * 2 + 7.0) / 4);
  EXPECT_NE(bStat, nullptr);  // copied, not moved: site B still names the Isend
  // The Irecv after the Isend at site B still finds its histogram.
  bool irecvKeepsB = false;
  for (const auto& s : t.events[2].stats) irecvKeepsB = irecvKeepsB || (t.siteName(s.after) == "siteB" && s.hist.n == 3);
  EXPECT_TRUE(irecvKeepsB);
  EXPECT_GT(counter(ctx, "stats-rekeyed"), 0);
  // Calls are unchanged; compute times of the Finalize are now the merged mean.
  expectSameStreams(before, t, false);
  for (Rank r = 0; r < 4; ++r) {
    auto s = stream(t, r, true);
    EXPECT_DOUBLE_EQ(s.back().computeUs, a->hist.mean()) << "rank " << r;
    if (r > 0) {
      auto s0 = stream(before, r, true);
      EXPECT_EQ(s[2].computeUs, s0[2].computeUs);  // the Irecv after the Isend
    }
  }
}

TEST(AlignCollectives, NpbTracesAreAlreadyAligned) {
  const std::string dir = std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".trace") continue;
    ++files;
    Trace t = readTraceFile(entry.path().string());
    const Trace before = t;
    std::size_t collectives = 0;
    for (const auto& e : t.events) collectives += opInfo(e.op).kind == OpKind::Collective;
    EXPECT_GT(collectives, 0u) << entry.path();
    PassContext ctx = runPass(t);
    EXPECT_EQ(t, before) << entry.path();
    EXPECT_TRUE(ctx.warnings.empty()) << entry.path();
    // The cheap check returned: nothing partial, nothing expanded, no counter touched.
    EXPECT_TRUE(ctx.stats["align-collectives"].empty()) << entry.path();
  }
  EXPECT_GE(files, 4);
}

}  // namespace
}  // namespace tracegen
