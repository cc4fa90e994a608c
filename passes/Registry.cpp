#include "passes/Registry.h"

#include <fmt/format.h>

#include <set>

#include "ir/RankCursor.h"
#include "ir/Verify.h"
#include "passes/AlignCollectives.h"
#include "passes/CheckCommunication.h"
#include "passes/CommunicationAnalysis.h"
#include "passes/PointToPointCheck.h"
#include "passes/RankRanges.h"
#include "passes/ResolveComms.h"
#include "passes/ResolveWildcards.h"
#include "passes/SummarizeTiming.h"

namespace tracegen {

const std::vector<PassEntry>& passRegistry() {
  // The default pipeline, in order: peers in world numbering first (alignment and matching
  // compare ranks), collectives aligned before the matcher walks the ranks through them,
  // wildcards resolved before every trace's matching and deadlock freedom are checked,
  // timing summarised on the final event structure, rank sets named last.
  static const std::vector<PassEntry> kPasses = {
      {"resolve-comms", createResolveCommsPass, true},
      {"align-collectives", createAlignCollectivesPass, true},
      {"resolve-wildcards", createResolveWildcardsPass, true},
      {"check-communication", createCheckCommunicationPass, true},
      {"summarize-timing", createSummarizeTimingPass, true},
      {"rank-ranges", createRankRangesPass, true},
  };
  return kPasses;
}

namespace {

bool hasWildcard(const Trace& trace) {
  for (const auto& e : trace.events)
    if (const ParamValues* src = e.param(Param::Source))
      for (const auto& g : src->groups)
        for (auto v : g.values)
          if (v == kAnySource) return true;
  return false;
}

}  // namespace

void verifyAfterPass(const Trace& trace, PassContext& ctx, const std::string& passName) {
  verifyStructure(trace, ctx.fileName);
  // Once check-communication has established that every message is matched and the program
  // completes, later passes must keep it so: no wildcard may come back, and the compressed-form
  // analysis must not find a problem it is sure of. (The check itself, with its simulation
  // where the analysis cannot decide, is check-communication's; the verifier stays cheap.)
  if (!ctx.established.count("communication-checked") || passName == "check-communication" ||
      passName == "resolve-wildcards")
    return;
  if (hasWildcard(trace)) {
    verifyPointToPoint(trace, ctx.fileName);  // reports the unresolved receive
    return;
  }
  const CommunicationVerdict v = analyseCommunication(trace);
  if (!v.definiteProblem.empty())
    throw ProgramError(fmt::format("pass {} broke the trace's communication: {}", passName, v.definiteProblem));
}

}  // namespace tracegen
