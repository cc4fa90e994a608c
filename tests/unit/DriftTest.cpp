// Drift of compute times over calls (docs/trace-format.md, "Drift over calls"): the recorder's
// call ranges (sums by doubling ranges of the call index, appended within a rank, added across
// ranks, compacted when written), the `calls=` field of `time` and `compute` lines (round trip
// and reader errors), the timing pass that carries it, and the benchmarks that replay it (the C
// backend per call, compiled, its by_call() run; coNCePTuaL with the mean).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "extrap/ScaleFree.h"
#include "gen/Backend.h"
#include "gen/Backends.h"
#include "gen/Traversal.h"
#include "io/Readers.h"
#include "ir/Diagnostics.h"
#include "passes/Pass.h"
#include "passes/SummarizeTiming.h"
#include "record/LoopCompressor.h"
#include "record/TimeStats.h"
#include "tests/unit/CompileC.h"
#include "tests/unit/ExtrapolateTraces.h"
#include "tests/unit/TraceTestHelpers.h"

using namespace tracegen;
using namespace tracegen::record;

namespace {

using tracegen::testing::contains;

std::vector<CallRange> rangesOf(std::initializer_list<double> samples) {
  TimeAcc acc;
  for (double v : samples) acc.add(v);
  return toHistogram(acc, 0).calls;
}

void expectRanges(const std::vector<CallRange>& got, const std::vector<CallRange>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].first, want[i].first) << "range " << i;
    EXPECT_NEAR(got[i].avg, want[i].avg, 1e-9) << "range " << i;
    EXPECT_EQ(got[i].n, want[i].n) << "range " << i;
  }
}

}  // namespace

TEST(Drift, AccumulatorSumsByDoublingRangesOfTheCallIndex) {
  EXPECT_EQ(callRange(0), 0);
  EXPECT_EQ(callRange(1), 1);
  EXPECT_EQ(callRange(2), 2);
  EXPECT_EQ(callRange(3), 2);
  EXPECT_EQ(callRange(4), 3);
  EXPECT_EQ(callRange(7), 3);
  EXPECT_EQ(callRange(8), 4);
  EXPECT_EQ(callRange(std::int64_t{1} << 40), kCallRanges - 1);  // the last range is open-ended
  EXPECT_EQ(callsInRange(kCallRanges - 1, (std::int64_t{1} << 22) + 5), 5);
  // Calls 0..9: [0,1) [1,2) [2,4) [4,8) [8,10).
  expectRanges(rangesOf({100, 10, 12, 14, 20, 20, 20, 20, 30, 40}),
               {{0, 100, 1}, {1, 10, 1}, {2, 13, 2}, {4, 20, 4}, {8, 35, 2}});
}

TEST(Drift, AppendingAccumulatorsShiftsTheLaterCalls) {
  // Whole ranges: the same as adding every sample to one accumulator.
  TimeAcc a, b, all;
  for (double v : {1000.0, 50.0}) a.add(v), all.add(v);
  for (double v : {5.0, 5.0, 7.0, 7.0, 7.0, 7.0}) b.add(v), all.add(v);
  a.merge(b);
  expectRanges(toHistogram(a, 0).calls, toHistogram(all, 0).calls);
  EXPECT_EQ(a.n, 8);
  // A range that straddles: b's calls 2-3 (mean 6) become calls 3-4, one in [2,4), one in
  // [4,8): each takes half of their sum.
  TimeAcc c, d;
  c.add(1000);
  for (double v : {50.0, 5.0, 4.0, 8.0}) d.add(v);
  c.merge(d);
  expectRanges(toHistogram(c, 0).calls, {{0, 1000, 1}, {1, 50, 1}, {2, (5 + 6) / 2.0, 2}, {4, 6, 1}});
}

TEST(Drift, RanksAddRangeByRange) {
  Histogram a = toHistogram([] {
    TimeAcc x;
    for (double v : {100.0, 10.0, 10.0}) x.add(v);
    return x;
  }(), 0);
  Histogram b = toHistogram([] {
    TimeAcc x;
    for (double v : {300.0, 30.0, 30.0, 30.0, 30.0}) x.add(v);
    return x;
  }(), 1);
  Histogram ab = a, ba = b;
  mergeHistogram(ab, b);
  mergeHistogram(ba, a);
  expectRanges(ab.calls, {{0, 200, 2}, {1, 20, 2}, {2, 70.0 / 3, 3}, {4, 30, 1}});
  expectRanges(ba.calls, ab.calls);
  // A histogram without ranges (a steady line) is spread over the other's in proportion.
  std::vector<CallRange> spread = mergeCallRanges({{0, 100, 1}, {1, 10, 3}}, 4, 32.5, {}, 4, 10);
  expectRanges(spread, {{0, 55, 2}, {1, 10, 6}});
  // Ranges that do not line up give none.
  EXPECT_TRUE(mergeCallRanges({{0, 1, 1}, {2, 1, 1}}, 2, 1, {{0, 1, 1}, {1, 1, 1}}, 2, 1).empty());
}

TEST(Drift, WrittenOnlyWhereItDrifts) {
  // A steady line: every range within 20% (or 5 us) of the mean: no ranges.
  std::vector<CallRange> steady = {{0, 105, 1}, {1, 98, 1}, {2, 101, 2}, {4, 100, 4}};
  compactCallRanges(steady, 100.5);
  EXPECT_TRUE(steady.empty());
  std::vector<CallRange> small = {{0, 5, 1}, {1, 1, 1}, {2, 1, 2}};  // 4 us apart: noise
  compactCallRanges(small, 2);
  EXPECT_TRUE(small.empty());
  // A slow first call: two ranges, the agreeing ones merged.
  std::vector<CallRange> warm = {{0, 2000, 2}, {1, 200, 2}, {2, 210, 4}, {4, 190, 8}, {8, 205, 8}};
  compactCallRanges(warm, 0);
  expectRanges(warm, {{0, 2000, 2}, {1, (400 + 840 + 1520 + 1640) / 22.0, 22}});
  // roundHistogram compacts and rounds.
  Histogram h = toHistogram([] {
    TimeAcc x;
    x.add(2000.123);
    for (int i = 0; i < 9; ++i) x.add(200.04);
    return x;
  }(), 0);
  roundHistogram(h);
  expectRanges(h.calls, {{0, 2000, 1}, {1, 200, 9}});
}

TEST(Drift, LoopCompressorKeepsTheSlowFirstIteration) {
  // for 40 iterations: A; compute; B; with the compute before B 2 ms at the first, 200 us after.
  LoopCompressor lc;
  CallRecord call;
  auto add = [&](Op op, std::uint32_t site, std::int64_t prev, double us) {
    call.clear();
    call.op = op;
    call.site = site;
    call.prevSite = prev;
    call.computeUs = us;
    call.mpiUs = 1;
    lc.append(call);
  };
  add(Op::Init, 0, -1, -1);
  for (int it = 0; it < 40; ++it) {
    add(Op::Barrier, 1, it == 0 ? 0 : 2, 1);
    add(Op::Allreduce, 2, 1, it == 0 ? 2000 : 200);
  }
  add(Op::Finalize, 3, 2, 1);
  Trace t = lc.toTrace(0, 1, {"init", "a", "b", "fin"});
  const Event* b = nullptr;
  for (const Event& e : t.events)
    if (e.op == Op::Allreduce) b = &e;
  ASSERT_NE(b, nullptr);
  const TimeStat* comp = nullptr;
  for (const TimeStat& s : b->stats)
    if (s.phase == Phase::Compute) comp = &s;
  ASSERT_NE(comp, nullptr);
  EXPECT_EQ(comp->hist.n, 40);
  ASSERT_GE(comp->hist.calls.size(), 2u);
  EXPECT_EQ(comp->hist.calls[0].first, 0);
  EXPECT_NEAR(comp->hist.calls[0].avg, 2000, 1e-6);
  for (std::size_t i = 1; i < comp->hist.calls.size(); ++i) EXPECT_NEAR(comp->hist.calls[i].avg, 200, 1e-6) << i;
  Histogram written = comp->hist;
  roundHistogram(written);
  expectRanges(written.calls, {{0, 2000, 1}, {1, 200, 39}});
}

namespace {

const std::string kHead =
    "tracegen-trace 1\nranks 2\n"
    "event 0 MPI_Init @ <1 0 {2 1}>\n  site init\n"
    "event 1 MPI_Barrier @ <1 0 {2 1}>\n  site b\n  loop 0 iter 10\n  loop 0 mem 1\n  comm 2\n"
    "  time comp us after init n=2 avg=5 min=5@0 max=5@0 bins=[1 10]\n";
const std::string kDrift =
    "  time comp us after b n=18 avg=31 min=10@0 max=200@1 bins=[10 10 10.6 20 100 16][100 190 195 200 1000 2] "
    "calls=[0 195 2][1 10.6 16]\n";
const std::string kTail = "event 2 MPI_Finalize @ <1 0 {2 1}>\n  site fin\n";

void expectError(const std::string& line, int at, const std::string& what) {
  try {
    readTrace(sourceFromString("drift.tgt", kHead + line + kTail));
    ADD_FAILURE() << "accepted: " << line;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), at) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
  }
}

}  // namespace

TEST(Drift, TextRoundTrips) {
  Trace t = tracegen::testing::readText(kHead + kDrift + kTail, "drift.tgt");
  const TimeStat& st = t.events[1].stats[1];
  expectRanges(st.hist.calls, {{0, 195, 2}, {1, 10.6, 16}});
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "after b 18 31 @0 @1 [10 10.6 20 16][190 195 200 2] calls=[0 195 2][1 10.6 16]\n")) << text;
  EXPECT_EQ(tracegen::testing::readText(text, "again.tgt"), t);
  // The short bin form and a compute line carry it too.
  const std::string shortForm = "  time comp us after b n=18 avg=31 min=10@0 max=200@1 bins=[10 1000] calls=[0 195 2][1 10.6 16]\n"
                                "  compute after b us=31 calls=[0 195][1 10.6]\n";
  Trace u = tracegen::testing::readText(kHead + shortForm + kTail, "short.tgt");
  ASSERT_EQ(u.events[1].compute.size(), 1u);
  EXPECT_EQ(u.events[1].compute[0].calls, (std::vector<ComputeTime::ByCall>{{0, 195}, {1, 10.6}}));
  const std::string utext = tracegenText(u);
  EXPECT_TRUE(contains(utext, "after b 18 ~ @0 @1 [10 10 31 200 1000 18] calls=[0 195 2][1 10.6 16]\n")) << utext;
  EXPECT_TRUE(contains(utext, "  compute after b us=31 calls=[0 195][1 10.6]\n")) << utext;
  EXPECT_EQ(tracegen::testing::readText(utext, "again.tgt"), u);
  // A steady line writes no field.
  Trace steady = tracegen::testing::readText(kHead + kTail, "steady.tgt");
  EXPECT_FALSE(contains(tracegenText(steady), "calls="));
}

TEST(Drift, ReaderChecksTheRanges) {
  const std::string line = "  time comp us after b n=18 avg=31 min=10@0 max=200@1 bins=[10 1000] ";
  expectError(line + "calls=[1 195 2][2 10.6 16]\n", 11, "the first call range starts at call 1");
  expectError(line + "calls=[0 195 2][0 10.6 16]\n", 11, "call range starting at call 0 after one starting at 0");
  expectError(line + "calls=[0 195 2][1 10.6 15]\n", 11, "call ranges hold 17 samples but the histogram's header says 18");
  expectError(line + "calls=[0 195 2][1 10.6 17]\n", 11, "call ranges hold more than the 18 samples");
  expectError(line + "calls=[0 195 0][1 10.6 18]\n", 11, "call range with 0 samples");
  expectError(line + "calls=[0 -1 2][1 10.6 16]\n", 11, "call range mean");
  expectError(line + "calls=[0 inf 2][1 10.6 16]\n", 11, "call range mean");
  expectError(line + "calls=\n", 11, "`calls=` without ranges");
  expectError(line + "calls=[0 195 2] [1 10.6]\n", 11, "");
  std::string many = "  time comp us after b n=40 avg=1 min=1@0 max=1@0 bins=[1 10] calls=";
  for (int i = 0; i < 33; ++i) many += "[" + std::to_string(i) + " 1 1]";
  expectError(many + "\n", 11, "more than 32 call ranges");
  expectError("  compute after b us=31 calls=[0 195][0 10]\n", 11, "call range starting at call 0 after one starting at 0");
  expectError("  compute after b us=31 calls=[3 195]\n", 11, "the first call range starts at call 3");
  expectError("  compute after b us=31 calls=[0 1e16]\n", 11, "call range compute time");
}

TEST(Drift, TimingPassCarriesTheRangesScaledByTheStatistic) {
  Trace t = tracegen::testing::readText(kHead + kDrift + kTail, "drift.tgt");
  PassContext ctx;
  createSummarizeTimingPass()->run(t, ctx);
  const Event& e = t.events[1];
  ASSERT_EQ(e.compute.size(), 2u);
  const ComputeTime& c = e.compute[1];
  EXPECT_NEAR(c.us, (16 * 10.6 + 2 * 195) / 18, 1e-9);
  EXPECT_EQ(c.calls, (std::vector<ComputeTime::ByCall>{{0, 195}, {1, 10.6}}));
  EXPECT_TRUE(e.compute[0].calls.empty());
  // --timing=max: the shape moves with the statistic.
  Trace m = tracegen::testing::readText(kHead + kDrift + kTail, "drift.tgt");
  PassContext mctx;
  mctx.options.timing = TimingMode::Max;
  createSummarizeTimingPass()->run(m, mctx);
  const ComputeTime& mc = m.events[1].compute[1];
  EXPECT_DOUBLE_EQ(mc.us, 200);
  ASSERT_EQ(mc.calls.size(), 2u);
  EXPECT_NEAR(mc.calls[0].us / mc.calls[1].us, 195 / 10.6, 1e-9);
  // Written and read back.
  EXPECT_EQ(tracegen::testing::readText(tracegenText(t), "lowered.tgt"), t);
}

namespace {

const std::string kWarmup =
    "tracegen-trace 1\nranks 2\ndatatype MPI_DOUBLE 8\n"
    "event 0 MPI_Init @ <1 0 {2 1}>\n  site init\n"
    "event 1 MPI_Barrier @ <1 0 {2 1}>\n  site a\n  loop 0 iter 10\n  loop 0 mem 2\n  comm 2\n"
    "event 2 MPI_Allreduce @ <1 0 {2 1}>\n  site b\n  comm 2\n  count 1\n  datatype MPI_DOUBLE\n  op MPI_SUM\n"
    "  time comp us after a n=20 avg=380 min=200@0 max=2000@1 bins=[100 200 200 200 1000 18][1000 2000 2000 2000 10000 2] "
    "calls=[0 2000 2][1 200 18]\n"
    "event 3 MPI_Finalize @ <1 0 {2 1}>\n  site fin\n";

std::string generate(const Trace& t, const std::string& backend) {
  return gen::createBackend(backend)->render(gen::buildProgram(t, "warmup.tgt"),
                                        gen::GenOptions{"tracegen warmup.tgt -o bench", "bench"});
}

// The body of by_call() from the C runtime, with a main that checks the ranges it picks.
std::string byCallProgram() {
  const std::string runtime(gen::templateText("c/runtime/tracegen_runtime.c"));
  const auto start = runtime.find("double by_call(");
  const auto end = runtime.find("\n}\n", start);
  if (start == std::string::npos || end == std::string::npos) return "";
  return "#include <stdio.h>\n" + runtime.substr(start, end + 3 - start) +
         "int main(void)\n{\n  static const long from[3] = { 0, 1, 4 };\n  static const double us[3] = { 35, 10, 12 };\n"
         "  long calls = 0;\n  for (int k = 0; k < 7; ++k)\n    printf(\"%g \", by_call(&calls, 3, from, us));\n"
         "  printf(\"%ld\\n\", calls);\n  return 0;\n}\n";
}

}  // namespace

TEST(Drift, CBenchmarkReplaysTheTimeOfEachCallsRange) {
  const Trace t = tracegen::testing::loweredText(kWarmup, "warmup.tgt");
  ASSERT_EQ(t.events[2].compute.size(), 1u);
  EXPECT_EQ(t.events[2].compute[0].calls, (std::vector<ComputeTime::ByCall>{{0, 2000}, {1, 200}}));
  const std::string c = generate(t, "c");
  const std::string flat = tracegen::testing::flat(c);
  EXPECT_TRUE(contains(c, "static long compute_calls = 0;")) << c;
  EXPECT_TRUE(contains(c, "static const long compute_calls_from[2] = { 0, 1 };")) << c;
  EXPECT_TRUE(contains(c, "static const double compute_us_by_call[2] = { 2000, 200 };")) << c;
  EXPECT_TRUE(contains(flat, "compute_sending(by_call(&compute_calls, 2, compute_calls_from, compute_us_by_call), msg_count(1), MPI_DOUBLE);")) << c;
  tracegen::testing::expectCompilesUnderBothMpis(c, "drift");
  // The runtime's by_call: calls 0 | 1-3 | 4- take 35 | 10 | 12, and the counter advances.
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("tracegen-bycall-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string program = byCallProgram();
  ASSERT_FALSE(program.empty());
  std::ofstream(dir / "by_call.c") << program;
  const std::string cmd = "cc -std=c11 -Wall -Wextra -Werror -o " + (dir / "by_call").string() + " " + (dir / "by_call.c").string() +
                          " && " + (dir / "by_call").string() + " > " + (dir / "out.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << program;
  std::ifstream in(dir / "out.txt");
  std::string out((std::istreambuf_iterator<char>(in)), {});
  fs::remove_all(dir);
  EXPECT_EQ(out, "35 10 10 10 12 12 12 7\n");
}

TEST(Drift, NcptlBenchmarkTakesTheMean) {
  const Trace t = tracegen::testing::loweredText(kWarmup, "warmup.tgt");
  const std::string n = generate(t, "ncptl");
  EXPECT_TRUE(contains(n, "ALL TASKS COMPUTE FOR 380*compute_scale/100 MICROSECONDS")) << n;
  EXPECT_FALSE(contains(n, "2000")) << n;
}

namespace {

// The ring of the extrapolation tests with a compute time before its MPI_Sendrecv that drifts:
// 200 us at each rank's first call after the previous Sendrecv, 20 after.
std::string driftingRing(Rank p) {
  const std::int64_t later = static_cast<std::int64_t>(p) * (p - 3), n = later + p;
  const double mean = (200.0 * static_cast<double>(p) + 20.0 * static_cast<double>(later)) / static_cast<double>(n);
  return extrap::traces::ringText(
      p, 256,
      fmt::format("  time comp us after ring.c:20 n={} avg={} min=20@0 max=200@0 bins=[10 20 100 {}][100 200 1000 {}] "
                  "calls=[0 200 {}][1 20 {}]\n",
                  n, mean, later, p, p, later));
}

bool hasByCall(const gen::Expr& e) {
  if (e.kind == gen::Expr::Kind::ByCall) return true;
  for (const auto& c : e.children)
    if (hasByCall(c)) return true;
  return false;
}

bool anyByCall(const std::vector<gen::Stmt>& body) {
  for (const auto& s : body)
    if (s.kind == gen::Stmt::Kind::Loop ? anyByCall(s.loop.body) : hasByCall(s.call.computeUs)) return true;
  return false;
}

}  // namespace

TEST(Drift, ExtrapolationAndScaleFreeProgramsTakeTheMean) {
  std::vector<extrap::ExtrapolateInput> in{extrap::traces::input("ring4.tgt", driftingRing(4)),
                                           extrap::traces::input("ring6.tgt", driftingRing(6)),
                                           extrap::traces::input("ring8.tgt", driftingRing(8))};
  for (const auto& i : in) {
    ASSERT_EQ(i.trace.events[1].stats.size(), 1u);
    ASSERT_EQ(i.trace.events[1].stats[0].hist.calls.size(), 2u);
  }
  // An input's own benchmark replays the drift; the extrapolated trace has none.
  EXPECT_TRUE(anyByCall(gen::buildProgram(tracegen::testing::loweredText(driftingRing(4), "ring4.tgt"), "ring4.tgt").body));
  const extrap::ExtrapolateResult r = extrap::extrapolate(in, extrap::ExtrapolateOptions{16, {}});
  bool timed = false;
  for (const Event& e : r.trace.events)
    for (const TimeStat& st : e.stats) {
      timed = timed || st.phase == Phase::Compute;
      EXPECT_TRUE(st.hist.calls.empty());
    }
  EXPECT_TRUE(timed);
  EXPECT_FALSE(contains(tracegenText(r.trace), "calls="));
  // The scale-free program replays each template's mean.
  const extrap::ScaleFreeResult sf = extrap::buildScaleFree(in);
  EXPECT_FALSE(anyByCall(sf.program.body));
}

// Many timing sub-groups (more than the 4 a `?:` chain spells) some of which drift: tables of
// rows by rank, each rank's ranges padded to the longest.
TEST(Drift, ManyRankGroupsAreTablesOfRangesByRank) {
  std::string text = "tracegen-trace 1\nranks 6\nevent 0 MPI_Init @ <1 0 {6 1}>\n  site init\n"
                     "event 1 MPI_Barrier @ <1 0 {6 1}>\n  site b\n  loop 0 iter 10\n  loop 0 mem 1\n  comm 2\n";
  for (int r = 0; r < 6; ++r) {
    const int us = 100 * (r + 1);
    if (r % 2 == 0)
      text += fmt::format("  time comp us after b @ <1 {} {{1 0}}> n=9 avg={} min={}@{} max={}@{} bins=[10 {} {} 1][10 {} 100000 8] "
                          "calls=[0 {} 1][1 {} 8]\n",
                          r, (10 * us + 8 * us) / 9.0, us, r, 10 * us, r, us * 10, 100000, us, 10 * us, us);
    else
      text += fmt::format("  time comp us after b @ <1 {} {{1 0}}> n=9 avg={} min={}@{} max={}@{} bins=[10 100000]\n", r, us, us,
                          r, us, r);
  }
  text += "event 2 MPI_Finalize @ <1 0 {6 1}>\n  site fin\n";
  const Trace t = tracegen::testing::loweredText(text, "groups.tgt");
  const std::string c = generate(t, "c");
  EXPECT_TRUE(contains(c, "static const long compute_calls_from_by_rank[6][2] = {")) << c;
  EXPECT_TRUE(contains(c, "/* rank 0 */ { 0, 1 },")) << c;
  EXPECT_TRUE(contains(c, "/* rank 1 */ { 0, 2147483647 },")) << c;
  EXPECT_TRUE(contains(c, "/* rank 2 */ { 3000, 300 },")) << c;
  EXPECT_TRUE(contains(c, "/* rank 3 */ { 400, 400 },")) << c;
  EXPECT_TRUE(contains(tracegen::testing::flat(c),
                       "? 0 : by_call(&compute_calls, 2, compute_calls_from_by_rank[rank], compute_us_by_call_by_rank[rank]));"))
      << c;
  tracegen::testing::expectCompilesUnderBothMpis(c, "drift-by-rank");
}
