#!/usr/bin/env bash
# The process footprint end to end: a benchmark's peak resident memory per rank is the
# application's, within 5% (docs/c-backend.md, "Process footprint").
#
#   footprint.sh TRACEGEN RECORDER APPS_DIR
#
# samples/apps/fft (3 iterations of a 1024x1024 transpose: about 40 MB a rank, half of it the
# MPI_Alltoall buffers) is run on 2 ranks, recorded, and its benchmark run; each rank's peak
# resident set (getrusage of the process, through a python3 wrapper under mpiexec) is compared
# with the application's. The benchmark's message buffers must count towards the footprint, not
# come on top of it (before they did: 78 MB against 43 MB). With --no-footprint the benchmark
# holds less than the application (the check can fail).
set -uo pipefail
tracegen=$1 recorder=$2 apps=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
cd "$work" || exit 1
# Each rank's peak into a file of its own (two ranks' lines on one standard output can merge).
cat >peak.py <<'EOF'
import os, resource, subprocess, sys
code = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL).returncode
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
with open(sys.argv[1] + "." + rank, "w") as f:
    print("peak-kb", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=f)
sys.exit(code)
EOF
# peak_kb NAME CMD...: the largest of the ranks' peaks in KiB (the ranks are alike).
peak_kb() {
  local name=$1
  shift
  rm -f "$name.peak".*
  timeout 300 mpiexec --oversubscribe -n 2 python3 peak.py "$name.peak" "$@" >/dev/null 2>"$name.err" ||
    { echo "FAIL: $name did not run:" >&2; cat "$name.err" >&2; exit 1; }
  [ "$(ls "$name.peak".* 2>/dev/null | wc -l)" -eq 2 ] || { echo "FAIL: $name: not every rank wrote its peak" >&2; exit 1; }
  cat "$name.peak".* | awk '$1 == "peak-kb" && $2 > m { m = $2 } END { print m + 0 }'
}
failures=0
timeout 300 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT=fft.tgt TRACEGEN_COMPRESS=0 \
  "$apps/fft" 3 1024 >/dev/null 2>record.err || { echo "FAIL: recording fft"; cat record.err; exit 1; }
"$tracegen" fft.tgt -o bench.c || { echo "FAIL: generation"; exit 1; }
mpicc -std=c11 -O2 -Wall -Wextra -Werror -o bench bench.c || { echo "FAIL: mpicc"; exit 1; }
app=$(peak_kb app "$apps/fft" 3 1024)
bench=$(peak_kb bench ./bench --compute-scale 0)
bare=$(peak_kb bare ./bench --compute-scale 0 --no-footprint)
echo "peak resident memory per rank: application $app KiB, benchmark $bench KiB, with --no-footprint $bare KiB"
if awk -v a="$app" -v b="$bench" 'BEGIN { exit !(a > 0 && b >= 0.95 * a && b <= 1.05 * a) }'; then
  echo "ok: the benchmark's peak is the application's within 5%"
else
  echo "FAIL: the benchmark's peak is not within 5% of the application's"
  failures=$((failures + 1))
fi
if awk -v a="$app" -v b="$bare" 'BEGIN { exit !(b < 0.9 * a) }'; then
  echo "ok: without the footprint the benchmark holds less (the check above can fail)"
else
  echo "FAIL: with --no-footprint the benchmark holds as much as the application: the check proves nothing"
  failures=$((failures + 1))
fi
[ "$failures" -eq 0 ]
