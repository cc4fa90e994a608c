#include "io/HistogramText.h"

#include <fmt/format.h>
#include <iterator>

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

Histogram parseHistogram(TokenStream& ts, HistogramSpelling spelling, Rank numRanks) {
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

void appendHistogramText(std::string& out, const Histogram& h) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "n={} avg={} min={}@{} max={}@{} bins=", h.n, h.avg, h.min, h.minRank, h.max, h.maxRank);
  const Bin* only = nullptr;
  std::size_t held = 0;
  for (const Bin& b : h.bins)
    if (b.freq > 0) {
      only = &b;
      ++held;
    }
  if (held == 1 && only->freq == h.n && only->min == h.min && only->avg == h.avg && only->max == h.max) {
    fmt::format_to(it, "[{} {}]", only->start, only->end);
    appendCallRangesText(out, h.calls);
    return;
  }
  for (const Bin& b : h.bins) {
    if (b.freq == 0) continue;
    if (b.min == b.avg && b.avg == b.max) fmt::format_to(it, "[{} {} {} {}]", b.start, b.avg, b.end, b.freq);
    else fmt::format_to(it, "[{} {} {} {} {} {}]", b.start, b.min, b.avg, b.max, b.end, b.freq);
  }
  appendCallRangesText(out, h.calls);
}

}  // namespace tracegen
