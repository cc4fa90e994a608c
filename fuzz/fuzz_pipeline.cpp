// libFuzzer target: the whole way from trace text to benchmark source, as `tracegen TRACE -o
// bench.c` and `-o bench.ncptl` run it: either reader (format detected from the first line),
// the default lowering pipeline with the IR verifier after each pass (passes/), the shared
// traversal (gen/Traversal.cpp), received-bytes matching, and both backends rendered to a
// string (gen/c/; gen/conceptual/ with its checker and simulator, ncptl/).
// Accepted outcomes are the command's own: InputError and std::invalid_argument (exit status
// 2) and ProgramError (a potential deadlock, exit status 3). Seeds: fuzz/corpus/fuzz_pipeline/.
#include <stdexcept>

#include "fuzz/FuzzCommon.h"
#include "fuzz/StructureMutator.h"
#include "gen/Backend.h"
#include "gen/ReceivedBytes.h"
#include "gen/Traversal.h"
#include "ir/Diagnostics.h"
#include "ir/Limits.h"
#include "passes/PassManager.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tracegen;
  try {
    Trace trace = readTrace(sourceFromString("fuzz.tgt", fuzz::asText(data, size)));
    PassContext ctx;
    ctx.fileName = "fuzz.tgt";
    // A smaller wildcard search and call budget than the command line's, so that one input
    // stays fast under the sanitizers: the receive matching below has the same budget. With
    // the command line's 10,000,000 calls, check-communication walked a mutated 2-rank trace
    // (a loop of 5*10^9 iterations whose MPI_Waitsome counts never repeat) for 23 s under
    // ASan, 0.7 s in a release build; over the budget it warns and generation goes on.
    ctx.options.wildcardSearchBudget = 2000;
    ctx.options.callBudget = fuzz::kFuzzBudget;
    ctx.options.instructionRate = 1e9;  // time-independent traces need a rate to be generated
    PassManager pm(defaultPipeline());
    pm.setVerify(true);
    pm.run(trace, ctx);
    requireParams(trace, "fuzz.tgt");
    for (const char* language : {"c", "ncptl"}) {
      auto backend = gen::createBackend(language);
      gen::ReceivedBytes received;
      if (backend->needsReceivedBytes()) received = gen::matchReceivedBytes(trace, fuzz::kFuzzBudget);
      gen::Program program = gen::buildProgram(trace, "fuzz.tgt", received.matched ? &received : nullptr);
      // The coNCePTuaL backend's check simulates the program; 50,000,000 steps of a mutated
      // loop of 10^6 iterations took 9 s under ASan (its deadlock analysis of every step).
      gen::GenOptions options{"tracegen fuzz.tgt", "-"};
      options.checkBudget = fuzz::kFuzzBudget * 10;
      const std::string text = backend->render(program, options);
      if (text.empty()) __builtin_trap();  // a backend returns a whole program or throws
    }
  } catch (const InputError&) {
  } catch (const ProgramError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
