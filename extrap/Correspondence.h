// Correspondence of events between traces of one application recorded at different scales:
// which event of one input is which event of another.
//
// Call sites are no identity across inputs: suites that compile one binary per process count
// (problem size and process grid fixed at build time), another optimisation level or another
// compiler move every return address, so the same MPI_Irecv is `1556_3933_11ff` at 4 ranks and
// `1556_3944_11ff` at 8. Events are therefore matched by what they do, not where they were
// called from.
//
// Algorithm. Each event gets a structural key: its operation, the communicators, datatypes and
// reduction operators it uses, and how it names peers (relative offsets, absolute ranks, the
// wildcard). Each input is aligned with the reference (the first input) over the compressed
// event sequences by a weighted longest common subsequence: events align only where their keys
// are equal; among alignments of maximal length, the one that pairs most events of equal call
// site, then of equal loop nesting, wins (call sites are a hint, never required). The common
// prefix and suffix are matched first, so the quadratic table covers only the part that
// differs, and its size is bounded (an error beyond it, not work in proportion to the input).
// The merged trace interleaves the events of disjoint rank sets in an order clustering chose,
// which differs between scales (on a 4x2 grid the row that receives from the north and the
// row that sends to the south share no rank, and either event may come first); where the
// in-order alignment leaves events unpaired, a second, greedy alignment may reorder the input
// as long as every rank's own order is kept (each pair of events that share a rank). Where
// every event of every input is paired, each input takes the largest input's order of events
// and the first input's call sites (event sites, merged sites and the predecessor sites of
// times), and extrapolation proceeds as if the binaries had been one. A loop of one trip is no
// loop in a trace: where an event heads an inner loop at some inputs and not at others, the
// others get that loop with one trip, so that its trip count is fitted over every input. Where events are left unpaired, the structure
// changes with scale: the inputs are grouped into sets that align with each other completely,
// and the error names the first two events that differ and the scales that agree.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "extrap/Extrapolate.h"

namespace tracegen::extrap {

struct CorrespondenceResult {
  // The inputs with their call sites renamed to the reference's; events in the same order.
  std::vector<ExtrapolateInput> inputs;
  // Inputs set aside (indices into the caller's inputs) because their structure differs from
  // that of the larger inputs, which agree; with why, for the summary and --explain.
  std::vector<std::size_t> setAside;
  std::vector<std::string> notes;
  std::map<std::string, std::int64_t> stats;
};

// Aligns the inputs (at least two) and renames their sites; throws InputError naming the first
// events that differ when the structure changes in a way no renaming explains. When the largest
// inputs (two or more, the largest among them) agree and smaller ones differ, the smaller ones
// are set aside with a note instead: small scales are often degenerate (on a 2x2 grid every rank
// is a corner, a loop of log2(2) steps is no loop).
CorrespondenceResult correspond(const std::vector<ExtrapolateInput>& inputs);

}  // namespace tracegen::extrap
