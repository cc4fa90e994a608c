// Communicators with an explicit rank order: the model, the text format, resolve-comms
// (split keys), the cursor and the verifier.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <map>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "io/TextLines.h"
#include "ir/Verify.h"
#include "passes/PassManager.h"

using namespace tracegen;

namespace {

// Four ranks, one communicator 1000 whose rank k is world rank order[k]; every rank sends to
// communicator rank (k + 1) mod 4 and receives from (k + 3) mod 4, and rank 0 of the
// communicator broadcasts.
std::string ringOn(const std::string& instance) {
  return "tracegen-trace 1\n"
         "ranks 4\n"
         "datatype MPI_INT 4\n"
         "comm 1000 split " + instance + "\n"
         "event 0 MPI_Init @ <1 0 {4 1}>\n"
         "event 1 MPI_Comm_split @ <1 0 {4 1}>\n"
         "  comm 2\n"
         "  color 0\n"
         "  key 0\n"
         "  newcomm 1000\n"
         "event 2 MPI_Bcast @ <1 0 {4 1}>\n"
         "  comm 1000\n"
         "  count 1\n"
         "  datatype MPI_INT\n"
         "  root 0\n"
         "event 3 MPI_Finalize @ <1 0 {4 1}>\n";
}

void expectError(const std::string& text, int line, const std::string& what) {
  try {
    readTracegenText(sourceFromString("bad.tgt", text));
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
    EXPECT_EQ(std::string(e.what()).rfind("bad.tgt:" + std::to_string(line) + ": error: ", 0), 0u) << e.what();
  }
}

std::map<Rank, Rank> roots(const Trace& t) {
  std::map<Rank, Rank> out;
  for (Rank r = 0; r < t.numRanks; ++r) {
    RankCursor c(t, r);
    Call call;
    while (c.next(call))
      if (call.op == Op::Bcast) out[r] = call.root;
  }
  return out;
}

}  // namespace

TEST(RankOrder, ModelMapsBothWays) {
  Communicator c{1000, "split", {RankList::all(4), RankList::progression(4, 2)}};
  c.setOrder(0, {3, 2, 0, 1});
  c.setOrder(1, {4, 5});  // ascending: stored as none
  EXPECT_EQ(c.orders.size(), 1u);
  EXPECT_EQ(c.worldRank(0, 0), 3);
  EXPECT_EQ(c.worldRank(0, 3), 1);
  EXPECT_EQ(c.commRank(0, 3), 0);
  EXPECT_EQ(c.commRank(0, 1), 3);
  EXPECT_EQ(c.commRank(0, 5), -1);
  EXPECT_EQ(c.worldRank(1, 1), 5);
  EXPECT_EQ(c.commRank(1, 4), 0);
  EXPECT_EQ(c.orderOf(1), nullptr);
  c.setOrder(0, {0, 1, 2, 3});
  EXPECT_TRUE(c.orders.empty());
}

TEST(RankOrder, TextFormatRoundTripsAndOnlyWritesReorderedInstances) {
  Trace t = readTracegenText(sourceFromString("order.tgt", ringOn("(<1 0 {4 1}> order 3 2 0 1)")));
  const Communicator* c = t.comm(1000);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(c->orderOf(0), nullptr);
  EXPECT_EQ(*c->orderOf(0), (std::vector<Rank>{3, 2, 0, 1}));
  const std::string text = tracegenText(t);
  EXPECT_NE(text.find("comm 1000 split (<1 0 {4 1}> order 3 2 0 1)\n"), std::string::npos) << text;
  EXPECT_EQ(readTracegenText(sourceFromString("again.tgt", text)), t);
  // An ascending order is the default and is not written back.
  Trace plain = readTracegenText(sourceFromString("plain.tgt", ringOn("(<1 0 {4 1}> order 0 1 2 3)")));
  EXPECT_TRUE(plain.comm(1000)->orders.empty());
  EXPECT_EQ(tracegenText(plain).find("order"), std::string::npos);
}

TEST(RankOrder, TextFormatRejectsWhatIsNoPermutation) {
  expectError(ringOn("(<1 0 {4 1}> order 3 2 0 7)"), 4, "rank 7 in the order is not a member");
  expectError(ringOn("(<1 0 {4 1}> order 3 2 2 1)"), 4, "rank 2 appears twice in the order");
  expectError(ringOn("(<1 0 {4 1}> order 3 2 0)"), 4, "names 3 ranks but the instance");
  expectError(ringOn("(<1 0 {4 1}> order 3 2 0 1 0)"), 4, "more ranks than the instance");
  expectError(ringOn("(<1 0 {4 1}> order 3 x 0 1)"), 4, "bad number 'x'");
}

TEST(RankOrder, CursorTranslatesPeersThroughTheOrder) {
  Trace t = readTracegenText(sourceFromString("order.tgt", ringOn("(<1 0 {4 1}> order 3 2 0 1)")));
  for (auto [r, root] : roots(t)) EXPECT_EQ(root, 3) << "rank " << r;  // communicator rank 0 is world rank 3
  PassContext ctx;
  PassManager({"resolve-comms"}).run(t, ctx);
  EXPECT_TRUE(t.worldPeers);
  for (auto [r, root] : roots(t)) EXPECT_EQ(root, 3) << "rank " << r;
}

// HPL's pattern: keys that reorder the new communicator (here 3, 2, 0, 1 from keys 2, 3, 1, 0),
// in a trace without a communicator table (ScalaTrace's), so resolve-comms builds the order.
TEST(RankOrder, ResolveCommsOrdersSplitsByKey) {
  Trace t = readTracegenText(sourceFromString("keys.tgt",
                                              "tracegen-trace 1\n"
                                              "ranks 4\n"
                                              "datatype MPI_INT 4\n"
                                              "event 0 MPI_Init @ <1 0 {4 1}>\n"
                                              "event 1 MPI_Comm_split @ <1 0 {4 1}>\n"
                                              "  comm 2\n"
                                              "  color 0\n"
                                              "  key 2 @ <0 0>\n"
                                              "  key 3 @ <0 1>\n"
                                              "  key 1 @ <0 2>\n"
                                              "  key 0 @ <0 3>\n"
                                              "event 2 MPI_Bcast @ <1 0 {4 1}>\n"
                                              "  comm 1000\n"
                                              "  count 1\n"
                                              "  datatype MPI_INT\n"
                                              "  root 1\n"
                                              "event 3 MPI_Finalize @ <1 0 {4 1}>\n"));
  PassContext ctx;
  PassManager({"resolve-comms"}).run(t, ctx);
  const Communicator* c = t.comm(1000);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(c->orderOf(0), nullptr);
  EXPECT_EQ(*c->orderOf(0), (std::vector<Rank>{3, 2, 0, 1}));
  for (auto [r, root] : roots(t)) EXPECT_EQ(root, 2) << "rank " << r;  // communicator rank 1
  EXPECT_EQ(ctx.stats["resolve-comms"]["reordered-instances"], 1);
}

TEST(RankOrder, VerifierRejectsACommunicatorNobodyCreated) {
  const std::string text =
      "tracegen-trace 1\n"
      "ranks 2\n"
      "event 0 MPI_Init @ <1 0 {2 1}>\n"
      "event 1 MPI_Comm_free @ <1 0 {2 1}>\n"
      "  comm -1\n"
      "event 2 MPI_Finalize @ <1 0 {2 1}>\n";
  expectError(text, 4, "communicator -1 was never created");  // the event's line
  // With a communicator table (a recorded trace), an id the table lacks is an error too.
  std::string undeclared = text;
  undeclared.replace(undeclared.find("comm -1"), 7, "comm 1004");
  undeclared.replace(undeclared.find("event 0"), 0, "comm 1000 split (<1 0 {2 1}>)\n");
  expectError(undeclared, 5, "communicator 1004 was never created");
}
