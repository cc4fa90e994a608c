// Receives are matched with their sends, so that languages whose receive statement names
// the message (coNCePTuaL) receive what was sent, not what was posted.
#include <gtest/gtest.h>

#include "gen/ReceivedBytes.h"
#include "gen/Traversal.h"
#include "io/Readers.h"
#include "passes/PassManager.h"

using namespace tracegen;
using namespace tracegen::gen;

namespace {

Trace lowered(const std::string& path) {
  Trace t = readTraceFile(path);
  PassContext ctx;
  ctx.options.instructionRate = 1e9;
  PassManager({"resolve-comms", "resolve-wildcards", "summarize-timing"}).run(t, ctx);
  return t;
}

const Event& eventWithId(const Trace& t, std::int64_t id) {
  for (const auto& e : t.events)
    if (e.id == id) return e;
  throw std::out_of_range("no such event");
}

}  // namespace

TEST(ReceivedBytes, StopMessageIsSmallerThanThePostedReceive) {
  // The workers post 1000 doubles for every answer; the last answer is an empty stop message.
  Trace t = lowered(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/master-worker-3.tgt");
  ReceivedBytes rb = matchReceivedBytes(t);
  ASSERT_TRUE(rb.matched);
  ASSERT_EQ(rb.byEvent.size(), 1u);
  const Event& answers = eventWithId(t, 7);
  ASSERT_TRUE(rb.byEvent.count(&answers));
  const ParamValues& pv = rb.byEvent.at(&answers);
  ASSERT_EQ(pv.groups.size(), 1u);
  EXPECT_EQ(pv.groups[0].ranks, answers.ranks);
  EXPECT_EQ(pv.groups[0].values, (std::vector<std::int64_t>{8000, 8000, 8000, 8000, 8000, 0}));

  // The program's receive statement carries it; without matching it does not.
  Program with = buildProgram(t, "mw", &rb);
  Program without = buildProgram(t, "mw");
  auto receiveOf7 = [](const Program& p) -> const CallStmt* {
    std::function<const CallStmt*(const std::vector<Stmt>&)> find = [&](const std::vector<Stmt>& body) -> const CallStmt* {
      for (const auto& s : body) {
        if (s.kind == Stmt::Kind::Loop) {
          if (auto* c = find(s.loop.body)) return c;
        } else if (s.call.event->id == 7) {
          return &s.call;
        }
      }
      return nullptr;
    };
    return find(p.body);
  };
  ASSERT_NE(receiveOf7(with), nullptr);
  ASSERT_TRUE(receiveOf7(with)->receivedBytes.has_value());
  EXPECT_EQ(receiveOf7(with)->receivedBytes->eval(1, 3, 5, {}), 0);
  EXPECT_EQ(receiveOf7(with)->receivedBytes->eval(2, 3, 4, {}), 8000);
  EXPECT_FALSE(receiveOf7(without)->receivedBytes.has_value());
}

TEST(ReceivedBytes, ExactReceivesNeedNothing) {
  for (const char* name : {"scalatrace2-npb-td-lu-A-4.trace", "scalatrace2-npb-ti-cg-A-4.trace"}) {
    SCOPED_TRACE(name);
    Trace t = lowered(std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/" + name);
    ReceivedBytes rb = matchReceivedBytes(t);
    EXPECT_TRUE(rb.matched);
    EXPECT_TRUE(rb.byEvent.empty());
  }
}

TEST(ReceivedBytes, OverTheBudgetTheTraceIsNotExpanded) {
  Trace t = lowered(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/master-worker-3.tgt");
  ReceivedBytes rb = matchReceivedBytes(t, 10);
  EXPECT_FALSE(rb.matched);
  EXPECT_TRUE(rb.byEvent.empty());
}

namespace {

struct LoweredWithContext {
  Trace trace;
  PassContext ctx;
};

LoweredWithContext loweredByDefault(const std::string& path) {
  LoweredWithContext out{readTraceFile(path), {}};
  out.ctx.options.instructionRate = 1e9;
  PassManager(defaultPipeline()).run(out.trace, out.ctx);
  return out;
}

std::vector<std::string> bundledTraces() {
  std::vector<std::string> out;
  for (const char* name : {"imbalanced-2.tgt", "lcs-nested-2.tgt", "master-worker-3.tgt", "progression-2.tgt",
                           "ring-4.tgt", "shift-null-4.tgt", "stencil-2d-4.tgt", "timing-groups-4.tgt",
                           "vector-loop-4.tgt", "waitsome-2.tgt"})
    out.push_back(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/" + name);
  for (const char* name : {"scalatrace2-npb-td-lu-A-4.trace", "scalatrace2-npb-ti-cg-A-4.trace",
                           "scalatrace2-npb-ti-lu-A-4.trace", "scalatrace2-npb-tic-lu-A-4.trace"})
    out.push_back(std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/" + name);
  return out;
}

}  // namespace

TEST(ReceivedBytes, ThePassesRunDecidesWithoutExpandingACall) {
  // resolve-wildcards simulated the LU code's run (its repeats skipped) and matched every
  // receive with a message of the size it posts: with that, a budget of 10 calls still gives
  // the exact answer. The shape alone cannot say it: rank 0 sends rank 1 messages of several
  // sizes on one tag, which only their order tells apart.
  LoweredWithContext lu = loweredByDefault(std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/scalatrace2-npb-td-lu-A-4.trace");
  ASSERT_TRUE(lu.ctx.everySendReceivedHolds());
  ASSERT_TRUE(lu.ctx.receivesTakeWhatTheyPostHolds());
  EXPECT_FALSE(sizesFollowPosts(lu.trace));
  const ReceivedBytes fast = matchReceivedBytes(lu.trace, 10, true, true);
  EXPECT_TRUE(fast.matched);
  EXPECT_TRUE(fast.byEvent.empty());
  EXPECT_EQ(fast.unreceived, 0);
  // Without the passes' word the walk is needed, and 10 calls are not enough for it.
  EXPECT_FALSE(matchReceivedBytes(lu.trace, 10, true, false).matched);
  EXPECT_FALSE(matchReceivedBytes(lu.trace, 10, false, true).matched);

  // The master's stop message is smaller than what the workers post: neither the run nor the
  // shape says the receives are exact, so the walk runs and finds the stop message.
  LoweredWithContext mw = loweredByDefault(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/master-worker-3.tgt");
  EXPECT_FALSE(mw.ctx.receivesTakeWhatTheyPostHolds());
  EXPECT_FALSE(sizesFollowPosts(mw.trace));
  EXPECT_EQ(matchReceivedBytes(mw.trace, 10'000'000, mw.ctx.everySendReceivedHolds(),
                               mw.ctx.receivesTakeWhatTheyPostHolds())
                .byEvent.size(),
            1u);
}

TEST(ReceivedBytes, TheShapeDecidesWhereEveryPeerSendsOneSize) {
  // The 2-D stencil's halo messages: each direction one size; the compressed form shows that
  // every receive takes what it posts.
  LoweredWithContext st = loweredByDefault(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/stencil-2d-4.tgt");
  EXPECT_TRUE(sizesFollowPosts(st.trace));
  ASSERT_TRUE(st.ctx.everySendReceivedHolds());
  const ReceivedBytes fast = matchReceivedBytes(st.trace, 10, true, false);
  EXPECT_TRUE(fast.matched);
  EXPECT_TRUE(fast.byEvent.empty());
}

TEST(ReceivedBytes, ThePassesAndTheShapeAgreeWithTheWalkOnEveryBundledTrace) {
  int decidedWithoutWalk = 0;
  for (const std::string& path : bundledTraces()) {
    SCOPED_TRACE(path);
    LoweredWithContext l = loweredByDefault(path);
    const ReceivedBytes walked = matchReceivedBytes(l.trace);
    ASSERT_TRUE(walked.matched);
    // The passes' verdict is the walk's count of messages left over.
    if (l.ctx.everySendReceivedHolds()) {
      EXPECT_EQ(walked.unreceived, 0);
    }
    if (sizesFollowPosts(l.trace) || l.ctx.receivesTakeWhatTheyPostHolds()) {
      EXPECT_TRUE(walked.byEvent.empty());
    }
    if (!l.ctx.everySendReceivedHolds() || !(sizesFollowPosts(l.trace) || l.ctx.receivesTakeWhatTheyPostHolds()))
      continue;
    ++decidedWithoutWalk;
    const ReceivedBytes fast = matchReceivedBytes(l.trace, 10, true, l.ctx.receivesTakeWhatTheyPostHolds());
    EXPECT_TRUE(fast.matched);
    EXPECT_TRUE(fast.byEvent.empty());
    EXPECT_EQ(fast.unreceived, 0);
  }
  EXPECT_GE(decidedWithoutWalk, 10);  // most of them: the shortcut is the common case
}
