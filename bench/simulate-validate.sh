#!/usr/bin/env bash
# The scale-free benchmark against its application, both under SimGrid SMPI on the same platform
# (docs/simulation.md, "Validation").
#
#   bench/simulate-validate.sh BUILD_DIR [RANKS...]        (default RANKS: 64)
#   SAMPLES="stencil2d halo3d rowcol wavefront" PLATFORM=crossbar
#
# Per sample: recorded with Open MPI at its three input scales (tests/e2e/extrapolation-samples.sh,
# CPU-clock compute times), extrapolated without --ranks to one scale-free C benchmark; the
# application and the benchmark are each compiled with smpicc together with the PMPI counting
# library (tests/support/mpi_count.c) and run by `tracegen simulate` at every RANKS. One table
# row per sample and rank count:
#   calls      the two runs' calls and bytes on every rank identical (tests/support/compare_counts.py)
#   app s, bench s, err    SMPI's simulated time of the whole run: the application's computation
#              as SMPI measures it while it runs (its real CPU time between MPI calls), the
#              benchmark's as recorded (smpi_execute_flops_benched)
#   comm: app s, bench s, err   the same without computation: the application with
#              smpi/simulate-computation:no, the benchmark with --compute-scale 0 and the same
#              option, so that only the simulated communication differs
# Exit status 1 when calls differ, or (STRICT_COMM=1) a communication-only error exceeds 10%.
# Missing smpicc: a message and status 77 (ctest counts it as skipped).
set -uo pipefail
build=$(cd "$1" && pwd)
shift
ranks=("$@")
[ ${#ranks[@]} -eq 0 ] && ranks=(64)
src=$(cd "$(dirname "$0")/.." && pwd)
tracegen=$build/tools/tracegen/tracegen
recorder=$build/record/libtracegen-record.so
read -r -a samples <<<"${SAMPLES:-stencil2d halo3d rowcol wavefront}"
platform=${PLATFORM:-crossbar}
if ! command -v smpicc >/dev/null || ! command -v smpirun >/dev/null; then
  echo "SKIP: smpicc/smpirun not found (SimGrid SMPI: apt-get install libsimgrid-dev)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "$src/bench/simulate-common.sh"

smpicc -std=c11 -O2 -c -o "$work/count.o" "$src/tests/support/mpi_count.c" || { echo "FAIL: counting library"; exit 1; }
# simulated PROGRAM COUNTS.json ARGS...: SMPI's simulated seconds of a run at $np ranks.
simulated() {
  local prog=$1 counts=$2
  shift 2
  if ! TRACEGEN_COUNT_OUTPUT=$counts "$tracegen" simulate "$prog" -n "$np" -p "$platform" "$@" >"$work/sim.out" 2>&1; then
    cat "$work/sim.out" >&2
    echo "-"
    return
  fi
  sed -n 's/^simulated: \([0-9.e+-]*\) s.*/\1/p' "$work/sim.out"
}
err() { python3 -c "import sys; a,b=sys.argv[1:]; print('%+.1f%%' % (100*(float(b)-float(a))/float(a)) if a!='-' and b!='-' and float(a)>0 else '-')" "$1" "$2"; }

status=0
printf '%-10s %6s %-9s %11s %11s %8s   %11s %11s %8s\n' sample ranks calls "app s" "bench s" err "comm app s" "comm bench" err
for app in "${samples[@]}"; do
  read -r -a args <<<"$(sim_args "$app")"
  make_bench "$app" || { status=1; continue; }
  smpicc -std=c11 -O2 -w -o "$work/sapp-$app" "$src/samples/apps/$app.c" "$work/count.o" -lm -ldl &&
    smpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/sbench-$app" "$work/bench-$app.c" "$work/count.o" -lm -ldl ||
    { echo "FAIL: smpicc $app"; status=1; continue; }
  for np in "${ranks[@]}"; do
    t_app=$(simulated "$work/sapp-$app" "$work/app.json" -- "${args[@]}")
    t_bench=$(simulated "$work/sbench-$app" "$work/bench.json")
    if python3 "$src/tests/support/compare_counts.py" "$work/app.json" "$work/bench.json" >"$work/cmp.out" 2>&1; then
      calls=identical
    else
      calls=DIFFER
      status=1
      cat "$work/cmp.out"
    fi
    c_app=$(simulated "$work/sapp-$app" "$work/app2.json" --cfg smpi/simulate-computation:no -- "${args[@]}")
    c_bench=$(simulated "$work/sbench-$app" "$work/bench2.json" --cfg smpi/simulate-computation:no -- --compute-scale 0)
    e_comm=$(err "$c_app" "$c_bench")
    printf '%-10s %6s %-9s %11s %11s %8s   %11s %11s %8s\n' "$app" "$np" "$calls" "$t_app" "$t_bench" \
      "$(err "$t_app" "$t_bench")" "$c_app" "$c_bench" "$e_comm"
    if [ "${STRICT_COMM:-0}" = 1 ]; then
      python3 -c "import sys; e=sys.argv[1]; sys.exit(0 if e!='-' and abs(float(e.rstrip('%')))<=10 else 1)" "$e_comm" ||
        { echo "FAIL: $app at $np ranks: communication-only simulated times differ by $e_comm"; status=1; }
    fi
  done
done
exit $status
