// resolve-wildcards: concrete senders for MPI_ANY_SOURCE receives, found by simulating the program.
//
// Algorithm. A cheap scan first: if no Source value anywhere is MPI_ANY_SOURCE there is
// nothing to do and nothing is expanded. Otherwise the program is executed symbolically with
// one RankCursor per rank, as an MPI library would run it. A FIFO worklist of ranks (initially
// all, in order) advances each rank until it blocks; a rank is queued again only when
// something it may wait for happens (a message to it, a match of its receive or synchronous
// send, the last arrival at its collective), so every step either completes a call or is
// caused by one, and the run is bounded by the number of calls. Messages are queued per
// (communicator instance, sender, receiver) in send order; a receive takes its sender's first
// message of a compatible tag (MPI's non-overtaking rule), and receives of one rank on one
// communicator match in the order they were posted (a receive cannot take a message an
// earlier pending receive could take). Standard, buffered and ready sends complete at once
// (eager buffering); MPI_Ssend/MPI_Issend complete when matched; MPI_Recv, MPI_Wait(all)
// and MPI_Sendrecv block until their receives are matched; sends to and receives and probes
// from MPI_PROC_NULL complete at once without a partner; a collective (and communicator
// creation or release) blocks until every member of the communicator instance has reached
// its k-th collective there. Wildcard receives are not matched as they are posted: a real
// run could deliver any sender's message first, so their matching is deferred until no rank
// can move otherwise. At such a quiescent point every (pending wildcard receive, message it
// may take) pair is an option; the option with the earliest-arrived message (lowest send
// order) is taken, the run resumes, and so on. If the run ends with ranks blocked, options
// taken earlier are revisited depth-first: the search restarts the simulation from the
// beginning and replays the recorded prefix of choices with one choice changed (restart and
// replay keeps the simulator free of undo logic). Sleep sets prune orders of independent
// choices that were already explored (two choices commute unless they share the receive or
// the message). The first run is bounded by the trace; every decision of later runs counts
// against ctx.options.wildcardSearchBudget. A completing run that needed backtracking means
// the application itself can deadlock under another matching: a warning names the receive.
// If none completes, the first run's state is reported as a DeadlockError: each blocked rank
// with the event, operation and call site it waits in and the peer it waits for, and a
// cycle of the wait-for graph (Boost.Graph depth-first search, first back edge). The options of
// each decision are kept for backtracking up to PassOptions::wildcardStoredOptions in all
// (--search-options); beyond, a decision keeps its choice only, and a search that would have
// to revisit it stops as at the end of its budget.
//
// Folding. Before all this the program is run with its closed time-step loops folded to a few
// iterations (foldableLoops, below): when that run completes at once and nothing crosses an
// iteration, it stands for the whole program, and a loop of a million steps costs the calls
// of a few. check-communication uses the same folded run (simulateCommunicationFolded).
//
// Repeats. Folding needs one loop that every rank enters alike and iterations nothing crosses.
// A real trace often has neither: ScalaTrace's LU class C at 16 ranks compresses its time-step
// loop per rank with different heads (the body rotated), trip counts (249, or 248 and a peeled
// iteration) and inner factorings (320 or 2 x 160 planes), and its wavefront's messages cross
// every rank's iteration boundaries. Its run is nonetheless periodic: the whole program's
// first run (the earliest-arrival one) compares the state of the run at quiescent points,
// ranks' positions (cursors, the calls they wait in, requests, mailboxes) and what is in
// flight, with everything absolute (stream indices, iterations left of each rank's outermost
// loop, message and receive numbers) said relatively. Equal states mean the stretch between
// them repeats decision for decision until some rank's outermost loop ends (the simulation is
// deterministic, and those counters only name things), so the repeats are applied instead of
// simulated: each rank moves on by whole repeats of its own iterations and calls, leaving
// each its last iteration to simulate, and the resolution lists get the stretch's pushes and
// writes once per repeat, shifted by the stretch's growth. The exact per-call result is the
// whole run's. States are named by a digest (the sum of per-rank position digests, updated
// for the ranks that moved) and taken in full only where a digest comes round again, no more
// often than the calls simulated pay for; the last few are kept, since a state can repeat at
// a multiple of its positions' period (a value list of 3 iterations). A state with a
// collective under way, active persistent requests or matched probes is not compared (such a
// run goes on simulated), nor are runs whose recording decides matches (cancelled receives,
// matched probes' senders) or that check phases. A first run that skipped and does not
// complete is run again whole, so that the search behind it can revisit every decision.
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
#include <array>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "ir/RankCursor.h"
#include "ir/Periodic.h"
#include "ir/RankClasses.h"
#include "ir/Summary.h"
#include "passes/CommunicationAnalysis.h"

namespace tracegen {

namespace {

constexpr std::int64_t kAnyTag = -1;  // MPI_ANY_TAG as traces with tag retention write it
constexpr std::int64_t kUnresolved = std::numeric_limits<std::int64_t>::min();
constexpr std::size_t kMaxListedRanks = 16;

bool tagsMatch(std::int64_t recvTag, std::int64_t sendTag) { return recvTag == kAnyTag || recvTag == sendTag; }

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

// A communicator instance: ids are reused by disjoint instances (each row of a grid has its
// own "comm 1000"), so the instance is named by its lowest world rank.
struct CommKey {
  std::int64_t id = kCommWorld;
  Rank base = 0;
  auto operator<=>(const CommKey&) const = default;
};

// Which iteration of which folded loop a call lies in (see foldableLoops): messages, requests
// and collectives must begin and end in the same one for the folded run to stand for the
// whole program. loop -1: outside every folded loop.
struct FoldPhase {
  std::int64_t loop = -1;
  std::int64_t iteration = -1;
  bool operator==(const FoldPhase&) const = default;
};

struct Message {
  Rank sender = 0, receiver = 0;
  CommKey key;
  std::int64_t tag = 0;
  std::int64_t seq = 0;  // send order, which is taken as arrival order
  bool sync = false;     // MPI_Ssend/MPI_Issend: the sender waits for the match
  bool matched = false;
  FoldPhase phase{};  // of the sending call
  std::int32_t line = 0;  // the send's input line (in the padding after phase: no larger)
  std::int64_t bytes = 0;  // what it carries (sizeMismatches)
};

struct Receive {
  Rank rank = 0;
  CommKey key;
  Rank source = 0;  // world rank or kAnySource
  std::int64_t tag = 0;
  const Event* event = nullptr;
  std::int64_t callIndex = 0;
  std::vector<std::int64_t>* record = nullptr;  // the rank's resolution list of the event
  std::size_t slot = 0;
  bool matched = false;
  std::size_t msg = 0;
  FoldPhase phase{};  // of the posting call
  std::int64_t bytes = 0;  // what it posts
};

enum class ReqKind { Done, SyncSend, Recv, Collective };
struct Request {
  ReqKind kind = ReqKind::Done;
  std::size_t id = 0;
  const Event* event = nullptr;
  // ReqKind::Collective: the nonblocking collective (communicator instance, its number there)
  // whose request it is; complete once every member has started it.
  CommKey collKey{};
  std::int64_t collIndex = 0;
  FoldPhase phase{};  // of the creating call
};

// One decision at a quiescent point: a pending wildcard receive takes a message.
struct Option {
  std::size_t recv = 0, msg = 0;
  bool operator==(const Option&) const = default;
};

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

struct Failure {
  bool deadlock = true;  // false: every rank finished but receives stayed unmatched
  std::string message;   // full text, first line `potential deadlock: ...`
  std::string firstBlocked;  // the first blocked rank's line, for warnings
  int line = 0;              // the input line of the first blocked rank's call (0: unknown)
  std::vector<Rank> blocked;
  std::vector<Rank> cycle;
};

using ResolutionMap = std::map<std::pair<std::size_t, Rank>, std::vector<std::int64_t>>;

// Whether a trace's tests name only what they completed: tracegen's recorder records a test
// that completed nothing as such (docs/recording.md, "Requests"); ScalaTrace records the
// request tested.
bool testsNameCompletions(const Trace& trace) { return trace.origin.rfind("scalatrace", 0) != 0; }

// The senders a recording saw its wildcard receives match, by (rank, stream index of the
// MPI_Recv/MPI_Sendrecv or of the MPI_Irecv), from the `matched` parameters (Param::Matched);
// kCancelled for receives that were cancelled (MPI_Cancel, then a wait or test) and matched
// nothing.
using RecordedMatches = std::map<std::pair<Rank, std::int64_t>, Rank>;
constexpr Rank kCancelled = -2;  // the `matched` value of a cancelled request

RecordedMatches recordedMatches(const Trace& trace, const std::string& fileName) {
  RecordedMatches out;
  bool any = false;
  for (const auto& e : trace.events) any = any || e.param(Param::Matched);
  if (!any) return out;
  for (Rank r = 0; r < trace.numRanks; ++r) {
    RankCursor cursor(trace, r, fileName);
    Call c;
    while (cursor.next(c)) {
      if (c.matched.empty()) continue;
      const OpKind k = opInfo(c.op).kind;
      if (k == OpKind::Recv || k == OpKind::Sendrecv || k == OpKind::MatchedProbe) {
        if (c.matched[0] >= 0 || c.matched[0] == kCancelled) out[{r, c.index}] = c.matched[0];
        continue;
      }
      for (std::size_t i = 0; i < c.completes.size() && i < c.matched.size(); ++i)
        if (c.completes[i] >= 0 && (c.matched[i] >= 0 || c.matched[i] == kCancelled)) out[{r, c.completes[i]}] = c.matched[i];
    }
  }
  return out;
}

// An outermost loop folded for the simulation (see foldableLoops below).
struct LoopFold {
  std::size_t head = 0;        // index of the event heading the loop (its loops[0])
  std::int64_t iterations = 0;  // the trip count, the same on every rank
  std::int64_t folded = 0;      // K
};

class Simulation {
 public:
  enum class Outcome { Completed, Failed, Pruned, OutOfBudget };

  Simulation(const Trace& trace, const std::string& fileName, const std::vector<char>& resolvableEvent,
             std::int64_t callBudget = -1)
      : trace_(trace),
        fileName_(fileName),
        resolvable_(resolvableEvent),
        testsBlock_(testsNameCompletions(trace)),
        callBudget_(callBudget) {
    ranks_.reserve(static_cast<std::size_t>(trace.numRanks));
    for (Rank r = 0; r < trace.numRanks; ++r) ranks_.emplace_back(trace, r, fileName);
  }

  // Runs the program to its end. Decisions follow `path` as far as it goes and extend it with
  // the earliest-arrived awake option beyond; each decision counts one state, and the run
  // stops once `states` reaches `budget` (negative: unbounded).
  Outcome run(std::vector<Node>& path, std::int64_t& states, std::int64_t budget,
              std::int64_t maxStoredOptions = std::numeric_limits<std::int64_t>::max()) {
    for (Rank r = 0; r < trace_.numRanks; ++r) wake(r);
    std::size_t depth = 0;
    std::int64_t stored = 0;  // options the path keeps
    for (const Node& n : path) stored += static_cast<std::int64_t>(n.options.size());
    for (;;) {
      while (!queue_.empty() && !outOfCalls_ && !mismatch_) {
        Rank r = queue_.front();
        queue_.pop_front();
        state(r).queued = false;
        advance(r);
      }
      if (outOfCalls_) return Outcome::OutOfBudget;
      if (mismatch_) {
        failure_ = *mismatch_;
        return Outcome::Failed;
      }
      if (skipRepeats_) atQuiescence();
      std::vector<Option> opts = options();
      if (opts.empty()) break;
      if (budget >= 0 && states >= budget) return Outcome::OutOfBudget;
      ++states;
      std::size_t pick = 0;
      if (depth < path.size()) {
        // Replays are deterministic; a divergence is a bug in this file, not in the input.
        const Node& n = path[depth];
        if (n.unstored == 0) {
          sortByArrival(opts);
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
          sortByArrival(opts);
          n.options = opts;
          auto first = nextAwake(n, 0);
          if (!first) return Outcome::Pruned;
          n.chosen = pick = *first;
        } else {
          // Beyond the options kept: the choice only, the earliest-arrived awake option (the
          // earlier ones are asleep, so the child's sleep set is what it would have been).
          std::optional<std::size_t> best;
          for (std::size_t k = 0; k < opts.size(); ++k)
            if (std::find(n.sleep.begin(), n.sleep.end(), opts[k]) == n.sleep.end() && (!best || earlier(opts[k], opts[*best])))
              best = k;
          if (!best) return Outcome::Pruned;
          n.unstored = opts.size() - 1;
          n.options = {opts[*best]};
          n.chosen = 0;
          pick = *best;
        }
        stored += static_cast<std::int64_t>(n.options.size());
        path.push_back(std::move(n));
      }
      decide(opts[pick]);
      ++depth;
    }
    if (depth < path.size()) throw std::logic_error("resolve-wildcards: replay ended early");
    if (finished_ == trace_.numRanks) {
      if (unmatchedReport()) return Outcome::Failed;
      return Outcome::Completed;
    }
    deadlockReport();
    return Outcome::Failed;
  }

  // Gives this run the recording's matches (before run()): cancelled receives complete at once;
  // with `follow`, wildcard receives take the recorded senders.
  void useRecording(const RecordedMatches* m, bool follow) {
    recorded_ = m;
    follow_ = follow;
  }
  void keepAlive(std::shared_ptr<const RecordedMatches> m) { recordedOwner_ = std::move(m); }
  // Tags every call with its phase (the iteration of the folded loop it lies in, named by the
  // head's event index: folds[e] is that loop's fold, iterations 0 where e heads none) and
  // checks that every message, request and collective begins and ends within one iteration.
  // The loops of different ranks may differ (a receive loop fed by a send loop) if they run
  // as many iterations and are folded alike: then iteration i of one pairs with iteration i of
  // the other. brokenLoops() names the folded loops where that did not hold (empty: the run
  // stands for the whole program).
  void checkPhases(std::vector<LoopFold> folds) { folds_ = std::move(folds); }
  // Skips the repeats of periodic stretches of the run (see "Repeats" above), before run().
  void skipRepeats() {
    skipRepeats_ = true;
    movedFlag_.assign(static_cast<std::size_t>(trace_.numRanks), 0);
    digest_.assign(static_cast<std::size_t>(trace_.numRanks), 0);
  }
  std::int64_t repeatsSkipped() const { return repeatsSkipped_; }
  std::int64_t callsSkipped() const { return callsSkipped_; }
  std::set<std::int64_t> brokenLoops() const {
    std::set<std::int64_t> out = broken_;
    for (const auto& m : msgs_)
      if (!m.matched && m.phase.loop >= 0) out.insert(m.phase.loop);  // its receive lies beyond the fold
    return out;
  }
  const Failure& failure() const { return failure_; }
  std::int64_t callsSimulated() const { return calls_; }
  // Messages sent that no receive took, one line each (at most kMaxListedRanks).
  std::vector<std::string> unreceivedMessages(std::size_t& count, int& firstLine) const {
    std::vector<std::string> lines;
    count = 0;
    for (const auto& m : msgs_) {
      if (m.matched) continue;
      if (count == 0) firstLine = m.line;
      if (++count <= kMaxListedRanks)
        lines.push_back(fmt::format("rank {} to rank {} on communicator {} (tag {})", m.sender, m.receiver, m.key.id, m.tag));
    }
    return lines;
  }
  ResolutionMap& resolutions() { return resolutions_; }
  std::int64_t wildcardsResolved() const { return wildcardsResolved_; }
  // Receives matched with a message of another size than they post (gen::matchReceivedBytes
  // need not walk the trace when there are none).
  std::int64_t sizeMismatches() const { return sizeMismatches_; }
  const std::vector<std::string>& notes() const { return notes_; }
  Rank sender(const Option& o) const { return msgs_[o.msg].sender; }
  std::size_t receiveCount() const { return recvs_.size(); }
  int receiveLine(std::size_t id) const { return recvs_[id].event->line; }
  std::string describeReceive(std::size_t id) const {
    const Receive& r = recvs_[id];
    return fmt::format("of rank {} in event {} ({} at {}, call {})", r.rank, r.event->id, opName(r.event->op),
                       trace_.siteLabel(r.event->site), r.callIndex);
  }

 private:
  struct Box {  // one rank's side of one communicator instance
    std::map<Rank, std::deque<std::size_t>> inbox;  // unmatched messages by sender, send order
    std::vector<std::size_t> pending;               // unmatched receives, posting order
  };
  struct CollState {
    Rank arrived = 0, departed = 0, size = 0;
    Op op = Op::Barrier;
    Rank firstRank = 0;
    FoldPhase phase{};  // of the first arrival
  };
  struct RankState {
    RankState(const Trace& t, Rank r, const std::string& f) : cursor(t, r, f) { cursor.setComputeTimes(false); }
    RankCursor cursor;
    Call call;
    FoldPhase phase;  // of `call`, when phases are checked
    bool hasCall = false, started = false, finished = false, queued = false;
    std::size_t recv = 0, msg = 0;  // what the current call waits for
    CommKey collKey;
    std::int64_t collIndex = 0;
    std::map<CommKey, std::int64_t> collectives;  // collectives entered, per instance
    std::unordered_map<std::int64_t, Request> requests;  // by stream index of the creating call
    std::map<CommKey, Box> boxes;
  };

  RankState& state(Rank r) { return ranks_[static_cast<std::size_t>(r)]; }
  const RankState& state(Rank r) const { return ranks_[static_cast<std::size_t>(r)]; }

  void wake(Rank r) {
    RankState& s = state(r);
    if (s.queued || s.finished) return;
    s.queued = true;
    queue_.push_back(r);
  }

  [[noreturn]] void fail(const Call& c, Rank r, const std::string& what) const {
    throw InputError(fileName_, c.event->line, fmt::format("event {} ({}): rank {} {}", c.event->id, opName(c.op), r, what));
  }

  CommKey keyFor(Rank r, const Call& c) const {
    if (c.comm == kCommWorld) return {kCommWorld, 0};
    if (c.comm == kCommSelf) return {kCommSelf, r};
    const Communicator* comm = trace_.comm(c.comm);
    const RankList* inst = comm ? comm->instanceFor(r) : nullptr;
    if (!inst) fail(c, r, fmt::format("uses communicator {}, which the trace does not describe (run resolve-comms first)", c.comm));
    return {c.comm, *inst->first()};
  }

  const RankList& members(const CommKey& k) {
    auto it = members_.find(k);
    if (it != members_.end()) return it->second;
    RankList list;
    if (k.id == kCommWorld) list = RankList::all(trace_.numRanks);
    else if (k.id == kCommSelf) list = RankList::single(k.base);
    else
      for (const auto& inst : trace_.comm(k.id)->instances)
        if (inst.first() == k.base) list = inst;
    return members_.emplace(k, std::move(list)).first->second;
  }

  // The peer as the trace stores it: world rank, or rank in the communicator before
  // communicators are resolved.
  std::int64_t storedPeer(const CommKey& k, Rank world) {
    if (trace_.worldPeers || k.id == kCommWorld) return world;
    if (k.id == kCommSelf) return 0;
    // In the communicator's own numbering (its explicit order where it has one).
    const Communicator* c = trace_.comm(k.id);
    const std::int64_t i = c ? c->instanceIndex(k.base) : -1;
    if (i < 0) return world;
    const Rank cr = c->commRank(static_cast<std::size_t>(i), world);
    return cr < 0 ? world : cr;
  }

  void checkPeer(Rank r, const Call& c, Rank peer, bool wildcardAllowed) const {
    if (wildcardAllowed && peer == kAnySource) return;
    if (peer == kProcNull) return;
    if (!c.peerIsWorld) fail(c, r, "has a peer on a communicator the trace does not describe (run resolve-comms first)");
    if (peer < 0 || peer >= trace_.numRanks)
      fail(c, r, fmt::format("has peer {}, outside MPI_COMM_WORLD of {} ranks", peer, trace_.numRanks));
  }

  std::vector<std::int64_t>* recordFor(Rank r, const Call& c) {
    const std::size_t e = static_cast<std::size_t>(c.event - trace_.events.data());
    if (!resolvable_[e]) return nullptr;
    return &resolutions_[{e, r}];
  }

  // Every change to a resolution list goes through these two, so that a repeat of the run's
  // stretch between two equal states (skipRepeats) can replay it on the lists.
  void push(std::vector<std::int64_t>* record, std::int64_t value) {
    if (logging_) log_.push_back({record, record->size(), value, true});
    record->push_back(value);
  }
  void write(std::vector<std::int64_t>* record, std::size_t slot, std::int64_t value) {
    if (logging_) log_.push_back({record, slot, value, false});
    (*record)[slot] = value;
  }

  bool matches(const Receive& R, const Message& m) const {
    return (R.source == kAnySource || R.source == m.sender) && tagsMatch(R.tag, m.tag);
  }

  // The message from `sender` the i-th pending receive of `box` may take: the sender's first
  // message of a compatible tag, unless an earlier pending receive could take that one.
  std::optional<std::size_t> candidate(const Box& box, std::size_t i, Rank sender) const {
    auto q = box.inbox.find(sender);
    if (q == box.inbox.end()) return std::nullopt;
    const Receive& R = recvs_[box.pending[i]];
    for (std::size_t id : q->second) {
      const Message& m = msgs_[id];
      if (!tagsMatch(R.tag, m.tag)) continue;
      for (std::size_t j = 0; j < i; ++j)
        if (matches(recvs_[box.pending[j]], m)) return std::nullopt;
      return id;
    }
    return std::nullopt;
  }

  void match(Box& box, std::size_t i, std::size_t msgId) {
    const std::size_t recvId = box.pending[i];
    Receive& R = recvs_[recvId];
    Message& m = msgs_[msgId];
    R.matched = true;
    R.msg = msgId;
    m.matched = true;
    if (m.bytes != R.bytes) ++sizeMismatches_;
    crossing(R.phase, m.phase);
    auto q = box.inbox.find(m.sender);
    q->second.erase(std::find(q->second.begin(), q->second.end(), msgId));
    if (q->second.empty()) box.inbox.erase(q);
    box.pending.erase(box.pending.begin() + static_cast<std::ptrdiff_t>(i));
    if (R.source == kAnySource) {
      wildcards_.erase(recvId);
      ++wildcardsResolved_;
    }
    if (R.record) write(R.record, R.slot, storedPeer(R.key, m.sender));
    wake(R.rank);
    if (m.sync) wake(m.sender);
  }

  // Matches what needs no choice: explicit-source receives, in posting order.
  void matchPending(Rank r, const CommKey& key) {
    auto it = state(r).boxes.find(key);
    if (it == state(r).boxes.end()) return;
    Box& box = it->second;
    for (std::size_t i = 0; i < box.pending.size();) {
      const Receive& R = recvs_[box.pending[i]];
      if (R.source != kAnySource)
        if (auto m = candidate(box, i, R.source)) {
          match(box, i, *m);
          continue;
        }
      ++i;
    }
  }

  std::size_t send(Rank r, const Call& c, Rank to, std::int64_t tag, bool sync) {
    checkPeer(r, c, to, false);
    const CommKey key = keyFor(r, c);
    const std::size_t id = msgs_.size();
    if (to == kProcNull) {  // delivered nowhere: complete (and, if synchronous, matched) at once
      msgs_.push_back(Message{r, to, key, tag, seq_++, sync, true});
      return id;
    }
    msgs_.push_back(Message{r, to, key, tag, seq_++, sync, false, state(r).phase, c.event->line, c.bytes});
    state(to).boxes[key].inbox[r].push_back(id);
    matchPending(to, key);
    wake(to);  // a probe may wait for it
    return id;
  }

  std::size_t post(Rank r, const Call& c, Rank from, std::int64_t tag) {
    from = recordedSource(r, c, from);
    checkPeer(r, c, from, true);
    const CommKey key = keyFor(r, c);
    const std::size_t id = recvs_.size();
    Receive R;
    R.rank = r;
    R.key = key;
    R.source = from;
    R.tag = tag;
    R.event = c.event;
    R.callIndex = c.index;
    R.phase = state(r).phase;
    R.bytes = c.recvBytes;
    if ((R.record = recordFor(r, c))) {
      R.slot = R.record->size();
      push(R.record, from == kAnySource ? kUnresolved : from == kProcNull ? kProcNull : storedPeer(key, from));
    }
    if (from == kProcNull) {  // nothing to wait for: complete at once, never pending
      R.matched = true;
      recvs_.push_back(R);
      return id;
    }
    recvs_.push_back(R);
    state(r).boxes[key].pending.push_back(id);
    if (from == kAnySource) wildcards_.insert(id);
    else matchPending(r, key);
    return id;
  }

  void arrive(Rank r) {
    RankState& s = state(r);
    CommKey key = keyFor(r, s.call);
    // MPI_Comm_create_group is collective over the group only: the communicator it makes.
    if (s.call.op == Op::CommCreateGroup)
      if (const ParamValues* n = s.call.event->param(Param::NewComm))
        if (const ValueGroup* g = n->groupFor(r); g && g->values.front() >= 1000) {
          Call made = s.call;
          made.comm = g->values.front();
          key = keyFor(r, made);
        }
    s.collKey = key;
    s.collIndex = s.collectives[key]++;
    CollState& c = colls_[{key, s.collIndex}];
    const RankList& mem = members(key);
    if (c.arrived == 0) {
      c.size = mem.size();
      c.op = s.call.op;
      c.firstRank = r;
      c.phase = s.phase;
    } else {
      crossing(c.phase, s.phase);
    }
    if (c.arrived > 0 && c.op != s.call.op && !mismatch_) {
      // Members of a communicator must call its collectives in the same order: MPI pairs the
      // k-th collective of each, and a Bcast paired with a Barrier never completes.
      Failure f;
      f.blocked = {std::min(r, c.firstRank), std::max(r, c.firstRank)};
      f.cycle = {f.blocked[0], f.blocked[1], f.blocked[0]};
      f.message = fmt::format(
          "potential deadlock: collectives called in different orders\n  collective {} on communicator {}: rank {} "
          "calls {} in {} while rank {} calls {}\n  cycle: rank {} -> rank {} -> rank {}",
          s.collIndex + 1, key.id, r, opName(s.call.op), whereText(r), c.firstRank, opName(c.op), f.cycle[0], f.cycle[1],
          f.cycle[2]);
      f.firstBlocked = fmt::format("rank {} waits in {}", r, whereText(r));
      f.line = s.call.event->line;
      mismatch_ = std::move(f);
    }
    if (++c.arrived == c.size) mem.forEach([&](Rank m) {
      wake(m);
      return true;
    });
  }

  // What the recording says of a receive: one that was cancelled matched nothing, so it
  // completes at once as a receive from MPI_PROC_NULL does (and is resolved to it); in the
  // fallback run, a wildcard receive whose match the recording saw takes that sender, as an
  // explicit-source receive would. Others are left as they are.
  Rank recordedSource(Rank r, const Call& c, Rank from) {
    if (!recorded_ || from == kProcNull) return from;
    auto it = recorded_->find({r, c.index});
    if (it == recorded_->end()) return from;
    if (it->second == kCancelled) return kProcNull;
    if (from != kAnySource || !follow_) return from;
    ++wildcardsResolved_;
    return it->second;
  }

  bool requestDone(const Request& q) const {
    switch (q.kind) {
      case ReqKind::Done: return true;
      case ReqKind::SyncSend: return msgs_[q.id].matched;
      case ReqKind::Recv: return recvs_[q.id].matched;
      case ReqKind::Collective: {
        auto it = colls_.find({q.collKey, q.collIndex});
        return it == colls_.end() || it->second.arrived == it->second.size;
      }
    }
    return true;
  }

  bool waitDone(RankState& s) {
    const Call& c = s.call;
    if (c.op != Op::Wait && c.op != Op::Waitall && c.op != Op::Waitany && c.op != Op::Waitsome) return testDone(s);
    const bool any = c.op == Op::Waitany || c.op == Op::Waitsome;
    std::size_t live = 0, done = 0;
    for (auto idx : c.completes) {
      auto it = idx < 0 ? s.requests.end() : s.requests.find(idx);
      if (it == s.requests.end()) continue;  // MPI_REQUEST_NULL or already completed
      ++live;
      if (requestDone(it->second)) ++done;
    }
    if (live > 0 && (any ? done == 0 : done < live)) return false;
    samePhase(s, c.completes);
    // Waitany/Waitsome do not say which request finished, so theirs stay known.
    if (!any)
      for (auto idx : c.completes) s.requests.erase(idx);
    return true;
  }

  // MPI_Test, Testall, Testany, Testsome: the trace says what each poll did. A recorded test
  // names exactly the requests that call completed (docs/recording.md, "Requests"), so a poll
  // that completed some was a poll at which they were complete: it waits for them as MPI_Wait
  // would, and they are done afterwards. A poll that completed nothing (no request, or only
  // MPI_REQUEST_NULL) returns at once and changes nothing. Treating successful polls as
  // non-blocking let the rank run on with its receives unmatched, past the point where the
  // recorded run had matched them, and later receives then found those messages claimed:
  // a false deadlock. ScalaTrace traces name the tested request whatever the outcome, so
  // their tests stay non-blocking.
  bool testDone(RankState& s) {
    const Call& c = s.call;
    if (!testsBlock_) return true;
    for (auto idx : c.completes) {
      auto it = idx < 0 ? s.requests.end() : s.requests.find(idx);
      if (it != s.requests.end() && !requestDone(it->second)) return false;
    }
    samePhase(s, c.completes);
    for (auto idx : c.completes) s.requests.erase(idx);
    return true;
  }

  // Requests completed in another phase than the one that made them: the folded loop's
  // iterations overlap.
  void samePhase(const RankState& s, const std::vector<std::int64_t>& completes) {
    if (folds_.empty()) return;
    for (auto idx : completes)
      if (auto it = idx < 0 ? s.requests.end() : s.requests.find(idx); it != s.requests.end())
        crossing(it->second.phase, s.phase);
  }

  bool probeDone(Rank r, RankState& s) {
    const Call& c = s.call;
    if (c.op != Op::Probe) return true;  // MPI_Iprobe does not wait
    if (c.peer == kProcNull) {  // returns at once, having seen nothing
      if (auto* rec = recordFor(r, c)) push(rec, kProcNull);
      return true;
    }
    checkPeer(r, c, c.peer, true);
    const CommKey key = keyFor(r, c);
    auto it = s.boxes.find(key);
    if (it == s.boxes.end()) return false;
    // A message a posted receive will take is not the probe's to see.
    const Box& box = it->second;
    auto claimed = [&](const Message& m) {
      return std::any_of(box.pending.begin(), box.pending.end(), [&](std::size_t id) { return matches(recvs_[id], m); });
    };
    std::optional<std::size_t> best;
    for (const auto& [sender, q] : box.inbox) {
      if (c.peer != kAnySource && sender != c.peer) continue;
      for (std::size_t id : q)
        if (tagsMatch(c.tag, msgs_[id].tag) && !claimed(msgs_[id])) {
          if (!best || msgs_[id].seq < msgs_[*best].seq) best = id;
          break;
        }
    }
    if (!best) return false;
    crossing(msgs_[*best].phase, s.phase);
    if (auto* rec = recordFor(r, c)) push(rec, storedPeer(key, msgs_[*best].sender));
    if (c.peer == kAnySource) ++wildcardsResolved_;
    return true;
  }

  // MPI_Mprobe, and an MPI_Improbe that found a message (`count` not 0; a recorded MPI_Improbe
  // names its successes, with the failed polls folded in as the tests' are): it waits as
  // MPI_Probe does, then takes the message out of matching, for the MPI_Mrecv/MPI_Imrecv that
  // receives it. A wildcard takes the sender the recording saw (`matched`), else the
  // earliest-arrived message.
  bool matchedProbeDone(Rank r, RankState& s) {
    const Call& c = s.call;
    if (c.op == Op::Improbe && c.count == 0) return true;  // found nothing
    if (c.peer == kProcNull) {  // MPI_MESSAGE_NO_PROC at once
      if (auto* rec = recordFor(r, c)) push(rec, kProcNull);
      return true;
    }
    // The probe decides its match itself (there is no search over probes): where the
    // recording says which sender it found, that one.
    Rank from = c.peer;
    if (from == kAnySource && recorded_)
      if (auto it = recorded_->find({r, c.index}); it != recorded_->end() && it->second >= 0) from = it->second;
    checkPeer(r, c, from, true);
    const CommKey key = keyFor(r, c);
    auto it = s.boxes.find(key);
    if (it == s.boxes.end()) return false;
    Box& box = it->second;
    auto claimed = [&](const Message& m) {
      return std::any_of(box.pending.begin(), box.pending.end(), [&](std::size_t id) { return matches(recvs_[id], m); });
    };
    std::optional<std::size_t> best;
    for (const auto& [sender, q] : box.inbox) {
      if (from != kAnySource && sender != from) continue;
      for (std::size_t id : q)
        if (tagsMatch(c.tag, msgs_[id].tag) && !claimed(msgs_[id])) {
          if (!best || msgs_[id].seq < msgs_[*best].seq) best = id;
          break;
        }
    }
    if (!best) return false;
    Message& m = msgs_[*best];
    m.matched = true;
    crossing(m.phase, s.phase);
    auto q = box.inbox.find(m.sender);
    q->second.erase(std::find(q->second.begin(), q->second.end(), *best));
    if (q->second.empty()) box.inbox.erase(q);
    if (m.sync) wake(m.sender);
    if (auto* rec = recordFor(r, c)) push(rec, storedPeer(key, m.sender));
    if (c.peer == kAnySource) ++wildcardsResolved_;
    return true;
  }

  void start(Rank r) {
    RankState& s = state(r);
    const Call& c = s.call;
    switch (opInfo(c.op).kind) {
      case OpKind::Send:
        s.msg = send(r, c, c.peer, c.tag, c.op == Op::Ssend);
        break;
      case OpKind::Isend: {
        const bool sync = c.op == Op::Issend;
        const std::size_t id = send(r, c, c.peer, c.tag, sync);
        s.requests[c.index] = Request{sync ? ReqKind::SyncSend : ReqKind::Done, id, c.event};
        break;
      }
      case OpKind::Recv:
        s.recv = post(r, c, c.peer, c.tag);
        break;
      case OpKind::Irecv:
        s.requests[c.index] = Request{ReqKind::Recv, post(r, c, c.peer, c.tag), c.event};
        break;
      case OpKind::Sendrecv:
        send(r, c, c.peer, c.tag, false);
        s.recv = post(r, c, c.recvPeer, c.recvTag);
        break;
      case OpKind::SendInit:
      case OpKind::RecvInit:
        // Inactive until MPI_Start: waiting on one returns at once.
        s.requests[c.index] = Request{ReqKind::Done, 0, c.event};
        break;
      case OpKind::Start:
        // Each persistent request started is an MPI_Isend or MPI_Irecv with its init call's
        // parameters, known to the waits by its key (docs/trace-format.md, "Persistent requests").
        for (const StartedRequest& p : c.started) {
          Call as;
          as.event = p.initEvent;
          as.op = p.send ? Op::SendInit : Op::RecvInit;
          as.index = p.key;
          as.comm = p.comm;
          as.peerIsWorld = p.peerIsWorld;
          as.bytes = as.recvBytes = p.bytes;
          if (p.send) {
            send(r, as, p.peer, p.tag, false);
            s.requests[p.key] = Request{ReqKind::Done, 0, p.initEvent};
          } else {
            s.requests[p.key] = Request{ReqKind::Recv, post(r, as, p.peer, p.tag), p.initEvent};
          }
        }
        break;
      case OpKind::MatchedRecv:
        // The message is the probe's, matched already: the receive completes at once.
        if (c.op == Op::Imrecv) s.requests[c.index] = Request{ReqKind::Done, 0, c.event};
        break;
      case OpKind::OpaqueRequest:
        // A call tracegen does not model: its request completes at once, the call is local.
        s.requests[c.index] = Request{ReqKind::Done, 0, c.event};
        break;
      case OpKind::Collective:
      case OpKind::CommCreate:
      case OpKind::CommFree:
      case OpKind::WinCollective:  // window creation, fence and free: collective over `comm`
      case OpKind::FileCollective:  // MPI-IO's collective calls: over the file's communicator
        arrive(r);
        break;
      case OpKind::ICollective: {
        // A nonblocking collective takes its place in the communicator's order now and returns;
        // its request completes when every member has started it. The rank leaves it at once
        // (it does not wait in the call), so the collective's record goes when all have left.
        arrive(r);
        s.requests[c.index] = Request{ReqKind::Collective, 0, c.event, s.collKey, s.collIndex};
        auto it = colls_.find({s.collKey, s.collIndex});
        if (++it->second.departed == it->second.size) colls_.erase(it);
        break;
      }
      default:
        break;
    }
  }

  bool complete(Rank r) {
    RankState& s = state(r);
    switch (opInfo(s.call.op).kind) {
      case OpKind::Send:
        return msgs_[s.msg].matched || !msgs_[s.msg].sync;
      case OpKind::Recv:
      case OpKind::Sendrecv:
        return recvs_[s.recv].matched;
      case OpKind::Wait:
      case OpKind::WaitAll:
        return waitDone(s);
      case OpKind::Probe:
        return probeDone(r, s);
      case OpKind::MatchedProbe:
        return matchedProbeDone(r, s);
      case OpKind::Collective:
      case OpKind::CommCreate:
      case OpKind::CommFree:
      case OpKind::WinCollective:
      case OpKind::FileCollective: {
        auto it = colls_.find({s.collKey, s.collIndex});
        if (it->second.arrived < it->second.size) return false;
        if (++it->second.departed == it->second.size) colls_.erase(it);
        return true;
      }
      default:
        return true;
    }
  }

  // Something began in phase a and ended in phase b: if they differ, the folded loops of both
  // do not fold.
  void crossing(const FoldPhase& a, const FoldPhase& b) {
    if (a == b) return;
    if (a.loop >= 0 && b.loop >= 0 && a.iteration == b.iteration) {
      const LoopFold& fa = folds_[static_cast<std::size_t>(a.loop)];
      const LoopFold& fb = folds_[static_cast<std::size_t>(b.loop)];
      if (fa.iterations == fb.iterations && fa.folded == fb.folded) return;
    }
    if (a.loop >= 0) broken_.insert(a.loop);
    if (b.loop >= 0) broken_.insert(b.loop);
  }

  FoldPhase phaseOf(const RankCursor& cursor) const {
    const auto at = cursor.outermostLoop();
    if (!at.head) return {};
    const auto head = at.head - trace_.events.data();
    if (folds_[static_cast<std::size_t>(head)].iterations == 0) return {};
    return {head, at.iteration};
  }

  // The requests the current call made (keyed by its index, or by the keys of the persistent
  // requests it started) belong to its phase.
  void stampRequests(RankState& s) {
    if (auto it = s.requests.find(s.call.index); it != s.requests.end()) it->second.phase = s.phase;
    for (const StartedRequest& p : s.call.started)
      if (auto it = s.requests.find(p.key); it != s.requests.end()) it->second.phase = s.phase;
  }

  void advance(Rank r) {
    RankState& s = state(r);
    if (skipRepeats_ && !movedFlag_[static_cast<std::size_t>(r)]) {
      movedFlag_[static_cast<std::size_t>(r)] = 1;
      moved_.push_back(r);
    }
    while (!s.finished) {
      if (!s.hasCall) {
        if (callBudget_ >= 0 && calls_ >= callBudget_) {
          outOfCalls_ = true;
          return;
        }
        if (!s.cursor.next(s.call)) {
          s.finished = true;
          ++finished_;
          break;
        }
        ++calls_;
        s.hasCall = true;
        s.started = false;
        if (!folds_.empty()) s.phase = phaseOf(s.cursor);
      }
      if (!s.started) {
        s.started = true;
        start(r);
        if (!folds_.empty()) stampRequests(s);
      }
      if (!complete(r)) break;
      s.hasCall = false;
    }
  }

  // ---- Repeats. At a quiescent point the state of the run is the ranks' positions (cursors
  // and the calls they wait in, requests, mailboxes) and the messages and receives in flight.
  // If it equals the state at an earlier quiescent point apart from absolute counters (stream
  // indices, iterations left of the ranks' outermost loops, message and receive numbers), the
  // run from here repeats the stretch between the two, decision for decision, for as long as
  // no outermost loop ends: the simulation is deterministic and those counters only name
  // things. Such a repeat is applied, not simulated: the counters move on by whole repeats
  // and the resolution lists get the stretch's writes once per repeat.
  struct Snapshot {
    std::uint64_t digest = 0;
    std::int64_t calls = 0, period = 0, wildcards = 0;
    std::size_t logStart = 0;  // where in log_ the stretch from it begins
    std::vector<std::int64_t> key;  // the state, counters excluded
    std::vector<std::int64_t> index, itersLeft;  // per rank: next stream index, outermost iterations left
    std::vector<std::map<CommKey, std::int64_t>> collectives;  // per rank
  };
  struct Write {  // one change of a resolution list (push or write)
    std::vector<std::int64_t>* record;
    std::size_t slot;
    std::int64_t value;
    bool push;
  };

  // The states kept to look for a repeat from: all at one digest, the newest last. A state
  // may repeat at a longer period than its positions (a value list of period 3 iterations,
  // compared every g iterations): one of a few successive ones is a multiple of both.
  static constexpr std::size_t kMaxReferences = 8;

  void atQuiescence() {
    for (Rank r : moved_) {
      const RankState& s = state(r);
      std::uint64_t d = s.finished ? 0x51ed27ULL : s.cursor.positionDigest() * 31 + (s.hasCall ? 7 : 3);
      d *= 0x9e3779b97f4a7c15ULL + 2 * static_cast<std::uint64_t>(r);  // where it is, on which rank
      digestSum_ += d - digest_[static_cast<std::size_t>(r)];
      digest_[static_cast<std::size_t>(r)] = d;
      movedFlag_[static_cast<std::size_t>(r)] = 0;
    }
    moved_.clear();
    // A state costs its size to take: one is taken only once the calls simulated since the
    // last paid for that one, which keeps the checks within the run's own cost.
    auto affordable = [&] { return calls_ - lastSnapshotCalls_ >= static_cast<std::int64_t>(lastSnapshotSize_); };
    auto keep = [&](Snapshot&& s) {
      s.logStart = log_.size();
      refs_.push_back(std::move(s));
      logging_ = true;
      if (refs_.size() > kMaxReferences) {
        // The log before the oldest state kept is no stretch's any more.
        refs_.pop_front();
        const std::size_t cut = refs_.front().logStart;
        log_.erase(log_.begin(), log_.begin() + static_cast<std::ptrdiff_t>(cut));
        for (Snapshot& r : refs_) r.logStart -= cut;
      }
    };
    auto drop = [&] {
      refs_.clear();
      log_.clear();
      logging_ = false;
    };
    if (!refs_.empty() && digestSum_ == refs_.back().digest && calls_ > refs_.back().calls) {
      if (!affordable()) return;
      Snapshot now;
      if (!snapshot(now)) return drop();
      // The newest equal state: the shortest stretch, so the most repeats fit.
      for (auto r = refs_.rbegin(); r != refs_.rend(); ++r)
        if (now.key == r->key) {
          if (applyRepeats(*r, now)) {
            drop();
            seen_.clear();
            return;
          }
          break;
        }
      now.period = calls_ - refs_.back().calls;
      return keep(std::move(now));
    }
    auto [it, inserted] = seen_.try_emplace(digestSum_, calls_);
    if (inserted) return;
    const std::int64_t period = calls_ - it->second;
    it->second = calls_;
    // The states kept may come round again within twice the stretch that led to the newest,
    // once a comparison is affordable.
    if (!refs_.empty() &&
        calls_ - refs_.back().calls <= 2 * (refs_.back().period + static_cast<std::int64_t>(lastSnapshotSize_)))
      return;
    if (!affordable()) return;
    Snapshot s;
    if (!snapshot(s)) return drop();
    s.period = period;
    drop();
    keep(std::move(s));
  }

  // The state at this quiescent point; false where it holds what cannot be said relatively
  // (a collective under way, persistent requests, matched probes), or phases are checked.
  bool snapshot(Snapshot& out) {
    if (!colls_.empty() || !folds_.empty()) return false;
    out.digest = digestSum_;
    out.calls = calls_;
    out.wildcards = wildcardsResolved_;
    std::vector<std::size_t> msgs, recvs;
    for (const RankState& s : ranks_)
      for (const auto& [key, box] : s.boxes) {
        for (const auto& [sender, q] : box.inbox) msgs.insert(msgs.end(), q.begin(), q.end());
        recvs.insert(recvs.end(), box.pending.begin(), box.pending.end());
      }
    // In flight, named by their order (of arrival; of posting).
    std::sort(msgs.begin(), msgs.end(), [&](std::size_t a, std::size_t b) { return msgs_[a].seq < msgs_[b].seq; });
    std::sort(recvs.begin(), recvs.end());
    std::unordered_map<std::size_t, std::int64_t> msgName, recvName;
    std::vector<std::int64_t>& k = out.key;
    k.push_back(static_cast<std::int64_t>(msgs.size()));
    for (std::size_t id : msgs) {
      const Message& m = msgs_[id];
      msgName.emplace(id, static_cast<std::int64_t>(msgName.size()));
      k.insert(k.end(), {m.sender, m.receiver, m.key.id, m.key.base, m.tag, m.sync ? 1 : 0});
    }
    k.push_back(static_cast<std::int64_t>(recvs.size()));
    for (std::size_t id : recvs) {
      const Receive& R = recvs_[id];
      recvName.emplace(id, static_cast<std::int64_t>(recvName.size()));
      k.insert(k.end(), {R.rank, R.key.id, R.key.base, R.source, R.tag, R.event - trace_.events.data(),
                         R.record ? static_cast<std::int64_t>(R.record->size() - R.slot) : -1});
    }
    auto msgRef = [&](std::size_t id) {
      if (msgs_[id].matched) return std::int64_t{-1};
      auto it = msgName.find(id);
      return it == msgName.end() ? std::int64_t{-2} : it->second;
    };
    auto recvRef = [&](std::size_t id) {
      if (recvs_[id].matched) return std::int64_t{-1};
      auto it = recvName.find(id);
      return it == recvName.end() ? std::int64_t{-2} : it->second;
    };
    std::vector<std::array<std::int64_t, 4>> reqs;
    for (const RankState& s : ranks_) {
      const std::int64_t next = s.cursor.nextIndex();
      out.index.push_back(next);
      out.itersLeft.push_back(s.finished ? -1 : s.cursor.outermostItersLeft());
      out.collectives.push_back(s.collectives);
      k.insert(k.end(), {s.finished ? 1 : 0, s.hasCall ? 1 : 0, s.started ? 1 : 0});
      if (s.finished) continue;
      if (!s.cursor.positionKey(k)) return false;
      if (s.hasCall) {
        const Call& c = s.call;
        if (!c.started.empty() || c.probe >= 0) return false;
        k.insert(k.end(), {c.event - trace_.events.data(), next - c.index, c.peer, c.recvPeer, c.tag, c.recvTag, c.comm,
                           static_cast<std::int64_t>(c.completes.size())});
        for (auto idx : c.completes) k.push_back(idx < 0 ? kUnresolved : next - idx);
        const OpKind kind = opInfo(c.op).kind;
        k.push_back(kind == OpKind::Send ? msgRef(s.msg) : kind == OpKind::Recv || kind == OpKind::Sendrecv ? recvRef(s.recv) : -3);
      }
      reqs.clear();
      for (const auto& [key, q] : s.requests) {
        const std::int64_t ref = q.kind == ReqKind::SyncSend ? msgRef(q.id) : q.kind == ReqKind::Recv ? recvRef(q.id) : -1;
        reqs.push_back({next - key, static_cast<std::int64_t>(q.kind), q.event ? q.event - trace_.events.data() : -1, ref});
      }
      std::sort(reqs.begin(), reqs.end());
      k.push_back(static_cast<std::int64_t>(reqs.size()));
      for (const auto& q : reqs) k.insert(k.end(), q.begin(), q.end());
      for (const auto& [key, box] : s.boxes) {
        if (box.inbox.empty() && box.pending.empty()) continue;
        k.insert(k.end(), {key.id, key.base, static_cast<std::int64_t>(box.inbox.size())});
        for (const auto& [sender, q] : box.inbox) {
          k.insert(k.end(), {sender, static_cast<std::int64_t>(q.size())});
          for (std::size_t id : q) k.push_back(msgName.at(id));
        }
        k.push_back(static_cast<std::int64_t>(box.pending.size()));
        for (std::size_t id : box.pending) k.push_back(recvName.at(id));
      }
      k.push_back(-4);  // end of the rank
    }
    lastSnapshotCalls_ = calls_;
    lastSnapshotSize_ = k.size();
    return true;
  }

  // The run is at state `now`, equal to `ref` but for the counters: moves it on by as many
  // whole repeats of the stretch between them as every rank's outermost loop still holds,
  // leaving each at least its last iteration to simulate. False if that is none.
  bool applyRepeats(const Snapshot& ref, const Snapshot& now) {
    const std::size_t P = ranks_.size();
    std::int64_t repeats = std::numeric_limits<std::int64_t>::max();
    std::vector<std::int64_t> calls(P, 0), iterations(P, 0);
    for (std::size_t r = 0; r < P; ++r) {
      calls[r] = now.index[r] - ref.index[r];
      if (calls[r] == 0) continue;
      iterations[r] = ref.itersLeft[r] - now.itersLeft[r];
      // A rank that moved went round its outermost loop (equal positions): else no repeat.
      if (ref.itersLeft[r] < 1 || now.itersLeft[r] < 1 || iterations[r] <= 0) return false;
      // A repeat from X iterations left needs X - iterations >= 1 at its last turn.
      repeats = std::min(repeats, (now.itersLeft[r] - 1) / iterations[r]);
    }
    if (repeats == std::numeric_limits<std::int64_t>::max() || repeats < 1) return false;
    for (std::size_t r = 0; r < P; ++r) {
      if (calls[r] == 0) continue;
      RankState& s = ranks_[r];
      const std::int64_t shift = repeats * calls[r];
      s.cursor.skipIterations(repeats * iterations[r], shift);
      s.call.index += shift;
      for (auto& idx : s.call.completes)
        if (idx >= 0) idx += shift;
      std::unordered_map<std::int64_t, Request> moved;
      for (auto& [key, q] : s.requests) moved.emplace(key + shift, q);
      s.requests = std::move(moved);
      for (auto& [key, count] : s.collectives) {
        auto before = ref.collectives[r].find(key);
        count += repeats * (count - (before == ref.collectives[r].end() ? 0 : before->second));
      }
      for (auto& [key, box] : s.boxes)
        for (std::size_t id : box.pending) recvs_[id].callIndex += shift;
    }
    // The lists: each repeat makes the stretch's pushes again after the last, and its writes
    // to the slots one stretch's pushes further on.
    const auto stretch = log_.begin() + static_cast<std::ptrdiff_t>(ref.logStart);
    std::unordered_map<const std::vector<std::int64_t>*, std::size_t> grown;
    for (auto w = stretch; w != log_.end(); ++w)
      if (w->push) ++grown[w->record];
    for (std::int64_t i = 1; i <= repeats; ++i)
      for (auto wi = stretch; wi != log_.end(); ++wi) {
        const Write& w = *wi;
        if (w.push) w.record->push_back(w.value);
        else (*w.record)[w.slot + static_cast<std::size_t>(i) * grown[w.record]] = w.value;
      }
    for (const RankState& s : ranks_)
      for (const auto& [key, box] : s.boxes)
        for (std::size_t id : box.pending)
          if (Receive& R = recvs_[id]; R.record) R.slot += static_cast<std::size_t>(repeats) * grown[R.record];
    wildcardsResolved_ += repeats * (wildcardsResolved_ - ref.wildcards);
    callsSkipped_ += repeats * (calls_ - ref.calls);
    repeatsSkipped_ += repeats;
    return true;
  }

  // The options at a quiescent point, in no particular order (sortByArrival orders them):
  // a decision that keeps only its choice needs the earliest, not a sort of all (a gather of
  // 16,384 ranks has 16,383 decisions of up to 16,383 options).
  std::vector<Option> options() const {
    std::vector<Option> out;
    for (std::size_t w : wildcards_) {
      const Receive& W = recvs_[w];
      const Box& box = state(W.rank).boxes.at(W.key);
      const std::size_t i = static_cast<std::size_t>(std::find(box.pending.begin(), box.pending.end(), w) - box.pending.begin());
      for (const auto& entry : box.inbox)
        if (auto m = candidate(box, i, entry.first)) out.push_back({w, *m});
    }
    return out;
  }
  // Arrival order of their messages (then the receive): the order the search tries them in.
  bool earlier(const Option& a, const Option& b) const {
    return std::pair(msgs_[a.msg].seq, a.recv) < std::pair(msgs_[b.msg].seq, b.recv);
  }
  void sortByArrival(std::vector<Option>& opts) const {
    std::sort(opts.begin(), opts.end(), [&](const Option& a, const Option& b) { return earlier(a, b); });
  }

  void decide(const Option& o) {
    const Receive& W = recvs_[o.recv];
    const Rank r = W.rank;
    const CommKey key = W.key;
    Box& box = state(r).boxes.at(key);
    const std::size_t i = static_cast<std::size_t>(std::find(box.pending.begin(), box.pending.end(), o.recv) - box.pending.begin());
    match(box, i, o.msg);
    matchPending(r, key);  // receives posted after the wildcard may take messages now
  }

  std::string fromText(Rank source) const {
    if (source == kAnySource) return "any rank";
    return fmt::format("rank {}{}", source, state(source).finished ? ", which has finished" : "");
  }

  // Ranks a wildcard receive may still hear from: the unfinished members of its communicator.
  void wildcardPeers(const Receive& R, std::set<Rank>& out) {
    members(R.key).forEach([&](Rank m) {
      if (m != R.rank && !state(m).finished) out.insert(m);
      return true;
    });
  }

  // What a blocked rank waits for, and the ranks that could release it.
  std::string waitText(Rank r, std::set<Rank>& waitsFor) {
    RankState& s = state(r);
    const Call& c = s.call;
    auto recvText = [&](const Receive& R) {
      if (R.source == kAnySource) wildcardPeers(R, waitsFor);
      else waitsFor.insert(R.source);
      return fmt::format("a message from {}", fromText(R.source));
    };
    switch (opInfo(c.op).kind) {
      case OpKind::Send: {
        const Rank to = msgs_[s.msg].receiver;
        waitsFor.insert(to);
        return fmt::format("for {} to receive its synchronous send", fromText(to));
      }
      case OpKind::Recv:
      case OpKind::Sendrecv:
        return "for " + recvText(recvs_[s.recv]);
      case OpKind::Probe:
      case OpKind::MatchedProbe: {
        if (c.peer == kAnySource) {
          members(keyFor(r, c)).forEach([&](Rank m) {
            if (m != r && !state(m).finished) waitsFor.insert(m);
            return true;
          });
        } else {
          waitsFor.insert(c.peer);
        }
        return fmt::format("for a message to probe from {}", fromText(c.peer));
      }
      case OpKind::Wait:
      case OpKind::WaitAll: {
        std::string out;
        for (auto idx : c.completes) {
          auto it = idx < 0 ? s.requests.end() : s.requests.find(idx);
          if (it == s.requests.end() || requestDone(it->second)) continue;
          const Event& e = *it->second.event;
          out += out.empty() ? "for " : " and ";
          if (it->second.kind == ReqKind::Recv) {
            out += fmt::format("the receive of event {} ({}), {}", e.id, opName(e.op), recvText(recvs_[it->second.id]));
          } else if (it->second.kind == ReqKind::Collective) {
            std::vector<Rank> missing;
            members(it->second.collKey).forEach([&](Rank m) {
              auto jt = state(m).collectives.find(it->second.collKey);
              if (jt == state(m).collectives.end() || jt->second <= it->second.collIndex) {
                missing.push_back(m);
                waitsFor.insert(m);
              }
              return true;
            });
            out += fmt::format("rank{} {} to start the collective of event {} ({}, number {} on communicator {})",
                               missing.size() == 1 ? "" : "s", RankList::fromSorted(missing).pretty(), e.id,
                               opName(e.op), it->second.collIndex + 1, it->second.collKey.id);
          } else {
            const Rank to = msgs_[it->second.id].receiver;
            waitsFor.insert(to);
            out += fmt::format("{} to receive the synchronous send of event {} ({})", fromText(to), e.id, opName(e.op));
          }
        }
        return out;
      }
      default: {  // collectives
        std::vector<Rank> missing;
        members(s.collKey).forEach([&](Rank m) {
          auto it = state(m).collectives.find(s.collKey);
          if (it == state(m).collectives.end() || it->second <= s.collIndex) {
            missing.push_back(m);
            waitsFor.insert(m);
          }
          return true;
        });
        return fmt::format("for rank{} {} to reach the same collective (number {} on communicator {})",
                           missing.size() == 1 ? "" : "s", RankList::fromSorted(missing).pretty(), s.collIndex + 1,
                           s.collKey.id);
      }
    }
  }

  std::string whereText(Rank r) const {
    const Call& c = state(r).call;
    return fmt::format("event {} ({} at {}, call {})", c.event->id, opName(c.op), trace_.siteLabel(c.event->site), c.index);
  }

  // Finds a cycle of the wait-for graph: the first back edge of a depth-first search closes one.
  static std::vector<Rank> findCycle(Rank numRanks, const std::vector<std::pair<Rank, Rank>>& edges) {
    using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
    using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
    using Edge = boost::graph_traits<Graph>::edge_descriptor;
    Graph g(static_cast<std::size_t>(numRanks));
    for (const auto& [u, v] : edges) boost::add_edge(static_cast<Vertex>(u), static_cast<Vertex>(v), g);
    struct Recorder : boost::default_dfs_visitor {
      std::vector<Vertex>* parent;
      std::optional<std::pair<Vertex, Vertex>>* back;
      void tree_edge(Edge e, const Graph& gr) const { (*parent)[boost::target(e, gr)] = boost::source(e, gr); }
      void back_edge(Edge e, const Graph& gr) const {
        if (!*back) *back = std::pair{boost::source(e, gr), boost::target(e, gr)};
      }
    };
    std::vector<Vertex> parent(static_cast<std::size_t>(numRanks));
    std::optional<std::pair<Vertex, Vertex>> back;
    Recorder rec;
    rec.parent = &parent;
    rec.back = &back;
    boost::depth_first_search(g, boost::visitor(rec));
    if (!back) return {};
    // The back edge u -> v closes v -> ... -> u along the tree.
    std::vector<Rank> cycle;
    for (Vertex x = back->first;; x = parent[x]) {
      cycle.push_back(static_cast<Rank>(x));
      if (x == back->second) break;
    }
    std::reverse(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    cycle.push_back(cycle.front());
    return cycle;
  }

  void deadlockReport() {
    failure_ = Failure{};
    std::vector<std::pair<Rank, Rank>> edges;
    std::vector<std::string> lines;
    for (Rank r = 0; r < trace_.numRanks; ++r) {
      if (state(r).finished) continue;
      std::set<Rank> waitsFor;
      std::string line = fmt::format("rank {} waits in {} {}", r, whereText(r), waitText(r, waitsFor));
      for (Rank w : waitsFor) edges.emplace_back(r, w);
      failure_.blocked.push_back(r);
      if (lines.empty()) {
        failure_.firstBlocked = line;
        failure_.line = state(r).call.event->line;
      }
      if (lines.size() < kMaxListedRanks) lines.push_back(std::move(line));
    }
    failure_.cycle = findCycle(trace_.numRanks, edges);
    std::string msg = fmt::format("potential deadlock: {} of {} ranks cannot progress", failure_.blocked.size(), trace_.numRanks);
    for (const auto& l : lines) msg += "\n  " + l;
    if (failure_.blocked.size() > lines.size())
      msg += fmt::format("\n  ... and {} more blocked ranks", failure_.blocked.size() - lines.size());
    if (failure_.cycle.empty()) {
      msg += "\n  no wait-for cycle: the blocked ranks wait for ranks that have finished";
    } else {
      msg += "\n  cycle: ";
      for (std::size_t i = 0; i < failure_.cycle.size(); ++i)
        msg += fmt::format("{}rank {}", i ? " -> " : "", failure_.cycle[i]);
    }
    failure_.message = std::move(msg);
  }

  bool unmatchedReport() {
    std::vector<std::string> lines;
    std::size_t count = 0;
    int firstLine = 0;
    for (Rank r = 0; r < trace_.numRanks; ++r)
      for (const auto& [key, box] : state(r).boxes)
        for (std::size_t id : box.pending) {
          const Receive& R = recvs_[id];
          if (count == 0) firstLine = R.event->line;
          if (++count <= kMaxListedRanks)
            lines.push_back(fmt::format("rank {} in event {} ({} at {}, call {}) from {}", r, R.event->id,
                                        opName(R.event->op), trace_.siteLabel(R.event->site), R.callIndex,
                                        R.source == kAnySource ? "any rank" : fmt::format("rank {}", R.source)));
        }
    if (count == 0) return false;
    failure_ = Failure{};
    failure_.deadlock = false;
    std::string msg = fmt::format("unmatched receives: every rank finishes but {} receive{} never match:", count,
                                  count == 1 ? "" : "s");
    for (const auto& l : lines) msg += "\n  " + l;
    if (count > lines.size()) msg += fmt::format("\n  ... and {} more", count - lines.size());
    failure_.firstBlocked = lines.front();
    failure_.line = firstLine;
    failure_.message = std::move(msg);
    return true;
  }

  const Trace& trace_;
  const std::string& fileName_;
  const std::vector<char>& resolvable_;
  const bool testsBlock_;  // successful tests wait for what they completed (testDone)
  // Set for the fallback run of an exhausted search: the sender each wildcard receive matched
  // in the recording, by (rank, stream index of the receive or of its MPI_Irecv).
  const RecordedMatches* recorded_ = nullptr;
  bool follow_ = false;
  std::shared_ptr<const RecordedMatches> recordedOwner_;
  std::vector<RankState> ranks_;
  std::deque<Rank> queue_;
  Rank finished_ = 0;
  // Deques: they grow by blocks, without the copies (and page faults) of a doubling vector.
  std::deque<Message> msgs_;
  std::deque<Receive> recvs_;
  std::set<std::size_t> wildcards_;  // pending wildcard receives, in posting order
  std::map<std::pair<CommKey, std::int64_t>, CollState> colls_;
  std::map<CommKey, RankList> members_;
  std::int64_t seq_ = 0;
  std::int64_t wildcardsResolved_ = 0;
  std::int64_t sizeMismatches_ = 0;
  ResolutionMap resolutions_;
  std::vector<std::string> notes_;
  Failure failure_;
  std::int64_t callBudget_ = -1;
  std::int64_t calls_ = 0;
  std::vector<LoopFold> folds_;  // by head event index; empty: phases are not checked
  std::set<std::int64_t> broken_;  // folded loops an exchange crossed the iterations of
  bool outOfCalls_ = false;
  std::optional<Failure> mismatch_;
  // Repeats (skipRepeats): per rank, the digest of its position at the last quiescent point
  // and whether it moved since; their sum names the state cheaply, and seen_ keeps the calls
  // count at which each sum was last seen. refs_ are the states a repeat is looked for from, and
  // log_ what the resolution lists went through since the oldest.
  bool skipRepeats_ = false;
  std::vector<std::uint64_t> digest_;
  std::vector<char> movedFlag_;
  std::vector<Rank> moved_;
  std::uint64_t digestSum_ = 0;
  std::unordered_map<std::uint64_t, std::int64_t> seen_;
  std::deque<Snapshot> refs_;
  std::vector<Write> log_;
  bool logging_ = false;
  std::int64_t lastSnapshotCalls_ = 0;
  std::size_t lastSnapshotSize_ = 0;
  std::int64_t repeatsSkipped_ = 0, callsSkipped_ = 0;
};

// Folding. A simulation costs the program's calls, and a time-step loop makes them many:
// persist's 1,000,000 iterations, or any run longer than the call budget, for wildcards that may
// lie outside the loop altogether. An outermost loop (one no other loop holds, on every rank
// that runs it) whose body repeats exactly with a period of Q iterations (every value list of
// its events and of its inner loops returns to its start) behaves the same in iteration i as
// in iteration i mod K for any multiple K of Q, provided no message, request or collective
// crosses from one iteration into another: then every iteration starts from the same state
// of the loop's ranks (nothing in flight), and a matching found for iterations 0..K-1 is one
// for all N. So the loop is simulated K times (K >= 2, so that an overlap of iterations shows)
// with every call tagged by its iteration (FoldPhase), and the run counts only if it completed
// and every message, request and collective began and ended within one iteration. Otherwise
// the whole program is simulated, as without folding.

const ValueGroup* loopGroup(const std::vector<ValueGroup>& groups, Rank r) {
  for (const auto& g : groups)
    if (g.ranks.contains(r)) return &g;
  return nullptr;
}

constexpr std::int64_t kMaxFoldPeriod = 4096;  // longer periods are not worth a second simulation
constexpr std::int64_t kFoldGain = 4;  // a loop is folded when that cuts its iterations 4-fold at least

std::int64_t lcmCapped(std::int64_t a, std::int64_t b) {
  if (a > kMaxFoldPeriod || b > kMaxFoldPeriod) return kMaxFoldPeriod + 1;
  return std::min<std::int64_t>(std::lcm(a, b), kMaxFoldPeriod + 1);
}

std::vector<LoopFold> foldableLoops(const Trace& trace, const std::string& fileName) {
  const std::size_t n = trace.events.size();
  std::vector<char> top(n, 0), nested(n, 0), irregular(n, 0);
  std::vector<std::int64_t> trips(n, -1), period(n, 1);
  for (const RankList& cls : rankClasses(trace)) {
    const Rank r = *cls.first();  // ranks of a class share their events, loops and value lists
    const std::vector<std::size_t> own = RankCursor(trace, r, fileName).eventIndices();
    for (std::size_t pos = 0; pos < own.size();) {
      const std::size_t h = own[pos];
      const Event& head = trace.events[h];
      const ValueGroup* mem = head.loops.empty() ? nullptr : loopGroup(head.loops[0].mem, r);
      const ValueGroup* iter = head.loops.empty() ? nullptr : loopGroup(head.loops[0].iter, r);
      if (!mem && !iter) {  // no loop of this event holds this rank (RankCursor's rule)
        ++pos;
        continue;
      }
      // A malformed loop is the cursor's to report, in the simulation proper.
      if (!mem || !iter || mem->values.empty() || iter->values.empty() || mem->values[0] < 1 ||
          pos + static_cast<std::size_t>(mem->values[0]) > own.size())
        return {};
      const auto end = pos + static_cast<std::size_t>(mem->values[0]);
      top[h] = 1;
      if (trips[h] < 0) trips[h] = iter->values[0];
      else if (trips[h] != iter->values[0]) irregular[h] = 1;
      std::int64_t scalars = 1, vectors = 1;
      for (std::size_t k = pos; k < end; ++k) {
        const Event& e = trace.events[own[k]];
        if (k > pos) nested[own[k]] = 1;
        // Inner loops must run the same way every iteration.
        for (std::size_t lv = k == pos ? 1 : 0; lv < e.loops.size(); ++lv) {
          const ValueGroup* i = loopGroup(e.loops[lv].iter, r);
          const ValueGroup* m = loopGroup(e.loops[lv].mem, r);
          if (!i && !m) break;  // the rank's loops of this event end here
          if (!i || !m || i->values.size() != 1 || m->values.size() != 1) irregular[h] = 1;
        }
        for (const auto& pv : e.params) {
          // What the simulation does not read: failed polls, and recorded senders (only their
          // cancellations count, and the senders of matched probes, which take them).
          if (pv.param == Param::Failed) continue;
          const ValueGroup* g = pv.groupFor(r);
          if (!g || g->values.empty()) continue;
          if (pv.param == Param::Matched && opInfo(e.op).kind != OpKind::MatchedProbe &&
              std::find(g->values.begin(), g->values.end(), kCancelled) == g->values.end())
            continue;
          const auto len = static_cast<std::int64_t>(g->values.size());
          // A scalar list of length L returns to its start within L iterations; a vector list
          // within L times the period of the scalars that say how much of it a call takes.
          if (isVectorParam(pv.param)) vectors = lcmCapped(vectors, len);
          else scalars = lcmCapped(scalars, len);
        }
      }
      const std::int64_t body = scalars > kMaxFoldPeriod || vectors > kMaxFoldPeriod
                                    ? kMaxFoldPeriod + 1
                                    : std::min<std::int64_t>(scalars * vectors, kMaxFoldPeriod + 1);
      period[h] = lcmCapped(period[h], body);
      pos = end;
    }
  }
  // Loops of equal trip count may be one loop split over ranks (a receive loop fed by a send
  // loop): they fold alike, to a multiple of all their periods, where that still pays.
  std::map<std::int64_t, std::int64_t> periodByTrips;
  for (std::size_t h = 0; h < n; ++h)
    if (top[h] && !nested[h] && !irregular[h] && trips[h] > 0)
      periodByTrips[trips[h]] = lcmCapped(periodByTrips.count(trips[h]) ? periodByTrips[trips[h]] : 2, period[h]);
  std::vector<LoopFold> folds;
  for (std::size_t h = 0; h < n; ++h) {
    if (!top[h] || nested[h] || irregular[h] || trips[h] <= 0) continue;
    // Alike where that still pays, else each to its own period.
    const std::int64_t alike = periodByTrips[trips[h]];
    const std::int64_t k = alike <= kMaxFoldPeriod && trips[h] >= kFoldGain * alike ? alike : std::max<std::int64_t>(2, period[h]);
    if (k <= kMaxFoldPeriod && trips[h] >= kFoldGain * k) folds.push_back({h, trips[h], k});
  }
  return folds;
}

Trace foldTrace(const Trace& trace, const std::vector<LoopFold>& folds) {
  std::map<std::int64_t, std::int64_t> byId;
  for (const auto& f : folds) byId[trace.events[f.head].id] = f.folded;
  return foldClosedLoops(trace, byId);
}

// The loops of `folds` by their head's event index (the Simulation's phase table).
std::vector<LoopFold> foldsByHead(const std::vector<LoopFold>& folds, std::size_t events) {
  std::vector<LoopFold> heads(events);
  for (const auto& f : folds) heads[f.head] = f;
  return heads;
}

// The retry loop of folding, shared by resolve-wildcards and check-communication: `attempt`
// simulates the trace with `folds` folded and gives its result and the loops an exchange
// crossed the iterations of (or nullopt: the folded run did not complete, and the whole
// program's run decides). Those loops are dropped and the rest tried again, so each attempt
// drops one at least. Returns the result of the first attempt that broke none; `folds` are
// then the loops it folded. Whatever an attempt throws is the whole program's run to report.
template <class Result, class Attempt>
std::optional<Result> foldWhileClosed(std::vector<LoopFold>& folds, std::int64_t& attempts, Attempt attempt) {
  while (!folds.empty()) {
    ++attempts;
    std::optional<std::pair<Result, std::set<std::int64_t>>> tried;
    try {
      tried = attempt(folds);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    if (!tried) return std::nullopt;
    if (tried->second.empty()) return std::move(tried->first);
    const std::set<std::int64_t>& broken = tried->second;
    std::erase_if(folds, [&](const LoopFold& f) { return broken.count(static_cast<std::int64_t>(f.head)) > 0; });
  }
  return std::nullopt;
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
  const auto outcome = sim->run(fresh, states, -1);
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

// The run that follows the senders the recording saw (`matched`), where it saw any; nullopt
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
  // listed): the folded and skipped runs below decide it at the cost of a few iterations.
  const std::int64_t callBudget = ctx.options.callBudget;
  std::int64_t calls = -1;
  try {
    calls = summarizeTrace(trace, ctx.fileName, false).calls;
  } catch (const InputError&) {  // beyond what a summary expands: beyond any budget here
  }
  if (calls < 0 || (callBudget >= 0 && calls > callBudget)) {
    ctx.counter("recorded-senders-over-budget") = calls;
    return nullptr;
  }
  auto recorded = std::make_shared<RecordedMatches>(recordedMatches(trace, ctx.fileName));
  if (std::none_of(recorded->begin(), recorded->end(), [](const auto& m) { return m.second >= 0; })) return nullptr;
  auto sim = std::make_unique<Simulation>(trace, ctx.fileName, resolvableEvent, callBudget);
  sim->useRecording(recorded.get(), true);
  sim->keepAlive(recorded);
  std::vector<Node> path;
  std::int64_t states = 0;
  const auto outcome = sim->run(path, states, -1);
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

// What a completed run left unreceived, as one message (empty if nothing).
// `line`: the input line of the first such message's send.
std::string unreceivedText(const Simulation& sim, int& line) {
  std::size_t count = 0;
  auto lines = sim.unreceivedMessages(count, line);
  if (count == 0) return {};
  std::string msg = fmt::format("{} message{} sent but never received:", count, count == 1 ? "" : "s");
  for (const auto& l : lines) msg += "\n  " + l;
  if (count > lines.size()) msg += fmt::format("\n  ... and {} more", count - lines.size());
  return msg;
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
    const auto outcome = firstRun ? out.sim->run(out.path, firstRunStates, -1, keep) : out.sim->run(out.path, states, budget, keep);
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
  for (const auto& note : sim->notes()) ctx.warn("resolve-wildcards: " + note);

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

SimulationResult simulateCommunication(const Trace& trace, const std::string& fileName, std::int64_t callBudget) {
  const std::vector<char> noWildcards(trace.events.size(), 0);
  Simulation sim(trace, fileName, noWildcards, callBudget);
  const RecordedMatches recorded = recordedMatches(trace, fileName);  // cancelled receives complete at once
  sim.useRecording(&recorded, false);
  std::vector<Node> path;
  std::int64_t states = 0;
  SimulationResult result;
  const auto outcome = sim.run(path, states, -1);
  result.calls = sim.callsSimulated();
  if (outcome == Simulation::Outcome::OutOfBudget) {
    result.outOfBudget = true;
    return result;
  }
  if (outcome != Simulation::Outcome::Completed) {
    const Failure& f = sim.failure();
    if (f.deadlock) throw DeadlockError(f.message, f.blocked, f.cycle, fileName, f.line);
    throw ProgramError(fileName, f.line, f.message);
  }
  result.unreceived = unreceivedText(sim, result.unreceivedLine);
  result.sizeMismatches = sim.sizeMismatches();
  return result;
}

Trace foldClosedLoops(const Trace& trace, const std::map<std::int64_t, std::int64_t>& folds) {
  Trace folded = trace;
  for (auto& e : folded.events)
    if (auto it = folds.find(e.id); it != folds.end() && !e.loops.empty())
      for (auto& g : e.loops[0].iter)
        for (auto& v : g.values) v = std::min(v, it->second);
  return folded;
}

std::optional<SimulationResult> simulateCommunicationFolded(const Trace& trace, const std::string& fileName,
                                                            std::int64_t callBudget,
                                                            std::map<std::int64_t, std::int64_t>& folds) {
  folds.clear();
  std::vector<LoopFold> candidates;
  try {
    candidates = foldableLoops(trace, fileName);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  const std::vector<char> noWildcards(trace.events.size(), 0);
  std::int64_t calls = 0, attempts = 0;
  auto result = foldWhileClosed<SimulationResult>(candidates, attempts, [&](const std::vector<LoopFold>& fs) {
    const Trace folded = foldTrace(trace, fs);
    Simulation sim(folded, fileName, noWildcards, callBudget < 0 ? -1 : std::max<std::int64_t>(0, callBudget - calls));
    const RecordedMatches recorded = recordedMatches(folded, fileName);
    sim.useRecording(&recorded, false);
    sim.checkPhases(foldsByHead(fs, trace.events.size()));
    std::vector<Node> path;
    std::int64_t states = 0;
    const auto outcome = sim.run(path, states, -1);
    calls += sim.callsSimulated();
    std::optional<std::pair<SimulationResult, std::set<std::int64_t>>> out;
    if (outcome == Simulation::Outcome::Completed) {
      SimulationResult r;
      r.calls = calls;
      r.unreceived = unreceivedText(sim, r.unreceivedLine);
      r.sizeMismatches = sim.sizeMismatches();
      out.emplace(std::move(r), sim.brokenLoops());
    }
    return out;
  });
  if (result)
    for (const auto& f : candidates) folds[trace.events[f.head].id] = f.folded;
  return result;
}

bool hasUnresolvedWildcard(const Event& e) { return resolvable(e); }

}  // namespace tracegen
