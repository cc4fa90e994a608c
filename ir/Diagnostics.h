// Errors in input files, reported the way compilers do: `file:line: error: what`, then the
// offending text and, where we know one, a hint. Tools exit with status 2 on these.
#pragma once

#include <stdexcept>
#include <string>

namespace tracegen {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, int line, const std::string& message, std::string text = {},
             std::string hint = {});

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& message() const { return message_; }
  const std::string& text() const { return text_; }
  const std::string& hint() const { return hint_; }
  // The full multi-line diagnostic (what() holds the first line only).
  std::string render() const;

 private:
  std::string file_;
  int line_;
  std::string message_;
  std::string text_;
  std::string hint_;
};

// Runs `f` (a step that works on one event or loop of the input: a pass, a backend's call);
// a std::invalid_argument it throws, a complaint about the input that does not say where,
// becomes an InputError at `line` of `file` (0: the file as a whole), so that every error
// about an input names the line it concerns. InputErrors pass through with their own line.
template <class F>
decltype(auto) atInputLine(const std::string& file, int line, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw InputError(file, line, e.what());
  }
}

// An input that is well formed but describes a program that cannot complete, e.g. a
// potential deadlock found while resolving wildcard receives. Tools exit with status 3.
// Where the input tells one, it names the line of the call the program stops at (the first
// blocked rank's), rendered `file:line: error: ...` as an InputError is; what() is the message
// alone.
class ProgramError : public std::runtime_error {
 public:
  explicit ProgramError(const std::string& message) : std::runtime_error(message) {}
  ProgramError(std::string file, int line, const std::string& message)
      : std::runtime_error(message), file_(std::move(file)), line_(line) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  // `file:line: error: message` (`file: error:` without a line, `error:` without a file).
  std::string render() const;

 private:
  std::string file_;
  int line_ = 0;
};

}  // namespace tracegen
