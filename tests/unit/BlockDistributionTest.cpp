// Block distributions (extrap/BlockDistribution.h): a value a + b * block(N, p, c) of a rank's
// grid coordinate, fitted exactly over every rank of every input, and the values no such model
// gives.
#include "extrap/BlockDistribution.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>

namespace tracegen::extrap {
namespace {

using Coords = std::array<std::int64_t, 3>;

// Every rank of a px x py grid for each grid given, with the value f(ext, coord).
std::vector<BlockObservation> everyRank(const std::vector<std::pair<std::int64_t, std::int64_t>>& grids,
                                        const std::function<std::int64_t(const Coords&, const Coords&)>& f) {
  std::vector<BlockObservation> out;
  for (auto [px, py] : grids)
    for (std::int64_t y = 0; y < py; ++y)
      for (std::int64_t x = 0; x < px; ++x) {
        const Coords ext{px, py, 1}, c{x, y, 0};
        out.push_back({ext, c, f(ext, c)});
      }
  return out;
}

TEST(ExtrapBlockDistribution, BlockSizesAreFloorPlusOneForTheFirstRemainder) {
  EXPECT_EQ(blockSize(40, 3, 0), 14);
  EXPECT_EQ(blockSize(40, 3, 1), 13);
  EXPECT_EQ(blockSize(40, 3, 2), 13);
  std::vector<std::int64_t> six;
  for (std::int64_t c = 0; c < 6; ++c) six.push_back(blockSize(40, 6, c));
  EXPECT_EQ(six, (std::vector<std::int64_t>{7, 7, 7, 7, 6, 6}));
  for (std::int64_t n : {1, 7, 40, 162, 1000})
    for (std::int64_t p : {1, 2, 3, 5, 8, 13}) {
      std::int64_t sum = 0;
      for (std::int64_t c = 0; c < p; ++c) sum += blockSize(n, p, c);
      EXPECT_EQ(sum, n) << n << " over " << p;
    }
}

// bt_like's face to the west: 40 points of y over sqrt(P) rows, 5 variables and 8 planes.
TEST(ExtrapBlockDistribution, FitsAFaceOfBtLikeFromSquareGrids) {
  auto face = [](const Coords& ext, const Coords& c) { return 40 * blockSize(40, ext[1], c[1]); };
  const auto obs = everyRank({{2, 2}, {3, 3}, {4, 4}}, face);
  const BlockFit f = fitBlock(obs, 2);
  ASSERT_FALSE(f.models.empty()) << f.refusal;
  EXPECT_FALSE(f.truncated);
  EXPECT_EQ(f.models.front(), (BlockModel{1, 40, 0, 40}));
  EXPECT_EQ(f.models.front().str(2), "40*block(40, py, y)");
  // Every model that fits gives the 6x6 and 8x8 grids the recording's values.
  for (std::int64_t q : {5, 6, 8})
    for (const BlockModel& m : f.models) {
      EXPECT_TRUE(agreeOn(m, f.models.front(), {q, q, 1}, {0, 0, 0}, {q - 1, q - 1, 0}));
      for (std::int64_t y = 0; y < q; ++y) EXPECT_EQ(m.at({q, q, 1}, {0, y, 0}), face({q, q, 1}, {0, y, 0}));
    }
  // 6 rows: the first four get 7 points, the last two 6.
  EXPECT_EQ(breakpoints(f.models.front(), 1, 6, 0, 5), (std::vector<std::int64_t>{4}));
  EXPECT_TRUE(breakpoints(f.models.front(), 0, 6, 0, 5).empty());  // no step along x
  EXPECT_TRUE(breakpoints(f.models.front(), 1, 8, 0, 7).empty());  // 8 divides 40
}

TEST(ExtrapBlockDistribution, FitsAnOffsetAndANegativeStep) {
  // Two ghost layers: 2 + 8 * block(100, px, x), from 3x3, 4x4, 6x6 (100 = 33*3 + 1 = 25*4 = 16*6 + 4).
  auto ghost = [](const Coords& ext, const Coords& c) { return 8 * (2 + blockSize(100, ext[0], c[0])); };
  const BlockFit f = fitBlock(everyRank({{3, 3}, {4, 4}, {6, 6}}, ghost), 2);
  ASSERT_FALSE(f.models.empty()) << f.refusal;
  EXPECT_EQ(f.models.front(), (BlockModel{0, 100, 16, 8}));
  EXPECT_EQ(f.models.front().str(2), "16 + 8*block(100, px, x)");
  // What is left of a budget of 1000 after the block: 1000 - block(50, px, x).
  auto rest = [](const Coords& ext, const Coords& c) { return 1000 - blockSize(50, ext[0], c[0]); };
  const BlockFit g = fitBlock(everyRank({{3, 3}, {4, 4}, {7, 7}}, rest), 2);
  ASSERT_FALSE(g.models.empty()) << g.refusal;
  for (const BlockModel& m : g.models)
    for (std::int64_t x = 0; x < 9; ++x) EXPECT_EQ(m.at({9, 9, 1}, {x, 0, 0}), rest({9, 9, 1}, {x, 0, 0}));
  EXPECT_EQ(g.models.front().str(2), "1000 - block(50, px, x)");
}

TEST(ExtrapBlockDistribution, OneDimensionalGridsNameTheRank) {
  std::vector<BlockObservation> obs;
  for (std::int64_t p : {3, 4, 5})
    for (std::int64_t r = 0; r < p; ++r) obs.push_back({{p, 1, 1}, {r, 0, 0}, blockSize(17, p, r)});
  const BlockFit f = fitBlock(obs, 1);
  ASSERT_FALSE(f.models.empty()) << f.refusal;
  EXPECT_EQ(f.models.front().str(1), "block(17, P, rank)");
}

TEST(ExtrapBlockDistribution, EqualValuesAreAConstant) {
  const BlockFit f = fitBlock(everyRank({{2, 2}, {4, 4}}, [](const Coords&, const Coords&) { return 7; }), 2);
  ASSERT_EQ(f.models.size(), 1u);
  EXPECT_EQ(f.models.front().str(2), "7");
  EXPECT_TRUE(breakpoints(f.models.front(), 0, 5, 0, 4).empty());
}

TEST(ExtrapBlockDistribution, RefusesValuesOfTwoCoordinates) {
  // A block's area, block_x * block_y: no function of one coordinate.
  auto area = [](const Coords& ext, const Coords& c) { return blockSize(40, ext[0], c[0]) * blockSize(40, ext[1], c[1]); };
  const BlockFit f = fitBlock(everyRank({{3, 3}, {4, 4}, {6, 6}}, area), 2);
  EXPECT_TRUE(f.models.empty());
  EXPECT_NE(f.refusal.find("along x: two ranks at x = 0 of px = 3 have"), std::string::npos) << f.refusal;
  EXPECT_NE(f.refusal.find("along y:"), std::string::npos) << f.refusal;
}

TEST(ExtrapBlockDistribution, RefusesValuesNoBlockGives) {
  // 10, 12, 11, 10 over 4 columns: more than two sizes, and not in block order.
  std::vector<BlockObservation> obs;
  const std::int64_t four[] = {10, 12, 11, 10};
  for (std::int64_t x = 0; x < 4; ++x) obs.push_back({{4, 1, 1}, {x, 0, 0}, four[x]});
  for (std::int64_t x = 0; x < 2; ++x) obs.push_back({{2, 1, 1}, {x, 0, 0}, 20});
  const BlockFit f = fitBlock(obs, 1);
  EXPECT_TRUE(f.models.empty());
  EXPECT_EQ(f.refusal, "along rank: no N, a and b give the values of every rank");
  // Blocks that grow with the coordinate (the last ranks the larger) are no block either.
  std::vector<BlockObservation> late;
  for (std::int64_t p : {3, 4, 6})
    for (std::int64_t x = 0; x < p; ++x) late.push_back({{p, 1, 1}, {x, 0, 0}, blockSize(40, p, p - 1 - x) + (x % 2)});
  EXPECT_TRUE(fitBlock(late, 1).models.empty());
}

TEST(ExtrapBlockDistribution, RefusesOneExtent) {
  std::vector<BlockObservation> obs;
  for (std::int64_t x = 0; x < 3; ++x) obs.push_back({{3, 3, 1}, {x, 0, 0}, blockSize(40, 3, x)});
  const BlockFit f = fitBlock(obs, 2);
  EXPECT_TRUE(f.models.empty());
  EXPECT_NE(f.refusal.find("along x: every input has px = 3"), std::string::npos) << f.refusal;
}

TEST(ExtrapBlockDistribution, CoordinatesSeenInPartLeaveNOpen) {
  // The corner alone, at 2 and 4 columns: 20 and 10 points are 39 or 40 points in all, which
  // give 13 or 14 at 3 columns: the caller must refuse to choose.
  std::vector<BlockObservation> obs{{{2, 2, 1}, {0, 0, 0}, 20}, {{4, 4, 1}, {0, 0, 0}, 10}};
  const BlockFit f = fitBlock(obs, 1);
  const BlockModel n39{0, 39, 0, 1}, n40{0, 40, 0, 1};
  EXPECT_NE(std::find(f.models.begin(), f.models.end(), n39), f.models.end());
  EXPECT_NE(std::find(f.models.begin(), f.models.end(), n40), f.models.end());
  EXPECT_FALSE(agreeOn(n39, n40, {3, 3, 1}, {0, 0, 0}, {0, 0, 0}));  // 13 and 14 at the corner of 3x3
  EXPECT_TRUE(agreeOn(n39, n40, {5, 5, 1}, {0, 0, 0}, {0, 0, 0}));   // 8 either way at 5x5
  EXPECT_FALSE(agreeOn(n39, n40, {5, 5, 1}, {0, 0, 0}, {4, 0, 0}));  // not on the whole row
}

}  // namespace
}  // namespace tracegen::extrap
