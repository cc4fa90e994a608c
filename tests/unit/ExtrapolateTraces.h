// Hand-written traces for the extrapolation tests (ExtrapolateTest, ScaleFreeTest,
// ScaleFreeNcptlTest): the same application at several rank counts.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <map>
#include <vector>
#include <string>

#include "extrap/Extrapolate.h"
#include "io/Readers.h"

namespace tracegen::extrap::traces {

// A ring: every rank sends `count` ints to rank+1 and receives them from rank-1 (MPI_Sendrecv,
// P-1 steps, tag = step); `extra` is text inserted before the MPI_Finalize event.
inline std::string ringText(Rank p, std::int64_t count, const std::string& extra = "") {
  std::string tags;
  for (Rank s = 0; s + 1 < p; ++s) tags += fmt::format(" {}", s);
  return fmt::format(
      "tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_INT 4\n"
      "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n  site ring.c:10\n"
      "event 1 MPI_Sendrecv @ <1 0 {{{0} 1}}>\n  site ring.c:20\n  loop 0 iter {1}\n  loop 0 mem 1\n"
      "  comm 2\n  count {2}\n  datatype MPI_INT\n  recvcount {2}\n  recvtype MPI_INT\n  dest rel 1\n  source rel {1}\n"
      "  tag{3}\n  recvtag{3}\n"
      "{4}"
      "event 2 MPI_Finalize @ <1 0 {{{0} 1}}>\n  site ring.c:30\n",
      p, p - 1, count, tags, extra);
}

// NPB CG's exchanges at p = 2^n ranks on its px x py grid (px = py or 2 * py, x fastest): a row
// sum of log2(px) steps, each an MPI_Irecv and MPI_Send with rank XOR 2^k, tag k+1 and 1024/py
// doubles, and MPI_Wait; then the transpose exchange of 1024/px doubles with (h*y + x mod h,
// x div h), h = px/py. Peers are written rank by rank as the recorder clusters them (one group
// per list), computed here independently of the relations under test. `transposed`: the
// elements the transpose exchanges over px ranks.
inline std::string cgText(Rank p, Rank transposed = 1024) {
  int n = 0;
  while ((Rank{1} << n) < p) ++n;
  const Rank py = Rank{1} << (n / 2), px = p / py;
  int steps = 0;
  while ((Rank{1} << steps) < px) ++steps;
  auto rel = [&](Rank r, Rank peer) { return ((peer - r) % p + p) % p; };
  // "<param> rel <values> @ <ranks>" lines, one per distinct list of relative peers.
  auto groups = [&](const std::string& param, auto listOf) {
    std::map<std::string, std::vector<Rank>> by;
    for (Rank r = 0; r < p; ++r) by[listOf(r)].push_back(r);
    std::string out;
    for (const auto& [values, ranks] : by) out += fmt::format("  {} rel{} @ {}\n", param, values, RankList::fromSorted(ranks).str());
    return out;
  };
  auto xorList = [&](Rank r) {
    std::string v;
    for (int k = 0; k < steps; ++k) v += fmt::format(" {}", rel(r, r ^ (Rank{1} << k)));
    return v;
  };
  auto transposeOf = [&](Rank r) {
    const Rank h = px / py, x = r % px, y = r / px;
    return fmt::format(" {}", rel(r, (h * y + x % h) + px * (x / h)));
  };
  std::string tags;
  for (int k = 1; k <= steps; ++k) tags += fmt::format(" {}", k);
  const std::string all = RankList::all(p).str();
  return fmt::format("tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
                     "event 0 MPI_Init @ {1}\n  site cg.c:10\n"
                     "event 1 MPI_Irecv @ {1}\n  site cg.c:20\n  loop 0 iter {2}\n  loop 0 mem 3\n  comm 2\n"
                     "  count {3}\n  datatype MPI_DOUBLE\n{4}  tag{5}\n"
                     "event 2 MPI_Send @ {1}\n  site cg.c:21\n  comm 2\n  count {3}\n  datatype MPI_DOUBLE\n{6}  tag{5}\n"
                     "event 3 MPI_Wait @ {1}\n  site cg.c:22\n  request 9999\n"
                     "event 4 MPI_Irecv @ {1}\n  site cg.c:30\n  comm 2\n  count {7}\n  datatype MPI_DOUBLE\n{8}  tag 100\n"
                     "event 5 MPI_Send @ {1}\n  site cg.c:31\n  comm 2\n  count {7}\n  datatype MPI_DOUBLE\n{9}  tag 100\n"
                     "event 6 MPI_Wait @ {1}\n  site cg.c:32\n  request 9999\n"
                     "event 7 MPI_Finalize @ {1}\n  site cg.c:40\n",
                     p, all, steps, 1024 / py, groups("source", xorList), tags, groups("dest", xorList), transposed / px,
                     groups("source", transposeOf), groups("dest", transposeOf));
}

// A pipelined line solve of NPB BT/SP on a q x q grid (P = q^2, x fastest), `points` points
// split over the q rows as the code splits them (block(N, q, y): floor(N/q), one more for the
// first N mod q rows): every rank but the first in x receives 10 doubles per point of its rows
// from its west neighbour, every rank but the last sends as many east (tag 30); then an
// MPI_Allreduce of q doubles (one per column). The counts differ between the ranks of a position
// class wherever q does not divide N.
inline std::string pipeText(Rank q, std::int64_t points) {
  const Rank p = q * q;
  auto block = [&](Rank y) { return points / q + (y < points % q ? 1 : 0); };
  auto ranksWhere = [&](auto keep) {
    std::vector<Rank> v;
    for (Rank r = 0; r < p; ++r)
      if (keep(r % q, r / q)) v.push_back(r);
    return RankList::fromSorted(v);
  };
  auto counts = [&](auto keep) {
    std::map<std::int64_t, std::vector<Rank>> by;
    for (Rank r = 0; r < p; ++r)
      if (keep(r % q)) by[10 * block(r / q)].push_back(r);
    std::string out;
    for (const auto& [v, ranks] : by) out += fmt::format("  count {} @ {}\n", v, RankList::fromSorted(ranks).str());
    return out;
  };
  const std::string all = RankList::all(p).str();
  auto notFirst = [](Rank x) { return x > 0; };
  auto notLast = [&](Rank x) { return x < q - 1; };
  return fmt::format("tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
                     "event 0 MPI_Init @ {1}\n  site pipe.c:10\n"
                     "event 1 MPI_Recv @ {2}\n  site pipe.c:20\n  comm 2\n{3}  datatype MPI_DOUBLE\n  source rel {4}\n  tag 30\n"
                     "event 2 MPI_Send @ {5}\n  site pipe.c:21\n  comm 2\n{6}  datatype MPI_DOUBLE\n  dest rel 1\n  tag 30\n"
                     "event 3 MPI_Allreduce @ {1}\n  site pipe.c:30\n  comm 2\n  count {7}\n  datatype MPI_DOUBLE\n  op MPI_SUM\n"
                     "event 4 MPI_Finalize @ {1}\n  site pipe.c:40\n",
                     p, all, ranksWhere([](Rank x, Rank) { return x > 0; }).str(), counts(notFirst), p - 1,
                     ranksWhere([&](Rank x, Rank) { return x < q - 1; }).str(), counts(notLast), q);
}

// An input of `extrapolate` read from trace text.
inline ExtrapolateInput input(const std::string& name, const std::string& text) {
  return {name, readTracegenText(sourceFromString(name, text))};
}

// An IS-like sort at P ranks: MPI_Alltoallv counts that differ for every pair of ranks (a
// circulant +1/-1 around `total / P`, so every rank sends and receives exactly `total`, except
// that rank 1 sends `skew` more to rank 0), displacements packed
// unless `packed` is false.
inline std::string sortText(Rank p, std::int64_t total, std::int64_t skew = 0, bool packed = true) {
  auto count = [&](Rank from, Rank to) {
    const Rank d = ((to - from) % p + p) % p;
    std::int64_t c = total / p + (d == 1 ? 1 : d == 2 ? -1 : 0);
    if (to == 0 && from == 1) c += skew;
    return c;
  };
  std::string text = fmt::format(
      "tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_INT 4\n"
      "event 0 MPI_Init @ <1 0 {{{0} 1}}>\n  site sort.c:10\n"
      "event 1 MPI_Alltoallv @ <1 0 {{{0} 1}}>\n  site sort.c:20\n  loop 0 iter 3\n  loop 0 mem 1\n  comm 2\n"
      "  datatype MPI_INT\n  recvtype MPI_INT\n",
      p);
  for (const std::string side : {"sendcounts", "displs", "recvcounts", "rdispls"})
    for (Rank r = 0; r < p; ++r) {
      const bool send = side == "sendcounts" || side == "displs";
      const bool displs = side == "displs" || side == "rdispls";
      std::string line = fmt::format("  {}", side);
      std::int64_t at = 0;
      for (Rank k = 0; k < p; ++k) {
        const std::int64_t c = send ? count(r, k) : count(k, r);
        line += fmt::format(" {}", displs ? (packed ? at : at + 1) : c);
        at += c;
      }
      text += line + fmt::format(" @ <1 {} {{1 0}}>\n", r);
    }
  return text + "event 2 MPI_Finalize @ <1 0 {" + std::to_string(p) + " 1}>\n  site sort.c:30\n";
}

// NPB MG's halo exchange along y on a periodic px x py x pz grid (x fastest): every rank
// receives 64 doubles from y - 1 and sends them to y + 1, across the boundary where it is one
// (MPI_Sendrecv, tag 7). Peers are written rank by rank, as the recorder clusters them. On an
// extent of 2 the neighbour at y - 1 is the one at y + 1: only a larger extent tells which.
inline std::string periodicHaloText(Rank px, Rank py, Rank pz) {
  const Rank p = px * py * pz;
  auto peer = [&](Rank r, Rank dy) {
    const Rank x = r % px, y = r / px % py, z = r / (px * py);
    return x + px * ((y + dy + py) % py + py * z);
  };
  auto groups = [&](const std::string& param, Rank dy) {
    std::map<Rank, std::vector<Rank>> by;
    for (Rank r = 0; r < p; ++r) by[((peer(r, dy) - r) % p + p) % p].push_back(r);
    std::string out;
    for (const auto& [value, ranks] : by) out += fmt::format("  {} rel {} @ {}\n", param, value, RankList::fromSorted(ranks).str());
    return out;
  };
  const std::string all = RankList::all(p).str();
  return fmt::format("tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
                     "event 0 MPI_Init @ {1}\n  site mg.c:10\n"
                     "event 1 MPI_Sendrecv @ {1}\n  site mg.c:20\n  loop 0 iter 4\n  loop 0 mem 1\n  comm 2\n"
                     "  count 64\n  datatype MPI_DOUBLE\n  recvcount 64\n  recvtype MPI_DOUBLE\n{2}{3}  tag 7\n  recvtag 7\n"
                     "event 2 MPI_Finalize @ {1}\n  site mg.c:30\n",
                     p, all, groups("dest", 1), groups("source", -1));
}

// A hand-written all-to-all by point-to-point calls (P a power of two): P-1 rounds of
// MPI_Sendrecv with rank XOR i (i = 1 .. P-1, each round a perfect matching: the complete graph
// over the rounds), then P-1 rounds of a shift exchange, sending to rank + i and receiving from
// rank - i. The first loop's peers differ per rank (no grid direction: the complete-graph
// relation), the second's count through the ranks (a progression of offsets).
inline std::string pairwiseText(Rank p) {
  auto rel = [&](Rank r, Rank peer) { return ((peer - r) % p + p) % p; };
  std::map<std::string, std::vector<Rank>> byList;
  for (Rank r = 0; r < p; ++r) {
    std::string v;
    for (Rank i = 1; i < p; ++i) v += fmt::format(" {}", rel(r, r ^ i));
    byList[v].push_back(r);
  }
  std::string xorPeers;
  for (const char* key : {"dest", "source"})
    for (const auto& [values, ranks] : byList)
      xorPeers += fmt::format("  {} rel{} @ {}\n", key, values, RankList::fromSorted(ranks).str());
  std::string up, down;
  for (Rank i = 1; i < p; ++i) {
    up += fmt::format(" {}", i);
    down += fmt::format(" {}", p - i);
  }
  const std::string all = RankList::all(p).str();
  return fmt::format("tracegen-trace 1\nranks {0}\norigin hand-written\ndatatype MPI_DOUBLE 8\n"
                     "event 0 MPI_Init @ {1}\n  site pw.c:10\n"
                     "event 1 MPI_Sendrecv @ {1}\n  site pw.c:20\n  loop 0 iter {2}\n  loop 0 mem 1\n  comm 2\n"
                     "  count 64\n  datatype MPI_DOUBLE\n  recvcount 64\n  recvtype MPI_DOUBLE\n{3}  tag 7\n  recvtag 7\n"
                     "event 2 MPI_Sendrecv @ {1}\n  site pw.c:30\n  loop 0 iter {2}\n  loop 0 mem 1\n  comm 2\n"
                     "  count 32\n  datatype MPI_DOUBLE\n  recvcount 32\n  recvtype MPI_DOUBLE\n  dest rel{4}\n"
                     "  source rel{5}\n  tag 8\n  recvtag 8\n"
                     "event 3 MPI_Finalize @ {1}\n  site pw.c:40\n",
                     p, all, p - 1, xorPeers, up, down);
}

}  // namespace tracegen::extrap::traces
