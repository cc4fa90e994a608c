#include "ir/RankClasses.h"

#include <algorithm>

namespace tracegen {

void refinePartition(std::vector<RankList>& classes, const RankList& by) {
  std::vector<RankList> next;
  next.reserve(classes.size() + 1);
  for (auto& c : classes) {
    if (!c.intersects(by) || c.isSubsetOf(by)) {
      next.push_back(std::move(c));
      continue;
    }
    RankList in = RankList::intersect(c, by);
    RankList out = RankList::subtract(c, by);
    next.push_back(std::move(in));
    if (!out.empty()) next.push_back(std::move(out));
  }
  classes = std::move(next);
}

std::vector<RankList> rankClasses(const Trace& trace, bool byParameters) {
  std::vector<RankList> classes{RankList::all(trace.numRanks)};
  auto refine = [&](const RankList& by) { refinePartition(classes, by); };
  // A single group covers its event's ranks (groups partition them): only several split.
  for (const auto& e : trace.events) {
    refine(e.ranks);
    for (const auto& lv : e.loops) {
      if (lv.iter.size() > 1)
        for (const auto& g : lv.iter) refine(g.ranks);
      if (lv.mem.size() > 1)
        for (const auto& g : lv.mem) refine(g.ranks);
      // A loop group may cover only some of the event's ranks (the others do not head it).
      if (lv.iter.size() == 1) refine(lv.iter.front().ranks);
      if (lv.mem.size() == 1) refine(lv.mem.front().ranks);
    }
    if (byParameters) {
      for (const auto& p : e.params)
        if (p.groups.size() > 1)
          for (const auto& g : p.groups) refine(g.ranks);
      // Timing sub-groups: ranks of one class spend the same time.
      for (const auto& st : e.stats)
        if (!st.ranks.empty()) refine(st.ranks);
      for (const auto& c : e.compute)
        if (!c.ranks.empty()) refine(c.ranks);
    }
  }
  std::sort(classes.begin(), classes.end(), [](const RankList& a, const RankList& b) { return *a.first() < *b.first(); });
  return classes;
}

}  // namespace tracegen
