#include "ir/Verify.h"

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <set>
#include <tuple>

#include "ir/Diagnostics.h"
#include "ir/RankClasses.h"

namespace tracegen {

namespace {

class LoopChecker {
 public:
  LoopChecker(const Trace& t, const std::string& file, const EventLines& lines, Rank r)
      : trace_(t), file_(file), lines_(lines), rank_(r) {
    for (const Event& e : t.events) {
      if (!e.ranks.contains(r)) continue;
      Item item;
      item.event = &e;
      for (std::size_t k = 0; k < e.loops.size(); ++k) {
        const ValueGroup* iter = nullptr;
        const ValueGroup* mem = nullptr;
        for (const auto& g : e.loops[k].iter)
          if (g.ranks.contains(r)) iter = &g;
        for (const auto& g : e.loops[k].mem)
          if (g.ranks.contains(r)) mem = &g;
        if (!iter && !mem) break;
        if (!iter || !mem)
          fail(e, fmt::format("loop level {} gives rank {} {} but no {}", k, r, iter ? "an iteration count" : "a body length",
                              iter ? "body length" : "iteration count"), loopLine(e, k));
        for (auto v : iter->values)
          if (v < 0) fail(e, fmt::format("loop level {} has {} iterations", k, v), loopLine(e, k));
        item.mems.push_back(mem);
        item.iters.push_back(iter);
        item.varies = item.varies || std::adjacent_find(mem->values.begin(), mem->values.end(),
                                                        std::not_equal_to<>()) != mem->values.end();
      }
      item.memPos.assign(item.mems.size(), 0);
      item.iterPos.assign(item.mems.size(), 0);
      items_.push_back(std::move(item));
    }
    varyingBefore_.assign(items_.size() + 1, 0);
    for (std::size_t i = 0; i < items_.size(); ++i) varyingBefore_[i + 1] = varyingBefore_[i] + (items_[i].varies ? 1 : 0);
  }

  void run() {
    if (varyingBefore_.back() == 0) {
      walk(0, items_.size(), true);
      return;
    }
    // Body lengths that change per entry (§8 "Value vectors"): which length meets which
    // enclosing body depends on the cursors, so the loops that hold such a head are followed
    // entry by entry, as the expansion does, up to a budget; RankCursor checks the rest.
    try {
      walkEntries(0, items_.size(), true);
    } catch (const BudgetSpent&) {
    }
  }

 private:
  struct Item {
    const Event* event = nullptr;
    std::vector<const ValueGroup*> mems;
    std::vector<const ValueGroup*> iters;
    std::vector<std::size_t> memPos, iterPos;  // cursors for walkEntries
    bool varies = false;  // some level's body length changes from one entry to the next
  };
  struct BudgetSpent {};
  static constexpr std::int64_t kEntryBudget = std::int64_t{1} << 22;

  [[noreturn]] void fail(const Event& e, const std::string& what, int line = 0) const {
    throw InputError(file_, line > 0 ? line : e.line, fmt::format("event {} ({}): {}", e.id, opName(e.op), what));
  }

  int loopLine(const Event& e, std::size_t level) const {
    return lines_.loopLine(static_cast<std::size_t>(&e - trace_.events.data()), level, e.line);
  }

  // Steps over the events [j, end) of the rank, a loop at a time; `top` if that is the whole
  // trace rather than a loop body.
  void walk(std::size_t j, std::size_t end, bool top) {
    while (j < end) j += items_[j].mems.empty() ? 1 : span(j, 0, end, top);
  }

  // Events spanned by the level-k loop headed by item h, whose enclosing body ends at `limit`;
  // with several body lengths (consumed cyclically) each is checked and the largest returned.
  // Memoised: the same head and level are reached once per enclosing body length.
  std::size_t span(std::size_t h, std::size_t k, std::size_t limit, bool top) {
    auto key = std::make_tuple(h, k, limit);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    const Item& item = items_[h];
    std::set<std::int64_t> lengths(item.mems[k]->values.begin(), item.mems[k]->values.end());
    std::size_t result = 0;
    for (std::int64_t m : lengths) {
      if (m < 1) fail(*item.event, fmt::format("loop level {} has a body of {} events", k, m), loopLine(*item.event, k));
      if (m > static_cast<std::int64_t>(limit - h))
        fail(*item.event,
             fmt::format("loop level {} spans {} events but rank {} has only {} events left in the enclosing {}", k, m, rank_,
                         limit - h, top && k == 0 ? "trace" : "loop body"),
             loopLine(*item.event, k));
      std::size_t end = h + static_cast<std::size_t>(m);
      std::size_t j = item.mems.size() > k + 1 ? h + span(h, k + 1, end, false) : h + 1;
      walk(j, end, false);
      result = std::max(result, static_cast<std::size_t>(m));
    }
    memo_.emplace(key, result);
    return result;
  }

  bool varyingIn(std::size_t from, std::size_t to) const { return varyingBefore_[to] != varyingBefore_[from]; }

  // walk() with real cursors: every entry of a loop uses its own body length and trip count.
  void walkEntries(std::size_t j, std::size_t end, bool top) {
    while (j < end) j += items_[j].mems.empty() ? 1 : entry(j, 0, end, top);
  }

  std::size_t entry(std::size_t h, std::size_t k, std::size_t limit, bool top) {
    if (++entries_ > kEntryBudget) throw BudgetSpent{};
    Item& item = items_[h];
    const std::int64_t m = item.mems[k]->values[item.memPos[k]];
    const std::int64_t n = item.iters[k]->values[item.iterPos[k]];
    item.memPos[k] = (item.memPos[k] + 1) % item.mems[k]->values.size();
    item.iterPos[k] = (item.iterPos[k] + 1) % item.iters[k]->values.size();
    if (m < 1) fail(*item.event, fmt::format("loop level {} has a body of {} events", k, m), loopLine(*item.event, k));
    if (m > static_cast<std::int64_t>(limit - h))
      fail(*item.event,
           fmt::format("loop level {} spans {} events on an entry where rank {} has only {} events left in the enclosing {}",
                       k, m, rank_, limit - h, top && k == 0 ? "trace" : "loop body"),
           loopLine(*item.event, k));
    const std::size_t end = h + static_cast<std::size_t>(m);
    if (!varyingIn(h, end)) {
      // Every iteration of this entry has the same shape: the static check covers it.
      std::size_t j = item.mems.size() > k + 1 ? h + span(h, k + 1, end, false) : h + 1;
      walk(j, end, false);
      return static_cast<std::size_t>(m);
    }
    for (std::int64_t i = 0; i < n; ++i) {
      std::size_t j = item.mems.size() > k + 1 ? h + entry(h, k + 1, end, false) : h + 1;
      walkEntries(j, end, false);
    }
    return static_cast<std::size_t>(m);
  }

  std::vector<std::size_t> varyingBefore_;  // number of varying items before each position
  std::int64_t entries_ = 0;
  const Trace& trace_;
  const std::string& file_;
  const EventLines& lines_;
  Rank rank_;
  std::map<std::tuple<std::size_t, std::size_t, std::size_t>, std::size_t> memo_;
  std::vector<Item> items_;
};

}  // namespace

int EventLines::loopLine(std::size_t event, std::size_t level, int fallback) const {
  if (event < loops.size() && level < loops[event].size() && loops[event][level] > 0) return loops[event][level];
  return fallback;
}

int EventLines::paramLine(std::size_t event, Param p, int fallback) const {
  if (event < params.size())
    if (auto it = params[event].find(p); it != params[event].end() && it->second > 0) return it->second;
  return fallback;
}

void verifyStructure(const Trace& trace, const std::string& fileName, Rank maxRanksChecked) {
  verifyStructure(trace, fileName, maxRanksChecked, EventLines{});
}

void verifyStructure(const Trace& trace, const std::string& fileName, Rank maxRanksChecked, const EventLines& lines) {
  const Rank P = trace.numRanks;
  if (P < 1) throw InputError(fileName, 0, "trace has no ranks");
  auto inRange = [&](const Event& e, int line, const RankList& l, const char* what) {
    if (l.empty()) throw InputError(fileName, line, fmt::format("event {}: empty {}", e.id, what));
    if (*l.first() < 0 || *l.last() >= P)
      throw InputError(fileName, line,
                       fmt::format("event {}: {} {} names ranks outside 0..{}", e.id, what, l.pretty(), P - 1));
  };
  // Communicators: an explicit rank order is a permutation of its instance's members, and
  // every communicator a call uses exists: a negative id never does (a recorder that missed
  // the constructor); in a trace with a communicator table (recorded traces) or whose creating
  // calls name what they make, an id must be declared or made by a call. A ScalaTrace trace
  // has neither and numbers its communicators implicitly, 1000 + k.
  std::set<std::int64_t> known{kCommNull, kCommSelf, kCommWorld};
  bool strict = false;
  for (const Communicator& c : trace.comms) {
    known.insert(c.id);
    strict = strict || c.id >= 1000;
    if (c.orders.size() > c.instances.size())
      throw InputError(fileName, 0, fmt::format("communicator {}: {} rank orders for {} instances", c.id, c.orders.size(),
                                                c.instances.size()));
    for (std::size_t k = 0; k < c.orders.size(); ++k) {
      if (c.orders[k].empty()) continue;
      std::vector<Rank> sorted = c.orders[k];
      std::sort(sorted.begin(), sorted.end());
      if (static_cast<Rank>(sorted.size()) != c.instances[k].size() || sorted != c.instances[k].toVector())
        throw InputError(fileName, 0,
                         fmt::format("communicator {}: the rank order of instance {} is not a permutation of its members",
                                     c.id, c.instances[k].pretty()));
    }
  }
  for (const Event& e : trace.events) {
    if (opInfo(e.op).kind != OpKind::CommCreate) continue;
    if (const ParamValues* n = e.param(Param::NewComm)) {
      for (const auto& g : n->groups) known.insert(g.values.begin(), g.values.end());
      strict = true;
    }
  }
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    const ParamValues* c = e.param(Param::Comm);
    if (!c) continue;
    for (const auto& g : c->groups)
      for (auto v : g.values)
        if (v < 0 || (strict && !known.count(v)))
          throw InputError(fileName, lines.paramLine(i, Param::Comm, e.line),
                           fmt::format("event {} ({}): communicator {} was never created (no declaration and no call of "
                                       "the trace makes it; a recorder that did not intercept its constructor?)",
                                       e.id, opName(e.op), v));
  }
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    inRange(e, e.line, e.ranks, "ranklist");
    for (std::size_t k = 0; k < e.loops.size(); ++k) {
      const LoopLevel& lv = e.loops[k];
      const int line = lines.loopLine(i, k, e.line);
      for (const auto* groups : {&lv.iter, &lv.mem})
        for (const auto& g : *groups) {
          inRange(e, line, g.ranks, "loop group");
          if (g.values.empty()) throw InputError(fileName, line, fmt::format("event {}: loop group without values", e.id));
        }
    }
    for (const auto& pv : e.params) {
      const int line = lines.paramLine(i, pv.param, e.line);
      Rank covered = 0;
      for (const auto& g : pv.groups) {
        inRange(e, line, g.ranks, "parameter group");
        covered += g.ranks.size();
        if (g.values.empty())
          throw InputError(fileName, line, fmt::format("event {}: parameter '{}' has an empty value list", e.id, paramName(pv.param)));
        if (isDatatypeParam(pv.param))
          for (auto v : g.values)
            if (!trace.datatype(v))
              throw InputError(fileName, line, fmt::format("event {}: datatype {} is not declared", e.id, v));
      }
      if (covered != e.ranks.size())
        throw InputError(fileName, line,
                         fmt::format("event {}: parameter '{}' has values for {} of its {} ranks", e.id,
                                     paramName(pv.param), covered, e.ranks.size()));
    }
    // Timing sub-groups: ranks of the event, disjoint for one key (a line without ranks is alone).
    auto subGroups = [&](const RankList& ranks, auto sameKeyRanks, const char* what) {
      if (ranks.empty()) return;
      inRange(e, e.line, ranks, what);
      if (!ranks.isSubsetOf(e.ranks))
        throw InputError(fileName, e.line, fmt::format("event {}: {} {} holds ranks that do not execute it", e.id, what,
                                                       ranks.pretty()));
      sameKeyRanks([&](const RankList& other) {
        if (other.empty() || other.intersects(ranks))
          throw InputError(fileName, e.line, fmt::format("event {}: {} {} overlaps another of the same predecessor", e.id,
                                                         what, ranks.pretty()));
      });
    };
    for (std::size_t k = 0; k < e.stats.size(); ++k)
      subGroups(e.stats[k].ranks, [&](auto check) {
        for (std::size_t j = 0; j < e.stats.size(); ++j)
          if (j != k && e.stats[j].phase == e.stats[k].phase && e.stats[j].unit == e.stats[k].unit &&
              e.stats[j].after == e.stats[k].after)
            check(e.stats[j].ranks);
      }, "timing sub-group");
    for (std::size_t k = 0; k < e.compute.size(); ++k)
      subGroups(e.compute[k].ranks, [&](auto check) {
        for (std::size_t j = 0; j < e.compute.size(); ++j)
          if (j != k && e.compute[j].after == e.compute[k].after) check(e.compute[j].ranks);
      }, "compute sub-group");
  }
  // Loops are checked for every rank: small traces rank by rank, others once per rank class
  // (ranks of a class have the same events and loop groups, so the same walk).
  if (P <= maxRanksChecked) {
    for (Rank r = 0; r < P; ++r) LoopChecker(trace, fileName, lines, r).run();
  } else {
    for (const auto& cls : rankClasses(trace, /*byParameters=*/false)) LoopChecker(trace, fileName, lines, *cls.first()).run();
  }
}

}  // namespace tracegen
