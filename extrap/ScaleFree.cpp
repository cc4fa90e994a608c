// Scale-free benchmarks (extrap/ScaleFree.h has the algorithm).
#include "extrap/ScaleFree.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>

#include "extrap/BlockDistribution.h"
#include "extrap/topology/PeerRelation.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/Verify.h"
#include "passes/PassManager.h"

namespace tracegen::extrap {

namespace {

using gen::Expr;
using gen::Program;
using gen::ScaleFormula;
using gen::Stmt;

// Templates: enough scales for a two-parameter model with two to spare, so that a model
// fitted to them is the extrapolation's own.
constexpr std::size_t kTemplates = 5;
// Candidate grids tried at most, smallest first.
constexpr std::size_t kMaxCandidates = 400;
// The largest template of the power-of-two family (extrapolating to a template costs time per
// rank).
constexpr Rank kMaxPowerOfTwoRanks = 4096;
// A time model is taken where it is within this of the time at every template.
constexpr double kTemplateTimeTolerance = 0.10;

// Grids of `dims` dimensions with extents at least 3, pairwise different and none a multiple
// of another (no value of one extent coincides with a value of another), by size.
std::vector<Grid> candidateGrids(int dims, bool descending) {
  std::vector<Grid> out;
  auto apart = [](Rank a, Rank b) { return a != b && a % b != 0 && b % a != 0; };
  if (dims == 1)
    for (Rank p = 3; p <= 256; ++p) out.push_back(Grid{1, {p, 1, 1}});
  if (dims == 2)
    for (Rank a = 3; a <= 32; ++a)
      for (Rank b = a + 1; b <= 48; ++b)
        if (apart(a, b)) out.push_back(Grid{2, {a, b, 1}});
  if (dims == 3)
    for (Rank a = 3; a <= 12; ++a)
      for (Rank b = a + 1; b <= 16; ++b)
        for (Rank c = b + 1; c <= 20; ++c)
          if (apart(a, b) && apart(a, c) && apart(b, c)) out.push_back(Grid{3, {a, b, c}});
  std::stable_sort(out.begin(), out.end(), [](const Grid& x, const Grid& y) { return x.size() < y.size(); });
  if (out.size() > kMaxCandidates) out.resize(kMaxCandidates);
  if (descending)
    for (Grid& g : out) std::reverse(g.ext.begin(), g.ext.begin() + dims);
  return out;
}

// The default grids (the benchmark's own choice at that rank count) of the powers of two whose
// extents are all at least 3, by size: for codes whose models need extents that are powers of
// two (log2(px) steps of a row's recursive doubling, NPB CG's px = py or 2 * py), which no grid
// of candidateGrids() fits. Square grids make px and py coincide, but the non-square ones
// between them part every model in px from its rival in py, so a model that fits all is the
// extrapolation's own.
std::vector<Grid> powerOfTwoGrids(int dims, bool descending) {
  std::vector<Grid> out;
  for (Rank p = 2; p <= kMaxPowerOfTwoRanks; p *= 2) {
    const Grid g = defaultGrid(p, dims, descending);
    bool wide = true;
    for (int d = 0; d < dims; ++d) wide = wide && g.ext[static_cast<std::size_t>(d)] >= 3;
    if (wide) out.push_back(g);
  }
  return out;
}

// The grids whose extents are all equal (3x3, 4x4, ...; 3x3x3, ...), by size: for codes that run
// on square (cubic) process counts only, which every input's grid is. Such a code's models cannot
// tell px from py (nor from sqrt(P)), and no grid of the other families is one it runs on; the
// benchmark then runs on these grids only (ScaleFreeGrid::square), where those coincide.
std::vector<Grid> squareGrids(int dims) {
  std::vector<Grid> out;
  for (Rank n = 3; n <= (dims == 2 ? 64 : 16); ++n) out.push_back(Grid{dims, {n, n, dims == 3 ? n : 1}});
  return out;
}

// Whether every extent of the grid is the same.
bool equalExtents(const Grid& g) {
  for (int d = 1; d < g.dims; ++d)
    if (g.ext[static_cast<std::size_t>(d)] != g.ext[0]) return false;
  return true;
}

ScaleFormula::Var formulaVar(ScaleVar v) {
  switch (v) {
    case ScaleVar::P: return ScaleFormula::Var::P;
    case ScaleVar::Px: return ScaleFormula::Var::Px;
    case ScaleVar::Py: return ScaleFormula::Var::Py;
    case ScaleVar::Pz: return ScaleFormula::Var::Pz;
  }
  return ScaleFormula::Var::P;
}

// The default pipeline and the traversal, wildcard receives kept (ScaleFree.h, step 2).
Program lowerTemplate(Trace& trace, const std::string& name, double instructionRate) {
  std::vector<std::string> passes = defaultPipeline();
  {
    Trace checked = trace;
    PassContext checking;
    checking.fileName = name;
    checking.options.instructionRate = instructionRate;
    PassManager(passes).run(checked, checking);
  }
  std::erase(passes, std::string("resolve-wildcards"));
  std::erase(passes, std::string("check-communication"));
  PassContext ctx;
  ctx.fileName = name;
  ctx.options.instructionRate = instructionRate;
  PassManager(passes).run(trace, ctx);
  gen::requireModelled(trace, name);
  return gen::buildProgram(trace, name);
}

class Aligner {
 public:
  Aligner(std::vector<Program>& programs, const std::vector<Grid>& grids, int dims, bool descending, bool square,
          std::vector<BlockModel> blockModels, std::vector<ExtrapolateResult::DataCounts> dataCounts,
          ScaleFreeResult& res)
      : programs_(programs), grids_(grids), dims_(dims), descending_(descending), square_(square),
        blockModels_(std::move(blockModels)), dataCounts_(std::move(dataCounts)), res_(res) {
    for (int d = 0; d < dims; ++d) vars_.push_back(static_cast<ScaleVar>(d + 1));
    vars_.push_back(ScaleVar::P);
    if (dims == 1) vars_ = {ScaleVar::P};
    nc_ = classCount(dims);
    // A scale unlike the templates, where rival models would part.
    far_ = Grid{dims, {dims >= 1 ? 101 : 1, dims >= 2 ? 103 : 1, dims >= 3 ? 107 : 1}};
    if (dims == 1) far_.ext = {10007, 1, 1};
    if (square) {
      // On square templates px, py and pz are one number: every formula is written in px (or
      // the rank count, as the extrapolation's own models are), and rivals are told apart only
      // where the benchmark may run, on a square grid (there px^2 and P are no rivals).
      vars_ = {ScaleVar::Px, ScaleVar::P};
      far_.ext = {101, 101, dims == 3 ? 101 : 1};
    }
  }

  // What the program only approximates (evenVectors), a sentence each for its header.
  const std::vector<std::string>& approximations() const { return approximations_; }

  Program run() {
    Program out = programs_.front();
    out.numRanks = nc_;
    out.rankShapes.clear();
    out.maxMessageBytes = 0;
    gen::ScaleFreeGrid sf;
    sf.dims = dims_;
    sf.descending = descending_;
    sf.square = square_;
    out.scaleFree = sf;
    std::vector<const std::vector<Stmt>*> bodies;
    for (const auto& p : programs_) bodies.push_back(&p.body);
    out.body = body(bodies, "the program");
    if (programs_.front().memoryKb) {
      std::vector<const Expr*> xs;
      for (const auto& p : programs_) {
        if (!p.memoryKb) throw error("the footprint is recorded at some scales only");
        xs.push_back(&*p.memoryKb);
      }
      out.memoryKb = expr(xs, RankList::all(nc_), "footprint memory-kb");
    }
    return out;
  }

 private:
  InputError error(const std::string& message) const {
    return InputError(programs_.front().source, 0, "scale-free benchmark: " + message);
  }

  std::string at(std::size_t t) const { return fmt::format("P={} ({})", grids_[t].size(), grids_[t].str()); }

  // A rank set of template t as the set of position classes it holds.
  RankList classes(std::size_t t, const RankList& ranks, const std::string& where) const {
    std::vector<Rank> in;
    for (int c = 0; c < nc_; ++c) {
      const RankList cr = classRanks(grids_[t], c);
      if (cr.empty() || !cr.intersects(ranks)) continue;
      if (!cr.isSubsetOf(ranks))
        throw error(fmt::format("{}: its ranks {} at {} hold part of class {}, so they are no set of grid positions",
                                where, ranks.str(), at(t), className(dims_, c)));
      in.push_back(c);
    }
    return RankList::fromSorted(in);
  }

  RankList sameClasses(const std::vector<const RankList*>& sets, const std::string& where) const {
    RankList first = classes(0, *sets[0], where);
    for (std::size_t t = 1; t < sets.size(); ++t) {
      RankList c = classes(t, *sets[t], where);
      if (!(c == first))
        throw error(fmt::format("{}: it is executed by other grid positions at {} than at {}; the structure changes "
                                "with the scale in a way the position classes do not capture",
                                where, at(t), at(0)));
    }
    return first;
  }

  std::string label(const Stmt& s) const {
    if (s.kind == Stmt::Kind::Loop) return fmt::format("loop {}", s.loop.id);
    if (s.call.event) return fmt::format("event {} {}", s.call.event->id, opName(s.call.op));
    return std::string(opName(s.call.op));
  }

  std::vector<Stmt> body(const std::vector<const std::vector<Stmt>*>& bodies, const std::string& where) {
    for (std::size_t t = 1; t < bodies.size(); ++t)
      if (bodies[t]->size() != bodies[0]->size())
        throw error(fmt::format("{} has {} statements at {} and {} at {}: the structure changes with the scale in a way "
                                "the position classes do not capture",
                                where, bodies[t]->size(), at(t), bodies[0]->size(), at(0)));
    std::vector<Stmt> out;
    for (std::size_t k = 0; k < bodies[0]->size(); ++k) {
      std::vector<const Stmt*> ss;
      for (const auto* b : bodies) ss.push_back(&(*b)[k]);
      out.push_back(stmt(ss));
    }
    return out;
  }

  Stmt stmt(const std::vector<const Stmt*>& ss) {
    const Stmt& s0 = *ss[0];
    const std::string where = label(s0);
    for (const Stmt* s : ss)
      if (s->kind != s0.kind || label(*s) != where)
        throw error(fmt::format("{} at {} stands where {} is at {}: the structure changes with the scale", label(*s),
                                at(static_cast<std::size_t>(s - ss[0])), where, at(0)));
    std::vector<const RankList*> sets;
    for (const Stmt* s : ss) sets.push_back(&s->ranks);
    Stmt out = s0;
    out.ranks = sameClasses(sets, where);
    ++res_.stats["statements"];
    if (s0.kind == Stmt::Kind::Loop) {
      std::vector<const Expr*> its;
      std::vector<const std::vector<Stmt>*> bodies;
      for (const Stmt* s : ss) {
        if (s->loop.id != s0.loop.id) throw error(fmt::format("{}: loops are numbered differently at the templates", where));
        its.push_back(&s->loop.iterations);
        bodies.push_back(&s->loop.body);
      }
      out.loop.iterations = expr(its, out.ranks, where + " trip count");
      out.loop.body = body(bodies, where + "'s body");
      return out;
    }
    const gen::CallStmt& c0 = s0.call;
    out.call.executionIndex.reset();  // a function of trip counts that are formulas now
    for (const Stmt* s : ss) {
      const gen::CallStmt& c = s->call;
      if (c.params.size() != c0.params.size() || c.vectors.size() != c0.vectors.size() ||
          c.receivedBytes.has_value() != c0.receivedBytes.has_value())
        throw error(fmt::format("{} has other parameters at {} than at {}", where, at(static_cast<std::size_t>(s - ss[0])), at(0)));
    }
    {
      // Vectors whose length changes with the scale: one entry per rank.
      std::vector<Param> perRank;
      for (const auto& [p, v] : out.call.vectors)
        for (const Stmt* s : ss)
          if (auto it = s->call.vectors.find(p); it != s->call.vectors.end() && it->second.size() != v.size()) {
            perRank.push_back(p);
            break;
          }
      if (!perRank.empty()) evenVectors(ss, out.call, perRank, where);
    }
    for (auto& [p, e] : out.call.params) {
      std::vector<const Expr*> xs;
      for (const Stmt* s : ss) {
        auto it = s->call.params.find(p);
        if (it == s->call.params.end()) throw error(fmt::format("{} has {} at some scales only", where, paramName(p)));
        xs.push_back(&it->second);
      }
      e = expr(xs, out.ranks, fmt::format("{} {}", where, paramName(p)));
    }
    for (auto& [p, v] : out.call.vectors) {
      for (std::size_t i = 0; i < v.size(); ++i) {
        std::vector<const Expr*> xs;
        for (const Stmt* s : ss) {
          auto it = s->call.vectors.find(p);
          if (it == s->call.vectors.end() || it->second.size() != v.size())
            throw error(fmt::format("{}: {} has a length that changes with the scale (one entry per rank?); scale-free "
                                    "benchmarks cannot have it yet",
                                    where, paramName(p)));
          xs.push_back(&it->second[i]);
        }
        v[i] = expr(xs, out.ranks, fmt::format("{} {}[{}]", where, paramName(p), i));
      }
    }
    {
      // Drift over calls is not modelled across scales: each template's time by call is its mean.
      std::vector<Expr> means;
      for (const Stmt* s : ss) means.push_back(s->call.computeUs.withoutDrift());
      std::vector<const Expr*> xs;
      for (const Expr& m : means) xs.push_back(&m);
      out.call.computeUs = time(xs, out.ranks, where + " compute time");
    }
    if (c0.receivedBytes) {
      std::vector<const Expr*> xs;
      for (const Stmt* s : ss) xs.push_back(&*s->call.receivedBytes);
      out.call.receivedBytes = expr(xs, out.ranks, where + " received bytes");
    }
    return out;
  }

  // An MPI_Alltoallv whose counts follow the data (extrap/Extrapolate.h, DataCounts): at every
  // template its counts are one value per pair, the extrapolation's model of the mean total per
  // rank divided by the rank count and rounded, and its displacements are packed. The program
  // keeps that quotient as one formula, total(P) / P, which the benchmark computes at the scale
  // it runs at (gen/Program.h, evenVectors): a model of one term (c/P: every rank the same share
  // of a fixed total; c: a fixed share per rank) divides into one term again.
  void evenVectors(const std::vector<const Stmt*>& ss, gen::CallStmt& out, const std::vector<Param>& ps,
                   const std::string& where) {
    const gen::CallStmt& c0 = ss[0]->call;
    const ExtrapolateResult::DataCounts* dc = nullptr;
    for (const auto& d : dataCounts_)
      if (c0.event && d.event == c0.event->id) dc = &d;
    if (!dc)
      throw error(fmt::format("{}: {} has a length that changes with the scale (one entry per rank), and its values are no "
                              "even split of counts that follow the data; a scale-free benchmark cannot have it: give the "
                              "target rank count (--ranks P)",
                              where, paramName(ps.front())));
    if (!dc->total)
      throw error(fmt::format("{}: its counts follow the data, and the mean total per rank fits no exact model ({}); a "
                              "scale-free benchmark computes the split from one: give the target rank count (--ranks P)",
                              where, dc->model));
    const ExactModel& m = *dc->total;
    ExactModel pair;  // total / P
    pair.term.var = ScaleVar::P;
    if (m.c1.num == 0 || m.term.isOne()) {
      const std::optional<Rational> c = m.term.isOne() ? add(m.c0, m.c1) : m.c0;
      if (!c) throw error(fmt::format("{}: the mean total per rank {} is out of range", where, dc->model));
      pair.c1 = *c;
      pair.term.num = -1;
    } else if (m.c0.num == 0 && m.term.var == ScaleVar::P) {
      pair.c1 = m.c1;
      pair.term = m.term;
      pair.term.num -= pair.term.den;
    } else {
      throw error(fmt::format("{}: its counts follow the data, and the mean total per rank {} divided by the rank count "
                              "is no formula of one term; give the target rank count (--ranks P)",
                              where, dc->model));
    }
    // Every template's counts are the model's split there (rounded), its displacements packed.
    std::string seen;
    for (std::size_t t = 0; t < ss.size(); ++t) {
      const std::optional<Rational> want = pair.at(grids_[t].scale());
      std::optional<double> got;
      for (Param p : ps) {
        const auto it = ss[t]->call.vectors.find(p);
        const bool displs = p == Param::Displs || p == Param::RecvDispls;
        if (p != Param::SendCounts && p != Param::RecvCounts && !displs)
          throw error(fmt::format("{}: {} has a length that changes with the scale; a scale-free benchmark cannot have it",
                                  where, paramName(p)));
        if (it == ss[t]->call.vectors.end() || static_cast<Rank>(it->second.size()) != grids_[t].size())
          throw error(fmt::format("{}: {} has not one entry per rank at {}", where, paramName(p), at(t)));
        if (displs) continue;
        for (const Expr& e : it->second) {
          if (!e.isConst() || (got && e.value != *got))
            throw error(fmt::format("{}: {} differs between the pairs at {}, where the counts that follow the data are "
                                    "one even split",
                                    where, paramName(p), at(t)));
          got = e.value;
        }
      }
      for (Param p : ps) {
        if (p != Param::Displs && p != Param::RecvDispls) continue;
        const std::vector<Expr>& d = ss[t]->call.vectors.at(p);
        for (std::size_t k = 0; k < d.size(); ++k)
          if (!got || !d[k].isConst() || d[k].value != static_cast<double>(k) * *got)
            throw error(fmt::format("{}: {} at {} do not lay the blocks out one after another", where, paramName(p), at(t)));
      }
      if (!want || !got ||
          std::abs(static_cast<double>(want->num) / static_cast<double>(want->den) - *got) > 0.5 + 1e-9)
        throw error(fmt::format("{}: its count per pair at {} is {}, not the mean total per rank {} over the rank count",
                                where, at(t), got ? fmt::format("{:g}", *got) : "none", dc->model));
      seen += fmt::format("{}{:g} at {}", seen.empty() ? "" : ", ", *got, at(t));
    }
    ScaleFormula f;
    f.var = ScaleFormula::Var::P;
    f.num = pair.term.num, f.den = pair.term.den, f.logPower = pair.term.logPower;
    f.c1num = pair.c1.num, f.c1den = pair.c1.den;
    for (Param p : ps) {
      out.vectors.erase(p);
      if (p == Param::SendCounts || p == Param::RecvCounts) out.evenVectors[p] = Expr::scaled(f);
    }
    explain(fmt::format("{} counts per pair (they follow the data; approximate): {} -> {} (the mean total per rank {} "
                        "over the rank count)",
                        where, seen, pair.str(), dc->model));
    approximations_.push_back(fmt::format(
        "Approximate: event {} {}'s counts follow the application's data (every pair of ranks differs); every pair "
        "moves an even share of the mean total per rank {}, {} elements at P ranks, where the recorded ranks' totals "
        "spread up to {:.2g}% from their mean.",
        c0.event->id, opName(c0.op), dc->model, pair.str(), 100 * dc->spread));
    ++res_.stats["even splits of counts that follow the data"];
  }

  // A time over the templates. Times are measurements, fitted by least squares in the
  // extrapolation and combined by the lowering (a mean over predecessors whose counts grow with
  // the scale), so they need not follow one model exactly, and where ranks' times agree within
  // the timing tolerance at one template and not at another their choices by rank differ. So:
  // a time is fitted per position class where the forms differ, and the best model is taken
  // where none reproduces the templates (within kTemplateTimeTolerance at every template; else their
  // mean), as --explain says.
  Expr time(const std::vector<const Expr*>& xs, const RankList& classesHere, const std::string& what) {
    timeMode_ = true;
    struct Reset {
      bool& flag;
      ~Reset() { flag = false; }
    } reset{timeMode_};
    bool same = true;
    for (const Expr* x : xs) same = same && sameShape(*x, *xs[0]);
    if (same) return expr(xs, classesHere, what);
    // Per class: the expression its first rank takes at each template.
    std::vector<std::pair<RankList, Expr>> perClass;
    for (int c = 0; c < nc_; ++c) {
      if (!classesHere.contains(c)) continue;
      std::vector<Expr> picked;
      for (std::size_t t = 0; t < xs.size(); ++t) picked.push_back(pick(*xs[t], classFirst(grids_[t], c)));
      bool sameHere = true;
      for (const Expr& p : picked) sameHere = sameHere && sameShape(p, picked[0]);
      if (!sameHere)
        for (Expr& p : picked) p = Expr::constant(collapsed(p));
      std::vector<const Expr*> ptrs;
      for (const Expr& p : picked) ptrs.push_back(&p);
      Expr v = expr(ptrs, RankList::single(c), fmt::format("{} (class {})", what, className(dims_, c)));
      auto it = std::find_if(perClass.begin(), perClass.end(), [&](const auto& g) { return g.second == v; });
      if (it == perClass.end()) perClass.push_back({RankList::single(c), std::move(v)});
      else it->first = RankList::unite(it->first, RankList::single(c));
    }
    ++res_.stats["times fitted per class"];
    if (perClass.size() == 1) return perClass.front().second;
    std::vector<RankList> groups;
    std::vector<Expr> children;
    for (auto& [g, e] : perClass) groups.push_back(g), children.push_back(std::move(e));
    return Expr::byRank(std::move(groups), std::move(children));
  }

  // The same kinds, loops, group counts and cycle lengths all the way down.
  static bool sameShape(const Expr& a, const Expr& b) {
    if (a.kind != b.kind || a.loop != b.loop || a.groups.size() != b.groups.size() || a.children.size() != b.children.size())
      return false;
    for (std::size_t k = 0; k < a.children.size(); ++k)
      if (!sameShape(a.children[k], b.children[k])) return false;
    return true;
  }

  // The expression a rank takes: choices by rank resolved.
  static Expr pick(const Expr& e, Rank r) {
    if (e.kind == Expr::Kind::ByRank) {
      for (std::size_t k = 0; k < e.groups.size(); ++k)
        if (e.groups[k].contains(r)) return pick(e.children[k], r);
      return Expr::constant(0);
    }
    Expr out = e;
    for (auto& c : out.children) c = pick(c, r);
    return out;
  }

  // One number for a time whose shape differs between templates: the time of the iterations
  // after the first, the mean of a cycle.
  static double collapsed(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Const: return e.value;
      case Expr::Kind::FirstIteration: return collapsed(e.children[1]);
      case Expr::Kind::ByExecution: {
        double sum = 0;
        for (const auto& c : e.children) sum += collapsed(c);
        return e.children.empty() ? 0 : sum / static_cast<double>(e.children.size());
      }
      default: return e.children.empty() ? e.value : collapsed(e.children[0]);
    }
  }

  static bool sameForm(const Expr& a, const Expr& b) {
    return a.kind == b.kind && a.loop == b.loop && a.groups.size() == b.groups.size() &&
           (a.kind == Expr::Kind::ByExecution || a.children.size() == b.children.size());
  }

  // A fixed-scale program's list of values with one stride is a progression of constants
  // (gen/Traversal.cpp, listExpr); across scales it is the cycle it stands for, whose length and
  // values progression() below fits.

  // One expression over the templates, for the classes `where` executes it.
  Expr expr(const std::vector<const Expr*>& xs, const RankList& classesHere, const std::string& what) {
    if (std::any_of(xs.begin(), xs.end(), [](const Expr* x) { return x->constantProgression(); })) {
      std::vector<Expr> cycles;
      for (const Expr* x : xs) cycles.push_back(x->constantProgression() ? x->progressionCycle() : *x);
      std::vector<const Expr*> ys;
      for (const Expr& c : cycles) ys.push_back(&c);
      return expr(ys, classesHere, what);
    }
    const Expr& e0 = *xs[0];
    bool choices = true;  // by rank at every template: a colour may have a group per row
    for (const Expr* x : xs) choices = choices && x->kind == Expr::Kind::ByRank;
    if (choices && !classUnions(xs)) {
      if (auto r = relation(xs, classesHere, what)) return *r;
      if (auto b = perRank(xs, classesHere, what)) return *b;
      return coordinate(xs, what);
    }
    bool sameForms = true;
    for (std::size_t t = 1; t < xs.size(); ++t) sameForms = sameForms && sameForm(*xs[t], e0);
    if (!sameForms)
      if (auto b = perRank(xs, classesHere, what)) return *b;
    for (std::size_t t = 1; t < xs.size(); ++t)
      if (!sameForm(*xs[t], e0))
        throw error(fmt::format("{} takes another form at {} than at {} (a choice by rank or by execution where the "
                                "other has none): the structure changes with the scale",
                                what, at(t), at(0)));
    switch (e0.kind) {
      case Expr::Kind::Const: return constant(xs, what);
      case Expr::Kind::RankOffset: return peer(xs, classesHere, what);
      case Expr::Kind::ByRank: {
        Expr out = e0;
        for (std::size_t g = 0; g < e0.groups.size(); ++g) {
          std::vector<const RankList*> sets;
          std::vector<const Expr*> cs;
          for (const Expr* x : xs) sets.push_back(&x->groups[g]), cs.push_back(&x->children[g]);
          out.groups[g] = sameClasses(sets, what);
          out.children[g] = expr(cs, out.groups[g], what);
        }
        return out;
      }
      case Expr::Kind::ByExecution: {
        bool sameLength = true;
        for (const Expr* x : xs) sameLength = sameLength && x->children.size() == e0.children.size();
        if (!sameLength) return progression(xs, what);
        Expr out = e0;
        for (std::size_t k = 0; k < e0.children.size(); ++k) {
          std::vector<const Expr*> cs;
          for (const Expr* x : xs) cs.push_back(&x->children[k]);
          out.children[k] = expr(cs, classesHere, what);
        }
        return out;
      }
      case Expr::Kind::FirstIteration: {
        Expr out = e0;
        for (std::size_t k = 0; k < 2; ++k) {
          std::vector<const Expr*> cs;
          for (const Expr* x : xs) cs.push_back(&x->children[k]);
          out.children[k] = expr(cs, classesHere, what);
        }
        return out;
      }
      default: throw std::logic_error("ScaleFree: a template program with a scale-free expression");
    }
  }

  // Whether every group of a choice by rank is a set of position classes at every template.
  bool classUnions(const std::vector<const Expr*>& xs) const {
    for (std::size_t t = 0; t < xs.size(); ++t)
      for (const RankList& g : xs[t]->groups)
        for (int c = 0; c < nc_; ++c) {
          const RankList cr = classRanks(grids_[t], c);
          if (!cr.empty() && cr.intersects(g) && !cr.isSubsetOf(g)) return false;
        }
    return true;
  }

  // Whether every value of the expression is a peer relative to the rank.
  static bool peersOnly(const Expr& e) {
    if (e.kind == Expr::Kind::RankOffset) return true;
    if (e.kind != Expr::Kind::ByRank && e.kind != Expr::Kind::ByExecution) return false;
    return !e.children.empty() && std::all_of(e.children.begin(), e.children.end(), peersOnly);
  }

  // A peer whose choices by rank cut across the position classes: each rank has a peer of its
  // own, which a relation (gen/GridRelation.h, the extrapolation's own: extrap/topology/
  // PeerRelation.h) may give. A relation is taken if it gives every rank of the classes that
  // execute the statement its peer at every execution (over a whole cycle of the program's
  // values and of the relation's steps) at every template; the templates are small enough to
  // visit every rank. Two relations that both fit would be a coincidence of these scales: an
  // error.
  std::optional<Expr> relation(const std::vector<const Expr*>& xs, const RankList& classesHere, const std::string& what) {
    for (const Expr* x : xs) {
      std::vector<int> loops;
      x->firstIterationLoops(loops);
      if (!peersOnly(*x) || !loops.empty()) return std::nullopt;
    }
    std::vector<gen::GridRelation> fits;
    for (const auto& rel : peerRelations()) {
      const gen::GridRelation kind = rel->kind();
      bool ok = true;
      for (std::size_t t = 0; ok && t < xs.size(); ++t) {
        const Grid& g = grids_[t];
        const std::int64_t steps = gen::relationSteps(kind, g.dims, g.ext);
        if (steps == 0) {
          ok = false;
          break;
        }
        const std::int64_t period = std::lcm(xs[t]->executionPeriod(), steps);
        for (int c = 0; ok && c < nc_; ++c) {
          if (!classesHere.contains(c)) continue;
          classRanks(g, c).forEach([&](Rank r) {
            for (std::int64_t k = 0; ok && k < period; ++k)
              ok = static_cast<Rank>(xs[t]->eval(r, g.size(), k, {})) == gen::relationPeer(kind, g.dims, g.ext, r, k % steps);
            return ok;
          });
        }
      }
      if (ok) fits.push_back(kind);
    }
    if (fits.empty()) return std::nullopt;
    if (fits.size() > 1)
      throw error(fmt::format("{}: both {} and {} give its peers at the template scales", what,
                              gen::relationName(fits[0]), gen::relationName(fits[1])));
    ++res_.stats["relation peers"];
    explain(fmt::format("{}: {}", what, gen::relationName(fits.front())));
    return Expr::relationPeer(fits.front());
  }

  // Whether an expression holds numbers only (no peers, no formulas): what eval() gives a value
  // for a rank and an execution.
  static bool numbersOnly(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Const: return true;
      case Expr::Kind::Progression: return e.constantProgression();
      case Expr::Kind::ByRank:
      case Expr::Kind::ByExecution:
      case Expr::Kind::FirstIteration:
        return std::all_of(e.children.begin(), e.children.end(), numbersOnly);
      default: return false;
    }
  }
  static void leaves(Expr& e, std::vector<Expr*>& out) {
    if (e.children.empty()) out.push_back(&e);
    for (auto& c : e.children) leaves(c, out);
  }
  // A cycle or first-iteration choice whose values are all equal is that value.
  static void collapse(Expr& e) {
    for (auto& c : e.children) collapse(c);
    if ((e.kind == Expr::Kind::ByExecution || e.kind == Expr::Kind::FirstIteration) && !e.children.empty() &&
        std::all_of(e.children.begin(), e.children.end(), [&](const Expr& c) { return c == e.children.front(); })) {
      Expr only = e.children.front();
      e = std::move(only);
    }
  }

  // Values that differ between the ranks of one position class: a count of a block of points
  // (extrap/BlockDistribution.h), a + b * block(N, p_d, c_d) of the rank's coordinate, which
  // splits a class into two groups of ranks at one scale and none at another (where p_d divides
  // N), so that the templates' expressions differ in form. Per class, each rank's values are
  // taken as one cycle over executions (its length the longest any rank of the class has at any
  // template, every other a divisor of it), under a first-iteration choice where one loop's first
  // iteration differs; each position of it (a leaf) is then fitted over every rank of every
  // template: one block model where its values differ within a template; where they do not, the
  // block model a pool holds that reproduces them (below), else a formula of the scale
  // (constant()), else a block model of their own. A leaf that several block models fit (a class
  // of one coordinate says little about N) takes the one fitted at another leaf of the
  // statement, else the extrapolation's own (blockModels_), that reproduces it (several: on
  // square grids, any if they agree on the class wherever defined). The classes that end with
  // equal expressions are grouped. Empty where the values are no numbers or no model fits, so
  // that the caller's error (or coordinate()) has its say.
  std::optional<Expr> perRank(const std::vector<const Expr*>& xs, const RankList& classesHere, const std::string& what) {
    struct Leaf {
      int cls = 0;
      std::vector<BlockObservation> obs;
      std::vector<std::vector<std::int64_t>> perTemplate;  // the values at each template
      bool varies = false;                                 // within some template
    };
    // Times are measurements (time()), whose per-rank differences are no points of a block.
    if (timeMode_) return std::nullopt;
    std::vector<int> loops;
    for (const Expr* x : xs) {
      if (!numbersOnly(*x)) return std::nullopt;
      x->firstIterationLoops(loops);
    }
    if (loops.size() > 1) return std::nullopt;
    std::vector<std::pair<int, Expr>> skeletons;
    std::vector<Leaf> all;
    for (int c = 0; c < nc_; ++c) {
      if (!classesHere.contains(c)) continue;
      std::int64_t period = 1;
      for (std::size_t t = 0; t < xs.size(); ++t)
        classRanks(grids_[t], c).forEach([&](Rank r) {
          period = std::max(period, pick(*xs[t], r).executionPeriod());
          return true;
        });
      if (period > 64) return std::nullopt;
      // The skeleton: [first iteration: cycle, later: cycle] or the cycle alone.
      auto cycle = [&]() {
        std::vector<Expr> v(static_cast<std::size_t>(period), Expr::constant(0));
        return period == 1 ? Expr::constant(0) : Expr::byExecution(std::move(v));
      };
      Expr skeleton = loops.empty() ? cycle() : Expr::firstIteration(loops.front(), cycle(), cycle());
      const std::size_t firstLeaf = all.size();
      const std::size_t choices = loops.empty() ? 1 : 2;
      for (std::size_t i = 0; i < choices * static_cast<std::size_t>(period); ++i)
        all.push_back(Leaf{c, {}, std::vector<std::vector<std::int64_t>>(xs.size()), false});
      for (std::size_t t = 0; t < xs.size(); ++t) {
        const Grid& g = grids_[t];
        bool ok = true;
        classRanks(g, c).forEach([&](Rank r) {
          ok = period % pick(*xs[t], r).executionPeriod() == 0;
          for (std::size_t ch = 0; ok && ch < choices; ++ch)
            for (std::int64_t k = 0; ok && k < period; ++k) {
              std::map<int, bool> first;
              if (!loops.empty()) first[loops.front()] = ch == 0;
              const double v = xs[t]->eval(r, g.size(), k, first);
              ok = v == std::floor(v) && std::fabs(v) < 9e15;
              if (!ok) break;
              const auto value = static_cast<std::int64_t>(v);
              Leaf& leaf = all[firstLeaf + ch * static_cast<std::size_t>(period) + static_cast<std::size_t>(k)];
              leaf.obs.push_back(BlockObservation{g.ext, g.coords(r), value});
              auto& here = leaf.perTemplate[t];
              if (!here.empty() && here.front() != value) leaf.varies = true;
              here.push_back(value);
            }
          return ok;
        });
        if (!ok) return std::nullopt;
      }
      skeletons.emplace_back(c, std::move(skeleton));
    }
    // Block models where values differ within a template, those that one model alone fits first.
    auto term = [](const BlockModel& m) { return gen::BlockTerm{m.dim, m.points, m.a, m.b}; };
    std::vector<BlockModel> decided;
    std::vector<std::optional<Expr>> fitted(all.size());
    std::vector<BlockFit> fits(all.size());
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (!all[k].varies) continue;
      fits[k] = fitBlock(all[k].obs, dims_);
      // No block: a coordinate (a split's colour, coordinate()) or the caller's error.
      if (fits[k].models.empty()) return std::nullopt;
      if (fits[k].models.size() == 1 && !fits[k].truncated) {
        fitted[k] = Expr::blockOf(term(fits[k].models.front()));
        if (std::find(decided.begin(), decided.end(), fits[k].models.front()) == decided.end())
          decided.push_back(fits[k].models.front());
      }
    }
    auto reproduces = [](const BlockModel& m, const Leaf& leaf) {
      return std::all_of(leaf.obs.begin(), leaf.obs.end(), [&](const BlockObservation& o) { return m.at(o.ext, o.coord) == o.value; });
    };
    // Of several models that reproduce a leaf: on square grids, the one of least N if every one
    // gives every rank of the class the same value at every square grid it is defined on (x and
    // y coincide at a corner, and the benchmark runs on square grids only).
    auto agreeing = [&](const Leaf& leaf, const std::vector<BlockModel>& rivals) -> std::optional<BlockModel> {
      if (rivals.size() == 1) return rivals.front();
      if (!square_ || rivals.empty()) return std::nullopt;
      const BlockModel& least = *std::min_element(rivals.begin(), rivals.end(),
                                                  [](const BlockModel& x, const BlockModel& y) { return x.points < y.points; });
      for (std::int64_t n = 3; n <= std::min<std::int64_t>(least.points, 4096); ++n) {
        const Grid g{dims_, {n, dims_ >= 2 ? n : 1, dims_ == 3 ? n : 1}};
        const auto lo = g.coords(classFirst(g, leaf.cls)), hi = g.coords(classLast(g, leaf.cls));
        for (const BlockModel& m : rivals)
          if (!agreeOn(least, m, g.ext, lo, hi)) return std::nullopt;
      }
      return least;
    };
    // The models fitted at the statement's other leaves that reproduce a leaf, else those of the
    // extrapolation itself: the model the value follows, where the templates alone leave several
    // (a corner's ceil(N/p) at five scales), or where a formula of the scale reproduces them by
    // chance (floor(20/q) at q = 3 .. 7 is 9 - q).
    auto fromPools = [&](const Leaf& leaf) -> std::optional<BlockModel> {
      std::vector<BlockModel> fit;
      for (const std::vector<BlockModel>* pool : {&decided, &blockModels_}) {
        for (const BlockModel& m : *pool)
          if (reproduces(m, leaf) && std::find(fit.begin(), fit.end(), m) == fit.end()) fit.push_back(m);
        if (!fit.empty()) break;
      }
      return agreeing(leaf, fit);
    };
    auto resolve = [&](const Leaf& leaf, const BlockFit& f) -> std::optional<BlockModel> {
      if (f.models.empty()) return std::nullopt;
      if (f.models.size() == 1 && !f.truncated) return f.models.front();
      if (auto m = fromPools(leaf)) return m;
      if (f.truncated) return std::nullopt;
      return agreeing(leaf, f.models);
    };
    for (std::size_t k = 0; k < all.size(); ++k) {
      if (fitted[k]) continue;
      const Leaf& leaf = all[k];
      const std::string where = fmt::format("{} (class {})", what, className(dims_, leaf.cls));
      if (leaf.varies) {
        const auto m = resolve(leaf, fits[k]);
        if (!m)
          throw error(fmt::format("{}: the template scales do not decide between {} and {}{}", where,
                                  fits[k].models[0].str(dims_), fits[k].models[1].str(dims_),
                                  fits[k].truncated || fits[k].models.size() > 2 ? " and more" : ""));
        fitted[k] = Expr::blockOf(term(*m));
        continue;
      }
      // One value per template: the block model of the pools that reproduces it (the count of a
      // corner rank, ceil(N/p)), else a formula of the scale, else a block model of its own; else
      // the caller's error. A value the same at every template is a constant.
      const bool constantHere = std::all_of(leaf.perTemplate.begin(), leaf.perTemplate.end(),
                                            [&](const auto& v) { return v.front() == leaf.perTemplate.front().front(); });
      if (!constantHere)
        if (auto m = fromPools(leaf)) {
          fitted[k] = Expr::blockOf(term(*m));
          continue;
        }
      std::vector<Expr> values;
      for (const auto& v : leaf.perTemplate) values.push_back(Expr::constant(static_cast<double>(v.front())));
      std::vector<const Expr*> ptrs;
      for (const Expr& v : values) ptrs.push_back(&v);
      try {
        fitted[k] = constant(ptrs, where);
      } catch (const InputError&) {
        const auto m = resolve(leaf, fitBlock(leaf.obs, dims_));
        if (!m || m->b == 0) return std::nullopt;
        fitted[k] = Expr::blockOf(term(*m));
      }
    }
    // The classes' expressions, grouped where equal.
    std::vector<std::pair<RankList, Expr>> groups;
    std::size_t k = 0;
    for (auto& [c, skeleton] : skeletons) {
      std::vector<Expr*> ls;
      leaves(skeleton, ls);
      for (Expr* l : ls) {
        if (fitted[k]->kind == Expr::Kind::Block) {
          ++res_.stats["block distributions"];
          const auto& b = fitted[k]->block;
          explain(fmt::format("{} (class {}): {}", what, className(dims_, c), BlockModel{b.dim, b.points, b.a, b.b}.str(dims_)));
        }
        *l = *fitted[k++];
      }
      collapse(skeleton);
      const Expr& shape = skeleton;  // clang 14 cannot capture a structured binding
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.second == shape; });
      if (it == groups.end()) groups.push_back({RankList::single(c), std::move(skeleton)});
      else it->first = RankList::unite(it->first, RankList::single(c));
    }
    if (groups.size() == 1) return groups.front().second;
    std::vector<RankList> sets;
    std::vector<Expr> children;
    for (auto& [g, e] : groups) sets.push_back(g), children.push_back(std::move(e));
    return Expr::byRank(std::move(sets), std::move(children));
  }

  // A choice by rank whose groups cut across the position classes: a colour of a split by row,
  // column or plane, c = a + b * coordinate. Per template, a and b come from the ranks at the
  // origin and one step along each dimension and are checked on every rank of the template
  // (templates are small); then each is fitted over the templates like any value.
  Expr coordinate(const std::vector<const Expr*>& xs, const std::string& what) {
    std::vector<Expr> as;
    std::array<std::vector<Expr>, 3> bs;
    for (std::size_t t = 0; t < xs.size(); ++t) {
      const Expr& e = *xs[t];
      const Grid& g = grids_[t];
      auto valueOf = [&](Rank r) -> std::optional<double> {
        for (std::size_t k = 0; k < e.groups.size(); ++k)
          if (e.groups[k].contains(r))
            return e.children[k].kind == Expr::Kind::Const ? std::optional<double>(e.children[k].value) : std::nullopt;
        return std::nullopt;
      };
      const auto a = valueOf(0);
      if (!a)
        throw error(fmt::format("{}: its values at {} follow neither the grid's position classes nor a coordinate",
                                what, at(t)));
      std::array<double, 3> b{0, 0, 0};
      Rank stride = 1;
      for (int d = 0; d < dims_; ++d) {
        const auto v = valueOf(stride);
        if (!v) throw error(fmt::format("{}: no value for rank {} at {}", what, stride, at(t)));
        b[static_cast<std::size_t>(d)] = *v - *a;
        stride *= g.ext[static_cast<std::size_t>(d)];
      }
      for (std::size_t k = 0; k < e.groups.size(); ++k)
        e.groups[k].forEach([&](Rank r) {
          const auto c = g.coords(r);
          const double want = *a + b[0] * static_cast<double>(c[0]) + b[1] * static_cast<double>(c[1]) +
                              b[2] * static_cast<double>(c[2]);
          if (e.children[k].kind != Expr::Kind::Const || e.children[k].value != want)
            throw error(fmt::format("{}: rank {} at {} has a value that is no function of its grid position class "
                                    "or of one of its coordinates",
                                    what, r, at(t)));
          return true;
        });
      as.push_back(Expr::constant(*a));
      for (std::size_t d = 0; d < 3; ++d) bs[d].push_back(Expr::constant(b[d]));
    }
    auto fit = [&](const std::vector<Expr>& v, const std::string& part) {
      std::vector<const Expr*> p;
      for (const auto& e : v) p.push_back(&e);
      return constant(p, what + " (" + part + ")");
    };
    const Expr a = fit(as, "at the origin");
    if (a.kind != Expr::Kind::Const) throw error(fmt::format("{}: its value at the grid's origin changes with the scale", what));
    std::optional<std::pair<int, double>> along;
    for (int d = 0; d < dims_; ++d) {
      const Expr b = fit(bs[static_cast<std::size_t>(d)], fmt::format("step along dimension {}", d + 1));
      if (b.kind != Expr::Kind::Const)
        throw error(fmt::format("{}: its step along dimension {} changes with the scale", what, d + 1));
      if (b.value == 0) continue;
      if (along) throw error(fmt::format("{}: a function of two grid coordinates is not supported yet", what));
      along = std::pair{d, b.value};
    }
    if (!along) return a;
    gen::ScaleFormula f;
    f.var = along->first == 0 ? ScaleFormula::Var::X : along->first == 1 ? ScaleFormula::Var::Y : ScaleFormula::Var::Z;
    f.num = 1;
    f.c0num = static_cast<std::int64_t>(a.value);
    f.c1num = static_cast<std::int64_t>(along->second);
    ++res_.stats["coordinate formulas"];
    explain(fmt::format("{}: {} + {} * {}", what, f.c0num, f.c1num, "xyz"[along->first]));
    return Expr::scaled(f);
  }

  Expr constant(const std::vector<const Expr*>& xs, const std::string& what) {
    bool same = true, integers = true;
    for (const Expr* x : xs) {
      same = same && x->value == xs[0]->value;
      integers = integers && std::isfinite(x->value) && x->value == std::floor(x->value) && std::fabs(x->value) < 9e15;
    }
    if (same) return *xs[0];
    std::string seen;
    for (std::size_t t = 0; t < xs.size(); ++t) seen += fmt::format("{}{:.6g} at {}", seen.empty() ? "" : ", ", xs[t]->value, at(t));
    if (integers) {
      std::vector<Observation<std::int64_t>> obs;
      for (std::size_t t = 0; t < xs.size(); ++t) obs.push_back({grids_[t].scale(), static_cast<std::int64_t>(xs[t]->value)});
      const ExactFit f = fitExact(obs, vars_, far_.scale());
      if (!f.model)
        throw error(fmt::format("{}: no model fits its values ({}); tried {}", what, seen, fmt::join(f.tried, ", ")));
      if (!f.rivals.empty())
        throw error(fmt::format("{}: {} and {} both fit its values ({})", what, f.model->str(), f.rivals.front().str(), seen));
      ScaleFormula sf;
      sf.var = formulaVar(f.model->term.var);
      sf.num = f.model->term.num;
      sf.den = f.model->term.den;
      sf.logPower = f.model->term.logPower;
      sf.c0num = f.model->c0.num, sf.c0den = f.model->c0.den;
      sf.c1num = f.model->c1.num, sf.c1den = f.model->c1.den;
      if (sf.c0den != 1)
        throw error(fmt::format("{}: its model {} has a fractional constant term, which the benchmark cannot compute "
                                "exactly",
                                what, f.model->str()));
      explain(fmt::format("{}: {} -> {}", what, seen, f.model->str()));
      ++res_.stats["integer formulas"];
      return Expr::scaled(sf);
    }
    std::vector<Observation<double>> obs;
    for (std::size_t t = 0; t < xs.size(); ++t) obs.push_back({grids_[t].scale(), xs[t]->value});
    const RealFit f = fitReal(obs, vars_, timeMode_ ? kTimeFit : RealFitOptions{});
    std::optional<RealModel> exact;
    for (const auto& [m, err] : f.ranked) {
      bool ok = true;
      for (const auto& o : obs) ok = ok && std::fabs(m.at(o.scale) - o.value) <= 1e-6 * std::max(1.0, std::fabs(o.value));
      if (ok) {
        exact = m;
        break;
      }
    }
    if (!exact && timeMode_) {
      // The best model if it stays within kTemplateTimeTolerance of every template, else the mean.
      for (const auto& [m, err] : f.ranked) {
        bool ok = true;
        for (const auto& o : obs)
          ok = ok && std::isfinite(m.at(o.scale)) && m.at(o.scale) >= 0 &&
               std::fabs(m.at(o.scale) - o.value) <= kTemplateTimeTolerance * std::max(1e-3, std::fabs(o.value));
        if (ok) {
          exact = m;
          break;
        }
      }
      if (!exact) {
        double sum = 0;
        for (const auto& o : obs) sum += o.value;
        explain(fmt::format("{}: {} -> their mean {:.6g} (no model within {:.0f}%)", what, seen,
                            sum / static_cast<double>(obs.size()), 100 * kTemplateTimeTolerance));
        ++res_.stats["times as the templates' mean"];
        return Expr::constant(sum / static_cast<double>(obs.size()));
      }
      ++res_.stats["times approximated by a model"];
    }
    if (!exact) throw error(fmt::format("{}: no model reproduces its values ({})", what, seen));
    ScaleFormula sf;
    sf.integer = false;
    sf.var = formulaVar(exact->term.var);
    sf.num = exact->term.num;
    sf.den = exact->term.den;
    sf.logPower = exact->term.logPower;
    sf.c0 = exact->c0;
    sf.c1 = exact->c1;
    explain(fmt::format("{}: {} -> {}", what, seen, exact->str()));
    ++res_.stats["time formulas"];
    return Expr::scaled(sf);
  }

  // A peer relative to the rank as a grid step: the same at every template and for the first
  // and last rank of every class that executes it.
  Expr peer(const std::vector<const Expr*>& xs, const RankList& classesHere, const std::string& what) {
    std::optional<gen::GridStep> found;
    for (std::size_t t = 0; t < xs.size(); ++t) {
      const Grid& g = grids_[t];
      for (int c = 0; c < nc_; ++c) {
        if (!classesHere.contains(c)) continue;
        for (Rank rep : {classFirst(g, c), classLast(g, c)}) {
          const Rank p = ((rep + xs[t]->offset) % g.size() + g.size()) % g.size();
          const std::optional<gen::GridStep> step = stepBetween(g, rep, p);
          if (!step)
            throw error(fmt::format("{}: the peer of rank {} at {} is rank {}, no neighbour on the grid; scale-free "
                                    "benchmarks take peers as grid steps",
                                    what, rep, at(t), p));
          // A wrap is the same step whether or not this rank sits at the edge: keep the widest.
          if (found) {
            for (std::size_t d = 0; d < 3; ++d) {
              if (found->step[d] != step->step[d])
                throw error(fmt::format("{}: the peer is another grid step at {} (class {}) than elsewhere", what, at(t),
                                        className(dims_, c)));
              found->wrap[d] = found->wrap[d] || step->wrap[d];
            }
          } else {
            found = step;
          }
        }
      }
    }
    if (!found) throw error(fmt::format("{}: a peer of no rank", what));
    ++res_.stats["grid steps"];
    return Expr::gridPeer(*found);
  }

  // A cycle over executions whose length changes with the scale: an arithmetic progression, of
  // values or of peers relative to the rank (a shift exchange's offsets 1, 2, ..., P-1).
  Expr progression(const std::vector<const Expr*>& xs, const std::string& what) {
    std::vector<Expr> starts, steps, lengths;
    const auto kind = xs[0]->children.empty() ? Expr::Kind::Const : xs[0]->children[0].kind;
    const bool peers = kind == Expr::Kind::RankOffset;
    auto valueOf = [&](const Expr& c) { return peers ? static_cast<double>(c.offset) : c.value; };
    for (std::size_t t = 0; t < xs.size(); ++t) {
      const auto& ch = xs[t]->children;
      bool ap = ch.size() >= 2 && (kind == Expr::Kind::Const || peers);
      for (const auto& c : ch) ap = ap && c.kind == kind;
      for (std::size_t k = 2; ap && k < ch.size(); ++k) ap = valueOf(ch[k]) - valueOf(ch[k - 1]) == valueOf(ch[1]) - valueOf(ch[0]);
      if (!ap)
        throw error(fmt::format("{}: a cycle of {} values at {} and {} at {} that is no arithmetic progression", what,
                                ch.size(), at(t), xs[0]->children.size(), at(0)));
      starts.push_back(Expr::constant(valueOf(ch[0])));
      steps.push_back(Expr::constant(valueOf(ch[1]) - valueOf(ch[0])));
      lengths.push_back(Expr::constant(static_cast<double>(ch.size())));
    }
    auto fit = [&](const std::vector<Expr>& v, const std::string& part) {
      std::vector<const Expr*> p;
      for (const auto& e : v) p.push_back(&e);
      return constant(p, what + " (" + part + ")");
    };
    ++res_.stats["progressions"];
    if (peers)
      return Expr::progressionPeer(fit(starts, "first value"), fit(steps, "step"), fit(lengths, "number of values"));
    return Expr::progression(fit(starts, "first value"), fit(steps, "step"), fit(lengths, "number of values"));
  }

  void explain(const std::string& text) {
    const std::string line = "  " + text;
    if (std::find(res_.explanation.begin(), res_.explanation.end(), line) == res_.explanation.end())
      res_.explanation.push_back(line);
  }

  std::vector<Program>& programs_;
  const std::vector<Grid>& grids_;
  int dims_;
  bool descending_;
  bool square_;  // the templates are square grids (squareGrids)
  // The block distributions the extrapolation to the templates chose: what a value that several
  // block models fit at the templates is held to.
  std::vector<BlockModel> blockModels_;
  // The counts that follow the data, from the extrapolation to the first template.
  std::vector<ExtrapolateResult::DataCounts> dataCounts_;
  std::vector<std::string> approximations_;  // approximations()
  bool timeMode_ = false;  // aligning a time (Aligner::time)
  ScaleFreeResult& res_;
  std::vector<ScaleVar> vars_;
  int nc_ = 1;
  Grid far_;
};

}  // namespace

std::string ScaleFreeResult::summary() const {
  std::string t;
  for (const Grid& g : templates) t += fmt::format("{}{}", t.empty() ? "" : ", ", g.str());
  const std::int64_t relations = stats.count("relation peers") ? stats.at("relation peers") : 0;
  const std::int64_t blocks = stats.count("block distributions") ? stats.at("block distributions") : 0;
  return fmt::format("scale-free benchmark: {}-D grid{}; formulas fitted at the template scales {}; {} formulas, {} grid "
                     "steps{}{}\n",
                     program.scaleFree ? program.scaleFree->dims : 0,
                     program.scaleFree && program.scaleFree->square ? " (square grids only, as the inputs')" : "", t,
                     (stats.count("integer formulas") ? stats.at("integer formulas") : 0) +
                         (stats.count("time formulas") ? stats.at("time formulas") : 0),
                     stats.count("grid steps") ? stats.at("grid steps") : 0,
                     relations ? fmt::format(", {} peers by relation", relations) : std::string(),
                     blocks ? fmt::format(", {} values by block distribution", blocks) : std::string());
}

ScaleFreeResult buildScaleFree(const std::vector<ExtrapolateInput>& inputs, double instructionRate) {
  if (inputs.size() < 2)
    throw InputError("extrapolate", 0, "extrapolation needs traces recorded at two or more rank counts");
  // 1. The grid's dimension, at the largest input's own scale (where every model has a value).
  const auto largest = std::max_element(inputs.begin(), inputs.end(), [](const auto& a, const auto& b) {
    return a.trace.numRanks < b.trace.numRanks;
  });
  ExtrapolateOptions probe;
  probe.ranks = largest->trace.numRanks;
  // Every extrapolation below fits the inputs' times alike, whatever its target: fitted once.
  probe.fitCache = std::make_shared<RealFitCache>();
  const ExtrapolateResult first = extrapolate(inputs, probe);
  const int dims = first.target.dims;
  const bool descending = first.descending;

  ScaleFreeResult res;
  // What the inputs say (the models, evaluated at the largest input), then the formulas the
  // program uses, fitted over the templates.
  res.explanation.push_back(fmt::format("the inputs' models (their value at the largest input, P={} ({})):",
                                        first.target.size(), first.target.str()));
  for (const auto& line : first.explanation) res.explanation.push_back("  " + line);
  res.explanation.push_back("the program's formulas, fitted over the template scales:");
  // 2. Template scales: of the extents-apart family, else (none of it fits every model) of
  // the power-of-two family; never a mix, whose templates no one program would span.
  std::vector<Program> programs;
  std::vector<BlockModel> blockModels;  // the extrapolation's, at the templates
  std::vector<ExtrapolateResult::DataCounts> dataCounts;  // the extrapolation's, at the first template
  struct Family {
    std::string name;
    std::size_t found = 0;
    std::optional<InputError> firstFailure;
  };
  auto tryFamily = [&](const std::vector<Grid>& grids, Family& family) {
    programs.clear();
    blockModels.clear();
    dataCounts.clear();
    res.traces.clear();
    res.templates.clear();
    for (const Grid& g : grids) {
      if (res.templates.size() == kTemplates) break;
      ExtrapolateOptions o;
      o.grid = g;
      o.ranks = g.size();
      o.fitCache = probe.fitCache;
      try {
        ExtrapolateResult r = extrapolate(inputs, o);
        ++res.stats["template scales tried"];
        for (const BlockModel& m : r.blockModels)
          if (std::find(blockModels.begin(), blockModels.end(), m) == blockModels.end()) blockModels.push_back(m);
        if (res.templates.empty()) dataCounts = r.dataCounts;
        auto trace = std::make_unique<Trace>(std::move(r.trace));
        const std::string name = fmt::format("{} extrapolated to {}", inputs.front().file, g.str());
        verifyStructure(*trace, name);
        programs.push_back(lowerTemplate(*trace, name, instructionRate));
        res.traces.push_back(std::move(trace));
        res.templates.push_back(g);
      } catch (const InputError& e) {
        ++res.stats["template scales tried"];
        if (!family.firstFailure) family.firstFailure = e;
      }
    }
    family.found = res.templates.size();
    return res.templates.size() == kTemplates;
  };
  auto said = [](const Family& f) {
    return fmt::format("{} among {}{}", f.found, f.name,
                       f.firstFailure ? " (at the first that did not: " + f.firstFailure->message() + ")" : std::string());
  };
  // A code recorded on square (cubic) grids only runs on those: the square family alone.
  const bool square = dims >= 2 && !first.inputGrids.empty() && std::all_of(first.inputGrids.begin(), first.inputGrids.end(), equalExtents);
  if (square) {
    Family squares{dims == 2 ? "the square grids" : "the cubic grids", 0, std::nullopt};
    if (!tryFamily(squareGrids(dims), squares))
      throw InputError(inputs.front().file, 0,
                       fmt::format("scale-free benchmark: every input is a {} grid, so it needs {} such template scales "
                                   "at which every model has a value, and found {}",
                                   dims == 2 ? "square" : "cubic", kTemplates, said(squares)));
  } else {
    Family apart{"grids with extents of at least 3, none a multiple of another", 0, std::nullopt};
    Family powers{"the grids of powers of two", 0, std::nullopt};
    if (!tryFamily(candidateGrids(dims, descending), apart) && !tryFamily(powerOfTwoGrids(dims, descending), powers))
      throw InputError(inputs.front().file, 0,
                       fmt::format("scale-free benchmark: it needs {} template scales at which every model has a value, "
                                   "and found {}, and {}",
                                   kTemplates, said(apart), said(powers)));
  }
  res.stats["template scales"] = static_cast<std::int64_t>(res.templates.size());
  // 3 and 4. Alignment and formulas.
  Aligner aligner(programs, res.templates, dims, descending, square, std::move(blockModels), dataCounts, res);
  res.program = aligner.run();
  // The inputs' approximations, but of counts the program splits evenly its own sentence.
  for (const std::string& a : first.approximations) {
    bool split = false;
    for (const auto& d : dataCounts)
      split = split || a.starts_with(fmt::format("Approximate: event {} ", d.event));
    if (!split) res.program.notes.push_back(a);
  }
  for (const std::string& a : aligner.approximations()) res.program.notes.push_back(a);
  if (!first.setAside.empty()) {
    std::string aside, kept;
    for (Rank p : first.setAside) aside += fmt::format("{}P={}", aside.empty() ? "" : ", ", p);
    for (const Grid& g : first.inputGrids) kept += fmt::format("{}P={}", kept.empty() ? "" : ", ", g.size());
    res.program.notes.push_back(fmt::format(
        "Caution: the application's structure changed with the scale ({} differ from {}, whose structure this "
        "benchmark has at every scale), and nothing in the recordings says whether it changes again at other scales "
        "(a multigrid solver's level count follows its local grid): compare with a recording at a target where one "
        "can be made.",
        aside, kept));
  }
  std::string seen;
  for (const auto& i : inputs)
    seen += fmt::format("{}{} ranks ({})", seen.empty() ? "" : ", ", i.trace.numRanks, fmt::format("{}", i.file));
  res.program.scaleFree->inputs = seen;
  res.program.source = inputs.front().file;
  res.program.trace = res.traces.front().get();
  return res;
}

}  // namespace tracegen::extrap
