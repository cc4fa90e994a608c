// tracegen-record-check TRACE COUNTS.json: does a recorded trace describe what the application
// did?
//
// COUNTS.json is what libtracegen-count.so wrote for a run of the same application. The trace
// is expanded rank by rank (ir/Summary.h, as `tracegen inspect --per-rank` does) and every
// rank's calls per MPI operation, bytes sent and bytes posted to receive must equal the counted
// ones (tests: when the totals differ, the calls that completed a request, as the counting
// library reports them, since failed polls are timing: two runs poll differently). The request
// offsets are checked too, which counts cannot see: every request a rank
// creates must be completed by exactly one of its waits or tests (the sample applications leak
// no request). Exit status 0 when all holds, 1 otherwise (each difference printed), 2 when an
// input cannot be read.
#include <algorithm>
#include <fmt/format.h>

#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "ir/Verify.h"

using namespace tracegen;

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: tracegen-record-check TRACE COUNTS.json\n";
    return 2;
  }
  const std::string tracePath = argv[1], countsPath = argv[2];
  TraceSummary s;
  Trace t;
  std::size_t bytes = 0;
  try {
    t = readTraceFile(tracePath);
    verifyStructure(t, tracePath);
    s = summarizeTrace(t, tracePath);
    std::ifstream in(tracePath, std::ios::binary | std::ios::ate);
    bytes = static_cast<std::size_t>(in.tellg());
  } catch (const InputError& e) {
    std::cerr << e.render() << "\n";
    return 2;
  }
  nlohmann::json counts;
  try {
    std::ifstream in(countsPath);
    counts = nlohmann::json::parse(in);
  } catch (const std::exception& e) {
    std::cerr << countsPath << ": " << e.what() << "\n";
    return 2;
  }

  int differences = 0;
  auto differ = [&](const std::string& what) {
    if (differences++ < 40) std::cout << "difference: " << what << "\n";
  };
  const auto ranks = counts.at("ranks").get<std::int64_t>();
  if (ranks != s.ranks) differ(fmt::format("ranks: trace {} vs counted {}", s.ranks, ranks));
  for (const auto& pr : counts.at("per_rank")) {
    const auto r = pr.at("rank").get<std::int64_t>();
    if (r < 0 || r >= static_cast<std::int64_t>(s.perRank.size())) {
      differ(fmt::format("rank {} counted but not in the trace", r));
      continue;
    }
    const RankSummary& mine = s.perRank[static_cast<std::size_t>(r)];
    std::map<std::string, std::int64_t> counted;
    for (const auto& [name, n] : pr.at("ops").items()) counted[name] = n.get<std::int64_t>();
    // Tests: how many polls fail depends on timing, so where the counting library says how many
    // tests completed a request, those are compared when the totals differ.
    std::map<std::string, std::int64_t> completing;
    if (pr.contains("completing_tests"))
      for (const auto& [name, n] : pr.at("completing_tests").items()) completing[name] = n.get<std::int64_t>();
    std::map<std::string, std::int64_t> succeeded;
    if (!completing.empty()) {
      RankCursor cursor(t, static_cast<Rank>(r), tracePath);
      Call call;
      while (cursor.next(call))
        if (call.op == Op::Test || call.op == Op::Testall || call.op == Op::Testany || call.op == Op::Testsome) {
          if (std::any_of(call.completes.begin(), call.completes.end(), [](std::int64_t i) { return i >= 0; }))
            ++succeeded[std::string(opName(call.op))];
        } else if (call.op == Op::Improbe && call.count != 0) {  // found a message
          ++succeeded[std::string(opName(call.op))];
        }
    }
    std::set<std::string> names;
    for (const auto& [name, n] : counted) names.insert(name);
    for (const auto& [name, n] : mine.ops) names.insert(name);
    for (const auto& name : names) {
      const std::int64_t a = mine.ops.count(name) ? mine.ops.at(name) : 0;
      const std::int64_t b = counted.count(name) ? counted.at(name) : 0;
      if (a != b && completing.count(name)) {
        const std::int64_t sa = succeeded[name], sb = completing[name];
        if (sa != sb) differ(fmt::format("rank {}: {}: {} in the trace vs {} counted completed requests", r, name, sa, sb));
        else std::cout << fmt::format("polls: rank {}: {}: trace {} vs counted {} calls, {} of them completing\n", r, name, a, b, sa);
        continue;
      }
      if (a != b) differ(fmt::format("rank {}: {}: trace {} vs counted {}", r, name, a, b));
    }
    const auto sent = pr.at("bytes_sent").get<std::int64_t>();
    const auto received = pr.at("bytes_received").get<std::int64_t>();
    if (mine.bytesSent != sent) differ(fmt::format("rank {}: bytes sent: trace {} vs counted {}", r, mine.bytesSent, sent));
    if (mine.bytesReceived != received)
      differ(fmt::format("rank {}: bytes received: trace {} vs counted {}", r, mine.bytesReceived, received));
  }
  for (Rank r = 0; r < t.numRanks; ++r) {
    RankCursor cursor(t, r, tracePath);
    Call call;
    std::set<std::int64_t> created;
    std::map<std::int64_t, int> completed;
    while (cursor.next(call)) {
      // Persistent requests: each start's activations are what the waits complete, once each;
      // the init calls make a request no wait completes (waits on an inactive one name -1).
      const OpKind kind = opInfo(call.op).kind;
      if (kind == OpKind::Start) {
        for (const auto& p : call.started) created.insert(p.key);
      } else if (call.op == Op::Imrecv ||
                 (createsRequest(kind) && kind != OpKind::SendInit && kind != OpKind::RecvInit)) {
        created.insert(call.index);
      }
      for (auto c : call.completes)
        if (c >= 0) ++completed[c];
    }
    for (auto c : created)
      if (completed[c] != 1) differ(fmt::format("rank {}: the request of call {} is completed {} times", r, c, completed[c]));
    for (const auto& [c, n] : completed)
      if (!created.count(c)) differ(fmt::format("rank {}: call {} completes call {}, which creates no request", r, c, n));
  }
  if (differences > 40) std::cout << "... " << differences - 40 << " more differences\n";
  std::cout << fmt::format("{}: {} bytes, {} ranks, {} events, {} loop levels, {} calls: {}\n", tracePath, bytes, s.ranks,
                           s.events, s.loops, s.calls,
                           differences == 0 ? "same calls and bytes as counted" : fmt::format("{} differences", differences));
  return differences == 0 ? 0 : 1;
}
