// ncptl-check: checks coNCePTuaL programs against the language reference's grammar, static
// rules and generator checklist (ncptl/Checker.h).
//
//   ncptl-check [--generated] [--no-simulate] [--tasks N[,N...]] [--traffic] [--no-warnings] [--verbose] FILE...
//
// Prints clang-style diagnostics (`file:line: error: what`, the source line, a marker) to
// stderr. With --tasks every file is checked once per task count, its per-task simulation run
// with that many tasks (a scale-free program fixes no count of its own); a diagnostic is printed
// once, however many counts report it (--verbose says which counts were simulated). With
// --traffic each simulation's traffic per task (the messages and bytes of its UNSUSPECTING sends
// and RECEIVEs, and the collective statements it takes part in) is printed to stdout as one JSON
// line: {"file": ..., "tasks": N, "per_task": [{"task": 0, "sent": ..., "sent_bytes": ...,
// "received": ..., "received_bytes": ..., "collectives": ...}, ...]}.
// Exit status: 0 if every file is accepted (warnings allowed), 2 otherwise (errors,
// unreadable files, bad usage). `-` reads standard input.
#include <charconv>
#include <fstream>
#include <iostream>
#include <set>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "ncptl/Checker.h"

namespace {

void usage(std::ostream& os) {
  os << "usage: ncptl-check [--generated] [--no-simulate] [--tasks N[,N...]] [--traffic] [--no-warnings] [--verbose] "
        "FILE...\n"
        "  --generated    also require the generator subset «G» and the generator checklist\n"
        "                 (braced bodies, ASSERT THAT ... WITH num_tasks = P, or >= N if scale-free)\n"
        "  --no-simulate  skip the per-task simulation (unawaited operations, unmatched\n"
        "                 UNSUSPECTING sends, deadlocking blocking patterns)\n"
        "  --tasks N,...  simulate with N tasks (each count in turn) instead of the count the\n"
        "                 program's ASSERT fixes; needed for a scale-free program, which\n"
        "                 then states the least count it needs (num_tasks >= N) instead\n"
        "  --traffic      print each simulation's messages, bytes and collectives per task (JSON)\n"
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

std::string jsonEscape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;  // a file name with control characters: dropped
    out += ch;
  }
  return out;
}

// "24,64" -> {24, 64}; empty on a malformed list.
std::vector<std::int64_t> parseCounts(const std::string& text) {
  std::vector<std::int64_t> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t comma = std::min(text.find(',', pos), text.size());
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data() + pos, text.data() + comma, n);
    if (ec != std::errc() || end != text.data() + comma || n < 1 || n > 10'000'000) return {};
    out.push_back(n);
    pos = comma + 1;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  tracegen::ncptl::CheckOptions options;
  bool warnings = true;
  bool verbose = false;
  std::vector<std::string> files;
  std::vector<std::int64_t> counts;  // empty: the program's own count
  bool traffic = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--tasks" || a == "-n") {
      std::vector<std::int64_t> more = i + 1 < argc ? parseCounts(argv[++i]) : std::vector<std::int64_t>{};
      if (more.empty()) {
        std::cerr << "ncptl-check: --tasks needs task counts from 1 to 10000000, like 24 or 24,64\n";
        return 2;
      }
      counts.insert(counts.end(), more.begin(), more.end());
      options.scaleFree = true;  // the counts are given: the program need not fix one
    } else if (a == "--traffic") {
      traffic = true;
    } else if (a == "--generated" || a == "-g") {
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
    std::set<std::string> printed;  // the same static diagnostic from every count, once
    for (std::size_t k = 0; k < std::max<std::size_t>(1, counts.size()); ++k) {
      tracegen::ncptl::CheckOptions o = options;
      o.tasks = counts.empty() ? 0 : counts[k];
      const auto result = tracegen::ncptl::check(text, o);
      for (const auto& d : result.diagnostics) {
        if (!warnings && d.severity != tracegen::ncptl::Diagnostic::Severity::Error) continue;
        std::string shown = tracegen::ncptl::formatDiagnostic(f == "-" ? "<stdin>" : f, text, d);
        if (printed.insert(shown).second) std::cerr << shown;
      }
      if (!result.ok()) allOk = false;
      if (traffic && result.simulated) {
        std::cout << "{\"file\": \"" << jsonEscape(f) << "\", \"tasks\": " << result.simulatedTasks << ", \"per_task\": [";
        for (std::size_t t = 0; t < result.traffic.size(); ++t) {
          const auto& x = result.traffic[t];
          std::cout << (t ? ", " : "") << "{\"task\": " << t << ", \"sent\": " << x.sent << ", \"sent_bytes\": " << x.sentBytes
                    << ", \"received\": " << x.received << ", \"received_bytes\": " << x.receivedBytes
                    << ", \"collectives\": " << x.collectives << "}";
        }
        std::cout << "]}\n";
      }
      if (verbose)
        std::cerr << f << ": " << (result.ok() ? "accepted" : "rejected") << " (" << result.errorCount() << " error(s); "
                  << (result.simulated ? "per-task simulation done with " + std::to_string(result.simulatedTasks) + " tasks" +
                                             (result.orderChecked ? "" : ", the order of operations not played")
                                       : std::string("no per-task simulation"))
                  << ")\n";
    }
  }
  return allOk ? 0 : 2;
}
