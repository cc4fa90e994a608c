#include "gen/RankSetText.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <vector>

#include "passes/RankRanges.h"

namespace tracegen::gen {

namespace {

// ---------------------------------------------------------------------------------------------
// Predicates

struct Syntax {
  std::string_view var, andOp, orOp, modOp, eq, ne;
  bool c;  // C: a disjunction is always parenthesised
};

constexpr Syntax kC{"", "&&", "||", "%", "==", "!=", true};
constexpr Syntax kNcptl{"", "/\\", "\\/", "MOD", "=", "<>", false};

std::string_view cmpText(RankCmp c, const Syntax& s) {
  if (c == RankCmp::Eq) return s.eq;
  if (c == RankCmp::Ne) return s.ne;
  return cmpName(c);
}

std::string atomText(const RankAtom& a, const Syntax& s) {
  if (a.kind == RankAtom::Kind::In) {  // (rank == 3 || rank == 7); negated: rank != 3 && rank != 7
    const bool member = a.cmp != RankCmp::Ne;
    std::vector<std::string> terms;
    for (Rank m : a.members) terms.push_back(fmt::format("{} {} {}", s.var, member ? s.eq : s.ne, m));
    if (terms.empty()) return member ? (s.c ? "0" : fmt::format("{} < 0", s.var)) : (s.c ? "1" : fmt::format("{} >= 0", s.var));
    const std::string joined = fmt::format("{}", fmt::join(terms, fmt::format(" {} ", member ? s.orOp : s.andOp)));
    return terms.size() > 1 ? "(" + joined + ")" : joined;
  }
  std::string lhs = a.offset != 0 ? fmt::format("({} - {})", s.var, a.offset) : std::string(s.var);
  for (Rank m : a.mods) lhs += fmt::format(" {} {}", s.modOp, m);
  return fmt::format("{} {} {}", lhs, cmpText(a.cmp, s), a.value);
}

// A child whose connective differs from its parent's is parenthesised; in C a disjunction
// always is (so that it can stand next to `&&` wherever it is put).
std::string predText(const RankPred& p, const Syntax& s, bool nested) {
  switch (p.kind) {
    case RankPred::Kind::True: return s.c ? "1" : fmt::format("{} >= 0", s.var);
    case RankPred::Kind::False: return s.c ? "0" : fmt::format("{} < 0", s.var);
    case RankPred::Kind::Atom: return atomText(p.atom, s);
    case RankPred::Kind::And:
    case RankPred::Kind::Or: {
      const bool isOr = p.kind == RankPred::Kind::Or;
      std::string out;
      for (const RankPred& c : p.children) {
        if (!out.empty()) out += fmt::format(" {} ", isOr ? s.orOp : s.andOp);
        out += predText(c, s, true);
      }
      return (isOr && s.c) || nested ? "(" + out + ")" : out;
    }
  }
  return "?";
}

std::string render(const RankPred& p, Syntax s, std::string_view var) {
  s.var = var;
  return predText(p, s, false);
}

// ---------------------------------------------------------------------------------------------
// Range lists

// `{x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}`.
std::string comprehension(const RankTuple& t) {
  const SectionGrid dec = sectionGrid(t);
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

// `{3, 7}, {1, ..., 4}, {x + 4*y for each …}`.
std::string rangeList(const std::vector<RankTuple>& parts) {
  std::vector<std::string> ranges;
  std::vector<Rank> lone;  // consecutive lone ranks share one `{a, b, c}`
  auto flush = [&] {
    if (lone.empty()) return;
    ranges.push_back(fmt::format("{{{}}}", fmt::join(lone, ", ")));
    lone.clear();
  };
  for (const RankTuple& t : parts) {
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

}  // namespace

std::string cRankCondition(const RankShape& shape, std::string_view var) { return render(shape.pred, kC, var); }

bool ncptlSingleTask(const RankShape& shape, const RankExprOptions& opt) {
  return shape.kind == RankShape::Kind::One && !opt.bindVariable;
}

std::string ncptlTasks(const RankShape& shape, const RankExprOptions& opt) {
  const std::string& tv = opt.taskVar;
  const std::string such = fmt::format("tasks {} such that ", tv);
  switch (shape.kind) {
    case RankShape::Kind::All:
      return opt.target ? fmt::format("{}{} >= 0", such, tv) : fmt::format("all tasks {}", tv);
    case RankShape::Kind::One:
      if (ncptlSingleTask(shape, opt) && shape.parts.size() == 1) return fmt::format("task {}", shape.parts[0].start);
      break;
    case RankShape::Kind::Block:
    case RankShape::Kind::List:
    case RankShape::Kind::Union: {
      bool anyBlock = false, allLone = true;
      for (const RankTuple& t : shape.parts) {
        anyBlock = anyBlock || t.dims.size() > 1;
        allLone = allLone && t.dims.empty();
      }
      const Rank p = std::max<Rank>(shape.numRanks, 1);
      const bool cheap = opt.comprehensionBudget >= 0 && shape.members <= opt.comprehensionBudget / p;
      if (!opt.bindVariable && cheap && (anyBlock || allLone)) return "tasks " + rangeList(shape.parts);
      break;
    }
    case RankShape::Kind::Empty:
    case RankShape::Kind::Progression:
    case RankShape::Kind::Complement:
      break;
  }
  return such + render(shape.pred, kNcptl, tv);
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
  const RankList ranks = canonicalRanks(input);
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
  const std::string cond = stripOuterParens(cRankCondition(rankShape(ranks, numRanks), var));
  const std::string v(var);
  return fmt::format("for (int {0} = {1}; {0} < {2}; ++{0})\n  if ({3})\n", v, *ranks.first(), *ranks.last() + 1, cond) +
         indented(body, 2);
}

// ---------------------------------------------------------------------------------------------
// Peers

PeerOffset peerOffset(std::int64_t offset, const RankList& ranks, Rank numRanks) {
  const Rank p = numRanks;
  if (p <= 0) return PeerOffset{offset, false};  // no ranks: nothing to reduce (backends refuse it)
  const std::int64_t o = ((offset % p) + p) % p;
  PeerOffset out;
  if (o == 0) return out;
  auto fits = [&](std::int64_t k) { return !ranks.empty() && *ranks.first() + k >= 0 && *ranks.last() + k < p; };
  if (fits(o)) {
    out.offset = o;
  } else if (fits(o - p)) {
    out.offset = o - p;
  } else {
    out.offset = o > p / 2 ? o - p : o;
    out.wrap = true;
  }
  return out;
}

}  // namespace tracegen::gen
