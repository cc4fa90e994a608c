// `tracegen compare A B`: do two traces make the same MPI calls?
//
// Both traces are expanded rank by rank (ir/Summary.h) and compared per rank and per MPI
// operation: call counts, point-to-point bytes sent and bytes posted to receive. The traces
// agree when every figure is identical (exit status 0); otherwise each difference is printed as
// `rank R: WHAT: A vs B` and the status is 1. This is how a generated benchmark, run under the
// recorder, is checked against the trace it was generated from. Times are compared too, per rank
// and in total (compute before calls plus time inside MPI), when both traces have them; they are
// reported, never part of the verdict, since no two runs take the same time. Unreadable input
// throws InputError, which the command line turns into status 2.
//
// The Test family (MPI_Test, Testany, Testall, Testsome) is compared by its successful calls,
// those that completed at least one request: how often a program polls before a request is
// complete depends on timing, and a generated benchmark polls each completion until it succeeds,
// so its failed polls differ from the application's without any difference in what completes.
// The calls that completed nothing (polls) are printed separately and are not differences.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <ostream>
#include <set>

#include "ir/RankCursor.h"
#include "ir/Readers.h"
#include "ir/Summary.h"
#include "tools/tracegen/Commands.h"

namespace tracegen {

namespace {

constexpr std::size_t kMaxShown = 60;  // differences printed before summarising the rest

bool hasAnyTime(const Trace& t) {
  return t.hasTime(Phase::Compute, TimeUnit::Microseconds) || t.hasTime(Phase::Mpi, TimeUnit::Microseconds);
}

bool isTest(Op op) { return op == Op::Test || op == Op::Testany || op == Op::Testall || op == Op::Testsome; }

// Per rank, per Test-family operation: the calls that completed at least one request.
std::vector<std::map<std::string, std::int64_t>> testSuccesses(const Trace& t, const std::string& fileName) {
  std::vector<std::map<std::string, std::int64_t>> out(static_cast<std::size_t>(t.numRanks));
  bool any = false;
  for (const auto& e : t.events) any = any || isTest(e.op);
  if (!any) return out;
  for (Rank r = 0; r < t.numRanks; ++r) {
    RankCursor cursor(t, r, fileName);
    Call c;
    while (cursor.next(c))
      if (isTest(c.op) && std::any_of(c.completes.begin(), c.completes.end(), [](std::int64_t i) { return i >= 0; }))
        ++out[static_cast<std::size_t>(r)][std::string(opName(c.op))];
  }
  return out;
}

bool isTestName(const std::string& name) {
  return name == opName(Op::Test) || name == opName(Op::Testany) || name == opName(Op::Testall) ||
         name == opName(Op::Testsome);
}

}  // namespace

int runCompare(const std::string& a, const std::string& b, std::ostream& out) {
  const Trace ta = readTraceFile(a);
  const Trace tb = readTraceFile(b);
  const TraceSummary sa = summarizeTrace(ta, a);
  const TraceSummary sb = summarizeTrace(tb, b);
  out << fmt::format("A: {} ({} ranks, {} calls, {} events)\n", a, sa.ranks, sa.calls, sa.events);
  out << fmt::format("B: {} ({} ranks, {} calls, {} events)\n", b, sb.ranks, sb.calls, sb.events);

  std::size_t differences = 0;
  auto report = [&](const std::string& line) {
    if (differences++ < kMaxShown) out << line << "\n";
  };
  if (sa.ranks != sb.ranks) report(fmt::format("ranks: {} vs {}", sa.ranks, sb.ranks));

  const auto succA = testSuccesses(ta, a);
  const auto succB = testSuccesses(tb, b);
  auto successes = [](const std::vector<std::map<std::string, std::int64_t>>& s, std::size_t rank, const std::string& n) {
    if (rank >= s.size()) return std::int64_t{0};
    auto it = s[rank].find(n);
    return it == s[rank].end() ? std::int64_t{0} : it->second;
  };
  std::vector<std::string> polls;  // failed polls that differ: reported, not differences

  const std::size_t common = std::min(sa.perRank.size(), sb.perRank.size());
  for (std::size_t i = 0; i < common; ++i) {
    const RankSummary& x = sa.perRank[i];
    const RankSummary& y = sb.perRank[i];
    std::set<std::string> names;
    for (const auto& [name, n] : x.ops) names.insert(name);
    for (const auto& [name, n] : y.ops) names.insert(name);
    for (const auto& name : names) {
      auto ix = x.ops.find(name);
      auto iy = y.ops.find(name);
      const std::int64_t nx = ix == x.ops.end() ? 0 : ix->second;
      const std::int64_t ny = iy == y.ops.end() ? 0 : iy->second;
      if (isTestName(name)) {
        const auto r = static_cast<std::size_t>(x.rank);
        const std::int64_t ox = successes(succA, r, name), oy = successes(succB, r, name);
        if (ox != oy) report(fmt::format("rank {}: {}: {} vs {} calls that completed requests", x.rank, name, ox, oy));
        if (nx - ox != ny - oy)
          polls.push_back(fmt::format("rank {}: {}: {} vs {} polls that completed nothing", x.rank, name, nx - ox, ny - oy));
        continue;
      }
      if (nx != ny) report(fmt::format("rank {}: {}: {} vs {} calls", x.rank, name, nx, ny));
    }
    if (x.bytesSent != y.bytesSent) report(fmt::format("rank {}: bytes sent: {} vs {}", x.rank, x.bytesSent, y.bytesSent));
    if (x.bytesReceived != y.bytesReceived)
      report(fmt::format("rank {}: bytes received: {} vs {}", x.rank, x.bytesReceived, y.bytesReceived));
  }
  for (std::size_t i = common; i < sa.perRank.size(); ++i)
    report(fmt::format("rank {}: only in A ({} calls)", sa.perRank[i].rank, sa.perRank[i].calls));
  for (std::size_t i = common; i < sb.perRank.size(); ++i)
    report(fmt::format("rank {}: only in B ({} calls)", sb.perRank[i].rank, sb.perRank[i].calls));
  if (differences > kMaxShown) out << fmt::format("... and {} more differences\n", differences - kMaxShown);
  if (!polls.empty()) {
    out << "\npolls (timing-dependent, not differences):\n";
    for (std::size_t i = 0; i < polls.size() && i < kMaxShown; ++i) out << "  " << polls[i] << "\n";
    if (polls.size() > kMaxShown) out << fmt::format("  ... and {} more\n", polls.size() - kMaxShown);
  }

  if (hasAnyTime(ta) && hasAnyTime(tb) && common > 0) {
    // Time per rank: compute before calls plus time inside MPI, as each trace measured them.
    out << fmt::format("\n{:>5} {:>14} {:>14} {:>8}\n", "rank", "A time s", "B time s", "B/A");
    double totalA = 0, totalB = 0;
    for (std::size_t i = 0; i < common; ++i) {
      const double ta_s = (sa.perRank[i].computeUs + sa.perRank[i].mpiUs) / 1e6;
      const double tb_s = (sb.perRank[i].computeUs + sb.perRank[i].mpiUs) / 1e6;
      totalA += ta_s;
      totalB += tb_s;
      out << fmt::format("{:>5} {:>14.6f} {:>14.6f} {:>8}\n", sa.perRank[i].rank, ta_s, tb_s,
                         ta_s > 0 ? fmt::format("{:.3f}", tb_s / ta_s) : std::string("-"));
    }
    out << fmt::format("{:>5} {:>14.6f} {:>14.6f} {:>8}\n", "all", totalA, totalB,
                       totalA > 0 ? fmt::format("{:.3f}", totalB / totalA) : std::string("-"));
  }

  if (differences == 0) {
    out << fmt::format("\nsame calls and bytes on all {} ranks ({} calls)\n", sa.ranks, sa.calls);
    return 0;
  }
  out << fmt::format("\n{} difference{} in calls or bytes\n", differences, differences == 1 ? "" : "s");
  return 1;
}

}  // namespace tracegen
