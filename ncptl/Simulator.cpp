// The per-task simulation of the checker (see Simulator.h).
//
// An evaluator for the integer semantics of §4.4 (64-bit, truncating '/', non-negative MOD,
// REAL rounding in floating point, ranges and list comprehensions as in §4.6, the tree and
// mesh functions) walks the statements with a stack of variable bindings. Per task it keeps
// the asynchronous operations posted and not yet awaited (as ids, so that a loop body can tell
// its own operations from older ones); per (sender, receiver, tag) it counts UNSUSPECTING
// messages and explicit receives. Whatever it cannot evaluate exactly throws Unevaluable, and
// the simulation ends without a verdict.
#include "ncptl/Simulator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include <boost/container/small_vector.hpp>

#include "ir/Checked.h"

namespace tracegen::ncptl {

namespace {

struct Unevaluable {};

constexpr std::int64_t kMaxRange = 10'000'000;

std::string taskList(const std::vector<std::int64_t>& tasks) {
  std::string out;
  std::size_t shown = 0;
  for (std::size_t i = 0; i < tasks.size();) {
    std::size_t j = i;
    while (j + 1 < tasks.size() && tasks[j + 1] == tasks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(tasks[i]);
    if (j > i) out += "-" + std::to_string(tasks[j]);
    i = j + 1;
    if (++shown == 8 && i < tasks.size()) {
      out += ", ...";
      break;
    }
  }
  return (tasks.size() == 1 ? "task " : "tasks ") + out;
}

class Simulator {
 public:
  Simulator(const Program& p, std::int64_t n, std::int64_t budget)
      : prog_(p), n_(n), budget_(budget), pending_(static_cast<std::size_t>(n)), collectives_(static_cast<std::size_t>(n)) {}

  // Parameter defaults, evaluated without variables (§3.1 rule 5).
  void bindParameters() {
    for (const auto& h : prog_.headers)
      if (h.kind == Header::Kind::Param) env_.push_back({&h.param.var, eval(*h.param.defaultValue)});
    parameters_ = env_.size();
  }

  SimulationResult run() {
    SimulationResult r;
    try {
      bindParameters();
      for (const auto& ts : prog_.statements)
        if (ts.stmt) walk(*ts.stmt, 1);
      reportPending();
      reportBalance();
      // A program whose counts already fail hangs for that reason; the order of its operations
      // is judged only when they balance.
      const bool countsOk = std::none_of(diags_.begin(), diags_.end(),
                                         [](const Diagnostic& d) { return d.severity == Diagnostic::Severity::Error; });
      if (countsOk) reportDeadlock();
      r.orderChecked = countsOk && !orderGaveUp_;
      r.traffic.assign(static_cast<std::size_t>(n_), TaskTraffic{});
      for (std::size_t t = 0; t < r.traffic.size(); ++t) r.traffic[t].collectives = collectives_[t];
      for (const auto& [key, b] : balance_) {
        const auto& [src, dst, tag] = key;
        if (src >= 0 && src < n_) {
          auto& t = r.traffic[static_cast<std::size_t>(src)];
          t.sent = ok(checkedAdd(t.sent, b.sends));
          t.sentBytes = ok(checkedAdd(t.sentBytes, b.sentBytes));
        }
        if (dst >= 0 && dst < n_) {
          auto& t = r.traffic[static_cast<std::size_t>(dst)];
          t.received = ok(checkedAdd(t.received, b.recvs));
          t.receivedBytes = ok(checkedAdd(t.receivedBytes, b.receivedBytes));
        }
      }
      r.completed = true;
      r.diagnostics = std::move(diags_);
    } catch (const Unevaluable&) {
      r.completed = false;
    }
    return r;
  }

  std::int64_t evalExpr(const Expr& e) { return eval(e); }

 private:
  // ------------------------------------------------------------------ bindings
  // A name bound to a value: the name is the program's own (a loop, LET or task variable, a
  // parameter), which outlives the simulation, so it is pointed to rather than copied (a task set
  // binds its variable once per task at every execution of its statement).
  struct Bound {
    const std::string* name;
    std::int64_t value;
  };
  void bind(const std::string& name, std::int64_t v) {
    // A parameter shadowed by a loop or LET variable: what was memoised as constant may not be.
    if (memoOn_ && env_.size() >= parameters_ &&
        std::any_of(env_.begin(), env_.begin() + static_cast<std::ptrdiff_t>(parameters_),
                    [&](const Bound& b) { return *b.name == name; })) {
      memoOn_ = false;
      taskMemo_.clear();
      rangeMemo_.clear();
    }
    env_.push_back({&name, v});
  }
  void unbind() { env_.pop_back(); }
  std::int64_t lookup(const std::string& name) const {
    static const std::string numTasks = "num_tasks";
    if (name == numTasks) return n_;
    for (auto it = env_.rbegin(); it != env_.rend(); ++it)
      if (*it->name == name) return it->value;
    // Counters read 0 at start-up (§4.1); anything else was rejected by the static checks.
    throw Unevaluable{};
  }
  void tick() {
    if (++steps_ > budget_) throw Unevaluable{};
  }
  // A memoised evaluation costs the budget what evaluating it did: the budget says how much
  // program a simulation may cover, and a memo only makes covering it faster.
  void charge(std::int64_t steps) {
    steps_ += steps;
    if (steps_ > budget_) throw Unevaluable{};
  }

  // ------------------------------------------------------------------ arithmetic (§4.4)
  // Programs come from traces (or from users, via ncptl-check), so any operation may leave the
  // int64 range; the generated program would then compute something else than the simulation
  // claims. An overflow makes the expression unevaluable: the simulation gives up rather than
  // report on wrapped numbers.
  static std::int64_t ok(std::optional<std::int64_t> v) {
    if (!v) throw Unevaluable{};
    return *v;
  }
  static std::int64_t mod(std::int64_t a, std::int64_t b) {
    if (b == 0) throw Unevaluable{};
    if (b == -1) return 0;  // a % -1 overflows for a = INT64_MIN
    std::int64_t r = a % b;
    if (r < 0) r += b < 0 ? -b : b;
    return r;
  }
  static std::int64_t power(std::int64_t a, std::int64_t b) {
    if (b < 0) {
      if (a == 0) throw Unevaluable{};
      if (a == 1) return 1;
      if (a == -1) return (b % 2 == 0) ? 1 : -1;
      return 0;
    }
    if (a == 0 && b == 0) throw Unevaluable{};
    std::int64_t r = 1;
    for (std::int64_t i = 0; i < b && i < 64; ++i) r = ok(checkedMul(r, a));
    return r;
  }
  static std::int64_t shift(std::int64_t a, std::int64_t b) {  // a << b, negative b shifts right
    if (b >= 63 || b <= -63) return b > 0 ? 0 : (a < 0 ? -1 : 0);
    return b >= 0 ? static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b) : a >> -b;
  }
  static std::int64_t iroot(std::int64_t n, std::int64_t x) {
    if (x < 0 || n < 1) throw Unevaluable{};
    auto r = static_cast<std::int64_t>(std::floor(std::pow(static_cast<double>(x), 1.0 / static_cast<double>(n))));
    auto pw = [&](std::int64_t b) {
      long double v = 1;
      for (std::int64_t i = 0; i < n; ++i) v *= static_cast<long double>(b);
      return v;
    };
    while (r > 0 && pw(r) > static_cast<long double>(x)) --r;
    while (pw(r + 1) <= static_cast<long double>(x)) ++r;
    return r;
  }

  std::int64_t eval(const Expr& e) {
    tick();
    switch (e.kind) {
      case Expr::Kind::Int:
        return e.value;
      case Expr::Kind::Var:
        return lookup(e.name);
      case Expr::Kind::Unary: {
        std::int64_t v = eval(*e.args[0]);
        return e.op == Tok::Minus ? ok(checkedSub(0, v)) : e.op == Tok::Plus ? v : ~v;
      }
      case Expr::Kind::Binary: {
        std::int64_t a = eval(*e.args[0]);
        std::int64_t b = eval(*e.args[1]);
        if (e.func == Kw::MOD) return mod(a, b);
        if (e.func == Kw::XOR) return a ^ b;
        switch (e.op) {
          case Tok::Plus: return ok(checkedAdd(a, b));
          case Tok::Minus: return ok(checkedSub(a, b));
          case Tok::Star: return ok(checkedMul(a, b));
          case Tok::Slash:
            if (b == 0 || (b == -1 && a == std::numeric_limits<std::int64_t>::min())) throw Unevaluable{};
            return a / b;
          case Tok::Power: return power(a, b);
          case Tok::Shl: return shift(a, b);
          case Tok::Shr: return shift(a, -b);
          case Tok::Amp: return a & b;
          case Tok::Pipe: return a | b;
          default: throw Unevaluable{};
        }
      }
      case Expr::Kind::Cond:
        return evalRel(*e.cond) ? eval(*e.args[0]) : eval(*e.args[1]);
      case Expr::Kind::Call:
        return call(e);
      case Expr::Kind::Mesh:
        return mesh(e);
      default:
        throw Unevaluable{};  // MY TASK, FILE_DATA
    }
  }

  std::int64_t call(const Expr& e) {
    if (e.func == Kw::REAL) return static_cast<std::int64_t>(std::llround(evalReal(*e.args[0])));
    boost::container::small_vector<std::int64_t, 4> a;  // no allocation for the usual 1-3 arguments
    for (const auto& x : e.args) a.push_back(eval(*x));
    switch (e.func) {
      case Kw::ABS: return a[0] < 0 ? -a[0] : a[0];
      case Kw::BIT: {
        auto u = static_cast<std::uint64_t>(a[0]);
        std::int64_t bits = 0;
        while (u) {
          ++bits;
          u >>= 1;
        }
        return bits;
      }
      case Kw::CBRT: return iroot(3, a[0]);
      case Kw::SQRT: return iroot(2, a[0]);
      case Kw::ROOT: return iroot(a[0], a[1]);
      case Kw::LOG10: {
        if (a[0] <= 0) throw Unevaluable{};
        std::int64_t l = 0;
        for (std::int64_t v = a[0]; v >= 10; v /= 10) ++l;
        return l;
      }
      case Kw::FACTOR10: {
        std::int64_t m = 1;
        std::int64_t v = a[0] < 0 ? -a[0] : a[0];
        while (v >= 10) {
          v /= 10;
          m *= 10;
        }
        return (a[0] < 0 ? -1 : 1) * v * m;
      }
      case Kw::MIN: return *std::min_element(a.begin(), a.end());
      case Kw::MAX: return *std::max_element(a.begin(), a.end());
      case Kw::ROUND: case Kw::FLOOR: case Kw::CEILING: return a[0];  // identity in integer context
      case Kw::TREE_PARENT: {
        std::int64_t k = a.size() > 1 ? a[1] : 2;
        if (k < 1) throw Unevaluable{};
        return a[0] < 1 ? -1 : (a[0] - 1) / k;
      }
      case Kw::TREE_CHILD: {
        std::int64_t k = a.size() > 2 ? a[2] : 2;
        return k * a[0] + a[1] + 1;
      }
      case Kw::PROCESSOR_OF: case Kw::TASK_OF: return a[0];  // identity without IS ASSIGNED TO
      default: throw Unevaluable{};  // random functions, k-nomial trees
    }
  }

  // REAL(e): e evaluated in floating point (§4.4).
  double evalReal(const Expr& e) {
    tick();
    switch (e.kind) {
      case Expr::Kind::Int: return static_cast<double>(e.value);
      case Expr::Kind::Var: return static_cast<double>(lookup(e.name));
      case Expr::Kind::Unary:
        if (e.op == Tok::Minus) return -evalReal(*e.args[0]);
        if (e.op == Tok::Plus) return evalReal(*e.args[0]);
        break;
      case Expr::Kind::Binary: {
        if (e.func != Kw::None) break;
        double a = evalReal(*e.args[0]);
        double b = evalReal(*e.args[1]);
        switch (e.op) {
          case Tok::Plus: return a + b;
          case Tok::Minus: return a - b;
          case Tok::Star: return a * b;
          case Tok::Slash:
            if (b == 0) throw Unevaluable{};
            return a / b;
          case Tok::Power: return std::pow(a, b);
          default: break;
        }
        break;
      }
      case Expr::Kind::Call:
        if (e.func == Kw::MIN || e.func == Kw::MAX) {
          double r = evalReal(*e.args[0]);
          for (std::size_t i = 1; i < e.args.size(); ++i) {
            double v = evalReal(*e.args[i]);
            r = e.func == Kw::MIN ? std::min(r, v) : std::max(r, v);
          }
          return r;
        }
        if (e.func == Kw::REAL) return evalReal(*e.args[0]);
        break;
      default:
        break;
    }
    return static_cast<double>(eval(e));
  }

  std::int64_t mesh(const Expr& e) {
    std::vector<std::int64_t> dims;
    for (std::size_t i = 0; i < e.dims; ++i) {
      dims.push_back(eval(*e.args[i]));
      if (dims.back() < 1) throw Unevaluable{};
    }
    while (dims.size() < 3) dims.push_back(1);
    std::vector<bool> wrap = e.wrap;
    wrap.resize(3, false);
    const std::int64_t total = ok(checkedMul(ok(checkedMul(dims[0], dims[1])), dims[2]));
    auto coords = [&](std::int64_t t) -> std::optional<std::array<std::int64_t, 3>> {
      if (t < 0 || t >= total) return std::nullopt;
      return std::array<std::int64_t, 3>{t % dims[0], (t / dims[0]) % dims[1], t / (dims[0] * dims[1])};
    };
    const std::int64_t t = eval(*e.args[e.dims]);
    auto c = coords(t);
    if (e.func == Kw::MESH_COORDINATE) {
      std::int64_t axis = eval(*e.args[e.dims + 1]);
      if (!c || axis < 0 || axis > 2) return -1;
      return (*c)[static_cast<std::size_t>(axis)];
    }
    if (e.func == Kw::MESH_DISTANCE) {
      auto c2 = coords(eval(*e.args[e.dims + 1]));
      if (!c || !c2) return -1;
      std::int64_t d = 0;
      for (std::size_t k = 0; k < 3; ++k) {
        std::int64_t diff = (*c)[k] - (*c2)[k];
        if (diff < 0) diff = -diff;
        if (wrap[k]) diff = std::min(diff, dims[k] - diff);
        d = ok(checkedAdd(d, diff));
      }
      return d;
    }
    if (!c) {
      for (std::size_t k = e.dims + 1; k < e.args.size(); ++k) eval(*e.args[k]);
      return -1;
    }
    std::array<std::int64_t, 3> n = *c;
    for (std::size_t k = 0; k < e.dims; ++k) {
      n[k] = ok(checkedAdd(n[k], eval(*e.args[e.dims + 1 + k])));
      if (wrap[k])
        n[k] = mod(n[k], dims[k]);
      else if (n[k] < 0 || n[k] >= dims[k])
        return -1;
    }
    return n[0] + dims[0] * (n[1] + dims[1] * n[2]);
  }

  bool evalRel(const RelExpr& r) {
    tick();
    switch (r.kind) {
      case RelExpr::Kind::And: return evalRel(*r.left) && evalRel(*r.right);
      case RelExpr::Kind::Or: return evalRel(*r.left) || evalRel(*r.right);
      case RelExpr::Kind::Compare: {
        std::int64_t a = eval(*r.lhs);
        std::int64_t b = eval(*r.rhs);
        switch (r.op) {
          case Tok::Eq: return a == b;
          case Tok::Ne: return a != b;
          case Tok::Lt: return a < b;
          case Tok::Gt: return a > b;
          case Tok::Le: return a <= b;
          case Tok::Ge: return a >= b;
          default: throw Unevaluable{};
        }
      }
      case RelExpr::Kind::Divides: {
        std::int64_t a = eval(*r.lhs);
        return mod(eval(*r.rhs), a) == 0;
      }
      case RelExpr::Kind::Even: return mod(eval(*r.lhs), 2) == 0;
      case RelExpr::Kind::Odd: return mod(eval(*r.lhs), 2) == 1;
      case RelExpr::Kind::In: {
        std::int64_t v = eval(*r.lhs);
        if (memoOn_ && constantRanges(r.ranges)) {
          auto it = rangeMemo_.find(&r.ranges);
          if (it == rangeMemo_.end()) {
            const std::int64_t before = steps_;
            std::vector<std::int64_t> vals = evalRanges(r.ranges);
            std::sort(vals.begin(), vals.end());
            it = rangeMemo_.emplace(&r.ranges, Memo{std::move(vals), steps_ - before}).first;
          } else {
            charge(it->second.steps);
          }
          return std::binary_search(it->second.values.begin(), it->second.values.end(), v) != r.negated;
        }
        std::vector<std::int64_t> vals = evalRanges(r.ranges);
        bool found = std::find(vals.begin(), vals.end(), v) != vals.end();
        return found != r.negated;
      }
      case RelExpr::Kind::InInterval: {
        std::int64_t v = eval(*r.lhs);
        bool in = v >= eval(*r.lo) && v <= eval(*r.hi);
        return in != r.negated;
      }
    }
    return false;
  }

  // ------------------------------------------------------------------ ranges (§4.6)
  std::vector<std::int64_t> evalRanges(const std::vector<Range>& rs) {
    std::vector<std::int64_t> out;
    for (const auto& r : rs) evalRange(r, out);
    return out;
  }

  void emit(std::vector<std::int64_t>& out, std::int64_t v) {
    tick();
    if (static_cast<std::int64_t>(out.size()) >= kMaxRange) throw Unevaluable{};
    out.push_back(v);
  }

  void evalRange(const Range& r, std::vector<std::int64_t>& out) {
    switch (r.kind) {
      case Range::Kind::List:
        for (const auto& e : r.items) emit(out, eval(*e));
        return;
      case Range::Kind::Progression: {
        std::vector<std::int64_t> lead;
        for (const auto& e : r.items) lead.push_back(eval(*e));
        const std::int64_t bound = eval(*r.bound);
        bool arithmetic = true;
        for (std::size_t i = 2; i < lead.size(); ++i) arithmetic = arithmetic && lead[i] - lead[i - 1] == lead[1] - lead[0];
        if (lead.size() == 1 || arithmetic) {
          const std::int64_t step = lead.size() == 1 ? (bound >= lead[0] ? 1 : -1) : lead[1] - lead[0];
          if (step == 0) {
            emit(out, lead[0]);
            return;
          }
          for (std::int64_t v = lead[0]; step > 0 ? v <= bound : v >= bound; v += step) emit(out, v);
          return;
        }
        // Geometric: ratio re-evaluated in floating point, values truncated.
        if (lead[0] == 0) throw Unevaluable{};
        const double ratio = static_cast<double>(lead[1]) / static_cast<double>(lead[0]);
        for (std::size_t i = 2; i < lead.size(); ++i)
          if (static_cast<std::int64_t>(static_cast<double>(lead[0]) * std::pow(ratio, static_cast<double>(i))) != lead[i])
            throw Unevaluable{};  // no pattern: a run-time error
        if (ratio <= 0 || ratio == 1) throw Unevaluable{};
        for (int i = 0;; ++i) {
          const double x = static_cast<double>(lead[0]) * std::pow(ratio, i);
          if (std::abs(x) > 9.0e18) break;
          const auto v = static_cast<std::int64_t>(x);
          if (ratio > 1 ? v > bound : v < bound) break;
          emit(out, v);
          if (ratio < 1 && v == 0) break;
        }
        return;
      }
      case Range::Kind::Comprehension: {
        const std::size_t before = out.size();
        generate(r, 0, out);
        // The 1.5.1b run time walks a comprehension as {0, ..., length-1}: an empty one counts
        // 0, -1 and pops an empty queue.
        if (out.size() == before && reportedEmpty_.insert(r.where.begin).second)
          error(r.where, "this list comprehension is empty with num_tasks = " + std::to_string(n_) +
                             " and the parameter defaults: the 1.5.1b run time walks it from 0 down to -1 and pops "
                             "an empty queue, a crash at start-up");
        return;
      }
    }
  }

  void generate(const Range& r, std::size_t g, std::vector<std::int64_t>& out) {
    if (g == r.generators.size()) {
      if (!r.where_ || evalRel(*r.where_)) emit(out, eval(*r.expr));
      return;
    }
    for (std::int64_t v : evalRanges(r.generators[g].ranges)) {
      bind(r.generators[g].var, v);
      generate(r, g + 1, out);
      unbind();
    }
  }

  // ------------------------------------------------------------------ task sets (§4.2)
  // Members in ascending order, restricted to 0 … n-1. `other` is the source an ALL OTHER
  // TASKS excludes.
  std::vector<std::int64_t> tasks(const TaskSpec& t, std::int64_t other = -1) {
    // A set named by constants alone (TASKS t SUCH THAT t >= 1 /\ t < 3, TASKS {4, 8}) is the
    // same at every execution of its statement: evaluated once (a loop body's statements run
    // as often as the trace's calls).
    if (memoOn_ && (t.kind == TaskSpec::Kind::SuchThat || t.kind == TaskSpec::Kind::Ranges) && constantTasks(t)) {
      auto it = taskMemo_.find(&t);
      if (it == taskMemo_.end()) {
        const std::int64_t before = steps_;
        std::vector<std::int64_t> members = evalTasks(t, other);
        it = taskMemo_.emplace(&t, Memo{std::move(members), steps_ - before}).first;
      } else {
        charge(it->second.steps);
      }
      return it->second.values;
    }
    return evalTasks(t, other);
  }

  // ------------------------------------------------------------------ constants
  // Whether an expression's value depends on nothing but num_tasks, the parameters (bound
  // once, at start-up; bind() turns the memo off should a variable shadow one) and the names
  // in `scope`; remembered per node.
  bool constantName(const std::string& name, const std::vector<std::string>& scope) const {
    if (name == "num_tasks" || std::find(scope.begin(), scope.end(), name) != scope.end()) return true;
    return std::any_of(env_.begin(), env_.begin() + static_cast<std::ptrdiff_t>(std::min(parameters_, env_.size())),
                       [&](const Bound& b) { return *b.name == name; });
  }
  bool constantExpr(const Expr& e, std::vector<std::string>& scope) const {
    if (e.kind == Expr::Kind::MyTask || e.kind == Expr::Kind::FileData) return false;
    if (e.kind == Expr::Kind::Var && !constantName(e.name, scope)) return false;
    for (const auto& a : e.args)
      if (a && !constantExpr(*a, scope)) return false;
    return !e.cond || constantRel(*e.cond, scope);
  }
  bool constantRel(const RelExpr& r, std::vector<std::string>& scope) const {
    for (const ExprPtr* x : {&r.lhs, &r.rhs, &r.lo, &r.hi})
      if (*x && !constantExpr(**x, scope)) return false;
    for (const RelPtr* x : {&r.left, &r.right})
      if (*x && !constantRel(**x, scope)) return false;
    return constantRangeList(r.ranges, scope);
  }
  bool constantRangeList(const std::vector<Range>& rs, std::vector<std::string>& scope) const {
    for (const Range& r : rs) {
      for (const auto& x : r.items)
        if (!constantExpr(*x, scope)) return false;
      if (r.bound && !constantExpr(*r.bound, scope)) return false;
      const std::size_t outer = scope.size();
      bool ok = true;
      for (const Generator& g : r.generators) {
        ok = ok && constantRangeList(g.ranges, scope);
        scope.push_back(g.var);
      }
      ok = ok && (!r.where_ || constantRel(*r.where_, scope)) && (!r.expr || constantExpr(*r.expr, scope));
      scope.resize(outer);
      if (!ok) return false;
    }
    return true;
  }
  bool constantRanges(const std::vector<Range>& rs) {
    auto it = constant_.find(&rs);
    if (it != constant_.end()) return it->second;
    std::vector<std::string> scope;
    return constant_[&rs] = constantRangeList(rs, scope);
  }
  bool constantTasks(const TaskSpec& t) {
    auto it = constant_.find(&t);
    if (it != constant_.end()) return it->second;
    std::vector<std::string> scope{t.var};
    const bool c = t.kind == TaskSpec::Kind::SuchThat ? constantRel(*t.cond, scope) : constantRangeList(t.ranges, scope);
    return constant_[&t] = c;
  }

  // tasks(t, other) for the target of a message, in a buffer reused from one execution to the
  // next: a peer named by an expression, the commonest target, then costs no allocation. Valid
  // until the next call.
  const std::vector<std::int64_t>& targets(const TaskSpec& t, std::int64_t other) {
    if (t.kind == TaskSpec::Kind::Expr) {
      targets_.clear();
      const std::int64_t v = eval(*t.expr);
      if (v >= 0 && v < n_) targets_.push_back(v);
    } else {
      targets_ = tasks(t, other);
    }
    return targets_;
  }

  std::vector<std::int64_t> evalTasks(const TaskSpec& t, std::int64_t other) {
    std::vector<std::int64_t> out;
    switch (t.kind) {
      case TaskSpec::Kind::All:
        for (std::int64_t i = 0; i < n_; ++i) out.push_back(i);
        break;
      case TaskSpec::Kind::AllOther:
        for (std::int64_t i = 0; i < n_; ++i)
          if (i != other) out.push_back(i);
        break;
      case TaskSpec::Kind::SuchThat:
        for (std::int64_t i = 0; i < n_; ++i) {
          bind(t.var, i);
          bool in = evalRel(*t.cond);
          unbind();
          if (in) out.push_back(i);
        }
        break;
      case TaskSpec::Kind::Ranges: {
        std::set<std::int64_t> s;
        for (std::int64_t v : evalRanges(t.ranges))
          if (v >= 0 && v < n_) s.insert(v);
        out.assign(s.begin(), s.end());
        break;
      }
      case TaskSpec::Kind::Expr: {
        std::int64_t v = eval(*t.expr);
        if (v >= 0 && v < n_) out.push_back(v);
        break;
      }
      case TaskSpec::Kind::Group:
        throw Unevaluable{};
    }
    return out;
  }

  // The acting task's variable, bound while the rest of its statement is evaluated.
  static const std::string* actingVar(const TaskSpec& t) {
    if (t.kind == TaskSpec::Kind::SuchThat || (t.kind == TaskSpec::Kind::All && !t.var.empty())) return &t.var;
    return nullptr;
  }

  // ------------------------------------------------------------------ messages
  std::int64_t count(const MsgSpec& m) { return m.countIsA ? 1 : eval(*m.count); }

  std::string tagKey(const Tag& t) {
    if (!t.present) return "0";
    if (t.string) return "\"" + *t.string + "\"";
    return std::to_string(eval(*t.expr));
  }

  // The message size in bytes with the parameter defaults; nullopt where it has none or the
  // unit is machine-dependent (PAGE).
  std::optional<std::int64_t> checkSize(const MsgSpec& m, const Stmt& s) {
    if (!m.size || !m.size->amount) return std::nullopt;
    const std::int64_t amount = eval(*m.size->amount);
    std::int64_t bytes = 0;
    switch (m.size->unit) {
      case Kw::BIT: bytes = (amount + 7) / 8; break;
      case Kw::BYTE: bytes = amount; break;
      case Kw::HALFWORD: bytes = ok(checkedMul(amount, 2)); break;
      case Kw::WORD: case Kw::INTEGER: bytes = ok(checkedMul(amount, 4)); break;
      case Kw::DOUBLEWORD: bytes = ok(checkedMul(amount, 8)); break;
      case Kw::QUADWORD: bytes = ok(checkedMul(amount, 16)); break;
      case Kw::KILOBYTE: bytes = ok(checkedMul(amount, std::int64_t{1} << 10)); break;
      case Kw::MEGABYTE: bytes = ok(checkedMul(amount, std::int64_t{1} << 20)); break;
      case Kw::GIGABYTE: bytes = ok(checkedMul(amount, std::int64_t{1} << 30)); break;
      default: return std::nullopt;  // PAGE: machine-dependent
    }
    if (bytes >= (std::int64_t{1} << 31) && reportedSize_.insert(s.where.begin).second)
      error(m.size->where, "this message is " + std::to_string(bytes) + " bytes with the parameter defaults: c_mpi "
                           "messages must be smaller than 2 GiB (§4.18, §6 item 20)");
    if (amount < 0 && reportedSize_.insert(s.where.begin).second)
      error(m.size->where, "negative message size with the parameter defaults");
    return bytes;
  }

  // ------------------------------------------------------------------ statements
  void error(SourceRange where, std::string msg) {
    diags_.push_back({Diagnostic::Severity::Error, where, std::move(msg)});
  }

  std::int64_t post(std::int64_t task, SourceRange where) {
    const auto id = static_cast<std::int64_t>(ops_.size());
    ops_.push_back(where);
    pending_[static_cast<std::size_t>(task)].push_back(id);
    return id;
  }

  void walk(const Stmt& s, std::int64_t mult) {
    tick();
    using K = Stmt::Kind;
    switch (s.kind) {
      case K::Block:
        for (const auto& b : s.body) walk(*b, mult);
        return;
      case K::If:
        if (evalRel(*s.cond))
          walk(*s.body[0], mult);
        else if (s.body.size() > 1)
          walk(*s.body[1], mult);
        return;
      case K::ForReps:
      case K::ForTime: {
        std::int64_t trips = 1;
        if (s.kind == K::ForReps) {
          trips = ok(checkedAdd(eval(*s.count), s.warmup ? std::max<std::int64_t>(0, eval(*s.warmup)) : 0));
          if (trips <= 0) return;
        }
        const auto firstOp = static_cast<std::int64_t>(ops_.size());
        // The body is walked once, its counts multiplied; for the order of operations its events
        // are recorded once and repeated `trips` times (every iteration is the same).
        frames_.emplace_back();
        walk(*s.body[0], ok(checkedMul(mult, trips)));
        repeatFrame(trips);
        loopPending(s, firstOp);
        return;
      }
      case K::ForEach:
        // Each run of iterations that every test of the loop variable answers alike is walked
        // once, like a FOR … REPETITIONS body (a trace's loop of 320 trips with a first
        // iteration of its own is two walks).
        for (const auto& [value, run] : forEachRuns(s)) {
          bind(s.var, value);
          if (run == 1) {
            walk(*s.body[0], mult);
          } else {
            frames_.emplace_back();
            walk(*s.body[0], ok(checkedMul(mult, run)));
            repeatFrame(run);
          }
          unbind();
        }
        return;
      case K::Let: {
        std::size_t bound = 0;
        for (const auto& b : s.bindings) {
          if (b.kind != Binding::Kind::Expr) throw Unevaluable{};
          std::int64_t v = eval(*b.expr);
          bind(b.var, v);
          ++bound;
        }
        walk(*s.body[0], mult);
        for (std::size_t i = 0; i < bound; ++i) unbind();
        return;
      }
      case K::Assert:
        if (!evalRel(*s.cond))
          error(s.where, "ASSERT THAT \"" + s.message + "\" fails with num_tasks = " + std::to_string(n_) +
                             " and the parameter defaults (a fatal run-time error, §3.6)");
        return;
      case K::Send:
        return send(s, mult);
      case K::Receive:
        return receive(s, mult);
      case K::Multicast: {
        checkSize(s.msg, s);
        std::set<std::int64_t> members;
        const std::string* var = actingVar(s.tasks);
        for (std::int64_t src : tasks(s.tasks)) {
          members.insert(src);
          if (var) bind(*var, src);
          for (std::int64_t dst : tasks(s.target, src)) members.insert(dst);
          if (var) unbind();
        }
        takePart(members, mult, s.where);
        return;
      }
      case K::Reduce: {
        std::set<std::int64_t> members;
        const std::string* var = actingVar(s.tasks);
        for (std::int64_t src : tasks(s.tasks)) {
          members.insert(src);
          if (!s.hasTarget) continue;
          if (var) bind(*var, src);
          for (std::int64_t dst : tasks(s.target, src)) members.insert(dst);
          if (var) unbind();
        }
        takePart(members, mult, s.where);
        return;
      }
      case K::Synchronize: {
        const std::vector<std::int64_t> members = tasks(s.tasks);
        takePart(std::set<std::int64_t>(members.begin(), members.end()), mult, s.where);
        return;
      }
      case K::Await: {
        const std::uint32_t loc = location(s.where);
        for (std::int64_t t : tasks(s.tasks)) {
          pending_[static_cast<std::size_t>(t)].clear();
          record(t, {Ev::Await, loc, 0, 0});
        }
        return;
      }
      default:
        return;  // no effect on matching or pending operations
    }
  }

  // ------------------------------------------------------------------ FOR EACH runs
  // Iterations of a FOR EACH loop whose body names the loop variable only in comparisons with
  // values fixed before the loop (`IF i = 0 THEN …`, `i > 0`, `i < 319`: how generated programs
  // give a trace loop's first or last iteration its own timing) do the same thing wherever those
  // comparisons answer alike. loopVariableTests() finds the comparisons, evaluated (nullopt when
  // the variable is used any other way, or the body has a statement this analysis does not
  // know); walk() then walks each run of alike iterations once.
  struct Comparison {
    Tok op;              // variable op value
    std::int64_t value;
  };
  static bool answer(const Comparison& c, std::int64_t v) {
    switch (c.op) {
      case Tok::Eq: return v == c.value;
      case Tok::Ne: return v != c.value;
      case Tok::Lt: return v < c.value;
      case Tok::Gt: return v > c.value;
      case Tok::Le: return v <= c.value;
      default: return v >= c.value;  // Tok::Ge
    }
  }
  static bool sameAnswers(const std::vector<Comparison>& tests, std::int64_t a, std::int64_t b) {
    return std::all_of(tests.begin(), tests.end(), [&](const Comparison& c) { return answer(c, a) == answer(c, b); });
  }

  // The walk over one loop body: the comparisons found, the names its statements bind (a
  // compared value must not name one), and whether anything else uses the variable.
  struct VariableUses {
    const std::string& var;
    std::vector<std::pair<Tok, const Expr*>> comparisons;
    std::set<std::string> boundInside;
    bool other = false;
  };
  static bool mentions(const Expr& e, const std::string& name) {
    if (e.kind == Expr::Kind::Var && e.name == name) return true;
    for (const auto& a : e.args)
      if (a && mentions(*a, name)) return true;
    return e.cond && mentionsRel(*e.cond, name);
  }
  static bool mentionsRel(const RelExpr& r, const std::string& name) {
    for (const ExprPtr* x : {&r.lhs, &r.rhs, &r.lo, &r.hi})
      if (*x && mentions(**x, name)) return true;
    for (const RelPtr* x : {&r.left, &r.right})
      if (*x && mentionsRel(**x, name)) return true;
    return mentionsRanges(r.ranges, name);
  }
  static bool mentionsRanges(const std::vector<Range>& rs, const std::string& name) {
    for (const Range& r : rs) {
      for (const auto& x : r.items)
        if (mentions(*x, name)) return true;
      for (const ExprPtr* x : {&r.bound, &r.expr})
        if (*x && mentions(**x, name)) return true;
      for (const Generator& g : r.generators)
        if (g.var == name || mentionsRanges(g.ranges, name)) return true;
      if (r.where_ && mentionsRel(*r.where_, name)) return true;
    }
    return false;
  }
  static void usesIn(const Expr* e, VariableUses& u) {
    if (e && mentions(*e, u.var)) u.other = true;
  }
  static void usesInRel(const RelExpr* r, VariableUses& u) {
    if (!r) return;
    if (r->kind == RelExpr::Kind::And || r->kind == RelExpr::Kind::Or) {
      usesInRel(r->left.get(), u);
      usesInRel(r->right.get(), u);
      return;
    }
    if (r->kind == RelExpr::Kind::Compare) {
      const bool left = r->lhs->kind == Expr::Kind::Var && r->lhs->name == u.var;
      const bool right = r->rhs->kind == Expr::Kind::Var && r->rhs->name == u.var;
      if (left != right) {
        const Expr& other = left ? *r->rhs : *r->lhs;
        Tok op = r->op;
        if (right) op = op == Tok::Lt ? Tok::Gt : op == Tok::Gt ? Tok::Lt : op == Tok::Le ? Tok::Ge : op == Tok::Ge ? Tok::Le : op;
        if (mentions(other, u.var) || other.kind == Expr::Kind::MyTask) u.other = true;
        else u.comparisons.push_back({op, &other});
        return;
      }
    }
    if (mentionsRel(*r, u.var)) u.other = true;
  }
  static void usesInTasks(const TaskSpec& t, VariableUses& u) {
    if (!t.var.empty()) u.boundInside.insert(t.var);
    if (t.var == u.var) u.other = true;  // shadowed
    usesInRel(t.cond.get(), u);
    if (mentionsRanges(t.ranges, u.var)) u.other = true;
    usesIn(t.expr.get(), u);
  }
  static void usesInSized(const std::optional<Sized>& z, VariableUses& u) {
    if (z) usesIn(z->amount.get(), u);
  }
  static void usesInMsg(const MsgSpec& m, VariableUses& u) {
    usesIn(m.count.get(), u);
    usesInSized(m.size, u);
    usesIn(m.align.by.amount.get(), u);
    usesIn(m.tag.expr.get(), u);
    usesInSized(m.buffer.offset, u);
    usesIn(m.buffer.number.get(), u);
  }
  static void usesInStmt(const Stmt& s, VariableUses& u) {
    using K = Stmt::Kind;
    switch (s.kind) {
      case K::Block: case K::If: case K::ForReps: case K::ForTime: case K::ForEach: case K::Let:
        usesInRel(s.cond.get(), u);
        usesIn(s.count.get(), u);
        usesIn(s.warmup.get(), u);
        if (s.kind == K::ForEach) {
          u.boundInside.insert(s.var);
          if (s.var == u.var || mentionsRanges(s.ranges, u.var)) u.other = true;
        }
        for (const Binding& b : s.bindings) {
          u.boundInside.insert(b.var);
          if (b.kind != Binding::Kind::Expr || b.var == u.var) u.other = true;
          usesIn(b.expr.get(), u);
        }
        break;
      case K::Send: case K::Receive: case K::Multicast: case K::Reduce:
        usesInTasks(s.tasks, u);
        usesInTasks(s.target, u);
        usesInMsg(s.msg, u);
        if (s.result) usesInMsg(*s.result, u);
        usesInMsg(s.override_.as, u);
        usesIn(s.override_.tag.expr.get(), u);
        usesInSized(s.override_.buffer.offset, u);
        usesIn(s.override_.buffer.number.get(), u);
        break;
      case K::Synchronize: case K::Await:
        usesInTasks(s.tasks, u);
        break;
      case K::Compute: case K::Sleep:
        usesInTasks(s.tasks, u);
        usesIn(s.count.get(), u);
        break;
      default:
        u.other = true;  // a statement this analysis does not look into
        return;
    }
    for (const auto& b : s.body)
      if (b) usesInStmt(*b, u);
  }
  // The comparisons of each FOR EACH loop, found once (nullopt: none can be relied on).
  std::optional<std::vector<std::pair<Tok, const Expr*>>> loopComparisons(const Stmt& loop) {
    VariableUses u{loop.var, {}, {}, false};
    usesInStmt(*loop.body[0], u);
    if (u.other) return std::nullopt;
    for (const auto& [op, value] : u.comparisons) {
      for (const std::string& name : u.boundInside)
        if (mentions(*value, name)) return std::nullopt;  // not fixed before the loop
      if (op != Tok::Eq && op != Tok::Ne && op != Tok::Lt && op != Tok::Gt && op != Tok::Le && op != Tok::Ge)
        return std::nullopt;
    }
    return std::move(u.comparisons);
  }
  std::optional<std::vector<Comparison>> loopVariableTests(const Stmt& loop) {
    auto it = loopComparisons_.find(&loop);
    if (it == loopComparisons_.end()) it = loopComparisons_.emplace(&loop, loopComparisons(loop)).first;
    if (!it->second) return std::nullopt;
    std::vector<Comparison> tests;
    for (const auto& [op, value] : *it->second) tests.push_back({op, eval(*value)});
    return tests;
  }

  // A FOR EACH loop's iterations as runs (first value, iterations) that its tests answer alike;
  // runs of one where the body uses its variable otherwise. Over one arithmetic progression the
  // runs come from where each test changes its answer, without the values: a loop of 10^6
  // iterations costs what its runs do.
  std::vector<std::pair<std::int64_t, std::int64_t>> forEachRuns(const Stmt& loop) {
    const std::optional<std::vector<Comparison>> tests = loopVariableTests(loop);
    std::vector<std::pair<std::int64_t, std::int64_t>> runs;
    if (tests && loop.ranges.size() == 1 && loop.ranges[0].kind == Range::Kind::Progression &&
        loop.ranges[0].items.size() <= 2) {
      const Range& r = loop.ranges[0];
      const std::int64_t first = eval(*r.items[0]);
      const std::int64_t bound = eval(*r.bound);
      const std::int64_t step = r.items.size() == 1 ? (bound >= first ? 1 : -1) : ok(checkedSub(eval(*r.items[1]), first));
      if (step == 0) return {{first, 1}};
      if (step > 0 ? bound < first : bound > first) return {};
      // The iterations, span / step + 1, where both may overflow: {0, -1, ..., INT64_MIN}
      // (INT64_MIN / -1) and {0, ..., INT64_MAX} (INT64_MAX + 1) are loops no run can make.
      const std::int64_t span = ok(checkedSub(bound, first));
      if (step == -1 && span == std::numeric_limits<std::int64_t>::min()) throw Unevaluable{};
      const std::int64_t count = ok(checkedAdd(span / step, 1));
      auto value = [&](std::int64_t k) { return first + k * step; };  // within [first, bound]
      // Where some test answers otherwise than for the iteration before: at most two places a
      // test (values move one way, so an order test changes once, an equality at its value).
      std::set<std::int64_t> starts{0, count};
      for (const Comparison& c : *tests) {
        std::int64_t lo = 0, hi = count;  // the first k whose answer differs from k = 0's
        const bool at0 = answer(c, first);
        if (c.op == Tok::Eq || c.op == Tok::Ne) {
          const std::optional<std::int64_t> off = checkedSub(c.value, first);
          if (off && (step != -1 || *off != std::numeric_limits<std::int64_t>::min()) && *off % step == 0 &&
              *off / step >= 0 && *off / step < count) {
            starts.insert(*off / step);
            starts.insert(*off / step + 1);
          }
          continue;
        }
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          tick();
          if (answer(c, value(mid)) != at0) hi = mid;
          else lo = mid + 1;
        }
        starts.insert(lo);
      }
      for (auto it = starts.begin(); std::next(it) != starts.end(); ++it) runs.push_back({value(*it), *std::next(it) - *it});
      return runs;
    }
    const std::vector<std::int64_t> values = evalRanges(loop.ranges);
    for (std::size_t i = 0; i < values.size();) {
      std::int64_t run = 1;
      if (tests)
        while (i + static_cast<std::size_t>(run) < values.size() &&
               sameAnswers(*tests, values[i], values[i + static_cast<std::size_t>(run)]))
          ++run;
      runs.push_back({values[i], run});
      i += static_cast<std::size_t>(run);
    }
    return runs;
  }

  // A collective statement `mult` times for each of its members (tasks outside 0 … n-1 do nothing).
  void takePart(const std::set<std::int64_t>& members, std::int64_t mult, const SourceRange& where) {
    const auto id = static_cast<std::int64_t>(barrierSize_.size());
    const std::uint32_t loc = location(where);
    std::int64_t size = 0;
    for (std::int64_t t : members)
      if (t >= 0 && t < n_) {
        collectives_[static_cast<std::size_t>(t)] = ok(checkedAdd(collectives_[static_cast<std::size_t>(t)], mult));
        record(t, {Ev::Barrier, loc, id, 0});
        ++size;
      }
    barrierSize_.push_back(size);
  }

  void send(const Stmt& s, std::int64_t mult) {
    const std::optional<std::int64_t> size = checkSize(s.msg, s);
    const std::int64_t c = ok(checkedMul(count(s.msg), mult));
    const std::int64_t perInstance = count(s.msg);
    const bool async = s.mode == Kw::ASYNCHRONOUSLY;
    const bool recvAsync = s.override_.mode ? *s.override_.mode == Kw::ASYNCHRONOUSLY : async;
    const std::string tag = tagKey(s.msg.tag);
    const std::int32_t tagNumber = tagId(tag);
    const std::string* var = actingVar(s.tasks);
    // Buffers kept from one send statement to the next (a loop body's run as often as the
    // trace's calls): send() does not nest.
    std::vector<std::pair<std::int64_t, std::int64_t>>& edges = sendEdges_;
    std::vector<std::pair<std::int64_t, OrderEvent>>& sendEvents = sendEvents_;
    std::vector<std::pair<std::int64_t, OrderEvent>>& recvEvents = recvEvents_;
    edges.clear();
    sendEvents.clear();
    recvEvents.clear();
    bool selfReported = false;
    const std::uint32_t loc = location(s.where);
    for (std::int64_t src : tasks(s.tasks)) {
      if (var) bind(*var, src);
      const std::vector<std::int64_t>& dsts = targets(s.target, src);
      if (var) unbind();
      for (std::int64_t dst : dsts) {
        tick();
        if (async && perInstance > 0) post(src, s.where);
        if (perInstance > 0) {
          const std::int32_t ch = channel(src, dst, tagNumber);
          sendEvents.push_back({src, {async ? Ev::PostSend : Ev::Send, loc, ch, perInstance}});
          if (!s.unsuspecting) recvEvents.push_back({dst, {recvAsync ? Ev::PostRecv : Ev::Recv, loc, ch, perInstance}});
        }
        if (s.unsuspecting) {
          auto& b = balance_[{src, dst, tag}];
          if (b.sends == 0 && b.recvs == 0) b.firstSend = s.where;
          if (b.sends == 0) b.firstSend = s.where;
          b.sends = ok(checkedAdd(b.sends, c));
          b.addBytes(b.sentBytes, size, c);
          continue;
        }
        if (recvAsync && perInstance > 0) post(dst, s.where);
        if (src == dst && !async && !selfReported) {
          error(s.where, "task " + std::to_string(src) + " sends itself a blocking message without UNSUSPECTING: "
                         "a send-to-self deadlock at start-up (§3.6, §4.7)");
          selfReported = true;
        }
        if (!recvAsync && perInstance > 0) edges.push_back({src, dst});
      }
    }
    // On every task the receives a statement implies come before its sends (§4.7).
    for (const auto& [t, e] : recvEvents) record(t, e);
    for (const auto& [t, e] : sendEvents) record(t, e);
    // Implicit blocking receives are issued before the statement's sends: a cycle deadlocks.
    if (!edges.empty() && !selfReported) {
      if (auto cycle = findCycle(edges))
        error(s.where, "this statement's implicit receives are blocking and its sender-to-receiver pattern has a "
                       "cycle (" + *cycle + "): every task waits in its receive, a deadlock (§4.7, §6 item 7); send "
                       "ASYNCHRONOUSLY and AWAIT COMPLETION, or split the senders into acyclic phases");
    }
  }

  std::optional<std::string> findCycle(const std::vector<std::pair<std::int64_t, std::int64_t>>& edges) {
    std::map<std::int64_t, std::vector<std::int64_t>> adj;
    for (auto [a, b] : edges)
      if (a != b) adj[a].push_back(b);
    std::map<std::int64_t, int> state;  // 0 new, 1 on stack, 2 done
    std::vector<std::int64_t> stack;
    std::optional<std::string> found;
    // Iterative DFS (task counts can be large).
    for (const auto& entry : adj) {
      const std::int64_t start = entry.first;
      if (state[start] != 0 || found) continue;
      std::vector<std::pair<std::int64_t, std::size_t>> dfs{{start, 0}};
      state[start] = 1;
      stack.push_back(start);
      while (!dfs.empty() && !found) {
        auto& [node, next] = dfs.back();
        auto it = adj.find(node);
        if (it == adj.end() || next >= it->second.size()) {
          state[node] = 2;
          stack.pop_back();
          dfs.pop_back();
          continue;
        }
        std::int64_t to = it->second[next++];
        tick();
        if (state[to] == 1) {
          auto pos = std::find(stack.begin(), stack.end(), to);
          std::string path;
          for (auto p = pos; p != stack.end(); ++p) path += std::to_string(*p) + " -> ";
          found = path + std::to_string(to);
        } else if (state[to] == 0) {
          state[to] = 1;
          stack.push_back(to);
          dfs.push_back({to, 0});
        }
      }
    }
    return found;
  }

  void receive(const Stmt& s, std::int64_t mult) {
    const std::optional<std::int64_t> size = checkSize(s.msg, s);
    const std::int64_t c = ok(checkedMul(count(s.msg), mult));
    const bool async = s.mode == Kw::ASYNCHRONOUSLY;
    const std::string tag = tagKey(s.msg.tag);
    const std::int32_t tagNumber = tagId(tag);
    const std::string* var = actingVar(s.tasks);
    for (std::int64_t dst : tasks(s.tasks)) {
      if (var) bind(*var, dst);
      const std::vector<std::int64_t>& srcs = targets(s.target, dst);
      if (var) unbind();
      for (std::int64_t src : srcs) {
        tick();
        if (async && count(s.msg) > 0) post(dst, s.where);
        if (count(s.msg) > 0)
          record(dst, {async ? Ev::PostRecv : Ev::Recv, location(s.where), channel(src, dst, tagNumber), count(s.msg)});
        auto& b = balance_[{src, dst, tag}];
        if (b.recvs == 0) b.firstRecv = s.where;
        b.recvs = ok(checkedAdd(b.recvs, c));
        b.addBytes(b.receivedBytes, size, c);
      }
    }
  }

  // Operations posted inside a FOR … REPETITIONS / FOR <time> body must be awaited inside it.
  void loopPending(const Stmt& loop, std::int64_t firstOp) {
    std::map<std::size_t, std::pair<SourceRange, std::set<std::int64_t>>> byLoc;  // statement -> tasks
    for (std::size_t t = 0; t < pending_.size(); ++t) {
      auto& p = pending_[t];
      auto keep = std::stable_partition(p.begin(), p.end(), [&](std::int64_t id) { return id < firstOp; });
      for (auto it = keep; it != p.end(); ++it) {
        auto& entry = byLoc[ops_[static_cast<std::size_t>(*it)].begin];
        entry.first = ops_[static_cast<std::size_t>(*it)];
        entry.second.insert(static_cast<std::int64_t>(t));
      }
      p.erase(keep, p.end());
    }
    for (const auto& item : byLoc) {
      const auto& entry = item.second;
      std::vector<std::int64_t> ts(entry.second.begin(), entry.second.end());
      error(entry.first, taskList(ts) + (ts.size() == 1 ? " posts" : " post") +
                             " this asynchronous operation inside the " +
                             (loop.kind == Stmt::Kind::ForReps ? std::string("FOR ... REPETITIONS")
                                                               : std::string("FOR <time>")) +
                             " loop of line " + std::to_string(loop.where.line) + " and " +
                             (ts.size() == 1 ? "does" : "do") +
                             " not AWAIT COMPLETION before the end of its body (§4.8, §6 item 8)");
    }
  }

  void reportPending() {
    std::map<std::size_t, std::pair<SourceRange, std::vector<std::int64_t>>> byLoc;
    for (std::size_t t = 0; t < pending_.size(); ++t) {
      std::set<std::size_t> seen;
      for (std::int64_t id : pending_[t]) {
        const SourceRange& w = ops_[static_cast<std::size_t>(id)];
        if (!seen.insert(w.begin).second) continue;
        auto& entry = byLoc[w.begin];
        entry.first = w;
        entry.second.push_back(static_cast<std::int64_t>(t));
      }
    }
    for (const auto& item : byLoc) {
      const auto& entry = item.second;
      error(entry.first, taskList(entry.second) + (entry.second.size() == 1 ? " never awaits" : " never await") +
                             " the completion of this asynchronous operation: "
                         "\"Neglected to await the completion\" at run time (§3.6, §6 item 8)");
    }
  }

  void reportBalance() {
    int shown = 0, more = 0;
    for (const auto& [key, b] : balance_) {
      if (b.sends == b.recvs && b.sizesKnown && b.sentBytes != b.receivedBytes) {
        // Equal counts, other sizes: some RECEIVE names a size its message does not have.
        const auto& [src, dst, tag] = key;
        const std::string msg = "RECEIVEs of messages from task " + std::to_string(src) + " to task " +
                                std::to_string(dst) + (tag == "0" ? std::string() : " with tag " + tag) + " take " +
                                std::to_string(b.receivedBytes) + " bytes in total, but the UNSUSPECTING sends carry " +
                                std::to_string(b.sentBytes) + ": ";
        if (b.receivedBytes < b.sentBytes)
          error(b.firstRecv, msg + "a receive smaller than its message is a fatal truncation (§4.7)");
        else
          diags_.push_back({Diagnostic::Severity::Warning, b.firstRecv,
                            msg + "a receive larger than its message miscounts the bytes received (§5.1 item 6)"});
        continue;
      }
      if (b.sends == b.recvs) continue;
      if (shown >= 8) {
        ++more;
        continue;
      }
      ++shown;
      const auto& [src, dst, tag] = key;
      const std::string pair = "task " + std::to_string(src) + " to task " + std::to_string(dst) +
                               (tag == "0" ? std::string() : " with tag " + tag);
      if (b.sends > b.recvs)
        error(b.firstSend, "UNSUSPECTING messages from " + pair + ": " + std::to_string(b.sends) + " sent but " +
                               std::to_string(b.recvs) + " received by explicit RECEIVEs; the sender or receiver "
                               "would hang (§4.7)");
      else
        error(b.firstRecv, "RECEIVEs of messages from " + pair + ": " + std::to_string(b.recvs) + " posted but " +
                               std::to_string(b.sends) + " sent by UNSUSPECTING sends; the receiver would hang (§4.7)");
    }
    if (more > 0 && !diags_.empty())
      diags_.back().message += " (and " + std::to_string(more) + " more unmatched sender/receiver pairs)";
  }

  // ------------------------------------------------------------------ order of operations
  // Per task, its communication in program order; the balance above counts messages, this
  // decides whether every task gets through its statements. An AWAIT COMPLETION blocks its task
  // until every asynchronous operation it posted has matched (§4.8: the c_mpi run time's
  // MPI_Waitall over all of them), a blocking RECEIVE until its message is sent, a collective
  // until all its members arrive (collectives may synchronize); blocking sends are taken as
  // buffered (deadlocks that need rendezvous semantics are not looked for). The k-th message
  // from a sender to a receiver with a tag matches the k-th receive of that triple.
  enum class Ev : std::uint8_t { Send, PostSend, Recv, PostRecv, Await, Barrier };
  struct OrderEvent {
    Ev kind;
    std::uint32_t loc;     // index into locs_
    std::int64_t id;       // Send/Recv: channel; Barrier: collective instance
    std::int64_t count;    // messages
  };
  // Each event is kept (24 bytes) and played: a million of them cost some 25 MB and 50 ms. A
  // benchmark of the real LU class C trace has about 4 million (113 MB, 0.2 s), and its counts,
  // pending operations and cycles are still checked without them.
  static constexpr std::size_t kMaxOrderEvents = 1'000'000;
  // The events kept for the order analysis: kMaxOrderEvents, or the evaluation budget where that
  // is smaller (a caller that budgets the simulation budgets its analysis too: a loop of 10^6
  // repetitions is evaluated once but its events are repeated).
  std::size_t maxOrderEvents() const {
    return budget_ > 0 ? std::min(kMaxOrderEvents, static_cast<std::size_t>(budget_)) : kMaxOrderEvents;
  }

  std::uint32_t location(const SourceRange& where) {
    auto [it, inserted] = locIndex_.try_emplace(where.begin, static_cast<std::uint32_t>(locs_.size()));
    if (inserted) locs_.push_back(where);
    return it->second;
  }
  // Tags as numbers, so that looking a channel up compares no strings.
  std::int32_t tagId(const std::string& tag) {
    return tagIds_.try_emplace(tag, static_cast<std::int32_t>(tagIds_.size())).first->second;
  }
  std::int32_t channel(std::int64_t src, std::int64_t dst, std::int32_t tag) {
    auto [it, inserted] = channels_.try_emplace({src, dst, tag}, static_cast<std::int32_t>(channelEnds_.size()));
    if (inserted) channelEnds_.push_back({src, dst});
    return it->second;
  }
  void record(std::int64_t task, const OrderEvent& e) {
    if (orderGaveUp_ || task < 0 || task >= n_) return;
    if (++orderEvents_ > maxOrderEvents()) {
      giveUpOrder();
      return;
    }
    if (!frames_.empty()) {
      frames_.back()[task].push_back(e);
      return;
    }
    if (events_.empty()) events_.resize(static_cast<std::size_t>(n_));
    events_[static_cast<std::size_t>(task)].push_back(e);
  }
  void giveUpOrder() {
    orderGaveUp_ = true;
    events_.clear();
    frames_.clear();
  }
  // The events of a FOR … REPETITIONS body, recorded once, repeated `trips` times where the loop
  // stands; each repetition of a collective is an instance of its own.
  void repeatFrame(std::int64_t trips) {
    if (frames_.empty()) return;  // given up
    std::map<std::int64_t, std::vector<OrderEvent>> body = std::move(frames_.back());
    frames_.pop_back();
    std::size_t size = 0;
    for (const auto& entry : body) size += entry.second.size();
    if (orderGaveUp_ || static_cast<double>(size) * static_cast<double>(trips) + static_cast<double>(orderEvents_) >
                            static_cast<double>(maxOrderEvents())) {
      giveUpOrder();
      return;
    }
    orderEvents_ -= size;  // counted again as they are repeated
    std::map<std::int64_t, std::int64_t> instance;  // a body's collective -> this repetition's
    for (std::int64_t r = 0; r < trips; ++r) {
      instance.clear();
      for (const auto& [task, evs] : body)
        for (OrderEvent e : evs) {
          if (e.kind == Ev::Barrier && r > 0) {
            auto [it, fresh] = instance.try_emplace(e.id, static_cast<std::int64_t>(barrierSize_.size()));
            if (fresh) barrierSize_.push_back(barrierSize_[static_cast<std::size_t>(e.id)]);
            e.id = it->second;
          }
          record(task, e);
          if (orderGaveUp_) return;
        }
    }
  }

  void reportDeadlock() {
    if (orderGaveUp_ || events_.empty()) return;
    const std::size_t n = events_.size();
    std::vector<std::int64_t> sent(channelEnds_.size(), 0), received(channelEnds_.size(), 0);
    std::vector<std::int64_t> arrived(barrierSize_.size(), 0);
    struct Pending {
      bool send;
      std::int64_t channel, end;
      std::uint32_t loc;
    };
    std::vector<std::vector<Pending>> pending(n);
    std::vector<std::size_t> cursor(n, 0);
    std::vector<char> started(n, 0);              // the event at the cursor is posted/arrived
    std::vector<std::int64_t> blockedEnd(n, 0);  // a blocking receive's last message index
    std::vector<std::vector<std::size_t>> waitChannel(channelEnds_.size()), waitBarrier(barrierSize_.size());
    std::vector<std::size_t> work(n);
    std::iota(work.begin(), work.end(), std::size_t{0});
    std::vector<char> queued(n, 1);
    auto wake = [&](std::vector<std::size_t>& waiters) {
      for (std::size_t w : waiters)
        if (!queued[w]) {
          queued[w] = 1;
          work.push_back(w);
        }
      waiters.clear();
    };
    auto matched = [&](const Pending& p) {
      return (p.send ? received : sent)[static_cast<std::size_t>(p.channel)] >= p.end;
    };
    while (!work.empty()) {
      const std::size_t t = work.back();
      work.pop_back();
      queued[t] = 0;
      auto& evs = events_[t];
      while (cursor[t] < evs.size()) {
        const OrderEvent& e = evs[cursor[t]];
        const auto ch = static_cast<std::size_t>(e.id);
        bool blocked = false;
        switch (e.kind) {
          case Ev::Send:
          case Ev::PostSend:
            sent[ch] = ok(checkedAdd(sent[ch], e.count));
            if (e.kind == Ev::PostSend) pending[t].push_back({true, e.id, sent[ch], e.loc});
            wake(waitChannel[ch]);
            break;
          case Ev::PostRecv:
            received[ch] = ok(checkedAdd(received[ch], e.count));
            pending[t].push_back({false, e.id, received[ch], e.loc});
            wake(waitChannel[ch]);
            break;
          case Ev::Recv:
            if (!started[t]) {
              received[ch] = ok(checkedAdd(received[ch], e.count));
              blockedEnd[t] = received[ch];
              started[t] = 1;
              wake(waitChannel[ch]);
            }
            if (sent[ch] < blockedEnd[t]) {
              waitChannel[ch].push_back(t);
              blocked = true;
            }
            break;
          case Ev::Await: {
            auto& p = pending[t];
            // Matched operations leave the list; the first that has not waits for its channel.
            p.erase(std::remove_if(p.begin(), p.end(), matched), p.end());
            if (!p.empty()) {
              waitChannel[static_cast<std::size_t>(p.front().channel)].push_back(t);
              blocked = true;
            }
            break;
          }
          case Ev::Barrier:
            if (!started[t]) {
              ++arrived[ch];
              started[t] = 1;
              if (arrived[ch] >= barrierSize_[ch]) wake(waitBarrier[ch]);
            }
            if (arrived[ch] < barrierSize_[ch]) {
              waitBarrier[ch].push_back(t);
              blocked = true;
            }
            break;
        }
        if (blocked) break;
        started[t] = 0;
        ++cursor[t];
      }
    }
    // Tasks left inside their statements, grouped by the statement they block in.
    std::map<std::uint32_t, std::vector<std::int64_t>> stuck;
    for (std::size_t t = 0; t < n; ++t)
      if (cursor[t] < events_[t].size()) stuck[events_[t][cursor[t]].loc].push_back(static_cast<std::int64_t>(t));
    if (stuck.empty()) return;
    for (const auto& [loc, ts] : stuck) {
      const auto t = static_cast<std::size_t>(ts.front());
      const OrderEvent& e = events_[t][cursor[t]];
      const std::string who = taskList(ts) + (ts.size() == 1 ? " blocks" : " block");
      std::string why;
      if (e.kind == Ev::Await) {
        const auto& p = pending[t];
        const Pending& first = p.front();
        const auto [src, dst] = channelEnds_[static_cast<std::size_t>(first.channel)];
        why = who + " forever in this AWAIT COMPLETION, which waits until every asynchronous operation the task " +
              "posted has matched (§4.8): " + (first.send ? "its send to task " + std::to_string(dst)
                                                           : "its receive from task " + std::to_string(src)) +
              " of line " + std::to_string(locs_[first.loc].line) + " (task " + std::to_string(ts.front()) +
              ") is never matched, as task " + std::to_string(first.send ? dst : src) +
              " is itself blocked before it " + (first.send ? "receives" : "sends") +
              " that message: a deadlock at run time";
      } else if (e.kind == Ev::Recv) {
        const auto [src, dst] = channelEnds_[static_cast<std::size_t>(e.id)];
        why = who + " forever in this blocking receive: task " + std::to_string(src) + " is blocked before it sends " +
              "the message task " + std::to_string(dst) + " waits for, a deadlock at run time";
      } else {
        why = who + " forever in this collective: some of its members are blocked before they reach it, a "
                    "deadlock at run time";
      }
      error(locs_[loc], why);
    }
  }

  struct Balance {
    std::int64_t sends = 0, recvs = 0;
    std::int64_t sentBytes = 0, receivedBytes = 0;
    bool sizesKnown = true;  // every message of the pair has a size in bytes
    void addBytes(std::int64_t& total, std::optional<std::int64_t> size, std::int64_t messages) {
      if (!size) sizesKnown = false;
      else total = ok(checkedAdd(total, ok(checkedMul(*size, messages))));
    }
    SourceRange firstSend, firstRecv;
  };

  const Program& prog_;
  std::int64_t n_;
  std::int64_t budget_;
  std::int64_t steps_ = 0;
  std::vector<Bound> env_;
  std::size_t parameters_ = 0;  // env_'s first entries: the parameters
  // Task sets and IS IN lists that depend on constants alone, evaluated once (tasks()).
  bool memoOn_ = true;
  std::unordered_map<const void*, bool> constant_;
  struct Memo {
    std::vector<std::int64_t> values;
    std::int64_t steps = 0;  // what evaluating them cost
  };

  std::unordered_map<const TaskSpec*, Memo> taskMemo_;
  std::unordered_map<const std::vector<Range>*, Memo> rangeMemo_;
  std::unordered_map<const Stmt*, std::optional<std::vector<std::pair<Tok, const Expr*>>>> loopComparisons_;
  std::vector<std::vector<std::int64_t>> pending_;  // per task: ids of outstanding operations
  std::vector<SourceRange> ops_;                    // id -> statement that posted it
  std::map<std::tuple<std::int64_t, std::int64_t, std::string>, Balance> balance_;
  std::set<std::size_t> reportedSize_;
  std::set<std::size_t> reportedEmpty_;  // empty list comprehensions reported, by location
  // The order of operations (reportDeadlock).
  std::vector<std::vector<OrderEvent>> events_;  // per task
  std::vector<std::map<std::int64_t, std::vector<OrderEvent>>> frames_;  // FOR … REPETITIONS bodies being walked
  std::vector<SourceRange> locs_;
  std::map<std::size_t, std::uint32_t> locIndex_;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int32_t>, std::int32_t> channels_;
  std::unordered_map<std::string, std::int32_t> tagIds_;
  std::vector<std::int64_t> targets_;  // targets()'s buffer
  std::vector<std::pair<std::int64_t, std::int64_t>> sendEdges_;  // send()'s
  std::vector<std::pair<std::int64_t, OrderEvent>> sendEvents_, recvEvents_;
  std::vector<std::pair<std::int64_t, std::int64_t>> channelEnds_;  // channel -> (sender, receiver)
  std::vector<std::int64_t> barrierSize_;                            // collective instance -> members
  std::size_t orderEvents_ = 0;
  bool orderGaveUp_ = false;
  std::vector<std::int64_t> collectives_;  // per task: collective statements taken part in
  std::vector<Diagnostic> diags_;
};

}  // namespace

std::optional<std::int64_t> fixedTaskCount(const Program& program) {
  for (const auto& ts : program.statements) {
    if (!ts.stmt || ts.stmt->kind != Stmt::Kind::Assert) continue;
    const RelExpr& r = *ts.stmt->cond;
    if (r.kind != RelExpr::Kind::Compare || r.op != Tok::Eq) continue;
    auto isNT = [](const Expr& e) { return e.kind == Expr::Kind::Var && e.name == "num_tasks"; };
    const Expr* other = isNT(*r.lhs) ? r.rhs.get() : isNT(*r.rhs) ? r.lhs.get() : nullptr;
    if (!other) continue;
    try {
      // Parameters only: num_tasks is unknown here, so an expression using it is unevaluable.
      Simulator sim(program, 0, 1'000'000);
      sim.bindParameters();
      std::int64_t n = sim.evalExpr(*other);
      if (n >= 1 && n <= 10'000'000) return n;
    } catch (const Unevaluable&) {
    }
  }
  return std::nullopt;
}

SimulationResult simulate(const Program& program, std::int64_t numTasks, std::int64_t budget) {
  return Simulator(program, numTasks, budget).run();
}

}  // namespace tracegen::ncptl
