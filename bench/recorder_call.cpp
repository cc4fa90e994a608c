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
//   BM_Tsc           (x86-64) one time stamp counter reading, the recorder's per-call clock where
//                    the kernel's clocksource is tsc
//   BM_RecorderHalo  (built with MPI) the whole per-call path of libtracegen-record.so, which this
//                    binary links: one halo step through the wrappers (MPI_*) and one with the
//                    same calls made to PMPI_* directly, in alternating batches of 32 steps,
//                    in a one-rank MPI job (messages to itself); `recorder_ns` is the
//                    difference in thread CPU time per call, i.e. everything a wrapper does
//                    besides its PMPI call (call site, clocks, parameters, request table,
//                    compression), `plain_ns` the PMPI call alone. The difference of two timed
//                    intervals, so read its median over --benchmark_repetitions=5.
//
// Items per second are calls per second; ns per call is the time column (BM_RecorderHalo: the
// time of a batch of both kinds of steps, recorded calls counted as items).
#include <benchmark/benchmark.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <cstdint>
#include <cstdlib>
#if defined(TRACEGEN_BENCH_MPI)
#include <mpi.h>
#endif

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

#if defined(__x86_64__)
void BM_Tsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(__rdtsc());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Tsc);
#endif

#if defined(TRACEGEN_BENCH_MPI)
// One timestep of a halo exchange with the rank itself as every neighbour: 4 MPI_Irecv, 4
// MPI_Isend, MPI_Waitall, MPI_Allreduce. Recorded: through the recorder's wrappers; otherwise
// the same calls to PMPI directly (not seen by the recorder).
constexpr int kHaloCalls = 10;
struct Halo {
  int in[4] = {}, out[4] = {1, 2, 3, 4};
  MPI_Request reqs[8] = {};
  double local = 1, sum = 0;
};

template <bool Recorded>
__attribute__((noinline)) void haloStep(Halo& h) {
  // Only the PMPI_ or MPI_ entry point differs.
  auto irecv = Recorded ? &MPI_Irecv : &PMPI_Irecv;
  auto isend = Recorded ? &MPI_Isend : &PMPI_Isend;
  auto waitall = Recorded ? &MPI_Waitall : &PMPI_Waitall;
  auto allreduce = Recorded ? &MPI_Allreduce : &PMPI_Allreduce;
  for (int d = 0; d < 4; ++d) irecv(&h.in[d], 1, MPI_INT, 0, d, MPI_COMM_WORLD, &h.reqs[d]);
  for (int d = 0; d < 4; ++d) isend(&h.out[d], 1, MPI_INT, 0, d, MPI_COMM_WORLD, &h.reqs[4 + d]);
  waitall(8, h.reqs, MPI_STATUSES_IGNORE);
  allreduce(&h.local, &h.sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

// The thread's CPU time: a loaded machine's preemptions (wall-clock time the thread did not run)
// stay out of both intervals. A system call (about 0.4 us), so it is read once per batch of
// steps, each interval holding one reading.
double threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

void BM_RecorderHalo(benchmark::State& state) {
  constexpr int kBatch = 32;  // steps per timed interval
  Halo h;
  double recordedNs = 0, plainNs = 0;
  std::int64_t steps = 0;
  for (auto _ : state) {
    const double t0 = threadCpuNs();
    for (int i = 0; i < kBatch; ++i) haloStep<true>(h);
    const double t1 = threadCpuNs();
    for (int i = 0; i < kBatch; ++i) haloStep<false>(h);
    const double t2 = threadCpuNs();
    recordedNs += t1 - t0;
    plainNs += t2 - t1;
    steps += kBatch;
  }
  const double calls = static_cast<double>(steps) * kHaloCalls;
  state.counters["recorder_ns"] = calls > 0 ? (recordedNs - plainNs) / calls : 0;
  state.counters["plain_ns"] = calls > 0 ? plainNs / calls : 0;
  state.SetItemsProcessed(steps * kHaloCalls);
}
BENCHMARK(BM_RecorderHalo);
#endif

}  // namespace

// MPI_Init through the recorder's wrapper starts recording; the trace MPI_Finalize writes goes to
// /dev/null unless TRACEGEN_OUTPUT names a file.
int main(int argc, char** argv) {
#if defined(TRACEGEN_BENCH_MPI)
  setenv("TRACEGEN_OUTPUT", "/dev/null", 0);
  setenv("TRACEGEN_QUIET", "1", 0);
  MPI_Init(&argc, &argv);
#endif
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
#if defined(TRACEGEN_BENCH_MPI)
  MPI_Finalize();
#endif
  return 0;
}
