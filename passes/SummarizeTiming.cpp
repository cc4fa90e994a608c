// summarize-timing: one compute time per (event, preceding call site), in microseconds.
//
// Algorithm. Each computation histogram of an event (keyed by the call site of the rank's
// previous call, and for a timing sub-group by its ranks) becomes one number, the statistic chosen with --timing: the bin-weighted
// mean (the default; ScalaTrace's header average counts its first sample twice), a median
// estimated from the bins, or the maximum. Time-dependent histograms (microseconds) are used
// as they are. Time-independent traces measure thousands of instructions instead: they are
// turned into time with the instruction rate the user gives (--instruction-rate); without
// one the pass stops with an error rather than guess. Where a trace has both (ScalaTrace's
// `tic` variant), the measured time wins. A histogram's drift over calls (its call ranges) is
// carried into the compute time as one time per range, scaled by the statistic over the mean
// so that --timing=max or median moves the whole shape.
#include "passes/SummarizeTiming.h"

#include "ir/Diagnostics.h"

#include <fmt/format.h>
#include <stdexcept>

namespace tracegen {

namespace {

double statistic(const Histogram& h, TimingMode mode) {
  switch (mode) {
    case TimingMode::Median: return h.median();
    case TimingMode::Max: return h.max;
    case TimingMode::Avg: break;
  }
  return h.mean();
}

class SummarizeTimingPass : public Pass {
 public:
  std::string_view name() const override { return "summarize-timing"; }
  std::string_view description() const override {
    return "compute time before each event from its histograms (--timing=avg|median|max), in microseconds";
  }
  IrProperties requiredProperties() const override { return {}; }
  IrProperties establishedProperties() const override { return {IrProperty::TimingSummarized}; }
  IrProperties preservedProperties() const override { return IrProperties::all(); }

  void run(Trace& trace, PassContext& ctx) override {
    const bool haveUs = trace.hasTime(Phase::Compute, TimeUnit::Microseconds);
    const bool haveKinst = trace.hasTime(Phase::Compute, TimeUnit::KiloInstructions);
    const TimeUnit unit = haveUs ? TimeUnit::Microseconds : TimeUnit::KiloInstructions;
    if (!haveUs && haveKinst && ctx.options.instructionRate <= 0)
    {
      // Named at the first event that counts instructions.
      int line = 0;
      for (const auto& e : trace.events)
        for (const auto& st : e.stats)
          if (line == 0 && st.phase == Phase::Compute && st.unit == TimeUnit::KiloInstructions) line = e.line;
      throw InputError(ctx.fileName, line,
                       "this trace is time-independent: it counts instructions, not time; give the target machine's rate "
                       "with --instruction-rate=INSTRUCTIONS_PER_SECOND (ScalaTrace's tic traces calibrate one)");
    }
    for (auto& e : trace.events) {
      e.compute.clear();
      for (const auto& st : e.stats) {
        if (st.phase != Phase::Compute || st.unit != unit) continue;
        double value = statistic(st.hist, ctx.options.timing);
        const double perUnit = unit == TimeUnit::KiloInstructions ? 1000.0 / ctx.options.instructionRate * 1e6 : 1.0;
        ComputeTime c{st.after, value * perUnit, st.ranks, {}};
        const double mean = st.hist.mean();
        const double scale = mean > 0 ? value / mean : 1.0;
        for (const CallRange& r : st.hist.calls) c.calls.push_back({r.first, r.avg * scale * perUnit});
        if (!c.calls.empty()) ++ctx.counter("compute times drifting over calls");
        e.compute.push_back(std::move(c));
        ++ctx.counter("histograms-summarized");
      }
      if (!e.compute.empty()) ++ctx.counter("events-timed");
    }
  }
};

}  // namespace

std::unique_ptr<Pass> createSummarizeTimingPass() { return std::make_unique<SummarizeTimingPass>(); }

}  // namespace tracegen
