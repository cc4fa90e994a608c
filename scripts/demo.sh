#!/usr/bin/env bash
# Sets up, builds tracegen, and runs the main job on a bundled sample: inspect the trace,
# generate a C+MPI and a coNCePTuaL benchmark, compile the C one and run it at the trace's
# rank count. Usage: scripts/demo.sh [TRACE]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target tracegen ncptl-check
tracegen=./build/tools/tracegen/tracegen
sample=${1:-samples/traces/stencil-2d-4.tgt}
out=build/demo
mkdir -p "$out"

"$tracegen" inspect "$sample" --per-rank
"$tracegen" "$sample" -o "$out/bench.c" --stats
"$tracegen" "$sample" -o "$out/bench.ncptl"
./build/tools/ncptl-check/ncptl-check "$out/bench.ncptl"
mpicc -std=c11 -O2 -Wall -Wextra -o "$out/bench" "$out/bench.c"
ranks=$(python3 -c 'import json,sys; print(json.load(sys.stdin)["ranks"])' < <("$tracegen" inspect "$sample" --format json))
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
mpiexec --oversubscribe -n "$ranks" "$out/bench"
echo "benchmarks: $out/bench.c, $out/bench.ncptl"
