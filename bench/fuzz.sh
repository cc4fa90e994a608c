#!/usr/bin/env bash
# Runs every libFuzzer target (fuzz/) for a while and prints, per target: executions, crashes,
# timeouts (> 1 s per input), out-of-memory inputs (> TRACEGEN_FUZZ_RSS_MB) and peak RSS. The
# targets mutate with fuzz/StructureMutator.h (numbers toward boundary values, events and loop
# lines duplicated and dropped; a fifth of the mutations are libFuzzer's own).
#
#   bash bench/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 600 s, all four targets
#
# Builds the targets first (build directory $TRACEGEN_FUZZ_BUILD, default build-fuzz: clang-14
# with -DTRACEGEN_FUZZ=ON). Each target starts from its seed corpus in fuzz/corpus/<target>/
# plus what earlier runs found (build-fuzz/corpus/<target>/, kept between runs; the seeds in
# the repository are never written to). Runs are in libFuzzer's fork mode with one job, so a
# finding does not end the run: inputs that crash, hang or run out of memory are saved to
# build-fuzz/findings/<target>/ and counted, and printed in base64 (CI keeps only the log).
# Exit status 1 if any target found anything.
#
#   TRACEGEN_FUZZ_SEED  libFuzzer's -seed (default 0: a new random seed each run; the CI run,
#                       scripts/fuzz-ci.sh, fixes one so that a rerun explores the same inputs)
#   TRACEGEN_FUZZ_RUNS  stop each target after this many executions instead (e.g. 10000000 for
#                       the long run of every reader; SECONDS_PER_TARGET still caps the time)
#   TRACEGEN_FUZZ_JOBS  fuzzing processes of one run (libFuzzer's -fork; default 1)
#   TRACEGEN_FUZZ_PARALLEL  targets fuzzed at the same time (default 1; scripts/fuzz-ci.sh uses
#                       one per core: each target then has a core for SECONDS_PER_TARGET, and
#                       the run takes SECONDS_PER_TARGET * targets / PARALLEL)
#   TRACEGEN_FUZZ_TIMEOUT  seconds one input may take (default 1: issue 29 asks every command to
#                       finish any input under 1 MB within 1 s of a release build; the
#                       sanitizer build is slower, and the targets' budgets are smaller to match)
#   TRACEGEN_FUZZ_RSS_MB   the memory limit (default 400: what the sanitizer build of the largest
#                       target holds on its seeds, about 150 MB with ASan's shadow and quarantine
#                       counted, plus the 200 MB issue 29 allows an input to use)
#
# ASan's quarantine (freed memory held back to catch a use after free) is 32 MB here, not its
# default 256 MB: the limit above is on resident memory, and a full default quarantine alone
# made a 13 KB fuzz_extrapolate input (9, 12 and 16 ranks; 11 MB and 0.08 s in a release
# build) count as 346 MB. ASAN_OPTIONS from the environment is kept and takes precedence.
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=quarantine_size_mb=32${ASAN_OPTIONS:+:$ASAN_OPTIONS}
seconds=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_tgt_reader fuzz_scalatrace_reader fuzz_pipeline fuzz_extrapolate)
build=${TRACEGEN_FUZZ_BUILD:-build-fuzz}
jobs=${TRACEGEN_FUZZ_BUILD_JOBS:-2}

# A build directory configured before (scripts/test.sh's, which also builds the unit tests in
# it) keeps its configuration.
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-14 \
    -DCMAKE_CXX_COMPILER=clang++-14 -DTRACEGEN_FUZZ=ON -DTRACEGEN_BUILD_TESTS=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs" --target "${targets[@]}"

dict_for() {
  case $1 in
    fuzz_scalatrace_reader) echo fuzz/scalatrace.dict ;;
    *) echo fuzz/tgt.dict ;;
  esac
}

# fuzz_one TARGET: fuzzes it into $build/fuzz-TARGET.log.
fuzz_one() {
  local t=$1 corpus="$build/corpus/$1" findings="$build/findings/$1" log="$build/fuzz-$1.log"
  mkdir -p "$corpus" "$findings"
  # Fork mode: a child process fuzzes, the parent merges new coverage into $corpus and keeps
  # going after a crash, timeout or OOM (-ignore_*). The child's peak RSS is what counts.
  # Peak RSS: the largest of the processes (parent and fuzzing children), from getrusage.
  python3 - "$build/fuzz/$t" "$corpus" "fuzz/corpus/$t" -dict="$(dict_for "$t")" -max_total_time="$seconds" ${TRACEGEN_FUZZ_RUNS:+-runs="$TRACEGEN_FUZZ_RUNS"} -seed="${TRACEGEN_FUZZ_SEED:-0}" \
    -rss_limit_mb="${TRACEGEN_FUZZ_RSS_MB:-400}" -timeout="${TRACEGEN_FUZZ_TIMEOUT:-1}" -fork="${TRACEGEN_FUZZ_JOBS:-1}" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 \
    -artifact_prefix="$findings/" >"$log" 2>&1 <<'PY' || true
import resource, subprocess, sys
subprocess.run(sys.argv[1:])
print("stat::peak_rss_mb: %d" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024), flush=True)
PY
}

# TRACEGEN_FUZZ_PARALLEL targets at a time; the table below reads their logs in order.
parallel=${TRACEGEN_FUZZ_PARALLEL:-1}
running=0
for t in "${targets[@]}"; do
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$parallel" ]; then
    wait -n || true
    running=$((running - 1))
  fi
done
wait

status=0
printf '%-24s %14s %8s %9s %6s %12s\n' target executions crashes timeouts ooms "peak RSS MB"
for t in "${targets[@]}"; do
  findings="$build/findings/$t" log="$build/fuzz-$t.log"
  # The fork-mode status lines read `#N: cov: ... exec/s: ... oom/timeout/crash: A/B/C time: ...`.
  last=$(grep -E '^#[0-9]+: cov:' "$log" | tail -1 || true)
  execs=$(sed -nE 's/^#([0-9]+): cov:.*/\1/p' <<<"$last")
  read -r ooms timeouts crashes < <(sed -nE 's|.*oom/timeout/crash: ([0-9]+)/([0-9]+)/([0-9]+).*|\1 \2 \3|p' <<<"$last")
  rss=$(sed -nE 's/^stat::peak_rss_mb:[[:space:]]*([0-9]+)/\1/p' "$log" | sort -n | tail -1)
  printf '%-24s %14s %8s %9s %6s %12s\n' "$t" "${execs:-?}" "${crashes:-?}" "${timeouts:-?}" "${ooms:-?}" "${rss:-?}"
  if [ "${crashes:-1}" != 0 ] || [ "${timeouts:-1}" != 0 ] || [ "${ooms:-1}" != 0 ]; then
    status=1
    echo "  findings in $findings/ (log: $log)"
    for f in "$findings"/*; do
      [ -f "$f" ] || continue
      echo "  $(basename "$f") ($(wc -c <"$f") bytes, base64): $(head -c 4096 "$f" | base64 -w0)"
    done
  fi
done
exit $status
