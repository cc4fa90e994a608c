// The C backend's local request arrays (docs/c-backend.md, "Local request arrays"): which
// runs of statements keep their requests in an array of their own rather than the ring,
// and the text of their requests and completions.
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

bool CWriter::makesLocalRequest(const CallStmt& c) {
  const OpKind k = opInfo(c.op).kind;
  return k == OpKind::Isend || k == OpKind::Irecv;
}

bool CWriter::involvesRequests(const CallStmt& c) {
  const OpKind k = opInfo(c.op).kind;
  return createsRequest(k) || k == OpKind::Wait || k == OpKind::WaitAll || k == OpKind::Start ||
         k == OpKind::RequestFree || c.op == Op::Imrecv || param(c, Param::Request) || vec(c, Param::Requests);
}

bool CWriter::involvesRequests(const Stmt& s) {
  if (s.kind == Stmt::Kind::Call) return involvesRequests(s.call);
  return std::any_of(s.loop.body.begin(), s.loop.body.end(), [](const Stmt& b) { return involvesRequests(b); });
}

// A loop of a run that only makes requests: a constant number of iterations, a body of calls
// of the loop's ranks (no inner loop), some making requests and none naming one.
bool CWriter::makesLocalRequestsOnly(const Stmt& s) {
  if (s.kind != Stmt::Kind::Loop || !s.loop.iterations.isConst() || asInt(s.loop.iterations.value) < 1) return false;
  bool makes = false;
  for (const Stmt& b : s.loop.body) {
    if (b.kind != Stmt::Kind::Call || !(b.ranks == s.ranks)) return false;
    if (makesLocalRequest(b.call)) makes = true;
    else if (involvesRequests(b.call)) return false;
  }
  return makes;
}

// The index within the run of a constant request offset, given `made` requests so far.
std::optional<std::size_t> CWriter::localIndex(const Expr* offset, std::size_t made) {
  if (!offset || !offset->isConst()) return std::nullopt;
  const std::int64_t k = kRequestRing - asInt(offset->value);  // 1: the most recent
  if (asInt(offset->value) == kRequestNull || k < 1 || static_cast<std::size_t>(k) > made) return std::nullopt;
  return made - static_cast<std::size_t>(k);
}

void CWriter::findLocalRequests() {
  int arrays = 0;
  if (findLocalRequests(program_.body, arrays)) return;
  localRequests_.clear();  // the ring throughout
  localArrays_.clear();
  localReceives_ = 0;
}

// Marks the runs of `body` (and of the loops in it); false if a statement that makes or
// names a request is in none.
bool CWriter::findLocalRequests(const std::vector<Stmt>& body, int& arrays) {
  for (std::size_t i = 0; i < body.size();) {
    const Stmt& s = body[i];
    if (s.kind == Stmt::Kind::Loop && !makesLocalRequestsOnly(s)) {
      if (!findLocalRequests(s.loop.body, arrays)) return false;
      ++i;
      continue;
    }
    if (s.kind == Stmt::Kind::Call && !involvesRequests(s.call)) {
      ++i;
      continue;
    }
    if (s.kind == Stmt::Kind::Call && !makesLocalRequest(s.call)) return false;
    // A run starts here: it ends at the completion that leaves nothing pending.
    std::map<const CallStmt*, LocalRequest> run;
    std::set<std::size_t> pending;
    std::size_t made = 0, receives = 0, j = i;
    const int array = ++arrays;
    const std::string name = fmt::format("requests{}", array);
    for (; j < body.size(); ++j) {
      const Stmt& t = body[j];
      if (!(t.ranks == s.ranks)) return false;
      if (t.kind == Stmt::Kind::Loop && makesLocalRequestsOnly(t)) {
        // Request b of iteration iK is requestsN[made + m * iK + b].
        const auto trips = static_cast<std::size_t>(asInt(t.loop.iterations.value));
        std::size_t m = 0;
        for (const Stmt& b : t.loop.body) m += makesLocalRequest(b.call) ? 1 : 0;
        std::size_t b = 0;
        for (const Stmt& u : t.loop.body) {
          if (!makesLocalRequest(u.call)) continue;
          LocalRequest r;
          r.array = array;
          const std::string step = m == 1 ? loopVar(t.loop.id) : fmt::format("{} * {}", m, loopVar(t.loop.id));
          r.slot = made + b == 0 ? fmt::format("&{}[{}]", name, step)
                                 : fmt::format("&{}[{} + {}]", name, made + b, step);
          run[&u.call] = std::move(r);
          if (opInfo(u.call.op).kind == OpKind::Irecv) receives += trips;
          ++b;
        }
        for (std::size_t k = 0; k < trips * m; ++k) pending.insert(made++);
        continue;
      }
      if (t.kind == Stmt::Kind::Loop || !involvesRequests(t.call)) {
        if (involvesRequests(t)) return false;
        continue;
      }
      const CallStmt& c = t.call;
      LocalRequest r;
      r.array = array;
      if (makesLocalRequest(c)) {
        r.indices = {made};
        pending.insert(made++);
        if (opInfo(c.op).kind == OpKind::Irecv) ++receives;
      } else if (c.op == Op::Wait) {
        const auto at = localIndex(param(c, Param::Request), made);
        if (!at || !pending.erase(*at)) return false;
        r.indices = {*at};
      } else if (c.op == Op::Waitall) {
        const std::vector<Expr>* reqs = vec(c, Param::Requests);
        const Expr* count = param(c, Param::Count);
        if (!reqs || reqs->empty() || !count || !count->isConst() ||
            asInt(count->value) != static_cast<std::int64_t>(reqs->size()))
          return false;
        for (const Expr& e : *reqs) {
          const auto at = localIndex(&e, made);
          // Consecutive slots of the array, in order: the call takes &requestsN[first].
          if (!at || !pending.erase(*at) || (!r.indices.empty() && *at != r.indices.back() + 1)) return false;
          r.indices.push_back(*at);
        }
      } else {
        return false;  // tests, persistent requests, nonblocking collectives, ...: the ring
      }
      run[&c] = std::move(r);
      if (pending.empty()) break;
    }
    if (j == body.size()) return false;  // requests left pending past the statement list
    const void* first = s.kind == Stmt::Kind::Loop ? static_cast<const void*>(&s) : &s.call;
    std::size_t completions = 0;
    for (const auto& [call, r] : run) completions += makesLocalRequest(*call) ? 0 : 1;
    localArrays_[first] = LocalArray{array, made, label(body[j].call), completions};
    if (made == 1)
      for (auto& [call, r] : run) r.single = true;
    localReceives_ = std::max(localReceives_, receives);
    localRequests_.merge(run);
    i = j + 1;
  }
  return true;
}

const CWriter::LocalRequest* CWriter::localRequest(const CallStmt& c) const {
  auto it = localRequests_.find(&c);
  return it == localRequests_.end() ? nullptr : &it->second;
}

std::string CWriter::localName(const LocalRequest& r) {
  return (r.single ? "request" : "requests") + std::to_string(r.array);
}

// The address of slot `index` of a run's array (of its one request).
std::string CWriter::localSlot(const LocalRequest& r, std::size_t index) {
  return r.single ? "&" + localName(r) : fmt::format("&{}[{}]", localName(r), index);
}

// A request-making call of a run puts its request in its slot rather than the ring.
// A call of a run makes its request in the run's array: its slot replaces new_request(), and
// the call needs nothing of the ring.
Lowered CWriter::localRequestMade(const CallStmt& c, Lowered call) {
  const LocalRequest* r = localRequest(c);
  if (!r) return call;
  const std::string slot = r->single || r->slot.empty() ? localSlot(*r, r->indices.front()) : r->slot;
  const std::size_t at = call.text.rfind("new_request()");
  if (at == std::string::npos) throw std::logic_error(fmt::format("{}: no request to make", label(c)));
  call.text.replace(at, std::string("new_request()").size(), slot);
  call.needs.newRequest = call.needs.recentRequest = call.needs.requestLists = false;
  return call;
}

// The array of a run is declared before the run's first statement, outside that statement's
// own block (a call's, a loop's).
void CWriter::declareLocalArray(const void* first) {
  auto it = localArrays_.find(first);
  if (it == localArrays_.end()) return;
  mus::data d;
  const LocalArray& a = it->second;
  d.set("declarator", a.size == 1 ? fmt::format("request{}", a.array) : fmt::format("requests{}[{}]", a.array, a.size));
  // One wait completes them all, or several do, the last of them at `completedBy`.
  d.set("what", a.size == 1          ? "made by the call below, completed by"
                : a.completions == 1 ? "made by the calls below, all completed by"
                                     : "made by the calls below, completed by the waits up to");
  d.set("completed_by", a.completedBy);
  emit(ensureNewline(render("call/local_requests", d)), false);
}

void CWriter::loop(const Stmt& s, const RankList& ranks) {
  declareLocalArray(&s);
  ProgramWalker::loop(s, ranks);
}

void CWriter::call(const CallStmt& c, const RankList& ranks) {
  declareLocalArray(&c);
  ProgramWalker::call(c, ranks);
}

// A completion of a run names the run's array, not the ring.
Lowered CWriter::localCompletion(const CallStmt& c) {
  const LocalRequest& r = localRequests_.at(&c);
  mus::data d = callData(c);
  d.set("count", std::to_string(r.indices.size()));
  d.set("requests", r.indices.front() == 0 && c.op == Op::Waitall && !r.single ? localName(r)
                                                                               : localSlot(r, r.indices.front()));
  if (c.op == Op::Wait) return {render("call/wait_local", d), Needs{.status = true}};
  return {render("call/waitall_local", d), Needs{.statuses = static_cast<std::int64_t>(r.indices.size())}};
}

}  // namespace tracegen::gen::cgen
