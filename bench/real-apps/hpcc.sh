#!/usr/bin/env bash
# HPC Challenge (Debian's hpcc 1.5) recorded and turned into benchmarks, at 2 and 4 ranks.
#
# hpcc completes its RandomAccess test with wildcard receives polled by MPI_Test/MPI_Testany
# (millions of polls), so it exercises the recorder's compression of polling loops, the
# simulation of successful and failed polls in resolve-wildcards, and the benchmark's replay of
# them. For each rank count the script writes a small hpccinf.txt (N=1000, NB=80; P=1 Q=2 at 2
# ranks, P=2 Q=2 at 4), records hpcc, generates the C and coNCePTuaL benchmarks, compiles the C
# one and runs it under the PMPI counting library, then once more under the recorder so that
# `tracegen compare` can check calls and bytes rank by rank (the Test family by its successful
# calls: polls are timing-dependent and printed apart). It prints the events and size of the
# trace, whether the calls are identical, and the wall times of the application (without the
# recorder) and of the benchmark (under the counting library). Installs hpcc with apt-get if it
# is missing. Every MPI run is wrapped in `timeout`.
#
# Usage: bench/real-apps/hpcc.sh [BUILD_DIR [NP...]]   (defaults: build, 2 and 4 ranks)
set -euo pipefail
build=$(realpath "${1:-build}")
shift || true
nps=("$@")
[ ${#nps[@]} -gt 0 ] || nps=(2 4)
recorder=$build/record/libtracegen-record.so
counter=$build/tests/support/libtracegen-count.so
tracegen=$build/tools/tracegen/tracegen
for f in "$recorder" "$counter" "$tracegen"; do
  [ -e "$f" ] || { echo "build $build first (with MPI): $f is missing" >&2; exit 2; }
done
command -v hpcc >/dev/null || apt-get install -y hpcc >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
template=/usr/share/doc/hpcc/examples/_hpccinf.txt
[ -r "$template" ] || { echo "no $template (the hpcc package's example input)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

for np in "${nps[@]}"; do
  dir=$work/np$np
  mkdir -p "$dir"
  p=$((np == 2 ? 1 : 2))
  # Lines 6 (N), 8 (NB), 11 (P) and 12 (Q) of the HPL part of the input.
  sed -e '6s/^[0-9]*/1000/' -e '8s/^[0-9]*/80/' -e "11s/^[0-9]*/$p/" -e '12s/^[0-9]*/2/' "$template" >"$dir/hpccinf.txt"
  cd "$dir"

  t0=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" hpcc >/dev/null 2>&1 || { echo "hpcc failed on $np ranks"; exit 1; }
  t1=$(now)
  rm -f hpccoutf.txt
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$dir/app.trace" hpcc \
    >/dev/null 2>"$dir/record.err" || { echo "hpcc failed under the recorder on $np ranks"; cat "$dir/record.err"; exit 1; }
  t2=$(now)
  events=$("$tracegen" inspect "$dir/app.trace" --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
  size=$(stat -c %s "$dir/app.trace")

  echo "hpcc on $np ranks: $events events, trace $size bytes;" \
       "application $(elapsed "$t0" "$t1") s (under the recorder $(elapsed "$t1" "$t2") s)"
  if "$tracegen" "$dir/app.trace" -o "$dir/bench.ncptl" 2>"$dir/gen-ncptl.err"; then
    echo "  coNCePTuaL: $(wc -l <"$dir/bench.ncptl") lines"
  else
    echo "  coNCePTuaL: not generated: $({ grep -v 'warning' "$dir/gen-ncptl.err" || true; } | head -n 1)"
  fi
  if ! "$tracegen" "$dir/app.trace" -o "$dir/bench.c" 2>"$dir/gen.err"; then
    echo "  C: not generated:"
    { grep -v 'align-collectives' "$dir/gen.err" || true; } | head -n 8 | sed 's/^/    /'
    cd - >/dev/null
    continue
  fi
  { grep -h 'resolve-wildcards' "$dir/gen.err" || true; } | head -n 2 | cut -c1-300 | sed 's/^/  /'
  mpicc -std=c11 -O2 -o "$dir/bench" "$dir/bench.c"

  t3=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$counter" TRACEGEN_COUNT_OUTPUT="$dir/counts.json" \
    "$dir/bench" >"$dir/bench.out" 2>&1 || { echo "$np ranks: the benchmark failed"; cat "$dir/bench.out"; exit 1; }
  t4=$(now)
  timeout 900 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$dir/bench.trace" \
    "$dir/bench" >/dev/null 2>&1 || { echo "$np ranks: the benchmark failed under the recorder"; exit 1; }
  if "$tracegen" compare "$dir/app.trace" "$dir/bench.trace" >"$dir/compare.txt"; then
    same="identical calls and bytes on all $np ranks (Test family: successful calls)"
  else
    same="calls DIFFER: $(grep -c '^rank' "$dir/compare.txt") differences (first: $(grep -m1 '^rank' "$dir/compare.txt"))"
  fi
  polls=$(grep -c 'polls that completed nothing' "$dir/compare.txt" || true)

  echo "  C benchmark: $same; $polls rank/operation pairs poll differently"
  echo "  wall time: application $(elapsed "$t0" "$t1") s, benchmark $(elapsed "$t3" "$t4") s under the counting" \
       "library ($(tail -n 1 "$dir/bench.out"))"
  cd - >/dev/null
done
