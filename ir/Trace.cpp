#include "ir/Trace.h"

#include <algorithm>
#include <cmath>

namespace tracegen {

const ValueGroup* ParamValues::groupFor(Rank r) const {
  if (groups.size() == 1) return &groups.front();  // the common case: one list for all
  for (const auto& g : groups)
    if (g.ranks.contains(r)) return &g;
  return nullptr;
}

double Histogram::mean() const {
  if (n <= 0) return 0.0;
  if (bins.empty()) return avg;
  double sum = 0;
  std::int64_t count = 0;
  for (const auto& b : bins) {
    sum += b.avg * static_cast<double>(b.freq);
    count += b.freq;
  }
  return count > 0 ? sum / static_cast<double>(count) : avg;
}

double Histogram::median() const {
  if (n <= 0) return 0.0;
  if (bins.empty()) return avg;
  std::int64_t total = 0;
  for (const auto& b : bins) total += b.freq;
  const double middle = static_cast<double>(total - 1) / 2.0;  // 0-based index of the median sample
  std::int64_t seen = 0;
  for (const auto& b : bins) {
    if (b.freq == 0) continue;
    if (middle < static_cast<double>(seen + b.freq)) {
      if (b.freq == 1) return b.avg;
      double pos = (middle - static_cast<double>(seen)) / static_cast<double>(b.freq - 1);
      return b.min + pos * (b.max - b.min);
    }
    seen += b.freq;
  }
  return bins.back().avg;
}

std::string_view timeUnitName(TimeUnit u) { return u == TimeUnit::Microseconds ? "us" : "kinst"; }
std::string_view phaseName(Phase p) { return p == Phase::Compute ? "comp" : "mpi"; }

const ParamValues* Event::param(Param p) const {
  for (const auto& pv : params)
    if (pv.param == p) return &pv;
  return nullptr;
}

ParamValues* Event::param(Param p) {
  for (auto& pv : params)
    if (pv.param == p) return &pv;
  return nullptr;
}

ParamValues& Event::setParam(Param p, std::vector<ValueGroup> groups, bool relative) {
  ParamValues* pv = param(p);
  if (!pv) {
    auto it = std::lower_bound(params.begin(), params.end(), p,
                               [](const ParamValues& a, Param b) { return a.param < b; });
    pv = &*params.insert(it, ParamValues{p, relative, {}});
  }
  pv->relative = relative;
  pv->groups = std::move(groups);
  return *pv;
}

std::optional<std::int64_t> Event::uniformValue(Param p) const {
  const ParamValues* pv = param(p);
  if (!pv || pv->groups.empty()) return std::nullopt;
  std::optional<std::int64_t> v;
  for (const auto& g : pv->groups)
    for (auto x : g.values) {
      if (v && *v != x) return std::nullopt;
      v = x;
    }
  return v;
}

bool Event::operator==(const Event& o) const {
  return id == o.id && op == o.op && site == o.site && mergedSites == o.mergedSites && ranks == o.ranks && loops == o.loops &&
         params == o.params && stats == o.stats && compute == o.compute;
}

const RankList* Communicator::instanceFor(Rank r) const {
  if (instances.size() == 1) return instances.front().contains(r) ? &instances.front() : nullptr;
  for (const auto& i : instances)
    if (i.contains(r)) return &i;
  return nullptr;
}

bool isCommunicatorKind(std::string_view kind) {
  for (std::string_view k : {"world", "self", "split", "dup", "create", "cart", "cart_sub", "graph", "dist_graph",
                             "split_type", "create_group", "idup"})
    if (k == kind) return true;
  return false;
}

std::int64_t Communicator::instanceIndex(Rank r) const {
  for (std::size_t i = 0; i < instances.size(); ++i)
    if (instances[i].contains(r)) return static_cast<std::int64_t>(i);
  return -1;
}

Rank Communicator::worldRank(std::size_t i, Rank commRank) const {
  if (const std::vector<Rank>* o = orderOf(i)) return (*o)[static_cast<std::size_t>(commRank)];
  return instances[i].at(commRank);
}

Rank Communicator::commRank(std::size_t i, Rank world) const {
  if (const std::vector<Rank>* o = orderOf(i)) {
    auto it = std::find(o->begin(), o->end(), world);
    return it == o->end() ? -1 : static_cast<Rank>(it - o->begin());
  }
  std::optional<Rank> k = instances[i].indexOf(world);
  return k ? *k : -1;
}

void Communicator::setOrder(std::size_t i, std::vector<Rank> order) {
  const bool ascending = std::is_sorted(order.begin(), order.end());
  if (ascending && i >= orders.size()) return;
  if (orders.size() <= i) orders.resize(i + 1);
  orders[i] = ascending ? std::vector<Rank>{} : std::move(order);
  while (!orders.empty() && orders.back().empty()) orders.pop_back();
}

SiteId Trace::internSite(std::string_view signature) {
  // Sites appended directly (a reader's site table, which may repeat a name) are indexed once
  // each; comparing the index's size with the table's rebuilt the whole index on every call
  // once a name repeated (quadratic: the fuzzer's slowest inputs). Equal names keep the first id.
  if (sitesIndexed_ > sites.size()) {  // the table was cut or replaced
    siteIndex_.clear();
    sitesIndexed_ = 0;
  }
  for (; sitesIndexed_ < sites.size(); ++sitesIndexed_)
    siteIndex_.emplace(sites[sitesIndexed_], static_cast<SiteId>(sitesIndexed_));
  auto [it, inserted] = siteIndex_.emplace(std::string(signature), static_cast<SiteId>(sites.size()));
  if (inserted) {
    sites.emplace_back(signature);
    sitesIndexed_ = sites.size();
  }
  return it->second;
}

const Datatype* Trace::datatype(std::int64_t id) const {
  for (const auto& d : datatypes)
    if (d.id == id) return &d;
  return nullptr;
}

const Communicator* Trace::comm(std::int64_t id) const {
  for (const auto& c : comms)
    if (c.id == id) return &c;
  return nullptr;
}

bool Trace::hasTime(Phase phase, TimeUnit unit) const {
  for (const auto& e : events)
    for (const auto& s : e.stats)
      if (s.phase == phase && s.unit == unit) return true;
  return false;
}

bool Trace::operator==(const Trace& o) const {
  if (numRanks != o.numRanks || origin != o.origin || computeClock != o.computeClock || worldPeers != o.worldPeers || datatypes != o.datatypes || comms != o.comms ||
      memoryKb != o.memoryKb || beforeInitUs != o.beforeInitUs || frameNames != o.frameNames || program != o.program ||
      events.size() != o.events.size())
    return false;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Event& a = events[i];
    const Event& b = o.events[i];
    if (a.mergedSites.size() != b.mergedSites.size()) return false;
    for (std::size_t k = 0; k < a.mergedSites.size(); ++k)
      if (siteName(a.mergedSites[k]) != o.siteName(b.mergedSites[k])) return false;
    if (a.id != b.id || a.op != b.op || siteName(a.site) != o.siteName(b.site) || !(a.ranks == b.ranks) ||
        a.loops != b.loops || a.params != b.params || a.stats.size() != b.stats.size() ||
        a.compute.size() != b.compute.size())
      return false;
    for (std::size_t k = 0; k < a.compute.size(); ++k)
      if (siteName(a.compute[k].after) != o.siteName(b.compute[k].after) || a.compute[k].us != b.compute[k].us ||
          !(a.compute[k].ranks == b.compute[k].ranks))
        return false;
    for (std::size_t k = 0; k < a.stats.size(); ++k) {
      const TimeStat& x = a.stats[k];
      const TimeStat& y = b.stats[k];
      if (x.phase != y.phase || x.unit != y.unit || siteName(x.after) != o.siteName(y.after) || !(x.ranks == y.ranks) ||
          !(x.hist == y.hist))
        return false;
    }
  }
  return true;
}

const std::vector<Datatype>& scalaTraceDatatypes() {
  static const std::vector<Datatype> kTypes = {
      {1, "MPI_CHAR", 1},           {2, "MPI_SHORT", 2},          {3, "MPI_INT", 4},
      {4, "MPI_LONG", 8},           {5, "MPI_UNSIGNED_CHAR", 1},  {6, "MPI_UNSIGNED_SHORT", 2},
      {7, "MPI_UNSIGNED", 4},       {8, "MPI_UNSIGNED_LONG", 8},  {9, "MPI_FLOAT", 4},
      {10, "MPI_DOUBLE", 8},        {11, "MPI_LONG_DOUBLE", 16},  {12, "MPI_BYTE", 1},
      {13, "MPI_PACKED", 1},        {14, "MPI_INTEGER", 4},       {15, "MPI_REAL", 4},
      {16, "MPI_DOUBLE_PRECISION", 8}, {17, "MPI_COMPLEX", 8},    {18, "MPI_DOUBLE_COMPLEX", 16},
      {19, "MPI_LOGICAL", 4},
  };
  return kTypes;
}

std::vector<Communicator> standardCommunicators(Rank numRanks) {
  std::vector<Communicator> comms;
  comms.push_back({kCommSelf, "self", {}});
  comms.push_back({kCommWorld, "world", {RankList::all(numRanks)}});
  return comms;
}

bool timesAgree(double a, double b) {
  const double gap = a > b ? a - b : b - a;
  return gap <= kTimingSlackUs || gap <= kTimingTolerance * (a > b ? a : b);
}

bool driftAgrees(double a, double b) {
  const double gap = a > b ? a - b : b - a;
  return gap <= kDriftSlackUs || gap <= kDriftTolerance * (a > b ? a : b);
}

namespace {
// Firsts of `shorter` are a prefix of those of `longer`.
bool prefixOf(const std::vector<CallRange>& shorter, const std::vector<CallRange>& longer) {
  if (shorter.size() > longer.size()) return false;
  for (std::size_t i = 0; i < shorter.size(); ++i)
    if (shorter[i].first != longer[i].first) return false;
  return true;
}

// `ranges` with `n` more samples of mean `mean`, spread over them in proportion to their
// counts (a steady histogram joining a drifting one).
std::vector<CallRange> spread(std::vector<CallRange> ranges, std::int64_t n, double mean) {
  std::int64_t total = 0;
  for (const CallRange& r : ranges) total += r.n;
  if (total <= 0) return {};
  std::int64_t left = n;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    CallRange& r = ranges[i];
    const std::int64_t add = i + 1 == ranges.size()
                                 ? left
                                 : static_cast<std::int64_t>(static_cast<double>(n) * static_cast<double>(r.n) /
                                                             static_cast<double>(total));
    left -= add;
    if (add <= 0) continue;
    r.avg = (r.avg * static_cast<double>(r.n) + mean * static_cast<double>(add)) / static_cast<double>(r.n + add);
    r.n += add;
  }
  return ranges;
}
}  // namespace

std::vector<CallRange> mergeCallRanges(const std::vector<CallRange>& a, std::int64_t an, double aMean,
                                       const std::vector<CallRange>& b, std::int64_t bn, double bMean) {
  if (bn <= 0) return a;
  if (an <= 0) return b;
  if (a.empty() && b.empty()) return {};
  if (a.empty()) return spread(b, an, aMean);
  if (b.empty()) return spread(a, bn, bMean);
  const bool aShorter = a.size() <= b.size();
  const std::vector<CallRange>& shorter = aShorter ? a : b;
  const std::vector<CallRange>& longer = aShorter ? b : a;
  if (!prefixOf(shorter, longer)) return {};
  std::vector<CallRange> out = longer;
  for (std::size_t i = 0; i < shorter.size(); ++i) {
    CallRange& r = out[i];
    const CallRange& s = shorter[i];
    const std::int64_t n = r.n + s.n;
    if (n > 0) r.avg = (r.avg * static_cast<double>(r.n) + s.avg * static_cast<double>(s.n)) / static_cast<double>(n);
    r.n = n;
  }
  return out;
}

void compactCallRanges(std::vector<CallRange>& calls, double mean) {
  std::vector<CallRange> runs;
  for (const CallRange& r : calls) {
    if (r.n <= 0) continue;
    if (!runs.empty() && driftAgrees(runs.back().avg, r.avg)) {
      CallRange& run = runs.back();
      run.avg = (run.avg * static_cast<double>(run.n) + r.avg * static_cast<double>(r.n)) / static_cast<double>(run.n + r.n);
      run.n += r.n;
      continue;
    }
    runs.push_back(r);
  }
  // Beyond the limit the two adjacent runs whose means are closest merge (keeps the line short
  // whatever the drift).
  while (runs.size() > kMaxCallRanges) {
    std::size_t best = 0;
    for (std::size_t i = 1; i + 1 < runs.size(); ++i)
      if (std::abs(runs[i].avg - runs[i + 1].avg) < std::abs(runs[best].avg - runs[best + 1].avg)) best = i;
    CallRange& run = runs[best];
    const CallRange& next = runs[best + 1];
    run.avg = (run.avg * static_cast<double>(run.n) + next.avg * static_cast<double>(next.n)) / static_cast<double>(run.n + next.n);
    run.n += next.n;
    runs.erase(runs.begin() + static_cast<std::ptrdiff_t>(best) + 1);
  }
  const bool drifts = std::any_of(runs.begin(), runs.end(), [&](const CallRange& r) { return !driftAgrees(r.avg, mean); });
  if (!drifts || runs.size() < 2) runs.clear();
  if (!runs.empty()) runs.front().first = 0;
  calls = std::move(runs);
}

void normalizeTimingGroups(Event& e) {
  for (TimeStat& st : e.stats) {
    if (st.ranks.empty() || !(st.ranks == e.ranks)) continue;
    const auto same = std::count_if(e.stats.begin(), e.stats.end(), [&](const TimeStat& o) {
      return o.phase == st.phase && o.unit == st.unit && o.after == st.after;
    });
    if (same == 1) st.ranks = RankList();
  }
  for (ComputeTime& c : e.compute) {
    if (c.ranks.empty() || !(c.ranks == e.ranks)) continue;
    const auto same = std::count_if(e.compute.begin(), e.compute.end(), [&](const ComputeTime& o) { return o.after == c.after; });
    if (same == 1) c.ranks = RankList();
  }
}

void forEachRankSet(const Trace& trace, const std::function<void(const RankList&)>& f) {
  auto groups = [&](const std::vector<ValueGroup>& gs) {
    for (const ValueGroup& g : gs) f(g.ranks);
  };
  for (const Event& ev : trace.events) {
    f(ev.ranks);
    for (const ParamValues& pv : ev.params) groups(pv.groups);
    for (const LoopLevel& loop : ev.loops) {
      groups(loop.iter);
      groups(loop.mem);
    }
    for (const ComputeTime& c : ev.compute)
      if (!c.ranks.empty()) f(c.ranks);
  }
  for (const Communicator& comm : trace.comms)
    for (const RankList& instance : comm.instances) f(instance);
}

}  // namespace tracegen
