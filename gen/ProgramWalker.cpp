// The generic backend (gen/ProgramWalker.h): the walk of a Program and the helpers every
// backend shares.
#include "gen/ProgramWalker.h"

#include "ir/Diagnostics.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace tracegen::gen {

namespace mus = kainjow::mustache;

std::string TemplateCache::render(const std::string& name, const mus::data& data) {
  auto it = cache_.find(name);
  const std::string path = fmt::format("templates/{}/{}.mustache", dir_, name);
  if (it == cache_.end()) {
    std::string text;
    try {
      text = std::string(templateText(dir_ + "/" + name + ".mustache"));
    } catch (const std::out_of_range&) {
      throw std::logic_error(fmt::format("{}: no such template", path));
    }
    if (strip_ && !text.empty() && text.back() == '\n') text.pop_back();
    auto t = std::make_unique<mus::mustache>(text);
    if (!t->is_valid()) throw std::logic_error(fmt::format("{}: {}", path, t->error_message()));
    t->set_custom_escape([](const std::string& s) { return s; });  // program text, not HTML
    it = cache_.emplace(name, std::move(t)).first;
  }
  std::string out = it->second->render(data);
  if (!it->second->is_valid()) throw std::logic_error(fmt::format("{}: {}", path, it->second->error_message()));
  return out;
}

OpFamily opFamily(Op op) {
  switch (opInfo(op).kind) {
    case OpKind::Init:
    case OpKind::Finalize:
      return OpFamily::Lifecycle;
    case OpKind::Send:
    case OpKind::Isend:
    case OpKind::SendInit:
    case OpKind::Recv:
    case OpKind::Irecv:
    case OpKind::RecvInit:
    case OpKind::Sendrecv:
    case OpKind::Probe:
      return OpFamily::PointToPoint;
    case OpKind::Wait:
    case OpKind::WaitAll:
      return OpFamily::Completion;
    case OpKind::Collective:
      return OpFamily::Collective;
    case OpKind::ICollective:
      return OpFamily::NonblockingCollective;
    case OpKind::CommCreate:
    case OpKind::CommFree:
    case OpKind::Group:
      return OpFamily::Communicator;
    case OpKind::Start:
    case OpKind::RequestFree:
      return OpFamily::Persistent;
    case OpKind::MatchedProbe:
    case OpKind::MatchedRecv:
      return OpFamily::MatchedProbe;
    case OpKind::WinCollective:
    case OpKind::Rma:
    case OpKind::WinPassive:
      return OpFamily::OneSided;
    case OpKind::FileCollective:
    case OpKind::FileIo:
      return OpFamily::FileIo;
    case OpKind::Opaque:
    case OpKind::OpaqueRequest:
      return OpFamily::Opaque;
  }
  throw std::logic_error("unhandled operation kind");
}

ProgramWalker::ProgramWalker(const Program& program, const GenOptions& options, std::string templateDir,
                             bool stripFinalNewline)
    : program_(program), options_(options), templates_(std::move(templateDir), stripFinalNewline) {
  if (program.numRanks < 1) throw std::invalid_argument("the program has no ranks");
  all_ = RankList::all(program.numRanks);
}

void ProgramWalker::walk(const std::vector<Stmt>& body, std::size_t from, std::size_t to, const RankList& outer) {
  std::size_t i = from;
  while (i < to) {
    std::size_t j = i + 1;
    while (j < to && body[j].ranks == body[i].ranks) ++j;
    beginGuard(body[i].ranks, outer, i == from);
    for (std::size_t k = i; k < j; ++k) {
      const Stmt& s = body[k];
      const RankList ranks = s.ranks.isSubsetOf(outer) ? s.ranks : RankList::intersect(s.ranks, outer);
      if (ranks.empty()) continue;
      if (s.kind == Stmt::Kind::Loop)
        loop(s, ranks);
      else
        call(s.call, ranks);
    }
    endGuard(body[i].ranks, outer);
    i = j;
  }
}

void ProgramWalker::loop(const Stmt& s, const RankList& ranks) {
  const int line = s.loop.head ? s.loop.head->line : 0;
  atInputLine(program_.source, line, [&] { beginLoop(s, ranks); });
  walk(s.loop.body, ranks);
  atInputLine(program_.source, line, [&] { endLoop(s, ranks); });
}

void ProgramWalker::call(const CallStmt& c, const RankList& ranks) {
  // What a backend cannot write for this call is an error at the event's line.
  atInputLine(program_.source, c.event ? c.event->line : 0, [&] { callAt(c, ranks); });
}

void ProgramWalker::callAt(const CallStmt& c, const RankList& ranks) {
  beginCall(c, ranks);
  compute(c, ranks);
  switch (opFamily(c.op)) {
    case OpFamily::Lifecycle: lifecycle(c, ranks); break;
    case OpFamily::PointToPoint: pointToPoint(c, ranks); break;
    case OpFamily::Completion: completion(c, ranks); break;
    case OpFamily::Collective: collective(c, ranks); break;
    case OpFamily::NonblockingCollective: nonblockingCollective(c, ranks); break;
    case OpFamily::Communicator: communicator(c, ranks); break;
    case OpFamily::Persistent: persistent(c, ranks); break;
    case OpFamily::MatchedProbe: matchedProbe(c, ranks); break;
    case OpFamily::OneSided: oneSided(c, ranks); break;
    case OpFamily::FileIo: fileIo(c, ranks); break;
    case OpFamily::Opaque: opaque(c, ranks); break;
  }
  endCall(c, ranks);
}

void ProgramWalker::unsupported(const CallStmt& c) const {
  throw std::invalid_argument(fmt::format("no {} lowering for {}", backendName(), opName(c.op)));
}

void ProgramWalker::lifecycle(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::pointToPoint(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::completion(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::collective(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::nonblockingCollective(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::communicator(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::persistent(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::matchedProbe(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::oneSided(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::fileIo(const CallStmt& c, const RankList&) { unsupported(c); }
void ProgramWalker::opaque(const CallStmt& c, const RankList&) { unsupported(c); }

std::string ProgramWalker::indent(const std::string& text, int spaces) {
  const std::string pad(static_cast<std::size_t>(spaces), ' ');
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    std::size_t len = (end == std::string::npos ? text.size() : end + 1) - pos;
    std::string_view line(text.data() + pos, len);
    if (line != "\n") out += pad;
    out += line;
    pos += len;
  }
  return out;
}

std::vector<std::string> ProgramWalker::siteDescriptions(const Event* e) const {
  std::vector<std::string> out;
  if (!e || !program_.trace || e->site == kNoSite) return out;
  out.push_back(program_.trace->siteDescription(e->site));
  for (SiteId m : e->mergedSites)
    if (m != e->site) out.push_back(program_.trace->siteDescription(m));
  return out;
}

std::vector<std::string> ProgramWalker::callSites(const Event* e) const {
  std::vector<std::string> sites;
  if (!e || !program_.trace || e->site == kNoSite) return sites;
  sites.emplace_back(program_.trace->siteName(e->site));
  for (SiteId m : e->mergedSites)
    if (m != e->site) sites.emplace_back(program_.trace->siteName(m));
  return sites;
}

void ProgramWalker::note(const std::string& text) {
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(text);
}

const Expr* ProgramWalker::param(const CallStmt& c, Param p) {
  auto it = c.params.find(p);
  return it == c.params.end() ? nullptr : &it->second;
}

const std::vector<Expr>* ProgramWalker::vec(const CallStmt& c, Param p) {
  auto it = c.vectors.find(p);
  return it == c.vectors.end() ? nullptr : &it->second;
}

std::string ExprPrinter::formula(const Expr&) {
  throw std::invalid_argument("this backend does not write scale-free benchmarks yet; write C (-o bench.c)");
}
std::string ExprPrinter::gridPeer(const Expr& e) { return formula(e); }
std::string ExprPrinter::progression(const Expr& e) { return formula(e); }
std::string ExprPrinter::relationPeer(const Expr& e) { return formula(e); }
std::string ExprPrinter::progressionPeer(const Expr& e) { return formula(e); }
std::string ExprPrinter::block(const Expr& e) { return formula(e); }

std::string ExprPrinter::byCall(const Expr& e) { return constant(e.value); }

std::string ExprPrinter::print(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Const: return constant(e.value);
    case Expr::Kind::RankOffset: return rankOffset(e.offset);
    case Expr::Kind::ByRank:
      if (e.groups.size() != e.children.size() || e.children.empty())
        throw std::logic_error("Expr: a choice by rank needs one value per rank group");
      if (e.children.size() == 1) return print(e.children.front());
      return byRank(e);
    case Expr::Kind::ByExecution:
      if (e.children.empty()) throw std::logic_error("Expr: a cycle over executions needs values");
      return byExecution(e);
    case Expr::Kind::FirstIteration:
      if (e.children.size() != 2) throw std::logic_error("Expr: a first-iteration choice needs two values");
      return firstIteration(e);
    case Expr::Kind::ByCall:
      if (e.children.empty() || e.children.size() != e.firsts.size())
        throw std::logic_error("Expr: a choice by call needs one first call per value");
      return byCall(e);
    case Expr::Kind::Formula: return formula(e);
    case Expr::Kind::GridPeer: return gridPeer(e);
    case Expr::Kind::RelationPeer: return relationPeer(e);
    case Expr::Kind::Block: return block(e);
    case Expr::Kind::Progression:
      if (e.children.size() != 3) throw std::logic_error("Expr: a progression needs a start, a step and a length");
      return progression(e);
    case Expr::Kind::ProgressionPeer:
      if (e.children.size() != 3) throw std::logic_error("Expr: a progression needs a start, a step and a length");
      return progressionPeer(e);
  }
  throw std::logic_error("Expr: unknown kind");
}

}  // namespace tracegen::gen
