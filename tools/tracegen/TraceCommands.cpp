// `tracegen convert` and `tracegen lower` (trace to trace, in tracegen's text format) and
// `tracegen compare` (two traces, per rank and operation; the comparison is CompareCommand.cpp),
// and `tracegen merge-timing` (the median of several recordings' times; timing/MergeTiming.h).
#include <fmt/format.h>

#include <iostream>

#include "io/Compression.h"
#include "io/Readers.h"
#include "timing/MergeTiming.h"
#include "tools/tracegen/Commands.h"

namespace tracegen {

namespace {
// A trace to `path`: zstd-compressed text unless `plain`; standard output ("-") gets the text.
void writeTraceOutput(const std::string& path, const Trace& t, bool plain) {
  const std::string text = tracegenText(t);
  if (plain || path == "-") return writeOutput(path, text);
  writeOutput(path, compressTrace(text));
}

const char* const kPlainHelp = "write plain text instead of zstd-compressed text (standard output is always text)";
}  // namespace

void registerConvertCommand(CLI::App& app, CommandAction& run) {
  struct Args {
    std::string input, output;
    bool plain = false;
  };
  static Args args;
  CLI::App* cmd = app.add_subcommand("convert", "convert a trace (e.g. ScalaTrace 2) to tracegen's text format");
  cmd->add_option("input", args.input, "trace file")->required();
  cmd->add_option("-o,--output", args.output, "output file, zstd-compressed (e.g. app.tgt.zst; '-' for standard output)")
      ->required();
  cmd->add_flag("--plain", args.plain, kPlainHelp);
  cmd->callback([&run] {
    run = [] {
      Trace t = readTraceFile(args.input);
      printReaderWarnings(t, args.input);
      writeTraceOutput(args.output, t, args.plain);
      return 0;
    };
  });
}

void registerLowerCommand(CLI::App& app, CommandAction& run) {
  struct Args {
    std::string input, output = "-";
    bool plain = false;
    PipelineOptions pipeline;
  };
  static Args args;
  CLI::App* cmd = app.add_subcommand("lower", "run the lowering passes and write the lowered trace");
  cmd->add_option("input", args.input, "trace file")->required();
  cmd->add_option("-o,--output", args.output, "output file, zstd-compressed (e.g. app.tgt.zst; '-' for standard output)")
      ->capture_default_str();
  cmd->add_flag("--plain", args.plain, kPlainHelp);
  addPipelineOptions(*cmd, args.pipeline);
  cmd->callback([&run] {
    run = [] {
      PassContext ctx;
      Trace t = readAndLower(args.input, args.pipeline, ctx);
      writeTraceOutput(args.output, t, args.plain);
      return 0;
    };
  });
}

}  // namespace tracegen

namespace tracegen {

void registerCompareCommand(CLI::App& app, CommandAction& run) {
  struct Args {
    std::string a, b;
    double bytesTolerance = 0;
  };
  static Args args;
  CLI::App* cmd = app.add_subcommand(
      "compare", "per rank and MPI operation, counts and bytes (and total time) of two traces; exit 1 if they differ");
  cmd->add_option("a", args.a, "first trace")->required();
  cmd->add_option("b", args.b, "second trace")->required();
  cmd->add_option("--bytes-tolerance", args.bytesTolerance,
                  "byte figures may differ by up to this percentage of the larger one (default 0: identical); "
                  "for extrapolated traces of codes whose message sizes follow their data")
      ->check(CLI::Range(0.0, 100.0));
  cmd->callback([&run] {
    run = [] { return runCompare(args.a, args.b, std::cout, args.bytesTolerance); };
  });
}

}  // namespace tracegen

namespace tracegen {

void registerMergeTimingCommand(CLI::App& app, CommandAction& run) {
  struct Args {
    std::vector<std::string> inputs;
    std::string output;
    bool plain = false;
  };
  static Args args;
  CLI::App* cmd = app.add_subcommand(
      "merge-timing",
      "one trace from several recordings of the same run: per event, timing group and range of calls the median "
      "of their times (a host whose pace drifts makes one recording a sample of one moment)");
  cmd->add_option("recordings", args.inputs, "two or more recordings of one program run the same way (three: the median)")
      ->required()
      ->expected(2, 1000);
  cmd->add_option("-o,--output", args.output, "output file, zstd-compressed (e.g. app.tgt.zst; '-' for standard output)")
      ->required();
  cmd->add_flag("--plain", args.plain, kPlainHelp);
  cmd->callback([&run] {
    run = [] {
      std::vector<Trace> traces;
      for (const std::string& f : args.inputs) {
        traces.push_back(readTraceFile(f));
        printReaderWarnings(traces.back(), f);
      }
      const Trace merged = mergeTimings(traces, args.inputs);
      writeTraceOutput(args.output, merged, args.plain);
      const Trace::Recordings& r = merged.recordings;
      std::cerr << fmt::format("tracegen: merged the times of {} recordings", r.count);
      if (r.spreadMaxEvent >= 0)
        std::cerr << fmt::format(" (spread of their mean compute times: median {:.1f}%, largest {:.1f}% at event {})",
                                 100 * r.spreadMedian, 100 * r.spreadMax, r.spreadMaxEvent);
      std::cerr << "\n";
      return 0;
    };
  });
}

}  // namespace tracegen
