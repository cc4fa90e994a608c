#include "extrap/ScalingPlot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace tracegen::extrap {

double realValue(const ExactModel& m, const Scale& s) {
  const double c0 = static_cast<double>(m.c0.num) / static_cast<double>(m.c0.den);
  if (m.c1.num == 0 || m.term.isOne()) return c0;
  const double c1 = static_cast<double>(m.c1.num) / static_cast<double>(m.c1.den);
  return c0 + c1 * m.term.realAt(s);
}

std::vector<std::pair<ExactModel, std::string>> closestRejected(const ExactFit& f,
                                                                std::span<const Observation<std::int64_t>> inputs,
                                                                std::span<const std::string> labels) {
  struct Ranked {
    double miss;
    std::size_t order;
    std::string note;
  };
  std::vector<Ranked> ranked;
  for (std::size_t k = 0; k < f.rejected.size(); ++k) {
    const ExactModel& m = f.rejected[k];
    double worst = 0;
    std::string note;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const auto& o = inputs[i];
      const double v = realValue(m, o.scale);
      const double actual = static_cast<double>(o.value);
      const double miss = std::isfinite(v) ? std::abs(v - actual) / std::max(std::abs(actual), 1.0)
                                           : std::numeric_limits<double>::infinity();
      if (note.empty() && miss > 1e-9)
        note = fmt::format("gives {:.6g} at {}, not {}", v, i < labels.size() ? labels[i] : o.scale.str(), o.value);
      worst = std::max(worst, miss);
    }
    if (std::isfinite(worst)) ranked.push_back({worst, k, note});
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const Ranked& a, const Ranked& b) { return a.miss < b.miss; });
  std::vector<std::pair<ExactModel, std::string>> out;
  for (const Ranked& r : ranked) {
    if (out.size() == kPlotRejected) break;
    out.emplace_back(f.rejected[r.order], r.note);
  }
  return out;
}

}  // namespace tracegen::extrap
