// RankList: a set of MPI ranks kept in ScalaTrace's compressed form, a union of
// n-dimensional regular sections `<dim start {iters stride}...>`.
//
// A million-rank list is a handful of integers; every query here works on the tuples and
// never on a vector of ranks. Each tuple is kept *nested* (dimensions sorted by stride, each
// stride larger than the span of the dimensions below it), which is what makes membership a
// digit decomposition and ascending enumeration a lexicographic walk. Tuples of one list are
// pairwise disjoint.
//
// Set operations (intersect, subtract, unite, intersects, isSubsetOf, operator==, shifted) also
// work on the tuples; their cost follows the tuples, never the number of ranks (RankList.cpp
// explains how). Pairs of tuples where one is a single rank, contiguous or equal to the other,
// and blocks of one grid (equal outermost strides, or a progression whose stride divides the
// other's row length) cost O(dims) per pair of rows they align. Other pairs are cut into
// arithmetic progressions along their longest dimension within the range they share. One
// operation spends at most kMaxPiecesPerOperation units of work (a progression cut, a pair of
// overlapping progressions compared, a pair of series rows aligned); beyond that it falls back
// to enumerating the ranks of the lists involved, as tracegen did before. Lists sharing no grid
// structure get there with more than about 2^20 progressions along their longest dimension
// (four or more dimensions of comparable length: 10^8 ranks as 100^4 have 10^6; three of about
// 1000) or when one tuple's rows cross another's long columns more than 2^20 times (two large
// 2-D tuples on unrelated grids). Lists of 1-D tuples, blocks of one grid and everything the
// stencil-style decompositions produce stay on the tuples however many ranks they hold.
//
// Results are normalised like every list (nested, disjoint, sorted by start). A result of at
// most kExactMembers ranks is built exactly as fromAscending builds it, so small lists print
// as they always did; larger results keep the blocks the operation found and recompress its
// progressions (fused where they continue each other, equal ones at a constant distance made
// one more dimension). Equal sets may therefore print differently when built by different
// routes; operator== compares members (on the tuples), not text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tracegen {

using Rank = std::int64_t;

struct RankDim {
  Rank iters = 1;
  Rank stride = 0;
  bool operator==(const RankDim&) const = default;
};

// start + k1*stride1 + ... + kd*strided, 0 <= kj < itersj.
struct RankTuple {
  Rank start = 0;
  std::vector<RankDim> dims;  // innermost (smallest stride) first once normalised

  Rank size() const;
  Rank first() const { return start; }
  Rank last() const;
  bool contains(Rank r) const;
  // True if the dimensions are sorted by stride and each stride exceeds the span below it.
  bool isNested() const;
  bool operator==(const RankTuple&) const = default;
};

class RankList {
 public:
  RankList() = default;
  explicit RankList(std::vector<RankTuple> tuples);  // normalises; tuples must be disjoint

  static RankList single(Rank r);
  static RankList progression(Rank start, Rank count, Rank stride = 1);
  static RankList all(Rank numRanks) { return progression(0, numRanks, 1); }
  // Builds the compressed form of an ascending, duplicate-free sequence (streamed, so the
  // sequence itself is never stored).
  static RankList fromAscending(const std::function<bool(Rank&)>& next);
  static RankList fromSorted(const std::vector<Rank>& ranks);
  // Builds a list from sections as read from a file, which may be anything: checks that no
  // section is empty and no rank is named twice (within a section or across sections), without
  // enumerating regular sections. Sections whose dimensions interleave are split into regular
  // ones, at most kMaxInterleavedPieces of them (a section that needs more is rejected: each
  // piece is a tuple in memory, and a 60-byte section could otherwise ask for millions);
  // overlapping sections that cannot be compared on their tuples are listed, up to
  // kMaxIrregularRanks ranks, and rejected beyond. On failure returns nullopt and says why in
  // `problem`. Numbers must fit 32 bits (the ScalaTrace format's `int`).
  static constexpr Rank kMaxIrregularRanks = Rank{1} << 16;
  static constexpr Rank kMaxInterleavedPieces = Rank{1} << 12;
  static std::optional<RankList> fromSections(const std::vector<RankTuple>& sections, std::string& problem);

  const std::vector<RankTuple>& tuples() const { return tuples_; }
  bool empty() const { return tuples_.empty(); }
  Rank size() const;
  bool contains(Rank r) const;
  std::optional<Rank> first() const;
  std::optional<Rank> last() const;
  // Position of r in ascending order (its rank within the set), or nullopt if absent.
  std::optional<Rank> indexOf(Rank r) const;
  // The i-th member in ascending order.
  Rank at(Rank index) const;

  // Calls f(rank) for every member in ascending order; stops early if f returns false.
  void forEach(const std::function<bool(Rank)>& f) const;
  std::vector<Rank> toVector() const;  // for tests and small lists only

  bool operator==(const RankList& other) const;
  bool isSubsetOf(const RankList& other) const;
  bool intersects(const RankList& other) const;
  static RankList unite(const RankList& a, const RankList& b);
  static RankList intersect(const RankList& a, const RankList& b);
  static RankList subtract(const RankList& a, const RankList& b);

  // Relative peers: { (r + offset) mod modulus : r in this list, 0 <= r < modulus } (members
  // outside [0, modulus) are dropped; offset may be negative or beyond modulus). Each tuple is
  // clipped at modulus - offset into O(dims) nested pieces that are moved, so a tuple that
  // wraps around splits into a few tuples (a multi-dimensional one row-wise at the wrap point)
  // and nothing is enumerated. modulus must be positive.
  RankList shifted(Rank offset, Rank modulus) const;

  static constexpr std::size_t kMaxPiecesPerOperation = std::size_t{1} << 20;
  static constexpr Rank kExactMembers = 256;

  // `<1 0 {4 1}> <2 5 {3 4} {2 1}>`: tracegen's text form.
  std::string str() const;
  // `0-3,5,7-9`: for people; long lists are abbreviated after maxItems runs.
  std::string pretty(std::size_t maxItems = 16) const;
  // ScalaTrace form: `count -d start iters stride ...`.
  std::string scalaTraceStr() const;

 private:
  void normalise();
  // The list of disjoint nested tuples `pieces`, recompressed (see the comment at the top).
  static RankList finish(std::vector<RankTuple> pieces);
  std::vector<RankTuple> tuples_;
};

// Ascending iterator over a RankList's members without materialising them.
class RankIterator {
 public:
  explicit RankIterator(const RankList& list);
  bool next(Rank& out);

 private:
  struct TupleWalk {
    const RankTuple* tuple;
    std::vector<Rank> digits;
    Rank value;
    bool done;
  };
  void advance(TupleWalk& w);
  std::vector<TupleWalk> walks_;
  // Min-heap of (next value, walk): a handful of tuples or thousands (a split interleaved
  // section), each rank costs O(log walks).
  std::vector<std::pair<Rank, std::size_t>> heap_;
  Rank lastEmitted_ = 0;
  bool any_ = false;
};

}  // namespace tracegen
