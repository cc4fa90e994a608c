#!/usr/bin/env bash
# Time and peak memory of the default pipeline at 1,024, 16,384 and 262,144 ranks.
set -euo pipefail
bin=${1:-build/bench/tracegen_pipeline_scale}
for ranks in 1024 16384 262144; do "$bin" "$ranks" 1000; done
