// timing/MergeTiming: the median of several recordings' times, and the refusal of recordings
// that are not one program.
#include <gtest/gtest.h>

#include <string>

#include "io/Readers.h"
#include "io/TextLines.h"
#include "ir/Diagnostics.h"
#include "timing/MergeTiming.h"

namespace tracegen {
namespace {

// One recording of a 4-rank program: MPI_Init, a loop of 10 MPI_Barrier calls, MPI_Finalize. The
// barrier's compute times: `groups` (one or more `time comp ...` lines), the footprint `kb`.
std::string recording(const std::string& groups, int kb = 1000, const std::string& count = "10") {
  return "tracegen-trace 1\nranks 4\norigin tracegen-record\n"
         "footprint memory-kb " + std::to_string(kb) + "\nfootprint before-init-us 100\n"
         "event 0 MPI_Init @ <1 0 {4 1}>\n  site a.c:1\n"
         "event 1 MPI_Barrier @ <1 0 {4 1}>\n  site a.c:2\n  loop 0 iter " + count + "\n  loop 0 mem 1\n  comm 2\n" +
         groups +
         "event 2 MPI_Finalize @ <1 0 {4 1}>\n  site a.c:3\n";
}

std::string steady(double us) {
  return "  time comp us after a.c:2 n=40 avg=" + std::to_string(us) + " min=" + std::to_string(us) + "@0 max=" +
         std::to_string(us) + "@1 bins=[10 1000]\n";
}

Trace parse(const std::string& name, const std::string& text) { return readTracegenText(sourceFromString(name, text)); }

const TimeStat* statFor(const Trace& t, Rank r) {
  for (const TimeStat& s : t.events[1].stats)
    if (s.phase == Phase::Compute && t.siteName(s.after) == "a.c:2" && s.covers(r)) return &s;
  return nullptr;
}

TEST(MergeTiming, KeepsTheMedianOfThreeRecordingsAndTheSpread) {
  const std::vector<Trace> rs{parse("r1.tgt", recording(steady(100), 1000)), parse("r2.tgt", recording(steady(140), 1300)),
                              parse("r3.tgt", recording(steady(110), 1100))};
  const Trace m = mergeTimings(rs, {"r1.tgt", "r2.tgt", "r3.tgt"});
  const TimeStat* s = statFor(m, 2);
  ASSERT_NE(s, nullptr);
  EXPECT_DOUBLE_EQ(s->hist.mean(), 110);
  EXPECT_EQ(s->hist.n, 40);
  ASSERT_EQ(m.memoryKb.size(), 1u);
  EXPECT_EQ(m.memoryKb[0].values, std::vector<std::int64_t>{1100});
  EXPECT_EQ(m.recordings.count, 3);
  EXPECT_NEAR(m.recordings.spreadMax, 40.0 / 110.0, 1e-12);
  EXPECT_EQ(m.recordings.spreadMaxEvent, 1);
  // Written and read back with its header line.
  const Trace again = parse("m.tgt", tracegenText(m));
  EXPECT_EQ(again.recordings.count, 3);
  EXPECT_NEAR(again.recordings.spreadMax, m.recordings.spreadMax, 1e-9);
  EXPECT_EQ(again, m);
}

TEST(MergeTiming, AnEvenCountTakesTheMeanOfTheMiddleTwo) {
  const std::vector<Trace> rs{parse("r1.tgt", recording(steady(100))), parse("r2.tgt", recording(steady(120)))};
  const Trace m = mergeTimings(rs, {"r1.tgt", "r2.tgt"});
  EXPECT_DOUBLE_EQ(statFor(m, 0)->hist.mean(), 110);
}

TEST(MergeTiming, TimingGroupsThatDifferAreRefinedIntoTheirCommonPieces) {
  // r1: ranks 0-1 slow (200), 2-3 fast (100); r2: rank 0 slow, 1-3 fast; r3: all at 150.
  const std::string r1 =
      "  time comp us after a.c:2 @ <1 0 {2 1}> n=20 avg=200 min=200@0 max=200@1 bins=[100 1000]\n"
      "  time comp us after a.c:2 @ <1 2 {2 1}> n=20 avg=100 min=100@2 max=100@3 bins=[10 1000]\n";
  const std::string r2 =
      "  time comp us after a.c:2 @ <1 0 {1 1}> n=10 avg=210 min=210@0 max=210@0 bins=[100 1000]\n"
      "  time comp us after a.c:2 @ <1 1 {3 1}> n=30 avg=90 min=90@1 max=90@3 bins=[10 1000]\n";
  const std::vector<Trace> rs{parse("r1.tgt", recording(r1)), parse("r2.tgt", recording(r2)),
                              parse("r3.tgt", recording(steady(150)))};
  const Trace m = mergeTimings(rs, {"r1.tgt", "r2.tgt", "r3.tgt"});
  EXPECT_DOUBLE_EQ(statFor(m, 0)->hist.mean(), 200);  // 200, 210, 150
  EXPECT_DOUBLE_EQ(statFor(m, 1)->hist.mean(), 150);  // 200, 90, 150
  EXPECT_DOUBLE_EQ(statFor(m, 2)->hist.mean(), 100);  // 100, 90, 150
  EXPECT_DOUBLE_EQ(statFor(m, 3)->hist.mean(), 100);
  EXPECT_EQ(statFor(m, 2), statFor(m, 3));  // one piece
}

TEST(MergeTiming, RecordingsOfAnotherRunAreRefusedAtTheirFirstDifference) {
  const std::vector<Trace> rs{parse("r1.tgt", recording(steady(100))), parse("r2.tgt", recording(steady(100), 1000, "11"))};
  try {
    mergeTimings(rs, {"r1.tgt", "r2.tgt"});
    FAIL() << "merged recordings of different runs";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "r2.tgt");
    EXPECT_EQ(e.line(), 8);  // its event 1
    EXPECT_NE(e.message().find("event 1 MPI_Barrier at a.c:2 is not event 1 of r1.tgt (line 8)"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("other loops"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace tracegen
