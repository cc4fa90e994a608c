// Per-task simulation of a coNCePTuaL program for the checker (see Checker.h).
//
// With num_tasks fixed and every parameter at its default, the program's start-up phase is
// deterministic (§4.1), so the checker can do what the c_mpi start-up code does: walk the
// statements in order, evaluate loop bounds, IF conditions, LET bindings and task sets, and
// record per task what it posts and awaits. FOR … REPETITIONS bodies are walked once and
// their message counts multiplied by the trip count (every iteration is the same); FOR EACH
// loops are walked once per value. The walk reports
//   * asynchronous operations a task never awaits, or does not await inside the
//     FOR … REPETITIONS / FOR <time> body that posted them (§4.8, §3.6);
//   * UNSUSPECTING sends and explicit RECEIVEs whose message counts differ per
//     (sender, receiver, tag): the program would hang;
//   * blocking sends to oneself without UNSUSPECTING, and blocking statements whose implicit
//     (blocking) receives form a cycle: both deadlock (§4.7);
//   * messages of 2 GiB or more (§4.18) and ASSERT THAT conditions that fail.
// Anything it cannot evaluate exactly (random functions, FILE_DATA, MY TASK, k-nomial trees,
// A RANDOM TASK, a range without a pattern) makes it give up without a verdict, as does
// exceeding the evaluation budget.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "ncptl/Parser.h"

namespace tracegen::ncptl {

// One task's traffic: the messages of its UNSUSPECTING sends and of its explicit RECEIVEs, with
// their bytes (the parameters at their defaults), and the collective statements (MULTICAST,
// REDUCE, SYNCHRONIZE) it takes part in, as a sender or a receiver; their bytes are not counted.
struct TaskTraffic {
  std::int64_t sent = 0, sentBytes = 0, received = 0, receivedBytes = 0, collectives = 0;
  bool operator==(const TaskTraffic&) const = default;
};

struct SimulationResult {
  bool completed = false;
  std::vector<Diagnostic> diagnostics;
  std::vector<TaskTraffic> traffic;  // per task, when completed
  // The order of every task's operations was played for deadlocks: not when the counts already
  // fail, nor beyond kMaxOrderEvents communication events (Simulator.cpp).
  bool orderChecked = false;
};

// The task count a top-level `ASSERT THAT "…" WITH num_tasks = e` (or `e = num_tasks`) fixes,
// with the parameters at their defaults; nullopt if there is none or it cannot be evaluated.
std::optional<std::int64_t> fixedTaskCount(const Program& program);

SimulationResult simulate(const Program& program, std::int64_t numTasks, std::int64_t budget);

}  // namespace tracegen::ncptl
