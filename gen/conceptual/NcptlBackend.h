// The coNCePTuaL backend: Program (gen/Program.h) -> coNCePTuaL 1.5 for the c_mpi backend.
//
// Algorithm. The program is walked in order; every statement keeps its rank set, which is
// written as the shortest task description (gen/RankSetText.h). A call statement becomes
// its computation (`COMPUTES FOR n*compute_scale/100 MICROSECONDS`) followed by the call's
// lowering (language reference §5.2-5.4): point-to-point sends and receives as separate
// statements at their own ranks (`SENDS … TO UNSUSPECTING TASK d`, `RECEIVES … FROM TASK s`),
// nonblocking ones ASYNCHRONOUSLY, collectives as MULTICAST, REDUCE and SYNCHRONIZE on the
// communicator's members. Parameter expressions are flattened into cases: a ByRank choice
// splits the rank set (size classes, since message specifications cannot depend on the task
// variable, §3.1), a ByExecution choice becomes an `IF` on the statement's execution index
// (a formula of the enclosing loops' variables, reduced modulo the period), a FirstIteration
// choice an `IF i = 0 … OTHERWISE …`; cases with equal values are merged back. Loops stay
// loops: `FOR n REPETITIONS` unless something inside reads the loop variable, then
// `FOR EACH i IN {0, ..., n-1}`. A loop whose trip count changes from one entry to the next
// counts its iterations over all its entries instead (`FOR EACH i IN {5*e - 1, ..., 5*e + 3}`,
// countedStart), so that the variable is its body's execution index as in any other loop.
// Conditions are bounded: a parameter whose cycle would leave more than kMaxCases cases is
// replaced by its mean (said in the header), or refused for a peer or a tag.
//
// AWAIT COMPLETION is placed as §5.2 asks: the number of outstanding requests is tracked per
// class of ranks (a partition of the ranks kept as RankLists); a wait emits AWAIT for the ranks
// it leaves with no outstanding request, every loop body ends with an AWAIT for the ranks
// that posted requests in it and still have some outstanding (the FOR … REPETITIONS pitfall
// of §4.8), and the program ends with one for every rank still waiting.
//
// A scale-free program (Program::scaleFree: tracegen extrapolate without --ranks) is walked the
// same way; its ranks are position classes of the process grid and some values formulas of the
// scale. Rank sets are then conditions on the task's grid coordinates, peers grid steps, values
// coNCePTuaL arithmetic on num_tasks and the extents px, py, pz, which the program binds once
// around all its statements (the balanced grid, or --px/--py), and the conditions under which
// the formulas are whole become ASSERTs (see "scale-free programs" below). A count that follows
// a block distribution of the task's coordinate splits its case's tasks in two at the coordinate
// where the blocks lose a point (Split), since a message specification cannot name the task.
// What a RECEIVE or a collective cannot say at every scale (wildcard sources, persistent
// requests, ...) is refused.
//
// Templates (templates/ncptl/*.mustache) spell every piece of program text; this backend only
// decides values, rank sets and indentation. The result is checked with ncptl/Checker.h
// before it is returned.
//
// This header is the backend's own (gen/NcptlBackend.h has its factory, createNcptlBackend): the
// helper types of cases and pieces, and the renderer class. The renderer's methods are defined in
// the files of gen/conceptual/ by family: Program.cpp (run(): the program skeleton, templates and
// comments; the Backend itself and its factory), Statements.cpp (the walker's hooks for loops and
// around every call: trip counts, computation, MPI_Init), Tasks.cpp (task descriptions), Values.cpp
// (parameter values as cases under conditions), Requests.cpp (outstanding requests and AWAIT
// COMPLETION, waits, persistent requests, matched probes), PointToPoint.cpp (sends, receives,
// messages, tags), Collectives.cpp, Communicators.cpp (communicator instances, neighbourhood
// collectives), OneSidedIO.cpp (RMA windows and MPI-IO) and ScaleFree.cpp (formulas of the scale,
// grid classes and peers, ASSERTs). The folder is named for the language so as not to be taken for
// ncptl/, the coNCePTuaL library (lexer, parser, checker) that checks what this backend writes.
#pragma once

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <kainjow/mustache.hpp>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>

#include "gen/ProgramWalker.h"
#include "ir/Checked.h"
#include "ir/Diagnostics.h"
#include "ir/Limits.h"
#include "ir/RankCursor.h"
#include "gen/GridClasses.h"
#include "gen/RankSetText.h"
#include "passes/RankRanges.h"

namespace tracegen::gen::conceptual {

using kainjow::mustache::data;
using kainjow::mustache::list;

using ExecIndex = std::vector<std::pair<int, std::int64_t>>;

// ------------------------------------------------------------------------- cases

// Residues of an execution index, ascending and distinct. A sorted vector rather than a
// std::set: cases are copied for every split and every parameter (Case d = c), and a cycle of
// 640 resolved senders leaves residue sets of hundreds, whose node-by-node copies were the
// largest single cost of the LU class C program.
class ResidueSet {
 public:
  ResidueSet() = default;
  ResidueSet(std::initializer_list<std::int64_t> values) {
    for (std::int64_t v : values) insert(v);
  }
  void insert(std::int64_t v) {
    if (v_.empty() || v > v_.back()) {  // the usual order: ascending
      v_.push_back(v);
      return;
    }
    auto it = std::lower_bound(v_.begin(), v_.end(), v);
    if (it == v_.end() || *it != v) v_.insert(it, v);
  }
  void insert(const ResidueSet& other) {
    std::vector<std::int64_t> both;
    both.reserve(v_.size() + other.v_.size());
    std::set_union(v_.begin(), v_.end(), other.v_.begin(), other.v_.end(), std::back_inserter(both));
    v_ = std::move(both);
  }
  std::size_t count(std::int64_t v) const { return std::binary_search(v_.begin(), v_.end(), v) ? 1 : 0; }
  // Drops every residue at or above `limit`.
  void eraseFrom(std::int64_t limit) { v_.erase(std::lower_bound(v_.begin(), v_.end(), limit), v_.end()); }
  void clear() { v_.clear(); }
  bool empty() const { return v_.empty(); }
  std::size_t size() const { return v_.size(); }
  auto begin() const { return v_.begin(); }
  auto end() const { return v_.end(); }
  bool operator==(const ResidueSet&) const = default;

 private:
  std::vector<std::int64_t> v_;
};

// A condition on the loop state under which a case applies.
struct Cond {
  enum class Kind { Exec, First };
  Kind kind = Kind::Exec;
  ExecIndex index;                 // Exec: k = sum of mult * (variable of loop)
  std::int64_t period = 1;         // Exec: k mod period is one of residues
  ResidueSet residues;
  int loop = -1;                   // First: the loop whose first iteration is meant
  bool first = true;

  bool sameTest(const Cond& o) const {  // equal except for the residues
    return kind == o.kind && index == o.index && period == o.period && loop == o.loop &&
           (kind == Kind::Exec || first == o.first);
  }
  bool operator==(const Cond& o) const { return sameTest(o) && residues == o.residues; }
};

// A scale-free program's split of a case's tasks by a block distribution (gen/Program.h
// BlockTerm): those whose coordinate along `dim` is below N mod p_d (one point more), or the
// others. A message specification cannot name the task's coordinate (language reference §3.1),
// so a count a + b*block(N, p_d, c_d) becomes two cases of task sets, each with one count.
struct Split {
  int dim = 0;
  std::int64_t points = 0;
  bool below = true;
  bool operator==(const Split&) const = default;
};

// One combination of parameter values, for the ranks `ranks` under `conds` (and `splits`).
struct Case {
  RankList ranks;
  std::vector<Cond> conds;
  std::map<std::string, Expr> values;  // leaves: Const or RankOffset; scale-free ones too
  // A Block value's half is its `value`: 1 below the split, 0 from it.
  std::vector<Split> splits;
};

// Statements with the comments that go above the first of them.
struct Piece {
  std::vector<std::string> comments;
  std::vector<std::string> stmts;
};

std::string trimNewlines(std::string s);

// One line of comment text: no newline may end the comment early.
std::string oneLine(std::string s);

// The coNCePTuaL renderer: the program walker's hooks (gen/ProgramWalker.h) turn each statement
// into pieces of the program (statements with their comments).
class Renderer : public ProgramWalker {
 public:
  Renderer(const Program& p, const GenOptions& o) : ProgramWalker(p, o, "ncptl", false), p_(p), opt_(o) {}
  // (defined in gen/conceptual/Program.cpp)
  std::string run();

 private:
  // ----------------------------------------------------------------------- templates
  // (defined in gen/conceptual/Program.cpp)
  std::string fill(const std::string& name, const data& d, bool trim = true);
  std::string topLevel(const std::vector<Piece>& pieces);
  std::string joinStmts(const std::vector<std::string>& stmts);
  std::string body(const std::vector<Piece>& pieces);
  data commentData(const std::string& op, const CallStmt* call, const std::string& detail);
  std::string siteOf(const Event* e) const;
  std::string callComment(const CallStmt& c, const std::string& detail = "");

  // ----------------------------------------------------------------------- task descriptions
  // (defined in gen/conceptual/Tasks.cpp)
  static std::string upcaseKeywords(const std::string& text);

  struct Desc {
    std::string text;
    bool single = false;
  };
  Desc acting(const RankList& r, bool bindVar, const std::vector<Split>& splits = {});
  Desc target(const RankList& r, const std::string& var, bool bindVar = false, const std::vector<Split>& splits = {});
  Desc described(const RankList& r, const RankExprOptions& o);
  std::map<std::string, Desc> descriptions_;
  const RankShape& shapeOf(const RankList& r);
  Desc singleDesc(Rank r);
  std::string allOther();
  std::string peerOffset(std::int64_t offset, const RankList& r);

  // ----------------------------------------------------------------------- loops
  // (defined in gen/conceptual/Statements.cpp)
  void collectLoops(const std::vector<Stmt>& body);

  static std::string loopVar(int id) { return fmt::format("i{}", id); }
  std::optional<ExecIndex> currentIndex() const;

  // ----------------------------------------------------------------------- cases
  // (defined in gen/conceptual/Values.cpp)
  Expr approximate(const Expr& e, const std::string& what, bool peer, const std::string& where = kNoConstantTrips);
  static constexpr const char* kNoConstantTrips = "inside a loop without a constant trip count";
  // Cases multiply: the conditions of one statement are bounded (a parameter whose cycle
  // leaves more cases than this is approximated, or refused for a peer or a tag).
  static constexpr std::size_t kMaxCases = 256;
  // A counted loop's start chooses among at most this many prefix sums (countedStart).
  static constexpr std::size_t kMaxStartChoices = 64;
  // The most iterations a loop whose body leaves requests pending across iterations is unrolled into.
  static constexpr std::int64_t kMaxUnrolledTrips = 64;

  // Where each case of a refinement came from (refineOne with grouped peer offsets): the
  // ByExecution expansion whose leaf values it takes, or a number of its own.
  struct CaseOrigins {
    std::vector<std::size_t> of;  // parallel to the refinement's cases
    std::size_t next = 0;
    bool grouped = false;  // some case stands for the executions of more than one offset
  };
  void refineOne(Case c, const std::string& key, const Expr& e, const std::optional<ExecIndex>& index,
                 std::vector<Case>& out, CaseOrigins* origins = nullptr);
  void refineByExecution(const Case& c, const std::string& key, const Expr& e, const std::optional<ExecIndex>& index,
                         std::vector<Case>& out);
  static constexpr std::int64_t kMaxCasePeriod = 4096;
  static CallStmt specialised(const CallStmt& c, const Case& k);
  static std::string memberKey(Param p, std::size_t i) { return fmt::format("{}#{}", paramName(p), i); }

  // ----------------------------------------------------------------------- conditions
  // (defined in gen/conceptual/Values.cpp)
  std::optional<std::int64_t> tripsOf(int loop) const;
  static ExecIndex reducedTerms(const Cond& c);
  std::optional<std::int64_t> plainTrips(const Cond& c) const;

  enum class Truth { Never, Always, Sometimes };
  Truth normalize(Cond& c) const;
  bool addCond(Case& c, Cond cd);
  std::vector<Case> cases(const RankList& ranks, const std::vector<std::pair<std::string, const Expr*>>& params,
                          const std::optional<ExecIndex>& index,
                          const std::vector<std::pair<std::string, const Expr*>>& perMember = {}, bool splitsSpelled = false);
  std::vector<Case> casesOf(const RankList& ranks, const std::vector<std::pair<std::string, const Expr*>>& params,
                            const std::optional<ExecIndex>& index,
                            const std::vector<std::pair<std::string, const Expr*>>& perMember);
  std::vector<Case> groupedRefinement(const std::vector<Case>& cs, const std::string& key, const Expr& e,
                                      const std::optional<ExecIndex>& index);
  void merge(std::vector<Case>& cs);
  bool join(std::vector<Case>& cs, std::size_t i, std::size_t j);
  std::string rangeText(const std::vector<std::int64_t>& v);
  std::string condText(const Cond& c);
  std::string condsText(const std::vector<Cond>& cs);
  bool complementary(const Cond& a, const Cond& b) const;
  std::string ifStmt(const std::string& cond, const std::vector<std::string>& then,
                     const std::vector<std::string>* otherwise);

  // Emits the statements of every case, guarded by its conditions. Cases under the same
  // conditions share one IF; a first-iteration/later-iterations pair becomes IF … OTHERWISE.
  template <typename Build>
  std::vector<std::string> guarded(const std::vector<Case>& cs, Build build) {
    std::vector<std::pair<std::vector<Cond>, std::vector<std::string>>> groups;
    for (const auto& c : cs) {
      std::vector<std::string> stmts = build(c);
      if (stmts.empty()) continue;
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == c.conds; });
      if (it == groups.end()) {
        groups.push_back({c.conds, {}});
        it = groups.end() - 1;
      }
      it->second.insert(it->second.end(), stmts.begin(), stmts.end());
    }
    std::vector<std::string> out;
    std::vector<bool> done(groups.size(), false);
    for (std::size_t i = 0; i < groups.size(); ++i) {
      if (done[i]) continue;
      const auto& [conds, stmts] = groups[i];
      if (conds.empty()) {
        out.insert(out.end(), stmts.begin(), stmts.end());
        continue;
      }
      // IF c THEN … OTHERWISE …: another group whose single condition is the complement
      // (the other iterations of the same loop, or the remaining residues of the same index).
      std::size_t partner = groups.size();
      if (conds.size() == 1)
        for (std::size_t j = i + 1; j < groups.size() && partner == groups.size(); ++j)
          if (!done[j] && groups[j].first.size() == 1 && complementary(conds[0], groups[j].first[0])) partner = j;
      if (partner < groups.size()) {
        done[partner] = true;
        // First iteration first; otherwise the group that comes first keeps its place.
        const bool swap = conds[0].kind == Cond::Kind::First && !conds[0].first;
        const auto& thenStmts = swap ? groups[partner].second : stmts;
        const auto& elseStmts = swap ? stmts : groups[partner].second;
        out.push_back(ifStmt(condText(swap ? groups[partner].first[0] : conds[0]), thenStmts, &elseStmts));
        continue;
      }
      out.push_back(ifStmt(condsText(conds), stmts, nullptr));
    }
    return out;
  }

  // ----------------------------------------------------------------------- requests
  // (defined in gen/conceptual/Requests.cpp)
  void splitApply(const RankList& r, const std::function<std::int64_t(std::int64_t)>& f);
  void addRequests(const RankList& r, std::int64_t k);
  void completeRequests(const RankList& r, std::int64_t k);  // k < 0: all
  RankList busyRanks(const RankList& r) const;
  std::string awaitStmt(const RankList& r);

  // ----------------------------------------------------------------------- statements
  std::string_view backendName() const override { return "coNCePTuaL"; }

  // Where the walk puts its pieces: the program's, or the body of the loop being rendered.
  std::vector<Piece>* out_ = nullptr;
  // (defined in gen/conceptual/Statements.cpp)
  void loop(const Stmt& s, const RankList& ranks) override;
  void renderLoop(const Stmt& s, const RankList& ranks, std::vector<Piece>& out);
  static bool atOneScale(const Expr& e);
  std::string countedStart(const LoopStmt& loop, const Case& c, const std::optional<ExecIndex>& index,
                           std::int64_t trips);
  std::string loopStart(int loop) const;
  static std::string minusOne(const std::string& n);
  std::string progression(std::int64_t first, std::int64_t last);
  // (defined in gen/conceptual/PointToPoint.cpp)
  std::int64_t typeSize(const Expr& e) const;
  std::string scaledBytes(std::int64_t bytes);
  std::string message(std::int64_t bytes, std::optional<std::int64_t> tag);
  std::map<std::pair<std::int64_t, std::optional<std::int64_t>>, std::string> messages_;
  // (defined in gen/conceptual/Statements.cpp)
  std::vector<std::string> computeStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx);

  // The call statement being rendered: its execution index, its statements (the computation's,
  // then the call's) and the detail of its comment.
  struct Current {
    std::optional<ExecIndex> idx;
    Piece piece;
    std::vector<std::string> call;
    std::string detail;
  };
  Current cur_;
  void beginCall(const CallStmt& c, const RankList&) override;
  void compute(const CallStmt& c, const RankList& ranks) override;
  void endCall(const CallStmt& c, const RankList&) override;
  void lifecycle(const CallStmt& c, const RankList& ranks) override;
  // (defined in gen/conceptual/PointToPoint.cpp)
  void pointToPoint(const CallStmt& c, const RankList& ranks) override;
  // (defined in gen/conceptual/Requests.cpp)
  void completion(const CallStmt& c, const RankList& ranks) override;
  // (defined in gen/conceptual/Collectives.cpp)
  void collective(const CallStmt& c, const RankList& ranks) override;
  void nonblockingCollective(const CallStmt& c, const RankList& ranks) override;
  // (defined in gen/conceptual/Communicators.cpp)
  void communicator(const CallStmt& c, const RankList&) override;
  // (defined in gen/conceptual/Requests.cpp)
  void persistent(const CallStmt& c, const RankList& ranks) override;
  void matchedProbe(const CallStmt& c, const RankList& ranks) override;
  // (defined in gen/conceptual/OneSidedIO.cpp)
  void oneSided(const CallStmt& c, const RankList& ranks) override;
  void fileIo(const CallStmt& c, const RankList&) override;
  // (defined in gen/conceptual/Statements.cpp)
  void opaque(const CallStmt& c, const RankList&) override;
  // (defined in gen/conceptual/OneSidedIO.cpp)
  std::vector<std::string> oneSidedStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                         std::string& detail);
  std::vector<std::string> rmaMessage(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                      bool get, bool* reversed = nullptr);
  // (defined in gen/conceptual/Statements.cpp)
  std::vector<std::string> initStmts(const RankList& ranks);

  // ----------------------------------------------------------------------- point to point
  // (defined in gen/conceptual/PointToPoint.cpp)
  void decideTags(const std::vector<Stmt>& body);

  template <typename F>
  static bool anyLeaf(const Expr& e, F f) {
    if (e.children.empty()) return f(e);
    return std::any_of(e.children.begin(), e.children.end(), [&](const Expr& c) { return anyLeaf(c, f); });
  }
  std::optional<std::int64_t> tagOf(const Case& k, const std::string& key) const;

  // The partner of the ranks of a case: a constant rank, or an offset (needs `t` bound).
  struct Partner {
    bool relative = false;
    std::string text;   // TASK … text
    bool valid = true;  // a constant outside 0 … P-1 (MPI_PROC_NULL) drops the communication
  };
  Partner partner(const Expr& v, const RankList& r, bool source);
  std::vector<std::string> sendStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                     bool async, Param countP = Param::Count, Param typeP = Param::Datatype,
                                     Param tagP = Param::Tag);
  std::int64_t bytesOf(const Case& k, const std::string& count, const std::string& type) const;
  std::vector<std::string> recvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                     bool async, Param countP, Param typeP, Param tagP);
  std::vector<std::string> sendrecvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx);

  // ----------------------------------------------------------------------- persistent requests
  // (defined in gen/conceptual/Requests.cpp)
  std::vector<std::string> startStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                      std::string& detail);
  std::vector<std::string> matchedRecvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                            std::string& detail);
  const std::vector<const Event*>* startedInits(const Event* start);
  void mapCalls();
  std::vector<std::string> waitStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                     std::string& detail);

  // ----------------------------------------------------------------------- collectives
  // (defined in gen/conceptual/Communicators.cpp)
  std::vector<RankList> groupsOf(const Case& k, const RankList& ranks, const CallStmt& c);
  RankList complete(const RankList& instance, const RankList& ranks, const CallStmt& c);
  // (defined in gen/conceptual/Collectives.cpp)
  double meanOver(const RankList& g, const std::function<double(Rank)>& f);

  // A member's value of a case's parameter: the case's conditions have settled every choice by
  // execution and first iteration (specialised()), so the shared evaluator needs only the rank.
  double valueAt(const Expr& e, Rank r) const { return e.eval(r, p_.numRanks, 0, {}); }
  double scalarBytes(const CallStmt& c, Rank r) const;
  double vectorBytes(const CallStmt& c, Param vec, Param typeP, Rank r) const;

  // ---- neighbourhood collectives (docs/ncptl-backend.md, "Neighbourhood collectives").
  // coNCePTuaL has no process topologies: each rank's blocks become asynchronous messages to
  // each destination and from each source (MPI_PROC_NULL neighbours dropped), the same bytes,
  // then the ranks await their completion. The neighbours come from the trace's topology
  // constructors (RankCursor), one statement per rank and neighbour.
  struct RankNeighbours {
    std::vector<Rank> sources, destinations;
  };
  std::map<std::pair<std::int64_t, Rank>, RankNeighbours> neighbours_;
  // (defined in gen/conceptual/Communicators.cpp)
  const RankNeighbours& neighboursOf(std::int64_t comm, Rank r);
  std::vector<std::string> neighborStmts(const CallStmt& c, const RankList& ranks, std::string& detail);
  // (defined in gen/conceptual/Collectives.cpp)
  double typedVectorBytes(const CallStmt& c, Rank r) const;
  std::string multicast(const Desc& from, const std::string& to, std::int64_t bytes);
  std::string rootToOthers(Rank root, const RankList& g, std::int64_t bytes);
  std::string allToAll(const RankList& g, std::int64_t bytes);
  std::string reduce(const RankList& g, std::int64_t count, std::int64_t typeBytes, const std::string& rootText);
  std::vector<std::string> collectiveStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                           std::string& detail);
  static std::vector<std::pair<std::string, const Expr*>> memberParams(const CallStmt& c);
  std::vector<std::string> reduceScatter(const CallStmt& c, const Case& k, const RankList& g);
  std::vector<std::string> scanChain(const RankList& g, std::int64_t bytes);

  // ----------------------------------------------------------------------- scale-free programs
  // A scale-free program (Program::scaleFree, extrap/ScaleFree.h) runs at any task count its
  // formulas fit. Its "ranks" are the position classes of the process grid, so a rank set is
  // written as a condition on the task's grid coordinates (x = t MOD px, y = t/px MOD py,
  // z = t/(px*py); in 1-D t itself against num_tasks), a peer as the task one grid step away, a
  // value as coNCePTuaL arithmetic on num_tasks and the extents px, py, pz that the program
  // binds once (program.mustache, grid.mustache). Every integer formula also says when it is
  // whole (`240/px` needs px dividing 240): those conditions become ASSERTs that stop the
  // program before it communicates, as the C benchmark's scale_problem() does.
  bool scaleFree() const { return p_.scaleFree.has_value(); }
  int gridDims() const { return p_.scaleFree ? p_.scaleFree->dims : 1; }
  // (defined in gen/conceptual/ScaleFree.cpp)
  std::string scaleVar(ScaleFormula::Var v) const;
  std::string scaleVarWords(ScaleFormula::Var v) const;
  void noteScaleCondition(const std::string& cond, const std::string& words);
  static std::string negatable(const std::string& t);
  // A right operand of '*' or '/': parenthesised unless it is one name, number or call.
  static std::string factor(const std::string& t) { return parenthesised(t, "+-*/ "); }
  // A left operand of '*' or '/' (they associate to the left): parenthesised if it is a sum.
  static std::string leftFactor(const std::string& t) { return parenthesised(t, "+- "); }
  static std::string parenthesised(const std::string& t, std::string_view operators);
  std::string integerTerm(const ScaleFormula& f);
  std::string formulaText(const ScaleFormula& f);
  static std::int64_t decimalScale(const std::vector<double>& values);
  std::string durationText(const ScaleFormula& f);
  std::string executionIndexText();
  std::string intText(const Expr& v);
  std::string classCondition(const RankList& classes, const std::string& v);
  std::string blockExtent(int dim) const;
  std::string splitCondition(const Split& sp, const std::string& v) const;
  Desc classTasks(const RankList& r, const std::string& var, bool targetPos, bool bindVar,
                  const std::vector<Split>& splits = {});
  std::string gridPeerText(const GridStep& g, const std::string& v);
  std::string relationPeerText(GridRelation rel, const std::string& v);
  std::string messageOf(const Case& k, const std::string& count, const std::string& type, const std::string& tagKey);
  std::string bytesText(const Expr* n, const Expr* type);
  std::string scaledBytesText(const std::string& bytes);
  [[noreturn]] static void scaleFreeRefusal(const CallStmt& c, const std::string& what);
  static std::vector<std::pair<std::string, const Expr*>> collectiveParams(const CallStmt& c);
  std::vector<std::string> scaleFreeCollective(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx);
  std::vector<std::string> scaleAsserts();

  const Program& p_;
  const GenOptions& opt_;
  std::map<int, std::int64_t> loopTrips_;
  struct OpenLoop {
    int id;
    std::int64_t trips;   // of the entry being rendered
    bool sameEveryEntry;  // the trip count is a constant
    std::string start;    // counted over all entries: the entry's first value (countedStart)
    std::string tripsText;  // a scale-free trip count that is a formula (trips is then unknown)
  };
  std::vector<OpenLoop> loopStack_;
  std::set<int> usedLoops_;
  std::vector<std::pair<RankList, std::int64_t>> outstanding_;
  std::map<std::string, RankShape> shapes_;  // RankList::str() -> shape, for sets the pass did not see
  std::vector<RankList> postedInLoop_;
  bool useTags_ = true;
  // Scale-free programs: the conditions under which the formulas are whole (coNCePTuaL
  // relation, words), for the ASSERTs.
  std::vector<std::pair<std::string, std::string>> scaleConditions_;
  // Persistent requests: the init calls rendered so far, and the init events of each start.
  static constexpr std::int64_t kStartBudget = 10'000'000;
  std::map<const Event*, CallStmt> inits_;
  std::map<const Event*, std::vector<const Event*>> startInits_;
  bool startsMapped_ = false;
  // Matched probes: the probes rendered so far, and the probe event of each matched receive.
  std::map<const Event*, CallStmt> probes_;
  std::map<const Event*, const Event*> recvProbe_;
};

}  // namespace tracegen::gen::conceptual
