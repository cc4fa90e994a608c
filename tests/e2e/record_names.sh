#!/usr/bin/env bash
# Named call sites (docs/recording.md, "Call sites"; docs/trace-format.md, "Frame names"): the
# recorder names the frames of its sites from the modules' symbol tables and debug information.
#
#   record_names.sh RECORDER TRACEGEN SOURCE_DIR
#
# Builds tests/e2e/named_sites/named.c with -g and named_f.f90 without, records each on 2 ranks,
# and requires: the C trace names the static functions with the file:line of the calls, the
# Fortran trace its module procedure and external subroutine without file:line; the generated
# C names them in its comments; `tracegen inspect` lists them; TRACEGEN_NAMES=0 leaves them out.
set -uo pipefail
recorder=$1 tracegen=$2 src=$3/tests/e2e/named_sites
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1 TRACEGEN_COMPRESS=0
fail=0
check() {  # check DESCRIPTION COMMAND...
  local what=$1
  shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; fail=1; fi
}
record() {  # record OUTPUT PROGRAM [ENV...]
  local out=$1 prog=$2
  shift 2
  if ! timeout 120 mpiexec --oversubscribe -n 2 env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$out" "$@" "$prog" \
    >"$work/out" 2>&1; then
    echo "FAIL: recording $prog"
    cat "$work/out"
    exit 1
  fi
}
mpicc -O0 -g -o "$work/named_c" "$src/named.c" || { echo "FAIL: mpicc"; exit 1; }
mpifort -O0 -J "$work" -o "$work/named_f" "$src/named_f.f90" || { echo "FAIL: mpifort"; exit 1; }

record "$work/c.tgt" "$work/named_c"
sendrecv=$(grep -n 'SENDRECV' "$src/named.c" | cut -d: -f1)
allreduce=$(grep -n 'ALLREDUCE' "$src/named.c" | cut -d: -f1)
iterate=$(grep -n '    exchange(rank, size);' "$src/named.c" | cut -d: -f1)
# MPI_Sendrecv spans two lines: the call's line is either.
check "C: exchange named with its file:line" grep -Eq "^frame [0-9a-f]+ exchange named\.c:($((sendrecv - 1))|$sendrecv)$" "$work/c.tgt"
check "C: iterate's MPI_Allreduce at its line" grep -Eq "^frame [0-9a-f]+ iterate named\.c:$allreduce$" "$work/c.tgt"
check "C: iterate's call of exchange at its line" grep -Eq "^frame [0-9a-f]+ iterate named\.c:$iterate$" "$work/c.tgt"
check "C: main named" grep -Eq "^frame [0-9a-f]+ main named\.c:[0-9]+$" "$work/c.tgt"
check "C: program line" grep -qx "program named_c" "$work/c.tgt"
if "$tracegen" "$work/c.tgt" -o "$work/bench.c" 2>"$work/gen.err"; then
  check "C benchmark: MPI_Sendrecv's comment names its functions" \
    grep -Eq "MPI_Sendrecv in exchange \(named\.c:[0-9]+\) <- iterate <- main \(named_c\+0x[0-9a-f]+\)" "$work/bench.c"
  check "C benchmark: MPI_Allreduce's comment" \
    grep -Eq "MPI_Allreduce in iterate \(named\.c:$allreduce\) <- main \(named_c\+0x[0-9a-f]+\)" "$work/bench.c"
else
  echo "FAIL: tracegen on the C trace"; cat "$work/gen.err"; fail=1
fi
check "inspect lists the named sites" grep -Eq "^  [0-9a-f_]+: in exchange \(named\.c:[0-9]+\) <- iterate <- main" \
  <("$tracegen" inspect "$work/c.tgt")
# The names survive conversion (here to the text format again, through the reader and writer).
if "$tracegen" convert "$work/c.tgt" --plain -o "$work/c2.tgt" >"$work/conv.out" 2>&1; then
  check "convert keeps the frame lines" cmp -s <(grep -E '^(frame|program) ' "$work/c.tgt") <(grep -E '^(frame|program) ' "$work/c2.tgt")
else
  echo "FAIL: tracegen convert"; cat "$work/conv.out"; fail=1
fi

record "$work/f.tgt" "$work/named_f"
check "Fortran: the external subroutine, without file:line" grep -Eq "^frame [0-9a-f]+ exchange_1_$" "$work/f.tgt"
check "Fortran: the module procedure" grep -Eq "^frame [0-9a-f]+ __grid_MOD_halo_swap$" "$work/f.tgt"
if "$tracegen" "$work/f.tgt" -o "$work/bench_f.c" 2>"$work/gen.err"; then
  check "Fortran benchmark: readable names in the comments" \
    grep -Eq "MPI_Sendrecv_replace in grid::halo_swap <- exchange_1 <- MAIN__ <- main \(named_f\+0x[0-9a-f]+\)" "$work/bench_f.c"
else
  echo "FAIL: tracegen on the Fortran trace"; cat "$work/gen.err"; fail=1
fi

# TRACEGEN_NAMES=0: the trace of before, offsets only; the sites themselves are the same.
record "$work/c0.tgt" "$work/named_c" TRACEGEN_NAMES=0
check "TRACEGEN_NAMES=0 names nothing" bash -c "! grep -Eq '^(frame|program) ' '$work/c0.tgt'"
check "the sites do not change with names" cmp -s <(grep '^  site ' "$work/c.tgt") <(grep '^  site ' "$work/c0.tgt")
[ $fail -eq 0 ] && echo PASS
exit $fail
