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
};

std::unique_ptr<Pass> createAlignCollectivesPass();

}  // namespace tracegen
