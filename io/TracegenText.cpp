// tracegen's own text format, version 1 (docs/trace-format.md).
//
// The format is line oriented: a header (magic and version, world size, origin, peer
// numbering, datatypes, communicators), then per event an `event ID OP @ RANKLIST` line
// followed by indented attribute lines (site, loop levels, parameters, time histograms,
// compute times). Everything is spelled by name — MPI operations, parameters, datatypes,
// reduction operators — so that people can read and edit a trace. The writer emits one
// canonical layout, so writing is deterministic, a written file reads back to an equal trace,
// and writing that trace again gives the same bytes.
//
// The parser works one line at a time with TokenStream. Header lines may come in any order,
// so the lines that need the world size (communicator instances) are kept and parsed when the
// header ends at the first event. Attribute lines of an event are collected per parameter and
// per loop level and checked when the event ends (parameter groups partition the event's
// ranks, loop levels are contiguous); the whole trace is checked last (MPI_Init first and
// MPI_Finalize last on every rank, then verifyStructure). Ranklists are range-checked, and
// compared with each other, on the numbers of their sections rather than by visiting their
// ranks (RankSets), so million-rank traces read fast and hostile ones cannot make the reader
// hang. Every error is an InputError naming the line that causes it.
#include "io/Readers.h"

#include <algorithm>
#include <fmt/format.h>
#include <iterator>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "ir/Diagnostics.h"
#include "io/HistogramText.h"
#include "ir/Limits.h"
#include "io/TextLines.h"
#include "ir/Verify.h"

namespace tracegen {

namespace {

constexpr std::int64_t kFormatVersion = 1;
constexpr std::int64_t kMaxRankDims = 16;
constexpr Rank kMaxInterleavedSection = Rank{1} << 16;
constexpr std::int64_t kFirstUserDatatype = 1000;
// Triplets FIRST:LAST:STRIDE in value lists (docs/trace-format.md, "Value lists"): the writer
// spells runs of at least kMinTripletRun values with a constant non-zero stride so, and a reader
// expands at most kMaxTripletValues values from them per file, since a triplet declares its
// length (written values cost their bytes, which the text limit bounds).
constexpr std::size_t kMinTripletRun = 4;
constexpr std::int64_t kMaxTripletValues = std::int64_t{1} << 24;
// Written where a call site is absent (the ScalaTrace reader's NULL signature).
constexpr std::string_view kNoSiteName = "-";

const char* const kHeaderHint =
    "the header holds `tracegen-trace 1`, `ranks P`, `origin NAME`, `clock wall|cpu`, `peers comm|world`, "
    "`datatype NAME SIZE`, `comm ID KIND (RANKLIST)...`, `site N NAME`, `program NAME`, `frame FRAME SYMBOL [FILE:LINE]` and `recordings N spread-median=X spread-max=Y "
    "at-event=E` lines";
const char* const kRankListHint = "a ranklist is one or more sections `<dims start {iters stride}...>`";

std::optional<std::int64_t> predefinedDatatypeId(std::string_view name) {
  for (const auto& d : scalaTraceDatatypes())
    if (d.name == name) return d.id;
  return std::nullopt;
}

// The ids a datatype table gets when no line says `id=N`: ScalaTrace's index for the
// predefined MPI types (so converted traces keep their numbering), 1000 + k for the k-th other
// declared type. Reader and writer share this rule, which is what lets the writer omit ids.
std::vector<std::int64_t> defaultDatatypeIds(const std::vector<std::string_view>& names) {
  std::vector<std::int64_t> ids;
  std::int64_t others = 0;
  for (auto name : names) {
    if (auto id = predefinedDatatypeId(name)) ids.push_back(*id);
    else ids.push_back(kFirstUserDatatype + others++);
  }
  return ids;
}

bool isHeaderKeyword(std::string_view s) {
  return s == "ranks" || s == "origin" || s == "clock" || s == "footprint" || s == "peers" || s == "datatype" ||
         s == "comm" || s == "frame" || s == "program" || s == "recordings";
}

// Displacements, which a v-collective's packed buffers make running sums of its counts, may be
// written as `steps` (docs/trace-format.md, "Parameters").
bool isDisplacementParam(Param p) { return p == Param::Displs || p == Param::RecvDispls; }

bool isAttributeKeyword(std::string_view s) {
  return s == "site" || s == "loop" || s == "time" || s == "compute" || paramFromName(s).has_value();
}

std::string sectionText(const RankTuple& t) {
  std::string s = fmt::format("<{} {}", t.dims.size(), t.start);
  for (const auto& d : t.dims) s += fmt::format(" {{{} {}}}", d.iters, d.stride);
  return s + ">";
}

// True if the section, once its strides are made positive, sorted and contiguous dimensions
// fused (what RankList normalisation does), is nested: then its members are distinct and
// RankList keeps it as one tuple.
bool nestedSection(const RankTuple& t) {
  std::vector<RankDim> dims;
  for (auto d : t.dims)
    if (d.iters > 1) dims.push_back({d.iters, d.stride < 0 ? -d.stride : d.stride});
  std::sort(dims.begin(), dims.end(), [](const RankDim& a, const RankDim& b) { return a.stride < b.stride; });
  std::vector<RankDim> fused;
  for (const auto& d : dims) {
    if (!fused.empty() && d.stride == fused.back().iters * fused.back().stride) fused.back().iters *= d.iters;
    else fused.push_back(d);
  }
  return RankTuple{0, fused}.isNested();
}

Rank gcd(Rank a, Rank b) {
  while (b != 0) {
    Rank r = a % b;
    a = b;
    b = r;
  }
  return a;
}

// x with (a * x) mod m == 1, for a and m coprime, m >= 1.
Rank modInverse(Rank a, Rank m) {
  Rank g = m, r = a % m, x = 0, y = 1;
  while (r != 0) {
    Rank q = g / r;
    Rank t = g - q * r;
    g = r;
    r = t;
    t = x - q * y;
    x = y;
    y = t;
  }
  return ((x % m) + m) % m;
}

Rank floorDiv(Rank a, Rank b) { return a / b - (a % b != 0 && a < 0); }  // b > 0
Rank ceilDiv(Rank a, Rank b) { return a / b + (a % b != 0 && a > 0); }   // b > 0

// How many members {a + i*s | 0 <= i < n} and {b + j*t | 0 <= j < m} share (s, t > 0).
// Common members are a progression with stride lcm(s, t); its first is found by the Chinese
// remainder theorem.
Rank progressionCommon(Rank a, Rank s, Rank n, Rank b, Rank t, Rank m) {
  const Rank lo = std::max(a, b), hi = std::min(a + (n - 1) * s, b + (m - 1) * t);
  if (lo > hi) return 0;
  if (n == 1) return (a - b) % t == 0 ? 1 : 0;  // a lies within b's range here
  if (m == 1) return (b - a) % s == 0 ? 1 : 0;
  const Rank g = gcd(s, t);
  if ((b - a) % g != 0) return 0;
  const Rank tg = t / g;
  // a + s*i == b (mod t)  <=>  (s/g)*i == (b-a)/g (mod t/g)
  const Rank rhs = (((b - a) / g) % tg + tg) % tg;
  const Rank i0 = tg == 1 ? 0 : rhs * modInverse((s / g) % tg, tg) % tg;
  const Rank lcm = s / g * t;
  Rank x = a + s * i0;
  if (x < lo) x += ceilDiv(lo - x, lcm) * lcm;
  return x > hi ? 0 : (hi - x) / lcm + 1;
}

// Exact set tests on RankList tuples (positive strides, dimensions of at least two
// iterations), worked out on their numbers so that million-rank groups are compared without
// visiting their ranks. Ranks are below 2^31, so no product here overflows. Tuples with more
// than one dimension are peeled along their outermost dimension, visiting only the pieces
// that reach the other tuple's range; a step budget bounds the work on adversarial input,
// which is then rejected at `line` rather than left to run for minutes.
class RankSets {
 public:
  RankSets(const SourceFile& file, int line) : file_(file), line_(line) {}

  Rank common(const RankTuple& x, const RankTuple& y) {
    if (--budget_ < 0) {
      std::string text;
      for (const auto& l : file_.lines)
        if (l.number == line_) text = std::string(l.text);
      throw InputError(file_.name, line_, "ranklists too intricate to compare (their dimensions interleave)", text,
                       "write the ranklists as sections that nest, e.g. one section per row of a grid");
    }
    if (x.last() < y.first() || y.last() < x.first()) return 0;
    if (x.dims.size() <= 1 && y.dims.size() <= 1)
      return progressionCommon(x.start, x.dims.empty() ? 1 : x.dims[0].stride, x.dims.empty() ? 1 : x.dims[0].iters, y.start,
                               y.dims.empty() ? 1 : y.dims[0].stride, y.dims.empty() ? 1 : y.dims[0].iters);
    const bool splitX = x.dims.size() >= y.dims.size();
    const RankTuple& big = splitX ? x : y;
    const RankTuple& other = splitX ? y : x;
    const RankDim outer = big.dims.back();
    RankTuple piece{big.start, std::vector<RankDim>(big.dims.begin(), big.dims.end() - 1)};
    const Rank pieceSpan = piece.last() - piece.start;
    const Rank kLo = std::max<Rank>(0, ceilDiv(other.first() - pieceSpan - big.start, outer.stride));
    const Rank kHi = std::min(outer.iters - 1, floorDiv(other.last() - big.start, outer.stride));
    Rank n = 0;
    for (Rank k = kLo; k <= kHi; ++k) {
      piece.start = big.start + k * outer.stride;
      n += common(piece, other);
    }
    return n;
  }

  Rank common(const RankList& x, const RankList& y) {
    Rank n = 0;
    for (const auto& a : x.tuples())
      for (const auto& b : y.tuples()) n += common(a, b);
    return n;
  }

  bool meet(const RankList& x, const RankList& y) { return common(x, y) > 0; }
  // For y whose tuples are disjoint, as in every validated list.
  bool within(const RankList& x, const RankList& y) { return common(x, y) == x.size(); }

  // The disjoint groups a and b cover the same ranks.
  bool sameRanks(const std::vector<ValueGroup>& a, const std::vector<ValueGroup>& b) {
    Rank sizeA = 0, sizeB = 0, shared = 0;
    for (const auto& g : a) sizeA += g.ranks.size();
    for (const auto& g : b) sizeB += g.ranks.size();
    for (const auto& ga : a)
      for (const auto& gb : b) shared += common(ga.ranks, gb.ranks);
    return sizeA == sizeB && shared == sizeA;
  }

 private:
  const SourceFile& file_;
  int line_;
  std::int64_t budget_ = 4'000'000;
};

// ---------------------------------------------------------------------------------------------
// Reader

class TracegenTextParser {
 public:
  explicit TracegenTextParser(const SourceFile& file) : file_(file) {}

  Trace parse() {
    bool sawMagic = false;
    for (const auto& line : file_.lines) {
      TokenStream ts(file_, line);
      if (ts.atEnd()) continue;  // blank or comment
      if (!sawMagic) {
        parseMagic(ts);
        sawMagic = true;
        continue;
      }
      if (ts.peekIs("event")) {
        if (inEvents_) endEvent();
        else endHeader(line);
        inEvents_ = true;
        beginEvent(ts);
      } else if (inEvents_) {
        parseAttribute(ts);
      } else {
        parseHeaderLine(ts);
      }
    }
    const int lastLine = file_.lines.empty() ? 1 : file_.lines.back().number;
    if (!sawMagic)
      throw InputError(file_.name, lastLine, "empty trace file", {}, "a tracegen trace starts with `tracegen-trace 1`");
    if (!inEvents_)
      throw InputError(file_.name, lastLine, "trace has no events (truncated file?)", {},
                       "events start with `event ID OPERATION @ RANKLIST` after the header");
    endEvent();
    checkInitAndFinalize();
    verifyStructure(trace_, file_.name);
    return std::move(trace_);
  }

 private:
  struct PendingDatatype {
    std::string name;
    std::int64_t size = 0;
    std::optional<std::int64_t> id;
    int line = 0;
  };
  struct PendingParam {
    ParamValues values;
    int line = 0;  // the parameter's first line
    Rank covered = 0;
  };
  struct PendingLoop {
    LoopLevel level;
    int line = 0;
  };
  struct PendingEvent {
    Event event;
    bool hasSite = false;
    std::map<Param, PendingParam> params;
    std::map<std::int64_t, PendingLoop> loops;
  };

  static void expectEnd(TokenStream& ts, std::string_view after) {
    if (!ts.atEnd()) ts.fail(fmt::format("unexpected '{}' after {}", ts.peek().text, after));
  }

  static std::string_view getName(TokenStream& ts, std::string_view what) {
    if (ts.atEnd()) ts.fail(fmt::format("expected {} but the line ends", what));
    Token t = ts.get();
    if (t.punct) ts.fail(fmt::format("expected {} but found '{}'", what, t.text));
    return t.text;
  }

  static void expectKey(TokenStream& ts, std::string_view key) {
    ts.expect(key);
    ts.expect("=");
  }

  [[noreturn]] void failAt(int line, const std::string& message, const std::string& hint = {}) const {
    std::string text;
    for (const auto& l : file_.lines)
      if (l.number == line) text = std::string(l.text);
    throw InputError(file_.name, line, message, text, hint);
  }

  // ---- header ------------------------------------------------------------------------------

  void parseMagic(TokenStream& ts) {
    if (!ts.peekIs("tracegen-trace"))
      ts.fail(fmt::format("not a tracegen trace: expected `tracegen-trace {}` but found '{}'", kFormatVersion, ts.peek().text),
              "the first line of tracegen's text format is the magic `tracegen-trace` and the format version");
    ts.get();
    if (ts.atEnd()) ts.fail("missing format version after 'tracegen-trace'", fmt::format("write `tracegen-trace {}`", kFormatVersion));
    std::int64_t version = ts.getInt("format version");
    if (version != kFormatVersion)
      ts.fail(fmt::format("unsupported format version {}: this tracegen reads version {}", version, kFormatVersion),
              "the file was written by a different tracegen; convert it with that version");
    expectEnd(ts, "the format version");
  }

  // `footprint memory-kb KIB [@ RANKLIST]` (a group's peak resident memory; groups are disjoint)
  // and `footprint before-init-us US` (time from process start to MPI_Init): ir/Trace.h.
  void parseFootprint(TokenStream& ts, int line) {
    std::string_view what = getName(ts, "`memory-kb`, `before-init-us` or `after-finalize-us`");
    if (what == "after-finalize-us") {
      if (afterFinalizeLine_)
        ts.fail(fmt::format("second 'footprint after-finalize-us' line (the first is line {})", afterFinalizeLine_));
      afterFinalizeLine_ = line;
      trace_.afterFinalizeUs = timeValue(ts, "time after MPI_Finalize");
      expectEnd(ts, "the time after MPI_Finalize");
      return;
    }
    if (what == "before-init-us") {
      if (beforeInitLine_)
        ts.fail(fmt::format("second 'footprint before-init-us' line (the first is line {})", beforeInitLine_));
      beforeInitLine_ = line;
      trace_.beforeInitUs = timeValue(ts, "time before MPI_Init");
      expectEnd(ts, "the time before MPI_Init");
      return;
    }
    if (what != "memory-kb")
      ts.fail(fmt::format("unknown footprint '{}'", what),
              "`footprint memory-kb KIB [@ RANKLIST]`, `footprint before-init-us US` or `footprint after-finalize-us US`");
    if (!ranksLine_) ts.fail("a `footprint memory-kb` line before the `ranks` line", "write `ranks P` first");
    const std::int64_t kb = ts.getInt("peak resident memory in KiB");
    if (kb < 0 || kb > (std::int64_t{1} << 40)) ts.fail(fmt::format("peak resident memory {} KiB is outside 0..2^40", kb));
    RankList ranks = RankList::all(trace_.numRanks);
    if (!ts.atEnd()) {
      ts.expect("@");
      ranks = parseRankList(ts);
    }
    expectEnd(ts, "the footprint");
    if (ranks.empty() || *ranks.first() < 0 || *ranks.last() >= trace_.numRanks)
      ts.fail(fmt::format("footprint group {} names ranks outside 0..{}", ranks.pretty(), trace_.numRanks - 1));
    for (const ValueGroup& g : trace_.memoryKb)
      if (g.ranks.intersects(ranks))
        ts.fail(fmt::format("footprint group {} overlaps group {}", ranks.pretty(), g.ranks.pretty()),
                "each rank's peak memory is given once");
    trace_.memoryKb.push_back({std::move(ranks), {kb}});
  }

  void parseHeaderLine(TokenStream& ts) {
    const int line = ts.line().number;
    std::string_view key = ts.get().text;
    auto once = [&](int& seen) {
      if (seen) ts.fail(fmt::format("second '{}' line (the first is line {})", key, seen));
      seen = line;
    };
    if (key == "ranks") {
      once(ranksLine_);
      Rank p = ts.getInt("number of ranks");
      if (p < 1 || p > kMaxRanks) ts.fail(fmt::format("number of ranks {} is outside 1..{}", p, kMaxRanks));
      expectEnd(ts, "the number of ranks");
      trace_.numRanks = p;
    } else if (key == "origin") {
      once(originLine_);
      trace_.origin = std::string(getName(ts, "the trace's origin"));
      expectEnd(ts, "the origin");
    } else if (key == "clock") {
      // The clock of the compute times (ir/Trace.h, ComputeClock); absent: wall.
      once(clockLine_);
      std::string_view v = getName(ts, "`wall` or `cpu`");
      if (v != "wall" && v != "cpu")
        ts.fail(fmt::format("unknown compute clock '{}'", v),
                "`clock wall`: compute times are wall-clock time; `clock cpu`: the CPU time of each rank's thread");
      trace_.computeClock = v == "cpu" ? ComputeClock::Cpu : ComputeClock::Wall;
      expectEnd(ts, "the compute clock");
    } else if (key == "footprint") {
      parseFootprint(ts, line);
    } else if (key == "peers") {
      once(peersLine_);
      std::string_view v = getName(ts, "`comm` or `world`");
      if (v != "comm" && v != "world")
        ts.fail(fmt::format("unknown peer numbering '{}'", v),
                "`peers comm`: peers and roots in the call's communicator; `peers world`: in MPI_COMM_WORLD");
      trace_.worldPeers = v == "world";
      expectEnd(ts, "the peer numbering");
    } else if (key == "datatype") {
      PendingDatatype d;
      d.line = line;
      d.name = std::string(getName(ts, "a datatype name"));
      for (const auto& other : datatypes_)
        if (other.name == d.name) ts.fail(fmt::format("datatype '{}' is declared twice (first at line {})", d.name, other.line));
      d.size = ts.getInt("datatype size");
      if (d.size < 0 || d.size > kMaxInt32)
        ts.fail(fmt::format("datatype '{}' has size {}, outside 0..{}", d.name, d.size, kMaxInt32));
      if (!ts.atEnd()) {
        expectKey(ts, "id");
        d.id = ts.getInt("datatype id");
      }
      expectEnd(ts, "the datatype");
      datatypes_.push_back(std::move(d));
    } else if (key == "site") {
      parseSiteTableLine(ts);
    } else if (key == "program") {
      once(programLine_);
      trace_.program = std::string(getName(ts, "the executable's file name"));
      expectEnd(ts, "the executable's name");
    } else if (key == "frame") {
      parseFrameLine(ts);
    } else if (key == "recordings") {
      // `recordings N spread-median=X spread-max=Y at-event=E`: times that are the medians of N
      // recordings (tracegen merge-timing; Trace::recordings).
      once(recordingsLine_);
      const std::int64_t n = ts.getInt("the number of recordings");
      if (n < 2 || n > kMaxRecordings)
        ts.fail(fmt::format("{} recordings: a merge is of 2 to {}", n, kMaxRecordings));
      trace_.recordings.count = static_cast<int>(n);
      expectKey(ts, "spread-median");
      trace_.recordings.spreadMedian = timeValue(ts, "spread-median");
      expectKey(ts, "spread-max");
      trace_.recordings.spreadMax = timeValue(ts, "spread-max");
      expectKey(ts, "at-event");
      trace_.recordings.spreadMaxEvent = ts.getInt("the event of the largest spread");
      if (trace_.recordings.spreadMaxEvent < -1) ts.fail("at-event below -1", "-1: no compute time of 1 us or more");
      expectEnd(ts, "the recordings");
    } else if (key == "comm") {
      commLines_.push_back(&ts.line());  // instances need the world size: parsed in endHeader
    } else if (key == "tracegen-trace") {
      ts.fail("second magic line 'tracegen-trace'");
    } else if (isAttributeKeyword(key) || key == "event") {
      ts.fail(fmt::format("'{}' line before the first event", key),
              "event attribute lines follow an `event ID OPERATION @ RANKLIST` line");
    } else {
      ts.fail(fmt::format("unknown header line '{}'", key), kHeaderHint);
    }
  }

  // `site N NAME`: entry N of the site table, which `after @N` (and `site @N`) refer to.
  void parseSiteTableLine(TokenStream& ts) {
    if (std::int64_t v = 0; ts.atEnd() || !parseInt(ts.peek().text, v))
      ts.fail("'site' line before the first event without a table index",
              "in the header, `site N NAME` declares entry N of the site table (for `after @N`); an event's "
              "`site NAME` line follows its `event` line");
    const std::int64_t index = ts.getInt("site table index");
    if (index < 0 || index > kMaxInt32)
      ts.fail(fmt::format("site table index {} is outside 0..{}", index, kMaxInt32),
              "the header's `site N NAME` lines number call sites for `after @N`");
    std::string_view name = getName(ts, "a call site");
    if (name == kNoSiteName) ts.fail("site table entry '-': `-` stands for no site and needs no entry");
    expectEnd(ts, "the site table entry");
    auto [it, fresh] = siteTable_.try_emplace(index, trace_.internSite(name), ts.line().number);
    if (!fresh) ts.fail(fmt::format("site @{} is declared twice (first at line {})", index, it->second.second));
  }

  // `frame FRAME SYMBOL [FILE:LINE]`: the name of a frame of the sites' chains (ir/Trace.h,
  // FrameName).
  void parseFrameLine(TokenStream& ts) {
    const char* const hint = "`frame FRAME SYMBOL [FILE:LINE]` names a frame of the call-site chains, e.g. "
                             "`frame 8e31 exchange_1_ stencil.f:77`";
    std::string_view frame = getName(ts, "a frame (an offset such as `8e31`, or `module+offset`)");
    if (frame == kNoSiteName || (frame.find('_') != std::string_view::npos && frame.find('+') == std::string_view::npos))
      ts.fail(fmt::format("'{}' is not a frame: frames are the parts of a call-site chain between `_`", frame), hint);
    FrameName name;
    name.symbol = std::string(getName(ts, "the frame's function symbol"));
    if (!ts.atEnd()) {
      const std::string_view where = getName(ts, "the call's FILE:LINE");
      const std::size_t colon = where.rfind(':');
      std::int64_t line = 0;
      if (colon == std::string_view::npos || colon == 0 || !parseInt(where.substr(colon + 1), line))
        ts.fail(fmt::format("expected the call's FILE:LINE but found '{}'", where), hint);
      if (line < 1 || line > kMaxInt32) ts.fail(fmt::format("source line {} is outside 1..{}", line, kMaxInt32), hint);
      name.file = std::string(where.substr(0, colon));
      name.line = line;
    }
    expectEnd(ts, "the frame's name");
    auto [it, fresh] = frameLines_.try_emplace(std::string(frame), ts.line().number);
    if (!fresh) ts.fail(fmt::format("frame '{}' is named twice (first at line {})", frame, it->second));
    trace_.frameNames.emplace(std::string(frame), std::move(name));
  }

  void endHeader(const SourceLine& at) {
    if (!ranksLine_)
      throw InputError(file_.name, at.number, "the header has no `ranks P` line", std::string(at.text),
                       "the world size must be declared before the first event");
    std::vector<std::string_view> names;
    for (const auto& d : datatypes_) names.push_back(d.name);
    std::vector<std::int64_t> ids = defaultDatatypeIds(names);
    for (std::size_t i = 0; i < datatypes_.size(); ++i) {
      const PendingDatatype& d = datatypes_[i];
      Datatype dt{d.id.value_or(ids[i]), d.name, d.size};
      for (const auto& other : trace_.datatypes)
        if (other.id == dt.id)
          failAt(d.line, fmt::format("datatypes '{}' and '{}' have the same id {}", other.name, dt.name, dt.id),
                 "give one of them another `id=N`");
      typeIds_.emplace(dt.name, dt.id);
      trace_.datatypes.push_back(std::move(dt));
    }
    std::vector<Communicator> declared;
    for (const SourceLine* line : commLines_) {
      TokenStream ts(file_, *line);
      ts.get();
      declared.push_back(parseComm(ts, declared));
    }
    // MPI_COMM_SELF and MPI_COMM_WORLD always exist; a file may leave them out.
    for (auto& c : standardCommunicators(trace_.numRanks)) {
      bool listed = false;
      for (const auto& d : declared) listed = listed || d.id == c.id;
      if (!listed) trace_.comms.push_back(std::move(c));
    }
    for (auto& c : declared) trace_.comms.push_back(std::move(c));
  }

  // `order R0 R1 ...` after an instance's ranklist: communicator rank k is world rank Rk; a
  // permutation of the instance's members.
  std::vector<Rank> parseRankOrder(TokenStream& ts, std::int64_t id, const RankList& inst) {
    ts.expect("order");
    const Rank n = inst.size();
    std::vector<Rank> order;
    std::vector<Rank> seen;
    while (!ts.atEnd() && !ts.peekIs(")")) {
      const Rank w = ts.getInt("a world rank of the communicator's order");
      if (!inst.contains(w))
        ts.fail(fmt::format("communicator {}: rank {} in the order is not a member of the instance {}", id, w, inst.pretty()),
                "the order lists the instance's members, communicator rank 0 first");
      if (static_cast<Rank>(order.size()) >= n)
        ts.fail(fmt::format("communicator {}: the order names more ranks than the instance's {} members", id, n));
      order.push_back(w);
    }
    seen = order;
    std::sort(seen.begin(), seen.end());
    if (auto dup = std::adjacent_find(seen.begin(), seen.end()); dup != seen.end())
      ts.fail(fmt::format("communicator {}: rank {} appears twice in the order", id, *dup),
              "the order is a permutation of the instance's members");
    if (static_cast<Rank>(order.size()) != n)
      ts.fail(fmt::format("communicator {}: the order names {} ranks but the instance {} has {}; it must be a "
                          "permutation of the members", id, order.size(), inst.pretty(), n));
    return order;
  }

  Communicator parseComm(TokenStream& ts, const std::vector<Communicator>& earlier) {
    Communicator c;
    c.id = ts.getInt("communicator id");
    if (c.id < 0) ts.fail(fmt::format("negative communicator id {}", c.id));
    if (c.id == kCommNull) ts.fail("communicator id 0 is MPI_COMM_NULL and cannot be declared");
    for (const auto& e : earlier)
      if (e.id == c.id) ts.fail(fmt::format("communicator {} is declared twice", c.id));
    c.kind = std::string(getName(ts, "a communicator kind"));
    if (!isCommunicatorKind(c.kind))
      ts.fail(fmt::format("unknown communicator kind '{}'", c.kind),
              "kinds are world, self, split, dup, create, cart, cart_sub, graph, dist_graph, split_type, create_group "
              "and idup");
    if ((c.id == kCommWorld) != (c.kind == "world") || (c.id == kCommSelf) != (c.kind == "self"))
      ts.fail(fmt::format("communicator {} cannot be of kind '{}'", c.id, c.kind),
              "id 1 is MPI_COMM_SELF (kind self), id 2 MPI_COMM_WORLD (kind world)");
    if (ts.peekIs("<")) {
      // A bare ranklist is a single instance (the doc's first example wrote world that way).
      c.instances.push_back(parseRankList(ts));
    } else {
      while (!ts.atEnd()) {
        ts.expect("(");
        RankList inst = parseRankList(ts);
        std::vector<Rank> order;
        if (ts.peekIs("order")) order = parseRankOrder(ts, c.id, inst);
        ts.expect(")");
        RankSets sets(file_, ts.line().number);
        for (const auto& other : c.instances)
          if (sets.meet(other, inst))
            ts.fail(fmt::format("communicator {} has overlapping instances: ranks {} are in two of them", c.id,
                                RankList::intersect(other, inst).pretty()),
                    "a rank is a member of one instance of each communicator id");
        c.instances.push_back(std::move(inst));
        if (!order.empty()) c.setOrder(c.instances.size() - 1, std::move(order));
      }
    }
    expectEnd(ts, "the communicator's instances");
    if (c.id == kCommSelf && !c.instances.empty()) ts.fail("MPI_COMM_SELF takes no instances");
    if (c.id == kCommWorld && !c.instances.empty() &&
        (c.instances.size() != 1 || !(c.instances.front() == RankList::all(trace_.numRanks))))
      ts.fail(fmt::format("MPI_COMM_WORLD's instance must be every rank, {}", RankList::all(trace_.numRanks).str()));
    return c;
  }

  // ---- ranklists ---------------------------------------------------------------------------

  // Checks a section against 0..P-1 on its numbers alone and returns its size (at most P).
  // The bounds keep every product below 2^62, so nothing overflows on hostile input.
  Rank checkSection(TokenStream& ts, const RankTuple& t) {
    const Rank P = trace_.numRanks;
    auto outside = [&] {
      ts.fail(fmt::format("ranklist section {} names ranks outside the trace's ranks 0..{}", sectionText(t), P - 1));
    };
    Rank span = 0, below = 0, size = 1;
    for (const auto& d : t.dims) {
      if (d.iters < 1) ts.fail(fmt::format("ranklist section {} has a dimension of {} iterations", sectionText(t), d.iters), kRankListHint);
      if (d.iters == 1) continue;
      if (d.stride == 0)
        ts.fail(fmt::format("ranklist section {} names rank {} {} times (stride 0)", sectionText(t), t.start, d.iters));
      if (d.iters > P || d.stride >= P || d.stride <= -P) outside();  // before negating INT64_MIN
      Rank stride = d.stride < 0 ? -d.stride : d.stride;
      Rank reach = (d.iters - 1) * stride;
      span += reach;
      if (span >= P) outside();
      if (d.stride < 0) below += reach;
      if (size > P / d.iters)
        ts.fail(fmt::format("ranklist section {} names some ranks more than once", sectionText(t)));
      size *= d.iters;
    }
    if (t.start < below) outside();
    if (t.start - below > P - 1 - span) outside();
    return size;
  }

  // One or more sections `<dims start {iters stride}...>`.
  RankList parseRankList(TokenStream& ts) {
    if (!ts.peekIs("<"))
      ts.fail(ts.atEnd() ? std::string("expected a ranklist but the line ends")
                         : fmt::format("expected a ranklist but found '{}'", ts.peek().text),
              kRankListHint);
    std::vector<RankTuple> tuples;
    std::vector<RankList> sections;
    Rank total = 0;
    while (ts.peekIs("<")) {
      ts.get();
      std::int64_t dims = ts.getInt("ranklist dimension count");
      if (dims < 0 || dims > kMaxRankDims) ts.fail(fmt::format("ranklist section with {} dimensions (0..{} allowed)", dims, kMaxRankDims));
      RankTuple t;
      t.start = ts.getInt("ranklist start");
      while (ts.peekIs("{")) {
        ts.get();
        RankDim d;
        d.iters = ts.getInt("ranklist iteration count");
        d.stride = ts.getInt("ranklist stride");
        ts.expect("}");
        t.dims.push_back(d);
      }
      if (static_cast<std::int64_t>(t.dims.size()) != dims)
        ts.fail(fmt::format("ranklist section declares {} dimension{} but has {} {{iters stride}} pair{}", dims,
                            dims == 1 ? "" : "s", t.dims.size(), t.dims.size() == 1 ? "" : "s"),
                "the first number of a section is its number of {iters stride} pairs");
      ts.expect(">");
      const Rank size = checkSection(ts, t);
      // A section whose dimensions do not nest may repeat ranks, which RankList would fold
      // away, so its distinct members are counted here. Bounding such sections bounds that
      // count and RankList's splitting of them into nested pieces.
      const bool nested = nestedSection(t);
      if (!nested && size > kMaxInterleavedSection)
        ts.fail(fmt::format("ranklist section {} interleaves its dimensions over {} ranks (at most {} supported)", sectionText(t), size,
                            kMaxInterleavedSection),
                "write it as several sections whose dimensions nest");
      RankList section({t});
      if (!nested) {
        Rank distinct = 0;
        section.forEach([&](Rank) {
          ++distinct;
          return true;
        });
        if (distinct != size) ts.fail(fmt::format("ranklist section {} names some ranks more than once", sectionText(t)));
      }
      total += size;
      if (total > trace_.numRanks) ts.fail("ranklist names some ranks more than once (its sections overlap)");
      tuples.push_back(std::move(t));
      sections.push_back(std::move(section));
    }
    // Sections in order of their first rank; only those whose ranges overlap are compared.
    std::vector<const RankList*> order;
    for (const auto& sec : sections) order.push_back(&sec);
    std::sort(order.begin(), order.end(), [](const RankList* a, const RankList* b) { return *a->first() < *b->first(); });
    RankSets sets(file_, ts.line().number);
    std::vector<const RankList*> open;
    for (const RankList* sec : order) {
      std::erase_if(open, [&](const RankList* o) { return *o->last() < *sec->first(); });
      for (const RankList* o : open)
        if (sets.meet(*o, *sec))
          ts.fail(fmt::format("ranklist names ranks {} more than once (its sections overlap)", RankList::intersect(*o, *sec).pretty()));
      open.push_back(sec);
    }
    return RankList(std::move(tuples));
  }

  // `[@ RANKLIST]` at the end of a value line; without it the group is the event's ranks.
  RankList parseGroupRanks(TokenStream& ts, const Event& e) {
    if (ts.atEnd()) return e.ranks;
    ts.expect("@");
    RankList ranks = parseRankList(ts);
    expectEnd(ts, "the ranklist");
    if (!RankSets(file_, ts.line().number).within(ranks, e.ranks))
      ts.fail(fmt::format("group {} holds ranks that do not execute event {} ({})", ranks.pretty(), e.id, e.ranks.pretty()));
    return ranks;
  }

  // ---- events ------------------------------------------------------------------------------

  void beginEvent(TokenStream& ts) {
    ts.expect("event");
    PendingEvent pe;
    Event& e = pe.event;
    e.line = ts.line().number;
    e.id = ts.getInt("event id");
    std::string_view name = getName(ts, "an MPI operation");
    auto op = opFromName(name);
    if (!op) ts.fail(fmt::format("unknown operation '{}'", name), "operations are MPI names such as MPI_Send or MPI_Allreduce");
    e.op = *op;
    ts.expect("@");
    e.ranks = parseRankList(ts);
    expectEnd(ts, "the event's ranklist");
    if (auto [it, fresh] = eventLines_.emplace(e.id, e.line); !fresh)
      ts.fail(fmt::format("event id {} is used twice (first at line {})", e.id, it->second), "event ids are unique in a trace");
    event_ = std::move(pe);
  }

  void parseAttribute(TokenStream& ts) {
    std::string_view key = ts.get().text;
    if (key == "site") return parseSite(ts);
    if (key == "loop") return parseLoop(ts);
    if (key == "time") return parseTime(ts);
    if (key == "compute") return parseCompute(ts);
    if (auto p = paramFromName(key)) return parseParam(ts, *p);
    // The recorder appends the time after MPI_Finalize at the process's exit, after the events.
    if (key == "footprint" && ts.peekIs("after-finalize-us")) return parseFootprint(ts, ts.line().number);
    if (isHeaderKeyword(key) || key == "tracegen-trace")
      ts.fail(fmt::format("header line '{}' after the first event", key), "header lines precede the first `event` line");
    ts.fail(fmt::format("unknown parameter or event attribute '{}'", key),
            "attribute lines are site, loop, time, compute and parameters by name (comm, count, datatype, dest, ...)");
  }

  SiteId siteValue(std::string_view name) { return name == kNoSiteName ? kNoSite : trace_.internSite(name); }

  // A call site by name, `-` for none, or `@N` for entry N of the header's site table.
  SiteId siteToken(TokenStream& ts, std::string_view what) {
    if (!ts.peekIs("@")) return siteValue(getName(ts, what));
    ts.get();
    const std::int64_t index = ts.getInt("site table index");
    auto it = siteTable_.find(index);
    if (it == siteTable_.end())
      ts.fail(fmt::format("site @{} is not in the site table", index), "declare it in the header: `site N NAME`");
    return it->second.first;
  }

  void parseSite(TokenStream& ts) {
    Event& e = event_->event;
    if (event_->hasSite) ts.fail(fmt::format("second 'site' line for event {}", e.id), "merged call sites go on one line: `site A B C`");
    event_->hasSite = true;
    e.site = siteToken(ts, "a call site");
    while (!ts.atEnd()) e.mergedSites.push_back(siteToken(ts, "a call site"));
  }

  void parseLoop(TokenStream& ts) {
    Event& e = event_->event;
    std::int64_t level = ts.getInt("loop level");
    if (level < 0 || level >= kMaxLoopLevels) ts.fail(fmt::format("loop level {} is outside 0..{}", level, kMaxLoopLevels - 1));
    std::string_view kind = getName(ts, "'iter' or 'mem'");
    if (kind != "iter" && kind != "mem") ts.fail(fmt::format("expected 'iter' or 'mem' but found '{}'", kind));
    const bool iter = kind == "iter";
    ValueGroup g;
    auto valid = [&](std::int64_t v) { return iter ? v >= 0 : v >= 1; };
    auto check = [&](std::int64_t v) {
      if (iter && v < 0) ts.fail(fmt::format("loop level {} with {} iterations", level, v));
      if (!iter && v < 1) ts.fail(fmt::format("loop level {} with a body of {} events", level, v), "`mem` counts the head, so it is at least 1");
    };
    auto take = [&](std::int64_t v) { g.values.push_back(v); };
    while (!ts.atEnd() && !ts.peekIs("@")) {
      if (isTriplet(ts.peek())) {
        expandTriplet(ts, ts.get(), valid, check, take);
        continue;
      }
      const std::int64_t v = ts.getInt(iter ? "loop iteration count" : "loop body length");
      check(v);
      take(v);
    }
    if (g.values.empty()) ts.fail(fmt::format("loop level {} '{}' without values", level, kind));
    g.ranks = parseGroupRanks(ts, e);
    PendingLoop& pl = event_->loops[level];
    if (!pl.line) pl.line = ts.line().number;
    auto& groups = iter ? pl.level.iter : pl.level.mem;
    RankSets sets(file_, ts.line().number);
    for (const auto& other : groups)
      if (sets.meet(other.ranks, g.ranks))
        ts.fail(fmt::format("loop level {} gives ranks {} two '{}' lists", level, RankList::intersect(other.ranks, g.ranks).pretty(), kind));
    groups.push_back(std::move(g));
  }

  static bool isTriplet(const Token& tok) { return !tok.punct && tok.text.find(':') != std::string_view::npos; }

  // A triplet FIRST:LAST:STRIDE: each of its values, in order, to `take`. Its length is checked
  // against the file's budget before any value is made. `valid` says whether a value is in
  // range and `check` refuses one that is not; every such check is a range, and a triplet's
  // values lie between its ends, so when both ends are valid no other value is checked (a
  // 20-byte triplet of 2^24 values was checked value by value). Otherwise each is, so that the
  // error names the first value out of range.
  template <typename Valid, typename Check, typename Take>
  void expandTriplet(TokenStream& ts, const Token& tok, Valid&& valid, Check&& check, Take&& take) {
    const std::string_view text = tok.text;
    const std::size_t a = text.find(':'), b = text.find(':', a + 1);
    std::int64_t first = 0, last = 0, stride = 0;
    if (b == std::string_view::npos || text.find(':', b + 1) != std::string_view::npos ||
        !parseInt(text.substr(0, a), first) || !parseInt(text.substr(a + 1, b - a - 1), last) ||
        !parseInt(text.substr(b + 1), stride))
      ts.fail(fmt::format("bad triplet '{}'", text), "a triplet is FIRST:LAST:STRIDE, three integers (`0:12288:4096` is 0 4096 8192 12288)");
    std::int64_t span = 0;
    const bool wide = __builtin_sub_overflow(last, first, &span) || span == std::numeric_limits<std::int64_t>::min();
    if (stride == 0 || span == 0 || (!wide && ((span > 0) != (stride > 0) || span % stride != 0)))
      ts.fail(fmt::format("triplet '{}' does not step from {} to {}", text, first, last),
              "the stride is non-zero, has the sign of LAST - FIRST and divides it; FIRST and LAST differ");
    // A span beyond 64 bits has more values than the budget whatever the stride.
    const std::int64_t steps = wide ? kMaxTripletValues : span / stride;
    const std::int64_t count = steps >= kMaxTripletValues ? kMaxTripletValues + 1 : steps + 1;
    if (count > kMaxTripletValues - tripletValues_)
      ts.fail(fmt::format("triplet '{}' makes the file's triplets expand to more than {} values", text, kMaxTripletValues),
              "write the values themselves, or split the trace");
    tripletValues_ += count;
    const bool checkEach = !valid(first) || !valid(last);
    std::int64_t v = first;  // every value lies between first and last: no overflow
    for (std::int64_t k = 0; k < count; ++k, v += k < count ? stride : 0) {
      if (checkEach) check(v);
      take(v);
    }
  }

  std::int64_t paramValue(TokenStream& ts, Param p, bool relative) {
    Token tok = ts.get();
    if (tok.punct) ts.fail(fmt::format("unexpected '{}' among the values of '{}'", tok.text, paramName(p)));
    std::int64_t v = 0;
    if (isDatatypeParam(p)) {
      auto it = typeIds_.find(std::string(tok.text));
      if (it == typeIds_.end())
        ts.fail(fmt::format("unknown datatype '{}'", tok.text),
                fmt::format("declare it in the header: `datatype {} SIZE`", tok.text));
      return it->second;
    }
    if (p == Param::ReduceOp) {
      if (auto op = reduceOpFromName(tok.text)) return *op;
      if (!parseInt(tok.text, v))
        ts.fail(fmt::format("unknown reduction operator '{}'", tok.text), "MPI names (MPI_SUM, MPI_MAX, ...) or a number");
      return v;
    }
    if (p == Param::Source && tok.text == "any") return kAnySource;
    if ((p == Param::Dest || p == Param::Source) && tok.text == "null") {
      // An offset from the rank cannot name MPI_PROC_NULL, and the backends turn offsets
      // into ranks: the value is absolute only.
      if (relative)
        ts.fail(fmt::format("'{} rel' cannot hold 'null' (MPI_PROC_NULL is not an offset from the rank)", paramName(p)),
                fmt::format("write the ranks that address MPI_PROC_NULL on their own event with absolute peers, "
                            "e.g. `{} null`",
                            paramName(p)));
      return kProcNull;
    }
    if (!parseInt(tok.text, v)) ts.fail(fmt::format("bad number '{}' for {}", tok.text, paramName(p)));
    checkParamValue(ts, p, v);
    return v;
  }

  bool peerOutsideTrace(Param p, std::int64_t v) const {
    return (p == Param::Dest || p == Param::Source || p == Param::Root) && (v < 0 || v >= trace_.numRanks);
  }

  bool paramValuePasses(Param p, std::int64_t v) const { return !peerOutsideTrace(p, v) && !paramValueProblem(p, v); }

  void checkParamValue(TokenStream& ts, Param p, std::int64_t v) {
    if (peerOutsideTrace(p, v))
      ts.fail(fmt::format("{} {} is outside the trace's ranks 0..{}", paramName(p), v, trace_.numRanks - 1));
    if (auto why = paramValueProblem(p, v)) ts.fail(*why, "see \"Limits\" in docs/trace-format.md");
  }

  void parseParam(TokenStream& ts, Param p) {
    Event& e = event_->event;
    bool relative = false;
    if (isPeerParam(p) && ts.peekIs("rel")) {
      ts.get();
      relative = true;
    }
    ValueGroup g;
    const bool steps = isDisplacementParam(p) && ts.peekIs("steps");
    if (steps) {
      // `steps D0 D1 ...`: each value is the one before plus its step (the first, 0 plus it).
      ts.get();
      std::int64_t v = 0;
      while (!ts.atEnd() && !ts.peekIs("@")) {
        const Token tok = ts.get();
        std::int64_t step = 0;
        if (tok.punct || !parseInt(tok.text, step))
          ts.fail(fmt::format("bad step '{}' for {}", tok.text, paramName(p)), "`steps` takes integers, no triplets");
        if (__builtin_add_overflow(v, step, &v))
          ts.fail(fmt::format("the steps of {} overflow a 64-bit integer", paramName(p)));
        checkParamValue(ts, p, v);
        g.values.push_back(v);
      }
    }
    while (!steps && !ts.atEnd() && !ts.peekIs("@")) {
      // Triplets hold numbers only: not datatype or operator names, `any` or `null`.
      if (isTriplet(ts.peek()) && !isDatatypeParam(p)) {
        expandTriplet(
            ts, ts.get(), [&](std::int64_t v) { return paramValuePasses(p, v); },
            [&](std::int64_t v) { checkParamValue(ts, p, v); }, [&](std::int64_t v) { g.values.push_back(v); });
        continue;
      }
      g.values.push_back(paramValue(ts, p, relative));
    }
    if (g.values.empty()) ts.fail(fmt::format("parameter '{}' without values", paramName(p)));
    g.ranks = parseGroupRanks(ts, e);
    auto [it, fresh] = event_->params.try_emplace(p);
    PendingParam& pp = it->second;
    if (fresh) {
      pp.values.param = p;
      pp.values.relative = relative;
      pp.line = ts.line().number;
    } else if (pp.values.relative != relative) {
      ts.fail(fmt::format("parameter '{}' is 'rel' on some lines and not on others", paramName(p)),
              "all lines of one parameter agree on `rel`");
    }
    RankSets sets(file_, ts.line().number);
    for (const auto& other : pp.values.groups)
      if (sets.meet(other.ranks, g.ranks))
        ts.fail(fmt::format("parameter '{}' gives ranks {} two value lists", paramName(p),
                            RankList::intersect(other.ranks, g.ranks).pretty()),
                "the `@ RANKLIST` groups of one parameter partition the event's ranks");
    pp.covered += g.ranks.size();
    pp.values.groups.push_back(std::move(g));
  }

  void parseTime(TokenStream& ts) {
    TimeStat st;
    std::string_view phase = getName(ts, "a phase (comp or mpi)");
    if (phase == "comp") st.phase = Phase::Compute;
    else if (phase == "mpi") st.phase = Phase::Mpi;
    else ts.fail(fmt::format("unknown time phase '{}'", phase), "`comp`: computation before the call; `mpi`: time inside it");
    std::string_view unit = getName(ts, "a unit (us or kinst)");
    if (unit == "us") st.unit = TimeUnit::Microseconds;
    else if (unit == "kinst") st.unit = TimeUnit::KiloInstructions;
    else ts.fail(fmt::format("unknown time unit '{}'", unit), "`us`: microseconds; `kinst`: thousands of instructions");
    ts.expect("after");
    st.after = siteToken(ts, "the preceding call site");
    const Event& e = event_->event;
    std::vector<const RankList*> sameKey;  // the groups of the lines before with this key
    for (const auto& o : e.stats)
      if (o.phase == st.phase && o.unit == st.unit && o.after == st.after) sameKey.push_back(&o.ranks);
    st.ranks = timingGroup(ts, e, sameKey);
    st.hist = parseHistogram(ts, HistogramSpelling::Tracegen, trace_.numRanks);
    event_->event.stats.push_back(std::move(st));
  }

  // `@ RANKLIST` after the predecessor of a `time` or `compute` line: a timing sub-group, ranks
  // of the event whose times differ from the others'. Sub-groups of one key are disjoint, and a
  // line without ranks (every rank of the event) is the only one of its key.
  RankList timingGroup(TokenStream& ts, const Event& e, const std::vector<const RankList*>& sameKey) {
    if (!ts.peekIs("@")) {
      if (!sameKey.empty())
        ts.fail("a second line for the same predecessor without `@ RANKLIST`",
                "timing sub-groups name their ranks: `after SITE @ RANKLIST ...`, disjoint for one predecessor");
      return RankList();
    }
    ts.get();
    RankList ranks = parseRankList(ts);
    if (ranks.empty()) ts.fail("an empty timing sub-group");
    if (!RankSets(file_, ts.line().number).within(ranks, e.ranks))
      ts.fail(fmt::format("timing sub-group {} holds ranks that do not execute event {} ({})", ranks.pretty(), e.id,
                          e.ranks.pretty()));
    if (std::any_of(sameKey.begin(), sameKey.end(), [&](const RankList* o) { return o->empty() || o->intersects(ranks); }))
      ts.fail(fmt::format("timing sub-group {} overlaps another line for the same predecessor", ranks.pretty()),
              "the sub-groups of one predecessor are disjoint, and a line without `@ RANKLIST` covers every rank");
    return ranks;
  }

  // A time or instruction count: finite, not negative and within kMaxTimeValue, so that
  // means, sums and the values a backend prints stay finite numbers.
  static double timeValue(TokenStream& ts, std::string_view what) {
    const double v = ts.getReal(what);
    if (auto why = timeValueProblem(v)) ts.fail(fmt::format("{}: {}", what, *why), "see \"Limits\" in docs/trace-format.md");
    return v;
  }

  void parseCompute(TokenStream& ts) {
    ComputeTime c;
    ts.expect("after");
    c.after = siteToken(ts, "the preceding call site");
    const Event& e = event_->event;
    std::vector<const RankList*> sameKey;
    for (const auto& o : e.compute)
      if (o.after == c.after) sameKey.push_back(&o.ranks);
    c.ranks = timingGroup(ts, e, sameKey);
    expectKey(ts, "us");
    c.us = timeValue(ts, "compute time");
    if (ts.peekIs("calls")) c.calls = parseComputeCallRanges(ts);
    expectEnd(ts, "the compute time");
    event_->event.compute.push_back(c);
  }

  void endEvent() {
    Event& e = event_->event;
    std::int64_t expected = 0;
    for (auto& [level, pl] : event_->loops) {
      if (level != expected)
        failAt(pl.line, fmt::format("event {}: loop level {} without level {}", e.id, level, expected),
               "levels count from 0 (the outermost loop the event heads)");
      ++expected;
      if (pl.level.iter.empty() || pl.level.mem.empty())
        failAt(pl.line, fmt::format("event {}: loop level {} has no '{}' line", e.id, level, pl.level.iter.empty() ? "iter" : "mem"),
               "each loop level needs `loop L iter ...` and `loop L mem ...`");
      if (!RankSets(file_, pl.line).sameRanks(pl.level.iter, pl.level.mem))
        failAt(pl.line, fmt::format("event {}: loop level {} gives iteration counts and body lengths to different ranks", e.id, level),
               "the `iter` and `mem` lines of a level cover the same ranks");
      e.loops.push_back(std::move(pl.level));
    }
    for (auto& [p, pp] : event_->params) {
      if (pp.covered != e.ranks.size())
        failAt(pp.line,
               fmt::format("event {}: parameter '{}' has values for {} of the event's {} ranks", e.id, paramName(p), pp.covered,
                           e.ranks.size()),
               "the `@ RANKLIST` groups of one parameter must cover the event's ranks");
      e.params.push_back(std::move(pp.values));
    }
    trace_.events.push_back(std::move(e));
    event_.reset();
  }

  // Every rank's first event is MPI_Init (or MPI_Init_thread) and its last MPI_Finalize: the
  // ranks of every other event have passed an init event before it and reach a finalize event
  // after it. A rank initialises and finalises once, so the boundary events of one kind are
  // disjoint and RankSets can count the ranks they cover without enumerating them.
  void checkInitAndFinalize() {
    const Rank P = trace_.numRanks;
    const SourceLine& end = file_.lines.back();
    auto walk = [&](auto first, auto last, bool atStart) {
      const OpKind boundKind = atStart ? OpKind::Init : OpKind::Finalize;
      const std::string_view boundName = atStart ? "MPI_Init" : "MPI_Finalize";
      std::vector<const Event*> bounds;
      Rank covered = 0;
      for (auto it = first; it != last; ++it) {
        const Event& e = *it;
        RankSets sets(file_, e.line);
        if (opInfo(e.op).kind == boundKind) {
          for (const Event* b : bounds)
            if (sets.meet(b->ranks, e.ranks))
              throw InputError(file_.name, e.line, fmt::format("events {} and {} both run {} on ranks {}", b->id, e.id, boundName,
                                                               RankList::intersect(b->ranks, e.ranks).pretty()));
          covered += e.ranks.size();
          bounds.push_back(&e);
          continue;
        }
        if (covered == P) continue;
        Rank inside = 0;
        for (const Event* b : bounds) inside += sets.common(e.ranks, b->ranks);
        if (inside == e.ranks.size()) continue;
        if (!atStart && &e == &trace_.events.back())
          throw InputError(file_.name, end.number,
                           fmt::format("trace ends with event {} ({}), not MPI_Finalize: the file is truncated", e.id, opName(e.op)),
                           std::string(end.text), "every rank ends with MPI_Finalize");
        throw InputError(file_.name, e.line,
                         fmt::format("event {} ({}) is the {} event of {}, not {}", e.id, opName(e.op), atStart ? "first" : "last",
                                     witness(e.ranks, bounds), boundName),
                         {}, "every rank starts with MPI_Init (or MPI_Init_thread) and ends with MPI_Finalize");
      }
      if (covered < P)
        throw InputError(file_.name, end.number, fmt::format("{} of the {} ranks never call {}", P - covered, P, boundName), {},
                         "every rank of 0..P-1 starts with MPI_Init and ends with MPI_Finalize");
    };
    walk(trace_.events.begin(), trace_.events.end(), true);
    walk(trace_.events.rbegin(), trace_.events.rend(), false);
  }

  // Names a rank of `ranks` outside every bound, for the message; huge lists are not searched.
  static std::string witness(const RankList& ranks, const std::vector<const Event*>& bounds) {
    if (ranks.size() > (Rank{1} << 20)) return "some of its ranks";
    Rank found = -1;
    ranks.forEach([&](Rank r) {
      bool bounded = false;
      for (const Event* b : bounds) bounded = bounded || b->ranks.contains(r);
      if (!bounded) found = r;
      return bounded;
    });
    return fmt::format("rank {}", found);
  }

  const SourceFile& file_;
  Trace trace_;
  bool inEvents_ = false;
  int ranksLine_ = 0, originLine_ = 0, peersLine_ = 0, clockLine_ = 0, beforeInitLine_ = 0, afterFinalizeLine_ = 0;
  int programLine_ = 0;
  int recordingsLine_ = 0;
  static constexpr std::int64_t kMaxRecordings = 1000;
  std::map<std::string, int> frameLines_;  // `frame` lines: frame -> line
  std::vector<PendingDatatype> datatypes_;
  std::map<std::string, std::int64_t> typeIds_;
  std::int64_t tripletValues_ = 0;  // values expanded from triplets so far (kMaxTripletValues)
  std::vector<const SourceLine*> commLines_;
  std::map<std::int64_t, int> eventLines_;
  std::map<std::int64_t, std::pair<SiteId, int>> siteTable_;  // `site N NAME`: N -> (site, line)
  std::optional<PendingEvent> event_;
};

// ---------------------------------------------------------------------------------------------
// Writer

class TracegenTextWriter {
 public:
  TracegenTextWriter(const Trace& t, std::ostream& out) : t_(t), out_(out) {}

  void write() {
    line("tracegen-trace {}", kFormatVersion);
    line("ranks {}", t_.numRanks);
    if (!t_.origin.empty()) line("origin {}", name(t_.origin, "origin"));
    if (t_.computeClock == ComputeClock::Cpu) line("clock cpu");  // wall, the default, is not written
    for (const ValueGroup& g : t_.memoryKb) {
      if (g.values.empty()) continue;
      if (t_.memoryKb.size() == 1 && g.ranks == RankList::all(t_.numRanks))
        line("footprint memory-kb {}", g.values.front());
      else
        line("footprint memory-kb {} @ {}", g.values.front(), g.ranks.str());
    }
    if (t_.beforeInitUs >= 0) line("footprint before-init-us {}", t_.beforeInitUs);
    if (t_.afterFinalizeUs >= 0) line("footprint after-finalize-us {}", t_.afterFinalizeUs);
    if (t_.worldPeers) line("peers world");
    if (t_.recordings.count > 1)
      line("recordings {} spread-median={} spread-max={} at-event={}", t_.recordings.count, t_.recordings.spreadMedian,
           t_.recordings.spreadMax, t_.recordings.spreadMaxEvent);
    std::vector<std::string_view> names;
    for (const auto& d : t_.datatypes) names.push_back(d.name);
    std::vector<std::int64_t> ids = defaultDatatypeIds(names);
    for (std::size_t i = 0; i < t_.datatypes.size(); ++i) {
      const Datatype& d = t_.datatypes[i];
      if (!types_.emplace(d.id, &d).second)
        throw std::invalid_argument(fmt::format("trace has two datatypes with id {}", d.id));
      for (std::size_t k = 0; k < i; ++k)
        if (t_.datatypes[k].name == d.name) throw std::invalid_argument(fmt::format("trace has two datatypes named '{}'", d.name));
      fmt::format_to(std::back_inserter(buf_), "datatype {} {}", name(d.name, "datatype name"), d.size);
      if (d.id != ids[i]) fmt::format_to(std::back_inserter(buf_), " id={}", d.id);
      buf_.push_back('\n');
    }
    // MPI_COMM_SELF and MPI_COMM_WORLD first, as a reader adds them when the file leaves them
    // out: left out.
    const std::vector<Communicator> standard = standardCommunicators(t_.numRanks);
    const bool standardFirst = t_.comms.size() >= standard.size() && std::equal(standard.begin(), standard.end(), t_.comms.begin());
    for (std::size_t k = standardFirst ? standard.size() : 0; k < t_.comms.size(); ++k) {
      const Communicator& c = t_.comms[k];
      fmt::format_to(std::back_inserter(buf_), "comm {} {}", c.id, name(c.kind, "communicator kind"));
      for (std::size_t i = 0; i < c.instances.size(); ++i) {
        fmt::format_to(std::back_inserter(buf_), " ({}", c.instances[i].str());
        if (const std::vector<Rank>* order = c.orderOf(i))
          fmt::format_to(std::back_inserter(buf_), " order {}", fmt::join(*order, " "));
        buf_.push_back(')');
      }
      buf_.push_back('\n');
    }
    writeSiteTable();
    if (!t_.program.empty()) line("program {}", name(t_.program, "executable name"));
    for (const auto& [frame, n] : t_.frameNames) {
      fmt::format_to(std::back_inserter(buf_), "frame {} {}", name(frame, "frame"), name(n.symbol, "function symbol"));
      if (n.line > 0) fmt::format_to(std::back_inserter(buf_), " {}", name(fmt::format("{}:{}", n.file, n.line), "source position"));
      buf_.push_back('\n');
    }
    for (const auto& e : t_.events) {
      buf_.push_back('\n');
      writeEvent(e);
      flush();
    }
    flush();
  }

 private:
  template <typename... Args>
  void line(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(buf_), f, std::forward<Args>(args)...);
    buf_.push_back('\n');
  }

  void flush() {
    out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    buf_.clear();
  }

  // Names are single tokens (a `#` inside one is part of it, at its start a comment); anything
  // else would not read back as the same name.
  static std::string_view name(std::string_view s, std::string_view what) {
    auto tokens = tokenize(s);
    bool ok = tokens.size() == 1 && !tokens[0].punct && tokens[0].text == s;
    for (char c : s) ok = ok && static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
    if (!ok) throw std::invalid_argument(fmt::format("{} '{}' cannot be written: names are single tokens", what, s));
    return s;
  }

  std::string_view site(SiteId s) const {
    if (s == kNoSite) return kNoSiteName;
    if (s < 0 || static_cast<std::size_t>(s) >= t_.sites.size()) throw std::invalid_argument(fmt::format("site id {} out of range", s));
    std::string_view n = t_.sites[static_cast<std::size_t>(s)];
    if (n == kNoSiteName) throw std::invalid_argument("call site '-' cannot be written: it stands for no site");
    return name(n, "call site");
  }

  // The site table: a site that two or more `time` and `compute` lines name as their
  // predecessor, where `@N` on those lines saves more than the table line `site N NAME` costs,
  // is numbered in order of first use and written `@N` there (an event's own `site` line keeps
  // the name, for people).
  void writeSiteTable() {
    std::vector<int> uses(t_.sites.size(), 0);
    std::vector<SiteId> order;
    auto use = [&](SiteId s) {
      if (s == kNoSite || s < 0 || static_cast<std::size_t>(s) >= uses.size()) return;
      if (uses[static_cast<std::size_t>(s)]++ == 0) order.push_back(s);
    };
    for (const auto& e : t_.events) {
      for (const auto& st : e.stats) use(st.after);
      for (const auto& c : e.compute) use(c.after);
    }
    refs_.assign(t_.sites.size(), -1);
    int next = 0;
    for (SiteId s : order) {
      // Worth it when the references save more than the table line costs.
      const auto n = static_cast<std::int64_t>(uses[static_cast<std::size_t>(s)]);
      const auto len = static_cast<std::int64_t>(site(s).size());
      const auto ref = static_cast<std::int64_t>(fmt::formatted_size("@{}", next));
      if (n < 2 || n * (len - ref) <= len + ref + 6) continue;
      refs_[static_cast<std::size_t>(s)] = next;
      line("site {} {}", next++, site(s));
    }
  }

  // `after` of a time or compute line: `@N` for a site of the table, else its name.
  std::string after(SiteId s) const {
    if (s != kNoSite && s >= 0 && static_cast<std::size_t>(s) < refs_.size() && refs_[static_cast<std::size_t>(s)] >= 0)
      return fmt::format("@{}", refs_[static_cast<std::size_t>(s)]);
    return std::string(site(s));
  }

  void value(Param p, bool relative, std::int64_t v) {
    buf_.push_back(' ');
    if (isDatatypeParam(p)) {
      auto it = types_.find(v);
      if (it == types_.end()) throw std::invalid_argument(fmt::format("datatype {} is not in the trace's datatype table", v));
      buf_.append(it->second->name);
    } else if (p == Param::ReduceOp && !reduceOpName(v).empty()) {
      buf_.append(reduceOpName(v));
    } else if (p == Param::Source && v == kAnySource) {
      buf_.append(std::string_view("any"));
    } else if ((p == Param::Dest || p == Param::Source) && v == kProcNull) {
      if (relative)
        throw std::invalid_argument(fmt::format("'{} rel' cannot hold MPI_PROC_NULL: it is not an offset", paramName(p)));
      buf_.append(std::string_view("null"));
    } else {
      fmt::format_to(std::back_inserter(buf_), "{}", v);
    }
  }

  // A value list: runs of at least kMinTripletRun plain numbers with a constant non-zero stride
  // as triplets FIRST:LAST:STRIDE, every other value as value() spells it (`plain(v)`: v is
  // written as a number).
  template <typename Plain, typename One>
  void valueList(const std::vector<std::int64_t>& values, Plain&& plain, One&& one) {
    std::size_t i = 0;
    while (i < values.size()) {
      std::size_t j = i + 1;
      std::int64_t stride = 0;
      if (plain(values[i]) && i + 1 < values.size() && plain(values[i + 1]) &&
          !__builtin_sub_overflow(values[i + 1], values[i], &stride) && stride != 0) {
        std::int64_t d = 0;
        for (j = i + 2; j < values.size() && plain(values[j]) && !__builtin_sub_overflow(values[j], values[j - 1], &d) && d == stride;)
          ++j;
      }
      if (j - i >= kMinTripletRun) {
        fmt::format_to(std::back_inserter(buf_), " {}:{}:{}", values[i], values[j - 1], stride);
        i = j;
      } else {
        one(values[i++]);
      }
    }
  }

  void groupRanks(const std::vector<ValueGroup>& groups, const ValueGroup& g, const Event& e) {
    if (groups.size() == 1 && g.ranks == e.ranks) return;
    fmt::format_to(std::back_inserter(buf_), " @ {}", g.ranks.str());
  }

  void writeEvent(const Event& e) {
    line("event {} {} @ {}", e.id, opName(e.op), e.ranks.str());
    if (e.site != kNoSite || !e.mergedSites.empty()) {
      fmt::format_to(std::back_inserter(buf_), "  site {}", site(e.site));
      for (SiteId s : e.mergedSites) fmt::format_to(std::back_inserter(buf_), " {}", site(s));
      buf_.push_back('\n');
    }
    for (std::size_t k = 0; k < e.loops.size(); ++k) {
      for (const auto* groups : {&e.loops[k].iter, &e.loops[k].mem})
        for (const auto& g : *groups) {
          fmt::format_to(std::back_inserter(buf_), "  loop {} {}", k, groups == &e.loops[k].iter ? "iter" : "mem");
          valueList(g.values, [](std::int64_t) { return true; },
                    [&](std::int64_t v) { fmt::format_to(std::back_inserter(buf_), " {}", v); });
          groupRanks(*groups, g, e);
          buf_.push_back('\n');
        }
    }
    // The reader files parameters by Param, so writing them in that order keeps bytes stable.
    std::vector<const ParamValues*> params;
    for (const auto& pv : e.params) params.push_back(&pv);
    std::stable_sort(params.begin(), params.end(), [](const ParamValues* a, const ParamValues* b) { return a->param < b->param; });
    for (const ParamValues* pv : params)
      for (const auto& g : pv->groups) {
        fmt::format_to(std::back_inserter(buf_), "  {}{}", paramName(pv->param), pv->relative ? " rel" : "");
        const Param p = pv->param;
        const bool numbers = !isDatatypeParam(p) && p != Param::ReduceOp;
        const std::size_t start = buf_.size();
        valueList(g.values, [&](std::int64_t v) { return numbers && !((p == Param::Source || p == Param::Dest) && (v == kAnySource || v == kProcNull)); },
                  [&](std::int64_t v) { value(p, pv->relative, v); });
        // Displacements as steps where their numbers take no more room than the values' (the
        // keyword compresses to next to nothing): a packed v-collective's steps are its counts,
        // which the compressor then finds again.
        if (isDisplacementParam(p)) {
          constexpr std::string_view kKeyword = " steps";
          std::string steps(kKeyword);
          std::int64_t before = 0, step = 0;
          bool fits = true;
          for (std::int64_t v : g.values) {
            fits = fits && !__builtin_sub_overflow(v, before, &step);
            fmt::format_to(std::back_inserter(steps), " {}", step);
            before = v;
          }
          if (fits && steps.size() - kKeyword.size() <= buf_.size() - start) buf_.replace(start, std::string::npos, steps);
        }
        groupRanks(pv->groups, g, e);
        buf_.push_back('\n');
      }
    for (const auto& st : e.stats) {
      fmt::format_to(std::back_inserter(buf_), "  time {} {} after {} ", phaseName(st.phase), timeUnitName(st.unit), after(st.after));
      if (!st.ranks.empty()) fmt::format_to(std::back_inserter(buf_), "@ {} ", st.ranks.str());
      appendHistogramText(buf_, st.hist);
      buf_.push_back('\n');
    }
    for (const auto& c : e.compute) {
      fmt::format_to(std::back_inserter(buf_), "  compute after {} ", after(c.after));
      if (!c.ranks.empty()) fmt::format_to(std::back_inserter(buf_), "@ {} ", c.ranks.str());
      fmt::format_to(std::back_inserter(buf_), "us={}", c.us);
      appendCallRangesText(buf_, c.calls);
      buf_.push_back('\n');
    }
  }

  const Trace& t_;
  std::ostream& out_;
  std::map<std::int64_t, const Datatype*> types_;
  std::vector<int> refs_;  // per site id: its number in the site table, -1 if written by name
  std::string buf_;
};

}  // namespace

Trace readTracegenText(const SourceFile& file) { return TracegenTextParser(file).parse(); }

void writeTracegenText(const Trace& trace, std::ostream& out) { TracegenTextWriter(trace, out).write(); }

}  // namespace tracegen
