// The C backend's hooks of the program walker (gen/ProgramWalker.h): runs of statements
// under one rank condition, loops, a call's statement (its computation, buffer swap, polls
// and table declarations), and the operation families, each of which hands its call to
// the file of its family.
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

namespace {

// ScalaTrace's call sites are chains of return addresses (`46c902_46ccd7_46ce42_46cf63_457e56`),
// innermost first; the innermost frames and the outermost one tell calls apart.
std::string shortSite(std::string_view site) {
  constexpr std::size_t kLong = 28;
  if (site.size() <= kLong) return std::string(site);
  std::vector<std::string_view> frames;
  for (std::size_t pos = 0;;) {
    std::size_t end = site.find('_', pos);
    frames.push_back(site.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  if (frames.size() <= 3) return std::string(site);
  return fmt::format("{}_{}...{}", frames[0], frames[1], frames.back());
}

bool hasByExecution(const Expr& e) {
  // A progression over executions and a relation's peer per step (scale-free programs) read the
  // execution counter too.
  if (e.kind == Expr::Kind::ByExecution || e.kind == Expr::Kind::Progression || e.kind == Expr::Kind::ProgressionPeer)
    return true;
  if (e.kind == Expr::Kind::RelationPeer && !e.perExecutionInvariant()) return true;
  return std::any_of(e.children.begin(), e.children.end(), hasByExecution);
}

// `e` with every constant multiplied by `factor` (times; peers and counts are never scaled).
Expr scaledConsts(Expr e, double factor) {
  if (e.kind == Expr::Kind::Const || e.kind == Expr::Kind::ByCall) e.value *= factor;  // a time by call: its mean too
  for (auto& c : e.children) c = scaledConsts(std::move(c), factor);
  return e;
}

}  // namespace

// Statements [from, to) of a body whose ranks are all within `outer`.
Lowered CWriter::walked(const std::vector<Stmt>& stmts, std::size_t from, std::size_t to, const RankList& outer) {
  frames_.emplace_back();
  walk(stmts, from, to, outer);
  Lowered body{std::move(frames_.back().text), std::move(frames_.back().needs)};
  frames_.pop_back();
  return body;
}

void CWriter::beginGuard(const RankList&, const RankList&, bool firstRun) {
  Frame& f = frames_.back();
  f.run.clear();
  f.firstRun = firstRun;
  f.lastLoop = false;
  f.statements = 0;
}

void CWriter::endGuard(const RankList& ranks, const RankList& outer) {
  Frame& f = frames_.back();
  if (!f.firstRun) f.text += '\n';
  f.text += guarded(ranks, outer, f.run);
}

// A statement of the current run; loops are set off by blank lines.
void CWriter::emit(const Lowered& statement, bool isLoop) {
  Frame& f = frames_.back();
  if (f.statements > 0 && (isLoop || f.lastLoop)) f.run += '\n';
  f.run += statement.text;
  f.needs |= statement.needs;
  ++f.statements;
  f.lastLoop = isLoop;
}

std::string CWriter::guarded(const RankList& ranks, const RankList& outer, const std::string& text) {
  if (outer.isSubsetOf(ranks)) return text;
  mus::data d;
  d.set("cond", withoutParens(rankCondition(ranks)));
  d.set("body", indent(text, 2));
  return ensureNewline(render("guard", d));
}

std::string CWriter::rankCondition(const RankList& ranks) {
  auto [pos, inserted] = rankConditions_.try_emplace(ranks.str());
  if (inserted && program_.scaleFree) {
    pos->second = classCondition(ranks);
  } else if (inserted) {
    auto it = program_.rankShapes.find(pos->first);
    pos->second = cRankCondition(it != program_.rankShapes.end() ? it->second : rankShape(ranks, program_.numRanks));
  }
  return pos->second;
}

void CWriter::endLoop(const Stmt& s, const RankList& ranks) {
  const std::string bodyText = std::move(frames_.back().text);
  Needs needs = std::move(frames_.back().needs);
  frames_.pop_back();
  const LoopStmt& l = s.loop;
  mus::data d;
  const bool cycles = hasByExecution(l.iterations);
  const std::string counter = cycles ? "entries" : "";
  std::string trips = needs.take(expr(l.iterations, intStyle(), Scope{counter, "trips", nullptr, ranks}));
  std::string what;
  if (l.iterations.isConst()) {
    what = fmt::format("{} iterations", asInt(l.iterations.value));
  } else if (l.iterations.kind == Expr::Kind::ByExecution &&
             std::all_of(l.iterations.children.begin(), l.iterations.children.end(),
                         [](const Expr& c) { return c.isConst(); })) {
    std::vector<std::int64_t> counts;
    for (const auto& c : l.iterations.children) counts.push_back(asInt(c.value));
    what = fmt::format("{} iterations on successive entries", fmt::join(counts, ", "));
  } else if (l.iterations.constantProgression()) {
    what = fmt::format("{}, {}, ..., {} iterations on successive entries", asInt(l.iterations.progressionValue(0)),
                       asInt(l.iterations.progressionValue(1)),
                       asInt(l.iterations.progressionValue(l.iterations.progressionLength() - 1)));
  } else if (l.iterations.kind == Expr::Kind::Formula) {
    what = fmt::format("{} iterations", trips);
  } else {
    what = "a number of iterations that differs by rank";
  }
  std::string head;
  if (l.head) head = fmt::format(", headed by {}", eventName(*l.head));
  const std::string loopLabel = fmt::format("loop {}: {}{}", l.id, what, head);
  d.set("var", loopVar(l.id));
  if (l.iterations.isConst() || l.iterations.kind == Expr::Kind::Formula) {  // the same at every entry
    d.set("limit", trips);
  } else {
    // Evaluated once per entry, before the counter moves on.
    d.set("trips_var", fmt::format("trips{}", l.id));
    d.set("trips", trips);
    d.set("limit", fmt::format("trips{}", l.id));
  }
  d.set("body", indent(bodyText, 2));
  if (cycles) d.set("counter", counter);
  const std::string forLoop = ensureNewline(render("for", d));
  mus::data outer;
  outer.set("label", loopLabel);
  if (cycles) outer.set("counter", counter);
  outer.set("loop", cycles ? indent(forLoop, 2) : forLoop);
  emit({ensureNewline(render("loop", outer)), needs}, true);
}

std::string CWriter::eventName(const Event& e) const {
  std::string s = fmt::format("E{} {}", e.id, opName(e.op));
  const std::vector<std::string> sites = callSites(&e);
  const std::vector<std::string> named = siteDescriptions(&e);
  for (std::size_t i = 0; i < sites.size(); ++i)
    s += named[i].empty() ? (i == 0 ? " at " : ", ") + shortSite(sites[i]) : (i == 0 ? " " : ", ") + named[i];
  return commentSafe(s);
}

std::string CWriter::label(const CallStmt& c) const {
  return c.event ? eventName(*c.event) : std::string(opName(c.op));
}

std::string CWriter::renderInit(const std::vector<Stmt>& body, std::size_t count) {
  std::vector<std::string> labels;
  bool thread = false;
  for (std::size_t i = 0; i < count; ++i) {
    thread = thread || body[i].call.op == Op::InitThread;
    std::string l = label(body[i].call);
    if (!(body[i].ranks == all())) l += fmt::format(" (ranks {})", body[i].ranks.pretty());
    labels.push_back(l);
  }
  // Before MPI_Init no rank knows its rank: one call stands for the traced ones.
  mus::data d;
  d.set("label", fmt::format("{}", fmt::join(labels, "; ")));
  mus::data inner;
  inner.set("call", render(thread ? "call/init_thread" : "call/init", {}));
  d.set("inner", ensureNewline(render("statement", inner)));
  return ensureNewline(render("call", d));
}

const Expr& CWriter::need(const CallStmt& c, Param p) const {
  if (const Expr* e = param(c, p)) return *e;
  throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
}

// The call's text: the statement needs what the call needs.
void CWriter::setCall(Lowered call) {
  cur_->inner.set("call", call.text);
  cur_->needs |= call.needs;
}

void CWriter::beginCall(const CallStmt& c, const RankList& ranks) {
  bool cycles = hasByExecution(c.computeUs);
  for (const auto& [p, e] : c.params) cycles = cycles || hasByExecution(e);
  for (const auto& [p, v] : c.vectors)
    for (const auto& e : v) cycles = cycles || hasByExecution(e);
  cur_ = std::make_unique<Current>();
  cur_->ranks = ranks;
  // Declared in the statement's own block: the executions of this statement by the rank.
  cur_->counter = cycles ? "calls" : "";
  cur_->needs = bufferNeeds(c);
}

void CWriter::compute(const CallStmt& c, const RankList&) {
  if (c.computeUs.isConst() && c.computeUs.value == 0) return;
  forEachConst(c.computeUs, [&](double us) {
    requireEmittableTime(us, program_.source, c.event ? c.event->line : 0,
                         fmt::format("{}: compute time", label(c)));
  });
  cur_->needs.compute = true;
  const CallCtx x = ctx(c);
  // A test that polled: the recorded computation before it spans all its polls (the failed
  // ones are folded into the success, docs/recording.md "Failed polls"), and much of it is
  // the polling loop waiting for a message. Replayed whole before the first poll, that wait
  // would become computation on top of the benchmark's own wait; so it is spread over the
  // polls instead, one share before each, and the benchmark polls as long as its message
  // takes: the application's polling loop, paced as the application paced it.
  if (const double polls = pollsPerExecution(c); polls > 1) {
    // Its share is spent per poll, which a counter of calls would count: a time that drifts
    // over the calls takes its mean here.
    cur_->pollCompute = withoutParens(cur_->needs.take(
        expr(scaledConsts(c.computeUs.withoutDrift(), 1 / polls), computeStyle(), at(x, "compute_us"))));
    return;
  }
  cur_->compute = withoutParens(cur_->needs.take(expr(c.computeUs, computeStyle(), at(x, "compute_us"))));
}

bool CWriter::hasPendingSends(const std::vector<Stmt>& body) {
  for (const Stmt& s : body) {
    if (s.kind == Stmt::Kind::Loop) {
      if (hasPendingSends(s.loop.body)) return true;
      continue;
    }
    switch (opInfo(s.call.op).kind) {
      case OpKind::Isend:
      case OpKind::SendInit:
      case OpKind::ICollective:
      case OpKind::Rma:
      case OpKind::OpaqueRequest: return true;
      default: break;
    }
  }
  return false;
}

void CWriter::swapBuffers(const CallCtx& x) {
  const Expr* fromReceived = param(x.c, Param::FromReceived);
  if (!fromReceived || !buffersMaySwap_) return;
  if (fromReceived->isConst() && fromReceived->value == 0) return;
  cur_->needs.swapBuffers = true;
  cur_->inner.set("swap", fromReceived->isConst()
                              ? std::string("swap_buffers(); /* it sends what a receive wrote */")
                              : fmt::format("if ({}) swap_buffers(); /* it sends what a receive wrote */",
                                            cur_->needs.take(expr(*fromReceived, intStyle(), at(x, "fromrecv")))));
}

// The call sends the message message() set from send_buf: the computation before it writes
// those bytes within its time (compute_sending(), templates/c/runtime), as the application's
// computation produced the data it sends; MPI_Alltoall sends one such message to every member.
void CWriter::sendsMessage(bool blocks) {
  cur_->sending = cur_->count + ", " + cur_->datatype;
  cur_->sendingBlocks = blocks;
}

// The statement's computation: compute(), or compute_sending() before a call that sends.
void CWriter::setComputeCall() {
  if (cur_->compute.empty()) return;
  cur_->needs.compute = true;
  if (cur_->sending.empty()) {
    cur_->inner.set("compute_call", fmt::format("compute({})", cur_->compute));
    return;
  }
  (cur_->sendingBlocks ? cur_->needs.computeSendingBlocks : cur_->needs.computeSending) = true;
  cur_->inner.set("compute_call",
                  cur_->sendingBlocks
                      ? fmt::format("compute_sending_blocks({}, {}, {})", cur_->compute, cur_->sending, cur_->comm)
                      : fmt::format("compute_sending({}, {})", cur_->compute, cur_->sending));
}

// Calls per recorded execution of a test that the benchmark polls until it succeeds: 1 plus
// the mean number of failed polls folded into each execution (over its ranks and
// executions), or 1 for every other call.
double CWriter::pollsPerExecution(const CallStmt& c) const {
  if (c.op != Op::Test && c.op != Op::Testany && c.op != Op::Testall) return 1;
  if (program_.origin.rfind("scalatrace", 0) == 0 || !c.event) return 1;  // tests made once
  const ParamValues* failed = c.event->param(Param::Failed);
  if (!failed) return 1;
  double sum = 0, weight = 0;
  for (const ValueGroup& g : failed->groups) {
    if (g.values.empty()) continue;
    double mean = 0;
    for (auto v : g.values) mean += static_cast<double>(v);
    mean /= static_cast<double>(g.values.size());
    const auto n = static_cast<double>(g.ranks.size());
    sum += n * mean;
    weight += n;
  }
  return weight > 0 ? 1 + sum / weight : 1;
}

void CWriter::endCall(const CallStmt& c, const RankList&) {
  swapBuffers(ctx(c));
  setComputeCall();
  const std::string counter = cur_->counter;
  const std::vector<Table>& tables = cur_->tables;
  mus::data& inner = cur_->inner;
  if (!counter.empty()) inner.set("counter", counter);
  const std::string text = ensureNewline(render("statement", inner));
  mus::data d;
  d.set("label", label(c));
  d.set("has_block", flag(!tables.empty() || !counter.empty()));
  if (!counter.empty()) d.set("counter", counter);
  d.set("declarations", declarations(tables));
  d.set("inner", tables.empty() && counter.empty() ? text : indent(text, 2));
  emit({ensureNewline(render("call", d)), std::move(cur_->needs)}, false);
  cur_.reset();
}

// The declarations of a statement's tables (templates/c/tables.mustache), indented for the
// statement's block; empty without tables.
std::string CWriter::declarations(const std::vector<Table>& tables) {
  if (tables.empty()) return "";
  mus::data list{mus::data::type::list};
  for (const auto& t : tables) {
    mus::data e;
    e.set("qualifier", t.qualifier);
    e.set("type", t.type);
    e.set("name", t.name);
    e.set("values", t.values);
    e.set("n", std::to_string(t.n));
    e.set("matrix", flag(!t.rows.empty()));
    e.set("scalar", flag(t.scalar));
    e.set("columns", std::to_string(t.columns));
    mus::data rows{mus::data::type::list};
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
      mus::data row;
      row.set("rank", std::to_string(r));
      row.set("values", t.rows[r]);
      rows << row;
    }
    e.set("rows", rows);
    list << e;
  }
  mus::data d;
  d.set("tables", list);
  return indent(ensureNewline(render("tables", d)), 2);
}

void CWriter::lifecycle(const CallStmt& c, const RankList&) {
  throw std::invalid_argument(fmt::format("{}: {} may only come first or last", label(c), opName(c.op)));
}

void CWriter::pointToPoint(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(localRequestMade(c, pointToPointText(ctx(c), d)));
}

void CWriter::completion(const CallStmt& c, const RankList&) {
  if (localRequests_.count(&c)) return setCall(localCompletion(c));
  mus::data d = callData(c);
  setCall(opInfo(c.op).kind == OpKind::Wait ? waitOne(ctx(c), d) : waitMany(ctx(c), d));
}

void CWriter::collective(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(collectiveText(ctx(c), d));
}

void CWriter::nonblockingCollective(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(nonblockingCollectiveText(ctx(c), d));
}

void CWriter::communicator(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(opInfo(c.op).kind == OpKind::Group ? groupCall(ctx(c), d) : commCall(ctx(c), d));
}

void CWriter::persistent(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(persistentCall(ctx(c), d));
}

void CWriter::matchedProbe(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(matchedCall(ctx(c), d));
}

void CWriter::oneSided(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(oneSidedText(ctx(c), d));
}

void CWriter::fileIo(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  setCall(fileIoText(ctx(c), d));
}

void CWriter::opaque(const CallStmt& c, const RankList&) {
  mus::data d = callData(c);
  if (opInfo(c.op).kind == OpKind::Opaque) return setCall(render("call/opaque", d));
  setCall({render("call/opaque_request", d), Needs{.newRequest = true}});
}

// Every call template names the function.
mus::data CWriter::callData(const CallStmt& c) {
  mus::data d;
  d.set("fn", std::string(opName(c.op)));
  return d;
}

}  // namespace tracegen::gen::cgen
