// Fitting block distributions, v = a + b * block(N, p, c) with block(N, p, c) = floor(N/p) + (c <
// N mod p), exactly and over every rank of every input.
//
// The algorithm, per grid dimension d: the observations become points (p, c, v) (extent,
// coordinate and value along d); two ranks at one point with different values rule d out (the
// value is no function of c_d). Neighbouring blocks differ by one point, so b divides the
// greatest common divisor g of the values' differences: every divisor of g, both signs, is a
// candidate. For one b, writing a = v0 + b*t (v0 the first point's value), each point's block is
// u - t with u = (v - v0) / b, and block(N, p, c) = B holds exactly for N in ((B-1)p + c, Bp + c]:
// an interval p wide whose ends fall by p for each step of t. Two points at different extents
// p_A < p_B then bound t to about (p_A + p_B) / (p_B - p_A) values; for each such t the
// intersection of every point's interval is the set of N that fit, at most min(p) wide. So the
// models that fit are enumerated, not searched: a handful of t and N per divisor of g. Which of
// them holds at the target is the caller's question (agreeOn): where they disagree there, the
// inputs do not decide.
#include "extrap/BlockDistribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "extrap/ScalingModel.h"

namespace tracegen::extrap {

namespace {

constexpr std::array<std::string_view, 3> kExtents{"px", "py", "pz"};
constexpr std::array<std::string_view, 3> kCoords{"x", "y", "z"};
constexpr std::array<char, 3> kAxes{'x', 'y', 'z'};

// The most values of the offset t tried for one b (two extents far apart leave a few), and the
// most point checks one dimension may take: inputs built to leave everything open are refused
// as undecided rather than enumerated.
constexpr Int128 kMaxOffsets = 4096;
constexpr std::int64_t kMaxChecks = std::int64_t{1} << 26;
// N and a stay far from overflow: a value at any scale is a + b * block with b and the block
// below 2^31.
constexpr Int128 kMaxPoints = Int128{1} << 31;
constexpr Int128 kMaxOffset = Int128{1} << 40;

Int128 floorDiv(Int128 a, Int128 b) {  // b > 0
  Int128 q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}
Int128 ceilDiv(Int128 a, Int128 b) { return -floorDiv(-a, b); }  // b > 0

std::vector<std::int64_t> divisors(std::int64_t g) {
  std::vector<std::int64_t> out;
  for (std::int64_t k = 1; k * k <= g; ++k)
    if (g % k == 0) {
      out.push_back(k);
      if (k != g / k) out.push_back(g / k);
    }
  std::sort(out.begin(), out.end(), [](std::int64_t x, std::int64_t y) { return x > y; });  // the larger steps first
  return out;
}

struct Point {
  std::int64_t p = 0, c = 0, v = 0;
};

// Every model along dimension d, appended to `fit`; false with the reason when d is ruled out.
bool fitDimension(std::span<const BlockObservation> obs, int d, int dims, BlockFit& fit, std::string& reason) {
  const auto du = static_cast<std::size_t>(d);
  const std::string axis = dims == 1 ? "rank" : std::string(1, kAxes[du]);
  const std::string extent = dims == 1 ? "P" : std::string(kExtents[du]);
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> at;
  for (const BlockObservation& o : obs) {
    auto [it, fresh] = at.insert({{o.ext[du], o.coord[du]}, o.value});
    if (!fresh && it->second != o.value) {
      reason = fmt::format("along {}: two ranks at {} = {} of {} = {} have {} and {}", axis, axis, o.coord[du], extent,
                           o.ext[du], it->second, o.value);
      return false;
    }
  }
  std::vector<Point> pts;
  std::set<std::int64_t> extents;
  for (const auto& [pc, v] : at) {
    pts.push_back({pc.first, pc.second, v});
    extents.insert(pc.first);
  }
  if (extents.size() < 2) {
    reason = fmt::format("along {}: every input has {} = {}", axis, extent, *extents.begin());
    return false;
  }
  const std::int64_t v0 = pts.front().v;
  Int128 g = 0;
  for (const Point& q : pts) {
    Int128 x = static_cast<Int128>(q.v) - v0;
    if (x < 0) x = -x;
    while (x != 0) {
      const Int128 r = g % x;
      g = x;
      x = r;
    }
  }
  if (g == 0 || g >= kMaxPoints) {
    reason = fmt::format("along {}: the values do not differ", axis);
    return false;
  }
  // The points of the smallest and of the largest extent bound the offset t.
  const Point& A = *std::min_element(pts.begin(), pts.end(), [](const Point& x, const Point& y) { return x.p < y.p; });
  const Point& B = *std::max_element(pts.begin(), pts.end(), [](const Point& x, const Point& y) { return x.p < y.p; });
  const std::size_t before = fit.models.size();
  std::int64_t checks = 0;
  for (std::int64_t div : divisors(static_cast<std::int64_t>(g)))
    for (int sign : {1, -1}) {
      const Int128 b = static_cast<Int128>(div) * sign;
      auto u = [&](const Point& q) { return (static_cast<Int128>(q.v) - v0) / b; };
      // N is in ((u - t - 1) p + c, (u - t) p + c] for every point.
      auto low = [&](const Point& q, Int128 t) { return (u(q) - t - 1) * q.p + q.c + 1; };
      auto high = [&](const Point& q, Int128 t) { return (u(q) - t) * q.p + q.c; };
      const Int128 span = B.p - A.p;
      // low(A, t) <= high(B, t) and low(B, t) <= high(A, t), linear in t.
      Int128 tHi = floorDiv((u(B) * B.p + B.c) - ((u(A) - 1) * A.p + A.c + 1), span);
      const Int128 tLo = ceilDiv(((u(B) - 1) * B.p + B.c + 1) - (u(A) * A.p + A.c), span);
      for (const Point& q : pts) tHi = std::min(tHi, u(q) - 1);  // every block at least one point
      if (tHi - tLo > kMaxOffsets) {
        fit.truncated = true;
        tHi = tLo + kMaxOffsets;
      }
      for (Int128 t = tLo; t <= tHi; ++t) {
        checks += static_cast<std::int64_t>(pts.size());
        if (checks > kMaxChecks) {
          fit.truncated = true;
          return true;
        }
        // Every process holds a point at every input (N >= p): a "distribution" that leaves
        // most ranks empty would single out a few ranks by the rank's number alone.
        Int128 nLo = B.p, nHi = kMaxPoints;
        for (const Point& q : pts) {
          nLo = std::max(nLo, low(q, t));
          nHi = std::min(nHi, high(q, t));
        }
        const Int128 a = v0 + b * t;
        if (a > kMaxOffset || a < -kMaxOffset) continue;
        for (Int128 n = nLo; n <= nHi; ++n) {
          const BlockModel m{d, static_cast<std::int64_t>(n), static_cast<std::int64_t>(a), static_cast<std::int64_t>(b)};
          bool all = true;  // the intervals say so; checked once more on the values themselves
          for (const Point& q : pts) all = all && m.at({q.p, q.p, q.p}, {q.c, q.c, q.c}) == q.v;
          if (!all) continue;
          if (fit.models.size() >= kMaxBlockModels) {
            fit.truncated = true;
            return true;
          }
          fit.models.push_back(m);
        }
      }
    }
  if (fit.models.size() == before) {
    reason = fmt::format("along {}: no N, a and b give the values of every rank", axis);
    return false;
  }
  return true;
}

}  // namespace

std::int64_t blockSize(std::int64_t points, std::int64_t extent, std::int64_t coord) {
  return points / extent + (coord < points % extent ? 1 : 0);
}

std::int64_t BlockModel::at(const std::array<std::int64_t, 3>& ext, const std::array<std::int64_t, 3>& coord) const {
  if (b == 0 || dim < 0) return a;
  const auto d = static_cast<std::size_t>(dim);
  return a + b * blockSize(points, ext[d], coord[d]);
}

std::string BlockModel::str(int dims) const {
  if (b == 0 || dim < 0) return fmt::format("{}", a);
  const auto d = static_cast<std::size_t>(dim);
  const std::string block = dims == 1 ? fmt::format("block({}, P, rank)", points)
                                      : fmt::format("block({}, {}, {})", points, kExtents[d], kCoords[d]);
  const std::string scaled = b == 1 ? block : b == -1 ? "-" + block : fmt::format("{}*{}", b, block);
  if (a == 0) return scaled;
  if (b < 0) return fmt::format("{} - {}", a, b == -1 ? block : fmt::format("{}*{}", -b, block));
  return fmt::format("{} + {}", a, scaled);
}

BlockFit fitBlock(std::span<const BlockObservation> observations, int dims) {
  BlockFit fit;
  if (observations.empty()) {
    fit.refusal = "no values";
    return fit;
  }
  bool constant = true;
  for (const BlockObservation& o : observations) constant = constant && o.value == observations.front().value;
  if (constant) {
    fit.models.push_back(BlockModel{-1, 0, observations.front().value, 0});
    return fit;
  }
  std::vector<std::string> reasons;
  for (int d = 0; d < dims; ++d) {
    std::string reason;
    if (!fitDimension(observations, d, dims, fit, reason)) reasons.push_back(reason);
    if (fit.truncated) break;
  }
  if (fit.models.empty()) fit.refusal = fmt::format("{}", fmt::join(reasons, "; "));
  return fit;
}

std::vector<std::int64_t> breakpoints(const BlockModel& m, int dim, std::int64_t extent, std::int64_t lo,
                                      std::int64_t hi) {
  if (m.b == 0 || m.dim != dim) return {};
  const std::int64_t s = m.split(extent);
  if (lo < s && s <= hi) return {s};
  return {};
}

bool agreeOn(const BlockModel& m1, const BlockModel& m2, const std::array<std::int64_t, 3>& ext,
             const std::array<std::int64_t, 3>& lo, const std::array<std::int64_t, 3>& hi) {
  // Both models are constant between their breakpoints: comparing them at the start of every
  // piece of the box compares them everywhere.
  std::array<std::vector<std::int64_t>, 3> starts;
  for (int d = 0; d < 3; ++d) {
    const auto du = static_cast<std::size_t>(d);
    starts[du] = {lo[du]};
    for (const BlockModel* m : {&m1, &m2})
      for (std::int64_t s : breakpoints(*m, d, ext[du], lo[du], hi[du])) starts[du].push_back(s);
  }
  for (std::int64_t x : starts[0])
    for (std::int64_t y : starts[1])
      for (std::int64_t z : starts[2])
        if (m1.at(ext, {x, y, z}) != m2.at(ext, {x, y, z})) return false;
  return true;
}

}  // namespace tracegen::extrap
