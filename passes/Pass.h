// A lowering pass: one named transformation of the trace, with counters of what it changed.
//
// Passes follow LLVM's new pass manager in spirit: each pass lives in its own file in
// passes/, opens with a paragraph on its algorithm, and has one entry point (`run`). The
// PassManager runs an ordered list of them, verifies the IR between passes, and can print the
// IR after any pass (`tracegen --print-after=NAME`).
//
// Each pass declares the properties of the IR it requires, establishes and preserves (LLVM's
// preserved analyses in spirit). The pass manager refuses an order in which a pass would run
// before what it requires is established, and the verifier between passes checks every
// property the pipeline holds at that point, whichever passes established it.
#pragma once

#include <bitset>
#include <initializer_list>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

// Facts about a trace that passes establish and later stages rely on.
enum class IrProperty : std::uint8_t {
  CommsResolved,         // every communicator is a table of instances; peers and roots in world numbering
  CollectivesAligned,    // one event per collective call wherever alignment could merge them
  WildcardsResolved,     // no MPI_ANY_SOURCE left: every receive names its sender
  CommunicationChecked,  // every message matched, collectives in one order, no deadlock
  TimingSummarized,      // every event's compute time is a number per preceding call site
  RankSetsNamed,         // every rank set of the trace has its shape
};
inline constexpr std::size_t kIrPropertyCount = 6;
std::string_view propertyName(IrProperty p);  // "comms-resolved", ...
std::string_view propertyMeaning(IrProperty p);

// A set of IrProperty.
class IrProperties {
 public:
  IrProperties() = default;
  IrProperties(std::initializer_list<IrProperty> ps) {
    for (IrProperty p : ps) add(p);
  }
  static IrProperties all() {
    IrProperties s;
    s.bits_.set();
    return s;
  }
  bool has(IrProperty p) const { return bits_.test(static_cast<std::size_t>(p)); }
  void add(IrProperty p) { bits_.set(static_cast<std::size_t>(p)); }
  void remove(IrProperty p) { bits_.reset(static_cast<std::size_t>(p)); }
  bool empty() const { return bits_.none(); }
  IrProperties operator&(const IrProperties& o) const { return IrProperties(bits_ & o.bits_); }
  IrProperties operator|(const IrProperties& o) const { return IrProperties(bits_ | o.bits_); }
  IrProperties without(const IrProperties& o) const { return IrProperties(bits_ & ~o.bits_); }
  std::vector<IrProperty> list() const {
    std::vector<IrProperty> out;
    for (std::size_t i = 0; i < kIrPropertyCount; ++i)
      if (bits_.test(i)) out.push_back(static_cast<IrProperty>(i));
    return out;
  }
  std::string str() const;  // "comms-resolved, wildcards-resolved" ("none" when empty)
  bool operator==(const IrProperties&) const = default;

 private:
  explicit IrProperties(std::bitset<kIrPropertyCount> b) : bits_(b) {}
  std::bitset<kIrPropertyCount> bits_;
};

enum class TimingMode { Avg, Median, Max };

struct PassOptions {
  TimingMode timing = TimingMode::Avg;
  // Instructions per second, to turn the kilo-instruction counts of time-independent traces
  // into time; 0 = not given.
  double instructionRate = 0;
  // Upper bound on the states the wildcard matcher explores before giving up.
  std::int64_t wildcardSearchBudget = 100000;
  // Upper bound on the calls a simulation of the whole program may expand (over all ranks and
  // all restarts of the wildcard search): what the compressed-form analysis cannot decide is
  // simulated up to this size, and said undecided beyond it.
  std::int64_t callBudget = 10'000'000;
  // Upper bound on the options (pending wildcard receive, message it may take) the wildcard
  // matcher keeps for backtracking, over all its decisions: a gather of P ranks to one
  // MPI_ANY_SOURCE receive makes P decisions of up to P options each (16,384 ranks: 2 GiB).
  // Beyond it a decision keeps only its choice, and a search that would have to revisit one
  // gives up as it does at the end of its budget. 4,194,304 options are 64 MiB.
  std::int64_t wildcardStoredOptions = 4'194'304;
  // Whether resolve-wildcards' simulation skips the repeats of the periodic stretches of its
  // run (sim/Repeats.cpp); off only to compare with the run simulated whole.
  bool skipRepeats = true;
  // Which matching of the wildcard receives the benchmark takes where the recording saw one
  // (`matched`): the recorded senders (true), or the earliest-arrival matching the simulation
  // finds, as for traces without them (false).
  bool recordedSenders = true;
};

struct PassContext {
  std::string fileName;  // for diagnostics
  PassOptions options;
  std::vector<std::string> warnings;
  // Counters by pass name, then counter name (`tracegen --stats`).
  std::map<std::string, std::map<std::string, std::int64_t>> stats;
  std::string currentPass;
  // The properties the pipeline holds so far, for later passes and the verifier. The pass
  // manager keeps it: before a pass runs it drops what the pass does not preserve, after it
  // adds what the pass establishes. A pass may add a property it established only under
  // conditions (check-communication within its call budget) itself.
  IrProperties established;
  // Collective events left partial by align-collectives (it warns about each), so that the
  // verifier can tell a later pass that splits a collective call.
  std::int64_t partialCollectivesAfterAlignment = 0;
  // Outermost loops resolve-wildcards showed to be closed (no message, request or collective
  // crosses their iterations, and their bodies repeat with a period dividing the count): event
  // id of the head -> the iterations that stand for all. The verifier's point-to-point balance
  // walks the trace with them folded, so that it costs the folded calls, not every timestep.
  std::map<std::int64_t, std::int64_t> closedLoopFolds;
  // Set by the pass that establishes communication-checked when its proof or run found every
  // receive matched and no message left unreceived: generation then need not walk every call
  // to size the receives (gen::matchReceivedBytes). Meaningful while that property holds.
  bool everySendReceived = false;
  // Set with it where a simulation of the whole run (its repeats and closed loops folded, which
  // repeat its decisions) matched every receive with a message of the size it posts.
  bool receivesTakeWhatTheyPost = false;

  std::int64_t& counter(const std::string& name) { return stats[currentPass][name]; }
  // everySendReceived and receivesTakeWhatTheyPost, while the property they were found with
  // still holds.
  bool everySendReceivedHolds() const {
    return everySendReceived && established.has(IrProperty::CommunicationChecked);
  }
  bool receivesTakeWhatTheyPostHolds() const {
    return receivesTakeWhatTheyPost && established.has(IrProperty::CommunicationChecked);
  }
  void warn(std::string message) { warnings.push_back(std::move(message)); }
  // A warning about line `line` of the input (`FILE:LINE: message`; unlocated when 0).
  void warnAt(int line, const std::string& message) {
    warn(line > 0 && !fileName.empty() ? fileName + ":" + std::to_string(line) + ": " + message : message);
  }
};

class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view description() const = 0;
  virtual void run(Trace& trace, PassContext& ctx) = 0;
  // What the trace must hold before this pass runs (established by an earlier pass).
  virtual IrProperties requiredProperties() const { return {}; }
  // What the trace holds after it, whenever it completes.
  virtual IrProperties establishedProperties() const { return {}; }
  // Of the properties holding before it, those it keeps (the rest no longer hold).
  virtual IrProperties preservedProperties() const { return {}; }
};

}  // namespace tracegen
