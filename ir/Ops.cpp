#include "ir/Ops.h"

#include <array>
#include <string>

namespace tracegen {

namespace {
constexpr std::array<OpInfo, static_cast<std::size_t>(Op::Count_)> kOps = {{
#define TRACEGEN_OP(name, mpi, code, kind, blocking, traits) \
  {Op::name, mpi, code, OpKind::kind, Op::blocking, OpTraits::traits},
#include "ir/Ops.def"
#undef TRACEGEN_OP
}};

constexpr std::array<std::string_view, static_cast<std::size_t>(Param::Count_)> kParamNames = {
    "comm",  "count",    "datatype", "recvcount", "recvtype",   "op",         "root",
    "dest",  "source",   "tag",      "recvtag",   "request",    "requests",   "recvcounts",
    "displs", "sendcounts", "rdispls", "color",   "key",        "newcomm",    "group",
    "ranks", "ranges", "group1", "group2", "matched", "failed",
    // topology constructors
    "dims", "periods", "reorder", "remain", "index", "edges", "sources", "degrees", "destinations",
    // one-sided communication
    "win", "winsize", "dispunit", "locktype", "assert",
    // MPI-IO
    "file", "offset",
    // MPI_Alltoallw
    "sendtypes", "recvtypes",
    // the send buffer is a received one
    "fromrecv"};

constexpr std::array<std::string_view, 14> kReduceOps = {
    "MPI_OP_NULL", "MPI_MAX",  "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_MAXLOC", "MPI_MINLOC",
    "MPI_BAND",    "MPI_BOR",  "MPI_BXOR", "MPI_LAND", "MPI_LOR", "MPI_LXOR",  "MPI_REPLACE"};
}  // namespace

const OpInfo& opInfo(Op op) { return kOps[static_cast<std::size_t>(op)]; }
std::string_view opName(Op op) { return opInfo(op).mpiName; }

std::optional<Op> opFromName(std::string_view mpiName) {
  for (const auto& o : kOps)
    if (o.mpiName == mpiName) return o.op;
  return std::nullopt;
}

std::optional<Op> opFromScalaTraceCode(int code) {
  for (const auto& o : kOps)
    if (o.scalaTraceCode == code && code != 0) return o.op;
  return std::nullopt;
}

Op blockingForm(Op op) { return opInfo(op).blocking; }

namespace {
bool hasTrait(Op op, OpTraits t) {
  const auto have = static_cast<std::uint8_t>(opInfo(blockingForm(op)).traits);  // nonblocking: the blocking form's
  return (have & static_cast<std::uint8_t>(t)) != 0;
}
}  // namespace

bool isRooted(Op op) { return hasTrait(op, OpTraits::Rooted); }
bool isReduction(Op op) { return hasTrait(op, OpTraits::Reduction); }
bool isNeighborCollective(Op op) { return hasTrait(op, OpTraits::Neighbor); }

bool neighborOutVector(Op op, Param p) {
  switch (blockingForm(op)) {
    case Op::NeighborAlltoallv: return p == Param::SendCounts || p == Param::Displs;
    case Op::NeighborAlltoallw: return p == Param::SendCounts || p == Param::SendTypes;
    default: return false;
  }
}

std::string_view paramName(Param p) { return kParamNames[static_cast<std::size_t>(p)]; }

std::optional<Param> paramFromName(std::string_view name) {
  for (std::size_t i = 0; i < kParamNames.size(); ++i)
    if (kParamNames[i] == name) return static_cast<Param>(i);
  return std::nullopt;
}

bool isVectorParam(Param p) {
  switch (p) {
    case Param::Requests: case Param::RecvCounts: case Param::Displs: case Param::SendCounts:
    case Param::RecvDispls: case Param::GroupRanks: case Param::GroupRanges:
      return true;
    case Param::SendTypes: case Param::RecvTypes:  // MPI_Alltoallw
      return true;
    case Param::Dims: case Param::Periods: case Param::RemainDims: case Param::Index: case Param::Edges:
    case Param::Sources: case Param::Degrees: case Param::Destinations:
      return true;
    default:
      return false;
  }
}

bool topologyVectorParam(Param p) {
  switch (p) {
    case Param::Dims: case Param::Periods: case Param::RemainDims: case Param::Index: case Param::Edges:
    case Param::Sources: case Param::Degrees: case Param::Destinations:
      return true;
    default:
      return false;
  }
}

std::string_view reduceOpName(std::int64_t op) {
  if (op >= 0 && op < static_cast<std::int64_t>(kReduceOps.size())) return kReduceOps[static_cast<std::size_t>(op)];
  return "";
}

std::optional<std::int64_t> reduceOpFromName(std::string_view name) {
  for (std::size_t i = 0; i < kReduceOps.size(); ++i)
    if (kReduceOps[i] == name) return static_cast<std::int64_t>(i);
  return std::nullopt;
}

}  // namespace tracegen
