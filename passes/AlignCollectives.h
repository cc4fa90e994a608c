// align-collectives: one event per collective call, whichever call sites the ranks used.
//
// See AlignCollectives.cpp for the algorithm.
#pragma once

#include <memory>

#include "passes/Pass.h"

namespace tracegen {

class AlignCollectivesPass : public Pass {
 public:
  std::string_view name() const override { return "align-collectives"; }
  std::string_view description() const override {
    return "merge the events of one collective called from different sites into one event for all members";
  }
  void run(Trace& trace, PassContext& ctx) override;
  IrProperties requiredProperties() const override { return {IrProperty::CommsResolved}; }
  IrProperties establishedProperties() const override { return {IrProperty::CollectivesAligned}; }
  // Merging re-keys time statistics and makes new rank sets.
  IrProperties preservedProperties() const override { return {IrProperty::CommsResolved, IrProperty::WildcardsResolved, IrProperty::CommunicationChecked}; }
};

std::unique_ptr<Pass> createAlignCollectivesPass();

// Collective events that leave out some member of a communicator instance they touch (on
// communicators the trace describes; MPI_COMM_SELF never), in trace order. Their count is the
// verifier's check that no pass after align-collectives splits a collective call; a backend
// that writes one statement per collective for all its members (coNCePTuaL) names the first
// when it cannot. Works on ranklists only.
std::vector<const Event*> partialCollectives(const Trace& trace);
std::int64_t countPartialCollectives(const Trace& trace);

}  // namespace tracegen
