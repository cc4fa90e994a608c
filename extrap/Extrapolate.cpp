#include "extrap/Extrapolate.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <tuple>

#include "extrap/BlockDistribution.h"
#include "extrap/ComposeClasses.h"
#include "extrap/Correspondence.h"
#include "extrap/topology/Topology.h"
#include "ir/Diagnostics.h"
#include "ir/Limits.h"

namespace tracegen::extrap {

namespace {

using Values = std::vector<std::int64_t>;
using ClassValues = std::vector<std::optional<Values>>;  // per class; empty: not in the slot

// A failure while trying one topology: the error and how far the attempt got, so that the
// error of the attempt that got furthest is the one reported.
struct Attempt {
  InputError error;
  int progress;
};

enum class SlotKind { Numeric, Identifier, Peer };

// The most ranks an input may have when its split colours are checked rank by rank.
constexpr Rank kMaxColorCheckRanks = Rank{1} << 16;
// The most ranks an input may have when its peers are checked against a relation rank by rank.
constexpr Rank kMaxRelationCheckRanks = Rank{1} << 16;
// The most ranks a target may have when peers that follow a relation (extrap/topology/
// PeerRelation.h) are given rank by rank there: each rank of the event is visited once.
constexpr Rank kMaxRelationRanks = Rank{1} << 20;
// The most values (ranks times steps) such peers may take there: a pairwise exchange's lists
// have P-1 values each, so the target's lists grow as P^2.
constexpr Rank kMaxRelationValues = Rank{1} << 24;

// The mean relative error at the held-back scales up to which a fitted time model is taken.
constexpr double kTimeTolerance = 0.25;

// Counts that follow the application's data (docs/extrapolation.md, "Counts that follow the
// data"): the mean total per rank must fit a model that predicts the held-back inputs within
// kDataTotalSpread, so that the bytes of all ranks together stay within 1% of the
// application's; every rank then moves the mean, which keeps it within kDataRankSpread of its
// own total as long as the inputs' totals spread no further (a sort's keys fall unevenly into
// the buckets: NPB IS-like codes spread 1-3%). The benchmark says it is approximate there.
constexpr double kDataTotalSpread = 0.01;
constexpr double kDataRankSpread = 0.05;
// The per-pair count at the target is the total over the ranks, rounded: at most this far off.
constexpr double kDataRounding = 0.005;

// MPI_Alltoallv's count and displacement vectors, the ones a sort's keys decide.
bool isDataVectorOp(Op op) { return op == Op::Alltoallv || op == Op::Ialltoallv; }
bool isDataVectorParam(Param p) {
  return p == Param::SendCounts || p == Param::RecvCounts || p == Param::Displs || p == Param::RecvDispls;
}

struct SlotDesc {
  std::string name;  // "count", "loop 0 iter"
  SlotKind kind = SlotKind::Numeric;
  bool relative = false;
  bool vector = false;
  bool tripCount = false;  // a loop level's iter
  // A parameter whose values may follow a block distribution where no model per position class
  // fits them (extrap/BlockDistribution.h).
  bool blockModel = false;
};

// Numeric parameters whose values may follow a block distribution: scalar lists that are not
// identifiers, peers or the colour (split groups have their own fit).
bool mayFollowBlocks(Param p) {
  switch (p) {
    case Param::Comm:
    case Param::Datatype:
    case Param::RecvType:
    case Param::ReduceOp:
    case Param::NewComm:
    case Param::Group:
    case Param::Group1:
    case Param::Group2:
    case Param::Dest:
    case Param::Source:
    case Param::Key:
    case Param::Color:
    case Param::Failed:
    case Param::Matched: return false;
    default: return !isVectorParam(p);
  }
}

// The families of rank counts a code is run at: the smallest count times powers of two, the
// squares, the cubes (the first that holds every count, in that order).
enum class RankFamily { None, PowerOfTwo, Square, Cube };

// The integer k-th root of p, or 0 where p is no k-th power.
Rank integerRoot(Rank p, int k) {
  const auto r = static_cast<Rank>(std::llround(std::pow(static_cast<double>(p), 1.0 / k)));
  for (Rank c = std::max<Rank>(r - 1, 1); c <= r + 1; ++c) {
    Rank q = 1;
    for (int i = 0; i < k; ++i) q *= c;
    if (q == p) return c;
  }
  return 0;
}

bool inFamily(RankFamily f, Rank lo, Rank p) {
  switch (f) {
    case RankFamily::PowerOfTwo: return p % lo == 0 && std::has_single_bit(static_cast<std::uint64_t>(p / lo));
    case RankFamily::Square: return integerRoot(p, 2) > 0;
    case RankFamily::Cube: return integerRoot(p, 3) > 0;
    case RankFamily::None: break;
  }
  return false;
}

RankFamily familyOf(const std::vector<Rank>& sizes) {
  if (sizes.empty()) return RankFamily::None;
  const Rank lo = *std::min_element(sizes.begin(), sizes.end());
  for (RankFamily f : {RankFamily::PowerOfTwo, RankFamily::Square, RankFamily::Cube})
    if (std::all_of(sizes.begin(), sizes.end(), [&](Rank p) { return inFamily(f, lo, p); })) return f;
  return RankFamily::None;
}

class Extrapolator {
 public:
  // blockValues: numeric parameters whose rank groups are no union of position classes are let
  // through to the fits, which may find them a block distribution (a second try, after every
  // topology failed with them held to the classes).
  Extrapolator(const std::vector<ExtrapolateInput>& in, const ExtrapolateOptions& opts, int dims, bool descending,
               bool blockValues = false)
      : in_(in), dims_(dims), descending_(descending), blockValues_(blockValues), wantPlots_(opts.plots),
        topology_(dims, descending) {
    for (const auto& i : in) grids_.push_back(topology_.layout(i.trace.numRanks));
    target_ = opts.grid ? *opts.grid : topology_.layout(opts.ranks);
    vars_ = topology_.scaleVars();
    probes_ = topology_.candidateScales(128);
    preferTheInputsFamily();
    fitCache_ = opts.fitCache;
  }

  // A code recorded at 8, 16 and 32 ranks runs at powers of two (bt_like at squares): where two
  // models disagree, a scale of the inputs' family is named first, as one the code can run at
  // (27 ranks would settle the models of a 3-D code, but it has no run at 27).
  void preferTheInputsFamily() {
    std::vector<Rank> sizes;
    for (const Grid& g : grids_) sizes.push_back(g.size());
    const RankFamily family = familyOf(sizes);
    if (family == RankFamily::None) return;
    const Rank lo = *std::min_element(sizes.begin(), sizes.end());
    std::stable_partition(probes_.begin(), probes_.end(), [&](const Scale& s) { return inFamily(family, lo, s.ranks); });
  }

  bool valid(const Grid& g) const { return topology_.usable(g); }

  // fitReal over the topology's variables, through the shared cache where there is one.
  RealFit realFit(std::span<const Observation<double>> obs, const RealFitOptions& options) {
    return fitCache_ ? fitCache_->fit(obs, vars_, options) : fitReal(obs, vars_, options);
  }

  // The scales a recording could settle two rival models at, above `ranks`: below it the
  // structure was seen to differ (inputs set aside), so a recording there would be set aside too.
  void settleAbove(Rank ranks) {
    std::erase_if(probes_, [&](const Scale& s) { return s.value(ScaleVar::P) <= ranks; });
  }

  int progress() const { return progress_; }

  // Builds the classes of every grid; throws when a grid has an extent below 2.
  void prepare() {
    const int nc = topology_.classCount();
    progress_ = -1;
    for (std::size_t i = 0; i < in_.size(); ++i)
      if (!valid(grids_[i]))
        throw InputError(in_[i].file, 0,
                         fmt::format("{} ranks make a {}-D grid of {}, with an extent below 2", in_[i].trace.numRanks,
                                     dims_, grids_[i].str()));
    classes_.assign(in_.size(), {});
    for (std::size_t i = 0; i < in_.size(); ++i)
      for (int c = 0; c < nc; ++c) classes_[i].push_back(topology_.classRanks(grids_[i], c));
    progress_ = 0;
  }

  // Whether every rank group of every input is a union of position classes of its grid.
  void checkClasses() {
    for (std::size_t k = 0; k < in_.front().trace.events.size(); ++k) {
      eventIndex_ = k;
      const bool dataVectors = dataDependent();
      for (const ParamValues& pv : event(0).params)
        if (const PeerRelation* rel = relationFor(pv.param)) relations_[{k, pv.param}] = rel;
      for (std::size_t i = 0; i < in_.size(); ++i) {
        const Event& e = event(i);
        perClass(i, {{e.ranks, {}}}, "ranks");
        for (std::size_t l = 0; l < e.loops.size(); ++l) {
          perClass(i, e.loops[l].iter, fmt::format("loop {} iter", l));
          perClass(i, e.loops[l].mem, fmt::format("loop {} mem", l));
        }
        for (const ParamValues& pv : e.params) {
          if (pv.param == Param::Failed || pv.param == Param::Matched || pv.param == Param::Color ||
              (dataVectors && isDataVectorParam(pv.param)) || relations_.count({k, pv.param}))
            continue;
          if (blockValues_ && mayFollowBlocks(pv.param) && !unionOfClasses(i, pv.groups)) continue;
          perClass(i, pv.groups, std::string(paramName(pv.param)));
        }
      }
      progress_ = static_cast<int>(k) + 1;
    }
  }

  ExtrapolateResult run() {
    const int nc = topology_.classCount();
    if (!valid(target_))
      throw InputError("extrapolate", 0,
                       fmt::format("{} ranks make a {}-D grid of {}, with an extent below 2", target_.size(), dims_,
                                   target_.str()));
    for (int c = 0; c < nc; ++c) targetClasses_.push_back(topology_.classRanks(target_, c));
    // Classes of the target that no input shows are composed from the others once these are
    // extrapolated (extrap/ComposeClasses.h).
    std::vector<bool> shown(static_cast<std::size_t>(nc), false);
    for (int c = 0; c < nc; ++c)
      for (std::size_t i = 0; i < in_.size(); ++i)
        if (!classes_[i][static_cast<std::size_t>(c)].empty()) shown[static_cast<std::size_t>(c)] = true;

    res_.target = target_;
    res_.descending = descending_;
    res_.inputGrids = grids_;
    Trace& out = res_.trace;
    const Trace& first = in_.front().trace;
    out.numRanks = target_.size();
    out.origin = "tracegen-extrapolate";
    out.worldPeers = first.worldPeers;
    out.computeClock = first.computeClock;  // compute times keep the clock they were measured with
    // Sites come from the first input (extrapolateEvent): their frame names too.
    out.frameNames = first.frameNames;
    out.program = first.program;
    out.comms = standardCommunicators(out.numRanks);
    for (const auto& i : in_)
      for (const Datatype& dt : i.trace.datatypes)
        if (!out.datatype(dt.id)) out.datatypes.push_back(dt);
    std::int64_t targetClasses = 0;
    for (const auto& c : targetClasses_) targetClasses += c.empty() ? 0 : 1;
    res_.stats["classes"] = targetClasses;
    res_.stats["inputs"] = static_cast<std::int64_t>(in_.size());

    for (std::size_t k = 0; k < first.events.size(); ++k) {
      eventIndex_ = k;
      Event e = extrapolateEvent();
      if (e.ranks.empty()) {
        ++res_.stats["events dropped (no class of the target executes them)"];
        continue;
      }
      out.events.push_back(std::move(e));
      progress_ = static_cast<int>(k) + 1;
    }
    composeClasses(out, shown);
    res_.stats["events"] = static_cast<std::int64_t>(out.events.size());
    communicators(out);
    for (Explained& x : explained_) {
      res_.explanation.push_back(x.key + (x.classes.empty() ? "" : " [" + fmt::format("{}", fmt::join(x.classes, "; ")) + "]"));
      if (!x.plot) continue;
      ScalingPlot& p = plots_[*x.plot];
      p.classes = x.classes;
      p.explanations = {res_.explanation.back()};
      // Several events with one operation, quantity, classes, values and model: one picture.
      auto same = std::find_if(res_.plots.begin(), res_.plots.end(), [&](const ScalingPlot& q) {
        if (q.op != p.op || q.quantity != p.quantity || q.classes != p.classes || q.chosen.formula != p.chosen.formula ||
            q.target.value != p.target.value || q.inputs.size() != p.inputs.size())
          return false;
        for (std::size_t k = 0; k < p.inputs.size(); ++k)
          if (q.inputs[k].ranks != p.inputs[k].ranks || q.inputs[k].value != p.inputs[k].value) return false;
        return true;
      });
      if (same == res_.plots.end()) {
        res_.plots.push_back(std::move(p));
      } else {
        same->events.insert(same->events.end(), p.events.begin(), p.events.end());
        same->explanations.push_back(p.explanations.front());
      }
    }
    return std::move(res_);
  }

 private:
  const Event& event(std::size_t i) const { return in_[i].trace.events[eventIndex_]; }

  std::string describe(std::size_t i) const {
    const Event& e = event(i);
    return fmt::format("event {} {} at {}", e.id, opName(e.op), in_[i].trace.siteLabel(e.site));
  }

  InputError error(std::size_t i, const std::string& message) const {
    return InputError(in_[i].file, event(i).line, describe(i) + ": " + message);
  }

  std::string at(std::size_t i) const { return fmt::format("P={} ({})", grids_[i].size(), grids_[i].str()); }
  std::string atTarget() const { return fmt::format("P={} ({})", target_.size(), target_.str()); }

  std::string settleHint(int cls) const {
    std::vector<Rank> have;
    for (const auto& i : in_) have.push_back(i.trace.numRanks);
    if (auto g = smallestGridWith(dims_, cls, 4096, have, descending_))
      return fmt::format("; a recording at P={} ({}) would show it", g->size(), g->str());
    return "";
  }

  // The relation that gives the relative peers of slot p of the current event, where at some
  // input its groups are no union of position classes (each rank has a peer of its own:
  // recursive doubling's rank XOR 2^k, a transpose partner) and one relation gives every rank
  // of every input its list; nullptr otherwise (the class check then reports the groups).
  const PeerRelation* relationFor(Param p) const {
    if (kindOf(p) != SlotKind::Peer) return nullptr;
    bool needed = false;
    for (std::size_t i = 0; i < in_.size(); ++i) {
      const ParamValues* pv = event(i).param(p);
      if (!pv || !pv->relative || grids_[i].size() > kMaxRelationCheckRanks) return nullptr;
      if (!unionOfClasses(i, pv->groups)) needed = true;
    }
    if (!needed) return nullptr;
    for (const auto& rel : topology_.relations()) {
      bool all = true;
      for (std::size_t i = 0; i < in_.size() && all; ++i) all = relationExplains(*rel, grids_[i], event(i).param(p)->groups);
      if (all) return rel.get();
    }
    return nullptr;
  }

  // The groups of a relation's peers at the target: each rank of the event gets its list, and
  // ranks with equal lists form one group.
  std::vector<ValueGroup> relationGroups(const PeerRelation& rel, Param p, const RankList& ranks) {
    const std::string what = std::string(paramName(p));
    if (!rel.definedOn(target_))
      throw error(0, fmt::format("{}: its peers are {}, which the {} grid at {} does not have", what, rel.name(),
                                 target_.str(), atTarget()));
    if (ranks.size() > kMaxRelationRanks)
      throw error(0, fmt::format("{}: its peers are {}, given rank by rank, and {} ranks are more than the {} a target "
                                 "may have for it",
                                 what, rel.name(), ranks.size(), kMaxRelationRanks));
    if (const auto steps = static_cast<Rank>(rel.steps(target_)); steps > kMaxRelationValues / std::max<Rank>(1, ranks.size()))
      throw error(0, fmt::format("{}: its peers are {}, {} per rank at {}, and {} ranks of them are more than the {} peers "
                                 "a target trace may hold; a scale-free benchmark (no --ranks) computes them at run time",
                                 what, rel.name(), steps, atTarget(), ranks.size(), kMaxRelationValues));
    std::map<Values, std::vector<Rank>> byList;
    ranks.forEach([&](Rank r) {
      byList[relationList(rel, target_, r)].push_back(r);
      return true;
    });
    std::vector<ValueGroup> out;
    for (auto& [values, members] : byList) out.push_back({RankList::fromSorted(members), values});
    std::sort(out.begin(), out.end(), [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
    ++res_.stats["peers by relation"];
    std::string seen;
    for (std::size_t i = 0; i < in_.size(); ++i)
      seen += fmt::format("{}{} at {}", seen.empty() ? "" : ", ", valueListStr(relationList(rel, grids_[i], 0)), at(i));
    explain(fmt::format("{} {} (stored rel): {} (rank 0: {}) -> {} at {} ({} groups of ranks)", describe(0), what,
                        rel.name(), seen, valueListStr(relationList(rel, target_, 0)), atTarget(), out.size()),
            "");
    return out;
  }

  // Where the current event's peers follow a relation of several steps (a loop over the bits
  // of the hypercube), the steps at every input and at the target: the loop's trip count and
  // every list with one value per step follow them, with no fit (log2(px) at 2, 4, 4 columns is
  // no more likely than px/2 to a fit).
  void findSteps() {
    steps_.reset();
    for (const auto& [key, rel] : relations_) {
      if (key.first != eventIndex_) continue;
      std::vector<std::size_t> at;
      bool several = false;
      for (std::size_t i = 0; i < in_.size(); ++i) {
        at.push_back(rel->steps(grids_[i]));
        several = several || at.back() > 1;
      }
      if (several && rel->definedOn(target_)) steps_ = Steps{std::move(at), rel->steps(target_)};
    }
  }

  // The lists of `obs` as one value per step, where they are that: a trip count equal to the
  // steps at every input gives the steps at the target; lists of one value per step that are
  // arithmetic progressions (a tag per step) give the progression over the target's steps.
  std::optional<Values> fitSteps(const std::vector<std::pair<std::size_t, Values>>& obs, const SlotDesc& slot,
                                 const std::string& cls, int cl) {
    if (!steps_) return std::nullopt;
    bool perStep = true, progressions = true;
    for (const auto& [i, v] : obs) {
      const auto n = static_cast<std::int64_t>(steps_->at[i]);
      if (slot.tripCount) perStep = perStep && v.size() == 1 && v[0] == n;
      else perStep = perStep && static_cast<std::int64_t>(v.size()) == n;
      for (std::size_t k = 2; k < v.size(); ++k) progressions = progressions && v[k] - v[k - 1] == v[1] - v[0];
    }
    if (!perStep) return std::nullopt;
    const auto n = static_cast<std::int64_t>(steps_->target);
    if (slot.tripCount) {
      ++res_.stats["trip counts as relation steps"];
      explain(fmt::format("{} {}: the steps of its peers' relation -> {} at {}", describe(0), slot.name, n, atTarget()), cls);
      return Values{n};
    }
    if (!progressions || slot.vector) return std::nullopt;
    std::vector<std::pair<std::size_t, std::int64_t>> starts, strides;
    for (const auto& [i, v] : obs) {
      starts.push_back({i, v[0]});
      if (v.size() >= 2) strides.push_back({i, v[1] - v[0]});
    }
    const std::int64_t s = fitOne(starts, slot.name + " (first value)", cls, cl);
    const std::int64_t d = strides.empty() ? 0 : fitOne(strides, slot.name + " (step)", cls, cl);
    ++res_.stats["lists per relation step"];
    Values out(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) out[static_cast<std::size_t>(k)] = s + k * d;
    return out;
  }

  // The rank groups of one slot of an input, per class of that input's grid.
  ClassValues perClass(std::size_t i, const std::vector<ValueGroup>& groups, const std::string& what) {
    const int nc = topology_.classCount();
    ClassValues out(static_cast<std::size_t>(nc));
    for (const ValueGroup& g : groups) {
      for (int c = 0; c < nc; ++c) {
        const RankList& cr = classes_[i][static_cast<std::size_t>(c)];
        if (cr.empty() || !g.ranks.intersects(cr)) continue;
        ++res_.stats["class checks"];
        if (!cr.isSubsetOf(g.ranks))
          throw error(i, fmt::format("the ranks {} of its {} are not a union of position classes of the {}-D grid at {}: "
                                     "they hold part of class {}",
                                     g.ranks.str(), what, dims_, at(i), topology_.className(c)));
        out[static_cast<std::size_t>(c)] = g.values;
      }
    }
    return out;
  }

  // Which classes of the target execute the event, consistent over the inputs that show them.
  std::vector<bool> membership() {
    const int nc = topology_.classCount();
    std::vector<ClassValues> per;
    for (std::size_t i = 0; i < in_.size(); ++i) per.push_back(perClass(i, {{event(i).ranks, {}}}, "ranks"));
    std::vector<bool> member(static_cast<std::size_t>(nc), false);
    for (int c = 0; c < nc; ++c) {
      const auto cu = static_cast<std::size_t>(c);
      if (targetClasses_[cu].empty()) continue;
      std::optional<std::size_t> seen;
      for (std::size_t i = 0; i < in_.size(); ++i) {
        if (classes_[i][cu].empty()) continue;
        if (seen && per[*seen][cu].has_value() != per[i][cu].has_value())
          throw error(i, fmt::format("the ranks of class {} execute it at {} but not at {}: the structure changes "
                                     "with scale in a way no model explains",
                                     topology_.className(c), per[i][cu] ? at(i) : at(*seen), per[i][cu] ? at(*seen) : at(i)));
        seen = i;
      }
      member[cu] = seen && per[*seen][cu].has_value();
    }
    return member;
  }

  // Whether the lists have one length, after reducing scalar lists to their period (the values
  // are consumed cyclically, so [5 5] is [5]).
  static bool equalLengths(std::vector<std::pair<std::size_t, Values>>& obs, const SlotDesc& slot) {
    auto same = [&] {
      for (const auto& [i, v] : obs)
        if (v.size() != obs.front().second.size()) return false;
      return true;
    };
    if (same()) return true;
    if (slot.vector) return false;
    for (auto& [i, v] : obs) v = shortestPeriod(v);
    return same();
  }

  // Scalar lists of different lengths repeated to their least common multiple (at most
  // kMaxExpanded), which cyclic consumption leaves equivalent: [80] and [80 60] become [80 80]
  // and [80 60] (a corner rank's two messages, equal on a square grid).
  static bool expandCyclic(std::vector<std::pair<std::size_t, Values>>& obs, const SlotDesc& slot) {
    constexpr std::size_t kMaxExpanded = 1024;
    if (slot.vector) return false;
    std::size_t l = 1;
    for (const auto& [i, v] : obs) {
      if (v.empty()) return false;
      l = std::lcm(l, v.size());
      if (l > kMaxExpanded) return false;
    }
    for (auto& [i, v] : obs) {
      Values e(l);
      for (std::size_t k = 0; k < l; ++k) e[k] = v[k % v.size()];
      v = std::move(e);
    }
    return true;
  }

  // `plot` makes the line's picture (--plot), called only where pictures are wanted and the line
  // is new; it may give none.
  void explain(const std::string& key, const std::string& cls,
               const std::function<std::optional<ScalingPlot>()>& plot = nullptr) {
    for (auto& x : explained_)
      if (x.key == key) {
        if (!cls.empty() && std::find(x.classes.begin(), x.classes.end(), cls) == x.classes.end()) x.classes.push_back(cls);
        return;
      }
    std::optional<std::size_t> index;
    if (wantPlots_ && plot)
      if (auto p = plot()) {
        index = plots_.size();
        plots_.push_back(std::move(*p));
      }
    explained_.push_back({key, cls.empty() ? std::vector<std::string>{} : std::vector<std::string>{cls}, index});
  }

  // ---- The pictures of --plot (extrap/ScalingPlot.h) ----
  // The rank counts a model of a grid extent is drawn at: those of the inputs and the target,
  // and between them the ones of the family they share, if they share one (the smallest times a
  // power of two; squares; cubes), as the grids of other counts follow other shapes (a model of
  // px at 6 = 3x2 ranks is no point of a code run at 4, 8, 16 and 32). Straight between them.
  std::vector<Rank> gridFamily() const {
    std::vector<Rank> known{target_.size()};
    for (const Grid& g : grids_) known.push_back(g.size());
    const Rank lo = *std::min_element(known.begin(), known.end()), hi = *std::max_element(known.begin(), known.end());
    std::vector<Rank> out;
    constexpr std::size_t kMaxFamily = 256;
    switch (familyOf(known)) {
      case RankFamily::PowerOfTwo:
        for (Rank p = lo; p <= hi && out.size() < kMaxFamily; p *= 2) out.push_back(p);
        break;
      case RankFamily::Square:
      case RankFamily::Cube: {
        const int k = familyOf(known) == RankFamily::Square ? 2 : 3;
        for (Rank r = integerRoot(lo, k); out.size() < kMaxFamily; ++r) {
          Rank q = 1;
          for (int i = 0; i < k; ++i) q *= r;
          if (q > hi) break;
          out.push_back(q);
        }
        break;
      }
      case RankFamily::None: break;
    }
    for (Rank p : known) out.push_back(p);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  // A model's curve from the smallest input scale to the target (or the largest input, past a
  // target below them): a model of P at 64 rank counts spaced evenly on a log scale and at every
  // input and the target; a model of a grid extent at gridFamily()'s rank counts, with the
  // inputs' grids and the target's, else the grid the topology lays out.
  std::vector<PlotPoint> curve(const std::function<double(const Scale&)>& f, ScaleVar var) const {
    std::vector<Scale> scales;
    for (const Grid& g : grids_) scales.push_back(g.scale());
    scales.push_back(target_.scale());
    Rank lo = target_.size(), hi = target_.size();
    for (const Grid& g : grids_) lo = std::min(lo, g.size()), hi = std::max(hi, g.size());
    if (var == ScaleVar::P) {
      constexpr int kSamples = 64;
      for (int k = 1; k < kSamples; ++k) {
        const double x = static_cast<double>(lo) * std::pow(static_cast<double>(hi) / static_cast<double>(lo),
                                                             static_cast<double>(k) / kSamples);
        const auto p = static_cast<Rank>(std::llround(x));
        scales.push_back(Scale{p, {p, 1, 1}});
      }
    } else {
      for (Rank p : gridFamily())
        if (const Grid g = topology_.layout(p); valid(g)) scales.push_back(g.scale());
    }
    std::stable_sort(scales.begin(), scales.end(), [](const Scale& a, const Scale& b) { return a.ranks < b.ranks; });
    std::vector<PlotPoint> out;
    for (const Scale& s : scales) {
      if (!out.empty() && out.back().ranks == static_cast<double>(s.ranks)) continue;
      const double v = f(s);
      if (std::isfinite(v)) out.push_back({static_cast<double>(s.ranks), v});
    }
    return out;
  }

  // What the picture says of how its curves of grid extents are drawn.
  std::string gridSampling() const {
    std::string ranks;
    for (Rank p : gridFamily()) ranks += fmt::format("{}{}", ranks.empty() ? "" : ", ", p);
    return fmt::format("models of px, py, pz: drawn at P = {} (grids like the inputs'), straight between", ranks);
  }

  // The picture of a quantity of the current event: its observations, and the target.
  ScalingPlot plotOf(const std::string& what, const std::vector<std::size_t>& inputs, const std::vector<double>& values,
                     double predicted) const {
    ScalingPlot p;
    const Event& e = event(0);
    p.events.push_back({e.id, std::string(in_[0].trace.siteLabel(e.site))});
    p.op = std::string(opName(e.op));
    p.quantity = what;
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      p.inputs.push_back({static_cast<double>(grids_[inputs[k]].size()), values[k]});
      p.inputScales.push_back(at(inputs[k]));
    }
    p.target = {static_cast<double>(target_.size()), predicted};
    p.targetScale = atTarget();
    return p;
  }

  ScalingPlot exactPlot(const std::string& what, const std::vector<std::pair<std::size_t, std::int64_t>>& obs,
                        const std::vector<Observation<std::int64_t>>& o, const ExactFit& f, double predicted) const {
    std::vector<std::size_t> inputs;
    std::vector<double> values;
    for (auto [i, v] : obs) inputs.push_back(i), values.push_back(static_cast<double>(v));
    ScalingPlot p = plotOf(what, inputs, values, predicted);
    const ExactModel chosen = *f.model;
    p.chosen = {chosen.str(), "fits every input exactly",
                curve([&](const Scale& s) { return realValue(chosen, s); }, chosen.term.var)};
    const auto closest = closestRejected(f, o, p.inputScales);
    for (const auto& rejected : closest) {
      const ExactModel& m = rejected.first;  // not a structured binding: clang 14 cannot capture one
      p.rejected.push_back({m.str(), rejected.second, curve([&](const Scale& s) { return realValue(m, s); }, m.term.var)});
    }
    p.rejectedTotal = f.rejected.size();
    bool grid = chosen.term.var != ScaleVar::P;
    for (const auto& [m, note] : closest) grid = grid || m.term.var != ScaleVar::P;
    if (grid) p.sampling = gridSampling();
    return p;
  }

  // A least-squares fit's picture: `chosen` the model taken (nullopt: a constant, `predicted`,
  // described by `how`), the rest of the ranked models the hypotheses passed over.
  ScalingPlot realPlot(const std::string& what, const std::vector<std::size_t>& inputs, const std::vector<double>& values,
                       const RealFit& f, const std::optional<RealModel>& chosen, const std::string& how,
                       double predicted) const {
    ScalingPlot p = plotOf(what, inputs, values, predicted);
    p.exact = false;
    if (chosen) {
      const RealModel m = *chosen;
      p.chosen = {m.str(), how, curve([&](const Scale& s) { return m.at(s); }, m.term.var)};
    } else {
      double largest = 0;
      for (const PlotPoint& q : p.inputs) largest = std::max(largest, q.ranks);
      p.chosen = {fmt::format("{:.4g}, the mean at P={}", predicted, largest), how,
                  curve([&](const Scale&) { return predicted; }, ScaleVar::P)};
    }
    bool grid = chosen && chosen->term.var != ScaleVar::P && !chosen->term.isOne();
    for (const auto& [m, error] : f.ranked) {
      if (chosen && m.str() == chosen->str()) continue;
      ++p.rejectedTotal;
      if (p.rejected.size() == kPlotRejected) continue;
      const RealModel r = m;
      grid = grid || (r.term.var != ScaleVar::P && !r.term.isOne());
      p.rejected.push_back({r.str(), fmt::format("cross-validation error {:.2g}%", 100 * error),
                            curve([&](const Scale& s) { return r.at(s); }, r.term.var)});
    }
    if (grid) p.sampling = gridSampling();
    return p;
  }

  // Fits one integer over the inputs `obs` (input index, value) and gives its value at the target.
  std::int64_t fitOne(const std::vector<std::pair<std::size_t, std::int64_t>>& obs, const std::string& what,
                      const std::string& cls, int cl) {
    std::vector<Observation<std::int64_t>> o;
    for (auto [i, v] : obs) o.push_back({grids_[i].scale(), v});
    std::string seen;
    for (auto [i, v] : obs) seen += fmt::format("{}{} at {}", seen.empty() ? "" : ", ", v, at(i));
    const std::size_t last = obs.back().first;
    if (obs.size() < 2)
      throw error(last, fmt::format("{}{}: its value {} is seen at one scale only and differs between classes{}", what,
                                    cls.empty() ? "" : " of class " + cls, seen, cl >= 0 ? settleHint(cl) : ""));
    const ExactFit f = fitExact(o, vars_, target_.scale(), probes_, true);
    if (!f.model)
      throw error(last, fmt::format("{}{}: no model fits its values ({}); tried {}", what,
                                    cls.empty() ? "" : " of class " + cls, seen, fmt::join(f.tried, ", ")));
    const auto v = f.model->at(target_.scale());
    if (!f.rivals.empty()) {
      modelRejected_ = true;
      const auto rv = f.rivals.front().at(target_.scale());
      throw error(last, fmt::format("{}{}: the inputs ({}) do not decide between {} ({} at {}) and {} ({} at {}){}", what,
                                    cls.empty() ? "" : " of class " + cls, seen, f.model->str(),
                                    v ? v->str() : "no value", atTarget(), f.rivals.front().str(),
                                    rv ? rv->str() : "no value", atTarget(),
                                    f.settle ? fmt::format("; a recording at {} would", f.settle->str()) : ""));
    }
    if (!v || !v->isInteger()) modelRejected_ = true;
    if (!v || !v->isInteger())
      throw error(last, fmt::format("{}: the model {} fitted to {} has no integer value at {}{}", what, f.model->str(), seen,
                                    atTarget(), f.model->term.domain().empty() ? "" : " (it needs " + f.model->term.domain() + ")"));
    ++res_.stats[f.model->c1.num == 0 || f.model->term.isOne() ? "constant models" : "scaling models"];
    if (!(f.model->c1.num == 0 || f.model->term.isOne()))
      explain(fmt::format("{} {}: {} -> {} = {} at {}", describe(0), what, seen, f.model->str(), v->num, atTarget()), cls,
              [&] { return std::optional<ScalingPlot>(exactPlot(what, obs, o, f, static_cast<double>(v->num))); });
    return v->num;
  }

  // Whether fitOne would give a value for `obs` (one model, no rival, an integer at the target).
  bool fitsQuietly(const std::vector<std::pair<std::size_t, std::int64_t>>& obs) const {
    if (obs.size() < 2) return false;
    std::vector<Observation<std::int64_t>> o;
    for (auto [i, v] : obs) o.push_back({grids_[i].scale(), v});
    const ExactFit f = fitExact(o, vars_, target_.scale(), probes_, true);
    if (!f.model || !f.rivals.empty()) return false;
    const auto v = f.model->at(target_.scale());
    return v && v->isInteger();
  }

  // A list whose length changes with scale, as an arithmetic progression.
  Values fitProgression(const std::vector<std::pair<std::size_t, Values>>& obs, const std::string& what,
                        const std::string& cls, int cl) {
    std::vector<std::pair<std::size_t, std::int64_t>> starts, steps, lengths;
    for (const auto& [i, v] : obs) {
      bool ap = v.size() >= 2;
      for (std::size_t k = 2; k < v.size() && ap; ++k) ap = v[k] - v[k - 1] == v[1] - v[0];
      if (!ap) {
        std::string lens;
        for (const auto& [j, w] : obs) lens += fmt::format("{}{} at {}", lens.empty() ? "" : ", ", valueListStr(w), at(j));
        throw error(i, fmt::format("{}{}: its value list changes length with scale ({}) and is no arithmetic progression: "
                                   "the structure changes with scale in a way no model explains",
                                   what, cls.empty() ? "" : " of class " + cls, lens));
      }
      starts.push_back({i, v[0]});
      steps.push_back({i, v[1] - v[0]});
      lengths.push_back({i, static_cast<std::int64_t>(v.size())});
    }
    const std::int64_t s = fitOne(starts, what + " (first value)", cls, cl);
    const std::int64_t d = fitOne(steps, what + " (step)", cls, cl);
    const std::int64_t n = fitOne(lengths, what + " (number of values)", cls, cl);
    if (n < 1 || n > (std::int64_t{1} << 22))
      throw error(obs.back().first, fmt::format("{}: {} values at {}", what, n, atTarget()));
    ++res_.stats["progressions"];
    Values out(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k) out[static_cast<std::size_t>(k)] = s + k * d;
    return out;
  }

  // A list whose length changes with scale as a run of blocks of m values, each block the one
  // before times one ratio r != 1 at every input: a multigrid's halo faces, a quarter per coarser
  // level (m = 3 axes), the number of blocks its level count. The blocks' number is fitted, and
  // the largest block (the finest level: the first where r < 1, else the last), value by value;
  // the other blocks follow from it by the ratio. nullopt where the lists are no such runs.
  std::optional<Values> fitGeometricBlocks(const std::vector<std::pair<std::size_t, Values>>& obs, const SlotDesc& slot,
                                           const std::string& cls, int cl) {
    if (slot.vector || slot.tripCount) return std::nullopt;
    std::size_t shortest = SIZE_MAX;
    for (const auto& [i, v] : obs) shortest = std::min(shortest, v.size());
    for (std::size_t m = 1; m <= shortest; ++m) {
      // The ratio num/den, from the first input of two blocks or more.
      std::int64_t num = 0, den = 0;
      bool fits = true, several = false;
      for (const auto& [i, v] : obs) {
        if (v.size() % m != 0) {
          fits = false;
          break;
        }
        for (std::size_t k = m; k < v.size() && fits; ++k) {
          const std::int64_t a = v[k - m], b = v[k];
          if (a <= 0 || b <= 0) {
            fits = false;
            break;
          }
          if (den == 0) {
            const std::int64_t g = std::gcd(a, b);
            num = b / g, den = a / g;
          }
          const Int128 lhs = static_cast<Int128>(b) * den, rhs = static_cast<Int128>(a) * num;
          fits = lhs == rhs;
          several = true;
        }
        if (!fits) break;
      }
      if (!fits || !several || num == den) continue;
      const bool growing = num > den;
      std::vector<std::pair<std::size_t, std::int64_t>> blocks;
      std::vector<std::vector<std::pair<std::size_t, std::int64_t>>> largest(m);
      for (const auto& [i, v] : obs) {
        const std::size_t n = v.size() / m, from = growing ? (n - 1) * m : 0;
        blocks.push_back({i, static_cast<std::int64_t>(n)});
        for (std::size_t a = 0; a < m; ++a) largest[a].push_back({i, v[from + a]});
      }
      // Taken only where the block count and the largest block have models (a corner rank's two
      // faces of 80 and 60 at one scale, one of 80 or 60 at others, are no such run).
      if (!fitsQuietly(blocks)) continue;
      if (!std::all_of(largest.begin(), largest.end(), [&](const auto& o) { return fitsQuietly(o); })) continue;
      const std::string what = slot.name, values = m == 1 ? "1 value" : fmt::format("{} values", m);
      const std::int64_t n = fitOne(blocks, fmt::format("{} (blocks of {})", what, values), cls, cl);
      if (n < 1 || n > (std::int64_t{1} << 22) / static_cast<std::int64_t>(m))
        throw error(obs.back().first, fmt::format("{}: {} blocks of {} at {}", what, n, values, atTarget()));
      Values block;
      for (std::size_t a = 0; a < m; ++a)
        block.push_back(fitOne(largest[a], m == 1 ? what + " (largest block)" : fmt::format("{} value {} of the largest block", what, a + 1),
                               cls, cl));
      // Block k of n is the largest one times r^k (r < 1) or r^-(n-1-k) (r > 1): always the
      // largest times (small/large)^j, j blocks away from it, which must stay an integer.
      const std::int64_t small = growing ? den : num, large = growing ? num : den;
      Values out(static_cast<std::size_t>(n) * m);
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t j = growing ? n - 1 - k : k;
        for (std::size_t a = 0; a < m; ++a) {
          Int128 x = block[a];
          for (std::int64_t t = 0; t < j; ++t) {
            x *= small;
            if (x % large != 0 || x > INT64_MAX)
              throw error(obs.back().first,
                          fmt::format("{}{}: blocks of {}, each {}/{} times the one before, {} blocks at {}: block {} "
                                      "has no integer value (the largest block {} times ({}/{})^{})",
                                      what, cls.empty() ? "" : " of class " + cls, values, num, den, n, atTarget(), k + 1,
                                      valueListStr(block), small, large, j));
            x /= large;
          }
          out[static_cast<std::size_t>(k) * m + a] = static_cast<std::int64_t>(x);
        }
      }
      ++res_.stats["lists as geometric blocks"];
      std::string seen;
      for (const auto& [i, v] : obs) seen += fmt::format("{}{} at {}", seen.empty() ? "" : ", ", valueListStr(v), at(i));
      explain(fmt::format("{} {}: {} -> blocks of {}, each {}/{} times the one before: {} at {}", describe(0), what, seen, values,
                          num, den, valueListStr(out), atTarget()),
              cls);
      return out;
    }
    return std::nullopt;
  }

  // Numeric lists of one class (or of all, pooled) over the inputs: element by element, or as a
  // progression where the length changes.
  Values fitList(std::vector<std::pair<std::size_t, Values>> obs, const SlotDesc& slot, const std::string& cls, int cl) {
    if (auto v = fitSteps(obs, slot, cls, cl)) return *v;
    if (!equalLengths(obs, slot)) {
      if (auto v = fitGeometricBlocks(obs, slot, cls, cl)) return *v;
      bool progressions = true;
      for (const auto& [i, v] : obs) {
        progressions = progressions && v.size() >= 2;
        for (std::size_t k = 2; k < v.size() && progressions; ++k) progressions = v[k] - v[k - 1] == v[1] - v[0];
      }
      if (progressions || !expandCyclic(obs, slot)) return fitProgression(obs, slot.name, cls, cl);
    }
    Values out;
    for (std::size_t k = 0; k < obs.front().second.size(); ++k) {
      std::vector<std::pair<std::size_t, std::int64_t>> e;
      for (const auto& [i, v] : obs) e.push_back({i, v[k]});
      const std::string what = obs.front().second.size() == 1 ? slot.name : fmt::format("{} value {}", slot.name, k + 1);
      out.push_back(fitOne(e, what, cls, cl));
    }
    return out;
  }

  // Whether every list has two values or more and is an arithmetic progression.
  static bool storedProgressions(const std::vector<std::pair<std::size_t, Values>>& obs) {
    for (const auto& [i, v] : obs) {
      if (v.size() < 2) return false;
      for (std::size_t k = 2; k < v.size(); ++k)
        if (v[k] - v[k - 1] != v[1] - v[0]) return false;
    }
    return true;
  }

  std::int64_t storedAtTarget(const Direction& dir, int cls) {
    for (std::size_t d = 0; d < 3; ++d)
      if (dir.wrap[d]) res_.periodic[d] = true;
    return topology_.storedOffset(target_, cls, dir);
  }

  // Relative peers of one class: as grid directions where every input shows the same one,
  // else fitted as signed offsets.
  Values fitPeers(std::vector<std::pair<std::size_t, Values>> obs, const SlotDesc& slot, int cls) {
    const std::string cname = topology_.className(cls);
    const bool sameLength = equalLengths(obs, slot);
    // A list whose length follows the scale and that counts through the ranks, as a shift
    // exchange's (r + i) mod P for i = 1 .. P-1 does (stored 1, 2, ..., P-1 at every scale): the
    // progression of stored offsets, fitted as other lists are (start, step, length).
    if (!sameLength && storedProgressions(obs)) {
      Values v = fitProgression(obs, slot.name, cname, cls);
      const Rank P = target_.size();
      for (std::int64_t x : v)
        if (x < 0 || x >= P)
          throw error(obs.back().first, fmt::format("{} of class {}: its peers count through the ranks ({}), which at {} "
                                                    "reaches {}, no rank there",
                                                    slot.name, cname, valueListStr(obs.back().second), atTarget(), x));
      ++res_.stats["peer lists as progressions"];
      return v;
    }
    if (!sameLength && !expandCyclic(obs, slot)) {
      std::string lens;
      for (const auto& [j, w] : obs) lens += fmt::format("{}{} at {}", lens.empty() ? "" : ", ", valueListStr(w), at(j));
      throw error(obs.back().first, fmt::format("{} of class {}: its peers change in number with scale ({}): the structure "
                                                "changes with scale in a way no model explains",
                                                slot.name, cname, lens));
    }
    Values out;
    for (std::size_t k = 0; k < obs.front().second.size(); ++k) {
      const std::string what = obs.front().second.size() == 1 ? slot.name : fmt::format("{} value {}", slot.name, k + 1);
      // The directions every input allows (an extent of 2 allows two: at py = 2, y + 1 is y - 1
      // across the periodic boundary, which py = 4 tells apart), the first input's first.
      std::optional<std::vector<Direction>> allowed;
      bool allSpecial = true;
      for (const auto& [i, v] : obs) {
        allSpecial = allSpecial && v[k] < 0 && v[k] == obs.front().second[k];
        std::vector<Direction> ds = topology_.peerDirections(grids_[i], cls, v[k]);
        if (!allowed) allowed = std::move(ds);
        else std::erase_if(*allowed, [&](const Direction& d) { return std::find(ds.begin(), ds.end(), d) == ds.end(); });
      }
      std::optional<Direction> common;
      if (allowed && !allowed->empty()) common = allowed->front();
      const bool allDirections = common.has_value();
      if (allSpecial) {
        out.push_back(obs.front().second[k]);
        continue;
      }
      for (const auto& [i, v] : obs)
        if (v[k] < 0)
          throw error(i, fmt::format("{} of class {} is {} at {} but not at every scale: the structure changes with scale "
                                     "in a way no model explains",
                                     what, cname, v[k] == kAnySource ? "MPI_ANY_SOURCE" : "MPI_PROC_NULL", at(i)));
      if (allDirections && common) {
        const std::int64_t v = storedAtTarget(*common, cls);
        ++res_.stats["peers as grid directions"];
        std::string seen;
        bool varies = false;
        for (const auto& [i, w] : obs) {
          seen += fmt::format("{}{} at {}", seen.empty() ? "" : ", ", w[k], at(i));
          varies = varies || w[k] != v;
        }
        if (varies) explain(fmt::format("{} {} (stored rel): {} -> {} = {} at {}", describe(0), what, seen,
                                        directionStr(*common), v, atTarget()), cname);
        out.push_back(v);
        continue;
      }
      // Not a grid neighbour: the signed offset as a function of scale.
      std::vector<std::pair<std::size_t, std::int64_t>> signedOffsets;
      for (const auto& [i, v] : obs) {
        const Rank P = grids_[i].size();
        signedOffsets.push_back({i, v[k] > P / 2 ? v[k] - P : v[k]});
      }
      const std::int64_t o = fitOne(signedOffsets, what + " (signed offset)", cname, cls);
      const Rank P = target_.size();
      out.push_back(((o % P) + P) % P);
    }
    return out;
  }

  // One slot (a parameter, a loop level's iter or mem) of the current event at the target: per
  // position class, and where that fails for a numeric parameter, as a block distribution.
  std::vector<ValueGroup> fitSlot(const SlotDesc& slot, const std::vector<const std::vector<ValueGroup>*>& groups,
                                  const std::vector<bool>& member, bool mayBeAbsent) {
    if (!slot.blockModel) return fitSlotByClass(slot, groups, member, mayBeAbsent);
    // A failed attempt leaves no counts or explanations behind.
    const auto stats = res_.stats;
    const auto explained = explained_;
    const std::size_t plots = plots_.size();  // plots are only appended
    modelRejected_ = false;
    try {
      return fitSlotByClass(slot, groups, member, mayBeAbsent);
    } catch (const InputError& e) {
      // Models that fit but disagree at the target (or have no value there) are the inputs'
      // question to settle, not a sign of blocks.
      if (modelRejected_) throw;
      res_.stats = stats;
      explained_ = explained;
      plots_.resize(plots);
      std::string why;
      if (auto g = fitSlotByBlocks(slot, groups, member, mayBeAbsent, why)) return std::move(*g);
      throw InputError(e.file(), e.line(), e.message(), e.text(),
                       (e.hint().empty() ? "" : e.hint() + "; ") +
                           fmt::format("nor is it a + b*block(N, p, c) of one grid coordinate: {}", why));
    }
  }

  std::vector<ValueGroup> fitSlotByClass(const SlotDesc& slot, const std::vector<const std::vector<ValueGroup>*>& groups,
                                         const std::vector<bool>& member, bool mayBeAbsent) {
    const int nc = topology_.classCount();
    std::vector<ClassValues> per;
    for (std::size_t i = 0; i < in_.size(); ++i)
      per.push_back(groups[i] ? perClass(i, *groups[i], slot.name) : ClassValues(static_cast<std::size_t>(nc)));
    // Presence per class, consistent over the inputs.
    std::vector<std::vector<std::pair<std::size_t, Values>>> obs(static_cast<std::size_t>(nc));
    std::vector<bool> present(static_cast<std::size_t>(nc), false);
    for (int c = 0; c < nc; ++c) {
      const auto cu = static_cast<std::size_t>(c);
      if (!member[cu]) continue;
      std::optional<std::size_t> seen;
      for (std::size_t i = 0; i < in_.size(); ++i) {
        if (classes_[i][cu].empty()) continue;
        if (seen && per[*seen][cu].has_value() != per[i][cu].has_value())
          throw error(i, fmt::format("{} is given for the ranks of class {} at {} but not at {}: the structure changes "
                                     "with scale in a way no model explains",
                                     slot.name, topology_.className(c), per[i][cu] ? at(i) : at(*seen),
                                     per[i][cu] ? at(*seen) : at(i)));
        seen = i;
        if (per[i][cu]) obs[cu].push_back({i, *per[i][cu]});
      }
      present[cu] = seen && per[*seen][cu].has_value();
      if (!present[cu] && !mayBeAbsent)
        throw error(*seen, fmt::format("{} is missing for the ranks of class {}", slot.name, topology_.className(c)));
    }
    // Predicted list per class.
    std::vector<std::optional<Values>> predicted(static_cast<std::size_t>(nc));
    if (slot.kind == SlotKind::Identifier) {
      for (int c = 0; c < nc; ++c) {
        const auto cu = static_cast<std::size_t>(c);
        if (!present[cu]) continue;
        for (const auto& [i, v] : obs[cu])
          if (v != obs[cu].front().second)
            throw error(i, fmt::format("{} of class {} is {} at {} but {} at {}: identifiers must not change with scale",
                                       slot.name, topology_.className(c), valueListStr(v), at(i), valueListStr(obs[cu].front().second),
                                       at(obs[cu].front().first)));
        predicted[cu] = obs[cu].front().second;
      }
    } else if (slot.kind == SlotKind::Peer && slot.relative) {
      for (int c = 0; c < nc; ++c)
        if (present[static_cast<std::size_t>(c)])
          predicted[static_cast<std::size_t>(c)] = fitPeers(obs[static_cast<std::size_t>(c)], slot, c);
    } else {
      // Pooled: every class has the same list at each input.
      bool pooled = true;
      std::vector<std::optional<Values>> atInput(in_.size());
      for (int c = 0; c < nc && pooled; ++c)
        for (const auto& [i, v] : obs[static_cast<std::size_t>(c)]) {
          if (atInput[i] && *atInput[i] != v) pooled = false;
          atInput[i] = v;
        }
      if (pooled) {
        std::vector<std::pair<std::size_t, Values>> all;
        for (std::size_t i = 0; i < in_.size(); ++i)
          if (atInput[i]) all.push_back({i, *atInput[i]});
        if (!all.empty()) {
          ++res_.stats["fits shared by all classes"];
          const Values v = fitList(all, slot, "", -1);
          for (int c = 0; c < nc; ++c)
            if (present[static_cast<std::size_t>(c)]) predicted[static_cast<std::size_t>(c)] = v;
        }
      } else {
        for (int c = 0; c < nc; ++c) {
          const auto cu = static_cast<std::size_t>(c);
          if (!present[cu]) continue;
          ++res_.stats["fits per class"];
          predicted[cu] = obs[cu].size() == 1 && constantElsewhere(obs, c)
                               ? obs[cu].front().second
                               : fitList(obs[cu], slot, topology_.className(c), c);
        }
      }
    }
    // Group the classes with equal lists (scalar lists reduced to their period).
    if (!slot.vector)
      for (auto& p : predicted)
        if (p) p = shortestPeriod(*p);
    std::vector<ValueGroup> out;
    for (int c = 0; c < nc; ++c) {
      const auto cu = static_cast<std::size_t>(c);
      if (!predicted[cu]) continue;
      auto it = std::find_if(out.begin(), out.end(), [&](const ValueGroup& g) { return g.values == *predicted[cu]; });
      if (it == out.end()) out.push_back({targetClasses_[cu], *predicted[cu]});
      else it->ranks = RankList::unite(it->ranks, targetClasses_[cu]);
    }
    std::sort(out.begin(), out.end(), [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
    return out;
  }

  // ---- Values that follow a block distribution (extrap/BlockDistribution.h) ----
  // A code that splits N points over p processes gives the first N mod p coordinates one point
  // more, so a face's size is 14, 13, 13 over three columns: no model of the scale per position
  // class, and from six columns on two sizes within one class. Such a parameter is taken rank by
  // rank at every input (inputs are small; the target is never expanded): each element of a
  // rank's list is keyed by the grid direction of the peer it goes with (the message to the west
  // is the same function for every class that sends one: a face's size follows the coordinate
  // across that face), or, without peers, by the slot itself, and each key's values over every
  // rank of every input are fitted as a + b * block(N, p_d, c_d) along one dimension d; where the
  // classes of a key do not share one function, each class is fitted on its own. At the target
  // each class splits into the blocks between the models' breakpoints (N mod p per dimension), a
  // few per class: the cost follows the classes, not P.
  struct BlockClass {
    bool seen = false;                // some input shows the class with values
    std::optional<bool> present;      // whether its ranks have the slot (the same at every input)
    std::vector<std::string> keys;    // per element of its lists: the direction of the peer
  };

  static const ValueGroup* groupOf(const std::vector<ValueGroup>& groups, Rank r) {
    for (const ValueGroup& g : groups)
      if (g.ranks.contains(r)) return &g;
    return nullptr;
  }

  std::optional<std::vector<ValueGroup>> fitSlotByBlocks(const SlotDesc& slot,
                                                         const std::vector<const std::vector<ValueGroup>*>& groups,
                                                         const std::vector<bool>& member, bool mayBeAbsent,
                                                         std::string& why) {
    constexpr std::size_t kMaxElements = 1024;
    const int nc = classCount(dims_);
    std::optional<Param> peerParam;
    for (Param p : {Param::Dest, Param::Source})
      if (const ParamValues* pv = event(0).param(p); pv && pv->relative) {
        peerParam = p;
        break;
      }
    std::vector<BlockClass> cls(static_cast<std::size_t>(nc));
    std::map<std::string, std::vector<BlockObservation>> pooled;
    std::map<std::pair<std::string, int>, std::vector<BlockObservation>> byClass;
    std::map<std::string, std::vector<std::set<std::int64_t>>> seen;  // per key and input, for --explain
    for (std::size_t i = 0; i < in_.size(); ++i) {
      const Grid& g = grids_[i];
      if (g.size() > kMaxColorCheckRanks) {
        why = fmt::format("checking a block distribution visits every rank, and {} ranks are more than the {} an input "
                          "may have for it",
                          g.size(), kMaxColorCheckRanks);
        return std::nullopt;
      }
      const ParamValues* peers = peerParam ? event(i).param(*peerParam) : nullptr;
      if (peerParam && (!peers || !peers->relative)) {
        why = fmt::format("its peers are not relative at {}", at(i));
        return std::nullopt;
      }
      for (int c = 0; c < nc; ++c) {
        const auto cu = static_cast<std::size_t>(c);
        if (!member[cu] || classes_[i][cu].empty()) continue;
        std::optional<bool> has;
        bool ok = true;
        classes_[i][cu].forEach([&](Rank r) {
          const ValueGroup* vg = groups[i] ? groupOf(*groups[i], r) : nullptr;
          auto fail = [&](const std::string& message) {
            why = fmt::format("rank {} at {}: {}", r, at(i), message);
            ok = false;
            return false;
          };
          if (has && *has != (vg != nullptr)) return fail(fmt::format("some ranks of class {} give it and others do not",
                                                                      className(dims_, c)));
          has = vg != nullptr;
          if (!vg) return true;
          if (vg->values.empty()) return fail("it has no values");
          std::size_t n = vg->values.size();
          std::vector<std::string> keys;
          if (peers) {
            const ValueGroup* pg = groupOf(peers->groups, r);
            if (!pg || pg->values.empty()) return fail("it names no peer");
            n = std::lcm(n, pg->values.size());
            if (n > kMaxElements) return fail(fmt::format("{} values with {} peers", vg->values.size(), pg->values.size()));
            for (std::size_t k = 0; k < n; ++k) {
              const auto dir = peerDirection(g, c, pg->values[k % pg->values.size()]);
              if (!dir) return fail("a peer that is no grid neighbour");
              keys.push_back(directionStr(*dir));
            }
          } else {
            if (shortestPeriod(vg->values).size() != 1) return fail("several values, and no peers to pair them with");
            n = 1;
            keys = {""};
          }
          if (cls[cu].seen && cls[cu].keys != keys)
            return fail(fmt::format("the ranks of class {} pair their values with peers in different orders",
                                    className(dims_, c)));
          cls[cu].seen = true;
          cls[cu].keys = keys;
          const auto coord = g.coords(r);
          for (std::size_t k = 0; k < n; ++k) {
            const BlockObservation o{g.ext, coord, vg->values[k % vg->values.size()]};
            pooled[keys[k]].push_back(o);
            byClass[{keys[k], c}].push_back(o);
            auto& s = seen[keys[k]];
            s.resize(in_.size());
            s[i].insert(o.value);
          }
          ++res_.stats["ranks checked for block distributions"];
          return true;
        });
        if (!ok) return std::nullopt;
        if (!has) continue;
        if (cls[cu].present && *cls[cu].present != *has) {
          why = fmt::format("{} is given for the ranks of class {} at some scales but not at others", slot.name,
                            className(dims_, c));
          return std::nullopt;
        }
        cls[cu].present = has;
      }
    }
    for (int c = 0; c < nc; ++c) {
      const auto cu = static_cast<std::size_t>(c);
      if (member[cu] && !targetClasses_[cu].empty() && !cls[cu].present.value_or(false) && !mayBeAbsent) {
        why = fmt::format("{} is missing for the ranks of class {}", slot.name, className(dims_, c));
        return std::nullopt;
      }
    }
    // The target box of a class, per dimension.
    auto box = [&](int c) {
      const auto lo = target_.coords(classFirst(target_, c)), hi = target_.coords(classLast(target_, c));
      return std::pair{lo, hi};
    };
    auto seenStr = [&](const std::string& key) {
      std::string out;
      const auto& s = seen[key];
      for (std::size_t i = 0; i < s.size(); ++i)
        if (!s[i].empty())
          out += fmt::format("{}{} at {}", out.empty() ? "" : "; ", fmt::join(s[i], ", "), at(i));
      return out;
    };
    // One model per key and class: the pooled one where it fits, else the class's own.
    std::map<std::pair<std::string, int>, BlockModel> model;
    for (const auto& [key, obs] : pooled) {
      std::vector<int> users;
      for (int c = 0; c < nc; ++c) {
        const auto cu = static_cast<std::size_t>(c);
        if (cls[cu].present.value_or(false) && !targetClasses_[cu].empty() &&
            std::find(cls[cu].keys.begin(), cls[cu].keys.end(), key) != cls[cu].keys.end())
          users.push_back(c);
      }
      const std::string what = key.empty() ? slot.name : fmt::format("{} (peer {})", slot.name, key);
      const BlockFit shared = fitBlock(obs, dims_);
      for (int c : users) {
        const BlockFit own = shared.models.empty() ? fitBlock(byClass[{key, c}], dims_) : BlockFit{};
        const BlockFit& f = shared.models.empty() ? own : shared;
        if (f.models.empty()) {
          why = fmt::format("{} of class {} ({}): {}", what, className(dims_, c), seenStr(key),
                            shared.models.empty() && !shared.refusal.empty() && own.refusal != shared.refusal
                                ? fmt::format("{}; for the class alone {}", shared.refusal, own.refusal)
                                : f.refusal);
          return std::nullopt;
        }
        const auto [lo, hi] = box(c);
        for (const BlockModel& m : f.models)
          if (f.truncated || !agreeOn(f.models.front(), m, target_.ext, lo, hi))
            throw error(in_.size() - 1,
                        fmt::format("{} of class {}: the inputs ({}) do not decide between {} and {}, which differ for "
                                    "its ranks at {}",
                                    what, className(dims_, c), seenStr(key), f.models.front().str(dims_),
                                    f.truncated ? "many more models" : m.str(dims_), atTarget()));
        const BlockModel& chosen = f.models.front();
        if (chosen.b != 0 && chosen.points < target_.ext[static_cast<std::size_t>(chosen.dim)])
          throw error(in_.size() - 1, fmt::format("{} of class {}: {} ({}) leaves ranks without a point at {}", what,
                                                  className(dims_, c), chosen.str(dims_), seenStr(key), atTarget()));
        model[{key, c}] = chosen;
        if (chosen.b != 0 && std::find(res_.blockModels.begin(), res_.blockModels.end(), chosen) == res_.blockModels.end())
          res_.blockModels.push_back(chosen);
        if (f.models.front().b != 0)
          explain(fmt::format("{} {}: {} -> {} at {}{}", describe(0), what, seenStr(key), f.models.front().str(dims_),
                              atTarget(), shared.models.empty() ? " (fitted per class)" : ""),
                  className(dims_, c));
      }
    }
    // The classes at the target, each split into the blocks between the models' breakpoints.
    std::vector<ValueGroup> out;
    for (int c = 0; c < nc; ++c) {
      const auto cu = static_cast<std::size_t>(c);
      if (!cls[cu].present.value_or(false) || targetClasses_[cu].empty()) continue;
      // Not a structured binding: clang 14 cannot capture one in the lambda below.
      const auto bounds = box(c);
      const auto& lo = bounds.first;
      const auto& hi = bounds.second;
      std::array<std::vector<std::int64_t>, 3> starts;
      for (int d = 0; d < 3; ++d) {
        const auto du = static_cast<std::size_t>(d);
        starts[du] = {lo[du]};
        for (const std::string& key : cls[cu].keys)
          for (std::int64_t s : breakpoints(model.at({key, c}), d, target_.ext[du], lo[du], hi[du]))
            starts[du].push_back(s);
        std::sort(starts[du].begin(), starts[du].end());
        starts[du].erase(std::unique(starts[du].begin(), starts[du].end()), starts[du].end());
      }
      auto end = [&](std::size_t d, std::size_t k) { return k + 1 < starts[d].size() ? starts[d][k + 1] : hi[d] + 1; };
      for (std::size_t kx = 0; kx < starts[0].size(); ++kx)
        for (std::size_t ky = 0; ky < starts[1].size(); ++ky)
          for (std::size_t kz = 0; kz < starts[2].size(); ++kz) {
            const std::array<std::size_t, 3> k{kx, ky, kz};
            std::array<std::int64_t, 3> corner{};
            RankTuple t;
            Rank stride = 1;
            for (std::size_t d = 0; d < 3; ++d) {
              corner[d] = starts[d][k[d]];
              if (static_cast<int>(d) >= dims_) continue;
              const Rank n = end(d, k[d]) - corner[d];
              t.start += corner[d] * stride;
              t.dims.push_back(RankDim{n, n == 1 ? 0 : stride});
              stride *= target_.ext[d];
            }
            Values values;
            for (const std::string& key : cls[cu].keys) {
              const std::int64_t v = model.at({key, c}).at(target_.ext, corner);
              if (v < kMinInt32 || v > kMaxInt32)
                throw error(in_.size() - 1, fmt::format("{} (peer {}) of class {}: {} is {} at {}, beyond a C int",
                                                        slot.name, key, className(dims_, c), model.at({key, c}).str(dims_),
                                                        v, atTarget()));
              values.push_back(v);
            }
            values = shortestPeriod(values);
            const RankList ranks({t});
            auto it = std::find_if(out.begin(), out.end(), [&](const ValueGroup& g) { return g.values == values; });
            if (it == out.end()) out.push_back({ranks, std::move(values)});
            else it->ranks = RankList::unite(it->ranks, ranks);
          }
    }
    std::sort(out.begin(), out.end(), [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
    blocksUsed_ = true;
    ++res_.stats["values as block distributions"];
    return out;
  }

  // Whether class c, seen at one scale only (the edge of a grid that is 2 wide at every other
  // input), may keep its value there: every class seen at several scales keeps its own list
  // unchanged over them, so the slot does not change with the scale.
  bool constantElsewhere(const std::vector<std::vector<std::pair<std::size_t, Values>>>& obs, int c) {
    bool some = false;
    for (const auto& o : obs) {
      if (o.size() < 2) continue;
      some = true;
      for (const auto& [i, v] : o)
        if (shortestPeriod(v) != shortestPeriod(o.front().second)) return false;
    }
    if (!some) return false;
    ++res_.stats["values seen at one scale, constant over the others"];
    explain(fmt::format("class {} is shown at {} only; its values are taken as they are there, as every class shown at "
                        "several scales keeps its own",
                        topology_.className(c), at(obs[static_cast<std::size_t>(c)].front().first)),
            describe(0));
    return true;
  }

  // ---- Counts that follow the application's data ----
  // An IS-like sort's MPI_Alltoallv sends each rank's keys to the ranks that own their values:
  // every pair of ranks has its own count, drawn by the keys, and no model of the scale
  // predicts one pair's count. What does follow the scale is each rank's total (its keys; its
  // share of all keys), and what a benchmark must keep is every rank's bytes. So such vectors
  // are modelled by the mean total per rank, fitted over the inputs like any integer (or by
  // least squares where it is no integer), and spread evenly over the target's ranks; the
  // inputs must show every rank's total within kDataTotalSpread of the mean, or the
  // extrapolation refuses, naming the spread. The vectors count as data-dependent when some
  // input's groups of them are not unions of the grid's position classes (a decomposition's
  // vectors are; a sort's differ rank by rank).

  // Whether every group is a union of position classes of input i's grid (no error).
  bool unionOfClasses(std::size_t i, const std::vector<ValueGroup>& groups) const {
    for (const ValueGroup& g : groups)
      for (const RankList& cr : classes_[i])
        if (!cr.empty() && g.ranks.intersects(cr) && !cr.isSubsetOf(g.ranks)) return false;
    return true;
  }

  bool dataDependent() const {
    if (!isDataVectorOp(event(0).op)) return false;
    for (std::size_t i = 0; i < in_.size(); ++i)
      for (const ParamValues& pv : event(i).params)
        if (isDataVectorParam(pv.param) && !unionOfClasses(i, pv.groups)) return true;
    return false;
  }

  // Every rank's total of one count vector at input i. A rank whose counts differ between the
  // calls of a loop has a list of k vectors of P values, one per call, consumed cyclically
  // (docs/trace-format.md); each is one total, and the rank's mean over them counts.
  struct RowTotals {
    double sum = 0;  // over all ranks, of each rank's mean total per call
    std::int64_t min = 0, max = 0;    // the smallest and largest total of one call
    double pairMin = 0, pairMax = 0;  // the smallest and largest single count
  };
  RowTotals rowTotals(std::size_t i, Param p) const {
    const Rank P = grids_[i].size();
    const ParamValues* pv = event(i).param(p);
    if (!pv) throw error(i, fmt::format("it has no {}: the counts of an MPI_Alltoallv that follow the data need both sides",
                                        paramName(p)));
    RowTotals t;
    Rank ranks = 0;
    bool first = true;
    for (const ValueGroup& g : pv->groups) {
      if (g.values.empty() || g.values.size() % static_cast<std::size_t>(P) != 0)
        throw error(i, fmt::format("its {} for ranks {} has {} values, not one per rank of the world ({}) for each call: "
                                   "counts that follow the data are extrapolated on MPI_COMM_WORLD only",
                                   paramName(p), g.ranks.str(), g.values.size(), P));
      const std::size_t calls = g.values.size() / static_cast<std::size_t>(P);
      Int128 rows = 0;
      for (std::size_t c = 0; c < calls; ++c) {
        std::int64_t row = 0;
        for (std::size_t k = 0; k < static_cast<std::size_t>(P); ++k) {
          const std::int64_t v = g.values[c * static_cast<std::size_t>(P) + k];
          if (v < 0) throw error(i, fmt::format("its {} has the negative count {}", paramName(p), v));
          row += v;  // values are at most 2^31 (ir/Limits.h) and P at most 2^31: no overflow
          t.pairMin = first ? static_cast<double>(v) : std::min(t.pairMin, static_cast<double>(v));
          t.pairMax = first ? static_cast<double>(v) : std::max(t.pairMax, static_cast<double>(v));
          first = false;
        }
        t.min = ranks == 0 && c == 0 ? row : std::min(t.min, row);
        t.max = ranks == 0 && c == 0 ? row : std::max(t.max, row);
        rows += row;
      }
      t.sum += static_cast<double>(rows) / static_cast<double>(calls) * static_cast<double>(g.ranks.size());
      ranks += g.ranks.size();
    }
    if (ranks != P)
      throw error(i, fmt::format("its {} is given for {} of the {} ranks: counts that follow the data are extrapolated "
                                 "for collectives of every rank only",
                                 paramName(p), ranks, P));
    return t;
  }

  // Whether the displacements lay the blocks of each call out one after another (prefix sums of
  // the counts, restarting with every call's vector of P).
  bool packed(std::size_t i, Param counts, Param displs) const {
    const ParamValues* c = event(i).param(counts);
    const ParamValues* d = event(i).param(displs);
    if (!d) return true;
    const auto P = static_cast<std::size_t>(grids_[i].size());
    for (const ValueGroup& dg : d->groups)
      for (const ValueGroup& cg : c->groups) {
        if (!dg.ranks.intersects(cg.ranks)) continue;
        // Cyclic consumption: the two lists repeat to a common length.
        const std::size_t n = std::lcm(dg.values.size(), cg.values.size());
        if (n % P != 0 || n > (std::size_t{1} << 24)) return false;
        std::int64_t at = 0;
        for (std::size_t k = 0; k < n; ++k) {
          if (k % P == 0) at = 0;
          if (dg.values[k % dg.values.size()] != at) return false;
          at += cg.values[k % cg.values.size()];
        }
      }
    return true;
  }

  void fitDataVectors(Event& out) {
    const Rank P = target_.size();
    if (out.ranks.size() != P)
      throw error(0, fmt::format("its counts follow the data, but only {} of the {} ranks of the target make it: counts "
                                 "that follow the data are extrapolated for collectives of every rank only",
                                 out.ranks.size(), P));
    std::vector<Observation<std::int64_t>> exact;
    std::vector<Observation<double>> real;
    bool integral = true;
    std::string seen, spreads;  // spreads: "sent 16384..16384, received 16381..16387 at P=8 (8) (pairs ...)"
    double worstSpread = 0;     // of a rank's total from the mean, over the inputs
    for (std::size_t i = 0; i < in_.size(); ++i) {
      const Rank Pi = grids_[i].size();
      const RowTotals send = rowTotals(i, Param::SendCounts), recv = rowTotals(i, Param::RecvCounts);
      // Each rank's mean is over its list's vectors, not over its calls (a list of 3 vectors
      // consumed by 4 calls counts its first twice in the calls): the two sides agree only
      // within the spread of one call's totals, not exactly.
      if (std::abs(send.sum - recv.sum) > kDataTotalSpread * std::max(1.0, send.sum))
        throw error(i, fmt::format("its send counts add up to {:.10g} over the ranks at {} but its receive counts to "
                                   "{:.10g}: counts that follow the data are extrapolated for one datatype on both sides",
                                   send.sum, at(i), recv.sum));
      const double mean = send.sum / static_cast<double>(Pi);
      std::string totals;
      for (const auto& [what, t] : {std::pair{"sent", send}, std::pair{"received", recv}}) {
        const double spread =
            mean > 0 ? std::max(mean - static_cast<double>(t.min), static_cast<double>(t.max) - mean) / mean : 0;
        if (spread > kDataRankSpread)
          throw error(i, fmt::format("its counts follow the data (they differ for every pair of ranks), and the ranks' "
                                     "totals {} range from {} to {} at {}, {:.2g}% off their mean {:.6g}: a benchmark "
                                     "whose ranks all move the mean could not keep every rank's bytes within {:g}% "
                                     "(a code that balances its data, as NPB IS does, has totals that agree)",
                                     what, t.min, t.max, at(i), 100 * spread, mean, 100 * kDataRankSpread));
        worstSpread = std::max(worstSpread, spread);
        totals += fmt::format("{}{} {}..{}", totals.empty() ? "" : ", ", what, t.min, t.max);
      }
      spreads += fmt::format("{}{} at {} (pairs {:g}..{:g})", spreads.empty() ? "" : "; ", totals, at(i),
                             std::min(send.pairMin, recv.pairMin), std::max(send.pairMax, recv.pairMax));
      seen += fmt::format("{}{:.6g} at {}", seen.empty() ? "" : ", ", mean, at(i));
      if (std::abs(mean - std::round(mean)) < 1e-9) exact.push_back({grids_[i].scale(), std::llround(mean)});
      else integral = false;
      real.push_back({grids_[i].scale(), mean});
    }
    // The mean total per rank at the target: an exact model where the means are integers and
    // one fits, else least squares, taken only if it predicts the held-back inputs within 1%.
    double total = -1;
    std::string model;
    std::optional<ExactModel> exactModel;
    std::optional<ScalingPlot> plot;
    const std::string plotWhat = "mean total per rank (counts that follow the data)";
    std::vector<std::size_t> plotInputs;
    std::vector<double> plotValues;
    for (std::size_t i = 0; i < in_.size(); ++i) plotInputs.push_back(i), plotValues.push_back(real[i].value);
    if (integral) {
      const ExactFit f = fitExact(exact, vars_, target_.scale(), probes_);
      if (f.model && f.rivals.empty())
        if (auto v = f.model->at(target_.scale())) {
          total = static_cast<double>(v->num) / static_cast<double>(v->den);
          model = f.model->str();
          exactModel = f.model;
          std::vector<std::pair<std::size_t, std::int64_t>> obs;
          for (std::size_t i = 0; i < in_.size(); ++i) obs.push_back({i, exact[i].value});
          if (wantPlots_) plot = exactPlot(plotWhat, obs, exact, f, total);
        }
    }
    if (model.empty()) {
      const RealFit f = realFit(real, {});
      if (!f.model || f.crossValidationError > kDataTotalSpread || !(f.model->at(target_.scale()) > 0))
        throw error(in_.size() - 1,
                    fmt::format("its counts follow the data; the mean total per rank ({}) fits no model that predicts the "
                                "held-back inputs within {:g}% (best: {}, error {:.2g}%)",
                                seen, 100 * kDataTotalSpread, f.model ? f.model->str() : "none",
                                100 * f.crossValidationError));
      total = f.model->at(target_.scale());
      model = f.model->str() + fmt::format(" (least squares, cross-validation error {:.2g}%)", 100 * f.crossValidationError);
      if (wantPlots_)
        plot = realPlot(plotWhat, plotInputs, plotValues, f, f.model,
                      fmt::format("least squares, cross-validation error {:.2g}%", 100 * f.crossValidationError), total);
    }
    const std::int64_t pair = std::llround(total / static_cast<double>(P));
    const double rounding = std::abs(static_cast<double>(pair) * static_cast<double>(P) - total) / total;
    if (pair < 1 || rounding > kDataRounding)
      throw error(in_.size() - 1,
                  fmt::format("its counts follow the data; the mean total per rank at {} is {:.6g}, and {} per pair of "
                              "ranks would be {:.2g}% off it (at most {:g}% is kept): too few elements per pair at that "
                              "scale",
                              atTarget(), total, pair, 100 * rounding, 100 * kDataRounding));
    for (auto [counts, displs] : {std::pair{Param::SendCounts, Param::Displs}, std::pair{Param::RecvCounts, Param::RecvDispls}}) {
      out.setParam(counts, {{out.ranks, Values(static_cast<std::size_t>(P), pair)}}, false);
      bool anyDispls = false;
      for (std::size_t i = 0; i < in_.size(); ++i) {
        anyDispls = anyDispls || event(i).param(displs) != nullptr;
        if (!packed(i, counts, displs))
          throw error(i, fmt::format("its counts follow the data, and its {} are not the blocks laid out one after "
                                     "another at {}: only packed displacements are extrapolated",
                                     paramName(displs), at(i)));
      }
      if (!anyDispls) continue;
      Values d(static_cast<std::size_t>(P));
      for (Rank k = 0; k < P; ++k) d[static_cast<std::size_t>(k)] = k * pair;
      out.setParam(displs, {{out.ranks, std::move(d)}}, false);
    }
    ++res_.stats["vectors that follow the data"];
    res_.dataCounts.push_back({out.id, exactModel, model, worstSpread});
    res_.approximations.push_back(fmt::format(
        "Approximate: event {} {}'s counts follow the application's data (every pair of ranks differs); every pair "
        "moves the mean, {} elements at {} (the mean total per rank {}), where the recorded ranks' totals spread up "
        "to {:.2g}% from their mean.",
        event(0).id, opName(event(0).op), pair, atTarget(), model, 100 * worstSpread));
    explain(fmt::format("{}: counts follow the data (every pair of ranks differs; approximate); mean total per rank {} -> {} = {:.6g} "
                        "at {}, {} per pair, {:.2g}% off by rounding; every rank's totals at the inputs: {}",
                        describe(0), seen, model, total, atTarget(), pair, 100 * rounding, spreads),
            "", [&] { return plot; });
  }

  static SlotKind kindOf(Param p) {
    switch (p) {
      case Param::Comm:
      case Param::Datatype:
      case Param::RecvType:
      case Param::ReduceOp:
      case Param::NewComm:
      case Param::Group:
      case Param::Group1:
      case Param::Group2: return SlotKind::Identifier;
      case Param::Dest:
      case Param::Source:
      case Param::Key: return SlotKind::Peer;
      default: return SlotKind::Numeric;
    }
  }

  // MPI_Comm_split's colour as a function of one grid coordinate, c = a + b * coord (rows,
  // columns, planes), with a and b fitted over the inputs: per input the colour of the ranks
  // at the origin and one step along each dimension gives a and b, checked on every rank of
  // the input (inputs are small; the target is never expanded). At the target every value of
  // the coordinate is one group: a block of the grid.
  struct ColorFormula {
    int dim = -1;  // -1: the same colour everywhere
    std::int64_t a = 0, b = 0;
  };
  std::map<std::int64_t, ColorFormula> colors_;  // by the communicator the split makes

  std::vector<ValueGroup> fitColor(const std::vector<bool>& member) {
    const int nc = topology_.classCount();
    for (int c = 0; c < nc; ++c)
      if (!targetClasses_[static_cast<std::size_t>(c)].empty() && !member[static_cast<std::size_t>(c)])
        throw error(0, "a communicator split by some ranks only is not extrapolated yet");
    std::vector<std::pair<std::size_t, std::int64_t>> as;
    std::array<std::vector<std::pair<std::size_t, std::int64_t>>, 3> bs;
    for (std::size_t i = 0; i < in_.size(); ++i) {
      const ParamValues* pv = event(i).param(Param::Color);
      if (!pv) throw error(i, "color is missing");
      const Grid& g = grids_[i];
      auto colorOf = [&](Rank r) -> std::int64_t {
        const ValueGroup* vg = pv->groupFor(r);
        if (!vg || vg->values.size() != 1)
          throw error(i, fmt::format("color of rank {} at {}: {}", r, at(i),
                                     vg ? "it changes from one call to the next" : "none is given"));
        if (vg->values[0] < 0) throw error(i, "a split with MPI_UNDEFINED colours is not extrapolated yet");
        return vg->values[0];
      };
      // The check visits every rank of the input: inputs are recorded at small scales, and a
      // trace that declares more ranks than that is refused rather than walked.
      if (g.size() > kMaxColorCheckRanks)
        throw error(i, fmt::format("color: checking a split's colours visits every rank, and {} ranks are more than "
                                   "the {} an input may have for it",
                                   g.size(), kMaxColorCheckRanks));
      const std::int64_t a = colorOf(0);
      std::array<std::int64_t, 3> b{0, 0, 0};
      Rank stride = 1;
      for (int d = 0; d < dims_; ++d) {
        b[static_cast<std::size_t>(d)] = colorOf(stride) - a;
        stride *= g.ext[static_cast<std::size_t>(d)];
      }
      for (const ValueGroup& vg : pv->groups)
        vg.ranks.forEach([&](Rank r) {
          const auto c = g.coords(r);
          const std::int64_t want = a + b[0] * c[0] + b[1] * c[1] + b[2] * c[2];
          if (vg.values.size() != 1 || vg.values[0] != want)
            throw error(i, fmt::format("color at {} is no function of the grid coordinates (rank {} has {}, a "
                                       "formula of its row, column or plane would give {})",
                                       at(i), r, vg.values.empty() ? 0 : vg.values[0], want));
          ++res_.stats["colour checks"];
          return true;
        });
      as.push_back({i, a});
      for (std::size_t d = 0; d < 3; ++d) bs[d].push_back({i, b[d]});
    }
    ColorFormula f;
    f.a = fitOne(as, "color (at the grid's origin)", "", -1);
    for (int d = 0; d < dims_; ++d) {
      const std::int64_t b = fitOne(bs[static_cast<std::size_t>(d)], fmt::format("color (step along dimension {})", d + 1), "", -1);
      if (b == 0) continue;
      if (f.dim >= 0) throw error(0, "a colour that depends on two grid coordinates is not extrapolated yet");
      f.dim = d, f.b = b;
    }
    if (auto id = event(0).uniformValue(Param::NewComm)) colors_[*id] = f;
    ++res_.stats["colours as grid coordinates"];
    return colorGroups(f);
  }

  // The groups of ranks of each colour at the target: one block per value of the coordinate.
  std::vector<ValueGroup> colorGroups(const ColorFormula& f) const {
    if (f.dim < 0) return {ValueGroup{RankList::all(target_.size()), {f.a}}};
    std::vector<ValueGroup> out;
    const auto k = static_cast<std::size_t>(f.dim);
    for (Rank u = 0; u < target_.ext[k]; ++u) {
      RankTuple t;
      Rank stride = 1;
      for (int d = 0; d < dims_; ++d) {
        const auto du = static_cast<std::size_t>(d);
        if (du == k) t.start += u * stride;
        else t.dims.push_back(RankDim{target_.ext[du], target_.ext[du] == 1 ? 0 : stride});
        stride *= target_.ext[du];
      }
      out.push_back(ValueGroup{RankList({t}), {f.a + f.b * u}});
    }
    return out;
  }

  // The communicators at the target: MPI_COMM_WORLD and MPI_COMM_SELF, duplicates of the world,
  // and splits by a grid coordinate (one instance per row, column or plane, in the order of
  // their colours; members in world order, as keys equal to the world rank give).
  void communicators(Trace& out) {
    for (const Communicator& c : in_.front().trace.comms) {
      if (c.id == kCommNull || c.id == kCommSelf || c.id == kCommWorld) continue;
      Communicator t;
      t.id = c.id;
      t.kind = c.kind;
      if (c.kind == "dup" && c.instances.size() == 1 && c.instances.front().size() == in_.front().trace.numRanks) {
        t.instances = {RankList::all(target_.size())};
      } else if (c.kind == "split" && colors_.count(c.id)) {
        for (std::size_t i = 0; i < in_.size(); ++i) {
          const Communicator* ci = nullptr;
          for (const Communicator& x : in_[i].trace.comms)
            if (x.id == c.id) ci = &x;
          if (!ci || ci->kind != c.kind)
            throw InputError(in_[i].file, 0, fmt::format("communicator {} ({}) is not made at every scale", c.id, c.kind));
          for (std::size_t k = 0; k < ci->instances.size(); ++k)
            if (ci->orderOf(k))
              throw InputError(in_[i].file, 0,
                               fmt::format("communicator {} ({}) numbers its members otherwise than in world order "
                                           "(a split key): not extrapolated yet",
                                           c.id, c.kind));
        }
        std::vector<ValueGroup> groups = colorGroups(colors_.at(c.id));
        std::sort(groups.begin(), groups.end(),
                  [](const ValueGroup& a, const ValueGroup& b) { return a.values < b.values; });
        for (ValueGroup& g : groups) t.instances.push_back(std::move(g.ranks));
      } else {
        throw InputError(in_.front().file, 0,
                         fmt::format("communicator {} ({}): extrapolating communicators other than MPI_COMM_WORLD, "
                                     "MPI_COMM_SELF, duplicates of the world and splits by a grid coordinate is not "
                                     "supported yet",
                                     c.id, c.kind));
      }
      ++res_.stats["communicators"];
      out.comms.push_back(std::move(t));
    }
  }

  // Adds the classes no input shows, composed from the shown ones; an error when they do not
  // follow (naming the event, what is open, and the scale whose recording would show them).
  void composeClasses(Trace& out, const std::vector<bool>& shown) {
    bool all = true;
    for (std::size_t c = 0; c < shown.size(); ++c) all = all && (shown[c] || targetClasses_[c].empty());
    if (all) return;
    // Composition reads one rank per class; classes split into blocks are beyond it.
    if (blocksUsed_) {
      const int cls = firstUnshown(shown);
      throw InputError(in_.back().file, 0,
                       fmt::format("no input shows the ranks of class {} of the {} grid, and values that follow a block "
                                   "distribution are not composed for classes no input shows{}",
                                   className(dims_, cls), target_.str(), settleHint(cls)));
    }
    CompositionInput ci{target_, targetClasses_, shown, res_.periodic};
    try {
      CompositionResult r = composeUnshownClasses(out, ci);
      for (auto& [k, v] : r.stats) res_.stats[k] += v;
      for (std::string& line : r.explanation) explain(line, "");
    } catch (const CompositionError& e) {
      const int cls = e.cls >= 0 ? e.cls : firstUnshown(shown);
      std::string where = in_.back().file;
      int line = 0;
      std::string what;
      if (e.event < out.events.size()) {
        const Event& oe = out.events[e.event];
        for (const Event& ie : in_.back().trace.events)
          if (ie.id == oe.id) line = ie.line;
        what = fmt::format("event {} {} at {}: ", oe.id, opName(oe.op), out.siteLabel(oe.site));
      }
      throw InputError(where, line,
                       fmt::format("{}no input shows the ranks of class {} of the {} grid, and they do not follow from "
                                   "the classes the inputs show: {}{}",
                                   what, topology_.className(cls), target_.str(), e.message, settleHint(cls)));
    }
  }

  int firstUnshown(const std::vector<bool>& shown) const {
    for (std::size_t c = 0; c < shown.size(); ++c)
      if (!shown[c] && !targetClasses_[c].empty()) return static_cast<int>(c);
    return 0;
  }

  Event extrapolateEvent() {
    const Event& e0 = event(0);
    Event out;
    out.id = e0.id;
    out.op = e0.op;
    out.site = e0.site == kNoSite ? kNoSite : res_.trace.internSite(in_[0].trace.siteName(e0.site));
    for (SiteId s : e0.mergedSites) out.mergedSites.push_back(res_.trace.internSite(in_[0].trace.siteName(s)));
    const std::vector<bool> member = membership();
    const int nc = topology_.classCount();
    for (int c = 0; c < nc; ++c)
      if (member[static_cast<std::size_t>(c)]) out.ranks = RankList::unite(out.ranks, targetClasses_[static_cast<std::size_t>(c)]);
    if (out.ranks.empty()) return out;
    findSteps();

    // Loops.
    std::size_t levels = 0;
    for (std::size_t i = 0; i < in_.size(); ++i) levels = std::max(levels, event(i).loops.size());
    for (std::size_t l = 0; l < levels; ++l) {
      LoopLevel level;
      for (int which = 0; which < 2; ++which) {
        std::vector<const std::vector<ValueGroup>*> g;
        for (std::size_t i = 0; i < in_.size(); ++i)
          g.push_back(l < event(i).loops.size() ? (which ? &event(i).loops[l].mem : &event(i).loops[l].iter) : nullptr);
        SlotDesc slot{fmt::format("loop {} {}", l, which ? "mem" : "iter"), SlotKind::Numeric, false, false, which == 0};
        (which ? level.mem : level.iter) = fitSlot(slot, g, member, true);
      }
      if (level.iter.empty() && level.mem.empty()) break;
      out.loops.push_back(std::move(level));
    }

    // Parameters, in Param order.
    std::set<Param> params;
    for (std::size_t i = 0; i < in_.size(); ++i)
      for (const ParamValues& pv : event(i).params)
        if (pv.param != Param::Failed && pv.param != Param::Matched) params.insert(pv.param);
    const bool dataVectors = dataDependent();
    if (dataVectors) fitDataVectors(out);
    for (Param p : params) {
      if (dataVectors && isDataVectorParam(p)) continue;
      std::vector<const std::vector<ValueGroup>*> g;
      std::optional<bool> relative;
      for (std::size_t i = 0; i < in_.size(); ++i) {
        const ParamValues* pv = event(i).param(p);
        g.push_back(pv ? &pv->groups : nullptr);
        if (pv && relative && *relative != pv->relative)
          throw error(i, fmt::format("{} is relative at one scale and absolute at another", paramName(p)));
        if (pv) relative = pv->relative;
      }
      if (p == Param::Color) {
        out.setParam(p, fitColor(member), false);
        ++res_.stats["parameters"];
        continue;
      }
      if (auto rel = relations_.find({eventIndex_, p}); rel != relations_.end()) {
        out.setParam(p, relationGroups(*rel->second, p, out.ranks), true);
        ++res_.stats["parameters"];
        continue;
      }
      SlotDesc slot{std::string(paramName(p)), kindOf(p), relative.value_or(false), isVectorParam(p), false,
                    mayFollowBlocks(p)};
      if (topologyVectorParam(p))
        throw error(0, fmt::format("{}: topology constructors are not extrapolated yet", slot.name));
      out.setParam(p, fitSlot(slot, g, member, false), slot.relative);
      ++res_.stats["parameters"];
    }

    // Times: the mean per (phase, unit, predecessor site), fitted over the inputs that have it.
    struct Key {
      Phase phase;
      TimeUnit unit;
      std::string after;
      bool operator<(const Key& o) const { return std::tie(phase, unit, after) < std::tie(o.phase, o.unit, o.after); }
    };
    std::vector<Key> order;
    std::map<Key, std::vector<std::pair<std::size_t, const Histogram*>>> times;
    for (std::size_t i = 0; i < in_.size(); ++i)
      for (const TimeStat& st : event(i).stats) {
        Key key{st.phase, st.unit, std::string(in_[i].trace.siteName(st.after))};
        if (!times.count(key)) order.push_back(key);
        times[key].push_back({i, &st.hist});
      }
    for (const Key& key : order) {
      const auto& obs = times[key];
      std::vector<Observation<double>> o;
      std::string seen;
      for (auto [i, h] : obs) {
        o.push_back({grids_[i].scale(), h->mean()});
        seen += fmt::format("{}{:.4g} at {}", seen.empty() ? "" : ", ", h->mean(), at(i));
      }
      const RealFit f = realFit(o, kTimeFit);
      double mean = f.model ? f.model->at(target_.scale()) : 0;
      std::string model = f.model ? f.model->str() : "none";
      // The best model whose time at the target is a time (finite, not negative): a model that
      // fits noisy inputs best may still fall below zero at a larger scale, and the next one
      // (c/P where a + b/px went negative) is then the better guess than none.
      std::string passedOver;
      std::optional<RealModel> taken;  // for --plot: the model whose value is taken, if one is
      double takenError = 0;
      for (const auto& [candidate, error] : f.ranked) {
        const double v = candidate.at(target_.scale());
        if (std::isfinite(v) && v >= 0) {
          if (candidate.str() != model)
            passedOver = fmt::format(" ({} gave {:.4g}, taken instead: cross-validation error {:.0f}%)", model, mean,
                                     100 * error);
          mean = v;
          model = candidate.str() + passedOver;
          taken = candidate;
          takenError = error;
          if (error > kTimeTolerance) mean = -1;  // too poor a predictor: the mean below
          break;
        }
      }
      // A model is taken only where it predicted the held-back scales within kTimeTolerance;
      // noisy times keep their mean at the largest input scale, the nearest to the target (MPI
      // waits on an oversubscribed machine grow with the scale, and a strong-scaling code's
      // one-time work shrinks with it: the mean over every input would miss both).
      if (!f.model || !std::isfinite(mean) || mean < 0 || f.crossValidationError > kTimeTolerance) {
        model = f.model ? f.model->str() : "none";
        std::size_t largest = 0;
        for (std::size_t j = 1; j < obs.size(); ++j)
          if (grids_[obs[j].first].size() > grids_[obs[largest].first].size()) largest = j;
        double sum = 0;
        int count = 0;
        for (std::size_t j = 0; j < obs.size(); ++j)
          if (grids_[obs[j].first].size() == grids_[obs[largest].first].size()) {
            sum += o[j].value;
            ++count;
          }
        mean = sum / count;
        taken.reset();
        model = fmt::format("mean at the largest input scale ({} gave {:.4g}, cross-validation error {:.0f}%)", model,
                            f.model ? f.model->at(target_.scale()) : 0.0, 100 * f.crossValidationError);
      }
      const auto [li, lh] = obs.back();
      const auto n = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::llround(static_cast<double>(lh->n) * static_cast<double>(target_.size()) /
                                                    static_cast<double>(grids_[li].size()))));
      TimeStat st;
      st.phase = key.phase;
      st.unit = key.unit;
      st.after = key.after == "-" ? kNoSite : res_.trace.internSite(key.after);
      st.hist.n = n;
      st.hist.avg = st.hist.min = st.hist.max = mean;
      st.hist.bins = {Bin{mean, mean, mean, mean, mean, n}};
      out.stats.push_back(st);
      ++res_.stats["time fits"];
      std::vector<std::size_t> plotInputs;
      std::vector<double> plotValues;
      for (std::size_t j = 0; j < obs.size(); ++j) plotInputs.push_back(obs[j].first), plotValues.push_back(o[j].value);
      // A time the same at every input is explained but not drawn: it does not change with scale.
      const bool varies = std::any_of(plotValues.begin(), plotValues.end(), [&](double v) { return v != plotValues[0]; });
      explain(fmt::format("{} time {} {} after {}: {} -> {} = {:.4g} at {}", describe(0), phaseName(key.phase),
                          timeUnitName(key.unit), key.after, seen, model, mean, atTarget()),
              "",
              [&]() -> std::optional<ScalingPlot> {
                if (!varies) return std::nullopt;
                return realPlot(fmt::format("{} time ({}) after {}", key.phase == Phase::Compute ? "compute" : "MPI",
                                   key.unit == TimeUnit::Microseconds ? "us" : "thousands of instructions",
                                   key.after == "-" ? "the start" : key.after),
                       plotInputs, plotValues, f, taken,
                       taken ? fmt::format("least squares, cross-validation error {:.2g}%{}", 100 * takenError,
                                           passedOver.empty() ? "" : "; the best model went negative at the target")
                             : fmt::format("no model predicts the held-back inputs within {:.0f}%", 100 * kTimeTolerance),
                       mean);
              });
    }
    return out;
  }

  const std::vector<ExtrapolateInput>& in_;
  int dims_;
  bool descending_ = false;
  bool blockValues_ = false;
  bool wantPlots_ = false;  // ExtrapolateOptions::plots
  bool blocksUsed_ = false;  // some value follows a block distribution (classes split into blocks)
  bool modelRejected_ = false;  // the last fit failed with models that fit the inputs (fitOne)
  GridTopology topology_;
  std::vector<Grid> grids_;
  Grid target_;
  std::vector<ScaleVar> vars_;
  std::vector<Scale> probes_;
  std::shared_ptr<RealFitCache> fitCache_;  // ExtrapolateOptions::fitCache
  std::vector<std::vector<RankList>> classes_;
  std::vector<RankList> targetClasses_;
  std::size_t eventIndex_ = 0;
  // Relative peer slots (event index, parameter) that follow a relation rather than the grid.
  std::map<std::pair<std::size_t, Param>, const PeerRelation*> relations_;
  struct Steps {
    std::vector<std::size_t> at;  // per input
    std::size_t target = 0;
  };
  std::optional<Steps> steps_;  // of the current event (findSteps)
  int progress_ = 0;
  ExtrapolateResult res_;
  struct Explained {
    std::string key;
    std::vector<std::string> classes;
    std::optional<std::size_t> plot;  // in plots_
  };
  std::vector<Explained> explained_;
  std::vector<ScalingPlot> plots_;  // of explained_ (--plot)
};

}  // namespace

std::string ExtrapolateResult::summary() const {
  static constexpr std::array<char, 3> kAxes{'x', 'y', 'z'};
  std::string inputs;
  for (const Grid& g : inputGrids) inputs += fmt::format("{}P={} ({})", inputs.empty() ? "" : ", ", g.size(), g.str());
  std::string periodicDims;
  for (int d = 0; d < target.dims; ++d)
    if (periodic[static_cast<std::size_t>(d)]) periodicDims += kAxes[static_cast<std::size_t>(d)];
  std::string aside;
  for (Rank p : setAside) aside += fmt::format("{}P={}", aside.empty() ? "" : ", ", p);
  if (!aside.empty()) aside = fmt::format(" ({} set aside: another structure; --explain says where)", aside);
  return fmt::format("extrapolated {}{} to P={} ({}): {}-D grid{}, {}; {} events\n{}", inputs, aside, target.size(),
                     target.str(), target.dims, descending ? " (x the longest side)" : "",
                     periodicDims.empty() ? "not periodic" : "periodic in " + periodicDims, trace.events.size(),
                     caution.empty() ? "" : caution + "\n");
}

ExtrapolateResult extrapolate(const std::vector<ExtrapolateInput>& given, const ExtrapolateOptions& options) {
  if (given.size() < 2)
    throw InputError("extrapolate", 0, "extrapolation needs traces recorded at two or more rank counts");
  std::set<Rank> sizes;
  for (const auto& i : given) {
    if (!sizes.insert(i.trace.numRanks).second)
      throw InputError(i.file, 0, fmt::format("two inputs were recorded at {} ranks; give one trace per rank count",
                                              i.trace.numRanks));
    if (i.trace.worldPeers != given.front().trace.worldPeers)
      throw InputError(i.file, 0, "the inputs number peers differently (peers comm and peers world)");
    for (const Communicator& c : i.trace.comms)
      if (c.id != kCommNull && c.id != kCommSelf && c.id != kCommWorld && c.kind != "dup" && c.kind != "split")
        throw InputError(i.file, 0,
                         fmt::format("communicator {} ({}): extrapolating communicators other than MPI_COMM_WORLD, "
                                     "MPI_COMM_SELF, duplicates and splits is not supported yet",
                                     c.id, c.kind));
  }
  // Correspondence: which event of one input is which of another (extrap/Correspondence.h); the
  // inputs from here on have the reference's call sites, and those whose structure differs
  // from the larger inputs' are set aside.
  CorrespondenceResult corresponding = correspond(given);
  const std::vector<ExtrapolateInput>& inputs = corresponding.inputs;
  std::vector<Rank> setAside;
  for (std::size_t i : corresponding.setAside) setAside.push_back(given[i].trace.numRanks);
  Rank largestKept = 0;
  for (const auto& i : inputs) largestKept = std::max(largestKept, i.trace.numRanks);
  // An error after inputs were set aside says so: fewer inputs leave fewer models a spare one.
  auto withSetAside = [&](const InputError& e) {
    if (setAside.empty()) return e;
    return InputError(e.file(), e.line(), e.message(), {},
                      fmt::format("{}; a recording at a scale above P={} would give one more input of that structure",
                                  fmt::join(corresponding.notes, "; "), largestKept));
  };
  if (options.ranks < 1 && !options.grid)
    throw InputError("extrapolate", 0, "give the target rank count (--ranks P)");
  ExtrapolateOptions opts = options;
  if (opts.grid && opts.ranks != 0 && opts.grid->size() != opts.ranks)
    throw InputError("extrapolate", 0, fmt::format("--grid {} has {} ranks, not --ranks {}", opts.grid->str(),
                                                   opts.grid->size(), opts.ranks));
  if (opts.grid) opts.ranks = opts.grid->size();

  // Grids of 1, 2 and 3 dimensions, each numbered with the shortest side fastest and then (2-D
  // and 3-D) with the longest side fastest. The first under which every rank group is a union
  // of position classes is taken; if its fits fail, the next such one is tried, and the first
  // one's error is reported.
  std::vector<std::pair<int, bool>> shapes;
  for (int d : opts.grid ? std::vector<int>{opts.grid->dims} : std::vector<int>{1, 2, 3}) {
    shapes.push_back({d, false});
    if (d > 1) shapes.push_back({d, true});
  }
  std::optional<Attempt> classError, fitError, blockError;
  std::vector<std::string> rejected;
  // An input too small for a grid of more dimensions (a 3-D code at 4 ranks is 1x2x2): the
  // grids of fewer dimensions then fail too, and the error says which input to record anew.
  std::optional<std::string> tooSmall;
  // Where no topology makes every rank group a union of position classes, they are tried again
  // with the numeric parameters let through (values that follow a block distribution split a
  // class: 40 points over 6 columns are 7, 7, 7, 7, 6, 6); the first try's errors are the ones
  // reported.
  bool someClassesFit = false;
  for (bool blockValues : {false, true})
  for (auto [d, descending] : shapes) {
    if (blockValues && someClassesFit) break;
    Extrapolator x(inputs, opts, d, descending, blockValues);
    if (!setAside.empty()) x.settleAbove(*std::max_element(setAside.begin(), setAside.end()));
    try {
      x.prepare();
      x.checkClasses();
    } catch (const InputError& e) {
      if (blockValues) continue;
      rejected.push_back(fmt::format("{}-D grid{} rejected: {}", d, descending ? " (x the longest side)" : "", e.message()));
      if (!classError || x.progress() > classError->progress) classError = Attempt{e, x.progress()};
      // prepare() throws before any progress only for a grid with an extent below 2.
      if (x.progress() < 0 && !tooSmall)
        tooSmall = fmt::format("{}: {}", e.file(), e.message());
      continue;
    }
    someClassesFit = someClassesFit || !blockValues;
    try {
      ExtrapolateResult r = x.run();
      r.stats["topologies rejected"] = static_cast<std::int64_t>(rejected.size());
      for (auto it = rejected.rbegin(); it != rejected.rend(); ++it) r.explanation.insert(r.explanation.begin(), *it);
      r.explanation.insert(r.explanation.begin(), corresponding.notes.begin(), corresponding.notes.end());
      for (const auto& [name, value] : corresponding.stats) r.stats[name] += value;
      r.setAside = setAside;
      if (!setAside.empty()) {
        std::string kept;
        for (const Grid& g : r.inputGrids) kept += fmt::format("{}P={}", kept.empty() ? "" : ", ", g.size());
        std::string aside;
        for (std::size_t i : corresponding.setAside)
          aside += fmt::format("{}P={} ({} events)", aside.empty() ? "" : ", ", given[i].trace.numRanks,
                               given[i].trace.events.size());
        if (r.target.size() > largestKept)
          r.caution = fmt::format(
              "Caution: the application's structure changed with the scale ({} differ from {}, {} events, whose "
              "structure this benchmark has), and nothing in the recordings says whether it changes again between "
              "P={} and P={} (a multigrid solver's level count follows its local grid): compare with a recording at "
              "the target where one can be made.",
              aside, kept, corresponding.inputs.front().trace.events.size(), largestKept, r.target.size());
      }
      return r;
    } catch (const InputError& e) {
      rejected.push_back(fmt::format("{}-D grid{} rejected: {}", d, descending ? " (x the longest side)" : "", e.message()));
      if (blockValues && !blockError) blockError = Attempt{e, x.progress()};
      if (!blockValues && !fitError) fitError = Attempt{e, x.progress()};
    }
  }
  if (fitError) throw withSetAside(fitError->error);
  if (blockError) {
    // The class error stands; what the try with block distributions met comes as a hint.
    const InputError& c = classError->error;
    const InputError& b = blockError->error;
    throw withSetAside(InputError(c.file(), c.line(), c.message(), c.text(),
                                  (c.hint().empty() ? "" : c.hint() + "; ") +
                                      fmt::format("taking its values as block distributions: {}:{}: {}", b.file(),
                                                  b.line(), b.message())));
  }
  if (tooSmall && classError->progress >= 0) {  // the error reported is another grid's
    const InputError& c = classError->error;
    throw withSetAside(InputError(c.file(), c.line(), c.message(), c.text(),
                                  (c.hint().empty() ? "" : c.hint() + "; ") +
                                      fmt::format("a grid of more dimensions was rejected because {}: if the application's "
                                                  "grid has more, record at scales where every side has 2 ranks or more",
                                                  *tooSmall)));
  }
  throw withSetAside(classError->error);
}

}  // namespace tracegen::extrap
