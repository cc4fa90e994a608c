// Persistent point-to-point requests (docs/trace-format.md, "Persistent requests"):
// MPI_Send_init/MPI_Recv_init make a request, MPI_Start/MPI_Startall activate it (named by the
// recency offset of its latest creation) and count as request-creating calls, the waits
// complete the activation, MPI_Request_free forgets the request. The reader round trip, the
// cursor's calls and bytes, the summaries, matching and deadlocks in check-communication, and
// the C and coNCePTuaL backends. The recorder side is record_persist_4, record_persist_f_4 and
// the round trips in tests/CMakeLists.txt.
#include <gtest/gtest.h>

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

// Two ranks exchange a halo with persistent requests three times: a receive and a send each,
// started together by MPI_Startall (the first time naming the init calls, later the previous
// Startall's requests: the same offsets), completed by MPI_Waitall; then a larger message from
// rank 0 to rank 1, started by MPI_Start and completed by MPI_Wait, twice; then every request
// is freed.
const char* kHalo = R"(tracegen-trace 1
ranks 2
origin recorded
datatype MPI_DOUBLE 8
datatype MPI_INT 4
comm 2 world (<1 0 {2 1}>)
event 0 MPI_Init @ <1 0 {2 1}>
  site app.c:10
event 1 MPI_Recv_init @ <1 0 {2 1}>
  site app.c:12
  comm 2
  count 100
  datatype MPI_DOUBLE
  source rel 1
  tag 1
event 2 MPI_Send_init @ <1 0 {2 1}>
  site app.c:13
  comm 2
  count 100
  datatype MPI_DOUBLE
  dest rel 1
  tag 1
event 3 MPI_Startall @ <1 0 {2 1}>
  site app.c:16
  loop 0 iter 3
  loop 0 mem 2
  count 2
  requests 9998 9999
event 4 MPI_Waitall @ <1 0 {2 1}>
  site app.c:17
  count 2
  requests 9998 9999
event 5 MPI_Send_init @ <1 0 {1 0}>
  site app.c:20
  comm 2
  count 1000
  datatype MPI_INT
  dest 1
  tag 2
event 6 MPI_Recv_init @ <1 1 {1 0}>
  site app.c:21
  comm 2
  count 1000
  datatype MPI_INT
  source 0
  tag 2
event 7 MPI_Start @ <1 0 {2 1}>
  site app.c:23
  loop 0 iter 2
  loop 0 mem 2
  request 9999
event 8 MPI_Wait @ <1 0 {2 1}>
  site app.c:24
  request 9999
event 9 MPI_Request_free @ <1 0 {2 1}>
  site app.c:27
  request 9997
event 10 MPI_Request_free @ <1 0 {2 1}>
  site app.c:27
  request 9998
event 11 MPI_Request_free @ <1 0 {2 1}>
  site app.c:28
  request 9999
event 12 MPI_Finalize @ <1 0 {2 1}>
  site app.c:30
)";

using tracegen::testing::expectCompilesUnderBothMpis;

Trace read(const std::string& text, const std::string& name = "persist.tgt") { return tracegen::testing::readText(text, name); }

Trace lowered(const std::string& text, const std::string& name = "persist.tgt") { return tracegen::testing::loweredText(text, name); }

TEST(Persistent, OpsAreModelledAndRoundTrip) {
  EXPECT_EQ(opInfo(Op::Start).kind, OpKind::Start);
  EXPECT_EQ(opInfo(Op::Startall).kind, OpKind::Start);
  EXPECT_EQ(opInfo(Op::RequestFree).kind, OpKind::RequestFree);
  EXPECT_FALSE(isOpaque(OpKind::Start));
  const Trace t = read(kHalo);
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "MPI_Startall @ <1 0 {2 1}>\n  site app.c:16\n  loop 0 iter 3\n  loop 0 mem 2\n  count 2\n"
                             "  requests 9998 9999\n"))
      << text;
  EXPECT_TRUE(contains(text, "MPI_Start @ <1 0 {2 1}>\n  site app.c:23\n  loop 0 iter 2\n  loop 0 mem 2\n  request 9999\n"))
      << text;
  EXPECT_TRUE(contains(text, "MPI_Request_free @ <1 0 {2 1}>\n  site app.c:27\n  request 9997\n")) << text;
  EXPECT_EQ(read(text, "again.tgt"), t);
}

TEST(Persistent, CursorStartsTheInitCallsMessages) {
  const Trace t = read(kHalo);
  RankCursor cursor(t, 1);
  Call c;
  std::vector<Call> calls;
  while (cursor.next(c)) calls.push_back(c);
  // Init, 2 inits, 3 x (Startall, Waitall), 1 init, 2 x (Start, Wait), 3 frees, Finalize.
  ASSERT_EQ(calls.size(), 1u + 2 + 6 + 1 + 4 + 3 + 1);
  const Call& first = calls[3];
  EXPECT_EQ(first.op, Op::Startall);
  ASSERT_EQ(first.started.size(), 2u);
  EXPECT_FALSE(first.started[0].send);
  EXPECT_EQ(first.started[0].init, 1);
  EXPECT_EQ(first.started[0].peer, 0);
  EXPECT_EQ(first.started[0].tag, 1);
  EXPECT_EQ(first.started[0].bytes, 800);
  EXPECT_TRUE(first.started[1].send);
  EXPECT_EQ(first.started[1].init, 2);
  EXPECT_EQ(first.bytes, 800);
  EXPECT_EQ(first.recvBytes, 800);
  EXPECT_EQ(first.started[0].key, first.index);
  EXPECT_EQ(first.started[1].key, startedRequestKey(first.index, 1));
  // The waits complete the activations, not the init calls.
  EXPECT_EQ(calls[4].completes, (std::vector<std::int64_t>{first.started[0].key, first.started[1].key}));
  // Later Startalls name the previous one's requests with the same offsets: the same inits.
  const Call& third = calls[7];
  ASSERT_EQ(third.started.size(), 2u);
  EXPECT_EQ(third.started[0].init, 1);
  EXPECT_EQ(third.started[1].init, 2);
  EXPECT_EQ(calls[8].completes, (std::vector<std::int64_t>{third.started[0].key, third.started[1].key}));
  // Rank 1's MPI_Start receives 4000 bytes from rank 0; MPI_Start takes the request's fields.
  const Call& start = calls[10];
  EXPECT_EQ(start.op, Op::Start);
  ASSERT_EQ(start.started.size(), 1u);
  EXPECT_EQ(start.started[0].init, 9);
  EXPECT_EQ(start.peer, 0);
  EXPECT_EQ(start.tag, 2);
  EXPECT_EQ(start.recvBytes, 4000);
  EXPECT_EQ(start.bytes, 0);
  EXPECT_EQ(calls[11].completes, std::vector<std::int64_t>{start.index});
  EXPECT_EQ(calls[12].started.at(0).init, 9);
  EXPECT_TRUE(calls[14].started.empty());  // MPI_Request_free starts nothing
}

TEST(Persistent, SummaryCountsBytesPerStart) {
  const Trace t = read(kHalo);
  const std::vector<RankSummary> s = summarizeRanks(t, "persist.tgt");
  ASSERT_EQ(s.size(), 2u);
  for (const RankSummary& r : s) {
    EXPECT_EQ(r.ops.at("MPI_Startall"), 3);
    EXPECT_EQ(r.ops.at("MPI_Start"), 2);
    EXPECT_EQ(r.ops.at("MPI_Request_free"), 3);
    EXPECT_EQ(r.ops.at("MPI_Send_init") + r.ops.at("MPI_Recv_init"), 3);
  }
  // The halo: 3 x 800 bytes each way; the init calls move nothing.
  EXPECT_EQ(s[0].bytesSent, 3 * 800 + 2 * 4000);
  EXPECT_EQ(s[0].bytesReceived, 3 * 800);
  EXPECT_EQ(s[1].bytesSent, 3 * 800);
  EXPECT_EQ(s[1].bytesReceived, 3 * 800 + 2 * 4000);
}

TEST(Persistent, AStartNamingNoPersistentRequestIsAnInputError) {
  // The second Startall names the init calls again (per iteration: 9998 9999, then 9996 9997),
  // which the first one started since.
  const std::string text =
      replaced(kHalo, "  count 2\n  requests 9998 9999\nevent 4", "  count 2\n  requests 9998 9999 9996 9997\nevent 4");
  const Trace t = read(text);
  RankCursor cursor(t, 0, "persist.tgt");
  Call c;
  try {
    while (cursor.next(c)) {
    }
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 23);
    EXPECT_TRUE(contains(e.message(), "names no persistent request")) << e.message();
  }
}

TEST(Persistent, StartedReceivesMatchSendsInCheckCommunication) {
  EXPECT_NO_THROW(lowered(kHalo));
}

TEST(Persistent, DeadlockThroughPersistentRequestsIsFound) {
  // Rank 1 waits for its started receive before it sends; rank 0 waits for its receive, whose
  // sender is rank 1, before it starts its send: neither can go on.
  const char* text = R"(tracegen-trace 1
ranks 2
origin recorded
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {2 1}>)
event 0 MPI_Init @ <1 0 {2 1}>
event 1 MPI_Recv_init @ <1 0 {2 1}>
  comm 2
  count 10
  datatype MPI_DOUBLE
  source rel 1
  tag 5
event 2 MPI_Send_init @ <1 0 {2 1}>
  comm 2
  count 10
  datatype MPI_DOUBLE
  dest rel 1
  tag 5
event 3 MPI_Start @ <1 0 {2 1}>
  request 9998
event 4 MPI_Wait @ <1 0 {2 1}>
  request 9999
event 5 MPI_Start @ <1 0 {2 1}>
  request 9998
event 6 MPI_Wait @ <1 0 {2 1}>
  request 9999
event 7 MPI_Finalize @ <1 0 {2 1}>
)";
  try {
    lowered(text, "deadlock.tgt");
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "potential deadlock")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Wait")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Recv_init")) << msg;  // the receive the wait waits for
  }
  // Starting the send first completes.
  const std::string fixed = replaced(replaced(text, "event 3 MPI_Start @ <1 0 {2 1}>\n  request 9998",
                                              "event 3 MPI_Start @ <1 0 {2 1}>\n  request 9999"),
                                     "event 5 MPI_Start @ <1 0 {2 1}>\n  request 9998",
                                     "event 5 MPI_Start @ <1 0 {2 1}>\n  request 9997");
  EXPECT_NO_THROW(lowered(fixed, "fixed.tgt"));
}

TEST(Persistent, UnmatchedStartedSendIsReported) {
  // Rank 0 starts its big send twice, rank 1 its receive once.
  const std::string text = replaced(kHalo, "event 7 MPI_Start @ <1 0 {2 1}>\n  site app.c:23\n  loop 0 iter 2",
                                    "event 7 MPI_Start @ <1 0 {2 1}>\n  site app.c:23\n  loop 0 iter 2 @ <1 0 {1 0}>\n"
                                    "  loop 0 iter 1 @ <1 1 {1 0}>");
  const Trace t = read(text, "unbalanced.tgt");
  try {
    verifyPointToPoint(t, "unbalanced.tgt");
    FAIL() << "no error";
  } catch (const InputError& e) {
    // The halo's three and the big message's two, against three and one.
    EXPECT_TRUE(contains(e.message(), "rank 0 sends 5 messages to rank 1 (first in event 3, MPI_Startall)")) << e.message();
    EXPECT_TRUE(contains(e.message(), "rank 1 posts 4 receives from rank 0 (first in event 3, MPI_Startall)")) << e.message();
  }
  EXPECT_NO_THROW(verifyPointToPoint(read(kHalo), "persist.tgt"));
}

TEST(Persistent, WildcardPersistentReceiveIsMatchedAndKeepsItsWildcard) {
  // Rank 0 starts one receive from MPI_ANY_SOURCE twice; ranks 1 and 2 send it one message each.
  const char* text = R"(tracegen-trace 1
ranks 3
origin recorded
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {3 1}>)
event 0 MPI_Init @ <1 0 {3 1}>
event 1 MPI_Recv_init @ <1 0 {1 0}>
  comm 2
  count 10
  datatype MPI_DOUBLE
  source any
  tag 4
event 2 MPI_Start @ <1 0 {1 0}>
  loop 0 iter 2
  loop 0 mem 2
  request 9999
event 3 MPI_Wait @ <1 0 {1 0}>
  request 9999
  matched 2 1
event 4 MPI_Send @ <1 1 {2 1}>
  comm 2
  count 10
  datatype MPI_DOUBLE
  dest 0
  tag 4
event 5 MPI_Finalize @ <1 0 {3 1}>
)";
  const Trace t = lowered(text, "wild.tgt");
  EXPECT_EQ(t.events[1].param(Param::Source)->groups.at(0).values, std::vector<std::int64_t>{kAnySource});
  EXPECT_NO_THROW(verifyPointToPoint(t, "wild.tgt"));
  const std::vector<RankSummary> s = summarizeRanks(t, "wild.tgt");
  EXPECT_EQ(s[0].bytesReceived, 160);
  const gen::Program p = gen::buildProgram(t, "wild.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen wild.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "MPI_ANY_SOURCE")) << c;
  // A third start finds no sender: the simulation reports the deadlock.
  try {
    lowered(replaced(text, "loop 0 iter 2\n", "loop 0 iter 3\n"), "wild3.tgt");
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    EXPECT_TRUE(contains(e.what(), "rank 0 waits in event 3 (MPI_Wait")) << e.what();
  }
}

TEST(Persistent, BothBackendsReplayTheStarts) {
  const Trace t = lowered(kHalo);
  const gen::Program p = gen::buildProgram(t, "persist.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen persist.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "MPI_Recv_init(recv_slice(), msg_count(100), MPI_DOUBLE")) << c;
  EXPECT_TRUE(contains(c, "MPI_Startall(2, requests);")) << c;
  EXPECT_TRUE(contains(c, "const int recency[2] = { 2, 1 };")) << c;
  EXPECT_TRUE(contains(c, "MPI_Start(start_request(1));")) << c;
  EXPECT_TRUE(contains(c, "MPI_Request_free(recent_request(3));")) << c;
  EXPECT_TRUE(contains(c, "\nMPI_Request *start_request(int k)\n{")) << c;  // the runtime, embedded
  expectCompilesUnderBothMpis(c, "persist");
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen persist.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "coNCePTuaL has no persistent requests")) << n;
  EXPECT_TRUE(contains(n, "ASYNCHRONOUSLY SEND")) << n;
  EXPECT_TRUE(contains(n, "ASYNCHRONOUSLY RECEIVE")) << n;
  EXPECT_TRUE(contains(n, "AWAIT COMPLETION")) << n;
}

}  // namespace
