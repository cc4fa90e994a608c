// Scale-free benchmarks: from traces of one application at a few rank counts, one benchmark
// program that runs at any rank count its models fit (`tracegen extrapolate T1 T2 T3 -o
// bench.c`, no --ranks). Its ranks are the position classes of the process grid and its values
// formulas of the rank count and the grid's extents (gen/Program.h: ScaleFreeGrid, Formula,
// GridPeer, RelationPeer, Block, Progression), computed by the benchmark at run time.
//
// Algorithm.
//  1. The dimension of the grid is the one extrapolation (extrap/Extrapolate.h) finds at the
//     largest input's own scale.
//  2. Template scales: the inputs are extrapolated to grids whose extents are all at least 3
//     (every position class present) and differ from one another (no value coincides with
//     another by the accident of a square grid): the first kTemplates such grids, smallest
//     first, at which every model has a value (strong scaling's 240/px needs px dividing
//     240). Where these give fewer, the benchmark's own grids of the powers of two with every
//     extent at least 3 (codes whose models need powers of two: NPB CG's 1024/py, its row of
//     log2(px) steps), whose non-square grids part a model in px from its rival in py; the
//     two families are never mixed. Where every input's grid is square (cubic), the code runs
//     on such grids only (NPB BT and SP) and its models cannot tell px from py or sqrt(P): the
//     templates are then the square grids 3x3, 4x4, ... alone, formulas are written in px and
//     P only (rivals parted at a square grid), and the benchmark asks px = py before anything
//     else (ScaleFreeGrid::square). Each extrapolated trace is lowered by the default
//     pipeline and made a Program as a trace read from a file would be, except that wildcard
//     receives stay MPI_ANY_SOURCE (which sender each one matches is decided per rank at one
//     scale, no formula of the grid); the whole pipeline still runs on a copy, so that each
//     template is proven to complete.
//  3. Alignment: the template programs must be one program but for their values: the same
//     statements, loops and calls in the same order, each rank set the same set of position
//     classes, each expression of the same form. A difference is an error naming the first
//     statement that differs and how (the structure changes with the scale in a way the
//     classes do not capture).
//  4. Formulas: each value that differs between the templates is fitted again with the
//     models of extrap/ScalingModel.h in the rank count and the extents: they are the
//     extrapolation's own models evaluated at the templates, so a model reproduces them
//     exactly; times by least squares, which must reproduce them to 1e-6. Peers relative to
//     the rank become grid steps (the same at every template and for every class the
//     statement names), cycles over executions whose length follows the scale (the ring's
//     tag per step) progressions with fitted start, step and length. Peers whose choices by
//     rank cut across the position classes become the relation (gen/GridRelation.h: the
//     row's rank XOR 2^k, the transpose partner) that gives every rank of every template its
//     peer at every execution. Numbers that differ between the ranks of a position class (or
//     whose form differs between templates because they do at some and not at others: N points
//     split evenly over 4 ranks, not over 6) become, per class and per position of their cycle
//     over executions, a block distribution a + b * block(N, p_d, c_d) of the rank's coordinate
//     (extrap/BlockDistribution.h, gen/Program.h BlockTerm) fitted over every rank of every
//     template; where the templates leave several such models (a corner's ceil(N/p)), the one
//     the extrapolation itself chose, or on square grids any of those that agree on the
//     class at every square grid they are defined on. The benchmark checks p_d <= N.
// The program is the first template's with those expressions; its call sites and events are
// the first template's trace, which the result keeps.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "extrap/Extrapolate.h"
#include "gen/Program.h"

namespace tracegen::extrap {

struct ScaleFreeResult {
  gen::Program program;
  // The extrapolated, lowered traces of the templates; the program points into the first.
  std::vector<std::unique_ptr<Trace>> traces;
  std::vector<Grid> templates;
  std::vector<std::string> explanation;        // one line per formula (--explain)
  std::map<std::string, std::int64_t> stats;   // counters (--stats)
  std::string summary() const;                 // one line: the grid, the templates, the formulas
};

// Throws InputError (exit 2) when the inputs do not extrapolate, when no template scale fits
// the models, or when the templates' programs differ in structure or in a value no model fits.
// instructionRate: instructions per second, for inputs whose compute is counted in instructions
// (time-independent ScalaTrace traces); 0 where they hold times.
ScaleFreeResult buildScaleFree(const std::vector<ExtrapolateInput>& inputs, double instructionRate = 0);

}  // namespace tracegen::extrap
