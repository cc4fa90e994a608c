#!/usr/bin/env bash
# Drift of compute times over calls (docs/trace-format.md, "Drift over calls") end to end.
#
#   record_drift.sh RECORDER TRACEGEN APPS_DIR
#
# samples/apps/warmup computes 2 ms before its MPI_Allreduce in the first iteration and 200 us in
# the others. Recorded at 2 ranks, the Allreduce's compute time must keep that shape: a `calls=`
# field whose first range (call 0) is about ten times its last (tracegen inspect --format json,
# `drift`). The C benchmark generated from the trace must replay it per call (`by_call(`), and
# recorded in turn its own drift must agree with the application's within 20% range by range
# (the first call and the steady calls).
#
# Wall-clock times on a shared machine: a rank that loses its core for a time slice (4 ms, while
# its partner spins in MPI_Allreduce) makes a 200 us computation look like 5 ms, and one such
# slice moves the mean of the steady calls by a fifth. So MPI waits yield the core
# (mpi_yield_when_idle), and a comparison that misses is retried, up to ATTEMPTS (5) times in all,
# with a new recording of both (as tests/e2e/extrapolate.sh retries its comparisons); the shape
# checks themselves (a calls= field, by_call in the benchmark) are not retried.
set -uo pipefail
recorder=$1 tracegen=$2 apps=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1 TRACEGEN_COMPRESS=0
export OMPI_MCA_mpi_yield_when_idle=1
attempts=${ATTEMPTS:-5}

record() {  # record OUTPUT PROGRAM ARGS...
  local out=$1
  shift
  if ! timeout 300 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$out" "$@" \
      >"$work/out" 2>"$work/err"; then
    echo "FAIL: recording $*"
    cat "$work/out" "$work/err"
    exit 1
  fi
}

# The Allreduce's drifting compute time: "first_mean last_mean ranges" of its first drift entry.
drift_of() {
  "$tracegen" inspect "$1" --format json | python3 -c '
import json, sys
d = [x for x in json.load(sys.stdin)["drift"] if x["op"] == "MPI_Allreduce"]
if not d:
    sys.exit(1)
c = d[0]["calls"]
print(c[0]["mean"], c[-1]["mean"], len(c), c[0]["first_call"])'
}

within() {  # within WHAT APP BENCH: BENCH / APP in [0.8, 1.2]
  if awk -v a="$2" -v b="$3" 'BEGIN { r = b / a; exit !(r >= 0.8 && r <= 1.2) }'; then
    echo "ok: the $1 range agrees within 20% ($3 vs $2 us)"
  else
    echo "miss: the benchmark's $1 range (${3} us) is not within 20% of the application's (${2} us)"
    return 1
  fi
}

for attempt in $(seq 1 "$attempts"); do
  echo "attempt $attempt of $attempts"
  record "$work/app.tgt" "$apps/warmup" 30 2000 200
  grep -q "calls=\[0 " "$work/app.tgt" || { echo "FAIL: the application's trace has no calls= field"; grep "time comp" "$work/app.tgt"; exit 1; }
  if ! app=$(drift_of "$work/app.tgt"); then
    echo "FAIL: inspect shows no drifting compute time before MPI_Allreduce"; "$tracegen" inspect "$work/app.tgt"; exit 1
  fi
  read -r app_first app_last app_n app_start <<<"$app"
  grep -q "^  E[0-9]* MPI_Allreduce time comp after .*; calls 0: " <<<"$("$tracegen" inspect "$work/app.tgt")" ||
    { echo "FAIL: inspect's text does not list the drifting time"; "$tracegen" inspect "$work/app.tgt"; exit 1; }
  echo "application: call 0 ${app_first} us, last range ${app_last} us ($app_n ranges)"
  if ! awk -v f="$app_first" -v l="$app_last" -v s="$app_start" 'BEGIN { r = f / l; exit !(s == 0 && r >= 7 && r <= 13) }'; then
    echo "miss: the first range (${app_first} us) is not about ten times the last (${app_last} us)"
    continue
  fi
  echo "ok: the first call computes about ten times the rest"

  if ! "$tracegen" "$work/app.tgt" -o "$work/bench.c" 2>"$work/gen.err"; then
    echo "FAIL: generate"; cat "$work/gen.err"; exit 1
  fi
  grep -q "by_call(" "$work/bench.c" || { echo "FAIL: the benchmark does not replay the time by call"; exit 1; }
  if ! mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench" "$work/bench.c" 2>"$work/cc.err"; then
    echo "FAIL: mpicc"; head -n 30 "$work/cc.err"; exit 1
  fi
  record "$work/bench.tgt" "$work/bench"
  if ! bench=$(drift_of "$work/bench.tgt"); then
    echo "miss: the benchmark's trace shows no drifting compute time before MPI_Allreduce"
    "$tracegen" inspect "$work/bench.tgt"
    continue
  fi
  read -r bench_first bench_last bench_n _ <<<"$bench"
  echo "benchmark:   call 0 ${bench_first} us, last range ${bench_last} us ($bench_n ranges)"
  ok=1
  within first "$app_first" "$bench_first" || ok=0
  within last "$app_last" "$bench_last" || ok=0
  [ $ok = 1 ] && exit 0
done
echo "FAIL: the benchmark's drift did not agree with the application's in $attempts attempts"
exit 1
