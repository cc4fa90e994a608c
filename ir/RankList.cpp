#include "ir/RankList.h"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

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
      if (t.size() > kMaxIrregularRanks) {
        problem = fmt::format("{}interleaves its dimensions over {} ranks, more than the {} tracegen splits into regular sections",
                              which, t.size(), kMaxIrregularRanks);
        return std::nullopt;
      }
      nestTuple(std::move(t), pieces);
    }
  }
  // A nested tuple names each of its ranks once; tuples can only share ranks if their ranges
  // overlap, and only then (for each cluster of overlapping ranges) do we look at the members.
  std::sort(pieces.begin(), pieces.end(), [](const RankTuple& a, const RankTuple& b) { return a.start < b.start; });
  for (std::size_t i = 0; i < pieces.size();) {
    std::size_t j = i + 1;
    Rank maxLast = pieces[i].last(), members = pieces[i].size();
    for (; j < pieces.size() && pieces[j].start <= maxLast; ++j) {
      maxLast = std::max(maxLast, pieces[j].last());
      members += pieces[j].size();
    }
    if (j - i > 1) {
      if (members > kMaxIrregularRanks) {
        problem = fmt::format("has overlapping sections of {} ranks, more than the {} tracegen checks for repeated ranks",
                              members, kMaxIrregularRanks);
        return std::nullopt;
      }
      RankList cluster;
      cluster.tuples_.assign(pieces.begin() + static_cast<std::ptrdiff_t>(i), pieces.begin() + static_cast<std::ptrdiff_t>(j));
      RankIterator it(cluster);  // drops repeated ranks
      Rank distinct = 0, r = 0;
      while (it.next(r)) ++distinct;
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

bool RankList::operator==(const RankList& other) const {
  if (tuples_ == other.tuples_) return true;
  if (size() != other.size()) return false;
  RankIterator a(*this), b(other);
  Rank x, y;
  while (a.next(x)) {
    if (!b.next(y) || x != y) return false;
  }
  return true;
}

bool RankList::isSubsetOf(const RankList& other) const {
  for (const auto& t : tuples_) {
    // Within one contiguous tuple of other, or equal to one: no need to look at the members.
    bool covered = false;
    for (const auto& u : other.tuples_) {
      if (t == u || (isContiguous(u) && u.first() <= t.first() && t.last() <= u.last())) {
        covered = true;
        break;
      }
    }
    if (covered) continue;
    if (!forEachInTuple(t, [&](Rank r) { return other.contains(r); })) return false;
  }
  return true;
}

bool RankList::intersects(const RankList& other) const {
  if (empty() || other.empty() || *last() < *other.first() || *other.last() < *first()) return false;
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
  return combine(a, b, SetOp::Union);
}

RankList RankList::intersect(const RankList& a, const RankList& b) { return combine(a, b, SetOp::Intersection); }

RankList RankList::subtract(const RankList& a, const RankList& b) {
  if (!a.intersects(b)) return a;
  return combine(a, b, SetOp::Difference);
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

std::string RankList::pretty(std::size_t maxItems) const {
  if (empty()) return "{}";
  std::string s;
  std::size_t items = 0;
  Rank runStart = 0, prev = 0;
  bool open = false, truncated = false;
  auto emit = [&] {
    if (items == maxItems) {
      truncated = true;
      return;
    }
    if (!s.empty()) s += ',';
    s += runStart == prev ? fmt::format("{}", prev) : fmt::format("{}-{}", runStart, prev);
    ++items;
  };
  forEach([&](Rank r) {
    if (open && r == prev + 1) { prev = r; return true; }
    if (open) emit();
    if (truncated) return false;
    runStart = prev = r;
    open = true;
    return true;
  });
  if (open && !truncated) emit();
  if (truncated) s += fmt::format("{}... ({} ranks)", s.empty() ? "" : ",", size());
  return s;
}

// ---------------------------------------------------------------------------------------------
// RankIterator: a linear-scan merge over the tuples (lists hold a handful of tuples).

RankIterator::RankIterator(const RankList& list) {
  for (const auto& t : list.tuples()) walks_.push_back({&t, std::vector<Rank>(t.dims.size(), 0), t.start, false});
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
  for (;;) {
    TupleWalk* best = nullptr;
    for (auto& w : walks_)
      if (!w.done && (!best || w.value < best->value)) best = &w;
    if (!best) return false;
    Rank v = best->value;
    advance(*best);
    if (any_ && v == lastEmitted_) continue;  // overlapping input tuples: a set has no duplicates
    any_ = true;
    lastEmitted_ = v;
    out = v;
    return true;
  }
}

}  // namespace tracegen
