// The shape of a rank set: what kind of set it is and a predicate over the rank that holds
// exactly for its members among 0 … P-1, as data rather than text.
//
// The rank-ranges pass (passes/RankRanges.h) finds, for every rank set of a trace, the
// shortest exact description and stores it as a RankShape; the backends spell it in their
// language (gen/RankSetText.h: a C condition, a coNCePTuaL task description). Nothing here is
// C or coNCePTuaL: the IR text (`str()`, shown by `--print-after rank-ranges`) uses `mod`,
// `and`, `or`, `in`, and the later extrapolation stage can rewrite the numbers of a shape as
// formulas of the rank count without parsing anything.
//
// A predicate is a small tree: true, false, an atom, or a conjunction / disjunction of
// predicates. Atoms compare the rank, possibly shifted and reduced by a chain of moduli,
// with a constant (`rank < 8`, `(rank - 3) mod 4 < 2`, `rank mod 16 mod 4 >= 1`), or test
// membership in a list of ranks (`rank in {3, 7, 20}`). There is room for atoms over grid
// coordinates later (a new Atom::Kind).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ir/RankList.h"

namespace tracegen {

enum class RankCmp { Lt, Le, Gt, Ge, Eq, Ne };

RankCmp negate(RankCmp c);
// `<`, `<=`, `>`, `>=`, `=`, `!=` (the IR spelling).
std::string_view cmpName(RankCmp c);

struct RankAtom {
  enum class Kind {
    Compare,  // ((rank - offset) mod mods[0] mod mods[1] …) cmp value
    In,       // rank in members (sorted); `cmp` is Eq (member) or Ne (not a member)
  };
  Kind kind = Kind::Compare;
  Rank offset = 0;
  std::vector<Rank> mods;
  RankCmp cmp = RankCmp::Eq;
  Rank value = 0;
  std::vector<Rank> members;

  static RankAtom compare(RankCmp cmp, Rank value, Rank offset = 0, std::vector<Rank> mods = {});
  static RankAtom in(std::vector<Rank> members);
  bool holds(Rank rank) const;
  RankAtom negated() const;
  bool operator==(const RankAtom&) const = default;
};

struct RankPred {
  enum class Kind { True, False, Atom, And, Or };
  Kind kind = Kind::True;
  RankAtom atom;                  // Kind::Atom
  std::vector<RankPred> children;  // Kind::And, Kind::Or (two or more)

  static RankPred always() { return RankPred{}; }
  static RankPred never() { return RankPred{Kind::False, {}, {}}; }
  static RankPred of(RankAtom a) { return RankPred{Kind::Atom, std::move(a), {}}; }
  // Conjunction / disjunction; one child is that child, none is true / false.
  static RankPred all(std::vector<RankPred> children);
  static RankPred any(std::vector<RankPred> children);

  bool holds(Rank rank) const;
  // The negation, pushed down to the atoms by De Morgan (no NOT node: coNCePTuaL has none).
  RankPred negated() const;
  // Written size: the length of the infix text with a four-letter variable, two-letter
  // connectives, `%` for mod, and a disjunction in parentheses (also inside a conjunction),
  // a conjunction inside a disjunction in parentheses. The rank-ranges pass picks the form of
  // a set with the smallest size.
  std::size_t size() const;
  // IR text: `rank mod 2 = 1 and rank < 8`, `(rank = 3 or rank = 7)`.
  std::string str(std::string_view var = "rank") const;
  bool operator==(const RankPred&) const = default;
};

struct RankShape {
  enum class Kind { Empty, All, One, Progression, Block, Union, Complement, List };
  Kind kind = Kind::Empty;
  // Holds exactly for the members among 0 … numRanks-1: the direct form (one conjunction per
  // part, or'ed), or for Complement the negation of the few sections left out.
  RankPred pred;
  // The members as disjoint sections in ascending order of first rank, lone ranks as
  // sections without dimensions (a section of two or three ranks may be split into lone
  // ranks): what range lists (`{3, 7}, {1, ..., 4}`) and loops over the set are built from.
  std::vector<RankTuple> parts;
  Rank numRanks = 0;
  Rank members = 0;

  // `progression: rank mod 2 = 1 and rank < 8  [parts 1:4:2]`.
  std::string str() const;
  bool operator==(const RankShape&) const = default;
};

std::string_view kindName(RankShape::Kind k);

// A nested section read as a grid: the digits of its start in the mixed radix of its
// strides, and whether the section stays inside one row at every level in those coordinates
// (then predicates and comprehensions use absolute grid coordinates; otherwise coordinates
// relative to the start).
struct SectionGrid {
  bool absolute = true;
  Rank base = 0;            // added to every member: the part of start below the smallest stride
  std::vector<Rank> digit;  // first coordinate per dimension
};
SectionGrid sectionGrid(const RankTuple& t);

}  // namespace tracegen
