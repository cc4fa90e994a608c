// Tests of the pass manager, communicator resolution and the timing summary, on the synthetic
// stencil and small hand-built traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <sstream>

#include "bench/SyntheticStencil.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "passes/PassManager.h"
#include "passes/PointToPointCheck.h"
#include "passes/Registry.h"

using namespace tracegen;

namespace {

// Sends to and receives from each peer, per rank: the balance every correct trace has.
void expectBalanced(const Trace& t) {
  std::map<std::pair<Rank, Rank>, std::int64_t> sent, received;
  for (Rank r = 0; r < t.numRanks; ++r) {
    RankCursor c(t, r);
    Call call;
    while (c.next(call)) {
      OpKind k = opInfo(call.op).kind;
      if (k == OpKind::Send || k == OpKind::Isend) sent[{r, call.peer}] += call.bytes;
      if (k == OpKind::Recv || k == OpKind::Irecv) received[{call.peer, r}] += call.recvBytes;
    }
  }
  EXPECT_EQ(sent, received);
}

}  // namespace

TEST(SyntheticStencil, ExpandsToTheStencilOnEveryRank) {
  const Rank px = 4, py = 3;
  Trace t = makeStencilTrace(px, py, 10);
  EXPECT_EQ(t.events.size(), 12u);
  for (Rank r = 0; r < px * py; ++r) {
    Rank row = r / px, col = r % px;
    int neighbours = (row > 0) + (row < py - 1) + (col > 0) + (col < px - 1);
    RankCursor c(t, r);
    Call call;
    std::map<Op, std::int64_t> ops;
    std::int64_t completed = 0;
    while (c.next(call)) {
      ++ops[call.op];
      completed += static_cast<std::int64_t>(call.completes.size());
    }
    EXPECT_EQ(ops[Op::Irecv], 10 * neighbours) << "rank " << r;
    EXPECT_EQ(ops[Op::Isend], 10 * neighbours) << "rank " << r;
    EXPECT_EQ(ops[Op::Waitall], 10);
    EXPECT_EQ(ops[Op::Allreduce], 10);
    EXPECT_EQ(completed, 20 * neighbours);
  }
  expectBalanced(t);
}

TEST(PassManager, DefaultPipelineRunsAndCountsEveryPass) {
  Trace t = makeStencilTrace(4, 4, 5);
  Trace before = t;
  PassContext ctx;
  PassManager pm(defaultPipeline());
  pm.run(t, ctx);
  EXPECT_EQ(pm.timings().size(), defaultPipeline().size());
  for (const auto& name : defaultPipeline()) EXPECT_TRUE(ctx.stats.count(name)) << name;
  EXPECT_TRUE(t.worldPeers);
  EXPECT_EQ(t.events.size(), before.events.size());
  // Lowering keeps every rank's calls.
  auto a = summarizeRanks(before), b = summarizeRanks(t);
  for (std::size_t r = 0; r < a.size(); ++r) {
    EXPECT_EQ(a[r].ops, b[r].ops);
    EXPECT_EQ(a[r].bytesSent, b[r].bytesSent);
  }
}

TEST(PassManager, RejectsUnknownPassNames) {
  EXPECT_THROW(PassManager({"resolve-comms", "no-such-pass"}), std::invalid_argument);
  PassManager pm({"resolve-comms"});
  EXPECT_THROW(pm.setPrintAfter({"bogus"}, nullptr), std::invalid_argument);
}

TEST(PassManager, PrintsTheIrAfterTheNamedPass) {
  Trace t = makeStencilTrace(2, 2, 3);
  PassContext ctx;
  PassManager pm({"resolve-comms", "summarize-timing"});
  std::ostringstream out;
  pm.setPrintAfter({"summarize-timing"}, &out);
  pm.run(t, ctx);
  EXPECT_NE(out.str().find("IR dump after summarize-timing"), std::string::npos);
  EXPECT_EQ(out.str().find("IR dump after resolve-comms"), std::string::npos);
}

TEST(SummarizeTiming, AvgMedianMaxFromHistograms) {
  Trace t = makeStencilTrace(2, 2, 4, 100.0);
  const Event* waitall = nullptr;
  for (const auto& e : t.events)
    if (e.op == Op::Waitall) waitall = &e;
  ASSERT_NE(waitall, nullptr);
  const Histogram& h = waitall->stats.front().hist;
  for (auto [mode, expected] : {std::pair{TimingMode::Avg, h.mean()}, {TimingMode::Median, h.median()}, {TimingMode::Max, h.max}}) {
    Trace copy = t;
    PassContext ctx;
    ctx.options.timing = mode;
    PassManager({"summarize-timing"}).run(copy, ctx);
    for (const auto& e : copy.events)
      if (e.op == Op::Waitall) {
        ASSERT_FALSE(e.compute.empty());
        EXPECT_DOUBLE_EQ(e.compute.front().us, expected);
      }
  }
  EXPECT_LT(h.mean(), h.max);
}

TEST(SummarizeTiming, RefusesToGuessAnInstructionRate) {
  Trace t = makeStencilTrace(2, 2, 2);
  for (auto& e : t.events)
    for (auto& s : e.stats) s.unit = TimeUnit::KiloInstructions;
  PassContext ctx;
  EXPECT_THROW(PassManager({"summarize-timing"}).run(t, ctx), InputError);
  ctx.options.instructionRate = 2e9;  // 2 G instructions/s: 1 kinst = 0.5 us
  PassManager({"summarize-timing"}).run(t, ctx);
  for (const auto& e : t.events)
    for (std::size_t i = 0; i < e.compute.size(); ++i) {
      const TimeStat* st = nullptr;
      for (const auto& s : e.stats)
        if (s.after == e.compute[i].after) st = &s;
      ASSERT_NE(st, nullptr);
      EXPECT_DOUBLE_EQ(e.compute[i].us, st->hist.mean() * 0.5);
    }
}

namespace {
// Four ranks split into rows {0,1} and {2,3}; in each row rank 0 of the row sends to rank 1
// of the row, in row numbering, and broadcasts from row rank 1.
Trace splitTrace() {
  Trace t;
  t.numRanks = 4;
  t.comms = standardCommunicators(4);
  t.datatypes = {{3, "MPI_INT", 4}};
  RankList all = RankList::all(4);
  auto add = [&](Op op, RankList ranks) -> Event& {
    Event e;
    e.id = static_cast<std::int64_t>(t.events.size());
    e.op = op;
    e.ranks = std::move(ranks);
    e.site = t.internSite(fmt::format("site{}", t.events.size()));
    t.events.push_back(std::move(e));
    return t.events.back();
  };
  add(Op::Init, all);
  Event& split = add(Op::CommSplit, all);
  split.setParam(Param::Comm, {{all, {kCommWorld}}});
  split.setParam(Param::Color, {{RankList::progression(0, 2), {0}}, {RankList::progression(2, 2), {1}}});
  split.setParam(Param::Key, {{all, {0}}}, true);
  Event& send = add(Op::Send, RankList::progression(0, 2, 2));  // ranks 0 and 2
  send.setParam(Param::Comm, {{send.ranks, {1000}}});
  send.setParam(Param::Count, {{send.ranks, {10}}});
  send.setParam(Param::Datatype, {{send.ranks, {3}}});
  send.setParam(Param::Dest, {{send.ranks, {1}}});  // row rank 1
  Event& recv = add(Op::Recv, RankList::progression(1, 2, 2));  // ranks 1 and 3
  recv.setParam(Param::Comm, {{recv.ranks, {1000}}});
  recv.setParam(Param::Count, {{recv.ranks, {10}}});
  recv.setParam(Param::Datatype, {{recv.ranks, {3}}});
  recv.setParam(Param::Source, {{recv.ranks, {0}}});
  Event& dup = add(Op::CommDup, all);
  dup.setParam(Param::Comm, {{all, {1000}}});
  Event& bcast = add(Op::Bcast, all);
  bcast.setParam(Param::Comm, {{all, {1001}}});  // the duplicate of the row
  bcast.setParam(Param::Count, {{all, {1}}});
  bcast.setParam(Param::Datatype, {{all, {3}}});
  bcast.setParam(Param::Root, {{all, {1}}});
  add(Op::Finalize, all);
  return t;
}
}  // namespace

// A recorded trace names every communicator it creates in its header: resolve-comms has
// nothing to find, so it does not walk the ranks' calls up to the last creation, here after a
// loop of 10^12 barriers (samples/apps/topo makes its graphs after its time-step loop; at
// 400,000 steps the walk ran out of the expansion budget and generation failed).
TEST(ResolveComms, CommunicatorsTheTraceDescribesNeedNoWalk) {
  const std::string text =
      "tracegen-trace 1\nranks 2\ndatatype MPI_DOUBLE 8\n"
      "comm 1000 dup (<1 0 {2 1}>)\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n"
      "event 1 MPI_Barrier @ <1 0 {2 1}>\n  loop 0 iter 1000000000000\n  loop 0 mem 1\n  comm 2\n"
      "event 2 MPI_Comm_dup @ <1 0 {2 1}>\n  comm 2\n  newcomm 1000\n"
      "event 3 MPI_Barrier @ <1 0 {2 1}>\n  comm 1000\n"
      "event 4 MPI_Finalize @ <1 0 {2 1}>\n";
  Trace t = readTracegenText(sourceFromString("described.tgt", text));
  PassContext ctx;
  PassManager({"resolve-comms"}).run(t, ctx);
  EXPECT_EQ(ctx.stats["resolve-comms"]["creations-described"], 1);
  ASSERT_NE(t.comm(1000), nullptr);
  EXPECT_EQ(t.comm(1000)->instances.at(0).toVector(), (std::vector<Rank>{0, 1}));

  // Without the header's line the creation must be found by walking: refused at the budget.
  std::string undescribed = text;
  undescribed.erase(undescribed.find("comm 1000 dup"), std::string("comm 1000 dup (<1 0 {2 1}>)\n").size());
  Trace u = readTracegenText(sourceFromString("undescribed.tgt", undescribed));
  PassContext uctx;
  EXPECT_THROW(PassManager({"resolve-comms"}).run(u, uctx), InputError);
}

TEST(ResolveComms, SplitBecomesRowInstancesAndPeersBecomeWorldRanks) {
  Trace t = splitTrace();
  PassContext ctx;
  PassManager({"resolve-comms"}).run(t, ctx);
  const Communicator* rows = t.comm(1000);
  ASSERT_NE(rows, nullptr);
  EXPECT_EQ(rows->kind, "split");
  ASSERT_EQ(rows->instances.size(), 2u);
  EXPECT_EQ(rows->instances[0].toVector(), (std::vector<Rank>{0, 1}));
  EXPECT_EQ(rows->instances[1].toVector(), (std::vector<Rank>{2, 3}));
  const Communicator* dups = t.comm(1001);
  ASSERT_NE(dups, nullptr);
  EXPECT_EQ(dups->kind, "dup");
  EXPECT_EQ(dups->instances, rows->instances);  // one duplicate per row, not one for all
  EXPECT_TRUE(t.worldPeers);
  std::map<Rank, std::vector<Rank>> peers, roots;
  for (Rank r = 0; r < 4; ++r) {
    RankCursor c(t, r);
    Call call;
    while (c.next(call)) {
      if (call.peer >= 0) peers[r].push_back(call.peer);
      if (call.root >= 0) roots[r].push_back(call.root);
    }
  }
  EXPECT_EQ(peers[0], std::vector<Rank>{1});
  EXPECT_EQ(peers[1], std::vector<Rank>{0});
  EXPECT_EQ(peers[2], std::vector<Rank>{3});
  EXPECT_EQ(peers[3], std::vector<Rank>{2});
  EXPECT_EQ(roots[0], std::vector<Rank>{1});
  EXPECT_EQ(roots[2], std::vector<Rank>{3});
  EXPECT_GT(ctx.stats["resolve-comms"]["peers-rewritten"], 0);
  expectBalanced(t);
}

TEST(ResolveComms, WorldOnlyTracesAreLeftAsTheyAre) {
  Trace t = makeStencilTrace(3, 3, 2);
  Trace before = t;
  PassContext ctx;
  PassManager({"resolve-comms"}).run(t, ctx);
  EXPECT_TRUE(t.worldPeers);
  t.worldPeers = false;
  EXPECT_TRUE(t == before);
}

TEST(ResolveComms, ProcNullPeersStayNamedThroughTheDefaultPipeline) {
  // Sends to and receives from MPI_PROC_NULL on a row communicator: resolve-comms translates
  // the row neighbours into world ranks and leaves MPI_PROC_NULL alone, and the lowered trace
  // makes the same calls and passes the point-to-point check (MPI_PROC_NULL needs no partner).
  const std::string path = std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/shift-null-4.tgt";
  Trace t = readTraceFile(path);
  const auto before = summarizeRanks(t);
  PassContext ctx;
  ctx.fileName = path;
  PassManager(defaultPipeline()).run(t, ctx);
  EXPECT_TRUE(t.worldPeers);
  EXPECT_GT(ctx.stats["resolve-comms"]["peers-rewritten"], 0);
  EXPECT_NO_THROW(verifyPointToPoint(t, path));
  const auto after = summarizeRanks(t);
  for (std::size_t r = 0; r < before.size(); ++r) {
    EXPECT_EQ(before[r].ops, after[r].ops) << "rank " << r;
    EXPECT_EQ(before[r].bytesSent, after[r].bytesSent) << "rank " << r;
    EXPECT_EQ(before[r].bytesReceived, after[r].bytesReceived) << "rank " << r;
  }
  for (Rank r = 0; r < 4; ++r) {
    std::vector<Rank> isendPeers;
    RankCursor c(t, r);
    Call call;
    while (c.next(call))
      if (call.op == Op::Isend) isendPeers.push_back(call.peer);
    const Rank partner = r ^ 1;
    EXPECT_EQ(isendPeers, r % 2 == 0 ? (std::vector<Rank>{kProcNull, partner}) : (std::vector<Rank>{partner, kProcNull}))
        << "rank " << r;
  }
}

// ---------------------------------------------------------------------------------------------
// Declared pass properties: the manager checks the order, the verifier what holds.

TEST(PassProperties, AnOrderThatSkipsARequirementIsRefusedWithTheFix) {
  try {
    PassManager pm({"summarize-timing", "align-collectives"});
    FAIL() << "expected the order to be refused";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("pass 'align-collectives' requires comms-resolved"), std::string::npos) << what;
    EXPECT_NE(what.find("run resolve-comms before it"), std::string::npos) << what;
  }
  // A pass that drops a property makes a later pass that needs it wait for it again.
  EXPECT_NO_THROW(PassManager({"resolve-comms", "align-collectives", "resolve-wildcards"}));
}

TEST(PassProperties, TheDefaultPipelineEstablishesEveryProperty) {
  Trace t = makeStencilTrace(4, 4, 3);
  PassContext ctx;
  PassManager(defaultPipeline()).run(t, ctx);
  EXPECT_EQ(ctx.established, IrProperties::all()) << ctx.established.str();
  // A property stops holding after a pass that does not preserve it.
  PassManager({"resolve-comms"}).run(t, ctx);
  EXPECT_FALSE(ctx.established.has(IrProperty::RankSetsNamed));
  EXPECT_TRUE(ctx.established.has(IrProperty::TimingSummarized));
  EXPECT_TRUE(ctx.established.has(IrProperty::CommsResolved));
}

TEST(PassProperties, TheVerifierChecksWhatHoldsWhicheverPassEstablishedIt) {
  Trace t = makeStencilTrace(3, 3, 2);
  PassContext ctx;
  PassManager(defaultPipeline()).run(t, ctx);
  EXPECT_NO_THROW(verifyAfterPass(t, ctx, "some-pass", {}));

  // timing-summarized: a compute histogram without its summarised time.
  Trace untimed = t;
  for (Event& e : untimed.events)
    if (!e.compute.empty()) {
      e.compute.clear();
      break;
    }
  try {
    verifyAfterPass(untimed, ctx, "some-pass", {});
    FAIL() << "expected the verifier to find the missing compute time";
  } catch (const ProgramError& e) {
    EXPECT_NE(std::string(e.what()).find("pass some-pass broke the trace's timing-summarized"), std::string::npos)
        << e.what();
  }
  // Without the property, the same trace passes.
  PassContext before = ctx;
  before.established.remove(IrProperty::TimingSummarized);
  EXPECT_NO_THROW(verifyAfterPass(untimed, before, "some-pass", {}));

  // rank-sets-named: a rank set nobody named.
  Trace renamed = t;
  renamed.rankShapes.clear();
  EXPECT_THROW(verifyAfterPass(renamed, ctx, "some-pass", {}), ProgramError);

  // wildcards-resolved: a receive from MPI_ANY_SOURCE again.
  Trace wild = t;
  bool changed = false;
  for (Event& e : wild.events)
    if (opInfo(e.op).kind == OpKind::Irecv && !changed)
      if (ParamValues* src = e.param(Param::Source)) {
        for (auto& g : src->groups) std::fill(g.values.begin(), g.values.end(), kAnySource);
        src->relative = false;
        changed = true;
      }
  ASSERT_TRUE(changed);
  PassContext wildcardsOnly;
  wildcardsOnly.established = {IrProperty::WildcardsResolved};
  EXPECT_THROW(verifyAfterPass(wild, wildcardsOnly, "some-pass", {}), InputError);
}
