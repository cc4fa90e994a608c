// `tracegen TRACE -o bench.c|bench.ncptl`: the benchmark generator.
//
// Reads the trace, runs the lowering pipeline, builds the program with the shared traversal
// and renders it with the backend the output's extension (or --emit) selects.
#include <chrono>
#include <filesystem>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <iostream>
#include <set>

#include "gen/Backend.h"
#include "gen/CRuntime.h"
#include "gen/Traversal.h"
#include "ir/Limits.h"
#include "passes/PassManager.h"
#include "tools/tracegen/Commands.h"

namespace tracegen {

namespace {
struct GenerateArgs {
  std::string input, output, emit;
  std::string runtime = "embedded";  // C: --runtime=embedded|separate
  PipelineOptions pipeline;
  bool timing = false;
  bool skipUnknown = false;
};

std::string backendFor(const std::string& output, const std::string& emit) {
  if (!emit.empty()) return emit;
  auto ends = [&](std::string_view ext) {
    return output.size() > ext.size() && output.compare(output.size() - ext.size(), ext.size(), ext) == 0;
  };
  if (ends(".ncptl")) return "ncptl";
  if (ends(".c")) return "c";
  throw std::invalid_argument(fmt::format(
      "cannot tell the output language from '{}': name it .c or .ncptl, or give --emit c|ncptl", output));
}

// --runtime=separate: tracegen_runtime.h and tracegen_runtime.c beside the benchmark.
void checkRuntimeOption(const GenerateArgs& args, const std::string& language) {
  if (args.runtime != "separate") return;
  if (language != "c")
    throw std::invalid_argument(fmt::format("--runtime=separate is for C benchmarks, not {}", language));
  if (args.output == "-")
    throw std::invalid_argument(
        "--runtime=separate writes tracegen_runtime.h and tracegen_runtime.c beside the benchmark: give -o FILE.c, "
        "not standard output");
  for (const auto& file : gen::cRuntimeFiles())
    if (std::filesystem::path(args.output).filename() == file.name)
      throw std::invalid_argument(fmt::format(
          "--runtime=separate writes the runtime as {} beside the benchmark: name the benchmark otherwise", file.name));
}

void writeSeparateRuntime(const std::string& output) {
  const std::filesystem::path dir = std::filesystem::path(output).parent_path();
  for (const auto& file : gen::cRuntimeFiles()) writeOutput((dir / file.name).string(), std::string(file.text));
}
}  // namespace

void registerGenerateCommand(CLI::App& app, CommandAction& run, std::string commandLine) {
  static GenerateArgs args;
  static std::string invocation;
  invocation = std::move(commandLine);
  CLI::App* cmd = app.add_subcommand(
      "generate", "generate a benchmark (the default command: `tracegen TRACE -o bench.c`)");
  cmd->add_option("input", args.input, "trace file (ScalaTrace 2 or tracegen format)")->required();
  cmd->add_option("-o,--output", args.output, "benchmark to write: .c (C+MPI) or .ncptl (coNCePTuaL); '-' for stdout")
      ->required();
  cmd->add_option("--emit", args.emit, "output language, overriding the extension")
      ->check(CLI::IsMember(gen::backendNames()));
  cmd->add_option("--runtime", args.runtime,
                  "C: 'embedded' (default) starts the benchmark with the runtime it shares with every other "
                  "(clock, computation, options, buffers, request and communicator tables), one file; "
                  "'separate' writes that runtime as tracegen_runtime.h and tracegen_runtime.c beside the "
                  "benchmark, which includes the header (build: mpicc bench.c tracegen_runtime.c)")
      ->check(CLI::IsMember({"embedded", "separate"}));
  cmd->add_flag("--time", args.timing, "print how long generation took, to stderr");
  cmd->add_flag("--skip-unknown", args.skipUnknown,
                "leave a comment in place of each call tracegen records but does not model (opaque events) "
                "instead of stopping with an error");
  addPipelineOptions(*cmd, args.pipeline);
  cmd->callback([&run] {
    run = [] {
      auto start = std::chrono::steady_clock::now();
      std::string language = backendFor(args.output, args.emit);
      auto backend = gen::createBackend(language);
      if (!backend) throw std::invalid_argument(fmt::format("no backend '{}'", language));
      checkRuntimeOption(args, language);
      PassContext ctx;
      Trace trace = readAndLower(args.input, args.pipeline, ctx);
      // A backend reads peers in world numbering and compute times as numbers: without them it
      // would write a benchmark that silently computes nothing or talks to the wrong ranks.
      const IrProperties needed{IrProperty::CommsResolved, IrProperty::TimingSummarized};
      if (const IrProperties missing = needed.without(ctx.established); !missing.empty()) {
        const IrProperty first = missing.list().front();
        throw std::invalid_argument(fmt::format(
            "generating a benchmark needs {} ({}), which the passes given with --passes do not establish: add {}",
            propertyName(first), propertyMeaning(first), passesEstablishing(first)));
      }
      requireParams(trace, args.input);
      if (!args.skipUnknown) gen::requireModelled(trace, args.input);
      gen::ReceivedBytes received;
      if (backend->needsReceivedBytes()) received = gen::matchReceivedBytes(trace, ctx.options.callBudget, ctx.everySendReceivedHolds(),
                                                  ctx.receivesTakeWhatTheyPostHolds());
      gen::Program program = gen::buildProgram(trace, args.input, received.matched ? &received : nullptr);
      if (backend->needsReceivedBytes() && !received.matched)
        program.notes.push_back(
            "The trace is too large to match every receive with its send: receives name the size they posted.");
      if (args.pipeline.instructionRate > 0 && !trace.hasTime(Phase::Compute, TimeUnit::Microseconds) &&
          trace.hasTime(Phase::Compute, TimeUnit::KiloInstructions))
        program.notes.push_back(fmt::format(
            "Compute times were converted from instruction counts at {:g} instructions per second (--instruction-rate).",
            args.pipeline.instructionRate));
      if (const auto opaque = gen::opaqueCalls(trace); !opaque.empty()) {
        std::set<std::string> names;
        for (const Event& e : trace.events)
          if (isOpaque(opInfo(e.op).kind)) names.insert(std::string(opName(e.op)));
        program.notes.push_back(fmt::format(
            "Left out (--skip-unknown), a comment in the place of each: {} event{} of calls tracegen does not model ({}).",
            opaque.size(), opaque.size() == 1 ? "" : "s", fmt::join(names, ", ")));
      }
      for (const auto& w : ctx.warnings) program.notes.push_back("Warning while lowering: " + w);
      gen::GenOptions options{invocation, args.output};
      options.separateRuntime = args.runtime == "separate";
      writeOutput(args.output, backend->render(program, options));
      if (options.separateRuntime) writeSeparateRuntime(args.output);
      if (args.timing)
        std::cerr << fmt::format("tracegen: generated {} in {:.3f} s\n", args.output,
                                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      return 0;
    };
  });
}

}  // namespace tracegen
