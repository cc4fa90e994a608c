// Communicator instances and collectives in the communicator simulator.
//
// Algorithm. A communicator id names one instance per group of ranks that created it (each row
// of a grid has its own "comm 1000"): an instance is named by its lowest world rank (CommKey),
// and its members are the trace's list of that instance. A collective (and communicator
// creation or release, window creation, fence and free, MPI-IO's collective calls) blocks
// until every member of the communicator instance has reached its k-th collective there: MPI
// pairs the k-th collective of each member, so members that call different collectives at the
// same position are reported as collectives called in different orders, a potential deadlock.
// A nonblocking collective takes its place in the communicator's order when it starts and
// returns at once; its request completes when every member has started it.
#include <fmt/format.h>

#include <algorithm>

#include "sim/Simulation.h"

namespace tracegen::sim {

CommKey Simulation::keyFor(Rank r, const Call& c) const {
  if (c.comm == kCommWorld) return {kCommWorld, 0};
  if (c.comm == kCommSelf) return {kCommSelf, r};
  const Communicator* comm = trace_.comm(c.comm);
  const RankList* inst = comm ? comm->instanceFor(r) : nullptr;
  if (!inst) fail(c, r, fmt::format("uses communicator {}, which the trace does not describe (run resolve-comms first)", c.comm));
  return {c.comm, *inst->first()};
}

const RankList& Simulation::members(const CommKey& k) {
  auto it = members_.find(k);
  if (it != members_.end()) return it->second;
  RankList list;
  if (k.id == kCommWorld) list = RankList::all(trace_.numRanks);
  else if (k.id == kCommSelf) list = RankList::single(k.base);
  else
    for (const auto& inst : trace_.comm(k.id)->instances)
      if (inst.first() == k.base) list = inst;
  return members_.emplace(k, std::move(list)).first->second;
}

void Simulation::arrive(Rank r) {
  RankState& s = state(r);
  CommKey key = keyFor(r, s.call);
  // MPI_Comm_create_group is collective over the group only: the communicator it makes.
  if (s.call.op == Op::CommCreateGroup)
    if (const ParamValues* n = s.call.event->param(Param::NewComm))
      if (const ValueGroup* g = n->groupFor(r); g && g->values.front() >= 1000) {
        Call made = s.call;
        made.comm = g->values.front();
        key = keyFor(r, made);
      }
  s.collKey = key;
  s.collIndex = s.collectives[key]++;
  CollState& c = colls_[{key, s.collIndex}];
  const RankList& mem = members(key);
  if (c.arrived == 0) {
    c.size = mem.size();
    c.op = s.call.op;
    c.firstRank = r;
    c.phase = s.phase;
  } else {
    crossing(c.phase, s.phase);
  }
  if (c.arrived > 0 && c.op != s.call.op && !mismatch_) {
    // Members of a communicator must call its collectives in the same order: MPI pairs the
    // k-th collective of each, and a Bcast paired with a Barrier never completes.
    Failure f;
    f.blocked = {std::min(r, c.firstRank), std::max(r, c.firstRank)};
    f.cycle = {f.blocked[0], f.blocked[1], f.blocked[0]};
    f.message = fmt::format(
        "potential deadlock: collectives called in different orders\n  collective {} on communicator {}: rank {} "
        "calls {} in {} while rank {} calls {}\n  cycle: rank {} -> rank {} -> rank {}",
        s.collIndex + 1, key.id, r, opName(s.call.op), whereText(r), c.firstRank, opName(c.op), f.cycle[0], f.cycle[1],
        f.cycle[2]);
    f.firstBlocked = fmt::format("rank {} waits in {}", r, whereText(r));
    f.line = s.call.event->line;
    mismatch_ = std::move(f);
  }
  if (++c.arrived == c.size) mem.forEach([&](Rank m) {
    wake(m);
    return true;
  });
}

}  // namespace tracegen::sim
