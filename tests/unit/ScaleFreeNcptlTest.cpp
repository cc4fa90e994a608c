// Scale-free coNCePTuaL programs (gen/conceptual/ScaleFree.cpp on Program::scaleFree,
// extrap/ScaleFree.h): built from hand-written rings and synthetic stencils, the program's rank
// sets must be written as conditions on the task's grid coordinates, its values as arithmetic on
// num_tasks and the grid's extents, and the one program must pass the checker in generated mode
// with its per-task simulation at every task count its formulas fit, and fail its own ASSERTs
// (naming why) at a count they do not fit. The grid it chooses is checked against the C runtime's
// (extrap/topology/Grid.h defaultGrid) by asserting the extents inside the program.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "bench/SyntheticStencil.h"
#include "extrap/ScaleFree.h"
#include "tests/unit/ExtrapolateTraces.h"
#include "extrap/topology/Grid.h"
#include "gen/Backend.h"
#include "io/Readers.h"
#include "ncptl/Checker.h"

namespace tracegen::extrap {
namespace {

using traces::input;
using traces::ringText;
using traces::sortText;

using gen::Expr;



std::string renderNcptl(const gen::Program& p) {
  return gen::createBackend("ncptl")->render(p, gen::GenOptions{"tracegen extrapolate", "bench.ncptl"});
}

// The checker's verdict with the simulation run with `tasks` tasks: "" if accepted (the
// simulation done), else every diagnostic.
std::string checkAt(const std::string& text, std::int64_t tasks) {
  ncptl::CheckOptions o;
  o.generated = true;
  o.scaleFree = true;
  o.tasks = tasks;
  const ncptl::CheckResult r = ncptl::check(text, o);
  std::string out;
  for (const auto& d : r.diagnostics) out += fmt::format("line {}: {}\n", d.where.line, d.message);
  if (r.ok() && !r.simulated) out += fmt::format("no per-task simulation with {} tasks\n", tasks);
  if (r.ok() && r.simulated && r.simulatedTasks != tasks) out += "simulated with another task count\n";
  return r.ok() && out.empty() ? std::string() : (r.ok() ? "" : "rejected:\n") + out;
}

TEST(ScaleFreeNcptl, CgLikeRelationPeersAreArithmeticOnTheTask) {
  std::vector<ExtrapolateInput> in{input("cg8.tgt", traces::cgText(8)), input("cg16.tgt", traces::cgText(16)),
                                   input("cg32.tgt", traces::cgText(32))};
  const ScaleFreeResult r = buildScaleFree(in);
  const std::string text = renderNcptl(r.program);
  // The row's partner at the statement's execution (the loop variable: the loop runs once
  // per entry here) and the transpose partner from t's coordinates.
  EXPECT_NE(text.find("FROM TASK (t XOR (1 << ((i0) MOD (BITS(px) - 1))))"), std::string::npos) << text;
  EXPECT_NE(text.find("TO UNSUSPECTING TASK (t XOR (1 << ((i0) MOD (BITS(px) - 1))))"), std::string::npos);
  EXPECT_NE(text.find("((px/py)*(t/px) + (t MOD px) MOD (px/py) + px*((t MOD px)/(px/py)))"), std::string::npos);
  EXPECT_NE(text.find("\"this benchmark needs px a multiple of py\" WITH py DIVIDES px"), std::string::npos);
  // Simulated with every task's sends matched by its partner's receives at 32 (8x4) and 64
  // (8x8); at 24 (6x4) px is no power of two and the program's ASSERT stops it.
  EXPECT_EQ(checkAt(text, 32), "");
  EXPECT_EQ(checkAt(text, 64), "");
  EXPECT_NE(checkAt(text, 24).find("px a power of two"), std::string::npos) << checkAt(text, 24);
}

TEST(ScaleFreeNcptl, HandWrittenAllToAllPeersAreArithmeticOnTheTask) {
  std::vector<ExtrapolateInput> in{input("pw4.tgt", traces::pairwiseText(4)), input("pw8.tgt", traces::pairwiseText(8)),
                                   input("pw16.tgt", traces::pairwiseText(16))};
  const std::string text = renderNcptl(buildScaleFree(in).program);
  // Round i0 of the pairwise exchange: t XOR (1 + i0 MOD (P - 1)); of the shift: t + 1 + i1.
  EXPECT_NE(text.find("(t XOR (1 + (i0) MOD (num_tasks - 1)))"), std::string::npos) << text;
  EXPECT_NE(text.find("(t + 1 + i1 MOD (num_tasks - 1)) MOD num_tasks"), std::string::npos) << text;
  // Every send matched by its partner's receive at 32 and 64 tasks; at 24 the ASSERT stops it.
  EXPECT_EQ(checkAt(text, 32), "");
  EXPECT_EQ(checkAt(text, 64), "");
  EXPECT_NE(checkAt(text, 24).find("a power of two"), std::string::npos) << checkAt(text, 24);
}

TEST(ScaleFreeNcptl, BlockCountsAreTwoTaskSetsSplitAtTheCoordinate) {
  // 10 doubles per point of the rank's rows, 20 points over sqrt(P) rows (ExtrapolateTraces.h,
  // pipeText): a message specification cannot name the task's coordinate, so each count is
  // spelled for the tasks below 20 MOD py (one point more) and for the others.
  std::vector<ExtrapolateInput> in{input("pipe4.tgt", traces::pipeText(2, 20)), input("pipe9.tgt", traces::pipeText(3, 20)),
                                   input("pipe16.tgt", traces::pipeText(4, 20))};
  const ScaleFreeResult r = buildScaleFree(in);
  const std::string text = renderNcptl(r.program);
  EXPECT_NE(text.find("t/px < 20 MOD py RECEIVE A 8*(10*(20/py + 1))*msg_scale/100 BYTE MESSAGE"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("t/px >= 20 MOD py RECEIVE A 8*(10*(20/py))*msg_scale/100 BYTE MESSAGE"),
            std::string::npos);
  EXPECT_NE(text.find("t/px < 20 MOD py SEND A 8*(10*(20/py + 1))*msg_scale/100 BYTE MESSAGE"), std::string::npos);
  EXPECT_NE(text.find("ASSERT THAT \"this benchmark needs a square grid (px = py: a square task count), as the traces'\" "
                      "WITH px = py"),
            std::string::npos);
  EXPECT_NE(text.find("WITH py <= 20"), std::string::npos);
  // The last row's count is the block's too, though floor(20/q) at the templates q = 3 .. 7 is
  // also 9 - q, which a formula of the scale would take and get wrong at 8x8 (2 points, not 1).
  EXPECT_EQ(text.find("90 - 10*px"), std::string::npos) << text;
  // Every send matched by a receive of its size at 4x4 (20 points split evenly), 6x6 (4, 4, 3,
  // 3, 3, 3) and 7x7; 6x4 is no square, 21x21 leaves a row without a point.
  for (std::int64_t p : {16, 36, 49}) EXPECT_EQ(checkAt(text, p), "") << p << " tasks\n" << text;
  EXPECT_NE(checkAt(text, 24).find("a square grid"), std::string::npos) << checkAt(text, 24);
  EXPECT_NE(checkAt(text, 441).find("py at most 20"), std::string::npos);
}

TEST(ScaleFreeNcptl, CountsThatFollowTheDataAreAMulticastOfTheirEvenSplit) {
  // 65536 keys over P ranks, every pair its own count: 65536/P^2 ints per pair.
  std::vector<ExtrapolateInput> in;
  for (Rank p : {8, 16, 32}) in.push_back(input(fmt::format("sort{}.tgt", p), sortText(p, 65536 / p)));
  const std::string text = renderNcptl(buildScaleFree(in).program);
  EXPECT_NE(text.find("ALL TASKS MULTICAST A 4*(65536/(num_tasks*num_tasks))*msg_scale/100 BYTE MESSAGE TO ALL OTHER "
                      "TASKS"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("WITH num_tasks*num_tasks DIVIDES 65536."), std::string::npos);
  for (std::int64_t p : {4, 64, 256}) EXPECT_EQ(checkAt(text, p), "") << p << " tasks\n" << text;
  EXPECT_NE(checkAt(text, 24).find("num_tasks*num_tasks dividing 65536"), std::string::npos) << checkAt(text, 24);
}

TEST(ScaleFreeNcptl, RingIsOneProgramForEveryTaskCountItsFormulasFit) {
  // Messages of 1024/P ints: strong scaling in a ring of P-1 steps tagged by the step.
  std::vector<ExtrapolateInput> in{input("ring4.tgt", ringText(4, 256)), input("ring8.tgt", ringText(8, 128)),
                                   input("ring16.tgt", ringText(16, 64))};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  const std::string text = renderNcptl(r.program);
  // No fixed count; the least one and the condition of 1024/P.
  EXPECT_EQ(text.find("num_tasks = "), std::string::npos) << text;
  EXPECT_NE(text.find("ASSERT THAT \"this benchmark needs 2 tasks or more\" WITH num_tasks >= 2."), std::string::npos);
  EXPECT_NE(text.find("ASSERT THAT \"this benchmark needs the task count dividing 1024\" WITH num_tasks DIVIDES 1024."),
            std::string::npos)
      << text;
  // The loop of P-1 steps, the step's tag, the wrapped neighbours, the size.
  EXPECT_NE(text.find("FOR EACH i0 IN {0, 1, ..., num_tasks - 2} {"), std::string::npos) << text;
  EXPECT_NE(text.find("USING TAG i0 MOD (num_tasks - 1)"), std::string::npos) << text;
  EXPECT_NE(text.find("ALL TASKS t ASYNCHRONOUSLY SEND A 4*(1024/num_tasks)*msg_scale/100 BYTE MESSAGE"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TO UNSUSPECTING TASK (t+1) MOD num_tasks"), std::string::npos);
  EXPECT_NE(text.find("FROM TASK (t+num_tasks-1) MOD num_tasks"), std::string::npos);
  for (std::int64_t p : {2, 4, 8, 16, 32, 64}) EXPECT_EQ(checkAt(text, p), "") << p << " tasks\n" << text;
  // The simulation's traffic at 8 tasks: 7 steps, each task sends one message of 4*1024/8 bytes
  // to its right and receives one from its left per step; MPI_Init's SYNCHRONIZE is its one
  // collective.
  ncptl::CheckOptions o;
  o.generated = true;
  o.scaleFree = true;
  o.tasks = 8;
  const ncptl::CheckResult at8 = ncptl::check(text, o);
  ASSERT_EQ(at8.traffic.size(), 8U);
  for (const auto& t : at8.traffic) EXPECT_EQ(t, (ncptl::TaskTraffic{7, 7 * 512, 7, 7 * 512, 1}));
  // Checked as a program of one scale, it lacks its num_tasks = P.
  o.scaleFree = false;
  const ncptl::CheckResult fixed = ncptl::check(text, o);
  ASSERT_FALSE(fixed.ok());
  EXPECT_NE(fixed.diagnostics.front().message.find("must state its task count"), std::string::npos);
  // 1024/6 is not whole: the program stops with the words of its ASSERT.
  const std::string at6 = checkAt(text, 6);
  EXPECT_NE(at6.find("this benchmark needs the task count dividing 1024"), std::string::npos) << at6;
  EXPECT_NE(at6.find("fails with num_tasks = 6"), std::string::npos) << at6;
}

TEST(ScaleFreeNcptl, StencilRankSetsAreConditionsOnTheGridCoordinates) {
  std::vector<ExtrapolateInput> in{{"s3x3.tgt", makeStencilTrace(3, 3, 20)},
                                   {"s3x4.tgt", makeStencilTrace(3, 4, 20)},
                                   {"s4x4.tgt", makeStencilTrace(4, 4, 20)}};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_EQ(r.program.scaleFree->dims, 2);
  const std::string text = renderNcptl(r.program);
  // The grid is bound once; rank sets are conditions on x = t MOD px and y = t/px; peers are
  // one grid step away; no task is named by number.
  EXPECT_NE(text.find("FOR EACH ext1 IN {cx FOR EACH cx IN {1, ..., SQRT(num_tasks)}"), std::string::npos) << text;
  EXPECT_NE(text.find("LET px BE grid_px IF grid_px > 0 OTHERWISE ext1\n      AND py BE num_tasks/px WHILE {"),
            std::string::npos);
  EXPECT_NE(text.find("grid_px IS \"Extent of the task grid in x (0: balanced)\" AND COMES FROM \"--px\""),
            std::string::npos);
  EXPECT_NE(text.find("TASKS t SUCH THAT t/px < py - 1 ASYNCHRONOUSLY RECEIVE A 32768*msg_scale/100 BYTE MESSAGE FROM "
                      "TASK t+px"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TASKS t SUCH THAT t MOD px > 0 ASYNCHRONOUSLY SEND A 32768*msg_scale/100 BYTE MESSAGE TO "
                      "UNSUSPECTING TASK t-1"),
            std::string::npos);
  EXPECT_NE(text.find("TASK t-px"), std::string::npos);
  EXPECT_NE(text.find("TASK t+1"), std::string::npos);
  EXPECT_EQ(text.find("TASK 1 "), std::string::npos);
  EXPECT_NE(text.find("ASSERT THAT \"this benchmark needs every extent of the grid to be 2 or more\" WITH px >= 2 /\\ "
                      "py >= 2 THEN"),
            std::string::npos)
      << text;
  for (std::int64_t p : {4, 6, 9, 12, 16, 20, 24, 36, 64}) EXPECT_EQ(checkAt(text, p), "") << p << " tasks\n" << text;
  // 7 tasks are a 1x7 grid: refused by the ASSERT, before any communication.
  EXPECT_NE(checkAt(text, 7).find("needs every extent of the grid to be 2 or more\" fails with num_tasks = 7"),
            std::string::npos)
      << checkAt(text, 7);
  // The program does not depend on the scales it was made from.
  std::vector<ExtrapolateInput> other{{"s3x4.tgt", makeStencilTrace(3, 4, 20)},
                                      {"s4x4.tgt", makeStencilTrace(4, 4, 20)},
                                      {"s4x5.tgt", makeStencilTrace(4, 5, 20)}};
  std::string text2 = renderNcptl(buildScaleFree(other).program);
  auto fromBody = [](const std::string& t) { return t.substr(t.find("REQUIRE LANGUAGE")); };
  EXPECT_EQ(fromBody(text), fromBody(text2));
}

TEST(ScaleFreeNcptl, TheGridIsTheCRuntimesBalancedGridOrTheOneGiven) {
  std::vector<ExtrapolateInput> in{{"s3x3.tgt", makeStencilTrace(3, 3, 2)},
                                   {"s3x4.tgt", makeStencilTrace(3, 4, 2)},
                                   {"s4x4.tgt", makeStencilTrace(4, 4, 2)}};
  const std::string text = renderNcptl(buildScaleFree(in).program);
  const std::string bind = "AND py BE num_tasks/px WHILE {\n";
  const std::size_t at = text.find(bind);
  ASSERT_NE(at, std::string::npos) << text;
  for (Rank p : {4, 6, 8, 12, 18, 24, 30, 36, 48, 60, 64, 100}) {
    const Grid g = defaultGrid(p, 2, false);
    // An ASSERT of the extents the C runtime chooses, first inside the grid's bindings.
    std::string probe = text;
    probe.insert(at + bind.size(),
                 fmt::format("    ASSERT THAT \"grid {}x{}\" WITH px = {} /\\ py = {} THEN\n", g.ext[0], g.ext[1], g.ext[0], g.ext[1]));
    EXPECT_EQ(checkAt(probe, p), "") << p << " tasks";
  }
  // --px as given: the default of the parameter is what the simulation uses.
  std::string given = text;
  const std::string param = "COMES FROM \"--px\" OR \"-x\" WITH DEFAULT 0.";
  ASSERT_NE(given.find(param), std::string::npos);
  given.replace(given.find(param), param.size(), "COMES FROM \"--px\" OR \"-x\" WITH DEFAULT 3.");
  given.insert(given.find(bind) + bind.size(), "    ASSERT THAT \"grid 3x8\" WITH px = 3 /\\ py = 8 THEN\n");
  EXPECT_EQ(checkAt(given, 24), "");
  // A --px that does not divide the task count is refused at the top.
  EXPECT_NE(checkAt(given, 16).find("--px must divide the task count"), std::string::npos) << checkAt(given, 16);
}

// A hand-built 1-D scale-free program: a loop of num_tasks trips around a barrier whose
// computation is a real formula, and a broadcast of log2(P) doubles from the last task.
gen::Program handBuilt() {
  gen::Program p;
  p.numRanks = 3;  // the position classes first, interior, last
  p.scaleFree = gen::ScaleFreeGrid{1, false, "hand-built"};
  p.source = "hand-built";
  p.origin = "test";
  p.datatypes = {{1, "MPI_DOUBLE", 8}};
  p.comms = standardCommunicators(3);
  const RankList all = RankList::all(3);
  auto call = [&](Op op, std::map<Param, Expr> params, Expr compute) {
    gen::Stmt s;
    s.ranks = all;
    s.call.op = op;
    s.call.params = std::move(params);
    s.call.computeUs = std::move(compute);
    return s;
  };
  gen::ScaleFormula tasks;  // num_tasks
  tasks.num = 1;
  tasks.c1num = 1;
  gen::ScaleFormula time;  // 0.5 + 0.25 * P microseconds
  time.num = 1;
  time.integer = false;
  time.c0 = 0.5;
  time.c1 = 0.25;
  gen::ScaleFormula last;  // P - 1
  last.num = 1;
  last.c0num = -1;
  last.c1num = 1;
  gen::ScaleFormula log;  // log2(P)
  log.logPower = 1;
  log.c1num = 1;
  const Expr world = Expr::constant(static_cast<double>(kCommWorld));
  gen::Stmt loop;
  loop.kind = gen::Stmt::Kind::Loop;
  loop.ranks = all;
  loop.loop.id = 1;
  loop.loop.iterations = Expr::scaled(tasks);
  loop.loop.body.push_back(call(Op::Barrier, {{Param::Comm, world}}, Expr::scaled(time)));
  p.body.push_back(call(Op::Init, {}, Expr::constant(0)));
  p.body.push_back(std::move(loop));
  p.body.push_back(call(Op::Bcast,
                        {{Param::Comm, world},
                         {Param::Root, Expr::scaled(last)},
                         {Param::Count, Expr::scaled(log)},
                         {Param::Datatype, Expr::constant(1)}},
                        Expr::constant(0)));
  p.body.push_back(call(Op::Finalize, {}, Expr::constant(0)));
  return p;
}

TEST(ScaleFreeNcptl, TripCountsTimesRootsAndLogarithmsAreFormulas) {
  const std::string text = renderNcptl(handBuilt());
  EXPECT_NE(text.find("FOR num_tasks REPETITIONS {"), std::string::npos) << text;
  EXPECT_NE(text.find("ALL TASKS COMPUTE FOR REAL((50 + 25*num_tasks)*compute_scale/10000) MICROSECONDS THEN\n"
                      "  ALL TASKS SYNCHRONIZE"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("TASK (num_tasks - 1) MULTICASTS A 8*(BITS(num_tasks) - 1)*msg_scale/100 BYTE MESSAGE TO ALL "
                      "OTHER TASKS"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("ASSERT THAT \"this benchmark needs the task count a power of two\" WITH 1 << (BITS(num_tasks) "
                      "- 1) = num_tasks."),
            std::string::npos)
      << text;
  for (std::int64_t p : {2, 8, 64}) EXPECT_EQ(checkAt(text, p), "") << p << " tasks\n" << text;
  EXPECT_NE(checkAt(text, 6).find("a power of two\" fails with num_tasks = 6"), std::string::npos) << checkAt(text, 6);
}

// A scale-free program of `dims` dimensions (descending: x the longest side) in which every
// task sends 32 bytes to the next task along x, periodic, and receives from the previous one.
gen::Program shiftAlongX(int dims, bool descending) {
  gen::Program p;
  p.numRanks = dims == 2 ? 9 : 27;
  p.scaleFree = gen::ScaleFreeGrid{dims, descending, "hand-built"};
  p.source = "hand-built";
  p.datatypes = {{1, "MPI_DOUBLE", 8}};
  p.comms = standardCommunicators(p.numRanks);
  const RankList all = RankList::all(p.numRanks);
  auto call = [&](Op op, std::map<Param, Expr> params) {
    gen::Stmt s;
    s.ranks = all;
    s.call.op = op;
    s.call.params = std::move(params);
    return s;
  };
  gen::GridStep right, left;
  right.step = {1, 0, 0};
  right.wrap = {true, false, false};
  left.step = {-1, 0, 0};
  left.wrap = {true, false, false};
  const Expr world = Expr::constant(static_cast<double>(kCommWorld));
  auto message = [&](Param peer, const gen::GridStep& g) {
    return std::map<Param, Expr>{{Param::Comm, world}, {Param::Count, Expr::constant(4)},
                                 {Param::Datatype, Expr::constant(1)}, {Param::Tag, Expr::constant(0)},
                                 {peer, Expr::gridPeer(g)}};
  };
  p.body = {call(Op::Init, {}), call(Op::Irecv, message(Param::Source, left)), call(Op::Isend, message(Param::Dest, right)),
            call(Op::Waitall, {}), call(Op::Finalize, {})};
  return p;
}

TEST(ScaleFreeNcptl, PeersAcrossAPeriodicEdgeAreMeshNeighbours) {
  const std::string text = renderNcptl(shiftAlongX(2, false));
  EXPECT_NE(text.find("FROM TASK MESH_NEIGHBOR((px*, py), t, (-1, 0))"), std::string::npos) << text;
  EXPECT_NE(text.find("ALL TASKS t ASYNCHRONOUSLY SEND A 32*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK "
                      "MESH_NEIGHBOR((px*, py), t, (1, 0))"),
            std::string::npos)
      << text;
  for (std::int64_t n : {4, 6, 12, 30}) EXPECT_EQ(checkAt(text, n), "") << n << " tasks\n" << text;
  const std::string text3 = renderNcptl(shiftAlongX(3, false));
  EXPECT_NE(text3.find("TO UNSUSPECTING TASK MESH_NEIGHBOR((px*, py, pz), t, (1, 0, 0))"), std::string::npos) << text3;
}

// The grid each program binds is the C runtime's (extrap/topology/Grid.h defaultGrid) at every task
// count, in 2-D and 3-D, ascending and descending: an ASSERT of defaultGrid's extents, put first
// inside the program's bindings, must hold in the simulation.
TEST(ScaleFreeNcptl, TheGridIsTheCRuntimesInTwoAndThreeDimensionsBothWays) {
  for (int dims : {2, 3}) {
    for (bool descending : {false, true}) {
      const std::string text = renderNcptl(shiftAlongX(dims, descending));
      const std::size_t at = text.find("WHILE {\n");
      ASSERT_NE(at, std::string::npos) << text;
      for (Rank p : {8, 12, 18, 24, 27, 30, 36, 48, 60, 64, 72, 96}) {
        const Grid g = defaultGrid(p, dims, descending);
        if (g.ext[0] < 2 || g.ext[1] < 2 || (dims == 3 && g.ext[2] < 2)) continue;
        std::string probe = text;
        probe.insert(at + 8, fmt::format("ASSERT THAT \"grid {}\" WITH px = {} /\\ py = {}{} THEN\n", g.str(), g.ext[0],
                                         g.ext[1], dims == 3 ? fmt::format(" /\\ pz = {}", g.ext[2]) : ""));
        EXPECT_EQ(checkAt(probe, p), "") << dims << "-D" << (descending ? " descending" : "") << ", " << p << " tasks";
      }
    }
  }
}

TEST(ScaleFreeNcptl, WildcardReceivesAreRefused) {
  // A receive from MPI_ANY_SOURCE stays a wildcard in a scale-free program: coNCePTuaL must
  // name the sender, which no formula of the grid gives.
  auto text = [](Rank p) {
    return fmt::format(
        "tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_INT 4\n"
        "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n  site w.c:10\n"
        "event 1 MPI_Send @ <1 1 {{{1} 1}}>\n  site w.c:20\n  comm 2\n  count 4\n  datatype MPI_INT\n  dest 0\n  tag 5\n"
        "event 2 MPI_Recv @ <1 0 {{1 1}}>\n  site w.c:30\n  loop 0 iter {1}\n  loop 0 mem 1\n  comm 2\n  count 4\n"
        "  datatype MPI_INT\n  source any\n  tag 5\n"
        "event 3 MPI_Finalize @ <1 0 {{{0} 1}}>\n  site w.c:40\n",
        p, p - 1);
  };
  std::vector<ExtrapolateInput> in{input("w4.tgt", text(4)), input("w6.tgt", text(6)), input("w8.tgt", text(8))};
  const ScaleFreeResult r = buildScaleFree(in);
  try {
    renderNcptl(r.program);
    FAIL() << "rendered";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("MPI_ANY_SOURCE: a scale-free coNCePTuaL program cannot name the sender"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace tracegen::extrap
