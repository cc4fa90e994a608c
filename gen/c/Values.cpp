// The C backend's values: the styles of constants, the expression printer, tables by
// execution and by rank, peers, counts, datatypes, reduction operators, communicators,
// tags and the message sizes the buffers must hold; and the value helpers the other files
// share (gen/c/CBackend.h).
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

namespace {

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

double maxConst(const Expr& e) {
  double m = 0;
  forEachConst(e, [&](double v) { m = std::max(m, v); });
  return m;
}

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

}  // namespace

std::int64_t asInt(double v) { return static_cast<std::int64_t>(std::llround(v)); }

// Microseconds to the nanosecond, without trailing zeros.
std::string formatUs(double us) {
  std::string s = fmt::format("{:.3f}", us);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

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

// The value of a plainPerRank expression for one rank; none for a rank outside its groups.
std::optional<double> valueOfRank(const Expr& e, Rank rank) {
  if (e.kind == Expr::Kind::Const) return e.value;
  for (std::size_t i = 0; i < e.groups.size() && i < e.children.size(); ++i)
    if (e.groups[i].contains(rank)) return valueOfRank(e.children[i], rank);
  return std::nullopt;
}

Style CWriter::intStyle() const {
  return {"int", [](double v) { return std::to_string(asInt(v)); }};
}

// MPI_Comm_split's colour; a negative one was MPI_UNDEFINED.
Style CWriter::colorStyle() const {
  return {"int", [](double v) { return v < 0 ? std::string("MPI_UNDEFINED") : std::to_string(asInt(v)); }};
}

Style CWriter::computeStyle() const {
  return {"double", [](double v) { return formatUs(v); }};
}

// Request offsets as recency: 9999 -> 1 (the most recent), -1 (MPI_REQUEST_NULL) -> 0.
Style CWriter::recencyStyle() const {
  return {"int", [](double v) -> Lowered {
            const std::int64_t off = asInt(v);
            if (off == kRequestNull) return std::string("0");
            const std::int64_t k = kRequestRing - off;
            if (k < 1 || k > kRequestRing)
              throw std::invalid_argument(fmt::format("request offset {} is out of range", off));
            return {std::to_string(k), Needs{.ring = k}};
          }};
}

class CWriter::CExprPrinter : public ExprPrinter {
 public:
  CExprPrinter(CWriter& w, const Style& style, const Scope& scope) : w_(w), style_(style), scope_(scope) {}

  Needs needs;  // of what it printed

 protected:
  std::string constant(double value) override { return needs.take(style_.leaf(value)); }

  std::string rankOffset(std::int64_t offset) override {
    return w_.rankOffset(peerOffset(offset, scope_.ranks, w_.program_.numRanks));
  }

  std::string byRank(const Expr& e) override {
    // Among many groups of plain values, a table by rank (kMaxRankChoices); at fixed scale
    // only, where the ranks are the trace's (a scale-free program's groups are position
    // classes, whatever the number of ranks).
    if (scope_.tables && !w_.program_.scaleFree && tabulatedByRank(e))
      if (std::optional<Lowered> entry = w_.rankTable(e, style_, scope_)) return needs.take(*entry);
    if (scope_.tables && !w_.program_.scaleFree && tabulatedByRankByCall(e))
      if (std::optional<Lowered> entry = w_.rankByCallTable(e, style_, scope_)) return needs.take(*entry);
    // The groups partition the statement's ranks, so the group with the longest condition
    // needs none: it is what remains.
    std::vector<std::pair<std::string, std::size_t>> conds;
    for (std::size_t i = 0; i < e.children.size(); ++i) conds.push_back({w_.rankCondition(e.groups[i]), i});
    std::stable_sort(conds.begin(), conds.end(),
                     [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
    mus::data choices{mus::data::type::list};
    for (std::size_t k = 0; k + 1 < conds.size(); ++k) {
      mus::data c;
      c.set("cond", conds[k].first);
      c.set("value", ofGroup(e, conds[k].second));
      choices << c;
    }
    mus::data d;
    d.set("choices", choices);
    d.set("otherwise", ofGroup(e, conds.back().second));
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
      wrap = wrap || (offsets && peerOffset(c.offset, scope.ranks, w_.program_.numRanks).wrap);
    std::vector<std::string> values;
    for (const auto& c : e.children)
      values.push_back(!offsets ? print(c)
                       : wrap   ? std::to_string(w_.normalOffset(c.offset))
                                : std::to_string(peerOffset(c.offset, scope.ranks, w_.program_.numRanks).offset));
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

  std::string formula(const Expr& e) override { return needs.take(w_.formulaText(e.formula)); }
  std::string gridPeer(const Expr& e) override { return needs.take(w_.gridPeerText(e.grid)); }
  std::string block(const Expr& e) override { return needs.take(w_.blockText(e.block)); }
  std::string relationPeer(const Expr& e) override {
    if (!e.perExecutionInvariant() && scope_.counter.empty())
      throw std::logic_error("Expr: a relation's peer per step outside a counted statement");
    return needs.take(w_.relationPeerText(e.relation, scope_.counter));
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
  // The value of group k of a choice by rank, its peers spelled for the group's ranks.
  std::string ofGroup(const Expr& e, std::size_t k) {
    Scope group = scope_;
    group.ranks = RankList::intersect(scope_.ranks, e.groups[k]);
    CExprPrinter printer(w_, style_, group);
    std::string text = printer.print(e.children[k]);
    needs |= printer.needs;
    return text;
  }

  CWriter& w_;
  const Style& style_;
  const Scope& scope_;
};

Lowered CWriter::expr(const Expr& e, const Style& style, const Scope& scope) {
  CExprPrinter printer(*this, style, scope);
  std::string text = printer.print(e);
  return {std::move(text), std::move(printer.needs)};
}

// The name of a new table of the statement being written: `base`, or `base_2`, ... where
// the statement has one of that name already.
std::string CWriter::tableName(const std::vector<Table>& tables, const std::string& base) {
  std::string name = base;
  for (int k = 2; std::any_of(tables.begin(), tables.end(), [&](const Table& t) { return t.name == name; }); ++k)
    name = fmt::format("{}_{}", base, k);
  return name;
}

// `count_by_rank[rank]`: a choice by rank among many groups of plain values (tabulatedByRank)
// as a table of every rank's value, named after the parameter and declared before the call.
// The entries of the ranks that do not make the call (never read) repeat the first value.
// None when no rank of the call is in the choice's groups (the chain spells that).
std::optional<Lowered> CWriter::rankTable(const Expr& e, const Style& style, const Scope& scope) {
  std::vector<std::optional<double>> byRank(static_cast<std::size_t>(program_.numRanks));
  std::optional<double> first;
  for (Rank r = 0; r < program_.numRanks; ++r) {
    if (!scope.ranks.contains(r)) continue;
    byRank[static_cast<std::size_t>(r)] = valueOfRank(e, r);
    if (!first) first = byRank[static_cast<std::size_t>(r)];
  }
  if (!first) return std::nullopt;
  std::vector<std::string> values;
  Needs needs;
  for (const auto& v : byRank) values.push_back(needs.take(style.leaf(v.value_or(*first))));
  const std::string name = tableName(*scope.tables, scope.name + "_by_rank");
  scope.tables->push_back(Table{style.constant ? "static const " : "const ", style.tableType, name,
                                fmt::format("{}", fmt::join(values, ", ")), values.size(), 0, {}});
  return Lowered{name + "[rank]", needs};
}

// `by_call(&compute_calls, n, compute_calls_from_by_rank[rank], compute_us_by_call_by_rank[rank])`:
// a choice by rank among many groups of times some of which drift over calls, as tables of
// rows by rank of each rank's ranges (tabulatedByRankByCall). Rows are padded to the longest
// with the last range again (from 2147483647 on, the same time); the rows of ranks that do
// not make the call repeat the first rank's. None when no rank of the call is in the groups.
std::optional<Lowered> CWriter::rankByCallTable(const Expr& e, const Style& style, const Scope& scope) {
  std::vector<const Expr*> leaves(static_cast<std::size_t>(program_.numRanks), nullptr);
  const Expr* first = nullptr;
  std::size_t width = 1;
  for (Rank r = 0; r < program_.numRanks; ++r) {
    if (!scope.ranks.contains(r)) continue;
    const Expr* leaf = leafOfRank(e, r);
    leaves[static_cast<std::size_t>(r)] = leaf;
    if (!leaf) continue;
    if (!first) first = leaf;
    if (leaf->kind == Expr::Kind::ByCall) width = std::max(width, leaf->children.size());
  }
  if (!first) return std::nullopt;
  std::vector<std::string> fromRows, usRows;
  Needs needs;
  for (const Expr* leaf : leaves) {
    if (!leaf) leaf = first;
    std::vector<std::string> from, us;
    for (std::size_t i = 0; i < width; ++i) {
      if (leaf->kind != Expr::Kind::ByCall) {
        from.push_back(i == 0 ? "0" : "2147483647");
        us.push_back(needs.take(style.leaf(leaf->value)));
        continue;
      }
      const std::size_t k = std::min(i, leaf->children.size() - 1);
      from.push_back(i < leaf->children.size() ? std::to_string(leaf->firsts[i]) : "2147483647");
      us.push_back(needs.take(style.leaf(leaf->children[k].value)));
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
  return Lowered{fmt::format("by_call(&{}, {}, {}[rank], {}[rank])", counter, width, from, values), needs};
}

std::int64_t CWriter::normalOffset(std::int64_t off) const {
  return ((off % program_.numRanks) + program_.numRanks) % program_.numRanks;
}

// `rank`, `rank - 1`, `rank + 4`, `(rank + 1) % nranks`, `(rank + nranks - 1) % nranks`.
std::string CWriter::rankOffset(const PeerOffset& peer) {
  mus::data d;
  d.set("wrap", flag(peer.wrap));
  d.set("plus", flag(peer.offset > 0));
  d.set("minus", flag(peer.offset < 0));
  d.set("offset", std::to_string(peer.offset < 0 ? -peer.offset : peer.offset));
  return render("expr/rank_offset", d);
}

// `rank + dest_offsets[calls % 2]`, or with offsets modulo P `(rank + dest_offsets[…]) % nranks`.
std::string CWriter::rankOffsetTable(const std::string& table, bool wrap) {
  mus::data d;
  d.set("wrap", flag(wrap));
  d.set("plus", flag(true));
  d.set("offset", table);
  return render("expr/rank_offset", d);
}

Lowered CWriter::count(const CallCtx& x, const Expr* e, const std::string& name) {
  Needs needs{.counts = true};
  mus::data d;
  d.set("count", e ? withoutParens(needs.take(expr(*e, intStyle(), at(x, name)))) : "0");
  return {render("expr/msg_count", d), needs};
}

const Datatype& CWriter::datatypeById(std::int64_t id, const CallStmt& c) const {
  auto it = datatypes_.find(id);
  if (it == datatypes_.end())
    throw std::invalid_argument(fmt::format("{}: datatype {} is not described by the trace", label(c), id));
  return *it->second;
}

Lowered CWriter::typeName(const Datatype& d) {
  if (predefinedTypes().count(d.name)) return d.name;
  return {fmt::format("type{}", d.id), Needs{.derived = {{d.id, &d}}}};
}

Lowered CWriter::datatype(const CallCtx& x, const Expr& e, const std::string& name) {
  return expr(e, {"MPI_Datatype", [&](double v) { return typeName(datatypeById(asInt(v), x.c)); }, false},
              at(x, name));
}

std::string CWriter::withUserOpComment(const std::string& comment, std::string call) {
  return comment.empty() ? call : comment + "\n" + call;
}

// The built-in operator a user-defined one is replayed with, when the call's datatype is one
// predefined datatype the whole program through: MPI_SUM on integers, floating-point and
// complex types, MPI_BOR on MPI_BYTE, MPI_LOR on logicals, MPI_MAXLOC on the pair types.
// Empty for derived datatypes (no predefined operator is valid on them) and for MPI_CHAR and
// others no predefined operator takes: those keep a created operator. With the datatype's name.
std::pair<std::string, std::string> CWriter::builtinForUserOp(const CallCtx& x) const {
  const Expr* e = param(x.c, Param::Datatype);
  if (!e || e->kind != Expr::Kind::Const) return {};
  auto it = datatypes_.find(asInt(e->value));
  if (it == datatypes_.end()) return {};
  const std::string& n = it->second->name;
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
  if (sum.count(n)) return {"MPI_SUM", n};
  if (n == "MPI_BYTE") return {"MPI_BOR", n};
  if (n == "MPI_C_BOOL" || n == "MPI_LOGICAL" || n == "MPI_CXX_BOOL") return {"MPI_LOR", n};
  if (loc.count(n)) return {"MPI_MAXLOC", n};
  return {};
}

// A reduction operator, and the comment of the last user-defined one the value names.
CWriter::ReduceOp CWriter::reduceOp(const CallCtx& x, const Expr& e) {
  std::string comment;
  auto leaf = [&](double v) -> Lowered {
    const std::int64_t op = asInt(v);
    if (op >= 1000 && op < 1000 + kMaxUserOps) {
      // A predefined datatype: a built-in operator valid on it (docs/c-backend.md,
      // "User-defined reduction operators").
      if (auto [builtin, type] = builtinForUserOp(x); !builtin.empty()) {
        comment = fmt::format(
            "/* The application's user-defined operator {} (MPI_Op_create), replayed with {}:\n"
            "   a built-in operator valid on {} moves the same bytes. */",
            op - 1000, builtin, type);
        return builtin;
      }
      // tracegen's recorder numbers user-defined operators 1000 + first use; what
      // they compute is not recorded, so the benchmark makes operators of its own
      // (that leave the result as it is) in the same order: same calls, same bytes.
      comment = fmt::format(
          "/* The application's user-defined operator {} (MPI_Op_create), on a derived datatype\n"
          "   where no built-in operator is valid: user_op({}) creates one, the same bytes. */",
          op - 1000, op - 1000);
      return {fmt::format("user_op({})", op - 1000), Needs{.maxUserOp = op}};
    }
    std::string_view name = op > 0 && op <= 13 ? reduceOpName(op) : std::string_view();
    if (name.substr(0, 4) != "MPI_")
      throw std::invalid_argument(fmt::format(
          "{}: reduction operator {} is not a predefined MPI operator (user-defined operators are not "
          "recorded, so they cannot be reproduced)",
          label(x.c), op));
    return std::string(name);
  };
  Lowered op = expr(e, Style{"MPI_Op", leaf, false}, at(x, "op"));
  return {std::move(op), std::move(comment)};
}

// The communicator argument: the predefined ones by name, the application's by number.
Lowered CWriter::comm(const CallCtx& x) {
  const Expr* e = param(x.c, Param::Comm);
  if (!e) return std::string("MPI_COMM_WORLD");
  Needs needs;
  forEachConst(*e, [&](double v) {
    if (v >= 1000) needs.maxCommId = std::max(needs.maxCommId, asInt(v));
  });
  if (e->isConst()) {
    switch (asInt(e->value)) {
      case kCommNull: return {"MPI_COMM_NULL", needs};
      case kCommSelf: return {"MPI_COMM_SELF", needs};
      case kCommWorld: return {"MPI_COMM_WORLD", needs};
      default: break;
    }
  }
  needs.commOf = needs.commSlot = true;
  mus::data d;
  d.set("id", withoutParens(needs.take(expr(*e, intStyle(), at(x, "comm")))));
  return {render("expr/comm_of", d), needs};
}

Lowered CWriter::group(const CallCtx& x, const Expr& e, const std::string& name) {
  Needs needs{.groupSlot = true, .groupOf = true};
  forEachConst(e, [&](double v) { needs.maxGroupId = std::max(needs.maxGroupId, asInt(v)); });
  mus::data d;
  d.set("id", withoutParens(needs.take(expr(e, intStyle(), at(x, name)))));
  return {render("expr/group_of", d), needs};
}

// A peer or root: a world rank in the model, the call's communicator's rank in MPI. The
// named peers are MPI's own constants, so the benchmark makes the traced call.
Lowered CWriter::peer(const CallCtx& x, const Expr& e, const std::string& name) {
  Style style{"int", [](double v) {
                if (asInt(v) == kAnySource) return std::string("MPI_ANY_SOURCE");
                if (asInt(v) == kProcNull) return std::string("MPI_PROC_NULL");
                return std::to_string(asInt(v));
              }};
  Lowered world = expr(e, style, at(x, name));
  const Expr* c = param(x.c, Param::Comm);
  if (!c || (c->isConst() && asInt(c->value) == kCommWorld)) return world;
  Needs needs{.commRank = true};
  const std::string rank = needs.take(std::move(world));
  mus::data d;
  d.set("comm", needs.take(expr(*c, intStyle(), at(x, "comm"))));
  d.set("rank", rank);
  return {render("expr/comm_rank", d), needs};
}

// Receives may have been traced with MPI_ANY_TAG (negative).
Lowered CWriter::tag(const CallCtx& x, Param p, bool receive) {
  const Expr* e = param(x.c, p);
  if (!e) return std::string("0");
  Style style{"int", [receive](double v) { return receive && v < 0 ? std::string("MPI_ANY_TAG") : std::to_string(asInt(v)); }};
  return expr(*e, style, at(x, std::string(paramName(p))));
}

// The buffers hold the largest message of any call: counts times the largest datatype
// size, times the communicator size for collectives (gathers and all-to-alls), vectors as
// their largest displacement plus all their counts.
Needs CWriter::bufferNeeds(const CallStmt& c) {
  if (program_.scaleFree) return scaleFreeBufferNeeds(c);
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
  if (size == 0) return {};
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
  return Needs{.largestBytes = elements * size};
}

}  // namespace tracegen::gen::cgen
