#include "gen/ReceivedBytes.h"

#include <algorithm>
#include <deque>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "ir/RankCursor.h"
#include "ir/Periodic.h"

namespace tracegen::gen {

namespace {

constexpr std::int64_t kAnyTag = -1;

struct Run {  // `left` more sends of one shape, in send order
  std::int64_t tag = 0, bytes = 0, left = 0;
};
using PairKey = std::tuple<std::int64_t, Rank, Rank>;  // communicator, sender, receiver

bool isSend(OpKind k) { return k == OpKind::Send || k == OpKind::Isend || k == OpKind::Sendrecv; }
bool isReceive(OpKind k) {
  return k == OpKind::Recv || k == OpKind::Irecv || k == OpKind::Sendrecv || k == OpKind::MatchedRecv;
}

}  // namespace

ReceivedBytes matchReceivedBytes(const Trace& trace, std::int64_t callBudget) {
  ReceivedBytes out;
  if (trace.numRanks <= 0 || !expansionWithinBudget(trace, callBudget)) return out;
  const Rank P = trace.numRanks;
  auto inWorld = [&](Rank r) { return r >= 0 && r < P; };

  std::map<PairKey, std::deque<Run>> sends;
  for (Rank r = 0; r < P; ++r) {
    RankCursor cursor(trace, r);
    Call c;
    while (cursor.next(c)) {
      // Persistent sends started (their receives keep the size they post).
      for (const StartedRequest& p : c.started) {
        if (!p.send || !inWorld(p.peer)) continue;
        auto& q = sends[{p.comm, r, p.peer}];
        if (!q.empty() && q.back().tag == p.tag && q.back().bytes == p.bytes)
          ++q.back().left;
        else
          q.push_back({p.tag, p.bytes, 1});
      }
      if (!isSend(opInfo(c.op).kind) || !inWorld(c.peer)) continue;
      auto& q = sends[{c.comm, r, c.peer}];
      if (!q.empty() && q.back().tag == c.tag && q.back().bytes == c.bytes)
        ++q.back().left;
      else
        q.push_back({c.tag, c.bytes, 1});
    }
  }

  struct Seen {
    std::map<std::vector<std::int64_t>, std::vector<Rank>> classes;  // received sizes -> ranks
    bool differs = false;  // some execution receives other than it posted
  };
  std::unordered_map<const Event*, Seen> seen;
  for (Rank r = 0; r < P; ++r) {
    std::unordered_map<const Event*, std::vector<std::int64_t>> mine;
    RankCursor cursor(trace, r);
    Call c;
    while (cursor.next(c)) {
      const OpKind kind = opInfo(c.op).kind;
      if (!isReceive(kind)) continue;
      const Rank source = kind == OpKind::Sendrecv ? c.recvPeer : c.peer;
      const std::int64_t tag = kind == OpKind::Sendrecv ? c.recvTag : c.tag;
      std::int64_t got = c.recvBytes;  // MPI_PROC_NULL, or a send the trace lacks: as posted
      if (inWorld(source)) {
        auto it = sends.find({c.comm, source, r});
        if (it != sends.end()) {
          auto& q = it->second;
          auto run = std::find_if(q.begin(), q.end(), [&](const Run& x) { return tag == kAnyTag || x.tag == tag; });
          if (run != q.end()) {
            got = run->bytes;
            if (--run->left == 0) q.erase(run);
          }
        }
      }
      if (got != c.recvBytes) seen[c.event].differs = true;
      mine[c.event].push_back(got);
    }
    for (auto& [event, values] : mine) {
      values.resize(shortestPeriod(values));
      seen[event].classes[values].push_back(r);
    }
  }

  for (auto& [event, s] : seen) {
    if (!s.differs) continue;
    ParamValues pv;
    pv.param = Param::Count;  // in bytes
    Rank covered = 0;
    for (auto& [values, ranks] : s.classes) {
      covered += static_cast<Rank>(ranks.size());
      pv.groups.push_back({RankList::fromSorted(ranks), values});
    }
    // A rank that holds the event but never reaches it (a loop of zero trips) has no value:
    // the posted sizes stand, as for a trace too large to match.
    if (covered != event->ranks.size()) continue;
    std::sort(pv.groups.begin(), pv.groups.end(),
              [](const ValueGroup& a, const ValueGroup& b) { return *a.ranks.first() < *b.ranks.first(); });
    out.byEvent.emplace(event, std::move(pv));
  }
  for (const auto& [key, q] : sends)
    for (const Run& run : q) {
      if (out.unreceived == 0) {
        const auto& [comm, from, to] = key;
        out.firstUnreceived = fmt::format("rank {} to rank {}{}, tag {}, {} bytes", from, to,
                                          comm == kCommWorld ? "" : fmt::format(" on communicator {}", comm), run.tag,
                                          run.bytes);
      }
      out.unreceived += run.left;
    }
  out.matched = true;
  return out;
}

}  // namespace tracegen::gen
