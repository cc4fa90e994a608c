// The grid topology. Ranks are numbered with x fastest; a rank count's extents are those
// MPI_Dims_create chooses (the balanced factorisation, ascending, or reversed for codes that
// number along the longest side). Per dimension a coordinate is first, interior or last, and a
// position class is the block of ranks with one such position per dimension: one RankList
// tuple at any rank count, empty where an extent of 2 has no interior. A relative peer is a
// direction when the peers of a class's first and last rank are one step (-1, 0, +1 per
// dimension) away, wrapping across the edge where the step is n-1; the same direction at the
// target gives the stored offset again from the class's first rank.
#include "extrap/topology/Grid.h"

#include "extrap/topology/Topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <vector>

namespace tracegen::extrap {

std::string Grid::str() const {
  if (dims == 1) return fmt::format("{}", ext[0]);
  if (dims == 2) return fmt::format("{}x{}", ext[0], ext[1]);
  return fmt::format("{}x{}x{}", ext[0], ext[1], ext[2]);
}

std::array<Rank, 3> Grid::coords(Rank r) const {
  return {r % ext[0], (r / ext[0]) % ext[1], r / (ext[0] * ext[1])};
}

namespace {
Grid ascendingGrid(Rank p, int dims) {
  Grid g;
  g.dims = dims;
  if (dims <= 1) {
    g.ext = {p, 1, 1};
    return g;
  }
  if (dims == 2) {
    Rank px = 1;
    for (Rank d = 1; d * d <= p; ++d)
      if (p % d == 0) px = d;
    g.ext = {px, p / px, 1};
    return g;
  }
  // 3-D: a <= b <= c with a*b*c = p, the largest extent as small as possible, then the middle.
  std::array<Rank, 3> best{1, 1, p};
  for (Rank a = 1; a * a * a <= p; ++a) {
    if (p % a != 0) continue;
    const Rank q = p / a;
    for (Rank b = a; b * b <= q; ++b) {
      if (q % b != 0) continue;
      const Rank c = q / b;
      if (c < best[2] || (c == best[2] && b < best[1])) best = {a, b, c};
    }
  }
  g.ext = best;
  return g;
}
}  // namespace

Grid defaultGrid(Rank p, int dims, bool descending) {
  Grid g = ascendingGrid(p, dims);
  if (descending) std::reverse(g.ext.begin(), g.ext.begin() + std::max(dims, 1));
  return g;
}

std::optional<Grid> parseGrid(std::string_view text, std::string& problem) {
  Grid g;
  g.dims = 0;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t x = std::min(text.find('x', pos), text.size());
    const std::string_view part = text.substr(pos, x - pos);
    Rank v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (ec != std::errc() || end != part.data() + part.size() || v < 2 || v > (Rank{1} << 31) || g.dims == 3) {
      problem = fmt::format("--grid {}: expected 1 to 3 extents of at least 2 separated by 'x' (8x8, 4x4x4)", text);
      return std::nullopt;
    }
    g.ext[static_cast<std::size_t>(g.dims++)] = v;
    pos = x + 1;
    if (x == text.size()) break;
  }
  if (g.size() > (Rank{1} << 31) - 1) {
    problem = fmt::format("--grid {}: more than 2147483647 ranks", text);
    return std::nullopt;
  }
  return g;
}

int classCount(int dims) { return dims == 1 ? 3 : dims == 2 ? 9 : 27; }

Position classPosition(int cls, int dim) {
  for (int d = 0; d < dim; ++d) cls /= 3;
  return static_cast<Position>(cls % 3);
}

std::string className(int dims, int cls) {
  static constexpr std::array<std::string_view, 3> kNames{"first", "interior", "last"};
  static constexpr std::array<char, 3> kAxes{'x', 'y', 'z'};
  std::string s;
  for (int d = 0; d < dims; ++d)
    s += fmt::format("{}{}:{}", d ? " " : "", kAxes[static_cast<std::size_t>(d)],
                     kNames[static_cast<std::size_t>(classPosition(cls, d))]);
  return s;
}

namespace {

// [lo, lo + n) of the class along dimension d.
std::pair<Rank, Rank> range(const Grid& g, int cls, int d) {
  const Rank n = g.ext[static_cast<std::size_t>(d)];
  switch (classPosition(cls, d)) {
    case kFirst: return {0, 1};
    case kInterior: return {1, n - 2};
    case kLast: return {n - 1, 1};
  }
  return {0, 0};
}

}  // namespace

RankList classRanks(const Grid& g, int cls) {
  RankTuple t;
  Rank stride = 1;
  for (int d = 0; d < g.dims; ++d) {
    auto [lo, n] = range(g, cls, d);
    if (n <= 0) return RankList();
    t.start += lo * stride;
    t.dims.push_back(RankDim{n, n == 1 ? 0 : stride});
    stride *= g.ext[static_cast<std::size_t>(d)];
  }
  return RankList({t});
}

Rank classFirst(const Grid& g, int cls) {
  std::array<Rank, 3> c{0, 0, 0};
  for (int d = 0; d < g.dims; ++d) c[static_cast<std::size_t>(d)] = range(g, cls, d).first;
  return g.rankOf(c);
}

Rank classLast(const Grid& g, int cls) {
  std::array<Rank, 3> c{0, 0, 0};
  for (int d = 0; d < g.dims; ++d) {
    auto [lo, n] = range(g, cls, d);
    c[static_cast<std::size_t>(d)] = lo + n - 1;
  }
  return g.rankOf(c);
}

std::optional<Direction> stepBetween(const Grid& g, Rank from, Rank to) {
  const auto cr = g.coords(from), cp = g.coords(to);
  Direction dir;
  for (std::size_t d = 0; d < 3; ++d) {
    const Rank delta = cp[d] - cr[d], n = g.ext[d];
    if (delta >= -1 && delta <= 1) dir.step[d] = static_cast<int>(delta);
    else if (delta == n - 1) dir.step[d] = -1, dir.wrap[d] = true;
    else if (delta == -(n - 1)) dir.step[d] = 1, dir.wrap[d] = true;
    else return std::nullopt;
  }
  return dir;
}

std::optional<Direction> peerDirection(const Grid& g, int cls, std::int64_t stored) {
  if (stored < 0 || stored >= g.size()) return std::nullopt;
  std::optional<Direction> found;
  for (Rank rep : {classFirst(g, cls), classLast(g, cls)}) {
    const std::optional<Direction> dir = stepBetween(g, rep, (rep + stored) % g.size());
    if (!dir || (found && !(*found == *dir))) return std::nullopt;
    found = dir;
  }
  return found;
}

std::vector<Direction> peerDirections(const Grid& g, int cls, std::int64_t stored) {
  const std::optional<Direction> first = peerDirection(g, cls, stored);
  if (!first) return {};
  // Per dimension, the steps (step, wrap) that move both representatives as `first` does:
  // at extent 1 every step stays, at extent 2 one step forward is one step back across the
  // boundary.
  std::array<std::vector<std::pair<int, bool>>, 3> options;
  for (std::size_t d = 0; d < 3; ++d) {
    const Rank n = g.ext[d];
    const int s = first->step[d];
    options[d].push_back({s, first->wrap[d]});
    if (static_cast<int>(d) >= g.dims) continue;  // no such dimension: no step along it
    if (n == 1) {
      for (int t : {1, -1}) options[d].push_back({t, true});
    } else if (n == 2 && s != 0) {
      options[d].push_back({-s, !first->wrap[d]});
    }
  }
  std::vector<Direction> out;
  for (const auto& [sx, wx] : options[0])
    for (const auto& [sy, wy] : options[1])
      for (const auto& [sz, wz] : options[2]) {
        Direction dir;
        dir.step = {sx, sy, sz};
        dir.wrap = {wx, wy, wz};
        out.push_back(dir);
      }
  return out;
}

std::int64_t storedOffset(const Grid& g, int cls, const Direction& dir) {
  const Rank rep = classFirst(g, cls);
  auto c = g.coords(rep);
  for (std::size_t d = 0; d < 3; ++d) {
    const Rank n = g.ext[d];
    c[d] = ((c[d] + dir.step[d]) % n + n) % n;
  }
  const Rank P = g.size();
  return ((g.rankOf(c) - rep) % P + P) % P;
}

std::string directionStr(const Direction& dir) {
  static constexpr std::array<std::string_view, 3> kUnit{"1", "px", "px*py"};
  std::string s;
  for (std::size_t d = 0; d < 3; ++d)
    if (dir.step[d] != 0) s += fmt::format("{}{}{}", dir.step[d] < 0 ? "-" : "+", kUnit[d], dir.wrap[d] ? " (wrapping)" : "");
  return s.empty() ? "0" : s;
}

std::optional<Grid> smallestGridWith(int dims, int cls, Rank limit, const std::vector<Rank>& exclude,
                                     bool descending) {
  for (Rank p = 2; p <= limit; ++p) {
    if (std::find(exclude.begin(), exclude.end(), p) != exclude.end()) continue;
    const Grid g = defaultGrid(p, dims, descending);
    bool ok = true;
    for (int d = 0; d < dims; ++d) ok = ok && g.ext[static_cast<std::size_t>(d)] >= 2;
    if (ok && !classRanks(g, cls).empty()) return g;
  }
  return std::nullopt;
}

std::string GridTopology::describe() const {
  return fmt::format("{}-D grid{}", dims_, descending_ ? " (x the longest side)" : "");
}

bool GridTopology::usable(const Grid& at) const {
  for (int d = 0; d < at.dims; ++d)
    if (at.ext[static_cast<std::size_t>(d)] < 2) return false;
  return true;
}

std::vector<ScaleVar> GridTopology::scaleVars() const {
  if (dims_ == 1) return {ScaleVar::P};
  std::vector<ScaleVar> vars;
  for (int d = 0; d < dims_; ++d) vars.push_back(static_cast<ScaleVar>(d + 1));
  vars.push_back(ScaleVar::P);
  return vars;
}

std::vector<Scale> GridTopology::candidateScales(Rank limit) const {
  std::vector<Scale> out;
  for (Rank p = 2; p <= limit; ++p)
    if (const Grid g = layout(p); usable(g)) out.push_back(g.scale());
  return out;
}

int GridTopology::classOf(const Grid& at, Rank r) const {
  const auto c = at.coords(r);
  int cls = 0, weight = 1;
  for (int d = 0; d < dims_; ++d) {
    const auto du = static_cast<std::size_t>(d);
    const int pos = c[du] == 0 ? kFirst : c[du] == at.ext[du] - 1 ? kLast : kInterior;
    cls += pos * weight;
    weight *= 3;
  }
  return cls;
}

}  // namespace tracegen::extrap
