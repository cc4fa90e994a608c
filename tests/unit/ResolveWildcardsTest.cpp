// Tests of resolve-wildcards and the point-to-point verifier: small traces built in C++ whose
// only completing matching (or deadlock) is known, a wavefront like NPB LU's, and the real
// LU/CG traces.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fmt/format.h>
#include <map>
#include <set>
#include <type_traits>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "ir/Verify.h"
#include "tests/unit/SanitizerScale.h"
#include "passes/PointToPointCheck.h"
#include "passes/CheckCommunication.h"
#include "passes/PassManager.h"
#include "passes/ResolveWildcards.h"
#include "sim/Deadlock.h"

namespace tracegen {
namespace {

constexpr std::int64_t kDouble = 10;

// One rank's view of an event: its loop levels (iterations, body length), outermost first,
// and its parameter value lists.
struct Part {
  std::vector<std::pair<std::int64_t, std::int64_t>> loops;
  std::map<Param, std::vector<std::int64_t>> params;
};
using Loops = std::vector<std::pair<std::int64_t, std::int64_t>>;

Part p2p(Param peer, std::vector<std::int64_t> peers, Loops loops = {}) {
  Part p;
  p.loops = std::move(loops);
  p.params = {{Param::Comm, {kCommWorld}}, {Param::Count, {4}}, {Param::Datatype, {kDouble}}, {Param::Tag, {0}}};
  p.params[peer] = std::move(peers);
  return p;
}
Part sendTo(std::vector<std::int64_t> dests, Loops loops = {}) { return p2p(Param::Dest, std::move(dests), std::move(loops)); }
Part recvFrom(std::vector<std::int64_t> sources, Loops loops = {}) { return p2p(Param::Source, std::move(sources), std::move(loops)); }
Part barrier() { return Part{{}, {{Param::Comm, {kCommWorld}}}}; }
Part waitLatest() { return Part{{}, {{Param::Request, {kLatestRequest}}}}; }

template <class T>
std::vector<ValueGroup> groupsOf(const std::map<Rank, T>& byRank) {
  std::map<T, std::vector<Rank>> classes;
  for (const auto& [r, v] : byRank) classes[v].push_back(r);
  std::vector<ValueGroup> out;
  for (const auto& [v, ranks] : classes) {
    if constexpr (std::is_same_v<T, std::int64_t>) out.push_back({RankList::fromSorted(ranks), {v}});
    else out.push_back({RankList::fromSorted(ranks), v});
  }
  return out;
}

// Adds an event executed by the ranks of `parts`; ranks with equal loop counts or value lists
// share a group, as in a clustered trace. Peers are stored as given (offsets if `relative`).
Event& addEvent(Trace& t, Op op, const std::map<Rank, Part>& parts, bool relative = false) {
  Event e;
  e.id = static_cast<std::int64_t>(t.events.size());
  e.op = op;
  e.site = t.internSite(fmt::format("site{}", e.id));
  e.line = static_cast<int>(100 + e.id);
  std::vector<Rank> ranks;
  std::size_t depth = 0;
  for (const auto& [r, p] : parts) {
    ranks.push_back(r);
    depth = std::max(depth, p.loops.size());
  }
  e.ranks = RankList::fromSorted(ranks);
  for (std::size_t k = 0; k < depth; ++k) {
    std::map<Rank, std::int64_t> iter, mem;
    for (const auto& [r, p] : parts)
      if (p.loops.size() > k) {
        iter[r] = p.loops[k].first;
        mem[r] = p.loops[k].second;
      }
    e.loops.push_back({groupsOf(iter), groupsOf(mem)});
  }
  std::set<Param> params;
  for (const auto& [r, p] : parts)
    for (const auto& kv : p.params) params.insert(kv.first);
  for (Param param : params) {
    std::map<Rank, std::vector<std::int64_t>> values;
    for (const auto& [r, p] : parts) values[r] = p.params.at(param);
    e.setParam(param, groupsOf(values), relative && isPeerParam(param));
  }
  t.events.push_back(std::move(e));
  return t.events.back();
}

std::map<Rank, Part> onRanks(std::initializer_list<Rank> ranks, const Part& p) {
  std::map<Rank, Part> m;
  for (Rank r : ranks) m[r] = p;
  return m;
}
std::map<Rank, Part> onAll(Rank P, const Part& p) {
  std::map<Rank, Part> m;
  for (Rank r = 0; r < P; ++r) m[r] = p;
  return m;
}

Trace newTrace(Rank P) {
  Trace t;
  t.numRanks = P;
  t.origin = "unit";
  t.comms = standardCommunicators(P);
  t.datatypes = {{kDouble, "MPI_DOUBLE", 8}};
  addEvent(t, Op::Init, onAll(P, Part{}));
  return t;
}

void finish(Trace& t) {
  addEvent(t, Op::Finalize, onAll(t.numRanks, Part{}));
  verifyStructure(t, "unit");  // the builders above must make well-formed traces
}

PassContext runPass(Trace& t, std::int64_t budget = 100000, bool recordedSenders = true) {
  PassContext ctx;
  ctx.fileName = "unit";
  ctx.currentPass = "resolve-wildcards";
  ctx.options.wildcardSearchBudget = budget;
  ctx.options.recordedSenders = recordedSenders;
  createResolveWildcardsPass()->run(t, ctx);
  // Wildcards whose sender is forced are resolved on the compressed form without simulating;
  // whether the program then completes is check-communication's to say.
  ctx.currentPass = "check-communication";
  createCheckCommunicationPass()->run(t, ctx);
  ctx.currentPass = "resolve-wildcards";
  return ctx;
}

std::int64_t counter(PassContext& ctx, const std::string& name) {
  auto& m = ctx.stats["resolve-wildcards"];
  auto it = m.find(name);
  return it == m.end() ? -1 : it->second;
}

// The sources rank r's executions of event `id` receive from, expanded.
std::vector<Rank> sources(const Trace& t, Rank r, std::int64_t id) {
  RankCursor cursor(t, r);
  Call c;
  std::vector<Rank> out;
  while (cursor.next(c))
    if (c.event->id == id) out.push_back(c.op == Op::Sendrecv ? c.recvPeer : c.peer);
  return out;
}

bool anyWildcardLeft(const Trace& t) {
  for (const auto& e : t.events)
    if (const ParamValues* s = e.param(Param::Source))
      for (const auto& g : s->groups)
        for (auto v : g.values)
          if (v == kAnySource) return true;
  return false;
}

// Runs the pass expecting a DeadlockError; returns it.
DeadlockError expectDeadlock(Trace& t, std::int64_t budget = 100000) {
  try {
    runPass(t, budget);
  } catch (const DeadlockError& e) {
    return e;
  }
  ADD_FAILURE() << "no DeadlockError";
  return DeadlockError("", {}, {});
}

// (a) Rank 1 receives from anyone, then from rank 0; ranks 0 and 2 each send to it. Taking
// the earlier message (rank 0's) leaves the second receive without a sender.
Trace onlyLaterMessageCompletes() {
  Trace t = newTrace(3);
  addEvent(t, Op::Send, onRanks({0, 2}, sendTo({1})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({kAnySource})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({0})));
  finish(t);
  return t;
}

TEST(ResolveWildcards, TakesTheOnlyCompletingSenderAndWarns) {
  Trace t = onlyLaterMessageCompletes();
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 1, 2), std::vector<Rank>{2});
  EXPECT_EQ(sources(t, 1, 3), std::vector<Rank>{0});
  const ParamValues& src = *t.events[2].param(Param::Source);
  EXPECT_TRUE(src.relative);
  ASSERT_EQ(src.groups.size(), 1u);
  EXPECT_EQ(src.groups[0].values, std::vector<std::int64_t>{1});  // (2 - 1 + 3) mod 3
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("can deadlock under another matching"), std::string::npos) << ctx.warnings[0];
  EXPECT_NE(ctx.warnings[0].find("of rank 1 in event 2 (MPI_Recv at site2"), std::string::npos) << ctx.warnings[0];
  EXPECT_NE(ctx.warnings[0].find("must take the message from rank 2; taking the earlier-arrived message from rank 0 "
                                 "instead leads to a potential deadlock (rank 1 waits in event 3"),
            std::string::npos)
      << ctx.warnings[0];
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), 1);
  EXPECT_EQ(counter(ctx, "events-rewritten"), 1);
  EXPECT_EQ(counter(ctx, "search-restarts"), 1);
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

TEST(ResolveWildcards, BudgetExhaustionIsNoDeadlock) {
  // An exhausted search proves nothing: without recorded matches to follow it is a usage error
  // (raise --search-budget), not a DeadlockError (ExhaustedBudget* below).
  Trace t = onlyLaterMessageCompletes();
  const Trace before = t;
  EXPECT_THROW(runPass(t, 0), InputError);
  EXPECT_TRUE(t == before);  // nothing written on failure
}

TEST(ResolveWildcards, DecisionsBeyondTheKeptOptionsKeepTheirChoiceOnly) {
  // PassOptions::wildcardStoredOptions bounds what the search keeps to backtrack (a gather of
  // P ranks makes P decisions of up to P options). With room for one option, the first
  // decision (two senders) keeps its choice only: a run that completes needs nothing more...
  Trace t = newTrace(3);
  addEvent(t, Op::Send, onRanks({0, 2}, sendTo({1})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({kAnySource}, {{2, 1}})));
  finish(t);
  PassContext ctx;
  ctx.fileName = "unit";
  ctx.currentPass = "resolve-wildcards";
  ctx.options.wildcardStoredOptions = 1;
  createResolveWildcardsPass()->run(t, ctx);
  EXPECT_EQ(sources(t, 1, 2), (std::vector<Rank>{0, 2}));
  EXPECT_EQ(counter(ctx, "options-not-kept"), 1);
  // ...but one that must revisit that decision cannot: it stops as at the end of its budget,
  // naming the limit (and, without recorded senders to follow, as a usage error).
  Trace later = onlyLaterMessageCompletes();
  PassContext small;
  small.fileName = "unit";
  small.currentPass = "resolve-wildcards";
  small.options.wildcardStoredOptions = 1;
  try {
    createResolveWildcardsPass()->run(later, small);
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ran out of the memory it keeps to revisit decisions (1 option, --search-options)"), std::string::npos)
        << e.what();
  }
  // With the default room it finds the matching that completes.
  Trace again = onlyLaterMessageCompletes();
  runPass(again);
  EXPECT_EQ(sources(again, 1, 2), std::vector<Rank>{2});
}

TEST(ResolveWildcards, MixedListInOneEventIsRewrittenPerExecution) {
  // The same program with both receives in one event: values ANY, 0 consumed cyclically.
  Trace t = newTrace(3);
  addEvent(t, Op::Send, onRanks({0, 2}, sendTo({1})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({kAnySource, 0}, {{2, 1}})));
  finish(t);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 1, 2), (std::vector<Rank>{2, 0}));
  EXPECT_EQ(t.events[2].param(Param::Source)->groups[0].values, (std::vector<std::int64_t>{1, 2}));
  EXPECT_EQ(ctx.warnings.size(), 1u);
}

TEST(ResolveWildcards, EarliestArrivalNeedsNoSearch) {
  // Rank 1 takes two wildcard messages and then has nothing order-dependent left.
  Trace t = newTrace(3);
  addEvent(t, Op::Send, onRanks({0, 2}, sendTo({1})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({kAnySource}, {{2, 1}})));
  finish(t);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 1, 2), (std::vector<Rank>{0, 2}));
  EXPECT_TRUE(ctx.warnings.empty());
  EXPECT_EQ(counter(ctx, "search-restarts"), 0);
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), 2);
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

// (b) Both ranks block in a wildcard receive before sending.
TEST(ResolveWildcards, ReceiveBeforeSendDeadlocks) {
  Trace t = newTrace(2);
  addEvent(t, Op::Recv, onAll(2, recvFrom({kAnySource})));
  addEvent(t, Op::Send, onAll(2, sendTo({1})), /*relative=*/true);
  finish(t);
  DeadlockError e = expectDeadlock(t);
  const std::string msg = e.what();
  EXPECT_EQ(msg.rfind("potential deadlock: 2 of 2 ranks cannot progress", 0), 0u) << msg;
  // The sender of each wildcard is forced (only the other rank sends), so the receives name it.
  EXPECT_NE(msg.find("rank 0 waits in event 1 (MPI_Recv at site1, call 1) for a message from rank 1"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 1 waits in event 1 (MPI_Recv at site1, call 1) for a message from rank 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cycle: rank 0 -> rank 1 -> rank 0"), std::string::npos) << msg;
  EXPECT_EQ(e.blocked(), (std::vector<Rank>{0, 1}));
  EXPECT_EQ(e.cycle(), (std::vector<Rank>{0, 1, 0}));
}

// (e) Synchronous sends to each other before the receives: a cycle; standard sends complete.
TEST(ResolveWildcards, SynchronousSendCycleDeadlocks) {
  for (Op op : {Op::Ssend, Op::Send}) {
    Trace t = newTrace(2);
    addEvent(t, op, onAll(2, sendTo({1})), /*relative=*/true);
    addEvent(t, Op::Recv, onAll(2, recvFrom({kAnySource})));
    finish(t);
    if (op == Op::Send) {
      runPass(t);
      EXPECT_EQ(sources(t, 0, 2), std::vector<Rank>{1});
      EXPECT_EQ(sources(t, 1, 2), std::vector<Rank>{0});
      continue;
    }
    DeadlockError e = expectDeadlock(t);
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rank 0 waits in event 1 (MPI_Ssend at site1, call 1) for rank 1 to receive its synchronous send"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("rank 1 waits in event 1 (MPI_Ssend at site1, call 1) for rank 0 to receive its synchronous send"),
              std::string::npos)
        << msg;
    EXPECT_EQ(e.cycle(), (std::vector<Rank>{0, 1, 0}));
  }
}

// (f) Rank 0 enters a barrier while rank 1 waits for a message rank 0 sends after it.
TEST(ResolveWildcards, CollectiveAgainstReceiveDeadlocks) {
  Trace t = newTrace(2);
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({0})));
  addEvent(t, Op::Barrier, onAll(2, barrier()));
  addEvent(t, Op::Send, onRanks({0}, sendTo({1})));
  addEvent(t, Op::Send, onRanks({1}, sendTo({0})));
  addEvent(t, Op::Recv, onRanks({0}, recvFrom({kAnySource})));
  finish(t);
  DeadlockError e = expectDeadlock(t);
  const std::string msg = e.what();
  EXPECT_NE(msg.find("rank 0 waits in event 2 (MPI_Barrier at site2, call 1) for rank 1 to reach the same collective "
                     "(number 1 on communicator 2)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("rank 1 waits in event 1 (MPI_Recv at site1, call 1) for a message from rank 0"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cycle: rank 0 -> rank 1 -> rank 0"), std::string::npos) << msg;
}

TEST(ResolveWildcards, NoMatchingCompletesAfterExhaustiveSearch) {
  // Rank 0 posts three wildcard receives for two messages: every order deadlocks.
  Trace t = newTrace(3);
  addEvent(t, Op::Send, onRanks({1, 2}, sendTo({0})));
  addEvent(t, Op::Recv, onRanks({0}, recvFrom({kAnySource}, {{3, 1}})));
  finish(t);
  PassContext ctx;
  ctx.currentPass = "resolve-wildcards";
  try {
    createResolveWildcardsPass()->run(t, ctx);
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rank 0 waits in event 2 (MPI_Recv at site2, call 3) for a message from any rank"), std::string::npos) << msg;
    EXPECT_NE(msg.find("no matching of the wildcard receives completes"), std::string::npos) << msg;
  }
  EXPECT_EQ(ctx.stats["resolve-wildcards"]["search-restarts"], 1);
}

TEST(ResolveWildcards, SleepSetsSkipReorderedIndependentChoices) {
  // Ranks 0 and 1 each post three wildcard receives for the two messages ranks 2 and 3 send
  // them. The choices of the two receivers commute: 2 x 2 distinct matchings to refute, where
  // exploring every interleaving of the four decisions would take 24 runs.
  Trace t = newTrace(4);
  addEvent(t, Op::Recv, onRanks({0, 1}, recvFrom({kAnySource}, {{3, 1}})));
  addEvent(t, Op::Send, onRanks({2, 3}, sendTo({0, 1}, {{2, 1}})));
  finish(t);
  PassContext ctx;
  ctx.currentPass = "resolve-wildcards";
  ctx.options.wildcardSearchBudget = 100;
  try {
    createResolveWildcardsPass()->run(t, ctx);
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    EXPECT_NE(std::string(e.what()).find("no matching of the wildcard receives completes"), std::string::npos) << e.what();
  }
  EXPECT_LT(ctx.stats["resolve-wildcards"]["search-restarts"], 10);
}

// (c) An LU-like wavefront on a 3 x 3 grid: each rank receives from north and west with
// MPI_ANY_SOURCE and sends south and east, five times.
TEST(ResolveWildcards, WavefrontResolvesToNeighbours) {
  constexpr Rank kSide = 3, P = kSide * kSide;
  constexpr std::int64_t kIters = 5;
  auto in = [](Rank r) {
    std::vector<Rank> v;
    if (r / kSide > 0) v.push_back(r - kSide);
    if (r % kSide > 0) v.push_back(r - 1);
    return v;
  };
  auto out = [](Rank r) {
    std::vector<std::int64_t> v;  // offsets: south, east
    if (r / kSide < kSide - 1) v.push_back(Rank{kSide});
    if (r % kSide < kSide - 1) v.push_back(1);
    return v;
  };
  Trace t = newTrace(P);
  std::map<Rank, Part> recvs, sends;
  for (Rank r = 0; r < P; ++r) {
    const auto ins = in(r);
    const auto outs = out(r);
    if (!ins.empty()) {
      Loops loops = {{kIters, outs.empty() ? 1 : 2}};
      if (ins.size() == 2) loops.push_back({2, 1});
      recvs[r] = recvFrom({kAnySource}, loops);
    }
    if (!outs.empty()) {
      Loops loops;
      if (ins.empty()) loops.push_back({kIters, 1});
      if (outs.size() == 2) loops.push_back({2, 1});
      sends[r] = sendTo(outs, loops);
    }
  }
  addEvent(t, Op::Recv, recvs);
  addEvent(t, Op::Send, sends, /*relative=*/true);
  finish(t);
  const Trace before = t;

  PassContext ctx = runPass(t);
  EXPECT_TRUE(ctx.warnings.empty());
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), (4 * 2 + 4 * 1) * kIters);
  EXPECT_EQ(counter(ctx, "events-rewritten"), 1);
  EXPECT_FALSE(anyWildcardLeft(t));
  for (Rank r = 1; r < P; ++r) {
    const auto ins = in(r);
    const auto got = sources(t, r, 1);
    ASSERT_EQ(got.size(), ins.size() * kIters) << "rank " << r;
    for (std::size_t i = 0; i < got.size(); i += ins.size()) {  // each iteration hears each neighbour once
      std::multiset<Rank> iteration(got.begin() + static_cast<std::ptrdiff_t>(i),
                                    got.begin() + static_cast<std::ptrdiff_t>(i + ins.size()));
      EXPECT_EQ(iteration, std::multiset<Rank>(ins.begin(), ins.end())) << "rank " << r << " iteration " << i / ins.size();
    }
  }
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
  ASSERT_EQ(t.events.size(), before.events.size());
  for (std::size_t i = 0; i < t.events.size(); ++i) EXPECT_EQ(t.events[i].loops, before.events[i].loops);
  // Compressed: at most one list per neighbour pattern, each one iteration long.
  const ParamValues& src = *t.events[1].param(Param::Source);
  EXPECT_TRUE(src.relative);
  EXPECT_LE(src.groups.size(), 4u);
  for (const auto& g : src.groups) EXPECT_LE(g.values.size(), 2u) << g.ranks.str();
  // Running again finds nothing to do.
  const Trace resolved = t;
  PassContext again = runPass(t);
  EXPECT_TRUE(t == resolved);
  EXPECT_EQ(counter(again, "wildcards-resolved"), -1);
}

TEST(ResolveWildcards, NonblockingReceivesAndWaits) {
  // Irecv(ANY) + Wait on rank 0, fed by ranks 1 and 2; the Wait is what blocks.
  Trace t = newTrace(3);
  addEvent(t, Op::Irecv, onRanks({0}, recvFrom({kAnySource}, {{2, 2}})));
  addEvent(t, Op::Wait, onRanks({0}, waitLatest()));
  addEvent(t, Op::Send, onRanks({1, 2}, sendTo({0})));
  finish(t);
  PassContext ctx = runPass(t);
  auto got = sources(t, 0, 1);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<Rank>{1, 2}));
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

TEST(ResolveWildcards, SendrecvAndProbeWildcards) {
  // A ring of Sendrecv(dest = r + 1, source = ANY), then rank 0 probes for anyone and
  // receives from rank 2, which sends to it last.
  Trace t = newTrace(3);
  Part ring = sendTo({1});
  ring.params[Param::Source] = {kAnySource};
  addEvent(t, Op::Sendrecv, onAll(3, ring), /*relative=*/true);
  addEvent(t, Op::Send, onRanks({2}, sendTo({0})));
  addEvent(t, Op::Probe, onRanks({0}, recvFrom({kAnySource})));
  addEvent(t, Op::Recv, onRanks({0}, recvFrom({2})));
  finish(t);
  PassContext ctx = runPass(t);
  for (Rank r = 0; r < 3; ++r) EXPECT_EQ(sources(t, r, 1), std::vector<Rank>{(r + 2) % 3}) << "rank " << r;
  EXPECT_EQ(sources(t, 0, 3), std::vector<Rank>{2});
  const ParamValues& ringSrc = *t.events[1].param(Param::Source);
  ASSERT_EQ(ringSrc.groups.size(), 1u);  // one offset for the whole ring
  EXPECT_EQ(ringSrc.groups[0].values, std::vector<std::int64_t>{2});
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), 4);
  EXPECT_EQ(counter(ctx, "events-rewritten"), 2);
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

TEST(ResolveWildcards, SubCommunicatorPeersStayInItsNumbering) {
  // Communicator 1000 has instances {0, 1} and {2, 3}; peers are communicator ranks, as
  // recorded. Ranks 0 and 2 send to their communicator rank 1; rank 1 receives from anyone,
  // rank 3 (same event, explicit) from its communicator rank 0; then a barrier per instance.
  Trace t = newTrace(4);
  t.comms.push_back({1000, "split", {RankList::progression(0, 2), RankList::progression(2, 2)}});
  auto on1000 = [](Part p) {
    p.params[Param::Comm] = {1000};
    return p;
  };
  addEvent(t, Op::Send, onRanks({0, 2}, on1000(sendTo({1}))));
  std::map<Rank, Part> recvs = {{1, on1000(recvFrom({kAnySource}))}, {3, on1000(recvFrom({0}))}};
  addEvent(t, Op::Recv, recvs);
  addEvent(t, Op::Barrier, onAll(4, on1000(barrier())));
  finish(t);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 1, 2), std::vector<Rank>{0});
  EXPECT_EQ(sources(t, 3, 2), std::vector<Rank>{2});
  const ParamValues& src = *t.events[2].param(Param::Source);
  EXPECT_TRUE(src.relative);
  ASSERT_EQ(src.groups.size(), 2u);
  EXPECT_EQ(src.groups[0].values, std::vector<std::int64_t>{3});  // communicator rank 0 from world rank 1
  EXPECT_EQ(src.groups[1].values, std::vector<std::int64_t>{1});  // the explicit group, re-encoded
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

// (d) The real NPB LU traces (MPI_ANY_SOURCE Irecvs) and the CG trace (none).
void resolveRealTrace(const std::string& name) {
  const std::string path = std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/" + name;
  Trace t = readTraceFile(path);
  ASSERT_TRUE(anyWildcardLeft(t));
  EXPECT_THROW(verifyPointToPoint(t, path), InputError);
  const Trace before = t;
  PassContext ctx;
  ctx.fileName = path;
  ctx.currentPass = "resolve-wildcards";
  const auto start = std::chrono::steady_clock::now();
  createResolveWildcardsPass()->run(t, ctx);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_NO_THROW(verifyPointToPoint(t, path));
  ASSERT_EQ(t.events.size(), before.events.size());
  std::size_t groups = 0, values = 0;
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    EXPECT_EQ(t.events[i].loops, before.events[i].loops);
    const ParamValues* now = t.events[i].param(Param::Source);
    const ParamValues* was = before.events[i].param(Param::Source);
    if (now && was && !(*now == *was))
      for (const auto& g : now->groups) {
        ++groups;
        values += g.values.size();
      }
  }
  const std::int64_t resolved = ctx.stats["resolve-wildcards"]["wildcards-resolved"];
  EXPECT_GT(resolved, 0);
  EXPECT_TRUE(ctx.warnings.empty());
  std::printf("[ resolve  ] %s: %lld wildcard receives resolved, %lld events rewritten (%zu groups, %zu values), "
              "%lld restarts, %.3f s\n",
              name.c_str(), static_cast<long long>(resolved),
              static_cast<long long>(ctx.stats["resolve-wildcards"]["events-rewritten"]), groups, values,
              static_cast<long long>(ctx.stats["resolve-wildcards"]["search-restarts"]), seconds);
}

TEST(ResolveWildcards, RealLuTraceTimeDependent) { resolveRealTrace("scalatrace2-npb-td-lu-A-4.trace"); }
TEST(ResolveWildcards, RealLuTraceTimeIndependent) { resolveRealTrace("scalatrace2-npb-ti-lu-A-4.trace"); }

TEST(ResolveWildcards, RealCgTraceHasNothingToDo) {
  const std::string path = std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/scalatrace2-npb-ti-cg-A-4.trace";
  Trace t = readTraceFile(path);
  const Trace before = t;
  PassContext ctx;
  ctx.currentPass = "resolve-wildcards";
  createResolveWildcardsPass()->run(t, ctx);
  EXPECT_TRUE(t == before);
  EXPECT_TRUE(ctx.stats.empty());
  EXPECT_NO_THROW(verifyPointToPoint(t, path));
}

TEST(PointToPoint, UnbalancedPairNamesRanksAndEvent) {
  Trace t = newTrace(2);
  addEvent(t, Op::Send, onRanks({0}, sendTo({1}, {{2, 1}})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({0})));
  finish(t);
  try {
    verifyPointToPoint(t, "x.trace");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "x.trace");
    EXPECT_EQ(e.line(), t.events[1].line);  // the sends without receives
    EXPECT_NE(e.message().find("rank 0 sends 2 messages to rank 1 (first in event 1, MPI_Send)"), std::string::npos) << e.message();
    EXPECT_NE(e.message().find("rank 1 posts 1 receive from rank 0 (first in event 2, MPI_Recv)"), std::string::npos) << e.message();
  }
}

TEST(PointToPoint, WildcardLeftIsAnError) {
  Trace t = onlyLaterMessageCompletes();
  try {
    verifyPointToPoint(t, "x.trace");
    FAIL() << "no InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), t.events[2].line);
    EXPECT_NE(e.message().find("rank 1 still receives from MPI_ANY_SOURCE"), std::string::npos) << e.message();
  }
}

TEST(PointToPoint, SendrecvCountsBothWays) {
  Trace t = newTrace(2);
  Part p = sendTo({1});
  p.params[Param::Source] = {1};
  addEvent(t, Op::Sendrecv, onAll(2, p), /*relative=*/true);
  finish(t);
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
  t.events[1].param(Param::Source)->groups[0].values = {0};  // each rank now receives from itself
  EXPECT_THROW(verifyPointToPoint(t, "unit"), InputError);
}

TEST(ResolveWildcards, ProcNullCompletesAtOnceWithoutPartner) {
  // Rank 0 receives first from anyone, then from MPI_PROC_NULL (one event, two executions);
  // rank 1 makes a synchronous send to rank 0 and probes MPI_PROC_NULL; rank 2 makes a
  // synchronous send to MPI_PROC_NULL and waits for a receive from it. Nothing waits for a
  // partner that does not exist: only rank 1's message can take the wildcard.
  Trace t = newTrace(3);
  const std::int64_t recvId = addEvent(t, Op::Recv, onRanks({0}, recvFrom({kAnySource, kProcNull}, {{2, 1}}))).id;
  addEvent(t, Op::Ssend, onRanks({1}, sendTo({0})));
  addEvent(t, Op::Ssend, onRanks({2}, sendTo({kProcNull})));
  addEvent(t, Op::Irecv, onRanks({2}, recvFrom({kProcNull})));
  addEvent(t, Op::Wait, onRanks({2}, waitLatest()));
  addEvent(t, Op::Probe, onRanks({1}, recvFrom({kProcNull})));
  finish(t);
  PassContext ctx = runPass(t);
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_EQ(sources(t, 0, recvId), (std::vector<Rank>{1, kProcNull}));
  // MPI_PROC_NULL is no offset: the resolved senders stay absolute.
  EXPECT_FALSE(t.events[static_cast<std::size_t>(recvId)].param(Param::Source)->relative);
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), 1);
  EXPECT_TRUE(ctx.warnings.empty());
  verifyStructure(t, "unit");
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

TEST(PointToPoint, ProcNullNeedsNoPartner) {
  Trace t = newTrace(2);
  addEvent(t, Op::Send, onRanks({0}, sendTo({kProcNull})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({kProcNull})));
  Part p = sendTo({kProcNull});
  p.params[Param::Source] = {kProcNull};
  addEvent(t, Op::Sendrecv, onAll(2, p));
  finish(t);
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
  t.events[1].param(Param::Dest)->groups[0].values = {1};  // now a real message rank 1 does not receive
  EXPECT_THROW(verifyPointToPoint(t, "unit"), InputError);
}


// ---- The Test family: a poll that completed requests waits for them; one that completed
// nothing returns at once (docs/recording.md, "Requests").

Part testOf(std::int64_t request) { return Part{{}, {{Param::Request, {request}}}}; }
Part testanyOf(std::vector<std::int64_t> requests) {
  Part p;
  p.params[Param::Count] = {static_cast<std::int64_t>(requests.size())};
  if (!requests.empty()) p.params[Param::Requests] = std::move(requests);
  return p;
}
Part withTag(Part p, std::int64_t tag) {
  p.params[Param::Tag] = {tag};
  return p;
}

// Rank 0 receives from anyone and polls until its MPI_Testany succeeds, then sends to rank 2
// and receives from it. Rank 1 sends to rank 0 after hearing from rank 2, which sends to rank 0
// only after rank 0's post-test message: rank 1's message is the only one the wildcard can have
// taken. Had the successful poll not waited, rank 0 would have sent to rank 2 at once, and rank
// 2's message (earlier in the simulation than rank 1's) would have been the first choice.
Trace pollThenReply(Op testOp) {
  Trace t = newTrace(3);
  addEvent(t, Op::Irecv, onRanks({0}, recvFrom({kAnySource})));                                  // 1
  addEvent(t, testOp, onRanks({0}, testOp == Op::Test ? testOf(kRequestNull) : testanyOf({})), false);  // 2: failed
  addEvent(t, testOp, onRanks({0}, testOp == Op::Test ? testOf(kLatestRequest) : testanyOf({kLatestRequest})));  // 3
  addEvent(t, Op::Send, onRanks({2}, withTag(sendTo({1}), 5)));                                  // 4
  addEvent(t, Op::Recv, onRanks({1}, withTag(recvFrom({2}), 5)));                                // 5
  addEvent(t, Op::Send, onRanks({1}, sendTo({0})));                                              // 6
  addEvent(t, Op::Send, onRanks({0}, sendTo({2})));                                              // 7
  addEvent(t, Op::Recv, onRanks({2}, recvFrom({0})));                                            // 8
  addEvent(t, Op::Send, onRanks({2}, sendTo({0})));                                              // 9
  addEvent(t, Op::Recv, onRanks({0}, recvFrom({2})));                                            // 10
  finish(t);
  return t;
}

TEST(ResolveWildcards, SuccessfulTestanyWaitsForTheReceiveItCompleted) {
  Trace t = pollThenReply(Op::Testany);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 0, 1), std::vector<Rank>{1});
  EXPECT_TRUE(ctx.warnings.empty()) << ctx.warnings.front();  // no search, no "can deadlock"
  EXPECT_EQ(counter(ctx, "search-restarts"), 0);
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

TEST(ResolveWildcards, SuccessfulTestWaitsForTheReceiveItCompleted) {
  Trace t = pollThenReply(Op::Test);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 0, 1), std::vector<Rank>{1});
  EXPECT_TRUE(ctx.warnings.empty()) << ctx.warnings.front();
  EXPECT_EQ(counter(ctx, "search-restarts"), 0);
}

TEST(ResolveWildcards, FailedPollsCompleteNothingAndDoNotBlock) {
  // Rank 0 posts a wildcard receive, polls it without success (MPI_Test with no request,
  // MPI_Testany with none, MPI_Testall with none), sends to rank 1, and only then waits. Rank 1
  // answers what rank 0 sent, so a failed poll that blocked would deadlock.
  Trace t = newTrace(2);
  addEvent(t, Op::Irecv, onRanks({0}, recvFrom({kAnySource})));
  addEvent(t, Op::Test, onRanks({0}, testOf(kRequestNull)));
  addEvent(t, Op::Testany, onRanks({0}, testanyOf({})));
  addEvent(t, Op::Testall, onRanks({0}, testanyOf({})));
  addEvent(t, Op::Send, onRanks({0}, sendTo({1})));
  addEvent(t, Op::Recv, onRanks({1}, recvFrom({0})));
  addEvent(t, Op::Send, onRanks({1}, sendTo({0})));
  addEvent(t, Op::Wait, onRanks({0}, waitLatest()));
  finish(t);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 0, 1), std::vector<Rank>{1});
  EXPECT_TRUE(ctx.warnings.empty());
}

TEST(ResolveWildcards, SuccessfulTestOnAReceiveThatNeverMatchesDeadlocks) {
  // A test that says it completed a receive nobody sends to: the program cannot have run.
  Trace t = newTrace(2);
  addEvent(t, Op::Irecv, onRanks({0}, recvFrom({kAnySource})));
  addEvent(t, Op::Testany, onRanks({0}, testanyOf({kLatestRequest})));
  finish(t);
  DeadlockError e = expectDeadlock(t);
  EXPECT_NE(std::string(e.what()).find("rank 0 waits in event 2 (MPI_Testany"), std::string::npos) << e.what();
}

// ---- An exhausted search is no deadlock.

TEST(ResolveWildcards, ExhaustedBudgetWarnsAndFollowsTheRecordedMatches) {
  // The program of TakesTheOnlyCompletingSenderAndWarns with no budget for a search, and the
  // earliest-arrival matching asked for (--wildcard-senders earliest): the recording saw rank
  // 1's wildcard receive match rank 2, which the pass follows when the search gives up.
  Trace t = onlyLaterMessageCompletes();
  t.events[2].setParam(Param::Matched, {ValueGroup{RankList::fromSorted({1}), {1}}}, false);  // (2 - 1 + 3) mod 3
  PassContext ctx = runPass(t, 0, false);
  EXPECT_EQ(sources(t, 1, 2), std::vector<Rank>{2});
  EXPECT_EQ(sources(t, 1, 3), std::vector<Rank>{0});
  ASSERT_EQ(ctx.warnings.size(), 1u);
  const std::string& w = ctx.warnings[0];
  EXPECT_NE(w.find("could not decide"), std::string::npos) << w;
  EXPECT_NE(w.find("budget (0 states"), std::string::npos) << w;
  EXPECT_NE(w.find("the wildcard receive of rank 1 in event 2 (MPI_Recv at site2"), std::string::npos) << w;
  EXPECT_NE(w.find("follows the order the recording saw"), std::string::npos) << w;
  EXPECT_EQ(w.find("potential deadlock"), std::string::npos) << w;
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

// ---- The senders the recording saw.

// Ranks 1 and 2 send to rank 0, which receives twice from MPI_ANY_SOURCE; rank 1's message is
// sent first, so the earliest-arrival matching takes it first. The recording (`matched` on the
// wildcard receive, offsets (sender - 0 + 3) mod 3) saw rank 2's first.
Trace twoSendersRecordedInReverse() {
  Trace t = newTrace(3);
  addEvent(t, Op::Send, onRanks({1}, sendTo({0})));                                 // 1
  addEvent(t, Op::Send, onRanks({2}, sendTo({0})));                                 // 2
  Event& r = addEvent(t, Op::Recv, onRanks({0}, recvFrom({kAnySource})));           // 3
  r.loops.push_back(LoopLevel{{ValueGroup{RankList::fromSorted({0}), {2}}}, {ValueGroup{RankList::fromSorted({0}), {1}}}});
  r.setParam(Param::Matched, {ValueGroup{RankList::fromSorted({0}), {2, 1}}}, false);
  finish(t);
  return t;
}

TEST(ResolveWildcards, FollowsTheSendersTheRecordingSaw) {
  Trace t = twoSendersRecordedInReverse();
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 0, 3), (std::vector<Rank>{2, 1}));
  EXPECT_EQ(counter(ctx, "wildcards-as-recorded"), 2);
  EXPECT_EQ(counter(ctx, "loops-folded"), -1);
  EXPECT_TRUE(ctx.warnings.empty());
  EXPECT_FALSE(anyWildcardLeft(t));
}

TEST(ResolveWildcards, EarliestArrivalWhenAskedDespiteTheRecording) {
  Trace t = twoSendersRecordedInReverse();
  PassContext ctx = runPass(t, 100000, false);
  EXPECT_EQ(sources(t, 0, 3), (std::vector<Rank>{1, 2}));
  EXPECT_EQ(counter(ctx, "wildcards-as-recorded"), -1);
  EXPECT_TRUE(ctx.warnings.empty());
}

TEST(ResolveWildcards, RecordedSendersThatCannotCompleteGiveWayToTheSearch) {
  // A recording that names rank 1 twice (an edited trace): the second receive would wait for a
  // message rank 1 never sends. The pass says so and takes the matching the search finds.
  Trace t = twoSendersRecordedInReverse();
  t.events[3].setParam(Param::Matched, {ValueGroup{RankList::fromSorted({0}), {1, 1}}}, false);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 0, 3), (std::vector<Rank>{1, 2}));
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("following the senders the recording saw does not complete"), std::string::npos)
      << ctx.warnings[0];
  EXPECT_NE(ctx.warnings[0].find("earliest-arrival matching instead"), std::string::npos) << ctx.warnings[0];
}

TEST(ResolveWildcards, ExhaustedBudgetWithoutRecordedMatchesIsNoDeadlock) {
  Trace t = onlyLaterMessageCompletes();
  const Trace before = t;
  try {
    runPass(t, 0);
    ADD_FAILURE() << "no error";
  } catch (const DeadlockError& e) {
    ADD_FAILURE() << "an exhausted search reported as a deadlock: " << e.what();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("could not decide"), std::string::npos) << msg;
    EXPECT_NE(msg.find("budget (0 states"), std::string::npos) << msg;
    EXPECT_NE(msg.find("records no matched senders"), std::string::npos) << msg;
  }
  EXPECT_TRUE(t == before);
}

TEST(ResolveWildcards, MatchedSourcesOfWaitsReachTheCursor) {
  // Param::Matched on a wait names the sender of the receive it completed, as an offset.
  Trace t = newTrace(3);
  addEvent(t, Op::Irecv, onRanks({0}, recvFrom({kAnySource})));
  Event& w = addEvent(t, Op::Wait, onRanks({0}, waitLatest()));
  w.setParam(Param::Matched, {ValueGroup{RankList::fromSorted({0}), {2}}}, false);
  addEvent(t, Op::Send, onRanks({2}, sendTo({0})));
  finish(t);
  RankCursor cursor(t, 0);
  Call c;
  std::vector<Rank> matched;
  while (cursor.next(c))
    if (c.op == Op::Wait) matched = c.matched;
  EXPECT_EQ(matched, std::vector<Rank>{2});
}

TEST(ResolveWildcards, CancelledWildcardReceiveMatchesNothing) {
  // HPC Challenge's RandomAccess ends with a wildcard receive it cancels and then waits for.
  // Without the recording's word (`matched` -2) the wait could only wait for a sender; with it
  // the receive completes at once, as one from MPI_PROC_NULL, and takes no later message.
  Trace t = newTrace(2);
  addEvent(t, Op::Irecv, onRanks({0}, recvFrom({kAnySource})));                    // 1
  Event& w = addEvent(t, Op::Wait, onRanks({0}, waitLatest()));                    // 2
  w.setParam(Param::Matched, {ValueGroup{RankList::fromSorted({0}), {-2}}}, false);
  addEvent(t, Op::Send, onRanks({1}, sendTo({0})));                                // 3
  addEvent(t, Op::Recv, onRanks({0}, recvFrom({1})));                              // 4
  finish(t);
  PassContext ctx = runPass(t);
  EXPECT_EQ(sources(t, 0, 1), std::vector<Rank>{kProcNull});
  EXPECT_EQ(sources(t, 0, 4), std::vector<Rank>{1});
  EXPECT_TRUE(ctx.warnings.empty());
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}


// Folding (foldableLoops in sim/LoopFolding.cpp). Ranks 1 and 2 send to rank 0 in a time-step
// loop of N iterations (head: their Send), rank 0 receives twice from MPI_ANY_SOURCE in its
// own loop of N (head: its Recv, with an inner loop of 2), every iteration ends in a barrier;
// after the loops each sender sends once more and rank 0 takes both from anyone. With
// `early`, ranks 1 and 2 send once before their loops, so rank 0's first iteration takes
// messages sent outside the loop: the iterations are not self-contained.
Trace timeStepLoops(std::int64_t iterations, std::vector<std::int64_t> sendTags = {0}, bool early = false) {
  Trace t = newTrace(3);
  if (early) addEvent(t, Op::Send, onRanks({1, 2}, sendTo({0})));
  Part send = sendTo({0}, {{iterations, 2}});
  send.params[Param::Tag] = std::move(sendTags);
  Part recv = recvFrom({kAnySource}, {{iterations, 2}, {2, 1}});
  recv.params[Param::Tag] = {-1};  // MPI_ANY_TAG
  // The Send loop's body on ranks 1 and 2 is Send, Barrier; rank 0's is Recv, Barrier.
  addEvent(t, Op::Send, onRanks({1, 2}, send));
  addEvent(t, Op::Recv, onRanks({0}, recv));
  addEvent(t, Op::Barrier, onAll(3, barrier()));
  addEvent(t, Op::Send, onRanks({1, 2}, sendTo({0})));
  addEvent(t, Op::Recv, onRanks({0}, recvFrom({kAnySource}, {{2, 1}})));
  if (early) addEvent(t, Op::Recv, onRanks({0}, recvFrom({kAnySource}, {{2, 1}})));
  finish(t);
  return t;
}

// Every iteration of rank 0's loop heard ranks 1 and 2 once each.
void expectEachIterationHearsBoth(const Trace& t, std::int64_t recvEventId, std::int64_t iterations) {
  const auto got = sources(t, 0, recvEventId);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(2 * iterations));
  for (std::size_t i = 0; i < got.size(); i += 2)
    ASSERT_EQ(std::multiset<Rank>({got[i], got[i + 1]}), (std::multiset<Rank>{1, 2})) << "iteration " << i / 2;
}

PassContext runPassWithCallBudget(Trace& t, std::int64_t callBudget) {
  PassContext ctx;
  ctx.fileName = "unit";
  ctx.currentPass = "resolve-wildcards";
  ctx.options.callBudget = callBudget;
  createResolveWildcardsPass()->run(t, ctx);
  return ctx;
}

TEST(ResolveWildcardsFolding, ClosedTimeStepLoopsAreSimulatedTwice) {
  // 100,000 iterations make 700,000 calls; the budget allows 1,000, so only the folded
  // program (2 iterations of each loop) can be simulated.
  constexpr std::int64_t kIters = 100'000;
  Trace t = timeStepLoops(kIters);
  PassContext ctx = runPassWithCallBudget(t, 1000);
  EXPECT_EQ(counter(ctx, "loops-folded"), 2);  // rank 0's loop and the senders', folded alike
  EXPECT_EQ(counter(ctx, "iterations-not-simulated"), 2 * (kIters - 2));
  EXPECT_LT(counter(ctx, "calls-simulated"), 100);
  EXPECT_FALSE(anyWildcardLeft(t));
  expectEachIterationHearsBoth(t, 2, kIters);
  auto after = sources(t, 0, 5);
  std::sort(after.begin(), after.end());
  EXPECT_EQ(after, (std::vector<Rank>{1, 2}));
  // The verifier walks the folded loops too (ctx.closedLoopFolds), and the whole trace
  // balances.
  EXPECT_EQ(ctx.closedLoopFolds.size(), 2u);
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
  EXPECT_TRUE(ctx.established.has(IrProperty::CommunicationChecked));
  // Loops stay as they were: the folding is the simulation's only.
  EXPECT_EQ(t.events[1].loops[0].iter[0].values, std::vector<std::int64_t>{kIters});
}

TEST(ResolveWildcardsFolding, FoldedLikeTheWholeProgram) {
  // Small enough to simulate whole: the folded run resolves every execution as the whole
  // one's does, here with the senders' tags cycling with period 3 (folded to 6 iterations).
  constexpr std::int64_t kIters = 50;
  Trace t = timeStepLoops(kIters, {5, 6, 7});
  PassContext ctx = runPass(t);
  EXPECT_EQ(counter(ctx, "loops-folded"), 2);
  EXPECT_EQ(counter(ctx, "iterations-not-simulated"), 2 * (kIters - 6));
  expectEachIterationHearsBoth(t, 2, kIters);
  EXPECT_EQ(ctx.closedLoopFolds.at(1), 6);  // the senders' loop (event 1) and rank 0's (event 2)
  EXPECT_EQ(ctx.closedLoopFolds.at(2), 6);
}

TEST(ResolveWildcardsFolding, IterationsThatTakeEarlierMessagesAreNotFolded) {
  // Rank 0's first iteration takes what ranks 1 and 2 sent before their loops, so every
  // iteration takes the previous one's messages: no fold stands for the program, which is
  // simulated whole (its repeats skipped, see ResolveWildcardsRepeats below; simulated
  // call by call, the budget must allow it).
  constexpr std::int64_t kIters = 1000;
  Trace t = timeStepLoops(kIters, {0}, /*early=*/true);
  PassContext ctx = runPassWithCallBudget(t, 100'000);
  EXPECT_GE(counter(ctx, "fold-attempts"), 1);
  EXPECT_EQ(counter(ctx, "loops-folded"), -1);
  EXPECT_TRUE(ctx.closedLoopFolds.empty());
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
  Trace big = timeStepLoops(kIters, {0}, /*early=*/true);
  PassContext wholeCtx;
  wholeCtx.fileName = "unit";
  wholeCtx.currentPass = "resolve-wildcards";
  wholeCtx.options.callBudget = 1000;
  wholeCtx.options.skipRepeats = false;
  EXPECT_THROW(createResolveWildcardsPass()->run(big, wholeCtx), InputError);  // out of budget, not folded
}

TEST(ResolveWildcardsFolding, ShortLoopsAreNotFolded) {
  Trace t = timeStepLoops(7);  // fewer than 4 times the 2 iterations a fold keeps
  PassContext ctx = runPass(t);
  EXPECT_EQ(counter(ctx, "fold-attempts"), -1);
  expectEachIterationHearsBoth(t, 2, 7);
}

TEST(ResolveWildcardsFolding, RecordingWithMoreCallsThanTheBudget) {
  // A real recording: 14 million calls, wildcards after the loop. The default pipeline
  // (verifier included) resolves them with the loop folded, within the default call budget.
  const std::string path = std::string(TRACEGEN_TEST_DATA_DIR) + "/wildcards/persist-1000000-2.tgt";
  Trace t = readTraceFile(path);
  PassContext ctx;
  ctx.fileName = path;
  PassManager(defaultPipeline()).run(t, ctx);
  auto& stats = ctx.stats["resolve-wildcards"];
  EXPECT_EQ(stats["loops-folded"], 1);
  EXPECT_EQ(stats["iterations-not-simulated"], 1'000'000 - 4);  // its request vectors have period 4
  EXPECT_LT(stats["calls-simulated"], 1000);
  EXPECT_GT(stats["wildcards-resolved"], 0);
  EXPECT_TRUE(ctx.warnings.empty()) << ctx.warnings.front();
  // Only the persistent receive keeps MPI_ANY_SOURCE (one source serves all its starts).
  for (const Event& e : t.events) EXPECT_FALSE(hasUnresolvedWildcard(e)) << "event " << e.id;
}

}  // namespace
}  // namespace tracegen

namespace tracegen {
namespace {

// Repeats (sim/Repeats.cpp): the whole program's first run applies the repeats of a
// stretch between two equal states instead of simulating them. The result must be the run's
// simulated whole, call for call.
PassContext resolveBothWays(Trace& t, const std::string& fileName, std::int64_t callBudget = 10'000'000) {
  Trace whole = t;
  PassContext ctx, wholeCtx;
  ctx.fileName = wholeCtx.fileName = fileName;
  ctx.currentPass = wholeCtx.currentPass = "resolve-wildcards";
  ctx.options.callBudget = wholeCtx.options.callBudget = callBudget;
  wholeCtx.options.skipRepeats = false;
  createResolveWildcardsPass()->run(t, ctx);
  createResolveWildcardsPass()->run(whole, wholeCtx);
  EXPECT_TRUE(t == whole) << "the skipped run resolved otherwise than the whole one";
  EXPECT_EQ(ctx.warnings, wholeCtx.warnings);
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), counter(wholeCtx, "wildcards-resolved"));
  EXPECT_EQ(counter(wholeCtx, "repeats-skipped"), -1);
  return ctx;
}

// Ranks 1..P-1 send to rank 0 once before their loops, then N times [send to rank 0 (tags
// cycling through `tags`), wait for its answer]; rank 0 runs N times [take P-1 messages from
// anyone, answer each sender], then takes what is left from anyone (`extra` more than there
// is: a deadlock). Every iteration takes the previous one's messages, so no fold stands for
// the program; the answers keep the ranks in step without a collective.
Trace answeredLoops(Rank P, std::int64_t iterations, std::vector<std::int64_t> tags = {0}, std::int64_t extra = 0) {
  Trace t = newTrace(P);
  std::vector<Rank> senders;
  std::vector<std::int64_t> answers;
  for (Rank r = 1; r < P; ++r) {
    senders.push_back(r);
    answers.push_back(r);
  }
  auto each = [&](const Part& p) {
    std::map<Rank, Part> m;
    for (Rank r : senders) m[r] = p;
    return m;
  };
  addEvent(t, Op::Send, each(sendTo({0})));
  Part send = sendTo({0}, {{iterations, 2}});
  send.params[Param::Tag] = std::move(tags);
  addEvent(t, Op::Send, each(send));
  Part recv = recvFrom({kAnySource}, {{iterations, 2}, {P - 1, 1}});
  recv.params[Param::Tag] = {-1};  // MPI_ANY_TAG
  addEvent(t, Op::Recv, onRanks({0}, recv));
  addEvent(t, Op::Send, onRanks({0}, sendTo(answers, {{P - 1, 1}})));
  addEvent(t, Op::Recv, each(recvFrom({0})));
  Part rest = recvFrom({kAnySource}, {{P - 1 + extra, 1}});
  rest.params[Param::Tag] = {-1};
  addEvent(t, Op::Recv, onRanks({0}, rest));
  finish(t);
  return t;
}

TEST(ResolveWildcardsRepeats, IterationsThatTakeEarlierMessagesRepeat) {
  // The run repeats from its second iteration on: 1,000 iterations (6,000 calls) cost the few
  // that pay for comparing the states (repeats of a stretch of several iterations).
  constexpr std::int64_t kIters = 1000;
  Trace t = answeredLoops(3, kIters);
  PassContext ctx = resolveBothWays(t, "unit");
  EXPECT_GT(counter(ctx, "repeats-skipped"), 10);
  EXPECT_LT(counter(ctx, "calls-simulated"), 1000);
  EXPECT_FALSE(anyWildcardLeft(t));
  EXPECT_NO_THROW(verifyPointToPoint(t, "unit"));
}

TEST(ResolveWildcardsRepeats, PeriodOfSeveralIterations) {
  // The senders' tags cycle with period 3: the state repeats every 3 iterations, and 1,000 is
  // no multiple of 3 (the last iterations are simulated).
  constexpr std::int64_t kIters = 1000;
  Trace t = answeredLoops(4, kIters, {5, 6, 7});
  PassContext ctx = resolveBothWays(t, "unit");
  EXPECT_GT(counter(ctx, "repeats-skipped"), 0);
  EXPECT_LT(counter(ctx, "calls-simulated"), 3000);  // of 12,000
}

TEST(ResolveWildcardsRepeats, WithinTheCallBudgetOfAFewIterations) {
  // The whole run takes 6,000 calls; the budget allows 1,000, which the skipped run needs.
  Trace t = answeredLoops(3, 1000);
  PassContext ctx = runPassWithCallBudget(t, 1000);
  EXPECT_GT(counter(ctx, "repeats-skipped"), 0);
  EXPECT_FALSE(anyWildcardLeft(t));
}

TEST(ResolveWildcardsRepeats, DeadlockAfterTheLoopIsReportedAsBefore) {
  // Rank 0 waits for one message more than rank 1 sends: the skipped run fails, and the
  // program is simulated whole for the report (one sender: the search has nothing to try).
  Trace t = answeredLoops(2, 500, {0}, 1);
  const DeadlockError e = expectDeadlock(t);
  EXPECT_NE(std::string(e.what()).find("rank 0"), std::string::npos) << e.what();
}

TEST(ResolveWildcardsRepeats, RealLuClassCTrace) {
  // ScalaTrace's LU class C at 16 ranks: per-rank time-step loops with different heads, trip
  // counts and inner factorings (nothing folds), 12,228 wildcard receives. The run repeats
  // from its early iterations on: it costs a few of its 249 time steps.
  // A test of cost (how few calls the repeats leave to simulate): the plain run's. Under the
  // sanitizers it would take half a minute for code paths the small wildcard traces cover.
  if (testing::kUnderSanitizer) GTEST_SKIP() << "a cost test: run in the plain build";
  const std::string path = std::string(TRACEGEN_TEST_DATA_DIR) + "/wildcards/scalatrace2-npb-td-lu-C-16.trace";
  Trace t = readTraceFile(path);
  PassContext ctx = resolveBothWays(t, path);
  EXPECT_EQ(counter(ctx, "wildcards-resolved"), 12228);
  EXPECT_GT(counter(ctx, "repeats-skipped"), 200);
  EXPECT_LT(counter(ctx, "calls-simulated"), 400'000);
  EXPECT_FALSE(anyWildcardLeft(t));
}

}  // namespace
}  // namespace tracegen
