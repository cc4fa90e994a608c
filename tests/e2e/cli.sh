#!/usr/bin/env bash
# End-to-end checks of the tracegen command line: help, inspect (text and JSON), convert,
# lower with --stats/--print-after, and the diagnostics and exit status of bad input.
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
expect_status "lower --passes" 0 "" -- "$tracegen" lower "$lu" --passes=resolve-comms -o -
expect_status "unknown pass" 2 "unknown pass 'bogus'" -- "$tracegen" lower "$lu" --passes=bogus -o -
expect_status "top-level --passes" 2 "unknown pass" -- "$tracegen" --passes=bogus "$lu" -o "$work/x.c"
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
expect_status "fragment warns" 0 "^tracegen: warning: .*fragment-4.trace:1: the trace starts with event 5 \(MPI_Barrier\), not MPI_Init" \
  -- "$tracegen" "$frag" -o "$work/frag.c"
check "fragment gets MPI_Init and MPI_Finalize" grep -q "MPI_Finalize();" "$work/frag.c"
expect_status "fragment warns at its end" 0 "not MPI_Finalize: it is read as a fragment" -- "$tracegen" lower "$frag" -o -
head -c 20000 "$lu" >"$work/truncated.trace"
expect_status "truncated" 2 "truncated.trace:[0-9]+: error:" -- "$tracegen" inspect "$work/truncated.trace"
expect_status "missing file" 2 "error: cannot open" -- "$tracegen" inspect "$work/none.trace"
for f in "$src"/tests/data/malformed/*; do
  [ -e "$f" ] || continue
  expect_status "malformed $(basename "$f")" 2 "$(basename "$f"):[0-9]+: error:" -- "$tracegen" inspect "$f"
done

echo "cli: $passed passed, $failures failed"
[ "$failures" -eq 0 ]
