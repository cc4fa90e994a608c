#!/usr/bin/env bash
# `tracegen merge-timing` end to end (docs/recording.md, "Several recordings of one run"):
#
#   merge_timing.sh TRACEGEN RECORDER APPS_DIR
#
# samples/apps/stencil2d is recorded three times on 4 ranks (CPU clock); the merge makes the calls and bytes
# of each recording (`tracegen compare`), `inspect` says its times are the medians of 3
# recordings with their spread, and its C benchmark compiles with -Werror. The merged time of
# the run is within 5% of the recordings' range (see below). A recording of another run (one more
# timestep) is refused with status 2 and a `file:line: error:` naming the event that differs.
set -uo pipefail
tracegen=$1 recorder=$2 apps=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
failures=0
ok() { echo "ok: $*"; }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
record() {  # record OUTPUT STEPS
  timeout 120 mpiexec --oversubscribe -n 4 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$1" TRACEGEN_CLOCK=cpu \
    "$apps/stencil2d" "$2" 64 >/dev/null 2>"$work/record.err" || { cat "$work/record.err"; return 1; }
}
for r in 1 2 3; do record "$work/r$r.tgt" 200 || { echo "FAIL: recording stencil2d"; exit 1; }; done
if "$tracegen" merge-timing "$work/r1.tgt" "$work/r2.tgt" "$work/r3.tgt" -o "$work/m.tgt" 2>"$work/merge.err"; then
  ok "merged: $(cat "$work/merge.err")"
else
  fail "merge-timing"; cat "$work/merge.err"
fi
for r in 1 2 3; do
  "$tracegen" compare "$work/r$r.tgt" "$work/m.tgt" >"$work/compare.txt" && ok "the merge makes recording $r's calls and bytes" ||
    { fail "the merge differs from recording $r"; head -n 20 "$work/compare.txt"; }
done
if "$tracegen" inspect "$work/m.tgt" | grep -E '^times +the medians of 3 recordings.*spread: median [0-9.]+%, largest'; then
  ok "inspect shows the recordings and their spread"
else
  fail "inspect does not show the recordings"; "$tracegen" inspect "$work/m.tgt" | head -n 8
fi
# The merged compute of the whole run lies near the recordings' range. A median per timing group
# is bounded by the group's recordings, but a sum of medians need not lie between the sums (one
# recording fast in one group and slow in another): under a loaded machine's wall clock the
# groups scattered by 20x and the sum fell 1% under the smallest. So the recordings use the CPU
# clock (what each rank computed, not what it waited for) and the range is widened by 5%.
compute() { "$tracegen" inspect "$1" | awk '$1 == "compute" && $3 == "s" { print $2 }'; }
c1=$(compute "$work/r1.tgt") c2=$(compute "$work/r2.tgt") c3=$(compute "$work/r3.tgt") cm=$(compute "$work/m.tgt")
if awk -v a="$c1" -v b="$c2" -v c="$c3" -v m="$cm" 'BEGIN {
     lo = a; if (b < lo) lo = b; if (c < lo) lo = c; hi = a; if (b > hi) hi = b; if (c > hi) hi = c
     exit !(m >= lo * 0.95 && m <= hi * 1.05) }'; then
  ok "compute over all ranks: recordings $c1, $c2, $c3 s; merged $cm s"
else
  fail "merged compute $cm s outside the recordings' $c1, $c2, $c3 s"
fi
if "$tracegen" "$work/m.tgt" -o "$work/bench.c" && mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench" "$work/bench.c"; then
  ok "the merge's benchmark compiles with -Werror"
else
  fail "the merge's benchmark"
fi
record "$work/other.tgt" 201 || { echo "FAIL: recording stencil2d"; exit 1; }
"$tracegen" merge-timing "$work/r1.tgt" "$work/other.tgt" -o "$work/x.tgt" 2>"$work/other.err"
rc=$?
if [ "$rc" -eq 2 ] && grep -E "^$work/other.tgt:[0-9]+: error: event [0-9]+ MPI_[A-Za-z]+ at .* is not event [0-9]+ of .*: " "$work/other.err" &&
   grep -q "hint: merge-timing takes recordings of one program" "$work/other.err"; then
  ok "another run is refused (status 2) at its first difference"
else
  fail "another run: status $rc"; cat "$work/other.err"
fi
[ "$failures" -eq 0 ]
