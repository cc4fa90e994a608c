#include "gen/ReceivedBytes.h"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "ir/Checked.h"
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

// The distinct values parameter `p` takes on the event's ranks; `absent` among them where
// a rank has none (RankCursor's default for a missing parameter).
std::vector<std::int64_t> distinctValues(const Event& e, Param p, std::int64_t absent) {
  const ParamValues* pv = e.param(p);
  std::vector<std::int64_t> out;
  Rank covered = 0;
  if (pv)
    for (const ValueGroup& g : pv->groups) {
      out.insert(out.end(), g.values.begin(), g.values.end());
      covered += g.ranks.size();
    }
  if (covered < e.ranks.size()) out.push_back(absent);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

// Beyond this many combinations of distinct values, or this many comparisons of a receive's
// group with a send's, the trace is left to the walk.
constexpr std::size_t kMaxCombinations = 4096;
constexpr std::int64_t kMaxComparisons = 1'000'000;

// The sizes `counts` x the event's datatype values can take: nullopt beyond kMaxCombinations
// or where a product overflows (the walk reports that at its event).
std::optional<std::set<std::int64_t>> sizesOf(const Trace& trace, const std::vector<std::int64_t>& counts,
                                              const std::vector<std::int64_t>& types) {
  if (counts.size() * types.size() > kMaxCombinations) return std::nullopt;
  std::set<std::int64_t> out;
  for (std::int64_t t : types) {
    const Datatype* d = trace.datatype(t);
    for (std::int64_t c : counts) {
      const auto b = checkedMul(c, d ? d->size : 0);
      if (!b) return std::nullopt;
      out.insert(*b);
    }
  }
  return out;
}

// The ranks of `peers`' groups with the count values of `counts`' groups they meet: the peer
// list and the counts of each piece (the events' count groups need not be their peer groups).
struct PeerPiece {
  RankList ranks;
  const std::vector<std::int64_t>* peers;
  std::vector<std::int64_t> counts;
};
std::vector<PeerPiece> peerPieces(const Event& e, Param peerParam, Param countParam) {
  std::vector<PeerPiece> out;
  const ParamValues* peers = e.param(peerParam);
  const ParamValues* counts = e.param(countParam);
  if (!peers) return out;
  for (const ValueGroup& g : peers->groups) {
    if (!counts) {
      out.push_back({g.ranks, &g.values, {0}});
      continue;
    }
    RankList rest = g.ranks;
    for (const ValueGroup& c : counts->groups)
      if (g.ranks.intersects(c.ranks)) {
        std::vector<std::int64_t> values = c.values;
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        out.push_back({RankList::intersect(g.ranks, c.ranks), &g.values, std::move(values)});
        rest = RankList::subtract(rest, c.ranks);
      }
    if (rest.size() > 0) out.push_back({std::move(rest), &g.values, {0}});  // no count: RankCursor's 0
  }
  return out;
}

}  // namespace

bool sizesFollowPosts(const Trace& trace) {
  const Rank P = trace.numRanks;
  if (P <= 0) return false;
  // What may reach whom: per (communicator, tag), the sends of a piece of ranks to one peer
  // (an offset or a rank) with the sizes they may have.
  struct Channel {
    RankList senders;
    bool relative;
    std::int64_t peer;
    std::set<std::int64_t> sizes;
  };
  std::map<std::pair<std::int64_t, std::int64_t>, std::vector<Channel>> channels;
  std::map<std::int64_t, std::set<std::int64_t>> tagsOn;  // communicator -> tags sent on it
  for (const Event& e : trace.events) {
    const OpKind kind = opInfo(e.op).kind;
    // Requests started later, and receives of a probed message, take a message the event
    // does not name: the walk follows them.
    if (kind == OpKind::SendInit || kind == OpKind::RecvInit || kind == OpKind::Start ||
        kind == OpKind::MatchedProbe || kind == OpKind::MatchedRecv)
      return false;
    if (!isSend(kind)) continue;
    const auto comms = distinctValues(e, Param::Comm, kCommWorld), tags = distinctValues(e, Param::Tag, 0);
    const auto types = distinctValues(e, Param::Datatype, 0);
    if (!trace.worldPeers && comms != std::vector<std::int64_t>{kCommWorld}) return false;
    if (comms.size() * tags.size() > kMaxCombinations) return false;
    const ParamValues* dest = e.param(Param::Dest);
    if (!dest) return false;
    for (const PeerPiece& piece : peerPieces(e, Param::Dest, Param::Count)) {
      const auto sizes = sizesOf(trace, piece.counts, types);
      if (!sizes) return false;
      std::vector<std::int64_t> peers = *piece.peers;
      std::sort(peers.begin(), peers.end());
      peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
      for (std::int64_t v : peers) {
        if (v == kProcNull) continue;  // moves nothing
        if (v == kAnySource || v < 0 || v >= P) return false;
        const bool relative = dest->relative;
        for (std::int64_t c : comms)
          for (std::int64_t t : tags) {
            auto& list = channels[{c, t}];
            if (list.size() >= kMaxCombinations) return false;
            list.push_back({piece.ranks, relative, v, *sizes});
            tagsOn[c].insert(t);
          }
      }
    }
  }
  std::int64_t comparisons = 0;
  for (const Event& e : trace.events) {
    const OpKind kind = opInfo(e.op).kind;
    if (kind != OpKind::Recv && kind != OpKind::Irecv && kind != OpKind::Sendrecv) continue;
    // What the receive posts (RankCursor::emit): count x datatype, a Sendrecv's recvcount x
    // recvtype where it has them.
    const bool ownRecvCount = kind == OpKind::Sendrecv && e.op != Op::SendrecvReplace && e.param(Param::RecvCount);
    if (ownRecvCount && distinctValues(e, Param::RecvCount, -1).front() < 0) return false;  // either size
    const auto types = ownRecvCount ? distinctValues(e, Param::RecvType, -1) : distinctValues(e, Param::Datatype, 0);
    const auto comms = distinctValues(e, Param::Comm, kCommWorld);
    const auto tags = kind == OpKind::Sendrecv && e.param(Param::RecvTag) ? distinctValues(e, Param::RecvTag, 0)
                                                                         : distinctValues(e, Param::Tag, 0);
    if (!trace.worldPeers && comms != std::vector<std::int64_t>{kCommWorld}) return false;
    if (comms.size() * tags.size() > kMaxCombinations) return false;
    const ParamValues* source = e.param(Param::Source);
    if (!source) return false;
    for (const PeerPiece& piece : peerPieces(e, Param::Source, ownRecvCount ? Param::RecvCount : Param::Count)) {
      const auto posted = sizesOf(trace, piece.counts, types);
      if (!posted || posted->size() != 1) return false;
      const std::int64_t size = *posted->begin();
      for (std::int64_t s : *piece.peers) {
        if (s == kProcNull) continue;  // receives nothing
        if (s == kAnySource || s < 0 || s >= P) return false;
        for (std::int64_t c : comms)
          for (std::int64_t t : tags) {
            std::set<std::int64_t> sentTags{t};
            if (t == kAnyTag) sentTags = tagsOn[c];
            for (std::int64_t st : sentTags) {
              auto it = channels.find({c, st});
              if (it == channels.end()) continue;
              for (const Channel& ch : it->second) {
                if (++comparisons > kMaxComparisons) return false;
                if (ch.sizes.size() == 1 && *ch.sizes.begin() == size) continue;  // whoever it reaches
                // Whether a send of the channel can reach a rank of the piece from its source.
                bool reaches = false;
                if (ch.relative && source->relative) {
                  reaches = (ch.peer + s) % P == 0 && ch.senders.shifted(ch.peer, P).intersects(piece.ranks);
                } else if (ch.relative) {  // from rank s to the piece
                  reaches = ch.senders.contains(s) && piece.ranks.contains((s + ch.peer) % P);
                } else if (source->relative) {  // to rank ch.peer, from ch.peer + s
                  reaches = piece.ranks.contains(ch.peer) && ch.senders.contains((ch.peer + s) % P);
                } else {
                  reaches = ch.peer >= 0 && piece.ranks.contains(ch.peer) && ch.senders.contains(s);
                }
                if (reaches) return false;
              }
            }
          }
      }
    }
  }
  return true;
}

ReceivedBytes matchReceivedBytes(const Trace& trace, std::int64_t callBudget, bool everySendReceived,
                                 bool receivesTakeWhatTheyPost) {
  ReceivedBytes out;
  if (trace.numRanks <= 0) return out;
  // Every message is received, and every receive gets the size it posts: nothing to walk (and
  // no size limit).
  if (everySendReceived && (receivesTakeWhatTheyPost || sizesFollowPosts(trace))) {
    out.matched = true;
    return out;
  }
  if (!expansionWithinBudget(trace, callBudget)) return out;
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
