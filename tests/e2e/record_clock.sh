#!/usr/bin/env bash
# TRACEGEN_CLOCK=cpu (docs/recording.md, "Time"): compute time as the CPU time of each rank's
# thread, so that a trace taken with more ranks than cores still carries each rank's compute
# demand.
#
#   record_clock.sh RECORDER TRACEGEN APPS_DIR
#
# stencil2d does a fixed amount of work per rank and timestep (a Jacobi sweep over its own
# n x n block), whatever the number of ranks. Recorded with TRACEGEN_CLOCK=cpu at 2 ranks and at
# 8 ranks (oversubscribed), its mean per-rank compute time (tracegen inspect --format json,
# per_rank[].compute_us) must agree within a factor of 1.5. On a machine with fewer than 8 cores
# the same 8-rank run recorded with wall-clock time must not agree within that factor with the
# CPU time of the 8-rank run (each rank then waits for a core: its wall-clock compute time grows
# with the oversubscription), which shows the check can fail. (Compared with the 8-rank CPU time,
# taken under the same oversubscription, rather than the 2-rank one: a 2-rank run slowed by the
# machine once made the two look alike.) Also: the trace says `clock cpu` (and a wall-clock trace has no clock line), inspect
# shows it, and an unknown TRACEGEN_CLOCK is an error on standard error while the run goes on
# with wall-clock time. Last, the recorder's report of its own time per call counts every
# recorded call.
set -uo pipefail
recorder=$1 tracegen=$2 apps=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1 TRACEGEN_COMPRESS=0
args=(12 1536)  # timesteps, block size: some milliseconds of computation per timestep and rank, longer than the
# time ranks take to fall out of step, so that on too few cores the ranks compute at once and wait for a
# core (measured on 2 cores: CPU time 8 vs 2 ranks 0.9-1.1x; wall-clock vs CPU time at 8 ranks 1.9-3.2x)
fail=0

record() {  # record NP CLOCK OUTPUT
  if ! timeout 300 mpiexec --oversubscribe -n "$1" env LD_PRELOAD="$recorder" TRACEGEN_CLOCK="$2" TRACEGEN_OUTPUT="$3" \
    "$apps/stencil2d" "${args[@]}" >"$work/out" 2>"$work/err"; then
    echo "FAIL: stencil2d on $1 ranks with TRACEGEN_CLOCK=$2"
    cat "$work/out" "$work/err"
    exit 1
  fi
}

mean_compute() {  # mean per-rank compute time of a trace, in microseconds
  "$tracegen" inspect "$1" --format json |
    python3 -c 'import json, sys; r = json.load(sys.stdin)["per_rank"]; print(sum(x["compute_us"] for x in r) / len(r))'
}

within() {  # within A B FACTOR: A / B lies in [1/FACTOR, FACTOR]
  awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { r = a / b; exit !(r <= f && r >= 1 / f) }'
}

record 2 cpu "$work/cpu2.tgt"
record 8 cpu "$work/cpu8.tgt"
record 8 wall "$work/wall8.tgt"
cpu2=$(mean_compute "$work/cpu2.tgt")
cpu8=$(mean_compute "$work/cpu8.tgt")
wall8=$(mean_compute "$work/wall8.tgt")
for v in "$cpu2" "$cpu8" "$wall8"; do
  awk -v v="$v" 'BEGIN { exit !(v + 0 > 0) }' || { echo "FAIL: no compute time read from the traces"; exit 1; }
done
echo "mean per-rank compute: cpu clock 2 ranks ${cpu2} us, 8 ranks ${cpu8} us; wall clock 8 ranks ${wall8} us ($(nproc) cores)"
if within "$cpu8" "$cpu2" 1.5; then
  echo "ok: CPU time per rank at 8 ranks is within 1.5x of 2 ranks'"
else
  echo "FAIL: CPU time per rank at 8 ranks (${cpu8} us) is not within 1.5x of 2 ranks' (${cpu2} us)"
  fail=1
fi
if [ "$(nproc)" -lt 8 ]; then
  if within "$wall8" "$cpu8" 1.5; then
    echo "FAIL: wall-clock compute at 8 ranks on $(nproc) cores (${wall8} us) passes the check too: it cannot tell the clocks apart"
    fail=1
  else
    echo "ok: wall-clock compute at 8 ranks on $(nproc) cores fails the check, as it must"
  fi
else
  echo "note: $(nproc) cores, 8 ranks are not oversubscribed: the wall-clock counter-check does not apply"
fi

# The trace states its clock; inspect shows it.
grep -qx "clock cpu" "$work/cpu8.tgt" || { echo "FAIL: the cpu trace has no 'clock cpu' line"; fail=1; }
grep -q "^clock" "$work/wall8.tgt" && { echo "FAIL: the wall-clock trace has a clock line"; fail=1; }
# Captured, not piped into grep -q: under pipefail, grep leaving at the first match makes the
# writer of a longer output die of SIGPIPE, and the check fail.
inspect_text=$("$tracegen" inspect "$work/cpu8.tgt")
inspect_json=$("$tracegen" inspect "$work/cpu8.tgt" --format json)
grep -q "^clock *cpu" <<<"$inspect_text" || { echo "FAIL: inspect does not show the cpu clock"; fail=1; }
grep -q '"compute_clock": "cpu"' <<<"$inspect_json" ||
  { echo "FAIL: inspect --format json does not say compute_clock cpu"; fail=1; }

# An unknown clock: an error on standard error, the run goes on and records wall-clock time.
timeout 300 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_CLOCK=cycles TRACEGEN_OUTPUT="$work/bad.tgt" \
  "$apps/stencil2d" 5 16 >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -ne 0 ] || ! grep -q "TRACEGEN_CLOCK=cycles is neither" "$work/err" || [ ! -s "$work/bad.tgt" ] ||
  grep -q "^clock" "$work/bad.tgt"; then
  echo "FAIL: TRACEGEN_CLOCK=cycles: status $rc, expected an error message and a wall-clock trace"
  cat "$work/err"
  fail=1
else
  echo "ok: TRACEGEN_CLOCK=cycles: $(grep -m1 TRACEGEN_CLOCK "$work/err")"
fi
# The recorder's report of its own time per call (MPI_Finalize, not quiet): every recorded call
# but MPI_Init and MPI_Finalize is counted (stencil2d makes no tests, so no failed polls), and the
# time is positive.
timeout 300 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_QUIET=0 TRACEGEN_OUTPUT="$work/own.tgt" \
  "$apps/stencil2d" 5 16 >"$work/out" 2>"$work/err"
own_line=$(grep "own time per recorded call" "$work/err")
own_ns=$(sed -n 's/.*own time per recorded call: \([0-9]*\) ns (\([0-9]*\) calls.*/\1/p' <<<"$own_line")
own_calls=$(sed -n 's/.*own time per recorded call: \([0-9]*\) ns (\([0-9]*\) calls.*/\2/p' <<<"$own_line")
trace_calls=$("$tracegen" inspect "$work/own.tgt" --format json |
  python3 -c 'import json, sys; print(sum(r["calls"] for r in json.load(sys.stdin)["per_rank"]) - 2 * 2)')
if [ -n "$own_ns" ] && [ "$own_ns" -gt 0 ] && [ "$own_calls" = "$trace_calls" ]; then
  echo "ok: $own_line"
else
  echo "FAIL: expected the recorder's own time per call over $trace_calls calls, got: '${own_line}'"
  cat "$work/err"
  fail=1
fi
[ $fail -eq 0 ] && echo PASS
exit $fail
