// Tests of check-communication and of the compressed-form analysis behind it: every case of
// tests/data/checks in both trace formats through the default pipeline, the synthetic stencil
// proved on the compressed form at a million ranks' worth of classes, the LU-like wavefront
// whose wildcards are resolved symbolically and whose deadlock check is a folded simulation,
// the call budget, and the fuzz findings about budgets (H4, H5, H6) and the partial barrier (S4).
#include <gtest/gtest.h>

#include <string>

#include "bench/SyntheticStencil.h"
#include "bench/SyntheticWavefront.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "passes/CommunicationAnalysis.h"
#include "passes/PassManager.h"
#include "sim/Deadlock.h"
#include "sim/SimulateCommunication.h"
#include "tests/unit/SanitizerScale.h"
#include "tests/unit/TraceTestHelpers.h"

namespace tracegen {
namespace {

using tracegen::testing::dataPath;

PassContext lowerTrace(Trace& t, const std::string& name, std::int64_t callBudget = 10'000'000) {
  PassContext ctx;
  ctx.fileName = name;
  ctx.options.callBudget = callBudget;
  PassManager pm(defaultPipeline());
  pm.run(t, ctx);
  return ctx;
}

PassContext lowerFile(const std::string& name, std::int64_t callBudget = 10'000'000) {
  Trace t = readTraceFile(dataPath(name));
  return lowerTrace(t, name, callBudget);
}

std::int64_t counter(PassContext& ctx, const std::string& pass, const std::string& name) {
  auto& m = ctx.stats[pass];
  auto it = m.find(name);
  return it == m.end() ? -1 : it->second;
}

// Lowering `name` must fail with a DeadlockError whose text holds every fragment.
void expectDeadlock(const std::string& name, const std::vector<std::string>& fragments,
                    const std::vector<Rank>& cycle = {}) {
  SCOPED_TRACE(name);
  try {
    lowerFile(name);
    ADD_FAILURE() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("potential deadlock:", 0), 0u) << msg;
    for (const auto& f : fragments) EXPECT_NE(msg.find(f), std::string::npos) << "missing '" << f << "' in\n" << msg;
    if (!cycle.empty()) {
      EXPECT_EQ(e.cycle(), cycle) << msg;
    }
  }
}

class BothFormats : public ::testing::TestWithParam<std::string> {};

TEST_P(BothFormats, ReceiveBeforeSendDeadlocksWithoutWildcards) {
  expectDeadlock("checks/recv-recv-deadlock-2" + GetParam(),
                 {"2 of 2 ranks cannot progress", "rank 0 waits in event 1 (MPI_Recv", "for a message from rank 1",
                  "cycle: rank 0 -> rank 1 -> rank 0"},
                 {0, 1, 0});
}

TEST_P(BothFormats, CollectivesInDifferentOrdersDeadlock) {
  expectDeadlock("checks/collective-order-2" + GetParam(),
                 {"collectives called in different orders", "collective 1 on communicator 2", "MPI_Barrier", "MPI_Bcast"},
                 {0, 1, 0});
}

TEST_P(BothFormats, UnreceivedMessageIsAWarning) {
  PassContext ctx = lowerFile("checks/unreceived-2" + GetParam());
  ASSERT_EQ(ctx.warnings.size(), 1u);
  EXPECT_NE(ctx.warnings[0].find("event 1 (MPI_Send"), std::string::npos) << ctx.warnings[0];
  EXPECT_NE(ctx.warnings[0].find("ranks 1 never receive"), std::string::npos) << ctx.warnings[0];
  EXPECT_EQ(counter(ctx, "check-communication", "events-decided-symbolically"), 3);
}

TEST_P(BothFormats, ReceiveNobodySendsToDeadlocks) {
  expectDeadlock("checks/unsatisfiable-2" + GetParam(),
                 {"1 of 2 ranks cannot progress", "rank 1 waits in event 1 (MPI_Recv", "from rank 0, which has finished"});
}

TEST_P(BothFormats, WaitOnANonblockingReceiveBeforeSendingDeadlocks) {
  expectDeadlock("checks/irecv-wait-deadlock-2" + GetParam(),
                 {"2 of 2 ranks cannot progress", "rank 0 waits in event 2 (MPI_Wait", "the receive of event 1 (MPI_Irecv)",
                  "cycle: rank 0 -> rank 1 -> rank 0"},
                 {0, 1, 0});
}

TEST_P(BothFormats, NonblockingExchangeIsProvedOnTheCompressedForm) {
  PassContext ctx = lowerFile("checks/irecv-exchange-2" + GetParam());
  EXPECT_EQ(counter(ctx, "check-communication", "events-decided-symbolically"), 6);
  EXPECT_EQ(counter(ctx, "check-communication", "events-simulated"), -1);
  EXPECT_TRUE(ctx.warnings.empty());
}

TEST_P(BothFormats, SendrecvRingIsProvedOnTheCompressedForm) {
  PassContext ctx = lowerFile("checks/sendrecv-ring-4" + GetParam());
  EXPECT_EQ(counter(ctx, "check-communication", "events-decided-symbolically"), 3);
  EXPECT_EQ(counter(ctx, "check-communication", "events-simulated"), -1);
  EXPECT_TRUE(ctx.warnings.empty());
}

TEST_P(BothFormats, SynchronousSendRingDeadlocks) {
  expectDeadlock("checks/ssend-ring-4" + GetParam(),
                 {"4 of 4 ranks cannot progress", "(MPI_Ssend", "to receive its synchronous send",
                  "cycle: rank 0 -> rank 1 -> rank 2 -> rank 3 -> rank 0"});
}

TEST_P(BothFormats, ReceiveRingDeadlocks) {
  expectDeadlock("checks/recv-ring-4" + GetParam(),
                 {"4 of 4 ranks cannot progress", "cycle: rank 0 -> rank 3 -> rank 2 -> rank 1 -> rank 0"});
}

TEST_P(BothFormats, PartialBarrierDeadlocks) {
  expectDeadlock("checks/partial-barrier-4" + GetParam(),
                 {"3 of 4 ranks cannot progress", "for rank 3 to reach the same collective"});
}

INSTANTIATE_TEST_SUITE_P(Checks, BothFormats, ::testing::Values(".tgt", ".trace"),
                         [](const auto& param) { return param.param == ".tgt" ? std::string("tgt") : std::string("scalatrace"); });

TEST(CheckCommunication, NonPeriodicChainIsSimulatedWithItsLoopFolded) {
  PassContext ctx = lowerFile("checks/chain-4.tgt");
  EXPECT_EQ(counter(ctx, "check-communication", "events-simulated"), 4);
  EXPECT_EQ(counter(ctx, "check-communication", "loops-folded"), 2);
  // Two iterations of the five: 4 ranks x (Init, 2 x Send/Recv pairs, Finalize) at most.
  EXPECT_LE(counter(ctx, "check-communication", "calls-simulated"), 4 * 2 + 2 * 3 * 2 + 2);
}

TEST(CheckCommunication, ProbeOfAMessageSentCompletes) {
  PassContext ctx = lowerFile("checks/probe-2.tgt");
  EXPECT_EQ(counter(ctx, "check-communication", "events-simulated"), 5);
}

TEST(CheckCommunication, ProbeOfAMessageNeverSentDeadlocks) {
  expectDeadlock("checks/probe-deadlock-2.tgt", {"rank 1 waits in event 1 (MPI_Probe", "for a message to probe from rank 0, which has finished"});
}

TEST(CheckCommunication, NullPeersAreProved) {
  Trace t = readTraceFile(std::string(TRACEGEN_SOURCE_DIR) + "/samples/traces/shift-null-4.tgt");
  PassContext ctx = lowerTrace(t, "shift-null-4.tgt");
  EXPECT_NE(counter(ctx, "check-communication", "events-decided-symbolically") +
                counter(ctx, "check-communication", "events-simulated"),
            -2);
  EXPECT_TRUE(ctx.warnings.empty());
}

// The stencil's nine rank classes are the same at every scale: the proof costs what they cost.
TEST(CheckCommunication, StencilIsProvedPerRankClass) {
  for (Rank px : {4, 32, 256}) {
    Trace t = makeStencilTrace(px, px, 1000);
    PassContext ctx = lowerTrace(t, "stencil");
    EXPECT_EQ(counter(ctx, "check-communication", "events-decided-symbolically"), 12) << px;
    EXPECT_EQ(counter(ctx, "check-communication", "rank-classes"), 9) << px;
    EXPECT_EQ(counter(ctx, "check-communication", "calls-simulated"), -1) << px;
  }
}

TEST(CheckCommunication, AnalysisFindsStencilChannelsAligned) {
  const CommunicationVerdict v = analyseCommunication(makeStencilTrace(8, 8, 100));
  EXPECT_EQ(v.kind, CommunicationVerdict::Kind::Proved) << v.reason;
  EXPECT_TRUE(v.channelsAligned);
  EXPECT_TRUE(v.warnings.empty());
}

// A wavefront: the chain of blocking receives makes a cycle between rank classes (undecided),
// so the program is simulated, with its 250 timesteps folded to 2.
TEST(CheckCommunication, WavefrontWildcardsResolvedSymbolicallyThenSimulatedFolded) {
  Trace t = makeWavefrontTrace(8, 8, 250);
  PassContext ctx = lowerTrace(t, "wavefront");
  EXPECT_EQ(counter(ctx, "resolve-wildcards", "wildcard-groups-resolved-symbolically") > 0, true);
  EXPECT_EQ(counter(ctx, "resolve-wildcards", "calls-simulated"), -1);
  EXPECT_EQ(counter(ctx, "check-communication", "events-simulated"), static_cast<std::int64_t>(t.events.size()));
  EXPECT_EQ(counter(ctx, "check-communication", "loops-folded"), 3);
  // 64 ranks x (Init, 2 timesteps of at most 9 calls, Finalize).
  EXPECT_LE(counter(ctx, "check-communication", "calls-simulated"), 64 * (2 + 2 * 9));
  for (const auto& e : t.events) {
    const ParamValues* src = e.param(Param::Source);
    if (!src) continue;
    for (const auto& g : src->groups)
      for (auto v : g.values) EXPECT_NE(v, kAnySource) << "event " << e.id;
  }
}

// Folding keeps a deadlock that needs two iterations: rank 0 sends, then waits for an answer
// that rank 1 gives only after receiving all of rank 0's messages.
TEST(CheckCommunication, FoldingKeepsADeadlockOfTheSecondIteration) {
  const std::string text = R"(tracegen-trace 1
ranks 2
datatype MPI_DOUBLE 8
event 0 MPI_Init @ <1 0 {2 1}>
event 1 MPI_Send @ <1 0 {1 0}>
  loop 0 iter 5
  loop 0 mem 2
  comm 2
  count 1
  datatype MPI_DOUBLE
  dest 1
  tag 1
event 2 MPI_Recv @ <1 1 {1 0}>
  loop 0 iter 5
  loop 0 mem 1
  comm 2
  count 1
  datatype MPI_DOUBLE
  source 0
  tag 1
event 3 MPI_Send @ <1 1 {1 0}>
  loop 0 iter 5
  loop 0 mem 1
  comm 2
  count 1
  datatype MPI_DOUBLE
  dest 0
  tag 2
event 4 MPI_Recv @ <1 0 {1 0}>
  comm 2
  count 1
  datatype MPI_DOUBLE
  source 1
  tag 2
event 5 MPI_Finalize @ <1 0 {2 1}>
)";
  Trace t = readTrace(sourceFromString("second-iteration.tgt", text));
  EXPECT_THROW(lowerTrace(t, "second-iteration.tgt"), DeadlockError);
}

TEST(CheckCommunication, OverBudgetIsAWarningNotAVerdict) {
  Trace t = makeWavefrontTrace(8, 8, 250);
  PassContext ctx = lowerTrace(t, "wavefront", /*callBudget=*/100);
  EXPECT_EQ(counter(ctx, "check-communication", "events-unchecked"), static_cast<std::int64_t>(t.events.size()));
  ASSERT_FALSE(ctx.warnings.empty());
  EXPECT_NE(ctx.warnings.back().find("not checked"), std::string::npos) << ctx.warnings.back();
}

TEST(CheckCommunication, ClosedTimeStepLoopIsSimulatedFolded) {
  // samples/apps/topo recorded at 2 ranks for 20,000 iterations: 480,057 calls, which the
  // compressed-form analysis cannot decide (its Cartesian and graph communicators) and whose
  // channels are not aligned. Its loop folds to two iterations, well within a budget of
  // 10,000 calls that the whole program's run exceeds.
  PassContext ctx = lowerFile("checks/topo-20000-2.tgt", /*callBudget=*/10'000);
  EXPECT_EQ(counter(ctx, "check-communication", "closed-loops-folded"), 1);
  EXPECT_LT(counter(ctx, "check-communication", "calls-simulated"), 1000);
  EXPECT_EQ(counter(ctx, "check-communication", "events-unchecked"), -1);
  EXPECT_GT(counter(ctx, "check-communication", "events-simulated"), 0);
  EXPECT_TRUE(ctx.established.has(IrProperty::CommunicationChecked));
  for (const auto& w : ctx.warnings) EXPECT_EQ(w.find("not checked"), std::string::npos) << w;
}

TEST(CheckCommunication, OverBudgetStillReportsWhatTheAnalysisIsSureOf) {
  EXPECT_THROW(lowerFile("checks/unsatisfiable-2.tgt", /*callBudget=*/1), ProgramError);
}

TEST(CheckCommunication, RankClassesFollowTheRankLists) {
  const auto classes = rankClasses(makeStencilTrace(16, 16, 10));
  EXPECT_EQ(classes.size(), 9u);
  Rank total = 0;
  for (const auto& c : classes) total += c.size();
  EXPECT_EQ(total, 256);
}

// Fuzz findings: every simulation is bounded by the call budget, and budgets are per class.
TEST(CheckCommunicationFuzzFindings, WildcardSearchRestartsAreBoundedByTheCallBudget) {
  // H4: an erroneous program (rank 1 alone calls MPI_Comm_create) whose wildcard search
  // restarted until its state budget ran out, each restart replaying 800,000 calls. Every run
  // now counts against one call budget: the search stops after a few restarts and says it
  // could not decide (the trace records no matched senders to follow instead).
  // A tenth of the budget under the sanitizers, where each call simulated costs 5-20 times as much.
  const std::int64_t budget = testing::kUnderSanitizer ? 200'000 : 2'000'000;
  try {
    lowerFile("fuzz-findings/H4-wildcard-search-restarts.tgt", budget);
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("could not decide"), std::string::npos) << msg;
    EXPECT_NE(msg.find(std::to_string(budget) + " calls, --call-budget"), std::string::npos) << msg;
  }
}

TEST(CheckCommunicationFuzzFindings, BudgetIsEstimatedPerRankClass) {
  // H5: rank 1 waits 10^12 times on MPI_REQUEST_NULL; rank 0 makes two calls. Proved without
  // expanding (no channel, no collective).
  PassContext ctx = lowerFile("fuzz-findings/H5-p2p-check-budget-from-rank0.tgt");
  EXPECT_EQ(counter(ctx, "check-communication", "events-decided-symbolically"), 3);
  EXPECT_EQ(estimateCalls(readTraceFile(dataPath("fuzz-findings/H5-p2p-check-budget-from-rank0.tgt")), 1000, "H5"), 1001);
}

TEST(CheckCommunicationFuzzFindings, WholeRunWalksCountEveryRankClass) {
  // H5 again: the coNCePTuaL backend's walks over every call (received sizes, persistent
  // starts) asked only rank 0 whether the run fits the budget, and then walked rank 1's 10^12
  // waits. Rank 1 counts now.
  const Trace t = readTraceFile(dataPath("fuzz-findings/H5-p2p-check-budget-from-rank0.tgt"));
  EXPECT_FALSE(expansionWithinBudget(t, 10'000'000, "H5"));
  Trace small = t;
  small.events[1].loops[0].iter[0].values = {1000};
  // Rank 0's MPI_Init and MPI_Finalize, rank 1's with its 1,000 waits: 1,004 calls.
  EXPECT_TRUE(expansionWithinBudget(small, 1004, "H5"));
  EXPECT_FALSE(expansionWithinBudget(small, 1003, "H5"));
}

TEST(CheckCommunicationFuzzFindings, FirstWildcardSimulationIsBounded) {
  // H6: a wildcard receive, then 10^12 barriers. The wildcard's sender is forced and the
  // barriers agree, so nothing is simulated; a simulation of it stops at the budget.
  Trace t = readTraceFile(dataPath("fuzz-findings/H6-wildcard-first-simulation-unbounded.tgt"));
  PassContext ctx = lowerTrace(t, "H6", /*callBudget=*/1000);
  EXPECT_EQ(counter(ctx, "check-communication", "events-decided-symbolically"), 5);
  const SimulationResult r = simulateCommunication(t, "H6", 1000);
  EXPECT_TRUE(r.outOfBudget);
  EXPECT_LE(r.calls, 1000);
}

TEST(CheckCommunicationFuzzFindings, PartialBarrierIsADeadlock) {
  expectDeadlock("fuzz-findings/S4-partial-barrier.tgt", {"3 of 4 ranks cannot progress"});
}

}  // namespace
}  // namespace tracegen
