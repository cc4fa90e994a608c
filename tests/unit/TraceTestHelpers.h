// Helpers shared by the unit tests that build a trace from text, lower it and look at what the
// backends make of it (the tests of one operation family each: persistent requests, matched
// probes, one-sided, file I/O, nonblocking collectives, ...).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/Readers.h"
#include "ir/RankCursor.h"
#include "passes/PassManager.h"

namespace tracegen::testing {

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A bundled test input (tests/data/NAME).
inline std::string dataPath(const std::string& name) {
  return std::string(TRACEGEN_SOURCE_DIR) + "/tests/data/" + name;
}

// `text` with the first `from` replaced by `to` (a test failure if `from` is missing).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Generated C with its wrapped lines joined: a call on one line.
inline std::string flat(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
      if (!out.empty() && out.back() != ' ' && out.back() != '(') out += ' ';
      continue;
    }
    out += text[i];
  }
  return out;
}

// The trace in `text`, read as the file `name`.
inline Trace readText(const std::string& text, const std::string& name) {
  return readTrace(sourceFromString(name, text));
}

// The trace in `text` after the default pipeline, with diagnostics naming the file `name`.
inline Trace loweredText(const std::string& text, const std::string& name) {
  Trace t = readText(text, name);
  PassContext ctx;
  ctx.fileName = name;
  PassManager(defaultPipeline()).run(t, ctx);
  return t;
}

// Every call rank `r` makes, expanded.
inline std::vector<Call> callsOf(const Trace& t, Rank r) {
  RankCursor cursor(t, r);
  Call c;
  std::vector<Call> out;
  while (cursor.next(c)) out.push_back(c);
  return out;
}

// The computation rank `r` replays over its whole expansion of `t`, in microseconds.
inline double replayedComputeUs(const Trace& t, Rank r) {
  double total = 0;
  for (const Call& c : callsOf(t, r))
    if (c.computeUs > 0) total += c.computeUs;
  return total;
}

}  // namespace tracegen::testing
