// Ordered 64-bit hashing for call sites, trace shapes and cluster signatures.
//
// splitmix64's finaliser is a bijection; folding tokens with combine(h, v) = mix64(h ^ mix64(v))
// is order-sensitive, so unlike the XOR signatures of the clustering papers, equal tokens at
// different positions do not cancel (docs/clustering.md section 2.3).
#pragma once

#include <cstdint>
#include <string_view>

namespace tracegen::record {

inline std::uint64_t mix64(std::uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline std::uint64_t combine(std::uint64_t h, std::uint64_t v) { return mix64(h ^ mix64(v)); }
inline std::uint64_t combine(std::uint64_t h, std::int64_t v) { return combine(h, static_cast<std::uint64_t>(v)); }

inline std::uint64_t hashString(std::string_view s, std::uint64_t seed = 0x7261636567656e74ull) {
  std::uint64_t h = combine(seed, static_cast<std::uint64_t>(s.size()));
  std::uint64_t word = 0;
  int k = 0;
  for (char c : s) {
    word = (word << 8) | static_cast<unsigned char>(c);
    if (++k == 8) {
      h = combine(h, word);
      word = 0;
      k = 0;
    }
  }
  return combine(h, word);
}

}  // namespace tracegen::record
