// Checked arithmetic on numbers that come from traces.
//
// Trace values are 64-bit and only partly bounded (docs/trace-format.md, "Limits"), so any
// product or sum of them (count x datatype size, the trip counts of nested loops, byte totals)
// can leave the int64 range, which is undefined behaviour in C++ and silently wrong output in
// a release build. Every such product or sum goes through these helpers: the checked forms
// return nullopt on overflow, for the caller to turn into an InputError naming the line; the
// saturating forms clamp, for figures that are only printed (inspect's byte totals).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

namespace tracegen {

inline std::optional<std::int64_t> checkedMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::int64_t> checkedAdd(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<std::int64_t> checkedSub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// a + b clamped to the int64 range.
inline std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
  if (auto r = checkedAdd(a, b)) return *r;
  return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
}

// a * b clamped to the int64 range.
inline std::int64_t saturatingMul(std::int64_t a, std::int64_t b) {
  if (auto r = checkedMul(a, b)) return *r;
  return (a < 0) != (b < 0) ? std::numeric_limits<std::int64_t>::min() : std::numeric_limits<std::int64_t>::max();
}

}  // namespace tracegen
