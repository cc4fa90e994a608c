#include "ir/Summary.h"

#include <algorithm>
#include <fmt/format.h>
#include <set>

#include "ir/Checked.h"
#include "ir/RankClasses.h"
#include "ir/RankCursor.h"

namespace tracegen {

namespace {
// The time inside an MPI call, from the event's `mpi` histogram keyed by the predecessor.
double mpiTime(const Event& e, SiteId prev, Rank r) {
  for (const auto& st : e.stats)
    if (st.phase == Phase::Mpi && st.unit == TimeUnit::Microseconds && st.after == prev && st.covers(r))
      return st.hist.mean();
  return 0;
}

int firstLine(const Trace& trace) { return trace.events.empty() ? 0 : trace.events.front().line; }
}  // namespace

void requireRankRows(const Trace& trace, const ExpansionBudget& budget) {
  budget.require(trace.numRanks, firstLine(trace), fmt::format("writing a row for each of {} ranks", trace.numRanks));
}

std::vector<RankList> summaryClasses(const Trace& trace) {
  std::vector<RankList> classes = rankClasses(trace, /*byParameters=*/true);
  // Ranks of one class in communicator instances of different sizes send different
  // per-member vectors: split them by instance too.
  for (const auto& c : trace.comms) {
    if (c.instances.size() < 2) continue;
    for (const auto& inst : c.instances) refinePartition(classes, inst);
  }
  std::sort(classes.begin(), classes.end(), [](const RankList& x, const RankList& y) { return *x.first() < *y.first(); });
  return classes;
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
    if (isPointToPoint(kind) || kind == OpKind::MatchedRecv) {
      s.bytesSent = saturatingAdd(s.bytesSent, call.bytes);
      if (!cancelled.count(call.index)) s.bytesReceived = saturatingAdd(s.bytesReceived, call.recvBytes);
    }
    // One-sided transfers count on the origin (docs/trace-format.md, "One-sided communication").
    // So do MPI-IO's reads and writes (docs/trace-format.md, "MPI-IO").
    if (kind == OpKind::Rma || kind == OpKind::FileCollective || kind == OpKind::FileIo) {
      s.bytesSent = saturatingAdd(s.bytesSent, call.bytes);
      s.bytesReceived = saturatingAdd(s.bytesReceived, call.recvBytes);
    }
    // Neighbourhood collectives move a block to each destination and from each source that is
    // not MPI_PROC_NULL, as the point-to-point messages they stand for (docs/trace-format.md,
    // "Neighbourhood collectives").
    if (isNeighborCollective(call.op)) {
      s.bytesSent = saturatingAdd(s.bytesSent, call.bytes);
      s.bytesReceived = saturatingAdd(s.bytesReceived, call.recvBytes);
    } else if (isCollective(kind)) {
      s.collectiveBytesSent = saturatingAdd(s.collectiveBytesSent, call.bytes);
      s.collectiveBytesReceived = saturatingAdd(s.collectiveBytesReceived, call.recvBytes);
    }
    // Persistent requests move their message at each MPI_Start/MPI_Startall, not at the
    // MPI_Send_init/MPI_Recv_init that made them.
    if (kind == OpKind::Start)
      for (const StartedRequest& p : call.started) {
        if (p.send) s.bytesSent = saturatingAdd(s.bytesSent, p.bytes);
        else if (!cancelled.count(p.key)) s.bytesReceived = saturatingAdd(s.bytesReceived, p.bytes);
      }
    if (call.computeUs > 0) s.computeUs += call.computeUs;
    if (call.computeKinst > 0) s.computeKinst += call.computeKinst;
    s.mpiUs += mpiTime(*call.event, prev, r);
    prev = call.event->site;
  }
  for (auto [op, n] : byOp) s.ops[std::string(opName(op))] = n;
  return s;
}

RankSummaryStream::RankSummaryStream(const Trace& trace, const std::string& fileName, ExpansionBudget& budget)
    : budget_(budget), line_(firstLine(trace)), classes_(summaryClasses(trace)) {
  summaries_.reserve(classes_.size());
  for (const auto& c : classes_) summaries_.push_back(summarizeRank(trace, *c.first(), budget, fileName));
  for (const auto& c : classes_) iterators_.emplace_back(c);
  for (std::size_t i = 0; i < iterators_.size(); ++i) {
    Rank r = 0;
    if (iterators_[i].next(r)) heap_.emplace(r, i);
  }
}

bool RankSummaryStream::next(RankSummary& out, std::size_t* classIndex) {
  if (heap_.empty()) return false;
  auto [r, i] = heap_.top();
  heap_.pop();
  budget_.spend(1, line_);
  out = summaries_[i];
  out.rank = r;
  if (classIndex) *classIndex = i;
  Rank n = 0;
  if (iterators_[i].next(n)) heap_.emplace(n, i);
  return true;
}

void forEachRankSummary(const Trace& trace, const std::string& fileName, const std::function<void(const RankSummary&)>& sink,
                        std::int64_t budget) {
  ExpansionBudget b(fileName, "expanding every rank's calls", budget);
  requireRankRows(trace, b);
  RankSummaryStream stream(trace, fileName, b);
  RankSummary s;
  while (stream.next(s)) sink(s);
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
  ExpansionBudget b(fileName, "expanding every rank's calls", budget);
  if (keepPerRank) requireRankRows(trace, b);
  RankSummaryStream stream(trace, fileName, b);
  // Totals per class: its representative's figures times the class's size.
  for (std::size_t i = 0; i < stream.classes().size(); ++i) {
    const RankSummary& r = stream.classSummary(i);
    const std::int64_t n = stream.classes()[i].size();
    for (const auto& [name, calls] : r.ops) t.callOps[name] = saturatingAdd(t.callOps[name], saturatingMul(calls, n));
    t.calls = saturatingAdd(t.calls, saturatingMul(r.calls, n));
    t.computeUs += r.computeUs * static_cast<double>(n);
    t.computeKinst += r.computeKinst * static_cast<double>(n);
  }
  if (keepPerRank) {
    RankSummary r;
    while (stream.next(r)) t.perRank.push_back(r);
  }
  return t;
}

}  // namespace tracegen
