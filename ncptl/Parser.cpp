// Recursive-descent parser for coNCePTuaL 1.5 (see Parser.h). One function per non-terminal
// of §2.2; syntax errors are thrown as SyntaxError and caught at the top level (and at the one
// speculative point, a '(' that may open either a relational or an arithmetic expression).
#include "ncptl/Parser.h"

#include <utility>

namespace tracegen::ncptl {

namespace {

struct SyntaxError {
  SourceRange where;
  std::string message;
};

bool isDataType(Kw k) {
  return k == Kw::BYTE || k == Kw::HALFWORD || k == Kw::WORD || k == Kw::INTEGER || k == Kw::DOUBLEWORD ||
         k == Kw::QUADWORD || k == Kw::PAGE;
}
bool isSizeUnit(Kw k) {
  return isDataType(k) || k == Kw::BIT || k == Kw::KILOBYTE || k == Kw::MEGABYTE || k == Kw::GIGABYTE;
}
bool isTimeUnit(Kw k) {
  return k == Kw::MICROSECOND || k == Kw::MILLISECOND || k == Kw::SECOND || k == Kw::MINUTE || k == Kw::HOUR ||
         k == Kw::DAY;
}
bool isFuncName(Kw k) {
  switch (k) {
    case Kw::ABS: case Kw::BIT: case Kw::CBRT: case Kw::CEILING: case Kw::FACTOR10: case Kw::FLOOR:
    case Kw::LOG10: case Kw::MAX: case Kw::MIN: case Kw::ROOT: case Kw::ROUND: case Kw::SQRT:
    case Kw::TREE_PARENT: case Kw::TREE_CHILD: case Kw::KNOMIAL_PARENT: case Kw::KNOMIAL_CHILD:
    case Kw::KNOMIAL_CHILDREN: case Kw::RANDOM_UNIFORM: case Kw::RANDOM_GAUSSIAN: case Kw::RANDOM_POISSON:
    case Kw::RANDOM_PARETO: case Kw::PROCESSOR_OF: case Kw::TASK_OF:
      return true;
    default:
      return false;
  }
}
bool isAggrStart(Kw k) {
  return k == Kw::ARITHMETIC || k == Kw::MEAN || k == Kw::HARMONIC || k == Kw::GEOMETRIC || k == Kw::MEDIAN ||
         k == Kw::STANDARD || k == Kw::VARIANCE || k == Kw::SUM || k == Kw::MINIMUM || k == Kw::MAXIMUM ||
         k == Kw::FINAL;
}
// Short English words that are keywords and that people try to use as names (§1.3).
bool looksLikeName(Kw k) {
  switch (k) {
    case Kw::A: case Kw::AS: case Kw::BE: case Kw::IS: case Kw::IT: case Kw::OF: case Kw::OR: case Kw::TO:
    case Kw::IN: case Kw::MY: case Kw::ALL: case Kw::SUM: case Kw::MAX: case Kw::MIN: case Kw::LOG: case Kw::TAG:
    case Kw::TASK: case Kw::TIME: case Kw::DATA: case Kw::ROOT: case Kw::ROUND: case Kw::REAL: case Kw::BYTE:
    case Kw::BIT: case Kw::PAGE: case Kw::WORD: case Kw::GROUP: case Kw::VALUE: case Kw::FINAL: case Kw::MEAN:
    case Kw::MEDIAN: case Kw::RANDOM: case Kw::MEMORY: case Kw::REGION: case Kw::RESULT: case Kw::CURRENT:
    case Kw::DEFAULT: case Kw::SEND: case Kw::STRIDE: case Kw::BUFFER: case Kw::MESSAGE: case Kw::COUNTERS:
    case Kw::EACH: case Kw::OTHER: case Kw::SECOND: case Kw::MINUTE: case Kw::HOUR: case Kw::DAY:
    case Kw::VERSION: case Kw::LANGUAGE: case Kw::MINIMUM: case Kw::MAXIMUM: case Kw::INTEGER: case Kw::UNIQUE:
      return true;
    default:
      return false;
  }
}

class Parser {
 public:
  explicit Parser(std::string_view src) {
    LexResult lr = lex(src);
    toks_ = std::move(lr.tokens);
    diags_ = std::move(lr.diagnostics);
  }

  ParseResult run() {
    ParseResult out;
    bool headerPhase = true;
    while (!at(Tok::End)) {
      const std::size_t start = i_;
      try {
        if (startsHeader()) {
          if (!headerPhase)
            throw SyntaxError{cur().where, "header declarations (parameters, REQUIRE LANGUAGE VERSION) must precede "
                                           "the first statement (§2.4)"};
          Header h = parseHeader();
          h.terminated = accept(Tok::Period);
          out.program.headers.push_back(std::move(h));
          continue;
        }
        headerPhase = false;
        TopStmt ts;
        ts.stmt = parseTopSeq();
        ts.terminated = accept(Tok::Period);
        if (!ts.terminated && !at(Tok::End) && !startsStatement())
          throw SyntaxError{cur().where, "expected THEN or '.' after the statement, found " + describe(cur())};
        out.program.statements.push_back(std::move(ts));
      } catch (const SyntaxError& e) {
        diags_.push_back({Diagnostic::Severity::Error, e.where, e.message});
        // Resume after the '.' that ends the broken top-level statement: the next one outside
        // the braces that were open at the error.
        int depth = depth_;
        depth_ = 0;
        if (i_ == start && !at(Tok::End)) ++i_;
        while (!at(Tok::End) && !(at(Tok::Period) && depth <= 0)) {
          if (at(Tok::LBrace)) ++depth;
          if (at(Tok::RBrace)) --depth;
          ++i_;
        }
        accept(Tok::Period);
      }
    }
    out.diagnostics = std::move(diags_);
    return out;
  }

 private:
  // ------------------------------------------------------------------ token helpers
  const Token& cur() const { return toks_[i_]; }
  const Token& peekTok(std::size_t k) const { return toks_[std::min(i_ + k, toks_.size() - 1)]; }
  bool at(Tok t) const { return cur().kind == t; }
  bool atKw(Kw k) const { return cur().kind == Tok::Keyword && cur().kw == k; }
  bool peekKw(std::size_t k, Kw kw) const { return peekTok(k).kind == Tok::Keyword && peekTok(k).kw == kw; }
  bool accept(Tok t) {
    if (!at(t)) return false;
    ++i_;
    return true;
  }
  bool acceptKw(Kw k) {
    if (!atKw(k)) return false;
    ++i_;
    return true;
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
      case Tok::Keyword: return "'" + t.text + "'";
      case Tok::Ident: return "identifier '" + t.text + "'";
      case Tok::Integer: return "integer '" + t.text + "'";
      case Tok::String: return "string \"" + t.text + "\"";
      default: return std::string(tokName(t.kind));
    }
  }
  [[noreturn]] void fail(const std::string& expected) const {
    std::string msg = "expected " + expected + ", found " + describe(cur());
    if (cur().kind == Tok::Period && depth_ > 0) msg += " ('.' is not allowed inside '{ ... }'; join statements with THEN)";
    throw SyntaxError{cur().where, msg};
  }
  void expectKw(Kw k, const char* context = nullptr) {
    if (acceptKw(k)) return;
    fail(std::string(keywordName(k)) + (context ? std::string(" ") + context : std::string()));
  }
  void expect(Tok t, const char* context = nullptr) {
    if (accept(t)) return;
    fail(std::string(tokName(t)) + (context ? std::string(" ") + context : std::string()));
  }
  std::string expectIdent(const char* what, SourceRange* where = nullptr) {
    if (at(Tok::Ident)) {
      if (where) *where = cur().where;
      return toks_[i_++].text;
    }
    if (at(Tok::Keyword))
      throw SyntaxError{cur().where, "'" + cur().text + "' is a keyword and cannot be used as " + what +
                                         " (§1.3); use a private name such as v_" + lower(cur().text)};
    fail(what);
  }
  std::string expectString(const char* what) {
    if (!at(Tok::String)) fail(what);
    return toks_[i_++].text;
  }
  static std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  }
  std::size_t mark() const { return i_; }
  SourceRange span(std::size_t from) const {
    const Token& a = toks_[from];
    const Token& b = toks_[i_ > from ? i_ - 1 : from];
    return {a.where.begin, std::max(a.where.end, b.where.end), a.where.line};
  }

  bool startsHeader() const {
    if (at(Tok::Ident)) return true;
    if (atKw(Kw::REQUIRE)) return true;
    if (atKw(Kw::THE) && peekKw(1, Kw::BACKEND)) return true;
    // A keyword used as a parameter name: `root IS "…"`.
    return at(Tok::Keyword) && peekKw(1, Kw::IS) && peekTok(2).kind == Tok::String;
  }
  bool startsStatement() const {
    return at(Tok::LBrace) || atKw(Kw::IF) || atKw(Kw::FOR) || atKw(Kw::LET) || atKw(Kw::ASSERT) || atKw(Kw::ALL) ||
           atKw(Kw::TASK);
  }

  // ------------------------------------------------------------------ headers
  Header parseHeader() {
    Header h;
    const std::size_t b = mark();
    if (acceptKw(Kw::REQUIRE)) {
      h.kind = Header::Kind::Version;
      expectKw(Kw::LANGUAGE);
      expectKw(Kw::VERSION);
      h.text = expectString("a version string");
    } else if (atKw(Kw::THE)) {
      ++i_;
      h.kind = Header::Kind::Backend;
      expectKw(Kw::BACKEND);
      expectKw(Kw::DECLARES);
      h.text = expectString("a string");
    } else {
      h.kind = Header::Kind::Param;
      ParamDecl& p = h.param;
      p.var = expectIdent("a parameter name", &p.where);
      expectKw(Kw::IS);
      p.description = expectString("a description string");
      expectKw(Kw::AND);
      expectKw(Kw::COMES);
      expectKw(Kw::FROM);
      p.longWhere = cur().where;
      p.longOption = expectString("a long option string such as \"--reps\"");
      expectKw(Kw::OR);
      p.shortWhere = cur().where;
      p.shortOption = expectString("a short option string such as \"-r\"");
      expectKw(Kw::WITH);
      expectKw(Kw::DEFAULT);
      p.defaultValue = parseExpr();
    }
    h.where = span(b);
    if (h.kind == Header::Kind::Param) h.param.where = h.where;
    return h;
  }

  // ------------------------------------------------------------------ statements
  StmtPtr parseTopSeq() {
    const std::size_t b = mark();
    std::vector<StmtPtr> seq = parseSeq();
    if (seq.size() == 1) return std::move(seq.front());
    auto s = std::make_unique<Stmt>();
    s->kind = Stmt::Kind::Block;
    s->body = std::move(seq);
    s->where = span(b);
    return s;
  }

  std::vector<StmtPtr> parseSeq() {
    std::vector<StmtPtr> seq;
    seq.push_back(parseStmt());
    while (acceptKw(Kw::THEN)) seq.push_back(parseStmt());
    return seq;
  }

  StmtPtr parseStmt() {
    const std::size_t b = mark();
    auto s = std::make_unique<Stmt>();
    if (accept(Tok::LBrace)) {
      s->kind = Stmt::Kind::Block;
      s->braced = true;
      ++depth_;
      if (!accept(Tok::RBrace)) {
        s->body = parseSeq();
        expect(Tok::RBrace, "or THEN");
      }
      --depth_;
    } else if (acceptKw(Kw::IF)) {
      s->kind = Stmt::Kind::If;
      s->cond = parseRel();
      expectKw(Kw::THEN);
      s->body.push_back(parseStmt());
      if (acceptKw(Kw::OTHERWISE)) s->body.push_back(parseStmt());
    } else if (acceptKw(Kw::FOR)) {
      parseFor(*s);
    } else if (acceptKw(Kw::LET)) {
      s->kind = Stmt::Kind::Let;
      do {
        s->bindings.push_back(parseBinding());
      } while (acceptKw(Kw::AND));
      expectKw(Kw::WHILE, "(or AND) after the LET bindings");
      s->body.push_back(parseStmt());
    } else if (acceptKw(Kw::ASSERT)) {
      s->kind = Stmt::Kind::Assert;
      expectKw(Kw::THAT);
      s->message = expectString("a string");
      expectKw(Kw::WITH);
      s->cond = parseRel();
    } else if (atKw(Kw::ALL) || atKw(Kw::TASK)) {
      s->tasks = parseTaskSpec();
      parseVerb(*s);
    } else {
      fail("a statement (a task description such as ALL TASKS or TASK 0, '{', IF, FOR, LET or ASSERT)");
    }
    s->where = span(b);
    return s;
  }

  void parseFor(Stmt& s) {
    if (acceptKw(Kw::EACH)) {
      s.kind = Stmt::Kind::ForEach;
      s.var = expectIdent("a loop variable", &s.varWhere);
      expectKw(Kw::IN);
      s.ranges = parseRangeList();
      s.body.push_back(parseStmt());
      return;
    }
    s.count = parseExpr();
    if (acceptKw(Kw::REPETITION)) {
      s.kind = Stmt::Kind::ForReps;
      if (acceptKw(Kw::PLUS)) {
        s.warmup = parseExpr();
        expectKw(Kw::WARMUP);
        expectKw(Kw::REPETITION);
        if (acceptKw(Kw::AND)) {
          expectKw(Kw::A);
          expectKw(Kw::SYNCHRONIZATION);
          s.warmupSync = true;
        }
      }
    } else if (at(Tok::Keyword) && isTimeUnit(cur().kw)) {
      s.kind = Stmt::Kind::ForTime;
      s.unit = toks_[i_++].kw;
      if (acceptKw(Kw::PLUS)) {
        s.warmup = parseExpr();
        expectKw(Kw::WARMUP);
        if (!(at(Tok::Keyword) && isTimeUnit(cur().kw))) fail("a time unit after WARMUP");
        s.unit2 = toks_[i_++].kw;
        if (acceptKw(Kw::AND)) {
          expectKw(Kw::A);
          expectKw(Kw::SYNCHRONIZATION);
          s.warmupSync = true;
        }
      }
    } else {
      fail("REPETITIONS or a time unit after FOR <count>");
    }
    s.body.push_back(parseStmt());
  }

  Binding parseBinding() {
    Binding bd;
    const std::size_t b = mark();
    bd.var = expectIdent("a LET variable");
    expectKw(Kw::BE);
    if (atKw(Kw::ALL) || atKw(Kw::TASK)) {
      bd.kind = Binding::Kind::TaskSet;
      bd.tasks = parseTaskSpec();
    } else if (atKw(Kw::A) && peekKw(1, Kw::RANDOM) && peekKw(2, Kw::TASK)) {
      i_ += 3;
      bd.kind = Binding::Kind::RandomTask;
      if (acceptKw(Kw::OTHER)) {
        expectKw(Kw::THAN);
        bd.limit = parseExpr();
      } else if (acceptKw(Kw::LESS) || acceptKw(Kw::GREATER)) {
        expectKw(Kw::THAN);
        bd.limit = parseExpr();
        if (acceptKw(Kw::BUT)) {
          expectKw(Kw::NOT);
          bd.butNot = parseExpr();
        }
      } else if (acceptKw(Kw::IN)) {
        expect(Tok::LBracket);
        bd.limit = parseExpr();
        expect(Tok::Comma);
        bd.limit2 = parseExpr();
        expect(Tok::RBracket);
        if (acceptKw(Kw::BUT)) {
          expectKw(Kw::NOT);
          bd.butNot = parseExpr();
        }
      }
    } else {
      bd.kind = Binding::Kind::Expr;
      bd.expr = parseExpr();
    }
    bd.where = span(b);
    return bd;
  }

  TaskSpec parseTaskSpec() {
    TaskSpec t;
    const std::size_t b = mark();
    if (acceptKw(Kw::ALL)) {
      if (acceptKw(Kw::OTHER)) {
        expectKw(Kw::TASK, "after ALL OTHER");
        t.kind = TaskSpec::Kind::AllOther;
      } else {
        expectKw(Kw::TASK, "after ALL");
        t.kind = TaskSpec::Kind::All;
        if (at(Tok::Ident)) {
          t.varWhere = cur().where;
          t.var = toks_[i_++].text;
        }
      }
    } else if (acceptKw(Kw::TASK)) {
      if (acceptKw(Kw::GROUP)) {
        t.kind = TaskSpec::Kind::Group;
        t.var = expectIdent("a task-group name", &t.varWhere);
      } else if (at(Tok::Ident) && peekKw(1, Kw::SUCH)) {
        t.kind = TaskSpec::Kind::SuchThat;
        t.varWhere = cur().where;
        t.var = toks_[i_++].text;
        ++i_;
        expectKw(Kw::THAT);
        t.cond = parseRel();
      } else if (at(Tok::Keyword) && peekKw(1, Kw::SUCH)) {
        expectIdent("a task variable");
      } else if (at(Tok::LBrace)) {
        t.kind = TaskSpec::Kind::Ranges;
        t.ranges = parseRangeList();
      } else {
        t.kind = TaskSpec::Kind::Expr;
        t.expr = parseExpr();
      }
    } else {
      fail("a task description (ALL TASKS, ALL OTHER TASKS, TASK <expr>, TASKS <var> SUCH THAT ..., TASKS {...})");
    }
    t.where = span(b);
    return t;
  }

  void parseVerb(Stmt& s) {
    if (atKw(Kw::ASYNCHRONOUSLY) || atKw(Kw::SYNCHRONOUSLY)) {
      s.modeWhere = cur().where;
      s.mode = toks_[i_++].kw;
      if (!(atKw(Kw::SEND) || atKw(Kw::RECEIVE) || atKw(Kw::MULTICAST)))
        fail("SENDS, RECEIVES or MULTICASTS after " + std::string(keywordName(*s.mode)));
    }
    if (acceptKw(Kw::SEND)) {
      s.kind = Stmt::Kind::Send;
      s.msg = parseMsgSpec(true);
      expectKw(Kw::TO, "after the message specification");
      s.unsuspecting = acceptKw(Kw::UNSUSPECTING);
      s.target = parseTaskSpec();
      if (atKw(Kw::WHO)) {
        if (s.unsuspecting)
          throw SyntaxError{cur().where, "WHO RECEIVES IT cannot follow an UNSUSPECTING target"};
        const std::size_t b = mark();
        ++i_;
        expectKw(Kw::RECEIVE);
        expectKw(Kw::IT);
        parseRecvOverride(s.override_);
        s.override_.where = span(b);
      }
    } else if (acceptKw(Kw::RECEIVE)) {
      s.kind = Stmt::Kind::Receive;
      s.msg = parseMsgSpec(false);
      expectKw(Kw::FROM, "after the message specification");
      s.target = parseTaskSpec();
    } else if (acceptKw(Kw::MULTICAST)) {
      s.kind = Stmt::Kind::Multicast;
      s.msg = parseMsgSpec(true);
      expectKw(Kw::TO, "after the message specification");
      s.target = parseTaskSpec();
    } else if (acceptKw(Kw::REDUCE)) {
      s.kind = Stmt::Kind::Reduce;
      s.msg = parseRedSpec();
      if (acceptKw(Kw::TO)) {
        if (atKw(Kw::ALL) || atKw(Kw::TASK)) {
          s.hasTarget = true;
          s.target = parseTaskSpec();
          if (atKw(Kw::WHO)) {
            const std::size_t b = mark();
            ++i_;
            expectKw(Kw::RECEIVE);
            expectKw(Kw::THE);
            expectKw(Kw::RESULT);
            parseRedOverride(s.override_);
            s.override_.where = span(b);
          }
        } else {
          s.result = parseRedSpec();
        }
      }
    } else if (acceptKw(Kw::SYNCHRONIZE)) {
      s.kind = Stmt::Kind::Synchronize;
    } else if (acceptKw(Kw::AWAIT)) {
      s.kind = Stmt::Kind::Await;
      expectKw(Kw::COMPLETION);
    } else if (acceptKw(Kw::COMPUTE)) {
      if (acceptKw(Kw::AGGREGATES)) {
        s.kind = Stmt::Kind::Aggregates;
      } else {
        s.kind = Stmt::Kind::Compute;
        expectKw(Kw::FOR, "or AGGREGATES after COMPUTES");
        parseDuration(s);
      }
    } else if (acceptKw(Kw::SLEEP)) {
      s.kind = Stmt::Kind::Sleep;
      expectKw(Kw::FOR);
      parseDuration(s);
    } else if (acceptKw(Kw::TOUCH)) {
      parseTouch(s);
    } else if (acceptKw(Kw::RESET) || acceptKw(Kw::STORE) || acceptKw(Kw::RESTORE)) {
      const Kw verb = toks_[i_ - 1].kw;
      s.kind = verb == Kw::RESET ? Stmt::Kind::Reset : verb == Kw::STORE ? Stmt::Kind::Store : Stmt::Kind::Restore;
      expectKw(Kw::ITS);
      expectKw(Kw::COUNTERS);
    } else if (acceptKw(Kw::LOG)) {
      s.kind = Stmt::Kind::Log;
      do {
        s.logs.push_back(parseLogItem());
      } while (acceptKw(Kw::AND));
    } else if (acceptKw(Kw::OUTPUT)) {
      s.kind = Stmt::Kind::Output;
      do {
        s.outputs.push_back(parseOutItem());
      } while (acceptKw(Kw::AND));
    } else if (acceptKw(Kw::BACKEND)) {
      s.kind = Stmt::Kind::BackendExec;
      expectKw(Kw::EXECUTE);
      do {
        s.outputs.push_back(parseOutItem());
      } while (acceptKw(Kw::AND));
    } else if (acceptKw(Kw::IS)) {
      s.kind = Stmt::Kind::Processor;
      expectKw(Kw::ASSIGNED);
      expectKw(Kw::TO);
      if (acceptKw(Kw::A)) {
        expectKw(Kw::RANDOM);
        expectKw(Kw::PROCESSOR);
      } else {
        expectKw(Kw::PROCESSOR);
        s.processor = parseExpr();
      }
    } else {
      fail("a verb after the task description (SENDS, RECEIVES, MULTICASTS, REDUCES, SYNCHRONIZE, AWAITS COMPLETION, "
           "COMPUTES, SLEEPS, TOUCHES, RESETS, STORES, RESTORES, LOGS, OUTPUTS, BACKEND EXECUTES, IS ASSIGNED TO)");
    }
  }

  void parseDuration(Stmt& s) {
    s.count = parseExpr();
    if (!(at(Tok::Keyword) && isTimeUnit(cur().kw)))
      fail("a time unit (MICROSECONDS, MILLISECONDS, SECONDS, MINUTES, HOURS, DAYS)");
    s.unit = toks_[i_++].kw;
  }

  void parseTouch(Stmt& s) {
    if (acceptKw(Kw::ALL)) {
      s.kind = Stmt::Kind::TouchBuffer;
      s.bufferWhich = Kw::ALL;
      expectKw(Kw::MESSAGE);
      expectKw(Kw::BUFFER);
      return;
    }
    if (acceptKw(Kw::THE)) {
      s.kind = Stmt::Kind::TouchBuffer;
      s.bufferWhich = Kw::CURRENT;
      expectKw(Kw::CURRENT);
      expectKw(Kw::MESSAGE);
      expectKw(Kw::BUFFER);
      return;
    }
    if (acceptKw(Kw::MESSAGE)) {
      s.kind = Stmt::Kind::TouchBuffer;
      expectKw(Kw::BUFFER);
      s.bufferNumber = parseExpr();
      return;
    }
    s.kind = Stmt::Kind::Touch;
    if (!atKw(Kw::A)) {
      s.touchCount = parseExpr();
      s.touchType = expectDataType();
      expectKw(Kw::OF);
    }
    expectKw(Kw::A);
    if (!atKw(Kw::MEMORY)) s.touchSize = parseItemSizeOnly();
    expectKw(Kw::MEMORY);
    expectKw(Kw::REGION);
    if (!atKw(Kw::WITH) && !atKw(Kw::THEN) && !at(Tok::Period) && !at(Tok::RBrace) && !at(Tok::End) &&
        !atKw(Kw::OTHERWISE)) {
      s.touchRepeat = parseExpr();
      expectKw(Kw::TIME);
    }
    if (acceptKw(Kw::WITH)) {
      if (acceptKw(Kw::RANDOM)) {
        expectKw(Kw::STRIDE);
        s.randomStride = true;
      } else {
        expectKw(Kw::STRIDE);
        s.strideAmount = parseExpr();
        s.strideType = expectDataType();
      }
    }
  }

  Kw expectDataType() {
    if (at(Tok::Keyword) && isDataType(cur().kw)) return toks_[i_++].kw;
    fail("a data type (BYTES, HALFWORDS, WORDS, INTEGERS, DOUBLEWORDS, QUADWORDS, PAGES)");
  }

  Kw expectSizeUnit() {
    if (at(Tok::Keyword) && isSizeUnit(cur().kw)) return toks_[i_++].kw;
    if (at(Tok::Ident) && (cur().text == "kilobytes" || cur().text == "megabytes" || cur().text == "gigabytes"))
      throw SyntaxError{cur().where, "KILOBYTE, MEGABYTE and GIGABYTE have no plural form (§1.6): write '2 MEGABYTE'"};
    fail("a size unit (BYTES, KILOBYTE, ...)");
  }

  // item_size without alignment, for TOUCHES … A item_size MEMORY REGION.
  Sized parseItemSizeOnly() {
    const std::size_t b = mark();
    Sized sz;
    if (at(Tok::Keyword) && isDataType(cur().kw) && peekKw(1, Kw::SIZED)) {
      sz.unit = toks_[i_].kw;
      i_ += 2;
    } else {
      sz.amount = parseExpr();
      sz.unit = expectSizeUnit();
    }
    sz.where = span(b);
    return sz;
  }

  // ------------------------------------------------------------------ message specifications
  void parseCount(MsgSpec& m) {
    if (acceptKw(Kw::A)) {
      m.countIsA = true;
      return;
    }
    m.count = parseExpr();
  }

  bool atAlignWord() const { return atKw(Kw::ALIGNED) || atKw(Kw::MISALIGNED); }

  // `(expr size_unit | data_type) (ALIGNED | MISALIGNED)` or UNALIGNED, when present.
  void parseAlignment(Alignment& a, Kw terminator) {
    const std::size_t b = mark();
    if (acceptKw(Kw::UNALIGNED)) {
      a.kind = Alignment::Kind::Unaligned;
    } else if (at(Tok::Keyword) && isDataType(cur().kw) && (peekKw(1, Kw::ALIGNED) || peekKw(1, Kw::MISALIGNED))) {
      a.by.unit = toks_[i_++].kw;
      a.kind = atKw(Kw::ALIGNED) ? Alignment::Kind::Aligned : Alignment::Kind::Misaligned;
      ++i_;
    } else if (!atKw(terminator) && !(at(Tok::Keyword) && isDataType(cur().kw))) {
      a.by.amount = parseExpr();
      a.by.unit = expectSizeUnit();
      if (!atAlignWord()) fail("ALIGNED or MISALIGNED");
      a.kind = atKw(Kw::ALIGNED) ? Alignment::Kind::Aligned : Alignment::Kind::Misaligned;
      ++i_;
    } else {
      return;
    }
    a.where = span(b);
    a.by.where = a.where;
  }

  MsgSpec parseMsgSpec(bool send) {
    MsgSpec m;
    const std::size_t b = mark();
    parseCount(m);
    if (atKw(Kw::UNIQUE) || atKw(Kw::NONUNIQUE)) m.unique = toks_[i_++].kw;
    // [item_size] [alignment], then MESSAGES (§2.4 item 5: the count comes first).
    if (atKw(Kw::MESSAGE)) {
      // no size: zero-byte messages
    } else if (atKw(Kw::UNALIGNED)) {
      parseAlignment(m.align, Kw::MESSAGE);
    } else if (at(Tok::Keyword) && isDataType(cur().kw)) {
      if (peekKw(1, Kw::SIZED)) {
        const std::size_t sb = mark();
        Sized sz;
        sz.unit = toks_[i_].kw;
        i_ += 2;
        sz.where = span(sb);
        m.size = std::move(sz);
        parseAlignment(m.align, Kw::MESSAGE);
      } else if (peekKw(1, Kw::ALIGNED) || peekKw(1, Kw::MISALIGNED)) {
        parseAlignment(m.align, Kw::MESSAGE);
      } else {
        throw SyntaxError{cur().where, "a bare data type needs SIZED or ALIGNED, and the message count comes first "
                                       "(§2.4): write e.g. 'A 8 BYTE MESSAGE' or '4 8 BYTE MESSAGES'"};
      }
    } else {
      const std::size_t sb = mark();
      Sized sz;
      sz.amount = parseExpr();
      sz.unit = expectSizeUnit();
      sz.where = span(sb);
      if (atAlignWord()) {
        // `3 64 BYTE ALIGNED MESSAGES`: the size was an alignment (zero-byte messages).
        m.align.kind = atKw(Kw::ALIGNED) ? Alignment::Kind::Aligned : Alignment::Kind::Misaligned;
        ++i_;
        m.align.by = std::move(sz);
        m.align.where = span(sb);
      } else {
        m.size = std::move(sz);
        parseAlignment(m.align, Kw::MESSAGE);
      }
    }
    expectKw(Kw::MESSAGE, "after the message size");
    parseTouching(m.touching, m.touchingWhere);
    parseTag(m.tag);
    if (send ? atKw(Kw::FROM) && (peekKw(1, Kw::BUFFER) || peekKw(1, Kw::THE) || !startsTaskSpecAt(1))
             : atKw(Kw::INTO)) {
      parseBuffer(m.buffer);
    }
    m.where = span(b);
    return m;
  }

  bool startsTaskSpecAt(std::size_t k) const { return peekKw(k, Kw::ALL) || peekKw(k, Kw::TASK); }

  MsgSpec parseRedSpec() {
    MsgSpec m;
    const std::size_t b = mark();
    parseCount(m);
    if (atKw(Kw::UNIQUE) || atKw(Kw::NONUNIQUE)) m.unique = toks_[i_++].kw;
    parseAlignment(m.align, Kw::None);
    m.dataTypeWhere = cur().where;
    m.dataType = expectDataType();
    parseTouching(m.touching, m.touchingWhere);
    parseTag(m.tag);
    if (atKw(Kw::FROM)) parseBuffer(m.buffer);
    m.where = span(b);
    return m;
  }

  void parseTouching(Touching& t, SourceRange& where) {
    const std::size_t b = mark();
    if ((atKw(Kw::WITH) || atKw(Kw::WITHOUT)) && (peekKw(1, Kw::DATA) || peekKw(1, Kw::VERIFICATION))) {
      const bool with = atKw(Kw::WITH);
      ++i_;
      if (acceptKw(Kw::DATA)) {
        expectKw(Kw::TOUCHING);
        t = with ? Touching::WithDataTouching : Touching::WithoutDataTouching;
      } else {
        ++i_;
        t = with ? Touching::WithVerification : Touching::WithoutVerification;
      }
      where = span(b);
    }
  }

  void parseTag(Tag& tag) {
    const std::size_t b = mark();
    if (!acceptKw(Kw::USING)) return;
    expectKw(Kw::TAG);
    tag.present = true;
    if (at(Tok::String))
      tag.string = toks_[i_++].text;
    else
      tag.expr = parseExpr();
    tag.where = span(b);
  }

  // FROM/INTO [expr size_unit INTO] (BUFFER expr | THE DEFAULT BUFFER)
  void parseBuffer(Buffer& buf) {
    const std::size_t b = mark();
    ++i_;  // FROM or INTO
    buf.present = true;
    if (!atKw(Kw::BUFFER) && !atKw(Kw::THE)) {
      Sized off;
      const std::size_t ob = mark();
      off.amount = parseExpr();
      off.unit = expectSizeUnit();
      off.where = span(ob);
      buf.offset = std::move(off);
      expectKw(Kw::INTO);
    }
    if (acceptKw(Kw::THE)) {
      expectKw(Kw::DEFAULT);
      expectKw(Kw::BUFFER);
    } else {
      expectKw(Kw::BUFFER);
      buf.number = parseExpr();
    }
    buf.where = span(b);
  }

  void parseRecvOverride(Override& o) {
    o.present = true;
    if (atKw(Kw::ASYNCHRONOUSLY) || atKw(Kw::SYNCHRONOUSLY)) o.mode = toks_[i_++].kw;
    if (acceptKw(Kw::AS)) {
      o.hasAs = true;
      acceptKw(Kw::A);
      if (atKw(Kw::UNIQUE) || atKw(Kw::NONUNIQUE)) o.as.unique = toks_[i_++].kw;
      parseAlignment(o.as.align, Kw::MESSAGE);
      expectKw(Kw::MESSAGE);
    }
    parseTouching(o.touching, o.touchingWhere);
    parseTag(o.tag);
    if (atKw(Kw::INTO)) parseBuffer(o.buffer);
    if (!o.mode && !o.hasAs && o.touching == Touching::None && !o.tag.present && !o.buffer.present)
      fail("what the receiver does differently after WHO RECEIVES IT (a mode, AS ... MESSAGES, a touching clause, "
           "a tag or a buffer)");
  }

  void parseRedOverride(Override& o) {
    o.present = true;
    if (acceptKw(Kw::AS)) {
      o.hasAs = true;
      const std::size_t b = mark();
      parseCount(o.as);
      if (atKw(Kw::UNIQUE) || atKw(Kw::NONUNIQUE)) o.as.unique = toks_[i_++].kw;
      parseAlignment(o.as.align, Kw::None);
      o.as.dataTypeWhere = cur().where;
      o.as.dataType = expectDataType();
      o.as.where = span(b);
    }
    parseTouching(o.touching, o.touchingWhere);
    parseTag(o.tag);
    if (atKw(Kw::INTO)) parseBuffer(o.buffer);
  }

  // ------------------------------------------------------------------ LOGS and OUTPUTS
  AggrFunc parseAggrFunc() {
    AggrFunc f;
    const std::size_t b = mark();
    if (acceptKw(Kw::ARITHMETIC)) {
      expectKw(Kw::MEAN);
      f.func = Kw::MEAN;
    } else if (acceptKw(Kw::HARMONIC) || acceptKw(Kw::GEOMETRIC)) {
      f.func = toks_[i_ - 1].kw;
      expectKw(Kw::MEAN);
    } else if (acceptKw(Kw::MEDIAN)) {
      f.func = Kw::MEDIAN;
      if (acceptKw(Kw::ABSOLUTE)) {
        expectKw(Kw::DEVIATION);
        f.func = Kw::ABSOLUTE;
      }
    } else if (acceptKw(Kw::STANDARD)) {
      expectKw(Kw::DEVIATION);
      f.func = Kw::STANDARD;
    } else if (at(Tok::Keyword) && isAggrStart(cur().kw)) {
      f.func = toks_[i_++].kw;
    } else {
      f.percentile = parseExpr();
      expectKw(Kw::PERCENTILE);
      f.func = Kw::PERCENTILE;
    }
    f.where = span(b);
    return f;
  }

  // After `AND [THE]` inside a function list: another aggregate function follows.
  bool aggrFollows() const {
    std::size_t k = 1;
    if (peekKw(k, Kw::THE)) ++k;
    const Token& t = peekTok(k);
    if (t.kind == Tok::Keyword && isAggrStart(t.kw)) return true;
    return t.kind == Tok::Integer && peekKw(k + 1, Kw::PERCENTILE);
  }

  LogItem parseLogItem() {
    LogItem it;
    const std::size_t b = mark();
    if (acceptKw(Kw::EACH)) {
      it.aggregate = LogItem::Aggregate::Each;
      it.expr = parseExpr();
    } else if (atKw(Kw::A) && peekKw(1, Kw::HISTOGRAM)) {
      i_ += 2;
      expectKw(Kw::OF);
      acceptKw(Kw::THE);
      it.aggregate = LogItem::Aggregate::Histogram;
      it.expr = parseExpr();
    } else if (acceptKw(Kw::THE)) {
      bool funcs = at(Tok::Keyword) && isAggrStart(cur().kw);
      ExprPtr first;
      if (!funcs) {
        first = parseExpr();
        if (atKw(Kw::PERCENTILE)) {
          ++i_;
          AggrFunc f;
          f.func = Kw::PERCENTILE;
          f.where = span(b);
          f.percentile = std::move(first);
          it.funcs.push_back(std::move(f));
          funcs = true;
        }
      } else {
        it.funcs.push_back(parseAggrFunc());
      }
      if (funcs) {
        it.aggregate = LogItem::Aggregate::Funcs;
        while (atKw(Kw::AND) && aggrFollows()) {
          ++i_;
          acceptKw(Kw::THE);
          it.funcs.push_back(parseAggrFunc());
        }
        if (acceptKw(Kw::OF)) acceptKw(Kw::THE);
        it.expr = parseExpr();
      } else {
        it.aggregate = LogItem::Aggregate::The;
        it.expr = std::move(first);
      }
    } else {
      it.aggregate = LogItem::Aggregate::Each;
      it.expr = parseExpr();
    }
    expectKw(Kw::AS, "and a column label after the logged expression");
    if (acceptKw(Kw::THE)) {
      expectKw(Kw::VALUE);
      expectKw(Kw::OF);
      it.labelIsValueOf = true;
    }
    it.label = expectString("a column label string");
    it.where = span(b);
    return it;
  }

  OutItem parseOutItem() {
    OutItem o;
    const std::size_t b = mark();
    if (at(Tok::String)) {
      o.kind = OutItem::Kind::String;
      o.text = toks_[i_++].text;
    } else if (atKw(Kw::THE) && peekKw(1, Kw::VALUE)) {
      i_ += 2;
      expectKw(Kw::OF);
      o.kind = OutItem::Kind::ValueOf;
      o.text = expectString("a string");
    } else {
      o.kind = OutItem::Kind::Expr;
      o.expr = parseExpr();
    }
    o.where = span(b);
    return o;
  }

  // ------------------------------------------------------------------ relational expressions
  RelPtr parseRel() {
    const std::size_t b = mark();
    RelPtr l = parseRelAnd();
    while (accept(Tok::LogOr)) {
      auto n = std::make_unique<RelExpr>();
      n->kind = RelExpr::Kind::Or;
      n->left = std::move(l);
      n->right = parseRelAnd();
      n->where = span(b);
      l = std::move(n);
    }
    return l;
  }

  RelPtr parseRelAnd() {
    const std::size_t b = mark();
    RelPtr l = parseRelAtom();
    while (accept(Tok::LogAnd)) {
      auto n = std::make_unique<RelExpr>();
      n->kind = RelExpr::Kind::And;
      n->left = std::move(l);
      n->right = parseRelAtom();
      n->where = span(b);
      l = std::move(n);
    }
    return l;
  }

  static bool continuesArithmetic(const Token& t) {
    switch (t.kind) {
      case Tok::Plus: case Tok::Minus: case Tok::Star: case Tok::Slash: case Tok::Power: case Tok::Shl:
      case Tok::Shr: case Tok::Amp: case Tok::Pipe: case Tok::Eq: case Tok::Ne: case Tok::Lt: case Tok::Gt:
      case Tok::Le: case Tok::Ge:
        return true;
      case Tok::Keyword:
        return t.kw == Kw::MOD || t.kw == Kw::XOR || t.kw == Kw::DIVIDES || t.kw == Kw::IS || t.kw == Kw::IF;
      default:
        return false;
    }
  }

  RelPtr parseRelAtom() {
    const std::size_t b = mark();
    if (at(Tok::LParen)) {
      // `( rel_expr )` or an arithmetic expression that starts with '(' (§2.4): try the former.
      const std::size_t save = i_;
      const int savedDepth = depth_;
      try {
        ++i_;
        RelPtr r = parseRel();
        expect(Tok::RParen);
        if (!continuesArithmetic(cur())) return r;
      } catch (const SyntaxError&) {
      }
      i_ = save;
      depth_ = savedDepth;
    }
    auto n = std::make_unique<RelExpr>();
    n->lhs = parseExpr();
    switch (cur().kind) {
      case Tok::Eq: case Tok::Ne: case Tok::Lt: case Tok::Gt: case Tok::Le: case Tok::Ge:
        n->kind = RelExpr::Kind::Compare;
        n->op = toks_[i_++].kind;
        n->rhs = parseExpr();
        break;
      default:
        if (acceptKw(Kw::DIVIDES)) {
          n->kind = RelExpr::Kind::Divides;
          n->rhs = parseExpr();
        } else if (acceptKw(Kw::IS)) {
          if (acceptKw(Kw::EVEN)) {
            n->kind = RelExpr::Kind::Even;
          } else if (acceptKw(Kw::ODD)) {
            n->kind = RelExpr::Kind::Odd;
          } else {
            n->negated = acceptKw(Kw::NOT);
            expectKw(Kw::IN, n->negated ? "after IS NOT" : "(or EVEN, ODD, NOT IN) after IS");
            if (accept(Tok::LBracket)) {
              n->kind = RelExpr::Kind::InInterval;
              n->lo = parseExpr();
              expect(Tok::Comma);
              n->hi = parseExpr();
              expect(Tok::RBracket);
            } else {
              n->kind = RelExpr::Kind::In;
              n->ranges = parseRangeList();
            }
          }
        } else {
          fail("a comparison (=, <>, <, >, <=, >=, DIVIDES, IS EVEN, IS ODD, IS [NOT] IN)");
        }
    }
    n->where = span(b);
    return n;
  }

  // ------------------------------------------------------------------ ranges
  std::vector<Range> parseRangeList() {
    std::vector<Range> rs;
    rs.push_back(parseRange());
    while (at(Tok::Comma) && peekTok(1).kind == Tok::LBrace) {
      ++i_;
      rs.push_back(parseRange());
    }
    return rs;
  }

  Range parseRange() {
    Range r;
    const std::size_t b = mark();
    expect(Tok::LBrace, "to open a range");
    ExprPtr first = parseExpr();
    if (atKw(Kw::FOR)) {
      r.kind = Range::Kind::Comprehension;
      r.expr = std::move(first);
      while (acceptKw(Kw::FOR)) {
        expectKw(Kw::EACH);
        Generator g;
        g.var = expectIdent("a generator variable", &g.varWhere);
        expectKw(Kw::IN);
        g.ranges = parseRangeList();
        r.generators.push_back(std::move(g));
        if (acceptKw(Kw::WHERE)) {
          r.where_ = parseRel();
          break;
        }
      }
      expect(Tok::RBrace, "to close the list comprehension");
    } else {
      r.items.push_back(std::move(first));
      r.kind = Range::Kind::List;
      while (accept(Tok::Comma)) {
        if (accept(Tok::Ellipsis)) {
          r.kind = Range::Kind::Progression;
          expect(Tok::Comma, "after '...'");
          r.bound = parseExpr();
          break;
        }
        r.items.push_back(parseExpr());
      }
      expect(Tok::RBrace, "to close the range");
    }
    r.where = span(b);
    return r;
  }

  // ------------------------------------------------------------------ arithmetic expressions
  ExprPtr node(Expr::Kind k, std::size_t b) {
    auto e = std::make_unique<Expr>();
    e->kind = k;
    e->where = span(b);
    return e;
  }

  ExprPtr parseExpr() {
    const std::size_t b = mark();
    ExprPtr e = parseAdd();
    if (acceptKw(Kw::IF)) {
      auto c = std::make_unique<Expr>();
      c->kind = Expr::Kind::Cond;
      c->cond = parseRel();
      expectKw(Kw::OTHERWISE, "in the conditional expression 'a IF condition OTHERWISE b'");
      c->args.push_back(std::move(e));
      c->args.push_back(parseExpr());
      c->where = span(b);
      return c;
    }
    return e;
  }

  ExprPtr binary(ExprPtr l, Tok op, Kw kw, ExprPtr r, std::size_t b) {
    auto n = node(Expr::Kind::Binary, b);
    n->op = op;
    n->func = kw;
    n->args.push_back(std::move(l));
    n->args.push_back(std::move(r));
    return n;
  }

  ExprPtr parseAdd() {
    const std::size_t b = mark();
    ExprPtr l = parseMul();
    while (true) {
      if (at(Tok::Plus) || at(Tok::Minus) || at(Tok::Pipe)) {
        Tok op = toks_[i_++].kind;
        ExprPtr r = parseMul();
        l = binary(std::move(l), op, Kw::None, std::move(r), b);
      } else if (acceptKw(Kw::XOR)) {
        ExprPtr r = parseMul();
        l = binary(std::move(l), Tok::Keyword, Kw::XOR, std::move(r), b);
      } else {
        return l;
      }
    }
  }

  ExprPtr parseMul() {
    const std::size_t b = mark();
    ExprPtr l = parseUnary();
    while (true) {
      if (at(Tok::Star) || at(Tok::Slash) || at(Tok::Shl) || at(Tok::Shr) || at(Tok::Amp)) {
        Tok op = toks_[i_++].kind;
        ExprPtr r = parseUnary();
        l = binary(std::move(l), op, Kw::None, std::move(r), b);
      } else if (acceptKw(Kw::MOD)) {
        ExprPtr r = parseUnary();
        l = binary(std::move(l), Tok::Keyword, Kw::MOD, std::move(r), b);
      } else {
        return l;
      }
    }
  }

  ExprPtr parseUnary() {
    const std::size_t b = mark();
    if (at(Tok::Plus) || at(Tok::Minus) || atKw(Kw::NOT)) {
      const Token& t = toks_[i_++];
      auto n = std::make_unique<Expr>();
      n->kind = Expr::Kind::Unary;
      n->op = t.kind;
      n->func = t.kind == Tok::Keyword ? Kw::NOT : Kw::None;
      n->args.push_back(parseUnary());
      n->where = span(b);
      return n;
    }
    ExprPtr p = parsePrimary();
    if (accept(Tok::Power)) {
      ExprPtr r = parseUnary();
      return binary(std::move(p), Tok::Power, Kw::None, std::move(r), b);
    }
    return p;
  }

  std::vector<ExprPtr> parseArgs() {
    std::vector<ExprPtr> args;
    expect(Tok::LParen, "after the function name");
    args.push_back(parseExpr());
    while (accept(Tok::Comma)) args.push_back(parseExpr());
    expect(Tok::RParen, "to close the argument list");
    return args;
  }

  ExprPtr parsePrimary() {
    const std::size_t b = mark();
    if (at(Tok::Integer)) {
      auto e = node(Expr::Kind::Int, b);
      e->value = toks_[i_].value;
      e->where = toks_[i_].where;
      ++i_;
      return e;
    }
    if (at(Tok::Ident)) {
      auto e = node(Expr::Kind::Var, b);
      e->name = toks_[i_].text;
      e->where = toks_[i_].where;
      ++i_;
      return e;
    }
    if (accept(Tok::LParen)) {
      ExprPtr e = parseExpr();
      expect(Tok::RParen, "to close the parenthesis");
      return e;
    }
    if (at(Tok::Keyword)) {
      const Kw k = cur().kw;
      if ((isFuncName(k) || k == Kw::REAL) && peekTok(1).kind == Tok::LParen) {
        ++i_;
        std::vector<ExprPtr> args = parseArgs();
        auto e = node(Expr::Kind::Call, b);
        e->func = k;
        e->args = std::move(args);
        return e;
      }
      if (k == Kw::MESH_NEIGHBOR || k == Kw::MESH_COORDINATE || k == Kw::MESH_DISTANCE) return parseMesh(b);
      if (k == Kw::MY && peekKw(1, Kw::TASK)) {
        i_ += 2;
        return node(Expr::Kind::MyTask, b);
      }
      if (k == Kw::FILE_DATA || k == Kw::STATIC_FILE_DATA) return parseFileData(b);
      std::string msg = "expected an expression, found '" + cur().text + "'";
      if (looksLikeName(k) && !(isFuncName(k) && peekTok(1).kind == Tok::LParen))
        msg += " (a keyword; keywords cannot be used as variable names, §1.3)";
      throw SyntaxError{cur().where, msg};
    }
    fail("an expression");
  }

  ExprPtr parseMesh(std::size_t b) {
    const Kw k = toks_[i_++].kw;
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::Mesh;
    e->func = k;
    expect(Tok::LParen);
    expect(Tok::LParen, "to open the mesh dimensions, e.g. MESH_NEIGHBOR((4, 3), t, (1, 0))");
    do {
      e->args.push_back(parseExpr());
      e->wrap.push_back(accept(Tok::WrapStar));
    } while (accept(Tok::Comma));
    expect(Tok::RParen, "to close the mesh dimensions");
    e->dims = e->args.size();
    expect(Tok::Comma);
    e->args.push_back(parseExpr());
    expect(Tok::Comma);
    if (k == Kw::MESH_NEIGHBOR) {
      expect(Tok::LParen, "to open the offsets");
      do {
        e->args.push_back(parseExpr());
      } while (accept(Tok::Comma));
      expect(Tok::RParen, "to close the offsets");
    } else {
      e->args.push_back(parseExpr());
    }
    expect(Tok::RParen);
    e->where = span(b);
    return e;
  }

  ExprPtr parseFileData(std::size_t b) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Kind::FileData;
    e->func = toks_[i_++].kw;
    expect(Tok::LParen);
    e->strings.push_back(expectString("a file name"));
    if (accept(Tok::Comma)) {
      e->args.push_back(parseExpr());
      if (accept(Tok::Comma)) {
        e->args.push_back(parseExpr());
        if (accept(Tok::Comma)) {
          e->strings.push_back(expectString("a column-separator string"));
          if (accept(Tok::Comma)) e->strings.push_back(expectString("a row-separator string"));
        }
      }
    }
    expect(Tok::RParen);
    e->where = span(b);
    return e;
  }

  std::vector<Token> toks_;
  std::vector<Diagnostic> diags_;
  std::size_t i_ = 0;
  int depth_ = 0;  // braces open, for the '.'-inside-braces hint
};

}  // namespace

ParseResult parse(std::string_view source) { return Parser(source).run(); }

}  // namespace tracegen::ncptl
