// The C+MPI backend on hand-built programs: every kind of statement renders as the MPI call it
// stands for, every kind of expression renders as the C it should, the program carries only
// the helpers it uses, and the file compiles cleanly with mpicc -std=c11 -Wall -Wextra
// -Werror (with Open MPI, and with MPICH's header when one is installed). Running the
// benchmarks and counting their calls is tests/e2e/c_backend.sh.
#include <gtest/gtest.h>

#include "ir/Diagnostics.h"
#include "tests/unit/CompileC.h"
#include "tests/unit/TraceTestHelpers.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "gen/Backend.h"
#include "gen/Backends.h"
#include "gen/RankSetText.h"
#include "gen/Traversal.h"
#include "io/Readers.h"
#include "passes/PassManager.h"
#include "passes/RankRanges.h"

using namespace tracegen;
using namespace tracegen::gen;

namespace {

using tracegen::testing::contains;

constexpr std::int64_t kInt = 3, kDouble = 10, kDerived = 1001;

Expr C(double v) { return Expr::constant(v); }
Expr Off(std::int64_t k) { return Expr::rankOffset(k); }
Expr byRank(std::vector<RankList> groups, std::vector<Expr> children) {
  return Expr::byRank(std::move(groups), std::move(children));
}
Expr byExecution(std::vector<Expr> children) { return Expr::byExecution(std::move(children)); }
Expr firstIteration(int loop, Expr first, Expr rest) {
  return Expr::firstIteration(loop, std::move(first), std::move(rest));
}

// A program under construction, with a trace that holds the events its statements name.
class Builder {
 public:
  explicit Builder(Rank ranks) {
    trace_.numRanks = ranks;
    program_.numRanks = ranks;
    program_.source = "hand-built.tgt";
    program_.origin = "hand-written";
    program_.datatypes = {{kInt, "MPI_INT", 4}, {kDouble, "MPI_DOUBLE", 8}, {kDerived, "type1001", 24}};
    program_.comms = standardCommunicators(ranks);
    trace_.events.reserve(1000);  // statements point into it
  }

  RankList all() const { return RankList::all(program_.numRanks); }

  Stmt call(Op op, std::map<Param, Expr> params, std::map<Param, std::vector<Expr>> vectors = {},
            Expr compute = C(0), std::optional<RankList> ranks = std::nullopt, std::string site = "") {
    Event& e = trace_.events.emplace_back();
    e.id = static_cast<std::int64_t>(trace_.events.size() - 1);
    e.op = op;
    e.site = site.empty() ? kNoSite : trace_.internSite(site);
    Stmt s;
    s.kind = Stmt::Kind::Call;
    s.ranks = ranks ? *ranks : all();
    s.call.event = &e;
    s.call.op = op;
    s.call.params = std::move(params);
    s.call.vectors = std::move(vectors);
    s.call.computeUs = std::move(compute);
    return s;
  }

  Stmt loop(int id, Expr iterations, std::vector<Stmt> body, std::optional<RankList> ranks = std::nullopt) {
    Stmt s;
    s.kind = Stmt::Kind::Loop;
    s.ranks = ranks ? *ranks : all();
    s.loop.id = id;
    s.loop.iterations = std::move(iterations);
    s.loop.body = std::move(body);
    program_.loops = std::max(program_.loops, id + 1);
    return s;
  }

  // MPI_Init, the statements, MPI_Finalize.
  const Program& program(std::vector<Stmt> body) {
    program_.trace = &trace_;
    program_.body.clear();
    program_.body.push_back(call(Op::Init, {}));
    for (auto& s : body) program_.body.push_back(std::move(s));
    program_.body.push_back(call(Op::Finalize, {}));
    return program_;
  }

  Program& raw() { return program_; }

 private:
  Trace trace_;
  Program program_;
};

std::map<Param, Expr> p2p(Param peer, Expr peerValue, std::int64_t count = 100, std::int64_t type = kDouble) {
  return {{Param::Comm, C(kCommWorld)}, {Param::Count, C(static_cast<double>(count))},
          {Param::Datatype, C(static_cast<double>(type))}, {peer, std::move(peerValue)}, {Param::Tag, C(7)}};
}

std::string render(const Program& p) {
  auto backend = createBackend("c");
  return backend->render(p, GenOptions{"tracegen hand-built.tgt -o bench.c", "bench.c"});
}

// Compiles a generated file with `compiler` (a command line taking the file last); returns
// the compiler's output, empty on success.
std::string compileWith(const std::string& compiler, const std::string& source, const std::string& tag) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() /
                       ("tracegen-cbackend-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                        "-" + tag + "-" + std::to_string(std::rand()));
  fs::create_directories(dir);
  const fs::path file = dir / "bench.c", log = dir / "log.txt";
  std::ofstream(file) << source;
  const std::string cmd = compiler + " -c -o " + (dir / "bench.o").string() + " " + file.string() + " > " +
                          log.string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  std::string output;
  if (status != 0) {
    std::ifstream in(log);
    output = std::string(std::istreambuf_iterator<char>(in), {});
    if (output.empty()) output = "exit status " + std::to_string(status);
  }
  fs::remove_all(dir);
  return output;
}

bool haveMpicc() { return std::system("command -v mpicc > /dev/null 2>&1") == 0; }

void expectCompiles(const std::string& source, const std::string& tag) {
  if (!haveMpicc()) GTEST_SKIP() << "mpicc is not installed";
  EXPECT_EQ(compileWith("mpicc -std=c11 -Wall -Wextra -Werror -O2", source, tag), "") << source;
}

using tracegen::testing::mpichInclude;  // MPICH's header, for a second library's view of the same file

// A program with one statement of every kind the backend knows.
const Program& everyStatement(Builder& b) {
  std::vector<Stmt> s;
  auto send = [&](Op op) { s.push_back(b.call(op, p2p(Param::Dest, Off(1)))); };
  auto recv = [&](Op op) { s.push_back(b.call(op, p2p(Param::Source, Off(3)))); };
  for (Op op : {Op::Send, Op::Ssend, Op::Rsend, Op::Bsend}) send(op);
  for (Op op : {Op::Isend, Op::Issend, Op::Irsend, Op::Ibsend, Op::SendInit}) send(op);
  recv(Op::Recv);
  recv(Op::Irecv);
  recv(Op::RecvInit);
  auto sr = p2p(Param::Dest, Off(1));
  sr[Param::Source] = Off(3);
  sr[Param::RecvCount] = C(50);
  sr[Param::RecvType] = C(kInt);
  sr[Param::RecvTag] = C(8);
  s.push_back(b.call(Op::Sendrecv, sr));
  s.push_back(b.call(Op::SendrecvReplace, sr));
  s.push_back(b.call(Op::Probe, {{Param::Comm, C(kCommWorld)}, {Param::Source, C(kAnySource)}, {Param::Tag, C(-1)}}));
  s.push_back(b.call(Op::Iprobe, {{Param::Comm, C(kCommWorld)}, {Param::Source, Off(2)}, {Param::Tag, C(7)}}));
  s.push_back(b.call(Op::Wait, {{Param::Request, C(9999)}}));
  s.push_back(b.call(Op::Test, {{Param::Request, C(-1)}}));
  for (Op op : {Op::Waitall, Op::Waitany, Op::Waitsome, Op::Testall, Op::Testany, Op::Testsome})
    s.push_back(b.call(op, {{Param::Count, C(3)}}, {{Param::Requests, {C(9997), C(9998), C(9999)}}}));
  const std::map<Param, Expr> world{{Param::Comm, C(kCommWorld)}};
  auto coll = [&](Op op, std::map<Param, Expr> extra, std::map<Param, std::vector<Expr>> vectors = {}) {
    std::map<Param, Expr> params{{Param::Comm, C(kCommWorld)}, {Param::Count, C(10)}, {Param::Datatype, C(kDouble)}};
    for (auto& [k, v] : extra) params[k] = v;
    s.push_back(b.call(op, params, std::move(vectors)));
  };
  s.push_back(b.call(Op::Barrier, world));
  coll(Op::Bcast, {{Param::Root, C(0)}});
  coll(Op::Reduce, {{Param::Root, C(1)}, {Param::ReduceOp, C(3)}});
  coll(Op::Allreduce, {{Param::ReduceOp, C(1)}});
  coll(Op::Scan, {{Param::ReduceOp, C(3)}});
  coll(Op::Gather, {{Param::Root, C(0)}, {Param::RecvCount, C(10)}, {Param::RecvType, C(kDouble)}});
  coll(Op::Scatter, {{Param::Root, C(0)}, {Param::RecvCount, C(10)}, {Param::RecvType, C(kDouble)}});
  coll(Op::Allgather, {{Param::RecvCount, C(10)}, {Param::RecvType, C(kDouble)}});
  coll(Op::Alltoall, {{Param::RecvCount, C(10)}, {Param::RecvType, C(kDouble)}});
  const std::vector<Expr> counts{C(1), C(2), C(3), C(4)}, displs{C(0), C(1), C(3), C(6)};
  coll(Op::Gatherv, {{Param::Root, C(0)}, {Param::RecvType, C(kDouble)}},
       {{Param::RecvCounts, counts}, {Param::Displs, displs}});
  coll(Op::Allgatherv, {{Param::RecvType, C(kDouble)}}, {{Param::RecvCounts, counts}, {Param::Displs, counts}});
  coll(Op::Scatterv, {{Param::Root, C(0)}, {Param::RecvCount, C(2)}, {Param::RecvType, C(kDouble)}},
       {{Param::SendCounts, counts}, {Param::Displs, displs}});
  // What a recorder writes on the ranks that only receive a scatter: no send type, no counts.
  s.push_back(b.call(Op::Scatterv, {{Param::Comm, C(kCommWorld)}, {Param::Root, C(0)}, {Param::RecvCount, C(2)},
                                    {Param::RecvType, C(kInt)}}));
  coll(Op::Alltoallv, {{Param::RecvType, C(kDouble)}},
       {{Param::SendCounts, counts}, {Param::Displs, displs}, {Param::RecvCounts, counts}, {Param::RecvDispls, displs}});
  coll(Op::ReduceScatter, {{Param::ReduceOp, C(3)}}, {{Param::RecvCounts, counts}});
  // Communicators and groups: the rows of a 2x2 grid, a duplicate, a communicator from a group.
  s.push_back(b.call(Op::CommSplit, {{Param::Comm, C(kCommWorld)}, {Param::Color, byRank({RankList::progression(0, 2), RankList::progression(2, 2)}, {C(0), C(1)})}, {Param::Key, Off(0)}}));
  auto onRow = p2p(Param::Dest, byRank({RankList::progression(0, 2), RankList::progression(2, 2)}, {Off(1), Off(3)}));
  onRow[Param::Comm] = C(1000);
  onRow[Param::Dest] = byRank({RankList::fromSorted({0, 2}), RankList::fromSorted({1, 3})}, {Off(1), Off(3)});
  s.push_back(b.call(Op::Send, onRow));
  s.push_back(b.call(Op::CommDup, {{Param::Comm, C(1000)}}));
  s.push_back(b.call(Op::CommGroup, {{Param::Comm, C(kCommWorld)}}));
  s.push_back(b.call(Op::GroupIncl, {{Param::Group, C(1000)}, {Param::Count, C(2)}}, {{Param::GroupRanks, {C(0), C(1)}}}));
  s.push_back(b.call(Op::GroupExcl, {{Param::Group, C(1000)}, {Param::Count, C(1)}}, {{Param::GroupRanks, {C(3)}}}));
  s.push_back(b.call(Op::GroupRangeIncl, {{Param::Group, C(1000)}, {Param::Count, C(1)}}, {{Param::GroupRanges, {C(0), C(3), C(2)}}}));
  s.push_back(b.call(Op::GroupUnion, {{Param::Group1, C(1001)}, {Param::Group2, C(1002)}}));
  s.push_back(b.call(Op::CommCreate, {{Param::Comm, C(kCommWorld)}, {Param::Group, C(1001)}}));
  // Topology constructors: a 2x2 grid (reordered), its rows, a ring as a graph and as a
  // distributed graph (both forms), the node's ranks, a communicator from a group, an idup.
  const Expr two = C(2);
  s.push_back(b.call(Op::CartCreate, {{Param::Comm, C(kCommWorld)}, {Param::Count, two}, {Param::Reorder, C(1)}},
                     {{Param::Dims, {C(2), C(2)}}, {Param::Periods, {C(1), C(0)}}}));
  s.push_back(b.call(Op::CartSub, {{Param::Comm, C(1003)}, {Param::Count, two}}, {{Param::RemainDims, {C(0), C(1)}}}));
  s.push_back(b.call(Op::GraphCreate, {{Param::Comm, C(kCommWorld)}, {Param::Count, C(4)}, {Param::RecvCount, C(4)}},
                     {{Param::Index, {C(1), C(2), C(3), C(4)}}, {Param::Edges, {C(1), C(2), C(3), C(0)}}}));
  s.push_back(b.call(Op::DistGraphCreateAdjacent, {{Param::Comm, C(kCommWorld)}, {Param::Count, C(1)}, {Param::RecvCount, C(1)}},
                     {{Param::Sources, {Off(3)}}, {Param::Destinations, {Off(1)}}}));
  s.push_back(b.call(Op::DistGraphCreate, {{Param::Comm, C(kCommWorld)}, {Param::Count, C(1)}, {Param::RecvCount, C(1)}},
                     {{Param::Sources, {Off(0)}}, {Param::Degrees, {C(1)}}, {Param::Destinations, {Off(1)}}}));
  s.push_back(b.call(Op::CommSplitType, {{Param::Comm, C(kCommWorld)}, {Param::Color, C(1)}, {Param::Key, C(0)}}));
  s.push_back(b.call(Op::CommCreateGroup, {{Param::Comm, C(kCommWorld)}, {Param::Group, C(1001)}, {Param::Tag, C(7)}}));
  s.push_back(b.call(Op::CommIdup, {{Param::Comm, C(kCommWorld)}}));
  s.push_back(b.call(Op::GroupFree, {{Param::Group, C(1001)}}));
  s.push_back(b.call(Op::CommFree, {{Param::Comm, C(1001)}}));
  return b.program(std::move(s));
}

// ---------------------------------------------------------------------------------------------

TEST(CBackend, Registered) {
  auto backend = createBackend("c");
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->name(), "c");
  EXPECT_EQ(backend->extension(), ".c");
  const std::vector<std::string> names = backendNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "c"), names.end());
  EXPECT_EQ(createBackend("fortran"), nullptr);
  EXPECT_NE(createCBackend(), nullptr);
}

TEST(CBackend, EveryStatementKindIsItsOwnMpiCall) {
  Builder b(4);
  const std::string c = render(everyStatement(b));
  for (const char* fn : {"MPI_Init(&argc, &argv);", "MPI_Send(", "MPI_Ssend(", "MPI_Rsend(", "MPI_Bsend(",
                         "MPI_Isend(", "MPI_Issend(", "MPI_Irsend(", "MPI_Ibsend(", "MPI_Send_init(", "MPI_Recv(",
                         "MPI_Irecv(", "MPI_Recv_init(", "MPI_Sendrecv(", "MPI_Sendrecv_replace(", "MPI_Probe(",
                         "MPI_Iprobe(", "MPI_Wait(", "MPI_Test(", "MPI_Waitall(", "MPI_Waitany(", "MPI_Waitsome(",
                         "MPI_Testall(", "MPI_Testany(", "MPI_Testsome(", "MPI_Barrier(", "MPI_Bcast(", "MPI_Reduce(",
                         "MPI_Allreduce(", "MPI_Scan(", "MPI_Gather(", "MPI_Scatter(", "MPI_Allgather(",
                         "MPI_Alltoall(", "MPI_Gatherv(", "MPI_Allgatherv(", "MPI_Scatterv(", "MPI_Alltoallv(",
                         "MPI_Reduce_scatter(", "MPI_Comm_split(", "MPI_Comm_dup(", "MPI_Comm_create(",
                         "MPI_Comm_free(", "MPI_Comm_group(", "MPI_Group_incl(", "MPI_Group_excl(",
                         "MPI_Group_range_incl(", "MPI_Group_union(", "MPI_Group_free(", "MPI_Finalize();",
                         "MPI_Cart_create(MPI_COMM_WORLD, 2, (const int[]){ 2, 2 }, (const int[]){ 1, 0 }, 1,",
                         "MPI_Cart_sub(comm_of(1003), (const int[]){ 0, 1 },", "MPI_Graph_create(",
                         "MPI_Dist_graph_create_adjacent(", "MPI_Dist_graph_create(", "MPI_Comm_split_type(",
                         "MPI_Comm_create_group(", "MPI_Comm_idup("})
    EXPECT_TRUE(contains(c, fn)) << fn;
  // One comment per call, naming its event.
  EXPECT_TRUE(contains(c, "/* E0 MPI_Send */"));
  // Every bookkeeping call goes through PMPI: the only MPI_ calls are the application's.
  std::regex call(R"(\bMPI_[A-Z][a-z_]*\()");
  std::size_t calls = 0;
  for (auto it = std::sregex_iterator(c.begin(), c.end(), call); it != std::sregex_iterator(); ++it) ++calls;
  EXPECT_EQ(calls, b.raw().body.size());
  EXPECT_TRUE(contains(c, "PMPI_Reduce(&mine, &slowest"));
  // A real status array for MPI_Waitall, never MPI_STATUSES_IGNORE.
  EXPECT_TRUE(contains(c, "MPI_Waitall(3, requests, statuses);"));
  EXPECT_FALSE(contains(c, "MPI_STATUSES_IGNORE"));
  // Parameters as traced.
  EXPECT_TRUE(contains(c, "MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);"));
  EXPECT_TRUE(contains(c, "MPI_Reduce(send_buf, recv_buf, msg_count(10), MPI_DOUBLE, MPI_SUM, 1, MPI_COMM_WORLD);"));
  EXPECT_TRUE(contains(c, "MPI_Allreduce(send_buf, recv_buf, msg_count(10), MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);"));
  EXPECT_TRUE(contains(c, "const int recvcounts[4] = { msg_count(1), msg_count(2), msg_count(3), msg_count(4) };"));
  EXPECT_TRUE(contains(c, "const int displs[4] = { msg_count(0), msg_count(1), msg_count(3), msg_count(6) };"));
  EXPECT_TRUE(contains(c, "pack_displs(4, recvcounts, displs);"));  // Allgatherv: ScalaTrace stores counts there
  EXPECT_TRUE(contains(c, "MPI_Wait(recent_request(1), &status);"));
  EXPECT_TRUE(contains(c, "MPI_Test(recent_request(0), &flag, &status);"));
  EXPECT_TRUE(contains(c, "const int recency[3] = { 3, 2, 1 };"));
  EXPECT_TRUE(contains(c, "  .request_ring = 3,"));
  EXPECT_TRUE(contains(c, "int ranges[1][3] = { {0, 3, 2} };"));
  // Sub-communicators: created by the calls themselves, peers translated to their numbering.
  EXPECT_TRUE(contains(c, "MPI_Comm_split(MPI_COMM_WORLD, (rank < 2 ? 0 : 1), rank, new_comm());"));
  EXPECT_TRUE(contains(c, "comm_rank(1000, (")) << c;
  EXPECT_TRUE(contains(c, "comm_of(1000)"));
  EXPECT_TRUE(contains(c, "MPI_Comm_free(comm_slot(1001));"));
  EXPECT_TRUE(contains(c, "MPI_Comm_create(MPI_COMM_WORLD, group_of(1001), new_comm());"));
  EXPECT_TRUE(contains(c, "MPI_Group_union(group_of(1001), group_of(1002), new_group());"));
  EXPECT_TRUE(contains(c, "MPI_Scatterv(send_buf, sendcounts, displs, MPI_INT, recv_buf, msg_count(2), MPI_INT, 0,"));
  EXPECT_TRUE(contains(c, "  .bsend_messages = 16,"));  // MPI_Bsend needs a buffer, which set_up attaches
  EXPECT_FALSE(contains(c, " \n")) << "trailing white space";
  expectCompiles(c, "every");
}

TEST(CBackend, EveryStatementKindCompilesWithMpichHeader) {
  const std::string include = mpichInclude();
  if (include.empty()) GTEST_SKIP() << "no MPICH header (set TRACEGEN_MPICH_INCLUDE)";
  Builder b(4);
  const std::string c = render(everyStatement(b));
  EXPECT_EQ(compileWith("cc -std=c11 -Wall -Wextra -Werror -O2 -I" + include, c, "mpich"), "");
}

TEST(CBackend, ExpressionsRender) {
  Builder b(4);
  const RankList odd = RankList::progression(1, 2, 2), even = RankList::progression(0, 2, 2);
  std::vector<Stmt> body;
  // A constant, a peer relative to the rank, a negative offset, offset 0.
  body.push_back(b.call(Op::Send, p2p(Param::Dest, Off(1), 1024)));
  body.push_back(b.call(Op::Send, p2p(Param::Dest, Off(-1))));
  body.push_back(b.call(Op::Send, p2p(Param::Dest, Off(0))));
  // A choice by rank group.
  body.push_back(b.call(Op::Recv, p2p(Param::Source, byRank({even, odd}, {Off(1), Off(3)}))));
  // Cycles over executions: constants, peers relative to the rank, datatypes.
  auto cyc = p2p(Param::Dest, byExecution({Off(1), Off(2)}), 0);
  cyc[Param::Count] = byExecution({C(1000), C(1000), C(0)});
  cyc[Param::Datatype] = byExecution({C(kInt), C(kDouble)});
  body.push_back(b.call(Op::Send, cyc));
  // A loop with a first-iteration choice of computation, inside rank guards.
  std::vector<Stmt> inner;
  inner.push_back(b.call(Op::Barrier, {{Param::Comm, C(kCommWorld)}}, {}, firstIteration(7, C(212.5), C(1840.25))));
  body.push_back(b.loop(7, C(5), std::move(inner)));
  body.push_back(b.call(Op::Barrier, {{Param::Comm, C(kCommWorld)}}, {}, C(0), odd));
  body.push_back(b.call(Op::Barrier, {{Param::Comm, C(kCommWorld)}}, {}, C(0), odd));
  // A loop whose trip count cycles from one entry to the next.
  std::vector<Stmt> cycled;
  cycled.push_back(b.call(Op::Barrier, {{Param::Comm, C(kCommWorld)}}));
  body.push_back(b.loop(8, byExecution({C(1), C(1), C(3)}), std::move(cycled)));
  // A count by rank: msg_count's own parentheses are the choice's.
  body.push_back(b.call(Op::Send, p2p(Param::Dest, Off(1), 0)));
  body.back().call.params[Param::Count] = byRank({even, odd}, {C(4), C(8)});
  // A derived datatype and computation by rank.
  body.push_back(b.call(Op::Send, p2p(Param::Dest, Off(1), 2, kDerived), {},
                        byRank({even, odd}, {C(10), C(0.5)})));
  const std::string c = render(b.program(std::move(body)));

  EXPECT_TRUE(contains(c, "MPI_Send(send_buf, msg_count(1024), MPI_DOUBLE, (rank + 1) % nranks, 7, MPI_COMM_WORLD);"));
  // A peer one rank down on every rank wraps as `- 1`, not `+ 3`.
  EXPECT_TRUE(contains(c, "MPI_Send(send_buf, msg_count(100), MPI_DOUBLE, (rank + nranks - 1) % nranks, 7, MPI_COMM_WORLD);"));
  EXPECT_TRUE(contains(c, "MPI_Send(send_buf, msg_count(100), MPI_DOUBLE, rank, 7, MPI_COMM_WORLD);"));
  // The shorter condition is tested; the other group is what remains. Each group's peer is
  // spelled for that group: rank + 1 stays inside 0 … 3 for {0, 2}, rank - 1 for {1, 3}.
  const std::string evenC = cRankCondition(rankShape(even, 4)), oddC = cRankCondition(rankShape(odd, 4));
  const bool evenFirst = evenC.size() <= oddC.size();
  EXPECT_TRUE(contains(c, evenFirst ? "(" + evenC + " ? rank + 1 : rank - 1)" : "(" + oddC + " ? rank - 1 : rank + 1)"))
      << c;
  // Cycles: the statement's own execution counter indexes tables named after the parameter.
  EXPECT_TRUE(contains(c, "static long calls = 0;"));
  EXPECT_TRUE(contains(c, "static const int count_values[3] = { 1000, 1000, 0 };"));
  EXPECT_TRUE(contains(c, "static const int dest_offsets[2] = { 1, 2 };"));
  EXPECT_TRUE(contains(c, "const MPI_Datatype datatype_values[2] = { MPI_INT, MPI_DOUBLE };"));
  EXPECT_TRUE(contains(c, "MPI_Send(send_buf, msg_count(count_values[calls % 3]), datatype_values[calls % 2],\n"));
  EXPECT_TRUE(contains(c, "(rank + dest_offsets[calls % 2]) % nranks, 7, MPI_COMM_WORLD);"));
  EXPECT_TRUE(contains(c, "++calls;"));
  // Loops are for loops with named variables; the first iteration is a test of the variable.
  EXPECT_TRUE(contains(c, "for (long i7 = 0; i7 < 5; ++i7) {"));
  EXPECT_TRUE(contains(c, "compute(i7 == 0 ? 212.5 : 1840.25);"));  // no doubled parentheses
  EXPECT_TRUE(contains(c, "/* loop 8: 1, 1, 3 iterations on successive entries */"));
  EXPECT_TRUE(contains(c, "static long entries = 0;"));
  EXPECT_TRUE(contains(c, "for (long i8 = 0, trips8 = ((const int[]){ 1, 1, 3 })[entries % 3]; i8 < trips8; ++i8) {"));
  EXPECT_TRUE(contains(c, "++entries;"));
  // Rank sets are conditions; statements with the same ranks share one.
  std::string oddGuard = oddC;
  if (oddGuard.front() == '(') oddGuard = oddGuard.substr(1, oddGuard.size() - 2);
  const auto guard = c.find("if (" + oddGuard + ") {");
  ASSERT_NE(guard, std::string::npos) << c;
  EXPECT_EQ(c.find("if (" + oddGuard + ") {", guard + 1), std::string::npos);
  // Datatypes that are not MPI's: contiguous bytes made at start-up through PMPI.
  EXPECT_TRUE(contains(c, "static MPI_Datatype type1001; /* type1001, 24 bytes */"));
  EXPECT_TRUE(contains(c, "static const struct tracegen_type trace_types[] = {\n  {&type1001, 24},\n};"));
  EXPECT_TRUE(contains(c, "  .types = trace_types,"));  // set_up makes them with PMPI_Type_contiguous
  EXPECT_TRUE(contains(c, "MPI_Send(send_buf, msg_count(2), type1001,"));
  // The computation before a send writes its message (compute_sending: 2 elements of type1001).
  EXPECT_TRUE(contains(c, evenFirst ? "compute_sending(" + evenC + " ? 10 : 0.5, msg_count(2), type1001);"
                                    : "compute_sending(" + oddC + " ? 0.5 : 10, msg_count(2), type1001);"))
      << c;
  EXPECT_TRUE(contains(c, evenFirst ? "msg_count(" + evenC + " ? 4 : 8)" : "msg_count(" + oddC + " ? 8 : 4)")) << c;
  EXPECT_FALSE(contains(c, "compute((")) << c;
  EXPECT_FALSE(contains(c, "msg_count((")) << c;
  EXPECT_TRUE(contains(c, "  .largest_message_bytes = 8192,"));  // 1024 doubles
  expectCompiles(c, "expressions");
}

// Peers are spelled for the ranks of their statement: a signed offset when rank + offset stays
// inside 0 … P-1 for every one of them, else wrapped with the offset of smallest magnitude.
TEST(CBackend, PeersAreSpelledForTheStatementsRanks) {
  Builder b(8);
  const RankList middle = RankList::progression(1, 6), low = RankList::progression(0, 5);
  std::vector<Stmt> s;
  s.push_back(b.call(Op::Send, p2p(Param::Dest, Off(1), 11), {}, C(0), middle));
  s.push_back(b.call(Op::Send, p2p(Param::Dest, Off(7), 12), {}, C(0), middle));
  s.push_back(b.call(Op::Send, p2p(Param::Dest, Off(3), 13), {}, C(0), low));
  s.push_back(b.call(Op::Send, p2p(Param::Dest, Off(5), 14)));
  s.push_back(b.call(Op::Send, p2p(Param::Dest, Off(4), 15)));
  s.push_back(b.call(Op::Send, p2p(Param::Dest, Off(-8), 16)));
  s.push_back(b.call(Op::Send, p2p(Param::Dest, byExecution({Off(1), Off(-1)}), 17), {}, C(0), middle));
  const std::string c = render(b.program(std::move(s)));
  EXPECT_TRUE(contains(c, "msg_count(11), MPI_DOUBLE, rank + 1, 7,")) << c;
  EXPECT_TRUE(contains(c, "msg_count(12), MPI_DOUBLE, rank - 1, 7,")) << c;
  EXPECT_TRUE(contains(c, "msg_count(13), MPI_DOUBLE, rank + 3, 7,")) << c;
  EXPECT_TRUE(contains(c, "msg_count(14), MPI_DOUBLE, (rank + nranks - 3) % nranks, 7,")) << c;
  EXPECT_TRUE(contains(c, "msg_count(15), MPI_DOUBLE, (rank + 4) % nranks, 7,")) << c;  // a tie: positive
  EXPECT_TRUE(contains(c, "msg_count(16), MPI_DOUBLE, rank, 7,")) << c;
  EXPECT_TRUE(contains(c, "static const int dest_offsets[2] = { 1, -1 };")) << c;
  EXPECT_TRUE(contains(c, "msg_count(17), MPI_DOUBLE, rank + dest_offsets[calls % 2], 7,")) << c;
  tracegen::testing::expectCompilesUnderBothMpis(c, "peers");
}

TEST(CBackend, HeaderSaysWhereItCameFrom) {
  Builder b(2);
  b.raw().notes = {"Compute times were converted from instruction counts at 1e+09 instructions per second.",
                   "A note that closes a comment */ early."};
  const std::string c = render(b.program({b.call(Op::Barrier, {{Param::Comm, C(kCommWorld)}}, {}, C(3))}));
  EXPECT_TRUE(contains(c, " *   trace      hand-built.tgt\n"));
  EXPECT_TRUE(contains(c, " *   origin     hand-written\n"));
  EXPECT_TRUE(contains(c, " *   ranks      2\n"));
  EXPECT_TRUE(contains(c, " *   generated  tracegen hand-built.tgt -o bench.c\n"));
  EXPECT_TRUE(contains(c, " *   - Compute times were converted from instruction counts"));
  EXPECT_TRUE(contains(c, "closes a comment * / early."));
  EXPECT_TRUE(contains(c, "--compute-scale PERCENT"));
  EXPECT_TRUE(contains(c, "--msg-scale PERCENT"));
  EXPECT_TRUE(contains(c, "printf(\"elapsed: %.6f s\\n\", slowest);"));
  // The comment may not end before the code starts: the runtime's (gen/CRuntime.h).
  EXPECT_EQ(c.find("*/"), c.find(" */\n\n/*\n * tracegen_runtime.h: ") + 1);
}

TEST(CBackend, OnlyTheHelpersItUses) {
  Builder b(2);
  const std::string c = render(b.program({b.call(Op::Barrier, {{Param::Comm, C(kCommWorld)}})}));
  // The runtime comes first and has them all; the benchmark's part neither uses nor sizes them.
  const std::string part = c.substr(c.find("/* ==== tracegen: benchmark of hand-built.tgt starts here ==== */"));
  for (const char* helper : {"compute(", "msg_count(", "new_request(", "recent_request(", "comm_rank(", "comm_of(",
                             "new_group(", "pack_displs(", "MPI_Status status", ".bsend_messages", ".request_ring",
                             ".comm_slots", "helpers"})
    EXPECT_FALSE(contains(part, helper)) << helper;
  EXPECT_FALSE(contains(c, "\n\n\n")) << "blank lines collapse";
  expectCompiles(c, "minimal");
}

TEST(CBackend, SplitsLongCallsAtArguments) {
  Builder b(64);
  std::vector<Expr> counts;
  for (int i = 0; i < 64; ++i) counts.push_back(C(1000 + i));
  const std::string c = render(b.program({b.call(
      Op::Gatherv, {{Param::Comm, C(kCommWorld)}, {Param::Count, C(10)}, {Param::Datatype, C(kDouble)},
                    {Param::Root, C(0)}},
      {{Param::RecvCounts, counts}})}));
  std::size_t longest = 0;
  for (std::size_t pos = 0, end; pos < c.size(); pos = end + 1) {
    end = c.find('\n', pos);
    if (end == std::string::npos) end = c.size();
    longest = std::max(longest, end - pos);
  }
  EXPECT_LE(longest, 110u);
  expectCompiles(c, "wrapped");
}

TEST(CBackend, RejectsWhatItCannotReproduce) {
  {
    Builder b(2);
    Program p = b.program({b.call(Op::Allreduce, {{Param::Comm, C(kCommWorld)}, {Param::Count, C(1)},
                                                  {Param::Datatype, C(kDouble)}, {Param::ReduceOp, C(999)}})});
    EXPECT_THROW(render(p), InputError);  // neither predefined nor a recorder's user operator (1000 + k)
  }
  {
    Builder b(2);
    Program p = b.program({b.call(Op::Send, p2p(Param::Dest, Off(1), 1, 77))});
    EXPECT_THROW(render(p), InputError);  // a datatype the trace does not describe
  }
  {
    Builder b(2);
    Program p = b.program({});
    p.body.erase(p.body.begin());
    EXPECT_THROW(render(p), InputError);  // no MPI_Init
  }
}

// MPI_PROC_NULL peers are MPI's constant; a rank that a creation call leaves without the new
// communicator (the trace's newcomm 0) gets MPI_COMM_NULL kept apart from every numbered one.
TEST(CBackend, ProcNullPeersAndRanksOutsideACreatedCommunicator) {
  Builder b(4);
  const RankList evens = RankList::fromSorted({0, 2}), odds = RankList::fromSorted({1, 3});
  std::vector<Stmt> s;
  s.push_back(b.call(Op::Send, p2p(Param::Dest, C(static_cast<double>(kProcNull)))));
  s.push_back(b.call(Op::Irecv, p2p(Param::Source, byRank({evens, odds}, {C(static_cast<double>(kProcNull)), Off(3)}))));
  s.push_back(b.call(Op::Wait, {{Param::Request, C(9999)}}));
  s.push_back(b.call(Op::CommGroup, {{Param::Comm, C(kCommWorld)}}));
  s.push_back(b.call(Op::GroupIncl, {{Param::Group, C(1000)}, {Param::Count, C(2)}}, {{Param::GroupRanks, {C(0), C(2)}}}));
  s.push_back(b.call(Op::CommCreate, {{Param::Comm, C(kCommWorld)}, {Param::Group, C(1001)},
                                      {Param::NewComm, byRank({evens, odds}, {C(1000), C(0)})}}));
  auto onEvens = p2p(Param::Dest, C(static_cast<double>(kProcNull)));
  onEvens[Param::Comm] = C(1000);
  s.push_back(b.call(Op::Send, onEvens, {}, C(0), evens));
  s.push_back(b.call(Op::CommFree, {{Param::Comm, C(1000)}}, {}, C(0), evens));
  const std::string c = render(b.program(std::move(s)));
  EXPECT_TRUE(contains(c, "MPI_Send(send_buf, msg_count(100), MPI_DOUBLE, MPI_PROC_NULL, 7, MPI_COMM_WORLD);")) << c;
  EXPECT_TRUE(contains(c, "(rank % 2 == 0 ? MPI_PROC_NULL : rank - 1)")) << c;
  EXPECT_TRUE(contains(c, "comm_rank(1000, MPI_PROC_NULL)")) << c;
  EXPECT_TRUE(contains(c, "new_comm_at((rank % 2 == 0 ? 1000 : 0))")) << c;
  EXPECT_TRUE(contains(c, "if (id == 0)\n    return &no_comm;")) << c;
  EXPECT_FALSE(contains(c, " -3") || contains(c, "(-3")) << c;  // the model's number never leaks
  expectCompiles(c, "proc-null");
}

// The whole pipeline on the bundled samples: read, lower, traverse, render, compile.
TEST(CBackend, SamplesThroughThePipeline) {
  for (const char* name : {"ring-4.tgt", "stencil-2d-4.tgt", "master-worker-3.tgt", "shift-null-4.tgt", "vector-loop-4.tgt",
                           "lcs-nested-2.tgt", "progression-2.tgt"}) {
    const std::string path = std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/" + name;
    Trace trace = readTraceFile(path);
    PassContext ctx;
    ctx.fileName = path;
    PassManager(defaultPipeline()).run(trace, ctx);
    const Program program = buildProgram(trace, path);
    const std::string c = render(program);
    EXPECT_TRUE(contains(c, "elapsed: %.6f s")) << name;
    EXPECT_TRUE(contains(c, "MPI_Finalize();")) << name;
    if (std::string(name) == "stencil-2d-4.tgt") {
      EXPECT_TRUE(contains(c, "for (long i0 = 0; i0 < 50; ++i0) {"));
      EXPECT_TRUE(contains(c, "/* E5 MPI_Waitall at stencil.c:66 */"));
      EXPECT_TRUE(contains(c, "compute(i0 == 0 ? 212.5 : 1840.25);"));
    }
    if (std::string(name) == "vector-loop-4.tgt") {
      // One loop per body length of the Allreduce loop, its trip count chosen per entry.
      EXPECT_TRUE(contains(c, "/* loop 1: 2, 0, 0, 0, 0 iterations on successive entries, headed by E2 MPI_Allreduce"))
          << c;
      EXPECT_TRUE(contains(c, "trips2 = ((const int[]){ 0, 1, 1, 0, 0 })[entries % 5]")) << c;
    }
    if (std::string(name) == "progression-2.tgt") {
      // Values with one stride are formulas of the statement's counters, not tables.
      EXPECT_TRUE(contains(c, "MPI_Sendrecv(send_buf, msg_count(1024 + 1024 * (calls % 8)), MPI_DOUBLE, (rank + 1) % nranks,\n"
                              "                   (calls % 8), recv_buf,")) << c;
      EXPECT_TRUE(contains(c, "/* loop 2: 1, 2, ..., 4 iterations on successive entries, headed by E2 MPI_Barrier")) << c;
      EXPECT_TRUE(contains(c, "trips2 = (1 + entries % 4)")) << c;
      // Identifiers are no quantities: datatypes 1000, 1001, ... stay a table.
      EXPECT_TRUE(contains(c, "const MPI_Datatype datatype_values[4] = { type1000, type1001, type1002, type1003 };")) << c;
      EXPECT_FALSE(contains(c, "count_values[")) << c;
    }
    if (std::string(name) == "shift-null-4.tgt") {
      EXPECT_TRUE(contains(c, "MPI_PROC_NULL")) << c;
    }
    expectCompiles(c, name);
  }
}

// hpcc's MPI_Allreduce on the communicator each call of a loop of MPI_Comm_split made: the
// communicator cycles over the calls, and its table of values is printed twice (for the call
// and for the message of the computation before it). It is declared once: GCC's -Wall found an
// unused second table in hpcc's benchmark.
TEST(CBackend, ATableOfValuesPrintedTwiceIsDeclaredOnce) {
  const Trace t = tracegen::testing::loweredText(
      "tracegen-trace 1\nranks 2\norigin hand-written\ndatatype MPI_INT 4\n"
      "comm 1000 split (<1 0 {2 1}>)\ncomm 1001 split (<1 0 {2 1}>)\ncomm 1002 split (<1 0 {2 1}>)\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n  site main.c:1\n"
      "event 1 MPI_Comm_split @ <1 0 {2 1}>\n  site main.c:2\n  loop 0 iter 3\n  loop 0 mem 3\n  comm 2\n"
      "  color 0\n  key rel 0\n  newcomm 1000:1002:1\n"
      "event 2 MPI_Allreduce @ <1 0 {2 1}>\n  site main.c:3\n  comm 1000:1002:1\n  count 1\n  datatype MPI_INT\n"
      "  op MPI_SUM\n  time comp us after main.c:2 n=6 avg=2 min=1@0 max=3@1 bins=[1 1 2 3 10 6]\n"
      "event 3 MPI_Barrier @ <1 0 {2 1}>\n  site main.c:4\n  comm 1000:1002:1\n"
      "event 4 MPI_Finalize @ <1 0 {2 1}>\n  site main.c:5\n",
      "cycle.tgt");
  const std::string c = render(buildProgram(t, "cycle.tgt"));
  EXPECT_EQ(c.find("comm_values_2"), std::string::npos) << c;
  tracegen::testing::expectCompilesUnderBothMpis(c, "cycled-comm");
}

// The process footprint of a recorded trace: the start-up before MPI_Init is spent first in
// main, and each rank's memory gained is a formula of the rank (gen/Program.h, memoryKb).
TEST(CBackend, FootprintIsSpentBeforeInitAndTouchedPerRank) {
  const Trace t = tracegen::testing::loweredText(
      "tracegen-trace 1\nranks 4\nfootprint memory-kb 238000 @ <1 0 {1 0}>\nfootprint memory-kb 21000 @ <1 1 {3 1}>\n"
      "footprint before-init-us 31000\nevent 0 MPI_Init @ <1 0 {4 1}>\n  site init\n"
      "event 1 MPI_Finalize @ <1 0 {4 1}>\n  site fin\n",
      "fp.tgt");
  const Program p = buildProgram(t, "fp.tgt");
  const std::string c = render(p);
  EXPECT_NE(c.find("static long long memory_kb(void)\n{\n  return rank > 0 ? 21000 : 238000;\n}"), std::string::npos) << c;
  EXPECT_NE(c.find(".before_init_us = 31000,"), std::string::npos) << c;
  EXPECT_NE(c.find(".memory_kb = memory_kb,"), std::string::npos) << c;
  EXPECT_LT(c.find("before_init(argc, argv, &trace);"), c.find("MPI_Init(&argc, &argv);")) << c;
  tracegen::testing::expectCompilesUnderBothMpis(c, "footprint");
  // A trace without footprint lines: neither.
  Trace plain = t;
  plain.memoryKb.clear();
  plain.beforeInitUs = -1;
  const std::string d = render(buildProgram(plain, "plain.tgt"));
  EXPECT_EQ(d.find("static long long memory_kb"), std::string::npos);
  EXPECT_EQ(d.find("before_init(argc"), std::string::npos);
}

}  // namespace

// Per-rank values no formula explains (more than kMaxRankChoices groups of constants) are
// tables read by rank: an MPI_Alltoallv on 16 ranks whose counts differ for every pair of
// ranks gets one table per vector parameter with a row per rank, not a `rank == k ? v :` chain
// per count; a scalar count and a computation by rank get a table of 16 values. The tables
// are compiled and run as C (with the C compiler, no MPI) to check every rank's values.
namespace {

// The count rank `r` sends to rank `j` (and `j` receives from `r`): values with no pattern in
// the rank.
int pairCount(int r, int j) { return static_cast<int>((static_cast<unsigned>((r + 1) * (j + 3)) * 2654435761u >> 9) % 500); }
int countOf(int r) { return (r * r * 37 + 11) % 97 + 1; }
// The send blocks laid out in reverse order of the ranks, 8 elements apart: displacements that
// pack_displs does not give.
int sendDispl(int r, int j) {
  int sum = 0;
  for (int k = 15; k > j; --k) sum += pairCount(r, k) + 8;
  return sum;
}

// A choice among 16 singleton groups: value(r) for rank r.
template <typename F>
Expr perRank(int ranks, F value) {
  std::vector<RankList> groups;
  std::vector<Expr> children;
  for (int r = 0; r < ranks; ++r) {
    groups.push_back(RankList::fromSorted({r}));
    children.push_back(C(value(r)));
  }
  return byRank(std::move(groups), std::move(children));
}

// The C text of the declaration of table `name` (from its type to the closing `};`).
std::string tableText(const std::string& c, const std::string& declaration) {
  const auto start = c.find(declaration);
  if (start == std::string::npos) return "";
  return c.substr(start, c.find("};", start) + 2 - start);
}

}  // namespace

TEST(CBackend, PerRankValuesWithoutAFormulaAreTables) {
  constexpr int P = 16;
  Builder b(P);
  std::vector<Expr> sendcounts, sdispls, recvcounts, rdispls;
  for (int j = 0; j < P; ++j) {
    sendcounts.push_back(perRank(P, [&](int r) { return pairCount(r, j); }));
    recvcounts.push_back(perRank(P, [&](int r) { return pairCount(j, r); }));
    sdispls.push_back(perRank(P, [&](int r) { return sendDispl(r, j); }));
    rdispls.push_back(perRank(P, [&](int r) {
      int sum = 0;
      for (int k = 0; k < j; ++k) sum += pairCount(k, r);
      return sum;
    }));
  }
  std::vector<Stmt> s;
  s.push_back(b.call(Op::Alltoallv, {{Param::Comm, C(kCommWorld)}, {Param::Datatype, C(kInt)}, {Param::RecvType, C(kInt)}},
                     {{Param::SendCounts, sendcounts}, {Param::Displs, sdispls}, {Param::RecvCounts, recvcounts},
                      {Param::RecvDispls, rdispls}},
                     perRank(P, [](int r) { return 10.5 + r * r % 7; })));
  // A count by rank among 16 groups, and one among 3 groups (a rank set formula: the chain).
  s.push_back(b.call(Op::Allreduce, {{Param::Comm, C(kCommWorld)}, {Param::Count, perRank(P, countOf)},
                                     {Param::Datatype, C(kDouble)}, {Param::ReduceOp, C(1)}}));
  // The nonblocking form keeps its arrays with its request: the same rows, copied there.
  s.push_back(b.call(Op::Ialltoallv, {{Param::Comm, C(kCommWorld)}, {Param::Datatype, C(kInt)}, {Param::RecvType, C(kInt)}},
                     {{Param::SendCounts, sendcounts}, {Param::Displs, sdispls}, {Param::RecvCounts, recvcounts},
                      {Param::RecvDispls, rdispls}}));
  s.push_back(b.call(Op::Wait, {{Param::Request, C(9999)}}));
  // MPI_Alltoallw's counts are initializers (as the neighbourhood collectives' are): the
  // entries of the rank's row.
  const std::vector<Expr> ints(P, C(kInt));
  s.push_back(b.call(Op::Alltoallw, {{Param::Comm, C(kCommWorld)}},
                     {{Param::SendCounts, sendcounts}, {Param::SendTypes, ints}, {Param::RecvCounts, recvcounts},
                      {Param::RecvTypes, ints}}));
  const RankList low = RankList::progression(0, 4), middle = RankList::progression(4, 8), high = RankList::progression(12, 4);
  s.push_back(b.call(Op::Allreduce, {{Param::Comm, C(kCommWorld)}, {Param::Count, byRank({low, middle, high}, {C(5), C(6), C(7)})},
                                     {Param::Datatype, C(kDouble)}, {Param::ReduceOp, C(1)}}));
  b.program(std::move(s));
  // The computation before MPI_Finalize, outside a call's block, by rank too.
  b.raw().body.back().call.computeUs = perRank(P, [](int r) { return 100 + r; });
  const std::string c = render(b.raw());
  const std::string part = c.substr(c.find("starts here ==== */"));

  // No condition on the rank but the two of the 3-group choice, which rank sets explain.
  std::size_t conditions = 0;
  for (std::size_t pos = 0; (pos = part.find("rank ==", pos)) != std::string::npos; ++pos) ++conditions;
  for (std::size_t pos = 0; (pos = part.find("rank <", pos)) != std::string::npos; ++pos) ++conditions;
  for (std::size_t pos = 0; (pos = part.find("rank >", pos)) != std::string::npos; ++pos) ++conditions;
  EXPECT_EQ(conditions, 2u) << part;
  EXPECT_TRUE(contains(part, "msg_count(rank < 4 ? 5 : rank >= 12 ? 7 : 6)")) << part;
  // The call copies its rank's row of each table through msg_count(), and reads the scalars'
  // tables by rank; the nonblocking form copies the rows to its request's arrays.
  for (const auto& [array, table] : std::vector<std::pair<std::string, std::string>>{
           {"sendcounts", "sendcounts"}, {"sdispls", "displs"}, {"recvcounts", "recvcounts"}}) {
    EXPECT_TRUE(contains(part, fmt::format("      int {0}[16];\n      for (int i = 0; i < 16; ++i) {0}[i] = "
                                           "msg_count({1}_by_rank[rank][i]);\n", array, table)))
        << array << "\n" << part;
  }
  EXPECT_TRUE(contains(part, "      int *sendcounts = request_ints(req, 0, 16, sendcounts_by_rank[rank]);\n"
                             "      for (int i = 0; i < 16; ++i) sendcounts[i] = msg_count(sendcounts[i]);\n"))
      << part;
  EXPECT_TRUE(contains(part, "      int *sdispls = request_ints(req, 1, 16, displs_by_rank[rank]);\n")) << part;
  {
    std::string entries;
    for (int j = 0; j < P; ++j) entries += fmt::format("{}msg_count(recvcounts_by_rank[rank][{}])", j ? ", " : "", j);
    std::string flat = part;  // wrapped after its commas: compared without the line breaks
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    for (std::size_t pos; (pos = flat.find("  ")) != std::string::npos;) flat.erase(pos, 1);
    EXPECT_TRUE(contains(flat, "const int recvcounts[16] = { " + entries + " }; const MPI_Datatype recvtypes[16]")) << part;
  }
  // The receive displacements are the blocks one after the other: a formula, pack_displs.
  EXPECT_FALSE(contains(part, "rdispls_by_rank")) << part;
  EXPECT_TRUE(contains(part, "pack_displs(16, recvcounts, rdispls);")) << part;
  EXPECT_TRUE(contains(part, "compute(compute_us_by_rank[rank]);")) << part;
  EXPECT_TRUE(contains(part, "      int *rdispls = request_ints(req, 3, 16, NULL);\n      pack_displs(16, recvcounts, rdispls);\n"))
      << part;
  EXPECT_TRUE(contains(part, "MPI_Allreduce(send_buf, recv_buf, msg_count(count_by_rank[rank]), MPI_DOUBLE,")) << part;
  EXPECT_TRUE(contains(part, "MPI_Finalize: the computation before it */\n  {\n    static const double compute_us_by_rank[16] = "
                             "{ 100, 101, 102,"))
      << part;

  // The tables hold every rank's values: compiled and printed by a C program of their own.
  const std::vector<std::pair<std::string, std::string>> tables = {
      {"sendcounts_by_rank", "static const int sendcounts_by_rank[16][16] = {"},
      {"displs_by_rank", "static const int displs_by_rank[16][16] = {"},
      {"recvcounts_by_rank", "static const int recvcounts_by_rank[16][16] = {"},
      {"compute_us_by_rank", "static const double compute_us_by_rank[16] = {"},
      {"count_by_rank", "static const int count_by_rank[16] = {"}};
  std::string program = "#include <stdio.h>\n";
  std::string prints;
  for (const auto& [name, declaration] : tables) {
    const std::string text = tableText(part, declaration);
    ASSERT_FALSE(text.empty()) << declaration << "\n" << part;
    program += text + "\n";
    const bool matrix = declaration.find("][") != std::string::npos;
    const bool real = declaration.find("double") != std::string::npos;
    prints += matrix ? fmt::format("  for (int r = 0; r < 16; ++r) for (int j = 0; j < 16; ++j) printf(\"%d\\n\", {}[r][j]);\n", name)
                     : fmt::format("  for (int r = 0; r < 16; ++r) printf(\"{}\\n\", {}[r]);\n", real ? "%g" : "%d", name);
  }
  program += "int main(void) {\n" + prints + "  return 0;\n}\n";
  if (std::system("command -v cc > /dev/null 2>&1") != 0) GTEST_SKIP() << "no C compiler";
  tracegen::testing::ScratchDir dir("rank-tables");
  dir.write("tables.c", program);
  ASSERT_EQ(tracegen::testing::run(dir, "(cc -std=c11 -Wall -Wextra -Werror -o tables tables.c && ./tables > values.txt)"), "")
      << program;
  std::ifstream in(dir.path / "values.txt");
  std::vector<std::string> got{std::istream_iterator<std::string>(in), {}};
  std::vector<std::string> want;
  auto matrix = [&](auto value) {
    for (int r = 0; r < P; ++r)
      for (int j = 0; j < P; ++j) want.push_back(std::to_string(value(r, j)));
  };
  matrix([](int r, int j) { return pairCount(r, j); });
  matrix([](int r, int j) { return sendDispl(r, j); });
  matrix([](int r, int j) { return pairCount(j, r); });
  for (int r = 0; r < P; ++r) want.push_back(fmt::format("{}", 10.5 + r * r % 7));
  for (int r = 0; r < P; ++r) want.push_back(std::to_string(countOf(r)));
  EXPECT_EQ(got, want) << program;
  tracegen::testing::expectCompilesUnderBothMpis(c, "rank-tables");
}

// A long program (hpcc with N=3000 made 13,265 events) is written in parts, a function each
// that main() calls in order: one main() of 286,828 lines was more than gcc -O2 could compile
// in 12 minutes. A part never separates the requests of a run kept in a local array from their
// completion (the array is declared where its run begins).
TEST(CBackend, ALongProgramIsWrittenInPartsThatKeepEachRunOfRequests) {
  std::string text = "tracegen-trace 1\nranks 2\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
                     "event 0 MPI_Init @ <1 0 {2 1}>\n  site main.c:1\n";
  int id = 1;
  for (int k = 0; k < 200; ++k) {  // 600 call statements: an exchange with its own sites each
    text += fmt::format("event {} MPI_Irecv @ <1 0 {{2 1}}>\n  site main.c:{}\n  comm 2\n  count {}\n"
                        "  datatype MPI_DOUBLE\n  source rel 1\n  tag 3\n",
                        id, id + 1, k + 1);
    ++id;
    text += fmt::format("event {} MPI_Isend @ <1 0 {{2 1}}>\n  site main.c:{}\n  comm 2\n  count {}\n"
                        "  datatype MPI_DOUBLE\n  dest rel 1\n  tag 3\n",
                        id, id + 1, k + 1);
    ++id;
    text += fmt::format("event {} MPI_Waitall @ <1 0 {{2 1}}>\n  site main.c:{}\n  count 2\n  requests 9998 9999\n", id,
                        id + 1);
    ++id;
  }
  text += fmt::format("event {} MPI_Finalize @ <1 0 {{2 1}}>\n  site main.c:{}\n", id, id + 1);
  const Trace t = tracegen::testing::loweredText(text, "long.tgt");
  const std::string c = render(buildProgram(t, "long.tgt"));
  // 600 statements in parts of about 250, each part whole exchanges.
  EXPECT_NE(c.find("/* The measured region, part 1 of 3: trace events E1 to E252. */\nstatic void measured_part_1(void)\n{"),
            std::string::npos)
      << c.substr(0, 4000);
  EXPECT_NE(c.find("static void measured_part_3(void)"), std::string::npos);
  EXPECT_EQ(c.find("measured_part_4"), std::string::npos);
  EXPECT_NE(c.find("MPI_Request requests"), std::string::npos) << "no run of local requests to keep whole";
  const std::size_t main = c.find("int main(int argc, char **argv)");
  ASSERT_NE(main, std::string::npos);
  EXPECT_NE(c.find("  measured_part_1();\n  measured_part_2();\n  measured_part_3();\n", main), std::string::npos);
  tracegen::testing::expectCompilesUnderBothMpis(c, "long-program");
}
