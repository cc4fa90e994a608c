// The nonblocking collectives of MPI-3 (MPI_Ibarrier ... MPI_Iexscan, OpKind::ICollective):
// collectives that return a request. They read and write like any event, expand with the bytes
// of their blocking forms and as request-creating calls (the waits after them complete them),
// are aligned like the blocking collectives, take part in each communicator's collective order
// at their starting call (an Ibcast met by a Barrier is a deadlock) without blocking there
// (what waits is the wait that completes them), and both backends generate them. The recorder
// side is tests/e2e/record_e2e.sh (record_nbc_4, roundtrip_nbc_4, samples/apps/nbc.c).
#include <gtest/gtest.h>

#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ncptl/Checker.h"
#include "passes/AlignCollectives.h"
#include "passes/PassManager.h"
#include "sim/Deadlock.h"
#include "tests/unit/TraceTestHelpers.h"

namespace tracegen {
namespace {

using tracegen::testing::contains;
using tracegen::testing::dataPath;

// Every nonblocking collective of the model once on 4 ranks, each completed by MPI_Wait, and
// a Waitall over two at the end.
const char* kTrace = R"(tracegen-trace 1
ranks 4
origin tracegen-record
datatype MPI_DOUBLE 8
datatype MPI_INT 4
comm 2 world (<1 0 {4 1}>)
event 0 MPI_Init @ <1 0 {4 1}>
  site nbc.c:10
event 1 MPI_Ibarrier @ <1 0 {4 1}>
  site nbc.c:11
  comm 2
event 2 MPI_Wait @ <1 0 {4 1}>
  site nbc.c:12
  request 9999
event 3 MPI_Ibcast @ <1 0 {4 1}>
  site nbc.c:13
  comm 2
  count 16
  datatype MPI_DOUBLE
  root 0
event 4 MPI_Ireduce @ <1 0 {4 1}>
  site nbc.c:14
  comm 2
  count 8
  datatype MPI_DOUBLE
  op MPI_MAX
  root 3
event 5 MPI_Iallreduce @ <1 0 {4 1}>
  site nbc.c:15
  comm 2
  count 4
  datatype MPI_INT
  op MPI_SUM
event 6 MPI_Waitall @ <1 0 {4 1}>
  site nbc.c:16
  count 3
  requests 9997 9998 9999
event 7 MPI_Iallgather @ <1 0 {4 1}>
  site nbc.c:17
  comm 2
  count 2
  datatype MPI_DOUBLE
  recvcount 2
  recvtype MPI_DOUBLE
event 8 MPI_Wait @ <1 0 {4 1}>
  site nbc.c:18
  request 9999
event 9 MPI_Igatherv @ <1 0 {4 1}>
  site nbc.c:19
  comm 2
  count 3
  datatype MPI_DOUBLE
  recvcounts 3 3 3 3
  displs 0 4 8 12
  recvtype MPI_DOUBLE
  root 0
event 10 MPI_Ialltoallv @ <1 0 {4 1}>
  site nbc.c:20
  comm 2
  datatype MPI_DOUBLE
  recvtype MPI_DOUBLE
  sendcounts 1 2 3 4
  displs 0 1 3 6
  recvcounts 1 1 1 1
  rdispls 0 1 2 3
event 11 MPI_Waitall @ <1 0 {4 1}>
  site nbc.c:21
  count 2
  requests 9998 9999
event 12 MPI_Ireduce_scatter @ <1 0 {4 1}>
  site nbc.c:22
  comm 2
  datatype MPI_DOUBLE
  op MPI_SUM
  recvcounts 2 2 2 2
event 13 MPI_Wait @ <1 0 {4 1}>
  site nbc.c:23
  request 9999
event 14 MPI_Finalize @ <1 0 {4 1}>
  site nbc.c:30
)";

Trace lowered(const std::string& name, const std::string& text) { return tracegen::testing::loweredText(text, name); }

TEST(NonblockingCollective, OpsAreCollectivesThatMakeRequests) {
  for (const char* name : {"MPI_Ibarrier", "MPI_Ibcast", "MPI_Ireduce", "MPI_Iallreduce", "MPI_Igather", "MPI_Igatherv",
                           "MPI_Iscatter", "MPI_Iscatterv", "MPI_Iallgather", "MPI_Iallgatherv", "MPI_Ialltoall",
                           "MPI_Ialltoallv", "MPI_Ireduce_scatter", "MPI_Ireduce_scatter_block", "MPI_Iscan",
                           "MPI_Iexscan", "MPI_Ialltoallw"}) {
    SCOPED_TRACE(name);
    const Op op = *opFromName(name);
    EXPECT_EQ(opInfo(op).kind, OpKind::ICollective);
    EXPECT_TRUE(createsRequest(opInfo(op).kind));
    EXPECT_TRUE(isCollective(opInfo(op).kind));
    // The blocking form: its name without the I.
    std::string blocking = std::string(name).substr(5);
    blocking[0] = static_cast<char>(blocking[0] - 'a' + 'A');
    EXPECT_EQ(std::string(opName(blockingForm(op))), "MPI_" + blocking);
    EXPECT_EQ(opInfo(blockingForm(op)).kind, OpKind::Collective);
    EXPECT_EQ(isRooted(op), isRooted(blockingForm(op)));
    EXPECT_EQ(isReduction(op), isReduction(blockingForm(op)));
  }
  EXPECT_EQ(blockingForm(Op::Bcast), Op::Bcast);
  EXPECT_EQ(blockingForm(Op::Isend), Op::Isend);
}

TEST(NonblockingCollective, ReaderRoundTrip) {
  const Trace t = readTrace(sourceFromString("nbc.tgt", kTrace));
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "event 3 MPI_Ibcast @ <1 0 {4 1}>\n  site nbc.c:13\n  comm 2\n  count 16\n  datatype "
                             "MPI_DOUBLE\n  root 0\n"))
      << text;
  const Trace again = readTrace(sourceFromString("again.tgt", text));
  EXPECT_EQ(again, t);
  EXPECT_EQ(tracegenText(again), text);
}

TEST(NonblockingCollective, CursorBytesAndRequests) {
  const Trace t = readTrace(sourceFromString("nbc.tgt", kTrace));
  for (Rank r : {0, 2}) {
    RankCursor cursor(t, r, "nbc.tgt");
    Call c;
    std::vector<Call> calls;
    while (cursor.next(c)) calls.push_back(c);
    ASSERT_EQ(calls.size(), 15u);
    EXPECT_EQ(calls[1].op, Op::Ibarrier);
    EXPECT_EQ(calls[1].bytes, 0);
    EXPECT_EQ(calls[2].completes, (std::vector<std::int64_t>{1}));  // the Ibarrier's request
    // As the blocking forms: count x size sent, recvcount x recvtype posted.
    EXPECT_EQ(calls[3].bytes, 128);
    EXPECT_EQ(calls[3].root, 0);
    EXPECT_EQ(calls[4].bytes, 64);
    EXPECT_EQ(calls[4].root, 3);
    EXPECT_EQ(calls[4].reduceOp, 1);  // MPI_MAX
    EXPECT_EQ(calls[5].bytes, 16);
    EXPECT_EQ(calls[6].completes, (std::vector<std::int64_t>{3, 4, 5}));
    EXPECT_EQ(calls[7].bytes, 16);
    EXPECT_EQ(calls[7].recvBytes, 16);
    EXPECT_EQ(calls[8].completes, (std::vector<std::int64_t>{7}));
    EXPECT_EQ(calls[9].bytes, 24);
    EXPECT_EQ(calls[11].completes, (std::vector<std::int64_t>{9, 10}));
    EXPECT_EQ(calls[13].completes, (std::vector<std::int64_t>{12}));
  }
}

TEST(NonblockingCollective, PartialCollectivesFromTwoSitesAreAligned) {
  // Rank 0 starts the Ibcast at one site, ranks 1-3 at another: one event afterwards, and the
  // waits still complete it.
  const char* text = R"(tracegen-trace 1
ranks 4
datatype MPI_DOUBLE 8
event 0 MPI_Init @ <1 0 {4 1}>
  site a.c:1
event 1 MPI_Ibcast @ <1 0 {1 0}>
  site a.c:10
  comm 2
  count 4
  datatype MPI_DOUBLE
  root 0
event 2 MPI_Ibcast @ <1 1 {3 1}>
  site a.c:20
  comm 2
  count 4
  datatype MPI_DOUBLE
  root 0
event 3 MPI_Wait @ <1 0 {4 1}>
  site a.c:30
  request 9999
event 4 MPI_Finalize @ <1 0 {4 1}>
  site a.c:40
)";
  Trace t = readTrace(sourceFromString("align.tgt", text));
  PassContext ctx;
  ctx.fileName = "align.tgt";
  auto pass = createAlignCollectivesPass();
  ctx.currentPass = std::string(pass->name());
  pass->run(t, ctx);
  ASSERT_EQ(t.events.size(), 4u);
  EXPECT_EQ(t.events[1].op, Op::Ibcast);
  EXPECT_EQ(t.events[1].ranks, RankList::all(4));
  EXPECT_EQ(ctx.stats["align-collectives"]["collectives-aligned"], 1);
  for (Rank r = 0; r < 4; ++r) {
    RankCursor cursor(t, r, "align.tgt");
    Call c;
    std::vector<Call> calls;
    while (cursor.next(c)) calls.push_back(c);
    ASSERT_EQ(calls.size(), 4u);
    EXPECT_EQ(calls[2].completes, (std::vector<std::int64_t>{1}));
  }
}

TEST(NonblockingCollective, OrderedWithBlockingCollectivesByTheirStart) {
  // ibcast-order-2: Ibcast then Barrier on rank 0, the reverse on rank 1.
  Trace t = readTraceFile(dataPath("checks/ibcast-order-2.tgt"));
  PassContext ctx;
  ctx.fileName = "ibcast-order-2.tgt";
  try {
    PassManager(defaultPipeline()).run(t, ctx);
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("potential deadlock:", 0), 0u) << msg;
    EXPECT_TRUE(contains(msg, "collectives called in different orders")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Ibcast")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Barrier")) << msg;
  }
}

TEST(NonblockingCollective, DoesNotBlockWhereItStarts) {
  // ibcast-overlap-2: rank 0 starts the Ibcast, then receives the MPI_Ssend that rank 1 makes
  // before its own Ibcast. A blocking Bcast there deadlocks; the Ibcast completes.
  Trace t = readTraceFile(dataPath("checks/ibcast-overlap-2.tgt"));
  PassContext ctx;
  ctx.fileName = "ibcast-overlap-2.tgt";
  EXPECT_NO_THROW(PassManager(defaultPipeline()).run(t, ctx));
  EXPECT_TRUE(ctx.established.has(IrProperty::CommunicationChecked));

  // The same program with MPI_Bcast (and no waits) deadlocks.
  Trace b = readTraceFile(dataPath("checks/ibcast-overlap-2.tgt"));
  for (auto& e : b.events)
    if (e.op == Op::Ibcast) e.op = Op::Bcast;
  b.events.erase(b.events.begin() + 5);
  PassContext bctx;
  bctx.fileName = "blocking.tgt";
  EXPECT_THROW(PassManager(defaultPipeline()).run(b, bctx), DeadlockError);
}

TEST(NonblockingCollective, WaitsForTheOtherMembersInTheWait) {
  // Rank 1 never starts the Ibcast that rank 0 waits for: the wait, not the start, is stuck.
  const char* text = R"(tracegen-trace 1
ranks 2
datatype MPI_DOUBLE 8
event 0 MPI_Init @ <1 0 {2 1}>
  site a.c:1
event 1 MPI_Ibcast @ <1 0 {1 0}>
  site a.c:10
  comm 2
  count 4
  datatype MPI_DOUBLE
  root 0
event 2 MPI_Wait @ <1 0 {1 0}>
  site a.c:11
  request 9999
event 3 MPI_Recv @ <1 1 {1 0}>
  site a.c:20
  comm 2
  count 1
  datatype MPI_DOUBLE
  source 0
  tag 0
event 4 MPI_Finalize @ <1 0 {2 1}>
  site a.c:40
)";
  Trace t = readTrace(sourceFromString("stuck.tgt", text));
  PassContext ctx;
  ctx.fileName = "stuck.tgt";
  try {
    PassManager(defaultPipeline()).run(t, ctx);
    FAIL() << "no error";
  } catch (const ProgramError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "MPI_Wait") || contains(msg, "MPI_Ibcast") || contains(msg, "collective")) << msg;
  }
}

TEST(NonblockingCollective, CBackendStartsThemWithRequests) {
  const Trace t = lowered("nbc.tgt", kTrace);
  const gen::Program p = gen::buildProgram(t, "nbc.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen nbc.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "MPI_Ibarrier(MPI_COMM_WORLD, new_request());")) << c;
  EXPECT_TRUE(contains(c, "MPI_Ibcast(recv_slice(), msg_count(16), MPI_DOUBLE, 0, MPI_COMM_WORLD, new_request());")) << c;
  EXPECT_TRUE(contains(c, "MPI_Ireduce(send_buf, recv_slice(), ")) << c;
  EXPECT_TRUE(contains(c, "MPI_MAX, 3, MPI_COMM_WORLD,\n              new_request());")) << c;
  EXPECT_TRUE(contains(c, "MPI_Iallreduce(send_buf, recv_slice(), ")) << c;
  EXPECT_TRUE(contains(c, "MPI_Iallgather(send_buf, ")) << c;
  // Vector forms: the counts live with the request until it completes.
  EXPECT_TRUE(contains(c, "\nint *request_ints(")) << c;  // the runtime, embedded
  EXPECT_TRUE(contains(c, "MPI_Igatherv(send_buf, ")) << c;
  EXPECT_TRUE(contains(c, "int *sendcounts = request_ints(req, 0, 4,")) << c;
  EXPECT_TRUE(contains(c, "MPI_Ialltoallv(send_buf, sendcounts, sdispls, ")) << c;
  EXPECT_TRUE(contains(c, "MPI_Ireduce_scatter(send_buf, recv_slice(), recvcounts, ")) << c;
  EXPECT_TRUE(contains(c, "MPI_Waitall(")) << c;
}

TEST(NonblockingCollective, NcptlBackendReplaysTheBlockingFormAtTheStart) {
  const Trace t = lowered("nbc.tgt", kTrace);
  const gen::Program p = gen::buildProgram(t, "nbc.tgt");
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen nbc.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "coNCePTuaL has no nonblocking collectives")) << n;
  EXPECT_TRUE(contains(n, "replayed as MPI_Bcast here")) << n;
  EXPECT_TRUE(contains(n, "SYNCHRONIZE")) << n;  // the Ibarrier
  ncptl::CheckOptions co;
  co.generated = true;
  const ncptl::CheckResult r = ncptl::check(n, co);
  std::string problems;
  for (const auto& d : r.diagnostics) problems += ncptl::formatDiagnostic("b.ncptl", n, d);
  EXPECT_TRUE(r.ok()) << problems << n;
}

}  // namespace
}  // namespace tracegen
