// Extrapolation cost against the target rank count: a synthetic 2-D stencil trace
// (bench/SyntheticStencil.h) recorded at 3x3, 3x4 and 4x4 ranks is extrapolated to 1,024 and
// to 1,048,576 ranks; so is one recorded at 2x2 and 2x4 only, whose interior and x-edge classes
// are composed (extrap/ComposeClasses.h). Prints per target the time of the extrapolation, the time of verifying the
// result, and the size of the written trace in lines, ranklist sections and bytes. Goals: the
// larger no more than 2x the smaller, both under a second, and no growth of the output with P
// (the trace is per position class, never per rank): the same lines and sections at both
// scales, the bytes differing only by the digits of larger numbers. Exit status 1 if a goal is
// missed.
//
//   tracegen_extrapolate_scale [repeats=5]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <cstdlib>
#include <vector>

#include "bench/SyntheticStencil.h"
#include "extrap/Extrapolate.h"
#include "io/Readers.h"
#include "ir/Verify.h"

using namespace tracegen;

namespace {

struct Row {
  Rank ranks;
  double seconds, verifySeconds;
  std::size_t bytes, lines, sections;
};

// Extrapolates `inputs` to 1,024 and 1,048,576 ranks; whether the goals hold.
bool measure(const std::string& what, const std::vector<extrap::ExtrapolateInput>& inputs, int repeats) {
  fmt::print("{}:\n", what);
  std::vector<Row> rows;
  for (Rank p : {Rank{1024}, Rank{1} << 20}) {
    double best = 1e9, bestVerify = 1e9;
    std::size_t bytes = 0, lines = 0, sections = 0;
    for (int k = 0; k < repeats; ++k) {
      const auto t0 = std::chrono::steady_clock::now();
      const extrap::ExtrapolateResult r = extrap::extrapolate(inputs, extrap::ExtrapolateOptions{p, {}});
      const auto t1 = std::chrono::steady_clock::now();
      verifyStructure(r.trace, "extrapolated");
      const auto t2 = std::chrono::steady_clock::now();
      const std::string text = tracegenText(r.trace);
      bytes = text.size();
      lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
      sections = static_cast<std::size_t>(std::count(text.begin(), text.end(), '<'));
      best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
      bestVerify = std::min(bestVerify, std::chrono::duration<double>(t2 - t1).count());
    }
    rows.push_back({p, best, bestVerify, bytes, lines, sections});
    fmt::print("  P={:>8} ({:>9}): extrapolate {:.4f} s, verify {:.4f} s, trace {} lines, {} ranklist sections, {} bytes\n",
               p, extrap::defaultGrid(p, 2).str(), best, bestVerify, lines, sections, bytes);
  }
  const double ratio = rows[1].seconds / rows[0].seconds;
  fmt::print("  time ratio 1048576/1024: {:.2f} (goal <= 2); output growth: {} lines, {} sections (goal 0), {} bytes "
             "(the digits of larger ranks and offsets)\n",
             ratio, static_cast<long long>(rows[1].lines) - static_cast<long long>(rows[0].lines),
             static_cast<long long>(rows[1].sections) - static_cast<long long>(rows[0].sections),
             static_cast<long long>(rows[1].bytes) - static_cast<long long>(rows[0].bytes));
  return ratio <= 2.0 && rows[1].seconds < 1.0 && rows[0].seconds < 1.0 && rows[1].lines == rows[0].lines &&
         rows[1].sections == rows[0].sections;
}

}  // namespace

int main(int argc, char** argv) {
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  const bool shown = measure("inputs 3x3, 3x4, 4x4 (every class shown)",
                             {{"3x3", makeStencilTrace(3, 3, 100)},
                              {"3x4", makeStencilTrace(3, 4, 100)},
                              {"4x4", makeStencilTrace(4, 4, 100)}},
                             repeats);
  const bool composed = measure("inputs 2x2, 2x4 (x interior composed)",
                                {{"2x2", makeStencilTrace(2, 2, 100)}, {"2x4", makeStencilTrace(2, 4, 100)}}, repeats);
  return shown && composed ? 0 : 1;
}
