// A synthetic clustered trace of a 2-D five-point stencil, shaped as the recorder writes one.
//
// The px x py grid of ranks falls into nine groups by which neighbours a rank has: four
// corners, four edges and the interior. Every timestep a rank posts one Irecv and one Isend
// per neighbour (one call site per direction), waits for them all, computes, and joins an
// Allreduce. Events carry the ranklists of the ranks that make the call (rows or columns of
// the grid: 1-D progressions and 2-D blocks), peers are offsets from the calling rank, and
// the timestep loop is headed, for each rank, by the first event of the body it executes, with
// a body length per neighbour count. The trace has a dozen events whatever the rank count.
#include "bench/SyntheticStencil.h"

#include <stdexcept>

#include "bench/SyntheticGrid.h"

namespace tracegen {

using synthetic::block;
using synthetic::histogram;

Trace makeStencilTrace(Rank px, Rank py, std::int64_t timesteps, double computeUs) {
  if (px < 2 || py < 2) throw std::invalid_argument("stencil grid must be at least 2x2");
  Trace t;
  const Rank P = px * py;
  t.numRanks = P;
  t.origin = "synthetic-stencil";
  t.worldPeers = false;
  t.comms = standardCommunicators(P);
  t.datatypes = {{10, "MPI_DOUBLE", 8}};
  const RankList all = RankList::all(P);

  // Ranks that have a neighbour in each direction.
  const RankList hasNorth = block(px, 0, px, 1, py - 1);
  const RankList hasSouth = block(px, 0, px, 0, py - 1);
  const RankList hasWest = block(px, 1, px - 1, 0, py);
  const RankList hasEast = block(px, 0, px - 1, 0, py);
  // The nine groups, by neighbour count.
  const RankList corners = RankList::unite(RankList::unite(RankList::single(0), RankList::single(px - 1)),
                                           RankList::unite(RankList::single(P - px), RankList::single(P - 1)));
  const RankList interior = block(px, 1, px - 2, 1, py - 2);
  const RankList edges = RankList::subtract(RankList::subtract(all, corners), interior);

  const SiteId init = t.internSite("stencil.c:20");
  const SiteId allreduceSite = t.internSite("stencil.c:61");
  std::int64_t nextId = 0;
  // Events are referred to while later ones are added: no reallocation.
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
  auto p2p = [&](Event& e, Param peer, Rank offset) {
    e.setParam(Param::Comm, {{e.ranks, {kCommWorld}}});
    e.setParam(Param::Count, {{e.ranks, {4096}}});
    e.setParam(Param::Datatype, {{e.ranks, {10}}});
    e.setParam(peer, {{e.ranks, {(offset % P + P) % P}}}, true);
    e.setParam(Param::Tag, {{e.ranks, {0}}});
  };

  event(Op::Init, all, "stencil.c:20");
  const std::size_t firstBody = t.events.size();
  Event& recvN = event(Op::Irecv, hasNorth, "stencil.c:40");
  p2p(recvN, Param::Source, -px);
  Event& recvS = event(Op::Irecv, hasSouth, "stencil.c:41");
  p2p(recvS, Param::Source, px);
  Event& recvW = event(Op::Irecv, hasWest, "stencil.c:42");
  p2p(recvW, Param::Source, -1);
  Event& recvE = event(Op::Irecv, hasEast, "stencil.c:43");
  p2p(recvE, Param::Source, 1);
  Event& sendN = event(Op::Isend, hasNorth, "stencil.c:45");
  p2p(sendN, Param::Dest, -px);
  Event& sendS = event(Op::Isend, hasSouth, "stencil.c:46");
  p2p(sendS, Param::Dest, px);
  Event& sendW = event(Op::Isend, hasWest, "stencil.c:47");
  p2p(sendW, Param::Dest, -1);
  Event& sendE = event(Op::Isend, hasEast, "stencil.c:48");
  p2p(sendE, Param::Dest, 1);

  Event& waitall = event(Op::Waitall, all, "stencil.c:50");
  std::vector<ValueGroup> counts, requests;
  for (auto [group, neighbours] : {std::pair{corners, 2}, {edges, 3}, {interior, 4}}) {
    if (group.empty()) continue;
    std::vector<std::int64_t> offsets;
    for (std::int64_t k = 2 * neighbours; k >= 1; --k) offsets.push_back(kRequestRing - k);
    counts.push_back({group, {2 * neighbours}});
    requests.push_back({group, offsets});
  }
  waitall.setParam(Param::Count, counts);
  waitall.setParam(Param::Requests, requests);
  // Compute overlaps the messages: before the Waitall, after the rank's last Isend.
  for (Event* last : {&sendE, &sendW})
    waitall.stats.push_back({Phase::Compute, TimeUnit::Microseconds, last->site,
                             histogram(computeUs, timesteps * last->ranks.size(), 0), {}});

  Event& allreduce = event(Op::Allreduce, all, "stencil.c:61");
  allreduce.setParam(Param::Comm, {{all, {kCommWorld}}});
  allreduce.setParam(Param::Count, {{all, {1}}});
  allreduce.setParam(Param::Datatype, {{all, {10}}});
  allreduce.setParam(Param::ReduceOp, {{all, {*reduceOpFromName("MPI_SUM")}}});
  allreduce.stats.push_back({Phase::Compute, TimeUnit::Microseconds, waitall.site, histogram(2.0, timesteps * P, 0), {}});
  event(Op::Finalize, all, "stencil.c:70");

  // The timestep loop: headed by the first body event a rank executes (Irecv from the north,
  // or from the south on the first row); the body holds two events per neighbour plus the
  // Waitall and the Allreduce.
  Event& headN = t.events[firstBody];
  Event& headS = t.events[firstBody + 1];
  auto loopFor = [&](Event& head, const RankList& ranks) {
    LoopLevel lv;
    lv.iter.push_back({ranks, {timesteps}});
    for (auto [group, neighbours] : {std::pair{corners, 2}, {edges, 3}, {interior, 4}}) {
      RankList members = RankList::intersect(group, ranks);
      if (!members.empty()) lv.mem.push_back({members, {2 * neighbours + 2}});
    }
    head.loops.push_back(std::move(lv));
  };
  loopFor(headN, hasNorth);
  loopFor(headS, RankList::subtract(hasSouth, hasNorth));
  for (Event* head : {&headN, &headS}) {
    head->stats.push_back({Phase::Compute, TimeUnit::Microseconds, init, histogram(50.0, head->ranks.size(), 0), {}});
    head->stats.push_back({Phase::Compute, TimeUnit::Microseconds, allreduceSite,
                           histogram(1.0, (timesteps - 1) * head->ranks.size(), 0), {}});
  }
  return t;
}

}  // namespace tracegen
