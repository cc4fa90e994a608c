// tracegen: turns a compressed MPI communication trace into a benchmark.
//
//   tracegen app.trace -o bench.c         generate a benchmark (C+MPI, or .ncptl: coNCePTuaL)
//   tracegen inspect app.trace            what is in a trace
//   tracegen convert app.trace -o app.tgt ScalaTrace 2 to tracegen's text format
//   tracegen lower app.trace -o app.tgt   run the lowering passes
//   tracegen compare a.tgt b.tgt          per-rank counts and bytes of two traces
//   tracegen merge-timing r1 r2 r3 -o r   the median of several recordings' times
//   tracegen extrapolate a b --ranks P    the trace at P ranks from traces at other rank counts
//   tracegen simulate bench.c -n P        run a benchmark under SimGrid SMPI on a simulated machine
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "io/TextLines.h"
#include "ir/Diagnostics.h"
#include "tools/tracegen/Commands.h"

using namespace tracegen;

int main(int argc, char** argv) {
  CLI::App app{"tracegen: turn a compressed, clustered MPI trace into a runnable benchmark", "tracegen"};
  app.set_version_flag("--version", "tracegen 0.1.0");
  app.require_subcommand(1, 1);
  app.footer(
      "Exit status: 0 success, 1 differences found (compare), 2 bad input or usage,\n"
      "3 the trace describes a program that cannot complete (potential deadlock).\n"
      "Input formats: ScalaTrace 2 text traces and tracegen's own format (docs/trace-format.md).");
  // `tracegen TRACE -o OUT` is `tracegen generate TRACE -o OUT`.
  std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<std::string> commands = {"generate", "inspect", "convert", "lower", "compare",
                                             "merge-timing", "extrapolate", "simulate",
                                             "--help", "-h", "--help-all", "--version"};
  if (!args.empty() && std::find(commands.begin(), commands.end(), args[0]) == commands.end())
    args.insert(args.begin(), "generate");
  std::string commandLine = "tracegen";
  for (const auto& a : args) commandLine += " " + a;
  std::reverse(args.begin(), args.end());  // CLI11 takes them last-first

  CommandAction run;
  registerGenerateCommand(app, run, commandLine);
  registerInspectCommand(app, run);
  registerConvertCommand(app, run);
  registerLowerCommand(app, run);
  registerCompareCommand(app, run);
  registerMergeTimingCommand(app, run);
  registerExtrapolateCommand(app, run);
  registerSimulateCommand(app, run);
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    return run ? run() : 2;
  } catch (const InputError& e) {
    std::cerr << withSourceText(e).render() << "\n";
    return 2;
  } catch (const ProgramError& e) {
    std::cerr << (e.file().empty() ? "tracegen: " : "") << e.render() << "\n";
    return 3;
  } catch (const std::invalid_argument& e) {
    std::cerr << "tracegen: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tracegen: internal error: " << e.what() << "\n";
    return 4;
  }
}
