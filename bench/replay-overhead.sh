#!/usr/bin/env bash
# Replay overhead: what a generated C benchmark spends outside the MPI library beyond the
# application's own computation (its spin's overshoot, msg_count, the request ring, tables,
# set_up and finish), measured with the recorder on both sides. Each sample application runs
# under the recorder (trace A), its benchmark is generated and compiled, and the benchmark runs
# under the recorder too (trace B, --no-footprint). The recorder charges a rank, before each MPI
# call, the time since the previous one (its own per-call work left out), so per rank
#   B's compute - A's compute = the benchmark's own work between MPI calls,
# and that over B's whole traced time is the overhead the benchmark adds to a run. The per-call
# figure divides it by the rank's calls.
#
# Usage: bench/replay-overhead.sh [BUILD_DIR [NP]]   (defaults: build 2)
# Columns: sample, the application's compute per rank (s, mean over ranks), the benchmark's,
# their difference in percent of the benchmark's traced time (mean and worst rank), and the
# difference per MPI call in nanoseconds. NP=2 on this 2-core machine is the honest setting.
set -euo pipefail
build=${1:-build} np=${2:-2}
apps=$build/samples/apps recorder=$(realpath "$build/record/libtracegen-record.so" 2>/dev/null || true)
tracegen=$build/tools/tracegen/tracegen
[ -x "$apps/stencil2d" ] && [ -f "$recorder" ] && [ -x "$tracegen" ] || { echo "build $build first (with MPI)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source "$(dirname "$0")/sample-args.sh"
# Timing means nothing on a busy machine (sample-args.sh: TRACEGEN_BENCH_BUSY_OK=1 times anyway).
require_idle_machine || exit 1
args_of() { sample_args "$@"; }

record() {  # record OUTPUT PROGRAM ARGS...
  local out=$1
  shift
  timeout 600 mpiexec --oversubscribe -n "$np" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$out" TRACEGEN_COMPRESS=0 \
    "$@" >/dev/null 2>&1
}

printf '%-10s %12s %12s %10s %10s %9s\n' sample "app comp s" "bench comp s" "overhead" "worst" "ns/call"
for app in stencil2d wavefront sweep fft cg ring; do
  [ -x "$apps/$app" ] || continue
  read -r -a args <<<"$(args_of "$app")"
  if ! record "$work/$app.tgt" "$apps/$app" "${args[@]}" ||
     ! "$tracegen" "$work/$app.tgt" -o "$work/$app.c" >/dev/null 2>&1 ||
     ! mpicc -std=c11 -O2 -o "$work/$app" "$work/$app.c" ||
     ! record "$work/$app-bench.tgt" "$work/$app" --no-footprint; then
    printf '%-10s %s\n' "$app" "failed"
    continue
  fi
  "$tracegen" inspect --per-rank --format json "$work/$app.tgt" >"$work/a.json"
  "$tracegen" inspect --per-rank --format json "$work/$app-bench.tgt" >"$work/b.json"
  "$tracegen" compare "$work/$app.tgt" "$work/$app-bench.tgt" >"$work/compare.txt" || true
  python3 - "$app" "$work/a.json" "$work/b.json" "$work/compare.txt" <<'PY'
import json, sys
app, a, b, compare = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4]
# B's traced time per rank (compute + MPI), from `tracegen compare`'s table.
traced = {}
for line in open(compare):
    parts = line.split()
    if len(parts) == 4 and parts[0].isdigit():
        traced[int(parts[0])] = float(parts[2])
shares, per_call, ca, cb = [], [], [], []
for ra, rb in zip(a["per_rank"], b["per_rank"]):
    extra = (rb["compute_us"] - ra["compute_us"]) * 1e-6
    ca.append(ra["compute_us"] * 1e-6)
    cb.append(rb["compute_us"] * 1e-6)
    t = traced.get(rb["rank"], 0)
    shares.append(100 * extra / t if t > 0 else float("nan"))
    per_call.append(extra * 1e9 / max(rb["calls"], 1))
mean = lambda v: sum(v) / len(v)
print(f"{app:<10} {mean(ca):12.4f} {mean(cb):12.4f} {mean(shares):9.2f}% {max(shares, key=abs):9.2f}% {mean(per_call):9.0f}")
PY
done
