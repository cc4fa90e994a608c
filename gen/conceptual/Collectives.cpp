// The coNCePTuaL backend's collectives at one scale (ScaleFree.cpp has the scale-free ones):
// MULTICAST, REDUCE and SYNCHRONIZE over the members of each communicator instance (§5.3-5.4),
// vector collectives by their mean bytes, MPI_Scan as a chain of messages, and nonblocking
// collectives as the blocking form at the call that starts them.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

void Renderer::collective(const CallStmt& c, const RankList& ranks) {
  cur_.call = collectiveStmts(c, ranks, cur_.idx, cur_.detail);
}

void Renderer::nonblockingCollective(const CallStmt& c, const RankList& ranks) {
  // coNCePTuaL has no nonblocking collectives: the blocking form at the initiating call,
  // which keeps the communicator's order of collectives (MPI orders them by their start).
  // Its request counts as outstanding, completed at once, so that the waits that complete
  // it do not take another request's place (a later AWAIT, never an earlier one).
  CallStmt blocking = c;
  blocking.op = blockingForm(c.op);
  cur_.call = collectiveStmts(blocking, ranks, cur_.idx, cur_.detail);
  addRequests(ranks, 1);
  if (cur_.detail.empty())
    cur_.detail = fmt::format("replayed as {} here: coNCePTuaL has no nonblocking collectives", opName(blocking.op));
  note("coNCePTuaL has no nonblocking collectives: MPI_Ibcast, MPI_Iallreduce, ... are replayed as the blocking "
       "collective at the call that starts them (the order of a communicator's collectives stays), and the "
       "waits that complete them find them done.");
}

// Per-member bytes of a collective, from a scalar count or, averaged, from a vector (§5.4).
double Renderer::meanOver(const RankList& g, const std::function<double(Rank)>& f) {
  double sum = 0;
  Rank n = 0;
  g.forEach([&](Rank r) {
    sum += f(r);
    ++n;
    return true;
  });
  return n ? sum / static_cast<double>(n) : 0;
}

// Count times datatype size of a rank's own contribution (0 without a count).
double Renderer::scalarBytes(const CallStmt& c, Rank r) const {
  const Expr* n = param(c, Param::Count);
  const Expr* t = param(c, Param::Datatype);
  if (!n) return 0;
  return valueAt(*n, r) * (t ? static_cast<double>(typeSize(Expr::constant(valueAt(*t, r)))) : 1.0);
}

double Renderer::vectorBytes(const CallStmt& c, Param vec, Param typeP, Rank r) const {
  auto it = c.vectors.find(vec);
  if (it == c.vectors.end()) return 0;
  const Expr* t = param(c, typeP);
  const double size = t ? static_cast<double>(typeSize(Expr::constant(valueAt(*t, r)))) : 1.0;
  double sum = 0;
  for (const auto& e : it->second) sum += std::max(0.0, valueAt(e, r));
  return sum * size;
}

// MPI_Alltoallw: sum over the peers of count x that peer's datatype size, on the send side
// (the receive side where the trace has no send side: MPI_IN_PLACE).
double Renderer::typedVectorBytes(const CallStmt& c, Rank r) const {
  const bool send = c.vectors.count(Param::SendCounts) && c.vectors.count(Param::SendTypes);
  auto counts = c.vectors.find(send ? Param::SendCounts : Param::RecvCounts);
  auto types = c.vectors.find(send ? Param::SendTypes : Param::RecvTypes);
  if (counts == c.vectors.end() || types == c.vectors.end() || types->second.empty()) return 0;
  double sum = 0;
  for (std::size_t i = 0; i < counts->second.size(); ++i) {
    const Expr& t = types->second[std::min(i, types->second.size() - 1)];
    sum += std::max(0.0, valueAt(counts->second[i], r)) * static_cast<double>(typeSize(Expr::constant(valueAt(t, r))));
  }
  return sum;
}

std::string Renderer::multicast(const Desc& from, const std::string& to, std::int64_t bytes) {
  data d;
  d.set("tasks", from.text);
  d.set("s", from.single ? "S" : "");
  d.set("message", message(bytes, std::nullopt));
  d.set("target", to);
  return fill("multicast", d);
}

// One root to the other members: MPI_Bcast (§5.3).
std::string Renderer::rootToOthers(Rank root, const RankList& g, std::int64_t bytes) {
  RankList others = RankList::subtract(g, RankList::single(root));
  if (others.empty()) return "";
  std::string to = g == all_ ? allOther() : target(others, "d").text;
  return multicast(singleDesc(root), to, bytes);
}

// Every member to every member: MPI_Alltoall (§5.3).
std::string Renderer::allToAll(const RankList& g, std::int64_t bytes) {
  if (g.size() < 2) return "";
  if (g == all_) return multicast(acting(g, false), allOther(), bytes);
  return multicast(acting(g, false), target(g, "d").text, bytes);
}

// `<g> REDUCE k DOUBLEWORDS [TO root]` (§5.3); rootText is a task description or empty.
std::string Renderer::reduce(const RankList& g, std::int64_t count, std::int64_t typeBytes, const std::string& rootText) {
  // 8-byte items as DOUBLEWORDS, 4-byte items as INTEGERS, anything else as 8-byte words.
  bool doubles = true;
  std::int64_t items = count;
  if (typeBytes == 4) {
    doubles = false;
  } else if (typeBytes != 8) {
    items = (count * typeBytes + 7) / 8;
    note("Reductions of types other than 4- and 8-byte numbers reduce the same number of bytes as DOUBLEWORDS.");
  }
  Desc t = acting(g, false);
  data d;
  d.set("tasks", t.text);
  d.set("s", t.single ? "S" : "");
  d.set("count", scaledBytes(items));
  d.set("doubles", doubles);
  d.set("rooted", !rootText.empty());
  d.set("root", rootText);
  return fill("reduce", d);
}

std::vector<std::string> Renderer::collectiveStmts(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx,
                                                   std::string& detail) {
  if (scaleFree()) {
    if (isNeighborCollective(c.op)) scaleFreeRefusal(c, "a neighbourhood collective");
    return scaleFreeCollective(c, ranks, idx);
  }
  if (isNeighborCollective(c.op)) return neighborStmts(c, ranks, detail);
  // A user-defined reduction operator (the recorder's 1000 + order of first use): coNCePTuaL's
  // REDUCE has no operator, so the same bytes are reduced, said at the call.
  if (const Expr* o = param(c, Param::ReduceOp); o && o->kind == Expr::Kind::Const && o->value >= 1000) {
    detail = fmt::format("the application's user-defined operator {}: a REDUCE of the same bytes",
                         static_cast<std::int64_t>(o->value) - 1000);
    note("A reduction with a user-defined operator (MPI_Op_create) is a REDUCE of the same bytes: coNCePTuaL's "
         "REDUCE names no operator.");
  }
  std::vector<Case> cs = cases(ranks,
                               collectiveParams(c),
                               idx, memberParams(c));
  return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
    std::vector<std::string> out;
    // Vectors and counts as this case's ranks pass them, at this case's executions.
    const CallStmt at = specialised(c, k);
    for (const RankList& g : groupsOf(k, k.ranks, c)) {
      Rank root = *g.first();
      if (k.values.count("root")) {
        root = static_cast<Rank>(k.values.at("root").value);
        if (!g.contains(root)) {
          note(fmt::format("A {} whose root is not among the statement's ranks is rooted at its lowest member.",
                           opName(c.op)));
          root = *g.first();
        }
      }
      const std::int64_t bytes = bytesOf(k, "count", "type");
      const std::int64_t recvBytes = k.values.count("recvcount") ? bytesOf(k, "recvcount", k.values.count("recvtype") ? "recvtype" : "type") : bytes;
      std::string s;
      switch (c.op) {
        case Op::Barrier: {
          Desc t = acting(g, false);
          data d;
          d.set("tasks", t.text);
          d.set("s", t.single ? "S" : "");
          if (g.size() > 1) s = fill("synchronize", d);
          break;
        }
        case Op::Bcast:
          s = rootToOthers(root, g, bytes);
          break;
        case Op::Scatter:
          s = rootToOthers(root, g, recvBytes);
          note("MPI_Scatter is a MULTICAST of one member's share from the root (MPI_Bcast): receivers get their "
               "bytes, the root sends less than a real scatter (§5.3).");
          break;
        case Op::Scatterv: {
          const auto avg = static_cast<std::int64_t>(
              std::llround(vectorBytes(at, Param::SendCounts, Param::Datatype, root) / static_cast<double>(g.size())));
          s = rootToOthers(root, g, avg);
          detail = "averaged share";
          note("MPI_Scatterv is a MULTICAST of the average share from the root (§5.4).");
          break;
        }
        case Op::Reduce:
        case Op::Allreduce: {
          const std::int64_t count = static_cast<std::int64_t>(std::llround(k.values.count("count") ? k.values.at("count").value : 0));
          const std::int64_t size = k.values.count("type") ? typeSize(k.values.at("type")) : 8;
          if (g.size() > 1) s = reduce(g, count, size, c.op == Op::Reduce ? singleDesc(root).text : std::string());
          break;
        }
        case Op::Alltoall:
        case Op::Allgather:
          s = allToAll(g, bytes);
          break;
        case Op::Allgatherv: {
          const auto avg = static_cast<std::int64_t>(std::llround(meanOver(g, [&](Rank r) { return scalarBytes(at, r); })));
          s = allToAll(g, avg);
          detail = "averaged contribution";
          note("MPI_Allgatherv is a many-to-many MULTICAST of the average contribution (MPI_Alltoall, §5.4).");
          break;
        }
        case Op::Alltoallv: {
          const double total = meanOver(g, [&](Rank r) { return vectorBytes(at, Param::SendCounts, Param::Datatype, r); }) *
                               static_cast<double>(g.size());
          const auto avg = static_cast<std::int64_t>(std::llround(total / static_cast<double>(g.size() * g.size())));
          s = allToAll(g, avg);
          detail = "averaged per pair";
          note("MPI_Alltoallv is a many-to-many MULTICAST of the average bytes per rank pair (MPI_Alltoall, §5.4).");
          break;
        }
        case Op::Alltoallw: {
          // Per-peer counts and datatypes: the bytes a rank sends, summed over its peers.
          const double total = meanOver(g, [&](Rank r) { return typedVectorBytes(at, r); }) * static_cast<double>(g.size());
          const auto avg = static_cast<std::int64_t>(std::llround(total / static_cast<double>(g.size() * g.size())));
          s = allToAll(g, avg);
          detail = "averaged per pair";
          note("MPI_Alltoallw is a many-to-many MULTICAST of the average bytes per rank pair (MPI_Alltoall, §5.4).");
          break;
        }
        case Op::Gather:
          if (g.size() > 1) s = multicast(acting(g, false), singleDesc(root).text, bytes);
          break;
        case Op::Gatherv: {
          const auto avg = static_cast<std::int64_t>(std::llround(meanOver(g, [&](Rank r) { return scalarBytes(at, r); })));
          if (g.size() > 1) s = multicast(acting(g, false), singleDesc(root).text, avg);
          detail = "averaged contribution";
          note("MPI_Gatherv is a many-to-one MULTICAST of the average contribution (§5.4).");
          break;
        }
        case Op::ReduceScatter: {
          std::vector<std::string> rs = reduceScatter(at, k, g);
          out.insert(out.end(), rs.begin(), rs.end());
          break;
        }
        case Op::Scan: {
          std::vector<std::string> chain = scanChain(g, bytes);
          out.insert(out.end(), chain.begin(), chain.end());
          note("MPI_Scan has no coNCePTuaL equivalent: it is a blocking chain of messages along the members (§5.3).");
          break;
        }
        case Op::Exscan: {
          std::vector<std::string> chain = scanChain(g, bytes);
          out.insert(out.end(), chain.begin(), chain.end());
          note("MPI_Exscan has no coNCePTuaL equivalent: it is a blocking chain of messages along the members, as "
               "MPI_Scan (§5.3).");
          break;
        }
        case Op::ReduceScatterBlock: {
          // Every member contributes count x members elements and keeps its block of count:
          // the nearest the language has is a REDUCE of the whole vector to every member.
          const std::int64_t count = static_cast<std::int64_t>(std::llround(k.values.count("count") ? k.values.at("count").value : 0));
          const std::int64_t size = k.values.count("type") ? typeSize(k.values.at("type")) : 8;
          if (g.size() > 1)
            if (auto total = checkedMul(count, static_cast<std::int64_t>(g.size()))) s = reduce(g, *total, size, std::string());
          detail = "the whole vector reduced to every member";
          note("MPI_Reduce_scatter_block has no coNCePTuaL equivalent: it is a REDUCE of the whole vector (each "
               "member's block times the members) to every member, which moves more than the scatter would.");
          break;
        }
        default:
          throw std::invalid_argument(fmt::format("no coNCePTuaL lowering for {}", opName(c.op)));
      }
      if (!s.empty()) out.push_back(s);
    }
    return out;
  });
}

// The elements of a collective's count and type vectors that change from one execution to the
// next (the others are evaluated per member as they are).
std::vector<std::pair<std::string, const Expr*>> Renderer::memberParams(const CallStmt& c) {
  std::vector<std::pair<std::string, const Expr*>> out;
  for (Param p : {Param::SendCounts, Param::RecvCounts, Param::SendTypes, Param::RecvTypes})
    if (auto it = c.vectors.find(p); it != c.vectors.end())
      for (std::size_t i = 0; i < it->second.size(); ++i)
        if (!it->second[i].perExecutionInvariant()) out.push_back({memberKey(p, i), &it->second[i]});
  return out;
}

// MPI_Reduce_scatter: one REDUCE to each member (§5.4).
std::vector<std::string> Renderer::reduceScatter(const CallStmt& c, const Case& k, const RankList& g) {
  const std::int64_t size = k.values.count("type") ? typeSize(k.values.at("type")) : 8;
  std::vector<std::int64_t> counts;
  auto it = c.vectors.find(Param::RecvCounts);
  const Rank first = *g.first();
  if (it != c.vectors.end())
    for (const auto& e : it->second) counts.push_back(static_cast<std::int64_t>(std::llround(valueAt(e, first))));
  counts.resize(static_cast<std::size_t>(g.size()), counts.empty() ? 0 : counts.back());
  std::vector<Rank> members = g.toVector();
  const bool equal = std::adjacent_find(counts.begin(), counts.end(), std::not_equal_to<>()) == counts.end();
  if (equal && g.size() > 1) {
    // FOR EACH member IN {members}: one reduction to each, as one loop.
    std::vector<std::int64_t> m(members.begin(), members.end());
    bool arithmetic = m.size() < 3 || std::adjacent_find(m.begin() + 1, m.end(), [&](std::int64_t a, std::int64_t b) {
                                        return b - a != m[1] - m[0];
                                      }) == m.end();
    if (arithmetic || m.size() <= 256) {
      data root;
      root.set("single", true);
      root.set("rank", "member");
      data loop;
      loop.set("var", "member");
      loop.set("range", rangeText(m));
      loop.set("body", body({Piece{{}, {reduce(g, counts[0], size, fill("tasks", root))}}}));
      return {fill("foreach", loop)};
    }
  }
  std::vector<std::string> out;
  if (members.size() > 64) {
    std::int64_t total = 0;
    for (auto x : counts) total += x;
    note("An MPI_Reduce_scatter with more than 64 unequal shares is an all-reduce of the whole vector (§5.4).");
    out.push_back(reduce(g, total, size, std::string()));
    return out;
  }
  for (std::size_t i = 0; i < members.size(); ++i) out.push_back(reduce(g, counts[i], size, singleDesc(members[i]).text));
  return out;
}

// MPI_Scan: a blocking chain member -> next member, acyclic, so it serialises (§5.3).
std::vector<std::string> Renderer::scanChain(const RankList& g, std::int64_t bytes) {
  if (g.size() < 2) return {};
  std::vector<Rank> m = g.toVector();
  const Rank stride = m[1] - m[0];
  bool regular = std::adjacent_find(m.begin() + 1, m.end(), [&](Rank a, Rank b) { return b - a != stride; }) == m.end();
  auto chainStmt = [&](const Desc& from, const std::string& to) {
    data d;
    d.set("tasks", from.text);
    d.set("s", from.single ? "S" : "");
    d.set("message", message(bytes, std::nullopt));
    d.set("target", to);
    return fill("chain", d);
  };
  RankList senders = RankList::subtract(g, RankList::single(m.back()));
  if (regular && senders.size() > 1) {
    data d;
    d.set("single", true);
    d.set("rank", peerOffset(stride, senders));
    return {chainStmt(acting(senders, true), fill("tasks", d))};
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 1 < m.size(); ++i) out.push_back(chainStmt(singleDesc(m[i]), singleDesc(m[i + 1]).text));
  return out;
}

}  // namespace tracegen::gen::conceptual
