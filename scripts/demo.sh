#!/usr/bin/env bash
# Sets up, builds tracegen, and runs it on a bundled sample: what is in the trace, then the
# lowering pipeline with its statistics.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-debian.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc 2>/dev/null || echo 2)" --target tracegen
sample=${1:-../shared/traces/scalatrace2-npb-td-lu-A-4.trace}
./build/tools/tracegen/tracegen inspect "$sample" --per-rank
./build/tools/tracegen/tracegen lower "$sample" --stats -o build/demo-lowered.tgt
echo "lowered trace written to build/demo-lowered.tgt"
