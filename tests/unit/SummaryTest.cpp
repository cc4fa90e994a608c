// ir/Summary.cpp: per-rank figures computed once per rank class must equal the figures of
// expanding every rank directly, on every bundled trace that reads (samples, the ScalaTrace
// traces, the check cases and structure cases); totals must be the sum of the rows.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Summary.h"
#include "tests/unit/SanitizerScale.h"

namespace tracegen {
namespace {

std::vector<std::filesystem::path> bundledTraces() {
  std::vector<std::filesystem::path> out;
  const std::filesystem::path root(TRACEGEN_SOURCE_DIR);
  for (const char* dir : {"samples/traces", "tests/data/scalatrace", "tests/data/checks", "tests/data/scalatrace-structures"}) {
    if (!std::filesystem::exists(root / dir)) continue;
    for (const auto& f : std::filesystem::recursive_directory_iterator(root / dir))
      if (f.is_regular_file() && (f.path().extension() == ".tgt" || f.path().extension() == ".trace")) out.push_back(f.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(Summary, RankClassesGiveTheFiguresOfDirectExpansion) {
  std::size_t compared = 0;
  for (const auto& path : bundledTraces()) {
    SCOPED_TRACE(path.string());
    Trace t;
    try {
      t = readTraceFile(path.string());
    } catch (const InputError&) {
      continue;  // malformed on purpose
    }
    std::vector<RankSummary> rows;
    try {
      rows = summarizeRanks(t, path.string());
    } catch (const InputError&) {
      continue;
    }
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(t.numRanks));
    ExpansionBudget budget(path.string(), "direct");
    const TraceSummary total = summarizeTrace(t, path.string(), /*keepPerRank=*/false);
    std::int64_t calls = 0;
    // Under the sanitizers the direct expansion (the reference, 5-20 times slower there) is
    // taken for the first and last ranks and about eight between them; the plain run takes all.
    const Rank stride = testing::kUnderSanitizer ? std::max<Rank>(1, t.numRanks / 8) : 1;
    for (Rank r = 0; r < t.numRanks; ++r) {
      if (r > 1 && r + 2 < t.numRanks && r % stride != 0) continue;
      const RankSummary d = summarizeRank(t, r, budget, path.string());
      const RankSummary& c = rows[static_cast<std::size_t>(r)];
      EXPECT_EQ(c.rank, r);
      EXPECT_EQ(c.ops, d.ops) << "rank " << r;
      EXPECT_EQ(c.calls, d.calls) << "rank " << r;
      EXPECT_EQ(c.bytesSent, d.bytesSent) << "rank " << r;
      EXPECT_EQ(c.bytesReceived, d.bytesReceived) << "rank " << r;
      EXPECT_DOUBLE_EQ(c.computeUs, d.computeUs) << "rank " << r;
      calls += d.calls;
    }
    if (stride == 1) {
      EXPECT_EQ(total.calls, calls);
    }
    ++compared;
  }
  EXPECT_GE(compared, 10u);
}

// Ranks of one class that sit in communicator instances of different sizes are told apart:
// a collective's per-member counts follow the size of the rank's own communicator.
// A walk that adds up per-call figures skips a loop's iterations once two end in the same
// state. Requests no wait can name any more (the ring of recent requests keeps many) are not
// part of that state: in ScalaTrace's LU class C trace their distances grew with every
// iteration, no loop ever repeated, and `inspect` walked all 3.9 million calls (5 s).
TEST(Summary, RequestsNoWaitNamesDoNotKeepLoopsFromRepeating) {
  const std::string path = std::string(TRACEGEN_TEST_DATA_DIR) + "/wildcards/scalatrace2-npb-td-lu-C-16.trace";
  const Trace t = readTraceFile(path);
  struct Repeats : LoopListener {
    std::int64_t skipped = 0;
    void iterationBegins(std::size_t) override {}
    void iterationRepeats(std::size_t, std::int64_t times) override { skipped += times; }
  } repeats;
  const Rank r = 5;  // an interior rank of the 4x4 grid: the most calls
  RankCursor skipping(t, r, path);
  skipping.setLoopListener(&repeats);
  std::int64_t walked = 0;
  for (Call c; skipping.next(c);) ++walked;
  EXPECT_GT(repeats.skipped, 0);
  EXPECT_LT(walked, 10'000);  // of 324,357 calls
  // The figures are those of the whole walk.
  RankCursor whole(t, r, path);
  std::int64_t calls = 0, bytesSent = 0;
  for (Call c; whole.next(c);) {
    ++calls;
    const OpKind kind = opInfo(c.op).kind;
    if (isPointToPoint(kind) || kind == OpKind::MatchedRecv) bytesSent += c.bytes;
  }
  const std::vector<RankSummary> rows = summarizeRanks(t, path);
  EXPECT_EQ(rows.at(static_cast<std::size_t>(r)).calls, calls);
  EXPECT_EQ(rows.at(static_cast<std::size_t>(r)).bytesSent, bytesSent);
  std::int64_t total = 0;
  for (const RankSummary& row : rows) total += row.calls;
  EXPECT_EQ(total, 3'892'412);
}

TEST(Summary, CommunicatorInstancesSplitClasses) {
  Trace t;
  t.numRanks = 3;
  Communicator c;
  c.id = 1000;
  c.kind = "split";
  c.instances = {RankList::progression(0, 2), RankList::single(2)};
  t.comms.push_back(c);
  Event init;
  init.op = Op::Init;
  init.ranks = RankList::all(3);
  t.events.push_back(init);
  const auto classes = summaryClasses(t);
  ASSERT_EQ(classes.size(), 2u);
  EXPECT_EQ(classes[0], RankList::progression(0, 2));
  EXPECT_EQ(classes[1], RankList::single(2));
}

}  // namespace
}  // namespace tracegen
