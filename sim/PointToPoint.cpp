// Point-to-point semantics of the communication simulator: messages, receives, probes and the
// requests that waits and tests complete.
//
// Algorithm. Messages are queued per (communicator instance, sender, receiver) in send order;
// a receive takes its sender's first message of a compatible tag (MPI's non-overtaking rule),
// and receives of one rank on one communicator match in the order they were posted (a receive
// cannot take a message an earlier pending receive could take). Standard, buffered and ready
// sends complete at once (eager buffering); MPI_Ssend/MPI_Issend complete when matched;
// MPI_Recv, MPI_Wait(all) and MPI_Sendrecv block until their receives are matched; sends to
// and receives and probes from MPI_PROC_NULL complete at once without a partner. Wildcard
// receives are not matched as they are posted (a real run could deliver any sender's message
// first): at a quiescent point every (pending wildcard receive, message it may take) pair is
// an option (options), and decide() matches the one taken. Tests (MPI_Test...) that completed
// requests wait for them as MPI_Wait does; failed polls return at once (testDone).
#include <fmt/format.h>

#include <algorithm>

#include "sim/Simulation.h"

namespace tracegen::sim {

namespace {

constexpr std::int64_t kAnyTag = -1;  // MPI_ANY_TAG as traces with tag retention write it

bool tagsMatch(std::int64_t recvTag, std::int64_t sendTag) { return recvTag == kAnyTag || recvTag == sendTag; }

}  // namespace

// The peer as the trace stores it: world rank, or rank in the communicator before
// communicators are resolved.
std::int64_t Simulation::storedPeer(const CommKey& k, Rank world) {
  if (trace_.worldPeers || k.id == kCommWorld) return world;
  if (k.id == kCommSelf) return 0;
  // In the communicator's own numbering (its explicit order where it has one).
  const Communicator* c = trace_.comm(k.id);
  const std::int64_t i = c ? c->instanceIndex(k.base) : -1;
  if (i < 0) return world;
  const Rank cr = c->commRank(static_cast<std::size_t>(i), world);
  return cr < 0 ? world : cr;
}

void Simulation::checkPeer(Rank r, const Call& c, Rank peer, bool wildcardAllowed) const {
  if (wildcardAllowed && peer == kAnySource) return;
  if (peer == kProcNull) return;
  if (!c.peerIsWorld) fail(c, r, "has a peer on a communicator the trace does not describe (run resolve-comms first)");
  if (peer < 0 || peer >= trace_.numRanks)
    fail(c, r, fmt::format("has peer {}, outside MPI_COMM_WORLD of {} ranks", peer, trace_.numRanks));
}

bool Simulation::matches(const Receive& R, const Message& m) const {
  return (R.source == kAnySource || R.source == m.sender) && tagsMatch(R.tag, m.tag);
}

// The message from `sender` the i-th pending receive of `box` may take: the sender's first
// message of a compatible tag, unless an earlier pending receive could take that one.
std::optional<std::size_t> Simulation::candidate(const Box& box, std::size_t i, Rank sender) const {
  auto q = box.inbox.find(sender);
  if (q == box.inbox.end()) return std::nullopt;
  const Receive& R = recvs_[box.pending[i]];
  for (std::size_t id : q->second) {
    const Message& m = msgs_[id];
    if (!tagsMatch(R.tag, m.tag)) continue;
    for (std::size_t j = 0; j < i; ++j)
      if (matches(recvs_[box.pending[j]], m)) return std::nullopt;
    return id;
  }
  return std::nullopt;
}

void Simulation::match(Box& box, std::size_t i, std::size_t msgId) {
  const std::size_t recvId = box.pending[i];
  Receive& R = recvs_[recvId];
  Message& m = msgs_[msgId];
  R.matched = true;
  R.msg = msgId;
  m.matched = true;
  if (m.bytes != R.bytes) ++sizeMismatches_;
  crossing(R.phase, m.phase);
  auto q = box.inbox.find(m.sender);
  q->second.erase(std::find(q->second.begin(), q->second.end(), msgId));
  if (q->second.empty()) box.inbox.erase(q);
  box.pending.erase(box.pending.begin() + static_cast<std::ptrdiff_t>(i));
  if (R.source == kAnySource) {
    wildcards_.erase(recvId);
    ++wildcardsResolved_;
  }
  if (R.record) write(R.record, R.slot, storedPeer(R.key, m.sender));
  wake(R.rank);
  if (m.sync) wake(m.sender);
}

// Matches what needs no choice: explicit-source receives, in posting order.
void Simulation::matchPending(Rank r, const CommKey& key) {
  auto it = state(r).boxes.find(key);
  if (it == state(r).boxes.end()) return;
  Box& box = it->second;
  for (std::size_t i = 0; i < box.pending.size();) {
    const Receive& R = recvs_[box.pending[i]];
    if (R.source != kAnySource)
      if (auto m = candidate(box, i, R.source)) {
        match(box, i, *m);
        continue;
      }
    ++i;
  }
}

std::size_t Simulation::send(Rank r, const Call& c, Rank to, std::int64_t tag, bool sync) {
  checkPeer(r, c, to, false);
  const CommKey key = keyFor(r, c);
  const std::size_t id = msgs_.size();
  if (to == kProcNull) {  // delivered nowhere: complete (and, if synchronous, matched) at once
    msgs_.push_back(Message{r, to, key, tag, seq_++, sync, true});
    return id;
  }
  msgs_.push_back(Message{r, to, key, tag, seq_++, sync, false, state(r).phase, c.event->line, c.bytes});
  state(to).boxes[key].inbox[r].push_back(id);
  matchPending(to, key);
  wake(to);  // a probe may wait for it
  return id;
}

std::size_t Simulation::post(Rank r, const Call& c, Rank from, std::int64_t tag) {
  from = recordedSource(r, c, from);
  checkPeer(r, c, from, true);
  const CommKey key = keyFor(r, c);
  const std::size_t id = recvs_.size();
  Receive R;
  R.rank = r;
  R.key = key;
  R.source = from;
  R.tag = tag;
  R.event = c.event;
  R.callIndex = c.index;
  R.phase = state(r).phase;
  R.bytes = c.recvBytes;
  if ((R.record = recordFor(r, c))) {
    R.slot = R.record->size();
    push(R.record, from == kAnySource ? kUnresolved : from == kProcNull ? kProcNull : storedPeer(key, from));
  }
  if (from == kProcNull) {  // nothing to wait for: complete at once, never pending
    R.matched = true;
    recvs_.push_back(R);
    return id;
  }
  recvs_.push_back(R);
  state(r).boxes[key].pending.push_back(id);
  if (from == kAnySource) wildcards_.insert(id);
  else matchPending(r, key);
  return id;
}

bool Simulation::requestDone(const Request& q) const {
  switch (q.kind) {
    case ReqKind::Done: return true;
    case ReqKind::SyncSend: return msgs_[q.id].matched;
    case ReqKind::Recv: return recvs_[q.id].matched;
    case ReqKind::Collective: {
      auto it = colls_.find({q.collKey, q.collIndex});
      return it == colls_.end() || it->second.arrived == it->second.size;
    }
  }
  return true;
}

bool Simulation::waitDone(RankState& s) {
  const Call& c = s.call;
  if (c.op != Op::Wait && c.op != Op::Waitall && c.op != Op::Waitany && c.op != Op::Waitsome) return testDone(s);
  const bool any = c.op == Op::Waitany || c.op == Op::Waitsome;
  std::size_t live = 0, done = 0;
  for (auto idx : c.completes) {
    auto it = idx < 0 ? s.requests.end() : s.requests.find(idx);
    if (it == s.requests.end()) continue;  // MPI_REQUEST_NULL or already completed
    ++live;
    if (requestDone(it->second)) ++done;
  }
  if (live > 0 && (any ? done == 0 : done < live)) return false;
  samePhase(s, c.completes);
  // Waitany/Waitsome do not say which request finished, so theirs stay known.
  if (!any)
    for (auto idx : c.completes) s.requests.erase(idx);
  return true;
}

// MPI_Test, Testall, Testany, Testsome: the trace says what each poll did. A recorded test
// names exactly the requests that call completed (docs/recording.md, "Requests"), so a poll
// that completed some was a poll at which they were complete: it waits for them as MPI_Wait
// would, and they are done afterwards. A poll that completed nothing (no request, or only
// MPI_REQUEST_NULL) returns at once and changes nothing. Treating successful polls as
// non-blocking let the rank run on with its receives unmatched, past the point where the
// recorded run had matched them, and later receives then found those messages claimed:
// a false deadlock. ScalaTrace traces name the tested request whatever the outcome, so
// their tests stay non-blocking.
bool Simulation::testDone(RankState& s) {
  const Call& c = s.call;
  if (!testsBlock_) return true;
  for (auto idx : c.completes) {
    auto it = idx < 0 ? s.requests.end() : s.requests.find(idx);
    if (it != s.requests.end() && !requestDone(it->second)) return false;
  }
  samePhase(s, c.completes);
  for (auto idx : c.completes) s.requests.erase(idx);
  return true;
}

bool Simulation::probeDone(Rank r, RankState& s) {
  const Call& c = s.call;
  if (c.op != Op::Probe) return true;  // MPI_Iprobe does not wait
  if (c.peer == kProcNull) {  // returns at once, having seen nothing
    if (auto* rec = recordFor(r, c)) push(rec, kProcNull);
    return true;
  }
  checkPeer(r, c, c.peer, true);
  const CommKey key = keyFor(r, c);
  auto it = s.boxes.find(key);
  if (it == s.boxes.end()) return false;
  // A message a posted receive will take is not the probe's to see.
  const Box& box = it->second;
  auto claimed = [&](const Message& m) {
    return std::any_of(box.pending.begin(), box.pending.end(), [&](std::size_t id) { return matches(recvs_[id], m); });
  };
  std::optional<std::size_t> best;
  for (const auto& [sender, q] : box.inbox) {
    if (c.peer != kAnySource && sender != c.peer) continue;
    for (std::size_t id : q)
      if (tagsMatch(c.tag, msgs_[id].tag) && !claimed(msgs_[id])) {
        if (!best || msgs_[id].seq < msgs_[*best].seq) best = id;
        break;
      }
  }
  if (!best) return false;
  crossing(msgs_[*best].phase, s.phase);
  if (auto* rec = recordFor(r, c)) push(rec, storedPeer(key, msgs_[*best].sender));
  if (c.peer == kAnySource) ++wildcardsResolved_;
  return true;
}

// MPI_Mprobe, and an MPI_Improbe that found a message (`count` not 0; a recorded MPI_Improbe
// names its successes, with the failed polls folded in as the tests' are): it waits as
// MPI_Probe does, then takes the message out of matching, for the MPI_Mrecv/MPI_Imrecv that
// receives it. A wildcard takes the sender the recording saw (`matched`), else the
// earliest-arrived message.
bool Simulation::matchedProbeDone(Rank r, RankState& s) {
  const Call& c = s.call;
  if (c.op == Op::Improbe && c.count == 0) return true;  // found nothing
  if (c.peer == kProcNull) {  // MPI_MESSAGE_NO_PROC at once
    if (auto* rec = recordFor(r, c)) push(rec, kProcNull);
    return true;
  }
  // The probe decides its match itself (there is no search over probes): where the
  // recording says which sender it found, that one.
  Rank from = c.peer;
  if (from == kAnySource && recorded_)
    if (auto it = recorded_->find({r, c.index}); it != recorded_->end() && it->second >= 0) from = it->second;
  checkPeer(r, c, from, true);
  const CommKey key = keyFor(r, c);
  auto it = s.boxes.find(key);
  if (it == s.boxes.end()) return false;
  Box& box = it->second;
  auto claimed = [&](const Message& m) {
    return std::any_of(box.pending.begin(), box.pending.end(), [&](std::size_t id) { return matches(recvs_[id], m); });
  };
  std::optional<std::size_t> best;
  for (const auto& [sender, q] : box.inbox) {
    if (from != kAnySource && sender != from) continue;
    for (std::size_t id : q)
      if (tagsMatch(c.tag, msgs_[id].tag) && !claimed(msgs_[id])) {
        if (!best || msgs_[id].seq < msgs_[*best].seq) best = id;
        break;
      }
  }
  if (!best) return false;
  Message& m = msgs_[*best];
  m.matched = true;
  crossing(m.phase, s.phase);
  auto q = box.inbox.find(m.sender);
  q->second.erase(std::find(q->second.begin(), q->second.end(), *best));
  if (q->second.empty()) box.inbox.erase(q);
  if (m.sync) wake(m.sender);
  if (auto* rec = recordFor(r, c)) push(rec, storedPeer(key, m.sender));
  if (c.peer == kAnySource) ++wildcardsResolved_;
  return true;
}

std::vector<Option> Simulation::options() const {
  std::vector<Option> out;
  for (std::size_t w : wildcards_) {
    const Receive& W = recvs_[w];
    const Box& box = state(W.rank).boxes.at(W.key);
    const std::size_t i = static_cast<std::size_t>(std::find(box.pending.begin(), box.pending.end(), w) - box.pending.begin());
    for (const auto& entry : box.inbox)
      if (auto m = candidate(box, i, entry.first)) out.push_back({w, *m});
  }
  return out;
}
bool Simulation::earlier(const Option& a, const Option& b) const {
  return std::pair(msgs_[a.msg].seq, a.recv) < std::pair(msgs_[b.msg].seq, b.recv);
}
void Simulation::sortByArrival(std::vector<Option>& opts) const {
  std::sort(opts.begin(), opts.end(), [&](const Option& a, const Option& b) { return earlier(a, b); });
}

void Simulation::decide(const Option& o) {
  const Receive& W = recvs_[o.recv];
  const Rank r = W.rank;
  const CommKey key = W.key;
  Box& box = state(r).boxes.at(key);
  const std::size_t i = static_cast<std::size_t>(std::find(box.pending.begin(), box.pending.end(), o.recv) - box.pending.begin());
  match(box, i, o.msg);
  matchPending(r, key);  // receives posted after the wildcard may take messages now
}

}  // namespace tracegen::sim
