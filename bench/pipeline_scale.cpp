// Scale benchmark of the default lowering pipeline on synthetic clustered traces: a 2-D
// five-point stencil (nonblocking halo exchange, Allreduce), an LU-like wavefront (blocking
// receives from MPI_ANY_SOURCE, one tag per direction) or a ring time-step loop ended by a
// gather to rank 0 from MPI_ANY_SOURCE (`gather`: its wildcards need a simulation, run with
// the time-step loop folded, so its cost does not follow TIMESTEPS).
//
// Prints, for one trace per run (so that peak memory is that run's own): the time to build the
// trace, the time and counters of each pass, and the process's peak resident memory. Run
// bench/run-scale.sh for the tables.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>
#include <fstream>
#include <string>

#include "bench/SyntheticGather.h"
#include "bench/SyntheticStencil.h"
#include "bench/SyntheticWavefront.h"
#include "io/Readers.h"
#include "passes/PassManager.h"

namespace {
long peakRssKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  return -1;
}
}  // namespace

int main(int argc, char** argv) {
  using namespace tracegen;
  using clock = std::chrono::steady_clock;
  const std::string kind = argc > 1 ? argv[1] : "stencil";
  long ranks = argc > 2 ? std::strtol(argv[2], nullptr, 10) : 16384;
  long timesteps = argc > 3 ? std::strtol(argv[3], nullptr, 10) : 1000;
  Rank px = static_cast<Rank>(std::llround(std::sqrt(static_cast<double>(ranks))));
  if ((kind != "stencil" && kind != "wavefront" && kind != "gather") || ranks < 4 || (kind != "gather" && px * px != ranks)) {
    fmt::print(stderr, "usage: {} stencil|wavefront|gather RANKS [TIMESTEPS [WRITE.tgt]]   (RANKS >= 4, a square but for gather)\n", argv[0]);
    return 2;
  }
  const std::string writeTo = argc > 4 ? argv[4] : "";  // also write the built trace (.tgt) there
  auto t0 = clock::now();
  Trace trace = kind == "stencil"     ? makeStencilTrace(px, px, timesteps)
                : kind == "wavefront" ? makeWavefrontTrace(px, px, timesteps)
                                      : makeGatherTrace(static_cast<Rank>(ranks), timesteps);
  double build = std::chrono::duration<double>(clock::now() - t0).count();
  if (!writeTo.empty()) {
    std::ofstream out(writeTo);
    writeTracegenText(trace, out);
  }
  PassContext ctx;
  ctx.fileName = "synthetic";
  PassManager pm(defaultPipeline());
  auto t1 = clock::now();
  pm.run(trace, ctx);
  double total = std::chrono::duration<double>(clock::now() - t1).count();
  if (kind == "gather") fmt::print("{} ranks {} timesteps {} events {}\n", kind, ranks, timesteps, trace.events.size());
  else fmt::print("{} ranks {} grid {}x{} timesteps {} events {}\n", kind, ranks, px, px, timesteps, trace.events.size());
  fmt::print("  build trace          {:9.3f} s\n", build);
  for (const auto& t : pm.timings()) {
    fmt::print("  {:<20} {:9.3f} s\n", t.pass, t.seconds);
    for (const auto& [counter, value] : ctx.stats[t.pass]) fmt::print("  {:>28}  {}\n", value, counter);
  }
  for (const auto& w : ctx.warnings) fmt::print("  warning: {}\n", w);
  fmt::print("  pipeline total       {:9.3f} s (verifier included)\n", total);
  fmt::print("  peak memory          {:9.1f} MiB\n", static_cast<double>(peakRssKiB()) / 1024.0);
  return 0;
}
