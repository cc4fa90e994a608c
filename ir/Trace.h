// The trace model: one clustered global trace that describes every rank.
//
// A Trace is an ordered list of Events (ScalaTrace's RSDs). An event is executed by the ranks
// of its RankList; for each rank, the events whose lists hold it, in file order, are that
// rank's compressed trace. Loop levels on an event (PRSDs) say that, for the ranks of a group,
// the event heads a body of `mem` events (counted over that rank's own events) repeated `iter`
// times. Parameters hold one value list per rank group, consumed cyclically one value per
// execution ("elastic" values), so per-rank and per-iteration differences stay compressed.
// Time histograms are keyed by the call site of the rank's preceding call.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/Ops.h"
#include "ir/RankList.h"
#include "ir/RankShape.h"

namespace tracegen {

// One value list for the ranks of one group; consumed cyclically, one value (or one vector)
// per execution of the event by a rank.
struct ValueGroup {
  RankList ranks;
  std::vector<std::int64_t> values;
  bool operator==(const ValueGroup&) const = default;
};

struct ParamValues {
  Param param = Param::Comm;
  // Peer parameters (dest, source, key) may be stored as offsets from the calling rank:
  // stored = (peer - rank + P) mod P, with P the world size and peer in communicator numbering.
  bool relative = false;
  std::vector<ValueGroup> groups;  // disjoint; together they cover the event's ranks

  const ValueGroup* groupFor(Rank r) const;
  bool operator==(const ParamValues&) const = default;
};

struct LoopLevel {
  std::vector<ValueGroup> iter;  // trip count per entry of the loop
  std::vector<ValueGroup> mem;   // body length in events of the rank, head included
  bool operator==(const LoopLevel&) const = default;
};

struct Bin {
  double start = 0, min = 0, avg = 0, max = 0, end = 0;
  std::int64_t freq = 0;
  bool operator==(const Bin&) const = default;
};

// Drift of a time over the calls it measures: the mean of the calls whose index lies in
// [first, the next range's first), the last range open-ended. A call's index counts, per rank
// from 0, the calls of its event after the same predecessor (the samples of one histogram in
// the order they were taken), so that a first iteration that is slower, or a phase that grows,
// keeps its shape and not only its mean.
struct CallRange {
  std::int64_t first = 0;  // the index of the range's first call
  double avg = 0;          // the mean of its calls
  std::int64_t n = 0;      // samples (calls of all the histogram's ranks) in the range
  bool operator==(const CallRange&) const = default;
};

struct Histogram {
  std::int64_t n = 0;
  double avg = 0;  // as written by the tracer (ScalaTrace's is biased, see mean())
  Rank minRank = 0;
  double min = 0;
  Rank maxRank = 0;
  double max = 0;
  std::vector<Bin> bins;
  // Empty: no drift (every call takes the mean); otherwise ascending ranges from first 0 whose
  // counts add up to n (`calls=` in the text format).
  std::vector<CallRange> calls = {};

  // Exact mean from the bins (ScalaTrace's header average counts its first sample twice).
  double mean() const;
  // Median estimate from the bins: the bin holding the middle sample, interpolated over its
  // [min, max] as ScalaTrace's replayer spreads samples.
  double median() const;
  bool operator==(const Histogram&) const = default;
};

enum class TimeUnit : std::uint8_t { Microseconds, KiloInstructions };
enum class Phase : std::uint8_t { Compute, Mpi };
std::string_view timeUnitName(TimeUnit u);  // "us", "kinst"
std::string_view phaseName(Phase p);        // "comp", "mpi"

using SiteId = std::int32_t;  // index into Trace::sites
constexpr SiteId kNoSite = -1;

// A distribution of the time before (Compute) or inside (Mpi) the event's calls whose
// preceding call on the same rank was made at call site `after`. `ranks` empty: the calls of
// every rank of the event; otherwise a timing sub-group, the calls of those ranks only (ranks
// whose times differ keep their own distributions; the sub-groups of one phase, unit and
// predecessor are disjoint).
struct TimeStat {
  Phase phase = Phase::Compute;
  TimeUnit unit = TimeUnit::Microseconds;
  SiteId after = kNoSite;
  Histogram hist;
  RankList ranks;
  bool covers(Rank r) const { return ranks.empty() || ranks.contains(r); }
  bool operator==(const TimeStat&) const = default;
};

// Summarised compute time before an event's calls whose predecessor was made at `after`
// (set by the timing-summary pass; microseconds), for `ranks` (empty: every rank of the event).
struct ComputeTime {
  SiteId after = kNoSite;
  double us = 0;
  RankList ranks;
  // Drift (Histogram::calls): the time of the calls from `first` on, up to the next entry's
  // first, when it differs from `us`; empty: every call takes `us`.
  struct ByCall {
    std::int64_t first = 0;
    double us = 0;
    bool operator==(const ByCall&) const = default;
  };
  std::vector<ByCall> calls = {};
  bool covers(Rank r) const { return ranks.empty() || ranks.contains(r); }
  bool operator==(const ComputeTime&) const = default;
};

struct Event {
  std::int64_t id = 0;  // stable name (ScalaTrace's EVENT number); kept through lowering
  Op op = Op::Init;
  SiteId site = kNoSite;
  // Further call sites folded into this event (collective alignment merges the calls of one
  // collective made from different sites); `site` is the first.
  std::vector<SiteId> mergedSites;
  RankList ranks;
  std::vector<LoopLevel> loops;     // loops[0] is the outermost loop this event heads
  std::vector<ParamValues> params;  // at most one entry per Param, sorted by Param
  std::vector<TimeStat> stats;
  std::vector<ComputeTime> compute;  // empty until timing is summarised
  int line = 0;                     // where it was read from, for diagnostics (0: built)

  const ParamValues* param(Param p) const;
  ParamValues* param(Param p);
  ParamValues& setParam(Param p, std::vector<ValueGroup> groups, bool relative = false);
  // The single value of a parameter that has one value for all ranks and executions.
  std::optional<std::int64_t> uniformValue(Param p) const;
  // Equality ignores `line`.
  bool operator==(const Event& o) const;
};

struct Datatype {
  std::int64_t id = 0;
  std::string name;     // "MPI_DOUBLE"
  std::int64_t size = 0;  // bytes
  bool operator==(const Datatype&) const = default;
};

struct Communicator {
  std::int64_t id = 0;
  // world, self, split, dup, create; the topology constructors: cart, cart_sub, graph,
  // dist_graph, split_type, create_group, idup
  std::string kind;
  // Each instance is one communicator: its members as world ranks. Ranks use the same id for
  // different communicators (the rows of a grid each get their own "comm 1000"), so a rank's
  // communicator is the instance that holds it.
  std::vector<RankList> instances;
  // The rank order of instances whose communicator numbers its members otherwise than in
  // ascending world order (a split key, MPI_Cart_create with reorder): orders[i][k] is the
  // world rank of communicator rank k of instances[i], a permutation of its members. Empty, or
  // an empty entry, for ascending order, the common case (only reordered instances pay for it).
  std::vector<std::vector<Rank>> orders = {};

  const RankList* instanceFor(Rank r) const;
  // The index of the instance that holds r, or -1.
  std::int64_t instanceIndex(Rank r) const;
  // The explicit order of instance i, or null when it is ascending.
  const std::vector<Rank>* orderOf(std::size_t i) const {
    return i < orders.size() && !orders[i].empty() ? &orders[i] : nullptr;
  }
  // Communicator rank -> world rank on instance i (commRank must be in [0, size)).
  Rank worldRank(std::size_t i, Rank commRank) const;
  // World rank -> communicator rank on instance i, or -1 when `world` is no member.
  Rank commRank(std::size_t i, Rank world) const;
  // Sets instance i's order; an ascending order is stored as none.
  void setOrder(std::size_t i, std::vector<Rank> order);
  bool operator==(const Communicator&) const = default;
};

// The communicator kinds the text format knows (Communicator::kind).
bool isCommunicatorKind(std::string_view kind);

constexpr std::int64_t kCommNull = 0;
constexpr std::int64_t kCommSelf = 1;
constexpr std::int64_t kCommWorld = 2;

// The clock a trace's compute times (`time comp`, `compute`) were measured with: wall-clock time
// (the default), or the CPU time of the calling thread (the recorder's TRACEGEN_CLOCK=cpu, so
// that a trace taken with more ranks than cores still carries each rank's compute demand).
enum class ComputeClock { Wall, Cpu };

// The name of one frame of call-site chains (header line `frame FRAME SYMBOL [FILE:LINE]`):
// the function holding the return address, as its module's symbol table spells it (mangled
// where the language mangles: `_ZN4halo8exchangeEv`, `exchange_1_`, `__grid_MOD_swap`), and,
// where the module has debug information, the source file (base name) and line of the call
// (line 0: unknown). Names are extra information: a site's identity stays its chain of offsets.
struct FrameName {
  std::string symbol;
  std::string file;
  std::int64_t line = 0;
  bool operator==(const FrameName&) const = default;
};

// A symbol as people read it: C++ demangled without its parameter list (`halo::exchange`),
// gfortran's and Intel's module procedures as `module::proc`, an external Fortran procedure
// without its trailing underscore (`exchange_1_` -> `exchange_1`), GCC's clone suffixes
// (`.constprop.0`, `.isra.0`, `.part.0`, `.cold`) dropped; anything else as it is.
std::string readableSymbol(std::string_view symbol);

struct Trace {
  Rank numRanks = 0;
  std::string origin;  // where the trace came from, e.g. "scalatrace2-td"
  ComputeClock computeClock = ComputeClock::Wall;  // header line `clock cpu`; absent: wall
  // False: peers and roots are in the numbering of the call's communicator (as recorded).
  // True: in MPI_COMM_WORLD numbering (after communicator resolution), on every communicator.
  bool worldPeers = false;
  std::vector<std::string> sites;
  // Names of the frames of the sites' chains (header `frame` lines), keyed by the frame as the
  // chains spell it (`8e31`, `libfoo.so+1a2b`); frames without an entry are unnamed. `program`
  // (header `program NAME`) is the executable whose offsets the unprefixed frames are (empty:
  // not known). Both optional; the recorder fills them, and every pass keeps them.
  std::map<std::string, FrameName, std::less<>> frameNames;
  std::string program;
  std::vector<Datatype> datatypes;
  std::vector<Communicator> comms;
  std::vector<Event> events;
  // The process around the MPI region, as the recorder measured it (header `footprint` lines):
  // each rank's peak resident memory in KiB, by groups of ranks whose peaks agree within
  // kTimingTolerance (empty: not measured), and the time from process start to MPI_Init of the
  // slowest rank in microseconds (negative: not measured). A benchmark reproduces both.
  std::vector<ValueGroup> memoryKb;
  double beforeInitUs = -1;
  // The application's own time from MPI_Finalize's return to its exit, in microseconds, as rank
  // 0 measured it (the other ranks cannot report after MPI_Finalize); negative: not recorded.
  double afterFinalizeUs = -1;
  // Where the times are the medians of several recordings of one run (`tracegen merge-timing`,
  // timing/MergeTiming.h; header line `recordings N spread-median X spread-max Y at-event E`):
  // how many, and the spread of the recordings' mean compute times, (largest - smallest) /
  // median per timing group of 1 us or more, its median and its largest with the event it is
  // at. count 0: one recording. Not compared.
  struct Recordings {
    int count = 0;
    double spreadMedian = 0, spreadMax = 0;
    std::int64_t spreadMaxEvent = -1;
  };
  Recordings recordings;
  // Shapes of the rank sets in the trace (ir/RankShape.h), keyed by RankList::str(); derived
  // data, filled by the rank-ranges pass and not written to the text format.
  std::unordered_map<std::string, RankShape> rankShapes;
  // What the reader completed or guessed (a fragment given MPI_Init/MPI_Finalize), as
  // `file:line: what`; the pipeline reports them with the passes' warnings. Not compared.
  std::vector<std::string> warnings;

  SiteId internSite(std::string_view signature);
  std::string_view siteName(SiteId s) const { return s == kNoSite ? std::string_view("-") : sites[s]; }
  // The frames of a site's chain, innermost first (`8e31_4981` -> `8e31`, `4981`; module names
  // may hold '_': a frame the table names is preferred); none for kNoSite.
  std::vector<std::string_view> siteFrames(SiteId s) const;
  // The readable function names of a site's frames (readableSymbol), innermost first; "" for a
  // frame without a name. Meant for matching events of separately compiled binaries, whose
  // offsets differ while function names survive.
  std::vector<std::string> siteFunctions(SiteId s) const;
  // For people: `in exchange (stencil.c:77) <- ssor <- main (lu+0x8e31)`: the innermost
  // function with its file:line where known, its callers up to main or four functions (then
  // `<- ...`), then the module and offset of the innermost frame (an unnamed innermost frame
  // reads `?`, an unnamed caller its module and offset). Empty when no frame of the
  // site has a name (callers then print the chain itself, as before names existed).
  std::string siteDescription(SiteId s) const;
  // The site's chain, followed by ` (DESCRIPTION)` where it has one: for diagnostics.
  std::string siteLabel(SiteId s) const;
  const Datatype* datatype(std::int64_t id) const;
  const Communicator* comm(std::int64_t id) const;
  bool hasTime(Phase phase, TimeUnit unit) const;
  // Equality ignores source lines and site numbering: site ids are compared by name.
  bool operator==(const Trace& o) const;

 private:
  std::unordered_map<std::string, SiteId> siteIndex_;
  std::size_t sitesIndexed_ = 0;  // sites[0, sitesIndexed_) are in siteIndex_ (the first of equal names)
};

// Timing sub-groups: ranks whose mean compute times before an event agree within
// kTimingTolerance of the larger, or within kTimingSlackUs, share one distribution; others keep
// their own (TimeStat::ranks, ComputeTime::ranks), so that load imbalance survives clustering.
constexpr double kTimingTolerance = 0.10;
constexpr double kTimingSlackUs = 1.0;
bool timesAgree(double a, double b);
// At most this many sub-groups per (phase, unit, predecessor) of an event: beyond it the two
// closest merge (keeps a trace of imbalanced ranks bounded by the trace, not the rank count).
constexpr std::size_t kMaxTimingGroups = 8;
// Drift over calls (Histogram::calls) is kept where some range's mean differs from the
// histogram's mean by more than kDriftTolerance of the larger and kDriftSlackUs: traces of
// steady codes do not carry it. (The slack is above the few microseconds a first call of a
// steady code often takes more, a cold cache or a lazy allocation: the sample codes stencil2d
// and sweep showed 2-3 us, which no replay needs.) At most kMaxCallRanges ranges per histogram.
constexpr double kDriftTolerance = 0.20;
constexpr double kDriftSlackUs = 5.0;
constexpr std::size_t kMaxCallRanges = 32;
bool driftAgrees(double a, double b);
// The call ranges of the union of the samples of two histograms of the same calls made by
// different ranks (or sites): ranges with the same first add. A histogram without ranges
// (steady) is spread over the other's ranges in proportion to their counts; ranges that do not
// line up (neither list's firsts a prefix of the other's) give none. an, bn: the histograms' n.
std::vector<CallRange> mergeCallRanges(const std::vector<CallRange>& a, std::int64_t an, double aMean,
                                       const std::vector<CallRange>& b, std::int64_t bn, double bMean);
// Merges adjacent ranges whose means agree (driftAgrees) and clears the list where every range
// agrees with `mean`, the histogram's: what a trace keeps of drift.
void compactCallRanges(std::vector<CallRange>& calls, double mean);

// A statistic or compute time that is the only one of its key and covers every rank of its
// event is written without ranks (empty: all).
void normalizeTimingGroups(Event& e);

// ScalaTrace's predefined datatypes (indices 0-19 are library-independent).
const std::vector<Datatype>& scalaTraceDatatypes();
// The standard table of communicators every trace starts with: null, self, world.
std::vector<Communicator> standardCommunicators(Rank numRanks);

// Calls `f` for every rank set the trace names: event ranklists, parameter groups, loop groups
// and communicator instances (repeats included), the sets a backend spells.
void forEachRankSet(const Trace& trace, const std::function<void(const RankList&)>& f);

}  // namespace tracegen
