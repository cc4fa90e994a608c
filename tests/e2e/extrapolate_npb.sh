#!/usr/bin/env bash
# `tracegen extrapolate` on the NAS-Parallel-Benchmark-like samples (samples/apps/npb-like), one
# binary per process count: what it does today, case by case, so that this test fails when that
# changes (and is updated as the extrapolator learns these codes).
#
#   extrapolate_npb.sh TRACEGEN RECORDER NPB_DIR SOURCE_DIR [SAMPLE...]
#
# Each sample is recorded at its three scales at once (4, 8, 16 ranks; bt_like 4, 9, 16) and
# extrapolated to 32 ranks (bt_like 25), to a trace (--ranks) and to one scale-free benchmark.
# And the trace case again with every input's call sites renamed by position
# (tests/support/renumber_sites.py): what extrapolate says beyond the binaries' different
# addresses. The expected outcome of each case is in `expected` below:
#   refused PATTERN    status 2 and the first error line matches *PATTERN* (a glob: `*` stands
#                      for the call-site addresses and line numbers, which the compiler decides)
#   identical          produced, and `tracegen compare` with a recording at the target passes
#                      (scale-free: compiled, run at the target, its PMPI counts on every rank
#                      equal to the recording's, tests/support/compare_counts.py)
#   differs            produced, but the comparison above fails
# OBSERVE=1 prints the outcomes as `expected` lines instead of checking them (to update them).
# The 64-rank cases and the table of all of them: bench/extrapolate-npb.sh.
set -uo pipefail
tracegen=$1 recorder=$2 npb=$3 src=$4
shift 4
selected=("$@")
[ ${#selected[@]} -eq 0 ] && selected=(cg_like mg_like is_like ft_like bt_like lu_like)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
failures=0 passed=0
if ! mpicc -shared -fPIC -O2 -o "$work/libcount.so" "$src/tests/support/mpi_count.c" -ldl; then
  echo "FAIL: cannot build the counting library"
  exit 1
fi

# expected SAMPLE KIND: the outcome observed (KIND: trace, scalefree or sites), as described above.
# Call sites differ between the binaries and are matched by alignment (extrap/Correspondence.h),
# so the renumbered inputs (sites) give what the recorded ones give.
expected() {
  local small="error: event 1 MPI_Irecv at *: the ranks <1 0 {2 2}> of its source are not a union of position classes of the 1-D grid at P=4 (4)"
  case "$1:$2" in
    # The recursive-doubling partner (rank XOR 2^k within the row) and the transpose partner
    # follow relations (extrap/topology/Hypercube.h, Transpose.h), rank by rank; the row sum's
    # log2(px) steps are the loop's trip count. The scale-free benchmark's templates are the
    # grids of powers of two (no grid of extents apart fits 1024/py), its peers the relations
    # (gen/GridRelation.h), its trip count and tags log2(px): run at 32 (8x4) it makes the
    # recording's calls and bytes on every rank.
    cg_like:*) echo identical ;;
    # 4 V-cycle levels at 4 and 8 ranks (local 32x16x16, 16^3), 3 from 16 on: the recorder folds
    # the levels into loops (54 events at every scale), and the level lists are geometric blocks
    # (extrapolate's fitGeometricBlocks); but 4 ranks are 1x2x2, too small for a 3-D grid (the
    # error's hint says so), and no grid of fewer dimensions has the halo's classes.
    mg_like:*) echo "refused $small" ;;
    # Counts that follow the keys: approximate, every rank within 5% at the target. The
    # scale-free benchmark spreads the mean total per rank, 65536/P, evenly over the pairs at
    # run time (65536/P^2 each: 64 at 32 ranks).
    is_like:*) echo identical ;;
    # The transposes and the checksum, exactly; the wavefront too (its rows' events interleave
    # differently at 4x2 and 4x4, and are reordered).
    ft_like:* | lu_like:*) echo identical ;;
    # 40 points over sqrt(P) columns: 14, 13, 13 at 3x3, and 7, 7, 7, 7, 6, 6 at 6x6: every face
    # follows the coordinate across it as 40*block(40, py, y) (extrap/BlockDistribution.h), and
    # the trace at 25 is the recording's. Every input is square, so the scale-free benchmark's
    # templates are the square grids 3x3 .. 7x7 and it asks px = py; its counts are
    # (40 * (40 / py + (y < 40 % py))): run at 25 (5x5) it makes the recording's calls and bytes
    # on every rank.
    bt_like:*) echo identical ;;
    *) echo unknown ;;
  esac
}

inputs_of() { [ "$1" = bt_like ] && echo "4 9 16" || echo "4 8 16"; }
# is_like's counts follow its keys: the extrapolation is approximate, every rank within 5%.
compare_opts() { [ "$1" = is_like ] && echo "--bytes-tolerance 5"; }
target_of() { [ "$1" = bt_like ] && echo 25 || echo 32; }

# record SAMPLE N...: $work/SAMPLE-N.tgt for every N, the runs at the same time.
record() {
  local s=$1 n pids=() ns=() i rc=0
  shift
  for n in "$@"; do
    timeout 300 mpiexec --oversubscribe -n "$n" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/$s-$n.tgt" \
      TRACEGEN_COMPRESS=0 "$npb/$s.$n" >"$work/$s-$n.out" 2>&1 &
    pids+=($!)
    ns+=("$n")
  done
  for i in "${!pids[@]}"; do
    n=${ns[$i]}
    wait "${pids[$i]}" && [ -s "$work/$s-$n.tgt" ] && continue
    # A run that failed beside the others (mpiexec on a loaded machine) is made again alone.
    echo "note: recording $s at $n ranks failed beside the others, made again alone:"
    tail -5 "$work/$s-$n.out"
    if ! timeout 300 mpiexec --oversubscribe -n "$n" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/$s-$n.tgt" \
        TRACEGEN_COMPRESS=0 "$npb/$s.$n" >"$work/$s-$n.out" 2>&1 || [ ! -s "$work/$s-$n.tgt" ]; then
      cat "$work/$s-$n.out"
      echo "FAIL: recording $s at $n ranks"
      rc=1
    fi
  done
  return $rc
}

# verdict NAME WANT GOT: counts a pass when the outcome GOT is the one expected, WANT.
verdict() {
  local name=$1 want=$2 got=$3
  if [ -n "${OBSERVE:-}" ]; then
    echo "    $name) echo \"$got\" ;;"
    return
  fi
  local ok=1
  case "$want" in
    refused\ *) [[ "$got" == refused* && "$got" == *${want#refused }* ]] && ok=0 ;;
    *) [ "$got" = "$want" ] && ok=0 ;;
  esac
  if [ $ok -eq 0 ]; then
    passed=$((passed + 1))
    echo "ok: $name: $want"
  else
    failures=$((failures + 1))
    echo "FAIL: $name: expected $want"
    echo "  got: $got"
  fi
}

# outcome LOG: "refused FIRST-ERROR-LINE" for a refusal (status 2)
refusal() {
  local line
  line=$(grep -m1 'error' "$1")
  [ -n "$line" ] || line=$(head -1 "$1")
  echo "refused ${line//$work\//}"
}

for s in "${selected[@]}"; do
  read -r -a ins <<<"$(inputs_of "$s")"
  t=$(target_of "$s")
  record "$s" "${ins[@]}" || { failures=$((failures + 1)); continue; }
  files=()
  for n in "${ins[@]}"; do files+=("$work/$s-$n.tgt"); done
  real_recorded=0
  real() {  # the recording at the target, made once when a case needs it
    [ $real_recorded -eq 1 ] || { record "$s" "$t" && real_recorded=1; }
  }
  # To a trace at the target.
  "$tracegen" extrapolate "${files[@]}" --ranks "$t" -o "$work/$s-x$t.tgt" >"$work/$s-x.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    # shellcheck disable=SC2046
    if real && "$tracegen" compare $(compare_opts "$s") "$work/$s-x$t.tgt" "$work/$s-$t.tgt" >"$work/$s-x.cmp" 2>&1; then
      got=identical
    else
      got=differs
    fi
  elif [ $rc -eq 2 ]; then
    got=$(refusal "$work/$s-x.log")
  else
    got="status $rc: $(head -1 "$work/$s-x.log")"
  fi
  verdict "$s:trace" "$(expected "$s" trace)" "$got"
  # The same, the call sites renumbered by position.
  sites=()
  for f in "${files[@]}"; do
    python3 "$src/tests/support/renumber_sites.py" "$f" "${f%.tgt}.sites.tgt"
    sites+=("${f%.tgt}.sites.tgt")
  done
  "$tracegen" extrapolate "${sites[@]}" --ranks "$t" -o "$work/$s-s$t.tgt" >"$work/$s-s.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then
    # shellcheck disable=SC2046
    if real && "$tracegen" compare $(compare_opts "$s") "$work/$s-s$t.tgt" "$work/$s-$t.tgt" >"$work/$s-s.cmp" 2>&1; then
      got=identical
    else
      got=differs
    fi
  elif [ $rc -eq 2 ]; then
    got=$(refusal "$work/$s-s.log")
  else
    got="status $rc: $(head -1 "$work/$s-s.log")"
  fi
  verdict "$s:sites" "$(expected "$s" sites)" "$got"
  # To one scale-free benchmark, run at the target.
  sf=$work/$s-sf
  "$tracegen" extrapolate "${files[@]}" -o "$sf.c" >"$sf.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ] && [ -n "$(compare_opts "$s")" ]; then
    # Counts that follow the data: the counting library counts no collective's bytes, so the
    # benchmark's run is recorded and compared with the recording within the tolerance.
    # shellcheck disable=SC2046
    if mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$sf" "$sf.c" >"$sf.cc" 2>&1 && real &&
        timeout 300 mpiexec --oversubscribe -n "$t" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$sf-$t.tgt" \
          "$sf" --compute-scale 0 >"$sf.out" 2>&1 &&
        "$tracegen" compare $(compare_opts "$s") "$sf-$t.tgt" "$work/$s-$t.tgt" >"$sf.cmp" 2>&1; then
      got=identical
    else
      got=differs
    fi
  elif [ $rc -eq 0 ]; then
    if mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$sf" "$sf.c" >"$sf.cc" 2>&1 && real &&
        "$tracegen" inspect --per-rank --format json "$work/$s-$t.tgt" >"$sf.want.json" &&
        LD_PRELOAD="$work/libcount.so" TRACEGEN_COUNT_OUTPUT="$sf.json" timeout 300 \
          mpiexec --oversubscribe -n "$t" "$sf" --compute-scale 0 >"$sf.out" 2>&1 &&
        python3 "$src/tests/support/compare_counts.py" "$sf.want.json" "$sf.json" >"$sf.cmp" 2>&1; then
      got=identical
    else
      got=differs
    fi
  elif [ $rc -eq 2 ]; then
    got=$(refusal "$sf.log")
  else
    got="status $rc: $(head -1 "$sf.log")"
  fi
  verdict "$s:scalefree" "$(expected "$s" scalefree)" "$got"
done

[ -n "${OBSERVE:-}" ] && exit 0
echo "$passed passed, $failures failed"
[ $failures -eq 0 ]
