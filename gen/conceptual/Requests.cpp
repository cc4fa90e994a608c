// The coNCePTuaL backend's requests: the number outstanding per class of ranks, which places AWAIT
// COMPLETION as §5.2 asks; the waits and tests; persistent requests (a start as the sends and
// receives its init calls describe) and matched probes (MPI_Mrecv from the source its probe names),
// tied to their calls by following every rank's calls.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

void Renderer::splitApply(const RankList& r, const std::function<std::int64_t(std::int64_t)>& f) {
  std::vector<std::pair<RankList, std::int64_t>> next;
  for (auto& [cls, n] : outstanding_) {
    if (!cls.intersects(r)) {
      next.push_back({cls, n});
      continue;
    }
    next.push_back({RankList::intersect(cls, r), f(n)});
    RankList rest = RankList::subtract(cls, r);
    if (!rest.empty()) next.push_back({std::move(rest), n});
  }
  // Classes with equal counts are one class.
  std::vector<std::pair<RankList, std::int64_t>> merged;
  for (auto& [cls, n] : next) {
    const std::int64_t want = n;  // clang 14 cannot capture a structured binding in a lambda
    auto it = std::find_if(merged.begin(), merged.end(), [&](const auto& m) { return m.second == want; });
    if (it == merged.end())
      merged.push_back({cls, n});
    else
      it->first = RankList::unite(it->first, cls);
  }
  outstanding_ = std::move(merged);
}

void Renderer::addRequests(const RankList& r, std::int64_t k) {
  splitApply(r, [k](std::int64_t n) { return n + k; });
  for (auto& posted : postedInLoop_) posted = RankList::unite(posted, r);
}

void Renderer::completeRequests(const RankList& r, std::int64_t k) {  // k < 0: all
  splitApply(r, [k](std::int64_t n) { return k < 0 ? 0 : std::max<std::int64_t>(0, n - k); });
}

RankList Renderer::busyRanks(const RankList& r) const {
  RankList out;
  for (const auto& [cls, n] : outstanding_)
    if (n > 0 && cls.intersects(r)) out = RankList::unite(out, RankList::intersect(cls, r));
  return out;
}

std::string Renderer::awaitStmt(const RankList& r) {
  Desc t = acting(r, false);
  data d;
  d.set("tasks", t.text);
  d.set("s", t.single ? "S" : "");
  return fill("await", d);
}

void Renderer::completion(const CallStmt& c, const RankList& ranks) {
  cur_.call = waitStmts(c, ranks, cur_.idx, cur_.detail);
}

void Renderer::persistent(const CallStmt& c, const RankList& ranks) {
  // coNCePTuaL has no requests to free: MPI_Request_free leaves the computation before it.
  if (scaleFree() && opInfo(c.op).kind == OpKind::Start) scaleFreeRefusal(c, "a persistent request");
  if (opInfo(c.op).kind == OpKind::Start) cur_.call = startStmts(c, ranks, cur_.idx, cur_.detail);
}

void Renderer::matchedProbe(const CallStmt& c, const RankList& ranks) {
  if (scaleFree()) scaleFreeRefusal(c, "a matched probe");
  if (opInfo(c.op).kind == OpKind::MatchedProbe) {
    probes_[c.event] = c;  // no communication (as MPI_Probe); its receive names its source
    return;
  }
  cur_.call = matchedRecvStmts(c, ranks, cur_.idx, cur_.detail);
}

// coNCePTuaL has no persistent requests: the nearest equivalent of an MPI_Start or
// MPI_Startall is, per request it starts, the asynchronous send or receive its
// MPI_Send_init/MPI_Recv_init describes, completed by the waits' AWAIT COMPLETION as an
// MPI_Isend/MPI_Irecv would be. Which init call a start activates is found by following
// every rank's calls (RankCursor): it must be the same for all the start's executions.
std::vector<std::string> Renderer::startStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                              std::string& detail) {
  note("coNCePTuaL has no persistent requests: each MPI_Start/MPI_Startall becomes the asynchronous sends and "
       "receives its MPI_Send_init/MPI_Recv_init describe (completed by the waits' AWAIT COMPLETION), the nearest "
       "equivalent; the init calls and MPI_Request_free move nothing.");
  const std::vector<const Event*>* inits = startedInits(c.event);
  std::vector<const CallStmt*> stmts;
  for (const Event* e : inits ? *inits : std::vector<const Event*>{}) {
    auto it = inits_.find(e);
    bool invariant = it != inits_.end();
    if (invariant)
      for (const auto& [p, v] : it->second.params) invariant = invariant && v.perExecutionInvariant();
    if (!invariant) {
      stmts.clear();
      break;
    }
    stmts.push_back(&it->second);
  }
  if (stmts.empty()) {
    detail = fmt::format("{} is not replayed: the init calls of its requests differ between executions", opName(c.op));
    note("A start whose requests the generator cannot tie to one MPI_Send_init/MPI_Recv_init each (or whose init "
         "parameters change from one execution to the next) is not replayed.");
    return {};
  }
  std::vector<std::string> out;
  for (const CallStmt* init : stmts) {
    std::vector<std::string> part = opInfo(init->op).kind == OpKind::SendInit
                                        ? sendStmts(*init, ranks, idx, true)
                                        : recvStmts(*init, ranks, idx, true, Param::Count, Param::Datatype, Param::Tag);
    out.insert(out.end(), part.begin(), part.end());
  }
  detail = fmt::format("the asynchronous {} of {} started", stmts.size() == 1 ? "operation" : "operations",
                       stmts.size() == 1 ? "the request" : fmt::format("its {} requests", stmts.size()));
  return out;
}

// MPI_Mrecv/MPI_Imrecv: a RECEIVE (asynchronous for MPI_Imrecv) of the size it posts from the
// source its matched probe names, the nearest equivalent of receiving the probed message.
std::vector<std::string> Renderer::matchedRecvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                                    std::string& detail) {
  note("coNCePTuaL has no matched probes: MPI_Mprobe/MPI_Improbe move nothing and each MPI_Mrecv/MPI_Imrecv "
       "becomes a RECEIVE (asynchronous for MPI_Imrecv) from the source its probe names, the nearest equivalent.");
  mapCalls();
  auto m = recvProbe_.find(c.event);
  auto probe = m == recvProbe_.end() ? probes_.end() : probes_.find(m->second);
  bool usable = probe != probes_.end();
  // The probe's source and tag are taken at the receive's execution: the same values, or the
  // same executions (one receive per probe in the same loops).
  if (usable) {
    bool invariant = true;
    for (const auto& [p, v] : probe->second.params) invariant = invariant && v.perExecutionInvariant();
    usable = invariant || (probe->second.executionIndex && probe->second.executionIndex == c.executionIndex);
  }
  if (!usable) {
    detail = fmt::format("{} is not replayed: its probe differs between ranks or executions", opName(c.op));
    note("A matched receive whose probe the generator cannot tie to one MPI_Mprobe/MPI_Improbe in step with it is "
         "not replayed.");
    return {};
  }
  CallStmt recv = c;
  for (Param p : {Param::Source, Param::Tag, Param::Comm})
    if (auto it = probe->second.params.find(p); it != probe->second.params.end()) recv.params[p] = it->second;
  const bool async = c.op == Op::Imrecv;
  detail = fmt::format("receives the message its probe (event {}) found", probe->first->id);
  return recvStmts(recv, ranks, idx, async, Param::Count, Param::Datatype, Param::Tag);
}

// The init events of the requests a start event activates, in order; null if the ranks or
// executions disagree, or the trace is too large to follow.
const std::vector<const Event*>* Renderer::startedInits(const Event* start) {
  mapCalls();
  auto it = startInits_.find(start);
  return it == startInits_.end() ? nullptr : &it->second;
}

// Follows every rank's calls once (up to kStartBudget calls): the init events of each start,
// the probe event of each matched receive. Events whose ranks or executions disagree are left
// out.
void Renderer::mapCalls() {
  if (startsMapped_) return;
  startsMapped_ = true;
  if (!p_.trace || !expansionWithinBudget(*p_.trace, kStartBudget)) return;
  std::set<const Event*> mixed;
  for (Rank r = 0; r < p_.trace->numRanks; ++r) {
    RankCursor cursor(*p_.trace, r);
    cursor.setComputeTimes(false);
    Call call;
    std::map<std::int64_t, const Event*> probeEvents;  // probes not received yet
    while (cursor.next(call)) {
      const OpKind kind = opInfo(call.op).kind;
      if (kind == OpKind::MatchedProbe) probeEvents[call.index] = call.event;
      if (kind == OpKind::MatchedRecv) {
        auto p = probeEvents.find(call.probe);
        const Event* probe = p == probeEvents.end() ? nullptr : p->second;
        if (p != probeEvents.end()) probeEvents.erase(p);
        auto [it, fresh] = recvProbe_.emplace(call.event, probe);
        if (!probe || (!fresh && it->second != probe)) mixed.insert(call.event);
      }
      if (kind != OpKind::Start) continue;
      std::vector<const Event*> inits;
      for (const auto& st : call.started) inits.push_back(st.initEvent);
      auto [it, fresh] = startInits_.emplace(call.event, inits);
      if (!fresh && it->second != inits) mixed.insert(call.event);
    }
  }
  for (const Event* e : mixed) {
    startInits_.erase(e);
    recvProbe_.erase(e);
  }
}

// MPI_Wait*/MPI_Test*: AWAIT for the ranks this call leaves with nothing outstanding.
std::vector<std::string> Renderer::waitStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                             std::string& detail) {
  std::vector<std::pair<std::string, const Expr*>> params;
  if (const Expr* r = param(c, Param::Request)) params.push_back({"req0", r});
  if (auto it = c.vectors.find(Param::Requests); it != c.vectors.end())
    for (std::size_t i = 0; i < it->second.size(); ++i) params.push_back({fmt::format("req{}", i), &it->second[i]});
  // Completions per rank class: the fewest over the cases (a deferred AWAIT never deadlocks).
  // A wait on more requests than kMaxCases is not split into cases (every case would copy a
  // value per request: a fuzzed MPI_Waitsome of 7,201 took minutes): its requests that are
  // one non-null constant count as live, the others as completed by other calls, which
  // completes no more than the program does.
  std::vector<Case> cs;
  if (params.size() <= kMaxCases) {
    cs = cases(ranks, params, idx);
  } else {
    Case k{ranks, {}, {}, {}};
    for (const auto& [key, v] : params)
      if (v->isConst() && static_cast<std::int64_t>(v->value) != kRequestNull) k.values.emplace(key, *v);
    detail = fmt::format("{} requests: those that vary from call to call are not counted as completed here", params.size());
    cs.push_back(std::move(k));
  }
  std::vector<std::pair<RankList, std::int64_t>> completions;
  for (const auto& k : cs) {
    std::int64_t live = 0;
    for (const auto& [key, v] : k.values)
      if (!(v.isConst() && static_cast<std::int64_t>(v.value) == kRequestNull)) ++live;
    std::int64_t done = 0;
    switch (c.op) {
      case Op::Wait: case Op::Waitall: done = live; break;
      case Op::Waitany: case Op::Waitsome: done = std::min<std::int64_t>(live, 1); break;
      default: done = 0; break;  // a test may fail: it completes nothing for sure
    }
    auto it = std::find_if(completions.begin(), completions.end(), [&](const auto& x) { return x.first == k.ranks; });
    if (it == completions.end())
      completions.push_back({k.ranks, done});
    else
      it->second = std::min(it->second, done);
  }
  // Without request parameters a wait completes what its kind says: everything for Waitall,
  // one request for Wait/Waitany/Waitsome, nothing certain for a test.
  if (params.empty())
    completions = {{ranks, c.op == Op::Waitall ? std::numeric_limits<std::int64_t>::max()
                           : (c.op == Op::Wait || c.op == Op::Waitany || c.op == Op::Waitsome) ? 1 : 0}};
  std::vector<std::string> out;
  RankList awaiting, deferred;
  for (const auto& [r, done] : completions) {
    RankList before = busyRanks(r);
    completeRequests(r, done);
    RankList after = busyRanks(r);
    awaiting = RankList::unite(awaiting, RankList::subtract(before, after));
    deferred = RankList::unite(deferred, after);
  }
  if (!awaiting.empty()) out.push_back(awaitStmt(awaiting));
  if (!deferred.empty())
    detail = awaiting.empty() ? "completion deferred: more requests are outstanding"
                              : "completion deferred on the ranks with more requests outstanding";
  return out;
}

}  // namespace tracegen::gen::conceptual
