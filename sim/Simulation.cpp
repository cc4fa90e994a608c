// The communication simulator's run: the program a trace describes, executed symbolically.
//
// Algorithm. The program is executed symbolically with one RankCursor per rank, as an MPI
// library would run it. A FIFO worklist of ranks (initially all, in order) advances each rank
// until it blocks; a rank is queued again only when something it may wait for happens (a
// message to it, a match of its receive or synchronous send, the last arrival at its
// collective), so every step either completes a call or is caused by one, and the run is
// bounded by the number of calls. Each call is started once (start: a send queues its
// message, a receive is posted, a collective is entered) and then tried for completion
// (complete) whenever its rank runs; what completes when is MPI's semantics, by operation
// family: point-to-point in PointToPoint.cpp, collectives in Collectives.cpp. Wildcard
// receives are not matched as they are posted: a real run could deliver any sender's message
// first, so their matching is deferred until no rank can move otherwise. At such a quiescent
// point every (pending wildcard receive, message it may take) pair is an option; run() takes
// the option with the earliest-arrived message (lowest send order), the run resumes, and so
// on. resolve-wildcards drives the same steps (begin, settle, options, decide, finish) to
// search the other matchings. A run that ends with ranks blocked is reported (Deadlock.cpp).
// The senders that the executions of each resolvable event matched are kept per (event,
// rank): the resolution lists resolve-wildcards writes back.
#include "sim/Simulation.h"

#include <fmt/format.h>

#include <algorithm>

#include "ir/Diagnostics.h"

namespace tracegen::sim {

namespace {

// Whether a trace's tests name only what they completed: tracegen's recorder records a test
// that completed nothing as such (docs/recording.md, "Requests"); ScalaTrace records the
// request tested.
bool testsNameCompletions(const Trace& trace) { return trace.origin.rfind("scalatrace", 0) != 0; }

}  // namespace

RecordedMatches recordedMatches(const Trace& trace, const std::string& fileName) {
  RecordedMatches out;
  bool any = false;
  for (const auto& e : trace.events) any = any || e.param(Param::Matched);
  if (!any) return out;
  for (Rank r = 0; r < trace.numRanks; ++r) {
    RankCursor cursor(trace, r, fileName);
    Call c;
    while (cursor.next(c)) {
      if (c.matched.empty()) continue;
      const OpKind k = opInfo(c.op).kind;
      if (k == OpKind::Recv || k == OpKind::Sendrecv || k == OpKind::MatchedProbe) {
        if (c.matched[0] >= 0 || c.matched[0] == kCancelled) out[{r, c.index}] = c.matched[0];
        continue;
      }
      for (std::size_t i = 0; i < c.completes.size() && i < c.matched.size(); ++i)
        if (c.completes[i] >= 0 && (c.matched[i] >= 0 || c.matched[i] == kCancelled)) out[{r, c.completes[i]}] = c.matched[i];
    }
  }
  return out;
}

Simulation::Simulation(const Trace& trace, const std::string& fileName, const std::vector<char>& resolvableEvent,
                       std::int64_t callBudget)
    : trace_(trace),
      fileName_(fileName),
      resolvable_(resolvableEvent),
      testsBlock_(testsNameCompletions(trace)),
      callBudget_(callBudget) {
  ranks_.reserve(static_cast<std::size_t>(trace.numRanks));
  for (Rank r = 0; r < trace.numRanks; ++r) ranks_.emplace_back(trace, r, fileName);
}

Simulation::Outcome Simulation::run() {
  begin();
  for (;;) {
    if (const auto stopped = settle()) return *stopped;
    const std::vector<Option> opts = options();
    if (opts.empty()) return finish();
    decide(*std::min_element(opts.begin(), opts.end(), [&](const Option& a, const Option& b) { return earlier(a, b); }));
  }
}

void Simulation::begin() {
  for (Rank r = 0; r < trace_.numRanks; ++r) wake(r);
}

std::optional<Simulation::Outcome> Simulation::settle() {
  while (!queue_.empty() && !outOfCalls_ && !mismatch_) {
    Rank r = queue_.front();
    queue_.pop_front();
    state(r).queued = false;
    advance(r);
  }
  if (outOfCalls_) return Outcome::OutOfBudget;
  if (mismatch_) {
    failure_ = *mismatch_;
    return Outcome::Failed;
  }
  if (skipRepeats_) atQuiescence();
  return std::nullopt;
}

Simulation::Outcome Simulation::finish() {
  if (finished_ == trace_.numRanks) {
    if (unmatchedReport()) return Outcome::Failed;
    return Outcome::Completed;
  }
  deadlockReport();
  return Outcome::Failed;
}

std::string Simulation::describeReceive(std::size_t id) const {
  const Receive& r = recvs_[id];
  return fmt::format("of rank {} in event {} ({} at {}, call {})", r.rank, r.event->id, opName(r.event->op),
                     trace_.siteLabel(r.event->site), r.callIndex);
}

void Simulation::fail(const Call& c, Rank r, const std::string& what) const {
  throw InputError(fileName_, c.event->line, fmt::format("event {} ({}): rank {} {}", c.event->id, opName(c.op), r, what));
}

std::vector<std::int64_t>* Simulation::recordFor(Rank r, const Call& c) {
  const std::size_t e = static_cast<std::size_t>(c.event - trace_.events.data());
  if (!resolvable_[e]) return nullptr;
  return &resolutions_[{e, r}];
}

// Every change to a resolution list goes through these two, so that a repeat of the run's
// stretch between two equal states (skipRepeats) can replay it on the lists.
void Simulation::push(std::vector<std::int64_t>* record, std::int64_t value) {
  if (logging_) log_.push_back({record, record->size(), value, true});
  record->push_back(value);
}
void Simulation::write(std::vector<std::int64_t>* record, std::size_t slot, std::int64_t value) {
  if (logging_) log_.push_back({record, slot, value, false});
  (*record)[slot] = value;
}

// What the recording says of a receive: one that was cancelled matched nothing, so it
// completes at once as a receive from MPI_PROC_NULL does (and is resolved to it); in the
// fallback run, a wildcard receive whose match the recording saw takes that sender, as an
// explicit-source receive would. Others are left as they are.
Rank Simulation::recordedSource(Rank r, const Call& c, Rank from) {
  if (!recorded_ || from == kProcNull) return from;
  auto it = recorded_->find({r, c.index});
  if (it == recorded_->end()) return from;
  if (it->second == kCancelled) return kProcNull;
  if (from != kAnySource || !follow_) return from;
  ++wildcardsResolved_;
  return it->second;
}

void Simulation::start(Rank r) {
  RankState& s = state(r);
  const Call& c = s.call;
  switch (opInfo(c.op).kind) {
    case OpKind::Send:
      s.msg = send(r, c, c.peer, c.tag, c.op == Op::Ssend);
      break;
    case OpKind::Isend: {
      const bool sync = c.op == Op::Issend;
      const std::size_t id = send(r, c, c.peer, c.tag, sync);
      s.requests[c.index] = Request{sync ? ReqKind::SyncSend : ReqKind::Done, id, c.event};
      break;
    }
    case OpKind::Recv:
      s.recv = post(r, c, c.peer, c.tag);
      break;
    case OpKind::Irecv:
      s.requests[c.index] = Request{ReqKind::Recv, post(r, c, c.peer, c.tag), c.event};
      break;
    case OpKind::Sendrecv:
      send(r, c, c.peer, c.tag, false);
      s.recv = post(r, c, c.recvPeer, c.recvTag);
      break;
    case OpKind::SendInit:
    case OpKind::RecvInit:
      // Inactive until MPI_Start: waiting on one returns at once.
      s.requests[c.index] = Request{ReqKind::Done, 0, c.event};
      break;
    case OpKind::Start:
      // Each persistent request started is an MPI_Isend or MPI_Irecv with its init call's
      // parameters, known to the waits by its key (docs/trace-format.md, "Persistent requests").
      for (const StartedRequest& p : c.started) {
        Call as;
        as.event = p.initEvent;
        as.op = p.send ? Op::SendInit : Op::RecvInit;
        as.index = p.key;
        as.comm = p.comm;
        as.peerIsWorld = p.peerIsWorld;
        as.bytes = as.recvBytes = p.bytes;
        if (p.send) {
          send(r, as, p.peer, p.tag, false);
          s.requests[p.key] = Request{ReqKind::Done, 0, p.initEvent};
        } else {
          s.requests[p.key] = Request{ReqKind::Recv, post(r, as, p.peer, p.tag), p.initEvent};
        }
      }
      break;
    case OpKind::MatchedRecv:
      // The message is the probe's, matched already: the receive completes at once.
      if (c.op == Op::Imrecv) s.requests[c.index] = Request{ReqKind::Done, 0, c.event};
      break;
    case OpKind::OpaqueRequest:
      // A call tracegen does not model: its request completes at once, the call is local.
      s.requests[c.index] = Request{ReqKind::Done, 0, c.event};
      break;
    case OpKind::Collective:
    case OpKind::CommCreate:
    case OpKind::CommFree:
    case OpKind::WinCollective:  // window creation, fence and free: collective over `comm`
    case OpKind::FileCollective:  // MPI-IO's collective calls: over the file's communicator
      arrive(r);
      break;
    case OpKind::ICollective: {
      // A nonblocking collective takes its place in the communicator's order now and returns;
      // its request completes when every member has started it. The rank leaves it at once
      // (it does not wait in the call), so the collective's record goes when all have left.
      arrive(r);
      s.requests[c.index] = Request{ReqKind::Collective, 0, c.event, s.collKey, s.collIndex};
      auto it = colls_.find({s.collKey, s.collIndex});
      if (++it->second.departed == it->second.size) colls_.erase(it);
      break;
    }
    default:
      break;
  }
}

bool Simulation::complete(Rank r) {
  RankState& s = state(r);
  switch (opInfo(s.call.op).kind) {
    case OpKind::Send:
      return msgs_[s.msg].matched || !msgs_[s.msg].sync;
    case OpKind::Recv:
    case OpKind::Sendrecv:
      return recvs_[s.recv].matched;
    case OpKind::Wait:
    case OpKind::WaitAll:
      return waitDone(s);
    case OpKind::Probe:
      return probeDone(r, s);
    case OpKind::MatchedProbe:
      return matchedProbeDone(r, s);
    case OpKind::Collective:
    case OpKind::CommCreate:
    case OpKind::CommFree:
    case OpKind::WinCollective:
    case OpKind::FileCollective: {
      auto it = colls_.find({s.collKey, s.collIndex});
      if (it->second.arrived < it->second.size) return false;
      if (++it->second.departed == it->second.size) colls_.erase(it);
      return true;
    }
    default:
      return true;
  }
}

void Simulation::advance(Rank r) {
  RankState& s = state(r);
  if (skipRepeats_ && !movedFlag_[static_cast<std::size_t>(r)]) {
    movedFlag_[static_cast<std::size_t>(r)] = 1;
    moved_.push_back(r);
  }
  while (!s.finished) {
    if (!s.hasCall) {
      if (callBudget_ >= 0 && calls_ >= callBudget_) {
        outOfCalls_ = true;
        return;
      }
      if (!s.cursor.next(s.call)) {
        s.finished = true;
        ++finished_;
        break;
      }
      ++calls_;
      s.hasCall = true;
      s.started = false;
      if (!folds_.empty()) s.phase = phaseOf(s.cursor);
    }
    if (!s.started) {
      s.started = true;
      start(r);
      if (!folds_.empty()) stampRequests(s);
    }
    if (!complete(r)) break;
    s.hasCall = false;
  }
}

}  // namespace tracegen::sim
