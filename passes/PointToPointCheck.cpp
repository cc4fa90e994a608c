// Point-to-point balance: every rank's expanded calls are tallied per (communicator, sender,
// receiver); after wildcard resolution a send without a receive (or the reverse) is a trace
// that no benchmark can replay without hanging or leaving a message behind. Sends to and
// receives from MPI_PROC_NULL have no partner and are not tallied.
#include "passes/PointToPointCheck.h"

#include <fmt/format.h>

#include <compare>
#include <map>
#include <set>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"

namespace tracegen {

namespace {

struct PairKey {
  std::int64_t comm = 0;
  Rank from = 0, to = 0;
  auto operator<=>(const PairKey&) const = default;
};

struct Tally {
  std::int64_t sends = 0, recvs = 0;
  const Event* sendEvent = nullptr;  // the first of each, to point at
  const Event* recvEvent = nullptr;
};

std::string eventText(const Event& e) { return fmt::format("event {}, {}", e.id, opName(e.op)); }

}  // namespace

void verifyPointToPoint(const Trace& trace, const std::string& fileName) {
  const Rank P = trace.numRanks;
  std::map<PairKey, Tally> tallies;
  std::set<std::pair<std::int64_t, Rank>> wildcardReceivers;  // (communicator, rank)
  for (Rank r = 0; r < P; ++r) {
    RankCursor cursor(trace, r, fileName);
    Call c;
    while (cursor.next(c)) {
      const OpKind kind = opInfo(c.op).kind;
      const Event& e = *c.event;
      // Persistent requests started: each an MPI_Isend or MPI_Irecv of its init call.
      if (kind == OpKind::Start) {
        for (const StartedRequest& p : c.started) {
          if (p.peer == kProcNull) continue;
          // A persistent receive from MPI_ANY_SOURCE keeps its wildcard (one source serves all
          // its starts): what reaches its rank on that communicator is not balanced by pair.
          if (!p.send && p.peer == kAnySource) {
            wildcardReceivers.insert({p.comm, r});
            continue;
          }
          if (!p.peerIsWorld || p.peer < 0 || p.peer >= P)
            throw InputError(fileName, e.line,
                             fmt::format("event {} ({}): rank {} starts a persistent {} with peer {} outside MPI_COMM_WORLD",
                                         e.id, opName(e.op), r, p.send ? "send" : "receive", p.peer));
          Tally& t = p.send ? tallies[PairKey{p.comm, r, p.peer}] : tallies[PairKey{p.comm, p.peer, r}];
          if (p.send ? t.sends++ == 0 : t.recvs++ == 0) (p.send ? t.sendEvent : t.recvEvent) = &e;
        }
        continue;
      }
      // A matched receive takes the message its probe found, from the probe's source.
      if (kind == OpKind::MatchedRecv) {
        if (c.peer == kProcNull || c.probe < 0) continue;
        if (c.peer == kAnySource) {
          wildcardReceivers.insert({c.comm, r});
          continue;
        }
        if (!c.peerIsWorld || c.peer < 0 || c.peer >= P)
          throw InputError(fileName, e.line,
                           fmt::format("event {} ({}): rank {} receives a probed message from {}, outside MPI_COMM_WORLD",
                                       e.id, opName(e.op), r, c.peer));
        Tally& t = tallies[PairKey{c.comm, c.peer, r}];
        if (t.recvs++ == 0) t.recvEvent = &e;
        continue;
      }
      if (!isPointToPoint(kind)) continue;
      auto checkPeer = [&](Rank peer, const char* role) {
        if (!c.peerIsWorld)
          throw InputError(fileName, e.line,
                           fmt::format("event {} ({}): rank {} has a {} on communicator {}, which the trace does not describe",
                                       e.id, opName(e.op), r, role, c.comm));
        if (peer < 0 || peer >= P)
          throw InputError(fileName, e.line,
                           fmt::format("event {} ({}): rank {} has {} {}, outside MPI_COMM_WORLD of {} ranks", e.id,
                                       opName(e.op), r, role, peer, P));
      };
      // MPI_PROC_NULL completes at once without a partner: nothing to balance.
      if ((kind == OpKind::Send || kind == OpKind::Isend || kind == OpKind::Sendrecv) && c.peer != kProcNull) {
        checkPeer(c.peer, "destination");
        Tally& t = tallies[{c.comm, r, c.peer}];
        if (t.sends++ == 0) t.sendEvent = &e;
      }
      if (kind == OpKind::Recv || kind == OpKind::Irecv || kind == OpKind::Sendrecv) {
        const Rank source = kind == OpKind::Sendrecv ? c.recvPeer : c.peer;
        if (source == kAnySource)
          throw InputError(fileName, e.line,
                           fmt::format("event {} ({}): rank {} still receives from MPI_ANY_SOURCE (call {}); "
                                       "resolve-wildcards should have given it a sender",
                                       e.id, opName(e.op), r, c.index));
        if (source == kProcNull) continue;
        checkPeer(source, "source");
        Tally& t = tallies[{c.comm, source, r}];
        if (t.recvs++ == 0) t.recvEvent = &e;
      }
    }
  }
  std::size_t unbalanced = 0;
  const PairKey* firstKey = nullptr;
  for (const auto& [key, t] : tallies)
    if (t.sends != t.recvs && !wildcardReceivers.count({key.comm, key.to}) && unbalanced++ == 0)
      firstKey = &key;
  if (!firstKey) return;
  const Tally& t = tallies.at(*firstKey);
  const auto [comm, from, to] = *firstKey;
  const std::string sends = t.sends == 0 ? fmt::format("rank {} sends nothing to rank {}", from, to)
                                         : fmt::format("rank {} sends {} message{} to rank {} (first in {})", from,
                                                       t.sends, t.sends == 1 ? "" : "s", to, eventText(*t.sendEvent));
  const std::string recvs = t.recvs == 0 ? fmt::format("rank {} posts no receive from rank {}", to, from)
                                         : fmt::format("rank {} posts {} receive{} from rank {} (first in {})", to,
                                                       t.recvs, t.recvs == 1 ? "" : "s", from, eventText(*t.recvEvent));
  // Point at the side with the operations that have no partner.
  const Event& at = t.sends > t.recvs ? *t.sendEvent : *t.recvEvent;
  std::string more = unbalanced > 1 ? fmt::format(" ({} more unbalanced sender-receiver pairs)", unbalanced - 1) : "";
  throw InputError(fileName, at.line,
                   fmt::format("unmatched point-to-point operations on communicator {}: {}, but {}{}", comm, sends, recvs, more));
}

}  // namespace tracegen
