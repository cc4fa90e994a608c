// Pictures of an extrapolation's scaling models (`tracegen extrapolate --plot DIR`): per
// quantity that changes with scale, the inputs' values as points, the chosen model as a curve
// with its formula, the target scale (a vertical line) and the value predicted there, and the
// closest hypotheses the inputs ruled out as faint dashed curves (extrap/ScalingPlot.h computes
// them). The x axis is the rank count P, logarithmic where the scales span a factor of 8 or more;
// the y axis logarithmic where the values are positive and span more than two decades.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "extrap/ScalingPlot.h"
#include "viz/Draw.h"

namespace tracegen {

// The most pictures `extrapolate --plot` writes unless --plot-limit says otherwise.
constexpr std::size_t kDefaultPlotLimit = 100;

// Draws one quantity's picture to `path` (.svg or .png).
void drawScalingPlot(const extrap::ScalingPlot& p, const std::string& path);

// A picture's file name without its extension, readable and stable for one trace:
// "e12-MPI_Isend-count-all", "e3-MPI_Allreduce-time-mpi-us-after-cg.c-90-all",
// "e5-MPI_Send-loop-0-iter-x-first-y-interior" (the first event and class where there are several).
std::string plotFileStem(const extrap::ScalingPlot& p);

struct PlotSet {
  std::vector<std::string> files;  // the pictures written, in the plots' order
  std::size_t left = 0;            // quantities past the limit: listed in the index, not drawn
};

// Writes the pictures of the first `limit` plots to `dir` (which must exist), in `format`, and
// index.txt and index.html listing every plot (file, event, quantity, classes, inputs, model,
// value at the target, and those left out past the limit) and the `unplotted` explanation lines
// (times the same at every input, and quantities whose value follows no fitted model: grid
// directions, relation steps, block distributions). Throws InputError when a file cannot be written.
PlotSet writeScalingPlots(const std::vector<extrap::ScalingPlot>& plots, const std::vector<std::string>& unplotted,
                          const std::string& dir, PictureFormat format, std::size_t limit);

}  // namespace tracegen
