// Reader for ScalaTrace 2 global text traces (../shared/docs/scalatrace2-format.md).
//
// The file is a sequence of blank-line separated blocks: RANKS, EVENT, COMP/COMM statistics,
// LOOP levels and parameter lines. Everything is read into the trace model as it stands:
// peers stay offset-encoded (marked `relative`), MPI_ANY_SOURCE becomes kAnySource, histogram
// paths are interned call sites. The world size P is the size of the first block's ranklist
// (the MPI_Init event); every later ranklist must lie within [0, P).
#include "ir/Readers.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/TextLines.h"
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
    const Event& first = t.events.front();
    if (first.op != Op::Init || !(first.ranks == RankList::all(t.numRanks)))
      throw InputError(file_.name, first.line, "the first event must be MPI_Init on every rank");
    const Event& last = t.events.back();
    if (last.op != Op::Finalize) {
      const SourceLine& end = file_.lines.back();
      throw InputError(file_.name, end.number,
                       fmt::format("trace ends with event {} ({}), not MPI_Finalize: the file is truncated", last.id,
                                   opName(last.op)),
                       std::string(end.text));
    }
    bool us = t.hasTime(Phase::Compute, TimeUnit::Microseconds);
    bool kinst = t.hasTime(Phase::Compute, TimeUnit::KiloInstructions);
    t.origin = us && kinst ? "scalatrace2-tic" : kinst ? "scalatrace2-ti" : "scalatrace2-td";
    t.comms = standardCommunicators(t.numRanks);
    for (const auto& d : extendedDatatypes())
      if (usedTypes_.count(d.id)) t.datatypes.push_back(d);
    verifyStructure(t, file_.name);
    return std::move(trace_);
  }

 private:
  RankList parseRankList(TokenStream& ts) {
    std::int64_t count = ts.getInt("ranklist count");
    if (count < 0) ts.fail(fmt::format("ranklist count {} is negative", count));
    if (count == 0) ts.fail("empty ranklist");
    std::vector<RankTuple> tuples;
    for (std::int64_t i = 0; i < count; ++i) {
      std::int64_t neg = ts.getInt("ranklist dimension marker");
      if (neg >= 0 || neg < -16)
        ts.fail(fmt::format("ranklist section {} starts with {}, expected a negated dimension count (-1, -2, ...)", i + 1, neg),
                "a ranklist is `count` then, per section, `-depth start iters stride ...`");
      RankTuple t;
      t.start = ts.getInt("ranklist start");
      for (std::int64_t d = 0; d < -neg; ++d) {
        RankDim dim;
        dim.iters = ts.getInt("ranklist iteration count");
        dim.stride = ts.getInt("ranklist stride");
        if (dim.iters < 1) ts.fail(fmt::format("ranklist dimension with {} iterations", dim.iters));
        t.dims.push_back(dim);
      }
      tuples.push_back(std::move(t));
    }
    RankList list(std::move(tuples));
    Rank distinct = 0;
    list.forEach([&](Rank) { ++distinct; return true; });
    if (distinct != list.size()) ts.fail(fmt::format("ranklist {} names a rank more than once", list.pretty()));
    if (trace_.numRanks > 0) checkRange(ts, list);
    return list;
  }

  void checkRange(TokenStream& ts, const RankList& list) {
    if (*list.first() < 0 || *list.last() >= trace_.numRanks)
      ts.fail(fmt::format("ranklist {} names rank {} outside the trace's ranks 0..{}", list.pretty(),
                          *list.first() < 0 ? *list.first() : *list.last(), trace_.numRanks - 1));
  }

  std::vector<std::int64_t> parseValueList(TokenStream& ts, std::string_view what) {
    std::vector<std::int64_t> values;
    while (!ts.atEnd() && !ts.peek().punct) values.push_back(ts.getInt(what));
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

  Histogram parseHistogram(TokenStream& ts) {
    Histogram h;
    ts.expect("(");
    h.n = ts.getInt("histogram sample count");
    h.avg = ts.getReal("histogram average");
    h.minRank = ts.getInt("histogram min rank");
    h.min = ts.getReal("histogram minimum");
    h.maxRank = ts.getInt("histogram max rank");
    h.max = ts.getReal("histogram maximum");
    ts.expect(")");
    std::int64_t total = 0;
    while (!ts.atEnd()) {
      ts.expect("{");
      Bin b;
      b.start = ts.getReal("bin start");
      b.min = ts.getReal("bin minimum");
      b.avg = ts.getReal("bin average");
      b.max = ts.getReal("bin maximum");
      b.end = ts.getReal("bin end");
      b.freq = ts.getInt("bin frequency");
      ts.expect("}");
      if (b.freq < 0) ts.fail(fmt::format("bin with negative frequency {}", b.freq));
      total += b.freq;
      h.bins.push_back(b);
    }
    if (h.n < 0) ts.fail(fmt::format("histogram with {} samples", h.n));
    if (h.bins.empty()) ts.fail("histogram without bins");
    if (total != h.n)
      ts.fail(fmt::format("histogram bins hold {} samples but its header says {}", total, h.n));
    return h;
  }

  void parseStat(TokenStream& ts, Event& e) {
    Token phase = ts.get();
    Token tag = ts.get();  // "4b-0:"
    std::string_view s = tag.text;
    std::size_t dash = s.find('-');
    if (dash == std::string_view::npos || s.back() != ':')
      ts.fail(fmt::format("malformed statistic tag '{}', expected CODE-PATH:", s));
    std::string_view code = s.substr(0, dash);
    TimeStat st;
    st.phase = phase.text == "COMP" ? Phase::Compute : Phase::Mpi;
    if (code == "4b") st.unit = TimeUnit::Microseconds;
    else if (code == "4c") st.unit = TimeUnit::KiloInstructions;
    else ts.fail(fmt::format("unknown statistic code '{}'", code), "4b is elapsed time, 4c retired instructions");
    if (st.phase == Phase::Mpi && st.unit != TimeUnit::Microseconds) ts.fail("COMM statistics must be times (4b)");
    std::string_view sig = ts.get().text;
    st.after = sig == "NULL" ? kNoSite : trace_.internSite(sig);
    st.hist = parseHistogram(ts);
    e.stats.push_back(std::move(st));
  }

  void parseLoop(TokenStream& ts, Event& e, std::string_view head) {
    std::int64_t level = 0;
    if (!parseInt(head.substr(4, head.size() - 5), level) || head.back() != ':')
      ts.fail(fmt::format("malformed loop tag '{}', expected LOOPk:", head));
    if (level != static_cast<std::int64_t>(e.loops.size()))
      ts.fail(fmt::format("loop level {} follows level {}", level, static_cast<std::int64_t>(e.loops.size()) - 1));
    LoopLevel lv;
    ts.expect("iter:");
    while (ts.peekIs("(")) lv.iter.push_back(parseGroup(ts, "loop iteration count"));
    ts.expect("mem:");
    while (!ts.atEnd()) lv.mem.push_back(parseGroup(ts, "loop body length"));
    if (lv.iter.empty() || lv.mem.empty()) ts.fail("loop without iteration or body groups");
    for (const auto* groups : {&lv.iter, &lv.mem})
      for (const auto& g : *groups)
        if (!g.ranks.isSubsetOf(e.ranks))
          ts.fail(fmt::format("loop group {} holds ranks that do not execute the event ({})", g.ranks.pretty(), e.ranks.pretty()));
    e.loops.push_back(std::move(lv));
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
      parseValueList(probe, "value");
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
    ParamValues& pv = params[p];
    pv.param = p;
    pv.relative = isPeerParam(p);
    for (const auto& other : pv.groups)
      if (other.ranks.intersects(g.ranks))
        ts.fail(fmt::format("parameter {:x} gives ranks {} two value lists", id, RankList::intersect(other.ranks, g.ranks).pretty()));
    pv.groups.push_back(std::move(g));
  }

  void parseBlock(const std::vector<const SourceLine*>& lines, std::size_t index) {
    Event e;
    e.line = lines[0]->number;
    {
      TokenStream ts(file_, *lines[0]);
      if (!ts.peekIs("RANKS:")) ts.fail("a block must start with 'RANKS:'", "blocks are separated by one empty line");
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
      if (head.text.substr(0, 5) != "EVENT" || head.text.back() != ':' ||
          !parseInt(head.text.substr(5, head.text.size() - 6), seq))
        ts.fail("the second line of a block must be 'EVENTn: opcode signature'");
      if (seq != static_cast<std::int64_t>(index))
        ts.fail(fmt::format("event number {} where {} was expected (events are numbered in file order)", seq, index));
      e.id = seq;
      std::int64_t code = ts.getInt("operation code");
      auto op = opFromScalaTraceCode(static_cast<int>(code));
      if (!op) {
        if (code >= 1154 && code <= 1166)
          ts.fail(fmt::format("operation code {} is POSIX or MPI-IO, which tracegen does not model", code));
        ts.fail(fmt::format("unknown operation code {}", code), "MPI operation codes are 1000-1153 (§6 of the format)");
      }
      e.op = *op;
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
      if (covered != e.ranks.size())
        throw InputError(file_.name, e.line,
                         fmt::format("event {}: parameter '{}' has values for {} of its {} ranks", e.id, paramName(p), covered,
                                     e.ranks.size()));
      e.params.push_back(std::move(pv));
    }
    trace_.events.push_back(std::move(e));
  }

  const SourceFile& file_;
  Trace trace_;
  std::set<std::int64_t> usedTypes_;
};

}  // namespace

Trace readScalaTrace(const SourceFile& file) { return ScalaTraceParser(file).parse(); }

}  // namespace tracegen
