#!/usr/bin/env bash
# Every error about an input names its file:line (issue 29, point 4). First the traces of
# tests/data/locations/ (README.md there: command, exit status, line, message), whose errors are
# found after reading; then every trace under tests/data and fuzz/corpus through `inspect`,
# `lower` and generation (C): each either succeeds, or stops with status 3 (a program that cannot
# complete) or 2 (refused) and an error line `NAME:LINE: error:` (LINE >= 1), within
# 10 s each (the inputs are small: any of them taking longer is a regression of point 3).
#
#   locations.sh TRACEGEN SOURCE_DIR
set -uo pipefail
tracegen=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0 checked=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

run() {  # run COMMAND FILE: the command's exit status; its stderr and stdout in $work/out
  local command=$1 f=$2
  case $command in
    generate) timeout 10 "$tracegen" "$f" -o "$work/bench.c" >"$work/out" 2>&1 ;;
    inspect) timeout 10 "$tracegen" inspect "$f" >"$work/out" 2>&1 ;;
    lower) timeout 10 "$tracegen" lower "$f" -o "$work/lowered.tgt" >"$work/out" 2>&1 ;;
  esac
}

dir="$src/tests/data/locations"
while IFS='|' read -r _ file command status line message _; do
  file=$(xargs <<<"$file") command=$(xargs <<<"$command") status=$(xargs <<<"$status") line=$(xargs <<<"$line")
  message=$(sed -E 's/^ +| +$//g' <<<"$message")
  [[ -f "$dir/$file" ]] || continue
  checked=$((checked + 1))
  run "$command" "$dir/$file"
  rc=$?
  if [[ $rc -ne $status ]]; then fail "$file ($command): exit $rc, expected $status"; cat "$work/out"; continue; fi
  if [[ $status -ne 0 ]]; then
    first=$(grep -m1 " error: " "$work/out")
    [[ $first == "$dir/$file:$line: error: "* ]] || { fail "$file ($command): expected '$file:$line: error:', got: $first"; continue; }
  elif [[ $line != - ]]; then
    first=$(grep -m1 " warning: " "$work/out")
    [[ $first == "$dir/$file:$line: warning: "* ]] || { fail "$file ($command): expected '$file:$line: warning:', got: $first"; continue; }
  fi
  grep -qF -- "$message" "$work/out" || { fail "$file ($command): no '$message' in:"; cat "$work/out"; }
done < <(grep -E '^\| [^ -]' "$dir/README.md" | tail -n +2)

# The broad sweep.
refused=0
while IFS= read -r f; do
  for command in inspect lower generate; do
    run "$command" "$f"
    rc=$?
    case $rc in
      0) ;;
      2 | 3)
        refused=$((refused + 1))
        first=$(grep -m1 " error: " "$work/out")
        if ! [[ $first =~ ^"$f":[1-9][0-9]*:\ (error|warning):\  ]]; then
          fail "${f#"$src"/} ($command): a refusal without file:line: $first"
        fi
        ;;
      124) fail "${f#"$src"/} ($command): more than 10 s" ;;
      *) fail "${f#"$src"/} ($command): exit $rc"; head -5 "$work/out" ;;
    esac
  done
done < <(find "$src/tests/data" "$src/fuzz/corpus" -type f \( -name '*.tgt' -o -name '*.trace' \) | sort)
echo "$checked located errors checked; $refused refusals in the sweep; $failures failed"
[[ $failures -eq 0 ]]
