// A synthetic clustered trace of a time-step ring code with a final wildcard gather, shaped as
// a clustering tracer writes one: one group for the whole time-step loop (its peers stored
// relative to the caller, so every rank shares them), a group of senders and rank 0 for the
// gather. Seven events whatever the rank count and the number of timesteps.
#include "bench/SyntheticGather.h"

#include <stdexcept>

#include "bench/SyntheticGrid.h"

namespace tracegen {

Trace makeGatherTrace(Rank ranks, std::int64_t timesteps) {
  if (ranks < 3) throw std::invalid_argument("the gather needs at least 3 ranks");
  Trace t;
  const Rank P = ranks;
  t.numRanks = P;
  t.origin = "synthetic-gather";
  t.comms = standardCommunicators(P);
  t.datatypes = {{10, "MPI_DOUBLE", 8}};
  const RankList all = RankList::all(P);
  const RankList workers = RankList::subtract(all, RankList::single(0));
  std::int64_t nextId = 0;
  auto event = [&](Op op, const RankList& on, std::string_view site) -> Event& {
    Event e;
    e.id = nextId++;
    e.op = op;
    e.ranks = on;
    e.site = t.internSite(site);
    t.events.push_back(std::move(e));
    return t.events.back();
  };
  auto message = [&](Event& e, std::int64_t count, std::int64_t tag) {
    e.setParam(Param::Comm, {{e.ranks, {kCommWorld}}});
    e.setParam(Param::Count, {{e.ranks, {count}}});
    e.setParam(Param::Datatype, {{e.ranks, {10}}});
    e.setParam(Param::Tag, {{e.ranks, {tag}}});
  };
  auto sendrecv = [&](std::string_view site, std::int64_t toOffset, std::int64_t tag) -> Event& {
    Event& e = event(Op::Sendrecv, all, site);
    message(e, 1000, tag);
    e.setParam(Param::Dest, {{all, {toOffset}}}, true);
    e.setParam(Param::Source, {{all, {P - toOffset}}}, true);
    e.setParam(Param::RecvCount, {{all, {1000}}});
    e.setParam(Param::RecvTag, {{all, {tag}}});
    return e;
  };

  t.events.reserve(7);  // the references below stay valid
  event(Op::Init, all, "ring.c:10");
  Event& right = sendrecv("ring.c:20", 1, 1);
  right.stats.push_back({Phase::Compute, TimeUnit::Microseconds, t.internSite("ring.c:30"),
                         synthetic::histogram(40.0, timesteps * P, 0), {}});
  sendrecv("ring.c:21", P - 1, 2);
  Event& allreduce = event(Op::Allreduce, all, "ring.c:30");
  allreduce.setParam(Param::Comm, {{all, {kCommWorld}}});
  allreduce.setParam(Param::Count, {{all, {1}}});
  allreduce.setParam(Param::Datatype, {{all, {10}}});
  allreduce.setParam(Param::ReduceOp, {{all, {*reduceOpFromName("MPI_SUM")}}});
  Event& result = event(Op::Send, workers, "ring.c:40");
  message(result, 100, 9);
  result.setParam(Param::Dest, {{workers, {0}}});
  Event& gather = event(Op::Recv, RankList::single(0), "ring.c:50");
  message(gather, 100, 9);
  gather.setParam(Param::Source, {{RankList::single(0), {kAnySource}}});
  gather.loops.push_back({{{RankList::single(0), {P - 1}}}, {{RankList::single(0), {1}}}});
  event(Op::Finalize, all, "ring.c:60");
  // The time-step loop: Sendrecv right, Sendrecv left, Allreduce, on every rank.
  right.loops.push_back({{{all, {timesteps}}}, {{all, {3}}}});
  return t;
}

}  // namespace tracegen
