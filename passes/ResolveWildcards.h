// resolve-wildcards: gives every MPI_ANY_SOURCE receive the sender it matches, or reports a
// potential deadlock. See ResolveWildcards.cpp for the search and the rewrite; the simulator
// it drives is sim/ (sim/Simulation.h), and DeadlockError is declared in sim/Deadlock.h.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "passes/Pass.h"

namespace tracegen {

// True if the event is a receive or blocking probe whose source is still MPI_ANY_SOURCE: what
// resolve-wildcards resolves (MPI_Iprobe and persistent receives keep their wildcards).
bool hasUnresolvedWildcard(const Event& e);

class ResolveWildcardsPass : public Pass {
 public:
  std::string_view name() const override { return "resolve-wildcards"; }
  std::string_view description() const override {
    return "MPI_ANY_SOURCE receives get the sender they match in a simulated run; potential deadlocks are errors";
  }
  // Throws DeadlockError when no matching of the wildcard receives lets every rank finish,
  // ProgramError when every rank finishes but a receive is never matched, InputError for
  // peers or communicators the trace cannot describe.
  void run(Trace& trace, PassContext& ctx) override;
  // Also establishes communication-checked: the run that resolved the wildcards simulated the
  // whole program to completion.
  // Rewriting sources regroups ranks: the rank sets change.
  IrProperties requiredProperties() const override { return {IrProperty::CommsResolved}; }
  IrProperties establishedProperties() const override { return {IrProperty::WildcardsResolved}; }
  IrProperties preservedProperties() const override { return {IrProperty::CommsResolved, IrProperty::CollectivesAligned, IrProperty::TimingSummarized}; }
};

std::unique_ptr<Pass> createResolveWildcardsPass();

}  // namespace tracegen
