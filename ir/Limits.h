// The limits tracegen puts on traces (docs/trace-format.md, "Limits"), shared by both readers
// and by everything that expands a trace.
//
// Values the formats can hold but no MPI program can make (a negative count, a tag beyond C's
// int, an infinite time) are rejected where they are read, so that the arithmetic done on them
// later stays in range; what cannot be bounded value by value (products over nested loops,
// sums over a rank's calls) is checked where it is formed (ir/Checked.h). Work that grows with
// the expanded trace or with the declared number of ranks is charged to an ExpansionBudget,
// which refuses the trace with a diagnostic once the budget is spent instead of running for
// hours or allocating in proportion to a number the file merely declares.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/Ops.h"

namespace tracegen {

struct Event;
struct Trace;

constexpr std::int64_t kMaxRanks = std::numeric_limits<std::int32_t>::max();  // MPI ranks are C ints
constexpr std::int64_t kMaxLoopLevels = 64;  // loop nesting levels 0..63
constexpr std::int64_t kMaxInt32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMinInt32 = std::numeric_limits<std::int32_t>::min();
// Times (microseconds) and instruction counts (thousands) in histograms and compute lines:
// finite, not negative, and at most 10^15 (31 years in microseconds), so that means, sums
// and scaled values stay finite.
constexpr double kMaxTimeValue = 1e15;
// Calls (and per-rank cursor set-ups) that one expansion of a whole trace may make: inspect,
// compare and resolve-comms each refuse a trace that needs more. A step costs about 120 ns in a
// release build (an MPI_Sendrecv's), so 5 * 10^6 steps keep any input within the 1 s issue 29
// asks for; loop iterations that repeat are multiplied, not expanded (RankCursor's loop
// listener), so only loops whose values never repeat spend the budget.
constexpr std::int64_t kExpansionBudget = 5'000'000;
// Values of one vector parameter for one call (an Alltoallv's counts per communicator member)
// that a rank's expansion materialises: 2^22 (32 MiB). A trace whose calls would need more is
// refused with its file:line rather than allocating in proportion to a declared rank count.
constexpr std::int64_t kMaxVectorValues = std::int64_t{1} << 22;

// The most values one call's vector parameter `p` can have in a trace of `numRanks` ranks: a
// request vector at most the request ring, a graph's edges or destinations at most P^2, any
// other (ranks, range triples, counts per member) at most 3 per rank; never more than
// kMaxVectorValues. A count that asks for more is refused before anything is allocated for it
// (the rank cursor, the generator's traversal).
std::int64_t maxVectorValues(Param p, std::int64_t numRanks);

// Why `v` is not a valid value of parameter `p` (nullopt when it is). Covers the ranges that
// do not depend on the trace: counts 0..2^31-1, tags, colours, keys and vector entries within
// C's int. Peers, roots and ids are checked by the readers against the trace.
std::optional<std::string> paramValueProblem(Param p, std::int64_t v);
// Why `v` is not a valid time or instruction count (nullopt when it is).
std::optional<std::string> timeValueProblem(double v);
// Throws an InputError at `line` of `file` unless `us` is a time a benchmark can state: the
// backends call it on every compute time they emit, so that no `compute(inf)` (which does not
// compile) or wrapped integer reaches a generated program, whatever pass produced the value
// (an --instruction-rate of 1e-300 turns instruction counts into infinite times).
void requireEmittableTime(double us, const std::string& file, int line, std::string_view what);
// Parameters without which a call of `op` cannot be reproduced in a benchmark (the peer of a
// send, the communicator MPI_Comm_free frees, ...). Reading and inspecting do not need them
// (a trace without peers still has counts); generation does.
std::vector<Param> requiredParams(Op op);
// The first required parameter `e` lacks, if any.
std::optional<Param> missingParam(const Event& e);
// Throws an InputError at the line of the first event of `trace` that lacks a required
// parameter; called before generation, so that the error names the trace's file:line rather
// than coming from a backend that no longer knows it.
void requireParams(const Trace& trace, const std::string& file);

// A budget of steps for one expansion of a trace; spend() throws an InputError naming `line`
// (the event being expanded) once more than the budget has been spent. `what` says which
// command expands, for the message ("inspect expands every rank's calls").
class ExpansionBudget {
 public:
  ExpansionBudget(std::string fileName, std::string what, std::int64_t limit = kExpansionBudget)
      : fileName_(std::move(fileName)), what_(std::move(what)), limit_(limit) {}
  void spend(std::int64_t steps, int line) {
    if (steps > limit_ - spent_) exceeded(line);
    spent_ += steps;
  }
  // Refuses up front when `steps` alone exceed what is left (e.g. one cursor per declared rank).
  void require(std::int64_t steps, int line, const std::string& why) const;
  std::int64_t spent() const { return spent_; }
  std::int64_t limit() const { return limit_; }

 private:
  [[noreturn]] void exceeded(int line) const;
  std::string fileName_;
  std::string what_;
  std::int64_t limit_;
  std::int64_t spent_ = 0;
};

}  // namespace tracegen
