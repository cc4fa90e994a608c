// Clustering and merging of per-rank traces (record/Clustering.h), run in-process over simulated
// ranks: cluster counts for the patterns of docs/clustering.md section 6.1, signature strength
// (section 2.2's counterexamples), and the invariant that matters most: every rank's expansion
// of the global trace is exactly its own trace.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "record/Clustering.h"
#include "record/Wire.h"
#include "tests/support/RecordSim.h"
#include "tests/unit/TraceTestHelpers.h"

using namespace tracegen;
using namespace tracegen::record;
using tracegen::record::test::expand;
using tracegen::record::test::SimRank;

namespace {

enum class Sites { Loop, PerDirection };

// A 2-D 5-point halo exchange on px x py ranks: Irecv and Isend per neighbour, Waitall,
// Allreduce, `steps` times. Neighbours wrap around when `periodic`.
SimRank stencilRank(Rank r, int px, int py, int steps, Sites sites, bool periodic) {
  SimRank s(r, px * py);
  const int x = static_cast<int>(r) % px, y = static_cast<int>(r) / px;
  const char* names[4] = {"n", "s", "w", "e"};
  int nbr[4];
  auto at = [&](int xx, int yy) -> int {
    if (periodic) return ((yy + py) % py) * px + (xx + px) % px;
    return (xx < 0 || xx >= px || yy < 0 || yy >= py) ? -1 : yy * px + xx;
  };
  nbr[0] = at(x, y - 1);
  nbr[1] = at(x, y + 1);
  nbr[2] = at(x - 1, y);
  nbr[3] = at(x + 1, y);
  s.call(Op::Init, "init");
  for (int t = 0; t < steps; ++t) {
    int n = 0;
    for (int d = 0; d < 4; ++d)
      if (nbr[d] >= 0) {
        s.p2p(Op::Irecv, sites == Sites::Loop ? "irecv" : std::string("irecv_") + names[d], nbr[d], 16, d ^ 1);
        ++n;
      }
    for (int d = 0; d < 4; ++d)
      if (nbr[d] >= 0) s.p2p(Op::Isend, sites == Sites::Loop ? "isend" : std::string("isend_") + names[d], nbr[d], 16, d);
    std::vector<std::int64_t> req;
    for (int k = 2 * n; k >= 1; --k) req.push_back(kRequestRing - k);
    s.call(Op::Waitall, "waitall", {{Param::Count, 2 * n}}, {{Param::Requests, req}});
    s.call(Op::Allreduce, "allreduce", {{Param::Comm, kCommWorld}, {Param::Count, 1}, {Param::Datatype, 10}, {Param::ReduceOp, 3}},
           {}, 10.0 + static_cast<double>(r), 3.0);
  }
  s.call(Op::Finalize, "fin");
  return s;
}

std::vector<RankInput> inputs(const std::vector<SimRank>& ranks) {
  std::vector<RankInput> in;
  for (const auto& r : ranks) in.push_back(r.input());
  return in;
}

// Every rank's calls from the global trace equal those of its own trace.
void expectLossless(const Trace& global, const std::vector<RankInput>& in) {
  for (std::size_t r = 0; r < in.size(); ++r)
    ASSERT_EQ(expand(global, static_cast<Rank>(r)), expand(in[r].trace, static_cast<Rank>(r))) << "rank " << r;
}

std::vector<SimRank> stencil(int px, int py, int steps, Sites sites, bool periodic) {
  std::vector<SimRank> v;
  for (int r = 0; r < px * py; ++r) v.push_back(stencilRank(r, px, py, steps, sites, periodic));
  return v;
}

std::size_t count(const Trace& t, Op op) {
  return static_cast<std::size_t>(std::count_if(t.events.begin(), t.events.end(), [&](const Event& e) { return e.op == op; }));
}

}  // namespace

TEST(RecordCluster, BinomialTree) {
  for (std::int64_t n : {1, 2, 3, 7, 8, 13, 64, 100}) {
    std::vector<int> parents(static_cast<std::size_t>(n), 0);
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t c : treeChildren(i, n)) {
        EXPECT_EQ(treeParent(c), i);
        ++parents[static_cast<std::size_t>(c)];
      }
    for (std::int64_t i = 1; i < n; ++i) EXPECT_EQ(parents[static_cast<std::size_t>(i)], 1) << "node " << i << " of " << n;
    // Depth: ceil(log2 n) hops from any node to the root.
    for (std::int64_t i = 0; i < n; ++i) {
      int hops = 0;
      for (std::int64_t j = i; j != 0; j = treeParent(j)) ++hops;
      EXPECT_LE(1 << hops, 2 * n);
    }
  }
}

TEST(RecordCluster, StencilWithOneSiteIsOneCallPathAndNineParameterClusters) {
  const auto ranks = stencil(4, 4, 6, Sites::Loop, false);
  const auto in = inputs(ranks);
  ClusterReport rep;
  const Trace g = clusterInProcess(in, ClusterMode::Exact, &rep);
  EXPECT_EQ(rep.mainClusters, 1u);
  EXPECT_EQ(rep.subClusters, 9u);
  EXPECT_EQ(g.events.size(), in[5].trace.events.size());  // one shape: zipped, no extra events
  expectLossless(g, in);
}

TEST(RecordCluster, StencilWithOneSitePerDirectionIsNineCallPaths) {
  const auto ranks = stencil(4, 4, 6, Sites::PerDirection, false);
  const auto in = inputs(ranks);
  ClusterReport rep;
  const Trace g = clusterInProcess(in, ClusterMode::Exact, &rep);
  EXPECT_EQ(rep.mainClusters, 9u);
  EXPECT_EQ(rep.subClusters, 9u);
  // The alignment shares what all shapes have in common.
  EXPECT_EQ(count(g, Op::Init), 1u);
  EXPECT_EQ(count(g, Op::Allreduce), 1u);
  EXPECT_EQ(count(g, Op::Finalize), 1u);
  expectLossless(g, in);
  // Smaller grids: 2 x 2 gives four corners, 4 x 2 six classes.
  ClusterReport r22, r42;
  (void)clusterInProcess(inputs(stencil(2, 2, 3, Sites::PerDirection, false)), ClusterMode::Exact, &r22);
  (void)clusterInProcess(inputs(stencil(4, 2, 3, Sites::PerDirection, false)), ClusterMode::Exact, &r42);
  EXPECT_EQ(r22.subClusters, 4u);
  EXPECT_EQ(r42.subClusters, 6u);
}

TEST(RecordCluster, PeriodicTorusHasThreeClusters) {
  // With (peer - rank) mod P the vertical wrap is uniform, the horizontal one is not: column 0,
  // the last column and the middle columns differ (docs/clustering.md section 6.1).
  const auto in = inputs(stencil(4, 4, 4, Sites::Loop, true));
  ClusterReport rep;
  const Trace g = clusterInProcess(in, ClusterMode::Exact, &rep);
  EXPECT_EQ(rep.mainClusters, 1u);
  EXPECT_EQ(rep.subClusters, 3u);
  expectLossless(g, in);
}

TEST(RecordCluster, RingTraceDoesNotGrowWithRanks) {
  auto ring = [](int p) {
    std::vector<RankInput> in;
    for (int r = 0; r < p; ++r) {
      SimRank s(r, p);
      s.call(Op::Init, "init");
      for (int t = 0; t < 20; ++t)
        s.call(Op::Sendrecv, "sendrecv",
               {{Param::Comm, kCommWorld}, {Param::Count, 32}, {Param::Datatype, 10}, {Param::Dest, (r + 1) % p},
                {Param::Tag, 0}, {Param::RecvCount, 32}, {Param::RecvType, 10}, {Param::Source, (r + p - 1) % p}, {Param::RecvTag, 0}});
      s.call(Op::Finalize, "fin");
      in.push_back(s.input());
    }
    ClusterReport rep;
    Trace g = clusterInProcess(in, ClusterMode::Exact, &rep);
    EXPECT_EQ(rep.subClusters, 1u);
    expectLossless(g, in);
    return g;
  };
  // Same events, and every parameter still one value list for all ranks (the source offset is
  // P - 1, so the values themselves differ).
  const Trace g8 = ring(8), g64 = ring(64);
  EXPECT_EQ(g8.events.size(), g64.events.size());
  for (const auto& e : g64.events) {
    EXPECT_EQ(e.ranks, RankList::all(64));
    for (const auto& pv : e.params) EXPECT_EQ(pv.groups.size(), 1u) << paramName(pv.param);
  }
  EXPECT_EQ(g64.events[1].param(Param::Source)->groups[0].values, (std::vector<std::int64_t>{63}));
}

TEST(RecordCluster, NoClusteringGivesTheSameExpansion) {
  const auto in = inputs(stencil(3, 3, 4, Sites::Loop, false));
  ClusterReport rep;
  const Trace g = clusterInProcess(in, ClusterMode::None, &rep);
  EXPECT_EQ(rep.subClusters, 9u);
  expectLossless(g, in);
  EXPECT_EQ(g, clusterInProcess(in, ClusterMode::Exact));  // same global trace either way
}

TEST(RecordCluster, SignaturesSeparateWhatXorSignaturesConfuse) {
  auto sig = [](const std::function<void(SimRank&)>& body, Rank rank = 1) {
    SimRank s(rank, 4);
    s.call(Op::Init, "init");
    body(s);
    s.call(Op::Finalize, "fin");
    return computeSignature(s.trace());
  };
  auto events = [](SimRank& s, int from, int to) {
    for (int i = from; i < to; ++i) s.call(Op::Barrier, fmt::format("site{}", i), {{Param::Comm, kCommWorld}});
  };
  // T versus T U U with |U| = 10 (the position factor repeats every 10 events in the papers).
  const Signature t = sig([&](SimRank& s) { events(s, 0, 5); });
  const Signature tuu = sig([&](SimRank& s) {
    events(s, 0, 5);
    events(s, 10, 20);
    s.call(Op::Allreduce, "x", {{Param::Comm, kCommWorld}, {Param::Count, 1}, {Param::Datatype, 10}, {Param::ReduceOp, 3}});
    events(s, 10, 20);
  });
  EXPECT_NE(t.shape, tuu.shape);
  // Swapping the events at positions i and i + 10.
  const Signature a = sig([&](SimRank& s) { events(s, 0, 20); });
  const Signature b = sig([&](SimRank& s) {
    events(s, 10, 11);
    events(s, 1, 10);
    events(s, 0, 1);
    events(s, 11, 20);
  });
  EXPECT_NE(a.shape, b.shape);
  // Counts 1 and 65,537: same shape, different parameters.
  const Signature c1 = sig([&](SimRank& s) { s.p2p(Op::Send, "send", 2, 1); });
  const Signature c2 = sig([&](SimRank& s) { s.p2p(Op::Send, "send", 2, 65537); });
  EXPECT_EQ(c1.shape, c2.shape);
  EXPECT_NE(c1.params1, c2.params1);
  EXPECT_NE(c1.params2, c2.params2);
  // Destinations {-1, +1} and {0, 0}.
  const Signature d1 = sig([&](SimRank& s) {
    s.p2p(Op::Send, "send", 0, 8);
    s.p2p(Op::Send, "send2", 2, 8);
  });
  const Signature d2 = sig([&](SimRank& s) {
    s.p2p(Op::Send, "send", 1, 8);
    s.p2p(Op::Send, "send2", 1, 8);
  });
  EXPECT_NE(d1.params1, d2.params1);
  // Recursion depth: the same call reached through one or three frames of the same function.
  EXPECT_NE(sig([&](SimRank& s) { events(s, 0, 1); }).shape,
            sig([&](SimRank& s) { s.call(Op::Barrier, "site0_site0_site0", {{Param::Comm, kCommWorld}}); }).shape);
  // Relative peers: ranks 1 and 2 of a ring send to +1 alike.
  EXPECT_EQ(sig([&](SimRank& s) { s.p2p(Op::Send, "send", 2, 8); }, 1),
            sig([&](SimRank& s) { s.p2p(Op::Send, "send", 3, 8); }, 2));
}

TEST(RecordCluster, ZipMergeRefusesDifferentShapes) {
  SimRank a(0, 2), b(1, 2);
  for (SimRank* s : {&a, &b}) s->call(Op::Init, "init");
  a.call(Op::Barrier, "x", {{Param::Comm, kCommWorld}});
  b.call(Op::Barrier, "y", {{Param::Comm, kCommWorld}});
  for (SimRank* s : {&a, &b}) s->call(Op::Finalize, "fin");
  Trace ta = a.trace(), tb = b.trace();
  const Trace before = ta;
  EXPECT_FALSE(zipMerge(ta, tb));
  EXPECT_EQ(ta, before);
  // Partials that claim the same shape (a signature collision) stay apart and stay exact.
  std::vector<Partial> parts{{42, ta}};
  addPartials(parts, {{42, tb}});
  ASSERT_EQ(parts.size(), 2u);
  ClusterTable table;
  const Trace g = buildGlobal(parts, table, 2);
  EXPECT_EQ(expand(g, 0), expand(ta, 0));
  EXPECT_EQ(expand(g, 1), expand(tb, 1));
}

TEST(RecordCluster, TimingsCoverEveryMember) {
  const auto in = inputs(stencil(4, 2, 5, Sites::Loop, false));
  const Trace g = clusterInProcess(in, ClusterMode::Exact);
  const Event* ar = nullptr;
  for (const auto& e : g.events)
    if (e.op == Op::Allreduce) ar = &e;
  ASSERT_NE(ar, nullptr);
  std::int64_t n = 0;
  double lo = 1e9, hi = 0;
  Rank loRank = -1, hiRank = -1;
  for (const auto& s : ar->stats)
    if (s.phase == Phase::Compute) {
      n += s.hist.n;
      if (s.hist.min < lo) lo = s.hist.min, loRank = s.hist.minRank;
      if (s.hist.max > hi) hi = s.hist.max, hiRank = s.hist.maxRank;
    }
  EXPECT_EQ(n, 8 * 5);  // every execution on every rank, not only the representatives'
  EXPECT_DOUBLE_EQ(lo, 10.0);
  EXPECT_EQ(loRank, 0);
  EXPECT_DOUBLE_EQ(hi, 17.0);
  EXPECT_EQ(hiRank, 7);
}

TEST(RecordCluster, DerivedDatatypesKeepTheirSizes) {
  // Two ranks number different derived types 1000: the merge must keep both sizes.
  std::vector<RankInput> in;
  for (Rank r = 0; r < 2; ++r) {
    SimRank s(r, 2);
    s.call(Op::Init, "init");
    s.call(Op::Send, "send", {{Param::Comm, kCommWorld}, {Param::Count, 10}, {Param::Datatype, 1000}, {Param::Dest, 1 - r}, {Param::Tag, 0}});
    s.call(Op::Finalize, "fin");
    RankInput x = s.input();
    x.trace.datatypes = {{1000, "type1000", r == 0 ? 24 : 16}};
    in.push_back(std::move(x));
  }
  const Trace g = clusterInProcess(in, ClusterMode::Exact);
  expectLossless(g, in);
  EXPECT_EQ(g.datatypes.size(), 2u);
}

TEST(RecordCluster, CommunicatorInstancesAreCollected) {
  // Row communicators of a 2 x 2 grid: one id, two instances.
  std::vector<RankInput> in;
  for (Rank r = 0; r < 4; ++r) {
    SimRank s(r, 4);
    s.call(Op::Init, "init");
    s.call(Op::CommSplit, "split", {{Param::Comm, kCommWorld}, {Param::Color, r / 2}, {Param::Key, r}, {Param::NewComm, 1000}});
    s.call(Op::Allreduce, "ar", {{Param::Comm, 1000}, {Param::Count, 1}, {Param::Datatype, 10}, {Param::ReduceOp, 3}});
    s.call(Op::Finalize, "fin");
    s.comms = {{1000, "split", RankList::progression(r / 2 * 2, 2)}};
    in.push_back(s.input());
  }
  ClusterReport rep;
  const Trace g = clusterInProcess(in, ClusterMode::Exact, &rep);
  const Communicator* c = g.comm(1000);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->kind, "split");
  ASSERT_EQ(c->instances.size(), 2u);
  EXPECT_EQ(c->instances[0], RankList::progression(0, 2));
  EXPECT_EQ(c->instances[1], RankList::progression(2, 2));
  EXPECT_EQ(rep.subClusters, 2u);  // the colour differs by row; the key is relative (0)
  expectLossless(g, in);
  EXPECT_TRUE(communicatorConflicts(g).empty());
  Trace bad = g;
  bad.comms.push_back({1001, "create", {RankList::progression(0, 3), RankList::progression(2, 2)}});
  ASSERT_EQ(communicatorConflicts(bad).size(), 1u);
  EXPECT_NE(communicatorConflicts(bad)[0].find("1001"), std::string::npos);
}

TEST(RecordCluster, TablesCombineInAnyOrder) {
  std::vector<ClusterTable> t;
  for (Rank r = 0; r < 6; ++r)
    t.push_back(ClusterTable::forRank(r, Signature{static_cast<std::uint64_t>(r % 2), 1, 2},
                                      {{1000, "dup", RankList::all(6)}}, r == 3 ? std::int64_t{kFlagReorderedComm} : std::int64_t{0}, ClusterMode::Exact));
  ClusterTable a = t[0], b = t[5];
  for (std::size_t i = 1; i < 6; ++i) a.add(t[i]);
  for (std::size_t i = 5; i-- > 0;) b.add(t[i]);
  ASSERT_EQ(a.clusters.size(), 2u);
  EXPECT_EQ(a.clusters[0].ranks, b.clusters[0].ranks);
  EXPECT_EQ(a.clusters[1].ranks, RankList::progression(1, 3, 2));
  EXPECT_EQ(a.comms.size(), 1u);
  EXPECT_EQ(a.flags, kFlagReorderedComm);
  EXPECT_EQ(a.representatives(), (std::vector<Rank>{0, 1}));
  EXPECT_EQ(a.mainClusters(), 2u);
}

TEST(RecordCluster, WireRoundTrips) {
  const auto in = inputs(stencil(4, 2, 3, Sites::PerDirection, false));
  ClusterReport rep;
  Trace g = clusterInProcess(in, ClusterMode::Exact, &rep);
  g.comms.push_back({1000, "split", {RankList::progression(0, 4), RankList::progression(4, 4)}});
  EXPECT_EQ(decodeTrace(encodeTrace(g)), g);
  std::vector<Partial> parts{{7, in[0].trace}, {9, in[3].trace}};
  const auto back = decodePartials(encodePartials(parts));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[1].shape, 9u);
  EXPECT_EQ(back[1].trace, in[3].trace);
  ClusterTable t = ClusterTable::forRank(3, Signature{1, 2, 3}, {{1000, "dup", RankList::all(8)}}, 2, ClusterMode::Exact);
  const ClusterTable u = decodeTable(encodeTable(t));
  EXPECT_EQ(u.clusters[0].sig, t.clusters[0].sig);
  EXPECT_EQ(u.clusters[0].ranks, t.clusters[0].ranks);
  EXPECT_EQ(u.comms, t.comms);
  EXPECT_EQ(u.flags, 2);
  Bytes bad = encodeTrace(g);
  bad.resize(bad.size() / 2);
  EXPECT_THROW(decodeTrace(bad), std::runtime_error);
}

TEST(RecordCluster, RandomRankTracesExpandExactly) {
  // Ranks drawn from a few behaviours with random per-rank details: whatever clusters form,
  // the global trace gives every rank its own calls.
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    const int p = 2 + static_cast<int>(rng() % 14);
    std::vector<RankInput> in;
    for (int r = 0; r < p; ++r) {
      SimRank s(r, p);
      const int behaviour = static_cast<int>(rng() % 3), steps = 2 + static_cast<int>(rng() % 4);
      s.call(Op::Init, "init");
      for (int t = 0; t < steps; ++t) {
        if (behaviour != 1) s.p2p(Op::Send, "send", (r + 1) % p, 4 + r % 2);
        if (behaviour != 2) s.p2p(Op::Recv, behaviour == 0 ? "recv" : "recv1", (r + p - 1) % p, 4);
        s.call(Op::Barrier, "barrier", {{Param::Comm, kCommWorld}});
      }
      s.call(Op::Finalize, "fin");
      in.push_back(s.input());
    }
    const Trace g = clusterInProcess(in, ClusterMode::Exact);
    expectLossless(g, in);
  }
}

TEST(RecordCluster, ComputeTimesThatDifferKeepTheirRanks) {
  // Four ranks make the same calls (one cluster); ranks 0-2 compute about 10 us before each
  // barrier (10.4 on rank 2 agrees within the tolerance), rank 3 computes 40. The merged trace
  // keeps two timing sub-groups, and every rank's expansion gets its own time.
  std::vector<SimRank> ranks;
  for (Rank r = 0; r < 4; ++r) {
    SimRank s(r, 4);
    s.call(Op::Init, "init");
    const double us = r == 3 ? 40.0 : r == 2 ? 10.4 : 10.0;
    for (int t = 0; t < 10; ++t) s.call(Op::Barrier, "b", {{Param::Comm, kCommWorld}}, {}, us, 1.0);
    s.call(Op::Finalize, "fin", {}, {}, 5.0);
    ranks.push_back(std::move(s));
  }
  const std::vector<RankInput> in = inputs(ranks);
  const Trace g = clusterInProcess(in, ClusterMode::Exact);
  expectLossless(g, in);
  const Event* barrier = nullptr;
  for (const auto& e : g.events)
    if (e.op == Op::Barrier) barrier = &e;
  ASSERT_NE(barrier, nullptr);
  std::map<std::string, double> byRanks;  // after "b": ranks -> mean
  for (const auto& s : barrier->stats)
    if (s.phase == Phase::Compute && g.siteName(s.after) == "b") byRanks[s.ranks.pretty()] = s.hist.mean();
  ASSERT_EQ(byRanks.size(), 2u);
  EXPECT_NEAR(byRanks.at("0-2"), (10.0 * 9 * 2 + 10.4 * 9) / 27, 0.05);  // three significant digits
  EXPECT_NEAR(byRanks.at("3"), 40.0, 0.01);
  // The MPI times and the Finalize's equal compute times stay one statistic, without ranks.
  for (const auto& e : g.events)
    for (const auto& s : e.stats)
      if (s.phase == Phase::Mpi || e.op == Op::Finalize) {
        EXPECT_TRUE(s.ranks.empty()) << opName(e.op);
      }
  // Through the wire (the recorder's messages) and back unchanged.
  EXPECT_EQ(decodeTrace(encodeTrace(g)), g);
  // Each rank's replayed computation is its own group's: 10 barriers and the Finalize's 5 us.
  const double low = byRanks.at("0-2");
  for (Rank r = 0; r < 4; ++r)
    EXPECT_NEAR(tracegen::testing::replayedComputeUs(g, r), (r == 3 ? 40.0 : low) * 10 + 5.0, 0.05) << "rank " << r;
}

TEST(RecordCluster, FootprintGroupsRanksWhosePeaksAgree) {
  // Peaks of 100, 104 and 300 MiB: the first two agree (within 10%) and keep the larger; the
  // time before MPI_Init is the longest. Through the wire unchanged.
  auto rank = [](Rank r, std::int64_t kb, double us) {
    Trace t;
    t.memoryKb = {ValueGroup{RankList::single(r), {kb}}};
    t.beforeInitUs = us;
    return t;
  };
  Trace a = rank(0, 102400, 20000);
  mergeFootprint(a, decodeTrace(encodeTrace(rank(1, 106496, 35000))));
  mergeFootprint(a, rank(2, 307200, 10000));
  canonicalFootprint(a);
  ASSERT_EQ(a.memoryKb.size(), 2u);
  EXPECT_EQ(a.memoryKb[0].ranks, RankList::progression(0, 2));
  EXPECT_EQ(a.memoryKb[0].values, std::vector<std::int64_t>{106496});
  EXPECT_EQ(a.memoryKb[1].ranks, RankList::single(2));
  EXPECT_EQ(a.beforeInitUs, 35000);
}
