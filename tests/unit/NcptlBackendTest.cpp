// Tests of the coNCePTuaL backend (gen/conceptual/): hand-built Programs of every kind of
// statement are rendered and the output must pass the checker in generated-code mode,
// including its per-task simulation (AWAIT placement, UNSUSPECTING sends matched by RECEIVEs,
// no blocking cycles); the expected coNCePTuaL forms of §5 are checked in the text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "gen/NcptlBackend.h"
#include "ncptl/Checker.h"

namespace tracegen::gen {
namespace {

constexpr std::int64_t kInt = 1, kDouble = 2, kChar = 3, kComm = 1000;

Stmt call(Op op, const RankList& ranks, std::map<Param, Expr> params = {}, Expr compute = Expr::constant(0),
          std::map<Param, std::vector<Expr>> vectors = {}) {
  Stmt s;
  s.kind = Stmt::Kind::Call;
  s.ranks = ranks;
  s.call.op = op;
  s.call.params = std::move(params);
  s.call.vectors = std::move(vectors);
  s.call.computeUs = std::move(compute);
  return s;
}

Stmt loop(int id, std::int64_t trips, const RankList& ranks, std::vector<Stmt> body) {
  Stmt s;
  s.kind = Stmt::Kind::Loop;
  s.ranks = ranks;
  s.loop.id = id;
  s.loop.iterations = Expr::constant(static_cast<double>(trips));
  s.loop.body = std::move(body);
  return s;
}

Expr c(double v) { return Expr::constant(v); }
Expr off(std::int64_t o) { return Expr::rankOffset(o); }
Expr byRank(std::vector<RankList> groups, std::vector<Expr> children) {
  return Expr::byRank(std::move(groups), std::move(children));
}
Expr byExec(std::vector<Expr> children) { return Expr::byExecution(std::move(children)); }
Expr first(int loopId, Expr a, Expr b) { return Expr::firstIteration(loopId, std::move(a), std::move(b)); }

Program program(Rank p, std::vector<Stmt> body) {
  Program prog;
  prog.numRanks = p;
  prog.source = "hand-built";
  prog.origin = "test";
  prog.datatypes = {{kInt, "MPI_INT", 4}, {kDouble, "MPI_DOUBLE", 8}, {kChar, "MPI_CHAR", 1}};
  prog.comms = standardCommunicators(p);
  // Two row communicators of a 2x2 grid under one id.
  Communicator rows;
  rows.id = kComm;
  rows.kind = "split";
  rows.instances = {RankList::progression(0, 2), RankList::progression(2, 2)};
  prog.comms.push_back(rows);
  RankList all = RankList::all(p);
  prog.body.push_back(call(Op::Init, all));
  for (auto& s : body) prog.body.push_back(std::move(s));
  prog.body.push_back(call(Op::Finalize, all, {}, c(5)));
  return prog;
}

struct Rendered {
  std::string text;
  ncptl::CheckResult check;
};

Rendered render(const Program& p) {
  auto backend = createNcptlBackend();
  GenOptions o{"tracegen test.tgt -o test.ncptl", "test.ncptl"};
  Rendered r;
  r.text = backend->render(p, o);
  ncptl::CheckOptions co;
  co.generated = true;
  r.check = ncptl::check(r.text, co);
  return r;
}

std::string problems(const Rendered& r) {
  std::string out;
  for (const auto& d : r.check.diagnostics) out += ncptl::formatDiagnostic("test.ncptl", r.text, d);
  return out + "\n--- program ---\n" + r.text;
}

bool has(const std::string& text, const std::string& piece) { return text.find(piece) != std::string::npos; }

#define EXPECT_VALID(r)                              \
  do {                                               \
    EXPECT_TRUE((r).check.ok()) << problems(r);      \
    EXPECT_TRUE((r).check.simulated) << problems(r); \
  } while (0)

#define EXPECT_HAS(r, piece) EXPECT_TRUE(has((r).text, piece)) << "missing: " << (piece) << "\n" << (r).text

const RankList kAll4 = RankList::all(4);

TEST(NcptlBackend, NameAndExtension) {
  auto b = createNcptlBackend();
  EXPECT_EQ(b->name(), "ncptl");
  EXPECT_EQ(b->extension(), ".ncptl");
}

TEST(NcptlBackend, SkeletonHeaderParametersAndFinalLog) {
  Rendered r = render(program(4, {}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "REQUIRE LANGUAGE VERSION \"1.5\".");
  EXPECT_HAS(r, "AND COMES FROM \"--compute-scale\" OR \"-c\" WITH DEFAULT 100.");
  EXPECT_HAS(r, "AND COMES FROM \"--msg-scale\" OR \"-m\" WITH DEFAULT 100.");
  EXPECT_HAS(r, "WITH num_tasks = 4.");
  EXPECT_HAS(r, "# Command: tracegen test.tgt -o test.ncptl");
  EXPECT_HAS(r, "ALL TASKS SYNCHRONIZE THEN\nALL TASKS RESET THEIR COUNTERS.");
  EXPECT_HAS(r, "ALL TASKS COMPUTE FOR 5*compute_scale/100 MICROSECONDS.");  // before MPI_Finalize
  EXPECT_HAS(r, "ALL TASKS LOG elapsed_usecs AS \"Total elapsed time (us)\".");
  // The final log is the last statement.
  EXPECT_LT(r.text.find("COMPUTE FOR 5*"), r.text.find("LOG elapsed_usecs"));
}

TEST(NcptlBackend, BlockingPointToPointAtEachRanksPosition) {
  // 0 -> 1 (tag 3), 2 -> 3: sender sides with UNSUSPECTING, receiver sides with RECEIVES.
  RankList senders = RankList::fromSorted({0, 2});
  RankList receivers = RankList::fromSorted({1, 3});
  Rendered r = render(program(4, {
      call(Op::Send, senders, {{Param::Dest, off(1)}, {Param::Count, c(100)}, {Param::Datatype, c(kDouble)}, {Param::Tag, c(3)}},
           c(42)),
      call(Op::Recv, receivers, {{Param::Source, off(3)}, {Param::Count, c(100)}, {Param::Datatype, c(kDouble)}, {Param::Tag, c(3)}}),
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "SEND A 800*msg_scale/100 BYTE MESSAGE USING TAG 3 TO UNSUSPECTING TASK t+1");
  EXPECT_HAS(r, "RECEIVE A 800*msg_scale/100 BYTE MESSAGE USING TAG 3 FROM TASK t-1");
  EXPECT_HAS(r, "COMPUTE FOR 42*compute_scale/100 MICROSECONDS");
  EXPECT_HAS(r, "# MPI_Send");
  EXPECT_HAS(r, "# MPI_Recv");
}

TEST(NcptlBackend, NonblockingRingAwaitsAfterTheLastWait) {
  // Isend right, Irecv left, Wait, Wait, in a 10-iteration loop: one AWAIT, after the
  // second wait, inside the loop body; the loop stays FOR n REPETITIONS.
  Rendered r = render(program(4, {loop(0, 10, kAll4, {
      call(Op::Isend, kAll4, {{Param::Dest, off(1)}, {Param::Count, c(4)}, {Param::Datatype, c(kInt)}}),
      call(Op::Irecv, kAll4, {{Param::Source, off(3)}, {Param::Count, c(4)}, {Param::Datatype, c(kInt)}}),
      call(Op::Wait, kAll4, {{Param::Request, c(9998)}}),
      call(Op::Wait, kAll4, {{Param::Request, c(9999)}}),
  })}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "FOR 10 REPETITIONS {");
  EXPECT_HAS(r, "ALL TASKS t ASYNCHRONOUSLY SEND A 16*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK (t+1) MOD num_tasks");
  EXPECT_HAS(r, "ASYNCHRONOUSLY RECEIVE A 16*msg_scale/100 BYTE MESSAGE FROM TASK (t+num_tasks-1) MOD num_tasks");
  std::size_t n = 0;
  for (std::size_t p = r.text.find("AWAIT COMPLETION"); p != std::string::npos; p = r.text.find("AWAIT COMPLETION", p + 1)) ++n;
  EXPECT_EQ(n, 1u) << r.text;
}

TEST(NcptlBackend, WaitallAndLeftoverRequestsAwaitedBeforeTheEnd) {
  // Rank 0 posts two Isends and waits for both with Waitall; rank 1 receives them blocking.
  // Rank 2 posts an Irecv that is never waited for in the trace: the program ends with an
  // AWAIT for it, matched by rank 3's send.
  Rendered r = render(program(4, {
      call(Op::Isend, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(8)}, {Param::Datatype, c(kChar)}}),
      call(Op::Isend, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(8)}, {Param::Datatype, c(kChar)}}),
      call(Op::Recv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(8)}, {Param::Datatype, c(kChar)}}),
      call(Op::Recv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(8)}, {Param::Datatype, c(kChar)}}),
      call(Op::Waitall, RankList::single(0), {{Param::Count, c(2)}}, c(0), {{Param::Requests, {c(9998), c(9999)}}}),
      call(Op::Irecv, RankList::single(2), {{Param::Source, c(3)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
      call(Op::Send, RankList::single(3), {{Param::Dest, c(2)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "TASK 0 AWAITS COMPLETION.");
  EXPECT_HAS(r, "TASK 2 AWAITS COMPLETION.");
  EXPECT_LT(r.text.find("TASK 2 AWAITS"), r.text.find("LOG elapsed_usecs"));
}

TEST(NcptlBackend, RequestsCarriedAcrossIterationsStayPending) {
  // The request posted in iteration i is waited for in iteration i+1 in the trace: it stays
  // pending across the iterations (an AWAIT at the end of the body would complete it before
  // its sender sent), so the loop is unrolled, and the header says so.
  Rendered r = render(program(2, {
      call(Op::Irecv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
      loop(0, 5, RankList::all(2), {
          call(Op::Send, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
          call(Op::Wait, RankList::single(1), {{Param::Request, c(9999)}}),
          call(Op::Irecv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
      }),
      call(Op::Send, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
      call(Op::Wait, RankList::single(1), {{Param::Request, c(9999)}}),
  }));
  EXPECT_VALID(r);
  EXPECT_FALSE(has(r.text, "end of the loop body")) << r.text;
  EXPECT_FALSE(has(r.text, "REPETITIONS")) << r.text;
  EXPECT_HAS(r, "stay pending, as in the trace");
  std::size_t n = 0;
  for (std::size_t p = r.text.find("TASK 1 AWAITS COMPLETION"); p != std::string::npos; p = r.text.find("TASK 1 AWAITS COMPLETION", p + 1)) ++n;
  EXPECT_EQ(n, 6u) << r.text;  // five iterations in line, then the last wait
}

// A halo exchange (issue 29): receives posted in a loop over directions, sends in another, one
// Waitall. The receive loop keeps its requests pending (a FOR EACH loop, every iteration the
// same), and the only AWAIT is the Waitall's; an AWAIT in the receive loop would deadlock, which
// the checker's simulation would report.
TEST(NcptlBackend, HaloExchangeKeepsReceivesPendingAcrossDirections) {
  Rendered r = render(program(4, {loop(0, 3, kAll4, {
      loop(1, 2, kAll4, {
          call(Op::Irecv, kAll4, {{Param::Source, byExec({off(1), off(3)})}, {Param::Count, c(4)}, {Param::Datatype, c(kInt)},
                                  {Param::Tag, c(5)}}),
      }),
      loop(2, 2, kAll4, {
          call(Op::Isend, kAll4, {{Param::Dest, byExec({off(3), off(1)})}, {Param::Count, c(4)}, {Param::Datatype, c(kInt)},
                                  {Param::Tag, c(5)}}),
      }),
      call(Op::Waitall, kAll4, {{Param::Count, c(4)}}, c(0), {{Param::Requests, {c(1), c(2), c(3), c(4)}}}),
  })}));
  EXPECT_VALID(r);
  EXPECT_FALSE(has(r.text, "end of the loop body")) << r.text;
  std::size_t n = 0;
  for (std::size_t p = r.text.find("AWAIT COMPLETION"); p != std::string::npos; p = r.text.find("AWAIT COMPLETION", p + 1)) ++n;
  EXPECT_EQ(n, 1u) << r.text;
  EXPECT_LT(r.text.find("RECEIVE"), r.text.find("SEND A"));
  EXPECT_LT(r.text.find("SEND A"), r.text.find("AWAIT COMPLETION"));
}

// More iterations than the backend unrolls, each leaving a request pending: refused, naming the
// loop, never approximated by an AWAIT that could deadlock.
TEST(NcptlBackend, LongLoopLeavingRequestsPendingIsRefused) {
  Program p = program(2, {
      loop(0, 100, RankList::all(2), {
          call(Op::Irecv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
      }),
      loop(1, 100, RankList::all(2), {
          call(Op::Send, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(1)}, {Param::Datatype, c(kInt)}}),
      }),
  });
  auto backend = createNcptlBackend();
  GenOptions o{"tracegen test.tgt -o test.ncptl", "test.ncptl"};
  try {
    backend->render(p, o);
    FAIL() << "rendered";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "loop 0")) << e.what();
    EXPECT_TRUE(has(e.what(), "leaves requests pending from one iteration to the next")) << e.what();
    EXPECT_TRUE(has(e.what(), "its 100 iterations are more than the 64 it unrolls")) << e.what();
  }
}

TEST(NcptlBackend, SendrecvIsAsyncPairPlusAwait) {
  Rendered r = render(program(4, {call(Op::Sendrecv, kAll4,
                                       {{Param::Dest, off(1)},
                                        {Param::Source, off(3)},
                                        {Param::Count, c(2)},
                                        {Param::Datatype, c(kDouble)},
                                        {Param::RecvCount, c(2)},
                                        {Param::RecvType, c(kDouble)},
                                        {Param::Tag, c(0)},
                                        {Param::RecvTag, c(0)}})}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "ALL TASKS t ASYNCHRONOUSLY SEND A 16*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK (t+1) MOD num_tasks THEN");
  EXPECT_HAS(r, "TASKS t SUCH THAT t >= 0 ASYNCHRONOUSLY RECEIVE A 16*msg_scale/100 BYTE MESSAGE FROM TASK (t+num_tasks-1) MOD num_tasks THEN");
  EXPECT_HAS(r, "ALL TASKS AWAIT COMPLETION.");
}

TEST(NcptlBackend, CollectivesOnTheWorld) {
  auto coll = [](Op op, std::map<Param, Expr> extra, std::map<Param, std::vector<Expr>> vec = {}) {
    std::map<Param, Expr> ps{{Param::Comm, c(kCommWorld)}, {Param::Count, c(4)}, {Param::Datatype, c(kDouble)}};
    for (auto& [k, v] : extra) ps[k] = v;
    return call(op, kAll4, ps, c(0), std::move(vec));
  };
  std::vector<Expr> fours(4, c(4));
  Rendered r = render(program(4, {
      coll(Op::Barrier, {}),
      coll(Op::Bcast, {{Param::Root, c(2)}}),
      coll(Op::Reduce, {{Param::Root, c(1)}}),
      coll(Op::Allreduce, {{Param::Datatype, c(kInt)}}),
      coll(Op::Alltoall, {}),
      coll(Op::Allgather, {}),
      coll(Op::Gather, {{Param::Root, c(0)}}),
      coll(Op::Scatter, {{Param::Root, c(0)}, {Param::RecvCount, c(4)}, {Param::RecvType, c(kDouble)}}),
      coll(Op::Allgatherv, {}, {{Param::RecvCounts, fours}}),
      coll(Op::Gatherv, {{Param::Root, c(3)}}, {{Param::RecvCounts, fours}}),
      coll(Op::Scatterv, {{Param::Root, c(0)}}, {{Param::SendCounts, {c(0), c(4), c(8), c(12)}}}),
      coll(Op::Alltoallv, {}, {{Param::SendCounts, {c(1), c(2), c(3), c(4)}}}),
      coll(Op::ReduceScatter, {}, {{Param::RecvCounts, {c(2), c(2), c(2), c(2)}}}),
      coll(Op::Scan, {}),
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "ALL TASKS SYNCHRONIZE.");
  EXPECT_HAS(r, "TASK 2 MULTICASTS A 32*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS.");
  EXPECT_HAS(r, "ALL TASKS REDUCE 4*msg_scale/100 DOUBLEWORDS TO TASK 1.");
  EXPECT_HAS(r, "ALL TASKS REDUCE 4*msg_scale/100 INTEGERS.");
  EXPECT_HAS(r, "ALL TASKS MULTICAST A 32*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS.");  // alltoall, allgather
  EXPECT_HAS(r, "ALL TASKS MULTICAST A 32*msg_scale/100 BYTE MESSAGE TO TASK 0.");         // gather
  EXPECT_HAS(r, "TASK 0 MULTICASTS A 32*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS.");  // scatter
  EXPECT_HAS(r, "TASK 0 MULTICASTS A 48*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS.");  // scatterv: 24 doubles / 4
  EXPECT_HAS(r, "ALL TASKS MULTICAST A 20*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS.");  // alltoallv: 4x10 doubles / 16 pairs
  EXPECT_HAS(r, "FOR EACH member IN {0, 1, ..., 3} {\n  ALL TASKS REDUCE 2*msg_scale/100 DOUBLEWORDS TO TASK member\n}");
  EXPECT_HAS(r, "TASKS t SUCH THAT t < 3 SEND A 32*msg_scale/100 BYTE MESSAGE TO TASK t+1.");  // scan chain
  EXPECT_HAS(r, "MPI_Scan has no coNCePTuaL equivalent");
  EXPECT_HAS(r, "MPI_Alltoallv is a many-to-many MULTICAST of the average");
}

TEST(NcptlBackend, VectorCountsThatCycleOverExecutionsAreCycledNotAveraged) {
  // MPI_Gatherv in a loop of 4 whose receive counts alternate 4, 12 per member: the
  // contribution is 32 bytes on even iterations and 96 on odd ones (before: always the mean, 64).
  std::vector<Expr> counts(4, byExec({c(4), c(12)}));
  Stmt g = call(Op::Gatherv, kAll4,
                {{Param::Comm, c(kCommWorld)}, {Param::Count, byExec({c(4), c(12)})}, {Param::Datatype, c(kDouble)},
                 {Param::Root, c(0)}},
                c(0), {{Param::RecvCounts, counts}});
  g.call.executionIndex = std::vector<std::pair<int, std::int64_t>>{{3, 1}};
  // MPI_Alltoallv whose send counts are 8 per peer in the first iteration and 2 afterwards.
  Stmt a = call(Op::Alltoallv, kAll4, {{Param::Comm, c(kCommWorld)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}},
                c(0), {{Param::SendCounts, std::vector<Expr>(4, first(3, c(8), c(2)))}});
  Rendered r = render(program(4, {loop(3, 4, kAll4, {g, a})}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "FOR EACH i3 IN {0, ..., 3} {");
  EXPECT_HAS(r, "ALL TASKS MULTICAST A 32*msg_scale/100 BYTE MESSAGE TO TASK 0");
  EXPECT_HAS(r, "ALL TASKS MULTICAST A 96*msg_scale/100 BYTE MESSAGE TO TASK 0");
  EXPECT_FALSE(has(r.text, "64*msg_scale/100")) << r.text;
  EXPECT_HAS(r, "IF i3 = 0 THEN {\n    ALL TASKS MULTICAST A 8*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS\n"
                "  } OTHERWISE {\n    ALL TASKS MULTICAST A 2*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS\n  }");
  EXPECT_FALSE(has(r.text, "is replaced by its mean")) << r.text;
}

TEST(NcptlBackend, VectorCountsInALoopOfVaryingTripCountsFollowTheCycle) {
  // The inner loop runs 2, 3, 2 iterations: it counts its iterations over all entries, so the
  // receive counts that cycle per execution are selected by that counter, as in any loop.
  Stmt g = call(Op::Allgatherv, kAll4, {{Param::Comm, c(kCommWorld)}, {Param::Count, c(4)}, {Param::Datatype, c(kChar)}},
                c(0), {{Param::RecvCounts, std::vector<Expr>(4, byExec({c(4), c(12)}))}});
  Stmt inner = loop(1, 2, kAll4, {g});
  inner.loop.iterations = byExec({c(2), c(3)});
  Rendered r = render(program(4, {loop(0, 3, kAll4, {inner})}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "FOR EACH i1 IN {i0/2*5, ..., i0/2*5 + 1} {\n      # MPI_Allgatherv: averaged contribution\n      IF i1 MOD 2 = 0 THEN {");
  EXPECT_TRUE(!has(r.text, "replaced by its mean")) << r.text;
}

TEST(NcptlBackend, SubCommunicatorCollectivesPerInstance) {
  // Row communicators of a 2x2 grid: one barrier, reduction and broadcast per row.
  Rendered r = render(program(4, {
      call(Op::Barrier, kAll4, {{Param::Comm, c(kComm)}}),
      call(Op::Allreduce, kAll4, {{Param::Comm, c(kComm)}, {Param::Count, c(1)}, {Param::Datatype, c(kDouble)}}),
      call(Op::Bcast, kAll4,
           {{Param::Comm, c(kComm)}, {Param::Count, c(8)}, {Param::Datatype, c(kChar)},
            {Param::Root, byRank({RankList::progression(0, 2), RankList::progression(2, 2)}, {c(0), c(3)})}}),
      call(Op::Barrier, kAll4, {{Param::Comm, c(kCommSelf)}}),  // a no-op
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "TASKS t SUCH THAT t < 2 SYNCHRONIZE THEN\nTASKS t SUCH THAT t >= 2 SYNCHRONIZE.");
  EXPECT_HAS(r, "TASKS t SUCH THAT t < 2 REDUCE 1*msg_scale/100 DOUBLEWORDS THEN");
  EXPECT_HAS(r, "TASK 0 MULTICASTS A 8*msg_scale/100 BYTE MESSAGE TO TASK 1");
  EXPECT_HAS(r, "TASK 3 MULTICASTS A 8*msg_scale/100 BYTE MESSAGE TO TASK 2");
}

TEST(NcptlBackend, SizeClassesPerRankGroup) {
  // Ranks 0-1 send 8 bytes, ranks 2-3 send 16: one statement per size class (§3.1).
  RankList low = RankList::progression(0, 2), high = RankList::progression(2, 2);
  Rendered r = render(program(4, {
      call(Op::Isend, kAll4, {{Param::Dest, off(2)}, {Param::Count, byRank({low, high}, {c(8), c(16)})}, {Param::Datatype, c(kChar)}}),
      call(Op::Recv, kAll4, {{Param::Source, off(2)}, {Param::Count, byRank({low, high}, {c(16), c(8)})}, {Param::Datatype, c(kChar)}}),
      call(Op::Wait, kAll4, {{Param::Request, c(9999)}}),
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "TASKS t SUCH THAT t < 2 ASYNCHRONOUSLY SEND A 8*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK t+2");
  EXPECT_HAS(r, "TASKS t SUCH THAT t >= 2 ASYNCHRONOUSLY SEND A 16*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK t-2");
}

TEST(NcptlBackend, FirstIterationBecomesIfOnANamedLoopVariable) {
  Stmt s = call(Op::Barrier, kAll4, {{Param::Comm, c(kCommWorld)}}, first(7, c(300), c(120)));
  Rendered r = render(program(4, {loop(7, 20, kAll4, {s})}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "FOR EACH i7 IN {0, ..., 19} {");
  EXPECT_HAS(r, "IF i7 = 0 THEN {\n    ALL TASKS COMPUTE FOR 300*compute_scale/100 MICROSECONDS\n  } OTHERWISE {\n"
                "    ALL TASKS COMPUTE FOR 120*compute_scale/100 MICROSECONDS\n  }");
}

TEST(NcptlBackend, ByExecutionBecomesIfOnTheExecutionIndex) {
  // Rank 0 sends to 1, 2, 1, 2, … (period 2) with sizes 10, 10, 10, 0 (period 4) in a loop
  // of 8 nested in a loop of 3; the execution index is 8*i0 + i1.
  Stmt send = call(Op::Send, RankList::single(0),
                   {{Param::Dest, byExec({c(1), c(2)})},
                    {Param::Count, byExec({c(10), c(10), c(10), c(0)})},
                    {Param::Datatype, c(kChar)}});
  send.call.executionIndex = std::vector<std::pair<int, std::int64_t>>{{0, 8}, {1, 1}};
  // Rank 1 gets 10 bytes every time, rank 2 alternately 10 and 0.
  Stmt recv = call(Op::Recv, RankList::fromSorted({1, 2}),
                   {{Param::Source, c(0)},
                    {Param::Count, byRank({RankList::single(1), RankList::single(2)}, {c(10), byExec({c(10), c(0)})})},
                    {Param::Datatype, c(kChar)}});
  recv.call.executionIndex = std::vector<std::pair<int, std::int64_t>>{{0, 4}, {2, 1}};
  Stmt inner = loop(1, 8, RankList::all(3), {send});
  Stmt inner2 = loop(2, 4, RankList::fromSorted({1, 2}), {recv});
  Rendered r = render(program(3, {loop(0, 3, RankList::all(3), {inner, inner2})}));
  EXPECT_VALID(r);
  // 8*i0 and 4*i0 drop out modulo 4 and 2: the outer loop keeps FOR … REPETITIONS.
  EXPECT_HAS(r, "FOR 3 REPETITIONS {");
  EXPECT_HAS(r, "FOR EACH i1 IN {0, ..., 7} {");
  EXPECT_HAS(r, "IF i1 MOD 4 IS IN {0, 2} THEN {\n      TASK 0 SENDS A 10*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK 1\n");
  EXPECT_HAS(r, "IF i1 MOD 4 = 1 THEN {\n      TASK 0 SENDS A 10*msg_scale/100 BYTE MESSAGE TO UNSUSPECTING TASK 2\n");
  EXPECT_HAS(r, "IF i1 MOD 4 = 3 THEN {\n      TASK 0 SENDS A 0 BYTE MESSAGE TO UNSUSPECTING TASK 2\n");
  // Rank 1's receive is the same every time; rank 2's alternates: IF … OTHERWISE.
  EXPECT_HAS(r, "TASK 1 RECEIVES A 10*msg_scale/100 BYTE MESSAGE FROM TASK 0 THEN\n    IF i2 MOD 2 = 0 THEN {\n"
                "      TASK 2 RECEIVES A 10*msg_scale/100 BYTE MESSAGE FROM TASK 0\n    } OTHERWISE {\n"
                "      TASK 2 RECEIVES A 0 BYTE MESSAGE FROM TASK 0\n    }");
}

TEST(NcptlBackend, ByExecutionInALoopOfVaryingTripCountsCountsItsIterations) {
  // The inner loop runs 2, 3, 2 iterations on the entries of the outer loop. Entry E starts at
  // (E / 2) * 5 + (0 or 2): the loop variable counts the iterations of all entries, the
  // statement's execution index, so a size that changes per execution is selected exactly.
  auto nest = [](Stmt s) {
    Stmt inner = loop(1, 2, kAll4, {std::move(s)});
    inner.loop.iterations = byExec({c(2), c(3)});
    return loop(0, 3, kAll4, {inner});
  };
  Rendered r = render(program(4, {nest(call(Op::Bcast, kAll4,
                                            {{Param::Comm, c(kCommWorld)}, {Param::Count, byExec({c(10), c(30)})},
                                             {Param::Datatype, c(kChar)}, {Param::Root, c(0)}}))}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "FOR EACH i0 IN {0, ..., 2} {\n  # loop 1 headed by a call: iteration counts vary\n  IF i0 MOD 2 = 0 THEN {\n"
                "    FOR EACH i1 IN {i0/2*5, ..., i0/2*5 + 1} {");
  EXPECT_HAS(r, "} OTHERWISE {\n    LET from1 BE i0/2*5 + 2 WHILE { FOR EACH i1 IN {from1, ..., from1 + 2} {");
  EXPECT_HAS(r, "IF i1 MOD 2 = 0 THEN {\n        TASK 0 MULTICASTS A 10*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS\n"
                "      } OTHERWISE {\n        TASK 0 MULTICASTS A 30*msg_scale/100 BYTE MESSAGE TO ALL OTHER TASKS");
  EXPECT_TRUE(!has(r.text, "replaced by its mean")) << r.text;
}

TEST(NcptlBackend, FirstEntryThenSteadyTripCountsGiveAnAffineStart) {
  // Meep: the first entry of the inner loop runs 4 iterations, each later one 5 (349 entries).
  // The starts of the later entries are 4, 9, 14, ...: 5*i0 - 1, not 348 conditions, named
  // once by a LET.
  std::vector<Expr> trips(349, c(5));
  trips[0] = c(4);
  Stmt send = call(Op::Send, RankList::single(0),
                   {{Param::Dest, c(1)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}, {Param::Tag, byExec({c(1), c(2), c(3)})}});
  Stmt inner = loop(1, 5, RankList::single(0), {send});
  inner.loop.iterations = byExec(trips);
  Stmt recv = call(Op::Recv, RankList::single(1),
                   {{Param::Source, c(0)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}, {Param::Tag, byExec({c(1), c(2), c(3)})}});
  recv.call.executionIndex = std::vector<std::pair<int, std::int64_t>>{{2, 1}};
  Rendered r = render(program(2, {loop(0, 349, RankList::single(0), {inner}), loop(2, 1744, RankList::single(1), {recv})}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "FOR EACH i1 IN {0, ..., 3} {");
  EXPECT_HAS(r, "LET from1 BE 5*i0 - 1 WHILE { FOR EACH i1 IN {from1, ..., from1 + 4} {");
  EXPECT_HAS(r, "IF i1 MOD 3 = 2 THEN {\n        TASK 0 SENDS A 1*msg_scale/100 BYTE MESSAGE USING TAG 3 TO UNSUSPECTING TASK 1");
}

TEST(NcptlBackend, CyclesTooLongToSpellAreApproximatedOrRefused) {
  // A size that cycles through 300 distinct values would need 300 conditions: replaced by its
  // mean (said in the header). A tag that does cannot be approximated: refused.
  std::vector<Expr> sizes, tags;
  for (int k = 0; k < 300; ++k) {
    sizes.push_back(c(8 * (k + 1)));
    tags.push_back(c(k));
  }
  Rendered r = render(program(4, {loop(0, 600, kAll4, {call(Op::Bcast, kAll4,
                                                             {{Param::Comm, c(kCommWorld)}, {Param::Count, byExec(sizes)},
                                                              {Param::Datatype, c(kChar)}, {Param::Root, c(0)}})})}));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "A count that changes from one execution to the next in a cycle of 300 values (too many to spell as "
                "conditions) is replaced by its mean.");
  Stmt send = call(Op::Send, RankList::single(0),
                   {{Param::Dest, c(1)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}, {Param::Tag, byExec(tags)}});
  Stmt recv = call(Op::Recv, RankList::single(1),
                   {{Param::Source, c(0)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}, {Param::Tag, byExec(tags)}});
  try {
    createNcptlBackend()->render(program(2, {loop(0, 300, RankList::all(2), {send, recv})}), GenOptions{});
    ADD_FAILURE() << "rendered";
  } catch (const InputError& e) {
    EXPECT_TRUE(has(e.what(), "tag changes from one execution to the next in a cycle of 300 values")) << e.what();
  }
}

TEST(NcptlBackend, UnresolvedWildcardIsRejected) {
  auto backend = createNcptlBackend();
  Program p = program(2, {call(Op::Recv, RankList::single(1), {{Param::Source, c(static_cast<double>(kAnySource))},
                                                               {Param::Count, c(1)}, {Param::Datatype, c(kChar)}})});
  EXPECT_THROW(backend->render(p, GenOptions{}), InputError);
}

TEST(NcptlBackend, AnyTagDropsTagsEverywhere) {
  Rendered r = render(program(2, {
      call(Op::Send, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}, {Param::Tag, c(5)}}),
      call(Op::Recv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(1)}, {Param::Datatype, c(kChar)}, {Param::Tag, c(-1)}}),
  }));
  EXPECT_VALID(r);
  EXPECT_FALSE(has(r.text, "USING TAG")) << r.text;
  EXPECT_HAS(r, "MPI_ANY_TAG: tags are omitted everywhere");
}

TEST(NcptlBackend, CallsWithoutCommunicationKeepOnlyTheirComputation) {
  Rendered r = render(program(4, {
      call(Op::CommSplit, kAll4, {{Param::Comm, c(kCommWorld)}}, c(17)),
      call(Op::Iprobe, kAll4, {}, c(0)),
      call(Op::CommFree, kAll4, {}, c(0)),
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "# MPI_Comm_split\nALL TASKS COMPUTE FOR 17*compute_scale/100 MICROSECONDS.");
  EXPECT_FALSE(has(r.text, "MPI_Iprobe")) << r.text;
}

TEST(NcptlBackend, HugeMessagesAreSplit) {
  Rendered r = render(program(2, {
      call(Op::Send, RankList::single(0), {{Param::Dest, c(1)}, {Param::Count, c(3.0 * (1 << 30))}, {Param::Datatype, c(kChar)}}),
      call(Op::Recv, RankList::single(1), {{Param::Source, c(0)}, {Param::Count, c(3.0 * (1 << 30))}, {Param::Datatype, c(kChar)}}),
  }));
  EXPECT_VALID(r);
  EXPECT_HAS(r, "TASK 0 SENDS 3 1073741824*msg_scale/100 BYTE MESSAGES TO UNSUSPECTING TASK 1");
}

}  // namespace
}  // namespace tracegen::gen
