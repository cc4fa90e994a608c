// Matched probes (docs/trace-format.md, "Matched probes"): MPI_Mprobe/MPI_Improbe probe as
// MPI_Probe and take the message they find out of matching; MPI_Mrecv/MPI_Imrecv receive the
// oldest message the rank probed and has not received. The reader round trip, the cursor, the
// summaries, wildcard resolution (by simulation and by the recorded `matched` sender), deadlocks,
// and both backends. The recorder side is record_persist_4 and roundtrip_persist_4.
#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "gen/Backend.h"
#include "tests/unit/CompileC.h"
#include "tests/unit/TraceTestHelpers.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "passes/PassManager.h"
#include "passes/PointToPointCheck.h"
#include "sim/Deadlock.h"

using namespace tracegen;

namespace {

using tracegen::testing::contains;
using tracegen::testing::replaced;
std::vector<Call> calls(const Trace& t, Rank r) { return tracegen::testing::callsOf(t, r); }

// Rank 0 is the master: twice it probes any rank (MPI_Mprobe) and receives the message
// (MPI_Mrecv), then polls with MPI_Improbe (two failed polls folded in) and receives with
// MPI_Imrecv and MPI_Wait; ranks 1 and 2 send it one message with tag 7 and one with tag 8 each.
// Every rank then probes MPI_PROC_NULL and receives MPI_MESSAGE_NO_PROC.
const char* kMaster = R"(tracegen-trace 1
ranks 3
origin recorded
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {3 1}>)
event 0 MPI_Init @ <1 0 {3 1}>
event 1 MPI_Mprobe @ <1 0 {1 0}>
  loop 0 iter 2
  loop 0 mem 2
  comm 2
  source any
  tag 7
event 2 MPI_Mrecv @ <1 0 {1 0}>
  count 10
  datatype MPI_DOUBLE
event 3 MPI_Improbe @ <1 0 {1 0}>
  loop 0 iter 2
  loop 0 mem 3
  comm 2
  count 1
  source any
  tag 8
  failed 2 0
event 4 MPI_Imrecv @ <1 0 {1 0}>
  count 20
  datatype MPI_DOUBLE
event 5 MPI_Wait @ <1 0 {1 0}>
  request 9999
event 6 MPI_Send @ <1 1 {2 1}>
  comm 2
  count 10
  datatype MPI_DOUBLE
  dest 0
  tag 7
event 7 MPI_Send @ <1 1 {2 1}>
  comm 2
  count 20
  datatype MPI_DOUBLE
  dest 0
  tag 8
event 8 MPI_Mprobe @ <1 0 {3 1}>
  comm 2
  source null
  tag 0
event 9 MPI_Mrecv @ <1 0 {3 1}>
  count 0
  datatype MPI_DOUBLE
event 10 MPI_Finalize @ <1 0 {3 1}>
)";

using tracegen::testing::expectCompilesUnderBothMpis;

Trace read(const std::string& text, const std::string& name = "master.tgt") { return tracegen::testing::readText(text, name); }

Trace lowered(const std::string& text, const std::string& name = "master.tgt") { return tracegen::testing::loweredText(text, name); }

TEST(MatchedProbe, OpsAreModelledAndRoundTrip) {
  EXPECT_EQ(opInfo(Op::Mprobe).kind, OpKind::MatchedProbe);
  EXPECT_EQ(opInfo(Op::Improbe).kind, OpKind::MatchedProbe);
  EXPECT_EQ(opInfo(Op::Mrecv).kind, OpKind::MatchedRecv);
  EXPECT_EQ(opInfo(Op::Imrecv).kind, OpKind::MatchedRecv);
  const Trace t = read(kMaster);
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "MPI_Mprobe @ <1 0 {1 0}>\n  loop 0 iter 2\n  loop 0 mem 2\n  comm 2\n  source any\n  tag 7\n")) << text;
  EXPECT_TRUE(contains(text, "MPI_Mrecv @ <1 0 {1 0}>\n  count 10\n  datatype MPI_DOUBLE\n")) << text;
  EXPECT_TRUE(contains(text, "  count 1\n  source any\n  tag 8\n  failed 2 0\n")) << text;
  EXPECT_EQ(read(text, "again.tgt"), t);
}

TEST(MatchedProbe, CursorReceivesTheProbedMessage) {
  const Trace t = read(kMaster);
  const std::vector<Call> c = calls(t, 0);
  // Init, 2 x (Mprobe, Mrecv), 2 x (Improbe, Imrecv, Wait), Mprobe, Mrecv, Finalize.
  ASSERT_EQ(c.size(), 1u + 4 + 6 + 2 + 1);
  EXPECT_EQ(c[1].op, Op::Mprobe);
  EXPECT_EQ(c[1].peer, kAnySource);
  EXPECT_EQ(c[2].op, Op::Mrecv);
  EXPECT_EQ(c[2].probe, c[1].index);
  EXPECT_EQ(c[2].peer, kAnySource);  // the probe's source: a wildcard until resolved
  EXPECT_EQ(c[2].tag, 7);
  EXPECT_EQ(c[2].recvBytes, 80);
  EXPECT_EQ(c[5].op, Op::Improbe);
  EXPECT_EQ(c[5].failedPolls, 2);
  EXPECT_EQ(c[6].op, Op::Imrecv);
  EXPECT_EQ(c[6].probe, c[5].index);
  EXPECT_EQ(c[6].recvBytes, 160);
  EXPECT_EQ(c[7].completes, std::vector<std::int64_t>{c[6].index});  // MPI_Imrecv made the request
  EXPECT_EQ(c[11].peer, kProcNull);
  EXPECT_EQ(c[12].op, Op::Mrecv);
  EXPECT_EQ(c[12].peer, kProcNull);  // MPI_MESSAGE_NO_PROC
  EXPECT_EQ(c[12].recvBytes, 0);
}

TEST(MatchedProbe, SummaryCountsPollsAndBytes) {
  const std::vector<RankSummary> s = summarizeRanks(read(kMaster), "master.tgt");
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].ops.at("MPI_Mprobe"), 3);
  EXPECT_EQ(s[0].ops.at("MPI_Improbe"), 2 + 2);  // the two successes and the folded failed polls
  EXPECT_EQ(s[0].ops.at("MPI_Mrecv"), 3);
  EXPECT_EQ(s[0].ops.at("MPI_Imrecv"), 2);
  EXPECT_EQ(s[0].bytesReceived, 2 * 80 + 2 * 160);
  EXPECT_EQ(s[1].bytesSent, 80 + 160);
  EXPECT_EQ(s[1].bytesReceived, 0);
}

TEST(MatchedProbe, WildcardProbesAreResolvedAndReceivesMatch) {
  const Trace t = lowered(kMaster);
  const std::vector<Call> c = calls(t, 0);
  // The two MPI_Mprobe of the loop take one message of each worker; so do the MPI_Improbe.
  std::vector<Rank> mprobe, improbe;
  for (const Call& x : c) {
    if (x.op == Op::Mprobe && x.peer != kProcNull) mprobe.push_back(x.peer);
    if (x.op == Op::Improbe) improbe.push_back(x.peer);
    if (x.op == Op::Mrecv && x.peer != kProcNull) {
      EXPECT_TRUE(x.peer == 1 || x.peer == 2) << x.peer;
    }
  }
  std::sort(mprobe.begin(), mprobe.end());
  std::sort(improbe.begin(), improbe.end());
  EXPECT_EQ(mprobe, (std::vector<Rank>{1, 2}));
  EXPECT_EQ(improbe, (std::vector<Rank>{1, 2}));
  EXPECT_NO_THROW(verifyPointToPoint(t, "master.tgt"));
}

TEST(MatchedProbe, RecordedSendersAreFollowed) {
  // The recording saw rank 2's message first, then rank 1's (offsets (2 - 0 + 3) mod 3 = 2, 1).
  Trace t = read(replaced(kMaster, "  source any\n  tag 7\n", "  source any\n  tag 7\n  matched 2 1\n"));
  PassContext ctx;
  ctx.fileName = "master.tgt";
  PassManager(defaultPipeline()).run(t, ctx);
  std::vector<Rank> mprobe;
  for (const Call& x : calls(t, 0))
    if (x.op == Op::Mprobe && x.peer != kProcNull) mprobe.push_back(x.peer);
  EXPECT_EQ(mprobe, (std::vector<Rank>{2, 1}));
}

TEST(MatchedProbe, AProbedMessageIsNotAnotherReceivesDeadlock) {
  // Rank 1 probes rank 0's one message, then receives it with MPI_Recv instead of MPI_Mrecv:
  // the probe took it, so the MPI_Recv waits for ever.
  const char* text = R"(tracegen-trace 1
ranks 2
origin recorded
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {2 1}>)
event 0 MPI_Init @ <1 0 {2 1}>
event 1 MPI_Send @ <1 0 {1 0}>
  comm 2
  count 4
  datatype MPI_DOUBLE
  dest 1
  tag 3
event 2 MPI_Mprobe @ <1 1 {1 0}>
  comm 2
  source 0
  tag 3
event 3 MPI_Recv @ <1 1 {1 0}>
  comm 2
  count 4
  datatype MPI_DOUBLE
  source 0
  tag 3
event 4 MPI_Finalize @ <1 0 {2 1}>
)";
  try {
    lowered(text, "taken.tgt");
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "rank 1 waits in event 3 (MPI_Recv")) << msg;
  }
  // With MPI_Mrecv it completes.
  const std::string fixed = replaced(text, "event 3 MPI_Recv @ <1 1 {1 0}>\n  comm 2\n  count 4\n  datatype MPI_DOUBLE\n  source 0\n  tag 3\n",
                                     "event 3 MPI_Mrecv @ <1 1 {1 0}>\n  count 4\n  datatype MPI_DOUBLE\n");
  EXPECT_NO_THROW(lowered(fixed, "fixed.tgt"));
}

TEST(MatchedProbe, BothBackendsReplayThem) {
  const Trace t = lowered(kMaster);
  const gen::Program p = gen::buildProgram(t, "master.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen master.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "new_message(), &status);")) << c;
  EXPECT_TRUE(contains(c, "MPI_Mrecv(recv_buf, ")) << c;
  EXPECT_TRUE(contains(c, "oldest_message(), &status);")) << c;
  EXPECT_TRUE(contains(c, "MPI_Improbe(")) << c;
  EXPECT_TRUE(contains(c, "while (!flag);")) << c;
  EXPECT_TRUE(contains(c, "MPI_Imrecv(recv_slice(), ")) << c;
  EXPECT_TRUE(contains(c, "MPI_Mprobe(MPI_PROC_NULL, ")) << c;
  EXPECT_TRUE(contains(c, "\nMPI_Message *oldest_message(void)\n{")) << c;  // the runtime, embedded
  expectCompilesUnderBothMpis(c, "mprobe");
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen master.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "coNCePTuaL has no matched probes")) << n;
  EXPECT_TRUE(contains(n, "RECEIVE")) << n;
  EXPECT_TRUE(contains(n, "ASYNCHRONOUSLY RECEIVE")) << n;
}

}  // namespace
