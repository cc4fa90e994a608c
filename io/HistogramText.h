// Time histograms as text: the one reader both trace formats use, and the writer of tracegen's
// spelling.
//
// The two formats spell a histogram differently but mean the same thing, so one function reads
// both, with one set of checks and one set of messages (each a `file:line: error:` at the
// histogram's line):
//
//   ScalaTrace 2:        ( n avg minRank min maxRank max ) {start min avg max end freq}...
//   tracegen (compact):  N AVG MIN@R MAX@R [min avg max freq]...
//   tracegen (earlier):  n=N avg=A min=V@R max=V@R bins=[start min avg max end freq]...
//
// The compact spelling, which tracegen writes, leaves out what the bins give: the edges of a
// standard bin (the recorder's [0, 1), [1, 10), ..., [1e6, 1e9), the one holding the bin's
// minimum), an extreme equal to the first bin's minimum or the last bin's maximum (`@R`), an
// average equal to the bins' mean as the recorder rounds it (`~`), and the one standard bin of
// a histogram whose statistics are the header's (no bins); a bin of equal samples is `[v freq]`,
// any other bin `[start min avg max end freq]`. The earlier spelling (a histogram starting with
// `n=`) still reads: in it a bin whose samples are all equal may be written
// `[start v end freq]`, and a histogram whose only bin holds every sample with the header's
// statistics may write that bin `[start end]` (docs/trace-format.md, "time"). Both tracegen
// spellings may end with the drift over calls, `calls=[first avg n]...` (ir/Trace.h CallRange);
// ScalaTrace's histograms have no such dimension.
#pragma once

#include <string>
#include <vector>

#include "io/TextLines.h"
#include "ir/Trace.h"

namespace tracegen {

enum class HistogramSpelling { ScalaTrace, Tracegen };

// Reads a histogram from `ts` up to the end of its line. Checks: n >= 0; times within the
// limits of docs/trace-format.md; the ranks of the extremes within 0..numRanks-1; bin
// frequencies not negative and adding up to n; bins present when n > 0.
Histogram parseHistogram(TokenStream& ts, HistogramSpelling spelling, Rank numRanks);

// `calls=[first avg n]...` up to the end of the line: ascending firsts from 0, at most
// kMaxCallRanges ranges, finite non-negative means, counts of at least 1 adding up to n.
std::vector<CallRange> parseHistogramCallRanges(TokenStream& ts, std::int64_t n);
// `calls=[first us]...` of a `compute` line, with the same checks on firsts and times.
std::vector<ComputeTime::ByCall> parseComputeCallRanges(TokenStream& ts);
// ` calls=...` (with its leading space), nothing for no ranges.
void appendCallRangesText(std::string& out, const std::vector<CallRange>& calls);
void appendCallRangesText(std::string& out, const std::vector<ComputeTime::ByCall>& calls);

// Appends the histogram in tracegen's compact spelling (`N AVG MIN@R MAX@R [...]...`, no
// leading space; bins that hold no sample left out). A histogram with samples but no bins,
// which the compact spelling cannot state (and no reader accepts), is written in the earlier one.
void appendHistogramText(std::string& out, const Histogram& h);

}  // namespace tracegen
