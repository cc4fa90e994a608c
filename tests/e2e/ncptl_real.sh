#!/usr/bin/env bash
# The coNCePTuaL programs of the coNCePTuaL backend's end-to-end test, judged by the real
# coNCePTuaL 1.5.1b compiler and run time (tests/e2e/real-ncptl.sh finds them): the golden
# programs tests/golden/*.ncptl (what tests/e2e/ncptl_backend.sh generates from samples/traces)
# and the programs of the bundled ScalaTrace traces are compiled with the real compiler, run to
# completion under a timeout at their trace's rank count (computation scaled to 0, the run
# time's timer calibration skipped), with the PMPI counting library (tests/support/mpi_count.c)
# preloaded: every rank's point-to-point messages and bytes must be the trace's
# (`tracegen inspect --per-rank`), as tests/e2e/c_backend.sh requires of the C benchmarks.
#
# Usage: ncptl_real.sh TRACEGEN SOURCE_DIR
# Exit 77 (ctest: skipped) when the real compiler is not installed.
set -uo pipefail
tracegen=$(realpath "$1") src=$(realpath "$2")
source "$src/tests/e2e/real-ncptl.sh"
if ! real_ncptl_find; then
  real_ncptl_skip "ncptl_real"
  exit 77
fi
echo "real coNCePTuaL compiler: $REAL_NCPTL_PREFIX ($REAL_NCPTL_MPIEXEC)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 passed=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; passed=$((passed + 1)); }
countlib=$(real_ncptl_countlib "$work") || { echo "FAIL: cannot build the counting library"; exit 1; }
export REAL_NCPTL_ARGS="--compute-scale=0"

# judge NAME PROGRAM TRACE [compile-only]: compile, run at the program's task count, compare the traffic.
judge() {
  local name=$1 program=$2 trace=$3 only=${4:-} np log
  np=$(sed -n 's/^ASSERT THAT .* WITH num_tasks = \([0-9]*\)\.$/\1/p' "$program" | head -1)
  [ -n "$np" ] || { fail "$name: no task count in $program"; return; }
  mkdir -p "$work/$name"
  if ! log=$(real_ncptl_build "$program" "$work/$name/bench"); then
    fail "$name: the real compiler rejects the program:"; echo "$log" | head -20; return
  fi
  if [ -n "$only" ]; then ok "$name: compiled by the real compiler ($only)"; return; fi
  if ! real_ncptl_run "$work/$name/bench" "$np" "$countlib" "$work/$name/count.json"; then
    fail "$name: the program does not run to completion on $np tasks"; return
  fi
  (cd "$src" && "$tracegen" inspect --per-rank --format json "$trace") >"$work/$name/inspect.json" ||
    { fail "$name: tracegen inspect failed"; return; }
  local nulls=
  case $name in shift-null-*) nulls=proc-null ;; esac  # MPI_PROC_NULL peers: calls left out
  if real_ncptl_compare_p2p "$work/$name/inspect.json" "$work/$name/count.json" $nulls; then
    ok "$name: compiled, ran on $np tasks, point-to-point messages and bytes = the trace's on every rank"
  else
    fail "$name: the run's point-to-point traffic differs from the trace's"
  fi
}

for golden in "$src"/tests/golden/*.ncptl; do
  name=$(basename "$golden" .ncptl)
  extra=()
  judge "$name" "$golden" "samples/traces/$name.tgt"
done
for trace in "$src"/tests/data/scalatrace*/*.trace; do
  [ -e "$trace" ] || continue
  name=$(basename "$(dirname "$trace")")-$(basename "$trace" .trace)
  extra=()
  case $name in *-ti-* | *-tic-*) extra=(--instruction-rate 1e9) ;; esac
  if ! "$tracegen" generate "$trace" -o "$work/$name.ncptl" --emit ncptl "${extra[@]}" >"$work/$name.err" 2>&1; then
    fail "$name: tracegen failed:"; cat "$work/$name.err"; continue
  fi
  # NPB LU class A: about 10^5 messages per rank, more than two loaded cores run in a test's time.
  case $name in *-lu-A-*) judge "$name" "$work/$name.ncptl" "$trace" "not run: too long for the test" ;;
                *) judge "$name" "$work/$name.ncptl" "$trace" ;; esac
done

echo "ncptl_real: $passed passed, $failures failed"
[ $failures -eq 0 ]
