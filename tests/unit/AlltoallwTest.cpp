// MPI_Alltoallw and MPI_Ialltoallw: per-peer counts and datatypes (`sendcounts`, `sendtypes`,
// `recvcounts`, `recvtypes`, one per communicator member, the types written by name). They read
// and write like any event, expand with the bytes of every peer's block, and both backends
// generate them. The recorder side is samples/apps/nbc.c (record_nbc_4, roundtrip_nbc_4).
#include <gtest/gtest.h>

#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ncptl/Checker.h"
#include "passes/PassManager.h"
#include "tests/unit/TraceTestHelpers.h"

namespace tracegen {
namespace {

using tracegen::testing::contains;

const char* kTrace = R"(tracegen-trace 1
ranks 4
origin tracegen-record
datatype MPI_DOUBLE 8
datatype MPI_INT 4
comm 2 world (<1 0 {4 1}>)
event 0 MPI_Init @ <1 0 {4 1}>
  site w.c:10
event 1 MPI_Alltoallw @ <1 0 {4 1}>
  site w.c:11
  comm 2
  recvcounts 2 4 2 4
  sendcounts 2 4 2 4
  sendtypes MPI_DOUBLE MPI_INT MPI_DOUBLE MPI_INT
  recvtypes MPI_DOUBLE MPI_INT MPI_DOUBLE MPI_INT
event 2 MPI_Ialltoallw @ <1 0 {4 1}>
  site w.c:12
  comm 2
  recvcounts 1 1 1 1
  sendcounts 1 1 1 1
  sendtypes MPI_INT MPI_INT MPI_INT MPI_INT
  recvtypes MPI_DOUBLE MPI_DOUBLE MPI_DOUBLE MPI_DOUBLE
event 3 MPI_Wait @ <1 0 {4 1}>
  site w.c:13
  request 9999
event 4 MPI_Finalize @ <1 0 {4 1}>
  site w.c:20
)";

Trace lowered(const std::string& text) { return tracegen::testing::loweredText(text, "w.tgt"); }

TEST(Alltoallw, ModelledWithTypeVectors) {
  EXPECT_EQ(opInfo(Op::Alltoallw).kind, OpKind::Collective);
  EXPECT_EQ(opInfo(Op::Ialltoallw).kind, OpKind::ICollective);
  EXPECT_EQ(blockingForm(Op::Ialltoallw), Op::Alltoallw);
  EXPECT_EQ(paramFromName("sendtypes"), Param::SendTypes);
  EXPECT_EQ(paramFromName("recvtypes"), Param::RecvTypes);
  EXPECT_TRUE(isVectorParam(Param::SendTypes));
  EXPECT_TRUE(isDatatypeParam(Param::RecvTypes));
}

TEST(Alltoallw, ReaderRoundTripWritesTypeNames) {
  const Trace t = readTrace(sourceFromString("w.tgt", kTrace));
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "  sendtypes MPI_DOUBLE MPI_INT MPI_DOUBLE MPI_INT\n")) << text;
  const Trace again = readTrace(sourceFromString("again.tgt", text));
  EXPECT_EQ(again, t);
  EXPECT_EQ(tracegenText(again), text);
  // An undeclared type in the vector is an error at its line.
  std::string bad = kTrace;
  bad.replace(bad.find("sendtypes MPI_DOUBLE MPI_INT"), 28, "sendtypes MPI_DOUBLE MPI_FLOAT");
  try {
    readTrace(sourceFromString("bad.tgt", bad));
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 14);
    EXPECT_TRUE(contains(e.message(), "unknown datatype 'MPI_FLOAT'")) << e.message();
  }
}

TEST(Alltoallw, CursorBytesPerPeerType) {
  const Trace t = readTrace(sourceFromString("w.tgt", kTrace));
  RankCursor cursor(t, 1, "w.tgt");
  Call c;
  std::vector<Call> calls;
  while (cursor.next(c)) calls.push_back(c);
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[1].bytes, 2 * 8 + 4 * 4 + 2 * 8 + 4 * 4);
  EXPECT_EQ(calls[1].recvBytes, 64);
  EXPECT_EQ(calls[2].bytes, 16);      // 4 ints
  EXPECT_EQ(calls[2].recvBytes, 32);  // 4 doubles
  EXPECT_EQ(calls[3].completes, (std::vector<std::int64_t>{2}));
}

TEST(Alltoallw, BothBackends) {
  const Trace t = lowered(kTrace);
  const gen::Program p = gen::buildProgram(t, "w.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen w.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "const MPI_Datatype sendtypes[4] = { MPI_DOUBLE, MPI_INT, MPI_DOUBLE, MPI_INT };")) << c;
  EXPECT_TRUE(contains(c, "pack_byte_displs(4, sendcounts, sendtypes, sdispls);")) << c;
  EXPECT_TRUE(contains(c, "MPI_Alltoallw(send_buf, sendcounts, sdispls, sendtypes, recv_buf, recvcounts, rdispls,")) << c;
  EXPECT_TRUE(contains(c, "MPI_Datatype *recvtypes = request_types(req, 1, 4,")) << c;
  EXPECT_TRUE(contains(c, "MPI_Ialltoallw(send_buf, ")) << c;
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen w.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "MPI_Alltoallw is a many-to-many MULTICAST")) << n;
  ncptl::CheckOptions co;
  co.generated = true;
  const ncptl::CheckResult r = ncptl::check(n, co);
  std::string problems;
  for (const auto& d : r.diagnostics) problems += ncptl::formatDiagnostic("b.ncptl", n, d);
  EXPECT_TRUE(r.ok()) << problems << n;
}

}  // namespace
}  // namespace tracegen
