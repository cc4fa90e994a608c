// check-communication: every trace's point-to-point matching and deadlock freedom, decided on
// the compressed form where possible and by a bounded simulation otherwise. See
// CheckCommunication.cpp.
#pragma once

#include <memory>

#include "passes/Pass.h"

namespace tracegen {

class CheckCommunicationPass : public Pass {
 public:
  std::string_view name() const override { return "check-communication"; }
  std::string_view description() const override {
    return "every message matched, collectives in one order, no deadlock: per rank class and loop, simulated where "
           "undecided";
  }
  // Throws DeadlockError (exit 3) for a program that cannot complete, ProgramError for
  // receives that stay unmatched; warns about messages nobody receives.
  void run(Trace& trace, PassContext& ctx) override;
  // Establishes communication-checked itself, when the check completes within its budget.
  IrProperties requiredProperties() const override { return {IrProperty::CommsResolved}; }
  IrProperties establishedProperties() const override { return {}; }
  IrProperties preservedProperties() const override { return IrProperties::all(); }
};

std::unique_ptr<Pass> createCheckCommunicationPass();

}  // namespace tracegen
