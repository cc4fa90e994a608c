// rank-ranges: exact shapes for each kind of set, spelled by gen/RankSetText.h, a randomized
// check that the spelled C and coNCePTuaL texts name exactly the ranks of the list (both texts
// are parsed and evaluated here, C by a small interpreter below, coNCePTuaL by
// TaskExprEval.h), the loops of cForEach run by the same interpreter, million-rank sets, and
// the pass over a trace.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gen/RankSetText.h"
#include "ir/RankList.h"
#include "ir/RankShape.h"
#include "ir/Trace.h"
#include "passes/RankRanges.h"
#include "tests/unit/TaskExprEval.h"
#include "tests/unit/SanitizerScale.h"

namespace tracegen {
namespace {

using gen::cForEach;
using testing::evalTaskDescription;
using testing::TaskPosition;

// A set as the backends write it: the shape's kind, the coNCePTuaL task description and the C
// condition over cVar.
struct Spelled {
  std::string kind, ncptl, c;
};
struct SpellOptions : gen::RankExprOptions {
  std::string cVar = "rank";
};
Spelled spell(const RankShape& shape, const SpellOptions& opt = {}) {
  return Spelled{std::string(kindName(shape.kind)), gen::ncptlTasks(shape, opt), gen::cRankCondition(shape, opt.cVar)};
}
Spelled spelled(const RankList& list, Rank p, const SpellOptions& opt = {}) { return spell(rankShape(list, p), opt); }

// ---------------------------------------------------------------------------------------------
// A C interpreter for what rankExpr and cForEach emit: integer expressions with variables,
// + - * / % (truncating, as C), comparisons, && || ! and parentheses; statements
// `for (int v = e; e; ++v | v += e) stmt`, `if (e) stmt`, `{ stmt... }` and calls `f(e);`.

using CEnv = std::map<std::string, std::int64_t>;
using CExpr = std::function<std::int64_t(const CEnv&)>;
using CStmt = std::function<void(CEnv&, std::vector<std::int64_t>&)>;

class CParser {
 public:
  explicit CParser(std::string_view src) { lex(src); }

  CExpr wholeExpression() {
    CExpr e = orExpr();
    expectEnd();
    return e;
  }
  std::vector<CStmt> wholeProgram() {
    std::vector<CStmt> out;
    while (peek().kind != Tok::End) out.push_back(statement());
    return out;
  }

 private:
  struct Tok {
    enum Kind { Int, Id, Punct, End } kind;
    std::string text;
    std::int64_t value;
  };
  std::vector<Tok> toks_;
  std::size_t pos_ = 0;

  void lex(std::string_view s) {
    std::size_t i = 0;
    while (i < s.size()) {
      const char ch = s[i];
      if (std::isspace(static_cast<unsigned char>(ch))) { ++i; continue; }
      if (std::isdigit(static_cast<unsigned char>(ch))) {
        std::int64_t v = 0;
        std::size_t j = i;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) v = v * 10 + (s[j++] - '0');
        if (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '_'))
          throw std::runtime_error("C: bad number");
        toks_.push_back({Tok::Int, std::string(s.substr(i, j - i)), v});
        i = j;
        continue;
      }
      if (std::isalpha(static_cast<unsigned char>(ch)) || ch == '_') {
        std::size_t j = i;
        while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
        toks_.push_back({Tok::Id, std::string(s.substr(i, j - i)), 0});
        i = j;
        continue;
      }
      static constexpr std::string_view kPunct[] = {"&&", "||", "==", "!=", "<=", ">=", "++", "+=", "<", ">", "!", "(",
                                                    ")", "{", "}", "+", "-", "*", "/", "%", ";", "="};
      bool matched = false;
      for (std::string_view p : kPunct) {
        if (s.substr(i, p.size()) == p) {
          toks_.push_back({Tok::Punct, std::string(p), 0});
          i += p.size();
          matched = true;
          break;
        }
      }
      if (!matched) throw std::runtime_error(std::string("C: unexpected character ") + ch);
    }
    toks_.push_back({Tok::End, "<end>", 0});
  }
  const Tok& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  bool is(std::string_view p) const { return peek().kind == Tok::Punct && peek().text == p; }
  bool accept(std::string_view p) {
    if (!is(p)) return false;
    ++pos_;
    return true;
  }
  void expect(std::string_view p) {
    if (!accept(p)) throw std::runtime_error("C: expected '" + std::string(p) + "' at '" + peek().text + "'");
  }
  void expectEnd() const {
    if (peek().kind != Tok::End) throw std::runtime_error("C: trailing '" + peek().text + "'");
  }
  std::string identifier() {
    if (peek().kind != Tok::Id) throw std::runtime_error("C: expected identifier at '" + peek().text + "'");
    return toks_[pos_++].text;
  }

  using Binary = std::function<std::int64_t(std::int64_t, std::int64_t)>;
  static CExpr bin(CExpr a, CExpr b, Binary op) {
    return [a, b, op](const CEnv& env) { return op(a(env), b(env)); };
  }

  CExpr orExpr() {
    CExpr e = andExpr();
    while (accept("||")) {
      CExpr r = andExpr();
      e = [e, r](const CEnv& env) -> std::int64_t { return e(env) || r(env); };
    }
    return e;
  }
  CExpr andExpr() {
    CExpr e = eqExpr();
    while (accept("&&")) {
      CExpr r = eqExpr();
      e = [e, r](const CEnv& env) -> std::int64_t { return e(env) && r(env); };
    }
    return e;
  }
  CExpr eqExpr() {
    CExpr e = relExpr();
    for (;;) {
      if (accept("==")) e = bin(e, relExpr(), [](std::int64_t a, std::int64_t b) -> std::int64_t { return a == b; });
      else if (accept("!=")) e = bin(e, relExpr(), [](std::int64_t a, std::int64_t b) -> std::int64_t { return a != b; });
      else return e;
    }
  }
  CExpr relExpr() {
    CExpr e = addExpr();
    for (;;) {
      if (accept("<=")) e = bin(e, addExpr(), [](std::int64_t a, std::int64_t b) -> std::int64_t { return a <= b; });
      else if (accept(">=")) e = bin(e, addExpr(), [](std::int64_t a, std::int64_t b) -> std::int64_t { return a >= b; });
      else if (accept("<")) e = bin(e, addExpr(), [](std::int64_t a, std::int64_t b) -> std::int64_t { return a < b; });
      else if (accept(">")) e = bin(e, addExpr(), [](std::int64_t a, std::int64_t b) -> std::int64_t { return a > b; });
      else return e;
    }
  }
  CExpr addExpr() {
    CExpr e = mulExpr();
    for (;;) {
      if (accept("+")) e = bin(e, mulExpr(), [](std::int64_t a, std::int64_t b) { return a + b; });
      else if (accept("-")) e = bin(e, mulExpr(), [](std::int64_t a, std::int64_t b) { return a - b; });
      else return e;
    }
  }
  CExpr mulExpr() {
    CExpr e = unary();
    for (;;) {
      if (accept("*")) {
        e = bin(e, unary(), [](std::int64_t a, std::int64_t b) { return a * b; });
      } else if (accept("/") || accept("%")) {
        const bool div = toks_[pos_ - 1].text == "/";
        e = bin(e, unary(), [div](std::int64_t a, std::int64_t b) {
          if (b == 0) throw std::runtime_error("C: division by zero");
          return div ? a / b : a % b;  // C truncates; a % b takes the sign of a
        });
      } else {
        return e;
      }
    }
  }
  CExpr unary() {
    if (accept("!")) {
      CExpr e = unary();
      return [e](const CEnv& env) -> std::int64_t { return !e(env); };
    }
    if (accept("-")) {
      CExpr e = unary();
      return [e](const CEnv& env) { return -e(env); };
    }
    return primary();
  }
  CExpr primary() {
    if (peek().kind == Tok::Int) {
      std::int64_t v = toks_[pos_++].value;
      return [v](const CEnv&) { return v; };
    }
    if (peek().kind == Tok::Id) {
      std::string name = identifier();
      return [name](const CEnv& env) {
        auto it = env.find(name);
        if (it == env.end()) throw std::runtime_error("C: undeclared " + name);
        return it->second;
      };
    }
    expect("(");
    CExpr e = orExpr();
    expect(")");
    return e;
  }

  CStmt statement() {
    if (accept("{")) {
      std::vector<CStmt> body;
      while (!accept("}")) body.push_back(statement());
      return [body](CEnv& env, std::vector<std::int64_t>& calls) {
        for (const auto& s : body) s(env, calls);
      };
    }
    if (peek().kind == Tok::Id && peek().text == "for") {
      ++pos_;
      expect("(");
      if (identifier() != "int") throw std::runtime_error("C: loop variable must be declared int");
      std::string v = identifier();
      expect("=");
      CExpr init = orExpr();
      expect(";");
      CExpr cond = orExpr();
      expect(";");
      CExpr stepBy;
      if (accept("++")) {
        if (identifier() != v) throw std::runtime_error("C: increment of another variable");
        stepBy = [](const CEnv&) { return std::int64_t{1}; };
      } else {
        if (identifier() != v) throw std::runtime_error("C: increment of another variable");
        expect("+=");
        stepBy = orExpr();
      }
      expect(")");
      CStmt body = statement();
      return [v, init, cond, stepBy, body](CEnv& env, std::vector<std::int64_t>& calls) {
        if (env.count(v)) throw std::runtime_error("C: loop variable " + v + " shadows another");
        env[v] = init(env);
        for (int guard = 0; cond(env); env[v] += stepBy(env)) {
          if (++guard > 10'000'000) throw std::runtime_error("C: runaway loop");
          body(env, calls);
        }
        env.erase(v);
      };
    }
    if (peek().kind == Tok::Id && peek().text == "if") {
      ++pos_;
      expect("(");
      CExpr cond = orExpr();
      expect(")");
      CStmt body = statement();
      return [cond, body](CEnv& env, std::vector<std::int64_t>& calls) {
        if (cond(env)) body(env, calls);
      };
    }
    identifier();  // the function name: every call records its argument
    expect("(");
    CExpr arg = orExpr();
    expect(")");
    expect(";");
    return [arg](CEnv& env, std::vector<std::int64_t>& calls) { calls.push_back(arg(env)); };
  }
};

// Members of 0 … p-1 for which the C condition over `var` holds.
std::vector<bool> evalC(const std::string& expr, const std::string& var, Rank p) {
  CExpr e = CParser(expr).wholeExpression();
  std::vector<bool> out(static_cast<std::size_t>(p));
  CEnv env;
  for (Rank r = 0; r < p; ++r) {
    env[var] = r;
    out[static_cast<std::size_t>(r)] = e(env) != 0;
  }
  return out;
}

// The arguments of the calls the C statements make, in execution order.
std::vector<Rank> runC(const std::string& program) {
  std::vector<Rank> calls;
  CEnv env;
  for (const CStmt& s : CParser(program).wholeProgram()) s(env, calls);
  return calls;
}

std::vector<bool> membership(const RankList& list, Rank p) {
  std::vector<bool> out(static_cast<std::size_t>(p));
  for (Rank r = 0; r < p; ++r) out[static_cast<std::size_t>(r)] = list.contains(r);
  return out;
}

std::string describe(const std::vector<bool>& m) {
  std::string s;
  for (std::size_t r = 0; r < m.size(); ++r)
    if (m[r]) s += std::to_string(r) + " ";
  return s;
}

RankList block(Rank start, std::vector<RankDim> dims) { return RankList({RankTuple{start, std::move(dims)}}); }

// ---------------------------------------------------------------------------------------------
// The oracles themselves must reject what the languages reject, or the property test proves
// nothing.

TEST(RankRangesOracle, NcptlEvaluatorFollowsTheReference) {
  auto members = [](std::string_view text, Rank p) { return describe(evalTaskDescription(text, p)); };
  EXPECT_EQ(members("ALL TASKS", 3), "0 1 2 ");
  EXPECT_EQ(members("task 2", 4), "2 ");
  EXPECT_EQ(members("TASKS 7", 4), "");  // out of range: ignored (§4.2)
  EXPECT_EQ(members("tasks t such that t MOD 3 = 2", 9), "2 5 8 ");
  EXPECT_EQ(members("tasks t such that (t - 5) MOD 4 = 3", 8), "0 4 ");  // MOD is never negative
  EXPECT_EQ(members("tasks t such that (t < 2 \\/ t > 5) /\\ t <> 7", 8), "0 1 6 ");
  EXPECT_EQ(members("tasks {5, ..., 2}", 8), "2 3 4 5 ");   // one leading value counts down
  EXPECT_EQ(members("tasks {1, 4, ..., 15}", 16), "1 4 7 10 13 ");
  EXPECT_EQ(members("tasks {20, 30, 40, ..., 10}", 50), "");
  EXPECT_EQ(members("tasks {y*10+x for each y in {0,1} for each x in {0,...,2} where x <> y}", 20), "1 2 10 12 ");
  EXPECT_EQ(members("tasks {3}, {x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}", 16), "3 5 6 9 10 ");
  EXPECT_EQ(members("tasks t such that t is in {1, 3}", 4), "1 3 ");
  EXPECT_EQ(members("tasks t such that t IS ODD", 4), "1 3 ");
  EXPECT_EQ(members("tasks t such that 3 DIVIDES t", 7), "0 3 6 ");
  EXPECT_EQ(members("tasks t such that t < 2K", 3), "0 1 2 ");
  EXPECT_THROW(evalTaskDescription("tasks t such that t % 2 == 1", 4), testing::NcptlError);
  EXPECT_THROW(evalTaskDescription("tasks t such that t = 1 && t < 3", 4), testing::NcptlError);
  EXPECT_THROW(evalTaskDescription("tasks t such that t != 1", 4), testing::NcptlError);
  EXPECT_THROW(evalTaskDescription("tasks a such that a = 1", 4), testing::NcptlError);  // `a` is a keyword
  EXPECT_THROW(evalTaskDescription("tasks t such that 1 < t < 3", 4), testing::NcptlError);
  EXPECT_THROW(evalTaskDescription("tasks t such that s = 1", 4), testing::NcptlError);  // undeclared
  EXPECT_THROW(evalTaskDescription("all tasks t", 4, TaskPosition::Target), testing::NcptlError);
  // The hyphen rule: a minus right before a keyword vanishes, so `t -IS EVEN` is `t IS EVEN`.
  EXPECT_EQ(members("tasks t such that t -IS EVEN", 4), "0 2 ");
}

TEST(RankRangesOracle, CInterpreterUsesCSemantics) {
  EXPECT_EQ(describe(evalC("(rank - 3) % 4 < 2", "rank", 8)), "0 1 2 3 4 7 ");  // -3 % 4 == -3
  EXPECT_EQ(describe(evalC("rank > 1 && !(rank == 3) || rank == 0", "rank", 5)), "0 2 4 ");
  EXPECT_THROW(evalC("rank MOD 2 = 0", "rank", 4), std::runtime_error);
  EXPECT_THROW(evalC("rank % 2 == 0 /\\ rank < 3", "rank", 4), std::runtime_error);
  EXPECT_THROW(evalC("r < 3", "rank", 4), std::runtime_error);
  EXPECT_EQ(runC("for (int r = 1; r < 8; r += 2) f(r); for (int r = 9; r < 10; ++r) if (r > 0) g(r);"),
            (std::vector<Rank>{1, 3, 5, 7, 9}));
  EXPECT_THROW(runC("for (int r = 0; r < 3; ++r) for (int r = 0; r < 3; ++r) f(r);"), std::runtime_error);
}

// ---------------------------------------------------------------------------------------------
// Exact texts per kind.

void expectExpr(const RankList& list, Rank p, const std::string& kind, const std::string& ncptl, const std::string& c) {
  Spelled e = spelled(list, p);
  EXPECT_EQ(e.kind, kind) << list.str();
  EXPECT_EQ(e.ncptl, ncptl) << list.str();
  EXPECT_EQ(e.c, c) << list.str();
  // The hand-written expectations are checked by the oracles too.
  EXPECT_EQ(describe(evalTaskDescription(e.ncptl, p)), describe(membership(list, p))) << e.ncptl;
  EXPECT_EQ(describe(evalC(e.c, "rank", p)), describe(membership(list, p))) << e.c;
}

TEST(RankRanges, AllAndSingle) {
  expectExpr(RankList::all(16), 16, "all", "all tasks t", "1");
  expectExpr(RankList::single(0), 16, "one", "task 0", "rank == 0");
  expectExpr(RankList::single(15), 16, "one", "task 15", "rank == 15");
  expectExpr(RankList(), 16, "empty", "tasks t such that t < 0", "0");
}

TEST(RankRanges, Progressions) {
  expectExpr(RankList::progression(1, 15), 16, "progression", "tasks t such that t > 0", "rank > 0");
  expectExpr(RankList::progression(0, 8, 2), 16, "progression", "tasks t such that t MOD 2 = 0", "rank % 2 == 0");
  expectExpr(RankList::progression(1, 4, 2), 16, "progression", "tasks t such that t MOD 2 = 1 /\\ t < 8",
             "rank % 2 == 1 && rank < 8");
  expectExpr(RankList::progression(4, 4), 16, "progression", "tasks t such that t >= 4 /\\ t < 8",
             "rank >= 4 && rank < 8");
  expectExpr(RankList::progression(0, 8), 16, "progression", "tasks t such that t < 8", "rank < 8");
  expectExpr(RankList::progression(9, 7), 16, "progression", "tasks t such that t >= 9", "rank >= 9");
  expectExpr(RankList::progression(5, 4, 3), 20, "progression", "tasks t such that t MOD 3 = 2 /\\ t >= 5 /\\ t < 15",
             "rank % 3 == 2 && rank >= 5 && rank < 15");
  expectExpr(RankList::progression(1, 14), 16, "progression", "tasks t such that t >= 1 /\\ t < 15",
             "rank >= 1 && rank < 15");
  // Interleaved sections that fill a progression are that progression.
  expectExpr(RankList({RankTuple{0, {{4, 2}}}, RankTuple{1, {{3, 2}}}}), 16, "progression",
             "tasks t such that t < 7", "rank < 7");
}

TEST(RankRanges, Blocks) {
  // Rows 1-2, columns 1-2 of a 4x4 grid.
  expectExpr(block(5, {{2, 1}, {2, 4}}), 16, "block",
             "tasks {x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}",
             "rank % 4 >= 1 && rank % 4 < 3 && rank >= 4 && rank < 12");
  // The bottom-right quadrant needs neither an upper row bound nor an upper column bound.
  expectExpr(block(10, {{2, 1}, {2, 4}}), 16, "block",
             "tasks {x + 4*y for each y in {2, ..., 3} for each x in {2, ..., 3}}", "rank % 4 >= 2 && rank >= 8");
  // Columns 0-2 of every row.
  expectExpr(block(0, {{3, 1}, {4, 4}}), 16, "block",
             "tasks {x + 4*y for each y in {0, ..., 3} for each x in {0, ..., 2}}", "rank % 4 < 3");
  // A section that wraps across a row boundary is written relative to its start.
  expectExpr(block(3, {{2, 1}, {2, 4}}), 16, "block",
             "tasks {3 + x + 4*y for each y in {0, ..., 1} for each x in {0, ..., 1}}",
             "(rank - 3) % 4 < 2 && rank >= 3 && rank < 9");
  // 2x2x2 in the middle of a 4x4x4 grid.
  expectExpr(block(21, {{2, 1}, {2, 4}, {2, 16}}), 64, "block",
             "tasks {x + 4*y + 16*z for each z in {1, ..., 2} for each y in {1, ..., 2} for each x in {1, ..., 2}}",
             "rank % 4 >= 1 && rank % 4 < 3 && rank % 16 >= 4 && rank % 16 < 12 && rank >= 16 && rank < 48");
  // Even ranks of the left half of each 16-rank row: a strided block.
  expectExpr(block(0, {{4, 2}, {2, 16}}), 32, "block",
             "tasks {2*x + 16*y for each y in {0, ..., 1} for each x in {0, ..., 3}}", "rank % 2 == 0 && rank % 16 < 8");
  // Strides that do not divide each other keep the chain of remainders.
  expectExpr(block(0, {{2, 3}, {2, 7}}), 14, "block",
             "tasks {3*x + 7*y for each y in {0, ..., 1} for each x in {0, ..., 1}}", "rank % 7 % 3 == 0 && rank % 7 < 6");
}

TEST(RankRanges, BlocksOverTheComprehensionBudgetArePredicates) {
  SpellOptions opt;
  opt.comprehensionBudget = 16 * 3;  // 4 members x 16 tasks is over
  Spelled e = spelled(block(5, {{2, 1}, {2, 4}}), 16, opt);
  EXPECT_EQ(e.kind, "block");
  EXPECT_EQ(e.ncptl, "tasks t such that t MOD 4 >= 1 /\\ t MOD 4 < 3 /\\ t >= 4 /\\ t < 12");
}

TEST(RankRanges, ListsAndUnions) {
  expectExpr(RankList::fromSorted({3, 7, 20}), 32, "list", "tasks {3, 7, 20}", "(rank == 3 || rank == 7 || rank == 20)");
  // Two ranks are listed even though `rank % 15 == 0` would be shorter.
  expectExpr(RankList::fromSorted({0, 15}), 32, "list", "tasks {0, 15}", "(rank == 0 || rank == 15)");
  expectExpr(RankList::fromSorted({0, 7}), 16, "list", "tasks {0, 7}", "(rank == 0 || rank == 7)");
  // ... unless they are every other rank of the machine: a residue class reads as one.
  expectExpr(RankList::fromSorted({0, 2}), 4, "progression", "tasks t such that t MOD 2 = 0", "rank % 2 == 0");
  expectExpr(RankList::fromSorted({1, 3}), 4, "progression", "tasks t such that t MOD 2 = 1", "rank % 2 == 1");
  expectExpr(RankList::fromSorted({3, 5, 7}), 16, "list", "tasks {3, 5, 7}", "(rank == 3 || rank == 5 || rank == 7)");
  expectExpr(RankList::fromSorted({0, 8, 9, 10, 11, 12, 13, 14, 15}), 32, "union",
             "tasks t such that t = 0 \\/ (t >= 8 /\\ t < 16)", "(rank == 0 || (rank >= 8 && rank < 16))");
  // A union holding a block is a range list in coNCePTuaL.
  expectExpr(RankList::unite(RankList::single(0), block(5, {{2, 1}, {2, 4}})), 16, "union",
             "tasks {0}, {x + 4*y for each y in {1, ..., 2} for each x in {1, ..., 2}}",
             "(rank == 0 || (rank % 4 >= 1 && rank % 4 < 3 && rank >= 4 && rank < 12))");
  expectExpr(RankList::fromSorted({1, 2, 3, 4, 10, 12, 14}), 16, "union",
             "tasks t such that (t >= 1 /\\ t < 5) \\/ (t MOD 2 = 0 /\\ t >= 10)",
             "((rank >= 1 && rank < 5) || (rank % 2 == 0 && rank >= 10))");
}

TEST(RankRanges, Complements) {
  expectExpr(RankList::fromSorted({0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}), 16, "complement",
             "tasks t such that t <> 5", "rank != 5");
  // All but ranks 5 and 9 of 16.
  expectExpr(RankList::fromSorted({0, 1, 2, 3, 4, 6, 7, 8, 10, 11, 12, 13, 14, 15}), 16, "complement",
             "tasks t such that t <> 5 /\\ t <> 9", "rank != 5 && rank != 9");
  // All but one block of an 8x8 grid (rows 2-5, columns 2-5).
  RankList inner = block(18, {{4, 1}, {4, 8}});
  RankList outer = RankList::subtract(RankList::all(64), inner);
  expectExpr(outer, 64, "complement", "tasks t such that t MOD 8 < 2 \\/ t MOD 8 >= 6 \\/ t < 16 \\/ t >= 48",
             "(rank % 8 < 2 || rank % 8 >= 6 || rank < 16 || rank >= 48)");
  // All but the odd ranks below 8.
  expectExpr(RankList::subtract(RankList::all(16), RankList::progression(1, 4, 2)), 16, "complement",
             "tasks t such that t MOD 2 <> 1 \\/ t >= 8", "(rank % 2 != 1 || rank >= 8)");
}

TEST(RankRanges, Options) {
  SpellOptions target;
  target.target = true;
  EXPECT_EQ(spelled(RankList::all(8), 8, target).ncptl, "tasks t such that t >= 0");
  SpellOptions bind;
  bind.bindVariable = true;
  bind.taskVar = "d";
  bind.cVar = "peer";
  EXPECT_EQ(spelled(RankList::single(3), 8, bind).ncptl, "tasks d such that d = 3");
  EXPECT_EQ(spelled(RankList::single(3), 8, bind).c, "peer == 3");
  EXPECT_EQ(spelled(RankList::fromSorted({1, 6}), 8, bind).ncptl, "tasks d such that d = 1 \\/ d = 6");
  EXPECT_EQ(spelled(block(5, {{2, 1}, {2, 4}}), 16, bind).ncptl,
            "tasks d such that d MOD 4 >= 1 /\\ d MOD 4 < 3 /\\ d >= 4 /\\ d < 12");
  EXPECT_EQ(spelled(RankList::all(8), 8, bind).ncptl, "all tasks d");
  // numRanks smaller than the set (a malformed trace) is raised, never an "all" that lies.
  EXPECT_EQ(spelled(RankList::progression(0, 4), 2).kind, "all");
  EXPECT_THROW(spelled(RankList::single(-1), 4), std::invalid_argument);
}

TEST(RankRanges, CForEach) {
  EXPECT_EQ(cForEach(RankList::progression(1, 4, 2), 16, "r", "f(r);"), "for (int r = 1; r < 8; r += 2)\n  f(r);");
  EXPECT_EQ(cForEach(block(5, {{2, 1}, {2, 4}}), 16, "r", "f(r);"),
            "for (int r_1 = 5; r_1 < 10; r_1 += 4)\n"
            "  for (int r = r_1; r < r_1 + 2; ++r)\n"
            "    f(r);");
  EXPECT_EQ(cForEach(RankList::fromSorted({0, 9}), 16, "r", "f(r);"), "for (int r = 0; r < 10; r += 9)\n  f(r);");
  EXPECT_EQ(cForEach(RankList::fromSorted({0, 2, 3, 9}), 16, "r", "f(r);"),
            "for (int r = 0; r < 1; ++r)\n  f(r);\n"
            "for (int r = 2; r < 4; ++r)\n  f(r);\n"
            "for (int r = 9; r < 10; ++r)\n  f(r);");
  EXPECT_EQ(cForEach(RankList(), 16, "r", "f(r);"), "");
  // Interleaved sections: a filtered scan, still ascending.
  RankList interleaved({RankTuple{0, {{4, 4}}}, RankTuple{1, {{3, 4}}}});
  EXPECT_EQ(cForEach(interleaved, 16, "r", "f(r);"),
            "for (int r = 0; r < 13; ++r)\n"
            "  if (r % 4 == 0 || (r % 4 == 1 && r < 12))\n"
            "    f(r);");
  EXPECT_EQ(runC(cForEach(interleaved, 16, "r", "f(r);")), interleaved.toVector());
}

// ---------------------------------------------------------------------------------------------
// Property test: random unions of disjoint sections (up to three dimensions) and their
// complements, under every option combination.

struct RandomSets {
  std::mt19937_64 rng{20240607};

  Rank uniform(Rank lo, Rank hi) { return std::uniform_int_distribution<Rank>(lo, hi)(rng); }

  // A random nested section inside 0 … p-1, or nullopt if the dice made it too large.
  std::optional<RankTuple> section(Rank p) {
    RankTuple t;
    const int nd = static_cast<int>(uniform(0, 3));
    Rank span = 0;
    if (nd >= 2 && uniform(0, 2) == 0) {  // a block of a grid w columns wide
      const Rank w = uniform(2, 20), x0 = uniform(0, w - 2), nx = uniform(2, w - x0);
      t.dims = {{nx, 1}, {uniform(2, 6), w}};
      span = (nx - 1) + (t.dims[1].iters - 1) * w;
      if (nd == 3) {
        const Rank plane = w * uniform(t.dims[1].iters, t.dims[1].iters + 4);
        t.dims.push_back({uniform(2, 3), plane});
        span += (t.dims[2].iters - 1) * plane;
      }
      if (x0 + span >= p) return std::nullopt;
      t.start = x0 + w * uniform(0, (p - 1 - x0 - span) / w);  // on the grid's columns
      return t;
    }
    for (int d = 0; d < nd; ++d) {
      const Rank stride = span + uniform(1, d == 0 ? 4 : 12);
      const Rank iters = uniform(2, 6);
      t.dims.push_back({iters, stride});
      span += (iters - 1) * stride;
    }
    if (span >= p) return std::nullopt;
    t.start = uniform(0, p - 1 - span);
    return t;
  }

  // Disjoint sections as a membership vector.
  std::vector<bool> sections(Rank p, int count) {
    std::vector<bool> in(static_cast<std::size_t>(p), false);
    for (int k = 0; k < count; ++k) {
      auto t = section(p);
      if (!t) continue;
      std::vector<Rank> members = RankList({*t}).toVector();
      bool clash = false;
      for (Rank r : members) clash = clash || in[static_cast<std::size_t>(r)];
      if (clash) continue;
      for (Rank r : members) in[static_cast<std::size_t>(r)] = true;
    }
    return in;
  }
};

RankList fromMembership(const std::vector<bool>& in) {
  std::vector<Rank> ranks;
  for (std::size_t r = 0; r < in.size(); ++r)
    if (in[r]) ranks.push_back(static_cast<Rank>(r));
  return RankList::fromSorted(ranks);
}

TEST(RankRanges, RandomSetsMatchTheirExpressions) {
  RandomSets gen;
  std::map<std::string, int> kinds;
  // Each variant built whole: GCC 12 at -O3 (Release) reports -Wmaybe-uninitialized for an
  // assignment to the std::string member of an element of a vector sized first.
  SpellOptions targetSide, bound, noBudget;
  targetSide.target = true;
  targetSide.taskVar = std::string("d");
  bound.bindVariable = true;
  bound.cVar = std::string("peer");
  noBudget.comprehensionBudget = 0;
  const std::vector<SpellOptions> variants{SpellOptions{}, targetSide, bound, noBudget};
  const int kTrials = testing::sanitizerTrials(2500);
  for (int trial = 0; trial < kTrials; ++trial) {
    Rank p = gen.uniform(1, 300);
    std::vector<bool> in;
    switch (trial % 5) {
      case 0:
      case 1: in = gen.sections(p, static_cast<int>(gen.uniform(1, 4))); break;
      case 2: {  // complements of sections
        in = gen.sections(p, static_cast<int>(gen.uniform(1, 2)));
        in.flip();
        break;
      }
      case 3: {  // sparse or dense random subsets, on fewer ranks: their expressions are long
        p = gen.uniform(1, 96);
        const Rank density = gen.uniform(0, 100);
        in.assign(static_cast<std::size_t>(p), false);
        for (Rank r = 0; r < p; ++r) in[static_cast<std::size_t>(r)] = gen.uniform(1, 100) <= density;
        break;
      }
      default: {  // sections given as raw tuples, possibly interleaving (not merged by RankList)
        std::vector<RankTuple> tuples;
        in.assign(static_cast<std::size_t>(p), false);
        for (int k = 0; k < 3; ++k) {
          auto t = gen.section(p);
          if (!t) continue;
          bool clash = false;
          for (Rank r : RankList({*t}).toVector()) clash = clash || in[static_cast<std::size_t>(r)];
          if (clash) continue;
          for (Rank r : RankList({*t}).toVector()) in[static_cast<std::size_t>(r)] = true;
          tuples.push_back(*t);
        }
        RankList raw(tuples);
        ASSERT_EQ(membership(raw, p), in);
        for (const SpellOptions& opt : variants) {
          Spelled e = spelled(raw, p, opt);
          ASSERT_EQ(evalC(e.c, opt.cVar, p), in) << raw.str() << " P=" << p << "\n" << e.c;
          ASSERT_EQ(evalTaskDescription(e.ncptl, p, opt.target ? TaskPosition::Target : TaskPosition::Acting), in)
              << raw.str() << " P=" << p << "\n" << e.ncptl;
        }
        ASSERT_EQ(runC(cForEach(raw, p, "r", "f(r);")), raw.toVector()) << raw.str();
        continue;
      }
    }
    RankList list = fromMembership(in);
    ASSERT_EQ(membership(list, p), in);
    for (const SpellOptions& opt : variants) {
      Spelled e;
      ASSERT_NO_THROW(e = spelled(list, p, opt)) << list.str();
      if (&opt == &variants[0]) ++kinds[e.kind];
      std::vector<bool> viaC, viaNcptl;
      ASSERT_NO_THROW(viaC = evalC(e.c, opt.cVar, p)) << e.c;
      ASSERT_EQ(viaC, in) << list.str() << " P=" << p << "\nC: " << e.c << "\nwant " << describe(in) << "\ngot  "
                          << describe(viaC);
      const TaskPosition pos = opt.target ? TaskPosition::Target : TaskPosition::Acting;
      ASSERT_NO_THROW(viaNcptl = evalTaskDescription(e.ncptl, p, pos)) << e.ncptl;
      ASSERT_EQ(viaNcptl, in) << list.str() << " P=" << p << "\nncptl: " << e.ncptl << "\nwant " << describe(in)
                              << "\ngot  " << describe(viaNcptl);
      if (opt.bindVariable && e.kind != "empty") {
        EXPECT_TRUE(e.ncptl.rfind("tasks " + opt.taskVar + " such that ", 0) == 0 ||
                    e.ncptl == "all tasks " + opt.taskVar)
            << e.ncptl;
      }
      if (opt.comprehensionBudget == 0) {
        EXPECT_EQ(e.ncptl.find(" for each "), std::string::npos) << e.ncptl;
      }
    }
    ASSERT_EQ(runC(cForEach(list, p, "r", "f(r);")), list.toVector()) << list.str();
  }
  // Every kind was exercised, so the loop above tested each code path.
  for (const char* kind : {"one", "progression", "block", "list", "union", "complement"})
    EXPECT_GT(kinds[kind], testing::sanitizerTrials(10)) << kind;
  for (const char* kind : {"all", "empty"}) EXPECT_GT(kinds[kind], 0) << kind;
}

// ---------------------------------------------------------------------------------------------
// Million-rank sets: answered from the tuples (a loop over the members would still pass, but
// the expressions are checked at the edges that matter).

TEST(RankRanges, MillionRankBlock) {
  const Rank w = 2048, p = w * w;
  const Rank start = 512 * w + 512;
  RankList sq = block(start, {{1024, 1}, {1024, w}});
  ASSERT_EQ(sq.size(), 1048576);
  Spelled e = spelled(sq, p);
  EXPECT_EQ(e.kind, "block");
  EXPECT_EQ(e.c, "rank % 2048 >= 512 && rank % 2048 < 1536 && rank >= 1048576 && rank < 3145728");
  // Far over the comprehension budget: a closed-form predicate.
  EXPECT_EQ(e.ncptl, "tasks t such that t MOD 2048 >= 512 /\\ t MOD 2048 < 1536 /\\ t >= 1048576 /\\ t < 3145728");

  // All but that block: the complement is found on the tuples.
  RankList rest({RankTuple{0, {{start, 1}}}, RankTuple{start + 1024, {{1024, 1}, {1023, w}}},
                 RankTuple{sq.last().value() + 1, {{p - sq.last().value() - 1, 1}}}});
  ASSERT_EQ(rest.size(), p - sq.size());
  Spelled c = spelled(rest, p);
  EXPECT_EQ(c.kind, "complement");
  EXPECT_EQ(c.c, "(rank % 2048 < 512 || rank % 2048 >= 1536 || rank < 1048576 || rank >= 3145728)");

  CExpr inBlock = CParser(e.c).wholeExpression();
  CExpr inRest = CParser(c.c).wholeExpression();
  std::mt19937_64 rng(7);
  std::vector<Rank> probes = {0, start - 1, start, start + 1023, start + 1024, sq.last().value(),
                              sq.last().value() + 1, p - 1, start + w - 1, start + 1023 * w};
  for (int i = 0; i < 2000; ++i) probes.push_back(std::uniform_int_distribution<Rank>(0, p - 1)(rng));
  for (Rank r : probes) {
    CEnv env{{"rank", r}};
    EXPECT_EQ(inBlock(env) != 0, sq.contains(r)) << r;
    EXPECT_EQ(inRest(env) != 0, rest.contains(r)) << r;
  }
  EXPECT_EQ(cForEach(sq, p, "r", "f(r);"),
            "for (int r_1 = 1049088; r_1 < 3144193; r_1 += 2048)\n"
            "  for (int r = r_1; r < r_1 + 1024; ++r)\n"
            "    f(r);");
}

// ---------------------------------------------------------------------------------------------
// The pass.

TEST(RankRanges, PassFillsEveryRankSetOfTheTrace) {
  Trace trace;
  trace.numRanks = 16;
  trace.comms = standardCommunicators(16);
  // Rows of a 4x4 grid as one split communicator.
  Communicator rows{1000, "split", {}};
  for (Rank r = 0; r < 4; ++r) rows.instances.push_back(RankList::progression(4 * r, 4));
  trace.comms.push_back(rows);

  Event send;
  send.op = Op::Send;
  send.ranks = RankList::progression(0, 4, 2);
  send.setParam(Param::Dest, {ValueGroup{RankList::progression(0, 2, 2), {1}}, ValueGroup{RankList::progression(4, 2, 2), {3}}});
  LoopLevel loop;
  loop.iter = {ValueGroup{send.ranks, {10}}};
  loop.mem = {ValueGroup{send.ranks, {2}}};
  send.loops.push_back(loop);
  Event bcast;
  bcast.op = Op::Bcast;
  bcast.ranks = block(5, {{2, 1}, {2, 4}});
  Event other;
  other.op = Op::Barrier;
  other.ranks = RankList::subtract(RankList::all(16), RankList::single(5));
  trace.events = {send, bcast, other};

  PassContext ctx;
  ctx.currentPass = "rank-ranges";
  trace.rankShapes["stale"] = RankShape{};
  auto pass = createRankRangesPass();
  EXPECT_EQ(pass->name(), "rank-ranges");
  pass->run(trace, ctx);

  // Sets: evens<8, {0,2}, {4,6}, block, all-but-5, world, 4 rows (row 0 = 0..3, …).
  auto at = [&](const RankList& r) { return spell(trace.rankShapes.at(r.str())); };
  EXPECT_EQ(trace.rankShapes.count("stale"), 0u);
  EXPECT_EQ(trace.rankShapes.size(), 10u);
  EXPECT_EQ(at(send.ranks).c, "rank % 2 == 0 && rank < 8");
  EXPECT_EQ(trace.rankShapes.at(send.ranks.str()).pred.str(), "rank mod 2 = 0 and rank < 8");
  EXPECT_EQ(at(RankList::progression(4, 2, 2)).ncptl, "tasks {4, 6}");
  EXPECT_EQ(at(bcast.ranks).kind, "block");
  EXPECT_EQ(at(other.ranks).c, "rank != 5");
  EXPECT_EQ(trace.rankShapes.at(other.ranks.str()).str(), "complement of 16: rank != 5  [parts 0+(5x1) 6+(10x1)]");
  EXPECT_EQ(at(RankList::all(16)).kind, "all");
  EXPECT_EQ(at(RankList::progression(8, 4)).c, "rank >= 8 && rank < 12");
  auto& stats = ctx.stats["rank-ranges"];
  EXPECT_EQ(stats["expressions"], 10);
  EXPECT_EQ(stats["progressions"], 5);  // evens<8 and rows 0-3 ({0,2} and {4,6} are lists)
  EXPECT_EQ(stats["blocks"], 1);
  EXPECT_EQ(stats["unions"], 2);
  EXPECT_EQ(stats["complements"], 1);
}

}  // namespace
}  // namespace tracegen
