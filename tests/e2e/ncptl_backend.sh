#!/usr/bin/env bash
# End-to-end test of the coNCePTuaL backend. For every trace in samples/traces/ and the ScalaTrace
# traces bundled in tests/data/: generate a benchmark (`tracegen generate TRACE -o - --emit ncptl`, with
# --instruction-rate 1e9 for the time-independent "ti"/"tic" traces), check it with
# `ncptl-check --generated` (the language reference's grammar, static rules and generator
# checklist, plus the per-task simulation: every asynchronous operation awaited, every
# UNSUSPECTING send matched by a RECEIVE of its size, no blocking cycles; no warning either), and compare the output for the
# small samples with the golden files tests/golden/<sample>.ncptl. Finally it checks that the
# checker is not a rubber stamp: a generated program with one AWAIT removed, and one with a
# receive dropped, must be rejected, and one with a receive resized must be warned about.
#
# Usage: ncptl_backend.sh TRACEGEN NCPTL_CHECK SOURCE_DIR
# Regenerate the golden files after an intended change of the output:
#   UPDATE_GOLDEN=1 bash tests/e2e/ncptl_backend.sh build/tools/tracegen/tracegen \
#       build/tools/ncptl-check/ncptl-check .
# (then review `git diff tests/golden`).
set -uo pipefail
tracegen=$(realpath "$1") check=$(realpath "$2") src=$3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 passed=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { passed=$((passed + 1)); }

# generate TRACE OUT: run from the source tree with a relative trace path, so that the
# command line recorded in the program's header does not depend on where the test runs.
generate() {
  local trace=$1 out=$2 extra=()
  case $(basename "$trace") in *-ti-* | *-tic-*) extra=(--instruction-rate 1e9) ;; esac
  (cd "$src" && "$tracegen" generate "$trace" -o - --emit ncptl "${extra[@]}") >"$out" 2>"$out.err"
}

# check_program FILE NAME: accepted in generated-code mode, with the per-task simulation done.
check_program() {
  local file=$1 name=$2 log
  log=$("$check" --generated --verbose "$file" 2>&1)
  if [[ $? -ne 0 ]]; then
    fail "$name: ncptl-check rejects the generated program:"; echo "$log" | head -20; return 1
  fi
  # Warnings too: a generated program should give the checker nothing to say (a RECEIVE
  # larger than its message, for one, miscounts the bytes received).
  if grep -q ": warning:" <<<"$log"; then
    fail "$name: ncptl-check warns about the generated program:"; echo "$log" | head -20; return 1
  fi
  if ! grep -q "per-task simulation done" <<<"$log"; then
    fail "$name: the per-task simulation did not run:"; echo "$log"; return 1
  fi
  pass
}

traces=()
for t in "$src"/samples/traces/*.tgt; do traces+=("samples/traces/$(basename "$t")"); done
for t in "$src"/tests/data/scalatrace*/*.trace; do [[ -e $t ]] && traces+=("$(realpath "$t")"); done
[[ ${#traces[@]} -gt 0 ]] || { echo "FAIL: no traces found"; exit 1; }

for trace in "${traces[@]}"; do
  name=$(basename "${trace%.*}")
  out=$work/$name.ncptl
  if ! generate "$trace" "$out"; then
    fail "$name: tracegen failed:"; cat "$out.err"; continue
  fi
  check_program "$out" "$name" || continue
  # Golden files pin the output for the small samples.
  if [[ $trace == samples/traces/* ]]; then
    golden=$src/tests/golden/$name.ncptl
    if [[ ${UPDATE_GOLDEN:-0} == 1 ]]; then
      cp "$out" "$golden" && echo "updated $golden"
    elif [[ ! -f $golden ]]; then
      fail "$name: no golden file $golden (run with UPDATE_GOLDEN=1)"
    elif ! diff -u "$golden" "$out" >"$work/$name.diff"; then
      fail "$name: output differs from $golden:"; head -40 "$work/$name.diff"
    else
      pass
    fi
  fi
done

# The checker must reject broken programs: remove the AWAIT of the ring sample, and the
# receive of the master-worker sample's first task.
ring=$work/ring-4.ncptl
if [[ -f $ring ]] && grep -q "AWAIT COMPLETION" "$ring"; then
  # Drop the AWAIT line; the statement before it now ends the loop body, without THEN.
  python3 - "$ring" "$work/ring-noawait.ncptl" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
i = next(k for k, l in enumerate(lines) if "AWAIT COMPLETION" in l)
del lines[i]
j = i - 1
while lines[j].lstrip().startswith("#"):
    j -= 1
lines[j] = lines[j].removesuffix(" THEN")
open(sys.argv[2], "w").write("\n".join(lines))
PY
  if "$check" --generated "$work/ring-noawait.ncptl" >"$work/noawait.log" 2>&1; then
    fail "ncptl-check accepts the ring without AWAIT COMPLETION"
  elif ! grep -q "never await\|do not AWAIT\|does not AWAIT\|not awaited" "$work/noawait.log"; then
    fail "ncptl-check rejects the ring without AWAIT for another reason:"; head -10 "$work/noawait.log"
  else
    pass
  fi
fi
mw=$work/master-worker-3.ncptl
if [[ -f $mw ]]; then
  sed 's/^TASKS t SUCH THAT t > 0 RECEIVE A 8000\*msg_scale\/100 BYTE MESSAGE USING TAG 1 FROM TASK 0\.$/TASKS t SUCH THAT t > 0 COMPUTE FOR 1 MICROSECONDS./' \
    "$mw" >"$work/mw-norecv.ncptl"
  if cmp -s "$mw" "$work/mw-norecv.ncptl"; then
    fail "the master-worker sample no longer has the receive this test removes"
  elif "$check" --generated "$work/mw-norecv.ncptl" >"$work/norecv.log" 2>&1; then
    fail "ncptl-check accepts master-worker with a receive removed"
  elif ! grep -q "UNSUSPECTING messages from task 0 to task" "$work/norecv.log"; then
    fail "ncptl-check rejects master-worker without the receive for another reason:"; head -10 "$work/norecv.log"
  else
    pass
  fi
fi

# ... and receives of the wrong size: the workers' stop message (0 bytes) received as a task.
if [[ -f $mw ]]; then
  sed 's/RECEIVE A 0 BYTE MESSAGE USING TAG 3 FROM TASK 0/RECEIVE A 8000*msg_scale\/100 BYTE MESSAGE USING TAG 3 FROM TASK 0/' \
    "$mw" >"$work/mw-size.ncptl"
  "$check" --generated "$work/mw-size.ncptl" >"$work/size.log" 2>&1
  if cmp -s "$mw" "$work/mw-size.ncptl"; then
    fail "the master-worker sample no longer has the 0-byte stop receive this test resizes"
  elif ! grep -q "warning: RECEIVEs of messages from task 0 to task 1 with tag 3 take 8000 bytes" "$work/size.log"; then
    fail "ncptl-check does not notice a RECEIVE larger than its message:"; head -10 "$work/size.log"
  else
    pass
  fi
fi

echo "ncptl_backend: $passed passed, $failures failed"
[[ $failures -eq 0 ]]
