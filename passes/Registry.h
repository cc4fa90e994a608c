// The table of known passes, in default-pipeline order, and the IR verifier run between them.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "passes/Pass.h"

namespace tracegen {

struct PassEntry {
  std::string name;
  std::function<std::unique_ptr<Pass>()> create;
  bool inDefaultPipeline = true;
};

const std::vector<PassEntry>& passRegistry();

// The verifier run after each pass: structural checks always; once `resolve-comms` has run,
// peers in range; once `resolve-wildcards` has run, no wildcard left and every
// point-to-point operation matched by its peer. Throws InputError or ProgramError naming the
// pass that broke the IR.
void verifyAfterPass(const Trace& trace, PassContext& ctx, const std::string& passName);

}  // namespace tracegen
