// The C+MPI backend: renders a Program (gen/Program.h) as one self-contained C11 file.
//
// The generated program makes the application's MPI calls themselves, rank by rank, with the
// traced parameters, and spins for the traced computation before each call. All C text lives
// in templates/c/ (the skeleton, the runtime in runtime/, one snippet per kind of statement and
// MPI call, and the few expression forms); this file decides what goes into them: which values,
// which rank conditions, how large the runtime's tables must be, and the indentation.
//
// Values. Parameters are expressions over the rank and the loop state (Expr): constants, peers
// relative to the rank (`(rank + 1) % nranks`), choices by rank group (a `?:` chain over rank
// conditions; at fixed scale, among more than kMaxRankChoices groups of plain values, a table
// indexed by the rank, and for a vector parameter one table whose rows are the ranks), cycles
// over a statement's executions (a table indexed by the statement's execution counter) and
// first-iteration choices (a test of the loop variable). Element counts go through msg_count()
// (--msg-scale), computation through compute() (--compute-scale). Peers and roots are world
// ranks in the model; on another communicator they are translated at run time by comm_rank().
// Requests are named by recency as in the trace (recent_request(k), k = 10000 - offset).
//
// The helpers (compute, msg_count, the request ring, the tables of communicators, ...) are the
// runtime, real C in templates/c/runtime/ (gen/CRuntime.h), the same for every trace: the
// benchmark starts with its text, or includes its header (--runtime=separate), and tells it the
// sizes of its tables in a struct tracegen_trace; the uses_ flags say which helpers the calls
// use, for the comment above that struct.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <functional>
#include <kainjow/mustache.hpp>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "gen/Backends.h"
#include "gen/RankSetText.h"
#include "gen/CRuntime.h"
#include "gen/GridClasses.h"
#include "gen/ProgramWalker.h"
#include "ir/Limits.h"
#include "passes/RankRanges.h"

namespace tracegen::gen {

namespace {

namespace mus = kainjow::mustache;

// Predefined datatypes every MPI-3 library has in C; any other name of the trace becomes a
// contiguous byte type of the traced size.
const std::set<std::string, std::less<>>& predefinedTypes() {
  static const std::set<std::string, std::less<>> kTypes = {
      "MPI_CHAR", "MPI_SHORT", "MPI_INT", "MPI_LONG", "MPI_LONG_LONG_INT", "MPI_LONG_LONG",
      "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR", "MPI_UNSIGNED_SHORT", "MPI_UNSIGNED", "MPI_UNSIGNED_LONG",
      "MPI_UNSIGNED_LONG_LONG", "MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_WCHAR", "MPI_C_BOOL",
      "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T", "MPI_UINT8_T", "MPI_UINT16_T",
      "MPI_UINT32_T", "MPI_UINT64_T", "MPI_C_COMPLEX", "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX",
      "MPI_C_LONG_DOUBLE_COMPLEX", "MPI_BYTE", "MPI_PACKED", "MPI_AINT", "MPI_OFFSET", "MPI_COUNT",
      "MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT", "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT",
      "MPI_CHARACTER", "MPI_INTEGER", "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_COMPLEX", "MPI_DOUBLE_COMPLEX",
      "MPI_LOGICAL", "MPI_2REAL", "MPI_2DOUBLE_PRECISION", "MPI_2INTEGER",
  };
  return kTypes;
}

mus::data flag(bool on) { return on ? mus::data(mus::data::type::bool_true) : mus::data(mus::data::type::bool_false); }

// Breaks a statement longer than `width` columns after the commas of its first bracketed list
// (a call's arguments, an initializer's elements), continuation lines aligned with the first
// element; lines without such a list stay as they are, and so do lines that start with a
// comment: comments, and the rows of a table by rank (`/* rank 5 */ { 240, 147, ... },`),
// which stay one line per rank so that the table grows by a line per rank.
std::string wrapLine(std::string_view line, std::size_t width) {
  if (line.size() <= width) return std::string(line);
  const std::size_t indentWidth = line.find_first_not_of(' ');
  if (indentWidth == std::string_view::npos || line.compare(indentWidth, 2, "/*") == 0) return std::string(line);
  const std::size_t open = line.find_first_of("({", indentWidth);
  if (open == std::string_view::npos) return std::string(line);
  std::vector<std::size_t> cuts;  // positions just after a top-level comma of the list
  int depth = 0;
  for (std::size_t i = open; i < line.size(); ++i) {
    const char ch = line[i];
    if (ch == '(' || ch == '{' || ch == '[') ++depth;
    if (ch == ')' || ch == '}' || ch == ']') {
      if (--depth == 0) break;
    }
    if (ch == ',' && depth == 1) cuts.push_back(i + 1);
  }
  if (cuts.empty()) return std::string(line);
  std::size_t column = open + (line[open] == '{' ? 2 : 1);
  if (column > width / 2) column = indentWidth + 4;
  const std::string pad(column, ' ');
  std::string out;
  std::size_t start = 0, lineStart = 0;  // piece start; start of the current output line
  std::size_t lineLen = 0;
  cuts.push_back(line.size());
  for (std::size_t cut : cuts) {
    std::string_view piece = line.substr(start, cut - start);
    while (start > 0 && !piece.empty() && piece.front() == ' ') piece.remove_prefix(1);
    if (piece.empty()) {
      start = cut;
      continue;
    }
    const std::size_t add = (start == lineStart ? 0 : 1) + piece.size();
    if (start > lineStart && lineLen + add > width) {
      out += '\n' + pad;
      lineLen = pad.size();
      lineStart = start;
    } else if (start > lineStart) {
      out += ' ';
      ++lineLen;
    }
    out += piece;
    lineLen += piece.size();
    start = cut;
  }
  return out;
}

std::string wrapLines(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    out += wrapLine(std::string_view(text).substr(pos, end - pos), width);
    if (end < text.size()) out += '\n';
    pos = end + 1;
  }
  return out;
}

// `(a || b)` -> `a || b` where the context supplies the parentheses (a guard's condition, the
// only argument of compute(), msg_count(), comm_of(), group_of()).
std::string withoutParens(const std::string& s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')') return s;
  int depth = 0;
  for (std::size_t i = 0; i + 1 < s.size(); ++i) {
    if (s[i] == '(') ++depth;
    if (s[i] == ')' && --depth == 0) return s;  // the first parenthesis closes early
  }
  return s.substr(1, s.size() - 2);
}

std::string ensureNewline(std::string s) {
  if (!s.empty() && s.back() != '\n') s += '\n';
  return s;
}

// Text that goes into a C comment must not close it.
std::string commentSafe(std::string_view s) {
  std::string out(s);
  for (std::size_t p; (p = out.find("*/")) != std::string::npos;) out.replace(p, 2, "* /");
  return out;
}

std::string cStringBody(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\\' || ch == '"') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) {
      out += fmt::format("\\{:03o}", static_cast<unsigned char>(ch));
      continue;
    }
    out += ch;
  }
  return out;
}

// ScalaTrace's call sites are chains of return addresses (`46c902_46ccd7_46ce42_46cf63_457e56`),
// innermost first; the innermost frames and the outermost one tell calls apart.
std::string shortSite(std::string_view site) {
  constexpr std::size_t kLong = 28;
  if (site.size() <= kLong) return std::string(site);
  std::vector<std::string_view> frames;
  for (std::size_t pos = 0;;) {
    std::size_t end = site.find('_', pos);
    frames.push_back(site.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  if (frames.size() <= 3) return std::string(site);
  return fmt::format("{}_{}...{}", frames[0], frames[1], frames.back());
}

std::vector<std::string> wrapWords(std::string_view text, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && text[pos] == ' ') ++pos;
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    if (end == pos) break;
    std::string_view word = text.substr(pos, end - pos);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    pos = end;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::int64_t asInt(double v) { return static_cast<std::int64_t>(std::llround(v)); }

// Microseconds to the nanosecond, without trailing zeros.
std::string formatUs(double us) {
  std::string s = fmt::format("{:.3f}", us);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

bool hasByExecution(const Expr& e) {
  // A progression over executions and a relation's peer per step (scale-free programs) read the
  // execution counter too.
  if (e.kind == Expr::Kind::ByExecution || e.kind == Expr::Kind::Progression || e.kind == Expr::Kind::ProgressionPeer)
    return true;
  if (e.kind == Expr::Kind::RelationPeer && !e.perExecutionInvariant()) return true;
  return std::any_of(e.children.begin(), e.children.end(), hasByExecution);
}

// `e` with every constant multiplied by `factor` (times; peers and counts are never scaled).
Expr scaledConsts(Expr e, double factor) {
  if (e.kind == Expr::Kind::Const || e.kind == Expr::Kind::ByCall) e.value *= factor;  // a time by call: its mean too
  for (auto& c : e.children) c = scaledConsts(std::move(c), factor);
  return e;
}

// A count per execution with its long cycles of constants replaced by their mean, rounded: a
// polling test's failed polls, whose recorded lists (one value per success, hundreds long in
// HPC Challenge) would be tables of their own, and whose exact sequence is timing anyway.
// Cycles of up to `shortCycle` values stay exact.
Expr longCyclesAsMeans(Expr e, std::size_t shortCycle) {
  const bool constants = std::all_of(e.children.begin(), e.children.end(), [](const Expr& c) { return c.isConst(); });
  if (e.kind == Expr::Kind::ByExecution && e.children.size() > shortCycle && constants) {
    double sum = 0;
    for (const auto& c : e.children) sum += c.value;
    return Expr::constant(std::round(sum / static_cast<double>(e.children.size())));
  }
  for (auto& c : e.children) c = longCyclesAsMeans(std::move(c), shortCycle);
  return e;
}

// Every value a constant can give: a constant progression's values are its positions'.
template <typename F>
void forEachConst(const Expr& e, F&& f) {
  if (e.kind == Expr::Kind::Const) f(e.value);
  if (e.constantProgression()) {
    for (std::int64_t k = 0; k < e.progressionLength(); ++k) f(e.progressionValue(k));
    return;
  }
  for (const auto& c : e.children) forEachConst(c, f);
}

double maxConst(const Expr& e) {
  double m = 0;
  forEachConst(e, [&](double v) { m = std::max(m, v); });
  return m;
}

// How constants of one kind of value are written, and the element type of a table of them.
struct Style {
  std::string tableType;
  std::function<std::string(double)> leaf;
  bool constant = true;  // leaves are constant expressions (a table of them can be static)
};

// A table declared by name before the call: a cycle of constants over a statement's
// executions, or the values of a parameter by rank (`n` ranks). A vector parameter's table by
// rank has a row per rank (`rows`, each `columns` values), the row of rank r being the vector
// that rank passes.
struct Table {
  std::string qualifier, type, name, values;
  std::size_t n = 0;
  std::size_t columns = 0;            // a table of rows: the length of each
  std::vector<std::string> rows;      // a table of rows: each row's values, by rank
  bool scalar = false;                // one variable, `values` its initial value (a counter)
};

// A choice by rank among more groups than this, of values no formula explains (constants, not
// peers relative to the rank, not cycles), is a table indexed by rank rather than a `?:` chain:
// a chain grows by a condition per group, and per element of a vector parameter, so a
// recorded MPI_Alltoallv whose counts differ for every pair of ranks gave P conditions per
// count (P^2 per call); the table is P values per parameter, or P rows for a vector. Up to this
// many groups the chain spells the rank sets (`rank % 2 == 1 ? ... : ...`), which says more.
constexpr std::size_t kMaxRankChoices = 4;

// A value per rank and nothing else: a constant, or a choice by rank among such values.
bool plainPerRank(const Expr& e) {
  if (e.kind == Expr::Kind::Const) return true;
  return e.kind == Expr::Kind::ByRank &&
         std::all_of(e.children.begin(), e.children.end(), [](const Expr& c) { return plainPerRank(c); });
}

// A choice by rank that is written as a table (kMaxRankChoices).
bool tabulatedByRank(const Expr& e) {
  return e.kind == Expr::Kind::ByRank && e.groups.size() > kMaxRankChoices && plainPerRank(e);
}

// Vectors up to this long read best spelled out (`{ 0, 1, 3, 6 }`); longer constant ones are a
// loop (one value for every element) or pack_displs (displacements laid out one after another).
constexpr std::size_t kShortVector = 8;

// A value per rank whose values may drift over the calls (Expr::ByCall of constants).
bool perRankByCall(const Expr& e) {
  if (e.kind == Expr::Kind::Const) return true;
  if (e.kind == Expr::Kind::ByCall)
    return std::all_of(e.children.begin(), e.children.end(), [](const Expr& c) { return c.kind == Expr::Kind::Const; });
  return e.kind == Expr::Kind::ByRank &&
         std::all_of(e.children.begin(), e.children.end(), [](const Expr& c) { return perRankByCall(c); });
}

// A choice by rank among many groups (kMaxRankChoices) some of whose times drift over calls:
// a table of each rank's ranges.
bool tabulatedByRankByCall(const Expr& e) {
  return e.kind == Expr::Kind::ByRank && e.groups.size() > kMaxRankChoices && !plainPerRank(e) && perRankByCall(e);
}

// The leaf (a constant or a time by call) of a perRankByCall expression for one rank.
const Expr* leafOfRank(const Expr& e, Rank rank) {
  if (e.kind != Expr::Kind::ByRank) return &e;
  for (std::size_t i = 0; i < e.groups.size() && i < e.children.size(); ++i)
    if (e.groups[i].contains(rank)) return leafOfRank(e.children[i], rank);
  return nullptr;
}

// The value of a plainPerRank expression for one rank; none for a rank outside its groups.
std::optional<double> valueOfRank(const Expr& e, Rank rank) {
  if (e.kind == Expr::Kind::Const) return e.value;
  for (std::size_t i = 0; i < e.groups.size() && i < e.children.size(); ++i)
    if (e.groups[i].contains(rank)) return valueOfRank(e.children[i], rank);
  return std::nullopt;
}

// Where an expression is rendered: the statement's execution counter, and the tables the
// statement declares (none for loops: their cycles stay inline).
struct Scope {
  std::string counter;
  std::string name;  // of the parameter, names its table
  std::vector<Table>* tables = nullptr;
};

constexpr std::size_t kWidth = 100;  // columns of the generated statements

// The C writer: the program walker's hooks (gen/ProgramWalker.h) write the measured region;
// render() assembles MPI_Init, that region, MPI_Finalize and the skeleton.
class CWriter : public ProgramWalker {
 public:
  CWriter(const Program& p, const GenOptions& o) : ProgramWalker(p, o, "c", true) {
    for (const auto& d : p.datatypes) datatypes_[d.id] = &d;
    findLocalRequests();
    buffersMaySwap_ = !hasPendingSends(p.body);
  }
  using ProgramWalker::render;  // templates; render() below writes the program

  std::string render() {
    const auto& body = program_.body;
    // MPI_Init comes first and MPI_Finalize last, for every rank; the benchmark sets itself up
    // after the one and reports before the other.
    std::size_t first = 0, last = body.size();
    while (first < body.size() && isCall(body[first], OpKind::Init)) ++first;
    while (last > first && isCall(body[last - 1], OpKind::Finalize)) --last;
    // Named at the statement that takes MPI_Init's or MPI_Finalize's place.
    auto lineOf = [](const Stmt& s) {
      const Event* e = s.kind == Stmt::Kind::Loop ? s.loop.head : s.call.event;
      return e ? e->line : 0;
    };
    if (first == 0)
      throw InputError(program_.source, body.empty() ? 0 : lineOf(body.front()), "the program does not start with MPI_Init",
                       {}, "every rank's first call must be MPI_Init (or MPI_Init_thread)");
    if (last == body.size())
      throw InputError(program_.source, lineOf(body.back()), "the program does not end with MPI_Finalize", {},
                       "every rank's last call must be MPI_Finalize: a trace cut short cannot be generated");

    const std::string init = indent(renderInit(body, first), 2);
    // A long program is walked in parts, each a function of its own that main() calls in turn:
    // compilers take far longer over one long function (hpcc with N=3000: 13,265 events, one
    // main() of 286,828 lines that gcc -O2 had not compiled after 12 minutes).
    std::string measured, parts;
    const std::vector<std::size_t> cuts = partCuts(body, first, last);
    if (cuts.size() <= 2) {
      measured = indent(walked(body, first, last, all()), 2);
    } else {
      const std::size_t count = cuts.size() - 1;
      for (std::size_t k = 0; k < count; ++k) {
        const auto [from, to] = eventIds(body, cuts[k], cuts[k + 1]);
        parts += fmt::format("/* The measured region, part {} of {}: trace events E{} to E{}. */\n"
                             "static void measured_part_{}(void)\n{{\n{}}}\n\n",
                             k + 1, count, from, to, k + 1, indent(walked(body, cuts[k], cuts[k + 1], all()), 2));
        measured += fmt::format("  measured_part_{}();\n", k + 1);
      }
    }
    std::string finalize;
    std::vector<Stmt> finals(body.begin() + static_cast<std::ptrdiff_t>(last), body.end());
    for (const auto& s : finals) {
      // The computation before MPI_Finalize belongs to the measured region, the call after it.
      if (!s.call.computeUs.isConst() || s.call.computeUs.value != 0) {
        forEachConst(s.call.computeUs, [&](double us) {
          requireEmittableTime(us, program_.source, s.call.event ? s.call.event->line : 0,
                               fmt::format("{}: compute time", label(s.call)));
        });
        uses_.compute = true;
        mus::data d;
        d.set("label", label(s.call));
        // MPI_Finalize runs once: a value that cycles over executions takes its first. Values
        // by rank among many groups are a table (kMaxRankChoices) declared in a block of its own.
        std::vector<Table> tables;
        peerRanks_ = s.ranks;
        d.set("compute", withoutParens(expr(s.call.computeUs, computeStyle(), Scope{"0", "compute_us", &tables})));
        d.set("declarations", declarations(tables));
        d.set("has_tables", flag(!tables.empty()));
        measured += indent(guarded(s.ranks, all(), ensureNewline(render("finalize_compute", d))), 2);
      }
      mus::data inner;
      inner.set("call", render("call/finalize", {}));
      mus::data d;
      d.set("label", label(s.call));
      d.set("inner", ensureNewline(render("statement", inner)));
      finalize += indent(guarded(s.ranks, all(), ensureNewline(render("call", d))), 2);
    }
    return skeleton(init, measured, finalize, parts);
  }

 private:
  // Where the measured statements [first, last) of the body split into parts (partCuts: the
  // boundaries, first and last included; just those two for a program of one part). A part
  // holds about kCallsPerPart call statements, and never cuts a run of requests kept in a
  // local array (findLocalRequests): the array is declared where its run begins. Scale-free
  // programs stay whole (short by nature).
  static constexpr std::size_t kCallsPerPart = 250;
  static std::size_t callCount(const Stmt& s) {
    if (s.kind != Stmt::Kind::Loop) return 1;
    std::size_t n = 0;
    for (const Stmt& b : s.loop.body) n += callCount(b);
    return n;
  }
  void localArraysOf(const Stmt& s, std::set<int>& out) const {
    if (s.kind == Stmt::Kind::Loop) {
      for (const Stmt& b : s.loop.body) localArraysOf(b, out);
    } else if (auto it = localRequests_.find(&s.call); it != localRequests_.end()) {
      out.insert(it->second.array);
    }
  }
  std::vector<std::size_t> partCuts(const std::vector<Stmt>& body, std::size_t first, std::size_t last) const {
    std::size_t total = 0;
    for (std::size_t i = first; i < last; ++i) total += callCount(body[i]);
    if (program_.scaleFree || total <= 2 * kCallsPerPart) return {first, last};
    // The statements each local array's run spans.
    std::map<int, std::pair<std::size_t, std::size_t>> spans;
    for (std::size_t i = first; i < last; ++i) {
      std::set<int> arrays;
      localArraysOf(body[i], arrays);
      for (int a : arrays) {
        auto [it, fresh] = spans.try_emplace(a, i, i);
        if (!fresh) it->second.second = i;
      }
    }
    auto cutsRun = [&](std::size_t b) {
      return std::any_of(spans.begin(), spans.end(), [b](const auto& sp) { return sp.second.first < b && b <= sp.second.second; });
    };
    std::vector<std::size_t> cuts{first};
    std::size_t calls = 0;
    for (std::size_t i = first; i < last; ++i) {
      if (calls >= kCallsPerPart && !cutsRun(i)) {
        cuts.push_back(i);
        calls = 0;
      }
      calls += callCount(body[i]);
    }
    cuts.push_back(last);
    return cuts;
  }
  // The trace event ids of the first and last call statements of [from, to).
  static std::pair<std::int64_t, std::int64_t> eventIds(const std::vector<Stmt>& body, std::size_t from, std::size_t to) {
    std::int64_t lo = -1, hi = -1;
    std::function<void(const Stmt&)> visit = [&](const Stmt& s) {
      if (s.kind == Stmt::Kind::Loop) {
        for (const Stmt& b : s.loop.body) visit(b);
      } else if (s.call.event) {
        if (lo < 0) lo = s.call.event->id;
        hi = s.call.event->id;
      }
    };
    for (std::size_t i = from; i < to; ++i) visit(body[i]);
    return {lo, hi};
  }

  struct Uses {
    bool compute = false, counts = false, displs = false, status = false;
    bool computeSending = false, computeSendingBlocks = false;  // compute_sending(), _blocks()
    bool swapBuffers = false;  // calls that send what receives wrote (swap_buffers)
    std::int64_t statuses = 0;
    bool newRequest = false, recentRequest = false, requestLists = false;
    bool persistent = false;  // MPI_Start, MPI_Startall
    bool messages = false;    // matched probes
    bool requestArrays = false;  // count arrays of nonblocking vector collectives (request_ints)
    bool byteDispls = false;     // MPI_Alltoallw's displacements in bytes (pack_byte_displs)
    bool recvSlices = false;     // nonblocking receives write recv_slice(), one slice each
    bool boundSlices = false;    // MPI_Irecv's slices are bound to its request (recv_slice_bound)
    bool aintDispls = false;     // MPI_(I)neighbor_alltoallw's MPI_Aint displacements (pack_aint_displs)
    bool requestAints = false;   // MPI_Ineighbor_alltoallw's, kept with the request (request_aints)
    std::int64_t ring = 1;
    bool newComm = false, newCommAt = false, commSlot = false, commOf = false, commRank = false;
    std::int64_t maxCommId = 999;
    std::int64_t maxUserOp = 999;  // highest user-defined reduction operator used
    bool newGroup = false, groupSlot = false, groupOf = false;
    std::int64_t maxGroupId = 999;
    bool bsend = false;
    bool pollIdle = false;         // polling tests make the application's failed polls (poll_idle)
    bool windows = false;          // one-sided communication
    bool winCreate = false, winAllocate = false, winFree = false;
    std::int64_t maxWinId = 999;
    bool files = false;  // MPI-IO
    std::int64_t maxFileId = 999;
    std::int64_t largestBytes = 0;
    std::map<std::int64_t, const Datatype*> derived;  // by id
    bool scaleHelpers = false;  // scale-free: iroot, ipow, ilog2, pow_real, log2_real
    bool gridRank = false;      // scale-free: grid_rank() for peers across a periodic edge
  };

  static bool isCall(const Stmt& s, OpKind k) { return s.kind == Stmt::Kind::Call && opInfo(s.call.op).kind == k; }
  RankList all() const { return RankList::all(program_.numRanks); }

  // --- statements: the walker's hooks --------------------------------------------------

  std::string_view backendName() const override { return "C"; }

  // The text of statements, per body being walked (the measured region, each loop body): the
  // runs done, the run being written (statements with the same ranks share one condition).
  struct Frame {
    std::string text, run;
    bool firstRun = true, lastLoop = false;
    std::size_t statements = 0;
  };
  std::vector<Frame> frames_;

  // Statements [from, to) of a body whose ranks are all within `outer`.
  std::string walked(const std::vector<Stmt>& stmts, std::size_t from, std::size_t to, const RankList& outer) {
    frames_.emplace_back();
    walk(stmts, from, to, outer);
    std::string text = std::move(frames_.back().text);
    frames_.pop_back();
    return text;
  }

  void beginGuard(const RankList&, const RankList&, bool firstRun) override {
    Frame& f = frames_.back();
    f.run.clear();
    f.firstRun = firstRun;
    f.lastLoop = false;
    f.statements = 0;
  }

  void endGuard(const RankList& ranks, const RankList& outer) override {
    Frame& f = frames_.back();
    if (!f.firstRun) f.text += '\n';
    f.text += guarded(ranks, outer, f.run);
  }

  // A statement of the current run; loops are set off by blank lines.
  void emit(const std::string& text, bool isLoop) {
    Frame& f = frames_.back();
    if (f.statements > 0 && (isLoop || f.lastLoop)) f.run += '\n';
    f.run += text;
    ++f.statements;
    f.lastLoop = isLoop;
  }

  std::string guarded(const RankList& ranks, const RankList& outer, const std::string& text) {
    if (outer.isSubsetOf(ranks)) return text;
    mus::data d;
    d.set("cond", withoutParens(rankCondition(ranks)));
    d.set("body", indent(text, 2));
    return ensureNewline(render("guard", d));
  }

  std::string rankCondition(const RankList& ranks) {
    auto [pos, inserted] = rankConditions_.try_emplace(ranks.str());
    if (inserted && program_.scaleFree) {
      pos->second = classCondition(ranks);
    } else if (inserted) {
      auto it = program_.rankShapes.find(pos->first);
      pos->second = cRankCondition(it != program_.rankShapes.end() ? it->second : rankShape(ranks, program_.numRanks));
    }
    return pos->second;
  }

  std::string loopVar(int id) const { return fmt::format("i{}", id); }

  void beginLoop(const Stmt&, const RankList&) override { frames_.emplace_back(); }

  void endLoop(const Stmt& s, const RankList&) override {
    const std::string bodyText = std::move(frames_.back().text);
    frames_.pop_back();
    const LoopStmt& l = s.loop;
    mus::data d;
    const bool cycles = hasByExecution(l.iterations);
    const std::string counter = cycles ? "entries" : "";
    std::string trips = expr(l.iterations, intStyle(), Scope{counter, "trips", nullptr});
    std::string what;
    if (l.iterations.isConst()) {
      what = fmt::format("{} iterations", asInt(l.iterations.value));
    } else if (l.iterations.kind == Expr::Kind::ByExecution &&
               std::all_of(l.iterations.children.begin(), l.iterations.children.end(),
                           [](const Expr& c) { return c.isConst(); })) {
      std::vector<std::int64_t> counts;
      for (const auto& c : l.iterations.children) counts.push_back(asInt(c.value));
      what = fmt::format("{} iterations on successive entries", fmt::join(counts, ", "));
    } else if (l.iterations.constantProgression()) {
      what = fmt::format("{}, {}, ..., {} iterations on successive entries", asInt(l.iterations.progressionValue(0)),
                         asInt(l.iterations.progressionValue(1)),
                         asInt(l.iterations.progressionValue(l.iterations.progressionLength() - 1)));
    } else if (l.iterations.kind == Expr::Kind::Formula) {
      what = fmt::format("{} iterations", trips);
    } else {
      what = "a number of iterations that differs by rank";
    }
    std::string head;
    if (l.head) head = fmt::format(", headed by {}", eventName(*l.head));
    const std::string loopLabel = fmt::format("loop {}: {}{}", l.id, what, head);
    d.set("var", loopVar(l.id));
    if (l.iterations.isConst() || l.iterations.kind == Expr::Kind::Formula) {  // the same at every entry
      d.set("limit", trips);
    } else {
      // Evaluated once per entry, before the counter moves on.
      d.set("trips_var", fmt::format("trips{}", l.id));
      d.set("trips", trips);
      d.set("limit", fmt::format("trips{}", l.id));
    }
    d.set("body", indent(bodyText, 2));
    if (cycles) d.set("counter", counter);
    const std::string forLoop = ensureNewline(render("for", d));
    mus::data outer;
    outer.set("label", loopLabel);
    if (cycles) outer.set("counter", counter);
    outer.set("loop", cycles ? indent(forLoop, 2) : forLoop);
    emit(ensureNewline(render("loop", outer)), true);
  }

  std::string eventName(const Event& e) const {
    std::string s = fmt::format("E{} {}", e.id, opName(e.op));
    const std::vector<std::string> sites = callSites(&e);
    const std::vector<std::string> named = siteDescriptions(&e);
    for (std::size_t i = 0; i < sites.size(); ++i)
      s += named[i].empty() ? (i == 0 ? " at " : ", ") + shortSite(sites[i]) : (i == 0 ? " " : ", ") + named[i];
    return commentSafe(s);
  }

  std::string label(const CallStmt& c) const {
    return c.event ? eventName(*c.event) : std::string(opName(c.op));
  }

  std::string renderInit(const std::vector<Stmt>& body, std::size_t count) {
    std::vector<std::string> labels;
    bool thread = false;
    for (std::size_t i = 0; i < count; ++i) {
      thread = thread || body[i].call.op == Op::InitThread;
      std::string l = label(body[i].call);
      if (!(body[i].ranks == all())) l += fmt::format(" (ranks {})", body[i].ranks.pretty());
      labels.push_back(l);
    }
    // Before MPI_Init no rank knows its rank: one call stands for the traced ones.
    mus::data d;
    d.set("label", fmt::format("{}", fmt::join(labels, "; ")));
    mus::data inner;
    inner.set("call", render(thread ? "call/init_thread" : "call/init", {}));
    d.set("inner", ensureNewline(render("statement", inner)));
    return ensureNewline(render("call", d));
  }

  // --- calls -------------------------------------------------------------------------------

  struct CallCtx {
    const CallStmt& c;
    std::string counter;
    std::vector<Table>* tables;
  };
  static Scope at(const CallCtx& x, std::string name) { return Scope{x.counter, std::move(name), x.tables}; }

  const Expr& need(const CallStmt& c, Param p) const {
    if (const Expr* e = param(c, p)) return *e;
    throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
  }

  // The call statement being written: its execution counter (if a value cycles), the tables it
  // declares, and the statement template's data (computation, call).
  struct Current {
    std::string counter;
    std::vector<Table> tables;
    mus::data inner;
    std::string pollCompute;  // a polling test's computation per poll (see pollsPerExecution)
    std::string compute;      // the computation before the call (compute()'s argument)
    // The count and datatype of the call's message (message()), and, for a call that sends them
    // from send_buf, the arguments compute_sending() takes (see sendsMessage()).
    std::string count, datatype, comm;
    std::string sending;
    bool sendingBlocks = false;  // one message per member of the communicator (MPI_Alltoall)
  };
  std::unique_ptr<Current> cur_;
  CallCtx ctx(const CallStmt& c) { return CallCtx{c, cur_->counter, &cur_->tables}; }
  void setCall(const std::string& text) {
    cur_->inner.set("call", text);
    noteRecvSlice(text);
  }

  // Receives pending at once must not share memory (MPI forbids a receive buffer overlapping
  // another pending operation's): the nonblocking receives' templates (MPI_Irecv, MPI_Imrecv,
  // MPI_Recv_init, the nonblocking collectives) write recv_slice(), which cycles over
  // `recv_slices` slices. A nonblocking receive is pending only while its request is in the
  // ring, so as many slices as the ring has slots keep every pending receive apart.
  void noteRecvSlice(const std::string& text) {
    if (text.find("recv_slice()") != std::string::npos) uses_.recvSlices = true;
    if (text.find("recv_slice_bound()") != std::string::npos) uses_.recvSlices = uses_.boundSlices = true;
  }

  void beginCall(const CallStmt& c, const RankList& ranks) override {
    peerRanks_ = ranks;  // peers are spelled for the ranks that execute the call
    bool cycles = hasByExecution(c.computeUs);
    for (const auto& [p, e] : c.params) cycles = cycles || hasByExecution(e);
    for (const auto& [p, v] : c.vectors)
      for (const auto& e : v) cycles = cycles || hasByExecution(e);
    cur_ = std::make_unique<Current>();
    // Declared in the statement's own block: the executions of this statement by the rank.
    cur_->counter = cycles ? "calls" : "";
    noteMessage(c);
  }

  void compute(const CallStmt& c, const RankList&) override {
    if (c.computeUs.isConst() && c.computeUs.value == 0) return;
    forEachConst(c.computeUs, [&](double us) {
      requireEmittableTime(us, program_.source, c.event ? c.event->line : 0,
                           fmt::format("{}: compute time", label(c)));
    });
    uses_.compute = true;
    const CallCtx x = ctx(c);
    // A test that polled: the recorded computation before it spans all its polls (the failed
    // ones are folded into the success, docs/recording.md "Failed polls"), and much of it is
    // the polling loop waiting for a message. Replayed whole before the first poll, that wait
    // would become computation on top of the benchmark's own wait; so it is spread over the
    // polls instead, one share before each, and the benchmark polls as long as its message
    // takes: the application's polling loop, paced as the application paced it.
    if (const double polls = pollsPerExecution(c); polls > 1) {
      // Its share is spent per poll, which a counter of calls would count: a time that drifts
      // over the calls takes its mean here.
      cur_->pollCompute =
          withoutParens(expr(scaledConsts(c.computeUs.withoutDrift(), 1 / polls), computeStyle(), at(x, "compute_us")));
      return;
    }
    cur_->compute = withoutParens(expr(c.computeUs, computeStyle(), at(x, "compute_us")));
  }

  // Calls that send what the rank's receives wrote (`fromrecv`) swap send_buf and recv_buf
  // first (swap_buffers(), templates/c/runtime), unless a transfer may be pending then: a
  // pending send (or one-sided transfer, or nonblocking collective) may read send_buf, which
  // the swap makes the buffer blocking receives write. Such programs keep their buffers.
  bool buffersMaySwap_ = false;
  static bool hasPendingSends(const std::vector<Stmt>& body) {
    for (const Stmt& s : body) {
      if (s.kind == Stmt::Kind::Loop) {
        if (hasPendingSends(s.loop.body)) return true;
        continue;
      }
      switch (opInfo(s.call.op).kind) {
        case OpKind::Isend:
        case OpKind::SendInit:
        case OpKind::ICollective:
        case OpKind::Rma:
        case OpKind::OpaqueRequest: return true;
        default: break;
      }
    }
    return false;
  }
  void swapBuffers(const CallCtx& x) {
    const Expr* fromReceived = param(x.c, Param::FromReceived);
    if (!fromReceived || !buffersMaySwap_) return;
    if (fromReceived->isConst() && fromReceived->value == 0) return;
    uses_.swapBuffers = true;
    cur_->inner.set("swap", fromReceived->isConst()
                                ? std::string("swap_buffers(); /* it sends what a receive wrote */")
                                : fmt::format("if ({}) swap_buffers(); /* it sends what a receive wrote */",
                                              expr(*fromReceived, intStyle(), at(x, "fromrecv"))));
  }

  // The call sends the message message() set from send_buf: the computation before it writes
  // those bytes within its time (compute_sending(), templates/c/runtime), as the application's
  // computation produced the data it sends; MPI_Alltoall sends one such message to every member.
  void sendsMessage(bool blocks = false) {
    cur_->sending = cur_->count + ", " + cur_->datatype;
    cur_->sendingBlocks = blocks;
  }

  // The statement's computation: compute(), or compute_sending() before a call that sends.
  void setComputeCall() {
    if (cur_->compute.empty()) return;
    uses_.compute = true;
    if (cur_->sending.empty()) {
      cur_->inner.set("compute_call", fmt::format("compute({})", cur_->compute));
      return;
    }
    (cur_->sendingBlocks ? uses_.computeSendingBlocks : uses_.computeSending) = true;
    cur_->inner.set("compute_call",
                    cur_->sendingBlocks
                        ? fmt::format("compute_sending_blocks({}, {}, {})", cur_->compute, cur_->sending, cur_->comm)
                        : fmt::format("compute_sending({}, {})", cur_->compute, cur_->sending));
  }

  // Calls per recorded execution of a test that the benchmark polls until it succeeds: 1 plus
  // the mean number of failed polls folded into each execution (over its ranks and
  // executions), or 1 for every other call.
  double pollsPerExecution(const CallStmt& c) const {
    if (c.op != Op::Test && c.op != Op::Testany && c.op != Op::Testall) return 1;
    if (program_.origin.rfind("scalatrace", 0) == 0 || !c.event) return 1;  // tests made once
    const ParamValues* failed = c.event->param(Param::Failed);
    if (!failed) return 1;
    double sum = 0, weight = 0;
    for (const ValueGroup& g : failed->groups) {
      if (g.values.empty()) continue;
      double mean = 0;
      for (auto v : g.values) mean += static_cast<double>(v);
      mean /= static_cast<double>(g.values.size());
      const auto n = static_cast<double>(g.ranks.size());
      sum += n * mean;
      weight += n;
    }
    return weight > 0 ? 1 + sum / weight : 1;
  }

  void endCall(const CallStmt& c, const RankList&) override {
    swapBuffers(ctx(c));
    setComputeCall();
    const std::string counter = cur_->counter;
    const std::vector<Table>& tables = cur_->tables;
    mus::data& inner = cur_->inner;
    if (!counter.empty()) inner.set("counter", counter);
    const std::string text = ensureNewline(render("statement", inner));
    mus::data d;
    d.set("label", label(c));
    d.set("has_block", flag(!tables.empty() || !counter.empty()));
    if (!counter.empty()) d.set("counter", counter);
    d.set("declarations", declarations(tables));
    d.set("inner", tables.empty() && counter.empty() ? text : indent(text, 2));
    emit(ensureNewline(render("call", d)), false);
    cur_.reset();
  }

  // The declarations of a statement's tables (templates/c/tables.mustache), indented for the
  // statement's block; empty without tables.
  std::string declarations(const std::vector<Table>& tables) {
    if (tables.empty()) return "";
    mus::data list{mus::data::type::list};
    for (const auto& t : tables) {
      mus::data e;
      e.set("qualifier", t.qualifier);
      e.set("type", t.type);
      e.set("name", t.name);
      e.set("values", t.values);
      e.set("n", std::to_string(t.n));
      e.set("matrix", flag(!t.rows.empty()));
      e.set("scalar", flag(t.scalar));
      e.set("columns", std::to_string(t.columns));
      mus::data rows{mus::data::type::list};
      for (std::size_t r = 0; r < t.rows.size(); ++r) {
        mus::data row;
        row.set("rank", std::to_string(r));
        row.set("values", t.rows[r]);
        rows << row;
      }
      e.set("rows", rows);
      list << e;
    }
    mus::data d;
    d.set("tables", list);
    return indent(ensureNewline(render("tables", d)), 2);
  }

  // --- local request arrays -----------------------------------------------------------------
  //
  // The trace names requests by recency, and the ring replays that (new_request(),
  // recent_request(k), take_requests()). Where a wait's requests are known statically the
  // benchmark names them as an MPI programmer would: a run of statements of one statement list
  // (one rank set) whose Isend/Irecv-family calls make requests that MPI_Wait/MPI_Waitall calls
  // of the same run complete, every one of them, by constant offsets within the run, becomes
  // `MPI_Request requestsN[n];` with `&requestsN[i]` in the calls and `requestsN` (or
  // `&requestsN[i]`) in the waits. As the ring numbers requests over the whole run of a rank,
  // the benchmark uses one way or the other throughout: local arrays only if every statement
  // that makes or names a request belongs to such a run (docs/c-backend.md, "Local request
  // arrays"); otherwise the ring everywhere, as before.
  struct LocalRequest {
    int array = 0;                     // requestsN
    std::vector<std::size_t> indices;  // made: its index; completed: the indices, in order
    std::string slot;                  // made in a loop of the run: `&requestsN[base + m * iK]`
    bool single = false;               // the run makes one request: `MPI_Request requestN;`
  };
  // The array of a run, declared before the run's first statement (a call or a loop).
  struct LocalArray {
    int array = 0;
    std::size_t size = 0;
    std::string completedBy;  // the label of the run's last completion
    std::size_t completions = 1;  // the waits of the run
  };
  std::map<const CallStmt*, LocalRequest> localRequests_;
  std::map<const void*, LocalArray> localArrays_;  // by the run's first CallStmt or loop Stmt
  std::size_t localReceives_ = 0;  // nonblocking receives of the largest run (recv_slices)

  static bool makesLocalRequest(const CallStmt& c) {
    const OpKind k = opInfo(c.op).kind;
    return k == OpKind::Isend || k == OpKind::Irecv;
  }
  static bool involvesRequests(const CallStmt& c) {
    const OpKind k = opInfo(c.op).kind;
    return createsRequest(k) || k == OpKind::Wait || k == OpKind::WaitAll || k == OpKind::Start ||
           k == OpKind::RequestFree || c.op == Op::Imrecv || param(c, Param::Request) || vec(c, Param::Requests);
  }
  static bool involvesRequests(const Stmt& s) {
    if (s.kind == Stmt::Kind::Call) return involvesRequests(s.call);
    return std::any_of(s.loop.body.begin(), s.loop.body.end(), [](const Stmt& b) { return involvesRequests(b); });
  }
  // A loop of a run that only makes requests: a constant number of iterations, a body of calls
  // of the loop's ranks (no inner loop), some making requests and none naming one.
  static bool makesLocalRequestsOnly(const Stmt& s) {
    if (s.kind != Stmt::Kind::Loop || !s.loop.iterations.isConst() || asInt(s.loop.iterations.value) < 1) return false;
    bool makes = false;
    for (const Stmt& b : s.loop.body) {
      if (b.kind != Stmt::Kind::Call || !(b.ranks == s.ranks)) return false;
      if (makesLocalRequest(b.call)) makes = true;
      else if (involvesRequests(b.call)) return false;
    }
    return makes;
  }
  // The index within the run of a constant request offset, given `made` requests so far.
  static std::optional<std::size_t> localIndex(const Expr* offset, std::size_t made) {
    if (!offset || !offset->isConst()) return std::nullopt;
    const std::int64_t k = kRequestRing - asInt(offset->value);  // 1: the most recent
    if (asInt(offset->value) == kRequestNull || k < 1 || static_cast<std::size_t>(k) > made) return std::nullopt;
    return made - static_cast<std::size_t>(k);
  }

  void findLocalRequests() {
    int arrays = 0;
    if (findLocalRequests(program_.body, arrays)) return;
    localRequests_.clear();  // the ring throughout
    localArrays_.clear();
    localReceives_ = 0;
  }

  // Marks the runs of `body` (and of the loops in it); false if a statement that makes or
  // names a request is in none.
  bool findLocalRequests(const std::vector<Stmt>& body, int& arrays) {
    for (std::size_t i = 0; i < body.size();) {
      const Stmt& s = body[i];
      if (s.kind == Stmt::Kind::Loop && !makesLocalRequestsOnly(s)) {
        if (!findLocalRequests(s.loop.body, arrays)) return false;
        ++i;
        continue;
      }
      if (s.kind == Stmt::Kind::Call && !involvesRequests(s.call)) {
        ++i;
        continue;
      }
      if (s.kind == Stmt::Kind::Call && !makesLocalRequest(s.call)) return false;
      // A run starts here: it ends at the completion that leaves nothing pending.
      std::map<const CallStmt*, LocalRequest> run;
      std::set<std::size_t> pending;
      std::size_t made = 0, receives = 0, j = i;
      const int array = ++arrays;
      const std::string name = fmt::format("requests{}", array);
      for (; j < body.size(); ++j) {
        const Stmt& t = body[j];
        if (!(t.ranks == s.ranks)) return false;
        if (t.kind == Stmt::Kind::Loop && makesLocalRequestsOnly(t)) {
          // Request b of iteration iK is requestsN[made + m * iK + b].
          const auto trips = static_cast<std::size_t>(asInt(t.loop.iterations.value));
          std::size_t m = 0;
          for (const Stmt& b : t.loop.body) m += makesLocalRequest(b.call) ? 1 : 0;
          std::size_t b = 0;
          for (const Stmt& u : t.loop.body) {
            if (!makesLocalRequest(u.call)) continue;
            LocalRequest r;
            r.array = array;
            const std::string step = m == 1 ? loopVar(t.loop.id) : fmt::format("{} * {}", m, loopVar(t.loop.id));
            r.slot = made + b == 0 ? fmt::format("&{}[{}]", name, step)
                                   : fmt::format("&{}[{} + {}]", name, made + b, step);
            run[&u.call] = std::move(r);
            if (opInfo(u.call.op).kind == OpKind::Irecv) receives += trips;
            ++b;
          }
          for (std::size_t k = 0; k < trips * m; ++k) pending.insert(made++);
          continue;
        }
        if (t.kind == Stmt::Kind::Loop || !involvesRequests(t.call)) {
          if (involvesRequests(t)) return false;
          continue;
        }
        const CallStmt& c = t.call;
        LocalRequest r;
        r.array = array;
        if (makesLocalRequest(c)) {
          r.indices = {made};
          pending.insert(made++);
          if (opInfo(c.op).kind == OpKind::Irecv) ++receives;
        } else if (c.op == Op::Wait) {
          const auto at = localIndex(param(c, Param::Request), made);
          if (!at || !pending.erase(*at)) return false;
          r.indices = {*at};
        } else if (c.op == Op::Waitall) {
          const std::vector<Expr>* reqs = vec(c, Param::Requests);
          const Expr* count = param(c, Param::Count);
          if (!reqs || reqs->empty() || !count || !count->isConst() ||
              asInt(count->value) != static_cast<std::int64_t>(reqs->size()))
            return false;
          for (const Expr& e : *reqs) {
            const auto at = localIndex(&e, made);
            // Consecutive slots of the array, in order: the call takes &requestsN[first].
            if (!at || !pending.erase(*at) || (!r.indices.empty() && *at != r.indices.back() + 1)) return false;
            r.indices.push_back(*at);
          }
        } else {
          return false;  // tests, persistent requests, nonblocking collectives, ...: the ring
        }
        run[&c] = std::move(r);
        if (pending.empty()) break;
      }
      if (j == body.size()) return false;  // requests left pending past the statement list
      const void* first = s.kind == Stmt::Kind::Loop ? static_cast<const void*>(&s) : &s.call;
      std::size_t completions = 0;
      for (const auto& [call, r] : run) completions += makesLocalRequest(*call) ? 0 : 1;
      localArrays_[first] = LocalArray{array, made, label(body[j].call), completions};
      if (made == 1)
        for (auto& [call, r] : run) r.single = true;
      localReceives_ = std::max(localReceives_, receives);
      localRequests_.merge(run);
      i = j + 1;
    }
    return true;
  }

  const LocalRequest* localRequest(const CallStmt& c) const {
    auto it = localRequests_.find(&c);
    return it == localRequests_.end() ? nullptr : &it->second;
  }
  static std::string localName(const LocalRequest& r) {
    return (r.single ? "request" : "requests") + std::to_string(r.array);
  }
  // The address of slot `index` of a run's array (of its one request).
  static std::string localSlot(const LocalRequest& r, std::size_t index) {
    return r.single ? "&" + localName(r) : fmt::format("&{}[{}]", localName(r), index);
  }

  // A request-making call of a run puts its request in its slot rather than the ring.
  std::string localRequestMade(const CallStmt& c, std::string text) {
    const LocalRequest* r = localRequest(c);
    if (!r) return text;
    const std::string slot = r->single || r->slot.empty() ? localSlot(*r, r->indices.front()) : r->slot;
    const std::size_t at = text.rfind("new_request()");
    if (at == std::string::npos) throw std::logic_error(fmt::format("{}: no request to make", label(c)));
    text.replace(at, std::string("new_request()").size(), slot);
    return text;
  }

  // The array of a run is declared before the run's first statement, outside that statement's
  // own block (a call's, a loop's).
  void declareLocalArray(const void* first) {
    auto it = localArrays_.find(first);
    if (it == localArrays_.end()) return;
    mus::data d;
    const LocalArray& a = it->second;
    d.set("declarator", a.size == 1 ? fmt::format("request{}", a.array) : fmt::format("requests{}[{}]", a.array, a.size));
    // One wait completes them all, or several do, the last of them at `completedBy`.
    d.set("what", a.size == 1          ? "made by the call below, completed by"
                  : a.completions == 1 ? "made by the calls below, all completed by"
                                       : "made by the calls below, completed by the waits up to");
    d.set("completed_by", a.completedBy);
    emit(ensureNewline(render("call/local_requests", d)), false);
  }

  void loop(const Stmt& s, const RankList& ranks) override {
    declareLocalArray(&s);
    ProgramWalker::loop(s, ranks);
  }

  // A call of a run does not use the ring: the ring's flags stay as they were.
  void call(const CallStmt& c, const RankList& ranks) override {
    declareLocalArray(&c);
    if (!localRequest(c)) return ProgramWalker::call(c, ranks);
    const Uses before = uses_;
    ProgramWalker::call(c, ranks);
    uses_.newRequest = before.newRequest;
    uses_.recentRequest = before.recentRequest;
    uses_.requestLists = before.requestLists;
  }

  std::string localCompletion(const CallStmt& c) {
    const LocalRequest& r = localRequests_.at(&c);
    mus::data d = callData(c);
    d.set("count", std::to_string(r.indices.size()));
    d.set("requests", r.indices.front() == 0 && c.op == Op::Waitall && !r.single ? localName(r)
                                                                                 : localSlot(r, r.indices.front()));
    if (c.op == Op::Wait) {
      uses_.status = true;
      return render("call/wait_local", d);
    }
    uses_.statuses = std::max(uses_.statuses, static_cast<std::int64_t>(r.indices.size()));
    return render("call/waitall_local", d);
  }

  // --- operation families: each sets the call's text --------------------------------------

  void lifecycle(const CallStmt& c, const RankList&) override {
    throw std::invalid_argument(fmt::format("{}: {} may only come first or last", label(c), opName(c.op)));
  }
  void pointToPoint(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(localRequestMade(c, pointToPointText(ctx(c), d)));
  }
  void completion(const CallStmt& c, const RankList&) override {
    if (localRequests_.count(&c)) return setCall(localCompletion(c));
    mus::data d = callData(c);
    setCall(opInfo(c.op).kind == OpKind::Wait ? waitOne(ctx(c), d) : waitMany(ctx(c), d));
  }
  void collective(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(withUserOpComment(collectiveText(ctx(c), d)));
  }
  void nonblockingCollective(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(withUserOpComment(nonblockingCollectiveText(ctx(c), d)));
  }
  void communicator(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(opInfo(c.op).kind == OpKind::Group ? groupCall(ctx(c), d) : commCall(ctx(c), d));
  }
  void persistent(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(persistentCall(ctx(c), d));
  }
  void matchedProbe(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(matchedCall(ctx(c), d));
  }
  void oneSided(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(oneSidedText(ctx(c), d));
  }
  void fileIo(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    setCall(fileIoText(ctx(c), d));
  }
  void opaque(const CallStmt& c, const RankList&) override {
    mus::data d = callData(c);
    if (opInfo(c.op).kind == OpKind::Opaque) return setCall(render("call/opaque", d));
    uses_.newRequest = true;
    setCall(render("call/opaque_request", d));
  }

  // Every call template names the function.
  static mus::data callData(const CallStmt& c) {
    mus::data d;
    d.set("fn", std::string(opName(c.op)));
    return d;
  }

  std::string pointToPointText(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    const OpKind kind = opInfo(c.op).kind;
    switch (kind) {
      case OpKind::Send:
      case OpKind::Isend:
      case OpKind::SendInit:
        message(x, d);
        if (kind != OpKind::SendInit) sendsMessage();  // a persistent send sends at MPI_Start
        d.set("dest", peer(x, need(c, Param::Dest), "dest"));
        d.set("tag", tag(x, Param::Tag, false));
        if (c.op == Op::Bsend || c.op == Op::Ibsend) uses_.bsend = true;
        if (kind == OpKind::Send) return render("call/send", d);
        uses_.newRequest = true;
        return render("call/isend", d);
      case OpKind::Recv:
      case OpKind::Irecv:
      case OpKind::RecvInit:
        message(x, d);
        d.set("source", peer(x, need(c, Param::Source), "source"));
        d.set("tag", tag(x, Param::Tag, true));
        if (kind == OpKind::Recv) {
          uses_.status = true;
          return render("call/recv", d);
        }
        uses_.newRequest = true;
        // Bound to its request in the ring (recv_slice_bound(), templates/c/runtime), but for a
        // persistent receive, whose request moves between ring slots as it is started, and one
        // in a local array, whose run completes it before the array's slices come round again.
        d.set("bound", flag(kind == OpKind::Irecv && !localRequest(x.c)));
        return render("call/irecv", d);
      case OpKind::Sendrecv:
        message(x, d);
        d.set("dest", peer(x, need(c, Param::Dest), "dest"));
        d.set("source", peer(x, need(c, Param::Source), "source"));
        d.set("tag", tag(x, Param::Tag, false));
        d.set("recvtag", tag(x, param(c, Param::RecvTag) ? Param::RecvTag : Param::Tag, true));
        uses_.status = true;
        if (c.op == Op::SendrecvReplace) return render("call/sendrecv_replace", d);
        sendsMessage();
        receiveSide(x, d);
        return render("call/sendrecv", d);
      case OpKind::Probe:
        d.set("comm", comm(x));
        d.set("source", peer(x, need(c, Param::Source), "source"));
        d.set("tag", tag(x, Param::Tag, true));
        uses_.status = true;
        return render(c.op == Op::Probe ? "call/probe" : "call/iprobe", d);
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled point-to-point operation {}", opName(c.op)));
  }

  // count, datatype, comm of a call that moves one message. A recorder leaves out what MPI
  // ignores (a scatter's send type on the ranks that only receive): the other side's stands in.
  void message(const CallCtx& x, mus::data& d) {
    const Expr* recvType = param(x.c, Param::RecvType);
    cur_->count = count(x, param(x.c, Param::Count), "count");
    cur_->datatype = datatype(x, recvType && !param(x.c, Param::Datatype) ? *recvType : need(x.c, Param::Datatype),
                              "datatype");
    cur_->comm = comm(x);
    d.set("count", cur_->count);
    d.set("datatype", cur_->datatype);
    d.set("comm", cur_->comm);
  }

  void receiveSide(const CallCtx& x, mus::data& d) {
    const Expr* rc = param(x.c, Param::RecvCount);
    const Expr* rt = param(x.c, Param::RecvType);
    d.set("recvcount", count(x, rc ? rc : param(x.c, Param::Count), "recvcount"));
    d.set("recvtype", datatype(x, rt ? *rt : need(x.c, Param::Datatype), "recvtype"));
  }

  // A test the trace says completed requests is polled until it completes them here too (the
  // failed polls of the application are timing: a replay makes its own); a failed poll names no
  // request and returns at once. MPI_Testsome waits (MPI_Request_get_status) until all its
  // requests are complete and then completes them in one call, as the application's did. tracegen's recorder
  // names only completed requests (docs/recording.md, "Requests"); ScalaTrace names the request
  // tested whatever the outcome, so its tests are made once, as recorded.
  // A test polled until it succeeds. With a share of computation per poll (a test the
  // application polled, see compute()) the loop counts the polls that completed nothing, and
  // after the success hands poll_idle the application's failed polls for this execution
  // (`failed`, per rank and execution as recorded) less its own, plus the balance so far: with
  // the benchmark's --all-polls it makes what the loop owes as polls that find nothing. Where
  // the application's polls were work of their own (HPC Challenge's RandomAccess polls once per
  // update it makes, whether or not a message is due), a benchmark whose message came sooner
  // would otherwise skip them, and their time with them; where they were waiting (the default),
  // the extra polls would add time the application did not spend.
  void pollUntil(const CallCtx& x, mus::data& d, const char* condition) {
    const bool once = program_.origin.rfind("scalatrace", 0) == 0;
    d.set("until", once ? std::string("0") : std::string(condition));
    d.set("poll", flag(!once));
    if (!cur_ || cur_->pollCompute.empty()) return;
    d.set("poll_compute", cur_->pollCompute);
    if (const Expr* failed = param(x.c, Param::Failed)) {
      // Parenthesised: it is followed by " - failed".
      d.set("app_failed", expr(longCyclesAsMeans(*failed, kShortVector), intStyle(), at(x, "failed")));
      uses_.pollIdle = true;
    }
  }

  std::string waitOne(const CallCtx& x, mus::data& d) {
    const Expr* r = param(x.c, Param::Request);
    d.set("recency", r ? expr(*r, recencyStyle(), at(x, "request")) : "0");
    uses_.recentRequest = true;
    uses_.status = true;
    if (x.c.op != Op::Wait) pollUntil(x, d, "!flag");
    return render(x.c.op == Op::Wait ? "call/wait" : "call/test", d);
  }

  // Persistent requests (docs/c-backend.md, "Persistent requests"): a start takes the request
  // out of the ring slot the trace names and puts it, started, in a new slot, as the trace
  // counts each activation as a request; MPI_Request_free frees the one the trace names.
  std::string persistentCall(const CallCtx& x, mus::data& d) {
    uses_.recentRequest = true;
    if (x.c.op == Op::RequestFree) {
      d.set("recency", expr(need(x.c, Param::Request), recencyStyle(), at(x, "request")));
      return render("call/request_free", d);
    }
    uses_.newRequest = uses_.persistent = true;
    if (x.c.op == Op::Start) {
      d.set("recency", expr(need(x.c, Param::Request), recencyStyle(), at(x, "request")));
      return render("call/start", d);
    }
    const std::vector<Expr>* reqs = vec(x.c, Param::Requests);
    if (!reqs || reqs->empty())
      throw std::invalid_argument(fmt::format("{}: no 'requests' to start", label(x.c)));
    std::vector<std::string> recency;
    for (std::size_t i = 0; i < reqs->size(); ++i)
      recency.push_back(expr((*reqs)[i], recencyStyle(), at(x, fmt::format("request{}", i))));
    d.set("n", std::to_string(reqs->size()));
    d.set("recency", fmt::format("{}", fmt::join(recency, ", ")));
    return render("call/startall", d);
  }

  // Matched probes (docs/c-backend.md, "Matched probes"): the messages the probes find go into
  // a ring in the order found; MPI_Mrecv/MPI_Imrecv receive the oldest not received yet.
  std::string matchedCall(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    uses_.messages = uses_.status = true;
    if (c.op == Op::Mrecv || c.op == Op::Imrecv) {
      d.set("count", count(x, param(c, Param::Count), "count"));
      d.set("datatype", datatype(x, need(c, Param::Datatype), "datatype"));
      if (c.op == Op::Mrecv) return render("call/mrecv", d);
      uses_.newRequest = true;
      return render("call/imrecv", d);
    }
    d.set("comm", comm(x));
    d.set("source", peer(x, need(c, Param::Source), "source"));
    d.set("tag", tag(x, Param::Tag, true));
    if (c.op == Op::Mprobe) return render("call/mprobe", d);
    // MPI_Improbe: a recorded success (`count` 1) polls until it finds its message, as the
    // tests do; the polls that found nothing are timing and are not made.
    const Expr* found = param(c, Param::Count);
    if (found && found->isConst() && found->value == 0) return render("call/improbe_none", d);
    if (!found || found->isConst()) return render("call/improbe", d);
    d.set("found", expr(*found, intStyle(), at(x, "found")));  // found a message at this execution
    return render("call/improbe_sometimes", d);
  }

  std::string waitMany(const CallCtx& x, mus::data& d) {
    const std::vector<Expr>* reqs = vec(x.c, Param::Requests);
    const std::size_t n = std::max<std::size_t>(reqs ? reqs->size() : 0, 1);
    std::vector<std::string> recency;
    for (std::size_t i = 0; i < n; ++i)
      recency.push_back(reqs && i < reqs->size() ? expr((*reqs)[i], recencyStyle(), at(x, fmt::format("request{}", i)))
                                                 : "0");
    const Expr* count = param(x.c, Param::Count);
    d.set("n", std::to_string(n));
    d.set("recency", fmt::format("{}", fmt::join(recency, ", ")));
    d.set("count", count ? expr(*count, intStyle(), at(x, "count")) : std::to_string(reqs ? reqs->size() : 0));
    uses_.recentRequest = uses_.requestLists = true;
    switch (x.c.op) {
      case Op::Waitall:
        uses_.statuses = std::max(uses_.statuses, static_cast<std::int64_t>(n));
        return render("call/waitall", d);
      case Op::Testall:
        uses_.statuses = std::max(uses_.statuses, static_cast<std::int64_t>(n));
        pollUntil(x, d, "!flag");
        return render("call/testall", d);
      case Op::Waitany:
        uses_.status = true;
        return render("call/waitany", d);
      case Op::Testany:
        uses_.status = true;
        pollUntil(x, d, "!flag");
        return render("call/testany", d);
      case Op::Testsome:
        uses_.statuses = std::max(uses_.statuses, static_cast<std::int64_t>(n));
        pollUntil(x, d, "0");
        return render("call/testsome", d);
      default:  // Waitsome
        uses_.statuses = std::max(uses_.statuses, static_cast<std::int64_t>(n));
        return render("call/waitsome", d);
    }
  }

  std::string collectiveText(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    if (isNeighborCollective(c.op)) return neighborCollective(x, d);
    d.set("comm", comm(x));
    auto reduction = [&] { d.set("op", reduceOp(x, need(c, Param::ReduceOp))); };
    auto root = [&] { d.set("root", peer(x, need(c, Param::Root), "root")); };
    switch (c.op) {
      case Op::Barrier:
        return render("call/barrier", d);
      case Op::Bcast:
        message(x, d);
        root();
        return render("call/bcast", d);
      case Op::Reduce:
        message(x, d);
        sendsMessage();
        reduction();
        root();
        return render("call/reduce", d);
      case Op::Allreduce:
        message(x, d);
        sendsMessage();
        reduction();
        return render("call/allreduce", d);
      case Op::Scan:
        message(x, d);
        sendsMessage();
        reduction();
        return render("call/scan", d);
      case Op::Exscan:
      case Op::ReduceScatterBlock:  // count: the block each member receives
        message(x, d);
        if (c.op == Op::Exscan) sendsMessage();
        else sendsMessage(/*blocks=*/true);
        reduction();
        return render(c.op == Op::Exscan ? "call/exscan" : "call/reduce_scatter_block", d);
      case Op::Gather:
      case Op::Scatter:
        message(x, d);
        if (c.op == Op::Gather) sendsMessage();  // a scatter's root sends; its time is the root's
        receiveSide(x, d);
        root();
        return render("call/gather", d);
      case Op::Allgather:
      case Op::Alltoall:
        message(x, d);
        sendsMessage(/*blocks=*/c.op == Op::Alltoall);
        receiveSide(x, d);
        return render("call/allgather", d);
      case Op::Gatherv:
      case Op::Allgatherv: {
        message(x, d);
        receiveSide(x, d);
        const std::size_t n = vectorLength(c, {Param::RecvCounts, Param::Displs});
        d.set("n", std::to_string(n));
        countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::RecvCount));
        // ScalaTrace stores MPI_Allgatherv's receive counts where its displacements belong,
        // so they are laid out one after the other instead (see pack_displs).
        if (c.op == Op::Gatherv && !packedDispls(x, Param::Displs, Param::RecvCounts, param(c, Param::RecvCount), n))
          countArray(x, d, "displs", Param::Displs, n, nullptr);
        else uses_.displs = true;
        if (c.op == Op::Gatherv) root();
        return render(c.op == Op::Gatherv ? "call/gatherv" : "call/allgatherv", d);
      }
      case Op::Scatterv: {
        message(x, d);
        receiveSide(x, d);
        const std::size_t n = vectorLength(c, {Param::SendCounts, Param::Displs});
        d.set("n", std::to_string(n));
        countArray(x, d, "sendcounts", Param::SendCounts, n, param(c, Param::Count));
        if (!packedDispls(x, Param::Displs, Param::SendCounts, param(c, Param::Count), n))
          countArray(x, d, "displs", Param::Displs, n, nullptr);
        else uses_.displs = true;
        root();
        return render("call/scatterv", d);
      }
      case Op::Alltoallv: {
        message(x, d);
        receiveSide(x, d);
        if (!c.evenVectors.empty()) {  // a scale-free benchmark's even split (gen/Program.h)
          const auto side = [&](Param p) {
            auto it = c.evenVectors.find(p);
            if (it == c.evenVectors.end())
              throw std::logic_error(fmt::format("{}: an even split of {} only", label(c), paramName(p)));
            return count(x, &it->second, std::string(paramName(p)));
          };
          d.set("sendcount", side(Param::SendCounts));
          d.set("recvcount", side(Param::RecvCounts));
          return render("call/alltoallv_even", d);
        }
        const std::size_t n =
            vectorLength(c, {Param::SendCounts, Param::Displs, Param::RecvCounts, Param::RecvDispls});
        d.set("n", std::to_string(n));
        countArray(x, d, "sendcounts", Param::SendCounts, n, param(c, Param::Count));
        if (!packedDispls(x, Param::Displs, Param::SendCounts, param(c, Param::Count), n))
          countArray(x, d, "sdispls", Param::Displs, n, nullptr);
        else uses_.displs = true;
        countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::RecvCount));
        if (!packedDispls(x, Param::RecvDispls, Param::RecvCounts, param(c, Param::RecvCount), n))
          countArray(x, d, "rdispls", Param::RecvDispls, n, nullptr);
        else uses_.displs = true;
        return render("call/alltoallv", d);
      }
      case Op::Alltoallw:
        alltoallwArrays(x, d);
        return render("call/alltoallw", d);
      case Op::ReduceScatter: {
        d.set("datatype", datatype(x, need(c, Param::Datatype), "datatype"));
        reduction();
        const std::size_t n = vectorLength(c, {Param::RecvCounts});
        d.set("n", std::to_string(n));
        countArray(x, d, "recvcounts", Param::RecvCounts, n, param(c, Param::Count));
        return render("call/reduce_scatter", d);
      }
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled collective {}", opName(c.op)));
  }

  // A nonblocking collective (MPI_Ibcast, ...): the blocking form's arguments and a new request
  // in the ring, completed by the waits the trace recorded. The count and displacement arrays
  // of the vector forms must stay as they are until the request completes, so they live with
  // the request's slot (request_ints), not on the stack.
  std::string nonblockingCollectiveText(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    if (isNeighborCollective(c.op)) return neighborCollective(x, d);
    d.set("comm", comm(x));
    uses_.newRequest = true;
    auto reduction = [&] { d.set("op", reduceOp(x, need(c, Param::ReduceOp))); };
    auto root = [&] { d.set("root", peer(x, need(c, Param::Root), "root")); };
    auto arrays = [&](std::initializer_list<std::pair<Param, const char*>> ps, std::initializer_list<Param> lengths) {
      const std::size_t n = vectorLength(c, lengths);
      d.set("n", std::to_string(n));
      uses_.requestArrays = true;
      Param counts = Param::RecvCounts;  // the counts of the displacements that follow them in `ps`
      const Expr* countsFallback = nullptr;
      for (auto [p, name] : ps) {
        const bool isDispls = p == Param::Displs || p == Param::RecvDispls;
        if (isDispls && packedDispls(x, p, counts, countsFallback, n)) {
          uses_.displs = true;
          continue;
        }
        const Expr* fallback = nullptr;
        if (p == Param::SendCounts) fallback = param(c, Param::Count);
        if (p == Param::RecvCounts) fallback = param(c, c.op == Op::IreduceScatter ? Param::Count : Param::RecvCount);
        if (!isDispls) counts = p, countsFallback = fallback;
        countArray(x, d, name, p, n, fallback);
      }
    };
    switch (c.op) {
      case Op::Ibarrier:
        return render("call/ibarrier", d);
      case Op::Ibcast:
        message(x, d);
        root();
        return render("call/ibcast", d);
      case Op::Ireduce:
        message(x, d);
        reduction();
        root();
        return render("call/ireduce", d);
      case Op::Iallreduce:
      case Op::Iscan:
      case Op::Iexscan:
      case Op::IreduceScatterBlock:  // count: the block each member receives
        message(x, d);
        reduction();
        return render("call/ireduction", d);
      case Op::Igather:
      case Op::Iscatter:
        message(x, d);
        receiveSide(x, d);
        root();
        return render("call/igather", d);
      case Op::Iallgather:
      case Op::Ialltoall:
        message(x, d);
        receiveSide(x, d);
        return render("call/iallgather", d);
      case Op::Igatherv:
      case Op::Iallgatherv:
        message(x, d);
        receiveSide(x, d);
        arrays({{Param::RecvCounts, "recvcounts"}, {Param::Displs, "displs"}}, {Param::RecvCounts, Param::Displs});
        if (c.op == Op::Igatherv) root();
        return render(c.op == Op::Igatherv ? "call/igatherv" : "call/iallgatherv", d);
      case Op::Iscatterv:
        message(x, d);
        receiveSide(x, d);
        arrays({{Param::SendCounts, "sendcounts"}, {Param::Displs, "displs"}}, {Param::SendCounts, Param::Displs});
        root();
        return render("call/iscatterv", d);
      case Op::Ialltoallv:
        message(x, d);
        receiveSide(x, d);
        arrays({{Param::SendCounts, "sendcounts"}, {Param::Displs, "sdispls"}, {Param::RecvCounts, "recvcounts"},
                {Param::RecvDispls, "rdispls"}},
               {Param::SendCounts, Param::Displs, Param::RecvCounts, Param::RecvDispls});
        return render("call/ialltoallv", d);
      case Op::Ialltoallw:
        alltoallwArrays(x, d);
        uses_.requestArrays = true;
        return render("call/ialltoallw", d);
      case Op::IreduceScatter:
        d.set("datatype", datatype(x, need(c, Param::Datatype), "datatype"));
        reduction();
        arrays({{Param::RecvCounts, "recvcounts"}}, {Param::RecvCounts});
        return render("call/ireduce_scatter", d);
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled nonblocking collective {}", opName(c.op)));
  }

  // ---- neighbourhood collectives (docs/c-backend.md, "Neighbourhood collectives"): the
  // application's call on the rebuilt topology communicator, with the recorded count (and
  // datatype) vectors, one entry per source (receive side) or destination (send side of the v
  // and w forms); displacements lay the blocks out one after the other. The nonblocking forms
  // keep their arrays with the request (request_ints, request_types, request_aints).
  std::string neighborCollective(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    const Op blocking = blockingForm(c.op);
    const bool nonblocking = blocking != c.op;
    d.set("comm", comm(x));
    if (nonblocking) {
      uses_.newRequest = true;
      // The v and w forms keep their arrays with the request (request_ints, ...).
      if (blocking != Op::NeighborAllgather && blocking != Op::NeighborAlltoall) uses_.requestArrays = true;
    }
    d.set("nonblocking", flag(nonblocking));
    auto typesOf = [&](Param p, std::size_t n) {
      const std::vector<Expr>* v = vec(c, p);
      if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
      std::vector<std::string> items;
      for (std::size_t i = 0; i < n; ++i)
        items.push_back(datatype(x, (*v)[std::min(i, v->size() - 1)], fmt::format("{}{}", paramName(p), i)));
      return fmt::format("{}", fmt::join(items, ", "));
    };
    auto length = [&](Param p) {
      const std::vector<Expr>* v = vec(c, p);
      if (!v || v->empty())
        throw std::invalid_argument(fmt::format("{}: no '{}' parameter (a neighbourhood collective with no "
                                                "neighbours on that side is not generated)",
                                                label(c), paramName(p)));
      return v->size();
    };
    switch (blocking) {
      case Op::NeighborAllgather:
      case Op::NeighborAlltoall:
        message(x, d);
        receiveSide(x, d);
        d.set("comm", comm(x));
        return render("call/neighbor_allgather", d);
      case Op::NeighborAllgatherv: {
        message(x, d);
        receiveSide(x, d);
        d.set("comm", comm(x));
        const std::size_t nin = length(Param::RecvCounts);
        d.set("nin", std::to_string(nin));
        d.set("recvcounts", countVector(x, Param::RecvCounts, nin, nullptr));
        uses_.displs = true;
        return render(nonblocking ? "call/ineighbor_allgatherv" : "call/neighbor_allgatherv", d);
      }
      case Op::NeighborAlltoallv: {
        message(x, d);
        receiveSide(x, d);
        d.set("comm", comm(x));
        const std::size_t nout = length(Param::SendCounts), nin = length(Param::RecvCounts);
        d.set("nout", std::to_string(nout));
        d.set("nin", std::to_string(nin));
        d.set("sendcounts", countVector(x, Param::SendCounts, nout, nullptr));
        d.set("recvcounts", countVector(x, Param::RecvCounts, nin, nullptr));
        uses_.displs = true;
        return render(nonblocking ? "call/ineighbor_alltoallv" : "call/neighbor_alltoallv", d);
      }
      case Op::NeighborAlltoallw: {
        const std::size_t nout = length(Param::SendCounts), nin = length(Param::RecvCounts);
        d.set("nout", std::to_string(nout));
        d.set("nin", std::to_string(nin));
        d.set("sendcounts", countVector(x, Param::SendCounts, nout, nullptr));
        d.set("recvcounts", countVector(x, Param::RecvCounts, nin, nullptr));
        d.set("sendtypes", typesOf(Param::SendTypes, nout));
        d.set("recvtypes", typesOf(Param::RecvTypes, nin));
        uses_.aintDispls = true;
        if (nonblocking) uses_.requestAints = true;
        return render(nonblocking ? "call/ineighbor_alltoallw" : "call/neighbor_alltoallw", d);
      }
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled neighbourhood collective {}", opName(c.op)));
  }

  // MPI_Alltoallw's per-peer counts and datatypes. A send side the trace does not describe
  // (MPI_IN_PLACE) sends what the receive side receives; the displacements, in bytes, lay the
  // blocks out one after the other (pack_byte_displs).
  void alltoallwArrays(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    const std::size_t n = vectorLength(c, {Param::SendCounts, Param::SendTypes, Param::RecvCounts, Param::RecvTypes});
    d.set("n", std::to_string(n));
    d.set("comm", comm(x));
    const Param sc = vec(c, Param::SendCounts) ? Param::SendCounts : Param::RecvCounts;
    const Param st = vec(c, Param::SendTypes) ? Param::SendTypes : Param::RecvTypes;
    d.set("sendcounts", countVector(x, sc, n, nullptr));
    d.set("recvcounts", countVector(x, Param::RecvCounts, n, nullptr));
    auto types = [&](Param p) {
      const std::vector<Expr>* v = vec(c, p);
      if (!v || v->empty()) throw std::invalid_argument(fmt::format("{}: no '{}' parameter", label(c), paramName(p)));
      std::vector<std::string> items;
      for (std::size_t i = 0; i < n; ++i)
        items.push_back(datatype(x, (*v)[std::min(i, v->size() - 1)], fmt::format("{}{}", paramName(p), i)));
      return fmt::format("{}", fmt::join(items, ", "));
    };
    d.set("sendtypes", types(st));
    d.set("recvtypes", types(Param::RecvTypes));
    uses_.byteDispls = true;
  }

  // Vector parameters have one element per communicator member; a missing one is filled
  // from the scalar count (counts) or packed (displacements).
  std::size_t vectorLength(const CallStmt& c, std::initializer_list<Param> ps) const {
    std::size_t n = 0;
    for (Param p : ps)
      if (const auto* v = vec(c, p)) n = std::max(n, v->size());
    return n > 0 ? n : static_cast<std::size_t>(program_.numRanks);
  }

  // The elements of a vector of counts (or displacements) for an initializer, each through
  // msg_count(): `msg_count(4), msg_count(8)`, or entries of its table by rank (countRows).
  std::string countVector(const CallCtx& x, Param p, std::size_t n, const Expr* fallback) {
    std::vector<std::string> items;
    if (std::optional<std::string> table = countRows(x, p, n, fallback)) {
      uses_.counts = true;
      for (std::size_t i = 0; i < n; ++i) {
        mus::data d;
        d.set("count", fmt::format("{}[rank][{}]", *table, i));
        items.push_back(render("expr/msg_count", d));
      }
      return fmt::format("{}", fmt::join(items, ", "));
    }
    const std::vector<Expr>* v = vec(x.c, p);
    for (std::size_t i = 0; i < n; ++i)
      items.push_back(count(x, v && i < v->size() ? &(*v)[i] : fallback, fmt::format("{}{}", paramName(p), i)));
    return fmt::format("{}", fmt::join(items, ", "));
  }

  // A vector of counts (or displacements) for the templates of the vector collectives: `key`,
  // its elements for an initializer (countVector), or where it is a table by rank `key_row`,
  // the rank's row (`sendcounts_by_rank[rank]`), which the template copies through msg_count()
  // in a loop: a line for the vector, where the initializer takes one per element.
  void countArray(const CallCtx& x, mus::data& d, const std::string& key, Param p, std::size_t n,
                  const Expr* fallback) {
    if (std::optional<std::string> table = countRows(x, p, n, fallback)) {
      uses_.counts = true;
      d.set(key + "_row", *table + "[rank]");
      return;
    }
    // One value for every rank (an extrapolated sort's even split, `msg_count(256)` 64 times):
    // a loop, where the template has one (`key_each`).
    if (x.c.op == Op::Alltoallv && n > kShortVector) {
      const std::vector<Expr>* v = vec(x.c, p);
      const Expr* e0 = v && !v->empty() ? &v->front() : fallback;
      bool same = e0 != nullptr;
      for (std::size_t i = 0; i < n && same; ++i) {
        const Expr* e = v && i < v->size() ? &(*v)[i] : fallback;
        same = e && e->isConst() && e0->isConst() && e->value == e0->value;
      }
      if (same) {
        d.set(key + "_each", count(x, e0, fmt::format("{}0", paramName(p))));
        return;
      }
    }
    d.set(key, countVector(x, p, n, fallback));
  }

  // Whether a vector collective's displacements are laid out by the runtime's pack_displs (the
  // blocks one after the other, in the order of the ranks): where the trace has none, and where
  // the recorded ones differ by rank and are just that for every rank of the call: a formula
  // explains them, so they are not spelled as choices by rank (or tables) again. Short constant
  // displacements stay as recorded (`{ 0, 1, 3, 6 }` says as much as the formula; 64 of them
  // do not), and cycles
  // over executions are not compared. Under --msg-scale the blocks of the scaled counts are
  // packed, as where the trace has no displacements.
  bool packedDispls(const CallCtx& x, Param displs, Param counts, const Expr* countsFallback, std::size_t n) const {
    const std::vector<Expr>* d = vec(x.c, displs);
    if (!d) return true;
    if (program_.scaleFree) return false;  // its values are formulas of the scale already
    const std::vector<Expr>* v = vec(x.c, counts);
    auto count = [&](std::size_t i) { return v && i < v->size() ? &(*v)[i] : countsFallback; };
    if (d->size() != n ||
        (n <= kShortVector && std::all_of(d->begin(), d->end(), [](const Expr& e) { return e.isConst(); })))
      return false;
    for (std::size_t i = 0; i < n; ++i)
      if (!plainPerRank((*d)[i]) || !count(i) || !plainPerRank(*count(i))) return false;
    bool any = false;
    for (Rank r = 0; r < program_.numRanks; ++r) {
      if (!peerRanks_.contains(r)) continue;
      any = true;
      double next = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const std::optional<double> at = valueOfRank((*d)[i], r), size = valueOfRank(*count(i), r);
        if (!at || !size || *at != next) return false;
        next += *size;
      }
    }
    return any;
  }

  // A vector of counts (or displacements) of plain values by rank, one of them a choice among
  // many groups (tabulatedByRank), as one table with a row per rank, the vector that rank
  // passes, declared before the call: its name (`sendcounts_by_rank`). The rows of the ranks
  // that do not make the call (never read) are zeros. None where an element is not a plain
  // value by rank (a cycle over executions, ...) or none is such a choice, and outside a call's
  // statement: the elements are spelled one by one.
  std::optional<std::string> countRows(const CallCtx& x, Param p, std::size_t n, const Expr* fallback) {
    const std::vector<Expr>* v = vec(x.c, p);
    if (!v || !x.tables || program_.scaleFree) return std::nullopt;  // tables by rank: fixed scale only
    auto element = [&](std::size_t i) { return i < v->size() ? &(*v)[i] : fallback; };
    bool tabulated = false;
    for (std::size_t i = 0; i < n; ++i) {
      const Expr* e = element(i);
      if (e && !plainPerRank(*e)) return std::nullopt;
      tabulated = tabulated || (e && tabulatedByRank(*e));
    }
    if (!tabulated) return std::nullopt;
    const Style style = intStyle();
    std::vector<std::string> rows;
    for (Rank r = 0; r < program_.numRanks; ++r) {
      std::vector<std::string> row;
      for (std::size_t i = 0; i < n; ++i) {
        const Expr* e = element(i);
        double value = 0;
        if (e && peerRanks_.contains(r)) {
          const std::optional<double> ofRank = valueOfRank(*e, r);
          if (!ofRank) throw std::logic_error(fmt::format("{}: rank {} in no group of {}", label(x.c), r, paramName(p)));
          value = *ofRank;
        }
        row.push_back(style.leaf(value));
      }
      rows.push_back(fmt::format("{}", fmt::join(row, ", ")));
    }
    const std::string name = tableName(*x.tables, std::string(paramName(p)) + "_by_rank");
    x.tables->push_back(Table{"static const ", style.tableType, name, "", rows.size(), n, std::move(rows)});
    return name;
  }

  std::string commCall(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    if (c.op == Op::CommFree) {
      const Expr& id = need(c, Param::Comm);
      d.set("id", expr(id, intStyle(), at(x, "comm")));
      forEachConst(id, [&](double v) { uses_.maxCommId = std::max(uses_.maxCommId, asInt(v)); });
      uses_.commSlot = true;
      return render("call/comm_free", d);
    }
    d.set("comm", comm(x));
    if (const Expr* id = param(c, Param::NewComm)) {
      forEachConst(*id, [&](double v) { uses_.maxCommId = std::max(uses_.maxCommId, asInt(v)); });
      d.set("newcomm", fmt::format("new_comm_at({})", expr(*id, intStyle(), at(x, "newcomm"))));
      uses_.newCommAt = true;
    } else {
      // The tracer numbers a rank's communicators in creation order; so does new_comm().
      d.set("newcomm", "new_comm()");
      uses_.newComm = uses_.newCommAt = true;
      uses_.maxCommId = std::max<std::int64_t>(uses_.maxCommId, 1999);
    }
    switch (c.op) {
      case Op::CommSplit: {
        const Expr* color = param(c, Param::Color);
        const Expr* key = param(c, Param::Key);
        d.set("color", color ? expr(*color, colorStyle(), at(x, "color")) : "0");
        d.set("key", key ? expr(*key, intStyle(), at(x, "key")) : "0");
        return render("call/comm_split", d);
      }
      case Op::CommDup:
        return render("call/comm_dup", d);
      case Op::CommCreate:
        d.set("group", group(x, need(c, Param::Group), "group"));
        return render("call/comm_create", d);
      default:
        return topologyCall(x, d);
    }
  }

  // ---- topology constructors: the application's call with the recorded topology. The library
  // may renumber the ranks (reorder); peers are translated through the communicator it returns
  // (comm_rank), so the benchmark talks to the processes the application talked to.
  std::string intList(const CallCtx& x, Param p, std::size_t minimum = 1) {
    const std::vector<Expr>* v = vec(x.c, p);
    std::vector<std::string> items;
    for (std::size_t i = 0; v && i < v->size(); ++i)
      items.push_back(expr((*v)[i], intStyle(), at(x, fmt::format("{}{}", paramName(p), i))));
    while (items.size() < minimum) items.push_back("0");  // C has no empty array
    return fmt::format("{}", fmt::join(items, ", "));
  }

  // Weights of 1, one per element of vector p: the trace does not keep weights, and equal
  // explicit ones stand in for MPI_UNWEIGHTED (which GCC's -Wstringop-overread rejects as an
  // array argument under Open MPI's mpi.h).
  std::string ones(const CallCtx& x, Param p) {
    const std::vector<Expr>* v = vec(x.c, p);
    std::vector<std::string> items(std::max<std::size_t>(v ? v->size() : 0, 1), "1");
    return fmt::format("{}", fmt::join(items, ", "));
  }

  std::string scalar(const CallCtx& x, Param p, const char* fallback) {
    const Expr* e = param(x.c, p);
    return e ? expr(*e, intStyle(), at(x, std::string(paramName(p)))) : fallback;
  }

  std::string topologyCall(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    d.set("reorder", scalar(x, Param::Reorder, "0"));
    d.set("count", scalar(x, Param::Count, "0"));
    d.set("recvcount", scalar(x, Param::RecvCount, "0"));
    switch (c.op) {
      case Op::CartCreate:
        d.set("dims", intList(x, Param::Dims));
        d.set("periods", intList(x, Param::Periods));
        return render("call/cart_create", d);
      case Op::CartSub:
        d.set("remain", intList(x, Param::RemainDims));
        return render("call/cart_sub", d);
      case Op::GraphCreate:
        d.set("index", intList(x, Param::Index));
        d.set("edges", intList(x, Param::Edges));
        return render("call/graph_create", d);
      case Op::DistGraphCreateAdjacent:
        d.set("sources", intList(x, Param::Sources));
        d.set("destinations", intList(x, Param::Destinations));
        d.set("source_weights", ones(x, Param::Sources));
        d.set("destination_weights", ones(x, Param::Destinations));
        return render("call/dist_graph_create_adjacent", d);
      case Op::DistGraphCreate:
        d.set("sources", intList(x, Param::Sources));
        d.set("degrees", intList(x, Param::Degrees));
        d.set("destinations", intList(x, Param::Destinations));
        d.set("weights", ones(x, Param::Destinations));
        return render("call/dist_graph_create", d);
      case Op::CommSplitType: {
        const Expr* type = param(c, Param::Color);
        const Expr* key = param(c, Param::Key);
        // 1: MPI_COMM_TYPE_SHARED; a library's own type (2) has no portable spelling: shared.
        d.set("type", type ? expr(*type, {"int", [](double v) {
                                             return v < 0 ? std::string("MPI_UNDEFINED")
                                                          : std::string("MPI_COMM_TYPE_SHARED");
                                           }},
                                  at(x, "type"))
                           : "MPI_COMM_TYPE_SHARED");
        d.set("key", key ? expr(*key, intStyle(), at(x, "key")) : "0");
        return render("call/comm_split_type", d);
      }
      case Op::CommCreateGroup:
        d.set("group", group(x, need(c, Param::Group), "group"));
        d.set("tag", scalar(x, Param::Tag, "0"));
        return render("call/comm_create_group", d);
      case Op::CommIdup:
        return render("call/comm_idup", d);
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled communicator constructor {}", opName(c.op)));
  }

  std::string groupCall(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    switch (c.op) {
      case Op::CommGroup:
        d.set("comm", comm(x));
        uses_.newGroup = true;
        return render("call/comm_group", d);
      case Op::GroupIncl:
      case Op::GroupExcl:
      case Op::GroupRangeIncl:
      case Op::GroupRangeExcl: {
        const bool ranges = c.op == Op::GroupRangeIncl || c.op == Op::GroupRangeExcl;
        const std::vector<Expr>* v = vec(c, ranges ? Param::GroupRanges : Param::GroupRanks);
        const std::size_t width = ranges ? 3 : 1;
        const std::size_t rows = std::max<std::size_t>(v ? v->size() / width : 0, 1);
        std::vector<std::string> items;
        for (std::size_t r = 0; r < rows; ++r) {
          std::vector<std::string> row;
          for (std::size_t k = 0; k < width; ++k) {
            const std::size_t i = r * width + k;
            row.push_back(v && i < v->size() ? expr((*v)[i], intStyle(), at(x, fmt::format("element{}", i))) : "0");
          }
          items.push_back(ranges ? fmt::format("{{{}}}", fmt::join(row, ", ")) : row.front());
        }
        const Expr* count = param(c, Param::Count);
        d.set("n", std::to_string(rows));
        d.set(ranges ? "ranges" : "ranks", fmt::format("{}", fmt::join(items, ", ")));
        d.set("count", count ? expr(*count, intStyle(), at(x, "count")) : std::to_string(v ? v->size() / width : 0));
        d.set("group", group(x, need(c, Param::Group), "group"));
        uses_.newGroup = true;
        return render(ranges ? "call/group_range" : "call/group_incl", d);
      }
      case Op::GroupUnion:
      case Op::GroupIntersection:
      case Op::GroupDifference:
        d.set("group1", group(x, need(c, Param::Group1), "group1"));
        d.set("group2", group(x, need(c, Param::Group2), "group2"));
        uses_.newGroup = true;
        return render("call/group_combine", d);
      case Op::GroupFree: {
        const Expr& id = need(c, Param::Group);
        forEachConst(id, [&](double v) { uses_.maxGroupId = std::max(uses_.maxGroupId, asInt(v)); });
        d.set("id", expr(id, intStyle(), at(x, "group")));
        uses_.groupSlot = true;
        return render("call/group_free", d);
      }
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled group operation {}", opName(c.op)));
  }

  // ---- one-sided communication: windows by the trace's number (1000 + creation order on the
  // rank) in win_table; MPI_Win_create's memory is allocated at the recorded size. Transfers
  // use the message buffers (puts and accumulates read send_buf, gets write recv_buf) at target
  // displacement 0: the window holds at least the target's access, as the application's did.
  std::string window(const CallCtx& x) {
    const Expr& id = need(x.c, Param::Win);
    forEachConst(id, [&](double v) { uses_.maxWinId = std::max(uses_.maxWinId, asInt(v)); });
    uses_.windows = true;
    return expr(id, intStyle(), at(x, "win"));
  }

  // MPI_MODE_ bits as the trace numbers them (docs/trace-format.md): 1 nocheck, 2 nostore,
  // 4 noput, 8 noprecede, 16 nosucceed.
  std::string assertion(const CallCtx& x) {
    const Expr* e = param(x.c, Param::Assert);
    if (!e) return "0";
    return expr(*e, {"int", [](double v) {
                       static const char* const names[] = {"MPI_MODE_NOCHECK", "MPI_MODE_NOSTORE", "MPI_MODE_NOPUT",
                                                           "MPI_MODE_NOPRECEDE", "MPI_MODE_NOSUCCEED"};
                       const std::int64_t bits = asInt(v);
                       std::vector<std::string> on;
                       for (int b = 0; b < 5; ++b)
                         if (bits & (std::int64_t{1} << b)) on.push_back(names[b]);
                       return on.empty() ? std::string("0") : fmt::format("{}", fmt::join(on, " | "));
                     }},
                at(x, "assert"));
  }

  // count and datatype of a buffer, without marking the communicator used (comm(x) does): the
  // window and file calls name their communicator only where they are made.
  void buffer(const CallCtx& x, mus::data& d) {
    d.set("count", count(x, param(x.c, Param::Count), "count"));
    d.set("datatype", datatype(x, need(x.c, Param::Datatype), "datatype"));
  }

  std::string oneSidedText(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    d.set("win", window(x));
    auto target = [&] { d.set("dest", peer(x, need(c, Param::Dest), "dest")); };
    switch (c.op) {
      case Op::WinCreate:
      case Op::WinAllocate: {
        const Expr* size = param(c, Param::WinSize);
        const Expr* unit = param(c, Param::DispUnit);
        d.set("size", size ? expr(*size, {"long long", [](double v) { return fmt::format("{}LL", asInt(v)); }},
                                  at(x, "winsize"))
                           : "0LL");
        d.set("dispunit", unit ? expr(*unit, intStyle(), at(x, "dispunit")) : "1");
        d.set("comm", comm(x));
        (c.op == Op::WinCreate ? uses_.winCreate : uses_.winAllocate) = true;
        return render(c.op == Op::WinCreate ? "call/win_create" : "call/win_allocate", d);
      }
      case Op::WinFree:
        uses_.winFree = true;
        return render("call/win_free", d);
      case Op::WinFence:
      case Op::WinLockAll:
        d.set("assert", assertion(x));
        return render(c.op == Op::WinFence ? "call/win_fence" : "call/win_lock_all", d);
      case Op::WinLock: {
        target();
        d.set("assert", assertion(x));
        const Expr* type = param(c, Param::LockType);
        d.set("locktype", type ? expr(*type, {"int", [](double v) {
                                                return asInt(v) == 2 ? std::string("MPI_LOCK_SHARED")
                                                                     : std::string("MPI_LOCK_EXCLUSIVE");
                                              }},
                                      at(x, "locktype"))
                               : "MPI_LOCK_EXCLUSIVE");
        return render("call/win_lock", d);
      }
      case Op::WinUnlock:
      case Op::WinFlush:
      case Op::WinFlushLocal:
        target();
        return render("call/win_target", d);
      case Op::WinUnlockAll:
      case Op::WinFlushAll:
        return render("call/win_sync", d);
      case Op::Put:
      case Op::Get:
      case Op::Accumulate:
        buffer(x, d);
        receiveSide(x, d);
        target();
        d.set("buf", c.op == Op::Get ? "recv_buf" : "send_buf");
        if (c.op == Op::Accumulate) d.set("op", reduceOp(x, need(c, Param::ReduceOp)));
        return render(c.op == Op::Accumulate ? "call/accumulate" : "call/rma", d);
      default:
        break;
    }
    throw std::logic_error(fmt::format("unhandled one-sided operation {}", opName(c.op)));
  }

  // ---- MPI-IO: files by the trace's number (1000 + open order on the rank) in file_table. The
  // benchmark opens a scratch file of its own for each (scratch_name: $TMPDIR or the working
  // directory, named after the job), deleted on close, and reads and writes the traced counts and
  // datatypes at the traced offsets, from the message buffers.
  std::string fileIoText(const CallCtx& x, mus::data& d) {
    const CallStmt& c = x.c;
    const Expr& id = need(c, Param::File);
    forEachConst(id, [&](double v) { uses_.maxFileId = std::max(uses_.maxFileId, asInt(v)); });
    uses_.files = true;
    d.set("file", expr(id, intStyle(), at(x, "file")));
    switch (c.op) {
      case Op::FileOpen:
        d.set("comm", comm(x));
        return render("call/file_open", d);
      case Op::FileClose:
        return render("call/file_close", d);
      default:
        break;
    }
    buffer(x, d);
    const bool write = c.op == Op::FileWrite || c.op == Op::FileWriteAt || c.op == Op::FileWriteAll ||
                       c.op == Op::FileWriteAtAll;
    d.set("buf", write ? "send_buf" : "recv_buf");
    if (const Expr* off = param(c, Param::Offset)) {
      d.set("offset", expr(*off, {"long long", [](double v) { return fmt::format("{}LL", asInt(v)); }}, at(x, "offset")));
      return render("call/file_io_at", d);
    }
    if (c.op == Op::FileReadAt || c.op == Op::FileWriteAt || c.op == Op::FileReadAtAll || c.op == Op::FileWriteAtAll) {
      d.set("offset", "0LL");
      return render("call/file_io_at", d);
    }
    return render("call/file_io", d);
  }

  // --- values ------------------------------------------------------------------------------

  Style intStyle() const {
    return {"int", [](double v) { return std::to_string(asInt(v)); }};
  }
  // MPI_Comm_split's colour; a negative one was MPI_UNDEFINED.
  Style colorStyle() const {
    return {"int", [](double v) { return v < 0 ? std::string("MPI_UNDEFINED") : std::to_string(asInt(v)); }};
  }
  Style computeStyle() const {
    return {"double", [](double v) { return formatUs(v); }};
  }
  // Request offsets as recency: 9999 -> 1 (the most recent), -1 (MPI_REQUEST_NULL) -> 0.
  Style recencyStyle() {
    return {"int", [this](double v) {
              const std::int64_t off = asInt(v);
              if (off == kRequestNull) return std::string("0");
              const std::int64_t k = kRequestRing - off;
              if (k < 1 || k > kRequestRing)
                throw std::invalid_argument(fmt::format("request offset {} is out of range", off));
              uses_.ring = std::max(uses_.ring, k);
              return std::to_string(k);
            }};
  }

  // C's expression printer (gen/ProgramWalker.h's ExprPrinter): constants in the style of the
  // value, peers relative to the rank, `?:` chains over rank conditions, tables indexed by the
  // statement's execution counter, tests of a loop variable.
  class CExprPrinter : public ExprPrinter {
   public:
    CExprPrinter(CWriter& w, const Style& style, const Scope& scope) : w_(w), style_(style), scope_(scope) {}

   protected:
    std::string constant(double value) override { return style_.leaf(value); }

    std::string rankOffset(std::int64_t offset) override {
      return w_.rankOffset(peerOffset(offset, w_.peerRanks_, w_.program_.numRanks));
    }

    std::string byRank(const Expr& e) override {
      // Among many groups of plain values, a table by rank (kMaxRankChoices); at fixed scale
      // only, where the ranks are the trace's (a scale-free program's groups are position
      // classes, whatever the number of ranks).
      if (scope_.tables && !w_.program_.scaleFree && tabulatedByRank(e))
        if (std::optional<std::string> entry = w_.rankTable(e, style_, scope_)) return *entry;
      if (scope_.tables && !w_.program_.scaleFree && tabulatedByRankByCall(e))
        if (std::optional<std::string> entry = w_.rankByCallTable(e, style_, scope_)) return *entry;
      // The groups partition the statement's ranks, so the group with the longest condition
      // needs none: it is what remains.
      std::vector<std::pair<std::string, std::size_t>> conds;
      for (std::size_t i = 0; i < e.children.size(); ++i) conds.push_back({w_.rankCondition(e.groups[i]), i});
      std::stable_sort(conds.begin(), conds.end(),
                       [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
      const RankList statementRanks = w_.peerRanks_;  // each group's peers are spelled for its ranks
      mus::data choices{mus::data::type::list};
      for (std::size_t k = 0; k + 1 < conds.size(); ++k) {
        mus::data c;
        c.set("cond", conds[k].first);
        w_.peerRanks_ = RankList::intersect(statementRanks, e.groups[conds[k].second]);
        c.set("value", print(e.children[conds[k].second]));
        choices << c;
      }
      mus::data d;
      d.set("choices", choices);
      w_.peerRanks_ = RankList::intersect(statementRanks, e.groups[conds.back().second]);
      d.set("otherwise", print(e.children[conds.back().second]));
      w_.peerRanks_ = statementRanks;
      return w_.render("expr/by_rank", d);
    }

    std::string byExecution(const Expr& e) override {
      const Scope& scope = scope_;
      if (scope.counter.empty()) throw std::logic_error("Expr: a cycle over executions outside a counted statement");
      if (e.children.size() == 1) return print(e.children.front());
      const bool offsets = std::all_of(e.children.begin(), e.children.end(),
                                       [](const Expr& c) { return c.kind == Expr::Kind::RankOffset; });
      const bool constants = std::all_of(e.children.begin(), e.children.end(),
                                         [](const Expr& c) { return c.kind == Expr::Kind::Const; });
      // A cycle of peers is a table of offsets: signed when every one stays inside 0 … P-1
      // for the statement's ranks, else taken modulo P and wrapped.
      bool wrap = false;
      for (const auto& c : e.children)
        wrap = wrap || (offsets && peerOffset(c.offset, w_.peerRanks_, w_.program_.numRanks).wrap);
      std::vector<std::string> values;
      for (const auto& c : e.children)
        values.push_back(!offsets ? print(c)
                         : wrap   ? std::to_string(w_.normalOffset(c.offset))
                                  : std::to_string(peerOffset(c.offset, w_.peerRanks_, w_.program_.numRanks).offset));
      const std::string type = offsets ? "int" : style_.tableType;
      const std::string joined = fmt::format("{}", fmt::join(values, ", "));
      mus::data d;
      d.set("counter", scope.counter);
      d.set("n", std::to_string(e.children.size()));
      std::string table;
      if (scope.tables && (offsets || constants)) {
        // Named after the parameter and declared before the call; once per statement: a value
        // printed twice (the communicator of a collective, for its call and for what the
        // computation before it sends) reads the table declared the first time.
        Table t{offsets || style_.constant ? "static const " : "const ", type, "", joined, e.children.size(), 0, {}};
        const std::string base = scope.name + (offsets ? "_offsets" : "_values");
        const auto same = std::find_if(scope.tables->begin(), scope.tables->end(), [&](const Table& o) {
          return o.qualifier == t.qualifier && o.type == t.type && o.values == t.values && o.n == t.n && !o.scalar &&
                 o.rows.empty() && (o.name == base || o.name.starts_with(base + "_"));
        });
        const std::string name = same != scope.tables->end() ? same->name : tableName(*scope.tables, base);
        if (same == scope.tables->end()) {
          t.name = name;
          scope.tables->push_back(std::move(t));
        }
        d.set("table", name);
        table = w_.render("expr/table_entry", d);
      } else {
        d.set("type", type);
        d.set("values", joined);
        table = w_.render("expr/by_execution", d);
      }
      // A cycle of peers relative to the rank: the offsets cycle, the rank is added once.
      return offsets ? w_.rankOffsetTable(table, wrap) : table;
    }

    // A time by call (a computation that drifts over the calls): its ranges' first calls and
    // times are tables declared before the call, with a counter of the calls that took it;
    // the runtime's by_call() picks the range. Without a statement's tables, its mean.
    std::string byCall(const Expr& e) override {
      if (!scope_.tables) return print(Expr::constant(e.value));
      std::vector<std::string> firsts, times;
      for (std::size_t i = 0; i < e.children.size(); ++i) {
        firsts.push_back(std::to_string(e.firsts[i]));
        times.push_back(print(e.children[i]));
      }
      std::vector<Table>& tables = *scope_.tables;
      const std::string counter = tableName(tables, scope_.name == "compute_us" ? "compute_calls" : scope_.name + "_calls");
      tables.push_back(Table{"static ", "long", counter, "0", 0, 0, {}, true});
      const std::string from = tableName(tables, counter + "_from");
      tables.push_back(Table{"static const ", "long", from, fmt::format("{}", fmt::join(firsts, ", ")), firsts.size(), 0, {}, false});
      const std::string values = tableName(tables, scope_.name + "_by_call");
      tables.push_back(Table{style_.constant ? "static const " : "const ", style_.tableType, values,
                             fmt::format("{}", fmt::join(times, ", ")), times.size(), 0, {}, false});
      return fmt::format("by_call(&{}, {}, {}, {})", counter, times.size(), from, values);
    }

    std::string formula(const Expr& e) override { return w_.formulaText(e.formula); }
    std::string gridPeer(const Expr& e) override { return w_.gridPeerText(e.grid); }
    std::string block(const Expr& e) override { return w_.blockText(e.block); }
    std::string relationPeer(const Expr& e) override {
      if (!e.perExecutionInvariant() && scope_.counter.empty())
        throw std::logic_error("Expr: a relation's peer per step outside a counted statement");
      return w_.relationPeerText(e.relation, scope_.counter);
    }
    std::string progression(const Expr& e) override {
      if (scope_.counter.empty()) throw std::logic_error("Expr: a progression outside a counted statement");
      const std::string start = print(e.children[0]), step = print(e.children[1]), length = print(e.children[2]);
      const bool simple = length.find(' ') == std::string::npos;
      std::string k = fmt::format("{} % {}", scope_.counter, simple ? length : "(" + length + ")");
      const auto is = [](const Expr& c, double v) { return c.isConst() && c.value == v; };
      if (is(e.children[1], -1) && !is(e.children[0], 0)) return fmt::format("({} - {})", start, k);  // counting down
      if (!is(e.children[1], 1)) k = fmt::format("{} * ({})", step, k);
      return is(e.children[0], 0) ? "(" + k + ")" : fmt::format("({} + {})", start, k);
    }

    // (rank + i) % nranks, i the progression: the stored offsets lie in 0 .. P-1 (the
    // extrapolation checked them at every template), so one remainder brings the sum back.
    std::string progressionPeer(const Expr& e) override {
      Expr offsets = e;
      offsets.kind = Expr::Kind::Progression;
      return fmt::format("((rank + {}) % nranks)", progression(offsets));
    }

    std::string firstIteration(const Expr& e) override {
      mus::data d;
      d.set("var", w_.loopVar(e.loop));
      d.set("first", print(e.children[0]));
      d.set("rest", print(e.children[1]));
      return w_.render("expr/first_iteration", d);
    }

   private:
    CWriter& w_;
    const Style& style_;
    const Scope& scope_;
  };

  std::string expr(const Expr& e, const Style& style, const Scope& scope) { return CExprPrinter(*this, style, scope).print(e); }

  // The name of a new table of the statement being written: `base`, or `base_2`, ... where
  // the statement has one of that name already.
  static std::string tableName(const std::vector<Table>& tables, const std::string& base) {
    std::string name = base;
    for (int k = 2; std::any_of(tables.begin(), tables.end(), [&](const Table& t) { return t.name == name; }); ++k)
      name = fmt::format("{}_{}", base, k);
    return name;
  }

  // `count_by_rank[rank]`: a choice by rank among many groups of plain values (tabulatedByRank)
  // as a table of every rank's value, named after the parameter and declared before the call.
  // The entries of the ranks that do not make the call (never read) repeat the first value.
  // None when no rank of the call is in the choice's groups (the chain spells that).
  std::optional<std::string> rankTable(const Expr& e, const Style& style, const Scope& scope) {
    std::vector<std::optional<double>> byRank(static_cast<std::size_t>(program_.numRanks));
    std::optional<double> first;
    for (Rank r = 0; r < program_.numRanks; ++r) {
      if (!peerRanks_.contains(r)) continue;
      byRank[static_cast<std::size_t>(r)] = valueOfRank(e, r);
      if (!first) first = byRank[static_cast<std::size_t>(r)];
    }
    if (!first) return std::nullopt;
    std::vector<std::string> values;
    for (const auto& v : byRank) values.push_back(style.leaf(v.value_or(*first)));
    const std::string name = tableName(*scope.tables, scope.name + "_by_rank");
    scope.tables->push_back(Table{style.constant ? "static const " : "const ", style.tableType, name,
                                  fmt::format("{}", fmt::join(values, ", ")), values.size(), 0, {}});
    return name + "[rank]";
  }

  // `by_call(&compute_calls, n, compute_calls_from_by_rank[rank], compute_us_by_call_by_rank[rank])`:
  // a choice by rank among many groups of times some of which drift over calls, as tables of
  // rows by rank of each rank's ranges (tabulatedByRankByCall). Rows are padded to the longest
  // with the last range again (from 2147483647 on, the same time); the rows of ranks that do
  // not make the call repeat the first rank's. None when no rank of the call is in the groups.
  std::optional<std::string> rankByCallTable(const Expr& e, const Style& style, const Scope& scope) {
    std::vector<const Expr*> leaves(static_cast<std::size_t>(program_.numRanks), nullptr);
    const Expr* first = nullptr;
    std::size_t width = 1;
    for (Rank r = 0; r < program_.numRanks; ++r) {
      if (!peerRanks_.contains(r)) continue;
      const Expr* leaf = leafOfRank(e, r);
      leaves[static_cast<std::size_t>(r)] = leaf;
      if (!leaf) continue;
      if (!first) first = leaf;
      if (leaf->kind == Expr::Kind::ByCall) width = std::max(width, leaf->children.size());
    }
    if (!first) return std::nullopt;
    std::vector<std::string> fromRows, usRows;
    for (const Expr* leaf : leaves) {
      if (!leaf) leaf = first;
      std::vector<std::string> from, us;
      for (std::size_t i = 0; i < width; ++i) {
        if (leaf->kind != Expr::Kind::ByCall) {
          from.push_back(i == 0 ? "0" : "2147483647");
          us.push_back(style.leaf(leaf->value));
          continue;
        }
        const std::size_t k = std::min(i, leaf->children.size() - 1);
        from.push_back(i < leaf->children.size() ? std::to_string(leaf->firsts[i]) : "2147483647");
        us.push_back(style.leaf(leaf->children[k].value));
      }
      fromRows.push_back(fmt::format("{}", fmt::join(from, ", ")));
      usRows.push_back(fmt::format("{}", fmt::join(us, ", ")));
    }
    std::vector<Table>& tables = *scope.tables;
    const std::string counter = tableName(tables, scope.name == "compute_us" ? "compute_calls" : scope.name + "_calls");
    tables.push_back(Table{"static ", "long", counter, "0", 0, 0, {}, true});
    const std::string from = tableName(tables, counter + "_from_by_rank");
    tables.push_back(Table{"static const ", "long", from, "", fromRows.size(), width, std::move(fromRows), false});
    const std::string values = tableName(tables, scope.name + "_by_call_by_rank");
    tables.push_back(Table{style.constant ? "static const " : "const ", style.tableType, values, "", usRows.size(), width,
                           std::move(usRows), false});
    return fmt::format("by_call(&{}, {}, {}[rank], {}[rank])", counter, width, from, values);
  }

  std::int64_t normalOffset(std::int64_t off) const {
    return ((off % program_.numRanks) + program_.numRanks) % program_.numRanks;
  }

  // `rank`, `rank - 1`, `rank + 4`, `(rank + 1) % nranks`, `(rank + nranks - 1) % nranks`.
  std::string rankOffset(const PeerOffset& peer) {
    mus::data d;
    d.set("wrap", flag(peer.wrap));
    d.set("plus", flag(peer.offset > 0));
    d.set("minus", flag(peer.offset < 0));
    d.set("offset", std::to_string(peer.offset < 0 ? -peer.offset : peer.offset));
    return render("expr/rank_offset", d);
  }

  // `rank + dest_offsets[calls % 2]`, or with offsets modulo P `(rank + dest_offsets[…]) % nranks`.
  std::string rankOffsetTable(const std::string& table, bool wrap) {
    mus::data d;
    d.set("wrap", flag(wrap));
    d.set("plus", flag(true));
    d.set("offset", table);
    return render("expr/rank_offset", d);
  }

  std::string count(const CallCtx& x, const Expr* e, const std::string& name) {
    uses_.counts = true;
    mus::data d;
    d.set("count", e ? withoutParens(expr(*e, intStyle(), at(x, name))) : "0");
    return render("expr/msg_count", d);
  }

  const Datatype& datatypeById(std::int64_t id, const CallStmt& c) const {
    auto it = datatypes_.find(id);
    if (it == datatypes_.end())
      throw std::invalid_argument(fmt::format("{}: datatype {} is not described by the trace", label(c), id));
    return *it->second;
  }

  std::string typeName(const Datatype& d) {
    if (predefinedTypes().count(d.name)) return d.name;
    uses_.derived[d.id] = &d;
    return fmt::format("type{}", d.id);
  }

  std::string datatype(const CallCtx& x, const Expr& e, const std::string& name) {
    return expr(e, {"MPI_Datatype", [&](double v) { return typeName(datatypeById(asInt(v), x.c)); }, false},
                at(x, name));
  }

  static constexpr std::int64_t kMaxUserOps = 1000;
  // The comment a call with a user-defined operator gets above it (withUserOpComment).
  std::string userOpComment_, builtinTypeName_;
  std::string withUserOpComment(std::string call) {
    if (userOpComment_.empty()) return call;
    std::string out = userOpComment_ + "\n" + call;
    userOpComment_.clear();
    return out;
  }

  // The built-in operator a user-defined one is replayed with, when the call's datatype is one
  // predefined datatype the whole program through: MPI_SUM on integers, floating-point and
  // complex types, MPI_BOR on MPI_BYTE, MPI_LOR on logicals, MPI_MAXLOC on the pair types.
  // Empty for derived datatypes (no predefined operator is valid on them) and for MPI_CHAR and
  // others no predefined operator takes: those keep a created operator.
  std::string builtinForUserOp(const CallCtx& x) {
    const Expr* e = param(x.c, Param::Datatype);
    if (!e || e->kind != Expr::Kind::Const) return {};
    auto it = datatypes_.find(asInt(e->value));
    if (it == datatypes_.end()) return {};
    const std::string& n = it->second->name;
    builtinTypeName_ = n;
    static const std::set<std::string> sum = {
        "MPI_INT", "MPI_LONG", "MPI_SHORT", "MPI_UNSIGNED_SHORT", "MPI_UNSIGNED", "MPI_UNSIGNED_LONG",
        "MPI_LONG_LONG_INT", "MPI_LONG_LONG", "MPI_UNSIGNED_LONG_LONG", "MPI_SIGNED_CHAR", "MPI_UNSIGNED_CHAR",
        "MPI_INT8_T", "MPI_INT16_T", "MPI_INT32_T", "MPI_INT64_T", "MPI_UINT8_T", "MPI_UINT16_T", "MPI_UINT32_T",
        "MPI_UINT64_T", "MPI_AINT", "MPI_OFFSET", "MPI_COUNT", "MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE",
        "MPI_C_FLOAT_COMPLEX", "MPI_C_DOUBLE_COMPLEX", "MPI_C_COMPLEX", "MPI_C_LONG_DOUBLE_COMPLEX", "MPI_INTEGER",
        "MPI_REAL", "MPI_DOUBLE_PRECISION", "MPI_COMPLEX", "MPI_DOUBLE_COMPLEX", "MPI_INTEGER4", "MPI_INTEGER8",
        "MPI_REAL4", "MPI_REAL8"};
    static const std::set<std::string> loc = {"MPI_FLOAT_INT", "MPI_DOUBLE_INT", "MPI_LONG_INT", "MPI_2INT",
                                              "MPI_SHORT_INT", "MPI_LONG_DOUBLE_INT", "MPI_2REAL",
                                              "MPI_2DOUBLE_PRECISION", "MPI_2INTEGER"};
    if (sum.count(n)) return "MPI_SUM";
    if (n == "MPI_BYTE") return "MPI_BOR";
    if (n == "MPI_C_BOOL" || n == "MPI_LOGICAL" || n == "MPI_CXX_BOOL") return "MPI_LOR";
    if (loc.count(n)) return "MPI_MAXLOC";
    return {};
  }

  std::string reduceOp(const CallCtx& x, const Expr& e) {
    return expr(e,
                {"MPI_Op",
                 [&](double v) {
                   const std::int64_t op = asInt(v);
                   if (op >= 1000 && op < 1000 + kMaxUserOps) {
                     // A predefined datatype: a built-in operator valid on it (docs/c-backend.md,
                     // "User-defined reduction operators").
                     if (std::string builtin = builtinForUserOp(x); !builtin.empty()) {
                       userOpComment_ = fmt::format(
                           "/* The application's user-defined operator {} (MPI_Op_create), replayed with {}:\n"
                           "   a built-in operator valid on {} moves the same bytes. */",
                           op - 1000, builtin, builtinTypeName_);
                       return builtin;
                     }
                     // tracegen's recorder numbers user-defined operators 1000 + first use; what
                     // they compute is not recorded, so the benchmark makes operators of its own
                     // (that leave the result as it is) in the same order: same calls, same bytes.
                     uses_.maxUserOp = std::max(uses_.maxUserOp, op);
                     userOpComment_ = fmt::format(
                         "/* The application's user-defined operator {} (MPI_Op_create), on a derived datatype\n"
                         "   where no built-in operator is valid: user_op({}) creates one, the same bytes. */",
                         op - 1000, op - 1000);
                     return fmt::format("user_op({})", op - 1000);
                   }
                   std::string_view name = op > 0 && op <= 13 ? reduceOpName(op) : std::string_view();
                   if (name.substr(0, 4) != "MPI_")
                     throw std::invalid_argument(fmt::format(
                         "{}: reduction operator {} is not a predefined MPI operator (user-defined operators are not "
                         "recorded, so they cannot be reproduced)",
                         label(x.c), op));
                   return std::string(name);
                 },
                 false},
                at(x, "op"));
  }

  // The communicator argument: the predefined ones by name, the application's by number.
  std::string comm(const CallCtx& x) {
    const Expr* e = param(x.c, Param::Comm);
    if (!e) return "MPI_COMM_WORLD";
    forEachConst(*e, [&](double v) {
      if (v >= 1000) uses_.maxCommId = std::max(uses_.maxCommId, asInt(v));
    });
    if (e->isConst()) {
      switch (asInt(e->value)) {
        case kCommNull: return "MPI_COMM_NULL";
        case kCommSelf: return "MPI_COMM_SELF";
        case kCommWorld: return "MPI_COMM_WORLD";
        default: break;
      }
    }
    uses_.commOf = uses_.commSlot = true;
    mus::data d;
    d.set("id", withoutParens(expr(*e, intStyle(), at(x, "comm"))));
    return render("expr/comm_of", d);
  }

  std::string group(const CallCtx& x, const Expr& e, const std::string& name) {
    forEachConst(e, [&](double v) { uses_.maxGroupId = std::max(uses_.maxGroupId, asInt(v)); });
    uses_.groupOf = uses_.groupSlot = true;
    mus::data d;
    d.set("id", withoutParens(expr(e, intStyle(), at(x, name))));
    return render("expr/group_of", d);
  }

  // A peer or root: a world rank in the model, the call's communicator's rank in MPI. The
  // named peers are MPI's own constants, so the benchmark makes the traced call.
  std::string peer(const CallCtx& x, const Expr& e, const std::string& name) {
    Style style{"int", [](double v) {
                  if (asInt(v) == kAnySource) return std::string("MPI_ANY_SOURCE");
                  if (asInt(v) == kProcNull) return std::string("MPI_PROC_NULL");
                  return std::to_string(asInt(v));
                }};
    std::string world = expr(e, style, at(x, name));
    const Expr* c = param(x.c, Param::Comm);
    if (!c || (c->isConst() && asInt(c->value) == kCommWorld)) return world;
    uses_.commRank = true;
    mus::data d;
    d.set("comm", expr(*c, intStyle(), at(x, "comm")));
    d.set("rank", world);
    return render("expr/comm_rank", d);
  }

  // Receives may have been traced with MPI_ANY_TAG (negative).
  std::string tag(const CallCtx& x, Param p, bool receive) {
    const Expr* e = param(x.c, p);
    if (!e) return "0";
    Style style{"int", [receive](double v) { return receive && v < 0 ? std::string("MPI_ANY_TAG") : std::to_string(asInt(v)); }};
    return expr(*e, style, at(x, std::string(paramName(p))));
  }

  // The buffers hold the largest message of any call: counts times the largest datatype
  // size, times the communicator size for collectives (gathers and all-to-alls), vectors as
  // their largest displacement plus all their counts.
  void noteMessage(const CallStmt& c) {
    if (program_.scaleFree) return noteScaleFreeMessage(c);
    auto typeSize = [&](Param p) {
      std::int64_t m = 0;
      if (const Expr* e = param(c, p))
        forEachConst(*e, [&](double v) {
          auto it = datatypes_.find(asInt(v));
          if (it != datatypes_.end()) m = std::max(m, it->second->size);
        });
      return m;
    };
    // MPI_Alltoallw: the per-peer datatypes, vectors.
    auto vectorTypeSize = [&](Param p) {
      std::int64_t m = 0;
      if (const auto* v = vec(c, p))
        for (const auto& e : *v)
          forEachConst(e, [&](double t) {
            auto it = datatypes_.find(asInt(t));
            if (it != datatypes_.end()) m = std::max(m, it->second->size);
          });
      return m;
    };
    const std::int64_t size = std::max({typeSize(Param::Datatype), typeSize(Param::RecvType),
                                        vectorTypeSize(Param::SendTypes), vectorTypeSize(Param::RecvTypes)});
    if (size == 0) return;
    auto countOf = [&](Param p) {
      const Expr* e = param(c, p);
      return e ? std::max<std::int64_t>(asInt(maxConst(*e)), 0) : 0;
    };
    std::int64_t elements = std::max(countOf(Param::Count), countOf(Param::RecvCount));
    if (isCollective(opInfo(c.op).kind)) elements *= program_.numRanks;
    for (auto [counts, displs] : {std::pair{Param::RecvCounts, Param::Displs}, std::pair{Param::SendCounts, Param::Displs},
                                  std::pair{Param::RecvCounts, Param::RecvDispls}}) {
      std::int64_t sum = 0, displ = 0;
      if (const auto* v = vec(c, counts))
        for (const auto& e : *v) sum += std::max<std::int64_t>(asInt(maxConst(e)), 0);
      if (const auto* v = vec(c, displs))
        for (const auto& e : *v) displ = std::max(displ, asInt(maxConst(e)));
      elements = std::max(elements, sum + displ);
    }
    uses_.largestBytes = std::max(uses_.largestBytes, elements * size);
  }

  // --- scale-free programs (Program::scaleFree, extrap/ScaleFree.h) --------------------------
  // Ranks are position classes of the process grid, values formulas of the scale. The text of
  // a formula is C's own arithmetic on nranks and the grid's extents px, py, pz; each integer
  // formula also says when it is whole (`240 / px` needs px dividing 240), which
  // scale_problem() checks before the benchmark communicates.

  static std::string_view scaleVarName(ScaleFormula::Var v) {
    switch (v) {
      case ScaleFormula::Var::P: return "nranks";
      case ScaleFormula::Var::Px: return "px";
      case ScaleFormula::Var::Py: return "py";
      case ScaleFormula::Var::Pz: return "pz";
      case ScaleFormula::Var::X: return "x";
      case ScaleFormula::Var::Y: return "y";
      case ScaleFormula::Var::Z: return "z";
    }
    return "nranks";
  }
  static std::string scaleVarWords(ScaleFormula::Var v) {
    return v == ScaleFormula::Var::P ? "the rank count" : std::string(scaleVarName(v));
  }

  // x^(|num|/den) * log2(x)^logPower for an integer formula; "" for the constant 1.
  std::string integerTerm(const ScaleFormula& f) {
    // In 1-D the rank is its own coordinate.
    const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
    const std::string var(oneD && f.var == ScaleFormula::Var::X ? "rank" : scaleVarName(f.var));
    std::vector<std::string> factors;
    const int n = std::abs(f.num);
    if (n > 0) {
      std::string base = var;
      if (f.den > 1) {
        base = fmt::format("iroot({}, {})", var, f.den);
        uses_.scaleHelpers = true;
        noteScaleCondition(fmt::format("is_power({}, {})", var, f.den),
                           fmt::format("{} {}", scaleVarWords(f.var),
                                       f.den == 2 ? "a square number" : f.den == 3 ? "a cube" : fmt::format("a {}th power", f.den)));
      }
      if (n <= 3)
        for (int k = 0; k < n; ++k) factors.push_back(base);
      else
        factors.push_back(fmt::format("ipow({}, {})", base, n)), uses_.scaleHelpers = true;
    }
    for (int k = 0; k < f.logPower; ++k) {
      factors.push_back(fmt::format("ilog2({})", var));
      uses_.scaleHelpers = true;
      noteScaleCondition(fmt::format("is_power_of_two({})", var), fmt::format("{} a power of two", scaleVarWords(f.var)));
    }
    return fmt::format("{}", fmt::join(factors, " * "));
  }

  void noteScaleCondition(const std::string& cond, const std::string& words) {
    for (const auto& [c, w] : scaleConditions_)
      if (c == cond) return;
    scaleConditions_.emplace_back(cond, words);
  }

  std::string formulaText(const ScaleFormula& f) {
    if (!f.integer) return realFormulaText(f);
    if (f.c0den != 1) throw std::invalid_argument("scale-free: a formula with a fractional constant term");
    const std::string c0 = std::to_string(f.c0num);
    const std::string t = integerTerm(f);
    if (f.c1num == 0 || t.empty()) {
      if (f.c1den != 1 && f.c1num != 0) throw std::invalid_argument("scale-free: a fractional constant");
      return std::to_string(f.c0num + (t.empty() ? f.c1num : 0));
    }
    const bool compound = t.find(' ') != std::string::npos;
    const std::int64_t a = f.c1num, b = f.c1den;
    std::string part;
    if (f.num >= 0) {
      part = a == 1 ? t : a == -1 ? "-" + t : fmt::format("{} * {}", a, t);
      if (b != 1) {
        part = fmt::format("{} / {}", part, b);
        noteScaleCondition(fmt::format("{} % {} == 0", compound ? "(" + t + ")" : t, b),
                           fmt::format("{} a multiple of {}", compound ? t : scaleVarWords(f.var), b));
      }
    } else {
      const std::string den = b == 1 ? t : fmt::format("{} * {}", b, t);
      part = fmt::format("{} / {}", a, b == 1 && !compound ? den : "(" + den + ")");
      noteScaleCondition(fmt::format("{} % {} == 0", a, b == 1 && !compound ? den : "(" + den + ")"),
                         fmt::format("{} dividing {}", b == 1 && !compound ? scaleVarWords(f.var) : den, std::abs(a)));
    }
    if (f.c0num == 0) return part;
    if (part.front() == '-') return fmt::format("{} - {}", c0, part.substr(1));
    if (f.c0num < 0) return fmt::format("{} - {}", part, -f.c0num);
    return fmt::format("{} + {}", part, c0);
  }

  // c0 + c1 * x^(num/den) * log2(x)^logPower in floating point: a time in microseconds.
  std::string realFormulaText(const ScaleFormula& f) {
    const std::string var(scaleVarName(f.var));
    auto number = [](double v) { return fmt::format("{:.6g}", v); };
    if (f.c1 == 0 || (f.num == 0 && f.logPower == 0)) return number(f.c0);
    const double c1 = std::abs(f.c1);
    std::string part;
    if (f.den == 1 && f.logPower == 0 && std::abs(f.num) <= 2) {
      const std::string power = std::abs(f.num) == 1 ? var : fmt::format("((double){} * {})", var, var);
      part = fmt::format("{} {} {}", number(c1), f.num > 0 ? "*" : "/", power);
    } else {
      uses_.scaleHelpers = true;
      part = number(c1);
      if (f.num != 0) part += fmt::format(" * pow_real({}, {}, {})", var, f.num, f.den);
      for (int k = 0; k < f.logPower; ++k) part += fmt::format(" * log2_real({})", var);
    }
    if (f.c0 == 0) return f.c1 < 0 ? "-" + part : part;
    return fmt::format("{} {} {}", number(f.c0), f.c1 < 0 ? "-" : "+", part);
  }

  // The position classes `classes` as a condition on the rank's grid coordinates: a union of
  // boxes, each a product of per-dimension position sets (first, interior, last).
  std::string classCondition(const RankList& classes) {
    const int dims = program_.scaleFree->dims;
    static constexpr std::array<std::string_view, 3> kCoord{"x", "y", "z"}, kExtent{"px", "py", "pz"};
    auto dimCondition = [&](int d, int mask) -> std::string {
      const std::string c(dims == 1 ? "rank" : kCoord[static_cast<std::size_t>(d)]);
      const std::string n(dims == 1 ? "nranks" : kExtent[static_cast<std::size_t>(d)]);
      switch (mask) {
        case kFirstBit: return c + " == 0";
        case kInteriorBit: return fmt::format("{} > 0 && {} < {} - 1", c, c, n);
        case kLastBit: return fmt::format("{} == {} - 1", c, n);
        case kFirstBit | kInteriorBit: return fmt::format("{} < {} - 1", c, n);
        case kInteriorBit | kLastBit: return c + " > 0";
        case kFirstBit | kLastBit: return fmt::format("({} == 0 || {} == {} - 1)", c, c, n);
        default: return "";
      }
    };
    std::vector<std::string> terms;
    for (const ClassBox& box : classBoxes(classes, dims)) {
      std::vector<std::string> parts;
      for (int d = 0; d < dims; ++d)
        if (box[static_cast<std::size_t>(d)] != kAnyPosition) parts.push_back(dimCondition(d, box[static_cast<std::size_t>(d)]));
      terms.push_back(parts.empty() ? "1" : fmt::format("{}", fmt::join(parts, " && ")));
    }
    if (terms.size() == 1) return terms.front();
    for (auto& t : terms)
      if (t.find(" && ") != std::string::npos) t = "(" + t + ")";
    return fmt::format("({})", fmt::join(terms, " || "));
  }

  // The rank one grid step away: `rank + 1`, `rank - px`, or with wrap-around
  // `grid_rank((x + 1) % px, y, z)`; in 1-D `(rank + 1) % nranks`.
  std::string gridPeerText(const GridStep& g) {
    const int dims = program_.scaleFree ? program_.scaleFree->dims : 1;
    if (dims == 1) {
      const int o = g.step[0];
      if (o == 0) return "rank";
      if (g.wrap[0]) return o > 0 ? "(rank + 1) % nranks" : "(rank + nranks - 1) % nranks";
      return o > 0 ? "rank + 1" : "rank - 1";
    }
    static constexpr std::array<std::string_view, 3> kCoord{"x", "y", "z"}, kExtent{"px", "py", "pz"}, kUnit{"1", "px", "px * py"};
    const bool wrap = g.wrap[0] || g.wrap[1] || g.wrap[2];
    if (!wrap) {
      std::string t = "rank";
      for (std::size_t d = 0; d < 3; ++d)
        if (g.step[d] != 0) t += fmt::format(" {} {}", g.step[d] > 0 ? "+" : "-", kUnit[d]);
      return t;
    }
    uses_.gridRank = true;
    std::vector<std::string> coords;
    for (std::size_t d = 0; d < 3; ++d) {
      const std::string c(kCoord[d]), n(kExtent[d]);
      if (static_cast<int>(d) >= dims) coords.push_back("0");
      else if (g.step[d] == 0) coords.push_back(c);
      else if (!g.wrap[d]) coords.push_back(fmt::format("{} {} 1", c, g.step[d] > 0 ? "+" : "-"));
      else coords.push_back(g.step[d] > 0 ? fmt::format("({} + 1) % {}", c, n) : fmt::format("({} + {} - 1) % {}", c, n, n));
    }
    return fmt::format("grid_rank({})", fmt::join(coords, ", "));
  }

  // A relation's peer (gen/GridRelation.h) in C, at the step the statement's execution counter
  // names, and its domain as a condition of scale_problem(): the row's XOR partners (2^k, or i
  // for a pairwise exchange) need px a power of two, the transpose partner px a multiple of py.
  std::string relationPeerText(GridRelation rel, const std::string& counter) {
    const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
    const std::string row = oneD ? "nranks" : "px";
    uses_.scaleHelpers = true;
    switch (rel) {
      case GridRelation::RowXor:
        noteScaleCondition(fmt::format("is_power_of_two({})", row),
                           fmt::format("{} a power of two", oneD ? "the rank count" : "px"));
        noteScaleCondition(fmt::format("{} >= 2", row), fmt::format("{} at least 2", oneD ? "the rank count" : "px"));
        return fmt::format("(rank ^ (1 << ({} % ilog2({}))))", counter, row);
      case GridRelation::RowPairwise:
        noteScaleCondition(fmt::format("is_power_of_two({})", row),
                           fmt::format("{} a power of two", oneD ? "the rank count" : "px"));
        noteScaleCondition(fmt::format("{} >= 2", row), fmt::format("{} at least 2", oneD ? "the rank count" : "px"));
        return fmt::format("(rank ^ (1 + {} % ({} - 1)))", counter, row);
      case GridRelation::Transpose:
        if (oneD || program_.scaleFree->dims != 2)
          throw std::invalid_argument("scale-free: the transpose partner on a grid that is not 2-D");
        uses_.gridRank = true;
        noteScaleCondition("px % py == 0", "px a multiple of py");
        return "grid_rank(px / py * y + x % (px / py), x / (px / py), 0)";
    }
    throw std::logic_error("scale-free: an unknown relation");
  }

  // A block-distribution value (gen/Program.h, BlockTerm) of the calling rank's coordinate:
  // (a + b * (N / px + (x < N % px))), with its domain (every rank a point) as a condition of
  // scale_problem().
  std::string blockText(const BlockTerm& t) {
    const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
    static constexpr std::array<std::string_view, 3> kCoord{"x", "y", "z"}, kExtent{"px", "py", "pz"};
    const auto d = static_cast<std::size_t>(t.dim);
    const std::string c(oneD ? "rank" : kCoord.at(d)), n(oneD ? "nranks" : kExtent.at(d));
    noteScaleCondition(fmt::format("{} <= {}", n, t.points),
                       fmt::format("{} at most {} (each rank a block of the {} points it splits)", oneD ? "the rank count" : n,
                                   t.points, t.points));
    const std::string size = fmt::format("({} / {} + ({} < {} % {}))", t.points, n, c, t.points, n);
    const std::string part = t.b == 1 ? size : fmt::format("{} * {}", t.b, size);
    if (t.a == 0) return t.b == 1 ? size : "(" + part + ")";
    return fmt::format("({} + {})", t.a, part);
  }
  // Its largest value at the scale the benchmark runs at: the widest block's (the narrowest's
  // where b < 0).
  std::string blockLargestText(const BlockTerm& t) {
    const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
    static constexpr std::array<std::string_view, 3> kExtent{"px", "py", "pz"};
    const std::string n(oneD ? "nranks" : kExtent.at(static_cast<std::size_t>(t.dim)));
    const std::string size = t.b >= 0 ? fmt::format("({} + {} - 1) / {}", t.points, n, n) : fmt::format("{} / {}", t.points, n);
    return fmt::format("{} + {} * ({})", t.a, t.b, size);
  }

  // Every formula leaf of an expression (the values it can take at one scale).
  static void formulaLeaves(const Expr& e, std::vector<Expr>& out) {
    if (e.kind == Expr::Kind::Formula || e.kind == Expr::Kind::Const || e.kind == Expr::Kind::Block) out.push_back(e);
    if (e.kind == Expr::Kind::Progression) {
      // start + step * k for k < length: the largest is at one end.
      out.push_back(e.children[0]);
      return;
    }
    for (const auto& c : e.children) formulaLeaves(c, out);
  }

  // A scale-free program's buffers hold its largest message at the scale it runs at: the
  // largest of every count formula times its datatype's size (times nranks for collectives),
  // computed by largest_message_bytes_now() once the grid is known.
  void noteScaleFreeMessage(const CallStmt& c) {
    for (Param p : {Param::SendCounts, Param::RecvCounts, Param::Displs, Param::RecvDispls})
      if (vec(c, p))
        throw std::invalid_argument(fmt::format("{}: a scale-free benchmark cannot have per-peer count vectors yet",
                                                label(c)));
    std::int64_t size = 0;
    for (Param p : {Param::Datatype, Param::RecvType})
      if (const Expr* e = param(c, p))
        forEachConst(*e, [&](double v) {
          auto it = datatypes_.find(asInt(v));
          if (it != datatypes_.end()) size = std::max(size, it->second->size);
        });
    if (size == 0) return;
    std::vector<const Expr*> counts;
    for (Param p : {Param::Count, Param::RecvCount})
      if (const Expr* e = param(c, p)) counts.push_back(e);
    // An even split's count is per peer, as a collective's count.
    for (const auto& [p, e] : c.evenVectors) counts.push_back(&e);
    for (const Expr* e : counts) {
      std::vector<Expr> leaves;
      formulaLeaves(*e, leaves);
      for (const Expr& leaf : leaves) {
        std::string count = leaf.kind == Expr::Kind::Const   ? std::to_string(asInt(leaf.value))
                            : leaf.kind == Expr::Kind::Block ? blockLargestText(leaf.block)
                                                             : formulaText(leaf.formula);
        std::string bytes = fmt::format("(long long)({}) * {}", count, size);
        if (isCollective(opInfo(c.op).kind)) bytes += " * nranks";
        if (std::find(byteFormulas_.begin(), byteFormulas_.end(), bytes) == byteFormulas_.end()) byteFormulas_.push_back(bytes);
      }
    }
  }

  // --- the file ----------------------------------------------------------------------------

  std::string skeleton(const std::string& init, const std::string& measured, const std::string& finalize,
                       const std::string& parts) {
    mus::data d;
    const std::string output = options_.outputName.empty() || options_.outputName == "-"
                                   ? std::string("bench.c")
                                   : options_.outputName.substr(options_.outputName.find_last_of('/') + 1);
    d.set("output", commentSafe(output));
    d.set("source", commentSafe(program_.source.empty() ? "(not given)" : program_.source));
    d.set("origin", commentSafe(program_.origin.empty() ? "(not given)" : program_.origin));
    const bool scaleFree = program_.scaleFree.has_value();
    d.set("ranks", scaleFree ? "any count that fits its formulas (a scale-free benchmark)" : std::to_string(program_.numRanks));
    d.set("scale_free", flag(scaleFree));
    d.set("fixed_scale", flag(!scaleFree));
    if (scaleFree) {
      d.set("inputs", commentSafe(program_.scaleFree->inputs));
      d.set("order", gridOrderText());
    }
    d.set("command", commentSafe(options_.commandLine.empty() ? "tracegen" : options_.commandLine));
    mus::data notes{mus::data::type::list};
    for (const auto& note : program_.notes) {
      bool firstLine = true;
      for (const auto& line : wrapWords(commentSafe(note), 86)) {
        mus::data l;
        l.set("line", (firstLine ? "  - " : "    ") + line);
        notes << l;
        firstLine = false;
      }
    }
    d.set("has_notes", flag(!program_.notes.empty()));
    d.set("notes", notes);

    // Only what a call passes: no status variable is declared that nothing reads.
    bool statusRead = false;  // `&status` as a whole word (not `&statuses`)
    for (const std::string* text : {&measured, &parts})
      for (std::size_t at = text->find("&status"); at != std::string::npos && !statusRead; at = text->find("&status", at + 1)) {
        const std::size_t end = at + std::string_view("&status").size();
        statusRead = end == text->size() || !(std::isalnum(static_cast<unsigned char>((*text)[end])) || (*text)[end] == '_');
      }
    if (!statusRead) uses_.status = false;
    if (measured.find("statuses") == std::string::npos && parts.find("statuses") == std::string::npos) uses_.statuses = 0;
    d.set("status_vars", flag(uses_.status || uses_.statuses > 0));
    d.set("uses_status", flag(uses_.status));
    d.set("has_statuses", flag(uses_.statuses > 0));
    d.set("statuses", std::to_string(uses_.statuses));

    // The runtime (gen/CRuntime.h) is the same C for every trace; the tables it keeps get
    // their sizes from struct tracegen_trace, zero for a table the calls do not use.
    d.set("separate", flag(options_.separateRuntime));
    d.set("runtime", options_.separateRuntime ? std::string(kCRuntimeInclude) + "\n" : embeddedCRuntime());
    d.set("source_name", commentSafe(sourceName()));
    const bool requests = uses_.newRequest || uses_.recentRequest;
    const bool comms = uses_.newComm || uses_.newCommAt || uses_.commSlot || uses_.commOf || uses_.commRank;
    const bool groups = uses_.newGroup || uses_.groupSlot || uses_.groupOf;
    std::vector<std::pair<std::string, std::string>> initializers;  // `.name = value,`, comment
    auto field = [&](const std::string& name, const std::string& value, const std::string& comment) {
      initializers.emplace_back(fmt::format(".{} = {},", name, value), comment);
    };
    field("ranks", scaleFree ? "0" : std::to_string(program_.numRanks), scaleFree ? "any count that fits" : "");
    field("source", "\"" + cStringBody(program_.source) + "\"", "");
    if (!scaleFree)
      field("largest_message_bytes", std::to_string(std::max(uses_.largestBytes, program_.maxMessageBytes)),
            "the largest traced message");
    if (requests) field("request_ring", std::to_string(uses_.ring), "the calls name requests up to this far back");
    if (uses_.recvSlices)
      field("recv_slices",
            std::to_string(localRequests_.empty() ? uses_.ring : std::max<std::int64_t>(localReceives_, 1)),
            "receives pending at once: one slice of recv_buf each");
    if (comms) field("comm_slots", std::to_string(std::max<std::int64_t>(uses_.maxCommId - 999, 1)), "");  // never % 0
    if (groups)
      field("group_slots",
            std::to_string(uses_.newGroup ? std::max<std::int64_t>(uses_.maxGroupId, 1999) - 999 : uses_.maxGroupId - 999),
            "");
    if (uses_.windows) field("win_slots", std::to_string(std::max<std::int64_t>(uses_.maxWinId - 999, 1)), "");
    if (uses_.files) field("file_slots", std::to_string(std::max<std::int64_t>(uses_.maxFileId - 999, 1)), "");
    if (uses_.maxUserOp >= 1000) field("user_op_slots", std::to_string(uses_.maxUserOp - 999), "");
    if (uses_.bsend)
      field("bsend_messages", "16", "MPI_Bsend: set_up() attaches room for 16 messages");
    if (!uses_.derived.empty()) {
      field("type_count", std::to_string(uses_.derived.size()), "");
      field("types", "trace_types", "");
    }
    // The process footprint (gen/Program.h): the start-up before MPI_Init, the memory per rank.
    const bool beforeInit = program_.beforeInitUs > 0;
    if (beforeInit)
      field("before_init_us", formatUs(program_.beforeInitUs), "the application's own start-up before MPI_Init");
    d.set("has_before_init", flag(beforeInit));
    const bool afterFinalize = program_.afterFinalizeUs > 0;
    if (afterFinalize)
      field("after_finalize_us", formatUs(program_.afterFinalizeUs), "the application's own time after MPI_Finalize");
    d.set("has_after_finalize", flag(afterFinalize));
    d.set("has_footprint", flag(program_.memoryKb.has_value()));
    if (program_.memoryKb) {
      d.set("memory_kb", withoutParens(expr(*program_.memoryKb,
                                            Style{"long long", [](double v) { return fmt::format("{:.0f}", v); }},
                                            Scope{"0", "memory_kb", nullptr})));
      field("memory_kb", "memory_kb", "");
    }
    if (scaleFree) {
      field("grid_dims", std::to_string(program_.scaleFree->dims), "the ranks form a grid of this many dimensions");
      if (program_.scaleFree->descending) field("grid_descending", "1", "its longest side along x, numbered first");
      field("scale_problem", "scale_problem", "");
      field("place", "place", "");
      field("largest_message_bytes_now", "largest_message_bytes_now", "");
      d.set("scale_block", scaleBlock());
    }
    std::size_t column = 0;  // the comments line up after the longest commented initializer
    for (const auto& [text, comment] : initializers)
      if (!comment.empty()) column = std::max(column, text.size());
    mus::data fields{mus::data::type::list};
    for (const auto& [text, comment] : initializers) {
      mus::data f;
      f.set("line", comment.empty() ? text : fmt::format("{:<{}} /* {} */", text, column, comment));
      fields << f;
    }
    d.set("fields", fields);
    mus::data helperLines{mus::data::type::list};
    if (const auto helpers = runtimeHelpers(); !helpers.empty())
      for (const auto& line : wrapWords(fmt::format("The calls below use these of its helpers: {}.", fmt::join(helpers, ", ")), 94)) {
        mus::data l;
        l.set("line", line);
        helperLines << l;
      }
    d.set("helper_lines", helperLines);

    mus::data types{mus::data::type::list};
    for (const auto& [id, t] : uses_.derived) {
      mus::data ty;
      ty.set("var", fmt::format("type{}", id));
      ty.set("name", commentSafe(t->name));
      ty.set("size", std::to_string(t->size));
      types << ty;
    }
    d.set("has_types", flag(!uses_.derived.empty()));
    d.set("types", types);

    d.set("init", wrapLines(init, kWidth));
    d.set("body", wrapLines(measured, kWidth));
    d.set("parts", wrapLines(parts, kWidth));
    d.set("finalize", wrapLines(finalize, kWidth));
    return collapseBlankLines(render("program", d)) + "\n";
  }

  // How the default grid orders its extents (the runtime's grid_descending, its --help alike).
  std::string gridOrderText() const {
    return program_.scaleFree->descending ? "the longest extent first" : "the smallest extent first";
  }

  // The scale-free part: the grid's variables, the checks of the formulas, the buffers' size.
  std::string scaleBlock() {
    const int dims = program_.scaleFree->dims;
    mus::data d;
    d.set("dims", std::to_string(dims));
    d.set("order", gridOrderText());
    d.set("dim2", flag(dims >= 2));
    d.set("dim3", flag(dims == 3));
    d.set("helpers", flag(uses_.scaleHelpers));
    d.set("grid_rank", flag(uses_.gridRank));
    if (program_.scaleFree->square && dims >= 2) {
      // First: the formulas were fitted on such grids only (gen/Program.h, ScaleFreeGrid).
      const std::string cond = dims == 3 ? "px == py && py == pz" : "px == py";
      const std::string words = dims == 3 ? "a cubic grid (px = py = pz: a cube rank count), as the traces'"
                                          : "a square grid (px = py: a square rank count), as the traces'";
      std::erase_if(scaleConditions_, [&](const auto& c) { return c.first == cond; });
      scaleConditions_.insert(scaleConditions_.begin(), {cond, words});
    }
    mus::data conditions{mus::data::type::list};
    for (const auto& [cond, words] : scaleConditions_) {
      mus::data c;
      c.set("cond", cond);
      c.set("words", cStringBody(words));
      conditions << c;
    }
    d.set("conditions", conditions);
    mus::data bytes{mus::data::type::list};
    for (const auto& b : byteFormulas_) {
      mus::data x;
      x.set("bytes", b);
      bytes << x;
    }
    d.set("bytes", bytes);
    return render("scale_free", d);
  }

  // The skeleton keeps optional blocks on lines of their own with blank lines around them;
  // a block left out leaves its blank lines behind, and runs of them become one.
  static std::string collapseBlankLines(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    int newlines = 0;
    for (char ch : text) {
      if (ch == '\n') {
        if (++newlines > 2) continue;
      } else {
        newlines = 0;
      }
      out += ch;
    }
    return out;
  }

  // The trace file's name without its directories, for the line where the benchmark starts.
  std::string sourceName() const {
    if (program_.source.empty()) return "(not given)";
    const std::size_t slash = program_.source.find_last_of('/');
    return slash == std::string::npos || slash + 1 == program_.source.size() ? program_.source
                                                                              : program_.source.substr(slash + 1);
  }

  // The runtime's helpers the calls use, for the comment that points a reader to them.
  std::vector<std::string> runtimeHelpers() const {
    std::vector<std::string> h;
    auto add = [&](bool used, std::initializer_list<const char*> names) {
      if (used)
        for (const char* n : names) h.push_back(n);
    };
    add(uses_.compute, {"compute()"});
    add(uses_.computeSending, {"compute_sending()"});
    add(uses_.computeSendingBlocks, {"compute_sending_blocks()"});
    add(uses_.swapBuffers, {"swap_buffers()"});
    add(uses_.pollIdle, {"poll_idle()"});
    add(uses_.counts, {"msg_count()"});
    add(uses_.displs, {"pack_displs()"});
    add(uses_.byteDispls, {"pack_byte_displs()"});
    add(uses_.aintDispls, {"pack_aint_displs()"});
    add(uses_.requestAints, {"request_aints()"});
    add(uses_.newRequest, {"new_request()"});
    add(uses_.recentRequest, {"recent_request()"});
    add(uses_.requestLists, {"take_requests()", "put_back_requests()"});
    add(uses_.recvSlices && !uses_.boundSlices, {"recv_slice()"});
    add(uses_.boundSlices, {"recv_slice_bound()", "bind_slice()"});
    add(uses_.requestArrays, {"request_ints()"});
    add(uses_.persistent, {"start_request()", "take_persistent_requests()", "put_started_requests()"});
    add(uses_.messages, {"new_message()", "next_message()", "message_found()", "oldest_message()"});
    add(uses_.maxUserOp >= 1000, {"user_op()"});
    add(uses_.newComm, {"new_comm()"});
    add(uses_.newCommAt && !uses_.newComm, {"new_comm_at()"});
    add(uses_.commSlot, {"comm_slot()"});
    add(uses_.commOf, {"comm_of()"});
    add(uses_.commRank, {"comm_rank()"});
    add(uses_.newGroup, {"new_group()"});
    add(uses_.groupSlot, {"group_slot()"});
    add(uses_.groupOf, {"group_of()"});
    add(uses_.windows, {"win_slot()"});
    add(uses_.winCreate || uses_.winAllocate, {"win_bytes()"});
    add(uses_.winAllocate, {"win_base"});
    add(uses_.winCreate, {"win_memory_for()"});
    add(uses_.winFree, {"win_memory_release()"});
    add(uses_.files, {"file_slot()", "scratch_name()"});
    return h;
  }

  std::map<std::int64_t, const Datatype*> datatypes_;
  std::map<std::string, std::string> rankConditions_;  // RankList::str() -> cRankCondition
  // Scale-free programs: when the formulas are whole (C condition, in words), and the byte
  // counts of the messages, for scale_problem() and largest_message_bytes_now().
  std::vector<std::pair<std::string, std::string>> scaleConditions_;
  std::vector<std::string> byteFormulas_;
  RankList peerRanks_ = RankList::all(program_.numRanks);  // the ranks the current peer is spelled for
  Uses uses_;
};

class CBackend : public Backend {
 public:
  std::string_view name() const override { return "c"; }
  std::string_view extension() const override { return ".c"; }
  std::string render(const Program& program, const GenOptions& options) const override {
    return CWriter(program, options).render();
  }
};

}  // namespace

std::unique_ptr<Backend> createCBackend() { return std::make_unique<CBackend>(); }

}  // namespace tracegen::gen
