#include "ir/Summary.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "ir/Checked.h"
#include "ir/RankCursor.h"

namespace tracegen {

namespace {
// The time inside an MPI call, from the event's `mpi` histogram keyed by the predecessor.
double mpiTime(const Event& e, SiteId prev) {
  for (const auto& st : e.stats)
    if (st.phase == Phase::Mpi && st.unit == TimeUnit::Microseconds && st.after == prev) return st.hist.mean();
  return 0;
}

int firstLine(const Trace& trace) { return trace.events.empty() ? 0 : trace.events.front().line; }
}  // namespace

void requireRankBudget(const Trace& trace, const ExpansionBudget& budget) {
  const std::int64_t events = std::max<std::int64_t>(static_cast<std::int64_t>(trace.events.size()), 1);
  budget.require(saturatingMul(trace.numRanks, events), firstLine(trace),
                 fmt::format("expanding each of {} ranks over {} events", trace.numRanks, trace.events.size()));
}

RankSummary summarizeRank(const Trace& trace, Rank r, ExpansionBudget& budget, const std::string& fileName) {
  budget.spend(std::max<std::int64_t>(static_cast<std::int64_t>(trace.events.size()), 1), firstLine(trace));
  RankSummary s;
  s.rank = r;
  // Receives the trace says were cancelled (`matched` -2 on their completion) received
  // nothing, as a generated benchmark's receive from MPI_PROC_NULL receives nothing.
  bool recordsMatches = false;
  for (const auto& e : trace.events) recordsMatches = recordsMatches || e.param(Param::Matched);
  std::set<std::int64_t> cancelled;
  if (recordsMatches) {
    RankCursor scan(trace, r, fileName);
    Call c;
    while (scan.next(c)) {
      budget.spend(1, c.event->line);
      for (std::size_t i = 0; i < c.matched.size(); ++i) {
        const bool ownReceive = opInfo(c.op).kind == OpKind::Recv || opInfo(c.op).kind == OpKind::Sendrecv;
        const std::int64_t req = ownReceive ? c.index : i < c.completes.size() ? c.completes[i] : -1;
        if (c.matched[i] == -2 && req >= 0) cancelled.insert(req);
      }
    }
  }
  RankCursor cursor(trace, r, fileName);
  Call call;
  SiteId prev = kNoSite;
  std::map<Op, std::int64_t> byOp;
  while (cursor.next(call)) {
    budget.spend(1, call.event->line);
    // A test's folded failed polls (Param::Failed) are calls of it too.
    byOp[call.op] = saturatingAdd(byOp[call.op], saturatingAdd(1, call.failedPolls));
    s.calls = saturatingAdd(s.calls, saturatingAdd(1, call.failedPolls));
    OpKind kind = opInfo(call.op).kind;
    if (isPointToPoint(kind) || kind == OpKind::SendInit || kind == OpKind::RecvInit) {
      s.bytesSent = saturatingAdd(s.bytesSent, call.bytes);
      if (!cancelled.count(call.index)) s.bytesReceived = saturatingAdd(s.bytesReceived, call.recvBytes);
    }
    if (call.computeUs > 0) s.computeUs += call.computeUs;
    if (call.computeKinst > 0) s.computeKinst += call.computeKinst;
    s.mpiUs += mpiTime(*call.event, prev);
    prev = call.event->site;
  }
  for (auto [op, n] : byOp) s.ops[std::string(opName(op))] = n;
  return s;
}

void forEachRankSummary(const Trace& trace, const std::string& fileName, const std::function<void(const RankSummary&)>& sink,
                        std::int64_t budget) {
  ExpansionBudget b(fileName, "expanding every rank's calls", budget);
  requireRankBudget(trace, b);
  for (Rank r = 0; r < trace.numRanks; ++r) sink(summarizeRank(trace, r, b, fileName));
}

std::vector<RankSummary> summarizeRanks(const Trace& trace, const std::string& fileName, std::int64_t budget) {
  std::vector<RankSummary> out;
  forEachRankSummary(trace, fileName, [&](const RankSummary& s) { out.push_back(s); }, budget);
  return out;
}

TraceSummary summarizeTrace(const Trace& trace, const std::string& fileName, bool keepPerRank, std::int64_t budget) {
  TraceSummary t;
  t.ranks = trace.numRanks;
  t.events = trace.events.size();
  for (const auto& e : trace.events) {
    t.loops += e.loops.size();
    if (!e.loops.empty()) ++t.loopHeads;
    ++t.eventOps[std::string(opName(e.op))];
  }
  forEachRankSummary(
      trace, fileName,
      [&](const RankSummary& r) {
        for (const auto& [name, n] : r.ops) t.callOps[name] += n;
        t.calls += r.calls;  // bounded by the budget
        t.computeUs += r.computeUs;
        t.computeKinst += r.computeKinst;
        if (keepPerRank) t.perRank.push_back(r);
      },
      budget);
  return t;
}

}  // namespace tracegen
