// check-communication: proves that the program a trace describes completes, or says why not.
//
// Algorithm. Every trace goes through it, with or without wildcard receives (a blocking
// receive on each of two ranks before their sends deadlocks without any wildcard).
// 1. If resolve-wildcards already simulated the whole program to completion, that run is the
//    proof: nothing more to do.
// 2. The compressed-form analysis (CommunicationAnalysis.cpp) works per rank class and per
//    loop: channels that pair iteration by iteration, collective sequences that agree, and an
//    acyclic wait-for graph prove the program complete at any rank count, for the cost of the
//    compressed trace. Messages that nobody receives are warnings.
// 3. Otherwise the program is simulated (the communication simulator, sim/), up to the call
//    budget. When the analysis found the channels aligned, every loop is first folded to two
//    iterations: a cycle of waits then lies within one iteration, and every iteration waits
//    the same way, so the folded program completes exactly when the whole one does (two, not
//    one, so that requests completed in the next iteration are seen too). Otherwise the
//    closed time-step loops are folded as resolve-wildcards folds them (each outermost loop
//    whose body repeats runs a few iterations, and the run counts only if no message, request
//    or collective crossed an iteration); failing that, the whole program is simulated. Beyond the budget
//    the check is not done, and a warning says so; a problem the analysis was sure of (a
//    receive nobody sends to, members that skip a communicator's collectives) is then still
//    reported as an error.
// Counters: events decided symbolically or by simulation, calls simulated, loops folded
// (aligned channels) and closed loops folded.
#include "passes/CheckCommunication.h"

#include <fmt/format.h>

#include <map>

#include "ir/RankCursor.h"
#include "passes/CommunicationAnalysis.h"
#include "sim/SimulateCommunication.h"

namespace tracegen {

void CheckCommunicationPass::run(Trace& trace, PassContext& ctx) {
  const auto events = static_cast<std::int64_t>(trace.events.size());
  if (ctx.established.has(IrProperty::CommunicationChecked)) {
    ctx.counter("events-checked-by-resolve-wildcards") = events;
    return;
  }
  const CommunicationVerdict verdict = analyseCommunication(trace);
  ctx.counter("rank-classes") = verdict.classes;
  ctx.counter("channels") = verdict.channels;
  ctx.counter("collective-sequences") = verdict.collectiveSequences;
  for (const auto& w : verdict.warnings) ctx.warnAt(w.line, "check-communication: " + w.text);
  if (verdict.kind == CommunicationVerdict::Kind::Proved) {
    ctx.counter("events-decided-symbolically") = events;
    ctx.established.add(IrProperty::CommunicationChecked);
    ctx.everySendReceived = verdict.warnings.empty();
    return;
  }

  Trace folded;
  const Trace* simulated = &trace;
  if (verdict.channelsAligned) {
    folded = foldLoops(trace, 2);
    simulated = &folded;
    std::int64_t loops = 0;
    for (std::size_t i = 0; i < trace.events.size(); ++i)
      for (std::size_t k = 0; k < trace.events[i].loops.size(); ++k)
        if (trace.events[i].loops[k] != folded.events[i].loops[k]) ++loops;
    ctx.counter("loops-folded") = loops;
  }
  const std::int64_t budget = ctx.options.callBudget;
  if (!verdict.channelsAligned) {
    // Closed time-step loops folded to a few iterations (resolve-wildcards' folding): a
    // folded run that completes, with no exchange across an iteration, stands for the whole.
    std::map<std::int64_t, std::int64_t> folds;
    if (auto result = simulateCommunicationFolded(trace, ctx.fileName, budget, folds)) {
      ctx.counter("calls-simulated") = result->calls;
      ctx.counter("closed-loops-folded") = static_cast<std::int64_t>(folds.size());
      if (!result->unreceived.empty() && verdict.warnings.empty())
        ctx.warnAt(result->unreceivedLine, "check-communication: " + result->unreceived);
      ctx.counter("events-simulated") = events;
      ctx.established.add(IrProperty::CommunicationChecked);
      ctx.everySendReceived = result->unreceived.empty() && verdict.warnings.empty();
      ctx.receivesTakeWhatTheyPost = result->sizeMismatches == 0;
      return;
    }
  }
  const std::int64_t estimate = estimateCalls(*simulated, budget < 0 ? INT64_MAX - 1 : budget, ctx.fileName);
  if (budget >= 0 && estimate > budget) {
    if (!verdict.definiteProblem.empty())
      throw ProgramError(fmt::format("the program cannot complete: {}", verdict.definiteProblem));
    ctx.counter("events-unchecked") = events;
    ctx.warn(fmt::format("check-communication: matching and deadlock freedom not checked: the compressed-form analysis "
                         "could not decide ({}), and simulating the program takes more than the budget of {} calls "
                         "(--call-budget)",
                         verdict.reason, budget));
    return;
  }
  const SimulationResult result = simulateCommunication(*simulated, ctx.fileName, budget);
  ctx.counter("calls-simulated") = result.calls;
  if (result.outOfBudget) {  // the estimate is exact for the classes, so this is a safety net
    ctx.counter("events-unchecked") = events;
    ctx.warn(fmt::format("check-communication: matching and deadlock freedom not checked: the simulation reached the "
                         "budget of {} calls (--call-budget)",
                         budget));
    return;
  }
  // The analysis warned about unreceived messages per class when it got that far; the
  // simulation names them per rank otherwise.
  if (!result.unreceived.empty() && verdict.warnings.empty())
    ctx.warnAt(result.unreceivedLine, "check-communication: " + result.unreceived);
  ctx.counter("events-simulated") = events;
  ctx.established.add(IrProperty::CommunicationChecked);
  ctx.everySendReceived = result.unreceived.empty() && verdict.warnings.empty();
  // A run of every loop folded to two iterations need not meet every value of a longer list.
  ctx.receivesTakeWhatTheyPost = simulated == &trace && result.sizeMismatches == 0;
}

std::unique_ptr<Pass> createCheckCommunicationPass() { return std::make_unique<CheckCommunicationPass>(); }

}  // namespace tracegen
