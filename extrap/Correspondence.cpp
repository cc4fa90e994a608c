#include "extrap/Correspondence.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "ir/Diagnostics.h"

namespace tracegen::extrap {

namespace {

// The most cells of the alignment table (events of the reference by events of the other input,
// past their common prefix and suffix): 4 bytes a cell, 64 MiB at most.
constexpr std::size_t kMaxAlignmentCells = std::size_t{1} << 24;

// What an event does, as far as it must agree between scales for two events to be one.
struct EventKey {
  Op op = Op::Init;
  std::set<std::int64_t> comms, datatypes, reduceOps;
  bool relativePeers = false, absolutePeers = false, anySource = false;
  bool operator==(const EventKey&) const = default;
};

EventKey keyOf(const Event& e) {
  EventKey k;
  k.op = e.op;
  for (const ParamValues& pv : e.params) {
    std::set<std::int64_t>* into = nullptr;
    if (pv.param == Param::Comm) into = &k.comms;
    if (pv.param == Param::ReduceOp) into = &k.reduceOps;
    if (pv.param == Param::Datatype || pv.param == Param::RecvType) into = &k.datatypes;
    if (into)
      for (const ValueGroup& g : pv.groups) into->insert(g.values.begin(), g.values.end());
    if (pv.param == Param::Dest || pv.param == Param::Source) {
      (pv.relative ? k.relativePeers : k.absolutePeers) = true;
      for (const ValueGroup& g : pv.groups)
        if (std::find(g.values.begin(), g.values.end(), kAnySource) != g.values.end()) k.anySource = true;
    }
  }
  return k;
}

std::string describe(const Trace& t, const Event& e) {
  return fmt::format("event {} {} at {}", e.id, opName(e.op), t.siteLabel(e.site));
}

std::string scaleOf(const ExtrapolateInput& in) { return fmt::format("P={}", in.trace.numRanks); }

// One pairwise alignment: for each event of the reference the index of its partner in the
// other input, or -1; and the same the other way.
struct Alignment {
  std::vector<std::int64_t> toOther, toReference;
  bool complete() const {
    return std::find(toOther.begin(), toOther.end(), -1) == toOther.end() &&
           std::find(toReference.begin(), toReference.end(), -1) == toReference.end();
  }
};

// Whether two events were called from the same place: the same chain of offsets, or, where
// the recorder named the frames, the same chain of functions (offsets move between binaries
// compiled for each process count; function names survive).
class SameSite {
 public:
  SameSite(const Trace& a, const Trace& b) : a_(a), b_(b), fa_(a.sites.size()), fb_(b.sites.size()) {}
  bool operator()(SiteId x, SiteId y) {
    if (a_.siteName(x) == b_.siteName(y)) return true;
    if (x == kNoSite || y == kNoSite) return false;
    const auto& f = functions(a_, fa_, x);
    const auto& g = functions(b_, fb_, y);
    return f == g && std::any_of(f.begin(), f.end(), [](const std::string& n) { return !n.empty(); });
  }

 private:
  static const std::vector<std::string>& functions(const Trace& t, std::vector<std::optional<std::vector<std::string>>>& cache,
                                                   SiteId s) {
    auto& c = cache[static_cast<std::size_t>(s)];
    if (!c) c = t.siteFunctions(s);
    return *c;
  }
  const Trace& a_;
  const Trace& b_;
  std::vector<std::optional<std::vector<std::string>>> fa_, fb_;
};

Alignment align(const ExtrapolateInput& ref, const ExtrapolateInput& other) {
  const auto& a = ref.trace.events;
  const auto& b = other.trace.events;
  std::vector<EventKey> ka, kb;
  for (const Event& e : a) ka.push_back(keyOf(e));
  for (const Event& e : b) kb.push_back(keyOf(e));
  // The weight of pairing a[i] with b[j]: pairing comes first, then equal call sites, then
  // equal loop nesting.
  SameSite sameSite(ref.trace, other.trace);
  auto weight = [&](std::size_t i, std::size_t j) -> std::int32_t {
    if (!(ka[i] == kb[j])) return 0;
    return 16 + (sameSite(a[i].site, b[j].site) ? 2 : 0) + (a[i].loops.size() == b[j].loops.size() ? 1 : 0);
  };
  Alignment al;
  al.toOther.assign(a.size(), -1);
  al.toReference.assign(b.size(), -1);
  auto pair = [&](std::size_t i, std::size_t j) {
    al.toOther[i] = static_cast<std::int64_t>(j);
    al.toReference[j] = static_cast<std::int64_t>(i);
  };
  std::size_t pre = 0;
  while (pre < a.size() && pre < b.size() && ka[pre] == kb[pre]) pair(pre, pre), ++pre;
  std::size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre && ka[a.size() - 1 - suf] == kb[b.size() - 1 - suf])
    pair(a.size() - 1 - suf, b.size() - 1 - suf), ++suf;
  const std::size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n == 0 || m == 0) return al;
  if ((n + 1) > kMaxAlignmentCells / (m + 1))
    throw InputError(other.file, b[pre].line,
                     fmt::format("{} and {}: the traces differ in too many events to align ({} events of {} and {} "
                                 "of {} after the first {} agree); the structure changes with scale in a way no "
                                 "model explains",
                                 describe(other.trace, b[pre]), describe(ref.trace, a[pre]), m, scaleOf(other), n,
                                 scaleOf(ref), pre));
  // score[i][j]: the best weight of aligning a[pre+i..pre+n) with b[pre+j..pre+m).
  const std::size_t w = m + 1;
  std::vector<std::int32_t> score((n + 1) * w, 0);
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;) {
      std::int32_t best = std::max(score[(i + 1) * w + j], score[i * w + j + 1]);
      if (const std::int32_t wt = weight(pre + i, pre + j); wt > 0)
        best = std::max(best, wt + score[(i + 1) * w + j + 1]);
      score[i * w + j] = best;
    }
  std::size_t i = 0, j = 0;
  while (i < n && j < m) {
    const std::int32_t wt = weight(pre + i, pre + j);
    if (wt > 0 && score[i * w + j] == wt + score[(i + 1) * w + j + 1]) {
      pair(pre + i, pre + j);
      ++i, ++j;
    } else if (score[i * w + j] == score[(i + 1) * w + j]) {
      ++i;
    } else {
      ++j;
    }
  }
  return al;
}

// The most events of an input whose interleaving is reordered (the ordering constraints are
// pairs of events that share ranks: quadratic in the events).
constexpr std::size_t kMaxReorderedEvents = 2048;

// An alignment that may reorder `other`: the merged trace interleaves the events of disjoint
// rank sets in an order clustering chose, which differs between scales (at 4x2 the row that
// receives from the north and the row that sends to the south are disjoint, and either event
// may come first; at 4x4 the interior rows do both, in program order). Any order of `other`
// that keeps every rank's own order (each pair of events that share a rank) is the same
// program. Greedy: for each event of the reference in turn, the first event of `other` whose
// predecessors are all placed and whose key matches (preferring the same call site and loop
// nesting). Complete, or the caller keeps the in-order alignment for its message.
Alignment alignReordered(const ExtrapolateInput& ref, const ExtrapolateInput& other) {
  const auto& a = ref.trace.events;
  const auto& b = other.trace.events;
  Alignment al;
  al.toOther.assign(a.size(), -1);
  al.toReference.assign(b.size(), -1);
  if (a.size() != b.size() || b.size() > kMaxReorderedEvents) return al;
  std::vector<EventKey> kb;
  for (const Event& e : b) kb.push_back(keyOf(e));
  std::vector<std::size_t> waiting(b.size(), 0);
  std::vector<std::vector<std::size_t>> successors(b.size());
  for (std::size_t j = 0; j < b.size(); ++j)
    for (std::size_t k = 0; k < j; ++k)
      if (b[k].ranks.intersects(b[j].ranks)) {
        successors[k].push_back(j);
        ++waiting[j];
      }
  SameSite sameSite(ref.trace, other.trace);
  std::set<std::size_t> ready;
  for (std::size_t j = 0; j < b.size(); ++j)
    if (waiting[j] == 0) ready.insert(j);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const EventKey key = keyOf(a[i]);
    std::optional<std::size_t> best;
    int bestWeight = 0;
    for (std::size_t j : ready) {
      if (!(kb[j] == key)) continue;
      const int w = 1 + (sameSite(a[i].site, b[j].site) ? 2 : 0) + (a[i].loops.size() == b[j].loops.size() ? 1 : 0);
      if (w > bestWeight) best = j, bestWeight = w;
    }
    if (!best) {
      std::fill(al.toOther.begin(), al.toOther.end(), -1);
      std::fill(al.toReference.begin(), al.toReference.end(), -1);
      return al;
    }
    al.toOther[i] = static_cast<std::int64_t>(*best);
    al.toReference[*best] = static_cast<std::int64_t>(i);
    ready.erase(*best);
    for (std::size_t s : successors[*best])
      if (--waiting[s] == 0) ready.insert(s);
  }
  return al;
}

// The first difference of an incomplete alignment, as a sentence naming both events.
struct Difference {
  std::string file;  // where the first unpaired event stands
  int line = 0;
  std::string text;
};

Difference firstDifference(const ExtrapolateInput& ref, const ExtrapolateInput& other, const Alignment& al) {
  const auto& a = ref.trace.events;
  const auto& b = other.trace.events;
  // Walk both sequences in step; the first event of either that has no partner.
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size() && al.toOther[i] == static_cast<std::int64_t>(j)) ++i, ++j;
  auto atOr = [](const ExtrapolateInput& in, std::size_t k) {
    return k < in.trace.events.size() ? describe(in.trace, in.trace.events[k]) : std::string("the end of the trace");
  };
  Difference d;
  const bool otherUnpaired = j < b.size() && al.toReference[j] < 0;
  d.file = otherUnpaired || i >= a.size() ? other.file : ref.file;
  d.line = otherUnpaired ? b[j].line : i < a.size() ? a[i].line : 0;
  const std::string agreed =
      i == 0 ? std::string("from the first event on")
             : fmt::format("after {} events that agree (the last: {} at {})", i, atOr(ref, i - 1), scaleOf(ref));
  if (otherUnpaired && i < a.size() && al.toOther[i] < 0)
    d.text = fmt::format("{} at {} and {} at {} differ {}", atOr(other, j), scaleOf(other), atOr(ref, i),
                         scaleOf(ref), agreed);
  else if (otherUnpaired)
    d.text = fmt::format("{} at {} ({}) has no counterpart at {}, where {} comes next, {}", atOr(other, j),
                         scaleOf(other), other.file, scaleOf(ref), atOr(ref, i), agreed);
  else
    d.text = fmt::format("{} at {} ({}) has no counterpart at {}, where {} comes next, {}", atOr(ref, i),
                         scaleOf(ref), ref.file, scaleOf(other), atOr(other, j), agreed);
  d.text += fmt::format(" ({} events at {}, {} at {})", b.size(), scaleOf(other), a.size(), scaleOf(ref));
  return d;
}

// A copy of `other` with its events in the order of the largest input (position p holds the
// event at other[p]) and its call sites named as the reference's event at the same position.
ExtrapolateInput renamed(const ExtrapolateInput& ref, const std::vector<std::size_t>& refAt,
                         const ExtrapolateInput& other, const std::vector<std::size_t>& otherAt,
                         std::int64_t& renamedSites) {
  const Trace& r = ref.trace;
  const Trace& o = other.trace;
  std::vector<std::optional<std::string>> name(o.sites.size());
  auto map = [&](SiteId from, SiteId to) {
    if (from == kNoSite || to == kNoSite || name[static_cast<std::size_t>(from)]) return;
    name[static_cast<std::size_t>(from)] = std::string(r.siteName(to));
  };
  for (std::size_t p = 0; p < otherAt.size(); ++p) {
    const Event& eo = o.events[otherAt[p]];
    const Event& er = r.events[refAt[p]];
    map(eo.site, er.site);
    for (std::size_t k = 0; k < eo.mergedSites.size() && k < er.mergedSites.size(); ++k)
      map(eo.mergedSites[k], er.mergedSites[k]);
  }
  ExtrapolateInput out{other.file, o};
  Trace& t = out.trace;
  t.events.clear();
  for (std::size_t at : otherAt) t.events.push_back(o.events[at]);
  t.sites.clear();  // re-interned below; internSite rebuilds its index when the table shrinks
  // The renamed sites are the reference's chains: its frame names name them.
  t.frameNames = r.frameNames;
  t.program = r.program;
  std::vector<SiteId> id(o.sites.size(), kNoSite);
  auto translate = [&](SiteId s) -> SiteId {
    if (s == kNoSite) return kNoSite;
    const auto k = static_cast<std::size_t>(s);
    if (id[k] == kNoSite) {
      const std::string& n = name[k] ? *name[k] : o.sites[k];
      if (name[k] && *name[k] != o.sites[k]) ++renamedSites;
      id[k] = t.internSite(n);
    }
    return id[k];
  };
  for (Event& e : t.events) {
    e.site = translate(e.site);
    for (SiteId& s : e.mergedSites) s = translate(s);
    for (TimeStat& st : e.stats) st.after = translate(st.after);
    for (ComputeTime& ct : e.compute) ct.after = translate(ct.after);
  }
  return out;
}

// A loop of one trip is no loop: the recorder writes its body once, without a loop head. Where
// an event heads an inner loop at some inputs and not at others (a loop over log2(columns)
// exchange steps is one step on a 2x2 grid), the inputs without it get the loop with one trip,
// so that its trip count is fitted over every input. Only where the loop is plain at the
// inputs that have it: executed by every rank of the event, one body length everywhere.
void addLoopsOfOneTrip(std::vector<ExtrapolateInput>& inputs, std::int64_t& added) {
  if (inputs.empty()) return;
  for (std::size_t p = 0; p < inputs.front().trace.events.size(); ++p) {
    std::size_t levels = 0;
    for (const auto& in : inputs) levels = std::max(levels, in.trace.events[p].loops.size());
    for (std::size_t l = 0; l < levels; ++l) {
      std::optional<std::int64_t> body;
      bool plain = true, missing = false;
      for (const auto& in : inputs) {
        const Event& e = in.trace.events[p];
        if (l >= e.loops.size()) {
          missing = true;
          continue;
        }
        RankList covered;
        for (const ValueGroup& g : e.loops[l].iter) covered = RankList::unite(covered, g.ranks);
        plain = plain && covered == e.ranks;
        for (const ValueGroup& g : e.loops[l].mem) {
          if (g.values.size() != 1 || (body && *body != g.values[0])) plain = false;
          if (!g.values.empty()) body = g.values[0];
        }
      }
      // Levels every input has (an outer loop around the one-trip one) are passed over.
      if (!missing) continue;
      if (!plain || !body) break;
      for (auto& in : inputs) {
        Event& e = in.trace.events[p];
        if (e.loops.size() != l) continue;  // only the innermost missing level, one at a time
        e.loops.push_back(LoopLevel{{{e.ranks, {1}}}, {{e.ranks, {*body}}}});
        ++added;
      }
    }
  }
}

}  // namespace

CorrespondenceResult correspond(const std::vector<ExtrapolateInput>& inputs) {
  CorrespondenceResult res;
  // The largest input decides which inputs agree: the target is larger still, and small scales
  // are the degenerate ones.
  std::size_t largest = 0;
  for (std::size_t i = 1; i < inputs.size(); ++i)
    if (inputs[i].trace.numRanks > inputs[largest].trace.numRanks) largest = i;
  std::vector<Alignment> withLargest(inputs.size());
  std::vector<std::size_t> agree;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (i == largest) {
      agree.push_back(i);
      continue;
    }
    withLargest[i] = align(inputs[largest], inputs[i]);
    if (!withLargest[i].complete())
      if (Alignment reordered = alignReordered(inputs[largest], inputs[i]); reordered.complete()) {
        withLargest[i] = std::move(reordered);
        ++res.stats["inputs whose events were reordered"];
      }
    if (withLargest[i].complete()) agree.push_back(i);
  }
  // The differing input nearest in scale to the largest, for the message.
  std::optional<std::size_t> nearest;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (!withLargest[i].complete() && i != largest &&
        (!nearest || inputs[i].trace.numRanks > inputs[*nearest].trace.numRanks))
      nearest = i;
  if (nearest) {
    const Difference d = firstDifference(inputs[largest], inputs[*nearest], withLargest[*nearest]);
    std::vector<std::string> agreeing;
    for (std::size_t i : agree) agreeing.push_back(scaleOf(inputs[i]));
    if (agree.size() < 2) {
      const Rank p = inputs[largest].trace.numRanks;
      throw InputError(d.file, d.line,
                       d.text + "; the structure changes with scale in a way no model explains",
                       {},
                       fmt::format("no two inputs have the same structure; record at larger scales, where it may "
                                   "have settled (e.g. P={}, P={} and P={}), and extrapolate from those",
                                   p, 2 * p, 4 * p));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i)
      if (!withLargest[i].complete()) {
        res.setAside.push_back(i);
        const Difference di = firstDifference(inputs[largest], inputs[i], withLargest[i]);
        res.notes.push_back(fmt::format("{} ({}) set aside: its structure differs from that of {}: {}",
                                        scaleOf(inputs[i]), inputs[i].file, fmt::join(agreeing, ", "), di.text));
      }
  }
  // Every input kept takes the largest's order of events (they differ where clustering
  // interleaved the events of disjoint rank sets otherwise) and the call sites of the first
  // input kept, the reference, which the extrapolated trace takes.
  auto positions = [&](std::size_t i) {
    std::vector<std::size_t> at(inputs[largest].trace.events.size());
    for (std::size_t p = 0; p < at.size(); ++p)
      at[p] = i == largest ? p : static_cast<std::size_t>(withLargest[i].toOther[p]);
    return at;
  };
  std::optional<std::size_t> ref;
  std::vector<std::size_t> refAt;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (std::find(res.setAside.begin(), res.setAside.end(), i) != res.setAside.end()) continue;
    if (!ref) {
      ref = i;
      refAt = positions(i);
    }
    std::int64_t renamedSites = 0;
    res.inputs.push_back(renamed(inputs[*ref], refAt, inputs[i], positions(i), renamedSites));
    res.stats["call sites renamed by alignment"] += renamedSites;
    if (renamedSites > 0)
      res.notes.push_back(fmt::format("{} ({}): {} call sites differ from those of {} and were matched by alignment",
                                      scaleOf(inputs[i]), inputs[i].file, renamedSites, scaleOf(inputs[*ref])));
  }
  std::int64_t added = 0;
  addLoopsOfOneTrip(res.inputs, added);
  if (added > 0) {
    res.stats["loops of one trip added"] = added;
    res.notes.push_back(fmt::format("{} loop{} of one trip (no loop in the trace) matched against loops of several at "
                                    "other scales",
                                    added, added == 1 ? "" : "s"));
  }
  res.stats["inputs set aside"] = static_cast<std::int64_t>(res.setAside.size());
  return res;
}

}  // namespace tracegen::extrap
