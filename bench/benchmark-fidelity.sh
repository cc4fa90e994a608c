#!/usr/bin/env bash
# Timing fidelity of generated benchmarks: each sample application is recorded, its C benchmark
# generated, compiled and recorded in turn, and `tracegen compare` gives the traced time of both
# (computation plus time inside MPI, over all ranks) and their ratio; the benchmark's own
# `elapsed:` line is shown too. Arguments: bench/sample-args.sh's (runs of 0.3-3 s). Timing means something only with no more ranks than cores (default NP 2).
#
# Usage: bench/benchmark-fidelity.sh [BUILD_DIR [NP]]   (defaults: build 2)
set -euo pipefail
build=${1:-build} np=${2:-2}
apps=$build/samples/apps recorder=$(realpath "$build/record/libtracegen-record.so")
tracegen=$build/tools/tracegen/tracegen
[ -x "$apps/stencil2d" ] && [ -x "$tracegen" ] || { echo "build $build first (with MPI)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$(dirname "$0")/sample-args.sh"
# Timing means nothing on a busy machine (sample-args.sh: TRACEGEN_BENCH_BUSY_OK=1 times anyway).
require_idle_machine || exit 1
args_of() { sample_args "$@"; }

printf '%-10s %-12s %12s %12s %7s %12s\n' sample arguments "app time s" "bench time s" ratio "bench elapsed"
for app in stencil2d wavefront sweep fft cg ring ring_f apitour; do
  [ -x "$apps/$app" ] || continue
  read -r -a args <<<"$(args_of "$app")"
  mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/app.trace" "$apps/$app" "${args[@]}" \
    >/dev/null 2>&1 || { printf '%-10s does not run on %s ranks\n' "$app" "$np"; continue; }
  if ! "$tracegen" "$work/app.trace" -o "$work/bench.c" 2>"$work/gen.err"; then
    printf '%-10s %-12s %s\n' "$app" "$(args_of "$app")" "$(head -n 1 "$work/gen.err")"
    continue
  fi
  mpicc -std=c11 -O2 -o "$work/bench" "$work/bench.c"
  mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/bench.trace" "$work/bench" \
    >"$work/bench.out" 2>&1
  elapsed=$(tail -n 1 "$work/bench.out" | awk '{ print $2 }')
  "$tracegen" compare "$work/app.trace" "$work/bench.trace" >"$work/compare.txt" || { echo "$app: calls differ"; continue; }
  awk -v app="$app" -v a="$(args_of "$app")" -v e="$elapsed" \
    '$1 == "all" { printf "%-10s %-12s %12s %12s %7s %12s\n", app, a, $2, $3, $4, e }' "$work/compare.txt"
done
