// RankList: membership and ordering by digit decomposition of nested tuples, and set operations
// on the tuples rather than on the ranks.
//
// Set operations go tuple pair by tuple pair (the tuples of one list are disjoint, so what is
// found for different pairs is disjoint too). Most pairs cost O(dims): equal tuples, a single
// rank (membership), or a contiguous tuple, which clips the other to a range (a nested tuple
// restricted to [lo, hi] is the outermost slices wholly inside, one tuple, plus the at most two
// slices cut by lo and hi, recursively). Tuples whose outermost dimensions have the same stride
// S (blocks of one grid), or where a long progression can be cut into rows of the other's S
// (a stride dividing S), are series of rows at distance S: row k of one meets rows k + c and
// k + c + 1 of the other only, always at the same relative offset, so the pair of rows is
// operated on once (recursively) per range of k over which the partner rows exist, and the
// result repeated with one more dimension. Any other pair is cut, within the range both share,
// into arithmetic progressions along each tuple's longest dimension; the sorted lists of
// progressions are swept for pairs whose ranges overlap, two progressions intersect in a
// progression (common residue by the Chinese remainder theorem, period the lcm of the
// strides), and taking a sub-progression out of a progression leaves the parts before and
// after it and either the runs between its members or one progression per offset, whichever
// is fewer. Subtraction takes b's tuples away one after the other; union is a plus (b minus
// a). Results are recompressed: progressions that continue one another fuse, equal ones at a
// constant distance become one more dimension, and appendMerged (the folding fromAscending
// applies to runs) joins the rest; small results are rebuilt by fromAscending itself so that
// they keep the form the enumerating implementation gave them. Cuts into progressions count
// against a budget of kMaxPiecesPerOperation; an operation that would exceed it enumerates the
// ranks instead (combine()), which only irregular or extremely fine-grained lists reach.
#include "ir/RankList.h"

#include <algorithm>
#include <fmt/format.h>
#include <limits>
#include <numeric>
#include <optional>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <utility>

namespace tracegen {

// ---------------------------------------------------------------------------------------------
// RankTuple

Rank RankTuple::size() const {
  Rank n = 1;
  for (const auto& d : dims) n *= d.iters;
  return n;
}

Rank RankTuple::last() const {
  Rank v = start;
  for (const auto& d : dims) v += (d.iters - 1) * d.stride;
  return v;
}

bool RankTuple::isNested() const {
  Rank span = 0;
  for (const auto& d : dims) {
    if (d.iters < 2 || d.stride <= span) return false;
    span += (d.iters - 1) * d.stride;
  }
  return true;
}

bool RankTuple::contains(Rank r) const {
  Rank d = r - start;
  if (d < 0) return false;
  for (auto it = dims.rbegin(); it != dims.rend(); ++it) {
    Rank k = d / it->stride;
    if (k >= it->iters) return false;
    d -= k * it->stride;
  }
  return d == 0;
}

namespace {

// Number of members of a nested tuple that are < r (dims[0..nd) only, starting at `start`).
Rank countLess(const RankTuple& t, std::size_t nd, Rank start, Rank r) {
  if (r <= start) return 0;
  if (nd == 0) return 1;
  const RankDim& outer = t.dims[nd - 1];
  Rank innerSize = 1;
  for (std::size_t i = 0; i + 1 < nd; ++i) innerSize *= t.dims[i].iters;
  Rank k = (r - start) / outer.stride;
  if (k >= outer.iters) return outer.iters * innerSize;
  return k * innerSize + countLess(t, nd - 1, start + k * outer.stride, r);
}

Rank countLess(const RankTuple& t, Rank r) { return countLess(t, t.dims.size(), t.start, r); }

// Puts a raw tuple's dimensions in canonical order: empty or trivial dimensions dropped,
// descending strides turned around, sorted by stride, contiguous dimensions fused ({4 1}{2 4}
// is {8 1}). Returns false if the tuple is empty (a dimension of no iterations).
bool canonicalise(RankTuple& t) {
  std::vector<RankDim> dims;
  for (auto d : t.dims) {
    if (d.iters <= 0) return false;
    if (d.iters == 1 || d.stride == 0) continue;
    if (d.stride < 0) {
      t.start += (d.iters - 1) * d.stride;
      d.stride = -d.stride;
    }
    dims.push_back(d);
  }
  std::stable_sort(dims.begin(), dims.end(), [](const RankDim& a, const RankDim& b) { return a.stride < b.stride; });
  std::vector<RankDim> fused;
  for (const auto& d : dims) {
    if (!fused.empty() && d.stride == fused.back().iters * fused.back().stride) {
      fused.back().iters *= d.iters;
    } else {
      fused.push_back(d);
    }
  }
  t.dims = std::move(fused);
  return true;
}

// How many nested tuples nestTuple splits t into: every piece has the same shape (only its start
// differs), so the count is the product of the trip counts of the outer dimensions it splits
// along, found in O(dims) without making the pieces. Saturates above `limit`.
Rank nestedPieces(RankTuple t, Rank limit) {
  Rank pieces = 1;
  if (!canonicalise(t)) return 0;
  while (!t.dims.empty() && !t.isNested()) {
    pieces *= t.dims.back().iters;  // both at most 2^31: no overflow before the check
    if (pieces > limit) return limit + 1;
    t.dims.pop_back();
    canonicalise(t);
  }
  return pieces;
}

// Makes one raw tuple nested; a tuple whose dimensions interleave is split along its outermost
// dimension (only malformed or exotic input does that).
void nestTuple(RankTuple t, std::vector<RankTuple>& out) {
  if (!canonicalise(t)) return;  // empty section
  if (t.dims.empty() || t.isNested()) {
    out.push_back(std::move(t));
    return;
  }
  RankDim outer = t.dims.back();
  t.dims.pop_back();
  for (Rank k = 0; k < outer.iters; ++k) {
    RankTuple piece = t;
    piece.start += k * outer.stride;
    nestTuple(std::move(piece), out);
  }
}

// Tries to fold b into a (nested, disjoint, a.start < b.start) so that a becomes the union,
// again one nested tuple in canonical form: a tuple continuing a's outermost progression
// extends it, a tuple that a continues backwards takes it in, and equal shapes at a regular
// distance become one more dimension (which may interleave: evens and odds make a block).
bool tryMerge(RankTuple& a, const RankTuple& b) {
  if (b.start > a.last() && !a.dims.empty()) {
    const RankDim& outer = a.dims.back();
    Rank next = a.start + outer.iters * outer.stride;
    if (b.start == next) {
      if (std::equal(a.dims.begin(), a.dims.end() - 1, b.dims.begin(), b.dims.end())) {
        a.dims.back().iters += 1;
        return true;
      }
      if (!b.dims.empty() && b.dims.back().stride == outer.stride && b.dims.size() == a.dims.size() &&
          std::equal(a.dims.begin(), a.dims.end() - 1, b.dims.begin(), b.dims.end() - 1)) {
        a.dims.back().iters += b.dims.back().iters;
        return true;
      }
    }
  }
  if (!b.dims.empty() && a.start + b.dims.back().stride == b.start &&
      std::equal(b.dims.begin(), b.dims.end() - 1, a.dims.begin(), a.dims.end())) {
    Rank start = a.start;
    a = b;
    a.start = start;
    a.dims.back().iters += 1;
    return true;
  }
  if (a.dims == b.dims) {
    RankTuple m = a;
    m.dims.push_back({2, b.start - a.start});
    canonicalise(m);
    if (m.isNested()) {
      a = std::move(m);
      return true;
    }
  }
  return false;
}

// Appends t (starting after every tuple of out) and folds it, and then the tuples it merged
// into, into their predecessors while that succeeds.
void appendMerged(std::vector<RankTuple>& out, RankTuple t) {
  if (!out.empty() && tryMerge(out.back(), t)) {
    while (out.size() >= 2 && tryMerge(out[out.size() - 2], out.back())) out.pop_back();
    return;
  }
  out.push_back(std::move(t));
}

bool isContiguous(const RankTuple& t) { return t.dims.empty() || (t.dims.size() == 1 && t.dims[0].stride == 1); }

// Members of t in [lo, hi].
Rank countBetween(const RankTuple& t, Rank lo, Rank hi) {
  if (hi < lo) return 0;
  return countLess(t, hi + 1) - countLess(t, lo);
}

// Calls f for the members of one nested tuple in ascending order while it returns true;
// returns false if f stopped the walk.
bool forEachInTuple(const RankTuple& t, const std::function<bool(Rank)>& f) {
  std::vector<Rank> digits(t.dims.size(), 0);
  Rank v = t.start;
  for (;;) {
    if (!f(v)) return false;
    std::size_t j = 0;
    for (; j < t.dims.size(); ++j) {
      if (++digits[j] < t.dims[j].iters) {
        v += t.dims[j].stride;
        break;
      }
      v -= (t.dims[j].iters - 1) * t.dims[j].stride;
      digits[j] = 0;
    }
    if (j == t.dims.size()) return true;
  }
}

bool tuplesIntersect(const RankTuple& a, const RankTuple& b) {
  if (a.last() < b.first() || b.last() < a.first()) return false;
  if (isContiguous(b)) return countBetween(a, b.first(), b.last()) > 0;
  if (isContiguous(a)) return countBetween(b, a.first(), a.last()) > 0;
  const RankTuple& small = a.size() <= b.size() ? a : b;
  const RankTuple& big = &small == &a ? b : a;
  return !forEachInTuple(small, [&](Rank r) { return !big.contains(r); });
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// RankList

RankList::RankList(std::vector<RankTuple> tuples) : tuples_(std::move(tuples)) { normalise(); }

void RankList::normalise() {
  std::vector<RankTuple> nested;
  for (auto& t : tuples_) nestTuple(std::move(t), nested);
  std::sort(nested.begin(), nested.end(), [](const RankTuple& a, const RankTuple& b) {
    return a.start < b.start;
  });
  std::vector<RankTuple> merged;
  for (auto& t : nested) appendMerged(merged, std::move(t));
  tuples_ = std::move(merged);
}

RankList RankList::single(Rank r) { return RankList({RankTuple{r, {}}}); }

RankList RankList::progression(Rank start, Rank count, Rank stride) {
  if (count <= 0) return RankList();
  return RankList({RankTuple{start, {{count, stride}}}});
}

RankList RankList::fromAscending(const std::function<bool(Rank&)>& next) {
  // Maximal runs of consecutive ranks, each folded into the tuples before it as it completes:
  // runs of equal shape at regular distances become progressions and blocks.
  RankList out;
  Rank v = 0;
  bool open = false;
  Rank runStart = 0, runLen = 0;
  auto flush = [&] {
    RankTuple t{runStart, {}};
    if (runLen > 1) t.dims.push_back({runLen, 1});
    appendMerged(out.tuples_, std::move(t));
  };
  while (next(v)) {
    if (open && v == runStart + runLen) {
      ++runLen;
      continue;
    }
    if (open) {
      if (v < runStart + runLen) throw std::invalid_argument("RankList::fromAscending: sequence not ascending");
      flush();
    }
    runStart = v;
    runLen = 1;
    open = true;
  }
  if (open) flush();
  return out;
}

RankList RankList::fromSorted(const std::vector<Rank>& ranks) {
  std::size_t i = 0;
  return fromAscending([&](Rank& r) {
    if (i == ranks.size()) return false;
    r = ranks[i++];
    return true;
  });
}

// Whether two nested tuples share a rank, decided on the tuples (defined with the set operations
// below); nullopt when that would cut more progressions than the budget allows.
static std::optional<bool> nestedTuplesShareARank(const RankTuple& a, const RankTuple& b);

// A cluster of sections whose ranges overlap (evens and odds of a million ranks, the rows of a
// grid interleaved with its columns) is checked pair by pair on the tuples when it has few
// sections, at a cost that follows the sections, not their ranks. Undecided (many sections, or
// pairs too fine-grained for the budget) leaves the decision to the enumeration.
enum class Overlap { Disjoint, Shared, Undecided };
static Overlap clusterOverlap(const std::vector<RankTuple>& pieces, std::size_t begin, std::size_t end) {
  constexpr std::size_t kMaxSymbolicSections = 64;  // 2,016 pairs at most
  if (end - begin > kMaxSymbolicSections) return Overlap::Undecided;
  for (std::size_t a = begin; a < end; ++a)
    for (std::size_t b = a + 1; b < end; ++b) {
      const std::optional<bool> shared = nestedTuplesShareARank(pieces[a], pieces[b]);
      if (!shared) return Overlap::Undecided;
      if (*shared) return Overlap::Shared;
    }
  return Overlap::Disjoint;
}

std::optional<RankList> RankList::fromSections(const std::vector<RankTuple>& sections, std::string& problem) {
  constexpr Rank kLimit = Rank{1} << 31;
  std::vector<RankTuple> pieces;
  for (std::size_t i = 0; i < sections.size(); ++i) {
    RankTuple t = sections[i];
    const std::string which = sections.size() > 1 ? fmt::format("section {} ", i + 1) : std::string();
    if (t.start < -kLimit || t.start > kLimit) {
      problem = fmt::format("{}starts at {}, beyond 32 bits", which, t.start);
      return std::nullopt;
    }
    Rank size = 1;
    for (const auto& d : t.dims) {
      if (d.iters < 1 || d.iters > kLimit || d.stride < -kLimit || d.stride > kLimit) {
        problem = fmt::format("{}has a dimension of {} iterations with stride {}", which, d.iters, d.stride);
        return std::nullopt;
      }
      if (d.iters > 1 && d.stride == 0) {
        problem = fmt::format("{}names a rank more than once (a dimension of {} iterations with stride 0)", which, d.iters);
        return std::nullopt;
      }
      size *= d.iters;  // at most 16 factors of 2^31 would overflow: bound it first
      if (size > kLimit) {
        problem = fmt::format("{}has more than 2^31 members", which);
        return std::nullopt;
      }
    }
    if (!canonicalise(t)) continue;
    if (t.dims.empty() || t.isNested()) {
      pieces.push_back(std::move(t));
    } else {
      if (nestedPieces(t, kMaxInterleavedPieces) > kMaxInterleavedPieces) {
        problem = fmt::format("{}interleaves its dimensions ({} ranks) into more than the {} regular sections tracegen splits a section into",
                              which, t.size(), kMaxInterleavedPieces);
        return std::nullopt;
      }
      nestTuple(std::move(t), pieces);
    }
  }
  // A nested tuple names each of its ranks once; tuples can only share ranks if their ranges
  // overlap, and only then (for each cluster of overlapping ranges) do we compare them, on the
  // tuples where we can (clusterOverlap), by their members where we cannot.
  std::sort(pieces.begin(), pieces.end(), [](const RankTuple& a, const RankTuple& b) { return a.start < b.start; });
  for (std::size_t i = 0; i < pieces.size();) {
    std::size_t j = i + 1;
    Rank maxLast = pieces[i].last(), members = pieces[i].size();
    for (; j < pieces.size() && pieces[j].start <= maxLast; ++j) {
      maxLast = std::max(maxLast, pieces[j].last());
      members += pieces[j].size();
    }
    const Overlap overlap = j - i > 1 ? clusterOverlap(pieces, i, j) : Overlap::Disjoint;
    if (overlap == Overlap::Shared) {
      problem = "names a rank more than once (overlapping sections)";
      return std::nullopt;
    }
    if (overlap == Overlap::Undecided) {
      if (members > kMaxIrregularRanks) {
        problem = fmt::format("has overlapping sections of {} ranks, more than the {} tracegen checks for repeated ranks",
                              members, kMaxIrregularRanks);
        return std::nullopt;
      }
      // At most kMaxIrregularRanks members: listed and sorted, O(M log M) whatever the number
      // of pieces (a merge over the pieces' walks costs members x pieces, which a split
      // interleaved section makes large).
      std::vector<Rank> all;
      all.reserve(static_cast<std::size_t>(members));
      for (std::size_t k = i; k < j; ++k)
        forEachInTuple(pieces[k], [&](Rank r) {
          all.push_back(r);
          return true;
        });
      std::sort(all.begin(), all.end());
      const Rank distinct = static_cast<Rank>(std::unique(all.begin(), all.end()) - all.begin());
      if (distinct != members) {
        problem = fmt::format("names a rank more than once ({} repetitions in overlapping sections)", members - distinct);
        return std::nullopt;
      }
    }
    i = j;
  }
  RankList out;
  out.tuples_ = std::move(pieces);
  out.normalise();
  return out;
}

Rank RankList::size() const {
  Rank n = 0;
  for (const auto& t : tuples_) n += t.size();
  return n;
}

bool RankList::contains(Rank r) const {
  for (const auto& t : tuples_)
    if (t.contains(r)) return true;
  return false;
}

std::optional<Rank> RankList::first() const {
  if (tuples_.empty()) return std::nullopt;
  return tuples_.front().start;  // sorted by start
}

std::optional<Rank> RankList::last() const {
  if (tuples_.empty()) return std::nullopt;
  Rank m = tuples_.front().last();
  for (const auto& t : tuples_) m = std::max(m, t.last());
  return m;
}

std::optional<Rank> RankList::indexOf(Rank r) const {
  if (!contains(r)) return std::nullopt;
  Rank idx = 0;
  for (const auto& t : tuples_) idx += countLess(t, r);
  return idx;
}

Rank RankList::at(Rank index) const {
  if (index < 0 || index >= size()) throw std::out_of_range("RankList::at");
  // Smallest v with (number of members <= v) > index.
  Rank lo = *first(), hi = *last();
  while (lo < hi) {
    Rank mid = lo + (hi - lo) / 2;
    Rank le = 0;
    for (const auto& t : tuples_) le += countLess(t, mid + 1);
    if (le > index) hi = mid; else lo = mid + 1;
  }
  return lo;
}

void RankList::forEach(const std::function<bool(Rank)>& f) const {
  RankIterator it(*this);
  Rank r;
  while (it.next(r))
    if (!f(r)) return;
}

std::vector<Rank> RankList::toVector() const {
  std::vector<Rank> v;
  forEach([&](Rank r) {
    v.push_back(r);
    return true;
  });
  return v;
}

// ---------------------------------------------------------------------------------------------
// Set operations on the tuples (the algorithm is described at the top of this file).

namespace {

__extension__ typedef __int128 Wide;  // products of a rank and a stride exceed 64 bits

Rank floorDiv(Rank a, Rank b) {  // b > 0
  Rank q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}
Rank ceilDiv(Rank a, Rank b) { return -floorDiv(-a, b); }  // b > 0

// One arithmetic progression start, start + stride, ..., count members; stride is 1 when
// count is 1 so that equal sets are equal structs.
struct Prog {
  Rank start = 0;
  Rank count = 1;
  Rank stride = 1;
  Rank last() const { return start + (count - 1) * stride; }
};

Prog makeProg(Rank start, Rank count, Rank stride) { return count == 1 ? Prog{start, 1, 1} : Prog{start, count, stride}; }

RankTuple toTuple(const Prog& p) {
  RankTuple t{p.start, {}};
  if (p.count > 1) t.dims.push_back({p.count, p.stride});
  return t;
}

// Thrown when an operation would cut more than kMaxPiecesPerOperation progressions; the public
// operation then enumerates instead.
struct OverBudget {};

struct Budget {
  std::size_t left = RankList::kMaxPiecesPerOperation;
  void take(Rank n) {
    if (n < 0 || static_cast<std::size_t>(n) > left) throw OverBudget{};
    left -= static_cast<std::size_t>(n);
  }
};

// The members of t's dimensions dims[0..nd) from `start` that lie in [lo, hi], as at most
// 2*nd + 1 nested tuples in ascending order. Slices of the outermost dimension that lie wholly
// inside make one tuple; the (at most two) slices cut by lo or hi recurse.
void clipRec(const RankTuple& t, std::size_t nd, Rank start, Rank lo, Rank hi, std::vector<RankTuple>& out) {
  Rank span = 0;
  for (std::size_t i = 0; i < nd; ++i) span += (t.dims[i].iters - 1) * t.dims[i].stride;
  if (start + span < lo || start > hi) return;
  if (lo <= start && start + span <= hi) {
    RankTuple piece{start, std::vector<RankDim>(t.dims.begin(), t.dims.begin() + static_cast<std::ptrdiff_t>(nd))};
    out.push_back(std::move(piece));
    return;
  }
  const RankDim outer = t.dims[nd - 1];
  const Rank inner = span - (outer.iters - 1) * outer.stride;  // span of one slice
  const Rank kLo = std::max<Rank>(0, ceilDiv(lo - inner - start, outer.stride));
  const Rank kHi = std::min<Rank>(outer.iters - 1, floorDiv(hi - start, outer.stride));
  if (kLo > kHi) return;
  const bool loCut = start + kLo * outer.stride < lo;           // slice kLo reaches below lo
  const bool hiCut = start + kHi * outer.stride + inner > hi;   // slice kHi reaches above hi
  auto slices = [&](Rank k0, Rank k1) {  // slices k0..k1, wholly inside, as one tuple
    RankTuple piece{start + k0 * outer.stride,
                    std::vector<RankDim>(t.dims.begin(), t.dims.begin() + static_cast<std::ptrdiff_t>(nd - 1))};
    if (k1 > k0) piece.dims.push_back({k1 - k0 + 1, outer.stride});
    out.push_back(std::move(piece));
  };
  if (kLo == kHi) {
    if (loCut || hiCut) clipRec(t, nd - 1, start + kLo * outer.stride, lo, hi, out);
    else slices(kLo, kLo);
    return;
  }
  if (loCut) clipRec(t, nd - 1, start + kLo * outer.stride, lo, hi, out);
  const Rank kA = loCut ? kLo + 1 : kLo, kB = hiCut ? kHi - 1 : kHi;
  if (kA <= kB) slices(kA, kB);
  if (hiCut) clipRec(t, nd - 1, start + kHi * outer.stride, lo, hi, out);
}

std::vector<RankTuple> clip(const RankTuple& t, Rank lo, Rank hi) {
  std::vector<RankTuple> out;
  clipRec(t, t.dims.size(), t.start, lo, hi, out);
  return out;
}

// Cuts nested tuple t into progressions along its longest dimension (fewest pieces), appended
// to out in no particular order.
void cutInto(const RankTuple& t, std::vector<Prog>& out, Budget& budget) {
  if (t.dims.empty()) {
    budget.take(1);
    out.push_back({t.start, 1, 1});
    return;
  }
  std::size_t j = 0;
  for (std::size_t i = 1; i < t.dims.size(); ++i)
    if (t.dims[i].iters > t.dims[j].iters) j = i;
  budget.take(t.size() / t.dims[j].iters);
  std::vector<Rank> digits(t.dims.size(), 0);
  Rank v = t.start;
  for (;;) {
    out.push_back(makeProg(v, t.dims[j].iters, t.dims[j].stride));
    std::size_t i = 0;
    for (; i < t.dims.size(); ++i) {
      if (i == j) continue;
      if (++digits[i] < t.dims[i].iters) {
        v += t.dims[i].stride;
        break;
      }
      v -= (t.dims[i].iters - 1) * t.dims[i].stride;
      digits[i] = 0;
    }
    if (i == t.dims.size()) return;
  }
}

std::vector<Prog> cut(const std::vector<RankTuple>& tuples, Budget& budget) {
  std::vector<Prog> out;
  for (const auto& t : tuples) cutInto(t, out, budget);
  std::sort(out.begin(), out.end(), [](const Prog& a, const Prog& b) { return a.start < b.start; });
  return out;
}

// Inverse of a modulo m (gcd(a, m) = 1, m > 1), by the extended Euclidean algorithm.
Rank modInverse(Rank a, Rank m) {
  Rank g = m, x = 0, g1 = a, x1 = 1;
  while (g1 != 0) {
    const Rank q = g / g1;
    std::tie(g, g1) = std::make_pair(g1, g - q * g1);
    std::tie(x, x1) = std::make_pair(x1, x - q * x1);
  }
  return ((x % m) + m) % m;
}

// The intersection of two progressions is a progression (Chinese remainder theorem): the
// common members are x0 + k*lcm for one common member x0, clipped to the common range.
std::optional<Prog> intersectProgs(const Prog& p, const Prog& q) {
  const Rank lo = std::max(p.start, q.start), hi = std::min(p.last(), q.last());
  if (lo > hi) return std::nullopt;
  const Rank g = std::gcd(p.stride, q.stride);
  const Rank diff = q.start - p.start;
  if (diff % g != 0) return std::nullopt;
  const Rank m = q.stride / g;
  // p.start + p.stride*k is in q's residue class iff (p.stride/g)*k = diff/g (mod m).
  Rank k = 0;
  if (m > 1) {
    const Rank d = ((diff / g) % m + m) % m;
    k = static_cast<Rank>(static_cast<Wide>(d) * modInverse((p.stride / g) % m, m) % m);
  }
  const Wide lcm = static_cast<Wide>(p.stride / g) * q.stride;
  const Wide x0 = static_cast<Wide>(p.start) + static_cast<Wide>(p.stride) * k;
  Wide steps = (static_cast<Wide>(lo) - x0) / lcm;
  if (x0 + steps * lcm < lo) ++steps;
  const Wide x = x0 + steps * lcm;
  if (x > hi) return std::nullopt;
  const Rank first = static_cast<Rank>(x);
  if (lcm > hi - first) return Prog{first, 1, 1};
  const Rank step = static_cast<Rank>(lcm);
  return Prog{first, (hi - first) / step + 1, step};
}

// p without r, where r is a non-empty sub-progression of p (r's stride a multiple m of p's):
// the members before and after r, and between r's members either m-1 progressions of r's
// stride (one per offset) or count(r)-1 runs of p's stride, whichever is fewer.
void subtractProg(const Prog& p, const Prog& r, std::vector<Prog>& out) {
  const Rank sp = p.stride;
  const Rank i0 = (r.start - p.start) / sp;
  const Rank k = r.count;
  const Rank m = k == 1 ? 1 : r.stride / sp;
  const Rank lastIdx = i0 + (k - 1) * m;
  if (i0 > 0) out.push_back(makeProg(p.start, i0, sp));
  if (k >= 2 && m >= 2) {
    if (m - 1 <= k - 1) {
      for (Rank o = 1; o < m; ++o) out.push_back(makeProg(p.start + (i0 + o) * sp, k - 1, m * sp));
    } else {
      for (Rank j = 0; j + 1 < k; ++j) out.push_back(makeProg(p.start + (i0 + j * m + 1) * sp, m - 1, sp));
    }
  }
  if (lastIdx + 1 < p.count) out.push_back(makeProg(p.start + (lastIdx + 1) * sp, p.count - lastIdx - 1, sp));
}

// Calls f(i, j) for every pair of progressions of P and Q (each sorted by start) whose ranges
// overlap, by a sweep over the starts that keeps the pieces still open on each side; stops and
// returns false as soon as f does.
template <typename F>
bool overlappingPairs(const std::vector<Prog>& P, const std::vector<Prog>& Q, Budget& budget, F&& f) {
  std::vector<std::size_t> openP, openQ;
  std::size_t i = 0, j = 0;
  auto prune = [](std::vector<std::size_t>& open, const std::vector<Prog>& side, Rank at) {
    std::erase_if(open, [&](std::size_t x) { return side[x].last() < at; });
  };
  while (i < P.size() || j < Q.size()) {
    if (j == Q.size() || (i < P.size() && P[i].start <= Q[j].start)) {
      prune(openQ, Q, P[i].start);
      budget.take(static_cast<Rank>(openQ.size()));
      for (std::size_t q : openQ)
        if (!f(i, q)) return false;
      openP.push_back(i++);
    } else {
      prune(openP, P, Q[j].start);
      budget.take(static_cast<Rank>(openP.size()));
      for (std::size_t p : openP)
        if (!f(p, j)) return false;
      openQ.push_back(j++);
    }
  }
  return true;
}

bool overlapRange(const RankTuple& t, const RankTuple& u) { return !(t.last() < u.first() || u.last() < t.first()); }

// Takes each of the disjoint sub-progressions rs out of p. When their ranges follow one another
// (rows of a block) one pass does it; otherwise each is taken from whichever piece holds it.
void subtractMany(const Prog& p, std::vector<Prog> rs, std::vector<Prog>& out, Budget& budget) {
  std::sort(rs.begin(), rs.end(), [](const Prog& a, const Prog& b) { return a.start < b.start; });
  bool ordered = true;
  for (std::size_t i = 1; i < rs.size(); ++i) ordered = ordered && rs[i - 1].last() < rs[i].start;
  if (ordered) {
    const Rank sp = p.stride;
    Rank from = p.start;  // first member of p neither emitted nor taken out
    for (const auto& r : rs) {
      if (r.start > from) out.push_back(makeProg(from, (r.start - from) / sp, sp));
      subtractProg(makeProg(r.start, (r.last() - r.start) / sp + 1, sp), r, out);
      from = r.last() + sp;
    }
    if (from <= p.last()) out.push_back(makeProg(from, (p.last() - from) / sp + 1, sp));
    budget.take(static_cast<Rank>(rs.size()));
    return;
  }
  std::vector<Prog> left{p};
  for (const auto& r : rs) {
    std::vector<Prog> next;
    for (const auto& piece : left) {
      if (auto x = intersectProgs(piece, r)) subtractProg(piece, *x, next);
      else next.push_back(piece);
    }
    budget.take(static_cast<Rank>(next.size()));
    left = std::move(next);
  }
  out.insert(out.end(), left.begin(), left.end());
}

// A set seen as `count` copies of `proto` (whose span is below step) at distance `step`: the
// outermost dimension of a tuple, or a long progression cut into rows of another tuple's
// outermost stride. Two series of equal step meet row against row at a constant offset, so one
// operation on a pair of rows gives the result for all of them.
struct Series {
  RankTuple proto;
  Rank count = 1;
  Rank step = 1;
};

std::optional<Series> asSeries(const RankTuple& t, Rank step) {
  if (!t.dims.empty() && t.dims.back().stride == step) {
    Series s{t, t.dims.back().iters, step};
    s.proto.dims.pop_back();
    return s;
  }
  if (t.last() - t.first() < step) return Series{t, 1, step};
  return std::nullopt;
}

// A 1-D progression whose stride divides step, as full rows of length step and what is left
// after them (the tail, possibly empty).
std::optional<std::pair<Series, std::vector<RankTuple>>> reshape(const RankTuple& t, Rank step) {
  if (t.dims.size() != 1 || step % t.dims[0].stride != 0) return std::nullopt;
  const Rank perRow = step / t.dims[0].stride, s = t.dims[0].stride;
  const Rank rows = t.dims[0].iters / perRow;
  if (rows < 2) return std::nullopt;
  Series body{RankTuple{t.start, {}}, rows, step};
  if (perRow > 1) body.proto.dims.push_back({perRow, s});
  std::vector<RankTuple> tail;
  const Rank rest = t.dims[0].iters - rows * perRow;
  if (rest > 0) {
    tail.push_back(RankTuple{t.start + rows * step, {}});
    if (rest > 1) tail.back().dims.push_back({rest, s});
  }
  return std::make_pair(std::move(body), std::move(tail));
}

void intersectTuples(const RankTuple& t, const RankTuple& u, std::vector<RankTuple>& out, Budget& budget,
                     bool stopAtFirst = false);
void subtractPair(const RankTuple& t, const RankTuple& u, std::vector<RankTuple>& out, Budget& budget);

// Row k of a meets rows k + c and k + c + 1 of b only (spans below the step), c the row offset
// of their starts; calls f(k0, k1, partners at row k0) for the ranges of k over which the
// partners that exist stay the same.
template <typename F>
void alignSeries(const Series& a, const Series& b, F&& f) {
  const Rank S = a.step;
  const Rank c = floorDiv(a.proto.start - b.proto.start, S);
  std::vector<Rank> cuts{0, a.count};
  for (Rank cc : {c, c + 1})
    for (Rank k : {-cc, b.count - cc})
      if (k > 0 && k < a.count) cuts.push_back(k);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const Rank k0 = cuts[i], k1 = cuts[i + 1];
    std::vector<RankTuple> partners;
    for (Rank cc : {c, c + 1}) {
      if (k0 + cc < 0 || k0 + cc >= b.count) continue;
      RankTuple p = b.proto;
      p.start += (k0 + cc) * S;
      partners.push_back(std::move(p));
    }
    RankTuple row = a.proto;
    row.start += k0 * S;
    f(k0, k1, row, partners);
  }
}

// Repeats each tuple of `rows` (found for the row at k0) over rows k0..k1-1.
void repeatRows(std::vector<RankTuple>& rows, Rank count, Rank step, std::vector<RankTuple>& out) {
  for (auto& r : rows) {
    if (count > 1) {
      r.dims.push_back({count, step});
      canonicalise(r);  // a whole row repeated at its own length is one longer row
    }
    out.push_back(std::move(r));
  }
}

void intersectSeries(const Series& a, const Series& b, std::vector<RankTuple>& out, Budget& budget) {
  alignSeries(a, b, [&](Rank k0, Rank k1, const RankTuple& row, const std::vector<RankTuple>& partners) {
    budget.take(static_cast<Rank>(partners.size()) + 1);  // deep series recurse per level: bound them too
    std::vector<RankTuple> found;
    for (const auto& p : partners) intersectTuples(row, p, found, budget);
    repeatRows(found, k1 - k0, a.step, out);
  });
}

void subtractSeries(const Series& a, const Series& b, std::vector<RankTuple>& out, Budget& budget) {
  alignSeries(a, b, [&](Rank k0, Rank k1, const RankTuple& row, const std::vector<RankTuple>& partners) {
    budget.take(static_cast<Rank>(partners.size()) + 1);
    std::vector<RankTuple> left{row};
    for (const auto& p : partners) {
      std::vector<RankTuple> next;
      for (const auto& piece : left) subtractPair(piece, p, next, budget);
      left = std::move(next);
    }
    repeatRows(left, k1 - k0, a.step, out);
  });
}

// t and u as series of a common step: either's outermost stride, or a long progression of
// one cut into rows of the other's (its tail returned apart). Returns false if neither works.
struct SeriesPair {
  Series a, b;
  std::vector<RankTuple> aTail, bTail;
};
std::optional<SeriesPair> commonSeries(const RankTuple& t, const RankTuple& u) {
  if (t.dims.empty() || u.dims.empty()) return std::nullopt;
  for (Rank step : {t.dims.back().stride, u.dims.back().stride}) {
    auto st = asSeries(t, step), su = asSeries(u, step);
    if (st && su && (st->count > 1 || su->count > 1)) return SeriesPair{*st, *su, {}, {}};
    if (st && st->count > 1 && !su) {
      if (auto r = reshape(u, step)) return SeriesPair{*st, r->first, {}, r->second};
    }
    if (su && su->count > 1 && !st) {
      if (auto r = reshape(t, step)) return SeriesPair{r->first, *su, r->second, {}};
    }
  }
  return std::nullopt;
}

// The members of both tuples' ranges as progressions, and the overlapping pairs among them.
void intersectByPieces(const RankTuple& t, const RankTuple& u, std::vector<RankTuple>& out, Budget& budget,
                       bool stopAtFirst) {
  const std::vector<Prog> P = cut(clip(t, u.first(), u.last()), budget);
  const std::vector<Prog> Q = cut(clip(u, t.first(), t.last()), budget);
  overlappingPairs(P, Q, budget, [&](std::size_t i, std::size_t j) {
    if (auto x = intersectProgs(P[i], Q[j])) {
      out.push_back(toTuple(*x));
      return !stopAtFirst;
    }
    return true;
  });
}

// t ∩ u for two nested tuples, appended to out as disjoint nested tuples. With stopAtFirst only
// emptiness matters, and the work may stop at the first common member.
void intersectTuples(const RankTuple& t, const RankTuple& u, std::vector<RankTuple>& out, Budget& budget,
                     bool stopAtFirst) {
  if (!overlapRange(t, u)) return;
  if (t == u) {
    out.push_back(t);
  } else if (u.dims.empty() || t.dims.empty()) {
    const RankTuple& one = u.dims.empty() ? u : t;
    const RankTuple& other = u.dims.empty() ? t : u;
    if (other.contains(one.start)) out.push_back(one);
  } else if (isContiguous(u) || isContiguous(t)) {
    const RankTuple& range = isContiguous(u) ? u : t;
    const RankTuple& other = isContiguous(u) ? t : u;
    std::vector<RankTuple> c = clip(other, range.first(), range.last());
    out.insert(out.end(), c.begin(), c.end());
  } else if (auto sp = commonSeries(t, u)) {
    intersectSeries(sp->a, sp->b, out, budget);
    for (const auto& tail : sp->aTail) intersectTuples(tail, u, out, budget, stopAtFirst);
    for (const auto& tail : sp->bTail) intersectTuples(t, tail, out, budget, stopAtFirst);
  } else {
    intersectByPieces(t, u, out, budget, stopAtFirst);
  }
}

// t \ u by progressions: t's members in u's range cut into progressions, u's in t's range
// likewise, and the common parts taken out of t's.
void subtractByPieces(const RankTuple& t, const RankTuple& u, std::vector<RankTuple>& out, Budget& budget) {
  for (auto& outside : clip(t, std::numeric_limits<Rank>::min() / 4, u.first() - 1)) out.push_back(std::move(outside));
  for (auto& outside : clip(t, u.last() + 1, std::numeric_limits<Rank>::max() / 4)) out.push_back(std::move(outside));
  const std::vector<Prog> P = cut(clip(t, u.first(), u.last()), budget);
  const std::vector<Prog> Q = cut(clip(u, t.first(), t.last()), budget);
  std::vector<std::vector<Prog>> common(P.size());
  overlappingPairs(P, Q, budget, [&](std::size_t i, std::size_t j) {
    if (auto x = intersectProgs(P[i], Q[j])) common[i].push_back(*x);
    return true;
  });
  std::vector<Prog> left;
  for (std::size_t i = 0; i < P.size(); ++i) {
    if (common[i].empty()) left.push_back(P[i]);
    else subtractMany(P[i], std::move(common[i]), left, budget);
  }
  for (const auto& piece : left) out.push_back(toTuple(piece));
}

// t \ u for two nested tuples, appended to out as disjoint nested tuples.
void subtractPair(const RankTuple& t, const RankTuple& u, std::vector<RankTuple>& out, Budget& budget) {
  if (!overlapRange(t, u)) {
    out.push_back(t);
  } else if (t == u) {
  } else if (t.dims.empty()) {
    if (!u.contains(t.start)) out.push_back(t);
  } else if (u.dims.empty() || isContiguous(u)) {
    if (u.dims.empty() && !t.contains(u.start)) {
      out.push_back(t);
      return;
    }
    // What lies on either side of u's range.
    for (auto& c : clip(t, std::numeric_limits<Rank>::min() / 4, u.first() - 1)) out.push_back(std::move(c));
    for (auto& c : clip(t, u.last() + 1, std::numeric_limits<Rank>::max() / 4)) out.push_back(std::move(c));
  } else if (auto sp = commonSeries(t, u)) {
    // (t's body \ u's body) \ u's tail, and t's tail \ u.
    std::vector<RankTuple> body;
    subtractSeries(sp->a, sp->b, body, budget);
    for (const auto& tail : sp->bTail) {
      std::vector<RankTuple> next;
      for (const auto& piece : body) subtractPair(piece, tail, next, budget);
      body = std::move(next);
    }
    out.insert(out.end(), body.begin(), body.end());
    for (const auto& tail : sp->aTail) subtractPair(tail, u, out, budget);
  } else {
    subtractByPieces(t, u, out, budget);
  }
}

// Disjoint nested tuples for t \ B (B's tuples disjoint and nested), appended to out: B's
// tuples taken away one after the other from what is left of t.
void subtractFromTuple(const RankTuple& t, const std::vector<RankTuple>& B, std::vector<RankTuple>& out,
                       Budget& budget) {
  std::vector<RankTuple> left{t};
  for (const auto& u : B) {
    if (!overlapRange(t, u)) continue;
    std::vector<RankTuple> next;
    next.reserve(left.size());
    for (auto& piece : left) {
      if (!overlapRange(piece, u)) {
        next.push_back(std::move(piece));
        continue;
      }
      budget.take(1);  // pieces u actually cuts: many tuples of B each cutting t count here
      subtractPair(piece, u, next, budget);
    }
    left = std::move(next);
    if (left.empty()) return;
  }
  out.insert(out.end(), left.begin(), left.end());
}

}  // namespace

RankList RankList::finish(std::vector<RankTuple> pieces) {
  Rank members = 0;
  for (const auto& t : pieces) members += t.size();
  if (members <= kExactMembers) {
    // Small: exactly the list fromAscending builds, as the enumerating operations did.
    std::vector<Rank> all;
    all.reserve(static_cast<std::size_t>(members));
    for (const auto& t : pieces) forEachInTuple(t, [&](Rank r) {
      all.push_back(r);
      return true;
    });
    std::sort(all.begin(), all.end());
    return fromSorted(all);
  }
  RankList out;
  if (pieces.size() == 1) {
    out.tuples_ = std::move(pieces);
    return out;
  }
  // Multi-dimensional pieces come whole from the tuples or from series of rows and stay as they
  // are; progressions and single ranks (cut pieces, clipped rows) are recompressed: fused where
  // one continues another, and equal ones at a constant distance folded into one tuple.
  std::vector<RankTuple> tuples;
  std::vector<Prog> flat;
  for (auto& t : pieces) {
    if (t.dims.size() >= 2) tuples.push_back(std::move(t));
    else flat.push_back(t.dims.empty() ? Prog{t.start, 1, 1} : Prog{t.start, t.dims[0].iters, t.dims[0].stride});
  }
  std::sort(flat.begin(), flat.end(), [](const Prog& a, const Prog& b) { return a.start < b.start; });
  std::vector<Prog> fused;
  for (const auto& r : flat) {
    if (!fused.empty()) {
      Prog& f = fused.back();
      const Rank step = f.count > 1 ? f.stride : r.count > 1 ? r.stride : r.start - f.last();
      if ((f.count == 1 || f.stride == step) && (r.count == 1 || r.stride == step) && r.start == f.last() + step) {
        f = Prog{f.start, f.count + r.count, step};
        continue;
      }
    }
    fused.push_back(r);
  }
  for (std::size_t i = 0; i < fused.size();) {
    std::size_t j = i + 1;
    if (j < fused.size() && fused[j].count == fused[i].count && fused[j].stride == fused[i].stride) {
      const Rank d = fused[j].start - fused[i].start;
      while (j + 1 < fused.size() && fused[j + 1].count == fused[i].count && fused[j + 1].stride == fused[i].stride &&
             fused[j + 1].start - fused[j].start == d)
        ++j;
      ++j;
      RankTuple g = toTuple(fused[i]);
      g.dims.push_back({static_cast<Rank>(j - i), d});
      canonicalise(g);
      if (g.isNested()) {  // not when they interleave other than as evens and odds do
        tuples.push_back(std::move(g));
        i = j;
        continue;
      }
    }
    tuples.push_back(toTuple(fused[i]));
    ++i;
  }
  // appendMerged then joins what continues or repeats (equal 2-D tuples into a 3-D one).
  std::sort(tuples.begin(), tuples.end(), [](const RankTuple& a, const RankTuple& b) { return a.start < b.start; });
  for (auto& t : tuples) appendMerged(out.tuples_, std::move(t));
  return out;
}

bool RankList::operator==(const RankList& other) const {
  if (tuples_ == other.tuples_) return true;
  if (size() != other.size()) return false;
  return isSubsetOf(other);  // as many members and all of them in other
}

bool RankList::isSubsetOf(const RankList& other) const {
  try {
    Budget budget;
    for (const auto& t : tuples_) {
      std::vector<RankTuple> left;
      subtractFromTuple(t, other.tuples_, left, budget);
      if (!left.empty()) return false;
    }
    return true;
  } catch (const OverBudget&) {
  }
  for (const auto& t : tuples_)
    if (!forEachInTuple(t, [&](Rank r) { return other.contains(r); })) return false;
  return true;
}

static std::optional<bool> nestedTuplesShareARank(const RankTuple& a, const RankTuple& b) {
  try {
    Budget budget;
    std::vector<RankTuple> common;
    intersectTuples(a, b, common, budget, true);
    return !common.empty();
  } catch (const OverBudget&) {
    return std::nullopt;
  }
}

bool RankList::intersects(const RankList& other) const {
  if (empty() || other.empty() || *last() < *other.first() || *other.last() < *first()) return false;
  try {
    Budget budget;
    std::vector<RankTuple> common;
    for (const auto& t : tuples_)
      for (const auto& u : other.tuples_) {
        intersectTuples(t, u, common, budget, true);
        if (!common.empty()) return true;
      }
    return false;
  } catch (const OverBudget&) {
  }
  for (const auto& t : tuples_)
    for (const auto& u : other.tuples_)
      if (tuplesIntersect(t, u)) return true;
  return false;
}

namespace {
enum class SetOp { Union, Intersection, Difference };

RankList combine(const RankList& a, const RankList& b, SetOp op) {
  RankIterator ia(a), ib(b);
  Rank x = 0, y = 0;
  bool hx = ia.next(x), hy = ib.next(y);
  return RankList::fromAscending([&](Rank& out) {
    while (hx || hy) {
      if (hx && (!hy || x < y)) {
        Rank v = x;
        hx = ia.next(x);
        if (op != SetOp::Intersection) { out = v; return true; }
      } else if (hy && (!hx || y < x)) {
        Rank v = y;
        hy = ib.next(y);
        if (op == SetOp::Union) { out = v; return true; }
      } else {  // equal
        Rank v = x;
        hx = ia.next(x);
        hy = ib.next(y);
        if (op != SetOp::Difference) { out = v; return true; }
      }
    }
    return false;
  });
}
}  // namespace

RankList RankList::unite(const RankList& a, const RankList& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  if (!a.intersects(b)) {  // disjoint: the tuples themselves are the union
    std::vector<RankTuple> t = a.tuples_;
    t.insert(t.end(), b.tuples_.begin(), b.tuples_.end());
    return RankList(std::move(t));
  }
  try {
    Budget budget;
    std::vector<RankTuple> pieces = a.tuples_;  // a, and what b adds to it
    for (const auto& t : b.tuples_) subtractFromTuple(t, a.tuples_, pieces, budget);
    return finish(std::move(pieces));
  } catch (const OverBudget&) {
    return combine(a, b, SetOp::Union);
  }
}

RankList RankList::intersect(const RankList& a, const RankList& b) {
  try {
    Budget budget;
    std::vector<RankTuple> pieces;
    for (const auto& t : a.tuples_)
      for (const auto& u : b.tuples_) intersectTuples(t, u, pieces, budget);
    return finish(std::move(pieces));
  } catch (const OverBudget&) {
    return combine(a, b, SetOp::Intersection);
  }
}

RankList RankList::subtract(const RankList& a, const RankList& b) {
  if (!a.intersects(b)) return a;
  try {
    Budget budget;
    std::vector<RankTuple> pieces;
    for (const auto& t : a.tuples_) subtractFromTuple(t, b.tuples_, pieces, budget);
    return finish(std::move(pieces));
  } catch (const OverBudget&) {
    return combine(a, b, SetOp::Difference);
  }
}

RankList RankList::shifted(Rank offset, Rank modulus) const {
  if (modulus <= 0) throw std::invalid_argument("RankList::shifted: modulus must be positive");
  const Rank off = ((offset % modulus) + modulus) % modulus;
  // Members below modulus - off move up by off; the rest wrap around to the bottom.
  std::vector<RankTuple> pieces;
  for (const auto& t : tuples_) {
    for (auto& c : clip(t, 0, modulus - 1 - off)) {
      c.start += off;
      pieces.push_back(std::move(c));
    }
    if (off == 0) continue;
    for (auto& c : clip(t, modulus - off, modulus - 1)) {
      c.start += off - modulus;
      pieces.push_back(std::move(c));
    }
  }
  return finish(std::move(pieces));
}

std::string RankList::str() const {
  std::string s;
  for (const auto& t : tuples_) {
    if (!s.empty()) s += ' ';
    if (t.dims.empty()) {
      s += fmt::format("<1 {} {{1 0}}>", t.start);
      continue;
    }
    s += fmt::format("<{} {}", t.dims.size(), t.start);
    for (const auto& d : t.dims) s += fmt::format(" {{{} {}}}", d.iters, d.stride);
    s += '>';
  }
  return s.empty() ? "<>" : s;
}

std::string RankList::scalaTraceStr() const {
  std::string s = fmt::format("{}", tuples_.size());
  for (const auto& t : tuples_) {
    if (t.dims.empty()) {
      s += fmt::format(" -1 {} 1 0", t.start);
      continue;
    }
    s += fmt::format(" -{} {}", t.dims.size(), t.start);
    for (const auto& d : t.dims) s += fmt::format(" {} {}", d.iters, d.stride);
  }
  return s;
}

// Runs of consecutive ranks, found on the progressions rather than rank by rank: a heap merge
// over the progressions (sorted cut of the tuples) where a stride-1 progression extends the
// current run to its last member in one step and members already inside the run are skipped
// arithmetically. A 115-million-rank range prints in O(1); only interleaved strided
// progressions (evens and odds) are walked member by member, within a step budget, beyond
// which the tuple form is printed instead.
std::string RankList::pretty(std::size_t maxItems) const {
  if (empty()) return "{}";
  std::vector<Prog> progs;
  try {
    Budget budget;
    progs = cut(tuples_, budget);
  } catch (const OverBudget&) {
    return fmt::format("{} ({} ranks)", str(), size());
  }
  // First member of p that is > bound (p.count elements from p.start), or nullopt.
  auto firstAbove = [](const Prog& p, Rank bound) -> std::optional<Rank> {
    if (p.start > bound) return p.start;
    if (p.last() <= bound) return std::nullopt;
    const Rank k = (bound - p.start) / p.stride + 1;
    return p.start + k * p.stride;
  };
  using Item = std::pair<Rank, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  for (std::size_t i = 0; i < progs.size(); ++i) heap.emplace(progs[i].start, i);
  std::string s;
  std::size_t items = 0;
  Rank runStart = 0, runEnd = 0;
  bool open = false, truncated = false;
  std::size_t steps = 0;
  constexpr std::size_t kMaxSteps = std::size_t{1} << 20;
  auto emit = [&] {
    if (items == maxItems) {
      truncated = true;
      return;
    }
    if (!s.empty()) s += ',';
    s += runStart == runEnd ? fmt::format("{}", runEnd) : fmt::format("{}-{}", runStart, runEnd);
    ++items;
  };
  while (!heap.empty() && !truncated) {
    if (++steps > kMaxSteps) return fmt::format("{} ({} ranks)", str(), size());
    auto [x, i] = heap.top();
    heap.pop();
    const Prog& p = progs[i];
    if (open && x <= runEnd) {  // already inside the run (overlapping tuples)
      if (auto nx = firstAbove(p, runEnd)) heap.emplace(*nx, i);
      continue;
    }
    if (!open || x != runEnd + 1) {
      if (open) emit();
      if (truncated) break;
      runStart = x;
      open = true;
    }
    // x extends (or starts) the run; a stride-1 progression extends it to its end.
    runEnd = p.stride == 1 ? p.last() : x;
    if (auto nx = firstAbove(p, runEnd)) heap.emplace(*nx, i);
  }
  if (open && !truncated) emit();
  if (truncated) s += fmt::format("{}... ({} ranks)", s.empty() ? "" : ",", size());
  return s;
}

// ---------------------------------------------------------------------------------------------
// RankIterator: a heap merge over the tuples' walks.

RankIterator::RankIterator(const RankList& list) {
  for (const auto& t : list.tuples()) walks_.push_back({&t, std::vector<Rank>(t.dims.size(), 0), t.start, false});
  for (std::size_t i = 0; i < walks_.size(); ++i) heap_.emplace_back(walks_[i].value, i);
  std::make_heap(heap_.begin(), heap_.end(), std::greater<>());
}

void RankIterator::advance(TupleWalk& w) {
  const auto& dims = w.tuple->dims;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    if (++w.digits[j] < dims[j].iters) {
      w.value += dims[j].stride;
      return;
    }
    w.value -= (dims[j].iters - 1) * dims[j].stride;
    w.digits[j] = 0;
  }
  w.done = true;
}

bool RankIterator::next(Rank& out) {
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    const std::size_t w = heap_.back().second;
    const Rank v = walks_[w].value;
    advance(walks_[w]);
    if (walks_[w].done) {
      heap_.pop_back();
    } else {
      heap_.back().first = walks_[w].value;
      std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
    }
    if (any_ && v == lastEmitted_) continue;  // overlapping input tuples: a set has no duplicates
    any_ = true;
    lastEmitted_ = v;
    out = v;
    return true;
  }
  return false;
}

}  // namespace tracegen
