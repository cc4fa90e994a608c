// MPI-IO (docs/trace-format.md, "MPI-IO"): files opened and closed collectively on a
// communicator, collective and independent reads and writes with counts, datatypes and the
// offsets of the _at calls. The reader round trip, the per-rank bytes (writes as sent, reads as
// received), the collective checks over the file's communicator, and both backends. The
// recorder side: tests/e2e/record_e2e.sh, samples/apps/mpiio.c.
#include <gtest/gtest.h>

#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
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

const char* kTrace = R"(tracegen-trace 1
ranks 2
origin recorded
datatype MPI_DOUBLE 8
datatype MPI_INT 4
event 0 MPI_Init @ <1 0 {2 1}>
  site app.c:10
event 1 MPI_File_open @ <1 0 {2 1}>
  site app.c:12
  comm 2
  file 1000
event 2 MPI_File_write_at_all @ <1 0 {2 1}>
  site app.c:14
  loop 0 iter 5
  loop 0 mem 2
  comm 2
  count 256
  datatype MPI_DOUBLE
  file 1000
  offset 0 4096 8192 12288 16384 @ <0 0>
  offset 2048 6144 10240 14336 18432 @ <0 1>
event 3 MPI_File_read_at @ <1 0 {2 1}>
  site app.c:15
  comm 2
  count 128
  datatype MPI_DOUBLE
  file 1000
  offset 0 4096 8192 12288 16384 @ <0 0>
  offset 2048 6144 10240 14336 18432 @ <0 1>
event 4 MPI_File_read @ <1 0 {2 1}>
  site app.c:16
  comm 2
  count 64
  datatype MPI_INT
  file 1000
event 5 MPI_File_write_all @ <1 0 {2 1}>
  site app.c:17
  comm 2
  count 32
  datatype MPI_DOUBLE
  file 1000
event 6 MPI_File_close @ <1 0 {2 1}>
  site app.c:18
  comm 2
  file 1000
event 7 MPI_Finalize @ <1 0 {2 1}>
  site app.c:20
)";

// The generated C with its wrapped lines joined: a call on one line.

Trace lowered(const std::string& text, const std::string& name = "io.tgt") { return tracegen::testing::loweredText(text, name); }

TEST(FileIo, KindsParamsAndRoundTrip) {
  EXPECT_EQ(opInfo(Op::FileOpen).kind, OpKind::FileCollective);
  EXPECT_EQ(opInfo(Op::FileReadAtAll).kind, OpKind::FileCollective);
  EXPECT_EQ(opInfo(Op::FileWrite).kind, OpKind::FileIo);
  EXPECT_EQ(opInfo(Op::FileSetView).kind, OpKind::Opaque);  // views stay opaque
  EXPECT_EQ(paramFromName("offset"), Param::Offset);
  const Trace t = readTrace(sourceFromString("io.tgt", kTrace));
  const std::string text = tracegenText(t);
  // A run of offsets with one stride is written as a triplet (docs/trace-format.md, "Value lists").
  EXPECT_TRUE(contains(text, "  file 1000\n  offset 0:16384:4096 @ <1 0 {1 0}>\n")) << text;
  EXPECT_EQ(readTrace(sourceFromString("again.tgt", text)), t);
  std::string bad = kTrace;
  bad.replace(bad.find("file 1000"), 9, "file 7");
  EXPECT_THROW(readTrace(sourceFromString("bad.tgt", bad)), InputError);
}

TEST(FileIo, WritesCountAsSentReadsAsReceived) {
  const Trace t = readTrace(sourceFromString("io.tgt", kTrace));
  for (const RankSummary& s : summarizeRanks(t, "io.tgt")) {
    EXPECT_EQ(s.bytesSent, 5 * 256 * 8 + 32 * 8) << s.rank;
    EXPECT_EQ(s.bytesReceived, 5 * 128 * 8 + 64 * 4) << s.rank;
    EXPECT_EQ(s.ops.at("MPI_File_write_at_all"), 5);
    EXPECT_EQ(s.ops.at("MPI_File_open"), 1);
  }
}

TEST(FileIo, CollectiveCallsAreCheckedOverTheFilesCommunicator) {
  EXPECT_NO_THROW(lowered(kTrace));
  // Rank 1 closes the file where rank 0 makes its collective write: they disagree.
  std::string bad = kTrace;
  const std::string all = "event 5 MPI_File_write_all @ <1 0 {2 1}>";
  bad.replace(bad.find(all), all.size(), "event 5 MPI_File_write_all @ <0 0>");
  try {
    lowered(bad, "bad.tgt");
    FAIL() << "no deadlock found";
  } catch (const DeadlockError& e) {
    EXPECT_TRUE(contains(e.what(), "potential deadlock")) << e.what();
  }
}

TEST(FileIo, CBackendUsesAScratchFileDeletedOnClose) {
  const Trace t = lowered(kTrace);
  const gen::Program p = gen::buildProgram(t, "io.tgt");
  const std::string c = flat(gen::createBackend("c")->render(p, gen::GenOptions{"tracegen io.tgt -o b.c", "b.c"}));
  EXPECT_TRUE(contains(c, "MPI_File_open(MPI_COMM_WORLD, scratch_name(1000, MPI_COMM_WORLD), MPI_MODE_CREATE | "
                          "MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, file_slot(1000));"))
      << c;
  EXPECT_TRUE(contains(c, "MPI_File_write_at_all(*file_slot(1000), (MPI_Offset)")) << c;
  EXPECT_TRUE(contains(c, "MPI_File_read(*file_slot(1000), recv_buf, msg_count(64), MPI_INT, MPI_STATUS_IGNORE);")) << c;
  EXPECT_TRUE(contains(c, "MPI_File_write_all(*file_slot(1000), send_buf, msg_count(32), MPI_DOUBLE, MPI_STATUS_IGNORE);"))
      << c;
  EXPECT_TRUE(contains(c, "MPI_File_close(file_slot(1000));")) << c;
  EXPECT_TRUE(contains(c, "getenv(\"TMPDIR\")")) << c;
  const std::string n = gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen io.tgt -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "coNCePTuaL cannot express MPI-IO")) << n;
  ncptl::CheckOptions co;
  co.generated = true;
  EXPECT_TRUE(ncptl::check(n, co).ok()) << n;
}

}  // namespace
