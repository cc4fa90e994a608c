// `tracegen extrapolate T1 T2 [T3 ...] --ranks P -o OUT.tgt`: traces of one application recorded
// at two or more rank counts give its trace at P ranks (extrap/Extrapolate.h says how), which
// every other command then takes as it is. The result is checked by the verifier like a trace
// read from a file. `--explain` prints, per quantity that changes with scale, its values at the
// inputs, the model chosen and its value at P; `--stats` the counters. With an output named
// .c (.ncptl) and a target (--ranks or --grid), the extrapolated trace's C (coNCePTuaL) benchmark
// is written instead of the trace; without a target, one scale-free benchmark that runs at any
// rank count its formulas fit (extrap/ScaleFree.h). `--plot DIR` draws per quantity that
// changes with scale the inputs, the model chosen, the target and the hypotheses ruled out
// (viz/ScalingPlot.h), with an index.
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <set>
#include <system_error>

#include "extrap/Extrapolate.h"
#include "extrap/ScaleFree.h"
#include "gen/Backend.h"
#include "gen/ReceivedBytes.h"
#include "gen/Traversal.h"
#include "passes/PassManager.h"
#include "io/Compression.h"
#include "ir/Diagnostics.h"
#include "io/Readers.h"
#include "ir/Verify.h"
#include "tools/tracegen/Commands.h"
#include "viz/ScalingPlot.h"

namespace tracegen {

void registerExtrapolateCommand(CLI::App& app, CommandAction& run) {
  struct Args {
    std::vector<std::string> inputs;
    std::string output, grid;
    std::int64_t ranks = 0;
    bool explain = false, stats = false, plain = false;
    double instructionRate = 0;
    std::string plotDir, plotFormat = "svg";
    std::size_t plotLimit = kDefaultPlotLimit;
  };
  static Args args;
  CLI::App* cmd = app.add_subcommand(
      "extrapolate", "from traces of one application at two or more rank counts, its trace at another rank count");
  cmd->add_option("inputs", args.inputs, "traces of one application, each at another rank count")->required();
  cmd->add_option("--ranks", args.ranks, "the rank count of the trace to write");
  cmd->add_option("--grid", args.grid, "the process grid at the target (8x8, 4x4x4): forces its dimension and extents");
  cmd->add_option("-o,--output", args.output,
                  "output: a trace (plain text, zstd-compressed when the name ends in .zst; '-' for standard "
                  "output), or a C (.c) or coNCePTuaL (.ncptl) benchmark; without --ranks, a scale-free one")
      ->required();
  cmd->add_option("--instruction-rate", args.instructionRate,
                  "instructions per second, to turn the instruction counts of time-independent traces into time "
                  "in a benchmark (as in generation)")
      ->check(CLI::PositiveNumber);
  cmd->add_flag("--explain", args.explain, "per quantity that changes with scale: inputs, model, value at the target");
  cmd->add_flag("--stats", args.stats, "print the counters of the extrapolation to standard error");
  cmd->add_option("--plot", args.plotDir,
                  "draw per quantity that changes with scale its inputs, the model chosen, the target and the "
                  "hypotheses ruled out, one picture each, with index.txt and index.html, into DIR (created if "
                  "missing)");
  cmd->add_option("--plot-format", args.plotFormat, "the pictures' format: svg (default) or png");
  cmd->add_option("--plot-limit", args.plotLimit,
                  fmt::format("draw at most N pictures (default {}); the index lists every quantity", kDefaultPlotLimit));
  cmd->callback([&run] {
    run = [] {
      const auto start = std::chrono::steady_clock::now();
      // --plot is checked before any work: a bad directory or format costs no extrapolation.
      PictureFormat plotFormat = PictureFormat::Svg;
      if (args.plotFormat == "png") plotFormat = PictureFormat::Png;
      else if (args.plotFormat != "svg")
        throw InputError("", 0, fmt::format("--plot-format {}: expected svg or png", args.plotFormat));
      if (!args.plotDir.empty()) {
        if (args.ranks == 0 && args.grid.empty())
          throw InputError("", 0,
                           "--plot draws the models of an extrapolation to one scale: give it --ranks P (or --grid); a "
                           "scale-free benchmark has no target scale to mark");
        namespace fs = std::filesystem;
        std::error_code ec;
        const fs::path dir(args.plotDir);
        if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
          throw InputError("", 0, fmt::format("--plot {}: exists and is not a directory", args.plotDir));
        fs::create_directories(dir, ec);
        if (ec || !fs::is_directory(dir))
          throw InputError("", 0, fmt::format("--plot {}: cannot create the directory: {}", args.plotDir,
                                              ec ? ec.message() : "unknown error"));
      } else if (args.plotFormat != "svg" || args.plotLimit != kDefaultPlotLimit) {
        throw InputError("", 0, "--plot-format and --plot-limit go with --plot DIR");
      }
      const bool benchmark = args.output.size() > 2 && (args.output.ends_with(".c") || args.output.ends_with(".ncptl"));
      if (args.ranks == 0 && args.grid.empty() && !benchmark)
        throw InputError("extrapolate", 0,
                         "without --ranks the output is a scale-free benchmark: name it .c or .ncptl (or give the "
                         "target rank count with --ranks P to write a trace)");
      if (args.ranks < 0 || args.ranks > 2147483647)
        throw InputError("extrapolate", 0, fmt::format("--ranks {}: expected 1 to 2147483647", args.ranks));
      extrap::ExtrapolateOptions opts;
      opts.ranks = args.ranks;
      opts.plots = !args.plotDir.empty();
      if (!args.grid.empty()) {
        std::string problem;
        opts.grid = extrap::parseGrid(args.grid, problem);
        if (!opts.grid) throw InputError("extrapolate", 0, problem);
      }
      std::vector<extrap::ExtrapolateInput> inputs;
      for (const auto& path : args.inputs) {
        inputs.push_back({path, readTraceFile(path)});
        printReaderWarnings(inputs.back().trace, path);
      }
      const auto backend = gen::createBackend(args.output.ends_with(".ncptl") ? "ncptl" : "c");
      // Lowers a trace and builds its program, as `tracegen generate` does (receives matched
      // with their sends for the backend that names received sizes).
      auto lower = [&backend](Trace& trace, const std::string& name) {
        PassContext ctx;
        ctx.fileName = name;
        ctx.options.instructionRate = args.instructionRate;
        PassManager pm(defaultPipeline());
        pm.run(trace, ctx);
        gen::requireModelled(trace, name);
        gen::ReceivedBytes received;
        if (backend->needsReceivedBytes()) received = gen::matchReceivedBytes(trace, ctx.options.callBudget, ctx.everySendReceivedHolds(),
                                                  ctx.receivesTakeWhatTheyPostHolds());
        return gen::buildProgram(trace, name, received.matched ? &received : nullptr);
      };
      // As generation says it: the benchmark's compute times came from instruction counts.
      auto noteRate = [](gen::Program& program, const Trace& t) {
        if (args.instructionRate > 0 && !t.hasTime(Phase::Compute, TimeUnit::Microseconds) &&
            t.hasTime(Phase::Compute, TimeUnit::KiloInstructions))
          program.notes.push_back(fmt::format(
              "Compute times were converted from instruction counts at {:g} instructions per second "
              "(--instruction-rate).",
              args.instructionRate));
      };
      auto render = [&](const gen::Program& program) {
        writeOutput(args.output, backend->render(program, gen::GenOptions{"tracegen extrapolate", args.output}));
      };
      if (args.ranks == 0 && args.grid.empty()) {
        extrap::ScaleFreeResult sf = extrap::buildScaleFree(inputs, args.instructionRate);
        noteRate(sf.program, inputs.front().trace);
        render(sf.program);
        std::cout << sf.summary();
        if (args.explain)
          for (const auto& line : sf.explanation) std::cout << "  " << line << "\n";
        if (args.stats) {
          std::cerr << "=== extrapolate (scale-free) ===\n";
          for (const auto& [name, value] : sf.stats) std::cerr << fmt::format("  {:>10}  {}\n", value, name);
        }
        return 0;
      }
      const extrap::ExtrapolateResult r = extrap::extrapolate(inputs, opts);
      verifyStructure(r.trace, args.output);
      // The pictures, after the trace is known good; their summary on standard error when the
      // trace goes to standard output.
      auto plots = [&r, plotFormat](std::ostream& info) {
        if (args.plotDir.empty()) return;
        std::set<std::string> drawn;
        for (const auto& p : r.plots) drawn.insert(p.explanations.begin(), p.explanations.end());
        std::vector<std::string> unplotted;
        for (const std::string& line : r.explanation)
          if (!drawn.count(line)) unplotted.push_back(line);
        const PlotSet set = writeScalingPlots(r.plots, unplotted, args.plotDir, plotFormat, args.plotLimit);
        info << fmt::format("{} scaling-model picture{} written to {}", set.files.size(), set.files.size() == 1 ? "" : "s",
                            args.plotDir);
        if (set.left > 0)
          info << fmt::format(" (the first {} of {} quantities; the other {} are listed in index.txt: --plot-limit)",
                              set.files.size(), r.plots.size(), set.left);
        info << fmt::format("; index: {}/index.html\n", args.plotDir);
      };
      if (benchmark) {
        Trace lowered = r.trace;
        gen::Program program = lower(lowered, fmt::format("{} extrapolated to {} ranks", inputs.front().file, r.target.size()));
        noteRate(program, r.trace);
        for (const std::string& a : r.approximations) program.notes.push_back(a);
        if (!r.caution.empty()) program.notes.push_back(r.caution);
        render(program);
        std::cout << r.summary();
        if (args.explain)
          for (const auto& line : r.explanation) std::cout << "  " << line << "\n";
        plots(std::cout);
        return 0;
      }
      if (args.instructionRate > 0)
        std::cerr << "tracegen: note: --instruction-rate applies to benchmarks; the extrapolated trace keeps the "
                     "inputs' instruction counts\n";
      const std::string text = tracegenText(r.trace);
      const bool compressed = args.output.size() > 4 && args.output.ends_with(".zst");
      writeOutput(args.output, compressed ? compressTrace(text) : text);
      std::ostream& info = args.output == "-" ? std::cerr : std::cout;
      info << r.summary();
      if (args.explain)
        for (const auto& line : r.explanation) info << "  " << line << "\n";
      plots(info);
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
