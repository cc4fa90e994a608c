#!/usr/bin/env bash
# The scale-free benchmarks of the stencil, 3-D halo, CG-like (rowcol) and LU-like (wavefront)
# samples under SimGrid SMPI at large rank counts (docs/simulation.md, "Scale").
#
#   bench/simulate-scale.sh BUILD_DIR [RANKS...]       (default: 1024 4096 16384)
#   SAMPLES="stencil2d halo3d rowcol wavefront" PLATFORM=crossbar TIMEOUT=900 (seconds a run)
#   SIMULATE_ARGS="--cfg smpi/reduce:default"   (more options for `tracegen simulate`)
#
# Each sample is recorded with Open MPI at its three input scales and extrapolated to one
# scale-free benchmark (bench/simulate-common.sh), compiled once with smpicc, and run by
# `tracegen simulate` at every rank count: one row per sample and count with the real seconds
# the simulation took, its peak resident memory (MB, the simulator's process: every simulated
# rank lives in it) and the simulated elapsed time the benchmark reports (its measured region,
# rank 0's `elapsed:`). A run past TIMEOUT is stopped and the sample's larger counts are skipped.
set -uo pipefail
build=$(cd "$1" && pwd)
shift
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(1024 4096 16384)
src=$(cd "$(dirname "$0")/.." && pwd)
tracegen=$build/tools/tracegen/tracegen
recorder=$build/record/libtracegen-record.so
read -r -a samples <<<"${SAMPLES:-stencil2d halo3d rowcol wavefront}"
platform=${PLATFORM:-crossbar}
limit=${TIMEOUT:-900}
if ! command -v smpicc >/dev/null; then
  echo "SKIP: smpicc not found (SimGrid SMPI: apt-get install libsimgrid-dev)"
  exit 77
fi
[ -x /usr/bin/time ] || { echo "bench/simulate-scale.sh needs GNU time (/usr/bin/time: apt-get install time)"; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/bench/simulate-common.sh"
status=0
printf '%-10s %7s %9s %9s %12s   %s\n' sample ranks "real s" "peak MB" "simulated s" note
for app in "${samples[@]}"; do
  make_bench "$app" || { status=1; continue; }
  smpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/sbench-$app" "$work/bench-$app.c" -lm ||
    { echo "FAIL: smpicc $app"; status=1; continue; }
  for np in "${ranks[@]}"; do
    /usr/bin/time -f "%e %M" -o "$work/time" timeout "$limit" "$tracegen" simulate "$work/sbench-$app" -n "$np" \
      -p "$platform" ${SIMULATE_ARGS:-} >"$work/out" 2>&1
    rc=$?
    # time -o: the figures on the last line (a failed command's status comes first).
    read -r real kb < <(tail -n 1 "$work/time" 2>/dev/null) || { real=- kb=0; }
    [[ "${kb:-}" =~ ^[0-9]+$ ]] || kb=0
    mb=$((kb / 1024))
    elapsed=$(sed -n 's/^elapsed: \([0-9.e+-]*\) s/\1/p' "$work/out")
    if [ $rc -eq 124 ]; then
      printf '%-10s %7s %9s %9s %12s   %s\n' "$app" "$np" ">$limit" "-" "-" "stopped after ${limit} s; larger counts skipped"
      break
    elif [ $rc -ne 0 ]; then
      printf '%-10s %7s %9s %9s %12s   %s\n' "$app" "$np" "$real" "$mb" "-" "$(tail -1 "$work/out")"
    else
      printf '%-10s %7s %9s %9s %12s\n' "$app" "$np" "$real" "$mb" "$elapsed"
    fi
  done
done
exit $status
