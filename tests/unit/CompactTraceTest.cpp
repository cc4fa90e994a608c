// Compact and compressed traces: the site table (`site N NAME`, `after @N`), histograms in the
// compact spelling (positional, standard bins without their edges, extremes the bins state by
// their rank alone) and the earlier one (without empty bins, with the `[start end]` short form),
// the one histogram reader both formats share
// (same checks, same messages), and zstd-compressed input: read transparently, diagnostics at the
// lines of the decompressed text, corrupt, truncated and oversized (bomb) input refused with a
// precise error.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <zstd.h>

#include "io/Compression.h"
#include "ir/Diagnostics.h"
#include "io/Readers.h"

namespace tracegen {
namespace {

namespace fs = std::filesystem;

std::string fileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Two ranks: an Init, a loop of 3 barriers, a Finalize; histograms keyed by the Init's site and
// by the barrier's own (the loop's back edge).
const std::string kTrace =
    "tracegen-trace 1\n"
    "ranks 2\n"
    "event 0 MPI_Init @ <1 0 {2 1}>\n"
    "  site init.c:1\n"
    "event 1 MPI_Barrier @ <1 0 {2 1}>\n"
    "  site loop.c:7\n"
    "  loop 0 iter 3\n"
    "  loop 0 mem 1\n"
    "  time comp us after init.c:1 n=2 avg=5 min=4@0 max=6@1 bins=[1 4 5 6 10 2]\n"
    "  time comp us after loop.c:7 n=4 avg=50 min=12@1 max=990@0 bins=[10 12 20 30 100 3][100 990 990 990 1000 1]"
    "[1000 1000 1000 1000 10000 0]\n"
    "  time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 0.25 0.5 0.75 1 4]\n"
    "event 2 MPI_Finalize @ <1 0 {2 1}>\n"
    "  site fin.c:9\n"
    "  time comp us after loop.c:7 n=2 avg=3 min=2@0 max=4@1 bins=[1 2 3 4 10 2]\n";

// Reads `bytes` as tracegen reads a file (decompressing zstd, at most `limit` bytes of text).
void expectBytesError(const std::string& name, const std::string& bytes, std::size_t limit, int line, const std::string& what) {
  try {
    readTrace(sourceFromBytes(name, bytes, limit));
    ADD_FAILURE() << "accepted " << name;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), name);
    EXPECT_EQ(e.line(), line) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
  }
}

void expectBytesError(const std::string& name, const std::string& bytes, int line, const std::string& what) {
  expectBytesError(name, bytes, kMaxTraceTextBytes, line, what);
}

void expectError(const std::string& text, int line, const std::string& what) { expectBytesError("bad.tgt", text, line, what); }

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  const std::size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

TEST(CompactTraceTest, WriterUsesTheSiteTableShortBinsAndNoEmptyBins) {
  const Trace t = readTrace(sourceFromString("t.tgt", kTrace));
  const std::string text = tracegenText(t);
  // loop.c:7 precedes three histograms: one table entry; init.c:1 precedes one: by name.
  EXPECT_NE(text.find("\nsite 0 loop.c:7\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("site 1 "), std::string::npos) << text;
  EXPECT_NE(text.find("  site loop.c:7\n"), std::string::npos) << text;  // the event's own line keeps the name
  // The compact spelling: one standard bin with the header's statistics is no bins at all.
  EXPECT_NE(text.find("time comp us after init.c:1 2 5 4@0 6@1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("time comp us after @0 4 50 @1 @0 [12 20 30 3][990 1]\n"), std::string::npos)
      << text;  // the empty [1000, 10000) bin is gone, the one-sample bin is `[v freq]`, the extremes the bins'
  EXPECT_NE(text.find("time mpi us after @0 4 0.5 0.25@0 0.75@1\n"), std::string::npos) << text;
  // Reads back to an equal trace, which writes the same bytes.
  const Trace back = readTrace(sourceFromString("back.tgt", text));
  EXPECT_EQ(back, t);
  EXPECT_EQ(tracegenText(back), text);
  const TimeStat& st = back.events[1].stats[0];
  ASSERT_EQ(st.hist.bins.size(), 1u);
  EXPECT_EQ(st.hist.bins[0], (Bin{1, 4, 5, 6, 10, 2}));
  EXPECT_EQ(back.siteName(back.events[1].stats[1].after), "loop.c:7");
  // Smaller than the old spelling.
  EXPECT_LT(text.size(), kTrace.size());
}

TEST(CompactTraceTest, SiteTableReferencesAnywhereASiteGoes) {
  const std::string text = replaced(replaced(replaced(kTrace, "ranks 2\n", "ranks 2\nsite 7 loop.c:7\nsite 0 fin.c:9\n"),
                                             "  site fin.c:9\n", "  site @0\n"),
                                    "time mpi us after loop.c:7", "time mpi us after @7");
  const Trace t = readTrace(sourceFromString("t.tgt", text));
  EXPECT_EQ(t, readTrace(sourceFromString("t.tgt", kTrace)));
  expectError(replaced(kTrace, "after init.c:1", "after @3"), 9, "site @3 is not in the site table");
  expectError(replaced(kTrace, "ranks 2\n", "ranks 2\nsite 1 a.c:1\nsite 1 b.c:2\n"), 4, "site @1 is declared twice (first at line 3)");
  expectError(replaced(kTrace, "ranks 2\n", "ranks 2\nsite -1 a.c:1\n"), 3, "site table index -1 is outside");
  expectError(replaced(kTrace, "ranks 2\n", "ranks 2\nsite 1 -\n"), 3, "`-` stands for no site");
  expectError(replaced(kTrace, "ranks 2\n", "ranks 2\nsite 1 a.c:1 b.c:2\n"), 3, "unexpected 'b.c:2'");
}

TEST(CompactTraceTest, ShortBinIsTheOnlyBin) {
  const std::string base = "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 0.25 0.5 0.75 1 4]";
  const Trace t = readTrace(sourceFromString("t.tgt", replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 1]")));
  EXPECT_EQ(t, readTrace(sourceFromString("t.tgt", kTrace)));
  expectError(replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 1][1 1 1 1 2 0]"), 11,
              "must be the histogram's only bin");
  expectError(replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 1 1 1 1 0][2 3]"), 11,
              "must be the histogram's only bin");
  expectError(replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0]"), 11, "for bin minimum");
  expectError(replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 1 1 1 1 1 4]"), 11,
              "expected ']' but found '4'");
  // `[start v end freq]`: a bin of equal samples.
  const Trace equal = readTrace(sourceFromString(
      "t.tgt", replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 0.25 1 1][0 0.5 1 3]")));
  ASSERT_EQ(equal.events[1].stats[2].hist.bins.size(), 2u);
  EXPECT_EQ(equal.events[1].stats[2].hist.bins[1], (Bin{0, 0.5, 0.5, 0.5, 1, 3}));
  // n=0: no bins at all.
  const Trace empty =
      readTrace(sourceFromString("t.tgt", replaced(kTrace, base, "time mpi us after loop.c:7 n=0 avg=0 min=0@0 max=0@0 bins=")));
  EXPECT_TRUE(empty.events[1].stats[2].hist.bins.empty());
}

// The compact spelling reads as the earlier one it abbreviates, bin form by bin form, and a
// trace written in it reads back to the same trace, which writes the same bytes.
TEST(CompactTraceTest, CompactHistogramsReadAsTheEarlierSpelling) {
  const std::string base = "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 0.25 0.5 0.75 1 4]";
  auto same = [&](const std::string& earlier, const std::string& compact) {
    const Trace a = readTrace(sourceFromString("a.tgt", replaced(kTrace, base, "time mpi us after loop.c:7 " + earlier)));
    const Trace b = readTrace(sourceFromString("b.tgt", replaced(kTrace, base, "time mpi us after loop.c:7 " + compact)));
    EXPECT_EQ(a, b) << compact;
    // Written, read and written again: the same bytes, in the compact spelling.
    const std::string text = tracegenText(b);
    EXPECT_EQ(text.find(" n="), std::string::npos) << text;
    const Trace back = readTrace(sourceFromString("back.tgt", text));
    EXPECT_EQ(back, b) << text;
    EXPECT_EQ(tracegenText(back), text);
  };
  // Standard bins: edges from the bin's minimum; `[v freq]`; `@R` extremes; explicit edges.
  same("n=4 avg=2 min=0.25@0 max=7@1 bins=[0 0.25 0.5 0.75 1 2][1 3.5 3.5 3.5 10 1][1e6 7 7 7 1e9 1]",
       "4 2 @0 @1 [0.25 0.5 0.75 2][3.5 1][1e6 7 7 7 1e9 1]");
  same("n=4 avg=2 min=0.2@0 max=7@1 bins=[0 0.25 0.5 0.75 1 2][1 3.5 3.5 3.5 10 1][1 7 7 7 10 1]",
       "4 2 0.2@0 7@1 [0.25 0.5 0.75 2][3.5 1][7 1]");
  same("n=4 avg=2 min=0.25@0 max=9@1 bins=[0 0.25 0.5 0.75 1 3][1 7 7 7 10 1]", "4 2 @0 9@1 [0.25 0.5 0.75 3][7 1]");
  // `~`: the bins' mean, rounded as the recorder rounds an average (three significant digits).
  same("n=4 avg=1 min=0.2@0 max=1.5@1 bins=[0 0.2 0.5 0.8 1 2][1 1.5 1.5 1.5 10 2]", "4 ~ @0 @1 [0.2 0.5 0.8 2][1.5 2]");
  same("n=3 avg=0.667 min=0.5@0 max=1@1 bins=[0 0.5 0.5 0.5 1 2][1 1 1 1 10 1]", "3 ~ @0 @1 [0.5 2][1 1]");
  same("n=3 avg=0.6667 min=0.5@0 max=1@1 bins=[0 0.5 0.5 0.5 1 2][1 1 1 1 10 1]", "3 0.6667 @0 @1 [0.5 2][1 1]");
  {
    const std::string text = tracegenText(readTrace(sourceFromString(
        "t.tgt", replaced(kTrace, base, "time mpi us after loop.c:7 n=4 avg=1 min=0.2@0 max=1.5@1 bins=[0 0.2 0.5 0.8 1 2][1 1.5 10 2]"))));
    EXPECT_NE(text.find("time mpi us after @0 4 ~ @0 @1 [0.2 0.5 0.8 2][1.5 2]\n"), std::string::npos) << text;
  }
  // One standard bin of every sample with the header's statistics: no bins.
  same("n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 1]", "4 0.5 0.25@0 0.75@1");
  same("n=4 avg=5e6 min=2e6@0 max=8e6@1 bins=[1e6 1e9]", "4 5e6 2e6@0 8e6@1");
  // A minimum on its bin's upper edge (rounded up) keeps the edges; so do non-standard bins.
  same("n=4 avg=7 min=10@0 max=10@1 bins=[1 10 10 10 10 2][5 5 5 5 50 2]", "4 7 @0 10@1 [1 10 10 10 10 2][5 5 5 5 50 2]");
  same("n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 2]", "4 0.5 @0 @1 [0 0.25 0.5 0.75 2 4]");
  // No samples: no bins.
  same("n=0 avg=0 min=0@0 max=0@0 bins=", "0 0 0@0 0@0");
  // With drift ranges after the bins.
  same("n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 1] calls=[0 0.75 1][1 0.4 3]", "4 0.5 0.25@0 0.75@1 calls=[0 0.75 1][1 0.4 3]");
  same("n=4 avg=2 min=0.25@0 max=9@1 bins=[0 0.25 0.5 0.75 1 3][1 7 7 7 10 1] calls=[0 2 4]",
       "4 2 @0 9@1 [0.25 0.5 0.75 3][7 1] calls=[0 2 4]");
}

// Random histograms (standard and other bins, extremes the bins' or not, drift or none) written
// and read back: the same trace and the same bytes.
TEST(CompactTraceTest, RandomHistogramsRoundTrip) {
  std::mt19937_64 rng(20261129);
  const double edges[] = {0, 1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e9};
  auto pick = [&](double lo, double hi) {
    const double v = lo + (hi - lo) * static_cast<double>(rng() % 1000) / 1000.0;
    return std::round(v * 100) / 100;
  };
  Trace t = readTrace(sourceFromString("t.tgt", kTrace));
  for (int round = 0; round < 300; ++round) {
    Histogram& h = t.events[1].stats[2].hist;
    h = Histogram{};
    const int nbins = static_cast<int>(rng() % 4);
    for (int k = 0, b = static_cast<int>(rng() % 3); k < nbins && b < 8; ++k, b += 1 + static_cast<int>(rng() % 2)) {
      Bin bin;
      bin.start = edges[b];
      bin.end = edges[b + 1];
      if (rng() % 5 == 0) bin.end = bin.start + 5;  // not a standard bin
      bin.min = rng() % 7 == 0 ? bin.end : pick(bin.start, std::min(bin.end, bin.start + 999));
      bin.max = rng() % 3 == 0 ? bin.min : pick(bin.min, bin.min + 50);
      bin.avg = rng() % 2 == 0 ? bin.min : (bin.min + bin.max) / 2;
      bin.freq = 1 + static_cast<std::int64_t>(rng() % 20);
      h.n += bin.freq;
      h.bins.push_back(bin);
    }
    h.avg = h.bins.empty() ? pick(0, 5) : h.bins.front().avg;
    h.min = h.bins.empty() || rng() % 4 == 0 ? pick(0, 1) : h.bins.front().min;
    h.max = h.bins.empty() || rng() % 4 == 0 ? pick(1, 2) : h.bins.back().max;
    if (h.bins.size() == 1 && rng() % 2 == 0) h.min = h.bins[0].min, h.max = h.bins[0].max, h.avg = h.bins[0].avg;
    h.minRank = static_cast<Rank>(rng() % 2);
    h.maxRank = static_cast<Rank>(rng() % 2);
    if (h.n > 0 && rng() % 4 == 0) h.calls = {{0, pick(0, 9), 1}, {1, pick(0, 9), h.n - 1}};
    if (h.calls.size() == 2 && h.calls[1].n == 0) h.calls.pop_back(), h.calls[0].n = h.n;
    const std::string text = tracegenText(t);
    const Trace back = readTrace(sourceFromString("back.tgt", text));
    ASSERT_EQ(back, t) << text;
    ASSERT_EQ(tracegenText(back), text);
  }
}

TEST(CompactTraceTest, BadCompactHistogramsAreRefusedWithTheirLine) {
  const std::string base = "time mpi us after loop.c:7 n=4 avg=0.5 min=0.25@0 max=0.75@1 bins=[0 0.25 0.5 0.75 1 4]";
  auto bad = [&](const std::string& compact, const std::string& what) {
    expectError(replaced(kTrace, base, "time mpi us after loop.c:7 " + compact), 11, what);
  };
  bad("4 0.5 @0 0.75@1", "written `@R` but no bins");
  bad("4 0.5 0.25@0 @1", "written `@R` but no bins");
  bad("4 ~ 0.25@0 0.75@1", "average written `~` but no bins");
  bad("4 0.5 2e9@0 3e9@1", "histogram minimum 2000000000 lies in no standard bin");
  bad("4 0.5 @0 @1 [2e9 2e9 2e9 4]", "bin minimum 2000000000 lies in no standard bin");
  bad("4 0.5 @0 @1 [0.25 0.5 0.75 3]", "histogram bins hold 3 samples but its header says 4");
  bad("4 0.5 @0 @1 [0.25 0.5 0.75 5]", "histogram bins hold more than the 4 samples");
  bad("4 0.5 @0 @1 [0.25 0.5 0.75 4][1 0]", "bin with 0 samples");
  bad("4 0.5 @0 @1 [0.25 0.5 4]", "a bin of 3 numbers");
  bad("4 0.5 @0 @1 [0 0.25 0.5 0.75 1 2 4]", "a bin of 7 numbers");
  bad("4 0.5 @0 @1 []", "a bin of 0 numbers");
  bad("4 0.5 0.25@7 0.75@1", "histogram minimum rank 7 outside the trace's ranks 0..1");
  bad("-1 0.5 0.25@0 0.75@1", "histogram with -1 samples");
  bad("4 1e16 0.25@0 0.75@1", "histogram average: time 1e+16 beyond the limit");
  bad("4 0.5 0.25 0.75@1", "expected '@'");
  bad("4", "expected histogram average but the line ends");
  bad("4 0.5 0.25@0 0.75@1 calls=[0 1 3]", "call ranges hold 3 samples but the histogram's header says 4");
  bad("four 0.5 0.25@0 0.75@1", "histogram sample count");
}

// A real recording in the earlier spelling: written in the compact one it reads back to the same
// trace, which writes the same bytes again, and is smaller, plain and compressed.
TEST(CompactTraceTest, RecordingInTheEarlierSpellingRoundTripsThroughTheCompactOne) {
  const fs::path path = fs::path(TRACEGEN_TEST_DATA_DIR) / "histograms" / "wavefront-4-earlier.tgt";
  const std::string earlier = fileText(path);
  ASSERT_NE(earlier.find(" n="), std::string::npos);
  const Trace t = readTraceFile(path.string());
  const std::string text = tracegenText(t);
  EXPECT_EQ(text.find(" n="), std::string::npos) << text;
  EXPECT_EQ(text.find("bins="), std::string::npos) << text;
  EXPECT_NE(text.find(" ~ "), std::string::npos) << text;
  const Trace back = readTrace(sourceFromString("back.tgt", text));
  EXPECT_EQ(back, t);
  EXPECT_EQ(tracegenText(back), text);
  // The earlier text rewritten by the same writer (times, groups, drift) is the compact text.
  EXPECT_EQ(tracegenText(readTrace(sourceFromString("again.tgt", earlier))), text);
  EXPECT_LT(text.size(), earlier.size());
  EXPECT_LT(compressTrace(text).size(), compressTrace(earlier).size());
}

// MPI_COMM_SELF and MPI_COMM_WORLD, first and standard, are left out (a reader adds them in
// front); any other communicator table is written whole.
TEST(CompactTraceTest, StandardCommunicatorsAreLeftOut) {
  const std::string withComms = replaced(kTrace, "ranks 2\n", "ranks 2\ncomm 1 self\ncomm 2 world (<1 0 {2 1}>)\ncomm 1000 dup (<1 0 {2 1}>)\n");
  const Trace t = readTrace(sourceFromString("t.tgt", withComms));
  ASSERT_EQ(t.comms.size(), 3u);
  const std::string text = tracegenText(t);
  EXPECT_EQ(text.find("comm 1 self"), std::string::npos) << text;
  EXPECT_EQ(text.find("comm 2 world"), std::string::npos) << text;
  EXPECT_NE(text.find("\ncomm 1000 dup (<1 0 {2 1}>)\n"), std::string::npos) << text;
  const Trace back = readTrace(sourceFromString("back.tgt", text));
  EXPECT_EQ(back, t);
  EXPECT_EQ(tracegenText(back), text);
  // Declared after another communicator, or world without its instance: written as they are.
  for (const std::string& table : {std::string("comm 1000 dup (<1 0 {2 1}>)\ncomm 1 self\ncomm 2 world (<1 0 {2 1}>)\n"),
                                   std::string("comm 1 self\ncomm 2 world\n")}) {
    const Trace u = readTrace(sourceFromString("u.tgt", replaced(kTrace, "ranks 2\n", "ranks 2\n" + table)));
    const std::string utext = tracegenText(u);
    EXPECT_NE(utext.find("comm 1 self\n"), std::string::npos) << utext;
    EXPECT_EQ(readTrace(sourceFromString("back.tgt", utext)), u);
    EXPECT_EQ(tracegenText(readTrace(sourceFromString("back.tgt", utext))), utext);
  }
}

// The histogram checks are one function: both formats report the same problem the same way.
TEST(CompactTraceTest, OneHistogramReaderForBothFormats) {
  const std::string st = fileText(fs::path(TRACEGEN_TEST_DATA_DIR) / "scalatrace" / "scalatrace2-npb-td-lu-A-4.trace");
  const std::size_t open = st.find("(", st.find("COMP"));
  ASSERT_NE(open, std::string::npos);
  // Rank 9 of 4 as the minimum's rank, in either spelling.
  std::string badSt = st;
  {
    std::istringstream in(st.substr(open + 1));
    std::string n, avg, minRank;
    in >> n >> avg >> minRank;
    const std::size_t at = st.find(minRank, open + 1 + n.size() + avg.size());
    badSt.replace(at, minRank.size(), "9");
  }
  const int stLine = static_cast<int>(std::count(st.begin(), st.begin() + static_cast<std::ptrdiff_t>(open), '\n')) + 1;
  expectBytesError("bad.trace", badSt, stLine, "histogram min rank 9 outside the trace's ranks 0..3");
  expectError(replaced(kTrace, "min=4@0", "min=4@9"), 9, "histogram min rank 9 outside the trace's ranks 0..1");
  expectError(replaced(kTrace, "bins=[1 4 5 6 10 2]", "bins=[1 4 5 6 10 3]"), 9, "histogram bins hold more than the 2 samples");
  expectError(replaced(kTrace, "bins=[1 4 5 6 10 2]", "bins=[1 4 5 6 10 1]"), 9, "histogram bins hold 1 samples but its header says 2");
  expectError(replaced(kTrace, "bins=[1 4 5 6 10 2]", "bins="), 9, "histogram without bins");
  expectError(replaced(kTrace, "avg=5 min", "avg=1e16 min"), 9, "histogram average: time 1e+16 beyond the limit");
}

// ---- triplets in value lists ------------------------------------------------------------------

// Four ranks sending in a loop; COUNTS and ITERS are replaced by each test.
const std::string kSendLoop =
    "tracegen-trace 1\n"
    "ranks 4\n"
    "datatype MPI_DOUBLE 8\n"
    "comm 2 world (<1 0 {4 1}>)\n"
    "event 0 MPI_Init @ <1 0 {4 1}>\n"
    "event 1 MPI_Send @ <1 0 {4 1}>\n"
    "  loop 0 iter ITERS\n"
    "  loop 0 mem 1\n"
    "  comm 2\n"
    "  count COUNTS\n"
    "  datatype MPI_DOUBLE\n"
    "  dest rel 1\n"
    "  tag 7\n"
    "event 2 MPI_Finalize @ <1 0 {4 1}>\n";

std::string sendLoop(const std::string& counts, const std::string& iters = "100") {
  return replaced(replaced(kSendLoop, "COUNTS", counts), "ITERS", iters);
}

std::vector<std::int64_t> countsOf(const Trace& t) {
  for (const ParamValues& pv : t.events[1].params)
    if (pv.param == Param::Count) return pv.groups.front().values;
  return {};
}

TEST(CompactTraceTest, TripletsReadAsTheirValues) {
  const Trace t = readTrace(sourceFromString("t.tgt", sendLoop("5 0:12:4 100 12:0:-6", "1:4:1 9")));
  EXPECT_EQ(countsOf(t), (std::vector<std::int64_t>{5, 0, 4, 8, 12, 100, 12, 6, 0}));
  EXPECT_EQ(t.events[1].loops[0].iter.front().values, (std::vector<std::int64_t>{1, 2, 3, 4, 9}));
  // The same trace written with the values themselves reads the same.
  EXPECT_EQ(t, readTrace(sourceFromString("u.tgt", sendLoop("5 0 4 8 12 100 12 6 0", "1 2 3 4 9"))));
}

// The writer spells runs of four or more values with one non-zero stride as triplets, shorter
// runs and the rest value by value, and what it writes reads back to the same trace.
TEST(CompactTraceTest, WriterSpellsRunsAsTripletsAndReadsThemBack) {
  const Trace t = readTrace(sourceFromString("t.tgt", sendLoop("0 4096 8192 12288 16384 7 7 7 7 1 2 3 2147483647 0", "3 2 1 0")));
  const std::string text = tracegenText(t);
  EXPECT_NE(text.find("  count 0:16384:4096 7 7 7 7 1 2 3 2147483647 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  loop 0 iter 3:0:-1\n"), std::string::npos) << text;
  EXPECT_EQ(readTrace(sourceFromString("again.tgt", text)), t);
  // Random lists: runs of random strides (extremes included) among random values.
  std::mt19937_64 rng(20261126);
  for (int round = 0; round < 300; ++round) {
    std::vector<std::int64_t> values;
    while (values.size() < 40) {
      const std::int64_t start = static_cast<std::int64_t>(rng() % 1000000);
      if (rng() % 3 == 0) {
        values.push_back(start);
        continue;
      }
      const std::int64_t stride = static_cast<std::int64_t>(rng() % 2001) - 1000;
      for (std::uint64_t k = 0, n = 1 + rng() % 7; k < n; ++k) values.push_back(std::max<std::int64_t>(0, start + static_cast<std::int64_t>(k) * stride));
    }
    if (round % 10 == 0) values.push_back(std::numeric_limits<std::int32_t>::max());  // the largest count
    std::string counts;
    for (std::int64_t v : values) counts += (counts.empty() ? "" : " ") + std::to_string(v);
    const Trace r = readTrace(sourceFromString("r.tgt", sendLoop(counts)));
    const std::string written = tracegenText(r);
    const Trace back = readTrace(sourceFromString("back.tgt", written));
    ASSERT_EQ(countsOf(back), values) << written;
    EXPECT_EQ(back, r);
  }
}

TEST(CompactTraceTest, BadTripletsAreRefusedWithTheirLine) {
  expectError(sendLoop("0:10:3"), 10, "triplet '0:10:3' does not step from 0 to 10");
  expectError(sendLoop("0:10:0"), 10, "does not step");
  expectError(sendLoop("5:5:1"), 10, "does not step");
  expectError(sendLoop("0:10:-1"), 10, "does not step");
  expectError(sendLoop("0:10"), 10, "bad triplet '0:10'");
  expectError(sendLoop("0:1:1:1"), 10, "bad triplet");
  expectError(sendLoop("a:b:c"), 10, "bad triplet");
  expectError(sendLoop("4", "0:5:-1"), 7, "does not step");
  expectError(sendLoop("4", "2:-2:-1"), 7, "loop level 0 with -1 iterations");
  // A triplet declares its length: beyond the file's budget it is refused before any value is made.
  expectError(sendLoop("0:100000000:1"), 10, "expand to more than 16777216 values");
  expectError(sendLoop("0:9223372036854775807:1"), 10, "expand to more than");
  expectError(sendLoop("-9223372036854775808:9223372036854775807:1"), 10, "expand to more than");
  expectError(sendLoop("0:9000000:1 0:9000000:1"), 10, "expand to more than");  // the budget is the file's
  // Values a triplet makes are checked as written ones are.
  expectError(replaced(sendLoop("4"), "dest rel 1", "dest 0:8:2"), 12, "dest 4 is outside the trace's ranks 0..3");
  // Ends in range: every value is (the reader checks only the ends then). An end out of range
  // makes the reader name the first value out of range, whichever end it is.
  expectError(replaced(sendLoop("4"), "dest rel 1", "dest 6:0:-2"), 12, "dest 6 is outside the trace's ranks 0..3");
  expectError(replaced(sendLoop("4"), "datatype MPI_DOUBLE\n  dest", "datatype 1:4:1\n  dest"), 11, "unknown datatype '1:4:1'");
}

// ---- displacements as steps -------------------------------------------------------------------

// An MPI_Alltoallv of packed buffers on four ranks: its displacements are running sums of its
// counts. DISPLS is replaced by each test.
const std::string kAlltoallv =
    "tracegen-trace 1\n"
    "ranks 4\n"
    "datatype MPI_INT 4\n"
    "event 0 MPI_Init @ <1 0 {4 1}>\n"
    "event 1 MPI_Alltoallv @ <1 0 {4 1}>\n"
    "  loop 0 iter 2\n"
    "  loop 0 mem 1\n"
    "  comm 2\n"
    "  datatype MPI_INT\n"
    "  recvtype MPI_INT\n"
    "  recvcounts 120 130 140 150 121 131 141 151\n"
    "  sendcounts 120 130 140 150 121 131 141 151\n"
    "  DISPLS\n"
    "event 2 MPI_Finalize @ <1 0 {4 1}>\n";

TEST(CompactTraceTest, DisplacementsAsSteps) {
  const std::string values = replaced(kAlltoallv, "DISPLS", "displs 0 120 250 390 0 121 252 393\n  rdispls 0 120 250 390");
  const std::string steps =
      replaced(kAlltoallv, "DISPLS", "displs steps 0 120 130 140 -390 121 131 141\n  rdispls steps 0 120 130 140");
  const Trace t = readTrace(sourceFromString("t.tgt", values));
  EXPECT_EQ(readTrace(sourceFromString("s.tgt", steps)), t);
  // Written as steps where their numbers take no more room than the values' (the keyword aside):
  // rdispls's, not displs's (the step back to 0 between the two executions' vectors costs more).
  const std::string text = tracegenText(t);
  EXPECT_NE(text.find("\n  displs 0 120 250 390 0 121 252 393\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  rdispls steps 0 120 130 140\n"), std::string::npos) << text;
  const Trace back = readTrace(sourceFromString("back.tgt", text));
  EXPECT_EQ(back, t);
  EXPECT_EQ(tracegenText(back), text);
  // A triplet is shorter still.
  const std::string flat = tracegenText(readTrace(sourceFromString("f.tgt", replaced(kAlltoallv, "DISPLS", "displs 0 100 200 300 0 100 200 300"))));
  EXPECT_NE(flat.find("\n  displs 0:300:100 0:300:100\n"), std::string::npos) << flat;
  // Steps in a group of ranks of its own.
  const Trace g = readTrace(sourceFromString("g.tgt", replaced(kAlltoallv, "DISPLS", "displs steps 0 1000 1000 1000 @ <1 0 {2 1}>\n  displs 0 5 6 7 @ <1 2 {2 1}>")));
  ASSERT_EQ(g.events[1].params.size(), 6u);
  for (const ParamValues& pv : g.events[1].params) {
    if (pv.param == Param::Displs) {
      EXPECT_EQ(pv.groups.front().values, (std::vector<std::int64_t>{0, 1000, 2000, 3000}));
    }
  }
  EXPECT_EQ(readTrace(sourceFromString("g2.tgt", tracegenText(g))), g);
}

TEST(CompactTraceTest, BadStepsAreRefusedWithTheirLine) {
  auto bad = [&](const std::string& line, const std::string& what) { expectError(replaced(kAlltoallv, "DISPLS", line), 13, what); };
  bad("displs steps 0 x", "bad step 'x' for displs");
  bad("displs steps 0 1:3:1", "bad step '1:3:1' for displs");
  bad("displs steps 2147483647 9223372036854775807", "the steps of displs overflow");
  bad("displs steps 2147483647 1", "displs");
  bad("displs steps", "parameter 'displs' without values");
  bad("displs steps @ <1 0 {4 1}>", "parameter 'displs' without values");
  bad("displs steps 0 (", "bad step '(' for displs");
  // Only displacements take steps.
  expectError(replaced(replaced(kAlltoallv, "DISPLS", "displs 0"), "sendcounts 120", "sendcounts steps 120"), 12, "bad number 'steps' for sendcounts");
}

// ---- compressed input -------------------------------------------------------------------------

TEST(CompactTraceTest, CompressedInputReadsTransparently) {
  const std::string z = compressTrace(kTrace);
  ASSERT_TRUE(isZstdCompressed(z));
  EXPECT_LT(z.size(), kTrace.size());
  EXPECT_EQ(readTrace(sourceFromBytes("t.tgt.zst", z)), readTrace(sourceFromString("t.tgt", kTrace)));
  // Plain bytes pass through unchanged; the name does not matter.
  EXPECT_EQ(sourceFromBytes("t.zst", kTrace).buffer, kTrace);
  // Several frames one after the other are one text.
  const std::size_t half = kTrace.find("event 1");
  const std::string two = compressTrace(kTrace.substr(0, half)) + compressTrace(kTrace.substr(half));
  EXPECT_EQ(sourceFromBytes("two.zst", two).buffer, kTrace);
  // A ScalaTrace trace, compressed, too.
  const fs::path lu = fs::path(TRACEGEN_TEST_DATA_DIR) / "scalatrace" / "scalatrace2-npb-td-lu-A-4.trace";
  EXPECT_EQ(readTrace(sourceFromBytes("lu.trace.zst", compressTrace(fileText(lu)))), readTraceFile(lu.string()));
}

// The recorder's level follows its time budget: small texts get level 19 even on a tiny budget,
// large ones a lower level, and a budget too small for any level gets the fastest (3).
TEST(CompactTraceTest, CompressionLevelFollowsTheBudget) {
  double ns = 0;
  EXPECT_EQ(compressionLevelWithin(8 << 10, 0.005, &ns), 19);  // 8 KB: 4 ms at 490 ns/B
  EXPECT_EQ(ns, 490);
  EXPECT_EQ(compressionLevelWithin(435005, 0.005, &ns), 9);    // LAMMPS's text in a run of seconds
  EXPECT_LE(435005 * ns * 1e-9, 0.005);
  EXPECT_EQ(compressionLevelWithin(435005, 0.25), 19);         // and in a run of 100 s
  EXPECT_EQ(compressionLevelWithin(std::size_t{1} << 30, 0.001, &ns), 3);  // over budget at every level
  EXPECT_EQ(ns, 1.2);
  // More budget never lowers the level.
  int last = 0;
  for (double budget = 1e-4; budget < 100; budget *= 1.5) {
    const int level = compressionLevelWithin(2419129, budget);
    EXPECT_GE(level, last);
    last = level;
  }
  EXPECT_EQ(last, 19);
}

TEST(CompactTraceTest, CompressedInputErrorsNameTheLineOfTheText) {
  const std::string bad = replaced(kTrace, "min=4@0", "min=4@5");
  expectBytesError("bad.tgt.zst", compressTrace(bad), 9, "histogram min rank 5 outside");
}

TEST(CompactTraceTest, CorruptAndTruncatedCompressedInput) {
  const std::string z = compressTrace(kTrace);
  expectBytesError("cut.zst", z.substr(0, z.size() / 2), 0, "truncated");
  expectBytesError("cut.zst", z.substr(0, 6), 0, "truncated or not a valid zstd frame");
  std::string flipped = z;
  flipped[z.size() - 6] = static_cast<char>(flipped[z.size() - 6] ^ 0x55);
  expectBytesError("flipped.zst", flipped, 0, "corrupt");
  expectBytesError("tail.zst", z + "garbage", 0, "corrupt");
}

// Whatever the damage to a compressed trace, reading it gives a trace or an InputError, never a
// crash or another exception.
TEST(CompactTraceTest, DamagedCompressedInputOnlyRaisesInputErrors) {
  const std::string z = compressTrace(kTrace);
  std::mt19937 rng(20261125);
  int accepted = 0;
  for (int round = 0; round < 2000; ++round) {
    std::string damaged = z;
    for (int edits = 0; edits < 1 + round % 3; ++edits) {
      const std::size_t pos = 4 + rng() % (damaged.size() - 4);  // keep the magic number
      damaged[pos] = static_cast<char>(rng() & 0xff);
    }
    if (round % 7 == 0) damaged.resize(4 + rng() % (damaged.size() - 4));
    try {
      readTrace(sourceFromBytes("damaged.zst", damaged, std::size_t{1} << 20));
      ++accepted;
    } catch (const InputError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what();
    }
  }
  EXPECT_LT(accepted, 2000);  // the checksum catches almost every change
}

// A bomb: a tiny file that expands to far more than the limit is refused with a precise error,
// whether its frame declares its size or not, and without taking memory for what it declares.
TEST(CompactTraceTest, DecompressionBombIsRefused) {
  const std::string big(std::size_t{4} << 20, '#');  // 4 MiB of comment
  const std::string declared = compressTrace(big);
  EXPECT_LT(declared.size(), 4096u);
  expectBytesError("bomb.zst", declared, std::size_t{1} << 20, 0,
              "declares 4194304 bytes of text, more than the limit of 1048576 bytes");
  // The same without a declared size (streamed: ZSTD_e_continue, then an empty ZSTD_e_end).
  ZSTD_CCtx* c = ZSTD_createCCtx();
  std::string out(ZSTD_compressBound(big.size()) + 1024, '\0');
  ZSTD_outBuffer ob{out.data(), out.size(), 0};
  ZSTD_inBuffer ib{big.data(), big.size(), 0};
  ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(c, &ob, &ib, ZSTD_e_continue)));
  ZSTD_inBuffer none{nullptr, 0, 0};
  std::size_t left = 0;
  do left = ZSTD_compressStream2(c, &ob, &none, ZSTD_e_end);
  while (left != 0 && !ZSTD_isError(left));
  ZSTD_freeCCtx(c);
  out.resize(ob.pos);
  ASSERT_EQ(ZSTD_getFrameContentSize(out.data(), out.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  expectBytesError("bomb2.zst", out, std::size_t{1} << 20, 0, "decompresses to more than the limit of 1048576 bytes");
  // Within the limit it reads (as comments only: an empty trace).
  expectBytesError("fine.zst", out, std::size_t{8} << 20, 1, "empty trace file");
}

}  // namespace
}  // namespace tracegen
