// Repeats: the communication simulator skips the repeats of the periodic stretches of a run.
//
// Algorithm. Folding (LoopFolding.cpp) needs one loop that every rank enters alike and
// iterations nothing crosses. A real trace often has neither: ScalaTrace's LU class C at 16
// ranks compresses its time-step loop per rank with different heads (the body rotated), trip
// counts (249, or 248 and a peeled iteration) and inner factorings (320 or 2 x 160 planes),
// and its wavefront's messages cross every rank's iteration boundaries. Its run is nonetheless
// periodic: the whole program's first run (the earliest-arrival one) compares the state of the
// run at quiescent points, ranks' positions (cursors, the calls they wait in, requests,
// mailboxes) and what is in flight, with everything absolute (stream indices, iterations left
// of each rank's outermost loop, message and receive numbers) said relatively. Equal states
// mean the stretch between them repeats decision for decision until some rank's outermost loop
// ends (the simulation is deterministic, and those counters only name things), so the repeats
// are applied instead of simulated: each rank moves on by whole repeats of its own iterations
// and calls, leaving each its last iteration to simulate, and the resolution lists get the
// stretch's pushes and writes once per repeat, shifted by the stretch's growth. The exact
// per-call result is the whole run's. States are named by a digest (the sum of per-rank
// position digests, updated for the ranks that moved) and taken in full only where a digest
// comes round again, no more often than the calls simulated pay for; the last few are kept,
// since a state can repeat at a multiple of its positions' period (a value list of 3
// iterations). A state with a collective under way, active persistent requests or matched
// probes is not compared (such a run goes on simulated), nor are runs whose recording decides
// matches (cancelled receives, matched probes' senders) or that check phases. A first run that
// skipped and does not complete is run again whole, so that the search behind it can revisit
// every decision.
#include <algorithm>
#include <array>

#include "sim/Simulation.h"

namespace tracegen::sim {

void Simulation::atQuiescence() {
  for (Rank r : moved_) {
    const RankState& s = state(r);
    std::uint64_t d = s.finished ? 0x51ed27ULL : s.cursor.positionDigest() * 31 + (s.hasCall ? 7 : 3);
    d *= 0x9e3779b97f4a7c15ULL + 2 * static_cast<std::uint64_t>(r);  // where it is, on which rank
    digestSum_ += d - digest_[static_cast<std::size_t>(r)];
    digest_[static_cast<std::size_t>(r)] = d;
    movedFlag_[static_cast<std::size_t>(r)] = 0;
  }
  moved_.clear();
  // A state costs its size to take: one is taken only once the calls simulated since the
  // last paid for that one, which keeps the checks within the run's own cost.
  auto affordable = [&] { return calls_ - lastSnapshotCalls_ >= static_cast<std::int64_t>(lastSnapshotSize_); };
  auto keep = [&](Snapshot&& s) {
    s.logStart = log_.size();
    refs_.push_back(std::move(s));
    logging_ = true;
    if (refs_.size() > kMaxReferences) {
      // The log before the oldest state kept is no stretch's any more.
      refs_.pop_front();
      const std::size_t cut = refs_.front().logStart;
      log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(cut));
      for (Snapshot& r : refs_) r.logStart -= cut;
    }
  };
  auto drop = [&] {
    refs_.clear();
    log_.clear();
    logging_ = false;
  };
  if (!refs_.empty() && digestSum_ == refs_.back().digest && calls_ > refs_.back().calls) {
    if (!affordable()) return;
    Snapshot now;
    if (!snapshot(now)) return drop();
    // The newest equal state: the shortest stretch, so the most repeats fit.
    for (auto r = refs_.rbegin(); r != refs_.rend(); ++r)
      if (now.key == r->key) {
        if (applyRepeats(*r, now)) {
          drop();
          seen_.clear();
          return;
        }
        break;
      }
    now.period = calls_ - refs_.back().calls;
    return keep(std::move(now));
  }
  auto [it, inserted] = seen_.try_emplace(digestSum_, calls_);
  if (inserted) return;
  const std::int64_t period = calls_ - it->second;
  it->second = calls_;
  // The states kept may come round again within twice the stretch that led to the newest,
  // once a comparison is affordable.
  if (!refs_.empty() &&
      calls_ - refs_.back().calls <= 2 * (refs_.back().period + static_cast<std::int64_t>(lastSnapshotSize_)))
    return;
  if (!affordable()) return;
  Snapshot s;
  if (!snapshot(s)) return drop();
  s.period = period;
  drop();
  keep(std::move(s));
}

// The state at this quiescent point; false where it holds what cannot be said relatively
// (a collective under way, persistent requests, matched probes), or phases are checked.
bool Simulation::snapshot(Snapshot& out) {
  if (!colls_.empty() || !folds_.empty()) return false;
  out.digest = digestSum_;
  out.calls = calls_;
  out.wildcards = wildcardsResolved_;
  std::vector<std::size_t> msgs, recvs;
  for (const RankState& s : ranks_)
    for (const auto& [key, box] : s.boxes) {
      for (const auto& [sender, q] : box.inbox) msgs.insert(msgs.end(), q.begin(), q.end());
      recvs.insert(recvs.end(), box.pending.begin(), box.pending.end());
    }
  // In flight, named by their order (of arrival; of posting).
  std::sort(msgs.begin(), msgs.end(), [&](std::size_t a, std::size_t b) { return msgs_[a].seq < msgs_[b].seq; });
  std::sort(recvs.begin(), recvs.end());
  std::unordered_map<std::size_t, std::int64_t> msgName, recvName;
  std::vector<std::int64_t>& k = out.key;
  k.push_back(static_cast<std::int64_t>(msgs.size()));
  for (std::size_t id : msgs) {
    const Message& m = msgs_[id];
    msgName.emplace(id, static_cast<std::int64_t>(msgName.size()));
    k.insert(k.end(), {m.sender, m.receiver, m.key.id, m.key.base, m.tag, m.sync ? 1 : 0});
  }
  k.push_back(static_cast<std::int64_t>(recvs.size()));
  for (std::size_t id : recvs) {
    const Receive& R = recvs_[id];
    recvName.emplace(id, static_cast<std::int64_t>(recvName.size()));
    k.insert(k.end(), {R.rank, R.key.id, R.key.base, R.source, R.tag, R.event - trace_.events.data(),
                       R.record ? static_cast<std::int64_t>(R.record->size() - R.slot) : -1});
  }
  auto msgRef = [&](std::size_t id) {
    if (msgs_[id].matched) return std::int64_t{-1};
    auto it = msgName.find(id);
    return it == msgName.end() ? std::int64_t{-2} : it->second;
  };
  auto recvRef = [&](std::size_t id) {
    if (recvs_[id].matched) return std::int64_t{-1};
    auto it = recvName.find(id);
    return it == recvName.end() ? std::int64_t{-2} : it->second;
  };
  std::vector<std::array<std::int64_t, 4>> reqs;
  for (const RankState& s : ranks_) {
    const std::int64_t next = s.cursor.nextIndex();
    out.index.push_back(next);
    out.itersLeft.push_back(s.finished ? -1 : s.cursor.outermostItersLeft());
    out.collectives.push_back(s.collectives);
    k.insert(k.end(), {s.finished ? 1 : 0, s.hasCall ? 1 : 0, s.started ? 1 : 0});
    if (s.finished) continue;
    if (!s.cursor.positionKey(k)) return false;
    if (s.hasCall) {
      const Call& c = s.call;
      if (!c.started.empty() || c.probe >= 0) return false;
      k.insert(k.end(), {c.event - trace_.events.data(), next - c.index, c.peer, c.recvPeer, c.tag, c.recvTag, c.comm,
                         static_cast<std::int64_t>(c.completes.size())});
      for (auto idx : c.completes) k.push_back(idx < 0 ? kUnresolved : next - idx);
      const OpKind kind = opInfo(c.op).kind;
      k.push_back(kind == OpKind::Send ? msgRef(s.msg) : kind == OpKind::Recv || kind == OpKind::Sendrecv ? recvRef(s.recv) : -3);
    }
    reqs.clear();
    for (const auto& [key, q] : s.requests) {
      const std::int64_t ref = q.kind == ReqKind::SyncSend ? msgRef(q.id) : q.kind == ReqKind::Recv ? recvRef(q.id) : -1;
      reqs.push_back({next - key, static_cast<std::int64_t>(q.kind), q.event ? q.event - trace_.events.data() : -1, ref});
    }
    std::sort(reqs.begin(), reqs.end());
    k.push_back(static_cast<std::int64_t>(reqs.size()));
    for (const auto& q : reqs) k.insert(k.end(), q.begin(), q.end());
    for (const auto& [key, box] : s.boxes) {
      if (box.inbox.empty() && box.pending.empty()) continue;
      k.insert(k.end(), {key.id, key.base, static_cast<std::int64_t>(box.inbox.size())});
      for (const auto& [sender, q] : box.inbox) {
        k.insert(k.end(), {sender, static_cast<std::int64_t>(q.size())});
        for (std::size_t id : q) k.push_back(msgName.at(id));
      }
      k.push_back(static_cast<std::int64_t>(box.pending.size()));
      for (std::size_t id : box.pending) k.push_back(recvName.at(id));
    }
    k.push_back(-4);  // end of the rank
  }
  lastSnapshotCalls_ = calls_;
  lastSnapshotSize_ = k.size();
  return true;
}

// The run is at state `now`, equal to `ref` but for the counters: moves it on by as many
// whole repeats of the stretch between them as every rank's outermost loop still holds,
// leaving each at least its last iteration to simulate. False if that is none.
bool Simulation::applyRepeats(const Snapshot& ref, const Snapshot& now) {
  const std::size_t P = ranks_.size();
  std::int64_t repeats = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> calls(P, 0), iterations(P, 0);
  for (std::size_t r = 0; r < P; ++r) {
    calls[r] = now.index[r] - ref.index[r];
    if (calls[r] == 0) continue;
    iterations[r] = ref.itersLeft[r] - now.itersLeft[r];
    // A rank that moved went round its outermost loop (equal positions): else no repeat.
    if (ref.itersLeft[r] < 1 || now.itersLeft[r] < 1 || iterations[r] <= 0) return false;
    // A repeat from X iterations left needs X - iterations >= 1 at its last turn.
    repeats = std::min(repeats, (now.itersLeft[r] - 1) / iterations[r]);
  }
  if (repeats == std::numeric_limits<std::int64_t>::max() || repeats < 1) return false;
  for (std::size_t r = 0; r < P; ++r) {
    if (calls[r] == 0) continue;
    RankState& s = ranks_[r];
    const std::int64_t shift = repeats * calls[r];
    s.cursor.skipIterations(repeats * iterations[r], shift);
    s.call.index += shift;
    for (auto& idx : s.call.completes)
      if (idx >= 0) idx += shift;
    std::unordered_map<std::int64_t, Request> moved;
    for (auto& [key, q] : s.requests) moved.emplace(key + shift, q);
    s.requests = std::move(moved);
    for (auto& [key, count] : s.collectives) {
      auto before = ref.collectives[r].find(key);
      count += repeats * (count - (before == ref.collectives[r].end() ? 0 : before->second));
    }
    for (auto& [key, box] : s.boxes)
      for (std::size_t id : box.pending) recvs_[id].callIndex += shift;
  }
  // The lists: each repeat makes the stretch's pushes again after the last, and its writes
  // to the slots one stretch's pushes further on.
  const auto stretch = log_.begin() + static_cast<std::ptrdiff_t>(ref.logStart);
  std::unordered_map<const std::vector<std::int64_t>*, std::size_t> grown;
  for (auto w = stretch; w != log_.end(); ++w)
    if (w->push) ++grown[w->record];
  for (std::int64_t i = 1; i <= repeats; ++i)
    for (auto wi = stretch; wi != log_.end(); ++wi) {
      const Write& w = *wi;
      if (w.push) w.record->push_back(w.value);
      else (*w.record)[w.slot + static_cast<std::size_t>(i) * grown[w.record]] = w.value;
    }
  for (const RankState& s : ranks_)
    for (const auto& [key, box] : s.boxes)
      for (std::size_t id : box.pending)
        if (Receive& R = recvs_[id]; R.record) R.slot += static_cast<std::size_t>(repeats) * grown[R.record];
  wildcardsResolved_ += repeats * (wildcardsResolved_ - ref.wildcards);
  callsSkipped_ += repeats * (calls_ - ref.calls);
  repeatsSkipped_ += repeats;
  return true;
}

}  // namespace tracegen::sim
