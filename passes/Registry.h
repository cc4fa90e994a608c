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

// The verifier run after each pass: the structural checks always, and every property the
// pipeline holds at that point (PassContext::established), whichever pass established it:
// comms-resolved (peers in world numbering, every communicator used has instances),
// collectives-aligned (no more partial collective events than alignment left),
// wildcards-resolved (no receive or blocking probe with MPI_ANY_SOURCE), communication-checked
// (the compressed-form analysis finds no problem it is sure of; not re-run right after the pass
// that established it), timing-summarized (one finite compute time per compute histogram),
// rank-sets-named (every rank set has its shape). `justEstablished` holds the properties the
// pass just established. Throws InputError or ProgramError naming the pass that broke the IR.
void verifyAfterPass(const Trace& trace, PassContext& ctx, const std::string& passName,
                     const IrProperties& justEstablished);

}  // namespace tracegen
