// rank-ranges: rank sets written as task expressions a reader can follow, in coNCePTuaL and C.
//
// Every rank set of a trace (event ranks, value groups, loop groups, communicator instances)
// is a RankList: a union of nested regular sections. Backends have to name such sets twice —
// as a coNCePTuaL task description (`tasks t such that t MOD 2 = 1 /\ t < 8`) and as a C
// condition on the MPI rank (`rank % 2 == 1 && rank < 8`) — and the shortest exact wording
// is what makes a generated benchmark readable. rankExpr() derives both from the tuples alone
// (a million-rank grid block costs a handful of integer operations); see RankRanges.cpp for
// the algorithm.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ir/RankList.h"
#include "ir/Trace.h"
#include "passes/Pass.h"

namespace tracegen {

struct RankExprOptions {
  // Names bound by the expressions. The coNCePTuaL name must be a legal identifier that is
  // not a keyword (§1.3 of the language reference), and must differ from any other task
  // variable of the statement it goes into (e.g. `d` for the target side of a SEND whose
  // source side binds `t`).
  std::string taskVar = "t";
  std::string cVar = "rank";
  // The description is used where `ALL TASKS` is illegal (the TO side of SENDS/MULTICASTS,
  // the receiving side of RECEIVES, §3.2): the full set is written `tasks t such that t >= 0`.
  bool target = false;
  // Every set with more than one member binds taskVar (`tasks t such that …` or
  // `all tasks t`), never a range list: for statements that use the task variable later
  // (`… COMPUTE FOR 10*t MICROSECONDS`) or that already use a range list on the other side
  // of a RECEIVE (§3.1 rule 3). A single rank is then `tasks t such that t = 5`.
  bool bindVariable = false;
  // Blocks and lists are written as range lists (`tasks {x + 4*y for each y in …}`) only
  // while (members × numRanks) stays within this budget: the c_mpi start-up code tests every
  // candidate task against the whole list (§4.1 cost model), so a large comprehension is
  // quadratic. Larger blocks become closed-form `such that` predicates.
  std::int64_t comprehensionBudget = std::int64_t{1} << 22;
};

// The simplest exact task expression for `ranks` among the tasks 0 … numRanks-1 (ranks must
// lie in that range; numRanks is raised to last+1 if it is smaller). Kinds:
//   all          every rank                  `all tasks t`                 `1`
//   single       one rank                    `task 5`                      `rank == 5`
//   progression  one arithmetic progression  `tasks t such that t MOD 2 = 1 /\ t < 8`
//                                                                          `rank % 2 == 1 && rank < 8`
//   block        one 2-D/3-D/… section       `tasks {x + 4*y for each y in {1, ..., 2}
//                                              for each x in {1, ..., 2}}`
//                                            `rank % 4 >= 1 && rank % 4 < 3 && rank >= 4 && rank < 12`
//   list         two or more lone ranks      `tasks {3, 7, 20}`            `(rank == 3 || rank == 7 || rank == 20)`
//   union        any other union of the above, as a disjunction (or a range list when it
//                holds a block written as a comprehension)
//   complement   all ranks but one section or a few lone ranks, when that is shorter:
//                `tasks t such that t <> 5`, `rank != 5`
//   empty        no rank                     `tasks t such that t < 0`     `0`
// With options.target, `all` is `tasks t such that t >= 0`. Every C expression whose top
// level is `||` comes parenthesised, so each one can be put next to `&&` or `||` unchanged
// (a bare conjunction next to `||` is correct C; wrap it only to silence -Wparentheses).
RankExpr rankExpr(const RankList& ranks, Rank numRanks);
RankExpr rankExpr(const RankList& ranks, Rank numRanks, const RankExprOptions& options);

// C statements that execute `body` once for every member of `ranks` with `int <var>` bound
// to it, in ascending order, for backends that iterate over a set (posting one receive per
// member, say). Up to eight non-interleaving sections become one loop nest each (body
// repeated per nest); anything else is one scan of [first, last] filtered by the rankExpr
// condition. Examples, var `r`, body `f(r);`:
//   {1,3,5,7}         for (int r = 1; r < 8; r += 2)
//                       f(r);
//   rows 1-2 and      for (int r_1 = 5; r_1 < 10; r_1 += 4)   (r_1: first rank of each row)
//   columns 1-2 of      for (int r = r_1; r < r_1 + 2; ++r)
//   a 4x4 grid            f(r);
// Nested loops indent by two spaces; the result has no trailing newline; an empty set gives
// an empty string. The loops cost O(members) at run time, the filtered scan O(last-first).
std::string cForEach(const RankList& ranks, Rank numRanks, std::string_view var, std::string_view body);

// Fills trace.rankExprs for every distinct rank set of the trace, keyed by RankList::str().
class RankRangesPass : public Pass {
 public:
  std::string_view name() const override { return "rank-ranges"; }
  std::string_view description() const override {
    return "write every rank set as the shortest task expression in coNCePTuaL and C";
  }
  void run(Trace& trace, PassContext& ctx) override;
  IrProperties requiredProperties() const override { return {}; }
  IrProperties establishedProperties() const override { return {IrProperty::RankSetsNamed}; }
  IrProperties preservedProperties() const override { return IrProperties::all(); }
};

std::unique_ptr<Pass> createRankRangesPass();

}  // namespace tracegen
