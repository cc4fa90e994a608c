#include "passes/Registry.h"

#include "ir/Verify.h"
#include "passes/ResolveComms.h"
#include "passes/SummarizeTiming.h"

namespace tracegen {

const std::vector<PassEntry>& passRegistry() {
  static const std::vector<PassEntry> kPasses = {
      {"resolve-comms", createResolveCommsPass, true},
      {"summarize-timing", createSummarizeTimingPass, true},
  };
  return kPasses;
}

void verifyAfterPass(const Trace& trace, PassContext& ctx, const std::string& passName) {
  (void)passName;
  verifyStructure(trace, ctx.fileName);
}

}  // namespace tracegen
