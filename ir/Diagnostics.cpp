#include "ir/Diagnostics.h"

#include <fmt/format.h>

namespace tracegen {

namespace {
std::string firstLine(const std::string& file, int line, const std::string& message) {
  // An error about an input that has no file (a trace built in memory) says so by saying nothing.
  if (file.empty()) return fmt::format("error: {}", message);
  if (line > 0) return fmt::format("{}:{}: error: {}", file, line, message);
  return fmt::format("{}: error: {}", file, message);
}
}  // namespace

InputError::InputError(std::string file, int line, const std::string& message, std::string text,
                       std::string hint)
    : std::runtime_error(firstLine(file, line, message)),
      file_(std::move(file)),
      line_(line),
      message_(message),
      text_(std::move(text)),
      hint_(std::move(hint)) {}

std::string InputError::render() const {
  std::string s = what();
  if (!text_.empty()) {
    std::string shown = text_.size() > 120 ? text_.substr(0, 117) + "..." : text_;
    for (char& c : shown)
      if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) c = '?';
    s += fmt::format("\n    {}", shown);
  }
  if (!hint_.empty()) s += fmt::format("\n  hint: {}", hint_);
  return s;
}

std::string ProgramError::render() const {
  if (file_.empty()) return fmt::format("error: {}", what());
  if (line_ <= 0) return fmt::format("{}: error: {}", file_, what());
  return fmt::format("{}:{}: error: {}", file_, line_, what());
}

}  // namespace tracegen
