// Named call sites (docs/trace-format.md, "Frame names"): the header's `program` and `frame`
// lines read, written back and checked; readable symbols; a site's frames, function names and
// description; the comments of both backends, which keep today's text where nothing is named.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gen/Backend.h"
#include "gen/Backends.h"
#include "gen/Traversal.h"
#include "io/Readers.h"
#include "ir/Diagnostics.h"
#include "tests/unit/TraceTestHelpers.h"

namespace tracegen {
namespace {

const std::string kHead = "tracegen-trace 1\nranks 2\norigin tracegen-record\ndatatype MPI_INT 4\n";
const std::string kBody =
    "event 0 MPI_Init @ <1 0 {2 1}>\n  site 11a0_1234\n"
    "event 1 MPI_Send @ <1 0 {1 0}>\n  site 8e31_4981_23d0_1234\n  comm 2\n  count 4\n  datatype MPI_INT\n  dest 1\n  tag 0\n"
    "event 2 MPI_Recv @ <1 1 {1 0}>\n  site libhalo_x.so+1a2b_23d0_1234\n  comm 2\n  count 4\n  datatype MPI_INT\n  source 0\n  tag 0\n"
    "event 3 MPI_Finalize @ <1 0 {2 1}>\n  site 11b0\n";
const std::string kFrames =
    "program lu_like\n"
    "frame 8e31 exchange_1_ exchange.f:77\n"
    "frame 4981 _ZN4halo4ssorEid\n"
    "frame 23d0 __solver_MOD_step\n"
    "frame 1234 main\n"
    "frame libhalo_x.so+1a2b recv_halo.constprop.0 halo.c:12\n";

Trace parse(const std::string& text) { return readTracegenText(sourceFromString("named.tgt", text)); }

void expectError(const std::string& text, int line, const std::string& what) {
  try {
    parse(text);
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
    EXPECT_EQ(std::string(e.what()).rfind("named.tgt:" + std::to_string(line) + ": error: ", 0), 0u) << e.what();
  }
}

TEST(SiteNames, FrameLinesReadAndRoundTrip) {
  const Trace t = parse(kHead + kFrames + kBody);
  EXPECT_EQ(t.program, "lu_like");
  ASSERT_EQ(t.frameNames.size(), 5u);
  EXPECT_EQ(t.frameNames.at("8e31"), (FrameName{"exchange_1_", "exchange.f", 77}));
  EXPECT_EQ(t.frameNames.at("4981"), (FrameName{"_ZN4halo4ssorEid", "", 0}));
  const std::string text = tracegenText(t);
  EXPECT_NE(text.find("\nprogram lu_like\nframe 1234 main\nframe 23d0 __solver_MOD_step\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nframe 8e31 exchange_1_ exchange.f:77\n"), std::string::npos) << text;
  const Trace back = parse(text);
  EXPECT_TRUE(back == t);
  EXPECT_EQ(tracegenText(back), text);
  // Names are part of the trace: a trace without them differs, and writes no such lines.
  Trace plain = t;
  plain.frameNames.clear();
  plain.program.clear();
  EXPECT_FALSE(plain == t);
  EXPECT_EQ(tracegenText(plain).find("frame "), std::string::npos);
  EXPECT_TRUE(parse(kHead + kBody) == plain);
}

TEST(SiteNames, BadFrameLinesAreErrorsAtTheirLine) {
  expectError(kHead + "frame 8e31\n" + kBody, 5, "expected the frame's function symbol but the line ends");
  expectError(kHead + "frame\n" + kBody, 5, "expected a frame");
  expectError(kHead + "frame 8e31 f a.c:0\n" + kBody, 5, "source line 0 is outside 1..");
  expectError(kHead + "frame 8e31 f a.c\n" + kBody, 5, "expected the call's FILE:LINE but found 'a.c'");
  expectError(kHead + "frame 8e31 f :7\n" + kBody, 5, "expected the call's FILE:LINE but found ':7'");
  expectError(kHead + "frame 8e31 f a.c:x\n" + kBody, 5, "expected the call's FILE:LINE");
  expectError(kHead + "frame 8e31 f a.c:7 extra\n" + kBody, 5, "unexpected 'extra' after the frame's name");
  expectError(kHead + "frame 8e31 f\nframe 8e31 g\n" + kBody, 6, "frame '8e31' is named twice (first at line 5)");
  expectError(kHead + "frame 8e31_4981 f\n" + kBody, 5, "'8e31_4981' is not a frame");
  expectError(kHead + "frame - f\n" + kBody, 5, "'-' is not a frame");
  expectError(kHead + "frame 8e31 (f)\n" + kBody, 5, "expected the frame's function symbol but found '('");
  expectError(kHead + "program a\nprogram b\n" + kBody, 6, "second 'program' line (the first is line 5)");
  expectError(kHead + "program\n" + kBody, 5, "expected the executable's file name");
  expectError(kHead + "event 0 MPI_Init @ <1 0 {2 1}>\nframe 8e31 f\n", 6, "header line 'frame' after the first event");
}

TEST(SiteNames, ReadableSymbols) {
  EXPECT_EQ(readableSymbol("exchange_1_"), "exchange_1");
  EXPECT_EQ(readableSymbol("__solver_MOD_step"), "solver::step");
  EXPECT_EQ(readableSymbol("solver_mp_step_"), "solver::step");
  EXPECT_EQ(readableSymbol("_ZN4halo4ssorEid"), "halo::ssor");
  EXPECT_EQ(readableSymbol("_ZNK4Grid4swapERKS_"), "Grid::swap");
  EXPECT_EQ(readableSymbol("_ZN4halo4ssorEid.cold"), "halo::ssor");
  EXPECT_EQ(readableSymbol("recv_halo.constprop.0"), "recv_halo");
  EXPECT_EQ(readableSymbol("main"), "main");
  EXPECT_EQ(readableSymbol("MAIN__"), "MAIN__");
  EXPECT_EQ(readableSymbol("_start"), "_start");
  EXPECT_EQ(readableSymbol("_Znotmangled"), "_Znotmangled");
}

TEST(SiteNames, FunctionChainsAndDescriptions) {
  const Trace t = parse(kHead + kFrames + kBody);
  const SiteId send = t.events[1].site, recv = t.events[2].site, fin = t.events[3].site;
  EXPECT_EQ(t.siteFrames(send), (std::vector<std::string_view>{"8e31", "4981", "23d0", "1234"}));
  // A module name with '_' stays one frame.
  EXPECT_EQ(t.siteFrames(recv), (std::vector<std::string_view>{"libhalo_x.so+1a2b", "23d0", "1234"}));
  EXPECT_EQ(t.siteFunctions(send), (std::vector<std::string>{"exchange_1", "halo::ssor", "solver::step", "main"}));
  EXPECT_EQ(t.siteFunctions(fin), (std::vector<std::string>{""}));
  EXPECT_TRUE(t.siteFunctions(kNoSite).empty());
  EXPECT_EQ(t.siteDescription(send),
            "in exchange_1 (exchange.f:77) <- halo::ssor <- solver::step <- main (lu_like+0x8e31)");
  EXPECT_EQ(t.siteDescription(recv), "in recv_halo (halo.c:12) <- solver::step <- main (libhalo_x.so+0x1a2b)");
  EXPECT_EQ(t.siteDescription(fin), "");
  EXPECT_EQ(t.siteLabel(fin), "11b0");
  EXPECT_EQ(t.siteLabel(t.events[0].site), "11a0_1234 (in ? <- main (lu_like+0x11a0))");
  // Without a table, chains still split by their look.
  Trace bare = parse(kHead + kBody);
  EXPECT_EQ(bare.siteFrames(bare.events[2].site), (std::vector<std::string_view>{"libhalo_x.so+1a2b", "23d0", "1234"}));
  EXPECT_EQ(bare.siteDescription(bare.events[1].site), "");
}

std::string generate(const Trace& t, const std::string& backend) {
  using namespace gen;
  return createBackend(backend)->render(buildProgram(t, "named.tgt"), GenOptions{"tracegen named.tgt -o bench", "bench"});
}

TEST(SiteNames, GeneratedCommentsNameTheSites) {
  const Trace named = tracegen::testing::loweredText(kHead + kFrames + kBody, "named.tgt");
  const std::string c = generate(named, "c");
  EXPECT_NE(c.find("E1 MPI_Send in exchange_1 (exchange.f:77) <- halo::ssor <- solver::step <- main (lu_like+0x8e31)"),
            std::string::npos)
      << c;
  EXPECT_NE(c.find("E3 MPI_Finalize at 11b0"), std::string::npos) << c;
  const std::string n = generate(named, "ncptl");
  EXPECT_NE(n.find("at recv_halo (halo.c:12) <- solver::step <- main (libhalo_x.so+0x1a2b)"), std::string::npos) << n;
  // Without names, the text of before.
  const Trace plain = tracegen::testing::loweredText(kHead + kBody, "named.tgt");
  const std::string pc = generate(plain, "c");
  EXPECT_NE(pc.find("E1 MPI_Send at 8e31_4981_23d0_1234"), std::string::npos) << pc;
  EXPECT_EQ(pc.find("exchange"), std::string::npos) << pc;
}

}  // namespace
}  // namespace tracegen
