// The C benchmarks' runtime (templates/c/runtime/, gen/CRuntime.h): real C11 + MPI-3 that
// compiles on its own with -Wall -Wextra -Werror (and -pedantic, -Wmissing-prototypes: every
// function it exports is declared in its header) under Open MPI's mpicc and MPICH's header;
// the embedded form (one file: the runtime, then the line where the benchmark starts) and the
// separate one (bench.c including tracegen_runtime.h) carry the same trace part, and both
// build. Running a separate-runtime benchmark and counting its calls is the e2e test
// roundtrip_separate_* (tests/e2e/record_e2e.sh).
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/unit/CompileC.h"
#include "tests/unit/TraceTestHelpers.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "gen/Backend.h"
#include "gen/CRuntime.h"
#include "gen/Traversal.h"
#include "io/Readers.h"
#include "passes/PassManager.h"

using namespace tracegen;
using namespace tracegen::gen;

namespace {

namespace fs = std::filesystem;
using tracegen::testing::run;
using tracegen::testing::ScratchDir;

constexpr const char* kWarnings = "-std=c11 -Wall -Wextra -Werror -pedantic -Wmissing-prototypes -Wstrict-prototypes -O2";

using tracegen::testing::contains;



bool haveMpicc() { return std::system("command -v mpicc > /dev/null 2>&1") == 0; }

void writeRuntime(const ScratchDir& dir) {
  for (const auto& file : cRuntimeFiles()) dir.write(std::string(file.name), file.text);
}

bool haveSmpicc() { return std::system("command -v smpicc > /dev/null 2>&1") == 0; }

// Compiles (-c) each of `files` in `dir` under Open MPI's mpicc and under MPICH's header, and
// with SimGrid's smpicc where it is installed (the runtime's SMPI build, docs/simulation.md).
void expectCompileUnderBothMpis(const ScratchDir& dir, const std::vector<std::string>& files) {
  for (const auto& f : files) {
    if (haveMpicc()) {
      EXPECT_EQ(run(dir, std::string("mpicc ") + kWarnings + " -c " + f), "") << f << " (Open MPI)";
    }
    if (haveSmpicc()) {
      EXPECT_EQ(run(dir, std::string("smpicc ") + kWarnings + " -c " + f), "") << f << " (SimGrid SMPI)";
    }
    if (const std::string mpich = tracegen::testing::mpichInclude(); !mpich.empty()) {
      EXPECT_EQ(run(dir, std::string("cc ") + kWarnings + " -I" + mpich + " -c " + f), "") << f << " (MPICH)";
    }
  }
}

std::string generate(bool separate) {
  const std::string path = std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/waitsome-2.tgt";
  Trace t = readTraceFile(path);
  PassContext ctx;
  ctx.fileName = path;
  PassManager(defaultPipeline()).run(t, ctx);
  const Program p = buildProgram(t, "samples/traces/waitsome-2.tgt");
  GenOptions options{"tracegen samples/traces/waitsome-2.tgt -o bench.c", "bench.c"};
  options.separateRuntime = separate;
  return createBackend("c")->render(p, options);
}

constexpr const char* kMarker = "/* ==== tracegen: benchmark of waitsome-2.tgt starts here ==== */\n";

}  // namespace

TEST(CRuntime, IsRealCThatCompilesOnItsOwn) {
  const auto files = cRuntimeFiles();
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].name, "tracegen_runtime.h");
  EXPECT_EQ(files[1].name, "tracegen_runtime.c");
  // No template syntax: the compiler sees all of it.
  for (const auto& f : files) EXPECT_FALSE(contains(std::string(f.text), "{{")) << f.name;
  ScratchDir dir("runtime-standalone");
  writeRuntime(dir);
  // The header alone, and the source.
  dir.write("header_only.c", "#include \"tracegen_runtime.h\"\n");
  expectCompileUnderBothMpis(dir, {"tracegen_runtime.c", "header_only.c"});
}

TEST(CRuntime, EmbeddedIsTheRuntimeThenTheBenchmark) {
  const std::string c = generate(false);
  const std::string runtime = embeddedCRuntime();
  const auto files = cRuntimeFiles();
  // The file's comment, the runtime's text as it is (header, then source), the marked line.
  const std::size_t at = c.find(runtime);
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(c.find(std::string(files[0].text)), at);
  EXPECT_EQ(c.rfind(" */\n\n", at), at - 5) << "the benchmark's comment comes first";
  EXPECT_EQ(c.find(kMarker), at + runtime.size() + 1) << "the trace's part starts right after the runtime";
  EXPECT_FALSE(contains(c, std::string(kCRuntimeInclude)));
  EXPECT_TRUE(contains(c, " *   mpicc -std=c11 -O2 -o bench bench.c\n"));
  // After the marker: the trace, the statuses, main; no runtime function is defined there.
  const std::string part = c.substr(c.find(kMarker));
  EXPECT_TRUE(contains(part, "static const struct tracegen_trace trace = {\n  .ranks = 2,\n"));
  EXPECT_TRUE(contains(part, "  .request_ring = ")) << part;
  EXPECT_TRUE(contains(part, "set_up(argc, argv, &trace);"));
  EXPECT_FALSE(contains(part, "void compute(double us)"));
  ScratchDir dir("runtime-embedded");
  dir.write("bench.c", c);
  expectCompileUnderBothMpis(dir, {"bench.c"});
}

TEST(CRuntime, SeparateIncludesTheHeaderAndBuildsWithTheSource) {
  const std::string c = generate(true);
  const std::string include = std::string(kCRuntimeInclude) + "\n";
  ASSERT_TRUE(contains(c, " */\n\n" + include + "\n" + kMarker));
  EXPECT_FALSE(contains(c, "void compute(double us)"));
  EXPECT_TRUE(contains(c, " *   mpicc -std=c11 -O2 -o bench bench.c tracegen_runtime.c\n"));
  // The trace's part is the embedded file's, word for word.
  const std::string embedded = generate(false);
  EXPECT_EQ(c.substr(c.find(kMarker)), embedded.substr(embedded.find(kMarker)));
  ScratchDir dir("runtime-separate");
  writeRuntime(dir);
  dir.write("bench.c", c);
  expectCompileUnderBothMpis(dir, {"bench.c", "tracegen_runtime.c"});
  if (haveMpicc()) {
    EXPECT_EQ(run(dir, "mpicc -std=c11 -O2 -o bench bench.c tracegen_runtime.c"), "");
  }
}

namespace {

// A driver of the runtime alone: one rank, a trace whose largest message is 1,000 doubles; prints
// how many bytes of send_buf (8,064: the message and 64) are non-zero after each computation, and
// how long each took.
constexpr const char* kProduceDriver = R"(#include "tracegen_runtime.h"
#include <stdio.h>

static const struct tracegen_trace trace = {.ranks = 1, .source = "driver", .largest_message_bytes = 8000};

static int written(void)
{
  int n = 0;
  for (int i = 0; i < 8064; ++i)
    n += send_buf[i] != 0;
  return n;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  set_up(argc, argv, &trace);
  double t = now_us();
  compute_sending(500, 500, MPI_DOUBLE);
  printf("message %d %.0f\n", written(), now_us() - t);
  compute_sending(0.5, 1000, MPI_DOUBLE);
  compute(300);
  t = now_us();
  compute_sending_blocks(400, 1000, MPI_DOUBLE, MPI_COMM_WORLD);
  printf("blocks %d %.0f\n", written(), now_us() - t);
  finish(now_us());
  MPI_Finalize();
  return 0;
}
)";

}  // namespace

// compute_sending() writes the message the next call sends (4,000 bytes of 500 doubles, and not
// a byte beyond; then 8,000 bytes as one block per member of a world of one), within the
// computation's time; --no-produce leaves send_buf as calloc made
// it. Run with mpiexec on one rank.
TEST(CRuntime, ComputationBeforeASendWritesTheMessageWithinItsTime) {
  if (!haveMpicc() || std::system("command -v mpiexec > /dev/null 2>&1") != 0) GTEST_SKIP() << "no mpicc or mpiexec";
  ScratchDir dir("runtime-produce");
  writeRuntime(dir);
  dir.write("driver.c", kProduceDriver);
  ASSERT_EQ(run(dir, std::string("mpicc ") + kWarnings + " -o driver driver.c tracegen_runtime.c"), "");
  auto runDriver = [&](const std::string& args) {
    const std::string mpiexec =
        "env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 60 mpiexec -n 1 ./driver " + args;
    EXPECT_EQ(run(dir, mpiexec), "") << args;
    std::ifstream in(dir.path / "log.txt");  // run()'s record of the command's output
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto field = [](const std::string& out, const std::string& name, int k) {
    const std::size_t at = out.find(name + " ");
    if (at == std::string::npos) return -1.0;
    std::istringstream line(out.substr(at + name.size() + 1));
    double v[2] = {-1, -1};
    line >> v[0] >> v[1];
    return v[k];
  };
  const std::string out = runDriver("");
  EXPECT_EQ(field(out, "message", 0), 4000) << out;
  // At least the time asked for (a spin ends on the clock), and not much more on an idle core.
  EXPECT_GE(field(out, "message", 1), 499) << out;
  EXPECT_EQ(field(out, "blocks", 0), 8000) << out;
  EXPECT_GE(field(out, "blocks", 1), 399) << out;
  const std::string off = runDriver("--no-produce");
  EXPECT_EQ(field(off, "message", 0), 0) << off;
  EXPECT_EQ(field(off, "blocks", 0), 0) << off;
  EXPECT_GE(field(off, "message", 1), 499) << off;
}

