#!/usr/bin/env bash
# Trace sizes: records each sample application (samples/apps, with the arguments the
# end-to-end tests use) on 2, 4 and 16 ranks and prints, per trace: its plain text as the
# recorder wrote it before compact histograms (BEFORE: every bin of every histogram, every site
# by name), the same trace's plain text now (`tracegen convert --plain`: no empty bins, short
# bins, the site table) and its zstd-compressed file now (`tracegen convert`, what the recorder
# writes by default), then the ratios before/compressed and plain-now/compressed. "Before" and
# "now" are the same recording, so the figures do not depend on one run's timings.
#
# Then, per section (bench/trace-sections.py: header, site table, frame names, structure,
# parameters, matched senders, time histograms; each plain and compressed alone with zstd, and
# the whole file), the traces of the LU-like, 3-D and NPB-like samples (wavefront, sweep,
# halo3d, lu_like, mg_like, cg_like, is_like) at 16 and 64 ranks: "before" as BEFORE_BUILD_DIR's
# recorder wrote it (zstd, its writer), "now" the same recording written by BUILD_DIR's
# `tracegen convert`, after `tracegen compare` of the two has exited 0 and their
# `tracegen inspect --per-rank --format json` agree. SECTION_SAMPLES and SECTION_RANKS choose
# others (SECTION_SAMPLES= skips the part); the NPB-like samples are built per rank count as
# bench/extrapolate-npb.sh builds them.
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

# Bytes per section, before and now.
section_samples=${SECTION_SAMPLES-wavefront sweep halo3d lu_like mg_like cg_like is_like}
section_ranks=${SECTION_RANKS-16 64}
[ -n "$section_samples" ] || exit 0
sections=$(dirname "$0")/trace-sections.py
src=$(cd "$(dirname "$0")/.." && pwd)
bin_of() {  # bin_of SAMPLE NP: the sample's binary (the NPB-like ones built for NP ranks)
  local s=$1 n=$2 out
  case $s in
    *_like) ;;
    *) echo "$apps/$s"; return ;;
  esac
  if [ -x "$apps/npb-like/$s.$n" ]; then echo "$apps/npb-like/$s.$n"; return; fi
  out=$work/$s.$n
  if [ "$s" = lu_like ]; then
    mkdir -p "$work/fmod.$n"
    mpifort -cpp -O2 -DNPROCS="$n" -J "$work/fmod.$n" -o "$out" "$src/samples/apps/npb-like/$s.F90" >&2 || return 1
  else
    mpicc -std=c11 -O2 -DNPROCS="$n" -o "$out" "$src/samples/apps/npb-like/$s.c" -lm >&2 || return 1
  fi
  echo "$out"
}
section_args() {
  case $1 in
    wavefront) echo "4 8 16" ;;
    sweep) echo "3 4 16" ;;
    intsort) echo "3 1000" ;;
    *) echo "" ;;
  esac
}
if [ -z "$old" ]; then
  echo "bytes per section: needs BEFORE_BUILD_DIR's recorder" >&2
  exit 0
fi
echo
echo "bytes per section, plain/zstd alone (before: $before's recorder; now: $build's writer, the same recording)"
python3 "$sections" --header-only
for app in $section_samples; do
  for np in $section_ranks; do
    exe=$(bin_of "$app" "$np") && [ -x "$exe" ] || { echo "$app $np: no binary" >&2; continue; }
    read -r -a sargs <<<"$(section_args "$app")"
    rm -f "$work/before.zst"
    timeout 600 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$old" TRACEGEN_OUTPUT="$work/before.zst" "$exe" "${sargs[@]}" \
      >/dev/null 2>"$work/err" && [ -s "$work/before.zst" ] || { echo "$app $np: the recording failed" >&2; continue; }
    "$tracegen" convert "$work/before.zst" -o "$work/now.zst" || { echo "$app $np: tracegen cannot convert the recording" >&2; continue; }
    "$tracegen" compare "$work/before.zst" "$work/now.zst" >/dev/null || { echo "$app $np: compare finds the traces differ" >&2; continue; }
    "$tracegen" inspect --per-rank --format json "$work/before.zst" >"$work/before.json" 2>/dev/null
    "$tracegen" inspect --per-rank --format json "$work/now.zst" >"$work/now.json" 2>/dev/null
    # the same figures, whatever the file's name and the lines they come from
    python3 -c 'import json, sys
def strip(x):
    if isinstance(x, dict): return {k: strip(v) for k, v in x.items() if k not in ("file", "line")}
    if isinstance(x, list): return [strip(v) for v in x]
    return x
a, b = (strip(json.load(open(p))) for p in sys.argv[1:3])
sys.exit(a != b)' "$work/before.json" "$work/now.json" || { echo "$app $np: inspect --per-rank differs" >&2; continue; }
    python3 "$sections" --label "$app-$np before" "$work/before.zst" --label "$app-$np now" "$work/now.zst"
  done
done

