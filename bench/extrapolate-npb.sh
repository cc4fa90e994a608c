#!/usr/bin/env bash
# `tracegen extrapolate` on NAS-Parallel-Benchmark-like codes (samples/apps/npb-like): one binary
# per process count, as the NAS suites build them, so call sites and trace structure move
# between scales.
#
#   bench/extrapolate-npb.sh BUILD_DIR [SAMPLE...]     (default: all six samples)
#
# Per sample: recordings at three scales of at most 16 ranks (4, 8, 16; bt_like 4, 9, 16),
# extrapolated to 32 and 64 (bt_like 25, 36, 64), and from 8, 16, 32 to 64 (bt_like 16, 25, 36
# to 64), each both to a trace (--ranks) and to one scale-free C benchmark (no --ranks); the
# application itself recorded at every target. One table row per case:
#
#   trace        produced, or refused and the first line of the error
#   calls        the extrapolated trace's calls per rank and operation = the real recording's
#                (`tracegen inspect --per-rank`), and `tracegen compare`'s verdict
#   bytes        the worst per-rank relative error of bytes sent or received, in % (with the
#                collectives' bytes where `tracegen compare` reports a difference; is_like's
#                counts follow its keys and are compared within 5%, and its scale-free benchmark
#                is recorded at the target and compared so, the counting library counting no
#                collective's bytes)
#   scale-free   produced or refused (first line of the error); if produced: compiled with
#                mpicc, run at the target with `timeout` under the PMPI counting library
#                (tests/support/mpi_count.c), its calls and bytes per rank against the real
#                recording's (tests/support/compare_counts.py)
#   sites        the trace case again with every input's call sites renamed by position
#                (tests/support/renumber_sites.py): the refusal that follows the call-site one;
#                where that trace is produced, the scale-free benchmark from the renumbered
#                inputs too, run and counted as above
#
# Then per sample and scale what `tracegen inspect` says of the recordings (events, loops, calls
# per rank). Binaries the build does not have (BUILD_DIR/samples/apps/npb-like/<sample>.<N>) are
# compiled here with mpicc / mpifort, as that CMakeLists does. WORK=DIR keeps the files there.
# Recordings of one input set run at the same time (three mpiexec at once).
set -uo pipefail
build=$(cd "${1:?usage: extrapolate-npb.sh BUILD_DIR [SAMPLE...]}" && pwd)
shift
src=$(cd "$(dirname "$0")/.." && pwd)
samples=("$@")
[ ${#samples[@]} -eq 0 ] && samples=(cg_like mg_like is_like ft_like bt_like lu_like)
tracegen=$build/tools/tracegen/tracegen
recorder=$build/record/libtracegen-record.so
bindir=$build/samples/apps/npb-like
for f in "$tracegen" "$recorder"; do [ -f "$f" ] || { echo "missing $f: build first" >&2; exit 2; }; done
if [ -n "${WORK:-}" ]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
mkdir -p "$work/bin"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TRACEGEN_QUIET=1
countlib=$work/libtracegen-count.so
mpicc -shared -fPIC -O2 -o "$countlib" "$src/tests/support/mpi_count.c" -ldl || { echo "cannot build the counting library" >&2; exit 1; }
run_timeout=${RUN_TIMEOUT:-300}

# binary SAMPLE N: the sample built for N ranks (compiled here if the build has none).
binary() {
  local s=$1 n=$2 out
  if [ -x "$bindir/$s.$n" ]; then
    echo "$bindir/$s.$n"
    return
  fi
  out=$work/bin/$s.$n
  if [ ! -x "$out" ]; then
    if [ "$s" = lu_like ]; then
      mkdir -p "$work/bin/fmod.$n"
      mpifort -cpp -O2 -Wall -Wextra -Werror -DNPROCS="$n" -J "$work/bin/fmod.$n" -o "$out" \
        "$src/samples/apps/npb-like/$s.F90" >&2 || return 1
    else
      mpicc -std=c11 -O2 -Wall -Wextra -Werror -DNPROCS="$n" -o "$out" "$src/samples/apps/npb-like/$s.c" -lm >&2 ||
        return 1
    fi
  fi
  echo "$out"
}

# record SAMPLE N...: recordings $work/SAMPLE-N.tgt, those not made yet, all at once.
record() {
  local s=$1 n pids=() ns=() bin i rc=0
  shift
  for n in "$@"; do
    [ -s "$work/$s-$n.tgt" ] && continue
    bin=$(binary "$s" "$n") || { echo "cannot build $s for $n ranks" >&2; rc=1; continue; }
    timeout "$run_timeout" mpiexec --oversubscribe -n "$n" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$work/$s-$n.tgt" \
      TRACEGEN_COMPRESS=0 "$bin" >"$work/$s-$n.rec.out" 2>&1 &
    pids+=($!)
    ns+=("$n")
  done
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}" || [ ! -s "$work/$s-${ns[$i]}.tgt" ]; then
      echo "recording $s at ${ns[$i]} ranks failed:" >&2
      tail -5 "$work/$s-${ns[$i]}.rec.out" >&2
      rc=1
    fi
  done
  return $rc
}

# refusal STATUS FILE: "refused: " and the first line of the error (status 2), else the status.
refusal() {
  if [ "$1" -eq 2 ]; then echo "refused: $(first_error "$2")"; else echo "failed (status $1): $(first_error "$2")"; fi
}

# first_error FILE: the first line of a refusal (the first `error:` line, else the first line).
first_error() {
  local line
  line=$(grep -m1 'error' "$1")
  [ -n "$line" ] || line=$(head -1 "$1")
  # the inputs' directory says nothing
  echo "${line//$work\//}"
}

# calls_and_bytes WANT.json GOT.json: "yes|no (first difference)" and the worst byte error in %.
calls_and_bytes() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
w = json.load(open(sys.argv[1]))["per_rank"]
g = json.load(open(sys.argv[2]))["per_rank"]
diff = None
if len(w) != len(g):
    diff = f"{len(g)} ranks, real {len(w)}"
worst = 0.0
for a, b in zip(w, g):
    if diff is None and a["ops"] != b["ops"]:
        op = next(o for o in sorted(set(a["ops"]) | set(b["ops"])) if a["ops"].get(o, 0) != b["ops"].get(o, 0))
        diff = f"rank {a['rank']} {op} {b['ops'].get(op, 0)}, real {a['ops'].get(op, 0)}"
    for k in ("bytes_sent", "bytes_received"):
        if a[k] != b[k]:
            worst = max(worst, abs(b[k] - a[k]) / a[k] * 100 if a[k] else float("inf"))
print(("yes" if diff is None else "no (" + diff + ")") + "\t" + (f"{worst:.2f}%" if worst != float("inf") else "inf"))
EOF
}

# Counts that follow the data (is_like's MPI_Alltoallv) are approximate: compared within 5%.
tolerance() { [ "$1" = is_like ] && echo "--bytes-tolerance 5"; }
tolerance_words() { [ "$1" = is_like ] && echo " within 5%"; }
# compare_bytes CMP FALLBACK: the largest difference in bytes `tracegen compare` reports (the
# collectives' too, which inspect's per-rank figures leave out), else FALLBACK.
compare_bytes() {
  local worst
  worst=$(grep -o 'largest difference in bytes: [0-9.]*%' "$1" | grep -o '[0-9.]*%')
  echo "${worst:-$2}"
}
# run_recorded BENCH N REAL SAMPLE: the benchmark run at N ranks under the recorder and its trace
# compared with the real recording (for counts that follow the data: the PMPI counting library
# counts no collective's bytes).
run_recorded() {
  local b=$1 n=$2 real=$3 s=$4
  if ! timeout "$run_timeout" mpiexec --oversubscribe -n "$n" env LD_PRELOAD="$recorder" TRACEGEN_OUTPUT="$b-$n.tgt" \
      "$b" --compute-scale 0 >"$b.out" 2>&1; then
    echo "run failed: $(first_error "$b.out")"
  # shellcheck disable=SC2046
  elif "$tracegen" compare $(tolerance "$s") "$b-$n.tgt" "$real" >"$b.cmp" 2>&1; then
    echo "ran, recorded: same calls, bytes within 5% (largest difference $(compare_bytes "$b.cmp" 0%))"
  else
    echo "ran, recorded: differs: $(grep -m1 -v '^$' "$b.cmp")"
  fi
}

# renumber IN OUT: the trace with every call site renamed by position (tests/support/
# renumber_sites.py): what extrapolate says once the binaries' different addresses are matched
# (the next refusal).
renumber() { python3 "$src/tests/support/renumber_sites.py" "$1" "$2"; }

targets_of() {  # targets_of SAMPLE SET: the targets of an input set
  case "$1:$2" in
    bt_like:small) echo "25 36 64" ;;
    *:small) echo "32 64" ;;
    *:large) echo "64" ;;
  esac
}
inputs_of() {
  case "$1:$2" in
    bt_like:small) echo "4 9 16" ;;
    bt_like:large) echo "16 25 36" ;;
    *:small) echo "4 8 16" ;;
    *:large) echo "8 16 32" ;;
  esac
}

rows=()
scales=()
for s in "${samples[@]}"; do
  for set in small large; do
    read -r -a ins <<<"$(inputs_of "$s" "$set")"
    record "$s" "${ins[@]}"
    files=()
    renumbered=()
    for n in "${ins[@]}"; do
      files+=("$work/$s-$n.tgt")
      renumber "$work/$s-$n.tgt" "$work/$s-$n.sites.tgt"
      renumbered+=("$work/$s-$n.sites.tgt")
    done
    label=$(IFS=/; echo "${ins[*]}")
    # The scale-free benchmark: one per input set.
    sf=$work/$s-${label//\//-}-sf
    if "$tracegen" extrapolate "${files[@]}" -o "$sf.c" >"$sf.log" 2>&1; then
      if mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$sf" "$sf.c" >"$sf.cc.log" 2>&1; then
        sf_state=produced
      else
        sf_state="produced, does not compile: $(first_error "$sf.cc.log")"
      fi
    else
      sf_state=$(refusal $? "$sf.log")
    fi
    for t in $(targets_of "$s" "$set"); do
      record "$s" "$t"
      real=$work/$s-$t.tgt
      "$tracegen" inspect --per-rank --format json "$real" >"$real.json" 2>/dev/null
      x=$work/$s-${label//\//-}-x$t
      if "$tracegen" extrapolate "${files[@]}" --ranks "$t" -o "$x.tgt" >"$x.log" 2>&1; then
        trace=produced
        "$tracegen" inspect --per-rank --format json "$x.tgt" >"$x.json" 2>/dev/null
        IFS=$'\t' read -r calls bytes <<<"$(calls_and_bytes "$real.json" "$x.json")"
        # shellcheck disable=SC2046
        if "$tracegen" compare $(tolerance "$s") "$x.tgt" "$real" >"$x.cmp" 2>&1; then
          calls="$calls; compare: identical$(tolerance_words "$s")"
          bytes=$(compare_bytes "$x.cmp" "$bytes")
        else
          calls="$calls; compare: $(grep -m1 -v '^$' "$x.cmp")"
        fi
      else
        trace=$(refusal $? "$x.log")
        calls=- bytes=-
      fi
      # The same inputs, their call sites renumbered by position: to a trace, and when that is
      # produced, to a scale-free benchmark run at the target too.
      if "$tracegen" extrapolate "${renumbered[@]}" --ranks "$t" -o "$x.sites.tgt" >"$x.sites.log" 2>&1; then
        # shellcheck disable=SC2046
        if "$tracegen" compare $(tolerance "$s") "$x.sites.tgt" "$real" >"$x.sites.cmp" 2>&1; then
          sites="produced; compare: identical$(tolerance_words "$s")"
        else
          sites="produced; compare: $(grep -m1 -v '^$' "$x.sites.cmp")"
        fi
        if ! "$tracegen" extrapolate "${renumbered[@]}" -o "$x.sites.c" >"$x.sites.sf.log" 2>&1; then
          sites="$sites; scale-free: $(refusal $? "$x.sites.sf.log")"
        elif ! mpicc -std=c11 -O2 -Wall -Wextra -Werror -o "$x.sites.sf" "$x.sites.c" >"$x.sites.cc.log" 2>&1; then
          sites="$sites; scale-free: does not compile: $(first_error "$x.sites.cc.log")"
        elif [ -n "$(tolerance "$s")" ]; then
          sites="$sites; scale-free: $(run_recorded "$x.sites.sf" "$t" "$real" "$s")"
        elif ! LD_PRELOAD="$countlib" TRACEGEN_COUNT_OUTPUT="$x.sites.sf.json" timeout "$run_timeout" \
            mpiexec --oversubscribe -n "$t" "$x.sites.sf" --compute-scale 0 >"$x.sites.sf.out" 2>&1; then
          sites="$sites; scale-free: run failed: $(first_error "$x.sites.sf.out")"
        elif python3 "$src/tests/support/compare_counts.py" "$real.json" "$x.sites.sf.json" >"$x.sites.sf.cmp" 2>&1; then
          sites="$sites; scale-free: ran, PMPI counts = real"
        else
          sites="$sites; scale-free: ran, PMPI counts differ:$(head -1 "$x.sites.sf.cmp")"
        fi
      else
        sites=$(refusal $? "$x.sites.log")
      fi
      if [ "$sf_state" = produced ] && [ -n "$(tolerance "$s")" ]; then
        sf_cell="produced; $(run_recorded "$sf" "$t" "$real" "$s")"
      elif [ "$sf_state" = produced ]; then
        if LD_PRELOAD="$countlib" TRACEGEN_COUNT_OUTPUT="$x.sf.json" timeout "$run_timeout" \
            mpiexec --oversubscribe -n "$t" "$sf" --compute-scale 0 >"$x.sf.out" 2>&1; then
          if python3 "$src/tests/support/compare_counts.py" "$real.json" "$x.sf.json" >"$x.sf.cmp" 2>&1; then
            sf_run="ran; PMPI counts = real"
          else
            sf_run="ran; PMPI counts differ:$(head -1 "$x.sf.cmp")"
          fi
        else
          sf_run="run failed (status $?): $(first_error "$x.sf.out")"
        fi
        sf_cell="produced; $sf_run"
      elif [ "$sf_state" = "$trace" ]; then
        sf_cell="${trace%%:*} (the same message)"
      else
        sf_cell=$sf_state
      fi
      rows+=("| $s | $label | $t | $trace | $calls | $bytes | $sf_cell | $sites |")
    done
  done
  # What inspect says of every recording of the sample.
  for n in $(printf '%s\n' $(inputs_of "$s" small) $(inputs_of "$s" large) $(targets_of "$s" small) | sort -nu); do
    f=$work/$s-$n.tgt
    summary=$(python3 - "$tracegen" "$f" <<'EOF'
import json, subprocess, sys
j = json.loads(subprocess.run([sys.argv[1], "inspect", "--format", "json", sys.argv[2]], capture_output=True, text=True).stdout)
def get(*keys):
    for k in keys:
        if k in j:
            return j[k]
    return "?"
print(f"{get('events')}\t{get('loops')} on {get('loop_heads')} heads\t{get('calls')}")
EOF
)
    IFS=$'\t' read -r ev lo ca <<<"$summary"
    scales+=("$n|$s|$ev|$lo|$ca")
  done
done

echo
echo "| sample | inputs | target | extrapolated trace | calls identical | worst per-rank byte error | scale-free benchmark | trace, sites renumbered |"
echo "|---|---|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo
echo "| sample | ranks | events | loop levels | calls (all ranks) |"
echo "|---|---|---|---|---|"
printf '%s\n' "${scales[@]}" | sort -t'|' -k2,2 -k1,1n | awk -F'|' '{printf "| %s | %s | %s | %s | %s |\n", $2, $1, $3, $4, $5}'
