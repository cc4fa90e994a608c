// The communication simulator: the program a trace describes, executed symbolically as an MPI
// library would run it (MPI's matching and completion semantics), with the report of a run
// that cannot complete. An analysis of its own, used by resolve-wildcards (whose search over
// the matchings of wildcard receives drives it: run to a quiescent point, take an option, read
// the result) and by check-communication (one run, sim/SimulateCommunication.h).
//
// Where each part lives: sim/Simulation.cpp the run (worklist, per-call start and completion),
// sim/PointToPoint.cpp messages, receives, probes, requests and the wildcard options,
// sim/Collectives.cpp communicator instances and collectives, sim/Repeats.cpp the skipping of
// periodic stretches of the run, sim/Deadlock.cpp the reports of runs that do not complete,
// sim/LoopFolding.cpp loop folding and the phases a folded run checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/RankCursor.h"
#include "ir/Trace.h"
#include "sim/LoopFolding.h"

namespace tracegen::sim {

// A value of a resolution list not known yet: a wildcard receive not matched so far.
constexpr std::int64_t kUnresolved = std::numeric_limits<std::int64_t>::min();

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

struct Failure {
  bool deadlock = true;  // false: every rank finished but receives stayed unmatched
  std::string message;   // full text, first line `potential deadlock: ...`
  std::string firstBlocked;  // the first blocked rank's line, for warnings
  int line = 0;              // the input line of the first blocked rank's call (0: unknown)
  std::vector<Rank> blocked;
  std::vector<Rank> cycle;
};

using ResolutionMap = std::map<std::pair<std::size_t, Rank>, std::vector<std::int64_t>>;

// The senders a recording saw its wildcard receives match, by (rank, stream index of the
// MPI_Recv/MPI_Sendrecv or of the MPI_Irecv), from the `matched` parameters (Param::Matched);
// kCancelled for receives that were cancelled (MPI_Cancel, then a wait or test) and matched
// nothing.
using RecordedMatches = std::map<std::pair<Rank, std::int64_t>, Rank>;
constexpr Rank kCancelled = -2;  // the `matched` value of a cancelled request

RecordedMatches recordedMatches(const Trace& trace, const std::string& fileName);

class Simulation {
 public:
  // Pruned: the search's own (resolve-wildcards: its sleep sets left no option to take).
  enum class Outcome { Completed, Failed, Pruned, OutOfBudget };

  // `resolvableEvent` marks the events whose senders are recorded (resolutions()).
  Simulation(const Trace& trace, const std::string& fileName, const std::vector<char>& resolvableEvent,
             std::int64_t callBudget = -1);

  // Runs the program to its end, each quiescent point deciding for the earliest-arrived
  // message (the first run of resolve-wildcards' search).
  Outcome run();

  // The run step by step, for a search over the decisions: begin() once, then settle() until
  // it stops the run; at each quiescent point options() are what can be decided (none: the
  // run is over, and finish() says how it ended) and decide() takes one of them.
  void begin();
  // Advances every rank until none can move without a decision. OutOfBudget or Failed when
  // the run stops there, nullopt at a quiescent point.
  std::optional<Outcome> settle();
  // The options at a quiescent point, in no particular order (sortByArrival orders them):
  // a decision that keeps only its choice needs the earliest, not a sort of all (a gather of
  // 16,384 ranks has 16,383 decisions of up to 16,383 options).
  std::vector<Option> options() const;
  // Arrival order of their messages (then the receive): the order the search tries them in.
  bool earlier(const Option& a, const Option& b) const;
  void sortByArrival(std::vector<Option>& opts) const;
  void decide(const Option& o);
  // With no option left: Completed, or Failed with failure() saying why.
  Outcome finish();

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
  // Skips the repeats of periodic stretches of the run (sim/Repeats.cpp), before run().
  void skipRepeats() {
    skipRepeats_ = true;
    movedFlag_.assign(static_cast<std::size_t>(trace_.numRanks), 0);
    digest_.assign(static_cast<std::size_t>(trace_.numRanks), 0);
  }
  std::int64_t repeatsSkipped() const { return repeatsSkipped_; }
  std::int64_t callsSkipped() const { return callsSkipped_; }
  std::set<std::int64_t> brokenLoops() const;
  const Failure& failure() const { return failure_; }
  std::int64_t callsSimulated() const { return calls_; }
  // Messages sent that no receive took, one line each (at most kMaxListedRanks).
  std::vector<std::string> unreceivedMessages(std::size_t& count, int& firstLine) const;
  ResolutionMap& resolutions() { return resolutions_; }
  std::int64_t wildcardsResolved() const { return wildcardsResolved_; }
  // Receives matched with a message of another size than they post (gen::matchReceivedBytes
  // need not walk the trace when there are none).
  std::int64_t sizeMismatches() const { return sizeMismatches_; }
  Rank sender(const Option& o) const { return msgs_[o.msg].sender; }
  std::size_t receiveCount() const { return recvs_.size(); }
  int receiveLine(std::size_t id) const { return recvs_[id].event->line; }
  std::string describeReceive(std::size_t id) const;

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

  [[noreturn]] void fail(const Call& c, Rank r, const std::string& what) const;

  // The run (Simulation.cpp).
  std::vector<std::int64_t>* recordFor(Rank r, const Call& c);
  void push(std::vector<std::int64_t>* record, std::int64_t value);
  void write(std::vector<std::int64_t>* record, std::size_t slot, std::int64_t value);
  Rank recordedSource(Rank r, const Call& c, Rank from);
  void start(Rank r);
  bool complete(Rank r);
  void advance(Rank r);

  // Communicator instances and collectives (Collectives.cpp).
  CommKey keyFor(Rank r, const Call& c) const;
  const RankList& members(const CommKey& k);
  void arrive(Rank r);

  // Point-to-point (PointToPoint.cpp).
  std::int64_t storedPeer(const CommKey& k, Rank world);
  void checkPeer(Rank r, const Call& c, Rank peer, bool wildcardAllowed) const;
  bool matches(const Receive& R, const Message& m) const;
  std::optional<std::size_t> candidate(const Box& box, std::size_t i, Rank sender) const;
  void match(Box& box, std::size_t i, std::size_t msgId);
  void matchPending(Rank r, const CommKey& key);
  std::size_t send(Rank r, const Call& c, Rank to, std::int64_t tag, bool sync);
  std::size_t post(Rank r, const Call& c, Rank from, std::int64_t tag);
  bool requestDone(const Request& q) const;
  bool waitDone(RankState& s);
  bool testDone(RankState& s);
  bool probeDone(Rank r, RankState& s);
  bool matchedProbeDone(Rank r, RankState& s);

  // The phases of a folded run (LoopFolding.cpp).
  void samePhase(const RankState& s, const std::vector<std::int64_t>& completes);
  void crossing(const FoldPhase& a, const FoldPhase& b);
  FoldPhase phaseOf(const RankCursor& cursor) const;
  void stampRequests(RankState& s);

  // Repeats (Repeats.cpp). At a quiescent point the state of the run is the ranks'
  // positions (cursors and the calls they wait in, requests, mailboxes) and the messages and
  // receives in flight.
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
  void atQuiescence();
  bool snapshot(Snapshot& out);
  bool applyRepeats(const Snapshot& ref, const Snapshot& now);

  // The reports of a run that does not complete (Deadlock.cpp).
  std::string fromText(Rank source) const;
  void wildcardPeers(const Receive& R, std::set<Rank>& out);
  std::string waitText(Rank r, std::set<Rank>& waitsFor);
  std::string whereText(Rank r) const;
  void deadlockReport();
  bool unmatchedReport();

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

// What a completed run left unreceived, as one message (empty if nothing).
// `line`: the input line of the first such message's send.
std::string unreceivedText(const Simulation& sim, int& line);

}  // namespace tracegen::sim
