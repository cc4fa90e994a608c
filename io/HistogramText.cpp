#include "io/HistogramText.h"

#include <fmt/format.h>
#include <iterator>

#include "io/TextLines.h"
#include "ir/Limits.h"

namespace tracegen {

namespace {

double timeValue(TokenStream& ts, std::string_view what) {
  const double v = ts.getReal(what);
  if (auto why = timeValueProblem(v)) ts.fail(fmt::format("{}: {}", what, *why), "see \"Limits\" in docs/trace-format.md");
  return v;
}

Rank extremeRank(TokenStream& ts, std::string_view what, Rank numRanks) {
  const std::int64_t r = ts.getInt(what);
  if (r < 0 || r >= numRanks) ts.fail(fmt::format("{} {} outside the trace's ranks 0..{}", what, r, numRanks - 1));
  return r;
}

void expectKey(TokenStream& ts, std::string_view key) {
  ts.expect(key);
  ts.expect("=");
}

// The header: sample count, average, and the extremes with the ranks that produced them.
void parseHeader(TokenStream& ts, HistogramSpelling spelling, Rank numRanks, Histogram& h) {
  const bool st = spelling == HistogramSpelling::ScalaTrace;
  if (st) ts.expect("(");
  else expectKey(ts, "n");
  h.n = ts.getInt("histogram sample count");
  if (h.n < 0) ts.fail(fmt::format("histogram with {} samples", h.n));
  if (!st) expectKey(ts, "avg");
  h.avg = timeValue(ts, "histogram average");
  if (st) {
    h.minRank = extremeRank(ts, "histogram min rank", numRanks);
    h.min = timeValue(ts, "histogram minimum");
    h.maxRank = extremeRank(ts, "histogram max rank", numRanks);
    h.max = timeValue(ts, "histogram maximum");
    ts.expect(")");
    return;
  }
  expectKey(ts, "min");
  h.min = timeValue(ts, "histogram minimum");
  ts.expect("@");
  h.minRank = extremeRank(ts, "histogram min rank", numRanks);
  expectKey(ts, "max");
  h.max = timeValue(ts, "histogram maximum");
  ts.expect("@");
  h.maxRank = extremeRank(ts, "histogram max rank", numRanks);
  expectKey(ts, "bins");
}

// The recorder's bins (record/TimeStats.cpp): [0, 1), [1, 10), ... [1e5, 1e6), [1e6, 1e9). The
// compact spelling leaves out the edges of a bin that is one of these and holds its minimum.
constexpr double kStandardEdges[] = {0, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e9};

// The standard bin [start, end) that holds `v`, if any.
bool standardBinOf(double v, double& start, double& end) {
  for (std::size_t i = 0; i + 1 < std::size(kStandardEdges); ++i)
    if (kStandardEdges[i] <= v && v < kStandardEdges[i + 1]) {
      start = kStandardEdges[i];
      end = kStandardEdges[i + 1];
      return true;
    }
  return false;
}

// A bin the compact spelling may write without its edges: a standard bin, the one its minimum
// lies in (so that the reader finds the same edges from the minimum).
bool edgesImplied(const Bin& b) {
  double start = 0, end = 0;
  return standardBinOf(b.min, start, end) && start == b.start && end == b.end;
}

// The bins' mean as the recorder rounds a histogram's average: three significant digits, at
// most four decimals (record/TimeStats.cpp). Rounded through decimal text, which every platform
// does alike, so that the writer and any reader agree on it to the bit; the compact spelling
// writes `~` for an average equal to it.
double roundedBinsMean(const std::vector<const Bin*>& bins, std::int64_t n) {
  double sum = 0;
  for (const Bin* b : bins) sum += b->avg * static_cast<double>(b->freq);
  double v = sum / static_cast<double>(n);
  if (!parseReal(fmt::format("{:.3g}", v), v) || !parseReal(fmt::format("{:.4f}", v), v)) return -1;
  return v;
}

// `[first` of a call range, checked: ascending firsts from 0, at most kMaxCallRanges ranges.
std::int64_t callRangeFirst(TokenStream& ts, std::size_t index, std::int64_t previous) {
  if (index >= kMaxCallRanges)
    ts.fail(fmt::format("more than {} call ranges", kMaxCallRanges), "merge adjacent ranges of `calls=`");
  const std::int64_t first = ts.getInt("call range first call");
  if (index == 0 && first != 0)
    ts.fail(fmt::format("the first call range starts at call {}", first), "call ranges start at call 0: `calls=[0 ...]`");
  if (index > 0 && first <= previous)
    ts.fail(fmt::format("call range starting at call {} after one starting at {}", first, previous),
            "call ranges are in ascending order of their first call");
  return first;
}

}  // namespace

std::vector<CallRange> parseHistogramCallRanges(TokenStream& ts, std::int64_t n) {
  std::vector<CallRange> calls;
  ts.expect("calls");
  ts.expect("=");
  std::int64_t total = 0;
  while (!ts.atEnd()) {
    ts.expect("[");
    CallRange r;
    r.first = callRangeFirst(ts, calls.size(), calls.empty() ? -1 : calls.back().first);
    r.avg = timeValue(ts, "call range mean");
    r.n = ts.getInt("call range sample count");
    ts.expect("]");
    if (r.n < 1) ts.fail(fmt::format("call range with {} samples", r.n), "a range holds at least one sample");
    if (r.n > n - total) ts.fail(fmt::format("call ranges hold more than the {} samples the histogram's header says", n));
    total += r.n;
    calls.push_back(r);
  }
  if (calls.empty()) ts.fail("`calls=` without ranges", "leave `calls=` out where every call takes the mean");
  if (total != n)
    ts.fail(fmt::format("call ranges hold {} samples but the histogram's header says {}", total, n),
            "the call ranges' counts add up to n");
  return calls;
}

std::vector<ComputeTime::ByCall> parseComputeCallRanges(TokenStream& ts) {
  std::vector<ComputeTime::ByCall> calls;
  ts.expect("calls");
  ts.expect("=");
  while (!ts.atEnd()) {
    ts.expect("[");
    ComputeTime::ByCall b;
    b.first = callRangeFirst(ts, calls.size(), calls.empty() ? -1 : calls.back().first);
    b.us = timeValue(ts, "call range compute time");
    ts.expect("]");
    calls.push_back(b);
  }
  if (calls.empty()) ts.fail("`calls=` without ranges", "leave `calls=` out where every call takes the mean");
  return calls;
}

void appendCallRangesText(std::string& out, const std::vector<CallRange>& calls) {
  if (calls.empty()) return;
  auto it = std::back_inserter(out);
  fmt::format_to(it, " calls=");
  for (const CallRange& r : calls) fmt::format_to(it, "[{} {} {}]", r.first, r.avg, r.n);
}

void appendCallRangesText(std::string& out, const std::vector<ComputeTime::ByCall>& calls) {
  if (calls.empty()) return;
  auto it = std::back_inserter(out);
  fmt::format_to(it, " calls=");
  for (const ComputeTime::ByCall& b : calls) fmt::format_to(it, "[{} {}]", b.first, b.us);
}

namespace {

// The compact spelling (docs/trace-format.md, "time"): `N AVG MIN@R MAX@R BIN...`, where an
// extreme may be `@R` (its value is the first bin's minimum or the last bin's maximum), a bin
// is `[min avg max freq]` or `[v freq]` (a standard bin, its edges those of the standard bin
// that holds its minimum) or `[start min avg max end freq]`, and no bins at all (n > 0) is the
// one standard bin of the minimum holding every sample with the header's statistics.
Histogram parseCompactHistogram(TokenStream& ts, Rank numRanks) {
  Histogram h;
  h.n = ts.getInt("histogram sample count");
  if (h.n < 0) ts.fail(fmt::format("histogram with {} samples", h.n));
  const bool avgDerived = ts.peekIs("~");  // the bins' mean, rounded
  if (avgDerived) ts.get();
  else h.avg = timeValue(ts, "histogram average");
  // `V@R` or `@R`: false for the latter, whose value the bins give.
  auto extreme = [&](double& value, Rank& rank, std::string_view what) {
    const bool written = !ts.peekIs("@");
    if (written) value = timeValue(ts, fmt::format("histogram {}", what));
    ts.expect("@");
    rank = extremeRank(ts, fmt::format("histogram {} rank", what), numRanks);
    return written;
  };
  const bool minWritten = extreme(h.min, h.minRank, "minimum");
  const bool maxWritten = extreme(h.max, h.maxRank, "maximum");
  std::int64_t total = 0;
  auto atCalls = [&] { return ts.peekAt(0) && ts.peekAt(0)->text == "calls"; };
  while (!ts.atEnd() && !atCalls()) {
    ts.expect("[");
    std::size_t fields = 0;
    while (fields < 7 && ts.peekAt(fields) && ts.peekAt(fields)->text != "]") ++fields;
    if (fields != 2 && fields != 4 && fields != 6)
      ts.fail(fmt::format("a bin of {} numbers", fields),
              "a bin is `[min avg max freq]`, `[v freq]` or `[start min avg max end freq]`");
    Bin b;
    if (fields == 6) b.start = timeValue(ts, "bin start");
    if (fields == 2) {
      b.min = b.avg = b.max = timeValue(ts, "bin value");
    } else {
      b.min = timeValue(ts, "bin minimum");
      b.avg = timeValue(ts, "bin average");
      b.max = timeValue(ts, "bin maximum");
    }
    if (fields == 6) b.end = timeValue(ts, "bin end");
    else if (!standardBinOf(b.min, b.start, b.end))
      ts.fail(fmt::format("bin minimum {} lies in no standard bin", b.min),
              "write the bin with its edges: `[start min avg max end freq]`");
    b.freq = ts.getInt("bin frequency");
    ts.expect("]");
    if (b.freq < 1) ts.fail(fmt::format("bin with {} samples", b.freq), "leave out bins that hold no sample");
    if (b.freq > h.n - total) ts.fail(fmt::format("histogram bins hold more than the {} samples its header says", h.n));
    total += b.freq;
    h.bins.push_back(b);
  }
  if (h.bins.empty()) {
    if (!minWritten || !maxWritten)
      ts.fail("a histogram extreme written `@R` but no bins to take its value from", "write the value: `V@R`");
    if (avgDerived) ts.fail("a histogram average written `~` but no bins to take it from", "write the average");
    if (h.n > 0) {
      Bin b{.start = 0, .min = h.min, .avg = h.avg, .max = h.max, .end = 0, .freq = h.n};
      if (!standardBinOf(h.min, b.start, b.end))
        ts.fail(fmt::format("histogram minimum {} lies in no standard bin", h.min),
                "write the histogram's bin: `[start min avg max end freq]`");
      h.bins.push_back(b);
    }
  } else {
    if (total != h.n)
      ts.fail(fmt::format("histogram bins hold {} samples but its header says {}", total, h.n),
              "the bin frequencies add up to n");
    if (!minWritten) h.min = h.bins.front().min;
    if (!maxWritten) h.max = h.bins.back().max;
    if (avgDerived) {
      std::vector<const Bin*> bins;
      for (const Bin& b : h.bins) bins.push_back(&b);
      h.avg = roundedBinsMean(bins, h.n);
      if (auto why = timeValueProblem(h.avg)) ts.fail(fmt::format("histogram average: {}", *why));
    }
  }
  if (atCalls()) h.calls = parseHistogramCallRanges(ts, h.n);
  return h;
}

}  // namespace

Histogram parseHistogram(TokenStream& ts, HistogramSpelling spelling, Rank numRanks) {
  if (spelling == HistogramSpelling::Tracegen && !ts.peekIs("n")) return parseCompactHistogram(ts, numRanks);
  Histogram h;
  parseHeader(ts, spelling, numRanks, h);
  const bool st = spelling == HistogramSpelling::ScalaTrace;
  const std::string_view open = st ? "{" : "[", close = st ? "}" : "]";
  std::int64_t total = 0;
  bool written = false;
  // tracegen's spelling may end with the call ranges (`calls=[first avg n]...`).
  auto atCalls = [&] { return !st && ts.peekAt(0) && ts.peekAt(0)->text == "calls"; };
  auto callRanges = [&] {
    if (atCalls()) h.calls = parseHistogramCallRanges(ts, h.n);
  };
  while (!ts.atEnd() && !atCalls()) {
    ts.expect(open);
    // How many numbers the bin holds: tracegen's spelling also has `[start end]` (the only bin,
    // with the header's statistics) and `[start v end freq]` (min = avg = max = v).
    std::size_t fields = 0;
    if (!st)
      while (fields < 7 && ts.peekAt(fields) && ts.peekAt(fields)->text != close) ++fields;
    Bin b;
    b.start = timeValue(ts, "bin start");
    if (fields == 2) {
      b.end = timeValue(ts, "bin end");
      ts.expect(close);
      if (written || (!ts.atEnd() && !atCalls()))
        ts.fail("a bin written `[start end]` must be the histogram's only bin",
                "write the other bins in full: `[start min avg max end freq]`");
      b.min = h.min;
      b.avg = h.avg;
      b.max = h.max;
      b.freq = h.n;
      if (b.freq > 0) h.bins.push_back(b);
      callRanges();
      return h;
    }
    written = true;
    if (fields == 4) {
      b.min = b.avg = b.max = timeValue(ts, "bin value");
    } else {
      b.min = timeValue(ts, "bin minimum");
      b.avg = timeValue(ts, "bin average");
      b.max = timeValue(ts, "bin maximum");
    }
    b.end = timeValue(ts, "bin end");
    b.freq = ts.getInt("bin frequency");
    ts.expect(close);
    if (b.freq < 0) ts.fail(fmt::format("bin with negative frequency {}", b.freq));
    if (b.freq > h.n - total) ts.fail(fmt::format("histogram bins hold more than the {} samples its header says", h.n));
    total += b.freq;
    // An empty bin says nothing about the samples (its statistics are placeholders): the model
    // keeps the bins that hold samples only, whichever spelling wrote the others.
    if (b.freq > 0) h.bins.push_back(b);
  }
  if (!written && h.n > 0) ts.fail("histogram without bins", "a histogram of n > 0 samples has at least one bin");
  if (total != h.n)
    ts.fail(fmt::format("histogram bins hold {} samples but its header says {}", total, h.n),
            "the bin frequencies add up to n");
  callRanges();
  return h;
}

namespace {

// The spelling before the compact one (`n=N avg=A min=V@R max=V@R bins=[...]...`), for a
// histogram the compact one cannot state: samples but no bins.
void appendLongHistogramText(std::string& out, const Histogram& h) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "n={} avg={} min={}@{} max={}@{} bins=", h.n, h.avg, h.min, h.minRank, h.max, h.maxRank);
  for (const Bin& b : h.bins) {
    if (b.freq == 0) continue;
    fmt::format_to(it, "[{} {} {} {} {} {}]", b.start, b.min, b.avg, b.max, b.end, b.freq);
  }
  appendCallRangesText(out, h.calls);
}

}  // namespace

void appendHistogramText(std::string& out, const Histogram& h) {
  std::vector<const Bin*> held;
  for (const Bin& b : h.bins)
    if (b.freq > 0) held.push_back(&b);
  if (h.n > 0 && held.empty()) return appendLongHistogramText(out, h);
  auto it = std::back_inserter(out);
  // One standard bin of every sample, with the header's statistics: no bins at all.
  if (held.size() == 1 && held[0]->freq == h.n && held[0]->min == h.min && held[0]->avg == h.avg &&
      held[0]->max == h.max && edgesImplied(*held[0])) {
    fmt::format_to(it, "{} {} {}@{} {}@{}", h.n, h.avg, h.min, h.minRank, h.max, h.maxRank);
    appendCallRangesText(out, h.calls);
    return;
  }
  // An average the bins give is `~`, an extreme they state is written by its rank alone.
  if (!held.empty() && roundedBinsMean(held, h.n) == h.avg) fmt::format_to(it, "{} ~ ", h.n);
  else fmt::format_to(it, "{} {} ", h.n, h.avg);
  if (!held.empty() && held.front()->min == h.min) fmt::format_to(it, "@{} ", h.minRank);
  else fmt::format_to(it, "{}@{} ", h.min, h.minRank);
  if (!held.empty() && held.back()->max == h.max) fmt::format_to(it, "@{}", h.maxRank);
  else fmt::format_to(it, "{}@{}", h.max, h.maxRank);
  if (!held.empty()) out.push_back(' ');
  for (const Bin* b : held) {
    if (!edgesImplied(*b)) fmt::format_to(it, "[{} {} {} {} {} {}]", b->start, b->min, b->avg, b->max, b->end, b->freq);
    else if (b->min == b->avg && b->avg == b->max) fmt::format_to(it, "[{} {}]", b->avg, b->freq);
    else fmt::format_to(it, "[{} {} {} {}]", b->min, b->avg, b->max, b->freq);
  }
  appendCallRangesText(out, h.calls);
}

}  // namespace tracegen
