// Loop folding for the communication simulator: a closed time-step loop runs a few iterations
// instead of all, and the folded run stands for the whole program when nothing crosses an
// iteration. resolve-wildcards and check-communication run the program folded first
// (foldWhileClosed); when that run completes at once and nothing crosses an iteration, a loop
// of a million steps costs the calls of a few.
//
// Folding. A simulation costs the program's calls, and a time-step loop makes them many:
// persist's 1,000,000 iterations, or any run longer than the call budget, for wildcards that may
// lie outside the loop altogether. An outermost loop (one no other loop holds, on every rank
// that runs it) whose body repeats exactly with a period of Q iterations (every value list of
// its events and of its inner loops returns to its start) behaves the same in iteration i as
// in iteration i mod K for any multiple K of Q, provided no message, request or collective
// crosses from one iteration into another: then every iteration starts from the same state
// of the loop's ranks (nothing in flight), and a matching found for iterations 0..K-1 is one
// for all N. So the loop is simulated K times (K >= 2, so that an overlap of iterations shows)
// with every call tagged by its iteration (FoldPhase), and the run counts only if it completed
// and every message, request and collective began and ended within one iteration. Otherwise
// the whole program is simulated, as without folding.
//
// The phases. With folding, every call is tagged with its phase (FoldPhase: the iteration of
// the folded loop it lies in), and every message, request and collective must begin and end
// in one phase (crossing); brokenLoops() names the folded loops where that did not hold.
#include "sim/LoopFolding.h"

#include <algorithm>
#include <numeric>

#include "ir/RankClasses.h"
#include "ir/RankCursor.h"
#include "sim/Simulation.h"

namespace tracegen {

namespace sim {

namespace {

const ValueGroup* loopGroup(const std::vector<ValueGroup>& groups, Rank r) {
  for (const auto& g : groups)
    if (g.ranks.contains(r)) return &g;
  return nullptr;
}

constexpr std::int64_t kMaxFoldPeriod = 4096;  // longer periods are not worth a second simulation
constexpr std::int64_t kFoldGain = 4;  // a loop is folded when that cuts its iterations 4-fold at least

std::int64_t lcmCapped(std::int64_t a, std::int64_t b) {
  if (a > kMaxFoldPeriod || b > kMaxFoldPeriod) return kMaxFoldPeriod + 1;
  return std::min<std::int64_t>(std::lcm(a, b), kMaxFoldPeriod + 1);
}

}  // namespace

std::vector<LoopFold> foldableLoops(const Trace& trace, const std::string& fileName) {
  const std::size_t n = trace.events.size();
  std::vector<char> top(n, 0), nested(n, 0), irregular(n, 0);
  std::vector<std::int64_t> trips(n, -1), period(n, 1);
  for (const RankList& cls : rankClasses(trace)) {
    const Rank r = *cls.first();  // ranks of a class share their events, loops and value lists
    const std::vector<std::size_t> own = RankCursor(trace, r, fileName).eventIndices();
    for (std::size_t pos = 0; pos < own.size();) {
      const std::size_t h = own[pos];
      const Event& head = trace.events[h];
      const ValueGroup* mem = head.loops.empty() ? nullptr : loopGroup(head.loops[0].mem, r);
      const ValueGroup* iter = head.loops.empty() ? nullptr : loopGroup(head.loops[0].iter, r);
      if (!mem && !iter) {  // no loop of this event holds this rank (RankCursor's rule)
        ++pos;
        continue;
      }
      // A malformed loop is the cursor's to report, in the simulation proper.
      if (!mem || !iter || mem->values.empty() || iter->values.empty() || mem->values[0] < 1 ||
          pos + static_cast<std::size_t>(mem->values[0]) > own.size())
        return {};
      const auto end = pos + static_cast<std::size_t>(mem->values[0]);
      top[h] = 1;
      if (trips[h] < 0) trips[h] = iter->values[0];
      else if (trips[h] != iter->values[0]) irregular[h] = 1;
      std::int64_t scalars = 1, vectors = 1;
      for (std::size_t k = pos; k < end; ++k) {
        const Event& e = trace.events[own[k]];
        if (k > pos) nested[own[k]] = 1;
        // Inner loops must run the same way every iteration.
        for (std::size_t lv = k == pos ? 1 : 0; lv < e.loops.size(); ++lv) {
          const ValueGroup* i = loopGroup(e.loops[lv].iter, r);
          const ValueGroup* m = loopGroup(e.loops[lv].mem, r);
          if (!i && !m) break;  // the rank's loops of this event end here
          if (!i || !m || i->values.size() != 1 || m->values.size() != 1) irregular[h] = 1;
        }
        for (const auto& pv : e.params) {
          // What the simulation does not read: failed polls, and recorded senders (only their
          // cancellations count, and the senders of matched probes, which take them).
          if (pv.param == Param::Failed) continue;
          const ValueGroup* g = pv.groupFor(r);
          if (!g || g->values.empty()) continue;
          if (pv.param == Param::Matched && opInfo(e.op).kind != OpKind::MatchedProbe &&
              std::find(g->values.begin(), g->values.end(), kCancelled) == g->values.end())
            continue;
          const auto len = static_cast<std::int64_t>(g->values.size());
          // A scalar list of length L returns to its start within L iterations; a vector list
          // within L times the period of the scalars that say how much of it a call takes.
          if (isVectorParam(pv.param)) vectors = lcmCapped(vectors, len);
          else scalars = lcmCapped(scalars, len);
        }
      }
      const std::int64_t body = scalars > kMaxFoldPeriod || vectors > kMaxFoldPeriod
                                    ? kMaxFoldPeriod + 1
                                    : std::min<std::int64_t>(scalars * vectors, kMaxFoldPeriod + 1);
      period[h] = lcmCapped(period[h], body);
      pos = end;
    }
  }
  // Loops of equal trip count may be one loop split over ranks (a receive loop fed by a send
  // loop): they fold alike, to a multiple of all their periods, where that still pays.
  std::map<std::int64_t, std::int64_t> periodByTrips;
  for (std::size_t h = 0; h < n; ++h)
    if (top[h] && !nested[h] && !irregular[h] && trips[h] > 0)
      periodByTrips[trips[h]] = lcmCapped(periodByTrips.count(trips[h]) ? periodByTrips[trips[h]] : 2, period[h]);
  std::vector<LoopFold> folds;
  for (std::size_t h = 0; h < n; ++h) {
    if (!top[h] || nested[h] || irregular[h] || trips[h] <= 0) continue;
    // Alike where that still pays, else each to its own period.
    const std::int64_t alike = periodByTrips[trips[h]];
    const std::int64_t k = alike <= kMaxFoldPeriod && trips[h] >= kFoldGain * alike ? alike : std::max<std::int64_t>(2, period[h]);
    if (k <= kMaxFoldPeriod && trips[h] >= kFoldGain * k) folds.push_back({h, trips[h], k});
  }
  return folds;
}

Trace foldTrace(const Trace& trace, const std::vector<LoopFold>& folds) {
  std::map<std::int64_t, std::int64_t> byId;
  for (const auto& f : folds) byId[trace.events[f.head].id] = f.folded;
  return foldClosedLoops(trace, byId);
}

std::vector<LoopFold> foldsByHead(const std::vector<LoopFold>& folds, std::size_t events) {
  std::vector<LoopFold> heads(events);
  for (const auto& f : folds) heads[f.head] = f;
  return heads;
}

std::set<std::int64_t> Simulation::brokenLoops() const {
  std::set<std::int64_t> out = broken_;
  for (const auto& m : msgs_)
    if (!m.matched && m.phase.loop >= 0) out.insert(m.phase.loop);  // its receive lies beyond the fold
  return out;
}

// Requests completed in another phase than the one that made them: the folded loop's
// iterations overlap.
void Simulation::samePhase(const RankState& s, const std::vector<std::int64_t>& completes) {
  if (folds_.empty()) return;
  for (auto idx : completes)
    if (auto it = idx < 0 ? s.requests.end() : s.requests.find(idx); it != s.requests.end())
      crossing(it->second.phase, s.phase);
}

// Something began in phase a and ended in phase b: if they differ, the folded loops of both
// do not fold.
void Simulation::crossing(const FoldPhase& a, const FoldPhase& b) {
  if (a == b) return;
  if (a.loop >= 0 && b.loop >= 0 && a.iteration == b.iteration) {
    const LoopFold& fa = folds_[static_cast<std::size_t>(a.loop)];
    const LoopFold& fb = folds_[static_cast<std::size_t>(b.loop)];
    if (fa.iterations == fb.iterations && fa.folded == fb.folded) return;
  }
  if (a.loop >= 0) broken_.insert(a.loop);
  if (b.loop >= 0) broken_.insert(b.loop);
}

FoldPhase Simulation::phaseOf(const RankCursor& cursor) const {
  const auto at = cursor.outermostLoop();
  if (!at.head) return {};
  const auto head = at.head - trace_.events.data();
  if (folds_[static_cast<std::size_t>(head)].iterations == 0) return {};
  return {head, at.iteration};
}

// The requests the current call made (keyed by its index, or by the keys of the persistent
// requests it started) belong to its phase.
void Simulation::stampRequests(RankState& s) {
  if (auto it = s.requests.find(s.call.index); it != s.requests.end()) it->second.phase = s.phase;
  for (const StartedRequest& p : s.call.started)
    if (auto it = s.requests.find(p.key); it != s.requests.end()) it->second.phase = s.phase;
}

}  // namespace sim

Trace foldClosedLoops(const Trace& trace, const std::map<std::int64_t, std::int64_t>& folds) {
  Trace folded = trace;
  for (auto& e : folded.events)
    if (auto it = folds.find(e.id); it != folds.end() && !e.loops.empty())
      for (auto& g : e.loops[0].iter)
        for (auto& v : g.values) v = std::min(v, it->second);
  return folded;
}

}  // namespace tracegen
