// Extrapolation: traces of one application recorded at two or more rank counts in, the
// application's trace at another rank count out (`tracegen extrapolate`).
//
// Everything is inferred from the compressed traces; no rank is ever expanded, so the cost
// follows the size of the traces and the number of position classes, not the rank counts.
//  1. Correspondence (extrap/Correspondence.h): the inputs' events are aligned by what they do,
//     call sites only a hint, and renamed to the first input's sites; inputs whose structure
//     differs from that of the larger inputs are set aside, and where no two agree the first
//     events that differ are an error.
//  2. Topology: 1-D, then 2-D, then 3-D grids (extents as MPI_Dims_create chooses them, or
//     --grid) are tried; the first under which every rank group of every input is a union of
//     position classes (extrap/topology/Grid.h) is taken; if its fits fail, the next such one is
//     tried, and the first one's error is reported.
//  3. Per event and per class: whether the class executes the event, its loop trip counts and
//     body lengths, and every parameter's value list, each a function of scale. Relative peers
//     become grid directions (+1, -px, +px*py, with wrap-around where the grid is periodic),
//     identifiers (communicator, datatype, operator) must stay constant, every other integer is
//     fitted exactly (ScalingModel's fitExact): first one model for all classes, when every
//     class has the same values at each input, else one model per class. Lists whose length
//     changes with scale must be arithmetic progressions (a tag per step of a loop of P-1
//     steps): their start, step and length are fitted; other lists of different lengths are
//     repeated cyclically to one length (values are consumed cyclically). Compute and MPI times
//     are fitted by least squares (fitReal) per event and predecessor site.
//  4. The target trace takes per slot the classes with equal predicted values as one group
//     (a union of blocks), and is checked by the verifier like any trace read from a file.
// A value no model explains, a class no input shows, or a choice the inputs do not settle is
// an InputError naming the event, the values at each input scale and the models tried.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extrap/BlockDistribution.h"
#include "extrap/ScalingModel.h"
#include "extrap/ScalingPlot.h"
#include "extrap/topology/Grid.h"
#include "ir/Trace.h"

namespace tracegen::extrap {

struct ExtrapolateInput {
  std::string file;  // for diagnostics
  Trace trace;
};

struct ExtrapolateOptions {
  Rank ranks = 0;             // the target rank count
  std::optional<Grid> grid;   // forces the target grid (and its dimension)
  bool plots = false;         // compute ExtrapolateResult::plots (`--plot`)
  // Least-squares fits to reuse and keep (several extrapolations of the same inputs share one:
  // extrap/ScaleFree.cpp); none: each extrapolation fits afresh.
  std::shared_ptr<RealFitCache> fitCache{};
};

struct ExtrapolateResult {
  Trace trace;
  Grid target;
  bool descending = false;  // the grids number ranks along their longest side (Topology.h)
  std::vector<Grid> inputGrids;                       // of the inputs used
  std::vector<Rank> setAside;                         // inputs whose structure differs (Correspondence.h)
  // Where inputs were set aside and the target lies beyond the inputs kept: the structure
  // changed with the scale once, and may again (a multigrid's level count follows the local
  // grid). One sentence, for the summary and the benchmark's header; empty otherwise.
  std::string caution;
  std::array<bool, 3> periodic{false, false, false};  // a peer wraps around in that dimension
  std::vector<std::string> explanation;               // one line per varying quantity (--explain)
  // What `--plot` draws (with ExtrapolateOptions::plots): one per explanation line with a fitted model (trip counts, counts,
  // offsets, times, the mean totals of counts that follow the data), in their order, those of
  // several events with the same operation, quantity, classes, values and model as one.
  std::vector<ScalingPlot> plots;
  // What the trace at the target only approximates (counts that follow the data), one sentence
  // each, for the header of a benchmark made from it.
  std::vector<std::string> approximations;
  // The block distributions (BlockDistribution.h) chosen for values that are no function of the
  // position class alone, once each: the models a scale-free benchmark's values are held to.
  std::vector<BlockModel> blockModels;
  // Counts that follow the data (an MPI_Alltoallv whose counts differ for every pair), by the
  // event at the target: the exact model of the mean total per rank that the trace spreads
  // evenly over the pairs, where one fits (none: least squares). A scale-free benchmark
  // computes the same split at run time.
  struct DataCounts {
    std::int64_t event = 0;
    std::optional<ExactModel> total;
    std::string model;  // as --explain says it
    double spread = 0;  // the largest of a recorded rank's totals from the mean, a fraction
  };
  std::vector<DataCounts> dataCounts;
  std::map<std::string, std::int64_t> stats;          // counters (--stats)
  std::string summary() const;                        // the printable result
};

ExtrapolateResult extrapolate(const std::vector<ExtrapolateInput>& inputs, const ExtrapolateOptions& options);

}  // namespace tracegen::extrap
