#!/usr/bin/env bash
# Checks that a refactoring changed no output: runs two tracegen binaries on every bundled trace
# (samples/ and tests/data/) with several option sets, and on extrapolations of the end-to-end
# tests' recordings, and compares the generated C and coNCePTuaL benchmarks, the lowered IR with
# its counters, standard error and the exit status byte for byte.
#
#   scripts/same-output.sh OLD_TRACEGEN NEW_TRACEGEN [RECORDINGS_DIR]
#
# OLD_TRACEGEN is a binary built from the commit before the change (e.g. a `git worktree` of it),
# NEW_TRACEGEN the one with it. RECORDINGS_DIR (default build/e2e-recordings, filled by the
# end-to-end tests) holds recordings named APP-ARGS.tgt; each application with three or more
# recordings is extrapolated scale-free and to 32 ranks. Prints each difference and a count;
# exits 1 if anything differs.
set -uo pipefail
old=$(realpath "$1") new=$(realpath "$2")
cd "$(dirname "$0")/.."
recordings=$(realpath "${3:-build/e2e-recordings}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export TRACEGEN_QUIET=1
runs=0 differences=0

# One run of both binaries with the same arguments; OUT is the file the run writes (if any).
both() {
  local label=$1 out=$2
  shift 2
  local side
  for side in old new; do
    local bin=$old
    [ $side = new ] && bin=$new
    [ -n "$out" ] && rm -f "$work/$out"
    (cd "$work" && timeout 120 "$bin" "$@" >"$work/$side.stdout" 2>"$work/$side.stderr"; echo $? >"$work/$side.rc")
    if [ -n "$out" ] && [ -f "$work/$out" ]; then mv "$work/$out" "$work/$side.out"; else : >"$work/$side.out"; fi
  done
  runs=$((runs + 1))
  local part
  # Durations (the pass manager's per-pass times, "0.003 s" in summaries) vary from run to run,
    # and with their digits the padding before them.
  for part in stdout stderr; do
    sed -E -i 's/ *[0-9]+\.[0-9]+ (ms|s)\b/ T \1/g' "$work/old.$part" "$work/new.$part"
  done
  for part in out stdout stderr rc; do
    if ! cmp -s "$work/old.$part" "$work/new.$part"; then
      differences=$((differences + 1))
      echo "DIFFERS ($part): $label"
      diff "$work/old.$part" "$work/new.$part" | head -10
      return
    fi
  done
}

mapfile -t traces < <(find "$PWD/samples" "$PWD/tests/data" -type f \( -name '*.tgt' -o -name '*.trace' -o -name '*.tgt.zst' \) | sort)
option_sets=("" "--runtime=separate" "--skip-unknown" "--timing=max" "--wildcard-senders=earliest --timing=median")
for t in "${traces[@]}"; do
  name=${t#"$PWD"/}
  for opts in "${option_sets[@]}"; do
    # shellcheck disable=SC2086 # the option set is words
    both "$name -o x.c $opts" x.c "$t" -o x.c $opts
    # shellcheck disable=SC2086
    both "$name -o x.ncptl $opts" x.ncptl "$t" -o x.ncptl $opts
  done
  both "$name lower --print-after all --stats" "" lower "$t" --print-after all --stats -o -
done

if [ -d "$recordings" ]; then
  mapfile -t apps < <(find "$recordings" -name '*-*.tgt' -printf '%f\n' | sed 's/-.*//' | sort | uniq -c | awk '$1 >= 3 {print $2}')
  for app in "${apps[@]}"; do
    mapfile -t inputs < <(find "$recordings" -name "$app-*.tgt" | sort | head -3)
    for ext in c ncptl; do
      both "extrapolate $app scale-free .$ext" "x.$ext" extrapolate "${inputs[@]}" -o "x.$ext"
      both "extrapolate $app --ranks 32 .$ext" "x.$ext" extrapolate "${inputs[@]}" --ranks 32 -o "x.$ext"
    done
  done
fi
echo "same-output: $runs runs, $differences differ"
[ $differences -eq 0 ]
