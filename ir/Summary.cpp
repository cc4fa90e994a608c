#include "ir/Summary.h"

#include <set>

#include "ir/RankCursor.h"

namespace tracegen {

namespace {
// The time inside an MPI call, from the event's `mpi` histogram keyed by the predecessor.
double mpiTime(const Event& e, SiteId prev) {
  for (const auto& st : e.stats)
    if (st.phase == Phase::Mpi && st.unit == TimeUnit::Microseconds && st.after == prev) return st.hist.mean();
  return 0;
}
}  // namespace

std::vector<RankSummary> summarizeRanks(const Trace& trace, const std::string& fileName) {
  std::vector<RankSummary> out;
  out.reserve(static_cast<std::size_t>(trace.numRanks));
  bool recordsMatches = false;
  for (const auto& e : trace.events) recordsMatches = recordsMatches || e.param(Param::Matched);
  for (Rank r = 0; r < trace.numRanks; ++r) {
    RankSummary s;
    s.rank = r;
    // Receives the trace says were cancelled (`matched` -2 on their completion) received
    // nothing, as a generated benchmark's receive from MPI_PROC_NULL receives nothing.
    std::set<std::int64_t> cancelled;
    if (recordsMatches) {
      RankCursor scan(trace, r, fileName);
      Call c;
      while (scan.next(c))
        for (std::size_t i = 0; i < c.matched.size(); ++i) {
          const bool ownReceive = opInfo(c.op).kind == OpKind::Recv || opInfo(c.op).kind == OpKind::Sendrecv;
          const std::int64_t req = ownReceive ? c.index : i < c.completes.size() ? c.completes[i] : -1;
          if (c.matched[i] == -2 && req >= 0) cancelled.insert(req);
        }
    }
    RankCursor cursor(trace, r, fileName);
    Call call;
    SiteId prev = kNoSite;
    std::map<Op, std::int64_t> byOp;
    while (cursor.next(call)) {
      // A test's folded failed polls (Param::Failed) are calls of it too.
      byOp[call.op] += 1 + call.failedPolls;
      s.calls += 1 + call.failedPolls;
      OpKind kind = opInfo(call.op).kind;
      if (isPointToPoint(kind) || kind == OpKind::SendInit || kind == OpKind::RecvInit) {
        s.bytesSent += call.bytes;
        if (!cancelled.count(call.index)) s.bytesReceived += call.recvBytes;
      }
      if (call.computeUs > 0) s.computeUs += call.computeUs;
      if (call.computeKinst > 0) s.computeKinst += call.computeKinst;
      s.mpiUs += mpiTime(*call.event, prev);
      prev = call.event->site;
    }
    for (auto [op, n] : byOp) s.ops[std::string(opName(op))] = n;
    out.push_back(std::move(s));
  }
  return out;
}

TraceSummary summarizeTrace(const Trace& trace, const std::string& fileName) {
  TraceSummary t;
  t.ranks = trace.numRanks;
  t.events = trace.events.size();
  for (const auto& e : trace.events) {
    t.loops += e.loops.size();
    if (!e.loops.empty()) ++t.loopHeads;
    ++t.eventOps[std::string(opName(e.op))];
  }
  t.perRank = summarizeRanks(trace, fileName);
  for (const auto& r : t.perRank) {
    for (const auto& [name, n] : r.ops) t.callOps[name] += n;
    t.calls += r.calls;
    t.computeUs += r.computeUs;
    t.computeKinst += r.computeKinst;
  }
  return t;
}

}  // namespace tracegen
