// The drawing surface viz/'s pictures share (Draw.cpp, ScalingPlot.cpp): a thin layer over
// cairo for rectangles, lines, curves, markers and text, and the one function that makes an SVG
// or PNG file of a given size and draws into it.
#pragma once

#include <cairo.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

namespace tracegen::viz {

struct Rgb {
  double r, g, b;
};

// A round step for about `target` ticks over [0, span]: 1, 2 or 5 times a power of ten.
inline double niceStep(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / target;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * p >= raw) return m * p;
  return 10 * p;
}

// A count with thousands separators: 4,000,000.
inline std::string grouped(std::int64_t n) {
  std::string digits = fmt::format("{}", n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

class Canvas {
 public:
  explicit Canvas(cairo_t* cr) : cr_(cr) {
    cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  }
  void colour(double r, double g, double b) { cairo_set_source_rgb(cr_, r, g, b); }
  void colour(const Rgb& c) { colour(c.r, c.g, c.b); }
  void rect(double x, double y, double w, double h) {
    cairo_rectangle(cr_, x, y, w, h);
    cairo_fill(cr_);
  }
  void frame(double x, double y, double w, double h, double width = 1) {
    cairo_set_line_width(cr_, width);
    cairo_rectangle(cr_, x, y, w, h);
    cairo_stroke(cr_);
  }
  void line(double x0, double y0, double x1, double y1, double width = 1) {
    cairo_set_line_width(cr_, width);
    cairo_move_to(cr_, x0, y0);
    cairo_line_to(cr_, x1, y1);
    cairo_stroke(cr_);
  }
  // Text with its anchor at (x, y): align 0 left, 0.5 centre, 1 right; y is the baseline.
  void text(const std::string& s, double x, double y, double size, double align = 0, bool bold = false) {
    cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, s.c_str(), &e);
    cairo_move_to(cr_, x - align * e.x_advance, y);
    cairo_show_text(cr_, s.c_str());
  }
  double width(const std::string& s, double size, bool bold = false) {
    cairo_select_font_face(cr_, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr_, size);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, s.c_str(), &e);
    return e.x_advance;
  }
  // Text turned a quarter anticlockwise, centred on (x, y).
  void verticalText(const std::string& s, double x, double y, double size) {
    cairo_save(cr_);
    cairo_translate(cr_, x, y);
    cairo_rotate(cr_, -std::numbers::pi / 2);
    text(s, 0, 0, size, 0.5);
    cairo_restore(cr_);
  }

  void colour(const Rgb& c, double alpha) { cairo_set_source_rgba(cr_, c.r, c.g, c.b, alpha); }
  // Dashes of `on` and `off` points for the strokes that follow; dash(0, 0) for solid lines.
  void dash(double on, double off) {
    const double d[2] = {on, off};
    cairo_set_dash(cr_, d, on > 0 ? 2 : 0, 0);
  }
  // A polyline through the points, broken where a point is not finite, cut to the rectangle
  // (x, y, w, h) in double precision first: cairo's fixed-point coordinates overflow on a curve
  // that runs off to 1e17 (its surface then fails as out of memory).
  void polyline(const std::vector<std::pair<double, double>>& pts, double width, double x, double y, double w, double h) {
    cairo_set_line_width(cr_, width);
    cairo_set_line_join(cr_, CAIRO_LINE_JOIN_ROUND);
    const double xmin = x - 2, xmax = x + w + 2, ymin = y - 2, ymax = y + h + 2;
    bool open = false;  // the path's last point is the start of the next segment
    for (std::size_t k = 1; k < pts.size(); ++k) {
      double ax = pts[k - 1].first, ay = pts[k - 1].second, bx = pts[k].first, by = pts[k].second;
      if (!std::isfinite(ax) || !std::isfinite(ay) || !std::isfinite(bx) || !std::isfinite(by)) {
        open = false;
        continue;
      }
      // Liang-Barsky: the part of the segment inside the rectangle, t in [t0, t1].
      double t0 = 0, t1 = 1;
      const double dx = bx - ax, dy = by - ay;
      bool inside = true;
      for (const auto& [p, q] : {std::pair{-dx, ax - xmin}, std::pair{dx, xmax - ax}, std::pair{-dy, ay - ymin},
                                 std::pair{dy, ymax - ay}}) {
        if (p == 0) {
          if (q < 0) inside = false;
          continue;
        }
        const double r = q / p;
        if (p < 0) t0 = std::max(t0, r);
        else t1 = std::min(t1, r);
      }
      if (!inside || t0 > t1) {
        open = false;
        continue;
      }
      if (!open || t0 > 0) cairo_move_to(cr_, ax + t0 * dx, ay + t0 * dy);
      cairo_line_to(cr_, ax + t1 * dx, ay + t1 * dy);
      open = t1 >= 1;
    }
    cairo_stroke(cr_);
  }
  void circle(double x, double y, double r) {
    cairo_new_sub_path(cr_);
    cairo_arc(cr_, x, y, r, 0, 2 * std::numbers::pi);
    cairo_fill(cr_);
  }
  void diamond(double x, double y, double r) {
    cairo_move_to(cr_, x, y - r);
    cairo_line_to(cr_, x + r, y);
    cairo_line_to(cr_, x, y + r);
    cairo_line_to(cr_, x - r, y);
    cairo_close_path(cr_);
    cairo_fill(cr_);
  }
  // Draws only inside the rectangle until unclip().
  void clip(double x, double y, double w, double h) {
    cairo_save(cr_);
    cairo_rectangle(cr_, x, y, w, h);
    cairo_clip(cr_);
  }
  void unclip() { cairo_restore(cr_); }

 private:
  cairo_t* cr_;
};

// Writes a picture of w x h points to `path`, SVG or PNG by its extension, drawn by `draw` on a
// white background; throws InputError when the file cannot be written.
void render(const std::string& path, int w, int h, const std::function<void(Canvas&)>& draw);

}  // namespace tracegen::viz
