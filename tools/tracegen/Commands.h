// The subcommands of `tracegen`, one file each. Every command returns the process exit status:
// 0 success, 1 a comparison that found differences, 2 bad input or usage, 3 a trace that
// describes a program that cannot complete (potential deadlock).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "passes/Pass.h"

namespace tracegen {

// Options shared by every command that runs the lowering pipeline.
struct PipelineOptions {
  std::string passes;                    // comma-separated; empty = default pipeline
  std::vector<std::string> printAfter;   // pass names or "all"
  bool stats = false;
  bool verify = true;
  std::string timing = "avg";
  double instructionRate = 0;
  std::int64_t searchBudget = 100000;
  std::int64_t searchOptions = 4'194'304;  // PassOptions::wildcardStoredOptions
  std::int64_t callBudget = 10'000'000;
  std::string wildcardSenders = "recorded";  // PassOptions::recordedSenders
};
void addPipelineOptions(CLI::App& cmd, PipelineOptions& opts);
// Prints what the reader completed or guessed (e.g. MPI_Init added before a fragment) to
// stderr as `tracegen: warning: file:line: ...`. Every command that reads a trace calls it, so
// that no command changes a trace silently.
// Warnings print as `FILE:LINE: warning: ...` where the warning names its line, else `FILE: warning: ...`.
void printReaderWarnings(const Trace& trace, const std::string& file);
// Reads the trace, runs the pipeline, prints --stats to stderr. Throws on errors.
Trace readAndLower(const std::string& input, const PipelineOptions& opts, PassContext& ctx);

// Registration: each adds its subcommand and sets `run` to its action when selected.
using CommandAction = std::function<int()>;
void registerInspectCommand(CLI::App& app, CommandAction& run);
void registerConvertCommand(CLI::App& app, CommandAction& run);
void registerLowerCommand(CLI::App& app, CommandAction& run);
void registerCompareCommand(CLI::App& app, CommandAction& run);
void registerMergeTimingCommand(CLI::App& app, CommandAction& run);
void registerGenerateCommand(CLI::App& app, CommandAction& run, std::string commandLine);
void registerExtrapolateCommand(CLI::App& app, CommandAction& run);
void registerSimulateCommand(CLI::App& app, CommandAction& run);

// Exit status 0 when the traces make the same calls and bytes on every rank (bytes may differ by
// up to `bytesTolerancePercent` of the larger figure), 1 otherwise.
int runCompare(const std::string& a, const std::string& b, std::ostream& out, double bytesTolerancePercent = 0);

// Writes to `path`, or to standard output for "-". Throws InputError if it cannot.
void writeOutput(const std::string& path, const std::string& text);

}  // namespace tracegen
