// The generic backend (gen/ProgramWalker.h): a backend of this test's own records the hooks the
// walk calls, in order, so that the contract docs/c-backend.md describes ("The program walker")
// holds for whoever writes the next backend.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "gen/ProgramWalker.h"

namespace tracegen::gen {
namespace {

Stmt callStmt(Op op, const RankList& ranks, Expr compute = Expr::constant(0)) {
  Stmt s;
  s.kind = Stmt::Kind::Call;
  s.ranks = ranks;
  s.call.op = op;
  s.call.computeUs = std::move(compute);
  return s;
}

Stmt loopStmt(int id, const RankList& ranks, std::vector<Stmt> body) {
  Stmt s;
  s.kind = Stmt::Kind::Loop;
  s.ranks = ranks;
  s.loop.id = id;
  s.loop.iterations = Expr::constant(3);
  s.loop.body = std::move(body);
  return s;
}

// Records every hook; overrides the families a point-to-point program needs and leaves the
// collectives to the default (which refuses).
class Recorder : public ProgramWalker {
 public:
  Recorder(const Program& p, const GenOptions& o) : ProgramWalker(p, o, "c", true) {}
  std::vector<std::string> run() {
    walk(program_.body, all_);
    return log_;
  }

 protected:
  std::string_view backendName() const override { return "test"; }
  void beginGuard(const RankList& r, const RankList& outer, bool first) override {
    log_.push_back("guard " + r.pretty() + " in " + outer.pretty() + (first ? " first" : ""));
  }
  void endGuard(const RankList& r, const RankList&) override { log_.push_back("end guard " + r.pretty()); }
  void beginLoop(const Stmt& s, const RankList& r) override {
    log_.push_back("loop " + std::to_string(s.loop.id) + " " + r.pretty());
  }
  void endLoop(const Stmt& s, const RankList&) override { log_.push_back("end loop " + std::to_string(s.loop.id)); }
  void beginCall(const CallStmt& c, const RankList& r) override {
    log_.push_back(std::string("call ") + std::string(opName(c.op)) + " " + r.pretty());
  }
  void compute(const CallStmt& c, const RankList&) override {
    if (!c.computeUs.isConst() || c.computeUs.value != 0) log_.push_back("compute");
  }
  void endCall(const CallStmt& c, const RankList&) override { log_.push_back("end " + std::string(opName(c.op))); }
  void lifecycle(const CallStmt&, const RankList&) override { log_.push_back("lifecycle"); }
  void pointToPoint(const CallStmt&, const RankList&) override { log_.push_back("pointToPoint"); }
  void completion(const CallStmt&, const RankList&) override { log_.push_back("completion"); }

 private:
  std::vector<std::string> log_;
};

TEST(ProgramWalker, CallsOneHookPerStatementInProgramOrder) {
  Program p;
  p.numRanks = 4;
  p.comms = standardCommunicators(4);
  const RankList all = RankList::all(4), low = RankList::progression(0, 2), high = RankList::progression(2, 2);
  p.body = {callStmt(Op::Init, all),
            loopStmt(1, all,
                     {callStmt(Op::Isend, low, Expr::constant(5)), callStmt(Op::Wait, low), callStmt(Op::Recv, high)}),
            callStmt(Op::Finalize, all)};
  GenOptions o;
  const std::vector<std::string> expected = {
      "guard 0-3 in 0-3 first", "call MPI_Init 0-3", "lifecycle", "end MPI_Init", "loop 1 0-3",
      // Runs of statements with one rank set share a guard; the computation comes before the call.
      "guard 0-1 in 0-3 first", "call MPI_Isend 0-1", "compute", "pointToPoint", "end MPI_Isend",
      "call MPI_Wait 0-1", "completion", "end MPI_Wait", "end guard 0-1",
      "guard 2-3 in 0-3", "call MPI_Recv 2-3", "pointToPoint", "end MPI_Recv", "end guard 2-3",
      "end loop 1", "call MPI_Finalize 0-3", "lifecycle", "end MPI_Finalize", "end guard 0-3"};
  EXPECT_EQ(Recorder(p, o).run(), expected);
}

TEST(ProgramWalker, FamiliesABackendHasNotWrittenAreRefusedByName) {
  Program p;
  p.numRanks = 2;
  p.comms = standardCommunicators(2);
  p.body = {callStmt(Op::Init, RankList::all(2)), callStmt(Op::Barrier, RankList::all(2))};
  GenOptions o;
  try {
    Recorder(p, o).run();
    FAIL() << "a collective was walked without a collective hook";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(), "no test lowering for MPI_Barrier");
  }
  EXPECT_THROW(Recorder(Program{}, o), std::invalid_argument);  // no ranks
}

TEST(ProgramWalker, EveryOperationBelongsToAFamily) {
  EXPECT_EQ(opFamily(Op::Send), OpFamily::PointToPoint);
  EXPECT_EQ(opFamily(Op::Waitall), OpFamily::Completion);
  EXPECT_EQ(opFamily(Op::Allreduce), OpFamily::Collective);
  EXPECT_EQ(opFamily(Op::Ibcast), OpFamily::NonblockingCollective);
  EXPECT_EQ(opFamily(Op::CommSplit), OpFamily::Communicator);
  EXPECT_EQ(opFamily(Op::Start), OpFamily::Persistent);
  EXPECT_EQ(opFamily(Op::Mprobe), OpFamily::MatchedProbe);
  EXPECT_EQ(opFamily(Op::Put), OpFamily::OneSided);
  EXPECT_EQ(opFamily(Op::FileOpen), OpFamily::FileIo);
  EXPECT_EQ(opFamily(Op::Finalize), OpFamily::Lifecycle);
}

}  // namespace
}  // namespace tracegen::gen
