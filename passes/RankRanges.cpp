// rank-ranges: every rank set of the trace as the shortest exact shape.
//
// Algorithm. A RankList is a sorted union of disjoint nested sections start + Σ k_i·s_i
// (0 <= k_i < n_i, each stride larger than the span below it). A section is turned into a
// conjunction of comparisons by reading a rank as digits in the mixed radix of its strides:
// the outermost digit is bounded by comparing the rank itself (`rank >= 4 and rank < 12`), each
// inner digit by comparing the rank reduced modulo the next stride (`rank mod 4 >= 1 and
// rank mod 4 < 3`), and the part below the smallest stride by a residue (`rank mod 2 = 1`).
// When the start's own digits keep the section inside one "row" at every level (the
// common case: grid blocks, progressions) the comparisons use grid coordinates; otherwise
// they are taken relative to the start (`(rank - 3) mod 4 < 2 and rank >= 3`). A bound that no
// rank of 0 … P-1 could violate is left out, so a progression over the whole machine is just
// `rank mod 2 = 0`. A set of several sections is first checked for being one progression in
// disguise (interleaved sections whose member count fills first … last at the gcd of their
// strides), then written as the disjunction of its sections' terms, where a section of two
// or three ranks is listed rank by rank when that is smaller (always for two ranks that are
// not neighbours). The complement is built on the tuples as well — the gaps between
// non-interleaving sections plus, inside each section, the gaps between its rows at every
// level, which are sections themselves — and, when it is a single section or a few lone
// ranks, negated by De Morgan (coNCePTuaL has no logical NOT); it is used when its predicate
// is smaller (RankPred::size(): the length of the infix text). The result is a RankShape: the
// kind, the predicate and the sections of the direct form, from which the backends also
// build range lists (gen/RankSetText.h). Nothing is enumerated: the cost is linear in the
// number of tuples and dimensions.
#include "passes/RankRanges.h"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tracegen {

namespace {

using Clause = std::vector<RankAtom>;

RankAtom cmpAtom(Rank offset, std::vector<Rank> mods, RankCmp cmp, Rank value) {
  return RankAtom::compare(cmp, value, offset, std::move(mods));
}

RankPred conjunction(const Clause& clause) {
  std::vector<RankPred> atoms;
  for (const RankAtom& a : clause) atoms.push_back(RankPred::of(a));
  return RankPred::all(std::move(atoms));
}

// (v mod a) mod b is v mod b when b divides a: `rank mod 16 mod 4` reads as `rank mod 4`.
std::vector<Rank> modChain(const std::vector<RankDim>& dims, std::size_t from) {
  std::vector<Rank> mods;
  for (std::size_t j = dims.size(); j-- > from;) {
    Rank m = dims[j].stride;
    while (!mods.empty() && mods.back() % m == 0) mods.pop_back();
    mods.push_back(m);
  }
  return mods;
}

// The conjunction that holds exactly for the members of a nested section among 0 … P-1.
Clause sectionTerm(const RankTuple& t, Rank numRanks) {
  const auto& dims = t.dims;
  if (dims.empty()) return {cmpAtom(0, {}, RankCmp::Eq, t.start)};
  const std::size_t nd = dims.size();
  const SectionGrid dec = sectionGrid(t);
  const Rank origin = dec.absolute ? 0 : t.start;
  const Rank residue = dec.absolute ? dec.base : 0;
  Clause term;
  if (dims[0].stride > 1) term.push_back(cmpAtom(origin, modChain(dims, 0), RankCmp::Eq, residue));
  // Inner digits. A bound is needed only if some rank whose lower digits already match
  // could break it: a lower bound at digit 0 cannot be broken, an upper bound only if the
  // next coordinate still fits below the next stride.
  Rank minLower = residue;
  for (std::size_t i = 0; i + 1 < nd; ++i) {
    const Rank lo = dec.digit[i] * dims[i].stride;
    const Rank hi = (dec.digit[i] + dims[i].iters) * dims[i].stride;
    std::vector<Rank> mods = modChain(dims, i + 1);
    if (lo > 0) term.push_back(cmpAtom(origin, mods, RankCmp::Ge, lo));
    if (hi + minLower < dims[i + 1].stride) term.push_back(cmpAtom(origin, mods, RankCmp::Lt, hi));
    minLower += lo;
  }
  // The outermost digit bounds the rank itself. The neighbouring rows of the section (one
  // outer stride below the start, one past the end) are the ranks that satisfy every inner
  // comparison but not these; a bound is kept only if such a rank exists in 0 … P-1. Any
  // value between the section and those rows would do; row boundaries (multiples of the
  // outer stride) read best — `rank mod 2 = 0 and rank < 8`, rows `rank >= 4 and rank < 12` —
  // except that a progression starts at its first member (`rank >= 5`, not `rank >= 3`).
  const RankDim& outer = dims.back();
  const bool needLower = dec.absolute ? dec.digit.back() > 0 : t.start > 0;
  const bool needUpper = t.start + outer.iters * outer.stride < numRanks;
  if (needLower)
    term.push_back(cmpAtom(0, {}, RankCmp::Ge, dec.absolute && nd > 1 ? dec.digit.back() * outer.stride : t.start));
  if (needUpper)
    term.push_back(
        cmpAtom(0, {}, RankCmp::Lt, dec.absolute ? (dec.digit.back() + outer.iters) * outer.stride : t.last() + 1));
  // `rank > 0` is how people write "every rank but the first".
  if (term.size() == 1 && term[0].mods.empty() && term[0].cmp == RankCmp::Ge && term[0].value == 1)
    term[0] = cmpAtom(0, {}, RankCmp::Gt, 0);
  return term;
}

// The direct form of a set: one part per section, sections of two or three ranks split into
// lone ranks when listing them is not larger, in ascending order of first member.
struct Part {
  RankTuple tuple;
  Clause term;
};

RankPred dnf(const std::vector<Part>& parts) {
  std::vector<RankPred> terms;
  for (const Part& p : parts) terms.push_back(conjunction(p.term));
  return RankPred::any(std::move(terms));
}

std::vector<Part> partsOf(const RankList& list, Rank numRanks) {
  std::vector<Part> parts;
  for (const RankTuple& t : list.tuples()) {
    Clause term = sectionTerm(t, numRanks);
    const Rank n = t.size();
    // Two ranks that are not neighbours are no pattern a reader would recognise
    // (`rank mod 15 = 0` for {0, 15} of 16): listed, unless they are a residue class of the
    // whole machine (`rank mod 2 = 0` for {0, 2} of 4). Otherwise the smaller form wins.
    const bool pair =
        n == 2 && t.dims[0].stride > 1 && !(term.size() == 1 && numRanks % t.dims[0].stride == 0);
    if (n >= 2 && n <= 3) {
      std::vector<Part> singles;
      RankList(std::vector<RankTuple>{t}).forEach([&](Rank r) {  // at most three ranks
        singles.push_back(Part{RankTuple{r, {}}, {cmpAtom(0, {}, RankCmp::Eq, r)}});
        return true;
      });
      if (pair || dnf(singles).size() <= conjunction(term).size()) {
        parts.insert(parts.end(), singles.begin(), singles.end());
        continue;
      }
    }
    parts.push_back(Part{t, std::move(term)});
  }
  std::stable_sort(parts.begin(), parts.end(),
                   [](const Part& a, const Part& b) { return a.tuple.start < b.tuple.start; });
  return parts;
}

// Complement within the bounding box [start, last] of a nested section: at each level, the
// gap between consecutive rows is itself a section (gap width × rows-1), and the complement
// of the inner rows repeats once per row.
void boxComplement(Rank start, const std::vector<RankDim>& dims, std::size_t nd,
                   std::vector<RankDim> outerDims, std::vector<RankTuple>& out) {
  if (nd == 0) return;
  const RankDim& outer = dims[nd - 1];
  Rank innerSpan = 0;
  for (std::size_t i = 0; i + 1 < nd; ++i) innerSpan += (dims[i].iters - 1) * dims[i].stride;
  const Rank gap = outer.stride - innerSpan - 1;
  if (gap > 0) {
    RankTuple g{start + innerSpan + 1, {{gap, 1}, {outer.iters - 1, outer.stride}}};
    g.dims.insert(g.dims.end(), outerDims.begin(), outerDims.end());
    out.push_back(std::move(g));
  }
  outerDims.insert(outerDims.begin(), outer);
  boxComplement(start, dims, nd - 1, std::move(outerDims), out);
}

RankTuple interval(Rank from, Rank to) {
  return to > from ? RankTuple{from, {{to - from + 1, 1}}} : RankTuple{from, {}};
}

// Drops dimensions of one iteration, which the gap sections produce for one-wide gaps.
RankTuple withoutUnitDims(RankTuple t) {
  std::erase_if(t.dims, [](const RankDim& d) { return d.iters == 1; });
  return t;
}

// RankList folds a row into a preceding section of rows, but not a preceding row into the
// section that follows it; the complement of a block starts with exactly that (the part of
// the first row left of the block's gap), so that case is folded here.
std::vector<RankTuple> foldLeadingRows(std::vector<RankTuple> pieces) {
  std::sort(pieces.begin(), pieces.end(), [](const RankTuple& a, const RankTuple& b) { return a.start < b.start; });
  std::vector<RankTuple> out;
  for (RankTuple& t : pieces) {
    if (!out.empty()) {
      const RankTuple& row = out.back();
      const std::size_t k = row.dims.size();
      if (t.dims.size() == k + 1 && std::equal(row.dims.begin(), row.dims.end(), t.dims.begin()) &&
          t.start - row.start == t.dims.back().stride) {
        t.start = row.start;
        t.dims.back().iters += 1;
        out.back() = std::move(t);
        continue;
      }
    }
    out.push_back(std::move(t));
  }
  return out;
}

// The ranks of 0 … P-1 outside the list, on the tuples; nullopt when sections interleave
// (their bounding boxes overlap) or there are too many to be worth it.
std::optional<RankList> complementOf(const RankList& list, Rank numRanks) {
  constexpr std::size_t kMaxTuples = 32;
  const auto& tuples = list.tuples();
  if (tuples.size() > kMaxTuples) return std::nullopt;
  std::vector<RankTuple> out;
  Rank cursor = 0;
  for (const RankTuple& t : tuples) {
    if (t.start < cursor) return std::nullopt;
    if (t.start > cursor) out.push_back(interval(cursor, t.start - 1));
    boxComplement(t.start, t.dims, t.dims.size(), {}, out);
    cursor = t.last() + 1;
  }
  if (cursor < numRanks) out.push_back(interval(cursor, numRanks - 1));
  for (RankTuple& t : out) t = withoutUnitDims(std::move(t));
  return RankList(foldLeadingRows(std::move(out)));
}

std::vector<RankTuple> tuplesOf(const std::vector<Part>& parts) {
  std::vector<RankTuple> out;
  for (const Part& p : parts) out.push_back(p.tuple);
  return out;
}

}  // namespace

// Sections that interleave (evens and odds below 8, say) can make up one progression the
// normalised tuples do not show. All members lie in first + g·k for g the gcd of the strides
// and start offsets; if the set has as many members as that progression has up to last, it
// is that progression.
RankList canonicalRanks(const RankList& list) {
  if (list.tuples().size() < 2) return list;
  const Rank first = *list.first(), last = *list.last();
  Rank g = 0;
  for (const RankTuple& t : list.tuples()) {
    g = std::gcd(g, t.start - first);
    for (const RankDim& d : t.dims) g = std::gcd(g, d.stride);
  }
  if (g > 0 && list.size() == (last - first) / g + 1) return RankList::progression(first, list.size(), g);
  return list;
}

RankShape rankShape(const RankList& input, Rank numRanks) {
  const RankList ranks = canonicalRanks(input);
  RankShape shape;
  shape.numRanks = numRanks;
  if (ranks.empty()) {
    shape.kind = RankShape::Kind::Empty;
    shape.pred = RankPred::never();
    return shape;
  }
  if (*ranks.first() < 0) throw std::invalid_argument(fmt::format("rankShape: negative rank in {}", ranks.str()));
  const Rank p = std::max(numRanks, *ranks.last() + 1);
  shape.numRanks = p;
  shape.members = ranks.size();
  if (ranks.size() == p) {
    shape.kind = RankShape::Kind::All;
    shape.pred = RankPred::always();
    shape.parts = ranks.tuples();
    return shape;
  }
  const std::vector<Part> parts = partsOf(ranks, p);
  shape.parts = tuplesOf(parts);
  shape.pred = dnf(parts);
  if (parts.size() == 1 && parts[0].tuple.dims.empty()) {
    shape.kind = RankShape::Kind::One;
    return shape;
  }
  // "All but <one simple set>" (`rank != 0`, all but one block, all but a few ranks); the
  // negation of a longer union is a conjunction of disjunctions nobody wants to read.
  if (auto rest = complementOf(ranks, p); rest && !rest->empty()) {
    const std::vector<Part> restParts = partsOf(*rest, p);
    const bool simple = restParts.size() == 1 || std::all_of(restParts.begin(), restParts.end(), [](const Part& q) {
                          return q.tuple.dims.empty();
                        });
    RankPred inverse = dnf(restParts).negated();
    if (simple && inverse.size() < shape.pred.size()) {
      shape.kind = RankShape::Kind::Complement;
      shape.pred = std::move(inverse);
      return shape;
    }
  }
  bool anyBlock = false, allLone = true;
  for (const Part& part : parts) {
    anyBlock = anyBlock || part.tuple.dims.size() > 1;
    allLone = allLone && part.tuple.dims.empty();
  }
  if (parts.size() == 1) {
    shape.kind = anyBlock ? RankShape::Kind::Block : RankShape::Kind::Progression;
  } else {
    shape.kind = allLone ? RankShape::Kind::List : RankShape::Kind::Union;
  }
  return shape;
}

// ---------------------------------------------------------------------------------------------
// The pass

void RankRangesPass::run(Trace& trace, PassContext& ctx) {
  // Derived data: recomputed from scratch so that sets earlier passes removed do not linger.
  trace.rankShapes.clear();
  auto visit = [&](const RankList& ranks) {
    std::string key = ranks.str();
    if (trace.rankShapes.count(key)) return;
    RankShape shape = rankShape(ranks, trace.numRanks);
    ++ctx.counter("expressions");
    if (shape.kind == RankShape::Kind::Progression) ++ctx.counter("progressions");
    if (shape.kind == RankShape::Kind::Block) ++ctx.counter("blocks");
    if (shape.kind == RankShape::Kind::Union || shape.kind == RankShape::Kind::List)
      ++ctx.counter("unions");  // a list is a union of lone ranks
    if (shape.kind == RankShape::Kind::Complement) ++ctx.counter("complements");
    trace.rankShapes.emplace(std::move(key), std::move(shape));
  };
  forEachRankSet(trace, visit);
}

std::unique_ptr<Pass> createRankRangesPass() { return std::make_unique<RankRangesPass>(); }

}  // namespace tracegen
