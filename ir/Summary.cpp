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

// What a rank's calls add up to so far, with the calls by operation.
struct Totals {
  RankSummary s;
  std::map<Op, std::int64_t> byOp;
};

// A loop iteration's contribution repeated `times` more times: the totals grow by
// (now - atStart) x times, saturating as the sums do.
void repeat(Totals& now, const Totals& atStart, std::int64_t times) {
  auto grow = [&](std::int64_t& v, std::int64_t before) { v = saturatingAdd(v, saturatingMul(v - before, times)); };
  for (auto& [op, n] : now.byOp) {
    auto it = atStart.byOp.find(op);
    grow(n, it == atStart.byOp.end() ? 0 : it->second);
  }
  grow(now.s.calls, atStart.s.calls);
  grow(now.s.bytesSent, atStart.s.bytesSent);
  grow(now.s.bytesReceived, atStart.s.bytesReceived);
  grow(now.s.collectiveBytesSent, atStart.s.collectiveBytesSent);
  grow(now.s.collectiveBytesReceived, atStart.s.collectiveBytesReceived);
  const double t = static_cast<double>(times);
  now.s.computeUs += (now.s.computeUs - atStart.s.computeUs) * t;
  now.s.computeKinst += (now.s.computeKinst - atStart.s.computeKinst) * t;
  now.s.mpiUs += (now.s.mpiUs - atStart.s.mpiUs) * t;
}

struct NoLoopListener : LoopListener {
  void iterationBegins(std::size_t) override {}
  void iterationRepeats(std::size_t, std::int64_t) override {}
};

// Multiplies a repeating loop iteration's contribution by its remaining trip count, so that
// inspect's work grows with the compressed trace, not with the trip counts it declares.
class RepeatedIterations : public LoopListener {
 public:
  explicit RepeatedIterations(Totals& totals) : totals_(totals) {}
  void iterationBegins(std::size_t depth) override {
    if (atStart_.size() <= depth) atStart_.resize(depth + 1);
    atStart_[depth] = totals_;
  }
  void iterationRepeats(std::size_t depth, std::int64_t times) override { repeat(totals_, atStart_.at(depth), times); }

 private:
  Totals& totals_;
  std::vector<Totals> atStart_;  // by loop depth: the totals when its current iteration began
};
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
  // First with repeated loop iterations skipped: when that finds no cancelled receive, no
  // skipped iteration had one either (each repeats one that was scanned), else again whole.
  for (bool skipping : {true, false}) {
    if (!recordsMatches) break;
    RankCursor scan(trace, r, fileName);
    NoLoopListener ignore;
    if (skipping) scan.setLoopListener(&ignore);
    Call c;
    while (scan.next(c)) {
      budget.spend(1, c.event->line);
      for (std::size_t i = 0; i < c.matched.size(); ++i) {
        const bool ownReceive = opInfo(c.op).kind == OpKind::Recv || opInfo(c.op).kind == OpKind::Sendrecv;
        const std::int64_t req = ownReceive ? c.index : i < c.completes.size() ? c.completes[i] : -1;
        if (c.matched[i] == -2 && req >= 0) cancelled.insert(req);
      }
    }
    if (cancelled.empty()) break;
  }
  RankCursor cursor(trace, r, fileName);
  Totals totals;
  totals.s = s;
  std::map<Op, std::int64_t>& byOp = totals.byOp;
  // Cancelled receives are known by call index, which skipped iterations do not have.
  RepeatedIterations repeated(totals);
  if (cancelled.empty()) cursor.setLoopListener(&repeated);
  RankSummary& sum = totals.s;
  Call call;
  SiteId prev = kNoSite;
  while (cursor.next(call)) {
    budget.spend(1, call.event->line);
    // A test's folded failed polls (Param::Failed) are calls of it too.
    byOp[call.op] = saturatingAdd(byOp[call.op], saturatingAdd(1, call.failedPolls));
    sum.calls = saturatingAdd(sum.calls, saturatingAdd(1, call.failedPolls));
    OpKind kind = opInfo(call.op).kind;
    if (isPointToPoint(kind) || kind == OpKind::MatchedRecv) {
      sum.bytesSent = saturatingAdd(sum.bytesSent, call.bytes);
      if (!cancelled.count(call.index)) sum.bytesReceived = saturatingAdd(sum.bytesReceived, call.recvBytes);
    }
    // One-sided transfers count on the origin (docs/trace-format.md, "One-sided communication").
    // So do MPI-IO's reads and writes (docs/trace-format.md, "MPI-IO").
    if (kind == OpKind::Rma || kind == OpKind::FileCollective || kind == OpKind::FileIo) {
      sum.bytesSent = saturatingAdd(sum.bytesSent, call.bytes);
      sum.bytesReceived = saturatingAdd(sum.bytesReceived, call.recvBytes);
    }
    // Neighbourhood collectives move a block to each destination and from each source that is
    // not MPI_PROC_NULL, as the point-to-point messages they stand for (docs/trace-format.md,
    // "Neighbourhood collectives").
    if (isNeighborCollective(call.op)) {
      sum.bytesSent = saturatingAdd(sum.bytesSent, call.bytes);
      sum.bytesReceived = saturatingAdd(sum.bytesReceived, call.recvBytes);
    } else if (isCollective(kind)) {
      sum.collectiveBytesSent = saturatingAdd(sum.collectiveBytesSent, call.bytes);
      sum.collectiveBytesReceived = saturatingAdd(sum.collectiveBytesReceived, call.recvBytes);
    }
    // Persistent requests move their message at each MPI_Start/MPI_Startall, not at the
    // MPI_Send_init/MPI_Recv_init that made them.
    if (kind == OpKind::Start)
      for (const StartedRequest& p : call.started) {
        if (p.send) sum.bytesSent = saturatingAdd(sum.bytesSent, p.bytes);
        else if (!cancelled.count(p.key)) sum.bytesReceived = saturatingAdd(sum.bytesReceived, p.bytes);
      }
    if (call.computeUs > 0) sum.computeUs += call.computeUs;
    if (call.computeKinst > 0) sum.computeKinst += call.computeKinst;
    sum.mpiUs += mpiTime(*call.event, prev, r);
    prev = call.event->site;
  }
  s = sum;
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
