// ir/Summary.cpp: per-rank figures computed once per rank class must equal the figures of
// expanding every rank directly, on every bundled trace that reads (samples, the ScalaTrace
// traces, the check cases and structure cases); totals must be the sum of the rows.
#include <gtest/gtest.h>

#include <filesystem>

#include "ir/Diagnostics.h"
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
