// The C backend's replay of polling tests (MPI_Test, MPI_Testany, MPI_Testall that the
// application called until they succeeded): the recorded computation before a successful test
// spans all its polls, so the benchmark spreads it over its own polls instead of spinning it
// all before the first one (docs/c-backend.md, "Polling").
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "gen/Backend.h"
#include "gen/Traversal.h"
#include "io/Readers.h"
#include "passes/PassManager.h"
#include "tests/unit/CompileC.h"
#include "tests/unit/TraceTestHelpers.h"

namespace tracegen {
namespace {

using testing::contains;

// samples/apps/polling recorded on 2 ranks (`polling 2 64`): event 3, an MPI_Testany, folded
// 9 failed polls into its success on rank 0 and 1 on rank 1, after 67.8 us of computation on
// average; event 4, an MPI_Test that always succeeded at once (`failed 0`).
std::string generated() {
  const std::string file = testing::dataPath("polling/polling-2.tgt");
  Trace t = readTraceFile(file);
  PassContext ctx;
  ctx.fileName = file;
  PassManager(defaultPipeline()).run(t, ctx);
  const gen::Program p = gen::buildProgram(t, file);
  return gen::createBackend("c")->render(p, gen::GenOptions{"tracegen polling-2.tgt -o b.c", "b.c"});
}

TEST(PollingReplay, ComputationIsSpreadOverThePollsOfATestThatPolled) {
  const std::string c = generated();
  // 67.8 us over 1 + (9 + 1) / 2 = 6 polls per success.
  // The loop counts its failed polls and, once it succeeds, makes those of the application's (9
  // on rank 0, 1 on rank 1) that it has not made, over its executions so far, with poll_idle.
  EXPECT_TRUE(contains(c, "    for (long failed = 0;; ++failed) {\n      compute(11.275);\n"
                          "      MPI_Testany(1, requests, &index, &flag, &status);\n      if (flag) {\n"))
      << c;
  EXPECT_TRUE(contains(c, "    static long owed = 0;")) << c;
  EXPECT_TRUE(contains(c, "        owed = poll_idle(owed + (rank == 0 ? 9 : 1) - failed, 11.275);\n        break;\n")) << c;
  EXPECT_FALSE(contains(c, "compute(67.8")) << c;
  // A test that never failed keeps its computation before it and polls as before.
  EXPECT_TRUE(contains(c, "compute(2.44);\n")) << c;
  testing::expectCompilesUnderBothMpis(c, "polling");
}

// The same rounds twelve times over, rank 0's failed polls a list that follows no short cycle
// (none, then 120 in the last round): the benchmark makes up to their mean, rounded, per
// execution rather than spelling a table of twelve values.
TEST(PollingReplay, LongListsOfFailedPollsBecomeTheirMean) {
  const std::string file = testing::dataPath("polling/polling-2.tgt");
  std::ifstream in(file);
  std::stringstream whole;
  whole << in.rdbuf();
  std::string text = whole.str();
  text = testing::replaced(text, "  site 129f\n", "  site 129f\n  loop 0 iter 12\n  loop 0 mem 6\n");
  text = testing::replaced(text, "  failed 9 @ <1 0 {1 0}>", "  failed 0 0 0 0 0 0 0 0 0 0 0 120 @ <1 0 {1 0}>");
  Trace t = testing::loweredText(text, "rounds.tgt");
  const gen::Program p = gen::buildProgram(t, "rounds.tgt");
  const std::string c = gen::createBackend("c")->render(p, gen::GenOptions{"tracegen rounds.tgt -o b.c", "b.c"});
  EXPECT_TRUE(contains(c, "poll_idle(owed + (rank == 0 ? 10 : 1) - failed, ")) << c;
  EXPECT_FALSE(contains(c, "120")) << c;
  testing::expectCompilesUnderBothMpis(c, "polling-rounds");
}

}  // namespace
}  // namespace tracegen
