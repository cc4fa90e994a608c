// The C backend's collectives: blocking, nonblocking and neighbourhood, with their vectors
// of counts and displacements (inline, by table, or packed by the runtime).
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

std::string CWriter::collectiveText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  if (isNeighborCollective(c.op)) return neighborCollective(x, d);
  d.set("comm", comm(x));
  auto reduction = [&] { d.set("op", reduceOp(x, need(c, Param::ReduceOp))); };
  auto root = [&] { d.set("root", peer(x, need(c, Param::Root), "root")); };
  switch (c.op) {
    case Op::Barrier:
      return render("call/barrier", d);
    case Op::Bcast:
      message(x, d);
      root();
      return render("call/bcast", d);
    case Op::Reduce:
      message(x, d);
      sendsMessage();
      reduction();
      root();
      return render("call/reduce", d);
    case Op::Allreduce:
      message(x, d);
      sendsMessage();
      reduction();
      return render("call/allreduce", d);
    case Op::Scan:
      message(x, d);
      sendsMessage();
      reduction();
      return render("call/scan", d);
    case Op::Exscan:
    case Op::ReduceScatterBlock:  // count: the block each member receives
      message(x, d);
      if (c.op == Op::Exscan) sendsMessage();
      else sendsMessage(/*blocks=*/true);
      reduction();
      return render(c.op == Op::Exscan ? "call/exscan" : "call/reduce_scatter_block", d);
    case Op::Gather:
    case Op::Scatter:
      message(x, d);
      if (c.op == Op::Gather) sendsMessage();  // a scatter's root sends; its time is the root's
      receiveSide(x, d);
      root();
      return render("call/gather", d);
    case Op::Allgather:
    case Op::Alltoall:
      message(x, d);
      sendsMessage(/*blocks=*/c.op == Op::Alltoall);
      receiveSide(x, d);
      return render("call/allgather", d);
    case Op::Gatherv:
    case Op::Allgatherv: {
      message(x, d);
      receiveSide(x, d);
      const std::size_t n = vectorLength(c, {Param::RecvCounts, Param::Displs});
      d.set("n", std::to_string(n));
      countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::RecvCount));
      // ScalaTrace stores MPI_Allgatherv's receive counts where its displacements belong,
      // so they are laid out one after the other instead (see pack_displs).
      if (c.op == Op::Gatherv && !packedDispls(x, Param::Displs, Param::RecvCounts, param(c, Param::RecvCount), n))
        countArray(x, d, "displs", Param::Displs, n, nullptr);
      else uses_.displs = true;
      if (c.op == Op::Gatherv) root();
      return render(c.op == Op::Gatherv ? "call/gatherv" : "call/allgatherv", d);
    }
    case Op::Scatterv: {
      message(x, d);
      receiveSide(x, d);
      const std::size_t n = vectorLength(c, {Param::SendCounts, Param::Displs});
      d.set("n", std::to_string(n));
      countArray(x, d, "sendcounts", Param::SendCounts, n, param(c, Param::Count));
      if (!packedDispls(x, Param::Displs, Param::SendCounts, param(c, Param::Count), n))
        countArray(x, d, "displs", Param::Displs, n, nullptr);
      else uses_.displs = true;
      root();
      return render("call/scatterv", d);
    }
    case Op::Alltoallv: {
      message(x, d);
      receiveSide(x, d);
      if (!c.evenVectors.empty()) {  // a scale-free benchmark's even split (gen/Program.h)
        const auto side = [&](Param p) {
          auto it = c.evenVectors.find(p);
          if (it == c.evenVectors.end())
            throw std::logic_error(fmt::format("{}: an even split of {} only", label(c), paramName(p)));
          return count(x, &it->second, std::string(paramName(p)));
        };
        d.set("sendcount", side(Param::SendCounts));
        d.set("recvcount", side(Param::RecvCounts));
        return render("call/alltoallv_even", d);
      }
      const std::size_t n =
          vectorLength(c, {Param::SendCounts, Param::Displs, Param::RecvCounts, Param::RecvDispls});
      d.set("n", std::to_string(n));
      countArray(x, d, "sendcounts", Param::SendCounts, n, param(c, Param::Count));
      if (!packedDispls(x, Param::Displs, Param::SendCounts, param(c, Param::Count), n))
        countArray(x, d, "sdispls", Param::Displs, n, nullptr);
      else uses_.displs = true;
      countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::RecvCount));
      if (!packedDispls(x, Param::RecvDispls, Param::RecvCounts, param(c, Param::RecvCount), n))
        countArray(x, d, "rdispls", Param::RecvDispls, n, nullptr);
      else uses_.displs = true;
      return render("call/alltoallv", d);
    }
    case Op::Alltoallw:
      alltoallwArrays(x, d);
      return render("call/alltoallw", d);
    case Op::ReduceScatter: {
      d.set("datatype", datatype(x, need(c, Param::Datatype), "datatype"));
      reduction();
      const std::size_t n = vectorLength(c, {Param::RecvCounts});
      d.set("n", std::to_string(n));
      countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::Count));
      return render("call/reduce_scatter", d);
    }
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled collective {}", opName(c.op)));
}

// A nonblocking collective (MPI_Ibcast, ...): the blocking form's arguments and a new request
// in the ring, completed by the waits the trace recorded. The count and displacement arrays
// of the vector forms must stay as they are until the request completes, so they live with
// the request's slot (request_ints), not on the stack.
std::string CWriter::nonblockingCollectiveText(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  if (isNeighborCollective(c.op)) return neighborCollective(x, d);
  d.set("comm", comm(x));
  uses_.newRequest = true;
  auto reduction = [&] { d.set("op", reduceOp(x, need(c, Param::ReduceOp))); };
  auto root = [&] { d.set("root", peer(x, need(c, Param::Root), "root")); };
  auto arrays = [&](std::initializer_list<std::pair<Param, const char*>> ps, std::initializer_list<Param> lengths) {
    const std::size_t n = vectorLength(c, lengths);
    d.set("n", std::to_string(n));
    uses_.requestArrays = true;
    Param counts = Param::RecvCounts;  // the counts of the displacements that follow them in `ps`
    const Expr* countsFallback = nullptr;
    for (auto [p, name] : ps) {
      const bool isDispls = p == Param::Displs || p == Param::RecvDispls;
      if (isDispls && packedDispls(x, p, counts, countsFallback, n)) {
        uses_.displs = true;
        continue;
      }
      const Expr* fallback = nullptr;
      if (p == Param::SendCounts) fallback = param(c, Param::Count);
      if (p == Param::RecvCounts) fallback = param(c, c.op == Op::IreduceScatter ? Param::Count : Param::RecvCount);
      if (!isDispls) counts = p, countsFallback = fallback;
      countArray(x, d, name, p, n, fallback);
    }
  };
  switch (c.op) {
    case Op::Ibarrier:
      return render("call/ibarrier", d);
    case Op::Ibcast:
      message(x, d);
      root();
      return render("call/ibcast", d);
    case Op::Ireduce:
      message(x, d);
      reduction();
      root();
      return render("call/ireduce", d);
    case Op::Iallreduce:
    case Op::Iscan:
    case Op::Iexscan:
    case Op::IreduceScatterBlock:  // count: the block each member receives
      message(x, d);
      reduction();
      return render("call/ireduction", d);
    case Op::Igather:
    case Op::Iscatter:
      message(x, d);
      receiveSide(x, d);
      root();
      return render("call/igather", d);
    case Op::Iallgather:
    case Op::Ialltoall:
      message(x, d);
      receiveSide(x, d);
      return render("call/iallgather", d);
    case Op::Igatherv:
    case Op::Iallgatherv:
      message(x, d);
      receiveSide(x, d);
      arrays({{Param::RecvCounts, "recvcounts"}, {Param::Displs, "displs"}}, {Param::RecvCounts, Param::Displs});
      if (c.op == Op::Igatherv) root();
      return render(c.op == Op::Igatherv ? "call/igatherv" : "call/iallgatherv", d);
    case Op::Iscatterv:
      message(x, d);
      receiveSide(x, d);
      arrays({{Param::SendCounts, "sendcounts"}, {Param::Displs, "displs"}}, {Param::SendCounts, Param::Displs});
      root();
      return render("call/iscatterv", d);
    case Op::Ialltoallv:
      message(x, d);
      receiveSide(x, d);
      arrays({{Param::SendCounts, "sendcounts"}, {Param::Displs, "sdispls"}, {Param::RecvCounts, "recvcounts"},
              {Param::RecvDispls, "rdispls"}},
             {Param::SendCounts, Param::Displs, Param::RecvCounts, Param::RecvDispls});
      return render("call/ialltoallv", d);
    case Op::Ialltoallw:
      alltoallwArrays(x, d);
      uses_.requestArrays = true;
      return render("call/ialltoallw", d);
    case Op::IreduceScatter:
      d.set("datatype", datatype(x, need(c, Param::Datatype), "datatype"));
      reduction();
      arrays({{Param::RecvCounts, "recvcounts"}}, {Param::RecvCounts});
      return render("call/ireduce_scatter", d);
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
std::string CWriter::neighborCollective(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  const Op blocking = blockingForm(c.op);
  const bool nonblocking = blocking != c.op;
  d.set("comm", comm(x));
  if (nonblocking) {
    uses_.newRequest = true;
    // The v and w forms keep their arrays with the request (request_ints, ...).
    if (blocking != Op::NeighborAllgather && blocking != Op::NeighborAlltoall) uses_.requestArrays = true;
  }
  d.set("nonblocking", flag(nonblocking));
  auto typesOf = [&](Param p, std::size_t n) {
    const std::vector<Expr>* v = vec(c, p);
    if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
    std::vector<std::string> items;
    for (std::size_t i = 0; i < n; ++i)
      items.push_back(datatype(x, (*v)[std::min(i, v->size() - 1)], fmt::format("{}{}", paramName(p), i)));
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
      message(x, d);
      receiveSide(x, d);
      d.set("comm", comm(x));
      return render("call/neighbor_allgather", d);
    case Op::NeighborAllgatherv: {
      message(x, d);
      receiveSide(x, d);
      d.set("comm", comm(x));
      const std::size_t nin = length(Param::RecvCounts);
      d.set("nin", std::to_string(nin));
      d.set("recvcounts", countVector(x, Param::RecvCounts, nin, nullptr));
      uses_.displs = true;
      return render(nonblocking ? "call/ineighbor_allgatherv" : "call/neighbor_allgatherv", d);
    }
    case Op::NeighborAlltoallv: {
      message(x, d);
      receiveSide(x, d);
      d.set("comm", comm(x));
      const std::size_t nout = length(Param::SendCounts), nin = length(Param::RecvCounts);
      d.set("nout", std::to_string(nout));
      d.set("nin", std::to_string(nin));
      d.set("sendcounts", countVector(x, Param::SendCounts, nout, nullptr));
      d.set("recvcounts", countVector(x, Param::RecvCounts, nin, nullptr));
      uses_.displs = true;
      return render(nonblocking ? "call/ineighbor_alltoallv" : "call/neighbor_alltoallv", d);
    }
    case Op::NeighborAlltoallw: {
      const std::size_t nout = length(Param::SendCounts), nin = length(Param::RecvCounts);
      d.set("nout", std::to_string(nout));
      d.set("nin", std::to_string(nin));
      d.set("sendcounts", countVector(x, Param::SendCounts, nout, nullptr));
      d.set("recvcounts", countVector(x, Param::RecvCounts, nin, nullptr));
      d.set("sendtypes", typesOf(Param::SendTypes, nout));
      d.set("recvtypes", typesOf(Param::RecvTypes, nin));
      uses_.aintDispls = true;
      if (nonblocking) uses_.requestAints = true;
      return render(nonblocking ? "call/ineighbor_alltoallw" : "call/neighbor_alltoallw", d);
    }
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled neighbourhood collective {}", opName(c.op)));
}

// MPI_Alltoallw's per-peer counts and datatypes. A send side the trace does not describe
// (MPI_IN_PLACE) sends what the receive side receives; the displacements, in bytes, lay the
// blocks out one after the other (pack_byte_displs).
void CWriter::alltoallwArrays(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  const std::size_t n = vectorLength(c, {Param::SendCounts, Param::SendTypes, Param::RecvCounts, Param::RecvTypes});
  d.set("n", std::to_string(n));
  d.set("comm", comm(x));
  const Param sc = vec(c, Param::SendCounts) ? Param::SendCounts : Param::RecvCounts;
  const Param st = vec(c, Param::SendTypes) ? Param::SendTypes : Param::RecvTypes;
  d.set("sendcounts", countVector(x, sc, n, nullptr));
  d.set("recvcounts", countVector(x, Param::RecvCounts, n, nullptr));
  auto types = [&](Param p) {
    const std::vector<Expr>* v = vec(c, p);
    if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
    std::vector<std::string> items;
    for (std::size_t i = 0; i < n; ++i)
      items.push_back(datatype(x, (*v)[std::min(i, v->size() - 1)], fmt::format("{}{}", paramName(p), i)));
    return fmt::format("{}", fmt::join(items, ", "));
  };
  d.set("sendtypes", types(st));
  d.set("recvtypes", types(Param::RecvTypes));
  uses_.byteDispls = true;
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
std::string CWriter::countVector(const CallCtx& x, Param p, std::size_t n, const Expr* fallback) {
  std::vector<std::string> items;
  if (std::optional<std::string> table = countRows(x, p, n, fallback)) {
    uses_.counts = true;
    for (std::size_t i = 0; i < n; ++i) {
      mus::data d;
      d.set("count", fmt::format("{}[rank][{}]", *table, i));
      items.push_back(render("expr/msg_count", d));
    }
    return fmt::format("{}", fmt::join(items, ", "));
  }
  const std::vector<Expr>* v = vec(x.c, p);
  for (std::size_t i = 0; i < n; ++i)
    items.push_back(count(x, v && i < v->size() ? &(*v)[i] : fallback, fmt::format("{}{}", paramName(p), i)));
  return fmt::format("{}", fmt::join(items, ", "));
}

// A vector of counts (or displacements) for the templates of the vector collectives: `key`,
// its elements for an initializer (countVector), or where it is a table by rank `key_row`,
// the rank's row (`sendcounts_by_rank[rank]`), which the template copies through msg_count()
// in a loop: a line for the vector, where the initializer takes one per element.
void CWriter::countArray(const CallCtx& x, mus::data& d, const std::string& key, Param p, std::size_t n,
                         const Expr* fallback) {
  if (std::optional<std::string> table = countRows(x, p, n, fallback)) {
    uses_.counts = true;
    d.set(key + "_row", *table + "[rank]");
    return;
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
      d.set(key + "_each", count(x, e0, fmt::format("{}0", paramName(p))));
      return;
    }
  }
  d.set(key, countVector(x, p, n, fallback));
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
      row.push_back(style.leaf(value));
    }
    rows.push_back(fmt::format("{}", fmt::join(row, ", ")));
  }
  const std::string name = tableName(*x.tables, std::string(paramName(p)) + "_by_rank");
  x.tables->push_back(Table{"static const ", style.tableType, name, "", rows.size(), n, std::move(rows)});
  return name;
}

}  // namespace tracegen::gen::cgen
