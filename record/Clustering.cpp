#include "record/Clustering.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "record/CommonSubsequence.h"
#include "record/Hash.h"
#include "record/TimeStats.h"

namespace tracegen::record {

namespace {
constexpr std::uint64_t kShapeSeed = 0x73686170652d3031ull;
constexpr std::uint64_t kParamSeed1 = 0x706172616d2d3031ull;
constexpr std::uint64_t kParamSeed2 = 0x706172616d2d3032ull;
constexpr std::uint64_t kSalt2 = 0xA0761D6478BD642Full;

// Token streams of the canonical serialisation: `shape` gets the shape tokens, the parameter
// signatures get those and every value.
struct SigBuilder {
  std::uint64_t shape = kShapeSeed, p1 = kParamSeed1, p2 = kParamSeed2;
  void both(std::uint64_t v) {
    shape = combine(shape, v);
    value(v);
  }
  void value(std::uint64_t v) {
    p1 = combine(p1, v);
    p2 = combine(p2, mix64(v ^ kSalt2));
  }
  void values(const std::vector<std::int64_t>& vs) {
    value(static_cast<std::uint64_t>(vs.size()));
    for (auto v : vs) value(static_cast<std::uint64_t>(v));
  }
};

std::uint64_t identityHash(const Event& e, const Trace& t) {
  std::uint64_t h = combine(std::uint64_t{0x6964656e74ull}, static_cast<std::uint64_t>(e.op));
  h = combine(h, hashString(t.siteName(e.site)));
  for (SiteId s : e.mergedSites) h = combine(h, hashString(t.siteName(s)));
  for (const auto& pv : e.params) h = combine(h, static_cast<std::uint64_t>(pv.param) * 2 + (pv.relative ? 1 : 0));
  return h;
}

// Same operation, call sites and parameter names (with the same encoding): the two events may
// be one event of the global trace.
bool sameIdentity(const Event& a, const Trace& ta, const Event& b, const Trace& tb) {
  if (a.op != b.op || ta.siteName(a.site) != tb.siteName(b.site) || a.mergedSites.size() != b.mergedSites.size() ||
      a.params.size() != b.params.size())
    return false;
  for (std::size_t k = 0; k < a.mergedSites.size(); ++k)
    if (ta.siteName(a.mergedSites[k]) != tb.siteName(b.mergedSites[k])) return false;
  for (std::size_t k = 0; k < a.params.size(); ++k)
    if (a.params[k].param != b.params[k].param || a.params[k].relative != b.params[k].relative) return false;
  return true;
}

SiteId importSite(SiteId s, const Trace& from, Trace& to) { return s == kNoSite ? kNoSite : to.internSite(from.sites[static_cast<std::size_t>(s)]); }

// Merges the statistics of `from` into `into`. Compute times are timing sub-groups: a
// statistic joins the one of its key whose mean agrees (timesAgree), uniting their ranks, and
// otherwise stays apart, so that ranks that compute longer keep their time; beyond
// kMaxTimingGroups per key it joins the closest. MPI times merge by key as they are.
void mergeStats(std::vector<TimeStat>& into, Trace& tInto, const std::vector<TimeStat>& from, const Trace& tFrom) {
  for (const TimeStat& s : from) {
    const std::string_view after = tFrom.siteName(s.after);
    TimeStat* it = nullptr;
    std::size_t groups = 0;
    for (TimeStat& t : into) {
      if (t.phase != s.phase || t.unit != s.unit || tInto.siteName(t.after) != after) continue;
      ++groups;
      if (!it || std::abs(t.hist.mean() - s.hist.mean()) < std::abs(it->hist.mean() - s.hist.mean())) it = &t;
    }
    const bool subGroups = s.phase == Phase::Compute && it && !it->ranks.empty() && !s.ranks.empty();
    if (it && subGroups && !timesAgree(it->hist.mean(), s.hist.mean()) && groups < kMaxTimingGroups) it = nullptr;
    if (it) {
      mergeHistogram(it->hist, s.hist);
      it->ranks = it->ranks.empty() || s.ranks.empty() ? RankList() : RankList::unite(it->ranks, s.ranks);
    } else {
      TimeStat c = s;
      c.after = importSite(s.after, tFrom, tInto);
      into.push_back(std::move(c));
    }
  }
}

Rank firstRank(const RankList& l) { return l.first().value_or(0); }

void sortGroups(std::vector<ValueGroup>& groups) {
  std::sort(groups.begin(), groups.end(),
            [](const ValueGroup& a, const ValueGroup& b) { return firstRank(a.ranks) < firstRank(b.ranks); });
}

// Groups with equal value lists unite their ranks; the others are added (ranks are disjoint).
void mergeGroups(std::vector<ValueGroup>& into, const std::vector<ValueGroup>& from) {
  for (const ValueGroup& g : from) {
    auto it = std::find_if(into.begin(), into.end(), [&](const ValueGroup& h) { return h.values == g.values; });
    if (it != into.end())
      it->ranks = RankList::unite(it->ranks, g.ranks);
    else
      into.push_back(g);
  }
  sortGroups(into);
}

void mergeEvent(Event& into, Trace& tInto, const Event& from, const Trace& tFrom) {
  into.ranks = RankList::unite(into.ranks, from.ranks);
  if (into.loops.size() < from.loops.size()) into.loops.resize(from.loops.size());
  for (std::size_t k = 0; k < from.loops.size(); ++k) {
    mergeGroups(into.loops[k].iter, from.loops[k].iter);
    mergeGroups(into.loops[k].mem, from.loops[k].mem);
  }
  for (const ParamValues& pv : from.params) {
    ParamValues* mine = into.param(pv.param);
    if (mine)
      mergeGroups(mine->groups, pv.groups);
    else
      into.setParam(pv.param, pv.groups, pv.relative);
  }
  mergeStats(into.stats, tInto, from.stats, tFrom);
}

Event importEvent(const Event& e, const Trace& from, Trace& to) {
  Event c = e;
  c.site = importSite(e.site, from, to);
  for (auto& s : c.mergedSites) s = importSite(s, from, to);
  for (auto& st : c.stats) st.after = importSite(st.after, from, to);
  return c;
}

// Gives `from` datatype ids that mean the same in `into`: predefined types share ids; a derived
// type whose id `into` uses for another size gets a fresh id, and `from`'s events follow.
void unifyDatatypes(Trace& into, Trace& from) {
  std::map<std::int64_t, std::int64_t> remap;
  std::int64_t next = 1000;
  for (const auto& d : into.datatypes) next = std::max(next, d.id + 1);
  for (const auto& d : from.datatypes) next = std::max(next, d.id + 1);
  for (const Datatype& d : from.datatypes) {
    const Datatype* mine = into.datatype(d.id);
    if (!mine) {
      into.datatypes.push_back(d);
      continue;
    }
    if (mine->name == d.name && mine->size == d.size) continue;
    auto same = std::find_if(into.datatypes.begin(), into.datatypes.end(),
                             [&](const Datatype& x) { return x.size == d.size && x.name.rfind("type", 0) == 0 && d.name.rfind("type", 0) == 0; });
    std::int64_t id = next++;
    if (same != into.datatypes.end()) {
      id = same->id;
    } else {
      into.datatypes.push_back({id, "type" + std::to_string(id), d.size});
    }
    remap[d.id] = id;
  }
  std::sort(into.datatypes.begin(), into.datatypes.end(), [](const Datatype& a, const Datatype& b) { return a.id < b.id; });
  if (remap.empty()) return;
  for (Event& e : from.events)
    for (ParamValues& pv : e.params) {
      if (pv.param != Param::Datatype && pv.param != Param::RecvType) continue;
      for (ValueGroup& g : pv.groups)
        for (auto& v : g.values)
          if (auto it = remap.find(v); it != remap.end()) v = it->second;
    }
  for (Datatype& d : from.datatypes)
    if (auto it = remap.find(d.id); it != remap.end()) d.id = it->second;
}

Rank lowestRank(const Trace& t) {
  Rank r = -1;
  for (const Event& e : t.events)
    if (auto f = e.ranks.first(); f && (r < 0 || *f < r)) r = *f;
  return r;
}

RankList canonical(const RankList& l) {
  RankIterator it(l);
  return RankList::fromAscending([&](Rank& r) { return it.next(r); });
}

// Numbers the events of `g` and `x` by identity (equal numbers: sameIdentity), so that the
// alignment compares integers; hashes find the candidates, sameIdentity decides.
void identityClasses(const Trace& g, const Trace& x, std::vector<std::uint32_t>& cg, std::vector<std::uint32_t>& cx) {
  struct Member {
    const Event* event;
    const Trace* trace;
    std::uint32_t cls;
  };
  std::unordered_map<std::uint64_t, std::vector<Member>> byHash;
  std::uint32_t next = 0;
  auto classOf = [&](const Event& e, const Trace& t) {
    std::vector<Member>& bucket = byHash[identityHash(e, t)];
    for (const Member& c : bucket)
      if (sameIdentity(*c.event, *c.trace, e, t)) return c.cls;
    bucket.push_back({&e, &t, next});
    return next++;
  };
  cg.clear();
  cx.clear();
  for (const Event& e : g.events) cg.push_back(classOf(e, g));
  for (const Event& e : x.events) cx.push_back(classOf(e, x));
}

// Level 2: interleaves `x` into `g` along a longest common subsequence of event identities
// (Myers' diff, record/CommonSubsequence.h). Between two shared events, `g`'s own events come
// before those of `x`.
void alignMerge(Trace& g, Trace x, std::size_t alignWork) {
  unifyDatatypes(g, x);
  std::vector<std::uint32_t> cg, cx;
  identityClasses(g, x, cg, cx);
  const auto matches = longestCommonSubsequence(cg, cx, alignWork);
  if (!matches) {  // too costly to align: concatenation is still exact
    for (const Event& e : x.events) g.events.push_back(importEvent(e, x, g));
    return;
  }
  std::vector<Event> out;
  out.reserve(g.events.size() + x.events.size() - matches->size());
  std::size_t i = 0, j = 0;
  auto upTo = [&](std::size_t gEnd, std::size_t xEnd) {
    for (; i < gEnd; ++i) out.push_back(std::move(g.events[i]));
    for (; j < xEnd; ++j) out.push_back(importEvent(x.events[j], x, g));
  };
  for (const auto& [mi, mj] : *matches) {
    upTo(mi, mj);
    mergeEvent(g.events[i], g, x.events[j], x);
    out.push_back(std::move(g.events[i]));
    ++i;
    ++j;
  }
  upTo(g.events.size(), x.events.size());
  g.events = std::move(out);
}
}  // namespace

Signature computeSignature(const Trace& t) {
  SigBuilder b;
  b.both(static_cast<std::uint64_t>(t.events.size()));
  for (const Event& e : t.events) {
    b.both(static_cast<std::uint64_t>(e.op));
    b.both(hashString(t.siteName(e.site)));
    b.both(static_cast<std::uint64_t>(e.mergedSites.size()));
    for (SiteId s : e.mergedSites) b.both(hashString(t.siteName(s)));
    b.both(static_cast<std::uint64_t>(e.loops.size()));
    for (const LoopLevel& lv : e.loops) {
      b.both(static_cast<std::uint64_t>(lv.mem.size()));
      for (const ValueGroup& g : lv.mem) {  // body lengths are shape
        b.both(static_cast<std::uint64_t>(g.values.size()));
        for (auto v : g.values) b.both(static_cast<std::uint64_t>(v));
      }
      for (const ValueGroup& g : lv.iter) b.values(g.values);  // trip counts are values
    }
    b.both(static_cast<std::uint64_t>(e.params.size()));
    for (const ParamValues& pv : e.params) {
      b.both(static_cast<std::uint64_t>(pv.param) * 2 + (pv.relative ? 1 : 0));
      for (const ValueGroup& g : pv.groups) {
        b.values(g.values);
        if (pv.param == Param::Datatype || pv.param == Param::RecvType)
          for (auto v : g.values) {  // derived type ids are per rank: their sizes identify them
            const Datatype* d = t.datatype(v);
            b.value(static_cast<std::uint64_t>(d ? d->size : -1));
            b.value(d ? hashString(d->name) : 0);
          }
      }
    }
  }
  return {b.shape, b.p1, b.p2};
}

ClusterTable ClusterTable::forRank(Rank rank, const Signature& sig, std::vector<CommEntry> comms, std::int64_t flags,
                                   ClusterMode mode) {
  ClusterTable t;
  Signature s = sig;
  if (mode == ClusterMode::None) s.params1 = combine(s.params1, static_cast<std::uint64_t>(rank));
  t.clusters.push_back({s, RankList::single(rank)});
  t.comms = std::move(comms);
  std::sort(t.comms.begin(), t.comms.end(), [](const CommEntry& a, const CommEntry& b) {
    return a.id != b.id ? a.id < b.id : firstRank(a.members) < firstRank(b.members);
  });
  t.comms.erase(std::unique(t.comms.begin(), t.comms.end()), t.comms.end());
  t.flags = flags;
  return t;
}

void ClusterTable::add(const ClusterTable& other) {
  for (const ClusterEntry& e : other.clusters) {
    auto it = std::lower_bound(clusters.begin(), clusters.end(), e.sig,
                               [](const ClusterEntry& a, const Signature& s) { return a.sig < s; });
    if (it != clusters.end() && it->sig == e.sig)
      it->ranks = RankList::unite(it->ranks, e.ranks);
    else
      clusters.insert(it, e);
  }
  for (const CommEntry& c : other.comms) {
    auto less = [](const CommEntry& a, const CommEntry& b) {
      return a.id != b.id ? a.id < b.id : firstRank(a.members) < firstRank(b.members);
    };
    auto it = std::lower_bound(comms.begin(), comms.end(), c, less);
    bool present = false;
    for (auto j = it; j != comms.end() && j->id == c.id && firstRank(j->members) == firstRank(c.members); ++j)
      if (*j == c) present = true;
    if (!present) comms.insert(it, c);
  }
  flags |= other.flags;
}

const ClusterEntry* ClusterTable::clusterOf(Rank r) const {
  for (const ClusterEntry& e : clusters)
    if (e.ranks.contains(r)) return &e;
  return nullptr;
}

std::vector<Rank> ClusterTable::representatives() const {
  std::vector<Rank> reps;
  for (const ClusterEntry& e : clusters) reps.push_back(firstRank(e.ranks));
  std::sort(reps.begin(), reps.end());
  return reps;
}

std::size_t ClusterTable::mainClusters() const {
  std::vector<std::uint64_t> shapes;
  for (const ClusterEntry& e : clusters) shapes.push_back(e.sig.shape);
  std::sort(shapes.begin(), shapes.end());
  return static_cast<std::size_t>(std::unique(shapes.begin(), shapes.end()) - shapes.begin());
}

std::int64_t treeParent(std::int64_t i) { return i & (i - 1); }

std::vector<std::int64_t> treeChildren(std::int64_t i, std::int64_t n) {
  std::vector<std::int64_t> c;
  for (std::int64_t mask = 1; mask < n; mask <<= 1) {
    if ((i & mask) != 0 || i + mask >= n) break;
    c.push_back(i + mask);
  }
  return c;
}

void canonicalFootprint(Trace& t) {
  for (ValueGroup& g : t.memoryKb) g.ranks = canonical(g.ranks);
}

void mergeFootprint(Trace& into, const Trace& from) {
  into.beforeInitUs = std::max(into.beforeInitUs, from.beforeInitUs);
  for (const ValueGroup& g : from.memoryKb) {
    if (g.values.empty()) continue;
    const auto kb = static_cast<double>(g.values.front());
    ValueGroup* closest = nullptr;
    for (ValueGroup& h : into.memoryKb)
      if (!closest || std::abs(static_cast<double>(h.values.front()) - kb) <
                          std::abs(static_cast<double>(closest->values.front()) - kb))
        closest = &h;
    if (closest && (timesAgree(static_cast<double>(closest->values.front()), kb) ||
                    into.memoryKb.size() >= kMaxTimingGroups)) {
      closest->ranks = RankList::unite(closest->ranks, g.ranks);
      closest->values.front() = std::max(closest->values.front(), g.values.front());
    } else {
      into.memoryKb.push_back(g);
    }
  }
  sortGroups(into.memoryKb);
}

Trace statsOnly(const Trace& t) {
  Trace s;
  s.numRanks = t.numRanks;
  s.sites = t.sites;
  s.events.reserve(t.events.size());
  for (const Event& e : t.events) {
    Event c;
    c.id = e.id;
    c.op = e.op;
    c.site = e.site;
    c.ranks = e.ranks;
    c.stats = e.stats;
    s.events.push_back(std::move(c));
  }
  return s;
}

bool addStats(Trace& into, const Trace& from) {
  if (into.events.size() != from.events.size()) return false;
  for (std::size_t i = 0; i < into.events.size(); ++i)
    if (into.events[i].op != from.events[i].op || into.siteName(into.events[i].site) != from.siteName(from.events[i].site))
      return false;
  for (std::size_t i = 0; i < into.events.size(); ++i) mergeStats(into.events[i].stats, into, from.events[i].stats, from);
  return true;
}

void assignRanks(Trace& t, const RankList& ranks) {
  for (Event& e : t.events) {
    e.ranks = ranks;
    for (LoopLevel& lv : e.loops) {
      for (ValueGroup& g : lv.iter) g.ranks = ranks;
      for (ValueGroup& g : lv.mem) g.ranks = ranks;
    }
    for (ParamValues& pv : e.params)
      for (ValueGroup& g : pv.groups) g.ranks = ranks;
  }
}

bool zipMerge(Trace& into, Trace from) {
  if (into.events.size() != from.events.size()) return false;
  for (std::size_t i = 0; i < into.events.size(); ++i)
    if (!sameIdentity(into.events[i], into, from.events[i], from)) return false;
  unifyDatatypes(into, from);
  for (std::size_t i = 0; i < into.events.size(); ++i) mergeEvent(into.events[i], into, from.events[i], from);
  return true;
}

void addPartials(std::vector<Partial>& into, std::vector<Partial> from) {
  for (Partial& p : from) {
    bool merged = false;
    for (Partial& q : into)
      if (q.shape == p.shape && zipMerge(q.trace, p.trace)) {
        merged = true;
        break;
      }
    if (!merged) into.push_back(std::move(p));
  }
  std::sort(into.begin(), into.end(), [](const Partial& a, const Partial& b) { return lowestRank(a.trace) < lowestRank(b.trace); });
}

Trace buildGlobal(std::vector<Partial> partials, const ClusterTable& table, Rank numRanks, std::size_t alignWork) {
  std::sort(partials.begin(), partials.end(),
            [](const Partial& a, const Partial& b) { return lowestRank(a.trace) < lowestRank(b.trace); });
  Trace g;
  if (!partials.empty()) {
    g = std::move(partials.front().trace);
    for (std::size_t k = 1; k < partials.size(); ++k) alignMerge(g, std::move(partials[k].trace), alignWork);
  }
  g.numRanks = numRanks;
  g.origin = "tracegen-record";
  g.worldPeers = false;

  g.comms = standardCommunicators(numRanks);
  for (const CommEntry& c : table.comms) {
    Communicator* mine = nullptr;
    for (auto& x : g.comms)
      if (x.id == c.id) mine = &x;
    if (!mine) {
      g.comms.push_back({c.id, c.kind, {}});
      mine = &g.comms.back();
    }
    mine->instances.push_back(canonical(c.members));
    if (!c.order.empty()) mine->setOrder(mine->instances.size() - 1, c.order);
  }
  for (auto& c : g.comms) {
    // Instances by first member, their orders with them.
    std::vector<std::size_t> perm(c.instances.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = i;
    std::sort(perm.begin(), perm.end(),
              [&](std::size_t a, std::size_t b) { return firstRank(c.instances[a]) < firstRank(c.instances[b]); });
    Communicator sorted{c.id, c.kind, {}, {}};
    for (std::size_t k = 0; k < perm.size(); ++k) {
      sorted.instances.push_back(c.instances[perm[k]]);
      if (const std::vector<Rank>* o = c.orderOf(perm[k])) sorted.setOrder(k, *o);
    }
    c = std::move(sorted);
  }

  std::sort(g.datatypes.begin(), g.datatypes.end(), [](const Datatype& a, const Datatype& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < g.events.size(); ++i) {
    Event& e = g.events[i];
    e.id = static_cast<std::int64_t>(i);
    e.ranks = canonical(e.ranks);
    for (LoopLevel& lv : e.loops) {
      for (ValueGroup& v : lv.iter) v.ranks = canonical(v.ranks);
      for (ValueGroup& v : lv.mem) v.ranks = canonical(v.ranks);
      sortGroups(lv.iter);
      sortGroups(lv.mem);
    }
    for (ParamValues& pv : e.params) {
      for (ValueGroup& v : pv.groups) v.ranks = canonical(v.ranks);
      sortGroups(pv.groups);
    }
    for (TimeStat& s : e.stats) {
      roundHistogram(s.hist);
      if (!s.ranks.empty()) s.ranks = canonical(s.ranks);
    }
    normalizeTimingGroups(e);
    std::sort(e.stats.begin(), e.stats.end(), [&](const TimeStat& a, const TimeStat& b) {
      if (a.phase != b.phase) return a.phase < b.phase;
      if (a.unit != b.unit) return a.unit < b.unit;
      if (a.after != b.after) return g.siteName(a.after) < g.siteName(b.after);
      return a.ranks.first().value_or(-1) < b.ranks.first().value_or(-1);
    });
  }
  return g;
}

std::vector<std::string> communicatorConflicts(const Trace& t) {
  std::vector<std::string> out;
  for (const Communicator& c : t.comms)
    for (std::size_t i = 0; i < c.instances.size(); ++i)
      for (std::size_t j = i + 1; j < c.instances.size(); ++j)
        if (c.instances[i].intersects(c.instances[j])) {
          out.push_back("communicator " + std::to_string(c.id) + " has overlapping instances " + c.instances[i].pretty() +
                        " and " + c.instances[j].pretty());
          i = c.instances.size();  // one line per id
          break;
        }
  return out;
}

Trace clusterInProcess(std::vector<RankInput> ranks, ClusterMode mode, ClusterReport* report) {
  const auto p = static_cast<std::int64_t>(ranks.size());
  std::vector<Signature> sigs;
  std::vector<ClusterTable> tables;
  for (std::int64_t r = 0; r < p; ++r) {
    auto& in = ranks[static_cast<std::size_t>(r)];
    sigs.push_back(computeSignature(in.trace));
    tables.push_back(ClusterTable::forRank(r, sigs.back(), in.comms, in.flags, mode));
  }
  // Cluster table up the binomial tree; children are added in the order the MPI driver
  // receives them, and every node is complete before its parent reads it.
  for (std::int64_t i = p - 1; i >= 0; --i)
    for (std::int64_t c : treeChildren(i, p)) tables[static_cast<std::size_t>(i)].add(tables[static_cast<std::size_t>(c)]);
  const ClusterTable table = p > 0 ? tables[0] : ClusterTable{};

  // Timing within each sub-cluster, then the representative takes the sub-cluster's ranks.
  std::vector<Partial> partialsOfReps;
  std::map<Rank, std::vector<Partial>> parts;
  for (const ClusterEntry& cl : table.clusters) {
    const std::vector<Rank> members = cl.ranks.toVector();
    const auto m = static_cast<std::int64_t>(members.size());
    std::vector<Trace> st;
    for (std::int64_t i = 0; i < m; ++i)
      st.push_back(i == 0 ? ranks[static_cast<std::size_t>(members[0])].trace
                          : statsOnly(ranks[static_cast<std::size_t>(members[static_cast<std::size_t>(i)])].trace));
    for (std::int64_t i = m - 1; i >= 0; --i)
      for (std::int64_t c : treeChildren(i, m)) addStats(st[static_cast<std::size_t>(i)], st[static_cast<std::size_t>(c)]);
    Trace rep = std::move(st[0]);
    assignRanks(rep, cl.ranks);
    parts[members[0]].push_back({cl.sig.shape, std::move(rep)});
  }
  // Partials up a binomial tree over the representatives.
  const std::vector<Rank> reps = table.representatives();
  const auto nr = static_cast<std::int64_t>(reps.size());
  std::vector<std::vector<Partial>> node(reps.size());
  for (std::int64_t k = 0; k < nr; ++k) node[static_cast<std::size_t>(k)] = std::move(parts[reps[static_cast<std::size_t>(k)]]);
  for (std::int64_t k = nr - 1; k >= 0; --k)
    for (std::int64_t c : treeChildren(k, nr))
      addPartials(node[static_cast<std::size_t>(k)], std::move(node[static_cast<std::size_t>(c)]));
  if (report) {
    report->mainClusters = table.mainClusters();
    report->subClusters = table.clusters.size();
    report->flags = table.flags;
  }
  return buildGlobal(nr > 0 ? std::move(node[0]) : std::vector<Partial>{}, table, p);
}

}  // namespace tracegen::record
