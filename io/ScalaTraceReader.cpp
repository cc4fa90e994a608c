// Reader for ScalaTrace 2 global text traces (../shared/docs/scalatrace2-format.md).
//
// The file is a sequence of blank-line separated blocks: RANKS, EVENT, COMP/COMM statistics,
// LOOP levels and parameter lines. Everything is read into the trace model as it stands:
// peers stay offset-encoded (marked `relative`), MPI_ANY_SOURCE becomes kAnySource, histogram
// paths are interned call sites. The world size P is the size of the first block's ranklist
// (the MPI_Init event); every later ranklist must lie within [0, P).
//
// Fragments. A trace cut out of a longer one (its first event is not MPI_Init, or its last
// not MPI_Finalize; its events may be numbered from any k) is read as the part of a program it
// is: the reader adds MPI_Init before it and MPI_Finalize after it, on every rank, so that
// everything downstream sees a whole program, and says so in Trace::warnings (the pipeline
// passes them to PassContext::warn; the command line prints them on stderr). P is then the
// size of the first block's ranklist, which must be 0..P-1 as for MPI_Init. A file truncated at
// a block boundary looks the same, hence a warning rather than silence.
#include "io/Readers.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "ir/Diagnostics.h"
#include "io/HistogramText.h"
#include "ir/Limits.h"
#include "io/TextLines.h"
#include "ir/Verify.h"

namespace tracegen {

namespace {

constexpr std::int64_t kScalaTraceAnySource = 2147483647;

struct ParamId {
  int id;
  std::optional<Param> param;  // nullopt: informational, dropped
};

std::optional<ParamId> scalaTraceParam(std::int64_t id) {
  switch (id) {
    case 0x01: return ParamId{0x01, Param::RecvCounts};
    case 0x02: return ParamId{0x02, Param::Displs};
    case 0x03: return ParamId{0x03, Param::SendCounts};
    case 0x04: return ParamId{0x04, Param::RecvDispls};
    case 0x0a: return ParamId{0x0a, Param::GroupRanks};
    case 0x0b: return ParamId{0x0b, Param::GroupRanges};
    case 0x0c: return ParamId{0x0c, Param::Requests};
    case 0x10: return ParamId{0x10, Param::Comm};
    case 0x12: return ParamId{0x12, Param::Count};
    case 0x14: return ParamId{0x14, Param::Datatype};
    case 0x15: return ParamId{0x15, Param::RecvCount};
    case 0x16: return ParamId{0x16, Param::RecvType};
    case 0x18: return ParamId{0x18, Param::ReduceOp};
    case 0x19: return ParamId{0x19, Param::Root};
    case 0x1a: return ParamId{0x1a, Param::Dest};
    case 0x1b: return ParamId{0x1b, Param::Tag};
    case 0x1c: return ParamId{0x1c, Param::Request};
    case 0x21: return ParamId{0x21, Param::Group};
    case 0x23: return ParamId{0x23, Param::Color};
    case 0x24: return ParamId{0x24, Param::Key};
    case 0x25: return ParamId{0x25, Param::Group1};
    case 0x26: return ParamId{0x26, Param::Group2};
    case 0x2b: return ParamId{0x2b, Param::Source};
    case 0x2d: return ParamId{0x2d, Param::RecvTag};
    case 0x33: return ParamId{0x33, std::nullopt};  // GLOBAL_WORLD, informational
    case 0x34: return ParamId{0x34, std::nullopt};  // NULL_REQ placeholder
    default: return std::nullopt;
  }
}

// Datatype indices 20 and up depend on the MPI library; these are the numbers of a library
// that defines every optional type (§10.2), with their LP64 sizes.
const std::vector<Datatype>& extendedDatatypes() {
  static const std::vector<Datatype> kTypes = [] {
    std::vector<Datatype> t = scalaTraceDatatypes();
    std::vector<Datatype> more = {
        {20, "MPI_CHARACTER", 1},     {21, "MPI_FLOAT_INT", 8}, {22, "MPI_DOUBLE_INT", 12},
        {23, "MPI_LONG_INT", 12},     {24, "MPI_2INT", 8},      {25, "MPI_SHORT_INT", 6},
        {26, "MPI_LONG_DOUBLE_INT", 20}, {27, "MPI_2REAL", 8},  {28, "MPI_2DOUBLE_PRECISION", 16},
        {29, "MPI_2INTEGER", 8}};
    t.insert(t.end(), more.begin(), more.end());
    return t;
  }();
  return kTypes;
}

constexpr std::int64_t kMaxInt = 2147483647;  // the format's integers are C ints

class ScalaTraceParser {
 public:
  explicit ScalaTraceParser(const SourceFile& file) : file_(file) {}

  Trace parse() {
    std::vector<std::vector<const SourceLine*>> blocks;
    std::vector<const SourceLine*> current;
    for (const auto& line : file_.lines) {
      if (line.text.find_first_not_of(" \t") == std::string_view::npos) {
        if (!current.empty()) blocks.push_back(std::move(current));
        current.clear();
      } else {
        current.push_back(&line);
      }
    }
    if (!current.empty()) blocks.push_back(std::move(current));
    if (blocks.empty()) throw InputError(file_.name, 1, "empty trace: no events", {}, "a ScalaTrace 2 trace starts with a RANKS: line");

    for (std::size_t b = 0; b < blocks.size(); ++b) parseBlock(blocks[b], b);

    Trace& t = trace_;
    completeFragment(blocks.back().back()->number);
    bool us = t.hasTime(Phase::Compute, TimeUnit::Microseconds);
    bool kinst = t.hasTime(Phase::Compute, TimeUnit::KiloInstructions);
    t.origin = us && kinst ? "scalatrace2-tic" : kinst ? "scalatrace2-ti" : "scalatrace2-td";
    t.comms = standardCommunicators(t.numRanks);
    for (const auto& d : extendedDatatypes())
      if (usedTypes_.count(d.id)) t.datatypes.push_back(d);
    verifyStructure(t, file_.name, 4096, lines_);
    return std::move(trace_);
  }

 private:
  // `count {-depth start {iters stride}...}...`. Before the first block has defined P, ranks
  // are only bounded by the format's int.
  RankList parseRankList(TokenStream& ts) {
    std::int64_t count = ts.getInt("ranklist count");
    if (count < 0) ts.fail(fmt::format("ranklist count {} is negative", count));
    if (count == 0) ts.fail("empty ranklist");
    const Rank P = trace_.numRanks;
    std::vector<RankTuple> tuples;
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t neg = ts.getInt("ranklist dimension marker");
      if (neg >= 0 || neg < -16)
        ts.fail(fmt::format("ranklist section {} starts with {}, expected a negated dimension count (-1, -2, ...)", i + 1, neg),
                "a ranklist is `count` then, per section, `-depth start iters stride ...`");
      RankTuple t;
      t.start = ts.getInt("ranklist start");
      if (t.start < 0) ts.fail(fmt::format("ranklist names rank {}", t.start), "ranks are numbered from 0");
      if (t.start > kMaxInt) ts.fail(fmt::format("ranklist start {} does not fit the format's 32-bit integers", t.start));
      constexpr Rank kCap = Rank{1} << 62;
      Rank last = std::min(t.start, kCap);
      for (std::int64_t d = 0; d < -neg; ++d) {
        RankDim dim;
        dim.iters = ts.getInt("ranklist iteration count");
        dim.stride = ts.getInt("ranklist stride");
        if (dim.iters < 1) ts.fail(fmt::format("ranklist dimension with {} iterations", dim.iters));
        if (dim.stride < 0) ts.fail(fmt::format("ranklist dimension with negative stride {}", dim.stride));
        if (dim.iters > kMaxInt || dim.stride > kMaxInt)
          ts.fail(fmt::format("ranklist dimension {{{} {}}} does not fit the format's 32-bit integers", dim.iters, dim.stride));
        Rank span = (dim.iters - 1) * dim.stride;  // < 2^62
        last = span > kCap - last ? kCap : last + span;
        t.dims.push_back(dim);
      }
      if (P > 0 && last >= P)
        ts.fail(fmt::format("ranklist names rank {} outside the trace's ranks 0..{}", last, P - 1));
      if (last > kMaxInt) ts.fail(fmt::format("ranklist names rank {}, beyond the format's 32-bit integers", last));
      tuples.push_back(std::move(t));
    }
    std::string problem;
    std::optional<RankList> list = RankList::fromSections(tuples, problem);
    if (!list) ts.fail("ranklist " + problem);
    return std::move(*list);
  }

  std::int64_t getValue(TokenStream& ts, std::string_view what) {
    std::int64_t v = ts.getInt(what);
    if (v < -kMaxInt - 1 || v > kMaxInt)
      ts.fail(fmt::format("{} {} does not fit the format's 32-bit integers", what, v));
    return v;
  }

  std::vector<std::int64_t> parseValueList(TokenStream& ts, std::string_view what) {
    std::vector<std::int64_t> values;
    while (!ts.atEnd() && !ts.peek().punct) values.push_back(getValue(ts, what));
    return values;
  }

  // `( v... )[ ranklist ]`
  ValueGroup parseGroup(TokenStream& ts, std::string_view what) {
    ts.expect("(");
    ValueGroup g;
    g.values = parseValueList(ts, what);
    ts.expect(")");
    ts.expect("[");
    g.ranks = parseRankList(ts);
    ts.expect("]");
    if (g.values.empty()) ts.fail(fmt::format("empty value list for {}", what));
    return g;
  }

  // `( n avg minRank min maxRank max ) {start min avg max end freq}...`: read, with its checks,
  // by the histogram reader both formats share (io/HistogramText.cpp).
  Histogram parseHistogram(TokenStream& ts) { return tracegen::parseHistogram(ts, HistogramSpelling::ScalaTrace, trace_.numRanks); }

  void parseStat(TokenStream& ts, Event& e) {
    Token phase = ts.get();
    Token tag = ts.get();  // "4b-0:"
    std::string_view s = tag.text;
    std::size_t dash = s.find('-');
    if (dash == std::string_view::npos || s.back() != ':' || dash + 2 > s.size())
      ts.fail(fmt::format("malformed statistic tag '{}', expected CODE-PATH:", s));
    std::string_view code = s.substr(0, dash);
    std::string_view path = s.substr(dash + 1, s.size() - dash - 2);
    if (path.empty() || path.find_first_not_of("0123456789abcdef") != std::string_view::npos)
      ts.fail(fmt::format("malformed statistic tag '{}': the path index '{}' is not hexadecimal", s, path));
    TimeStat st;
    st.phase = phase.text == "COMP" ? Phase::Compute : Phase::Mpi;
    if (code == "4b") st.unit = TimeUnit::Microseconds;
    else if (code == "4c") st.unit = TimeUnit::KiloInstructions;
    else ts.fail(fmt::format("unknown statistic code '{}'", code), "4b is elapsed time, 4c retired instructions");
    if (st.phase == Phase::Mpi && st.unit != TimeUnit::Microseconds) ts.fail("COMM statistics must be times (4b)");
    if (ts.atEnd()) ts.fail("missing path signature after the statistic tag");
    std::string_view sig = ts.get().text;
    st.after = sig == "NULL" ? kNoSite : trace_.internSite(sig);
    for (const auto& other : e.stats)
      if (other.phase == st.phase && other.unit == st.unit && other.after == st.after)
        ts.fail(fmt::format("second {} {} histogram for path {}", phase.text, code, sig),
                "an event has one histogram per statistic and predecessor call site");
    st.hist = parseHistogram(ts);
    e.stats.push_back(std::move(st));
  }

  static RankList coverage(const std::vector<ValueGroup>& groups) {
    RankList all;
    for (const auto& g : groups) all = RankList::unite(all, g.ranks);
    return all;
  }

  void parseLoop(TokenStream& ts, Event& e, std::string_view head) {
    std::int64_t level = 0;
    if (head.size() < 6 || head.back() != ':' || !parseInt(head.substr(4, head.size() - 5), level))
      ts.fail(fmt::format("malformed loop tag '{}', expected LOOPk:", head));
    const auto expected = static_cast<std::int64_t>(e.loops.size());
    if (level >= kMaxLoopLevels)
      ts.fail(fmt::format("LOOP{}: loops nest at most {} levels deep", level, kMaxLoopLevels),
              "tracegen's limit on loop nesting (docs/trace-format.md, \"Limits\")");
    if (level != expected)
      ts.fail(expected == 0 ? fmt::format("LOOP{} without LOOP0: loop levels start at 0", level)
                            : fmt::format("LOOP{} follows LOOP{}: loop levels are numbered 0, 1, 2, ... in order", level,
                                          expected - 1));
    LoopLevel lv;
    ts.expect("iter:");
    while (ts.peekIs("(")) lv.iter.push_back(parseGroup(ts, "loop iteration count"));
    ts.expect("mem:");
    while (!ts.atEnd()) lv.mem.push_back(parseGroup(ts, "loop body length"));
    if (lv.iter.empty() || lv.mem.empty()) ts.fail("loop without iteration or body groups");
    for (const auto& g : lv.iter)
      for (auto v : g.values)
        if (v < 0) ts.fail(fmt::format("loop iteration count {} is negative", v));
    for (const auto& g : lv.mem)
      for (auto v : g.values)
        if (v < 1) ts.fail(fmt::format("loop body of {} events; a body holds at least its head", v));
    for (const auto* groups : {&lv.iter, &lv.mem}) {
      const char* what = groups == &lv.iter ? "iteration counts" : "body lengths";
      for (std::size_t i = 0; i < groups->size(); ++i) {
        const RankList& ranks = (*groups)[i].ranks;
        if (!ranks.isSubsetOf(e.ranks))
          ts.fail(fmt::format("loop group {} holds ranks that do not execute the event ({})", ranks.pretty(), e.ranks.pretty()));
        for (std::size_t j = 0; j < i; ++j)
          if ((*groups)[j].ranks.intersects(ranks))
            ts.fail(fmt::format("loop {} give ranks {} two lists", what,
                                RankList::intersect((*groups)[j].ranks, ranks).pretty()));
      }
    }
    const RankList iterRanks = coverage(lv.iter), memRanks = coverage(lv.mem);
    if (!(iterRanks == memRanks))
      ts.fail(fmt::format("loop iteration counts cover ranks {} but body lengths cover ranks {}", iterRanks.pretty(),
                          memRanks.pretty()));
    if (!e.loops.empty()) {
      const RankList outer = coverage(e.loops.back().iter);
      if (!iterRanks.isSubsetOf(outer))
        ts.fail(fmt::format("LOOP{} covers ranks {} that LOOP{} does not", level,
                            RankList::subtract(iterRanks, outer).pretty(), level - 1),
                "an inner loop level applies to ranks of the enclosing level only");
    }
    e.loops.push_back(std::move(lv));
    lines_.loops.back().push_back(ts.line().number);
  }

  void parseParam(TokenStream& ts, Event& e, std::map<Param, ParamValues>& params) {
    std::int64_t id = ts.getHex("parameter id");
    auto pid = scalaTraceParam(id);
    if (!pid) ts.fail(fmt::format("unknown parameter id {:x}", id), "see §9.1 of the ScalaTrace 2 format for the identifiers");
    ValueGroup g;
    if (ts.peekIs("(")) {
      // Grouped form `( v... )[ ranks ]`, or a lossy histogram `(n avg ...){...}`.
      TokenStream probe = ts;
      probe.expect("(");
      while (!probe.atEnd() && !probe.peek().punct) probe.get();
      probe.expect(")");
      if (probe.peekIs("{")) {
        Histogram h = parseHistogram(ts);
        g.values = {static_cast<std::int64_t>(std::llround(h.mean()))};
        g.ranks = e.ranks;
      } else {
        g = parseGroup(ts, paramName(pid->param.value_or(Param::Comm)));
        if (!g.ranks.isSubsetOf(e.ranks))
          ts.fail(fmt::format("value group {} holds ranks that do not execute the event ({})", g.ranks.pretty(), e.ranks.pretty()));
      }
    } else {
      g.values = parseValueList(ts, "parameter value");
      g.ranks = e.ranks;
      if (g.values.empty()) ts.fail("parameter without values");
    }
    if (!ts.atEnd()) ts.fail(fmt::format("unexpected '{}' after the parameter's values", ts.peek().text));
    if (!pid->param) return;
    const Param p = *pid->param;
    if (p == Param::Source)
      for (auto& v : g.values) {
        if (v == kScalaTraceAnySource) v = kAnySource;
        else if (v < 0 || v >= trace_.numRanks) ts.fail(fmt::format("source offset {} outside 0..{}", v, trace_.numRanks - 1));
      }
    if (p == Param::Dest)
      for (auto v : g.values)
        if (v < 0 || v >= trace_.numRanks) ts.fail(fmt::format("destination offset {} outside 0..{}", v, trace_.numRanks - 1));
    if (p == Param::Datatype || p == Param::RecvType)
      for (auto v : g.values) {
        bool known = false;
        for (const auto& d : extendedDatatypes()) known = known || d.id == v;
        if (!known)
          ts.fail(fmt::format("datatype index {} has no known size", v),
                  "indices 0-29 are predefined types; user-defined types (1000+) cannot be resolved from a trace");
        usedTypes_.insert(v);
      }
    if (p == Param::Root)
      for (auto v : g.values)
        if (v < 0 || v >= trace_.numRanks) ts.fail(fmt::format("root {} outside 0..{}", v, trace_.numRanks - 1));
    if (p == Param::Count || p == Param::RecvCount)
      for (auto v : g.values)
        if (v < 0) ts.fail(fmt::format("negative {} {}", paramName(p), v));
    for (auto v : g.values)
      if (auto why = paramValueProblem(p, v)) ts.fail(*why, "see \"Limits\" in tracegen's docs/trace-format.md");
    if (p == Param::Request || p == Param::Requests)
      for (auto v : g.values)
        if (v != kRequestNull && (v < 0 || v >= kRequestRing))
          ts.fail(fmt::format("request offset {} outside 0..{} (or -1 for MPI_REQUEST_NULL)", v, kRequestRing - 1),
                  "9999 is the most recent request-creating call of the rank, 9998 the one before, ...");
    ParamValues& pv = params[p];
    pv.param = p;
    pv.relative = isPeerParam(p);
    for (const auto& other : pv.groups)
      if (other.ranks.intersects(g.ranks))
        ts.fail(fmt::format("parameter {:x} gives ranks {} two value lists", id, RankList::intersect(other.ranks, g.ranks).pretty()));
    pv.groups.push_back(std::move(g));
    lines_.params.back().emplace(p, ts.line().number);  // keeps the first line of the parameter
  }

  void parseBlock(const std::vector<const SourceLine*>& lines, std::size_t index) {
    Event e;
    e.line = lines[0]->number;
    lines_.loops.emplace_back();
    lines_.params.emplace_back();
    {
      TokenStream ts(file_, *lines[0]);
      if (!ts.peekIs("RANKS:")) ts.fail("a block must start with 'RANKS:'", "blocks are separated by one empty line");
      if (!trace_.events.empty() && trace_.events.back().op == Op::Finalize)
        ts.fail(fmt::format("event after MPI_Finalize (event {}), which must be the last event", trace_.events.back().id));
      ts.get();
      e.ranks = parseRankList(ts);
      if (!ts.atEnd()) ts.fail(fmt::format("unexpected '{}' after the ranklist", ts.peek().text));
      if (trace_.numRanks == 0) {
        // The first block (MPI_Init on all ranks) defines the world size.
        if (*e.ranks.first() != 0 || *e.ranks.last() + 1 != e.ranks.size())
          ts.fail(fmt::format("the first block's ranks {} are not 0..P-1", e.ranks.pretty()));
        trace_.numRanks = e.ranks.size();
      }
    }
    if (lines.size() < 2) throw InputError(file_.name, lines[0]->number, "block has no EVENT line (truncated file?)", std::string(lines[0]->text));
    {
      TokenStream ts(file_, *lines[1]);
      Token head = ts.get();
      std::int64_t seq = -1;
      if (head.text.size() < 7 || head.text.substr(0, 5) != "EVENT" || head.text.back() != ':' ||
          !parseInt(head.text.substr(5, head.text.size() - 6), seq))
        ts.fail("the second line of a block must be 'EVENTn: opcode signature'");
      // A fragment may start at any event number; the numbers then follow the file's order.
      if (index == 0 && seq >= 0 && seq < kMaxInt) firstSeq_ = seq;
      if (seq != firstSeq_ + static_cast<std::int64_t>(index))
        ts.fail(fmt::format("event number {} where {} was expected (events are numbered in file order)", seq,
                            firstSeq_ + static_cast<std::int64_t>(index)));
      e.id = seq;
      std::int64_t code = ts.getInt("operation code");
      auto op = code >= 0 && code <= kMaxInt ? opFromScalaTraceCode(static_cast<int>(code)) : std::nullopt;
      if (!op) {
        if (code >= 1154 && code <= 1166)
          ts.fail(fmt::format("operation code {} is POSIX or MPI-IO, which tracegen does not model", code));
        ts.fail(fmt::format("unknown operation code {}", code), "MPI operation codes are 1000-1153 (§6 of the format)");
      }
      e.op = *op;
      if (index > 0 && (e.op == Op::Init || e.op == Op::InitThread))
        ts.fail(fmt::format("{} {}: MPI_Init can only be the first event", opName(e.op),
                            trace_.events.front().op == Op::Init ? "again" : "after other calls"));
      if (e.op == Op::Finalize && !(e.ranks == RankList::all(trace_.numRanks)))
        ts.fail(fmt::format("MPI_Finalize on ranks {} only; every rank of 0..{} must finalize", e.ranks.pretty(),
                            trace_.numRanks - 1));
      if (ts.atEnd()) ts.fail("missing call-site signature after the operation code");
      std::string_view sig = ts.get().text;
      e.site = sig == "NULL" ? kNoSite : trace_.internSite(sig);
      if (!ts.atEnd()) ts.fail(fmt::format("unexpected '{}' after the signature", ts.peek().text));
    }
    std::map<Param, ParamValues> params;
    int stage = 0;  // 0 stats, 1 loops, 2 params: the order the format prescribes
    for (std::size_t i = 2; i < lines.size(); ++i) {
      TokenStream ts(file_, *lines[i]);
      std::string_view first = ts.peek().text;
      if (first == "COMP" || first == "COMM") {
        if (stage > 0) ts.fail("statistics line after loop or parameter lines");
        parseStat(ts, e);
      } else if (first.substr(0, 4) == "LOOP") {
        if (stage > 1) ts.fail("loop line after parameter lines");
        stage = 1;
        ts.get();
        parseLoop(ts, e, first);
      } else if (first == "RANKS:" || first.substr(0, 5) == "EVENT") {
        ts.fail("new block without a separating empty line");
      } else {
        stage = 2;
        parseParam(ts, e, params);
      }
    }
    for (auto& [p, pv] : params) {
      Rank covered = 0;
      for (const auto& g : pv.groups) covered += g.ranks.size();
      if (covered != e.ranks.size()) {
        RankList missing = e.ranks;
        for (const auto& g : pv.groups) missing = RankList::subtract(missing, g.ranks);
        throw InputError(file_.name, lines_.params.back().at(p),
                         fmt::format("event {}: parameter '{}' has no values for ranks {} (it has values for {} of the "
                                     "event's {} ranks)",
                                     e.id, paramName(p), missing.pretty(), covered, e.ranks.size()),
                         {}, "the rank groups of a parameter partition the event's ranks");
      }
      e.params.push_back(std::move(pv));
    }
    trace_.events.push_back(std::move(e));
  }

  const SourceFile& file_;
  Trace trace_;
  std::set<std::int64_t> usedTypes_;
  EventLines lines_;
  std::int64_t firstSeq_ = 0;

  // Adds MPI_Init and MPI_Finalize around a fragment (see the opening comment).
  void completeFragment(int endLine) {
    Trace& t = trace_;
    const Event first = t.events.front(), last = t.events.back();
    auto bound = [&](Op op, std::int64_t id) {
      Event e;
      e.id = id;
      e.op = op;
      e.ranks = RankList::all(t.numRanks);
      return e;
    };
    if (first.op != Op::Init) {
      t.events.insert(t.events.begin(), bound(Op::Init, last.id + 1));
      lines_.loops.insert(lines_.loops.begin(), {});
      lines_.params.insert(lines_.params.begin(), {});
      t.warnings.push_back(fmt::format("{}:{}: the trace starts with event {} ({}), not MPI_Init: it is read as a fragment "
                                       "and MPI_Init is added before it",
                                       file_.name, first.line, first.id, opName(first.op)));
    }
    if (last.op != Op::Finalize) {
      t.events.push_back(bound(Op::Finalize, last.id + (first.op != Op::Init ? 2 : 1)));
      lines_.loops.emplace_back();
      lines_.params.emplace_back();
      t.warnings.push_back(fmt::format("{}:{}: the trace ends with event {} ({}), not MPI_Finalize: it is read as a "
                                       "fragment (or the file is truncated) and MPI_Finalize is added after it",
                                       file_.name, endLine, last.id, opName(last.op)));
    }
  }
};

}  // namespace

Trace readScalaTrace(const SourceFile& file) { return ScalaTraceParser(file).parse(); }

}  // namespace tracegen
