// The neighbourhood collectives (MPI_Neighbor_* and MPI_Ineighbor_*): collectives of a topology
// communicator whose blocks go to the rank's destinations and come from its sources. They read
// and write like any event; the cursor finds each rank's neighbours from the topology
// constructor it made (Cartesian: per dimension the source then the destination of
// MPI_Cart_shift, MPI_PROC_NULL beyond a non-periodic border; distributed graphs: the sources
// and destinations as given) and counts the bytes of the blocks to and from real neighbours;
// the collective-order check knows them as collectives of their communicator; both backends
// generate them. The recorder side is samples/apps/neighbor.c and neighbor_f.f90
// (record_neighbor_4, roundtrip_neighbor_4, record_neighbor_f_4, roundtrip_neighbor_f_4).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ncptl/Checker.h"
#include "passes/PassManager.h"
#include "sim/Deadlock.h"
#include "tests/unit/CompileC.h"
#include "tests/unit/TraceTestHelpers.h"

namespace tracegen {
namespace {

using testing::contains;

// Six ranks: a 2 x 3 grid periodic in the first dimension only (comm 1000), the same grid
// periodic in both (comm 1001), and a ring made with MPI_Dist_graph_create_adjacent whose
// sources are the previous two ranks and destinations the next two (comm 1002).
const char* kTrace = R"(tracegen-trace 1
ranks 6
origin tracegen-record
datatype MPI_INT 4
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {6 1}>)
comm 1000 cart (<1 0 {6 1}>)
comm 1001 cart (<1 0 {6 1}>)
comm 1002 dist_graph (<1 0 {6 1}>)
event 0 MPI_Init @ <1 0 {6 1}>
  site n.c:10
event 1 MPI_Cart_create @ <1 0 {6 1}>
  site n.c:11
  comm 2
  count 2
  newcomm 1000
  dims 2 3
  periods 1 0
  reorder 0
event 2 MPI_Cart_create @ <1 0 {6 1}>
  site n.c:12
  comm 2
  count 2
  newcomm 1001
  dims 2 3
  periods 1 1
  reorder 0
event 3 MPI_Dist_graph_create_adjacent @ <1 0 {6 1}>
  site n.c:13
  comm 2
  count 2
  recvcount 2
  newcomm 1002
  reorder 0
  sources 5 4 @ <1 0 {1 0}>
  sources 0 5 @ <1 1 {1 0}>
  sources 1 0 @ <1 2 {1 0}>
  sources 2 1 @ <1 3 {1 0}>
  sources 3 2 @ <1 4 {1 0}>
  sources 4 3 @ <1 5 {1 0}>
  destinations 1 2 @ <1 0 {1 0}>
  destinations 2 3 @ <1 1 {1 0}>
  destinations 3 4 @ <1 2 {1 0}>
  destinations 4 5 @ <1 3 {1 0}>
  destinations 5 0 @ <1 4 {1 0}>
  destinations 0 1 @ <1 5 {1 0}>
event 4 MPI_Neighbor_alltoall @ <1 0 {6 1}>
  site n.c:20
  comm 1000
  count 4
  datatype MPI_DOUBLE
  recvcount 4
  recvtype MPI_DOUBLE
event 5 MPI_Neighbor_allgather @ <1 0 {6 1}>
  site n.c:21
  comm 1001
  count 1
  datatype MPI_INT
  recvcount 1
  recvtype MPI_INT
event 6 MPI_Neighbor_allgatherv @ <1 0 {6 1}>
  site n.c:22
  comm 1000
  count 2
  datatype MPI_DOUBLE
  recvtype MPI_DOUBLE
  recvcounts 2 2 2 2
event 7 MPI_Ineighbor_alltoallw @ <1 0 {6 1}>
  site n.c:23
  comm 1000
  recvcounts 1 1 2 2
  sendcounts 1 1 2 2
  sendtypes MPI_DOUBLE MPI_DOUBLE MPI_INT MPI_INT
  recvtypes MPI_DOUBLE MPI_DOUBLE MPI_INT MPI_INT
event 8 MPI_Wait @ <1 0 {6 1}>
  site n.c:24
  request 9999
event 9 MPI_Neighbor_alltoallv @ <1 0 {6 1}>
  site n.c:25
  comm 1002
  datatype MPI_INT
  recvtype MPI_INT
  recvcounts 5 7
  sendcounts 5 7
event 10 MPI_Finalize @ <1 0 {6 1}>
  site n.c:30
)";

std::vector<Call> callsOf(const Trace& t, Rank r, RankCursor** keep = nullptr) {
  static std::vector<std::unique_ptr<RankCursor>> cursors;
  cursors.push_back(std::make_unique<RankCursor>(t, r, "n.tgt"));
  Call c;
  std::vector<Call> calls;
  while (cursors.back()->next(c)) calls.push_back(c);
  if (keep) *keep = cursors.back().get();
  return calls;
}

Trace lowered(const std::string& text) { return testing::loweredText(text, "n.tgt"); }

TEST(NeighborCollective, ModelledAsCollectives) {
  for (Op op : {Op::NeighborAllgather, Op::NeighborAllgatherv, Op::NeighborAlltoall, Op::NeighborAlltoallv,
                Op::NeighborAlltoallw}) {
    EXPECT_EQ(opInfo(op).kind, OpKind::Collective) << opName(op);
    EXPECT_TRUE(isNeighborCollective(op));
  }
  EXPECT_EQ(opInfo(Op::IneighborAlltoallw).kind, OpKind::ICollective);
  EXPECT_EQ(blockingForm(Op::IneighborAllgatherv), Op::NeighborAllgatherv);
  EXPECT_EQ(opFromName("MPI_Ineighbor_alltoall"), Op::IneighborAlltoall);
  EXPECT_TRUE(neighborOutVector(Op::IneighborAlltoallw, Param::SendTypes));
  EXPECT_FALSE(neighborOutVector(Op::NeighborAllgatherv, Param::RecvCounts));
  EXPECT_FALSE(isNeighborCollective(Op::Alltoallv));
}

TEST(NeighborCollective, ReaderRoundTrip) {
  const Trace t = readTrace(sourceFromString("n.tgt", kTrace));
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "MPI_Ineighbor_alltoallw @")) << text;
  EXPECT_TRUE(contains(text, "  sendtypes MPI_DOUBLE MPI_DOUBLE MPI_INT MPI_INT\n")) << text;
  const Trace again = readTrace(sourceFromString("again.tgt", text));
  EXPECT_EQ(again, t);
  EXPECT_EQ(tracegenText(again), text);
}

TEST(NeighborCollective, CartesianNeighboursNonPeriodicBorder) {
  const Trace t = readTrace(sourceFromString("n.tgt", kTrace));
  RankCursor* cur = nullptr;
  // Rank 0 is (0, 0): the first dimension wraps to rank 3 both ways, the second has
  // MPI_PROC_NULL below and rank 1 above.
  std::vector<Call> calls = callsOf(t, 0, &cur);
  ASSERT_EQ(calls.size(), 11u);
  ASSERT_NE(cur->neighbourSources(1000), nullptr);
  EXPECT_EQ(*cur->neighbourSources(1000), (std::vector<Rank>{3, 3, kProcNull, 1}));
  EXPECT_EQ(*cur->neighbourDestinations(1000), (std::vector<Rank>{3, 3, kProcNull, 1}));
  EXPECT_EQ(calls[4].bytes, 3 * 4 * 8);  // three real neighbours, 4 doubles each
  EXPECT_EQ(calls[4].recvBytes, 3 * 4 * 8);
  EXPECT_EQ(calls[6].bytes, 3 * 2 * 8);
  EXPECT_EQ(calls[6].recvBytes, 3 * 2 * 8);  // the block of the MPI_PROC_NULL source is not received
  EXPECT_EQ(calls[7].bytes, 8 + 8 + 2 * 4);        // per-neighbour types
  EXPECT_EQ(calls[8].completes, (std::vector<std::int64_t>{7}));
  // Rank 4 is (1, 1): all four neighbours are real.
  calls = callsOf(t, 4, &cur);
  EXPECT_EQ(*cur->neighbourSources(1000), (std::vector<Rank>{1, 1, 3, 5}));
  EXPECT_EQ(calls[4].bytes, 4 * 4 * 8);
  // Rank 5 is (1, 2): MPI_PROC_NULL above.
  calls = callsOf(t, 5, &cur);
  EXPECT_EQ(*cur->neighbourSources(1000), (std::vector<Rank>{2, 2, 4, kProcNull}));
}

TEST(NeighborCollective, CartesianNeighboursPeriodic) {
  const Trace t = readTrace(sourceFromString("n.tgt", kTrace));
  RankCursor* cur = nullptr;
  std::vector<Call> calls = callsOf(t, 0, &cur);
  EXPECT_EQ(*cur->neighbourSources(1001), (std::vector<Rank>{3, 3, 2, 1}));
  EXPECT_EQ(calls[5].bytes, 4 * 4);
  EXPECT_EQ(calls[5].recvBytes, 4 * 4);
  calls = callsOf(t, 5, &cur);
  EXPECT_EQ(*cur->neighbourSources(1001), (std::vector<Rank>{2, 2, 4, 3}));
}

TEST(NeighborCollective, DistributedGraphNeighboursInTheGivenOrder) {
  const Trace t = readTrace(sourceFromString("n.tgt", kTrace));
  RankCursor* cur = nullptr;
  std::vector<Call> calls = callsOf(t, 4, &cur);
  EXPECT_EQ(*cur->neighbourSources(1002), (std::vector<Rank>{3, 2}));
  EXPECT_EQ(*cur->neighbourDestinations(1002), (std::vector<Rank>{5, 0}));
  EXPECT_EQ(calls[9].bytes, (5 + 7) * 4);  // one count per destination
  EXPECT_EQ(calls[9].recvBytes, (5 + 7) * 4);
}

TEST(NeighborCollective, NoTopologyIsAnInputError) {
  std::string text = kTrace;
  text.replace(text.find("comm 1000\n  count 4"), 9, "comm 2");
  const Trace t = readTrace(sourceFromString("n.tgt", text));
  try {
    callsOf(t, 0);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.message(), "has no topology tracegen knows")) << e.message();
  }
}

TEST(NeighborCollective, OrderPerCommunicatorDeadlock) {
  // Rank 0 calls MPI_Neighbor_alltoall then MPI_Neighbor_allgather on the ring, rank 1 the
  // reverse: the collectives of one communicator in different orders.
  const char* text = R"(tracegen-trace 1
ranks 2
origin tracegen-record
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {2 1}>)
comm 1000 cart (<1 0 {2 1}>)
event 0 MPI_Init @ <1 0 {2 1}>
  site o.c:1
event 1 MPI_Cart_create @ <1 0 {2 1}>
  site o.c:2
  comm 2
  count 1
  newcomm 1000
  dims 2
  periods 1
  reorder 0
event 2 MPI_Neighbor_alltoall @ <1 0 {1 0}>
  site o.c:3
  comm 1000
  count 1
  datatype MPI_DOUBLE
  recvcount 1
  recvtype MPI_DOUBLE
event 3 MPI_Neighbor_allgather @ <1 0 {2 1}>
  site o.c:4
  comm 1000
  count 1
  datatype MPI_DOUBLE
  recvcount 1
  recvtype MPI_DOUBLE
event 4 MPI_Neighbor_alltoall @ <1 1 {1 0}>
  site o.c:5
  comm 1000
  count 1
  datatype MPI_DOUBLE
  recvcount 1
  recvtype MPI_DOUBLE
event 5 MPI_Finalize @ <1 0 {2 1}>
  site o.c:6
)";
  Trace t = readTrace(sourceFromString("o.tgt", text));
  PassContext ctx;
  ctx.fileName = "o.tgt";
  try {
    PassManager(defaultPipeline()).run(t, ctx);
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("potential deadlock:", 0), 0u) << msg;
    EXPECT_TRUE(contains(msg, "collectives called in different orders")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Neighbor_alltoall")) << msg;
    EXPECT_TRUE(contains(msg, "MPI_Neighbor_allgather")) << msg;
  }
}

TEST(NeighborCollective, BothBackends) {
  const Trace t = lowered(kTrace);
  const gen::Program p = gen::buildProgram(t, "n.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen n.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "MPI_Neighbor_alltoall(send_buf, ")) << c;
  EXPECT_TRUE(contains(c, "MPI_Neighbor_allgatherv(send_buf, ")) << c;
  EXPECT_TRUE(contains(c, "MPI_Aint *sdispls = request_aints(req, 0, 4);")) << c;
  EXPECT_TRUE(contains(c, "const int sendcounts[2] = {")) << c;  // the ring's two destinations
  EXPECT_TRUE(contains(c, "MPI_Neighbor_alltoallv(send_buf, sendcounts, sdispls, MPI_INT,")) << c;
  testing::expectCompilesUnderBothMpis(c, "neighbor");
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen n.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "its blocks as messages to and from each neighbour")) << n;
  // Rank 0's block to rank 1 on the grid: 4 doubles (the MPI_PROC_NULL one is dropped).
  EXPECT_TRUE(contains(n, "TASK 0 ASYNCHRONOUSLY SENDS A 32")) << n;
  ncptl::CheckOptions co;
  co.generated = true;
  const ncptl::CheckResult r = ncptl::check(n, co);
  std::string problems;
  for (const auto& d : r.diagnostics) problems += ncptl::formatDiagnostic("b.ncptl", n, d);
  EXPECT_TRUE(r.ok()) << problems << n;
}


// User-defined reduction operators (not neighbourhood collectives, but the same sample): on a
// predefined datatype a built-in operator valid on it, on a derived one a created operator,
// each said in a comment; coNCePTuaL reduces the same bytes.
TEST(UserDefinedOperator, BuiltinOnPredefinedDatatypesCreatedOnDerived) {
  const char* text = R"(tracegen-trace 1
ranks 2
origin tracegen-record
datatype MPI_DOUBLE 8
datatype MPI_BYTE 1
datatype type1000 16
comm 2 world (<1 0 {2 1}>)
event 0 MPI_Init @ <1 0 {2 1}>
  site u.c:1
event 1 MPI_Allreduce @ <1 0 {2 1}>
  site u.c:2
  count 8
  datatype MPI_DOUBLE
  op 1000
event 2 MPI_Allreduce @ <1 0 {2 1}>
  site u.c:3
  count 4
  datatype type1000
  op 1001
event 3 MPI_Reduce @ <1 0 {2 1}>
  site u.c:4
  count 64
  datatype MPI_BYTE
  op 1002
  root 0
event 4 MPI_Finalize @ <1 0 {2 1}>
  site u.c:5
)";
  const Trace t = lowered(text);
  const gen::Program p = gen::buildProgram(t, "u.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen u.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "/* The application's user-defined operator 0 (MPI_Op_create), replayed with MPI_SUM:\n"
                          "     a built-in operator valid on MPI_DOUBLE moves the same bytes. */\n"
                          "  MPI_Allreduce(send_buf, recv_buf, msg_count(8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);"))
      << c;
  EXPECT_TRUE(contains(c, "where no built-in operator is valid: user_op(1) creates one")) << c;
  EXPECT_TRUE(contains(c, "MPI_Allreduce(send_buf, recv_buf, msg_count(4), type1000, user_op(1), MPI_COMM_WORLD);")) << c;
  EXPECT_TRUE(contains(c, "replayed with MPI_BOR:")) << c;
  EXPECT_TRUE(contains(c, "MPI_BYTE, MPI_BOR, 0, MPI_COMM_WORLD);")) << c;
  testing::expectCompilesUnderBothMpis(c, "userop");
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen u.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "the application's user-defined operator 0: a REDUCE of the same bytes")) << n;
}

}  // namespace
}  // namespace tracegen
