#include "record/TimeStats.h"

#include <algorithm>
#include <cmath>

namespace tracegen::record {

namespace {
constexpr std::array<double, kTimeBins + 1> kEdges = {0, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e9};

// Three significant digits and at most `decimals` decimals (of a microsecond): far finer than
// the run-to-run noise of one timing, and short in the text form. Means keep four decimals
// (0.1 ns): a mean is multiplied by its count when a benchmark replays it, and an interval of
// 6 ns between two calls written as 0.01 us made persist's 5 million such intervals per rank
// 20 ms longer; extremes keep two.
double roundTime(double v, int decimals) {
  if (v == 0 || !std::isfinite(v)) return v;
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(v))));
  double r;
  if (mag >= 2) {
    const double step = std::pow(10.0, mag - 2);  // an exact integer
    r = std::round(v / step) * step;
  } else {
    const double scale = std::pow(10.0, 2 - mag);
    r = std::round(v * scale) / scale;
  }
  const double cap = std::pow(10.0, decimals);
  return std::round(r * cap) / cap;
}
constexpr int kMeanDecimals = 4, kExtremeDecimals = 2;
}  // namespace

double timeBinStart(int bin) { return kEdges[static_cast<std::size_t>(bin)]; }
double timeBinEnd(int bin) { return kEdges[static_cast<std::size_t>(bin) + 1]; }

std::int64_t callRangeFirst(int range) { return range == 0 ? 0 : std::int64_t{1} << (range - 1); }

std::int64_t callsInRange(int range, std::int64_t n) {
  const std::int64_t first = callRangeFirst(range);
  if (n <= first) return 0;
  if (range == kCallRanges - 1) return n - first;
  return std::min(n, callRangeFirst(range + 1)) - first;
}

namespace {
// The first index after range r (none after the last).
std::int64_t callRangeEnd(int r) {
  return r == kCallRanges - 1 ? std::numeric_limits<std::int64_t>::max() : callRangeFirst(r + 1);
}
}  // namespace

void TimeAcc::closeRange() {
  if (!byCall) {  // no ranges: never again
    openEnd = std::numeric_limits<std::int64_t>::max();
    return;
  }
  if (rangeSum.empty()) rangeSum.assign(kCallRanges, 0.0);
  if (n > 0) rangeSum[static_cast<std::size_t>(callRange(n - 1))] += openSum;
  openSum = 0;
  openEnd = callRangeEnd(callRange(n));
}

double TimeAcc::rangeTotal(int r) const {
  const double open = n > 0 && r == callRange(n - 1) ? openSum : 0;
  return (rangeSum.empty() ? 0.0 : rangeSum[static_cast<std::size_t>(r)]) + open;
}

void TimeAcc::merge(const TimeAcc& o) {
  if (o.n == 0) return;
  if (!byCall || !o.byCall) {
    byCall = false;
    rangeSum.clear();
    openEnd = std::numeric_limits<std::int64_t>::max();
  } else {
    if (rangeSum.empty()) rangeSum.assign(kCallRanges, 0.0);
    if (n > 0) rangeSum[static_cast<std::size_t>(callRange(n - 1))] += openSum;
  }
  openSum = 0;
  if (byCall) mergeRanges(o);
  n += o.n;
  if (byCall) openEnd = callRangeEnd(callRange(n - 1));  // the newest sample's range stays open (openSum 0)
  mergeBins(o);
}

void TimeAcc::mergeRanges(const TimeAcc& o) {
  // o's range r holds its calls [first, first + count); here they are [n + first, ...), which
  // may straddle this accumulator's ranges: each takes the share of the sum its calls are.
  for (int r = 0; r < kCallRanges; ++r) {
    const std::int64_t count = callsInRange(r, o.n);
    if (count == 0) continue;
    const double sum = o.rangeTotal(r);
    std::int64_t from = n + callRangeFirst(r);
    const std::int64_t end = from + count;
    while (from < end) {
      const int t = callRange(from);
      const std::int64_t stop = t == kCallRanges - 1 ? end : std::min(end, callRangeFirst(t + 1));
      rangeSum[static_cast<std::size_t>(t)] += sum * static_cast<double>(stop - from) / static_cast<double>(count);
      from = stop;
    }
  }
}

void TimeAcc::mergeBins(const TimeAcc& o) {
  for (std::size_t i = 0; i < bins.size(); ++i) {
    if (o.bins[i].freq == 0) continue;  // most of the eight bins are empty
    bins[i].freq += o.bins[i].freq;
    bins[i].sum += o.bins[i].sum;
    bins[i].min = std::min(bins[i].min, o.bins[i].min);
    bins[i].max = std::max(bins[i].max, o.bins[i].max);
  }
}

Histogram toHistogram(const TimeAcc& acc, Rank rank) {
  Histogram h;
  h.n = acc.n;
  h.minRank = h.maxRank = rank;
  double sum = 0;
  bool any = false;
  for (int i = 0; i < kTimeBins; ++i) {
    const TimeAcc::BinAcc& b = acc.bins[static_cast<std::size_t>(i)];
    if (b.freq == 0) continue;  // only bins that hold samples are kept (and written)
    Bin out;
    out.start = timeBinStart(i);
    out.end = timeBinEnd(i);
    out.freq = b.freq;
    out.min = b.min;
    out.max = b.max;
    out.avg = b.sum / static_cast<double>(b.freq);
    sum += b.sum;
    if (!any || b.min < h.min) h.min = b.min;
    if (!any || b.max > h.max) h.max = b.max;
    any = true;
    h.bins.push_back(out);
  }
  h.avg = acc.n > 0 ? sum / static_cast<double>(acc.n) : 0;
  for (int r = 0; r < kCallRanges && acc.byCall; ++r) {
    const std::int64_t count = callsInRange(r, acc.n);
    if (count == 0) break;  // ranges fill in order
    h.calls.push_back({callRangeFirst(r), acc.rangeTotal(r) / static_cast<double>(count), count});
  }
  return h;
}

void mergeHistogram(Histogram& into, const Histogram& from) {
  if (from.n == 0) return;
  if (into.n == 0) {
    into = from;
    return;
  }
  into.calls = mergeCallRanges(into.calls, into.n, into.mean(), from.calls, from.n, from.mean());
  if (from.min < into.min || (from.min == into.min && from.minRank < into.minRank)) {
    into.min = from.min;
    into.minRank = from.minRank;
  }
  if (from.max > into.max || (from.max == into.max && from.maxRank < into.maxRank)) {
    into.max = from.max;
    into.maxRank = from.maxRank;
  }
  const double total = into.avg * static_cast<double>(into.n) + from.avg * static_cast<double>(from.n);
  into.n += from.n;
  into.avg = total / static_cast<double>(into.n);
  for (const Bin& fb : from.bins) {
    auto it = std::find_if(into.bins.begin(), into.bins.end(), [&](const Bin& b) { return b.start == fb.start; });
    if (it == into.bins.end()) {
      auto pos = std::find_if(into.bins.begin(), into.bins.end(), [&](const Bin& b) { return b.start > fb.start; });
      into.bins.insert(pos, fb);
      continue;
    }
    Bin& b = *it;
    if (fb.freq == 0) continue;
    if (b.freq == 0) {
      b = fb;
      continue;
    }
    const std::int64_t f = b.freq + fb.freq;
    b.avg = (b.avg * static_cast<double>(b.freq) + fb.avg * static_cast<double>(fb.freq)) / static_cast<double>(f);
    b.min = std::min(b.min, fb.min);
    b.max = std::max(b.max, fb.max);
    b.freq = f;
  }
}

void roundHistogram(Histogram& h) {
  compactCallRanges(h.calls, h.mean());
  for (CallRange& r : h.calls) r.avg = roundTime(r.avg, kMeanDecimals);
  h.avg = roundTime(h.avg, kMeanDecimals);
  // Extremes rounded coarser than the mean must not pass it.
  h.min = std::min(roundTime(h.min, kExtremeDecimals), h.avg);
  h.max = std::max(roundTime(h.max, kExtremeDecimals), h.avg);
  for (Bin& b : h.bins) {
    if (b.freq == 0) {  // no samples: the bin's statistics collapse onto its lower edge
      b.min = b.avg = b.max = b.start;
      continue;
    }
    b.avg = roundTime(b.avg, kMeanDecimals);
    b.min = std::min(roundTime(b.min, kExtremeDecimals), b.avg);
    b.max = std::max(roundTime(b.max, kExtremeDecimals), b.avg);
  }
}

}  // namespace tracegen::record
