// RankList: a set of MPI ranks kept in ScalaTrace's compressed form, a union of
// n-dimensional regular sections `<dim start {iters stride}...>`.
//
// A million-rank list is a handful of integers; every query here works on the tuples and
// never on a vector of ranks. Each tuple is kept *nested* (dimensions sorted by stride, each
// stride larger than the span of the dimensions below it), which is what makes membership a
// digit decomposition and ascending enumeration a lexicographic walk. Tuples of one list are
// pairwise disjoint.
#pragma once

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
  // ones, which is only done up to kMaxIrregularRanks ranks; larger ones are rejected, as are
  // overlapping sections too large to check. On failure returns nullopt and says why in
  // `problem`. Numbers must fit 32 bits (the ScalaTrace format's `int`).
  static constexpr Rank kMaxIrregularRanks = Rank{1} << 20;
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

  // `<1 0 {4 1}> <2 5 {3 4} {2 1}>`: tracegen's text form.
  std::string str() const;
  // `0-3,5,7-9`: for people; long lists are abbreviated after maxItems runs.
  std::string pretty(std::size_t maxItems = 16) const;
  // ScalaTrace form: `count -d start iters stride ...`.
  std::string scalaTraceStr() const;

 private:
  void normalise();
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
  Rank lastEmitted_ = 0;
  bool any_ = false;
};

}  // namespace tracegen
