// The C backend's communicators, groups and topologies: the constructors the application
// called, with the recorded arguments, kept in the runtime's tables by the trace's numbers.
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

Lowered CWriter::commCall(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  Needs needs;
  if (c.op == Op::CommFree) {
    const Expr& id = need(c, Param::Comm);
    d.set("id", needs.take(expr(id, intStyle(), at(x, "comm"))));
    forEachConst(id, [&](double v) { needs.maxCommId = std::max(needs.maxCommId, asInt(v)); });
    needs.commSlot = true;
    return {render("call/comm_free", d), needs};
  }
  d.set("comm", needs.take(comm(x)));
  if (const Expr* id = param(c, Param::NewComm)) {
    forEachConst(*id, [&](double v) { needs.maxCommId = std::max(needs.maxCommId, asInt(v)); });
    d.set("newcomm", fmt::format("new_comm_at({})", needs.take(expr(*id, intStyle(), at(x, "newcomm")))));
    needs.newCommAt = true;
  } else {
    // The tracer numbers a rank's communicators in creation order; so does new_comm().
    d.set("newcomm", "new_comm()");
    needs.newComm = needs.newCommAt = true;
    needs.maxCommId = std::max<std::int64_t>(needs.maxCommId, 1999);
  }
  switch (c.op) {
    case Op::CommSplit: {
      const Expr* color = param(c, Param::Color);
      const Expr* key = param(c, Param::Key);
      d.set("color", color ? needs.take(expr(*color, colorStyle(), at(x, "color"))) : "0");
      d.set("key", key ? needs.take(expr(*key, intStyle(), at(x, "key"))) : "0");
      return {render("call/comm_split", d), needs};
    }
    case Op::CommDup:
      return {render("call/comm_dup", d), needs};
    case Op::CommCreate:
      d.set("group", needs.take(group(x, need(c, Param::Group), "group")));
      return {render("call/comm_create", d), needs};
    default:
      return {needs.take(topologyCall(x, d)), needs};  // braces: the call's needs are taken first
  }
}

// ---- topology constructors: the application's call with the recorded topology. The library
// may renumber the ranks (reorder); peers are translated through the communicator it returns
// (comm_rank), so the benchmark talks to the processes the application talked to.
Lowered CWriter::intList(const CallCtx& x, Param p, std::size_t minimum) {
  const std::vector<Expr>* v = vec(x.c, p);
  std::vector<std::string> items;
  Needs needs;
  for (std::size_t i = 0; v && i < v->size(); ++i)
    items.push_back(needs.take(expr((*v)[i], intStyle(), at(x, fmt::format("{}{}", paramName(p), i)))));
  while (items.size() < minimum) items.push_back("0");  // C has no empty array
  return {fmt::format("{}", fmt::join(items, ", ")), needs};
}

// Weights of 1, one per element of vector p: the trace does not keep weights, and equal
// explicit ones stand in for MPI_UNWEIGHTED (which GCC's -Wstringop-overread rejects as an
// array argument under Open MPI's mpi.h).
std::string CWriter::ones(const CallCtx& x, Param p) {
  const std::vector<Expr>* v = vec(x.c, p);
  std::vector<std::string> items(std::max<std::size_t>(v ? v->size() : 0, 1), "1");
  return fmt::format("{}", fmt::join(items, ", "));
}

Lowered CWriter::scalar(const CallCtx& x, Param p, const char* fallback) {
  const Expr* e = param(x.c, p);
  return e ? expr(*e, intStyle(), at(x, std::string(paramName(p)))) : Lowered(fallback);
}

Lowered CWriter::topologyCall(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  Needs needs;
  d.set("reorder", needs.take(scalar(x, Param::Reorder, "0")));
  d.set("count", needs.take(scalar(x, Param::Count, "0")));
  d.set("recvcount", needs.take(scalar(x, Param::RecvCount, "0")));
  switch (c.op) {
    case Op::CartCreate:
      d.set("dims", needs.take(intList(x, Param::Dims)));
      d.set("periods", needs.take(intList(x, Param::Periods)));
      return {render("call/cart_create", d), needs};
    case Op::CartSub:
      d.set("remain", needs.take(intList(x, Param::RemainDims)));
      return {render("call/cart_sub", d), needs};
    case Op::GraphCreate:
      d.set("index", needs.take(intList(x, Param::Index)));
      d.set("edges", needs.take(intList(x, Param::Edges)));
      return {render("call/graph_create", d), needs};
    case Op::DistGraphCreateAdjacent:
      d.set("sources", needs.take(intList(x, Param::Sources)));
      d.set("destinations", needs.take(intList(x, Param::Destinations)));
      d.set("source_weights", ones(x, Param::Sources));
      d.set("destination_weights", ones(x, Param::Destinations));
      return {render("call/dist_graph_create_adjacent", d), needs};
    case Op::DistGraphCreate:
      d.set("sources", needs.take(intList(x, Param::Sources)));
      d.set("degrees", needs.take(intList(x, Param::Degrees)));
      d.set("destinations", needs.take(intList(x, Param::Destinations)));
      d.set("weights", ones(x, Param::Destinations));
      return {render("call/dist_graph_create", d), needs};
    case Op::CommSplitType: {
      const Expr* type = param(c, Param::Color);
      const Expr* key = param(c, Param::Key);
      // 1: MPI_COMM_TYPE_SHARED; a library's own type (2) has no portable spelling: shared.
      d.set("type", type ? needs.take(expr(*type, {"int", [](double v) {
                                                      return v < 0 ? std::string("MPI_UNDEFINED")
                                                                   : std::string("MPI_COMM_TYPE_SHARED");
                                                    }},
                                           at(x, "type")))
                         : "MPI_COMM_TYPE_SHARED");
      d.set("key", key ? needs.take(expr(*key, intStyle(), at(x, "key"))) : "0");
      return {render("call/comm_split_type", d), needs};
    }
    case Op::CommCreateGroup:
      d.set("group", needs.take(group(x, need(c, Param::Group), "group")));
      d.set("tag", needs.take(scalar(x, Param::Tag, "0")));
      return {render("call/comm_create_group", d), needs};
    case Op::CommIdup:
      return {render("call/comm_idup", d), needs};
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled communicator constructor {}", opName(c.op)));
}

Lowered CWriter::groupCall(const CallCtx& x, mus::data& d) {
  const CallStmt& c = x.c;
  Needs needs;
  switch (c.op) {
    case Op::CommGroup:
      d.set("comm", needs.take(comm(x)));
      needs.newGroup = true;
      return {render("call/comm_group", d), needs};
    case Op::GroupIncl:
    case Op::GroupExcl:
    case Op::GroupRangeIncl:
    case Op::GroupRangeExcl: {
      const bool ranges = c.op == Op::GroupRangeIncl || c.op == Op::GroupRangeExcl;
      const std::vector<Expr>* v = vec(c, ranges ? Param::GroupRanges : Param::GroupRanks);
      const std::size_t width = ranges ? 3 : 1;
      const std::size_t rows = std::max<std::size_t>(v ? v->size() / width : 0, 1);
      std::vector<std::string> items;
      for (std::size_t r = 0; r < rows; ++r) {
        std::vector<std::string> row;
        for (std::size_t k = 0; k < width; ++k) {
          const std::size_t i = r * width + k;
          row.push_back(v && i < v->size() ? needs.take(expr((*v)[i], intStyle(), at(x, fmt::format("element{}", i))))
                                           : "0");
        }
        items.push_back(ranges ? fmt::format("{{{}}}", fmt::join(row, ", ")) : row.front());
      }
      const Expr* count = param(c, Param::Count);
      d.set("n", std::to_string(rows));
      d.set(ranges ? "ranges" : "ranks", fmt::format("{}", fmt::join(items, ", ")));
      d.set("count", count ? needs.take(expr(*count, intStyle(), at(x, "count")))
                           : std::to_string(v ? v->size() / width : 0));
      d.set("group", needs.take(group(x, need(c, Param::Group), "group")));
      needs.newGroup = true;
      return {render(ranges ? "call/group_range" : "call/group_incl", d), needs};
    }
    case Op::GroupUnion:
    case Op::GroupIntersection:
    case Op::GroupDifference:
      d.set("group1", needs.take(group(x, need(c, Param::Group1), "group1")));
      d.set("group2", needs.take(group(x, need(c, Param::Group2), "group2")));
      needs.newGroup = true;
      return {render("call/group_combine", d), needs};
    case Op::GroupFree: {
      const Expr& id = need(c, Param::Group);
      forEachConst(id, [&](double v) { needs.maxGroupId = std::max(needs.maxGroupId, asInt(v)); });
      d.set("id", needs.take(expr(id, intStyle(), at(x, "group"))));
      needs.groupSlot = true;
      return {render("call/group_free", d), needs};
    }
    default:
      break;
  }
  throw std::logic_error(fmt::format("unhandled group operation {}", opName(c.op)));
}

}  // namespace tracegen::gen::cgen
