#!/usr/bin/env bash
# End-to-end checks of the tracegen command line: help, inspect (text and JSON), convert,
# lower with --stats/--print-after, inspect's pictures and extrapolate --plot, and the
# diagnostics and exit status of bad input.
# Usage: cli.sh TRACEGEN SOURCE_DIR (the ScalaTrace traces are the bundled tests/data/scalatrace/)
set -uo pipefail
tracegen=$1 src=$2
data=$src/tests/data/scalatrace
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 passed=0
check() {  # check NAME COMMAND...: the command must succeed
  local name=$1; shift
  if "$@"; then passed=$((passed + 1)); else echo "FAIL: $name"; failures=$((failures + 1)); fi
}
expect_status() {  # expect_status NAME STATUS STDERR_PATTERN -- COMMAND...
  local name=$1 want=$2 pattern=$3; shift 4
  "$@" >"$work/out" 2>"$work/err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $name: exit status $got, expected $want"; cat "$work/err"; failures=$((failures + 1)); return
  fi
  if [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$work/err"; then
    echo "FAIL: $name: stderr does not match /$pattern/:"; cat "$work/err"; failures=$((failures + 1)); return
  fi
  passed=$((passed + 1))
}

expect_status "help" 0 "" -- "$tracegen" --help
expect_status "no arguments" 2 "" -- "$tracegen"
expect_status "inspect help" 0 "" -- "$tracegen" inspect --help

for trace in "$data"/*.trace; do
  name=$(basename "$trace")
  expect_status "inspect $name" 0 "" -- "$tracegen" inspect "$trace" --per-rank
  "$tracegen" inspect "$trace" --format json >"$work/a.json" || { echo "FAIL: json $name"; failures=$((failures + 1)); }
  check "json keys $name" python3 - "$work/a.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for k in ("ranks", "events", "loops", "ops", "per_rank"):
    assert k in j, k
assert j["ranks"] == len(j["per_rank"]) == 4
assert [r["rank"] for r in j["per_rank"]] == list(range(4))
for r in j["per_rank"]:
    for k in ("rank", "ops", "bytes_sent", "bytes_received", "compute_us"):
        assert k in r, k
    assert r["ops"]["MPI_Init"] == 1 and r["ops"]["MPI_Finalize"] == 1
assert sum(r["ops"].get("MPI_Send", 0) for r in j["per_rank"]) == j["ops"]["MPI_Send"]
PY
  # convert, and the converted trace says the same
  expect_status "convert $name" 0 "" -- "$tracegen" convert "$trace" -o "$work/c.tgt"
  "$tracegen" inspect "$work/c.tgt" --format json >"$work/b.json"
  check "convert keeps figures $name" python3 - "$work/a.json" "$work/b.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for k in ("ranks", "events", "loops", "ops", "per_rank", "calls"):
    if k == "per_rank":
        for x, y in zip(a[k], b[k]):
            x.pop("compute_us", None); y.pop("compute_us", None)
    assert a[k] == b[k], k
PY
done

lu="$data/scalatrace2-npb-td-lu-A-4.trace"
expect_status "lower --stats" 0 "resolve-comms" -- "$tracegen" lower "$lu" --stats -o "$work/l.tgt"
expect_status "lower --print-after=all" 0 "IR dump after" -- "$tracegen" lower "$lu" --print-after=all -o "$work/l.tgt"
# rank-ranges leaves shapes in the IR (kind and predicate, no C or coNCePTuaL text).
expect_status "lower --print-after=rank-ranges" 0 "^# rank-shape .* = all of 4: true" -- "$tracegen" lower "$lu" --print-after=rank-ranges -o "$work/l.tgt"
expect_status "lower --passes" 0 "" -- "$tracegen" lower "$lu" --passes=resolve-comms -o -
expect_status "unknown pass" 2 "unknown pass 'bogus'" -- "$tracegen" lower "$lu" --passes=bogus -o -
expect_status "top-level --passes" 2 "unknown pass" -- "$tracegen" --passes=bogus "$lu" -o "$work/x.c"
expect_status "pass order" 2 "requires comms-resolved" -- "$tracegen" lower "$lu" --passes=align-collectives -o -
expect_status "generate needs timing" 2 "needs timing-summarized" -- "$tracegen" --passes=resolve-comms "$lu" -o "$work/x.c"
expect_status "ti needs a rate" 2 "instruction-rate" -- "$tracegen" lower "$data/scalatrace2-npb-ti-cg-A-4.trace" -o -
expect_status "ti with a rate" 0 "" -- "$tracegen" lower "$data/scalatrace2-npb-ti-cg-A-4.trace" --instruction-rate 1e9 -o -

# Bad input: file:line: error: and exit status 2, never a crash.
printf 'RANKS: 1 -1 0 4 1\nEVENT0: 1084 aa\n33 2 \n34 0 \n\nRANKS: 1 -1 0 4 1\nEVENT1: 9999 bb\n\n' >"$work/badop.trace"
expect_status "unknown opcode" 2 "badop.trace:7: error: unknown operation code 9999" -- "$tracegen" inspect "$work/badop.trace"
: >"$work/empty.trace"
expect_status "empty file" 2 "empty.trace:.*error: empty" -- "$tracegen" inspect "$work/empty.trace"
head -c 300 /dev/urandom >"$work/garbage.trace"; printf '\x00' >>"$work/garbage.trace"
expect_status "binary garbage" 2 "garbage.trace:[0-9]+: error:" -- "$tracegen" inspect "$work/garbage.trace"
# A fragment (no MPI_Init, no MPI_Finalize) is generated, with the added calls said on stderr.
frag="$src/tests/data/scalatrace-structures/fragment-4.trace"
expect_status "fragment warns" 0 "fragment-4.trace:1: warning: the trace starts with event 5 \(MPI_Barrier\), not MPI_Init" \
  -- "$tracegen" "$frag" -o "$work/frag.c"
check "fragment gets MPI_Init and MPI_Finalize" grep -q "MPI_Finalize();" "$work/frag.c"
expect_status "fragment warns at its end" 0 "not MPI_Finalize: it is read as a fragment" -- "$tracegen" lower "$frag" -o -
# Every command that reads a trace says what the reader added, not only generate and lower.
expect_status "inspect warns of a fragment" 0 "fragment-4.trace:1: warning: the trace starts with event 5" -- "$tracegen" inspect "$frag"
expect_status "convert warns of a fragment" 0 "fragment-4.trace:1: warning: the trace starts with event 5" -- "$tracegen" convert "$frag" -o "$work/frag.tgt"
expect_status "compare warns of a fragment" 0 "fragment-4.trace:26: warning: the trace ends with event 7" -- "$tracegen" compare "$frag" "$frag"
head -c 20000 "$lu" >"$work/truncated.trace"
expect_status "truncated" 2 "truncated.trace:[0-9]+: error:" -- "$tracegen" inspect "$work/truncated.trace"
expect_status "missing file" 2 "error: cannot open" -- "$tracegen" inspect "$work/none.trace"
# A communicator nobody created (a recorder that missed MPI_Cart_create wrote `comm -1` on the
# MPI_Comm_free): refused at generation with the event's line, never a benchmark with `% 0`.
printf 'tracegen-trace 1\nranks 2\nevent 0 MPI_Init @ <1 0 {2 1}>\nevent 1 MPI_Comm_free @ <1 0 {2 1}>\n  comm -1\nevent 2 MPI_Finalize @ <1 0 {2 1}>\n' >"$work/nocomm.tgt"
expect_status "uncreated communicator: C" 2 "nocomm.tgt:4: error: event 1 \(MPI_Comm_free\): communicator -1 was never created" \
  -- "$tracegen" "$work/nocomm.tgt" -o "$work/nocomm.c"
expect_status "uncreated communicator: coNCePTuaL" 2 "nocomm.tgt:4: error:" -- "$tracegen" "$work/nocomm.tgt" -o "$work/nocomm.ncptl"
check "uncreated communicator: no benchmark written" test ! -e "$work/nocomm.c"
# --runtime (C): embedded (the default) is one file, separate writes tracegen_runtime.h and
# tracegen_runtime.c beside the benchmark; standard output, coNCePTuaL, an output named like
# the runtime and an unknown value are refused with exit status 2.
ring="$src/samples/traces/ring-4.tgt"
mkdir -p "$work/sep"
"$tracegen" generate --help >"$work/help.txt" 2>&1
check "generate --help names --runtime" grep -q -- "--runtime TEXT:{embedded,separate}" "$work/help.txt"
expect_status "--runtime=embedded" 0 "" -- "$tracegen" "$ring" -o "$work/sep/embedded.c" --runtime=embedded
check "--runtime=embedded: the runtime, then the benchmark" grep -q "^/\* ==== tracegen: benchmark of ring-4.tgt starts here ==== \*/$" "$work/sep/embedded.c"
check "--runtime=embedded: no other file" test ! -e "$work/sep/tracegen_runtime.h"
expect_status "--runtime=separate" 0 "" -- "$tracegen" "$ring" -o "$work/sep/bench.c" --runtime=separate
check "--runtime=separate writes the runtime" test -f "$work/sep/tracegen_runtime.h" -a -f "$work/sep/tracegen_runtime.c"
check "--runtime=separate: bench.c includes it" grep -q '^#include "tracegen_runtime.h"$' "$work/sep/bench.c"
check "--runtime=separate: the build line" grep -q "mpicc -std=c11 -O2 -o bench bench.c tracegen_runtime.c" "$work/sep/bench.c"
expect_status "--runtime=separate to standard output" 2 "give -o FILE.c" -- "$tracegen" "$ring" --emit c -o - --runtime=separate
# hpcc (Debian's, N=1000, 2x2 grid) recorded on 4 ranks: align-collectives cannot match 13 of its
# collective events across ranks (per-rank communicators), and one coNCePTuaL statement per
# collective would deadlock. Refused, naming the first of them at its line (it was an internal
# error, status 4); the C benchmark makes every call as the application did.
hpcc=$src/tests/data/real-apps/hpcc-4.tgt.zst
expect_status "hpcc on 4 ranks: coNCePTuaL refused" 2 "hpcc-4.tgt.zst:477: error: coNCePTuaL cannot express this trace: 13 collective events" \
  -- "$tracegen" "$hpcc" -o "$work/hpcc.ncptl" --skip-unknown
expect_status "hpcc on 4 ranks: C" 0 "" -- "$tracegen" "$hpcc" -o "$work/hpcc.c" --skip-unknown
expect_status "--runtime=separate for coNCePTuaL" 2 "for C benchmarks" -- "$tracegen" "$ring" -o "$work/sep/b.ncptl" --runtime=separate
expect_status "--runtime=separate named like the runtime" 2 "name the benchmark otherwise" \
  -- "$tracegen" "$ring" -o "$work/sep/tracegen_runtime.c" --runtime=separate
expect_status "--runtime=bogus" 2 "bogus not in" -- "$tracegen" "$ring" -o "$work/sep/x.c" --runtime=bogus
check "--runtime refusals write nothing" test ! -e "$work/sep/b.ncptl" -a ! -e "$work/sep/x.c"
for f in "$src"/tests/data/malformed/*; do
  [ -e "$f" ] || continue
  expect_status "malformed $(basename "$f")" 2 "$(basename "$f"):[0-9]+: error:" -- "$tracegen" inspect "$f"
done

# The fuzz findings (tests/data/fuzz-findings/README.md): each is refused with file:line and
# exit status 2 by the command that mishandled it, without a crash, or now handled: H1 and H1b,
# loops of 10^12 and 2^31-1 calls that inspect once expanded up to its budget, are multiplied
# by their trip counts (issue 29); the budget cases are unit tests with small budgets.
ff="$src/tests/data/fuzz-findings"
finding() {  # finding FILE LINE COMMAND...: exit status 2 and `FILE:LINE: error:`
  local f=$1 line=$2; shift 2
  expect_status "fuzz finding $f: $*" 2 "$f:$line: error:" -- timeout 120 "$@"
}
finding U1-rankcursor-count-x-size-overflow.tgt 8 "$tracegen" inspect "$ff/U1-rankcursor-count-x-size-overflow.tgt" --per-rank
finding U1b-rankcursor-sendrecv-recvcount-overflow.tgt 10 "$tracegen" "$ff/U1b-rankcursor-sendrecv-recvcount-overflow.tgt" -o "$work/x.c"
finding U1c-rankcursor-collective-recvcount-overflow.tgt 10 "$tracegen" "$ff/U1c-rankcursor-collective-recvcount-overflow.tgt" -o "$work/x.c"
finding U2-traversal-loop-multiplier-overflow.tgt 5 "$tracegen" "$ff/U2-traversal-loop-multiplier-overflow.tgt" -o "$work/x.c"
finding U2b-64-loop-levels.tgt 8 "$tracegen" "$ff/U2b-64-loop-levels.tgt" -o "$work/x.c"
finding U3-traversal-collective-bytes-overflow.tgt 8 "$tracegen" "$ff/U3-traversal-collective-bytes-overflow.tgt" -o "$work/x.c"
finding U4-summary-bytes-sum-overflow.tgt 10 "$tracegen" inspect "$ff/U4-summary-bytes-sum-overflow.tgt" --per-rank
finding U5-ncptl-simulator-bytes-overflow.tgt 10 "$tracegen" "$ff/U5-ncptl-simulator-bytes-overflow.tgt" -o "$work/x.ncptl"
finding U6-rankcursor-request-int64-min.tgt 12 "$tracegen" inspect "$ff/U6-rankcursor-request-int64-min.tgt"
# 2^31-1 ranks: the totals come from one rank per class, at once; a row per rank is refused.
expect_status "fuzz finding C1: totals per rank class" 0 "" -- timeout 20 "$tracegen" inspect "$ff/C1-inspect-2p31m1-ranks-bad-alloc.tgt"
if ! grep -q "calls       6442450941 over all ranks" "$work/out"; then
  echo "FAIL: C1 totals: $(grep calls "$work/out")"; failures=$((failures + 1))
fi
finding C1-inspect-2p31m1-ranks-bad-alloc.tgt 4 "$tracegen" inspect "$ff/C1-inspect-2p31m1-ranks-bad-alloc.tgt" --per-rank
finding C1-inspect-2p31m1-ranks-bad-alloc.tgt 4 "$tracegen" compare "$ff/C1-inspect-2p31m1-ranks-bad-alloc.tgt" "$ff/C1-inspect-2p31m1-ranks-bad-alloc.tgt"
finding C1b-st-2p31m1-ranks.trace 1 "$tracegen" inspect "$ff/C1b-st-2p31m1-ranks.trace" --format json
finding C1b-st-2p31m1-ranks.trace 1 "$tracegen" compare "$ff/C1b-st-2p31m1-ranks.trace" "$ff/C1-inspect-2p31m1-ranks-bad-alloc.tgt"
expect_status "fuzz finding H1: multiplied" 0 "" -- timeout 10 "$tracegen" inspect "$ff/H1-inspect-huge-loop.tgt"
if ! grep -q "calls       1000000000002 over all ranks" "$work/out"; then
  echo "FAIL: H1 totals: $(grep calls "$work/out")"; failures=$((failures + 1))
fi
expect_status "fuzz finding H1b: multiplied" 0 "" -- timeout 10 "$tracegen" inspect "$ff/H1b-st-inspect-loop-2p31.trace" --per-rank
finding S1-st-1000-loop-levels.trace 72 "$tracegen" convert "$ff/S1-st-1000-loop-levels.trace" -o "$work/x.tgt"
finding S2-histogram-inf-mean.tgt 9 "$tracegen" "$ff/S2-histogram-inf-mean.tgt" -o "$work/x.c"
finding S3-negative-count.tgt 11 "$tracegen" "$ff/S3-negative-count.tgt" -o "$work/x.c"
finding S3b-tag-int64-min.tgt 11 "$tracegen" inspect "$ff/S3b-tag-int64-min.tgt"
finding D1-no-fileline-missing-param.tgt 63 "$tracegen" "$ff/D1-no-fileline-missing-param.tgt" -o "$work/x.c"
# H2: resolve-comms no longer expands the 10^12-trip loop after the split; generation is quick.
expect_status "fuzz finding H2: generate" 0 "" -- timeout 60 "$tracegen" "$ff/H2-resolve-comms-split-then-huge-loop.tgt" -o "$work/h2.c"
expect_status "fuzz finding H2: lower" 0 "" -- timeout 60 "$tracegen" lower "$ff/H2-resolve-comms-split-then-huge-loop.tgt" -o "$work/h2.tgt"
# H5: 10^12 waits on rank 1 only; coNCePTuaL generation walks every call up to its budget only.
expect_status "fuzz finding H5: generate coNCePTuaL" 0 "" -- timeout 60 "$tracegen" "$ff/H5-p2p-check-budget-from-rank0.tgt" -o "$work/h5.ncptl"
# C2: 4,000,000 ranks stream out of inspect --format json in bounded memory (1 GB of address
# space; the unbounded version needed 5.2 GB).
c2_rows() {  # prints the number of per-rank rows; fails if inspect fails
  ( ulimit -v 1048576; timeout 120 "$tracegen" inspect "$ff/C2-inspect-json-4M-ranks.tgt" --format json ) \
    | grep -c '^      "rank": '
}
check "fuzz finding C2: 4,000,000 rows streamed in 1 GB" test "$(c2_rows)" = 4000000

# Compressed traces: convert and lower write zstd by default and --plain text; every command
# reads either, and errors name the line of the decompressed text; a bomb is refused (exit 2).
lu=$data/scalatrace2-npb-td-lu-A-4.trace
expect_status "convert compressed" 0 "" -- "$tracegen" convert "$lu" -o "$work/lu.tgt.zst"
check "convert writes zstd" test "$(head -c 4 "$work/lu.tgt.zst" | od -An -tx1 | tr -d ' ')" = 28b52ffd
expect_status "convert --plain" 0 "" -- "$tracegen" convert "$work/lu.tgt.zst" --plain -o "$work/lu.tgt"
check "convert --plain writes text" grep -qx "tracegen-trace 1" "$work/lu.tgt"
check "zstdcat gives the same text" cmp -s "$work/lu.tgt" <(zstdcat "$work/lu.tgt.zst")
check "compressed input is smaller" test "$(stat -c %s "$work/lu.tgt.zst")" -lt "$(($(stat -c %s "$work/lu.tgt") / 5))"
expect_status "inspect compressed" 0 "" -- "$tracegen" inspect "$work/lu.tgt.zst" --per-rank
check "inspect compressed = plain" cmp -s <("$tracegen" inspect "$work/lu.tgt.zst" --format json | grep -v '"file":') \
  <("$tracegen" inspect "$work/lu.tgt" --format json | grep -v '"file":')
expect_status "compare compressed with plain" 0 "" -- "$tracegen" compare "$work/lu.tgt.zst" "$work/lu.tgt"
expect_status "lower compressed" 0 "" -- "$tracegen" lower "$work/lu.tgt.zst" -o "$work/lower.tgt.zst"
check "lower writes zstd" zstd -q -t "$work/lower.tgt.zst"
expect_status "lower to stdout is text" 0 "" -- "$tracegen" lower "$work/lu.tgt.zst" -o -
check "stdout text" grep -qx "tracegen-trace 1" "$work/out"
zstd -q -c "$lu" >"$work/lu.trace.zst"
expect_status "generate from compressed ScalaTrace" 0 "" -- "$tracegen" "$work/lu.trace.zst" -o "$work/lu.c"
# an error on line 9 of the text of a compressed file
sed '9s/^\(.*\)$/  bogus 1/' "$work/lu.tgt" | zstd -q -c >"$work/bad.tgt.zst"
expect_status "compressed error names the text line" 2 "bad.tgt.zst:9: error:" -- "$tracegen" inspect "$work/bad.tgt.zst"
head -c 1000 "$work/lu.tgt.zst" >"$work/cut.tgt.zst"
expect_status "truncated compressed" 2 "cut.tgt.zst: error: compressed trace is (truncated|corrupt)" -- "$tracegen" inspect "$work/cut.tgt.zst"
# 2 GiB in about 70 KB, its frame declaring its size: refused before it is decompressed
head -c 2147483648 /dev/zero | zstd -q -1 --stream-size=2147483648 -c >"$work/bomb.zst"
expect_status "decompression bomb" 2 "bomb.zst: error: compressed trace declares 2147483648 bytes of text, more than the limit of 1073741824 bytes" \
  -- "$tracegen" inspect "$work/bomb.zst"

# Pictures (inspect --matrix, --time-plot; viz/): a PNG with its signature, an SVG that parses as
# XML and says what it is; any other extension refused with exit 2 before the trace is read.
samples=$src/samples/traces
expect_status "matrix svg" 0 "" -- "$tracegen" inspect "$samples/stencil-2d-4.tgt" --matrix "$work/m.svg"
check "matrix svg parses" python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"), r.tag' "$work/m.svg"
expect_status "matrix png" 0 "" -- "$tracegen" inspect "$samples/ring-4.tgt" --matrix "$work/m.png"
check "matrix png signature" test "$(head -c 8 "$work/m.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
expect_status "time plot png and matrix svg" 0 "" -- "$tracegen" inspect "$samples/stencil-2d-4.tgt" --time-plot "$work/t.PNG" --matrix "$work/m2.svg" --format json
check "json stays json with pictures" python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$work/out"
check "time plot png signature" test "$(head -c 8 "$work/t.PNG" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
expect_status "time plot svg" 0 "" -- "$tracegen" inspect "$data/scalatrace2-npb-td-lu-A-4.trace" --time-plot "$work/t.svg"
check "time plot svg parses" python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' "$work/t.svg"
expect_status "matrix bad extension" 2 "^error: --matrix m.pdf: the picture's name must end in .svg or .png" \
  -- "$tracegen" inspect "$samples/ring-4.tgt" --matrix m.pdf
check "bad extension writes nothing" test ! -e m.pdf
expect_status "time plot no extension" 2 "^error: --time-plot out: the picture's name must end in .svg or .png" \
  -- "$tracegen" inspect "$samples/ring-4.tgt" --time-plot out
expect_status "matrix unwritable" 2 "^error: cannot write $work/no/m.png" -- "$tracegen" inspect "$samples/ring-4.tgt" --matrix "$work/no/m.png"
finding C1-inspect-2p31m1-ranks-bad-alloc.tgt 4 "$tracegen" inspect "$ff/C1-inspect-2p31m1-ranks-bad-alloc.tgt" --matrix "$work/c1.svg"

# extrapolate --plot DIR (viz/ScalingPlot.h): a strong-scaling ring at 4, 8, 16 ranks (the fuzz
# corpus's three traces in one file) to 1024: one picture per quantity that changes with scale
# (the trip count, the count and the tags' lengths), named by event, operation, quantity and
# class, with index.txt and index.html; --plot-format png; --plot-limit; a bad format, a DIR that
# is a file or cannot be made, and --plot without a target scale refused with exit 2 before any work.
awk -v d="$work" 'BEGIN { n = 0 } /^%%%$/ { n++; next } { print > (d "/ring-strong-" n ".tgt") }' \
  "$src/fuzz/corpus/fuzz_extrapolate/ring-strong-4-8-16.tgt"
rings=("$work/ring-strong-0.tgt" "$work/ring-strong-1.tgt" "$work/ring-strong-2.tgt")
expect_status "extrapolate --plot" 0 "" -- "$tracegen" extrapolate "${rings[@]}" --ranks 1024 -o "$work/r.tgt" --plot "$work/plots"
check "plot says what it wrote" grep -q "^4 scaling-model pictures written to $work/plots; index: $work/plots/index.html" "$work/out"
for f in e1-MPI_Sendrecv-loop-0-iter-all e1-MPI_Sendrecv-count-all e1-MPI_Sendrecv-tag-number-of-values-all \
  e1-MPI_Sendrecv-recvtag-number-of-values-all; do
  check "plot $f.svg parses" python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"), r.tag' "$work/plots/$f.svg"
done
check "plot index lists the count's model" grep -qP '^e1-MPI_Sendrecv-count-all.svg\t1 MPI_Sendrecv\tcount\tall\t256 at P=4 \(4\); 128 at P=8 \(8\); 64 at P=16 \(16\)\t1024/P\t1 at P=1024 \(1024\)$' "$work/plots/index.txt"
check "plot index lists the peers it does not draw" grep -q "^#   event 1 MPI_Sendrecv at ring.c:20 source (stored rel)" "$work/plots/index.txt"
check "plot index.html links the pictures" grep -q '<a href="e1-MPI_Sendrecv-count-all.svg">' "$work/plots/index.html"
expect_status "extrapolate --plot png, limit 1" 0 "" -- "$tracegen" extrapolate "${rings[@]}" --ranks 64 -o "$work/r.tgt" \
  --plot "$work/plots-png" --plot-format png --plot-limit 1
check "plot png signature" test "$(head -c 8 "$work/plots-png/e1-MPI_Sendrecv-loop-0-iter-all.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a
check "plot limit: one picture" test "$(ls "$work/plots-png" | grep -c '\.png$')" -eq 1
check "plot limit said" grep -q "^1 scaling-model picture written to .*(the first 1 of 4 quantities; the other 3 are listed in index.txt: --plot-limit)" "$work/out"
expect_status "plot bad format" 2 "^error: --plot-format pdf: expected svg or png" \
  -- "$tracegen" extrapolate "${rings[@]}" --ranks 64 -o "$work/r.tgt" --plot "$work/plots" --plot-format pdf
touch "$work/afile"
expect_status "plot dir is a file" 2 "^error: --plot $work/afile: exists and is not a directory" \
  -- "$tracegen" extrapolate "${rings[@]}" --ranks 64 -o "$work/r.tgt" --plot "$work/afile"
expect_status "plot dir cannot be made" 2 "^error: --plot $work/afile/sub: cannot create the directory" \
  -- "$tracegen" extrapolate "${rings[@]}" --ranks 64 -o "$work/r.tgt" --plot "$work/afile/sub"
expect_status "plot without a target" 2 "^error: --plot draws the models of an extrapolation to one scale: give it --ranks P" \
  -- "$tracegen" extrapolate "${rings[@]}" -o "$work/r.c" --plot "$work/plots2"
check "plot refused writes nothing" test ! -e "$work/plots2"
expect_status "plot format without plot" 2 "^error: --plot-format and --plot-limit go with --plot DIR" \
  -- "$tracegen" extrapolate "${rings[@]}" --ranks 64 -o "$work/r.tgt" --plot-format png

echo "cli: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
