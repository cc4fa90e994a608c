#!/usr/bin/env bash
# The process footprint end to end: a benchmark's peak resident memory per rank is the
# application's, within 5% (docs/c-backend.md, "Process footprint").
#
#   footprint.sh TRACEGEN RECORDER APPS_DIR
#
# samples/apps/fft (3 iterations of a 1024x1024 transpose: about 40 MB a rank, half of it the
# MPI_Alltoall buffers) is run on 2 ranks, recorded, and its benchmark run; each rank's peak
# resident set (getrusage of the process, through bench/peak-rss.c under mpiexec) is compared
# with the application's. The benchmark's message buffers must count towards the footprint, not
# come on top of it (before they did: 78 MB against 43 MB). Its transposes send what the one
# before received (a and b swapped), and so do the benchmark's (swap_buffers()): both buffers are
# written in every step, and the benchmark reaches the application's peak by itself. stencil2d,
# whose grids are far larger than its messages, checks that the footprint makes up the rest: with
# --no-footprint its benchmark holds less than the application (the check can fail).
#
# samples/apps/rma (117,445 iterations) grows inside its MPI calls: rank 0, the target of every
# MPI_Accumulate, gains some 30 MB in Open MPI's one-sided code during the run. Its benchmark makes
# the same calls and grows as much, so the footprint must give back what the run itself gains
# (follow_footprint()) instead of holding the recorded peak from the start and adding that growth
# a second time (before: 71.5 MB against 42.0). The tolerance there is 10%: the recorded gain
# holds the recorder's own data (about 1.5 MB, docs/recording.md), which the benchmark reproduces
# as if it were the application's. At 30,000 iterations that was +6 to +11% of an 18.8 MB peak,
# too close to the bound; here it is +3.6% of 42 MB.
set -uo pipefail
tracegen=$1 recorder=$2 apps=$3
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
cd "$work" || exit 1
# Each rank's peak into a file of its own (two ranks' lines on one standard output can merge),
# by bench/peak-rss.c: a python3 wrapper's child started with python's 14 MB as its high-water.
cc -std=c11 -O2 -o peak-rss "$here/../../bench/peak-rss.c" || { echo "FAIL: cc bench/peak-rss.c"; exit 1; }
# peak_kb NAME CMD...: the largest of the ranks' peaks in KiB (the ranks are alike).
peak_kb() {
  local name=$1
  shift
  rm -f "$name.peak".*
  timeout 300 mpiexec --oversubscribe -n 2 ./peak-rss "$name.peak" "$@" >/dev/null 2>"$name.err" ||
    { echo "FAIL: $name did not run:" >&2; cat "$name.err" >&2; exit 1; }
  [ "$(ls "$name.peak".* 2>/dev/null | wc -l)" -eq 2 ] || { echo "FAIL: $name: not every rank wrote its peak" >&2; exit 1; }
  cat "$name.peak".* | awk '$1 > m { m = $1 } END { print m + 0 }'
}
failures=0
# expect CONDITION OK FAIL: one check on the peaks (awk arithmetic), counted when it fails.
expect() {
  if awk "BEGIN { exit !($1) }"; then echo "ok: $2"; else echo "FAIL: $3"; failures=$((failures + 1)); fi
}
# peaks SAMPLE ARGS...: records the sample on 2 ranks, generates and compiles its benchmark, and
# sets app, bench and bare (the benchmark with --no-footprint) to the three peaks in KiB.
peaks() {
  local s=$1
  shift
  timeout 300 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$s.tgt" TRACEGEN_COMPRESS=0 \
    "$apps/$s" "$@" >/dev/null 2>record.err || { echo "FAIL: recording $s"; cat record.err; exit 1; }
  "$tracegen" "$s.tgt" -o "$s.c" || { echo "FAIL: generation ($s)"; exit 1; }
  mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$s.bench" "$s.c" || { echo "FAIL: mpicc ($s)"; exit 1; }
  app=$(peak_kb "$s.app" "$apps/$s" "$@")
  bench=$(peak_kb "$s.bench" "./$s.bench" --compute-scale 0)
  bare=$(peak_kb "$s.bare" "./$s.bench" --compute-scale 0 --no-footprint)
}
peaks fft 3 1024
echo "peak resident memory per rank: application $app KiB, benchmark $bench KiB, with --no-footprint $bare KiB"
expect "$app > 0 && $bench >= 0.95 * $app && $bench <= 1.05 * $app" \
  "the benchmark's peak is the application's within 5%" \
  "the benchmark's peak is not within 5% of the application's"

# stencil2d (3 steps on a 1500x1500 block a rank): the application holds two 18 MB grids and
# sends rows of 12 KB, so the benchmark's message buffers hold almost nothing and its footprint
# must make up the rest. Without it the benchmark holds less (the check can fail).
peaks stencil2d 3 1500
echo "stencil2d: peak resident memory per rank: application $app KiB, benchmark $bench KiB, with --no-footprint $bare KiB"
expect "$app > 0 && $bench >= 0.95 * $app && $bench <= 1.05 * $app" \
  "stencil2d's benchmark peak is the application's within 5%" \
  "stencil2d's benchmark peak is not within 5% of the application's"
expect "$bare < 0.9 * $app" \
  "without the footprint stencil2d's benchmark holds less (the check above can fail)" \
  "with --no-footprint stencil2d's benchmark holds as much as the application: the check proves nothing"

# rma: the benchmark without its footprint already holds the application's peak (its MPI grows as
# the application's did), and with it holds no second copy of that growth.
peaks rma 117445 64
echo "rma: peak resident memory per rank: application $app KiB, benchmark $bench KiB, with --no-footprint $bare KiB"
expect "$app > 0 && $bare >= 0.95 * $app" \
  "rma's benchmark grows to the application's peak by itself (the check below can fail)" \
  "rma's benchmark without its footprint holds less than 95% of the application's peak"
expect "$app > 0 && $bench >= 0.95 * $app && $bench <= 1.10 * $app" \
  "rma's footprint gives back what the run gains: within 10% of the application's peak" \
  "rma's benchmark peak is not within 10% of the application's (the run's growth counted twice?)"
[ "$failures" -eq 0 ]
