// Peer relations: which relations are tried, and the check that one explains a slot's groups.
// A slot of relative peers whose groups are no union of position classes (each rank has a
// peer of its own) is explained by a relation when, at every input, every rank's recorded list
// is the relation's list for that rank: the check visits every rank of the input (inputs are
// recorded at small scales), and compares lists by their shortest period, since the recorder
// writes a list consumed cyclically once (a transpose partner named in every step is one
// value).
#include "extrap/topology/PeerRelation.h"

#include "extrap/topology/CompleteGraph.h"
#include "extrap/topology/Hypercube.h"
#include "extrap/topology/Transpose.h"
#include "ir/Periodic.h"

namespace tracegen::extrap {

const std::vector<std::unique_ptr<PeerRelation>>& peerRelations() {
  static const std::vector<std::unique_ptr<PeerRelation>> relations = [] {
    std::vector<std::unique_ptr<PeerRelation>> r;
    r.push_back(std::make_unique<HypercubeRelation>());
    r.push_back(std::make_unique<CompleteGraphRelation>());
    r.push_back(std::make_unique<TransposeRelation>());
    return r;
  }();
  return relations;
}

std::string ArithmeticRelation::name() const { return std::string(gen::relationName(kind())); }

bool ArithmeticRelation::definedOn(const Grid& g) const { return gen::relationDefinedOn(kind(), g.dims, g.ext); }

std::size_t ArithmeticRelation::steps(const Grid& g) const {
  return static_cast<std::size_t>(gen::relationSteps(kind(), g.dims, g.ext));
}

std::int64_t ArithmeticRelation::stored(const Grid& g, Rank r, std::size_t k) const {
  const Rank partner = gen::relationPeer(kind(), g.dims, g.ext, r, static_cast<std::int64_t>(k));
  return ((partner - r) % g.size() + g.size()) % g.size();
}

namespace {
std::vector<std::int64_t> periodOf(const std::vector<std::int64_t>& v) {
  return std::vector<std::int64_t>(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(shortestPeriod(v)));
}
}  // namespace

std::vector<std::int64_t> relationList(const PeerRelation& rel, const Grid& g, Rank r) {
  std::vector<std::int64_t> v;
  for (std::size_t k = 0; k < rel.steps(g); ++k) v.push_back(rel.stored(g, r, k));
  return periodOf(v);
}

bool relationExplains(const PeerRelation& rel, const Grid& g, const std::vector<ValueGroup>& groups) {
  if (!rel.definedOn(g) || rel.steps(g) == 0) return false;
  bool ok = true;
  for (const ValueGroup& vg : groups) {
    if (vg.values.empty()) return false;
    const std::vector<std::int64_t> have = periodOf(vg.values);
    vg.ranks.forEach([&](Rank r) {
      ok = relationList(rel, g, r) == have;
      return ok;
    });
    if (!ok) return false;
  }
  return true;
}

}  // namespace tracegen::extrap
