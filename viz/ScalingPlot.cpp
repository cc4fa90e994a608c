// Draws the pictures of `extrapolate --plot` (viz/ScalingPlot.h) with viz/Canvas.h, and writes
// the set of them with its index.
#include "viz/ScalingPlot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <set>

#include "ir/Diagnostics.h"
#include "viz/Canvas.h"

namespace tracegen {

namespace {

using extrap::PlotCurve;
using extrap::PlotPoint;
using extrap::ScalingPlot;
using viz::Canvas;
using viz::Rgb;

const Rgb kChosen{59 / 255.0, 82 / 255.0, 139 / 255.0};  // viridis' blue, as inspect's compute bars
const Rgb kTarget{0.8, 0.1, 0.1};
// The rejected hypotheses: hues apart from the chosen blue and the target red, drawn faint.
const Rgb kRejected[] = {{0.9, 0.5, 0.05}, {0.15, 0.6, 0.3}, {0.6, 0.3, 0.7}};
constexpr double kRejectedAlpha = 0.6;

// A value for an axis or a label: from 1,000 to ten million with thousands separators (to four
// significant digits where it is no integer: 1038.4 is 1,038), integers below 1,000 as they
// are, others to four significant digits (1e+12: axis labels stay narrow).
std::string valueText(double v) {
  const double a = std::abs(v);
  if (a >= 1000 && a < 1e7) {
    const double r = v == std::floor(v) ? v : std::stod(fmt::format("{:.4g}", v));
    const auto n = static_cast<std::int64_t>(std::llround(r));
    return n < 0 ? "-" + viz::grouped(-n) : viz::grouped(n);
  }
  if (a < 1000 && v == std::floor(v)) return fmt::format("{}", static_cast<std::int64_t>(v));
  return fmt::format("{:.4g}", v);
}

// `s` cut to at most `width` points at `size`, ending in "..." where cut.
std::string fitText(Canvas& c, const std::string& s, double size, double width, bool bold = false) {
  if (c.width(s, size, bold) <= width) return s;
  std::string t = s;
  while (!t.empty() && c.width(t + "...", size, bold) > width) t.pop_back();
  return t + "...";
}

// One axis: a map from data to pixels, linear or log10.
struct Axis {
  double lo = 0, hi = 1;  // in data units
  bool log = false;
  double from = 0, to = 1;  // pixels at lo and hi
  double f(double v) const { return log ? std::log10(v) : v; }
  double px(double v) const {
    if (log && v <= 0) return std::numeric_limits<double>::quiet_NaN();
    return from + (f(v) - f(lo)) / (f(hi) - f(lo)) * (to - from);
  }
};

// The range of values to show, padded; log where every value is positive and they span more
// than a factor of `logRatio`.
Axis axisFor(std::vector<double> values, double logRatio, bool integerFloor) {
  Axis a;
  if (values.empty()) values = {0, 1};
  const double lo = *std::min_element(values.begin(), values.end());
  const double hi = *std::max_element(values.begin(), values.end());
  a.log = lo > 0 && hi / lo > logRatio;
  if (a.log) {
    const double pad = (std::log10(hi) - std::log10(lo)) * 0.08;
    a.lo = std::pow(10.0, std::log10(lo) - pad);
    a.hi = std::pow(10.0, std::log10(hi) + pad);
  } else if (hi - lo <= 1e-12 * std::max(1.0, std::abs(hi))) {
    const double pad = std::max(std::abs(hi) * 0.1, 1.0);
    a.lo = lo - pad;
    a.hi = hi + pad;
  } else {
    const double pad = (hi - lo) * 0.1;
    a.lo = lo - pad;
    a.hi = hi + pad;
    if (integerFloor && lo >= 0 && a.lo < 0) a.lo = 0;  // counts are not negative: no axis below 0
  }
  return a;
}

// Tick values of an axis: decades (and 2, 5 times them where few) on a log axis, round steps on
// a linear one; for rank counts on a log axis, powers of two.
std::vector<double> ticks(const Axis& a, bool ranks) {
  std::vector<double> out;
  if (a.log && ranks) {
    for (double p = 1; p <= a.hi * 1.0001; p *= 2)
      if (p >= a.lo * 0.9999) out.push_back(p);
    return out;
  }
  if (a.log) {
    const int first = static_cast<int>(std::floor(std::log10(a.lo))), last = static_cast<int>(std::ceil(std::log10(a.hi)));
    for (int d = first; d <= last; ++d)
      for (double m : {1.0, 2.0, 5.0}) {
        if (last - first > 3 && m != 1.0) continue;
        const double v = m * std::pow(10.0, d);
        if (v >= a.lo && v <= a.hi) out.push_back(v);
      }
    return out;
  }
  const double step = viz::niceStep(a.hi - a.lo, ranks ? 8 : 6);
  for (double v = std::ceil(a.lo / step) * step; v <= a.hi + 1e-9 * step; v += step)
    out.push_back(std::abs(v) < 1e-9 * step ? 0 : v);
  return out;
}

std::string eventsText(const ScalingPlot& p) {
  std::set<std::string> sites;
  std::string ids;
  for (std::size_t k = 0; k < p.events.size(); ++k) {
    sites.insert(p.events[k].site);
    if (k < 6) ids += fmt::format("{}{}", k ? ", " : "", p.events[k].event);
  }
  if (p.events.size() > 6) ids += fmt::format(" and {} more", p.events.size() - 6);
  std::string where = sites.size() == 1 ? *sites.begin() : fmt::format("{} call sites", sites.size());
  return fmt::format("{} {} {} at {}", p.events.size() > 1 ? "events" : "event", ids, p.op, where);
}

std::string classesText(const ScalingPlot& p) {
  if (p.classes.empty()) return "every rank (one model for all position classes)";
  return fmt::format("position class{} {}", p.classes.size() > 1 ? "es" : "", fmt::join(p.classes, "; "));
}

std::string inputsText(const ScalingPlot& p) {
  std::string s;
  for (std::size_t k = 0; k < p.inputs.size(); ++k)
    s += fmt::format("{}{} at {}", k ? "; " : "", valueText(p.inputs[k].value),
                     k < p.inputScales.size() ? p.inputScales[k] : fmt::format("P={}", p.inputs[k].ranks));
  return s;
}

}  // namespace

void drawScalingPlot(const ScalingPlot& p, const std::string& path) {
  const double W = 820, x0 = 96, y0 = 78, PW = 680, PH = 330;
  const std::size_t legendLines =
      3 + p.rejected.size() + (p.rejectedTotal > p.rejected.size() ? 1 : 0) + (p.sampling.empty() ? 0 : 1);
  const double legendY = y0 + PH + 66;
  const int H = static_cast<int>(legendY + 18 * static_cast<double>(legendLines) + 14);
  // x: the rank counts of the inputs and the target.
  std::vector<double> xs{p.target.ranks};
  for (const PlotPoint& q : p.inputs) xs.push_back(q.ranks);
  Axis ax = axisFor(xs, 7.9, false);
  if (!ax.log) {  // a linear rank axis from a round number at or below the smallest scale
    ax.lo = std::max(0.0, ax.lo);
  }
  ax.from = x0;
  ax.to = x0 + PW;
  // y: the inputs, the value taken at the target, and the chosen curve between them (rejected
  // curves are clipped: one that runs away must not squash the others).
  std::vector<double> ys{p.target.value};
  for (const PlotPoint& q : p.inputs) ys.push_back(q.value);
  for (const PlotPoint& q : p.chosen.points) ys.push_back(q.value);
  Axis ay = axisFor(ys, 100, p.exact);
  ay.from = y0 + PH;
  ay.to = y0;
  auto pts = [&](const PlotCurve& curve) {
    std::vector<std::pair<double, double>> out;
    for (const PlotPoint& q : curve.points) out.push_back({ax.px(q.ranks), ay.px(q.value)});
    return out;
  };

  viz::render(path, static_cast<int>(W), H, [&](Canvas& c) {
    c.colour(0, 0, 0);
    // The quantity first: a long call-site label is what gets cut, not what is drawn.
    c.text(fitText(c, fmt::format("{}: {}", p.quantity, eventsText(p)), 15, W - 40, true), 20, 26, 15, 0, true);
    c.text(fitText(c, fmt::format("{}; extrapolated to {}", classesText(p), p.targetScale), 12, W - 40), 20, 46, 12);
    c.colour(0.97, 0.97, 0.97);
    c.rect(x0, y0, PW, PH);
    // Grid lines and ticks.
    // Every k-th tick labelled, k the least that keeps labels 8 points apart, counted from the
    // target's tick (else the last one) so that the target's rank count is always labelled.
    const auto xt = ticks(ax, true);
    std::size_t anchor = xt.empty() ? 0 : xt.size() - 1;
    for (std::size_t i = 0; i < xt.size(); ++i)
      if (xt[i] == p.target.ranks) anchor = i;
    std::size_t stride = 1;
    for (; stride < xt.size(); ++stride) {
      double lastRight = -1e9;
      bool fits = true;
      for (std::size_t i = anchor % stride; i < xt.size() && fits; i += stride) {
        const double x = ax.px(xt[i]), w = c.width(valueText(xt[i]), 11);
        fits = x - w / 2 >= lastRight + 8;
        lastRight = x + w / 2;
      }
      if (fits) break;
    }
    for (std::size_t i = 0; i < xt.size(); ++i) {
      const double x = ax.px(xt[i]);
      c.colour(0.88, 0.88, 0.88);
      c.line(x, y0, x, y0 + PH, 0.6);
      if ((i + stride - anchor % stride) % stride != 0) continue;
      c.colour(0, 0, 0);
      c.line(x, y0 + PH, x, y0 + PH + 4);
      c.text(valueText(xt[i]), x, y0 + PH + 17, 11, 0.5);
    }
    double widest = 0;
    for (double v : ticks(ay, false)) {
      const double y = ay.px(v);
      c.colour(0.88, 0.88, 0.88);
      c.line(x0, y, x0 + PW, y, 0.6);
      c.colour(0, 0, 0);
      c.line(x0 - 4, y, x0, y);
      c.text(valueText(v), x0 - 7, y + 4, 11, 1);
      widest = std::max(widest, c.width(valueText(v), 11));
    }
    c.colour(0, 0, 0);
    c.text(ax.log ? "ranks P (log scale)" : "ranks P", x0 + PW / 2, y0 + PH + 36, 13, 0.5);
    c.verticalText(fitText(c, ay.log ? p.quantity + " (log scale)" : p.quantity, 13, PH), x0 - 12 - widest - 8,
                   y0 + PH / 2, 13);

    // Curves: the rejected ones faint and dashed under the chosen one.
    c.clip(x0, y0, PW, PH);
    for (std::size_t k = 0; k < p.rejected.size(); ++k) {
      c.colour(kRejected[k % 3], kRejectedAlpha);
      c.dash(6, 4);
      c.polyline(pts(p.rejected[k]), 1.6, x0, y0, PW, PH);
    }
    c.dash(0, 0);
    c.colour(kChosen);
    const auto chosen = pts(p.chosen);
    c.polyline(chosen, 2.4, x0, y0, PW, PH);
    // The target: a vertical line and the value taken there.
    const double tx = ax.px(p.target.ranks), ty = ay.px(p.target.value);
    c.colour(kTarget, 0.8);
    c.dash(4, 3);
    c.line(tx, y0, tx, y0 + PH, 1.2);
    c.dash(0, 0);
    // The inputs: dark dots with a white rim, over the curves.
    for (const PlotPoint& q : p.inputs) {
      c.colour(1, 1, 1);
      c.circle(ax.px(q.ranks), ay.px(q.value), 6.5);
      c.colour(0.1, 0.1, 0.1);
      c.circle(ax.px(q.ranks), ay.px(q.value), 4.5);
    }
    c.colour(1, 1, 1);
    c.diamond(tx, ty, 8.5);
    c.colour(kTarget);
    c.diamond(tx, ty, 6.5);
    c.unclip();

    // Labels on the plot: the predicted value beside its diamond and the formula on the chosen
    // curve, each on a white box inside the plot that covers no input's dot, nor each other.
    struct Box {
      double x, y, w, h;
      bool hits(const Box& o) const { return x < o.x + o.w && o.x < x + w && y < o.y + o.h && o.y < y + h; }
    };
    std::vector<Box> keepClear;
    for (const PlotPoint& q : p.inputs) keepClear.push_back({ax.px(q.ranks) - 7, ay.px(q.value) - 7, 14, 14});
    keepClear.push_back({tx - 9, ty - 9, 18, 18});
    // The chosen curve's height at x (NaN outside it).
    auto yAt = [&](double x) {
      for (std::size_t k = 1; k < chosen.size(); ++k) {
        const auto [xa, ya] = chosen[k - 1];
        const auto [xb, yb] = chosen[k];
        if (x >= xa && x <= xb && std::isfinite(ya) && std::isfinite(yb))
          return xb > xa ? ya + (yb - ya) * (x - xa) / (xb - xa) : ya;
      }
      return std::numeric_limits<double>::quiet_NaN();
    };
    auto onCurve = [&](const Box& b) {
      for (double x = b.x; x <= b.x + b.w; x += 3) {
        const double y = yAt(x);
        if (std::isfinite(y) && y >= b.y - 2 && y <= b.y + b.h + 2) return true;
      }
      return false;
    };
    // The first of the candidate places (anchor x, baseline y) that is clear of the marks and the
    // chosen curve, else the first clear of the marks, else the first.
    auto place = [&](const std::string& s, double size, const std::vector<std::pair<double, double>>& candidates) {
      const double w = c.width(s, size, true);
      Box best{};
      int quality = -1;  // 0 some place, 1 clear of the marks, 2 clear of the curve too
      for (const auto& [cx, cy] : candidates) {
        if (!std::isfinite(cx) || !std::isfinite(cy)) continue;
        const double x = std::clamp(cx, x0 + 4, x0 + PW - w - 4);
        const double y = std::clamp(cy, y0 + size + 4, y0 + PH - 6);
        const Box b{x - 3, y - size - 1, w + 6, size + 6};
        const bool clear = std::none_of(keepClear.begin(), keepClear.end(), [&](const Box& o) { return b.hits(o); });
        const int q = clear ? (onCurve(b) ? 1 : 2) : 0;
        if (q > quality) best = b, quality = q;
        if (q == 2) break;
      }
      keepClear.push_back(best);
      return best;
    };
    auto boxed = [&](const std::string& s, const Box& b, double size, const Rgb& colour) {
      c.colour(Rgb{1, 1, 1}, 0.85);
      c.rect(b.x, b.y, b.w, b.h);
      c.colour(colour);
      c.text(s, b.x + 3, b.y + size + 1, size, 0, true);
    };
    const std::string predicted = fmt::format("{} at {}", valueText(p.target.value), p.targetScale);
    const double pw = c.width(predicted, 12, true);
    boxed(predicted,
          place(predicted, 12,
                {{tx - 12 - pw, ty - 10}, {tx - 12 - pw, ty + 20}, {tx + 12, ty - 10}, {tx + 12, ty + 20},
                 {tx - 12 - pw, ty - 30}, {tx - 12 - pw, ty + 40}}),
          12, kTarget);
    // The formula: where the chosen curve crosses one of a few places across the plot, above or
    // below it.
    if (!chosen.empty()) {
      const std::string formula = p.chosen.formula;
      const double fw = c.width(formula, 13, true);
      std::vector<std::pair<double, double>> candidates;
      for (double off : {0.0, 30.0, 60.0})
        for (double f : {0.42, 0.3, 0.55, 0.2, 0.68, 0.12}) {
          const double x = x0 + PW * f, y = yAt(x);
          const bool belowFirst = y < y0 + PH * 0.5;
          candidates.push_back({x - fw / 2, belowFirst ? y + 26 + off : y - 14 - off});
          candidates.push_back({x - fw / 2, belowFirst ? y - 14 - off : y + 26 + off});
        }
      // Past those, the plot's corners (the formula in the curve's colour still names it).
      for (const auto& corner : std::vector<std::pair<double, double>>{
               {x0 + 10, y0 + 24}, {x0 + PW - fw - 10, y0 + 24}, {x0 + 10, y0 + PH - 10}, {x0 + PW - fw - 10, y0 + PH - 10}})
        candidates.push_back(corner);
      boxed(formula, place(formula, 13, candidates), 13, kChosen);
    }
    c.colour(0.3, 0.3, 0.3);
    c.frame(x0, y0, PW, PH);

    // Legend under the plot: what each mark is, with the figures.
    double y = legendY;
    const double lx = 20, tx0 = 56, tw = W - tx0 - 20;
    c.colour(0.1, 0.1, 0.1);
    c.circle(lx + 16, y - 4, 4.5);
    c.text(fitText(c, "inputs: " + inputsText(p), 12, tw), tx0, y, 12);
    y += 18;
    c.colour(kChosen);
    c.line(lx, y - 4, lx + 32, y - 4, 2.4);
    c.colour(0, 0, 0);
    c.text(fitText(c, fmt::format("chosen: {} ({})", p.chosen.formula, p.chosen.note), 12, tw), tx0, y, 12);
    y += 18;
    c.colour(kTarget);
    c.diamond(lx + 16, y - 4, 5);
    c.colour(0, 0, 0);
    c.text(fitText(c, fmt::format("target: {} at {}", valueText(p.target.value), p.targetScale), 12, tw), tx0, y, 12);
    for (std::size_t k = 0; k < p.rejected.size(); ++k) {
      y += 18;
      c.colour(kRejected[k % 3], kRejectedAlpha);
      c.dash(6, 4);
      c.line(lx, y - 4, lx + 32, y - 4, 1.6);
      c.dash(0, 0);
      c.colour(0.25, 0.25, 0.25);
      c.text(fitText(c, fmt::format("{}: {} ({})", p.exact ? "ruled out" : "passed over", p.rejected[k].formula,
                                    p.rejected[k].note),
                     12, tw),
             tx0, y, 12);
    }
    if (p.rejectedTotal > p.rejected.size()) {
      y += 18;
      c.colour(0.25, 0.25, 0.25);
      c.text(fmt::format("{} more hypotheses {}, further from the inputs, not drawn", p.rejectedTotal - p.rejected.size(),
                         p.exact ? "ruled out" : "passed over"),
             tx0, y, 12);
    }
    if (!p.sampling.empty()) {
      y += 18;
      c.colour(0.25, 0.25, 0.25);
      c.text(fitText(c, p.sampling, 11, tw), tx0, y, 11);
    }
  });
}

std::string plotFileStem(const ScalingPlot& p) {
  auto slug = [](const std::string& s) {
    std::string out;
    for (char ch : s) {
      const auto u = static_cast<unsigned char>(ch);
      if (std::isalnum(u) || ch == '_' || ch == '.') out += ch;
      else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
    return out;
  };
  std::string quantity = slug(p.quantity);
  for (char& ch : quantity) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string stem = fmt::format("e{}-{}-{}", p.events.empty() ? 0 : p.events.front().event, slug(p.op), quantity);
  stem += "-" + (p.classes.empty() ? std::string("all") : slug(p.classes.front()));
  if (p.classes.size() > 1) stem += fmt::format("-and-{}-more", p.classes.size() - 1);
  if (stem.size() > 120) stem.resize(120);
  return stem;
}

namespace {

std::string html(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '<') out += "&lt;";
    else if (ch == '>') out += "&gt;";
    else if (ch == '&') out += "&amp;";
    else if (ch == '"') out += "&quot;";
    else out += ch;
  }
  return out;
}

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw InputError("", 0, fmt::format("cannot write {}", path));
}

}  // namespace

PlotSet writeScalingPlots(const std::vector<ScalingPlot>& plots, const std::vector<std::string>& unplotted,
                          const std::string& dir, PictureFormat format, std::size_t limit) {
  PlotSet set;
  const std::string ext = format == PictureFormat::Svg ? "svg" : "png";
  std::set<std::string> taken;
  std::string txt = "# tracegen extrapolate --plot: one picture per quantity that changes with scale\n"
                    "# file\tevents\tquantity\tclasses\tinputs\tmodel\tat the target\n";
  std::string rows;
  for (std::size_t k = 0; k < plots.size(); ++k) {
    const ScalingPlot& p = plots[k];
    std::string file;
    if (k < limit) {
      std::string stem = plotFileStem(p);
      for (int n = 2; taken.count(stem); ++n) stem = fmt::format("{}-{}", plotFileStem(p), n);
      taken.insert(stem);
      file = stem + "." + ext;
      drawScalingPlot(p, dir + "/" + file);
      set.files.push_back(file);
    } else {
      ++set.left;
    }
    std::string events;
    for (const auto& e : p.events) events += fmt::format("{}{}", events.empty() ? "" : ",", e.event);
    const std::string classes = p.classes.empty() ? "all" : fmt::format("{}", fmt::join(p.classes, "; "));
    const std::string target = fmt::format("{} at {}", valueText(p.target.value), p.targetScale);
    txt += fmt::format("{}\t{} {}\t{}\t{}\t{}\t{}\t{}\n", file.empty() ? "-" : file, events, p.op, p.quantity, classes,
                       inputsText(p), p.chosen.formula, target);
    rows += fmt::format("<tr><td>{}</td><td>{} {}</td><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td></tr>\n",
                        file.empty() ? "(past the limit)" : fmt::format("<a href=\"{0}\"><img src=\"{0}\" width=\"300\"></a>", html(file)),
                        html(events), html(p.op), html(p.quantity), html(classes), html(inputsText(p)),
                        html(p.chosen.formula), html(target));
  }
  if (set.left > 0)
    txt += fmt::format("# {} quantities past the first {} are listed without pictures (--plot-limit)\n", set.left, limit);
  std::string notes;
  if (!unplotted.empty()) {
    txt += "# explained without a picture (the same at every input, or no fitted model of the scale: grid "
           "directions, relation steps, block distributions; notes):\n";
    for (const std::string& line : unplotted) {
      txt += "#   " + line + "\n";
      notes += "<li>" + html(line) + "</li>\n";
    }
  }
  writeFile(dir + "/index.txt", txt);
  writeFile(dir + "/index.html",
            fmt::format("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tracegen extrapolate --plot</title>"
                        "<style>body{{font-family:sans-serif}} td{{vertical-align:top;padding:4px}} "
                        "tr:nth-child(even){{background:#f4f4f4}}</style></head><body>\n"
                        "<h1>Scaling models of the extrapolation</h1>\n<p>{} quantities{}.</p>\n"
                        "<table>\n<tr><th>picture</th><th>events</th><th>quantity</th><th>classes</th><th>inputs</th>"
                        "<th>model</th><th>at the target</th></tr>\n{}</table>\n{}</body></html>\n",
                        plots.size(),
                        set.left > 0 ? fmt::format("; the {} past the first {} have no picture (--plot-limit)", set.left, limit)
                                     : "",
                        rows,
                        notes.empty() ? "" : "<h2>Explained without a picture</h2>\n<ul>\n" + notes + "</ul>\n"));
  return set;
}

}  // namespace tracegen
