#!/usr/bin/env bash
# Trace sizes: records each sample application (samples/apps, with the arguments the
# end-to-end tests use) on 2, 4 and 16 ranks and prints, per trace, the bytes of its plain text
# as main's recorder writes it (BEFORE: every histogram bin, every site by name), the bytes of
# its plain text now (compact histograms, site table) and the bytes of the zstd-compressed
# file the recorder writes by default. The last columns are the ratios before/now-compressed.
#
# Usage: bench/trace-size.sh [BUILD_DIR [BEFORE_BUILD_DIR]]   (defaults: build /work/main/build)
# BEFORE_BUILD_DIR is a build of the code before this change (its libtracegen-record.so);
# without one the "before" column is "-". Recordings of different runs differ in their timings,
# so "before" and "now" come from two runs of the same program and arguments.
set -uo pipefail
build=${1:-build} before=${2:-/work/main/build}
apps=$build/samples/apps recorder=$(realpath "$build/record/libtracegen-record.so" 2>/dev/null)
old=$(realpath "$before/record/libtracegen-record.so" 2>/dev/null || true)
tracegen=$build/tools/tracegen/tracegen
[ -x "$apps/stencil2d" ] && [ -f "$recorder" ] && [ -x "$tracegen" ] || { echo "build $build first (with MPI)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

args_of() {  # as tests/e2e/record_e2e.sh
  case $1 in
    stencil2d) echo "40 32" ;;
    wavefront) echo "4 8 16" ;;
    sweep) echo "3 4 16" ;;
    fft) echo "10 32" ;;
    cg) echo "12 128" ;;
    ring) echo "10 256" ;;
    apitour) echo "2" ;;
    ring_f) echo "10" ;;
    polling) echo "20 256" ;;
  esac
}

record() {  # record PRELOAD NP APP OUT [ENV...]: one recorded run; status 0 if it wrote OUT
  local preload=$1 np=$2 app=$3 out=$4
  shift 4
  local -a args
  read -r -a args <<<"$(args_of "$app")"
  rm -f "$out"
  timeout 120 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$preload" TRACEGEN_OUTPUT="$out" "$@" "$apps/$app" "${args[@]}" \
    >/dev/null 2>"$work/err" && [ -s "$out" ]
}

printf '%-10s %5s %12s %12s %12s %9s %9s\n' sample ranks "before (B)" "plain (B)" "zstd (B)" "before/z" "plain/z"
worst=""
for app in stencil2d wavefront sweep fft cg ring ring_f apitour polling; do
  [ -x "$apps/$app" ] || continue
  for np in 2 4 16; do
    record "$recorder" "$np" "$app" "$work/now.trace.zst" || continue
    z=$(stat -c %s "$work/now.trace.zst")
    # the same trace's text: what `tracegen convert --plain` (or zstdcat) gives
    plain=$(zstdcat "$work/now.trace.zst" | wc -c)
    b="-"
    if [ -n "$old" ] && record "$old" "$np" "$app" "$work/before.trace"; then b=$(stat -c %s "$work/before.trace"); fi
    rb=$(awk -v a="$b" -v z="$z" 'BEGIN { if (a == "-") print "-"; else printf "%.1f", a / z }')
    rp=$(awk -v a="$plain" -v z="$z" 'BEGIN { printf "%.1f", a / z }')
    printf '%-10s %5s %12s %12s %12s %9s %9s\n' "$app" "$np" "$b" "$plain" "$z" "$rb" "$rp"
    if [ "$rb" != "-" ]; then
      worst=$(awk -v w="$worst" -v r="$rb" 'BEGIN { if (w == "" || r < w) print r; else print w }')
    fi
  done
done
[ -z "$worst" ] || echo "smallest before/zstd ratio: $worst"
