// The ScalaTrace 2 reader and the per-rank expansion (RankCursor) against the four real traces
// bundled in tests/data/scalatrace: the figures of §14 of the format reference, its consistency identities
// (histogram counts, point-to-point balance, requests), and the annotated excerpts of §12.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Verify.h"

namespace tracegen {
namespace {

const char* const kTdLu = "scalatrace2-npb-td-lu-A-4.trace";
const char* const kTiCg = "scalatrace2-npb-ti-cg-A-4.trace";
const char* const kTiLu = "scalatrace2-npb-ti-lu-A-4.trace";
const char* const kTicLu = "scalatrace2-npb-tic-lu-A-4.trace";

std::string tracePath(const std::string& name) { return std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/" + name; }

// One expanded call, kept small (a quarter of a million per trace).
struct CallRec {
  std::size_t event = 0;  // index into trace.events
  Op op = Op::Init;
  Rank peer = -1;
  Rank root = -1;
  std::int64_t count = 0;
  std::int64_t bytes = 0;
  std::int64_t recvBytes = 0;
  std::vector<std::int64_t> completes;
  double computeUs = -1;
  double computeKinst = -1;
};

struct Loaded {
  Trace trace;
  std::vector<std::vector<CallRec>> calls;  // per rank
};

// Each trace is read and expanded once for all tests.
const Loaded& load(const std::string& name) {
  static std::map<std::string, std::unique_ptr<Loaded>> cache;
  auto& slot = cache[name];
  if (!slot) {
    auto l = std::make_unique<Loaded>();
    l->trace = readTraceFile(tracePath(name));
    for (Rank r = 0; r < l->trace.numRanks; ++r) {
      RankCursor cursor(l->trace, r, name);
      std::vector<CallRec> v;
      Call c;
      while (cursor.next(c)) {
        EXPECT_EQ(c.index, static_cast<std::int64_t>(v.size()));
        CallRec rec;
        rec.event = static_cast<std::size_t>(c.event - l->trace.events.data());
        rec.op = c.op;
        rec.peer = c.peer;
        rec.root = c.root;
        rec.count = c.count;
        rec.bytes = c.bytes;
        rec.recvBytes = c.recvBytes;
        rec.completes = c.completes;
        rec.computeUs = c.computeUs;
        rec.computeKinst = c.computeKinst;
        v.push_back(std::move(rec));
      }
      l->calls.push_back(std::move(v));
    }
    slot = std::move(l);
  }
  return *slot;
}

struct Figures {
  const char* file;
  const char* origin;
  Rank ranks;
  std::size_t events;
  int loopLines;
  int loopHeads;
  int maxDepth;
  std::map<Op, int> ops;
  std::int64_t rank0Calls;
  std::int64_t allCalls;
  std::int64_t minCalls;
  std::int64_t maxCalls;
};

const std::map<Op, int> kLuOps = {{Op::Init, 1},       {Op::Bcast, 1}, {Op::Barrier, 2}, {Op::Allreduce, 7},
                                  {Op::Send, 19},      {Op::Recv, 6},  {Op::Irecv, 13},  {Op::Wait, 13},
                                  {Op::Finalize, 1}};
const std::map<Op, int> kCgOps = {{Op::Init, 1},   {Op::Barrier, 1}, {Op::Reduce, 1},  {Op::Send, 16},
                                  {Op::Irecv, 16}, {Op::Wait, 16},   {Op::Finalize, 1}};

// §14's table.
const std::vector<Figures>& figures() {
  static const std::vector<Figures> kFigures = {
      {kTdLu, "scalatrace2-td", 4, 63, 29, 24, 2, kLuOps, 63803, 255204, 63799, 63803},
      {kTiCg, "scalatrace2-ti", 4, 52, 5, 5, 1, kCgOps, 5044, 20176, 5044, 5044},
      {kTiLu, "scalatrace2-ti", 4, 63, 29, 24, 2, kLuOps, 63803, 255204, 63799, 63803},
      {kTicLu, "scalatrace2-tic", 4, 63, 29, 24, 2, kLuOps, 63803, 255204, 63799, 63803},
  };
  return kFigures;
}

std::string opsString(const std::map<Op, int>& ops) {
  std::string s;
  for (const auto& [op, n] : ops) s += std::string(opName(op)) + " " + std::to_string(n) + ", ";
  return s;
}

void checkFigures(const Figures& f) {
  SCOPED_TRACE(f.file);
  const Loaded& l = load(f.file);
  const Trace& t = l.trace;
  EXPECT_EQ(t.numRanks, f.ranks);
  EXPECT_EQ(t.origin, f.origin);
  EXPECT_EQ(t.events.size(), f.events);
  int loopLines = 0, loopHeads = 0, maxDepth = 0;
  std::map<Op, int> ops;
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    const Event& e = t.events[i];
    EXPECT_EQ(e.id, static_cast<std::int64_t>(i));
    loopLines += static_cast<int>(e.loops.size());
    loopHeads += e.loops.empty() ? 0 : 1;
    maxDepth = std::max(maxDepth, static_cast<int>(e.loops.size()));
    ++ops[e.op];
  }
  EXPECT_EQ(loopLines, f.loopLines);
  EXPECT_EQ(loopHeads, f.loopHeads);
  EXPECT_EQ(maxDepth, f.maxDepth);
  EXPECT_EQ(opsString(ops), opsString(f.ops));
  EXPECT_EQ(t.events.front().op, Op::Init);
  EXPECT_EQ(t.events.back().op, Op::Finalize);
  EXPECT_EQ(t.events.front().ranks, RankList::all(f.ranks));
  EXPECT_EQ(t.events.back().ranks, RankList::all(f.ranks));

  ASSERT_EQ(static_cast<Rank>(l.calls.size()), f.ranks);
  std::int64_t all = 0, lo = INT64_MAX, hi = 0;
  for (const auto& v : l.calls) {
    const auto n = static_cast<std::int64_t>(v.size());
    all += n;
    lo = std::min(lo, n);
    hi = std::max(hi, n);
    ASSERT_FALSE(v.empty());
    EXPECT_EQ(v.front().op, Op::Init);
    EXPECT_EQ(v.back().op, Op::Finalize);
  }
  EXPECT_EQ(static_cast<std::int64_t>(l.calls[0].size()), f.rank0Calls);
  EXPECT_EQ(all, f.allCalls);
  EXPECT_EQ(lo, f.minCalls);
  EXPECT_EQ(hi, f.maxCalls);

  // Variants: which measurements the file has.
  const bool td = std::string(f.origin) == "scalatrace2-td";
  const bool ti = std::string(f.origin) == "scalatrace2-ti";
  EXPECT_EQ(t.hasTime(Phase::Compute, TimeUnit::Microseconds), !ti);
  EXPECT_EQ(t.hasTime(Phase::Compute, TimeUnit::KiloInstructions), !td);
  EXPECT_TRUE(t.hasTime(Phase::Mpi, TimeUnit::Microseconds));
  EXPECT_FALSE(t.hasTime(Phase::Mpi, TimeUnit::KiloInstructions));
  // Every call but MPI_Init has a computation from the histogram of its predecessor's site.
  for (const auto& v : l.calls)
    for (std::size_t k = 0; k < v.size(); ++k) {
      const CallRec& c = v[k];
      if (k == 0) {
        EXPECT_LT(c.computeUs, 0);
        EXPECT_LT(c.computeKinst, 0);
        continue;
      }
      ASSERT_EQ(c.computeUs >= 0, !ti) << "call " << k << " event " << c.event;
      ASSERT_EQ(c.computeKinst >= 0, !td) << "call " << k << " event " << c.event;
    }
}

TEST(ScalaTraceReader, FiguresTdLuA4) { checkFigures(figures()[0]); }
TEST(ScalaTraceReader, FiguresTiCgA4) { checkFigures(figures()[1]); }
TEST(ScalaTraceReader, FiguresTiLuA4) { checkFigures(figures()[2]); }
TEST(ScalaTraceReader, FiguresTicLuA4) { checkFigures(figures()[3]); }

// §14 item 5: per event and statistic code, the histograms' sample counts add up to the
// event's executions over all ranks, and each path's count is the number of those executions
// whose predecessor was made at the path's call site. This checks loop expansion (per-rank
// body lengths over filtered events) and the predecessor-keyed paths.
TEST(ScalaTraceReader, HistogramCountsMatchExpansion) {
  for (const auto& f : figures()) {
    SCOPED_TRACE(f.file);
    const Loaded& l = load(f.file);
    const Trace& t = l.trace;
    std::vector<std::int64_t> occurrences(t.events.size(), 0);
    std::map<std::pair<std::size_t, SiteId>, std::int64_t> byPred;
    for (const auto& v : l.calls)
      for (std::size_t k = 0; k < v.size(); ++k) {
        ++occurrences[v[k].event];
        if (k > 0) ++byPred[{v[k].event, t.events[v[k - 1].event].site}];
      }
    int histograms = 0;
    for (std::size_t i = 0; i < t.events.size(); ++i) {
      const Event& e = t.events[i];
      if (e.op == Op::Init) {
        EXPECT_TRUE(e.stats.empty());
        continue;
      }
      std::map<std::pair<Phase, TimeUnit>, std::int64_t> sums;
      for (const auto& st : e.stats) {
        ++histograms;
        sums[{st.phase, st.unit}] += st.hist.n;
        auto it = byPred.find({i, st.after});
        EXPECT_EQ(st.hist.n, it == byPred.end() ? 0 : it->second)
            << "event " << e.id << " " << phaseName(st.phase) << " " << timeUnitName(st.unit) << " path "
            << t.siteName(st.after);
      }
      EXPECT_FALSE(sums.empty()) << "event " << e.id << " has no statistics";
      if (e.op == Op::Finalize) {
        EXPECT_EQ(sums.count({Phase::Mpi, TimeUnit::Microseconds}), 0u);
      }
      for (const auto& [code, n] : sums)
        EXPECT_EQ(n, occurrences[i]) << "event " << e.id << " " << phaseName(code.first) << " " << timeUnitName(code.second);
    }
    EXPECT_GT(histograms, 100);
  }
}

// §14 item 6: per rank, the messages and bytes sent to it equal the receives and bytes it posts
// (MPI_ANY_SOURCE included); no directed pair has more explicit-source receives than sends.
TEST(ScalaTraceReader, PointToPointBalance) {
  for (const auto& f : figures()) {
    SCOPED_TRACE(f.file);
    const Loaded& l = load(f.file);
    const Rank P = l.trace.numRanks;
    std::vector<std::int64_t> sentTo(static_cast<std::size_t>(P), 0), bytesTo(static_cast<std::size_t>(P), 0);
    std::vector<std::int64_t> posted(static_cast<std::size_t>(P), 0), bytesPosted(static_cast<std::size_t>(P), 0);
    std::map<std::pair<Rank, Rank>, std::int64_t> sends, explicitRecvs;
    std::int64_t anySource = 0, messages = 0;
    for (Rank r = 0; r < P; ++r)
      for (const auto& c : l.calls[static_cast<std::size_t>(r)]) {
        const OpKind kind = opInfo(c.op).kind;
        if (kind == OpKind::Send || kind == OpKind::Isend) {
          ASSERT_GE(c.peer, 0);
          ASSERT_LT(c.peer, P);
          EXPECT_GT(c.bytes, 0);
          ++sentTo[static_cast<std::size_t>(c.peer)];
          bytesTo[static_cast<std::size_t>(c.peer)] += c.bytes;
          ++sends[{r, c.peer}];
          ++messages;
        } else if (kind == OpKind::Recv || kind == OpKind::Irecv) {
          ++posted[static_cast<std::size_t>(r)];
          bytesPosted[static_cast<std::size_t>(r)] += c.recvBytes;
          EXPECT_GT(c.recvBytes, 0);
          if (c.peer == kAnySource) {
            ++anySource;
          } else {
            ASSERT_GE(c.peer, 0);
            ASSERT_LT(c.peer, P);
            ++explicitRecvs[{c.peer, r}];
          }
        } else {
          EXPECT_EQ(c.peer, -1);
        }
      }
    EXPECT_GT(messages, 0);
    EXPECT_EQ(sentTo, posted);
    EXPECT_EQ(bytesTo, bytesPosted);
    for (const auto& [pair, n] : explicitRecvs)
      EXPECT_LE(n, sends[pair]) << "receives of rank " << pair.second << " from " << pair.first;
    // LU uses MPI_ANY_SOURCE, CG does not (§14).
    EXPECT_EQ(anySource > 0, std::string(f.file).find("-lu-") != std::string::npos);
  }
}

// §14 items 7 and 8: every wait completes an earlier MPI_Irecv of its rank, each Irecv is
// completed exactly once, and all ranks execute the same collectives.
TEST(ScalaTraceReader, WaitsCompleteIrecvsAndCollectivesAgree) {
  for (const auto& f : figures()) {
    SCOPED_TRACE(f.file);
    const Loaded& l = load(f.file);
    std::map<Op, std::int64_t> rank0Collectives;
    for (std::size_t r = 0; r < l.calls.size(); ++r) {
      const auto& v = l.calls[r];
      std::set<std::int64_t> irecvs, completed;
      std::map<Op, std::int64_t> collectives;
      for (std::size_t k = 0; k < v.size(); ++k) {
        const CallRec& c = v[k];
        if (c.op == Op::Irecv) irecvs.insert(static_cast<std::int64_t>(k));
        if (opInfo(c.op).kind == OpKind::Collective) ++collectives[c.op];
        if (c.op != Op::Wait) {
          EXPECT_TRUE(c.completes.empty());
          continue;
        }
        ASSERT_EQ(c.completes.size(), 1u) << "rank " << r << " call " << k;
        const std::int64_t target = c.completes[0];
        ASSERT_GE(target, 0);
        ASSERT_LT(target, static_cast<std::int64_t>(k));
        EXPECT_EQ(v[static_cast<std::size_t>(target)].op, Op::Irecv) << "rank " << r << " call " << k;
        // `1c 9999` everywhere: the most recent request-creating call.
        EXPECT_EQ(target, irecvs.empty() ? -1 : *irecvs.rbegin());
        EXPECT_TRUE(completed.insert(target).second) << "request completed twice";
      }
      EXPECT_EQ(completed, irecvs) << "rank " << r << " leaves requests outstanding";
      if (r == 0) rank0Collectives = collectives;
      EXPECT_EQ(collectives, rank0Collectives) << "rank " << r;
    }
  }
}

// The three LU variants share everything but the measurements and the stack addresses (§1).
TEST(ScalaTraceReader, LuVariantsShareStructure) {
  const Trace& td = load(kTdLu).trace;
  for (const char* other : {kTiLu, kTicLu}) {
    SCOPED_TRACE(other);
    const Trace& t = load(other).trace;
    ASSERT_EQ(t.events.size(), td.events.size());
    for (std::size_t i = 0; i < t.events.size(); ++i) {
      EXPECT_EQ(t.events[i].op, td.events[i].op) << i;
      EXPECT_EQ(t.events[i].ranks, td.events[i].ranks) << i;
      EXPECT_EQ(t.events[i].loops, td.events[i].loops) << i;
      EXPECT_EQ(t.events[i].params, td.events[i].params) << i;
    }
    const auto& a = load(kTdLu).calls;
    const auto& b = load(other).calls;
    for (std::size_t r = 0; r < a.size(); ++r) {
      ASSERT_EQ(a[r].size(), b[r].size());
      for (std::size_t k = 0; k < a[r].size(); ++k) {
        ASSERT_EQ(a[r][k].event, b[r][k].event);
        ASSERT_EQ(a[r][k].peer, b[r][k].peer);
        ASSERT_EQ(a[r][k].bytes, b[r][k].bytes);
      }
    }
  }
}

// §12.1: every rank starts with MPI_Init and nine broadcasts from root 0 of 1 1 1 1 1 5 1 1 1
// elements (MPI_INTEGER x3, MPI_DOUBLE_PRECISION x3, MPI_INTEGER x3).
TEST(ScalaTraceReader, Excerpt12_1InitAndBroadcasts) {
  const Loaded& l = load(kTdLu);
  const std::vector<std::int64_t> counts = {1, 1, 1, 1, 1, 5, 1, 1, 1};
  const std::vector<std::int64_t> bytes = {4, 4, 4, 8, 8, 40, 4, 4, 4};
  for (std::size_t r = 0; r < 4; ++r) {
    SCOPED_TRACE("rank " + std::to_string(r));
    const auto& v = l.calls[r];
    ASSERT_GE(v.size(), 11u);
    EXPECT_EQ(v[0].op, Op::Init);
    EXPECT_EQ(v[0].event, 0u);
    for (std::size_t k = 0; k < 9; ++k) {
      const CallRec& c = v[k + 1];
      EXPECT_EQ(c.op, Op::Bcast) << k;
      EXPECT_EQ(c.event, 1u) << k;
      EXPECT_EQ(c.root, 0) << k;
      EXPECT_EQ(c.count, counts[k]) << k;
      EXPECT_EQ(c.bytes, bytes[k]) << k;
    }
    EXPECT_NE(v[10].op, Op::Bcast);
  }
  // Rank 0's first broadcast follows MPI_Init: its computation is the bin-weighted mean of the
  // path keyed by MPI_Init's site, (3 x 60.33 + 261) / 4 = 110.50, not the header's 140.60.
  const Trace& t = l.trace;
  EXPECT_EQ(t.siteName(t.events[0].site), "478d7c_478e3b_478ed1_478f2c");
  EXPECT_NEAR(l.calls[0][1].computeUs, 110.5, 0.01);
  EXPECT_LT(l.calls[0][1].computeKinst, 0);
  const TimeStat* initPath = nullptr;
  for (const auto& st : t.events[1].stats)
    if (st.phase == Phase::Compute && st.after == t.events[0].site) initPath = &st;
  ASSERT_NE(initPath, nullptr);
  EXPECT_DOUBLE_EQ(initPath->hist.avg, 140.60);
  EXPECT_EQ(initPath->hist.n, 4);
  // Five bins in the file, three of them empty: the reader keeps the two that hold samples.
  ASSERT_EQ(initPath->hist.bins.size(), 2u);
  EXPECT_EQ(initPath->hist.bins[0].freq + initPath->hist.bins[1].freq, 4);
  // The next broadcasts follow a broadcast: the path keyed by E1's own site, mean 5.75.
  for (std::size_t k = 2; k <= 9; ++k) EXPECT_NEAR(l.calls[0][k].computeUs, 5.75, 1e-9) << k;
}

struct Expect {
  std::int64_t event;
  Op op;
  Rank peer;  // -1: none
};

void expectRun(const Loaded& l, Rank rank, std::int64_t firstEvent, const std::vector<Expect>& run) {
  SCOPED_TRACE("rank " + std::to_string(rank));
  const auto& v = l.calls[static_cast<std::size_t>(rank)];
  auto it = std::find_if(v.begin(), v.end(), [&](const CallRec& c) { return l.trace.events[c.event].id == firstEvent; });
  ASSERT_NE(it, v.end());
  const auto start = static_cast<std::size_t>(it - v.begin());
  ASSERT_LE(start + run.size(), v.size());
  for (std::size_t k = 0; k < run.size(); ++k) {
    const CallRec& c = v[start + k];
    EXPECT_EQ(l.trace.events[c.event].id, run[k].event) << "call " << k;
    EXPECT_EQ(c.op, run[k].op) << "call " << k;
    EXPECT_EQ(c.peer, run[k].peer) << "call " << k;
    if (c.op == Op::Send) {
      EXPECT_EQ(c.bytes, 163840) << "call " << k;
    }
    if (c.op == Op::Irecv) {
      EXPECT_EQ(c.recvBytes, 163840) << "call " << k;
    }
  }
}

// §12.2: MPI_ANY_SOURCE receives, waits and per-rank nested loops (td/lu/A/4, E17-E22).
TEST(ScalaTraceReader, Excerpt12_2PerRankSequences) {
  const Loaded& l = load(kTdLu);
  const Rank any = kAnySource;
  const Expect irecv17{17, Op::Irecv, any}, wait18{18, Op::Wait, -1}, irecv20{20, Op::Irecv, any},
      wait21{21, Op::Wait, -1}, allreduce{22, Op::Allreduce, -1};
  auto send = [](Rank to) { return Expect{19, Op::Send, to}; };
  // Rank 0: [[E19 E20 E21]^2 E22]^2.
  std::vector<Expect> r0 = {send(1), irecv20, wait21, send(2), irecv20, wait21, allreduce};
  r0.insert(r0.end(), r0.begin(), r0.end());
  expectRun(l, 0, 19, r0);
  // Rank 1: [E17 E18 [E19]^2 E20 E21 E22]^2.
  std::vector<Expect> r1 = {irecv17, wait18, send(0), send(3), irecv20, wait21, allreduce};
  r1.insert(r1.end(), r1.begin(), r1.end());
  expectRun(l, 1, 17, r1);
  // Rank 2: [E17 E18]^2 E19 E22.
  expectRun(l, 2, 17, {irecv17, wait18, irecv17, wait18, send(0), allreduce});
  // Rank 3: [[E17 E18 E19]^2 E22]^2, sending to 2 then 1 (offsets 3, 2 wrap around).
  std::vector<Expect> r3 = {irecv17, wait18, send(2), irecv17, wait18, send(1), allreduce};
  r3.insert(r3.end(), r3.begin(), r3.end());
  expectRun(l, 3, 17, r3);
}

// §8's loop tree of rank 0: E0 [E1]^9 [E8 E9 E10]^4 E11 E12 [E15]^124 [E16]^124
// [[E19 E20 E21]^2 E22]^2 E23 ...
TEST(ScalaTraceReader, Rank0LoopStructure) {
  const Loaded& l = load(kTdLu);
  std::vector<std::int64_t> expect = {0};
  expect.insert(expect.end(), 9, 1);
  for (int i = 0; i < 4; ++i) expect.insert(expect.end(), {8, 9, 10});
  expect.insert(expect.end(), {11, 12});
  expect.insert(expect.end(), 124, 15);
  expect.insert(expect.end(), 124, 16);
  for (int i = 0; i < 2; ++i) expect.insert(expect.end(), {19, 20, 21, 19, 20, 21, 22});
  expect.push_back(23);
  const auto& v = l.calls[0];
  ASSERT_GE(v.size(), expect.size());
  std::vector<std::int64_t> got;
  for (std::size_t k = 0; k < expect.size(); ++k) got.push_back(l.trace.events[v[k].event].id);
  EXPECT_EQ(got, expect);
}

// The model as read: relative peers, MPI_ANY_SOURCE, grouped values, loops (td/lu/A/4).
TEST(ScalaTraceReader, EventModelOfExcerpts) {
  const Trace& t = load(kTdLu).trace;
  const Event& e17 = t.events[17];
  EXPECT_EQ(e17.op, Op::Irecv);
  EXPECT_EQ(e17.ranks, RankList::progression(1, 3));
  ASSERT_EQ(e17.loops.size(), 2u);
  ASSERT_EQ(e17.loops[0].mem.size(), 3u);
  EXPECT_EQ(e17.loops[0].iter, (std::vector<ValueGroup>{{RankList::progression(1, 3), {2}}}));
  EXPECT_EQ(e17.loops[0].mem[0], (ValueGroup{RankList::single(1), {6}}));
  EXPECT_EQ(e17.loops[0].mem[1], (ValueGroup{RankList::single(3), {4}}));
  EXPECT_EQ(e17.loops[0].mem[2], (ValueGroup{RankList::single(2), {2}}));
  EXPECT_EQ(e17.loops[1].iter, (std::vector<ValueGroup>{{RankList::single(3), {2}}}));
  ASSERT_NE(e17.param(Param::Source), nullptr);
  EXPECT_TRUE(e17.param(Param::Source)->relative);
  EXPECT_EQ(e17.uniformValue(Param::Source), kAnySource);
  EXPECT_EQ(e17.uniformValue(Param::Count), 20480);
  EXPECT_EQ(e17.uniformValue(Param::Datatype), 16);
  EXPECT_EQ(e17.uniformValue(Param::Comm), kCommWorld);
  EXPECT_EQ(t.siteName(e17.site), "479b76_479f4b_47a0b6_47a1d7");
  EXPECT_EQ(e17.line, 195);
  const Event& e19 = t.events[19];
  const ParamValues* dest = e19.param(Param::Dest);
  ASSERT_NE(dest, nullptr);
  EXPECT_TRUE(dest->relative);
  ASSERT_EQ(dest->groups.size(), 3u);
  EXPECT_EQ(dest->groups[0], (ValueGroup{RankList::single(0), {1, 2}}));
  EXPECT_EQ(dest->groups[1], (ValueGroup{RankList::progression(1, 2, 2), {3, 2}}));
  EXPECT_EQ(dest->groups[2], (ValueGroup{RankList::single(2), {2}}));
  EXPECT_EQ(e19.uniformValue(Param::Dest), std::nullopt);
  const Event& e1 = t.events[1];
  ASSERT_NE(e1.param(Param::Count), nullptr);
  EXPECT_EQ(e1.param(Param::Count)->groups[0].values, (std::vector<std::int64_t>{1, 1, 1, 1, 1, 5, 1, 1, 1}));
  EXPECT_EQ(e1.uniformValue(Param::Root), 0);
  // Init's informational parameters are dropped.
  EXPECT_TRUE(t.events[0].params.empty());
  ASSERT_NE(t.datatype(14), nullptr);
  EXPECT_EQ(t.datatype(14)->size, 4);
  ASSERT_NE(t.datatype(16), nullptr);
  EXPECT_EQ(t.datatype(16)->size, 8);
  ASSERT_NE(t.comm(kCommWorld), nullptr);
  EXPECT_EQ(t.comm(kCommWorld)->instances, (std::vector<RankList>{RankList::all(4)}));
}

// --------------------------------------------------------------------------------------------
// Small in-memory traces

std::string block(const std::string& ranks, int seq, int op, const std::string& rest = "") {
  return "RANKS: " + ranks + "\nEVENT" + std::to_string(seq) + ": " + std::to_string(op) + " s" + std::to_string(seq) +
         "_1\n" + rest + "\n";
}

// Init on all P ranks, then `middle`, then Finalize numbered `finalizeSeq`.
std::string smallTrace(Rank P, const std::string& middle, int finalizeSeq) {
  const std::string all = "1 -1 0 " + std::to_string(P) + " 1";
  return block(all, 0, 1084, "33 2 \n34 0 \n") + middle + block(all, finalizeSeq, 1045);
}

// The ranklists of §4 as read by the reader, from RANKS lines and from value groups.
TEST(ScalaTraceReader, DecodesSpecRanklists) {
  struct Case {
    const char* text;
    std::vector<Rank> ranks;
  };
  const std::vector<Case> cases = {
      {"1 -1 0 4 1", {0, 1, 2, 3}},
      {"1 -1 2 1 0", {2}},
      {"1 -1 1 2 2", {1, 3}},
      {"2 -1 0 4 1 -1 5 2 1", {0, 1, 2, 3, 5, 6}},
      {"1 -2 0 2 6 2 1", {0, 1, 6, 7}},
      {"1 -2 5 3 4 2 1", {5, 6, 9, 10, 13, 14}},
      {"3 -2 0 2 12 3 1 -2 4 2 4 2 3 -1 15 1 0", {0, 1, 2, 4, 7, 8, 11, 12, 13, 14, 15}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string text = smallTrace(16, block(c.text, 1, 1010, "10 2 \n"), 2);
    const Trace t = readScalaTrace(sourceFromString("mem.trace", text));
    ASSERT_EQ(t.events.size(), 3u);
    EXPECT_EQ(t.numRanks, 16);
    EXPECT_EQ(t.events[1].ranks.toVector(), c.ranks);
    // As the ranks of a value group of a parameter covering all 16 ranks.
    const RankList group = RankList::fromSorted(c.ranks);
    const RankList rest = RankList::subtract(RankList::all(16), group);
    std::string params = "10 2 \n12 4 \n14 16 \n18 3 \n19 ( 0 )[ " + std::string(c.text) + " ]\n";
    if (!rest.empty()) params += "19 ( 1 )[ " + rest.scalaTraceStr() + " ]\n";
    const Trace t2 = readScalaTrace(sourceFromString("mem.trace", smallTrace(16, block("1 -1 0 16 1", 1, 1104, params), 2)));
    const ParamValues* root = t2.events[1].param(Param::Root);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->groups[0].ranks.toVector(), c.ranks);
    for (Rank r = 0; r < 16; ++r) {
      RankCursor cursor(t2, r);
      Call call;
      ASSERT_TRUE(cursor.next(call));
      ASSERT_TRUE(cursor.next(call));
      EXPECT_EQ(call.op, Op::Reduce);
      EXPECT_EQ(call.root, group.contains(r) ? 0 : 1) << "rank " << r;
      EXPECT_EQ(call.bytes, 32);
    }
  }
}

// Vector-valued loop lists and parameters are consumed cyclically per entry / execution, and
// a zero trip count skips the body (§8, §13 LCS builds).
TEST(ScalaTraceReader, CyclicLoopAndParameterValues) {
  const std::string all = "1 -1 0 2 1";
  // Outer loop: E1 E2, 3 times. Inner loop at E2 runs 1, 0, 2 times in successive entries.
  std::string middle = block(all, 1, 1010, "LOOP0: iter: ( 3 )[ " + all + " ] mem: ( 2 )[ " + all + " ]\n10 2 \n") +
                       block(all, 2, 1113,
                             "LOOP0: iter: ( 1 0 2 )[ " + all + " ] mem: ( 1 )[ " + all +
                                 " ]\n10 2 \n12 1 2 3 \n14 3 \n1a 1 \n1b 0 \n") +
                       block(all, 3, 1102, "LOOP0: iter: ( 3 )[ " + all + " ] mem: ( 1 )[ " + all + " ]\n10 2 \n12 1 2 3 \n14 3 \n1b 0 \n2b 1 \n");
  const Trace t = readScalaTrace(sourceFromString("mem.trace", smallTrace(2, middle, 4)));
  for (Rank r = 0; r < 2; ++r) {
    RankCursor cursor(t, r);
    Call c;
    std::vector<std::string> got;
    while (cursor.next(c)) {
      std::string s(opName(c.op));
      if (c.op == Op::Send || c.op == Op::Recv) s += " " + std::to_string(c.peer) + " " + std::to_string(c.count);
      got.push_back(s);
    }
    const std::string peer = std::to_string(1 - r);
    EXPECT_EQ(got, (std::vector<std::string>{"MPI_Init", "MPI_Barrier", "MPI_Send " + peer + " 1", "MPI_Barrier",
                                             "MPI_Barrier", "MPI_Send " + peer + " 2", "MPI_Send " + peer + " 3",
                                             "MPI_Recv " + peer + " 1", "MPI_Recv " + peer + " 2", "MPI_Recv " + peer + " 3",
                                             "MPI_Finalize"}))
        << "rank " << r;
  }
}

// Request offsets resolve by recency (§10.5): 9998 is the request before the most recent.
TEST(ScalaTraceReader, RequestOffsetsByRecency) {
  const std::string all = "1 -1 0 2 1";
  const std::string irecv = "10 2 \n12 8 \n14 16 \n1b 0 \n2b 1 \n";
  std::string middle = block(all, 1, 1090, irecv) + block(all, 2, 1090, irecv) + block(all, 3, 1148, "1c 9998 \n") +
                       block(all, 4, 1148, "1c 9999 \n") + block(all, 5, 1148, "1c -1 \n") +
                       block(all, 6, 1113, "10 2 \n12 8 \n14 16 \n1a 1 \n1b 0 \n") +
                       block(all, 7, 1113, "10 2 \n12 8 \n14 16 \n1a 1 \n1b 0 \n");
  const Trace t = readScalaTrace(sourceFromString("mem.trace", smallTrace(2, middle, 8)));
  RankCursor cursor(t, 1);
  std::vector<Call> calls;
  Call c;
  while (cursor.next(c)) calls.push_back(c);
  ASSERT_EQ(calls.size(), 9u);
  EXPECT_EQ(calls[1].peer, 0);
  EXPECT_EQ(calls[1].recvBytes, 64);
  EXPECT_EQ(calls[3].completes, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(calls[4].completes, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(calls[5].completes, (std::vector<std::int64_t>{-1}));
}

// A trace of a million ranks reads and expands from the compressed lists (nothing is sized
// by the rank count but the checks that sample ranks).
TEST(ScalaTraceReader, MillionRankTrace) {
  const Rank P = 1048576;
  const std::string evens = "1 -1 0 524288 2", odds = "1 -1 1 524288 2";
  std::string middle = block(evens, 1, 1113, "10 2 \n12 1 \n14 16 \n1a 1 \n1b 0 \n") +
                       block(odds, 2, 1102, "10 2 \n12 1 \n14 16 \n1b 0 \n2b " + std::to_string(P - 1) + " \n") +
                       block("2 -1 0 1 0 -1 1 1048575 1", 3, 1011,
                             "10 2 \n12 1 \n14 14 \n19 ( 5 )[ 1 -1 0 1 0 ]\n19 ( 7 )[ 1 -1 1 1048575 1 ]\n");
  const Trace t = readScalaTrace(sourceFromString("big.trace", smallTrace(P, middle, 4)));
  EXPECT_EQ(t.numRanks, P);
  EXPECT_EQ(t.events[1].ranks.size(), P / 2);
  EXPECT_EQ(t.events[3].ranks, RankList::all(P));
  for (Rank r : {Rank{0}, Rank{1}, P - 2, P - 1}) {
    RankCursor cursor(t, r);
    Call c;
    ASSERT_TRUE(cursor.next(c));
    ASSERT_TRUE(cursor.next(c));
    if (r % 2 == 0) {
      EXPECT_EQ(c.op, Op::Send);
      EXPECT_EQ(c.peer, r + 1);
    } else {
      EXPECT_EQ(c.op, Op::Recv);
      EXPECT_EQ(c.peer, r - 1);
    }
    ASSERT_TRUE(cursor.next(c));
    EXPECT_EQ(c.op, Op::Bcast);
    EXPECT_EQ(c.root, r == 0 ? 5 : 7);
    ASSERT_TRUE(cursor.next(c));
    EXPECT_EQ(c.op, Op::Finalize);
    EXPECT_FALSE(cursor.next(c));
  }
}

// verifyStructure on traces built in memory (as passes do): the loop walk of every rank, or of
// sampled ranks above maxRanksChecked, and diagnostics at the recorded lines.
TEST(ScalaTraceReader, VerifierChecksBuiltTraces) {
  auto build = [](std::int64_t mem) {
    Trace t;
    t.numRanks = 4;
    t.comms = standardCommunicators(4);
    t.datatypes = scalaTraceDatatypes();
    Event init;
    init.id = 0;
    init.op = Op::Init;
    init.ranks = RankList::all(4);
    init.line = 1;
    Event send = init;
    send.id = 1;
    send.op = Op::Barrier;
    send.line = 5;
    send.loops.push_back(LoopLevel{{{RankList::all(4), {3}}}, {{RankList::all(4), {mem}}}});
    Event fin = init;
    fin.id = 2;
    fin.op = Op::Finalize;
    fin.line = 9;
    t.events = {init, send, fin};
    return t;
  };
  EXPECT_NO_THROW(verifyStructure(build(2), "built"));
  EXPECT_NO_THROW(verifyStructure(build(1), "built", 2));
  try {
    verifyStructure(build(3), "built");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(e.message().find("loop level 0 spans 3 events but rank 0 has only 2 events left in the enclosing trace"),
              std::string::npos)
        << e.render();
  }
  // Sampled ranks (the first and last of every group) when P exceeds maxRanksChecked.
  try {
    verifyStructure(build(3), "built", 2);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("rank 0 has only 2 events"), std::string::npos) << e.render();
  }
  // With the lines of the loop levels and parameters.
  EventLines lines;
  lines.loops = {{}, {7}, {}};
  try {
    verifyStructure(build(3), "built", 4096, lines);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 7);
  }
  Trace t = build(1);
  t.events[1].op = Op::Bcast;
  t.events[1].setParam(Param::Datatype, {{RankList::progression(0, 3), {16}}});
  lines.params = {{}, {{Param::Datatype, 8}}, {}};
  try {
    verifyStructure(t, "built", 4096, lines);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 8);
    EXPECT_NE(e.message().find("parameter 'datatype' has values for 3 of its 4 ranks"), std::string::npos) << e.render();
  }
  t.events[1].setParam(Param::Datatype, {{RankList::all(4), {1000}}});
  try {
    verifyStructure(t, "built");
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(e.message().find("datatype 1000 is not declared"), std::string::npos) << e.render();
  }
}

// Tolerated variations (§13): a missing final empty line, extra spaces, CRLF line ends.
TEST(ScalaTraceReader, ToleratesMissingFinalNewlineAndSpacing) {
  const std::string text = smallTrace(4, block("1 -1 0 4 1", 1, 1010, "10   2\n"), 2);
  const Trace ref = readScalaTrace(sourceFromString("a.trace", text));
  std::string noFinal = text.substr(0, text.size() - 1);
  EXPECT_EQ(readScalaTrace(sourceFromString("b.trace", noFinal)), ref);
  std::string noNewline = text.substr(0, text.size() - 2);
  EXPECT_EQ(readScalaTrace(sourceFromString("c.trace", noNewline)), ref);
  std::string spaced;
  for (char ch : text) spaced += ch == ' ' ? std::string("  \t") : std::string(1, ch);
  EXPECT_EQ(readScalaTrace(sourceFromString("d.trace", spaced)), ref);
  std::string crlf;
  for (char ch : text) crlf += ch == '\n' ? std::string("\r\n") : std::string(1, ch);
  EXPECT_EQ(readScalaTrace(sourceFromString("e.trace", crlf)), ref);
  std::string extraBlank = text + "\n\n";
  EXPECT_EQ(readScalaTrace(sourceFromString("f.trace", extraBlank)), ref);
}

}  // namespace
}  // namespace tracegen
