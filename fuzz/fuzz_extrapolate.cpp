// libFuzzer target: `tracegen extrapolate` on traces of one application at several rank counts,
// as the command runs it: the input is two or three traces in tracegen's format (or ScalaTrace
// 2's) separated by lines `%%%`, each read by its reader; they are extrapolated to twice the
// largest rank count (extrap/Extrapolate.cpp: topology, classes, fits, colours of splits), the
// result checked by the verifier and printed; then one scale-free program is built from them
// (extrap/ScaleFree.cpp: template scales, each lowered by the default pipeline, aligned and
// fitted) and rendered as C. Accepted outcomes are the command's own: InputError and
// std::invalid_argument (exit status 2), ProgramError (exit status 3). Seeds:
// fuzz/corpus/fuzz_extrapolate/.
#include <stdexcept>
#include <string>
#include <vector>

#include "extrap/Extrapolate.h"
#include "extrap/ScaleFree.h"
#include "fuzz/FuzzCommon.h"
#include "fuzz/StructureMutator.h"
#include "gen/Backend.h"
#include "io/Readers.h"
#include "ir/Diagnostics.h"
#include "ir/Verify.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tracegen;
  const std::string text = fuzz::asText(data, size);
  std::vector<std::string> parts;
  for (std::size_t at = 0;;) {
    const std::size_t sep = text.find("\n%%%\n", at);
    parts.push_back(text.substr(at, sep == std::string::npos ? std::string::npos : sep + 1 - at));
    if (sep == std::string::npos || parts.size() == 3) break;
    at = sep + 5;
  }
  try {
    std::vector<extrap::ExtrapolateInput> inputs;
    Rank largest = 0;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string name = "fuzz-" + std::to_string(i) + ".tgt";
      inputs.push_back({name, readTrace(sourceFromString(name, parts[i]))});
      largest = std::max(largest, inputs.back().trace.numRanks);
    }
    // A target the size of the inputs: a larger one would only make an input slower.
    if (largest > 4096) return 0;
    extrap::ExtrapolateOptions opts;
    opts.ranks = 2 * largest;
    const extrap::ExtrapolateResult r = extrap::extrapolate(inputs, opts);
    verifyStructure(r.trace, "extrapolated");
    if (tracegenText(r.trace).empty()) __builtin_trap();
    // Scale-free: lowers five template scales; only for small inputs, to keep an input fast.
    if (largest <= 64) {
      const extrap::ScaleFreeResult sf = extrap::buildScaleFree(inputs);
      const std::string c = gen::createBackend("c")->render(sf.program, gen::GenOptions{"fuzz", "-"});
      if (c.empty()) __builtin_trap();
    }
  } catch (const InputError&) {
  } catch (const ProgramError&) {
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
