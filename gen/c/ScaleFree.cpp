// The C backend's scale-free programs (Program::scaleFree, extrap/ScaleFree.h): formulas
// over nranks and the grid's extents, the conditions that they are whole, position
// classes of the grid and the peers across it.
#include "gen/c/CBackend.h"

namespace tracegen::gen::cgen {

std::string_view CWriter::scaleVarName(ScaleFormula::Var v) {
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

std::string CWriter::scaleVarWords(ScaleFormula::Var v) {
  return v == ScaleFormula::Var::P ? "the rank count" : std::string(scaleVarName(v));
}

// x^(|num|/den) * log2(x)^logPower for an integer formula; "" for the constant 1.
Lowered CWriter::integerTerm(const ScaleFormula& f) {
  // In 1-D the rank is its own coordinate.
  const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
  const std::string var(oneD && f.var == ScaleFormula::Var::X ? "rank" : scaleVarName(f.var));
  std::vector<std::string> factors;
  Needs needs;
  const int n = std::abs(f.num);
  if (n > 0) {
    std::string base = var;
    if (f.den > 1) {
      base = fmt::format("iroot({}, {})", var, f.den);
      needs.scaleHelpers = true;
      needs.scaleCondition(fmt::format("is_power({}, {})", var, f.den),
                         fmt::format("{} {}", scaleVarWords(f.var),
                                     f.den == 2 ? "a square number" : f.den == 3 ? "a cube" : fmt::format("a {}th power", f.den)));
    }
    if (n <= 3)
      for (int k = 0; k < n; ++k) factors.push_back(base);
    else
      factors.push_back(fmt::format("ipow({}, {})", base, n)), needs.scaleHelpers = true;
  }
  for (int k = 0; k < f.logPower; ++k) {
    factors.push_back(fmt::format("ilog2({})", var));
    needs.scaleHelpers = true;
    needs.scaleCondition(fmt::format("is_power_of_two({})", var), fmt::format("{} a power of two", scaleVarWords(f.var)));
  }
  return {fmt::format("{}", fmt::join(factors, " * ")), needs};
}

Lowered CWriter::formulaText(const ScaleFormula& f) {
  if (!f.integer) return realFormulaText(f);
  if (f.c0den != 1) throw std::invalid_argument("scale-free: a formula with a fractional constant term");
  const std::string c0 = std::to_string(f.c0num);
  Needs needs;
  const std::string t = needs.take(integerTerm(f));
  if (f.c1num == 0 || t.empty()) {
    if (f.c1den != 1 && f.c1num != 0) throw std::invalid_argument("scale-free: a fractional constant");
    return {std::to_string(f.c0num + (t.empty() ? f.c1num : 0)), needs};
  }
  const bool compound = t.find(' ') != std::string::npos;
  const std::int64_t a = f.c1num, b = f.c1den;
  std::string part;
  if (f.num >= 0) {
    part = a == 1 ? t : a == -1 ? "-" + t : fmt::format("{} * {}", a, t);
    if (b != 1) {
      part = fmt::format("{} / {}", part, b);
      needs.scaleCondition(fmt::format("{} % {} == 0", compound ? "(" + t + ")" : t, b),
                         fmt::format("{} a multiple of {}", compound ? t : scaleVarWords(f.var), b));
    }
  } else {
    const std::string den = b == 1 ? t : fmt::format("{} * {}", b, t);
    part = fmt::format("{} / {}", a, b == 1 && !compound ? den : "(" + den + ")");
    needs.scaleCondition(fmt::format("{} % {} == 0", a, b == 1 && !compound ? den : "(" + den + ")"),
                       fmt::format("{} dividing {}", b == 1 && !compound ? scaleVarWords(f.var) : den, std::abs(a)));
  }
  if (f.c0num == 0) return {part, needs};
  if (part.front() == '-') return {fmt::format("{} - {}", c0, part.substr(1)), needs};
  if (f.c0num < 0) return {fmt::format("{} - {}", part, -f.c0num), needs};
  return {fmt::format("{} + {}", part, c0), needs};
}

// c0 + c1 * x^(num/den) * log2(x)^logPower in floating point: a time in microseconds.
Lowered CWriter::realFormulaText(const ScaleFormula& f) {
  const std::string var(scaleVarName(f.var));
  auto number = [](double v) { return fmt::format("{:.6g}", v); };
  if (f.c1 == 0 || (f.num == 0 && f.logPower == 0)) return number(f.c0);
  const double c1 = std::abs(f.c1);
  std::string part;
  Needs needs;
  if (f.den == 1 && f.logPower == 0 && std::abs(f.num) <= 2) {
    const std::string power = std::abs(f.num) == 1 ? var : fmt::format("((double){} * {})", var, var);
    part = fmt::format("{} {} {}", number(c1), f.num > 0 ? "*" : "/", power);
  } else {
    needs.scaleHelpers = true;
    part = number(c1);
    if (f.num != 0) part += fmt::format(" * pow_real({}, {}, {})", var, f.num, f.den);
    for (int k = 0; k < f.logPower; ++k) part += fmt::format(" * log2_real({})", var);
  }
  if (f.c0 == 0) return {f.c1 < 0 ? "-" + part : part, needs};
  return {fmt::format("{} {} {}", number(f.c0), f.c1 < 0 ? "-" : "+", part), needs};
}

// The position classes `classes` as a condition on the rank's grid coordinates: a union of
// boxes, each a product of per-dimension position sets (first, interior, last).
std::string CWriter::classCondition(const RankList& classes) {
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
Lowered CWriter::gridPeerText(const GridStep& g) {
  const int dims = program_.scaleFree ? program_.scaleFree->dims : 1;
  if (dims == 1) {
    const int o = g.step[0];
    if (o == 0) return std::string("rank");
    if (g.wrap[0]) return std::string(o > 0 ? "(rank + 1) % nranks" : "(rank + nranks - 1) % nranks");
    return std::string(o > 0 ? "rank + 1" : "rank - 1");
  }
  static constexpr std::array<std::string_view, 3> kCoord{"x", "y", "z"}, kExtent{"px", "py", "pz"}, kUnit{"1", "px", "px * py"};
  const bool wrap = g.wrap[0] || g.wrap[1] || g.wrap[2];
  if (!wrap) {
    std::string t = "rank";
    for (std::size_t d = 0; d < 3; ++d)
      if (g.step[d] != 0) t += fmt::format(" {} {}", g.step[d] > 0 ? "+" : "-", kUnit[d]);
    return t;
  }
  std::vector<std::string> coords;
  for (std::size_t d = 0; d < 3; ++d) {
    const std::string c(kCoord[d]), n(kExtent[d]);
    if (static_cast<int>(d) >= dims) coords.push_back("0");
    else if (g.step[d] == 0) coords.push_back(c);
    else if (!g.wrap[d]) coords.push_back(fmt::format("{} {} 1", c, g.step[d] > 0 ? "+" : "-"));
    else coords.push_back(g.step[d] > 0 ? fmt::format("({} + 1) % {}", c, n) : fmt::format("({} + {} - 1) % {}", c, n, n));
  }
  return {fmt::format("grid_rank({})", fmt::join(coords, ", ")), Needs{.gridRank = true}};
}

// A relation's peer (gen/GridRelation.h) in C, at the step the statement's execution counter
// names, and its domain as a condition of scale_problem(): the row's XOR partners (2^k, or i
// for a pairwise exchange) need px a power of two, the transpose partner px a multiple of py.
Lowered CWriter::relationPeerText(GridRelation rel, const std::string& counter) {
  const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
  const std::string row = oneD ? "nranks" : "px";
  Needs needs{.scaleHelpers = true};
  switch (rel) {
    case GridRelation::RowXor:
      needs.scaleCondition(fmt::format("is_power_of_two({})", row),
                           fmt::format("{} a power of two", oneD ? "the rank count" : "px"));
      needs.scaleCondition(fmt::format("{} >= 2", row), fmt::format("{} at least 2", oneD ? "the rank count" : "px"));
      return {fmt::format("(rank ^ (1 << ({} % ilog2({}))))", counter, row), needs};
    case GridRelation::RowPairwise:
      needs.scaleCondition(fmt::format("is_power_of_two({})", row),
                           fmt::format("{} a power of two", oneD ? "the rank count" : "px"));
      needs.scaleCondition(fmt::format("{} >= 2", row), fmt::format("{} at least 2", oneD ? "the rank count" : "px"));
      return {fmt::format("(rank ^ (1 + {} % ({} - 1)))", counter, row), needs};
    case GridRelation::Transpose:
      if (oneD || program_.scaleFree->dims != 2)
        throw std::invalid_argument("scale-free: the transpose partner on a grid that is not 2-D");
      needs.gridRank = true;
      needs.scaleCondition("px % py == 0", "px a multiple of py");
      return {"grid_rank(px / py * y + x % (px / py), x / (px / py), 0)", needs};
  }
  throw std::logic_error("scale-free: an unknown relation");
}

// A block-distribution value (gen/Program.h, BlockTerm) of the calling rank's coordinate:
// (a + b * (N / px + (x < N % px))), with its domain (every rank a point) as a condition of
// scale_problem().
Lowered CWriter::blockText(const BlockTerm& t) {
  const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
  static constexpr std::array<std::string_view, 3> kCoord{"x", "y", "z"}, kExtent{"px", "py", "pz"};
  const auto d = static_cast<std::size_t>(t.dim);
  const std::string c(oneD ? "rank" : kCoord.at(d)), n(oneD ? "nranks" : kExtent.at(d));
  Needs needs;
  needs.scaleCondition(fmt::format("{} <= {}", n, t.points),
                       fmt::format("{} at most {} (each rank a block of the {} points it splits)",
                                   oneD ? "the rank count" : n, t.points, t.points));
  const std::string size = fmt::format("({} / {} + ({} < {} % {}))", t.points, n, c, t.points, n);
  const std::string part = t.b == 1 ? size : fmt::format("{} * {}", t.b, size);
  if (t.a == 0) return {t.b == 1 ? size : "(" + part + ")", needs};
  return {fmt::format("({} + {})", t.a, part), needs};
}

// Its largest value at the scale the benchmark runs at: the widest block's (the narrowest's
// where b < 0).
std::string CWriter::blockLargestText(const BlockTerm& t) {
  const bool oneD = program_.scaleFree && program_.scaleFree->dims == 1;
  static constexpr std::array<std::string_view, 3> kExtent{"px", "py", "pz"};
  const std::string n(oneD ? "nranks" : kExtent.at(static_cast<std::size_t>(t.dim)));
  const std::string size = t.b >= 0 ? fmt::format("({} + {} - 1) / {}", t.points, n, n) : fmt::format("{} / {}", t.points, n);
  return fmt::format("{} + {} * ({})", t.a, t.b, size);
}

// Every formula leaf of an expression (the values it can take at one scale).
void CWriter::formulaLeaves(const Expr& e, std::vector<Expr>& out) {
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
Needs CWriter::scaleFreeBufferNeeds(const CallStmt& c) {
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
  if (size == 0) return {};
  std::vector<const Expr*> counts;
  for (Param p : {Param::Count, Param::RecvCount})
    if (const Expr* e = param(c, p)) counts.push_back(e);
  // An even split's count is per peer, as a collective's count.
  for (const auto& [p, e] : c.evenVectors) counts.push_back(&e);
  Needs needs;
  for (const Expr* e : counts) {
    std::vector<Expr> leaves;
    formulaLeaves(*e, leaves);
    for (const Expr& leaf : leaves) {
      std::string count = leaf.kind == Expr::Kind::Const   ? std::to_string(asInt(leaf.value))
                          : leaf.kind == Expr::Kind::Block ? blockLargestText(leaf.block)
                                                           : needs.take(formulaText(leaf.formula));
      std::string bytes = fmt::format("(long long)({}) * {}", count, size);
      if (isCollective(opInfo(c.op).kind)) bytes += " * nranks";
      if (std::find(needs.byteFormulas.begin(), needs.byteFormulas.end(), bytes) == needs.byteFormulas.end())
        needs.byteFormulas.push_back(bytes);
    }
  }
  return needs;
}

}  // namespace tracegen::gen::cgen
