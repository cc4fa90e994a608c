// Fixed-bin time histograms for the recorder.
//
// Every histogram has the same eight decade bins, [0,1) [1,10) ... [1e5,1e6) [1e6,1e9]
// microseconds, so histograms from different iterations, call sites and ranks merge by adding
// bin by bin (count, sum, min, max) without re-binning, in any order, with the same result.
// Means are exact while recording (each bin keeps its sum). Only bins that hold samples are
// kept, and merging inserts a bin one side lacks at its place. When the global trace is written,
// times are rounded to three significant digits (and 0.01 us): short in the text form, and far
// finer than the run-to-run noise of timings.
//
// Drift over calls: an accumulator also sums its samples by the index k of the sample (the
// samples it took before it) in kCallRanges ranges of doubling length, [0,1) [1,2) [2,4) [4,8)
// ..., the last open-ended; a range's count follows from n, so a sample costs a comparison and an
// addition (the open range's sum), and the array is written once per range.
// Accumulators of one rank append (the later one's indices shift by the earlier one's n, its
// sums spread over the ranges they then fall in, in proportion); histograms of different ranks
// add range by range. The global trace keeps the ranges only where they drift (ir/Trace.h,
// compactCallRanges).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "ir/Trace.h"

namespace tracegen::record {

constexpr int kTimeBins = 8;
// Bin edges in microseconds; the last bin also takes anything beyond its end.
double timeBinStart(int bin);
double timeBinEnd(int bin);
// Inline, with add(): every recorded call adds two samples.
inline int timeBin(double us) {
  int b = 0;
  for (double edge = 1; b < kTimeBins - 1 && us >= edge; edge *= 10) ++b;
  return b;
}

constexpr int kCallRanges = 24;
// The range of the call of index k: 0 for k = 0, else floor(log2 k) + 1, at most the last.
inline int callRange(std::int64_t k) {
  const int r = static_cast<int>(std::bit_width(static_cast<std::uint64_t>(k)));
  return r < kCallRanges ? r : kCallRanges - 1;
}
std::int64_t callRangeFirst(int range);
// The calls of range `range` among n calls indexed 0..n-1.
std::int64_t callsInRange(int range, std::int64_t n);

// Samples of one (event, phase, predecessor) on one rank.
struct TimeAcc {
  struct BinAcc {
    std::int64_t freq = 0;
    double sum = 0;
    double min = std::numeric_limits<double>::infinity();
    double max = -std::numeric_limits<double>::infinity();
  };
  std::int64_t n = 0;
  // The samples of the newest call range not yet in rangeSum, and the index that starts the
  // next range: a sample adds to a sum beside n (the same cache line), and rangeSum is written
  // once per range. rangeSum is allocated when the first range closes (empty: all in openSum),
  // so that an accumulator stays as small as without ranges (the compressor scans nodes and
  // their accumulators on every call: 190 more bytes in each made the recorder's halo step
  // slower by a fifth); byCall = false (MPI times) keeps none at all.
  double openSum = 0;
  std::int64_t openEnd = 1;
  bool byCall = true;
  std::array<BinAcc, kTimeBins> bins{};
  std::vector<double> rangeSum;  // by callRange(sample index), but openSum

  void add(double us) {
    if (!(us >= 0)) us = 0;  // clock steps and NaN: count the call, not a negative duration
    BinAcc& b = bins[static_cast<std::size_t>(timeBin(us))];
    ++b.freq;
    b.sum += us;
    b.min = us < b.min ? us : b.min;
    b.max = us > b.max ? us : b.max;
    if (n >= openEnd) [[unlikely]]
      closeRange();
    openSum += us;
    ++n;
  }
  // The sum of the samples of call range r.
  double rangeTotal(int r) const;
  // Adds the samples of `o`, taken after all of this one's (a loop's next iterations).
  void merge(const TimeAcc& o);

 private:
  void closeRange();  // openSum into rangeSum; the range of sample n opens
  void mergeRanges(const TimeAcc& o);  // o's range sums, shifted by n
  void mergeBins(const TimeAcc& o);
};

// The rank's accumulator as a trace histogram (min and max attributed to `rank`), with every
// call range that holds samples.
Histogram toHistogram(const TimeAcc& acc, Rank rank);
// Adds `from` into `into`: n and frequencies add, extremes and their ranks are kept, bin means
// are weighted. Bins are matched by their start; a bin only one side has is inserted in order.
// Call ranges add (mergeCallRanges).
void mergeHistogram(Histogram& into, const Histogram& from);
// Rounds every time to three significant digits (means to at most four decimals of a
// microsecond, extremes to two) and writes empty bins
// as their lower edge (see above); keeps the call ranges only where they drift
// (compactCallRanges). Applied once, to the global trace.
void roundHistogram(Histogram& h);

}  // namespace tracegen::record
