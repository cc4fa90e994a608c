// RankCursor: one rank's ordered calls, produced lazily from the compressed trace.
//
// The cursor filters the events that hold the rank (its own compressed trace), then expands
// loops with an explicit stack of frames, as ScalaTrace's replayer does (§11.1 of the format
// reference): a frame is one active loop (head, level, body end, iterations left). Value
// cursors per (event, parameter) and per (event, loop level) advance once per use and are
// never reset, which is how per-iteration ("elastic") values replay. Memory is proportional to
// the rank's compressed trace, never to its expanded length or to other ranks.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

// One request an MPI_Start or MPI_Startall activates: for matching and bytes, an MPI_Isend or
// MPI_Irecv with the parameters of the MPI_Send_init/MPI_Recv_init that made it.
struct StartedRequest {
  // The request's key in the `completes` of the waits: the call's index for the first (or
  // only) request, startedRequestKey(index, i) for the i-th of an MPI_Startall.
  std::int64_t key = -1;
  std::int64_t init = -1;            // stream index of the MPI_Send_init/MPI_Recv_init
  const Event* initEvent = nullptr;  // its event
  bool send = false;                 // MPI_Send_init (else MPI_Recv_init)
  Rank peer = -1;                    // world rank (as Call::peer), kAnySource, kProcNull
  bool peerIsWorld = true;
  std::int64_t comm = kCommWorld;
  std::int64_t count = 0;
  std::int64_t datatype = 0;
  std::int64_t tag = 0;
  std::int64_t bytes = 0;  // sent, or posted to receive; 0 with MPI_PROC_NULL
};

// Keys of the requests after the first of one MPI_Startall: distinct from every call index.
constexpr int kStartedRequestShift = 40;
inline std::int64_t startedRequestKey(std::int64_t callIndex, std::size_t i) {
  return callIndex + (static_cast<std::int64_t>(i) << kStartedRequestShift);
}

struct Call {
  const Event* event = nullptr;
  Op op = Op::Init;
  std::int64_t index = 0;  // position in the rank's stream (0 = MPI_Init)
  std::int64_t comm = kCommWorld;
  // World ranks; -1 when the call has none, kAnySource for MPI_ANY_SOURCE, kProcNull for
  // MPI_PROC_NULL. A peer on a communicator the trace does not describe stays in communicator
  // numbering (peerIsWorld false).
  Rank peer = -1;      // destination of a send, source of a receive
  Rank recvPeer = -1;  // source of a Sendrecv's receive
  Rank root = -1;
  bool peerIsWorld = true;
  std::int64_t count = 0;
  std::int64_t datatype = 0;
  // Payload this rank sends (p2p) or contributes (collective), and posts to receive; 0 for the
  // side of a point-to-point call whose peer is MPI_PROC_NULL.
  std::int64_t bytes = 0;
  std::int64_t recvBytes = 0;
  std::int64_t tag = 0;
  std::int64_t recvTag = 0;
  std::int64_t reduceOp = 0;
  std::vector<std::int64_t> vec;  // vector parameter of this call (request offsets, counts)
  // For Wait/Waitall: stream indices of the request-creating calls completed (-1 = null).
  std::vector<std::int64_t> completes;
  // The senders (world ranks) the recording saw its wildcard receives match (Param::Matched):
  // for MPI_Recv/MPI_Sendrecv one entry, for waits and tests one per entry of `completes`;
  // -1 where unknown or not a wildcard receive. Empty when the trace does not say.
  std::vector<Rank> matched;
  // Failed polls folded into this test (Param::Failed): calls made before this one, at the same
  // call site, that completed nothing. They count as calls of this operation.
  std::int64_t failedPolls = 0;
  // MPI_Start, MPI_Startall: the persistent requests the call activates, in order. The call's
  // `bytes` and `recvBytes` are their sums; for MPI_Start, peer, comm, count, datatype and tag
  // are those of its one request.
  std::vector<StartedRequest> started;
  // MPI_Mrecv, MPI_Imrecv: the stream index of the matched probe whose message the call
  // receives (-1: none, the trace probed nothing more); peer, comm and tag are the probe's.
  std::int64_t probe = -1;
  // Compute time before the call, from the histogram keyed by the previous call's site;
  // negative when the trace has no such measurement.
  double computeUs = -1;
  double computeKinst = -1;
};

// Told by a RankCursor about the loops it expands (RankCursor::setLoopListener): for walks that
// only add up what the calls contribute (inspect's summaries), which can then multiply by a
// trip count instead of expanding every iteration. `depth` is the loop's place on the cursor's
// stack: 1 for an outermost loop.
class LoopListener {
 public:
  virtual ~LoopListener() = default;
  // An iteration of the loop at `depth` begins (the first one too).
  virtual void iterationBegins(std::size_t depth) = 0;
  // The iteration of the loop at `depth` that just ended would be repeated `times` more times,
  // call for call: the cursor skipped them, and goes on after the loop.
  virtual void iterationRepeats(std::size_t depth, std::int64_t times) = 0;
};

class RankCursor {
 public:
  // Throws InputError (with the event's line) if the trace's loops do not fit this rank.
  RankCursor(const Trace& trace, Rank rank, std::string fileName = "<trace>");
  bool next(Call& call);
  Rank rank() const { return rank_; }
  // Whether calls carry their compute time (on by default); walks that only follow the
  // communication (the simulations of the passes) turn it off, as it costs a histogram's mean
  // per call.
  void setComputeTimes(bool on) { withTimes_ = on; }
  // With a listener, the cursor skips the rest of a loop once two consecutive iterations end in
  // the same state (the value cursors of its body, the last call site, the recent requests,
  // persistent requests and probed messages relative to the call index): every further
  // iteration would then make the same calls again, so a loop of 2^62 iterations costs a few.
  // The state is compared after iterations 2^k and 2^k + 1 only, so that loops that never
  // repeat cost no more than without. Calls of skipped iterations are not returned, and call
  // indices jump past them; only for walks that add up per-call figures.
  void setLoopListener(LoopListener* listener) { listener_ = listener; }
  // A walk without a listener repeats every iteration, also those without a call of this rank
  // (a body whose calls sit in an inner loop of 0 trips): next() could then spin 2^62 times
  // before it returns. With a limit, next() throws InputError once more than `iterations`
  // iterations have begun after the first of each loop.
  void setIterationLimit(std::int64_t iterations) { iterationLimit_ = iterations; }
  // Whether a later call may still come from position `pos` of the rank's compressed trace (an
  // index into eventIndices()) or an earlier one: the cursor has not passed it yet, or a loop
  // that starts there or earlier is still running. Lets a caller that needs only the calls up
  // to some event stop expanding there.
  bool mayReturnTo(std::size_t pos) const;
  // The rank's compressed trace: indices into trace.events.
  std::vector<std::size_t> eventIndices() const;
  // Where the call next() returned last lies: the head event of the outermost loop around it
  // and that loop's iteration, from 0 ({nullptr, -1} outside every loop). An outermost loop is
  // entered once, so the pair names one iteration of the rank's run.
  struct OutermostLoop {
    const Event* head = nullptr;
    std::int64_t iteration = -1;
  };
  OutermostLoop outermostLoop() const;

  // Periodicity (resolve-wildcards' simulation skips the repeats of a periodic stretch of its
  // run, see sim/Repeats.cpp). A cursor's state splits into what decides its future calls
  // and its absolute counters: the stream index of the next call (which request keys are) and
  // the iterations left of its outermost loop. positionKey appends the first part, with request
  // keys relative to the next index; equal keys mean the same calls follow, as long as the
  // outermost loop does not end. False where the cursor holds what it cannot say relatively
  // (active persistent requests, probed messages), which keeps such runs unskipped.
  bool positionKey(std::vector<std::int64_t>& out) const;
  // A cheap digest of the position (the loop frames and where they stand, the outermost
  // loop's count left out): equal positions have equal digests.
  std::uint64_t positionDigest() const;
  std::int64_t nextIndex() const { return index_; }
  // The iterations left of the outermost loop the cursor is in (counting the current one), -1
  // outside every loop.
  std::int64_t outermostItersLeft() const { return stack_.size() < 2 ? -1 : stack_[1].itersLeft; }
  // Moves the cursor `iterations` iterations of its outermost loop and `calls` calls ahead
  // without producing them: valid when those iterations repeat the position exactly (the
  // caller compared positionKey) and leave at least one iteration.
  void skipIterations(std::int64_t iterations, std::int64_t calls);

 private:
  struct LevelState {
    const ValueGroup* iter = nullptr;
    const ValueGroup* mem = nullptr;
    std::size_t iterPos = 0, memPos = 0;
  };
  struct ParamState {
    const ParamValues* values = nullptr;
    const ValueGroup* group = nullptr;
    std::size_t pos = 0;
    bool vector = false;  // isVectorParam(values->param), asked once per call otherwise
  };
  struct Item {
    const Event* event;
    std::vector<LevelState> levels;  // loops this event heads for the rank
    std::vector<ParamState> params;
    // params index of each Param, or kNoSlot: emit() looks parameters up once per call each,
    // so the lookup is a table, not a scan.
    std::array<std::uint8_t, static_cast<std::size_t>(Param::Count_)> slot;
  };
  static constexpr std::uint8_t kNoSlot = 0xff;
  struct Frame {
    std::size_t head;  // index into items_ (top level: 0)
    int level;         // -1 for the whole trace
    std::size_t end;   // one past the body
    std::int64_t itersLeft;
    std::size_t pos;
    bool atHead;
    std::int64_t iters;  // the loop's trip count on this entry
    // With a loop listener: the call index at which the current iteration began, and the state
    // after iteration `sigIteration` (0: on entry; else a power of two; -1: none kept yet).
    std::int64_t iterationStart = 0;
    std::int64_t sigIteration = 0;
    std::vector<std::int64_t> sig;
  };
  // The cursor's state at an iteration boundary of loop `f`, with call indices relative to the
  // next one (see setLoopListener).
  std::vector<std::int64_t> iterationState(const Frame& f) const;
  // At the end of an iteration of the loop on top of the stack: skips its remaining iterations
  // if they repeat the one that just ended.
  void skipRepeatedIterations();
  LoopListener* listener_ = nullptr;

  [[noreturn]] void fail(const Event& e, const std::string& what) const;
  std::int64_t take(ParamState& p, std::int64_t fallback);
  void takeVector(ParamState& p, std::int64_t n, std::vector<std::int64_t>& out);
  std::int64_t nextLoopValue(const ValueGroup* g, std::size_t& pos, const Event& e, const char* what);
  bool pushLoop(std::size_t head, int level, std::size_t limit);
  void emit(Item& item, Call& call);
  Rank toWorld(std::int64_t comm, std::int64_t commRank, bool& isWorld) const;
  // MPI_Alltoallw: the vectors of the call being emitted, then its bytes.
  void alltoallwVector(Param p, const std::vector<std::int64_t>& values);
  void alltoallwBytes(const Event& e, Call& call);
  struct AlltoallwVectors {
    std::vector<std::int64_t> sendCounts, sendTypes, recvCounts, recvTypes;
  };
  AlltoallwVectors w_;

  // ---- neighbourhood collectives (docs/trace-format.md, "Neighbourhood collectives"). Each
  // topology communicator the rank made, by id: its sources and destinations as world ranks
  // (kProcNull at a non-periodic border) in MPI's order, and a Cartesian one's extents.
  struct Topology {
    std::vector<Rank> sources, destinations;
    std::vector<std::int64_t> dims, periods;  // Cartesian only
    bool cart = false;
  };
  std::unordered_map<std::int64_t, Topology> topologies_;
  // The vectors of the call being emitted (a topology constructor's, a neighbourhood
  // collective's), by parameter.
  std::unordered_map<int, std::vector<std::int64_t>> callVectors_;
  void makeTopology(const Event& e, const Call& call, std::int64_t recvCount, std::int64_t newComm);
  void neighborBytes(const Event& e, Call& call, const Topology& t, std::int64_t recvCount, std::int64_t recvType);
  Rank commToWorld(std::int64_t comm, std::int64_t commRank) const;

 public:
  // The neighbours of this rank on communicator `comm` as the calls so far made it (null: no
  // topology the trace describes): for tests and the backends.
  const std::vector<Rank>* neighbourSources(std::int64_t comm) const;
  const std::vector<Rank>* neighbourDestinations(std::int64_t comm) const;

 private:
  const Trace& trace_;
  Rank rank_;
  std::string fileName_;
  std::vector<Item> items_;
  std::vector<Frame> stack_;
  std::int64_t index_ = 0;
  std::int64_t iterationLimit_ = -1;  // setIterationLimit; -1: none
  std::int64_t iterations_ = 0;       // iterations begun after the first of their loop
  SiteId prevSite_ = kNoSite;
  bool withTimes_ = true;
  std::deque<std::int64_t> requests_;  // keys of recent requests (stream indices of request-creating calls)
  // Beyond any trace's requests (the ring's requests are counted in size_t); the depth of an
  // offset far below the ring's, which a fuzzed trace may declare.
  static constexpr std::int64_t kMaxRequestDepth = std::int64_t{1} << 40;
  std::int64_t requestDepth_ = 0;  // the most recent requests a wait of this rank names: its largest offset back
  // Persistent requests not freed, by the key of the call that made or last started each
  // (which the next start names): the init call's message. A rank holds few.
  std::unordered_map<std::int64_t, StartedRequest> persistent_;
  void startPersistent(const Event& e, Call& call, const std::vector<std::int64_t>& keys);
  // Matched probes whose message the rank has not received yet, oldest first.
  struct ProbedMessage {
    std::int64_t index = -1;  // the MPI_Mprobe/MPI_Improbe call
    Rank peer = -1;
    bool peerIsWorld = true;
    std::int64_t comm = kCommWorld;
    std::int64_t tag = 0;
  };
  std::deque<ProbedMessage> probed_;
};

// The neighbours of `rank` on topology communicator `comm` (world ranks, kProcNull at a
// non-periodic border), as the first of the rank's calls that makes it gives them: false when
// no call of the rank makes such a communicator tracegen knows. Expands the rank's calls up to
// that constructor (docs/trace-format.md, "Neighbourhood collectives").
bool topologyNeighbours(const Trace& trace, Rank rank, std::int64_t comm, std::vector<Rank>& sources,
                        std::vector<Rank>& destinations, const std::string& fileName = "<trace>");

// The calls all ranks make, computed per rank class (ir/RankClasses.h: a representative's calls
// times the class size); stops once the count exceeds `budget` and returns a number above it.
std::int64_t estimateCalls(const Trace& trace, std::int64_t budget, const std::string& fileName = "<trace>");
// Whether expanding every rank's calls stays within `budget` calls (estimateCalls: every rank
// class counts, not rank 0 alone, whose two calls once let a loop of 10^12 calls on rank 1
// through; shared fuzz finding H5). For the whole-run walks (point-to-point matching, the
// coNCePTuaL backend's map of persistent starts) that are worth doing only up to a size.
bool expansionWithinBudget(const Trace& trace, std::int64_t budget, const std::string& fileName = "<trace>");

}  // namespace tracegen
