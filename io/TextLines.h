// Shared lexical layer of the trace readers: a file's lines with their numbers, a tokenizer
// that splits on white space and treats brackets as tokens of their own, and number parsing
// that reports `file:line: error:` diagnostics.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "io/Compression.h"
#include "ir/Diagnostics.h"

namespace tracegen {

struct SourceLine {
  int number = 0;  // 1-based
  std::string_view text;
};

// Reads the whole file; rejects binary content (NUL or other control bytes) with a diagnostic
// naming the line. The returned buffer owns the text the lines point into. A zstd-compressed
// file (recognised by its magic number, not its name) is decompressed first, up to
// kMaxTraceTextBytes of text (io/Compression.h); line numbers are those of the text.
struct SourceFile {
  std::string name;
  std::string buffer;
  std::vector<SourceLine> lines;
  bool endsWithNewline = true;
};
SourceFile loadSourceFile(const std::string& path);
SourceFile sourceFromString(std::string name, std::string text);
// As loadSourceFile does with a file's contents: decompresses zstd input (at most `limit`
// bytes of text), then splits the text into lines.
SourceFile sourceFromBytes(std::string name, std::string bytes, std::size_t limit = kMaxTraceTextBytes);

// `e` with the text of the line it names, read again from its file, when it has none: errors
// found after reading (by a pass, a backend, the expansion) know the line of the event they
// concern but not its text. `e` as it is when the file cannot be read or has no such line.
InputError withSourceText(const InputError& e);

struct Token {
  std::string_view text;
  bool punct = false;  // one of ( ) [ ] { } < > @ =
};
std::vector<Token> tokenize(std::string_view line);

// Cursor over one line's tokens with typed accessors that throw InputError.
class TokenStream {
 public:
  TokenStream(const SourceFile& file, const SourceLine& line);
  bool atEnd() const { return pos_ >= tokens_.size(); }
  const Token& peek() const;
  bool peekIs(std::string_view text) const { return !atEnd() && tokens_[pos_].text == text; }
  // The token `k` places ahead of the next one (0: the next), or nullptr past the line's end.
  const Token* peekAt(std::size_t k) const { return pos_ + k < tokens_.size() ? &tokens_[pos_ + k] : nullptr; }
  Token get();
  void expect(std::string_view text);
  std::int64_t getInt(std::string_view what);
  std::int64_t getHex(std::string_view what);
  double getReal(std::string_view what);
  [[noreturn]] void fail(const std::string& message, const std::string& hint = {}) const;
  const SourceLine& line() const { return line_; }

 private:
  const SourceFile& file_;
  const SourceLine& line_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
};

bool parseInt(std::string_view s, std::int64_t& out);
bool parseReal(std::string_view s, double& out);

}  // namespace tracegen
