// What `tracegen extrapolate --plot DIR` draws of one quantity that changes with scale: the
// values the inputs show, the model the extrapolation chose as a curve, the target scale and
// the value predicted there, and the hypotheses the inputs ruled out. Computed by the
// extrapolation (extrap/Extrapolate.cpp) as plain numbers; drawn by viz/ScalingPlot.h.
//
// Curves are sampled at rank counts between the smallest input and the target: a model of P at
// any rank count, a model of a grid extent (px, py, pz) only at rank counts whose grid the
// extrapolation's topology lays out, so every vertex of a curve is the model's value at a
// scale it is defined for (a model of px may zig-zag over P: px is 4 at 8 = 4x2 and at 16 = 4x4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "extrap/ScalingModel.h"

namespace tracegen::extrap {

struct PlotPoint {
  double ranks = 0;  // P
  double value = 0;
};

struct PlotCurve {
  std::string formula;  // "4096/P", "2 + 3*log2(P)"
  // Why it was passed over ("gives 48 at P=16, not 64"; "cross-validation error 12%"), or for
  // the chosen model how it was fitted ("exact", "least squares, cross-validation error 3%").
  std::string note;
  std::vector<PlotPoint> points;  // by ascending P
};

struct ScalingPlot {
  struct Site {
    std::int64_t event = 0;
    std::string site;  // "cg.c:120"
  };
  // Every event whose quantity this is: events with the same operation, quantity, classes,
  // values and model share one picture.
  std::vector<Site> events;
  std::string op;                    // "MPI_Isend"
  std::string quantity;              // "count", "loop 0 iter", "time compute us after cg.c:90"
  std::vector<std::string> classes;  // the position classes it holds for; empty: every rank
  bool exact = true;                 // an integer fitted exactly; else a real fitted by least squares
  std::vector<PlotPoint> inputs;     // one per input scale that shows the quantity
  std::vector<std::string> inputScales;  // "P=16 (4x4)", per input
  PlotPoint target;                      // the target scale and the value taken there
  std::string targetScale;               // "P=32 (8x4)"
  PlotCurve chosen;
  std::vector<PlotCurve> rejected;  // the closest few of the hypotheses ruled out, closest first
  std::size_t rejectedTotal = 0;    // how many were ruled out in all
  // Where a curve is a model of a grid extent: at which rank counts it is drawn; else empty.
  std::string sampling;
  std::vector<std::string> explanations;  // the --explain lines, one per event
};

// The most rejected hypotheses a picture shows (the rest are counted in rejectedTotal).
constexpr std::size_t kPlotRejected = 3;

// A model's value as a real number at a scale (NaN where its term has none).
double realValue(const ExactModel& m, const Scale& s);

// The closest kPlotRejected of an exact fit's rejected models: by their largest relative miss at
// the inputs, each with its first miss as the note, naming the input by `labels` (one per
// input; Scale::str() where not given).
std::vector<std::pair<ExactModel, std::string>> closestRejected(const ExactFit& f,
                                                                std::span<const Observation<std::int64_t>> inputs,
                                                                std::span<const std::string> labels = {});

}  // namespace tracegen::extrap
