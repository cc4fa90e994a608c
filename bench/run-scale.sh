#!/usr/bin/env bash
# Cost of the default pipeline (checks included) on the compressed form, printed as figures:
#   1. the synthetic 2-D stencil at 1,024 / 16,384 / 1,048,576 ranks (1,000 timesteps);
#   2. an LU-like wavefront with wildcard receives at 16,384 ranks (250 timesteps);
#   3. a ring time-step loop ended by a gather from MPI_ANY_SOURCE at 1,024 ranks, 1,000 to
#      10,000,000 timesteps: resolve-wildcards simulates the loop folded, so time and memory do
#      not follow the timesteps;
#   4. the real LU class C trace at 16 ranks as C and as coNCePTuaL (the latter checked by
#      ncptl/'s simulation of the program it writes);
#   5. generation of C from every bundled trace (and ../shared/traces when present): wall time
#      and peak memory of the whole `tracegen` process.
# Usage: bash bench/run-scale.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
bin=$build/bench/tracegen_pipeline_scale
tracegen=$build/tools/tracegen/tracegen
measure() { /usr/bin/time -f "%e s  %M KiB" "$@"; }

echo "== synthetic stencil (time grows <= 4x from 1,024 to 1,048,576 ranks; each < 1 s, < 100 MB)"
for ranks in 1024 16384 1048576; do measure "$bin" stencil "$ranks" 1000 2>&1 | grep -E "^stencil|check-communication|decided|simulated|pipeline total|peak memory| s  .*KiB"; done
echo "== LU-like wavefront with wildcard receives (< 10 s, < 1 GiB at 16,384 ranks)"
for ranks in 1024 16384; do measure "$bin" wavefront "$ranks" 250 2>&1 | grep -E "^wavefront|resolve-wildcards|check-communication|decided|symbolically|simulated|folded|pipeline total|peak memory| s  .*KiB"; done
echo "== ring time-step loop and wildcard gather at 1,024 ranks (the same time at every timestep count)"
for steps in 1000 100000 10000000; do measure "$bin" gather 1024 "$steps" 2>&1 | grep -E "^gather|resolve-wildcards |calls-simulated|loops-folded|pipeline total|peak memory| s  .*KiB"; done
echo "== LU class C at 16 ranks, ScalaTrace 2 (12,228 wildcard receives; < 100 ms, < 50 MB each, best of 3 by user time)"
# Only the time-dependent run of LU C-16 is at hand; its ti and tic variants are derived from it
# (ti: the computation histograms read as kilo-instructions, 1 per microsecond; tic: both), which
# the format makes exact in everything but the measured values: the variants share their
# RANKS, EVENT, LOOP and parameter lines (docs: scalatrace2-format.md, section 1).
lu=../shared/traces/scalatrace2-npb-td-lu-C-16.trace
[ -f "$lu" ] || lu=tests/data/wildcards/scalatrace2-npb-td-lu-C-16.trace
variants=$(mktemp -d)
trap 'rm -rf "$variants"' EXIT
cp "$lu" "$variants/td.trace"
derive() {  # $1: tic (keep the 4b lines and add 4c copies after them) or ti (relabel them)
  awk -v keep="$1" 'BEGIN { RS = ""; ORS = "\n\n"; FS = "\n" }
    { out = ""; n = 0
      for (i = 1; i <= NF; i++) {
        line = $i
        if (line ~ /^COMP 4b-/) { copy[++n] = line; sub(/^COMP 4b-/, "COMP 4c-", copy[n]); if (keep == "tic") out = out line "\n"; continue }
        if (n > 0) { for (j = 1; j <= n; j++) out = out copy[j] "\n"; n = 0 }
        out = out line "\n"
      }
      if (n > 0) for (j = 1; j <= n; j++) out = out copy[j] "\n"
      printf "%s\n", out }' "$lu"
}
derive ti > "$variants/ti.trace"
derive tic > "$variants/tic.trace"
for v in td ti tic; do for emit in c ncptl; do
  best=""
  for run in 1 2 3; do
    out=$(/usr/bin/time -f "%U s user  %e s wall  %M KiB" "$tracegen" "$variants/$v.trace" -o /dev/null --emit "$emit" \
            --instruction-rate 1e9 --stats 2>&1) || { echo "$v $emit: failed"; echo "$out" | tail -3; continue 2; }
    fig=$(echo "$out" | grep -E " s user " | tail -1)
    if [ -z "$best" ] || awk -v a="${fig%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then best=$fig; fi
  done
  counters=$(echo "$out" | grep -E "^ +[0-9]+  (calls-simulated|calls-skipped|repeats-skipped|expanded-ranks|skeleton-walked-ranks)$" |
             awk '{ printf "%s %s  ", $2, $1 }')
  printf "lu-C-16 %-4s %-6s %s  %s\n" "$v" "$emit" "$best" "$counters"
done; done
echo "== every trace, tracegen TRACE -o OUT.c (< 100 ms, < 50 MB each)"
shopt -s nullglob
for t in samples/traces/*.tgt tests/data/scalatrace/*.trace ../shared/traces/*.trace; do
  printf "%-48s " "$(basename "$t")"
  out=$(measure "$tracegen" "$t" -o /dev/null --emit c --instruction-rate 1e9 2>&1) || true
  echo "$out" | grep -E "error|exited" | head -2 | tr '\n' ' ' || true
  echo "$out" | grep -E " s  .*KiB" || echo
done
