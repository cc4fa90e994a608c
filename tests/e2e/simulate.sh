#!/usr/bin/env bash
# End-to-end test of SimGrid SMPI as the simulated machine (docs/simulation.md).
#
#   simulate.sh BUILD_DIR [RANKS]     (default 256)
#
# `tracegen simulate`'s errors first: a platform with fewer hosts than ranks, a missing smpicc
# and an unknown platform are one line `tracegen: error: ...` and status 2. Then the stencil2d
# sample, recorded at 9, 12 and 16 ranks and extrapolated to a scale-free benchmark, and the
# application itself, both compiled with smpicc and run on the crossbar platform at RANKS ranks
# (bench/simulate-validate.sh): their calls and bytes must be identical on every rank and their
# simulated times without computation within 10%. Without smpicc the test is skipped (status 77).
set -uo pipefail
build=$1 ranks=${2:-256}
src=$(cd "$(dirname "$0")/../.." && pwd)
tracegen=$build/tools/tracegen/tracegen
if ! command -v smpicc >/dev/null || ! command -v smpirun >/dev/null; then
  echo "SKIP: smpicc/smpirun not found (SimGrid SMPI: apt-get install libsimgrid-dev, scripts/setup-debian.sh)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
printf '#include <mpi.h>\nint main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }\n' >"$work/hello.c"
# expect_error NAME PATTERN COMMAND...: status 2 and one line matching PATTERN.
expect_error() {
  local name=$1 pattern=$2
  shift 2
  "$@" >"$work/out" 2>&1
  local status=$?
  if [ $status -ne 2 ] || [ "$(wc -l <"$work/out")" -ne 1 ] || ! grep -q "^tracegen: error: .*$pattern" "$work/out"; then
    echo "FAIL: $name: status $status, output:"
    cat "$work/out"
    failures=$((failures + 1))
  else
    echo "ok: $name: $(cat "$work/out")"
  fi
}
expect_error "too few hosts" "has 16384 hosts, fewer than the 20000 ranks" "$tracegen" simulate "$work/hello.c" -n 20000 -p torus
expect_error "no smpicc" "not found" env SMPICC=/nonexistent/smpicc "$tracegen" simulate "$work/hello.c" -n 2
expect_error "no platform" "no platform 'mesh'" "$tracegen" simulate "$work/hello.c" -n 2 -p mesh
if ! "$tracegen" simulate "$work/hello.c" -n 4 -p fat-tree >"$work/out" 2>&1 || ! grep -q "^simulated: " "$work/out"; then
  echo "FAIL: hello on the fat tree"
  cat "$work/out"
  failures=$((failures + 1))
fi
SAMPLES=stencil2d STRICT_COMM=1 bash "$src/bench/simulate-validate.sh" "$build" "$ranks" || failures=$((failures + 1))
[ $failures -eq 0 ] && echo "simulate: all passed" || echo "simulate: $failures failed"
[ $failures -eq 0 ]
