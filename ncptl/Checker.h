// The coNCePTuaL checker: is a program acceptable to the 1.5.1b compiler, and is it free of the
// pitfalls the language reference lists for generated code?
//
// check() lexes and parses the program (Lexer.h, Parser.h) and then enforces, in one walk over
// the syntax tree with a scope stack:
//   * the static rules of §3: variables declared before use and never redefined when
//     predeclared; task variables visible only where §3.1 says (not in message
//     specifications); the task descriptions §3.2 allows in each position; determinism (§3.3);
//     header declarations (§3.4); message attributes (§3.5); the c_mpi restrictions (§3.6);
//   * the checklist items of §6 that can be decided from the text: '.' after every header
//     declaration and top-level statement, braces around nested IFs, no '-' before a keyword
//     that starts an expression, integer literals only, no counters outside LOGS/OUTPUTS, no
//     `&`/`|` in LOGS/OUTPUTS, REDUCE and MULTICAST forms, AWAIT COMPLETION inside every
//     FOR … REPETITIONS body that posts asynchronous operations and before the end of the
//     program, REQUIRE LANGUAGE VERSION "1.5", messages below 2 GiB, non-negative durations.
// With `generated` set it also rejects everything outside the «G» subset and what the
// checklist asks of generated programs only (every loop/IF/LET body braced, an
// `ASSERT THAT … WITH num_tasks = P`).
//
// Generated programs state their task count (`num_tasks = P`) or, when CheckOptions::scaleFree
// says they are scale-free, the least they need (`num_tasks >= N`, at top level).
// When the program fixes the task count (`ASSERT THAT "…" WITH num_tasks = P` at top level),
// or CheckOptions::tasks gives one, a per-task simulation (Simulator.h) evaluates every task set with the parameters at their
// defaults and checks what only the actual tasks reveal: which task leaves an asynchronous
// operation unawaited, UNSUSPECTING sends without a matching RECEIVE (and the reverse),
// blocking sends to oneself, blocking statements whose implicit receives form a cycle, and
// failing assertions. Its findings replace the purely textual AWAIT analysis.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ncptl/Lexer.h"
#include "ncptl/Simulator.h"

namespace tracegen::ncptl {

struct CheckOptions {
  // Also enforce the «G» subset and the generator-only checklist items.
  bool generated = false;
  // Run the per-task simulation when num_tasks is fixed by an assertion.
  bool simulate = true;
  // Simulate with this many tasks instead (0: the count the assertion fixes). A scale-free
  // program, which fixes none, is simulated only so, once per count it is meant to run at.
  std::int64_t tasks = 0;
  // The program is scale-free (tracegen extrapolate without --ranks): in generated mode it
  // states the least task count it needs (`num_tasks >= N`) instead of fixing one.
  bool scaleFree = false;
  // Upper bound on expression evaluations in the simulation; beyond it the simulation gives
  // up silently (the textual checks still apply).
  std::int64_t simulationBudget = 50'000'000;
};

struct CheckResult {
  std::vector<Diagnostic> diagnostics;  // sorted by position
  bool simulated = false;               // the per-task simulation ran to completion
  std::int64_t simulatedTasks = 0;      // with this many tasks
  bool orderChecked = false;            // and the order of operations played for deadlocks
  std::vector<TaskTraffic> traffic;     // per task, when simulated
  std::size_t errorCount() const;
  bool ok() const { return errorCount() == 0; }
};

CheckResult check(std::string_view source, const CheckOptions& options = {});

// `file:line: error: message`, then the source line and a `^~~~` marker under the offending
// text (clang style).
std::string formatDiagnostic(std::string_view file, std::string_view source, const Diagnostic& d);

}  // namespace tracegen::ncptl
