// The coNCePTuaL backend's point-to-point calls: sends and receives as separate statements at their
// own ranks (SENDS … TO UNSUSPECTING TASK, RECEIVES … FROM TASK), their partners, messages (split
// from 2 GiB) and tags (dropped everywhere once a receive takes MPI_ANY_TAG), and MPI_Sendrecv as
// an asynchronous pair and an AWAIT.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

std::int64_t Renderer::typeSize(const Expr& e) const {
  const auto id = static_cast<std::int64_t>(e.value);
  for (const auto& d : p_.datatypes)
    if (d.id == id) return d.size;
  throw std::invalid_argument(fmt::format("unknown datatype id {}", id));
}

std::string Renderer::scaledBytes(std::int64_t bytes) {
  if (bytes == 0) return "0";
  data d;
  d.set("bytes", std::to_string(bytes));
  return fill("scaled_bytes", d);
}

// `A n BYTE MESSAGE`; a message of 2 GiB or more becomes k equal messages of less than
// 1 GiB each (c_mpi passes sizes as int, §4.18).
std::string Renderer::message(std::int64_t bytes, std::optional<std::int64_t> tag) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 31, kPart = std::int64_t{1} << 30;
  // Remembered per size and tag (two templates a message; a program has few sizes). The note
  // below is said at the first such message, which is never a remembered one.
  const std::pair<std::int64_t, std::optional<std::int64_t>> key{bytes, tag};
  if (auto it = messages_.find(key); it != messages_.end()) return it->second;
  std::int64_t parts = 1;
  if (bytes >= kLimit) {
    parts = (bytes + kPart - 1) / kPart;
    bytes = (bytes + parts - 1) / parts;
    note("Messages of 2 GiB or more are split into several messages below 1 GiB (§4.18).");
  }
  data d;
  d.set("one", parts == 1);
  d.set("count", std::to_string(parts));
  d.set("bytes", scaledBytes(bytes));
  d.set("tagged", tag.has_value() && *tag != 0);
  d.set("tag", tag ? std::to_string(*tag) : std::string());
  return messages_.emplace(key, fill("message", d)).first->second;
}

void Renderer::pointToPoint(const CallStmt& c, const RankList& ranks) {
  const OpKind kind = opInfo(c.op).kind;
  switch (kind) {
    case OpKind::Send:
    case OpKind::Isend:
      cur_.call = sendStmts(c, ranks, cur_.idx, kind == OpKind::Isend);
      break;
    case OpKind::Recv:
    case OpKind::Irecv:
      cur_.call = recvStmts(c, ranks, cur_.idx, kind == OpKind::Irecv, Param::Count, Param::Datatype, Param::Tag);
      break;
    case OpKind::Sendrecv:
      cur_.call = sendrecvStmts(c, ranks, cur_.idx);
      break;
    case OpKind::SendInit:
    case OpKind::RecvInit:
      // Nothing moves yet: each start replays the message (startStmts).
      inits_[c.event] = c;
      break;
    default:
      break;  // MPI_Probe, MPI_Iprobe: no communication, only the computation before it (§5.2)
  }
}

void Renderer::decideTags(const std::vector<Stmt>& body) {
  for (const auto& s : body) {
    if (s.kind == Stmt::Kind::Loop) {
      decideTags(s.loop.body);
      continue;
    }
    for (Param p : {Param::Tag, Param::RecvTag})
      if (const Expr* e = param(s.call, p); e && anyLeaf(*e, [](const Expr& x) { return x.isConst() && x.value < 0; }))
        useTags_ = false;
  }
  if (!useTags_)
    note("The trace has receives with MPI_ANY_TAG: tags are omitted everywhere, so messages between two ranks are "
         "matched in the order they were sent.");
}

std::optional<std::int64_t> Renderer::tagOf(const Case& k, const std::string& key) const {
  if (!useTags_) return std::nullopt;
  auto it = k.values.find(key);
  if (it == k.values.end()) return std::nullopt;
  return static_cast<std::int64_t>(it->second.value);
}

Renderer::Partner Renderer::partner(const Expr& v, const RankList& r, bool source) {
  Partner out;
  std::int64_t rank = 0;
  if (v.kind == Expr::Kind::GridPeer || v.kind == Expr::Kind::RelationPeer) {  // relative to the acting task (t)
    out.relative = true;
    data d;
    d.set("single", true);
    d.set("rank", v.kind == Expr::Kind::GridPeer ? gridPeerText(v.grid, "t") : relationPeerText(v.relation, "t"));
    out.text = fill("tasks", d);
    return out;
  }
  if (v.kind == Expr::Kind::ProgressionPeer) {  // (t + the progression) MOD num_tasks
    Expr offsets = v;
    offsets.kind = Expr::Kind::Progression;
    out.relative = true;
    data d;
    d.set("single", true);
    d.set("rank", fmt::format("(t + {}) MOD num_tasks", intText(offsets)));
    out.text = fill("tasks", d);
    return out;
  }
  if (v.kind == Expr::Kind::Formula || v.kind == Expr::Kind::Progression) {
    data d;
    d.set("single", true);
    d.set("rank", factor(intText(v)));
    out.text = fill("tasks", d);
    return out;
  }
  if (scaleFree() && v.kind == Expr::Kind::Const) {
    // A scale-free program keeps the application's wildcard receives (extrap/ScaleFree.h):
    // which sender each matches is decided per rank at one scale, no formula of the grid,
    // and a RECEIVE must name its sender.
    if (source && static_cast<std::int64_t>(v.value) == kAnySource)
      throw std::invalid_argument("a receive from MPI_ANY_SOURCE: a scale-free coNCePTuaL program cannot name the "
                                  "sender it matches (which sender that is is decided per rank at one scale, not by a "
                                  "formula of the grid); write C (-o bench.c), or give the target rank count (--ranks P)");
    rank = static_cast<std::int64_t>(v.value);
    if (rank < 0) {
      out.valid = false;
      return out;
    }
    out.text = singleDesc(rank).text;
    return out;
  }
  if (v.kind == Expr::Kind::RankOffset) {
    if (r.size() > 1) {
      out.relative = true;
      data d;
      d.set("single", true);
      d.set("rank", peerOffset(v.offset, r));
      out.text = fill("tasks", d);
      return out;
    }
    rank = ((*r.first() + v.offset) % p_.numRanks + p_.numRanks) % p_.numRanks;
  } else {
    rank = static_cast<std::int64_t>(v.value);
    if (source && rank == kAnySource)
      throw std::invalid_argument("a receive from MPI_ANY_SOURCE is left in the program: coNCePTuaL needs the "
                                  "actual source (run the resolve-wildcards pass)");
    if (rank < 0 || rank >= p_.numRanks) {
      out.valid = false;
      return out;
    }
  }
  out.text = singleDesc(rank).text;
  return out;
}

std::vector<std::string> Renderer::sendStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                             bool async, Param countP, Param typeP,
                                             Param tagP) {
  std::vector<Case> cs = cases(ranks,
                               {{"dest", param(c, Param::Dest)},
                                {"count", param(c, countP)},
                                {"type", param(c, typeP)},
                                {"tag", param(c, tagP)}},
                               idx, {}, true);
  // Every rank posts one request per execution, whichever case applies.
  if (async) addRequests(ranks, 1);
  return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
    if (!k.values.count("dest")) throw std::invalid_argument("a send without a destination");
    Partner to = partner(k.values.at("dest"), k.ranks, false);
    if (!to.valid) {
      note("Sends to MPI_PROC_NULL are dropped.");
      return {};
    }
    Desc t = acting(k.ranks, to.relative, k.splits);
    data d;
    d.set("tasks", t.text);
    d.set("s", t.single ? "S" : "");
    d.set("async", async);
    d.set("message", messageOf(k, "count", "type", "tag"));
    d.set("target", to.text);
    return {fill("send", d)};
  });
}

std::int64_t Renderer::bytesOf(const Case& k, const std::string& count, const std::string& type) const {
  auto n = k.values.find(count);
  if (n == k.values.end()) return 0;
  auto t = k.values.find(type);
  const std::int64_t size = t == k.values.end() ? 1 : typeSize(t->second);
  const auto bytes = static_cast<std::int64_t>(std::llround(n->second.value)) * size;
  return std::max<std::int64_t>(bytes, 0);
}

std::vector<std::string> Renderer::recvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                             bool async, Param countP, Param typeP, Param tagP) {
  // A RECEIVE names the message it matches (§5.1 item 6): the size sent, where the
  // traversal knows it differs from the size posted.
  const bool sent = c.receivedBytes.has_value();
  std::vector<Case> cs = cases(ranks,
                               {{"source", param(c, Param::Source)},
                                {"count", sent ? &*c.receivedBytes : param(c, countP)},
                                {"type", sent ? nullptr : param(c, typeP)},
                                {"tag", param(c, tagP)}},
                               idx, {}, true);
  if (async) addRequests(ranks, 1);
  return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
    if (!k.values.count("source")) throw std::invalid_argument("a receive without a source");
    Partner from = partner(k.values.at("source"), k.ranks, true);
    if (!from.valid) {
      note("Receives from MPI_PROC_NULL are dropped.");
      return {};
    }
    // ALL TASKS cannot receive (§3.2): the receivers are a target-position description.
    Desc t = target(k.ranks, "t", from.relative, k.splits);
    data d;
    d.set("tasks", t.text);
    d.set("s", t.single ? "S" : "");
    d.set("async", async);
    d.set("message", messageOf(k, "count", "type", "tag"));
    d.set("source", from.text);
    return {fill("receive", d)};
  });
}

// MPI_Sendrecv: asynchronous send and receive, then AWAIT (§5.2).
std::vector<std::string> Renderer::sendrecvStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx) {
  const bool replace = c.op == Op::SendrecvReplace;
  std::vector<std::string> out = sendStmts(c, ranks, idx, true);
  std::vector<std::string> recv =
      recvStmts(c, ranks, idx, true, replace ? Param::Count : Param::RecvCount,
                replace ? Param::Datatype : (param(c, Param::RecvType) ? Param::RecvType : Param::Datatype),
                param(c, Param::RecvTag) ? Param::RecvTag : Param::Tag);
  out.insert(out.end(), recv.begin(), recv.end());
  RankList busy = busyRanks(ranks);
  if (!busy.empty()) out.push_back(awaitStmt(busy));
  completeRequests(ranks, -1);
  return out;
}

}  // namespace tracegen::gen::conceptual
