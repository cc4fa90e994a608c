#!/usr/bin/env bash
# Recorder overhead: each sample application (samples/apps) run without and with
# libtracegen-record.so preloaded; prints wall-clock times, their ratio, the number of MPI
# calls, the trace size and the recorder's cost per MPI call. The samples' default arguments
# finish in well under a second, most of it mpiexec's start-up, so they run here with many more
# iterations (about a second each). The median of REPEAT runs each (default 5), to damp the
# scheduler's noise.
#
# Usage: bench/recorder-overhead.sh [BUILD_DIR [NP [REPEAT [RECORDER]]]]   (defaults: build 2 5,
#        BUILD_DIR/record/libtracegen-record.so; RECORDER names another build of the library,
#        e.g. an older one to compare with)
# Columns: the median wall-clock times without and with the recorder (s), their ratio, the MPI
# calls over all ranks (from the trace), the trace's bytes, and `ns/call`: the time the
# recorder added per MPI call of one rank, (recorded - plain) / (calls / NP), in nanoseconds.
# The machine facts: NP=2 on this 2-core machine is the honest setting; with more ranks than
# cores the times are mostly the scheduler's.
set -euo pipefail
build=${1:-build} np=${2:-2} repeat=${3:-5}
apps=$build/samples/apps recorder=${4:-$build/record/libtracegen-record.so}
[ -x "$apps/stencil2d" ] && [ -f "$recorder" ] || { echo "build $build first (with MPI)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/sample-args.sh"
args_of() { sample_args "$@"; }

median_of() {  # median_of PRELOAD APP: the median wall-clock time of $repeat runs, in seconds
  local -a args times=()
  read -r -a args <<<"$(args_of "$2")"
  for _ in $(seq "$repeat"); do
    local t0 t1
    t0=$(date +%s.%N)
    timeout 600 mpiexec --oversubscribe -n "$np" env ${1:+LD_PRELOAD=$1} TRACEGEN_OUTPUT="$work/$2.trace" \
      "$apps/$2" "${args[@]}" >/dev/null 2>&1
    t1=$(date +%s.%N)
    times+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')")
  done
  printf '%s\n' "${times[@]}" | sort -g | awk '{ t[NR] = $1 } END { printf "%.3f", NR % 2 ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }'
}

tracegen=$build/tools/tracegen/tracegen
printf '%-10s %-12s %10s %10s %7s %10s %10s %8s\n' sample arguments "plain (s)" "recorded" ratio "MPI calls" "trace (B)" "ns/call"
for app in stencil2d wavefront sweep fft cg ring ring_f apitour; do
  [ -x "$apps/$app" ] || continue
  plain=$(median_of "" "$app")
  rm -f "$work/$app.trace"
  recorded=$(median_of "$(realpath "$recorder")" "$app")
  size=$(stat -c %s "$work/$app.trace" 2>/dev/null || echo "-")
  calls=$("$tracegen" inspect "$work/$app.trace" --format json 2>/dev/null |
    python3 -c 'import json, sys; print(sum(r["calls"] for r in json.load(sys.stdin)["per_rank"]))' 2>/dev/null || echo "-")
  ratio=$(awk -v a="$plain" -v b="$recorded" 'BEGIN { printf "%.2f", b / a }')
  nspc=$(awk -v a="$plain" -v b="$recorded" -v c="$calls" -v p="$np" \
    'BEGIN { if (c + 0 > 0) printf "%.0f", (b - a) * 1e9 / (c / p); else printf "-" }')
  printf '%-10s %-12s %10s %10s %7s %10s %10s %8s\n' "$app" "$(args_of "$app")" "$plain" "$recorded" "$ratio" "$calls" "$size" "$nspc"
done
