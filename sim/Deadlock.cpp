// The communication simulator's reports of a run that does not complete.
//
// Algorithm. A run that ends with ranks blocked is a potential deadlock (DeadlockError): each
// blocked rank with the event, operation and call site it waits in and the peer it waits for,
// and a cycle of the wait-for graph (Boost.Graph depth-first search, first back edge): an edge
// from a blocked rank to every rank that could release it (the sender of a receive, every
// unfinished member of the communicator for a wildcard, the receiver of a synchronous send,
// the members that have not reached a collective). A run in which every rank finishes but
// receives stay pending reports the unmatched receives; messages sent that no receive took are
// listed for a warning (unreceivedText). At most kMaxListedRanks ranks or messages are listed.
#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/depth_first_search.hpp>

#include "sim/Deadlock.h"
#include "sim/Simulation.h"

namespace tracegen::sim {

namespace {

constexpr std::size_t kMaxListedRanks = 16;

// Finds a cycle of the wait-for graph: the first back edge of a depth-first search closes one.
std::vector<Rank> findCycle(Rank numRanks, const std::vector<std::pair<Rank, Rank>>& edges) {
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  using Edge = boost::graph_traits<Graph>::edge_descriptor;
  Graph g(static_cast<std::size_t>(numRanks));
  for (const auto& [u, v] : edges) boost::add_edge(static_cast<Vertex>(u), static_cast<Vertex>(v), g);
  struct Recorder : boost::default_dfs_visitor {
    std::vector<Vertex>* parent;
    std::optional<std::pair<Vertex, Vertex>>* back;
    void tree_edge(Edge e, const Graph& gr) const { (*parent)[boost::target(e, gr)] = boost::source(e, gr); }
    void back_edge(Edge e, const Graph& gr) const {
      if (!*back) *back = std::pair{boost::source(e, gr), boost::target(e, gr)};
    }
  };
  std::vector<Vertex> parent(static_cast<std::size_t>(numRanks));
  std::optional<std::pair<Vertex, Vertex>> back;
  Recorder rec;
  rec.parent = &parent;
  rec.back = &back;
  boost::depth_first_search(g, boost::visitor(rec));
  if (!back) return {};
  // The back edge u -> v closes v -> ... -> u along the tree.
  std::vector<Rank> cycle;
  for (Vertex x = back->first;; x = parent[x]) {
    cycle.push_back(static_cast<Rank>(x));
    if (x == back->second) break;
  }
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  cycle.push_back(cycle.front());
  return cycle;
}

}  // namespace

std::string Simulation::fromText(Rank source) const {
  if (source == kAnySource) return "any rank";
  return fmt::format("rank {}{}", source, state(source).finished ? ", which has finished" : "");
}

// Ranks a wildcard receive may still hear from: the unfinished members of its communicator.
void Simulation::wildcardPeers(const Receive& R, std::set<Rank>& out) {
  members(R.key).forEach([&](Rank m) {
    if (m != R.rank && !state(m).finished) out.insert(m);
    return true;
  });
}

// What a blocked rank waits for, and the ranks that could release it.
std::string Simulation::waitText(Rank r, std::set<Rank>& waitsFor) {
  RankState& s = state(r);
  const Call& c = s.call;
  auto recvText = [&](const Receive& R) {
    if (R.source == kAnySource) wildcardPeers(R, waitsFor);
    else waitsFor.insert(R.source);
    return fmt::format("a message from {}", fromText(R.source));
  };
  switch (opInfo(c.op).kind) {
    case OpKind::Send: {
      const Rank to = msgs_[s.msg].receiver;
      waitsFor.insert(to);
      return fmt::format("for {} to receive its synchronous send", fromText(to));
    }
    case OpKind::Recv:
    case OpKind::Sendrecv:
      return "for " + recvText(recvs_[s.recv]);
    case OpKind::Probe:
    case OpKind::MatchedProbe: {
      if (c.peer == kAnySource) {
        members(keyFor(r, c)).forEach([&](Rank m) {
          if (m != r && !state(m).finished) waitsFor.insert(m);
          return true;
        });
      } else {
        waitsFor.insert(c.peer);
      }
      return fmt::format("for a message to probe from {}", fromText(c.peer));
    }
    case OpKind::Wait:
    case OpKind::WaitAll: {
      std::string out;
      for (auto idx : c.completes) {
        auto it = idx < 0 ? s.requests.end() : s.requests.find(idx);
        if (it == s.requests.end() || requestDone(it->second)) continue;
        const Event& e = *it->second.event;
        out += out.empty() ? "for " : " and ";
        if (it->second.kind == ReqKind::Recv) {
          out += fmt::format("the receive of event {} ({}), {}", e.id, opName(e.op), recvText(recvs_[it->second.id]));
        } else if (it->second.kind == ReqKind::Collective) {
          std::vector<Rank> missing;
          members(it->second.collKey).forEach([&](Rank m) {
            auto jt = state(m).collectives.find(it->second.collKey);
            if (jt == state(m).collectives.end() || jt->second <= it->second.collIndex) {
              missing.push_back(m);
              waitsFor.insert(m);
            }
            return true;
          });
          out += fmt::format("rank{} {} to start the collective of event {} ({}, number {} on communicator {})",
                             missing.size() == 1 ? "" : "s", RankList::fromSorted(missing).pretty(), e.id,
                             opName(e.op), it->second.collIndex + 1, it->second.collKey.id);
        } else {
          const Rank to = msgs_[it->second.id].receiver;
          waitsFor.insert(to);
          out += fmt::format("{} to receive the synchronous send of event {} ({})", fromText(to), e.id, opName(e.op));
        }
      }
      return out;
    }
    default: {  // collectives
      std::vector<Rank> missing;
      members(s.collKey).forEach([&](Rank m) {
        auto it = state(m).collectives.find(s.collKey);
        if (it == state(m).collectives.end() || it->second <= s.collIndex) {
          missing.push_back(m);
          waitsFor.insert(m);
        }
        return true;
      });
      return fmt::format("for rank{} {} to reach the same collective (number {} on communicator {})",
                         missing.size() == 1 ? "" : "s", RankList::fromSorted(missing).pretty(), s.collIndex + 1,
                         s.collKey.id);
    }
  }
}

std::string Simulation::whereText(Rank r) const {
  const Call& c = state(r).call;
  return fmt::format("event {} ({} at {}, call {})", c.event->id, opName(c.op), trace_.siteLabel(c.event->site), c.index);
}

void Simulation::deadlockReport() {
  failure_ = Failure{};
  std::vector<std::pair<Rank, Rank>> edges;
  std::vector<std::string> lines;
  for (Rank r = 0; r < trace_.numRanks; ++r) {
    if (state(r).finished) continue;
    std::set<Rank> waitsFor;
    std::string line = fmt::format("rank {} waits in {} {}", r, whereText(r), waitText(r, waitsFor));
    for (Rank w : waitsFor) edges.emplace_back(r, w);
    failure_.blocked.push_back(r);
    if (lines.empty()) {
      failure_.firstBlocked = line;
      failure_.line = state(r).call.event->line;
    }
    if (lines.size() < kMaxListedRanks) lines.push_back(std::move(line));
  }
  failure_.cycle = findCycle(trace_.numRanks, edges);
  std::string msg = fmt::format("potential deadlock: {} of {} ranks cannot progress", failure_.blocked.size(), trace_.numRanks);
  for (const auto& l : lines) msg += "\n  " + l;
  if (failure_.blocked.size() > lines.size())
    msg += fmt::format("\n  ... and {} more blocked ranks", failure_.blocked.size() - lines.size());
  if (failure_.cycle.empty()) {
    msg += "\n  no wait-for cycle: the blocked ranks wait for ranks that have finished";
  } else {
    msg += "\n  cycle: ";
    for (std::size_t i = 0; i < failure_.cycle.size(); ++i)
      msg += fmt::format("{}rank {}", i ? " -> " : "", failure_.cycle[i]);
  }
  failure_.message = std::move(msg);
}

bool Simulation::unmatchedReport() {
  std::vector<std::string> lines;
  std::size_t count = 0;
  int firstLine = 0;
  for (Rank r = 0; r < trace_.numRanks; ++r)
    for (const auto& [key, box] : state(r).boxes)
      for (std::size_t id : box.pending) {
        const Receive& R = recvs_[id];
        if (count == 0) firstLine = R.event->line;
        if (++count <= kMaxListedRanks)
          lines.push_back(fmt::format("rank {} in event {} ({} at {}, call {}) from {}", r, R.event->id,
                                      opName(R.event->op), trace_.siteLabel(R.event->site), R.callIndex,
                                      R.source == kAnySource ? "any rank" : fmt::format("rank {}", R.source)));
      }
  if (count == 0) return false;
  failure_ = Failure{};
  failure_.deadlock = false;
  std::string msg = fmt::format("unmatched receives: every rank finishes but {} receive{} never match:", count,
                                count == 1 ? "" : "s");
  for (const auto& l : lines) msg += "\n  " + l;
  if (count > lines.size()) msg += fmt::format("\n  ... and {} more", count - lines.size());
  failure_.firstBlocked = lines.front();
  failure_.line = firstLine;
  failure_.message = std::move(msg);
  return true;
}

std::vector<std::string> Simulation::unreceivedMessages(std::size_t& count, int& firstLine) const {
  std::vector<std::string> lines;
  count = 0;
  for (const auto& m : msgs_) {
    if (m.matched) continue;
    if (count == 0) firstLine = m.line;
    if (++count <= kMaxListedRanks)
      lines.push_back(fmt::format("rank {} to rank {} on communicator {} (tag {})", m.sender, m.receiver, m.key.id, m.tag));
  }
  return lines;
}

// What a completed run left unreceived, as one message (empty if nothing).
// `line`: the input line of the first such message's send.
std::string unreceivedText(const Simulation& sim, int& line) {
  std::size_t count = 0;
  auto lines = sim.unreceivedMessages(count, line);
  if (count == 0) return {};
  std::string msg = fmt::format("{} message{} sent but never received:", count, count == 1 ? "" : "s");
  for (const auto& l : lines) msg += "\n  " + l;
  if (count > lines.size()) msg += fmt::format("\n  ... and {} more", count - lines.size());
  return msg;
}

}  // namespace tracegen::sim
