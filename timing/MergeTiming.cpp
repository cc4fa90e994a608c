// The median of several recordings' times (timing/MergeTiming.h has the algorithm).
#include "timing/MergeTiming.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <tuple>

#include "ir/Diagnostics.h"

namespace tracegen {

namespace {

constexpr const char* kSameRunHint =
    "merge-timing takes recordings of one program run the same way (binary, input, rank count); "
    "`tracegen compare A B` shows the calls and bytes that differ";

// ---- the recordings are one program -----------------------------------------------------------

// What differs between two events of the same index, or "" when they are the same call of the
// program (times aside; call sites compared by name, as their numbering is the file's).
std::string eventDifference(const Trace& ta, const Event& a, const Trace& tb, const Event& b) {
  if (a.op != b.op) return fmt::format("{} where the first recording has {}", opName(b.op), opName(a.op));
  if (ta.siteName(a.site) != tb.siteName(b.site))
    return fmt::format("call site {} where the first recording has {}", tb.siteName(b.site), ta.siteName(a.site));
  if (!(a.ranks == b.ranks))
    return fmt::format("ranks {} where the first recording has {}", b.ranks.pretty(), a.ranks.pretty());
  if (a.loops != b.loops) return "other loops (trip counts or bodies)";
  if (a.params.size() != b.params.size()) return "other parameters";
  for (std::size_t k = 0; k < a.params.size(); ++k)
    if (!(a.params[k] == b.params[k]))
      return fmt::format("other values of '{}'", paramName(b.params[k].param));
  if (a.mergedSites.size() != b.mergedSites.size()) return "other merged call sites";
  for (std::size_t k = 0; k < a.mergedSites.size(); ++k)
    if (ta.siteName(a.mergedSites[k]) != tb.siteName(b.mergedSites[k])) return "other merged call sites";
  return {};
}

void requireOneProgram(const std::vector<Trace>& ts, const std::vector<std::string>& files) {
  const Trace& first = ts.front();
  for (std::size_t i = 0; i < ts.size(); ++i) {
    const Trace& t = ts[i];
    for (const Event& e : t.events)
      if (!e.compute.empty())
        throw InputError(files[i], e.line,
                         fmt::format("event {} {} has summarised compute times: a lowered trace, not a recording",
                                     e.id, opName(e.op)),
                         {}, "merge the recordings as the recorder wrote them, then lower or generate from the merge");
    if (i == 0) continue;
    auto differ = [&](const std::string& what) {
      throw InputError(files[i], t.events.empty() ? 0 : t.events.front().line,
                       fmt::format("not the run of {}: {}", files[0], what), {}, kSameRunHint);
    };
    if (t.numRanks != first.numRanks) differ(fmt::format("{} ranks where it has {}", t.numRanks, first.numRanks));
    if (t.datatypes != first.datatypes) differ("other datatypes");
    if (t.comms != first.comms) differ("other communicators");
    const std::size_t common = std::min(t.events.size(), first.events.size());
    for (std::size_t k = 0; k < common; ++k) {
      const std::string why = eventDifference(first, first.events[k], t, t.events[k]);
      if (!why.empty())
        throw InputError(files[i], t.events[k].line,
                         fmt::format("event {} {} at {} is not event {} of {} (line {}): {}", k, opName(t.events[k].op),
                                     t.siteLabel(t.events[k].site), k, files[0], first.events[k].line, why),
                         {}, kSameRunHint);
    }
    if (t.events.size() != first.events.size())
      differ(fmt::format("{} events where it has {} (the first {} agree)", t.events.size(), first.events.size(), common));
  }
}

// ---- medians --------------------------------------------------------------------------------

// The median of the values (the mean of the middle two for an even count) and the index of the
// middle value (the lower middle for an even count) in `values`.
std::pair<double, std::size_t> medianOf(const std::vector<double>& values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  const std::size_t n = order.size(), lower = order[(n - 1) / 2];
  const double median = n % 2 ? values[lower] : (values[lower] + values[order[n / 2]]) / 2.0;
  return {median, lower};
}

// Every time of the histogram times `f` (counts unchanged): the middle recording's shape at the
// median's level.
void scaleHistogram(Histogram& h, double f) {
  if (f == 1.0) return;
  h.avg *= f, h.min *= f, h.max *= f;
  for (Bin& b : h.bins) b.start *= f, b.min *= f, b.avg *= f, b.max *= f, b.end *= f;
  for (CallRange& r : h.calls) r.avg *= f;
}

// The common refinement of the recordings' groups: per recording, disjoint groups of ranks
// each with one value (a histogram, a peak memory); each piece of the refinement with the value
// of every recording's group that covers it. Where a step would make more than kMaxTimingGroups
// pieces, the pieces so far stay, each with the value of the group that holds its first rank.
template <class T>
using Pieces = std::vector<std::pair<RankList, std::vector<T>>>;
template <class T>
Pieces<T> refine(const std::vector<std::vector<std::pair<RankList, T>>>& parts) {
  Pieces<T> pieces;
  for (const auto& [ranks, value] : parts.front()) pieces.push_back({ranks, {value}});
  for (std::size_t i = 1; i < parts.size(); ++i) {
    Pieces<T> next;
    bool tooMany = false;
    for (const auto& [ranks, values] : pieces) {
      for (const auto& [theirs, value] : parts[i]) {
        if (!ranks.intersects(theirs)) continue;
        if (next.size() == kMaxTimingGroups) {
          tooMany = true;
          break;
        }
        auto v = values;
        v.push_back(value);
        next.push_back({RankList::intersect(ranks, theirs), std::move(v)});
      }
      if (tooMany) break;
    }
    if (tooMany) {
      next.clear();
      for (const auto& [ranks, values] : pieces) {
        auto v = values;
        for (const auto& [theirs, value] : parts[i])
          if (ranks.first() && theirs.contains(*ranks.first())) v.push_back(value);
        next.push_back({ranks, std::move(v)});
      }
    }
    pieces = std::move(next);
  }
  return pieces;
}

struct SpreadTally {
  std::vector<double> spreads;
  double max = 0;
  std::int64_t maxEvent = -1;
};

// One merged histogram from the recordings' histograms of the same calls.
Histogram medianHistogram(const std::vector<const Histogram*>& hists, bool compute, TimeUnit unit, std::int64_t eventId,
                          SpreadTally& tally) {
  std::vector<double> means;
  for (const Histogram* h : hists) means.push_back(h->mean());
  const auto [median, middle] = medianOf(means);
  Histogram out = *hists[middle];
  const double m = means[middle];
  if (m > 0) scaleHistogram(out, median / m);
  // Drift: where every recording cut its calls into the same ranges, each range's median.
  const bool sameRanges = !out.calls.empty() && std::all_of(hists.begin(), hists.end(), [&](const Histogram* h) {
    return h->calls.size() == out.calls.size() &&
           std::equal(h->calls.begin(), h->calls.end(), out.calls.begin(),
                      [](const CallRange& x, const CallRange& y) { return x.first == y.first && x.n == y.n; });
  });
  if (sameRanges)
    for (std::size_t r = 0; r < out.calls.size(); ++r) {
      std::vector<double> avgs;
      for (const Histogram* h : hists) avgs.push_back(h->calls[r].avg);
      out.calls[r].avg = medianOf(avgs).first;
    }
  if (compute && unit == TimeUnit::Microseconds && median >= kTimingSlackUs) {
    const auto [lo, hi] = std::minmax_element(means.begin(), means.end());
    const double spread = (*hi - *lo) / median;
    tally.spreads.push_back(spread);
    if (spread > tally.max) tally.max = spread, tally.maxEvent = eventId;
  }
  return out;
}

using StatKey = std::tuple<Phase, TimeUnit, std::string>;  // the predecessor by site name

std::vector<TimeStat> mergeStats(const std::vector<Trace>& ts, std::size_t eventIndex, Trace& merged,
                                 SpreadTally& tally) {
  const Event& base = ts.front().events[eventIndex];
  // Per key, per recording that has it: its disjoint sub-groups and their histograms.
  std::map<StatKey, std::vector<std::vector<std::pair<RankList, const Histogram*>>>> byKey;
  std::vector<StatKey> order;  // keys in the first recording's order
  for (const Trace& t : ts) {
    std::map<StatKey, std::vector<std::pair<RankList, const Histogram*>>> mine;
    const Event& e = t.events[eventIndex];
    for (const TimeStat& s : e.stats) {
      StatKey key{s.phase, s.unit, std::string(t.siteName(s.after))};
      mine[key].push_back({s.ranks.empty() ? e.ranks : s.ranks, &s.hist});
      if (std::find(order.begin(), order.end(), key) == order.end()) order.push_back(key);
    }
    for (auto& [key, groups] : mine) byKey[key].push_back(std::move(groups));
  }
  std::vector<TimeStat> out;
  for (const StatKey& key : order) {
    const auto& parts = byKey[key];
    const auto& [phase, unit, afterName] = key;
    for (auto& [ranks, hists] : refine(parts)) {
      TimeStat s;
      s.phase = phase, s.unit = unit;
      s.after = afterName == "-" ? kNoSite : merged.internSite(afterName);
      s.hist = medianHistogram(hists, phase == Phase::Compute, unit, base.id, tally);
      s.ranks = ranks == base.ranks ? RankList{} : ranks;
      out.push_back(std::move(s));
    }
  }
  return out;
}

// The footprint's peak memory per rank: the median of the recordings' values, per piece of
// their groups' common refinement (the first recording's groups past kMaxTimingGroups pieces).
std::vector<ValueGroup> medianMemory(const std::vector<Trace>& ts) {
  if (std::any_of(ts.begin(), ts.end(), [](const Trace& t) { return t.memoryKb.empty(); })) return {};
  std::vector<std::vector<std::pair<RankList, std::int64_t>>> parts;
  for (const Trace& t : ts) {
    auto& mine = parts.emplace_back();
    for (const ValueGroup& g : t.memoryKb) mine.push_back({g.ranks, g.values.front()});
  }
  std::vector<ValueGroup> out;
  for (const auto& [ranks, values] : refine(parts)) {
    std::vector<double> v(values.begin(), values.end());
    out.push_back({ranks, {static_cast<std::int64_t>(std::llround(medianOf(v).first))}});
  }
  return out;
}

// The median of the recordings' non-negative values; -1 where a recording has none.
double medianTime(const std::vector<Trace>& ts, double Trace::*field) {
  std::vector<double> v;
  for (const Trace& t : ts) {
    if (t.*field < 0) return -1;
    v.push_back(t.*field);
  }
  return medianOf(v).first;
}

}  // namespace

Trace mergeTimings(const std::vector<Trace>& recordings, const std::vector<std::string>& files) {
  if (recordings.size() < 2 || files.size() != recordings.size())
    throw std::invalid_argument("mergeTimings: at least two recordings, each with its file name");
  requireOneProgram(recordings, files);
  Trace merged = recordings.front();
  SpreadTally tally;
  for (std::size_t k = 0; k < merged.events.size(); ++k) merged.events[k].stats = mergeStats(recordings, k, merged, tally);
  merged.memoryKb = medianMemory(recordings);
  merged.beforeInitUs = medianTime(recordings, &Trace::beforeInitUs);
  merged.afterFinalizeUs = medianTime(recordings, &Trace::afterFinalizeUs);
  merged.recordings.count = static_cast<int>(recordings.size());
  if (!tally.spreads.empty()) {
    merged.recordings.spreadMedian = medianOf(tally.spreads).first;
    merged.recordings.spreadMax = tally.max;
    merged.recordings.spreadMaxEvent = tally.maxEvent;
  }
  return merged;
}

}  // namespace tracegen
