// The recorder's per-call work without MPI (Google Benchmark): what libtracegen-record.so does
// for every intercepted call besides the PMPI call itself and the handle translations, on the
// call pattern of a halo exchange (per timestep: 4 MPI_Irecv and 4 MPI_Isend from one site each,
// MPI_Waitall, MPI_Allreduce).
//
//   BM_CallSite      CallSites::capture(): the call-site signature (a remembered chain, checked
//                    slot by slot; TRACEGEN_UNWIND=walk measures the full stack walk)
//   BM_Compress      LoopCompressor::append() of one call with its parameters and two times
//   BM_Clock         one clock reading (CLOCK_MONOTONIC; the recorder takes two per call)
//   BM_CpuClock      one CLOCK_THREAD_CPUTIME_ID reading (TRACEGEN_CLOCK=cpu takes two more)
//
// Items per second are calls per second; ns per call is the time column.
#include <benchmark/benchmark.h>
#include <time.h>

#include <cstdint>

#include "record/CallSites.h"
#include "record/LoopCompressor.h"

using tracegen::Op;
using tracegen::Param;
using tracegen::record::CallRecord;
using tracegen::record::CallSites;
using tracegen::record::LoopCompressor;

namespace {

// Distinct call sites, as an application's loop over directions has them.
__attribute__((noinline)) std::uint32_t siteA(CallSites& s) { return s.capture(); }
__attribute__((noinline)) std::uint32_t siteB(CallSites& s) { return s.capture(); }
__attribute__((noinline)) std::uint32_t siteC(CallSites& s) { return s.capture(); }
__attribute__((noinline)) std::uint32_t siteD(CallSites& s) { return s.capture(); }

void BM_CallSite(benchmark::State& state) {
  CallSites sites;
  std::int64_t calls = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(siteA(sites));
    benchmark::DoNotOptimize(siteB(sites));
    benchmark::DoNotOptimize(siteC(sites));
    benchmark::DoNotOptimize(siteD(sites));
    calls += 4;
  }
  state.SetItemsProcessed(calls);
}
BENCHMARK(BM_CallSite);

void fill(CallRecord& c, Op op, std::uint32_t site, std::int64_t peer, std::int64_t tag, std::uint32_t prev) {
  c.clear();
  c.op = op;
  c.site = site;
  c.set(Param::Comm, 2);
  c.set(Param::Count, 1024);
  c.set(Param::Datatype, 10);
  c.set(op == Op::Irecv ? Param::Source : Param::Dest, peer);
  c.set(Param::Tag, tag);
  c.prevSite = prev;
  c.computeUs = 12.5;
  c.mpiUs = 0.8;
}

void BM_Compress(benchmark::State& state) {
  LoopCompressor comp;
  CallRecord c;
  std::int64_t calls = 0;
  std::uint32_t prev = 0;
  auto call = [&](std::uint32_t site) {
    comp.append(c);
    prev = site;
    ++calls;
  };
  for (auto _ : state) {
    for (int d = 0; d < 4; ++d) {
      fill(c, Op::Irecv, 1, d + 1, d, prev);
      call(1);
    }
    for (int d = 0; d < 4; ++d) {
      fill(c, Op::Isend, 2, d + 1, d, prev);
      call(2);
    }
    c.clear();
    c.op = Op::Waitall;
    c.site = 3;
    const std::int64_t reqs[8] = {9992, 9993, 9994, 9995, 9996, 9997, 9998, 9999};
    c.set(Param::Count, 8);
    c.setVector(Param::Requests, reqs, 8);
    c.prevSite = prev;
    c.computeUs = 0.1;
    c.mpiUs = 30;
    call(3);
    c.clear();
    c.op = Op::Allreduce;
    c.site = 4;
    c.set(Param::Comm, 2);
    c.set(Param::Count, 1);
    c.set(Param::Datatype, 10);
    c.set(Param::ReduceOp, 3);
    c.prevSite = prev;
    c.computeUs = 200;
    c.mpiUs = 5;
    call(4);
  }
  state.SetItemsProcessed(calls);
  state.counters["nodes"] = static_cast<double>(comp.totalNodes());
}
BENCHMARK(BM_Compress);

void clockBench(benchmark::State& state, clockid_t id) {
  timespec ts{};
  for (auto _ : state) {
    clock_gettime(id, &ts);
    benchmark::DoNotOptimize(ts);
  }
  state.SetItemsProcessed(state.iterations());
}
void BM_Clock(benchmark::State& state) { clockBench(state, CLOCK_MONOTONIC); }
void BM_CpuClock(benchmark::State& state) { clockBench(state, CLOCK_THREAD_CPUTIME_ID); }
BENCHMARK(BM_Clock);
BENCHMARK(BM_CpuClock);

}  // namespace

BENCHMARK_MAIN();
