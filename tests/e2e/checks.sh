#!/usr/bin/env bash
# End-to-end test of the communication checks through the command line: every trace in
# tests/data/checks/ (both formats). A trace of a program that cannot complete must stop
# generation with exit status 3 and `potential deadlock:`; any other must generate a C
# benchmark that compiles and runs to its `elapsed:` line under mpiexec within a timeout (no
# generated benchmark ever hangs). The expected outcome is the file's row in the README there.
#
# Usage: checks.sh TRACEGEN SOURCE_DIR     (exit 77 when mpicc or mpiexec is missing)
set -uo pipefail
tracegen=$1 src=$2
for tool in mpicc mpiexec timeout; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool not found"; exit 77; }
done
mpiexec_flags=()
if mpiexec --version 2>&1 | grep -Eq "Open MPI|OpenRTE"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  mpiexec_flags=(--oversubscribe)
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 passed=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

for t in "$src"/tests/data/checks/*.tgt "$src"/tests/data/checks/*.trace; do
  name=$(basename "$t")
  stem=${name%.*}
  row=$(grep -E "^\| ${stem}( |\\|)" "$src/tests/data/checks/README.md" | head -1)
  [[ -n $row ]] || { fail "$name: no row in tests/data/checks/README.md"; continue; }
  expect=0
  [[ $row == *"deadlock (exit 3)"* ]] && expect=3
  "$tracegen" "$t" -o "$work/$stem.c" >"$work/out" 2>&1
  status=$?
  if [[ $status -ne $expect ]]; then
    fail "$name: exit $status, expected $expect"; cat "$work/out"; continue
  fi
  if [[ $expect -eq 3 ]]; then
    grep -q "potential deadlock:" "$work/out" || { fail "$name: exit 3 without 'potential deadlock:'"; cat "$work/out"; continue; }
    passed=$((passed + 1)); continue
  fi
  ranks=$(sed -n 's/^ranks \([0-9]*\)$/\1/p' "$t" | head -1)
  [[ -n $ranks ]] || ranks=$(head -1 "$t" | awk '{print $5}')  # ScalaTrace: RANKS: 1 -1 0 P 1
  if ! mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/$stem" "$work/$stem.c" 2>"$work/cc"; then
    fail "$name: the benchmark does not compile"; cat "$work/cc"; continue
  fi
  if ! timeout 60 mpiexec "${mpiexec_flags[@]}" -n "$ranks" "$work/$stem" --compute-scale 0 >"$work/run" 2>&1; then
    fail "$name: the benchmark failed or hung (60 s)"; tail -5 "$work/run"; continue
  fi
  grep -q "^elapsed:" "$work/run" || { fail "$name: no elapsed: line"; continue; }
  passed=$((passed + 1))
done
echo "$passed passed, $failures failed"
[[ $failures -eq 0 ]]
