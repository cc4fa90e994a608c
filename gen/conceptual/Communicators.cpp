// The coNCePTuaL backend's communicators and topologies, which the language has neither of: a
// collective's communicator is the members of each of its instances, its constructors leave only a
// note, and a neighbourhood collective is messages to and from each neighbour of the traced
// topology.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

void Renderer::communicator(const CallStmt& c, const RankList&) {
  // MPI_Comm_free and the group calls: no communication, only the computation before them (§5.3).
  if (opInfo(c.op).kind != OpKind::CommCreate) return;
  if (c.op != Op::CommSplit && c.op != Op::CommDup && c.op != Op::CommCreate)
    note(fmt::format("coNCePTuaL has no communicators or process topologies: {} is not replayed. Its "
                     "communicator's collectives become collectives of its members' tasks and its "
                     "neighbours' messages name them by task number (the trace's world ranks, in the "
                     "numbering the library gave the application), the nearest equivalent.",
                     opName(c.op)));
}

// The members of each communicator instance among `ranks`, for a case's communicator id.
std::vector<RankList> Renderer::groupsOf(const Case& k, const RankList& ranks, const CallStmt& c) {
  const std::int64_t id = k.values.count("comm") ? static_cast<std::int64_t>(k.values.at("comm").value) : kCommWorld;
  if (id == kCommSelf) return {};
  if (id == kCommWorld) return {ranks == all_ ? all_ : complete(all_, ranks, c)};
  const Communicator* comm = nullptr;
  for (const auto& x : p_.comms)
    if (x.id == id) comm = &x;
  if (!comm) throw std::invalid_argument(fmt::format("{}: unknown communicator {}", opName(c.op), id));
  std::vector<RankList> out;
  for (const auto& inst : comm->instances) {
    if (!inst.intersects(ranks)) continue;
    out.push_back(inst.isSubsetOf(ranks) ? inst : complete(inst, ranks, c));
  }
  return out;
}

RankList Renderer::complete(const RankList& instance, const RankList& ranks, const CallStmt& c) {
  note(fmt::format("A {} whose participants are split over several statements is replayed by each part on its "
                   "own.",
                   opName(c.op)));
  return RankList::intersect(instance, ranks);
}

const Renderer::RankNeighbours& Renderer::neighboursOf(std::int64_t comm, Rank r) {
  auto key = std::pair{comm, r};
  auto it = neighbours_.find(key);
  if (it != neighbours_.end()) return it->second;
  RankNeighbours n;
  if (p_.trace) topologyNeighbours(*p_.trace, r, comm, n.sources, n.destinations, p_.source);
  return neighbours_.emplace(key, std::move(n)).first->second;
}

std::vector<std::string> Renderer::neighborStmts(const CallStmt& c, const RankList& ranks, std::string& detail) {
  const Op op = blockingForm(c.op);
  auto scalar = [&](Param p, Rank r, double fallback) {
    const Expr* e = param(c, p);
    return e ? valueAt(*e, r) : fallback;
  };
  auto element = [&](Param p, std::size_t i, Rank r) -> std::optional<double> {
    auto v = c.vectors.find(p);
    if (v == c.vectors.end() || v->second.empty()) return std::nullopt;
    return valueAt(v->second[std::min(i, v->second.size() - 1)], r);
  };
  auto size = [&](double type) { return typeSize(Expr::constant(type)); };
  // The bytes of block i on the send or the receive side of rank r.
  auto block = [&](bool send, std::size_t i, Rank r) -> std::int64_t {
    const double type = send ? scalar(Param::Datatype, r, 0) : scalar(Param::RecvType, r, scalar(Param::Datatype, r, 0));
    double count = send ? scalar(Param::Count, r, 0) : scalar(Param::RecvCount, r, scalar(Param::Count, r, 0));
    double t = type;
    const bool vectorSend = op == Op::NeighborAlltoallv || op == Op::NeighborAlltoallw;
    if ((send && vectorSend) || (!send && op != Op::NeighborAllgather && op != Op::NeighborAlltoall))
      count = element(send ? Param::SendCounts : Param::RecvCounts, i, r).value_or(0);
    if (op == Op::NeighborAlltoallw) t = element(send ? Param::SendTypes : Param::RecvTypes, i, r).value_or(0);
    return std::max<std::int64_t>(0, static_cast<std::int64_t>(std::llround(count)) * size(t));
  };
  std::vector<std::string> out;
  ranks.forEach([&](Rank r) {
    const Expr* commE = param(c, Param::Comm);
    const auto comm = static_cast<std::int64_t>(commE ? valueAt(*commE, r) : static_cast<double>(kCommWorld));
    const RankNeighbours& n = neighboursOf(comm, r);
    auto one = [&](bool send, std::size_t i, Rank peer) {
      if (peer == kProcNull || peer < 0) return;
      data d;
      d.set("tasks", singleDesc(r).text);
      d.set("s", "S");
      d.set("async", true);
      d.set("message", message(block(send, i, r), std::nullopt));
      d.set(send ? "target" : "source", singleDesc(peer).text);
      out.push_back(fill(send ? "send" : "receive", d));
    };
    for (std::size_t i = 0; i < n.destinations.size(); ++i) one(true, i, n.destinations[i]);
    for (std::size_t i = 0; i < n.sources.size(); ++i) one(false, i, n.sources[i]);
    return true;
  });
  if (!out.empty()) out.push_back(awaitStmt(ranks));
  detail = "its blocks as messages to and from each neighbour";
  note("coNCePTuaL has no process topologies: a neighbourhood collective (MPI_Neighbor_alltoall, ...) is replayed "
       "as asynchronous messages of the same bytes to each destination and from each source of the rank's "
       "topology (MPI_PROC_NULL neighbours move nothing), which the ranks then await.");
  return out;
}

}  // namespace tracegen::gen::conceptual
