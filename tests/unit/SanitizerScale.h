// Randomised and property tests run their full number of trials in the plain builds and a
// quarter of them under AddressSanitizer (scripts/test.sh runs the unit tests a second time in a
// sanitized clang build): each trial costs 5-20 times as much there, and the plain run has
// already covered the rest of the trials' inputs.
#pragma once

namespace tracegen::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif
#else
inline constexpr bool kUnderSanitizer = false;
#endif

// `trials` in a plain build, a quarter of them (at least one) under the sanitizers.
constexpr int sanitizerTrials(int trials) { return kUnderSanitizer ? (trials + 3) / 4 : trials; }

}  // namespace tracegen::testing
