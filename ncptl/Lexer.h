// The coNCePTuaL 1.5 lexer of the checker (language reference §1).
//
// It turns program text into tokens the way the 1.5.1b lexer does: keywords and identifiers
// are case-insensitive (identifiers are folded to lower case), synonym pairs (§1.6: SENDS =
// SEND, AN = A, THEM = IT, …) become one keyword, integer literals carry their scale suffix
// (64K, 8E3, 95TH), strings keep their case and escapes, `#` starts a comment, `*` right before
// `,` or `)` is the wrap-around star of MESH_NEIGHBOR, and a `-` right before a keyword is
// deleted (the hyphen rule, §1.7). The deletion is reported as an error where it changes the
// meaning of an expression (`-ABS(x)`, `a - MAX(b, c)`), since generated code must never rely
// on it (§6 item 4). Anything the real lexer rejects, and C operators that have no coNCePTuaL
// counterpart (`!=`, `==`, `&&`, `%`, …), is reported with a hint; lexing continues after
// an error so that one pass reports every lexical problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tracegen::ncptl {

// A place in the program text: byte offsets [begin, end) and the line of `begin` (1-based).
struct SourceRange {
  std::size_t begin = 0;
  std::size_t end = 0;
  int line = 0;
};

struct Diagnostic {
  enum class Severity { Error, Warning };
  Severity severity = Severity::Error;
  SourceRange where;
  std::string message;
};

// Keywords after synonym folding: each pair of §1.6 maps to its first (singular) member.
#define TRACEGEN_NCPTL_KEYWORDS(X)                                                                        \
  X(A) X(ABS) X(ABSOLUTE) X(AGGREGATES) X(ALIGNED) X(ALL) X(AND) X(ARITHMETIC) X(AS) X(ASSERT)          \
  X(ASSIGNED) X(ASYNCHRONOUSLY) X(AWAIT) X(BACKEND) X(BE) X(BIT) X(BUFFER) X(BUT) X(BYTE) X(CBRT)       \
  X(CEILING) X(COMES) X(COMPLETION) X(COMPUTE) X(COUNTERS) X(CURRENT) X(DATA) X(DAY) X(DECLARES)        \
  X(DEFAULT) X(DEVIATION) X(DIVIDES) X(DOUBLEWORD) X(EACH) X(EVEN) X(EXECUTE) X(FACTOR10) X(FILE_DATA)  \
  X(FINAL) X(FLOOR) X(FOR) X(FROM) X(GEOMETRIC) X(GIGABYTE) X(GREATER) X(GROUP) X(HALFWORD)             \
  X(HARMONIC) X(HISTOGRAM) X(HOUR) X(IF) X(IN) X(INTEGER) X(INTO) X(IS) X(IT) X(ITS) X(KILOBYTE)        \
  X(KNOMIAL_CHILD) X(KNOMIAL_CHILDREN) X(KNOMIAL_PARENT) X(LANGUAGE) X(LESS) X(LET) X(LOG) X(LOG10)     \
  X(MAX) X(MAXIMUM) X(MEAN) X(MEDIAN) X(MEGABYTE) X(MEMORY) X(MESH_COORDINATE) X(MESH_DISTANCE)         \
  X(MESH_NEIGHBOR) X(MESSAGE) X(MICROSECOND) X(MILLISECOND) X(MIN) X(MINIMUM) X(MINUTE) X(MISALIGNED)   \
  X(MOD) X(MULTICAST) X(MY) X(NONUNIQUE) X(NOT) X(ODD) X(OF) X(OR) X(OTHER) X(OTHERWISE) X(OUTPUT)      \
  X(PAGE) X(PERCENTILE) X(PLUS) X(PROCESSOR) X(PROCESSOR_OF) X(QUADWORD) X(RANDOM) X(RANDOM_GAUSSIAN)  \
  X(RANDOM_PARETO) X(RANDOM_POISSON) X(RANDOM_UNIFORM) X(REAL) X(RECEIVE) X(REDUCE) X(REGION)           \
  X(REPETITION) X(REQUIRE) X(RESET) X(RESTORE) X(RESULT) X(ROOT) X(ROUND) X(SECOND) X(SEND) X(SIZED)    \
  X(SLEEP) X(SQRT) X(STANDARD) X(STATIC_FILE_DATA) X(STORE) X(STRIDE) X(SUCH) X(SUM) X(SYNCHRONIZATION) \
  X(SYNCHRONIZE) X(SYNCHRONOUSLY) X(TAG) X(TASK) X(TASK_OF) X(THAN) X(THAT) X(THE) X(THEN) X(TIME)      \
  X(TO) X(TOUCH) X(TOUCHING) X(TREE_CHILD) X(TREE_PARENT) X(UNALIGNED) X(UNIQUE) X(UNSUSPECTING)        \
  X(USING) X(VALUE) X(VARIANCE) X(VERIFICATION) X(VERSION) X(WARMUP) X(WHERE) X(WHILE) X(WHO) X(WITH)   \
  X(WITHOUT) X(WORD) X(XOR)

enum class Kw : std::uint16_t {
#define TRACEGEN_NCPTL_ENUM(k) k,
  TRACEGEN_NCPTL_KEYWORDS(TRACEGEN_NCPTL_ENUM)
#undef TRACEGEN_NCPTL_ENUM
      None
};

std::string_view keywordName(Kw k);  // canonical upper-case spelling, "SEND"

enum class Tok : std::uint8_t {
  End,
  Ident,
  Integer,
  String,
  Keyword,
  Period,    // .
  Ellipsis,  // ...
  Comma,
  LBrace,
  RBrace,
  LParen,
  RParen,
  LBracket,
  RBracket,
  Plus,
  Minus,
  Star,
  WrapStar,  // '*' right before ',' or ')': a periodic MESH_NEIGHBOR dimension
  Slash,
  Power,     // **
  Shl,       // <<
  Shr,       // >>
  Amp,       // &
  Pipe,      // |
  Eq,
  Ne,        // <>
  Lt,
  Gt,
  Le,
  Ge,
  LogAnd,    // /\  (backslash)
  LogOr,     // \/  (backslash)
};

std::string_view tokName(Tok t);  // for messages: "'.'", "identifier", …

struct Token {
  Tok kind = Tok::End;
  Kw kw = Kw::None;       // Tok::Keyword
  std::string text;       // identifier folded to lower case; string value after escapes
  std::int64_t value = 0; // Tok::Integer
  SourceRange where;
};

struct LexResult {
  std::vector<Token> tokens;  // ends with Tok::End
  std::vector<Diagnostic> diagnostics;
};

LexResult lex(std::string_view source);

// True for the predeclared read-only variables of §4.15.
bool isPredeclared(std::string_view lowerName);
// True for the predeclared counters (every predeclared variable except num_tasks), which are
// meaningful only where they are evaluated at run time (§4.1).
bool isCounter(std::string_view lowerName);

}  // namespace tracegen::ncptl
