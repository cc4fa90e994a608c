// ncptl-check: checks coNCePTuaL programs against the language reference's grammar, static
// rules and generator checklist (ncptl/Checker.h).
//
//   ncptl-check [--generated] [--no-simulate] [--no-warnings] [--verbose] FILE...
//
// Prints clang-style diagnostics (`file:line: error: what`, the source line, a marker) to
// stderr. Exit status: 0 if every file is accepted (warnings allowed), 2 otherwise (errors,
// unreadable files, bad usage). `-` reads standard input.
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "ncptl/Checker.h"

namespace {

void usage(std::ostream& os) {
  os << "usage: ncptl-check [--generated] [--no-simulate] [--no-warnings] [--verbose] FILE...\n"
        "  --generated    also require the generator subset «G» and the generator checklist\n"
        "                 (braced bodies, ASSERT THAT ... WITH num_tasks = P)\n"
        "  --no-simulate  skip the per-task simulation (unawaited operations, unmatched\n"
        "                 UNSUSPECTING sends, deadlocking blocking patterns)\n"
        "  --no-warnings  print errors only\n"
        "  --verbose      say for every file whether it was accepted and simulated\n"
        "exit status: 0 all files accepted, 2 otherwise\n";
}

bool readFile(const std::string& path, std::string& out) {
  if (path == "-") {
    out.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return true;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  tracegen::ncptl::CheckOptions options;
  bool warnings = true;
  bool verbose = false;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--generated" || a == "-g") {
      options.generated = true;
    } else if (a == "--no-simulate") {
      options.simulate = false;
    } else if (a == "--no-warnings" || a == "-w") {
      warnings = false;
    } else if (a == "--verbose" || a == "-v") {
      verbose = true;
    } else if (a == "--help" || a == "-h") {
      usage(std::cout);
      return 0;
    } else if (a.size() > 1 && a[0] == '-' && a != "-") {
      std::cerr << "ncptl-check: unknown option '" << a << "'\n";
      usage(std::cerr);
      return 2;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) {
    usage(std::cerr);
    return 2;
  }
  bool allOk = true;
  for (const auto& f : files) {
    std::string text;
    if (!readFile(f, text)) {
      std::cerr << f << ": error: cannot read the file\n";
      allOk = false;
      continue;
    }
    const auto result = tracegen::ncptl::check(text, options);
    for (const auto& d : result.diagnostics)
      if (warnings || d.severity == tracegen::ncptl::Diagnostic::Severity::Error)
        std::cerr << tracegen::ncptl::formatDiagnostic(f == "-" ? "<stdin>" : f, text, d);
    if (!result.ok()) allOk = false;
    if (verbose)
      std::cerr << f << ": " << (result.ok() ? "accepted" : "rejected") << " (" << result.errorCount() << " error(s); "
                << (result.simulated ? "per-task simulation done" : "no per-task simulation") << ")\n";
  }
  return allOk ? 0 : 2;
}
