// Helpers for the recorder's unit tests (tests/unit/Record*Test.cpp): a simulated rank that
// feeds calls to a LoopCompressor the way the PMPI wrappers do, and the per-rank expansion of a
// trace into comparable lines.
#pragma once

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/RankCursor.h"
#include "record/Clustering.h"
#include "record/LoopCompressor.h"

namespace tracegen::record::test {

// One simulated rank: calls go through a LoopCompressor with call-site indices and
// predecessor-keyed timings, as Recorder does.
class SimRank {
 public:
  SimRank(Rank rank, Rank size, std::size_t window = 256, bool direct = true)
      : rank_(rank), size_(size), lc_(window, direct) {}

  void call(Op op, const std::string& site, const std::vector<std::pair<Param, std::int64_t>>& scalars = {},
            const std::vector<std::pair<Param, std::vector<std::int64_t>>>& vectors = {}, double computeUs = 1.0,
            double mpiUs = 2.0) {
    CallRecord c;
    c.op = op;
    c.site = intern(site);
    for (const auto& [p, v] : scalars) c.set(p, v);
    for (const auto& [p, v] : vectors) c.setVector(p, v.data(), v.size());
    c.prevSite = prev_;
    if (op != Op::Init) {
      c.computeUs = computeUs;
      if (op != Op::Finalize) c.mpiUs = mpiUs;
    }
    lc_.append(c);
    prev_ = c.site;
  }
  // Convenience: a point-to-point call on MPI_COMM_WORLD with MPI_DOUBLE (datatype id 10).
  void p2p(Op op, const std::string& site, std::int64_t peer, std::int64_t count, std::int64_t tag = 0) {
    const Param peerParam = (op == Op::Recv || op == Op::Irecv) ? Param::Source : Param::Dest;
    call(op, site, {{Param::Comm, kCommWorld}, {Param::Count, count}, {Param::Datatype, 10}, {peerParam, peer}, {Param::Tag, tag}});
  }

  Trace trace() const {
    Trace t = lc_.toTrace(rank_, size_, sites_);
    t.datatypes = {{10, "MPI_DOUBLE", 8}, {1000, "type1000", 24}};
    return t;
  }
  RankInput input() const { return RankInput{trace(), comms, 0}; }
  LoopCompressor& compressor() const { return lc_; }
  Rank rank() const { return rank_; }

  std::vector<CommEntry> comms;

 private:
  std::uint32_t intern(const std::string& s) {
    auto [it, inserted] = index_.try_emplace(s, static_cast<std::uint32_t>(sites_.size()));
    if (inserted) sites_.push_back(s);
    return it->second;
  }
  Rank rank_, size_;
  mutable LoopCompressor lc_;  // reading it appends a staged iteration first (LoopCompressor::flush)
  std::vector<std::string> sites_;
  std::map<std::string, std::uint32_t> index_;
  std::int64_t prev_ = -1;
};

// Rank r's calls in `t`, one line each: operation, site and every resolved parameter (peers as
// world ranks, sizes in bytes), so that two traces can be compared call by call.
inline std::vector<std::string> expand(const Trace& t, Rank r) {
  std::vector<std::string> out;
  RankCursor c(t, r);
  Call call;
  while (c.next(call)) {
    std::string vec;
    for (auto v : call.vec) vec += fmt::format("{},", v);
    std::string done;
    for (auto v : call.completes) done += fmt::format("{},", v);
    out.push_back(fmt::format("{} @{} comm={} peer={} recvpeer={} root={} count={} bytes={} recvbytes={} tag={} recvtag={} "
                              "op={} vec=[{}] completes=[{}]",
                              opName(call.op), t.siteName(call.event->site), call.comm, call.peer, call.recvPeer,
                              call.root, call.count, call.bytes, call.recvBytes, call.tag, call.recvTag, call.reduceOp,
                              vec, done));
  }
  return out;
}

}  // namespace tracegen::record::test
