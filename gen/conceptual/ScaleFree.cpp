// The coNCePTuaL backend's scale-free programs (Program::scaleFree, extrap/ScaleFree.h): formulas
// of the scale as coNCePTuaL arithmetic on num_tasks and px, py, pz, position classes as conditions
// on the task's grid coordinates, grid and relation peers, messages and collectives whose sizes are
// formulas, and the ASSERTs of the conditions under which the formulas are whole.
#include "gen/conceptual/NcptlBackend.h"

namespace tracegen::gen::conceptual {

std::string Renderer::scaleVar(ScaleFormula::Var v) const {
  const int dims = gridDims();
  switch (v) {
    case ScaleFormula::Var::P: return "num_tasks";
    case ScaleFormula::Var::Px: return dims == 1 ? "num_tasks" : "px";
    case ScaleFormula::Var::Py:
      if (dims < 2) throw std::invalid_argument("scale-free: a formula of py in a 1-D program");
      return "py";
    case ScaleFormula::Var::Pz:
      if (dims < 3) throw std::invalid_argument("scale-free: a formula of pz in a program of fewer than 3 dimensions");
      return "pz";
    case ScaleFormula::Var::X:
    case ScaleFormula::Var::Y:
    case ScaleFormula::Var::Z:
      // The calling task's own coordinate (a split's colour): a message specification cannot
      // name the task (§3.1), and the communicators it would colour are refused anyway.
      throw std::invalid_argument("a value that depends on the task's own grid coordinate (a communicator split's "
                                  "colour) in a scale-free coNCePTuaL program is not supported: write C (-o bench.c), "
                                  "or give the target rank count (--ranks P)");
  }
  return "num_tasks";
}

std::string Renderer::scaleVarWords(ScaleFormula::Var v) const {
  const std::string n = scaleVar(v);
  return n == "num_tasks" ? "the task count" : n;
}

// A condition under which the program's formulas are whole, with its words for the ASSERT.
void Renderer::noteScaleCondition(const std::string& cond, const std::string& words) {
  for (const auto& [c, w] : scaleConditions_)
    if (c == cond) return;
  scaleConditions_.emplace_back(cond, words);
}

// Text that a '-' may precede: coNCePTuaL drops a '-' right before a keyword (SQRT, BITS, ...;
// the hyphen rule, §1.7), so such a text is parenthesised.
std::string Renderer::negatable(const std::string& t) {
  return !t.empty() && std::isupper(static_cast<unsigned char>(t.front())) ? "(" + t + ")" : t;
}

std::string Renderer::parenthesised(const std::string& t, std::string_view operators) {
  int depth = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '(') ++depth;
    if (t[i] == ')') --depth;
    // A leading '-' is a sign, not a difference.
    if (depth == 0 && i > 0 && operators.find(t[i]) != std::string_view::npos) return "(" + t + ")";
  }
  return t;
}

// x^(|num|/den) * log2(x)^logPower of an integer formula; "" for the constant 1. Roots are
// ROOT/SQRT/CBRT (whole only for perfect powers), log2(x) is BITS(x) - 1 (whole only for
// powers of two): each adds its condition.
std::string Renderer::integerTerm(const ScaleFormula& f) {
  const std::string var = scaleVar(f.var);
  std::vector<std::string> factors;
  const int n = std::abs(f.num);
  if (n > 0) {
    std::string base = var;
    if (f.den > 1) {
      base = f.den == 2 ? fmt::format("SQRT({})", var) : f.den == 3 ? fmt::format("CBRT({})", var)
                                                                    : fmt::format("ROOT({}, {})", f.den, var);
      noteScaleCondition(fmt::format("{}**{} = {}", base, f.den, var),
                         fmt::format("{} {}", scaleVarWords(f.var),
                                     f.den == 2 ? "a square number" : f.den == 3 ? "a cube" : fmt::format("a {}th power", f.den)));
    }
    if (n <= 3)
      for (int k = 0; k < n; ++k) factors.push_back(base);
    else
      factors.push_back(fmt::format("{}**{}", base, n));
  }
  for (int k = 0; k < f.logPower; ++k) {
    factors.push_back(fmt::format("(BITS({}) - 1)", var));
    noteScaleCondition(fmt::format("1 << (BITS({}) - 1) = {}", var, var), fmt::format("{} a power of two", scaleVarWords(f.var)));
  }
  std::string out;
  for (const auto& x : factors) out += (out.empty() ? "" : "*") + x;
  return out;
}

// An integer formula as coNCePTuaL arithmetic (integer context, '/' truncating: the
// conditions noted make every division exact), as the C backend's formulaText.
std::string Renderer::formulaText(const ScaleFormula& f) {
  if (!f.integer) throw std::invalid_argument("scale-free: a time formula where a whole number is needed");
  if (f.c0den != 1) throw std::invalid_argument("scale-free: a formula with a fractional constant term");
  const std::string t = integerTerm(f);
  if (f.c1num == 0 || t.empty()) {
    if (f.c1den != 1 && f.c1num != 0) throw std::invalid_argument("scale-free: a fractional constant");
    return std::to_string(f.c0num + (t.empty() ? f.c1num : 0));
  }
  const std::int64_t a = f.c1num, b = f.c1den;
  std::string part;
  bool negative = false;
  if (f.num >= 0) {
    negative = a < 0;
    part = std::abs(a) == 1 ? t : fmt::format("{}*{}", std::abs(a), factor(t));
    if (b != 1) {
      part = fmt::format("{}/{}", part, b);
      noteScaleCondition(fmt::format("{} DIVIDES {}", b, t),
                         fmt::format("{} a multiple of {}", t.find_first_of("*(") == std::string::npos ? scaleVarWords(f.var) : t, b));
    }
  } else {
    const std::string den = b == 1 ? t : fmt::format("{}*{}", b, factor(t));
    negative = a < 0;
    part = fmt::format("{}/{}", std::abs(a), factor(den));
    noteScaleCondition(fmt::format("{} DIVIDES {}", den, std::abs(a)),
                       fmt::format("{} dividing {}", b == 1 && den.find_first_of("*(") == std::string::npos ? scaleVarWords(f.var) : den,
                                   std::abs(a)));
  }
  if (f.c0num == 0) return negative ? "-" + negatable(part) : part;
  if (negative) return fmt::format("{} - {}", f.c0num, negatable(part));
  return f.c0num < 0 ? fmt::format("{} - {}", part, -f.c0num) : fmt::format("{} + {}", part, f.c0num);
}

// A real coefficient as an integer numerator over 10^k (coNCePTuaL has only integer literals):
// the smallest k <= 6 that keeps it to 6 significant digits.
std::int64_t Renderer::decimalScale(const std::vector<double>& values) {
  std::int64_t scale = 1;
  for (int k = 0; k <= 6; ++k, scale *= 10) {
    bool exact = true;
    for (double v : values) {
      const double x = v * static_cast<double>(scale);
      exact = exact && std::abs(x - std::round(x)) <= 1e-6 * std::max(1.0, std::abs(x));
    }
    if (exact) return scale;
  }
  return scale / 10;
}

// A time formula's duration in microseconds scaled by compute_scale: floating-point
// arithmetic inside REAL(...), rounded to whole microseconds; never negative.
std::string Renderer::durationText(const ScaleFormula& f) {
  if (f.integer) return fmt::format("{}*compute_scale/100", leftFactor(formulaText(f)));
  const std::string var = scaleVar(f.var);
  const bool constant = f.c1 == 0 || (f.num == 0 && f.logPower == 0);
  const double c0 = constant ? f.c0 + (f.num == 0 && f.logPower == 0 ? f.c1 : 0) : f.c0;
  const std::int64_t scale = decimalScale({c0, constant ? 0.0 : f.c1});
  auto num = [&](double v) { return static_cast<std::int64_t>(std::llround(v * static_cast<double>(scale))); };
  if (constant)  // whole microseconds, as a time of one scale is written
    return fmt::format("{}*compute_scale/100", std::max<std::int64_t>(0, std::llround(c0)));
  std::string value;
  {
    // In floating-point context ROOT, SQRT and LOG10 are the real functions (§4.4).
    std::vector<std::string> factors;
    const int n = std::abs(f.num);
    if (n > 0) {
      std::string base = f.den == 1 ? var : f.den == 2 ? fmt::format("SQRT({})", var) : fmt::format("ROOT({}, {})", f.den, var);
      factors.push_back(n == 1 ? base : fmt::format("{}**{}", base, n));
    }
    for (int k = 0; k < f.logPower; ++k) factors.push_back(fmt::format("LOG10({})/LOG10(2)", var));
    std::string term;
    for (const auto& x : factors) term += (term.empty() ? "" : "*") + x;
    const std::int64_t a = num(std::abs(f.c1));
    std::string part = f.num >= 0 ? fmt::format("{}*{}", a, factor(term)) : fmt::format("{}/{}", a, factor(term));
    if (num(c0) != 0) part = fmt::format("{} {} {}", num(c0), f.c1 < 0 ? "-" : "+", part);
    else if (f.c1 < 0) part = "-" + part;
    value = fmt::format("REAL({}*compute_scale/{})", leftFactor(part), 100 * scale);
    // A fitted time may fall below zero far from the inputs: no negative durations (§6).
    return c0 < 0 || f.c1 < 0 ? fmt::format("MAX(0, {})", value) : value;
  }
}

// The execution index of the statement being rendered, k = sum of variable times the product
// of the trip counts of the loops inside it, as text (the trip counts may be formulas).
std::string Renderer::executionIndexText() {
  std::string k, mult;
  for (auto it = loopStack_.rbegin(); it != loopStack_.rend(); ++it) {
    usedLoops_.insert(it->id);
    const std::string term = mult.empty() ? loopVar(it->id) : fmt::format("{}*{}", leftFactor(mult), loopVar(it->id));
    k = k.empty() ? term : fmt::format("{} + {}", term, k);
    if (!it->start.empty()) break;  // counted over all its entries: the index of everything outside too
    if (!it->sameEveryEntry)
      throw std::invalid_argument("scale-free: a value that progresses over executions inside a loop whose trip count "
                                  "changes from one entry to the next: coNCePTuaL has no counter to select it");
    const std::string trips = it->tripsText.empty() ? std::to_string(it->trips) : it->tripsText;
    mult = mult.empty() ? trips : fmt::format("{}*{}", leftFactor(mult), factor(trips));
  }
  return k.empty() ? "0" : k;
}

// An integer value of a case: a constant, a formula or a progression over executions
// (start + step*(k MOD length)).
std::string Renderer::intText(const Expr& v) {
  switch (v.kind) {
    case Expr::Kind::Const: return std::to_string(std::llround(v.value));
    case Expr::Kind::Formula: return formulaText(v.formula);
    case Expr::Kind::Progression: {
      const std::string start = intText(v.children[0]), step = intText(v.children[1]), length = intText(v.children[2]);
      std::string k = fmt::format("{} MOD {}", leftFactor(executionIndexText()), factor(length));
      if (step != "1") k = fmt::format("{}*({})", leftFactor(step), k);
      return start == "0" ? k : fmt::format("{} + {}", start, k);
    }
    case Expr::Kind::Block: {
      // One half of its split (refineOne): N/p_d + 1 points below N MOD p_d, N/p_d from it.
      const std::string n = blockExtent(v.block.dim);
      noteScaleCondition(fmt::format("{} <= {}", n, v.block.points),
                         fmt::format("{} at most {} (each task a block of the {} points it splits)",
                                     n == "num_tasks" ? "the task count" : n, v.block.points, v.block.points));
      const std::string size = v.value != 0 ? fmt::format("{}/{} + 1", v.block.points, n) : fmt::format("{}/{}", v.block.points, n);
      const std::string part = v.block.b == 1 ? size : fmt::format("{}*({})", v.block.b, size);
      return v.block.a == 0 ? part : fmt::format("{} + {}", v.block.a, part);
    }
    default:
      throw std::logic_error("NcptlBackend: no integer text for this expression");
  }
}

// The classes of a rank set as a condition on the task variable's grid coordinates: a union
// of boxes, each a product of per-dimension position sets (first, interior, last), chosen
// greedily as the C backend's classCondition does.
std::string Renderer::classCondition(const RankList& classes, const std::string& v) {
  const int dims = gridDims();
  const std::array<std::string, 3> coord =
      dims == 1 ? std::array<std::string, 3>{v, "", ""}
                : std::array<std::string, 3>{fmt::format("{} MOD px", v), dims == 2 ? fmt::format("{}/px", v) : fmt::format("{}/px MOD py", v),
                                             fmt::format("{}/(px*py)", v)};
  const std::array<std::string, 3> extent{dims == 1 ? "num_tasks" : "px", "py", "pz"};
  auto dimCondition = [&](int d, int mask) -> std::string {
    const std::string& c = coord[static_cast<std::size_t>(d)];
    const std::string& n = extent[static_cast<std::size_t>(d)];
    switch (mask) {
      case 1: return c + " = 0";
      case 2: return fmt::format("{} > 0 /\\ {} < {} - 1", c, c, n);
      case 4: return fmt::format("{} = {} - 1", c, n);
      case 3: return fmt::format("{} < {} - 1", c, n);
      case 6: return c + " > 0";
      case 5: return fmt::format("({} = 0 \\/ {} = {} - 1)", c, c, n);
      default: return "";
    }
  };
  std::vector<std::string> terms;
  for (const ClassBox& box : classBoxes(classes, dims)) {
    std::string parts;
    for (int d = 0; d < dims; ++d) {
      const int mask = box[static_cast<std::size_t>(d)];
      if (mask != kAnyPosition) parts += (parts.empty() ? "" : " /\\ ") + dimCondition(d, mask);
    }
    terms.push_back(parts.empty() ? fmt::format("{} >= 0", v) : parts);
  }
  if (terms.empty()) throw std::logic_error("NcptlBackend: an empty set of position classes");
  if (terms.size() == 1) return terms.front();
  std::string out;
  for (const auto& t : terms)
    out += (out.empty() ? "" : " \\/ ") + (t.find(" /\\ ") != std::string::npos ? "(" + t + ")" : t);
  return out;
}

// The extent a block distribution splits its points over.
std::string Renderer::blockExtent(int dim) const {
  static constexpr std::array<const char*, 3> kExtent{"px", "py", "pz"};
  return gridDims() == 1 ? "num_tasks" : kExtent.at(static_cast<std::size_t>(dim));
}

// A split (Split) as a condition on the task variable's coordinate.
std::string Renderer::splitCondition(const Split& sp, const std::string& v) const {
  const int dims = gridDims();
  const std::array<std::string, 3> coord =
      dims == 1 ? std::array<std::string, 3>{v, "", ""}
                : std::array<std::string, 3>{fmt::format("{} MOD px", v), dims == 2 ? fmt::format("{}/px", v) : fmt::format("{}/px MOD py", v),
                                             fmt::format("{}/(px*py)", v)};
  return fmt::format("{} {} {} MOD {}", coord.at(static_cast<std::size_t>(sp.dim)), sp.below ? "<" : ">=", sp.points,
                     blockExtent(sp.dim));
}

// A task description of position classes: ALL TASKS where it may stand, else the condition
// (and the case's splits).
Renderer::Desc Renderer::classTasks(const RankList& r, const std::string& var, bool targetPos, bool bindVar,
                                    const std::vector<Split>& splits) {
  data d;
  if (!splits.empty()) {
    std::string cond = r == all_ ? std::string() : classCondition(r, var);
    if (cond.find(" \\/ ") != std::string::npos) cond = "(" + cond + ")";
    for (const Split& sp : splits) cond += (cond.empty() ? "" : " /\\ ") + splitCondition(sp, var);
    d.set("described", true);
    d.set("text", fmt::format("TASKS {} SUCH THAT {}", var, cond));
    return {fill("tasks", d), false};
  }
  if (r == all_ && !targetPos) {
    if (!bindVar) {
      d.set("all", true);
      return {fill("tasks", d), false};
    }
    d.set("described", true);
    d.set("text", "ALL TASKS " + var);
    return {fill("tasks", d), false};
  }
  d.set("described", true);
  d.set("text", fmt::format("TASKS {} SUCH THAT {}", var, r == all_ ? var + " >= 0" : classCondition(r, var)));
  return {fill("tasks", d), false};
}

// The task one grid step from `v`: v+1, v-px, v+px*py; across a periodic edge
// (v+1) MOD num_tasks in 1-D, MESH_NEIGHBOR((px*, py), v, (1, 0)) on a grid.
std::string Renderer::gridPeerText(const GridStep& g, const std::string& v) {
  const int dims = gridDims();
  if (dims == 1) {
    data d;
    d.set("wrap", g.wrap[0] && g.step[0] != 0);
    d.set("var", v);
    d.set("plus", g.step[0] > 0);
    d.set("minus", g.step[0] < 0);
    d.set("offset", "1");
    return fill("peer", d);
  }
  static constexpr std::array<const char*, 3> kUnit{"1", "px", "px*py"}, kExtent{"px", "py", "pz"};
  const bool wrap = g.wrap[0] || g.wrap[1] || g.wrap[2];
  if (!wrap) {
    std::string t = v;
    for (std::size_t k = 0; k < 3; ++k)
      if (g.step[k] != 0) t += fmt::format("{}{}", g.step[k] > 0 ? "+" : "-", kUnit[k]);
    return t;
  }
  std::string extents, steps;
  for (std::size_t k = 0; k < static_cast<std::size_t>(dims); ++k) {
    extents += fmt::format("{}{}{}", k ? ", " : "", kExtent[k], g.wrap[k] ? "*" : "");
    steps += fmt::format("{}{}", k ? ", " : "", g.step[k]);
  }
  return fmt::format("MESH_NEIGHBOR(({}), {}, ({}))", extents, v, steps);
}

// The peer of task `v` by a relation (gen/GridRelation.h), as the C backend computes it: the
// row's XOR partner at step k MOD log2(px) (a pairwise exchange's: XOR 1 + k MOD (px - 1)), k
// the statement's execution index (as a progression's), and the transpose partner from v's
// coordinates; each notes its domain.
// XOR binds as loosely as '+' and '<<' as tightly as '*' (the language reference's
// precedence table), so the text is parenthesised throughout.
std::string Renderer::relationPeerText(GridRelation rel, const std::string& v) {
  const int dims = gridDims();
  switch (rel) {
    case GridRelation::RowXor: {
      ScaleFormula steps;
      steps.var = dims == 1 ? ScaleFormula::Var::P : ScaleFormula::Var::Px;
      steps.logPower = 1;
      steps.c1num = 1;
      const std::string n = formulaText(steps);  // log2 of the row, noting it a power of two
      return fmt::format("({} XOR (1 << (({}) MOD {})))", v, executionIndexText(), factor(n));
    }
    case GridRelation::RowPairwise: {
      ScaleFormula rowLess1;  // px - 1 (every task in 1-D), noting its domain as RowXor's
      rowLess1.var = dims == 1 ? ScaleFormula::Var::P : ScaleFormula::Var::Px;
      rowLess1.num = 1;
      rowLess1.c0num = -1;
      rowLess1.c1num = 1;
      ScaleFormula steps = rowLess1;
      steps.num = 0;
      steps.logPower = 1;
      steps.c0num = 0;
      formulaText(steps);  // the row a power of two
      return fmt::format("({} XOR (1 + ({}) MOD {}))", v, executionIndexText(), factor(formulaText(rowLess1)));
    }
    case GridRelation::Transpose: {
      if (dims != 2) throw std::invalid_argument("scale-free: the transpose partner on a grid that is not 2-D");
      noteScaleCondition("py DIVIDES px", "px a multiple of py");
      const std::string x = fmt::format("({} MOD px)", v), y = fmt::format("({}/px)", v);
      return fmt::format("((px/py)*{} + {} MOD (px/py) + px*({}/(px/py)))", y, x, x);
    }
  }
  throw std::logic_error("NcptlBackend: an unknown relation");
}

// `A n BYTE MESSAGE [USING TAG k]` with a count and tag that may be formulas or progressions.
std::string Renderer::messageOf(const Case& k, const std::string& count, const std::string& type, const std::string& tagKey) {
  auto find = [&](const std::string& key) -> const Expr* {
    auto it = k.values.find(key);
    return it == k.values.end() ? nullptr : &it->second;
  };
  const Expr* n = find(count);
  const Expr* tag = useTags_ ? find(tagKey) : nullptr;
  if ((!n || n->isConst()) && (!tag || tag->isConst())) return message(bytesOf(k, count, type), tagOf(k, tagKey));
  data d;
  d.set("one", true);
  d.set("count", std::string("1"));
  d.set("bytes", scaledBytesText(bytesText(n, find(type))));
  d.set("tagged", tag && !(tag->isConst() && tag->value == 0));
  d.set("tag", tag ? intText(*tag) : std::string());
  return fill("message", d);
}

// count times the datatype's size, as text.
std::string Renderer::bytesText(const Expr* n, const Expr* type) {
  if (!n) return "0";
  const std::int64_t size = type ? typeSize(*type) : 1;
  if (n->isConst()) return std::to_string(std::max<std::int64_t>(0, std::llround(n->value) * size));
  const std::string c = intText(*n);
  return size == 1 ? c : fmt::format("{}*{}", size, factor(c));
}

std::string Renderer::scaledBytesText(const std::string& bytes) {
  if (bytes == "0") return bytes;
  data d;
  d.set("bytes", leftFactor(bytes));
  return fill("scaled_bytes", d);
}

// The refusal of what a scale-free coNCePTuaL program cannot hold yet.
void Renderer::scaleFreeRefusal(const CallStmt& c, const std::string& what) {
  throw std::invalid_argument(fmt::format("{}{}: {} in a scale-free coNCePTuaL program is not supported: write C "
                                          "(-o bench.c), or give the target rank count (--ranks P)",
                                          opName(c.op), c.event ? fmt::format(" (trace event {})", c.event->id) : "", what));
}

// The parameters a collective statement's cases are split by.
std::vector<std::pair<std::string, const Expr*>> Renderer::collectiveParams(const CallStmt& c) {
  return {{"comm", param(c, Param::Comm)},         {"count", param(c, Param::Count)},
          {"type", param(c, Param::Datatype)},     {"recvcount", param(c, Param::RecvCount)},
          {"recvtype", param(c, Param::RecvType)}, {"root", param(c, Param::Root)}};
}

// Collectives of a scale-free program: on MPI_COMM_WORLD only (what extrap/ScaleFree makes),
// every task taking part, the root a task number or a formula.
std::vector<std::string> Renderer::scaleFreeCollective(const CallStmt& c, const RankList& ranks, const std::optional<ExecIndex>& idx) {
  std::vector<Case> cs = cases(ranks,
                               collectiveParams(c),
                               idx);
  return guarded(cs, [&](const Case& k) -> std::vector<std::string> {
    auto find = [&](const std::string& key) -> const Expr* {
      auto it = k.values.find(key);
      return it == k.values.end() ? nullptr : &it->second;
    };
    if (const Expr* comm = find("comm"); comm && !(comm->isConst() && static_cast<std::int64_t>(comm->value) == kCommWorld))
      scaleFreeRefusal(c, "a collective on another communicator than MPI_COMM_WORLD");
    // Every task takes part in a world collective: a case of fewer classes means the classes
    // differ in where they call it or with what, which one statement cannot say.
    if (!(k.ranks == all_))
      scaleFreeRefusal(c, "a collective that the position classes make at different places or with different "
                          "parameters");
    std::string rootText = "TASK 0";
    if (const Expr* r = find("root")) rootText = "TASK " + factor(intText(*r));
    const std::string bytes = bytesText(find("count"), find("type"));
    const std::string recvBytes = find("recvcount") ? bytesText(find("recvcount"), find(find("recvtype") ? "recvtype" : "type")) : bytes;
    auto mcast = [&](const Desc& from, const std::string& to, const std::string& b) {
      data d;
      d.set("tasks", from.text);
      d.set("s", from.single ? "S" : "");
      data m;
      m.set("one", true);
      m.set("bytes", scaledBytesText(b));
      m.set("tagged", false);
      d.set("message", fill("message", m));
      d.set("target", to);
      return fill("multicast", d);
    };
    const Desc root{rootText, true};
    switch (c.op) {
      case Op::Barrier: {
        data d;
        d.set("tasks", acting(all_, false).text);
        d.set("s", "");
        return {fill("synchronize", d)};
      }
      case Op::Bcast: return {mcast(root, allOther(), bytes)};
      case Op::Scatter:
        note("MPI_Scatter is a MULTICAST of one member's share from the root (MPI_Bcast): receivers get their "
             "bytes, the root sends less than a real scatter (§5.3).");
        return {mcast(root, allOther(), recvBytes)};
      case Op::Gather: return {mcast(acting(all_, false), rootText, bytes)};
      case Op::Alltoall:
      case Op::Allgather: return {mcast(acting(all_, false), allOther(), bytes)};
      case Op::Alltoallv: {
        // Counts that followed the data, spread evenly (gen/Program.h, evenVectors).
        auto it = c.evenVectors.find(Param::SendCounts);
        if (it == c.evenVectors.end()) scaleFreeRefusal(c, "an MPI_Alltoallv whose counts are no even split");
        note("MPI_Alltoallv whose counts followed the data is a many-to-many MULTICAST of their even split, the "
             "mean bytes per rank pair (MPI_Alltoall, §5.4).");
        return {mcast(acting(all_, false), allOther(), bytesText(&it->second, find("type")))};
      }
      case Op::Reduce:
      case Op::Allreduce: {
        const Expr* type = find("type");
        const std::int64_t size = type ? typeSize(*type) : 8;
        const Expr* n = find("count");
        std::string items = n ? (n->isConst() ? std::to_string(std::llround(n->value)) : intText(*n)) : "0";
        if (size != 4 && size != 8) {
          items = fmt::format("({}*{} + 7)/8", leftFactor(items), size);
          note("Reductions of types other than 4- and 8-byte numbers reduce the same number of bytes as DOUBLEWORDS.");
        }
        data d;
        d.set("tasks", acting(all_, false).text);
        d.set("s", "");
        d.set("count", scaledBytesText(items));
        d.set("doubles", size != 4);
        d.set("rooted", c.op == Op::Reduce);
        d.set("root", rootText);
        return {fill("reduce", d)};
      }
      default:
        scaleFreeRefusal(c, "this collective");
    }
  });
}

// The ASSERTs of a scale-free program: every extent at least 2 (the position classes are
// then distinct), and every condition under which its formulas are whole.
std::vector<std::string> Renderer::scaleAsserts() {
  std::vector<std::string> out;
  if (p_.scaleFree->square && gridDims() > 1) {  // first: its formulas were fitted on such grids only
    data d;
    d.set("words", gridDims() == 2 ? "this benchmark needs a square grid (px = py: a square task count), as the traces'"
                                   : "this benchmark needs a cubic grid (px = py = pz: a cube task count), as the traces'");
    d.set("cond", gridDims() == 2 ? "px = py" : "px = py /\\ py = pz");
    out.push_back(fill("assert", d));
  }
  if (gridDims() > 1) {  // in 1-D the program's num_tasks >= 2 says it
    data d;
    d.set("words", "this benchmark needs every extent of the grid to be 2 or more");
    d.set("cond", gridDims() == 2 ? "px >= 2 /\\ py >= 2" : "px >= 2 /\\ py >= 2 /\\ pz >= 2");
    out.push_back(fill("assert", d));
  }
  for (const auto& [c, w] : scaleConditions_) {
    data a;
    a.set("words", "this benchmark needs " + w);
    a.set("cond", c);
    out.push_back(fill("assert", a));
  }
  return out;
}

}  // namespace tracegen::gen::conceptual
