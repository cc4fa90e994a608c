// The coNCePTuaL lexer: a single left-to-right scan that produces tokens, followed by the
// hyphen-rule pass (§1.7), which deletes every `-` token that immediately precedes a keyword
// and reports the deletions that would change an expression. See Lexer.h.
#include "ncptl/Lexer.h"

#include <array>
#include <cctype>
#include <limits>
#include <string>
#include <unordered_map>

namespace tracegen::ncptl {

namespace {

constexpr std::array<std::string_view, static_cast<std::size_t>(Kw::None)> kKeywordNames = {
#define TRACEGEN_NCPTL_NAME(k) #k,
    TRACEGEN_NCPTL_KEYWORDS(TRACEGEN_NCPTL_NAME)
#undef TRACEGEN_NCPTL_NAME
};

// Every spelling of every keyword, upper case, to its canonical keyword (§1.6 synonyms).
const std::unordered_map<std::string, Kw>& keywordTable() {
  static const std::unordered_map<std::string, Kw> table = [] {
    std::unordered_map<std::string, Kw> t;
    for (std::size_t i = 0; i < kKeywordNames.size(); ++i) t.emplace(std::string(kKeywordNames[i]), static_cast<Kw>(i));
    const std::pair<const char*, Kw> synonyms[] = {
        {"AN", Kw::A},
        {"AWAITS", Kw::AWAIT},
        {"BITS", Kw::BIT},
        {"BUFFERS", Kw::BUFFER},
        {"BYTES", Kw::BYTE},
        {"COMPLETIONS", Kw::COMPLETION},
        {"COMPUTES", Kw::COMPUTE},
        {"DAYS", Kw::DAY},
        {"DOUBLEWORDS", Kw::DOUBLEWORD},
        {"EXECUTES", Kw::EXECUTE},
        {"HALFWORDS", Kw::HALFWORD},
        {"HOURS", Kw::HOUR},
        {"INTEGERS", Kw::INTEGER},
        {"ARE", Kw::IS},
        {"THEM", Kw::IT},
        {"THEIR", Kw::ITS},
        {"LOGS", Kw::LOG},
        {"MESSAGES", Kw::MESSAGE},
        {"MICROSECONDS", Kw::MICROSECOND},
        {"MILLISECONDS", Kw::MILLISECOND},
        {"MINUTES", Kw::MINUTE},
        {"MULTICASTS", Kw::MULTICAST},
        {"OUTPUTS", Kw::OUTPUT},
        {"PAGES", Kw::PAGE},
        {"PROCESSORS", Kw::PROCESSOR},
        {"QUADWORDS", Kw::QUADWORD},
        {"RECEIVES", Kw::RECEIVE},
        {"REDUCES", Kw::REDUCE},
        {"REPETITIONS", Kw::REPETITION},
        {"RESETS", Kw::RESET},
        {"RESTORES", Kw::RESTORE},
        {"RESULTS", Kw::RESULT},
        {"SECONDS", Kw::SECOND},
        {"SENDS", Kw::SEND},
        {"SLEEPS", Kw::SLEEP},
        {"STORES", Kw::STORE},
        {"SYNCHRONIZES", Kw::SYNCHRONIZE},
        {"TASKS", Kw::TASK},
        {"TIMES", Kw::TIME},
        {"TOUCHES", Kw::TOUCH},
        {"WORDS", Kw::WORD},
    };
    for (const auto& [name, kw] : synonyms) t.emplace(name, kw);
    return t;
  }();
  return table;
}

// Keywords that begin an expression (function names and the special forms). A hyphen deleted
// before one of these turns `a - f(x)` into `a f(x)` or `-f(x)` into `f(x)`.
bool startsExpression(Kw k, bool followedByParen) {
  switch (k) {
    case Kw::NOT:
    case Kw::MY:
      return true;
    case Kw::ABS: case Kw::BIT: case Kw::CBRT: case Kw::CEILING: case Kw::FACTOR10: case Kw::FLOOR:
    case Kw::LOG10: case Kw::MAX: case Kw::MIN: case Kw::ROOT: case Kw::ROUND: case Kw::SQRT:
    case Kw::TREE_PARENT: case Kw::TREE_CHILD: case Kw::KNOMIAL_PARENT: case Kw::KNOMIAL_CHILD:
    case Kw::KNOMIAL_CHILDREN: case Kw::RANDOM_UNIFORM: case Kw::RANDOM_GAUSSIAN:
    case Kw::RANDOM_POISSON: case Kw::RANDOM_PARETO: case Kw::PROCESSOR_OF: case Kw::TASK_OF:
    case Kw::REAL: case Kw::MESH_NEIGHBOR: case Kw::MESH_COORDINATE: case Kw::MESH_DISTANCE:
    case Kw::FILE_DATA: case Kw::STATIC_FILE_DATA:
      // BITS is also a size unit (`64-BIT`): only a call, with its parenthesis, is an expression.
      return followedByParen;
    default:
      return false;
  }
}

bool isIdentChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string upper(std::string_view s) {
  std::string u(s);
  for (auto& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

class Scanner {
 public:
  explicit Scanner(std::string_view src) : src_(src) {}

  LexResult run() {
    out_.tokens.reserve(src_.size() / 6 + 16);  // a generated program has a token per 5-6 bytes
    while (true) {
      skipSpaceAndComments();
      if (pos_ >= src_.size()) break;
      scanToken();
    }
    Token end;
    end.kind = Tok::End;
    end.where = {src_.size(), src_.size(), line_};
    out_.tokens.push_back(end);
    applyHyphenRule();
    return std::move(out_);
  }

 private:
  void error(std::size_t begin, std::size_t end, int line, std::string msg,
             Diagnostic::Severity sev = Diagnostic::Severity::Error) {
    out_.diagnostics.push_back({sev, {begin, end, line}, std::move(msg)});
  }

  char peek(std::size_t ahead = 0) const { return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0'; }

  void skipSpaceAndComments() {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        ++pos_;
      } else if (c == '#') {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else {
        break;
      }
    }
  }

  void push(Tok kind, std::size_t begin) {
    Token t;
    t.kind = kind;
    t.where = {begin, pos_, line_};
    out_.tokens.push_back(std::move(t));
  }

  void scanToken() {
    const std::size_t begin = pos_;
    const char c = src_[pos_];
    if (std::isalpha(static_cast<unsigned char>(c))) return scanWord();
    if (std::isdigit(static_cast<unsigned char>(c))) return scanInteger();
    if (c == '"') return scanString();
    if (c == '_') {
      while (pos_ < src_.size() && isIdentChar(src_[pos_])) ++pos_;
      error(begin, pos_, line_, "identifier '" + std::string(src_.substr(begin, pos_ - begin)) +
                                    "' starts with an underscore; identifiers must start with a letter");
      return;
    }
    auto two = [&](char a, char b) { return c == a && peek(1) == b; };
    auto bad = [&](std::size_t len, const std::string& msg) {
      pos_ += len;
      error(begin, pos_, line_, msg);
    };
    if (c == '.' && peek(1) == '.' && peek(2) == '.') {
      pos_ += 3;
      return push(Tok::Ellipsis, begin);
    }
    if (two('*', '*')) { pos_ += 2; return push(Tok::Power, begin); }
    if (two('<', '<')) { pos_ += 2; return push(Tok::Shl, begin); }
    if (two('>', '>')) { pos_ += 2; return push(Tok::Shr, begin); }
    if (two('<', '>')) { pos_ += 2; return push(Tok::Ne, begin); }
    if (two('<', '=')) { pos_ += 2; return push(Tok::Le, begin); }
    if (two('>', '=')) { pos_ += 2; return push(Tok::Ge, begin); }
    if (two('/', '\\')) { pos_ += 2; return push(Tok::LogAnd, begin); }
    if (two('\\', '/')) { pos_ += 2; return push(Tok::LogOr, begin); }
    if (two('=', '=')) return bad(2, "'==' is not a coNCePTuaL operator; write '=' for equality");
    if (two('!', '=')) return bad(2, "'!=' is not a coNCePTuaL operator; write '<>' for inequality");
    if (two('&', '&')) return bad(2, "'&&' is not a coNCePTuaL operator; write '/\\' for logical and");
    if (two('|', '|')) return bad(2, "'||' is not a coNCePTuaL operator; write '\\/' for logical or");
    ++pos_;
    switch (c) {
      case '.': return push(Tok::Period, begin);
      case ',': return push(Tok::Comma, begin);
      case '{': return push(Tok::LBrace, begin);
      case '}': return push(Tok::RBrace, begin);
      case '(': return push(Tok::LParen, begin);
      case ')': return push(Tok::RParen, begin);
      case '[': return push(Tok::LBracket, begin);
      case ']': return push(Tok::RBracket, begin);
      case '+': return push(Tok::Plus, begin);
      case '-': return push(Tok::Minus, begin);
      case '/': return push(Tok::Slash, begin);
      case '&': return push(Tok::Amp, begin);
      case '|': return push(Tok::Pipe, begin);
      case '=': return push(Tok::Eq, begin);
      case '<': return push(Tok::Lt, begin);
      case '>': return push(Tok::Gt, begin);
      case '*': {
        // The wrap-around star of a mesh dimension: '*' followed by ',' or ')' (§1.2).
        std::size_t k = pos_;
        while (k < src_.size() && (src_[k] == ' ' || src_[k] == '\t')) ++k;
        bool wrap = k < src_.size() && (src_[k] == ',' || src_[k] == ')');
        return push(wrap ? Tok::WrapStar : Tok::Star, begin);
      }
      case '%': return error(begin, pos_, line_, "'%' is not a coNCePTuaL operator; write MOD");
      case '^': return error(begin, pos_, line_, "'^' is not a coNCePTuaL operator; write XOR (bitwise) or ** (power)");
      case '!': return error(begin, pos_, line_, "'!' is not a coNCePTuaL operator; use the complementary comparison");
      case ';': return error(begin, pos_, line_, "';' is not a coNCePTuaL token; join statements with THEN and end top-level statements with '.'");
      case ':': return error(begin, pos_, line_, "':' is not a coNCePTuaL token");
      case '\'': return error(begin, pos_, line_, "strings are written in double quotes");
      case '\\': return error(begin, pos_, line_, "'\\' is only legal as part of '\\/' (logical or)");
      default: {
        std::string shown = static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f
                                ? "byte 0x" + hex(static_cast<unsigned char>(c))
                                : "'" + std::string(1, c) + "'";
        return error(begin, pos_, line_, "unexpected character " + shown);
      }
    }
  }

  static std::string hex(unsigned v) {
    const char* digits = "0123456789abcdef";
    return {digits[(v >> 4) & 15], digits[v & 15]};
  }

  void scanWord() {
    const std::size_t begin = pos_;
    while (pos_ < src_.size() && isIdentChar(src_[pos_])) ++pos_;
    std::string_view word = src_.substr(begin, pos_ - begin);
    std::string up = upper(word);
    Token t;
    t.where = {begin, pos_, line_};
    auto it = keywordTable().find(up);
    if (it != keywordTable().end()) {
      t.kind = Tok::Keyword;
      t.kw = it->second;
      t.text = up;
    } else {
      t.kind = Tok::Ident;
      t.text = up;
      for (auto& ch : t.text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    out_.tokens.push_back(std::move(t));
  }

  void scanInteger() {
    const std::size_t begin = pos_;
    while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
    const std::string digits(src_.substr(begin, pos_ - begin));
    if (peek() == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
      std::size_t end = pos_ + 1;
      while (end < src_.size() && std::isdigit(static_cast<unsigned char>(src_[end]))) ++end;
      error(begin, end, line_, "fractional literal '" + std::string(src_.substr(begin, end - begin)) +
                                   "': coNCePTuaL has only integer literals; use a smaller unit or REAL(a/b)");
      pos_ = end;
      return;
    }
    const std::size_t suffixBegin = pos_;
    while (pos_ < src_.size() && isIdentChar(src_[pos_])) ++pos_;
    const std::string suffix = upper(src_.substr(suffixBegin, pos_ - suffixBegin));
    const std::string spelled(src_.substr(begin, pos_ - begin));

    // Literal value with overflow detection: digits, then one optional scale, then an ordinal.
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    bool overflow = false;
    auto mul = [&](std::int64_t a, std::int64_t b) {
      if (a != 0 && b > kMax / a) overflow = true;
      return overflow ? 0 : a * b;
    };
    std::int64_t v = 0;
    for (char d : digits) {
      const int dv = d - '0';
      if (v > (kMax - dv) / 10) {
        overflow = true;
        break;
      }
      v = v * 10 + dv;
    }
    auto isOrdinal = [](const std::string& x) { return x == "ST" || x == "ND" || x == "RD" || x == "TH"; };
    std::size_t i = 0;
    // `95TH` is an ordinal, not 95 tera followed by `H`.
    if (!isOrdinal(suffix) && i < suffix.size()) {
      const char s = suffix[i];
      if (s == 'K' || s == 'M' || s == 'G' || s == 'T') {
        const int power = s == 'K' ? 1 : s == 'M' ? 2 : s == 'G' ? 3 : 4;
        for (int k = 0; k < power; ++k) v = mul(v, 1024);
        ++i;
      } else if (s == 'E' && i + 1 < suffix.size() && std::isdigit(static_cast<unsigned char>(suffix[i + 1]))) {
        ++i;
        int e = 0;
        while (i < suffix.size() && std::isdigit(static_cast<unsigned char>(suffix[i]))) {
          e = e * 10 + (suffix[i] - '0');
          if (e > 30) overflow = true;
          ++i;
        }
        for (int k = 0; k < e && !overflow; ++k) v = mul(v, 10);
      }
    }
    const std::string rest = suffix.substr(i);
    if (!rest.empty() && !isOrdinal(rest)) {
      error(begin, pos_, line_, "invalid integer literal '" + spelled +
                                    "': the only suffixes are one of K, M, G, T or E<digits>, then ST, ND, RD or TH");
      return;
    }
    if (overflow) {
      error(begin, pos_, line_, "integer literal '" + spelled + "' does not fit in 64 bits");
      return;
    }
    Token t;
    t.kind = Tok::Integer;
    t.value = v;
    t.text = spelled;
    t.where = {begin, pos_, line_};
    out_.tokens.push_back(std::move(t));
  }

  void scanString() {
    const std::size_t begin = pos_;
    const int startLine = line_;
    ++pos_;
    std::string value;
    while (true) {
      if (pos_ >= src_.size()) {
        error(begin, pos_, startLine, "unterminated string literal");
        return;
      }
      char c = src_[pos_++];
      if (c == '"') break;
      if (c == '\n') ++line_;
      if (c != '\\') {
        value += c;
        continue;
      }
      char e = pos_ < src_.size() ? src_[pos_++] : '\0';
      switch (e) {
        case '"': value += '"'; break;
        case '\\': value += '\\'; break;
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case 'r': value += '\r'; break;
        case '\n': ++line_; break;  // line continuation: both characters are dropped
        default:
          // The real lexer warns and discards an unknown escape (§1.5).
          error(pos_ - 2, pos_, line_, std::string("unknown escape '\\") + e + "' in a string is discarded",
                Diagnostic::Severity::Warning);
      }
    }
    Token t;
    t.kind = Tok::String;
    t.text = std::move(value);
    t.where = {begin, pos_, startLine};
    out_.tokens.push_back(std::move(t));
  }

  // §1.7: a '-' immediately before a keyword is deleted. It is meant for `64-BYTE` and
  // `PAGE-ALIGNED`; before a function name or NOT it silently changes arithmetic.
  void applyHyphenRule() {
    // Compacts in place: the tokens kept move down over the deleted ones.
    auto& toks = out_.tokens;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < toks.size(); ++i) {
      if (toks[i].kind == Tok::Minus && i + 1 < toks.size() && toks[i + 1].kind == Tok::Keyword) {
        const Token& kw = toks[i + 1];
        bool paren = i + 2 < toks.size() && toks[i + 2].kind == Tok::LParen;
        if (startsExpression(kw.kw, paren))
          error(toks[i].where.begin, kw.where.end, toks[i].where.line,
                "'-' before the keyword " + std::string(keywordName(kw.kw)) +
                    " is deleted by the coNCePTuaL lexer (hyphen rule, §1.7), which changes this expression; "
                    "parenthesise, e.g. '-(" + std::string(keywordName(kw.kw)) + "(...))' or 'a-(" +
                    std::string(keywordName(kw.kw)) + "(...))'");
        continue;
      }
      if (kept != i) toks[kept] = std::move(toks[i]);
      ++kept;
    }
    toks.resize(kept);
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  int line_ = 1;
  LexResult out_;
};

}  // namespace

std::string_view keywordName(Kw k) {
  auto i = static_cast<std::size_t>(k);
  return i < kKeywordNames.size() ? kKeywordNames[i] : std::string_view("?");
}

std::string_view tokName(Tok t) {
  switch (t) {
    case Tok::End: return "end of file";
    case Tok::Ident: return "identifier";
    case Tok::Integer: return "integer";
    case Tok::String: return "string";
    case Tok::Keyword: return "keyword";
    case Tok::Period: return "'.'";
    case Tok::Ellipsis: return "'...'";
    case Tok::Comma: return "','";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::WrapStar: return "'*' (wrap-around)";
    case Tok::Slash: return "'/'";
    case Tok::Power: return "'**'";
    case Tok::Shl: return "'<<'";
    case Tok::Shr: return "'>>'";
    case Tok::Amp: return "'&'";
    case Tok::Pipe: return "'|'";
    case Tok::Eq: return "'='";
    case Tok::Ne: return "'<>'";
    case Tok::Lt: return "'<'";
    case Tok::Gt: return "'>'";
    case Tok::Le: return "'<='";
    case Tok::Ge: return "'>='";
    case Tok::LogAnd: return "'/\\'";
    case Tok::LogOr: return "'\\/'";
  }
  return "?";
}

LexResult lex(std::string_view source) { return Scanner(source).run(); }

bool isPredeclared(std::string_view n) {
  return n == "num_tasks" || isCounter(n);
}

bool isCounter(std::string_view n) {
  return n == "elapsed_usecs" || n == "bytes_sent" || n == "bytes_received" || n == "total_bytes" ||
         n == "msgs_sent" || n == "msgs_received" || n == "total_msgs" || n == "bit_errors";
}

}  // namespace tracegen::ncptl
