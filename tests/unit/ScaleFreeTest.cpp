// Scale-free benchmarks (extrap/ScaleFree.h) on hand-written and synthetic traces: the program's
// rank sets are position classes and its values formulas of the scale, and the C backend writes
// them as conditions on the grid coordinates and C arithmetic, in a program that compiles.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>

#include "bench/SyntheticStencil.h"
#include "extrap/ScaleFree.h"
#include "tests/unit/ExtrapolateTraces.h"
#include "gen/Backend.h"
#include "io/Readers.h"
#include "ir/Diagnostics.h"
#include "ir/Summary.h"
#include "tests/unit/CompileC.h"

namespace tracegen::extrap {
namespace {

using traces::input;
using traces::ringText;
using traces::sortText;

using gen::Expr;



const gen::Stmt* findLoop(const std::vector<gen::Stmt>& body) {
  for (const auto& s : body)
    if (s.kind == gen::Stmt::Kind::Loop) return &s;
  return nullptr;
}

std::string renderC(const gen::Program& p) {
  return gen::createBackend("c")->render(p, gen::GenOptions{"tracegen extrapolate", "bench.c"});
}

TEST(ScaleFree, RingTripCountTagAndPeerFollowTheRankCount) {
  // Messages of 1024/P elements: strong scaling in a ring.
  std::vector<ExtrapolateInput> in{input("ring4.tgt", ringText(4, 256)), input("ring8.tgt", ringText(8, 128)),
                                   input("ring16.tgt", ringText(16, 64))};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_EQ(r.program.scaleFree->dims, 1);
  EXPECT_EQ(r.program.numRanks, 3);  // the position classes first, interior, last
  EXPECT_EQ(r.templates.size(), 5U);
  const gen::Stmt* loop = findLoop(r.program.body);
  ASSERT_NE(loop, nullptr);
  ASSERT_EQ(loop->loop.iterations.kind, Expr::Kind::Formula);
  const gen::ScaleFormula& trips = loop->loop.iterations.formula;
  EXPECT_EQ(trips.var, gen::ScaleFormula::Var::P);
  EXPECT_EQ(trips.c0num, -1);
  EXPECT_EQ(trips.c1num, 1);
  const gen::CallStmt& call = loop->loop.body.at(0).call;
  EXPECT_EQ(call.params.at(Param::Dest).kind, Expr::Kind::GridPeer);
  EXPECT_EQ(call.params.at(Param::Dest).grid.step[0], 1);
  EXPECT_TRUE(call.params.at(Param::Dest).grid.wrap[0]);
  EXPECT_EQ(call.params.at(Param::Tag).kind, Expr::Kind::Progression);
  EXPECT_EQ(call.params.at(Param::Count).kind, Expr::Kind::Formula);

  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("for (long i0 = 0; i0 < nranks - 1; ++i0)"), std::string::npos) << c;
  EXPECT_NE(c.find("(rank + 1) % nranks"), std::string::npos);
  EXPECT_NE(c.find("(rank + nranks - 1) % nranks"), std::string::npos);
  EXPECT_NE(c.find("msg_count(1024 / nranks)"), std::string::npos);
  EXPECT_NE(c.find("(calls % (nranks - 1))"), std::string::npos);
  // 1024/P must be whole: the benchmark checks it before it communicates.
  EXPECT_NE(c.find("if (!(1024 % nranks == 0))"), std::string::npos);
  EXPECT_NE(c.find("return \"the rank count dividing 1024\";"), std::string::npos);
  EXPECT_NE(c.find(".grid_dims = 1,"), std::string::npos);
  testing::expectCompilesUnderBothMpis(c, "scalefree-ring");
}

TEST(ScaleFree, StencilRankSetsAreConditionsOnTheGridCoordinates) {
  std::vector<ExtrapolateInput> in{{"s3x3.tgt", makeStencilTrace(3, 3, 20)},
                                   {"s3x4.tgt", makeStencilTrace(3, 4, 20)},
                                   {"s4x4.tgt", makeStencilTrace(4, 4, 20)}};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_EQ(r.program.scaleFree->dims, 2);
  EXPECT_EQ(r.program.numRanks, 9);
  const std::string c = renderC(r.program);
  // Interior ranks, and peers one grid step away, without wrap-around.
  EXPECT_NE(c.find("x > 0 && x < px - 1 && y > 0 && y < py - 1"), std::string::npos) << c;
  EXPECT_NE(c.find("rank - px"), std::string::npos);
  EXPECT_NE(c.find("rank + 1"), std::string::npos);
  EXPECT_EQ(c.find("grid_rank("), std::string::npos);
  EXPECT_NE(c.find("x = rank % px, y = rank / px;"), std::string::npos);
  const std::string own = c.substr(c.rfind("==== tracegen: benchmark of"));
  EXPECT_EQ(own.find("rank == "), std::string::npos) << own;  // no rank is named
  testing::expectCompilesUnderBothMpis(c, "scalefree-stencil");
  // The program does not depend on the scale it was made at: the same text from inputs of
  // other sizes.
  std::vector<ExtrapolateInput> other{{"s3x4.tgt", makeStencilTrace(3, 4, 20)},
                                      {"s4x4.tgt", makeStencilTrace(4, 4, 20)},
                                      {"s4x5.tgt", makeStencilTrace(4, 5, 20)}};
  const std::string c2 = renderC(buildScaleFree(other).program);
  EXPECT_EQ(c.substr(c.rfind("==== tracegen: benchmark of")).size(), c2.substr(c2.rfind("==== tracegen: benchmark of")).size());
}

// A CG-like code on an ncols x nrows grid numbered along its rows (col fastest, ncols >= nrows,
// as NPB CG): MPI_Comm_split by row (colour = row, key = world rank), an MPI_Allreduce of
// 1024/ncols doubles on the row communicator, MPI_Comm_free.
std::string rowSplitText(Rank ncols, Rank nrows) {
  const Rank p = ncols * nrows;
  std::string instances, colors;
  for (Rank r = 0; r < nrows; ++r) {
    instances += fmt::format(" (<1 {} {{{} 1}}>)", r * ncols, ncols);
    colors += fmt::format("  color {} @ <1 {} {{{} 1}}>\n", r, r * ncols, ncols);
  }
  return fmt::format(
      "tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
      "comm 1 self\ncomm 2 world (<1 0 {{{0} 1}}>)\ncomm 1000 split{1}\n"
      "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n  site cg.c:10\n"
      "event 1 MPI_Comm_split @ <1 0 {{{0} 1}}>\n  site cg.c:20\n  comm 2\n{2}  key rel 0\n  newcomm 1000\n"
      "event 2 MPI_Allreduce @ <1 0 {{{0} 1}}>\n  site cg.c:30\n  loop 0 iter 10\n  loop 0 mem 1\n  comm 1000\n"
      "  count {3}\n  datatype MPI_DOUBLE\n  op MPI_SUM\n"
      "event 3 MPI_Comm_free @ <1 0 {{{0} 1}}>\n  site cg.c:40\n  comm 1000\n"
      "event 4 MPI_Finalize @ <1 0 {{{0} 1}}>\n  site cg.c:50\n",
      p, instances, colors, 1024 / ncols);
}

TEST(ScaleFree, RowCommunicatorsOfAGridNumberedAlongItsLongestSide) {
  std::vector<ExtrapolateInput> in{input("cg8.tgt", rowSplitText(4, 2)), input("cg16.tgt", rowSplitText(4, 4)),
                                   input("cg32.tgt", rowSplitText(8, 4))};
  // At a fixed scale: the 64-rank trace has a row communicator per row of 8.
  const ExtrapolateResult x = extrapolate(in, ExtrapolateOptions{64, {}});
  EXPECT_TRUE(x.descending);
  EXPECT_EQ(x.target.str(), "8x8");
  const Communicator* rows = nullptr;
  for (const auto& c : x.trace.comms)
    if (c.id == 1000) rows = &c;
  ASSERT_NE(rows, nullptr);
  ASSERT_EQ(rows->instances.size(), 8U);
  EXPECT_EQ(rows->instances[3].str(), "<1 24 {8 1}>");
  const Trace want = readTracegenText(sourceFromString("cg64.tgt", rowSplitText(8, 8)));
  const TraceSummary got = summarizeTrace(x.trace, "x"), expected = summarizeTrace(want, "want");
  ASSERT_EQ(got.perRank.size(), expected.perRank.size());
  for (std::size_t k = 0; k < got.perRank.size(); ++k) EXPECT_EQ(got.perRank[k].ops, expected.perRank[k].ops);
  EXPECT_EQ(x.trace.events[2].uniformValue(Param::Count), 128);
  EXPECT_EQ(x.trace.events[1].param(Param::Color)->groups.size(), 8U);
  // Scale-free: the colour is the row, y.
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_TRUE(r.program.scaleFree->descending);
  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("MPI_Comm_split(MPI_COMM_WORLD, y, rank, new_comm_at(1000));"), std::string::npos) << c;
  EXPECT_NE(c.find("msg_count(1024 / px)"), std::string::npos);
  EXPECT_NE(c.find(".grid_descending = 1,"), std::string::npos);
  testing::expectCompilesUnderBothMpis(c, "scalefree-rows");
}

TEST(ScaleFree, CgLikePeersAreRelationsOnTemplatesOfPowersOfTwo) {
  // 1024/py and 1024/px doubles need extents dividing 1024 and the row sum px a power of two:
  // no grid of extents apart fits, the power-of-two grids do.
  std::vector<ExtrapolateInput> in{input("cg8.tgt", traces::cgText(8)), input("cg16.tgt", traces::cgText(16)),
                                   input("cg32.tgt", traces::cgText(32))};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_TRUE(r.program.scaleFree->descending);
  std::vector<std::string> grids;
  for (const Grid& g : r.templates) grids.push_back(g.str());
  EXPECT_EQ(grids, (std::vector<std::string>{"4x4", "8x4", "8x8", "16x8", "16x16"}));
  const gen::Stmt* loop = findLoop(r.program.body);
  ASSERT_NE(loop, nullptr);
  // The row sum's steps: log2(px), as the relation has them.
  ASSERT_EQ(loop->loop.iterations.kind, Expr::Kind::Formula);
  const gen::ScaleFormula& trips = loop->loop.iterations.formula;
  EXPECT_EQ(trips.var, gen::ScaleFormula::Var::Px);
  EXPECT_EQ(trips.num, 0);
  EXPECT_EQ(trips.logPower, 1);
  EXPECT_EQ(trips.c1num, 1);
  EXPECT_EQ(trips.c0num, 0);
  const gen::CallStmt& sum = loop->loop.body.at(0).call;
  ASSERT_EQ(sum.params.at(Param::Source).kind, Expr::Kind::RelationPeer);
  EXPECT_EQ(sum.params.at(Param::Source).relation, gen::GridRelation::RowXor);
  EXPECT_EQ(loop->loop.body.at(1).call.params.at(Param::Dest).relation, gen::GridRelation::RowXor);
  EXPECT_EQ(sum.params.at(Param::Tag).kind, Expr::Kind::Progression);
  EXPECT_EQ(sum.params.at(Param::Count).formula.var, gen::ScaleFormula::Var::Py);
  const gen::CallStmt* transpose = nullptr;
  for (const auto& s : r.program.body)
    if (s.kind == gen::Stmt::Kind::Call && s.call.op == Op::Irecv) transpose = &s.call;
  ASSERT_NE(transpose, nullptr);
  ASSERT_EQ(transpose->params.at(Param::Source).kind, Expr::Kind::RelationPeer);
  EXPECT_EQ(transpose->params.at(Param::Source).relation, gen::GridRelation::Transpose);
  EXPECT_EQ(transpose->params.at(Param::Count).formula.var, gen::ScaleFormula::Var::Px);
  EXPECT_EQ(r.stats.at("relation peers"), 4);

  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("(rank ^ (1 << (calls % ilog2(px))))"), std::string::npos) << c;
  EXPECT_NE(c.find("grid_rank(px / py * y + x % (px / py), x / (px / py), 0)"), std::string::npos);
  EXPECT_NE(c.find("for (long i0 = 0; i0 < ilog2(px); ++i0)"), std::string::npos);
  // The relations' domains, checked before the benchmark communicates.
  EXPECT_NE(c.find("if (!(is_power_of_two(px)))"), std::string::npos);
  EXPECT_NE(c.find("if (!(px % py == 0))"), std::string::npos);
  EXPECT_NE(c.find("return \"px a multiple of py\";"), std::string::npos);
  testing::expectCompilesUnderBothMpis(c, "scalefree-cg");
}

TEST(ScaleFree, NoTemplateFamilyFitsEveryModel) {
  // The transpose of 1000/px elements (250, 250, 125 at 4x2, 4x4, 8x4): no grid of extents apart
  // has the row's relation, and the grids of powers of two have 1000/px up to 8x8 only.
  std::vector<ExtrapolateInput> in{input("cg8.tgt", traces::cgText(8, 1000)),
                                   input("cg16.tgt", traces::cgText(16, 1000)),
                                   input("cg32.tgt", traces::cgText(32, 1000))};
  try {
    buildScaleFree(in);
    FAIL() << "built";
  } catch (const InputError& e) {
    const std::string m = e.render();
    EXPECT_NE(m.find("it needs 5 template scales at which every model has a value, and found 0 among grids with "
                     "extents of at least 3, none a multiple of another (at the first that did not: "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("and 3 among the grids of powers of two (at the first that did not: "), std::string::npos) << m;
    EXPECT_NE(m.find("1000/px"), std::string::npos) << m;
    EXPECT_NE(m.find("P=128 (16x8)"), std::string::npos) << m;
  }
}

// Recursive doubling over all p = 2^n ranks: log2(p) MPI_Sendrecv steps with rank XOR 2^k, tag k.
std::string doublingText(Rank p) {
  int steps = 0;
  while ((Rank{1} << steps) < p) ++steps;
  std::string peers, tags;
  for (const char* key : {"dest", "source"})
    for (Rank r = 0; r < p; ++r) {
      peers += fmt::format("  {} rel", key);
      for (int k = 0; k < steps; ++k) peers += fmt::format(" {}", (((r ^ (Rank{1} << k)) - r) % p + p) % p);
      peers += fmt::format(" @ <1 {} {{1 1}}>\n", r);
    }
  for (int k = 0; k < steps; ++k) tags += fmt::format(" {}", k);
  return fmt::format(
      "tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_INT 4\n"
      "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n  site rd.c:10\n"
      "event 1 MPI_Sendrecv @ <1 0 {{{0} 1}}>\n  site rd.c:20\n  loop 0 iter {1}\n  loop 0 mem 1\n  comm 2\n"
      "  count 16\n  datatype MPI_INT\n  recvcount 16\n  recvtype MPI_INT\n{2}  tag{3}\n  recvtag{3}\n"
      "event 2 MPI_Finalize @ <1 0 {{{0} 1}}>\n  site rd.c:30\n",
      p, steps, peers, tags);
}

TEST(ScaleFree, RecursiveDoublingOverAllRanksIsTheRelationIn1D) {
  // In 1-D the row is every rank: the partner is rank XOR 2^k over log2(P) steps.
  std::vector<ExtrapolateInput> in{input("rd4.tgt", doublingText(4)), input("rd8.tgt", doublingText(8)),
                                   input("rd16.tgt", doublingText(16))};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_EQ(r.program.scaleFree->dims, 1);
  const gen::Stmt* loop = findLoop(r.program.body);
  ASSERT_NE(loop, nullptr);
  const gen::CallStmt& call = loop->loop.body.at(0).call;
  EXPECT_EQ(call.params.at(Param::Dest).kind, Expr::Kind::RelationPeer);
  EXPECT_EQ(call.params.at(Param::Source).relation, gen::GridRelation::RowXor);
  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("(rank ^ (1 << (calls % ilog2(nranks))))"), std::string::npos) << c;
  EXPECT_NE(c.find("for (long i0 = 0; i0 < ilog2(nranks); ++i0)"), std::string::npos);
  EXPECT_NE(c.find("return \"the rank count a power of two\";"), std::string::npos);
  testing::expectCompilesUnderBothMpis(c, "scalefree-doubling");
}

TEST(ScaleFree, HandWrittenAllToAllIsAPairwiseRelationAndAShiftProgression) {
  // Rounds of rank XOR i, i = 1 .. P-1, and of a shift exchange, offsets 1 .. P-1.
  std::vector<ExtrapolateInput> in{input("pw4.tgt", traces::pairwiseText(4)), input("pw8.tgt", traces::pairwiseText(8)),
                                   input("pw16.tgt", traces::pairwiseText(16))};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_EQ(r.program.scaleFree->dims, 1);
  std::vector<const gen::Stmt*> loops;
  for (const auto& s : r.program.body)
    if (s.kind == gen::Stmt::Kind::Loop) loops.push_back(&s);
  ASSERT_EQ(loops.size(), 2u);
  const gen::CallStmt& pairwise = loops[0]->loop.body.at(0).call;
  ASSERT_EQ(pairwise.params.at(Param::Dest).kind, Expr::Kind::RelationPeer);
  EXPECT_EQ(pairwise.params.at(Param::Dest).relation, gen::GridRelation::RowPairwise);
  const gen::CallStmt& shift = loops[1]->loop.body.at(0).call;
  EXPECT_EQ(shift.params.at(Param::Dest).kind, Expr::Kind::ProgressionPeer);
  EXPECT_EQ(shift.params.at(Param::Source).kind, Expr::Kind::ProgressionPeer);
  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("(rank ^ (1 + calls % (nranks - 1)))"), std::string::npos) << c;
  EXPECT_NE(c.find("((rank + (1 + calls % (nranks - 1))) % nranks)"), std::string::npos);
  EXPECT_NE(c.find("((rank + (nranks - 1 - calls % (nranks - 1))) % nranks)"), std::string::npos);
  EXPECT_NE(c.find("for (long i0 = 0; i0 < nranks - 1; ++i0)"), std::string::npos);
  EXPECT_NE(c.find("return \"the rank count a power of two\";"), std::string::npos);
  testing::expectCompilesUnderBothMpis(c, "scalefree-pairwise");
}

// The Block expressions in e.
void blocks(const Expr& e, std::vector<gen::BlockTerm>& out) {
  if (e.kind == Expr::Kind::Block) out.push_back(e.block);
  for (const auto& c : e.children) blocks(c, out);
}

TEST(ScaleFree, SquareOnlyCodeTakesSquareTemplatesAndBlockCounts) {
  // 20 points over q rows: 7, 7, 6 at 3x3, 5 at 4x4, 4, 4, 3, 3, 3, 3 at 6x6. The counts of a
  // class differ between its ranks at some templates and not at others; every input is square.
  std::vector<ExtrapolateInput> in{input("pipe4.tgt", traces::pipeText(2, 20)), input("pipe9.tgt", traces::pipeText(3, 20)),
                                   input("pipe16.tgt", traces::pipeText(4, 20))};
  const ScaleFreeResult r = buildScaleFree(in);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_TRUE(r.program.scaleFree->square);
  std::vector<std::string> grids;
  for (const Grid& g : r.templates) grids.push_back(g.str());
  EXPECT_EQ(grids, (std::vector<std::string>{"3x3", "4x4", "5x5", "6x6", "7x7"}));
  const gen::CallStmt* recv = nullptr;
  const gen::CallStmt* allreduce = nullptr;
  for (const auto& s : r.program.body) {
    if (s.kind == gen::Stmt::Kind::Call && s.call.op == Op::Recv) recv = &s.call;
    if (s.kind == gen::Stmt::Kind::Call && s.call.op == Op::Allreduce) allreduce = &s.call;
  }
  ASSERT_NE(recv, nullptr);
  std::vector<gen::BlockTerm> bs;
  blocks(recv->params.at(Param::Count), bs);
  ASSERT_FALSE(bs.empty());
  for (const gen::BlockTerm& b : bs) {
    // Along y (the rows the line crosses), with N, a and b the code's.
    EXPECT_EQ(b.dim, 1);
    EXPECT_EQ(b.points, 20);
    EXPECT_EQ(b.a, 0);
    EXPECT_EQ(b.b, 10);
  }
  // The one definition: 20 over 6 rows gives the first two 4 points and the others 3.
  EXPECT_EQ(bs.front().at({6, 6, 1}, {5, 1, 0}), 40);
  EXPECT_EQ(bs.front().at({6, 6, 1}, {0, 2, 0}), 30);
  EXPECT_TRUE(bs.front().definedOn({20, 20, 1}));
  EXPECT_FALSE(bs.front().definedOn({21, 21, 1}));
  // One column count per rank of the row, q: on square templates px and py are one number, and
  // the formula is written in px (as the extrapolation's own models are), never in py.
  ASSERT_NE(allreduce, nullptr);
  ASSERT_EQ(allreduce->params.at(Param::Count).kind, Expr::Kind::Formula);
  EXPECT_EQ(allreduce->params.at(Param::Count).formula.var, gen::ScaleFormula::Var::Px);
  EXPECT_GE(r.stats.at("block distributions"), 1);

  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("(10 * (20 / py + (y < 20 % py)))"), std::string::npos) << c;
  // The last row's too: floor(20/q) at q = 3 .. 7 is also 9 - q, a formula wrong at 8x8.
  EXPECT_EQ(c.find("90 - 10 * px"), std::string::npos) << c;
  // Square grids first, then the block's domain (every row a point), before any communication.
  const auto square = c.find("if (!(px == py))"), domain = c.find("if (!(py <= 20))");
  ASSERT_NE(square, std::string::npos);
  ASSERT_NE(domain, std::string::npos);
  EXPECT_LT(square, domain);
  EXPECT_NE(c.find("a square grid (px = py: a square rank count)"), std::string::npos);
  // The buffers hold the widest block's message: ceil(20/py) points.
  EXPECT_NE(c.find("(long long)(0 + 10 * ((20 + py - 1) / py)) * 8"), std::string::npos);
  testing::expectCompilesUnderBothMpis(c, "scalefree-pipe");
}

TEST(ScaleFree, TheSquareFamilyIsTakenOnlyWhenEveryInputIsSquare) {
  // A stencil recorded at 3x3, 4x4 and 5x5 runs on square grids only; at 3x3, 3x4 and 4x4 it
  // does not (StencilRankSetsAreConditionsOnTheGridCoordinates).
  std::vector<ExtrapolateInput> square{{"s3x3.tgt", makeStencilTrace(3, 3, 20)},
                                       {"s4x4.tgt", makeStencilTrace(4, 4, 20)},
                                       {"s5x5.tgt", makeStencilTrace(5, 5, 20)}};
  const ScaleFreeResult r = buildScaleFree(square);
  ASSERT_TRUE(r.program.scaleFree);
  EXPECT_TRUE(r.program.scaleFree->square);
  for (const Grid& g : r.templates) EXPECT_EQ(g.ext[0], g.ext[1]) << g.str();
  EXPECT_NE(renderC(r.program).find("if (!(px == py))"), std::string::npos);
  std::vector<ExtrapolateInput> mixed{{"s3x3.tgt", makeStencilTrace(3, 3, 20)},
                                      {"s3x4.tgt", makeStencilTrace(3, 4, 20)},
                                      {"s4x4.tgt", makeStencilTrace(4, 4, 20)}};
  const ScaleFreeResult m = buildScaleFree(mixed);
  ASSERT_TRUE(m.program.scaleFree);
  EXPECT_FALSE(m.program.scaleFree->square);
  EXPECT_EQ(renderC(m.program).find("px == py"), std::string::npos);
}

// The MPI_Alltoallv of the first statement of the program's loop.
const gen::CallStmt* alltoallv(const gen::Program& p) {
  const gen::Stmt* loop = findLoop(p.body);
  if (!loop) return nullptr;
  for (const auto& s : loop->loop.body)
    if (s.kind == gen::Stmt::Kind::Call && s.call.op == Op::Alltoallv) return &s.call;
  return nullptr;
}

TEST(ScaleFree, CountsThatFollowTheDataAreOneEvenSplitOfTheModelledTotal) {
  // Weak scaling: 4096 keys per rank, every pair its own count (ExtrapolateTraces.h, sortText).
  std::vector<ExtrapolateInput> weak;
  for (Rank p : {8, 16, 32}) weak.push_back(input(fmt::format("sort{}.tgt", p), sortText(p, 4096)));
  const ScaleFreeResult r = buildScaleFree(weak);
  const gen::CallStmt* call = alltoallv(r.program);
  ASSERT_NE(call, nullptr);
  // One count per pair for every side, 4096/P; no vector of the templates' length is left.
  for (Param p : {Param::SendCounts, Param::RecvCounts}) {
    ASSERT_EQ(call->evenVectors.count(p), 1U) << paramName(p);
    const Expr& e = call->evenVectors.at(p);
    ASSERT_EQ(e.kind, Expr::Kind::Formula);
    EXPECT_EQ(e.formula.var, gen::ScaleFormula::Var::P);
    EXPECT_EQ(e.formula.num, -1);
    EXPECT_EQ(e.formula.c1num, 4096);
  }
  EXPECT_TRUE(call->vectors.empty());
  EXPECT_EQ(r.stats.at("even splits of counts that follow the data"), 1);
  const std::string explained = fmt::format("{}", fmt::join(r.explanation, "\n"));
  EXPECT_NE(explained.find("counts per pair (they follow the data; approximate): 1365 at P=3 (3), 1024 at P=4 (4), "),
            std::string::npos)
      << explained;
  EXPECT_NE(explained.find("-> 4096/P (the mean total per rank 4096 over the rank count)"), std::string::npos) << explained;
  const std::string c = renderC(r.program);
  EXPECT_NE(c.find("int *sendcounts = even_counts(0, nranks, msg_count(4096 / nranks), &sdispls);"), std::string::npos)
      << c;
  EXPECT_NE(c.find("int *recvcounts = even_counts(1, nranks, msg_count(4096 / nranks), &rdispls);"), std::string::npos);
  // The buffers hold a block for every rank.
  EXPECT_NE(c.find("(long long)(4096 / nranks) * 4 * nranks"), std::string::npos);
  // The header says what is approximate, as the program computes it (not the inputs' figure at one scale).
  const std::string header = c.substr(0, c.find("*/"));
  EXPECT_NE(header.find("Approximate: event 1 MPI_Alltoallv's counts follow the application's data"), std::string::npos)
      << header;
  EXPECT_NE(header.find("4096/P elements at P ranks"), std::string::npos) << header;
  EXPECT_EQ(header.find("at P=32"), std::string::npos) << header;
  testing::expectCompilesUnderBothMpis(c, "scalefree-sort");

  // Strong scaling: 65536 keys in all, 65536/P per rank: 65536/P^2 per pair.
  std::vector<ExtrapolateInput> strong;
  for (Rank p : {8, 16, 32}) strong.push_back(input(fmt::format("sort{}.tgt", p), sortText(p, 65536 / p)));
  const std::string cs = renderC(buildScaleFree(strong).program);
  EXPECT_NE(cs.find("even_counts(0, nranks, msg_count(65536 / (nranks * nranks)), &sdispls)"), std::string::npos) << cs;
  EXPECT_NE(cs.find("return \"nranks * nranks dividing 65536\";"), std::string::npos);

  // A total of two terms, 4096 + 64*P per rank: its share per pair is no formula of one term.
  std::vector<ExtrapolateInput> twoTerms;
  for (Rank p : {8, 16, 32}) twoTerms.push_back(input(fmt::format("sort{}.tgt", p), sortText(p, 4096 + 64 * p)));
  try {
    buildScaleFree(twoTerms);
    ADD_FAILURE() << "a total of two terms was split";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("the mean total per rank 4096 + 64*P divided by the rank count is no formula of one term"),
              std::string::npos)
        << e.message();
  }
}

TEST(ScaleFree, ValuesNoModelFitsAreAnError) {
  // A count that jumps about with the scale: 100 at 4 ranks, 7 at 6, 100 at 8.
  std::vector<ExtrapolateInput> in{input("ring4.tgt", ringText(4, 100)), input("ring6.tgt", ringText(6, 7)),
                                   input("ring8.tgt", ringText(8, 100))};
  try {
    buildScaleFree(in);
    FAIL() << "built";
  } catch (const InputError& e) {
    EXPECT_NE(e.render().find("no model fits"), std::string::npos) << e.render();
  }
}

}  // namespace
}  // namespace tracegen::extrap
