// The coNCePTuaL backend's statements: the walker's hooks for loops (written once per trip count
// their ranks take; FOR EACH where the variable is read, counted over all entries where the trip
// count cycles, unrolled where requests stay pending from one iteration to the next) and around
// every call: the computation before it (COMPUTES FOR), its comment, MPI_Init's SYNCHRONIZE and
// RESET, and calls left out.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

void Renderer::collectLoops(const std::vector<Stmt>& body) {
  for (const auto& s : body) {
    if (s.kind != Stmt::Kind::Loop) continue;
    if (s.loop.iterations.isConst()) loopTrips_[s.loop.id] = static_cast<std::int64_t>(s.loop.iterations.value);
    collectLoops(s.loop.body);
  }
}

// The execution index of a statement at the current nesting, when every enclosing loop has a
// constant trip count.
std::optional<ExecIndex> Renderer::currentIndex() const {
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

// A loop is rendered once per trip count its ranks take (cases), its body walked each time.
void Renderer::loop(const Stmt& s, const RankList& ranks) {
  atInputLine(program_.source, s.loop.head ? s.loop.head->line : 0, [&] { renderLoop(s, ranks, *out_); });
}

void Renderer::renderLoop(const Stmt& s, const RankList& ranks, std::vector<Piece>& out) {
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
bool Renderer::atOneScale(const Expr& e) {
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
std::string Renderer::countedStart(const LoopStmt& loop, const Case& c, const std::optional<ExecIndex>& index,
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
std::string Renderer::loopStart(int loop) const {
  for (const auto& l : loopStack_)
    if (l.id == loop && !l.start.empty()) return l.start;
  return "0";
}

// n - 1 for a formula n, folding a trailing constant (num_tasks - 1 - 1 is num_tasks - 2).
std::string Renderer::minusOne(const std::string& n) {
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

std::string Renderer::progression(std::int64_t first, std::int64_t last) {
  data d;
  d.set("first", std::to_string(first));
  d.set("second", false);
  d.set("last", std::to_string(last));
  return fill("progression_range", d);
}

// The computation before a call, one COMPUTES statement per class of equal durations.
std::vector<std::string> Renderer::computeStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx) {
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

void Renderer::beginCall(const CallStmt& c, const RankList&) {
  cur_ = Current{};
  cur_.idx = c.executionIndex ? c.executionIndex : currentIndex();
}

void Renderer::compute(const CallStmt& c, const RankList& ranks) {
  if (opInfo(c.op).kind != OpKind::Init) cur_.piece.stmts = computeStmts(c, ranks, cur_.idx);
}

void Renderer::endCall(const CallStmt& c, const RankList&) {
  Piece pc = std::move(cur_.piece);
  pc.stmts.insert(pc.stmts.end(), cur_.call.begin(), cur_.call.end());
  if (pc.stmts.empty()) return;
  pc.comments.push_back(callComment(c, cur_.detail));
  out_->push_back(std::move(pc));
}

void Renderer::lifecycle(const CallStmt& c, const RankList& ranks) {
  if (opInfo(c.op).kind != OpKind::Init) return;  // MPI_Finalize: only the computation before it
  cur_.call = initStmts(ranks);
  cur_.detail = "the timed region starts here";
}

void Renderer::opaque(const CallStmt& c, const RankList&) {
  // Generation gets here only with --skip-unknown: the computation before the call stays.
  cur_.detail = fmt::format("{} is a call tracegen does not model: left out (--skip-unknown)", opName(c.op));
  note("Calls tracegen does not model are left out (--skip-unknown): the computation before each stays, under a "
       "comment naming the call.");
}

std::vector<std::string> Renderer::initStmts(const RankList& ranks) {
  Desc t = acting(ranks, false);
  data d;
  d.set("tasks", t.text);
  d.set("s", t.single ? "S" : "");
  d.set("single", t.single);
  return {fill("synchronize", d), fill("reset", d)};
}

}  // namespace tracegen::gen::conceptual
