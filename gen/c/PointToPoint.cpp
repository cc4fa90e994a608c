// The C backend's point-to-point calls: sends, receives and probes, waits and tests (and
// polling until a test succeeds), persistent requests and matched probes.
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

namespace {

// A count per execution with its long cycles of constants replaced by their mean, rounded: a
// polling test's failed polls, whose recorded lists (one value per success, hundreds long in
// HPC Challenge) would be tables of their own, and whose exact sequence is timing anyway.
// Cycles of up to `shortCycle` values stay exact.
Expr longCyclesAsMeans(Expr e, std::size_t shortCycle) {
  const bool constants = std::all_of(e.children.begin(), e.children.end(), [](const Expr& c) { return c.isConst(); });
  if (e.kind == Expr::Kind::ByExecution && e.children.size() > shortCycle && constants) {
    double sum = 0;
    for (const auto& c : e.children) sum += c.value;
    return Expr::constant(std::round(sum / static_cast<double>(e.children.size())));
  }
  for (auto& c : e.children) c = longCyclesAsMeans(std::move(c), shortCycle);
  return e;
}

}  // namespace

Lowered CWriter::pointToPointText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  const OpKind kind = opInfo(c.op).kind;
  Needs needs;
  switch (kind) {
    case OpKind::Send:
    case OpKind::Isend:
    case OpKind::SendInit:
      needs |= message(x, d);
      if (kind != OpKind::SendInit) sendsMessage();  // a persistent send sends at MPI_Start
      d.set("dest", needs.take(peer(x, need(c, Param::Dest), "dest")));
      d.set("tag", needs.take(tag(x, Param::Tag, false)));
      if (c.op == Op::Bsend || c.op == Op::Ibsend) needs.bsend = true;
      if (kind == OpKind::Send) return {render("call/send", d), needs};
      needs.newRequest = true;
      return {render("call/isend", d), needs};
    case OpKind::Recv:
    case OpKind::Irecv:
    case OpKind::RecvInit: {
      needs |= message(x, d);
      d.set("source", needs.take(peer(x, need(c, Param::Source), "source")));
      d.set("tag", needs.take(tag(x, Param::Tag, true)));
      if (kind == OpKind::Recv) {
        needs.status = true;
        return {render("call/recv", d), needs};
      }
      needs.newRequest = true;
      // Bound to its request in the ring (recv_slice_bound(), templates/c/runtime), but for a
      // persistent receive, whose request moves between ring slots as it is started, and one
      // in a local array, whose run completes it before the array's slices come round again.
      // Receives pending at once must not share memory (MPI forbids a receive buffer
      // overlapping another pending operation's): the nonblocking ones (MPI_Irecv, MPI_Imrecv,
      // MPI_Recv_init, the nonblocking collectives) write recv_slice(), which cycles over
      // `recv_slices` slices. A nonblocking receive is pending only while its request is in the
      // ring, so as many slices as the ring has slots keep every pending receive apart.
      const bool bound = kind == OpKind::Irecv && !localRequest(x.c);
      d.set("bound", flag(bound));
      needs.recvSlices = true;
      needs.boundSlices = bound;
      return {render("call/irecv", d), needs};
    }
    case OpKind::Sendrecv:
      needs |= message(x, d);
      d.set("dest", needs.take(peer(x, need(c, Param::Dest), "dest")));
      d.set("source", needs.take(peer(x, need(c, Param::Source), "source")));
      d.set("tag", needs.take(tag(x, Param::Tag, false)));
      d.set("recvtag", needs.take(tag(x, param(c, Param::RecvTag) ? Param::RecvTag : Param::Tag, true)));
      needs.status = true;
      if (c.op == Op::SendrecvReplace) return {render("call/sendrecv_replace", d), needs};
      sendsMessage();
      needs |= receiveSide(x, d);
      return {render("call/sendrecv", d), needs};
    case OpKind::Probe:
      d.set("comm", needs.take(comm(x)));
      d.set("source", needs.take(peer(x, need(c, Param::Source), "source")));
      d.set("tag", needs.take(tag(x, Param::Tag, true)));
      needs.status = true;
      return {render(c.op == Op::Probe ? "call/probe" : "call/iprobe", d), needs};
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled point-to-point operation {}", opName(c.op)));
}

// count, datatype, comm of a call that moves one message. A recorder leaves out what MPI
// ignores (a scatter's send type on the ranks that only receive): the other side's stands in.
Needs CWriter::message(const CallCtx& x, mus::data& d) {
  const Expr* recvType = param(x.c, Param::RecvType);
  Needs needs;
  cur_->count = needs.take(count(x, param(x.c, Param::Count), "count"));
  cur_->datatype = needs.take(
      datatype(x, recvType && !param(x.c, Param::Datatype) ? *recvType : need(x.c, Param::Datatype), "datatype"));
  cur_->comm = needs.take(comm(x));
  d.set("count", cur_->count);
  d.set("datatype", cur_->datatype);
  d.set("comm", cur_->comm);
  return needs;
}

Needs CWriter::receiveSide(const CallCtx& x, mus::data& d) {
  const Expr* rc = param(x.c, Param::RecvCount);
  const Expr* rt = param(x.c, Param::RecvType);
  Needs needs;
  d.set("recvcount", needs.take(count(x, rc ? rc : param(x.c, Param::Count), "recvcount")));
  d.set("recvtype", needs.take(datatype(x, rt ? *rt : need(x.c, Param::Datatype), "recvtype")));
  return needs;
}

// A test the trace says completed requests is polled until it completes them here too (the
// failed polls of the application are timing: a replay makes its own); a failed poll names no
// request and returns at once. MPI_Testsome waits (MPI_Request_get_status) until all its
// requests are complete and then completes them in one call, as the application's did. tracegen's recorder
// names only completed requests (docs/recording.md, "Requests"); ScalaTrace names the request
// tested whatever the outcome, so its tests are made once, as recorded.
// A test polled until it succeeds. With a share of computation per poll (a test the
// application polled, see compute()) the loop counts the polls that completed nothing, and
// after the success hands poll_idle the application's failed polls for this execution
// (`failed`, per rank and execution as recorded) less its own, plus the balance so far: with
// the benchmark's --all-polls it makes what the loop owes as polls that find nothing. Where
// the application's polls were work of their own (HPC Challenge's RandomAccess polls once per
// update it makes, whether or not a message is due), a benchmark whose message came sooner
// would otherwise skip them, and their time with them; where they were waiting (the default),
// the extra polls would add time the application did not spend.
Needs CWriter::pollUntil(const CallCtx& x, mus::data& d, const char* condition) {
  const bool once = program_.origin.rfind("scalatrace", 0) == 0;
  d.set("until", once ? std::string("0") : std::string(condition));
  d.set("poll", flag(!once));
  if (!cur_ || cur_->pollCompute.empty()) return {};
  d.set("poll_compute", cur_->pollCompute);
  const Expr* failed = param(x.c, Param::Failed);
  if (!failed) return {};
  // Parenthesised: it is followed by " - failed".
  Needs needs{.pollIdle = true};
  d.set("app_failed", needs.take(expr(longCyclesAsMeans(*failed, kShortVector), intStyle(), at(x, "failed"))));
  return needs;
}

Lowered CWriter::waitOne(const CallCtx& x, mus::data& d) {
  const Expr* r = param(x.c, Param::Request);
  Needs needs{.status = true, .recentRequest = true};
  d.set("recency", r ? needs.take(expr(*r, recencyStyle(), at(x, "request"))) : "0");
  if (x.c.op != Op::Wait) needs |= pollUntil(x, d, "!flag");
  return {render(x.c.op == Op::Wait ? "call/wait" : "call/test", d), needs};
}

// Persistent requests (docs/c-backend.md, "Persistent requests"): a start takes the request
// out of the ring slot the trace names and puts it, started, in a new slot, as the trace
// counts each activation as a request; MPI_Request_free frees the one the trace names.
Lowered CWriter::persistentCall(const CallCtx& x, mus::data& d) {
  Needs needs{.recentRequest = true};
  if (x.c.op == Op::RequestFree) {
    d.set("recency", needs.take(expr(need(x.c, Param::Request), recencyStyle(), at(x, "request"))));
    return {render("call/request_free", d), needs};
  }
  needs.newRequest = needs.persistent = true;
  if (x.c.op == Op::Start) {
    d.set("recency", needs.take(expr(need(x.c, Param::Request), recencyStyle(), at(x, "request"))));
    return {render("call/start", d), needs};
  }
  const std::vector<Expr>* reqs = vec(x.c, Param::Requests);
  if (!reqs || reqs->empty())
    throw std::invalid_argument(fmt::format("{}: no 'requests' to start", label(x.c)));
  std::vector<std::string> recency;
  for (std::size_t i = 0; i < reqs->size(); ++i)
    recency.push_back(needs.take(expr((*reqs)[i], recencyStyle(), at(x, fmt::format("request{}", i)))));
  d.set("n", std::to_string(reqs->size()));
  d.set("recency", fmt::format("{}", fmt::join(recency, ", ")));
  return {render("call/startall", d), needs};
}

// Matched probes (docs/c-backend.md, "Matched probes"): the messages the probes find go into
// a ring in the order found; MPI_Mrecv/MPI_Imrecv receive the oldest not received yet.
Lowered CWriter::matchedCall(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  Needs needs{.messages = true};
  if (c.op == Op::Mrecv || c.op == Op::Imrecv) {
    d.set("count", needs.take(count(x, param(c, Param::Count), "count")));
    d.set("datatype", needs.take(datatype(x, need(c, Param::Datatype), "datatype")));
    if (c.op == Op::Mrecv) {
      needs.status = true;
      return {render("call/mrecv", d), needs};
    }
    needs.newRequest = needs.recvSlices = true;  // into a slice of its own, as MPI_Irecv
    return {render("call/imrecv", d), needs};
  }
  d.set("comm", needs.take(comm(x)));
  d.set("source", needs.take(peer(x, need(c, Param::Source), "source")));
  d.set("tag", needs.take(tag(x, Param::Tag, true)));
  if (c.op == Op::Mprobe) {
    needs.status = true;
    return {render("call/mprobe", d), needs};
  }
  // MPI_Improbe: a recorded success (`count` 1) polls until it finds its message, as the
  // tests do; the polls that found nothing are timing and are not made.
  const Expr* found = param(c, Param::Count);
  if (found && found->isConst() && found->value == 0) return {render("call/improbe_none", d), needs};
  needs.status = true;
  if (!found || found->isConst()) return {render("call/improbe", d), needs};
  d.set("found", needs.take(expr(*found, intStyle(), at(x, "found"))));  // found a message at this execution
  return {render("call/improbe_sometimes", d), needs};
}

Lowered CWriter::waitMany(const CallCtx& x, mus::data& d) {
  const std::vector<Expr>* reqs = vec(x.c, Param::Requests);
  const std::size_t n = std::max<std::size_t>(reqs ? reqs->size() : 0, 1);
  Needs needs{.recentRequest = true, .requestLists = true};
  std::vector<std::string> recency;
  for (std::size_t i = 0; i < n; ++i)
    recency.push_back(reqs && i < reqs->size()
                          ? needs.take(expr((*reqs)[i], recencyStyle(), at(x, fmt::format("request{}", i))))
                          : "0");
  const Expr* count = param(x.c, Param::Count);
  d.set("n", std::to_string(n));
  d.set("recency", fmt::format("{}", fmt::join(recency, ", ")));
  d.set("count", count ? needs.take(expr(*count, intStyle(), at(x, "count"))) : std::to_string(reqs ? reqs->size() : 0));
  // MPI_Waitany and MPI_Testany name `&status`, the others an array of `statuses`.
  if (x.c.op == Op::Waitany || x.c.op == Op::Testany) needs.status = true;
  else needs.statuses = static_cast<std::int64_t>(n);
  switch (x.c.op) {
    case Op::Waitall:
      return {render("call/waitall", d), needs};
    case Op::Testall:
      needs |= pollUntil(x, d, "!flag");
      return {render("call/testall", d), needs};
    case Op::Waitany:
      return {render("call/waitany", d), needs};
    case Op::Testany:
      needs |= pollUntil(x, d, "!flag");
      return {render("call/testany", d), needs};
    case Op::Testsome:
      needs |= pollUntil(x, d, "0");
      return {render("call/testsome", d), needs};
    default:  // Waitsome
      return {render("call/waitsome", d), needs};
  }
}

}  // namespace tracegen::gen::cgen
