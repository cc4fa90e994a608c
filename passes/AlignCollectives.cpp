// align-collectives: one event per collective call, whichever call sites the ranks used.
//
// Algorithm. Clustering keeps one event per call site, so when ranks reach one collective
// operation through different code (`if (rank == 0) {...; MPI_Barrier} else {MPI_Barrier; ...}`)
// the trace holds one event per site, with disjoint ranklists. This pass merges such events into
// one event whose ranklist holds every member of the communicator.
//
// 1. Cheap check. A collective event is *partial* if some instance of its communicator (world:
//    all ranks; others: Trace::comm(id)->instances) holds ranks the event lacks. If no event is
//    partial the pass returns at once; nothing is expanded. Events on communicators the table
//    does not describe (ScalaTrace ids 1000+ before resolve-comms) are left alone.
// 2. Matching. MPI requires the members of a communicator to make its collective calls in one
//    order, so the k-th call of an operation on a communicator by one member meets the k-th call
//    by every other member: calls match by (operation, communicator instance, occurrence). Ranks
//    are grouped into classes of equal behaviour (same own event list, same loop groups); for
//    each class and (operation, communicator) a skeleton is built from the class's compressed
//    event list: its loop tree (§8 of the format reference), pruned to the events of that key
//    and canonicalised (single-pass loops inlined, a loop around one event folded into that
//    event's execution count, directly nested single-valued loops multiplied out). If every
//    class of an instance has the same skeleton shape, the i-th event leaf of one class makes
//    exactly the same occurrences as the i-th leaf of every other class: those events are
//    partners. Otherwise the occurrences each event makes are compared as run lists, events
//    with equal run lists being partners: a class whose skeleton is static (the shapes merely
//    differ between classes: LU's ranks compress their time-step loops differently) gives
//    them by walking its skeleton, which costs the key's calls only; one whose body lengths vary
//    between loop entries has its representative rank expanded with RankCursor. Partner sets that cover an instance are joined across instances
//    (union-find), and a joined group is accepted if, in every instance it touches, its events
//    are one covering partner set.
// 3. Moving. Removing event X from position i and inserting it at j leaves every rank's own
//    event sequence unchanged exactly when no event strictly between i and j shares a rank
//    with X; then loop `mem` counts, value cursors and request offsets stay valid. Each
//    partner therefore allows an interval of insertion points, bounded by the nearest events
//    sharing its ranks; the merged event goes into the intersection, next to a partner when
//    the intersection allows (it takes the place of the earliest such partner). Groups are
//    merged in trace order; a group whose intersection is empty is retried after the others
//    (a later group's unmerged events can be what blocks it), and if it stays empty the
//    events are left alone with a warning.
// 4. The merged event keeps the smallest partner id, that partner's site (the others go to
//    mergedSites), the union of the ranklists, loop groups per level and parameter groups
//    (groups with equal values are fused), and all time statistics. A partner that lacks a
//    parameter MPI reads at the root only (a Gatherv's receive counts on a rank that is never
//    the root) takes another partner's values: they mean nothing there, and equal values keep
//    the merged event as compact as an SPMD call (the recorder keeps such scalars alike for the
//    same reason). Roots and reduction operators that differ within one communicator instance
//    are reported (MPI forbids them).
// 5. Timing. Histograms are keyed by the call site of the rank's previous call, and after the
//    merge the ranks that called from site B report the merged event's site A as their
//    predecessor (RankCursor uses Event::site). So every statistic keyed `after B` is re-keyed
//    `after A`; when the event already has one keyed A the two histograms are merged (counts
//    summed, extremes kept, bins concatenated by start) — they now describe the same
//    predecessor, and a histogram is an aggregate over ranks anyway. If B is still the site of
//    another event, the statistic is copied instead of moved, so that event's successors keep
//    theirs.
#include "passes/AlignCollectives.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

#include "ir/RankCursor.h"

namespace tracegen {

namespace {

using EventIndex = std::size_t;
// Which occurrences an event makes for a class of ranks: in the structural case the position
// of its leaf in the skeleton, after expansion its runs of occurrence numbers [start, end).
using OccKey = std::vector<std::int64_t>;

struct CollKey {
  Op op = Op::Barrier;
  std::int64_t comm = kCommWorld;
  auto operator<=>(const CollKey&) const = default;
};

// --- skeletons ---------------------------------------------------------------------------------

struct SkNode {
  bool leaf = true;
  EventIndex event = 0;
  // Leaf: executions per entry into the leaf; loop: iterations per entry. Both cyclic, as the
  // trace's value lists are.
  std::vector<std::int64_t> counts;
  std::vector<SkNode> body;
};

struct Skeleton {
  bool ok = false;
  std::vector<std::int64_t> shape;  // the tree without event ids
  std::vector<EventIndex> leaves;   // event of each leaf, in order
  std::vector<SkNode> tree;         // canonical
};

// The occurrences each leaf of `seq` makes, as expansion() records them from a rank's calls:
// the skeleton holds every call of its key, and its counts are consumed per entry as the
// trace's lists are (entries: per node, how often it was entered). Costs the skeleton's
// expansion, i.e. the key's calls, not the rank's.
void occurrences(const std::vector<SkNode>& seq, std::map<const SkNode*, std::size_t>& entries, std::int64_t& o,
                 std::map<EventIndex, OccKey>& occ) {
  for (const SkNode& n : seq) {
    std::size_t& entry = entries[&n];
    const std::int64_t c = n.counts[entry++ % n.counts.size()];
    if (!n.leaf) {
      for (std::int64_t i = 0; i < c; ++i) occurrences(n.body, entries, o, occ);
      continue;
    }
    if (c <= 0) continue;
    OccKey& runs = occ[n.event];
    if (!runs.empty() && runs.back() == o) runs.back() += c;
    else runs.insert(runs.end(), {o, o + c});
    o += c;
  }
}

// Shortest period of a cyclically consumed list ([2 2] behaves as [2]).
std::vector<std::int64_t> period(const std::vector<std::int64_t>& v) {
  const std::size_t n = v.size();
  for (std::size_t p = 1; p < n; ++p) {
    if (n % p != 0) continue;
    bool periodic = true;
    for (std::size_t i = p; i < n && periodic; ++i) periodic = v[i] == v[i - p];
    if (periodic) return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(p)};
  }
  return v;
}

bool multiply(std::int64_t a, std::int64_t b, std::int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }

void canonicalise(std::vector<SkNode>& seq) {
  std::vector<SkNode> out;
  for (SkNode& n : seq) {
    if (n.leaf) {
      out.push_back(std::move(n));
      continue;
    }
    canonicalise(n.body);
    if (n.body.empty()) continue;  // no call of this key inside
    while (!n.leaf && n.body.size() == 1) {
      SkNode& b = n.body.front();
      if (b.leaf && b.counts.size() == 1) {
        // A loop around one event: the event runs iter × count times per entry of the loop.
        std::vector<std::int64_t> counts;
        bool ok = true;
        for (auto it : n.counts) {
          std::int64_t c = 0;
          ok = ok && multiply(it, b.counts.front(), c);
          counts.push_back(c);
        }
        if (!ok) break;
        n.leaf = true;
        n.event = b.event;
        n.counts = period(counts);
        n.body.clear();
      } else if (!b.leaf && b.counts.size() == 1 && n.counts.size() == 1) {
        std::int64_t c = 0;
        if (!multiply(n.counts.front(), b.counts.front(), c)) break;
        std::vector<SkNode> inner = std::move(b.body);
        n.counts = {c};
        n.body = std::move(inner);
      } else {
        break;
      }
    }
    if (!n.leaf && n.counts == std::vector<std::int64_t>{1}) {
      for (auto& c : n.body) out.push_back(std::move(c));  // a loop of one pass is its body
    } else {
      out.push_back(std::move(n));
    }
  }
  seq = std::move(out);
}

void encode(const std::vector<SkNode>& seq, Skeleton& s) {
  // Counts are never negative, so the markers and lengths make the encoding unambiguous.
  for (const SkNode& n : seq) {
    s.shape.push_back(n.leaf ? -1 : -2);
    s.shape.push_back(static_cast<std::int64_t>(n.counts.size()));
    s.shape.insert(s.shape.end(), n.counts.begin(), n.counts.end());
    if (n.leaf) {
      s.leaves.push_back(n.event);
    } else {
      encode(n.body, s);
      s.shape.push_back(-3);
    }
  }
}

// --- timing ------------------------------------------------------------------------------------

Histogram mergeHistograms(const Histogram& a, const Histogram& b) {
  if (a.n <= 0) return b;
  if (b.n <= 0) return a;
  Histogram h;
  h.n = a.n + b.n;
  h.avg = (a.avg * static_cast<double>(a.n) + b.avg * static_cast<double>(b.n)) / static_cast<double>(h.n);
  h.min = a.min;
  h.minRank = a.minRank;
  if (b.min < a.min) {
    h.min = b.min;
    h.minRank = b.minRank;
  }
  h.max = a.max;
  h.maxRank = a.maxRank;
  if (b.max > a.max) {
    h.max = b.max;
    h.maxRank = b.maxRank;
  }
  h.calls = mergeCallRanges(a.calls, a.n, a.mean(), b.calls, b.n, b.mean());
  h.bins = a.bins;
  h.bins.insert(h.bins.end(), b.bins.begin(), b.bins.end());
  std::stable_sort(h.bins.begin(), h.bins.end(), [](const Bin& x, const Bin& y) { return x.start < y.start; });
  return h;
}

// Adds a statistic, merging it into one with the same key whose ranks spend the same time
// (timesAgree; the MPI phase always merges): RankCursor takes one histogram per (phase, unit,
// predecessor) and rank, so sub-groups stay disjoint. Empty ranks stand for the whole event.
void addStat(std::vector<TimeStat>& stats, const TimeStat& s) {
  auto sameKey = [&](const TimeStat& x) { return x.phase == s.phase && x.unit == s.unit && x.after == s.after; };
  TimeStat* closest = nullptr;
  std::size_t groups = 0;
  for (auto& x : stats) {
    if (!sameKey(x)) continue;
    ++groups;
    const double gap = std::abs(x.hist.mean() - s.hist.mean());
    if (!closest || gap < std::abs(closest->hist.mean() - s.hist.mean())) closest = &x;
  }
  // Without ranks (a statistic re-keyed to another predecessor: whose ranks it held is not
  // known) there is no sub-group to keep: they merge, as before sub-groups.
  if (closest && (s.phase == Phase::Mpi || closest->ranks.empty() || s.ranks.empty() ||
                  timesAgree(closest->hist.mean(), s.hist.mean()) || groups >= kMaxTimingGroups)) {
    closest->hist = mergeHistograms(closest->hist, s.hist);
    closest->ranks = closest->ranks.empty() || s.ranks.empty() ? RankList() : RankList::unite(closest->ranks, s.ranks);
    return;
  }
  stats.push_back(s);
}

// Summarised times carry no sample count: two that agree are averaged, weighted by their ranks;
// others stay apart as timing sub-groups. Their drift over calls is averaged range by range
// where both have the same ranges, and dropped otherwise (the mean stays).
void addCompute(std::vector<ComputeTime>& compute, const ComputeTime& c) {
  auto weight = [](const ComputeTime& x) { return x.ranks.empty() ? 1.0 : static_cast<double>(x.ranks.size()); };
  for (auto& x : compute)
    if (x.after == c.after && (x.ranks.empty() || c.ranks.empty() || timesAgree(x.us, c.us))) {
      const bool sameRanges = x.calls.size() == c.calls.size() &&
                              std::equal(x.calls.begin(), x.calls.end(), c.calls.begin(),
                                         [](const ComputeTime::ByCall& p, const ComputeTime::ByCall& q) { return p.first == q.first; });
      if (sameRanges) {
        for (std::size_t i = 0; i < x.calls.size(); ++i)
          x.calls[i].us = (x.calls[i].us * weight(x) + c.calls[i].us * weight(c)) / (weight(x) + weight(c));
      } else {
        x.calls.clear();
      }
      x.us = (x.us * weight(x) + c.us * weight(c)) / (weight(x) + weight(c));
      x.ranks = x.ranks.empty() || c.ranks.empty() ? RankList() : RankList::unite(x.ranks, c.ranks);
      return;
    }
  compute.push_back(c);
}

// --- value groups ------------------------------------------------------------------------------

// Fuses groups with equal value lists, so merged events stay as compressed as their inputs.
void coalesce(std::vector<ValueGroup>& groups) {
  std::vector<ValueGroup> out;
  for (auto& g : groups) {
    auto it = std::find_if(out.begin(), out.end(), [&](const ValueGroup& o) { return o.values == g.values; });
    if (it == out.end()) out.push_back(std::move(g));
    else it->ranks = RankList::unite(it->ranks, g.ranks);
  }
  groups = std::move(out);
}

// The value RankCursor uses when an event has no such parameter, where one exists that
// verifies (datatype 0 is not declared in every trace, a missing root has no stored form).
std::optional<std::int64_t> absentValue(Param p) {
  switch (p) {
    case Param::Comm: return kCommWorld;
    case Param::Count: return 0;
    case Param::ReduceOp: return 0;
    case Param::Tag: return 0;
    case Param::RecvCount: return -1;
    default: return std::nullopt;
  }
}

// Parameters MPI reads at the root only: the receive side of a gather, the send side of a
// scatter. The recorder records them where they are significant, so a non-root's event may
// lack them (always the vectors of Gatherv and Scatterv, which non-roots need not even pass).
bool rootOnly(Op op, Param p) {
  switch (blockingForm(op)) {  // MPI_Igatherv and MPI_Iscatterv as their blocking forms
    case Op::Gather: return p == Param::RecvCount || p == Param::RecvType;
    case Op::Gatherv: return p == Param::RecvCounts || p == Param::Displs || p == Param::RecvType;
    case Op::Scatter: return p == Param::Count || p == Param::Datatype;
    case Op::Scatterv: return p == Param::SendCounts || p == Param::Displs || p == Param::Datatype;
    default: return false;
  }
}

// Equal as cyclically consumed lists, i.e. at every execution (checked over one common period,
// capped: lists this long are not compressed values any more).
bool cyclicEqual(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.empty() || b.empty()) return a.empty() == b.empty();
  const std::size_t n = std::min<std::size_t>(std::lcm(a.size(), b.size()), std::size_t{1} << 20);
  for (std::size_t i = 0; i < n; ++i)
    if (a[i % a.size()] != b[i % b.size()]) return false;
  return true;
}

// [first, last] if the list is one contiguous range (the world communicator always is).
std::optional<std::pair<Rank, Rank>> contiguous(const RankList& l) {
  if (l.tuples().size() != 1) return std::nullopt;
  const RankTuple& t = l.tuples().front();
  if (t.dims.size() > 1 || (t.dims.size() == 1 && t.dims.front().stride != 1)) return std::nullopt;
  return std::pair{t.first(), t.last()};
}

std::string describe(const Event& e) { return fmt::format("event {} ({} @ {})", e.id, opName(e.op), e.ranks.pretty(8)); }

// --- the pass ----------------------------------------------------------------------------------

class Aligner {
 public:
  Aligner(Trace& t, PassContext& ctx) : t_(t), ctx_(ctx) {}

  void run() {
    if (!classify()) return;
    std::vector<std::vector<EventIndex>> groups = findGroups();
    origOf_.resize(t_.events.size());
    std::iota(origOf_.begin(), origOf_.end(), EventIndex{0});
    // In trace order, retrying blocked groups while others succeed: a group can be blocked only
    // by a later group's unmerged events (the corner ranks' two Allreduces of one iteration
    // stand between the first pair of partners until the second pair is merged).
    std::sort(groups.begin(), groups.end());
    for (;;) {
      std::vector<std::vector<EventIndex>> blocked;
      for (const auto& g : groups)
        if (mergeGroup(g, false) == Outcome::Blocked) blocked.push_back(g);
      const bool progress = blocked.size() < groups.size();
      groups = std::move(blocked);
      if (!progress || groups.empty()) break;
    }
    for (const auto& g : groups) mergeGroup(g, true);
  }

 private:
  enum class Outcome { Merged, Blocked, Failed };
  struct CollInfo {
    CollKey key;
    std::vector<std::size_t> instances;  // instances of the communicator the event touches
    bool partial = false;
  };
  struct ClassItem {
    EventIndex event;
    std::vector<std::pair<const ValueGroup*, const ValueGroup*>> levels;  // (iter, mem) per level
  };
  struct RankClass {
    Rank rep;
    std::vector<ClassItem> items;
  };
  struct InstanceMatch {
    std::map<EventIndex, OccKey> keyOf;
    std::set<EventIndex> inconsistent;  // different occurrences for different ranks
    std::set<OccKey> covering;          // occurrences every member makes
  };

  const std::vector<RankList>* instancesOf(std::int64_t comm) {
    auto it = commInstances_.find(comm);
    if (it == commInstances_.end()) {
      std::vector<RankList> inst;
      if (const Communicator* c = t_.comm(comm); c && !c->instances.empty()) inst = c->instances;
      else if (comm == kCommWorld) inst = {RankList::all(t_.numRanks)};
      it = commInstances_.emplace(comm, std::move(inst)).first;
    }
    return it->second.empty() ? nullptr : &it->second;
  }

  // Step 1: finds the collective events and whether any is partial. Works on ranklists only.
  bool classify() {
    std::int64_t partial = 0;
    for (EventIndex i = 0; i < t_.events.size(); ++i) {
      const Event& e = t_.events[i];
      // Nonblocking collectives take part too: MPI orders them with the blocking ones by the
      // initiating call.
      if (!isCollective(opInfo(e.op).kind) || e.ranks.empty()) continue;
      std::int64_t comm = kCommWorld;
      if (e.param(Param::Comm)) {
        auto u = e.uniformValue(Param::Comm);
        if (!u) {
          // Occurrences cannot be counted per communicator for this operation any more.
          ++ctx_.counter("mixed-communicator");
          undecidableOps_.insert(e.op);
          continue;
        }
        comm = *u;
      }
      if (comm == kCommSelf) continue;
      const std::vector<RankList>* insts = instancesOf(comm);
      if (!insts) {
        ++ctx_.counter("unknown-communicator");
        continue;
      }
      CollInfo info{{e.op, comm}, {}, false};
      const Rank size = e.ranks.size();
      Rank covered = 0;
      for (std::size_t k = 0; k < insts->size(); ++k) {
        const RankList& inst = (*insts)[k];
        Rank common = 0;
        if (auto range = contiguous(inst)) {
          // The common case (world) without enumerating ranks.
          if (*e.ranks.first() >= range->first && *e.ranks.last() <= range->second) common = size;
          else if (*e.ranks.last() < range->first || *e.ranks.first() > range->second) common = 0;
          else common = RankList::intersect(inst, e.ranks).size();
        } else if (inst.intersects(e.ranks)) {
          common = RankList::intersect(inst, e.ranks).size();
        }
        if (common == 0) continue;
        info.instances.push_back(k);
        covered += common;
        if (common != inst.size()) info.partial = true;
      }
      if (covered != size) {
        // Ranks outside every instance: the table does not describe this communicator.
        ++ctx_.counter("unknown-communicator");
        undecidableKeys_.insert(info.key);
        continue;
      }
      if (info.partial) ++partial;
      coll_.emplace(i, std::move(info));
    }
    if (partial == 0) return false;
    ctx_.counter("partial-collectives") += partial;
    return true;
  }

  bool isKey(EventIndex ev, const CollKey& key) const {
    auto it = coll_.find(ev);
    return it != coll_.end() && it->second.key == key;
  }

  // Ranks with the same own event list and loop groups behave alike; one class per behaviour.
  std::size_t classOf(Rank r) {
    if (rankClass_.empty()) rankClass_.assign(static_cast<std::size_t>(t_.numRanks), kNoClass);
    if (rankClass_[static_cast<std::size_t>(r)] != kNoClass) return rankClass_[static_cast<std::size_t>(r)];
    // The signature goes into a reused buffer: this runs once per member of every instance
    // that is matched, so it must not allocate per rank.
    sig_.clear();
    for (EventIndex i = 0; i < t_.events.size(); ++i) {
      const Event& e = t_.events[i];
      if (!e.ranks.contains(r)) continue;
      sig_.push_back(static_cast<std::int64_t>(i));
      for (const LoopLevel& lv : e.loops) {
        std::int64_t gi = -1, gm = -1;
        for (std::size_t g = 0; g < lv.iter.size(); ++g)
          if (lv.iter[g].ranks.contains(r)) gi = static_cast<std::int64_t>(g);
        for (std::size_t g = 0; g < lv.mem.size(); ++g)
          if (lv.mem[g].ranks.contains(r)) gm = static_cast<std::int64_t>(g);
        if (gi < 0 && gm < 0) break;  // the rank's loop stack ends here
        sig_.push_back(gi);
        sig_.push_back(gm);
      }
      sig_.push_back(-2);
    }
    auto it = classBySig_.find(sig_);
    if (it == classBySig_.end()) {
      // A new behaviour: decode its items (event, loop groups) from the signature.
      std::vector<ClassItem> items;
      for (std::size_t k = 0; k < sig_.size();) {
        ClassItem item{static_cast<EventIndex>(sig_[k++]), {}};
        const Event& e = t_.events[item.event];
        for (std::size_t level = 0; sig_[k] != -2; ++level, k += 2) {
          const LoopLevel& lv = e.loops[level];
          item.levels.emplace_back(sig_[k] < 0 ? nullptr : &lv.iter[static_cast<std::size_t>(sig_[k])],
                                   sig_[k + 1] < 0 ? nullptr : &lv.mem[static_cast<std::size_t>(sig_[k + 1])]);
        }
        ++k;
        items.push_back(std::move(item));
      }
      it = classBySig_.emplace(sig_, classes_.size()).first;
      classes_.push_back({r, std::move(items)});
    }
    rankClass_[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(it->second);
    return it->second;
  }

  // The loop of level k headed by items[h] (§8 BUILD), pruned to events of the key.
  bool buildLoop(const std::vector<ClassItem>& items, const CollKey& key, std::size_t h, std::size_t k,
                 std::size_t limit, SkNode& node, std::size_t& span) const {
    auto [iter, mem] = items[h].levels[k];
    // Body lengths that change between entries make the structure dynamic: not decided here.
    if (!iter || !mem || iter->values.empty() || mem->values.size() != 1 || mem->values.front() < 1) return false;
    for (auto v : iter->values)
      if (v < 0) return false;
    const auto m = static_cast<std::size_t>(mem->values.front());
    if (h + m > limit) return false;
    node.leaf = false;
    node.counts = period(iter->values);
    std::size_t j = h + 1;
    if (items[h].levels.size() > k + 1) {
      SkNode child;
      std::size_t s = 0;
      if (!buildLoop(items, key, h, k + 1, h + m, child, s)) return false;
      node.body.push_back(std::move(child));
      j = h + s;
    } else if (isKey(items[h].event, key)) {
      node.body.push_back(SkNode{true, items[h].event, {1}, {}});
    }
    if (!buildSeq(items, key, j, h + m, node.body)) return false;
    span = m;
    return true;
  }

  bool buildSeq(const std::vector<ClassItem>& items, const CollKey& key, std::size_t j, std::size_t end,
                std::vector<SkNode>& out) const {
    while (j < end) {
      if (items[j].levels.empty()) {
        if (isKey(items[j].event, key)) out.push_back(SkNode{true, items[j].event, {1}, {}});
        ++j;
        continue;
      }
      SkNode child;
      std::size_t s = 0;
      if (!buildLoop(items, key, j, 0, end, child, s)) return false;
      out.push_back(std::move(child));
      j += s;
    }
    return true;
  }

  const Skeleton& skeleton(std::size_t cls, const CollKey& key) {
    auto [it, inserted] = skeletons_.try_emplace({cls, key});
    if (!inserted) return it->second;
    const auto& items = classes_[cls].items;
    std::vector<SkNode> root;
    if (buildSeq(items, key, 0, items.size(), root)) {
      canonicalise(root);
      encode(root, it->second);
      it->second.tree = std::move(root);
      it->second.ok = true;
    }
    return it->second;
  }

  // The fallback: each event's occurrence runs for the class, from its skeleton where it has
  // one (the shapes of the classes differ, but each is static), else by expanding the class's
  // representative.
  const std::map<EventIndex, OccKey>& expansion(std::size_t cls, const CollKey& key) {
    auto [it, inserted] = expansions_.try_emplace({cls, key});
    if (!inserted) return it->second;
    auto& occ = it->second;
    for (const auto& item : classes_[cls].items)
      if (isKey(item.event, key)) occ[item.event];  // an event never executed makes no occurrences
    if (const Skeleton& s = skeleton(cls, key); s.ok) {
      std::map<const SkNode*, std::size_t> entries;
      std::int64_t o = 0;
      occurrences(s.tree, entries, o, occ);
      ++ctx_.counter("skeleton-walked-ranks");
      return occ;
    }
    ++ctx_.counter("expanded-ranks");
    RankCursor cursor(t_, classes_[cls].rep, ctx_.fileName);
    Call call;
    std::int64_t o = 0;
    while (cursor.next(call)) {
      if (call.op != key.op) continue;
      const auto ev = static_cast<EventIndex>(call.event - t_.events.data());
      if (!isKey(ev, key)) continue;
      OccKey& runs = occ[ev];
      if (!runs.empty() && runs.back() == o) ++runs.back();
      else runs.insert(runs.end(), {o, o + 1});
      ++o;
    }
    return occ;
  }

  // Step 2 for one communicator instance: which events make which occurrences.
  const InstanceMatch& match(const CollKey& key, std::size_t inst) {
    auto [mit, inserted] = matches_.try_emplace({key, inst});
    InstanceMatch& m = mit->second;
    if (!inserted) return m;
    std::set<std::size_t> classes;
    (*instancesOf(key.comm))[inst].forEach([&](Rank r) {
      classes.insert(classOf(r));
      return true;
    });
    bool structural = true;
    const std::vector<std::int64_t>* shape = nullptr;
    for (std::size_t c : classes) {
      const Skeleton& s = skeleton(c, key);
      if (!s.ok || (shape && *shape != s.shape)) {
        structural = false;
        break;
      }
      shape = &s.shape;
    }
    std::map<OccKey, std::set<std::size_t>> classesWith;
    for (std::size_t c : classes) {
      std::map<EventIndex, OccKey> structuralOcc;
      if (structural) {
        const Skeleton& s = skeleton(c, key);
        for (std::size_t p = 0; p < s.leaves.size(); ++p) structuralOcc[s.leaves[p]] = {static_cast<std::int64_t>(p)};
      }
      const auto& occ = structural ? structuralOcc : expansion(c, key);
      for (const auto& [ev, k] : occ) {
        auto [it, fresh] = m.keyOf.emplace(ev, k);
        if (!fresh && it->second != k) m.inconsistent.insert(ev);
        classesWith[k].insert(c);
      }
    }
    // An event that never runs has no calls to align (and an empty run list would pair it with
    // every other such event).
    for (const auto& [k, cs] : classesWith)
      if (cs.size() == classes.size() && !k.empty()) m.covering.insert(k);
    return m;
  }

  // Is event ev, in instance inst, one of a partner set covering the instance? Its key if so.
  std::optional<OccKey> coveringKey(EventIndex ev, std::size_t inst) {
    const CollInfo& info = coll_.at(ev);
    if (undecidableOps_.count(info.key.op) || undecidableKeys_.count(info.key)) return std::nullopt;
    const InstanceMatch& m = match(info.key, inst);
    auto it = m.keyOf.find(ev);
    if (it == m.keyOf.end() || m.inconsistent.count(ev) || !m.covering.count(it->second)) return std::nullopt;
    return it->second;
  }

  std::vector<std::vector<EventIndex>> findGroups() {
    std::vector<EventIndex> parent(t_.events.size());
    std::iota(parent.begin(), parent.end(), EventIndex{0});
    auto find = [&](EventIndex x) {
      while (parent[x] != x) x = parent[x] = parent[parent[x]];
      return x;
    };
    std::set<EventIndex> bad;
    for (const auto& [i, info] : coll_) {
      if (!info.partial) continue;
      for (std::size_t inst : info.instances) {
        auto k = coveringKey(i, inst);
        if (!k) {
          bad.insert(i);
          break;
        }
        for (const auto& [ev, key] : match(info.key, inst).keyOf)
          if (key == *k) parent[find(ev)] = find(i);
      }
    }
    std::map<EventIndex, std::vector<EventIndex>> components;
    for (const auto& [i, info] : coll_) components[find(i)].push_back(i);

    std::vector<std::vector<EventIndex>> groups;
    std::map<CollKey, std::vector<EventIndex>> unmatched;
    for (auto& [root, members] : components) {
      bool anyPartial = false, valid = members.size() >= 2;
      for (EventIndex ev : members) {
        anyPartial = anyPartial || coll_.at(ev).partial;
        valid = valid && !bad.count(ev);
      }
      if (!anyPartial) continue;
      // In every instance the group touches, its events must be one covering partner set.
      std::map<std::size_t, OccKey> keyIn;
      for (EventIndex ev : members) {
        for (std::size_t inst : coll_.at(ev).instances) {
          if (!valid) break;
          auto k = coveringKey(ev, inst);
          auto [it, fresh] = keyIn.emplace(inst, k.value_or(OccKey{}));
          valid = k && (fresh || it->second == *k);
        }
      }
      if (!valid) {
        auto& list = unmatched[coll_.at(members.front()).key];
        list.insert(list.end(), members.begin(), members.end());
        continue;
      }
      groups.push_back(std::move(members));
    }
    // One warning per operation and communicator: the events that failed together.
    for (auto& [key, list] : unmatched) {
      std::sort(list.begin(), list.end());
      // The first few events by name; a trace that does not fold can hold thousands of them.
      constexpr std::size_t kNamed = 6;
      std::vector<std::string> names;
      for (EventIndex ev : list) {
        if (names.size() < kNamed) names.push_back(describe(t_.events[ev]));
        if (coll_.at(ev).partial) ++ctx_.counter("unmatched");
      }
      if (list.size() > kNamed) names.push_back(fmt::format("and {} more events", list.size() - kNamed));
      const bool undecidable = undecidableOps_.count(key.op) || undecidableKeys_.count(key);
      ctx_.warn(fmt::format(
          "align-collectives: {} on communicator {}: {} cannot be matched call by call with the other members' calls "
          "({}); left as they are",
          opName(key.op), key.comm, fmt::join(names, ", "),
          undecidable ? "other events of the operation have ranks outside the communicator table or per-rank "
                        "communicators, so calls cannot be counted"
                      : "the members call it different numbers of times or in a different order"));
    }
    return groups;
  }

  // Is some rank of event e the root of one of its calls on communicator `comm` (whose
  // instances are `insts`)? Roots are in the numbering the trace uses for peers.
  bool holdsRoot(const Event& e, std::int64_t comm, const std::vector<RankList>& insts) const {
    const ParamValues* root = e.param(Param::Root);
    if (!root) return false;
    for (const auto& g : root->groups)
      for (auto v : g.values) {
        if (comm == kCommWorld || t_.worldPeers) {
          if (g.ranks.contains(v)) return true;
          continue;
        }
        for (const RankList& inst : insts)
          if (v >= 0 && v < inst.size() && g.ranks.contains(inst.at(v))) return true;
      }
    return false;
  }

  // Builds the merged event from the partners (ascending id), collectives on communicator
  // `comm` (instances `insts`); nullopt with a reason if their parameters cannot be combined.
  std::optional<Event> mergedEvent(const std::vector<const Event*>& parts, std::int64_t comm,
                                   const std::vector<RankList>& insts, std::string& why) const {
    const Event& first = *parts.front();
    Event m;
    m.id = first.id;
    m.op = first.op;
    m.line = first.line;
    m.site = first.site;
    for (const Event* p : parts)
      if (m.site == kNoSite) m.site = p->site;
    for (const Event* p : parts) {
      std::vector<SiteId> sites{p->site};
      sites.insert(sites.end(), p->mergedSites.begin(), p->mergedSites.end());
      for (SiteId s : sites)
        if (s != kNoSite && s != m.site && std::find(m.mergedSites.begin(), m.mergedSites.end(), s) == m.mergedSites.end())
          m.mergedSites.push_back(s);
      m.ranks = RankList::unite(m.ranks, p->ranks);
    }
    std::size_t depth = 0;
    for (const Event* p : parts) depth = std::max(depth, p->loops.size());
    m.loops.resize(depth);
    for (std::size_t k = 0; k < depth; ++k) {
      for (const Event* p : parts) {
        if (k >= p->loops.size()) continue;
        m.loops[k].iter.insert(m.loops[k].iter.end(), p->loops[k].iter.begin(), p->loops[k].iter.end());
        m.loops[k].mem.insert(m.loops[k].mem.end(), p->loops[k].mem.begin(), p->loops[k].mem.end());
      }
      coalesce(m.loops[k].iter);
      coalesce(m.loops[k].mem);
    }
    std::set<Param> params;
    for (const Event* p : parts)
      for (const auto& pv : p->params) params.insert(pv.param);
    for (Param param : params) {  // std::set orders by Param, as Event::params must be
      ParamValues merged{param, false, {}};
      std::optional<bool> relative;
      const ValueGroup* donor = nullptr;  // values for partners that lack a root-only parameter
      for (const Event* p : parts)
        if (const ParamValues* pv = p->param(param); pv && !donor) donor = &pv->groups.front();
      for (const Event* p : parts) {
        if (const ParamValues* pv = p->param(param)) {
          if (relative && *relative != pv->relative) {
            why = fmt::format("parameter '{}' is stored as offsets for some of them only", paramName(param));
            return std::nullopt;
          }
          relative = pv->relative;
          merged.groups.insert(merged.groups.end(), pv->groups.begin(), pv->groups.end());
        } else if (rootOnly(m.op, param)) {
          if (holdsRoot(*p, comm, insts)) {
            why = fmt::format("event {} has no parameter '{}' although some of its ranks are the root", p->id,
                              paramName(param));
            return std::nullopt;
          }
          merged.groups.push_back({p->ranks, donor->values});
        } else if (auto v = absentValue(param)) {
          merged.groups.push_back({p->ranks, {*v}});
        } else {
          why = fmt::format("event {} has no parameter '{}'", p->id, paramName(param));
          return std::nullopt;
        }
      }
      merged.relative = relative.value_or(false);
      coalesce(merged.groups);
      m.params.push_back(std::move(merged));
    }
    // Each part's times keep its ranks, so that parts that spend different times stay apart.
    for (const Event* p : parts) {
      for (TimeStat s : p->stats) {
        if (s.ranks.empty()) s.ranks = p->ranks;
        addStat(m.stats, s);
      }
      for (ComputeTime c : p->compute) {
        if (c.ranks.empty()) c.ranks = p->ranks;
        addCompute(m.compute, c);
      }
    }
    normalizeTimingGroups(m);
    return m;
  }

  // Roots and reduction operators must agree among the members of one communicator instance.
  void checkValues(const Event& m, const CollKey& key) {
    const std::vector<RankList>& insts = *instancesOf(key.comm);
    for (Param param : {Param::Root, Param::ReduceOp}) {
      const ParamValues* pv = m.param(param);
      if (!pv || pv->groups.size() < 2) continue;
      for (const RankList& inst : insts) {
        const ValueGroup* ref = nullptr;
        for (const auto& g : pv->groups) {
          if (!g.ranks.intersects(inst)) continue;
          if (!ref) {
            ref = &g;
          } else if (!cyclicEqual(ref->values, g.values)) {
            ctx_.warn(fmt::format("align-collectives: merged {}: ranks {} and {} pass different {} ({} vs {}) to one "
                                  "collective call, which MPI forbids",
                                  describe(m), ref->ranks.pretty(8), g.ranks.pretty(8), paramName(param),
                                  fmt::join(ref->values, " "), fmt::join(g.values, " ")));
            ++ctx_.counter("value-mismatch");
            return;
          }
        }
      }
    }
  }

  // Steps 3 and 4 for one group (original event indices). A group without a valid position is
  // reported only when `report` is set (the last attempt).
  Outcome mergeGroup(const std::vector<EventIndex>& group, bool report) {
    const std::size_t n = t_.events.size();
    std::vector<std::size_t> pos;
    for (std::size_t j = 0; j < n; ++j)
      if (std::binary_search(group.begin(), group.end(), origOf_[j])) pos.push_back(j);
    std::vector<char> isPartner(n, 0);
    for (auto p : pos) isPartner[p] = 1;

    std::vector<const Event*> parts;
    for (auto p : pos) parts.push_back(&t_.events[p]);
    std::stable_sort(parts.begin(), parts.end(), [](const Event* a, const Event* b) { return a->id < b->id; });
    std::vector<std::string> names;
    for (const Event* p : parts) names.push_back(describe(*p));

    // Insertion points ("before event g", g in [0, n]) each partner allows.
    std::size_t lo = 0, hi = n, loBlock = n, hiBlock = n, loOwner = 0, hiOwner = 0;
    for (auto p : pos) {
      const RankList& ranks = t_.events[p].ranks;
      for (std::size_t j = p; j-- > 0;)
        if (!isPartner[j] && t_.events[j].ranks.intersects(ranks)) {
          if (j + 1 > lo) std::tie(lo, loBlock, loOwner) = std::tuple{j + 1, j, p};
          break;
        }
      for (std::size_t j = p + 1; j < n; ++j)
        if (!isPartner[j] && t_.events[j].ranks.intersects(ranks)) {
          if (j < hi) std::tie(hi, hiBlock, hiOwner) = std::tuple{j, j, p};
          break;
        }
    }
    if (lo > hi) {
      if (!report) return Outcome::Blocked;
      ctx_.warn(fmt::format("align-collectives: {} are one collective call, but no position is consistent with every "
                            "rank's order: event {} must stay after {}, event {} before {}; left as they are",
                            fmt::join(names, ", "), t_.events[loOwner].id, describe(t_.events[loBlock]),
                            t_.events[hiOwner].id, describe(t_.events[hiBlock])));
      ++ctx_.counter("unaligned");
      return Outcome::Blocked;
    }
    std::size_t gap = lo;
    for (auto p : pos)
      if (p + 1 >= lo && p <= hi) {  // next to partner p: it takes p's place
        gap = std::max(p, lo);
        break;
      }

    std::string why;
    const CollKey key = coll_.at(group.front()).key;
    std::optional<Event> merged = mergedEvent(parts, key.comm, *instancesOf(key.comm), why);
    if (!merged) {
      ctx_.warn(fmt::format("align-collectives: {} are one collective call but cannot be merged: {}; left as they are",
                            fmt::join(names, ", "), why));
      ++ctx_.counter("unaligned");
      return Outcome::Failed;
    }
    checkValues(*merged, key);
    const SiteId site = merged->site;
    std::vector<SiteId> oldSites;
    for (const Event* p : parts)
      if (p->site != merged->site && p->site != kNoSite) oldSites.push_back(p->site);
    const auto primaryPos = static_cast<std::size_t>(parts.front() - t_.events.data());
    const EventIndex primaryOrig = origOf_[primaryPos];

    std::vector<Event> events;
    std::vector<EventIndex> orig;
    events.reserve(n - pos.size() + 1);
    for (std::size_t j = 0; j <= n; ++j) {
      if (j == gap) {
        events.push_back(std::move(*merged));
        orig.push_back(primaryOrig);
      }
      if (j < n && !isPartner[j]) {
        events.push_back(std::move(t_.events[j]));
        orig.push_back(origOf_[j]);
      }
    }
    t_.events = std::move(events);
    origOf_ = std::move(orig);
    for (SiteId s : oldSites) rekey(s, site);
    ++ctx_.counter("collectives-aligned");
    ctx_.counter("events-removed") += static_cast<std::int64_t>(pos.size() - 1);
    return Outcome::Merged;
  }

  // Step 5: statistics keyed by the predecessor site `from` now belong to `to`.
  void rekey(SiteId from, SiteId to) {
    if (to == kNoSite) return;
    const bool stillUsed =
        std::any_of(t_.events.begin(), t_.events.end(), [&](const Event& e) { return e.site == from; });
    for (Event& e : t_.events) {
      std::vector<TimeStat> stats;
      for (auto it = e.stats.begin(); it != e.stats.end();) {
        if (it->after != from) {
          ++it;
          continue;
        }
        stats.push_back(*it);
        stats.back().after = to;
        it = stillUsed ? it + 1 : e.stats.erase(it);
      }
      for (const auto& s : stats) addStat(e.stats, s);
      std::vector<ComputeTime> compute;
      for (auto it = e.compute.begin(); it != e.compute.end();) {
        if (it->after != from) {
          ++it;
          continue;
        }
        compute.push_back({to, it->us, it->ranks, it->calls});
        it = stillUsed ? it + 1 : e.compute.erase(it);
      }
      for (const auto& c : compute) addCompute(e.compute, c);
      ctx_.counter("stats-rekeyed") += static_cast<std::int64_t>(stats.size() + compute.size());
    }
  }

  Trace& t_;
  PassContext& ctx_;
  std::map<EventIndex, CollInfo> coll_;  // collectives on described communicators, by original index
  std::set<Op> undecidableOps_;          // some event of the op has per-rank communicators
  std::set<CollKey> undecidableKeys_;    // some event on the key has ranks outside the table
  std::map<std::int64_t, std::vector<RankList>> commInstances_;
  static constexpr std::uint32_t kNoClass = UINT32_MAX;
  std::vector<std::uint32_t> rankClass_;  // class of each rank, filled as ranks are matched
  std::map<std::vector<std::int64_t>, std::size_t> classBySig_;
  std::vector<std::int64_t> sig_;
  std::vector<RankClass> classes_;
  std::map<std::pair<std::size_t, CollKey>, Skeleton> skeletons_;
  std::map<std::pair<std::size_t, CollKey>, std::map<EventIndex, OccKey>> expansions_;
  std::map<std::pair<CollKey, std::size_t>, InstanceMatch> matches_;
  std::vector<EventIndex> origOf_;  // original index of each current event
};

}  // namespace

void AlignCollectivesPass::run(Trace& trace, PassContext& ctx) { Aligner(trace, ctx).run(); }

std::unique_ptr<Pass> createAlignCollectivesPass() { return std::make_unique<AlignCollectivesPass>(); }

std::vector<const Event*> partialCollectives(const Trace& trace) {
  std::vector<const Event*> partial;
  const std::vector<RankList> world = {RankList::all(trace.numRanks)};
  for (const Event& e : trace.events) {
    if (!isCollective(opInfo(e.op).kind) || e.ranks.empty()) continue;
    std::int64_t comm = kCommWorld;
    if (e.param(Param::Comm)) {
      const auto u = e.uniformValue(Param::Comm);
      if (!u) continue;
      comm = *u;
    }
    if (comm == kCommSelf) continue;
    const Communicator* c = comm == kCommWorld ? nullptr : trace.comm(comm);
    if (comm != kCommWorld && (!c || c->instances.empty())) continue;
    for (const RankList& inst : comm == kCommWorld ? world : c->instances) {
      if (!inst.intersects(e.ranks)) continue;
      if (RankList::intersect(inst, e.ranks).size() != inst.size()) {
        partial.push_back(&e);
        break;
      }
    }
  }
  return partial;
}

std::int64_t countPartialCollectives(const Trace& trace) {
  return static_cast<std::int64_t>(partialCollectives(trace).size());
}

}  // namespace tracegen
