// Draws inspect's pictures with cairo, whose SVG and PNG surfaces need no display: the
// communication matrix (a log colour scale over the point-to-point bytes of each sender and
// receiver, or block of them, with its legend, and under it the collective bytes each rank or
// block contributes, as bars on the matrix's columns) and the time plot (compute and MPI time
// per rank or block, stacked, the slowest rank marked). Every panel says in words when it has
// nothing to show, and the pictures say when ranks are aggregated into blocks.
#include "viz/Draw.h"

#include "viz/Canvas.h"

#include <algorithm>
#include <cairo-svg.h>
#include <cairo.h>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <numbers>

#include "ir/Diagnostics.h"

namespace tracegen {

using viz::Canvas;
using viz::grouped;
using viz::niceStep;
using viz::render;
using viz::Rgb;

namespace {

// Viridis (perceptually uniform, readable in grey and by most colour-blind readers), by five
// of its points interpolated linearly: x in [0, 1].
Rgb viridis(double x) {
  static const Rgb stops[] = {{68 / 255.0, 1 / 255.0, 84 / 255.0},
                              {59 / 255.0, 82 / 255.0, 139 / 255.0},
                              {33 / 255.0, 145 / 255.0, 140 / 255.0},
                              {94 / 255.0, 201 / 255.0, 98 / 255.0},
                              {253 / 255.0, 231 / 255.0, 37 / 255.0}};
  x = std::clamp(x, 0.0, 1.0) * 4;
  const int i = std::min(static_cast<int>(x), 3);
  const double f = x - i;
  const Rgb& a = stops[i];
  const Rgb& b = stops[i + 1];
  return {a.r + (b.r - a.r) * f, a.g + (b.g - a.g) * f, a.b + (b.b - a.b) * f};
}

// Bytes in decimal units: "512 B", "1.5 kB", "20 MB".
std::string bytesText(double b) {
  static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  int u = 0;
  while (b >= 1000 && u < 6) {
    b /= 1000;
    ++u;
  }
  return fmt::format("{:.3g} {}", b, units[u]);
}

// Seconds from microseconds, in a unit that suits `scale` (the axis's largest value).
std::string timeText(double us, double scale) {
  if (scale >= 1e6) return fmt::format("{:.3g} s", us / 1e6);
  if (scale >= 1e3) return fmt::format("{:.3g} ms", us / 1e3);
  return fmt::format("{:.3g} us", us);
}

// A rank number for an axis: 1500000 as "1.5M", 20000 as "20k", smaller ones as they are.
std::string rankLabel(Rank r) {
  if (r >= 1000000 && r % 100000 == 0) return fmt::format("{:g}M", static_cast<double>(r) / 1e6);
  if (r >= 10000 && r % 1000 == 0) return fmt::format("{}k", r / 1000);
  return fmt::format("{}", r);
}

// Ticks along a rank axis of `length` pixels for ranks [0, ranks) in blocks of `blockSize`:
// calls `tick(position, rank)` for round rank numbers, at the rank's place (the centre of its
// cell when a cell is one rank).
void rankTicks(Rank ranks, Rank blockSize, Rank blocks, double length, const std::function<void(double, Rank)>& tick) {
  const double cell = length / static_cast<double>(blocks);
  const auto step = ranks <= 10 ? Rank{1} : static_cast<Rank>(niceStep(static_cast<double>(ranks), 8));
  for (Rank r = 0; r < ranks; r += step)
    tick((static_cast<double>(r) + 0.5) / static_cast<double>(blockSize) * cell, r);
}

}  // namespace

namespace viz {

void render(const std::string& path, int w, int h, const std::function<void(Canvas&)>& draw) {
  const PictureFormat format = pictureFormatOf(path, "picture");
  cairo_surface_t* surface = format == PictureFormat::Svg ? cairo_svg_surface_create(path.c_str(), w, h)
                                                          : cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
  cairo_t* cr = cairo_create(surface);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  Canvas canvas(cr);
  draw(canvas);
  cairo_destroy(cr);
  cairo_status_t status = CAIRO_STATUS_SUCCESS;
  if (format == PictureFormat::Png && cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS)
    status = cairo_surface_write_to_png(surface, path.c_str());
  cairo_surface_finish(surface);
  if (status == CAIRO_STATUS_SUCCESS) status = cairo_surface_status(surface);
  cairo_surface_destroy(surface);
  if (status != CAIRO_STATUS_SUCCESS)
    throw InputError("", 0, fmt::format("cannot write {}: {}", path, cairo_status_to_string(status)));
}

}  // namespace viz

PictureFormat pictureFormatOf(const std::string& path, const std::string& option) {
  const auto dot = path.rfind('.');
  std::string ext = dot == std::string::npos ? "" : path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "svg") return PictureFormat::Svg;
  if (ext == "png") return PictureFormat::Png;
  throw InputError("", 0, fmt::format("{} {}: the picture's name must end in .svg or .png", option, path));
}

void drawCommMatrix(const CommMatrix& m, const std::string& title, const std::string& path) {
  pictureFormatOf(path, "--matrix");
  const double S = 560, x0 = 100, y0 = 84;
  const double legendX = x0 + S + 28, legendW = 18;
  const double panelY = y0 + S + 78, panelH = 150;
  const int W = 860, H = static_cast<int>(panelY + panelH + 80);
  render(path, W, H, [&](Canvas& c) {
    const double B = static_cast<double>(m.blocks);
    const double cell = S / std::max(B, 1.0);
    c.colour(0, 0, 0);
    c.text(fmt::format("Communication matrix: {}", title), x0, 28, 16, 0, true);
    c.text(m.blockSize > 1 ? fmt::format("{} ranks, aggregated into {} blocks of {} ranks ({} x {} cells)", grouped(m.ranks),
                                         m.blocks, grouped(m.blockSize), m.blocks, m.blocks)
                           : fmt::format("{} ranks", grouped(m.ranks)),
           x0, 48, 12);
    c.text(m.blockSize > 1 ? "point-to-point bytes, sender block x receiver block" : "point-to-point bytes, sender x receiver",
           x0, y0 - 10, 13, 0, true);
    // The matrix: light grey where nothing flows, the log colour scale elsewhere.
    std::int64_t lo = 0, hi = 0;
    for (std::int64_t v : m.p2p)
      if (v > 0) {
        lo = lo == 0 ? v : std::min(lo, v);
        hi = std::max(hi, v);
      }
    double logLo = std::log10(static_cast<double>(std::max<std::int64_t>(lo, 1)));
    double logHi = std::log10(static_cast<double>(std::max<std::int64_t>(hi, 1)));
    if (logHi - logLo < 1) logLo = logHi - 1;  // a single value, or values close together: one decade
    auto scale = [&](double v) { return (std::log10(v) - logLo) / (logHi - logLo); };
    c.colour(0.93, 0.93, 0.93);
    c.rect(x0, y0, S, S);
    for (Rank s = 0; s < m.blocks; ++s)
      for (Rank r = 0; r < m.blocks; ++r) {
        const std::int64_t v = m.cell(s, r);
        if (v <= 0) continue;
        c.colour(viridis(scale(static_cast<double>(v))));
        // A hair wider than the cell, so that anti-aliasing leaves no seams between cells.
        c.rect(x0 + static_cast<double>(r) * cell, y0 + static_cast<double>(s) * cell, cell + 0.3, cell + 0.3);
      }
    if (cell >= 44)  // cells large enough to read their bytes: dark text on the light end of the scale
      for (Rank s = 0; s < m.blocks; ++s)
        for (Rank r = 0; r < m.blocks; ++r) {
          const std::int64_t v = m.cell(s, r);
          if (v <= 0) continue;
          if (scale(static_cast<double>(v)) > 0.55) c.colour(0, 0, 0);
          else c.colour(1, 1, 1);
          c.text(bytesText(static_cast<double>(v)), x0 + (static_cast<double>(r) + 0.5) * cell,
                 y0 + (static_cast<double>(s) + 0.5) * cell + 4, cell >= 80 ? 12 : 10, 0.5);
        }
    if (m.blocks <= 32) {  // cell borders where cells are large enough to count
      c.colour(1, 1, 1);
      for (Rank i = 1; i < m.blocks; ++i) {
        const double at = static_cast<double>(i) * cell;
        c.line(x0 + at, y0, x0 + at, y0 + S, 1);
        c.line(x0, y0 + at, x0 + S, y0 + at, 1);
      }
    }
    c.colour(0.3, 0.3, 0.3);
    c.frame(x0, y0, S, S);
    if (hi == 0) {
      c.colour(0.2, 0.2, 0.2);
      c.text(m.neighborBytes > 0 || m.unplacedBytes > 0 ? "no point-to-point messages drawn (see the note below)"
                                                        : "no point-to-point messages in this trace",
             x0 + S / 2, y0 + S / 2, 14, 0.5);
    }
    // Axes: receivers along the bottom, senders down the left.
    c.colour(0, 0, 0);
    double widest = 0;
    rankTicks(m.ranks, m.blockSize, m.blocks, S, [&](double at, Rank r) {
      c.line(x0 + at, y0 + S, x0 + at, y0 + S + 4);
      c.text(rankLabel(r), x0 + at, y0 + S + 17, 11, 0.5);
      c.line(x0 - 4, y0 + at, x0, y0 + at);
      c.text(rankLabel(r), x0 - 7, y0 + at + 4, 11, 1);
      widest = std::max(widest, c.width(rankLabel(r), 11));
    });
    c.text("receiver rank", x0 + S / 2, y0 + S + 36, 13, 0.5);
    c.verticalText("sender rank", x0 - 7 - widest - 16, y0 + S / 2, 13);
    // Legend: the colour scale with decades of bytes, and the grey of empty cells.
    const int steps = 100;
    for (int i = 0; i < steps; ++i) {
      c.colour(viridis(1 - (i + 0.5) / steps));
      c.rect(legendX, y0 + S * i / steps, legendW, S / steps + 0.5);
    }
    c.colour(0.3, 0.3, 0.3);
    c.frame(legendX, y0, legendW, S);
    c.colour(0, 0, 0);
    c.text("bytes", legendX, y0 - 10, 12);
    if (hi > 0) {
      auto yOf = [&](double logv) { return y0 + S * (1 - (logv - logLo) / (logHi - logLo)); };
      // Decades where the scale spans three or more, else 1, 2 and 5 times each power of ten;
      // labels at least 16 pixels apart.
      const int firstDecade = static_cast<int>(std::floor(logLo)), lastDecade = static_cast<int>(std::ceil(logHi));
      const bool decadesOnly = lastDecade - firstDecade >= 4;
      double lastY = 1e9;
      for (int d = firstDecade; d <= lastDecade; ++d)
        for (double mult : {1.0, 2.0, 5.0}) {
          if (decadesOnly && mult != 1.0) continue;
          const double v = mult * std::pow(10.0, d), lv = std::log10(v);
          if (lv < logLo - 1e-9 || lv > logHi + 1e-9) continue;
          const double y = yOf(lv);
          if (lastY - y < 16) continue;
          lastY = y;
          c.line(legendX + legendW, y, legendX + legendW + 4, y);
          c.text(bytesText(v), legendX + legendW + 7, y + 4, 11);
        }
    }
    c.colour(0.93, 0.93, 0.93);
    c.rect(legendX, y0 + S + 12, legendW, 12);
    c.colour(0.3, 0.3, 0.3);
    c.frame(legendX, y0 + S + 12, legendW, 12);
    c.colour(0, 0, 0);
    c.text("none", legendX + legendW + 7, y0 + S + 22, 11);
    if (hi > 0) {
      c.text(fmt::format("largest cell {}", bytesText(static_cast<double>(hi))), legendX - 12, y0 + S + 52, 11);
      c.text(fmt::format("smallest {}", bytesText(static_cast<double>(lo))), legendX - 12, y0 + S + 66, 11);
    }
    // Second panel: collective bytes each rank (block) contributes, on the matrix's columns.
    c.text(m.blockSize > 1 ? fmt::format("collective bytes the ranks of each block contribute (blocks of {} ranks)", grouped(m.blockSize))
                           : "collective bytes each rank contributes",
           x0, panelY - 10, 13, 0, true);
    std::int64_t cmax = 0;
    for (std::int64_t v : m.collective) cmax = std::max(cmax, v);
    c.colour(0.97, 0.97, 0.97);
    c.rect(x0, panelY, S, panelH);
    if (cmax == 0) {
      c.colour(0.2, 0.2, 0.2);
      c.text(m.neighborBytes > 0 ? "no collectives but neighbourhood ones (see the note below)" : "no collectives in this trace",
             x0 + S / 2, panelY + panelH / 2, 14, 0.5);
    } else {
      c.colour(33 / 255.0, 145 / 255.0, 140 / 255.0);
      for (Rank k = 0; k < m.blocks; ++k) {
        const double h = panelH * static_cast<double>(m.collective[static_cast<std::size_t>(k)]) / static_cast<double>(cmax);
        const double gap = cell > 12 ? cell * 0.15 : cell >= 4 ? 0.5 : 0;
        c.rect(x0 + static_cast<double>(k) * cell + gap, panelY + panelH - h, cell - 2 * gap + (gap > 0 ? 0 : 0.3), h);
      }
      c.colour(0, 0, 0);
      const double step = niceStep(static_cast<double>(cmax), 4);
      for (double v = 0; v <= static_cast<double>(cmax) * 1.0001; v += step) {
        const double y = panelY + panelH - panelH * v / static_cast<double>(cmax);
        c.line(x0 - 4, y, x0, y);
        c.text(bytesText(v), x0 - 7, y + 4, 11, 1);
      }
    }
    c.colour(0.3, 0.3, 0.3);
    c.frame(x0, panelY, S, panelH);
    c.colour(0, 0, 0);
    rankTicks(m.ranks, m.blockSize, m.blocks, S, [&](double at, Rank r) {
      c.line(x0 + at, panelY + panelH, x0 + at, panelY + panelH + 4);
      c.text(rankLabel(r), x0 + at, panelY + panelH + 17, 11, 0.5);
    });
    c.text("rank", x0 + S / 2, panelY + panelH + 36, 13, 0.5);
    std::string notes;
    if (m.neighborBytes > 0)
      notes += fmt::format("neighbourhood collectives ({} sent over all ranks; their peers come from a topology) are not drawn; ",
                           bytesText(static_cast<double>(m.neighborBytes)));
    if (m.unplacedBytes > 0)
      notes += fmt::format("{} to peers of communicators the trace does not describe are not drawn; ",
                           bytesText(static_cast<double>(m.unplacedBytes)));
    if (!notes.empty()) c.text(notes.substr(0, notes.size() - 2), x0, H - 14, 11);
  });
}

void drawRankTimes(const RankTimes& t, const std::string& title, const std::string& path) {
  pictureFormatOf(path, "--time-plot");
  const double x0 = 100, y0 = 96, PW = 680, PH = 340;
  const int W = 860, H = static_cast<int>(y0 + PH + 70);
  const Rgb computeColour{59 / 255.0, 82 / 255.0, 139 / 255.0}, mpiColour{0.95, 0.6, 0.2};
  render(path, W, H, [&](Canvas& c) {
    c.colour(0, 0, 0);
    c.text(fmt::format("Time per rank: {}", title), x0, 28, 16, 0, true);
    c.text(fmt::format("{}{}", t.blockSize > 1 ? fmt::format("{} ranks; bars are means over blocks of {} ranks", grouped(t.ranks),
                                                             grouped(t.blockSize))
                                               : fmt::format("{} ranks", grouped(t.ranks)),
                       t.mpiLeftOut ? "; compute is counted in instructions (time-independent trace), MPI time is not drawn" : ""),
           x0, 48, 12);
    double top = 0;
    for (std::size_t k = 0; k < t.compute.size(); ++k) top = std::max(top, t.compute[k] + t.mpi[k]);
    top = std::max(top, t.slowestCompute + t.slowestMpi);
    // Legend above the plot, right-aligned.
    const std::string computeName = t.instructions ? "compute (instructions)" : "compute";
    bool anyMpi = false;
    for (double v : t.mpi) anyMpi = anyMpi || v > 0;
    const std::string mpiName = anyMpi ? "MPI" : "MPI (not measured in this trace)";
    double lx = x0 + PW - c.width(computeName, 12) - (t.instructions ? 0 : c.width(mpiName, 12) + 30) - 16;
    c.colour(computeColour);
    c.rect(lx, y0 - 30, 12, 12);
    c.colour(0, 0, 0);
    c.text(computeName, lx + 16, y0 - 20, 12);
    if (!t.instructions) {
      lx += 16 + c.width(computeName, 12) + 14;
      c.colour(mpiColour);
      c.rect(lx, y0 - 30, 12, 12);
      c.colour(0, 0, 0);
      c.text(mpiName, lx + 16, y0 - 20, 12);
    }
    c.colour(0.97, 0.97, 0.97);
    c.rect(x0, y0, PW, PH);
    const double cell = PW / std::max(1.0, static_cast<double>(t.blocks));
    if (top <= 0) {
      c.colour(0.2, 0.2, 0.2);
      c.text("the trace measures no compute or MPI time", x0 + PW / 2, y0 + PH / 2, 14, 0.5);
    } else {
      top *= 1.12;  // room for the mark above the slowest bar
      const double gap = cell > 12 ? cell * 0.15 : cell >= 4 ? 0.5 : 0;
      for (Rank k = 0; k < t.blocks; ++k) {
        const auto i = static_cast<std::size_t>(k);
        const double hc = PH * t.compute[i] / top, hm = PH * t.mpi[i] / top;
        const double x = x0 + static_cast<double>(k) * cell + gap, w = cell - 2 * gap + (gap > 0 ? 0 : 0.3);
        c.colour(computeColour);
        c.rect(x, y0 + PH - hc, w, hc);
        c.colour(mpiColour);
        c.rect(x, y0 + PH - hc - hm, w, hm);
      }
      // The slowest rank: a red triangle over its bar (its block's) and its figures.
      const Rank k = t.slowest / t.blockSize;
      const auto i = static_cast<std::size_t>(k);
      const double cx = x0 + (static_cast<double>(k) + 0.5) * cell;
      const double barTop = y0 + PH - PH * (t.compute[i] + t.mpi[i]) / top;
      c.colour(0.85, 0.1, 0.1);
      c.line(cx - 6, barTop - 12, cx + 6, barTop - 12, 2);
      c.line(cx - 6, barTop - 12, cx, barTop - 3, 2);
      c.line(cx + 6, barTop - 12, cx, barTop - 3, 2);
      std::string what =
          t.instructions ? fmt::format("slowest: rank {}, {:.4g} instructions", t.slowest, t.slowestCompute * 1e3)
          : anyMpi ? fmt::format("slowest: rank {}, compute {} + MPI {}", t.slowest, timeText(t.slowestCompute, top),
                                 timeText(t.slowestMpi, top))
                   : fmt::format("slowest: rank {}, compute {}", t.slowest, timeText(t.slowestCompute, top));
      const double slowestTotal = t.slowestCompute + t.slowestMpi;
      if (slowestTotal - t.fastestTotal <= 1e-3 * slowestTotal) what += " (every rank within 0.1%)";
      const double tw = c.width(what, 12);
      const double tx = std::clamp(cx - tw / 2, x0 + 4, x0 + PW - tw - 4);
      c.text(what, tx, std::max(barTop - 18, y0 + 14), 12);
      c.colour(0, 0, 0);
      const double step = niceStep(top, 5);
      for (double v = 0; v <= top; v += step) {
        const double y = y0 + PH - PH * v / top;
        c.line(x0 - 4, y, x0, y);
        c.text(t.instructions ? fmt::format("{:.3g}", v * 1e3) : timeText(v, top), x0 - 7, y + 4, 11, 1);
      }
    }
    c.colour(0.3, 0.3, 0.3);
    c.frame(x0, y0, PW, PH);
    c.colour(0, 0, 0);
    rankTicks(t.ranks, t.blockSize, t.blocks, PW, [&](double at, Rank r) {
      c.line(x0 + at, y0 + PH, x0 + at, y0 + PH + 4);
      c.text(rankLabel(r), x0 + at, y0 + PH + 17, 11, 0.5);
    });
    c.text("rank", x0 + PW / 2, y0 + PH + 36, 13, 0.5);
    c.verticalText(t.instructions ? "instructions" : "time", x0 - 70, y0 + PH / 2, 13);
  });
}

}  // namespace tracegen
