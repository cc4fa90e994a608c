// The C backend's program skeleton (gen/c/CBackend.h): render() checks MPI_Init and
// MPI_Finalize, cuts a long measured region into parts (a function each), and skeleton()
// fills templates/c/program.mustache with them, the runtime's table sizes, the helpers the
// calls use and the scale-free block; also the text helpers the other files share and the
// backend's factory, createCBackend (gen/Backends.h).
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

namespace {

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

constexpr std::size_t kWidth = 100;  // columns of the generated statements

}  // namespace

mus::data flag(bool on) { return on ? mus::data(mus::data::type::bool_true) : mus::data(mus::data::type::bool_false); }

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

Needs& Needs::operator|=(const Needs& o) {
  compute |= o.compute; counts |= o.counts; displs |= o.displs; status |= o.status;
  computeSending |= o.computeSending; computeSendingBlocks |= o.computeSendingBlocks; swapBuffers |= o.swapBuffers;
  statuses = std::max(statuses, o.statuses);
  newRequest |= o.newRequest; recentRequest |= o.recentRequest; requestLists |= o.requestLists;
  persistent |= o.persistent; messages |= o.messages; requestArrays |= o.requestArrays; byteDispls |= o.byteDispls;
  recvSlices |= o.recvSlices; boundSlices |= o.boundSlices; aintDispls |= o.aintDispls; requestAints |= o.requestAints;
  ring = std::max(ring, o.ring);
  newComm |= o.newComm; newCommAt |= o.newCommAt; commSlot |= o.commSlot; commOf |= o.commOf; commRank |= o.commRank;
  maxCommId = std::max(maxCommId, o.maxCommId);
  maxUserOp = std::max(maxUserOp, o.maxUserOp);
  newGroup |= o.newGroup; groupSlot |= o.groupSlot; groupOf |= o.groupOf;
  maxGroupId = std::max(maxGroupId, o.maxGroupId);
  bsend |= o.bsend; pollIdle |= o.pollIdle;
  windows |= o.windows; winCreate |= o.winCreate; winAllocate |= o.winAllocate; winFree |= o.winFree;
  maxWinId = std::max(maxWinId, o.maxWinId);
  files |= o.files;
  maxFileId = std::max(maxFileId, o.maxFileId);
  largestBytes = std::max(largestBytes, o.largestBytes);
  derived.insert(o.derived.begin(), o.derived.end());
  scaleHelpers |= o.scaleHelpers; gridRank |= o.gridRank;
  for (const auto& [cond, words] : o.scaleConditions) scaleCondition(cond, words);
  for (const auto& b : o.byteFormulas)
    if (std::find(byteFormulas.begin(), byteFormulas.end(), b) == byteFormulas.end()) byteFormulas.push_back(b);
  return *this;
}

void Needs::scaleCondition(const std::string& cond, const std::string& words) {
  for (const auto& [c, w] : scaleConditions)
    if (c == cond) return;
  scaleConditions.emplace_back(cond, words);
}

CWriter::CWriter(const Program& p, const GenOptions& o) : ProgramWalker(p, o, "c", true) {
  for (const auto& d : p.datatypes) datatypes_[d.id] = &d;
  findLocalRequests();
  buffersMaySwap_ = !hasPendingSends(p.body);
}

std::string CWriter::render() {
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
  Needs needs;  // of everything below
  const std::vector<std::size_t> cuts = partCuts(body, first, last);
  if (cuts.size() <= 2) {
    measured = indent(needs.take(walked(body, first, last, all())), 2);
  } else {
    const std::size_t count = cuts.size() - 1;
    for (std::size_t k = 0; k < count; ++k) {
      const auto [from, to] = eventIds(body, cuts[k], cuts[k + 1]);
      parts += fmt::format("/* The measured region, part {} of {}: trace events E{} to E{}. */\n"
                           "static void measured_part_{}(void)\n{{\n{}}}\n\n",
                           k + 1, count, from, to, k + 1, indent(needs.take(walked(body, cuts[k], cuts[k + 1], all())), 2));
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
      needs.compute = true;
      mus::data d;
      d.set("label", label(s.call));
      // MPI_Finalize runs once: a value that cycles over executions takes its first. Values
      // by rank among many groups are a table (kMaxRankChoices) declared in a block of its own.
      std::vector<Table> tables;
      d.set("compute", withoutParens(needs.take(
                           expr(s.call.computeUs, computeStyle(), Scope{"0", "compute_us", &tables, s.ranks}))));
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
  return skeleton(init, measured, finalize, parts, std::move(needs));
}

std::size_t CWriter::callCount(const Stmt& s) {
  if (s.kind != Stmt::Kind::Loop) return 1;
  std::size_t n = 0;
  for (const Stmt& b : s.loop.body) n += callCount(b);
  return n;
}

void CWriter::localArraysOf(const Stmt& s, std::set<int>& out) const {
  if (s.kind == Stmt::Kind::Loop) {
    for (const Stmt& b : s.loop.body) localArraysOf(b, out);
  } else if (auto it = localRequests_.find(&s.call); it != localRequests_.end()) {
    out.insert(it->second.array);
  }
}

std::vector<std::size_t> CWriter::partCuts(const std::vector<Stmt>& body, std::size_t first, std::size_t last) const {
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
std::pair<std::int64_t, std::int64_t> CWriter::eventIds(const std::vector<Stmt>& body, std::size_t from, std::size_t to) {
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

// The file around the statements, which need `needs`: its declarations and the runtime's table
// sizes come from those alone.
std::string CWriter::skeleton(const std::string& init, const std::string& measured, const std::string& finalize,
                              const std::string& parts, Needs needs) {
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
  d.set("status_vars", flag(needs.status || needs.statuses > 0));
  d.set("uses_status", flag(needs.status));
  d.set("has_statuses", flag(needs.statuses > 0));
  d.set("statuses", std::to_string(needs.statuses));

  // The runtime (gen/CRuntime.h) is the same C for every trace; the tables it keeps get
  // their sizes from struct tracegen_trace, zero for a table the calls do not use.
  d.set("separate", flag(options_.separateRuntime));
  d.set("runtime", options_.separateRuntime ? std::string(kCRuntimeInclude) + "\n" : embeddedCRuntime());
  d.set("source_name", commentSafe(sourceName()));
  const bool requests = needs.newRequest || needs.recentRequest;
  const bool comms = needs.newComm || needs.newCommAt || needs.commSlot || needs.commOf || needs.commRank;
  const bool groups = needs.newGroup || needs.groupSlot || needs.groupOf;
  std::vector<std::pair<std::string, std::string>> initializers;  // `.name = value,`, comment
  auto field = [&](const std::string& name, const std::string& value, const std::string& comment) {
    initializers.emplace_back(fmt::format(".{} = {},", name, value), comment);
  };
  field("ranks", scaleFree ? "0" : std::to_string(program_.numRanks), scaleFree ? "any count that fits" : "");
  field("source", "\"" + cStringBody(program_.source) + "\"", "");
  if (!scaleFree)
    field("largest_message_bytes", std::to_string(std::max(needs.largestBytes, program_.maxMessageBytes)),
          "the largest traced message");
  if (requests) field("request_ring", std::to_string(needs.ring), "the calls name requests up to this far back");
  if (needs.recvSlices)
    field("recv_slices",
          std::to_string(localRequests_.empty() ? needs.ring : std::max<std::int64_t>(localReceives_, 1)),
          "receives pending at once: one slice of recv_buf each");
  if (comms) field("comm_slots", std::to_string(std::max<std::int64_t>(needs.maxCommId - 999, 1)), "");  // never % 0
  if (groups)
    field("group_slots",
          std::to_string(needs.newGroup ? std::max<std::int64_t>(needs.maxGroupId, 1999) - 999 : needs.maxGroupId - 999),
          "");
  if (needs.windows) field("win_slots", std::to_string(std::max<std::int64_t>(needs.maxWinId - 999, 1)), "");
  if (needs.files) field("file_slots", std::to_string(std::max<std::int64_t>(needs.maxFileId - 999, 1)), "");
  if (needs.maxUserOp >= 1000) field("user_op_slots", std::to_string(needs.maxUserOp - 999), "");
  if (needs.bsend)
    field("bsend_messages", "16", "MPI_Bsend: set_up() attaches room for 16 messages");
  if (!needs.derived.empty()) {
    field("type_count", std::to_string(needs.derived.size()), "");
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
    d.set("memory_kb", withoutParens(needs.take(expr(*program_.memoryKb,
                                                     Style{"long long", [](double v) { return fmt::format("{:.0f}", v); }},
                                                     Scope{"0", "memory_kb", nullptr, all()}))));
    field("memory_kb", "memory_kb", "");
  }
  if (scaleFree) {
    field("grid_dims", std::to_string(program_.scaleFree->dims), "the ranks form a grid of this many dimensions");
    if (program_.scaleFree->descending) field("grid_descending", "1", "its longest side along x, numbered first");
    field("scale_problem", "scale_problem", "");
    field("place", "place", "");
    field("largest_message_bytes_now", "largest_message_bytes_now", "");
    d.set("scale_block", scaleBlock(needs));
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
  if (const auto helpers = runtimeHelpers(needs); !helpers.empty())
    for (const auto& line : wrapWords(fmt::format("The calls below use these of its helpers: {}.", fmt::join(helpers, ", ")), 94)) {
      mus::data l;
      l.set("line", line);
      helperLines << l;
    }
  d.set("helper_lines", helperLines);

  mus::data types{mus::data::type::list};
  for (const auto& [id, t] : needs.derived) {
    mus::data ty;
    ty.set("var", fmt::format("type{}", id));
    ty.set("name", commentSafe(t->name));
    ty.set("size", std::to_string(t->size));
    types << ty;
  }
  d.set("has_types", flag(!needs.derived.empty()));
  d.set("types", types);

  d.set("init", wrapLines(init, kWidth));
  d.set("body", wrapLines(measured, kWidth));
  d.set("parts", wrapLines(parts, kWidth));
  d.set("finalize", wrapLines(finalize, kWidth));
  return collapseBlankLines(render("program", d)) + "\n";
}

// How the default grid orders its extents (the runtime's grid_descending, its --help alike).
std::string CWriter::gridOrderText() const {
  return program_.scaleFree->descending ? "the longest extent first" : "the smallest extent first";
}

// The scale-free part: the grid's variables, the checks of the formulas, the buffers' size.
std::string CWriter::scaleBlock(const Needs& needs) {
  const int dims = program_.scaleFree->dims;
  mus::data d;
  d.set("dims", std::to_string(dims));
  d.set("order", gridOrderText());
  d.set("dim2", flag(dims >= 2));
  d.set("dim3", flag(dims == 3));
  std::vector<std::pair<std::string, std::string>> scaleConditions = needs.scaleConditions;
  d.set("helpers", flag(needs.scaleHelpers));
  d.set("grid_rank", flag(needs.gridRank));
  if (program_.scaleFree->square && dims >= 2) {
    // First: the formulas were fitted on such grids only (gen/Program.h, ScaleFreeGrid).
    const std::string cond = dims == 3 ? "px == py && py == pz" : "px == py";
    const std::string words = dims == 3 ? "a cubic grid (px = py = pz: a cube rank count), as the traces'"
                                        : "a square grid (px = py: a square rank count), as the traces'";
    std::erase_if(scaleConditions, [&](const auto& c) { return c.first == cond; });
    scaleConditions.insert(scaleConditions.begin(), {cond, words});
  }
  mus::data conditions{mus::data::type::list};
  for (const auto& [cond, words] : scaleConditions) {
    mus::data c;
    c.set("cond", cond);
    c.set("words", cStringBody(words));
    conditions << c;
  }
  d.set("conditions", conditions);
  mus::data bytes{mus::data::type::list};
  for (const auto& b : needs.byteFormulas) {
    mus::data x;
    x.set("bytes", b);
    bytes << x;
  }
  d.set("bytes", bytes);
  return render("scale_free", d);
}

// The skeleton keeps optional blocks on lines of their own with blank lines around them;
// a block left out leaves its blank lines behind, and runs of them become one.
std::string CWriter::collapseBlankLines(const std::string& text) {
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
std::string CWriter::sourceName() const {
  if (program_.source.empty()) return "(not given)";
  const std::size_t slash = program_.source.find_last_of('/');
  return slash == std::string::npos || slash + 1 == program_.source.size() ? program_.source
                                                                            : program_.source.substr(slash + 1);
}

// The runtime's helpers the calls use, for the comment that points a reader to them.
std::vector<std::string> CWriter::runtimeHelpers(const Needs& needs) {
  std::vector<std::string> h;
  auto add = [&](bool used, std::initializer_list<const char*> names) {
    if (used)
      for (const char* n : names) h.push_back(n);
  };
  add(needs.compute, {"compute()"});
  add(needs.computeSending, {"compute_sending()"});
  add(needs.computeSendingBlocks, {"compute_sending_blocks()"});
  add(needs.swapBuffers, {"swap_buffers()"});
  add(needs.pollIdle, {"poll_idle()"});
  add(needs.counts, {"msg_count()"});
  add(needs.displs, {"pack_displs()"});
  add(needs.byteDispls, {"pack_byte_displs()"});
  add(needs.aintDispls, {"pack_aint_displs()"});
  add(needs.requestAints, {"request_aints()"});
  add(needs.newRequest, {"new_request()"});
  add(needs.recentRequest, {"recent_request()"});
  add(needs.requestLists, {"take_requests()", "put_back_requests()"});
  add(needs.recvSlices && !needs.boundSlices, {"recv_slice()"});
  add(needs.boundSlices, {"recv_slice_bound()", "bind_slice()"});
  add(needs.requestArrays, {"request_ints()"});
  add(needs.persistent, {"start_request()", "take_persistent_requests()", "put_started_requests()"});
  add(needs.messages, {"new_message()", "next_message()", "message_found()", "oldest_message()"});
  add(needs.maxUserOp >= 1000, {"user_op()"});
  add(needs.newComm, {"new_comm()"});
  add(needs.newCommAt && !needs.newComm, {"new_comm_at()"});
  add(needs.commSlot, {"comm_slot()"});
  add(needs.commOf, {"comm_of()"});
  add(needs.commRank, {"comm_rank()"});
  add(needs.newGroup, {"new_group()"});
  add(needs.groupSlot, {"group_slot()"});
  add(needs.groupOf, {"group_of()"});
  add(needs.windows, {"win_slot()"});
  add(needs.winCreate || needs.winAllocate, {"win_bytes()"});
  add(needs.winAllocate, {"win_base"});
  add(needs.winCreate, {"win_memory_for()"});
  add(needs.winFree, {"win_memory_release()"});
  add(needs.files, {"file_slot()", "scratch_name()"});
  return h;
}

}  // namespace tracegen::gen::cgen

namespace tracegen::gen {

namespace {

class CBackend : public Backend {
 public:
  std::string_view name() const override { return "c"; }
  std::string_view extension() const override { return ".c"; }
  std::string render(const Program& program, const GenOptions& options) const override {
    return cgen::CWriter(program, options).render();
  }
};

}  // namespace

std::unique_ptr<Backend> createCBackend() { return std::make_unique<CBackend>(); }

}  // namespace tracegen::gen
