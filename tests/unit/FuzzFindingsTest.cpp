// Regression tests for the inputs that mutation fuzzing found tracegen mishandling
// (tests/data/fuzz-findings/README.md): overflowing arithmetic on trace values, allocation in
// proportion to a declared number of ranks, unbounded expansion, values no MPI program can
// make, and a diagnostic without the trace's file:line. Each test asserts the precise outcome:
// an InputError at the line that causes it, or the right figures. Run under the sanitizer build
// (scripts/test.sh), the arithmetic tests also prove that no signed overflow remains.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "gen/Backend.h"
#include "gen/ReceivedBytes.h"
#include "gen/Traversal.h"
#include "ncptl/Checker.h"
#include "ir/Checked.h"
#include "ir/Diagnostics.h"
#include "ir/Limits.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "passes/PassManager.h"

namespace tracegen {
namespace {

std::string findingPath(const std::string& name) {
  return std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/fuzz-findings/" + name;
}

// The InputError reading `name` throws; fails the test if it reads.
InputError readError(const std::string& name) {
  try {
    readTraceFile(findingPath(name));
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << name << " was accepted";
  return InputError("", 0, "");
}

void expectReadError(const std::string& name, int line, const std::string& fragment) {
  InputError e = readError(name);
  EXPECT_EQ(e.file(), findingPath(name));
  EXPECT_EQ(e.line(), line) << e.render();
  EXPECT_NE(e.message().find(fragment), std::string::npos) << e.render();
}

Trace readFinding(const std::string& name) { return readTraceFile(findingPath(name)); }

Trace lower(Trace t, const std::string& file) {
  PassContext ctx;
  ctx.fileName = file;
  PassManager pm(defaultPipeline());
  pm.run(t, ctx);
  return t;
}

Datatype& datatypeNamed(Trace& t, const std::string& name) {
  for (auto& d : t.datatypes)
    if (d.name == name) return d;
  throw std::runtime_error("no datatype " + name);
}

// ---------------------------------------------------------------- checked arithmetic helpers

TEST(CheckedArithmetic, DetectsOverflowAndSaturates) {
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::int64_t min = std::numeric_limits<std::int64_t>::min();
  EXPECT_EQ(checkedMul(1 << 20, 1 << 20), std::int64_t{1} << 40);
  EXPECT_FALSE(checkedMul(std::int64_t{1} << 62, 2).has_value());
  EXPECT_FALSE(checkedMul(min, -1).has_value());
  EXPECT_FALSE(checkedAdd(max, 1).has_value());
  EXPECT_EQ(checkedAdd(max, -1), max - 1);
  EXPECT_FALSE(checkedSub(min, 1).has_value());
  EXPECT_EQ(saturatingAdd(max - 1, 5), max);
  EXPECT_EQ(saturatingAdd(min + 1, -5), min);
  EXPECT_EQ(saturatingMul(std::int64_t{1} << 40, std::int64_t{1} << 40), max);
  EXPECT_EQ(saturatingMul(-(std::int64_t{1} << 40), std::int64_t{1} << 40), min);
}

// ---------------------------------------------------------------- U: signed overflow

// Counts beyond MPI's int are rejected where they are read, at the parameter's line.
TEST(FuzzFindings, U1CountBeyondIntIsRejected) {
  expectReadError("U1-rankcursor-count-x-size-overflow.tgt", 8, "count 4611686018427387904 is outside 0..2147483647");
}
TEST(FuzzFindings, U1bSendrecvRecvcountBeyondIntIsRejected) {
  expectReadError("U1b-rankcursor-sendrecv-recvcount-overflow.tgt", 10,
                  "recvcount 9223372036854775807 is outside 0..2147483647");
}
TEST(FuzzFindings, U1cCollectiveRecvcountBeyondIntIsRejected) {
  expectReadError("U1c-rankcursor-collective-recvcount-overflow.tgt", 10,
                  "recvcount 2305843009213693952 is outside 0..2147483647");
}

// The cursor's own product, count x datatype size, is checked too: a trace built in memory (as
// passes do) with values the readers would refuse gets an error at the event, not a wrapped size.
TEST(FuzzFindings, U1CursorChecksCountTimesSize) {
  std::string text =
      "tracegen-trace 1\nranks 2\ndatatype big 8\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n"
      "event 1 MPI_Sendrecv @ <1 0 {2 1}>\n  count 2147483647\n  datatype big\n  recvcount 2147483647\n"
      "  recvtype big\n  dest rel 1\n  source rel 1\n  tag 0\n"
      "event 2 MPI_Finalize @ <1 0 {2 1}>\n";
  Trace t = readTracegenText(sourceFromString("big.tgt", text));
  datatypeNamed(t, "big").size = std::int64_t{1} << 40;  // 2^31 x 2^40 does not fit
  RankCursor cursor(t, 0, "big.tgt");
  Call call;
  ASSERT_TRUE(cursor.next(call));  // MPI_Init
  try {
    cursor.next(call);
    FAIL() << "count x size overflowed silently: " << call.bytes;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(e.message().find("overflows 64 bits"), std::string::npos) << e.render();
  }
}

// A request offset of INT64_MIN (fuzz_tgt_reader under UBSan): the cursor computed 10000 minus
// it for the depth of the requests a wait names, and again to resolve the wait. Now the wait
// is an error at its event, no overflow on the way.
TEST(FuzzFindings, U6RequestOffsetInt64MinIsAnErrorWithoutOverflow) {
  const Trace t = readFinding("U6-rankcursor-request-int64-min.tgt");
  RankCursor cursor(t, 0, "U6.tgt");
  Call call;
  ASSERT_TRUE(cursor.next(call));  // MPI_Init
  ASSERT_TRUE(cursor.next(call));  // MPI_Isend
  try {
    cursor.next(call);
    FAIL() << "a wait on request offset INT64_MIN completed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 12);
    EXPECT_NE(e.message().find("waits on request offset -9223372036854775808, but has made only 1"), std::string::npos)
        << e.render();
  }
}

// Nested trip counts whose product leaves int64: an error at the loop head, not a wrapped
// execution index in the generated program.
TEST(FuzzFindings, U2LoopTripProductOverflowIsAnError) {
  const std::string name = "U2-traversal-loop-multiplier-overflow.tgt";
  Trace t = lower(readFinding(name), name);
  try {
    gen::buildProgram(t, name);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), name);
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(e.message().find("the loops nested here run more than 9223372036854775807 times"), std::string::npos)
        << e.render();
  }
}
TEST(FuzzFindings, U2b64LevelsOfTwoTripsOverflow) {
  const std::string name = "U2b-64-loop-levels.tgt";
  Trace t = lower(readFinding(name), name);
  try {
    gen::buildProgram(t, name);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 8);
    EXPECT_NE(e.message().find("event 1 (MPI_Barrier)"), std::string::npos) << e.render();
  }
}
// 62 nested loops of two trips (2^62 executions) are representable: the limit is the product
// of the trip counts, not the depth.
TEST(FuzzFindings, U2bSixtyTwoLevelsOfTwoAreFine) {
  std::string text = "tracegen-trace 1\nranks 1\nevent 0 MPI_Init @ <1 0 {1 1}>\nevent 1 MPI_Barrier @ <1 0 {1 1}>\n";
  for (int k = 0; k < 62; ++k) text += "  loop " + std::to_string(k) + " iter 2\n  loop " + std::to_string(k) + " mem 1\n";
  text += "event 2 MPI_Finalize @ <1 0 {1 1}>\n";
  Trace t = lower(readTracegenText(sourceFromString("deep.tgt", text)), "deep.tgt");
  EXPECT_NO_THROW(gen::buildProgram(t, "deep.tgt"));
}

TEST(FuzzFindings, U3CollectiveCountIsRejected) {
  expectReadError("U3-traversal-collective-bytes-overflow.tgt", 8, "count 288230376151711744 is outside 0..2147483647");
}
// The buffer size of a gather (bytes x ranks) is checked where the traversal forms it.
TEST(FuzzFindings, U3GatherBufferOverflowIsAnError) {
  std::string text =
      "tracegen-trace 1\nranks 4\ndatatype big 8\n"
      "event 0 MPI_Init @ <1 0 {4 1}>\n"
      "event 1 MPI_Allgather @ <1 0 {4 1}>\n  comm 2\n  count 2147483647\n  datatype big\n"
      "  recvcount 2147483647\n  recvtype big\n"
      "event 2 MPI_Finalize @ <1 0 {4 1}>\n";
  Trace t = lower(readTracegenText(sourceFromString("gather.tgt", text)), "gather.tgt");
  datatypeNamed(t, "big").size = kMaxInt32;  // (2^31-1)^2 x 4 ranks does not fit
  try {
    gen::buildProgram(t, "gather.tgt");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(e.message().find("largest message, in bytes, overflows 64 bits"), std::string::npos) << e.render();
  }
}

TEST(FuzzFindings, U4CountIsRejected) {
  expectReadError("U4-summary-bytes-sum-overflow.tgt", 10, "count 576460752303423488 is outside 0..2147483647");
}
// Byte totals are only printed: they saturate at 2^63-1 instead of wrapping to -2^63.
TEST(FuzzFindings, U4ByteTotalsSaturate) {
  std::string text =
      "tracegen-trace 1\nranks 2\ndatatype big 8\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n"
      "event 1 MPI_Send @ <1 0 {1 0}>\n  loop 0 iter 3\n  loop 0 mem 1\n  count 2147483647\n  datatype big\n"
      "  dest 1\n  tag 0\n"
      "event 2 MPI_Recv @ <1 1 {1 0}>\n  loop 0 iter 3\n  loop 0 mem 1\n  count 2147483647\n  datatype big\n"
      "  source 0\n  tag 0\n"
      "event 3 MPI_Finalize @ <1 0 {2 1}>\n";
  Trace t = readTracegenText(sourceFromString("sum.tgt", text));
  datatypeNamed(t, "big").size = std::int64_t{1} << 31;  // each call just under 2^62 bytes
  auto ranks = summarizeRanks(t, "sum.tgt");
  ASSERT_EQ(ranks.size(), 2u);
  EXPECT_EQ(ranks[0].bytesSent, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ranks[1].bytesReceived, std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(ranks[0].calls, 5);
}

TEST(FuzzFindings, U5CountIsRejected) {
  expectReadError("U5-ncptl-simulator-bytes-overflow.tgt", 10, "count 576460752303423488 is outside 0..2147483647");
}
// The coNCePTuaL simulator's arithmetic (message sizes, byte balances, loop multipliers) gives
// up on overflow instead of wrapping; the size rule still reports the message.
TEST(FuzzFindings, U5SimulatorOverflowGivesUp) {
  const std::string program =
      "REQUIRE LANGUAGE VERSION \"1.5\".\n"
      "ASSERT THAT \"two tasks\" WITH num_tasks = 2.\n"
      "FOR 2 REPETITIONS {\n"
      "  TASK 0 SENDS A 576460752303423488 DOUBLEWORD MESSAGE TO UNSUSPECTING TASK 1 THEN\n"
      "  TASK 1 RECEIVES A 576460752303423488 DOUBLEWORD MESSAGE FROM TASK 0\n"
      "}.\n"
      "FOR 9223372036854775807 REPETITIONS {\n"
      "  TASK 0 SENDS A 1099511627776 GIGABYTE MESSAGE TO UNSUSPECTING TASK 1 THEN\n"
      "  TASK 1 RECEIVES A 1099511627776 GIGABYTE MESSAGE FROM TASK 0\n"
      "}.\n";
  ncptl::CheckResult r = ncptl::check(program);
  EXPECT_FALSE(r.simulated);
}

// ---------------------------------------------------------------- C: allocation by declared ranks

// 2^31-1 declared ranks: the totals are computed once per rank class, in no time; a row per
// rank is refused up front with the budget named, before any per-rank work.
TEST(FuzzFindings, C1TwoBillionRanksAreSummarisedPerClass) {
  const std::string name = "C1-inspect-2p31m1-ranks-bad-alloc.tgt";
  Trace t = readFinding(name);
  const TraceSummary s = summarizeTrace(t, name, false);
  EXPECT_EQ(s.calls, std::int64_t{3} * 2147483647);
  try {
    summarizeTrace(t, name, /*keepPerRank=*/true);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 4);
    EXPECT_NE(e.message().find("writing a row for each of 2147483647 ranks would take 2147483647 steps, beyond "
                               "the budget of 5000000"),
              std::string::npos)
        << e.render();
  }
}
TEST(FuzzFindings, C1bScalaTraceTwoBillionRanksAreSummarisedPerClass) {
  const std::string name = "C1b-st-2p31m1-ranks.trace";
  Trace t = readFinding(name);
  EXPECT_EQ(t.numRanks, 2147483647);
  EXPECT_GT(summarizeTrace(t, name, false).calls, 2147483647);
  try {
    forEachRankSummary(t, name, [](const RankSummary&) {});
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("2147483647 ranks"), std::string::npos) << e.render();
  }
}
// 4,000,000 ranks fit the budget; the totals are computed without keeping a row per rank, and
// the rows stream out one at a time.
TEST(FuzzFindings, C2FourMillionRanksStream) {
  const std::string name = "C2-inspect-json-4M-ranks.tgt";
  Trace t = readFinding(name);
  TraceSummary s = summarizeTrace(t, name, /*keepPerRank=*/false);
  EXPECT_EQ(s.calls, 12'000'000);
  EXPECT_TRUE(s.perRank.empty());
  EXPECT_EQ(s.callOps["MPI_Barrier"], 4'000'000);
}

// ---------------------------------------------------------------- H: unbounded expansion

// A loop whose iterations repeat is multiplied by its trip count, not expanded (issue 29):
// 10^12 barriers are counted within a budget of 1000 steps.
TEST(FuzzFindings, H1HugeLoopIsMultipliedNotExpanded) {
  const std::string name = "H1-inspect-huge-loop.tgt";
  Trace t = readFinding(name);
  const TraceSummary s = summarizeTrace(t, name, false, /*budget=*/1000);
  EXPECT_EQ(s.calls, 1'000'000'000'002);
  EXPECT_EQ(s.callOps.at("MPI_Barrier"), 1'000'000'000'000);
}
TEST(FuzzFindings, H1bScalaTraceHugeLoopIsMultipliedNotExpanded) {
  const std::string name = "H1b-st-inspect-loop-2p31.trace";
  Trace t = readFinding(name);
  const TraceSummary s = summarizeTrace(t, name, false, /*budget=*/1000);
  EXPECT_GE(s.calls, 2 * std::int64_t{2147483647});
}
// A loop whose iterations never repeat (a value list of 1000 counts consumed one per
// iteration of a loop of 10^12) is still expanded, and stops at the budget at its line.
TEST(FuzzFindings, H1cLoopThatNeverRepeatsStopsAtTheBudget) {
  std::string counts;
  for (int i = 0; i < 1000; ++i) counts += " " + std::to_string(i);
  const std::string text =
      "tracegen-trace 1\nranks 2\ndatatype MPI_DOUBLE 8\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n"
      "event 1 MPI_Bcast @ <1 0 {2 1}>\n  loop 0 iter 1000000000000\n  loop 0 mem 1\n  comm 2\n  count" + counts +
      "\n  datatype MPI_DOUBLE\n  root 0\n"
      "event 2 MPI_Finalize @ <1 0 {2 1}>\n";
  Trace t = readTracegenText(sourceFromString("elastic.tgt", text));
  // The count's position is part of the state compared: it differs after any two consecutive
  // iterations, so none is skipped.
  try {
    summarizeTrace(t, "elastic.tgt", false, /*budget=*/100'000);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 5);
    EXPECT_NE(e.message().find("the trace expands to more than 100000 steps"), std::string::npos) << e.render();
  }
}
// The figures with repeated iterations skipped are those of the plain expansion.
TEST(FuzzFindings, SkippedIterationsGiveTheSameFigures) {
  for (const char* name : {"ring-4.tgt", "stencil-2d-4.tgt", "waitsome-2.tgt", "master-worker-3.tgt"}) {
    const Trace t = readTraceFile(std::string(TRACEGEN_SOURCE_DIR) + "/fuzz/corpus/fuzz_tgt_reader/" + name);
    for (Rank r = 0; r < t.numRanks; ++r) {
      ExpansionBudget budget(name, "test");
      const RankSummary s = summarizeRank(t, r, budget, name);
      RankCursor plain(t, r, name);
      Call c;
      std::int64_t calls = 0, sent = 0;
      while (plain.next(c)) {
        calls += 1 + c.failedPolls;
        if (isPointToPoint(opInfo(c.op).kind)) sent += c.bytes;
      }
      EXPECT_EQ(s.calls, calls) << name << " rank " << r;
      EXPECT_EQ(s.bytesSent, sent) << name << " rank " << r;
    }
  }
}

// A loop of 2^63-1 trips whose iterations repeat is skipped to the largest call index: the
// next call is refused (a located error) instead of overflowing the index (UBSan: signed
// overflow in RankCursor::emit; fuzz_tgt_reader, session of 2026-11-29).
TEST(FuzzFindings, U7CallIndexAtTheLargestIsRefused) {
  const std::string name = "U7-rankcursor-index-at-int64-max.tgt";
  Trace t = readFinding(name);
  for (Rank r = 0; r < t.numRanks; ++r) {
    try {
      ExpansionBudget budget(name, "test");
      summarizeRank(t, r, budget, name);
      FAIL() << "rank " << r << " accepted";
    } catch (const InputError& e) {
      EXPECT_NE(e.message().find("makes more than 9223372036854775807 calls"), std::string::npos) << e.render();
    }
  }
}
// A loop of 10^12 trips around a loop of 0 trips: a walk without a listener begins an
// iteration after another without a call of the rank; with an iteration limit it stops there
// (the fuzz target's plain walk spun for minutes).
TEST(FuzzFindings, H9EmptyIterationsStopAtTheIterationLimit) {
  const std::string name = "H9-empty-iterations-of-a-huge-loop.tgt";
  Trace t = readFinding(name);
  RankCursor plain(t, 0, name);
  plain.setIterationLimit(1000);
  Call c;
  try {
    while (plain.next(c)) {
    }
    FAIL() << "the walk ended";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("begins more than 1000 loop iterations"), std::string::npos) << e.render();
  }
}

// resolve-comms stops expanding a rank once no loop can bring it back to its last
// communicator creation: the 10^12-trip loop after the split is never expanded.
TEST(FuzzFindings, H2ResolveCommsStopsAfterTheLastCreation) {
  const std::string name = "H2-resolve-comms-split-then-huge-loop.tgt";
  Trace t = readFinding(name);
  PassContext ctx;
  ctx.fileName = name;
  PassManager pm({"resolve-comms"});
  pm.run(t, ctx);
  const Communicator* c = t.comm(1000);
  ASSERT_NE(c, nullptr);
  ASSERT_EQ(c->instances.size(), 1u);
  EXPECT_EQ(c->instances[0], RankList::all(2));
  EXPECT_TRUE(t.worldPeers);
}
// A creation inside a loop repeats: the cursor reports that it may come back to it until the
// loop's last trip has passed, so resolve-comms keeps expanding exactly that long.
TEST(FuzzFindings, H2CursorKnowsWhenALoopCanComeBack) {
  std::string text =
      "tracegen-trace 1\nranks 2\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n"
      "event 1 MPI_Comm_dup @ <1 0 {2 1}>\n  loop 0 iter 3\n  loop 0 mem 2\n  comm 2\n"
      "event 2 MPI_Barrier @ <1 0 {2 1}>\n  comm 2\n"
      "event 3 MPI_Barrier @ <1 0 {2 1}>\n  loop 0 iter 1000000000000\n  loop 0 mem 1\n  comm 2\n"
      "event 4 MPI_Finalize @ <1 0 {2 1}>\n";
  Trace t = readTracegenText(sourceFromString("dup.tgt", text));
  RankCursor cursor(t, 1, "dup.tgt");
  Call call;
  std::vector<std::pair<std::int64_t, bool>> seen;  // event id, may return to the dup (position 1)
  for (int i = 0; i < 9 && cursor.next(call); ++i) seen.push_back({call.event->id, cursor.mayReturnTo(1)});
  const std::vector<std::pair<std::int64_t, bool>> expected = {
      {0, true}, {1, true}, {2, true}, {1, true}, {2, true}, {1, true}, {2, true}, {3, false}, {3, false}};
  EXPECT_EQ(seen, expected);
}

// ---------------------------------------------------------------- S: accepted, wrong output

TEST(FuzzFindings, S1ScalaTraceLoopsDeeperThan64LevelsAreRejected) {
  expectReadError("S1-st-1000-loop-levels.trace", 72, "LOOP64: loops nest at most 64 levels deep");
}
TEST(FuzzFindings, S2TimesBeyondTheLimitAreRejected) {
  expectReadError("S2-histogram-inf-mean.tgt", 9, "histogram average: time 1e+308 beyond the limit of 1e+15");
}
// A compute time that reaches a backend non-finite (here set in memory, as a pass could) is an
// error at the event, never `compute(inf);` in the generated program.
TEST(FuzzFindings, S2BackendsRefuseNonFiniteComputeTimes) {
  std::string text =
      "tracegen-trace 1\nranks 2\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n  site a\n"
      "event 1 MPI_Barrier @ <1 0 {2 1}>\n  site b\n  comm 2\n"
      "  time comp us after a n=2 avg=10 min=10@0 max=10@1 bins=[0 10 10 10 10 2]\n"
      "event 2 MPI_Finalize @ <1 0 {2 1}>\n  site z\n";
  Trace t = lower(readTracegenText(sourceFromString("inf.tgt", text)), "inf.tgt");
  for (auto& e : t.events)
    for (auto& c : e.compute) c.us = std::numeric_limits<double>::infinity();
  for (const char* language : {"c", "ncptl"}) {
    gen::Program p = gen::buildProgram(t, "inf.tgt");
    try {
      gen::createBackend(language)->render(p, gen::GenOptions{"tracegen", "-"});
      ADD_FAILURE() << language << ": rendered an infinite compute time";
    } catch (const InputError& e) {
      EXPECT_EQ(e.line(), 5) << language;
      EXPECT_NE(e.message().find("not a finite number"), std::string::npos) << e.render();
    }
  }
}
// A send that no rank receives (check-communication warns): the C program sends it as the
// application did; coNCePTuaL has no statement for it, and the backend says so (exit status 2)
// instead of failing its own check (an internal error, exit status 4).
TEST(FuzzFindings, N1NcptlRefusesAnUnreceivedSend) {
  const Trace t = lower(readFinding("N1-ncptl-unreceived-send.tgt"), "N1");
  const gen::ReceivedBytes received = gen::matchReceivedBytes(t);
  ASSERT_TRUE(received.matched);
  EXPECT_EQ(received.unreceived, 1);
  EXPECT_EQ(received.firstUnreceived, "rank 2 to rank 3, tag 0, 163840 bytes");
  const gen::Program p = gen::buildProgram(t, "N1", &received);
  EXPECT_NE(gen::createBackend("c")->render(p, gen::GenOptions{"tracegen", "-"}).find("MPI_Send("), std::string::npos);
  try {
    gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen", "-"});
    ADD_FAILURE() << "rendered a coNCePTuaL program whose send nobody receives";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 message is sent but never received (rank 2 to rank 3, tag 0, 163840 bytes)"),
              std::string::npos)
        << e.what();
  }
}
// Receives that post 4 doubles for messages of 8, in a trace over the call budget of the
// receive-size matching (a fuzz_pipeline crash in CI): unmatched, each RECEIVE named its posted
// size, and the coNCePTuaL backend failed its own check (std::logic_error, an internal error,
// exit status 4). It now refuses with exit status 2 and says to raise the budget or write C.
TEST(FuzzFindings, N2NcptlRefusesUnmatchedReceiveSizesThatFailItsCheck) {
  const Trace t = lower(readFinding("N2-ncptl-receive-posts-less-than-sent.tgt"), "N2");
  const gen::ReceivedBytes unmatched = gen::matchReceivedBytes(t, /*callBudget=*/100);
  ASSERT_FALSE(unmatched.matched);
  const gen::Program p = gen::buildProgram(t, "N2", nullptr);
  EXPECT_FALSE(p.receivesMatched);
  try {
    gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen", "-"});
    ADD_FAILURE() << "rendered a coNCePTuaL program whose receives truncate their messages";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("raise --call-budget, or write C instead"), std::string::npos) << e.what();
  }
  const gen::ReceivedBytes matched = gen::matchReceivedBytes(t);
  ASSERT_TRUE(matched.matched);
  const gen::Program q = gen::buildProgram(t, "N2", &matched);
  EXPECT_TRUE(q.receivesMatched);
  EXPECT_NE(gen::createBackend("ncptl")->render(q, gen::GenOptions{"tracegen", "-"}).find("RECEIVE A 64*msg_scale/100 BYTE"),
            std::string::npos);
}
// An MPI_Waitsome whose request list (7,201 offsets) outgrows its counts, so that one wait
// names thousands of requests: the coNCePTuaL backend split it into cases request by request,
// every case copying a value per request, for minutes (a fuzz_pipeline timeout in CI). A wait
// on more requests than the backend splits into cases counts those that vary as not completed.
TEST(FuzzFindings, T1NcptlWaitOnThousandsOfRequestsIsQuick) {
  const Trace t = lower(readFinding("T1-ncptl-wait-on-7201-requests.tgt"), "T1");
  const gen::Program p = gen::buildProgram(t, "T1", nullptr);
  const std::string text = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen", "-"});
  EXPECT_NE(text.find("requests: those that vary from call to call are not counted as completed here"), std::string::npos);
}
TEST(FuzzFindings, S3NegativeCountIsRejected) {
  expectReadError("S3-negative-count.tgt", 11, "count -8 is outside 0..2147483647");
}
TEST(FuzzFindings, S3bTagBeyondIntIsRejected) {
  expectReadError("S3b-tag-int64-min.tgt", 11, "tag -9223372036854775808 is outside -2147483648..2147483647");
}

// ---------------------------------------------------------------- D: diagnostics

TEST(FuzzFindings, D1MissingRequiredParameterNamesTheLine) {
  const std::string name = "D1-no-fileline-missing-param.tgt";
  Trace t = lower(readFinding(name), name);
  try {
    requireParams(t, name);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), name);
    EXPECT_EQ(e.line(), 63);
    EXPECT_EQ(e.message(), "event 7 (MPI_Comm_free) has no 'comm' parameter");
  }
}

}  // namespace
}  // namespace tracegen

namespace tracegen {
namespace {

// Found by fuzz_scalatrace_reader: tiny first RANKS: lines whose sections interleave their
// dimensions and split into thousands of regular pieces took over 10 s to read. Each must now
// be read (and rejected) without such a cost; the test is not timed, it must simply finish.
TEST(FuzzFindings, ScalaTraceReaderHangs) {
  const std::filesystem::path dir = std::filesystem::path(TRACEGEN_SOURCE_DIR) / "tests/data/fuzz-findings/scalatrace-hangs";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_THROW(readTraceFile(entry.path().string()), InputError) << entry.path();
  }
  EXPECT_GE(files, 10);
}

// Found by fuzz_scalatrace_reader (second round): traces of 10^4 to 10^8 ranks in one
// contiguous section. Printing the first block's ranks in a diagnostic walked every rank
// (RankList::pretty now steps over runs), and inspect's totals expanded every rank (they are
// now computed once per rank class). Each must read or be rejected, and be summarised or
// refused by the budget, without such a cost; not timed, it must simply finish.
TEST(FuzzFindings, ScalaTraceLargeSectionsAreCheap) {
  const std::filesystem::path dir = std::filesystem::path(TRACEGEN_SOURCE_DIR) / "tests/data/fuzz-findings/scalatrace-slow";
  int files = 0, summarised = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    const std::string name = entry.path().string();
    try {
      Trace t = readTraceFile(name);
      const TraceSummary s = summarizeTrace(t, name, /*keepPerRank=*/false);
      EXPECT_GE(s.calls, t.numRanks) << name;
      ++summarised;
      std::int64_t calls = 0;
      forEachRankSummary(t, name, [&](const RankSummary& r) { calls += r.calls; });
      EXPECT_EQ(calls, s.calls) << name;
    } catch (const InputError&) {
    }
  }
  EXPECT_EQ(files, 6);
  EXPECT_GE(summarised, 2);
}

// A 115-million-rank contiguous section prints as one range, at once.
TEST(FuzzFindings, PrettyStepsOverRuns) {
  EXPECT_EQ(RankList::progression(10910, 115110912).pretty(), "10910-115121821");
  RankList evensAndOdds = RankList::unite(RankList::progression(0, 50, 2), RankList::progression(1, 50, 2));
  EXPECT_EQ(evensAndOdds.pretty(), "0-99");
  RankList gaps = RankList::unite(RankList::progression(0, 10), RankList::progression(20, 1000000000, 3));
  EXPECT_EQ(gaps.pretty(4), "0-9,20,23,26,... (1000000010 ranks)");
}

}  // namespace
}  // namespace tracegen
