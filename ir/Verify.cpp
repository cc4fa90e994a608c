#include "ir/Verify.h"

#include <fmt/format.h>
#include <set>

#include "ir/Diagnostics.h"

namespace tracegen {

namespace {

class LoopChecker {
 public:
  LoopChecker(const Trace& t, const std::string& file, Rank r) : trace_(t), file_(file), rank_(r) {
    for (const Event& e : t.events) {
      if (!e.ranks.contains(r)) continue;
      Item item{&e, {}};
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
                              iter ? "body length" : "iteration count"));
        for (auto v : iter->values)
          if (v < 0) fail(e, fmt::format("loop level {} has {} iterations", k, v));
        item.mems.push_back(mem);
      }
      items_.push_back(std::move(item));
    }
  }

  void run() { walk(0, items_.size()); }

 private:
  struct Item {
    const Event* event;
    std::vector<const ValueGroup*> mems;
  };

  [[noreturn]] void fail(const Event& e, const std::string& what) const {
    throw InputError(file_, e.line, fmt::format("event {} ({}): {}", e.id, opName(e.op), what));
  }

  void walk(std::size_t j, std::size_t end) {
    while (j < end) j += items_[j].mems.empty() ? 1 : span(j, 0, end);
  }

  std::size_t span(std::size_t h, std::size_t k, std::size_t limit) {
    const Item& item = items_[h];
    std::set<std::int64_t> lengths(item.mems[k]->values.begin(), item.mems[k]->values.end());
    std::size_t result = 0;
    for (std::int64_t m : lengths) {
      if (m < 1) fail(*item.event, fmt::format("loop level {} has a body of {} events", k, m));
      if (h + static_cast<std::size_t>(m) > limit)
        fail(*item.event, fmt::format("loop level {} spans {} events but rank {} has only {} events left in the enclosing {}",
                                      k, m, rank_, limit - h, limit == items_.size() ? "trace" : "loop body"));
      std::size_t end = h + static_cast<std::size_t>(m);
      std::size_t j = item.mems.size() > k + 1 ? h + span(h, k + 1, end) : h + 1;
      walk(j, end);
      result = std::max(result, static_cast<std::size_t>(m));
    }
    return result;
  }

  const Trace& trace_;
  const std::string& file_;
  Rank rank_;
  std::vector<Item> items_;
};

}  // namespace

void verifyStructure(const Trace& trace, const std::string& fileName, Rank maxRanksChecked) {
  const Rank P = trace.numRanks;
  if (P < 1) throw InputError(fileName, 0, "trace has no ranks");
  auto inRange = [&](const Event& e, const RankList& l, const char* what) {
    if (l.empty()) throw InputError(fileName, e.line, fmt::format("event {}: empty {}", e.id, what));
    if (*l.first() < 0 || *l.last() >= P)
      throw InputError(fileName, e.line,
                       fmt::format("event {}: {} {} names ranks outside 0..{}", e.id, what, l.pretty(), P - 1));
  };
  std::set<Rank> sample;
  auto addSample = [&](const RankList& l) {
    if (P > maxRanksChecked && !l.empty()) {
      sample.insert(*l.first());
      sample.insert(*l.last());
    }
  };
  for (const Event& e : trace.events) {
    inRange(e, e.ranks, "ranklist");
    addSample(e.ranks);
    for (const auto& lv : e.loops)
      for (const auto* groups : {&lv.iter, &lv.mem})
        for (const auto& g : *groups) {
          inRange(e, g.ranks, "loop group");
          addSample(g.ranks);
          if (g.values.empty()) throw InputError(fileName, e.line, fmt::format("event {}: loop group without values", e.id));
        }
    for (const auto& pv : e.params) {
      Rank covered = 0;
      for (const auto& g : pv.groups) {
        inRange(e, g.ranks, "parameter group");
        addSample(g.ranks);
        covered += g.ranks.size();
        if (g.values.empty())
          throw InputError(fileName, e.line, fmt::format("event {}: parameter '{}' has an empty value list", e.id, paramName(pv.param)));
        if (pv.param == Param::Datatype || pv.param == Param::RecvType)
          for (auto v : g.values)
            if (!trace.datatype(v))
              throw InputError(fileName, e.line, fmt::format("event {}: datatype {} is not declared", e.id, v));
      }
      if (covered != e.ranks.size())
        throw InputError(fileName, e.line,
                         fmt::format("event {}: parameter '{}' has values for {} of its {} ranks", e.id,
                                     paramName(pv.param), covered, e.ranks.size()));
    }
  }
  if (P <= maxRanksChecked) {
    for (Rank r = 0; r < P; ++r) LoopChecker(trace, fileName, r).run();
  } else {
    for (Rank r : sample) LoopChecker(trace, fileName, r).run();
  }
}

}  // namespace tracegen
