// The traversal must produce a program in which every rank makes exactly the calls the trace
// gives it. These tests interpret the Program per rank (loops, guards, expressions) and
// compare with the rank's RankCursor expansion, call by call.
#include <gtest/gtest.h>

#include <map>

#include "bench/SyntheticStencil.h"
#include "gen/Traversal.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "passes/PassManager.h"

using namespace tracegen;
using namespace tracegen::gen;

namespace {

struct SimCall {
  Op op;
  std::int64_t eventId;
  Rank peer;
  std::int64_t count;
  double computeUs;
};

class Interpreter {
 public:
  Interpreter(const Program& p, Rank rank) : p_(p), rank_(rank) {}
  std::vector<SimCall> run() {
    walk(p_.body);
    return calls_;
  }

 private:
  void walk(const std::vector<Stmt>& body) {
    for (const auto& s : body) {
      if (!s.ranks.contains(rank_)) continue;
      if (s.kind == Stmt::Kind::Loop) {
        auto n = static_cast<std::int64_t>(s.loop.iterations.eval(rank_, p_.numRanks, entries_[s.loop.id]++, first_));
        for (std::int64_t i = 0; i < n; ++i) {
          first_[s.loop.id] = i == 0;
          iteration_[s.loop.id] = i;
          walk(s.loop.body);
        }
        continue;
      }
      const CallStmt& c = s.call;
      std::int64_t k = executions_[&c]++;
      if (c.executionIndex) {  // the loop-derived index must agree with the counter
        std::int64_t derived = 0;
        for (auto [loop, mult] : *c.executionIndex) derived += mult * iteration_.at(loop);
        EXPECT_EQ(derived, k) << "execution index of event " << c.event->id;
      }
      SimCall call{c.op, c.event->id, -1, 0, c.computeUs.eval(rank_, p_.numRanks, k, first_)};
      auto value = [&](Param p, double fallback) {
        auto it = c.params.find(p);
        return it == c.params.end() ? fallback : it->second.eval(rank_, p_.numRanks, k, first_);
      };
      OpKind kind = opInfo(c.op).kind;
      if (kind == OpKind::Send || kind == OpKind::Isend || kind == OpKind::Sendrecv) call.peer = static_cast<Rank>(value(Param::Dest, -1));
      if (kind == OpKind::Recv || kind == OpKind::Irecv) call.peer = static_cast<Rank>(value(Param::Source, -1));
      if (isRooted(c.op)) call.peer = static_cast<Rank>(value(Param::Root, -1));
      call.count = static_cast<std::int64_t>(value(Param::Count, 0));
      calls_.push_back(call);
    }
  }

  const Program& p_;
  Rank rank_;
  std::vector<SimCall> calls_;
  std::map<int, std::int64_t> entries_;
  std::map<int, bool> first_;
  std::map<int, std::int64_t> iteration_;
  std::map<const CallStmt*, std::int64_t> executions_;
};

void expectProgramMatchesTrace(const Trace& t, const Program& p) {
  for (Rank r = 0; r < t.numRanks; ++r) {
    auto sim = Interpreter(p, r).run();
    RankCursor cursor(t, r);
    Call call;
    std::size_t i = 0;
    while (cursor.next(call)) {
      ASSERT_LT(i, sim.size()) << "rank " << r << ": program ends early";
      const SimCall& s = sim[i];
      ASSERT_EQ(s.op, call.op) << "rank " << r << " call " << i;
      EXPECT_EQ(s.eventId, call.event->id) << "rank " << r << " call " << i;
      Rank peer = call.peer;
      if (isRooted(call.op)) peer = call.root;
      if (peer >= 0 || peer == kAnySource) {
        EXPECT_EQ(s.peer, peer) << "rank " << r << " call " << i;
      }
      EXPECT_EQ(s.count, call.count) << "rank " << r << " call " << i;
      EXPECT_NEAR(s.computeUs, std::max(call.computeUs, 0.0), 1e-6) << "rank " << r << " call " << i;
      ++i;
    }
    EXPECT_EQ(i, sim.size()) << "rank " << r << ": program has extra calls";
  }
}

std::size_t countLoops(const std::vector<Stmt>& body) {
  std::size_t n = 0;
  for (const auto& s : body)
    if (s.kind == Stmt::Kind::Loop) n += 1 + countLoops(s.loop.body);
  return n;
}

}  // namespace

TEST(Traversal, StencilBecomesOneTimestepLoop) {
  Trace t = makeStencilTrace(4, 4, 20);
  PassContext ctx;
  PassManager({"resolve-comms", "summarize-timing"}).run(t, ctx);
  Program p = buildProgram(t, "stencil");
  // Init, the loop, Finalize: the nine rank groups share one loop.
  ASSERT_EQ(p.body.size(), 3u);
  EXPECT_EQ(p.body[1].kind, Stmt::Kind::Loop);
  EXPECT_EQ(countLoops(p.body), 1u);
  EXPECT_EQ(p.body[1].loop.iterations, Expr::constant(20));
  expectProgramMatchesTrace(t, p);
}

namespace {

// Every statement of a collective names whole communicator instances: languages that write a
// collective as one statement over its members (coNCePTuaL) can then replay it as itself.
void expectNoSplitCollective(const Program& p, const std::vector<Stmt>& body) {
  for (const auto& s : body) {
    if (s.kind == Stmt::Kind::Loop) {
      expectNoSplitCollective(p, s.loop.body);
      continue;
    }
    if (opInfo(s.call.op).kind != OpKind::Collective) continue;
    const Expr* comm = s.call.params.count(Param::Comm) ? &s.call.params.at(Param::Comm) : nullptr;
    std::vector<std::int64_t> ids;
    if (!comm) {
      ids.push_back(kCommWorld);
    } else if (comm->isConst()) {
      ids.push_back(static_cast<std::int64_t>(comm->value));
    } else {
      for (const auto& c : comm->children)
        if (c.isConst()) ids.push_back(static_cast<std::int64_t>(c.value));
    }
    for (std::int64_t id : ids) {
      if (id == kCommSelf) continue;
      std::vector<RankList> instances;
      if (id == kCommWorld) instances.push_back(s.call.event->ranks);
      for (const auto& c : p.comms)
        if (c.id == id) instances = c.instances;
      for (const auto& inst : instances) {
        if (!inst.intersects(s.ranks)) continue;
        EXPECT_TRUE(inst.isSubsetOf(s.ranks)) << opName(s.call.op) << " of event " << s.call.event->id << " over "
                                              << s.ranks.pretty() << " leaves out members of " << inst.pretty();
      }
    }
  }
}

}  // namespace

TEST(Traversal, NpbTracesReplayExactlyOnEveryRank) {
  // LU's rank 2 runs its last Allreduce in a loop nest of its own; a greedy merge of the rank
  // classes split that Allreduce into two statements.
  for (const char* name : {"scalatrace2-npb-td-lu-A-4.trace", "scalatrace2-npb-ti-lu-A-4.trace",
                           "scalatrace2-npb-tic-lu-A-4.trace", "scalatrace2-npb-ti-cg-A-4.trace"}) {
    SCOPED_TRACE(name);
    Trace t = readTraceFile(std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/" + name);
    PassContext ctx;
    ctx.options.instructionRate = 1e9;
    PassManager({"resolve-comms", "summarize-timing"}).run(t, ctx);
    Program p = buildProgram(t, name);
    EXPECT_GT(p.loops, 0);
    expectProgramMatchesTrace(t, p);
    expectNoSplitCollective(p, p.body);
  }
}


TEST(Traversal, WaitsomeWithoutPatternWaitsOnTheRecentRequests) {
  // 5,000 iterations of Isend, Irecv and a Waitsome that completed one or two requests, as
  // timing had it (a pseudo-random sequence: no period), then a Waitall for what is left.
  std::string counts, requests, rest;
  std::uint32_t x = 12345;
  for (int i = 0; i < 5000; ++i) {
    x = x * 1103515245u + 12345u;
    const bool both = (x >> 16) & 1;
    counts += both ? " 2" : " 1";
    requests += both ? " 9998 9999" : " 9999";
    rest += both ? " -1 -1" : " 9998 -1";
  }
  const std::string text = "tracegen-trace 1\nranks 2\norigin test\ndatatype MPI_DOUBLE 8\n"
                           "event 0 MPI_Init @ <1 0 {2 1}>\n  site a\n"
                           "event 1 MPI_Isend @ <1 0 {2 1}>\n  site b\n  loop 0 iter 5000\n  loop 0 mem 4\n"
                           "  count 8\n  datatype MPI_DOUBLE\n  dest rel 1\n  tag 0\n"
                           "event 2 MPI_Irecv @ <1 0 {2 1}>\n  site c\n  count 8\n  datatype MPI_DOUBLE\n"
                           "  source rel 1\n  tag 0\n"
                           "event 3 MPI_Waitsome @ <1 0 {2 1}>\n  site d\n  count" + counts + "\n  requests" + requests + "\n"
                           "event 4 MPI_Waitall @ <1 0 {2 1}>\n  site e\n  count 2\n  requests" + rest + "\n"
                           "event 5 MPI_Finalize @ <1 0 {2 1}>\n  site f\n";
  Trace t = readTracegenText(sourceFromString("waitsome.tgt", text));
  PassContext ctx;
  PassManager({"resolve-comms", "summarize-timing"}).run(t, ctx);
  Program p = buildProgram(t, "waitsome");
  auto inLoop = [&](Op op) -> const Stmt* {  // the call `op` in the program's loop
    for (const auto& s : p.body)
      if (s.kind == Stmt::Kind::Loop)
        for (const auto& b : s.loop.body)
          if (b.kind == Stmt::Kind::Call && b.call.op == op) return &b;
    return nullptr;
  };
  const Stmt* waitsome = inLoop(Op::Waitsome);
  ASSERT_NE(waitsome, nullptr);
  // Every request any execution named (offsets 9999 and 9998), and a count to match.
  EXPECT_EQ(waitsome->call.vectors.at(Param::Requests), (std::vector<Expr>{Expr::constant(9999), Expr::constant(9998)}));
  EXPECT_EQ(waitsome->call.params.at(Param::Count), Expr::constant(2));
  // The Waitall's entries (null where the Waitsome completed the request) follow the same
  // non-pattern: it waits on both recent requests.
  const Stmt* waitall = inLoop(Op::Waitall);
  ASSERT_NE(waitall, nullptr);
  EXPECT_EQ(waitall->call.vectors.at(Param::Requests), (std::vector<Expr>{Expr::constant(9999), Expr::constant(9998)}));
  ASSERT_EQ(p.notes.size(), 2u);
  EXPECT_NE(p.notes[0].find("MPI_Waitsome of trace event 3"), std::string::npos) << p.notes[0];
  EXPECT_NE(p.notes[1].find("MPI_Waitall of trace event 4"), std::string::npos) << p.notes[1];
}

namespace {

// The loop statements of a body, depth first.
void collectLoops(const std::vector<Stmt>& body, std::vector<const Stmt*>& out) {
  for (const auto& s : body)
    if (s.kind == Stmt::Kind::Loop) {
      out.push_back(&s);
      collectLoops(s.loop.body, out);
    }
}

std::vector<double> tripCycle(const Expr& e) {
  if (e.isConst()) return {e.value};
  std::vector<double> v;
  for (const auto& c : e.children) v.push_back(c.value);
  return v;
}

Program lowered(Trace& t, const std::string& name) {
  PassContext ctx;
  PassManager({"resolve-comms", "summarize-timing"}).run(t, ctx);
  return buildProgram(t, name);
}

}  // namespace

// Loops whose body length changes per entry (§8 "Value vectors"): one loop statement per
// body length, with a trip count per entry (0 where that length was not used), and guards for
// the events that follow the loop on some entries only. Interpreted per rank, the program
// makes exactly the trace's calls, with their counts, peers and computation.
TEST(Traversal, LoopsWhoseBodyChangesPerEntryReplayExactly) {
  const std::string structures = std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace-structures/";
  const std::string samples = std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/";
  for (const std::string& path : {samples + "vector-loop-4.tgt", structures + "vector-loop-4.trace",
                                  samples + "lcs-nested-2.tgt", structures + "lcs-nested-2.trace",
                                  structures + "fragment-4.trace"}) {
    SCOPED_TRACE(path);
    Trace t = readTraceFile(path);
    Program p = lowered(t, path);
    expectProgramMatchesTrace(t, p);
    expectNoSplitCollective(p, p.body);
  }
}

TEST(Traversal, OneLoopStatementPerBodyLength) {
  Trace t = readTraceFile(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/vector-loop-4.tgt");
  Program p = lowered(t, "vector-loop-4");
  std::vector<const Stmt*> loops;
  collectLoops(p.body, loops);
  // The time-step loop, then the Allreduce loops of bodies 3, 2 and 1 with their trip counts
  // per time step, then the guards of the Bcast (bodies 2 and 1 leave it out) and of the
  // Sendrecv (body 1 leaves it out).
  ASSERT_EQ(loops.size(), 6u);
  EXPECT_EQ(loops[0]->loop.iterations, Expr::constant(5));
  std::vector<std::vector<double>> trips;
  for (std::size_t i = 1; i < loops.size(); ++i) trips.push_back(tripCycle(loops[i]->loop.iterations));
  EXPECT_EQ(trips, (std::vector<std::vector<double>>{
                       {2, 0, 0, 0, 0}, {0, 1, 1, 0, 0}, {0, 0, 0, 1, 1}, {0, 0, 0, 1, 1}, {0, 1, 1, 1, 1}}));
  for (std::size_t i = 1; i <= 3; ++i) EXPECT_EQ(loops[i]->loop.head->id, 2);
  EXPECT_EQ(loops[4]->loop.body.at(0).call.op, Op::Bcast);
  EXPECT_EQ(loops[5]->loop.body.at(0).call.op, Op::Sendrecv);
}

TEST(Traversal, ClassesWithAndWithoutVaryingBodiesMerge) {
  // Ranks 0-1 recorded the sample's loop shapes, ranks 2-3 the same calls as one loop of the
  // whole group: two class trees, one built by running the rank, merged into one program.
  // (Without collectives: a collective in two shapes cannot be one statement.)
  Trace t = readTraceFile(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/vector-loop-4.tgt");
  for (Event& e : t.events)
    if (e.op == Op::Allreduce || e.op == Op::Bcast) e.op = Op::Sendrecv;
  for (Event& e : t.events)
    if (e.op == Op::Sendrecv) {
      e.setParam(Param::Dest, {ValueGroup{e.ranks, std::vector<std::int64_t>{1}}}, true);
      e.setParam(Param::Source, {ValueGroup{e.ranks, std::vector<std::int64_t>{3}}}, true);
      e.setParam(Param::RecvCount, {ValueGroup{e.ranks, std::vector<std::int64_t>{16}}});
      e.setParam(Param::RecvType, {ValueGroup{e.ranks, t.events[4].param(Param::RecvType)->groups[0].values}});
    }
  LoopLevel& lv = t.events[2].loops.at(0);
  lv.mem = {ValueGroup{RankList::progression(0, 2), std::vector<std::int64_t>{3, 2, 2, 1, 1}}, ValueGroup{RankList::progression(2, 2), std::vector<std::int64_t>{3}}};
  Program p = lowered(t, "vector-loop-4-classes");
  expectProgramMatchesTrace(t, p);
  std::vector<const Stmt*> loops;
  collectLoops(p.body, loops);
  bool recorded = false;
  for (const Stmt* s : loops)
    recorded = recorded || (s->loop.head && s->loop.head->id == 2 && s->ranks.pretty() == "2-3" &&
                            tripCycle(s->loop.iterations) == std::vector<double>{2, 1, 1, 1, 1});
  EXPECT_TRUE(recorded);
  EXPECT_EQ(p.body.size(), 3u);  // one time-step loop for all ranks
}

TEST(Traversal, FragmentIsGeneratedBetweenInitAndFinalize) {
  Trace t = readTraceFile(std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace-structures/fragment-4.trace");
  Program p = lowered(t, "fragment-4");
  ASSERT_GE(p.body.size(), 3u);
  EXPECT_EQ(p.body.front().call.op, Op::Init);
  EXPECT_EQ(p.body.back().call.op, Op::Finalize);
  EXPECT_EQ(p.body[1].kind, Stmt::Kind::Loop);
}

// ---- the one evaluator of expressions (gen/Program.cpp)

TEST(ExprEval, CyclesOverExecutionsAndChoosesByRankAndFirstIteration) {
  using gen::Expr;
  // Ranks 0-1: offsets +1, +3 cycling per execution; ranks 2-3: 7 in the first iteration of
  // loop 5, 9 afterwards.
  const Expr e = Expr::byRank({RankList::progression(0, 2), RankList::progression(2, 2)},
                              {Expr::byExecution({Expr::rankOffset(1), Expr::rankOffset(3)}),
                               Expr::firstIteration(5, Expr::constant(7), Expr::constant(9))});
  EXPECT_EQ(e.eval(0, 4, 0, {}), 1);
  EXPECT_EQ(e.eval(0, 4, 1, {}), 3);
  EXPECT_EQ(e.eval(1, 4, 5, {}), 0);  // (1 + 3) mod 4
  EXPECT_EQ(e.eval(2, 4, 0, {{5, true}}), 7);
  EXPECT_EQ(e.eval(3, 4, 0, {{5, false}}), 9);
  EXPECT_EQ(e.eval(3, 4, 0, {}), 9);  // a loop not named is not in its first iteration
  EXPECT_EQ(e.executionPeriod(), 2);
  std::vector<int> loops;
  e.firstIterationLoops(loops);
  EXPECT_EQ(loops, std::vector<int>{5});
  EXPECT_FALSE(e.perExecutionInvariant());
  // atExecution settles the execution and keeps the choice by rank; its value is eval's.
  for (std::int64_t k = 0; k < 4; ++k)
    for (bool f : {true, false}) {
      const Expr at = e.atExecution(k, {{5, f}});
      EXPECT_TRUE(at.perExecutionInvariant());
      EXPECT_EQ(at.kind, Expr::Kind::ByRank);
      for (Rank r = 0; r < 4; ++r) EXPECT_EQ(at.eval(r, 4, 0, {}), e.eval(r, 4, k, {{5, f}})) << r << " " << k;
    }
  EXPECT_EQ(Expr::byExecution({Expr::constant(1), Expr::byExecution({Expr::constant(2), Expr::constant(3),
                                                                     Expr::constant(4)})})
                .executionPeriod(),
            6);
  EXPECT_THROW(Expr::byRank({RankList::single(0)}, {Expr::constant(1)}).eval(1, 4, 0, {}), std::logic_error);
}
