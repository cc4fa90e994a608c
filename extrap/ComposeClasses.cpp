#include "extrap/ComposeClasses.h"

#include <fmt/format.h>

#include <algorithm>
#include <bitset>
#include <functional>
#include <optional>
#include <set>

#include "extrap/ScalingModel.h"
#include "ir/Ops.h"

namespace tracegen::extrap {

std::vector<std::int64_t> shortestPeriod(const std::vector<std::int64_t>& v) {
  for (std::size_t p = 1; p < v.size(); ++p) {
    if (v.size() % p != 0) continue;
    bool ok = true;
    for (std::size_t k = p; k < v.size() && ok; ++k) ok = v[k] == v[k % p];
    if (ok) return std::vector<std::int64_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(p));
  }
  return v;
}

namespace {

using Values = std::vector<std::int64_t>;
constexpr std::size_t kNpos = static_cast<std::size_t>(-1);

// The most distinct tokens of one event that are ordered (the order's closure is cubic in them;
// a stencil has at most 26 directions).
constexpr std::size_t kMaxTokens = 128;
// The most events the loop bodies of one composition may walk (a trace of thousands of events,
// each heading a long loop, would otherwise walk its events once per loop and class).
constexpr std::int64_t kMaxBodySteps = std::int64_t{1} << 26;
// The most values a progression fitted by a feature may have.
constexpr std::int64_t kMaxProgression = std::int64_t{1} << 22;

// The peers of one execution of a neighbour event: one direction per relative peer parameter
// (wrap flags dropped: a composed class is interior where it is composed), and which occurrence
// of these directions in the class's value list it is (two messages to one neighbour).
struct Token {
  std::vector<Direction> dirs;
  int occurrence = 0;
  auto operator<=>(const Token&) const = default;
};

Direction unwrapped(Direction d) {
  d.wrap = {false, false, false};
  return d;
}

std::string tokenStr(const Token& t) {
  std::string s;
  for (const Direction& d : t.dirs) s += (s.empty() ? "" : "/") + directionStr(d);
  return t.occurrence ? fmt::format("{} (#{})", s, t.occurrence + 1) : s;
}

// a + b * f through the points (f, v), exact in integers; the value at `at`, or nullopt when
// the points do not lie on one such line (or two distinct f are missing).
std::optional<std::int64_t> exactLine(const std::vector<std::pair<std::int64_t, std::int64_t>>& pts, std::int64_t at) {
  const auto other = std::find_if(pts.begin(), pts.end(), [&](const auto& p) { return p.first != pts.front().first; });
  if (other == pts.end()) return std::nullopt;
  const auto [f1, v1] = pts.front();
  const Int128 num = Int128{other->second} - v1, den = Int128{other->first} - f1;
  for (const auto& [f, v] : pts)
    if ((Int128{v} - v1) * den != num * (Int128{f} - f1)) return std::nullopt;
  if ((num * (Int128{at} - f1)) % den != 0) return std::nullopt;
  const Int128 y = v1 + num * (Int128{at} - f1) / den;
  if (y < INT64_MIN || y > INT64_MAX) return std::nullopt;
  return static_cast<std::int64_t>(y);
}

class Composer {
 public:
  Composer(Trace& t, const CompositionInput& in)
      : t_(t), in_(in), dims_(in.target.dims), nc_(classCount(in.target.dims)), available_(in.shown) {
    for (int c = 0; c < nc_; ++c)
      if (in_.classRanks[uc(c)].empty()) available_[uc(c)] = false;
  }

  CompositionResult run() {
    collectDirections();
    std::vector<int> pending;
    for (int c = 0; c < nc_; ++c)
      if (!in_.classRanks[uc(c)].empty() && !in_.shown[uc(c)]) pending.push_back(c);
    while (!pending.empty()) {
      bool progress = false;
      for (auto it = pending.begin(); it != pending.end();) {
        if (const auto d = latticeDim(*it)) {
          compose(*it, *d);
          available_[uc(*it)] = true;
          res_.composed.push_back(*it);
          ++res_.stats["classes composed from neighbour predicates"];
          it = pending.erase(it);
          progress = true;
        } else {
          ++it;
        }
      }
      if (!progress)
        throw CompositionError{kNpos, pending.front(),
                               "along no dimension where it is interior are both neighbouring classes (first and last "
                               "there) shown"};
    }
    return std::move(res_);
  }

 private:
  static std::size_t uc(int c) { return static_cast<std::size_t>(c); }
  Rank rep(int c) const { return *in_.classRanks[uc(c)].first(); }
  bool makes(const Event& e, int c) const { return e.ranks.contains(rep(c)); }
  static const ValueGroup* groupOf(const std::vector<ValueGroup>& groups, Rank r) {
    for (const ValueGroup& g : groups)
      if (g.ranks.contains(r)) return &g;
    return nullptr;
  }
  static int power3(int d) { return d == 0 ? 1 : d == 1 ? 3 : 9; }
  int firstAlong(int c, int d) const { return c - power3(d) * static_cast<int>(classPosition(c, d)); }
  int lastAlong(int c, int d) const { return firstAlong(c, d) + 2 * power3(d); }
  std::string name(int c) const { return className(dims_, c); }

  // Whether the ranks of class c have a neighbour in direction `dir`.
  bool hasNeighbour(const Direction& dir, int c) const {
    for (int d = 0; d < dims_; ++d) {
      const int step = dir.step[uc(d)];
      if (step == 0 || in_.periodic[uc(d)]) continue;
      const Position p = classPosition(c, d);
      if ((step < 0 && p == kFirst) || (step > 0 && p == kLast)) return false;
    }
    return true;
  }
  bool hasNeighbours(const Token& t, int c) const {
    return std::all_of(t.dirs.begin(), t.dirs.end(), [&](const Direction& d) { return hasNeighbour(d, c); });
  }

  // A dimension along which c is interior and both neighbouring classes are available.
  std::optional<int> latticeDim(int c) const {
    for (int d = 0; d < dims_; ++d)
      if (classPosition(c, d) == kInterior && available_[uc(firstAlong(c, d))] && available_[uc(lastAlong(c, d))])
        return d;
    return std::nullopt;
  }

  // The relative peers of event e as tokens for class c; nullopt when some peer is no grid
  // neighbour (or a special value) or the lists do not run in step.
  std::optional<std::vector<Token>> tokensOf(const Event& e, int c) const {
    std::vector<const Values*> lists;
    std::size_t k = 1;
    for (const ParamValues& pv : e.params) {
      if (!pv.relative) continue;
      const ValueGroup* g = groupOf(pv.groups, rep(c));
      if (!g || g->values.empty()) return std::nullopt;
      lists.push_back(&g->values);
      k = std::max(k, g->values.size());
    }
    if (lists.empty() || k > kMaxTokens) return std::nullopt;
    std::map<std::vector<Direction>, int> seen;
    std::vector<Token> out;
    for (std::size_t j = 0; j < k; ++j) {
      Token t;
      for (const Values* l : lists) {
        if (l->size() != 1 && l->size() != k) return std::nullopt;
        const auto dir = peerDirection(in_.target, c, (*l)[j % l->size()]);
        if (!dir) return std::nullopt;
        t.dirs.push_back(unwrapped(*dir));
      }
      t.occurrence = seen[t.dirs]++;
      out.push_back(std::move(t));
    }
    return out;
  }

  static bool hasRelativePeers(const Event& e) {
    return std::any_of(e.params.begin(), e.params.end(), [](const ParamValues& pv) { return pv.relative; });
  }

  // The grid directions the shown classes' relative peers take anywhere in the trace (lists of
  // up to kMaxTokens values, as composed).
  void collectDirections() {
    for (const Event& e : t_.events)
      for (const ParamValues& pv : e.params) {
        if (!pv.relative) continue;
        for (int c = 0; c < nc_; ++c) {
          if (!available_[uc(c)] || !makes(e, c)) continue;
          const ValueGroup* g = groupOf(pv.groups, rep(c));
          if (!g || g->values.size() > kMaxTokens) continue;
          for (std::int64_t v : g->values)
            if (const auto dir = peerDirection(in_.target, c, v)) directions_.insert(unwrapped(*dir));
        }
      }
  }

  // A class's number of grid neighbours among the directions the trace uses.
  std::int64_t neighbourCount(int c) const {
    std::int64_t n = 0;
    for (const Direction& d : directions_) n += hasNeighbour(d, c) ? 1 : 0;
    return n;
  }

  // Peers that are MPI_PROC_NULL where a neighbour is missing (maskedPeers).
  struct Masked {
    std::vector<std::vector<std::optional<Direction>>> dirs;  // [relative param][position]
  };

  // What class c does at one event.
  struct Plan {
    bool member = false;
    bool neighbour = false;               // a neighbour event (step 1)
    std::vector<Token> tokens;            // c's tokens, in order (neighbour events)
    std::optional<Masked> masked;         // peers MPI_PROC_NULL where a neighbour is missing
    std::vector<std::optional<Values>> iter, mem;  // per loop level; nullopt: c has no such level
    std::vector<std::optional<Values>> params;     // per entry of the event's params
  };

  // The tokens of every available class at a neighbour event, checked against the neighbour
  // predicate, and c's tokens in the order the shown classes imply.
  struct Neighbours {
    std::vector<Token> all;                         // D, in first-seen order
    std::map<int, std::vector<std::size_t>> seqs;   // per available member class: indices into `all`
  };

  std::optional<Neighbours> neighbours(std::size_t k) const {
    const Event& e = t_.events[k];
    if (!hasRelativePeers(e)) return std::nullopt;
    Neighbours n;
    std::map<Token, std::size_t> index;
    for (int a = 0; a < nc_; ++a) {
      if (!available_[uc(a)] || !makes(e, a)) continue;
      const auto toks = tokensOf(e, a);
      if (!toks) return std::nullopt;  // not every class's peers are neighbours: a plain event
      auto& seq = n.seqs[a];
      for (const Token& t : *toks) {
        auto [it, added] = index.emplace(t, n.all.size());
        if (added) n.all.push_back(t);
        seq.push_back(it->second);
      }
    }
    if (n.seqs.empty()) return std::nullopt;
    if (n.all.size() > kMaxTokens)
      throw CompositionError{k, -1, fmt::format("its peers take {} distinct directions, more than the {} composed",
                                                n.all.size(), kMaxTokens)};
    // The neighbour predicate: every available class makes exactly the tokens whose neighbours it has.
    for (int a = 0; a < nc_; ++a) {
      if (!available_[uc(a)]) continue;
      std::set<std::size_t> have, want;
      if (n.seqs.count(a)) have.insert(n.seqs.at(a).begin(), n.seqs.at(a).end());
      for (std::size_t i = 0; i < n.all.size(); ++i)
        if (hasNeighbours(n.all[i], a)) want.insert(i);
      if (have == want) continue;
      auto strs = [&](const std::set<std::size_t>& s) {
        std::vector<std::string> out;
        for (std::size_t i : s) out.push_back(tokenStr(n.all[i]));
        return out.empty() ? std::string("none") : fmt::format("{}", fmt::join(out, " "));
      };
      throw CompositionError{k, -1,
                             fmt::format("class {} makes it toward {}, while of the directions the event takes it "
                                         "has neighbours toward {}: its peers are not simply the neighbours a rank has",
                                         name(a), strs(have), strs(want))};
    }
    return n;
  }

  // Peers that are MPI_PROC_NULL where a neighbour is missing (a loop over every direction, as
  // MPI_Cart_shift gives them): per relative parameter and position in the value list, the one
  // direction of the classes that have the neighbour, and MPI_PROC_NULL exactly for those that
  // do not. nullopt when the event is no such thing.
  std::optional<Masked> maskedPeers(std::size_t k) const {
    const Event& e = t_.events[k];
    Masked m;
    std::size_t n = 0;
    bool anyNull = false;
    for (const ParamValues& pv : e.params) {
      if (!pv.relative) continue;
      std::vector<std::optional<Direction>> dirs;
      for (int a = 0; a < nc_; ++a) {
        if (!available_[uc(a)] || !makes(e, a)) continue;
        const ValueGroup* g = groupOf(pv.groups, rep(a));
        if (!g || g->values.empty() || (n && g->values.size() != n)) return std::nullopt;
        n = g->values.size();
        dirs.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
          if (g->values[j] == kProcNull) {
            anyNull = true;
            continue;
          }
          const auto dir = peerDirection(in_.target, a, g->values[j]);
          if (!dir || (dirs[j] && *dirs[j] != unwrapped(*dir))) return std::nullopt;
          dirs[j] = unwrapped(*dir);
        }
      }
      m.dirs.push_back(std::move(dirs));
    }
    if (!anyNull || m.dirs.empty()) return std::nullopt;
    // MPI_PROC_NULL exactly where the class has no neighbour that way.
    for (std::size_t p = 0, q = 0; q < e.params.size(); ++q) {
      if (!e.params[q].relative) continue;
      for (int a = 0; a < nc_; ++a) {
        if (!available_[uc(a)] || !makes(e, a)) continue;
        const Values& v = groupOf(e.params[q].groups, rep(a))->values;
        for (std::size_t j = 0; j < v.size(); ++j)
          if (v[j] == kProcNull && m.dirs[p][j] && hasNeighbour(*m.dirs[p][j], a)) return std::nullopt;
      }
      ++p;
    }
    return m;
  }

  // The tokens of class c in the order the available classes put them in.
  std::vector<Token> orderFor(std::size_t k, const Neighbours& n, int c) {
    const std::size_t m = n.all.size();
    std::vector<std::bitset<kMaxTokens>> before(m);
    for (const auto& [a, seq] : n.seqs)
      for (std::size_t j = 1; j < seq.size(); ++j) before[seq[j - 1]][seq[j]] = true;
    auto close = [&] {
      for (std::size_t x = 0; x < m; ++x)
        for (std::size_t i = 0; i < m; ++i)
          if (before[i][x]) before[i] |= before[x];
      for (std::size_t i = 0; i < m; ++i)
        if (before[i][i])
          throw CompositionError{k, c, fmt::format("the classes the inputs show make its calls toward {} in different "
                                                   "orders",
                                                   tokenStr(n.all[i]))};
    };
    close();
    // Where two tokens differ in the sign of one step alone: (peer parameter, dimension).
    auto signFlip = [&](std::size_t i, std::size_t j) -> std::optional<std::pair<std::size_t, int>> {
      const Token &a = n.all[i], &b = n.all[j];
      if (a.occurrence != b.occurrence || a.dirs.size() != b.dirs.size()) return std::nullopt;
      std::optional<std::pair<std::size_t, int>> at;
      for (std::size_t p = 0; p < a.dirs.size(); ++p)
        for (int d = 0; d < 3; ++d) {
          const int x = a.dirs[p].step[uc(d)], y = b.dirs[p].step[uc(d)];
          if (x == y) continue;
          if (x != -y || at) return std::nullopt;
          at = std::pair{p, d};
        }
      return at;
    };
    auto minusStep = [&](std::size_t i, std::pair<std::size_t, int> at) {
      return n.all[i].dirs[at.first].step[uc(at.second)] < 0;
    };
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < m; ++i)
      if (hasNeighbours(n.all[i], c)) mine.push_back(i);
    // Evidence for the order of opposite directions: the pairs the classes do order.
    std::set<bool> minusFirst;
    std::string shown;
    for (std::size_t p = 0; p < m; ++p)
      for (std::size_t q = 0; q < m; ++q) {
        if (!before[p][q]) continue;
        const auto e = signFlip(p, q);
        if (!e) continue;
        minusFirst.insert(minusStep(p, *e));
        if (shown.empty()) shown = fmt::format("{} before {}", tokenStr(n.all[p]), tokenStr(n.all[q]));
      }
    for (std::size_t x = 0; x < mine.size(); ++x)
      for (std::size_t y = x + 1; y < mine.size(); ++y) {
        const std::size_t i = mine[x], j = mine[y];
        if (before[i][j] || before[j][i]) continue;
        const auto dim = signFlip(i, j);
        if (!dim || minusFirst.size() != 1)
          throw CompositionError{k, c, fmt::format("no class the inputs show makes calls toward both {} and {}, so their "
                                                   "order is not shown{}",
                                                   tokenStr(n.all[i]), tokenStr(n.all[j]),
                                                   dim && minusFirst.size() > 1
                                                       ? " (opposite directions come in either order elsewhere)"
                                                       : "")};
        const bool iFirst = minusStep(i, *dim) == *minusFirst.begin();
        before[iFirst ? i : j][iFirst ? j : i] = true;
        ++res_.stats["orders taken from another dimension"];
        explainOnce(fmt::format("{}: {} before {} for class {} (no input shows both; they take the order of {})",
                                describe(k), tokenStr(n.all[iFirst ? i : j]), tokenStr(n.all[iFirst ? j : i]), name(c),
                                shown));
        close();
      }
    std::sort(mine.begin(), mine.end(), [&](std::size_t i, std::size_t j) { return before[i][j]; });
    std::vector<Token> out;
    for (std::size_t i : mine) out.push_back(n.all[i]);
    return out;
  }

  std::string describe(std::size_t k) const {
    const Event& e = t_.events[k];
    return fmt::format("event {} {} at {}", e.id, opName(e.op), t_.siteLabel(e.site));
  }

  void explainOnce(const std::string& line) {
    if (std::find(res_.explanation.begin(), res_.explanation.end(), line) == res_.explanation.end())
      res_.explanation.push_back(line);
  }

  // Membership by the lattice (step 2).
  bool latticeMember(const Event& e, int f, int l) const { return makes(e, f) && makes(e, l); }

  // A value list of c from the lists `refs` of the available classes that have it (step 3):
  // the same list everywhere, or a + b * feature.
  Values byFeatures(std::size_t k, int c, const std::string& what, const std::vector<std::pair<int, Values>>& refs,
                    const std::optional<std::pair<std::map<int, std::int64_t>, std::int64_t>>& tokenCounts) {
    bool same = true;
    for (const auto& [a, v] : refs) same = same && v == refs.front().second;
    if (same) return refs.front().second;
    std::vector<std::pair<std::string, std::optional<Values>>> fits;
    auto fit = [&](const std::string& feature, const std::function<std::int64_t(int)>& of, std::int64_t at) {
      std::optional<Values> out;
      bool equalLengths = true;
      for (const auto& [a, v] : refs) equalLengths = equalLengths && v.size() == refs.front().second.size();
      if (equalLengths) {
        out = Values{};
        for (std::size_t j = 0; j < refs.front().second.size() && out; ++j) {
          std::vector<std::pair<std::int64_t, std::int64_t>> pts;
          for (const auto& [a, v] : refs) pts.push_back({of(a), v[j]});
          if (const auto y = exactLine(pts, at)) out->push_back(*y);
          else out.reset();
        }
      } else {
        std::vector<std::pair<std::int64_t, std::int64_t>> starts, steps, lengths;
        bool progressions = true;
        for (const auto& [a, v] : refs) {
          progressions = progressions && v.size() >= 2;
          for (std::size_t j = 2; j < v.size() && progressions; ++j) progressions = v[j] - v[j - 1] == v[1] - v[0];
          if (!progressions) break;
          starts.push_back({of(a), v[0]});
          steps.push_back({of(a), v[1] - v[0]});
          lengths.push_back({of(a), static_cast<std::int64_t>(v.size())});
        }
        const auto s = progressions ? exactLine(starts, at) : std::nullopt;
        const auto d = progressions ? exactLine(steps, at) : std::nullopt;
        const auto n = progressions ? exactLine(lengths, at) : std::nullopt;
        if (s && d && n && *n >= 1 && *n <= kMaxProgression) {
          out = Values{};
          for (std::int64_t j = 0; j < *n; ++j) out->push_back(*s + j * *d);
        }
      }
      fits.push_back({feature, out});
    };
    fit("neighbour count", [&](int a) { return neighbourCount(a); }, neighbourCount(c));
    if (tokenCounts)
      fit("calls per execution of the event's loop",
          [&](int a) { return tokenCounts->first.count(a) ? tokenCounts->first.at(a) : 0; }, tokenCounts->second);
    std::optional<Values> chosen;
    std::string by;
    for (const auto& [feature, v] : fits) {
      if (!v) continue;
      if (chosen && *chosen != *v)
        throw CompositionError{k, c, fmt::format("{}: {} by its {}, {} by its {}: the classes the inputs show do not "
                                                 "decide",
                                                 what, valueListStr(*chosen), by, valueListStr(*v), feature)};
      if (!chosen) chosen = v, by = feature;
    }
    if (!chosen) {
      std::string seen;
      for (const auto& [a, v] : refs)
        seen += fmt::format("{}{} for {} ({} neighbours)", seen.empty() ? "" : ", ", valueListStr(v), name(a), neighbourCount(a));
      throw CompositionError{k, c, fmt::format("its {} is {}: no line through the classes' neighbour counts, nor through "
                                               "their calls per loop, gives it",
                                               what, seen)};
    }
    ++res_.stats["values fitted by neighbour count"];
    return *chosen;
  }

  // Body length of loop level `l` headed by event k for class c: the events c makes within the
  // trace range that the available classes' bodies span.
  std::optional<Values> countedBody(std::size_t k, std::size_t l, int c, const std::vector<bool>& member) {
    std::optional<std::size_t> end;
    for (int a = 0; a < nc_; ++a) {
      if (!available_[uc(a)] || !makes(t_.events[k], a)) continue;
      const ValueGroup* g = groupOf(t_.events[k].loops[l].mem, rep(a));
      if (!g) continue;
      if (g->values.size() != 1) return std::nullopt;
      std::int64_t left = g->values[0];
      std::size_t j = k;
      for (; j < t_.events.size(); ++j) {
        if (++bodySteps_ > kMaxBodySteps)
          throw CompositionError{k, c, fmt::format("its loop bodies take more than {} steps to count", kMaxBodySteps)};
        if (makes(t_.events[j], a) && --left == 0) break;
      }
      if (j == t_.events.size() || (end && *end != j))
        throw CompositionError{k, c, fmt::format("the body of its loop {} ends at different events for the classes the "
                                                 "inputs show",
                                                 l)};
      end = j;
    }
    if (!end) return std::nullopt;
    std::int64_t n = 0;
    for (std::size_t j = k; j <= *end; ++j) n += member[j] ? 1 : 0;
    return Values{n};
  }

  void compose(int c, int d) {
    const int f = firstAlong(c, d), l = lastAlong(c, d);
    const std::size_t ne = t_.events.size();
    std::vector<Plan> plans(ne);
    std::vector<std::optional<Neighbours>> nb(ne);
    std::vector<bool> member(ne, false);
    std::size_t neighbourEvents = 0;
    std::string firstPeers;
    // Membership.
    for (std::size_t k = 0; k < ne; ++k) {
      const Event& e = t_.events[k];
      nb[k] = neighbours(k);
      Plan& p = plans[k];
      if (nb[k]) {
        p.neighbour = true;
        p.tokens = orderFor(k, *nb[k], c);
        p.member = !p.tokens.empty();
      } else {
        p.member = latticeMember(e, f, l);
        if (p.member && hasRelativePeers(e)) p.masked = maskedPeers(k);
      }
      member[k] = p.member;
    }
    // Values.
    for (std::size_t k = 0; k < ne; ++k) {
      Plan& p = plans[k];
      if (!p.member) continue;
      const Event& e = t_.events[k];
      std::optional<std::pair<std::map<int, std::int64_t>, std::int64_t>> tokenCounts;
      if (p.neighbour) {
        ++neighbourEvents;
        tokenCounts.emplace();
        for (const auto& [a, seq] : nb[k]->seqs) tokenCounts->first[a] = static_cast<std::int64_t>(seq.size());
        tokenCounts->second = static_cast<std::int64_t>(p.tokens.size());
        if (firstPeers.empty()) {
          std::vector<std::string> s;
          for (const Token& t : p.tokens) s.push_back(tokenStr(t));
          firstPeers = fmt::format("; {} toward {}", describe(k), fmt::join(s, " "));
        }
      }
      // The classes whose lists c's follow: available members (for loop levels, the neighbouring
      // classes decide whether c has the level).
      std::vector<int> refs;
      for (int a = 0; a < nc_; ++a)
        if (available_[uc(a)] && makes(e, a)) refs.push_back(a);
      auto collect = [&](const std::vector<ValueGroup>& groups) {
        std::vector<std::pair<int, Values>> out;
        for (int a : refs)
          if (const ValueGroup* g = groupOf(groups, rep(a))) out.push_back({a, g->values});
        return out;
      };
      p.iter.resize(e.loops.size());
      p.mem.resize(e.loops.size());
      for (std::size_t lv = 0; lv < e.loops.size(); ++lv) {
        // Whether c has the level: as its lattice neighbours that make the event.
        std::optional<bool> has;
        for (int a : {f, l}) {
          if (!makes(e, a)) continue;
          const bool h = groupOf(e.loops[lv].iter, rep(a)) != nullptr;
          if (has && *has != h)
            throw CompositionError{k, c, fmt::format("its loop {} is a loop for class {} and not for {}", lv, name(f),
                                                     name(l))};
          has = h;
        }
        if (!has) {
          const auto r = collect(e.loops[lv].iter);
          has = !r.empty() && r.size() == refs.size();
        }
        if (!*has) continue;
        const auto iters = collect(e.loops[lv].iter);
        if (iters.empty()) throw CompositionError{k, c, fmt::format("no class the inputs show has its loop {}", lv)};
        p.iter[lv] = byFeatures(k, c, fmt::format("loop {} iter", lv), iters, tokenCounts);
        p.mem[lv] = countedBody(k, lv, c, member);
        if (!p.mem[lv]) {
          const auto mems = collect(e.loops[lv].mem);
          if (mems.empty()) throw CompositionError{k, c, fmt::format("no class the inputs show has its loop {} body", lv)};
          p.mem[lv] = byFeatures(k, c, fmt::format("loop {} mem", lv), mems, tokenCounts);
        }
      }
      p.params.resize(e.params.size());
      for (std::size_t q = 0; q < e.params.size(); ++q) {
        const ParamValues& pv = e.params[q];
        const std::string what(paramName(pv.param));
        const auto lists = collect(pv.groups);
        if (lists.empty()) continue;
        if (lists.size() != refs.size())
          throw CompositionError{k, c, fmt::format("{} is given for some of the classes that make it only", what)};
        Values v;
        // The position of this parameter among the relative ones (a token's directions and a
        // masked list's positions are in that order).
        const auto at = static_cast<std::size_t>(
            std::count_if(e.params.begin(), e.params.begin() + static_cast<std::ptrdiff_t>(q), [](const ParamValues& r) { return r.relative; }));
        if (p.neighbour && pv.relative) {
          for (const Token& t : p.tokens) v.push_back(storedOffset(in_.target, c, t.dirs[at]));
        } else if (p.neighbour && !isVectorParam(pv.param)) {
          // Per token, the same value for every class that makes it; else as a plain value.
          std::map<Token, std::int64_t> perToken;
          bool aligned = true;
          for (const auto& [a, list] : lists) {
            const auto& seq = nb[k]->seqs.at(a);
            if (list.size() != 1 && list.size() != seq.size()) aligned = false;
            for (std::size_t j = 0; j < seq.size() && aligned; ++j) {
              auto [it, added] = perToken.emplace(nb[k]->all[seq[j]], list[j % list.size()]);
              aligned = added || it->second == list[j % list.size()];
            }
          }
          if (aligned)
            for (const Token& t : p.tokens) v.push_back(perToken.at(t));
          else
            v = byFeatures(k, c, what, lists, tokenCounts);
        } else if (p.masked && pv.relative) {
          for (const auto& dir : p.masked->dirs[at])
            v.push_back(dir && hasNeighbour(*dir, c) ? storedOffset(in_.target, c, *dir) : kProcNull);
          ++res_.stats["peers composed as MPI_PROC_NULL where a neighbour is missing"];
        } else if (pv.relative) {
          // Peers that are no grid neighbours compose only where every class has the same.
          for (const auto& [a, list] : lists)
            if (list != lists.front().second)
              throw CompositionError{k, c, fmt::format("its {} is {} for class {} and {} for class {}: peers that are not "
                                                       "grid neighbours of every class are not composed",
                                                       what, valueListStr(lists.front().second), name(lists.front().first),
                                                       valueListStr(list), name(a))};
          v = lists.front().second;
        } else {
          v = byFeatures(k, c, what, lists, tokenCounts);
        }
        p.params[q] = isVectorParam(pv.param) ? v : shortestPeriod(v);
      }
    }
    // Insert c's block into every group.
    const RankList& block = in_.classRanks[uc(c)];
    auto add = [&](std::vector<ValueGroup>& groups, const Values& v) {
      auto it = std::find_if(groups.begin(), groups.end(), [&](const ValueGroup& g) { return g.values == v; });
      if (it == groups.end()) groups.push_back({block, v});
      else it->ranks = RankList::unite(it->ranks, block);
      std::sort(groups.begin(), groups.end(),
                [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
    };
    std::size_t made = 0;
    for (std::size_t k = 0; k < ne; ++k) {
      const Plan& p = plans[k];
      if (!p.member) continue;
      ++made;
      Event& e = t_.events[k];
      e.ranks = RankList::unite(e.ranks, block);
      for (std::size_t lv = 0; lv < e.loops.size(); ++lv) {
        if (p.iter[lv]) add(e.loops[lv].iter, *p.iter[lv]);
        if (p.mem[lv]) add(e.loops[lv].mem, *p.mem[lv]);
      }
      for (std::size_t q = 0; q < e.params.size(); ++q)
        if (p.params[q]) add(e.params[q].groups, *p.params[q]);
    }
    res_.stats["neighbour events composed"] += static_cast<std::int64_t>(neighbourEvents);
    res_.explanation.push_back(fmt::format("class {} (no input shows it): composed from classes {} and {} by per-direction "
                                           "neighbour predicates, {} grid neighbours; it makes {} of the {} events{}",
                                           name(c), name(f), name(l), neighbourCount(c), made, ne, firstPeers));
  }

  Trace& t_;
  const CompositionInput& in_;
  int dims_;
  int nc_;
  std::vector<bool> available_;
  std::set<Direction> directions_;
  std::int64_t bodySteps_ = 0;
  CompositionResult res_;
};

}  // namespace

CompositionResult composeUnshownClasses(Trace& trace, const CompositionInput& in) { return Composer(trace, in).run(); }

}  // namespace tracegen::extrap
