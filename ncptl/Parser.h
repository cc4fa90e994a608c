// The coNCePTuaL 1.5 parser of the checker: recursive descent over the grammar of §2.2 of the
// language reference, building the syntax tree below.
//
// It accepts the whole grammar (a full parser must, §2.1), not only the «G» subset a generator
// emits; the checker (Checker.h) decides what is legal where, including whether a construct is
// outside «G». Each node records whether it is in «G» only where that is not obvious from its
// kind. Precedence and the ambiguities follow §2.3–2.4: loop, IF and LET bodies are one
// statement, OTHERWISE binds to the nearest IF, `( … )` at the start of a relational
// expression is tried as a parenthesised relation first and as arithmetic otherwise, and the
// clauses of a message specification must come in their fixed order. A syntax error is
// reported with the offending token and the parser resumes after the next top-level `.`, so
// independent statements still get checked.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ncptl/Lexer.h"

namespace tracegen::ncptl {

struct RelExpr;
struct Range;

// ---------------------------------------------------------------------------- expressions

struct Expr {
  enum class Kind {
    Int,       // value
    Var,       // name
    Unary,     // op (Plus, Minus, or Keyword NOT), args[0]
    Binary,    // op / opKw (MOD, XOR), args[0], args[1]
    Cond,      // args[0] IF cond OTHERWISE args[1]
    Call,      // func(args...): func_name or REAL
    Mesh,      // func = MESH_NEIGHBOR/COORDINATE/DISTANCE; args[0..dims) are the dimensions
               // (wrap[i] marks periodic ones), then the task, then the offsets or second arg
    MyTask,    // MY TASK
    FileData,  // func = FILE_DATA/STATIC_FILE_DATA; strings, args
  };
  Kind kind = Kind::Int;
  SourceRange where;
  std::int64_t value = 0;
  std::string name;
  Tok op = Tok::End;
  Kw func = Kw::None;  // Call/Mesh/FileData; Binary/Unary word operators (MOD, XOR, NOT)
  std::vector<std::unique_ptr<Expr>> args;
  std::vector<bool> wrap;  // Mesh: one per dimension
  std::size_t dims = 0;    // Mesh
  std::unique_ptr<RelExpr> cond;
  std::vector<std::string> strings;  // FileData
};
using ExprPtr = std::unique_ptr<Expr>;

struct Generator {
  std::string var;
  SourceRange varWhere;
  std::vector<Range> ranges;
};

struct Range {
  enum class Kind { List, Progression, Comprehension };
  Kind kind = Kind::List;
  SourceRange where;
  std::vector<ExprPtr> items;  // List: the values; Progression: the leading values
  ExprPtr bound;               // Progression: the value after "..."
  ExprPtr expr;                // Comprehension: the element expression
  std::vector<Generator> generators;
  std::unique_ptr<RelExpr> where_;  // Comprehension: WHERE condition (after the last generator)
};

struct RelExpr {
  enum class Kind { Compare, Divides, Even, Odd, In, InInterval, And, Or };
  Kind kind = Kind::Compare;
  SourceRange where;
  Tok op = Tok::End;  // Compare
  bool negated = false;  // IS NOT IN
  ExprPtr lhs, rhs;      // Compare, Divides (lhs DIVIDES rhs), Even/Odd/In (lhs)
  ExprPtr lo, hi;        // InInterval (deprecated `IS IN [lo, hi]`)
  std::vector<Range> ranges;  // In
  std::unique_ptr<RelExpr> left, right;  // And, Or
};
using RelPtr = std::unique_ptr<RelExpr>;

// ---------------------------------------------------------------------------- task descriptions

struct TaskSpec {
  enum class Kind {
    All,       // ALL TASKS [var]
    AllOther,  // ALL OTHER TASKS
    SuchThat,  // TASKS var SUCH THAT cond
    Ranges,    // TASKS range_list
    Expr,      // TASK expr
    Group,     // TASK GROUP var
  };
  Kind kind = Kind::All;
  SourceRange where;
  std::string var;  // All (may be empty), SuchThat, Group
  SourceRange varWhere;
  RelPtr cond;
  std::vector<Range> ranges;
  ExprPtr expr;
  // True if the description binds a variable of the acting task, visible or hidden: a named
  // ALL TASKS, SUCH THAT, TASK GROUP, and the range-list form (whose hidden variable makes
  // range lists on both sides of one RECEIVE ambiguous, §3.1).
  bool declaresVariable() const {
    return (kind == Kind::All && !var.empty()) || kind == Kind::SuchThat || kind == Kind::Group ||
           kind == Kind::Ranges;
  }
};

// ---------------------------------------------------------------------------- messages

// An expression with a unit (`64 BYTES`, `2 KILOBYTE`), or a bare data type (`DOUBLEWORD`).
struct Sized {
  ExprPtr amount;  // null for a bare data type
  Kw unit = Kw::None;
  SourceRange where;
};

enum class Touching { None, WithDataTouching, WithoutDataTouching, WithVerification, WithoutVerification };

struct Alignment {
  enum class Kind { None, Unaligned, Aligned, Misaligned };
  Kind kind = Kind::None;
  Sized by;
  SourceRange where;
};

struct Buffer {
  bool present = false;
  SourceRange where;
  std::optional<Sized> offset;  // `… BYTES INTO`
  ExprPtr number;               // BUFFER expr; null for THE DEFAULT BUFFER
};

struct Tag {
  bool present = false;
  SourceRange where;
  ExprPtr expr;
  std::optional<std::string> string;
};

// msg_spec / recv_msg_spec (§2.2) and the count/type part of a red_spec.
struct MsgSpec {
  SourceRange where;
  bool countIsA = false;  // `A` (= 1)
  ExprPtr count;
  std::optional<Kw> unique;  // UNIQUE or NONUNIQUE
  std::optional<Sized> size;  // item size: `expr unit`, or `data_type SIZED` (amount null)
  Alignment align;
  Touching touching = Touching::None;
  SourceRange touchingWhere;
  Tag tag;
  Buffer buffer;  // FROM … (send) or INTO … (receive)
  Kw dataType = Kw::None;  // red_spec only: INTEGERS, DOUBLEWORDS, …
  SourceRange dataTypeWhere;
};

// recv_override / red_override: what the implicit receive changes.
struct Override {
  bool present = false;
  SourceRange where;
  std::optional<Kw> mode;  // ASYNCHRONOUSLY / SYNCHRONOUSLY
  bool hasAs = false;      // AS … MESSAGES / AS count data_type
  MsgSpec as;              // only the fields the grammar allows are set
  Touching touching = Touching::None;
  SourceRange touchingWhere;
  Tag tag;
  Buffer buffer;
};

// ---------------------------------------------------------------------------- statements

struct Stmt;
using StmtPtr = std::unique_ptr<Stmt>;

struct Binding {
  enum class Kind { Expr, TaskSet, RandomTask };
  Kind kind = Kind::Expr;
  std::string var;
  SourceRange where;
  ExprPtr expr;
  TaskSpec tasks;
  // RandomTask: OTHER THAN / LESS THAN / GREATER THAN / IN [lo, hi], BUT NOT
  ExprPtr limit, limit2, butNot;
};

struct AggrFunc {
  Kw func = Kw::None;  // MEAN (ARITHMETIC MEAN), HARMONIC, GEOMETRIC, MEDIAN, STANDARD, ABSOLUTE
                       // (MEDIAN ABSOLUTE DEVIATION), VARIANCE, SUM, MINIMUM, MAXIMUM, FINAL,
                       // PERCENTILE (with `percentile`)
  ExprPtr percentile;
  SourceRange where;
};

struct LogItem {
  enum class Aggregate { Each, The, Funcs, Histogram };
  Aggregate aggregate = Aggregate::Each;
  std::vector<AggrFunc> funcs;
  ExprPtr expr;
  std::string label;
  bool labelIsValueOf = false;  // THE VALUE OF "…"
  SourceRange where;
};

struct OutItem {
  enum class Kind { String, ValueOf, Expr };
  Kind kind = Kind::String;
  std::string text;
  ExprPtr expr;
  SourceRange where;
};

struct Stmt {
  enum class Kind {
    Block,        // { body THEN … } or { }
    If,           // IF cond THEN body[0] [OTHERWISE body[1]]
    ForReps,      // FOR count REPETITIONS [PLUS warmup WARMUP REPETITIONS [AND A SYNCHRONIZATION]] body[0]
    ForEach,      // FOR EACH var IN ranges body[0]
    ForTime,      // FOR count time_unit [PLUS warmup WARMUP time_unit [...]] body[0]
    Let,          // LET bindings WHILE body[0]
    Send,
    Receive,
    Multicast,
    Reduce,
    Synchronize,
    Await,
    Compute,      // COMPUTES FOR count unit
    Sleep,
    Touch,        // TOUCHES … MEMORY REGION …
    TouchBuffer,  // TOUCHES … MESSAGE BUFFER(S)
    Reset,
    Store,
    Restore,
    Aggregates,   // COMPUTES AGGREGATES
    Log,
    Output,
    BackendExec,
    Assert,
    Processor,    // IS ASSIGNED TO [A RANDOM] PROCESSOR …
  };
  Kind kind = Kind::Block;
  SourceRange where;
  std::vector<StmtPtr> body;  // Block: the sequence; If/loops/Let: see above
  bool braced = false;        // Block: written with braces

  RelPtr cond;                // If, Assert
  ExprPtr count;              // ForReps/ForTime trip count or duration; Compute/Sleep duration
  ExprPtr warmup;             // ForReps/ForTime
  bool warmupSync = false;
  Kw unit = Kw::None;         // ForTime/Compute/Sleep time unit; ForTime warm-up unit in unit2
  Kw unit2 = Kw::None;
  std::string var;            // ForEach
  SourceRange varWhere;
  std::vector<Range> ranges;  // ForEach
  std::vector<Binding> bindings;  // Let

  TaskSpec tasks;             // the acting tasks (RECEIVE: the receivers)
  TaskSpec target;            // SEND/MULTICAST: TO side; RECEIVE: FROM side; REDUCE: TO side
  bool hasTarget = false;     // REDUCE … TO task_spec
  std::optional<Kw> mode;     // ASYNCHRONOUSLY / SYNCHRONOUSLY
  SourceRange modeWhere;
  bool unsuspecting = false;
  MsgSpec msg;                // SEND/RECEIVE/MULTICAST message; REDUCE source spec
  std::optional<MsgSpec> result;  // REDUCE … TO red_spec
  Override override_;         // WHO RECEIVES IT … / WHO RECEIVES THE RESULT …

  std::vector<LogItem> logs;
  std::vector<OutItem> outputs;  // OUTPUT, BACKEND EXECUTES
  std::string message;           // ASSERT string
  // TOUCH: expr data_type OF, item size, TIMES, stride; TouchBuffer: ALL / CURRENT / number
  ExprPtr touchCount, touchRepeat, strideAmount, bufferNumber;
  Kw touchType = Kw::None, strideType = Kw::None;
  std::optional<Sized> touchSize;
  bool randomStride = false;
  Kw bufferWhich = Kw::None;  // ALL, CURRENT, or None (numbered)
  ExprPtr processor;          // Processor: null for A RANDOM PROCESSOR
};

// ---------------------------------------------------------------------------- program

struct ParamDecl {
  std::string var;
  std::string description, longOption, shortOption;
  ExprPtr defaultValue;
  SourceRange where, longWhere, shortWhere;
};

struct Header {
  enum class Kind { Param, Version, Backend };
  Kind kind = Kind::Param;
  SourceRange where;
  ParamDecl param;
  std::string text;  // Version string / Backend declaration
  bool terminated = false;  // followed by '.'
};

struct TopStmt {
  StmtPtr stmt;
  bool terminated = false;  // followed by '.'
};

struct Program {
  std::vector<Header> headers;
  std::vector<TopStmt> statements;
};

struct ParseResult {
  Program program;
  std::vector<Diagnostic> diagnostics;  // lexical and syntax errors
};

ParseResult parse(std::string_view source);

}  // namespace tracegen::ncptl
