// Expressions of the benchmark program (gen/Program.h): the one evaluator, used by the
// traversal, both backends and the tests.
#include "gen/Program.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace tracegen::gen {

std::int64_t BlockTerm::at(const std::array<std::int64_t, 3>& ext, const std::array<std::int64_t, 3>& coord) const {
  const auto d = static_cast<std::size_t>(dim);
  return a + b * (points / ext[d] + (coord[d] < points % ext[d] ? 1 : 0));
}

bool Expr::perExecutionInvariant() const {
  if (kind == Kind::ByExecution || kind == Kind::FirstIteration || kind == Kind::Progression ||
      kind == Kind::ProgressionPeer)
    return false;
  if (kind == Kind::RelationPeer && relation != GridRelation::Transpose) return false;  // a peer per step
  for (const auto& c : children)
    if (!c.perExecutionInvariant()) return false;
  return true;
}

namespace {

bool isFirst(const std::map<int, bool>& firstIteration, int loop) {
  auto it = firstIteration.find(loop);
  return it != firstIteration.end() && it->second;
}

std::size_t cycleIndex(std::int64_t execution, std::size_t n) {
  const auto len = static_cast<std::int64_t>(n);
  return static_cast<std::size_t>(((execution % len) + len) % len);
}

}  // namespace

double Expr::eval(Rank rank, Rank numRanks, std::int64_t execution, const std::map<int, bool>& firstIteration) const {
  switch (kind) {
    case Kind::Const:
      return value;
    case Kind::RankOffset:
      return static_cast<double>(((rank + offset) % numRanks + numRanks) % numRanks);
    case Kind::ByRank:
      for (std::size_t i = 0; i < groups.size() && i < children.size(); ++i)
        if (groups[i].contains(rank)) return children[i].eval(rank, numRanks, execution, firstIteration);
      throw std::logic_error("Expr::eval: rank in no group");
    case Kind::ByExecution:
      if (children.empty()) throw std::logic_error("Expr::eval: a cycle over executions without values");
      return children[cycleIndex(execution, children.size())].eval(rank, numRanks, execution, firstIteration);
    case Kind::FirstIteration:
      if (children.size() != 2) throw std::logic_error("Expr::eval: a first-iteration choice needs two values");
      return children[isFirst(firstIteration, loop) ? 0 : 1].eval(rank, numRanks, execution, firstIteration);
    case Kind::ByCall:
      return value;
    case Kind::Progression:
      if (constantProgression()) return progressionValue(static_cast<std::int64_t>(cycleIndex(execution, static_cast<std::size_t>(progressionLength()))));
      [[fallthrough]];
    case Kind::Formula:
    case Kind::GridPeer:
    case Kind::ProgressionPeer:
    case Kind::RelationPeer:
    case Kind::Block:
      throw std::logic_error("Expr::eval: a scale-free expression has no value before the scale is known");
  }
  return 0;
}

Expr Expr::atExecution(std::int64_t execution, const std::map<int, bool>& firstIteration) const {
  switch (kind) {
    case Kind::Const:
    case Kind::RankOffset:
      return *this;
    case Kind::ByRank: {
      Expr out = *this;
      for (auto& c : out.children) c = c.atExecution(execution, firstIteration);
      return out;
    }
    case Kind::ByExecution:
      if (children.empty()) throw std::logic_error("Expr::atExecution: a cycle over executions without values");
      return children[cycleIndex(execution, children.size())].atExecution(execution, firstIteration);
    case Kind::FirstIteration:
      if (children.size() != 2) throw std::logic_error("Expr::atExecution: a first-iteration choice needs two values");
      return children[isFirst(firstIteration, loop) ? 0 : 1].atExecution(execution, firstIteration);
    case Kind::ByCall:
      return constant(value);
    case Kind::Progression:
      if (constantProgression())
        return constant(progressionValue(static_cast<std::int64_t>(cycleIndex(execution, static_cast<std::size_t>(progressionLength())))));
      [[fallthrough]];
    case Kind::Formula:
    case Kind::GridPeer:
    case Kind::ProgressionPeer:
    case Kind::RelationPeer:
    case Kind::Block:
      throw std::logic_error("Expr::atExecution: a scale-free expression");
  }
  return *this;
}

Expr Expr::progressionCycle() const {
  std::vector<Expr> cycle;
  for (std::int64_t k = 0; k < progressionLength(); ++k) cycle.push_back(constant(progressionValue(k)));
  return byExecution(std::move(cycle));
}

Expr Expr::withoutDrift() const {
  if (kind == Kind::ByCall) return constant(value);
  Expr out = *this;
  for (auto& c : out.children) c = c.withoutDrift();
  return out;
}

std::int64_t Expr::executionPeriod() const {
  if (kind == Kind::ByCall) return 1;  // its mean, for evaluators without its counter
  if (constantProgression()) return progressionLength();
  std::int64_t period = kind == Kind::ByExecution ? std::max<std::int64_t>(static_cast<std::int64_t>(children.size()), 1) : 1;
  for (const auto& c : children) period = std::lcm(period, c.executionPeriod());
  return period;
}

void Expr::firstIterationLoops(std::vector<int>& loops) const {
  if (kind == Kind::FirstIteration && std::find(loops.begin(), loops.end(), loop) == loops.end()) loops.push_back(loop);
  for (const auto& c : children) c.firstIterationLoops(loops);
}

}  // namespace tracegen::gen
