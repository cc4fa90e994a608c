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
// Templates (templates/ncptl/*.mustache) spell every piece of program text; this file only
// decides values, rank sets and indentation. The result is checked with ncptl/Checker.h
// before it is returned.
#include "gen/NcptlBackend.h"
#include "gen/ProgramWalker.h"

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

#include "ncptl/Checker.h"
#include "ncptl/Lexer.h"
#include "ir/Checked.h"
#include "ir/Diagnostics.h"
#include "ir/Limits.h"
#include "ir/RankCursor.h"
#include "gen/GridClasses.h"
#include "gen/RankSetText.h"
#include "passes/RankRanges.h"

namespace tracegen::gen {

namespace {

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

std::string trimNewlines(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// One line of comment text: no newline may end the comment early.
std::string oneLine(std::string s) {
  for (auto& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

// The coNCePTuaL renderer: the program walker's hooks (gen/ProgramWalker.h) turn each statement
// into pieces of the program (statements with their comments).
class Renderer : public ProgramWalker {
 public:
  Renderer(const Program& p, const GenOptions& o) : ProgramWalker(p, o, "ncptl", false), p_(p), opt_(o) {}

  std::string run() {
    outstanding_ = {{all_, 0}};
    collectLoops(p_.body);
    decideTags(p_.body);
    for (const auto& n : p_.notes) note(n);

    std::vector<Piece> pieces;
    out_ = &pieces;
    walk(p_.body, all_);
    // Nothing may be pending at the end of the program (§3.6).
    RankList busy = busyRanks(all_);
    if (!busy.empty()) {
      Piece end;
      end.comments.push_back(fill("comment", commentData("end of the program", nullptr, "complete every request still outstanding")));
      end.stmts.push_back(awaitStmt(busy));
      pieces.push_back(std::move(end));
      completeRequests(busy, -1);
    }

    data d;
    std::string text;
    if (scaleFree()) {
      // The conditions the formulas need come first; on a grid they read px, py, pz, so they
      // and the program's statements go inside the grid's bindings (grid.mustache).
      const std::vector<std::string> asserts = scaleAsserts();
      // At top level (1-D) each ASSERT is a statement of its own; on a grid they open its body.
      std::vector<Piece> first;
      for (std::size_t i = 0; i < asserts.size(); ++i) {
        if (i == 0 || gridDims() == 1) first.emplace_back();
        if (i == 0) first.back().comments.push_back(fill("comment", commentData("the scale", nullptr, "the task counts this benchmark fits")));
        first.back().stmts.push_back(asserts[i]);
      }
      pieces.insert(pieces.begin(), first.begin(), first.end());
      if (gridDims() == 1) {
        text = topLevel(pieces);
      } else {
        data g;
        g.set("dim2", gridDims() == 2);
        g.set("dim3", gridDims() == 3);
        g.set("descending", p_.scaleFree->descending);
        g.set("body", indent(body(pieces), gridDims() == 2 ? 2 : 4));
        text = fill("grid", g, false);
      }
    } else {
      text = topLevel(pieces);
    }
    d.set("fixedScale", !scaleFree());
    d.set("scaleFree", scaleFree());
    d.set("grid", scaleFree() && gridDims() > 1);
    d.set("line", scaleFree() && gridDims() == 1);
    d.set("dim3", scaleFree() && gridDims() == 3);
    d.set("descending", scaleFree() && p_.scaleFree->descending);
    d.set("dims", std::to_string(gridDims()));
    d.set("inputs", oneLine(scaleFree() ? p_.scaleFree->inputs : std::string()));
    d.set("minTasks", std::to_string(gridDims() == 1 ? 2 : gridDims() == 2 ? 4 : 8));
    d.set("title", "coNCePTuaL benchmark generated from an MPI trace");
    d.set("source", oneLine(p_.source.empty() ? std::string("an MPI trace") : p_.source));
    d.set("origin", oneLine(p_.origin.empty() ? std::string("unknown origin") : p_.origin));
    d.set("ranks", std::to_string(p_.numRanks));
    d.set("command", oneLine(opt_.commandLine.empty() ? std::string("tracegen") : opt_.commandLine));
    list noteList;
    for (const auto& n : notes()) noteList.push_back(data("text", oneLine(n)));
    d.set("hasNotes", !notes().empty());
    d.set("notes", noteList);
    d.set("body", text);
    return fill("program", d, false);
  }

 private:
  // ----------------------------------------------------------------------- templates
  std::string fill(const std::string& name, const data& d, bool trim = true) {
    std::string out = render(name, d);
    return trim ? trimNewlines(out) : out;
  }

  std::string topLevel(const std::vector<Piece>& pieces) {
    list items;
    for (const auto& pc : pieces) {
      if (pc.stmts.empty()) continue;
      data item;
      list comments;
      for (const auto& c : pc.comments) comments.push_back(data("text", c));
      item.set("comments", comments);
      item.set("code", joinStmts(pc.stmts));
      items.push_back(item);
    }
    data d;
    d.set("items", items);
    return fill("toplevel", d, false);
  }

  // Statements of one piece joined with THEN (no comments).
  std::string joinStmts(const std::vector<std::string>& stmts) {
    list items;
    for (std::size_t i = 0; i < stmts.size(); ++i) {
      data item;
      item.set("comments", list{});
      item.set("code", stmts[i]);
      item.set("last", i + 1 == stmts.size());
      items.push_back(item);
    }
    data d;
    d.set("items", items);
    return fill("block", d);
  }

  // A brace body: every statement of every piece, joined with THEN, indented by two.
  std::string body(const std::vector<Piece>& pieces) {
    list items;
    std::size_t total = 0;
    for (const auto& pc : pieces) total += pc.stmts.size();
    std::size_t n = 0;
    for (const auto& pc : pieces) {
      for (std::size_t i = 0; i < pc.stmts.size(); ++i) {
        data item;
        list comments;
        if (i == 0)
          for (const auto& c : pc.comments) comments.push_back(data("text", c));
        item.set("comments", comments);
        item.set("code", pc.stmts[i]);
        item.set("last", ++n == total);
        items.push_back(item);
      }
    }
    data d;
    d.set("items", items);
    return indent(fill("block", d), 2);
  }

  data commentData(const std::string& op, const CallStmt* call, const std::string& detail) {
    data d;
    d.set("op", op);
    d.set("hasEvent", call && call->event);
    d.set("id", call && call->event ? std::to_string(call->event->id) : std::string());
    std::string site = call ? siteOf(call->event) : std::string();
    d.set("hasSite", !site.empty());
    d.set("site", site);
    d.set("hasDetail", !detail.empty());
    d.set("detail", detail);
    return d;
  }

  std::string siteOf(const Event* e) const {
    const std::vector<std::string> sites = callSites(e);
    const std::vector<std::string> named = siteDescriptions(e);
    std::string s;
    for (std::size_t i = 0; i < sites.size(); ++i) s += (i == 0 ? "" : ", ") + (named[i].empty() ? sites[i] : named[i].substr(3));  // the templates say "at": no "in "
    return oneLine(s);
  }

  std::string callComment(const CallStmt& c, const std::string& detail = "") {
    return fill("comment", commentData(std::string(opName(c.op)), &c, detail));
  }

  // ----------------------------------------------------------------------- task descriptions
  // ncptlTasks's text in our spelling: keywords upper case, names as they are.
  static std::string upcaseKeywords(const std::string& text) {
    ncptl::LexResult lr = ncptl::lex(text);
    std::string out = text;
    for (const auto& t : lr.tokens)
      if (t.kind == ncptl::Tok::Keyword)
        for (std::size_t i = t.where.begin; i < t.where.end; ++i)
          out[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[i])));
    return out;
  }

  struct Desc {
    std::string text;
    bool single = false;
  };

  // The acting tasks; with `bindVar` the description binds `t` (for partner expressions).
  Desc acting(const RankList& r, bool bindVar, const std::vector<Split>& splits = {}) {
    if (scaleFree()) return classTasks(r, "t", false, bindVar, splits);
    if (r.size() == 1 && !bindVar) return singleDesc(*r.first());
    if (r == all_ && !bindVar) {
      data d;
      d.set("all", true);
      return {fill("tasks", d), false};
    }
    RankExprOptions o;
    o.taskVar = "t";
    o.bindVariable = bindVar;
    return described(r, o);
  }

  // A target (TO side of SENDS/MULTICASTS, receivers of RECEIVES), where ALL TASKS is
  // illegal (§3.2); binds `var` if it needs a variable at all.
  Desc target(const RankList& r, const std::string& var, bool bindVar = false, const std::vector<Split>& splits = {}) {
    if (scaleFree()) return classTasks(r, var, true, bindVar, splits);
    if (r.size() == 1 && !bindVar) return singleDesc(*r.first());
    RankExprOptions o;
    o.taskVar = var;
    o.target = true;
    o.bindVariable = bindVar;
    return described(r, o);
  }

  // Remembered per set and options: a statement's cases name the same few sets again and
  // again, and each description lexes its text (upcaseKeywords) and fills a template.
  Desc described(const RankList& r, const RankExprOptions& o) {
    std::string key = fmt::format("{}|{}|{}|{}|{}", r.str(), o.taskVar, o.target, o.bindVariable, o.comprehensionBudget);
    if (auto it = descriptions_.find(key); it != descriptions_.end()) return it->second;
    const RankShape& shape = shapeOf(r);
    data d;
    d.set("described", true);
    d.set("text", upcaseKeywords(ncptlTasks(shape, o)));
    Desc desc{fill("tasks", d), ncptlSingleTask(shape, o)};
    return descriptions_.emplace(std::move(key), std::move(desc)).first->second;
  }
  std::map<std::string, Desc> descriptions_;

  // The rank-ranges pass's shape of a set, or one found here for sets the pass did not see.
  const RankShape& shapeOf(const RankList& r) {
    const std::string key = r.str();
    if (auto it = p_.rankShapes.find(key); it != p_.rankShapes.end()) return it->second;
    auto it = shapes_.find(key);
    if (it == shapes_.end()) it = shapes_.emplace(key, rankShape(r, p_.numRanks)).first;
    return it->second;
  }

  Desc singleDesc(Rank r) {
    data d;
    d.set("single", true);
    d.set("rank", std::to_string(r));
    return {fill("tasks", d), true};
  }

  std::string allOther() {
    data d;
    d.set("allOther", true);
    return fill("tasks", d);
  }

  // `t+1`, `t-2`, `(t+3) MOD num_tasks`: the partner at `offset` from the ranks `r`.
  std::string peerOffset(std::int64_t offset, const RankList& r) {
    // The direction that stays inside 0 … P-1 for every rank (no MOD needed), else the
    // shorter one, wrapped: (t+1) MOD num_tasks, (t+num_tasks-1) MOD num_tasks.
    const PeerOffset peer = gen::peerOffset(offset, r, p_.numRanks);
    const std::int64_t signedOff = peer.offset;
    data d;
    d.set("wrap", peer.wrap);
    d.set("var", "t");
    d.set("plus", signedOff > 0);
    d.set("minus", signedOff < 0);
    d.set("offset", std::to_string(signedOff < 0 ? -signedOff : signedOff));
    return fill("peer", d);
  }

  // ----------------------------------------------------------------------- loops
  void collectLoops(const std::vector<Stmt>& body) {
    for (const auto& s : body) {
      if (s.kind != Stmt::Kind::Loop) continue;
      if (s.loop.iterations.isConst()) loopTrips_[s.loop.id] = static_cast<std::int64_t>(s.loop.iterations.value);
      collectLoops(s.loop.body);
    }
  }

  static std::string loopVar(int id) { return fmt::format("i{}", id); }

  // The execution index of a statement at the current nesting, when every enclosing loop has a
  // constant trip count.
  std::optional<ExecIndex> currentIndex() const {
    ExecIndex idx;
    std::int64_t mult = 1;
    bool formulaInside = false;
    for (auto it = loopStack_.rbegin(); it != loopStack_.rend(); ++it) {
      // A loop that counts its iterations over all its entries (renderLoop) holds the index of
      // everything outside it already.
      if (!it->start.empty()) {
        idx.push_back({it->id, mult});
        break;
      }
      // Otherwise the index is a formula of the loop variables only when every entry of every
      // enclosing loop runs the same number of iterations.
      if (!it->sameEveryEntry || formulaInside) return std::nullopt;
      idx.push_back({it->id, mult});
      // A scale-free trip count: the index of this loop's body is its variable, but no
      // constant multiplier gives the loops outside a term (executionIndexText spells them).
      if (!it->tripsText.empty()) formulaInside = true;
      mult *= it->trips;
    }
    std::reverse(idx.begin(), idx.end());
    return idx;
  }

  // ----------------------------------------------------------------------- cases
  // Replaces per-execution choices that no loop index can select by a single value (§5.6).
  // At one scale, a list of values with one stride (gen/Traversal.cpp, listExpr) is the cycle of
  // its values here: this backend selects per-execution values by cases.
  Expr approximate(const Expr& e, const std::string& what, bool peer, const std::string& where = kNoConstantTrips) {
    if (!scaleFree() && e.constantProgression()) return approximate(e.progressionCycle(), what, peer, where);
    Expr out = e;
    if (e.kind == Expr::Kind::ByExecution) {
      if (peer)
        throw std::invalid_argument(fmt::format(
            "{} changes from one execution to the next {}; coNCePTuaL has no counter to select it", what, where));
      bool allConst = std::all_of(e.children.begin(), e.children.end(), [](const Expr& c) { return c.isConst(); });
      if (allConst) {
        double sum = 0;
        for (const auto& c : e.children) sum += c.value;
        note(fmt::format("A {} that changes from one execution to the next {} is replaced by its mean.", what, where));
        return Expr::constant(sum / static_cast<double>(e.children.size()));
      }
      note(fmt::format("A {} that changes from one execution to the next {} is replaced by its first value.", what,
                       where));
      return approximate(e.children.front(), what, peer, where);
    }
    for (auto& c : out.children) c = approximate(c, what, peer, where);
    return out;
  }
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

  // With `origins`, executions whose peer offsets are equal share a case as constants do (see
  // ByExecution below), and every case says where it came from (casesOf decides with it whether
  // the grouping left merge()'s result as it was).
  void refineOne(Case c, const std::string& key, const Expr& e, const std::optional<ExecIndex>& index,
                 std::vector<Case>& out, CaseOrigins* origins = nullptr) {
    auto emit = [&](Case&& k) {
      out.push_back(std::move(k));
      if (origins) origins->of.push_back(origins->next++);
    };
    switch (e.kind) {
      case Expr::Kind::Const:
      case Expr::Kind::RankOffset:
        c.values[key] = e;
        emit(std::move(c));
        return;
      case Expr::Kind::ByRank:
        for (std::size_t i = 0; i < e.groups.size() && i < e.children.size(); ++i) {
          if (!c.ranks.intersects(e.groups[i])) continue;
          Case d = c;
          d.ranks = RankList::intersect(c.ranks, e.groups[i]);
          refineOne(std::move(d), key, e.children[i], index, out, origins);
        }
        return;
      case Expr::Kind::ByExecution: {
        if (!index) throw std::logic_error("ByExecution without an execution index");
        // Executions whose values are one constant share a case, their residues one test: a
        // cycle of 4,096 completion counts of two values makes two cases here, where one case
        // per execution left merge() to join 4,096 pairwise (a fuzzed MPI_Waitsome took minutes).
        // The cases come in the order of their first execution, as merge() leaves them. With
        // `origins`, equal peer offsets too (a wavefront's senders resolved per execution: a
        // cycle of 640 offsets of 4 values, 640 cases for merge() to join, the largest cost of
        // generating the LU class C program).
        const auto n = static_cast<std::int64_t>(e.children.size());
        std::vector<ResidueSet> residues;  // per case
        std::vector<std::size_t> child;                // the child each case takes
        std::map<double, std::size_t> caseOfConstant;
        std::map<std::int64_t, std::vector<std::size_t>> casesOfOffset;  // offset -> cases taking it
        for (std::int64_t i = 0; i < n; ++i) {
          const Expr& x = e.children[static_cast<std::size_t>(i)];
          std::size_t k = residues.size();
          if (x.kind == Expr::Kind::Const) {
            k = caseOfConstant.try_emplace(x.value, k).first->second;
          } else if (origins && x.kind == Expr::Kind::RankOffset) {
            std::vector<std::size_t>& same = casesOfOffset[x.offset];
            auto it = std::find_if(same.begin(), same.end(), [&](std::size_t j) { return e.children[child[j]] == x; });
            if (it != same.end()) {
              k = *it;
              origins->grouped = true;
            } else {
              same.push_back(k);
            }
          }
          if (k == residues.size()) {
            residues.emplace_back();
            child.push_back(static_cast<std::size_t>(i));
          }
          residues[k].insert(i);
        }
        const std::size_t block = origins ? origins->next++ : 0;
        for (std::size_t k = 0; k < residues.size(); ++k) {
          Case d = c;
          Cond cd;
          cd.kind = Cond::Kind::Exec;
          cd.index = *index;
          cd.period = n;
          cd.residues = std::move(residues[k]);
          if (!addCond(d, std::move(cd))) continue;  // these executions never happen
          const Expr& x = e.children[child[k]];
          if (origins && (x.kind == Expr::Kind::Const || x.kind == Expr::Kind::RankOffset)) {
            d.values[key] = x;
            out.push_back(std::move(d));
            origins->of.push_back(block);
            continue;
          }
          refineOne(std::move(d), key, x, index, out, origins);
        }
        return;
      }
      case Expr::Kind::FirstIteration:
        for (int k = 0; k < 2; ++k) {
          Case d = c;
          Cond cd;
          cd.kind = Cond::Kind::First;
          cd.loop = e.loop;
          cd.first = k == 0;
          if (!addCond(d, std::move(cd))) continue;
          refineOne(std::move(d), key, e.children[static_cast<std::size_t>(k)], index, out, origins);
        }
        return;
      case Expr::Kind::ByCall:
        // coNCePTuaL has no counter a value can keep for itself (its variables are loop
        // variables): a compute time that drifts over calls takes its mean (docs/ncptl-backend.md).
        c.values[key] = Expr::constant(e.value);
        emit(std::move(c));
        return;
      case Expr::Kind::Block: {
        if (!scaleFree()) throw std::logic_error("NcptlBackend: a scale-free expression in a program of one scale");
        // Two task sets: one point more below N mod p_d (Split).
        for (const bool below : {true, false}) {
          Case d = c;
          auto same = std::find_if(d.splits.begin(), d.splits.end(),
                                   [&](const Split& x) { return x.dim == e.block.dim && x.points == e.block.points; });
          if (same != d.splits.end() && same->below != below) continue;  // the case's tasks are the other half
          if (same == d.splits.end()) d.splits.push_back(Split{e.block.dim, e.block.points, below});
          Expr half = e;
          half.value = below ? 1 : 0;
          d.values[key] = std::move(half);
          emit(std::move(d));
        }
        return;
      }
      case Expr::Kind::Progression:
        // At one scale, a list of values with one stride (gen/Traversal.cpp, listExpr): its
        // executions are cases, as a list's are.
        if (!scaleFree() && e.constantProgression()) {
          refineOne(std::move(c), key, e.progressionCycle(), index, out, origins);
          return;
        }
        [[fallthrough]];
      case Expr::Kind::Formula:
      case Expr::Kind::GridPeer:
      case Expr::Kind::RelationPeer:
      case Expr::Kind::ProgressionPeer:
        // Scale-free values are leaves: their text is spelled where they are used.
        if (!scaleFree()) throw std::logic_error("NcptlBackend: a scale-free expression in a program of one scale");
        c.values[key] = e;
        emit(std::move(c));
        return;
    }
  }

  // A parameter evaluated per member (the elements of a vector collective's counts and types):
  // its choices by execution and by first iteration become conditions, as refineOne makes them,
  // and its choices by rank stay in the value (Expr::atExecution), evaluated per member.
  void refineByExecution(const Case& c, const std::string& key, const Expr& e, const std::optional<ExecIndex>& index,
                         std::vector<Case>& out) {
    std::vector<int> loops;
    e.firstIterationLoops(loops);
    const std::int64_t period = index ? e.executionPeriod() : 1;
    if (loops.size() > 8)
      throw std::invalid_argument(
          fmt::format("{} depends on the first iterations of more than 8 loops: too many coNCePTuaL conditions", key));
    for (std::int64_t k = 0; k < period; ++k) {
      for (unsigned mask = 0; mask < (1u << loops.size()); ++mask) {
        Case d = c;
        std::map<int, bool> first;
        bool possible = true;
        if (period > 1) {
          Cond cd;
          cd.kind = Cond::Kind::Exec;
          cd.index = *index;
          cd.period = period;
          cd.residues = {k};
          possible = addCond(d, std::move(cd));
        }
        for (std::size_t i = 0; i < loops.size() && possible; ++i) {
          Cond cd;
          cd.kind = Cond::Kind::First;
          cd.loop = loops[i];
          cd.first = (mask >> i) & 1u;
          first[loops[i]] = cd.first;
          possible = addCond(d, std::move(cd));
        }
        if (!possible) continue;  // this execution never happens
        d.values[key] = e.atExecution(k, first);
        out.push_back(std::move(d));
      }
    }
  }
  static constexpr std::int64_t kMaxCasePeriod = 4096;

  // The call as the ranks of a case make it: parameters and vector elements of the case's values.
  static CallStmt specialised(const CallStmt& c, const Case& k) {
    CallStmt out = c;
    for (auto& [p, v] : out.vectors)
      for (std::size_t i = 0; i < v.size(); ++i)
        if (auto it = k.values.find(memberKey(p, i)); it != k.values.end()) v[i] = it->second;
    for (auto [p, key] : {std::pair{Param::Count, "count"}, std::pair{Param::Datatype, "type"}})
      if (auto it = k.values.find(key); it != k.values.end() && out.params.count(p)) out.params[p] = it->second;
    return out;
  }
  static std::string memberKey(Param p, std::size_t i) { return fmt::format("{}#{}", paramName(p), i); }

  // ----------------------------------------------------------------------- conditions
  // The trip count of a loop: the one being rendered, or its constant count.
  std::optional<std::int64_t> tripsOf(int loop) const {
    for (const auto& l : loopStack_)
      if (l.id == loop) return l.start.empty() && l.tripsText.empty() ? std::optional<std::int64_t>(l.trips) : std::nullopt;
    auto it = loopTrips_.find(loop);
    if (it == loopTrips_.end()) return std::nullopt;
    return it->second;
  }

  // The index terms that matter modulo the period.
  static ExecIndex reducedTerms(const Cond& c) {
    ExecIndex terms;
    for (auto [loop, mult] : c.index) {
      std::int64_t m = ((mult % c.period) + c.period) % c.period;
      if (m != 0) terms.push_back({loop, m});
    }
    return terms;
  }

  // A single loop variable whose trip count does not exceed the period: no MOD needed, and
  // residues at or above the trip count never occur.
  std::optional<std::int64_t> plainTrips(const Cond& c) const {
    ExecIndex terms = reducedTerms(c);
    if (terms.size() != 1 || terms[0].second != 1) return std::nullopt;
    auto trips = tripsOf(terms[0].first);
    if (!trips || *trips > c.period) return std::nullopt;
    return trips;
  }

  enum class Truth { Never, Always, Sometimes };

  // Drops impossible residues and decides whether the condition always or never holds.
  Truth normalize(Cond& c) const {
    if (c.kind != Cond::Kind::Exec) return Truth::Sometimes;
    if (reducedTerms(c).empty()) return c.residues.count(0) ? Truth::Always : Truth::Never;
    std::int64_t reachable = c.period;
    if (auto trips = plainTrips(c)) {
      reachable = *trips;
      c.residues.eraseFrom(reachable);
    }
    if (c.residues.empty()) return Truth::Never;
    if (static_cast<std::int64_t>(c.residues.size()) >= reachable) return Truth::Always;
    return Truth::Sometimes;
  }

  // Adds a condition to a case, combining it with one on the same execution index (period
  // lcm, residues that satisfy both) or the same loop's first iteration. False if the case
  // can no longer apply.
  bool addCond(Case& c, Cond cd) {
    Truth t = normalize(cd);
    if (t == Truth::Never) return false;
    if (t == Truth::Always) return true;
    for (auto it = c.conds.begin(); it != c.conds.end(); ++it) {
      if (cd.kind == Cond::Kind::First && it->kind == Cond::Kind::First && it->loop == cd.loop)
        return it->first == cd.first;
      if (cd.kind != Cond::Kind::Exec || it->kind != Cond::Kind::Exec || it->index != cd.index) continue;
      const std::int64_t l = std::lcm(it->period, cd.period);
      if (l > 1'000'000) continue;  // keep both tests rather than enumerate a huge period
      Cond both = cd;
      both.period = l;
      both.residues.clear();
      for (std::int64_t r = 0; r < l; ++r)
        if (it->residues.count(r % it->period) && cd.residues.count(r % cd.period)) both.residues.insert(r);
      Truth tb = normalize(both);
      if (tb == Truth::Never) return false;
      if (tb == Truth::Always)
        c.conds.erase(it);
      else
        *it = std::move(both);
      return true;
    }
    c.conds.push_back(std::move(cd));
    return true;
  }

  // Flattens named parameter expressions into cases over `ranks`.
  // Parameters of `perMember` keep their choices by rank (refineByExecution).
  std::vector<Case> cases(const RankList& ranks, const std::vector<std::pair<std::string, const Expr*>>& params,
                          const std::optional<ExecIndex>& index,
                          const std::vector<std::pair<std::string, const Expr*>>& perMember = {}, bool splitsSpelled = false) {
    std::vector<Case> cs = casesOf(ranks, params, index, perMember);
    // Only point-to-point statements spell a case's splits in their task descriptions.
    if (!splitsSpelled)
      for (const Case& k : cs)
        if (!k.splits.empty())
          throw std::invalid_argument("a value that follows a block distribution (of the task's own grid coordinate) "
                                      "outside a point-to-point count in a scale-free coNCePTuaL program is not "
                                      "supported: write C (-o bench.c), or give the target rank count (--ranks P)");
    return cs;
  }
  std::vector<Case> casesOf(const RankList& ranks, const std::vector<std::pair<std::string, const Expr*>>& params,
                            const std::optional<ExecIndex>& index,
                            const std::vector<std::pair<std::string, const Expr*>>& perMember) {
    std::vector<Case> cs{Case{ranks, {}, {}, {}}};
    for (const auto& [key, e] : perMember) {
      if (e->perExecutionInvariant()) continue;  // evaluated per member as it is
      // Without an execution index (or with a cycle too long to spell as conditions) the cycle
      // is approximated, said in the header, as any value's.
      const bool cycle = index && e->executionPeriod() <= kMaxCasePeriod;
      const Expr x = cycle ? *e : approximate(*e, fmt::format("{} element", key.substr(0, key.find('#'))), false);
      std::vector<Case> next;
      for (const auto& c : cs) refineByExecution(c, key, x, cycle ? index : std::nullopt, next);
      cs = std::move(next);
    }
    for (const auto& [key, e] : params) {
      if (!e) continue;
      // A mean tag would match no message (the program would fail its check): tags, while the
      // program uses them, cannot be approximated any more than peers.
      const bool exact = key == "dest" || key == "source" || key == "root" || key == "comm" || (key == "tag" && useTags_);
      const std::int64_t period = e->executionPeriod();
      if (index && period <= kMaxCasePeriod) {
        std::vector<Case> next = groupedRefinement(cs, key, *e, index);
        if (next.empty())  // the grouping could change what merge() makes: one case per execution
          for (const auto& c : cs) refineOne(c, key, *e, index, next);
        merge(next);
        if (next.size() <= kMaxCases) {
          cs = std::move(next);
          continue;
        }
      }
      const Expr x = approximate(*e, key, exact,
                                 index ? fmt::format("in a cycle of {} values (too many to spell as conditions)", period)
                                       : std::string(kNoConstantTrips));
      std::vector<Case> next;
      for (auto& c : cs) refineOne(std::move(c), key, x, index, next);
      cs = std::move(next);
      merge(cs);
    }
    return cs;
  }

  // The refinement of `cs` by `e` with equal peer offsets of one ByExecution sharing a case
  // (refineOne with origins), or nothing where that could change merge()'s result (or where
  // there are no cases at all).
  //
  // Why the result is merge()'s: join() needs equal values and changes nothing when it fails,
  // so merge() joins cases of equal values only, and the cases of one ByExecution expansion
  // that take one leaf value have the same ranks, splits and conditions but for their residues
  // of one test: any two of them join (residues unite) until the test always holds, which
  // leaves none of them apart. merge() ends when no pair joins and keeps the earlier case of a
  // join, so such a set of cases, when no other case has their values, ends as one case at the
  // first of them with every residue: the grouped case, in the same place. Where a case of
  // another origin has the same values, the order of the joins matters (a rank union may come
  // before a residue union), so the cases stay one per execution, as before.
  std::vector<Case> groupedRefinement(const std::vector<Case>& cs, const std::string& key, const Expr& e,
                                      const std::optional<ExecIndex>& index) {
    std::vector<Case> out;
    CaseOrigins origins;
    for (const auto& c : cs) refineOne(c, key, e, index, out, &origins);
    // Nothing grouped: the cases are those of one case per execution already, and the check
    // below (quadratic in the cases) is not needed.
    if (!origins.grouped) return out;
    for (std::size_t i = 0; i < out.size(); ++i)
      for (std::size_t j = i + 1; j < out.size(); ++j)
        if (origins.of[i] != origins.of[j] && out[i].values == out[j].values) return {};
    return out;
  }

  // Merges cases back where the split made no difference: the first pair that merges (in the
  // order i < j, by i then j) is joined, until no pair does. After a join only pairs with the
  // case that grew can have become mergeable, so the scan resumes there rather than from the
  // first pair (a restart per join made thousands of cases cubic): first the cases before it,
  // then the rest of its row.
  void merge(std::vector<Case>& cs) {
    // A case joined into an earlier one is marked and erased at the end: erasing each at once
    // moved the rest of the vector every time (12% of generating the LU class C benchmark).
    std::vector<char> gone(cs.size(), 0);
    auto next = [&](std::size_t k) {
      while (k < cs.size() && gone[k]) ++k;
      return k;
    };
    // Only cases of equal values join, and a join leaves the values as they were: they are
    // compared once here, by class, rather than at every pair the scan tries (hundreds of
    // cases one per execution compared their maps of values pairwise).
    std::vector<std::size_t> valueClass(cs.size());
    std::vector<std::size_t> firstOfClass;
    for (std::size_t k = 0; k < cs.size(); ++k) {
      std::size_t c = 0;
      while (c < firstOfClass.size() && !(cs[firstOfClass[c]].values == cs[k].values)) ++c;
      if (c == firstOfClass.size()) firstOfClass.push_back(k);
      valueClass[k] = c;
    }
    auto tryJoin = [&](std::size_t a, std::size_t b) { return valueClass[a] == valueClass[b] && join(cs, a, b); };
    std::size_t i = next(0), j = next(i + 1);
    while (i < cs.size()) {
      if (j >= cs.size()) {
        i = next(i + 1);
        j = next(i + 1);
        continue;
      }
      if (!tryJoin(i, j)) {
        j = next(j + 1);
        continue;
      }
      gone[j] = 1;
      for (;;) {
        std::size_t p = next(0);
        while (p < i && !tryJoin(p, i)) p = next(p + 1);
        if (p == i) break;
        gone[i] = 1;
        i = p;
      }
      j = next(i + 1);
    }
    std::size_t kept = 0;
    for (std::size_t k = 0; k < cs.size(); ++k)
      if (!gone[k]) {
        if (kept != k) cs[kept] = std::move(cs[k]);
        ++kept;
      }
    cs.erase(cs.begin() + static_cast<std::ptrdiff_t>(kept), cs.end());
  }

  // Joins case j into case i (i < j), which merge() then drops, when their conditions or ranks
  // make one case; false (and nothing changed) otherwise. Both give the same values (merge()
  // joins no others).
  bool join(std::vector<Case>& cs, std::size_t i, std::size_t j) {
    Case& a = cs[i];
    Case& b = cs[j];
    // The two halves of one split with the same values: no split.
    if (a.ranks == b.ranks && a.conds == b.conds && a.splits.size() == b.splits.size() && !(a.splits == b.splits)) {
      std::size_t diff = a.splits.size(), ndiff = 0;
      for (std::size_t k = 0; k < a.splits.size(); ++k)
        if (!(a.splits[k] == b.splits[k])) diff = k, ++ndiff;
      if (ndiff != 1 || a.splits[diff].dim != b.splits[diff].dim || a.splits[diff].points != b.splits[diff].points)
        return false;
      a.splits.erase(a.splits.begin() + static_cast<std::ptrdiff_t>(diff));
      return true;
    }
    if (!(a.splits == b.splits)) return false;
    // Same conditions: one case for both rank sets.
    if (a.conds == b.conds) {
      a.ranks = RankList::unite(a.ranks, b.ranks);
      return true;
    }
    if (!(a.ranks == b.ranks) || a.conds.size() != b.conds.size()) return false;
    // Conditions that differ in one test only: residues unite, first/other iteration cancel.
    std::size_t diff = a.conds.size(), ndiff = 0;
    for (std::size_t k = 0; k < a.conds.size(); ++k)
      if (!(a.conds[k] == b.conds[k])) {
        diff = k;
        ++ndiff;
      }
    if (ndiff != 1) return false;
    Cond& ca = a.conds[diff];
    const Cond& cb = b.conds[diff];
    if (ca.kind == Cond::Kind::Exec) {
      if (!ca.sameTest(cb)) return false;
      ca.residues.insert(cb.residues);
      if (normalize(ca) == Truth::Always) a.conds.erase(a.conds.begin() + static_cast<std::ptrdiff_t>(diff));
    } else {
      if (ca.loop != cb.loop || ca.first == cb.first) return false;
      a.conds.erase(a.conds.begin() + static_cast<std::ptrdiff_t>(diff));
    }
    return true;
  }

  std::string rangeText(const std::vector<std::int64_t>& v) {
    data d;
    const bool arithmetic = v.size() >= 3 && std::adjacent_find(v.begin() + 1, v.end(), [&](std::int64_t a, std::int64_t b) {
                                               return b - a != v[1] - v[0];
                                             }) == v.end();
    if (arithmetic) {
      d.set("first", std::to_string(v[0]));
      d.set("second", std::to_string(v[1]));
      d.set("last", std::to_string(v.back()));
      return fill("progression_range", d);
    }
    list items;
    for (std::size_t i = 0; i < v.size(); ++i) {
      data x;
      x.set("value", std::to_string(v[i]));
      x.set("last", i + 1 == v.size());
      items.push_back(x);
    }
    d.set("items", items);
    return fill("list_range", d);
  }

  std::string condText(const Cond& c) {
    if (c.kind == Cond::Kind::First) {
      usedLoops_.insert(c.loop);
      data d;
      d.set("var", loopVar(c.loop));
      d.set("first", c.first);
      d.set("start", loopStart(c.loop));
      return fill("first_cond", d);
    }
    data d;
    list terms;
    const ExecIndex index = reducedTerms(c);
    for (std::size_t i = 0; i < index.size(); ++i) {
      usedLoops_.insert(index[i].first);
      data t;
      t.set("var", loopVar(index[i].first));
      t.set("scaled", index[i].second != 1);
      t.set("mult", std::to_string(index[i].second));
      t.set("last", i + 1 == index.size());
      terms.push_back(t);
    }
    // A single loop variable that never reaches the period needs no MOD.
    const bool plain = plainTrips(c).has_value();
    d.set("terms", terms);
    d.set("paren", !plain && index.size() > 1);
    d.set("mod", !plain);
    d.set("period", std::to_string(c.period));
    d.set("one", c.residues.size() == 1);
    d.set("value", std::to_string(*c.residues.begin()));
    d.set("set", rangeText(std::vector<std::int64_t>(c.residues.begin(), c.residues.end())));
    return fill("exec_cond", d);
  }

  std::string condsText(const std::vector<Cond>& cs) {
    list conds;
    for (std::size_t i = 0; i < cs.size(); ++i) {
      data x;
      x.set("text", condText(cs[i]));
      x.set("last", i + 1 == cs.size());
      conds.push_back(x);
    }
    data d;
    d.set("conds", conds);
    return fill("conjunction", d);
  }

  bool complementary(const Cond& a, const Cond& b) const {
    if (a.kind == Cond::Kind::First) return b.kind == Cond::Kind::First && a.loop == b.loop && a.first != b.first;
    if (!a.sameTest(b)) return false;
    for (auto r : a.residues)
      if (b.residues.count(r)) return false;
    Cond u = a;
    u.residues.insert(b.residues);
    return normalize(u) == Truth::Always;
  }

  std::string ifStmt(const std::string& cond, const std::vector<std::string>& then,
                     const std::vector<std::string>* otherwise) {
    data d;
    d.set("cond", cond);
    d.set("body", body({Piece{{}, then}}));
    d.set("hasOtherwise", otherwise != nullptr);
    d.set("otherwise", otherwise ? body({Piece{{}, *otherwise}}) : std::string());
    return fill("if", d);
  }

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
  void splitApply(const RankList& r, const std::function<std::int64_t(std::int64_t)>& f) {
    std::vector<std::pair<RankList, std::int64_t>> next;
    for (auto& [cls, n] : outstanding_) {
      if (!cls.intersects(r)) {
        next.push_back({cls, n});
        continue;
      }
      next.push_back({RankList::intersect(cls, r), f(n)});
      RankList rest = RankList::subtract(cls, r);
      if (!rest.empty()) next.push_back({std::move(rest), n});
    }
    // Classes with equal counts are one class.
    std::vector<std::pair<RankList, std::int64_t>> merged;
    for (auto& [cls, n] : next) {
      const std::int64_t want = n;  // clang 14 cannot capture a structured binding in a lambda
      auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.second == want; });
      if (it == merged.end())
        merged.push_back({cls, n});
      else
        it->first = RankList::unite(it->first, cls);
    }
    outstanding_ = std::move(merged);
  }
  void addRequests(const RankList& r, std::int64_t k) {
    splitApply(r, [k](std::int64_t n) { return n + k; });
    for (auto& posted : postedInLoop_) posted = RankList::unite(posted, r);
  }
  void completeRequests(const RankList& r, std::int64_t k) {  // k < 0: all
    splitApply(r, [k](std::int64_t n) { return k < 0 ? 0 : std::max<std::int64_t>(0, n - k); });
  }
  RankList busyRanks(const RankList& r) const {
    RankList out;
    for (const auto& [cls, n] : outstanding_)
      if (n > 0 && cls.intersects(r)) out = RankList::unite(out, RankList::intersect(cls, r));
    return out;
  }

  std::string awaitStmt(const RankList& r) {
    Desc t = acting(r, false);
    data d;
    d.set("tasks", t.text);
    d.set("s", t.single ? "S" : "");
    return fill("await", d);
  }

  // ----------------------------------------------------------------------- statements
  std::string_view backendName() const override { return "coNCePTuaL"; }

  // Where the walk puts its pieces: the program's, or the body of the loop being rendered.
  std::vector<Piece>* out_ = nullptr;

  // A loop is rendered once per trip count its ranks take (cases), its body walked each time.
  void loop(const Stmt& s, const RankList& ranks) override {
    atInputLine(program_.source, s.loop.head ? s.loop.head->line : 0, [&] { renderLoop(s, ranks, *out_); });
  }

  void renderLoop(const Stmt& s, const RankList& ranks, std::vector<Piece>& out) {
    const LoopStmt& loop = s.loop;
    std::optional<ExecIndex> index = currentIndex();
    std::vector<Case> cs = cases(ranks, {{"iterations", &loop.iterations}}, index);
    std::vector<std::string> stmts = guarded(cs, [&](const Case& c) -> std::vector<std::string> {
      const Expr& iterations = c.values.at("iterations");
      if (iterations.kind == Expr::Kind::Progression)
        throw std::invalid_argument(fmt::format("loop {}: a trip count that progresses from one entry to the next in a "
                                                "scale-free coNCePTuaL program is not supported: write C (-o bench.c)",
                                                loop.id));
      // A scale-free trip count that is a formula: its text (the loop's own count is then unknown here).
      const std::string tripsText = iterations.kind == Expr::Kind::Formula ? formulaText(iterations.formula) : std::string();
      const auto trips = tripsText.empty() ? static_cast<std::int64_t>(std::llround(iterations.value)) : 0;
      if (tripsText.empty() && trips <= 0) return {};
      // Within a case the ranks share one trip count per entry unless it changes per entry.
      const bool sameEveryEntry = loop.iterations.perExecutionInvariant();
      const std::string countedFrom = sameEveryEntry ? std::string() : countedStart(loop, c, index, trips);
      // A start longer than a term is named once (LET fromN BE … WHILE FOR EACH iN …).
      const bool named = countedFrom.find(' ') != std::string::npos;
      const std::string start = named ? fmt::format("from{}", loop.id) : countedFrom;
      loopStack_.push_back({loop.id, trips, sameEveryEntry, start, tripsText});
      postedInLoop_.push_back(RankList());
      std::vector<Piece>* const outer = out_;
      auto walkIteration = [&] {
        std::vector<Piece> pieces;
        out_ = &pieces;
        walk(loop.body, c.ranks);
        out_ = outer;
        return pieces;
      };
      std::vector<Piece> inner = walkIteration();
      // Requests the body leaves pending stay pending into the next iteration, as in the trace:
      // an AWAIT at the end of the body would wait for messages whose senders post them only
      // later (a halo exchange's receive loop before its send loop), a deadlock. The loop is
      // unrolled, each iteration walked with the requests the ones before it left; FOR EACH
      // loops are instantiated in full by the run time (§4.8), so when every iteration reads
      // the same it stays one FOR EACH loop.
      std::vector<std::vector<Piece>> unrolled;
      if (!busyRanks(RankList::intersect(postedInLoop_.back(), c.ranks)).empty()) {
        const bool plainStart = start.empty() || start.find_first_not_of("0123456789") == std::string::npos;
        if (!tripsText.empty() || !plainStart || trips > kMaxUnrolledTrips) {
          const Event* head = loop.head;
          const std::string site = siteOf(head);
          throw std::invalid_argument(fmt::format(
              "loop {}{}{}: its body leaves requests pending from one iteration to the next (posted in one "
              "iteration, completed in a later one or after the loop), which a coNCePTuaL loop keeps only when "
              "tracegen unrolls it, and {}: write C (-o bench.c)",
              loop.id,
              head ? fmt::format(" headed by {}, trace event {}", opName(head->op), head->id) : std::string(),
              site.empty() ? std::string() : " at " + site,
              !tripsText.empty() ? fmt::format("its trip count is the formula {}", tripsText)
              : !plainStart      ? std::string("its iterations are counted over all its entries")
                                 : fmt::format("its {} iterations are more than the {} it unrolls", trips,
                                               kMaxUnrolledTrips)));
        }
        unrolled.push_back(std::move(inner));
        for (std::int64_t k = 1; k < trips; ++k) unrolled.push_back(walkIteration());
        note("Requests that a loop body leaves pending from one iteration to the next stay pending, as in the "
             "trace: such loops are unrolled (or kept as FOR EACH loops, which the run time instantiates in full, "
             "§4.8), never completed at the end of every iteration, which can deadlock.");
      }
      postedInLoop_.pop_back();
      loopStack_.pop_back();
      if (!unrolled.empty()) {
        std::vector<std::string> texts;
        for (const auto& it : unrolled) texts.push_back(body(it));
        const bool same = std::all_of(texts.begin(), texts.end(), [&](const std::string& t) { return t == texts[0]; });
        if (same && usedLoops_.count(loop.id)) {
          inner = std::move(unrolled[0]);  // one FOR EACH loop, below
        } else {
          std::vector<std::string> lines;
          const std::int64_t first = start.empty() ? 0 : std::stoll(start);
          for (std::size_t k = 0; k < unrolled.size(); ++k) {
            if (texts[k].find_first_not_of(" \n") == std::string::npos) continue;
            if (usedLoops_.count(loop.id)) {
              // The iteration's own value of the loop variable.
              data d;
              d.set("body", texts[k]);
              d.set("var", loopVar(loop.id));
              d.set("range", rangeText({first + static_cast<std::int64_t>(k)}));
              lines.push_back(fill("foreach", d));
              continue;
            }
            // Its statements in line, each piece's comments above its first statement.
            for (const auto& pc : unrolled[k])
              for (std::size_t i = 0; i < pc.stmts.size(); ++i) {
                std::string text;
                if (i == 0)
                  for (const auto& cm : pc.comments) text += "# " + cm + "\n";
                lines.push_back(text + pc.stmts[i]);
              }
          }
          return lines;
        }
      }
      if (inner.empty()) return {};
      data d;
      d.set("body", body(inner));
      if (usedLoops_.count(loop.id)) {
        // A counted start reads the enclosing loops' variables (its entry index).
        if (!countedFrom.empty())
          for (const auto& term : *index) usedLoops_.insert(term.first);
        d.set("var", loopVar(loop.id));
        if (!tripsText.empty()) {
          // {0, 1, ..., n-1} is empty for n = 0 (one leading value would count down, §4.6).
          data r;
          r.set("first", "0");
          r.set("second", "1");
          r.set("last", minusOne(tripsText));
          d.set("range", fill("progression_range", r));
        } else if (!start.empty() && start.find_first_not_of("0123456789") == std::string::npos) {
          const std::int64_t first = std::stoll(start);
          d.set("range", trips > 1 ? progression(first, first + trips - 1) : rangeText({first}));
        } else if (!start.empty()) {
          if (named) {
            d.set("let", true);
            d.set("name", start);
            d.set("value", countedFrom);
          }
          data r;
          r.set("start", start);
          r.set("more", trips > 1);
          r.set("last", std::to_string(trips - 1));
          d.set("range", fill("counted_range", r));
        } else {
          d.set("range", trips > 1 ? progression(0, trips - 1) : rangeText({0}));
        }
        return {fill("foreach", d)};
      }
      d.set("count", tripsText.empty() ? std::to_string(trips) : tripsText);
      return {fill("repeat", d)};
    });
    if (stmts.empty()) return;
    Piece pc;
    const Event* head = loop.head;
    data c;
    c.set("id", std::to_string(loop.id));
    c.set("op", head ? std::string(opName(head->op)) : std::string("a call"));
    c.set("hasEvent", head != nullptr);
    c.set("event", head ? std::to_string(head->id) : std::string());
    const std::string site = siteOf(head);
    c.set("hasSite", !site.empty());
    c.set("site", site);
    const Expr& its = cs[0].values.at("iterations");
    const bool fixed = cs.size() == 1 && (its.isConst() || its.kind == Expr::Kind::Formula);
    c.set("varies", !fixed);
    c.set("trips", !fixed ? std::string() : its.isConst() ? std::to_string(std::llround(its.value)) : formulaText(its.formula));
    pc.comments.push_back(fill("loop_comment", c));
    pc.stmts = std::move(stmts);
    out.push_back(std::move(pc));
  }

  // Whether an expression has a value before the scale is known (no formula of the scale in it).
  static bool atOneScale(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Formula:
      case Expr::Kind::GridPeer:
      case Expr::Kind::RelationPeer:
      case Expr::Kind::ProgressionPeer:
      case Expr::Kind::Block: return false;
      case Expr::Kind::Progression: return e.constantProgression();
      default: return std::all_of(e.children.begin(), e.children.end(), atOneScale);
    }
  }

  // A loop whose trip count cycles from one entry to the next (counts T[0..k-1], entry index E
  // known) counts its iterations over all entries: entry E starts at (E / k) * S + P[E MOD k],
  // with S the sum of a cycle and P its prefix sums. Its variable is then the execution index
  // of its body, so values that change per execution inside it are selected as in any loop.
  // Within a case only the residues whose count is the case's occur; P over them is written
  // as a constant, an affine formula (first entry 4 iterations, then 5: 5*E - 1) or, for up to
  // kMaxStartChoices, a conditional expression. Empty when the loop cannot be counted so (its
  // body's index stays unknown).
  std::string countedStart(const LoopStmt& loop, const Case& c, const std::optional<ExecIndex>& index,
                           std::int64_t trips) {
    if (!index) return {};
    std::vector<int> firstLoops;
    loop.iterations.firstIterationLoops(firstLoops);
    const std::int64_t k = loop.iterations.executionPeriod();
    if (!firstLoops.empty() || k <= 1 || k > kMaxCasePeriod || !atOneScale(loop.iterations)) return {};
    const Rank r0 = *c.ranks.first();
    std::vector<std::int64_t> prefix{0};
    for (std::int64_t e = 0; e < k; ++e)
      prefix.push_back(prefix.back() + std::llround(loop.iterations.eval(r0, p_.numRanks, e, {})));
    std::vector<std::pair<std::int64_t, std::int64_t>> starts;  // residue, P[residue]
    for (std::int64_t e = 0; e < k; ++e)
      if (prefix[static_cast<std::size_t>(e) + 1] - prefix[static_cast<std::size_t>(e)] == trips)
        starts.push_back({e, prefix[static_cast<std::size_t>(e)]});
    if (starts.empty()) return {};
    // E, and whether it stays below k (a single loop variable of at most k trips).
    std::string entry;  // the enclosing loops' variables become used only if this start is (renderLoop)
    for (const auto& [var, mult] : *index) {
      if (!entry.empty()) entry += " + ";
      entry += mult == 1 ? loopVar(var) : fmt::format("{}*{}", mult, loopVar(var));
    }
    if (entry.empty()) entry = "0";
    const bool below = index->empty() || (index->size() == 1 && (*index)[0].second == 1 &&
                                          tripsOf((*index)[0].first).value_or(k + 1) <= k);
    const std::string e = index->size() > 1 ? "(" + entry + ")" : entry;
    const std::string m = below ? e : fmt::format("({} MOD {})", e, k);
    // P over the residues that occur.
    std::string within;
    const std::int64_t r1 = starts.front().first, p1 = starts.front().second;  // clang 14: no captured bindings
    const std::int64_t slope =
        starts.size() > 1 ? (starts[1].second - p1) / std::max<std::int64_t>(1, starts[1].first - r1) : 0;
    const bool affine = std::all_of(starts.begin(), starts.end(), [&](const auto& rp) {
      return rp.second == p1 + slope * (rp.first - r1);
    });
    if (affine) {
      const std::int64_t offset = p1 - slope * r1;  // P[r] = slope*r + offset
      if (slope != 0) within = slope == 1 ? m : fmt::format("{}*{}", slope, m);
      if (offset != 0)
        within = within.empty() ? std::to_string(offset)
                                : fmt::format("{} {} {}", within, offset < 0 ? "-" : "+", offset < 0 ? -offset : offset);
      if (within.find(' ') != std::string::npos && !below) within = "(" + within + ")";
    } else if (starts.size() <= kMaxStartChoices) {
      for (std::size_t n = 0; n < starts.size(); ++n)
        within += n + 1 == starts.size()
                      ? std::to_string(starts[n].second)
                      : fmt::format("{} IF {} = {} OTHERWISE ", starts[n].second, m, starts[n].first);
      within = "(" + within + ")";
    } else {
      return {};
    }
    if (below) return within.empty() ? "0" : within;
    const std::string cycles =
        prefix.back() == 1 ? fmt::format("{}/{}", e, k) : fmt::format("{}/{}*{}", e, k, prefix.back());
    return within.empty() ? cycles : cycles + " + " + within;
  }

  // The first value of a loop's variable: 0, or where a counted loop's entry starts.
  std::string loopStart(int loop) const {
    for (const auto& l : loopStack_)
      if (l.id == loop && !l.start.empty()) return l.start;
    return "0";
  }

  // n - 1 for a formula n, folding a trailing constant (num_tasks - 1 - 1 is num_tasks - 2).
  static std::string minusOne(const std::string& n) {
    const std::size_t sp = n.rfind(' ');
    if (sp != std::string::npos && sp >= 2 && sp + 1 < n.size() &&
        n.find_first_not_of("0123456789", sp + 1) == std::string::npos && (n[sp - 1] == '-' || n[sp - 1] == '+')) {
      const std::int64_t k = std::stoll(n.substr(sp + 1)) * (n[sp - 1] == '-' ? -1 : 1) - 1;
      const std::string head = n.substr(0, sp - 2);
      if (k == 0) return head;
      return fmt::format("{} {} {}", head, k < 0 ? "-" : "+", k < 0 ? -k : k);
    }
    return n + " - 1";
  }

  std::string progression(std::int64_t first, std::int64_t last) {
    data d;
    d.set("first", std::to_string(first));
    d.set("second", false);
    d.set("last", std::to_string(last));
    return fill("progression_range", d);
  }

  std::int64_t typeSize(const Expr& e) const {
    const auto id = static_cast<std::int64_t>(e.value);
    for (const auto& d : p_.datatypes)
      if (d.id == id) return d.size;
    throw std::invalid_argument(fmt::format("unknown datatype id {}", id));
  }

  std::string scaledBytes(std::int64_t bytes) {
    if (bytes == 0) return "0";
    data d;
    d.set("bytes", std::to_string(bytes));
    return fill("scaled_bytes", d);
  }

  // `A n BYTE MESSAGE`; a message of 2 GiB or more becomes k equal messages of less than
  // 1 GiB each (c_mpi passes sizes as int, §4.18).
  std::string message(std::int64_t bytes, std::optional<std::int64_t> tag) {
    constexpr std::int64_t kLimit = std::int64_t{1} << 31, kPart = std::int64_t{1} << 30;
    // Remembered per size and tag (two templates a message; a program has few sizes). The note
    // below is said at the first such message, which is never a remembered one.
    const std::pair<std::int64_t, std::optional<std::int64_t>> key{bytes, tag};
    if (auto it = messages_.find(key); it != messages_.end()) return it->second;
    std::int64_t parts = 1;
    if (bytes >= kLimit) {
      parts = (bytes + kPart - 1) / kPart;
      bytes = (bytes + parts - 1) / parts;
      note("Messages of 2 GiB or more are split into several messages below 1 GiB (§4.18).");
    }
    data d;
    d.set("one", parts == 1);
    d.set("count", std::to_string(parts));
    d.set("bytes", scaledBytes(bytes));
    d.set("tagged", tag.has_value() && *tag != 0);
    d.set("tag", tag ? std::to_string(*tag) : std::string());
    return messages_.emplace(key, fill("message", d)).first->second;
  }
  std::map<std::pair<std::int64_t, std::optional<std::int64_t>>, std::string> messages_;

  // The computation before a call, one COMPUTES statement per class of equal durations.
  std::vector<std::string> computeStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx) {
    std::vector<Case> cs = cases(ranks, {{"compute", &c.computeUs}}, idx);
    return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
      const Expr& value = k.values.at("compute");
      if (value.kind == Expr::Kind::Formula || value.kind == Expr::Kind::Progression) {
        const std::string duration = value.kind == Expr::Kind::Formula
                                         ? durationText(value.formula)
                                         : fmt::format("{}*compute_scale/100", leftFactor(intText(value)));
        if (duration.starts_with("0*")) return {};  // a constant that rounds to no time
        Desc t = acting(k.ranks, false);
        data d;
        d.set("tasks", t.text);
        d.set("s", t.single ? "S" : "");
        d.set("duration", duration);
        return {fill("compute", d)};
      }
      const double us = value.value;
      requireEmittableTime(us, p_.source, c.event ? c.event->line : 0,
                           fmt::format("{} (event {}): compute time", opName(c.op), c.event ? c.event->id : 0));
      const auto rounded = static_cast<std::int64_t>(std::llround(us));
      if (rounded <= 0) return {};
      Desc t = acting(k.ranks, false);
      data du;
      du.set("us", std::to_string(rounded));
      data d;
      d.set("tasks", t.text);
      d.set("s", t.single ? "S" : "");
      d.set("duration", fill("scaled_us", du));
      return {fill("compute", d)};
    });
  }

  // The call statement being rendered: its execution index, its statements (the computation's,
  // then the call's) and the detail of its comment.
  struct Current {
    std::optional<ExecIndex> idx;
    Piece piece;
    std::vector<std::string> call;
    std::string detail;
  };
  Current cur_;

  void beginCall(const CallStmt& c, const RankList&) override {
    cur_ = Current{};
    cur_.idx = c.executionIndex ? c.executionIndex : currentIndex();
  }

  void compute(const CallStmt& c, const RankList& ranks) override {
    if (opInfo(c.op).kind != OpKind::Init) cur_.piece.stmts = computeStmts(c, ranks, cur_.idx);
  }

  void endCall(const CallStmt& c, const RankList&) override {
    Piece pc = std::move(cur_.piece);
    pc.stmts.insert(pc.stmts.end(), cur_.call.begin(), cur_.call.end());
    if (pc.stmts.empty()) return;
    pc.comments.push_back(callComment(c, cur_.detail));
    out_->push_back(std::move(pc));
  }

  void lifecycle(const CallStmt& c, const RankList& ranks) override {
    if (opInfo(c.op).kind != OpKind::Init) return;  // MPI_Finalize: only the computation before it
    cur_.call = initStmts(ranks);
    cur_.detail = "the timed region starts here";
  }

  void pointToPoint(const CallStmt& c, const RankList& ranks) override {
    const OpKind kind = opInfo(c.op).kind;
    switch (kind) {
      case OpKind::Send:
      case OpKind::Isend:
        cur_.call = sendStmts(c, ranks, cur_.idx, kind == OpKind::Isend);
        break;
      case OpKind::Recv:
      case OpKind::Irecv:
        cur_.call = recvStmts(c, ranks, cur_.idx, kind == OpKind::Irecv, Param::Count, Param::Datatype, Param::Tag);
        break;
      case OpKind::Sendrecv:
        cur_.call = sendrecvStmts(c, ranks, cur_.idx);
        break;
      case OpKind::SendInit:
      case OpKind::RecvInit:
        // Nothing moves yet: each start replays the message (startStmts).
        inits_[c.event] = c;
        break;
      default:
        break;  // MPI_Probe, MPI_Iprobe: no communication, only the computation before it (§5.2)
    }
  }

  void completion(const CallStmt& c, const RankList& ranks) override {
    cur_.call = waitStmts(c, ranks, cur_.idx, cur_.detail);
  }

  void collective(const CallStmt& c, const RankList& ranks) override {
    cur_.call = collectiveStmts(c, ranks, cur_.idx, cur_.detail);
  }

  void nonblockingCollective(const CallStmt& c, const RankList& ranks) override {
    // coNCePTuaL has no nonblocking collectives: the blocking form at the initiating call,
    // which keeps the communicator's order of collectives (MPI orders them by their start).
    // Its request counts as outstanding, completed at once, so that the waits that complete
    // it do not take another request's place (a later AWAIT, never an earlier one).
    CallStmt blocking = c;
    blocking.op = blockingForm(c.op);
    cur_.call = collectiveStmts(blocking, ranks, cur_.idx, cur_.detail);
    addRequests(ranks, 1);
    if (cur_.detail.empty())
      cur_.detail = fmt::format("replayed as {} here: coNCePTuaL has no nonblocking collectives", opName(blocking.op));
    note("coNCePTuaL has no nonblocking collectives: MPI_Ibcast, MPI_Iallreduce, ... are replayed as the blocking "
         "collective at the call that starts them (the order of a communicator's collectives stays), and the "
         "waits that complete them find them done.");
  }

  void communicator(const CallStmt& c, const RankList&) override {
    // MPI_Comm_free and the group calls: no communication, only the computation before them (§5.3).
    if (opInfo(c.op).kind != OpKind::CommCreate) return;
    if (c.op != Op::CommSplit && c.op != Op::CommDup && c.op != Op::CommCreate)
      note(fmt::format("coNCePTuaL has no communicators or process topologies: {} is not replayed. Its "
                       "communicator's collectives become collectives of its members' tasks and its "
                       "neighbours' messages name them by task number (the trace's world ranks, in the "
                       "numbering the library gave the application), the nearest equivalent.",
                       opName(c.op)));
  }

  void persistent(const CallStmt& c, const RankList& ranks) override {
    // coNCePTuaL has no requests to free: MPI_Request_free leaves the computation before it.
    if (scaleFree() && opInfo(c.op).kind == OpKind::Start) scaleFreeRefusal(c, "a persistent request");
    if (opInfo(c.op).kind == OpKind::Start) cur_.call = startStmts(c, ranks, cur_.idx, cur_.detail);
  }

  void matchedProbe(const CallStmt& c, const RankList& ranks) override {
    if (scaleFree()) scaleFreeRefusal(c, "a matched probe");
    if (opInfo(c.op).kind == OpKind::MatchedProbe) {
      probes_[c.event] = c;  // no communication (as MPI_Probe); its receive names its source
      return;
    }
    cur_.call = matchedRecvStmts(c, ranks, cur_.idx, cur_.detail);
  }

  void oneSided(const CallStmt& c, const RankList& ranks) override {
    if (scaleFree()) scaleFreeRefusal(c, "one-sided communication");
    cur_.call = oneSidedStmts(c, ranks, cur_.idx, cur_.detail);
  }

  void fileIo(const CallStmt& c, const RankList&) override {
    // coNCePTuaL has no I/O: the computation before the call stays, the time inside it is
    // not reproduced.
    cur_.detail = fmt::format("{}: no I/O in coNCePTuaL, left as a comment", opName(c.op));
    note("coNCePTuaL cannot express MPI-IO: file opens, reads, writes and closes leave only a comment (the "
         "computation before each stays; the time of the I/O itself is not reproduced).");
  }

  void opaque(const CallStmt& c, const RankList&) override {
    // Generation gets here only with --skip-unknown: the computation before the call stays.
    cur_.detail = fmt::format("{} is a call tracegen does not model: left out (--skip-unknown)", opName(c.op));
    note("Calls tracegen does not model are left out (--skip-unknown): the computation before each stays, under a "
         "comment naming the call.");
  }

  // ---- one-sided communication. coNCePTuaL has no windows and no one-sided transfers; the
  // nearest equivalent: MPI_Put and MPI_Accumulate are a message from the origin to the target,
  // MPI_Get one from the target to the origin (each with the receive on the other side that
  // coNCePTuaL implies), MPI_Win_fence a barrier over the window's communicator; window
  // creation, free and the passive-target calls (lock, unlock, flush) leave only a comment.
  std::vector<std::string> oneSidedStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                         std::string& detail) {
    note("coNCePTuaL cannot express one-sided communication: MPI_Put and MPI_Accumulate are messages from the origin "
         "to the target, MPI_Get a message from the target to the origin, MPI_Win_fence a barrier over the window's "
         "communicator; window creation and free, MPI_Win_lock, MPI_Win_unlock and the flushes leave only a comment.");
    switch (c.op) {
      case Op::Put:
      case Op::Accumulate:
        detail = fmt::format("one-sided {} as a message from origin to target", opName(c.op));
        return rmaMessage(c, ranks, idx, false);
      case Op::Get: {
        bool reversed = false;
        std::vector<std::string> out = rmaMessage(c, ranks, idx, true, &reversed);
        detail = reversed ? "one-sided MPI_Get as a message from target to origin"
                          : "one-sided MPI_Get as a message from origin to target (its targets differ by rank)";
        return out;
      }
      case Op::WinFence: {
        CallStmt b = c;
        b.op = Op::Barrier;
        std::vector<std::string> out = collectiveStmts(b, ranks, idx, detail);
        detail = "MPI_Win_fence as a barrier over the window's communicator";
        return out;
      }
      default:
        detail = fmt::format("{}: no one-sided communication in coNCePTuaL, left as a comment", opName(c.op));
        return {};
    }
  }

  // A transfer's message: sent ASYNCHRONOUSLY with the receive coNCePTuaL implies on the other
  // side (no RECEIVE stands for it: the target made no call), then completed by every task. A
  // get goes from the target to the origin where every task of the program gets from the same
  // offset (the senders are then all tasks too); otherwise, as a put does.
  std::vector<std::string> rmaMessage(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                      bool get, bool* reversed = nullptr) {
    std::vector<Case> cs = cases(ranks,
                                 {{"dest", param(c, Param::Dest)},
                                  {"count", param(c, Param::Count)},
                                  {"type", param(c, Param::Datatype)}},
                                 idx);
    const RankList everyone = RankList::all(p_.numRanks);
    std::vector<std::string> out = guarded(cs, [&](const Case& k) -> std::vector<std::string> {
      if (!k.values.count("dest")) throw std::invalid_argument("a one-sided transfer without a target");
      Expr dest = k.values.at("dest");
      RankList actors = k.ranks;
      if (get && dest.kind == Expr::Kind::RankOffset && k.ranks == everyone) {
        dest = Expr::rankOffset(((-dest.offset) % p_.numRanks + p_.numRanks) % p_.numRanks);
        if (reversed) *reversed = true;
      }
      Partner to = partner(dest, actors, false);
      if (!to.valid) return {};  // MPI_PROC_NULL: nothing moves
      Desc t = acting(actors, to.relative);
      data d;
      d.set("tasks", t.text);
      d.set("s", t.single ? "S" : "");
      d.set("message", message(bytesOf(k, "count", "type"), std::nullopt));
      d.set("target", to.text);
      return {fill("rma_send", d)};
    });
    if (!out.empty()) out.push_back(awaitStmt(everyone));
    return out;
  }

  std::vector<std::string> initStmts(const RankList& ranks) {
    Desc t = acting(ranks, false);
    data d;
    d.set("tasks", t.text);
    d.set("s", t.single ? "S" : "");
    d.set("single", t.single);
    return {fill("synchronize", d), fill("reset", d)};
  }

  // ----------------------------------------------------------------------- point to point
  void decideTags(const std::vector<Stmt>& body) {
    for (const auto& s : body) {
      if (s.kind == Stmt::Kind::Loop) {
        decideTags(s.loop.body);
        continue;
      }
      for (Param p : {Param::Tag, Param::RecvTag})
        if (const Expr* e = param(s.call, p); e && anyLeaf(*e, [](const Expr& x) { return x.isConst() && x.value < 0; }))
          useTags_ = false;
    }
    if (!useTags_)
      note("The trace has receives with MPI_ANY_TAG: tags are omitted everywhere, so messages between two ranks are "
           "matched in the order they were sent.");
  }

  template <typename F>
  static bool anyLeaf(const Expr& e, F f) {
    if (e.children.empty()) return f(e);
    return std::any_of(e.children.begin(), e.children.end(), [&](const Expr& c) { return anyLeaf(c, f); });
  }

  std::optional<std::int64_t> tagOf(const Case& k, const std::string& key) const {
    if (!useTags_) return std::nullopt;
    auto it = k.values.find(key);
    if (it == k.values.end()) return std::nullopt;
    return static_cast<std::int64_t>(it->second.value);
  }

  // The partner of the ranks of a case: a constant rank, or an offset (needs `t` bound).
  struct Partner {
    bool relative = false;
    std::string text;   // TASK … text
    bool valid = true;  // a constant outside 0 … P-1 (MPI_PROC_NULL) drops the communication
  };

  Partner partner(const Expr& v, const RankList& r, bool source) {
    Partner out;
    std::int64_t rank = 0;
    if (v.kind == Expr::Kind::GridPeer || v.kind == Expr::Kind::RelationPeer) {  // relative to the acting task (t)
      out.relative = true;
      data d;
      d.set("single", true);
      d.set("rank", v.kind == Expr::Kind::GridPeer ? gridPeerText(v.grid, "t") : relationPeerText(v.relation, "t"));
      out.text = fill("tasks", d);
      return out;
    }
    if (v.kind == Expr::Kind::ProgressionPeer) {  // (t + the progression) MOD num_tasks
      Expr offsets = v;
      offsets.kind = Expr::Kind::Progression;
      out.relative = true;
      data d;
      d.set("single", true);
      d.set("rank", fmt::format("(t + {}) MOD num_tasks", intText(offsets)));
      out.text = fill("tasks", d);
      return out;
    }
    if (v.kind == Expr::Kind::Formula || v.kind == Expr::Kind::Progression) {
      data d;
      d.set("single", true);
      d.set("rank", factor(intText(v)));
      out.text = fill("tasks", d);
      return out;
    }
    if (scaleFree() && v.kind == Expr::Kind::Const) {
      // A scale-free program keeps the application's wildcard receives (extrap/ScaleFree.h):
      // which sender each matches is decided per rank at one scale, no formula of the grid,
      // and a RECEIVE must name its sender.
      if (source && static_cast<std::int64_t>(v.value) == kAnySource)
        throw std::invalid_argument("a receive from MPI_ANY_SOURCE: a scale-free coNCePTuaL program cannot name the "
                                    "sender it matches (which sender that is is decided per rank at one scale, not by a "
                                    "formula of the grid); write C (-o bench.c), or give the target rank count (--ranks P)");
      rank = static_cast<std::int64_t>(v.value);
      if (rank < 0) {
        out.valid = false;
        return out;
      }
      out.text = singleDesc(rank).text;
      return out;
    }
    if (v.kind == Expr::Kind::RankOffset) {
      if (r.size() > 1) {
        out.relative = true;
        data d;
        d.set("single", true);
        d.set("rank", peerOffset(v.offset, r));
        out.text = fill("tasks", d);
        return out;
      }
      rank = ((*r.first() + v.offset) % p_.numRanks + p_.numRanks) % p_.numRanks;
    } else {
      rank = static_cast<std::int64_t>(v.value);
      if (source && rank == kAnySource)
        throw std::invalid_argument("a receive from MPI_ANY_SOURCE is left in the program: coNCePTuaL needs the "
                                    "actual source (run the resolve-wildcards pass)");
      if (rank < 0 || rank >= p_.numRanks) {
        out.valid = false;
        return out;
      }
    }
    out.text = singleDesc(rank).text;
    return out;
  }

  std::vector<std::string> sendStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                     bool async, Param countP = Param::Count, Param typeP = Param::Datatype,
                                     Param tagP = Param::Tag) {
    std::vector<Case> cs = cases(ranks,
                                 {{"dest", param(c, Param::Dest)},
                                  {"count", param(c, countP)},
                                  {"type", param(c, typeP)},
                                  {"tag", param(c, tagP)}},
                                 idx, {}, true);
    // Every rank posts one request per execution, whichever case applies.
    if (async) addRequests(ranks, 1);
    return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
      if (!k.values.count("dest")) throw std::invalid_argument("a send without a destination");
      Partner to = partner(k.values.at("dest"), k.ranks, false);
      if (!to.valid) {
        note("Sends to MPI_PROC_NULL are dropped.");
        return {};
      }
      Desc t = acting(k.ranks, to.relative, k.splits);
      data d;
      d.set("tasks", t.text);
      d.set("s", t.single ? "S" : "");
      d.set("async", async);
      d.set("message", messageOf(k, "count", "type", "tag"));
      d.set("target", to.text);
      return {fill("send", d)};
    });
  }

  std::int64_t bytesOf(const Case& k, const std::string& count, const std::string& type) const {
    auto n = k.values.find(count);
    if (n == k.values.end()) return 0;
    auto t = k.values.find(type);
    const std::int64_t size = t == k.values.end() ? 1 : typeSize(t->second);
    const auto bytes = static_cast<std::int64_t>(std::llround(n->second.value)) * size;
    return std::max<std::int64_t>(bytes, 0);
  }

  std::vector<std::string> recvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                     bool async, Param countP, Param typeP, Param tagP) {
    // A RECEIVE names the message it matches (§5.1 item 6): the size sent, where the
    // traversal knows it differs from the size posted.
    const bool sent = c.receivedBytes.has_value();
    std::vector<Case> cs = cases(ranks,
                                 {{"source", param(c, Param::Source)},
                                  {"count", sent ? &*c.receivedBytes : param(c, countP)},
                                  {"type", sent ? nullptr : param(c, typeP)},
                                  {"tag", param(c, tagP)}},
                                 idx, {}, true);
    if (async) addRequests(ranks, 1);
    return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
      if (!k.values.count("source")) throw std::invalid_argument("a receive without a source");
      Partner from = partner(k.values.at("source"), k.ranks, true);
      if (!from.valid) {
        note("Receives from MPI_PROC_NULL are dropped.");
        return {};
      }
      // ALL TASKS cannot receive (§3.2): the receivers are a target-position description.
      Desc t = target(k.ranks, "t", from.relative, k.splits);
      data d;
      d.set("tasks", t.text);
      d.set("s", t.single ? "S" : "");
      d.set("async", async);
      d.set("message", messageOf(k, "count", "type", "tag"));
      d.set("source", from.text);
      return {fill("receive", d)};
    });
  }

  // MPI_Sendrecv: asynchronous send and receive, then AWAIT (§5.2).
  std::vector<std::string> sendrecvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx) {
    const bool replace = c.op == Op::SendrecvReplace;
    std::vector<std::string> out = sendStmts(c, ranks, idx, true);
    std::vector<std::string> recv =
        recvStmts(c, ranks, idx, true, replace ? Param::Count : Param::RecvCount,
                  replace ? Param::Datatype : (param(c, Param::RecvType) ? Param::RecvType : Param::Datatype),
                  param(c, Param::RecvTag) ? Param::RecvTag : Param::Tag);
    out.insert(out.end(), recv.begin(), recv.end());
    RankList busy = busyRanks(ranks);
    if (!busy.empty()) out.push_back(awaitStmt(busy));
    completeRequests(ranks, -1);
    return out;
  }

  // ----------------------------------------------------------------------- persistent requests
  // coNCePTuaL has no persistent requests: the nearest equivalent of an MPI_Start or
  // MPI_Startall is, per request it starts, the asynchronous send or receive its
  // MPI_Send_init/MPI_Recv_init describes, completed by the waits' AWAIT COMPLETION as an
  // MPI_Isend/MPI_Irecv would be. Which init call a start activates is found by following
  // every rank's calls (RankCursor): it must be the same for all the start's executions.
  std::vector<std::string> startStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                      std::string& detail) {
    note("coNCePTuaL has no persistent requests: each MPI_Start/MPI_Startall becomes the asynchronous sends and "
         "receives its MPI_Send_init/MPI_Recv_init describe (completed by the waits' AWAIT COMPLETION), the nearest "
         "equivalent; the init calls and MPI_Request_free move nothing.");
    const std::vector<const Event*>* inits = startedInits(c.event);
    std::vector<const CallStmt*> stmts;
    for (const Event* e : inits ? *inits : std::vector<const Event*>{}) {
      auto it = inits_.find(e);
      bool invariant = it != inits_.end();
      if (invariant)
        for (const auto& [p, v] : it->second.params) invariant = invariant && v.perExecutionInvariant();
      if (!invariant) {
        stmts.clear();
        break;
      }
      stmts.push_back(&it->second);
    }
    if (stmts.empty()) {
      detail = fmt::format("{} is not replayed: the init calls of its requests differ between executions", opName(c.op));
      note("A start whose requests the generator cannot tie to one MPI_Send_init/MPI_Recv_init each (or whose init "
           "parameters change from one execution to the next) is not replayed.");
      return {};
    }
    std::vector<std::string> out;
    for (const CallStmt* init : stmts) {
      std::vector<std::string> part = opInfo(init->op).kind == OpKind::SendInit
                                          ? sendStmts(*init, ranks, idx, true)
                                          : recvStmts(*init, ranks, idx, true, Param::Count, Param::Datatype, Param::Tag);
      out.insert(out.end(), part.begin(), part.end());
    }
    detail = fmt::format("the asynchronous {} of {} started", stmts.size() == 1 ? "operation" : "operations",
                         stmts.size() == 1 ? "the request" : fmt::format("its {} requests", stmts.size()));
    return out;
  }

  // MPI_Mrecv/MPI_Imrecv: a RECEIVE (asynchronous for MPI_Imrecv) of the size it posts from the
  // source its matched probe names, the nearest equivalent of receiving the probed message.
  std::vector<std::string> matchedRecvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                            std::string& detail) {
    note("coNCePTuaL has no matched probes: MPI_Mprobe/MPI_Improbe move nothing and each MPI_Mrecv/MPI_Imrecv "
         "becomes a RECEIVE (asynchronous for MPI_Imrecv) from the source its probe names, the nearest equivalent.");
    mapCalls();
    auto m = recvProbe_.find(c.event);
    auto probe = m == recvProbe_.end() ? probes_.end() : probes_.find(m->second);
    bool usable = probe != probes_.end();
    // The probe's source and tag are taken at the receive's execution: the same values, or the
    // same executions (one receive per probe in the same loops).
    if (usable) {
      bool invariant = true;
      for (const auto& [p, v] : probe->second.params) invariant = invariant && v.perExecutionInvariant();
      usable = invariant || (probe->second.executionIndex && probe->second.executionIndex == c.executionIndex);
    }
    if (!usable) {
      detail = fmt::format("{} is not replayed: its probe differs between ranks or executions", opName(c.op));
      note("A matched receive whose probe the generator cannot tie to one MPI_Mprobe/MPI_Improbe in step with it is "
           "not replayed.");
      return {};
    }
    CallStmt recv = c;
    for (Param p : {Param::Source, Param::Tag, Param::Comm})
      if (auto it = probe->second.params.find(p); it != probe->second.params.end()) recv.params[p] = it->second;
    const bool async = c.op == Op::Imrecv;
    detail = fmt::format("receives the message its probe (event {}) found", probe->first->id);
    return recvStmts(recv, ranks, idx, async, Param::Count, Param::Datatype, Param::Tag);
  }

  // The init events of the requests a start event activates, in order; null if the ranks or
  // executions disagree, or the trace is too large to follow.
  const std::vector<const Event*>* startedInits(const Event* start) {
    mapCalls();
    auto it = startInits_.find(start);
    return it == startInits_.end() ? nullptr : &it->second;
  }

  // Follows every rank's calls once (up to kStartBudget calls): the init events of each start,
  // the probe event of each matched receive. Events whose ranks or executions disagree are left
  // out.
  void mapCalls() {
    if (startsMapped_) return;
    startsMapped_ = true;
    if (!p_.trace || !expansionWithinBudget(*p_.trace, kStartBudget)) return;
    std::set<const Event*> mixed;
    for (Rank r = 0; r < p_.trace->numRanks; ++r) {
      RankCursor cursor(*p_.trace, r);
      cursor.setComputeTimes(false);
      Call call;
      std::map<std::int64_t, const Event*> probeEvents;  // probes not received yet
      while (cursor.next(call)) {
        const OpKind kind = opInfo(call.op).kind;
        if (kind == OpKind::MatchedProbe) probeEvents[call.index] = call.event;
        if (kind == OpKind::MatchedRecv) {
          auto p = probeEvents.find(call.probe);
          const Event* probe = p == probeEvents.end() ? nullptr : p->second;
          if (p != probeEvents.end()) probeEvents.erase(p);
          auto [it, fresh] = recvProbe_.emplace(call.event, probe);
          if (!probe || (!fresh && it->second != probe)) mixed.insert(call.event);
        }
        if (kind != OpKind::Start) continue;
        std::vector<const Event*> inits;
        for (const auto& st : call.started) inits.push_back(st.initEvent);
        auto [it, fresh] = startInits_.emplace(call.event, inits);
        if (!fresh && it->second != inits) mixed.insert(call.event);
      }
    }
    for (const Event* e : mixed) {
      startInits_.erase(e);
      recvProbe_.erase(e);
    }
  }

  // MPI_Wait*/MPI_Test*: AWAIT for the ranks this call leaves with nothing outstanding.
  std::vector<std::string> waitStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                     std::string& detail) {
    std::vector<std::pair<std::string, const Expr*>> params;
    if (const Expr* r = param(c, Param::Request)) params.push_back({"req0", r});
    if (auto it = c.vectors.find(Param::Requests); it != c.vectors.end())
      for (std::size_t i = 0; i < it->second.size(); ++i) params.push_back({fmt::format("req{}", i), &it->second[i]});
    // Completions per rank class: the fewest over the cases (a deferred AWAIT never deadlocks).
    // A wait on more requests than kMaxCases is not split into cases (every case would copy a
    // value per request: a fuzzed MPI_Waitsome of 7,201 took minutes): its requests that are
    // one non-null constant count as live, the others as completed by other calls, which
    // completes no more than the program does.
    std::vector<Case> cs;
    if (params.size() <= kMaxCases) {
      cs = cases(ranks, params, idx);
    } else {
      Case k{ranks, {}, {}, {}};
      for (const auto& [key, v] : params)
        if (v->isConst() && static_cast<std::int64_t>(v->value) != kRequestNull) k.values.emplace(key, *v);
      detail = fmt::format("{} requests: those that vary from call to call are not counted as completed here", params.size());
      cs.push_back(std::move(k));
    }
    std::vector<std::pair<RankList, std::int64_t>> completions;
    for (const auto& k : cs) {
      std::int64_t live = 0;
      for (const auto& [key, v] : k.values)
        if (!(v.isConst() && static_cast<std::int64_t>(v.value) == kRequestNull)) ++live;
      std::int64_t done = 0;
      switch (c.op) {
        case Op::Wait: case Op::Waitall: done = live; break;
        case Op::Waitany: case Op::Waitsome: done = std::min<std::int64_t>(live, 1); break;
        default: done = 0; break;  // a test may fail: it completes nothing for sure
      }
      auto it = std::find_if(completions.begin(), completions.end(), [&](const auto& x) { return x.first == k.ranks; });
      if (it == completions.end())
        completions.push_back({k.ranks, done});
      else
        it->second = std::min(it->second, done);
    }
    // Without request parameters a wait completes what its kind says: everything for Waitall,
    // one request for Wait/Waitany/Waitsome, nothing certain for a test.
    if (params.empty())
      completions = {{ranks, c.op == Op::Waitall ? std::numeric_limits<std::int64_t>::max()
                             : (c.op == Op::Wait || c.op == Op::Waitany || c.op == Op::Waitsome) ? 1 : 0}};
    std::vector<std::string> out;
    RankList awaiting, deferred;
    for (const auto& [r, done] : completions) {
      RankList before = busyRanks(r);
      completeRequests(r, done);
      RankList after = busyRanks(r);
      awaiting = RankList::unite(awaiting, RankList::subtract(before, after));
      deferred = RankList::unite(deferred, after);
    }
    if (!awaiting.empty()) out.push_back(awaitStmt(awaiting));
    if (!deferred.empty())
      detail = awaiting.empty() ? "completion deferred: more requests are outstanding"
                                : "completion deferred on the ranks with more requests outstanding";
    return out;
  }

  // ----------------------------------------------------------------------- collectives
  // The members of each communicator instance among `ranks`, for a case's communicator id.
  std::vector<RankList> groupsOf(const Case& k, const RankList& ranks, const CallStmt& c) {
    const std::int64_t id = k.values.count("comm") ? static_cast<std::int64_t>(k.values.at("comm").value) : kCommWorld;
    if (id == kCommSelf) return {};
    if (id == kCommWorld) return {ranks == all_ ? all_ : complete(all_, ranks, c)};
    const Communicator* comm = nullptr;
    for (const auto& x : p_.comms)
      if (x.id == id) comm = &x;
    if (!comm) throw std::invalid_argument(fmt::format("{}: unknown communicator {}", opName(c.op), id));
    std::vector<RankList> out;
    for (const auto& inst : comm->instances) {
      if (!inst.intersects(ranks)) continue;
      out.push_back(inst.isSubsetOf(ranks) ? inst : complete(inst, ranks, c));
    }
    return out;
  }

  RankList complete(const RankList& instance, const RankList& ranks, const CallStmt& c) {
    note(fmt::format("A {} whose participants are split over several statements is replayed by each part on its "
                     "own.",
                     opName(c.op)));
    return RankList::intersect(instance, ranks);
  }

  // Per-member bytes of a collective, from a scalar count or, averaged, from a vector (§5.4).
  double meanOver(const RankList& g, const std::function<double(Rank)>& f) {
    double sum = 0;
    Rank n = 0;
    g.forEach([&](Rank r) {
      sum += f(r);
      ++n;
      return true;
    });
    return n ? sum / static_cast<double>(n) : 0;
  }

  // A member's value of a case's parameter: the case's conditions have settled every choice by
  // execution and first iteration (specialised()), so the shared evaluator needs only the rank.
  double valueAt(const Expr& e, Rank r) const { return e.eval(r, p_.numRanks, 0, {}); }

  // Count times datatype size of a rank's own contribution (0 without a count).
  double scalarBytes(const CallStmt& c, Rank r) const {
    const Expr* n = param(c, Param::Count);
    const Expr* t = param(c, Param::Datatype);
    if (!n) return 0;
    return valueAt(*n, r) * (t ? static_cast<double>(typeSize(Expr::constant(valueAt(*t, r)))) : 1.0);
  }

  double vectorBytes(const CallStmt& c, Param vec, Param typeP, Rank r) const {
    auto it = c.vectors.find(vec);
    if (it == c.vectors.end()) return 0;
    const Expr* t = param(c, typeP);
    const double size = t ? static_cast<double>(typeSize(Expr::constant(valueAt(*t, r)))) : 1.0;
    double sum = 0;
    for (const auto& e : it->second) sum += std::max(0.0, valueAt(e, r));
    return sum * size;
  }

  // ---- neighbourhood collectives (docs/ncptl-backend.md, "Neighbourhood collectives").
  // coNCePTuaL has no process topologies: each rank's blocks become asynchronous messages to
  // each destination and from each source (MPI_PROC_NULL neighbours dropped), the same bytes,
  // then the ranks await their completion. The neighbours come from the trace's topology
  // constructors (RankCursor), one statement per rank and neighbour.
  struct RankNeighbours {
    std::vector<Rank> sources, destinations;
  };
  std::map<std::pair<std::int64_t, Rank>, RankNeighbours> neighbours_;

  const RankNeighbours& neighboursOf(std::int64_t comm, Rank r) {
    auto key = std::pair{comm, r};
    auto it = neighbours_.find(key);
    if (it != neighbours_.end()) return it->second;
    RankNeighbours n;
    if (p_.trace) topologyNeighbours(*p_.trace, r, comm, n.sources, n.destinations, p_.source);
    return neighbours_.emplace(key, std::move(n)).first->second;
  }

  std::vector<std::string> neighborStmts(const CallStmt& c, const RankList& ranks, std::string& detail) {
    const Op op = blockingForm(c.op);
    auto scalar = [&](Param p, Rank r, double fallback) {
      const Expr* e = param(c, p);
      return e ? valueAt(*e, r) : fallback;
    };
    auto element = [&](Param p, std::size_t i, Rank r) -> std::optional<double> {
      auto v = c.vectors.find(p);
      if (v == c.vectors.end() || v->second.empty()) return std::nullopt;
      return valueAt(v->second[std::min(i, v->second.size() - 1)], r);
    };
    auto size = [&](double type) { return typeSize(Expr::constant(type)); };
    // The bytes of block i on the send or the receive side of rank r.
    auto block = [&](bool send, std::size_t i, Rank r) -> std::int64_t {
      const double type = send ? scalar(Param::Datatype, r, 0) : scalar(Param::RecvType, r, scalar(Param::Datatype, r, 0));
      double count = send ? scalar(Param::Count, r, 0) : scalar(Param::RecvCount, r, scalar(Param::Count, r, 0));
      double t = type;
      const bool vectorSend = op == Op::NeighborAlltoallv || op == Op::NeighborAlltoallw;
      if ((send && vectorSend) || (!send && op != Op::NeighborAllgather && op != Op::NeighborAlltoall))
        count = element(send ? Param::SendCounts : Param::RecvCounts, i, r).value_or(0);
      if (op == Op::NeighborAlltoallw) t = element(send ? Param::SendTypes : Param::RecvTypes, i, r).value_or(0);
      return std::max<std::int64_t>(0, static_cast<std::int64_t>(std::llround(count)) * size(t));
    };
    std::vector<std::string> out;
    ranks.forEach([&](Rank r) {
      const Expr* commE = param(c, Param::Comm);
      const auto comm = static_cast<std::int64_t>(commE ? valueAt(*commE, r) : static_cast<double>(kCommWorld));
      const RankNeighbours& n = neighboursOf(comm, r);
      auto one = [&](bool send, std::size_t i, Rank peer) {
        if (peer == kProcNull || peer < 0) return;
        data d;
        d.set("tasks", singleDesc(r).text);
        d.set("s", "S");
        d.set("async", true);
        d.set("message", message(block(send, i, r), std::nullopt));
        d.set(send ? "target" : "source", singleDesc(peer).text);
        out.push_back(fill(send ? "send" : "receive", d));
      };
      for (std::size_t i = 0; i < n.destinations.size(); ++i) one(true, i, n.destinations[i]);
      for (std::size_t i = 0; i < n.sources.size(); ++i) one(false, i, n.sources[i]);
      return true;
    });
    if (!out.empty()) out.push_back(awaitStmt(ranks));
    detail = "its blocks as messages to and from each neighbour";
    note("coNCePTuaL has no process topologies: a neighbourhood collective (MPI_Neighbor_alltoall, ...) is replayed "
         "as asynchronous messages of the same bytes to each destination and from each source of the rank's "
         "topology (MPI_PROC_NULL neighbours move nothing), which the ranks then await.");
    return out;
  }

  // MPI_Alltoallw: sum over the peers of count x that peer's datatype size, on the send side
  // (the receive side where the trace has no send side: MPI_IN_PLACE).
  double typedVectorBytes(const CallStmt& c, Rank r) const {
    const bool send = c.vectors.count(Param::SendCounts) && c.vectors.count(Param::SendTypes);
    auto counts = c.vectors.find(send ? Param::SendCounts : Param::RecvCounts);
    auto types = c.vectors.find(send ? Param::SendTypes : Param::RecvTypes);
    if (counts == c.vectors.end() || types == c.vectors.end() || types->second.empty()) return 0;
    double sum = 0;
    for (std::size_t i = 0; i < counts->second.size(); ++i) {
      const Expr& t = types->second[std::min(i, types->second.size() - 1)];
      sum += std::max(0.0, valueAt(counts->second[i], r)) * static_cast<double>(typeSize(Expr::constant(valueAt(t, r))));
    }
    return sum;
  }

  std::string multicast(const Desc& from, const std::string& to, std::int64_t bytes) {
    data d;
    d.set("tasks", from.text);
    d.set("s", from.single ? "S" : "");
    d.set("message", message(bytes, std::nullopt));
    d.set("target", to);
    return fill("multicast", d);
  }

  // One root to the other members: MPI_Bcast (§5.3).
  std::string rootToOthers(Rank root, const RankList& g, std::int64_t bytes) {
    RankList others = RankList::subtract(g, RankList::single(root));
    if (others.empty()) return "";
    std::string to = g == all_ ? allOther() : target(others, "d").text;
    return multicast(singleDesc(root), to, bytes);
  }

  // Every member to every member: MPI_Alltoall (§5.3).
  std::string allToAll(const RankList& g, std::int64_t bytes) {
    if (g.size() < 2) return "";
    if (g == all_) return multicast(acting(g, false), allOther(), bytes);
    return multicast(acting(g, false), target(g, "d").text, bytes);
  }

  // `<g> REDUCE k DOUBLEWORDS [TO root]` (§5.3); rootText is a task description or empty.
  std::string reduce(const RankList& g, std::int64_t count, std::int64_t typeBytes, const std::string& rootText) {
    // 8-byte items as DOUBLEWORDS, 4-byte items as INTEGERS, anything else as 8-byte words.
    bool doubles = true;
    std::int64_t items = count;
    if (typeBytes == 4) {
      doubles = false;
    } else if (typeBytes != 8) {
      items = (count * typeBytes + 7) / 8;
      note("Reductions of types other than 4- and 8-byte numbers reduce the same number of bytes as DOUBLEWORDS.");
    }
    Desc t = acting(g, false);
    data d;
    d.set("tasks", t.text);
    d.set("s", t.single ? "S" : "");
    d.set("count", scaledBytes(items));
    d.set("doubles", doubles);
    d.set("rooted", !rootText.empty());
    d.set("root", rootText);
    return fill("reduce", d);
  }

  std::vector<std::string> collectiveStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                           std::string& detail) {
    if (scaleFree()) {
      if (isNeighborCollective(c.op)) scaleFreeRefusal(c, "a neighbourhood collective");
      return scaleFreeCollective(c, ranks, idx);
    }
    if (isNeighborCollective(c.op)) return neighborStmts(c, ranks, detail);
    // A user-defined reduction operator (the recorder's 1000 + order of first use): coNCePTuaL's
    // REDUCE has no operator, so the same bytes are reduced, said at the call.
    if (const Expr* o = param(c, Param::ReduceOp); o && o->kind == Expr::Kind::Const && o->value >= 1000) {
      detail = fmt::format("the application's user-defined operator {}: a REDUCE of the same bytes",
                           static_cast<std::int64_t>(o->value) - 1000);
      note("A reduction with a user-defined operator (MPI_Op_create) is a REDUCE of the same bytes: coNCePTuaL's "
           "REDUCE names no operator.");
    }
    std::vector<Case> cs = cases(ranks,
                                 collectiveParams(c),
                                 idx, memberParams(c));
    return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
      std::vector<std::string> out;
      // Vectors and counts as this case's ranks pass them, at this case's executions.
      const CallStmt at = specialised(c, k);
      for (const RankList& g : groupsOf(k, k.ranks, c)) {
        Rank root = *g.first();
        if (k.values.count("root")) {
          root = static_cast<Rank>(k.values.at("root").value);
          if (!g.contains(root)) {
            note(fmt::format("A {} whose root is not among the statement's ranks is rooted at its lowest member.",
                             opName(c.op)));
            root = *g.first();
          }
        }
        const std::int64_t bytes = bytesOf(k, "count", "type");
        const std::int64_t recvBytes = k.values.count("recvcount") ? bytesOf(k, "recvcount", k.values.count("recvtype") ? "recvtype" : "type") : bytes;
        std::string s;
        switch (c.op) {
          case Op::Barrier: {
            Desc t = acting(g, false);
            data d;
            d.set("tasks", t.text);
            d.set("s", t.single ? "S" : "");
            if (g.size() > 1) s = fill("synchronize", d);
            break;
          }
          case Op::Bcast:
            s = rootToOthers(root, g, bytes);
            break;
          case Op::Scatter:
            s = rootToOthers(root, g, recvBytes);
            note("MPI_Scatter is a MULTICAST of one member's share from the root (MPI_Bcast): receivers get their "
                 "bytes, the root sends less than a real scatter (§5.3).");
            break;
          case Op::Scatterv: {
            const auto avg = static_cast<std::int64_t>(
                std::llround(vectorBytes(at, Param::SendCounts, Param::Datatype, root) / static_cast<double>(g.size())));
            s = rootToOthers(root, g, avg);
            detail = "averaged share";
            note("MPI_Scatterv is a MULTICAST of the average share from the root (§5.4).");
            break;
          }
          case Op::Reduce:
          case Op::Allreduce: {
            const std::int64_t count = static_cast<std::int64_t>(std::llround(k.values.count("count") ? k.values.at("count").value : 0));
            const std::int64_t size = k.values.count("type") ? typeSize(k.values.at("type")) : 8;
            if (g.size() > 1) s = reduce(g, count, size, c.op == Op::Reduce ? singleDesc(root).text : std::string());
            break;
          }
          case Op::Alltoall:
          case Op::Allgather:
            s = allToAll(g, bytes);
            break;
          case Op::Allgatherv: {
            const auto avg = static_cast<std::int64_t>(std::llround(meanOver(g, [&](Rank r) { return scalarBytes(at, r); })));
            s = allToAll(g, avg);
            detail = "averaged contribution";
            note("MPI_Allgatherv is a many-to-many MULTICAST of the average contribution (MPI_Alltoall, §5.4).");
            break;
          }
          case Op::Alltoallv: {
            const double total = meanOver(g, [&](Rank r) { return vectorBytes(at, Param::SendCounts, Param::Datatype, r); }) *
                                 static_cast<double>(g.size());
            const auto avg = static_cast<std::int64_t>(std::llround(total / static_cast<double>(g.size() * g.size())));
            s = allToAll(g, avg);
            detail = "averaged per pair";
            note("MPI_Alltoallv is a many-to-many MULTICAST of the average bytes per rank pair (MPI_Alltoall, §5.4).");
            break;
          }
          case Op::Alltoallw: {
            // Per-peer counts and datatypes: the bytes a rank sends, summed over its peers.
            const double total = meanOver(g, [&](Rank r) { return typedVectorBytes(at, r); }) * static_cast<double>(g.size());
            const auto avg = static_cast<std::int64_t>(std::llround(total / static_cast<double>(g.size() * g.size())));
            s = allToAll(g, avg);
            detail = "averaged per pair";
            note("MPI_Alltoallw is a many-to-many MULTICAST of the average bytes per rank pair (MPI_Alltoall, §5.4).");
            break;
          }
          case Op::Gather:
            if (g.size() > 1) s = multicast(acting(g, false), singleDesc(root).text, bytes);
            break;
          case Op::Gatherv: {
            const auto avg = static_cast<std::int64_t>(std::llround(meanOver(g, [&](Rank r) { return scalarBytes(at, r); })));
            if (g.size() > 1) s = multicast(acting(g, false), singleDesc(root).text, avg);
            detail = "averaged contribution";
            note("MPI_Gatherv is a many-to-one MULTICAST of the average contribution (§5.4).");
            break;
          }
          case Op::ReduceScatter: {
            std::vector<std::string> rs = reduceScatter(at, k, g);
            out.insert(out.end(), rs.begin(), rs.end());
            break;
          }
          case Op::Scan: {
            std::vector<std::string> chain = scanChain(g, bytes);
            out.insert(out.end(), chain.begin(), chain.end());
            note("MPI_Scan has no coNCePTuaL equivalent: it is a blocking chain of messages along the members (§5.3).");
            break;
          }
          case Op::Exscan: {
            std::vector<std::string> chain = scanChain(g, bytes);
            out.insert(out.end(), chain.begin(), chain.end());
            note("MPI_Exscan has no coNCePTuaL equivalent: it is a blocking chain of messages along the members, as "
                 "MPI_Scan (§5.3).");
            break;
          }
          case Op::ReduceScatterBlock: {
            // Every member contributes count x members elements and keeps its block of count:
            // the nearest the language has is a REDUCE of the whole vector to every member.
            const std::int64_t count = static_cast<std::int64_t>(std::llround(k.values.count("count") ? k.values.at("count").value : 0));
            const std::int64_t size = k.values.count("type") ? typeSize(k.values.at("type")) : 8;
            if (g.size() > 1)
              if (auto total = checkedMul(count, static_cast<std::int64_t>(g.size()))) s = reduce(g, *total, size, std::string());
            detail = "the whole vector reduced to every member";
            note("MPI_Reduce_scatter_block has no coNCePTuaL equivalent: it is a REDUCE of the whole vector (each "
                 "member's block times the members) to every member, which moves more than the scatter would.");
            break;
          }
          default:
            throw std::invalid_argument(fmt::format("no coNCePTuaL lowering for {}", opName(c.op)));
        }
        if (!s.empty()) out.push_back(s);
      }
      return out;
    });
  }

  // The elements of a collective's count and type vectors that change from one execution to the
  // next (the others are evaluated per member as they are).
  static std::vector<std::pair<std::string, const Expr*>> memberParams(const CallStmt& c) {
    std::vector<std::pair<std::string, const Expr*>> out;
    for (Param p : {Param::SendCounts, Param::RecvCounts, Param::SendTypes, Param::RecvTypes})
      if (auto it = c.vectors.find(p); it != c.vectors.end())
        for (std::size_t i = 0; i < it->second.size(); ++i)
          if (!it->second[i].perExecutionInvariant()) out.push_back({memberKey(p, i), &it->second[i]});
    return out;
  }

  // MPI_Reduce_scatter: one REDUCE to each member (§5.4).
  std::vector<std::string> reduceScatter(const CallStmt& c, const Case& k, const RankList& g) {
    const std::int64_t size = k.values.count("type") ? typeSize(k.values.at("type")) : 8;
    std::vector<std::int64_t> counts;
    auto it = c.vectors.find(Param::RecvCounts);
    const Rank first = *g.first();
    if (it != c.vectors.end())
      for (const auto& e : it->second) counts.push_back(static_cast<std::int64_t>(std::llround(valueAt(e, first))));
    counts.resize(static_cast<std::size_t>(g.size()), counts.empty() ? 0 : counts.back());
    std::vector<Rank> members = g.toVector();
    const bool equal = std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
    if (equal && g.size() > 1) {
      // FOR EACH member IN {members}: one reduction to each, as one loop.
      std::vector<std::int64_t> m(members.begin(), members.end());
      bool arithmetic = m.size() < 3 || std::adjacent_find(m.begin() + 1, m.end(), [&](std::int64_t a, std::int64_t b) {
                                          return b - a != m[1] - m[0];
                                        }) == m.end();
      if (arithmetic || m.size() <= 256) {
        data root;
        root.set("single", true);
        root.set("rank", "member");
        data loop;
        loop.set("var", "member");
        loop.set("range", rangeText(m));
        loop.set("body", body({Piece{{}, {reduce(g, counts[0], size, fill("tasks", root))}}}));
        return {fill("foreach", loop)};
      }
    }
    std::vector<std::string> out;
    if (members.size() > 64) {
      std::int64_t total = 0;
      for (auto x : counts) total += x;
      note("An MPI_Reduce_scatter with more than 64 unequal shares is an all-reduce of the whole vector (§5.4).");
      out.push_back(reduce(g, total, size, std::string()));
      return out;
    }
    for (std::size_t i = 0; i < members.size(); ++i) out.push_back(reduce(g, counts[i], size, singleDesc(members[i]).text));
    return out;
  }

  // MPI_Scan: a blocking chain member -> next member, acyclic, so it serialises (§5.3).
  std::vector<std::string> scanChain(const RankList& g, std::int64_t bytes) {
    if (g.size() < 2) return {};
    std::vector<Rank> m = g.toVector();
    const Rank stride = m[1] - m[0];
    bool regular = std::adjacent_find(m.begin() + 1, m.end(), [&](Rank a, Rank b) { return b - a != stride; }) == m.end();
    auto chainStmt = [&](const Desc& from, const std::string& to) {
      data d;
      d.set("tasks", from.text);
      d.set("s", from.single ? "S" : "");
      d.set("message", message(bytes, std::nullopt));
      d.set("target", to);
      return fill("chain", d);
    };
    RankList senders = RankList::subtract(g, RankList::single(m.back()));
    if (regular && senders.size() > 1) {
      data d;
      d.set("single", true);
      d.set("rank", peerOffset(stride, senders));
      return {chainStmt(acting(senders, true), fill("tasks", d))};
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i + 1 < m.size(); ++i) out.push_back(chainStmt(singleDesc(m[i]), singleDesc(m[i + 1]).text));
    return out;
  }

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

  std::string scaleVar(ScaleFormula::Var v) const {
    const int dims = gridDims();
    switch (v) {
      case ScaleFormula::Var::P: return "num_tasks";
      case ScaleFormula::Var::Px: return dims == 1 ? "num_tasks" : "px";
      case ScaleFormula::Var::Py:
        if (dims < 2) throw std::invalid_argument("scale-free: a formula of py in a 1-D program");
        return "py";
      case ScaleFormula::Var::Pz:
        if (dims < 3) throw std::invalid_argument("scale-free: a formula of pz in a program of fewer than 3 dimensions");
        return "pz";
      case ScaleFormula::Var::X:
      case ScaleFormula::Var::Y:
      case ScaleFormula::Var::Z:
        // The calling task's own coordinate (a split's colour): a message specification cannot
        // name the task (§3.1), and the communicators it would colour are refused anyway.
        throw std::invalid_argument("a value that depends on the task's own grid coordinate (a communicator split's "
                                    "colour) in a scale-free coNCePTuaL program is not supported: write C (-o bench.c), "
                                    "or give the target rank count (--ranks P)");
    }
    return "num_tasks";
  }
  std::string scaleVarWords(ScaleFormula::Var v) const {
    const std::string n = scaleVar(v);
    return n == "num_tasks" ? "the task count" : n;
  }

  // A condition under which the program's formulas are whole, with its words for the ASSERT.
  void noteScaleCondition(const std::string& cond, const std::string& words) {
    for (const auto& [c, w] : scaleConditions_)
      if (c == cond) return;
    scaleConditions_.emplace_back(cond, words);
  }

  // Text that a '-' may precede: coNCePTuaL drops a '-' right before a keyword (SQRT, BITS, ...;
  // the hyphen rule, §1.7), so such a text is parenthesised.
  static std::string negatable(const std::string& t) {
    return !t.empty() && std::isupper(static_cast<unsigned char>(t.front())) ? "(" + t + ")" : t;
  }
  // A right operand of '*' or '/': parenthesised unless it is one name, number or call.
  static std::string factor(const std::string& t) { return parenthesised(t, "+-*/ "); }
  // A left operand of '*' or '/' (they associate to the left): parenthesised if it is a sum.
  static std::string leftFactor(const std::string& t) { return parenthesised(t, "+- "); }
  static std::string parenthesised(const std::string& t, std::string_view operators) {
    int depth = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] == '(') ++depth;
      if (t[i] == ')') --depth;
      // A leading '-' is a sign, not a difference.
      if (depth == 0 && i > 0 && operators.find(t[i]) != std::string_view::npos) return "(" + t + ")";
    }
    return t;
  }

  // x^(|num|/den) * log2(x)^logPower of an integer formula; "" for the constant 1. Roots are
  // ROOT/SQRT/CBRT (whole only for perfect powers), log2(x) is BITS(x) - 1 (whole only for
  // powers of two): each adds its condition.
  std::string integerTerm(const ScaleFormula& f) {
    const std::string var = scaleVar(f.var);
    std::vector<std::string> factors;
    const int n = std::abs(f.num);
    if (n > 0) {
      std::string base = var;
      if (f.den > 1) {
        base = f.den == 2 ? fmt::format("SQRT({})", var) : f.den == 3 ? fmt::format("CBRT({})", var)
                                                                      : fmt::format("ROOT({}, {})", f.den, var);
        noteScaleCondition(fmt::format("{}**{} = {}", base, f.den, var),
                           fmt::format("{} {}", scaleVarWords(f.var),
                                       f.den == 2 ? "a square number" : f.den == 3 ? "a cube" : fmt::format("a {}th power", f.den)));
      }
      if (n <= 3)
        for (int k = 0; k < n; ++k) factors.push_back(base);
      else
        factors.push_back(fmt::format("{}**{}", base, n));
    }
    for (int k = 0; k < f.logPower; ++k) {
      factors.push_back(fmt::format("(BITS({}) - 1)", var));
      noteScaleCondition(fmt::format("1 << (BITS({}) - 1) = {}", var, var), fmt::format("{} a power of two", scaleVarWords(f.var)));
    }
    std::string out;
    for (const auto& x : factors) out += (out.empty() ? "" : "*") + x;
    return out;
  }

  // An integer formula as coNCePTuaL arithmetic (integer context, '/' truncating: the
  // conditions noted make every division exact), as the C backend's formulaText.
  std::string formulaText(const ScaleFormula& f) {
    if (!f.integer) throw std::invalid_argument("scale-free: a time formula where a whole number is needed");
    if (f.c0den != 1) throw std::invalid_argument("scale-free: a formula with a fractional constant term");
    const std::string t = integerTerm(f);
    if (f.c1num == 0 || t.empty()) {
      if (f.c1den != 1 && f.c1num != 0) throw std::invalid_argument("scale-free: a fractional constant");
      return std::to_string(f.c0num + (t.empty() ? f.c1num : 0));
    }
    const std::int64_t a = f.c1num, b = f.c1den;
    std::string part;
    bool negative = false;
    if (f.num >= 0) {
      negative = a < 0;
      part = std::abs(a) == 1 ? t : fmt::format("{}*{}", std::abs(a), factor(t));
      if (b != 1) {
        part = fmt::format("{}/{}", part, b);
        noteScaleCondition(fmt::format("{} DIVIDES {}", b, t),
                           fmt::format("{} a multiple of {}", t.find_first_of("*(") == std::string::npos ? scaleVarWords(f.var) : t, b));
      }
    } else {
      const std::string den = b == 1 ? t : fmt::format("{}*{}", b, factor(t));
      negative = a < 0;
      part = fmt::format("{}/{}", std::abs(a), factor(den));
      noteScaleCondition(fmt::format("{} DIVIDES {}", den, std::abs(a)),
                         fmt::format("{} dividing {}", b == 1 && den.find_first_of("*(") == std::string::npos ? scaleVarWords(f.var) : den,
                                     std::abs(a)));
    }
    if (f.c0num == 0) return negative ? "-" + negatable(part) : part;
    if (negative) return fmt::format("{} - {}", f.c0num, negatable(part));
    return f.c0num < 0 ? fmt::format("{} - {}", part, -f.c0num) : fmt::format("{} + {}", part, f.c0num);
  }

  // A real coefficient as an integer numerator over 10^k (coNCePTuaL has only integer literals):
  // the smallest k <= 6 that keeps it to 6 significant digits.
  static std::int64_t decimalScale(const std::vector<double>& values) {
    std::int64_t scale = 1;
    for (int k = 0; k <= 6; ++k, scale *= 10) {
      bool exact = true;
      for (double v : values) {
        const double x = v * static_cast<double>(scale);
        exact = exact && std::abs(x - std::round(x)) <= 1e-6 * std::max(1.0, std::abs(x));
      }
      if (exact) return scale;
    }
    return scale / 10;
  }

  // A time formula's duration in microseconds scaled by compute_scale: floating-point
  // arithmetic inside REAL(...), rounded to whole microseconds; never negative.
  std::string durationText(const ScaleFormula& f) {
    if (f.integer) return fmt::format("{}*compute_scale/100", leftFactor(formulaText(f)));
    const std::string var = scaleVar(f.var);
    const bool constant = f.c1 == 0 || (f.num == 0 && f.logPower == 0);
    const double c0 = constant ? f.c0 + (f.num == 0 && f.logPower == 0 ? f.c1 : 0) : f.c0;
    const std::int64_t scale = decimalScale({c0, constant ? 0.0 : f.c1});
    auto num = [&](double v) { return static_cast<std::int64_t>(std::llround(v * static_cast<double>(scale))); };
    if (constant)  // whole microseconds, as a time of one scale is written
      return fmt::format("{}*compute_scale/100", std::max<std::int64_t>(0, std::llround(c0)));
    std::string value;
    {
      // In floating-point context ROOT, SQRT and LOG10 are the real functions (§4.4).
      std::vector<std::string> factors;
      const int n = std::abs(f.num);
      if (n > 0) {
        std::string base = f.den == 1 ? var : f.den == 2 ? fmt::format("SQRT({})", var) : fmt::format("ROOT({}, {})", f.den, var);
        factors.push_back(n == 1 ? base : fmt::format("{}**{}", base, n));
      }
      for (int k = 0; k < f.logPower; ++k) factors.push_back(fmt::format("LOG10({})/LOG10(2)", var));
      std::string term;
      for (const auto& x : factors) term += (term.empty() ? "" : "*") + x;
      const std::int64_t a = num(std::abs(f.c1));
      std::string part = f.num >= 0 ? fmt::format("{}*{}", a, factor(term)) : fmt::format("{}/{}", a, factor(term));
      if (num(c0) != 0) part = fmt::format("{} {} {}", num(c0), f.c1 < 0 ? "-" : "+", part);
      else if (f.c1 < 0) part = "-" + part;
      value = fmt::format("REAL({}*compute_scale/{})", leftFactor(part), 100 * scale);
      // A fitted time may fall below zero far from the inputs: no negative durations (§6).
      return c0 < 0 || f.c1 < 0 ? fmt::format("MAX(0, {})", value) : value;
    }
  }

  // The execution index of the statement being rendered, k = sum of variable times the product
  // of the trip counts of the loops inside it, as text (the trip counts may be formulas).
  std::string executionIndexText() {
    std::string k, mult;
    for (auto it = loopStack_.rbegin(); it != loopStack_.rend(); ++it) {
      usedLoops_.insert(it->id);
      const std::string term = mult.empty() ? loopVar(it->id) : fmt::format("{}*{}", leftFactor(mult), loopVar(it->id));
      k = k.empty() ? term : fmt::format("{} + {}", term, k);
      if (!it->start.empty()) break;  // counted over all its entries: the index of everything outside too
      if (!it->sameEveryEntry)
        throw std::invalid_argument("scale-free: a value that progresses over executions inside a loop whose trip count "
                                    "changes from one entry to the next: coNCePTuaL has no counter to select it");
      const std::string trips = it->tripsText.empty() ? std::to_string(it->trips) : it->tripsText;
      mult = mult.empty() ? trips : fmt::format("{}*{}", leftFactor(mult), factor(trips));
    }
    return k.empty() ? "0" : k;
  }

  // An integer value of a case: a constant, a formula or a progression over executions
  // (start + step*(k MOD length)).
  std::string intText(const Expr& v) {
    switch (v.kind) {
      case Expr::Kind::Const: return std::to_string(std::llround(v.value));
      case Expr::Kind::Formula: return formulaText(v.formula);
      case Expr::Kind::Progression: {
        const std::string start = intText(v.children[0]), step = intText(v.children[1]), length = intText(v.children[2]);
        std::string k = fmt::format("{} MOD {}", leftFactor(executionIndexText()), factor(length));
        if (step != "1") k = fmt::format("{}*({})", leftFactor(step), k);
        return start == "0" ? k : fmt::format("{} + {}", start, k);
      }
      case Expr::Kind::Block: {
        // One half of its split (refineOne): N/p_d + 1 points below N MOD p_d, N/p_d from it.
        const std::string n = blockExtent(v.block.dim);
        noteScaleCondition(fmt::format("{} <= {}", n, v.block.points),
                           fmt::format("{} at most {} (each task a block of the {} points it splits)",
                                       n == "num_tasks" ? "the task count" : n, v.block.points, v.block.points));
        const std::string size = v.value != 0 ? fmt::format("{}/{} + 1", v.block.points, n) : fmt::format("{}/{}", v.block.points, n);
        const std::string part = v.block.b == 1 ? size : fmt::format("{}*({})", v.block.b, size);
        return v.block.a == 0 ? part : fmt::format("{} + {}", v.block.a, part);
      }
      default:
        throw std::logic_error("NcptlBackend: no integer text for this expression");
    }
  }

  // The classes of a rank set as a condition on the task variable's grid coordinates: a union
  // of boxes, each a product of per-dimension position sets (first, interior, last), chosen
  // greedily as the C backend's classCondition does.
  std::string classCondition(const RankList& classes, const std::string& v) {
    const int dims = gridDims();
    const std::array<std::string, 3> coord =
        dims == 1 ? std::array<std::string, 3>{v, "", ""}
                  : std::array<std::string, 3>{fmt::format("{} MOD px", v), dims == 2 ? fmt::format("{}/px", v) : fmt::format("{}/px MOD py", v),
                                               fmt::format("{}/(px*py)", v)};
    const std::array<std::string, 3> extent{dims == 1 ? "num_tasks" : "px", "py", "pz"};
    auto dimCondition = [&](int d, int mask) -> std::string {
      const std::string& c = coord[static_cast<std::size_t>(d)];
      const std::string& n = extent[static_cast<std::size_t>(d)];
      switch (mask) {
        case 1: return c + " = 0";
        case 2: return fmt::format("{} > 0 /\\ {} < {} - 1", c, c, n);
        case 4: return fmt::format("{} = {} - 1", c, n);
        case 3: return fmt::format("{} < {} - 1", c, n);
        case 6: return c + " > 0";
        case 5: return fmt::format("({} = 0 \\/ {} = {} - 1)", c, c, n);
        default: return "";
      }
    };
    std::vector<std::string> terms;
    for (const ClassBox& box : classBoxes(classes, dims)) {
      std::string parts;
      for (int d = 0; d < dims; ++d) {
        const int mask = box[static_cast<std::size_t>(d)];
        if (mask != kAnyPosition) parts += (parts.empty() ? "" : " /\\ ") + dimCondition(d, mask);
      }
      terms.push_back(parts.empty() ? fmt::format("{} >= 0", v) : parts);
    }
    if (terms.empty()) throw std::logic_error("NcptlBackend: an empty set of position classes");
    if (terms.size() == 1) return terms.front();
    std::string out;
    for (const auto& t : terms)
      out += (out.empty() ? "" : " \\/ ") + (t.find(" /\\ ") != std::string::npos ? "(" + t + ")" : t);
    return out;
  }

  // The extent a block distribution splits its points over.
  std::string blockExtent(int dim) const {
    static constexpr std::array<const char*, 3> kExtent{"px", "py", "pz"};
    return gridDims() == 1 ? "num_tasks" : kExtent.at(static_cast<std::size_t>(dim));
  }

  // A split (Split) as a condition on the task variable's coordinate.
  std::string splitCondition(const Split& sp, const std::string& v) const {
    const int dims = gridDims();
    const std::array<std::string, 3> coord =
        dims == 1 ? std::array<std::string, 3>{v, "", ""}
                  : std::array<std::string, 3>{fmt::format("{} MOD px", v), dims == 2 ? fmt::format("{}/px", v) : fmt::format("{}/px MOD py", v),
                                               fmt::format("{}/(px*py)", v)};
    return fmt::format("{} {} {} MOD {}", coord.at(static_cast<std::size_t>(sp.dim)), sp.below ? "<" : ">=", sp.points,
                       blockExtent(sp.dim));
  }

  // A task description of position classes: ALL TASKS where it may stand, else the condition
  // (and the case's splits).
  Desc classTasks(const RankList& r, const std::string& var, bool targetPos, bool bindVar,
                  const std::vector<Split>& splits = {}) {
    data d;
    if (!splits.empty()) {
      std::string cond = r == all_ ? std::string() : classCondition(r, var);
      if (cond.find(" \\/ ") != std::string::npos) cond = "(" + cond + ")";
      for (const Split& sp : splits) cond += (cond.empty() ? "" : " /\\ ") + splitCondition(sp, var);
      d.set("described", true);
      d.set("text", fmt::format("TASKS {} SUCH THAT {}", var, cond));
      return {fill("tasks", d), false};
    }
    if (r == all_ && !targetPos) {
      if (!bindVar) {
        d.set("all", true);
        return {fill("tasks", d), false};
      }
      d.set("described", true);
      d.set("text", "ALL TASKS " + var);
      return {fill("tasks", d), false};
    }
    d.set("described", true);
    d.set("text", fmt::format("TASKS {} SUCH THAT {}", var, r == all_ ? var + " >= 0" : classCondition(r, var)));
    return {fill("tasks", d), false};
  }

  // The task one grid step from `v`: v+1, v-px, v+px*py; across a periodic edge
  // (v+1) MOD num_tasks in 1-D, MESH_NEIGHBOR((px*, py), v, (1, 0)) on a grid.
  std::string gridPeerText(const GridStep& g, const std::string& v) {
    const int dims = gridDims();
    if (dims == 1) {
      data d;
      d.set("wrap", g.wrap[0] && g.step[0] != 0);
      d.set("var", v);
      d.set("plus", g.step[0] > 0);
      d.set("minus", g.step[0] < 0);
      d.set("offset", "1");
      return fill("peer", d);
    }
    static constexpr std::array<const char*, 3> kUnit{"1", "px", "px*py"}, kExtent{"px", "py", "pz"};
    const bool wrap = g.wrap[0] || g.wrap[1] || g.wrap[2];
    if (!wrap) {
      std::string t = v;
      for (std::size_t k = 0; k < 3; ++k)
        if (g.step[k] != 0) t += fmt::format("{}{}", g.step[k] > 0 ? "+" : "-", kUnit[k]);
      return t;
    }
    std::string extents, steps;
    for (std::size_t k = 0; k < static_cast<std::size_t>(dims); ++k) {
      extents += fmt::format("{}{}{}", k ? ", " : "", kExtent[k], g.wrap[k] ? "*" : "");
      steps += fmt::format("{}{}", k ? ", " : "", g.step[k]);
    }
    return fmt::format("MESH_NEIGHBOR(({}), {}, ({}))", extents, v, steps);
  }

  // The peer of task `v` by a relation (gen/GridRelation.h), as the C backend computes it: the
  // row's XOR partner at step k MOD log2(px) (a pairwise exchange's: XOR 1 + k MOD (px - 1)), k
  // the statement's execution index (as a progression's), and the transpose partner from v's
  // coordinates; each notes its domain.
  // XOR binds as loosely as '+' and '<<' as tightly as '*' (the language reference's
  // precedence table), so the text is parenthesised throughout.
  std::string relationPeerText(GridRelation rel, const std::string& v) {
    const int dims = gridDims();
    switch (rel) {
      case GridRelation::RowXor: {
        ScaleFormula steps;
        steps.var = dims == 1 ? ScaleFormula::Var::P : ScaleFormula::Var::Px;
        steps.logPower = 1;
        steps.c1num = 1;
        const std::string n = formulaText(steps);  // log2 of the row, noting it a power of two
        return fmt::format("({} XOR (1 << (({}) MOD {})))", v, executionIndexText(), factor(n));
      }
      case GridRelation::RowPairwise: {
        ScaleFormula rowLess1;  // px - 1 (every task in 1-D), noting its domain as RowXor's
        rowLess1.var = dims == 1 ? ScaleFormula::Var::P : ScaleFormula::Var::Px;
        rowLess1.num = 1;
        rowLess1.c0num = -1;
        rowLess1.c1num = 1;
        ScaleFormula steps = rowLess1;
        steps.num = 0;
        steps.logPower = 1;
        steps.c0num = 0;
        formulaText(steps);  // the row a power of two
        return fmt::format("({} XOR (1 + ({}) MOD {}))", v, executionIndexText(), factor(formulaText(rowLess1)));
      }
      case GridRelation::Transpose: {
        if (dims != 2) throw std::invalid_argument("scale-free: the transpose partner on a grid that is not 2-D");
        noteScaleCondition("py DIVIDES px", "px a multiple of py");
        const std::string x = fmt::format("({} MOD px)", v), y = fmt::format("({}/px)", v);
        return fmt::format("((px/py)*{} + {} MOD (px/py) + px*({}/(px/py)))", y, x, x);
      }
    }
    throw std::logic_error("NcptlBackend: an unknown relation");
  }

  // `A n BYTE MESSAGE [USING TAG k]` with a count and tag that may be formulas or progressions.
  std::string messageOf(const Case& k, const std::string& count, const std::string& type, const std::string& tagKey) {
    auto find = [&](const std::string& key) -> const Expr* {
      auto it = k.values.find(key);
      return it == k.values.end() ? nullptr : &it->second;
    };
    const Expr* n = find(count);
    const Expr* tag = useTags_ ? find(tagKey) : nullptr;
    if ((!n || n->isConst()) && (!tag || tag->isConst())) return message(bytesOf(k, count, type), tagOf(k, tagKey));
    data d;
    d.set("one", true);
    d.set("count", std::string("1"));
    d.set("bytes", scaledBytesText(bytesText(n, find(type))));
    d.set("tagged", tag && !(tag->isConst() && tag->value == 0));
    d.set("tag", tag ? intText(*tag) : std::string());
    return fill("message", d);
  }

  // count times the datatype's size, as text.
  std::string bytesText(const Expr* n, const Expr* type) {
    if (!n) return "0";
    const std::int64_t size = type ? typeSize(*type) : 1;
    if (n->isConst()) return std::to_string(std::max<std::int64_t>(0, std::llround(n->value) * size));
    const std::string c = intText(*n);
    return size == 1 ? c : fmt::format("{}*{}", size, factor(c));
  }
  std::string scaledBytesText(const std::string& bytes) {
    if (bytes == "0") return bytes;
    data d;
    d.set("bytes", leftFactor(bytes));
    return fill("scaled_bytes", d);
  }

  // The refusal of what a scale-free coNCePTuaL program cannot hold yet.
  [[noreturn]] static void scaleFreeRefusal(const CallStmt& c, const std::string& what) {
    throw std::invalid_argument(fmt::format("{}{}: {} in a scale-free coNCePTuaL program is not supported: write C "
                                            "(-o bench.c), or give the target rank count (--ranks P)",
                                            opName(c.op), c.event ? fmt::format(" (trace event {})", c.event->id) : "", what));
  }

  // The parameters a collective statement's cases are split by.
  static std::vector<std::pair<std::string, const Expr*>> collectiveParams(const CallStmt& c) {
    return {{"comm", param(c, Param::Comm)},         {"count", param(c, Param::Count)},
            {"type", param(c, Param::Datatype)},     {"recvcount", param(c, Param::RecvCount)},
            {"recvtype", param(c, Param::RecvType)}, {"root", param(c, Param::Root)}};
  }

  // Collectives of a scale-free program: on MPI_COMM_WORLD only (what extrap/ScaleFree makes),
  // every task taking part, the root a task number or a formula.
  std::vector<std::string> scaleFreeCollective(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx) {
    std::vector<Case> cs = cases(ranks,
                                 collectiveParams(c),
                                 idx);
    return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
      auto find = [&](const std::string& key) -> const Expr* {
        auto it = k.values.find(key);
        return it == k.values.end() ? nullptr : &it->second;
      };
      if (const Expr* comm = find("comm"); comm && !(comm->isConst() && static_cast<std::int64_t>(comm->value) == kCommWorld))
        scaleFreeRefusal(c, "a collective on another communicator than MPI_COMM_WORLD");
      // Every task takes part in a world collective: a case of fewer classes means the classes
      // differ in where they call it or with what, which one statement cannot say.
      if (!(k.ranks == all_))
        scaleFreeRefusal(c, "a collective that the position classes make at different places or with different "
                            "parameters");
      std::string rootText = "TASK 0";
      if (const Expr* r = find("root")) rootText = "TASK " + factor(intText(*r));
      const std::string bytes = bytesText(find("count"), find("type"));
      const std::string recvBytes = find("recvcount") ? bytesText(find("recvcount"), find(find("recvtype") ? "recvtype" : "type")) : bytes;
      auto mcast = [&](const Desc& from, const std::string& to, const std::string& b) {
        data d;
        d.set("tasks", from.text);
        d.set("s", from.single ? "S" : "");
        data m;
        m.set("one", true);
        m.set("bytes", scaledBytesText(b));
        m.set("tagged", false);
        d.set("message", fill("message", m));
        d.set("target", to);
        return fill("multicast", d);
      };
      const Desc root{rootText, true};
      switch (c.op) {
        case Op::Barrier: {
          data d;
          d.set("tasks", acting(all_, false).text);
          d.set("s", "");
          return {fill("synchronize", d)};
        }
        case Op::Bcast: return {mcast(root, allOther(), bytes)};
        case Op::Scatter:
          note("MPI_Scatter is a MULTICAST of one member's share from the root (MPI_Bcast): receivers get their "
               "bytes, the root sends less than a real scatter (§5.3).");
          return {mcast(root, allOther(), recvBytes)};
        case Op::Gather: return {mcast(acting(all_, false), rootText, bytes)};
        case Op::Alltoall:
        case Op::Allgather: return {mcast(acting(all_, false), allOther(), bytes)};
        case Op::Alltoallv: {
          // Counts that followed the data, spread evenly (gen/Program.h, evenVectors).
          auto it = c.evenVectors.find(Param::SendCounts);
          if (it == c.evenVectors.end()) scaleFreeRefusal(c, "an MPI_Alltoallv whose counts are no even split");
          note("MPI_Alltoallv whose counts followed the data is a many-to-many MULTICAST of their even split, the "
               "mean bytes per rank pair (MPI_Alltoall, §5.4).");
          return {mcast(acting(all_, false), allOther(), bytesText(&it->second, find("type")))};
        }
        case Op::Reduce:
        case Op::Allreduce: {
          const Expr* type = find("type");
          const std::int64_t size = type ? typeSize(*type) : 8;
          const Expr* n = find("count");
          std::string items = n ? (n->isConst() ? std::to_string(std::llround(n->value)) : intText(*n)) : "0";
          if (size != 4 && size != 8) {
            items = fmt::format("({}*{} + 7)/8", leftFactor(items), size);
            note("Reductions of types other than 4- and 8-byte numbers reduce the same number of bytes as DOUBLEWORDS.");
          }
          data d;
          d.set("tasks", acting(all_, false).text);
          d.set("s", "");
          d.set("count", scaledBytesText(items));
          d.set("doubles", size != 4);
          d.set("rooted", c.op == Op::Reduce);
          d.set("root", rootText);
          return {fill("reduce", d)};
        }
        default:
          scaleFreeRefusal(c, "this collective");
      }
    });
  }

  // The ASSERTs of a scale-free program: every extent at least 2 (the position classes are
  // then distinct), and every condition under which its formulas are whole.
  std::vector<std::string> scaleAsserts() {
    std::vector<std::string> out;
    if (p_.scaleFree->square && gridDims() > 1) {  // first: its formulas were fitted on such grids only
      data d;
      d.set("words", gridDims() == 2 ? "this benchmark needs a square grid (px = py: a square task count), as the traces'"
                                     : "this benchmark needs a cubic grid (px = py = pz: a cube task count), as the traces'");
      d.set("cond", gridDims() == 2 ? "px = py" : "px = py /\\ py = pz");
      out.push_back(fill("assert", d));
    }
    if (gridDims() > 1) {  // in 1-D the program's num_tasks >= 2 says it
      data d;
      d.set("words", "this benchmark needs every extent of the grid to be 2 or more");
      d.set("cond", gridDims() == 2 ? "px >= 2 /\\ py >= 2" : "px >= 2 /\\ py >= 2 /\\ pz >= 2");
      out.push_back(fill("assert", d));
    }
    for (const auto& [c, w] : scaleConditions_) {
      data a;
      a.set("words", "this benchmark needs " + w);
      a.set("cond", c);
      out.push_back(fill("assert", a));
    }
    return out;
  }

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

class NcptlBackend : public Backend {
 public:
  std::string_view name() const override { return "ncptl"; }
  std::string_view extension() const override { return ".ncptl"; }
  bool needsReceivedBytes() const override { return true; }
  // Every program is checked before it is handed out (grammar, static rules, generator
  // checklist, per-task simulation): a failure is a bug of this backend, not of the input.
  std::string render(const Program& program, const GenOptions& options) const override {
    // A message nobody receives is the trace's doing (check-communication warns about it), and
    // coNCePTuaL has no statement for it: an UNSUSPECTING send needs its RECEIVE (§4.7).
    if (program.unreceivedMessages > 0)
      throw std::invalid_argument(fmt::format(
          "{} message{} sent but never received ({}{}): coNCePTuaL cannot express a message that no task "
          "receives; write C instead (-o bench.c), which sends it as the application did",
          program.unreceivedMessages, program.unreceivedMessages == 1 ? " is" : "s are", program.firstUnreceived,
          program.unreceivedMessages == 1 ? "" : ", the first"));
    std::string text = Renderer(program, options).run();
    ncptl::CheckOptions co;
    co.generated = true;
    co.scaleFree = program.scaleFree.has_value();
    co.simulationBudget = options.checkBudget;
    const ncptl::CheckResult r = ncptl::check(text, co);
    if (!r.ok()) {
      std::string why;
      int shown = 0;
      for (const auto& d : r.diagnostics)
        if (d.severity == ncptl::Diagnostic::Severity::Error && shown++ < 5)
          why += ncptl::formatDiagnostic(options.outputName.empty() ? "<generated>" : options.outputName, text, d);
      // One statement per collective for all its members cannot keep collectives that the
      // members call at different events: said as what it is, not as a bug.
      if (program.partialCollectives > 0)
        throw InputError(program.source, program.firstPartialCollectiveLine, fmt::format(
            "coNCePTuaL cannot express this trace: {} collective event{} leave{} out members of {} communicator "
            "(align-collectives could not match {} call by call across ranks; the first: {}), and written as "
            "one program the collectives deadlock; write C instead (-o bench.c), where each rank calls them in "
            "its own order. The coNCePTuaL check:\n{}",
            program.partialCollectives, program.partialCollectives == 1 ? "" : "s",
            program.partialCollectives == 1 ? "s" : "", program.partialCollectives == 1 ? "its" : "their",
            program.partialCollectives == 1 ? "it" : "them", program.firstPartialCollective, why),
            {}, "align-collectives' warnings above name the calls it could not match");
      // Unmatched receives name the size they posted, and a RECEIVE must name the size of the
      // message it takes (§5.1): a trace too large to match is a limit of the input's size.
      if (!program.receivesMatched)
        throw std::invalid_argument(fmt::format(
            "the trace expands to more calls than --call-budget allows, so its receives could not be matched "
            "with their sends, and the sizes they posted do not make a valid coNCePTuaL program; raise "
            "--call-budget, or write C instead (-o bench.c), which posts the sizes the application posted. "
            "The coNCePTuaL check:\n{}",
            why));
      throw std::logic_error("the generated coNCePTuaL program fails its check:\n" + why);
    }
    return text;
  }
};

}  // namespace

std::unique_ptr<Backend> createNcptlBackend() { return std::make_unique<NcptlBackend>(); }

}  // namespace tracegen::gen
