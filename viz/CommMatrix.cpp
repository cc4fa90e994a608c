// The figures of inspect's pictures, on the compressed trace. The communication matrix walks
// one representative rank per rank class (summaryClasses, as inspect's per-rank figures do)
// with a RankCursor whose loop listener multiplies a repeating iteration's flows by its trip
// count, so the cost follows the compressed trace, not the expanded calls. A walk collects the
// representative's flows keyed by how its peer is stored: a relative peer (stored as
// (peer - rank + P) mod P) becomes an offset, which each member of the class shifts by its own
// rank; an absolute peer stays the same world rank for every member. Only a relative peer on a
// communicator that is not the world cannot be shifted that way: such classes walk each member.
// Flows then go to the blocks of the members, so the matrix of B blocks costs B x B cells plus
// one step per member and flow. The time plot's figures reuse the per-class rank summaries.
#include "viz/CommMatrix.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <tuple>

#include "ir/Checked.h"
#include "ir/RankCursor.h"
#include "ir/Summary.h"

namespace tracegen {

Rank matrixBlockSize(Rank ranks) {
  if (ranks <= kMatrixFullRanks) return 1;
  return (ranks + kMatrixMaxBlocks - 1) / kMatrixMaxBlocks;
}

namespace {

int firstLine(const Trace& trace) { return trace.events.empty() ? 0 : trace.events.front().line; }

// A flow of one rank: `out` for bytes the rank sends to `peer`, else bytes `peer` sends to
// it; `offset` when `peer` is an offset from the rank (relative), else a world rank.
struct FlowKey {
  bool out;
  bool offset;
  Rank peer;
  auto operator<=>(const FlowKey&) const = default;
};

struct Flows {
  std::map<FlowKey, std::int64_t> bytes;
  std::int64_t collective = 0;
  std::int64_t unplaced = 0;
  std::int64_t neighbor = 0;
  bool needsMembers = false;  // a relative peer on a communicator other than the world
};

void repeat(Flows& now, const Flows& atStart, std::int64_t times) {
  auto grow = [&](std::int64_t& v, std::int64_t before) { v = saturatingAdd(v, saturatingMul(v - before, times)); };
  for (auto& [k, v] : now.bytes) {
    auto it = atStart.bytes.find(k);
    grow(v, it == atStart.bytes.end() ? 0 : it->second);
  }
  grow(now.collective, atStart.collective);
  grow(now.unplaced, atStart.unplaced);
  grow(now.neighbor, atStart.neighbor);
}

class RepeatedFlows : public LoopListener {
 public:
  explicit RepeatedFlows(Flows& flows) : flows_(flows) {}
  void iterationBegins(std::size_t depth) override {
    if (atStart_.size() <= depth) atStart_.resize(depth + 1);
    atStart_[depth] = flows_;
  }
  void iterationRepeats(std::size_t depth, std::int64_t times) override { repeat(flows_, atStart_.at(depth), times); }

 private:
  Flows& flows_;
  std::vector<Flows> atStart_;
};

// Whether the peer parameter `p` of event `e` is stored as an offset.
bool relativePeer(const Event* e, Param p) {
  const ParamValues* v = e ? e->param(p) : nullptr;
  return v && v->relative;
}

// The flows of rank `r` over its whole run. With `asOffsets`, relative peers on the world are
// keyed as offsets (for the class's other members); else every peer is its world rank.
Flows walkFlows(const Trace& trace, Rank r, const std::string& fileName, ExpansionBudget& budget, bool asOffsets) {
  budget.spend(std::max<std::int64_t>(static_cast<std::int64_t>(trace.events.size()), 1), firstLine(trace));
  Flows flows;
  RepeatedFlows repeated(flows);
  RankCursor cursor(trace, r, fileName);
  cursor.setComputeTimes(false);
  cursor.setLoopListener(&repeated);
  const Rank P = trace.numRanks;
  auto add = [&](bool out, Rank peer, bool peerIsWorld, bool relative, std::int64_t comm, std::int64_t bytes) {
    if (bytes <= 0 || peer == kProcNull) return;
    if (peer < 0 || peer >= P || !peerIsWorld) {
      flows.unplaced = saturatingAdd(flows.unplaced, bytes);
      return;
    }
    const bool worldNumbering = comm == kCommWorld || trace.worldPeers;
    if (relative && !worldNumbering) flows.needsMembers = true;
    const bool offset = asOffsets && relative && worldNumbering;
    const FlowKey key{out, offset, offset ? ((peer - r) % P + P) % P : peer};
    std::int64_t& v = flows.bytes[key];
    v = saturatingAdd(v, bytes);
  };
  Call call;
  while (cursor.next(call)) {
    budget.spend(1, call.event->line);
    const OpKind kind = opInfo(call.op).kind;
    switch (kind) {
      case OpKind::Send:
      case OpKind::Isend:
      case OpKind::Sendrecv:
        add(true, call.peer, call.peerIsWorld, relativePeer(call.event, Param::Dest), call.comm, call.bytes);
        break;
      case OpKind::Rma:
        add(true, call.peer, call.peerIsWorld, relativePeer(call.event, Param::Dest), call.comm, call.bytes);
        add(false, call.peer, call.peerIsWorld, relativePeer(call.event, Param::Dest), call.comm, call.recvBytes);
        break;
      case OpKind::Start:
        for (const StartedRequest& s : call.started)
          if (s.send) add(true, s.peer, s.peerIsWorld, relativePeer(s.initEvent, Param::Dest), s.comm, s.bytes);
        break;
      default:
        if (isNeighborCollective(call.op)) flows.neighbor = saturatingAdd(flows.neighbor, call.bytes);
        else if (isCollective(kind)) flows.collective = saturatingAdd(flows.collective, call.bytes);
        break;
    }
  }
  return flows;
}

void addCell(CommMatrix& m, Rank sender, Rank receiver, std::int64_t bytes) {
  std::int64_t& c = m.p2p[static_cast<std::size_t>(sender / m.blockSize) * static_cast<std::size_t>(m.blocks) +
                          static_cast<std::size_t>(receiver / m.blockSize)];
  c = saturatingAdd(c, bytes);
}

// Adds rank `member`'s share of `flows` (walked on rank `rep` of its class).
void place(CommMatrix& m, const Flows& flows, Rank member) {
  const Rank P = m.ranks;
  for (const auto& [k, bytes] : flows.bytes) {
    const Rank peer = k.offset ? (member + k.peer) % P : k.peer;
    if (k.out) addCell(m, member, peer, bytes);
    else addCell(m, peer, member, bytes);
  }
  std::int64_t& c = m.collective[static_cast<std::size_t>(member / m.blockSize)];
  c = saturatingAdd(c, flows.collective);
  m.unplacedBytes = saturatingAdd(m.unplacedBytes, flows.unplaced);
  m.neighborBytes = saturatingAdd(m.neighborBytes, flows.neighbor);
}

Rank blocksOf(Rank ranks, Rank& blockSize) {
  if (blockSize <= 0) blockSize = matrixBlockSize(ranks);
  return ranks <= 0 ? 0 : (ranks + blockSize - 1) / blockSize;
}

}  // namespace

CommMatrix computeCommMatrix(const Trace& trace, const std::string& fileName, Rank blockSize, std::int64_t budget) {
  CommMatrix m;
  m.ranks = trace.numRanks;
  m.blockSize = blockSize;
  m.blocks = blocksOf(m.ranks, m.blockSize);
  m.p2p.assign(static_cast<std::size_t>(m.blocks) * static_cast<std::size_t>(m.blocks), 0);
  m.collective.assign(static_cast<std::size_t>(m.blocks), 0);
  ExpansionBudget b(fileName, "walking each rank class for the communication matrix", budget);
  b.require(m.ranks, firstLine(trace), fmt::format("placing each of {} ranks in the matrix", m.ranks));
  for (const RankList& cls : summaryClasses(trace)) {
    const Rank rep = *cls.first();
    const Flows flows = walkFlows(trace, rep, fileName, b, /*asOffsets=*/true);
    RankIterator it(cls);
    Rank r = 0;
    if (!flows.needsMembers) {
      while (it.next(r)) {
        b.spend(std::max<std::int64_t>(static_cast<std::int64_t>(flows.bytes.size()), 1), firstLine(trace));
        place(m, flows, r);
      }
      continue;
    }
    // Offsets in a communicator's numbering do not shift with the world rank: walk each member.
    while (it.next(r)) place(m, walkFlows(trace, r, fileName, b, /*asOffsets=*/false), r);
  }
  return m;
}

RankTimes computeRankTimes(const Trace& trace, const std::string& fileName, Rank blockSize, std::int64_t budget) {
  RankTimes t;
  t.ranks = trace.numRanks;
  t.blockSize = blockSize;
  t.blocks = blocksOf(t.ranks, t.blockSize);
  t.compute.assign(static_cast<std::size_t>(t.blocks), 0);
  t.mpi.assign(static_cast<std::size_t>(t.blocks), 0);
  std::vector<Rank> members(static_cast<std::size_t>(t.blocks), 0);
  ExpansionBudget b(fileName, "expanding every rank's calls", budget);
  requireRankRows(trace, b);
  RankSummaryStream stream(trace, fileName, b);
  // Compute in microseconds where any rank has it; else in instructions (time-independent
  // traces), which do not stack with MPI time: that is left out then (mpiLeftOut).
  bool anyComputeUs = false, anyKinst = false, anyMpi = false;
  for (std::size_t i = 0; i < stream.classes().size(); ++i) {
    anyComputeUs = anyComputeUs || stream.classSummary(i).computeUs > 0;
    anyKinst = anyKinst || stream.classSummary(i).computeKinst > 0;
    anyMpi = anyMpi || stream.classSummary(i).mpiUs > 0;
  }
  t.instructions = !anyComputeUs && anyKinst;
  t.mpiLeftOut = t.instructions && anyMpi;
  double worst = -1, best = -1;
  for (std::size_t i = 0; i < stream.classes().size(); ++i) {
    const RankSummary& s = stream.classSummary(i);
    const double compute = t.instructions ? s.computeKinst : s.computeUs;
    const double mpi = t.instructions ? 0 : s.mpiUs;
    RankIterator it(stream.classes()[i]);
    Rank r = 0;
    while (it.next(r)) {
      b.spend(1, firstLine(trace));
      const auto k = static_cast<std::size_t>(r / t.blockSize);
      t.compute[k] += compute;
      t.mpi[k] += mpi;
      ++members[k];
      if (best < 0 || compute + mpi < best) best = compute + mpi;
      if (compute + mpi > worst || (compute + mpi == worst && r < t.slowest)) {
        worst = compute + mpi;
        t.slowest = r;
        t.slowestCompute = compute;
        t.slowestMpi = mpi;
      }
    }
  }
  t.fastestTotal = std::max(best, 0.0);
  for (std::size_t k = 0; k < members.size(); ++k)
    if (members[k] > 0) {
      t.compute[k] /= static_cast<double>(members[k]);
      t.mpi[k] /= static_cast<double>(members[k]);
    }
  return t;
}

}  // namespace tracegen
