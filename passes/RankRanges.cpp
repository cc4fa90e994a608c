// rank-ranges: every rank set of the trace as the shortest exact task expression.
//
// Algorithm. A RankList is a sorted union of disjoint nested sections start + Σ k_i·s_i
// (0 <= k_i < n_i, each stride larger than the span below it). A section is turned into a
// conjunction of comparisons by reading a rank as digits in the mixed radix of its strides:
// the outermost digit is bounded by comparing the rank itself (`rank >= 4 && rank < 12`), each
// inner digit by comparing the rank reduced modulo the next stride (`rank % 4 >= 1 &&
// rank % 4 < 3`), and the part below the smallest stride by a residue (`rank % 2 == 1`).
// When the start's own digits keep the section inside one "row" at every level (the
// common case: grid blocks, progressions) the comparisons use grid coordinates; otherwise
// they are taken relative to the start (`(rank - 3) % 4 < 2 && rank >= 3`). A bound that no
// rank of 0 … P-1 could violate is left out, so a progression over the whole machine is just
// `rank % 2 == 0`. A set of several sections is first checked for being one progression in
// disguise (interleaved sections whose member count fills first … last at the gcd of their
// strides), then written as the disjunction of its sections' terms, where a section of two
// or three ranks is listed rank by rank when that is shorter (always for two ranks that are
// not neighbours). The complement is built on the tuples as well — the gaps between
// non-interleaving sections plus, inside each section, the gaps between its rows at every
// level, which are sections themselves — and, when it is a single section or a few lone
// ranks, negated by De Morgan (coNCePTuaL has no logical NOT); it is used when its C text is
// shorter. The coNCePTuaL text follows the same structure (`/\`, `\/`, `MOD`,
// `<>`), except that blocks, lone-rank lists and unions containing blocks become range lists
// (`tasks {x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}`, `tasks {3, 7, 20}`)
// while the c_mpi start-up cost of testing every task against the list stays small (§4.1).
// Nothing is enumerated: the cost is linear in the number of tuples and dimensions.
#include "passes/RankRanges.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <vector>

namespace tracegen {

namespace {

enum class Cmp { Lt, Le, Gt, Ge, Eq, Ne };

Cmp negate(Cmp c) {
  switch (c) {
    case Cmp::Lt: return Cmp::Ge;
    case Cmp::Le: return Cmp::Gt;
    case Cmp::Gt: return Cmp::Le;
    case Cmp::Ge: return Cmp::Lt;
    case Cmp::Eq: return Cmp::Ne;
    case Cmp::Ne: return Cmp::Eq;
  }
  return c;
}

// lhs cmp value, lhs = (var - offset) % mods[0] % mods[1] % …
struct Atom {
  Rank offset = 0;
  std::vector<Rank> mods;
  Cmp cmp = Cmp::Eq;
  Rank value = 0;
};
using Clause = std::vector<Atom>;

// Either a disjunction of conjunctions (a union of terms) or, for complements, a conjunction
// of disjunctions. An empty DNF is false; a DNF holding an empty clause is true.
struct Formula {
  bool cnf = false;
  std::vector<Clause> clauses;
};

struct Syntax {
  std::string_view var, andOp, orOp, modOp;
  bool c;
};

std::string_view cmpText(Cmp c, bool cSyntax) {
  switch (c) {
    case Cmp::Lt: return "<";
    case Cmp::Le: return "<=";
    case Cmp::Gt: return ">";
    case Cmp::Ge: return ">=";
    case Cmp::Eq: return cSyntax ? "==" : "=";
    case Cmp::Ne: return cSyntax ? "!=" : "<>";
  }
  return "?";
}

std::string renderAtom(const Atom& a, const Syntax& s) {
  std::string lhs = a.offset != 0 ? fmt::format("({} - {})", s.var, a.offset) : std::string(s.var);
  for (Rank m : a.mods) lhs += fmt::format(" {} {}", s.modOp, m);
  return fmt::format("{} {} {}", lhs, cmpText(a.cmp, s.c), a.value);
}

std::string join(const Clause& clause, std::string_view op, const Syntax& s) {
  std::string out;
  for (const Atom& a : clause) {
    if (!out.empty()) out += fmt::format(" {} ", op);
    out += renderAtom(a, s);
  }
  return out;
}

// C needs the whole text parenthesised when its top level is `||` (so that it can be put
// next to `&&`); coNCePTuaL's `such that` condition extends to the verb and needs no parens.
std::string render(const Formula& f, const Syntax& s) {
  std::string_view inner = f.cnf ? s.orOp : s.andOp;
  std::string_view outer = f.cnf ? s.andOp : s.orOp;
  if (f.clauses.empty()) return s.c ? "0" : fmt::format("{} < 0", s.var);
  if (f.clauses.size() == 1) {
    const Clause& only = f.clauses.front();
    if (only.empty()) return s.c ? "1" : fmt::format("{} >= 0", s.var);
    std::string text = join(only, inner, s);
    return f.cnf && s.c && only.size() > 1 ? "(" + text + ")" : text;
  }
  std::string out;
  for (const Clause& clause : f.clauses) {
    if (!out.empty()) out += fmt::format(" {} ", outer);
    out += clause.size() > 1 ? "(" + join(clause, inner, s) + ")" : join(clause, inner, s);
  }
  return !f.cnf && s.c ? "(" + out + ")" : out;
}

std::string renderC(const Formula& f, std::string_view var) { return render(f, {var, "&&", "||", "%", true}); }
std::string renderNcptl(const Formula& f, std::string_view var) { return render(f, {var, "/\\", "\\/", "MOD", false}); }

// The digits of a section's start in the mixed radix of its strides, and whether the
// section stays inside one row at every level when read in those coordinates (then the
// predicate and the comprehension use absolute grid coordinates; otherwise coordinates
// relative to the start).
struct Decomposition {
  bool absolute = true;
  Rank base = 0;            // added to every member: the part of start below the smallest stride
  std::vector<Rank> digit;  // first coordinate per dimension
};

Decomposition decompose(const RankTuple& t) {
  Decomposition d;
  const auto& dims = t.dims;
  d.digit.assign(dims.size(), 0);
  Rank rem = t.start;
  for (std::size_t i = dims.size(); i-- > 0;) {
    d.digit[i] = rem / dims[i].stride;
    rem %= dims[i].stride;
  }
  d.base = rem;
  Rank highest = d.base;  // the largest remainder below stride i+1 a member can have
  for (std::size_t i = 0; i + 1 < dims.size(); ++i) {
    highest += (d.digit[i] + dims[i].iters - 1) * dims[i].stride;
    if (highest >= dims[i + 1].stride) {
      d.absolute = false;
      d.digit.assign(dims.size(), 0);
      d.base = t.start;
      break;
    }
  }
  return d;
}

// (v % a) % b is v % b when b divides a: `rank % 16 % 4` reads as `rank % 4`.
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
  if (dims.empty()) return {Atom{0, {}, Cmp::Eq, t.start}};
  const std::size_t nd = dims.size();
  const Decomposition dec = decompose(t);
  const Rank origin = dec.absolute ? 0 : t.start;
  const Rank residue = dec.absolute ? dec.base : 0;
  Clause term;
  if (dims[0].stride > 1) term.push_back(Atom{origin, modChain(dims, 0), Cmp::Eq, residue});
  // Inner digits. A bound is needed only if some rank whose lower digits already match
  // could break it: a lower bound at digit 0 cannot be broken, an upper bound only if the
  // next coordinate still fits below the next stride.
  Rank minLower = residue;
  for (std::size_t i = 0; i + 1 < nd; ++i) {
    const Rank lo = dec.digit[i] * dims[i].stride;
    const Rank hi = (dec.digit[i] + dims[i].iters) * dims[i].stride;
    std::vector<Rank> mods = modChain(dims, i + 1);
    if (lo > 0) term.push_back(Atom{origin, mods, Cmp::Ge, lo});
    if (hi + minLower < dims[i + 1].stride) term.push_back(Atom{origin, mods, Cmp::Lt, hi});
    minLower += lo;
  }
  // The outermost digit bounds the rank itself. The neighbouring rows of the section (one
  // outer stride below the start, one past the end) are the ranks that satisfy every inner
  // comparison but not these; a bound is kept only if such a rank exists in 0 … P-1. Any
  // value between the section and those rows would do; row boundaries (multiples of the
  // outer stride) read best — `rank % 2 == 0 && rank < 8`, rows `rank >= 4 && rank < 12` —
  // except that a progression starts at its first member (`rank >= 5`, not `rank >= 3`).
  const RankDim& outer = dims.back();
  const bool needLower = dec.absolute ? dec.digit.back() > 0 : t.start > 0;
  const bool needUpper = t.start + outer.iters * outer.stride < numRanks;
  if (needLower)
    term.push_back(Atom{0, {}, Cmp::Ge, dec.absolute && nd > 1 ? dec.digit.back() * outer.stride : t.start});
  if (needUpper)
    term.push_back(Atom{0, {}, Cmp::Lt, dec.absolute ? (dec.digit.back() + outer.iters) * outer.stride : t.last() + 1});
  // `rank > 0` is how people write "every rank but the first".
  if (term.size() == 1 && term[0].mods.empty() && term[0].cmp == Cmp::Ge && term[0].value == 1)
    term[0] = Atom{0, {}, Cmp::Gt, 0};
  return term;
}

std::size_t cLength(const Formula& f) { return renderC(f, "rank").size(); }

// The direct form of a set: one part per section, sections of two or three ranks split into
// lone ranks when listing them is not longer, in ascending order of first member.
struct Part {
  RankTuple tuple;
  Clause term;
};

std::vector<Part> partsOf(const RankList& list, Rank numRanks) {
  std::vector<Part> parts;
  for (const RankTuple& t : list.tuples()) {
    Clause term = sectionTerm(t, numRanks);
    const Rank n = t.size();
    // Two ranks that are not neighbours are no pattern a reader would recognise
    // (`rank % 15 == 0` for {0, 15} of 16): listed, unless they are a residue class of the
    // whole machine (`rank % 2 == 0` for {0, 2} of 4). Otherwise the shorter text wins.
    const bool pair =
        n == 2 && t.dims[0].stride > 1 && !(term.size() == 1 && numRanks % t.dims[0].stride == 0);
    if (n >= 2 && n <= 3) {
      Formula asTerm{false, {term}};
      Formula asRanks;
      std::vector<Part> singles;
      RankList(std::vector<RankTuple>{t}).forEach([&](Rank r) {  // at most three ranks
        singles.push_back(Part{RankTuple{r, {}}, {Atom{0, {}, Cmp::Eq, r}}});
        asRanks.clauses.push_back(singles.back().term);
        return true;
      });
      if (pair || cLength(asRanks) <= cLength(asTerm)) {
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

Formula dnf(const std::vector<Part>& parts) {
  Formula f;
  for (const Part& p : parts) f.clauses.push_back(p.term);
  return f;
}

// ¬(T1 ∨ T2 ∨ …) = ¬T1 ∧ ¬T2 ∧ …, each ¬Ti a disjunction of negated comparisons.
Formula negated(const Formula& direct) {
  Formula f{true, {}};
  for (Clause clause : direct.clauses) {
    for (Atom& a : clause) a.cmp = negate(a.cmp);
    f.clauses.push_back(std::move(clause));
  }
  return f;
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

// `{3, 7}, {x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}`.
std::string comprehension(const RankTuple& t) {
  const Decomposition dec = decompose(t);
  const std::size_t nd = t.dims.size();
  auto varName = [&](std::size_t i) {
    static constexpr std::string_view kXyz[] = {"x", "y", "z"};
    return nd <= 3 ? std::string(kXyz[i]) : fmt::format("x{}", i + 1);
  };
  std::string element = dec.base != 0 ? fmt::format("{}", dec.base) : "";
  for (std::size_t i = 0; i < nd; ++i) {
    if (!element.empty()) element += " + ";
    element += t.dims[i].stride == 1 ? varName(i) : fmt::format("{}*{}", t.dims[i].stride, varName(i));
  }
  std::string gens;
  for (std::size_t i = nd; i-- > 0;)
    gens += fmt::format(" for each {} in {{{}, ..., {}}}", varName(i), dec.digit[i],
                        dec.digit[i] + t.dims[i].iters - 1);
  return "{" + element + gens + "}";
}

std::string rangeList(const std::vector<Part>& parts) {
  std::vector<std::string> ranges;
  std::vector<Rank> lone;  // consecutive lone ranks share one `{a, b, c}`
  auto flush = [&] {
    if (lone.empty()) return;
    ranges.push_back(fmt::format("{{{}}}", fmt::join(lone, ", ")));
    lone.clear();
  };
  for (const Part& p : parts) {
    const RankTuple& t = p.tuple;
    if (t.dims.empty()) {
      lone.push_back(t.start);
      continue;
    }
    flush();
    if (t.dims.size() > 1) {
      ranges.push_back(comprehension(t));
    } else if (t.dims[0].iters == 2) {
      ranges.push_back(fmt::format("{{{}, {}}}", t.start, t.last()));
    } else if (t.dims[0].stride == 1) {
      ranges.push_back(fmt::format("{{{}, ..., {}}}", t.start, t.last()));
    } else {
      ranges.push_back(fmt::format("{{{}, {}, ..., {}}}", t.start, t.start + t.dims[0].stride, t.last()));
    }
  }
  flush();
  return fmt::format("{}", fmt::join(ranges, ", "));
}

// Sections that interleave (evens and odds below 8, say) can make up one progression the
// normalised tuples do not show. All members lie in first + g·k for g the gcd of the strides
// and start offsets; if the set has as many members as that progression has up to last, it
// is that progression.
RankList canonical(const RankList& list) {
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

}  // namespace

RankExpr rankExpr(const RankList& ranks, Rank numRanks) { return rankExpr(ranks, numRanks, RankExprOptions{}); }

RankExpr rankExpr(const RankList& input, Rank numRanks, const RankExprOptions& opt) {
  const RankList ranks = canonical(input);
  const std::string& tv = opt.taskVar;
  const std::string such = fmt::format("tasks {} such that ", tv);
  RankExpr e;
  if (ranks.empty()) {
    Formula none;
    return RankExpr{"empty", such + renderNcptl(none, tv), renderC(none, opt.cVar)};
  }
  if (*ranks.first() < 0) throw std::invalid_argument(fmt::format("rankExpr: negative rank in {}", ranks.str()));
  const Rank p = std::max(numRanks, *ranks.last() + 1);
  if (ranks.size() == p) {
    e.kind = "all";
    e.ncptl = opt.target ? fmt::format("{}{} >= 0", such, tv) : fmt::format("all tasks {}", tv);
    e.c = "1";
    return e;
  }
  const std::vector<Part> parts = partsOf(ranks, p);
  const Formula direct = dnf(parts);
  if (parts.size() == 1 && parts[0].tuple.dims.empty()) {
    e.kind = "single";
    e.ncptl = opt.bindVariable ? such + renderNcptl(direct, tv) : fmt::format("task {}", parts[0].tuple.start);
    e.c = renderC(direct, opt.cVar);
    return e;
  }
  // "All but <one simple set>" (`rank != 0`, all but one block, all but a few ranks); the
  // negation of a longer union is a conjunction of disjunctions nobody wants to read.
  if (auto rest = complementOf(ranks, p); rest && !rest->empty()) {
    const std::vector<Part> restParts = partsOf(*rest, p);
    const bool simple = restParts.size() == 1 || std::all_of(restParts.begin(), restParts.end(), [](const Part& q) {
                          return q.tuple.dims.empty();
                        });
    const Formula inverse = negated(dnf(restParts));
    if (simple && cLength(inverse) < cLength(direct)) {
      return RankExpr{"complement", such + renderNcptl(inverse, tv), renderC(inverse, opt.cVar)};
    }
  }
  bool anyBlock = false, allLone = true;
  for (const Part& part : parts) {
    anyBlock = anyBlock || part.tuple.dims.size() > 1;
    allLone = allLone && part.tuple.dims.empty();
  }
  if (parts.size() == 1) {
    e.kind = anyBlock ? "block" : "progression";
  } else {
    e.kind = allLone ? "list" : "union";
  }
  e.c = renderC(direct, opt.cVar);
  const bool cheap = opt.comprehensionBudget >= 0 && ranks.size() <= opt.comprehensionBudget / p;
  if (!opt.bindVariable && cheap && (anyBlock || allLone)) {
    e.ncptl = "tasks " + rangeList(parts);
  } else {
    e.ncptl = such + renderNcptl(direct, tv);
  }
  return e;
}

// ---------------------------------------------------------------------------------------------
// cForEach

namespace {

std::string stripOuterParens(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0 && i + 1 < s.size()) return s;  // `(a) || (b)`
  }
  return s.substr(1, s.size() - 2);
}

std::string indented(std::string_view text, std::size_t depth) {
  const std::string pad(2 * depth, ' ');
  std::string out = pad;
  for (char ch : text) {
    out += ch;
    if (ch == '\n') out += pad;
  }
  return out;
}

std::string step(const std::string& v, Rank stride) {
  return stride == 1 ? "++" + v : fmt::format("{} += {}", v, stride);
}

// One loop per dimension, outermost first: each loop walks the first members of the rows
// one level down; the innermost binds `var`.
std::string loopNest(const RankTuple& t, std::string_view var, std::string_view body) {
  const std::size_t nd = t.dims.size();
  auto name = [&](std::size_t level) { return level == 0 ? std::string(var) : fmt::format("{}_{}", var, level); };
  std::string out;
  if (nd == 0) {
    const std::string v(var);
    out = fmt::format("for (int {0} = {1}; {0} < {2}; ++{0})\n", v, t.start, t.start + 1);
    return out + indented(body, 1);
  }
  for (std::size_t level = nd; level-- > 0;) {
    const RankDim& d = t.dims[level];
    const std::string v = name(level);
    const std::size_t depth = nd - 1 - level;
    const Rank extent = (d.iters - 1) * d.stride + 1;
    if (level + 1 == nd) {
      out += indented(fmt::format("for (int {0} = {1}; {0} < {2}; {3})", v, t.start, t.start + extent, step(v, d.stride)), depth);
    } else {
      const std::string from = name(level + 1);
      out += indented(fmt::format("for (int {0} = {1}; {0} < {1} + {2}; {3})", v, from, extent, step(v, d.stride)), depth);
    }
    out += '\n';
  }
  return out + indented(body, nd);
}

}  // namespace

std::string cForEach(const RankList& input, Rank numRanks, std::string_view var, std::string_view body) {
  constexpr std::size_t kMaxNests = 8;
  if (input.empty()) return "";
  const RankList ranks = canonical(input);
  const auto& tuples = ranks.tuples();
  bool separate = tuples.size() <= kMaxNests;
  for (std::size_t i = 1; separate && i < tuples.size(); ++i) separate = tuples[i - 1].last() < tuples[i].start;
  if (separate) {
    std::string out;
    for (const RankTuple& t : tuples) {
      if (!out.empty()) out += '\n';
      out += loopNest(t, var, body);
    }
    return out;
  }
  RankExprOptions opt;
  opt.cVar = std::string(var);
  const std::string cond = stripOuterParens(rankExpr(ranks, numRanks, opt).c);
  const std::string v(var);
  return fmt::format("for (int {0} = {1}; {0} < {2}; ++{0})\n  if ({3})\n", v, *ranks.first(), *ranks.last() + 1, cond) +
         indented(body, 2);
}

// ---------------------------------------------------------------------------------------------
// The pass

void RankRangesPass::run(Trace& trace, PassContext& ctx) {
  // Derived data: recomputed from scratch so that sets earlier passes removed do not linger.
  trace.rankExprs.clear();
  auto visit = [&](const RankList& ranks) {
    std::string key = ranks.str();
    if (trace.rankExprs.count(key)) return;
    RankExpr e = rankExpr(ranks, trace.numRanks);
    ++ctx.counter("expressions");
    if (e.kind == "progression") ++ctx.counter("progressions");
    if (e.kind == "block") ++ctx.counter("blocks");
    if (e.kind == "union" || e.kind == "list") ++ctx.counter("unions");  // a list is a union of lone ranks
    if (e.kind == "complement") ++ctx.counter("complements");
    trace.rankExprs.emplace(std::move(key), std::move(e));
  };
  forEachRankSet(trace, visit);
}

std::unique_ptr<Pass> createRankRangesPass() { return std::make_unique<RankRangesPass>(); }

}  // namespace tracegen
