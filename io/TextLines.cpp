#include "io/TextLines.h"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

#include "io/Compression.h"
#include "ir/Diagnostics.h"

namespace tracegen {

SourceFile sourceFromString(std::string name, std::string text) {
  SourceFile f;
  f.name = std::move(name);
  f.buffer = std::move(text);
  std::string_view all(f.buffer);
  int number = 0;
  std::size_t start = 0;
  while (start < all.size()) {
    std::size_t end = all.find('\n', start);
    bool last = end == std::string_view::npos;
    if (last) end = all.size();
    std::string_view line = all.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++number;
    for (char c : line) {
      auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f || u >= 0x80)
        throw InputError(f.name, number, fmt::format("binary data (byte 0x{:02x}) in a text trace", u), {},
                         "tracegen reads text traces: a ScalaTrace 2 file or tracegen's own format");
    }
    f.lines.push_back({number, line});
    if (last) f.endsWithNewline = false;
    start = end + 1;
  }
  return f;
}

InputError withSourceText(const InputError& e) {
  if (!e.text().empty() || e.line() < 1) return e;
  try {
    const SourceFile f = loadSourceFile(e.file());
    if (static_cast<std::size_t>(e.line()) > f.lines.size()) return e;
    return InputError(e.file(), e.line(), e.message(), std::string(f.lines[static_cast<std::size_t>(e.line() - 1)].text),
                      e.hint());
  } catch (const std::exception&) {
    return e;  // not a file (a string's name, a fuzzer's input): the message alone
  }
}

SourceFile loadSourceFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "cannot read file");
  return sourceFromBytes(path, ss.str());
}

SourceFile sourceFromBytes(std::string name, std::string bytes, std::size_t limit) {
  if (!isZstdCompressed(bytes)) return sourceFromString(std::move(name), std::move(bytes));
  std::string text = decompressTrace(name, bytes, limit);
  return sourceFromString(std::move(name), std::move(text));
}

namespace {
bool isPunct(char c) {
  switch (c) {
    case '(': case ')': case '[': case ']': case '{': case '}': case '<': case '>': case '@': case '=':
      return true;
    default:
      return false;
  }
}
}  // namespace

std::vector<Token> tokenize(std::string_view line) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == '\t') { ++i; continue; }
    if (c == '#') break;  // comment to end of line
    if (isPunct(c)) {
      out.push_back({line.substr(i, 1), true});
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && !isPunct(line[j])) ++j;
    out.push_back({line.substr(i, j - i), false});
    i = j;
  }
  return out;
}

bool parseInt(std::string_view s, std::int64_t& out) {
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty();
}

bool parseReal(std::string_view s, double& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && !s.empty() && std::isfinite(out);
}

TokenStream::TokenStream(const SourceFile& file, const SourceLine& line)
    : file_(file), line_(line), tokens_(tokenize(line.text)) {}

const Token& TokenStream::peek() const {
  if (atEnd()) fail("unexpected end of line");
  return tokens_[pos_];
}

Token TokenStream::get() {
  const Token& t = peek();
  ++pos_;
  return t;
}

void TokenStream::expect(std::string_view text) {
  if (atEnd()) fail(fmt::format("expected '{}' but the line ends", text));
  if (tokens_[pos_].text != text) fail(fmt::format("expected '{}' but found '{}'", text, tokens_[pos_].text));
  ++pos_;
}

std::int64_t TokenStream::getInt(std::string_view what) {
  if (atEnd()) fail(fmt::format("expected {} but the line ends", what));
  std::int64_t v = 0;
  if (!parseInt(tokens_[pos_].text, v)) fail(fmt::format("bad number '{}' for {}", tokens_[pos_].text, what));
  ++pos_;
  return v;
}

std::int64_t TokenStream::getHex(std::string_view what) {
  if (atEnd()) fail(fmt::format("expected {} but the line ends", what));
  std::string_view s = tokens_[pos_].text;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || s.front() == '-')
    fail(fmt::format("bad hexadecimal number '{}' for {}", s, what));
  ++pos_;
  return v;
}

double TokenStream::getReal(std::string_view what) {
  if (atEnd()) fail(fmt::format("expected {} but the line ends", what));
  double v = 0;
  if (!parseReal(tokens_[pos_].text, v)) fail(fmt::format("bad number '{}' for {}", tokens_[pos_].text, what));
  ++pos_;
  return v;
}

void TokenStream::fail(const std::string& message, const std::string& hint) const {
  throw InputError(file_.name, line_.number, message, std::string(line_.text), hint);
}

}  // namespace tracegen
