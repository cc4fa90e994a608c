// A structure-aware libFuzzer mutator shared by the targets (each includes this header once):
// traces are lines of fields, and what makes tracegen slow or large is a declared number
// (a count, a trip count, a rank count, a vector length) that disagrees with what the input
// holds, or events and loop lines repeated. Byte mutations rarely produce either: they break a
// number's digits into a parse error. So most mutations here replace one number by a boundary
// value (0, -1, 2^31-1, 2^62, ...) or a multiple of itself, or duplicate, drop or swap lines and
// event blocks (an `event` line with its indented attribute lines); one in five is
// libFuzzer's own byte mutation, which keeps the lexer and the parsers' error paths covered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <utility>
#include <random>
#include <string>
#include <vector>

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t maxSize);

namespace tracegen::fuzz {

// Numbers that sit on the edges of what the readers and the arithmetic accept.
inline const std::vector<std::string>& boundaryNumbers() {
  static const std::vector<std::string> v = {
      "0", "1", "-1", "2", "3", "7", "64", "255", "1000", "65536", "1000000", "16777216", "2147483647", "2147483648",
      "-2147483648", "4294967296", "1000000000000", "4611686018427387904", "9223372036854775807",
      "-9223372036854775808", "9223372036854775808", "1e308", "-0", "0.5"};
  return v;
}

inline std::vector<std::string> splitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  return lines;
}

// The [begin, end) of the block of lines that starts at `i`: an `event` line and its indented
// attribute lines (ScalaTrace: a line up to the next one that starts a block), else the line.
inline std::pair<std::size_t, std::size_t> blockAt(const std::vector<std::string>& lines, std::size_t i) {
  std::size_t end = i + 1;
  auto indented = [](const std::string& s) { return !s.empty() && (s[0] == ' ' || s[0] == '\t'); };
  while (end < lines.size() && indented(lines[end])) ++end;
  return {i, end};
}

// Replaces one number token of `line` (a run of digits, with a sign before it) by a boundary
// value, a neighbour of itself or a multiple of itself.
inline bool mutateNumber(std::string& line, std::mt19937_64& rng) {
  std::vector<std::pair<std::size_t, std::size_t>> numbers;
  for (std::size_t i = 0; i < line.size();) {
    if (line[i] >= '0' && line[i] <= '9') {
      std::size_t b = i;
      if (b > 0 && line[b - 1] == '-') --b;
      while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
      numbers.emplace_back(b, i - b);
    } else {
      ++i;
    }
  }
  if (numbers.empty()) return false;
  auto [b, n] = numbers[rng() % numbers.size()];
  std::string old = line.substr(b, n);
  std::string replacement;
  long long value = 0;
  try {
    value = std::stoll(old);
  } catch (...) {
    value = 0;
  }
  switch (rng() % 4) {
    case 0:
    case 1: replacement = boundaryNumbers()[rng() % boundaryNumbers().size()]; break;
    case 2: {
      const long long d = static_cast<long long>(rng() % 3) - 1;
      replacement = (d > 0 && value == INT64_MAX) || (d < 0 && value == INT64_MIN) ? old : std::to_string(value + d);
      break;
    }
    default: {
      static const long long factors[] = {2, 10, 1000, 1000000, -1};
      const long long f = factors[rng() % std::size(factors)];
      // Saturating, so that the product stays a number the readers have to range-check.
      replacement = (value != 0 && (value > INT64_MAX / 1000000 || value < INT64_MIN / 1000000)) ? "9223372036854775807"
                                                                                               : std::to_string(value * f);
    }
  }
  line.replace(b, n, replacement);
  return true;
}

inline std::size_t mutateStructure(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed) {
  std::mt19937_64 rng(seed);
  if (size == 0 || rng() % 5 == 0) return LLVMFuzzerMutate(data, size, maxSize);
  std::vector<std::string> lines = splitLines(std::string(reinterpret_cast<const char*>(data), size));
  if (lines.empty()) return LLVMFuzzerMutate(data, size, maxSize);
  const int rounds = 1 + static_cast<int>(rng() % 3);
  for (int k = 0; k < rounds && !lines.empty(); ++k) {
    const std::size_t i = rng() % lines.size();
    switch (rng() % 8) {
      case 0:
      case 1:
      case 2:  // a number toward a boundary (the most productive: several tries at a line with one)
        for (int tries = 0; tries < 8; ++tries)
          if (mutateNumber(lines[(i + static_cast<std::size_t>(tries) * 7) % lines.size()], rng)) break;
        break;
      case 3: {  // an event block (or a line) duplicated, right after itself or elsewhere
        auto [b, e] = blockAt(lines, i);
        std::vector<std::string> copy(lines.begin() + static_cast<std::ptrdiff_t>(b), lines.begin() + static_cast<std::ptrdiff_t>(e));
        const std::size_t at = rng() % 2 ? e : rng() % (lines.size() + 1);
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), copy.begin(), copy.end());
        break;
      }
      case 4: {  // an event block dropped
        auto [b, e] = blockAt(lines, i);
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(b), lines.begin() + static_cast<std::ptrdiff_t>(e));
        break;
      }
      case 5:  // one line dropped (a loop line, a parameter, a header line)
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(i));
        break;
      case 6: {  // a line copied into another place (a loop line into another event's block)
        const std::size_t at = rng() % (lines.size() + 1);
        const std::string copy = lines[i];
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), copy);
        break;
      }
      default:  // two lines swapped
        std::swap(lines[i], lines[rng() % lines.size()]);
    }
  }
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  if (out.size() > maxSize) return LLVMFuzzerMutate(data, size, maxSize);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}

}  // namespace tracegen::fuzz

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t maxSize, unsigned seed) {
  return tracegen::fuzz::mutateStructure(data, size, maxSize, seed);
}
