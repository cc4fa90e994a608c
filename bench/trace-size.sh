#!/usr/bin/env bash
# Trace sizes: records each sample application (samples/apps, with the arguments the
# end-to-end tests use) on 2, 4 and 16 ranks and prints, per trace: its plain text as the
# recorder wrote it before compact histograms (BEFORE: every bin of every histogram, every site
# by name), the same trace's plain text now (`tracegen convert --plain`: no empty bins, short
# bins, the site table) and its zstd-compressed file now (`tracegen convert`, what the recorder
# writes by default), then the ratios before/compressed and plain-now/compressed. "Before" and
# "now" are the same recording, so the figures do not depend on one run's timings.
#
# Usage: bench/trace-size.sh [BUILD_DIR [BEFORE_BUILD_DIR]]   (defaults: build /work/main/build)
# BEFORE_BUILD_DIR is a build of the code before this change (its libtracegen-record.so records).
# Without one the samples are recorded with BUILD_DIR's recorder as plain text
# (TRACEGEN_COMPRESS=0), and "before" is "-".
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
    b="-"
    if [ -n "$old" ]; then
      record "$old" "$np" "$app" "$work/app.trace" || continue
      b=$(stat -c %s "$work/app.trace")
    else
      record "$recorder" "$np" "$app" "$work/app.trace" TRACEGEN_COMPRESS=0 || continue
    fi
    "$tracegen" convert "$work/app.trace" --plain -o "$work/now.tgt" && "$tracegen" convert "$work/app.trace" -o "$work/now.tgt.zst" ||
      { echo "$app $np: tracegen cannot convert the recording" >&2; continue; }
    # the compact text and the compressed file hold the same trace as the recording
    "$tracegen" compare "$work/app.trace" "$work/now.tgt.zst" >/dev/null || { echo "$app $np: the converted trace differs" >&2; continue; }
    plain=$(stat -c %s "$work/now.tgt") z=$(stat -c %s "$work/now.tgt.zst")
    rb=$(awk -v a="$b" -v z="$z" 'BEGIN { if (a == "-") print "-"; else printf "%.1f", a / z }')
    rp=$(awk -v a="$plain" -v z="$z" 'BEGIN { printf "%.1f", a / z }')
    printf '%-10s %5s %12s %12s %12s %9s %9s\n' "$app" "$np" "$b" "$plain" "$z" "$rb" "$rp"
    if [ "$rb" != "-" ]; then
      worst=$(awk -v w="$worst" -v r="$rb" 'BEGIN { if (w == "" || r < w) print r; else print w }')
    fi
  done
done
[ -z "$worst" ] || echo "smallest before/zstd ratio: $worst"
