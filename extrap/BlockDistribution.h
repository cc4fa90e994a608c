// Block distributions: values that follow how a code splits N points over the processes of one
// grid dimension.
//
// Real codes (NPB BT and SP, and many others) give each of p processes floor(N/p) points and one
// more to the first N mod p coordinates. A message of one face of a rank's block then has a size
// that is no function of the scale alone: 40 points over 3 columns are 14, 13, 13, so one
// position class's count takes two values, and over 6 columns the interior holds ranks of 7 and
// of 6 points. The value of a rank is a + b * block(N, p_d, c_d) of its coordinate c_d along one
// grid dimension d, with N, a and b fitted exactly over every rank of every input; at any scale
// a dimension then has at most two values (below and from N mod p_d), so a position class splits
// into at most two blocks of the grid per dimension, whatever the rank count.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tracegen::extrap {

// The points the process at coordinate c of p gets from N: floor(N/p), plus one for the first
// N mod p coordinates. Equal to ceil((N - c) / p), the points i < N with i = c (mod p).
std::int64_t blockSize(std::int64_t points, std::int64_t extent, std::int64_t coord);

// a + b * block(N, p_dim, c_dim); b = 0: the constant a (dim -1).
struct BlockModel {
  int dim = -1;
  std::int64_t points = 0;  // N
  std::int64_t a = 0, b = 0;
  // The value of a rank at coordinates `coord` of a grid of extents `ext`.
  std::int64_t at(const std::array<std::int64_t, 3>& ext, const std::array<std::int64_t, 3>& coord) const;
  // The first coordinate along dim that gets floor(N/p) points at extent p (N mod p).
  std::int64_t split(std::int64_t extent) const { return points % extent; }
  // "40*block(40, py, y)", "2 + 8*block(100, P, rank)" (1-D), "560" (constant).
  std::string str(int dims) const;
  bool operator==(const BlockModel&) const = default;
};

// One rank of one input: its grid's extents, its coordinates, its value.
struct BlockObservation {
  std::array<std::int64_t, 3> ext{1, 1, 1};
  std::array<std::int64_t, 3> coord{0, 0, 0};
  std::int64_t value = 0;
};

struct BlockFit {
  // Every model that reproduces every observation (one per dimension, N, a and b), the constant
  // alone where every value is equal. Empty when none does.
  std::vector<BlockModel> models;
  bool truncated = false;   // more models fit than are listed (kMaxBlockModels)
  std::string refusal;      // when no model fits: why, per dimension
};

// The most models fitBlock lists; more mean the inputs say little about N, a and b.
constexpr std::size_t kMaxBlockModels = 4096;

// Fits a + b * block(N, p_d, c_d) for every dimension d < dims over the observations, with N at
// least every extent (each process holds a point; fewer would single out ranks by number). b is a
// divisor of the greatest common divisor of the values' differences (two neighbouring blocks
// differ by one point); for each b the offset of the blocks follows from two observations at
// different extents, and N from the interval every observation leaves (at most p wide).
BlockFit fitBlock(std::span<const BlockObservation> observations, int dims);

// Whether two models give every rank of the box [lo, hi] (per dimension, inclusive) of a grid of
// extents `ext` the same value.
bool agreeOn(const BlockModel& m1, const BlockModel& m2, const std::array<std::int64_t, 3>& ext,
             const std::array<std::int64_t, 3>& lo, const std::array<std::int64_t, 3>& hi);

// The coordinates in (lo, hi] at which the model's value changes along each dimension: at most
// one per model (N mod p), none for a constant.
std::vector<std::int64_t> breakpoints(const BlockModel& m, int dim, std::int64_t extent, std::int64_t lo,
                                      std::int64_t hi);

}  // namespace tracegen::extrap
