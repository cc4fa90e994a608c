// A synthetic clustered trace of an LU-like wavefront, shaped as a clustering tracer writes one.
//
// The px x py grid of ranks falls into nine groups by which neighbours a rank has. A timestep
// is a lower sweep (MPI_Recv from MPI_ANY_SOURCE with the tag of the north, then of the west;
// MPI_Send south and east with those tags), an upper sweep (receive with the tags of the south
// and the east, send north and west) and an Allreduce: a chain of blocking receives that runs
// from one corner of the grid to the other and back, as in NPB LU's SSOR sweeps. The
// timestep loop is headed, for each rank, by the first body event it executes, with a body
// length per neighbour count. The trace has a dozen events whatever the rank count.
#include "bench/SyntheticWavefront.h"

#include <stdexcept>

#include "bench/SyntheticGrid.h"

namespace tracegen {

using synthetic::block;
using synthetic::histogram;

Trace makeWavefrontTrace(Rank px, Rank py, std::int64_t timesteps, double computeUs) {
  if (px < 2 || py < 2) throw std::invalid_argument("wavefront grid must be at least 2x2");
  Trace t;
  const Rank P = px * py;
  t.numRanks = P;
  t.origin = "synthetic-wavefront";
  t.comms = standardCommunicators(P);
  t.datatypes = {{10, "MPI_DOUBLE", 8}};
  const RankList all = RankList::all(P);
  const RankList hasNorth = block(px, 0, px, 1, py - 1);
  const RankList hasSouth = block(px, 0, px, 0, py - 1);
  const RankList hasWest = block(px, 1, px - 1, 0, py);
  const RankList hasEast = block(px, 0, px - 1, 0, py);
  const RankList corners = RankList::unite(RankList::unite(RankList::single(0), RankList::single(px - 1)),
                                           RankList::unite(RankList::single(P - px), RankList::single(P - 1)));
  const RankList interior = block(px, 1, px - 2, 1, py - 2);
  const RankList edges = RankList::subtract(RankList::subtract(all, corners), interior);

  enum Tag : std::int64_t { FromNorth = 1, FromWest = 2, FromSouth = 3, FromEast = 4 };
  std::int64_t nextId = 0;
  t.events.reserve(12);
  auto event = [&](Op op, const RankList& ranks, std::string_view site) -> Event& {
    Event e;
    e.id = nextId++;
    e.op = op;
    e.ranks = ranks;
    e.site = t.internSite(site);
    t.events.push_back(std::move(e));
    return t.events.back();
  };
  auto p2p = [&](Event& e, Param peer, std::int64_t value, std::int64_t tag) {
    e.setParam(Param::Comm, {{e.ranks, {kCommWorld}}});
    e.setParam(Param::Count, {{e.ranks, {500}}});
    e.setParam(Param::Datatype, {{e.ranks, {10}}});
    e.setParam(peer, {{e.ranks, {value}}}, true);
    e.setParam(Param::Tag, {{e.ranks, {tag}}});
  };
  auto offset = [&](Rank d) { return (d % P + P) % P; };

  event(Op::Init, all, "lu.f:100");
  const std::size_t firstBody = t.events.size();
  p2p(event(Op::Recv, hasNorth, "exchange.f:10"), Param::Source, kAnySource, FromNorth);
  p2p(event(Op::Recv, hasWest, "exchange.f:11"), Param::Source, kAnySource, FromWest);
  Event& sendS = event(Op::Send, hasSouth, "exchange.f:20");
  p2p(sendS, Param::Dest, offset(px), FromNorth);
  sendS.stats.push_back({Phase::Compute, TimeUnit::Microseconds, t.internSite("exchange.f:11"),
                         histogram(computeUs, timesteps * hasSouth.size(), 0), {}});
  p2p(event(Op::Send, hasEast, "exchange.f:21"), Param::Dest, offset(1), FromWest);
  p2p(event(Op::Recv, hasSouth, "exchange.f:30"), Param::Source, kAnySource, FromSouth);
  p2p(event(Op::Recv, hasEast, "exchange.f:31"), Param::Source, kAnySource, FromEast);
  p2p(event(Op::Send, hasNorth, "exchange.f:40"), Param::Dest, offset(-px), FromSouth);
  p2p(event(Op::Send, hasWest, "exchange.f:41"), Param::Dest, offset(-1), FromEast);
  Event& allreduce = event(Op::Allreduce, all, "lu.f:200");
  allreduce.setParam(Param::Comm, {{all, {kCommWorld}}});
  allreduce.setParam(Param::Count, {{all, {5}}});
  allreduce.setParam(Param::Datatype, {{all, {10}}});
  allreduce.setParam(Param::ReduceOp, {{all, {*reduceOpFromName("MPI_SUM")}}});
  event(Op::Finalize, all, "lu.f:300");

  // The timestep loop is headed by the first body event a rank executes: the receive from
  // the north, else from the west, else (rank 0) the send south. Body: two calls per
  // neighbour and the Allreduce.
  auto loopFor = [&](Event& head, const RankList& ranks) {
    LoopLevel lv;
    lv.iter.push_back({ranks, {timesteps}});
    for (auto [group, neighbours] : {std::pair{corners, 2}, {edges, 3}, {interior, 4}}) {
      RankList members = RankList::intersect(group, ranks);
      if (!members.empty()) lv.mem.push_back({members, {2 * neighbours + 1}});
    }
    head.loops.push_back(std::move(lv));
  };
  loopFor(t.events[firstBody], hasNorth);
  loopFor(t.events[firstBody + 1], RankList::subtract(hasWest, hasNorth));
  loopFor(t.events[firstBody + 2], RankList::subtract(RankList::subtract(all, hasNorth), hasWest));
  return t;
}

}  // namespace tracegen
