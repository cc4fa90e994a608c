// Spelling rank sets and peers: a RankShape (ir/RankShape.h, found by the rank-ranges pass)
// as a C condition or a coNCePTuaL task description, and a peer stored as an offset from the
// calling rank as C or coNCePTuaL arithmetic that wraps around only where it has to.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/RankList.h"
#include "ir/RankShape.h"

namespace tracegen::gen {

// ---------------------------------------------------------------------------------------------
// Rank sets

// A C condition on `var` that holds exactly for the shape's ranks among 0 … P-1:
//   all `1`, empty `0`, one `rank == 5`, progression `rank % 2 == 1 && rank < 8`,
//   block `rank % 4 >= 1 && rank % 4 < 3 && rank >= 4 && rank < 12`,
//   list `(rank == 3 || rank == 7 || rank == 20)`, complement `rank != 5`.
// Every condition whose top level is `||` comes parenthesised, so each one can be put next to
// `&&` or `||` unchanged (a bare conjunction next to `||` is correct C; wrap it only to
// silence -Wparentheses).
std::string cRankCondition(const RankShape& shape, std::string_view var = "rank");

struct RankExprOptions {
  // The name bound by the description. It must be a legal identifier that is not a keyword
  // (§1.3 of the language reference), and must differ from any other task variable of the
  // statement it goes into (e.g. `d` for the target side of a SEND whose source side binds
  // `t`).
  std::string taskVar = "t";
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

// The coNCePTuaL task description of the shape (keywords in lower case):
//   all          `all tasks t` (with options.target `tasks t such that t >= 0`)
//   one          `task 5` (with options.bindVariable `tasks t such that t = 5`)
//   progression  `tasks t such that t MOD 2 = 1 /\ t < 8`
//   block        `tasks {x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}`
//   list         `tasks {3, 7, 20}`
//   union        a disjunction, or a range list when it holds a block
//   complement   `tasks t such that t <> 5`
//   empty        `tasks t such that t < 0`
// Blocks, lists and unions with blocks fall back to the `such that` predicate with
// options.bindVariable or beyond options.comprehensionBudget.
std::string ncptlTasks(const RankShape& shape, const RankExprOptions& options = {});
// True if ncptlTasks(shape, options) names one task without binding a variable (`task 5`).
bool ncptlSingleTask(const RankShape& shape, const RankExprOptions& options);

// C statements that execute `body` once for every member of `ranks` with `int <var>` bound
// to it, in ascending order, for code that iterates over a set (posting one receive per
// member, say). Up to eight non-interleaving sections become one loop nest each (body
// repeated per nest); anything else is one scan of [first, last] filtered by the set's
// condition. Examples, var `r`, body `f(r);`:
//   {1,3,5,7}         for (int r = 1; r < 8; r += 2)
//                       f(r);
//   rows 1-2 and      for (int r_1 = 5; r_1 < 10; r_1 += 4)   (r_1: first rank of each row)
//   columns 1-2 of      for (int r = r_1; r < r_1 + 2; ++r)
//   a 4x4 grid            f(r);
// Nested loops indent by two spaces; the result has no trailing newline; an empty set gives
// an empty string. The loops cost O(members) at run time, the filtered scan O(last-first).
std::string cForEach(const RankList& ranks, Rank numRanks, std::string_view var, std::string_view body);

// ---------------------------------------------------------------------------------------------
// Peers

// A peer `rank + offset` (mod P) of a statement executed by `ranks`, as it is best written:
// the representative of offset modulo P that keeps rank + offset inside 0 … P-1 for every
// rank of the set (then no wrap is needed), else the one of smallest magnitude (positive on
// a tie), wrapped.
struct PeerOffset {
  std::int64_t offset = 0;  // in -(P-1) … P-1
  bool wrap = false;        // rank + offset leaves 0 … P-1 for some rank of the set
};
PeerOffset peerOffset(std::int64_t offset, const RankList& ranks, Rank numRanks);

// The backends spell the result with their peer templates (templates/c/expr/rank_offset,
// templates/ncptl/peer): `rank`, `rank - 1`, `rank + 4`, `(rank + 1) % nranks`,
// `(rank + nranks - 1) % nranks`; `t`, `t-1`, `t+4`, `(t+1) MOD num_tasks`,
// `(t+num_tasks-1) MOD num_tasks`.

}  // namespace tracegen::gen
