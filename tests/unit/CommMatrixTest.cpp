// viz/CommMatrix.cpp: the cells of inspect's communication matrix, by hand for two bundled
// samples, and on every bundled trace equal to walking each rank's every call (the collectives
// equal to inspect's per-rank figures); the time plot's per-rank figures equal inspect's
// per-rank summaries. The pictures themselves are checked by
// tests/e2e/cli.sh (a valid SVG and PNG, a refused extension).
#include <gtest/gtest.h>

#include <filesystem>

#include "io/Readers.h"
#include "io/TextLines.h"
#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "ir/Summary.h"
#include "tests/unit/SanitizerScale.h"
#include "viz/CommMatrix.h"
#include "viz/Draw.h"

namespace tracegen {
namespace {

Trace sample(const char* name) {
  return readTraceFile((std::filesystem::path(TRACEGEN_SOURCE_DIR) / "samples/traces" / name).string());
}

// Every rank sends 100 messages of 1,024 doubles to its right neighbour (a relative peer).
TEST(CommMatrix, RingSendsToTheRightNeighbour) {
  const CommMatrix m = computeCommMatrix(sample("ring-4.tgt"));
  ASSERT_EQ(m.blocks, 4);
  EXPECT_EQ(m.blockSize, 1);
  for (Rank s = 0; s < 4; ++s)
    for (Rank r = 0; r < 4; ++r) EXPECT_EQ(m.cell(s, r), r == (s + 1) % 4 ? 100 * 1024 * 8 : 0) << s << " -> " << r;
  for (std::int64_t c : m.collective) EXPECT_EQ(c, 0);
  EXPECT_EQ(m.unplacedBytes, 0);
}

// A 2x2 stencil, 50 iterations: 256 doubles to the x neighbour (rank XOR 1, offsets that
// differ between even and odd ranks), 1,024 to the y neighbour (rank XOR 2), and one double
// to an MPI_Allreduce per iteration.
TEST(CommMatrix, StencilHalosAndResidual) {
  const CommMatrix m = computeCommMatrix(sample("stencil-2d-4.tgt"));
  ASSERT_EQ(m.blocks, 4);
  for (Rank s = 0; s < 4; ++s)
    for (Rank r = 0; r < 4; ++r) {
      const std::int64_t want = r == (s ^ 1) ? 50 * 256 * 8 : r == (s ^ 2) ? 50 * 1024 * 8 : 0;
      EXPECT_EQ(m.cell(s, r), want) << s << " -> " << r;
    }
  for (std::int64_t c : m.collective) EXPECT_EQ(c, 50 * 8);

  // Blocks of two ranks: {0, 1} and {2, 3}; x halos stay in a block, y halos cross.
  const CommMatrix b = computeCommMatrix(sample("stencil-2d-4.tgt"), "<trace>", 2);
  ASSERT_EQ(b.blocks, 2);
  EXPECT_EQ(b.cell(0, 0), 2 * 50 * 256 * 8);
  EXPECT_EQ(b.cell(0, 1), 2 * 50 * 1024 * 8);
  EXPECT_EQ(b.cell(1, 0), 2 * 50 * 1024 * 8);
  EXPECT_EQ(b.cell(1, 1), 2 * 50 * 256 * 8);
  EXPECT_EQ(b.collective, (std::vector<std::int64_t>{2 * 50 * 8, 2 * 50 * 8}));
}

TEST(CommMatrix, BlocksAboveAFewHundredRanks) {
  EXPECT_EQ(matrixBlockSize(2), 1);
  EXPECT_EQ(matrixBlockSize(kMatrixFullRanks), 1);
  EXPECT_EQ(matrixBlockSize(4096), 32);
  EXPECT_EQ(matrixBlockSize(300), 3);
  EXPECT_LE((4096 + matrixBlockSize(4096) - 1) / matrixBlockSize(4096), kMatrixMaxBlocks);
}

// The sends of each rank, walked call by call (no classes, no loop multiplication); empty for
// traces of more than a million calls (loops of huge trip counts), which the test skips.
std::vector<std::int64_t> directCells(const Trace& t) {
  std::int64_t steps = 0;
  const auto P = static_cast<std::size_t>(t.numRanks);
  std::vector<std::int64_t> cells(P * P, 0);
  auto add = [&](Rank s, Rank r, std::int64_t bytes, bool world) {
    if (bytes <= 0 || !world || s < 0 || r < 0 || s >= t.numRanks || r >= t.numRanks) return;
    cells[static_cast<std::size_t>(s) * P + static_cast<std::size_t>(r)] += bytes;
  };
  for (Rank rank = 0; rank < t.numRanks; ++rank) {
    RankCursor c(t, rank);
    Call call;
    while (c.next(call)) {
      if (++steps > 1000000) return {};
      const OpKind k = opInfo(call.op).kind;
      if (k == OpKind::Send || k == OpKind::Isend || k == OpKind::Sendrecv) add(rank, call.peer, call.bytes, call.peerIsWorld);
      if (k == OpKind::Rma) {
        add(rank, call.peer, call.bytes, call.peerIsWorld);
        add(call.peer, rank, call.recvBytes, call.peerIsWorld);
      }
      if (k == OpKind::Start)
        for (const StartedRequest& s : call.started)
          if (s.send) add(rank, s.peer, s.bytes, s.peerIsWorld);
    }
  }
  return cells;
}

TEST(CommMatrix, PerClassWalkEqualsEveryRanksCalls) {
  std::size_t compared = 0;
  const std::filesystem::path root(TRACEGEN_SOURCE_DIR);
  for (const char* dir : {"samples/traces", "tests/data/scalatrace", "tests/data/checks", "tests/data/scalatrace-structures"}) {
    if (!std::filesystem::exists(root / dir)) continue;
    for (const auto& f : std::filesystem::recursive_directory_iterator(root / dir)) {
      if (!f.is_regular_file() || (f.path().extension() != ".tgt" && f.path().extension() != ".trace")) continue;
      SCOPED_TRACE(f.path().string());
      Trace t;
      CommMatrix m;
      std::vector<std::int64_t> direct;
      try {
        t = readTraceFile(f.path().string());
        // The reference expands every rank's calls: up to 64 ranks, 16 under the sanitizers
        // (where it costs 5-20 times as much; the plain run covers the larger traces).
        if (t.numRanks > (testing::kUnderSanitizer ? 16 : 64)) continue;
        m = computeCommMatrix(t, f.path().string(), 1);
        direct = directCells(t);
      } catch (const InputError&) {
        continue;  // malformed on purpose, or too large to walk
      }
      if (direct.empty()) continue;
      EXPECT_EQ(m.p2p, direct);
      // The collectives panel is inspect's per-rank collective bytes.
      std::vector<std::int64_t> collective;
      try {
        for (const RankSummary& r : summarizeRanks(t, f.path().string())) collective.push_back(r.collectiveBytesSent);
      } catch (const InputError&) {
        continue;
      }
      EXPECT_EQ(m.collective, collective);
      ++compared;
    }
  }
  EXPECT_GE(compared, 10u);
}

// Cost follows the compressed trace: 4,096 ranks in one class, each sending to rank + 1 and to
// rank + 64 in a loop of 10^12 iterations, take one walk of a few steps and a step per rank,
// far below the expanded 8 x 10^15 calls; the blocks of 32 ranks get 31 messages inside a
// block and one to the next, and 32 to the block 64 ranks on.
TEST(CommMatrix, CostFollowsTheCompressedTrace) {
  const std::string text = R"(tracegen-trace 1
ranks 4096
origin hand-written
datatype MPI_DOUBLE 8
comm 2 world (<1 0 {4096 1}>)
event 0 MPI_Init @ <1 0 {4096 1}>
  site a.c:1
event 1 MPI_Send @ <1 0 {4096 1}>
  site a.c:2
  loop 0 iter 1000000000000
  loop 0 mem 2
  comm 2
  count 1
  datatype MPI_DOUBLE
  dest rel 1
  tag 1
event 2 MPI_Send @ <1 0 {4096 1}>
  site a.c:3
  comm 2
  count 2
  datatype MPI_DOUBLE
  dest rel 64
  tag 1
event 3 MPI_Finalize @ <1 0 {4096 1}>
  site a.c:4
)";
  const Trace t = readTrace(sourceFromString("big.tgt", text));
  const CommMatrix m = computeCommMatrix(t, "big.tgt", 0, /*budget=*/3 * 4096);
  ASSERT_EQ(m.blockSize, 32);
  ASSERT_EQ(m.blocks, 128);
  const std::int64_t n = 1000000000000;
  EXPECT_EQ(m.cell(0, 0), 31 * n * 8);
  EXPECT_EQ(m.cell(0, 1), 1 * n * 8);
  EXPECT_EQ(m.cell(0, 2), 32 * n * 16);
  EXPECT_EQ(m.cell(127, 0), 1 * n * 8);   // rank 4095 sends to rank 0
  EXPECT_EQ(m.cell(126, 0), 32 * n * 16);  // ranks 4032-4063 send to 0-31
  EXPECT_EQ(m.cell(5, 3), 0);
  // A budget below a step per rank is refused with the trace's name, not run.
  EXPECT_THROW(computeCommMatrix(t, "big.tgt", 0, 4000), InputError);
}

TEST(RankTimes, EqualThePerRankSummaries) {
  const Trace t = sample("stencil-2d-4.tgt");
  const RankTimes times = computeRankTimes(t);
  const std::vector<RankSummary> rows = summarizeRanks(t);
  ASSERT_EQ(times.blocks, 4);
  EXPECT_FALSE(times.instructions);
  double worst = 0;
  for (const RankSummary& r : rows) {
    EXPECT_DOUBLE_EQ(times.compute[static_cast<std::size_t>(r.rank)], r.computeUs);
    EXPECT_DOUBLE_EQ(times.mpi[static_cast<std::size_t>(r.rank)], r.mpiUs);
    worst = std::max(worst, r.computeUs + r.mpiUs);
  }
  ASSERT_GE(times.slowest, 0);
  EXPECT_DOUBLE_EQ(times.slowestCompute + times.slowestMpi, worst);
}

TEST(Pictures, RefuseOtherExtensions) {
  EXPECT_EQ(pictureFormatOf("m.svg", "--matrix"), PictureFormat::Svg);
  EXPECT_EQ(pictureFormatOf("dir.x/M.PNG", "--matrix"), PictureFormat::Png);
  EXPECT_THROW(pictureFormatOf("m.pdf", "--matrix"), InputError);
  EXPECT_THROW(pictureFormatOf("svg", "--matrix"), InputError);
}

}  // namespace
}  // namespace tracegen
