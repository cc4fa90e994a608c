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
// of their sets: `# rank-shape <1 0 {4 2}> = progression of 8: rank mod 2 = 0  [parts 0+(4x2)]`.
void printRankShapes(const Trace& trace, std::ostream& out) {
  std::map<std::string, const RankShape*> sorted;
  for (const auto& [key, shape] : trace.rankShapes) sorted.emplace(key, &shape);
  for (const auto& [key, shape] : sorted) out << fmt::format("# rank-shape {} = {}\n", key, shape->str());
}

}  // namespace

std::string_view propertyName(IrProperty p) {
  switch (p) {
    case IrProperty::CommsResolved: return "comms-resolved";
    case IrProperty::CollectivesAligned: return "collectives-aligned";
    case IrProperty::WildcardsResolved: return "wildcards-resolved";
    case IrProperty::CommunicationChecked: return "communication-checked";
    case IrProperty::TimingSummarized: return "timing-summarized";
    case IrProperty::RankSetsNamed: return "rank-sets-named";
  }
  return "?";
}

std::string_view propertyMeaning(IrProperty p) {
  switch (p) {
    case IrProperty::CommsResolved: return "communicators as rank sets, peers and roots in MPI_COMM_WORLD numbering";
    case IrProperty::CollectivesAligned: return "one event per collective call";
    case IrProperty::WildcardsResolved: return "every receive names its sender";
    case IrProperty::CommunicationChecked: return "every message matched, no deadlock";
    case IrProperty::TimingSummarized: return "compute times as numbers";
    case IrProperty::RankSetsNamed: return "every rank set has its shape";
  }
  return "?";
}

std::string IrProperties::str() const {
  std::string out;
  for (IrProperty p : list()) out += (out.empty() ? "" : ", ") + std::string(propertyName(p));
  return out.empty() ? "none" : out;
}

std::string passesEstablishing(IrProperty p) {
  std::string out;
  for (const auto& entry : passRegistry())
    if (entry.create()->establishedProperties().has(p)) out += (out.empty() ? "" : " or ") + entry.name;
  return out.empty() ? "no registered pass" : out;
}

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
  // The order must give every pass what it requires: simulate what holds after each.
  IrProperties holds;
  for (const auto& pass : passes_) {
    const IrProperties missing = pass->requiredProperties().without(holds);
    if (!missing.empty()) {
      const IrProperty first = missing.list().front();
      throw std::invalid_argument(fmt::format(
          "pass '{}' requires {} ({}), which no earlier pass in the list establishes: run {} before it", pass->name(),
          propertyName(first), propertyMeaning(first), passesEstablishing(first)));
    }
    holds = (holds & pass->preservedProperties()) | pass->establishedProperties();
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
    ctx.established = ctx.established & pass->preservedProperties();
    const IrProperties before = ctx.established;
    pass->run(trace, ctx);
    ctx.established = ctx.established | pass->establishedProperties();
    timing.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    timing.eventsAfter = trace.events.size();
    timings_.push_back(timing);
    if (verify_) verifyAfterPass(trace, ctx, name, ctx.established.without(before));
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
