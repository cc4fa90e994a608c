// `tracegen extrapolate T1 T2 [T3 ...] --ranks P -o OUT.tgt`: traces of one application recorded
// at two or more rank counts give its trace at P ranks (extrap/Extrapolate.h says how), which
// every other command then takes as it is. The result is checked by the verifier like a trace
// read from a file. `--explain` prints, per quantity that changes with scale, its values at the
// inputs, the model chosen and its value at P; `--stats` the counters. A scale-free benchmark
// (no --ranks) is not supported yet.
#include <fmt/format.h>

#include <chrono>
#include <iostream>

#include "extrap/Extrapolate.h"
#include "io/Compression.h"
#include "ir/Diagnostics.h"
#include "io/Readers.h"
#include "ir/Verify.h"
#include "tools/tracegen/Commands.h"

namespace tracegen {

void registerExtrapolateCommand(CLI::App& app, CommandAction& run) {
  struct Args {
    std::vector<std::string> inputs;
    std::string output, grid;
    std::int64_t ranks = 0;
    bool explain = false, stats = false, plain = false;
  };
  static Args args;
  CLI::App* cmd = app.add_subcommand(
      "extrapolate", "from traces of one application at two or more rank counts, its trace at another rank count");
  cmd->add_option("inputs", args.inputs, "traces of one application, each at another rank count")->required();
  cmd->add_option("--ranks", args.ranks, "the rank count of the trace to write");
  cmd->add_option("--grid", args.grid, "the process grid at the target (8x8, 4x4x4): forces its dimension and extents");
  cmd->add_option("-o,--output", args.output,
                  "output trace: plain text, zstd-compressed when the name ends in .zst ('-' for standard output)")
      ->required();
  cmd->add_flag("--explain", args.explain, "per quantity that changes with scale: inputs, model, value at the target");
  cmd->add_flag("--stats", args.stats, "print the counters of the extrapolation to standard error");
  cmd->callback([&run] {
    run = [] {
      const auto start = std::chrono::steady_clock::now();
      if (args.ranks == 0 && args.grid.empty())
        throw InputError("extrapolate", 0,
                         "scale-free benchmarks (no --ranks) are not supported yet; give the target rank count with "
                         "--ranks P");
      if (args.ranks < 0 || args.ranks > 2147483647)
        throw InputError("extrapolate", 0, fmt::format("--ranks {}: expected 1 to 2147483647", args.ranks));
      extrap::ExtrapolateOptions opts;
      opts.ranks = args.ranks;
      if (!args.grid.empty()) {
        std::string problem;
        opts.grid = extrap::parseGrid(args.grid, problem);
        if (!opts.grid) throw InputError("extrapolate", 0, problem);
      }
      std::vector<extrap::ExtrapolateInput> inputs;
      for (const auto& path : args.inputs) {
        inputs.push_back({path, readTraceFile(path)});
        printReaderWarnings(inputs.back().trace);
      }
      const extrap::ExtrapolateResult r = extrap::extrapolate(inputs, opts);
      verifyStructure(r.trace, args.output);
      const std::string text = tracegenText(r.trace);
      const bool compressed = args.output.size() > 4 && args.output.ends_with(".zst");
      writeOutput(args.output, compressed ? compressTrace(text) : text);
      std::ostream& info = args.output == "-" ? std::cerr : std::cout;
      info << r.summary();
      if (args.explain)
        for (const auto& line : r.explanation) info << "  " << line << "\n";
      if (args.stats) {
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::cerr << "=== extrapolate ===\n";
        for (const auto& [name, value] : r.stats) std::cerr << fmt::format("  {:>10}  {}\n", value, name);
        std::cerr << fmt::format("  {:>10}  output bytes\n", text.size());
        std::cerr << fmt::format("  {:>10.3f}  seconds\n", s);
      }
      return 0;
    };
  });
}

}  // namespace tracegen
