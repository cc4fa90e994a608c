// Timings from several recordings of one run: `tracegen merge-timing r1.tgt r2.tgt r3.tgt`.
//
// A shared or drifting host makes one recording's times a sample of the machine's pace at that
// moment (a real LU code: 4.48 s in one recorded run, 2.99-3.31 s in the next seven), and a
// benchmark replays its recording's pace exactly. Recording the same run several times and
// keeping, per event, timing group and range of calls, the median of the recordings' times
// leaves out a slow (or fast) moment the way a median of repeated measurements does.
//
// The recordings must be one program: the same events, loops, parameters, communicators and
// datatypes (times, footprints and call-site numbering aside). Then, per event and per time
// statistic's key (phase, unit, predecessor call site):
//   * the recordings' timing sub-groups (TimeStat::ranks: ranks whose times differ keep their
//     own) are refined into their common pieces (the intersections of one sub-group of each
//     recording); past kMaxTimingGroups pieces the first recording's sub-groups are kept, each
//     taking in the others the sub-group of its first rank;
//   * for each piece the recordings' means are ordered and their median taken (the mean of the
//     middle two for an even count); the piece keeps the histogram of the middle recording (the
//     lower middle for an even count) scaled to that median, so its spread of calls and its
//     drift over calls stay a real recording's; where every recording has the same call
//     ranges (drift), each range takes the median of the recordings' means of that range;
//   * the spread of the recordings, (largest - smallest mean) / median, is kept per trace: its
//     median and its largest over the compute times of 1 us or more (Trace::recordings).
// The footprint (peak memory per rank, time before MPI_Init and after MPI_Finalize) takes the
// median the same way. The work follows the compressed traces: rank sets are intersected as
// RankLists, never expanded.
#pragma once

#include <string>
#include <vector>

#include "ir/Trace.h"

namespace tracegen {

// The recordings' traces with the names of their files (for diagnostics); at least two. Throws
// InputError naming the first difference (`file:line`) when they are not one program, or when a
// trace is not a recording (lowered: summarised compute times).
Trace mergeTimings(const std::vector<Trace>& recordings, const std::vector<std::string>& files);

}  // namespace tracegen
