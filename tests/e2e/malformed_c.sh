#!/usr/bin/env bash
# Every trace under tests/data that tracegen can read, also the malformed ones (fuzz findings,
# deadlocking communication checks), either gives a C benchmark that compiles with -Werror or is
# refused with a diagnostic: status 2 (`error:`, bad input) or 3 (the program cannot complete).
# Never a crash, a hang, another status, or C that does not compile. Traces the reader already
# refuses are counted and skipped: the unit tests and cli.sh check those diagnostics.
#
#   malformed_c.sh TRACEGEN SOURCE_DIR        (77: no mpicc)
set -uo pipefail
tracegen=$1 src=$2
command -v mpicc >/dev/null || { echo "SKIP: no mpicc"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0 unreadable=0 generated=0 refused=0
while IFS= read -r f; do
  name=${f#"$src"/}
  # Readable: the reader accepts it (convert reads and writes, nothing more).
  if ! timeout 60 "$tracegen" convert "$f" -o "$work/read.tgt" >/dev/null 2>"$work/read.err"; then
    unreadable=$((unreadable + 1))
    continue
  fi
  timeout 120 "$tracegen" "$f" -o "$work/bench.c" >/dev/null 2>"$work/gen.err"
  rc=$?
  case $rc in
    0)
      if mpicc -std=c11 -O0 -Wall -Wextra -Werror -c -o "$work/bench.o" "$work/bench.c" 2>"$work/cc.err"; then
        generated=$((generated + 1))
      else
        echo "FAIL: $name: the generated C does not compile with -Werror"
        head -20 "$work/cc.err"
        fail=1
      fi
      ;;
    2 | 3)
      if grep -q "error:" "$work/gen.err"; then
        refused=$((refused + 1))
      else
        echo "FAIL: $name: status $rc without an error diagnostic"
        cat "$work/gen.err"
        fail=1
      fi
      ;;
    *)
      echo "FAIL: $name: generation exits with status $rc"
      head -20 "$work/gen.err"
      fail=1
      ;;
  esac
  rm -f "$work/bench.c" "$work/bench.o"
done < <(find "$src/tests/data" -type f \( -name '*.tgt' -o -name '*.trace' \) | sort)
echo "readable traces under tests/data: $generated gave C that compiles with -Werror, $refused refused with a diagnostic; $unreadable refused by the reader"
exit $fail
