// `tracegen simulate BENCH.c --ranks P --platform NAME`: runs a benchmark on a simulated machine,
// SimGrid's SMPI (docs/simulation.md).
//
// The benchmark (a C file tracegen wrote, with tracegen_runtime.c beside it when it was written
// with --runtime=separate; or any MPI C program; or one already built with smpicc) is compiled
// with smpicc, a hostfile of the platform's first P hosts is written (rank i
// on host i), and smpirun runs it on the platform: one of the descriptions bundled under
// platforms/ (crossbar, fat-tree, torus; compiled into tracegen) or a SimGrid XML file. Each
// computation of a tracegen benchmark is spent as simulated time (the C runtime's SMPI build),
// at the traced machine's speed given by --traced-speed (default: the platform host's, so that a
// traced second is a simulated second). The benchmark's output is passed through; SimGrid's own
// chatter is not, and the last line is `simulated: <s> s` (SimGrid's simulated time of the whole
// run) with the real time the simulation took. What goes wrong in SimGrid's part (no smpicc, a
// platform with fewer hosts than ranks, a compile or run that fails) is one line
// `tracegen: error: ...` and status 2.
#include <algorithm>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tools/tracegen/Commands.h"

namespace tracegen {

// platforms/*.xml by name (without .xml), tools/tracegen/EmbedPlatforms.cmake.
const std::map<std::string, std::string_view, std::less<>>& bundledPlatforms();

namespace {

namespace fs = std::filesystem;

struct SimulateArgs {
  std::string program;                    // the benchmark
  std::vector<std::string> programArgs;  // its arguments
  int ranks = 0;
  std::string platform = "crossbar";
  std::string tracedSpeed;
  std::vector<std::string> cfg;
  std::string keep;
  std::string smpicc;
  std::string smpirun;
};

// One line and status 2 (main turns std::invalid_argument into `tracegen: error: ...`).
[[noreturn]] void fail(const std::string& message) { throw std::invalid_argument(message); }

std::string readFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string shellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// `name` on PATH (or as given, when it names a file), empty when not found.
std::string findProgram(const std::string& name) {
  if (name.find('/') != std::string::npos) return access(name.c_str(), X_OK) == 0 ? name : std::string();
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const fs::path candidate = fs::path(dir.empty() ? "." : dir) / name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return {};
}

// The value of attribute `name` in the tag text `tag`, if present.
std::optional<std::string> attribute(const std::string& tag, const std::string& name) {
  const std::regex re("\\s" + name + "\\s*=\\s*[\"']([^\"']*)[\"']");
  std::smatch m;
  if (std::regex_search(tag, m, re)) return m[1].str();
  return std::nullopt;
}

struct Platform {
  std::vector<std::string> hosts;  // in the order ranks are placed on them
  std::string speed;               // the first host's speed as written ("10Gf")
};

// The hosts of a SimGrid platform: every <cluster> (prefix, radical, suffix) and every <host>,
// in the order they are written. Enough for the bundled platforms and for most hand-written ones.
Platform readPlatform(const std::string& xml, const std::string& name) {
  Platform p;
  const std::regex tagRe("<(cluster|host)\\s[^>]*>");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tagRe); it != std::sregex_iterator(); ++it) {
    const std::string tag = (*it)[0].str();
    const auto speed = attribute(tag, "speed");
    if (speed && p.speed.empty()) p.speed = speed->substr(0, speed->find(','));
    if ((*it)[1] == "host") {
      if (auto id = attribute(tag, "id")) p.hosts.push_back(*id);
      continue;
    }
    const auto radical = attribute(tag, "radical");
    if (!radical) fail(fmt::format("platform {}: a <cluster> without radical", name));
    const std::string prefix = attribute(tag, "prefix").value_or(""), suffix = attribute(tag, "suffix").value_or("");
    std::stringstream ranges(*radical);
    for (std::string range; std::getline(ranges, range, ',');) {
      long first = 0, last = 0;
      char dash = 0;
      std::istringstream r(range);
      if (!(r >> first)) fail(fmt::format("platform {}: radical '{}' is not a list of ranges", name, *radical));
      last = first;
      if (r >> dash && (dash != '-' || !(r >> last)))
        fail(fmt::format("platform {}: radical '{}' is not a list of ranges", name, *radical));
      for (long i = first; i <= last; ++i) p.hosts.push_back(fmt::format("{}{}{}", prefix, i, suffix));
    }
  }
  if (p.speed.empty()) p.speed = "1Gf";
  return p;
}

// The first line of `text` that looks like an error message, else its last non-empty line.
std::string errorLine(const std::string& text) {
  std::istringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("error") != std::string::npos || line.find("CRITICAL") != std::string::npos ||
        line.rfind("bench:", 0) == 0)
      return line;
    if (!line.empty()) last = line;
  }
  return last;
}

int runSimulate(const SimulateArgs& args) {
  if (args.ranks < 1) fail("--ranks must be at least 1");
  const std::string& input = args.program;
  if (!fs::exists(input)) fail(fmt::format("{}: no such file", input));

  // The platform: a bundled name or a file.
  std::string platformXml;
  const std::string platformName = fs::path(args.platform).stem().string();
  const auto& bundled = bundledPlatforms();
  if (auto it = bundled.find(args.platform); it != bundled.end()) {
    platformXml = std::string(it->second);
  } else if (fs::exists(args.platform)) {
    platformXml = readFile(args.platform);
  } else {
    std::string names;
    for (const auto& [name, text] : bundled) names += (names.empty() ? "" : ", ") + name;
    fail(fmt::format("no platform '{}': give one of {} or a SimGrid platform file", args.platform, names));
  }
  const Platform platform = readPlatform(platformXml, platformName);
  if (platform.hosts.size() < static_cast<std::size_t>(args.ranks))
    fail(fmt::format("platform {} has {} hosts, fewer than the {} ranks asked for", platformName,
                     platform.hosts.size(), args.ranks));

  const char* smpiccEnv = std::getenv("SMPICC");
  const std::string smpiccName = !args.smpicc.empty() ? args.smpicc : smpiccEnv ? smpiccEnv : "smpicc";
  const std::string smpirun = findProgram(args.smpirun.empty() ? "smpirun" : args.smpirun);
  if (smpirun.empty())
    fail("smpirun not found: install SimGrid (Debian: apt-get install libsimgrid-dev) or give --smpirun");

  // A directory for the build, the platform, the hostfile and the output.
  fs::path dir;
  if (!args.keep.empty()) {
    dir = args.keep;
    fs::create_directories(dir);
  } else {
    std::string pattern = (fs::temp_directory_path() / "tracegen-simulate-XXXXXX").string();
    if (!mkdtemp(pattern.data())) fail("cannot make a temporary directory");
    dir = pattern;
  }
  struct Cleanup {
    fs::path dir;
    bool keep;
    ~Cleanup() {
      std::error_code ec;
      if (!keep) fs::remove_all(dir, ec);
    }
  } cleanup{dir, !args.keep.empty()};

  std::string binary = input;
  if (fs::path(input).extension() == ".c") {
    const std::string smpicc = findProgram(smpiccName);
    if (smpicc.empty())
      fail(fmt::format("{} not found: install SimGrid (Debian: apt-get install libsimgrid-dev) or set SMPICC",
                       smpiccName));
    binary = (dir / fs::path(input).stem()).string();
    const std::string log = (dir / "smpicc.log").string();
    // A benchmark written with --runtime=separate: its runtime beside it.
    std::string sources = shellQuote(input);
    const fs::path runtime = fs::path(input).parent_path() / "tracegen_runtime.c";
    if (readFile(input).find("#include \"tracegen_runtime.h\"") != std::string::npos && fs::exists(runtime))
      sources += " " + shellQuote(runtime.string());
    const std::string compile = fmt::format("{} -std=c11 -O2 -o {} {} -lm >{} 2>&1", shellQuote(smpicc),
                                            shellQuote(binary), sources, shellQuote(log));
    if (std::system(compile.c_str()) != 0)
      fail(fmt::format("smpicc could not compile {}: {}", input, errorLine(readFile(log))));
  } else if (access(input.c_str(), X_OK) != 0) {
    fail(fmt::format("{}: neither a C file nor an executable", input));
  }

  const fs::path platformFile = dir / "platform.xml", hostfile = dir / "hostfile";
  {
    std::ofstream(platformFile) << platformXml;
    std::ofstream hosts(hostfile);
    for (int i = 0; i < args.ranks; ++i) hosts << platform.hosts[static_cast<std::size_t>(i)] << "\n";
  }
  const std::string speed = args.tracedSpeed.empty() ? platform.speed : args.tracedSpeed;
  std::string command = fmt::format(
      "{} -np {} -hostfile {} -platform {} --cfg=smpi/host-speed:{} --cfg=smpi/display-timing:yes "
      "--log=root.thres:warning --log=smpi_utils.thres:info",
      shellQuote(smpirun), args.ranks, shellQuote(hostfile.string()), shellQuote(platformFile.string()),
      shellQuote(speed));
  // SMPI's default MPI_Reduce is linear: the root waits on P-1 receives, and each completion
  // walks the others, which costs the simulator O(P^2). At 16,384 ranks a benchmark spent more
  // than 15 minutes of real time in its final report's reduction alone. From kBinomialReduceFrom
  // ranks the simulation reduces over a binomial tree (as MPI libraries do for small messages)
  // unless told otherwise. Below, SMPI's default stays: it costs little real time there
  // (wavefront at 1,024 ranks: 5.2 s against 5.6), and the tree's sequential latencies change
  // the simulated time of a benchmark's own report reductions (stencil2d at 256 ranks,
  // communication only: +11% against the application instead of within 10%).
  constexpr int kBinomialReduceFrom = 8192;
  const bool reduceChosen = std::any_of(args.cfg.begin(), args.cfg.end(), [](const std::string& c) {
    return c.rfind("smpi/reduce:", 0) == 0 || c.rfind("smpi/coll-selector:", 0) == 0;
  });
  if (!reduceChosen && args.ranks >= kBinomialReduceFrom) command += " --cfg=smpi/reduce:binomial";
  for (const auto& c : args.cfg) command += " " + shellQuote("--cfg=" + c);
  command += " " + shellQuote(fs::absolute(binary).string());
  for (const auto& a : args.programArgs) command += " " + shellQuote(a);
  const std::string out = (dir / "stdout").string(), err = (dir / "stderr").string();
  command += fmt::format(" >{} 2>{}", shellQuote(out), shellQuote(err));

  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  const double real = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  const std::string outText = readFile(out), errText = readFile(err);
  std::optional<double> simulated;
  const std::regex simRe("Simulated time: ([0-9.eE+-]+) seconds");
  std::smatch m;
  if (std::regex_search(errText, m, simRe)) simulated = std::stod(m[1].str());
  if (status != 0 || !simulated)
    fail(fmt::format("smpirun failed on {} ({} ranks, platform {}){}: {}", input, args.ranks, platformName,
                     status != 0 ? fmt::format(", status {}", WIFEXITED(status) ? WEXITSTATUS(status) : status)
                                 : std::string(),
                     errorLine(errText + outText)));
  std::cout << outText;
  // SimGrid's report on stderr: the simulated time is kept, its timing chatter dropped, anything
  // else (warnings, the benchmark's own messages) passed on.
  std::istringstream lines(errText);
  for (std::string line; std::getline(lines, line);) {
    if (std::regex_search(line, simRe) || line.find("The simulation took") != std::string::npos ||
        line.find("were actual computation of the application") != std::string::npos ||
        line.find("of the time was spent inside the application code") != std::string::npos ||
        line.find("You may want to use sampling functions") != std::string::npos || line.empty())
      continue;
    std::cerr << line << "\n";
  }
  std::cout << fmt::format("simulated: {:.6f} s ({} ranks on {}, host speed {} for the traced machine; real {:.1f} s)\n",
                           *simulated, args.ranks, platformName, speed, real);
  return 0;
}

}  // namespace

void registerSimulateCommand(CLI::App& app, CommandAction& run) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand(
      "simulate", "run a benchmark on a simulated machine: SimGrid SMPI (smpicc, smpirun), docs/simulation.md");
  cmd->add_option("program", args->program,
                  "the benchmark (bench.c, compiled with smpicc; or a program built with smpicc)")
      ->required();
  cmd->add_option("args", args->programArgs, "the benchmark's arguments, after -- (-- --compute-scale 50)");
  cmd->add_option("-n,--ranks", args->ranks, "simulated ranks, one per host")->required();
  cmd->add_option("-p,--platform", args->platform,
                  "crossbar, fat-tree or torus (platforms/, 16,384 hosts each), or a SimGrid platform file")
      ->capture_default_str();
  cmd->add_option("--traced-speed", args->tracedSpeed,
                  "the traced machine's speed (smpi/host-speed, e.g. 5Gf): a computation takes its traced "
                  "time x this / the platform host's speed (default: the platform host's speed)");
  cmd->add_option("--cfg", args->cfg,
                  "a SimGrid option for smpirun, as NAME:VALUE (repeatable); from 8,192 ranks smpi/reduce is "
                  "binomial unless this sets it or smpi/coll-selector")
      ->allow_extra_args(false);
  cmd->add_option("--keep", args->keep, "keep the build, hostfile, platform and output in this directory");
  cmd->add_option("--smpicc", args->smpicc, "the SMPI compiler (default $SMPICC or smpicc)");
  cmd->add_option("--smpirun", args->smpirun, "the SMPI launcher (default smpirun)");
  cmd->callback([&run, args] { run = [args] { return runSimulate(*args); }; });
}

}  // namespace tracegen
