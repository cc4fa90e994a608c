// A test oracle for coNCePTuaL task descriptions: lexes and parses the text as the language
// reference (shared/docs/conceptual-language.md) describes it and evaluates which of the
// tasks 0 … num_tasks-1 it names, so that tests check the generated text itself rather than
// the data structure it was generated from.
//
// Covered: the task_spec forms `ALL TASKS [v]`, `TASK[S] v SUCH THAT rel_expr`,
// `TASK[S] range_list`, `TASK[S] expr` (§2.2), with §3.2's position rule (`ALL TASKS` is
// illegal as a target); relational expressions with `/\`, `\/`, `=`, `<>`, `<`, `>`, `<=`,
// `>=`, `DIVIDES`, `IS EVEN/ODD`, `IS [NOT] IN`; arithmetic with `+ - * / MOD **`, unary
// minus and `a IF c OTHERWISE b`; ranges `{a, b, c}`, `{a, ..., z}`, `{a, b, ..., z}` and list
// comprehensions with `FOR EACH … IN … [WHERE …]` (§4.6). Lexing follows §1: case-folding,
// comments, integer scale suffixes, the keyword list (a keyword is never an identifier), the
// synonyms TASK/TASKS and IS/ARE, and the hyphen rule (a `-` right before a keyword vanishes).
// Semantics follow §4.4: 64-bit integers, `/` truncates, `MOD` is never negative. Anything
// outside this subset (C operators such as `%` `==` `&&` `!`, unknown functions, geometric
// ranges) is reported as an error, which is what a test wants to hear about.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracegen::testing {

struct NcptlError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class TaskPosition { Acting, Target };

namespace ncptl_detail {

inline const std::set<std::string>& keywords() {
  static const std::set<std::string> kKeywords = {
      "a", "abs", "absolute", "aggregates", "aligned", "all", "an", "and", "are", "arithmetic", "as",
      "assert", "assigned", "asynchronously", "await", "awaits", "backend", "be", "bit", "bits",
      "buffer", "buffers", "but", "byte", "bytes", "cbrt", "ceiling", "comes", "completion",
      "completions", "compute", "computes", "counters", "current", "data", "day", "days",
      "declares", "default", "deviation", "divides", "doubleword", "doublewords", "each", "even",
      "execute", "executes", "factor10", "file_data", "final", "floor", "for", "from", "geometric",
      "gigabyte", "greater", "group", "halfword", "halfwords", "harmonic", "histogram", "hour",
      "hours", "if", "in", "integer", "integers", "into", "is", "it", "its", "kilobyte",
      "knomial_child", "knomial_children", "knomial_parent", "language", "less", "let", "log",
      "log10", "logs", "max", "maximum", "mean", "median", "megabyte", "memory", "mesh_coordinate",
      "mesh_distance", "mesh_neighbor", "message", "messages", "microsecond", "microseconds",
      "millisecond", "milliseconds", "min", "minimum", "minute", "minutes", "misaligned", "mod",
      "multicast", "multicasts", "my", "nonunique", "not", "odd", "of", "or", "other", "otherwise",
      "output", "outputs", "page", "pages", "percentile", "plus", "processor", "processor_of",
      "processors", "quadword", "quadwords", "random", "random_gaussian", "random_pareto",
      "random_poisson", "random_uniform", "real", "receive", "receives", "reduce", "reduces",
      "region", "repetition", "repetitions", "require", "reset", "resets", "restore", "restores",
      "result", "results", "root", "round", "second", "seconds", "send", "sends", "sized", "sleep",
      "sleeps", "sqrt", "standard", "static_file_data", "store", "stores", "stride", "such", "sum",
      "synchronization", "synchronize", "synchronizes", "synchronously", "tag", "task", "task_of",
      "tasks", "than", "that", "the", "their", "them", "then", "time", "times", "to", "touch",
      "touches", "touching", "tree_child", "tree_parent", "unaligned", "unique", "unsuspecting",
      "using", "value", "variance", "verification", "version", "warmup", "where", "while", "who",
      "with", "without", "word", "words", "xor"};
  return kKeywords;
}

struct Token {
  enum Kind { Int, Ident, Keyword, Punct, End } kind = End;
  std::string text;  // lower-cased; keywords folded to one synonym (tasks -> task, are -> is)
  std::int64_t value = 0;
};

inline std::vector<Token> lex(std::string_view src) {
  std::vector<Token> out;
  std::size_t i = 0;
  auto isAlnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '_'; };
  auto lower = [](std::string s) {
    for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  while (i < src.size()) {
    char ch = src[i];
    if (std::isspace(static_cast<unsigned char>(ch))) { ++i; continue; }
    if (ch == '#') {
      while (i < src.size() && src[i] != '\n') ++i;
      continue;
    }
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      std::size_t j = i;
      std::int64_t v = 0;
      while (j < src.size() && std::isdigit(static_cast<unsigned char>(src[j]))) v = v * 10 + (src[j++] - '0');
      std::string rest;
      while (j < src.size() && isAlnum(src[j])) rest += static_cast<char>(std::tolower(static_cast<unsigned char>(src[j++])));
      // digits [K|M|G|T|E digits] [ST|ND|RD|TH] (§1.4)
      std::size_t k = 0;
      if (k < rest.size() && std::string_view("kmgt").find(rest[k]) != std::string_view::npos &&
          !(rest.substr(k, 2) == "th" || rest.substr(k, 2) == "nd" || rest.substr(k, 2) == "st")) {
        int power = static_cast<int>(std::string_view("kmgt").find(rest[k])) + 1;
        for (int p = 0; p < power; ++p) v *= 1024;
        ++k;
      } else if (k < rest.size() && rest[k] == 'e' && k + 1 < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k + 1]))) {
        ++k;
        int exp = 0;
        while (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k]))) exp = exp * 10 + (rest[k++] - '0');
        for (int p = 0; p < exp; ++p) v *= 10;
      }
      std::string ordinal = rest.substr(k);
      if (!ordinal.empty() && ordinal != "st" && ordinal != "nd" && ordinal != "rd" && ordinal != "th")
        throw NcptlError("bad integer literal near '" + std::string(src.substr(i, j - i)) + "'");
      out.push_back({Token::Int, std::string(src.substr(i, j - i)), v});
      i = j;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(ch))) {
      std::size_t j = i;
      while (j < src.size() && isAlnum(src[j])) ++j;
      std::string word = lower(std::string(src.substr(i, j - i)));
      i = j;
      if (keywords().count(word)) {
        if (word == "tasks") word = "task";
        if (word == "are") word = "is";
        out.push_back({Token::Keyword, word, 0});
      } else {
        out.push_back({Token::Ident, word, 0});
      }
      continue;
    }
    static constexpr std::string_view kPunct[] = {"...", "/\\", "\\/", "<>", "<=", ">=", "<<", ">>", "**",
                                                  ".", ",", "{", "}", "(", ")", "[", "]", "+", "-", "*",
                                                  "/", "=", "<", ">", "&", "|"};
    bool matched = false;
    for (std::string_view p : kPunct) {
      if (src.substr(i, p.size()) == p) {
        out.push_back({Token::Punct, std::string(p), 0});
        i += p.size();
        matched = true;
        break;
      }
    }
    if (!matched) throw NcptlError(std::string("unexpected character '") + ch + "'");
  }
  // The hyphen rule (§1.7): a '-' immediately before a keyword is deleted.
  std::vector<Token> kept;
  for (std::size_t t = 0; t < out.size(); ++t) {
    if (out[t].kind == Token::Punct && out[t].text == "-" && t + 1 < out.size() && out[t + 1].kind == Token::Keyword) continue;
    kept.push_back(out[t]);
  }
  kept.push_back({Token::End, "<end>", 0});
  return kept;
}

using Env = std::vector<std::pair<std::string, std::int64_t>>;

struct Node;
struct Range;
using NodeP = std::shared_ptr<const Node>;
using RangeList = std::vector<std::shared_ptr<const Range>>;

struct Node {
  enum Op { Num, Var, Neg, Add, Sub, Mul, Div, Mod, Pow, Cond,
            Lt, Le, Gt, Ge, Eq, Ne, And, Or, Divides, Even, Odd, In, NotIn } op = Num;
  std::int64_t value = 0;
  std::string name;
  std::vector<NodeP> kids;
  RangeList ranges;
};

struct Generator {
  std::string var;
  RangeList ranges;
};

struct Range {
  enum Kind { List, Progression, Comprehension } kind = List;
  std::vector<NodeP> items;  // List: values; Progression: leading values then the bound
  NodeP element;             // Comprehension
  std::vector<Generator> generators;
  NodeP where;
};

inline std::int64_t lookup(const Env& env, const std::string& name) {
  for (auto it = env.rbegin(); it != env.rend(); ++it)
    if (it->first == name) return it->second;
  throw NcptlError("Variable " + name + " must be declared before being used");
}

inline std::int64_t eval(const Node& n, Env& env);
inline void values(const RangeList& ranges, Env& env, std::vector<std::int64_t>& out);

inline bool test(const Node& n, Env& env) {
  switch (n.op) {
    case Node::And: return test(*n.kids[0], env) && test(*n.kids[1], env);
    case Node::Or: return test(*n.kids[0], env) || test(*n.kids[1], env);
    case Node::Lt: return eval(*n.kids[0], env) < eval(*n.kids[1], env);
    case Node::Le: return eval(*n.kids[0], env) <= eval(*n.kids[1], env);
    case Node::Gt: return eval(*n.kids[0], env) > eval(*n.kids[1], env);
    case Node::Ge: return eval(*n.kids[0], env) >= eval(*n.kids[1], env);
    case Node::Eq: return eval(*n.kids[0], env) == eval(*n.kids[1], env);
    case Node::Ne: return eval(*n.kids[0], env) != eval(*n.kids[1], env);
    case Node::Divides: {
      std::int64_t d = eval(*n.kids[0], env);
      if (d == 0) throw NcptlError("division by zero in DIVIDES");
      return eval(*n.kids[1], env) % d == 0;
    }
    case Node::Even: return eval(*n.kids[0], env) % 2 == 0;
    case Node::Odd: return eval(*n.kids[0], env) % 2 != 0;
    case Node::In:
    case Node::NotIn: {
      std::int64_t v = eval(*n.kids[0], env);
      std::vector<std::int64_t> vs;
      values(n.ranges, env, vs);
      bool found = std::find(vs.begin(), vs.end(), v) != vs.end();
      return n.op == Node::In ? found : !found;
    }
    default: throw NcptlError("not a relational expression");
  }
}

inline std::int64_t eval(const Node& n, Env& env) {
  switch (n.op) {
    case Node::Num: return n.value;
    case Node::Var: return lookup(env, n.name);
    case Node::Neg: return -eval(*n.kids[0], env);
    case Node::Add: return eval(*n.kids[0], env) + eval(*n.kids[1], env);
    case Node::Sub: return eval(*n.kids[0], env) - eval(*n.kids[1], env);
    case Node::Mul: return eval(*n.kids[0], env) * eval(*n.kids[1], env);
    case Node::Div:
    case Node::Mod: {
      std::int64_t a = eval(*n.kids[0], env), b = eval(*n.kids[1], env);
      if (b == 0) throw NcptlError("division by zero");
      if (n.op == Node::Div) return a / b;  // truncates toward zero
      std::int64_t r = a % b;
      return r < 0 ? r + (b < 0 ? -b : b) : r;  // MOD never returns a negative number
    }
    case Node::Pow: {
      std::int64_t base = eval(*n.kids[0], env), e = eval(*n.kids[1], env), r = 1;
      if (e < 0) return base == 1 ? 1 : 0;
      while (e-- > 0) r *= base;
      return r;
    }
    case Node::Cond: return test(*n.kids[1], env) ? eval(*n.kids[0], env) : eval(*n.kids[2], env);
    default: throw NcptlError("not an arithmetic expression");
  }
}

inline void comprehend(const Range& r, std::size_t g, Env& env, std::vector<std::int64_t>& out) {
  if (g == r.generators.size()) {
    if (!r.where || test(*r.where, env)) out.push_back(eval(*r.element, env));
    return;
  }
  std::vector<std::int64_t> vs;
  values(r.generators[g].ranges, env, vs);
  for (std::int64_t v : vs) {
    env.emplace_back(r.generators[g].var, v);
    comprehend(r, g + 1, env, out);
    env.pop_back();
  }
}

// §4.6: one leading value steps by ±1 toward the bound; two or more fix the step (arithmetic
// only here), a zero step gives one value, a bound on the wrong side gives nothing.
inline void values(const RangeList& ranges, Env& env, std::vector<std::int64_t>& out) {
  for (const auto& rp : ranges) {
    const Range& r = *rp;
    if (r.kind == Range::List) {
      for (const auto& item : r.items) out.push_back(eval(*item, env));
    } else if (r.kind == Range::Comprehension) {
      comprehend(r, 0, env, out);
    } else {
      std::vector<std::int64_t> lead;
      for (std::size_t i = 0; i + 1 < r.items.size(); ++i) lead.push_back(eval(*r.items[i], env));
      std::int64_t bound = eval(*r.items.back(), env);
      std::int64_t stepBy = 0;
      if (lead.size() == 1) {
        stepBy = bound >= lead[0] ? 1 : -1;
      } else {
        stepBy = lead[1] - lead[0];
        for (std::size_t i = 2; i < lead.size(); ++i)
          if (lead[i] - lead[i - 1] != stepBy) throw NcptlError("geometric ranges are not supported by this evaluator");
      }
      if (stepBy == 0) {
        out.push_back(lead[0]);
        continue;
      }
      for (std::int64_t v = lead[0]; stepBy > 0 ? v <= bound : v >= bound; v += stepBy) out.push_back(v);
    }
  }
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : toks_(std::move(tokens)) {}

  const Token& peek(std::size_t ahead = 0) const { return toks_[std::min(pos_ + ahead, toks_.size() - 1)]; }
  bool isKw(std::string_view kw, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Keyword && peek(ahead).text == kw;
  }
  bool isPunct(std::string_view p, std::size_t ahead = 0) const {
    return peek(ahead).kind == Token::Punct && peek(ahead).text == p;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw NcptlError("parse error at '" + peek().text + "': expected " + what);
  }
  void expectKw(std::string_view kw) {
    if (!isKw(kw)) fail(std::string(kw));
    ++pos_;
  }
  void expectPunct(std::string_view p) {
    if (!isPunct(p)) fail("'" + std::string(p) + "'");
    ++pos_;
  }
  std::string ident() {
    if (peek().kind != Token::Ident) fail("an identifier (not a keyword)");
    return toks_[pos_++].text;
  }
  bool atEnd() const { return peek().kind == Token::End; }

  static NodeP node(Node::Op op, std::vector<NodeP> kids) {
    auto n = std::make_shared<Node>();
    n->op = op;
    n->kids = std::move(kids);
    return n;
  }

  // expr ::= add_expr [ IF rel_expr OTHERWISE expr ]
  NodeP expr() {
    NodeP e = addExpr();
    if (isKw("if")) {
      ++pos_;
      NodeP cond = relExpr();
      expectKw("otherwise");
      NodeP other = expr();
      return node(Node::Cond, {e, cond, other});
    }
    return e;
  }
  NodeP addExpr() {
    NodeP e = mulExpr();
    for (;;) {
      if (isPunct("+")) { ++pos_; e = node(Node::Add, {e, mulExpr()}); }
      else if (isPunct("-")) { ++pos_; e = node(Node::Sub, {e, mulExpr()}); }
      else if (isPunct("|") || isKw("xor")) fail("an operator this evaluator supports (no | or XOR)");
      else return e;
    }
  }
  NodeP mulExpr() {
    NodeP e = unary();
    for (;;) {
      if (isPunct("*")) { ++pos_; e = node(Node::Mul, {e, unary()}); }
      else if (isPunct("/")) { ++pos_; e = node(Node::Div, {e, unary()}); }
      else if (isKw("mod")) { ++pos_; e = node(Node::Mod, {e, unary()}); }
      else if (isPunct("<<") || isPunct(">>") || isPunct("&")) fail("an operator this evaluator supports (no << >> &)");
      else return e;
    }
  }
  NodeP unary() {
    if (isPunct("-")) { ++pos_; return node(Node::Neg, {unary()}); }
    if (isPunct("+")) { ++pos_; return unary(); }
    if (isKw("not")) fail("an operator this evaluator supports (no NOT)");
    NodeP base = primary();
    if (isPunct("**")) {
      ++pos_;
      return node(Node::Pow, {base, unary()});
    }
    return base;
  }
  NodeP primary() {
    const Token& t = peek();
    if (t.kind == Token::Int) {
      auto n = std::make_shared<Node>();
      n->op = Node::Num;
      n->value = t.value;
      ++pos_;
      return n;
    }
    if (t.kind == Token::Ident) {
      auto n = std::make_shared<Node>();
      n->op = Node::Var;
      n->name = t.text;
      ++pos_;
      return n;
    }
    if (isPunct("(")) {
      ++pos_;
      NodeP e = expr();
      expectPunct(")");
      return e;
    }
    fail("an integer, a variable or '('");
  }

  // rel_expr ::= rel_and { "\/" rel_and };  rel_and ::= rel_atom { "/\" rel_atom }
  NodeP relExpr() {
    NodeP e = relAnd();
    while (isPunct("\\/")) {
      ++pos_;
      e = node(Node::Or, {e, relAnd()});
    }
    return e;
  }
  NodeP relAnd() {
    NodeP e = relAtom();
    while (isPunct("/\\")) {
      ++pos_;
      e = node(Node::And, {e, relAtom()});
    }
    return e;
  }
  // "(" can open a parenthesised relational expression or an arithmetic one; like an LR
  // parser that sees the whole atom, try the arithmetic reading first and fall back.
  NodeP relAtom() {
    if (isPunct("(")) {
      std::size_t save = pos_;
      try {
        return comparison();
      } catch (const NcptlError&) {
        pos_ = save;
      }
      ++pos_;
      NodeP e = relExpr();
      expectPunct(")");
      return e;
    }
    return comparison();
  }
  NodeP comparison() {
    NodeP lhs = expr();
    static constexpr std::pair<std::string_view, Node::Op> kCmp[] = {
        {"=", Node::Eq}, {"<>", Node::Ne}, {"<", Node::Lt}, {">", Node::Gt}, {"<=", Node::Le}, {">=", Node::Ge}};
    for (auto [text, op] : kCmp) {
      if (isPunct(text)) {
        ++pos_;
        return node(op, {lhs, expr()});
      }
    }
    if (isKw("divides")) {
      ++pos_;
      return node(Node::Divides, {lhs, expr()});
    }
    if (isKw("is")) {
      ++pos_;
      if (isKw("even")) { ++pos_; return node(Node::Even, {lhs}); }
      if (isKw("odd")) { ++pos_; return node(Node::Odd, {lhs}); }
      bool negated = false;
      if (isKw("not")) { ++pos_; negated = true; }
      expectKw("in");
      auto n = std::make_shared<Node>();
      n->op = negated ? Node::NotIn : Node::In;
      n->kids = {lhs};
      n->ranges = rangeList();
      return n;
    }
    fail("a comparison");
  }

  // range_list ::= range { "," range }
  RangeList rangeList() {
    RangeList out{range()};
    while (isPunct(",") && isPunct("{", 1)) {
      ++pos_;
      out.push_back(range());
    }
    return out;
  }
  std::shared_ptr<const Range> range() {
    expectPunct("{");
    auto r = std::make_shared<Range>();
    NodeP first = expr();
    if (isKw("for")) {
      r->kind = Range::Comprehension;
      r->element = first;
      generators(*r);
      expectPunct("}");
      return r;
    }
    r->items.push_back(first);
    while (isPunct(",")) {
      ++pos_;
      if (isPunct("...")) {
        ++pos_;
        expectPunct(",");
        r->kind = Range::Progression;
        r->items.push_back(expr());
        break;
      }
      r->items.push_back(expr());
    }
    expectPunct("}");
    return r;
  }
  // generator ::= FOR EACH IDENT IN range_list [ WHERE rel_expr | generator ]
  void generators(Range& r) {
    while (isKw("for")) {
      ++pos_;
      expectKw("each");
      Generator g;
      g.var = ident();
      expectKw("in");
      g.ranges = rangeList();
      r.generators.push_back(std::move(g));
      if (isKw("where")) {
        ++pos_;
        r.where = relExpr();
        return;
      }
    }
  }

 private:
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
};

}  // namespace ncptl_detail

// The members among 0 … numTasks-1 of a task description (§2.2 task_spec), as a membership
// vector. `vars` are further variables in scope (parameters, FOR EACH variables); num_tasks is
// predeclared. Throws NcptlError for text outside the supported subset or illegal at `pos`.
inline std::vector<bool> evalTaskDescription(std::string_view text, std::int64_t numTasks,
                                             TaskPosition pos = TaskPosition::Acting,
                                             const std::map<std::string, std::int64_t>& vars = {}) {
  using namespace ncptl_detail;
  Parser p(lex(text));
  Env env(vars.begin(), vars.end());
  env.emplace_back("num_tasks", numTasks);
  std::vector<bool> member(static_cast<std::size_t>(numTasks), false);
  auto add = [&](std::int64_t t) {  // task numbers outside the range are silently ignored (§4.2)
    if (t >= 0 && t < numTasks) member[static_cast<std::size_t>(t)] = true;
  };
  if (p.isKw("all")) {
    p.expectKw("all");
    if (p.isKw("other")) throw NcptlError("ALL OTHER TASKS needs a source task; not supported here");
    p.expectKw("task");
    if (pos == TaskPosition::Target) throw NcptlError("ALL TASKS cannot be a target (§3.2)");
    if (!p.atEnd()) p.ident();  // ALL TASKS v binds v to the acting task
    for (std::int64_t t = 0; t < numTasks; ++t) add(t);
  } else {
    p.expectKw("task");
    if (p.isKw("group")) throw NcptlError("TASK GROUP is not supported here");
    if (p.peek().kind == Token::Ident && p.isKw("such", 1)) {
      std::string v = p.ident();
      p.expectKw("such");
      p.expectKw("that");
      NodeP cond = p.relExpr();
      if (!p.atEnd()) p.fail("the end of the task description");
      for (std::int64_t t = 0; t < numTasks; ++t) {
        env.emplace_back(v, t);
        if (test(*cond, env)) add(t);
        env.pop_back();
      }
      return member;
    }
    std::vector<std::int64_t> vs;
    if (p.isPunct("{")) {
      values(p.rangeList(), env, vs);
    } else {
      vs.push_back(eval(*p.expr(), env));
    }
    for (std::int64_t t : vs) add(t);
  }
  if (!p.atEnd()) p.fail("the end of the task description");
  return member;
}

}  // namespace tracegen::testing
