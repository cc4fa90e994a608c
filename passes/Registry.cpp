#include "passes/Registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "ir/Diagnostics.h"
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
#include "sim/LoopFolding.h"

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

void verifyAfterPass(const Trace& trace, PassContext& ctx, const std::string& passName,
                     const IrProperties& justEstablished) {
  verifyStructure(trace, ctx.fileName);
  const IrProperties& holds = ctx.established;
  auto broke = [&](IrProperty p, const std::string& what) {
    return ProgramError(fmt::format("pass {} broke the trace's {} ({}): {}", passName, propertyName(p),
                                    propertyMeaning(p), what));
  };
  if (holds.has(IrProperty::CommsResolved)) {
    if (!trace.worldPeers) throw broke(IrProperty::CommsResolved, "peers are not in MPI_COMM_WORLD numbering");
    for (const Event& e : trace.events)
      if (const ParamValues* c = e.param(Param::Comm))
        for (const auto& g : c->groups)
          for (auto v : g.values) {
            if (v == kCommWorld || v == kCommSelf || v == kCommNull) continue;
            const Communicator* comm = trace.comm(v);
            if (!comm || comm->instances.empty())
              throw broke(IrProperty::CommsResolved,
                          fmt::format("event {} ({}) uses communicator {}, which has no instances", e.id, opName(e.op), v));
          }
  }
  if (holds.has(IrProperty::CollectivesAligned)) {
    const std::int64_t partial = countPartialCollectives(trace);
    if (justEstablished.has(IrProperty::CollectivesAligned)) ctx.partialCollectivesAfterAlignment = partial;
    else if (partial > ctx.partialCollectivesAfterAlignment)
      throw broke(IrProperty::CollectivesAligned,
                  fmt::format("{} collective events leave out members of their communicator, {} after alignment",
                              partial, ctx.partialCollectivesAfterAlignment));
  }
  if (holds.has(IrProperty::WildcardsResolved))
    for (const Event& e : trace.events)
      if (hasUnresolvedWildcard(e))
        throw InputError(ctx.fileName, e.line,
                         fmt::format("event {} ({}) still receives from MPI_ANY_SOURCE after pass {}", e.id,
                                     opName(e.op), passName));
  // The check itself, with its simulation where the analysis cannot decide, is
  // check-communication's; the verifier stays cheap and trusts the pass that just made it.
  if (holds.has(IrProperty::CommunicationChecked) && !justEstablished.has(IrProperty::CommunicationChecked)) {
    if (hasWildcard(trace)) {
      if (ctx.closedLoopFolds.empty()) {
        verifyPointToPoint(trace, ctx.fileName);  // reports an unresolved receive
      } else {
        // Each iteration of a closed loop balances on its own, so K of them balance as N do.
        verifyPointToPoint(foldClosedLoops(trace, ctx.closedLoopFolds), ctx.fileName);
      }
    } else {
      const CommunicationVerdict v = analyseCommunication(trace);
      if (!v.definiteProblem.empty()) throw broke(IrProperty::CommunicationChecked, v.definiteProblem);
    }
  }
  if (holds.has(IrProperty::TimingSummarized)) {
    const TimeUnit unit =
        trace.hasTime(Phase::Compute, TimeUnit::Microseconds) ? TimeUnit::Microseconds : TimeUnit::KiloInstructions;
    for (const Event& e : trace.events) {
      const auto histograms = std::count_if(e.stats.begin(), e.stats.end(), [&](const TimeStat& st) {
        return st.phase == Phase::Compute && st.unit == unit;
      });
      const bool finite = std::all_of(e.compute.begin(), e.compute.end(),
                                      [](const ComputeTime& c) { return std::isfinite(c.us) && c.us >= 0; });
      if (static_cast<std::size_t>(histograms) != e.compute.size() || !finite)
        throw broke(IrProperty::TimingSummarized,
                    fmt::format("event {} ({}) has {} compute histograms but {} compute times{}", e.id, opName(e.op),
                                histograms, e.compute.size(), finite ? "" : ", not all finite and non-negative"));
    }
  }
  if (holds.has(IrProperty::RankSetsNamed))
    forEachRankSet(trace, [&](const RankList& ranks) {
      if (!trace.rankShapes.count(ranks.str()))
        throw broke(IrProperty::RankSetsNamed, fmt::format("rank set {} has no shape", ranks.pretty()));
    });
}


}  // namespace tracegen
