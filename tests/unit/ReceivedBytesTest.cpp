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
