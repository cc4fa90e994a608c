// The traversal: from a lowered trace to one SPMD benchmark program.
//
// Algorithm.
// 1. Rank classes. The ranks are partitioned by every ranklist that shapes control flow (the
//    events' ranks and the loop groups' ranks), by refinement on the compressed lists. All
//    ranks of a class have the same events and the same loops, so one representative's loop
//    tree (§8 of the ScalaTrace format: a loop is a head plus the next mem-1 events of the
//    rank) is the whole class's.
// 2. Timing. Walking a class's tree with the set of possible predecessors gives each event's
//    computation: a constant where the predecessor is always the same call, and a "first
//    iteration or not" choice where the event opens a loop body (its predecessor is the call
//    before the loop in the first iteration and the body's last call afterwards).
// 3. Merge. The class trees are merged pairwise: the same event becomes one statement for the
//    union of ranks, and loops with the same iteration counts whose spans of the trace overlap
//    become one loop, recursively. Which nodes pair up is an alignment of the two sequences
//    (dynamic programming, like a longest common subsequence) that maximises what is shared,
//    collectives first: a collective left in two statements would be two collectives in
//    languages that name its members in one statement. Anything else stays a separate
//    statement with its own rank set. Every rank executes only the statements that name it, in textual
//    order, and merging keeps each class's own order, so the program is correct by
//    construction; merging is what makes it short (a stencil's nine rank groups share one
//    time-step loop).
// 4. Values. Parameters become expressions: a constant, an offset from the rank for relative
//    peers, a choice by rank group, or a cycle over the statement's executions.
//
// Loops whose body length changes from one entry to the next. ScalaTrace's LCS loop builds
// write `mem` (and `iter`) as vectors consumed once per entry (§8 "Value vectors"): with
// `mem: ( 3 2 2 1 1 )` the loop's body is the head and the next two events of the rank on the
// first entry, the next one on the second and third, the head alone on the last two, and
// the events it leaves out follow the loop instead. Such a class's tree cannot be read off the
// file statically; it is built by running the class's representative once (the expansion of
// §11.1, counting rather than emitting calls) and recording, in every body, which loop (head,
// level, body length) or event starts at which position of the rank's events, and on which
// executions of the body. Each distinct body length becomes a loop statement of its own
// whose trip count cycles over the body's executions, 0 where that length was not used, and
// the events that are not in every execution go under a guard: a one-statement loop whose
// trip count cycles through 1 and 0. So the example inside a 5-iteration loop becomes
//
//     for (5)  { A; for (2,0,0,0,0 per entry) { B C D }; for (0,1,1,0,0) { B C };
//                for (0,0,0,1,1) { B }; guard (0,0,0,1,1) { C }; guard (0,1,1,1,1) { D } }
//
// which every backend already renders (a loop with a trip count per entry) and which reads as
// the trace does: one statement per loop shape. An event that ends up in several statements
// keeps the values the trace gives its executions: each statement carries the event's
// execution numbers it stands for, and its parameter and compute cycles are taken from those
// (the FirstIteration choice of step 2 when that describes them). The run is bounded
// (kSimulatedCalls per class); a trace whose pattern repeats only over longer than
// kMaxCycle executions cannot be written as cycles and is refused.
#include "gen/Traversal.h"

#include <algorithm>
#include <numeric>
#include <fmt/format.h>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "ir/Checked.h"
#include "ir/Diagnostics.h"
#include "ir/RankClasses.h"
#include "ir/Limits.h"
#include "ir/RankCursor.h"
#include "passes/AlignCollectives.h"
#include "passes/RankRanges.h"

namespace tracegen::gen {

namespace {

// ---------------------------------------------------------------------------------------------
// Class trees

struct Node {
  bool isLoop = false;
  std::size_t event = 0;  // event node: index into trace.events; loop node: its head
  int loopId = -1;
  std::vector<std::int64_t> iterations;  // loop: trip counts, one per entry, cyclic
  std::vector<Node> body;
  RankList ranks;
  Expr compute;  // event node
  std::size_t first = 0, last = 0;  // span of trace events
  // Event node of a class whose tree was simulated (see the opening comment), standing for
  // only some of the event's executions by those ranks: per class, the event's execution
  // numbers (from 0, per rank) of this node's executions in order. Empty: every execution.
  std::vector<std::pair<RankList, std::shared_ptr<const std::vector<std::int64_t>>>> executions;
};

// The longest cycle of per-execution values a statement is given, and the most calls one
// class's representative is run for to build a tree whose loops change shape per entry.
constexpr std::size_t kMaxCycle = 4096;
// A list of at least this many values with one non-zero stride is a progression (a formula in
// the execution counter), as the trace's triplets are (docs/trace-format.md).
constexpr std::size_t kMinProgression = 4;
// Expressions hold doubles: integers up to 2^53 are exact.
constexpr std::int64_t kExactInDouble = std::int64_t{1} << 53;
constexpr std::int64_t kSimulatedCalls = std::int64_t{1} << 22;

// The shortest prefix p of `seq` with seq[i] == p[i mod |p|] for every i. Of the cycles that
// fit, one that repeats a whole number of times is preferred where it is not much longer (a
// trip count per entry of (0 1 1 0 0) over 5 entries reads as the trace does; (0 1 1 0) is
// as correct but looks like a pattern that is not there).
template <class T>
std::vector<T> shortestCycle(const std::vector<T>& seq) {
  const std::size_t n = seq.size();
  if (n == 0) return {};
  // The prefix function: n minus the longest proper border is the shortest period.
  std::vector<std::size_t> border(n, 0);
  for (std::size_t i = 1; i < n; ++i) {
    std::size_t k = border[i - 1];
    while (k > 0 && !(seq[i] == seq[k])) k = border[k - 1];
    if (seq[i] == seq[k]) ++k;
    border[i] = k;
  }
  std::size_t p = n - border[n - 1];
  auto isPeriod = [&](std::size_t d) {
    for (std::size_t i = d; i < n; ++i)
      if (!(seq[i] == seq[i - d])) return false;
    return true;
  };
  if (n % p != 0)
    for (std::size_t d = p + 1; d <= std::min(n, kMaxCycle); ++d)
      if (n % d == 0 && isPeriod(d)) {
        p = d;
        break;
      }
  return std::vector<T>(seq.begin(), seq.begin() + static_cast<std::ptrdiff_t>(p));
}

Expr simplifyByRank(std::vector<RankList> groups, std::vector<Expr> children) {
  bool allSame = true;
  for (const auto& c : children) allSame = allSame && c == children.front();
  if (allSame) return children.front();
  return Expr::byRank(std::move(groups), std::move(children));
}

Expr firstIteration(int loop, Expr first, Expr rest) {
  if (first == rest) return first;
  return Expr::firstIteration(loop, std::move(first), std::move(rest));
}

class Builder {
 public:
  Builder(const Trace& t, std::string source) : trace_(t), source_(std::move(source)) {}

  // Ranks with the same events and loops (ir/RankClasses.h); parameters differ per rank
  // within a class and become by-rank expressions.
  std::vector<RankList> rankClasses() const { return ::tracegen::rankClasses(trace_, /*byParameters=*/false); }

  struct Item {
    std::size_t event;
    std::vector<std::pair<const ValueGroup*, const ValueGroup*>> levels;  // iter, mem
  };

  // The loop tree of one class, from its first rank. `simulated`: built by running the rank
  // (its loops change shape per entry), with computation already assigned.
  std::vector<Node> classTree(const RankList& cls, bool& simulated) {
    const Rank r = *cls.first();
    bool changesShape = false;
    std::vector<Item> items;
    for (std::size_t i = 0; i < trace_.events.size(); ++i) {
      const Event& e = trace_.events[i];
      if (!e.ranks.contains(r)) continue;
      Item it{i, {}};
      for (const auto& lv : e.loops) {
        const ValueGroup* iter = nullptr;
        const ValueGroup* mem = nullptr;
        for (const auto& g : lv.iter)
          if (g.ranks.contains(r)) iter = &g;
        for (const auto& g : lv.mem)
          if (g.ranks.contains(r)) mem = &g;
        if (!iter || !mem) break;
        changesShape = changesShape || std::adjacent_find(mem->values.begin(), mem->values.end(),
                                                          std::not_equal_to<>()) != mem->values.end();
        it.levels.push_back({iter, mem});
      }
      items.push_back(std::move(it));
    }
    simulated = changesShape;
    if (changesShape) return simulatedTree(cls, items);
    std::function<Node(std::size_t, std::size_t, std::size_t&)> loop;
    std::function<void(std::size_t, std::size_t, std::vector<Node>&)> sequence;
    auto eventNode = [&](std::size_t j) {
      Node n;
      n.event = items[j].event;
      n.ranks = cls;
      n.first = n.last = items[j].event;
      return n;
    };
    sequence = [&](std::size_t j, std::size_t end, std::vector<Node>& out) {
      while (j < end) {
        if (items[j].levels.empty()) {
          out.push_back(eventNode(j));
          ++j;
        } else {
          std::size_t span = 0;
          out.push_back(loop(j, 0, span));
          j += span;
        }
      }
    };
    loop = [&](std::size_t h, std::size_t k, std::size_t& span) {
      const auto [iter, mem] = items[h].levels[k];
      span = static_cast<std::size_t>(mem->values.front());
      Node n;
      n.isLoop = true;
      n.event = items[h].event;
      n.loopId = nextLoopId_++;
      n.iterations = iter->values;
      n.ranks = cls;
      std::size_t j = h;
      if (items[h].levels.size() > k + 1) {
        std::size_t inner = 0;
        n.body.push_back(loop(h, k + 1, inner));
        j += inner;
      } else {
        n.body.push_back(eventNode(h));
        ++j;
      }
      sequence(j, h + span, n.body);
      n.first = items[h].event;
      n.last = items[h + span - 1].event;
      return n;
    };
    std::vector<Node> top;
    sequence(0, items.size(), top);
    return top;
  }

  // The tree of a class whose loops change shape from one entry to the next (see the opening
  // comment): the representative's expansion, recorded per body position.
  std::vector<Node> simulatedTree(const RankList& cls, const std::vector<Item>& items) {
    struct Sim {
      bool isLoop = false;
      std::size_t item = 0;
      std::int64_t executions = 0;  // loop: iterations run so far, over all entries
      std::int64_t iteration = 0;   // loop: the current iteration within its entry
      // Children by (position, loop level or -1 for the event, body length): within one
      // execution of a body each position starts at most one child, in increasing position.
      std::map<std::tuple<std::size_t, int, std::int64_t>, Sim> children;
      std::vector<std::pair<std::int64_t, std::int64_t>> entries;  // (parent's execution, trips; 1 for events)
      std::vector<std::int64_t> eventExecutions;  // event: the event's execution number, per execution
      std::vector<double> compute;
      std::vector<char> firstIteration;  // event: whether the enclosing loop was in its first iteration
    };
    std::vector<std::vector<std::size_t>> iterPos(items.size()), memPos(items.size());
    for (std::size_t j = 0; j < items.size(); ++j) {
      iterPos[j].assign(items[j].levels.size(), 0);
      memPos[j].assign(items[j].levels.size(), 0);
    }
    std::vector<std::int64_t> eventCount(items.size(), 0);
    SiteId prev = kNoSite;
    bool started = false;
    std::int64_t steps = 0;
    auto step = [&] {
      if (++steps > kSimulatedCalls)
        throw std::invalid_argument(fmt::format(
            "a loop whose body length changes from one entry to the next is generated by expanding the ranks' calls, "
            "and rank {} makes more than {}", *cls.first(), kSimulatedCalls));
    };
    auto cyclic = [](const ValueGroup* g, std::size_t& pos) {
      std::int64_t v = g->values[pos];
      pos = (pos + 1) % g->values.size();
      return v;
    };
    std::function<void(Sim&, std::size_t)> event = [&](Sim& parent, std::size_t j) {
      step();
      Sim& c = parent.children[{j, -1, 0}];
      c.item = j;
      c.entries.push_back({parent.executions - 1, 1});
      c.eventExecutions.push_back(eventCount[j]++);
      const Event& e = trace_.events[items[j].event];
      c.compute.push_back(started ? meanComputeAfter(e, prev, cls) : 0.0);  // the first call has no predecessor
      started = true;
      c.firstIteration.push_back(parent.iteration == 0);
      prev = e.site;
    };
    std::function<void(Sim&, std::size_t, std::size_t)> sequence;
    std::function<std::size_t(Sim&, std::size_t, std::size_t, std::size_t)> loop =
        [&](Sim& parent, std::size_t h, std::size_t k, std::size_t limit) -> std::size_t {
      step();
      const auto [iter, mem] = items[h].levels[k];
      const std::int64_t m = cyclic(mem, memPos[h][k]);
      const std::int64_t n = cyclic(iter, iterPos[h][k]);
      const Event& e = trace_.events[items[h].event];
      if (m < 1 || n < 0 || m > static_cast<std::int64_t>(limit - h))
        throw InputError(source_, e.line,
                         fmt::format("event {} ({}): loop level {} of {} iterations over {} events does not fit rank {}'s "
                                     "enclosing body",
                                     e.id, opName(e.op), k, n, m, *cls.first()));
      Sim& c = parent.children[{h, static_cast<int>(k), m}];
      c.isLoop = true;
      c.item = h;
      c.entries.push_back({parent.executions - 1, n});
      const std::size_t end = h + static_cast<std::size_t>(m);
      for (std::int64_t i = 0; i < n; ++i) {
        ++c.executions;
        c.iteration = i;
        std::size_t j = h + 1;
        if (items[h].levels.size() > k + 1)
          j = h + loop(c, h, k + 1, end);
        else
          event(c, h);
        sequence(c, j, end);
      }
      return static_cast<std::size_t>(m);
    };
    sequence = [&](Sim& parent, std::size_t j, std::size_t end) {
      while (j < end) {
        if (items[j].levels.empty()) {
          event(parent, j);
          ++j;
        } else {
          j += loop(parent, j, 0, end);
        }
      }
    };
    Sim root;
    root.executions = 1;
    sequence(root, 0, items.size());

    auto tooLong = [&](const Sim& c, const char* what) {
      const Event& e = trace_.events[items[c.item].event];
      return std::invalid_argument(fmt::format("event {} ({}): its {} repeat only after more than {} executions",
                                               e.id, opName(e.op), what, kMaxCycle));
    };
    auto computeExpr = [&](const Sim& c, int loopId) -> Expr {
      const auto& v = c.compute;
      if (std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end()) return Expr::constant(v.front());
      // The usual shape: one value in the enclosing loop's first iteration, another after it.
      std::optional<double> first, rest;
      bool byIteration = loopId >= 0;
      for (std::size_t i = 0; i < v.size() && byIteration; ++i) {
        std::optional<double>& slot = c.firstIteration[i] ? first : rest;
        if (slot && *slot != v[i]) byIteration = false;
        slot = v[i];
      }
      if (byIteration && first && rest) return firstIteration(loopId, Expr::constant(*first), Expr::constant(*rest));
      std::vector<double> cycle = shortestCycle(v);
      if (cycle.size() <= kMaxCycle) {
        std::vector<Expr> cs;
        for (double x : cycle) cs.push_back(Expr::constant(x));
        return Expr::byExecution(std::move(cs));
      }
      // No pattern a statement can spell: the mean keeps the total computation.
      double sum = 0;
      for (double x : v) sum += x;
      return Expr::constant(sum / static_cast<double>(v.size()));
    };
    std::function<void(const Sim&, std::int64_t, int, std::vector<Node>&)> convert =
        [&](const Sim& parent, std::int64_t parentExecutions, int loopId, std::vector<Node>& out) {
          std::vector<Node> guarded;
          std::vector<std::int64_t> guard;
          auto flush = [&] {
            if (guarded.empty()) return;
            if (guard == std::vector<std::int64_t>{1}) {
              for (auto& n : guarded) out.push_back(std::move(n));
            } else {
              Node g;
              g.isLoop = true;
              g.event = guarded.front().event;
              g.loopId = nextLoopId_++;
              g.iterations = guard;
              g.ranks = cls;
              g.first = guarded.front().first;
              g.last = guarded.back().last;
              g.body = std::move(guarded);
              out.push_back(std::move(g));
            }
            guarded.clear();
          };
          // In position order; alternatives at one position (loops of different body lengths)
          // in the order the rank first used them.
          std::vector<const Sim*> children;
          for (const auto& [key, c] : parent.children) children.push_back(&c);
          std::stable_sort(children.begin(), children.end(), [](const Sim* a, const Sim* b) {
            return a->item != b->item ? a->item < b->item : a->entries.front().first < b->entries.front().first;
          });
          for (const Sim* child : children) {
            const Sim& c = *child;
            std::vector<std::int64_t> perExecution(static_cast<std::size_t>(parentExecutions), 0);
            for (auto [p, v] : c.entries) perExecution[static_cast<std::size_t>(p)] = v;
            std::vector<std::int64_t> cycle = shortestCycle(perExecution);
            if (cycle.size() > kMaxCycle) throw tooLong(c, c.isLoop ? "trip counts" : "appearances");
            if (c.isLoop) {
              flush();
              if (c.executions == 0) continue;  // entered, never iterated: nothing to say
              Node n;
              n.isLoop = true;
              n.event = items[c.item].event;
              n.loopId = nextLoopId_++;
              n.iterations = cycle;
              n.ranks = cls;
              convert(c, c.executions, n.loopId, n.body);
              n.first = n.event;
              n.last = n.body.back().last;
              out.push_back(std::move(n));
              continue;
            }
            Node n;
            n.event = items[c.item].event;
            n.ranks = cls;
            n.first = n.last = n.event;
            n.compute = computeExpr(c, loopId);
            const auto& x = c.eventExecutions;
            if (static_cast<std::int64_t>(x.size()) != eventCount[c.item] || x.back() + 1 != eventCount[c.item])
              n.executions.push_back({cls, std::make_shared<const std::vector<std::int64_t>>(x)});
            if (!guarded.empty() && cycle != guard) flush();
            guard = cycle;
            guarded.push_back(std::move(n));
          }
          flush();
        };
    std::vector<Node> top;
    convert(root, 1, -1, top);
    return top;
  }

  // Compute before every event node, from the predecessor it can have.
  void assignCompute(std::vector<Node>& nodes) {
    struct Pred {  // the possible previous event of the rank, as a decision tree
      bool definite = true;
      std::size_t event = SIZE_MAX;  // SIZE_MAX: none (the first call)
      int loop = -1;
      std::shared_ptr<Pred> first, rest;
    };
    std::function<std::size_t(const std::vector<Node>&)> lastEvent = [&](const std::vector<Node>& body) {
      const Node& n = body.back();
      return n.isLoop ? lastEvent(n.body) : n.event;
    };
    std::function<Expr(const Pred&, const Event&, const RankList&)> timeOf = [&](const Pred& p, const Event& e,
                                                                                 const RankList& ranks) -> Expr {
      if (!p.definite) return firstIteration(p.loop, timeOf(*p.first, e, ranks), timeOf(*p.rest, e, ranks));
      if (p.event == SIZE_MAX) return Expr::constant(0);
      return computeAfter(e, trace_.events[p.event].site, ranks);
    };
    std::function<Pred(std::vector<Node>&, Pred)> walk = [&](std::vector<Node>& body, Pred pred) -> Pred {
      for (auto& n : body) {
        if (!n.isLoop) {
          n.compute = timeOf(pred, trace_.events[n.event], n.ranks);
          pred = Pred{true, n.event, -1, nullptr, nullptr};
          continue;
        }
        Pred rest{true, lastEvent(n.body), -1, nullptr, nullptr};
        Pred inside{false, 0, n.loopId, std::make_shared<Pred>(pred), std::make_shared<Pred>(rest)};
        walk(n.body, inside);
        pred = rest;
      }
      return pred;
    };
    walk(nodes, Pred{});
  }

  // The compute before `e` for `ranks` when their previous call was made at `prev`: the
  // summarised time (or the histogram's mean), one value, or one per timing sub-group (ByRank);
  // ranks that never come from `prev` get 0.
  Expr computeAfter(const Event& e, SiteId prev, const RankList& ranks) const {
    std::vector<RankList> groups;
    std::vector<Expr> values;
    RankList rest = ranks;
    auto take = [&](const RankList& of, double us, const std::vector<ComputeTime::ByCall>& calls) {
      RankList in = of.empty() ? rest : RankList::intersect(rest, of);
      if (in.empty()) return;
      rest = RankList::subtract(rest, in);
      groups.push_back(std::move(in));
      if (calls.empty()) {
        values.push_back(Expr::constant(us));
        return;
      }
      // Drift over calls: the time of the range holding each call (Expr::ByCall).
      std::vector<std::int64_t> firsts;
      std::vector<Expr> times;
      for (const auto& b : calls) firsts.push_back(b.first), times.push_back(Expr::constant(b.us));
      values.push_back(Expr::byCall(std::move(firsts), std::move(times), us));
    };
    if (!e.compute.empty()) {
      for (const auto& c : e.compute)
        if (c.after == prev) take(c.ranks, c.us, c.calls);
    } else {
      for (const auto& st : e.stats)
        if (st.phase == Phase::Compute && st.unit == TimeUnit::Microseconds && st.after == prev) {
          std::vector<ComputeTime::ByCall> calls;
          for (const CallRange& r : st.hist.calls) calls.push_back({r.first, r.avg});
          take(st.ranks, st.hist.mean(), calls);
        }
    }
    if (groups.empty()) return Expr::constant(0);
    if (!rest.empty()) {
      groups.push_back(std::move(rest));
      values.push_back(Expr::constant(0));
    }
    if (groups.size() == 1) return values.front();
    std::vector<std::size_t> order(groups.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return *groups[a].first() < *groups[b].first(); });
    std::vector<RankList> sortedGroups;
    std::vector<Expr> sortedValues;
    for (std::size_t i : order) {
      sortedGroups.push_back(std::move(groups[i]));
      sortedValues.push_back(std::move(values[i]));
    }
    return simplifyByRank(std::move(sortedGroups), std::move(sortedValues));
  }

  // The same for a class expanded call by call (simulatedTree): its ranks' mean, since one
  // value per execution is kept (and a time that drifts over calls, its mean).
  double meanComputeAfter(const Event& e, SiteId prev, const RankList& ranks) const {
    const Expr x = computeAfter(e, prev, ranks);
    if (x.kind != Expr::Kind::ByRank) return x.value;  // a constant, or a time by call's mean
    double sum = 0, count = 0;
    for (std::size_t i = 0; i < x.groups.size(); ++i) {
      const auto n = static_cast<double>(x.groups[i].size());
      sum += n * x.children[i].value;
      count += n;
    }
    return count > 0 ? sum / count : 0;
  }

  // Merges class tree `b` into `a`. Loop ids of b that merge are renamed to a's.
  //
  // The two sequences belong to disjoint ranks, so any common subsequence of mergeable nodes
  // is a correct merge: each side keeps its own order and unmatched nodes may go anywhere
  // between the matches. The alignment is chosen by dynamic programming to maximise the
  // matched weight, with collectives weighing far more than anything else: a collective split
  // over two statements is a different collective in languages that name all its members in
  // one statement (coNCePTuaL), while a missed point-to-point match only costs length.
  std::vector<Node> merge(std::vector<Node> a, std::vector<Node> b) {
    const std::size_t n = a.size(), m = b.size();
    // best[i][j]: the best weight aligning a[i..] with b[j..].
    std::vector<std::vector<std::int64_t>> best(n + 1, std::vector<std::int64_t>(m + 1, 0));
    std::vector<std::vector<std::int64_t>> pairWeight(n, std::vector<std::int64_t>(m, -1));
    for (std::size_t i = n; i-- > 0;)
      for (std::size_t j = m; j-- > 0;) {
        std::int64_t w = std::max(best[i + 1][j], best[i][j + 1]);
        if (mergeable(a[i], b[j])) {
          pairWeight[i][j] = matchWeight(a[i], b[j]);
          w = std::max(w, pairWeight[i][j] + best[i + 1][j + 1]);
        }
        best[i][j] = w;
      }
    std::vector<Node> out;
    std::size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && pairWeight[i][j] >= 0 && best[i][j] == pairWeight[i][j] + best[i + 1][j + 1]) {
        out.push_back(mergeNodes(std::move(a[i]), std::move(b[j])));
        ++i;
        ++j;
        continue;
      }
      // Skip the side whose skip keeps the optimum; between matches, file order.
      const bool canSkipA = i < n && (j == m || best[i][j] == best[i + 1][j]);
      const bool canSkipB = j < m && (i == n || best[i][j] == best[i][j + 1]);
      if (canSkipA && (!canSkipB || a[i].first <= b[j].first))
        out.push_back(std::move(a[i++]));
      else
        out.push_back(std::move(b[j++]));
    }
    return out;
  }

 private:
  static bool mergeable(const Node& x, const Node& y) {
    if (x.isLoop != y.isLoop) return false;
    if (!x.isLoop) return x.event == y.event;
    return x.iterations == y.iterations && x.first <= y.last && y.first <= x.last;
  }

  // The value of merging two mergeable nodes: for loops, what their bodies can share.
  std::int64_t matchWeight(const Node& x, const Node& y) const {
    constexpr std::int64_t kCollective = 1'000'000;
    if (!x.isLoop) {
      const OpKind k = opInfo(trace_.events[x.event].op).kind;
      // window and file calls that are collective over their communicator weigh as collectives
      const bool collective = isCollective(k) || k == OpKind::WinCollective || k == OpKind::FileCollective;
      return collective ? kCollective : 1;
    }
    // Each pair of nodes is weighed once per weighing of its parents: the work is bounded by
    // the product of the two trees' sizes.
    return 1 + alignmentWeight(x.body, y.body);
  }
  std::int64_t alignmentWeight(const std::vector<Node>& a, const std::vector<Node>& b) const {
    std::vector<std::vector<std::int64_t>> best(a.size() + 1, std::vector<std::int64_t>(b.size() + 1, 0));
    for (std::size_t i = a.size(); i-- > 0;)
      for (std::size_t j = b.size(); j-- > 0;) {
        std::int64_t w = std::max(best[i + 1][j], best[i][j + 1]);
        if (mergeable(a[i], b[j])) w = std::max(w, matchWeight(a[i], b[j]) + best[i + 1][j + 1]);
        best[i][j] = w;
      }
    return best[0][0];
  }

  static void renameLoop(Expr& e, int from, int to) {
    if (e.kind == Expr::Kind::FirstIteration && e.loop == from) e.loop = to;
    for (auto& c : e.children) renameLoop(c, from, to);
  }
  static void renameLoop(std::vector<Node>& nodes, int from, int to) {
    for (auto& n : nodes) {
      renameLoop(n.compute, from, to);
      renameLoop(n.body, from, to);
    }
  }

  Node mergeNodes(Node x, Node y) {
    Node n;
    n.isLoop = x.isLoop;
    n.event = std::min(x.event, y.event);
    n.loopId = x.loopId;
    n.iterations = x.iterations;
    n.ranks = RankList::unite(x.ranks, y.ranks);
    n.first = std::min(x.first, y.first);
    n.last = std::max(x.last, y.last);
    n.executions = std::move(x.executions);
    n.executions.insert(n.executions.end(), y.executions.begin(), y.executions.end());
    if (x.isLoop) {
      renameLoop(y.body, y.loopId, x.loopId);
      n.body = merge(std::move(x.body), std::move(y.body));
    } else {
      n.compute = simplifyByRank({x.ranks, y.ranks}, {x.compute, y.compute});
    }
    return n;
  }

  const Trace& trace_;
  std::string source_;  // the trace file, for diagnostics
  int nextLoopId_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Parameter values

// Parameters that are quantities (sizes, tags, file offsets), whose lists with one stride are
// progressions; identifiers (datatypes, communicators, requests, operators, groups) and peers
// are not, whatever their values.
bool quantityParam(Param p) {
  return p == Param::Count || p == Param::RecvCount || p == Param::Tag || p == Param::RecvTag || p == Param::Offset;
}

Expr listExpr(const std::vector<std::int64_t>& values, bool relative, bool quantity) {
  auto one = [&](std::int64_t v) {
    if (relative && v != kAnySource) return Expr::rankOffset(v);
    return Expr::constant(static_cast<double>(v));
  };
  bool allSame = std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) == values.end();
  if (allSame) return one(values.front());
  // Values with one stride (MPI-IO offsets that advance by the block size, the trace's triplets)
  // are a formula in the execution counter, not a table: `offset = 2048 + 4096 * (calls % 2000)`.
  if (quantity && !relative && values.size() >= kMinProgression) {
    std::int64_t stride = 0;
    bool progression = !__builtin_sub_overflow(values[1], values[0], &stride);
    for (std::size_t i = 2; i < values.size() && progression; ++i) {
      std::int64_t d = 0;
      progression = !__builtin_sub_overflow(values[i], values[i - 1], &d) && d == stride;
    }
    const auto exact = [](std::int64_t v) { return v >= -kExactInDouble && v <= kExactInDouble; };
    if (progression && stride != 0 && exact(values.front()) && exact(values.back()))
      return Expr::progression(Expr::constant(static_cast<double>(values.front())), Expr::constant(static_cast<double>(stride)),
                               Expr::constant(static_cast<double>(values.size())));
  }
  std::vector<Expr> cycle;
  for (auto v : values) cycle.push_back(one(v));
  return Expr::byExecution(std::move(cycle));
}

// The groups of a parameter restricted to the statement's ranks.
std::vector<std::pair<RankList, const ValueGroup*>> groupsFor(const ParamValues& pv, const RankList& ranks) {
  std::vector<std::pair<RankList, const ValueGroup*>> out;
  if (pv.groups.size() == 1) return {{ranks, &pv.groups.front()}};
  for (const auto& g : pv.groups) {
    if (!g.ranks.intersects(ranks)) continue;
    out.push_back({RankList::intersect(g.ranks, ranks), &g});
  }
  return out;
}

Expr paramExpr(const ParamValues& pv, const RankList& ranks) {
  std::vector<RankList> groups;
  std::vector<Expr> children;
  for (auto& [r, g] : groupsFor(pv, ranks)) {
    groups.push_back(r);
    children.push_back(listExpr(g->values, pv.relative, quantityParam(pv.param)));
  }
  return simplifyByRank(std::move(groups), std::move(children));
}

// The parameter (or received-bytes) values of an event node: the event's own lists, or for
// the classes whose node stands for only some of the event's executions, the values of those.
Expr nodeParamExpr(const ParamValues& pv, const Node& n) {
  if (n.executions.empty()) return paramExpr(pv, n.ranks);
  std::vector<RankList> groups;
  std::vector<Expr> children;
  RankList rest = n.ranks;
  for (const auto& [ranks, executions] : n.executions) {
    rest = RankList::subtract(rest, ranks);
    for (auto& [r, g] : groupsFor(pv, ranks)) {
      std::vector<std::int64_t> seq;
      seq.reserve(executions->size());
      for (auto x : *executions) seq.push_back(g->values[static_cast<std::size_t>(x) % g->values.size()]);
      std::vector<std::int64_t> cycle = shortestCycle(seq);
      if (cycle.size() > kMaxCycle)
        throw std::invalid_argument(fmt::format("parameter '{}' of a call in a loop whose body length changes per entry "
                                                "repeats only after more than {} executions",
                                                paramName(pv.param), kMaxCycle));
      groups.push_back(r);
      children.push_back(listExpr(cycle, pv.relative, quantityParam(pv.param)));
    }
  }
  if (!rest.empty())
    for (auto& [r, g] : groupsFor(pv, rest)) {
      groups.push_back(r);
      children.push_back(listExpr(g->values, pv.relative, quantityParam(pv.param)));
    }
  return simplifyByRank(std::move(groups), std::move(children));
}

class ProgramWriter {
 public:
  ProgramWriter(const Trace& t, Program& p, const ReceivedBytes* received)
      : trace_(t), program_(p), received_(received) {}

  void statements(const std::vector<Node>& nodes, std::vector<Stmt>& out,
                  const std::vector<std::pair<int, std::int64_t>>* loops) {
    for (const auto& n : nodes) {
      Stmt s;
      s.ranks = n.ranks;
      noteRanks(n.ranks);
      if (n.isLoop) {
        s.kind = Stmt::Kind::Loop;
        s.loop.id = n.loopId;
        s.loop.head = &trace_.events[n.event];
        s.loop.iterations = listExpr(n.iterations, false, true);  // trip counts are quantities
        ++program_.loops;
        // Loops with one trip count keep the execution index of their body computable.
        std::vector<std::pair<int, std::int64_t>> inner;
        // Beyond 2^53 the double no longer holds the trip count exactly (nor, near 2^63, converts
        // back to int64): such loops count their executions at run time instead.
        bool exact = loops && s.loop.iterations.isConst() && s.loop.iterations.value <= 9007199254740992.0;
        if (exact) {
          auto trips = static_cast<std::int64_t>(s.loop.iterations.value);
          for (auto [id, mult] : *loops) {
            // The product of nested trip counts must fit int64 (docs/trace-format.md, "Limits").
            auto product = checkedMul(mult, trips);
            if (!product) {
              const Event& head = *s.loop.head;
              throw InputError(program_.source, head.line,
                               fmt::format("event {} ({}): the loops nested here run more than {} times in all", head.id,
                                           opName(head.op), std::numeric_limits<std::int64_t>::max()),
                               {}, "the product of the trip counts of nested loops must fit in 64 bits");
            }
            inner.push_back({id, *product});
          }
          inner.push_back({n.loopId, 1});
        }
        statements(n.body, s.loop.body, exact ? &inner : nullptr);
      } else {
        s.kind = Stmt::Kind::Call;
        // What cannot be generated of the event (a vector without its length, an unknown
        // communicator) is an error at its line.
        s.call = atInputLine(program_.source, trace_.events[n.event].line, [&] { return call(n, loops); });
      }
      out.push_back(std::move(s));
    }
  }

 private:
  void noteRanks(const RankList& r) {
    std::string key = r.str();
    if (!program_.rankShapes.count(key)) program_.rankShapes.emplace(key, rankShape(r, trace_.numRanks));
  }

  CallStmt call(const Node& n, const std::vector<std::pair<int, std::int64_t>>* loops) {
    const Event& e = trace_.events[n.event];
    CallStmt c;
    c.event = &e;
    c.op = e.op;
    c.computeUs = n.compute;
    for (const auto& g : c.computeUs.groups) noteRanks(g);
    if (loops) c.executionIndex = *loops;
    std::optional<std::int64_t> window;
    for (const auto& pv : e.params) {
      if (isVectorParam(pv.param)) {
        if (!n.executions.empty())
          throw std::invalid_argument(fmt::format(
              "event {} ({}): a call with vector parameters in a loop whose body length changes from one entry to "
              "the next cannot be generated",
              e.id, opName(e.op)));
        c.vectors[pv.param] = vectorExpr(e, pv, n.ranks, window);
        continue;
      }
      Expr x = nodeParamExpr(pv, n);
      for (const auto& g : x.groups) noteRanks(g);
      c.params[pv.param] = std::move(x);
    }
    if (window) {
      c.params[Param::Count] = Expr::constant(static_cast<double>(*window));
      program_.notes.push_back(fmt::format(
          "{} of trace event {} completed a timing-dependent set of requests that follows no pattern the program "
          "can spell: it {} the rank's {} most recent requests instead, a superset of those the application's "
          "call completed.",
          opName(e.op), e.id, e.op == Op::Testall || e.op == Op::Testany || e.op == Op::Testsome ? "tests" : "waits on",
          *window));
    }
    if (received_)
      if (auto it = received_->byEvent.find(&e); it != received_->byEvent.end()) {
        Expr x = nodeParamExpr(it->second, n);
        for (const auto& g : x.groups) noteRanks(g);
        c.receivedBytes = std::move(x);
      }
    trackMessageSize(e, n.ranks);
    return c;
  }

  // A vector parameter: the rank's value list is consumed n values per execution (n the
  // request count of a Waitall, which may change between calls, or a communicator size), so
  // execution x reads values[(s_x + k) mod L] for k < n_x, with s_x the values consumed
  // before it. (n_x, s_x) repeats with some period m; element k of the vector is then a cycle
  // of m values. Ranks with shorter vectors get filler elements they never read.
  //
  // Which requests an MPI_Waitsome, MPI_Testsome, MPI_Waitany or MPI_Testany completes depends
  // on timing, and with it which entries of later waits are still live; over a long run these
  // lists may follow no pattern. A wait or test on several requests then gets `window`: it
  // takes the rank's `window` most recent requests, every request any of its executions named.
  // That is a superset of what the application's call completed, and each of those requests
  // belongs to an operation whose partner the application had reached by then, so the call
  // cannot block for good.
  std::vector<Expr> vectorExpr(const Event& e, const ParamValues& pv, const RankList& ranks,
                               std::optional<std::int64_t>& window) {
    auto fail = [&](const std::string& why) {
      throw std::invalid_argument(fmt::format("event {} ({}): parameter '{}' {}", e.id, opName(e.op), paramName(pv.param), why));
    };
    const double filler = pv.param == Param::Requests ? static_cast<double>(kRequestNull) : 0.0;
    struct Layout {
      RankList ranks;
      const ValueGroup* values;
      std::vector<std::int64_t> lengths, starts;  // per execution of one period
    };
    std::vector<Layout> layouts;
    std::int64_t longest = 0;
    constexpr std::size_t kMaxPeriod = 4096;
    for (auto& [r, g] : groupsFor(pv, ranks)) {
      std::vector<std::int64_t> counts = vectorLengths(e, pv.param, r);
      const auto L = static_cast<std::int64_t>(g->values.size());
      Layout layout{r, g, {}, {}};
      std::int64_t consumed = 0;
      for (std::size_t x = 0;; ++x) {
        if (x > 0 && x % counts.size() == 0 && consumed % L == 0) break;
        if (x == kMaxPeriod) {
          if (pv.param == Param::Requests) return recentWindow(pv, ranks, window);
          fail("changes length in a pattern too long to generate");
        }
        std::int64_t n = counts[x % counts.size()];
        if (n < 0) fail(fmt::format("has a negative length {}", n));
        layout.lengths.push_back(n);
        layout.starts.push_back(consumed % L);
        consumed += n;
        longest = std::max(longest, n);
      }
      layouts.push_back(std::move(layout));
    }
    std::vector<Expr> out;
    for (std::int64_t k = 0; k < longest; ++k) {
      std::vector<RankList> rankGroups;
      std::vector<Expr> children;
      for (const auto& layout : layouts) {
        rankGroups.push_back(layout.ranks);
        std::vector<Expr> cycle;
        const auto L = static_cast<std::int64_t>(layout.values->values.size());
        for (std::size_t x = 0; x < layout.lengths.size(); ++x)
          cycle.push_back(k < layout.lengths[x]
                              ? Expr::constant(static_cast<double>(
                                    layout.values->values[static_cast<std::size_t>((layout.starts[x] + k) % L)]))
                              : Expr::constant(filler));
        bool same = std::all_of(cycle.begin(), cycle.end(), [&](const Expr& c) { return c == cycle.front(); });
        if (same) {
          children.push_back(cycle.front());
        } else {
          children.push_back(Expr::byExecution(std::move(cycle)));
        }
      }
      out.push_back(simplifyByRank(std::move(rankGroups), std::move(children)));
    }
    return out;
  }

  // The requests 9999, 9998, ... back to the oldest one any execution of the event names.
  std::vector<Expr> recentWindow(const ParamValues& pv, const RankList& ranks, std::optional<std::int64_t>& window) {
    std::int64_t w = 1;
    for (auto& [r, g] : groupsFor(pv, ranks))
      for (auto v : g->values)
        if (v != kRequestNull && v <= kLatestRequest && v > kLatestRequest - kRequestRing)
          w = std::max(w, kLatestRequest - v + 1);
    window = w;
    std::vector<Expr> out;
    for (std::int64_t k = 0; k < w; ++k) out.push_back(Expr::constant(static_cast<double>(kLatestRequest - k)));
    return out;
  }

  // The vector length of each execution, cyclic, for the ranks `ranks` (which share one value
  // list of the parameter).
  std::vector<std::int64_t> vectorLengths(const Event& e, Param p, const RankList& ranks) const {
    if (p == Param::Requests || p == Param::GroupRanks || p == Param::GroupRanges) {
      const ParamValues* count = e.param(Param::Count);
      const ValueGroup* g = count ? count->groupFor(*ranks.first()) : nullptr;
      if (!g) throw std::invalid_argument(fmt::format("event {} ({}): no count for its vector", e.id, opName(e.op)));
      std::vector<std::int64_t> n = g->values;
      if (p == Param::GroupRanges)
        for (auto& v : n) v = saturatingMul(v, 3);
      // A count may declare more values than the call can have (a range list of 2^31-1 triples):
      // refused here, before a vector of that length is built, as the rank cursor refuses it.
      const std::int64_t limit = maxVectorValues(p, trace_.numRanks);
      for (std::int64_t v : n)
        if (v < 0 || v > limit)
          throw InputError(program_.source, e.line,
                           fmt::format("event {} ({}): {} values of parameter '{}' for one call (count {}), beyond the {} "
                                       "such a call can have",
                                       e.id, opName(e.op), v, paramName(p), p == Param::GroupRanges ? v / 3 : v, limit));
      return n;
    }
    if (topologyVectorParam(p)) {
      const bool edges = p == Param::Edges || p == Param::Destinations;
      const ParamValues* count = e.param(edges ? Param::RecvCount : Param::Count);
      const ValueGroup* g = count ? count->groupFor(*ranks.first()) : nullptr;
      if (!g)
        throw std::invalid_argument(fmt::format("event {} ({}): no {} for its vector '{}'", e.id, opName(e.op),
                                                edges ? "recvcount" : "count", paramName(p)));
      for (std::int64_t v : g->values)
        if (v < 0 || v > maxVectorValues(p, trace_.numRanks))
          throw InputError(program_.source, e.line,
                           fmt::format("event {} ({}): {} values of parameter '{}' for one call, beyond the {} such a call "
                                       "can have",
                                       e.id, opName(e.op), v, paramName(p), maxVectorValues(p, trace_.numRanks)));
      return g->values;
    }
    // Neighbourhood collectives: one value per source, or per destination (the send side of the
    // v and w forms), of the rank's topology.
    if (isNeighborCollective(e.op)) {
      const std::int64_t comm = e.uniformValue(Param::Comm).value_or(kCommWorld);
      const auto key = std::pair{comm, *ranks.first()};
      auto it = degrees_.find(key);
      if (it == degrees_.end()) {
        std::vector<Rank> sources, destinations;
        if (!topologyNeighbours(trace_, *ranks.first(), comm, sources, destinations, program_.source))
          throw std::invalid_argument(fmt::format("event {} ({}): communicator {} has no topology tracegen knows",
                                                  e.id, opName(e.op), comm));
        it = degrees_.emplace(key, std::pair<std::int64_t, std::int64_t>(sources.size(), destinations.size())).first;
      }
      return {neighborOutVector(e.op, p) ? it->second.second : it->second.first};
    }
    auto comm = e.uniformValue(Param::Comm).value_or(kCommWorld);
    if (comm == kCommWorld) return {trace_.numRanks};
    if (comm == kCommSelf) return {1};
    const Communicator* c = trace_.comm(comm);
    const RankList* inst = c ? c->instanceFor(*ranks.first()) : nullptr;
    if (!inst) throw std::invalid_argument(fmt::format("event {} ({}): communicator {} is unknown", e.id, opName(e.op), comm));
    return {inst->size()};
  }

  // Neighbourhood collectives: (in-degree, out-degree) per (communicator, rank).
  mutable std::map<std::pair<std::int64_t, Rank>, std::pair<std::int64_t, std::int64_t>> degrees_;

  void trackMessageSize(const Event& e, const RankList& ranks) {
    auto maxOf = [&](Param p) {
      std::int64_t m = 0;
      if (const ParamValues* pv = e.param(p))
        for (auto& [r, g] : groupsFor(*pv, ranks))
          for (auto v : g->values) m = std::max(m, v);
      return m;
    };
    auto typeSize = [&](Param p) {
      std::int64_t m = 0;
      if (const ParamValues* pv = e.param(p))
        for (const auto& g : pv->groups)
          for (auto v : g.values)
            if (const Datatype* d = trace_.datatype(v)) m = std::max(m, d->size);
      return m;
    };
    // The buffer size the benchmark allocates: products and sums of trace values, checked so
    // that an overflow is an error at the event rather than a buffer sized by a wrapped number.
    auto checked = [&](std::optional<std::int64_t> v) {
      if (v) return *v;
      throw InputError(program_.source, e.line,
                       fmt::format("event {} ({}): its largest message, in bytes, overflows 64 bits", e.id, opName(e.op)),
                       {}, "counts times datatype sizes (times the ranks of a gather) must fit in 64 bits");
    };
    std::int64_t bytes = std::max(checked(checkedMul(maxOf(Param::Count), typeSize(Param::Datatype))),
                                  checked(checkedMul(maxOf(Param::RecvCount),
                                                     std::max(typeSize(Param::RecvType), typeSize(Param::Datatype)))));
    for (Param p : {Param::RecvCounts, Param::SendCounts}) {
      std::int64_t sum = 0;
      if (const ParamValues* pv = e.param(p))
        for (const auto& g : pv->groups) {
          std::int64_t s = 0;
          for (auto v : g.values) s = checked(checkedAdd(s, std::max<std::int64_t>(v, 0)));
          sum = std::max(sum, s);
        }
      // MPI_Alltoallw: the per-peer datatypes.
      const std::int64_t perPeerSize = std::max(typeSize(Param::SendTypes), typeSize(Param::RecvTypes));
      bytes = std::max(bytes, checked(checkedMul(sum, std::max({typeSize(Param::Datatype), typeSize(Param::RecvType),
                                                                perPeerSize}))));
    }
    if (isCollective(opInfo(e.op).kind)) bytes = checked(checkedMul(bytes, trace_.numRanks));  // gathers and all-to-alls
    program_.maxMessageBytes = std::max(program_.maxMessageBytes, bytes);
  }

  const Trace& trace_;
  Program& program_;
  const ReceivedBytes* received_;
};

}  // namespace

Program buildProgram(const Trace& trace, const std::string& source, const ReceivedBytes* received) {
  if (!trace.worldPeers)
    for (const auto& e : trace.events)
      if (auto comm = e.param(Param::Comm))
        for (const auto& g : comm->groups)
          for (auto v : g.values)
            if (v != kCommWorld)
              throw InputError(source, e.line, "the trace uses sub-communicators: run the resolve-comms pass first");
  Program p;
  p.numRanks = trace.numRanks;
  p.source = source;
  p.origin = trace.origin;
  p.datatypes = trace.datatypes;
  p.comms = trace.comms;
  p.trace = &trace;
  p.receivesMatched = received != nullptr;
  p.rankShapes = trace.rankShapes;
  p.beforeInitUs = trace.beforeInitUs;
  p.afterFinalizeUs = trace.afterFinalizeUs;
  if (!trace.memoryKb.empty()) {
    std::vector<RankList> groups;
    std::vector<Expr> values;
    RankList rest = RankList::all(trace.numRanks);
    for (const ValueGroup& g : trace.memoryKb) {
      groups.push_back(g.ranks);
      values.push_back(Expr::constant(static_cast<double>(g.values.front())));
      rest = RankList::subtract(rest, g.ranks);
    }
    if (!rest.empty()) {  // ranks the recorder could not measure gain nothing
      groups.push_back(std::move(rest));
      values.push_back(Expr::constant(0));
    }
    for (const RankList& g : groups)
      if (!p.rankShapes.count(g.str())) p.rankShapes.emplace(g.str(), rankShape(g, trace.numRanks));
    p.memoryKb = groups.size() == 1 ? values.front() : simplifyByRank(std::move(groups), std::move(values));
  }
  if (received) {
    p.unreceivedMessages = received->unreceived;
    p.firstUnreceived = received->firstUnreceived;
  }
  if (const auto partial = partialCollectives(trace); !partial.empty()) {
    const Event& e = *partial.front();
    p.partialCollectives = static_cast<std::int64_t>(partial.size());
    p.firstPartialCollective = fmt::format("event {} {} at {} on ranks {}", e.id, opName(e.op), trace.siteLabel(e.site),
                                           e.ranks.pretty(8));
    p.firstPartialCollectiveLine = e.line;
  }

  Builder builder(trace, source);
  std::vector<Node> merged;
  bool firstClass = true;
  for (const auto& cls : builder.rankClasses()) {
    bool simulated = false;
    std::vector<Node> tree = builder.classTree(cls, simulated);
    if (!simulated) builder.assignCompute(tree);
    merged = firstClass ? std::move(tree) : builder.merge(std::move(merged), std::move(tree));
    firstClass = false;
  }
  ProgramWriter writer(trace, p, received);
  std::vector<std::pair<int, std::int64_t>> top;
  writer.statements(merged, p.body, &top);
  return p;
}

// ---- opaque calls

namespace {
std::string sitesOf(const Trace& trace, const Event& e) {
  std::string s(trace.siteName(e.site));
  for (SiteId m : e.mergedSites)
    if (m != e.site) s += fmt::format(", {}", trace.siteName(m));
  return s;
}
}  // namespace

std::vector<std::string> opaqueCalls(const Trace& trace) {
  std::vector<std::string> out;
  for (const Event& e : trace.events)
    if (isOpaque(opInfo(e.op).kind)) out.push_back(fmt::format("E{} {} at {}", e.id, opName(e.op), sitesOf(trace, e)));
  return out;
}

void requireModelled(const Trace& trace, const std::string& file) {
  std::size_t n = 0;
  const Event* first = nullptr;
  for (const Event& e : trace.events)
    if (isOpaque(opInfo(e.op).kind) && n++ == 0) first = &e;
  if (!first) return;
  throw InputError(file, first->line,
                   fmt::format("event {} is a call of {} at {}, which tracegen records but does not model{}", first->id,
                               opName(first->op), sitesOf(trace, *first),
                               n > 1 ? fmt::format(" (and {} more such events: `tracegen inspect` lists them)", n - 1) : ""),
                   {}, "`tracegen --skip-unknown` generates the benchmark without them, a comment in the place of each");
}

}  // namespace tracegen::gen
