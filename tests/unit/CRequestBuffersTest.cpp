// Requests and receive buffers in the generated C (docs/c-backend.md, "Receive buffers of
// pending receives" and "Local request arrays"):
// * nonblocking receives write recv_slice(), and two receives pending at once get different
//   slices of recv_buf (the runtime, compiled and run under real MPI);
// * a run of Isend/Irecv calls (also in a loop of the run) that a Waitall of the same statement
//   list completes becomes a local MPI_Request array, and a wait that reaches back into the previous loop iteration
//   keeps the recency ring, for the whole benchmark.
// Both benchmarks compile under Open MPI's and MPICH's headers and run on two ranks.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/unit/CompileC.h"
#include "tests/unit/TraceTestHelpers.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gen/Backend.h"
#include "gen/CRuntime.h"
#include "gen/Traversal.h"

using namespace tracegen;
using namespace tracegen::gen;
using tracegen::testing::contains;
using tracegen::testing::flat;

namespace {

namespace fs = std::filesystem;
using tracegen::testing::run;
using tracegen::testing::ScratchDir;

const char* const kHead =
    "tracegen-trace 1\n"
    "ranks 2\n"
    "origin hand-written\n"
    "datatype MPI_DOUBLE 8\n"
    "comm 2 world (<1 0 {2 1}>)\n"
    "\n"
    "event 0 MPI_Init @ <1 0 {2 1}>\n"
    "  site a.c:1\n";

std::string message(const char* peer, int count, int tag) {
  return std::string("  comm 2\n  count ") + std::to_string(count) + "\n  datatype MPI_DOUBLE\n  " + peer +
         " rel 1\n  tag " + std::to_string(tag) + "\n";
}

// A halo exchange: each iteration posts two receives and two sends and waits for all four.
std::string haloTrace() {
  return std::string(kHead) +
         "event 1 MPI_Irecv @ <1 0 {2 1}>\n  site a.c:2\n  loop 0 iter 10\n  loop 0 mem 5\n" +
         message("source", 64, 1) +
         "event 2 MPI_Irecv @ <1 0 {2 1}>\n  site a.c:3\n" + message("source", 128, 2) +
         "event 3 MPI_Isend @ <1 0 {2 1}>\n  site a.c:4\n" + message("dest", 64, 1) +
         "event 4 MPI_Isend @ <1 0 {2 1}>\n  site a.c:5\n" + message("dest", 128, 2) +
         "event 5 MPI_Waitall @ <1 0 {2 1}>\n  site a.c:6\n  count 4\n  requests 9996 9997 9998 9999\n"
         "event 6 MPI_Finalize @ <1 0 {2 1}>\n  site a.c:9\n";
}

// A pipeline: the receive of one iteration is waited for in the next one.
std::string pipelineTrace() {
  return std::string(kHead) + "event 1 MPI_Irecv @ <1 0 {2 1}>\n  site b.c:2\n" + message("source", 64, 1) +
         "event 2 MPI_Send @ <1 0 {2 1}>\n  site b.c:4\n  loop 0 iter 10\n  loop 0 mem 3\n" +
         message("dest", 64, 1) +
         "event 3 MPI_Irecv @ <1 0 {2 1}>\n  site b.c:5\n" + message("source", 64, 1) +
         "event 4 MPI_Wait @ <1 0 {2 1}>\n  site b.c:6\n  request 9998\n"
         "event 5 MPI_Send @ <1 0 {2 1}>\n  site b.c:8\n" + message("dest", 64, 1) +
         "event 6 MPI_Wait @ <1 0 {2 1}>\n  site b.c:9\n  request 9999\n"
         "event 7 MPI_Finalize @ <1 0 {2 1}>\n  site b.c:10\n";
}

// The receives posted in an inner loop, the sends after it, one Waitall for all four.
std::string innerLoopTrace() {
  return std::string(kHead) +
         "event 1 MPI_Irecv @ <1 0 {2 1}>\n  site c.c:2\n  loop 0 iter 10\n  loop 0 mem 4\n  loop 1 iter 2\n"
         "  loop 1 mem 1\n" +
         message("source", 64, 1) + "event 2 MPI_Isend @ <1 0 {2 1}>\n  site c.c:4\n" + message("dest", 64, 1) +
         "event 3 MPI_Isend @ <1 0 {2 1}>\n  site c.c:5\n" + message("dest", 64, 1) +
         "event 4 MPI_Waitall @ <1 0 {2 1}>\n  site c.c:6\n  count 4\n  requests 9996 9997 9998 9999\n"
         "event 5 MPI_Finalize @ <1 0 {2 1}>\n  site c.c:9\n";
}

std::string generate(const std::string& text, const std::string& name) {
  const Trace t = tracegen::testing::loweredText(text, name);
  const Program p = buildProgram(t, name);
  return createBackend("c")->render(p, GenOptions{"tracegen " + name + " -o bench.c", "bench.c"});
}

// The part of the benchmark made from the trace (after the embedded runtime).
std::string tracePart(const std::string& c) {
  const auto at = c.find("/* ==== tracegen: benchmark of");
  EXPECT_NE(at, std::string::npos);
  return at == std::string::npos ? c : c.substr(at);
}



bool haveMpi() { return std::system("command -v mpicc > /dev/null 2>&1 && command -v mpiexec > /dev/null 2>&1") == 0; }

const char* const kMpiexec =
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 120 mpiexec --oversubscribe ";

// Compiles `c` under both MPIs and runs it on two ranks.
void expectBuildsAndRuns(const std::string& c, const std::string& tag) {
  tracegen::testing::expectCompilesUnderBothMpis(c, tag);
  if (!haveMpi()) return;
  ScratchDir dir(tag);
  dir.write("bench.c", c);
  ASSERT_EQ(run(dir, "mpicc -std=c11 -Wall -Wextra -Werror -O2 -o bench bench.c"), "");
  EXPECT_EQ(run(dir, std::string(kMpiexec) + "-n 2 ./bench --compute-scale 0"), "");
}

}  // namespace

// Two receives pending at once get different slices of recv_buf, apart from the blocking
// receives' part and from each other by a whole message; the slices cycle over recv_slices.
TEST(CRequestBuffers, PendingReceivesGetDistinctSlices) {
  if (!haveMpi()) GTEST_SKIP() << "no mpicc/mpiexec";
  ScratchDir dir("requests-slices");
  for (const auto& file : cRuntimeFiles()) dir.write(std::string(file.name), file.text);
  dir.write("slices.c",
            "#include \"tracegen_runtime.h\"\n"
            "#include <stdio.h>\n"
            "int main(int argc, char **argv)\n"
            "{\n"
            "  MPI_Init(&argc, &argv);\n"
            "  const struct tracegen_trace trace = {.ranks = 1, .source = \"t\", .largest_message_bytes = 1000,\n"
            "                                       .request_ring = 2, .recv_slices = 2};\n"
            "  set_up(argc, argv, &trace);\n"
            "  char *a = recv_slice(), *b = recv_slice(), *c = recv_slice();\n"
            "  int bad = 0;\n"
            "  if (a - recv_buf < 1000 || b - recv_buf < 1000) bad |= 1;  /* not the blocking part */\n"
            "  if (b - a < 1000) bad |= 2;                                 /* a whole message apart */\n"
            "  if (c != a) bad |= 4;                                       /* two slices, in turn */\n"
            "  MPI_Request r[2];\n"
            "  MPI_Irecv(a, 1000, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &r[0]);\n"
            "  MPI_Irecv(b, 1000, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &r[1]);\n"
            "  MPI_Send(send_buf, 1000, MPI_BYTE, 0, 2, MPI_COMM_WORLD);\n"
            "  MPI_Send(send_buf, 1000, MPI_BYTE, 0, 1, MPI_COMM_WORLD);\n"
            "  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);\n"
            "  finish(now_us());\n"
            "  MPI_Finalize();\n"
            "  if (bad) printf(\"slices wrong: %d\\n\", bad);\n"
            "  return bad;\n"
            "}\n");
  ASSERT_EQ(run(dir, "mpicc -std=c11 -Wall -Wextra -Werror -O2 -o slices slices.c tracegen_runtime.c"), "");
  EXPECT_EQ(run(dir, std::string(kMpiexec) + "-n 1 ./slices"), "");
}

// A slice bound to its receive's request (MPI_Irecv in the ring) is taken again by the next
// receive once that request completed: receives made one at a time write one slice, not every
// slice in turn (HPC Challenge's 2 MB receives had made 58 slices resident, 116 MB). A slice
// whose receive is pending is not taken; either order of recv_slice_bound() and bind_slice()
// pairs them; unbound slices (recv_slice()) still wait for recv_slices more receives.
TEST(CRequestBuffers, BoundSlicesAreTakenAgainOnceTheirReceiveCompletes) {
  if (!haveMpi()) GTEST_SKIP() << "no mpicc/mpiexec";
  ScratchDir dir("requests-bound-slices");
  for (const auto& file : cRuntimeFiles()) dir.write(std::string(file.name), file.text);
  dir.write("bound.c",
            "#include \"tracegen_runtime.h\"\n"
            "#include <stdio.h>\n"
            "static void post(char *slice, MPI_Request *r, int tag)\n"
            "{\n"
            "  MPI_Irecv(slice, 1000, MPI_BYTE, 0, tag, MPI_COMM_WORLD, r);\n"
            "}\n"
            "int main(int argc, char **argv)\n"
            "{\n"
            "  MPI_Init(&argc, &argv);\n"
            "  const struct tracegen_trace trace = {.ranks = 1, .source = \"t\", .largest_message_bytes = 1000,\n"
            "                                       .request_ring = 4, .recv_slices = 4};\n"
            "  set_up(argc, argv, &trace);\n"
            "  int bad = 0;\n"
            "  char *a = recv_slice_bound();\n"
            "  MPI_Request *ra = bind_slice(new_request());\n"
            "  post(a, ra, 1);\n"
            "  MPI_Send(send_buf, 1000, MPI_BYTE, 0, 1, MPI_COMM_WORLD);\n"
            "  MPI_Wait(ra, MPI_STATUS_IGNORE);\n"
            "  MPI_Request *rb = bind_slice(new_request()); /* the request first this time */\n"
            "  char *b = recv_slice_bound();\n"
            "  if (b != a) bad |= 1;                       /* a's receive completed: its slice again */\n"
            "  post(b, rb, 2);\n"
            "  char *c = recv_slice_bound();\n"
            "  MPI_Request *rc = bind_slice(new_request());\n"
            "  if (c == b) bad |= 2;                       /* b's receive is pending */\n"
            "  post(c, rc, 3);\n"
            "  char *d = recv_slice();                     /* unbound: not a pending one's */\n"
            "  if (d == b || d == c) bad |= 4;\n"
            "  char *e = recv_slice();\n"
            "  if (e == d || e == b || e == c) bad |= 8;   /* d waits for 4 more receives */\n"
            "  MPI_Send(send_buf, 1000, MPI_BYTE, 0, 2, MPI_COMM_WORLD);\n"
            "  MPI_Send(send_buf, 1000, MPI_BYTE, 0, 3, MPI_COMM_WORLD);\n"
            "  MPI_Wait(rb, MPI_STATUS_IGNORE);\n"
            "  MPI_Wait(rc, MPI_STATUS_IGNORE);\n"
            "  char *f = recv_slice_bound();\n"
            "  MPI_Request *rf = bind_slice(new_request());\n"
            "  if (f != b) bad |= 16;                      /* the first free slice */\n"
            "  *rf = MPI_REQUEST_NULL;\n"
            "  finish(now_us());\n"
            "  MPI_Finalize();\n"
            "  if (bad) printf(\"slices wrong: %d\\n\", bad);\n"
            "  return bad;\n"
            "}\n");
  ASSERT_EQ(run(dir, "mpicc -std=c11 -Wall -Wextra -Werror -O2 -o bound bound.c tracegen_runtime.c"), "");
  EXPECT_EQ(run(dir, std::string(kMpiexec) + "-n 1 ./bound"), "");
}

TEST(CRequestBuffers, RunCompletedInTheSameBodyBecomesALocalArray) {
  const std::string c = generate(haloTrace(), "halo-2.tgt");
  const std::string part = flat(tracePart(c));
  EXPECT_TRUE(contains(part, "MPI_Request requests1[4]; /* made by the calls below, all completed by E5 MPI_Waitall"))
      << part;
  EXPECT_TRUE(contains(part, "MPI_Irecv(recv_slice(), msg_count(64), MPI_DOUBLE, (rank + 1) % nranks, 1, "
                             "MPI_COMM_WORLD, &requests1[0]);"))
      << part;
  EXPECT_TRUE(contains(part, "&requests1[1]);")) << part;
  EXPECT_TRUE(contains(part, "MPI_Isend(send_buf, msg_count(128), MPI_DOUBLE, (rank + 1) % nranks, 2, "
                             "MPI_COMM_WORLD, &requests1[3]);"))
      << part;
  EXPECT_TRUE(contains(part, "MPI_Waitall(4, requests1, statuses);")) << part;
  // No ring: nothing names a request by recency, and the runtime keeps no ring.
  EXPECT_FALSE(contains(part, "new_request()")) << part;
  EXPECT_FALSE(contains(part, "take_requests(")) << part;
  EXPECT_FALSE(contains(part, ".request_ring")) << part;
  EXPECT_TRUE(contains(part, ".recv_slices = 2,")) << part;  // the two receives of an iteration
  expectBuildsAndRuns(c, "halo");
}

TEST(CRequestBuffers, WaitIntoThePreviousIterationKeepsTheRing) {
  const std::string c = generate(pipelineTrace(), "pipeline-2.tgt");
  const std::string part = flat(tracePart(c));
  EXPECT_FALSE(contains(part, "MPI_Request requests")) << part;
  // The receive's slice is bound to its request in the ring: free again once it completes.
  EXPECT_TRUE(contains(part, "MPI_Irecv(recv_slice_bound(), msg_count(64), MPI_DOUBLE, (rank + 1) % nranks, 1, "
                             "MPI_COMM_WORLD, bind_slice(new_request()));"))
      << part;
  EXPECT_TRUE(contains(part, "MPI_Wait(recent_request(2), &status);")) << part;
  EXPECT_TRUE(contains(part, ".request_ring = 2,")) << part;
  EXPECT_TRUE(contains(part, ".recv_slices = 2,")) << part;  // one slice per ring slot
  expectBuildsAndRuns(c, "pipeline");
}

// Requests made in a loop of the run (a constant number of iterations, nothing waited for in
// it) take the slots the loop variable names; the array is declared before that loop.
TEST(CRequestBuffers, RequestsOfAnInnerLoopAreIndexedByItsVariable) {
  const std::string c = generate(innerLoopTrace(), "inner-2.tgt");
  const std::string part = flat(tracePart(c));
  const auto declared = part.find("MPI_Request requests1[4]; /* made by the calls below, all completed by E4 ");
  const auto inner = part.find("for (long i1 = 0; i1 < 2; ++i1)");
  ASSERT_NE(declared, std::string::npos) << part;
  EXPECT_LT(declared, inner) << part;
  EXPECT_TRUE(contains(part, "MPI_COMM_WORLD, &requests1[i1]);")) << part;
  EXPECT_TRUE(contains(part, "MPI_COMM_WORLD, &requests1[2]);")) << part;
  EXPECT_TRUE(contains(part, "MPI_COMM_WORLD, &requests1[3]);")) << part;
  EXPECT_TRUE(contains(part, "MPI_Waitall(4, requests1, statuses);")) << part;
  EXPECT_FALSE(contains(part, "new_request()")) << part;
  EXPECT_TRUE(contains(part, ".recv_slices = 2,")) << part;
  expectBuildsAndRuns(c, "inner");
}

// A run of one request is one MPI_Request variable, not an array of one.
TEST(CRequestBuffers, ARunOfOneRequestIsOneVariable) {
  std::ifstream in(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/shift-null-4.tgt");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(text.empty());
  const std::string c = generate(text, "shift-null-4.tgt");
  const std::string part = flat(tracePart(c));
  EXPECT_TRUE(contains(part, "MPI_Request request1; /* made by the call below, completed by E5 MPI_Wait at shift.c:22 */"))
      << part;
  EXPECT_TRUE(contains(part, "comm_of(1000), &request1);")) << part;
  EXPECT_TRUE(contains(part, "MPI_Wait(&request1, &status);")) << part;
  EXPECT_FALSE(contains(part, "requests1")) << part;
  EXPECT_FALSE(contains(part, ".request_ring")) << part;
  tracegen::testing::expectCompilesUnderBothMpis(c, "single");
}

// Requests completed by several waits: the comment names the last of them, as the last.
TEST(CRequestBuffers, ARunCompletedBySeveralWaitsSaysSo) {
  std::ifstream in(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/ring-4.tgt");
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  ASSERT_FALSE(text.empty());
  const std::string part = flat(tracePart(generate(text, "ring-4.tgt")));
  EXPECT_TRUE(contains(part, "MPI_Request requests1[2]; /* made by the calls below, completed by the waits up to E4 "
                             "MPI_Wait at main.c:22 */"))
      << part;
  EXPECT_FALSE(contains(part, "all completed by")) << part;
}
