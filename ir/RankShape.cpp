#include "ir/RankShape.h"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tracegen {

RankCmp negate(RankCmp c) {
  switch (c) {
    case RankCmp::Lt: return RankCmp::Ge;
    case RankCmp::Le: return RankCmp::Gt;
    case RankCmp::Gt: return RankCmp::Le;
    case RankCmp::Ge: return RankCmp::Lt;
    case RankCmp::Eq: return RankCmp::Ne;
    case RankCmp::Ne: return RankCmp::Eq;
  }
  return c;
}

std::string_view cmpName(RankCmp c) {
  switch (c) {
    case RankCmp::Lt: return "<";
    case RankCmp::Le: return "<=";
    case RankCmp::Gt: return ">";
    case RankCmp::Ge: return ">=";
    case RankCmp::Eq: return "=";
    case RankCmp::Ne: return "!=";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Atoms

RankAtom RankAtom::compare(RankCmp cmp, Rank value, Rank offset, std::vector<Rank> mods) {
  RankAtom a;
  a.kind = Kind::Compare;
  a.offset = offset;
  a.mods = std::move(mods);
  a.cmp = cmp;
  a.value = value;
  return a;
}

RankAtom RankAtom::in(std::vector<Rank> members) {
  RankAtom a;
  a.kind = Kind::In;
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  a.members = std::move(members);
  return a;
}

namespace {

bool compareRanks(Rank lhs, RankCmp cmp, Rank rhs) {
  switch (cmp) {
    case RankCmp::Lt: return lhs < rhs;
    case RankCmp::Le: return lhs <= rhs;
    case RankCmp::Gt: return lhs > rhs;
    case RankCmp::Ge: return lhs >= rhs;
    case RankCmp::Eq: return lhs == rhs;
    case RankCmp::Ne: return lhs != rhs;
  }
  return false;
}

std::size_t digits(Rank v) { return fmt::formatted_size("{}", v); }

}  // namespace

bool RankAtom::holds(Rank rank) const {
  if (kind == Kind::In) {
    const bool member = std::binary_search(members.begin(), members.end(), rank);
    return cmp == RankCmp::Ne ? !member : member;
  }
  Rank lhs = rank - offset;
  for (Rank m : mods) lhs %= m;  // truncating, as the spellings do
  return compareRanks(lhs, cmp, value);
}

RankAtom RankAtom::negated() const {
  RankAtom a = *this;
  a.cmp = negate(cmp);
  return a;
}

// ---------------------------------------------------------------------------------------------
// Predicates

RankPred RankPred::all(std::vector<RankPred> children) {
  if (children.empty()) return always();
  if (children.size() == 1) return std::move(children.front());
  return RankPred{Kind::And, {}, std::move(children)};
}

RankPred RankPred::any(std::vector<RankPred> children) {
  if (children.empty()) return never();
  if (children.size() == 1) return std::move(children.front());
  return RankPred{Kind::Or, {}, std::move(children)};
}

bool RankPred::holds(Rank rank) const {
  switch (kind) {
    case Kind::True: return true;
    case Kind::False: return false;
    case Kind::Atom: return atom.holds(rank);
    case Kind::And:
      return std::all_of(children.begin(), children.end(), [&](const RankPred& c) { return c.holds(rank); });
    case Kind::Or:
      return std::any_of(children.begin(), children.end(), [&](const RankPred& c) { return c.holds(rank); });
  }
  return false;
}

RankPred RankPred::negated() const {
  switch (kind) {
    case Kind::True: return never();
    case Kind::False: return always();
    case Kind::Atom: return of(atom.negated());
    case Kind::And:
    case Kind::Or: {
      std::vector<RankPred> out;
      for (const RankPred& c : children) out.push_back(c.negated());
      return kind == Kind::And ? any(std::move(out)) : all(std::move(out));
    }
  }
  return always();
}

std::size_t RankPred::size() const {
  constexpr std::size_t kVar = 4, kConnective = 4;  // `rank`, ` && `
  switch (kind) {
    case Kind::True:
    case Kind::False: return 1;
    case Kind::Atom: {
      const RankAtom& a = atom;
      if (a.kind == RankAtom::Kind::In) {  // (rank == 3 || rank == 7)
        std::size_t n = 2;
        for (Rank m : a.members) n += kVar + 4 + digits(m);
        return n + kConnective * (a.members.size() > 0 ? a.members.size() - 1 : 0);
      }
      std::size_t n = a.offset != 0 ? kVar + 5 + digits(a.offset) : kVar;  // (rank - 3)
      for (Rank m : a.mods) n += 3 + digits(m);                              // ` % 4`
      return n + 2 + cmpName(a.cmp).size() + (a.cmp == RankCmp::Eq ? 1 : 0) + digits(a.value);
    }
    case Kind::And:
    case Kind::Or: {
      std::size_t n = kConnective * (children.size() - 1);
      for (const RankPred& c : children) {
        n += c.size();
        if (kind == Kind::Or && c.kind == Kind::And) n += 2;
      }
      return kind == Kind::Or ? n + 2 : n;
    }
  }
  return 0;
}

namespace {

std::string atomText(const RankAtom& a, std::string_view var) {
  if (a.kind == RankAtom::Kind::In)
    return fmt::format("{} {}in {{{}}}", var, a.cmp == RankCmp::Ne ? "not " : "", fmt::join(a.members, ", "));
  std::string lhs = a.offset != 0 ? fmt::format("({} - {})", var, a.offset) : std::string(var);
  for (Rank m : a.mods) lhs += fmt::format(" mod {}", m);
  return fmt::format("{} {} {}", lhs, cmpName(a.cmp), a.value);
}

std::string predText(const RankPred& p, std::string_view var, bool nested) {
  switch (p.kind) {
    case RankPred::Kind::True: return "true";
    case RankPred::Kind::False: return "false";
    case RankPred::Kind::Atom: return atomText(p.atom, var);
    case RankPred::Kind::And:
    case RankPred::Kind::Or: {
      std::string out;
      for (const RankPred& c : p.children) {
        if (!out.empty()) out += p.kind == RankPred::Kind::And ? " and " : " or ";
        out += predText(c, var, true);
      }
      return nested ? "(" + out + ")" : out;
    }
  }
  return "?";
}

std::string tupleText(const RankTuple& t) {
  if (t.dims.empty()) return fmt::format("{}", t.start);
  std::vector<std::string> dims;
  for (const RankDim& d : t.dims) dims.push_back(fmt::format("{}x{}", d.iters, d.stride));
  return fmt::format("{}+({})", t.start, fmt::join(dims, ", "));
}

}  // namespace

std::string RankPred::str(std::string_view var) const { return predText(*this, var, false); }

// ---------------------------------------------------------------------------------------------
// Shapes

std::string_view kindName(RankShape::Kind k) {
  switch (k) {
    case RankShape::Kind::Empty: return "empty";
    case RankShape::Kind::All: return "all";
    case RankShape::Kind::One: return "one";
    case RankShape::Kind::Progression: return "progression";
    case RankShape::Kind::Block: return "block";
    case RankShape::Kind::Union: return "union";
    case RankShape::Kind::Complement: return "complement";
    case RankShape::Kind::List: return "list";
  }
  return "?";
}

std::string RankShape::str() const {
  std::vector<std::string> parts_;
  for (const RankTuple& t : parts) parts_.push_back(tupleText(t));
  return fmt::format("{} of {}: {}  [parts {}]", kindName(kind), numRanks, pred.str(), fmt::join(parts_, " "));
}

SectionGrid sectionGrid(const RankTuple& t) {
  SectionGrid d;
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

}  // namespace tracegen
