// `tracegen compare A B`: do two traces make the same MPI calls?
//
// Both traces are expanded once per rank class (ir/Summary.h) and compared per rank and per MPI
// operation: call counts, point-to-point bytes sent and bytes posted to receive, and the bytes
// the rank's collectives contribute and post to receive. The traces agree when every figure is
// identical (exit status 0); otherwise each difference is printed as `rank R: WHAT: A vs B` and
// the status is 1. `--bytes-tolerance PCT` lets byte figures differ by up to PCT percent of the
// larger one (calls must still be identical): an extrapolated trace of a code whose message
// sizes follow its data (IS-like MPI_Alltoallv counts, docs/extrapolation.md) keeps every
// rank's bytes within a bound, not exactly; the largest deviation is printed either way. This is how a generated benchmark, run under the
// recorder, is checked against the trace it was generated from. Times are compared too, per rank
// and in total (compute before calls plus time inside MPI), when both traces have them; they are
// reported, never part of the verdict, since no two runs take the same time. Unreadable input
// throws InputError, which the command line turns into status 2.
//
// The Test family (MPI_Test, Testany, Testall, Testsome, and MPI_Improbe, whose successes found a
// message) is compared by its successful calls,
// those that completed at least one request: how often a program polls before a request is
// complete depends on timing, and a generated benchmark polls each completion until it succeeds,
// so its failed polls differ from the application's without any difference in what completes.
// The calls that completed nothing (polls) are printed separately and are not differences.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>

#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "tools/tracegen/Commands.h"

namespace tracegen {

namespace {

constexpr std::size_t kMaxShown = 60;  // differences printed before summarising the rest

bool hasAnyTime(const Trace& t) {
  return t.hasTime(Phase::Compute, TimeUnit::Microseconds) || t.hasTime(Phase::Mpi, TimeUnit::Microseconds);
}

// MPI_Improbe polls as the tests do: compared by the calls that found a message.
bool isTest(Op op) {
  return op == Op::Test || op == Op::Testany || op == Op::Testall || op == Op::Testsome || op == Op::Improbe;
}

bool isTestName(const std::string& name) {
  return name == opName(Op::Test) || name == opName(Op::Testany) || name == opName(Op::Testall) ||
         name == opName(Op::Testsome) || name == opName(Op::Improbe);
}

// One rank's Test-family calls that completed at least one request, per operation.
std::map<std::string, std::int64_t> testSuccesses(const Trace& t, Rank r, const std::string& fileName) {
  std::map<std::string, std::int64_t> out;
  if (r >= t.numRanks || std::none_of(t.events.begin(), t.events.end(), [](const Event& e) { return isTest(e.op); }))
    return out;
  RankCursor cursor(t, r, fileName);
  cursor.setComputeTimes(false);
  Call c;
  while (cursor.next(c))
    if (c.op == Op::Improbe ? c.count != 0
                            : isTest(c.op) && std::any_of(c.completes.begin(), c.completes.end(),
                                                          [](std::int64_t i) { return i >= 0; }))
      ++out[std::string(opName(c.op))];
  return out;
}

}  // namespace

int runCompare(const std::string& a, const std::string& b, std::ostream& out, double bytesTolerancePercent) {
  const Trace ta = readTraceFile(a);
  const Trace tb = readTraceFile(b);
  printReaderWarnings(ta, a);
  printReaderWarnings(tb, b);
  // Totals first; the per-rank figures are then expanded again rank by rank, in step for the
  // two traces, so that memory does not grow with the number of ranks (ir/Summary.h).
  const TraceSummary sa = summarizeTrace(ta, a, /*keepPerRank=*/false);
  const TraceSummary sb = summarizeTrace(tb, b, /*keepPerRank=*/false);
  out << fmt::format("A: {} ({} ranks, {} calls, {} events)\n", a, sa.ranks, sa.calls, sa.events);
  out << fmt::format("B: {} ({} ranks, {} calls, {} events)\n", b, sb.ranks, sb.calls, sb.events);

  std::size_t differences = 0;
  std::vector<std::string> polls;  // failed polls that differ: reported, not differences
  auto report = [&](const std::string& line) {
    if (differences++ < kMaxShown) out << line << "\n";
  };
  if (sa.ranks != sb.ranks) report(fmt::format("ranks: {} vs {}", sa.ranks, sb.ranks));

  // One pass over the ranks of both traces, in step, each trace charged to its own budget and
  // expanded once per rank class (ir/Summary.h); successful tests likewise once per class.
  std::map<std::size_t, std::map<std::string, std::int64_t>> testsA, testsB;
  std::size_t classA = 0, classB = 0;
  auto eachRank = [&](const std::function<void(const RankSummary*, const RankSummary*)>& visit) {
    ExpansionBudget budgetA(a, "expanding every rank's calls"), budgetB(b, "expanding every rank's calls");
    requireRankRows(ta, budgetA);
    requireRankRows(tb, budgetB);
    RankSummaryStream streamA(ta, a, budgetA), streamB(tb, b, budgetB);
    RankSummary x, y;
    bool hasX = streamA.next(x, &classA), hasY = streamB.next(y, &classB);
    while (hasX || hasY) {
      visit(hasX ? &x : nullptr, hasY ? &y : nullptr);
      if (hasX) hasX = streamA.next(x, &classA);
      if (hasY) hasY = streamB.next(y, &classB);
    }
  };
  // Byte figures: equal, or within the tolerance (then only the largest deviation is kept).
  double largestDeviation = 0;  // percent of the larger figure, over every byte figure that differs
  std::string largestWhere;
  auto compareBytes = [&](Rank r, const char* what, std::int64_t x, std::int64_t y) {
    if (x == y) return;
    const double dev = 100.0 * static_cast<double>(x > y ? x - y : y - x) / static_cast<double>(std::max(x, y));
    if (dev > largestDeviation) {
      largestDeviation = dev;
      largestWhere = fmt::format("rank {}: {}: {} vs {}", r, what, x, y);
    }
    if (dev > bytesTolerancePercent) report(fmt::format("rank {}: {}: {} vs {}", r, what, x, y));
  };
  auto successes = [](std::map<std::size_t, std::map<std::string, std::int64_t>>& cache, std::size_t cls, const Trace& t,
                      Rank r, const std::string& file) -> const std::map<std::string, std::int64_t>& {
    auto it = cache.find(cls);
    if (it == cache.end()) it = cache.emplace(cls, testSuccesses(t, r, file)).first;
    return it->second;
  };
  eachRank([&](const RankSummary* x, const RankSummary* y) {
    if (!y) {
      report(fmt::format("rank {}: only in A ({} calls)", x->rank, x->calls));
      return;
    }
    if (!x) {
      report(fmt::format("rank {}: only in B ({} calls)", y->rank, y->calls));
      return;
    }
    std::set<std::string> names;
    for (const auto& [name, n] : x->ops) names.insert(name);
    for (const auto& [name, n] : y->ops) names.insert(name);
    const std::map<std::string, std::int64_t>*succA = nullptr, *succB = nullptr;  // looked up if the rank tests
    for (const auto& name : names) {
      auto ix = x->ops.find(name);
      auto iy = y->ops.find(name);
      const std::int64_t nx = ix == x->ops.end() ? 0 : ix->second;
      const std::int64_t ny = iy == y->ops.end() ? 0 : iy->second;
      if (isTestName(name)) {
        if (!succA) succA = &successes(testsA, classA, ta, x->rank, a), succB = &successes(testsB, classB, tb, y->rank, b);
        const std::int64_t ox = succA->count(name) ? succA->at(name) : 0;
        const std::int64_t oy = succB->count(name) ? succB->at(name) : 0;
        if (ox != oy) report(fmt::format("rank {}: {}: {} vs {} calls that completed requests", x->rank, name, ox, oy));
        if (nx - ox != ny - oy)
          polls.push_back(fmt::format("rank {}: {}: {} vs {} polls that completed nothing", x->rank, name, nx - ox, ny - oy));
        continue;
      }
      if (nx != ny) report(fmt::format("rank {}: {}: {} vs {} calls", x->rank, name, nx, ny));
    }
    compareBytes(x->rank, "bytes sent", x->bytesSent, y->bytesSent);
    compareBytes(x->rank, "bytes received", x->bytesReceived, y->bytesReceived);
    compareBytes(x->rank, "collective bytes sent", x->collectiveBytesSent, y->collectiveBytesSent);
    compareBytes(x->rank, "collective bytes received", x->collectiveBytesReceived, y->collectiveBytesReceived);
  });
  if (differences > kMaxShown) out << fmt::format("... and {} more differences\n", differences - kMaxShown);
  if (!polls.empty()) {
    out << "\npolls (timing-dependent, not differences):\n";
    for (std::size_t i = 0; i < polls.size() && i < kMaxShown; ++i) out << "  " << polls[i] << "\n";
    if (polls.size() > kMaxShown) out << fmt::format("  ... and {} more\n", polls.size() - kMaxShown);
  }

  if (hasAnyTime(ta) && hasAnyTime(tb)) {
    // Time per rank: compute before calls plus time inside MPI, as each trace measured them.
    out << fmt::format("\n{:>5} {:>14} {:>14} {:>8}\n", "rank", "A time s", "B time s", "B/A");
    double totalA = 0, totalB = 0;
    eachRank([&](const RankSummary* x, const RankSummary* y) {
      if (!x || !y) return;
      const double ta_s = (x->computeUs + x->mpiUs) / 1e6;
      const double tb_s = (y->computeUs + y->mpiUs) / 1e6;
      totalA += ta_s;
      totalB += tb_s;
      out << fmt::format("{:>5} {:>14.6f} {:>14.6f} {:>8}\n", x->rank, ta_s, tb_s,
                         ta_s > 0 ? fmt::format("{:.3f}", tb_s / ta_s) : std::string("-"));
    });
    out << fmt::format("{:>5} {:>14.6f} {:>14.6f} {:>8}\n", "all", totalA, totalB,
                       totalA > 0 ? fmt::format("{:.3f}", totalB / totalA) : std::string("-"));
  }

  if (largestDeviation > 0)
    out << fmt::format("\nlargest difference in bytes: {:.3g}% ({}){}\n", largestDeviation, largestWhere,
                       bytesTolerancePercent > 0 ? fmt::format(", tolerance {:g}%", bytesTolerancePercent) : "");
  if (differences == 0) {
    out << fmt::format("\nsame calls and bytes on all {} ranks ({} calls){}\n", sa.ranks, sa.calls,
                       largestDeviation > 0 ? fmt::format(", bytes within {:g}%", bytesTolerancePercent) : "");
    return 0;
  }
  out << fmt::format("\n{} difference{} in calls or bytes\n", differences, differences == 1 ? "" : "s");
  return 1;
}

}  // namespace tracegen
