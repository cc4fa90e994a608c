// The interface of a process topology for extrapolation: how the ranks of a trace sit at one
// scale, which ranks behave alike, and how a peer relates to a rank.
//
// An extrapolation tries topologies in turn (extrap/Extrapolate.cpp: grids of 1, 2 and 3
// dimensions, each numbered along its shortest and then its longest side) and takes the first
// under which every rank group of every input is a union of position classes, or follows a
// peer relation. A kind of topology says
//   * its layout at a rank count (the grid's extents) and the scale variables models may use;
//   * the scales that could be recorded (the scale that would settle two models);
//   * its position classes at a layout, their names and the class of a rank;
//   * how a relative peer relates to the ranks of a class (a grid direction), and, where the
//     ranks of a class each have a peer of their own, the relations that may give it
//     (extrap/topology/PeerRelation.h: the hypercube's rank XOR 2^k, the complete graph's rank
//     XOR i, the transpose).
// The grid (extrap/topology/Grid.h, GridTopology) is the one kind of layout; the hypercube,
// complete graph and transpose are relations on it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "extrap/ScalingModel.h"
#include "extrap/topology/Grid.h"
#include "extrap/topology/PeerRelation.h"
#include "ir/RankList.h"

namespace tracegen::extrap {

class Topology {
 public:
  virtual ~Topology() = default;
  // "2-D grid (x the longest side)".
  virtual std::string describe() const = 0;
  // Where `ranks` ranks sit.
  virtual Grid layout(Rank ranks) const = 0;
  // Whether a layout has every dimension a class needs (extents of at least 2).
  virtual bool usable(const Grid& at) const = 0;
  // The variables a model of the scale may use (P, px, py, pz).
  virtual std::vector<ScaleVar> scaleVars() const = 0;
  // The usable scales of up to `limit` ranks, smallest first.
  virtual std::vector<Scale> candidateScales(Rank limit) const = 0;

  // Position classes: the same set at every scale, some empty at small ones.
  virtual int classCount() const = 0;
  virtual std::string className(int cls) const = 0;
  virtual RankList classRanks(const Grid& at, int cls) const = 0;
  virtual int classOf(const Grid& at, Rank r) const = 0;

  // How a relative peer (stored (peer - rank + P) mod P) relates to every rank of class cls:
  // a direction, nullopt where the ranks of the class have no common one.
  virtual std::optional<Direction> peerDirection(const Grid& at, int cls, std::int64_t stored) const = 0;
  // Every direction that gives it (extents of 1 and 2 make several), peerDirection's first.
  virtual std::vector<Direction> peerDirections(const Grid& at, int cls, std::int64_t stored) const = 0;
  // The stored relative peer of the ranks of class cls in direction dir.
  virtual std::int64_t storedOffset(const Grid& at, int cls, const Direction& dir) const = 0;
  // The relations tried for peers no direction gives, in order.
  virtual const std::vector<std::unique_ptr<PeerRelation>>& relations() const = 0;
};

// The grid of `dims` dimensions, ascending or (descending) numbered along its longest side.
class GridTopology final : public Topology {
 public:
  GridTopology(int dims, bool descending) : dims_(dims), descending_(descending) {}
  int dims() const { return dims_; }
  bool descending() const { return descending_; }

  std::string describe() const override;
  Grid layout(Rank ranks) const override { return defaultGrid(ranks, dims_, descending_); }
  bool usable(const Grid& at) const override;
  std::vector<ScaleVar> scaleVars() const override;
  std::vector<Scale> candidateScales(Rank limit) const override;
  int classCount() const override { return tracegen::extrap::classCount(dims_); }
  std::string className(int cls) const override { return tracegen::extrap::className(dims_, cls); }
  RankList classRanks(const Grid& at, int cls) const override { return tracegen::extrap::classRanks(at, cls); }
  int classOf(const Grid& at, Rank r) const override;
  std::optional<Direction> peerDirection(const Grid& at, int cls, std::int64_t stored) const override {
    return tracegen::extrap::peerDirection(at, cls, stored);
  }
  std::vector<Direction> peerDirections(const Grid& at, int cls, std::int64_t stored) const override {
    return tracegen::extrap::peerDirections(at, cls, stored);
  }
  std::int64_t storedOffset(const Grid& at, int cls, const Direction& dir) const override {
    return tracegen::extrap::storedOffset(at, cls, dir);
  }
  const std::vector<std::unique_ptr<PeerRelation>>& relations() const override { return peerRelations(); }

 private:
  int dims_;
  bool descending_;
};

}  // namespace tracegen::extrap
