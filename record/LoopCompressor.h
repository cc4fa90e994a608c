// LoopCompressor: one rank's calls compressed while the application runs (ScalaTrace's RSDs and
// PRSDs with ScalaTrace 2's elastic values).
//
// The rank's trace is a sequence of nodes; a node is an event (operation, call site, one
// ElasticSeq per parameter, time accumulators keyed by the predecessor's call site) or a loop
// (its body, a sequence of nodes, and an ElasticSeq of trip counts, one per entry into the loop).
// Nodes compare by *shape*: operation, site and parameter names for events, body shapes for
// loops; values and trip counts are not part of the shape, and an event has the shape of a loop
// whose body is that one event (it is such a loop, run once: `for k < n: send` with n = 1 at
// one timestep and 3 at the next still folds). After each appended event the tail is matched,
// as ScalaTrace does:
//   (a) if a loop is followed by exactly its body's shape, that iteration is folded into it;
//   (b) otherwise, if the last w nodes repeat the w before them (smallest w first, w up to the
//       window), both windows become a loop of two iterations.
// Folding an iteration appends its values to the body's ElasticSeqs and adds its timings, so a
// timestep loop costs the same whatever its trip count, and values that change per iteration
// become lists compressed to their shortest period.
//
// The incoming call is matched before it becomes a node (append: a Probe, the call's parameter
// order and shape): when rule (a) or (b) applies with the call as the tail's last node, its
// values and times go straight into the node it folds into, and no node is made for it. The
// tests, their order and the result are those of matching a node made from the call (a node
// made from a call holds exactly its values once, so folding it equals pushing those values);
// in a loop only the first call of each body position, and the first of a run of calls from one
// site, makes a node, and loop nodes whose iterations were folded are kept for reuse as event
// nodes are, so a repeating program makes no allocation per call. Matching runs when an event
// is appended, and once more when a loop of several nodes that ends the top level is complete
// (the next call does not begin another iteration of it), with that loop as the tail's last
// node: so a window may end with a loop (a multigrid level: three halo exchanges, each a loop
// over the axes), and inner loops are complete before an enclosing window can match, which
// keeps nesting (PRSDs) well formed.
//
// Inside a loop that repeats, the tail matching above is not even run: once the top level ends
// with a loop L whose body is events and runs of one event (a loop around one event), a call that
// would start a new node and matches L's first body node begins a *staged* iteration. Each later
// call is compared with the body node it must match (the same position again for a run, or the
// next position), and is kept aside (copied, no node made) until the call matching L's last
// body node completes the iteration: the kept calls are then folded into L's body position by
// position, exactly as rule (a) would fold the nodes made from them. A call that matches neither
// ends the staging: the kept calls are appended again one by one, the ordinary way, and the
// trace is that of never having staged. Staging is exact because nothing else can happen in
// between: a body's prefixes hold no square (rule (b) folded any), so no rule but a run's and
// L's own applies to the tail, provided no node before L has L's shape (at the top level or
// in a loop body there), which is checked once per change of the top level; L's body must be
// no longer than the window, and at most kMaxStaged calls are kept.
//
// The compressor knows nothing of MPI: the recorder hands it CallRecords, tests build them by
// hand. toTrace() flattens the tree into the trace model: events in order, loop levels on their
// head events (outermost first, `mem` counting the head), peers relative to the rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/Trace.h"
#include "record/ElasticSeq.h"
#include "record/TimeStats.h"

namespace tracegen::record {

// Sentinels of the recorder (MPI_ANY_SOURCE and MPI_PROC_NULL peers are the model's kAnySource
// and kProcNull, ir/Ops.h).
constexpr std::int64_t kAnyTag = -1;    // MPI_ANY_TAG
constexpr std::int64_t kUndefined = -1; // MPI_UNDEFINED (split colour, Waitany index)

// One intercepted call as the wrappers describe it. Reused between calls (clear() keeps the
// buffers), so recording a call allocates nothing in the common case.
struct CallRecord {
  struct VectorRef {
    Param param;
    std::size_t offset;  // into vectorValues
    std::size_t length;
  };
  Op op = Op::Init;
  std::uint32_t site = 0;
  std::vector<std::pair<Param, std::int64_t>> scalars;
  std::vector<VectorRef> vectors;
  std::vector<std::int64_t> vectorValues;
  std::int64_t prevSite = -1;  // site of the rank's previous call, -1 for none
  double computeUs = -1;       // time since the previous call returned; < 0: not measured
  double mpiUs = -1;           // time inside the call; < 0: not measured

  void clear();
  void set(Param p, std::int64_t v) { scalars.emplace_back(p, v); }
  void setVector(Param p, const std::int64_t* values, std::size_t n);
  void setVector(Param p, const int* values, std::size_t n);  // MPI's int arrays, widened in place
};

class LoopCompressor {
 public:
  // window: the longest repeated sequence (in top-level nodes) the tail matching looks for.
  // direct = false makes a node of every call before matching (no direct fold): the reference
  // the direct fold must agree with, for the tests.
  explicit LoopCompressor(std::size_t window = 256, bool direct = true) : window_(window), direct_(direct) {}

  void append(const CallRecord& call);
  // Appends the calls of a staged iteration the ordinary way (a no-op when none is staged);
  // toTrace() and the node counts do it first.
  void flush();

  // The rank's trace in the trace model, all ranklists {rank}. siteNames maps the CallRecord
  // site indices to names. Dest, source and key become relative, (peer - rank + P) mod P, on
  // events whose values all lie in [0, P) (MPI_ANY_SOURCE allowed); otherwise (MPI_PROC_NULL,
  // which no offset names) they stay absolute.
  // Empty vector parameters (a Testall that never completed) are left out; a vector parameter of
  // constant length n is written as whole vectors (its list's length a multiple of n).
  Trace toTrace(Rank rank, Rank numRanks, const std::vector<std::string>& siteNames);

  std::int64_t calls() const { return calls_; }
  std::size_t topLevelNodes() {
    flush();
    return seq_.size();
  }
  std::size_t totalNodes();  // events and loops, nested ones included
  std::int64_t stagedIterations() const { return stagedIterations_; }  // folded by staging

 private:
  struct Slot {
    Param param;
    ElasticSeq values;
    // Values per execution: 0 for a scalar, n for a vector of n values at every execution, -1
    // for a vector whose length varies (Waitsome).
    std::int64_t vectorLength = 0;
  };
  struct Stat {
    // A constructor, so that a new Stat is not zero-filled whole first (value-initialisation of
    // some 300 bytes, per new predecessor of every event a loop iteration makes anew).
    Stat(Phase p, std::int64_t a) : phase(p), after(a) { acc.byCall = p == Phase::Compute; }  // drift: compute only
    Phase phase;
    std::int64_t after;
    TimeAcc acc;
  };
  // A node's newest timings, not yet in a TimeAcc, in the order they were taken. A node made in
  // the current loop iteration keeps up to kFresh of them so (and so does a loop body it starts
  // while it has no Stats), and folding it into its loop adds them one by one: no Stat (some
  // 300 bytes) is made and merged per new node. settle() makes them Stats, in order.
  static constexpr std::size_t kFresh = 16;
  struct Sample {
    Phase phase;
    std::int64_t after;
    double us;
  };
  struct Node {
    std::uint64_t shape = 0;
    bool loop = false;
    Op op = Op::Init;
    std::uint32_t site = 0;
    std::vector<Slot> slots;  // sorted by parameter
    std::vector<Stat> stats;
    std::vector<Sample> fresh;  // samples after those in `stats`, not yet in them
    std::int64_t execs = 0;   // executions folded into this event
    ElasticSeq iters;        // committed trip counts, one per completed entry
    std::int64_t open = 0;   // trip count of the entry still running (top level only)
    std::vector<Node> body;
  };

  // The incoming call's slots in the order a node made from it keeps them (by parameter), and
  // its shape. direct: its parameters are distinct and few enough for that order to be
  // unambiguous (and the shape memoised), which the direct fold needs.
  static constexpr std::size_t kProbeSlots = 16;
  struct Probe {
    bool direct = false;
    std::uint8_t n = 0;
    std::uint8_t params[kProbeSlots] = {};
    std::uint8_t from[kProbeSlots] = {};  // < scalars.size(): a scalar, else a vector's index + that
    std::uint64_t shape = 0;
  };
  void probe(const CallRecord& call, Probe& p);
  static bool matchesCall(const Node& a, const CallRecord& call, const Probe& p);
  static void mergeCall(Node& into, const CallRecord& call, const Probe& p);
  bool foldCall(const CallRecord& call, const Probe& p);
  Node takeLoop();
  void pushEvent(const CallRecord& call);  // appends the call's node to seq_
  Node eventNode(const CallRecord& call);  // a node made from the call (from the pool if it can)
  void makeEvent(const CallRecord& call, Node& n);
  static void settle(Node& n);
  // Adds k samples taken after all of into's.
  static void addFresh(Node& into, const Sample* samples, std::size_t k);
  // Event nodes folded into a loop are kept for reuse, their buffers' capacity with them, so a
  // call that continues a loop allocates nothing.
  void recycle(Node&& n);
  static std::uint64_t loopShape(const std::vector<Node>& body);
  static bool sameShape(const Node& a, const Node& b);
  static bool rangesMatch(const std::vector<Node>& a, std::size_t ai, const std::vector<Node>& b, std::size_t bi, std::size_t n);
  static void commit(Node& n);
  static void wrapInLoop(Node& event);
  static void mergeInto(Node& into, Node& from);
  static void addStat(std::vector<Stat>& stats, Phase phase, std::int64_t after, double us);
  void compressTail();
  // Whether the top level ends with a loop of several nodes that the next node (given as a node,
  // or as a probed call) cannot continue; closeTailLoop() then matches the tail with it last.
  bool tailLoopEndsBefore(const Node* next, const CallRecord* call, const Probe* p) const;
  void closeTailLoop();
  void appendProbed(const CallRecord& call, const Probe& p);
  static std::size_t countNodes(const std::vector<Node>& seq);
  void flatten(const std::vector<Node>& seq, Trace& out, Rank rank, Rank numRanks,
               const std::vector<std::string>& siteNames) const;

  // Staging (above): the calls kept since the staged iteration began, with the body position
  // each matched; staged_ keeps its capacity (and its CallRecords theirs) between iterations.
  static constexpr std::size_t kMaxStaged = 256;
  struct Staged {
    CallRecord call;
    Probe probe;
    std::uint32_t position = 0;
  };
  bool stageable();
  bool stageStart(const CallRecord& call, const Probe& p);
  bool stageNext(const CallRecord& call, const Probe& p);
  void stage(const CallRecord& call, const Probe& p, std::uint32_t position);
  void completeStaged(const CallRecord& call, const Probe& p);
  std::vector<Staged> staged_;
  std::size_t nStaged_ = 0;
  bool staging_ = false;
  std::int64_t stagedIterations_ = 0;
  // Changes of the top level other than a staged iteration's fold bump topVersion_; stageable()
  // is computed again only then.
  std::uint64_t topVersion_ = 0;
  std::uint64_t stageableVersion_ = ~std::uint64_t{0};
  bool stageableCached_ = false;

  std::vector<Node> seq_;
  std::vector<Node> pool_;
  std::vector<Node> loopPool_;  // loop nodes kept for reuse (their body's and trip counts' capacity)
  // Event shapes by operation, site and parameter names, so that a call from a known site with
  // its usual parameters costs a comparison, not a hash (direct-mapped by site).
  struct ShapeMemo {
    Op op = Op::Init;
    std::uint32_t site = UINT32_MAX;
    std::uint8_t n = 0;
    std::uint8_t params[16] = {};
    std::uint64_t shape = 0;
    // The order in which the site's latest probed call gave its parameters (packed, a byte
    // each) and the probe's `from` for it, so that a call giving them in the same order is not
    // sorted again (rawValid: params came from such a probe, not from makeEvent).
    bool rawValid = false;
    std::uint64_t raw[2] = {};
    std::uint8_t from[16] = {};
  };
  ShapeMemo shapes_[256];
  std::size_t window_;
  bool direct_;
  std::int64_t calls_ = 0;
};

}  // namespace tracegen::record
