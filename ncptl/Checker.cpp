// The checker's static rules (see Checker.h): one recursive walk over the syntax tree.
//
// Scopes are a stack of name tables. Each statement opens the scopes §3.1 prescribes in the
// order it reads them: message specifications are checked before the acting task's variable
// is defined (so that a task variable there is reported as undeclared, as 1.5.1b does), the
// target description sees the source variable, and a RECEIVE's FROM side sees the receivers'
// variable. Every expression is checked in a context (task description, IF condition, LET
// right-hand side, message specification, parameter default, run-time output, …) that decides
// which variables, counters and functions it may use. Asynchronous operations are followed by
// a small data-flow pass over statement sequences (pending or not); when the program fixes
// num_tasks the per-task simulation replaces that pass with exact per-task answers.
#include "ncptl/Checker.h"

#include <algorithm>
#include <cstdint>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "ncptl/Parser.h"
#include "ncptl/Simulator.h"
#include "ir/Checked.h"

namespace tracegen::ncptl {

namespace {

using Severity = Diagnostic::Severity;

enum class Ctx {
  General,       // loop bounds, FOR EACH ranges, ASSERT
  TaskDesc,      // task descriptions: deterministic, no counters
  IfCond,        // IF conditions: deterministic; MY TASK allowed (with a warning)
  LetRhs,        // LET right-hand sides: deterministic; num_tasks is the only predeclared variable
  MsgSpec,       // message and reduction specifications: deterministic
  ParamDefault,  // parameter defaults: no variables at all
  Runtime,       // OUTPUTS, LOGS, BACKEND EXECUTES: counters allowed, no & or |
  Duration,      // COMPUTES/SLEEPS FOR: random functions allowed
};

bool deterministic(Ctx c) { return c == Ctx::TaskDesc || c == Ctx::IfCond || c == Ctx::LetRhs || c == Ctx::MsgSpec; }

enum class VarKind { Param, Let, LetTaskSet, ForEach, Task, Generator };

struct Var {
  VarKind kind = VarKind::Let;
  SourceRange where;
  int uses = 0;
};

struct Arity {
  int min, max;  // max < 0: unbounded
};

Arity arity(Kw f) {
  switch (f) {
    case Kw::MAX: case Kw::MIN: return {1, -1};
    case Kw::ROOT: return {2, 2};
    case Kw::TREE_PARENT: return {1, 2};
    case Kw::TREE_CHILD: return {2, 3};
    case Kw::KNOMIAL_PARENT: case Kw::KNOMIAL_CHILDREN: return {1, 3};
    case Kw::KNOMIAL_CHILD: return {2, 4};
    case Kw::RANDOM_UNIFORM: case Kw::RANDOM_GAUSSIAN: return {2, 2};
    case Kw::RANDOM_PARETO: return {2, 3};
    default: return {1, 1};
  }
}

bool isRandomFunc(Kw f) {
  return f == Kw::RANDOM_UNIFORM || f == Kw::RANDOM_GAUSSIAN || f == Kw::RANDOM_POISSON || f == Kw::RANDOM_PARETO;
}

// Bytes per unit; 0 where the size depends on the machine (PAGE).
std::int64_t unitBytes(Kw u) {
  switch (u) {
    case Kw::BYTE: return 1;
    case Kw::HALFWORD: return 2;
    case Kw::WORD: case Kw::INTEGER: return 4;
    case Kw::DOUBLEWORD: return 8;
    case Kw::QUADWORD: return 16;
    case Kw::KILOBYTE: return std::int64_t{1} << 10;
    case Kw::MEGABYTE: return std::int64_t{1} << 20;
    case Kw::GIGABYTE: return std::int64_t{1} << 30;
    default: return 0;
  }
}

// The value of an expression built from literals only.
std::optional<std::int64_t> constValue(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Int:
      return e.value;
    case Expr::Kind::Unary: {
      auto v = constValue(*e.args[0]);
      if (!v) return std::nullopt;
      if (e.op == Tok::Minus) return checkedSub(0, *v);
      if (e.op == Tok::Plus) return *v;
      return ~*v;
    }
    case Expr::Kind::Binary: {
      auto a = constValue(*e.args[0]);
      auto b = constValue(*e.args[1]);
      if (!a || !b) return std::nullopt;
      if (e.func == Kw::MOD) {
        if (*b == 0 || *b == INT64_MIN) return std::nullopt;
        if (*b == -1) return 0;
        std::int64_t r = *a % *b;
        return r < 0 ? r + (*b < 0 ? -*b : *b) : r;
      }
      if (e.func == Kw::XOR) return *a ^ *b;
      switch (e.op) {
        // Literals may be any 64-bit value: an overflow is no constant (the checker then does
        // not judge the value), never undefined behaviour.
        case Tok::Plus: return checkedAdd(*a, *b);
        case Tok::Minus: return checkedSub(*a, *b);
        case Tok::Star: return checkedMul(*a, *b);
        case Tok::Slash:
          if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
          return *a / *b;
        default: return std::nullopt;
      }
    }
    default:
      return std::nullopt;
  }
}

std::string upperNoSpace(std::string_view s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) out += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

class Checker {
 public:
  Checker(std::string_view src, const CheckOptions& opt, const Program& prog, std::vector<Diagnostic>& out,
          std::vector<Diagnostic>& awaitOut)
      : src_(src), opt_(opt), prog_(prog), out_(out), awaitOut_(awaitOut) {
    for (std::size_t i = 0; i < src.size(); ++i)
      if (src[i] == '\n') newlines_.push_back(i);
  }

  void run() {
    scopes_.emplace_back();  // parameters
    checkHeaders();
    scopes_.emplace_back();  // statements
    bool sawNumTasksAssert = false;
    for (const auto& ts : prog_.statements) {
      if (!ts.stmt) continue;
      checkStmt(*ts.stmt);
      if (!ts.terminated)
        error({ts.stmt->where.end, ts.stmt->where.end, 0},
              "missing '.' after the top-level statement (§2.4 item 3, §6 item 1)");
      if (ts.stmt->kind == Stmt::Kind::Assert && assertsNumTasks(*ts.stmt->cond, opt_.scaleFree)) sawNumTasksAssert = true;
    }
    // Asynchronous operations: textual data flow (replaced by the simulation when it runs).
    Flow f;
    for (const auto& ts : prog_.statements)
      if (ts.stmt) f = flow(*ts.stmt, f);
    if (f.pending)
      awaitError(f.last, "this asynchronous operation is never followed by AWAITS COMPLETION: the program must end "
                         "with nothing pending (§3.6, §6 item 8)");
    if (usesRandom_)
      for (const auto& h : prog_.headers)
        if (h.kind == Header::Kind::Param && h.param.longOption == "--seed")
          error(h.param.longWhere, "\"--seed\" is reserved in a program that uses random numbers (§3.4)");
    if (opt_.generated && !sawNumTasksAssert)
      error({0, 0, 1}, "a generated program must state its task count with ASSERT THAT \"...\" WITH num_tasks = P "
                       "(§5.1 item 9, §6 item 17), or, scale-free (ncptl-check --tasks), the least count it needs with "
                       "num_tasks >= N");
    popScope();
    popScope();
  }

 private:
  // ------------------------------------------------------------------ diagnostics
  int lineOf(std::size_t offset) const {
    return static_cast<int>(std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin()) + 1;
  }
  void report(std::vector<Diagnostic>& to, Severity sev, SourceRange where, std::string msg) const {
    where.line = lineOf(where.begin);
    to.push_back({sev, where, std::move(msg)});
  }
  void error(SourceRange where, std::string msg) { report(out_, Severity::Error, where, std::move(msg)); }
  void warning(SourceRange where, std::string msg) { report(out_, Severity::Warning, where, std::move(msg)); }
  void awaitError(SourceRange where, std::string msg) { report(awaitOut_, Severity::Error, where, std::move(msg)); }
  void notG(SourceRange where, const std::string& what) {
    if (opt_.generated) error(where, what + " is outside the generator subset «G» (§2.2)");
  }
  std::string text(SourceRange r) const { return std::string(src_.substr(r.begin, r.end - r.begin)); }

  // ------------------------------------------------------------------ scopes
  void pushScope() { scopes_.emplace_back(); }
  void popScope() {
    for (const auto& [name, v] : scopes_.back())
      if (v.uses == 0 && v.kind != VarKind::Param)
        warning(v.where, "variable '" + name + "' is defined but never used");
    scopes_.pop_back();
  }
  void define(const std::string& name, VarKind kind, SourceRange where) {
    if (isPredeclared(name)) {
      error(where, "redefinition of " + name + " is not allowed: it is a predeclared variable (§3.1 rule 4)");
      return;
    }
    scopes_.back()[name] = Var{kind, where, 0};
  }
  Var* lookup(const std::string& name) {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto f = it->find(name);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  // Uses of `name` so far, to tell whether one description used another's variable.
  int usesOf(const std::string& name) {
    Var* v = lookup(name);
    return v ? v->uses : 0;
  }

  // ------------------------------------------------------------------ headers
  void checkHeaders() {
    bool version = false;
    std::map<std::string, SourceRange> longs, shorts;
    for (const auto& h : prog_.headers) {
      if (!h.terminated)
        error({h.where.end, h.where.end, 0}, "missing '.' after the header declaration (§2.4 item 3, §6 item 1)");
      switch (h.kind) {
        case Header::Kind::Version:
          version = true;
          if (h.text != "1.5")
            error(h.where, "REQUIRE LANGUAGE VERSION \"" + h.text + "\": this checker and generated programs use "
                           "language version \"1.5\" (§6 item 17)");
          break;
        case Header::Kind::Backend:
          notG(h.where, "THE BACKEND DECLARES");
          break;
        case Header::Kind::Param: {
          const ParamDecl& p = h.param;
          if (scopes_.front().count(p.var))
            error(p.where, "parameter '" + p.var + "' is declared twice (§3.4)");
          checkExpr(*p.defaultValue, Ctx::ParamDefault);
          define(p.var, VarKind::Param, p.where);
          checkOption(p.longOption, p.longWhere, true, longs);
          checkOption(p.shortOption, p.shortWhere, false, shorts);
          break;
        }
      }
    }
    if (!version)
      error({0, 0, 1}, "missing REQUIRE LANGUAGE VERSION \"1.5\" at the start of the program (§6 item 17)");
  }

  void checkOption(const std::string& opt, SourceRange where, bool isLong, std::map<std::string, SourceRange>& seen) {
    bool ok;
    if (isLong) {
      ok = opt.size() > 2 && opt.compare(0, 2, "--") == 0 &&
           std::all_of(opt.begin() + 2, opt.end(), [](char c) {
             return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
           });
      if (!ok)
        error(where, "long option \"" + opt + "\" must be '--' followed by letters, digits, '-' or '_' (§3.4)");
      if (opt == "--logfile" || opt == "--comment" || opt == "--no-trap")
        error(where, "long option \"" + opt + "\" is reserved by the run-time library (§3.4)");
    } else {
      ok = opt.size() == 2 && opt[0] == '-' &&
           (std::islower(static_cast<unsigned char>(opt[1])) || std::isdigit(static_cast<unsigned char>(opt[1])));
      if (!ok)
        error(where, "short option \"" + opt + "\" must be '-' followed by one lower-case letter or digit (§3.4)");
    }
    if (!ok) return;
    auto [it, fresh] = seen.emplace(opt, where);
    if (!fresh)
      error(where, std::string(isLong ? "long" : "short") + " option \"" + opt + "\" is declared twice (§3.4)");
  }

  // ------------------------------------------------------------------ expressions
  void checkExpr(const Expr& e, Ctx ctx) {
    switch (e.kind) {
      case Expr::Kind::Int:
        return;
      case Expr::Kind::Var:
        return checkVar(e, ctx);
      case Expr::Kind::Unary:
        return checkExpr(*e.args[0], ctx);
      case Expr::Kind::Binary:
        if (ctx == Ctx::Runtime && (e.op == Tok::Amp || e.op == Tok::Pipe))
          error(e.where, std::string("'") + (e.op == Tok::Amp ? "&" : "|") +
                             "' cannot be used in OUTPUTS, LOGS or BACKEND EXECUTES: the c_mpi backend evaluates them "
                             "in floating point and the C does not compile; bind the value with LET (§3.6, §6 item 18)");
        checkExpr(*e.args[0], ctx);
        checkExpr(*e.args[1], ctx);
        return;
      case Expr::Kind::Cond:
        checkExpr(*e.args[0], ctx);
        checkRel(*e.cond, ctx);
        checkExpr(*e.args[1], ctx);
        return;
      case Expr::Kind::Call: {
        if (e.func != Kw::REAL) {
          Arity a = arity(e.func);
          int n = static_cast<int>(e.args.size());
          if (n < a.min || (a.max >= 0 && n > a.max))
            error(e.where, std::string(keywordName(e.func)) + " takes " +
                               (a.max < 0 ? "at least " + std::to_string(a.min)
                                          : a.min == a.max ? std::to_string(a.min)
                                                           : std::to_string(a.min) + " to " + std::to_string(a.max)) +
                               " argument" + (a.min == 1 && a.max == 1 ? "" : "s") + ", not " + std::to_string(n));
        } else if (e.args.size() != 1) {
          error(e.where, "REAL takes 1 argument, not " + std::to_string(e.args.size()));
        }
        if (isRandomFunc(e.func)) {
          usesRandom_ = true;
          if (deterministic(ctx))
            error(e.where, std::string(keywordName(e.func)) + " may not appear in " + ctxName(ctx) +
                               ": all tasks must agree on it (§3.3)");
        }
        for (const auto& a : e.args) checkExpr(*a, ctx);
        return;
      }
      case Expr::Kind::Mesh: {
        if (e.dims < 1 || e.dims > 3)
          error(e.where, std::string(keywordName(e.func)) + " takes 1 to 3 dimensions, not " + std::to_string(e.dims));
        if (e.func == Kw::MESH_NEIGHBOR && e.args.size() - e.dims - 1 != e.dims)
          error(e.where, "MESH_NEIGHBOR needs one offset per dimension (" + std::to_string(e.dims) + "), not " +
                             std::to_string(e.args.size() - e.dims - 1) + " (§4.4)");
        if (e.func == Kw::MESH_DISTANCE) notG(e.where, "MESH_DISTANCE");
        for (const auto& a : e.args) checkExpr(*a, ctx);
        return;
      }
      case Expr::Kind::MyTask:
        notG(e.where, "MY TASK");
        if (ctx != Ctx::IfCond)
          error(e.where, "MY TASK is allowed only inside an IF condition (§3.3)");
        else
          warning(e.where, "MY TASK makes tasks take different branches (§3.7)");
        return;
      case Expr::Kind::FileData:
        notG(e.where, std::string(keywordName(e.func)));
        if (e.func == Kw::FILE_DATA) {
          if (deterministic(ctx))
            error(e.where, "FILE_DATA may not appear in " + ctxName(ctx) +
                               ": all tasks must agree on it (§3.3); use STATIC_FILE_DATA for a constant file");
        }
        for (const auto& a : e.args) checkExpr(*a, ctx);
        return;
    }
  }

  static std::string ctxName(Ctx c) {
    switch (c) {
      case Ctx::TaskDesc: return "a task description";
      case Ctx::IfCond: return "an IF condition";
      case Ctx::LetRhs: return "a LET binding";
      case Ctx::MsgSpec: return "a message specification";
      case Ctx::ParamDefault: return "a parameter default";
      case Ctx::Runtime: return "OUTPUTS/LOGS";
      case Ctx::Duration: return "a duration";
      default: return "this expression";
    }
  }

  void checkVar(const Expr& e, Ctx ctx) {
    if (ctx == Ctx::ParamDefault) {
      error(e.where, "a parameter's default value may not use variables (here '" + e.name +
                         "'); use literals, operators and functions (§3.1 rule 5)");
      return;
    }
    if (e.name == "num_tasks") return;
    if (isCounter(e.name)) {
      if (ctx == Ctx::LetRhs)
        error(e.where, "the right-hand side of a LET binding may use num_tasks but no other predeclared variable "
                       "(here '" + e.name + "', §3.1 rule 5)");
      else if (ctx != Ctx::Runtime)
        error(e.where, "'" + e.name + "' is read at start-up here and is always 0; counters are meaningful only in "
                       "LOGS, OUTPUTS and BACKEND EXECUTES (§4.1, §6 item 13)");
      return;
    }
    Var* v = lookup(e.name);
    if (!v) {
      error(e.where, "variable '" + e.name + "' must be declared before being used (§3.1)" + hiddenHint(e.name));
      return;
    }
    ++v->uses;
    if (v->kind == VarKind::LetTaskSet)
      error(e.where, "'" + e.name + "' names a task group; use it as TASK GROUP " + e.name + " (§3.2)");
  }

  // Extra explanation when the variable exists but is out of scope here (a task variable in a
  // message specification).
  std::string hiddenHint(const std::string& name) const {
    for (const auto& n : hiddenTaskVars_)
      if (n == name)
        return ": a task variable is not visible in a message specification; use one statement per message "
               "size (§3.1 rule 3, §6 item 6)";
    return "";
  }

  void checkRel(const RelExpr& r, Ctx ctx) {
    switch (r.kind) {
      case RelExpr::Kind::And:
      case RelExpr::Kind::Or:
        checkRel(*r.left, ctx);
        checkRel(*r.right, ctx);
        return;
      case RelExpr::Kind::Compare:
      case RelExpr::Kind::Divides:
        checkExpr(*r.lhs, ctx);
        checkExpr(*r.rhs, ctx);
        return;
      case RelExpr::Kind::Even:
      case RelExpr::Kind::Odd:
        checkExpr(*r.lhs, ctx);
        return;
      case RelExpr::Kind::In:
        checkExpr(*r.lhs, ctx);
        checkRanges(r.ranges, ctx);
        // The 1.5.1b run time walks a list comprehension as the range {0, ..., length-1}: an empty
        // one counts 0, -1 and pops an empty queue, a crash at start-up. A membership test must
        // not depend on a comprehension staying non-empty.
        for (const auto& range : r.ranges)
          if (const Range* empty = mayBeEmptyComprehension(range))
            error(empty->where, std::string("IS ") + (r.negated ? "NOT " : "") +
                                    "IN over a list comprehension that may be empty (a WHERE clause, or a generator "
                                    "over a range that may be empty): the 1.5.1b run time pops an empty queue and "
                                    "crashes when it is; map the values to be left out to one the test cannot match "
                                    "(e IF cond OTHERWISE v) instead of filtering them with WHERE");
        return;
      case RelExpr::Kind::InInterval:
        notG(r.where, "the deprecated IS IN [a, b]");
        warning(r.where, "IS IN [a, b] is deprecated; write a >= lo /\\ a <= hi (§3.7)");
        checkExpr(*r.lhs, ctx);
        checkExpr(*r.lo, ctx);
        checkExpr(*r.hi, ctx);
        return;
    }
  }

  void checkRanges(const std::vector<Range>& rs, Ctx ctx) {
    for (const auto& r : rs) checkRange(r, ctx);
  }

  void checkRange(const Range& r, Ctx ctx) {
    switch (r.kind) {
      case Range::Kind::List:
        for (const auto& e : r.items) checkExpr(*e, ctx);
        return;
      case Range::Kind::Progression: {
        for (const auto& e : r.items) checkExpr(*e, ctx);
        checkExpr(*r.bound, ctx);
        // Three or more leading values must form an arithmetic or geometric progression (§3.6).
        if (r.items.size() >= 3) {
          std::vector<std::int64_t> v;
          for (const auto& e : r.items)
            if (auto c = constValue(*e)) v.push_back(*c);
          if (v.size() == r.items.size() && !arithmeticOrGeometric(v))
            error(r.where, "the leading values of this range are neither an arithmetic nor a geometric progression "
                           "(a run-time error, §3.6)");
        }
        return;
      }
      case Range::Kind::Comprehension: {
        pushScope();
        for (const auto& g : r.generators) {
          checkRanges(g.ranges, ctx);
          define(g.var, VarKind::Generator, g.varWhere);
        }
        checkExpr(*r.expr, ctx);
        if (r.where_) checkRel(*r.where_, ctx);
        popScope();
        return;
      }
    }
  }

  // Whether a range can be empty at run time, judged from its text: an explicit list never is, nor
  // a progression with one leading value ({5, ..., 1} counts down); a progression with more may
  // end before its first value (unless its values are constants that say otherwise).
  static bool mayBeEmpty(const Range& r) {
    switch (r.kind) {
      case Range::Kind::List:
        return r.items.empty();
      case Range::Kind::Progression: {
        if (r.items.size() <= 1) return false;
        auto a = constValue(*r.items[0]), b = constValue(*r.items[1]), end = constValue(*r.bound);
        if (!a || !b || !end) return true;
        return *b > *a ? *end < *a : *b < *a ? *end > *a : false;
      }
      case Range::Kind::Comprehension:
        return mayBeEmptyComprehension(r) != nullptr;
    }
    return true;
  }
  static bool mayBeEmpty(const std::vector<Range>& rs) {
    return std::all_of(rs.begin(), rs.end(), [](const Range& r) { return mayBeEmpty(r); });
  }
  // The comprehension (r itself) if r is one that may be empty, else null.
  static const Range* mayBeEmptyComprehension(const Range& r) {
    if (r.kind != Range::Kind::Comprehension) return nullptr;
    if (r.where_) return &r;
    for (const auto& g : r.generators)
      if (mayBeEmpty(g.ranges)) return &r;
    return nullptr;
  }

  static bool arithmeticOrGeometric(const std::vector<std::int64_t>& v) {
    bool arith = true;
    for (std::size_t i = 2; i < v.size(); ++i) arith = arith && v[i] - v[i - 1] == v[1] - v[0];
    if (arith) return true;
    // Geometric: a constant ratio, in floating point as the run time re-evaluates it (§4.6).
    if (v[0] == 0) return false;
    const double ratio = static_cast<double>(v[1]) / static_cast<double>(v[0]);
    for (std::size_t i = 2; i < v.size(); ++i) {
      const double expect = static_cast<double>(v[i - 1]) * ratio;
      if (std::abs(expect - static_cast<double>(v[i])) > 1.0) return false;
    }
    return true;
  }

  // ------------------------------------------------------------------ task descriptions
  enum class Position { Acting, Target, Receivers, From, ReduceSide, LetSet };

  // Checks a description and defines its variable in the current scope.
  void checkTaskSpec(const TaskSpec& t, Position pos, const char* verb) {
    using K = TaskSpec::Kind;
    const std::string v = verb;
    if (t.kind == K::AllOther && (pos == Position::Acting || pos == Position::From || pos == Position::ReduceSide ||
                                  pos == Position::LetSet))
      error(t.where, "ALL OTHER TASKS cannot " + std::string(pos == Position::From ? "be the FROM side of RECEIVES" :
                                                           "act") +
                         "; it is legal only as the target of SENDS or MULTICASTS (§3.2)");
    if (t.kind == K::All && pos == Position::Target)
      error(t.where, "ALL TASKS cannot be the target of " + v +
                         "; use ALL OTHER TASKS or TASKS d SUCH THAT d >= 0 (§3.2, §6 item 12)");
    if (t.kind == K::All && pos == Position::Receivers)
      error(t.where, "ALL TASKS cannot be the receivers of RECEIVES; write TASKS t SUCH THAT t >= 0 RECEIVE ... "
                     "(§3.2, §6 item 11)");
    if (pos == Position::Receivers && t.kind == K::AllOther)
      error(t.where, "ALL OTHER TASKS cannot be the receivers of RECEIVES (the 1.5.1b code generator fails, §3.2, "
                     "§6 item 11)");
    if (t.kind == K::Group) {
      notG(t.where, "TASK GROUP");
      if (pos == Position::ReduceSide)
        error(t.where, "TASK GROUP is not supported in REDUCES (the 1.5.1b code generator fails, §3.2, §6 item 10)");
      if (pos == Position::Receivers)
        error(t.where, "TASK GROUP cannot be the receivers of RECEIVES (the 1.5.1b code generator fails, §3.2)");
      Var* g = lookup(t.var);
      if (!g || g->kind != VarKind::LetTaskSet)
        error(t.varWhere, "TASK GROUP " + t.var + " needs an enclosing LET " + t.var + " BE <task set> WHILE ... (§3.2)");
      else
        ++g->uses;
    }
    switch (t.kind) {
      case K::All:
        if (!t.var.empty()) define(t.var, VarKind::Task, t.varWhere);
        break;
      case K::AllOther:
        break;
      case K::SuchThat:
        define(t.var, VarKind::Task, t.varWhere);
        checkRel(*t.cond, Ctx::TaskDesc);
        break;
      case K::Ranges:
        checkRanges(t.ranges, Ctx::TaskDesc);
        break;
      case K::Expr:
        checkExpr(*t.expr, Ctx::TaskDesc);
        break;
      case K::Group:
        define(t.var, VarKind::Task, t.varWhere);
        ++scopes_.back()[t.var].uses;  // bound implicitly; not worth an unused warning
        break;
    }
  }

  // ------------------------------------------------------------------ messages
  void checkSized(const Sized& s, Ctx ctx, bool item) {
    if (s.amount) checkExpr(*s.amount, ctx);
    if (item) {
      if (!s.amount)
        notG(s.where, "a data-type SIZED message");
      else if (s.unit != Kw::BYTE)
        notG(s.where, "the size unit " + std::string(keywordName(s.unit)) + " (generated sizes are in BYTES)");
    }
  }

  void checkTag(const Tag& t, Ctx ctx) {
    if (!t.present) return;
    if (t.string) notG(t.where, "a string tag");
    if (t.expr) checkExpr(*t.expr, ctx);
  }

  void checkBuffer(const Buffer& b) {
    if (!b.present) return;
    notG(b.where, "a FROM/INTO BUFFER clause");
    if (b.offset && b.offset->amount) checkExpr(*b.offset->amount, Ctx::MsgSpec);
    if (b.number) checkExpr(*b.number, Ctx::MsgSpec);
  }

  void checkMsg(const MsgSpec& m) {
    if (m.count) checkExpr(*m.count, Ctx::MsgSpec);
    if (m.unique) notG(m.where, std::string(keywordName(*m.unique)));
    if (m.size) {
      checkSized(*m.size, Ctx::MsgSpec, true);
      if (m.size->amount)
        if (auto v = constValue(*m.size->amount)) {
          std::int64_t per = unitBytes(m.size->unit);
          // Saturated: only compared with the 2 GiB limit.
          std::int64_t bytes = m.size->unit == Kw::BIT ? saturatingAdd(*v, 7) / 8 : per > 0 ? saturatingMul(*v, per) : 0;
          if (bytes >= (std::int64_t{1} << 31))
            error(m.size->where, "a message of " + std::to_string(bytes) + " bytes: c_mpi messages must be smaller "
                                 "than 2 GiB; split it into several messages (§4.18, §6 item 20)");
          if (*v < 0) error(m.size->where, "negative message size (§6 item 5)");
        }
    }
    if (m.align.kind != Alignment::Kind::None) {
      notG(m.align.where, "an alignment clause");
      if (m.align.by.amount) checkExpr(*m.align.by.amount, Ctx::MsgSpec);
    }
    if (m.touching != Touching::None) notG(m.touchingWhere, "a data-touching or verification clause");
    checkTag(m.tag, Ctx::MsgSpec);
    checkBuffer(m.buffer);
  }

  static bool verifies(Touching t) { return t == Touching::WithVerification; }

  // ------------------------------------------------------------------ statements
  void requireBraced(const Stmt& body, const char* what) {
    if (opt_.generated && !(body.kind == Stmt::Kind::Block && body.braced))
      error(body.where, std::string("in generated code every ") + what + " body is braced (§6 item 2)");
  }

  void checkStmt(const Stmt& s) {
    using K = Stmt::Kind;
    switch (s.kind) {
      case K::Block:
        for (const auto& b : s.body) checkStmt(*b);
        return;
      case K::If:
        checkRel(*s.cond, Ctx::IfCond);
        if (s.body[0]->kind == K::If)
          error(s.body[0]->where, "brace an IF nested in the THEN branch of another IF: OTHERWISE binds to the nearest "
                                  "IF (§2.4 item 2, §6 item 2)");
        requireBraced(*s.body[0], "IF");
        checkStmt(*s.body[0]);
        if (s.body.size() > 1) {
          requireBraced(*s.body[1], "IF");
          checkStmt(*s.body[1]);
        }
        return;
      case K::ForReps:
      case K::ForTime:
        checkExpr(*s.count, Ctx::General);
        if (s.warmup) checkExpr(*s.warmup, Ctx::General);
        if (s.kind == K::ForTime) {
          notG(s.where, "a timed loop (FOR <time>)");
          if (s.unit != Kw::MICROSECOND) notG(s.where, "the time unit " + std::string(keywordName(s.unit)));
          if (forTimeDepth_ > 0)
            error(s.where, "a FOR <time> loop cannot be nested in another one (a run-time error, §3.6)");
          ++forTimeDepth_;
        }
        if (auto v = constValue(*s.count); v && *v < 0)
          error(s.count->where, "negative loop count or duration (§6 item 5)");
        requireBraced(*s.body[0], "loop");
        checkStmt(*s.body[0]);
        if (s.kind == K::ForTime) --forTimeDepth_;
        return;
      case K::ForEach:
        checkRanges(s.ranges, Ctx::General);
        pushScope();
        define(s.var, VarKind::ForEach, s.varWhere);
        requireBraced(*s.body[0], "loop");
        checkStmt(*s.body[0]);
        popScope();
        return;
      case K::Let: {
        pushScope();
        for (const auto& b : s.bindings) {
          switch (b.kind) {
            case Binding::Kind::Expr:
              checkExpr(*b.expr, Ctx::LetRhs);
              define(b.var, VarKind::Let, b.where);
              break;
            case Binding::Kind::TaskSet:
              notG(b.where, "a task-group binding (LET g BE <task set>)");
              pushScope();
              checkTaskSpec(b.tasks, Position::LetSet, "LET");
              popScopeQuiet();
              define(b.var, VarKind::LetTaskSet, b.where);
              break;
            case Binding::Kind::RandomTask:
              notG(b.where, "A RANDOM TASK");
              usesRandom_ = true;
              for (const ExprPtr* e : {&b.limit, &b.limit2, &b.butNot})
                if (*e) checkExpr(**e, Ctx::LetRhs);
              define(b.var, VarKind::Let, b.where);
              break;
          }
        }
        requireBraced(*s.body[0], "LET");
        checkStmt(*s.body[0]);
        popScope();
        return;
      }
      case K::Assert:
        checkRel(*s.cond, Ctx::General);
        return;
      case K::Send:
        return checkSend(s);
      case K::Receive:
        return checkReceive(s);
      case K::Multicast:
        return checkMulticast(s);
      case K::Reduce:
        return checkReduce(s);
      default:
        return checkSimple(s);
    }
  }

  void popScopeQuiet() { scopes_.pop_back(); }

  // The acting variable of a SEND/MULTICAST is hidden while its message is checked.
  void checkMsgHiding(const MsgSpec& m, const TaskSpec& acting, const TaskSpec* other = nullptr) {
    std::vector<std::string> saved = hiddenTaskVars_;
    if (!acting.var.empty()) hiddenTaskVars_.push_back(acting.var);
    if (other && !other->var.empty()) hiddenTaskVars_.push_back(other->var);
    checkMsg(m);
    hiddenTaskVars_ = saved;
  }

  void checkSend(const Stmt& s) {
    const bool async = s.mode == Kw::ASYNCHRONOUSLY;
    checkMsgHiding(s.msg, s.tasks);
    if (s.override_.present) {
      std::vector<std::string> saved = hiddenTaskVars_;
      if (!s.tasks.var.empty()) hiddenTaskVars_.push_back(s.tasks.var);
      checkOverride(s.override_, s.msg);
      hiddenTaskVars_ = saved;
    }
    pushScope();
    checkTaskSpec(s.tasks, Position::Acting, "SENDS");
    pushScope();
    checkTaskSpec(s.target, Position::Target, "SENDS");
    popScope();
    popScope();
    if (!s.unsuspecting && !async && s.tasks.kind == TaskSpec::Kind::All &&
        s.target.kind == TaskSpec::Kind::AllOther)
      error(s.where, "c_mpi cannot send a blocking message to ALL OTHER TASKS without deadlocking; send "
                     "ASYNCHRONOUSLY and AWAIT COMPLETION (§3.6)");
    if (!s.unsuspecting && !async && selfSend(s.tasks, s.target))
      error(s.where, "a blocking send from a task to itself deadlocks at start-up; use UNSUSPECTING with a separate "
                     "RECEIVE, or send ASYNCHRONOUSLY (§3.6, §4.7)");
  }

  // `TASK e … TO TASK e` or `ALL TASKS t … TO TASK t`.
  bool selfSend(const TaskSpec& from, const TaskSpec& to) const {
    if (to.kind != TaskSpec::Kind::Expr) return false;
    if (from.kind == TaskSpec::Kind::Expr) return upperNoSpace(text(from.expr->where)) == upperNoSpace(text(to.expr->where));
    if (!from.var.empty() && to.expr->kind == Expr::Kind::Var) return to.expr->name == from.var;
    return false;
  }

  void checkOverride(const Override& o, const MsgSpec& sent) {
    if (o.hasAs) {
      if (o.as.unique) notG(o.where, std::string(keywordName(*o.as.unique)));
      if (o.as.align.kind != Alignment::Kind::None) {
        notG(o.as.align.where, "an alignment clause");
        if (o.as.align.by.amount) checkExpr(*o.as.align.by.amount, Ctx::MsgSpec);
      }
      if (!o.as.align.by.amount && o.as.align.kind == Alignment::Kind::None && !o.as.unique)
        notG(o.where, "AS ... MESSAGES");
    }
    if (o.touching != Touching::None) {
      notG(o.touchingWhere, "a data-touching or verification clause");
      if (verifies(o.touching) != verifies(sent.touching))
        error(o.touchingWhere, std::string("a message sent ") + (verifies(sent.touching) ? "WITH" : "without") +
                                   " VERIFICATION must be received " + (verifies(sent.touching) ? "WITH" : "without") +
                                   " VERIFICATION, and vice versa (§3.5)");
    }
    checkTag(o.tag, Ctx::MsgSpec);
    checkBuffer(o.buffer);
  }

  void checkReceive(const Stmt& s) {
    checkMsgHiding(s.msg, s.tasks, &s.target);
    pushScope();
    checkTaskSpec(s.tasks, Position::Receivers, "RECEIVES");
    pushScope();
    const int before = s.tasks.var.empty() ? 0 : usesOf(s.tasks.var);
    checkTaskSpec(s.target, Position::From, "RECEIVES");
    const bool fromUsesReceiver = !s.tasks.var.empty() && usesOf(s.tasks.var) > before;
    popScope();
    popScope();
    if (s.tasks.kind == TaskSpec::Kind::Ranges && s.target.kind == TaskSpec::Kind::Ranges)
      error(s.where, "range lists on both sides of one RECEIVE are ambiguous (1.5.1b: 'Variable \"\" is ambiguous'); "
                     "write one side with SUCH THAT or TASK <expr> (§3.1 rule 3, §6 item 11)");
    else if (s.tasks.declaresVariable() && s.target.declaresVariable() && !fromUsesReceiver)
      error(s.where, "ambiguous RECEIVE: both task descriptions declare a variable and the FROM side does not use the "
                     "receivers' variable, so the direction cannot be inferred (§3.1 rule 3)");
  }

  bool singleSender(const TaskSpec& t) const { return t.kind == TaskSpec::Kind::Expr; }

  void checkMulticast(const Stmt& s) {
    checkMsgHiding(s.msg, s.tasks);
    pushScope();
    checkTaskSpec(s.tasks, Position::Acting, "MULTICASTS");
    pushScope();
    checkTaskSpec(s.target, Position::Target, "MULTICASTS");
    popScope();
    popScope();
    if (s.mode == Kw::ASYNCHRONOUSLY)
      error(s.modeWhere, "ASYNCHRONOUSLY MULTICASTS is not implemented by c_mpi (§3.6, §6 item 9)");
    if (s.msg.tag.present && !(s.msg.tag.expr && constValue(*s.msg.tag.expr) == 0))
      error(s.msg.tag.where, "MULTICASTS cannot use a tag: a nonzero tag is fatal at run time (§3.6, §6 item 9)");
    if (!singleSender(s.tasks)) {
      if (s.msg.align.kind != Alignment::Kind::None)
        error(s.msg.align.where, "a multicast that can have more than one sender cannot have an alignment clause "
                                 "(§3.6, §6 item 9)");
      if (s.msg.touching == Touching::WithDataTouching || s.msg.touching == Touching::WithVerification)
        error(s.msg.touchingWhere, "a multicast that can have more than one sender cannot touch or verify its data "
                                   "(§3.6, §6 item 9)");
    }
  }

  std::string countText(const MsgSpec& m) const { return m.countIsA ? "1" : upperNoSpace(text(m.count->where)); }

  void checkRedSpec(const MsgSpec& m) {
    checkMsg(m);
    if (m.dataType != Kw::INTEGER && m.dataType != Kw::DOUBLEWORD)
      error(m.dataTypeWhere, "REDUCES works on INTEGERS or DOUBLEWORDS only, not " +
                                 std::string(keywordName(m.dataType)) + "S (§3.5, §6 item 10)");
    if (m.touching == Touching::WithVerification)
      error(m.touchingWhere, "REDUCES cannot use WITH VERIFICATION (§3.5)");
    if (m.tag.present && !(m.tag.expr && constValue(*m.tag.expr) == 0))
      error(m.tag.where, "REDUCES cannot use a tag: a nonzero tag is fatal at run time (§3.6, §6 item 10)");
  }

  void checkReduce(const Stmt& s) {
    checkMsgHiding(s.msg, s.tasks);
    checkRedSpec(s.msg);
    pushScope();
    checkTaskSpec(s.tasks, Position::ReduceSide, "REDUCES");
    if (s.hasTarget) {
      pushScope();
      checkTaskSpec(s.target, Position::ReduceSide, "REDUCES");
      popScope();
    }
    popScope();
    auto sameSpec = [&](const MsgSpec& r, SourceRange where) {
      if (r.dataType != s.msg.dataType || countText(r) != countText(s.msg))
        error(where, "the result specification of REDUCES must have the same item count and data type as the "
                     "source (c_mpi: not yet implemented, §3.5, §3.6, §6 item 10)");
    };
    if (s.result) {
      notG(s.result->where, "REDUCES ... TO <result specification>");
      checkRedSpec(*s.result);
      sameSpec(*s.result, s.result->where);
    }
    if (s.override_.present) {
      notG(s.override_.where, "WHO RECEIVES THE RESULT");
      if (s.override_.hasAs) sameSpec(s.override_.as, s.override_.where);
      if (s.override_.touching == Touching::WithVerification)
        error(s.override_.touchingWhere, "REDUCES cannot use WITH VERIFICATION (§3.5)");
      checkTag(s.override_.tag, Ctx::MsgSpec);
      checkBuffer(s.override_.buffer);
    }
  }

  // Statements naming one task set: the task variable is visible in the rest of the statement.
  void checkSimple(const Stmt& s) {
    using K = Stmt::Kind;
    pushScope();
    checkTaskSpec(s.tasks, Position::Acting, "this statement");
    switch (s.kind) {
      case K::Compute:
      case K::Sleep:
        if (s.kind == K::Sleep) notG(s.where, "SLEEPS");
        if (s.unit != Kw::MICROSECOND) notG(s.where, "the time unit " + std::string(keywordName(s.unit)));
        checkExpr(*s.count, Ctx::Duration);
        if (auto v = constValue(*s.count); v && *v < 0)
          error(s.count->where, "negative duration: it wraps to an effectively infinite wait (§4.12, §6 item 5)");
        break;
      case K::Touch:
        notG(s.where, "TOUCHES");
        for (const ExprPtr* e : {&s.touchCount, &s.touchRepeat, &s.strideAmount})
          if (*e) checkExpr(**e, Ctx::General);
        if (s.touchSize && s.touchSize->amount) checkExpr(*s.touchSize->amount, Ctx::General);
        break;
      case K::TouchBuffer:
        notG(s.where, "TOUCHES ... MESSAGE BUFFER");
        if (s.bufferNumber) checkExpr(*s.bufferNumber, Ctx::General);
        break;
      case K::Store:
      case K::Restore:
        notG(s.where, s.kind == K::Store ? "STORES ITS COUNTERS" : "RESTORES ITS COUNTERS");
        break;
      case K::Log:
        for (const auto& it : s.logs) {
          if (it.aggregate == LogItem::Aggregate::Histogram) notG(it.where, "A HISTOGRAM OF");
          if (it.labelIsValueOf) notG(it.where, "THE VALUE OF \"...\" as a label");
          for (const auto& f : it.funcs)
            if (f.percentile) checkExpr(*f.percentile, Ctx::Runtime);
          checkExpr(*it.expr, Ctx::Runtime);
        }
        break;
      case K::Output:
      case K::BackendExec:
        if (s.kind == K::BackendExec) notG(s.where, "BACKEND EXECUTES");
        for (const auto& o : s.outputs)
          if (o.expr) checkExpr(*o.expr, Ctx::Runtime);
        break;
      case K::Processor:
        notG(s.where, "IS ASSIGNED TO");
        if (s.processor) checkExpr(*s.processor, Ctx::General);
        break;
      default:
        break;
    }
    popScope();
  }

  // ------------------------------------------------------------------ asynchronous operations
  struct Flow {
    bool pending = false;  // an asynchronous operation may be outstanding
    SourceRange last;      // the latest one
  };

  static bool postsAsync(const Stmt& s) {
    const bool async = s.mode == Kw::ASYNCHRONOUSLY;
    if (s.kind == Stmt::Kind::Receive) return async;
    if (s.kind != Stmt::Kind::Send) return false;
    if (async) return true;
    return !s.unsuspecting && s.override_.mode == Kw::ASYNCHRONOUSLY;
  }

  static bool containsAwait(const Stmt& s) {
    if (s.kind == Stmt::Kind::Await) return true;
    for (const auto& b : s.body)
      if (containsAwait(*b)) return true;
    return false;
  }

  Flow flow(const Stmt& s, Flow in) {
    using K = Stmt::Kind;
    switch (s.kind) {
      case K::Block:
        for (const auto& b : s.body) in = flow(*b, in);
        return in;
      case K::If: {
        Flow a = flow(*s.body[0], in);
        Flow b = s.body.size() > 1 ? flow(*s.body[1], in) : in;
        return {a.pending || b.pending, a.pending ? a.last : b.last};
      }
      case K::ForReps:
      case K::ForTime: {
        Flow inner = flow(*s.body[0], Flow{});
        if (inner.pending)
          awaitError(inner.last, std::string("this asynchronous operation is not awaited before the end of the ") +
                                     (s.kind == K::ForReps ? "FOR ... REPETITIONS" : "FOR <time>") +
                                     " body that posts it (line " + std::to_string(lineOf(s.where.begin)) +
                                     "); AWAIT COMPLETION inside the body (§4.8, §6 item 8)");
        if (containsAwait(*s.body[0])) return Flow{};
        return in;
      }
      case K::ForEach:
      case K::Let:
        return flow(*s.body[0], in);
      case K::Await:
        return Flow{};
      default:
        if (postsAsync(s)) return {true, s.where};
        return in;
    }
  }

  // ------------------------------------------------------------------ misc
  // num_tasks = P, or num_tasks >= N for a scale-free program (it runs at any count it fits).
  static bool assertsNumTasks(const RelExpr& r, bool scaleFree) {
    if (r.kind != RelExpr::Kind::Compare) return false;
    auto isNT = [](const Expr& e) { return e.kind == Expr::Kind::Var && e.name == "num_tasks"; };
    if (r.op == Tok::Eq) return (isNT(*r.lhs) && constValue(*r.rhs)) || (isNT(*r.rhs) && constValue(*r.lhs));
    return scaleFree && r.op == Tok::Ge && isNT(*r.lhs) && constValue(*r.rhs);
  }

  std::string_view src_;
  const CheckOptions& opt_;
  const Program& prog_;
  std::vector<Diagnostic>& out_;
  std::vector<Diagnostic>& awaitOut_;
  std::vector<std::size_t> newlines_;
  std::vector<std::map<std::string, Var>> scopes_;
  std::vector<std::string> hiddenTaskVars_;
  int forTimeDepth_ = 0;
  bool usesRandom_ = false;
};

int lineOfOffset(std::string_view src, std::size_t offset) {
  return 1 + static_cast<int>(std::count(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(std::min(offset, src.size())), '\n'));
}

}  // namespace

std::size_t CheckResult::errorCount() const {
  return static_cast<std::size_t>(std::count_if(diagnostics.begin(), diagnostics.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::Error;
  }));
}

CheckResult check(std::string_view source, const CheckOptions& options) {
  CheckResult result;
  ParseResult pr = parse(source);
  result.diagnostics = std::move(pr.diagnostics);
  const bool syntaxOk = std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                                     [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::Error; });
  std::vector<Diagnostic> awaitDiags;
  Checker(source, options, pr.program, result.diagnostics, awaitDiags).run();
  const bool staticOk = std::none_of(result.diagnostics.begin(), result.diagnostics.end(),
                                     [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::Error; });
  // The simulation needs a well-formed program; its per-task verdict supersedes the textual
  // AWAIT analysis.
  bool simulated = false;
  if (options.simulate && syntaxOk && staticOk) {
    if (auto n = options.tasks > 0 ? std::optional<std::int64_t>(options.tasks) : fixedTaskCount(pr.program)) {
      SimulationResult sim = simulate(pr.program, *n, options.simulationBudget);
      if (sim.completed) {
        simulated = true;
        result.simulatedTasks = *n;
        result.orderChecked = sim.orderChecked;
        result.traffic = std::move(sim.traffic);
        for (auto& d : sim.diagnostics) {
          d.where.line = lineOfOffset(source, d.where.begin);
          result.diagnostics.push_back(std::move(d));
        }
      }
    }
  }
  if (!simulated)
    for (auto& d : awaitDiags) result.diagnostics.push_back(std::move(d));
  result.simulated = simulated;
  for (auto& d : result.diagnostics)
    if (d.where.line == 0) d.where.line = lineOfOffset(source, d.where.begin);
  std::stable_sort(result.diagnostics.begin(), result.diagnostics.end(),
                   [](const Diagnostic& a, const Diagnostic& b) { return a.where.begin < b.where.begin; });
  return result;
}

std::string formatDiagnostic(std::string_view file, std::string_view source, const Diagnostic& d) {
  std::string out = std::string(file) + ":" + std::to_string(d.where.line) + ": " +
                    (d.severity == Diagnostic::Severity::Error ? "error: " : "warning: ") + d.message + "\n";
  // The offending line with the offending text underlined.
  std::size_t begin = std::min(d.where.begin, source.size());
  std::size_t lineStart = source.rfind('\n', begin == 0 ? 0 : begin - 1);
  lineStart = (lineStart == std::string_view::npos || begin == 0) ? 0 : lineStart + 1;
  if (begin > 0 && source[begin - 1] == '\n') lineStart = begin;
  std::size_t lineEnd = source.find('\n', begin);
  if (lineEnd == std::string_view::npos) lineEnd = source.size();
  if (lineStart >= lineEnd && begin >= source.size()) return out;
  std::string line(source.substr(lineStart, lineEnd - lineStart));
  for (auto& c : line)
    if (c == '\t') c = ' ';
  out += "    " + line + "\n    ";
  out += std::string(begin - lineStart, ' ');
  std::size_t end = std::min(std::max(d.where.end, begin + 1), lineEnd);
  out += "^";
  if (end > begin + 1) out += std::string(end - begin - 1, '~');
  out += "\n";
  return out;
}

}  // namespace tracegen::ncptl
