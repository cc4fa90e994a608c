// Clustering and merging of per-rank traces into one global trace (docs/clustering.md).
//
// At MPI_Finalize each rank holds its compressed trace (LoopCompressor::toTrace: ranklists {r},
// peers relative). The steps, each a pure function here so that tests can run them in-process
// for any number of simulated ranks, and the recorder runs them over MPI:
//   1. signatures: a 64-bit call-path signature hashes the trace's *shape* (operations, call
//      sites, loop nesting and body lengths, parameter names); a 128-bit parameter signature
//      hashes everything else that identifies the trace (values, trip counts, datatype sizes).
//      Both are ordered splitmix64 folds over a canonical token stream (section 2.3).
//   2. cluster table: entries (signature, ranklist) reduced up a binomial tree; equal
//      signatures unite their ranklists. The root broadcasts the table: every rank learns its
//      sub-cluster, whose lowest rank is the representative. Communicator instances (world-rank
//      sets) ride along, deduplicated, so the root can write the communicator table.
//   3. timing: within each sub-cluster, members' time histograms are added up a virtual
//      binomial tree over the sub-cluster's ranklist, so the representative's histograms
//      describe every member (fixed bins make this an element-wise sum).
//   4. merge: each representative's trace takes its sub-cluster's ranklist (all its groups are
//      rewritten), then partial traces travel up a binomial tree over the representatives;
//      partials of equal shape are zipped event by event (level 1: ranklists unite, elastic
//      value groups with equal values unite), different shapes stay apart.
//   5. the root aligns the partials of different shapes by a longest common subsequence on
//      event identity (level 2, Myers' O((n + m) D) diff), sharing events such as MPI_Init;
//      every rank's own events keep their order, so each rank's cursor reproduces its trace
//      exactly.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/Trace.h"

namespace tracegen::record {

struct Signature {
  std::uint64_t shape = 0;   // call-path signature (level 1, main clusters)
  std::uint64_t params1 = 0; // parameter signature, two independent seeds (level 2)
  std::uint64_t params2 = 0;
  auto operator<=>(const Signature&) const = default;
};

Signature computeSignature(const Trace& rankTrace);

enum class ClusterMode { Exact, None };  // None: every rank is its own sub-cluster

struct ClusterEntry {
  Signature sig;
  RankList ranks;
};

struct CommEntry {
  std::int64_t id = 0;
  std::string kind;  // split, dup, create, cart, ... (Communicator::kind)
  RankList members;  // world ranks
  std::vector<Rank> order = {};  // communicator rank k = world rank order[k]; empty when ascending
  bool operator==(const CommEntry&) const = default;
};

// Conditions a rank reports so that the root can warn once.
enum RecordFlag : std::int64_t {
  kFlagReorderedComm = 1,     // a communicator whose rank order is not ascending world order
  kFlagRequestOverflow = 2,   // a wait on a request more than 9999 request-creating calls old
  kFlagUnknownRequest = 4,    // a wait on a request the recorder did not see created
  kFlagUnknownGroup = 8,      // a call on a group no intercepted call made (MPI_GROUP_EMPTY, ...)
};

struct ClusterTable {
  std::vector<ClusterEntry> clusters;  // sorted by signature
  std::vector<CommEntry> comms;        // sorted by (id, first member), no duplicates
  std::int64_t flags = 0;

  // The table of one rank.
  static ClusterTable forRank(Rank rank, const Signature& sig, std::vector<CommEntry> comms, std::int64_t flags,
                              ClusterMode mode);
  // Adds another subtree's table (commutative and associative).
  void add(const ClusterTable& other);
  const ClusterEntry* clusterOf(Rank r) const;
  // Representatives (lowest rank of each sub-cluster), ascending.
  std::vector<Rank> representatives() const;
  std::size_t mainClusters() const;  // distinct shapes
};

// Binomial tree over n participants 0..n-1 rooted at 0: i's parent clears i's lowest set bit;
// children are i + 2^k for 2^k below that bit, received in increasing k.
std::int64_t treeParent(std::int64_t i);
std::vector<std::int64_t> treeChildren(std::int64_t i, std::int64_t n);

// A copy of the trace with only what the timing reduction needs (events, sites, histograms).
Trace statsOnly(const Trace& t);
// Adds the process footprint of `from` (peak resident memory per rank group, time before
// MPI_Init) into `into`: groups whose peaks agree within kTimingTolerance unite (keeping the
// larger peak), at most kMaxTimingGroups; the time before MPI_Init is the larger.
void mergeFootprint(Trace& into, const Trace& from);
// The footprint's rank groups in their shortest form, once, for the global trace.
void canonicalFootprint(Trace& t);
// Adds the histograms of `from` into `into`, event by event (the traces have the same events).
// Returns false if the event lists differ.
bool addStats(Trace& into, const Trace& from);

// Rewrites every ranklist of a one-rank trace (events, loop groups, parameter groups) to `ranks`.
void assignRanks(Trace& t, const RankList& ranks);

// A partial global trace: the merged traces of the sub-clusters of one shape.
struct Partial {
  std::uint64_t shape = 0;
  Trace trace;
};

// The default work bound of the level-2 alignment: 2^25 steps, 0.1 to 0.2 s when spent in full
// (apitour's partials of 7,000 events take 2^22 to 2^24).
inline constexpr std::size_t kAlignWork = std::size_t{1} << 25;

// Level 1: zips `from` into `into` when both have the same shape. Returns false (and leaves
// `into` unchanged) when they do not, e.g. after a signature collision.
bool zipMerge(Trace& into, Trace from);
// Adds partials from a subtree: equal shapes are zipped, others appended; kept sorted by the
// lowest rank they hold.
void addPartials(std::vector<Partial>& into, std::vector<Partial> from);
// Level 2 and the finishing touches: aligns the partials into one trace, fills the
// communicator table from `table`, renumbers events, sorts and rounds the histograms.
// `alignWork` bounds the work of each alignment (record/CommonSubsequence.h: furthest-point
// updates plus event comparisons, at most about 2 (n + m) (D + 1) for event lists of lengths n
// and m that differ by D events); a partial that would take more is concatenated instead.
Trace buildGlobal(std::vector<Partial> partials, const ClusterTable& table, Rank numRanks,
                  std::size_t alignWork = kAlignWork);

// Communicator ids whose instances overlap: ranks that created communicators in different orders
// gave one id to intersecting communicators, which the trace model cannot describe. One line per
// such id (empty when the table is consistent).
std::vector<std::string> communicatorConflicts(const Trace& t);

// What a rank brings to Finalize.
struct RankInput {
  Trace trace;                  // LoopCompressor::toTrace, with the rank's datatypes
  std::vector<CommEntry> comms; // communicators the rank is a member of
  std::int64_t flags = 0;
};

struct ClusterReport {
  std::size_t mainClusters = 0;
  std::size_t subClusters = 0;
  std::int64_t flags = 0;
};

// All steps in one process over simulated trees, in the order and with the tree shapes the
// recorder uses over MPI (tests, and the reference for the MPI driver).
Trace clusterInProcess(std::vector<RankInput> ranks, ClusterMode mode, ClusterReport* report = nullptr);

}  // namespace tracegen::record
