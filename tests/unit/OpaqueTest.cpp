// Opaque events: calls the recorder records (name, communicator, call site) but tracegen does
// not model. They read and write like any event, the passes take them as local calls,
// generation refuses them naming the call and its site, and with --skip-unknown each backend
// leaves a comment in its place (an opaque request becomes MPI_REQUEST_NULL in the C benchmark).
// The recorder side is tests/e2e/record_e2e.sh's `opaque` mode.
#include <gtest/gtest.h>

#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "io/Readers.h"
#include "passes/PassManager.h"
#include "tests/unit/TraceTestHelpers.h"

using namespace tracegen;

namespace {

using tracegen::testing::contains;

const char* kTrace = R"(tracegen-trace 1
ranks 2
origin recorded
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {2 1}>)
event 0 MPI_Init @ <1 0 {2 1}>
  site app.c:10
event 1 MPI_Win_post @ <1 0 {2 1}>
  site app.c:12
  comm 2
event 2 MPI_Fetch_and_op @ <1 0 {2 1}>
  site app.c:14
event 3 MPI_Rget @ <1 0 {2 1}>
  site app.c:15
event 4 MPI_Allreduce @ <1 0 {2 1}>
  site app.c:16
  comm 2
  count 1
  datatype MPI_DOUBLE
  op MPI_SUM
event 5 MPI_Wait @ <1 0 {2 1}>
  site app.c:17
  request 9999
event 6 MPI_Finalize @ <1 0 {2 1}>
  site app.c:20
)";

Trace lowered(const std::string& text) { return tracegen::testing::loweredText(text, "opaque.tgt"); }

TEST(Opaque, OpsAreOpaqueAndRoundTrip) {
  EXPECT_EQ(opInfo(*opFromName("MPI_Fetch_and_op")).kind, OpKind::Opaque);
  EXPECT_EQ(opInfo(*opFromName("MPI_Rget")).kind, OpKind::OpaqueRequest);
  EXPECT_TRUE(createsRequest(OpKind::OpaqueRequest));
  EXPECT_FALSE(createsRequest(OpKind::Opaque));
  const Trace t = readTrace(sourceFromString("opaque.tgt", kTrace));
  const std::string text = tracegenText(t);
  EXPECT_TRUE(contains(text, "event 2 MPI_Fetch_and_op @ <1 0 {2 1}>\n  site app.c:14\n")) << text;
  EXPECT_TRUE(contains(text, "event 3 MPI_Rget @ <1 0 {2 1}>\n  site app.c:15\n")) << text;
  EXPECT_EQ(readTrace(sourceFromString("again.tgt", text)), t);
}

TEST(Opaque, GenerationRefusesThemNamingCallAndSite) {
  const Trace t = lowered(kTrace);
  EXPECT_EQ(gen::opaqueCalls(t),
            (std::vector<std::string>{"E1 MPI_Win_post at app.c:12", "E2 MPI_Fetch_and_op at app.c:14", "E3 MPI_Rget at app.c:15"}));
  try {
    gen::requireModelled(t, "opaque.tgt");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 8);
    EXPECT_TRUE(contains(e.message(), "event 1 is a call of MPI_Win_post at app.c:12")) << e.message();
    EXPECT_TRUE(contains(e.message(), "2 more")) << e.message();
    EXPECT_TRUE(contains(e.render(), "--skip-unknown")) << e.render();
  }
  const Trace plain = lowered(R"(tracegen-trace 1
ranks 1
event 0 MPI_Init @ <0 0>
event 1 MPI_Finalize @ <0 0>
)");
  EXPECT_NO_THROW(gen::requireModelled(plain, "plain.tgt"));
}

TEST(Opaque, SkippedWithACommentInEachBackend) {
  const Trace t = lowered(kTrace);
  const gen::Program p = gen::buildProgram(t, "opaque.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen opaque.tgt --skip-unknown -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "/* E2 MPI_Fetch_and_op at app.c:14 */")) << c;
  EXPECT_TRUE(contains(c, "/* MPI_Fetch_and_op: a call tracegen does not model, left out (--skip-unknown) */")) << c;
  EXPECT_TRUE(contains(c, "*new_request() = MPI_REQUEST_NULL; /* MPI_Rget:")) << c;
  EXPECT_TRUE(contains(c, "MPI_Wait(recent_request(1), &status);")) << c;
  EXPECT_FALSE(contains(c, "MPI_Fetch_and_op(")) << c;
  const std::string n =
      gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen opaque.tgt --skip-unknown -o b.ncptl", "b.ncptl"});
  EXPECT_TRUE(contains(n, "Calls tracegen does not model are left out (--skip-unknown)")) << n;
}

}  // namespace
