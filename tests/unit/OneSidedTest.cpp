// One-sided communication (docs/trace-format.md, "One-sided communication"): windows made and
// freed collectively on a communicator, MPI_Put/MPI_Get/MPI_Accumulate with origin and target
// counts and types, fences, lock/unlock epochs. The reader round trip, the per-rank bytes a
// RankCursor gives (the origin's volume), the collective checks (window calls in collective
// order over the window's communicator; passive-target calls match nothing and do not hang the
// simulation), and both backends. The recorder side: tests/e2e/record_e2e.sh, samples/apps/rma.c.
#include <gtest/gtest.h>

#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "ncptl/Checker.h"
#include "passes/PassManager.h"
#include "sim/Deadlock.h"
#include "tests/unit/TraceTestHelpers.h"

using namespace tracegen;

namespace {

using tracegen::testing::contains;
using tracegen::testing::flat;

// 4 ranks: a window on the world (fence, puts to the right neighbour, gets from the left,
// an accumulate to MPI_PROC_NULL), then a window of MPI_Win_allocate on the pairs {0,1} and
// {2,3} with lock/unlock epochs (the target: the other member of the pair).
const char* kTrace = R"(tracegen-trace 1
ranks 4
origin recorded
datatype MPI_DOUBLE 8
datatype MPI_INT 4
comm 1000 split (<1 0 {2 1}>) (<1 2 {2 1}>)
event 0 MPI_Init @ <1 0 {4 1}>
  site app.c:10
event 1 MPI_Win_create @ <1 0 {4 1}>
  site app.c:12
  comm 2
  win 1000
  winsize 1024
  dispunit 8
event 2 MPI_Win_fence @ <1 0 {4 1}>
  site app.c:13
  loop 0 iter 3
  loop 0 mem 4
  comm 2
  win 1000
  assert 8
event 3 MPI_Put @ <1 0 {4 1}>
  site app.c:14
  comm 2
  count 16
  datatype MPI_DOUBLE
  dest rel 1
  recvcount 16
  recvtype MPI_DOUBLE
  win 1000
event 4 MPI_Get @ <1 0 {4 1}>
  site app.c:15
  comm 2
  count 8
  datatype MPI_INT
  dest rel 3
  recvcount 8
  recvtype MPI_INT
  win 1000
event 5 MPI_Accumulate @ <1 0 {4 1}>
  site app.c:16
  comm 2
  count 4
  datatype MPI_DOUBLE
  op MPI_SUM
  dest null
  recvcount 4
  recvtype MPI_DOUBLE
  win 1000
event 6 MPI_Win_free @ <1 0 {4 1}>
  site app.c:18
  comm 2
  win 1000
event 7 MPI_Comm_split @ <1 0 {4 1}>
  site app.c:20
  comm 2
  color 0 @ <1 0 {2 1}>
  color 1 @ <1 2 {2 1}>
  key rel 0
  newcomm 1000
event 8 MPI_Win_allocate @ <1 0 {4 1}>
  site app.c:21
  comm 1000
  win 1001
  winsize 64
  dispunit 8
event 9 MPI_Win_lock @ <1 0 {4 1}>
  site app.c:22
  comm 1000
  dest 1 @ <0 0>
  dest 0 @ <0 1>
  dest 1 @ <0 2>
  dest 0 @ <0 3>
  win 1001
  locktype 2
  assert 1
event 10 MPI_Accumulate @ <1 0 {4 1}>
  site app.c:23
  comm 1000
  count 2
  datatype MPI_DOUBLE
  op MPI_SUM
  dest 1 @ <0 0>
  dest 0 @ <0 1>
  dest 1 @ <0 2>
  dest 0 @ <0 3>
  recvcount 2
  recvtype MPI_DOUBLE
  win 1001
event 11 MPI_Win_flush @ <1 0 {4 1}>
  site app.c:24
  comm 1000
  dest 1 @ <0 0>
  dest 0 @ <0 1>
  dest 1 @ <0 2>
  dest 0 @ <0 3>
  win 1001
event 12 MPI_Win_unlock @ <1 0 {4 1}>
  site app.c:25
  comm 1000
  dest 1 @ <0 0>
  dest 0 @ <0 1>
  dest 1 @ <0 2>
  dest 0 @ <0 3>
  win 1001
event 13 MPI_Win_lock_all @ <1 0 {4 1}>
  site app.c:26
  comm 1000
  win 1001
  assert 0
event 14 MPI_Win_unlock_all @ <1 0 {4 1}>
  site app.c:27
  comm 1000
  win 1001
event 15 MPI_Win_free @ <1 0 {4 1}>
  site app.c:28
  comm 1000
  win 1001
event 16 MPI_Finalize @ <1 0 {4 1}>
  site app.c:30
)";

// The generated C with its wrapped lines joined: a call on one line.

Trace lowered(const std::string& text, const std::string& name = "rma.tgt") { return tracegen::testing::loweredText(text, name); }

TEST(OneSided, KindsParamsAndRoundTrip) {
  EXPECT_EQ(opInfo(Op::WinFence).kind, OpKind::WinCollective);
  EXPECT_EQ(opInfo(Op::WinAllocate).kind, OpKind::WinCollective);
  EXPECT_EQ(opInfo(Op::Put).kind, OpKind::Rma);
  EXPECT_EQ(opInfo(Op::WinUnlock).kind, OpKind::WinPassive);
  EXPECT_EQ(opInfo(Op::WinPost).kind, OpKind::Opaque);  // generalized active target stays opaque
  EXPECT_EQ(paramFromName("win"), Param::Win);
  EXPECT_EQ(paramFromName("locktype"), Param::LockType);
  const Trace t = readTrace(sourceFromString("rma.tgt", kTrace));
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "  win 1000\n  winsize 1024\n  dispunit 8\n")) << text;
  EXPECT_TRUE(contains(text, "  locktype 2\n  assert 1\n")) << text;
  EXPECT_EQ(readTrace(sourceFromString("again.tgt", text)), t);
}

TEST(OneSided, BadValuesAreInputErrors) {
  std::string bad = kTrace;
  bad.replace(bad.find("locktype 2"), 10, "locktype 7");
  try {
    readTrace(sourceFromString("bad.tgt", bad));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.message(), "locktype 7 is neither 1 (exclusive) nor 2 (shared)")) << e.message();
  }
}

TEST(OneSided, OriginBytesPerRank) {
  const Trace t = readTrace(sourceFromString("rma.tgt", kTrace));
  const std::vector<RankSummary> rows = summarizeRanks(t, "rma.tgt");
  ASSERT_EQ(rows.size(), 4u);
  for (const RankSummary& s : rows) {
    // 3 x (put 16 doubles) + accumulate 2 doubles; the accumulate to MPI_PROC_NULL moves nothing
    EXPECT_EQ(s.bytesSent, 3 * 16 * 8 + 2 * 8) << s.rank;
    EXPECT_EQ(s.bytesReceived, 3 * 8 * 4) << s.rank;  // 3 x (get 8 ints)
    EXPECT_EQ(s.ops.at("MPI_Win_fence"), 3);
    EXPECT_EQ(s.ops.at("MPI_Put"), 3);
    EXPECT_EQ(s.ops.at("MPI_Win_free"), 2);
  }
  // The target rank is a world rank: rank 2's lock names rank 3 (rank 1 of {2,3}).
  RankCursor cursor(t, 2, "rma.tgt");
  Call c;
  bool sawLock = false, sawPut = false;
  while (cursor.next(c)) {
    if (c.op == Op::WinLock) {
      EXPECT_EQ(c.peer, 3);
      sawLock = true;
    }
    if (c.op == Op::Put) {
      EXPECT_EQ(c.peer, 3);
      EXPECT_EQ(c.bytes, 128);
      sawPut = true;
    }
  }
  EXPECT_TRUE(sawLock && sawPut);
}

TEST(OneSided, LoweringPassesAndEpochsDoNotHang) {
  EXPECT_NO_THROW(lowered(kTrace));
}

TEST(OneSided, WindowCallsAreCollectiveOverTheWindowsCommunicator) {
  // Rank 3 makes no fences: its next collective on MPI_COMM_WORLD after MPI_Win_create is
  // MPI_Win_free, where the others fence.
  std::string bad = kTrace;
  const std::string fence = "event 2 MPI_Win_fence @ <1 0 {4 1}>\n  site app.c:13\n  loop 0 iter 3\n  loop 0 mem 4\n";
  ASSERT_TRUE(contains(bad, fence));
  bad.replace(bad.find(fence), fence.size(),
              "event 2 MPI_Win_fence @ <1 0 {3 1}>\n  site app.c:13\n  loop 0 iter 3\n  loop 0 mem 4\n");
  try {
    lowered(bad, "bad.tgt");
    FAIL() << "no deadlock found";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "potential deadlock")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Win_fence") || contains(msg, "MPI_Win_free")) << msg;
  } catch (const InputError& e) {
    FAIL() << e.render();
  }
}

TEST(OneSided, CBackendMakesTheCallsOnWindowsOfTheRecordedSize) {
  const Trace t = lowered(kTrace);
  const gen::Program p = gen::buildProgram(t, "rma.tgt");
  const std::string c = flat(gen::createBackend("c")->render(p, gen::GenOptions{"tracegen rma.tgt -o b.c", "b.c"}));
  EXPECT_TRUE(contains(c, "MPI_Win_create(win_memory_for(1000, 1024LL), win_bytes(1024LL), 8, MPI_INFO_NULL, "
                          "MPI_COMM_WORLD, win_slot(1000));"))
      << c;
  EXPECT_TRUE(contains(c, "MPI_Win_fence(MPI_MODE_NOPRECEDE, *win_slot(1000));")) << c;
  EXPECT_TRUE(contains(c, "MPI_Put(send_buf, msg_count(16), MPI_DOUBLE, (rank + 1) % nranks, 0, msg_count(16), MPI_DOUBLE, "
                          "*win_slot(1000));"))
      << c;
  EXPECT_TRUE(contains(c, "MPI_Get(recv_buf, msg_count(8), MPI_INT,")) << c;
  EXPECT_TRUE(contains(c, "MPI_Accumulate(send_buf, msg_count(4), MPI_DOUBLE, MPI_PROC_NULL, 0, msg_count(4), MPI_DOUBLE, "
                          "MPI_SUM, *win_slot(1000));"))
      << c;
  EXPECT_TRUE(contains(c, "MPI_Win_allocate(win_bytes(64LL), 8, MPI_INFO_NULL, comm_of(1000), &win_base, win_slot(1001));"))
      << c;
  EXPECT_TRUE(contains(c, "MPI_Win_lock(MPI_LOCK_SHARED, ")) << c;
  EXPECT_TRUE(contains(c, "MPI_MODE_NOCHECK, *win_slot(1001));")) << c;
  EXPECT_TRUE(contains(c, "MPI_Win_flush(")) << c;
  EXPECT_TRUE(contains(c, "MPI_Win_unlock_all(*win_slot(1001));")) << c;
  EXPECT_TRUE(contains(c, "MPI_Win_free(win_slot(1001));")) << c;
  EXPECT_TRUE(gen::opaqueCalls(t).empty());
}

TEST(OneSided, NcptlBackendGivesTheNearestEquivalent) {
  const Trace t = lowered(kTrace);
  const gen::Program p = gen::buildProgram(t, "rma.tgt");
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen rma.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "coNCePTuaL cannot express one-sided communication")) << n;
  EXPECT_TRUE(contains(n, "one-sided MPI_Put as a message from origin to target")) << n;
  EXPECT_TRUE(contains(n, "MPI_Win_fence as a barrier over the window's communicator")) << n;
  EXPECT_TRUE(contains(n, "SYNCHRONIZE")) << n;
  ncptl::CheckOptions co;
  co.generated = true;
  const ncptl::CheckResult r = ncptl::check(n, co);
  std::string problems;
  for (const auto& d : r.diagnostics) problems += ncptl::formatDiagnostic("b.ncptl", n, d);
  EXPECT_TRUE(r.ok()) << problems << n;
}

}  // namespace
