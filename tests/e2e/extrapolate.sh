#!/usr/bin/env bash
# End-to-end test of `tracegen extrapolate` (docs/extrapolation.md) with real MPI runs.
#
#   extrapolate.sh TRACEGEN RECORDER APPS_DIR SOURCE_DIR [APP...]
#
# Each sample application is recorded at three small rank counts, extrapolated to larger ones
# (up to 64 ranks), and the extrapolated trace is compared with a real recording at each target
# rank count by `tracegen compare`: identical calls and bytes on every rank, or the test fails.
# Every extrapolated trace is turned into a C benchmark (compiled with -Wall -Wextra -Werror, and
# against MPICH's header when TRACEGEN_MPICH_INCLUDE is set) and a coNCePTuaL one; the stencil2d
# benchmark at 24 ranks is run under the recorder and compared with the trace in turn. With
# stencil2d, recordings at 2x2 and 2x4 (halo3d: 2x2x2 and 2x2x3) are extrapolated to grids with
# ranks no input shows, and checked the same way. And a structure no model
# explains (two different applications given as one) is refused with status 2 and a
# `file:line: error:`.
#
# Scale-free benchmarks: per application, `tracegen extrapolate` of the three recordings without
# --ranks writes one C benchmark, compiled once (-Werror, and against MPICH's header), run at
# every target rank count with the PMPI counting library (tests/support/mpi_count.c), and its
# calls and bytes on every rank compared with the real recording there. A rank count its
# formulas do not fit stops it with status 2 before any communication, naming what fits.
#
#   stencil2d       2-D halo, not periodic     inputs 9 (3x3), 12 (3x4), 16 (4x4)   targets 24, 64
#   stencil_strong  2-D, fixed global grid     inputs 9, 12, 16                     targets 20, 48
#   ring            1-D periodic, P-1 steps    inputs 4, 6, 8                       targets 16, 32
#   halo3d          3-D 7-point halo           inputs 18 (2x3x3), 27, 36 (3x3x4)    targets 48, 64
#   fft             MPI_Alltoall of 2304/P     inputs 4, 8, 16                      targets 48, 64
#   wavefront       2-D pipelined sweeps, wildcard receives (NPB LU)
#                                              inputs 9, 12, 16                     targets 36, 64
#   rowcol          CG-like: row and column communicators (MPI_Comm_split by y and by x), a grid
#                   numbered along its longest side (4x2, 4x4, 8x4), messages of n/px
#                                              inputs 8, 16, 32                     targets 40, 64
#
#   intsort         IS-like: MPI_Alltoallv counts that follow the keys, totals balanced (NPB IS)
#                                              inputs 8, 16, 32                     targets 48, 64
#                   no pair's count is predictable: compared with `--bytes-tolerance 1` (every
#                   rank's bytes within 1%, calls identical), and the fixed-scale benchmark at 48
#                   ranks is run under the recorder and compared the same way.
#
#   pairwise        an all-to-all by point-to-point rounds: rank XOR i (the complete-graph
#                   relation) and shifts (r + i, r - i: peers that count through the ranks)
#                                              inputs 4, 8, 16                      targets 32, 64
#
# cg (its transpose partner is no neighbour on the grid) is refused with status 2.
set -uo pipefail
tracegen=$1 recorder=$2 apps=$3 src=$4
shift 4
selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=(ring stencil2d stencil_strong halo3d fft wavefront rowcol intsort pairwise)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
failures=0 passed=0
countlib=$work/libtracegen-count.so
if ! mpicc -shared -fPIC -O2 -o "$countlib" "$src/tests/support/mpi_count.c" -ldl; then
  echo "FAIL: cannot build the counting library"
  exit 1
fi

# The samples' arguments and input scales, and record (tests/e2e/extrapolation-samples.sh).
source "$(dirname "$0")/extrapolation-samples.sh"
record_failed() { echo "FAIL: $1"; }
# The CPU clock, as scalefree_ncptl.sh records with: the tests compare calls and bytes, which
# the clock does not change, and the same clock lets the two share RECORDINGS_CACHE.
RECORD_CLOCK=cpu
# EXTRAPOLATE_TARGETS=first (ctest): only the first target of each sample, as each 64-rank run
# on two cores costs more than a sample's whole check at the first.
targets_of() {
  if [ "${EXTRAPOLATE_TARGETS:-all}" = first ]; then
    EXTRAPOLATE_TARGETS=all targets_of "$1" | cut -d' ' -f1
    return
  fi
  case $1 in
    stencil2d) echo "24 64" ;;
    stencil_strong) echo "20 48" ;;
    ring) echo "16 32" ;;
    halo3d) echo "48 64" ;;
    fft) echo "48 64" ;;
    wavefront) echo "36 64" ;;
    rowcol) echo "40 64" ;;
    intsort) echo "48 64" ;;
    pairwise) echo "32 64" ;;
  esac
}

# tally NAME VERDICT: counts a pass (VERDICT 0) or a failure, which shows the command's output.
tally() {
  if [ "$2" -eq 0 ]; then
    passed=$((passed + 1))
    echo "ok: $1"
  else
    failures=$((failures + 1))
    echo "FAIL: $1"
    cat "$work/out"
  fi
}

check() {  # check NAME COMMAND...: counts a pass or a failure
  local name=$1
  shift
  "$@" >"$work/out" 2>&1
  tally "$name" $?
}

# exits_with STATUS NAME PATTERN COMMAND...: the command exits with STATUS and prints a line
# matching PATTERN (a basic regular expression); refused: status 2.
exits_with() {
  local want=$1 name=$2 message=$3 rc
  shift 3
  "$@" >"$work/out" 2>&1
  rc=$?
  [ $rc -eq "$want" ] && grep -q -- "$message" "$work/out"
  tally "$name (status $rc)" $?
}
refused() { exits_with 2 "$@"; }

# IS-like counts that follow the data (docs/extrapolation.md, "Counts that follow the data"):
# every rank's bytes within 1% of the real recording, at every target and through a benchmark.
data_dependent() {  # data_dependent APP INPUT...
  local app=$1 np
  shift
  for np in $(targets_of "$app"); do
    check "$app: extrapolate to $np ranks" "$tracegen" extrapolate "$@" --ranks "$np" -o "$work/$app-x$np.tgt" --explain
    grep "counts follow the data" "$work/out"
    record "$np" "$work/$app-real$np.tgt" "$apps/$app" "${a[@]}" || { failures=$((failures + 1)); continue; }
    check "$app: extrapolated = recorded at $np ranks (calls; bytes on every rank within 1%)" \
      "$tracegen" compare --bytes-tolerance 1 "$work/$app-x$np.tgt" "$work/$app-real$np.tgt"
    grep "largest difference in bytes" "$work/out"
  done
  # Without the tolerance the single ranks' received bytes differ (the keys decide them): exit 1.
  if [ -s "$work/$app-x$np.tgt" ] && [ -s "$work/$app-real$np.tgt" ]; then  # the last target
    exits_with 1 "$app: without --bytes-tolerance the ranks' received bytes differ (status 1)" "collective bytes received" \
      "$tracegen" compare "$work/$app-x$np.tgt" "$work/$app-real$np.tgt"
  fi
  if [ -s "$work/$app-x48.tgt" ] && [ -s "$work/$app-real48.tgt" ]; then
    check "$app: benchmark at 48 ranks from the extrapolation: recorded calls; bytes within 1% of the application's" bash -c '
      "$1" "$2" -o "$3.c" && mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$3" "$3.c" &&
      timeout 600 mpiexec --oversubscribe -n 48 env LD_PRELOAD="$4" TRACEGEN_OUTPUT="$3.tgt" TRACEGEN_COMPRESS=0 \
        "$3" --compute-scale 0 >"$3.out" 2>&1 &&
      "$1" compare --bytes-tolerance 1 "$5" "$3.tgt"' \
      _ "$tracegen" "$work/$app-x48.tgt" "$work/$app-bench48" "$recorder" "$work/$app-real48.tgt"
  fi
}

for app in "${selected[@]}"; do
  read -r -a a <<<"$(args_of "$app")"
  ins=()
  for np in $(inputs_of "$app"); do
    record "$np" "$work/$app-$np.tgt" "$apps/$app" "${a[@]}" || { failures=$((failures + 1)); continue 2; }
    ins+=("$work/$app-$np.tgt")
  done
  if [ "$app" = intsort ]; then
    data_dependent "$app" "${ins[@]}"
    continue
  fi
  # One scale-free benchmark for every target, compiled once.
  sf=$work/$app-scalefree
  check "$app: scale-free C benchmark" "$tracegen" extrapolate "${ins[@]}" -o "$sf.c" --explain
  cat "$work/out"
  check "$app: scale-free benchmark compiles with -Wall -Wextra -Werror" \
    mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$sf" "$sf.c"
  if [ -n "${TRACEGEN_MPICH_INCLUDE:-}" ] && [ -s "$sf.c" ]; then
    check "$app: scale-free C compiles with MPICH's header" \
      cc -std=c11 -Wall -Wextra -Werror -O2 -c -o "$sf.mpich.o" -I"$TRACEGEN_MPICH_INCLUDE" "$sf.c"
  fi
  for np in $(targets_of "$app"); do
    check "$app: extrapolate to $np ranks" "$tracegen" extrapolate "${ins[@]}" --ranks "$np" -o "$work/$app-x$np.tgt" --explain
    cat "$work/out"
    record "$np" "$work/$app-real$np.tgt" "$apps/$app" "${a[@]}" || { failures=$((failures + 1)); continue; }
    check "$app: extrapolated = recorded at $np ranks (calls and bytes on every rank)" \
      "$tracegen" compare "$work/$app-x$np.tgt" "$work/$app-real$np.tgt"
    if [ -x "$sf" ]; then
      check "$app: scale-free benchmark at $np ranks = recorded (PMPI counts on every rank)" bash -c '
        "$1" inspect --per-rank --format json "$2" >"$3.want.json" &&
        LD_PRELOAD="$4" TRACEGEN_COUNT_OUTPUT="$3.json" timeout 600 mpiexec --oversubscribe -n "$5" "$6" \
          --compute-scale 0 >"$3.out" 2>&1 &&
        python3 "$7/tests/support/compare_counts.py" "$3.want.json" "$3.json"' \
        _ "$tracegen" "$work/$app-real$np.tgt" "$work/$app-sf$np" "$countlib" "$np" "$sf" "$src"
    else
      failures=$((failures + 1))
      echo "FAIL: $app: no scale-free benchmark to run at $np ranks"
    fi
    # Every command takes the extrapolated trace as it is: both backends generate from it. At one
    # scale the coNCePTuaL backend spells a cycle of peers as conditions, at most 256 of them:
    # pairwise's XOR rounds at 64 ranks (32 groups of 63 peers) are refused with that reason.
    if [ "$app:$np" = pairwise:64 ]; then
      check "$app: C benchmark generated at $np ranks" \
        bash -c '"$1" "$2" -o "$3.c" && mpicc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$3.o" "$3.c"' \
        _ "$tracegen" "$work/$app-x$np.tgt" "$work/$app-bench$np"
      exits_with 2 "$app: coNCePTuaL at $np ranks refused: too many conditions" "too many to spell as conditions" \
        "$tracegen" "$work/$app-x$np.tgt" -o "$work/$app-bench$np.ncptl"
    else
      check "$app: C and coNCePTuaL benchmarks generated at $np ranks" \
        bash -c '"$1" "$2" -o "$3.c" && "$1" "$2" -o "$3.ncptl" && mpicc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$3.o" "$3.c"' \
        _ "$tracegen" "$work/$app-x$np.tgt" "$work/$app-bench$np"
    fi
    if [ -n "${TRACEGEN_MPICH_INCLUDE:-}" ] && [ -s "$work/$app-bench$np.c" ]; then
      check "$app: generated C at $np ranks compiles with MPICH's header" \
        cc -std=c11 -Wall -Wextra -Werror -O2 -c -o "$work/$app-bench$np.mpich.o" -I"$TRACEGEN_MPICH_INCLUDE" \
        "$work/$app-bench$np.c"
    fi
  done
done

# The extrapolated stencil2d trace as a benchmark: generated, compiled, run under the recorder
# at 24 ranks, and its calls and bytes compared with the extrapolated trace.
if [ -s "$work/stencil2d-x24.tgt" ]; then
  check "stencil2d: benchmark generated from the 24-rank extrapolation" \
    "$tracegen" "$work/stencil2d-x24.tgt" -o "$work/bench24.c"
  check "stencil2d: benchmark compiles with -Wall -Wextra -Werror" \
    mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$work/bench24" "$work/bench24.c"
  if [ -x "$work/bench24" ] && record 24 "$work/bench24.tgt" "$work/bench24" --compute-scale 100; then
    check "stencil2d: benchmark at 24 ranks = extrapolated trace" \
      "$tracegen" compare "$work/stencil2d-x24.tgt" "$work/bench24.tgt"
  else
    failures=$((failures + 1))
  fi
fi


# A rank count the scale-free strong-scaling stencil's formulas do not fit (240/py with py = 7)
# stops it before any communication, with status 2 and the rank counts that fit.
if [ -x "$work/stencil_strong-scalefree" ]; then
  refused "scale-free benchmark refuses 14 ranks and names what fits" \
    "bench: 14 ranks (grid 2x7) do not fit this benchmark: it needs py dividing 240; 12 (3x4) or 15 (3x5) ranks fit" \
    timeout 120 mpiexec --oversubscribe -n 14 "$work/stencil_strong-scalefree"
fi

# --grid chooses another grid of the same ranks (2x8 for 16: every class present), and a grid of
# another rank count is refused before any communication.
if [ -x "$work/stencil2d-scalefree" ] && [ -s "$work/stencil2d-real24.tgt" ]; then
  check "stencil2d: scale-free benchmark on a 2x8 grid (--grid)" bash -c '
    timeout 120 mpiexec --oversubscribe -n 16 "$1" --grid 2x8 --compute-scale 0 >"$2/grid.out" 2>&1 &&
    grep -q "^elapsed: " "$2/grid.out"' _ "$work/stencil2d-scalefree" "$work"
  refused "scale-free benchmark refuses a --grid of another rank count" \
    "bench: --grid 3x5 has 15 ranks, but the benchmark runs with 16" \
    timeout 120 mpiexec --oversubscribe -n 16 "$work/stencil2d-scalefree" --grid 3x5
fi

# With --ranks and an output named .c, `tracegen extrapolate` writes the benchmark directly: the
# same program as generating from the extrapolated trace.
if [ -s "$work/stencil2d-x24.tgt" ] && [ -s "$work/bench24.c" ]; then
  check "stencil2d: extrapolate --ranks 24 -o bench.c writes the benchmark of the extrapolated trace" bash -c '
    "$1" extrapolate "$2" "$3" "$4" --ranks 24 -o "$5/direct24.c" >/dev/null &&
    diff <(sed -n "/^int main/,\$p" "$5/direct24.c") <(sed -n "/^int main/,\$p" "$5/bench24.c") &&
    mpicc -std=c11 -O2 -Wall -Wextra -Werror -c -o "$5/direct24.o" "$5/direct24.c"' \
    _ "$tracegen" "$work/stencil2d-9.tgt" "$work/stencil2d-12.tgt" "$work/stencil2d-16.tgt" "$work"
fi

# Classes no input shows: recordings at 2x2 and 2x4 never have a rank with neighbours on both
# sides in x (3-D: 2x2x2 and 2x2x3, neither x nor y). The new classes follow from per-direction
# neighbour predicates: exact at the target (compare) and in the scale-free benchmark (counts).
composed() {  # composed APP "ARGS" TARGET-RANKS INPUT-RANKS...
  local app=$1 np=$3 n ins=() a
  read -r -a a <<<"$2"
  shift 3
  for n in "$@"; do
    record "$n" "$work/$app-c$n.tgt" "$apps/$app" "${a[@]}" || { failures=$((failures + 1)); return; }
    ins+=("$work/$app-c$n.tgt")
  done
  record "$np" "$work/$app-cx$np.real.tgt" "$apps/$app" "${a[@]}" || { failures=$((failures + 1)); return; }
  check "$app: from $* ranks to $np, with classes no input shows: extrapolated = recorded" bash -c '
    "$1" extrapolate "${@:4}" --ranks "$3" -o "$2.tgt" --explain >"$2.log" &&
    grep "no input shows it): composed from classes" "$2.log" && "$1" compare "$2.tgt" "$2.real.tgt"' \
    _ "$tracegen" "$work/$app-cx$np" "$np" "${ins[@]}"
  check "$app: scale-free benchmark from $* ranks, run at $np = recorded (PMPI counts on every rank)" bash -c '
    "$1" extrapolate "${@:7}" -o "$2.c" >/dev/null && mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$2" "$2.c" &&
    "$1" inspect --per-rank --format json "$3" >"$2.want.json" &&
    LD_PRELOAD="$4" TRACEGEN_COUNT_OUTPUT="$2.json" timeout 600 mpiexec --oversubscribe -n "$5" "$2" \
      --compute-scale 0 >"$2.out" 2>&1 &&
    python3 "$6/tests/support/compare_counts.py" "$2.want.json" "$2.json"' \
    _ "$tracegen" "$work/$app-csf" "$work/$app-cx$np.real.tgt" "$countlib" "$np" "$src" "${ins[@]}"
}
if [[ " ${selected[*]} " == *" stencil2d "* ]]; then
  composed stencil2d "10 16" 36 4 8
  composed halo3d "5 6" 27 8 12
fi

# Different applications given as one: the first two events that differ, at the line of one, status 2.
if [ -s "$work/ring-4.tgt" ] && [ -s "$work/stencil2d-9.tgt" ]; then
  refused "mismatched structure refused" "ring-4.tgt:[0-9]*: error: event 1 MPI_Sendrecv .* at P=4 and event 1 MPI_Irecv .* at P=9 differ" \
    "$tracegen" extrapolate "$work/ring-4.tgt" "$work/stencil2d-9.tgt" --ranks 16 -o "$work/bad.tgt"
fi

# What no grid explains is refused, not guessed: cg's transpose partner (col * ncols + row).
if record 4 "$work/cg-4.tgt" "$apps/cg" 4 64 && record 8 "$work/cg-8.tgt" "$apps/cg" 4 64; then
  refused "cg (transpose partner) refused" "cg-4.tgt:[0-9]*: error: event .* MPI_Irecv .* not a union of position classes" \
    "$tracegen" extrapolate "$work/cg-4.tgt" "$work/cg-8.tgt" --ranks 16 -o "$work/cg-16.tgt"
else
  failures=$((failures + 1))
fi

echo "$passed passed, $failures failed"
[ $failures -eq 0 ]
