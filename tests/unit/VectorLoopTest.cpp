// Loops whose trip count and body length are vectors consumed once per entry (ScalaTrace's
// LCS loop builds, §8 "Value vectors" of the format reference) and trace fragments without
// MPI_Init/MPI_Finalize: the readers, the verifier and RankCursor's expansion. The traces are
// tests/data/scalatrace-structures/*.trace and their tgt counterparts in samples/traces/;
// TraversalTest generates programs from the same traces.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "io/TextLines.h"
#include "ir/Verify.h"

namespace tracegen {
namespace {

std::string structures(const std::string& name) {
  return std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace-structures/" + name;
}
std::string sample(const std::string& name) { return std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/" + name; }

struct Expanded {
  std::vector<std::int64_t> events;  // event id per call
  std::vector<std::int64_t> counts;
  std::vector<Rank> peers;
};

Expanded expand(const Trace& t, Rank r) {
  Expanded x;
  RankCursor cursor(t, r);
  Call c;
  while (cursor.next(c)) {
    x.events.push_back(c.event->id);
    x.counts.push_back(c.count);
    x.peers.push_back(c.peer);
  }
  return x;
}

// Event ids of `body` repeated by the outer loop's iterations.
std::vector<std::int64_t> ids(std::initializer_list<std::vector<std::int64_t>> parts) {
  std::vector<std::int64_t> v;
  for (const auto& p : parts) v.insert(v.end(), p.begin(), p.end());
  return v;
}

// Per time step: the Barrier (1), then Allreduce (2), Bcast (3) and Sendrecv (4) twice on the
// first step and once on the others, whatever the loop shape that recorded them.
const std::vector<std::int64_t> kVectorLoopCalls =
    ids({{0}, {1, 2, 3, 4, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}, {5}});

TEST(VectorLoop, ScalaTraceReaderKeepsPerEntryValues) {
  Trace t = readTraceFile(structures("vector-loop-4.trace"));
  ASSERT_EQ(t.numRanks, 4);
  ASSERT_EQ(t.events.size(), 6u);
  const LoopLevel& lv = t.events[2].loops.at(0);
  ASSERT_EQ(lv.iter.size(), 1u);
  EXPECT_EQ(lv.iter[0].values, (std::vector<std::int64_t>{2, 1, 1, 1, 1}));
  ASSERT_EQ(lv.mem.size(), 1u);
  EXPECT_EQ(lv.mem[0].values, (std::vector<std::int64_t>{3, 2, 2, 1, 1}));
  EXPECT_EQ(lv.mem[0].ranks.pretty(), "0-3");
  EXPECT_TRUE(t.warnings.empty());
}

TEST(VectorLoop, ExpansionFollowsTheBodyLengthOfEachEntry) {
  for (const char* path : {"vector-loop-4.trace", "vector-loop-4.tgt"}) {
    SCOPED_TRACE(path);
    Trace t = readTraceFile(std::string(path).ends_with(".tgt") ? sample(path) : structures(path));
    for (Rank r = 0; r < 4; ++r) {
      Expanded x = expand(t, r);
      EXPECT_EQ(x.events, kVectorLoopCalls) << "rank " << r;
      // The Bcast's counts cycle over its executions across the loop shapes.
      std::vector<std::int64_t> bcast;
      for (std::size_t i = 0; i < x.events.size(); ++i)
        if (x.events[i] == 3) bcast.push_back(x.counts[i]);
      EXPECT_EQ(bcast, (std::vector<std::int64_t>{1, 2, 3, 1, 2, 3})) << "rank " << r;
    }
  }
}

TEST(VectorLoop, NestedLoopsAtOneHead) {
  // LOOP1 iter (1 2) mem (3 2) inside a 4-iteration LOOP0 of 3 events.
  const auto calls = ids({{0}, {1, 2, 3}, {1, 2, 1, 2, 3}, {1, 2, 3}, {1, 2, 1, 2, 3}, {4}});
  for (const std::string& path : {structures("lcs-nested-2.trace"), sample("lcs-nested-2.tgt")}) {
    SCOPED_TRACE(path);
    Trace t = readTraceFile(path);
    for (Rank r = 0; r < 2; ++r) {
      Expanded x = expand(t, r);
      EXPECT_EQ(x.events, calls) << "rank " << r;
      std::vector<std::int64_t> sizes;
      for (std::size_t i = 0; i < x.events.size(); ++i)
        if (x.events[i] == 1) {
          sizes.push_back(x.counts[i]);
          EXPECT_EQ(x.peers[i], 1 - r);
        }
      EXPECT_EQ(sizes, (std::vector<std::int64_t>{8, 16, 8, 16, 8, 16}));
    }
  }
}

// A loop (C) whose body length per entry fits only the enclosing body of that entry: inside
// B's two-event body on the first entry, C spans one event; on the second entry B's body is B
// alone and C, now in A's body, spans C and D. Checking every body length of C against every
// enclosing body (rather than entry by entry) rejects this valid trace.
std::string shapeTrace(const std::string& cMem) {
  return "tracegen-trace 1\nranks 2\norigin test\n"
         "event 0 MPI_Init @ <1 0 {2 1}>\n"
         "event 1 MPI_Barrier @ <1 0 {2 1}>\n  loop 0 iter 2\n  loop 0 mem 4\n"
         "event 2 MPI_Barrier @ <1 0 {2 1}>\n  loop 0 iter 1 1\n  loop 0 mem 2 1\n"
         "event 3 MPI_Barrier @ <1 0 {2 1}>\n  loop 0 iter 1 3\n  loop 0 mem " + cMem + "\n"
         "event 4 MPI_Barrier @ <1 0 {2 1}>\n"
         "event 5 MPI_Finalize @ <1 0 {2 1}>\n";
}

TEST(VectorLoop, VerifierChecksEachEntryAgainstItsOwnEnclosingBody) {
  Trace t = readTrace(sourceFromString("shape.tgt", shapeTrace("1 2")));
  EXPECT_NO_THROW(verifyStructure(t, "shape.tgt"));
  EXPECT_EQ(expand(t, 0).events, ids({{0}, {1, 2, 3, 4}, {1, 2, 3, 4, 3, 4, 3, 4}, {5}}));
  // Swapped, C's first entry (two events) no longer fits B's two-event body.
  try {
    readTrace(sourceFromString("shape.tgt", shapeTrace("2 1")));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 11) << e.render();  // the event (tgt loop lines have no lines of their own)
    EXPECT_NE(e.message().find("event 3 (MPI_Barrier): loop level 0 spans 2 events on an entry where rank 0 has only 1 "
                               "events left in the enclosing loop body"),
              std::string::npos)
        << e.render();
  }
}

TEST(VectorLoop, RankCursorRefusesABodyThatOverrunsItsEntry) {
  // The verifier's entry-by-entry walk is what readers run; RankCursor checks on its own too.
  Trace t = readTrace(sourceFromString("shape.tgt", shapeTrace("1 2")));
  t.events[3].loops[0].mem[0].values = {2, 1};
  RankCursor cursor(t, 0, "shape.tgt");
  Call c;
  try {
    while (cursor.next(c)) {
    }
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("loop level 0 spans 2 events but rank 0 has only 1 left in the enclosing loop body"),
              std::string::npos)
        << e.render();
  }
}

TEST(VectorLoop, FragmentGetsInitAndFinalizeWithWarnings) {
  Trace t = readTraceFile(structures("fragment-4.trace"));
  ASSERT_EQ(t.events.size(), 5u);
  EXPECT_EQ(t.events.front().op, Op::Init);
  EXPECT_EQ(t.events.back().op, Op::Finalize);
  // The file's events keep their numbers (5-7); the added ones take the next free ones.
  EXPECT_EQ(t.events[1].id, 5);
  EXPECT_EQ(t.events[3].id, 7);
  EXPECT_EQ(t.events.front().id, 8);
  EXPECT_EQ(t.events.back().id, 9);
  ASSERT_EQ(t.warnings.size(), 2u);
  const std::string file = structures("fragment-4.trace");
  EXPECT_EQ(t.warnings[0].rfind(file + ":1: the trace starts with event 5 (MPI_Barrier), not MPI_Init", 0), 0u) << t.warnings[0];
  EXPECT_NE(t.warnings[1].find("the trace ends with event 7 (MPI_Sendrecv), not MPI_Finalize"), std::string::npos)
      << t.warnings[1];
  for (Rank r = 0; r < 4; ++r) {
    Expanded x = expand(t, r);
    ASSERT_EQ(x.events.size(), 2u + 30u);
    EXPECT_EQ(x.events.front(), 8);
    EXPECT_EQ(x.events[1], 5);
    EXPECT_EQ(x.events.back(), 9);
  }
  // A whole trace has no warning.
  EXPECT_TRUE(readTraceFile(structures("lcs-nested-2.trace")).warnings.empty());
}

}  // namespace
}  // namespace tracegen
