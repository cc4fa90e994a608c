// A lowering pass: one named transformation of the trace, with counters of what it changed.
//
// Passes follow LLVM's new pass manager in spirit: each pass lives in its own file in
// passes/, opens with a paragraph on its algorithm, and has one entry point (`run`). The
// PassManager runs an ordered list of them, verifies the IR between passes, and can print the
// IR after any pass (`tracegen --print-after=NAME`).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

enum class TimingMode { Avg, Median, Max };

struct PassOptions {
  TimingMode timing = TimingMode::Avg;
  // Instructions per second, to turn the kilo-instruction counts of time-independent traces
  // into time; 0 = not given.
  double instructionRate = 0;
  // Upper bound on the states the wildcard matcher explores before giving up.
  std::int64_t wildcardSearchBudget = 100000;
  // Upper bound on the calls a simulation of the whole program may expand (over all ranks and
  // all restarts of the wildcard search): what the compressed-form analysis cannot decide is
  // simulated up to this size, and said undecided beyond it.
  std::int64_t callBudget = 10'000'000;
};

struct PassContext {
  std::string fileName;  // for diagnostics
  PassOptions options;
  std::vector<std::string> warnings;
  // Counters by pass name, then counter name (`tracegen --stats`).
  std::map<std::string, std::map<std::string, std::int64_t>> stats;
  std::string currentPass;
  // Facts the pipeline has established so far (e.g. "communication-checked": every message
  // matched and no deadlock), for later passes and the verifier.
  std::set<std::string> established;

  std::int64_t& counter(const std::string& name) { return stats[currentPass][name]; }
  void warn(std::string message) { warnings.push_back(std::move(message)); }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual void run(Trace& trace, PassContext& ctx) = 0;
};

}  // namespace tracegen
