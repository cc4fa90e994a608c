#!/usr/bin/env bash
# Recorder overhead: each sample application (samples/apps) run without and with
# libtracegen-record.so preloaded; prints wall-clock times, their ratio, the number of MPI
# calls and the trace size. The samples' default arguments finish in well under a second, most
# of it mpiexec's start-up, so they run here with many more iterations (about a second each).
# Best of REPEAT runs each (default 3), to damp the scheduler's noise.
#
# Usage: bench/recorder-overhead.sh [BUILD_DIR [NP [REPEAT]]]   (defaults: build 4 3)
# The machine facts: with more ranks than cores the times are mostly the scheduler's.
set -euo pipefail
build=${1:-build} np=${2:-4} repeat=${3:-3}
apps=$build/samples/apps recorder=$build/record/libtracegen-record.so
[ -x "$apps/stencil2d" ] && [ -f "$recorder" ] || { echo "build $build first (with MPI)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

args_of() {
  case $1 in
    stencil2d) echo "30000 64" ;;
    wavefront) echo "1000 16 32" ;;
    sweep) echo "5000 8 24" ;;
    fft) echo "10000 64" ;;
    cg) echo "30000 256" ;;
    ring) echo "20000 1024" ;;
    ring_f) echo "20000" ;;
    apitour) echo "300" ;;
  esac
}

best_of() {  # best_of PRELOAD APP: the shortest wall-clock time of $repeat runs, in seconds
  local best=""
  local -a args
  read -r -a args <<<"$(args_of "$2")"
  for _ in $(seq "$repeat"); do
    local t0 t1
    t0=$(date +%s.%N)
    mpiexec --oversubscribe -n "$np" env ${1:+LD_PRELOAD=$1} TRACEGEN_OUTPUT="$work/$2.trace" "$apps/$2" "${args[@]}" \
      >/dev/null 2>&1
    t1=$(date +%s.%N)
    best=$(awk -v a="$t0" -v b="$t1" -v m="$best" 'BEGIN { t = b - a; if (m == "" || t < m) m = t; printf "%.3f", m }')
  done
  echo "$best"
}

tracegen=$build/tools/tracegen/tracegen
printf '%-10s %-12s %10s %10s %7s %10s %10s\n' sample arguments "plain (s)" "recorded" ratio "MPI calls" "trace (B)"
for app in stencil2d wavefront sweep fft cg ring ring_f apitour; do
  [ -x "$apps/$app" ] || continue
  plain=$(best_of "" "$app")
  rm -f "$work/$app.trace"
  recorded=$(best_of "$(realpath "$recorder")" "$app")
  size=$(stat -c %s "$work/$app.trace" 2>/dev/null || echo "-")
  calls=$("$tracegen" inspect "$work/$app.trace" --format json 2>/dev/null |
    python3 -c 'import json, sys; print(sum(r["calls"] for r in json.load(sys.stdin)["per_rank"]))' 2>/dev/null || echo "-")
  ratio=$(awk -v a="$plain" -v b="$recorded" 'BEGIN { printf "%.2f", b / a }')
  printf '%-10s %-12s %10s %10s %7s %10s %10s\n' "$app" "$(args_of "$app")" "$plain" "$recorded" "$ratio" "$calls" "$size"
done
