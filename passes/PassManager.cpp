#include "passes/PassManager.h"

#include <chrono>
#include <fmt/format.h>
#include <map>
#include <ostream>
#include <stdexcept>

#include "io/Readers.h"
#include "ir/Verify.h"
#include "passes/Registry.h"

namespace tracegen {

namespace {

// The rank-ranges pass's shapes (not part of the text format), as comments in ascending order
// of their sets: `# rank-shape {0:4:2} = progression of 8: rank mod 2 = 0 and rank < 8  [parts …]`.
void printRankShapes(const Trace& trace, std::ostream& out) {
  std::map<std::string, const RankShape*> sorted;
  for (const auto& [key, shape] : trace.rankShapes) sorted.emplace(key, &shape);
  for (const auto& [key, shape] : sorted) out << fmt::format("# rank-shape {} = {}\n", key, shape->str());
}

}  // namespace

std::vector<std::string> defaultPipeline() {
  std::vector<std::string> names;
  for (const auto& entry : passRegistry())
    if (entry.inDefaultPipeline) names.push_back(entry.name);
  return names;
}

std::vector<std::pair<std::string, std::string>> registeredPasses() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& entry : passRegistry()) {
    auto pass = entry.create();
    out.emplace_back(entry.name, std::string(pass->description()));
  }
  return out;
}

std::unique_ptr<Pass> createPass(const std::string& name) {
  for (const auto& entry : passRegistry())
    if (entry.name == name) return entry.create();
  return nullptr;
}

PassManager::PassManager(const std::vector<std::string>& names) {
  for (const auto& n : names) {
    auto pass = createPass(n);
    if (!pass) {
      std::string known;
      for (const auto& entry : passRegistry()) known += (known.empty() ? "" : ", ") + entry.name;
      throw std::invalid_argument(fmt::format("unknown pass '{}' (passes: {})", n, known));
    }
    passes_.push_back(std::move(pass));
  }
}

void PassManager::setPrintAfter(std::vector<std::string> names, std::ostream* out) {
  for (const auto& n : names)
    if (n != "all" && !createPass(n)) throw std::invalid_argument(fmt::format("--print-after: unknown pass '{}'", n));
  printAfter_ = std::move(names);
  printOut_ = out;
}

void PassManager::run(Trace& trace, PassContext& ctx) {
  timings_.clear();
  for (auto& pass : passes_) {
    const std::string name(pass->name());
    ctx.currentPass = name;
    ctx.stats[name];  // every pass appears in --stats, even with nothing to report
    PassTiming timing{name, 0, trace.events.size(), 0};
    auto start = std::chrono::steady_clock::now();
    pass->run(trace, ctx);
    timing.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    timing.eventsAfter = trace.events.size();
    timings_.push_back(timing);
    if (verify_) verifyAfterPass(trace, ctx, name);
    bool print = false;
    for (const auto& p : printAfter_) print = print || p == "all" || p == name;
    if (print && printOut_) {
      *printOut_ << fmt::format("# *** IR dump after {} ***\n", name);
      writeTracegenText(trace, *printOut_);
      printRankShapes(trace, *printOut_);
    }
  }
}

}  // namespace tracegen
