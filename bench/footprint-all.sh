#!/usr/bin/env bash
# Peak resident memory per rank, application against its benchmark, for every sample in
# samples/apps (issue 30, point 1: within 5%). Memory, not time: the machine may be busy.
#
#   bench/footprint-all.sh [--real] [BUILD_DIR [NP [SAMPLE...]]]   (defaults: build, 2, every sample)
#
# --real: then the Debian-packaged applications of bench/real-apps/ (LAMMPS, HPC Challenge,
# GROMACS, Meep; their scripts' default inputs) at NP ranks, through their scripts with PEAKS=1
# (bench/real-apps/common.sh): one line each, the largest peak over the ranks of each side.
#
# Each sample runs with its timing arguments (bench/sample-args.sh), once under the recorder,
# then its benchmark is generated and compiled (-O2) and both run ROUNDS times (default 3),
# alternately, under bench/peak-rss.c, which writes each rank's peak resident set (getrusage of
# its child) to a file of its own. The kernel's peak of one 11 MB rank moves by 0.1-0.4 MB from
# run to run (bench/peak-rss.c says why), so each rank's peak is the median over the rounds. One
# line a sample: the largest of those over the ranks of each side, and the worst rank's
# difference, benchmark against application (positive: the benchmark holds more). tests/e2e/footprint.sh checks one
# sample (fft, 40 MB a rank) in the tests. Exit status 1 when a sample's worst rank is more than
# TOLERANCE percent (5) off, or a run fails.
set -uo pipefail
real=0
[ "${1:-}" = --real ] && { real=1; shift; }
build=${1:-build} np=${2:-2}
shift 2 2>/dev/null || shift $#
here=$(cd "$(dirname "$0")" && pwd)
source "$here/sample-args.sh"
samples=("$@")
[ ${#samples[@]} -eq 0 ] && samples=("${all_samples[@]}")
tracegen=$(realpath "$build/tools/tracegen/tracegen" 2>/dev/null) recorder=$(realpath "$build/record/libtracegen-record.so" 2>/dev/null)
apps=$(realpath "$build/samples/apps" 2>/dev/null)
[ -x "$tracegen" ] && [ -f "$recorder" ] && [ -d "$apps" ] || { echo "build $build first (with MPI)" >&2; exit 2; }
build=$(realpath "$build")  # the real applications' scripts run elsewhere
tolerance=${TOLERANCE:-5}
rounds=${ROUNDS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 2
failures=0
printf '%-16s %12s %12s %10s   %s\n' sample "app KiB" "bench KiB" "worst rank" "(peak resident set per rank, $np ranks; largest over ranks)"
for s in "${samples[@]}"; do
  read -r -a a <<<"$(sample_args "$s")"
  if ! timeout 600 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$s.tgt" \
      "$apps/$s" "${a[@]}" >/dev/null 2>"$s.rec.err"; then
    printf '%-16s recording failed: %s\n' "$s" "$(tail -n 1 "$s.rec.err")"; failures=$((failures + 1)); continue
  fi
  if ! "$tracegen" "$s.tgt" -o "$s.c" 2>"$s.gen.err" || ! mpicc -std=c11 -O2 -o "$s.bench" "$s.c" 2>"$s.cc.err"; then
    printf '%-16s generation or mpicc failed: %s\n' "$s" "$(tail -n 1 "$s.gen.err" "$s.cc.err" | tail -n 1)"
    failures=$((failures + 1)); continue
  fi
  failed=0
  for round in $(seq 1 "$rounds"); do  # application and benchmark alternately
    if ! rank_peaks "$s.app.$round" "$apps/$s" "${a[@]}" || ! rank_peaks "$s.bench.$round" "./$s.bench" --compute-scale 0; then
      printf '%-16s a run failed: %s\n' "$s" "$(tail -n 1 "$work/$s.app.$round.err" "$work/$s.bench.$round.err" | tail -n 1)"
      failed=1; break
    fi
  done
  [ $failed -eq 0 ] || { failures=$((failures + 1)); continue; }
  # median_peak SIDE RANK: the median over the rounds of that rank's peak.
  median_peak() { for round in $(seq 1 "$rounds"); do cat "$work/$s.$1.$round.peak.$2"; done | sort -n |
    awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
  line=$(for r in $(seq 0 $((np - 1))); do echo "$(median_peak app "$r") $(median_peak bench "$r")"; done |
    awk -v s="$s" -v tol="$tolerance" '
      { if ($1 > am) am = $1; if ($2 > bm) bm = $2; d = 100 * ($2 - $1) / $1; if (d < 0 ? -d > w : d > w) { w = d < 0 ? -d : d; ws = d } }
      END { printf "%-16s %12d %12d %+9.1f%%%s\n", s, am, bm, ws, (w > tol ? "   OVER" : "") }')
  echo "$line"
  case $line in *OVER) failures=$((failures + 1)) ;; esac
done
if [ $real -eq 1 ]; then
  for app in lammps hpcc gromacs meep; do
    : >"$work/real.table"
    if ! PEAKS=1 PEAKS_TABLE="$work/real.table" bash "$here/real-apps/$app.sh" "$build" "$np" >"$work/$app.out" 2>&1 ||
       [ ! -s "$work/real.table" ]; then
      printf '%-16s failed: %s\n' "$app" "$(grep -v '^ *$' "$work/$app.out" | tail -n 1)"
      failures=$((failures + 1)); continue
    fi
    line=$(awk -v tol="$tolerance" '{ d = 100 * ($4 - $3) / $3; a = d < 0 ? -d : d
      printf "%-16s %12d %12d %+9.1f%%%s\n", $1, $3, $4, d, (a > tol ? "   OVER" : "") }' "$work/real.table")
    echo "$line"
    case $line in *OVER) failures=$((failures + 1)) ;; esac
  done
fi
[ "$failures" -eq 0 ]
