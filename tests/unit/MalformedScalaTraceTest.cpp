// Malformed ScalaTrace 2 input: every defect is reported as an InputError naming the file and
// the exact line, and random damage to a real trace never does anything worse.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "io/Readers.h"
#include "tests/unit/SanitizerScale.h"

namespace tracegen {
namespace {

const char* const kTdLu = "scalatrace2-npb-td-lu-A-4.trace";
const char* const kTiCg = "scalatrace2-npb-ti-cg-A-4.trace";

std::string readFile(const std::string& name) {
  std::ifstream in(std::string(TRACEGEN_TEST_DATA_DIR) + "/scalatrace/" + name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A trace's text as lines (1-based, like diagnostics), to damage.
class Text {
 public:
  explicit Text(const std::string& text) {
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines_.push_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  static Text real(const char* name = kTdLu) { return Text(readFile(name)); }

  std::string str() const {
    std::string s;
    for (const auto& l : lines_) s += l + "\n";
    return s;
  }
  // The first 1-based line number at or after `from` that starts with `prefix`.
  int find(const std::string& prefix, int from = 1) const {
    for (int n = from; n <= size(); ++n)
      if (line(n).rfind(prefix, 0) == 0) return n;
    ADD_FAILURE() << "no line starts with '" << prefix << "'";
    return 1;
  }
  int size() const { return static_cast<int>(lines_.size()); }
  std::string& line(int n) { return lines_.at(static_cast<std::size_t>(n - 1)); }
  const std::string& line(int n) const { return lines_.at(static_cast<std::size_t>(n - 1)); }
  // Replaces the first occurrence of `from` in line n.
  Text& replace(int n, const std::string& from, const std::string& to) {
    std::string& l = line(n);
    auto pos = l.find(from);
    EXPECT_NE(pos, std::string::npos) << "line " << n << " has no '" << from << "': " << l;
    if (pos != std::string::npos) l.replace(pos, from.size(), to);
    return *this;
  }
  Text& set(int n, const std::string& text) {
    line(n) = text;
    return *this;
  }
  Text& erase(int n) {
    lines_.erase(lines_.begin() + (n - 1));
    return *this;
  }
  Text& insert(int n, const std::string& text) {  // becomes line n
    lines_.insert(lines_.begin() + (n - 1), text);
    return *this;
  }
  Text& keepFirst(int n) {
    lines_.resize(static_cast<std::size_t>(n));
    return *this;
  }

 private:
  std::vector<std::string> lines_;
};

// Reads `text` as a fragment: MPI_Init and/or MPI_Finalize added, with a `file:line:` warning
// that contains `what`.
void expectFragment(const std::string& text, int line, const std::string& what, const std::string& file = "bad.trace") {
  try {
    Trace t = readTrace(sourceFromString(file, text));
    EXPECT_EQ(t.events.front().op, Op::Init);
    EXPECT_EQ(t.events.back().op, Op::Finalize);
    EXPECT_TRUE(t.events.back().ranks == RankList::all(t.numRanks));
    const std::string at = file + ":" + std::to_string(line) + ": ";
    bool found = false;
    for (const auto& w : t.warnings) found = found || (w.rfind(at, 0) == 0 && w.find(what) != std::string::npos);
    EXPECT_TRUE(found) << "expected a warning '" << at << "..." << what << "'; got " << t.warnings.size() << " warnings"
                       << (t.warnings.empty() ? std::string() : ": " + t.warnings.front());
  } catch (const InputError& e) {
    ADD_FAILURE() << "read as an error, expected a fragment: " << e.render();
  }
}

// Reads `text` and expects an InputError at `line` whose message contains `what`.
void expectError(const std::string& text, int line, const std::string& what, const std::string& file = "bad.trace") {
  try {
    Trace t = readTrace(sourceFromString(file, text));
    ADD_FAILURE() << "no error; expected line " << line << ": " << what;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.line(), line) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
    EXPECT_EQ(std::string(e.what()).rfind(file + ":" + std::to_string(line) + ": error: ", 0), 0u) << e.what();
  }
}
void expectError(const Text& text, int line, const std::string& what) { expectError(text.str(), line, what); }

// Reads successfully, then expands every rank; expects an InputError from the expansion.
void expectExpansionError(const std::string& text, int line, const std::string& what) {
  Trace t;
  try {
    t = readTrace(sourceFromString("bad.trace", text));
  } catch (const InputError& e) {
    FAIL() << "the reader rejected it: " << e.render();
  }
  try {
    for (Rank r = 0; r < t.numRanks; ++r) {
      RankCursor cursor(t, r, "bad.trace");
      Call c;
      while (cursor.next(c)) {
      }
    }
    ADD_FAILURE() << "no error; expected line " << line << ": " << what;
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), line) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
    EXPECT_EQ(std::string(e.what()).rfind("bad.trace:" + std::to_string(line) + ": error: ", 0), 0u) << e.what();
  }
}

TEST(MalformedScalaTrace, RealTraceReadsCleanly) {
  // The baseline every other test damages.
  Trace t = readTrace(sourceFromString("good.trace", Text::real().str()));
  EXPECT_EQ(t.events.size(), 63u);
  Text lu = Text::real();
  EXPECT_EQ(lu.find("EVENT19:"), 218);
  EXPECT_EQ(lu.size(), 711);
}

// --------------------------------------------------------------------------------------------
// Truncation

TEST(MalformedScalaTrace, TruncatedInTheMiddleOfALine) {
  const std::string text = Text::real().str();
  // Cut line 8 (a histogram) after its header's average: "(32 5.76" and nothing else.
  const std::size_t at = text.find("(32 5.76 1 5.00") + 8;
  expectError(text.substr(0, at), 8, "expected histogram min rank but the line ends");
  // Inside a bin.
  const std::size_t bin = text.find("{4.80 5.00 5.75");
  expectError(text.substr(0, bin + 10), 8, "but the line ends");
  // Inside a ranklist: "RANKS: 1 -1 2" of E2.
  const std::size_t ranks = text.find("RANKS: 1 -1 2 1 0");
  expectError(text.substr(0, ranks + 13), 18, "expected ranklist iteration count but the line ends");
}

TEST(MalformedScalaTrace, TruncatedInTheMiddleOfABlock) {
  Text t = Text::real();
  t.keepFirst(21);  // E2 without its parameters: a complete block, but not the end of the trace
  // A file cut at a block boundary reads as a fragment, with a warning that says so.
  expectFragment(t.str(), 21, "the trace ends with event 2 (MPI_Send), not MPI_Finalize: it is read as a fragment (or the file is truncated)");
  Text u = Text::real();
  u.keepFirst(18);  // E2's RANKS line only
  expectError(u, 18, "block has no EVENT line");
}

TEST(MalformedScalaTrace, TruncatedAtABlockBoundaryBeforeFinalize) {
  Text t = Text::real();
  const int finalize = t.find("EVENT62:") - 1;  // its RANKS line
  t.keepFirst(finalize - 1);                    // up to and including the empty line before it
  expectFragment(t.str(), finalize - 2, "the trace ends with event 61 (MPI_Allreduce), not MPI_Finalize");
  // Without the final empty line too.
  Text u = Text::real();
  u.keepFirst(finalize - 2);
  expectFragment(u.str(), finalize - 2, "the file is truncated");
  // Only the first block left.
  Text v = Text::real();
  v.keepFirst(5);
  expectFragment(v.str(), 4, "the trace ends with event 0 (MPI_Init)");
}

// --------------------------------------------------------------------------------------------
// Lexical damage

TEST(MalformedScalaTrace, BadNumbers) {
  expectError(Text::real().replace(23, "20480", "20x80"), 23, "bad number '20x80' for parameter value");
  expectError(Text::real().replace(8, "5.76", "5.7.6"), 8, "bad number '5.7.6' for histogram average");
  expectError(Text::real().replace(23, "20480", "99999999999999999999"), 23, "bad number '99999999999999999999'");
  expectError(Text::real().replace(23, "20480", "4294967296"), 23, "does not fit the format's 32-bit integers");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 2 one 0"), 18, "bad number 'one' for ranklist iteration count");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 2 1 2147483648"), 18, "does not fit the format's 32-bit integers");
  expectError(Text::real().replace(19, "EVENT2:", "EVENTtwo:"), 19, "the second line of a block must be 'EVENTn: opcode signature'");
  expectError(Text::real().replace(26, "1b 0", "1g 0"), 26, "bad hexadecimal number '1g' for parameter id");
  expectError(Text::real().replace(8, "4b-0:", "4b-x:"), 8, "path index 'x' is not hexadecimal");
  expectError(Text::real().replace(8, "4b-0:", "4b0:"), 8, "malformed statistic tag '4b0:'");
  expectError(Text::real().replace(12, "LOOP0:", "LOOPx:"), 12, "malformed loop tag 'LOOPx:'");
}

TEST(MalformedScalaTrace, EmptyFile) {
  expectError("", 1, "empty trace file");
  try {
    readScalaTrace(sourceFromString("empty.trace", ""));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("empty trace: no events"), std::string::npos) << e.render();
  }
  try {
    readScalaTrace(sourceFromString("blank.trace", "\n  \n\t\n"));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1);
    EXPECT_NE(e.message().find("empty trace"), std::string::npos) << e.render();
  }
  expectError("\n\n\n", 3, "empty trace file");
}

TEST(MalformedScalaTrace, BinaryGarbage) {
  std::string text = Text::real().str();
  std::string withNul = text;
  withNul.insert(withNul.find("EVENT3:") + 3, 1, '\0');
  expectError(withNul, 29, "binary data (byte 0x00)");
  std::string highBit = text;
  highBit[highBit.find("479b76")] = static_cast<char>(0xc3);
  expectError(highBit, 29, "binary data (byte 0xc3)");
  // Random bytes: the error names the first line holding a byte that is not text.
  std::mt19937 rng(12345);
  for (int round = 0; round < 20; ++round) {
    std::string junk;
    for (int i = 0; i < 2000; ++i) junk += static_cast<char>(rng() & 0xff);
    // The reader's rule: lines split at LF, one trailing CR dropped, then only printable ASCII
    // and tabs.
    int line = 0;
    bool bad = false;
    for (std::size_t start = 0; start < junk.size() && !bad;) {
      std::size_t end = std::min(junk.find('\n', start), junk.size());
      std::string l = junk.substr(start, end - start);
      if (!l.empty() && l.back() == '\r') l.pop_back();
      ++line;
      for (unsigned char c : l) bad = bad || (c < 0x20 && c != '\t') || c >= 0x7f;
      start = end + 1;
    }
    ASSERT_TRUE(bad);
    expectError(junk, line, "binary data");
  }
  // A file that is a series of NUL bytes.
  expectError(std::string(64, '\0'), 1, "binary data (byte 0x00)");
}

// --------------------------------------------------------------------------------------------
// Structural damage

TEST(MalformedScalaTrace, UnknownOperationCode) {
  expectError(Text::real().replace(19, "1113", "1999"), 19, "unknown operation code 1999");
  expectError(Text::real().replace(19, "1113", "1160"), 19, "operation code 1160 is POSIX or MPI-IO");
  expectError(Text::real().replace(19, "1113", "-5"), 19, "unknown operation code -5");
  expectError(Text::real().replace(19, "1113", "99999999999"), 19, "unknown operation code 99999999999");
  expectFragment(Text::real().replace(2, "1084", "1010").str(), 1,
                 "the trace starts with event 0 (MPI_Barrier), not MPI_Init: it is read as a fragment");
  // A fragment numbers its events from where it was cut, but consecutively.
  expectError(Text::real().replace(2, "EVENT0:", "EVENT7:").replace(2, "1084", "1010"), 7, "event number 1 where 8 was expected");
  expectError(Text::real().replace(19, "1113", "1084"), 19, "MPI_Init again");
  expectError(Text::real().replace(19, "1113 481caa_48202a_482163_482257", "1113"), 19, "missing call-site signature");
  expectError(Text::real().replace(19, "482257", "482257 extra"), 19, "unexpected 'extra' after the signature");
}

TEST(MalformedScalaTrace, RanklistOutsideTheTrace) {
  // E2 on ranks {2,3,4} of a 4-rank trace.
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 2 3 1"), 18, "ranklist names rank 4 outside the trace's ranks 0..3");
  // In a value group (E19's DEST groups) and in a loop group.
  Text t = Text::real();
  expectError(Text(t.str()).replace(t.find("1a ( 2 )"), "1 -1 2 1 0", "1 -1 7 1 0"), t.find("1a ( 2 )"),
              "ranklist names rank 7 outside the trace's ranks 0..3");
  expectError(Text::real().replace(12, "mem: ( 1 )[ 1 -1 0 4 1 ]", "mem: ( 1 )[ 1 -1 0 5 1 ]"), 12, "names rank 4 outside");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 -3 1 0"), 18, "ranklist names rank -3");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 0 2 -1"), 18, "negative stride -1");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 2 0 0"), 18, "ranklist dimension with 0 iterations");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 1 2 1 0"), 18, "starts with 1, expected a negated dimension count");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "2 -1 2 1 0"), 18, "expected ranklist dimension marker but the line ends");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "0"), 18, "empty ranklist");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 2 1 0 7"), 18, "unexpected '7' after the ranklist");
  // The first block defines P and must be 0..P-1.
  expectError(Text::real().replace(1, "1 -1 0 4 1", "1 -1 1 4 1"), 1, "the first block's ranks 1-4 are not 0..P-1");
  // Finalize on every rank.
  Text f = Text::real();
  const int fin = f.find("EVENT62:");
  expectError(f.replace(fin - 1, "1 -1 0 4 1", "1 -1 0 3 1"), fin, "MPI_Finalize on ranks 0-2 only");
}

TEST(MalformedScalaTrace, RanklistNamesARankTwice) {
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -1 2 2 0"), 18, "names a rank more than once");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "2 -1 0 3 1 -1 2 1 0"), 18, "names a rank more than once");
  expectError(Text::real().replace(18, "1 -1 2 1 0", "1 -2 0 2 1 2 1"), 18, "names a rank more than once");
}

TEST(MalformedScalaTrace, LoopSpanningEventsThatDoNotExist) {
  // E1's loop body of 1000 events: rank 0 has far fewer after E1.
  Text t = Text::real();
  std::vector<std::size_t> rank0;
  {
    Trace good = readTrace(sourceFromString("good.trace", t.str()));
    rank0 = RankCursor(good, 0).eventIndices();
  }
  expectError(Text::real().replace(12, "mem: ( 1 )", "mem: ( 1000 )"), 12,
              "loop level 0 spans 1000 events but rank 0 has only " + std::to_string(rank0.size() - 1) +
                  " events left in the enclosing trace");
  // E19's inner loop (rank 0: 3 of the outer body's 4 events) made longer than the outer body.
  const int loop1 = t.find("LOOP1:", t.find("EVENT19:"));
  expectError(Text::real().replace(loop1, "mem: ( 3 )", "mem: ( 5 )"), loop1,
              "loop level 1 spans 5 events but rank 0 has only 4 events left in the enclosing loop body");
  // A loop starting inside another's body that runs past its end: E20 (rank 0's second event of
  // E19's body of 4) given a loop of 3.
  const int e20 = t.find("EVENT20:");
  Text u = Text::real();
  u.insert(e20 + 3, "LOOP0: iter: ( 2 )[ 1 -1 0 2 1 ] mem: ( 4 )[ 1 -1 0 2 1 ]");
  expectError(u, e20 + 3, "loop level 0 spans 4 events but rank 0 has only 2 events left in the enclosing loop body");
}

TEST(MalformedScalaTrace, MalformedLoops) {
  expectError(Text::real().replace(12, "iter: ( 9 )", "iter: ( -9 )"), 12, "loop iteration count -9 is negative");
  expectError(Text::real().replace(12, "mem: ( 1 )", "mem: ( 0 )"), 12, "loop body of 0 events");
  expectError(Text::real().replace(12, "mem: ( 1 )[ 1 -1 0 4 1 ]", ""), 12, "expected 'mem:' but the line ends");
  expectError(Text::real().replace(12, "( 9 )", "( )"), 12, "empty value list for loop iteration count");
  Text t = Text::real();
  const int e17loop0 = t.find("LOOP0:", t.find("EVENT17:"));
  // Body lengths for ranks 1 and 2 only, iteration counts for 1-3.
  expectError(Text::real().replace(e17loop0, "( 4 )[ 1 -1 3 1 0 ]", ""), e17loop0,
              "loop iteration counts cover ranks 1-3 but body lengths cover ranks 1-2");
  // Two body lengths for rank 3.
  expectError(Text::real().replace(e17loop0, "( 4 )[ 1 -1 3 1 0 ]", "( 4 )[ 1 -1 2 2 1 ]"), e17loop0,
              "loop body lengths give ranks 2 two lists");
  // A group holding a rank that does not execute the event.
  expectError(Text::real().replace(e17loop0, "iter: ( 2 )[ 1 -1 1 3 1 ]", "iter: ( 2 )[ 1 -1 0 4 1 ]"), e17loop0,
              "loop group 0-3 holds ranks that do not execute the event (1-3)");
  // LOOP1 of E19 for rank 2, which has no LOOP0 there.
  const int e19loop1 = t.find("LOOP1:", t.find("EVENT19:"));
  expectError(Text::real().replace(e19loop1, "LOOP1: iter: ( 2 )[ 1 -1 0 1 0 ] mem: ( 3 )[ 1 -1 0 1 0 ]",
                                   "LOOP1: iter: ( 2 )[ 1 -1 2 1 0 ] mem: ( 3 )[ 1 -1 2 1 0 ]"),
              e19loop1, "LOOP1 covers ranks 2 that LOOP0 does not");
}

TEST(MalformedScalaTrace, LoopLevelsOutOfOrder) {
  Text t = Text::real();
  const int loop0 = t.find("LOOP0:", t.find("EVENT17:"));
  Text swapped = Text::real();
  std::swap(swapped.line(loop0), swapped.line(loop0 + 1));
  expectError(swapped, loop0, "LOOP1 without LOOP0: loop levels start at 0");
  expectError(Text::real().replace(loop0 + 1, "LOOP1:", "LOOP2:"), loop0 + 1, "LOOP2 follows LOOP0");
  expectError(Text::real().replace(loop0 + 1, "LOOP1:", "LOOP0:"), loop0 + 1, "LOOP0 follows LOOP0");
  // A loop line after the parameters, a statistics line after the loops.
  Text late = Text::real();
  const std::string loopLine = late.line(12);
  late.erase(12).insert(13, loopLine);
  expectError(late, 13, "loop line after parameter lines");
  Text stat = Text::real();
  const std::string comp = stat.line(8);
  stat.erase(8).insert(12, comp);  // after E1's LOOP0 line
  expectError(stat, 12, "statistics line after loop or parameter lines");
}

TEST(MalformedScalaTrace, UnknownParameterId) {
  expectError(Text::real().replace(26, "1b 0", "1e 0"), 26, "unknown parameter id 1e");
  expectError(Text::real().replace(26, "1b 0", "ff 0"), 26, "unknown parameter id ff");
  expectError(Text::real().replace(26, "1b 0", "1b"), 26, "parameter without values");
  expectError(Text::real().replace(26, "1b 0", "1b 0 ]"), 26, "unexpected ']' after the parameter's values");
}

TEST(MalformedScalaTrace, ParameterValuesOutOfRange) {
  expectError(Text::real().replace(24, "14 16", "14 99"), 24, "datatype index 99 has no known size");
  expectError(Text::real().replace(25, "1a 1", "1a 4"), 25, "destination offset 4 outside 0..3");
  expectError(Text::real().replace(40, "1b 0", "1b 0 \n2b 7"), 41, "source offset 7 outside 0..3");
  expectError(Text::real().replace(16, "19 0", "19 4"), 16, "root 4 outside 0..3");
  expectError(Text::real().replace(23, "12 20480", "12 -20480"), 23, "negative count -20480");
  Text t = Text::real();
  const int wait = t.find("1c 9999");
  expectError(Text::real().replace(wait, "9999", "10000"), wait, "request offset 10000 outside 0..9999");
  expectError(Text::real().replace(wait, "9999", "-2"), wait, "request offset -2 outside 0..9999");
}

TEST(MalformedScalaTrace, HistogramFrequenciesDoNotAddUp) {
  expectError(Text::real().replace(8, "(32 5.76", "(33 5.76"), 8, "histogram bins hold 32 samples but its header says 33");
  expectError(Text::real().replace(8, "7.20 32}", "7.20 40}"), 8, "histogram bins hold more than the 32 samples");
  expectError(Text::real().replace(8, "2.40 0}", "2.40 -1}"), 8, "bin with negative frequency -1");
  expectError(Text::real().replace(8, "(32 5.76", "(-32 5.76"), 8, "histogram with -32 samples");
  expectError(Text::real().replace(8, "(32 5.76 1 5.00", "(32 5.76 9 5.00"), 8, "histogram min rank 9 outside the trace's ranks 0..3");
  Text t = Text::real();
  const std::string line8 = t.line(8);
  expectError(Text::real().set(8, line8.substr(0, line8.find('{'))), 8, "histogram without bins");
  expectError(Text::real().replace(8, "4b-0:", "4d-0:"), 8, "unknown statistic code '4d'");
  expectError(Text::real().replace(10, "COMM 4b-0:", "COMM 4c-0:"), 10, "COMM statistics must be times (4b)");
  // The same path twice.
  Text dup = Text::real();
  dup.insert(9, dup.line(8));
  expectError(dup, 9, "second COMP 4b histogram for path 46cf59_46d288_46d3a3_46d48f");
}

TEST(MalformedScalaTrace, BlockNotStartingWithRanks) {
  expectError(Text::real().replace(18, "RANKS:", "RANK:"), 18, "a block must start with 'RANKS:'");
  try {
    readScalaTrace(sourceFromString("bad.trace", Text::real().replace(1, "RANKS:", "ranks:").str()));
    ADD_FAILURE() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 1) << e.render();
    EXPECT_NE(e.message().find("a block must start with 'RANKS:'"), std::string::npos) << e.render();
  }
  // Two blocks run together: the second RANKS line inside the first block.
  expectError(Text::real().erase(17), 17, "new block without a separating empty line");
  // A blank line inside a block splits it: the second half does not start with RANKS.
  expectError(Text::real().insert(12, ""), 13, "a block must start with 'RANKS:'");
}

TEST(MalformedScalaTrace, MissingEventLine) {
  expectError(Text::real().erase(19), 19, "the second line of a block must be 'EVENTn: opcode signature'");
  expectError(Text::real().replace(19, "EVENT2:", "EVENT2"), 19, "the second line of a block must be 'EVENTn: opcode signature'");
  expectError(Text::real().replace(19, "EVENT2:", "EVENT:"), 19, "the second line of a block must be 'EVENTn: opcode signature'");
}

TEST(MalformedScalaTrace, EventNumbersOutOfOrder) {
  expectError(Text::real().replace(19, "EVENT2:", "EVENT3:"), 19, "event number 3 where 2 was expected");
  // A block deleted (E2: lines 18-27).
  Text t = Text::real();
  for (int i = 0; i < 10; ++i) t.erase(18);
  expectError(t, 19, "event number 3 where 2 was expected");
  // A block duplicated.
  Text d = Text::real();
  for (int i = 0; i < 10; ++i) d.insert(28 + i, d.line(18 + i));
  expectError(d, 29, "event number 2 where 3 was expected");
  // Events after MPI_Finalize.
  Text f = Text::real();
  f.insert(f.size() + 1, "RANKS: 1 -1 0 4 1");
  f.insert(f.size() + 1, "EVENT63: 1010 46a0df_46a43f_46a582_46a674");
  expectError(f, f.size() - 1, "event after MPI_Finalize (event 62)");
}

TEST(MalformedScalaTrace, ParameterGroupsThatDoNotCoverTheRanks) {
  Text t = Text::real();
  const int dest = t.find("1a ( 1 2 )", t.find("EVENT19:"));  // E19: groups {0}, {1,3}, {2}
  expectError(Text::real().erase(dest + 2), dest, "parameter 'dest' has no values for ranks 2");
  expectError(Text::real().erase(dest), dest + 0, "parameter 'dest' has no values for ranks 0");
  // A group holding a rank that does not execute the event (E2 runs on rank 2 only).
  expectError(Text::real().replace(25, "1a 1", "1a ( 1 )[ 1 -1 0 1 0 ]"), 25,
              "value group 0 holds ranks that do not execute the event (2)");
}

TEST(MalformedScalaTrace, OverlappingParameterGroups) {
  Text t = Text::real();
  const int dest = t.find("1a ( 1 2 )", t.find("EVENT19:"));
  expectError(Text::real().replace(dest + 2, "[ 1 -1 2 1 0 ]", "[ 1 -1 1 1 0 ]"), dest + 2,
              "parameter 1a gives ranks 1 two value lists");
  // The plain form applies to all the event's ranks: a second line overlaps it.
  expectError(Text::real().insert(24, "12 1 "), 24, "parameter 12 gives ranks 2 two value lists");
}

TEST(MalformedScalaTrace, WaitOnARequestNeverCreated) {
  // A wait as the first call after MPI_Init.
  const std::string all = "1 -1 0 2 1";
  const std::string text = "RANKS: " + all + "\nEVENT0: 1084 a\n33 2 \n34 0 \n\nRANKS: " + all +
                           "\nEVENT1: 1148 b\n1c 9999 \n\nRANKS: " + all + "\nEVENT2: 1045 c\n\n";
  expectExpansionError(text, 6, "rank 0 waits on request offset 9999, but has made only 0 request-creating calls");
  // In the real trace: E18 (ranks 1-3) waiting on the 10000th most recent request.
  Text t = Text::real();
  const int e18 = t.find("EVENT18:");
  expectExpansionError(Text::real().replace(t.find("1c 9999", e18), "9999", "0").str(), e18 - 1,
                       "rank 1 waits on request offset 0, but has made only");
}

// --------------------------------------------------------------------------------------------
// Random damage: reading fails cleanly or succeeds, and a trace that was read expands (or
// fails cleanly) too. Never a crash, a hang or another exception.

class Mutator {
 public:
  explicit Mutator(std::uint64_t seed) : rng_(seed) {}
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng_() % n); }

  std::string token() {
    static const std::vector<std::string> special = {
        "0", "1", "-1", "-2", "2", "3", "4", "5", "9999", "10000", "2147483647", "2147483648", "-2147483649",
        "99999999999999999999", "1.5", "abc", "(", ")", "[", "]", "{", "}", "", "RANKS:", "EVENT1:", "LOOP0:",
        "LOOP1:", "iter:", "mem:", "COMP", "COMM", "4b-0:", "NULL", "1045", "1084", "1113", "1090", "1148", "1a", "2b"};
    if (pick(3) == 0) return std::to_string(static_cast<std::int64_t>(pick(200)) - 50);
    return special[pick(special.size())];
  }

  // Returns the damaged text and says what was done.
  std::string mutate(const std::string& text, std::string& what) {
    Text t(text);
    const int n = static_cast<int>(pick(static_cast<std::size_t>(t.size()))) + 1;
    switch (pick(8)) {
      case 0:
        what = "delete line " + std::to_string(n);
        t.erase(n);
        break;
      case 1:
        what = "duplicate line " + std::to_string(n);
        t.insert(n, t.line(n));
        break;
      case 2:
      case 3:
      case 4: {  // alter, delete or insert one token
        std::vector<std::string> tokens;
        std::istringstream in(t.line(n));
        for (std::string s; in >> s;) tokens.push_back(s);
        const std::size_t k = tokens.empty() ? 0 : pick(tokens.size() + 1);
        const std::size_t kind = pick(3);
        if (kind == 0 && k < tokens.size()) {
          tokens.erase(tokens.begin() + static_cast<std::ptrdiff_t>(k));
        } else if (kind == 1 || k >= tokens.size()) {
          tokens.insert(tokens.begin() + static_cast<std::ptrdiff_t>(k), token());
        } else {
          tokens[k] = token();
        }
        std::string line;
        for (const auto& s : tokens) line += s + " ";
        what = "line " + std::to_string(n) + " becomes '" + line + "'";
        t.set(n, line);
        break;
      }
      case 5: {  // change one character
        std::string& l = t.line(n);
        if (l.empty()) {
          l = "x";
        } else {
          const std::string chars = "0123456789-() []{}:. abcdefx";
          l[pick(l.size())] = chars[pick(chars.size())];
        }
        what = "line " + std::to_string(n) + " becomes '" + l + "'";
        break;
      }
      case 6: {
        const int m = static_cast<int>(pick(static_cast<std::size_t>(t.size()))) + 1;
        what = "swap lines " + std::to_string(n) + " and " + std::to_string(m);
        std::swap(t.line(n), t.line(m));
        break;
      }
      default: {
        const std::size_t at = pick(text.size());
        what = "truncate at byte " + std::to_string(at);
        return text.substr(0, at);
      }
    }
    return t.str();
  }

 private:
  std::mt19937_64 rng_;
};

TEST(MalformedScalaTrace, RandomMutationsFailCleanly) {
  const std::int64_t kMaxCallsPerRank = 2'000'000;  // the real traces have at most 63803
  int read = 0, rejected = 0, expansionErrors = 0, cutShort = 0;
  for (const char* name : {kTdLu, kTiCg}) {
    const std::string original = readFile(name);
    Mutator mutator(name == kTdLu ? 20240601 : 20240602);
    for (int i = 0; i < testing::sanitizerTrials(100); ++i) {
      std::string what;
      const std::string text = mutator.mutate(original, what);
      SCOPED_TRACE(std::string(name) + " mutation " + std::to_string(i) + ": " + what);
      const auto started = std::chrono::steady_clock::now();
      try {
        Trace t = readTrace(sourceFromString("mutated.trace", text));
        ++read;
        if (t.numRanks > 64) continue;  // a mutated world size; expanding it proves nothing more
        try {
          for (Rank r = 0; r < t.numRanks; ++r) {
            RankCursor cursor(t, r, "mutated.trace");
            Call c;
            std::int64_t calls = 0;
            while (calls < kMaxCallsPerRank && cursor.next(c)) ++calls;
            if (calls == kMaxCallsPerRank) ++cutShort;
          }
        } catch (const InputError& e) {
          ++expansionErrors;
          EXPECT_GT(e.line(), 0) << e.render();
          EXPECT_LE(e.line(), Text(text).size()) << e.render();
        }
      } catch (const InputError& e) {
        ++rejected;
        EXPECT_EQ(e.file(), "mutated.trace");
        EXPECT_GE(e.line(), 1) << e.render();
        EXPECT_LE(e.line(), std::max(1, Text(text).size())) << e.render();
        EXPECT_FALSE(e.message().empty());
      } catch (const std::exception& e) {
        ADD_FAILURE() << "not an InputError: " << e.what();
      }
      const auto seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      EXPECT_LT(seconds, 20.0) << "took " << seconds << " s";
    }
  }
  // Most damage is caught by the reader; some mutations are harmless (a duplicated blank line,
  // a changed measurement).
  EXPECT_GT(rejected, testing::sanitizerTrials(100));
  EXPECT_GT(read, testing::sanitizerTrials(5));
  RecordProperty("read", read);
  RecordProperty("rejected", rejected);
  RecordProperty("expansionErrors", expansionErrors);
  RecordProperty("cutShort", cutShort);
  std::cout << "mutations: " << rejected << " rejected, " << read << " read (" << expansionErrors
            << " failed to expand, " << cutShort << " ranks cut short)\n";
}

}  // namespace
}  // namespace tracegen
