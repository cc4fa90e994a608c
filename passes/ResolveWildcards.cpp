// resolve-wildcards: concrete senders for MPI_ANY_SOURCE receives, found by simulating the program.
//
// Algorithm. A cheap scan first: if no Source value anywhere is MPI_ANY_SOURCE there is
// nothing to do and nothing is expanded. Otherwise the program is executed symbolically by the
// communication simulator (sim/Simulation.h: one RankCursor per rank, MPI's matching and
// completion rules), which defers the matching of wildcard receives until no rank can move
// otherwise. At such a quiescent point every (pending wildcard receive, message it may take)
// pair is an option; the option with the earliest-arrived message (lowest send order) is
// taken, the run resumes, and so on. If the run ends with ranks blocked, options taken earlier
// are revisited depth-first: the search restarts the simulation from the beginning and
// replays the recorded prefix of choices with one choice changed (restart and replay keeps the
// simulator free of undo logic). Sleep sets prune orders of independent choices that were
// already explored (two choices commute unless they share the receive or the message). The
// first run is bounded by the trace; every decision of later runs counts against
// ctx.options.wildcardSearchBudget. A completing run that needed backtracking means the
// application itself can deadlock under another matching: a warning names the receive. If
// none completes, the first run's state is reported as a DeadlockError (sim/Deadlock.cpp: each
// blocked rank with the event, operation and call site it waits in and the peer it waits for,
// and a cycle of the wait-for graph). The options of each decision are kept for backtracking
// up to PassOptions::wildcardStoredOptions in all (--search-options); beyond, a decision keeps
// its choice only, and a search that would have to revisit it stops as at the end of its
// budget.
//
// Folding and repeats. Before all this the program is run with its closed time-step loops
// folded to a few iterations (sim/LoopFolding.cpp): when that run completes at once and
// nothing crosses an iteration, it stands for the whole program, and a loop of a million steps
// costs the calls of a few. check-communication uses the same folded run
// (simulateCommunicationFolded). Otherwise the whole program's first run skips the repeats of
// its periodic stretches (sim/Repeats.cpp); a first run that skipped and does not complete is
// run again whole, so that the search behind it can revisit every decision.
//
// The resolved senders are written back per event: for each rank, the sequence of senders
// of its executions of the event, as offsets (sender - rank + P) mod P in the numbering the
// trace uses for peers, cut to its shortest period (values are consumed cyclically), and
// ranks with equal sequences share one value group. Groups without wildcards keep their
// lists (re-encoded as offsets if they were absolute). An event that also receives from
// MPI_PROC_NULL keeps absolute senders, since no offset names it. Loops and events are
// unchanged.
#include "passes/ResolveWildcards.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "ir/Periodic.h"
#include "ir/Summary.h"
#include "passes/CommunicationAnalysis.h"
#include "sim/Deadlock.h"
#include "sim/LoopFolding.h"
#include "sim/Simulation.h"

namespace tracegen {

namespace {

using sim::Failure;
using sim::LoopFold;
using sim::Option;
using sim::RecordedMatches;
using sim::ResolutionMap;
using sim::Simulation;
using sim::kCancelled;
using sim::kUnresolved;
using sim::foldableLoops;
using sim::foldsByHead;
using sim::foldTrace;
using sim::foldWhileClosed;
using sim::recordedMatches;
using sim::unreceivedText;

bool sourceHasWildcard(const Event& e) {
  const ParamValues* src = e.param(Param::Source);
  if (!src) return false;
  for (const auto& g : src->groups)
    if (std::find(g.values.begin(), g.values.end(), kAnySource) != g.values.end()) return true;
  return false;
}

// Events whose wildcards the simulation resolves: receives that match a message and blocking
// probes. (MPI_Iprobe may find nothing, and a persistent receive's one source serves all its
// starts, so their wildcards stay; the simulation still matches them.)
bool resolvable(const Event& e) {
  const OpKind k = opInfo(e.op).kind;
  return (k == OpKind::Recv || k == OpKind::Irecv || k == OpKind::Sendrecv || e.op == Op::Probe ||
          k == OpKind::MatchedProbe) &&
         sourceHasWildcard(e);
}

// A decision point of the depth-first search over matchings.
struct Node {
  std::vector<Option> options;  // in arrival order of their messages (only the chosen one if unstored)
  std::size_t chosen = 0;
  std::vector<Option> sleep;  // options whose subtrees an earlier sibling of an ancestor covers
  // Options not kept (PassOptions::wildcardStoredOptions): the node's alternatives cannot be
  // explored, and a backtrack that reaches it ends the search as an exhausted budget does.
  std::size_t unstored = 0;
};

bool asleep(const Node& n, std::size_t i) {
  return std::find(n.sleep.begin(), n.sleep.end(), n.options[i]) != n.sleep.end();
}

std::optional<std::size_t> nextAwake(const Node& n, std::size_t from) {
  for (std::size_t i = from; i < n.options.size(); ++i)
    if (!asleep(n, i)) return i;
  return std::nullopt;
}

// The sleep set below n's chosen option: what n's sleep set and n's earlier-explored options
// hold, minus the options that do not commute with the chosen one.
std::vector<Option> childSleep(const Node& n) {
  const Option& c = n.options[n.chosen];
  auto independent = [&](const Option& o) { return o.recv != c.recv && o.msg != c.msg; };
  std::vector<Option> s;
  for (const auto& o : n.sleep)
    if (independent(o)) s.push_back(o);
  for (std::size_t i = 0; i < n.chosen; ++i)
    if (!asleep(n, i) && independent(n.options[i])) s.push_back(n.options[i]);
  return s;
}

// Moves the search to the next unexplored option, deepest first: Next, or Exhausted when
// none is left, or Incomplete when the deepest node left did not keep its options.
enum class Backtrack { Next, Exhausted, Incomplete };
Backtrack backtrack(std::vector<Node>& path) {
  while (!path.empty()) {
    Node& n = path.back();
    if (n.unstored > 0) return Backtrack::Incomplete;
    if (auto next = nextAwake(n, n.chosen + 1)) {
      n.chosen = *next;
      return Backtrack::Next;
    }
    path.pop_back();
  }
  return Backtrack::Exhausted;
}

// One run of the search on `sim`. Decisions follow `path` as far as it goes and extend it with
// the earliest-arrived awake option beyond; each decision counts one state, and the run stops
// once `states` reaches `budget` (negative: unbounded).
Simulation::Outcome searchRun(Simulation& sim, std::vector<Node>& path, std::int64_t& states, std::int64_t budget,
                              std::int64_t maxStoredOptions = std::numeric_limits<std::int64_t>::max()) {
  sim.begin();
  std::size_t depth = 0;
  std::int64_t stored = 0;  // options the path keeps
  for (const Node& n : path) stored += static_cast<std::int64_t>(n.options.size());
  for (;;) {
    if (const auto stopped = sim.settle()) return *stopped;
    std::vector<Option> opts = sim.options();
    if (opts.empty()) break;
    if (budget >= 0 && states >= budget) return Simulation::Outcome::OutOfBudget;
    ++states;
    std::size_t pick = 0;
    if (depth < path.size()) {
      // Replays are deterministic; a divergence is a bug in the simulator, not in the input.
      const Node& n = path[depth];
      if (n.unstored == 0) {
        sim.sortByArrival(opts);
        if (n.options != opts) throw std::logic_error("resolve-wildcards: replay diverged");
        pick = n.chosen;
      } else {
        auto it = std::find(opts.begin(), opts.end(), n.options.front());
        if (opts.size() != n.unstored + 1 || it == opts.end()) throw std::logic_error("resolve-wildcards: replay diverged");
        pick = static_cast<std::size_t>(it - opts.begin());
      }
    } else {
      Node n;
      if (depth > 0) n.sleep = childSleep(path[depth - 1]);
      if (opts.size() <= 1 || stored + static_cast<std::int64_t>(opts.size()) <= maxStoredOptions) {
        sim.sortByArrival(opts);
        n.options = opts;
        auto first = nextAwake(n, 0);
        if (!first) return Simulation::Outcome::Pruned;
        n.chosen = pick = *first;
      } else {
        // Beyond the options kept: the choice only, the earliest-arrived awake option (the
        // earlier ones are asleep, so the child's sleep set is what it would have been).
        std::optional<std::size_t> best;
        for (std::size_t k = 0; k < opts.size(); ++k)
          if (std::find(n.sleep.begin(), n.sleep.end(), opts[k]) == n.sleep.end() && (!best || sim.earlier(opts[k], opts[*best])))
            best = k;
        if (!best) return Simulation::Outcome::Pruned;
        n.unstored = opts.size() - 1;
        n.options = {opts[*best]};
        n.chosen = 0;
        pick = *best;
      }
      stored += static_cast<std::int64_t>(n.options.size());
      path.push_back(std::move(n));
    }
    sim.decide(opts[pick]);
    ++depth;
  }
  if (depth < path.size()) throw std::logic_error("resolve-wildcards: replay ended early");
  return sim.finish();
}

std::int64_t toOffset(std::int64_t stored, Rank r, Rank P) { return ((stored - r) % P + P) % P; }

// Rewrites the Source parameter of one event from the resolved senders; returns true if it
// changed.
bool rewriteSource(Event& e, std::size_t index, const ResolutionMap& resolved, Rank P, bool folded) {
  ParamValues& src = *e.param(Param::Source);
  // MPI_PROC_NULL is no offset from any rank, so an event that receives from it keeps its
  // senders absolute (as the trace stores them; such a list is never relative).
  bool procNull = false;
  for (const auto& g : src.groups)
    procNull = procNull || std::find(g.values.begin(), g.values.end(), kProcNull) != g.values.end();
  // A cancelled receive is resolved to MPI_PROC_NULL (Simulation::recordedSource).
  for (auto it = resolved.lower_bound({index, 0}); it != resolved.end() && it->first.first == index; ++it)
    procNull = procNull || std::find(it->second.begin(), it->second.end(), kProcNull) != it->second.end();
  auto encode = [&](std::int64_t stored, Rank r) { return procNull ? stored : toOffset(stored, r, P); };
  std::map<std::vector<std::int64_t>, RankList> classes;
  auto add = [&](const std::vector<std::int64_t>& values, const RankList& ranks) {
    auto [it, inserted] = classes.emplace(values, ranks);
    if (!inserted) it->second = RankList::unite(it->second, ranks);
  };
  for (const auto& g : src.groups) {
    const bool wild = std::find(g.values.begin(), g.values.end(), kAnySource) != g.values.end();
    if (!wild && src.relative) {
      add(g.values, g.ranks);
      continue;
    }
    std::map<std::vector<std::int64_t>, std::vector<Rank>> perRank;
    g.ranks.forEach([&](Rank r) {
      std::vector<std::int64_t> values;
      auto it = wild ? resolved.find({index, r}) : resolved.end();
      if (it != resolved.end() && !it->second.empty()) {
        for (auto v : it->second) values.push_back(v == kUnresolved ? kAnySource : encode(v, r));
        // After a folded run the list stands for every iteration only as a whole repetition
        // (iteration i of the program takes folded iteration i mod K): a period that does not
        // divide it would shift the senders of later iterations.
        std::size_t period = shortestPeriod(values);
        if (folded && values.size() % period != 0) period = values.size();
        values.resize(period);
      } else {
        // No execution to learn from (or no wildcard): the list as it is, as offsets.
        for (auto v : g.values) values.push_back(v == kAnySource || src.relative ? v : encode(v, r));
      }
      perRank[values].push_back(r);
      return true;
    });
    for (const auto& [values, ranks] : perRank) add(values, RankList::fromSorted(ranks));
  }
  std::vector<ValueGroup> groups;
  for (auto& [values, ranks] : classes) groups.push_back({std::move(ranks), values});
  std::sort(groups.begin(), groups.end(), [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
  if (src.relative == !procNull && groups == src.groups) return false;
  src.relative = !procNull;
  src.groups = std::move(groups);
  return true;
}

// The search ran out of budget: that proves nothing about the program, so it is no deadlock.
// Says so (naming the receive whose matchings the search was trying and the budget) and runs
// the simulation once more with every wildcard receive taking the sender the recording saw it
// match, which is an order the application really ran. Without recorded senders there is no
// order to fall back on: the user can only raise the budget. If even the recorded order does
// not complete, that run's deadlock is reported.
std::unique_ptr<Simulation> followRecordedOrder(const Trace& trace, PassContext& ctx, const std::vector<char>& resolvableEvent,
                                                const Simulation& exhausted, const std::vector<Node>& path,
                                                const std::string& limit, std::int64_t callBudget, const std::string& tried) {
  // The deepest decision the exhausted run reached (the path may go deeper than the run got:
  // receives are numbered in posting order, the same in every replay).
  std::string receive = "(none decided yet)";
  // The error names the receive's line, or before any decision the first wildcard receive's.
  int line = 0;
  for (const Event& e : trace.events)
    if (line == 0 && sourceHasWildcard(e)) line = e.line;
  for (auto n = path.rbegin(); n != path.rend(); ++n)
    if (const std::size_t id = n->options[n->chosen].recv; id < exhausted.receiveCount()) {
      receive = exhausted.describeReceive(id);
      line = exhausted.receiveLine(id);
      break;
    }
  const std::string undecided = fmt::format(
      "resolve-wildcards: could not decide the matching of the wildcard receives: the search ran out of {} after {} "
      "while trying the wildcard receive {}",
      limit, tried, receive);
  auto recorded = std::make_shared<RecordedMatches>(recordedMatches(trace, ctx.fileName));
  if (std::none_of(recorded->begin(), recorded->end(), [](const auto& m) { return m.second >= 0; }))
    throw InputError(ctx.fileName, line, undecided + "; the trace records no matched senders to follow instead",
                     {}, "record it with libtracegen-record.so, or raise --search-budget");
  ctx.warn(undecided + "; the benchmark follows the order the recording saw (status.MPI_SOURCE of each wildcard receive)");
  auto sim = std::make_unique<Simulation>(trace, ctx.fileName, resolvableEvent, callBudget);
  sim->useRecording(recorded.get(), true);
  std::vector<Node> fresh;
  std::int64_t states = 0;
  const auto outcome = searchRun(*sim, fresh, states, -1);
  if (outcome == Simulation::Outcome::OutOfBudget)
    throw ProgramError(undecided + fmt::format("; following the recorded order also takes more than {} calls", callBudget));
  if (outcome != Simulation::Outcome::Completed) {
    const Failure& f = sim->failure();
    const std::string msg = f.message + "\n  (following the matches the recording saw)";
    if (f.deadlock) throw DeadlockError(msg, f.blocked, f.cycle, ctx.fileName, f.line);
    throw ProgramError(ctx.fileName, f.line, msg);
  }
  sim->keepAlive(std::move(recorded));
  return sim;
}

// The run that follows the senders the recording saw (`matched`), where it saw any; null
// where it saw none, or where that run does not complete in the simulation (a warning says
// why, and the search decides as for a trace without them). A wildcard receive the recording
// names no sender for takes the earliest-arrived message. The whole program is simulated:
// the recording names receives by stream index, which a folded or skipped run would not
// number alike.
std::unique_ptr<Simulation> runRecordedSenders(const Trace& trace, PassContext& ctx, const std::vector<char>& resolvableEvent,
                                               std::int64_t& callsSimulated) {
  bool any = false;
  for (const Event& e : trace.events) any = any || e.param(Param::Matched);
  if (!any) return nullptr;
  // A program of more calls than the budget is not expanded (nor are its recorded senders
  // listed): the folded and skipped runs below decide it at the cost of a few iterations. So
  // is one too long for the summary to count (kExpansionBudget steps of a rank class).
  const std::int64_t callBudget = ctx.options.callBudget;
  std::int64_t calls = -1;
  try {
    calls = summarizeTrace(trace, ctx.fileName, false).calls;
  } catch (const InputError&) {
  }
  if (calls < 0 || (callBudget >= 0 && calls > callBudget)) {
    if (calls >= 0) ctx.counter("recorded-senders-over-budget") = calls;
    return nullptr;
  }
  auto recorded = std::make_shared<RecordedMatches>(recordedMatches(trace, ctx.fileName));
  if (std::none_of(recorded->begin(), recorded->end(), [](const auto& m) { return m.second >= 0; })) return nullptr;
  auto sim = std::make_unique<Simulation>(trace, ctx.fileName, resolvableEvent, callBudget);
  sim->useRecording(recorded.get(), true);
  sim->keepAlive(recorded);
  const auto outcome = sim->run();
  callsSimulated += sim->callsSimulated();
  // A wildcard receive the recording names no sender for took the earliest-arrived message.
  if (outcome == Simulation::Outcome::Completed) return sim;
  const std::string why = outcome == Simulation::Outcome::OutOfBudget
                              ? fmt::format("takes more than {} calls (--call-budget)", callBudget)
                              : "does not complete in the simulation: " + sim->failure().message;
  ctx.warn(fmt::format("resolve-wildcards: following the senders the recording saw {}; the benchmark takes the "
                       "earliest-arrival matching instead",
                       why));
  return nullptr;
}

// Whether the recording changes what a run does (cancelled receives, the senders of matched
// probes): its entries are by stream index, which a skipped repeat of the run would not say
// alike in each repeat.
bool recordingDecides(const Trace& trace, const RecordedMatches& recorded) {
  if (std::any_of(recorded.begin(), recorded.end(), [](const auto& m) { return m.second == kCancelled; })) return true;
  return !recorded.empty() &&
         std::any_of(trace.events.begin(), trace.events.end(), [](const Event& e) { return opInfo(e.op).kind == OpKind::MatchedProbe; });
}

// A completed search: the run whose matching is taken, the decisions that led to it, the
// restarts it took and the first run's failure (when there were restarts).
struct SearchResult {
  std::unique_ptr<Simulation> sim;
  std::vector<Node> path;
  std::int64_t restarts = 0;
  std::optional<Failure> first;
};

// Runs the depth-first search over wildcard matchings on `simulated` (the trace, or its folded
// form when foldedHeads is given). On the whole trace a failure is thrown as the user's error
// and a search out of budget falls back on the recorded order. Of a folded program only the
// earliest-arrival run is tried, and nullopt says that it did not complete.
std::optional<SearchResult> searchMatching(const Trace& simulated, PassContext& ctx, const std::vector<char>& resolvableEvent,
                                           const std::vector<LoopFold>* foldedHeads, std::int64_t& callsSimulated) {
  const std::int64_t budget = ctx.options.wildcardSearchBudget;
  // Every run counts its calls against one budget, so restarts (each replays its prefix) and
  // the first run alike are bounded.
  const std::int64_t callBudget = ctx.options.callBudget;
  SearchResult out;
  std::int64_t states = 0, firstRunStates = 0;  // decisions of later runs / of the first
  bool wholeFirstRun = false;  // the first run again, without skipping repeats
  // Cancelled receives, which match nothing, as the recording saw them (empty for other traces).
  const auto recorded = std::make_shared<const RecordedMatches>(recordedMatches(simulated, ctx.fileName));
  auto giveUp = [&](const std::string& why) {
    std::string msg = out.first->message + "\n  " + why;
    if (out.first->deadlock) throw DeadlockError(msg, out.first->blocked, out.first->cycle, ctx.fileName, out.first->line);
    throw ProgramError(ctx.fileName, out.first->line, msg);
  };
  for (;;) {
    out.sim = std::make_unique<Simulation>(simulated, ctx.fileName, resolvableEvent,
                                           callBudget < 0 ? -1 : std::max<std::int64_t>(0, callBudget - callsSimulated));
    out.sim->useRecording(recorded.get(), false);
    out.sim->keepAlive(recorded);
    if (foldedHeads) out.sim->checkPhases(*foldedHeads);
    // The earliest-arrival run is bounded by the trace itself; the budget bounds the search.
    const bool firstRun = out.restarts == 0;
    // The first run skips the repeats of its periodic stretches (the decisions in them are
    // taken as in the stretch, which the search could not revisit: a first run that does not
    // complete is run again whole, and the search goes on from that one).
    const bool skipping = ctx.options.skipRepeats && firstRun && !foldedHeads && !wholeFirstRun &&
                          !recordingDecides(simulated, *recorded);
    if (skipping) out.sim->skipRepeats();
    const std::int64_t keep = ctx.options.wildcardStoredOptions;
    const auto outcome =
        firstRun ? searchRun(*out.sim, out.path, firstRunStates, -1, keep) : searchRun(*out.sim, out.path, states, budget, keep);
    callsSimulated += out.sim->callsSimulated();
    ctx.counter("calls-simulated") = callsSimulated;
    if (skipping && out.sim->repeatsSkipped() > 0) {
      if (outcome != Simulation::Outcome::Completed) {
        wholeFirstRun = true;
        out.path.clear();
        firstRunStates = 0;
        continue;
      }
      ctx.counter("repeats-skipped") = out.sim->repeatsSkipped();
      ctx.counter("calls-skipped") = out.sim->callsSkipped();
    }
    if (outcome == Simulation::Outcome::Completed) break;
    if (outcome == Simulation::Outcome::Failed && !out.first) out.first = out.sim->failure();
    const std::string tried = fmt::format("{} restart{}", out.restarts, out.restarts == 1 ? "" : "s");
    const std::string budgets =
        fmt::format("its budget ({} states, --search-budget; {} calls, --call-budget)", budget, callBudget);
    auto fallBack = [&](const std::string& limit) {
      out.sim = followRecordedOrder(simulated, ctx, resolvableEvent, *out.sim, out.path, limit, callBudget, tried);
      out.path.clear();  // the search's decisions are not the fallback run's: nothing to explain below
    };
    if (outcome == Simulation::Outcome::OutOfBudget) {
      if (foldedHeads) return std::nullopt;
      fallBack(budgets);
      break;
    }
    // A folded program that does not complete at once may owe that to the folding (a loop
    // whose iterations overlap can deadlock when cut short): the whole program decides.
    if (foldedHeads) return std::nullopt;
    const Backtrack next = backtrack(out.path);
    if (next == Backtrack::Incomplete) {
      const std::int64_t kept = ctx.options.wildcardStoredOptions;
      fallBack(fmt::format("the memory it keeps to revisit decisions ({} option{}, --search-options)", kept,
                           kept == 1 ? "" : "s"));
      break;
    }
    if (next == Backtrack::Exhausted) {
      if (out.restarts == 0) giveUp("(the wildcard receives had no other sender to choose from)");
      giveUp(fmt::format("(no matching of the wildcard receives completes: the search ended after {})", tried));
    }
    ++out.restarts;
    ctx.counter("search-restarts") = out.restarts;
  }
  return out;
}

}  // namespace

void ResolveWildcardsPass::run(Trace& trace, PassContext& ctx) {
  bool any = false;
  for (const auto& e : trace.events) any = any || sourceHasWildcard(e);
  if (!any) return;  // the common case: nothing to expand

  // Senders that only one rank can be need no simulation (per rank class, see
  // CommunicationAnalysis.cpp): a wavefront's receives from MPI_ANY_SOURCE with one tag per
  // direction, at any scale.
  if (const std::int64_t forced = resolveForcedWildcards(trace); forced > 0) {
    ctx.counter("wildcard-groups-resolved-symbolically") = forced;
    any = false;
    for (const auto& e : trace.events) any = any || sourceHasWildcard(e);
    if (!any) return;
  }

  std::vector<char> resolvableEvent(trace.events.size(), 0);
  for (std::size_t i = 0; i < trace.events.size(); ++i) resolvableEvent[i] = resolvable(trace.events[i]) ? 1 : 0;

  std::int64_t callsSimulated = 0;
  std::optional<SearchResult> found;
  bool folded = false;
  Trace foldedTrace;  // the simulation refers to its events
  // A recording that says which sender each wildcard receive took is followed: that matching
  // happened under the real library's buffering and timing. The earliest-arrival matching
  // below assumes every send buffered (eager); a benchmark that polls its sends to completion
  // can then wait for ever under a rendezvous protocol where the application did not (hpcc's
  // RandomAccess at 4 ranks under Open MPI, whose messages of 4-6 KB go by rendezvous).
  // Its calls are not held against the runs that follow when it does not complete.
  std::int64_t recordedCalls = 0;
  if (ctx.options.recordedSenders)
    if (auto sim = runRecordedSenders(trace, ctx, resolvableEvent, recordedCalls)) {
      found.emplace();
      found->sim = std::move(sim);
      ctx.counter("wildcards-as-recorded") = found->sim->wildcardsResolved();
    }
  // Else first the program with its long outermost loops folded (see foldableLoops); if that
  // run does not stand for the whole program, the whole program.
  // A loop whose exchanges cross its iterations (or reach into another folded loop, as a
  // rank's receive loop fed by other ranks' send loop does) is dropped and the rest tried
  // again; each attempt drops at least one loop, and the attempts cost folded runs only.
  std::vector<LoopFold> folds = found ? std::vector<LoopFold>{} : foldableLoops(trace, ctx.fileName);
  std::int64_t attempts = 0;
  if (!found) found = foldWhileClosed<SearchResult>(folds, attempts, [&](const std::vector<LoopFold>& fs) {
    foldedTrace = foldTrace(trace, fs);  // the previous attempt's run is gone by now
    const std::vector<LoopFold> heads = foldsByHead(fs, trace.events.size());
    std::optional<std::pair<SearchResult, std::set<std::int64_t>>> out;
    if (auto r = searchMatching(foldedTrace, ctx, resolvableEvent, &heads, callsSimulated)) {
      std::set<std::int64_t> broken = r->sim->brokenLoops();
      out.emplace(std::move(*r), std::move(broken));
    }
    return out;
  });
  if (attempts > 0) ctx.counter("fold-attempts") = attempts;
  if (found && !folds.empty()) {
    std::int64_t skipped = 0;
    for (const auto& f : folds) skipped += f.iterations - f.folded;
    ctx.counter("loops-folded") = static_cast<std::int64_t>(folds.size());
    ctx.counter("iterations-not-simulated") = skipped;
    for (const auto& f : folds) ctx.closedLoopFolds[trace.events[f.head].id] = f.folded;
    folded = true;
  }
  if (!found) {
    // The whole program's run has the call budget to itself: what the folded attempts cost is
    // counted in calls-simulated but not held against it.
    std::int64_t wholeCalls = 0;
    found = searchMatching(trace, ctx, resolvableEvent, nullptr, wholeCalls);
    ctx.counter("calls-simulated") = callsSimulated + wholeCalls;
  }
  if (recordedCalls > 0) ctx.counter("calls-simulated") += recordedCalls;
  auto& [sim, path, restarts, first] = *found;
  std::int64_t notKept = 0;
  for (const Node& n : path) notKept += static_cast<std::int64_t>(n.unstored);
  if (notKept > 0) ctx.counter("options-not-kept") = notKept;

  if (restarts > 0) {
    // The shallowest decision the search changed is the receive whose choice matters.
    for (const auto& n : path) {
      const std::size_t greedy = *nextAwake(n, 0);
      if (n.chosen == greedy) continue;
      const Option& taken = n.options[n.chosen];
      const Option& earliest = n.options[greedy];
      const std::string instead =
          taken.recv == earliest.recv
              ? fmt::format("taking the earlier-arrived message from rank {} instead", sim->sender(earliest))
              : fmt::format("matching first the receive {} with rank {}'s earlier-arrived message",
                            sim->describeReceive(earliest.recv), sim->sender(earliest));
      ctx.warn(fmt::format("resolve-wildcards: the wildcard receive {} must take the message from rank {}; {} leads to a "
                           "potential deadlock ({}): the application itself can deadlock under another matching of its "
                           "wildcard receives",
                           sim->describeReceive(taken.recv), sim->sender(taken), instead, first->firstBlocked));
      break;
    }
  }

  std::int64_t rewritten = 0;
  for (std::size_t i = 0; i < trace.events.size(); ++i)
    if (resolvableEvent[i] && rewriteSource(trace.events[i], i, sim->resolutions(), trace.numRanks, folded)) ++rewritten;
  ctx.counter("wildcards-resolved") = sim->wildcardsResolved();
  // The run that completed simulated the whole program: every rank finished, every receive
  // was matched. What it left unreceived is said once, here.
  ctx.established.add(IrProperty::CommunicationChecked);
  ctx.counter("events-simulated") = static_cast<std::int64_t>(trace.events.size());
  int unreceivedLine = 0;
  if (std::string unreceived = unreceivedText(*sim, unreceivedLine); !unreceived.empty())
    ctx.warnAt(unreceivedLine, std::move(unreceived));
  else
    ctx.everySendReceived = true;
  ctx.receivesTakeWhatTheyPost = sim->sizeMismatches() == 0;
  ctx.counter("events-rewritten") = rewritten;
  ctx.counter("search-restarts") = restarts;
}

std::unique_ptr<Pass> createResolveWildcardsPass() { return std::make_unique<ResolveWildcardsPass>(); }

bool hasUnresolvedWildcard(const Event& e) { return resolvable(e); }

}  // namespace tracegen
