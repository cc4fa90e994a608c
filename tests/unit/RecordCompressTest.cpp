// The recorder's intra-rank compression: ElasticSeq (values kept as their shortest period) and
// LoopCompressor (tail matching into RSD/PRSD loops), checked against brute force and by
// expanding the compressed trace with RankCursor.
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "io/Readers.h"
#include "record/ElasticSeq.h"
#include "record/LoopCompressor.h"
#include "record/TimeStats.h"
#include "tests/support/RecordSim.h"
#include "tests/unit/SanitizerScale.h"

using namespace tracegen;
using namespace tracegen::record;
using tracegen::record::test::expand;
using tracegen::record::test::SimRank;

namespace {

// The shortest p with s[i] == s[i mod p] for all i, by brute force.
std::vector<std::int64_t> naivePeriod(const std::vector<std::int64_t>& s) {
  for (std::size_t p = 1; p <= s.size(); ++p) {
    bool ok = true;
    for (std::size_t i = p; i < s.size() && ok; ++i) ok = s[i] == s[i % p];
    if (ok) return {s.begin(), s.begin() + static_cast<std::ptrdiff_t>(p)};
  }
  return {};
}

ElasticSeq seqOf(const std::vector<std::int64_t>& v) {
  ElasticSeq s;
  for (auto x : v) s.push(x);
  return s;
}

const Event* findEvent(const Trace& t, Op op) {
  for (const auto& e : t.events)
    if (e.op == op) return &e;
  return nullptr;
}

}  // namespace

TEST(RecordElasticSeq, KeepsTheShortestPeriod) {
  EXPECT_EQ(seqOf({5, 5, 5, 5}).period(), (std::vector<std::int64_t>{5}));
  EXPECT_EQ(seqOf({1, 2, 1, 2, 1}).period(), (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(seqOf({1, 2, 3, 1, 2}).period(), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(seqOf({1, 1, 2}).period(), (std::vector<std::int64_t>{1, 1, 2}));
  EXPECT_EQ(seqOf({1, 2, 3, 1, 2}).size(), 5);
  // A long constant run then a different value: nothing shorter than the whole reproduces it.
  std::vector<std::int64_t> v(1000, 5);
  v.push_back(6);
  EXPECT_EQ(seqOf(v).period().size(), 1001u);
}

TEST(RecordElasticSeq, MatchesBruteForceOnRandomSequences) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 400; ++trial) {
    const int alphabet = 1 + trial % 3;
    std::vector<std::int64_t> v;
    // Mostly periodic sequences with occasional glitches, which exercise re-folding.
    const std::size_t period = 1 + rng() % 5, n = 1 + rng() % 60;
    std::vector<std::int64_t> unit(period);
    for (auto& x : unit) x = static_cast<std::int64_t>(rng() % static_cast<unsigned>(alphabet));
    for (std::size_t i = 0; i < n; ++i)
      v.push_back(rng() % 17 == 0 ? static_cast<std::int64_t>(rng() % 4) : unit[i % period]);
    ElasticSeq s;
    for (std::size_t i = 0; i < v.size(); ++i) {
      s.push(v[i]);
      const std::vector<std::int64_t> prefix(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(i + 1));
      ASSERT_EQ(s.period(), naivePeriod(prefix)) << "trial " << trial << " after " << i + 1 << " values";
    }
    // Appending a sequence equals pushing its values one by one.
    const std::size_t cut = rng() % (v.size() + 1);
    ElasticSeq a = seqOf({v.begin(), v.begin() + static_cast<std::ptrdiff_t>(cut)});
    a.append(seqOf({v.begin() + static_cast<std::ptrdiff_t>(cut), v.end()}));
    EXPECT_EQ(a, s) << "trial " << trial;
  }
}

TEST(RecordElasticSeq, LazyFoldingGivesTheShortestPeriod) {
  // Sequences read rarely (short ones are kept raw until read or grown past kRawMax), built
  // from pieces appended in turn, some read before they are appended: always the shortest
  // period of everything pushed.
  std::mt19937 rng(17);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t period = 1 + rng() % 6, n = 1 + rng() % (3 * ElasticSeq::kRawMax);
    std::vector<std::int64_t> unit(period);
    for (auto& x : unit) x = static_cast<std::int64_t>(rng() % 3);
    std::vector<std::int64_t> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(rng() % 23 == 0 ? static_cast<std::int64_t>(rng() % 4) : unit[i % period]);
    ElasticSeq all;
    std::size_t done = 0;
    while (done < v.size()) {
      const std::size_t len = std::min(v.size() - done, 1 + static_cast<std::size_t>(rng() % 20));
      ElasticSeq piece = seqOf({v.begin() + static_cast<std::ptrdiff_t>(done), v.begin() + static_cast<std::ptrdiff_t>(done + len)});
      if (rng() % 3 == 0) (void)piece.period();  // folded before it is appended
      all.append(piece);
      done += len;
      if (rng() % 5 == 0) {
        const std::vector<std::int64_t> prefix(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(done));
        ASSERT_EQ(all.period(), naivePeriod(prefix)) << "trial " << trial << " after " << done << " values";
      }
    }
    ASSERT_EQ(all.size(), static_cast<std::int64_t>(v.size()));
    EXPECT_EQ(all.period(), naivePeriod(v)) << "trial " << trial;
    EXPECT_EQ(all, seqOf(v)) << "trial " << trial;
  }
}

TEST(RecordElasticSeq, AppendingARepetitionIsConstantTime) {
  // 10,000 appends of the same three-value body: the period stays three values.
  ElasticSeq body = seqOf({1, 2, 3});
  ElasticSeq all;
  for (int i = 0; i < 10000; ++i) all.append(body);
  EXPECT_EQ(all.size(), 30000);
  EXPECT_EQ(all.period(), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST(RecordLoopCompressor, FoldsARepeatedCallIntoOneLoop) {
  SimRank r(0, 4);
  r.call(Op::Init, "init");
  for (int i = 0; i < 100; ++i) r.call(Op::Barrier, "barrier", {{Param::Comm, kCommWorld}});
  r.call(Op::Finalize, "fin");
  const Trace t = r.trace();
  ASSERT_EQ(t.events.size(), 3u);
  const Event& b = t.events[1];
  ASSERT_EQ(b.loops.size(), 1u);
  EXPECT_EQ(b.loops[0].iter[0].values, (std::vector<std::int64_t>{100}));
  EXPECT_EQ(b.loops[0].mem[0].values, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(expand(t, 0).size(), 102u);
}

TEST(RecordLoopCompressor, NestsLoops) {
  // for t < 50: { for k < 3: { Isend; Irecv } Waitall }: a PRSD of two levels, body Waitall last.
  SimRank r(1, 4);
  r.call(Op::Init, "init");
  for (int t = 0; t < 50; ++t) {
    for (int k = 0; k < 3; ++k) {
      r.p2p(Op::Isend, "isend", 2, 8);
      r.p2p(Op::Irecv, "irecv", 0, 8);
    }
    r.call(Op::Waitall, "waitall", {{Param::Count, 6}}, {{Param::Requests, {9994, 9995, 9996, 9997, 9998, 9999}}});
  }
  r.call(Op::Finalize, "fin");
  const Trace t = r.trace();
  ASSERT_EQ(t.events.size(), 5u);
  const Event& head = t.events[1];
  ASSERT_EQ(head.loops.size(), 2u);  // outer first
  EXPECT_EQ(head.loops[0].iter[0].values, (std::vector<std::int64_t>{50}));
  EXPECT_EQ(head.loops[0].mem[0].values, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(head.loops[1].iter[0].values, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(head.loops[1].mem[0].values, (std::vector<std::int64_t>{2}));
  // Peers are relative: rank 1 sends to 2 (+1) and receives from 0 (+3 mod 4).
  const ParamValues* dest = head.param(Param::Dest);
  ASSERT_NE(dest, nullptr);
  EXPECT_TRUE(dest->relative);
  EXPECT_EQ(dest->groups[0].values, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(t.events[2].param(Param::Source)->groups[0].values, (std::vector<std::int64_t>{3}));
  // The waits complete exactly the six requests created before each of them.
  const auto calls = expand(t, 1);
  ASSERT_EQ(calls.size(), 2u + 50u * 7u);
  EXPECT_NE(calls[7].find("completes=[1,2,3,4,5,6,]"), std::string::npos) << calls[7];
  EXPECT_NE(calls[14].find("completes=[8,9,10,11,12,13,]"), std::string::npos) << calls[14];
}

TEST(RecordLoopCompressor, SizeDoesNotGrowWithIterations) {
  auto run = [](int iterations) {
    SimRank r(0, 4);
    r.call(Op::Init, "init");
    for (int t = 0; t < iterations; ++t) {
      r.p2p(Op::Isend, "isend", 1, 64, t % 2);  // tags alternate: an elastic value of period 2
      r.p2p(Op::Irecv, "irecv", 3, 64, t % 2);
      r.call(Op::Waitall, "waitall", {{Param::Count, 2}}, {{Param::Requests, {9998, 9999}}});
      r.call(Op::Allreduce, "allreduce", {{Param::Comm, kCommWorld}, {Param::Count, 1}, {Param::Datatype, 10}, {Param::ReduceOp, 3}});
    }
    r.call(Op::Finalize, "fin");
    return std::make_pair(r.trace(), r.compressor().totalNodes());
  };
  const auto [small, smallNodes] = run(10);
  const auto [large, largeNodes] = run(10000);
  EXPECT_EQ(smallNodes, largeNodes);
  ASSERT_EQ(small.events.size(), large.events.size());
  for (std::size_t i = 0; i < small.events.size(); ++i)
    for (std::size_t k = 0; k < small.events[i].params.size(); ++k)
      EXPECT_EQ(small.events[i].params[k].groups[0].values, large.events[i].params[k].groups[0].values);
  EXPECT_EQ(large.events[1].param(Param::Tag)->groups[0].values, (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(large.events[1].loops[0].iter[0].values, (std::vector<std::int64_t>{10000}));
  EXPECT_EQ(expand(large, 0).size(), 2u + 4u * 10000u);
}

TEST(RecordLoopCompressor, VaryingInnerTripCountsBecomeElastic) {
  // for t < 30: { for k < t%3+1: Send } Barrier: the inner loop's trip counts cycle 1 2 3.
  SimRank r(0, 2);
  r.call(Op::Init, "init");
  for (int t = 0; t < 30; ++t) {
    for (int k = 0; k <= t % 3; ++k) r.p2p(Op::Send, "send", 1, 4);
    r.call(Op::Barrier, "barrier", {{Param::Comm, kCommWorld}});
  }
  r.call(Op::Finalize, "fin");
  const Trace t = r.trace();
  std::size_t sends = 0;
  for (const auto& line : expand(t, 0)) sends += line.rfind("MPI_Send", 0) == 0;
  EXPECT_EQ(sends, 60u);
  EXPECT_LE(t.events.size(), 6u);
  bool elastic = false;
  for (const auto& e : t.events)
    for (const auto& lv : e.loops)
      if (lv.iter[0].values.size() > 1) elastic = true;
  EXPECT_TRUE(elastic) << "the per-entry trip counts should form a value list";
}

TEST(RecordLoopCompressor, AWindowThatEndsWithALoopFolds) {
  // A multigrid V-cycle's way up: per level, three halo exchanges, each a loop over the three
  // axes (Irecv, Send, Waitall), their counts a quarter of the level above's; the last level
  // is peeled (another call site), as compilers do. The levels' window ends with a loop, so it
  // folds only once that loop is complete: into a loop of `levels - 1` trips around the three
  // exchange loops, its counts one list per exchange.
  auto record = [](SimRank& s, int levels) {
    s.call(Op::Init, "init");
    for (int it = 0; it < 3; ++it) {
      for (int l = levels - 1; l >= 0; --l)
        for (const char* exchange : {"up_u", "up_r", l == 0 ? "last_tmp" : "up_tmp"})
          for (int axis = 0; axis < 3; ++axis) {
            const std::int64_t count = (axis == 2 ? 32 : 16) << (2 * (levels - 1 - l));
            s.p2p(Op::Irecv, std::string(exchange) + ":irecv", 1, count, axis);
            s.p2p(Op::Send, std::string(exchange) + ":send", 1, count, axis);
            s.call(Op::Waitall, std::string(exchange) + ":wait", {{Param::Count, 1}}, {{Param::Requests, {9999}}});
          }
      s.call(Op::Allreduce, "norm", {{Param::Comm, kCommWorld}, {Param::Count, 1}, {Param::Datatype, 10}, {Param::ReduceOp, 3}});
    }
    s.call(Op::Finalize, "fin");
  };
  for (int levels : {2, 3, 4}) {
    SimRank r(0, 2), fast(0, 2, 256, true), slow(0, 2, 256, false), ref(0, 2, 0);
    for (SimRank* s : {&r, &fast, &slow, &ref}) record(*s, levels);
    const Trace t = r.trace();
    ASSERT_EQ(expand(t, 0), expand(ref.trace(), 0)) << levels << " levels";
    ASSERT_EQ(tracegenText(fast.trace()), tracegenText(slow.trace())) << levels << " levels";
    // init, 3 exchanges of the folded levels, 3 of the peeled one (3 events each), norm, fin
    ASSERT_EQ(t.events.size(), 2u + 2u * 3u * 3u + 1u) << levels << " levels";
    const Event& head = t.events[1];
    if (levels == 2) {  // one level before the peeled one: no loop of levels
      ASSERT_EQ(head.loops.size(), 2u);
      continue;
    }
    ASSERT_EQ(head.loops.size(), 3u) << levels << " levels";  // iterations, levels, axes
    EXPECT_EQ(head.loops[1].iter[0].values, (std::vector<std::int64_t>{levels - 1}));
    EXPECT_EQ(head.loops[1].mem[0].values, (std::vector<std::int64_t>{9}));
    std::vector<std::int64_t> counts;
    for (int l = levels - 1; l >= 1; --l)
      for (int axis = 0; axis < 3; ++axis) counts.push_back((axis == 2 ? 32 : 16) << (2 * (levels - 1 - l)));
    EXPECT_EQ(head.param(Param::Count)->groups[0].values, counts);
  }
}

TEST(RecordLoopCompressor, RandomProgramsExpandToWhatWasRecorded) {
  // Random nested loop programs with random per-iteration parameters: whatever the compressor
  // folds, the cursor must give back exactly the recorded calls, i.e. what a compressor with a
  // window of 0 (one event per call, no loops) gives back.
  std::mt19937 rng(11);
  for (int trial = 0; trial < 150; ++trial) {
    const Rank size = 5, rank = static_cast<Rank>(rng() % 5);
    SimRank r(rank, size, 1 + rng() % 8);
    SimRank ref(rank, size, 0);  // no compression: the calls as recorded
    std::vector<std::function<void(SimRank&, int)>> blocks;
    const int nblocks = 1 + static_cast<int>(rng() % 4);
    for (int b = 0; b < nblocks; ++b) {
      const int kind = static_cast<int>(rng() % 4), reps = 1 + static_cast<int>(rng() % 5);
      const std::int64_t peer = static_cast<std::int64_t>(rng() % 5), mod = 1 + static_cast<std::int64_t>(rng() % 3);
      const std::string site = fmt::format("s{}", rng() % 6);
      blocks.push_back([=](SimRank& s, int t) {
        for (int k = 0; k < reps + (kind == 3 ? t % 2 : 0); ++k) {
          if (kind == 0) s.p2p(Op::Send, site + "send", peer, 8 + (t % mod));
          if (kind == 1) s.p2p(Op::Recv, site + "recv", (peer + k) % 5, 8);
          if (kind == 2) s.call(Op::Allreduce, site + "ar", {{Param::Comm, kCommWorld}, {Param::Count, t % mod}, {Param::Datatype, 10}, {Param::ReduceOp, 3}});
          if (kind == 3) s.call(Op::Barrier, site + "bar", {{Param::Comm, kCommWorld}});
        }
      });
    }
    const int steps = 1 + static_cast<int>(rng() % 40);
    for (SimRank* s : {&r, &ref}) {
      s->call(Op::Init, "init");
      for (int t = 0; t < steps; ++t)
        for (auto& b : blocks) b(*s, t);
      s->call(Op::Finalize, "fin");
    }
    const Trace a = r.trace(), b = ref.trace();
    ASSERT_EQ(b.events.size(), static_cast<std::size_t>(ref.compressor().calls()));
    ASSERT_EQ(expand(a, rank), expand(b, rank)) << "trial " << trial;
    EXPECT_LE(a.events.size(), b.events.size());
  }
}

TEST(RecordLoopCompressor, DirectFoldGivesTheTraceOfNodeByNodeMatching) {
  // Calls folded where they match, without a node of their own, must give exactly the trace
  // (events, loops, values, vector lengths, histograms) of making a node of every call first:
  // random nested programs with varying trip counts, parameters, request vectors and times.
  std::mt19937 rng(23);
  for (int trial = 0; trial < 300; ++trial) {
    const Rank size = 5, rank = static_cast<Rank>(rng() % 5);
    const std::size_t window = 1 + rng() % 12;
    SimRank fast(rank, size, window, true);
    SimRank slow(rank, size, window, false);
    std::vector<std::function<void(SimRank&, int, double)>> blocks;
    const int nblocks = 1 + static_cast<int>(rng() % 5);
    for (int b = 0; b < nblocks; ++b) {
      const int kind = static_cast<int>(rng() % 5), reps = 1 + static_cast<int>(rng() % 4);
      const int vary = static_cast<int>(rng() % 3);
      const std::int64_t peer = static_cast<std::int64_t>(rng() % 5), mod = 1 + static_cast<std::int64_t>(rng() % 3);
      const std::string site = fmt::format("s{}", rng() % 4);
      blocks.push_back([=](SimRank& s, int t, double us) {
        for (int k = 0; k < reps + (vary == 1 ? t % 3 : 0); ++k) {
          if (kind == 0) s.p2p(Op::Isend, site + "send", peer, 8 + (t % mod), k);
          if (kind == 1) s.p2p(Op::Irecv, site + "recv", (peer + k) % 5, 8, k);
          if (kind == 2)
            s.call(Op::Allreduce, site + "ar", {{Param::Comm, kCommWorld}, {Param::Count, t % mod}, {Param::Datatype, 10}, {Param::ReduceOp, 3}},
                   {}, us, 3 * us);
          if (kind == 3) {
            std::vector<std::int64_t> reqs;
            for (int j = 0; j < 1 + (t + k) % (vary + 1); ++j) reqs.push_back(9999 - j);
            s.call(Op::Waitall, site + "wait", {{Param::Count, static_cast<std::int64_t>(reqs.size())}}, {{Param::Requests, reqs}},
                   0.5 * us, 100 * us);
          }
          // Parameters out of order, and one given twice (no direct fold: the node decides).
          if (kind == 4)
            s.call(Op::Bcast, site + "bc", {{Param::Root, k % 2}, {Param::Count, 4}, {Param::Comm, kCommWorld}, {Param::Datatype, 10},
                    {Param::Root, vary == 2 ? t % 2 : 0}}, {}, us, us);
        }
      });
    }
    const int steps = 1 + static_cast<int>(rng() % 30);
    for (SimRank* s : {&fast, &slow}) {
      std::mt19937 times(static_cast<unsigned>(trial));
      std::uniform_real_distribution<double> us(0.1, 2e4);
      s->call(Op::Init, "init");
      for (int t = 0; t < steps; ++t)
        for (auto& b : blocks) b(*s, t, us(times));
      s->call(Op::Finalize, "fin");
    }
    ASSERT_EQ(tracegenText(fast.trace()), tracegenText(slow.trace())) << "trial " << trial;
    ASSERT_EQ(fast.compressor().totalNodes(), slow.compressor().totalNodes()) << "trial " << trial;
  }
}

TEST(RecordLoopCompressor, StagedIterationsGiveTheTraceOfNodeByNodeMatching) {
  // Timestep loops whose bodies are events and runs (the staged case), with what must end a
  // staging: runs whose length changes from step to step (up to 12 calls: past the 8 whose
  // samples a node keeps unsettled), a call made only at some steps, a step cut short, a
  // parameter given twice (no direct fold), inner loops of several events (not staged), loops
  // nested two deep, and narrow windows. The trace and the node count must be those of making
  // a node of every call; and staging must have happened in many of the programs.
  std::mt19937 rng(41);
  int staged = 0;
  const int trials = tracegen::testing::sanitizerTrials(600);
  for (int trial = 0; trial < trials; ++trial) {
    const Rank size = 5, rank = static_cast<Rank>(rng() % 5);
    const std::size_t window = rng() % 4 == 0 ? 1 + rng() % 6 : 256;
    SimRank fast(rank, size, window, true);
    SimRank slow(rank, size, window, false);
    using Block = std::function<void(SimRank&, int, int, double)>;
    std::vector<Block> blocks;
    const int nblocks = 2 + static_cast<int>(rng() % 5);
    for (int b = 0; b < nblocks; ++b) {
      const int kind = static_cast<int>(rng() % 7), reps = 1 + static_cast<int>(rng() % 10);
      const int vary = static_cast<int>(rng() % 4), every = 2 + static_cast<int>(rng() % 5);
      const std::int64_t peer = static_cast<std::int64_t>(rng() % 5), mod = 1 + static_cast<std::int64_t>(rng() % 3);
      const std::string site = fmt::format("s{}", b);
      blocks.push_back([=](SimRank& s, int t, int u, double us) {
        if (vary == 3 && t % every == 1) return;  // a call made only at some steps
        const int n = reps + (vary == 1 ? (t + u) % 3 : 0);
        for (int k = 0; k < n; ++k) {
          if (kind == 0) s.p2p(Op::Isend, site, (peer + k) % 5, 8 + (t % mod), k);
          if (kind == 1) s.p2p(Op::Irecv, site, (peer + k) % 5, 8, k);
          if (kind == 2)
            s.call(Op::Allreduce, site, {{Param::Comm, kCommWorld}, {Param::Count, t % mod}, {Param::Datatype, 10}, {Param::ReduceOp, 3}},
                   {}, us, 3 * us);
          if (kind == 3) {
            std::vector<std::int64_t> reqs;
            for (int j = 0; j < 1 + (t + k) % (vary + 1); ++j) reqs.push_back(9999 - j);
            s.call(Op::Waitall, site, {{Param::Count, static_cast<std::int64_t>(reqs.size())}}, {{Param::Requests, reqs}},
                   0.5 * us, 100 * us);
          }
          if (kind == 4)
            s.call(Op::Bcast, site, {{Param::Root, k % 2}, {Param::Count, 4}, {Param::Comm, kCommWorld}, {Param::Datatype, 10},
                    {Param::Root, vary == 2 ? t % 2 : 0}}, {}, us, us);
          if (kind == 5) {  // an inner loop of two events
            s.p2p(Op::Send, site + "a", peer, 4);
            s.p2p(Op::Recv, site + "b", peer, 4);
          }
          if (kind == 6) s.call(Op::Barrier, site, {{Param::Comm, kCommWorld}}, {}, us * (1 + k), us);
        }
      });
    }
    const int steps = 1 + static_cast<int>(rng() % 30), inner = 1 + static_cast<int>(rng() % 3);
    const int cut = rng() % 3 == 0 ? static_cast<int>(rng() % 30) : -1;  // the step cut short
    for (SimRank* s : {&fast, &slow}) {
      std::mt19937 times(static_cast<unsigned>(trial));
      std::uniform_real_distribution<double> us(0.1, 2e4);
      s->call(Op::Init, "init");
      for (int t = 0; t < steps; ++t)
        for (int u = 0; u < inner; ++u)  // inner > 1: the steps' loop nests in another
          for (std::size_t b = 0; b < blocks.size(); ++b) {
            if (t == cut && b + 1 == blocks.size()) break;
            blocks[b](*s, t, u, us(times));
          }
      s->call(Op::Finalize, "fin");
    }
    const Trace a = fast.trace(), b = slow.trace();
    ASSERT_EQ(tracegenText(a), tracegenText(b)) << "trial " << trial;
    ASSERT_EQ(fast.compressor().totalNodes(), slow.compressor().totalNodes()) << "trial " << trial;
    EXPECT_EQ(slow.compressor().stagedIterations(), 0);
    if (fast.compressor().stagedIterations() > 0) ++staged;
  }
  EXPECT_GT(staged, trials / 3);  // 246 of the 600 when written
}

TEST(RecordLoopCompressor, TimingsAreKeyedByThePredecessorsSite) {
  SimRank r(0, 2);
  r.call(Op::Init, "init");
  for (int t = 0; t < 20; ++t) {
    r.call(Op::Barrier, "a", {{Param::Comm, kCommWorld}}, {}, 5.0, 1.0);
    r.call(Op::Barrier, "b", {{Param::Comm, kCommWorld}}, {}, 50.0, 1.0);
  }
  r.call(Op::Finalize, "fin", {}, {}, 7.0);
  const Trace t = r.trace();
  const Event* a = nullptr;
  for (const auto& e : t.events)
    if (t.siteName(e.site) == "a") a = &e;
  ASSERT_NE(a, nullptr);
  // "a" follows Init once and "b" 19 times: two compute histograms, two MPI-time histograms.
  std::map<std::string, std::int64_t> compute;
  for (const auto& s : a->stats)
    if (s.phase == Phase::Compute) compute[std::string(t.siteName(s.after))] = s.hist.n;
  EXPECT_EQ(compute, (std::map<std::string, std::int64_t>{{"init", 1}, {"b", 19}}));
  const Event* fin = findEvent(t, Op::Finalize);
  ASSERT_NE(fin, nullptr);
  ASSERT_EQ(fin->stats.size(), 1u);  // Finalize: compute only
  EXPECT_EQ(fin->stats[0].phase, Phase::Compute);
  EXPECT_DOUBLE_EQ(fin->stats[0].hist.mean(), 7.0);
}

TEST(RecordLoopCompressor, PeersOutsideTheWorldStayAbsolute) {
  SimRank r(2, 4);
  r.call(Op::Init, "init");
  r.p2p(Op::Send, "send", kProcNull, 4);
  r.p2p(Op::Recv, "recv", kAnySource, 4);
  r.call(Op::Finalize, "fin");
  const Trace t = r.trace();
  const ParamValues* dest = t.events[1].param(Param::Dest);
  ASSERT_NE(dest, nullptr);
  EXPECT_FALSE(dest->relative);
  EXPECT_EQ(dest->groups[0].values, (std::vector<std::int64_t>{kProcNull}));
  const ParamValues* source = t.events[2].param(Param::Source);
  EXPECT_TRUE(source->relative);  // MPI_ANY_SOURCE is allowed in a relative list
  EXPECT_EQ(source->groups[0].values, (std::vector<std::int64_t>{kAnySource}));
}

TEST(RecordLoopCompressor, GroupsMadeInALoopFoldWithTheirGrowingIds) {
  // Group ids as Recorder numbers them: the rank's k-th group is 1000 + k, never reused, so a
  // group made, used and freed in every iteration has a new id each time (as a communicator
  // made in a loop does). The ids are values, not shape: the loop still folds, and its value
  // lists hold the ids in order.
  SimRank r(0, 2);
  r.call(Op::Init, "init");
  r.call(Op::CommGroup, "group", {{Param::Comm, kCommWorld}});  // group 1000
  std::vector<std::int64_t> made, comms;
  for (std::int64_t k = 0; k < 10; ++k) {
    made.push_back(1001 + k);
    comms.push_back(1000 + k);
    r.call(Op::GroupExcl, "excl", {{Param::Group, 1000}, {Param::Count, 1}}, {{Param::GroupRanks, {1}}});
    r.call(Op::CommCreate, "create", {{Param::Comm, kCommWorld}, {Param::Group, made.back()}, {Param::NewComm, comms.back()}});
    r.call(Op::GroupFree, "free", {{Param::Group, made.back()}});
  }
  r.call(Op::Finalize, "fin");
  const Trace t = r.trace();
  ASSERT_EQ(t.events.size(), 6u);  // Init, Comm_group, 10 x (Group_excl, Comm_create, Group_free), Finalize
  const Event* excl = findEvent(t, Op::GroupExcl);
  ASSERT_NE(excl, nullptr);
  ASSERT_EQ(excl->loops.size(), 1u);
  EXPECT_EQ(excl->loops[0].iter[0].values, (std::vector<std::int64_t>{10}));
  EXPECT_EQ(excl->loops[0].mem[0].values, (std::vector<std::int64_t>{3}));
  EXPECT_EQ(excl->param(Param::Group)->groups[0].values, (std::vector<std::int64_t>{1000}));
  EXPECT_EQ(findEvent(t, Op::CommCreate)->param(Param::Group)->groups[0].values, made);
  EXPECT_EQ(findEvent(t, Op::CommCreate)->param(Param::NewComm)->groups[0].values, comms);
  EXPECT_EQ(findEvent(t, Op::GroupFree)->param(Param::Group)->groups[0].values, made);
  EXPECT_EQ(expand(t, 0).size(), 2u + 30u + 1u);
}

TEST(RecordTimeStats, FixedBinsMergeInAnyOrder) {
  TimeAcc a, b;
  for (double v : {0.5, 3.0, 3.5, 40.0}) a.add(v);
  for (double v : {2000.0, 0.25}) b.add(v);
  Histogram ab = toHistogram(a, 0), ba = toHistogram(b, 1);
  mergeHistogram(ab, toHistogram(b, 1));
  mergeHistogram(ba, toHistogram(a, 0));
  EXPECT_EQ(ab.n, 6);
  // Only the bins that hold samples: [0,1) [1,10) [10,100) [1e3,1e4).
  ASSERT_EQ(ab.bins.size(), 4u);
  ASSERT_EQ(ba.bins.size(), 4u);
  EXPECT_DOUBLE_EQ(ab.min, 0.25);
  EXPECT_EQ(ab.minRank, 1);
  EXPECT_DOUBLE_EQ(ab.max, 2000.0);
  EXPECT_NEAR(ab.mean(), (0.5 + 3 + 3.5 + 40 + 2000 + 0.25) / 6, 1e-9);
  EXPECT_NEAR(ba.mean(), ab.mean(), 1e-9);
  for (std::size_t i = 0; i < ab.bins.size(); ++i) EXPECT_EQ(ab.bins[i].freq, ba.bins[i].freq);
  EXPECT_DOUBLE_EQ(ab.bins[3].start, 1e3);
  EXPECT_EQ(ab.bins[3].freq, 1);
  // Written form: three significant digits.
  roundHistogram(ab);
  EXPECT_DOUBLE_EQ(ab.bins[2].avg, 40.0);
}

TEST(RecordTimeStats, MeansOfNanosecondIntervalsKeepTheirDigits) {
  // Two million intervals of 6.3 ns between back-to-back calls: written as 0.01 us (two
  // decimals) they replayed 7.4 ms too long; the mean keeps three significant digits down to
  // 0.1 ns, the extremes two decimals, never past the mean.
  TimeAcc a;
  for (int i = 0; i < 1000; ++i) a.add(i % 2 ? 0.0046 : 0.008);
  Histogram h = toHistogram(a, 0);
  roundHistogram(h);
  EXPECT_DOUBLE_EQ(h.avg, 0.0063);
  ASSERT_EQ(h.bins.size(), 1u);
  EXPECT_DOUBLE_EQ(h.bins[0].avg, 0.0063);
  EXPECT_NEAR(h.mean(), 0.0063, 1e-12);
  EXPECT_DOUBLE_EQ(h.min, 0.0);     // 0.0046 to two decimals
  EXPECT_DOUBLE_EQ(h.max, 0.01);    // 0.008
  EXPECT_DOUBLE_EQ(h.bins[0].min, 0.0);
  TimeAcc b;
  for (int i = 0; i < 10; ++i) b.add(0.0061);
  Histogram one = toHistogram(b, 0);
  roundHistogram(one);
  EXPECT_DOUBLE_EQ(one.avg, 0.0061);
  EXPECT_LE(one.min, one.avg);  // 0.01 to two decimals would pass the mean
  EXPECT_GE(one.max, one.avg);
}

TEST(RecordLoopCompressor, VectorParametersAreWrittenAsWholeVectors) {
  // Waitall(3) whose offsets are all -1: the shortest period is one value, but the list must
  // hold whole vectors of three; a Waitsome whose count varies keeps its shortest period.
  SimRank r(0, 2);
  r.call(Op::Init, "init");
  for (int t = 0; t < 5; ++t) {
    r.call(Op::Waitall, "waitall", {{Param::Count, 3}}, {{Param::Requests, {-1, -1, -1}}});
    const std::vector<std::int64_t> some = t % 2 ? std::vector<std::int64_t>{9999} : std::vector<std::int64_t>{9999, 9999};
    r.call(Op::Waitsome, "waitsome", {{Param::Count, static_cast<std::int64_t>(some.size())}}, {{Param::Requests, some}});
  }
  r.call(Op::Finalize, "fin");
  const Trace t = r.trace();
  EXPECT_EQ(t.events[1].param(Param::Requests)->groups[0].values, (std::vector<std::int64_t>{-1, -1, -1}));
  EXPECT_EQ(t.events[2].param(Param::Requests)->groups[0].values, (std::vector<std::int64_t>{9999}));
  EXPECT_EQ(t.events[2].param(Param::Count)->groups[0].values, (std::vector<std::int64_t>{2, 1}));
}
