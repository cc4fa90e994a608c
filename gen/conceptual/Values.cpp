// The coNCePTuaL backend's values: parameter expressions flattened into cases (ranks, conditions on
// the loop state, values), since a message specification cannot depend on the task variable (§3.1);
// the conditions on execution indices and first iterations, the merging of cases whose split made
// no difference, the text of the conditions (IF … OTHERWISE), and the approximation of cycles too
// long to spell as conditions.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

// Replaces per-execution choices that no loop index can select by a single value (§5.6).
// At one scale, a list of values with one stride (gen/Traversal.cpp, listExpr) is the cycle of
// its values here: this backend selects per-execution values by cases.
Expr Renderer::approximate(const Expr& e, const std::string& what, bool peer, const std::string& where) {
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

// With `origins`, executions whose peer offsets are equal share a case as constants do (see
// ByExecution below), and every case says where it came from (casesOf decides with it whether
// the grouping left merge()'s result as it was).
void Renderer::refineOne(Case c, const std::string& key, const Expr& e, const std::optional<ExecIndex>& index,
                         std::vector<Case>& out, CaseOrigins* origins) {
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
void Renderer::refineByExecution(const Case& c, const std::string& key, const Expr& e, const std::optional<ExecIndex>& index,
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

// The call as the ranks of a case make it: parameters and vector elements of the case's values.
CallStmt Renderer::specialised(const CallStmt& c, const Case& k) {
  CallStmt out = c;
  for (auto& [p, v] : out.vectors)
    for (std::size_t i = 0; i < v.size(); ++i)
      if (auto it = k.values.find(memberKey(p, i)); it != k.values.end()) v[i] = it->second;
  for (auto [p, key] : {std::pair{Param::Count, "count"}, std::pair{Param::Datatype, "type"}})
    if (auto it = k.values.find(key); it != k.values.end() && out.params.count(p)) out.params[p] = it->second;
  return out;
}

// The trip count of a loop: the one being rendered, or its constant count.
std::optional<std::int64_t> Renderer::tripsOf(int loop) const {
  for (const auto& l : loopStack_)
    if (l.id == loop) return l.start.empty() && l.tripsText.empty() ? std::optional<std::int64_t>(l.trips) : std::nullopt;
  auto it = loopTrips_.find(loop);
  if (it == loopTrips_.end()) return std::nullopt;
  return it->second;
}

// The index terms that matter modulo the period.
ExecIndex Renderer::reducedTerms(const Cond& c) {
  ExecIndex terms;
  for (auto [loop, mult] : c.index) {
    std::int64_t m = ((mult % c.period) + c.period) % c.period;
    if (m != 0) terms.push_back({loop, m});
  }
  return terms;
}

// A single loop variable whose trip count does not exceed the period: no MOD needed, and
// residues at or above the trip count never occur.
std::optional<std::int64_t> Renderer::plainTrips(const Cond& c) const {
  ExecIndex terms = reducedTerms(c);
  if (terms.size() != 1 || terms[0].second != 1) return std::nullopt;
  auto trips = tripsOf(terms[0].first);
  if (!trips || *trips > c.period) return std::nullopt;
  return trips;
}

// Drops impossible residues and decides whether the condition always or never holds.
Renderer::Truth Renderer::normalize(Cond& c) const {
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
bool Renderer::addCond(Case& c, Cond cd) {
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
std::vector<Case> Renderer::cases(const RankList& ranks, const std::vector<std::pair<std::string, const Expr*>>& params,
                                  const std::optional<ExecIndex>& index,
                                  const std::vector<std::pair<std::string, const Expr*>>& perMember, bool splitsSpelled) {
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

std::vector<Case> Renderer::casesOf(const RankList& ranks, const std::vector<std::pair<std::string, const Expr*>>& params,
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
std::vector<Case> Renderer::groupedRefinement(const std::vector<Case>& cs, const std::string& key, const Expr& e,
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
void Renderer::merge(std::vector<Case>& cs) {
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
bool Renderer::join(std::vector<Case>& cs, std::size_t i, std::size_t j) {
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

std::string Renderer::rangeText(const std::vector<std::int64_t>& v) {
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

std::string Renderer::condText(const Cond& c) {
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

std::string Renderer::condsText(const std::vector<Cond>& cs) {
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

bool Renderer::complementary(const Cond& a, const Cond& b) const {
  if (a.kind == Cond::Kind::First) return b.kind == Cond::Kind::First && a.loop == b.loop && a.first != b.first;
  if (!a.sameTest(b)) return false;
  for (auto r : a.residues)
    if (b.residues.count(r)) return false;
  Cond u = a;
  u.residues.insert(b.residues);
  return normalize(u) == Truth::Always;
}

std::string Renderer::ifStmt(const std::string& cond, const std::vector<std::string>& then,
                             const std::vector<std::string>* otherwise) {
  data d;
  d.set("cond", cond);
  d.set("body", body({Piece{{}, then}}));
  d.set("hasOtherwise", otherwise != nullptr);
  d.set("otherwise", otherwise ? body({Piece{{}, *otherwise}}) : std::string());
  return fill("if", d);
}

}  // namespace tracegen::gen::conceptual
