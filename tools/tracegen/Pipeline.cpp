#include <fmt/format.h>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>

#include "ir/Diagnostics.h"
#include "io/Readers.h"
#include "passes/PassManager.h"
#include "tools/tracegen/Commands.h"

namespace tracegen {

void addPipelineOptions(CLI::App& cmd, PipelineOptions& opts) {
  cmd.add_option("--passes", opts.passes, "comma-separated passes to run instead of the default pipeline");
  cmd.add_option("--print-after", opts.printAfter, "print the IR to stderr after this pass (or 'all')")
      ->delimiter(',');
  cmd.add_flag("--stats", opts.stats, "print what each pass changed, and its time, to stderr");
  cmd.add_flag("!--no-verify", opts.verify, "skip the IR verifier between passes");
  cmd.add_option("--timing", opts.timing, "compute time statistic taken from the histograms")
      ->check(CLI::IsMember({"avg", "median", "max"}))
      ->capture_default_str();
  cmd.add_option("--instruction-rate", opts.instructionRate,
                 "instructions per second, to turn instruction counts of time-independent traces into time")
      ->check(CLI::PositiveNumber);
  cmd.add_option("--search-budget", opts.searchBudget,
                 "states the wildcard matcher may explore looking for a matching that completes")
      ->capture_default_str();
  cmd.add_option("--search-options", opts.searchOptions,
                 "options (receive, message) the wildcard matcher keeps to revisit its decisions (16 bytes each)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--wildcard-senders", opts.wildcardSenders,
                 "the sender each MPI_ANY_SOURCE receive takes: the one the recording saw (where it says, `matched`), "
                 "or the earliest-arrival matching a simulated run finds")
      ->check(CLI::IsMember({"recorded", "earliest"}))
      ->capture_default_str();
  cmd.add_option("--call-budget", opts.callBudget,
                 "calls a simulation, or the matching of receive sizes with their sends, may expand where the compressed-form checks cannot decide (over all ranks)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
}

std::string warningText(const std::string& file, const std::string& warning) {
  // A warning that starts with `FILE:LINE: ` (the readers') is printed as compilers print one
  // at a location; any other concerns the input as a whole and names its file.
  // Only the first line carries the location; the lines after it go on as they are.
  static const std::regex located(R"(^([^ :]+:[0-9]+): (.*)$)");
  const std::size_t eol = std::min(warning.find('\n'), warning.size());
  const std::string first = warning.substr(0, eol), rest = warning.substr(eol);
  std::smatch m;
  if (std::regex_match(first, m, located)) return fmt::format("{}: warning: {}{}", m[1].str(), m[2].str(), rest);
  return fmt::format("{}: warning: {}", file, warning);
}

void printReaderWarnings(const Trace& trace, const std::string& file) {
  for (const auto& w : trace.warnings) std::cerr << warningText(file, w) << "\n";
}

Trace readAndLower(const std::string& input, const PipelineOptions& opts, PassContext& ctx) {
  Trace trace = readTraceFile(input);
  for (const auto& w : trace.warnings) ctx.warn(w);
  std::vector<std::string> names;
  if (opts.passes.empty()) {
    names = defaultPipeline();
  } else {
    std::stringstream ss(opts.passes);
    std::string n;
    while (std::getline(ss, n, ','))
      if (!n.empty()) names.push_back(n);
  }
  ctx.fileName = input;
  ctx.options.timing = opts.timing == "max" ? TimingMode::Max : opts.timing == "median" ? TimingMode::Median : TimingMode::Avg;
  ctx.options.instructionRate = opts.instructionRate;
  ctx.options.wildcardSearchBudget = opts.searchBudget;
  ctx.options.wildcardStoredOptions = opts.searchOptions;
  ctx.options.callBudget = opts.callBudget;
  ctx.options.recordedSenders = opts.wildcardSenders == "recorded";
  PassManager pm(names);
  pm.setVerify(opts.verify);
  pm.setPrintAfter(opts.printAfter, &std::cerr);
  pm.run(trace, ctx);
  for (const auto& w : ctx.warnings) std::cerr << warningText(input, w) << "\n";
  if (opts.stats) {
    std::cerr << "===-------------------------------------------------------------===\n"
              << "                     tracegen pass statistics\n"
              << "===-------------------------------------------------------------===\n";
    for (const auto& t : pm.timings()) {
      std::cerr << fmt::format("{:<20} {:>9.3f} ms  events {} -> {}\n", t.pass, t.seconds * 1e3, t.eventsBefore,
                               t.eventsAfter);
      for (const auto& [counter, value] : ctx.stats[t.pass])
        std::cerr << fmt::format("  {:>10}  {}\n", value, counter);
    }
  }
  return trace;
}

void writeOutput(const std::string& path, const std::string& text) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  std::ofstream out(path, std::ios::binary);
  if (!out) throw InputError(path, 0, "cannot open for writing");
  out << text;
  if (!out.flush()) throw InputError(path, 0, "cannot write");
}

}  // namespace tracegen
