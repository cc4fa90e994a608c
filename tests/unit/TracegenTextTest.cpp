// tracegen's text format: exact round trips (ScalaTrace traces, the doc's example, hand-built
// traces that use every feature of the model), the hand-written samples' expansions, and one
// test per kind of malformed input, each pinned to the line the error must name.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "ir/Diagnostics.h"
#include "ir/RankCursor.h"
#include "tests/unit/TraceTestHelpers.h"
#include "io/Readers.h"
#include "ir/Summary.h"

namespace tracegen {
namespace {

namespace fs = std::filesystem;

std::string fileText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

fs::path samplePath(const std::string& name) { return fs::path(TRACEGEN_SOURCE_DIR) / "samples" / "traces" / name; }

std::vector<fs::path> scalaTraceFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(TRACEGEN_TEST_DATA_DIR) / "scalatrace"))
    if (entry.is_regular_file() && entry.path().extension() == ".trace") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

Trace parseText(const std::string& name, const std::string& text) { return readTrace(sourceFromString(name, text)); }

// write → read must give an equal trace, and writing that trace again the same bytes.
::testing::AssertionResult roundTrips(const Trace& t, const std::string& name) {
  const std::string text = tracegenText(t);
  Trace back;
  try {
    back = parseText(name + ".tgt", text);
  } catch (const InputError& e) {
    return ::testing::AssertionFailure() << "written trace does not read back: " << e.render() << "\n" << text;
  }
  if (!(back == t)) return ::testing::AssertionFailure() << "trace read back differs from the one written";
  const std::string again = tracegenText(back);
  if (again != text) return ::testing::AssertionFailure() << "second write differs:\n" << text << "\n----\n" << again;
  return ::testing::AssertionSuccess();
}

// Every rank's expanded calls agree in everything a benchmark reproduces.
::testing::AssertionResult sameExpansion(const Trace& a, const Trace& b) {
  if (a.numRanks != b.numRanks) return ::testing::AssertionFailure() << "different numbers of ranks";
  for (Rank r = 0; r < a.numRanks; ++r) {
    RankCursor ca(a, r), cb(b, r);
    Call x, y;
    for (std::int64_t i = 0;; ++i) {
      bool hx = ca.next(x), hy = cb.next(y);
      if (hx != hy) return ::testing::AssertionFailure() << "rank " << r << ": streams end at different calls (" << i << ")";
      if (!hx) {
        if (i == 0) return ::testing::AssertionFailure() << "rank " << r << " has no calls";
        break;
      }
      if (x.op != y.op || x.peer != y.peer || x.recvPeer != y.recvPeer || x.root != y.root || x.bytes != y.bytes ||
          x.recvBytes != y.recvBytes || x.tag != y.tag || x.count != y.count || x.reduceOp != y.reduceOp ||
          x.computeUs != y.computeUs || x.computeKinst != y.computeKinst || x.vec != y.vec || x.completes != y.completes)
        return ::testing::AssertionFailure() << "rank " << r << " call " << i << " differs (" << opName(x.op) << " vs "
                                             << opName(y.op) << ", peer " << x.peer << " vs " << y.peer << ", bytes "
                                             << x.bytes << " vs " << y.bytes << ", compute " << x.computeUs << " vs "
                                             << y.computeUs << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

struct Expansion {
  std::vector<std::vector<Call>> calls;  // per rank
};

Expansion expand(const Trace& t) {
  Expansion ex;
  for (Rank r = 0; r < t.numRanks; ++r) {
    RankCursor c(t, r);
    Call call;
    ex.calls.emplace_back();
    while (c.next(call)) ex.calls.back().push_back(call);
  }
  return ex;
}

// Point-to-point messages balance: receives from a named source take that pair's sends in
// order (same tag, buffer large enough); receives from MPI_ANY_SOURCE take what is left for
// their rank. Every request is completed exactly once.
::testing::AssertionResult balanced(const Trace& t) {
  Expansion ex = expand(t);
  struct Msg {
    std::int64_t tag, bytes;
  };
  std::map<std::pair<Rank, Rank>, std::vector<Msg>> sends;
  std::map<std::pair<Rank, Rank>, std::vector<Msg>> recvs;
  std::map<Rank, std::int64_t> anyRecvs;
  for (Rank r = 0; r < t.numRanks; ++r) {
    std::set<std::int64_t> open, done;
    for (const Call& c : ex.calls[static_cast<std::size_t>(r)]) {
      const OpKind k = opInfo(c.op).kind;
      if (k == OpKind::Send || k == OpKind::Isend) sends[{r, c.peer}].push_back({c.tag, c.bytes});
      if (k == OpKind::Recv || k == OpKind::Irecv) {
        if (c.peer == kAnySource) ++anyRecvs[r];
        else recvs[{c.peer, r}].push_back({c.tag, c.recvBytes});
      }
      if (createsRequest(k)) open.insert(c.index);
      for (auto req : c.completes) {
        if (req < 0 || !open.count(req) || !done.insert(req).second)
          return ::testing::AssertionFailure() << "rank " << r << " completes request " << req << " wrongly";
      }
    }
    if (open != done) return ::testing::AssertionFailure() << "rank " << r << " leaves requests incomplete";
  }
  std::map<Rank, std::int64_t> leftover;
  for (const auto& [pair, msgs] : sends) {
    const auto& rv = recvs[pair];
    if (rv.size() > msgs.size())
      return ::testing::AssertionFailure() << "rank " << pair.second << " receives " << rv.size() << " messages from "
                                           << pair.first << " but it sends " << msgs.size();
    for (std::size_t i = 0; i < rv.size(); ++i)
      if (rv[i].tag != msgs[i].tag || rv[i].bytes < msgs[i].bytes)
        return ::testing::AssertionFailure() << "message " << i << " from " << pair.first << " to " << pair.second
                                             << " does not match its receive";
    leftover[pair.second] += static_cast<std::int64_t>(msgs.size() - rv.size());
  }
  for (const auto& [pair, rv] : recvs)
    if (!sends.count(pair) && !rv.empty())
      return ::testing::AssertionFailure() << "rank " << pair.second << " receives from " << pair.first << ", which never sends to it";
  for (Rank r = 0; r < t.numRanks; ++r)
    if (leftover[r] != anyRecvs[r])
      return ::testing::AssertionFailure() << "rank " << r << " has " << leftover[r] << " unmatched incoming messages but "
                                           << anyRecvs[r] << " MPI_ANY_SOURCE receives";
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------------------------------------
// Round trips

TEST(TracegenTextTest, ScalaTraceTracesRoundTrip) {
  auto files = scalaTraceFiles();
  ASSERT_FALSE(files.empty()) << "no ScalaTrace traces in " << TRACEGEN_TEST_DATA_DIR "/scalatrace";
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    Trace original = readTraceFile(path.string());
    const std::string text = tracegenText(original);
    EXPECT_EQ(detectFormat(sourceFromString("x.tgt", text)), TraceFormat::Tracegen);
    Trace back = parseText(path.filename().string() + ".tgt", text);
    EXPECT_TRUE(back == original);
    EXPECT_EQ(tracegenText(back), text);
    EXPECT_TRUE(roundTrips(back, path.filename().string()));
  }
}

TEST(TracegenTextTest, ScalaTraceExpansionSurvivesConversion) {
  for (const auto& path : scalaTraceFiles()) {
    SCOPED_TRACE(path.string());
    Trace original = readTraceFile(path.string());
    Trace converted = parseText("converted.tgt", tracegenText(original));
    EXPECT_TRUE(sameExpansion(original, converted));
  }
}

TEST(TracegenTextTest, DocExampleIsTheRingSample) {
  // The sample is the doc's example verbatim, so the doc cannot drift from what parses.
  const std::string doc = fileText(fs::path(TRACEGEN_SOURCE_DIR) / "docs" / "trace-format.md");
  const std::size_t section = doc.find("## A small example");
  ASSERT_NE(section, std::string::npos);
  const std::size_t open = doc.find("```\n", section);
  ASSERT_NE(open, std::string::npos);
  const std::size_t close = doc.find("```\n", open + 4);
  ASSERT_NE(close, std::string::npos);
  EXPECT_EQ(doc.substr(open + 4, close - open - 4), fileText(samplePath("ring-4.tgt")));
}

TEST(TracegenTextTest, RingSampleParsesAndRoundTrips) {
  Trace t = readTraceFile(samplePath("ring-4.tgt").string());
  EXPECT_EQ(t.numRanks, 4);
  EXPECT_EQ(t.origin, "hand-written");
  ASSERT_EQ(t.events.size(), 6u);
  ASSERT_EQ(t.comms.size(), 2u);  // self added in front of the declared world
  EXPECT_EQ(t.comms[0].id, kCommSelf);
  EXPECT_EQ(t.comms[1].id, kCommWorld);
  ASSERT_EQ(t.datatypes.size(), 1u);
  EXPECT_EQ(t.datatypes[0], (Datatype{10, "MPI_DOUBLE", 8}));
  const Event& isend = t.events[1];
  EXPECT_EQ(isend.op, Op::Isend);
  ASSERT_EQ(isend.loops.size(), 1u);
  EXPECT_EQ(isend.loops[0].iter[0].values, std::vector<std::int64_t>{100});
  ASSERT_TRUE(isend.param(Param::Dest));
  EXPECT_TRUE(isend.param(Param::Dest)->relative);
  ASSERT_EQ(isend.stats.size(), 1u);
  EXPECT_EQ(isend.stats[0].hist.bins.size(), 2u);
  EXPECT_EQ(t.siteName(isend.stats[0].after), "main.c:10");
  EXPECT_TRUE(roundTrips(t, "ring-4"));
  EXPECT_TRUE(balanced(t));

  Expansion ex = expand(t);
  for (Rank r = 0; r < 4; ++r) {
    const auto& calls = ex.calls[static_cast<std::size_t>(r)];
    ASSERT_EQ(calls.size(), 402u);  // Init, 100 x (Isend, Irecv, Wait, Wait), Finalize
    EXPECT_EQ(calls[1].op, Op::Isend);
    EXPECT_EQ(calls[1].peer, (r + 1) % 4);
    EXPECT_EQ(calls[1].bytes, 8192);
    EXPECT_EQ(calls[1].computeUs, 10.0);  // bin-weighted mean after MPI_Init
    EXPECT_EQ(calls[5].computeUs, -1.0);  // no measurement after the Wait
    EXPECT_EQ(calls[2].peer, (r + 3) % 4);
    EXPECT_EQ(calls[3].completes, std::vector<std::int64_t>{1});
    EXPECT_EQ(calls[4].completes, std::vector<std::int64_t>{2});
  }
}

TEST(TracegenTextTest, StencilSampleExpandsToAHaloExchange) {
  Trace t = readTraceFile(samplePath("stencil-2d-4.tgt").string());
  EXPECT_TRUE(roundTrips(t, "stencil-2d-4"));
  EXPECT_TRUE(balanced(t));
  Expansion ex = expand(t);
  for (Rank r = 0; r < 4; ++r) {
    const auto& calls = ex.calls[static_cast<std::size_t>(r)];
    ASSERT_EQ(calls.size(), 302u);  // Init, 50 x (2 Irecv, 2 Isend, Waitall, Allreduce), Finalize
    for (std::size_t it = 0; it < 50; ++it) {
      const Call* c = &calls[1 + 6 * it];
      EXPECT_EQ(c[0].op, Op::Irecv);
      EXPECT_EQ(c[0].peer, r ^ 1);
      EXPECT_EQ(c[0].recvBytes, 256 * 8);
      EXPECT_EQ(c[1].peer, r ^ 2);
      EXPECT_EQ(c[1].recvBytes, 1024 * 8);
      EXPECT_EQ(c[2].op, Op::Isend);
      EXPECT_EQ(c[2].peer, r ^ 1);
      EXPECT_EQ(c[3].peer, r ^ 2);
      EXPECT_EQ(c[3].bytes, 1024 * 8);
      EXPECT_EQ(c[4].op, Op::Waitall);
      EXPECT_EQ(c[4].completes.size(), 4u);
      EXPECT_EQ(c[5].op, Op::Allreduce);
      EXPECT_EQ(c[5].reduceOp, *reduceOpFromName("MPI_SUM"));
      EXPECT_EQ(c[0].computeUs, it == 0 ? 212.5 : 1840.25);
    }
  }
}

TEST(TracegenTextTest, MasterWorkerSampleBalancesAnySourceReceives) {
  Trace t = readTraceFile(samplePath("master-worker-3.tgt").string());
  EXPECT_TRUE(roundTrips(t, "master-worker-3"));
  EXPECT_TRUE(balanced(t));
  Expansion ex = expand(t);
  ASSERT_EQ(ex.calls[0].size(), 30u);  // Init, Bcast, 2 Send, 12 x (Recv, Send), Reduce, Finalize
  std::int64_t anyReceives = 0;
  std::map<Rank, int> stops;
  for (const Call& c : ex.calls[0]) {
    if (c.op == Op::Recv) anyReceives += c.peer == kAnySource;
    if (c.op == Op::Send && c.tag == 3) {
      ++stops[c.peer];
      EXPECT_EQ(c.bytes, 0);
    }
  }
  EXPECT_EQ(anyReceives, 12);
  EXPECT_EQ(stops, (std::map<Rank, int>{{1, 1}, {2, 1}}));
  for (Rank w : {1, 2}) {
    const auto& calls = ex.calls[static_cast<std::size_t>(w)];
    ASSERT_EQ(calls.size(), 17u);  // Init, Bcast, Recv, 6 x (Send, Recv), Reduce, Finalize
    EXPECT_EQ(calls[14].tag, 3);   // the last receive is the stop message
    EXPECT_EQ(calls[15].op, Op::Reduce);
    EXPECT_EQ(calls[15].root, 0);
    EXPECT_EQ(calls[3].computeUs, 5020.0);
    EXPECT_EQ(calls[5].computeUs, 4996.1);
  }
  const Event& reduce = t.events[8];
  ASSERT_EQ(reduce.mergedSites.size(), 1u);
  EXPECT_EQ(t.siteName(reduce.mergedSites[0]), "worker.c:40");
}

TEST(TracegenTextTest, ProcNullSampleExpandsWithoutPartners) {
  Trace t = readTraceFile(samplePath("shift-null-4.tgt").string());
  EXPECT_TRUE(roundTrips(t, "shift-null-4"));
  const std::string text = tracegenText(t);
  EXPECT_NE(text.find("\n  dest null @ <1 3 {1 0}>\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  source null @ <1 0 {1 0}>\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  dest null 1 @ <1 0 {2 2}>\n"), std::string::npos) << text;
  const Event& sendrecv = t.events[1];
  EXPECT_FALSE(sendrecv.param(Param::Dest)->relative);
  EXPECT_EQ(sendrecv.param(Param::Dest)->groupFor(3)->values, std::vector<std::int64_t>{kProcNull});

  Expansion ex = expand(t);
  // Init, Sendrecv, Comm_split, 2 x (Isend, Recv, Wait), Probe, Comm_free, Finalize.
  for (const auto& calls : ex.calls) ASSERT_EQ(calls.size(), 12u);
  const auto& r0 = ex.calls[0];
  EXPECT_EQ(r0[1].peer, 1);
  EXPECT_EQ(r0[1].bytes, 32);
  EXPECT_EQ(r0[1].recvPeer, kProcNull);  // the shift's first rank receives nothing
  EXPECT_EQ(r0[1].recvBytes, 0);
  const auto& r3 = ex.calls[3];
  EXPECT_EQ(r3[1].peer, kProcNull);  // and its last rank sends nothing
  EXPECT_EQ(r3[1].bytes, 0);
  EXPECT_EQ(r3[1].recvPeer, 2);
  EXPECT_EQ(r3[1].recvBytes, 32);
  // On the row communicator MPI_PROC_NULL is no communicator rank to translate.
  for (Rank r = 0; r < 4; ++r) {
    const auto& c = ex.calls[static_cast<std::size_t>(r)];
    const Rank partner = r ^ 1;
    const bool nullFirst = r % 2 == 0;
    EXPECT_EQ(c[3].op, Op::Isend);
    EXPECT_EQ(c[3].peer, nullFirst ? kProcNull : partner) << "rank " << r;
    EXPECT_TRUE(c[3].peerIsWorld);
    EXPECT_EQ(c[3].bytes, nullFirst ? 0 : 64);
    EXPECT_EQ(c[6].peer, nullFirst ? partner : kProcNull) << "rank " << r;
    EXPECT_EQ(c[4].op, Op::Recv);
    EXPECT_EQ(c[4].peer, nullFirst ? kProcNull : partner);
    EXPECT_EQ(c[4].recvBytes, nullFirst ? 0 : 64);
    EXPECT_EQ(c[5].completes, std::vector<std::int64_t>{3});
    EXPECT_EQ(c[9].op, Op::Probe);
    EXPECT_EQ(c[9].peer, kProcNull);
  }
  // The calls count, their bytes do not.
  const auto summary = summarizeRanks(t);
  EXPECT_EQ(summary[0].ops.at("MPI_Sendrecv"), 1);
  EXPECT_EQ(summary[0].ops.at("MPI_Isend"), 2);
  EXPECT_EQ(summary[0].bytesSent, 32 + 64);
  EXPECT_EQ(summary[0].bytesReceived, 64);
  EXPECT_EQ(summary[3].bytesSent, 64);
  EXPECT_EQ(summary[3].bytesReceived, 32 + 64);
}

// A trace that uses what neither ScalaTrace nor the samples do: explicit datatype ids, user
// communicators, world peers, compute times, absent sites, numbered reduction operators,
// non-uniform loop and parameter groups, an empty origin.
TEST(TracegenTextTest, EveryModelFeatureRoundTrips) {
  Trace t;
  t.numRanks = 6;
  t.worldPeers = true;
  // type1000 is the first non-predefined type and gets 1000 by default; the others need `id=`.
  t.datatypes = {{12, "MPI_BYTE", 1}, {1000, "type1000", 24}, {24, "MPI_2INT", 8}, {1007, "halo_t", 40}, {3, "MPI_INT", 4}};
  t.comms = standardCommunicators(6);
  t.comms.push_back({1000, "split", {RankList::progression(0, 3, 2), RankList::progression(1, 3, 2)}});
  t.comms.push_back({1001, "dup", {}});
  SiteId a = t.internSite("a.c:1"), b = t.internSite("b.c:2"), c = t.internSite("481caa_48202a");
  auto all = RankList::all(6);
  Event init;
  init.id = 10;
  init.op = Op::InitThread;
  init.ranks = all;
  init.site = a;
  Event split;
  split.id = 3;
  split.op = Op::CommSplit;
  split.ranks = all;
  split.site = kNoSite;
  split.mergedSites = {b, c};
  split.setParam(Param::Color, {{RankList::progression(0, 3, 2), {0}}, {RankList::progression(1, 3, 2), {1}}});
  split.setParam(Param::Key, {{all, {0, 5, 3}}}, true);
  split.setParam(Param::NewComm, {{all, {1000}}});
  Event send;
  send.id = 4;
  send.op = Op::Send;
  send.ranks = RankList::progression(0, 3, 2);
  send.site = b;
  LoopLevel outer, inner;
  outer.iter = {{RankList::single(0), {3, 1}}, {RankList::progression(2, 2, 2), {2}}};
  outer.mem = {{send.ranks, {2}}};
  inner.iter = {{RankList::single(4), {0, 7}}};
  inner.mem = {{RankList::single(4), {1}}};
  send.loops = {outer, inner};
  send.setParam(Param::Datatype, {{send.ranks, {1000, 24, 1007, 12}}});
  send.setParam(Param::Dest, {{send.ranks, {1}}}, true);
  // Counts and times at the ends of their ranges (docs/trace-format.md, "Limits").
  send.setParam(Param::Count, {{send.ranks, {3, 0, 2147483647}}});
  send.setParam(Param::Comm, {{send.ranks, {1000}}});
  TimeStat st;
  st.phase = Phase::Mpi;
  st.unit = TimeUnit::Microseconds;
  st.after = kNoSite;
  st.hist = Histogram{3, 1e-05, 5, 0.1, 0, 1.0 / 3.0, {{0, 0.1, 0.2, 0.3, 1e15, 3}}};
  send.stats.push_back(st);
  st.phase = Phase::Compute;
  st.unit = TimeUnit::KiloInstructions;
  st.after = a;
  st.hist = Histogram{0, 0, 0, 0, 0, 0, {}};
  send.stats.push_back(st);
  send.compute = {{a, 12.5, {}}, {kNoSite, 0.1 + 0.2, {}}};
  Event recv;
  recv.id = 5;
  recv.op = Op::Recv;
  recv.ranks = RankList::progression(1, 3, 2);
  recv.site = c;
  recv.setParam(Param::Source, {{RankList::single(1), {kAnySource, 2}}, {RankList::progression(3, 2, 2), {0}}}, true);
  recv.setParam(Param::Datatype, {{recv.ranks, {3}}});
  Event reduce;
  reduce.id = 6;
  reduce.op = Op::Allreduce;
  reduce.ranks = all;
  reduce.setParam(Param::ReduceOp, {{all, {3, 42, 0}}});
  reduce.setParam(Param::Datatype, {{all, {1000}}});
  Event fin;
  fin.id = 0;
  fin.op = Op::Finalize;
  fin.ranks = all;
  t.events = {init, split, send, recv, reduce, fin};

  EXPECT_TRUE(roundTrips(t, "features"));
  const std::string text = tracegenText(t);
  EXPECT_NE(text.find("\ndatatype MPI_2INT 8 id=24\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndatatype type1000 24\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndatatype halo_t 40 id=1007\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndatatype MPI_INT 4\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\npeers world\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ncomm 1000 split (<1 0 {3 2}>) (<1 1 {3 2}>)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  site - b.c:2 481caa_48202a\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  source rel any 2 @ <1 1 {1 0}>\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  op MPI_SUM 42 MPI_OP_NULL\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n  compute after - us=0.30000000000000004\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 0.3333333333333333@0 [0 0.1 0.2 0.3 1000000000000000 3]"), std::string::npos) << text;
  EXPECT_EQ(text.find("origin"), std::string::npos);
}

TEST(TracegenTextTest, WriterRejectsNamesThatWouldNotReadBack) {
  Trace t = readTraceFile(samplePath("ring-4.tgt").string());
  Trace spaced = t;
  spaced.origin = "hand written";
  EXPECT_THROW(tracegenText(spaced), std::invalid_argument);
  Trace bracket = t;
  bracket.sites[0] = "f(x)";
  EXPECT_THROW(tracegenText(bracket), std::invalid_argument);
  Trace undeclared = t;
  undeclared.datatypes.clear();
  EXPECT_THROW(tracegenText(undeclared), std::invalid_argument);
  // MPI_PROC_NULL is no offset: a relative peer list cannot hold it.
  Trace relativeNull = t;
  relativeNull.events[1].setParam(Param::Dest, {{relativeNull.events[1].ranks, {1, kProcNull}}}, true);
  EXPECT_THROW(tracegenText(relativeNull), std::invalid_argument);
}

TEST(TracegenTextTest, RankListSpellings) {
  auto ranksOf = [](const std::string& list) {
    std::string text = "tracegen-trace 1\nranks 16\nevent 0 MPI_Init @ <1 0 {16 1}>\nevent 1 MPI_Barrier @ " + list +
                       "\nevent 2 MPI_Finalize @ <1 0 {16 1}>\n";
    return parseText("lists.tgt", text).events[1].ranks.toVector();
  };
  using V = std::vector<Rank>;
  EXPECT_EQ(ranksOf("< 1 0 { 4 1 } >"), (V{0, 1, 2, 3}));
  EXPECT_EQ(ranksOf("<1 5 {1 0}>"), (V{5}));
  EXPECT_EQ(ranksOf("<0 5>"), (V{5}));
  EXPECT_EQ(ranksOf("<2 5 {2 1} {3 4}>"), (V{5, 6, 9, 10, 13, 14}));
  EXPECT_EQ(ranksOf("<1 0 {4 1}> <1 5 {2 1}>"), (V{0, 1, 2, 3, 5, 6}));
  EXPECT_EQ(ranksOf("<1 9 {3 -3}>"), (V{3, 6, 9}));
  EXPECT_EQ(ranksOf("<2 0 {3 2} {2 3}>"), (V{0, 2, 3, 4, 5, 7}));  // interleaved dimensions
}

// The reader decides ranklist validity, group containment and overlap on the tuples' numbers;
// these must agree with plain enumeration of the sections as written.
TEST(TracegenTextTest, RankListChecksAgreeWithEnumeration) {
  constexpr Rank P = 24;
  std::mt19937 rng(7);
  auto pick = [&](int lo, int hi) { return static_cast<Rank>(lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1))); };
  // A random list as text and its members as written (duplicates and all).
  auto randomList = [&](int maxSections, std::vector<Rank>& members) {
    std::string text;
    members.clear();
    for (int s = 0, n = static_cast<int>(pick(1, maxSections)); s < n; ++s) {
      Rank start = pick(-2, static_cast<int>(P) + 1);
      std::vector<RankDim> dims(static_cast<std::size_t>(pick(0, 3)));
      for (auto& d : dims) d = {pick(1, 5), pick(-9, 9)};
      text += fmt::format("<{} {}", dims.size(), start);
      for (auto& d : dims) text += fmt::format(" {{{} {}}}", d.iters, d.stride);
      text += "> ";
      std::vector<Rank> section{start};
      for (auto& d : dims) {
        std::vector<Rank> grown;
        for (Rank k = 0; k < d.iters; ++k)
          for (Rank r : section) grown.push_back(r + k * d.stride);
        section = grown;
      }
      members.insert(members.end(), section.begin(), section.end());
    }
    return text;
  };
  auto validSet = [&](const std::vector<Rank>& m) {
    std::set<Rank> set(m.begin(), m.end());
    return set.size() == m.size() && (set.empty() || (*set.begin() >= 0 && *set.rbegin() < P));
  };
  const std::string head = fmt::format("tracegen-trace 1\nranks {}\nevent 0 MPI_Init @ <1 0 {{{} 1}}>\n", P, P);
  const std::string tail = fmt::format("event 2 MPI_Finalize @ <1 0 {{{} 1}}>\n", P);
  int accepted = 0, groupsAccepted = 0;
  for (int round = 0; round < 4000; ++round) {
    std::vector<Rank> m;
    std::string list = randomList(3, m);
    std::string text = head + "event 1 MPI_Barrier @ " + list + "\n" + tail;
    if (validSet(m)) {
      Trace t = parseText("lists.tgt", text);
      std::sort(m.begin(), m.end());
      EXPECT_EQ(t.events[1].ranks.toVector(), m) << list;
      ++accepted;
    } else {
      EXPECT_THROW(parseText("lists.tgt", text), InputError) << list;
    }
    // Two parameter groups on a valid event ranklist: containment, overlap and coverage.
    // The event runs on all ranks, one random section or a random list; group a is random or
    // cut down to the event's ranks, group b random or exactly the rest of the event's ranks.
    std::vector<Rank> e, a, b;
    std::string le, la, lb;
    const int shape = round % 3;
    if (shape == 0) {
      le = fmt::format("<1 0 {{{} 1}}>", P);
      for (Rank r = 0; r < P; ++r) e.push_back(r);
    } else {
      do le = randomList(shape == 1 ? 1 : 2, e); while (!validSet(e));
    }
    std::set<Rank> se(e.begin(), e.end());
    do {
      la = randomList(2, a);
      if (validSet(a) && round % 2 == 0) {
        std::vector<Rank> cut;
        for (Rank r : std::set<Rank>(a.begin(), a.end()))
          if (se.count(r)) cut.push_back(r);
        a = cut;
        la = RankList::fromSorted(cut).str();
      }
    } while (!validSet(a) || a.empty());
    std::set<Rank> sa(a.begin(), a.end());
    std::vector<Rank> rest;
    for (Rank r : se)
      if (!sa.count(r)) rest.push_back(r);
    if (round % 4 < 2 && !rest.empty()) {
      b = rest;
      lb = RankList::fromSorted(rest).str();
    } else {
      do lb = randomList(2, b); while (!validSet(b) || b.empty());
    }
    std::set<Rank> sb(b.begin(), b.end());
    std::set<Rank> both;
    std::set_intersection(sa.begin(), sa.end(), sb.begin(), sb.end(), std::inserter(both, both.begin()));
    const bool aIn = std::includes(se.begin(), se.end(), sa.begin(), sa.end());
    const bool bIn = std::includes(se.begin(), se.end(), sb.begin(), sb.end());
    std::string groups = head + "event 1 MPI_Barrier @ " + le + "\n  tag 1 @ " + la + "\n  tag 2 @ " + lb + "\n" + tail;
    std::string expected = !aIn || !bIn ? "do not execute" : !both.empty() ? "two value lists" : sa.size() + sb.size() != se.size() ? "values for" : "";
    try {
      parseText("groups.tgt", groups);
      EXPECT_EQ(expected, "") << groups;
      ++groupsAccepted;
    } catch (const InputError& err) {
      EXPECT_FALSE(expected.empty()) << err.render();
      if (!expected.empty()) {
        EXPECT_NE(err.message().find(expected), std::string::npos) << err.render() << "\n" << groups;
      }
    }
  }
  EXPECT_GT(accepted, 200);
  EXPECT_GT(groupsAccepted, 200);
}

TEST(TracegenTextTest, MillionRankGroupsAreCheckedWithoutEnumeration) {
  // Odd and even ranks of 2^30 each: enumerating them would take minutes.
  const Rank P = Rank{1} << 31;
  const Rank h = P / 2;
  std::string text = fmt::format(
      "tracegen-trace 1\nranks {}\nevent 0 MPI_Init @ <1 0 {{{} 1}}>\n"
      "event 1 MPI_Sendrecv @ <1 0 {{{} 1}}>\n  dest rel 1 @ <1 0 {{{} 2}}>\n  dest rel {} @ <1 1 {{{} 2}}>\n"
      "  loop 0 iter 3 @ <1 0 {{{} 2}}>\n  loop 0 iter 2 @ <1 1 {{{} 2}}>\n  loop 0 mem 1\n"
      "event 2 MPI_Finalize @ <1 0 {{{} 1}}>\n",
      P - 1, P - 1, P - 1, h, P - 2, h - 1, h, h - 1, P - 1);
  Trace t = parseText("huge.tgt", text);
  EXPECT_EQ(t.events[1].param(Param::Dest)->groups.size(), 2u);
  EXPECT_EQ(tracegenText(parseText("huge2.tgt", tracegenText(t))), tracegenText(t));
}

// ---------------------------------------------------------------------------------------------
// Malformed input: every error names the file and the line that causes it.

// Line numbers of kValid are what the tests below pin their errors to.
const std::vector<std::string> kValid = {
    "tracegen-trace 1",                      // 1
    "ranks 4",                               // 2
    "datatype MPI_DOUBLE 8",                 // 3
    "",                                      // 4
    "event 0 MPI_Init @ <1 0 {4 1}>",        // 5
    "event 1 MPI_Send @ <1 0 {2 2}>",        // 6
    "  count 8",                             // 7
    "  datatype MPI_DOUBLE",                 // 8
    "  dest rel 1",                          // 9
    "  tag 0",                               // 10
    "event 2 MPI_Recv @ <1 1 {2 2}>",        // 11
    "  count 8",                             // 12
    "  datatype MPI_DOUBLE",                 // 13
    "  source rel 3",                        // 14
    "  tag 0",                               // 15
    "event 3 MPI_Finalize @ <1 0 {4 1}>",    // 16
};

std::string join(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// kValid with line `n` (1-based) replaced by `text`; several lines separated by '\n' insert.
std::string withLine(int n, const std::string& text) {
  auto lines = kValid;
  lines[static_cast<std::size_t>(n - 1)] = text;
  return join(lines);
}

std::string withoutLine(int n) {
  auto lines = kValid;
  lines.erase(lines.begin() + (n - 1));
  return join(lines);
}

void expectError(const std::string& text, int line, const std::string& what) {
  try {
    readTracegenText(sourceFromString("bad.tgt", text));
    ADD_FAILURE() << "accepted:\n" << text;
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "bad.tgt");
    EXPECT_EQ(e.line(), line) << e.render();
    EXPECT_NE(e.message().find(what), std::string::npos) << "expected '" << what << "' in: " << e.render();
    EXPECT_EQ(std::string(e.what()).rfind("bad.tgt:" + std::to_string(line) + ": error: ", 0), 0u) << e.what();
  }
}

TEST(TracegenTextTest, ValidBaseTraceParses) {
  Trace t = readTracegenText(sourceFromString("good.tgt", join(kValid)));
  EXPECT_EQ(t.events.size(), 4u);
  EXPECT_TRUE(balanced(t));
  EXPECT_TRUE(roundTrips(t, "good"));
}

// Timing sub-groups: ranks whose compute times differ keep their own histogram (`after SITE
// @ RANKLIST`), and a `compute` line its own value; both round-trip, and each rank's expansion
// carries its group's time.
TEST(TracegenTextTest, TimingSubGroupsParseAndRoundTrip) {
  const std::string head =
      "tracegen-trace 1\nranks 4\n"
      "event 0 MPI_Init @ <1 0 {4 1}>\n  site init\n"
      "event 1 MPI_Barrier @ <1 0 {4 1}>\n  site b\n  loop 0 iter 10\n  loop 0 mem 1\n  comm 2\n"
      "  time comp us after init n=4 avg=100 min=100@0 max=100@0 bins=[100 100 100 100 100 4]\n";
  const std::string groups =
      "  time comp us after b @ <1 0 {2 1}> n=18 avg=1000 min=1000@0 max=1000@0 bins=[1000 1000 1000 1000 1000 18]\n"
      "  time comp us after b @ <1 2 {2 1}> n=18 avg=3000 min=3000@2 max=3000@2 bins=[3000 3000 3000 3000 3000 18]\n";
  const std::string tail = "event 2 MPI_Finalize @ <1 0 {4 1}>\n  site fin\n";
  Trace t = readTracegenText(sourceFromString("groups.tgt", head + groups + tail));
  const Event& b = t.events[1];
  ASSERT_EQ(b.stats.size(), 3u);
  EXPECT_TRUE(b.stats[0].ranks.empty());
  EXPECT_EQ(b.stats[1].ranks, RankList::progression(0, 2));
  EXPECT_EQ(b.stats[2].ranks, RankList::progression(2, 2));
  EXPECT_TRUE(roundTrips(t, "groups"));
  EXPECT_NE(tracegenText(t).find("after b @ <1 2 {2 1}> 18 "), std::string::npos) << tracegenText(t);
  for (Rank r = 0; r < 4; ++r)
    EXPECT_DOUBLE_EQ(tracegen::testing::replayedComputeUs(t, r), 100 + 9 * (r < 2 ? 1000 : 3000)) << "rank " << r;
  // Summarised compute times carry the groups too.
  Event& e = t.events[1];
  e.compute = {{e.stats[0].after, 100, {}}, {e.stats[1].after, 1000, RankList::progression(0, 2)},
               {e.stats[1].after, 3000, RankList::progression(2, 2)}};
  EXPECT_TRUE(roundTrips(t, "groups-compute"));
  EXPECT_NE(tracegenText(t).find("compute after b @ <1 0 {2 1}> us=1000"), std::string::npos) << tracegenText(t);

  // Sub-groups of one predecessor are disjoint ranks of the event; a line without ranks is alone.
  const std::string overlap =
      "  time comp us after b @ <1 0 {3 1}> n=1 avg=1 min=1@0 max=1@0 bins=[1 1 1 1 1 1]\n"
      "  time comp us after b @ <1 2 {2 1}> n=1 avg=3 min=3@2 max=3@2 bins=[3 3 3 3 3 1]\n";
  expectError(head + overlap + tail, 12, "timing sub-group 2-3 overlaps another line for the same predecessor");
  const std::string unnamed =
      "  time comp us after b n=1 avg=1 min=1@0 max=1@0 bins=[1 1 1 1 1 1]\n"
      "  time comp us after b @ <1 2 {2 1}> n=1 avg=3 min=3@2 max=3@2 bins=[3 3 3 3 3 1]\n";
  expectError(head + unnamed + tail, 12, "overlaps another line for the same predecessor");
  const std::string twice =
      "  time comp us after b @ <1 2 {2 1}> n=1 avg=3 min=3@2 max=3@2 bins=[3 3 3 3 3 1]\n"
      "  time comp us after b n=1 avg=1 min=1@0 max=1@0 bins=[1 1 1 1 1 1]\n";
  expectError(head + twice + tail, 12, "a second line for the same predecessor without `@ RANKLIST`");
  const std::string outside = "  time comp us after b @ <1 5 {1 0}> n=1 avg=1 min=1@0 max=1@0 bins=[1 1 1 1 1 1]\n";
  expectError(head + outside + tail, 11, "ranks");
}

// The process footprint in the header: peak resident memory per rank group and the time
// before MPI_Init; read, written back, and checked (groups within the ranks and disjoint).
TEST(TracegenTextTest, FootprintLinesParseAndRoundTrip) {
  const std::string body = "event 0 MPI_Init @ <1 0 {4 1}>\n  site init\nevent 1 MPI_Finalize @ <1 0 {4 1}>\n  site fin\n";
  Trace t = readTracegenText(sourceFromString(
      "fp.tgt", "tracegen-trace 1\nranks 4\nfootprint memory-kb 238000 @ <1 0 {1 0}>\nfootprint memory-kb 21000 @ <1 1 {3 1}>\n"
                "footprint before-init-us 31000\n" + body));
  ASSERT_EQ(t.memoryKb.size(), 2u);
  EXPECT_EQ(t.memoryKb[0].ranks, RankList::single(0));
  EXPECT_EQ(t.memoryKb[0].values, std::vector<std::int64_t>{238000});
  EXPECT_EQ(t.memoryKb[1].ranks, RankList::progression(1, 3));
  EXPECT_EQ(t.beforeInitUs, 31000);
  EXPECT_TRUE(roundTrips(t, "footprint"));
  EXPECT_NE(tracegenText(t).find("\nfootprint memory-kb 21000 @ <1 1 {3 1}>\nfootprint before-init-us 31000\n"),
            std::string::npos)
      << tracegenText(t);
  // One group for every rank is written without its ranklist.
  Trace all = readTracegenText(sourceFromString("fp1.tgt", "tracegen-trace 1\nranks 4\nfootprint memory-kb 5000\n" + body));
  EXPECT_EQ(all.memoryKb.at(0).ranks, RankList::all(4));
  EXPECT_NE(tracegenText(all).find("\nfootprint memory-kb 5000\n"), std::string::npos) << tracegenText(all);
  expectError("tracegen-trace 1\nranks 4\nfootprint memory-kb 1 @ <1 0 {2 1}>\nfootprint memory-kb 2 @ <1 1 {2 1}>\n" + body, 4,
              "footprint group 1-2 overlaps group 0-1");
  expectError("tracegen-trace 1\nranks 4\nfootprint memory-kb 1 @ <1 3 {2 1}>\n" + body, 3, "names ranks outside the trace's ranks 0..3");
  expectError("tracegen-trace 1\nranks 4\nfootprint heap 1\n" + body, 3, "unknown footprint 'heap'");
  expectError("tracegen-trace 1\nfootprint memory-kb 1\nranks 4\n" + body, 2, "before the `ranks` line");
  expectError("tracegen-trace 1\nranks 4\nfootprint before-init-us 1\nfootprint before-init-us 2\n" + body, 4,
              "second 'footprint before-init-us' line");
  // The time after MPI_Finalize: in the header, or after the events, where the recorder appends
  // it at the process's exit; written in the header.
  Trace after = readTracegenText(sourceFromString("fa.tgt", "tracegen-trace 1\nranks 4\n" + body + "footprint after-finalize-us 1200\n"));
  EXPECT_EQ(after.afterFinalizeUs, 1200);
  EXPECT_TRUE(roundTrips(after, "footprint after"));
  EXPECT_NE(tracegenText(after).find("\nfootprint after-finalize-us 1200\n"), std::string::npos);
  EXPECT_EQ(tracegenText(after).find("footprint after-finalize-us"), tracegenText(after).rfind("footprint after-finalize-us"));
  expectError("tracegen-trace 1\nranks 4\nfootprint after-finalize-us 1\n" + body + "footprint after-finalize-us 2\n", 8,
              "second 'footprint after-finalize-us' line");
  expectError("tracegen-trace 1\nranks 4\n" + body + "footprint before-init-us 2\n", 7, "header line 'footprint' after the first event");
}

TEST(TracegenTextTest, ErrorEmptyFile) {
  expectError("", 1, "empty trace file");
  expectError("# nothing here\n\n   \n", 3, "empty trace file");
}

TEST(TracegenTextTest, ErrorMissingMagic) {
  expectError(withLine(1, "ranks 4"), 1, "not a tracegen trace");
  expectError(withLine(1, "tracegen-trace"), 1, "missing format version");
}

TEST(TracegenTextTest, ErrorUnknownVersion) {
  expectError(withLine(1, "tracegen-trace 2"), 1, "unsupported format version 2");
  expectError(withLine(1, "tracegen-trace one"), 1, "bad number 'one'");
}

TEST(TracegenTextTest, ErrorBadNumber) {
  expectError(withLine(7, "  count 8x"), 7, "bad number '8x' for count");
  expectError(withLine(2, "ranks 4.5"), 2, "bad number '4.5'");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {2 two}>"), 6, "bad number 'two'");
}

TEST(TracegenTextTest, ErrorUnknownOperation) {
  expectError(withLine(6, "event 1 MPI_Sned @ <1 0 {2 2}>"), 6, "unknown operation 'MPI_Sned'");
}

TEST(TracegenTextTest, ErrorUnknownParameter) {
  expectError(withLine(10, "  colour 3"), 10, "unknown parameter or event attribute 'colour'");
}

TEST(TracegenTextTest, ErrorUnknownDatatype) {
  expectError(withLine(8, "  datatype MPI_FLOAT"), 8, "unknown datatype 'MPI_FLOAT'");
}

TEST(TracegenTextTest, ErrorRankListOutsideWorld) {
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {3 2}>"), 6, "outside the trace's ranks 0..3");
  expectError(withLine(6, "event 1 MPI_Send @ <1 -2 {2 2}>"), 6, "outside the trace's ranks 0..3");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {9223372036854775807 9223372036854775807}>"), 6, "outside");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {2 -9223372036854775808}>"), 6, "outside");
  expectError(withLine(9, "  dest 4"), 9, "dest 4 is outside");
}

TEST(TracegenTextTest, ProcNullIsAnAbsolutePeerOnly) {
  // `null` is MPI_PROC_NULL where a dest or source may be, on lines without `rel`.
  Trace t = readTracegenText(sourceFromString("null.tgt", withLine(9, "  dest null")));
  EXPECT_EQ(t.events[1].param(Param::Dest)->groups[0].values, std::vector<std::int64_t>{kProcNull});
  t = readTracegenText(sourceFromString("null.tgt", withLine(14, "  source 0 null")));
  EXPECT_EQ(t.events[2].param(Param::Source)->groups[0].values, (std::vector<std::int64_t>{0, kProcNull}));
  expectError(withLine(9, "  dest rel null"), 9, "'dest rel' cannot hold 'null'");
  expectError(withLine(14, "  source rel 3 null"), 14, "'source rel' cannot hold 'null'");
  expectError(withLine(9, "  dest NULL"), 9, "bad number 'NULL' for dest");
  expectError(withLine(9, "  dest -3"), 9, "dest -3 is outside");
  expectError(withLine(10, "  tag null"), 10, "bad number 'null' for tag");
  expectError(withLine(10, "  tag 0\n  root null"), 11, "bad number 'null' for root");
  expectError(withLine(9, "  dest any"), 9, "bad number 'any' for dest");
}

TEST(TracegenTextTest, ErrorMalformedRankList) {
  expectError(withLine(6, "event 1 MPI_Send @ <2 0 {2 2}>"), 6, "declares 2 dimensions but has 1 {iters stride} pair");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {2 2} {1 0}>"), 6, "declares 1 dimension but has 2");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {2 2}"), 6, "expected '>'");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {2 0}>"), 6, "stride 0");
  expectError(withLine(6, "event 1 MPI_Send @ <1 0 {2 2}> <1 2 {1 0}>"), 6, "more than once");
}

TEST(TracegenTextTest, ErrorOverlappingParameterGroups) {
  expectError(withLine(9, "  dest rel 1 @ <1 0 {2 2}>\n  dest rel 1 @ <1 2 {1 0}>"), 10, "two value lists");
}

TEST(TracegenTextTest, ErrorParameterGroupsDoNotCover) {
  expectError(withLine(9, "  dest rel 1 @ <1 0 {1 0}>"), 9, "values for 1 of the event's 2 ranks");
  expectError(withLine(9, "  dest rel 1 @ <1 1 {1 0}>"), 9, "do not execute event 1");
  expectError(withLine(9, "  dest rel 1 @ <1 0 {1 0}>\n  dest 3 @ <1 2 {1 0}>"), 10, "'rel' on some lines");
}

TEST(TracegenTextTest, ErrorHistogramFrequencies) {
  expectError(withLine(10, "  tag 0\n  time comp us after - n=3 avg=1 min=1@0 max=1@0 bins=[0 1 1 1 2 2]"), 11,
              "bins hold 2 samples but its header says 3");
}

TEST(TracegenTextTest, ErrorDuplicateEventId) {
  expectError(withLine(11, "event 1 MPI_Recv @ <1 1 {2 2}>"), 11, "event id 1 is used twice (first at line 6)");
}

TEST(TracegenTextTest, ErrorLineBeforeFirstEventIsNotAHeaderLine) {
  expectError(withLine(4, "hello 3"), 4, "unknown header line 'hello'");
  expectError(withLine(4, "ranks 5"), 4, "second 'ranks' line");
  expectError(withoutLine(2), 4, "no `ranks P` line");
}

TEST(TracegenTextTest, ErrorAttributeLineWithoutEvent) {
  expectError(withLine(4, "  count 8"), 4, "'count' line before the first event");
  expectError(withLine(4, "  site main.c:3"), 4, "'site' line before the first event");
  expectError(withLine(10, "origin late"), 10, "header line 'origin' after the first event");
}

TEST(TracegenTextTest, ErrorLoopSpansMissingEvents) {
  expectError(withLine(10, "  tag 0\n  loop 0 iter 2\n  loop 0 mem 5"), 6, "spans 5 events");
  expectError(withLine(10, "  tag 0\n  loop 1 iter 2\n  loop 1 mem 1"), 11, "loop level 1 without level 0");
  expectError(withLine(10, "  tag 0\n  loop 0 iter 2"), 11, "has no 'mem' line");
}

TEST(TracegenTextTest, ErrorTruncatedFile) {
  expectError(withoutLine(16), 15, "not MPI_Finalize: the file is truncated");
  expectError(withLine(5, "event 0 MPI_Barrier @ <1 0 {4 1}>"), 5, "not MPI_Init");
  auto lines = kValid;
  lines.resize(4);
  expectError(join(lines), 4, "no events");
}

TEST(TracegenTextTest, ErrorBinaryGarbage) {
  std::string text = join(kValid);
  text.insert(text.find("event 1"), std::string("\x7f" "ELF\x02\x01", 6));
  try {
    readTrace(sourceFromString("bad.tgt", text));
    ADD_FAILURE() << "binary data accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.line(), 6);
    EXPECT_NE(e.message().find("binary data"), std::string::npos) << e.render();
  }
}

// Whatever the damage, the reader answers with an InputError (or a trace), never a crash, a
// hang or another exception: every truncation of a written trace, and random token edits.
TEST(TracegenTextTest, DamagedInputOnlyRaisesInputErrors) {
  const std::string text = tracegenText(readTraceFile(samplePath("stencil-2d-4.tgt").string()));
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // Cut before the MPI_Finalize event, a file is truncated; after it, only the event's site
  // line goes missing, which is still a valid trace.
  std::size_t finalize = 0;
  for (std::size_t n = 0; n < lines.size(); ++n)
    if (lines[n].rfind("event ", 0) == 0) finalize = n;
  ASSERT_NE(lines[finalize].find("MPI_Finalize"), std::string::npos);
  for (std::size_t n = 0; n <= lines.size(); ++n) {
    std::vector<std::string> prefix(lines.begin(), lines.begin() + static_cast<std::ptrdiff_t>(n));
    if (n <= finalize)
      EXPECT_THROW(readTracegenText(sourceFromString("cut.tgt", join(prefix))), InputError) << "prefix of " << n << " lines";
    else
      EXPECT_NO_THROW(readTracegenText(sourceFromString("cut.tgt", join(prefix)))) << "prefix of " << n << " lines";
  }
  const std::vector<std::string> junk = {"<", ">", "{", "}", "@", "=", "[", "]", "(", ")", "-1", "0", "99999999999999999999",
                                         "9223372036854775807", "-9223372036854775808", "any", "null", "rel", "event",
                                         "loop", "x", "1e308", "#", "~"};
  std::mt19937 rng(20240611);
  int accepted = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string damaged = text;
    for (int edits = 0; edits < 3; ++edits) {
      std::size_t pos = rng() % damaged.size();
      std::size_t len = rng() % 6;
      damaged.replace(pos, std::min(len, damaged.size() - pos), " " + junk[rng() % junk.size()] + " ");
    }
    try {
      Trace t = readTracegenText(sourceFromString("fuzz.tgt", damaged));
      ++accepted;
      EXPECT_TRUE(roundTrips(t, "fuzz")) << damaged;
    } catch (const InputError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what() << " for:\n" << damaged;
    }
  }
  EXPECT_LT(accepted, 3000);
}

// The compute clock (`clock cpu`, the recorder's TRACEGEN_CLOCK=cpu): read, written only when
// it is not the default, compared, and a bad value or a second line is an error at its line.
TEST(TracegenTextTest, ComputeClockLine) {
  const std::string base = "tracegen-trace 1\nranks 2\norigin tracegen-record\n";
  const std::string events = "event 0 MPI_Init @ <1 0 {2 1}>\nevent 1 MPI_Finalize @ <1 0 {2 1}>\n";
  Trace wall = parseText("wall.tgt", base + events);
  EXPECT_EQ(wall.computeClock, ComputeClock::Wall);
  EXPECT_EQ(tracegenText(wall).find("clock"), std::string::npos);
  Trace cpu = parseText("cpu.tgt", base + "clock cpu\n" + events);
  EXPECT_EQ(cpu.computeClock, ComputeClock::Cpu);
  EXPECT_FALSE(cpu == wall);
  const std::string text = tracegenText(cpu);
  EXPECT_NE(text.find("\nclock cpu\n"), std::string::npos) << text;
  EXPECT_TRUE(parseText("again.tgt", text) == cpu);
  EXPECT_EQ(parseText("explicit.tgt", base + "clock wall\n" + events).computeClock, ComputeClock::Wall);
  expectError(base + "clock cycles\n" + events, 4, "unknown compute clock 'cycles'");
  expectError(base + "clock cpu\nclock wall\n" + events, 5, "second 'clock' line");
}

TEST(InputErrorText, NamesFileAndLineWhereKnownAndNeverAnEmptyFile) {
  EXPECT_STREQ(InputError("a.tgt", 7, "bad count").what(), "a.tgt:7: error: bad count");
  EXPECT_STREQ(InputError("a.tgt", 0, "no events").what(), "a.tgt: error: no events");
  // A trace built in memory has no file: no ": error:" with nothing before it.
  EXPECT_STREQ(InputError("", 3, "bad count").what(), "error: bad count");
  EXPECT_EQ(InputError("a.tgt", 2, "bad", "count x", "a number").render(),
            "a.tgt:2: error: bad\n    count x\n  hint: a number");
}

TEST(ProgramErrorText, NamesTheLineOfTheCallTheProgramStopsAtWhereKnown) {
  // what() is the message alone (callers match on `potential deadlock:`); render() locates it.
  EXPECT_STREQ(ProgramError("a.tgt", 8, "potential deadlock: 2 of 2 ranks").what(), "potential deadlock: 2 of 2 ranks");
  EXPECT_EQ(ProgramError("a.tgt", 8, "stuck").render(), "a.tgt:8: error: stuck");
  EXPECT_EQ(ProgramError("a.tgt", 0, "stuck").render(), "a.tgt: error: stuck");
  EXPECT_EQ(ProgramError("stuck").render(), "error: stuck");
}

}  // namespace
}  // namespace tracegen
