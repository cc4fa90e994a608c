#include "passes/Registry.h"

#include <set>

#include "ir/RankCursor.h"
#include "ir/Verify.h"
#include "passes/AlignCollectives.h"
#include "passes/PointToPointCheck.h"
#include "passes/RankRanges.h"
#include "passes/ResolveComms.h"
#include "passes/ResolveWildcards.h"
#include "passes/SummarizeTiming.h"

namespace tracegen {

const std::vector<PassEntry>& passRegistry() {
  // The default pipeline, in order: peers in world numbering first (alignment and matching
  // compare ranks), collectives aligned before the matcher walks the ranks through them,
  // timing summarised on the final event structure, rank sets named last.
  static const std::vector<PassEntry> kPasses = {
      {"resolve-comms", createResolveCommsPass, true},
      {"align-collectives", createAlignCollectivesPass, true},
      {"resolve-wildcards", createResolveWildcardsPass, true},
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
  // Point-to-point matching is checked once wildcards are resolved. Matching is a property of
  // the whole run, so it needs every rank's expansion: done up to a budget of calls, which
  // covers every trace a person reads (the NPB traces: 0.3 million calls; a few seconds per 10 million); past it the check
  // is skipped and said so, as the pipeline's other checks stay structural.
  bool wildcardsResolved = false;
  for (const auto& [name, counters] : ctx.stats) wildcardsResolved = wildcardsResolved || name == "resolve-wildcards";
  if (!wildcardsResolved) return;
  if (hasWildcard(trace)) {
    verifyPointToPoint(trace, ctx.fileName);  // reports the unresolved receive
    return;
  }
  if (passName != "resolve-wildcards") return;
  constexpr std::int64_t kCallBudget = 10'000'000;
  if (!expansionWithinBudget(trace, kCallBudget, ctx.fileName)) {
    ++ctx.counter("p2p-check-skipped");
    return;
  }
  verifyPointToPoint(trace, ctx.fileName);
}

}  // namespace tracegen
