// The C backend's collectives: blocking, nonblocking and neighbourhood, with their vectors
// of counts and displacements (inline, by table, or packed by the runtime).
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

Lowered CWriter::collectiveText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  if (isNeighborCollective(c.op)) return neighborCollective(x, d);
  Needs needs;
  std::string comment;  // above the call, for a user-defined reduction operator
  d.set("comm", needs.take(comm(x)));
  auto reduction = [&] { comment = setReduceOp(x, d, needs); };
  auto root = [&] { d.set("root", needs.take(peer(x, need(c, Param::Root), "root"))); };
  auto lowered = [&](const std::string& name) { return Lowered{withUserOpComment(comment, render(name, d)), needs}; };
  switch (c.op) {
    case Op::Barrier:
      return lowered("call/barrier");
    case Op::Bcast:
      needs |= message(x, d);
      root();
      return lowered("call/bcast");
    case Op::Reduce:
      needs |= message(x, d);
      sendsMessage();
      reduction();
      root();
      return lowered("call/reduce");
    case Op::Allreduce:
      needs |= message(x, d);
      sendsMessage();
      reduction();
      return lowered("call/allreduce");
    case Op::Scan:
      needs |= message(x, d);
      sendsMessage();
      reduction();
      return lowered("call/scan");
    case Op::Exscan:
    case Op::ReduceScatterBlock:  // count: the block each member receives
      needs |= message(x, d);
      if (c.op == Op::Exscan) sendsMessage();
      else sendsMessage(/*blocks=*/true);
      reduction();
      return lowered(c.op == Op::Exscan ? "call/exscan" : "call/reduce_scatter_block");
    case Op::Gather:
    case Op::Scatter:
      needs |= message(x, d);
      if (c.op == Op::Gather) sendsMessage();  // a scatter's root sends; its time is the root's
      needs |= receiveSide(x, d);
      root();
      return lowered("call/gather");
    case Op::Allgather:
    case Op::Alltoall:
      needs |= message(x, d);
      sendsMessage(/*blocks=*/c.op == Op::Alltoall);
      needs |= receiveSide(x, d);
      return lowered("call/allgather");
    case Op::Gatherv:
    case Op::Allgatherv: {
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      const std::size_t n = vectorLength(c, {Param::RecvCounts, Param::Displs});
      d.set("n", std::to_string(n));
      needs |= countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::RecvCount));
      // ScalaTrace stores MPI_Allgatherv's receive counts where its displacements belong,
      // so they are laid out one after the other instead (see pack_displs).
      if (c.op == Op::Gatherv && !packedDispls(x, Param::Displs, Param::RecvCounts, param(c, Param::RecvCount), n))
        needs |= countArray(x, d, "displs", Param::Displs, n, nullptr);
      else needs.displs = true;
      if (c.op == Op::Gatherv) root();
      return lowered(c.op == Op::Gatherv ? "call/gatherv" : "call/allgatherv");
    }
    case Op::Scatterv: {
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      const std::size_t n = vectorLength(c, {Param::SendCounts, Param::Displs});
      d.set("n", std::to_string(n));
      needs |= countArray(x, d, "sendcounts", Param::SendCounts, n, param(c, Param::Count));
      if (!packedDispls(x, Param::Displs, Param::SendCounts, param(c, Param::Count), n))
        needs |= countArray(x, d, "displs", Param::Displs, n, nullptr);
      else needs.displs = true;
      root();
      return lowered("call/scatterv");
    }
    case Op::Alltoallv: {
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      if (!c.evenVectors.empty()) {  // a scale-free benchmark's even split (gen/Program.h)
        const auto side = [&](Param p) {
          auto it = c.evenVectors.find(p);
          if (it == c.evenVectors.end())
            throw std::logic_error(fmt::format("{}: an even split of {} only", label(c), paramName(p)));
          return needs.take(count(x, &it->second, std::string(paramName(p))));
        };
        d.set("sendcount", side(Param::SendCounts));
        d.set("recvcount", side(Param::RecvCounts));
        return lowered("call/alltoallv_even");
      }
      const std::size_t n =
          vectorLength(c, {Param::SendCounts, Param::Displs, Param::RecvCounts, Param::RecvDispls});
      d.set("n", std::to_string(n));
      needs |= countArray(x, d, "sendcounts", Param::SendCounts, n, param(c, Param::Count));
      if (!packedDispls(x, Param::Displs, Param::SendCounts, param(c, Param::Count), n))
        needs |= countArray(x, d, "sdispls", Param::Displs, n, nullptr);
      else needs.displs = true;
      needs |= countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::RecvCount));
      if (!packedDispls(x, Param::RecvDispls, Param::RecvCounts, param(c, Param::RecvCount), n))
        needs |= countArray(x, d, "rdispls", Param::RecvDispls, n, nullptr);
      else needs.displs = true;
      return lowered("call/alltoallv");
    }
    case Op::Alltoallw:
      needs |= alltoallwArrays(x, d);
      return lowered("call/alltoallw");
    case Op::ReduceScatter: {
      d.set("datatype", needs.take(datatype(x, need(c, Param::Datatype), "datatype")));
      reduction();
      const std::size_t n = vectorLength(c, {Param::RecvCounts});
      d.set("n", std::to_string(n));
      needs |= countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::Count));
      return lowered("call/reduce_scatter");
    }
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled collective {}", opName(c.op)));
}

// The reduction operator of a collective (`op`), its needs added to `needs`; the comment above
// the call for a user-defined one (reduceOp).
std::string CWriter::setReduceOp(const CallCtx& x, mus::data& d, Needs& needs) {
  ReduceOp op = reduceOp(x, need(x.c, Param::ReduceOp));
  d.set("op", needs.take(std::move(op.op)));
  return std::move(op.comment);
}

// A nonblocking collective (MPI_Ibcast, ...): the blocking form's arguments and a new request
// in the ring, completed by the waits the trace recorded. The count and displacement arrays
// of the vector forms must stay as they are until the request completes, so they live with
// the request's slot (request_ints), not on the stack.
Lowered CWriter::nonblockingCollectiveText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  if (isNeighborCollective(c.op)) return neighborCollective(x, d);
  // Every one but MPI_Ibarrier receives into a slice of recv_buf of its own, as MPI_Irecv.
  Needs needs{.newRequest = true, .recvSlices = c.op != Op::Ibarrier};
  std::string comment;  // above the call, for a user-defined reduction operator
  d.set("comm", needs.take(comm(x)));
  auto reduction = [&] { comment = setReduceOp(x, d, needs); };
  auto root = [&] { d.set("root", needs.take(peer(x, need(c, Param::Root), "root"))); };
  auto lowered = [&](const std::string& name) { return Lowered{withUserOpComment(comment, render(name, d)), needs}; };
  auto arrays = [&](std::initializer_list<std::pair<Param, const char*>> ps, std::initializer_list<Param> lengths) {
    const std::size_t n = vectorLength(c, lengths);
    d.set("n", std::to_string(n));
    needs.requestArrays = true;
    Param counts = Param::RecvCounts;  // the counts of the displacements that follow them in `ps`
    const Expr* countsFallback = nullptr;
    for (auto [p, name] : ps) {
      const bool isDispls = p == Param::Displs || p == Param::RecvDispls;
      if (isDispls && packedDispls(x, p, counts, countsFallback, n)) {
        needs.displs = true;
        continue;
      }
      const Expr* fallback = nullptr;
      if (p == Param::SendCounts) fallback = param(c, Param::Count);
      if (p == Param::RecvCounts) fallback = param(c, c.op == Op::IreduceScatter ? Param::Count : Param::RecvCount);
      if (!isDispls) counts = p, countsFallback = fallback;
      needs |= countArray(x, d, name, p, n, fallback);
    }
  };
  switch (c.op) {
    case Op::Ibarrier:
      return lowered("call/ibarrier");
    case Op::Ibcast:
      needs |= message(x, d);
      root();
      return lowered("call/ibcast");
    case Op::Ireduce:
      needs |= message(x, d);
      reduction();
      root();
      return lowered("call/ireduce");
    case Op::Iallreduce:
    case Op::Iscan:
    case Op::Iexscan:
    case Op::IreduceScatterBlock:  // count: the block each member receives
      needs |= message(x, d);
      reduction();
      return lowered("call/ireduction");
    case Op::Igather:
    case Op::Iscatter:
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      root();
      return lowered("call/igather");
    case Op::Iallgather:
    case Op::Ialltoall:
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      return lowered("call/iallgather");
    case Op::Igatherv:
    case Op::Iallgatherv:
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      arrays({{Param::RecvCounts, "recvcounts"}, {Param::Displs, "displs"}}, {Param::RecvCounts, Param::Displs});
      if (c.op == Op::Igatherv) root();
      return lowered(c.op == Op::Igatherv ? "call/igatherv" : "call/iallgatherv");
    case Op::Iscatterv:
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      arrays({{Param::SendCounts, "sendcounts"}, {Param::Displs, "displs"}}, {Param::SendCounts, Param::Displs});
      root();
      return lowered("call/iscatterv");
    case Op::Ialltoallv:
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      arrays({{Param::SendCounts, "sendcounts"}, {Param::Displs, "sdispls"}, {Param::RecvCounts, "recvcounts"},
              {Param::RecvDispls, "rdispls"}},
             {Param::SendCounts, Param::Displs, Param::RecvCounts, Param::RecvDispls});
      return lowered("call/ialltoallv");
    case Op::Ialltoallw:
      needs |= alltoallwArrays(x, d);
      needs.requestArrays = true;
      return lowered("call/ialltoallw");
    case Op::IreduceScatter:
      d.set("datatype", needs.take(datatype(x, need(c, Param::Datatype), "datatype")));
      reduction();
      arrays({{Param::RecvCounts, "recvcounts"}}, {Param::RecvCounts});
      return lowered("call/ireduce_scatter");
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled nonblocking collective {}", opName(c.op)));
}

// ---- neighbourhood collectives (docs/c-backend.md, "Neighbourhood collectives"): the
// application's call on the rebuilt topology communicator, with the recorded count (and
// datatype) vectors, one entry per source (receive side) or destination (send side of the v
// and w forms); displacements lay the blocks out one after the other. The nonblocking forms
// keep their arrays with the request (request_ints, request_types, request_aints).
Lowered CWriter::neighborCollective(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  const Op blocking = blockingForm(c.op);
  const bool nonblocking = blocking != c.op;
  Needs needs;
  d.set("comm", needs.take(comm(x)));
  if (nonblocking) {
    needs.newRequest = true;
    // The v and w forms keep their arrays with the request (request_ints, ...).
    if (blocking != Op::NeighborAllgather && blocking != Op::NeighborAlltoall) needs.requestArrays = true;
  }
  d.set("nonblocking", flag(nonblocking));
  auto typesOf = [&](Param p, std::size_t n) {
    const std::vector<Expr>* v = vec(c, p);
    if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
    std::vector<std::string> items;
    for (std::size_t i = 0; i < n; ++i)
      items.push_back(needs.take(datatype(x, (*v)[std::min(i, v->size() - 1)], fmt::format("{}{}", paramName(p), i))));
    return fmt::format("{}", fmt::join(items, ", "));
  };
  auto length = [&](Param p) {
    const std::vector<Expr>* v = vec(c, p);
    if (!v || v->empty())
      throw std::invalid_argument(fmt::format("{}: no '{}' parameter (a neighbourhood collective with no "
                                              "neighbours on that side is not generated)",
                                              label(c), paramName(p)));
    return v->size();
  };
  switch (blocking) {
    case Op::NeighborAllgather:
    case Op::NeighborAlltoall:
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      d.set("comm", needs.take(comm(x)));
      return {render("call/neighbor_allgather", d), needs};
    case Op::NeighborAllgatherv: {
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      d.set("comm", needs.take(comm(x)));
      const std::size_t nin = length(Param::RecvCounts);
      d.set("nin", std::to_string(nin));
      d.set("recvcounts", needs.take(countVector(x, Param::RecvCounts, nin, nullptr)));
      needs.displs = true;
      return {render(nonblocking ? "call/ineighbor_allgatherv" : "call/neighbor_allgatherv", d), needs};
    }
    case Op::NeighborAlltoallv: {
      needs |= message(x, d);
      needs |= receiveSide(x, d);
      d.set("comm", needs.take(comm(x)));
      const std::size_t nout = length(Param::SendCounts), nin = length(Param::RecvCounts);
      d.set("nout", std::to_string(nout));
      d.set("nin", std::to_string(nin));
      d.set("sendcounts", needs.take(countVector(x, Param::SendCounts, nout, nullptr)));
      d.set("recvcounts", needs.take(countVector(x, Param::RecvCounts, nin, nullptr)));
      needs.displs = true;
      return {render(nonblocking ? "call/ineighbor_alltoallv" : "call/neighbor_alltoallv", d), needs};
    }
    case Op::NeighborAlltoallw: {
      const std::size_t nout = length(Param::SendCounts), nin = length(Param::RecvCounts);
      d.set("nout", std::to_string(nout));
      d.set("nin", std::to_string(nin));
      d.set("sendcounts", needs.take(countVector(x, Param::SendCounts, nout, nullptr)));
      d.set("recvcounts", needs.take(countVector(x, Param::RecvCounts, nin, nullptr)));
      d.set("sendtypes", typesOf(Param::SendTypes, nout));
      d.set("recvtypes", typesOf(Param::RecvTypes, nin));
      needs.aintDispls = true;
      if (nonblocking) needs.requestAints = true;
      return {render(nonblocking ? "call/ineighbor_alltoallw" : "call/neighbor_alltoallw", d), needs};
    }
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled neighbourhood collective {}", opName(c.op)));
}

// MPI_Alltoallw's per-peer counts and datatypes. A send side the trace does not describe
// (MPI_IN_PLACE) sends what the receive side receives; the displacements, in bytes, lay the
// blocks out one after the other (pack_byte_displs).
Needs CWriter::alltoallwArrays(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  const std::size_t n = vectorLength(c, {Param::SendCounts, Param::SendTypes, Param::RecvCounts, Param::RecvTypes});
  d.set("n", std::to_string(n));
  Needs needs{.byteDispls = true};
  d.set("comm", needs.take(comm(x)));
  const Param sc = vec(c, Param::SendCounts) ? Param::SendCounts : Param::RecvCounts;
  const Param st = vec(c, Param::SendTypes) ? Param::SendTypes : Param::RecvTypes;
  d.set("sendcounts", needs.take(countVector(x, sc, n, nullptr)));
  d.set("recvcounts", needs.take(countVector(x, Param::RecvCounts, n, nullptr)));
  auto types = [&](Param p) {
    const std::vector<Expr>* v = vec(c, p);
    if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
    std::vector<std::string> items;
    for (std::size_t i = 0; i < n; ++i)
      items.push_back(needs.take(datatype(x, (*v)[std::min(i, v->size() - 1)], fmt::format("{}{}", paramName(p), i))));
    return fmt::format("{}", fmt::join(items, ", "));
  };
  d.set("sendtypes", types(st));
  d.set("recvtypes", types(Param::RecvTypes));
  return needs;
}

// Vector parameters have one element per communicator member; a missing one is filled
// from the scalar count (counts) or packed (displacements).
std::size_t CWriter::vectorLength(const CallStmt& c, std::initializer_list<Param> ps) const {
  std::size_t n = 0;
  for (Param p : ps)
    if (const auto* v = vec(c, p)) n = std::max(n, v->size());
  return n > 0 ? n : static_cast<std::size_t>(program_.numRanks);
}

// The elements of a vector of counts (or displacements) for an initializer, each through
// msg_count(): `msg_count(4), msg_count(8)`, or entries of its table by rank (countRows).
Lowered CWriter::countVector(const CallCtx& x, Param p, std::size_t n, const Expr* fallback) {
  std::vector<std::string> items;
  Needs needs{.counts = true};
  if (std::optional<std::string> table = countRows(x, p, n, fallback)) {
    for (std::size_t i = 0; i < n; ++i) {
      mus::data d;
      d.set("count", fmt::format("{}[rank][{}]", *table, i));
      items.push_back(render("expr/msg_count", d));
    }
    return {fmt::format("{}", fmt::join(items, ", ")), needs};
  }
  const std::vector<Expr>* v = vec(x.c, p);
  for (std::size_t i = 0; i < n; ++i)
    items.push_back(needs.take(count(x, v && i < v->size() ? &(*v)[i] : fallback, fmt::format("{}{}", paramName(p), i))));
  return {fmt::format("{}", fmt::join(items, ", ")), needs};
}

// A vector of counts (or displacements) for the templates of the vector collectives: `key`,
// its elements for an initializer (countVector), or where it is a table by rank `key_row`,
// the rank's row (`sendcounts_by_rank[rank]`), which the template copies through msg_count()
// in a loop: a line for the vector, where the initializer takes one per element.
Needs CWriter::countArray(const CallCtx& x, mus::data& d, const std::string& key, Param p, std::size_t n,
                          const Expr* fallback) {
  if (std::optional<std::string> table = countRows(x, p, n, fallback)) {
    d.set(key + "_row", *table + "[rank]");
    return Needs{.counts = true};
  }
  // One value for every rank (an extrapolated sort's even split, `msg_count(256)` 64 times):
  // a loop, where the template has one (`key_each`).
  if (x.c.op == Op::Alltoallv && n > kShortVector) {
    const std::vector<Expr>* v = vec(x.c, p);
    const Expr* e0 = v && !v->empty() ? &v->front() : fallback;
    bool same = e0 != nullptr;
    for (std::size_t i = 0; i < n && same; ++i) {
      const Expr* e = v && i < v->size() ? &(*v)[i] : fallback;
      same = e && e->isConst() && e0->isConst() && e->value == e0->value;
    }
    if (same) {
      Lowered each = count(x, e0, fmt::format("{}0", paramName(p)));
      d.set(key + "_each", each.text);
      return each.needs;
    }
  }
  Lowered vector = countVector(x, p, n, fallback);
  d.set(key, vector.text);
  return vector.needs;
}

// Whether a vector collective's displacements are laid out by the runtime's pack_displs (the
// blocks one after the other, in the order of the ranks): where the trace has none, and where
// the recorded ones differ by rank and are just that for every rank of the call: a formula
// explains them, so they are not spelled as choices by rank (or tables) again. Short constant
// displacements stay as recorded (`{ 0, 1, 3, 6 }` says as much as the formula; 64 of them
// do not), and cycles
// over executions are not compared. Under --msg-scale the blocks of the scaled counts are
// packed, as where the trace has no displacements.
bool CWriter::packedDispls(const CallCtx& x, Param displs, Param counts, const Expr* countsFallback, std::size_t n) const {
  const std::vector<Expr>* d = vec(x.c, displs);
  if (!d) return true;
  if (program_.scaleFree) return false;  // its values are formulas of the scale already
  const std::vector<Expr>* v = vec(x.c, counts);
  auto count = [&](std::size_t i) { return v && i < v->size() ? &(*v)[i] : countsFallback; };
  if (d->size() != n ||
      (n <= kShortVector && std::all_of(d->begin(), d->end(), [](const Expr& e) { return e.isConst(); })))
    return false;
  for (std::size_t i = 0; i < n; ++i)
    if (!plainPerRank((*d)[i]) || !count(i) || !plainPerRank(*count(i))) return false;
  bool any = false;
  for (Rank r = 0; r < program_.numRanks; ++r) {
    if (!x.ranks.contains(r)) continue;
    any = true;
    double next = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::optional<double> at = valueOfRank((*d)[i], r), size = valueOfRank(*count(i), r);
      if (!at || !size || *at != next) return false;
      next += *size;
    }
  }
  return any;
}

// A vector of counts (or displacements) of plain values by rank, one of them a choice among
// many groups (tabulatedByRank), as one table with a row per rank, the vector that rank
// passes, declared before the call: its name (`sendcounts_by_rank`). The rows of the ranks
// that do not make the call (never read) are zeros. None where an element is not a plain
// value by rank (a cycle over executions, ...) or none is such a choice, and outside a call's
// statement: the elements are spelled one by one.
std::optional<std::string> CWriter::countRows(const CallCtx& x, Param p, std::size_t n, const Expr* fallback) {
  const std::vector<Expr>* v = vec(x.c, p);
  if (!v || !x.tables || program_.scaleFree) return std::nullopt;  // tables by rank: fixed scale only
  auto element = [&](std::size_t i) { return i < v->size() ? &(*v)[i] : fallback; };
  bool tabulated = false;
  for (std::size_t i = 0; i < n; ++i) {
    const Expr* e = element(i);
    if (e && !plainPerRank(*e)) return std::nullopt;
    tabulated = tabulated || (e && tabulatedByRank(*e));
  }
  if (!tabulated) return std::nullopt;
  const Style style = intStyle();
  std::vector<std::string> rows;
  for (Rank r = 0; r < program_.numRanks; ++r) {
    std::vector<std::string> row;
    for (std::size_t i = 0; i < n; ++i) {
      const Expr* e = element(i);
      double value = 0;
      if (e && x.ranks.contains(r)) {
        const std::optional<double> ofRank = valueOfRank(*e, r);
        if (!ofRank) throw std::logic_error(fmt::format("{}: rank {} in no group of {}", label(x.c), r, paramName(p)));
        value = *ofRank;
      }
      row.push_back(style.leaf(value).text);  // integers: they need nothing
    }
    rows.push_back(fmt::format("{}", fmt::join(row, ", ")));
  }
  const std::string name = tableName(*x.tables, std::string(paramName(p)) + "_by_rank");
  x.tables->push_back(Table{"static const ", style.tableType, name, "", rows.size(), n, std::move(rows)});
  return name;
}

}  // namespace tracegen::gen::cgen
